//! The slices of Go's `strconv`, `fmt` and `encoding/json` number and string
//! formatting that YAML encoding and its error messages need.
//!
//! yaml.v2 prints floats with `strconv.FormatFloat(f, 'g', -1, 64)` (map keys in
//! sigs.k8s.io/yaml with 32-bit precision), Helm's `toYaml` first goes through
//! `encoding/json`'s float rule, and error texts embed values with `%v` / `%#v`.
//! Kept here, private to the codec, so the codec does not depend on the template
//! engine's `fmt` module.

use super::decode::GoValue;

/// Shortest decimal digits of `f` (as f32 when `bits32`), with the decimal point
/// position: value = 0.DIGITS × 10^dp. Zero has no digits.
fn shortest(f: f64, bits32: bool) -> (bool, Vec<u8>, i32) {
    let neg = f.is_sign_negative();
    let s = if bits32 {
        format!("{:e}", (f as f32).abs())
    } else {
        format!("{:e}", f.abs())
    };
    let (mant, exp) = s.split_once('e').unwrap_or((s.as_str(), "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: Vec<u8> = mant.bytes().filter(u8::is_ascii_digit).collect();
    if digits.iter().all(|&d| d == b'0') {
        return (neg, Vec::new(), 0);
    }
    (neg, digits, exp + 1)
}

fn fmt_e(out: &mut String, d: &[u8], dp: i32, prec: i32) {
    out.push(if d.is_empty() { '0' } else { d[0] as char });
    if prec > 0 {
        out.push('.');
        for i in 1..=prec as usize {
            out.push(d.get(i).map_or('0', |&c| c as char));
        }
    }
    out.push('e');
    let mut exp = if d.is_empty() { 0 } else { dp - 1 };
    if exp < 0 {
        out.push('-');
        exp = -exp;
    } else {
        out.push('+');
    }
    if exp < 10 {
        out.push('0');
    }
    out.push_str(&exp.to_string());
}

fn fmt_f(out: &mut String, d: &[u8], dp: i32, prec: i32) {
    if dp > 0 {
        let m = (dp as usize).min(d.len());
        for &c in &d[..m] {
            out.push(c as char);
        }
        for _ in m..dp as usize {
            out.push('0');
        }
    } else {
        out.push('0');
    }
    if prec > 0 {
        out.push('.');
        for i in 1..=prec {
            let j = dp + i - 1;
            let c = if j >= 0 && (j as usize) < d.len() {
                d[j as usize] as char
            } else {
                '0'
            };
            out.push(c);
        }
    }
}

fn special(f: f64) -> Option<String> {
    if f.is_nan() {
        Some("NaN".to_string())
    } else if f.is_infinite() {
        Some(if f > 0.0 { "+Inf" } else { "-Inf" }.to_string())
    } else {
        None
    }
}

/// Go `strconv.FormatFloat(f, 'g', -1, 64)` (or `32`).
pub fn format_g(f: f64, bits32: bool) -> String {
    if let Some(s) = special(f) {
        return s;
    }
    let (neg, d, dp) = shortest(f, bits32);
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    let nd = d.len() as i32;
    let exp = dp - 1;
    if !d.is_empty() && !(-4..6).contains(&exp) {
        fmt_e(&mut out, &d, dp, nd - 1);
    } else {
        fmt_f(&mut out, &d, dp, (nd - dp).max(0));
    }
    out
}

/// Go `strconv.FormatFloat(f, 'f', -1, 64)`.
pub fn format_f(f: f64) -> String {
    if let Some(s) = special(f) {
        return s;
    }
    let (neg, d, dp) = shortest(f, false);
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    fmt_f(&mut out, &d, dp, (d.len() as i32 - dp).max(0));
    out
}

/// Go `encoding/json`'s float text ('f' between 1e-6 and 1e21, else 'e' with a
/// one- or two-digit exponent).
pub fn format_json_float(f: f64) -> String {
    let (neg, d, dp) = shortest(f, false);
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    let abs = f.abs();
    let nd = d.len() as i32;
    if abs != 0.0 && !(1e-6..1e21).contains(&abs) {
        fmt_e(&mut out, &d, dp, nd - 1);
        let b = out.as_bytes();
        let n = b.len();
        if n >= 4 && b[n - 4] == b'e' && b[n - 3] == b'-' && b[n - 2] == b'0' {
            out.remove(n - 2);
        }
    } else {
        fmt_f(&mut out, &d, dp, (nd - dp).max(0));
    }
    out
}

/// Approximates Go's `unicode.IsPrint` for `strconv.Quote`.
fn is_print(c: char) -> bool {
    if c == ' ' {
        return true;
    }
    if c.is_control() || c.is_whitespace() {
        return false;
    }
    let v = c as u32;
    !matches!(v,
        0xAD | 0x600..=0x605 | 0x61C | 0x6DD | 0x70F | 0x180E | 0x200B..=0x200F
        | 0x202A..=0x202E | 0x2060..=0x206F | 0xFEFF | 0xFFF9..=0xFFFB
        | 0xE000..=0xF8FF | 0xF0000..=0x10FFFF | 0xFFFE | 0xFFFF)
}

/// Go `strconv.Quote`.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            c if is_print(c) => out.push(c),
            c if (c as u32) < 0x20 || c as u32 == 0x7F => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c if (c as u32) < 0x10000 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push_str(&format!("\\U{:08x}", c as u32)),
        }
    }
    out.push('"');
    out
}

