//! The functions helmfile 0.166 hands to HCL expressions (`hcllang.HCLFunctions`:
//! the go-cty stdlib set plus `try`/`can`, which `super` evaluates itself), with the
//! go-cty semantics that show in values: `coalesce` skips only nulls, sets come out
//! sorted, `jsonencode` sorts keys and escapes like Go's `encoding/json`.
//!
//! One function and one [`TABLE`] line each.

use crate::funcs::regex::GoRegex;
use hcl::eval::{Context, FuncArgs, FuncDef, ParamType};
use hcl::{Map, Number, Value};

type F = fn(FuncArgs) -> Result<Value, String>;

const TABLE: &[(&str, F)] = &[
    ("abs", abs),
    ("ceil", ceil),
    ("chomp", chomp),
    ("coalesce", coalesce),
    ("coalescelist", coalescelist),
    ("compact", compact),
    ("concat", concat),
    ("csvdecode", csvdecode),
    ("contains", contains),
    ("distinct", distinct),
    ("element", element),
    ("chunklist", chunklist),
    ("flatten", flatten),
    ("floor", floor),
    ("format", format),
    ("formatdate", formatdate),
    ("formatlist", formatlist),
    ("indent", indent),
    ("int", int),
    ("join", join),
    ("jsondecode", jsondecode),
    ("jsonencode", jsonencode),
    ("keys", keys),
    ("length", length),
    ("log", log),
    ("lookup", lookup),
    ("lower", lower),
    ("max", max),
    ("merge", merge),
    ("min", min),
    ("parseint", parseint),
    ("pow", pow),
    ("range", range),
    ("regex", regex),
    ("regexall", regexall),
    ("reverselist", reverselist),
    ("setintersection", setintersection),
    ("setproduct", setproduct),
    ("setsubtract", setsubtract),
    ("setunion", setunion),
    ("signum", signum),
    ("slice", slice),
    ("sort", sort),
    ("split", split),
    ("strrev", strrev),
    ("strlen", strlen),
    ("substr", substr),
    ("timeadd", timeadd),
    ("title", title),
    ("trim", trim),
    ("trimprefix", trimprefix),
    ("trimspace", trimspace),
    ("trimsuffix", trimsuffix),
    ("upper", upper),
    ("values", values),
    ("yamldecode", yamldecode),
    ("yamlencode", yamlencode),
    ("zipmap", zipmap),
];

fn unsupported_here(_: FuncArgs) -> Result<Value, String> {
    Err(
        "stackproof evaluates try() and can() only outside for expressions and string templates"
            .into(),
    )
}

/// A context with every function declared.
pub fn context<'a>() -> Context<'a> {
    let mut ctx = Context::new();
    let def = |f: F| FuncDef::builder().variadic_param(ParamType::Any).build(f);
    for (name, f) in TABLE {
        ctx.declare_func(*name, def(*f));
    }
    ctx.declare_func("try", def(unsupported_here));
    ctx.declare_func("can", def(unsupported_here));
    ctx
}

// ---- argument helpers -------------------------------------------------------

fn arity(a: &FuncArgs, n: usize) -> Result<(), String> {
    if a.len() != n {
        return Err(format!("expects {n} argument(s), got {}", a.len()));
    }
    Ok(())
}

fn s(a: &FuncArgs, i: usize) -> Result<String, String> {
    match a.get(i) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(Value::Number(n)) => Ok(n.to_string()),
        Some(Value::Bool(b)) => Ok(b.to_string()),
        Some(v) => Err(format!(
            "argument {}: a string is required, got {}",
            i + 1,
            json(v)
        )),
        None => Err(format!("missing argument {}", i + 1)),
    }
}

fn n(a: &FuncArgs, i: usize) -> Result<f64, String> {
    match a.get(i) {
        Some(Value::Number(n)) => n.as_f64().ok_or_else(|| "invalid number".to_string()),
        Some(Value::String(s)) => s
            .parse::<f64>()
            .map_err(|_| format!("argument {}: a number is required", i + 1)),
        Some(v) => Err(format!(
            "argument {}: a number is required, got {}",
            i + 1,
            json(v)
        )),
        None => Err(format!("missing argument {}", i + 1)),
    }
}

fn list(a: &FuncArgs, i: usize) -> Result<Vec<Value>, String> {
    match a.get(i) {
        Some(Value::Array(l)) => Ok(l.clone()),
        Some(v) => Err(format!(
            "argument {}: a list is required, got {}",
            i + 1,
            json(v)
        )),
        None => Err(format!("missing argument {}", i + 1)),
    }
}

fn obj(a: &FuncArgs, i: usize) -> Result<Map<String, Value>, String> {
    match a.get(i) {
        Some(Value::Object(m)) => Ok(m.clone()),
        Some(v) => Err(format!(
            "argument {}: a map or object is required, got {}",
            i + 1,
            json(v)
        )),
        None => Err(format!("missing argument {}", i + 1)),
    }
}

