//! Assertion kinds: one module per kind, one registration line per kind (the `kinds!`
//! list below). A kind is a [`KindDef`]: its name, its documentation (what, why, an
//! example rule), how it treats empty selections and missing paths, the JSON Schema of
//! its parameters, and a builder that turns parameters into an [`Assertion`].
//!
//! The engine does the fail-closed bookkeeping shared by all kinds (an empty selection,
//! a path that matched nothing, a layer that failed to render are findings) unless a
//! kind declares that it gives those situations their own meaning (`absent`, `count`,
//! `render-fails`, ...).

use std::collections::BTreeMap;
use std::sync::Arc;

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::Deserialize;
use serde_json::Value as Json;

use super::model::{Layer, SelectorSpec};
use super::select::{self, Node, Selection, Selector, Subject};
use crate::matrix::model::RenderedCell;
use crate::matrix::yaml::{self, YKind, YNode, YamlError};
use crate::report::{FindingLocation, Role};

/// Declares the kind modules and the registry in one place: adding a kind is adding
/// its file and one line here.
macro_rules! kinds {
    ($($module:ident),* $(,)?) => {
        $(mod $module;)*
        /// Every assertion kind, in documentation order.
        pub static KINDS: &[&KindDef] = &[$(&$module::KIND),*];
    };
}

kinds! {
    exists,
    absent,
    equals,
    contains,
    one_of,
    matches,
    count,
    unique,
    subset_of,
    type_is,
    references_resolve,
    render_fails,
    no_private_key,
    ca_only,
    san_covers,
    not_expired_within,
    fingerprint_is,
    key_not_trusted,
    differs_from,
    same_as,
}

/// An assertion kind.
pub struct KindDef {
    /// The key used in rule files (`one-of`).
    pub name: &'static str,
    /// One line.
    pub summary: &'static str,
    /// What it checks, precisely.
    pub what: &'static str,
    /// Why one would assert it.
    pub why: &'static str,
    /// A complete rule file using it (tested to load).
    pub example: &'static str,
    /// The kind interprets an empty selection itself (otherwise it is a finding).
    pub empty_ok: bool,
    /// The kind interprets subjects whose path matched nothing itself.
    pub missing_ok: bool,
    /// The kind runs when the layer failed to render (and sees the failures).
    pub on_failed_layer: bool,
    /// The JSON Schema of the parameters.
    pub schema: fn(&mut SchemaGenerator) -> Schema,
    /// Builds the assertion from its parameters node.
    pub build: fn(&YNode) -> Result<Box<dyn Assertion>, YamlError>,
}

impl std::fmt::Debug for KindDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("KindDef").field(&self.name).finish()
    }
}

/// Looks a kind up by name.
pub fn kind(name: &str) -> Option<&'static KindDef> {
    KINDS.iter().copied().find(|k| k.name == name)
}

/// A built assertion.
pub trait Assertion: Send + Sync {
    fn check(&self, cx: &Ctx<'_, '_>) -> Vec<Violation>;

    /// The other cell of the target this assertion compares with, if any: a run
    /// restricted to some cells renders that one too.
    fn other_cell(&self) -> Option<&str> {
        None
    }
}

/// What an assertion sees.
pub struct Ctx<'a, 's> {
    pub cell: &'a RenderedCell,
    pub sel: &'s Selection<'a>,
    /// The rule's selector, for kinds that apply it to another cell.
    pub selector: &'s Selector,
    /// The other cells of the same target rendered in this run.
    pub siblings: &'s [&'a RenderedCell],
    pub layer: Layer,
    /// Unix seconds.
    pub now: i64,
    /// The rule accepts an empty selection (`allow-empty: true`).
    pub allow_empty: bool,
}

impl<'a> Ctx<'a, '_> {
    pub fn subject(&self, i: usize) -> &Subject<'a> {
        &self.sel.subjects[i]
    }

    /// How a subject is named in messages: `Secret nvcf/x`, `release nvcf/api`.
    pub fn describe(&self, i: usize) -> String {
        let s = &self.sel.subjects[i];
        match (&s.resource, s.release) {
            (Some(r), _) => r.to_string(),
            (None, Some(rel)) => match self.layer {
                Layer::Values => format!("values of release {rel}"),
                _ => format!("release {rel}"),
            },
            (None, None) => "the cell".into(),
        }
    }

    /// The location of a node, for related locations.
    pub fn location_of(&self, subject: usize, path: &str, label: &str) -> Option<FindingLocation> {
        let o = self.sel.subjects[subject].origins?.get();
        let l = o.get(path).or_else(|| o.get("$"))?;
        Some(FindingLocation {
            role: Role::Related,
            file: l.file.clone(),
            line: l.line,
            column: l.column,
            label: Some(label.to_string()),
        })
    }
}

