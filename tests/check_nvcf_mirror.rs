//! The NVCF mirror (`charts-under-test/nvcf-mirror/`): a small Helmfile stack of our own
//! in the shape of NVIDIA/nvcf's, checked with the real NVCF rule pack (`rules/nvcf/`).
//! The passing configuration proves the pack's rules stay quiet on a correct stack; the
//! broken one (one target per bug, reintroduced through virtual files) proves each rule
//! aimed at a bug fires, and only those, pointing at a line. None of this needs the NVCF
//! checkout in ../shared.

mod mirror_support;

use mirror_support::check;
use std::collections::{BTreeMap, BTreeSet};

use stackproof::report::{self, Format, Status};

/// Rules of the applied pack files that no mirror cell is meant to reach: the other
/// fail-closed guards of the stack (the mirror keeps only the PKI mode and
/// observability profile guards) and the external cert-manager case.
fn unreached(id: &str) -> bool {
    (id.starts_with("nvcf/fail-closed/")
        && id != "nvcf/fail-closed/pki-mode"
        && id != "nvcf/fail-closed/observability-profile")
        || id == "nvcf/pki/issuer-no-dangling-cert-manager-need"
}

/// The broken targets aimed at the charts' own render scripts and the compute plane's
/// tests (`broken_chart_mirrors_fire_exactly_the_rules_aimed_at_each_bug`).
const CHART_TARGETS: [&str; 10] = [
    "router-guards-removed",
    "router-replica-guard-removed",
    "router-statefulset-regressed",
    "router-certificate-and-hook-regressed",
    "router-replicas-regressed",
    "router-single-replica-dropped",
    "pki-chart-guards-removed",
    "pki-chart-regressed",
    "compute-plane-values-regressed",
    "compute-plane-entrypoints-regressed",
];

