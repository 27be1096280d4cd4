//! YAML 1.1 implicit typing as go-yaml v2 does it, and the Go `strconv` behaviour it
//! relies on.
//!
//! Whether `0777`, `1_000`, `08`, `1e400`, `0b101` or `2024-01-01` is a number, a string
//! or a timestamp follows from go-yaml's `resolve` plus Go's `ParseInt`/`ParseUint`/
//! `ParseFloat` and `time.Parse` edge cases (`08` is a float because octal parsing
//! fails and the float pattern matches; `1e400` stays a string because `ParseFloat`
//! reports a range error). The same function decides which strings the encoder must
//! quote, so decoding and encoding agree by construction.

use super::decode::GoValue;

pub const STR_TAG: &str = "tag:yaml.org,2002:str";
pub const BOOL_TAG: &str = "tag:yaml.org,2002:bool";
pub const INT_TAG: &str = "tag:yaml.org,2002:int";
pub const FLOAT_TAG: &str = "tag:yaml.org,2002:float";
pub const NULL_TAG: &str = "tag:yaml.org,2002:null";
pub const TIMESTAMP_TAG: &str = "tag:yaml.org,2002:timestamp";
pub const BINARY_TAG: &str = "tag:yaml.org,2002:binary";
pub const MERGE_TAG: &str = "tag:yaml.org,2002:merge";
pub const SEQ_TAG: &str = "tag:yaml.org,2002:seq";
pub const MAP_TAG: &str = "tag:yaml.org,2002:map";

const LONG_TAG_PREFIX: &str = "tag:yaml.org,2002:";

/// `!!int` for `tag:yaml.org,2002:int`; other tags unchanged.
pub fn short_tag(tag: &str) -> String {
    match tag.strip_prefix(LONG_TAG_PREFIX) {
        Some(rest) => format!("!!{rest}"),
        None => tag.to_string(),
    }
}

fn resolvable_tag(tag: &str) -> bool {
    matches!(
        tag,
        "" | STR_TAG | BOOL_TAG | INT_TAG | FLOAT_TAG | NULL_TAG | TIMESTAMP_TAG
    )
}

/// The outcome of resolving a scalar: its tag and Go value. Timestamps keep their
/// text (go-yaml hands them to `interface{}` targets as strings). The tag is one of
/// the constants above or the tag written on the node, so it is never allocated.
#[derive(Clone, Debug)]
pub struct Resolved<'t> {
    pub tag: &'t str,
    pub value: GoValue,
}

/// go-yaml's `resolve(tag, in)`. Errors carry go-yaml's message (without `yaml: `).
pub fn resolve<'t>(tag: &'t str, input: &str) -> Result<Resolved<'t>, String> {
    if !resolvable_tag(tag) {
        return Ok(Resolved {
            tag,
            value: GoValue::Str(input.to_string()),
        });
    }
    let r = resolve_implicit(tag, input);
    if tag.is_empty() || tag == r.tag || tag == STR_TAG || tag == BINARY_TAG {
        return Ok(r);
    }
    if tag == FLOAT_TAG && r.tag == INT_TAG {
        if let GoValue::Int(i) = r.value {
            return Ok(Resolved {
                tag: FLOAT_TAG,
                value: GoValue::Float(i as f64),
            });
        }
    }
    Err(format!(
        "cannot decode {} `{}` as a {}",
        short_tag(r.tag),
        input,
        short_tag(tag)
    ))
}

/// Whether an untagged plain scalar resolves to a string without looking past its
/// first byte (go-yaml's resolve table has no entry for that byte).
pub(super) fn plain_is_string(input: &str) -> bool {
    input
        .as_bytes()
        .first()
        .is_some_and(|&b| table_hint(b) == 0)
}

fn table_hint(b: u8) -> u8 {
    match b {
        b'+' | b'-' => b'S',
        b'0'..=b'9' => b'D',
        b'y' | b'Y' | b'n' | b'N' | b't' | b'T' | b'f' | b'F' | b'o' | b'O' | b'~' => b'M',
        b'.' => b'.',
        _ => 0,
    }
}

