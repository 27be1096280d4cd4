//! A renderer that reads pre-rendered layers from a directory, so rules and reports can be
//! tested (and output produced elsewhere can be checked) without rendering anything.
//!
//! Layout of a fixture directory (all parts optional):
//!
//! ```text
//! states.yaml              releases: [...] (+ `values:` the stack's state values)
//! states.error             the states layer failed with this message
//! values/<release>.yaml    merged values of a release (`<namespace>__<release>.yaml` also works)
//! values/<release>.error   that release's values failed
//! values.error             the whole values layer failed
//! manifests/<release>.yaml the release's rendered stream (`# Source:` comments kept)
//! manifests/<release>.error that release failed to render
//! manifests.error          the whole manifests layer failed
//! error.txt                every layer failed with this message
//! ```
//!
//! The same reader accepts what Helmfile itself writes, so output rendered elsewhere
//! can be checked: `list.json` (`helmfile list --output json`) stands in for
//! `states.yaml`, `template/` (one `helmfile template` stream per release) for
//! `manifests/`, and `values/` is what `helmfile write-values` writes.
//!
//! Releases come from `states.yaml`; only active ones (installed and enabled) have values
//! and manifests, as in Helmfile. Without `states.yaml`, the releases are the files found
//! under `values/` and `manifests/`. An active release with neither a `.yaml` nor an
//! `.error` file is itself an error: a fixture cannot silently lack output.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;
use serde_json::Value as Json;

use super::config::{display_path, TargetKind};
use super::convert::decode_yaml;
use super::expand::deep_merge;
use super::manifests::parse_stream;
use super::model::{
    LazyOrigins, Manifest, ManifestsLayer, Origins, Release, ReleaseId, ReleaseValues, RenderError,
    RenderedCell, StatesLayer, ValuesLayer, VirtualSources,
};
use super::render::{RenderRequest, Renderer};
use super::yaml::{self, Duplicates, YNode};
use crate::source::Location;

/// Reads fixture directories (target kind `fixture`).
pub struct FixtureRenderer;

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct StatesFile {
    #[serde(default)]
    values: Option<Json>,
    #[serde(default)]
    releases: Vec<FixtureRelease>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct FixtureRelease {
    name: String,
    #[serde(default)]
    namespace: String,
    #[serde(default)]
    chart: String,
    #[serde(default)]
    version: String,
    #[serde(default)]
    labels: BTreeMap<String, String>,
    #[serde(default)]
    needs: Vec<String>,
    #[serde(default = "yes")]
    installed: bool,
    #[serde(default = "yes")]
    enabled: bool,
    #[serde(default)]
    condition: Option<String>,
    /// `file:line` of the declaring state file; defaults to the fixture's own line.
    #[serde(default)]
    declared_at: Option<String>,
}

fn yes() -> bool {
    true
}

impl Renderer for FixtureRenderer {
    fn kind(&self) -> &'static str {
        "fixture"
    }

    fn render(&self, req: &RenderRequest<'_>) -> RenderedCell {
        let TargetKind::Fixture { path, cells } = &req.target.kind else {
            return RenderedCell::failed(
                &req.target.name,
                &req.cell.name,
                req.values.clone(),
                RenderError::new("the fixture renderer was given a non-fixture target"),
            );
        };
        let dir = cells.get(&req.cell.name).unwrap_or(path);
        let show = |p: &Path| display_path(p, req.display_base);
        let mut values = req.values.clone();
        if let Some(e) = layer_error(dir, "error") {
            return RenderedCell::failed(&req.target.name, &req.cell.name, values, e);
        }
        if !dir.is_dir() {
            return RenderedCell::failed(
                &req.target.name,
                &req.cell.name,
                values,
                RenderError::new(format!("fixture directory {} does not exist", show(dir))),
            );
        }

        let states = read_states(dir, &show);
        if let Ok((_, Some(v))) = &states {
            deep_merge(&mut values, v);
        }
        let states = states.map(|(s, _)| s);

        // Which releases have values and manifests.
        let active: Result<Vec<ReleaseId>, RenderError> = match &states {
            Ok(Some(s)) => Ok(s
                .releases
                .iter()
                .filter(|r| r.active())
                .map(|r| r.id.clone())
                .collect()),
            Ok(None) => Ok(releases_from_files(dir)),
            Err(e) => Err(e.clone()),
        };
        let states = match states {
            Ok(Some(s)) => Ok(s),
            Ok(None) => Ok(StatesLayer::new(
                releases_from_files(dir)
                    .into_iter()
                    .map(|id| Release {
                        id,
                        installed: true,
                        enabled: true,
                        ..Release::default()
                    })
                    .collect(),
            )),
            Err(e) => Err(e),
        };

        let mut sources = VirtualSources::default();
        let values_layer = layer_error(dir, "values").map_or_else(
            || {
                let active = active.clone()?;
                Ok(ValuesLayer {
                    releases: active
                        .iter()
                        .map(|id| (id.clone(), read_values(dir, id, &show)))
                        .collect(),
                })
            },
            Err,
        );
        let manifests = layer_error(dir, "manifests").map_or_else(
            || {
                let active = active.clone()?;
                Ok(ManifestsLayer {
                    releases: active
                        .iter()
                        .map(|id| (id.clone(), read_manifests(dir, id, &show, &mut sources)))
                        .collect(),
                })
            },
            Err,
        );
        RenderedCell {
            target: req.target.name.clone(),
            cell: req.cell.name.clone(),
            values,
            expect: Json::Null,
            states,
            values_layer,
            manifests,
            sources,
        }
    }
}