impl<'a> Ctx<'a, '_> {
    /// The values the rule's selector picks in the sibling cell `name`, keyed like
    /// [`Ctx::key`], or why that cell cannot be compared with.
    pub fn partners(&self, name: &str) -> Result<BTreeMap<(String, String), &'a Json>, String> {
        let other = self
            .siblings
            .iter()
            .find(|c| c.cell == name)
            .ok_or_else(|| {
                format!(
                    "cannot compare with cell `{name}`: it is not a cell of target `{}` rendered in this run (a `--cell` filter must include it)",
                    self.cell.target
                )
            })?;
        let sel = select::select(other, self.layer, self.selector);
        if let Some((rel, e)) = sel.failures.first() {
            let what = rel
                .as_ref()
                .map_or("it".to_string(), |r| format!("release {r}"));
            return Err(format!(
                "cannot compare with cell `{name}`: {what} failed to render: {}",
                e.message
            ));
        }
        Ok(sel
            .nodes
            .iter()
            .map(|n| (node_key(&sel, n), n.value))
            .collect())
    }

    /// A node's identity across cells: the object (or release) it belongs to, and its
    /// path.
    pub fn key(&self, node: &Node<'_>) -> (String, String) {
        node_key(self.sel, node)
    }
}

fn node_key(sel: &Selection<'_>, node: &Node<'_>) -> (String, String) {
    let s = &sel.subjects[node.subject];
    let owner = match (&s.resource, s.release) {
        (Some(r), _) => r.to_string(),
        (None, Some(rel)) => rel.to_string(),
        (None, None) => String::new(),
    };
    (owner, node.path.clone())
}

/// Parameters of the kinds that compare with another cell.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "CompareCellParams")]
pub struct CompareCell {
    /// The name of the other cell (of the same target).
    pub cell: String,
}

/// One way an assertion failed.
#[derive(Clone, Debug, Default)]
pub struct Violation {
    pub subject: Option<usize>,
    /// The node's normalized JSONPath.
    pub path: Option<String>,
    pub value: Option<Json>,
    pub message: String,
    pub related: Vec<FindingLocation>,
}

impl Violation {
    /// A violation about a node.
    pub fn at(node: &Node<'_>, message: impl Into<String>) -> Violation {
        Violation {
            subject: Some(node.subject),
            path: Some(node.path.clone()),
            value: Some(node.value.clone()),
            message: message.into(),
            related: Vec::new(),
        }
    }

    /// A violation about a whole subject.
    pub fn subject(subject: usize, message: impl Into<String>) -> Violation {
        Violation {
            subject: Some(subject),
            message: message.into(),
            ..Violation::default()
        }
    }

    /// A violation about the selection as a whole.
    pub fn whole(message: impl Into<String>) -> Violation {
        Violation {
            message: message.into(),
            ..Violation::default()
        }
    }
}

/// A built assertion with its kind and where it was written.
pub struct Built {
    pub kind: &'static KindDef,
    pub assertion: Box<dyn Assertion>,
    pub pos: yaml::Pos,
}

impl std::fmt::Debug for Built {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Built")
            .field("kind", &self.kind.name)
            .finish()
    }
}

/// Builds the assertions of a rule's `assert:` node: a list of single-key mappings or
/// one mapping of kinds.
pub fn build_all(node: &YNode) -> Result<Vec<Built>, YamlError> {
    let mut entries: Vec<(&YNode, &YNode)> = Vec::new();
    match &node.kind {
        YKind::Seq(items) => {
            for item in items {
                match &item.kind {
                    YKind::Map(kv) if kv.len() == 1 => entries.push((&kv[0].0, &kv[0].1)),
                    YKind::Str(_) => entries.push((item, &NULL_NODE)),
                    _ => {
                        return Err(YamlError {
                            message: "each assertion is a single-key mapping `kind: parameters`"
                                .into(),
                            pos: Some(item.pos),
                        })
                    }
                }
            }
        }
        YKind::Map(kv) => entries.extend(kv.iter().map(|(k, v)| (k, v))),
        _ => {
            return Err(YamlError {
                message: "`assert` is a list of `kind: parameters` mappings".into(),
                pos: Some(node.pos),
            })
        }
    }
    if entries.is_empty() {
        return Err(YamlError {
            message: "a rule needs at least one assertion".into(),
            pos: Some(node.pos),
        });
    }
    let mut out = Vec::new();
    for (k, params) in entries {
        let name = k.as_key().unwrap_or_default();
        let Some(def) = kind(&name) else {
            let mut msg = format!("unknown assertion kind `{name}`");
            if let Some(s) = suggest(&name) {
                msg.push_str(&format!(" (did you mean `{s}`?)"));
            }
            return Err(YamlError {
                message: format!(
                    "{msg}; known kinds: {}",
                    KINDS.iter().map(|k| k.name).collect::<Vec<_>>().join(", ")
                ),
                pos: Some(k.pos),
            });
        };
        let assertion = (def.build)(params).map_err(|mut e| {
            e.message = format!("`{name}`: {}", e.message);
            if e.pos.is_none() {
                e.pos = Some(params.pos);
            }
            e
        })?;
        out.push(Built {
            kind: def,
            assertion,
            pos: k.pos,
        });
    }
    Ok(out)
}