/// A number as cty shows it: integral values as integers.
fn num(f: f64) -> Result<Value, String> {
    if f.is_finite() && f.fract() == 0.0 && f.abs() < 9.0e15 {
        return Ok(Value::Number(Number::from(f as i64)));
    }
    Number::from_f64(f)
        .map(Value::Number)
        .ok_or_else(|| "the result is not a finite number".to_string())
}

fn str_fn(a: FuncArgs, f: fn(&str) -> String) -> Result<Value, String> {
    arity(&a, 1)?;
    Ok(Value::String(f(&s(&a, 0)?)))
}

// ---- numbers ----------------------------------------------------------------

fn abs(a: FuncArgs) -> Result<Value, String> {
    arity(&a, 1)?;
    num(n(&a, 0)?.abs())
}
fn ceil(a: FuncArgs) -> Result<Value, String> {
    arity(&a, 1)?;
    num(n(&a, 0)?.ceil())
}
fn floor(a: FuncArgs) -> Result<Value, String> {
    arity(&a, 1)?;
    num(n(&a, 0)?.floor())
}
fn signum(a: FuncArgs) -> Result<Value, String> {
    arity(&a, 1)?;
    let x = n(&a, 0)?;
    num(if x > 0.0 {
        1.0
    } else if x < 0.0 {
        -1.0
    } else {
        0.0
    })
}
fn int(a: FuncArgs) -> Result<Value, String> {
    arity(&a, 1)?;
    num(n(&a, 0)?.trunc())
}
fn pow(a: FuncArgs) -> Result<Value, String> {
    arity(&a, 2)?;
    num(n(&a, 0)?.powf(n(&a, 1)?))
}
fn log(a: FuncArgs) -> Result<Value, String> {
    arity(&a, 2)?;
    num(n(&a, 0)?.ln() / n(&a, 1)?.ln())
}
fn max(a: FuncArgs) -> Result<Value, String> {
    if a.is_empty() {
        return Err("must pass at least one number".into());
    }
    let mut m = f64::NEG_INFINITY;
    for i in 0..a.len() {
        m = m.max(n(&a, i)?);
    }
    num(m)
}
fn min(a: FuncArgs) -> Result<Value, String> {
    if a.is_empty() {
        return Err("must pass at least one number".into());
    }
    let mut m = f64::INFINITY;
    for i in 0..a.len() {
        m = m.min(n(&a, i)?);
    }
    num(m)
}
fn parseint(a: FuncArgs) -> Result<Value, String> {
    arity(&a, 2)?;
    let text = s(&a, 0)?;
    let base = n(&a, 1)? as u32;
    if !(2..=62).contains(&base) {
        return Err("base must be a whole number between 2 and 62 inclusive".into());
    }
    if base > 36 {
        // cty accepts up to 62 (digits, then a-z, then A-Z); not written yet.
        return Err(format!(
            "stackproof does not parse base {base} integers yet"
        ));
    }
    let (neg, digits) = match text.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, text.strip_prefix('+').unwrap_or(&text)),
    };
    let v = i64::from_str_radix(digits, base)
        .map_err(|_| format!("cannot parse {text:?} as a base {base} integer"))?;
    num(if neg { -(v as f64) } else { v as f64 })
}
fn range(a: FuncArgs) -> Result<Value, String> {
    let (start, end, step) = match a.len() {
        1 => (0.0, n(&a, 0)?, 1.0),
        2 => {
            let (x, y) = (n(&a, 0)?, n(&a, 1)?);
            (x, y, if y < x { -1.0 } else { 1.0 })
        }
        3 => (n(&a, 0)?, n(&a, 1)?, n(&a, 2)?),
        _ => return Err("must have one, two, or three arguments".into()),
    };
    if step == 0.0 {
        return Err("step must not be zero".into());
    }
    let mut out = Vec::new();
    let mut x = start;
    while (step > 0.0 && x < end) || (step < 0.0 && x > end) {
        if out.len() >= 1024 {
            return Err("more than 1024 values were generated; either decrease the difference between start and end or use a smaller step".into());
        }
        out.push(num(x)?);
        x += step;
    }
    Ok(Value::Array(out))
}

// ---- strings ----------------------------------------------------------------

