//! Helm 3's refusal of a schema document, as gojsonschema (v1.2.0) reads it.
//!
//! gojsonschema compiles the whole schema before it looks at any value, and
//! checks every keyword it knows on the way: a `type` name that is not a JSON
//! type, `minimum: "0"`, `required: "a"`, a regex Go cannot compile. The first
//! problem it meets ends the render with that problem's one line. So the checks
//! here run in the library's own order (keyword by keyword as its parser takes
//! them, children as it reaches them) and say what it says, including its slips
//! (`allOf` is named `anyOf`, `propertyNames` is named `patternProperties`).
//!
//! Two places make the library panic, which Helm 3 turns into an error of its own
//! (`unable to validate schema: interface conversion: …`): a boolean
//! `definitions`, and a number inside a `type` array. The library walks maps in
//! Go's random order; where one schema has several problems under different
//! keys of one map, Helm 3 reports any one of them, and this reports the one
//! under the first key in byte order.
//!
//! Not imitated: `$ref`s to other documents (Helm downloads them; stackproof
//! warns that it did not), and fragments that are not JSON pointers, on which
//! the library recurses until Go's stack overflows.

use std::collections::HashSet;

use serde_json::{Map as JMap, Value as J};

use super::v3::draft_of;
use crate::funcs::regex::cached;
use crate::funcs::url;

const DRAFT4: u32 = 4;
const DRAFT6: u32 = 6;
const DRAFT7: u32 = 7;

const JSON_TYPES: [&str; 7] = [
    "array", "boolean", "integer", "number", "null", "object", "string",
];

/// The line Helm 3 prints for a schema it cannot compile, or `None`.
pub(super) fn refusal(schema: &J) -> Option<String> {
    if !schema.is_object() && !schema.is_boolean() {
        return Some("schema is invalid".to_string());
    }
    if schema.get("$schema").is_some_and(|s| !s.is_string()) {
        return Some("$schema must be of type string".to_string());
    }
    let mut p = Parser {
        root: schema,
        refs: HashSet::new(),
    };
    p.schema(schema, draft_of(schema)).err()
}

struct Parser<'a> {
    root: &'a J,
    /// The `$ref` texts already followed: the library parses a reference's target
    /// once, and on meeting the same text again reads on past it.
    refs: HashSet<String>,
}

type Res = Result<(), String>;

fn invalid_type(expected: &str, given: &str) -> String {
    format!("Invalid type. Expected: {expected}, given: {given}")
}

fn must_be_of_a(x: &str, y: &str) -> String {
    format!("{x} must be of a {y}")
}

fn must_be_of_an(x: &str, y: &str) -> String {
    format!("{x} must be of an {y}")
}

/// `mustBeInteger`: a number literal Go's `Int64` reads (so not `1.0`, `1e2`, nor
/// one past int64); serde reads exactly those as integers.
fn integer(v: &J) -> Option<i64> {
    v.as_i64()
}

fn is_schema_like(v: &J) -> bool {
    v.is_object() || v.is_boolean()
}

/// What the library compares `enum` items by: their JSON text with every number
/// made a float64 first, so `1` and `1.0` are the same item.
fn enum_key(v: &J) -> String {
    fn floats(v: &J) -> J {
        match v {
            J::Number(n) => n
                .as_f64()
                .and_then(serde_json::Number::from_f64)
                .map_or(J::Null, J::Number),
            J::Array(a) => J::Array(a.iter().map(floats).collect()),
            J::Object(o) => J::Object(o.iter().map(|(k, x)| (k.clone(), floats(x))).collect()),
            other => other.clone(),
        }
    }
    floats(v).to_string()
}

