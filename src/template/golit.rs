//! Go literal syntax: `strconv.ParseUint/ParseInt/ParseFloat` with base 0,
//! `strconv.Unquote` and `UnquoteChar`, as the template parser uses them.
//!
//! Template number and string literals are Go literals, and which of the integer,
//! unsigned and float interpretations succeed decides a constant's type (and, for
//! oddities such as `089`, the error text), so these follow Go's rules rather than
//! Rust's.

/// Go's `underscoreOK`: underscores only between digits (or after a base prefix).
fn underscore_ok(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    let mut saw = b'^';
    let b = if !b.is_empty() && (b[0] == b'-' || b[0] == b'+') {
        &b[1..]
    } else {
        b
    };
    let mut hex = false;
    if b.len() >= 2 && b[0] == b'0' && matches!(b[1] | 0x20, b'b' | b'o' | b'x') {
        i = 2;
        saw = b'0';
        hex = b[1] | 0x20 == b'x';
    }
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_digit() || (hex && (c | 0x20).is_ascii_hexdigit()) {
            saw = b'0';
        } else if c == b'_' {
            if saw != b'0' {
                return false;
            }
            saw = b'_';
        } else {
            if saw == b'_' {
                return false;
            }
            saw = b'!';
        }
        i += 1;
    }
    saw != b'_'
}

/// `strconv.ParseUint(s, 0, 64)`.
pub fn parse_uint(s: &str) -> Option<u64> {
    if s.is_empty() {
        return None;
    }
    let b = s.as_bytes();
    let (base, digits) = if b[0] == b'0' && b.len() >= 2 {
        match b[1] | 0x20 {
            b'x' => (16, &s[2..]),
            b'o' => (8, &s[2..]),
            b'b' => (2, &s[2..]),
            _ => (8, &s[1..]),
        }
    } else {
        (10, s)
    };
    let mut underscores = false;
    let mut n: u64 = 0;
    let mut any = false;
    for c in digits.bytes() {
        if c == b'_' {
            underscores = true;
            continue;
        }
        let d = (c as char).to_digit(36)? as u64;
        if d >= base {
            return None;
        }
        any = true;
        n = n.checked_mul(base)?.checked_add(d)?;
    }
    // "0x" alone has no digits; "0" alone is the octal reading of an empty string,
    // which Go accepts as zero.
    if !any && base != 8 {
        return None;
    }
    if !any && digits.is_empty() && s.len() > 1 {
        return None;
    }
    if underscores && !underscore_ok(s) {
        return None;
    }
    Some(n)
}

/// `strconv.ParseInt(s, 0, 64)`.
pub fn parse_int(s: &str) -> Option<i64> {
    let (neg, body) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let u = parse_uint(body)?;
    if neg {
        if u > 1u64 << 63 {
            return None;
        }
        Some((u as i64).wrapping_neg())
    } else {
        i64::try_from(u).ok()
    }
}

/// `strconv.ParseFloat(s, 64)` for the forms a template lexer can produce (decimal
/// and hexadecimal, underscores). Out-of-range values fail, as they do in Go.
pub fn parse_float(s: &str) -> Option<f64> {
    if s.contains('_') {
        if !underscore_ok(s) {
            return None;
        }
        return parse_float(&s.replace('_', ""));
    }
    let (neg, body) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let lower = body.to_ascii_lowercase();
    let v = if let Some(hex) = lower.strip_prefix("0x") {
        parse_hex_float(hex)?
    } else {
        if body.is_empty()
            || !body
                .bytes()
                .all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-'))
        {
            return None;
        }
        body.parse::<f64>().ok()?
    };
    if v.is_infinite() {
        return None;
    }
    Some(if neg { -v } else { v })
}

fn parse_hex_float(s: &str) -> Option<f64> {
    let (mant, exp) = match s.split_once('p') {
        Some((m, e)) => (m, Some(e)),
        None => (s, None),
    };
    let (int_part, frac_part) = match mant.split_once('.') {
        Some((a, b)) => (a, b),
        None => (mant, ""),
    };
    if int_part.is_empty() && frac_part.is_empty() {
        return None;
    }
    // A fraction in a hex literal requires an exponent (Go syntax).
    if exp.is_none() && mant.contains('.') {
        return None;
    }
    let mut m: f64 = 0.0;
    for c in int_part.chars() {
        m = m * 16.0 + c.to_digit(16)? as f64;
    }
    let mut scale = 1.0 / 16.0;
    for c in frac_part.chars() {
        m += c.to_digit(16)? as f64 * scale;
        scale /= 16.0;
    }
    let e: i32 = match exp {
        Some(e) => {
            if e.is_empty() || e == "+" || e == "-" {
                return None;
            }
            e.parse().ok()?
        }
        None => 0,
    };
    Some(m * 2f64.powi(e))
}