fn lookup_map(s: &str) -> Option<Resolved<'static>> {
    let (tag, value) = match s {
        "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => {
            (BOOL_TAG, GoValue::Bool(true))
        }
        "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            (BOOL_TAG, GoValue::Bool(false))
        }
        "" | "~" | "null" | "Null" | "NULL" => (NULL_TAG, GoValue::Nil),
        ".nan" | ".NaN" | ".NAN" => (FLOAT_TAG, GoValue::Float(f64::NAN)),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
            (FLOAT_TAG, GoValue::Float(f64::INFINITY))
        }
        "-.inf" | "-.Inf" | "-.INF" => (FLOAT_TAG, GoValue::Float(f64::NEG_INFINITY)),
        "<<" => (MERGE_TAG, GoValue::Str("<<".to_string())),
        _ => return None,
    };
    Some(Resolved { tag, value })
}

fn str_result(input: &str) -> Resolved<'static> {
    Resolved {
        tag: STR_TAG,
        value: GoValue::Str(input.to_string()),
    }
}

fn resolve_implicit(tag: &str, input: &str) -> Resolved<'static> {
    let hint = match input.as_bytes().first() {
        None => b'N',
        Some(&b) => table_hint(b),
    };
    if hint == 0 || tag == STR_TAG || tag == BINARY_TAG {
        return str_result(input);
    }
    if let Some(r) = lookup_map(input) {
        return r;
    }
    match hint {
        b'.' => {
            if let Some(f) = parse_float(input) {
                return Resolved {
                    tag: FLOAT_TAG,
                    value: GoValue::Float(f),
                };
            }
        }
        b'D' | b'S' => {
            if (tag.is_empty() || tag == TIMESTAMP_TAG) && is_timestamp(input) {
                return Resolved {
                    tag: TIMESTAMP_TAG,
                    value: GoValue::Str(input.to_string()),
                };
            }
            let plain: std::borrow::Cow<str> = if input.contains('_') {
                input
                    .chars()
                    .filter(|&c| c != '_')
                    .collect::<String>()
                    .into()
            } else {
                input.into()
            };
            if let Ok(i) = parse_int(&plain) {
                return Resolved {
                    tag: INT_TAG,
                    value: GoValue::Int(i),
                };
            }
            if let Ok(u) = parse_uint(&plain) {
                return Resolved {
                    tag: INT_TAG,
                    value: GoValue::Uint(u),
                };
            }
            if yaml_style_float(&plain) {
                if let Some(f) = parse_float(&plain) {
                    return Resolved {
                        tag: FLOAT_TAG,
                        value: GoValue::Float(f),
                    };
                }
            }
            // ParseInt with base 0 already accepts 0b and -0b forms, so go-yaml's
            // explicit binary fallbacks never add anything here.
        }
        _ => {}
    }
    str_result(input)
}

/// `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`
fn yaml_style_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if i < b.len() && (b[i] == b'-' || b[i] == b'+') {
        i += 1;
    }
    let digits = |i: &mut usize| {
        let st = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - st
    };
    if i < b.len() && b[i] == b'.' {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    } else {
        if digits(&mut i) == 0 {
            return false;
        }
        if i < b.len() && b[i] == b'.' {
            i += 1;
            digits(&mut i);
        }
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'-' || b[i] == b'+') {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

/// Why a Go integer parse failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NumError {
    Syntax,
    Range,
}

