//! Bridges from the renderers' data to the rule engine's: Go-typed template values to
//! JSON, and yaml.v2 documents (what Helm and kubectl read rendered output with) to
//! JSON plus the position of every node.
//!
//! Rules see JSON (JSONPath and minijinja both work on it); integers stay integers and
//! floats floats, as yaml.v2 typed them.

use serde_json::Value as Json;

use super::model::Origins;
use super::yaml::push_member;
use crate::funcs::codec::yaml::{self as goyaml, DecodeOptions, Mode, PathSeg, SpanMap};
use crate::source::{LineIndex, Location};
use crate::template::Value;

/// A template value as JSON. Bytes become base64 (as Go's `encoding/json` prints a
/// `[]byte`), NaN and infinities their Go spelling, host objects what `toJson` sees.
pub fn to_json(v: &Value) -> Json {
    match v {
        Value::Nil => Json::Null,
        Value::Bool(b) => Json::Bool(*b),
        Value::Int(i, _) => Json::from(*i),
        Value::Uint(u, _) => Json::from(*u),
        Value::Float(f) => serde_json::Number::from_f64(*f)
            .map(Json::Number)
            .unwrap_or_else(|| {
                Json::String(if f.is_nan() {
                    "NaN".into()
                } else if *f > 0.0 {
                    "+Inf".into()
                } else {
                    "-Inf".into()
                })
            }),
        Value::String(s) => Json::String(s.to_string()),
        Value::Bytes(b) => {
            use base64::Engine as _;
            Json::String(base64::engine::general_purpose::STANDARD.encode(b))
        }
        Value::List(l) => Json::Array(l.iter().map(to_json).collect()),
        Value::Map(m) => m.with_read(|entries| {
            Json::Object(
                entries
                    .iter()
                    .map(|(k, v)| (k.clone(), to_json(v)))
                    .collect(),
            )
        }),
        Value::Object(o) => to_json(&o.to_json_value()),
    }
}

/// A normalized JSONPath (`$['a'][0]`) for a yaml codec path.
pub fn json_path(path: &[PathSeg]) -> String {
    let mut s = String::from("$");
    for seg in path {
        match seg {
            PathSeg::Key(k) => push_member(&mut s, k),
            PathSeg::Index(i) => s.push_str(&format!("[{i}]")),
        }
    }
    s
}

/// Positions of a span map in `text` (shown as `file`, whose first line is
/// `first_line`). Collections are placed at their key, scalars at their value, the way
/// a reader scans for them.
pub fn origins(spans: &SpanMap, text: &str, file: &str, first_line: usize) -> Origins {
    let lines = LineIndex::new(text);
    let mut out = Origins::new();
    for (path, span) in spans {
        let offset = match span.key {
            Some(k) if !is_scalar_at(text, span.value.start as usize) => k.start,
            _ => span.value.start,
        } as usize;
        let (line, column) = lines.line_char_col(text, offset);
        out.insert(
            json_path(path),
            Location {
                file: file.to_string(),
                line: line + first_line - 1,
                column,
            },
        );
    }
    out
}

/// Whether the value starting at `offset` is a scalar written on its own (not a block
/// or flow collection).
fn is_scalar_at(text: &str, offset: usize) -> bool {
    let rest = text.get(offset..).unwrap_or("");
    let first_line = rest.lines().next().unwrap_or("").trim_start();
    !(first_line.starts_with('[')
        || first_line.starts_with('{')
        || first_line.starts_with("- ")
        || first_line == "-"
        || rest.starts_with('\n')
        || first_line.contains(": ")
        || first_line.ends_with(':'))
}

/// A document decoded as yaml.v2 does for `interface{}` with keys stringified as
/// sigs.k8s.io/yaml does, as JSON with positions.
pub struct Decoded {
    pub value: Json,
    pub origins: Origins,
}

/// Decodes the first document of `text` without positions (see [`decode_yaml`]).
/// Callers keep their own table of results (manifest documents are remembered per
/// text), so this does not also fill the codec's.
pub fn decode_yaml_value(text: &str) -> Result<Json, goyaml::YamlError> {
    let opts = DecodeOptions {
        mode: Mode::V2JsonKeys,
        strict: false,
    };
    goyaml::decode_uncached(text, &opts).map(|v| to_json(&v))
}

/// Decodes the first document of `text` (shown as `file`, starting at `first_line`).
pub fn decode_yaml(
    text: &str,
    file: &str,
    first_line: usize,
) -> Result<Decoded, goyaml::YamlError> {
    let opts = DecodeOptions {
        mode: Mode::V2JsonKeys,
        strict: false,
    };
    let (value, spans) = goyaml::decode_with_spans(text, &opts)?;
    Ok(Decoded {
        value: to_json(&value),
        origins: origins(&spans, text, file, first_line),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_v2_typing_and_positions() {
        let text = "a: 1\nb: 1.5\nc: yes\nlist:\n  - x\n  - 2\nm: {k: v}\n";
        let d = decode_yaml(text, "f.yaml", 10).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            d.value,
            serde_json::json!({"a": 1, "b": 1.5, "c": true, "list": ["x", 2], "m": {"k": "v"}})
        );
        assert_eq!(d.origins["$['a']"].line, 10);
        assert_eq!(d.origins["$['list']"].line, 13);
        assert_eq!(d.origins["$['list'][1]"].line, 15);
        assert_eq!(d.origins["$['list'][1]"].column, 5);
        assert_eq!(d.origins["$['m']['k']"].column, 8);
    }

    #[test]
    fn lenient_flow_indentation_is_accepted() {
        // libyaml accepts a flow sequence closed at its key's indentation.
        let text = "x:\n  command: [\n    \"a\",\n  ]\n";
        let d = decode_yaml(text, "f.yaml", 1).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(d.value, serde_json::json!({"x": {"command": ["a"]}}));
    }
}
