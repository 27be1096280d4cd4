//! What a change does to rendered output, for reviewers: the same cells rendered from
//! two versions of a tree, compared layer by layer (releases, per-release values,
//! manifests) and printed as unified diffs.
//!
//! Documents are matched by identity (cell, release, kind, namespace, name), not by
//! position, so a reordering is no change and a rename reads as one object removed
//! and one added. A layer that failed on one side shows as its error text, because
//! "this change breaks rendering" is exactly what a reviewer must see.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;
use serde_json::Value as Json;

use crate::matrix::model::{ReleaseId, RenderedCell};

/// Which layer a change is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Layer {
    States,
    Values,
    Manifests,
}

/// How an item differs between base and head.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ChangeKind {
    Added,
    Removed,
    Changed,
}

/// One item (a release list, a release's values, a document) that differs.
#[derive(Clone, Debug, Serialize)]
pub struct Change {
    pub target: String,
    pub cell: String,
    pub layer: Layer,
    /// What the item is: `releases`, `ns/release`, `ns/release: Kind ns/name`.
    pub item: String,
    pub kind: ChangeKind,
    /// The item's text on each side (empty when absent on that side).
    #[serde(skip)]
    pub base: String,
    #[serde(skip)]
    pub head: String,
    /// Lines removed and added.
    pub removed: usize,
    pub added: usize,
}

/// Every difference between two renders of the same configuration.
#[derive(Clone, Debug, Default, Serialize)]
pub struct DiffReport {
    pub changes: Vec<Change>,
    /// Cells rendered on both sides and compared.
    pub cells: usize,
    /// Cells only one side has (`target/cell`), with the side.
    pub unmatched: Vec<(String, String)>,
}

impl DiffReport {
    /// `diff`'s convention: 0 no differences, 1 differences.
    pub fn exit_code(&self) -> i32 {
        if self.changes.is_empty() && self.unmatched.is_empty() {
            0
        } else {
            1
        }
    }
}

/// Items of one layer of one cell, by name, each as text.
type Items = BTreeMap<String, String>;

fn error_text(e: &impl std::fmt::Display) -> String {
    format!("error: {e}\n")
}

fn states_items(c: &RenderedCell) -> Items {
    let mut items = Items::new();
    let text = match &c.states {
        Ok(s) => {
            let mut t = String::new();
            for r in &s.releases {
                let _ = write!(t, "{}  chart={}", r.id, r.chart);
                if !r.version.is_empty() {
                    let _ = write!(t, " version={}", r.version);
                }
                if !r.installed {
                    t.push_str(" installed=false");
                }
                if !r.enabled {
                    t.push_str(" condition=false");
                }
                if !r.needs.is_empty() {
                    let _ = write!(t, " needs=[{}]", r.needs.join(", "));
                }
                if !r.labels.is_empty() {
                    let labels: Vec<String> =
                        r.labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
                    let _ = write!(t, " labels={{{}}}", labels.join(", "));
                }
                t.push('\n');
            }
            t
        }
        Err(e) => error_text(e),
    };
    items.insert("releases".into(), text);
    items
}

fn values_items(c: &RenderedCell) -> Items {
    let mut items = Items::new();
    match &c.values_layer {
        Ok(v) => {
            for (id, r) in &v.releases {
                let text = match r {
                    Ok(rv) => yaml_text(&rv.values),
                    Err(e) => error_text(e),
                };
                items.insert(id.to_string(), text);
            }
        }
        Err(e) => {
            items.insert("(values)".into(), error_text(e));
        }
    }
    items
}

fn manifest_key(id: &ReleaseId, kind: &str, ns: Option<&str>, name: &str) -> String {
    let rel = id.to_string();
    let prefix = if rel.is_empty() {
        String::new()
    } else {
        format!("{rel}: ")
    };
    match ns {
        Some(ns) if !ns.is_empty() => format!("{prefix}{kind} {ns}/{name}"),
        _ => format!("{prefix}{kind} {name}"),
    }
}

fn manifest_items(c: &RenderedCell) -> Items {
    let mut items = Items::new();
    match &c.manifests {
        Ok(m) => {
            for (id, r) in &m.releases {
                match r {
                    Ok(docs) => {
                        for d in docs {
                            let mut key =
                                manifest_key(id, &d.kind, d.namespace.as_deref(), &d.name);
                            // Two documents with one identity (a chart bug, or objects
                            // without names) stay apart instead of overwriting.
                            let mut n = 2;
                            while items.contains_key(&key) {
                                key = format!(
                                    "{} #{n}",
                                    manifest_key(id, &d.kind, d.namespace.as_deref(), &d.name)
                                );
                                n += 1;
                            }
                            let mut text = d.text.to_string();
                            if !text.ends_with('\n') {
                                text.push('\n');
                            }
                            items.insert(key, text);
                        }
                    }
                    Err(e) => {
                        items.insert(format!("{id}: (render)"), error_text(e));
                    }
                }
            }
        }
        Err(e) => {
            items.insert("(manifests)".into(), error_text(e));
        }
    }
    items
}

