//! Go's predefined template functions: `and`, `or`, `not`, `len`, `index`, `slice`,
//! `print`, `printf`, `println`, `html`, `js`, `urlquery`, `call` and the comparisons.
//!
//! They take Go `reflect.Value`s, i.e. see their arguments unconverted, which is
//! why they live here rather than in the registry: `len` of a YAML `null` is
//! `len of nil pointer` while `len` of a missing key is a reflect panic message, and
//! the comparisons follow Go's "basic kind" rules (`eq 1 1.0` is an error, `eq` of
//! an `int` and a `uint` is not). Registry functions of the same name take
//! precedence, as in Go (Sprig's `slice` replaces this one in Helm).

use super::exec::{ArgTy, Val};
use super::options::LanguageLevel;
use super::registry::Ty;
use super::value::{ListType, MapType, UintType, Value};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Builtin {
    And,
    Or,
    Not,
    Len,
    Index,
    Slice,
    Print,
    Printf,
    Println,
    Html,
    Js,
    UrlQuery,
    Call,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

pub const NAMES: &[&str] = &[
    "and", "call", "html", "index", "slice", "js", "len", "not", "or", "print", "printf",
    "println", "urlquery", "eq", "ge", "gt", "le", "lt", "ne",
];

pub(crate) fn lookup(name: &str) -> Option<Builtin> {
    Some(match name {
        "and" => Builtin::And,
        "or" => Builtin::Or,
        "not" => Builtin::Not,
        "len" => Builtin::Len,
        "index" => Builtin::Index,
        "slice" => Builtin::Slice,
        "print" => Builtin::Print,
        "printf" => Builtin::Printf,
        "println" => Builtin::Println,
        "html" => Builtin::Html,
        "js" => Builtin::Js,
        "urlquery" => Builtin::UrlQuery,
        "call" => Builtin::Call,
        "eq" => Builtin::Eq,
        "ne" => Builtin::Ne,
        "lt" => Builtin::Lt,
        "le" => Builtin::Le,
        "gt" => Builtin::Gt,
        "ge" => Builtin::Ge,
        _ => return None,
    })
}

/// Whether `name` is one of Go's predefined functions.
pub fn is_builtin(name: &str) -> bool {
    lookup(name).is_some()
}

const R: ArgTy = ArgTy::Reflect;
const ANY: ArgTy = ArgTy::Ty(Ty::Any);

impl Builtin {
    /// Go's signature: fixed parameters and the variadic element type.
    pub(crate) fn sig(self) -> (&'static [ArgTy], Option<ArgTy>) {
        match self {
            Builtin::And | Builtin::Or | Builtin::Call | Builtin::Index | Builtin::Slice => {
                (&[R], Some(R))
            }
            Builtin::Eq => (&[R], Some(R)),
            Builtin::Not | Builtin::Len => (&[R], None),
            Builtin::Ne | Builtin::Lt | Builtin::Le | Builtin::Gt | Builtin::Ge => (&[R, R], None),
            Builtin::Print | Builtin::Println | Builtin::Html | Builtin::Js | Builtin::UrlQuery => {
                (&[], Some(ANY))
            }
            Builtin::Printf => (&[ArgTy::Ty(Ty::String)], Some(ANY)),
        }
    }
}

fn plain(v: Value) -> Val {
    Val::plain(v)
}

fn values(args: &[Val]) -> Vec<Value> {
    args.iter().map(|a| a.v.clone()).collect()
}

/// Runs a builtin other than `and`/`or` (which the executor short-circuits). The
/// error is Go's message without the `error calling NAME: ` prefix.
pub(crate) fn call(
    b: Builtin,
    args: &[Val],
    level: LanguageLevel,
    callee: Option<&str>,
) -> Result<Val, String> {
    let arg = |i: usize| args.get(i).cloned().unwrap_or(Val::MISSING);
    match b {
        Builtin::And | Builtin::Or => Ok(args.last().cloned().unwrap_or(Val::MISSING)),
        Builtin::Not => Ok(plain(Value::Bool(!arg(0).truth()))),
        Builtin::Len => length(&arg(0)).map(|n| plain(Value::int(n as i64))),
        Builtin::Index => index(&arg(0), &args[1.min(args.len())..]),
        Builtin::Slice => slice(&arg(0), &args[1.min(args.len())..]),
        Builtin::Print => Ok(plain(Value::from(super::fmt::sprint(&values(args))))),
        Builtin::Println => Ok(plain(Value::from(super::fmt::sprintln(&values(args))))),
        Builtin::Printf => {
            let format = arg(0).v.as_str().unwrap_or("").to_string();
            let rest = values(&args[1.min(args.len())..]);
            Ok(plain(Value::from(super::fmt::sprintf(&format, &rest))))
        }
        Builtin::Html => Ok(plain(Value::from(html_escape(&eval_args(args))))),
        Builtin::Js => Ok(plain(Value::from(js_escape(&eval_args(args))))),
        Builtin::UrlQuery => Ok(plain(Value::from(query_escape(&eval_args(args))))),
        Builtin::Call => {
            let f = arg(0);
            if f.v.is_nil() {
                return Err("call of nil".to_string());
            }
            // Go 1.22's `call` did not name the callee.
            if level.typed_comparison_errors() {
                Err(format!(
                    "non-function {} of type {}",
                    callee.unwrap_or(""),
                    f.v.type_name()
                ))
            } else {
                Err(format!("non-function of type {}", f.v.type_name()))
            }
        }
        Builtin::Eq => {
            let rest = &args[1.min(args.len())..];
            eq(&arg(0), rest, level).map(|t| plain(Value::Bool(t)))
        }
        Builtin::Ne => eq(&arg(0), &[arg(1)], level).map(|t| plain(Value::Bool(!t))),
        Builtin::Lt => lt(&arg(0), &arg(1), level).map(|t| plain(Value::Bool(t))),
        Builtin::Le => le(&arg(0), &arg(1), level).map(|t| plain(Value::Bool(t))),
        Builtin::Gt => le(&arg(0), &arg(1), level).map(|t| plain(Value::Bool(!t))),
        Builtin::Ge => lt(&arg(0), &arg(1), level).map(|t| plain(Value::Bool(!t))),
    }
}

/// Go's `evalArgs`: one string argument as is, otherwise `fmt.Sprint` with nil
/// arguments shown as `<no value>`.
fn eval_args(args: &[Val]) -> String {
    if let [one] = args {
        if let Value::String(s) = &one.v {
            return s.to_string();
        }
    }
    let vals: Vec<Value> = args
        .iter()
        .map(|a| {
            if a.v.is_nil() {
                Value::str("<no value>")
            } else {
                a.v.clone()
            }
        })
        .collect();
    super::fmt::sprint(&vals)
}

/// The collection behind a value: objects that are maps or slices underneath.
fn collection(v: &Value) -> Value {
    match v {
        Value::Object(o) => o.as_collection().unwrap_or_else(|| v.clone()),
        _ => v.clone(),
    }
}

fn length(item: &Val) -> Result<usize, String> {
    if item.is_missing() {
        return Err("reflect: call of reflect.Value.Type on zero Value".to_string());
    }
    if item.v.is_nil() {
        return Err("len of nil pointer".to_string());
    }
    match collection(&item.v) {
        Value::String(s) => Ok(super::gostr::byte_len(s.as_ref())),
        Value::List(l) => Ok(l.len()),
        Value::Bytes(b) => Ok(b.len()),
        Value::Map(m) => Ok(m.len()),
        _ => Err(format!("len of type {}", item.v.type_name())),
    }
}

/// Go's `indexArg`.
fn index_arg(index: &Val, cap: usize) -> Result<usize, String> {
    let x: i64 = match &index.v {
        Value::Int(i, _) => *i,
        Value::Uint(u, _) => *u as i64,
        Value::Nil => return Err("cannot index slice/array with nil".to_string()),
        v => {
            return Err(format!(
                "cannot index slice/array with type {}",
                v.type_name()
            ))
        }
    };
    if x < 0 || x as u64 > cap as u64 {
        return Err(format!("index out of range: {x}"));
    }
    Ok(x as usize)
}

fn index(item: &Val, indexes: &[Val]) -> Result<Val, String> {
    if item.v.is_nil() {
        return Err("index of untyped nil".to_string());
    }
    let mut cur = item.clone().dig();
    for idx in indexes {
        if cur.v.is_nil() {
            return Err("index of nil pointer".to_string());
        }
        let coll = collection(&cur.v);
        cur = match &coll {
            Value::List(l) => {
                let x = index_arg(idx, l.len())?;
                match l.items().get(x) {
                    Some(v) => Val::elem(v.clone(), l.ty() == ListType::Interface),
                    None => return Err("reflect: slice index out of range".to_string()),
                }
            }
            Value::Bytes(b) => {
                let x = index_arg(idx, b.len())?;
                match b.get(x) {
                    Some(v) => plain(Value::Uint(*v as u64, UintType::Uint8)),
                    None => return Err("reflect: slice index out of range".to_string()),
                }
            }
            Value::String(s) => {
                let b = super::gostr::to_bytes(s);
                let x = index_arg(idx, b.len())?;
                match b.get(x) {
                    Some(v) => plain(Value::Uint(*v as u64, UintType::Uint8)),
                    None => return Err("reflect: string index out of range".to_string()),
                }
            }
            Value::Map(m) => {
                let key = match &idx.v {
                    Value::String(k) => k.clone(),
                    Value::Nil => return Err("value is nil; should be of type string".to_string()),
                    v => {
                        return Err(format!(
                            "value has type {}; should be string",
                            v.type_name()
                        ))
                    }
                };
                let iface = m.ty() != MapType::String;
                match m.get(&key) {
                    Some(v) => Val::elem(v, iface),
                    None if iface => Val::iface(Value::Nil),
                    None => plain(Value::str("")),
                }
            }
            v => return Err(format!("can't index item of type {}", v.type_name())),
        };
    }
    Ok(cur)
}

fn slice(item: &Val, indexes: &[Val]) -> Result<Val, String> {
    if item.v.is_nil() {
        if item.iface {
            return Err("slice of untyped nil".to_string());
        }
        return Err("slice of untyped nil".to_string());
    }
    if indexes.len() > 3 {
        return Err(format!("too many slice indexes: {}", indexes.len()));
    }
    let coll = collection(&item.v);
    let (len, is_str) = match &coll {
        Value::String(s) => {
            if indexes.len() == 3 {
                return Err("cannot 3-index slice a string".to_string());
            }
            (s.len(), true)
        }
        Value::List(l) => (l.len(), false),
        Value::Bytes(b) => (b.len(), false),
        v => return Err(format!("can't slice item of type {}", v.type_name())),
    };
    let mut idx = [0usize, len, 0];
    for (i, x) in indexes.iter().enumerate() {
        idx[i] = index_arg(x, len)?;
    }
    if idx[0] > idx[1] {
        return Err(format!("invalid slice index: {} > {}", idx[0], idx[1]));
    }
    if indexes.len() == 3 && idx[1] > idx[2] {
        return Err(format!("invalid slice index: {} > {}", idx[1], idx[2]));
    }
    let (a, b) = (idx[0], idx[1]);
    Ok(plain(match coll {
        Value::String(s) => {
            let _ = is_str;
            Value::from(String::from_utf8_lossy(&s.as_bytes()[a..b]).into_owned())
        }
        Value::List(l) => {
            Value::List(super::value::List::new(l.items()[a..b].to_vec()).with_type(l.ty()))
        }
        Value::Bytes(bs) => Value::Bytes(std::sync::Arc::from(&bs[a..b])),
        other => other,
    }))
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum BasicKind {
    Invalid,
    Bool,
    Int,
    Uint,
    Float,
    String,
}

fn basic_kind(v: &Value) -> BasicKind {
    match v {
        Value::Bool(_) => BasicKind::Bool,
        Value::Int(..) => BasicKind::Int,
        Value::Uint(..) => BasicKind::Uint,
        Value::Float(_) => BasicKind::Float,
        Value::String(_) => BasicKind::String,
        _ => BasicKind::Invalid,
    }
}

const BAD_TYPE: &str = "invalid type for comparison";

fn incompatible(a: &Value, b: &Value, level: LanguageLevel) -> String {
    if level.typed_comparison_errors() {
        format!(
            "incompatible types for comparison: {} and {}",
            a.type_name(),
            b.type_name()
        )
    } else {
        "incompatible types for comparison".to_string()
    }
}

/// Go's nil test for comparisons: no value, a nil slice or a nil pointer.
fn is_nil_like(v: &Value) -> bool {
    match v {
        Value::Nil => true,
        Value::List(l) => l.is_nil(),
        Value::Object(o) => o.is_nil_pointer(),
        _ => false,
    }
}

fn go_kind_name(v: &Value) -> &'static str {
    match v {
        Value::Nil => "invalid",
        Value::List(_) | Value::Bytes(_) => "slice",
        Value::Map(_) => "map",
        Value::Object(o) => match o.kind() {
            super::value::Kind::Map => "map",
            super::value::Kind::Slice => "slice",
            super::value::Kind::Struct => "struct",
            _ => "ptr",
        },
        _ => "basic",
    }
}

fn eq(a: &Val, rest: &[Val], level: LanguageLevel) -> Result<bool, String> {
    let a = &a.v;
    if rest.is_empty() {
        return Err("missing argument for comparison".to_string());
    }
    let k1 = basic_kind(a);
    for b in rest {
        let b = &b.v;
        let k2 = basic_kind(b);
        let truth = if k1 != k2 {
            match (a, b) {
                (Value::Int(x, _), Value::Uint(y, _)) => *x >= 0 && *x as u64 == *y,
                (Value::Uint(x, _), Value::Int(y, _)) => *y >= 0 && *x == *y as u64,
                _ => {
                    if !a.is_nil() && !b.is_nil() {
                        return Err(incompatible(a, b, level));
                    }
                    false
                }
            }
        } else {
            match (a, b) {
                (Value::Bool(x), Value::Bool(y)) => x == y,
                (Value::Float(x), Value::Float(y)) => x == y,
                (Value::Int(x, _), Value::Int(y, _)) => x == y,
                (Value::String(x), Value::String(y)) => x == y,
                (Value::Uint(x, _), Value::Uint(y, _)) => x == y,
                _ => {
                    let (ka, kb) = (go_kind_name(a), go_kind_name(b));
                    if ka != kb && ka != "invalid" && kb != "invalid" {
                        return Err(super::fmt::sprintf(
                            "non-comparable types %s: %v, %s: %v",
                            &[
                                a.clone(),
                                Value::str(a.type_name()),
                                Value::str(b.type_name()),
                                b.clone(),
                            ],
                        ));
                    }
                    if is_nil_like(a) || is_nil_like(b) {
                        is_nil_like(a) == is_nil_like(b)
                    } else {
                        match (a, b) {
                            (Value::Object(x), Value::Object(y))
                                if x.kind() == super::value::Kind::Struct
                                    && y.kind() == super::value::Kind::Struct =>
                            {
                                // Go compares structs field by field (two `time.Time`
                                // from separate expressions can be equal).
                                if x.type_name() != y.type_name() {
                                    false
                                } else {
                                    match (x.comparable_key(), y.comparable_key()) {
                                        (Some(kx), Some(ky)) => kx == ky,
                                        _ => {
                                            return Err(super::fmt::sprintf(
                                                "non-comparable type %s: %v",
                                                &[b.clone(), Value::str(b.type_name())],
                                            ))
                                        }
                                    }
                                }
                            }
                            (Value::Object(x), Value::Object(y))
                                if !matches!(
                                    x.kind(),
                                    super::value::Kind::Map | super::value::Kind::Slice
                                ) =>
                            {
                                std::sync::Arc::ptr_eq(x, y)
                            }
                            _ => {
                                return Err(super::fmt::sprintf(
                                    "non-comparable type %s: %v",
                                    &[b.clone(), Value::str(b.type_name())],
                                ))
                            }
                        }
                    }
                }
            }
        };
        if truth {
            return Ok(true);
        }
    }
    Ok(false)
}

fn lt(a: &Val, b: &Val, level: LanguageLevel) -> Result<bool, String> {
    let (a, b) = (&a.v, &b.v);
    let k1 = basic_kind(a);
    if k1 == BasicKind::Invalid {
        return Err(BAD_TYPE.to_string());
    }
    let k2 = basic_kind(b);
    if k2 == BasicKind::Invalid {
        return Err(BAD_TYPE.to_string());
    }
    if k1 != k2 {
        return match (a, b) {
            (Value::Int(x, _), Value::Uint(y, _)) => Ok(*x < 0 || (*x as u64) < *y),
            (Value::Uint(x, _), Value::Int(y, _)) => Ok(*y >= 0 && *x < *y as u64),
            _ => Err(incompatible(a, b, level)),
        };
    }
    match (a, b) {
        (Value::Float(x), Value::Float(y)) => Ok(x < y),
        (Value::Int(x, _), Value::Int(y, _)) => Ok(x < y),
        (Value::String(x), Value::String(y)) => Ok(x.as_bytes() < y.as_bytes()),
        (Value::Uint(x, _), Value::Uint(y, _)) => Ok(x < y),
        _ => Err(BAD_TYPE.to_string()),
    }
}

fn le(a: &Val, b: &Val, level: LanguageLevel) -> Result<bool, String> {
    if lt(a, b, level)? {
        return Ok(true);
    }
    eq(a, std::slice::from_ref(b), level)
}

/// Go's `HTMLEscapeString`.
pub fn html_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\0' => out.push('\u{FFFD}'),
            '"' => out.push_str("&#34;"),
            '\'' => out.push_str("&#39;"),
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
    out
}

/// Go's `JSEscapeString`.
pub fn js_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '"' => out.push_str("\\\""),
            '<' => out.push_str("\\u003C"),
            '>' => out.push_str("\\u003E"),
            '&' => out.push_str("\\u0026"),
            '=' => out.push_str("\\u003D"),
            c if (c as u32) < 0x20 => {
                out.push_str(&format!("\\u00{:02X}", c as u32));
            }
            c if (c as u32) < 0x80 => out.push(c),
            c if !c.is_control() && !matches!(c as u32, 0xFFFD | 0x2028 | 0x2029) => out.push(c),
            c => out.push_str(&format!("\\u{:04X}", c as u32)),
        }
    }
    out
}

/// Go's `url.QueryEscape`.
pub fn query_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for &b in super::gostr::to_bytes(s).iter() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            b' ' => out.push('+'),
            b => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}
