//! `values.schema.json` validation, as Helm runs it after coalescing values: each
//! chart's schema against its own values, recursively through enabled subcharts.
//!
//! Helm 3.15 uses xeipuuv/gojsonschema and Helm 4 santhosh-tekuri/jsonschema. The
//! two libraries agree on what most keywords mean but not on much else: the order
//! they check keywords in, which failures they report (gojsonschema adds the
//! failures of the "closest" `anyOf`/`oneOf` branch, santhosh-tekuri nests every
//! branch's failures under the combinator), drafts (Helm 3 falls back to a hybrid
//! of draft-04 and draft-07, Helm 4 to 2020-12), `format` (asserted by Helm 3
//! only) and the words. So each version has its own walker over the same schema
//! and instance: [`v3`] collects a flat list of `field: description` lines the
//! way gojsonschema does (including its "score" for picking the closest branch),
//! [`v4`] builds santhosh-tekuri's error tree and prints it indented.
//!
//! Shared here: turning values into the JSON instance, JSON equality and types,
//! local `$ref` resolution and the regex cache.

use std::borrow::Cow;
use std::sync::{Arc, OnceLock};

use serde_json::Value as J;

use super::tree::Node;
use super::HelmVersion;
use crate::template::{Map, Value};

mod embedded;
mod format;
mod format4;
mod load;
mod metaschema;
mod parse3;
mod v3;
mod v4;

#[cfg(test)]
mod tests;

/// JSON Schema type name of a value (numbers with no fraction are integers).
fn type_of(v: &J) -> &'static str {
    match v {
        J::Null => "null",
        J::Bool(_) => "boolean",
        J::Number(n) => {
            if n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0) {
                "integer"
            } else {
                "number"
            }
        }
        J::String(_) => "string",
        J::Array(_) => "array",
        J::Object(_) => "object",
    }
}

/// Values as the JSON document the validators see.
fn to_json(v: &Value) -> J {
    match v {
        Value::Nil => J::Null,
        Value::Bool(b) => J::Bool(*b),
        Value::Int(i, _) => J::from(*i),
        Value::Uint(u, _) => J::from(*u),
        Value::Float(f) => serde_json::Number::from_f64(*f).map_or(J::Null, J::Number),
        Value::String(s) => J::String(s.to_string()),
        Value::Bytes(b) => J::Array(b.iter().map(|x| J::from(*x)).collect()),
        Value::List(l) => J::Array(l.iter().map(to_json).collect()),
        Value::Map(m) => J::Object(
            m.entries()
                .iter()
                .map(|(k, v)| (k.clone(), to_json(v)))
                .collect(),
        ),
        Value::Object(o) => to_json(&o.to_json_value()),
    }
}

/// A local `$ref` (`#/definitions/x`, `#`) inside the schema document.
fn resolve<'a>(root: &'a J, r: &str) -> Option<&'a J> {
    let frag = r.split_once('#').map_or("", |(_, f)| f);
    if frag.is_empty() {
        return Some(root);
    }
    let mut cur = root;
    for part in frag.trim_start_matches('/').split('/') {
        let part = if part.contains('~') {
            std::borrow::Cow::Owned(part.replace("~1", "/").replace("~0", "~"))
        } else {
            std::borrow::Cow::Borrowed(part)
        };
        cur = match cur {
            J::Object(o) => o.get(part.as_ref())?,
            J::Array(a) => a.get(part.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(cur)
}

fn json_equal(a: &J, b: &J) -> bool {
    match (a, b) {
        (J::Number(x), J::Number(y)) => x.as_f64() == y.as_f64(),
        (J::Array(x), J::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_equal(p, q))
        }
        (J::Object(x), J::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_equal(v, w)))
        }
        _ => a == b,
    }
}

/// A non-negative integer keyword value (`minItems: 2`, `minItems: 2.0`).
fn count(v: Option<&J>) -> Option<u64> {
    let v = v?;
    v.as_u64().or_else(|| {
        v.as_f64()
            .filter(|f| *f >= 0.0 && f.fract() == 0.0 && *f < 1.8e19)
            .map(|f| f as u64)
    })
}

