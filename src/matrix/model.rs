//! What a rendered cell is: the three layers rules look at, each of which may have failed.
//!
//! A cell of a target renders into a [`RenderedCell`] with three independent layers:
//! * *states* — the releases a Helmfile stack (or a plain chart) declares, with their
//!   chart, version, labels, `needs`, installed/condition outcome and declaring line;
//! * *values* — the merged values each release is rendered with, and where each leaf
//!   came from when that is known;
//! * *manifests* — the documents each release renders to, with kind/name/namespace, the
//!   parsed body, the exact text and the template that produced it.
//!
//! Each layer, and each release within the values and manifests layers, is a `Result`:
//! a stack whose state file fails to evaluate still lets nothing else run, but a release
//! whose chart is missing only turns that release's manifest rules into findings.
//!
//! The model keeps rendered text per document in output order so a later `diff` between
//! two refs can compare releases document by document.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use serde::Serialize;
use serde_json::Value as Json;

use crate::source::Location;

/// Where the nodes of a JSON document came from: normalized JSONPath → position.
pub type Origins = BTreeMap<String, Location>;

/// Origins computed on first use: a rendered document has thousands of nodes and a
/// report points at a handful, so positions are worked out only for documents a
/// finding actually refers to.
#[derive(Clone, Debug, Default)]
pub struct LazyOrigins {
    /// YAML texts, each with its name and the line its first line has in that file;
    /// later texts override earlier ones (values files merged in order).
    sources: Vec<(Arc<str>, String, usize)>,
    done: std::sync::OnceLock<Origins>,
}

impl LazyOrigins {
    /// Already known positions.
    pub fn ready(origins: Origins) -> LazyOrigins {
        let done = std::sync::OnceLock::new();
        let _ = done.set(origins);
        LazyOrigins {
            sources: Vec::new(),
            done,
        }
    }

    /// Positions of the document in `text` (named `file`, starting at `first_line`),
    /// read when first asked for.
    pub fn from_yaml(text: Arc<str>, file: &str, first_line: usize) -> LazyOrigins {
        LazyOrigins::from_yamls(vec![(text, file.to_string(), first_line)])
    }

    /// Positions of the merge of several YAML documents (later ones win), read when
    /// first asked for.
    pub fn from_yamls(sources: Vec<(Arc<str>, String, usize)>) -> LazyOrigins {
        LazyOrigins {
            sources,
            done: std::sync::OnceLock::new(),
        }
    }

    pub fn get(&self) -> &Origins {
        self.done.get_or_init(|| {
            let mut out = Origins::new();
            for (text, file, first) in &self.sources {
                if let Ok(d) = super::convert::decode_yaml(text, file, *first) {
                    out.extend(d.origins);
                }
            }
            out
        })
    }
}

/// A release within a stack. Helmfile identifies releases by namespace and name.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct ReleaseId {
    pub namespace: String,
    pub name: String,
}

impl ReleaseId {
    pub fn new(namespace: impl Into<String>, name: impl Into<String>) -> ReleaseId {
        ReleaseId {
            namespace: namespace.into(),
            name: name.into(),
        }
    }
}

impl fmt::Display for ReleaseId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.namespace.is_empty() {
            f.write_str(&self.name)
        } else {
            write!(f, "{}/{}", self.namespace, self.name)
        }
    }
}

/// A Kubernetes object's identity as reports show it.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct ResourceRef {
    pub kind: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub api_version: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    pub name: String,
}

impl fmt::Display for ResourceRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.namespace {
            Some(ns) if !ns.is_empty() => write!(f, "{} {}/{}", self.kind, ns, self.name),
            _ => write!(f, "{} {}", self.kind, self.name),
        }
    }
}

/// Why a layer (or one release of it) could not be produced.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RenderError {
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<Location>,
}

impl RenderError {
    pub fn new(message: impl Into<String>) -> RenderError {
        RenderError {
            message: message.into(),
            location: None,
        }
    }

