//! `type-is`: every selected value has a given type.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value as Json;

use super::{params, schema_of, show, Assertion, Ctx, KindDef, Violation};
use crate::matrix::yaml::{YNode, YamlError};

pub(super) static KIND: KindDef = KindDef {
    name: "type-is",
    summary: "Every selected value has the given type (or one of the given types).",
    what: "Types: `string`, `number` (any number), `integer` (a number without a fraction), \
`boolean`, `map`, `list`, `null`. Give one type or a list.",
    why: "YAML guesses types: `version: 1.10` is a float, `enabled: \"false\"` a string that is \
true in a template, `port: \"8080\"` a string the API server rejects. Pin the ones that matter.",
    example: r#"rules:
  - id: llm-enabled-is-boolean
    title: addons.llm.enabled is a real boolean
    layer: values
    select:
      release: api
      path: $.addons.llm.enabled
      optional: true
    assert:
      - type-is: boolean
"#,
    empty_ok: false,
    missing_ok: false,
    on_failed_layer: false,
    schema: schema_of::<Types>,
    build,
};

/// A value type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(rename = "TypeIsType")]
enum Type {
    String,
    Number,
    Integer,
    Boolean,
    #[serde(alias = "object")]
    Map,
    #[serde(alias = "array")]
    List,
    Null,
}

/// One type or a list of types.
#[derive(Deserialize, JsonSchema)]
#[serde(untagged)]
#[schemars(rename = "TypeIsTypes")]
enum Types {
    One(Type),
    Many(Vec<Type>),
}

struct TypeIs(Vec<Type>);

fn build(node: &YNode) -> Result<Box<dyn Assertion>, YamlError> {
    let types = match params::<Types>(node)? {
        Types::One(t) => vec![t],
        Types::Many(v) if !v.is_empty() => v,
        Types::Many(_) => {
            return Err(YamlError {
                message: "the list of types is empty".into(),
                pos: Some(node.pos),
            })
        }
    };
    Ok(Box::new(TypeIs(types)))
}

fn type_of(v: &Json) -> &'static str {
    match v {
        Json::Null => "null",
        Json::Bool(_) => "boolean",
        Json::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Json::Number(_) => "number",
        Json::String(_) => "string",
        Json::Array(_) => "list",
        Json::Object(_) => "map",
    }
}

fn has_type(v: &Json, t: Type) -> bool {
    match t {
        Type::String => v.is_string(),
        Type::Number => v.is_number(),
        Type::Integer => match v {
            Json::Number(n) => n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0),
            _ => false,
        },
        Type::Boolean => v.is_boolean(),
        Type::Map => v.is_object(),
        Type::List => v.is_array(),
        Type::Null => v.is_null(),
    }
}

impl Assertion for TypeIs {
    fn check(&self, cx: &Ctx<'_, '_>) -> Vec<Violation> {
        let want = self
            .0
            .iter()
            .map(|t| format!("{t:?}").to_lowercase())
            .collect::<Vec<_>>()
            .join(" or ");
        cx.sel
            .nodes
            .iter()
            .filter(|n| !self.0.iter().any(|t| has_type(n.value, *t)))
            .map(|n| {
                Violation::at(
                    n,
                    format!("expected {want}, found {} {}", type_of(n.value), show(n.value)),
                )
            })
            .collect()
    }
}
