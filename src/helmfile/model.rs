//! The typed result of rendering a stack, for printers and the rule engine.
//!
//! [`StackRender`] holds every state visited (nested states first, each pointing at
//! its parent), every release of each state after release templating with its
//! selection, values files, merged values and rendered manifests when the command
//! computed them, plus exactly what helmfile would have printed (stdout, the files
//! `write-values` writes, stderr warnings) and the error that stopped the run.
//! Positions: each state keeps its rendered parts and each release the line of its
//! entry in the rendered part it came from.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use super::charts::ResolvedChart;
use super::error::HelmfileError;
use super::list::ListedRelease;
use super::load::RenderedPart;
use super::spec::ReleaseSpec;
use super::values::{SetArg, ValuesFile};
use crate::template::Value;

/// The outcome of one Helmfile command over a stack.
#[derive(Debug, Default)]
pub struct StackRender {
    pub states: Vec<StateRender>,
    /// `(state, release)` indices in the order `template` rendered them.
    pub order: Vec<(usize, usize)>,
    /// What helmfile prints to stdout for the command.
    pub stdout: String,
    /// `write-values` output.
    pub written: Vec<WrittenFile>,
    /// `template --output-dir` output: per rendered release, in template order.
    pub manifest_files: Vec<ReleaseFiles>,
    /// What helmfile logs to stderr that is not progress: helm's `wrote PATH`
    /// lines under `--output-dir`.
    pub log: String,
    /// `list` rows.
    pub listed: Vec<ListedRelease>,
    /// Lines helmfile prints to stderr besides progress (warnings).
    pub warnings: Vec<String>,
    /// stackproof's own notes (chart source decisions, version stamping).
    pub notes: Vec<String>,
    pub error: Option<HelmfileError>,
    /// 0, 1 (error) or 3 (nothing matched), as helmfile exits.
    pub exit_code: i32,
}

impl StackRender {
    /// Releases in template order with their state.
    pub fn rendered(&self) -> impl Iterator<Item = (&StateRender, &ReleaseRender)> {
        self.order.iter().filter_map(|&(s, r)| {
            self.states
                .get(s)
                .and_then(|st| st.releases.get(r).map(|rr| (st, rr)))
        })
    }
}

/// The files `helm template --output-dir` writes for one release.
#[derive(Debug, Clone)]
pub struct ReleaseFiles {
    /// The directory helm runs in (the state's): relative paths start there.
    pub base: PathBuf,
    /// The release's output directory, which Helmfile creates even when nothing
    /// is written into it.
    pub dir: String,
    pub writes: Vec<crate::chart::manifest::OutputWrite>,
    /// What helm printed (`wrote PATH` lines and the empty manifest).
    pub log: String,
}

/// A file `write-values` writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WrittenFile {
    /// The path the output-file template produced.
    pub path: String,
    /// Where that is (relative paths are relative to the state's directory).
    pub abs: PathBuf,
    pub content: String,
    /// `(state, release)` it belongs to.
    pub release: (usize, usize),
}

/// One visited state file.
#[derive(Debug, Clone)]
pub struct StateRender {
    /// The file name as Helmfile loads it (relative to its directory).
    pub file: String,
    pub path: PathBuf,
    /// The state whose `helmfiles:` pulled this one in.
    pub parent: Option<usize>,
    pub environment: String,
    /// The state values (`.Values`).
    pub values: Value,
    pub parts: Vec<RenderedPart>,
    pub releases: Vec<ReleaseRender>,
}

/// One release of a state.
#[derive(Debug, Clone, Default)]
pub struct ReleaseRender {
    pub state: usize,
    pub name: String,
    pub namespace: String,
    pub chart: String,
    pub version: String,
    pub kube_context: String,
    pub labels: BTreeMap<String, String>,
    /// Normalised (`ns/name`).
    pub needs: Vec<String>,
    pub condition: String,
    /// The condition's result (when evaluated).
    pub enabled: bool,
    pub installed: bool,
    /// Whether selectors and the condition selected it for the command.
    pub selected: bool,
    /// Line of the release in its rendered state part.
    pub line: usize,
    pub values_files: Vec<ValuesFile>,
    /// `write-values`' merged values.
    pub merged_values: Option<Value>,
    pub set: Vec<SetArg>,
    pub chart_source: Option<ResolvedChart>,
    /// `helm template` stdout (shared with the stack's output while it is built).
    pub manifests: Option<Arc<String>>,
    /// Position in the template output.
    pub order: Option<usize>,
}

impl ReleaseRender {
    pub fn from_spec(r: &ReleaseSpec, state: usize) -> ReleaseRender {
        ReleaseRender {
            state,
            name: r.name.clone(),
            namespace: r.namespace.clone(),
            chart: r.chart.clone(),
            version: r.version.clone(),
            kube_context: r.kube_context.clone(),
            labels: r.labels_or_empty(),
            needs: r.needs.clone(),
            condition: r.condition.clone(),
            enabled: r.condition.is_empty(),
            installed: r.desired(),
            line: r.line,
            ..Default::default()
        }
    }
}
