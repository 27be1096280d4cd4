//! Compares the certificates stackproof's Sprig functions generate with those the real
//! Helm generated in the shared corpus (`corpus/expected/helm-v3.15.3`).
//!
//! Certificates are random, so bytes cannot match; their structure must. For every
//! certificate found in Helm's output, the same kind (CA, signed, self-signed) is
//! generated with the same common names, names and validity, and everything but the
//! random parts is compared: subject and issuer bytes, validity length, signature and
//! key algorithms, key size, and each extension's identifier, criticality and (except
//! for key identifiers) value bytes.
//!
//! Needs the shared data (`STACKPROOF_SHARED`, else `../shared` beside the crate).

use std::path::{Path, PathBuf};

use stackproof::funcs::encoding::base64_decode;
use stackproof::funcs::{helm_registry, Flavor};
use stackproof::template::{CallCtx, FuncImpl, Host, Value};
use x509_parser::prelude::*;

fn shared_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("STACKPROOF_SHARED") {
        return Some(PathBuf::from(d));
    }
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared");
    d.exists().then_some(d)
}

use stackproof::template::registry::NullEngine as NoEngine;

fn call(flavor: Flavor, host: &Host, name: &str, args: &[Value]) -> Value {
    let reg = helm_registry(flavor);
    let def = reg
        .get(name)
        .unwrap_or_else(|| panic!("{name} not registered"));
    let FuncImpl::Ctx(f) = def.imp else {
        panic!("{name} is not a context function")
    };
    let mut engine = NoEngine::default();
    let mut ctx = CallCtx {
        engine: &mut engine,
        host,
    };
    f(&mut ctx, args).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn field(v: &Value, name: &str) -> String {
    match v {
        Value::Object(o) => o
            .field(name)
            .and_then(|f| f.as_str().map(str::to_string))
            .unwrap_or_default(),
        _ => panic!("not a certificate: {v:?}"),
    }
}

fn pem_der(pem: &str) -> Vec<u8> {
    let body: String = pem.lines().filter(|l| !l.starts_with("-----")).collect();
    base64_decode(body.as_bytes()).unwrap_or_default()
}

/// Everything about a certificate that does not depend on randomness or the clock.
#[derive(Debug, PartialEq)]
struct Shape {
    version: u32,
    subject: Vec<u8>,
    issuer: Vec<u8>,
    validity_secs: i64,
    signature_alg: String,
    key_alg: String,
    key_bits: usize,
    /// (oid, critical, value bytes or only their length for key identifiers)
    extensions: Vec<(String, bool, String)>,
    /// How the subject key id derives from the key: "sha1" (Go < 1.25), "sha256/20"
    /// (Go 1.25+), or "" when absent.
    skid_method: &'static str,
}

fn shape(der: &[u8]) -> Shape {
    let (_, c) = X509Certificate::from_der(der).expect("certificate parses");
    let serial_bits = c.tbs_certificate.serial.bits();
    assert!(
        serial_bits > 0 && serial_bits <= 128,
        "serial of {serial_bits} bits"
    );
    let key_bits = match c.public_key().parsed() {
        Ok(x509_parser::public_key::PublicKey::RSA(k)) => k.key_size(),
        _ => 0,
    };
    let spk = &c.public_key().subject_public_key.data;
    let skid_method = c
        .extensions()
        .iter()
        .find_map(|e| match e.parsed_extension() {
            ParsedExtension::SubjectKeyIdentifier(k) => Some(k.0.to_vec()),
            _ => None,
        })
        .map_or("", |k| {
            use sha2::Digest;
            if k == sha1::Sha1::digest(spk).to_vec() {
                "sha1"
            } else if k == sha2::Sha256::digest(spk)[..20].to_vec() {
                "sha256/20"
            } else {
                "other"
            }
        });
    Shape {
        skid_method,
        version: c.version().0,
        subject: c.subject().as_raw().to_vec(),
        issuer: c.issuer().as_raw().to_vec(),
        validity_secs: c.validity().not_after.timestamp() - c.validity().not_before.timestamp(),
        signature_alg: c.signature_algorithm.algorithm.to_id_string(),
        key_alg: c.public_key().algorithm.algorithm.to_id_string(),
        key_bits,
        extensions: c
            .extensions()
            .iter()
            .map(|e| {
                let oid = e.oid.to_id_string();
                let value = if oid == "2.5.29.14" || oid == "2.5.29.35" {
                    format!("{} bytes", e.value.len())
                } else {
                    e.value.iter().map(|b| format!("{b:02x}")).collect()
                };
                (oid, e.critical, value)
            })
            .collect(),
    }
}

fn cn_of(name: &X509Name<'_>) -> String {
    name.iter_common_name()
        .next()
        .and_then(|a| a.as_str().ok())
        .unwrap_or("")
        .to_string()
}

/// The Sprig call that makes a certificate like `der`, and its result.
fn regenerate(der: &[u8], flavor: Flavor, host: &Host) -> Vec<u8> {
    let call = |name: &str, args: &[Value]| call(flavor, host, name, args);
    let (_, c) = X509Certificate::from_der(der).expect("certificate parses");
    let cn = Value::from(cn_of(c.subject()));
    let days = (c.validity().not_after.timestamp() - c.validity().not_before.timestamp()) / 86_400;
    let (mut dns, mut ips) = (Vec::new(), Vec::new());
    if let Ok(Some(san)) = c.subject_alternative_name() {
        for n in &san.value.general_names {
            match n {
                GeneralName::DNSName(d) => dns.push(Value::from(*d)),
                GeneralName::IPAddress(b) => {
                    let ip: std::net::IpAddr = match b.len() {
                        4 => <[u8; 4]>::try_from(*b).map(Into::into).expect("ipv4"),
                        _ => <[u8; 16]>::try_from(*b).map(Into::into).expect("ipv6"),
                    };
                    ips.push(Value::from(ip.to_string()));
                }
                other => panic!("unexpected name {other:?}"),
            }
        }
    }
    let out = if c.is_ca() {
        call("genCA", &[cn, Value::int(days)])
    } else if c.subject().as_raw() == c.issuer().as_raw() {
        call(
            "genSelfSignedCert",
            &[cn, Value::list(ips), Value::list(dns), Value::int(days)],
        )
    } else {
        let ca = call("genCA", &[Value::from(cn_of(c.issuer())), Value::int(days)]);
        call(
            "genSignedCert",
            &[cn, Value::list(ips), Value::list(dns), Value::int(days), ca],
        )
    };
    pem_der(&field(&out, "Cert"))
}

fn helm_certificates(dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    // "-----BEGIN CERTIFICATE-----" in base64, as Secrets carry it.
    let re =
        regex::Regex::new(r"LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t[A-Za-z0-9+/=]+").expect("regex");
    for p in entries {
        if p.is_dir() {
            helm_certificates(&p, out);
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&p) else {
            continue;
        };
        for m in re.find_iter(&text) {
            let Ok(pem) = base64_decode(m.as_str().as_bytes()) else {
                continue;
            };
            let der = pem_der(&String::from_utf8_lossy(&pem));
            if X509Certificate::from_der(&der).is_ok() {
                out.push((p.display().to_string(), der));
            }
        }
    }
}

#[test]
fn generated_certificates_have_helm3_shape() {
    check_against("helm-v3.15.3", Flavor::Helm3);
}

#[test]
fn generated_certificates_have_helm4_shape() {
    check_against("helm-v4.3.1", Flavor::Helm4);
}

fn check_against(version: &str, flavor: Flavor) {
    let Some(shared) = shared_dir() else {
        eprintln!("skipped: shared corpus not found (set STACKPROOF_SHARED)");
        return;
    };
    let mut certs = Vec::new();
    helm_certificates(&shared.join("corpus/expected").join(version), &mut certs);
    if certs.is_empty() {
        eprintln!("skipped: no certificates in the corpus outputs");
        return;
    }
    // Charts also ship fixed certificates; Sprig's were made when the corpus was
    // rendered, so only those issued within two days of the newest one are compared.
    let not_before = |der: &[u8]| {
        X509Certificate::from_der(der)
            .map(|(_, c)| c.validity().not_before.timestamp())
            .unwrap_or(0)
    };
    let newest = certs.iter().map(|(_, d)| not_before(d)).max().unwrap_or(0);
    let total = certs.len();
    certs.retain(|(_, d)| not_before(d) >= newest - 2 * 86_400);
    eprintln!(
        "{} of {total} corpus certificates were generated at render time",
        certs.len()
    );
    let host = Host::new(99);
    let mut checked = 0;
    for (file, der) in &certs {
        let helm = shape(der);
        let ours = shape(&regenerate(der, flavor, &host));
        assert_eq!(ours, helm, "certificate in {file}");
        checked += 1;
    }
    eprintln!("{version}: {checked} certificates from helm's corpus output matched in shape");
}