/// gojsonpointer's lookup of a JSON pointer in `doc`, with its error texts.
fn pointer<'j>(doc: &'j J, ptr: &str) -> Result<&'j J, String> {
    let mut node = doc;
    if ptr.is_empty() {
        return Ok(node);
    }
    for token in ptr.split('/').skip(1) {
        node = match node {
            J::Object(m) => {
                let key = token.replace("~1", "/").replace("~0", "~");
                m.get(&key)
                    .ok_or_else(|| format!("Object has no key '{key}'"))?
            }
            J::Array(a) => {
                let i: i64 = token
                    .parse()
                    .map_err(|_| format!("Invalid array index '{token}'"))?;
                usize::try_from(i)
                    .ok()
                    .and_then(|i| a.get(i))
                    .ok_or_else(|| format!("Out of bound array[0,{}] index '{i}'", a.len()))?
            }
            _ => return Err(format!("Invalid token reference '{token}'")),
        };
    }
    Ok(node)
}

impl Parser<'_> {
    /// `parseSchema` for one node.
    fn schema(&mut self, node: &J, draft: u32) -> Res {
        if draft >= DRAFT6 && node.is_boolean() {
            return Ok(());
        }
        let Some(m) = node.as_object() else {
            return Err("Expected: valid schema, given: Invalid JSON".to_string());
        };
        let key_id = match draft {
            DRAFT4 => "id",
            DRAFT6 | DRAFT7 => "$id",
            _ if m.contains_key("id") => "id",
            _ => "$id",
        };
        match m.get(key_id) {
            Some(J::String(id)) => go_url(id)?,
            Some(_) => return Err(invalid_type("string", key_id)),
            None => {}
        }
        if let Some(defs) = m.get("definitions") {
            match defs {
                J::Object(d) => {
                    for v in d.values() {
                        if !is_schema_like(v) {
                            return Err(invalid_type("array of schemas", "definitions"));
                        }
                        self.schema(v, draft)?;
                    }
                }
                // Taken for a map right after being accepted as a boolean.
                J::Bool(_) => return Err(panic_conversion("bool", "map[string]interface {}")),
                _ => return Err(invalid_type("array of schemas", "definitions")),
            }
        }
        for key in ["title", "description"] {
            if m.get(key).is_some_and(|v| !v.is_string()) {
                return Err(invalid_type("string", key));
            }
        }
        match m.get("$ref") {
            None => {}
            Some(J::String(r)) if !self.refs.contains(r) => {
                go_url(r)?;
                self.refs.insert(r.clone());
                return self.reference(r, draft);
            }
            Some(J::String(r)) => go_url(r)?,
            Some(_) => return Err(invalid_type("string", "$ref")),
        }
        if let Some(t) = m.get("type") {
            let mut seen: Vec<String> = Vec::new();
            let mut add = |name: &str| -> Res {
                if !JSON_TYPES.contains(&name) {
                    return Err(format!(
                        "has a primitive type that is NOT VALID -- given: /{name}/ Expected valid values are:[{}]",
                        JSON_TYPES.join(" ")
                    ));
                }
                if seen.iter().any(|s| s == name) {
                    return Err(format!("{name} type is duplicated"));
                }
                seen.push(name.to_string());
                Ok(())
            };
            match t {
                J::String(name) => add(name)?,
                J::Array(items) => {
                    for item in items {
                        match item {
                            J::String(name) => add(name)?,
                            // A json.Number is a string to reflect, but not to the
                            // type assertion that follows.
                            J::Number(_) => return Err(panic_conversion("json.Number", "string")),
                            _ => return Err(invalid_type("string/array of strings", "type")),
                        }
                    }
                }
                _ => return Err(invalid_type("string/array of strings", "type")),
            }
        }
        if let Some(props) = m.get("properties") {
            let J::Object(props) = props else {
                return Err("properties must be of type object".to_string());
            };
            for v in props.values() {
                self.schema(v, draft)?;
            }
        }
        self.bool_or_schema(m, "additionalProperties", draft)?;
        if let Some(pp) = m.get("patternProperties") {
            let J::Object(pp) = pp else {
                return Err(invalid_type("valid schema", "patternProperties"));
            };
            for (k, v) in pp {
                if cached(k).is_err() {
                    return Err(format!("Invalid regex pattern '{k}'"));
                }
                self.schema(v, draft)?;
            }
        }
        if draft >= DRAFT6 {
            if let Some(pn) = m.get("propertyNames") {
                if !is_schema_like(pn) {
                    return Err(invalid_type("valid schema", "patternProperties"));
                }
                self.schema(pn, draft)?;
            }
        }
        if let Some(deps) = m.get("dependencies") {
            self.dependencies(deps, draft)?;
        }
        match m.get("items") {
            None => {}
            Some(J::Array(items)) => {
                for item in items {
                    if !is_schema_like(item) {
                        return Err(invalid_type("valid schema/array of schemas", "items"));
                    }
                    self.schema(item, draft)?;
                }
            }
            Some(item) if is_schema_like(item) => self.schema(item, draft)?,
            Some(_) => return Err(invalid_type("valid schema/array of schemas", "items")),
        }
        self.bool_or_schema(m, "additionalItems", draft)?;
        numbers(m, draft)?;
        strings(m)?;
        objects(m)?;
        arrays(m)?;
        if draft >= DRAFT6 {
            if let Some(c) = m.get("contains") {
                self.schema(c, draft)?;
            }
        }
        if let Some(e) = m.get("enum") {
            let J::Array(items) = e else {
                return Err(must_be_of_an("enum", "array"));
            };
            let mut seen = HashSet::new();
            for item in items {
                if !seen.insert(enum_key(item)) {
                    return Err("enum items must be unique".to_string());
                }
            }
        }
        // The library's message for a non-array `allOf` names `anyOf`.
        for (key, named) in [("oneOf", "oneOf"), ("anyOf", "anyOf"), ("allOf", "anyOf")] {
            if let Some(v) = m.get(key) {
                let J::Array(items) = v else {
                    return Err(must_be_of_an(named, "array"));
                };
                for item in items {
                    self.schema(item, draft)?;
                }
            }
        }
        let mut sub = |key: &str| -> Res {
            match m.get(key) {
                None => Ok(()),
                Some(v) if is_schema_like(v) => self.schema(v, draft),
                Some(_) => Err(must_be_of_an(key, "object")),
            }
        };
        sub("not")?;
        if draft >= DRAFT7 {
            for key in ["if", "then", "else"] {
                sub(key)?;
            }
        }
        Ok(())
    }

    fn bool_or_schema(&mut self, m: &JMap<String, J>, key: &str, draft: u32) -> Res {
        match m.get(key) {
            None | Some(J::Bool(_)) => Ok(()),
            Some(v @ J::Object(_)) => self.schema(v, draft),
            Some(_) => Err(invalid_type("boolean/valid schema", key)),
        }
    }

    fn dependencies(&mut self, deps: &J, draft: u32) -> Res {
        let J::Object(deps) = deps else {
            return Err("dependencies must be of type object".to_string());
        };
        let bad = || "dependency must be of type schema or array of strings".to_string();
        for v in deps.values() {
            match v {
                J::Array(names) => {
                    if names.iter().any(|n| !n.is_string()) {
                        return Err(bad());
                    }
                }
                J::Object(_) | J::Bool(_) => self.schema(v, draft)?,
                _ => return Err(bad()),
            }
        }
        Ok(())
    }

    /// `parseReference` for a reference within the document; the target is parsed
    /// as a schema of its own, and the referring node's other keywords are not.
    fn reference(&mut self, r: &str, draft: u32) -> Res {
        let Some(fragment) = r.strip_prefix('#') else {
            return Ok(());
        };
        if !fragment.is_empty() && !fragment.starts_with('/') {
            return Ok(());
        }
        // The fragment is URL-encoded (`%25` for `%`); `go_url` has already
        // refused a bad escape.
        let fragment = url::path_unescape(fragment).unwrap_or_else(|_| fragment.to_string());
        let target = pointer(self.root, &fragment)?;
        if !is_schema_like(target) {
            return Err("valid schema must be of type object".to_string());
        }
        self.schema(target, draft)
    }
}

