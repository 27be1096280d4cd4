//! The `helmfile` target: a Helmfile stack rendered natively as `helmfile template`
//! would, turned into the three layers.
//!
//! The cell's inputs become Helmfile's: dotted assignments are `--state-values-set`
//! (strings `--state-values-set-string`), nested values a state values file that exists
//! only as an overlay, environment variables the configuration's and the cell's (the
//! process environment is not passed, so a check means the same on every machine).
//!
//! Helmfile stops at the first error. A chart that cannot be found or rendered fails
//! only that release's manifests (and leaves later releases of the run unrendered, as
//! Helmfile does); any other error (a state template calling `fail`, a missing values
//! file) means the stack could not be evaluated, so every layer fails with it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value as Json;

use super::chart_target::SetFlags;
use super::config::{display_path, TargetKind};
use super::convert::to_json;
use super::expand::{deep_merge, set_path};
use super::manifests::parse_stream;
use super::model::{
    LazyOrigins, Manifest, ManifestsLayer, Release, ReleaseId, ReleaseValues, RenderError,
    RenderedCell, StatesLayer, ValuesLayer, VirtualSources,
};
use super::render::{RenderRequest, Renderer};
use crate::helmfile::error::ErrorKind;
use crate::helmfile::values::merge_values_files;
use crate::helmfile::{
    render_stack, ChartSources, Command, HelmfileError, ReleaseRender, RenderEnv, StackInput,
    StackRender,
};
use crate::source::{Location, Vfs};
use crate::template::Value;

/// Renders `helmfile` targets with the native Helmfile implementation.
pub struct HelmfileRenderer;

/// Where the cell's nested values are overlaid (never written to disk).
const CELL_VALUES_FILE: &str = ".stackproof/cell-values.yaml";

impl Renderer for HelmfileRenderer {
    fn kind(&self) -> &'static str {
        "helmfile"
    }

    fn render(&self, req: &RenderRequest<'_>) -> RenderedCell {
        let TargetKind::Helmfile {
            spec,
            file,
            state_values_files,
            chart_sources,
            chart_dirs,
            overlays,
        } = &req.target.kind
        else {
            return RenderedCell::failed(
                &req.target.name,
                &req.cell.name,
                req.values.clone(),
                RenderError::new("the helmfile renderer was given a non-helmfile target"),
            );
        };
        let working_dir = file
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("."));
        let file_arg = file
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();

        // Nested values: the target's, the cell's, and assignments that `--set`
        // syntax cannot carry (lists and maps).
        let mut nested = req.target.values.clone();
        if let Some(v) = &req.cell.values {
            deep_merge(&mut nested, v);
        }
        let mut flags = SetFlags::default();
        for (k, v) in &req.cell.set {
            match v {
                Json::Array(_) | Json::Object(_) => set_path(&mut nested, k, v.clone()),
                other => flags.push(k, other),
            }
        }
        let mut overlay_files: Vec<(PathBuf, Vec<u8>)> = overlays
            .iter()
            .map(|(p, c)| (p.clone(), c.as_bytes().to_vec()))
            .collect();
        let mut values_files: Vec<String> = state_values_files
            .iter()
            .chain(&req.cell.values_files)
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        if nested.as_object().is_some_and(|m| !m.is_empty()) {
            let path = working_dir.join(CELL_VALUES_FILE);
            overlay_files.push((path.clone(), nested.to_string().into_bytes()));
            values_files.push(path.to_string_lossy().into_owned());
        }
        let mut env: BTreeMap<String, String> = spec.env.clone();
        env.extend(req.cell.env.clone());

        let input = StackInput {
            working_dir: working_dir.clone(),
            file: Some(file_arg),
            environment: spec.environment.clone(),
            state_values_set: flags.set,
            state_values_set_string: flags.set_string,
            state_values_files: values_files,
            render: RenderEnv {
                vfs: Vfs::with_overlays(overlay_files),
                env: Arc::new(env),
                now: req.now,
                allow_exec: spec.allow_exec,
                ..RenderEnv::default()
            },
            chart_sources: ChartSources::new(chart_sources.clone(), chart_dirs.clone()),
            selectors: spec
                .selectors
                .iter()
                .chain(&req.cell.selectors)
                .cloned()
                .collect(),
            command: Command::Template {
                render_manifests: true,
            },
            ..StackInput::default()
        };
        let out = render_stack(&input);
        convert(req, &out, &working_dir)
    }
}

fn release_id(r: &ReleaseRender) -> ReleaseId {
    ReleaseId::new(r.namespace.clone(), r.name.clone())
}

/// A state or values file path as written by Helmfile (relative to `dir`), for reports.
fn shown(path: &str, dir: &Path, base: &Path) -> String {
    let p = Path::new(path);
    let abs = if p.is_absolute() {
        p.to_path_buf()
    } else {
        dir.join(p)
    };
    display_path(&super::config::normalize(&abs), base)
}

