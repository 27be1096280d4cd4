//! Checks on a `values.schema.json` itself, made before any value is looked at.
//!
//! Both Helm versions refuse some schemas outright, whatever the values: Helm 3's
//! library (gojsonschema) while it reads the schema, with one line; Helm 4's
//! (santhosh-tekuri/jsonschema) by validating the schema against its draft's
//! metaschema, printed as a tree. A chart author editing a schema meets these
//! first, so stackproof reports them as Helm does (with no value to point at)
//! rather than validating with a schema Helm would not use. Covered: regexes Go
//! cannot compile (`pattern`, and the names of `patternProperties`) and, under
//! 2020-12, array-form `items`.

use serde_json::Value as J;

use super::v4::quote;
use crate::funcs::regex::GoRegex;

/// One refused spot, with the schema nodes above it (root first).
struct Problem {
    chain: Vec<Frame>,
    kind: Kind,
}

/// A schema node on the way down: its pointer, and whether it was reached as the
/// object form of `items`, which drafts before 2019-09 allow as one branch of an
/// `anyOf` (so a failure inside it reports that `anyOf`).
#[derive(Clone)]
struct Frame {
    ptr: String,
    via_items: bool,
}

enum Kind {
    Pattern { pattern: String, err: String },
    PatternName { name: String, err: String },
    TupleItems,
}

fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

fn go_regex_error(p: &str) -> Option<String> {
    GoRegex::compile(p).err().map(|e| e.to_string())
}

/// Keywords holding subschemas that only the newer drafts define; gojsonschema
/// (Helm 3) reads none of them, so a bad regex there does not stop it.
const NEWER: [&str; 5] = [
    "$defs",
    "dependentSchemas",
    "prefixItems",
    "unevaluatedItems",
    "unevaluatedProperties",
];

/// Every refused spot under `s`, children before the node's own `pattern` (the
/// order gojsonschema reads a schema in, whose first refusal is the one Helm 3
/// reports). `helm3`: only the keywords gojsonschema reads.
fn walk(s: &J, chain: &mut Vec<Frame>, draft: u32, helm3: bool, out: &mut Vec<Problem>) {
    let Some(o) = s.as_object() else {
        return;
    };
    let known = |key: &&str| !(helm3 && NEWER.contains(key));
    let visit = |child: &J,
                 token: String,
                 via_items: bool,
                 chain: &mut Vec<Frame>,
                 out: &mut Vec<Problem>| {
        let here = chain.last().map(|f| f.ptr.clone()).unwrap_or_default();
        chain.push(Frame {
            ptr: format!("{here}{token}"),
            via_items,
        });
        walk(child, chain, draft, helm3, out);
        chain.pop();
    };
    for key in ["definitions", "$defs", "properties", "dependentSchemas"]
        .into_iter()
        .filter(known)
    {
        if let Some(J::Object(m)) = o.get(key) {
            for (name, child) in m {
                visit(child, format!("/{key}/{}", escape(name)), false, chain, out);
            }
        }
    }
    if let Some(J::Object(m)) = o.get("patternProperties") {
        for (name, child) in m {
            if let Some(err) = go_regex_error(name) {
                out.push(Problem {
                    chain: chain.clone(),
                    kind: Kind::PatternName {
                        name: name.clone(),
                        err,
                    },
                });
            }
            visit(
                child,
                format!("/patternProperties/{}", escape(name)),
                false,
                chain,
                out,
            );
        }
    }
    if let Some(J::Object(m)) = o.get("dependencies") {
        for (name, child) in m.iter().filter(|(_, c)| c.is_object()) {
            visit(
                child,
                format!("/dependencies/{}", escape(name)),
                false,
                chain,
                out,
            );
        }
    }
    match o.get("items") {
        Some(J::Array(_)) if draft >= 2020 => out.push(Problem {
            chain: chain.clone(),
            kind: Kind::TupleItems,
        }),
        Some(J::Array(items)) => {
            for (i, child) in items.iter().enumerate() {
                visit(child, format!("/items/{i}"), false, chain, out);
            }
        }
        Some(child) => visit(child, "/items".into(), draft < 2019, chain, out),
        None => {}
    }
    for key in ["allOf", "anyOf", "oneOf", "prefixItems"]
        .into_iter()
        .filter(known)
    {
        if let Some(J::Array(a)) = o.get(key) {
            for (i, child) in a.iter().enumerate() {
                visit(child, format!("/{key}/{i}"), false, chain, out);
            }
        }
    }
    for key in [
        "additionalProperties",
        "additionalItems",
        "propertyNames",
        "contains",
        "not",
        "if",
        "then",
        "else",
        "unevaluatedItems",
        "unevaluatedProperties",
    ]
    .into_iter()
    .filter(known)
    {
        if let Some(child) = o.get(key).filter(|c| c.is_object()) {
            visit(child, format!("/{key}"), false, chain, out);
        }
    }
    if let Some(J::String(p)) = o.get("pattern") {
        if let Some(err) = go_regex_error(p) {
            out.push(Problem {
                chain: chain.clone(),
                kind: Kind::Pattern {
                    pattern: p.clone(),
                    err,
                },
            });
        }
    }
}