static NULL_NODE: YNode = YNode {
    pos: yaml::Pos {
        line: 0,
        col: 0,
        offset: 0,
    },
    kind: YKind::Null,
};

/// The closest kind name within a small edit distance.
fn suggest(name: &str) -> Option<&'static str> {
    KINDS
        .iter()
        .map(|k| (edit_distance(name, k.name), k.name))
        .filter(|(d, _)| *d <= 3)
        .min()
        .map(|(_, n)| n)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut cur = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The JSON Schema of `assert:`, composed from every kind's parameter schema.
pub fn assertions_schema(generator: &mut SchemaGenerator) -> Schema {
    let mut props = serde_json::Map::new();
    for k in KINDS {
        let mut s = (k.schema)(generator).to_value();
        if let Json::Object(m) = &mut s {
            m.insert("description".into(), Json::String(k.summary.to_string()));
        }
        props.insert(k.name.to_string(), s);
    }
    let one = serde_json::json!({
        "type": "object",
        "properties": props,
        "additionalProperties": false,
        "minProperties": 1,
        "maxProperties": 1,
    });
    let many = serde_json::json!({
        "type": "object",
        "properties": props,
        "additionalProperties": false,
        "minProperties": 1,
    });
    json_schema!({
        "description": "What must hold: a list of `kind: parameters` mappings, or one mapping of kinds.",
        "anyOf": [
            { "type": "array", "items": one, "minItems": 1 },
            many,
        ]
    })
}

/// Reads typed parameters from a node.
pub fn params<T: for<'de> Deserialize<'de>>(node: &YNode) -> Result<T, YamlError> {
    yaml::from_node(node)
}

/// The parameters of kinds that take none (`absent: {}`, or just `- absent`).
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoParams {}

/// Builds an assertion that takes no parameters, refusing any that are given.
pub fn without_params<A: Assertion + 'static>(
    node: &YNode,
    make: fn() -> A,
) -> Result<Box<dyn Assertion>, YamlError> {
    let _: Option<NoParams> = params(node)?;
    Ok(Box::new(make()))
}

/// One violation per private key found in `n`'s material, at the key's own path.
pub fn key_violations(
    n: &Node<'_>,
    keys: &[crate::rules::pki::KeyInfo],
    describe: impl Fn(&crate::rules::pki::KeyInfo) -> String,
) -> Vec<Violation> {
    keys.iter()
        .map(|k| {
            let mut v = Violation::at(n, describe(k));
            v.path = Some(format!("{}{}", n.path, k.suffix));
            v
        })
        .collect()
}

/// Builds an assertion whose parameters are one plain value (`equals: x`).
pub fn with_value<A: Assertion + 'static>(
    node: &YNode,
    make: fn(Json) -> A,
) -> Result<Box<dyn Assertion>, YamlError> {
    Ok(Box::new(make(params(node)?)))
}

/// A value somewhere else in the render: a layer (default: the rule's) and a selector
/// whose `path` picks the values.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct LookupSpec {
    /// The layer to look in (default: the rule's layer).
    #[serde(default)]
    pub layer: Option<Layer>,
    /// Which objects, and (`path`) which values in them.
    #[serde(default)]
    pub select: SelectorSpec,
}

/// A compiled [`LookupSpec`].
#[derive(Debug)]
pub struct Lookup {
    pub layer: Option<Layer>,
    pub selector: Arc<Selector>,
    pub describe: String,
}

/// One value a lookup found.
#[derive(Clone, Debug)]
pub struct Found {
    pub value: Json,
    /// The effective namespace of the document it was found in; empty for values and
    /// states entries, which name objects without placing them.
    pub namespace: String,
    /// `Deployment nvcf/router` or `values of release nvcf/api`.
    pub owner: String,
    pub location: Option<FindingLocation>,
}

