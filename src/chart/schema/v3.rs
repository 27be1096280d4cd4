//! Helm 3's wording and order: a walk shaped like gojsonschema's.
//!
//! Per schema node it checks the combinators (`anyOf`, `oneOf`, `allOf`, `not`,
//! `dependencies`, `if`), then the keywords of the instance's type, then `const`,
//! `enum`, then string keywords (`format` last, as for numbers), then `properties`
//! children. `$ref`
//! replaces its siblings. A failed `anyOf`/`oneOf`/`contains` also reports the
//! failures of its best-scoring branch; the score counts checks passed (+1 per
//! check group run, -2 per failure), as gojsonschema does, so the same branch wins.

use serde_json::Value as J;

use super::{count, format, is_multiple, json_equal, resolve, type_of, Regexes};

/// No `$schema` (or an unknown one): draft-04 and draft-06+ forms both work.
const HYBRID: u32 = u32::MAX;

struct Line {
    path: Vec<String>,
    text: String,
}

#[derive(Default)]
struct Res {
    lines: Vec<Line>,
    score: i64,
}

impl Res {
    fn add(&mut self, path: &[String], text: String) {
        self.lines.push(Line {
            path: path.to_vec(),
            text,
        });
        self.score -= 2;
    }
    fn merge(&mut self, other: Res) {
        self.lines.extend(other.lines);
        self.score += other.score;
    }
    fn ok(&self) -> bool {
        self.lines.is_empty()
    }
}

struct V3<'a> {
    root: &'a J,
    draft: u32,
    regexes: Regexes,
    depth: usize,
}

fn field(path: &[String]) -> String {
    if path.is_empty() {
        "(root)".into()
    } else {
        path.join(".")
    }
}

fn child(path: &[String], k: &str) -> Vec<String> {
    let mut p = path.to_vec();
    p.push(k.to_string());
    p
}

/// `big.Float` printed by Go's `%v` (shortest `%g`: `1e+06`).
fn num(f: f64) -> String {
    crate::template::fmt::format_float(f, b'g', -1)
}

/// Go's `json.Marshal` of a decoded JSON value (sorted keys, HTML-safe escapes,
/// numbers as float64), which is how gojsonschema prints `enum` and `const`.
fn go_json(v: &J) -> String {
    let mut s = String::new();
    write_go_json(v, &mut s);
    s
}

fn write_go_json(v: &J, out: &mut String) {
    match v {
        J::Null => out.push_str("null"),
        J::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        J::Number(n) => match n.as_f64() {
            Some(f) if n.is_f64() => {
                let a = f.abs();
                if a != 0.0 && !(1e-6..1e21).contains(&a) {
                    let s = crate::template::fmt::format_float(f, b'e', -1);
                    // Go writes e-07, not e-7, but two-digit exponents as is.
                    out.push_str(&s);
                } else {
                    out.push_str(&crate::template::fmt::format_float(f, b'f', -1));
                }
            }
            _ => out.push_str(&n.to_string()),
        },
        J::String(s) => crate::funcs::codec::yaml::write_json_string(out, s),
        J::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_go_json(x, out);
            }
            out.push(']');
        }
        J::Object(o) => {
            out.push('{');
            let mut keys: Vec<&String> = o.keys().collect();
            keys.sort();
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_go_json(&J::String(k.clone()), out);
                out.push(':');
                write_go_json(&o[k.as_str()], out);
            }
            out.push('}');
        }
    }
}

pub(super) fn draft_of(schema: &J) -> u32 {
    let Some(s) = schema.get("$schema").and_then(J::as_str) else {
        return HYBRID;
    };
    // gojsonschema compares the URL without an empty fragment.
    match s.strip_suffix('#').unwrap_or(s) {
        "http://json-schema.org/draft-04/schema" => 4,
        "http://json-schema.org/draft-06/schema" => 6,
        "http://json-schema.org/draft-07/schema" => 7,
        _ => HYBRID,
    }
}

/// Validates `doc`; on failure, Helm 3's lines and the first failing path.
pub(super) fn validate(schema: &J, doc: &J) -> Result<(), (String, Vec<String>)> {
    let draft = draft_of(schema);
    let mut v = V3 {
        root: schema,
        draft,
        regexes: Regexes::default(),
        depth: 0,
    };
    let mut res = Res::default();
    v.recurse(schema, doc, &[], &mut res);
    let Some(first) = res.lines.first() else {
        return Ok(());
    };
    let path = first.path.clone();
    let text = res
        .lines
        .iter()
        .map(|l| format!("- {}: {}\n", field(&l.path), l.text))
        .collect();
    Err((text, path))
}