/// Whether `x` is an integral multiple of `m`, exactly for decimal numbers as both
/// libraries do it with big rationals (`0.3` is a multiple of `0.1`).
fn is_multiple(x: &serde_json::Number, m: &serde_json::Number) -> bool {
    fn decimal(n: &serde_json::Number) -> Option<(i128, i32)> {
        let s = n.to_string();
        let (mant, exp) = match s.find(['e', 'E']) {
            Some(i) => (&s[..i], s[i + 1..].parse::<i32>().ok()?),
            None => (s.as_str(), 0),
        };
        let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
        let digits = format!("{int}{frac}");
        let v: i128 = digits.parse().ok()?;
        Some((v, exp - frac.len() as i32))
    }
    if let (Some((xv, xe)), Some((mv, me))) = (decimal(x), decimal(m)) {
        if mv == 0 {
            return false;
        }
        let e = xe.min(me);
        let scale = |v: i128, by: i32| -> Option<i128> {
            10i128.checked_pow(u32::try_from(by).ok()?)?.checked_mul(v)
        };
        if let (Some(a), Some(b)) = (scale(xv, xe - e), scale(mv, me - e)) {
            return a % b == 0;
        }
    }
    match (x.as_f64(), m.as_f64()) {
        (Some(a), Some(b)) if b != 0.0 => {
            let q = a / b;
            q.is_finite() && q.fract() == 0.0
        }
        _ => false,
    }
}

/// Compiled `pattern`/`patternProperties` regexes (`None`: does not compile),
/// with Go's syntax, which both Helm versions' libraries use.
#[derive(Default)]
struct Regexes(
    std::collections::HashMap<String, Option<std::sync::Arc<crate::funcs::regex::GoRegex>>>,
);

impl Regexes {
    fn is_match(&mut self, pattern: &str, text: &str) -> Option<bool> {
        self.0
            .entry(pattern.to_string())
            .or_insert_with(|| crate::funcs::regex::cached(pattern).ok())
            .as_ref()
            .map(|re| re.is_match(text))
    }
}

/// A chart's `values.schema.json`, and what each Helm version's library makes of
/// it before looking at any value, worked out once per version. That part (decoding
/// the document, refusing a schema Helm refuses, resolving embedded resources) is
/// most of a large schema's cost and needs no values, so a render can have a worker
/// do it while the chart is still loading (see `preparse`); rendering the same
/// loaded chart again (a matrix, a Helmfile stack) does not repeat it.
pub struct SchemaFile {
    bytes: crate::source::Bytes,
    /// The document, when it is one JSON value and nothing else (what it almost
    /// always is): both versions start from this then.
    json: OnceLock<Option<Arc<J>>>,
    /// Indexed by [`version_slot`].
    compiled: [OnceLock<Compiled>; 2],
    /// The documents its `$ref`s point to outside itself, in order of appearance.
    remote: OnceLock<Vec<String>>,
}

/// What one Helm version makes of a schema document before any value.
struct Compiled {
    /// The schema with embedded resources made local (often
    /// [`SchemaFile::json`] itself), or the error Helm prints for the document
    /// itself (not JSON, refused as a schema).
    schema: Result<Arc<J>, String>,
}

fn version_slot(helm: HelmVersion) -> usize {
    match helm {
        HelmVersion::V3 => 0,
        HelmVersion::V4 => 1,
    }
}

impl SchemaFile {
    pub fn new(bytes: impl Into<crate::source::Bytes>) -> SchemaFile {
        SchemaFile {
            bytes: bytes.into(),
            json: OnceLock::new(),
            compiled: [OnceLock::new(), OnceLock::new()],
            remote: OnceLock::new(),
        }
    }

    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Works out what `helm` makes of the document, unless that is done or under
    /// way on another thread (then this waits for it).
    pub fn prepare(&self, helm: HelmVersion) {
        let _ = self.schema(helm);
    }

    fn json(&self) -> Option<&Arc<J>> {
        self.json
            .get_or_init(|| serde_json::from_slice(&self.bytes).ok().map(Arc::new))
            .as_ref()
    }

    /// The schema `helm`'s library validates with, or its error for the document.
    fn schema(&self, helm: HelmVersion) -> Result<&J, &String> {
        let compiled = self.compiled[version_slot(helm)].get_or_init(|| Compiled {
            schema: self.compile(helm),
        });
        compiled.schema.as_deref()
    }

    /// What `helm`'s library holds before validating: the document with its
    /// embedded resources made local, or its error for the document itself.
    fn compile(&self, helm: HelmVersion) -> Result<Arc<J>, String> {
        // A document that is one JSON value decodes to that value under both
        // versions' readers; only one that is not needs the Go reader's errors
        // (or, for Helm 3, its reading of the first value alone).
        let decoded = match self.json() {
            Some(json) => json.clone(),
            None => Arc::new(load::decode(helm, &self.bytes)?),
        };
        // A schema Helm refuses fails before any value is looked at.
        let refused = match helm {
            HelmVersion::V3 => parse3::refusal(&decoded),
            HelmVersion::V4 => v4::against_metaschema(&decoded),
        };
        if let Some(text) = refused {
            return Err(text);
        }
        let draft = match helm {
            HelmVersion::V3 => v3::draft_of(&decoded),
            HelmVersion::V4 => v4::draft_of(&decoded),
        };
        Ok(match embedded::localize(&decoded, draft) {
            Cow::Owned(local) => Arc::new(local),
            Cow::Borrowed(_) => decoded,
        })
    }

