//! Reading key material wherever a selector points: PEM text, base64 of PEM (Secret
//! `data`), DER certificates, and maps of such entries (a Secret's `data`, a ConfigMap's
//! `data`, a values subtree). PKI assertions work on the [`Material`] this produces.

use base64::Engine as _;
use serde_json::Value as Json;
use sha2::{Digest, Sha256};
use x509_parser::extensions::GeneralName;
use x509_parser::prelude::{FromDer, X509Certificate};

/// A decoded certificate's facts that rules check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CertInfo {
    pub subject: String,
    pub is_ca: bool,
    pub dns_names: Vec<String>,
    pub not_before: i64,
    pub not_after: i64,
    /// Lowercase hex SHA-256 of the DER encoding.
    pub sha256: String,
    /// Where in the node it was found (`tls.crt`, or empty for the node itself).
    pub entry: String,
    /// The same place as a normalized JSONPath suffix (`['tls.crt']`).
    pub suffix: String,
}

/// A private key found in the material.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyInfo {
    /// `PEM RSA PRIVATE KEY`, or `entry named tls.key`.
    pub what: String,
    pub entry: String,
    /// The entry as a normalized JSONPath suffix.
    pub suffix: String,
}

/// Everything found under one node.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Material {
    pub certs: Vec<CertInfo>,
    pub keys: Vec<KeyInfo>,
    /// Blocks that looked like certificates but did not parse.
    pub errors: Vec<String>,
}

/// Whether a map entry's name says it holds a private key.
pub fn is_key_entry_name(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n.ends_with(".key") || n == "key.pem" || n.ends_with("-key.pem") || n.ends_with("_key.pem")
}

/// Decodes everything under `v`.
pub fn decode(v: &Json) -> Material {
    let mut m = Material::default();
    walk(v, "", "", &mut m);
    // An entry named like a key that also holds a PEM key is one finding, not two.
    let pem_entries: Vec<String> = m
        .keys
        .iter()
        .filter(|k| k.what.starts_with("a PEM"))
        .map(|k| k.entry.clone())
        .collect();
    m.keys
        .retain(|k| k.what.starts_with("a PEM") || !pem_entries.contains(&k.entry));
    m
}

fn walk(v: &Json, entry: &str, suffix: &str, m: &mut Material) {
    match v {
        Json::String(s) => decode_text(s, entry, suffix, m),
        Json::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                walk(
                    item,
                    &join(entry, &format!("[{i}]")),
                    &format!("{suffix}[{i}]"),
                    m,
                );
            }
        }
        Json::Object(map) => {
            for (k, item) in map {
                let e = join(entry, k);
                let mut sfx = suffix.to_string();
                crate::matrix::yaml::push_member(&mut sfx, k);
                if is_key_entry_name(k) {
                    m.keys.push(KeyInfo {
                        what: format!("an entry named `{k}`"),
                        entry: e.clone(),
                        suffix: sfx.clone(),
                    });
                }
                walk(item, &e, &sfx, m);
            }
        }
        _ => {}
    }
}

fn join(a: &str, b: &str) -> String {
    if a.is_empty() {
        b.to_string()
    } else if b.starts_with('[') {
        format!("{a}{b}")
    } else {
        format!("{a}.{b}")
    }
}

