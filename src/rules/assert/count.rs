//! `count`: how many objects (or path matches) the selector finds across the whole cell.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{params, schema_of, Assertion, Ctx, KindDef, Violation};
use crate::matrix::yaml::{YNode, YamlError};

pub(super) static KIND: KindDef = KindDef {
    name: "count",
    summary: "The number of matches across every release of the cell is exactly / at least / at most N.",
    what: "Counts the selected objects (or, with `select.path`, the nodes the path matches) across \
all releases and states of the cell together — not per release — and compares with `exactly`, \
`min` and/or `max`.",
    why: "Stack-wide cardinality is where per-chart linting is blind: exactly one release may own \
the cert-manager CRDs, exactly one ClusterIssuer may carry a name, at most one ingress may be the \
default.",
    example: r#"rules:
  - id: one-cert-manager
    title: Exactly one release installs cert-manager
    layer: states
    select:
      where: doc.installed and doc.enabled and doc.chart is endingwith "cert-manager"
    assert:
      - count: {exactly: 1}
"#,
    empty_ok: true,
    missing_ok: true,
    on_failed_layer: false,
    schema: schema_of::<Params>,
    build,
};

/// Bounds; give `exactly`, or `min` and/or `max`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "CountParams")]
struct Params {
    #[serde(default)]
    exactly: Option<usize>,
    #[serde(default)]
    min: Option<usize>,
    #[serde(default)]
    max: Option<usize>,
}

struct Count(Params);

fn build(node: &YNode) -> Result<Box<dyn Assertion>, YamlError> {
    let p: Params = params(node)?;
    let err = |m: &str| YamlError {
        message: m.into(),
        pos: Some(node.pos),
    };
    match (p.exactly, p.min, p.max) {
        (None, None, None) => return Err(err("give `exactly`, `min` or `max`")),
        (Some(_), Some(_), _) | (Some(_), _, Some(_)) => {
            return Err(err("`exactly` cannot be combined with `min` or `max`"))
        }
        (None, Some(a), Some(b)) if a > b => return Err(err("`min` is larger than `max`")),
        _ => {}
    }
    Ok(Box::new(Count(p)))
}

impl Assertion for Count {
    fn check(&self, cx: &Ctx<'_, '_>) -> Vec<Violation> {
        let n = if cx.sel.has_path {
            cx.sel.nodes.len()
        } else {
            cx.sel.subjects.len()
        };
        let what = |k: usize| match (cx.sel.has_path, k == 1) {
            (true, true) => "path match",
            (true, false) => "path matches",
            (false, true) => "match",
            (false, false) => "matches",
        };
        let bad = match (self.0.exactly, self.0.min, self.0.max) {
            (Some(e), _, _) if n != e => Some(format!("expected exactly {e} {}, found {n}", what(e))),
            (_, Some(m), _) if n < m => Some(format!("expected at least {m} {}, found {n}", what(m))),
            (_, _, Some(m)) if n > m => Some(format!("expected at most {m} {}, found {n}", what(m))),
            _ => None,
        };
        let Some(msg) = bad else { return Vec::new() };
        let mut v = Violation::whole(msg);
        // Point at every match so an unexpected extra is easy to find.
        for (i, _) in cx.sel.subjects.iter().enumerate().take(20) {
            if let Some(l) = cx.location_of(i, "$", &cx.describe(i)) {
                v.related.push(l);
            }
        }
        vec![v]
    }
}
