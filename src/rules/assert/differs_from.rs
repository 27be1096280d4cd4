//! `differs-from`: the selected values change between this cell and another one.

use super::{
    json_eq, params, schema_of, show, Assertion, CompareCell, Ctx, KindDef, Violation,
};
use crate::matrix::yaml::{YNode, YamlError};

pub(super) static KIND: KindDef = KindDef {
    name: "differs-from",
    summary: "Every selected value differs from the same value in another cell of the target.",
    what: "Applies the rule's selector to the named cell of the same target too, and pairs the \
nodes by object (or release) and path. Each node selected here must differ from its partner \
there; a node the other cell does not have counts as different. The rule runs only in the cells \
where its `when` holds, so compare a cell with its baseline, not every cell with every other. A cell that is not one of the target's, or that \
failed to render, is a finding (\"cannot compare\"), never a pass; a run restricted with `--cell` \
renders the compared cell too, without reporting on it.",
    why: "Some invariants are about change, not state: a config checksum annotation must change \
when the config it hashes changes (or the Deployment never rolls), a generated name must change \
with its input. One cell cannot show that; two cells can.",
    example: r#"rules:
  - id: checksum-rolls
    title: Changing the allowlist changes the Deployment's config checksum
    layer: manifests
    when: cell == "changed"
    select:
      kind: Deployment
      name: api
      path: "$.spec.template.metadata.annotations['checksum/config']"
    assert:
      - differs-from: {cell: configured}
"#,
    empty_ok: false,
    missing_ok: false,
    on_failed_layer: false,
    schema: schema_of::<CompareCell>,
    build: |node: &YNode| -> Result<Box<dyn Assertion>, YamlError> {
        Ok(Box::new(DiffersFrom(params(node)?)))
    },
};

struct DiffersFrom(CompareCell);

impl Assertion for DiffersFrom {
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
            .filter(|n| there.get(&cx.key(n)).is_some_and(|p| json_eq(n.value, p)))
            .map(|n| {
                Violation::at(
                    n,
                    format!(
                        "unchanged from cell `{}` ({}), but it must differ",
                        self.0.cell,
                        show(n.value)
                    ),
                )
            })
            .collect()
    }
}
