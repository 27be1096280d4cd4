//! The chart layer's door to YAML: decoding values and chart files the way Helm's
//! `sigs.k8s.io/yaml` does, and encoding with Helm's `toYaml`.
//!
//! Keeping every YAML call behind these few functions keeps the chart code
//! independent of the codec's wider API (`crate::funcs::codec::yaml`).

use crate::funcs::codec::yaml::{decode, helm_to_yaml, DecodeOptions, HelmTarget, Mode};
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