fn line_counts(base: &str, head: &str) -> (usize, usize) {
    let diff = similar::TextDiff::from_lines(base, head);
    let (mut removed, mut added) = (0, 0);
    for op in diff.ops() {
        for change in diff.iter_changes(op) {
            match change.tag() {
                similar::ChangeTag::Delete => removed += 1,
                similar::ChangeTag::Insert => added += 1,
                similar::ChangeTag::Equal => {}
            }
        }
    }
    (removed, added)
}

fn compare_items(
    out: &mut Vec<Change>,
    target: &str,
    cell: &str,
    layer: Layer,
    base: Items,
    mut head: Items,
) {
    for (item, b) in base {
        let (kind, h) = match head.remove(&item) {
            Some(h) if h == b => continue,
            Some(h) => (ChangeKind::Changed, h),
            None => (ChangeKind::Removed, String::new()),
        };
        let (removed, added) = line_counts(&b, &h);
        out.push(Change {
            target: target.into(),
            cell: cell.into(),
            layer,
            item,
            kind,
            base: b,
            head: h,
            removed,
            added,
        });
    }
    for (item, h) in head {
        let (removed, added) = line_counts("", &h);
        out.push(Change {
            target: target.into(),
            cell: cell.into(),
            layer,
            item,
            kind: ChangeKind::Added,
            base: String::new(),
            head: h,
            removed,
            added,
        });
    }
}

/// Compares two renders cell by cell (cells are matched by target and cell name).
pub fn diff_cells(base: &[RenderedCell], head: &[RenderedCell]) -> DiffReport {
    let key = |c: &RenderedCell| (c.target.clone(), c.cell.clone());
    let mut base_by: BTreeMap<_, &RenderedCell> = base.iter().map(|c| (key(c), c)).collect();
    let mut report = DiffReport::default();
    for h in head {
        let Some(b) = base_by.remove(&key(h)) else {
            report
                .unmatched
                .push((format!("{}/{}", h.target, h.cell), "head".into()));
            continue;
        };
        report.cells += 1;
        let (t, c) = (&h.target, &h.cell);
        let ch = &mut report.changes;
        compare_items(ch, t, c, Layer::States, states_items(b), states_items(h));
        compare_items(ch, t, c, Layer::Values, values_items(b), values_items(h));
        compare_items(
            ch,
            t,
            c,
            Layer::Manifests,
            manifest_items(b),
            manifest_items(h),
        );
    }
    for ((t, c), _) in base_by {
        report.unmatched.push((format!("{t}/{c}"), "base".into()));
    }
    report
}

/// A block-style YAML rendering of values, keys in the map's order, for reading only
/// (strings that YAML would read as something else are quoted).
pub fn yaml_text(v: &Json) -> String {
    let mut out = String::new();
    match v {
        Json::Object(m) if m.is_empty() => out.push_str("{}\n"),
        Json::Array(a) if a.is_empty() => out.push_str("[]\n"),
        Json::Object(_) | Json::Array(_) => write_block(&mut out, v, 0),
        scalar => {
            out.push_str(&scalar_text(scalar));
            out.push('\n');
        }
    }
    out
}

fn write_block(out: &mut String, v: &Json, indent: usize) {
    let pad = " ".repeat(indent);
    match v {
        Json::Object(m) => {
            for (k, val) in m {
                let key = scalar_text(&Json::String(k.clone()));
                match val {
                    Json::Object(x) if !x.is_empty() => {
                        let _ = writeln!(out, "{pad}{key}:");
                        write_block(out, val, indent + 2);
                    }
                    Json::Array(x) if !x.is_empty() => {
                        let _ = writeln!(out, "{pad}{key}:");
                        write_block(out, val, indent);
                    }
                    _ => {
                        let _ = writeln!(out, "{pad}{key}: {}", inline(val));
                    }
                }
            }
        }
        Json::Array(a) => {
            for item in a {
                match item {
                    Json::Object(x) if !x.is_empty() => {
                        // The first key goes on the dash line, the rest under it.
                        let mut inner = String::new();
                        write_block(&mut inner, item, indent + 2);
                        let trimmed = inner.trim_start_matches(' ');
                        let _ = write!(out, "{pad}- {trimmed}");
                    }
                    Json::Array(x) if !x.is_empty() => {
                        let _ = writeln!(out, "{pad}-");
                        write_block(out, item, indent + 2);
                    }
                    _ => {
                        let _ = writeln!(out, "{pad}- {}", inline(item));
                    }
                }
            }
        }
        scalar => {
            let _ = writeln!(out, "{pad}{}", scalar_text(scalar));
        }
    }
}