fn decode_text(s: &str, entry: &str, suffix: &str, m: &mut Material) {
    if s.contains("-----BEGIN") {
        decode_pem(s.as_bytes(), entry, suffix, m);
        return;
    }
    let compact: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    if compact.len() < 16 {
        return;
    }
    let Ok(bytes) = base64::engine::general_purpose::STANDARD.decode(compact.as_bytes()) else {
        return;
    };
    if contains(&bytes, b"-----BEGIN") {
        decode_pem(&bytes, entry, suffix, m);
    } else if let Ok((_, cert)) = X509Certificate::from_der(&bytes) {
        m.certs.push(cert_info(&cert, &bytes, entry, suffix));
    }
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

fn decode_pem(bytes: &[u8], entry: &str, suffix: &str, m: &mut Material) {
    for pem in x509_parser::pem::Pem::iter_from_buffer(bytes) {
        let pem = match pem {
            Ok(p) => p,
            Err(e) => {
                m.errors
                    .push(format!("{}: unreadable PEM block: {e}", show_entry(entry)));
                break;
            }
        };
        if pem.label.contains("PRIVATE KEY") {
            m.keys.push(KeyInfo {
                what: format!("a PEM `{}` block", pem.label),
                entry: entry.to_string(),
                suffix: suffix.to_string(),
            });
        } else if pem.label == "CERTIFICATE" || pem.label == "TRUSTED CERTIFICATE" {
            match X509Certificate::from_der(&pem.contents) {
                Ok((_, cert)) => m.certs.push(cert_info(&cert, &pem.contents, entry, suffix)),
                Err(e) => m.errors.push(format!(
                    "{}: a CERTIFICATE block does not parse: {e}",
                    show_entry(entry)
                )),
            }
        }
    }
}

fn show_entry(entry: &str) -> String {
    if entry.is_empty() {
        "value".into()
    } else {
        format!("`{entry}`")
    }
}

fn cert_info(cert: &X509Certificate<'_>, der: &[u8], entry: &str, suffix: &str) -> CertInfo {
    let mut dns_names = Vec::new();
    if let Ok(Some(san)) = cert.subject_alternative_name() {
        for n in &san.value.general_names {
            if let GeneralName::DNSName(d) = n {
                dns_names.push((*d).to_string());
            }
        }
    }
    let digest = Sha256::digest(der);
    CertInfo {
        subject: cert.subject().to_string(),
        is_ca: cert.is_ca(),
        dns_names,
        not_before: cert.validity().not_before.timestamp(),
        not_after: cert.validity().not_after.timestamp(),
        sha256: digest.iter().map(|b| format!("{b:02x}")).collect(),
        entry: entry.to_string(),
        suffix: suffix.to_string(),
    }
}

/// `AB:CD:...` or `abcd...` to lowercase hex without separators.
pub fn normalize_fingerprint(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_ascii_hexdigit())
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// Whether a certificate name (possibly `*.example.com`) covers `host`: case-insensitive,
/// a trailing dot ignored, a wildcard standing for exactly one whole left-most label.
pub fn name_covers(name: &str, host: &str) -> bool {
    let name = name.trim_end_matches('.').to_ascii_lowercase();
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    if name.is_empty() || host.is_empty() {
        return false;
    }
    if name == host {
        return true;
    }
    let Some(suffix) = name.strip_prefix("*.") else {
        return false;
    };
    if suffix.is_empty() || suffix.contains('*') {
        return false;
    }
    match host.split_once('.') {
        Some((first, rest)) => !first.is_empty() && first != "*" && rest == suffix,
        None => false,
    }
}

/// Parses `30d`, `12h`, `1w2d`, `90m`, `45s`, or Go's `2160h0m0s`, to seconds.
pub fn parse_duration(s: &str) -> Option<i64> {
    let s = s.trim();
    if s.is_empty() {
        return None;
    }
    let mut total: i64 = 0;
    let mut num = String::new();
    let mut saw_unit = false;
    for c in s.chars() {
        if c.is_ascii_digit() {
            num.push(c);
            continue;
        }
        let n: i64 = num.parse().ok()?;
        num.clear();
        let mult = match c {
            's' => 1,
            'm' => 60,
            'h' => 3600,
            'd' => 86400,
            'w' => 7 * 86400,
            'y' => 365 * 86400,
            _ => return None,
        };
        total = total.checked_add(n.checked_mul(mult)?)?;
        saw_unit = true;
    }
    if !num.is_empty() || !saw_unit {
        return None;
    }
    Some(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcard_rules() {
        assert!(name_covers("*.svc.cluster.local", "a.svc.cluster.local"));
        assert!(!name_covers("*.svc.cluster.local", "a.b.svc.cluster.local"));
        assert!(!name_covers("*.svc.cluster.local", "svc.cluster.local"));
        assert!(name_covers("Example.COM.", "example.com"));
        assert!(!name_covers("*", "example"));
        assert!(!name_covers("a*.example.com", "ab.example.com"));
        assert!(!name_covers("*.example.com", "*.example.com.evil"));
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("30d"), Some(30 * 86400));
        assert_eq!(parse_duration("1w2d"), Some(9 * 86400));
        assert_eq!(parse_duration("2160h0m0s"), Some(2160 * 3600));
        assert_eq!(parse_duration("30"), None);
        assert_eq!(parse_duration("3x"), None);
    }

    #[test]
    fn key_names() {
        assert!(is_key_entry_name("tls.key"));
        assert!(is_key_entry_name("server-key.pem"));
        assert!(!is_key_entry_name("ca.crt"));
        assert!(!is_key_entry_name("keystore"));
    }

    #[test]
    fn private_key_blocks_are_found_in_base64() {
        let pem = "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n";
        let b64 = base64::engine::general_purpose::STANDARD.encode(pem);
        let m = decode(&serde_json::json!({"bundle.pem": b64}));
        assert_eq!(m.keys.len(), 1);
        assert!(m.keys[0].what.contains("PRIVATE KEY"));
    }
}
