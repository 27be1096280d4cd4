//! Helm 4's wording and order: a walk shaped like santhosh-tekuri/jsonschema's.
//!
//! Per schema node: `type`, `const`, `enum` stop at their first failure; `$ref`
//! (alone before 2019-09, alongside its siblings after); then the keywords of the
//! instance's type; then `not`, `allOf`, `anyOf`, `oneOf`, `if`. A node with one
//! failure reports it; with several, a group whose members Helm prints indented.
//! Combinators nest the failures of every branch under their own line.
//!
//! The same walk checks a schema itself against its draft's metaschema
//! ([`against_metaschema`]), which is how the library refuses a schema before it
//! looks at any value.

use serde_json::Value as J;

use super::{count, is_multiple, json_equal, resolve, Regexes};

#[derive(Debug)]
enum Kind {
    /// Several failures of one schema node ("validation failed").
    Group,
    /// A `$ref`'s failures; printed only when there are several.
    Ref,
    Text(String),
}

#[derive(Debug)]
struct Err4 {
    loc: Vec<String>,
    /// The location is the validator's own path buffer, not a copy (see
    /// [`V4::at`]); it is read back when printing.
    aliased: bool,
    kind: Kind,
    causes: Vec<Err4>,
}

fn err(loc: &Loc<'_>, text: String) -> Err4 {
    Err4 {
        loc: loc.path(),
        aliased: false,
        kind: Kind::Text(text),
        causes: Vec::new(),
    }
}

fn with(loc: &Loc<'_>, text: &str, causes: Vec<Err4>) -> Err4 {
    Err4 {
        loc: loc.path(),
        aliased: false,
        kind: Kind::Text(text.to_string()),
        causes,
    }
}

/// Capacity of the library's instance-path buffer: locations up to this deep are
/// all slices of one shared array.
const SHARED: usize = 8;

/// A schema object and which keywords it holds. A node is asked for some forty
/// keywords and holds a few; one pass over its keys saves a map lookup for each
/// absent one (checking a schema against its metaschema asks eight nodes per
/// schema node).
struct Kw<'a> {
    map: &'a serde_json::Map<String, J>,
    mask: u64,
}

/// The bit of a keyword the validator reads, or 0 for one it does not know.
fn keyword_bit(k: &str) -> u64 {
    let i = match k {
        "type" => 0,
        "const" => 1,
        "enum" => 2,
        "format" => 3,
        "$ref" => 4,
        "minProperties" => 5,
        "maxProperties" => 6,
        "required" => 7,
        "dependencies" => 8,
        "properties" => 9,
        "patternProperties" => 10,
        "additionalProperties" => 11,
        "propertyNames" => 12,
        "dependentSchemas" => 13,
        "dependentRequired" => 14,
        "minItems" => 15,
        "maxItems" => 16,
        "uniqueItems" => 17,
        "items" => 18,
        "additionalItems" => 19,
        "prefixItems" => 20,
        "contains" => 21,
        "minContains" => 22,
        "maxContains" => 23,
        "minLength" => 24,
        "maxLength" => 25,
        "pattern" => 26,
        "multipleOf" => 27,
        "minimum" => 28,
        "maximum" => 29,
        "exclusiveMinimum" => 30,
        "exclusiveMaximum" => 31,
        "not" => 32,
        "allOf" => 33,
        "anyOf" => 34,
        "oneOf" => 35,
        "if" => 36,
        "then" => 37,
        "else" => 38,
        "unevaluatedItems" => 39,
        "unevaluatedProperties" => 40,
        _ => return 0,
    };
    1 << i
}

impl<'a> Kw<'a> {
    fn new(map: &'a serde_json::Map<String, J>) -> Kw<'a> {
        let mask = map.keys().fold(0, |m, k| m | keyword_bit(k));
        Kw { map, mask }
    }

    fn get(&self, k: &str) -> Option<&'a J> {
        let bit = keyword_bit(k);
        if bit != 0 && self.mask & bit == 0 {
            return None;
        }
        self.map.get(k)
    }
}

/// Where a value stands in the document, as a chain through its parents:
/// walking a schema builds one per value visited, and only a failure turns it
/// into a path ([`Loc::path`]).
#[derive(Clone, Copy)]
struct Loc<'a> {
    parent: Option<&'a Loc<'a>>,
    key: &'a str,
    depth: usize,
}