fn convert(req: &RenderRequest<'_>, out: &StackRender, working_dir: &Path) -> RenderedCell {
    let base = req.display_base;
    let stack_error = |e: &HelmfileError| {
        let mut err = RenderError::new(e.message.clone());
        if let Some(f) = &e.file {
            err = err.at(Location {
                file: display_path(f, base),
                line: e.line.unwrap_or(0),
                column: 0,
            });
        }
        err
    };
    let chart_error = out.error.as_ref().filter(|e| e.kind == ErrorKind::Chart);
    if let Some(e) = out.error.as_ref().filter(|e| e.kind != ErrorKind::Chart) {
        return RenderedCell::failed(
            &req.target.name,
            &req.cell.name,
            req.values.clone(),
            stack_error(e),
        );
    }

    // The cell's values as `when` sees them: the state values of the first top-level
    // state (nested states come first in Helmfile's order but see only what their
    // parent passes them).
    let values = out
        .states
        .iter()
        .find(|s| s.parent.is_none())
        .or(out.states.first())
        .map(|s| to_json(&s.values))
        .filter(Json::is_object)
        .unwrap_or_else(|| req.values.clone());

    let mut releases = Vec::new();
    for st in &out.states {
        let file = display_path(&st.path, base);
        for r in &st.releases {
            releases.push(Release {
                id: release_id(r),
                chart: r.chart.clone(),
                version: r.version.clone(),
                labels: r.labels.clone(),
                needs: r.needs.clone(),
                installed: r.installed,
                enabled: r.enabled,
                condition: Some(r.condition.clone()).filter(|c| !c.is_empty()),
                declared_at: Some(Location {
                    file: file.clone(),
                    line: r.line,
                    column: 1,
                }),
            });
        }
    }

    let mut values_layer = Vec::new();
    let mut manifests_layer = Vec::new();
    let mut sources = VirtualSources::default();
    let mut failed_before: Option<String> = None;
    // Rendered texts differ between cells (and targets), while one report holds the
    // sources of all of them: their names say whose they are.
    let scope = format!("{}/{}", req.target.name, req.cell.name);
    for (st, r) in out.rendered() {
        let id = release_id(r);
        let state_dir = st.path.parent().unwrap_or(working_dir);
        values_layer.push((
            id.clone(),
            release_values(r, state_dir, base, &scope, &mut sources),
        ));
        let manifests = match &r.manifests {
            Some(text) => {
                let name = format!(
                    "helmfile template {id} ({}, cell {})",
                    req.target.name, req.cell.name
                );
                let parsed = parse_stream(text, &name).map(|mut docs| {
                    if let Some(src) = &r.chart_source {
                        point_at_chart(&mut docs, &src.dir, base);
                    }
                    docs
                });
                sources.files.insert(name, Arc::from(text.as_str()));
                parsed
            }
            None => Err(match (&failed_before, chart_error) {
                (Some(first), _) => RenderError::new(format!(
                    "not rendered: Helmfile stops templating after release {first} failed"
                )),
                (None, Some(e)) => {
                    failed_before = Some(id.to_string());
                    stack_error(e)
                }
                (None, None) => RenderError::new("the release was not rendered"),
            }),
        };
        manifests_layer.push((id, manifests));
    }

    RenderedCell {
        target: req.target.name.clone(),
        cell: req.cell.name.clone(),
        values,
        expect: Json::Null,
        states: Ok(StatesLayer::new(releases)),
        values_layer: Ok(ValuesLayer {
            releases: values_layer,
        }),
        manifests: Ok(ManifestsLayer {
            releases: manifests_layer,
        }),
        sources,
    }
}

/// A release's merged values, with each leaf traced to the values file that set it
/// last. A `.gotmpl` file is traced in its rendered text, which is kept as a virtual
/// source (`<file> (rendered in <target>/<cell>)`) so reports show the lines the numbers
/// refer to; one copy per cell unless releases render it differently.
fn release_values(
    r: &ReleaseRender,
    dir: &Path,
    base: &Path,
    scope: &str,
    sources: &mut VirtualSources,
) -> Result<ReleaseValues, RenderError> {
    let merged = merge_values_files(&r.values_files).map_err(|e| RenderError::new(e.message))?;
    let values = to_json(&Value::Map(merged));
    // Positions are worked out only if a finding points into these values.
    let mut texts: Vec<(Arc<str>, String, usize)> = Vec::new();
    let mut files = Vec::new();
    for f in &r.values_files {
        let (name, text) = match &f.path {
            Some(p) if p.ends_with(".gotmpl") => {
                let file = shown(p, dir, base);
                let mut name = format!("{file} (rendered in {scope})");
                if sources.files.get(&name).is_some_and(|t| **t != *f.content) {
                    name = format!("{file} (rendered for {} in {scope})", release_id(r));
                }
                let text = sources
                    .files
                    .entry(name.clone())
                    .or_insert_with(|| Arc::from(f.content.as_str()))
                    .clone();
                (name, text)
            }
            Some(p) => (shown(p, dir, base), Arc::from(f.content.as_str())),
            None => (
                format!("{} (inline values of release {})", f.origin, r.name),
                Arc::from(f.content.as_str()),
            ),
        };
        texts.push((text, name.clone(), 1));
        files.push(name);
    }
    Ok(ReleaseValues {
        values,
        origins: LazyOrigins::from_yamls(texts),
        files,
    })
}

/// Turns `# Source: chart/templates/x.yaml` into the template file in the chart's
/// directory.
fn point_at_chart(docs: &mut [Manifest], chart_dir: &Path, base: &Path) {
    for m in docs {
        if let Some(t) = &mut m.template {
            if let Some((_, rest)) = t.file.split_once('/') {
                t.file = display_path(&chart_dir.join(rest), base);
            }
        }
    }
}
