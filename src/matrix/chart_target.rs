//! The `chart` target: a plain chart rendered natively as `helm template` would, turned
//! into the three layers: one release (states), its coalesced values with the line of
//! the values file that set each leaf (values), and its documents with the template
//! that produced them (manifests).

use std::path::Path;
use std::sync::Arc;

use serde_json::Value as Json;

use super::config::{display_path, ChartTarget, HelmVersion, TargetKind};
use super::convert::{decode_yaml, to_json};
use super::expand::deep_merge;
use super::manifests::parse_stream;
use super::model::{
    LazyOrigins, ManifestsLayer, Origins, Release, ReleaseId, ReleaseValues, RenderError,
    RenderedCell, StatesLayer, ValuesLayer, VirtualSources,
};
use super::render::{RenderRequest, Renderer};
use crate::chart::loader::Chart;
use crate::chart::render::{render_with_values, RenderOptions};
use crate::chart::values::{ValueOptions, ValuesSource};
use crate::source::{Location, Vfs};
use crate::template::{Map, Value};

/// Renders `chart` targets with the native Helm implementation.
pub struct ChartRenderer;

/// `--set` style assignments, split the way Helm's flags type them: strings keep their
/// text (`--set-string`), lists and maps go through `--set-json`, the rest `--set`.
#[derive(Default)]
pub(crate) struct SetFlags {
    pub set: Vec<String>,
    pub set_string: Vec<String>,
    pub set_json: Vec<String>,
}

/// Escapes a `--set` value (`,` separates assignments, `\` escapes).
fn escape_set_value(s: &str) -> String {
    s.replace('\\', "\\\\").replace(',', "\\,")
}

impl SetFlags {
    pub(crate) fn push(&mut self, path: &str, v: &Json) {
        match v {
            Json::String(s) => self
                .set_string
                .push(format!("{path}={}", escape_set_value(s))),
            Json::Array(_) | Json::Object(_) => self.set_json.push(format!("{path}={v}")),
            Json::Null => self.set.push(format!("{path}=null")),
            other => self.set.push(format!("{path}={other}")),
        }
    }
}

/// The template's file in the chart directory: `mychart/templates/x.yaml` names
/// `<chart dir>/templates/x.yaml`.
fn template_file(chart_dir: &Path, source: &str, base: &Path) -> String {
    match source.split_once('/') {
        Some((_, rest)) => display_path(&chart_dir.join(rest), base),
        None => source.to_string(),
    }
}

/// Where each leaf of the final values came from: the chart's `values.yaml`, then each
/// `-f` file in order (later ones win). Leaves set by `--set` or computed by the chart
/// keep no origin.
fn values_origins(sources: &[(String, String)], values: &Json) -> Origins {
    let mut out = Origins::new();
    for (shown, text) in sources {
        if let Ok(d) = decode_yaml(text, shown, 1) {
            out.extend(d.origins);
        }
    }
    out.retain(|path, _| exists_at(values, path));
    out
}

/// Whether a normalized JSONPath names a node of `v`.
fn exists_at(v: &Json, path: &str) -> bool {
    crate::rules::select::JsonPath::compile(path)
        .ok()
        .and_then(|p| p.find(v).ok())
        .is_some_and(|f| !f.is_empty())
}

impl Renderer for ChartRenderer {
    fn kind(&self) -> &'static str {
        "chart"
    }

    fn render(&self, req: &RenderRequest<'_>) -> RenderedCell {
        let TargetKind::Chart {
            spec,
            path,
            values,
            overlays,
        } = &req.target.kind
        else {
            return RenderedCell::failed(
                &req.target.name,
                &req.cell.name,
                req.values.clone(),
                RenderError::new("the chart renderer was given a non-chart target"),
            );
        };
        render_chart(req, spec, path, values, overlays)
    }
}

