//! The NVCF mirror's fail-closed scenarios (`charts-under-test/nvcf-mirror/failclosed/`):
//! a small Helmfile stack of our own whose guards refuse bad PKI issuer, existingSecret,
//! worker-address and PodDisruptionBudget inputs with NVCF's own messages, checked with
//! the real rule pack. The passing configuration proves each guard refuses its input
//! (and the issuer and stack rules stay quiet on every PKI setup); the broken one
//! removes, rewords or miswires one thing per target and proves exactly the rules aimed
//! at it fire. None of this needs the NVCF checkout in ../shared.

mod mirror_support;

use mirror_support::check;
use std::collections::{BTreeMap, BTreeSet};

use stackproof::report::{self, Format, Status};

/// The rules this mirror is responsible for: each must pass somewhere on the passing
/// configuration and fire somewhere on the broken one.
const MIRRORED: [&str; 22] = [
    "nvcf/fail-closed/cluster-issuer-bool",
    "nvcf/fail-closed/existing-secret-allowed-domains",
    "nvcf/fail-closed/existing-secret-dns-names",
    "nvcf/fail-closed/existing-secret-managed-issuer",
    "nvcf/fail-closed/existing-secret-missing-name",
    "nvcf/fail-closed/existing-secret-scalar-dns-names",
    "nvcf/fail-closed/issuer-kind",
    "nvcf/fail-closed/issuer-kind-type",
    "nvcf/fail-closed/issuer-name",
    "nvcf/fail-closed/issuer-name-type",
    "nvcf/fail-closed/namespaced-issuer",
    "nvcf/fail-closed/openbao-required",
    "nvcf/fail-closed/pdb-both",
    "nvcf/fail-closed/pdb-neither",
    "nvcf/fail-closed/worker-address",
    "nvcf/pki/issuer-no-dangling-cert-manager-need",
    "nvcf/pki/issuer-no-nats-need",
    "nvcf/pki/issuer-values-auth",
    "nvcf/pki/issuer-values-name",
    "nvcf/pki/issuer-values-openbao",
    "nvcf/stack/needs-within-state",
    "nvcf/stack/objects-unique",
];

#[test]
fn failclosed_mirror_refuses_every_bad_input_with_the_rules_quiet() {
    let r = check("failclosed.stackproof.yaml");
    let text = report::render(&r, Format::Human, false);
    assert!(r.findings.is_empty(), "{text}");
    assert_eq!(r.exit_code(), 0);

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
        BTreeMap::from([("pdb", 4), ("pki-issuer", 27), ("worker-address", 9)]),
        "{text}"
    );

    // Each mirrored rule passes in at least one cell where it applies (a skipped rule
    // has status Skipped, so a pass is never vacuous through `when`).
    let passed: BTreeMap<&str, BTreeSet<(&str, &str)>> = r
        .outcomes
        .iter()
        .filter(|o| o.status == Status::Passed)
        .fold(BTreeMap::new(), |mut m, o| {
            m.entry(o.rule.as_str())
                .or_default()
                .insert((o.target.as_str(), o.cell.as_str()));
            m
        });
    for id in MIRRORED {
        assert!(passed.contains_key(id), "{id} never passed\n{text}");
    }
    // A fail-closed rule passes exactly where a cell expects its guard to trip: the
    // stack refused that input with the stack's own message.
    let guard_cells =
        |id: &str| -> BTreeSet<(&str, &str)> { passed.get(id).cloned().unwrap_or_default() };
    assert_eq!(
        guard_cells("nvcf/fail-closed/cluster-issuer-bool"),
        BTreeSet::from([
            ("pki-issuer", "cluster-issuer-empty-string"),
            ("pki-issuer", "cluster-issuer-null"),
            ("pki-issuer", "cluster-issuer-string-true"),
            ("pki-issuer", "cluster-issuer-string-upper-true"),
        ])
    );
    assert_eq!(
        guard_cells("nvcf/fail-closed/worker-address"),
        BTreeSet::from([
            ("worker-address", "invalid-missing-port"),
            ("worker-address", "invalid-multiple-compression-ipv6"),
            ("worker-address", "invalid-port-too-large"),
            ("worker-address", "invalid-port-zero"),
            ("worker-address", "invalid-trailing-single-colon-ipv6"),
        ])
    );
    for (id, cell) in [
        ("nvcf/fail-closed/pdb-both", ("pdb", "cassandra-both")),
        ("nvcf/fail-closed/pdb-neither", ("pdb", "cassandra-neither")),
        (
            "nvcf/fail-closed/openbao-required",
            ("pki-issuer", "managed-without-openbao"),
        ),
        (
            "nvcf/fail-closed/namespaced-issuer",
            ("pki-issuer", "managed-namespaced-issuer"),
        ),
        (
            "nvcf/fail-closed/existing-secret-missing-name",
            ("pki-issuer", "existing-secret-missing-name"),
        ),
        (
            "nvcf/pki/issuer-no-dangling-cert-manager-need",
            ("pki-issuer", "external-cert-manager"),
        ),
    ] {
        assert_eq!(guard_cells(id), BTreeSet::from([cell]), "{id}");
    }
    // The issuer's values are checked wherever the stack manages it, including an
    // issuer under a custom name.
    for id in [
        "nvcf/pki/issuer-values-name",
        "nvcf/pki/issuer-values-openbao",
        "nvcf/pki/issuer-values-auth",
    ] {
        assert_eq!(
            guard_cells(id),
            BTreeSet::from([
                ("pki-issuer", "cluster-issuer-bool-true"),
                ("pki-issuer", "custom-managed"),
                ("pki-issuer", "external-cert-manager"),
                ("pki-issuer", "managed-defaults"),
            ]),
            "{id}"
        );
    }

    // Rules of the applied files that no cell here is meant to reach: the guards of
    // other scenarios (PKI mode, observability profile) and the worker-address cases
    // this mirror does not stage (custom gRPC port, LLM disabled).
    let never_passed: BTreeSet<&str> = r
        .rules
        .iter()
        .map(|info| info.id.as_str())
        .filter(|id| !passed.contains_key(id))
        .collect();
    assert_eq!(
        never_passed,
        BTreeSet::from([
            "nvcf/fail-closed/observability-profile",
            "nvcf/fail-closed/pki-mode",
            "nvcf/worker-address/disabled-has-no-router-config",
            "nvcf/worker-address/disabled-stages-nothing",
            "nvcf/worker-address/router-grpc-port",
        ]),
        "{text}"
    );
}

