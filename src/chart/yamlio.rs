//! The chart layer's door to YAML: decoding values and chart files the way Helm's
//! `sigs.k8s.io/yaml` does, and encoding with Helm's `toYaml`.
//!
//! Keeping every YAML call behind these few functions keeps the chart code
//! independent of the codec's wider API (`crate::funcs::codec::yaml`).

use crate::funcs::codec::yaml::{self, decode, helm_to_yaml, DecodeOptions, HelmTarget, Mode};
use crate::template::{Map, Value};

/// Decodes a YAML document the way Helm reads values: YAML 1.1 scalars, then a JSON
/// round trip, so every number is a `float64` and every map a
/// `map[string]interface{}`. An empty document is `Nil`. The error text is what
/// Helm prints after its own prefix (`error converting YAML to JSON: yaml: line 2:
/// ...`).
pub fn decode_helm(text: &str) -> Result<Value, String> {
    let opts = DecodeOptions {
        mode: Mode::Helm(HelmTarget::Any),
        strict: false,
    };
    decode(text, &opts).map_err(|e| e.message)
}

/// [`decode_helm`]'s failure as the position it concerns (when known), for pointing
/// diagnostics at it.
pub fn decode_helm_spanned(text: &str) -> Result<Value, Option<crate::source::Span>> {
    let opts = DecodeOptions {
        mode: Mode::Helm(HelmTarget::Any),
        strict: false,
    };
    decode(text, &opts).map_err(|e| e.span)
}

/// Decodes a YAML document keeping yaml.v2's scalar types (`int` stays `int`), with
/// map keys converted to strings as `sigs.k8s.io/yaml` does. Used for chart files
/// that are decoded into Go structs (`Chart.yaml`), where the original scalar type
/// decides how it is coerced to a string field.
pub fn decode_typed(text: &str) -> Result<Value, String> {
    let opts = DecodeOptions {
        mode: Mode::V2JsonKeys,
        strict: false,
    };
    decode(text, &opts).map_err(|e| e.message)
}

/// [`decode_typed`] without the codec's process-wide table and without a private
/// copy: for callers that read the result once and keep only what they need (a
/// manifest's head), so a chart's megabytes of CRDs are not kept decoded.
pub fn decode_typed_once(text: &str) -> Result<Value, String> {
    let opts = DecodeOptions {
        mode: Mode::V2JsonKeys,
        strict: false,
    };
    yaml::decode_uncached(text, &opts).map_err(|e| e.message)
}

/// [`decode_typed_once`] of only the top-level entries whose key `keep` accepts;
/// `Ok(None)` when only [`decode_typed_once`] can tell (see
/// `yaml::decode_top_entries`).
pub fn decode_typed_top(text: &str, keep: fn(&str) -> bool) -> Result<Option<Value>, String> {
    let opts = DecodeOptions {
        mode: Mode::V2JsonKeys,
        strict: false,
    };
    yaml::decode_top_entries(text, &opts, keep).map_err(|e| e.message)
}

/// Helm's `toYaml`: `sigs.k8s.io/yaml.Marshal` (JSON round trip, then yaml.v2),
/// with the trailing newline kept.
pub fn encode(v: &Value) -> String {
    helm_to_yaml(v).unwrap_or_default()
}

/// A decoded values document that must be a map (values files, `values.yaml`).
/// `Nil` (empty file) becomes an empty map.
pub fn decode_values_map(text: &str) -> Result<Map, String> {
    match decode_helm(text)? {
        Value::Nil => Ok(Map::new()),
        Value::Map(m) => Ok(m),
        other => Err(format!(
            "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
            json_kind(&other)
        )),
    }
}

/// Helm 4's `LoadValues`: the stream is cut into documents the way Kubernetes'
/// `YAMLReader` does (a line starting with `---` followed by nothing but spaces or a
/// comment ends a document; empty documents are skipped), each document must be a
/// map, and the maps are merged in order (later keys win, nested maps merge).
/// Errors carry Helm 4's step prefix.
pub fn decode_values_docs(text: &str) -> Result<Map, String> {
    let mut out = Map::new();
    for doc in yaml_reader_documents(text)? {
        let current =
            decode_values_map(&doc).map_err(|e| format!("cannot unmarshal yaml document: {e}"))?;
        out = super::values::merge_maps(&out, &current);
    }
    Ok(out)
}

/// Kubernetes' `YAMLReader.Read` loop over a whole text.
fn yaml_reader_documents(text: &str) -> Result<Vec<String>, String> {
    let mut docs = Vec::new();
    let mut buf = String::new();
    for line in text.split_inclusive('\n') {
        if let Some(rest) = line.strip_prefix("---") {
            let trimmed = rest.trim();
            if !trimmed.is_empty() && !trimmed.starts_with('#') {
                return Err(format!(
                    "error reading yaml document: invalid Yaml document separator: {trimmed}"
                ));
            }
            if !buf.is_empty() {
                docs.push(std::mem::take(&mut buf));
            }
            continue;
        }
        buf.push_str(line);
    }
    if !buf.is_empty() {
        docs.push(buf);
    }
    Ok(docs)
}

/// Whether Helm 4's document-by-document reading can differ from reading the first
/// document only (the text has a document separator line).
pub fn has_document_separator(text: &str) -> bool {
    text.lines().any(|l| l.starts_with("---"))
}

/// How `encoding/json` names the JSON type of a value in type errors.
pub fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Nil => "null",
        Value::Bool(_) => "bool",
        Value::Int(..) | Value::Uint(..) | Value::Float(_) => "number",
        Value::String(_) => "string",
        Value::List(_) | Value::Bytes(_) => "array",
        Value::Map(_) | Value::Object(_) => "object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helm4_values_documents_merge() {
        let m =
            decode_values_docs("a: 1\nb: {x: 1}\n---\n# only a comment\n---\nb: {z: 2}\nc: 3\n")
                .unwrap();
        assert_eq!(
            crate::funcs::codec::json::encode(&Value::Map(m), false).unwrap_or_default(),
            r#"{"a":1,"b":{"x":1,"z":2},"c":3}"#
        );
        let err = |t: &str| decode_values_docs(t).err().unwrap_or_default();
        assert!(err("a: 1\n--- b\n").contains("invalid Yaml document separator: b"));
        assert!(err("a: 1\n---\n- x\n")
            .starts_with("cannot unmarshal yaml document: error unmarshaling JSON"));
        assert!(has_document_separator("a: 1\n---\nb: 2\n"));
        assert!(!has_document_separator("a: '---'\n"));
    }
}
