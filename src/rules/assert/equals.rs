//! `equals`: every selected value equals the given one.

use serde_json::Value as Json;

use super::{json_eq, schema_of, show, with_value, Assertion, Ctx, KindDef, Violation};

pub(super) static KIND: KindDef = KindDef {
    name: "equals",
    summary: "Every selected value equals the given value.",
    what: "Each node the selector picks must equal the parameter (any YAML value; numbers compare \
by value, so `1` equals `1.0`; maps and lists compare deeply).",
    why: "Pin the settings that must agree across a stack: a namespace, a replica count, an \
issuer kind.",
    example: r#"rules:
  - id: router-issuer-kind
    title: The router's Certificate is issued by a ClusterIssuer
    layer: manifests
    select:
      kind: Certificate
      release: llm-request-router
      path: $.spec.issuerRef.kind
    assert:
      - equals: ClusterIssuer
"#,
    empty_ok: false,
    missing_ok: false,
    on_failed_layer: false,
    schema: schema_of::<Json>,
    build: |node| with_value(node, Equals),
};

struct Equals(Json);

impl Assertion for Equals {
    fn check(&self, cx: &Ctx<'_, '_>) -> Vec<Violation> {
        cx.sel
            .nodes
            .iter()
            .filter(|n| !json_eq(n.value, &self.0))
            .map(|n| Violation::at(n, format!("expected {}, found {}", show(&self.0), show(n.value))))
            .collect()
    }
}
