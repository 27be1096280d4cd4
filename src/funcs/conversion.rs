//! Sprig's type conversions (`atoi`, `int`, `int64`, `float64`, `toDecimal`,
//! `toString`, `toStrings`) and the helpers every other Sprig family shares.
//!
//! Sprig converts with spf13/cast, which is forgiving in specific ways that charts
//! depend on: strings are parsed with Go's base-prefix rules (`"0x10"` is 16, `"010"` is
//! 8), `"3.0"` loses its zero fraction first, anything unparsable is 0, and float to
//! integer conversion follows the amd64 instruction (out of range gives the minimum
//! int64). cast v1.5.0 (Helm 3, Helmfile) and v1.7.0 (Helm 4) agree on every
//! conversion reachable from templates, so there is one implementation.
//!
//! The argument helpers at the bottom read already-converted arguments; the engine
//! guarantees the Go types, so a mismatch is an internal error rather than a panic.

use crate::template::fmt::format_value;
use crate::template::{FuncDef, FuncError, FuncResult, List, Ty, UintType, Value};

pub static FUNCS: &[FuncDef] = &[
    FuncDef::plain("atoi", &[Ty::String], atoi),
    FuncDef::plain("int", &[Ty::Any], int),
    FuncDef::plain("int64", &[Ty::Any], int64),
    FuncDef::plain("float64", &[Ty::Any], float64),
    FuncDef::plain("toDecimal", &[Ty::Any], to_decimal),
    FuncDef::plain("toString", &[Ty::Any], to_string),
    FuncDef::plain("toStrings", &[Ty::Any], to_strings),
];

fn atoi(args: &[Value]) -> FuncResult {
    let s = arg_str(args, 0)?;
    // strconv.Atoi: base 10 only; on overflow Go returns the clamped value with an
    // error, and Sprig keeps the value and drops the error.
    let v = match parse_int_digits(s, 10) {
        Ok(v) => v,
        Err(ParseIntError::Range(v)) => v,
        Err(ParseIntError::Syntax) => 0,
    };
    Ok(Value::int(v))
}

fn int(args: &[Value]) -> FuncResult {
    Ok(Value::int(to_int64(arg(args, 0)?)))
}

fn int64(args: &[Value]) -> FuncResult {
    Ok(Value::int64(to_int64(arg(args, 0)?)))
}

fn float64(args: &[Value]) -> FuncResult {
    Ok(Value::Float(to_float64(arg(args, 0)?)))
}

fn to_decimal(args: &[Value]) -> FuncResult {
    // strconv.ParseInt(fmt.Sprint(v), 8, 64), 0 on any error.
    let text = format_value(arg(args, 0)?);
    Ok(Value::int64(parse_int_digits(&text, 8).unwrap_or(0)))
}

fn to_string(args: &[Value]) -> FuncResult {
    Ok(Value::str(strval(arg(args, 0)?)))
}

fn to_strings(args: &[Value]) -> FuncResult {
    Ok(Value::List(strslice(arg(args, 0)?)))
}

// ---- shared conversions ---------------------------------------------------------------

/// Sprig's `strval`: strings as they are, byte slices as text, everything else
/// (Stringers and errors included) as `fmt` prints it with `%v`.
pub(crate) fn strval(v: &Value) -> String {
    match v {
        Value::String(s) => s.to_string(),
        Value::Bytes(b) => crate::template::gostr::from_slice(b).into_owned(),
        other => format_value(other),
    }
}

/// Sprig's `strslice`: a `[]string` view of a value. Nil elements of slices are
/// dropped; a nil argument gives an empty slice; a non-slice gives a one-element slice.
pub(crate) fn strslice(v: &Value) -> List {
    match v {
        Value::List(l) if l.ty() == crate::template::ListType::String => l.clone(),
        Value::Nil => List::of_strings(Vec::new()),
        other => match slice_items(other) {
            Some(items) => List::of_strings(
                items
                    .iter()
                    .filter(|x| !x.is_nil())
                    .map(|x| Value::str(strval(x)))
                    .collect(),
            ),
            None => List::of_strings(vec![Value::str(strval(other))]),
        },
    }
}

