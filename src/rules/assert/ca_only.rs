//! `ca-only`: the selected material is CA certificates and nothing else.


use super::{key_violations, schema_of, without_params, Assertion, Ctx, KindDef, NoParams, Violation};
use crate::rules::pki;

pub(super) static KIND: KindDef = KindDef {
    name: "ca-only",
    summary: "The selected material holds at least one certificate, all of them CAs, and no private key.",
    what: "Decodes the material (PEM, base64 of PEM, DER, or a map of entries) and requires at \
least one certificate, every certificate to have basicConstraints `cA: true`, no private key, and \
no certificate block that fails to parse.",
    why: "A trust bundle that contains a leaf certificate (the server's own cert pasted in by \
mistake) pins clients to one certificate and breaks at the first rotation; an empty bundle trusts \
nothing.",
    example: r#"rules:
  - id: ca-bundle-is-ca-only
    title: The CA bundle holds CA certificates only
    layer: manifests
    select:
      kind: ConfigMap
      name: nvcf-ca-bundle
      path: $.data['ca.crt']
    assert:
      - ca-only: {}
"#,
    empty_ok: false,
    missing_ok: false,
    on_failed_layer: false,
    schema: schema_of::<Option<NoParams>>,
    build: |node| without_params(node, || CaOnly),
};

struct CaOnly;

impl Assertion for CaOnly {
    fn check(&self, cx: &Ctx<'_, '_>) -> Vec<Violation> {
        let mut out = Vec::new();
        for n in &cx.sel.nodes {
            let who = cx.describe(n.subject);
            let m = pki::decode(n.value);
            for e in &m.errors {
                out.push(Violation::at(n, format!("{who}: {e}")));
            }
            if m.certs.is_empty() {
                out.push(Violation::at(n, format!("{who} holds no certificate")));
            }
            for c in m.certs.iter().filter(|c| !c.is_ca) {
                let mut v = Violation::at(
                    n,
                    format!("{who} holds a certificate that is not a CA: {}", c.subject),
                );
                v.path = Some(format!("{}{}", n.path, c.suffix));
                out.push(v);
            }
            out.extend(key_violations(n, &m.keys, |k| {
                format!("{who} holds a private key: {}", k.what)
            }));
        }
        out
    }
}
