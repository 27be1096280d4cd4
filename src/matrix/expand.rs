//! Matrix expansion: axes → cartesian product → minus `exclude` → plus `include` → plus
//! named `cells`, each cell with a stable, readable name.
//!
//! Cell names are what people type (`--cell`) and read in every report, so they are built
//! from the assignments themselves, in axis order: `llm=false,pki.mode=existingSecret`.
//! An axis's short name is the shortest tail of its dotted path that no other axis shares,
//! after dropping a trailing `.enabled` (`addons.llm.enabled` → `llm`); an axis may set
//! its own name. The same inputs always give the same names in the same order.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value as Json;

use super::config::{normalize, MatrixSpec};
use super::yaml::{Pos, YNode};

/// One combination of inputs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Cell {
    pub name: String,
    /// Dotted-path assignments, in naming order.
    pub set: Vec<(String, Json)>,
    pub env: BTreeMap<String, String>,
    pub values_files: Vec<PathBuf>,
    /// Nested values merged over the target's values before `set` applies.
    pub values: Option<Json>,
    /// When not empty, only rules whose id matches one of these globs are checked.
    pub rules: Vec<String>,
    /// Helmfile release selectors (`name=api`) added to the target's for this cell.
    pub selectors: Vec<String>,
    /// The cell's declared expectations (`expect` in rule expressions); null when none.
    pub expect: Json,
}

impl Cell {
    /// The single cell of a target without a matrix.
    pub fn default_cell() -> Cell {
        Cell {
            name: "default".into(),
            ..Cell::default()
        }
    }

    /// The target's starting values with this cell's `values` merged over them and its
    /// `set` assignments applied.
    pub fn input_values(&self, base: &Json) -> Json {
        let mut v = base.clone();
        if !v.is_object() {
            v = Json::Object(Default::default());
        }
        if let Some(extra) = &self.values {
            deep_merge(&mut v, extra);
        }
        for (path, value) in &self.set {
            set_path(&mut v, path, value.clone());
        }
        v
    }
}

/// Merges `src` into `dst`: maps merge key by key, anything else replaces.
pub fn deep_merge(dst: &mut Json, src: &Json) {
    match (dst, src) {
        (Json::Object(d), Json::Object(s)) => {
            for (k, sv) in s {
                match d.get_mut(k) {
                    Some(dv) if dv.is_object() && sv.is_object() => deep_merge(dv, sv),
                    _ => {
                        d.insert(k.clone(), sv.clone());
                    }
                }
            }
        }
        (d, s) => *d = s.clone(),
    }
}

/// Sets `a.b.c` in a nested map, creating maps on the way (a non-map on the way is
/// replaced, as `--set` does).
pub fn set_path(root: &mut Json, path: &str, value: Json) {
    let mut cur = root;
    let parts: Vec<&str> = path.split('.').collect();
    for (i, part) in parts.iter().enumerate() {
        if !cur.is_object() {
            *cur = Json::Object(Default::default());
        }
        let Json::Object(m) = cur else { return };
        if i + 1 == parts.len() {
            m.insert((*part).to_string(), value);
            return;
        }
        cur = m
            .entry((*part).to_string())
            .or_insert_with(|| Json::Object(Default::default()));
    }
}