/// Go's `strings.ToUpper`/`ToLower` map rune by rune: a letter whose case mapping
/// is several characters (`ß` → `SS`) stays as it is.
fn map_runes(x: &str, f: fn(char) -> Vec<char>) -> String {
    x.chars()
        .map(|c| match f(c).as_slice() {
            [one] => *one,
            _ => c,
        })
        .collect()
}
fn upper(a: FuncArgs) -> Result<Value, String> {
    str_fn(a, |x| map_runes(x, |c| c.to_uppercase().collect()))
}
fn lower(a: FuncArgs) -> Result<Value, String> {
    str_fn(a, |x| map_runes(x, |c| c.to_lowercase().collect()))
}
fn strrev(a: FuncArgs) -> Result<Value, String> {
    str_fn(a, |x| x.chars().rev().collect())
}
fn trimspace(a: FuncArgs) -> Result<Value, String> {
    str_fn(a, |x| x.trim().to_string())
}
fn chomp(a: FuncArgs) -> Result<Value, String> {
    str_fn(a, |x| {
        let t = x.trim_end_matches(['\n', '\r']);
        t.to_string()
    })
}
fn title(a: FuncArgs) -> Result<Value, String> {
    str_fn(a, |x| {
        let mut out = String::new();
        let mut prev_letter = false;
        for c in x.chars() {
            if !prev_letter && c.is_alphabetic() {
                out.extend(c.to_uppercase());
            } else {
                out.push(c);
            }
            prev_letter = c.is_alphanumeric() || c == '_' || c == '\'';
        }
        out
    })
}
fn strlen(a: FuncArgs) -> Result<Value, String> {
    arity(&a, 1)?;
    num(s(&a, 0)?.chars().count() as f64)
}
fn trim(a: FuncArgs) -> Result<Value, String> {
    arity(&a, 2)?;
    let cut: Vec<char> = s(&a, 1)?.chars().collect();
    Ok(Value::String(
        s(&a, 0)?.trim_matches(cut.as_slice()).to_string(),
    ))
}
fn trimprefix(a: FuncArgs) -> Result<Value, String> {
    arity(&a, 2)?;
    let (x, p) = (s(&a, 0)?, s(&a, 1)?);
    Ok(Value::String(
        x.strip_prefix(p.as_str()).unwrap_or(&x).to_string(),
    ))
}
fn trimsuffix(a: FuncArgs) -> Result<Value, String> {
    arity(&a, 2)?;
    let (x, p) = (s(&a, 0)?, s(&a, 1)?);
    Ok(Value::String(
        x.strip_suffix(p.as_str()).unwrap_or(&x).to_string(),
    ))
}
fn substr(a: FuncArgs) -> Result<Value, String> {
    arity(&a, 3)?;
    let chars: Vec<char> = s(&a, 0)?.chars().collect();
    let len = chars.len() as i64;
    let mut off = n(&a, 1)? as i64;
    let mut cnt = n(&a, 2)? as i64;
    if off < 0 {
        off += len;
    }
    if off < 0 || off > len {
        return Ok(Value::String(String::new()));
    }
    if cnt < 0 || off + cnt > len {
        cnt = len - off;
    }
    Ok(Value::String(
        chars[off as usize..(off + cnt) as usize].iter().collect(),
    ))
}
fn indent(a: FuncArgs) -> Result<Value, String> {
    arity(&a, 2)?;
    let width = n(&a, 0)?.max(0.0);
    if width > 65536.0 {
        return Err("the number of spaces is too large".into());
    }
    let pad = " ".repeat(width as usize);
    let text = s(&a, 1)?;
    Ok(Value::String(text.replace('\n', &format!("\n{pad}"))))
}
fn split(a: FuncArgs) -> Result<Value, String> {
    arity(&a, 2)?;
    let (sep, x) = (s(&a, 0)?, s(&a, 1)?);
    let parts: Vec<Value> = if sep.is_empty() {
        x.chars().map(|c| Value::String(c.to_string())).collect()
    } else {
        x.split(sep.as_str())
            .map(|p| Value::String(p.into()))
            .collect()
    };
    Ok(Value::Array(parts))
}
fn join(a: FuncArgs) -> Result<Value, String> {
    if a.len() < 2 {
        return Err("expects a separator and at least one list".into());
    }
    let sep = s(&a, 0)?;
    let mut parts = Vec::new();
    for i in 1..a.len() {
        for v in list(&a, i)? {
            match v {
                Value::String(x) => parts.push(x),
                Value::Number(x) => parts.push(x.to_string()),
                Value::Bool(x) => parts.push(x.to_string()),
                other => return Err(format!("element {} is not a string", json(&other))),
            }
        }
    }
    Ok(Value::String(parts.join(&sep)))
}

/// cty's `format`: `%[flags][width][.precision]verb`. Numbers go through Go's own
/// `fmt` (as cty formats its big numbers with it), `%v` shows collections as JSON.
fn format(a: FuncArgs) -> Result<Value, String> {
    let spec = s(&a, 0)?;
    Ok(Value::String(format_with(&spec, &a[1..])?))
}

