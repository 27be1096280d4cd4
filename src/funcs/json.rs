//! The JSON function family: Sprig's `toJson`, `toPrettyJson`, `toRawJson`,
//! `fromJson` and their `must` forms, and Helm's replacements (`toJson`, `fromJson`,
//! `fromJsonArray`, Helm 4's `mustToJson`).
//!
//! Sprig's plain forms swallow errors (`toJson` of NaN is `""`, `fromJson` of bad
//! input is nil) except `toRawJson`, which panics — the template engine turns that
//! into an ordinary call error. Helm's `fromJson`/`fromJsonArray` report failures
//! inside the result (`{"Error": msg}`, `[msg]`), which charts can test for.
//!
//! Decoding error texts differ between the Go releases that built Helm 3 and Helm 4
//! (see [`Dialect`]), so decoding functions come in one table per dialect: register
//! [`SPRIG_FUNCS`] first, then [`HELM_FUNCS`] for Helm 3 or [`HELM4_FUNCS`] for
//! Helm 4 over it.

use super::codec::json::{self, Dialect, Target};
use crate::template::{FuncDef, FuncError, FuncResult, List, Ty, Value};

/// Sprig 3.2.3's JSON functions (Go 1.22 `encoding/json`).
pub static SPRIG_FUNCS: &[FuncDef] = &[
    FuncDef::plain("toJson", &[Ty::Any], to_json),
    FuncDef::plain("mustToJson", &[Ty::Any], must_to_json),
    FuncDef::plain("toPrettyJson", &[Ty::Any], to_pretty_json),
    FuncDef::plain("mustToPrettyJson", &[Ty::Any], must_to_pretty_json),
    FuncDef::plain("toRawJson", &[Ty::Any], must_to_raw_json),
    FuncDef::plain("mustToRawJson", &[Ty::Any], must_to_raw_json),
    FuncDef::plain("fromJson", &[Ty::String], from_json_v1),
    FuncDef::plain("mustFromJson", &[Ty::String], must_from_json_v1),
];

/// Helm 3.15's replacements, registered over [`SPRIG_FUNCS`].
pub static HELM_FUNCS: &[FuncDef] = &[
    FuncDef::plain("toJson", &[Ty::Any], to_json),
    FuncDef::plain("fromJson", &[Ty::String], helm_from_json_v1),
    FuncDef::plain("fromJsonArray", &[Ty::String], helm_from_json_array_v1),
];

/// Helm 4's replacements, registered over [`SPRIG_FUNCS`]: Helm's own functions plus
/// Sprig's encoders and `mustFromJson`, all with the newer Go's `encoding/json`
/// (its error texts, and a raw U+FFFD for each byte that is not UTF-8).
pub static HELM4_FUNCS: &[FuncDef] = &[
    FuncDef::plain("toJson", &[Ty::Any], to_json_v2),
    FuncDef::plain("mustToJson", &[Ty::Any], must_to_json_v2),
    FuncDef::plain("toPrettyJson", &[Ty::Any], to_pretty_json_v2),
    FuncDef::plain("mustToPrettyJson", &[Ty::Any], must_to_pretty_json_v2),
    FuncDef::plain("toRawJson", &[Ty::Any], must_to_raw_json_v2),
    FuncDef::plain("mustToRawJson", &[Ty::Any], must_to_raw_json_v2),
    FuncDef::plain("fromJson", &[Ty::String], helm_from_json_v2),
    FuncDef::plain("fromJsonArray", &[Ty::String], helm_from_json_array_v2),
    FuncDef::plain("mustFromJson", &[Ty::String], must_from_json_v2),
];

fn arg(args: &[Value], i: usize) -> Value {
    args.get(i).cloned().unwrap_or(Value::Nil)
}

fn str_arg(args: &[Value], i: usize) -> String {
    match args.get(i) {
        Some(Value::String(s)) => s.to_string(),
        _ => String::new(),
    }
}

/// `json.Marshal` of the argument (`escape_html` off: an Encoder's
/// `SetEscapeHTML(false)`), as the Go release of `dialect` writes it.
fn compact(args: &[Value], escape_html: bool, dialect: Dialect) -> Result<String, json::JsonError> {
    json::encode_in(&arg(args, 0), escape_html, dialect)
}

