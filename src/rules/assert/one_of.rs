//! `one-of`: every selected value is one of a list.

use serde_json::Value as Json;

use super::{json_eq, params, schema_of, show, Assertion, Ctx, KindDef, Violation};
use crate::matrix::yaml::{YNode, YamlError};

pub(super) static KIND: KindDef = KindDef {
    name: "one-of",
    summary: "Every selected value is one of the listed values.",
    what: "Each node the selector picks must equal (as `equals` compares) one of the listed values.",
    why: "Enumerations that a chart does not validate itself: a mode, a log level, a service type.",
    example: r#"rules:
  - id: pki-mode-known
    title: The PKI mode is one the router understands
    layer: values
    select:
      release: llm-request-router
      path: $.pki.mode
    assert:
      - one-of: [certManager, existingSecret]
"#,
    empty_ok: false,
    missing_ok: false,
    on_failed_layer: false,
    schema: schema_of::<Vec<Json>>,
    build,
};

struct OneOf(Vec<Json>);

fn build(node: &YNode) -> Result<Box<dyn Assertion>, YamlError> {
    let list: Vec<Json> = params(node)?;
    if list.is_empty() {
        return Err(YamlError {
            message: "the list of allowed values is empty".into(),
            pos: Some(node.pos),
        });
    }
    Ok(Box::new(OneOf(list)))
}

impl Assertion for OneOf {
    fn check(&self, cx: &Ctx<'_, '_>) -> Vec<Violation> {
        let allowed = self.0.iter().map(show).collect::<Vec<_>>().join(", ");
        cx.sel
            .nodes
            .iter()
            .filter(|n| !self.0.iter().any(|a| json_eq(a, n.value)))
            .map(|n| Violation::at(n, format!("{} is not one of {allowed}", show(n.value))))
            .collect()
    }
}