/// The elements of a value whose reflect kind is slice or array, as Go's
/// `reflect.Value.Index` would produce them (a `[]byte` yields `uint8`s).
pub(crate) fn slice_items(v: &Value) -> Option<Vec<Value>> {
    match v {
        Value::List(l) => Some(l.to_vec()),
        Value::Bytes(b) => Some(
            b.iter()
                .map(|x| Value::Uint(u64::from(*x), UintType::Uint8))
                .collect(),
        ),
        Value::Object(o) if matches!(o.kind(), crate::template::Kind::Slice) => {
            o.as_collection().and_then(|c| slice_items(&c))
        }
        _ => None,
    }
}

/// cast.ToInt64 with the error dropped (also cast.ToInt: Go's `int` is 64 bits).
pub(crate) fn to_int64(v: &Value) -> i64 {
    match v {
        Value::Nil => 0,
        Value::Bool(b) => i64::from(*b),
        Value::Int(i, _) => *i,
        Value::Uint(u, _) => *u as i64,
        Value::Float(f) => go_f64_to_i64(*f),
        Value::String(s) => parse_go_int(trim_zero_decimal(s)).unwrap_or(0),
        _ => 0,
    }
}

/// cast.ToFloat64 with the error dropped.
pub(crate) fn to_float64(v: &Value) -> f64 {
    match v {
        Value::Nil => 0.0,
        Value::Bool(b) => f64::from(u8::from(*b)),
        Value::Int(i, _) => *i as f64,
        Value::Uint(u, _) => *u as f64,
        Value::Float(f) => *f,
        Value::String(s) => parse_go_float(s).unwrap_or(0.0),
        _ => 0.0,
    }
}

/// Go's `int64(f)` on amd64: truncation, and the "integer indefinite" value
/// (the minimum int64) for NaN and anything out of range.
pub(crate) fn go_f64_to_i64(f: f64) -> i64 {
    if f.is_nan() || !(-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&f) {
        i64::MIN
    } else {
        f as i64
    }
}

/// cast's `trimZeroDecimal`: `"3.0"` and `"3.00"` become `"3"`; anything else is kept.
fn trim_zero_decimal(s: &str) -> &str {
    let b = s.as_bytes();
    let mut found_zero = false;
    for i in (1..=b.len()).rev() {
        match b[i - 1] {
            b'.' => {
                if found_zero {
                    return &s[..i - 1];
                }
            }
            b'0' => found_zero = true,
            _ => return s,
        }
    }
    s
}

enum ParseIntError {
    Syntax,
    /// Out of range; carries the value Go returns alongside the error.
    Range(i64),
}

/// strconv.ParseInt(s, 0, 64): sign, base prefixes `0x` `0o` `0b` and a bare leading
/// `0` for octal, underscores between digits.
pub(crate) fn parse_go_int(s: &str) -> Option<i64> {
    parse_int_digits(s, 0).ok()
}

/// strconv.ParseInt for a given base (0 means "from the prefix").
fn parse_int_digits(s: &str, base: u32) -> Result<i64, ParseIntError> {
    let (neg, body) = match s.as_bytes().first() {
        Some(b'+') => (false, &s[1..]),
        Some(b'-') => (true, &s[1..]),
        _ => (false, s),
    };
    let mag = match parse_uint(body, base) {
        Ok(m) => m,
        Err(ParseIntError::Range(_)) => {
            return Err(ParseIntError::Range(if neg { i64::MIN } else { i64::MAX }))
        }
        Err(e) => return Err(e),
    };
    if neg {
        if mag > 1u64 << 63 {
            Err(ParseIntError::Range(i64::MIN))
        } else {
            Ok((mag as i64).wrapping_neg())
        }
    } else if mag > i64::MAX as u64 {
        Err(ParseIntError::Range(i64::MAX))
    } else {
        Ok(mag as i64)
    }
}

