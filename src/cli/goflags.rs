//! How Helm's flag library (pflag) reads flag values, for the flags of
//! `stackproof template` that Helm parses itself: booleans written `--flag=false`,
//! integers, floats and `key=value` maps (`--labels`); durations (`--timeout 5m`)
//! are Go's `time.ParseDuration`, which the date functions already have
//! ([`crate::funcs::dates::parse_duration`]).
//! Each parser returns pflag's reason text; [`invalid`] wraps it the way Helm
//! reports a bad flag value, so a CI script sees the same error from both.

use crate::template::fmt::quote;

/// pflag's `invalid argument "V" for "FLAG" flag: REASON`. `flag` is how pflag
/// names it: `-l, --labels` when there is a shorthand, else `--timeout`.
pub fn invalid(value: &str, flag: &str, reason: &str) -> String {
    format!(
        "invalid argument {} for {} flag: {reason}",
        quote(value),
        quote(flag)
    )
}

/// Go's `strconv.ParseBool`.
pub fn parse_bool(s: &str) -> Result<bool, String> {
    match s {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => Ok(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" => Ok(false),
        _ => Err(format!(
            "strconv.ParseBool: parsing {}: invalid syntax",
            quote(s)
        )),
    }
}

/// Go's `strconv.ParseInt(s, 0, 64)` (pflag's `int`): a sign, then decimal or a
/// `0x`/`0o`/`0b`/`0` prefixed number, `_` allowed between digits after a prefix.
pub fn parse_int(s: &str) -> Result<i64, String> {
    let syntax = || format!("strconv.ParseInt: parsing {}: invalid syntax", quote(s));
    let range = || format!("strconv.ParseInt: parsing {}: value out of range", quote(s));
    let (neg, body) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let lower = body.to_ascii_lowercase();
    let (radix, digits, prefixed) = if let Some(d) = lower.strip_prefix("0x") {
        (16, d.to_string(), true)
    } else if let Some(d) = lower.strip_prefix("0o") {
        (8, d.to_string(), true)
    } else if let Some(d) = lower.strip_prefix("0b") {
        (2, d.to_string(), true)
    } else if lower.len() > 1 && lower.starts_with('0') {
        (8, lower[1..].to_string(), true)
    } else {
        (10, lower.clone(), false)
    };
    if digits.is_empty() || (!prefixed && digits.contains('_')) {
        return Err(syntax());
    }
    // Underscores only between digits (or after the prefix).
    if digits.ends_with('_') || digits.contains("__") {
        return Err(syntax());
    }
    let clean: String = digits.chars().filter(|&c| c != '_').collect();
    if !clean.chars().all(|c| c.is_digit(radix)) {
        return Err(syntax());
    }
    let magnitude = u128::from_str_radix(&clean, radix).map_err(|_| range())?;
    let limit = if neg { 1u128 << 63 } else { (1u128 << 63) - 1 };
    if magnitude > limit {
        return Err(range());
    }
    Ok(if neg {
        (magnitude as i128).wrapping_neg() as i64
    } else {
        magnitude as i64
    })
}

/// Go's `strconv.ParseFloat(s, 32)` (pflag's `float32`), as far as Rust's float
/// syntax agrees with Go's (decimal, exponent, `inf`, `nan`).
pub fn parse_float32(s: &str) -> Result<f32, String> {
    let v: f64 = s
        .parse()
        .map_err(|_| format!("strconv.ParseFloat: parsing {}: invalid syntax", quote(s)))?;
    if v.is_finite() && (v as f32).is_infinite() {
        return Err(format!(
            "strconv.ParseFloat: parsing {}: value out of range",
            quote(s)
        ));
    }
    Ok(v as f32)
}

/// pflag's `stringToString` for one occurrence: `k=v` (quotes trimmed), or with
/// more than one `=` a CSV record of `k=v` pairs. Returns the pairs in order.
pub fn parse_string_to_string(val: &str) -> Result<Vec<(String, String)>, String> {
    let items: Vec<String> = match val.matches('=').count() {
        0 => return Err(format!("{val} must be formatted as key=value")),
        1 => vec![val.trim_matches('"').to_string()],
        _ => csv_record(val)?,
    };
    items
        .into_iter()
        .map(|pair| match pair.split_once('=') {
            Some((k, v)) => Ok((k.to_string(), v.to_string())),
            None => Err(format!("{pair} must be formatted as key=value")),
        })
        .collect()
}

/// One record of Go's `encoding/csv` reader: comma-separated fields, a field in
/// double quotes may hold commas and `""` for a quote.
fn csv_record(line: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut chars = line.chars().peekable();
    loop {
        let mut field = String::new();
        if chars.peek() == Some(&'"') {
            chars.next();
            loop {
                match chars.next() {
                    Some('"') if chars.peek() == Some(&'"') => {
                        chars.next();
                        field.push('"');
                    }
                    Some('"') => break,
                    Some(c) => field.push(c),
                    None => {
                        return Err(
                            "record on line 1; parse error on line 2, column 0: extraneous or missing \" in quoted-field".into(),
                        )
                    }
                }
            }
            match chars.next() {
                None => {
                    out.push(field);
                    return Ok(out);
                }
                Some(',') => out.push(field),
                Some(_) => {
                    return Err(
                        "parse error on line 1, column 0: extraneous or missing \" in quoted-field"
                            .into(),
                    )
                }
            }
        } else {
            loop {
                match chars.next() {
                    None => {
                        out.push(field);
                        return Ok(out);
                    }
                    Some(',') => {
                        out.push(field);
                        break;
                    }
                    Some(c) => field.push(c),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse_like_go() {
        use crate::funcs::dates::parse_duration;
        assert_eq!(parse_duration("5m"), Ok(300_000_000_000));
        assert_eq!(parse_duration("1h30m"), Ok(5_400_000_000_000));
        assert_eq!(parse_duration("1.5s"), Ok(1_500_000_000));
        assert_eq!(parse_duration("0"), Ok(0));
        // helm v3.15.3 / v4.3.1: `--timeout abc`, `--timeout 5`.
        assert_eq!(
            parse_duration("abc"),
            Err("time: invalid duration \"abc\"".into())
        );
        assert_eq!(
            parse_duration("5"),
            Err("time: missing unit in duration \"5\"".into())
        );
        assert_eq!(
            parse_duration("5x"),
            Err("time: unknown unit \"x\" in duration \"5x\"".into())
        );
    }

    #[test]
    fn numbers_and_bools_parse_like_go() {
        assert_eq!(parse_bool("False"), Ok(false));
        assert_eq!(parse_bool("1"), Ok(true));
        assert_eq!(
            parse_bool("x"),
            Err("strconv.ParseBool: parsing \"x\": invalid syntax".into())
        );
        assert_eq!(parse_int("0x10"), Ok(16));
        assert_eq!(parse_int("-3"), Ok(-3));
        assert!(parse_int("x").is_err());
        assert!(parse_int("1_0").is_err());
        assert_eq!(parse_float32("2.5"), Ok(2.5));
        assert!(parse_float32("x").is_err());
    }

    #[test]
    fn labels_parse_like_pflag() {
        assert_eq!(
            parse_string_to_string("a=b"),
            Ok(vec![("a".into(), "b".into())])
        );
        // One `=`: the whole value is one pair, commas included.
        assert_eq!(
            parse_string_to_string("a=b,c"),
            Ok(vec![("a".into(), "b,c".into())])
        );
        assert_eq!(
            parse_string_to_string("a=b,c=d"),
            Ok(vec![("a".into(), "b".into()), ("c".into(), "d".into())])
        );
        assert_eq!(
            parse_string_to_string("abc"),
            Err("abc must be formatted as key=value".into())
        );
        assert_eq!(
            parse_string_to_string("a=1,b"),
            Ok(vec![("a".into(), "1,b".into())])
        );
        assert_eq!(
            parse_string_to_string("a=1,b,c=2"),
            Err("b must be formatted as key=value".into())
        );
    }
}