/// `json.MarshalIndent(v, "", "  ")` of the argument.
fn pretty(args: &[Value], dialect: Dialect) -> Result<String, json::JsonError> {
    json::encode_indent_in(&arg(args, 0), "", "  ", dialect)
}

/// The plain forms: an encoding error gives `""`.
fn lenient(r: Result<String, json::JsonError>) -> FuncResult {
    Ok(Value::str(r.unwrap_or_default()))
}

/// The `must` forms (and `toRawJson`): an encoding error fails the call.
fn strict(r: Result<String, json::JsonError>) -> FuncResult {
    r.map(Value::str)
        .map_err(|e| FuncError::call(e.to_string()))
}

fn to_json(args: &[Value]) -> FuncResult {
    lenient(compact(args, true, Dialect::V1))
}

fn must_to_json(args: &[Value]) -> FuncResult {
    strict(compact(args, true, Dialect::V1))
}

fn to_pretty_json(args: &[Value]) -> FuncResult {
    lenient(pretty(args, Dialect::V1))
}

fn must_to_pretty_json(args: &[Value]) -> FuncResult {
    strict(pretty(args, Dialect::V1))
}

fn must_to_raw_json(args: &[Value]) -> FuncResult {
    strict(compact(args, false, Dialect::V1))
}

fn to_json_v2(args: &[Value]) -> FuncResult {
    lenient(compact(args, true, Dialect::V2))
}

fn must_to_json_v2(args: &[Value]) -> FuncResult {
    strict(compact(args, true, Dialect::V2))
}

fn to_pretty_json_v2(args: &[Value]) -> FuncResult {
    lenient(pretty(args, Dialect::V2))
}

fn must_to_pretty_json_v2(args: &[Value]) -> FuncResult {
    strict(pretty(args, Dialect::V2))
}

fn must_to_raw_json_v2(args: &[Value]) -> FuncResult {
    strict(compact(args, false, Dialect::V2))
}

/// Sprig `fromJson`: whatever Unmarshal left in the `interface{}` (nil after a
/// syntax error), errors dropped.
fn from_json_v1(args: &[Value]) -> FuncResult {
    Ok(json::unmarshal(str_arg(args, 0).as_bytes(), Target::Any, Dialect::V1).value)
}

fn must_from_json(args: &[Value], dialect: Dialect) -> FuncResult {
    json::decode(&str_arg(args, 0), dialect).map_err(|e| FuncError::call(e.to_string()))
}

fn must_from_json_v1(args: &[Value]) -> FuncResult {
    must_from_json(args, Dialect::V1)
}

fn must_from_json_v2(args: &[Value]) -> FuncResult {
    must_from_json(args, Dialect::V2)
}

/// Helm `fromJson`: the decoded map, with the error text under `Error` when
/// decoding failed (alongside whatever was decoded before a value that did not fit).
fn helm_from_json(args: &[Value], dialect: Dialect) -> FuncResult {
    let d = json::unmarshal(str_arg(args, 0).as_bytes(), Target::Map, dialect);
    let map = match d.value {
        Value::Map(m) => m,
        _ => crate::template::Map::new(),
    };
    if let Some(e) = d.error {
        map.insert("Error", Value::str(e.to_string()));
    }
    Ok(Value::Map(map))
}

fn helm_from_json_v1(args: &[Value]) -> FuncResult {
    helm_from_json(args, Dialect::V1)
}

fn helm_from_json_v2(args: &[Value]) -> FuncResult {
    helm_from_json(args, Dialect::V2)
}

/// Helm `fromJsonArray`: the decoded list, or a one-element list holding the error.
fn helm_from_json_array(args: &[Value], dialect: Dialect) -> FuncResult {
    let d = json::unmarshal(str_arg(args, 0).as_bytes(), Target::List, dialect);
    if let Some(e) = d.error {
        return Ok(Value::List(List::new(vec![Value::str(e.to_string())])));
    }
    Ok(d.value)
}

fn helm_from_json_array_v1(args: &[Value]) -> FuncResult {
    helm_from_json_array(args, Dialect::V1)
}