fn parse_uint(s: &str, base: u32) -> Result<u64, ParseIntError> {
    if s.is_empty() {
        return Err(ParseIntError::Syntax);
    }
    let base0 = base == 0;
    let original = s;
    let b = s.as_bytes();
    let (base, digits) = if base0 {
        if b[0] == b'0' {
            if b.len() >= 3 && b[1].eq_ignore_ascii_case(&b'b') {
                (2, &b[2..])
            } else if b.len() >= 3 && b[1].eq_ignore_ascii_case(&b'o') {
                (8, &b[2..])
            } else if b.len() >= 3 && b[1].eq_ignore_ascii_case(&b'x') {
                (16, &b[2..])
            } else {
                (8, &b[1..])
            }
        } else {
            (10, b)
        }
    } else {
        (base, b)
    };
    let mut n: u64 = 0;
    let mut underscores = false;
    let mut overflow = false;
    for &c in digits {
        let d = match c {
            b'_' if base0 => {
                underscores = true;
                continue;
            }
            b'0'..=b'9' => u32::from(c - b'0'),
            b'a'..=b'z' => u32::from(c - b'a') + 10,
            b'A'..=b'Z' => u32::from(c - b'A') + 10,
            _ => return Err(ParseIntError::Syntax),
        };
        if d >= base {
            return Err(ParseIntError::Syntax);
        }
        if !overflow {
            match n
                .checked_mul(u64::from(base))
                .and_then(|m| m.checked_add(u64::from(d)))
            {
                Some(m) => n = m,
                None => overflow = true,
            }
        }
    }
    if underscores && !underscore_ok(original) {
        return Err(ParseIntError::Syntax);
    }
    if overflow {
        return Err(ParseIntError::Range(i64::MAX));
    }
    Ok(n)
}

/// Go's rule for `_` in number literals: only between digits, or between a base
/// prefix and a digit.
fn underscore_ok(s: &str) -> bool {
    let mut b = s.as_bytes();
    if let Some(b'+' | b'-') = b.first() {
        b = &b[1..];
    }
    let mut saw = b'^';
    let mut i = 0;
    let mut hex = false;
    if b.len() >= 2 && b[0] == b'0' && matches!(b[1].to_ascii_lowercase(), b'b' | b'o' | b'x') {
        i = 2;
        saw = b'0';
        hex = b[1].eq_ignore_ascii_case(&b'x');
    }
    while i < b.len() {
        let c = b[i];
        i += 1;
        if c.is_ascii_digit() || (hex && c.is_ascii_hexdigit()) {
            saw = b'0';
            continue;
        }
        if c == b'_' {
            if saw != b'0' {
                return false;
            }
            saw = b'_';
            continue;
        }
        if saw == b'_' {
            return false;
        }
        saw = b'!';
    }
    saw != b'_'
}

/// strconv.ParseFloat(s, 64), `None` on a syntax or range error.
pub(crate) fn parse_go_float(s: &str) -> Option<f64> {
    if let Some(f) = parse_special_float(s) {
        return Some(f);
    }
    let (neg, body) = match s.as_bytes().first() {
        Some(b'+') => (false, &s[1..]),
        Some(b'-') => (true, &s[1..]),
        _ => (false, s),
    };
    let b = body.as_bytes();
    let v = if b.len() >= 2 && b[0] == b'0' && (b[1] | 0x20) == b'x' {
        parse_hex_float(body)?
    } else {
        // Go's decimal syntax: digits with at most one '.', at least one digit, then an
        // optional exponent; underscores may separate mantissa digits.
        let mut seen_digit = false;
        let mut seen_dot = false;
        let mut underscores = false;
        let mut i = 0;
        while i < b.len() {
            match b[i] {
                b'0'..=b'9' => seen_digit = true,
                b'.' if !seen_dot => seen_dot = true,
                b'_' => underscores = true,
                _ => break,
            }
            i += 1;
        }
        if underscores && !underscore_ok(&body[..i]) {
            return None;
        }
        if !seen_digit {
            return None;
        }
        if i < b.len() {
            if (b[i] | 0x20) != b'e' {
                return None;
            }
            i += 1;
            if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
                i += 1;
            }
            let start = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            if i == start || i != b.len() {
                return None;
            }
        }
        let v: f64 = if underscores {
            body.replace('_', "").parse().ok()?
        } else {
            body.parse().ok()?
        };
        if v.is_infinite() {
            return None;
        }
        v
    };
    Some(if neg { -v } else { v })
}