/// Go `strconv.ParseUint(s, 0, 64)` for input without underscores.
pub fn parse_uint(s: &str) -> Result<u64, NumError> {
    let b = s.as_bytes();
    if b.is_empty() {
        return Err(NumError::Syntax);
    }
    let (base, digits): (u64, &[u8]) = if b[0] == b'0' {
        if b.len() >= 3 && (b[1] | 0x20) == b'b' {
            (2, &b[2..])
        } else if b.len() >= 3 && (b[1] | 0x20) == b'o' {
            (8, &b[2..])
        } else if b.len() >= 3 && (b[1] | 0x20) == b'x' {
            (16, &b[2..])
        } else {
            (8, &b[1..])
        }
    } else {
        (10, b)
    };
    let mut n: u64 = 0;
    let mut range = false;
    for &c in digits {
        let d = match c {
            b'0'..=b'9' => (c - b'0') as u64,
            b'a'..=b'z' => (c - b'a' + 10) as u64,
            b'A'..=b'Z' => (c - b'A' + 10) as u64,
            _ => return Err(NumError::Syntax),
        };
        if d >= base {
            return Err(NumError::Syntax);
        }
        if range {
            continue;
        }
        match n.checked_mul(base).and_then(|m| m.checked_add(d)) {
            Some(v) => n = v,
            None => range = true,
        }
    }
    if range {
        Err(NumError::Range)
    } else {
        Ok(n)
    }
}

/// Go `strconv.ParseInt(s, 0, 64)` for input without underscores.
pub fn parse_int(s: &str) -> Result<i64, NumError> {
    let (neg, rest) = match s.as_bytes().first() {
        Some(b'+') => (false, &s[1..]),
        Some(b'-') => (true, &s[1..]),
        _ => (false, s),
    };
    let un = parse_uint(rest)?;
    let cutoff = 1u64 << 63;
    if !neg && un >= cutoff {
        return Err(NumError::Range);
    }
    if neg && un > cutoff {
        return Err(NumError::Range);
    }
    if neg {
        Ok((un as i64).wrapping_neg())
    } else {
        Ok(un as i64)
    }
}

/// Go's rule for where `_` may appear in a number literal.
fn underscore_ok(s: &str) -> bool {
    let mut b = s.as_bytes();
    let mut saw = b'^';
    let mut i = 0;
    if !b.is_empty() && (b[0] == b'-' || b[0] == b'+') {
        b = &b[1..];
    }
    let mut hex = false;
    if b.len() >= 2 && b[0] == b'0' && matches!(b[1] | 0x20, b'b' | b'o' | b'x') {
        i = 2;
        saw = b'0';
        hex = (b[1] | 0x20) == b'x';
    }
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_digit() || (hex && (c | 0x20).is_ascii_hexdigit()) {
            saw = b'0';
            i += 1;
            continue;
        }
        if c == b'_' {
            if saw != b'0' {
                return false;
            }
            saw = b'_';
            i += 1;
            continue;
        }
        if saw == b'_' {
            return false;
        }
        saw = b'!';
        i += 1;
    }
    saw != b'_'
}

/// Go `strconv.ParseFloat(s, 64)` restricted to decimal notation (the only forms
/// go-yaml hands it): `None` for syntax errors and for overflow, which Go reports as
/// a range error.
pub fn parse_float(s: &str) -> Option<f64> {
    let b = s.as_bytes();
    let mut i = 0;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        i += 1;
    }
    // Go also accepts inf/nan spellings and hex floats; go-yaml never reaches
    // ParseFloat with those (hint characters and the float pattern exclude them),
    // except for `.`-led text, which cannot be either.
    let mut saw_dot = false;
    let mut saw_digits = false;
    let mut underscores = false;
    while i < b.len() {
        let c = b[i];
        if c == b'_' {
            underscores = true;
        } else if c == b'.' {
            if saw_dot {
                break;
            }
            saw_dot = true;
        } else if c.is_ascii_digit() {
            saw_digits = true;
        } else {
            break;
        }
        i += 1;
    }
    if !saw_digits {
        return None;
    }
    if i < b.len() && (b[i] | 0x20) == b'e' {
        i += 1;
        if i >= b.len() {
            return None;
        }
        if b[i] == b'+' || b[i] == b'-' {
            i += 1;
        }
        if i >= b.len() || !b[i].is_ascii_digit() {
            return None;
        }
        while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_') {
            if b[i] == b'_' {
                underscores = true;
            }
            i += 1;
        }
    }
    if i != b.len() {
        return None;
    }
    if underscores && !underscore_ok(s) {
        return None;
    }
    let f: f64 = if underscores {
        s.chars()
            .filter(|&c| c != '_')
            .collect::<String>()
            .parse()
            .ok()?
    } else {
        s.parse().ok()?
    };
    if f.is_infinite() {
        return None;
    }
    Some(f)
}

