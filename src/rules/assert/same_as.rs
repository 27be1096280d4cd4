//! `same-as`: the selected values are the same in this cell and another one.

use super::{
    json_eq, params, schema_of, show, Assertion, CompareCell, Ctx, KindDef, Violation,
};
use crate::matrix::yaml::{YNode, YamlError};

pub(super) static KIND: KindDef = KindDef {
    name: "same-as",
    summary: "Every selected value equals the same value in another cell of the target.",
    what: "Applies the rule's selector to the named cell of the same target too, and pairs the \
nodes by object (or release) and path. Each node selected here must have a partner there with an \
equal value (numbers by value, maps and lists deeply). A cell that is not one of the target's, or that \
failed to render, is a finding (\"cannot compare\"), never a pass; a run restricted with `--cell` \
renders the compared cell too, without reporting on it.",
    why: "Stability is an invariant too: toggling an unrelated feature must not rename a \
Service, change a checksum (and roll every pod) or move a release to another namespace.",
    example: r#"rules:
  - id: stable-checksum
    title: Toggling tracing does not roll the API
    layer: manifests
    when: cell == "tracing-on"
    select:
      kind: Deployment
      name: api
      path: "$.spec.template.metadata.annotations['checksum/config']"
    assert:
      - same-as: {cell: tracing-off}
"#,
    empty_ok: false,
    missing_ok: false,
    on_failed_layer: false,
    schema: schema_of::<CompareCell>,
    build: |node: &YNode| -> Result<Box<dyn Assertion>, YamlError> {
        Ok(Box::new(SameAs(params(node)?)))
    },
};

struct SameAs(CompareCell);

impl Assertion for SameAs {
    fn other_cell(&self) -> Option<&str> {
        Some(&self.0.cell)
    }

    fn check(&self, cx: &Ctx<'_, '_>) -> Vec<Violation> {
        let there = match cx.partners(&self.0.cell) {
            Ok(t) => t,
            Err(e) => return vec![Violation::whole(e)],
        };
        cx.sel
            .nodes
            .iter()
            .filter_map(|n| match there.get(&cx.key(n)) {
                None => Some(Violation::at(
                    n,
                    format!("cell `{}` has no such value", self.0.cell),
                )),
                Some(p) if !json_eq(n.value, p) => Some(Violation::at(
                    n,
                    format!(
                        "{} here, but {} in cell `{}`",
                        show(n.value),
                        show(p),
                        self.0.cell
                    ),
                )),
                Some(_) => None,
            })
            .collect()
    }
}