/// The order Go's `fmt` gives keys of different dynamic types: nil first, then by
/// the address of the type descriptor, which in the Helmfile 0.166 binary is
/// string, uint64, int, float64, bool.
fn fmt_type_rank(v: &GoValue) -> u8 {
    match v {
        GoValue::Nil => 0,
        GoValue::Str(_) => 1,
        GoValue::Uint(_) => 2,
        GoValue::Int(_) => 3,
        GoValue::Float(_) => 4,
        GoValue::Bool(_) => 5,
        GoValue::Seq(_) => 6,
        GoValue::Map(_) => 7,
    }
}

/// Orders map keys the way Go's `fmt` prints maps (same-type keys in natural
/// order; mixed types grouped by type).
fn fmt_key_cmp(a: &GoValue, b: &GoValue) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let (ra, rb) = (fmt_type_rank(a), fmt_type_rank(b));
    if ra != rb {
        return ra.cmp(&rb);
    }
    match (a, b) {
        (GoValue::Bool(x), GoValue::Bool(y)) => x.cmp(y),
        (GoValue::Int(x), GoValue::Int(y)) => x.cmp(y),
        (GoValue::Uint(x), GoValue::Uint(y)) => x.cmp(y),
        (GoValue::Float(x), GoValue::Float(y)) => x.partial_cmp(y).unwrap_or_else(|| {
            // NaN sorts before everything else.
            match (x.is_nan(), y.is_nan()) {
                (true, false) => Ordering::Less,
                (false, true) => Ordering::Greater,
                _ => Ordering::Equal,
            }
        }),
        (GoValue::Str(x), GoValue::Str(y)) => x.as_bytes().cmp(y.as_bytes()),
        _ => Ordering::Equal,
    }
}

/// Go `%v`.
pub fn plain_v(v: &GoValue) -> String {
    match v {
        GoValue::Nil => "<nil>".to_string(),
        GoValue::Bool(b) => b.to_string(),
        GoValue::Int(i) => i.to_string(),
        GoValue::Uint(u) => u.to_string(),
        GoValue::Float(f) => format_g(*f, false),
        GoValue::Str(s) => s.clone(),
        GoValue::Seq(_) | GoValue::Map(_) => container(v, plain_v),
    }
}

/// A slice (`[a b]`) or map (`map[k:v]`, keys in fmt's order) with each element
/// printed by `elem`, as fmt prints containers under `%v` and `%s`.
fn container(v: &GoValue, elem: fn(&GoValue) -> String) -> String {
    match v {
        GoValue::Seq(items) => {
            format!("[{}]", items.iter().map(elem).collect::<Vec<_>>().join(" "))
        }
        GoValue::Map(m) => {
            let mut entries: Vec<&(GoValue, GoValue)> = m.iter().collect();
            entries.sort_by(|a, b| fmt_key_cmp(&a.0, &b.0));
            format!(
                "map[{}]",
                entries
                    .iter()
                    .map(|(k, v)| format!("{}:{}", elem(k), elem(v)))
                    .collect::<Vec<_>>()
                    .join(" ")
            )
        }
        other => elem(other),
    }
}

