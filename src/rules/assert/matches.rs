//! `matches`: every selected value matches a regular expression (the whole value).

use regex::Regex;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{params, scalar_text, schema_of, show, Assertion, Ctx, KindDef, Violation};
use crate::matrix::yaml::{YNode, YamlError};

pub(super) static KIND: KindDef = KindDef {
    name: "matches",
    summary: "Every selected value matches a regular expression, anchored at both ends.",
    what: "Each node must be a scalar whose text matches the regular expression (Rust `regex` \
syntax) as a whole: the pattern is anchored, so `v[0-9]+` does not accept `xv1y`. Numbers and \
booleans are matched as their text. Maps and lists are findings.",
    why: "Formats that must hold everywhere: image tags pinned to a version, DNS-safe names, \
durations cert-manager accepts.",
    example: r#"rules:
  - id: images-pinned
    title: Container images carry an explicit version tag
    layer: manifests
    select:
      kind: [Deployment, StatefulSet, DaemonSet]
      path: $.spec.template.spec.containers[*].image
    assert:
      - matches: '.+:[0-9A-Za-z._-]+'
"#,
    empty_ok: false,
    missing_ok: false,
    on_failed_layer: false,
    schema: schema_of::<Pattern>,
    build,
};

/// A regular expression.
#[derive(Deserialize, JsonSchema)]
#[serde(transparent)]
#[schemars(rename = "MatchesPattern")]
struct Pattern(String);

struct Matches {
    source: String,
    re: Regex,
}

fn build(node: &YNode) -> Result<Box<dyn Assertion>, YamlError> {
    let Pattern(source) = params(node)?;
    let re = Regex::new(&format!("^(?:{source})$")).map_err(|e| YamlError {
        message: format!("invalid regular expression: {e}"),
        pos: Some(node.pos),
    })?;
    Ok(Box::new(Matches { source, re }))
}

impl Assertion for Matches {
    fn check(&self, cx: &Ctx<'_, '_>) -> Vec<Violation> {
        cx.sel
            .nodes
            .iter()
            .filter_map(|n| match scalar_text(n.value) {
                Some(t) if self.re.is_match(&t) => None,
                Some(_) => Some(Violation::at(
                    n,
                    format!("{} does not match /{}/", show(n.value), self.source),
                )),
                None => Some(Violation::at(
                    n,
                    format!("expected a scalar to match /{}/, found {}", self.source, show(n.value)),
                )),
            })
            .collect()
    }
}