#[test]
fn mirror_passes_with_the_pack_rules_quiet() {
    let r = check("stackproof.yaml");
    let text = report::render(&r, Format::Human, false);
    assert!(r.findings.is_empty(), "{text}");
    assert_eq!(r.exit_code(), 0);
    let cells: BTreeSet<&str> = r
        .outcomes
        .iter()
        .filter(|o| o.target == "mirror")
        .map(|o| o.cell.as_str())
        .collect();
    assert_eq!(
        cells,
        BTreeSet::from([
            "cert-manager",
            "existing-secret",
            "llm-disabled",
            "unknown-mode"
        ])
    );
    // The charts checked on their own and the compute plane: every cell rendered.
    let mut per_target: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for o in &r.outcomes {
        per_target
            .entry(o.target.as_str())
            .or_default()
            .insert(o.cell.as_str());
    }
    let counts: BTreeMap<&str, usize> = per_target.iter().map(|(t, c)| (*t, c.len())).collect();
    assert_eq!(
        counts,
        BTreeMap::from([
            ("compute-plane", 4),
            ("mirror", 4),
            ("pki-chart", 9),
            ("router-pki", 13),
            ("router-replicas", 3),
        ]),
        "{text}"
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
        "nvcf/router-chart/certificate",
        "nvcf/router-chart/fail-closed/hostname-not-covered",
        "nvcf/pki-chart/cluster-issuer",
        "nvcf/compute-plane/no-tini",
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
        .filter(|f| !CHART_TARGETS.contains(&f.target.as_str()))
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
    for f in r
        .findings
        .iter()
        .filter(|f| !CHART_TARGETS.contains(&f.target.as_str()))
    {
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

#[test]
fn broken_chart_mirrors_fire_exactly_the_rules_aimed_at_each_bug() {
    let r = check("broken.stackproof.yaml");
    let text = report::render(&r, Format::Human, false);
    let ours: Vec<_> = r
        .findings
        .iter()
        .filter(|f| CHART_TARGETS.contains(&f.target.as_str()))
        .collect();
    let fired: BTreeSet<(&str, &str, &str)> = ours
        .iter()
        .map(|f| (f.target.as_str(), f.rule.as_str(), f.cell.as_str()))
        .collect();
    let expected = BTreeSet::from([
        // (5a) the router chart without its guards: every bad input renders.
        (
            "router-guards-removed",
            "nvcf/router-chart/fail-closed/dns-names-required",
            "certificate-empty-dns-names",
        ),
        (
            "router-guards-removed",
            "nvcf/router-chart/fail-closed/existing-secret-cert-path",
            "existing-secret-missing-cert-path",
        ),
        (
            "router-guards-removed",
            "nvcf/router-chart/fail-closed/existing-secret-key-path",
            "existing-secret-missing-key-path",
        ),
        (
            "router-guards-removed",
            "nvcf/router-chart/fail-closed/existing-secret-mount-path",
            "existing-secret-mismatched-mount-path",
        ),
        (
            "router-guards-removed",
            "nvcf/router-chart/fail-closed/existing-secret-name",
            "existing-secret-missing-secret-name",
        ),
        (
            "router-guards-removed",
            "nvcf/router-chart/fail-closed/existing-secret-relative-mount-path",
            "existing-secret-relative-mount-path",
        ),
        (
            "router-guards-removed",
            "nvcf/router-chart/fail-closed/hostname-not-covered",
            "wildcard-spans-two-labels",
        ),
        (
            "router-guards-removed",
            "nvcf/router-chart/fail-closed/mixed-ownership",
            "existing-secret-mixed-ownership",
        ),
        (
            "router-guards-removed",
            "nvcf/router-chart/fail-closed/tls-mode",
            "unknown-tls-mode",
        ),
        (
            "router-replica-guard-removed",
            "nvcf/router-chart/fail-closed/multi-replica-dns-discovery",
            "multi-replica-without-dns-discovery",
        ),
        // (5b) TLS mounted always and writable, no key path, insecure QUIC, a flag the
        // pinned image rejects, the configured hostname ignored.
        (
            "router-statefulset-regressed",
            "nvcf/router-chart/advertised-hostname",
            "certificate-single-replica",
        ),
        (
            "router-statefulset-regressed",
            "nvcf/router-chart/advertised-hostname",
            "pki-enabled",
        ),
        (
            "router-statefulset-regressed",
            "nvcf/router-chart/no-insecure-quic",
            "existing-secret",
        ),
        (
            "router-statefulset-regressed",
            "nvcf/router-chart/no-insecure-quic",
            "pki-enabled",
        ),
        (
            "router-statefulset-regressed",
            "nvcf/router-chart/no-tls-mount",
            "defaults",
        ),
        (
            "router-statefulset-regressed",
            "nvcf/router-chart/no-unsupported-flags",
            "certificate-single-replica",
        ),
        (
            "router-statefulset-regressed",
            "nvcf/router-chart/no-unsupported-flags",
            "defaults",
        ),
        (
            "router-statefulset-regressed",
            "nvcf/router-chart/no-unsupported-flags",
            "existing-secret",
        ),
        (
            "router-statefulset-regressed",
            "nvcf/router-chart/no-unsupported-flags",
            "pki-enabled",
        ),
        (
            "router-statefulset-regressed",
            "nvcf/router-chart/tls-mount",
            "existing-secret",
        ),
        (
            "router-statefulset-regressed",
            "nvcf/router-chart/tls-mount",
            "pki-enabled",
        ),
        (
            "router-statefulset-regressed",
            "nvcf/router-chart/tls-paths",
            "existing-secret",
        ),
        (
            "router-statefulset-regressed",
            "nvcf/router-chart/tls-paths",
            "pki-enabled",
        ),
        // (5c) Certificate and hook regardless of settings, the wrong issuer kind, a
        // post-install hook that also runs the core migrations.
        (
            "router-certificate-and-hook-regressed",
            "nvcf/router-chart/certificate",
            "certificate-single-replica",
        ),
        (
            "router-certificate-and-hook-regressed",
            "nvcf/router-chart/certificate",
            "pki-enabled",
        ),
        (
            "router-certificate-and-hook-regressed",
            "nvcf/router-chart/no-certificate",
            "defaults",
        ),
        (
            "router-certificate-and-hook-regressed",
            "nvcf/router-chart/no-certificate",
            "existing-secret",
        ),
        (
            "router-certificate-and-hook-regressed",
            "nvcf/router-chart/no-provisioning-hook",
            "defaults",
        ),
        (
            "router-certificate-and-hook-regressed",
            "nvcf/router-chart/no-provisioning-hook",
            "existing-secret",
        ),
        (
            "router-certificate-and-hook-regressed",
            "nvcf/router-chart/provisioning-hook",
            "pki-enabled",
        ),
        (
            "router-certificate-and-hook-regressed",
            "nvcf/router-chart/provisioning-hook-dispatch",
            "pki-enabled",
        ),
        // (5d) multi-replica wiring lost.
        (
            "router-replicas-regressed",
            "nvcf/router-chart/dns-discovery",
            "defaults",
        ),
        (
            "router-replicas-regressed",
            "nvcf/router-chart/dns-discovery-disabled",
            "single-replica-self-only",
        ),
        (
            "router-replicas-regressed",
            "nvcf/router-chart/reverse-tunnel-pylon-dial",
            "defaults",
        ),
        (
            "router-replicas-regressed",
            "nvcf/router-chart/statefulset-shape",
            "defaults",
        ),
        // (5e) no StatefulSet for a single replica.
        (
            "router-single-replica-dropped",
            "nvcf/router-chart/dns-discovery-disabled",
            "single-replica-self-only",
        ),
        (
            "router-single-replica-dropped",
            "nvcf/router-chart/statefulset",
            "single-replica-self-only",
        ),
        // (6a) the issuer chart without its required-value guards.
        (
            "pki-chart-guards-removed",
            "nvcf/pki-chart/fail-closed/audience",
            "empty-audience",
        ),
        (
            "pki-chart-guards-removed",
            "nvcf/pki-chart/fail-closed/auth-mount",
            "empty-auth-mount",
        ),
        (
            "pki-chart-guards-removed",
            "nvcf/pki-chart/fail-closed/auth-role",
            "empty-auth-role",
        ),
        (
            "pki-chart-guards-removed",
            "nvcf/pki-chart/fail-closed/name",
            "empty-name",
        ),
        (
            "pki-chart-guards-removed",
            "nvcf/pki-chart/fail-closed/path",
            "empty-path",
        ),
        (
            "pki-chart-guards-removed",
            "nvcf/pki-chart/fail-closed/server",
            "empty-server",
        ),
        (
            "pki-chart-guards-removed",
            "nvcf/pki-chart/fail-closed/service-account",
            "empty-service-account",
        ),
        // (6b) an issuer rendered while disabled, without the keep policy, plus a stray object.
        (
            "pki-chart-regressed",
            "nvcf/pki-chart/cluster-issuer",
            "enabled",
        ),
        (
            "pki-chart-regressed",
            "nvcf/pki-chart/renders-nothing-by-default",
            "defaults",
        ),
        (
            "pki-chart-regressed",
            "nvcf/pki-chart/single-object",
            "enabled",
        ),
        // (7a) profile guard lost, a quoted collector switch, overrides dropped.
        (
            "compute-plane-values-regressed",
            "nvcf/compute-plane/collector-disabled",
            "compute-overrides",
        ),
        (
            "compute-plane-values-regressed",
            "nvcf/compute-plane/collector-disabled",
            "control",
        ),
        (
            "compute-plane-values-regressed",
            "nvcf/compute-plane/collector-enabled",
            "default",
        ),
        (
            "compute-plane-values-regressed",
            "nvcf/compute-plane/collector-image",
            "compute-overrides",
        ),
        (
            "compute-plane-values-regressed",
            "nvcf/compute-plane/nvca-version",
            "compute-overrides",
        ),
        (
            "compute-plane-values-regressed",
            "nvcf/compute-plane/nvca-version",
            "default",
        ),
        (
            "compute-plane-values-regressed",
            "nvcf/compute-plane/operator-image-tag",
            "compute-overrides",
        ),
        (
            "compute-plane-values-regressed",
            "nvcf/fail-closed/observability-profile",
            "invalid-profile",
        ),
        // (7b) containers started through /tini, the mirror container lost.
        (
            "compute-plane-entrypoints-regressed",
            "nvcf/compute-plane/cleanup-runs-directly",
            "compute-overrides",
        ),
        (
            "compute-plane-entrypoints-regressed",
            "nvcf/compute-plane/cleanup-runs-directly",
            "control",
        ),
        (
            "compute-plane-entrypoints-regressed",
            "nvcf/compute-plane/cleanup-runs-directly",
            "default",
        ),
        (
            "compute-plane-entrypoints-regressed",
            "nvcf/compute-plane/mirror-runs-directly",
            "compute-overrides",
        ),
        (
            "compute-plane-entrypoints-regressed",
            "nvcf/compute-plane/mirror-runs-directly",
            "control",
        ),
        (
            "compute-plane-entrypoints-regressed",
            "nvcf/compute-plane/mirror-runs-directly",
            "default",
        ),
        (
            "compute-plane-entrypoints-regressed",
            "nvcf/compute-plane/no-tini",
            "compute-overrides",
        ),
        (
            "compute-plane-entrypoints-regressed",
            "nvcf/compute-plane/no-tini",
            "control",
        ),
        (
            "compute-plane-entrypoints-regressed",
            "nvcf/compute-plane/no-tini",
            "default",
        ),
        (
            "compute-plane-entrypoints-regressed",
            "nvcf/compute-plane/operator-runs-directly",
            "compute-overrides",
        ),
        (
            "compute-plane-entrypoints-regressed",
            "nvcf/compute-plane/operator-runs-directly",
            "control",
        ),
        (
            "compute-plane-entrypoints-regressed",
            "nvcf/compute-plane/operator-runs-directly",
            "default",
        ),
    ]);
    assert_eq!(fired, expected, "{text}");
    // Every broken target is seen to fire, and every rule of the three files does.
    for t in CHART_TARGETS {
        assert!(fired.iter().any(|(target, _, _)| *target == t), "{t}");
    }
    for info in &r.rules {
        let id = info.id.as_str();
        if id.starts_with("nvcf/router-chart/")
            || id.starts_with("nvcf/pki-chart/")
            || id.starts_with("nvcf/compute-plane/")
        {
            assert!(
                fired.iter().any(|(_, rule, _)| *rule == id),
                "{id} never fired"
            );
        }
    }

    // Every finding points at a line; those about an object that is there (and must
    // not be, or must differ) also point at the rendered output or the values.
    let located = [
        "nvcf/router-chart/no-certificate",
        "nvcf/router-chart/no-provisioning-hook",
        "nvcf/router-chart/provisioning-hook-dispatch",
        "nvcf/router-chart/no-tls-mount",
        "nvcf/router-chart/no-insecure-quic",
        "nvcf/router-chart/no-unsupported-flags",
        "nvcf/pki-chart/renders-nothing-by-default",
        "nvcf/compute-plane/collector-enabled",
        "nvcf/compute-plane/collector-disabled",
        "nvcf/compute-plane/no-tini",
    ];
    for f in &ours {
        let primary = f.primary().unwrap_or_else(|| panic!("{f:?}"));
        assert!(!primary.file.is_empty() && primary.line > 0, "{f:?}");
        if located.contains(&f.rule.as_str()) {
            assert!(
                f.locations
                    .iter()
                    .any(|l| l.line > 0 && !l.file.starts_with("rules/")),
                "{f:?}"
            );
        }
        // A guard that is gone is reported as a render that should have failed.
        if f.rule.contains("/fail-closed/") {
            assert!(f.message.contains("but it rendered"), "{}", f.message);
        }
    }
    // The stray Certificate is traced to its template.
    let cert = ours
        .iter()
        .find(|f| f.rule == "nvcf/router-chart/no-certificate")
        .unwrap_or_else(|| panic!("no no-certificate finding\n{text}"));
    assert!(
        cert.locations.iter().any(|l| l
            .file
            .ends_with("charts/llm-request-router/templates/certificate.yaml")),
        "{cert:?}"
    );
    // The quoted collector switch is shown as the string it is.
    let quoted = ours
        .iter()
        .find(|f| f.rule == "nvcf/compute-plane/collector-enabled")
        .unwrap_or_else(|| panic!("no collector finding\n{text}"));
    assert!(quoted.message.contains("\"true\""), "{}", quoted.message);
}