// ---- timestamps ----------------------------------------------------------------------

/// Whether go-yaml's `parseTimestamp` accepts `s` (one of its four `time.Parse`
/// layouts matches).
pub fn is_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    if i != 4 || i == b.len() || b[i] != b'-' {
        return false;
    }
    use Elem::*;
    const LAYOUTS: [&[Elem]; 4] = [
        &[
            Year,
            Lit("-"),
            Month,
            Lit("-"),
            Day,
            Lit("T"),
            Hour,
            Lit(":"),
            Minute,
            Lit(":"),
            Second,
            Frac,
            Zone,
        ],
        &[
            Year,
            Lit("-"),
            Month,
            Lit("-"),
            Day,
            Lit("t"),
            Hour,
            Lit(":"),
            Minute,
            Lit(":"),
            Second,
            Frac,
            Zone,
        ],
        &[
            Year,
            Lit("-"),
            Month,
            Lit("-"),
            Day,
            Lit(" "),
            Hour,
            Lit(":"),
            Minute,
            Lit(":"),
            Second,
            Frac,
        ],
        &[Year, Lit("-"), Month, Lit("-"), Day],
    ];
    LAYOUTS.iter().any(|l| time_parse(l, b))
}

#[derive(Clone, Copy)]
enum Elem {
    Lit(&'static str),
    Year,
    Month,
    Day,
    Hour,
    Minute,
    Second,
    Frac,
    Zone,
}

/// Go `getnum`: one or two digits (exactly two when `fixed`).
fn getnum(v: &[u8], fixed: bool) -> Option<(i64, &[u8])> {
    let d0 = *v.first()?;
    if !d0.is_ascii_digit() {
        return None;
    }
    match v.get(1) {
        Some(d1) if d1.is_ascii_digit() => Some((((d0 - b'0') * 10 + (d1 - b'0')) as i64, &v[2..])),
        _ => {
            if fixed {
                None
            } else {
                Some(((d0 - b'0') as i64, &v[1..]))
            }
        }
    }
}

/// Go `time` package's `skip`: literal layout text must match, where a space in the
/// layout matches one or more spaces.
fn skip_lit<'a>(mut v: &'a [u8], lit: &str) -> Option<&'a [u8]> {
    let mut p = lit.as_bytes();
    while !p.is_empty() {
        if p[0] == b' ' {
            if !v.is_empty() && v[0] != b' ' {
                return None;
            }
            while !p.is_empty() && p[0] == b' ' {
                p = &p[1..];
            }
            while !v.is_empty() && v[0] == b' ' {
                v = &v[1..];
            }
            continue;
        }
        if v.is_empty() || v[0] != p[0] {
            return None;
        }
        p = &p[1..];
        v = &v[1..];
    }
    Some(v)
}