fn layer_error(dir: &Path, layer: &str) -> Option<RenderError> {
    let file = if layer == "error" {
        dir.join("error.txt")
    } else {
        dir.join(format!("{layer}.error"))
    };
    std::fs::read_to_string(file)
        .ok()
        .map(|t| RenderError::new(t.trim_end()))
}

/// The directory holding rendered streams: `manifests/`, or Helmfile's `template/`.
fn manifests_dir(dir: &Path) -> &'static str {
    if !dir.join("manifests").is_dir() && dir.join("template").is_dir() {
        "template"
    } else {
        "manifests"
    }
}

/// One entry of `helmfile list --output json`.
#[derive(Deserialize)]
struct ListedRelease {
    name: String,
    #[serde(default)]
    namespace: String,
    #[serde(default = "yes")]
    enabled: bool,
    #[serde(default = "yes")]
    installed: bool,
    /// `k:v,k2:v2`.
    #[serde(default)]
    labels: String,
    #[serde(default)]
    chart: String,
    #[serde(default)]
    version: String,
}

/// Reads `list.json`, placing each release at its line of the file.
fn read_list_json(file: &Path, shown: &str) -> Result<StatesLayer, RenderError> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| RenderError::new(format!("cannot read {shown}: {e}")))?;
    // JSON is YAML: the position-keeping reader gives each entry its line.
    let node = yaml::parse_one(&text, Duplicates::LastWins).map_err(|e| {
        RenderError::new(format!(
            "{shown}: invalid helmfile list output: {}",
            e.message
        ))
    })?;
    let listed: Vec<ListedRelease> = yaml::from_node(&node).map_err(|e| {
        RenderError::new(format!(
            "{shown}: invalid helmfile list output: {}",
            e.message
        ))
    })?;
    let mut releases = Vec::new();
    for (i, r) in listed.into_iter().enumerate() {
        let labels = r
            .labels
            .split(',')
            .filter(|kv| !kv.is_empty())
            .map(|kv| match kv.split_once(':') {
                Some((k, v)) => (k.to_string(), v.to_string()),
                None => (kv.to_string(), String::new()),
            })
            .collect();
        releases.push(Release {
            id: ReleaseId::new(r.namespace, r.name),
            chart: r.chart,
            version: r.version,
            labels,
            needs: Vec::new(),
            installed: r.installed,
            enabled: r.enabled,
            condition: None,
            declared_at: node.index(i).map(|n| n.pos.location(shown)),
        });
    }
    Ok(StatesLayer::new(releases))
}

type States = (Option<StatesLayer>, Option<Json>);

fn read_states(dir: &Path, show: &dyn Fn(&Path) -> String) -> Result<States, RenderError> {
    if let Some(e) = layer_error(dir, "states") {
        return Err(e);
    }
    let file = dir.join("states.yaml");
    let Ok(text) = std::fs::read_to_string(&file) else {
        let list = dir.join("list.json");
        if list.is_file() {
            return Ok((Some(read_list_json(&list, &show(&list))?), None));
        }
        return Ok((None, None));
    };
    let shown = show(&file);
    let bad = |e: yaml::YamlError| {
        let line = e.pos.map_or(1, |p| p.line as usize);
        RenderError::new(format!(
            "{shown}:{line}: invalid fixture states: {}",
            e.message
        ))
    };
    let node = yaml::parse_one(&text, Duplicates::Reject).map_err(bad)?;
    let spec: StatesFile = yaml::from_node(&node).map_err(bad)?;
    let rnodes: Vec<&YNode> = match node.get("releases").map(|n| &n.kind) {
        Some(yaml::YKind::Seq(items)) => items.iter().collect(),
        _ => Vec::new(),
    };
    let mut releases = Vec::new();
    let mut origins = Vec::new();
    for (i, r) in spec.releases.into_iter().enumerate() {
        let rnode = rnodes.get(i).copied();
        let here = rnode.map(|n| n.pos.location(&shown));
        let declared_at = match r.declared_at.as_deref().and_then(parse_file_line) {
            Some(l) => Some(l),
            None => here,
        };
        let mut o = Origins::new();
        if let Some(n) = rnode {
            let mut pos = BTreeMap::new();
            n.collect_positions(&mut "$".to_string(), &mut pos);
            for (k, p) in pos {
                o.insert(k, p.location(&shown));
            }
        }
        origins.push(o);
        releases.push(Release {
            id: ReleaseId::new(r.namespace, r.name),
            chart: r.chart,
            version: r.version,
            labels: r.labels,
            needs: r.needs,
            installed: r.installed,
            enabled: r.enabled,
            condition: r.condition,
            declared_at,
        });
    }
    Ok((
        Some(StatesLayer::new(releases).with_origins(origins)),
        spec.values,
    ))
}