fn format_with(spec: &str, args: &[Value]) -> Result<String, String> {
    use crate::template::fmt::sprintf;
    use crate::template::Value as Go;
    let mut out = String::new();
    let mut next = 0;
    let mut chars = spec.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let mut flags = String::new();
        while let Some(&f) = chars.peek().filter(|f| "+- #0".contains(**f)) {
            flags.push(f);
            chars.next();
        }
        let mut width = String::new();
        while let Some(&d) = chars.peek().filter(|d| d.is_ascii_digit()) {
            width.push(d);
            chars.next();
        }
        let mut prec = String::new();
        if chars.peek() == Some(&'.') {
            chars.next();
            prec.push('.');
            while let Some(&d) = chars.peek().filter(|d| d.is_ascii_digit()) {
                prec.push(d);
                chars.next();
            }
        }
        let verb = chars.next().ok_or("unterminated format verb")?;
        let too_wide = |d: &str| {
            d.trim_start_matches('.')
                .parse::<u32>()
                .map_or(!d.trim_start_matches('.').is_empty(), |w| w > 65536)
        };
        if too_wide(&width) || too_wide(&prec) {
            return Err("format width or precision too large".into());
        }
        if verb == '%' {
            out.push('%');
            continue;
        }
        let arg = args
            .get(next)
            .ok_or_else(|| format!("not enough arguments for \"%{verb}\""))?;
        next += 1;
        let gospec = format!("%{flags}{width}{prec}{verb}");
        let text = match (verb, arg) {
            ('d' | 'b' | 'o' | 'x' | 'X', Value::Number(x)) => {
                let f = x.as_f64().unwrap_or(0.0);
                if f.fract() != 0.0 {
                    return Err(format!(
                        "unsupported value for \"%{verb}\" at {next}: value must be a whole number"
                    ));
                }
                sprintf(
                    &gospec,
                    &[Go::Int(f as i64, crate::template::IntType::Int64)],
                )
            }
            ('e' | 'E' | 'f' | 'F' | 'g' | 'G', Value::Number(x)) => {
                sprintf(&gospec, &[Go::Float(x.as_f64().unwrap_or(0.0))])
            }
            ('t', Value::Bool(b)) => sprintf(&gospec, &[Go::Bool(*b)]),
            ('s' | 'q', v) => {
                let text = match v {
                    Value::String(x) => x.clone(),
                    Value::Number(_) => json(v),
                    Value::Bool(b) => b.to_string(),
                    other => {
                        return Err(format!(
                            "unsupported value for \"%{verb}\" at {next}: string required, got {}",
                            json(other)
                        ))
                    }
                };
                sprintf(&gospec, &[Go::String(text.as_str().into())])
            }
            ('v', v) => {
                let text = match v {
                    _ if flags.contains('#') => json(v),
                    Value::String(x) => x.clone(),
                    Value::Null => "null".to_string(),
                    other => json(other),
                };
                let flags: String = flags.chars().filter(|c| *c != '#').collect();
                sprintf(
                    &format!("%{flags}{width}{prec}s"),
                    &[Go::String(text.as_str().into())],
                )
            }
            (v, other) => {
                return Err(format!(
                    "unsupported value for \"%{v}\" at {next}: {}",
                    json(other)
                ))
            }
        };
        out.push_str(&text);
    }
    if next < args.len() {
        return Err(format!(
            "too many arguments; only {next} used by format string"
        ));
    }
    Ok(out)
}

/// `formatlist`: `format` once per element, lists walked in step, scalars repeated.
fn formatlist(a: FuncArgs) -> Result<Value, String> {
    let spec = s(&a, 0)?;
    let mut len: Option<usize> = None;
    for v in &a[1..] {
        if let Value::Array(l) = v {
            if len.is_some_and(|n| n != l.len()) {
                return Err("all list arguments must have the same length".into());
            }
            len = Some(l.len());
        }
    }
    let n = len.unwrap_or(1);
    let mut out = Vec::new();
    for i in 0..n {
        let row: Vec<Value> = a[1..]
            .iter()
            .map(|v| match v {
                Value::Array(l) => l[i].clone(),
                other => other.clone(),
            })
            .collect();
        out.push(Value::String(format_with(&spec, &row)?));
    }
    Ok(Value::Array(out))
}