fn days_in(month: i64, year: i64) -> i64 {
    match month {
        2 => {
            let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
            if leap {
                29
            } else {
                28
            }
        }
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

fn time_parse(layout: &[Elem], mut v: &[u8]) -> bool {
    let (mut year, mut month, mut day) = (0i64, 0i64, 0i64);
    for (idx, e) in layout.iter().enumerate() {
        match *e {
            Elem::Lit(l) => match skip_lit(v, l) {
                Some(rest) => v = rest,
                None => return false,
            },
            Elem::Year => {
                if v.len() < 4 || !v[..4].iter().all(u8::is_ascii_digit) {
                    return false;
                }
                year = v[..4].iter().fold(0, |a, d| a * 10 + (d - b'0') as i64);
                v = &v[4..];
            }
            Elem::Month => match getnum(v, false) {
                Some((m, rest)) if (1..=12).contains(&m) => {
                    month = m;
                    v = rest;
                }
                _ => return false,
            },
            Elem::Day => match getnum(v, false) {
                Some((d, rest)) => {
                    day = d;
                    v = rest;
                }
                None => return false,
            },
            Elem::Hour => match getnum(v, false) {
                Some((h, rest)) if h < 24 => v = rest,
                _ => return false,
            },
            Elem::Minute | Elem::Second => match getnum(v, false) {
                Some((m, rest)) if m < 60 => {
                    v = rest;
                    // A fraction in the input with no fraction in the layout is
                    // consumed by the seconds element.
                    let next_is_frac = matches!(layout.get(idx + 1), Some(Elem::Frac));
                    if matches!(e, Elem::Second)
                        && !next_is_frac
                        && v.len() >= 2
                        && (v[0] == b'.' || v[0] == b',')
                        && v[1].is_ascii_digit()
                    {
                        let mut n = 2;
                        while n < v.len() && v[n].is_ascii_digit() {
                            n += 1;
                        }
                        v = &v[n..];
                    }
                }
                _ => return false,
            },
            Elem::Frac => {
                if v.len() >= 2 && (v[0] == b'.' || v[0] == b',') && v[1].is_ascii_digit() {
                    let mut i = 0;
                    while i + 1 < v.len() && v[i + 1].is_ascii_digit() {
                        i += 1;
                    }
                    v = &v[1 + i..];
                }
            }
            Elem::Zone => {
                if v.first() == Some(&b'Z') {
                    v = &v[1..];
                } else {
                    if v.len() < 6 || v[3] != b':' {
                        return false;
                    }
                    let hr = getnum(&v[1..3], true);
                    let mm = getnum(&v[4..6], true);
                    match (hr, mm) {
                        (Some((h, _)), Some((m, _))) if h <= 24 && m <= 60 => {}
                        _ => return false,
                    }
                    if v[0] != b'+' && v[0] != b'-' {
                        return false;
                    }
                    v = &v[6..];
                }
            }
        }
    }
    if !v.is_empty() {
        return false;
    }
    day >= 1 && day <= days_in(month, year)
}

/// go-yaml's encoder also quotes YAML 1.1 base-60 floats (`12:30`) for other parsers.
pub fn is_base60_float(s: &str) -> bool {
    let b = s.as_bytes();
    let Some(&c) = b.first() else {
        return false;
    };
    if !(c == b'+' || c == b'-' || c.is_ascii_digit()) || !s.contains(':') {
        return false;
    }
    // ^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$
    let mut i = 0;
    if b[i] == b'+' || b[i] == b'-' {
        i += 1;
    }
    if i >= b.len() || !b[i].is_ascii_digit() {
        return false;
    }
    i += 1;
    while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_') {
        i += 1;
    }
    let mut groups = 0;
    while i < b.len() && b[i] == b':' {
        i += 1;
        // [0-5]?[0-9]: one digit, or two digits with the first in 0..=5.
        let d1 = b.get(i).copied();
        let d2 = b.get(i + 1).copied();
        match (d1, d2) {
            (Some(a), Some(bb)) if (b'0'..=b'5').contains(&a) && bb.is_ascii_digit() => {
                i += 2;
            }
            (Some(a), _) if a.is_ascii_digit() => {
                i += 1;
            }
            _ => return false,
        }
        groups += 1;
    }
    if groups == 0 {
        return false;
    }
    if i < b.len() && b[i] == b'.' {
        i += 1;
        while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_') {
            i += 1;
        }
    }
    i == b.len()
}