/// An `$id` or `$ref` is read as a URL reference first (gojsonreference), and
/// Go's `url.Parse` error is the schema's.
fn go_url(text: &str) -> Res {
    url::parse(text, url::GoUrl::Go122).map(|_| ())
}

/// Go's message for a failed type assertion, in the error Helm 3 makes of the
/// library's panic.
fn panic_conversion(is: &str, not: &str) -> String {
    format!("unable to validate schema: interface conversion: interface {{}} is {is}, not {not}")
}

fn numbers(m: &JMap<String, J>, draft: u32) -> Res {
    if let Some(v) = m.get("multipleOf") {
        let Some(n) = v.as_f64() else {
            return Err(invalid_type("number", "multipleOf"));
        };
        if n <= 0.0 {
            return Err("multipleOf must be strictly greater than 0".to_string());
        }
    }
    for (bound, exclusive) in [
        ("minimum", "exclusiveMinimum"),
        ("maximum", "exclusiveMaximum"),
    ] {
        let has_bound = match m.get(bound) {
            None => false,
            Some(v) if v.is_number() => true,
            Some(_) => return Err(must_be_of_a(bound, "number")),
        };
        let Some(x) = m.get(exclusive) else {
            continue;
        };
        match draft {
            DRAFT4 => {
                if !x.is_boolean() {
                    return Err(invalid_type("boolean", exclusive));
                }
                if !has_bound {
                    return Err(format!("{exclusive} cannot be used without {bound}"));
                }
            }
            DRAFT6 | DRAFT7 => {
                if !x.is_number() {
                    return Err(invalid_type("number", exclusive));
                }
            }
            _ => match x {
                J::Bool(_) if !has_bound => {
                    return Err(format!("{exclusive} cannot be used without {bound}"))
                }
                J::Bool(_) | J::Number(_) => {}
                _ => return Err(invalid_type("boolean/number", exclusive)),
            },
        }
    }
    Ok(())
}

