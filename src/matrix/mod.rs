//! Matrices of input values and the rendered cells rules look at.
//!
//! * [`config`] — `stackproof.yaml`: targets, matrices, rule sets;
//! * [`expand`] — matrix expansion into named cells;
//! * [`model`] — a rendered cell's three layers (states, values, manifests);
//! * [`render`] — the [`render::Renderer`] trait and parallel rendering;
//! * [`fixture`] — a renderer reading pre-rendered layers from files;
//! * [`chart_target`] — plain charts rendered natively;
//! * [`helmfile_target`] — Helmfile stacks rendered natively;
//! * [`manifests`] — parsing a rendered YAML stream into documents with positions;
//! * [`convert`] — template values and yaml.v2 documents to JSON with positions;
//! * [`yaml`] — the position-keeping YAML tree every input goes through;
//! * [`error`] — input (configuration) errors reported at `file:line:col`.

pub mod chart_target;
pub mod config;
pub mod convert;
pub mod error;
pub mod expand;
pub mod fixture;
pub mod helmfile_target;
pub mod manifests;
pub mod model;
pub mod render;
pub mod yaml;

pub use config::{Config, Target, TargetKind};
pub use error::InputError;
pub use expand::Cell;
pub use model::{
    Manifest, ManifestsLayer, Origins, Release, ReleaseId, ReleaseValues, RenderError,
    RenderedCell, ResourceRef, StatesLayer, ValuesLayer,
};
pub use render::{RenderRequest, Renderer, Renderers};
