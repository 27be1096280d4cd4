//! The part of Go's `encoding/json` that sigs.k8s.io/yaml's `Marshal` runs before
//! yaml.v2 sees a value: compact `json.Marshal` with sorted keys, HTML escaping and
//! Go's float text.
//!
//! Helm's `toYaml` is `JSONToYAML(json.Marshal(v))`, so number types are decided by
//! how yaml.v2 re-reads this text (`1e+06` as a float64 prints `1000000`, `1e21`
//! stays a float), and values JSON cannot hold (NaN, ±Inf) make `toYaml` fail.
//! A full codec lives elsewhere; this one only needs to produce the same bytes.

use super::decode::{GoMap, GoValue};
use super::{gofmt, resolve};
use crate::template::Value;

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Go `json.Marshal`'s string encoding (HTML-safe).
pub fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '<' | '>' | '&' => {
                out.push_str("\\u00");
                out.push(HEX[(c as usize) >> 4] as char);
                out.push(HEX[(c as usize) & 0xF] as char);
            }
            '\u{2028}' | '\u{2029}' => {
                out.push_str("\\u202");
                out.push(HEX[(c as usize) & 0xF] as char);
            }
            c if (c as u32) < 0x20 => {
                out.push_str("\\u00");
                out.push(HEX[(c as usize) >> 4] as char);
                out.push(HEX[(c as usize) & 0xF] as char);
            }
            // Go's encoder writes each byte that is not UTF-8 as an escaped U+FFFD.
            c if crate::template::gostr::raw_byte(c).is_some() => out.push_str("\\ufffd"),
            c => out.push(c),
        }
    }
    out.push('"');
}

fn base64_std(data: &[u8]) -> String {
    const ALPHA: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let n = match chunk.len() {
            3 => (chunk[0] as u32) << 16 | (chunk[1] as u32) << 8 | chunk[2] as u32,
            2 => (chunk[0] as u32) << 16 | (chunk[1] as u32) << 8,
            _ => (chunk[0] as u32) << 16,
        };
        out.push(ALPHA[(n >> 18) as usize & 63] as char);
        out.push(ALPHA[(n >> 12) as usize & 63] as char);
        if chunk.len() > 1 {
            out.push(ALPHA[(n >> 6) as usize & 63] as char);
        } else {
            out.push('=');
        }
        if chunk.len() > 2 {
            out.push(ALPHA[n as usize & 63] as char);
        } else {
            out.push('=');
        }
    }
    out
}

/// Go `json.Marshal(v)`; the error is Go's text (`json: unsupported value: NaN`).
pub fn marshal(v: &Value) -> Result<String, String> {
    let mut out = String::new();
    write_value(&mut out, v)?;
    Ok(out)
}

fn write_value(out: &mut String, v: &Value) -> Result<(), String> {
    match v {
        Value::Nil => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i, _) => out.push_str(&i.to_string()),
        Value::Uint(u, _) => out.push_str(&u.to_string()),
        Value::Float(f) => {
            if !f.is_finite() {
                return Err(format!(
                    "json: unsupported value: {}",
                    gofmt::format_g(*f, false)
                ));
            }
            out.push_str(&gofmt::format_json_float(*f));
        }
        Value::String(s) => write_string(out, s),
        Value::Bytes(b) => {
            out.push('"');
            out.push_str(&base64_std(b));
            out.push('"');
        }
        Value::List(l) => {
            if l.is_nil() {
                out.push_str("null");
            } else {
                out.push('[');
                for (i, it) in l.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_value(out, it)?;
                }
                out.push(']');
            }
        }
        Value::Map(m) => {
            let entries = m.entries();
            out.push('{');
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(out, k);
                out.push(':');
                write_value(out, v)?;
            }
            out.push('}');
        }
        Value::Object(o) => write_value(out, &o.to_json_value())?,
    }
    Ok(())
}