/// A value as it appears in a cell name: strings bare, everything else as JSON.
pub fn value_label(v: &Json) -> String {
    match v {
        Json::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Short names for dotted paths: the shortest unambiguous tail, `.enabled` dropped.
pub fn short_names(paths: &[String]) -> Vec<String> {
    let stems: Vec<Vec<&str>> = paths
        .iter()
        .map(|p| {
            let mut segs: Vec<&str> = p.split('.').collect();
            if segs.len() > 1 && segs.last() == Some(&"enabled") {
                segs.pop();
            }
            segs
        })
        .collect();
    stems
        .iter()
        .enumerate()
        .map(|(i, segs)| {
            for take in 1..=segs.len() {
                let tail = &segs[segs.len() - take..];
                let clash = stems.iter().enumerate().any(|(j, other)| {
                    j != i && other.len() >= take && &other[other.len() - take..] == tail
                });
                if !clash {
                    return tail.join(".");
                }
            }
            paths[i].clone()
        })
        .collect()
}

type ExpandError = (String, Option<Pos>);

/// Expands a matrix into its cells; errors carry the position of the offending entry.
pub fn expand(m: &MatrixSpec, node: Option<&YNode>, root: &Path) -> Result<Vec<Cell>, ExpandError> {
    let axes_node = node.and_then(|n| n.get("axes"));
    let axis_paths: Vec<String> = m.axes.keys().cloned().collect();
    for (path, axis) in &m.axes {
        let pos = axes_node.and_then(|n| n.key_pos(path));
        if path.is_empty() || path.split('.').any(str::is_empty) {
            return Err((format!("axis `{path}` is not a dotted value path"), pos));
        }
        if axis.values().is_empty() {
            return Err((format!("axis `{path}` has no values"), pos));
        }
    }

    // Names: explicit ones first, then derived for every path used anywhere, so an
    // include that adds a new path still gets an unambiguous name.
    let mut all_paths = axis_paths.clone();
    for inc in &m.include {
        for k in inc.keys() {
            if !all_paths.contains(k) {
                all_paths.push(k.clone());
            }
        }
    }
    let derived = short_names(&all_paths);
    let mut short: BTreeMap<String, String> = BTreeMap::new();
    for (i, p) in all_paths.iter().enumerate() {
        let name = m
            .axes
            .get(p)
            .and_then(|a| a.name())
            .map(str::to_string)
            .unwrap_or_else(|| derived[i].clone());
        short.insert(p.clone(), name);
    }

    let name_of = |set: &[(String, Json)]| -> String {
        set.iter()
            .map(|(p, v)| {
                format!(
                    "{}={}",
                    short.get(p).cloned().unwrap_or_else(|| p.clone()),
                    value_label(v)
                )
            })
            .collect::<Vec<_>>()
            .join(",")
    };

    let exclude_node = node.and_then(|n| n.get("exclude"));
    for (i, ex) in m.exclude.iter().enumerate() {
        let enode = exclude_node.and_then(|n| n.index(i));
        for k in ex.keys() {
            if !m.axes.contains_key(k) {
                return Err((
                    format!("exclude key `{k}` is not an axis of this matrix"),
                    enode.and_then(|n| n.key_pos(k)).or(enode.map(|n| n.pos)),
                ));
            }
        }
    }

    let mut cells: Vec<Cell> = Vec::new();
    if !m.axes.is_empty() {
        let mut combos: Vec<Vec<(String, Json)>> = vec![Vec::new()];
        for (path, axis) in &m.axes {
            let mut next = Vec::with_capacity(combos.len() * axis.values().len());
            for c in &combos {
                for v in axis.values() {
                    let mut c2 = c.clone();
                    c2.push((path.clone(), v.clone()));
                    next.push(c2);
                }
            }
            combos = next;
        }
        for set in combos {
            let excluded = m.exclude.iter().any(|ex| {
                ex.iter()
                    .all(|(k, v)| set.iter().any(|(p, sv)| p == k && sv == v))
            });
            if excluded {
                continue;
            }
            cells.push(Cell {
                name: name_of(&set),
                set,
                ..Cell::default()
            });
        }
    }

    let include_node = node.and_then(|n| n.get("include"));
    for (i, inc) in m.include.iter().enumerate() {
        if inc.is_empty() {
            return Err((
                "an include entry needs at least one assignment".into(),
                include_node.and_then(|n| n.index(i)).map(|n| n.pos),
            ));
        }
        // Axis keys first in axis order, then the others as written.
        let mut set: Vec<(String, Json)> = Vec::new();
        for p in &axis_paths {
            if let Some(v) = inc.get(p) {
                set.push((p.clone(), v.clone()));
            }
        }
        for (k, v) in inc {
            if !m.axes.contains_key(k) {
                set.push((k.clone(), v.clone()));
            }
        }
        let name = name_of(&set);
        if cells.iter().any(|c| c.name == name) {
            continue;
        }
        cells.push(Cell {
            name,
            set,
            ..Cell::default()
        });
    }

    let cells_node = node.and_then(|n| n.get("cells"));
    for (i, c) in m.cells.iter().enumerate() {
        let cnode = cells_node.and_then(|n| n.index(i));
        let pos = cnode.and_then(|n| n.get("name")).map(|n| n.pos);
        if c.name.is_empty() || c.name.contains(['\n', '\r']) {
            return Err(("a cell name must be a non-empty single line".into(), pos));
        }
        if cells.iter().any(|x| x.name == c.name) {
            return Err((format!("duplicate cell name `{}`", c.name), pos));
        }
        cells.push(Cell {
            name: c.name.clone(),
            set: c.set.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
            env: c.env.clone(),
            values_files: c
                .values_files
                .iter()
                .map(|p| normalize(&root.join(p)))
                .collect(),
            values: c.values.clone(),
            rules: c.rules.clone(),
            selectors: c.selectors.clone(),
            expect: c.expect.clone().unwrap_or(Json::Null),
        });
    }

    if cells.is_empty() {
        if m.axes.is_empty() && m.include.is_empty() && m.cells.is_empty() {
            cells.push(Cell::default_cell());
        } else {
            return Err((
                "this matrix has no cells left after `exclude`".into(),
                node.map(|n| n.pos),
            ));
        }
    }
    Ok(cells)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn short_names_drop_enabled_and_disambiguate() {
        let paths: Vec<String> = [
            "addons.llm.enabled",
            "addons.llm.pki.mode",
            "observability.mode",
            "openbao.enabled",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(
            short_names(&paths),
            ["llm", "pki.mode", "observability.mode", "openbao"]
        );
    }

    #[test]
    fn set_path_creates_maps() {
        let mut v = json!({"a": {"x": 1}, "b": 3});
        set_path(&mut v, "a.y", json!(true));
        set_path(&mut v, "b.c", json!("s"));
        assert_eq!(v, json!({"a": {"x": 1, "y": true}, "b": {"c": "s"}}));
    }
}
