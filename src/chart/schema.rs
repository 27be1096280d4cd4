//! `values.schema.json` validation, as Helm runs it after coalescing values: each
//! chart's schema against its own values, recursively through enabled subcharts.
//!
//! Helm 3.15 uses xeipuuv/gojsonschema and Helm 4 santhosh-tekuri/jsonschema; the
//! keywords charts use are the same, but the two libraries word errors differently
//! (`- policy: Invalid type. Expected: string, given: null` versus
//! `- at '': missing property 'policy'`), so one validator collects structured
//! failures and each version formats them its own way.

use serde_json::Value as J;

use super::tree::Node;
use super::HelmVersion;
use crate::template::{Map, Value};

/// One validation failure.
#[derive(Debug, Clone)]
struct Failure {
    /// Path of keys/indices to the failing instance.
    path: Vec<String>,
    kind: Fail,
}

#[derive(Debug, Clone)]
enum Fail {
    Type {
        want: Vec<String>,
        got: &'static str,
    },
    Required(String),
    Enum(Vec<J>),
    Const(J),
    Additional(String),
    Minimum(f64, f64),
    Maximum(f64, f64),
    MinItems(usize, usize),
    MaxItems(usize, usize),
    Unique,
    Pattern(String, String),
    MinLength(usize),
    MaxLength(usize),
    AnyOf,
    OneOf,
    Not,
}

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

fn type_matches(want: &str, v: &J) -> bool {
    let got = type_of(v);
    want == got || (want == "number" && got == "integer")
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

struct Validator<'a> {
    root: &'a J,
    out: Vec<Failure>,
    depth: usize,
    /// Compiled `pattern`/`patternProperties` regexes (`None`: does not compile).
    regexes: std::collections::HashMap<String, Option<regex::Regex>>,
}

