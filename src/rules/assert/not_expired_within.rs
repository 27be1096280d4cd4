//! `not-expired-within`: certificates stay valid for at least a given duration.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{params, schema_of, Assertion, Ctx, KindDef, Violation};
use crate::matrix::config::days_from_civil;
use crate::matrix::yaml::{YNode, YamlError};
use crate::rules::pki;

pub(super) static KIND: KindDef = KindDef {
    name: "not-expired-within",
    summary: "Every certificate in the selected material is valid for at least the given duration from now.",
    what: "Decodes the material and requires each certificate's notAfter to be later than now plus \
the duration (`30d`, `12h`, `1w2d`, Go's `2160h0m0s`; units s, m, h, d, w, y). No certificate, \
or one that does not parse, is a finding. \"Now\" is the configuration's `now` when set, so runs \
are reproducible.",
    why: "Certificates committed into values files and charts (CA bundles, pinned server certs) \
expire on a date nobody watches. A check with a margin turns the outage into a failing build \
weeks ahead.",
    example: r#"rules:
  - id: ca-valid-90-days
    title: The CA bundle is valid for at least 90 more days
    layer: values
    select:
      release: llm-request-router
      path: $.pki.caBundle
    assert:
      - not-expired-within: 90d
"#,
    empty_ok: false,
    missing_ok: false,
    on_failed_layer: false,
    schema: schema_of::<Duration>,
    build,
};

/// A duration such as `30d`.
#[derive(Deserialize, JsonSchema)]
#[serde(transparent)]
#[schemars(rename = "NotExpiredWithinDuration")]
struct Duration(String);

struct NotExpiredWithin {
    text: String,
    seconds: i64,
}

fn build(node: &YNode) -> Result<Box<dyn Assertion>, YamlError> {
    let Duration(text) = params(node)?;
    let seconds = pki::parse_duration(&text).ok_or_else(|| YamlError {
        message: format!("`{text}` is not a duration such as 30d, 12h or 2160h0m0s"),
        pos: Some(node.pos),
    })?;
    Ok(Box::new(NotExpiredWithin { text, seconds }))
}

/// A Unix time as `YYYY-MM-DD`.
fn date(t: i64) -> String {
    let days = t.div_euclid(86400);
    // Inverse of days_from_civil by search around the estimate (exact and simple).
    let mut y = 1970 + days.div_euclid(365);
    while days_from_civil(y, 1, 1) > days {
        y -= 1;
    }
    while days_from_civil(y + 1, 1, 1) <= days {
        y += 1;
    }
    let mut m = 1;
    while m < 12 && days_from_civil(y, m + 1, 1) <= days {
        m += 1;
    }
    let d = days - days_from_civil(y, m, 1) + 1;
    format!("{y:04}-{m:02}-{d:02}")
}

impl Assertion for NotExpiredWithin {
    fn check(&self, cx: &Ctx<'_, '_>) -> Vec<Violation> {
        let mut out = Vec::new();
        let deadline = cx.now.saturating_add(self.seconds);
        for n in &cx.sel.nodes {
            let who = cx.describe(n.subject);
            let m = pki::decode(n.value);
            for e in &m.errors {
                out.push(Violation::at(n, format!("{who}: {e}")));
            }
            if m.certs.is_empty() && m.errors.is_empty() {
                out.push(Violation::at(n, format!("{who} holds no certificate")));
            }
            for c in &m.certs {
                let message = if c.not_after <= cx.now {
                    format!("certificate {} expired on {}", c.subject, date(c.not_after))
                } else if c.not_after < deadline {
                    format!(
                        "certificate {} expires on {}, within {}",
                        c.subject,
                        date(c.not_after),
                        self.text
                    )
                } else {
                    continue;
                };
                let mut v = Violation::at(n, message);
                v.path = Some(format!("{}{}", n.path, c.suffix));
                out.push(v);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::date;

    #[test]
    fn dates() {
        assert_eq!(date(0), "1970-01-01");
        assert_eq!(date(1767225600), "2026-01-01");
        assert_eq!(date(951782400), "2000-02-29");
    }
}
