//! `exists`: something must be there — a selected object, or a value at the path in
//! every selected object.


use super::{without_params, NoParams, schema_of, Assertion, Ctx, KindDef, Violation};

pub(super) static KIND: KindDef = KindDef {
    name: "exists",
    summary: "The selector matches something; with a path, the path matches in every selected object.",
    what: "Without `select.path`, at least one object must match the selector. With a path, every \
selected object must have at least one node at that path, and at least one object must be \
selected unless the rule sets `allow-empty: true`.",
    why: "Required wiring that silently disappears is the classic broken-addon bug: a Certificate \
that stops being rendered when a mode switches, a value that a refactor renamed.",
    example: r#"rules:
  - id: router-has-certificate
    title: The LLM router gets a cert-manager Certificate
    layer: manifests
    when: values.addons.llm.pki.mode == "certManager"
    select:
      kind: Certificate
      release: llm-request-router
    assert:
      - exists: {}
"#,
    empty_ok: true,
    missing_ok: true,
    on_failed_layer: false,
    schema: schema_of::<Option<NoParams>>,
    build: |node| without_params(node, || Exists),
};

struct Exists;

impl Assertion for Exists {
    fn check(&self, cx: &Ctx<'_, '_>) -> Vec<Violation> {
        if cx.sel.subjects.is_empty() {
            // With a path, "every selected object has it" is vacuous when the rule
            // allows an empty selection; without one, existence is the whole point.
            if cx.sel.has_path && cx.allow_empty {
                return Vec::new();
            }
            return vec![Violation::whole("nothing matches the selector")];
        }
        cx.sel
            .missing
            .iter()
            .map(|&i| {
                Violation::subject(
                    i,
                    format!(
                        "{} has nothing at `{}`",
                        cx.describe(i),
                        cx.sel.path_source.as_deref().unwrap_or("$")
                    ),
                )
            })
            .collect()
    }
}
