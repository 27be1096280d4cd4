//! The NVCF mirror (`charts-under-test/nvcf-mirror/`): a small Helmfile stack of our own
//! in the shape of NVIDIA/nvcf's, checked with the real NVCF rule pack (`rules/nvcf/`).
//! The passing configuration proves the pack's rules stay quiet on a correct stack; the
//! broken one (one target per bug, reintroduced through virtual files) proves each rule
//! aimed at a bug fires, and only those, pointing at a line. None of this needs the NVCF
//! checkout in ../shared.

use std::collections::BTreeSet;
use std::path::PathBuf;

use stackproof::cli::check::{run_check, Filters};
use stackproof::matrix::config::{load, LoadOptions};
use stackproof::matrix::render::Renderers;
use stackproof::report::{self, Format, Report, Status};

fn check(file: &str) -> Report {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let cfg = load(
        &root.join("charts-under-test/nvcf-mirror").join(file),
        &LoadOptions {
            root: None,
            display_base: Some(root.clone()),
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    run_check(&cfg, &Renderers::builtin(), &Filters::default()).unwrap_or_else(|e| panic!("{e}"))
}

/// Rules of the applied pack files that no mirror cell is meant to reach: the other
/// fail-closed guards (the mirror keeps only the PKI mode guard) and the external
/// cert-manager case.
fn unreached(id: &str) -> bool {
    (id.starts_with("nvcf/fail-closed/") && id != "nvcf/fail-closed/pki-mode")
        || id == "nvcf/pki/issuer-no-dangling-cert-manager-need"
}

#[test]
fn mirror_passes_with_the_pack_rules_quiet() {
    let r = check("stackproof.yaml");
    let text = report::render(&r, Format::Human, false);
    assert!(r.findings.is_empty(), "{text}");
    assert_eq!(r.exit_code(), 0);
    let cells: BTreeSet<&str> = r.outcomes.iter().map(|o| o.cell.as_str()).collect();
    assert_eq!(
        cells,
        BTreeSet::from([
            "cert-manager",
            "existing-secret",
            "llm-disabled",
            "unknown-mode"
        ])
    );
    let never_passed: BTreeSet<&str> = r
        .rules
        .iter()
        .filter(|info| {
            !r.outcomes
                .iter()
                .any(|o| o.rule == info.id && o.status == Status::Passed)
        })
        .map(|info| info.id.as_str())
        .collect();
    let expected: BTreeSet<&str> = r
        .rules
        .iter()
        .map(|info| info.id.as_str())
        .filter(|id| unreached(id))
        .collect();
    assert_eq!(never_passed, expected, "{text}");
    // The pack files really were applied (not an empty selection).
    for id in [
        "nvcf/pki/issuer-release-declared-once",
        "nvcf/delegated-token/api-enabled",
        "nvcf/existing-secret/router-mounts-secret",
        "nvcf/trust/worker-trust-is-not-operator-key",
        "nvcf/fail-closed/pki-mode",
    ] {
        assert!(r.rules.iter().any(|i| i.id == id), "rule {id} not loaded");
    }
}

#[test]
fn broken_mirror_fires_exactly_the_rules_aimed_at_each_bug() {
    let r = check("broken.stackproof.yaml");
    let text = report::render(&r, Format::Human, false);
    assert_eq!(r.exit_code(), 1, "{text}");
    let fired: BTreeSet<(&str, &str, &str)> = r
        .findings
        .iter()
        .map(|f| (f.target.as_str(), f.rule.as_str(), f.cell.as_str()))
        .collect();
    let declared_twice = "issuer-declared-twice";
    let expected = BTreeSet::from([
        // (1) a second declaration of the issuer, switched off, in another state.
        (
            declared_twice,
            "nvcf/pki/issuer-release-declared-once",
            "cert-manager",
        ),
        (
            declared_twice,
            "nvcf/pki/issuer-release-not-declared",
            "existing-secret",
        ),
        (
            declared_twice,
            "nvcf/pki/issuer-release-not-declared",
            "llm-disabled",
        ),
        // The copy carries no `needs`.
        (
            declared_twice,
            "nvcf/pki/issuer-needs-openbao",
            "cert-manager",
        ),
        (
            declared_twice,
            "nvcf/pki/issuer-needs-cert-manager",
            "cert-manager",
        ),
        // ... or declared outside cert-manager.
        (
            "issuer-outside-cert-manager",
            "nvcf/pki/issuer-release-in-cert-manager",
            "cert-manager",
        ),
        (
            "issuer-outside-cert-manager",
            "nvcf/pki/issuer-release-contract",
            "cert-manager",
        ),
        // (2) delegated worker tokens not switched on without the router.
        (
            "delegated-token-unset",
            "nvcf/delegated-token/api-enabled",
            "llm-disabled",
        ),
        (
            "delegated-token-unset",
            "nvcf/delegated-token/nvct-enabled",
            "llm-disabled",
        ),
        (
            "delegated-token-unset",
            "nvcf/delegated-token/api-has-no-router-config",
            "llm-disabled",
        ),
        // (3) existingSecret mode: a Certificate rendered anyway (from an issuer the
        // stack does not install), the Secret not mounted, the mode guard lost.
        (
            "certificate-unguarded",
            "nvcf/existing-secret/no-certificate",
            "existing-secret",
        ),
        (
            "certificate-unguarded",
            "nvcf/router/default-issuer-installed",
            "existing-secret",
        ),
        (
            "router-ignores-secret",
            "nvcf/existing-secret/router-mounts-secret",
            "existing-secret",
        ),
        (
            "mode-unguarded",
            "nvcf/fail-closed/pki-mode",
            "unknown-mode",
        ),
        // The router: a hook with nothing to provision, insecure QUIC, a Certificate
        // that misses the headless names.
        (
            "router-hook-and-insecure-quic",
            "nvcf/router/no-provisioning-hook",
            "existing-secret",
        ),
        (
            "router-hook-and-insecure-quic",
            "nvcf/router/no-insecure-quic",
            "cert-manager",
        ),
        (
            "router-hook-and-insecure-quic",
            "nvcf/router/no-insecure-quic",
            "existing-secret",
        ),
        (
            "certificate-misses-hosts",
            "nvcf/router/certificate-covers-advertised-hosts",
            "cert-manager",
        ),
        // (4) worker trust: a private key in the bundle; the router's key as trust.
        (
            "trust-bundle-with-key",
            "nvcf/trust/bundles-hold-no-key",
            "cert-manager",
        ),
        (
            "trust-bundle-with-key",
            "nvcf/trust/bundles-hold-no-key",
            "existing-secret",
        ),
        (
            "trust-bundle-with-key",
            "nvcf/trust/bundles-hold-no-key",
            "llm-disabled",
        ),
        (
            "trust-bundle-with-key",
            "nvcf/trust/ca-entries",
            "cert-manager",
        ),
        (
            "trust-bundle-with-key",
            "nvcf/trust/ca-entries",
            "existing-secret",
        ),
        (
            "trust-bundle-with-key",
            "nvcf/trust/ca-entries",
            "llm-disabled",
        ),
        (
            "workers-trust-router-key",
            "nvcf/trust/server-key-not-trusted",
            "cert-manager",
        ),
        (
            "workers-trust-router-key",
            "nvcf/trust/worker-trust-configured",
            "cert-manager",
        ),
        (
            "workers-trust-router-key",
            "nvcf/trust/worker-trust-configured",
            "existing-secret",
        ),
        (
            "workers-trust-router-key",
            "nvcf/trust/worker-trust-is-not-operator-key",
            "existing-secret",
        ),
    ]);
    assert_eq!(fired, expected, "{text}");

    // Every finding points at a line. Rules that count matches or expect a render to
    // fail have no offending object to show, so their line is the rule's declaration;
    // every other finding also points at the stack (a state, values or a rendered line).
    let no_subject = [
        "nvcf/pki/issuer-release-contract",
        "nvcf/existing-secret/router-mounts-secret",
        "nvcf/trust/worker-trust-configured",
        "nvcf/fail-closed/pki-mode",
    ];
    for f in &r.findings {
        let primary = f.primary().unwrap_or_else(|| panic!("{f:?}"));
        assert!(!primary.file.is_empty() && primary.line > 0, "{f:?}");
        if !no_subject.contains(&f.rule.as_str()) {
            assert!(
                f.locations
                    .iter()
                    .any(|l| l.line > 0 && !l.file.starts_with("rules/")),
                "{f:?}"
            );
        }
    }

    // The issuer finding names both declarations, each at its state file.
    let twice = r
        .findings
        .iter()
        .find(|f| f.rule == "nvcf/pki/issuer-release-declared-once")
        .unwrap_or_else(|| panic!("no declared-once finding\n{text}"));
    for state in [
        "helmfile.d/01-deps.yaml.gotmpl",
        "helmfile.d/04-llm.yaml.gotmpl",
    ] {
        assert!(
            twice
                .locations
                .iter()
                .any(|l| l.file.ends_with(state) && l.line > 0),
            "{twice:?}"
        );
    }

    // The key in the trust bundle is reported on the rendered Secret, from its template.
    let key = r
        .findings
        .iter()
        .find(|f| f.rule == "nvcf/trust/bundles-hold-no-key")
        .unwrap_or_else(|| panic!("no bundles-hold-no-key finding\n{text}"));
    assert!(key.message.contains("PRIVATE KEY"), "{}", key.message);
    assert!(
        key.locations.iter().any(|l| l
            .file
            .ends_with("stack/charts/operator/templates/trust-bundle.yaml")),
        "{key:?}"
    );
}
