//! Random functions and the clock in `stackproof template` and `stackproof helmfile
//! template`: by default they are the real ones, as in helm and helmfile (fresh
//! secrets every run, `now` is the system time, generated certificates start now);
//! `--seed` and `--now` make the output repeat byte for byte. Uses the chart and
//! stack in `charts-under-test/random/`.

use std::path::{Path, PathBuf};
use std::process::Command;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("charts-under-test/random")
}

fn run(cwd: &Path, args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_stackproof"))
        .current_dir(cwd)
        .args(args)
        .output()
        .expect("run stackproof");
    assert!(
        out.status.success(),
        "stackproof {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 output")
}

/// The values of `key: "..."` lines, in order.
fn field(out: &str, key: &str) -> Vec<String> {
    let prefix = format!("  {key}: \"");
    out.lines()
        .filter_map(|l| l.strip_prefix(&prefix)?.strip_suffix('"'))
        .map(str::to_string)
        .collect()
}

fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// notBefore of the base64-encoded PEM certificate in `ca`, as Unix seconds.
fn not_before(ca_b64: &str) -> i64 {
    use base64::Engine;
    let pem = base64::engine::general_purpose::STANDARD
        .decode(ca_b64)
        .expect("base64");
    let (_, pem) = x509_parser::pem::parse_x509_pem(&pem).expect("PEM");
    let cert = pem.parse_x509().expect("certificate");
    cert.validity().not_before.timestamp()
}

#[test]
fn template_draws_fresh_secrets_and_reads_the_clock() {
    let args = ["template", "rel", "."];
    let before = unix_now();
    let a = run(&dir(), &args);
    let b = run(&dir(), &args);
    let after = unix_now();
    for key in ["password", "uuid", "ca"] {
        let (x, y) = (field(&a, key), field(&b, key));
        assert_eq!(x.len(), 1, "{key} in {a}");
        assert_ne!(x, y, "{key} repeated between two runs");
    }
    let now: i64 = field(&a, "now")[0].parse().expect("now");
    assert!(
        (before - 1..=after + 1).contains(&now),
        "now {now} not in [{before}, {after}]"
    );
    let nb = not_before(&field(&a, "ca")[0]);
    assert!(
        (before - 1..=after + 1).contains(&nb),
        "certificate starts at {nb}, not now"
    );
}

#[test]
fn template_repeats_with_seed_and_now() {
    let args = [
        "template",
        "rel",
        ".",
        "--seed",
        "7",
        "--now",
        "2026-03-01T00:00:00Z",
    ];
    let a = run(&dir(), &args);
    assert_eq!(a, run(&dir(), &args));
    assert_eq!(field(&a, "now"), ["1772323200"]);
    assert_eq!(not_before(&field(&a, "ca")[0]), 1_772_323_200);
    let other = run(
        &dir(),
        &[
            "template",
            "rel",
            ".",
            "--seed",
            "8",
            "--now",
            "2026-03-01T00:00:00Z",
        ],
    );
    assert_ne!(field(&a, "password"), field(&other, "password"));
}

#[test]
fn template_rejects_a_bad_now() {
    let out = Command::new(env!("CARGO_BIN_EXE_stackproof"))
        .current_dir(dir())
        .args(["template", "rel", ".", "--now", "yesterday"])
        .output()
        .expect("run stackproof");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--now expects an RFC 3339 time"));
}

#[test]
fn helmfile_parts_draw_their_own_streams() {
    let stack = dir().join("stack");
    let a = run(&stack, &["helmfile", "template"]);
    let b = run(&stack, &["helmfile", "template"]);
    // Two releases, each with a password from its chart and a string from a values
    // template (inline for the first, a .gotmpl file for the second).
    let (pa, va) = (field(&a, "password"), field(&a, "fromValues"));
    assert_eq!((pa.len(), va.len()), (2, 2), "{a}");
    let all: Vec<&String> = pa.iter().chain(va.iter()).collect();
    for (i, x) in all.iter().enumerate() {
        for y in &all[i + 1..] {
            // No stream is another's: no drawn string starts another.
            assert!(
                !x.starts_with(y.as_str()) && !y.starts_with(x.as_str()),
                "{x} / {y}"
            );
        }
    }
    assert_ne!(pa, field(&b, "password"));
    assert_ne!(va, field(&b, "fromValues"));

    let seeded = [
        "helmfile",
        "--seed",
        "3",
        "--now",
        "2026-03-01T00:00:00Z",
        "template",
    ];
    let s = run(&stack, &seeded);
    assert_eq!(s, run(&stack, &seeded));
    assert_eq!(field(&s, "now"), ["1772323200", "1772323200"]);
}