fn resolve<'a>(root: &'a J, r: &str) -> Option<&'a J> {
    let frag = r.split_once('#').map_or("", |(_, f)| f);
    if frag.is_empty() {
        return Some(root);
    }
    let mut cur = root;
    for part in frag.trim_start_matches('/').split('/') {
        let part = part.replace("~1", "/").replace("~0", "~");
        cur = match cur {
            J::Object(o) => o.get(&part)?,
            J::Array(a) => a.get(part.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(cur)
}

fn num(v: &J) -> Option<f64> {
    v.as_f64()
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

impl Validator<'_> {
    fn is_match(&mut self, pattern: &str, text: &str) -> Option<bool> {
        self.regexes
            .entry(pattern.to_string())
            .or_insert_with(|| regex::Regex::new(pattern).ok())
            .as_ref()
            .map(|re| re.is_match(text))
    }

    fn fail(&mut self, path: &[String], kind: Fail) {
        self.out.push(Failure {
            path: path.to_vec(),
            kind,
        });
    }

    /// Whether `v` validates, without recording failures.
    fn check(&mut self, schema: &J, v: &J, path: &[String]) -> bool {
        let saved = std::mem::take(&mut self.out);
        self.validate(schema, v, path);
        let ok = self.out.is_empty();
        self.out = saved;
        ok
    }

    fn validate(&mut self, schema: &J, v: &J, path: &[String]) {
        let s = match schema {
            J::Bool(true) => return,
            J::Bool(false) => {
                self.fail(path, Fail::Not);
                return;
            }
            J::Object(o) => o,
            _ => return,
        };
        if self.depth > 64 {
            return;
        }
        if let Some(J::String(r)) = s.get("$ref") {
            if let Some(target) = resolve(self.root, r) {
                self.depth += 1;
                self.validate(target, v, path);
                self.depth -= 1;
            }
        }
        if let Some(t) = s.get("type") {
            let want: Vec<String> = match t {
                J::String(x) => vec![x.clone()],
                J::Array(a) => a
                    .iter()
                    .filter_map(|x| x.as_str().map(str::to_string))
                    .collect(),
                _ => Vec::new(),
            };
            if !want.is_empty() && !want.iter().any(|w| type_matches(w, v)) {
                self.fail(
                    path,
                    Fail::Type {
                        want,
                        got: type_of(v),
                    },
                );
                return;
            }
        }
        if let Some(J::Array(e)) = s.get("enum") {
            if !e.iter().any(|x| json_equal(x, v)) {
                self.fail(path, Fail::Enum(e.clone()));
            }
        }
        if let Some(c) = s.get("const") {
            if !json_equal(c, v) {
                self.fail(path, Fail::Const(c.clone()));
            }
        }
        match v {
            J::Object(o) => {
                if let Some(J::Array(req)) = s.get("required") {
                    for r in req.iter().filter_map(J::as_str) {
                        if !o.contains_key(r) {
                            self.fail(path, Fail::Required(r.to_string()));
                        }
                    }
                }
                let props = s.get("properties").and_then(J::as_object);
                let pattern_props = s.get("patternProperties").and_then(J::as_object);
                let mut keys: Vec<&String> = o.keys().collect();
                keys.sort();
                for k in keys {
                    let child = &o[k.as_str()];
                    let mut sub = path.to_vec();
                    sub.push(k.clone());
                    let mut matched = false;
                    if let Some(ps) = props.and_then(|p| p.get(k.as_str())) {
                        matched = true;
                        self.validate(ps, child, &sub);
                    }
                    if let Some(pp) = pattern_props {
                        for (pat, ps) in pp {
                            if self.is_match(pat, k) == Some(true) {
                                matched = true;
                                self.validate(ps, child, &sub);
                            }
                        }
                    }
                    if !matched {
                        match s.get("additionalProperties") {
                            Some(J::Bool(false)) => self.fail(path, Fail::Additional(k.clone())),
                            Some(ap @ J::Object(_)) => self.validate(ap, child, &sub),
                            _ => {}
                        }
                    }
                }
            }
            J::Array(a) => {
                match s.get("items") {
                    Some(items @ J::Object(_)) | Some(items @ J::Bool(_)) => {
                        for (i, x) in a.iter().enumerate() {
                            let mut sub = path.to_vec();
                            sub.push(i.to_string());
                            self.validate(items, x, &sub);
                        }
                    }
                    Some(J::Array(tuple)) => {
                        for (i, (x, sch)) in a.iter().zip(tuple).enumerate() {
                            let mut sub = path.to_vec();
                            sub.push(i.to_string());
                            self.validate(sch, x, &sub);
                        }
                    }
                    _ => {}
                }
                if let Some(n) = s.get("minItems").and_then(J::as_u64) {
                    if (a.len() as u64) < n {
                        self.fail(path, Fail::MinItems(n as usize, a.len()));
                    }
                }
                if let Some(n) = s.get("maxItems").and_then(J::as_u64) {
                    if (a.len() as u64) > n {
                        self.fail(path, Fail::MaxItems(n as usize, a.len()));
                    }
                }
                if s.get("uniqueItems") == Some(&J::Bool(true)) {
                    let dup = a
                        .iter()
                        .enumerate()
                        .any(|(i, x)| a[i + 1..].iter().any(|y| json_equal(x, y)));
                    if dup {
                        self.fail(path, Fail::Unique);
                    }
                }
            }
            J::Number(n) => {
                let x = n.as_f64().unwrap_or(0.0);
                if let Some(m) = s.get("minimum").and_then(num) {
                    if x < m {
                        self.fail(path, Fail::Minimum(m, x));
                    }
                }
                if let Some(m) = s.get("maximum").and_then(num) {
                    if x > m {
                        self.fail(path, Fail::Maximum(m, x));
                    }
                }
            }
            J::String(text) => {
                if let Some(J::String(p)) = s.get("pattern") {
                    if self.is_match(p, text) == Some(false) {
                        self.fail(path, Fail::Pattern(p.clone(), text.clone()));
                    }
                }
                let len = text.chars().count();
                if let Some(n) = s.get("minLength").and_then(J::as_u64) {
                    if (len as u64) < n {
                        self.fail(path, Fail::MinLength(n as usize));
                    }
                }
                if let Some(n) = s.get("maxLength").and_then(J::as_u64) {
                    if (len as u64) > n {
                        self.fail(path, Fail::MaxLength(n as usize));
                    }
                }
            }
            _ => {}
        }
        if let Some(J::Array(all)) = s.get("allOf") {
            for sub in all {
                self.validate(sub, v, path);
            }
        }
        if let Some(J::Array(any)) = s.get("anyOf") {
            if !any.iter().any(|sub| self.check(sub, v, path)) {
                self.fail(path, Fail::AnyOf);
            }
        }
        if let Some(J::Array(one)) = s.get("oneOf") {
            let n = one.iter().filter(|sub| self.check(sub, v, path)).count();
            if n != 1 {
                self.fail(path, Fail::OneOf);
            }
        }
        if let Some(not) = s.get("not") {
            if self.check(not, v, path) {
                self.fail(path, Fail::Not);
            }
        }
        if let (Some(cond), true) = (
            s.get("if"),
            s.contains_key("then") || s.contains_key("else"),
        ) {
            let branch = if self.check(cond, v, path) {
                "then"
            } else {
                "else"
            };
            if let Some(b) = s.get(branch) {
                self.validate(b, v, path);
            }
        }
    }
}

fn quote_list(items: &[J]) -> String {
    items
        .iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

fn fmt_num(f: f64) -> String {
    crate::template::fmt::format_float(f, b'g', -1)
}

/// gojsonschema's `field: description` lines.
fn format_v3(f: &Failure) -> String {
    let field = if f.path.is_empty() {
        "(root)".to_string()
    } else {
        f.path.join(".")
    };
    let last = f.path.last().cloned().unwrap_or_else(|| "(root)".into());
    let desc = match &f.kind {
        Fail::Type { want, got } => {
            format!("Invalid type. Expected: {}, given: {got}", want.join(","))
        }
        Fail::Required(p) => format!("{p} is required"),
        Fail::Enum(e) => format!("{last} must be one of the following: {}", quote_list(e)),
        Fail::Const(c) => format!("{last} does not match: {c}"),
        Fail::Additional(p) => format!("Additional property {p} is not allowed"),
        Fail::Minimum(m, _) => format!("Must be greater than or equal to {}", fmt_num(*m)),
        Fail::Maximum(m, _) => format!("Must be less than or equal to {}", fmt_num(*m)),
        Fail::MinItems(n, _) => format!("Array must have at least {n} items"),
        Fail::MaxItems(n, _) => format!("Array must have at most {n} items"),
        Fail::Unique => "array items must be unique".into(),
        Fail::Pattern(p, _) => format!("Does not match pattern '{p}'"),
        Fail::MinLength(n) => format!("String length must be greater than or equal to {n}"),
        Fail::MaxLength(n) => format!("String length must be less than or equal to {n}"),
        Fail::AnyOf => "Must validate at least one schema (anyOf)".into(),
        Fail::OneOf => "Must validate one and only one schema (oneOf)".into(),
        Fail::Not => "Must not validate the schema (not)".into(),
    };
    format!("- {field}: {desc}\n")
}

/// santhosh-tekuri/jsonschema's `at 'PTR': message` lines.
fn format_v4(f: &Failure) -> String {
    let ptr = if f.path.is_empty() {
        String::new()
    } else {
        format!("/{}", f.path.join("/"))
    };
    let msg = match &f.kind {
        // santhosh-tekuri types every JSON number as `number` (gojsonschema says
        // `integer` for integral ones); `integer` only appears as a wanted type.
        Fail::Type { want, got } => {
            let got = if *got == "integer" { "number" } else { got };
            format!("got {got}, want {}", want.join(" or "))
        }
        Fail::Required(p) => format!("missing property '{p}'"),
        Fail::Enum(e) => format!("value must be one of {}", quote_list(e)),
        Fail::Const(c) => format!("value must be {c}"),
        Fail::Additional(p) => format!("additional properties '{p}' not allowed"),
        Fail::Minimum(m, x) => format!("must be >= {} but found {}", fmt_num(*m), fmt_num(*x)),
        Fail::Maximum(m, x) => format!("must be <= {} but found {}", fmt_num(*m), fmt_num(*x)),
        Fail::MinItems(n, got) => format!("minItems: got {got}, want {n}"),
        Fail::MaxItems(n, got) => format!("maxItems: got {got}, want {n}"),
        Fail::Unique => "items are not unique".into(),
        Fail::Pattern(p, s) => format!("'{s}' does not match pattern '{p}'"),
        Fail::MinLength(n) => format!("minLength: want {n}"),
        Fail::MaxLength(n) => format!("maxLength: want {n}"),
        Fail::AnyOf => "anyOf failed".into(),
        Fail::OneOf => "oneOf failed".into(),
        Fail::Not => "not failed".into(),
    };
    format!("- at '{ptr}': {msg}\n")
}

/// Validates one values map against one schema document; the error text is what
/// Helm prints under the chart's name.
pub fn validate_one(helm: HelmVersion, values: &Map, schema: &[u8]) -> Result<(), String> {
    validate_one_at(helm, values, schema).map_err(|(text, _)| text)
}

/// [`validate_one`], also giving the path of the first failing value.
fn validate_one_at(
    helm: HelmVersion,
    values: &Map,
    schema: &[u8],
) -> Result<(), (String, Vec<String>)> {
    let schema: J = serde_json::from_slice(schema).map_err(|e| (e.to_string(), Vec::new()))?;
    let doc = to_json(&Value::Map(values.clone()));
    let mut v = Validator {
        root: &schema,
        out: Vec::new(),
        depth: 0,
        regexes: Default::default(),
    };
    v.validate(&schema, &doc, &[]);
    let Some(first) = v.out.first() else {
        return Ok(());
    };
    let lines: String = v
        .out
        .iter()
        .map(|f| match helm {
            HelmVersion::V3 => format_v3(f),
            HelmVersion::V4 => format_v4(f),
        })
        .collect();
    Err((lines, first.path.clone()))
}

/// `ValidateAgainstSchema` over the render tree.
pub fn validate_tree(helm: HelmVersion, node: &Node, values: &Map) -> Result<(), String> {
    validate_tree_at(helm, node, values).map_err(|(text, _)| text)
}

/// The documents that `$ref`s of the chart tree's schemas point to outside their
/// own document (`https://host/defs.json` for `https://host/defs.json#/x`), as
/// `(chart name, document)` in tree order, each once per chart.
pub fn remote_refs_tree(node: &Node) -> Vec<(String, String)> {
    fn refs(v: &J, out: &mut Vec<String>) {
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
                        _ => refs(x, out),
                    }
                }
            }
            J::Array(a) => a.iter().for_each(|x| refs(x, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    if let Some(s) = &node.chart.schema {
        if let Ok(schema) = serde_json::from_slice::<J>(s) {
            let mut found = Vec::new();
            refs(&schema, &mut found);
            out.extend(found.into_iter().map(|r| (node.name.clone(), r)));
        }
    }
    for d in &node.deps {
        out.extend(remote_refs_tree(d));
    }
    out
}

/// [`validate_tree`], also giving the values path (from the root chart's values,
/// through subchart keys) of the first failing value, for pointing at the file that
/// set it.
pub fn validate_tree_at(
    helm: HelmVersion,
    node: &Node,
    values: &Map,
) -> Result<(), (String, Vec<String>)> {
    let mut sb = String::new();
    let mut first: Option<Vec<String>> = None;
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
                let mut p = vec![sub.name.clone()];
                p.extend(path);
                p
            });
        }
    }
    if sb.is_empty() {
        Ok(())
    } else {
        Err((sb, first.unwrap_or_default()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wording_per_version() {
        let schema =
            br#"{"required":["policy"],"properties":{"policy":{"type":"string","enum":["sync"]}}}"#;
        let with_null = Map::new();
        with_null.insert("policy", Value::Nil);
        assert_eq!(
            validate_one(HelmVersion::V3, &with_null, schema).unwrap_err(),
            "- policy: Invalid type. Expected: string, given: null\n"
        );
        assert_eq!(
            validate_one(HelmVersion::V4, &Map::new(), schema).unwrap_err(),
            "- at '': missing property 'policy'\n"
        );
        let ok = Map::new();
        ok.insert("policy", Value::str("sync"));
        assert!(validate_one(HelmVersion::V3, &ok, schema).is_ok());
    }

    #[test]
    fn refs_and_integers() {
        let schema = br##"{"definitions":{"n":{"type":"integer","minimum":1}},"properties":{"a":{"$ref":"#/definitions/n"}}}"##;
        let m = Map::new();
        m.insert("a", Value::Float(3.0));
        assert!(validate_one(HelmVersion::V3, &m, schema).is_ok());
        m.insert("a", Value::Float(0.0));
        assert!(validate_one(HelmVersion::V3, &m, schema).is_err());
    }
}
