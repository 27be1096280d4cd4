//! Helm 4's wording and order: a walk shaped like santhosh-tekuri/jsonschema's.
//!
//! Per schema node: `type`, `const`, `enum` stop at their first failure; `$ref`
//! (alone before 2019-09, alongside its siblings after); then the keywords of the
//! instance's type; then `not`, `allOf`, `anyOf`, `oneOf`, `if`. A node with one
//! failure reports it; with several, a group whose members Helm prints indented.
//! Combinators nest the failures of every branch under their own line.

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

fn err(loc: &[String], text: String) -> Err4 {
    Err4 {
        loc: loc.to_vec(),
        aliased: false,
        kind: Kind::Text(text),
        causes: Vec::new(),
    }
}

fn with(loc: &[String], text: &str, causes: Vec<Err4>) -> Err4 {
    Err4 {
        loc: loc.to_vec(),
        aliased: false,
        kind: Kind::Text(text.to_string()),
        causes,
    }
}

/// Capacity of the library's instance-path buffer: locations up to this deep are
/// all slices of one shared array.
const SHARED: usize = 8;

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
fn count_bounds(
    s: &serde_json::Map<String, J>,
    n: u64,
    [min, max]: [&str; 2],
    loc: &[String],
    errs: &mut Vec<Err4>,
) {
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
    let mut v = V4 {
        slots: vec![String::new(); SHARED],
        root: schema,
        draft,
        regexes: Regexes::default(),
        depth: 0,
    };
    let Some(e) = v.val(schema, doc, &[]) else {
        return Ok(());
    };
    let path = first_leaf(&e).loc.clone();
    let top = match e.kind {
        Kind::Group => e.causes,
        _ => vec![e],
    };
    let mut text = String::new();
    for c in &top {
        render(c, 0, &v.slots, &mut text);
    }
    Err((text, path))
}

impl V4<'_> {
    /// The location of a child value. The library appends the token to its
    /// parent's path buffer in place while the buffer has room, so siblings and
    /// cousins overwrite each other's slots; errors copy the path, except
    /// `propertyNames`' which keeps the buffer and so shows whatever was written
    /// there last. Recorded here for those.
    fn at(&mut self, loc: &[String], k: &str) -> Vec<String> {
        if let Some(slot) = self.slots.get_mut(loc.len()) {
            *slot = k.to_string();
        }
        let mut p = loc.to_vec();
        p.push(k.to_string());
        p
    }

    fn val_at(&mut self, schema: &J, v: &J, loc: &[String], k: &str) -> Option<Err4> {
        let l = self.at(loc, k);
        self.val(schema, v, &l)
    }

    fn val(&mut self, schema: &J, v: &J, loc: &[String]) -> Option<Err4> {
        let s = match schema {
            J::Bool(true) => return None,
            J::Bool(false) => return Some(err(loc, "false schema".into())),
            J::Object(o) => o,
            _ => return None,
        };
        if self.depth > 64 {
            return None;
        }
        let types: Vec<&str> = match s.get("type") {
            Some(J::String(t)) => vec![t.as_str()],
            Some(J::Array(a)) => a.iter().filter_map(J::as_str).collect(),
            _ => Vec::new(),
        };
        if !types.is_empty() {
            let got = match v {
                J::Null => "null",
                J::Bool(_) => "boolean",
                J::Number(_) => "number",
                J::String(_) => "string",
                J::Array(_) => "array",
                J::Object(_) => "object",
            };
            let ok = types.contains(&got)
                || (types.contains(&"integer") && super::type_of(v) == "integer");
            if !ok {
                let want: Vec<&str> = [
                    "null", "boolean", "number", "integer", "string", "array", "object",
                ]
                .into_iter()
                .filter(|t| types.contains(t))
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
        // Drafts before 2019-09 make `format` an assertion; a failure ends this
        // schema's checks, as `type`, `const` and `enum` do.
        if let (true, Some(J::String(f)), J::String(text)) = (self.draft < 2019, s.get("format"), v)
        {
            if let Err(why) = super::format4::check(f, text) {
                return Some(err(loc, format!("{} is not valid {f}: {why}", quote(text))));
            }
        }
        let mut errs = Vec::new();
        if let Some(J::String(rf)) = s.get("$ref") {
            if let Some(target) = resolve(self.root, rf) {
                self.depth += 1;
                let e = self.val(target, v, loc);
                self.depth -= 1;
                let wrapped = e.map(|e| Err4 {
                    loc: loc.to_vec(),
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
                loc: loc.to_vec(),
                aliased: false,
                kind: Kind::Group,
                causes: errs,
            }),
        }
    }

    fn object(
        &mut self,
        s: &serde_json::Map<String, J>,
        o: &serde_json::Map<String, J>,
        loc: &[String],
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
                if let Some(e) = self.val(names, &J::String(k.clone()), &[]) {
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

    fn array(
        &mut self,
        s: &serde_json::Map<String, J>,
        a: &[J],
        loc: &[String],
        errs: &mut Vec<Err4>,
    ) {
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

    fn string(
        &mut self,
        s: &serde_json::Map<String, J>,
        t: &str,
        loc: &[String],
        errs: &mut Vec<Err4>,
    ) {
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

    fn number(
        &mut self,
        s: &serde_json::Map<String, J>,
        n: &serde_json::Number,
        loc: &[String],
        errs: &mut Vec<Err4>,
    ) {
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

    fn conditions(
        &mut self,
        s: &serde_json::Map<String, J>,
        v: &J,
        loc: &[String],
        errs: &mut Vec<Err4>,
    ) {
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
