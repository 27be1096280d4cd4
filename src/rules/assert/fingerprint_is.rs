//! `fingerprint-is`: the selected material contains (or consists of) pinned certificates.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{params, schema_of, Assertion, Ctx, KindDef, Violation};
use crate::matrix::yaml::{YNode, YamlError};
use crate::rules::pki;

pub(super) static KIND: KindDef = KindDef {
    name: "fingerprint-is",
    summary: "A certificate in the selected material has a pinned SHA-256 fingerprint.",
    what: "Computes the SHA-256 fingerprint of each certificate's DER encoding. By default one of \
them must equal one of the `sha256` values; with `all: true` every certificate must be one of \
them. Fingerprints may be written with or without colons, in either case.",
    why: "Trust anchors are supposed to change only on purpose. Pinning the CA in a rule makes a \
swapped bundle (a test CA promoted by accident, a stale copy) a reviewable failure.",
    example: r#"rules:
  - id: ca-pinned
    title: The CA bundle contains the production CA
    layer: manifests
    select:
      kind: ConfigMap
      name: nvcf-ca-bundle
      path: $.data['ca.crt']
    assert:
      - fingerprint-is:
          sha256: "9F:86:D0:81:88:4C:7D:65:9A:2F:EA:A0:C5:5A:D0:15:A3:BF:4F:1B:2B:0B:82:2C:D1:5D:6C:15:B0:F0:0A:08"
"#,
    empty_ok: false,
    missing_ok: false,
    on_failed_layer: false,
    schema: schema_of::<Params>,
    build,
};

/// Pinned fingerprints.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "FingerprintIsParams")]
struct Params {
    /// One fingerprint or a list.
    sha256: crate::rules::model::Patterns,
    /// Every certificate must be pinned (default: at least one).
    #[serde(default)]
    all: bool,
}

struct FingerprintIs {
    pins: Vec<String>,
    all: bool,
}

fn build(node: &YNode) -> Result<Box<dyn Assertion>, YamlError> {
    let p: Params = params(node)?;
    let mut pins = Vec::new();
    for s in p.sha256.list() {
        let f = pki::normalize_fingerprint(s);
        if f.len() != 64 {
            return Err(YamlError {
                message: format!("`{s}` is not a SHA-256 fingerprint (64 hex digits)"),
                pos: node.get("sha256").map(|n| n.pos),
            });
        }
        pins.push(f);
    }
    Ok(Box::new(FingerprintIs { pins, all: p.all }))
}

impl Assertion for FingerprintIs {
    fn check(&self, cx: &Ctx<'_, '_>) -> Vec<Violation> {
        let mut out = Vec::new();
        for n in &cx.sel.nodes {
            let who = cx.describe(n.subject);
            let m = pki::decode(n.value);
            if m.certs.is_empty() {
                out.push(Violation::at(n, format!("{who} holds no certificate")));
                continue;
            }
            let pinned = |c: &pki::CertInfo| self.pins.contains(&c.sha256);
            if self.all {
                for c in m.certs.iter().filter(|c| !pinned(c)) {
                    out.push(Violation::at(
                        n,
                        format!("certificate {} (sha256 {}) is not pinned", c.subject, c.sha256),
                    ));
                }
            } else if !m.certs.iter().any(pinned) {
                let have = m
                    .certs
                    .iter()
                    .map(|c| format!("{} (sha256 {})", c.subject, c.sha256))
                    .collect::<Vec<_>>()
                    .join(", ");
                out.push(Violation::at(n, format!("no pinned certificate in {who}; found {have}")));
            }
        }
        out
    }
}
