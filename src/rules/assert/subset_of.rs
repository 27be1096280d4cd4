//! `subset-of`: every selected value (or list element) is in an allowed set, given
//! literally or looked up elsewhere in the render.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value as Json;

use super::{
    json_eq, params, schema_of, show, Assertion, Ctx, KindDef, Lookup, LookupSpec, Violation,
};
use crate::matrix::yaml::{YNode, YamlError};

pub(super) static KIND: KindDef = KindDef {
    name: "subset-of",
    summary: "Every selected value, or every element of a selected list, is in an allowed set.",
    what: "The allowed set is `values` (a list), or what `from` finds elsewhere in the cell (a \
layer and a selector with a `path`). A selected list is checked element by element; a scalar is \
checked as one element. When `from` finds nothing, or cannot look, that is a finding: an empty \
allowed set proves nothing.",
    why: "Cross-references by name break silently: `needs` naming a release that was renamed, a \
values entry naming a namespace no release uses, a route pointing at a gateway that is not \
declared.",
    example: r#"rules:
  - id: needs-resolve
    title: Every `needs` entry names a declared release
    layer: states
    select:
      path: $.needs[*]
      optional: true
    assert:
      - subset-of:
          from:
            select:
              path: $.name
"#,
    empty_ok: false,
    missing_ok: false,
    on_failed_layer: false,
    schema: schema_of::<Params>,
    build,
};

/// The allowed set: `values`, or `from` (one lookup or a list), or both (union).
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "SubsetOfParams")]
struct Params {
    #[serde(default)]
    values: Option<Vec<Json>>,
    #[serde(default)]
    from: Option<From>,
}

/// One lookup or several.
#[derive(Deserialize, JsonSchema)]
#[serde(untagged)]
#[schemars(rename = "SubsetOfFrom")]
enum From {
    One(Box<LookupSpec>),
    Many(Vec<LookupSpec>),
}

struct SubsetOf {
    values: Vec<Json>,
    from: Vec<Lookup>,
}

fn build(node: &YNode) -> Result<Box<dyn Assertion>, YamlError> {
    let p: Params = params(node)?;
    if p.values.is_none() && p.from.is_none() {
        return Err(YamlError {
            message: "give `values` or `from`".into(),
            pos: Some(node.pos),
        });
    }
    let mut from = Vec::new();
    match (&p.from, node.get("from")) {
        (Some(From::One(spec)), Some(n)) => from.push(Lookup::build(spec, n)?),
        (Some(From::Many(specs)), Some(n)) => {
            for (i, spec) in specs.iter().enumerate() {
                from.push(Lookup::build(spec, n.index(i).unwrap_or(n))?);
            }
        }
        _ => {}
    }
    Ok(Box::new(SubsetOf {
        values: p.values.unwrap_or_default(),
        from,
    }))
}

impl Assertion for SubsetOf {
    fn check(&self, cx: &Ctx<'_, '_>) -> Vec<Violation> {
        let mut allowed = self.values.clone();
        let mut problems = Vec::new();
        for from in &self.from {
            let looked = from.run(cx, "allowed value from here");
            problems.extend(looked.problems);
            allowed.extend(looked.found.into_iter().map(|f| f.value));
        }
        // An incomplete allowed set would report values as unknown that are not:
        // report what kept the lookups from completing instead.
        if !problems.is_empty() {
            return problems.into_iter().map(Violation::whole).collect();
        }
        if allowed.is_empty() {
            return vec![Violation::whole("the allowed set is empty")];
        }
        let mut out = Vec::new();
        for n in &cx.sel.nodes {
            let elems: Vec<&Json> = match n.value {
                Json::Array(items) => items.iter().collect(),
                other => vec![other],
            };
            for e in elems {
                if !allowed.iter().any(|a| json_eq(a, e)) {
                    out.push(Violation::at(n, format!("{} is not in the allowed set", show(e))));
                }
            }
        }
        out
    }
}
