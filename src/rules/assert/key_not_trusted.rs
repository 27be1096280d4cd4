//! `key-not-trusted`: the Secret holding a server's private key is never the one
//! mounted or referenced as trust material.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value as Json;

use super::{params, schema_of, Assertion, Ctx, KindDef, Lookup, LookupSpec, Violation};
use crate::matrix::yaml::{YKind, YNode, YamlError};
use crate::rules::pki;

pub(super) static KIND: KindDef = KindDef {
    name: "key-not-trusted",
    summary: "No Secret that holds a server key is referenced as trust material.",
    what: "The selected objects name key-holding Secrets: a cert-manager Certificate names its \
`spec.secretName`; a Secret names itself when it holds a private key (a `tls.key`/`*.key` entry \
or a PEM private key block); with a `select.path`, the strings found are Secret names. Each \
lookup under `trust` (a layer and a selector with a `path`) finds the Secret names used as trust \
material. A name on both sides in the same namespace is a finding (a side with no namespace, such \
as a values entry, matches by name). A trust lookup that finds nothing is a finding unless its \
selector is `optional`.",
    why: "Mounting the server's own TLS Secret as a client's CA bundle \"works\" with a \
self-signed setup and hands every client the server's private key. It is easy to do by pointing \
two values at the same Secret name.",
    example: r#"rules:
  - id: server-key-not-trust
    title: The router's key Secret is not used as a trust bundle
    layer: manifests
    select:
      kind: Certificate
      release: llm-request-router
    assert:
      - key-not-trusted:
          trust:
            - select:
                kind: Deployment
                path: $.spec.template.spec.volumes[?(@.name == 'trust-bundle')].secret.secretName
"#,
    empty_ok: false,
    missing_ok: false,
    on_failed_layer: false,
    schema: schema_of::<Params>,
    build,
};

/// Where trust material is referenced.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "KeyNotTrustedParams")]
struct Params {
    trust: Vec<LookupSpec>,
}

struct KeyNotTrusted {
    trust: Vec<(Lookup, bool)>,
}

fn build(node: &YNode) -> Result<Box<dyn Assertion>, YamlError> {
    let p: Params = params(node)?;
    if p.trust.is_empty() {
        return Err(YamlError {
            message: "`trust` needs at least one lookup".into(),
            pos: Some(node.pos),
        });
    }
    let nodes: Vec<&YNode> = match node.get("trust").map(|n| &n.kind) {
        Some(YKind::Seq(items)) => items.iter().collect(),
        _ => Vec::new(),
    };
    let mut trust = Vec::new();
    for (i, spec) in p.trust.iter().enumerate() {
        let n = nodes.get(i).copied().unwrap_or(node);
        if spec.select.path.is_none() {
            return Err(YamlError {
                message: "each `trust` lookup needs `select.path` pointing at Secret names".into(),
                pos: Some(n.pos),
            });
        }
        trust.push((Lookup::build(spec, n)?, spec.select.optional));
    }
    Ok(Box::new(KeyNotTrusted { trust }))
}

fn holds_key(doc: &Json) -> bool {
    let m = doc.get("data").map(pki::decode).unwrap_or_default();
    let s = doc.get("stringData").map(pki::decode).unwrap_or_default();
    !m.keys.is_empty() || !s.keys.is_empty()
}

fn same_ns(a: &str, b: &str) -> bool {
    a.is_empty() || b.is_empty() || a == b
}

impl Assertion for KeyNotTrusted {
    fn check(&self, cx: &Ctx<'_, '_>) -> Vec<Violation> {
        // Key-holding Secret names, with the node they came from.
        let mut keys: Vec<(String, String, &super::Node<'_>, String)> = Vec::new();
        for n in &cx.sel.nodes {
            let s = cx.subject(n.subject);
            let kind = s.resource.as_ref().map(|r| r.kind.as_str());
            if cx.sel.has_path {
                if let Some(name) = n.value.as_str() {
                    let why = format!("the server key named at {} of {}", n.path, cx.describe(n.subject));
                    keys.push((s.namespace.clone(), name.to_string(), n, why));
                }
                continue;
            }
            match kind {
                Some("Certificate") => {
                    if let Some(name) = n.value.pointer("/spec/secretName").and_then(Json::as_str) {
                        let why = format!("the private key of {}", cx.describe(n.subject));
                        keys.push((s.namespace.clone(), name.to_string(), n, why));
                    }
                }
                Some("Secret") if holds_key(n.value) => {
                    if let Some(r) = &s.resource {
                        keys.push((s.namespace.clone(), r.name.clone(), n, "a private key".into()));
                    }
                }
                _ => {}
            }
        }
        let mut out = Vec::new();
        for (lookup, optional) in &self.trust {
            let looked = lookup.run(cx, "used as trust material here");
            out.extend(looked.problems.into_iter().map(Violation::whole));
            let found = looked.found;
            if found.is_empty() && !optional {
                out.push(Violation::whole(format!(
                    "the trust lookup {} found nothing",
                    lookup.describe
                )));
            }
            for f in found {
                let Some(trusted) = f.value.as_str() else { continue };
                for (ns, name, n, why) in &keys {
                    if name == trusted && same_ns(ns, &f.namespace) {
                        let mut v = Violation::at(
                            n,
                            format!(
                                "Secret {name} holds {why}, but {} uses it as trust material",
                                f.owner
                            ),
                        );
                        v.related.extend(f.location.clone());
                        out.push(v);
                    }
                }
            }
        }
        out
    }
}