fn render_chart(
    req: &RenderRequest<'_>,
    spec: &ChartTarget,
    path: &Path,
    values_files: &[std::path::PathBuf],
    overlays: &std::collections::BTreeMap<std::path::PathBuf, String>,
) -> RenderedCell {
    let base = req.display_base;
    let vfs = Vfs::with_overlays(
        overlays
            .iter()
            .map(|(p, c)| (p.clone(), c.as_bytes().to_vec())),
    );
    let helm = match spec.helm_version {
        HelmVersion::V3 => crate::chart::HelmVersion::V3,
        HelmVersion::V4 => crate::chart::HelmVersion::V4,
    };

    // -f files (the target's, then the cell's), then nested values, then --set.
    let mut files: Vec<ValuesSource> = Vec::new();
    let mut provenance: Vec<(String, String)> = Vec::new();
    for f in values_files.iter().chain(&req.cell.values_files) {
        files.push(ValuesSource::File(f.clone()));
        if let Ok(bytes) = vfs.read(f) {
            provenance.push((
                display_path(f, base),
                String::from_utf8_lossy(&bytes).into_owned(),
            ));
        }
    }
    let mut nested = req.target.values.clone();
    if let Some(v) = &req.cell.values {
        deep_merge(&mut nested, v);
    }
    if nested.as_object().is_some_and(|m| !m.is_empty()) {
        files.push(ValuesSource::Text {
            name: format!("values of cell {}", req.cell.name),
            text: nested.to_string(),
        });
    }
    let mut flags = SetFlags::default();
    for (k, v) in &spec.set {
        flags.push(k, v);
    }
    for (k, v) in &req.cell.set {
        flags.push(k, v);
    }
    let opts = RenderOptions {
        release_name: spec.release.clone(),
        namespace: spec.namespace.clone(),
        helm,
        values: ValueOptions {
            files,
            set: flags.set,
            set_string: flags.set_string,
            set_json: flags.set_json,
            ..ValueOptions::default()
        },
        now: req.now,
        ..RenderOptions::default()
    };

    let id = ReleaseId::new(spec.namespace.clone(), spec.release.clone());
    let mut release = Release {
        id: id.clone(),
        chart: display_path(path, base),
        installed: true,
        enabled: true,
        declared_at: Some(req.target.declared_at.clone()),
        ..Release::default()
    };
    let fail = |release: Release, e: String| RenderedCell {
        target: req.target.name.clone(),
        cell: req.cell.name.clone(),
        values: req.values.clone(),
        expect: Json::Null,
        states: Ok(StatesLayer::new(vec![release])),
        values_layer: Ok(ValuesLayer {
            releases: vec![(id.clone(), Err(RenderError::new(e.clone())))],
        }),
        manifests: Ok(ManifestsLayer {
            releases: vec![(id.clone(), Err(RenderError::new(e)))],
        }),
        sources: VirtualSources::default(),
    };

    let chart = match Chart::load(path, &vfs) {
        Ok(c) => c,
        Err(e) => return fail(release, e.message),
    };
    release.chart = chart.metadata.name.clone();
    release.version = chart.metadata.version.clone();
    if let Some(vf) = &chart.values_file {
        provenance.insert(
            0,
            (display_path(&path.join("values.yaml"), base), vf.text()),
        );
    }
    let user: Map = match opts.values.merge(&vfs, helm) {
        Ok(m) => m,
        Err(e) => return fail(release, e),
    };
    let rendered = match render_with_values(&chart, &opts, user, &vfs) {
        Ok(r) => r,
        Err(e) => return fail(release, e.message),
    };
    let values_json = to_json(&Value::Map(rendered.values.clone()));
    let origins = values_origins(&provenance, &values_json);

    let mut sources = VirtualSources::default();
    let output_name = format!(
        "helm template {} ({}, cell {})",
        spec.release, req.target.name, req.cell.name
    );
    let manifests = match rendered.helm_output() {
        Err(e) => Err(RenderError::new(e.message)),
        Ok(text) => match parse_stream(&text, &output_name) {
            Err(e) => Err(e),
            Ok(mut docs) => {
                // Point each document at the template file in the chart directory, at
                // the first line that wrote one of its top-level keys.
                let documents = rendered.documents();
                let by_index = docs.len() == documents.len();
                for (i, m) in docs.iter_mut().enumerate() {
                    let Some(t) = &m.template else { continue };
                    let file = template_file(path, &t.file, base);
                    let line = if by_index {
                        documents[i]
                            .key_lines
                            .iter()
                            .map(|(_, l)| *l)
                            .min()
                            .unwrap_or(0)
                    } else {
                        0
                    };
                    m.template = Some(Location {
                        file,
                        line,
                        column: usize::from(line > 0),
                    });
                }
                sources.files.insert(output_name.clone(), Arc::from(text));
                Ok(docs)
            }
        },
    };

    RenderedCell {
        target: req.target.name.clone(),
        cell: req.cell.name.clone(),
        values: req.values.clone(),
        expect: Json::Null,
        states: Ok(StatesLayer::new(vec![release])),
        values_layer: Ok(ValuesLayer {
            releases: vec![(
                id.clone(),
                Ok(ReleaseValues {
                    values: values_json,
                    origins: LazyOrigins::ready(origins),
                    files: provenance.iter().map(|(n, _)| n.clone()).collect(),
                }),
            )],
        }),
        manifests: Ok(ManifestsLayer {
            releases: vec![(id, manifests)],
        }),
        sources,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_flags_keep_types() {
        let mut f = SetFlags::default();
        f.push("a.b", &serde_json::json!(true));
        f.push("s", &serde_json::json!("x,y"));
        f.push("l", &serde_json::json!([1, 2]));
        assert_eq!(f.set, ["a.b=true"]);
        assert_eq!(f.set_string, ["s=x\\,y"]);
        assert_eq!(f.set_json, ["l=[1,2]"]);
    }
}