fn helm_from_json_array_v2(args: &[Value]) -> FuncResult {
    helm_from_json_array(args, Dialect::V2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::template::fmt::sprintf;
    use crate::vmap;

    fn call(table: &[FuncDef], name: &str, args: &[Value]) -> FuncResult {
        let def = table
            .iter()
            .find(|d| d.name == name)
            .unwrap_or_else(|| panic!("{name} missing"));
        match def.imp {
            crate::template::FuncImpl::Plain(f) => f(args),
            crate::template::FuncImpl::Ctx(_) => panic!("{name} needs a context"),
        }
    }

    #[test]
    fn sprig_encoders_and_their_errors() {
        let v = vmap! {"b" => "<x>", "a" => Value::list(vec![Value::int(1)])};
        let out = |n: &str, v: &Value| call(SPRIG_FUNCS, n, std::slice::from_ref(v));
        assert_eq!(
            out("toJson", &v)
                .ok()
                .and_then(|v| v.as_str().map(String::from)),
            Some(r#"{"a":[1],"b":"\u003cx\u003e"}"#.to_string())
        );
        assert_eq!(
            out("toRawJson", &v)
                .ok()
                .and_then(|v| v.as_str().map(String::from)),
            Some(r#"{"a":[1],"b":"<x>"}"#.to_string())
        );
        assert_eq!(
            out("toPrettyJson", &v)
                .ok()
                .and_then(|v| v.as_str().map(String::from)),
            Some("{\n  \"a\": [\n    1\n  ],\n  \"b\": \"\\u003cx\\u003e\"\n}".to_string())
        );
        let inf = Value::Float(f64::INFINITY);
        assert_eq!(out("toJson", &inf).ok().map(|v| v.is_true()), Some(false));
        assert_eq!(
            out("toPrettyJson", &inf).ok().map(|v| v.is_true()),
            Some(false)
        );
        for name in [
            "mustToJson",
            "mustToPrettyJson",
            "toRawJson",
            "mustToRawJson",
        ] {
            let e = out(name, &inf).err().map(|e| e.to_string());
            assert_eq!(
                e.as_deref(),
                Some("json: unsupported value: +Inf"),
                "{name}"
            );
        }
    }

    #[test]
    fn sprig_from_json_drops_errors_must_form_reports_them() {
        let bad = Value::str("{bad");
        let v = call(SPRIG_FUNCS, "fromJson", std::slice::from_ref(&bad));
        assert!(matches!(v, Ok(Value::Nil)));
        let e = call(SPRIG_FUNCS, "mustFromJson", &[bad])
            .err()
            .map(|e| e.to_string());
        assert_eq!(
            e.as_deref(),
            Some("invalid character 'b' looking for beginning of object key string")
        );
        let ok = call(SPRIG_FUNCS, "mustFromJson", &[Value::str("[1,\"a\"]")]);
        assert_eq!(
            ok.ok().map(|v| sprintf("%#v", &[v])).as_deref(),
            Some("[]interface {}{1, \"a\"}")
        );
    }

    #[test]
    fn helm_from_json_reports_inside_the_result() {
        let m = call(HELM_FUNCS, "fromJson", &[Value::str("[1]")]).ok();
        assert_eq!(
            m.map(|v| sprintf("%v", &[v])).as_deref(),
            Some("map[Error:json: cannot unmarshal array into Go value of type map[string]interface {}]")
        );
        let l = call(HELM_FUNCS, "fromJsonArray", &[Value::str("{}")]).ok();
        assert_eq!(
            l.map(|v| sprintf("%v", &[v])).as_deref(),
            Some("[json: cannot unmarshal object into Go value of type []interface {}]")
        );
        let n = call(HELM_FUNCS, "fromJsonArray", &[Value::str("null")]).ok();
        assert_eq!(
            n.map(|v| sprintf("%#v", &[v])).as_deref(),
            Some("[]interface {}(nil)")
        );
        let v4 = call(
            HELM4_FUNCS,
            "fromJson",
            &[Value::str("{\"a\":1e400,\"b\":2}")],
        )
        .ok();
        assert_eq!(
            v4.map(|v| sprintf("%v", &[v])).as_deref(),
            Some("map[Error:json: cannot unmarshal number 1e400 into Go struct field .a of type float64 a:0 b:2]")
        );
    }
}