    pub fn at(mut self, location: Location) -> RenderError {
        self.location = Some(location);
        self
    }
}

impl fmt::Display for RenderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// One release as a state file declares it, after the state is evaluated.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Release {
    pub id: ReleaseId,
    pub chart: String,
    pub version: String,
    pub labels: BTreeMap<String, String>,
    /// `needs` entries as written (`name`, `ns/name` or `context/ns/name`).
    pub needs: Vec<String>,
    pub installed: bool,
    /// The outcome of `condition:` (true when there is no condition).
    pub enabled: bool,
    pub condition: Option<String>,
    /// The state file and line that declared the release.
    pub declared_at: Option<Location>,
}

impl Release {
    /// Whether Helmfile would render this release (`installed` and condition true).
    pub fn active(&self) -> bool {
        self.installed && self.enabled
    }

    /// The state file that declared the release, as reports show it.
    pub fn state(&self) -> Option<&str> {
        self.declared_at.as_ref().map(|l| l.file.as_str())
    }

    /// The JSON a states-layer rule sees for this release (`id` is `namespace/name`, the
    /// form `needs` entries use; `state` is the declaring state file and
    /// `state-releases` the ids of every release that state declares, because Helmfile
    /// applies states one at a time and a `needs` edge can only order releases of one
    /// state).
    pub fn to_json(&self, state_releases: &[String]) -> Json {
        serde_json::json!({
            "state": self.state(),
            "state-releases": state_releases,
            "name": self.id.name,
            "namespace": self.id.namespace,
            "id": self.id.to_string(),
            "chart": self.chart,
            "version": self.version,
            "labels": self.labels,
            "needs": self.needs,
            "installed": self.installed,
            "enabled": self.enabled,
            "condition": self.condition,
        })
    }
}

/// The states layer: every release the stack declares, in declaration order.
#[derive(Clone, Debug, Default)]
pub struct StatesLayer {
    pub releases: Vec<Release>,
    /// `to_json` of each release, computed once so rules can borrow it.
    pub docs: Vec<Json>,
    /// Where each field of each release document was declared, when known.
    pub origins: Vec<LazyOrigins>,
}

impl StatesLayer {
    pub fn new(releases: Vec<Release>) -> StatesLayer {
        let docs = releases
            .iter()
            .map(|r| {
                let siblings: Vec<String> = match r.state() {
                    Some(state) => releases
                        .iter()
                        .filter(|o| o.state() == Some(state))
                        .map(|o| o.id.to_string())
                        .collect(),
                    None => Vec::new(),
                };
                r.to_json(&siblings)
            })
            .collect();
        let origins = releases
            .iter()
            .map(|r| {
                let mut o = Origins::new();
                if let Some(at) = &r.declared_at {
                    o.insert("$".into(), at.clone());
                }
                LazyOrigins::ready(o)
            })
            .collect();
        StatesLayer {
            releases,
            docs,
            origins,
        }
    }

    pub fn with_origins(mut self, origins: Vec<Origins>) -> StatesLayer {
        for (slot, mut o) in self.origins.iter_mut().zip(origins) {
            // The declaring line (which may be in another file) wins over the fixture's.
            if let Some(at) = slot.get().get("$") {
                o.insert("$".into(), at.clone());
            }
            *slot = LazyOrigins::ready(o);
        }
        self
    }

    pub fn find(&self, id: &ReleaseId) -> Option<&Release> {
        self.releases.iter().find(|r| &r.id == id)
    }
}

/// The merged values of one release.
#[derive(Clone, Debug, Default)]
pub struct ReleaseValues {
    pub values: Json,
    /// Where leaves came from (the values file line that set them), when known.
    pub origins: LazyOrigins,
    /// The values files merged, in order.
    pub files: Vec<String>,
}

/// The values layer: per-release merged values, each of which may have failed.
#[derive(Clone, Debug, Default)]
pub struct ValuesLayer {
    pub releases: Vec<(ReleaseId, Result<ReleaseValues, RenderError>)>,
}