/// Go's `inf`, `infinity` (optionally signed) and `nan`, any case.
fn parse_special_float(s: &str) -> Option<f64> {
    let lower = s.to_ascii_lowercase();
    match lower.as_str() {
        "inf" | "+inf" | "infinity" | "+infinity" => Some(f64::INFINITY),
        "-inf" | "-infinity" => Some(f64::NEG_INFINITY),
        "nan" => Some(f64::NAN),
        _ => None,
    }
}

/// A hexadecimal float (`0x1.8p3`); Go requires the `p` exponent.
fn parse_hex_float(s: &str) -> Option<f64> {
    let b = &s.as_bytes()[2..];
    let mut mant: f64 = 0.0;
    let mut exp: i64 = 0;
    let mut seen_digit = false;
    let mut seen_dot = false;
    let mut i = 0;
    let mut last_underscore_ok = true;
    while i < b.len() {
        let c = b[i];
        if c == b'_' {
            last_underscore_ok = false;
            i += 1;
            continue;
        }
        if c == b'.' && !seen_dot {
            seen_dot = true;
            i += 1;
            continue;
        }
        let d = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            b'A'..=b'F' => c - b'A' + 10,
            _ => break,
        };
        seen_digit = true;
        mant = mant * 16.0 + f64::from(d);
        if seen_dot {
            exp -= 4;
        }
        i += 1;
    }
    if !seen_digit || i >= b.len() || (b[i] | 0x20) != b'p' {
        return None;
    }
    if !last_underscore_ok && !underscore_ok(s) {
        return None;
    }
    i += 1;
    let mut eneg = false;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        eneg = b[i] == b'-';
        i += 1;
    }
    let start = i;
    let mut e: i64 = 0;
    while i < b.len() && b[i].is_ascii_digit() {
        e = (e * 10 + i64::from(b[i] - b'0')).min(100_000);
        i += 1;
    }
    if i == start || i != b.len() {
        return None;
    }
    let total = exp + if eneg { -e } else { e };
    let v = mant * 2f64.powi(total.clamp(-2000, 2000) as i32);
    if v.is_infinite() {
        None
    } else {
        Some(v)
    }
}

// ---- argument access ------------------------------------------------------------------

fn internal(what: &str, i: usize, args: &[Value]) -> FuncError {
    FuncError::Call(format!(
        "internal error: argument {} should be {what}, got {}",
        i + 1,
        args.get(i)
            .map(Value::type_name)
            .unwrap_or_else(|| "nothing".into())
    ))
}

pub(crate) fn arg(args: &[Value], i: usize) -> Result<&Value, FuncError> {
    args.get(i).ok_or_else(|| internal("present", i, args))
}

pub(crate) fn arg_str(args: &[Value], i: usize) -> Result<&str, FuncError> {
    match args.get(i) {
        Some(Value::String(s)) => Ok(s),
        _ => Err(internal("a string", i, args)),
    }
}

pub(crate) fn arg_int(args: &[Value], i: usize) -> Result<i64, FuncError> {
    match args.get(i) {
        Some(Value::Int(v, _)) => Ok(*v),
        _ => Err(internal("an integer", i, args)),
    }
}

pub(crate) fn arg_bool(args: &[Value], i: usize) -> Result<bool, FuncError> {
    match args.get(i) {
        Some(Value::Bool(b)) => Ok(*b),
        _ => Err(internal("a bool", i, args)),
    }
}

/// A `map[string]interface{}` parameter: `None` for a nil map.
pub(crate) fn arg_map(
    args: &[Value],
    i: usize,
) -> Result<Option<&crate::template::Map>, FuncError> {
    match args.get(i) {
        Some(Value::Map(m)) => Ok(Some(m)),
        Some(Value::Nil) => Ok(None),
        _ => Err(internal("a map", i, args)),
    }
}