    /// The documents `$ref`s point to outside this one (`https://host/defs.json`
    /// for `https://host/defs.json#/x`), each once.
    fn remote_refs(&self) -> &[String] {
        self.remote.get_or_init(|| {
            let mut out = Vec::new();
            // Most schemas refer to nothing at all; those are not walked (a key
            // can only be `$ref` if the text holds `$ref`, or escapes its `$`).
            let may_refer = memchr::memmem::find(&self.bytes, b"$ref").is_some()
                || memchr::memmem::find(&self.bytes, b"\\u0024").is_some();
            if let Some(schema) = self.json().filter(|_| may_refer) {
                // A reference to a resource embedded under its own `$id` is not
                // remote.
                remote_refs(&embedded::localize(schema, v4::draft_of(schema)), &mut out);
            }
            out
        })
    }
}

impl std::fmt::Debug for SchemaFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SchemaFile")
            .field("bytes", &self.bytes.len())
            .finish()
    }
}

/// Adds to `out` the documents `$ref`s under `v` point to outside their own.
fn remote_refs(v: &J, out: &mut Vec<String>) {
    match v {
        J::Object(o) => {
            for (k, x) in o {
                match (k.as_str(), x) {
                    ("$ref", J::String(r)) if !r.starts_with('#') => {
                        let doc = r.split('#').next().unwrap_or(r).to_string();
                        if !out.contains(&doc) {
                            out.push(doc);
                        }
                    }
                    _ => remote_refs(x, out),
                }
            }
        }
        J::Array(a) => a.iter().for_each(|x| remote_refs(x, out)),
        _ => {}
    }
}

/// Validates one values map against one schema document; the error text is what
/// Helm prints under the chart's name.
pub fn validate_one(helm: HelmVersion, values: &Map, schema: &[u8]) -> Result<(), String> {
    validate_one_at(helm, values, &SchemaFile::new(Arc::from(schema))).map_err(|(text, _)| text)
}

/// [`validate_one`], also giving the path of the first failing value.
fn validate_one_at(
    helm: HelmVersion,
    values: &Map,
    schema: &SchemaFile,
) -> Result<(), (String, Option<Vec<String>>)> {
    // A refused document has no value to point at.
    let schema = schema.schema(helm).map_err(|e| (e.clone(), None))?;
    let doc = to_json(&Value::Map(values.clone()));
    match helm {
        HelmVersion::V3 => v3::validate(schema, &doc),
        HelmVersion::V4 => v4::validate(schema, &doc),
    }
    .map_err(|(text, path)| (text, Some(path)))
}

/// The documents that `$ref`s of the chart tree's schemas point to outside their
/// own document (`https://host/defs.json` for `https://host/defs.json#/x`), as
/// `(chart name, document)` in tree order, each once per chart.
pub fn remote_refs_tree(node: &Node) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = node
        .chart
        .schema
        .iter()
        .flat_map(|s| s.remote_refs())
        .map(|r| (node.name.clone(), r.clone()))
        .collect();
    for d in &node.deps {
        out.extend(remote_refs_tree(d));
    }
    out
}

/// `ValidateAgainstSchema` over the render tree, also giving the values path (from the root chart's values,
/// through subchart keys) of the first failing value, for pointing at the file that
/// set it.
pub fn validate_tree_at(
    helm: HelmVersion,
    node: &Node,
    values: &Map,
) -> Result<(), (String, Option<Vec<String>>)> {
    let mut sb = String::new();
    // The first failure's value path; `Some(None)` when it was the schema itself.
    let mut first: Option<Option<Vec<String>>> = None;
    if let Some(s) = &node.chart.schema {
        if let Err((e, path)) = validate_one_at(helm, values, s) {
            sb.push_str(&format!("{}:\n{e}", node.name));
            first.get_or_insert(path);
        }
    }
    for sub in &node.deps {
        let sv = match values.get(&sub.name) {
            Some(Value::Map(m)) => m,
            _ => continue,
        };
        if let Err((e, path)) = validate_tree_at(helm, sub, &sv) {
            sb.push_str(&e);
            first.get_or_insert_with(|| {
                path.map(|path| {
                    let mut p = vec![sub.name.clone()];
                    p.extend(path);
                    p
                })
            });
        }
    }
    if sb.is_empty() {
        Ok(())
    } else {
        Err((sb, first.flatten()))
    }
}