/// One match of `regex`: the match without groups, a list of groups, or an object
/// of named groups; unmatched groups are null.
fn regex_match(re: &GoRegex, groups: &[Option<&str>]) -> Value {
    let group = |i: usize| {
        groups
            .get(i)
            .copied()
            .flatten()
            .map_or(Value::Null, |m| Value::String(m.into()))
    };
    let names = &re.group_names()[1..];
    if names.is_empty() {
        return group(0);
    }
    if names.iter().all(|n| !n.is_empty()) {
        let mut out = Map::new();
        for (i, n) in names.iter().enumerate() {
            out.insert(n.clone(), group(i + 1));
        }
        return Value::Object(out);
    }
    Value::Array((1..=names.len()).map(group).collect())
}
/// Go's `regexp.Compile`, failing with cty's words (the syntax error's code and
/// expression, not Go's whole message).
fn compile(a: &FuncArgs) -> Result<GoRegex, String> {
    let pat = s(a, 0)?;
    GoRegex::compile(&pat).map_err(|e| format!("invalid regexp pattern: {} in {}", e.code, e.expr))
}
fn regex(a: FuncArgs) -> Result<Value, String> {
    arity(&a, 2)?;
    let re = compile(&a)?;
    let text = s(&a, 1)?;
    match re.submatch(&text) {
        Some(g) => Ok(regex_match(&re, &g)),
        None => Err("pattern did not match any part of the given string".into()),
    }
}
fn regexall(a: FuncArgs) -> Result<Value, String> {
    arity(&a, 2)?;
    let re = compile(&a)?;
    let text = s(&a, 1)?;
    Ok(Value::Array(
        re.submatch_all(&text)
            .iter()
            .map(|g| regex_match(&re, g))
            .collect(),
    ))
}
fn setproduct(a: FuncArgs) -> Result<Value, String> {
    if a.len() < 2 {
        return Err("at least two arguments are required".into());
    }
    let mut rows: Vec<Vec<Value>> = vec![Vec::new()];
    for i in 0..a.len() {
        let l = list(&a, i)?;
        let mut next = Vec::new();
        for row in &rows {
            for v in &l {
                let mut r = row.clone();
                r.push(v.clone());
                next.push(r);
            }
        }
        rows = next;
    }
    Ok(Value::Array(rows.into_iter().map(Value::Array).collect()))
}

// ---- collections ------------------------------------------------------------

fn length(a: FuncArgs) -> Result<Value, String> {
    arity(&a, 1)?;
    let len = match &a[0] {
        Value::Array(l) => l.len(),
        Value::Object(m) => m.len(),
        _ => return Err("collection must be a list, a map or a tuple".into()),
    };
    num(len as f64)
}
fn coalesce(a: FuncArgs) -> Result<Value, String> {
    a.iter()
        .find(|v| !v.is_null())
        .cloned()
        .ok_or_else(|| "no non-null arguments".to_string())
}
fn coalescelist(a: FuncArgs) -> Result<Value, String> {
    for v in a.iter() {
        if let Value::Array(l) = v {
            if !l.is_empty() {
                return Ok(v.clone());
            }
        }
    }
    Err("no non-null arguments".into())
}
fn compact(a: FuncArgs) -> Result<Value, String> {
    arity(&a, 1)?;
    Ok(Value::Array(
        list(&a, 0)?
            .into_iter()
            .filter(|v| !matches!(v, Value::Null) && !matches!(v, Value::String(x) if x.is_empty()))
            .collect(),
    ))
}
fn concat(a: FuncArgs) -> Result<Value, String> {
    let mut out = Vec::new();
    for i in 0..a.len() {
        out.extend(list(&a, i)?);
    }
    Ok(Value::Array(out))
}
fn contains(a: FuncArgs) -> Result<Value, String> {
    arity(&a, 2)?;
    Ok(Value::Bool(list(&a, 0)?.contains(&a[1])))
}
fn distinct(a: FuncArgs) -> Result<Value, String> {
    arity(&a, 1)?;
    let mut out: Vec<Value> = Vec::new();
    for v in list(&a, 0)? {
        if !out.contains(&v) {
            out.push(v);
        }
    }
    Ok(Value::Array(out))
}
fn element(a: FuncArgs) -> Result<Value, String> {
    arity(&a, 2)?;
    let l = list(&a, 0)?;
    if l.is_empty() {
        return Err("cannot use element function with an empty list".into());
    }
    let i = n(&a, 1)?;
    if i < 0.0 {
        return Err("cannot use element function with a negative index".into());
    }
    Ok(l[i as usize % l.len()].clone())
}
fn chunklist(a: FuncArgs) -> Result<Value, String> {
    arity(&a, 2)?;
    let l = list(&a, 0)?;
    let size = n(&a, 1)?;
    if size < 0.0 {
        return Err("the size argument must be positive".into());
    }
    if size < 1.0 {
        return Ok(Value::Array(vec![Value::Array(l)]));
    }
    Ok(Value::Array(
        l.chunks(size as usize)
            .map(|c| Value::Array(c.to_vec()))
            .collect(),
    ))
}
fn flatten_into(v: Vec<Value>, out: &mut Vec<Value>) {
    for x in v {
        match x {
            Value::Array(inner) => flatten_into(inner, out),
            other => out.push(other),
        }
    }
}
fn flatten(a: FuncArgs) -> Result<Value, String> {
    arity(&a, 1)?;
    let mut out = Vec::new();
    flatten_into(list(&a, 0)?, &mut out);
    Ok(Value::Array(out))
}
fn keys(a: FuncArgs) -> Result<Value, String> {
    arity(&a, 1)?;
    let mut k: Vec<String> = obj(&a, 0)?.keys().cloned().collect();
    k.sort();
    Ok(Value::Array(k.into_iter().map(Value::String).collect()))
}
fn values(a: FuncArgs) -> Result<Value, String> {
    arity(&a, 1)?;
    let m = obj(&a, 0)?;
    let mut k: Vec<&String> = m.keys().collect();
    k.sort();
    Ok(Value::Array(
        k.into_iter().filter_map(|k| m.get(k).cloned()).collect(),
    ))
}
fn lookup(a: FuncArgs) -> Result<Value, String> {
    if a.len() != 3 {
        return Err("expects 3 arguments: a map, a key and a default".into());
    }
    let m = obj(&a, 0)?;
    Ok(m.get(&s(&a, 1)?).cloned().unwrap_or_else(|| a[2].clone()))
}
fn merge(a: FuncArgs) -> Result<Value, String> {
    let mut out = Map::new();
    for (i, v) in a.iter().enumerate() {
        if v.is_null() {
            continue;
        }
        for (k, x) in obj(&a, i)? {
            out.insert(k, x);
        }
    }
    Ok(Value::Object(out))
}
fn reverselist(a: FuncArgs) -> Result<Value, String> {
    arity(&a, 1)?;
    let mut l = list(&a, 0)?;
    l.reverse();
    Ok(Value::Array(l))
}
fn slice(a: FuncArgs) -> Result<Value, String> {
    arity(&a, 3)?;
    let l = list(&a, 0)?;
    let (from, to) = (n(&a, 1)?, n(&a, 2)?);
    if from < 0.0 || to > l.len() as f64 || from > to {
        return Err("invalid slice indices".into());
    }
    Ok(Value::Array(l[from as usize..to as usize].to_vec()))
}
fn sort(a: FuncArgs) -> Result<Value, String> {
    arity(&a, 1)?;
    let mut strs = Vec::new();
    for v in list(&a, 0)? {
        match v {
            Value::String(x) => strs.push(x),
            Value::Number(x) => strs.push(x.to_string()),
            other => {
                return Err(format!(
                    "given list element {} is not a string",
                    json(&other)
                ))
            }
        }
    }
    strs.sort();
    Ok(Value::Array(strs.into_iter().map(Value::String).collect()))
}
fn zipmap(a: FuncArgs) -> Result<Value, String> {
    arity(&a, 2)?;
    let (k, v) = (list(&a, 0)?, list(&a, 1)?);
    if k.len() != v.len() {
        return Err(format!(
            "number of keys ({}) does not match number of values ({})",
            k.len(),
            v.len()
        ));
    }
    let mut out = Map::new();
    for (key, val) in k.into_iter().zip(v) {
        match key {
            Value::String(key) => out.insert(key, val),
            other => return Err(format!("key {} is not a string", json(&other))),
        };
    }
    Ok(Value::Object(out))
}