/// How yaml.v3 types a scalar it decodes into `interface{}`: its short tag (`!!str`,
/// `!!int`, ...). v3 reads YAML 1.2's booleans only (`yes`, `on`, `n` are strings)
/// and gives timestamps their own type rather than a string; otherwise it resolves
/// as v2 does. A quoted scalar, or one written with a tag of the program's own
/// (`!foo`, `!`), is a string.
pub fn v3_scalar_tag(tag: &str, plain: bool, input: &str) -> String {
    if !tag.is_empty() && tag != "!" {
        return short_tag(tag);
    }
    if !plain || tag == "!" {
        return "!!str".to_string();
    }
    let v2_only_bool = matches!(
        input,
        "y" | "Y"
            | "yes"
            | "Yes"
            | "YES"
            | "n"
            | "N"
            | "no"
            | "No"
            | "NO"
            | "on"
            | "On"
            | "ON"
            | "off"
            | "Off"
            | "OFF"
    );
    if v2_only_bool {
        return "!!str".to_string();
    }
    short_tag(resolve_implicit("", input).tag)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tag_of(s: &str) -> String {
        short_tag(resolve("", s).map(|r| r.tag).unwrap_or_default())
    }

    #[test]
    fn yaml11_scalars() {
        for s in ["y", "Y", "yes", "on", "On", "OFF", "n", "true", "FALSE"] {
            assert_eq!(tag_of(s), "!!bool", "{s}");
        }
        for s in [
            "tRUE", "yEs", "nan", "inf", "12:30", "0x", "0xG", "1e", "_1",
        ] {
            assert_eq!(tag_of(s), "!!str", "{s}");
        }
        for s in [
            "0777", "0o17", "0x1F", "1_000", "0b101", "-0b101", "+1", "-0",
        ] {
            assert_eq!(tag_of(s), "!!int", "{s}");
        }
        for s in [
            "08",
            "1e3",
            "1.0e+3",
            ".5",
            "+.5",
            "1.",
            "99999999999999999999",
            ".inf",
        ] {
            assert_eq!(tag_of(s), "!!float", "{s}");
        }
        for s in ["", "~", "null", "Null", "NULL"] {
            assert_eq!(tag_of(s), "!!null", "{s}");
        }
        assert_eq!(tag_of("1e400"), "!!str");
        assert_eq!(tag_of("2024-01-01"), "!!timestamp");
        assert_eq!(tag_of("2001-12-14t21:59:43.10-05:00"), "!!timestamp");
        assert_eq!(tag_of("2001-12-14 21:59:43.10"), "!!timestamp");
        assert_eq!(tag_of("2024-02-30"), "!!str");
        assert_eq!(tag_of("2024-1-2"), "!!timestamp");
        // The merge key is recognised by the decoder, not the resolver ('<' has no hint).
        assert_eq!(tag_of("<<"), "!!str");
    }

    #[test]
    fn numbers_take_go_types() {
        assert!(matches!(
            resolve("", "0777").map(|r| r.value),
            Ok(GoValue::Int(511))
        ));
        assert!(matches!(
            resolve("", "18446744073709551615").map(|r| r.value),
            Ok(GoValue::Uint(u64::MAX))
        ));
        assert!(matches!(resolve("", "08").map(|r| r.value), Ok(GoValue::Float(f)) if f == 8.0));
    }

    #[test]
    fn explicit_tags() {
        assert!(matches!(
            resolve(FLOAT_TAG, "1").map(|r| r.value),
            Ok(GoValue::Float(f)) if f == 1.0
        ));
        assert_eq!(
            resolve(INT_TAG, "abc").err().as_deref(),
            Some("cannot decode !!str `abc` as a !!int")
        );
        assert!(matches!(
            resolve(STR_TAG, "123").map(|r| r.value),
            Ok(GoValue::Str(_))
        ));
    }

    #[test]
    fn base60() {
        assert!(is_base60_float("12:30"));
        assert!(is_base60_float("190:20:30"));
        assert!(is_base60_float("-1:2.5"));
        assert!(!is_base60_float("12:61"));
        assert!(!is_base60_float("a:1"));
        assert!(!is_base60_float("1:"));
    }
}