/// A Go `int`, for tests.
#[cfg(test)]
pub(crate) fn go_int(v: i64) -> Value {
    Value::int(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: &str) -> Value {
        Value::str(x)
    }

    #[test]
    fn cast_to_int64_matches_spf13_cast() {
        let cases: &[(&str, i64)] = &[
            ("3.0", 3),
            ("1.5", 0),
            ("1e3", 0),
            ("010", 8),
            ("0x10", 16),
            ("abc", 0),
            ("12abc", 0),
            ("1_000", 1000),
            ("0b101", 5),
            ("0o17", 15),
            ("-42", -42),
            ("+7", 7),
            ("08", 0),
            ("0", 0),
            ("3.", 0),
            ("", 0),
            ("9223372036854775807", i64::MAX),
            ("9223372036854775808", 0),
            ("-9223372036854775808", i64::MIN),
            ("_1", 0),
            ("1__0", 0),
        ];
        for (input, want) in cases {
            assert_eq!(to_int64(&s(input)), *want, "{input:?}");
        }
        assert_eq!(to_int64(&Value::Float(3.99)), 3);
        assert_eq!(to_int64(&Value::Float(-3.99)), -3);
        assert_eq!(to_int64(&Value::Float(1e20)), i64::MIN);
        assert_eq!(to_int64(&Value::Float(f64::NAN)), i64::MIN);
        assert_eq!(to_int64(&Value::Bool(true)), 1);
        assert_eq!(to_int64(&Value::Nil), 0);
        assert_eq!(to_int64(&Value::list(vec![])), 0);
        assert_eq!(to_int64(&Value::Uint(u64::MAX, UintType::Uint64)), -1);
    }

    #[test]
    fn cast_to_float64_matches_strconv() {
        let cases: &[(&str, Option<f64>)] = &[
            ("1.5", Some(1.5)),
            ("1e3", Some(1000.0)),
            (".5", Some(0.5)),
            ("5.", Some(5.0)),
            ("010", Some(10.0)),
            ("0x10", None),
            ("0x1p4", Some(16.0)),
            ("0x1.8p1", Some(3.0)),
            ("1_000", Some(1000.0)),
            ("1__0", None),
            ("_1", None),
            ("inf", Some(f64::INFINITY)),
            ("-Infinity", Some(f64::NEG_INFINITY)),
            ("1e400", None),
            ("1e", None),
            ("e5", None),
            ("", None),
            (" 1", None),
        ];
        for (input, want) in cases {
            assert_eq!(parse_go_float(input), *want, "{input:?}");
        }
        assert!(parse_go_float("NaN").is_some_and(f64::is_nan));
        assert_eq!(parse_go_float("+nan"), None);
        assert_eq!(to_float64(&s("junk")), 0.0);
        assert_eq!(to_float64(&Value::int64(7)), 7.0);
    }

    #[test]
    fn atoi_and_to_decimal() {
        let call = |f: fn(&[Value]) -> FuncResult, v: Value| f(&[v]).map(|x| format!("{x:?}"));
        assert_eq!(call(atoi, s("42")).ok(), Some("42".into()));
        assert_eq!(call(atoi, s("4.2")).ok(), Some("0".into()));
        assert_eq!(call(atoi, s("0x10")).ok(), Some("0".into()));
        assert_eq!(call(atoi, s("1_000")).ok(), Some("0".into()));
        assert_eq!(
            call(atoi, s("99999999999999999999")).ok(),
            Some("9223372036854775807".into())
        );
        assert_eq!(call(to_decimal, s("0777")).ok(), Some("int64(511)".into()));
        assert_eq!(
            call(to_decimal, go_int(777)).ok(),
            Some("int64(511)".into())
        );
        assert_eq!(call(to_decimal, s("8")).ok(), Some("int64(0)".into()));
    }

    #[test]
    fn to_strings_drops_nils_and_wraps_scalars() {
        let l = Value::list(vec![go_int(1), Value::Nil, s("x"), Value::Bool(true)]);
        let got = to_strings(&[l]).ok().map(|v| format!("{v:?}"));
        assert_eq!(got.as_deref(), Some(r#"[]string["1", "x", "true"]"#));
        let got = to_strings(&[Value::Nil]).ok().map(|v| format!("{v:?}"));
        assert_eq!(got.as_deref(), Some("[]string[]"));
        let got = to_strings(&[go_int(5)]).ok().map(|v| format!("{v:?}"));
        assert_eq!(got.as_deref(), Some(r#"[]string["5"]"#));
        let b = Value::Bytes(std::sync::Arc::from(&b"hi"[..]));
        let got = to_strings(&[b]).ok().map(|v| format!("{v:?}"));
        assert_eq!(got.as_deref(), Some(r#"[]string["104", "105"]"#));
    }
}