/// cty sets of strings or numbers iterate sorted (numbers by value).
fn set_sorted(mut v: Vec<Value>) -> Vec<Value> {
    v.sort_by(|x, y| match (x, y) {
        (Value::Number(a), Value::Number(b)) => a
            .as_f64()
            .partial_cmp(&b.as_f64())
            .unwrap_or(std::cmp::Ordering::Equal),
        _ => x.to_string().cmp(&y.to_string()),
    });
    v.dedup();
    v
}
fn setunion(a: FuncArgs) -> Result<Value, String> {
    let mut all = Vec::new();
    for i in 0..a.len() {
        all.extend(list(&a, i)?);
    }
    Ok(Value::Array(set_sorted(all)))
}
fn setintersection(a: FuncArgs) -> Result<Value, String> {
    let mut acc = list(&a, 0)?;
    for i in 1..a.len() {
        let other = list(&a, i)?;
        acc.retain(|v| other.contains(v));
    }
    Ok(Value::Array(set_sorted(acc)))
}
fn setsubtract(a: FuncArgs) -> Result<Value, String> {
    arity(&a, 2)?;
    let other = list(&a, 1)?;
    let mut acc = list(&a, 0)?;
    acc.retain(|v| !other.contains(v));
    Ok(Value::Array(set_sorted(acc)))
}

// ---- JSON -------------------------------------------------------------------

/// Go's `encoding/json` text of a value as cty marshals it: keys sorted, numbers
/// without a fraction when whole, strings as Go's `json.Marshal` writes them.
pub fn json(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => match n.as_f64() {
            Some(f) if f.fract() == 0.0 && f.abs() < 1e21 => format!("{}", f as i128),
            Some(f) => format!("{f}"),
            None => n.to_string(),
        },
        Value::String(x) => {
            let mut out = String::new();
            crate::funcs::codec::yaml::write_json_string(&mut out, x);
            out
        }
        Value::Array(l) => format!("[{}]", l.iter().map(json).collect::<Vec<_>>().join(",")),
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let parts: Vec<String> = keys
                .into_iter()
                .map(|k| format!("{}:{}", json(&Value::String(k.clone())), json(&m[k])))
                .collect();
            format!("{{{}}}", parts.join(","))
        }
    }
}
fn jsonencode(a: FuncArgs) -> Result<Value, String> {
    arity(&a, 1)?;
    Ok(Value::String(json(&a[0])))
}
/// cty decodes with Go's `encoding/json` (helmfile 0.166: the classic package).
fn jsondecode(a: FuncArgs) -> Result<Value, String> {
    arity(&a, 1)?;
    let v = crate::funcs::codec::json::decode(&s(&a, 0)?, crate::funcs::codec::json::Dialect::V1)
        .map_err(|e| e.to_string())?;
    from_go(&v)
}