impl V3<'_> {
    fn sub(&mut self, schema: &J, v: &J, path: &[String]) -> Res {
        let mut r = Res::default();
        self.recurse(schema, v, path, &mut r);
        r
    }

    fn recurse(&mut self, schema: &J, v: &J, path: &[String], r: &mut Res) {
        let s = match schema {
            J::Bool(true) => return,
            J::Bool(false) => {
                r.add(path, "False always fails validation".into());
                return;
            }
            J::Object(o) => o,
            _ => return,
        };
        if self.depth > 64 {
            return;
        }
        if let Some(J::String(rf)) = s.get("$ref") {
            if let Some(target) = resolve(self.root, rf) {
                self.depth += 1;
                self.recurse(target, v, path, r);
                self.depth -= 1;
            }
            return;
        }
        let types: Vec<&str> = match s.get("type") {
            Some(J::String(t)) => vec![t.as_str()],
            Some(J::Array(a)) => a.iter().filter_map(J::as_str).collect(),
            _ => Vec::new(),
        };
        if !types.is_empty() {
            let given = type_of(v);
            let ok = types.contains(&given) || (given == "integer" && types.contains(&"number"));
            if !ok {
                let want = if types.len() > 1 {
                    format!("[{}]", types.join(","))
                } else {
                    types[0].to_string()
                };
                r.add(
                    path,
                    format!("Invalid type. Expected: {want}, given: {given}"),
                );
                return;
            }
        }
        self.combinators(s, v, path, r);
        match v {
            J::Number(n) => self.number(s, n, path, r),
            J::Array(a) => self.array(s, a, path, r),
            J::Object(o) => self.object(s, o, path, r),
            _ => {}
        }
        self.common(s, v, path, r);
        if let J::String(text) = v {
            self.string(s, text, path, r);
        }
        if let (J::Object(o), Some(J::Object(props))) = (v, s.get("properties")) {
            for (k, ps) in props {
                if let Some(x) = o.get(k) {
                    self.recurse(ps, x, &child(path, k), r);
                }
            }
        }
        r.score += 1;
    }

    fn combinators(&mut self, s: &serde_json::Map<String, J>, v: &J, path: &[String], r: &mut Res) {
        if let Some(J::Array(any)) = s
            .get("anyOf")
            .filter(|a| !a.as_array().is_some_and(Vec::is_empty))
        {
            if let Err(best) = first_pass(any.iter().map(|sub| self.sub(sub, v, path))) {
                r.add(path, "Must validate at least one schema (anyOf)".into());
                if let Some(b) = best {
                    r.merge(b);
                }
            }
        }
        if let Some(J::Array(one)) = s
            .get("oneOf")
            .filter(|a| !a.as_array().is_some_and(Vec::is_empty))
        {
            let mut n = 0;
            let mut best: Option<Res> = None;
            for sub in one {
                let res = self.sub(sub, v, path);
                if res.ok() {
                    n += 1;
                } else if n == 0 && best.as_ref().is_none_or(|b| res.score > b.score) {
                    best = Some(res);
                }
            }
            if n != 1 {
                r.add(path, "Must validate one and only one schema (oneOf)".into());
                if n == 0 {
                    if let Some(b) = best {
                        r.merge(b);
                    }
                }
            }
        }
        if let Some(J::Array(all)) = s
            .get("allOf")
            .filter(|a| !a.as_array().is_some_and(Vec::is_empty))
        {
            let mut failed = false;
            for sub in all {
                let res = self.sub(sub, v, path);
                failed |= !res.ok();
                r.merge(res);
            }
            if failed {
                r.add(path, "Must validate all the schemas (allOf)".into());
            }
        }
        if let Some(not) = s.get("not") {
            if self.sub(not, v, path).ok() {
                r.add(path, "Must not validate the schema (not)".into());
            }
        }
        if let (Some(J::Object(deps)), J::Object(o)) = (s.get("dependencies"), v) {
            for k in o.keys() {
                match deps.get(k) {
                    Some(J::Array(names)) => {
                        for d in names.iter().filter_map(J::as_str) {
                            if !o.contains_key(d) {
                                r.add(path, format!("Has a dependency on {d}"));
                            }
                        }
                    }
                    Some(dep @ (J::Object(_) | J::Bool(_))) => self.recurse(dep, v, path, r),
                    _ => {}
                }
            }
        }
        if self.draft >= 7 {
            if let Some(cond) = s.get("if") {
                let ok = self.sub(cond, v, path).ok();
                let branch = if ok { s.get("then") } else { s.get("else") };
                if let Some(b) = branch {
                    let res = self.sub(b, v, path);
                    if !res.ok() {
                        r.add(
                            path,
                            if ok {
                                r#"Must validate "then" as "if" was valid"#.into()
                            } else {
                                r#"Must validate "else" as "if" was not valid"#.into()
                            },
                        );
                        r.merge(res);
                    }
                }
            }
        }
        r.score += 1;
    }

    fn number(
        &mut self,
        s: &serde_json::Map<String, J>,
        n: &serde_json::Number,
        path: &[String],
        r: &mut Res,
    ) {
        let x = n.as_f64().unwrap_or(0.0);
        if let Some(J::Number(m)) = s.get("multipleOf") {
            if !is_multiple(n, m) {
                r.add(
                    path,
                    format!("Must be a multiple of {}", num(m.as_f64().unwrap_or(0.0))),
                );
            }
        }
        // Draft-04's boolean `exclusiveMaximum` turns `maximum` exclusive; from
        // draft-06 on it is a number of its own.
        let bound = |key: &str, excl: &str| -> (Option<f64>, Option<f64>) {
            let plain = s.get(key).and_then(J::as_f64);
            match s.get(excl) {
                Some(J::Bool(true)) if self.draft == 4 || self.draft == HYBRID => (None, plain),
                Some(J::Number(e)) if self.draft != 4 => (plain, e.as_f64()),
                _ => (plain, None),
            }
        };
        let (max, xmax) = bound("maximum", "exclusiveMaximum");
        let (min, xmin) = bound("minimum", "exclusiveMinimum");
        if let Some(m) = max.filter(|m| x > *m) {
            r.add(path, format!("Must be less than or equal to {}", num(m)));
        }
        if let Some(m) = xmax.filter(|m| x >= *m) {
            r.add(path, format!("Must be less than {}", num(m)));
        }
        if let Some(m) = min.filter(|m| x < *m) {
            r.add(path, format!("Must be greater than or equal to {}", num(m)));
        }
        if let Some(m) = xmin.filter(|m| x <= *m) {
            r.add(path, format!("Must be greater than {}", num(m)));
        }
        self.format(s, None, path, r);
        r.score += 1;
    }

    /// `format`, last among a string's or a number's keywords. gojsonschema hands
    /// numbers to the same checkers, each of which refuses anything but a string;
    /// a format it has no checker for passes.
    fn format(
        &mut self,
        s: &serde_json::Map<String, J>,
        text: Option<&str>,
        path: &[String],
        r: &mut Res,
    ) {
        if let Some(J::String(f)) = s.get("format") {
            if !format::check(f, text, &mut self.regexes) {
                r.add(path, format!("Does not match format '{f}'"));
            }
        }
    }

    fn array(&mut self, s: &serde_json::Map<String, J>, a: &[J], path: &[String], r: &mut Res) {
        match s.get("items") {
            Some(items @ (J::Object(_) | J::Bool(_))) => {
                for (i, x) in a.iter().enumerate() {
                    let res = self.sub(items, x, &child(path, &i.to_string()));
                    r.merge(res);
                }
            }
            Some(J::Array(tuple)) if !tuple.is_empty() => {
                for (i, (x, sch)) in a.iter().zip(tuple).enumerate() {
                    let res = self.sub(sch, x, &child(path, &i.to_string()));
                    r.merge(res);
                }
                if tuple.len() < a.len() {
                    match s.get("additionalItems") {
                        Some(J::Bool(false)) => {
                            r.add(path, "No additional items allowed on array".into())
                        }
                        Some(extra @ J::Object(_)) => {
                            for (i, x) in a.iter().enumerate().skip(tuple.len()) {
                                let res = self.sub(extra, x, &child(path, &i.to_string()));
                                r.merge(res);
                            }
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
        if let Some(n) = count(s.get("minItems")).filter(|n| (a.len() as u64) < *n) {
            r.add(path, format!("Array must have at least {n} items"));
        }
        if let Some(n) = count(s.get("maxItems")).filter(|n| (a.len() as u64) > *n) {
            r.add(path, format!("Array must have at most {n} items"));
        }
        if s.get("uniqueItems") == Some(&J::Bool(true)) {
            // gojsonschema remembers the last index of each value, so a third
            // copy pairs with the second.
            for j in 1..a.len() {
                if let Some(i) = (0..j).rev().find(|&i| json_equal(&a[i], &a[j])) {
                    r.add(path, format!("array items[{i},{j}] must be unique"));
                }
            }
        }
        if self.draft >= 6 {
            if let Some(c) = s.get("contains") {
                let items = a.iter().enumerate();
                let results = items.map(|(i, x)| self.sub(c, x, &child(path, &i.to_string())));
                if let Err(best) = first_pass(results) {
                    r.add(path, "At least one of the items must match".into());
                    if let Some(b) = best {
                        r.merge(b);
                    }
                }
            }
        }
        r.score += 1;
    }

    fn object(
        &mut self,
        s: &serde_json::Map<String, J>,
        o: &serde_json::Map<String, J>,
        path: &[String],
        r: &mut Res,
    ) {
        let n = o.len() as u64;
        if let Some(m) = count(s.get("minProperties")).filter(|m| n < *m) {
            r.add(path, format!("Must have at least {m} properties"));
        }
        if let Some(m) = count(s.get("maxProperties")).filter(|m| n > *m) {
            r.add(path, format!("Must have at most {m} properties"));
        }
        if let Some(J::Array(req)) = s.get("required") {
            for p in req.iter().filter_map(J::as_str) {
                if o.contains_key(p) {
                    r.score += 1;
                } else {
                    r.add(path, format!("{p} is required"));
                }
            }
        }
        let props = s.get("properties").and_then(J::as_object);
        let pattern_props = s.get("patternProperties").and_then(J::as_object);
        for (k, x) in o {
            let found = props.is_some_and(|p| p.contains_key(k));
            let mut matched = false;
            if let Some(pp) = pattern_props {
                for (pat, ps) in pp {
                    if self.regexes.is_match(pat, k) == Some(true) {
                        matched = true;
                        let res = self.sub(ps, x, &child(path, k));
                        r.merge(res);
                    }
                }
            }
            if matched {
                r.score += 1;
            }
            if !found && !matched {
                match s.get("additionalProperties") {
                    Some(J::Bool(false)) => {
                        r.add(path, format!("Additional property {k} is not allowed"))
                    }
                    Some(ap @ J::Object(_)) => {
                        let res = self.sub(ap, x, &child(path, k));
                        r.merge(res);
                    }
                    _ => {}
                }
            }
        }
        if self.draft >= 6 {
            if let Some(names) = s.get("propertyNames") {
                for k in o.keys() {
                    let res = self.sub(names, &J::String(k.clone()), path);
                    if !res.ok() {
                        r.add(path, format!("Property name of \"{k}\" does not match"));
                        r.merge(res);
                    }
                }
            }
        }
        r.score += 1;
    }

    fn common(&mut self, s: &serde_json::Map<String, J>, v: &J, path: &[String], r: &mut Res) {
        if self.draft >= 6 {
            if let Some(c) = s.get("const") {
                if !json_equal(c, v) {
                    r.add(
                        path,
                        format!("{} does not match: {}", field(path), go_json(c)),
                    );
                }
            }
        }
        if let Some(J::Array(e)) = s
            .get("enum")
            .filter(|e| !e.as_array().is_some_and(Vec::is_empty))
        {
            if !e.iter().any(|x| json_equal(x, v)) {
                let allowed: Vec<String> = e.iter().map(go_json).collect();
                r.add(
                    path,
                    format!(
                        "{} must be one of the following: {}",
                        field(path),
                        allowed.join(", ")
                    ),
                );
            }
        }
        r.score += 1;
    }

    fn string(&mut self, s: &serde_json::Map<String, J>, text: &str, path: &[String], r: &mut Res) {
        let len = text.chars().count() as u64;
        if let Some(n) = count(s.get("minLength")).filter(|n| len < *n) {
            r.add(
                path,
                format!("String length must be greater than or equal to {n}"),
            );
        }
        if let Some(n) = count(s.get("maxLength")).filter(|n| len > *n) {
            r.add(
                path,
                format!("String length must be less than or equal to {n}"),
            );
        }
        if let Some(J::String(p)) = s.get("pattern") {
            if self.regexes.is_match(p, text) == Some(false) {
                r.add(path, format!("Does not match pattern '{p}'"));
            }
        }
        self.format(s, Some(text), path, r);
        r.score += 1;
    }
}

/// Walks `results` until one passes (`Ok`); when none does, the failure with the
/// best score, which gojsonschema reports as the closest branch.
fn first_pass(results: impl Iterator<Item = Res>) -> Result<(), Option<Res>> {
    let mut best: Option<Res> = None;
    for res in results {
        if res.ok() {
            return Ok(());
        }
        if best.as_ref().is_none_or(|b| res.score > b.score) {
            best = Some(res);
        }
    }
    Err(best)
}
