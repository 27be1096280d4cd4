//! `no-private-key`: trust material holds no private key.


use super::{key_violations, schema_of, without_params, Assertion, Ctx, KindDef, NoParams, Violation};
use crate::rules::pki;

pub(super) static KIND: KindDef = KindDef {
    name: "no-private-key",
    summary: "The selected material (a trust bundle) contains no private key.",
    what: "Decodes what the selector points at — PEM text, base64 of PEM (Secret `data`), or a \
map of entries (a Secret's or ConfigMap's `data`) — and finds any PEM block whose label contains \
`PRIVATE KEY` and any entry named `tls.key`, `*.key` or `*key.pem`. Each is a finding. Select the \
material you mean as a trust bundle; a TLS Secret legitimately holds `tls.key`.",
    why: "A CA bundle is copied to every client. A private key that rides along with it (a \
`kubernetes.io/tls` Secret reused as a trust bundle, a `ca.key` added for convenience) is a key \
handed to every workload that trusts it.",
    example: r#"rules:
  - id: trust-bundle-has-no-key
    title: The router's trust bundle carries no private key
    layer: manifests
    select:
      kind: [Secret, ConfigMap]
      name: "*-trust-bundle"
      path: $.data
    assert:
      - no-private-key: {}
"#,
    empty_ok: false,
    missing_ok: false,
    on_failed_layer: false,
    schema: schema_of::<Option<NoParams>>,
    build: |node| without_params(node, || NoPrivateKey),
};

struct NoPrivateKey;

impl Assertion for NoPrivateKey {
    fn check(&self, cx: &Ctx<'_, '_>) -> Vec<Violation> {
        let mut out = Vec::new();
        for n in &cx.sel.nodes {
            let who = cx.describe(n.subject);
            out.extend(key_violations(n, &pki::decode(n.value).keys, |k| {
                let at = if k.entry.is_empty() || !k.what.starts_with("a PEM") {
                    String::new()
                } else {
                    format!(" in `{}`", k.entry)
                };
                format!("{who} holds a private key: {}{at}", k.what)
            }));
        }
        out
    }
}