fn problems(schema: &J, draft: u32, helm3: bool) -> Vec<Problem> {
    let mut out = Vec::new();
    let mut chain = vec![Frame {
        ptr: String::new(),
        via_items: false,
    }];
    walk(schema, &mut chain, draft, helm3, &mut out);
    out
}

/// Helm 3's refusal: the first problem gojsonschema meets, as its one line (Helm
/// ends it with the newline every error gets).
pub(super) fn helm3(schema: &J, draft: u32) -> Option<String> {
    problems(schema, draft, true)
        .into_iter()
        .find_map(|p| match p.kind {
            Kind::Pattern { .. } => Some("pattern must be a valid regex".to_string()),
            Kind::PatternName { name, .. } => Some(format!("Invalid regex pattern '{name}'")),
            // Helm 3 reads array-form `items` in every draft.
            Kind::TupleItems => None,
        })
}

/// A line of the printed tree and what is nested under it; `after` follows the
/// nested lines at their depth (the other branch of an `anyOf`).
#[derive(Default)]
struct Node {
    line: String,
    kids: Vec<Node>,
    after: Option<String>,
}

impl Node {
    fn child(&mut self, line: String, after: Option<String>) -> &mut Node {
        let i = match self.kids.iter().position(|k| k.line == line) {
            Some(i) => i,
            None => {
                self.kids.push(Node {
                    line,
                    kids: Vec::new(),
                    after,
                });
                self.kids.len() - 1
            }
        };
        &mut self.kids[i]
    }

    fn render(&self, depth: usize, out: &mut String) {
        let pad = "  ".repeat(depth);
        out.push_str(&format!("{pad}{}\n", self.line));
        for k in &self.kids {
            k.render(depth + 1, out);
        }
        if let Some(a) = &self.after {
            out.push_str(&format!("{pad}  {a}\n"));
        }
    }
}

/// Helm 4's refusal: the metaschema's failures, or `None` when it accepts the
/// schema. From 2019-09 on the metaschema is an `allOf` of vocabularies, so each
/// schema node on the way down fails as an `allOf`; before, only an object-form
/// `items` adds a level (its `anyOf` with the array form).
pub(super) fn helm4(schema: &J, draft: u32) -> Option<String> {
    let found = problems(schema, draft, false);
    if found.is_empty() {
        return None;
    }
    let url = match draft {
        4 => "http://json-schema.org/draft-04/schema#",
        6 => "http://json-schema.org/draft-06/schema#",
        7 => "http://json-schema.org/draft-07/schema#",
        2019 => "https://json-schema.org/draft/2019-09/schema",
        _ => "https://json-schema.org/draft/2020-12/schema#",
    };
    let at = |p: &str| format!("- at {}:", quote(p));
    let mut root = Node::default();
    for p in &found {
        let mut node = &mut root;
        for f in &p.chain {
            if draft >= 2019 {
                node = node.child(format!("{} 'allOf' failed", at(&f.ptr)), None);
            } else if f.via_items {
                node = node.child(
                    format!("{} 'anyOf' failed", at(&f.ptr)),
                    Some(format!("{} got object, want array", at(&f.ptr))),
                );
            }
        }
        let holder = p.chain.last().map(|f| f.ptr.as_str()).unwrap_or_default();
        match &p.kind {
            Kind::Pattern { pattern, err } => {
                node.child(
                    format!(
                        "{} {} is not valid regex: {err}",
                        at(&format!("{holder}/pattern")),
                        quote(pattern)
                    ),
                    None,
                );
            }
            Kind::PatternName { name, err } => {
                node.child(
                    format!(
                        "{} invalid propertyName {}",
                        at(&format!("{holder}/patternProperties")),
                        quote(name)
                    ),
                    None,
                )
                .child(
                    format!("{} {} is not valid regex: {err}", at(""), quote(name)),
                    None,
                );
            }
            Kind::TupleItems => {
                node.child(
                    format!(
                        "{} got array, want boolean or object",
                        at(&format!("{holder}/items"))
                    ),
                    None,
                );
            }
        }
    }
    let mut text = format!(
        "\"file:///values.schema.json#\" is not valid against metaschema: jsonschema validation failed with '{url}'\n"
    );
    for k in &root.kids {
        k.render(0, &mut text);
    }
    // The newline every error gets ends the last line.
    text.pop();
    Some(text)
}