#[test]
fn failclosed_broken_mirror_fires_exactly_the_rules_aimed_at_each_bug() {
    let r = check("failclosed.broken.stackproof.yaml");
    let text = report::render(&r, Format::Human, false);
    assert_eq!(r.exit_code(), 1, "{text}");
    let fired: BTreeSet<(&str, &str, &str)> = r
        .findings
        .iter()
        .map(|f| (f.target.as_str(), f.rule.as_str(), f.cell.as_str()))
        .collect();
    // The PKI issuer's managed cells (stack-installed nvcf-pki).
    let managed = [
        "cluster-issuer-bool-true",
        "custom-managed",
        "external-cert-manager",
        "managed-defaults",
    ];
    let mut expected: BTreeSet<(&str, &str, &str)> = BTreeSet::from([
        // (1) type checks dropped: a null issuerKind or issuerName fails otherwise.
        (
            "issuer-type-guards-removed",
            "nvcf/fail-closed/issuer-kind-type",
            "issuer-kind-null",
        ),
        (
            "issuer-type-guards-removed",
            "nvcf/fail-closed/issuer-name-type",
            "issuer-name-null",
        ),
        // (2) the allowed values no longer checked.
        (
            "issuer-values-unvalidated",
            "nvcf/fail-closed/issuer-kind",
            "issuer-kind-whitespace",
        ),
        (
            "issuer-values-unvalidated",
            "nvcf/fail-closed/issuer-kind",
            "issuer-kind-wrong-case",
        ),
        (
            "issuer-values-unvalidated",
            "nvcf/fail-closed/issuer-name",
            "issuer-name-uppercase",
        ),
        (
            "issuer-values-unvalidated",
            "nvcf/fail-closed/issuer-name",
            "issuer-name-whitespace",
        ),
        // (3) a flag that only looks boolean decides issuer management.
        (
            "cluster-issuer-flag-coerced",
            "nvcf/fail-closed/cluster-issuer-bool",
            "cluster-issuer-empty-string",
        ),
        (
            "cluster-issuer-flag-coerced",
            "nvcf/fail-closed/cluster-issuer-bool",
            "cluster-issuer-null",
        ),
        (
            "cluster-issuer-flag-coerced",
            "nvcf/fail-closed/cluster-issuer-bool",
            "cluster-issuer-string-true",
        ),
        (
            "cluster-issuer-flag-coerced",
            "nvcf/fail-closed/cluster-issuer-bool",
            "cluster-issuer-string-upper-true",
        ),
        // (4, 5) issuer management's own contract.
        (
            "namespaced-issuer-managed",
            "nvcf/fail-closed/namespaced-issuer",
            "managed-namespaced-issuer",
        ),
        (
            "openbao-not-required",
            "nvcf/fail-closed/openbao-required",
            "managed-without-openbao",
        ),
        // (6, 7) existingSecret mode.
        (
            "existing-secret-conflicts-ignored",
            "nvcf/fail-closed/existing-secret-allowed-domains",
            "existing-secret-allowed-domains",
        ),
        (
            "existing-secret-conflicts-ignored",
            "nvcf/fail-closed/existing-secret-dns-names",
            "existing-secret-dns-names",
        ),
        (
            "existing-secret-conflicts-ignored",
            "nvcf/fail-closed/existing-secret-managed-issuer",
            "existing-secret-managed-issuer",
        ),
        (
            "existing-secret-conflicts-ignored",
            "nvcf/fail-closed/existing-secret-scalar-dns-names",
            "existing-secret-scalar-dns-names",
        ),
        (
            "existing-secret-name-unchecked",
            "nvcf/fail-closed/existing-secret-missing-name",
            "existing-secret-missing-name",
        ),
        // (8) the issuer's name no longer follows the one the router names.
        (
            "issuer-name-hardcoded",
            "nvcf/pki/issuer-values-name",
            "custom-managed",
        ),
        // (11) a need on the cert-manager the stack does not install.
        (
            "issuer-needs-absent-cert-manager",
            "nvcf/pki/issuer-no-dangling-cert-manager-need",
            "external-cert-manager",
        ),
        // (13) a dangling cross-state need, in the runs that do not refuse it.
        (
            "router-needs-issuer",
            "nvcf/stack/needs-within-state",
            "cassandra-min-available",
        ),
        (
            "router-needs-issuer",
            "nvcf/stack/needs-within-state",
            "cassandra-off",
        ),
        // (14) the worker address port range unchecked.
        (
            "worker-address-port-unchecked",
            "nvcf/fail-closed/worker-address",
            "invalid-port-too-large",
        ),
        (
            "worker-address-port-unchecked",
            "nvcf/fail-closed/worker-address",
            "invalid-port-zero",
        ),
        // (15, 16) the cassandra chart's PDB guards.
        (
            "pdb-guards-collapsed",
            "nvcf/fail-closed/pdb-neither",
            "cassandra-neither",
        ),
        (
            "pdb-both-unguarded",
            "nvcf/fail-closed/pdb-both",
            "cassandra-both",
        ),
    ]);
    for cell in managed {
        // (9) a stale OpenBao address; (10) a direct NATS need.
        expected.insert((
            "issuer-stale-openbao",
            "nvcf/pki/issuer-values-openbao",
            cell,
        ));
        expected.insert(("issuer-stale-openbao", "nvcf/pki/issuer-values-auth", cell));
        expected.insert(("issuer-needs-nats", "nvcf/pki/issuer-no-nats-need", cell));
    }
    // (12) two releases own the api's ConfigMap wherever the router renders.
    for cell in [
        "cluster-issuer-bool-true",
        "custom-managed",
        "custom-unmanaged",
        "existing-secret",
        "external-cert-manager",
        "external-clusterissuer",
        "external-issuer",
        "managed-defaults",
        "pki-disabled",
    ] {
        expected.insert((
            "router-copies-api-config",
            "nvcf/stack/objects-unique",
            cell,
        ));
    }
    assert_eq!(fired, expected, "{text}");

    // Every broken target fires, and every mirrored rule does.
    let targets: BTreeSet<&str> = r.outcomes.iter().map(|o| o.target.as_str()).collect();
    assert_eq!(targets.len(), 16, "{targets:?}");
    for t in &targets {
        assert!(fired.iter().any(|(target, _, _)| target == t), "{t}");
    }
    for id in MIRRORED {
        assert!(
            fired.iter().any(|(_, rule, _)| *rule == id),
            "{id} never fired"
        );
    }

    // Every finding points at a line. A guard that is gone is reported as a render
    // that should have failed; one that fails otherwise quotes the error it gave.
    for f in &r.findings {
        let primary = f.primary().unwrap_or_else(|| panic!("{f:?}"));
        assert!(!primary.file.is_empty() && primary.line > 0, "{f:?}");
        if f.rule.contains("/fail-closed/") {
            assert!(
                f.message.contains("but it rendered")
                    || f.message.contains("but not with an error matching"),
                "{}",
                f.message
            );
        }
    }
    // The collapsed PDB guard is reported with the message it gave instead.
    let collapsed = r
        .findings
        .iter()
        .find(|f| f.rule == "nvcf/fail-closed/pdb-neither")
        .unwrap_or_else(|| panic!("no pdb-neither finding\n{text}"));
    assert!(
        collapsed.message.contains("not both"),
        "{}",
        collapsed.message
    );
    // The dangling need names the release and the state that declares it.
    let dangling = r
        .findings
        .iter()
        .find(|f| f.rule == "nvcf/stack/needs-within-state")
        .unwrap_or_else(|| panic!("no needs-within-state finding\n{text}"));
    assert!(
        dangling.message.contains("cert-manager/nvcf-pki")
            && dangling.message.contains("02-core.yaml.gotmpl"),
        "{}",
        dangling.message
    );
    // The second copy of the ConfigMap is traced to the router's template, next to the
    // api's first one.
    let twice = r
        .findings
        .iter()
        .find(|f| f.rule == "nvcf/stack/objects-unique")
        .unwrap_or_else(|| panic!("no objects-unique finding\n{text}"));
    assert!(
        twice.message.contains("nvcf-api-config") && twice.message.contains("nvcf/api"),
        "{}",
        twice.message
    );
    assert!(
        twice.locations.iter().any(|l| l
            .file
            .ends_with("failclosed/stack/charts/router/templates/api-config.yaml")),
        "{twice:?}"
    );
}