/// One rendered document.
#[derive(Clone, Debug, Default)]
pub struct Manifest {
    pub kind: String,
    pub api_version: String,
    pub name: String,
    pub namespace: Option<String>,
    /// Shared: cells that render the same document share one decoded body.
    pub body: Arc<Json>,
    /// The document's text exactly as rendered.
    pub text: Arc<str>,
    /// The chart template that produced it (`chart/templates/x.yaml`), and its line
    /// when the renderer knows it.
    pub template: Option<Location>,
    /// Where each node of `body` sits in the rendered output (or in a fixture file).
    pub origins: LazyOrigins,
}

impl Manifest {
    pub fn resource(&self) -> ResourceRef {
        ResourceRef {
            kind: self.kind.clone(),
            api_version: self.api_version.clone(),
            namespace: self.namespace.clone(),
            name: self.name.clone(),
        }
    }

    /// The labels in `metadata.labels`.
    pub fn labels(&self) -> BTreeMap<String, String> {
        labels_of(&self.body)
    }
}

/// `metadata.labels` of a Kubernetes object as strings.
pub fn labels_of(body: &Json) -> BTreeMap<String, String> {
    body.pointer("/metadata/labels")
        .and_then(Json::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), json_text(v)))
                .collect::<BTreeMap<_, _>>()
        })
        .unwrap_or_default()
}

/// A scalar's text as a user would write it (strings unquoted).
pub fn json_text(v: &Json) -> String {
    match v {
        Json::String(s) => s.clone(),
        Json::Null => "null".into(),
        other => other.to_string(),
    }
}

/// The manifests layer: per-release rendered documents, each release may have failed.
#[derive(Clone, Debug, Default)]
pub struct ManifestsLayer {
    pub releases: Vec<(ReleaseId, Result<Vec<Manifest>, RenderError>)>,
}

impl ManifestsLayer {
    /// Every successfully rendered document, with its release.
    pub fn documents(&self) -> impl Iterator<Item = (&ReleaseId, &Manifest)> {
        self.releases.iter().flat_map(|(id, r)| match r {
            Ok(docs) => docs.iter().map(move |d| (id, d)).collect::<Vec<_>>(),
            Err(_) => Vec::new(),
        })
    }
}

/// Texts that reports may quote but that are not files on disk (render output).
#[derive(Clone, Debug, Default)]
pub struct VirtualSources {
    pub files: BTreeMap<String, Arc<str>>,
}

/// One cell of one target, rendered.
#[derive(Clone, Debug)]
pub struct RenderedCell {
    pub target: String,
    pub cell: String,
    /// The cell's values as `when` expressions see them: for a stack its state values,
    /// for a chart its user-supplied values, for fixtures what the fixture declares.
    pub values: Json,
    /// The cell's declared expectations (null when none); set by [`super::render`].
    pub expect: Json,
    pub states: Result<StatesLayer, RenderError>,
    pub values_layer: Result<ValuesLayer, RenderError>,
    pub manifests: Result<ManifestsLayer, RenderError>,
    pub sources: VirtualSources,
}

impl RenderedCell {
    /// A cell whose every layer failed with the same error.
    pub fn failed(target: &str, cell: &str, values: Json, err: RenderError) -> RenderedCell {
        RenderedCell {
            target: target.into(),
            cell: cell.into(),
            values,
            expect: Json::Null,
            states: Err(err.clone()),
            values_layer: Err(err.clone()),
            manifests: Err(err),
            sources: VirtualSources::default(),
        }
    }

    /// Labels of a release from the states layer (empty when unknown).
    pub fn release_labels(&self, id: &ReleaseId) -> BTreeMap<String, String> {
        self.states
            .as_ref()
            .ok()
            .and_then(|s| s.find(id))
            .map(|r| r.labels.clone())
            .unwrap_or_default()
    }
}