// ---- YAML, CSV ----------------------------------------------------------------

fn from_go(v: &crate::template::Value) -> Result<Value, String> {
    use crate::template::Value as Go;
    Ok(match v {
        Go::Nil => Value::Null,
        Go::Bool(b) => Value::Bool(*b),
        Go::Int(i, _) => Value::Number(Number::from(*i)),
        Go::Uint(u, _) => Value::Number(Number::from(*u)),
        Go::Float(f) => num(*f)?,
        Go::String(s) => Value::String(s.to_string()),
        Go::List(l) => Value::Array(l.iter().map(from_go).collect::<Result<_, _>>()?),
        Go::Map(m) => {
            let mut out = Map::new();
            let mut err = None;
            m.with_read(|entries| {
                for (k, x) in entries {
                    match from_go(x) {
                        Ok(x) => {
                            out.insert(k.to_string(), x);
                        }
                        Err(e) => err = Some(e),
                    }
                }
            });
            if let Some(e) = err {
                return Err(e);
            }
            Value::Object(out)
        }
        other => Value::String(crate::template::fmt::format_value(other)),
    })
}
fn yamldecode(a: FuncArgs) -> Result<Value, String> {
    arity(&a, 1)?;
    let v = crate::helmfile::seams::decode_values(&s(&a, 0)?).map_err(|e| e.0)?;
    from_go(&v)
}

/// cty-yaml's encoding: block style, keys and strings double-quoted, multi-line
/// strings as literal blocks, lists under a key not indented.
fn yaml_scalar(v: &Value, indent: usize) -> Option<String> {
    Some(match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(_) => json(v),
        Value::String(x) if x.contains('\n') && !x.contains("\n\n\n") => {
            let pad = " ".repeat(indent + 2);
            let chomp = if x.ends_with('\n') { "" } else { "-" };
            let body: Vec<String> = x
                .trim_end_matches('\n')
                .split('\n')
                .map(|l| {
                    if l.is_empty() {
                        String::new()
                    } else {
                        format!("{pad}{l}")
                    }
                })
                .collect();
            format!("|{chomp}\n{}", body.join("\n"))
        }
        Value::String(x) => json(&Value::String(x.clone()))
            .replace("\\u003c", "<")
            .replace("\\u003e", ">")
            .replace("\\u0026", "&"),
        Value::Array(l) if l.is_empty() => "[]".into(),
        Value::Object(m) if m.is_empty() => "{}".into(),
        _ => return None,
    })
}
fn yaml_block(v: &Value, indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    match v {
        Value::Array(l) => {
            for x in l {
                out.push_str(&pad);
                out.push_str("- ");
                match yaml_scalar(x, indent) {
                    Some(s) => {
                        out.push_str(&s);
                        out.push('\n');
                    }
                    None => {
                        let mut inner = String::new();
                        yaml_block(x, indent + 2, &mut inner);
                        out.push_str(inner.get(indent + 2..).unwrap_or(""));
                    }
                }
            }
        }
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            for k in keys {
                let x = &m[k];
                out.push_str(&pad);
                out.push_str(&json(&Value::String(k.clone())));
                out.push(':');
                match yaml_scalar(x, indent) {
                    Some(s) => {
                        out.push(' ');
                        out.push_str(&s);
                        out.push('\n');
                    }
                    None => {
                        out.push('\n');
                        let child = if matches!(x, Value::Array(_)) {
                            indent
                        } else {
                            indent + 2
                        };
                        yaml_block(x, child, out);
                    }
                }
            }
        }
        other => {
            out.push_str(&yaml_scalar(other, indent).unwrap_or_default());
            out.push('\n');
        }
    }
}
fn yamlencode(a: FuncArgs) -> Result<Value, String> {
    arity(&a, 1)?;
    let mut out = String::new();
    match yaml_scalar(&a[0], 0) {
        Some(s) => {
            out.push_str(&s);
            out.push('\n');
        }
        None => yaml_block(&a[0], 0, &mut out),
    }
    Ok(Value::String(out))
}

