//! `absent`: nothing may match — no selected object, or no node at the path.


use super::{without_params, NoParams, schema_of, show, Assertion, Ctx, KindDef, Violation};

pub(super) static KIND: KindDef = KindDef {
    name: "absent",
    summary: "Nothing matches the selector (or, with a path, nothing matches the path).",
    what: "Without `select.path`, every selected object is a finding. With a path, every node the \
path matches is a finding; objects where it matches nothing are fine.",
    why: "Some things must not be rendered in some cells: an issuer when the operator owns the \
Secret, a debug port in production, a `hostNetwork: true`.",
    example: r#"rules:
  - id: no-certificate-in-existing-secret-mode
    title: existingSecret mode renders no Certificate
    layer: manifests
    when: values.addons.llm.pki.mode == "existingSecret"
    select:
      kind: Certificate
    assert:
      - absent: {}
"#,
    empty_ok: true,
    missing_ok: true,
    on_failed_layer: false,
    schema: schema_of::<Option<NoParams>>,
    build: |node| without_params(node, || Absent),
};

struct Absent;

impl Assertion for Absent {
    fn check(&self, cx: &Ctx<'_, '_>) -> Vec<Violation> {
        if !cx.sel.has_path {
            return (0..cx.sel.subjects.len())
                .map(|i| Violation::subject(i, format!("{} must not exist", cx.describe(i))))
                .collect();
        }
        cx.sel
            .nodes
            .iter()
            .map(|n| Violation::at(n, format!("{} must not be set (found {})", n.path, show(n.value))))
            .collect()
    }
}