impl Lookup {
    pub fn build(spec: &LookupSpec, node: &YNode) -> Result<Lookup, YamlError> {
        let layer_for_compile = spec.layer.unwrap_or(Layer::Manifests);
        let selector =
            Selector::compile(&spec.select, layer_for_compile).map_err(|(m, field)| YamlError {
                message: m,
                pos: node
                    .get("select")
                    .and_then(|s| s.key_pos(field))
                    .or(Some(node.pos)),
            })?;
        let describe = spec
            .select
            .path
            .clone()
            .unwrap_or_else(|| "the selected objects".into());
        Ok(Lookup {
            layer: spec.layer,
            selector: Arc::new(selector),
            describe,
        })
    }

    /// Runs the lookup. What could not be looked at (a failed layer or release, an
    /// expression error) comes back as `problems`, next to whatever was found, so
    /// callers can fail closed without hiding what the rest of the cell shows.
    pub fn run(&self, cx: &Ctx<'_, '_>, label: &str) -> Lookedup {
        let layer = self.layer.unwrap_or(cx.layer);
        let sel = select::select(cx.cell, layer, &self.selector);
        let mut problems: Vec<String> = sel
            .failures
            .iter()
            .map(|(rel, e)| match rel {
                Some(r) => format!(
                    "cannot look up {}: release {r} failed to render: {e}",
                    self.describe
                ),
                None => format!(
                    "cannot look up {}: the {} layer failed to render: {e}",
                    self.describe,
                    layer.as_str()
                ),
            })
            .collect();
        problems.extend(
            sel.gaps
                .iter()
                .map(|g| format!("cannot look up {}: {}", self.describe, g.message)),
        );
        let inner = Ctx {
            cell: cx.cell,
            sel: &sel,
            selector: &self.selector,
            siblings: cx.siblings,
            layer,
            now: cx.now,
            allow_empty: cx.allow_empty,
        };
        let found = sel
            .nodes
            .iter()
            .map(|n| Found {
                value: n.value.clone(),
                // A values or states entry names objects without saying where they
                // live; only a rendered document has a namespace of its own.
                namespace: if layer == Layer::Manifests {
                    sel.subjects[n.subject].namespace.clone()
                } else {
                    String::new()
                },
                owner: inner.describe(n.subject),
                location: inner.location_of(n.subject, &n.path, label),
            })
            .collect();
        Lookedup { found, problems }
    }
}

/// What a lookup found, and what kept it from looking everywhere.
#[derive(Clone, Debug, Default)]
pub struct Lookedup {
    pub found: Vec<Found>,
    pub problems: Vec<String>,
}

/// Compact JSON for messages, shortened past 80 characters.
pub fn show(v: &Json) -> String {
    let s = match v {
        Json::String(s) => format!("{s:?}"),
        other => other.to_string(),
    };
    if s.chars().count() > 80 {
        let head: String = s.chars().take(77).collect();
        format!("{head}...")
    } else {
        s
    }
}

/// A scalar as text (strings bare); `None` for maps and lists.
pub fn scalar_text(v: &Json) -> Option<String> {
    match v {
        Json::String(s) => Some(s.clone()),
        Json::Number(n) => Some(n.to_string()),
        Json::Bool(b) => Some(b.to_string()),
        Json::Null => Some("null".into()),
        _ => None,
    }
}

/// JSON equality where numbers compare by value (`1 == 1.0`).
pub fn json_eq(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Number(x), Json::Number(y)) => match (x.as_f64(), y.as_f64()) {
            (Some(p), Some(q)) => p == q,
            _ => x == y,
        },
        (Json::Array(x), Json::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_eq(p, q))
        }
        (Json::Object(x), Json::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

/// A schema for a parameter type.
pub fn schema_of<T: JsonSchema>(g: &mut SchemaGenerator) -> Schema {
    g.subschema_for::<T>()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions() {
        assert_eq!(suggest("equal"), Some("equals"));
        assert_eq!(suggest("oneof"), Some("one-of"));
        assert_eq!(suggest("zzzzzzzzzz"), None);
    }

    #[test]
    fn kind_names_are_unique_and_kebab_case() {
        let mut names: Vec<&str> = KINDS.iter().map(|k| k.name).collect();
        for n in &names {
            assert!(
                n.chars()
                    .all(|c| c.is_ascii_lowercase() || c == '-' || c.is_ascii_digit()),
                "{n}"
            );
        }
        names.sort();
        let before = names.len();
        names.dedup();
        assert_eq!(before, names.len());
    }
}