impl Loc<'_> {
    const ROOT: Loc<'static> = Loc {
        parent: None,
        key: "",
        depth: 0,
    };

    fn path(self) -> Vec<String> {
        let mut out = vec![String::new(); self.depth];
        let mut at = Some(&self);
        while let Some(l) = at {
            if l.depth > 0 {
                out[l.depth - 1] = l.key.to_string();
            }
            at = l.parent;
        }
        out
    }
}

/// Go's `%q` with single quotes, as santhosh-tekuri quotes names and strings.
pub(super) fn quote(s: &str) -> String {
    let mut out = String::from("'");
    for c in s.chars() {
        match c {
            '\'' => out.push_str("\\'"),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// A primitive as Go's `%v` shows it (strings quoted, null as `<nil>`).
fn display(v: &J) -> String {
    match v {
        J::String(s) => quote(s),
        J::Null => "<nil>".into(),
        J::Array(_) | J::Object(_) => "value".into(),
        J::Bool(b) => b.to_string(),
        J::Number(n) => n.to_string(),
    }
}

/// An integer as golang.org/x/text's English printer shows `%d` (grouped).
/// The `min…`/`max…` pair of a count (properties, items, characters).
fn count_bounds(s: &Kw<'_>, n: u64, [min, max]: [&str; 2], loc: &Loc<'_>, errs: &mut Vec<Err4>) {
    if let Some(m) = count(s.get(min)).filter(|m| n < *m) {
        errs.push(err(
            loc,
            format!("{min}: got {}, want {}", pint(n), pint(m)),
        ));
    }
    if let Some(m) = count(s.get(max)).filter(|m| n > *m) {
        errs.push(err(
            loc,
            format!("{max}: got {}, want {}", pint(n), pint(m)),
        ));
    }
}

fn pint(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A float as golang.org/x/text's English printer shows `%v`: plain (grouped)
/// where Go's `%v` is, `m×10ⁿ` where Go would print an exponent.
fn pfloat(f: f64) -> String {
    let g = crate::template::fmt::format_float(f, b'g', -1);
    if let Some((mant, exp)) = g.split_once('e') {
        // Go writes at least two exponent digits (`e+06`); the printer keeps them.
        let sup: String = exp
            .trim_start_matches('+')
            .chars()
            .map(|c| match c {
                '-' => '⁻',
                '0' => '⁰',
                '1' => '¹',
                '2' => '²',
                '3' => '³',
                '4' => '⁴',
                '5' => '⁵',
                '6' => '⁶',
                '7' => '⁷',
                '8' => '⁸',
                _ => '⁹',
            })
            .collect();
        return format!("{mant}×10{sup}");
    }
    let (int, frac) = g
        .split_once('.')
        .map_or((g.as_str(), None), |(a, b)| (a, Some(b)));
    let (sign, digits) = int.strip_prefix('-').map_or(("", int), |d| ("-", d));
    let grouped = digits
        .parse::<u64>()
        .map_or_else(|_| digits.to_string(), pint);
    match frac {
        Some(fr) => format!("{sign}{grouped}.{fr}"),
        None => format!("{sign}{grouped}"),
    }
}

fn ptr(loc: &[String]) -> String {
    loc.iter()
        .map(|t| format!("/{}", t.replace('~', "~0").replace('/', "~1")))
        .collect()
}

pub(super) fn draft_of(schema: &J) -> u32 {
    let Some(s) = schema.get("$schema").and_then(J::as_str) else {
        return 2020;
    };
    if s.contains("draft-04") {
        4
    } else if s.contains("draft-06") {
        6
    } else if s.contains("draft-07") {
        7
    } else if s.contains("2019-09") {
        2019
    } else {
        2020
    }
}

struct V4<'a> {
    /// The shared path buffer as the library last wrote it.
    slots: Vec<String>,
    root: &'a J,
    draft: u32,
    regexes: Regexes,
    depth: usize,
    /// Whether `format` fails a value: for values, in drafts before 2019-09; for a
    /// schema checked against its metaschema, always (so a `pattern` Go cannot
    /// compile fails the metaschema's `format: regex` in every draft).
    assert_format: bool,
    /// Each `$ref` resolved once, by the address of its text: checking a schema
    /// against a metaschema follows the same few references for every node.
    targets: std::collections::HashMap<usize, Option<&'a J>>,
}

impl<'a> V4<'a> {
    /// A validator against `root`, a schema of `draft`.
    fn new(root: &'a J, draft: u32, assert_format: bool) -> V4<'a> {
        V4 {
            slots: vec![String::new(); SHARED],
            root,
            draft,
            regexes: Regexes::default(),
            depth: 0,
            assert_format,
            targets: Default::default(),
        }
    }

    /// Helm 4's lines for a failure: a group's members each at the top level, any
    /// other failure as the one top entry.
    fn render_top(&self, e: Err4, out: &mut String) {
        let top = match e.kind {
            Kind::Group => e.causes,
            _ => vec![e],
        };
        for c in &top {
            render(c, 0, &self.slots, out);
        }
    }
}

fn render(e: &Err4, indent: usize, slots: &[String], out: &mut String) {
    let skip = matches!(e.kind, Kind::Ref) && e.causes.len() == 1;
    let mut next = indent;
    if !skip {
        let msg = match &e.kind {
            Kind::Group | Kind::Ref => "validation failed",
            Kind::Text(t) => t.as_str(),
        };
        out.push_str(&"  ".repeat(indent));
        let loc = match slots.get(..e.loc.len()) {
            Some(shared) if e.aliased => shared,
            _ => &e.loc[..],
        };
        out.push_str(&format!("- at {}: {msg}\n", quote(&ptr(loc))));
        next += 1;
    }
    for c in &e.causes {
        render(c, next, slots, out);
    }
}

fn first_leaf(e: &Err4) -> &Err4 {
    e.causes.first().map_or(e, first_leaf)
}

/// Validates `doc`; on failure, Helm 4's lines and the first failing path.
pub(super) fn validate(schema: &J, doc: &J) -> Result<(), (String, Vec<String>)> {
    let draft = draft_of(schema);
    let mut v = V4::new(schema, draft, draft < 2019);
    let Some(e) = v.val(schema, doc, &Loc::ROOT) else {
        return Ok(());
    };
    let path = first_leaf(&e).loc.clone();
    let mut text = String::new();
    v.render_top(e, &mut text);
    Err((text, path))
}

/// Helm 4's refusal of `schema` as a schema of its draft, or `None`: its
/// failures against the draft's metaschema; else a local `$ref` that points at
/// nothing, or at a value that is not where a subschema stands and that the
/// metaschema refuses (the library checks such a target when it compiles it).
pub(super) fn against_metaschema(schema: &J) -> Option<String> {
    let draft = draft_of(schema);
    if let Some(ptr) = bad_id(schema, draft) {
        return Some(format!(
            "error in parsing id at \"file:///values.schema.json#{ptr}\""
        ));
    }
    if let Some(e) = metaschema_failure(schema, draft, "") {
        return Some(e);
    }
    fn has_ref(v: &J) -> bool {
        match v {
            J::Object(o) => o.contains_key("$ref") || o.values().any(has_ref),
            J::Array(a) => a.iter().any(has_ref),
            _ => false,
        }
    }
    if !has_ref(schema) {
        return None;
    }
    let mut subschemas = std::collections::HashSet::new();
    let mut refs = Vec::new();
    subschemas_of(schema, String::new(), draft, &mut subschemas, &mut refs);
    // A target outside the subschemas is compiled as a schema of its own, so its
    // own references are followed in turn.
    let mut next = 0;
    while let Some(r) = refs.get(next).cloned() {
        next += 1;
        let Some(ptr) = r.strip_prefix('#').filter(|p| p.starts_with('/')) else {
            continue;
        };
        let Some(target) = resolve(schema, &r) else {
            return Some(format!(
                "json-pointer in \"file:///values.schema.json#{ptr}\" not found"
            ));
        };
        if !subschemas.contains(ptr) {
            if let Some(e) = metaschema_failure(target, draft, ptr) {
                return Some(e);
            }
            subschemas_of(target, ptr.to_string(), draft, &mut subschemas, &mut refs);
        }
    }
    None
}

/// The failures of `doc` (the schema at pointer `at`) against the metaschema of
/// `draft`, under the line naming both.
fn metaschema_failure(doc: &J, draft: u32, at: &str) -> Option<String> {
    let meta = super::metaschema::bundle(draft);
    let mut v = V4::new(meta, draft, true);
    let e = v.val(meta, doc, &Loc::ROOT)?;
    let mut text = format!(
        "\"file:///values.schema.json#{at}\" is not valid against metaschema: jsonschema validation failed with '{}'\n",
        super::metaschema::url(draft)
    );
    v.render_top(e, &mut text);
    // The newline every error gets ends the last line.
    text.pop();
    Some(text)
}

/// The draft that first reads `keyword` as holding subschemas (a map of them, a
/// list of them, or one), as the library lists them; `None` for other keywords.
fn subschema_keyword(keyword: &str) -> Option<u32> {
    Some(match keyword {
        "definitions"
        | "not"
        | "allOf"
        | "anyOf"
        | "oneOf"
        | "properties"
        | "additionalProperties"
        | "patternProperties"
        | "items"
        | "additionalItems"
        | "dependencies" => 4,
        "propertyNames" | "contains" => 6,
        "if" | "then" | "else" => 7,
        "$defs"
        | "dependentSchemas"
        | "unevaluatedProperties"
        | "unevaluatedItems"
        | "contentSchema" => 2019,
        "prefixItems" => 2020,
        _ => return None,
    })
}

/// Every subschema under `s` (at `ptr`) that a schema of `draft` has, with its
/// pointer, parents before children, in document order. `visit` also returns what
/// the node's children are given (a base URI, say), starting from `state`.
pub(super) fn walk_subschemas<S>(
    s: &J,
    ptr: &str,
    draft: u32,
    state: &S,
    visit: &mut dyn FnMut(&str, &J, &S) -> S,
) {
    let inner = visit(ptr, s, state);
    let J::Object(o) = s else {
        return;
    };
    let esc = |k: &str| k.replace('~', "~0").replace('/', "~1");
    for (k, v) in o {
        if subschema_keyword(k).is_none_or(|since| since > draft) {
            continue;
        }
        let here = format!("{ptr}/{}", esc(k));
        match (k.as_str(), v) {
            (
                "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas"
                | "dependencies",
                J::Object(m),
            ) => {
                for (name, sub) in m {
                    walk_subschemas(sub, &format!("{here}/{}", esc(name)), draft, &inner, visit);
                }
            }
            (_, J::Array(a))
                if matches!(
                    k.as_str(),
                    "allOf" | "anyOf" | "oneOf" | "prefixItems" | "items"
                ) =>
            {
                for (i, sub) in a.iter().enumerate() {
                    walk_subschemas(sub, &format!("{here}/{i}"), draft, &inner, visit);
                }
            }
            (_, J::Object(_) | J::Bool(_)) => walk_subschemas(v, &here, draft, &inner, visit),
            _ => {}
        }
    }
}

/// The pointers of every subschema under `s` (at `ptr`), and the `$ref`s they
/// hold, in document order. A `$ref` into anything else (`$defs` in a draft-07
/// schema) makes the library check the target against the metaschema on its own.
fn subschemas_of(
    s: &J,
    ptr: String,
    draft: u32,
    out: &mut std::collections::HashSet<String>,
    refs: &mut Vec<String>,
) {
    walk_subschemas(s, &ptr, draft, &(), &mut |at, sub, _| {
        out.insert(at.to_string());
        if let Some(J::String(r)) = sub.get("$ref") {
            refs.push(r.clone());
        }
    });
}

/// The first subschema whose id Go's `url.Parse` refuses (the library reads the
/// ids of a schema's resources before anything else). Before 2019-09 a node
/// with a `$ref` has no id; a fragment is not part of it.
fn bad_id(schema: &J, draft: u32) -> Option<String> {
    let key = if draft == 4 { "id" } else { "$id" };
    let mut bad = None;
    walk_subschemas(schema, "", draft, &(), &mut |ptr, s, _| {
        let Some(o) = s.as_object().filter(|_| bad.is_none()) else {
            return;
        };
        if draft < 2019 && o.contains_key("$ref") {
            return;
        }
        if let Some(J::String(id)) = o.get(key) {
            let id = id.split('#').next().unwrap_or_default();
            if crate::funcs::url::parse(id, crate::funcs::url::GoUrl::Go125).is_err() {
                bad = Some(ptr.to_string());
            }
        }
    });
    bad
}

impl V4<'_> {
    /// The location of a child value. The library appends the token to its
    /// parent's path buffer in place while the buffer has room, so siblings and
    /// cousins overwrite each other's slots; errors copy the path, except
    /// `propertyNames`' which keeps the buffer and so shows whatever was written
    /// there last. Recorded here for those.
    fn at<'a>(&mut self, loc: &'a Loc<'a>, k: &'a str) -> Loc<'a> {
        if let Some(slot) = self.slots.get_mut(loc.depth) {
            slot.clear();
            slot.push_str(k);
        }
        Loc {
            parent: Some(loc),
            key: k,
            depth: loc.depth + 1,
        }
    }

    fn val_at(&mut self, schema: &J, v: &J, loc: &Loc<'_>, k: &str) -> Option<Err4> {
        let l = self.at(loc, k);
        self.val(schema, v, &l)
    }

    fn val(&mut self, schema: &J, v: &J, loc: &Loc<'_>) -> Option<Err4> {
        let s = match schema {
            J::Bool(true) => return None,
            J::Bool(false) => return Some(err(loc, "false schema".into())),
            J::Object(o) => Kw::new(o),
            _ => return None,
        };
        let s = &s;
        if self.depth > 64 {
            return None;
        }
        let has_type = |t: &str| match s.get("type") {
            Some(J::String(x)) => x == t,
            Some(J::Array(a)) => a.iter().any(|x| x.as_str() == Some(t)),
            _ => false,
        };
        let typed = match s.get("type") {
            Some(J::String(_)) => true,
            Some(J::Array(a)) => a.iter().any(J::is_string),
            _ => false,
        };
        if typed {
            let got = match v {
                J::Null => "null",
                J::Bool(_) => "boolean",
                J::Number(_) => "number",
                J::String(_) => "string",
                J::Array(_) => "array",
                J::Object(_) => "object",
            };
            let ok = has_type(got) || (has_type("integer") && super::type_of(v) == "integer");
            if !ok {
                let want: Vec<&str> = [
                    "null", "boolean", "number", "integer", "string", "array", "object",
                ]
                .into_iter()
                .filter(|t| has_type(t))
                .collect();
                return Some(err(loc, format!("got {got}, want {}", want.join(" or "))));
            }
        }
        if self.draft >= 6 {
            if let Some(c) = s.get("const") {
                if !json_equal(c, v) {
                    let msg = match c {
                        J::Array(_) | J::Object(_) => "'const' failed".into(),
                        _ => format!("value must be {}", display(c)),
                    };
                    return Some(err(loc, msg));
                }
            }
        }
        if let Some(J::Array(e)) = s.get("enum") {
            if !e.iter().any(|x| json_equal(x, v)) {
                let msg = if e.iter().any(|x| x.is_array() || x.is_object()) {
                    "'enum' failed".into()
                } else if e.len() == 1 {
                    format!("value must be {}", display(&e[0]))
                } else {
                    let all: Vec<String> = e.iter().map(display).collect();
                    format!("value must be one of {}", all.join(", "))
                };
                return Some(err(loc, msg));
            }
        }
        // A format failure ends this schema's checks, as `type`, `const` and
        // `enum` do.
        if let (true, Some(J::String(f)), J::String(text)) =
            (self.assert_format, s.get("format"), v)
        {
            if let Err(why) = super::format4::check(f, text) {
                return Some(err(loc, format!("{} is not valid {f}: {why}", quote(text))));
            }
        }
        let mut errs = Vec::new();
        if let Some(J::String(rf)) = s.get("$ref") {
            let root = self.root;
            let target = *self
                .targets
                .entry(rf as *const String as usize)
                .or_insert_with(|| resolve(root, rf));
            if let Some(target) = target {
                self.depth += 1;
                let e = self.val(target, v, loc);
                self.depth -= 1;
                let wrapped = e.map(|e| Err4 {
                    loc: loc.path(),
                    aliased: false,
                    kind: Kind::Ref,
                    causes: match e.kind {
                        Kind::Group => e.causes,
                        _ => vec![e],
                    },
                });
                if self.draft < 2019 {
                    return wrapped;
                }
                errs.extend(wrapped);
            }
        }
        match v {
            J::Object(o) => self.object(s, o, loc, &mut errs),
            J::Array(a) => self.array(s, a, loc, &mut errs),
            J::String(t) => self.string(s, t, loc, &mut errs),
            J::Number(n) => self.number(s, n, loc, &mut errs),
            _ => {}
        }
        self.conditions(s, v, loc, &mut errs);
        match errs.len() {
            0 => None,
            1 => errs.pop(),
            _ => Some(Err4 {
                loc: loc.path(),
                aliased: false,
                kind: Kind::Group,
                causes: errs,
            }),
        }
    }

    fn object(
        &mut self,
        s: &Kw<'_>,
        o: &serde_json::Map<String, J>,
        loc: &Loc<'_>,
        errs: &mut Vec<Err4>,
    ) {
        let n = o.len() as u64;
        count_bounds(s, n, ["minProperties", "maxProperties"], loc, errs);
        let missing = |names: &[J]| -> Vec<String> {
            names
                .iter()
                .filter_map(J::as_str)
                .filter(|p| !o.contains_key(*p))
                .map(quote)
                .collect()
        };
        // `dependencies` (list form) and `dependentRequired` fail alike.
        let required_with = |k: &str, names: &[J], errs: &mut Vec<Err4>| {
            let m = missing(names);
            if !m.is_empty() {
                let text = format!(
                    "properties {} required, if {} exists",
                    m.join(", "),
                    quote(k)
                );
                errs.push(err(loc, text));
            }
        };
        if let Some(J::Array(req)) = s.get("required") {
            let m = missing(req);
            match m.len() {
                0 => {}
                1 => errs.push(err(loc, format!("missing property {}", m[0]))),
                _ => errs.push(err(loc, format!("missing properties {}", m.join(", ")))),
            }
        }
        if let Some(J::Object(deps)) = s.get("dependencies") {
            for (k, dep) in deps {
                if !o.contains_key(k) {
                    continue;
                }
                match dep {
                    J::Array(names) => required_with(k, names, errs),
                    dep => {
                        let v = J::Object(o.clone());
                        errs.extend(self.val(dep, &v, loc));
                    }
                }
            }
        }
        let props = s.get("properties").and_then(J::as_object);
        let pattern_props = s.get("patternProperties").and_then(J::as_object);
        let mut extra = Vec::new();
        for (k, x) in o {
            let mut evaluated = false;
            if let Some(ps) = props.and_then(|p| p.get(k)) {
                evaluated = true;
                errs.extend(self.val_at(ps, x, loc, k));
            }
            if let Some(pp) = pattern_props {
                for (pat, ps) in pp {
                    if self.regexes.is_match(pat, k) == Some(true) {
                        evaluated = true;
                        errs.extend(self.val_at(ps, x, loc, k));
                    }
                }
            }
            if !evaluated {
                match s.get("additionalProperties") {
                    Some(J::Bool(false)) => extra.push(quote(k)),
                    Some(ap @ J::Object(_)) => errs.extend(self.val_at(ap, x, loc, k)),
                    _ => {}
                }
            }
        }
        if !extra.is_empty() {
            errs.push(err(
                loc,
                format!("additional properties {} not allowed", extra.join(", ")),
            ));
        }
        if self.draft == 4 {
            return;
        }
        if let Some(names) = s.get("propertyNames") {
            for k in o.keys() {
                // The name is validated as a document of its own: every location
                // in the failure is the root.
                if let Some(e) = self.val(names, &J::String(k.clone()), &Loc::ROOT) {
                    let causes = match e.kind {
                        Kind::Group => e.causes,
                        _ => vec![e],
                    };
                    let mut e = with(loc, &format!("invalid propertyName {}", quote(k)), causes);
                    e.aliased = true;
                    errs.push(e);
                }
            }
        }
        if self.draft < 2019 {
            return;
        }
        if let Some(J::Object(deps)) = s.get("dependentSchemas") {
            for (k, dep) in deps {
                if o.contains_key(k) {
                    let v = J::Object(o.clone());
                    errs.extend(self.val(dep, &v, loc));
                }
            }
        }
        if let Some(J::Object(deps)) = s.get("dependentRequired") {
            for (k, dep) in deps {
                if let (true, J::Array(names)) = (o.contains_key(k), dep) {
                    required_with(k, names, errs);
                }
            }
        }
    }

    fn array(&mut self, s: &Kw<'_>, a: &[J], loc: &Loc<'_>, errs: &mut Vec<Err4>) {
        let n = a.len() as u64;
        count_bounds(s, n, ["minItems", "maxItems"], loc, errs);
        if s.get("uniqueItems") == Some(&J::Bool(true)) {
            let dup = (1..a.len())
                .find_map(|i| (0..i).find(|&j| json_equal(&a[i], &a[j])).map(|j| (j, i)));
            if let Some((j, i)) = dup {
                errs.push(err(loc, format!("items at {j} and {i} are equal")));
            }
        }
        // Items after the positional ones are numbered from 0, as the library does.
        if self.draft < 2020 {
            let mut evaluated = 0;
            match s.get("items") {
                Some(items @ (J::Object(_) | J::Bool(_))) => {
                    for (i, x) in a.iter().enumerate() {
                        errs.extend(self.val_at(items, x, loc, &i.to_string()));
                    }
                    evaluated = a.len();
                }
                Some(J::Array(tuple)) => {
                    for (i, (x, sch)) in a.iter().zip(tuple).enumerate() {
                        errs.extend(self.val_at(sch, x, loc, &i.to_string()));
                    }
                    evaluated = tuple.len().min(a.len());
                }
                _ => {}
            }
            match s.get("additionalItems") {
                Some(J::Bool(false)) if evaluated != a.len() => errs.push(err(
                    loc,
                    format!("last {} additionalItem(s) not allowed", a.len() - evaluated),
                )),
                Some(extra @ J::Object(_)) => {
                    for (i, x) in a[evaluated..].iter().enumerate() {
                        errs.extend(self.val_at(extra, x, loc, &i.to_string()));
                    }
                }
                _ => {}
            }
        } else {
            let prefix = s.get("prefixItems").and_then(J::as_array);
            let evaluated = prefix.map_or(0, |p| p.len().min(a.len()));
            if let Some(p) = prefix {
                for (i, (x, sch)) in a.iter().zip(p).enumerate() {
                    errs.extend(self.val_at(sch, x, loc, &i.to_string()));
                }
            }
            if let Some(items @ (J::Object(_) | J::Bool(_))) = s.get("items") {
                for (i, x) in a[evaluated..].iter().enumerate() {
                    errs.extend(self.val_at(items, x, loc, &i.to_string()));
                }
            }
        }
        if self.draft >= 6 {
            if let Some(c) = s.get("contains") {
                let mut failed = Vec::new();
                let mut matched = Vec::new();
                for (i, x) in a.iter().enumerate() {
                    match self.val_at(c, x, loc, &i.to_string()) {
                        Some(e) => failed.push(e),
                        None => matched.push(i),
                    }
                }
                let list = |m: &[usize]| {
                    m.iter()
                        .map(|i| i.to_string())
                        .collect::<Vec<_>>()
                        .join(" ")
                };
                let min = if self.draft >= 2019 {
                    count(s.get("minContains"))
                } else {
                    None
                };
                let max = if self.draft >= 2019 {
                    count(s.get("maxContains"))
                } else {
                    None
                };
                match min {
                    Some(w) if (matched.len() as u64) < w => {
                        let msg = if matched.is_empty() {
                            format!(
                                "min {w} items required to match contains schema, but none matched"
                            )
                        } else {
                            format!(
                                "min {w} items required to match contains schema, but matched {} items at {}",
                                matched.len(),
                                list(&matched)
                            )
                        };
                        errs.push(with(loc, &msg, failed));
                    }
                    Some(_) => {}
                    None if matched.is_empty() => {
                        errs.push(with(loc, "no items match contains schema", failed))
                    }
                    None => {}
                }
                if let Some(w) = max.filter(|w| matched.len() as u64 > *w) {
                    errs.push(err(
                        loc,
                        format!(
                            "max {w} items required to match contains schema, but matched {} items at {}",
                            matched.len(),
                            list(&matched)
                        ),
                    ));
                }
            }
        }
    }

    fn string(&mut self, s: &Kw<'_>, t: &str, loc: &Loc<'_>, errs: &mut Vec<Err4>) {
        let len = t.chars().count() as u64;
        count_bounds(s, len, ["minLength", "maxLength"], loc, errs);
        if let Some(J::String(p)) = s.get("pattern") {
            if self.regexes.is_match(p, t) == Some(false) {
                errs.push(err(
                    loc,
                    format!("{} does not match pattern {}", quote(t), quote(p)),
                ));
            }
        }
    }

    fn number(&mut self, s: &Kw<'_>, n: &serde_json::Number, loc: &Loc<'_>, errs: &mut Vec<Err4>) {
        let x = n.as_f64().unwrap_or(0.0);
        let plain = |k: &str| s.get(k).and_then(J::as_f64);
        // Draft-04's boolean `exclusiveMinimum` makes `minimum` exclusive.
        let (min, xmin) = match s.get("exclusiveMinimum") {
            Some(J::Bool(true)) => (None, plain("minimum")),
            Some(J::Number(e)) => (plain("minimum"), e.as_f64()),
            _ => (plain("minimum"), None),
        };
        let (max, xmax) = match s.get("exclusiveMaximum") {
            Some(J::Bool(true)) => (None, plain("maximum")),
            Some(J::Number(e)) => (plain("maximum"), e.as_f64()),
            _ => (plain("maximum"), None),
        };
        let got = pfloat(x);
        if let Some(m) = min.filter(|m| x < *m) {
            errs.push(err(loc, format!("minimum: got {got}, want {}", pfloat(m))));
        }
        if let Some(m) = max.filter(|m| x > *m) {
            errs.push(err(loc, format!("maximum: got {got}, want {}", pfloat(m))));
        }
        if let Some(m) = xmin.filter(|m| x <= *m) {
            errs.push(err(
                loc,
                format!("exclusiveMinimum: got {got}, want {}", pfloat(m)),
            ));
        }
        if let Some(m) = xmax.filter(|m| x >= *m) {
            errs.push(err(
                loc,
                format!("exclusiveMaximum: got {got}, want {}", pfloat(m)),
            ));
        }
        if let Some(J::Number(m)) = s.get("multipleOf") {
            if !is_multiple(n, m) {
                errs.push(err(
                    loc,
                    format!(
                        "multipleOf: got {got}, want {}",
                        pfloat(m.as_f64().unwrap_or(0.0))
                    ),
                ));
            }
        }
    }

    fn conditions(&mut self, s: &Kw<'_>, v: &J, loc: &Loc<'_>, errs: &mut Vec<Err4>) {
        if let Some(not) = s.get("not") {
            if self.val(not, v, loc).is_none() {
                errs.push(err(loc, "'not' failed".into()));
            }
        }
        if let Some(J::Array(all)) = s.get("allOf") {
            let failed: Vec<Err4> = all.iter().filter_map(|sub| self.val(sub, v, loc)).collect();
            if !failed.is_empty() {
                errs.push(with(loc, "'allOf' failed", failed));
            }
        }
        if let Some(J::Array(any)) = s
            .get("anyOf")
            .filter(|a| !a.as_array().is_some_and(Vec::is_empty))
        {
            let mut failed = Vec::new();
            let mut matched = false;
            for sub in any {
                match self.val(sub, v, loc) {
                    Some(e) => failed.push(e),
                    None => {
                        matched = true;
                        break;
                    }
                }
            }
            if !matched {
                errs.push(with(loc, "'anyOf' failed", failed));
            }
        }
        if let Some(J::Array(one)) = s
            .get("oneOf")
            .filter(|a| !a.as_array().is_some_and(Vec::is_empty))
        {
            let mut failed = Vec::new();
            let mut matched: Option<usize> = None;
            for (i, sub) in one.iter().enumerate() {
                match (self.val(sub, v, loc), matched) {
                    (Some(e), None) => failed.push(e),
                    (Some(_), Some(_)) => {}
                    (None, None) => matched = Some(i),
                    (None, Some(first)) => {
                        errs.push(err(
                            loc,
                            format!("'oneOf' failed, subschemas {first}, {i} matched"),
                        ));
                        break;
                    }
                }
            }
            if matched.is_none() {
                errs.push(with(loc, "'oneOf' failed, none matched", failed));
            }
        }
        if let Some(cond) = s.get("if").filter(|_| self.draft >= 7) {
            let branch = if self.val(cond, v, loc).is_none() {
                s.get("then")
            } else {
                s.get("else")
            };
            if let Some(b) = branch {
                errs.extend(self.val(b, v, loc));
            }
        }
    }
}
