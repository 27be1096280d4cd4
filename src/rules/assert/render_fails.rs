//! `render-fails`: the cell must fail to render, with an error matching a pattern
//! (fail-closed checks: a bad input must be refused, not rendered into something).

use regex::Regex;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{params, schema_of, Assertion, Ctx, KindDef, Violation};
use crate::matrix::yaml::{YNode, YamlError};

pub(super) static KIND: KindDef = KindDef {
    name: "render-fails",
    summary: "The layer fails to render, with an error matching a regular expression.",
    what: "Passes when the rule's layer failed to render (as a whole, or for a release the \
selector's `release` matches) with an error message that the regular expression finds (unanchored \
search). Rendering successfully is a finding; failing with a different error is a finding that \
quotes the actual error.",
    why: "Guards are part of the contract: a stack must refuse an unknown PKI mode rather than \
render a half-configured router. Without a test the guard can be deleted unnoticed.",
    example: r#"rules:
  - id: bad-pki-mode-refused
    title: An unknown PKI mode is refused
    layer: states
    when: values.addons.llm.pki.mode not in ["certManager", "existingSecret"]
    assert:
      - render-fails: 'addons\.llm\.pki\.mode must be exactly'
"#,
    empty_ok: true,
    missing_ok: true,
    on_failed_layer: true,
    schema: schema_of::<Pattern>,
    build,
};

/// A regular expression the error must contain a match of.
#[derive(Deserialize, JsonSchema)]
#[serde(transparent)]
#[schemars(rename = "RenderFailsPattern")]
struct Pattern(String);

struct RenderFails {
    source: String,
    re: Regex,
}

fn build(node: &YNode) -> Result<Box<dyn Assertion>, YamlError> {
    let Pattern(source) = params(node)?;
    let re = Regex::new(&source).map_err(|e| YamlError {
        message: format!("invalid regular expression: {e}"),
        pos: Some(node.pos),
    })?;
    Ok(Box::new(RenderFails { source, re }))
}

impl Assertion for RenderFails {
    fn check(&self, cx: &Ctx<'_, '_>) -> Vec<Violation> {
        let failures = &cx.sel.failures;
        if failures.is_empty() {
            return vec![Violation::whole(format!(
                "expected the {} layer to fail to render with an error matching /{}/, but it rendered",
                cx.layer.as_str(),
                self.source
            ))];
        }
        if failures.iter().any(|(_, e)| self.re.is_match(&e.message)) {
            return Vec::new();
        }
        failures
            .iter()
            .map(|(rel, e)| {
                let whose = rel.as_ref().map_or(String::new(), |r| format!(" (release {r})"));
                Violation::whole(format!(
                    "rendering failed{whose}, but not with an error matching /{}/: {}",
                    self.source, e.message
                ))
            })
            .collect()
    }
}
