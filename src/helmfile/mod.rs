//! Helmfile stacks: state files, environments, releases and their values, rendered
//! the way helmfile 0.166 does, into a typed model the rule engine consumes.
//!
//! Entry point: [`render_stack`] takes a [`StackInput`] (the working directory,
//! `--file`, environment, state values, selectors, the file view with overlays, the
//! environment variables and the offline chart sources) and a [`Command`], and
//! returns a [`StackRender`]: every state and release with its values and
//! manifests, helmfile's exact stdout, the files `write-values` writes, warnings and
//! the error (Helmfile's own message text) that stopped the run, if any.
//!
//! Module map, in pipeline order: `paths` (Go path strings), `ynode` + `spec` (the
//! state schema and its strict decoding), `setvals` (`--state-values-set`), `env`
//! (environments and template data), `hcl` (HCL environment values files), `tmpl` (the template context), `load` (state
//! files: parts, two-pass rendering, bases, environment values), `release`
//! (inheritance, release templating, conditions, needs), `values` (values files and
//! `write-values` merging), `dag` (needs ordering), `selector`, `charts` (offline
//! chart sources), `output`, `list`, `app` (visiting states and running commands),
//! `model` (the result). `seams` is where the template engine, the YAML codec and
//! chart rendering are called.

pub mod app;
pub mod charts;
pub mod dag;
pub mod depbuild;
pub mod env;
pub mod error;
pub mod gomerge;
pub mod hcl;
mod lease;
pub mod list;
pub mod load;
pub mod lockfile;
pub mod model;
pub mod output;
pub mod paths;
pub mod release;
pub mod seams;
pub mod selector;
pub mod setvals;
pub mod spec;
pub mod tmpl;
pub mod values;
pub mod ynode;

pub use app::{render_stack, render_stack_unjoined, Command, HelmTemplateFlags, StackInput};
pub use charts::ChartSources;
pub use error::HelmfileError;
pub use model::{ReleaseFiles, ReleaseRender, StackRender, StateRender, WrittenFile};
pub use tmpl::RenderEnv;