fn inline(v: &Json) -> String {
    match v {
        Json::Object(_) => "{}".into(),
        Json::Array(_) => "[]".into(),
        s => scalar_text(s),
    }
}

fn scalar_text(v: &Json) -> String {
    match v {
        Json::String(s) => {
            if s.contains('\n') || needs_quotes(s) {
                Json::String(s.clone()).to_string()
            } else {
                s.clone()
            }
        }
        Json::Null => "null".into(),
        other => other.to_string(),
    }
}

/// Whether a plain scalar would read back as something other than this string.
fn needs_quotes(s: &str) -> bool {
    if s.is_empty() || s.trim() != s {
        return true;
    }
    let lower = s.to_ascii_lowercase();
    if matches!(
        lower.as_str(),
        "true" | "false" | "yes" | "no" | "on" | "off" | "y" | "n" | "null" | "~"
    ) {
        return true;
    }
    if s.parse::<f64>().is_ok() || s.starts_with("0x") || s.starts_with("0o") {
        return true;
    }
    let first = s.chars().next().unwrap_or(' ');
    if "-?:,[]{}#&*!|>'\"%@`".contains(first) {
        return true;
    }
    s.contains(": ") || s.contains(" #")
}

/// Prints the report as unified diffs (three lines of context) and a summary line.
/// A change that is the same in several cells of a target prints once, naming them.
pub fn render(report: &DiffReport, base_label: &str, head_label: &str, color: bool) -> String {
    let paint = |code: &str, s: &str| {
        if color {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    };
    // Group identical changes, in first-seen order.
    let mut groups: Vec<(&Change, Vec<&str>)> = Vec::new();
    for c in &report.changes {
        let same = groups.iter_mut().find(|(g, _)| {
            g.target == c.target
                && g.layer == c.layer
                && g.item == c.item
                && g.base == c.base
                && g.head == c.head
        });
        match same {
            Some((_, cells)) => cells.push(&c.cell),
            None => groups.push((c, vec![&c.cell])),
        }
    }
    let mut out = String::new();
    for (c, cells) in &groups {
        let layer = match c.layer {
            Layer::States => "releases",
            Layer::Values => "values",
            Layer::Manifests => "manifest",
        };
        let what = match c.kind {
            ChangeKind::Added => "added",
            ChangeKind::Removed => "removed",
            ChangeKind::Changed => "changed",
        };
        let item = if c.layer == Layer::States {
            "release list"
        } else {
            c.item.as_str()
        };
        let title = format!(
            "{layer} {what}: {item}  [{}: {}]",
            c.target,
            cells.join(", ")
        );
        let _ = writeln!(out, "{}", paint("1", &title));
        let diff = similar::TextDiff::from_lines(&c.base, &c.head);
        let a = format!("{base_label}/{}", c.item);
        let b = format!("{head_label}/{}", c.item);
        let text = diff
            .unified_diff()
            .context_radius(3)
            .header(&a, &b)
            .to_string();
        for line in text.lines() {
            let colored = if line.starts_with("+++") || line.starts_with("---") {
                paint("1", line)
            } else if line.starts_with('+') {
                paint("32", line)
            } else if line.starts_with('-') {
                paint("31", line)
            } else if line.starts_with("@@") {
                paint("36", line)
            } else {
                line.to_string()
            };
            out.push_str(&colored);
            out.push('\n');
        }
        out.push('\n');
    }
    for (cell, side) in &report.unmatched {
        let _ = writeln!(out, "cell {cell} exists only in {side}");
    }
    let count = |k: ChangeKind| report.changes.iter().filter(|c| c.kind == k).count();
    let _ = writeln!(
        out,
        "{} cells compared: {} changed, {} added, {} removed ({} distinct changes shown)",
        report.cells,
        count(ChangeKind::Changed),
        count(ChangeKind::Added),
        count(ChangeKind::Removed),
        groups.len()
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn yaml_text_reads_like_values_files() {
        let v = json!({
            "a": {"b": "true", "c": 1, "d": ["x", {"k": "v", "l": 2}], "e": {}},
            "s": "plain text",
            "m": "line1\nline2",
        });
        assert_eq!(
            yaml_text(&v),
            "a:\n  b: \"true\"\n  c: 1\n  d:\n  - x\n  - k: v\n    l: 2\n  e: {}\nm: \"line1\\nline2\"\ns: plain text\n"
        );
    }

    #[test]
    fn quoting_keeps_types_apart() {
        for s in ["", "yes", "1.5", "0x1f", "- a", "a: b", " pad"] {
            assert!(needs_quotes(s), "{s:?}");
        }
        for s in ["plain", "a-b", "v1.2.3", "http://x"] {
            assert!(!needs_quotes(s), "{s:?}");
        }
    }
}
