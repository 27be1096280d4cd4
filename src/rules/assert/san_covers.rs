//! `san-covers`: a certificate's SANs (or a cert-manager Certificate's `dnsNames`) cover
//! hostnames given literally or taken from elsewhere in the render.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value as Json;

use super::{params, schema_of, scalar_text, Assertion, Ctx, KindDef, Lookup, LookupSpec, Violation};
use crate::matrix::yaml::{YNode, YamlError};
use crate::rules::pki;

pub(super) static KIND: KindDef = KindDef {
    name: "san-covers",
    summary: "Certificate names cover hostnames given literally or found elsewhere in the render.",
    what: "The names come from the selected node: a cert-manager Certificate (its \
`spec.dnsNames`), a list of names, or certificate material (the DNS SANs of its first \
certificate). Each host in `hosts`, and each host `hosts-from` finds elsewhere in the cell \
(a layer and a selector with a `path`), must be covered: equal ignoring case and a trailing dot, \
or matched by a wildcard `*.example.com`, which covers exactly one whole left-most label (not \
`example.com`, not `a.b.example.com`). No names, or no hosts found, is a finding.",
    why: "The hostname a client dials is configured in one chart and the certificate in \
another; they drift apart on a rename and TLS fails only in the cluster.",
    example: r#"rules:
  - id: router-cert-covers-service
    title: The router certificate covers the router's Service name
    layer: manifests
    select:
      kind: Certificate
      release: llm-request-router
    assert:
      - san-covers:
          hosts-from:
            layer: values
            select:
              release: llm-request-router
              path: $.service.host
"#,
    empty_ok: false,
    missing_ok: false,
    on_failed_layer: false,
    schema: schema_of::<Params>,
    build,
};

/// Hostnames to cover: literal, looked up, or both.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
#[schemars(rename = "SanCoversParams")]
struct Params {
    #[serde(default)]
    hosts: Vec<String>,
    #[serde(default)]
    hosts_from: Option<LookupSpec>,
}

struct SanCovers {
    hosts: Vec<String>,
    from: Option<Lookup>,
}

fn build(node: &YNode) -> Result<Box<dyn Assertion>, YamlError> {
    let p: Params = params(node)?;
    if p.hosts.is_empty() && p.hosts_from.is_none() {
        return Err(YamlError {
            message: "give `hosts` or `hosts-from`".into(),
            pos: Some(node.pos),
        });
    }
    let from = match (&p.hosts_from, node.get("hosts-from")) {
        (Some(spec), Some(n)) => Some(Lookup::build(spec, n)?),
        _ => None,
    };
    Ok(Box::new(SanCovers {
        hosts: p.hosts,
        from,
    }))
}

/// The names a node offers, and what they are.
fn names_of(v: &Json) -> (Vec<String>, &'static str) {
    let list = |l: &Json| -> Vec<String> {
        l.as_array()
            .map(|a| a.iter().filter_map(scalar_text).collect())
            .unwrap_or_default()
    };
    if let Some(d) = v.pointer("/spec/dnsNames") {
        return (list(d), "spec.dnsNames");
    }
    if let Some(d) = v.get("dnsNames") {
        return (list(d), "dnsNames");
    }
    if v.is_array() && v.as_array().is_some_and(|a| a.iter().all(|x| x.is_string())) {
        return (list(v), "names");
    }
    let m = pki::decode(v);
    match m.certs.first() {
        Some(c) => (c.dns_names.clone(), "certificate SANs"),
        None => (Vec::new(), "certificate SANs"),
    }
}

impl Assertion for SanCovers {
    fn check(&self, cx: &Ctx<'_, '_>) -> Vec<Violation> {
        let mut hosts: Vec<(String, Option<crate::report::FindingLocation>)> =
            self.hosts.iter().map(|h| (h.clone(), None)).collect();
        let mut out = Vec::new();
        if let Some(from) = &self.from {
            let looked = from.run(cx, "hostname from here");
            out.extend(looked.problems.into_iter().map(Violation::whole));
            if looked.found.is_empty() {
                out.push(Violation::whole(format!("no hostnames found at {}", from.describe)));
            }
            for f in looked.found {
                let items: Vec<Json> = match f.value {
                    Json::Array(a) => a,
                    other => vec![other],
                };
                for h in items.iter().filter_map(scalar_text) {
                    hosts.push((h, f.location.clone()));
                }
            }
        }
        for n in &cx.sel.nodes {
            let who = cx.describe(n.subject);
            let (names, what) = names_of(n.value);
            // Point at the names themselves when they are a Certificate's dnsNames.
            let names_path = match what {
                "spec.dnsNames" => Some(format!("{}['spec']['dnsNames']", n.path)),
                "dnsNames" => Some(format!("{}['dnsNames']", n.path)),
                _ => None,
            };
            if names.is_empty() {
                out.push(Violation::at(n, format!("{who} has no DNS names ({what})")));
                continue;
            }
            for (h, loc) in &hosts {
                if !names.iter().any(|name| pki::name_covers(name, h)) {
                    let mut v = Violation::at(
                        n,
                        format!("{who} does not cover {h:?} ({what}: {})", names.join(", ")),
                    );
                    if let Some(p) = &names_path {
                        v.path = Some(p.clone());
                    }
                    v.related.extend(loc.clone());
                    out.push(v);
                }
            }
        }
        out
    }
}