/// Go `%s` of a value held in a container (a map or slice element, or a map
/// key): strings print as they are, a nil interface as `<nil>`, and other scalars
/// as fmt's bad-verb form (`%!s(int=1)`, `%!s(bool=true)`, `%!s(float64=2.5)`).
pub fn s_verb(v: &GoValue) -> String {
    match v {
        GoValue::Nil => "<nil>".to_string(),
        GoValue::Str(s) => s.clone(),
        GoValue::Bool(_) | GoValue::Int(_) | GoValue::Uint(_) | GoValue::Float(_) => {
            format!("%!s({}={})", v.type_name(), plain_v(v))
        }
        GoValue::Seq(_) | GoValue::Map(_) => container(v, s_verb),
    }
}

/// Go `%#v` of a value held in an `interface{}` (`top`: not inside a container,
/// where a nil prints as `<nil>` rather than `interface {}(nil)`).
pub fn sharp_v(v: &GoValue, top: bool) -> String {
    match v {
        GoValue::Nil => {
            if top {
                "<nil>".to_string()
            } else {
                "interface {}(nil)".to_string()
            }
        }
        GoValue::Bool(b) => b.to_string(),
        GoValue::Int(i) => i.to_string(),
        GoValue::Uint(u) => format!("0x{u:x}"),
        GoValue::Float(f) => format_g(*f, false),
        GoValue::Str(s) => quote(s),
        GoValue::Seq(items) => format!(
            "[]interface {{}}{{{}}}",
            items
                .iter()
                .map(|x| sharp_v(x, false))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        GoValue::Map(m) => {
            let mut entries: Vec<&(GoValue, GoValue)> = m.iter().collect();
            entries.sort_by(|a, b| fmt_key_cmp(&a.0, &b.0));
            format!(
                "map[interface {{}}]interface {{}}{{{}}}",
                entries
                    .iter()
                    .map(|(k, v)| format!("{}:{}", sharp_v(k, false), sharp_v(v, false)))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn g_format_matches_go() {
        let cases = [
            (100000.0, "100000"),
            (1e6, "1e+06"),
            (123456.7, "123456.7"),
            (1.234567e6, "1.234567e+06"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1.5e-7, "1.5e-07"),
            (1e20, "1e+20"),
            (1e100, "1e+100"),
            (123456789012345678.0, "1.2345678901234568e+17"),
            (-0.0, "-0"),
            (0.0, "0"),
            (2.5, "2.5"),
            (3.0, "3"),
        ];
        for (f, want) in cases {
            assert_eq!(format_g(f, false), want, "{f}");
        }
        assert_eq!(format_g(1.1, true), "1.1");
        assert_eq!(format_g(std::f64::consts::PI, true), "3.1415927");
    }

    #[test]
    fn json_format_matches_go() {
        let cases = [
            (1e6, "1000000"),
            (0.00001, "0.00001"),
            (1.5e-7, "1.5e-7"),
            (1e20, "100000000000000000000"),
            (1e21, "1e+21"),
            (123456789012345678.0, "123456789012345680"),
            (-0.0, "-0"),
            (2.5, "2.5"),
            (1e-10, "1e-10"),
        ];
        for (f, want) in cases {
            assert_eq!(format_json_float(f), want, "{f}");
        }
    }

    #[test]
    fn s_verb_matches_go() {
        let mut m = crate::funcs::codec::yaml::decode::GoMap::new();
        m.insert(GoValue::Int(1), GoValue::Str("a".into()));
        m.insert(
            GoValue::Str("b".into()),
            GoValue::Seq(vec![
                GoValue::Nil,
                GoValue::Float(2.5),
                GoValue::Bool(true),
                GoValue::Str("s".into()),
            ]),
        );
        let m = GoValue::Map(m);
        // What Helmfile 0.166 printed for this map (string keys sort before ints).
        assert_eq!(
            s_verb(&m),
            "map[b:[<nil> %!s(float64=2.5) %!s(bool=true) s] %!s(int=1):a]"
        );
    }

    #[test]
    fn quoting() {
        assert_eq!(quote("a\"b\n\u{1}é\u{a0}"), "\"a\\\"b\\n\\x01é\\u00a0\"");
    }
}
