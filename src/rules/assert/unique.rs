//! `unique`: no two selected values (or object identities) are the same across the cell.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value as Json;

use super::{params, schema_of, show, Assertion, Ctx, KindDef, Violation};
use crate::matrix::yaml::{YNode, YamlError};
use crate::rules::model::Layer;
use crate::rules::select::JsonPath;

pub(super) static KIND: KindDef = KindDef {
    name: "unique",
    summary: "No two selected values are equal across all releases of the cell.",
    what: "Compares a key for every selected node across the whole cell: the node's value, or, with \
`by`, the first value a JSONPath finds inside it. Without a path or `by`, manifests are keyed by \
`apiVersion group/kind/namespace/name` and releases by `namespace/name`. The second and later \
occurrences of a key are findings, pointing back at the first.",
    why: "Two releases rendering the same object fight over it at install time; two Services with \
the same nodePort, two Ingress hosts, two webhooks with one name all fail late and confusingly.",
    example: r#"rules:
  - id: objects-unique
    title: No two releases render the same object
    layer: manifests
    assert:
      - unique: {}
"#,
    empty_ok: true,
    missing_ok: false,
    on_failed_layer: false,
    schema: schema_of::<Option<Params>>,
    build,
};

/// Optional key selection.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "UniqueParams")]
struct Params {
    /// A JSONPath inside each selected node giving the key.
    #[serde(default)]
    by: Option<String>,
}

struct Unique {
    by: Option<JsonPath>,
}

fn build(node: &YNode) -> Result<Box<dyn Assertion>, YamlError> {
    let p: Option<Params> = params(node)?;
    let by = match p.and_then(|p| p.by) {
        Some(src) => Some(JsonPath::compile(&src).map_err(|m| YamlError {
            message: m,
            pos: node.get("by").map(|n| n.pos),
        })?),
        None => None,
    };
    Ok(Box::new(Unique { by }))
}

fn group(api_version: &str) -> &str {
    api_version.rsplit_once('/').map_or("", |(g, _)| g)
}

impl Assertion for Unique {
    fn check(&self, cx: &Ctx<'_, '_>) -> Vec<Violation> {
        let mut seen: BTreeMap<String, (usize, String)> = BTreeMap::new();
        let mut out = Vec::new();
        for n in &cx.sel.nodes {
            let key: Json = if let Some(by) = &self.by {
                match by.find(n.value) {
                    Ok(found) => match found.first() {
                        Some((_, v)) => (*v).clone(),
                        None => {
                            out.push(Violation::at(n, format!("`by` {} matched nothing", by.source)));
                            continue;
                        }
                    },
                    Err(e) => {
                        out.push(Violation::at(n, e));
                        continue;
                    }
                }
            } else if !cx.sel.has_path {
                let s = cx.subject(n.subject);
                match (&s.resource, cx.layer) {
                    (Some(r), _) => Json::String(format!(
                        "{}/{}/{}/{}",
                        group(&r.api_version),
                        r.kind,
                        s.namespace,
                        r.name
                    )),
                    (None, Layer::States) => Json::String(
                        s.release.map(|r| r.to_string()).unwrap_or_default(),
                    ),
                    _ => n.value.clone(),
                }
            } else {
                n.value.clone()
            };
            let k = key.to_string();
            match seen.get(&k) {
                None => {
                    seen.insert(k, (n.subject, n.path.clone()));
                }
                Some((first, first_path)) => {
                    let identity = !cx.sel.has_path && self.by.is_none();
                    let message = if identity {
                        let other = cx
                            .subject(*first)
                            .release
                            .map_or_else(|| cx.describe(*first), |r| format!("release {r}"));
                        format!("{} is rendered more than once (also by {other})", cx.describe(n.subject))
                    } else {
                        format!("{} is not unique (also in {})", show(&key), cx.describe(*first))
                    };
                    let mut v = Violation::at(n, message);
                    v.related.extend(cx.location_of(*first, first_path, "first occurrence"));
                    out.push(v);
                }
            }
        }
        out
    }
}