/// Go's `strconv.UnquoteChar`: decodes one (possibly escaped) character at the start
/// of `s`, returning it and the rest. `quote` is the enclosing quote character.
pub fn unquote_char(s: &str, quote: char) -> Option<(char, Option<u8>, &str)> {
    let mut chars = s.chars();
    let c = chars.next()?;
    if c == quote && (quote == '\'' || quote == '"') {
        return None;
    }
    if c != '\\' {
        return Some((c, None, chars.as_str()));
    }
    let rest = chars.as_str();
    let e = rest.chars().next()?;
    let rest = &rest[e.len_utf8()..];
    let simple = match e {
        'a' => Some('\x07'),
        'b' => Some('\x08'),
        'f' => Some('\x0c'),
        'n' => Some('\n'),
        'r' => Some('\r'),
        't' => Some('\t'),
        'v' => Some('\x0b'),
        '\\' => Some('\\'),
        '\'' | '"' => {
            if e != quote {
                return None;
            }
            Some(e)
        }
        _ => None,
    };
    if let Some(c) = simple {
        return Some((c, None, rest));
    }
    match e {
        'x' | 'u' | 'U' => {
            let n = match e {
                'x' => 2,
                'u' => 4,
                _ => 8,
            };
            let digits = rest.get(..n)?;
            let v = u32::from_str_radix(digits, 16).ok()?;
            if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
                return None;
            }
            if e == 'x' {
                // A single byte, which need not be valid UTF-8 on its own.
                return Some(('\0', Some(v as u8), &rest[n..]));
            }
            let c = char::from_u32(v)?;
            Some((c, None, &rest[n..]))
        }
        '0'..='7' => {
            let digits = s.get(1..4)?;
            if !digits.bytes().all(|b| (b'0'..=b'7').contains(&b)) {
                return None;
            }
            let v = u32::from_str_radix(digits, 8).ok()?;
            if v > 255 {
                return None;
            }
            Some(('\0', Some(v as u8), &s[4..]))
        }
        _ => None,
    }
}

/// Go's `strconv.Unquote` for `"..."` and `` `...` `` literals, returning the bytes
/// (a Go string may hold invalid UTF-8 from `\x` escapes; those are replaced here).
pub fn unquote(s: &str) -> Option<String> {
    let b = s.as_bytes();
    if b.len() < 2 {
        return None;
    }
    let q = b[0];
    if q != b[b.len() - 1] {
        return None;
    }
    let inner = &s[1..s.len() - 1];
    match q {
        b'`' => {
            if inner.contains('`') {
                return None;
            }
            Some(inner.replace('\r', ""))
        }
        b'"' => {
            if !inner.contains('\\') && !inner.contains('"') && !inner.contains('\n') {
                return Some(inner.to_string());
            }
            let mut out: Vec<u8> = Vec::with_capacity(inner.len());
            let mut rest = inner;
            while !rest.is_empty() {
                if rest.starts_with('\n') {
                    return None;
                }
                let (c, byte, tail) = unquote_char(rest, '"')?;
                match byte {
                    Some(b) => out.push(b),
                    None => {
                        let mut buf = [0u8; 4];
                        out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                    }
                }
                rest = tail;
            }
            Some(super::gostr::from_bytes(out))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ints() {
        assert_eq!(parse_uint("0x10"), Some(16));
        assert_eq!(parse_uint("0o17"), Some(15));
        assert_eq!(parse_uint("017"), Some(15));
        assert_eq!(parse_uint("0b101"), Some(5));
        assert_eq!(parse_uint("1_000"), Some(1000));
        assert_eq!(parse_uint("1__0"), None);
        assert_eq!(parse_uint("089"), None);
        assert_eq!(parse_uint("0"), Some(0));
        assert_eq!(parse_uint("0x"), None);
        assert_eq!(parse_int("-0"), Some(0));
        assert_eq!(parse_int("-9223372036854775808"), Some(i64::MIN));
        assert_eq!(parse_int("9223372036854775808"), None);
    }

    #[test]
    fn floats() {
        assert_eq!(parse_float("1e3"), Some(1000.0));
        assert_eq!(parse_float("089"), Some(89.0));
        assert_eq!(parse_float("0x1p-2"), Some(0.25));
        assert_eq!(parse_float("1_000.5"), Some(1000.5));
        assert_eq!(parse_float("1e400"), None);
        assert_eq!(parse_float("."), None);
    }

    #[test]
    fn strings() {
        assert_eq!(unquote(r#""a\nb""#).as_deref(), Some("a\nb"));
        assert_eq!(unquote(r#""\x41\u00e9\101""#).as_deref(), Some("AéA"));
        assert_eq!(unquote(r#""\'""#), None);
        assert_eq!(unquote("`a\r\\n`").as_deref(), Some("a\\n"));
        assert_eq!(
            unquote_char("a'", '\'').map(|x| (x.0, x.2)),
            Some(('a', "'"))
        );
    }
}