/// What yaml.v2 reads back from [`marshal`]'s text, built from the value directly:
/// the middle of Helm's `toYaml` without writing JSON and scanning it again as
/// YAML (a quarter of a render that calls `toYaml` on big values).
///
/// `None` whenever the re-read could differ from the value or fail, and the caller
/// must take the text path: characters yaml.v2 refuses or folds in a quoted scalar
/// (DEL, C1 controls with NEL, U+FEFF, U+FFFE, U+FFFF), keys too long for a
/// simple key (yaml.v2 allows 1024 characters), `<<` keys, values JSON cannot
/// hold (NaN, ±Inf), bytes, and nesting deeper than a few dozen levels. Numbers
/// are re-read from their JSON text by the resolver the decoder uses, so `1e+06`
/// becomes an int exactly as on the text path.
pub fn reread_by_yaml_v2(v: &Value) -> Option<GoValue> {
    reread(v, 0)
}

const REREAD_MAX_DEPTH: usize = 64;
const REREAD_MAX_KEY: usize = 1000;

fn reread(v: &Value, depth: usize) -> Option<GoValue> {
    if depth > REREAD_MAX_DEPTH {
        return None;
    }
    Some(match v {
        Value::Nil => GoValue::Nil,
        Value::Bool(b) => GoValue::Bool(*b),
        Value::Int(i, _) => GoValue::Int(*i),
        Value::Uint(u, _) => resolve::resolve("", &u.to_string()).ok()?.value,
        Value::Float(f) => {
            if !f.is_finite() {
                return None;
            }
            resolve::resolve("", &gofmt::format_json_float(*f))
                .ok()?
                .value
        }
        Value::String(s) => {
            if !rereads_unchanged(s) {
                return None;
            }
            GoValue::Str(s.to_string())
        }
        Value::Bytes(_) => return None,
        Value::List(l) => {
            if l.is_nil() {
                GoValue::Nil
            } else {
                let mut out = Vec::with_capacity(l.len());
                for it in l.iter() {
                    out.push(reread(it, depth + 1)?);
                }
                GoValue::Seq(out)
            }
        }
        Value::Map(m) if m.is_nil() => GoValue::Nil,
        Value::Map(m) => {
            let mut out = GoMap::new();
            let ok = m.with_read(|map| {
                for (k, v) in map {
                    if k.len() > REREAD_MAX_KEY || k == "<<" || !rereads_unchanged(k) {
                        return false;
                    }
                    let Some(v) = reread(v, depth + 1) else {
                        return false;
                    };
                    out.insert(GoValue::Str(k.clone()), v);
                }
                true
            });
            if !ok {
                return None;
            }
            GoValue::Map(out)
        }
        Value::Object(o) => reread(&o.to_json_value(), depth + 1)?,
    })
}

/// Whether `s`, written by [`write_string`] and scanned as a double-quoted YAML
/// scalar, comes back as `s`: JSON escapes the C0 controls, quotes, `<>&` and the
/// two line separators; what it leaves raw must be a character yaml.v2 accepts and
/// does not treat as a line break.
fn rereads_unchanged(s: &str) -> bool {
    if s.is_ascii() {
        return !s.as_bytes().contains(&0x7F);
    }
    s.chars().all(|c| {
        let u = c as u32;
        // A raw byte (see `gostr`) is written as `\ufffd`, which reads back as U+FFFD.
        !(u == 0x7F
            || (0x80..=0x9F).contains(&u)
            || matches!(u, 0xFEFF | 0xFFFE | 0xFFFF)
            || crate::template::gostr::raw_byte(c).is_some())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vmap;

    #[test]
    fn marshal_like_go() {
        let v = vmap! {"b" => 1e6, "a" => "<x&y>", "c" => Value::list(vec![Value::Nil, Value::Bool(true)])};
        assert_eq!(
            marshal(&v).as_deref(),
            Ok(r#"{"a":"\u003cx\u0026y\u003e","b":1000000,"c":[null,true]}"#)
        );
        assert_eq!(
            marshal(&Value::Float(f64::NAN)).err().as_deref(),
            Some("json: unsupported value: NaN")
        );
        assert_eq!(base64_std(b"hello"), "aGVsbG8=");
    }
}