/// A count keyword (`minLength`, `maxItems`…): an integer, at least 0.
fn count(m: &JMap<String, J>, key: &str) -> Result<Option<i64>, String> {
    let Some(v) = m.get(key) else {
        return Ok(None);
    };
    let Some(n) = integer(v) else {
        return Err(must_be_of_an(key, "integer"));
    };
    if n < 0 {
        return Err(format!("{key} must be greater than or equal to 0"));
    }
    Ok(Some(n))
}

/// A `min…`/`max…` pair of counts, checked one after the other and then
/// against each other.
fn count_pair(m: &JMap<String, J>, min: &str, max: &str) -> Res {
    if let (Some(lo), Some(hi)) = (count(m, min)?, count(m, max)?) {
        if lo > hi {
            return Err(format!("{min} cannot be greater than {max}"));
        }
    }
    Ok(())
}

fn strings(m: &JMap<String, J>) -> Res {
    count_pair(m, "minLength", "maxLength")?;
    match m.get("pattern") {
        None => {}
        Some(J::String(p)) if cached(p).is_err() => {
            return Err("pattern must be a valid regex".to_string());
        }
        Some(J::String(_)) => {}
        Some(_) => return Err(must_be_of_a("pattern", "string")),
    }
    if m.get("format").is_some_and(|f| !f.is_string()) {
        return Err("format must be of type string".to_string());
    }
    Ok(())
}

fn objects(m: &JMap<String, J>) -> Res {
    count_pair(m, "minProperties", "maxProperties")?;
    if let Some(r) = m.get("required") {
        let J::Array(names) = r else {
            return Err(must_be_of_an("required", "array"));
        };
        let mut seen = HashSet::new();
        for n in names {
            let J::String(n) = n else {
                return Err("required items must be string".to_string());
            };
            if !seen.insert(n.as_str()) {
                return Err("required items must be unique".to_string());
            }
        }
    }
    Ok(())
}

fn arrays(m: &JMap<String, J>) -> Res {
    count(m, "minItems")?;
    count(m, "maxItems")?;
    if m.get("uniqueItems").is_some_and(|u| !u.is_boolean()) {
        return Err(must_be_of_a("uniqueItems", "boolean"));
    }
    Ok(())
}
