//! YAML template functions: Helm's (`toYaml`, `fromYaml`, `fromYamlArray`, and Helm
//! 4's `mustToYaml`, `toYamlPretty`) and Helmfile's (`toYaml`, `fromYaml`).
//!
//! The two programs share names but not behaviour, so each has its own table and the
//! registry builders pick one:
//!
//! * Helm goes through sigs.k8s.io/yaml: numbers read back as `float64`, `toYaml`
//!   drops one trailing newline and swallows errors (empty string), `fromYaml`
//!   reports failures as an `Error` key and `fromYamlArray` as the only element.
//! * Helmfile uses gopkg.in/yaml.v2 directly: integers stay `int`, `toYaml` keeps the
//!   trailing newline, both functions fail the template on errors, and `fromYaml`
//!   appends the offending text to the message.

use crate::funcs::codec::yaml::{self, DecodeOptions, HelmTarget, Mode};
use crate::template::{FuncDef, FuncError, FuncResult, List, Map, Ty, Value};

fn arg_str(args: &[Value]) -> String {
    match args.first() {
        Some(Value::String(s)) => s.to_string(),
        _ => String::new(),
    }
}

fn arg_any(args: &[Value]) -> Value {
    args.first().cloned().unwrap_or(Value::Nil)
}

/// Helm `toYaml`: sigs.k8s.io/yaml `Marshal`, one trailing newline removed, errors
/// swallowed.
pub fn helm_to_yaml(args: &[Value]) -> FuncResult {
    let out = match yaml::helm_to_yaml(&arg_any(args)) {
        Ok(s) => s.strip_suffix('\n').map(str::to_string).unwrap_or(s),
        Err(_) => String::new(),
    };
    Ok(Value::from(out))
}

/// Helm 4 `mustToYaml`: like `toYaml`, but a marshalling error fails the template.
pub fn helm_must_to_yaml(args: &[Value]) -> FuncResult {
    match yaml::helm_to_yaml(&arg_any(args)) {
        Ok(s) => Ok(Value::from(
            s.strip_suffix('\n').map(str::to_string).unwrap_or(s),
        )),
        Err(e) => Err(FuncError::call(e.message)),
    }
}

/// Helm 4 `toYamlPretty`: yaml.v3's encoder with a 2-space indent (sequences
/// indented under their key), one trailing newline removed, errors swallowed.
pub fn helm_to_yaml_pretty(args: &[Value]) -> FuncResult {
    let out = match yaml::encode_v3_pretty(&arg_any(args)) {
        Ok(s) => s.strip_suffix('\n').map(str::to_string).unwrap_or(s),
        Err(_) => String::new(),
    };
    Ok(Value::from(out))
}

/// Helm `fromYaml`: a `map[string]interface{}`, with the error text under `Error`.
pub fn helm_from_yaml(args: &[Value]) -> FuncResult {
    let text = arg_str(args);
    Ok(match yaml::decode(&text, &DecodeOptions::HELM_MAP) {
        Ok(v) => v,
        Err(e) => {
            let m = Map::new();
            m.insert("Error", Value::from(e.message));
            Value::Map(m)
        }
    })
}

/// Helm `fromYamlArray`: a `[]interface{}`, or the error text as the only element.
pub fn helm_from_yaml_array(args: &[Value]) -> FuncResult {
    let text = arg_str(args);
    let opts = DecodeOptions {
        mode: Mode::Helm(HelmTarget::List),
        strict: false,
    };
    Ok(match yaml::decode(&text, &opts) {
        Ok(v) => v,
        Err(e) => Value::List(List::new(vec![Value::from(e.message)])),
    })
}

/// Helmfile `toYaml`: yaml.v2 `Marshal`, trailing newline kept.
pub fn helmfile_to_yaml(args: &[Value]) -> FuncResult {
    yaml::encode_v2(&arg_any(args))
        .map(Value::from)
        .map_err(|e| FuncError::call(e.message))
}

/// Helmfile `fromYaml`: yaml.v2 into `map[string]interface{}` with keys cast to
/// strings; failures carry the input (`..., offending yaml: TEXT`).
pub fn helmfile_from_yaml(args: &[Value]) -> FuncResult {
    let text = arg_str(args);
    yaml::decode(&text, &DecodeOptions::HELMFILE_MAP)
        .map_err(|e| FuncError::call(format!("{}, offending yaml: {text}", e.message)))
}

/// Helm 3's YAML functions.
pub static HELM_FUNCS: &[FuncDef] = &[
    FuncDef::plain("toYaml", &[Ty::Any], helm_to_yaml),
    FuncDef::plain("fromYaml", &[Ty::String], helm_from_yaml),
    FuncDef::plain("fromYamlArray", &[Ty::String], helm_from_yaml_array),
];

/// The YAML functions Helm 4 adds on top of [`HELM_FUNCS`].
pub static HELM4_FUNCS: &[FuncDef] = &[
    FuncDef::plain("mustToYaml", &[Ty::Any], helm_must_to_yaml),
    FuncDef::plain("toYamlPretty", &[Ty::Any], helm_to_yaml_pretty),
];

/// Helmfile's YAML functions.
pub static HELMFILE_FUNCS: &[FuncDef] = &[
    FuncDef::plain("toYaml", &[Ty::Any], helmfile_to_yaml),
    FuncDef::plain("fromYaml", &[Ty::String], helmfile_from_yaml),
];

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: FuncResult) -> String {
        match v {
            Ok(Value::String(s)) => s.to_string(),
            other => panic!("not a string: {other:?}"),
        }
    }

    #[test]
    fn helm_to_yaml_trims_one_newline() {
        let v = crate::vmap! {"a" => "x"};
        assert_eq!(s(helm_to_yaml(std::slice::from_ref(&v))), "a: x");
        assert_eq!(s(helmfile_to_yaml(&[v])), "a: x\n");
        assert_eq!(s(helm_to_yaml(&[Value::Nil])), "null");
        assert_eq!(s(helm_to_yaml(&[Value::Float(f64::NAN)])), "");
        assert!(helm_must_to_yaml(&[Value::Float(f64::NAN)]).is_err());
    }

    #[test]
    fn from_yaml_errors() {
        let v = helm_from_yaml(&[Value::from("a: b: c")]).expect("value");
        assert_eq!(
            v.get("Error").and_then(|e| e.as_str().map(str::to_string)).as_deref(),
            Some("error converting YAML to JSON: yaml: mapping values are not allowed in this context")
        );
        let e = helmfile_from_yaml(&[Value::from("a: b: c")]).expect_err("error");
        assert_eq!(
            e.message(),
            "yaml: mapping values are not allowed in this context, offending yaml: a: b: c"
        );
    }
}