/// `path:line` (or `path:line:col`) to a location.
fn parse_file_line(s: &str) -> Option<Location> {
    let (rest, last) = s.rsplit_once(':')?;
    let last: usize = last.parse().ok()?;
    if let Some((file, line)) = rest.rsplit_once(':') {
        if let Ok(line) = line.parse::<usize>() {
            return Some(Location {
                file: file.to_string(),
                line,
                column: last,
            });
        }
    }
    Some(Location {
        file: rest.to_string(),
        line: last,
        column: 1,
    })
}

/// Release names found as `values/*.yaml|error` and `manifests/*.yaml|error`.
fn releases_from_files(dir: &Path) -> Vec<ReleaseId> {
    let mut ids = BTreeSet::new();
    for sub in ["values", manifests_dir(dir)] {
        let Ok(rd) = std::fs::read_dir(dir.join(sub)) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            let (Some(stem), Some(ext)) = (
                p.file_stem().and_then(|s| s.to_str()),
                p.extension().and_then(|s| s.to_str()),
            ) else {
                continue;
            };
            if ext != "yaml" && ext != "error" {
                continue;
            }
            let id = match stem.split_once("__") {
                Some((ns, name)) => ReleaseId::new(ns, name),
                None => ReleaseId::new("", stem),
            };
            ids.insert(id);
        }
    }
    ids.into_iter().collect()
}

/// The file for a release in `sub`, trying `<ns>__<name>` then `<name>`.
fn release_file(dir: &Path, sub: &str, id: &ReleaseId, ext: &str) -> Option<PathBuf> {
    let mut names = Vec::new();
    if !id.namespace.is_empty() {
        names.push(format!("{}__{}.{ext}", id.namespace, id.name));
    }
    names.push(format!("{}.{ext}", id.name));
    names
        .into_iter()
        .map(|n| dir.join(sub).join(n))
        .find(|p| p.is_file())
}

fn read_values(
    dir: &Path,
    id: &ReleaseId,
    show: &dyn Fn(&Path) -> String,
) -> Result<ReleaseValues, RenderError> {
    if let Some(f) = release_file(dir, "values", id, "error") {
        let t = std::fs::read_to_string(&f).unwrap_or_default();
        return Err(RenderError::new(t.trim_end()));
    }
    let Some(f) = release_file(dir, "values", id, "yaml") else {
        return Err(RenderError::new(format!(
            "fixture {} has no values for release {id}",
            show(dir)
        )));
    };
    let shown = show(&f);
    let text = std::fs::read_to_string(&f)
        .map_err(|e| RenderError::new(format!("cannot read {shown}: {e}")))?;
    // Values files are read as Helm and Helmfile read them (yaml.v2 typing).
    let decoded = decode_yaml(&text, &shown, 1).map_err(|e| {
        RenderError::new(format!(
            "{shown}:{}: invalid values: {}",
            e.line.unwrap_or(1),
            e.message
        ))
    })?;
    let mut values = decoded.value;
    if values.is_null() {
        values = Json::Object(Default::default());
    }
    Ok(ReleaseValues {
        values,
        origins: LazyOrigins::ready(decoded.origins),
        files: vec![shown],
    })
}

fn read_manifests(
    dir: &Path,
    id: &ReleaseId,
    show: &dyn Fn(&Path) -> String,
    sources: &mut VirtualSources,
) -> Result<Vec<Manifest>, RenderError> {
    let sub = manifests_dir(dir);
    if let Some(f) = release_file(dir, sub, id, "error") {
        let t = std::fs::read_to_string(&f).unwrap_or_default();
        return Err(RenderError::new(t.trim_end()));
    }
    let Some(f) = release_file(dir, sub, id, "yaml") else {
        return Err(RenderError::new(format!(
            "fixture {} has no manifests for release {id}",
            show(dir)
        )));
    };
    let shown = show(&f);
    let text = std::fs::read_to_string(&f)
        .map_err(|e| RenderError::new(format!("cannot read {shown}: {e}")))?;
    let docs = parse_stream(&text, &shown)?;
    sources.files.insert(shown, Arc::from(text));
    Ok(docs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_line_forms() {
        let l = parse_file_line("helmfile.d/01.yaml:12").unwrap();
        assert_eq!(
            (l.file.as_str(), l.line, l.column),
            ("helmfile.d/01.yaml", 12, 1)
        );
        let l = parse_file_line("a.yaml:3:7").unwrap();
        assert_eq!((l.line, l.column), (3, 7));
        assert!(parse_file_line("nofile").is_none());
    }
}