/// RFC 4180 records; the first names the fields, every value is a string.
fn csvdecode(a: FuncArgs) -> Result<Value, String> {
    arity(&a, 1)?;
    let text = s(&a, 0)?;
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut row = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    let mut any = false;
    while let Some(c) = chars.next() {
        any = true;
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => field.push(c),
            (false, '"') if field.is_empty() => quoted = true,
            (false, ',') => row.push(std::mem::take(&mut field)),
            (false, '\r') => {}
            (false, '\n') => {
                row.push(std::mem::take(&mut field));
                rows.push(std::mem::take(&mut row));
                any = false;
            }
            (false, c) => field.push(c),
        }
    }
    if any {
        row.push(field);
        rows.push(row);
    }
    let mut it = rows.into_iter();
    let Some(header) = it.next() else {
        return Ok(Value::Null);
    };
    let mut out = Vec::new();
    for (i, r) in it.enumerate() {
        if r.len() != header.len() {
            return Err(format!("record on line {}: wrong number of fields", i + 2));
        }
        let mut m = Map::new();
        for (k, v) in header.iter().zip(r) {
            m.insert(k.clone(), Value::String(v));
        }
        out.push(Value::Object(m));
    }
    Ok(Value::Array(out))
}

// ---- time ---------------------------------------------------------------------

fn timestamp(a: &FuncArgs, i: usize) -> Result<chrono::DateTime<chrono::FixedOffset>, String> {
    let text = s(a, i)?;
    chrono::DateTime::parse_from_rfc3339(&text)
        .map_err(|_| format!("not a valid RFC3339 timestamp: {text:?}"))
}

/// cty's `formatdate` spec: letter runs (`YYYY`, `MMM`, `hh`, `ZZZ`...) and quoted
/// literals.
fn formatdate(a: FuncArgs) -> Result<Value, String> {
    use chrono::{Datelike, Timelike};
    arity(&a, 2)?;
    let spec: Vec<char> = s(&a, 0)?.chars().collect();
    let t = timestamp(&a, 1)?;
    let mut out = String::new();
    let mut i = 0;
    while i < spec.len() {
        let c = spec[i];
        if c == '\'' {
            let mut j = i + 1;
            if spec.get(j) == Some(&'\'') {
                out.push('\'');
                i += 2;
                continue;
            }
            while j < spec.len() && spec[j] != '\'' {
                out.push(spec[j]);
                j += 1;
            }
            i = j + 1;
            continue;
        }
        if !c.is_ascii_alphabetic() {
            out.push(c);
            i += 1;
            continue;
        }
        let mut j = i;
        while j < spec.len() && spec[j] == c {
            j += 1;
        }
        let verb: String = spec[i..j].iter().collect();
        let off = t.offset().local_minus_utc();
        let (oh, om) = (off.abs() / 3600, off.abs() % 3600 / 60);
        let sign = if off < 0 { '-' } else { '+' };
        let text = match verb.as_str() {
            "YYYY" => format!("{:04}", t.year()),
            "YY" => format!("{:02}", t.year() % 100),
            "MMMM" => t.format("%B").to_string(),
            "MMM" => t.format("%b").to_string(),
            "MM" => format!("{:02}", t.month()),
            "M" => t.month().to_string(),
            "DD" => format!("{:02}", t.day()),
            "D" => t.day().to_string(),
            "EEEE" => t.format("%A").to_string(),
            "EEE" => t.format("%a").to_string(),
            "hh" => format!("{:02}", t.hour()),
            "h" => t.hour().to_string(),
            "HH" => format!("{:02}", (t.hour() + 11) % 12 + 1),
            "H" => ((t.hour() + 11) % 12 + 1).to_string(),
            "AA" => (if t.hour() < 12 { "AM" } else { "PM" }).to_string(),
            "aa" => (if t.hour() < 12 { "am" } else { "pm" }).to_string(),
            "mm" => format!("{:02}", t.minute()),
            "m" => t.minute().to_string(),
            "ss" => format!("{:02}", t.second()),
            "s" => t.second().to_string(),
            "ZZZZZ" => format!("{sign}{oh:02}:{om:02}"),
            "ZZZZ" => format!("{sign}{oh:02}{om:02}"),
            "ZZZ" if off == 0 => "UTC".to_string(),
            "ZZZ" => format!("{sign}{oh:02}{om:02}"),
            "Z" if off == 0 => "Z".to_string(),
            "Z" => format!("{sign}{oh:02}:{om:02}"),
            other => return Err(format!("invalid date format verb {other:?}")),
        };
        out.push_str(&text);
        i = j;
    }
    Ok(Value::String(out))
}

fn timeadd(a: FuncArgs) -> Result<Value, String> {
    arity(&a, 2)?;
    let t = timestamp(&a, 0)?;
    // Go's time.ParseDuration, in whole nanoseconds, with Go's error texts.
    let d = chrono::Duration::nanoseconds(crate::funcs::dates::parse_duration(&s(&a, 1)?)?);
    let r = t
        .checked_add_signed(d)
        .ok_or("the resulting timestamp is out of range")?;
    let text = if r.offset().local_minus_utc() == 0 {
        r.format("%Y-%m-%dT%H:%M:%SZ").to_string()
    } else {
        r.format("%Y-%m-%dT%H:%M:%S%:z").to_string()
    };
    Ok(Value::String(text))
}
