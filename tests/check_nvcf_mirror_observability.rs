//! The observability part of the NVCF mirror
//! (`charts-under-test/nvcf-mirror/observability/`): a small Helmfile stack of our own in
//! the shape of NVCF's self-managed stack (dependencies, core services, the observability
//! state and the nested observability stack), checked with the pack's PDB, observability
//! and baggage rules. The passing configuration proves each of those rules is evaluated
//! and passes in at least one cell where it applies; the broken one (one target per bug,
//! reintroduced through virtual files) proves each rule fires, and only where aimed.
//! Nothing here needs the NVCF checkout in ../shared.

mod mirror_support;

use mirror_support::check;
use std::collections::{BTreeMap, BTreeSet};

use stackproof::report::{self, Format, Status};

/// The rules this mirror covers: every rule of `baggage.yaml`, `observability.yaml` and
/// `pdb.yaml`.
const RULES: [&str; 26] = [
    "nvcf/baggage/checksum-changes-with-allowlist",
    "nvcf/baggage/checksum-rolls-deployment",
    "nvcf/baggage/config-map",
    "nvcf/baggage/default-absent",
    "nvcf/baggage/values",
    "nvcf/observability/autoscaler-config-map-names",
    "nvcf/observability/autoscaler-config-maps",
    "nvcf/observability/autoscaler-count",
    "nvcf/observability/autoscaler-env-config-map",
    "nvcf/observability/autoscaler-image-pinned",
    "nvcf/observability/autoscaler-test-hook",
    "nvcf/observability/autoscaler-values-bundled",
    "nvcf/observability/autoscaler-values-external",
    "nvcf/observability/autoscaler-values-mtls",
    "nvcf/observability/metrics-backend-count",
    "nvcf/observability/no-autoscaler",
    "nvcf/observability/no-metrics-backend",
    "nvcf/pdb/cassandra-max-unavailable",
    "nvcf/pdb/cassandra-min-available",
    "nvcf/pdb/cassandra-off-by-default",
    "nvcf/pdb/ess-passthrough",
    "nvcf/pdb/nats-passthrough",
    "nvcf/pdb/openbao-ha-passthrough",
    "nvcf/pdb/openbao-injector-passthrough",
    "nvcf/pdb/ratelimiter-passthrough",
    "nvcf/pdb/releases-declared-once",
];

#[test]
fn observability_mirror_passes_with_every_rule_evaluated() {
    let r = check("observability.stackproof.yaml");
    let text = report::render(&r, Format::Human, false);
    assert!(r.findings.is_empty(), "{text}");
    assert_eq!(r.exit_code(), 0);

    // Exactly the pack's three files were applied.
    let loaded: BTreeSet<&str> = r.rules.iter().map(|i| i.id.as_str()).collect();
    assert_eq!(loaded, BTreeSet::from(RULES), "{text}");

    // Every cell of the four targets rendered.
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
            ("autoscaler", 3),
            ("baggage", 3),
            ("observability", 4),
            ("pdb", 9),
        ]),
        "{text}"
    );

    // Not vacuous: each rule passed in a cell where its `when` held and its selector
    // matched, and in the cells this mirror builds for it.
    let passed: BTreeSet<(&str, &str, &str)> = r
        .outcomes
        .iter()
        .filter(|o| o.status == Status::Passed)
        .map(|o| (o.rule.as_str(), o.target.as_str(), o.cell.as_str()))
        .collect();
    for id in RULES {
        assert!(
            passed.iter().any(|(rule, _, _)| *rule == id),
            "{id} never passed\n{text}"
        );
    }
    let expected_passes = [
        ("nvcf/baggage/default-absent", "baggage", "default"),
        ("nvcf/baggage/values", "baggage", "configured"),
        ("nvcf/baggage/values", "baggage", "changed"),
        ("nvcf/baggage/config-map", "baggage", "configured"),
        ("nvcf/baggage/config-map", "baggage", "changed"),
        (
            "nvcf/baggage/checksum-rolls-deployment",
            "baggage",
            "default",
        ),
        (
            "nvcf/baggage/checksum-rolls-deployment",
            "baggage",
            "changed",
        ),
        // `changed` against `configured`: the allowlist moved the checksum.
        (
            "nvcf/baggage/checksum-changes-with-allowlist",
            "baggage",
            "changed",
        ),
        (
            "nvcf/observability/metrics-backend-count",
            "observability",
            "control",
        ),
        (
            "nvcf/observability/metrics-backend-count",
            "observability",
            "compute",
        ),
        (
            "nvcf/observability/metrics-backend-count",
            "observability",
            "all",
        ),
        (
            "nvcf/observability/no-metrics-backend",
            "observability",
            "disabled",
        ),
        (
            "nvcf/observability/autoscaler-count",
            "observability",
            "control",
        ),
        (
            "nvcf/observability/autoscaler-count",
            "observability",
            "all",
        ),
        (
            "nvcf/observability/no-autoscaler",
            "observability",
            "compute",
        ),
        (
            "nvcf/observability/no-autoscaler",
            "observability",
            "disabled",
        ),
        (
            "nvcf/observability/autoscaler-values-bundled",
            "observability",
            "control",
        ),
        (
            "nvcf/observability/autoscaler-values-bundled",
            "autoscaler",
            "bundled",
        ),
        (
            "nvcf/observability/autoscaler-values-external",
            "autoscaler",
            "external-backend",
        ),
        (
            "nvcf/observability/autoscaler-values-mtls",
            "autoscaler",
            "mtls-backend",
        ),
        (
            "nvcf/observability/autoscaler-image-pinned",
            "autoscaler",
            "bundled",
        ),
        (
            "nvcf/observability/autoscaler-config-maps",
            "autoscaler",
            "bundled",
        ),
        (
            "nvcf/observability/autoscaler-config-map-names",
            "autoscaler",
            "bundled",
        ),
        (
            "nvcf/observability/autoscaler-env-config-map",
            "autoscaler",
            "bundled",
        ),
        (
            "nvcf/observability/autoscaler-test-hook",
            "autoscaler",
            "bundled",
        ),
        (
            "nvcf/observability/autoscaler-test-hook",
            "observability",
            "control",
        ),
        ("nvcf/pdb/releases-declared-once", "pdb", "topology"),
        ("nvcf/pdb/cassandra-off-by-default", "pdb", "cassandra-off"),
        (
            "nvcf/pdb/cassandra-min-available",
            "pdb",
            "cassandra-min-available",
        ),
        (
            "nvcf/pdb/cassandra-max-unavailable",
            "pdb",
            "cassandra-max-unavailable",
        ),
        ("nvcf/pdb/nats-passthrough", "pdb", "nats-disabled"),
        ("nvcf/pdb/openbao-ha-passthrough", "pdb", "openbao-ha"),
        (
            "nvcf/pdb/openbao-injector-passthrough",
            "pdb",
            "openbao-injector",
        ),
        ("nvcf/pdb/ratelimiter-passthrough", "pdb", "ratelimiter"),
        ("nvcf/pdb/ess-passthrough", "pdb", "ess"),
    ];
    for key in expected_passes {
        assert!(passed.contains(&key), "{key:?} did not pass\n{text}");
    }
}

#[test]
fn broken_observability_mirror_fires_exactly_the_rules_aimed_at_each_bug() {
    let r = check("observability.broken.stackproof.yaml");
    let text = report::render(&r, Format::Human, false);
    assert_eq!(r.exit_code(), 1, "{text}");
    let fired: BTreeSet<(&str, &str, &str)> = r
        .findings
        .iter()
        .map(|f| (f.target.as_str(), f.rule.as_str(), f.cell.as_str()))
        .collect();
    let expected = BTreeSet::from([
        // Baggage: the key always rendered, the allowlist not threaded, joined with
        // spaces, the Deployment not rolled.
        (
            "baggage-key-always-rendered",
            "nvcf/baggage/default-absent",
            "default",
        ),
        ("baggage-not-threaded", "nvcf/baggage/values", "configured"),
        ("baggage-not-threaded", "nvcf/baggage/values", "changed"),
        (
            "baggage-not-threaded",
            "nvcf/baggage/config-map",
            "configured",
        ),
        ("baggage-not-threaded", "nvcf/baggage/config-map", "changed"),
        (
            "baggage-joined-with-spaces",
            "nvcf/baggage/config-map",
            "configured",
        ),
        (
            "baggage-joined-with-spaces",
            "nvcf/baggage/config-map",
            "changed",
        ),
        (
            "baggage-deployment-not-rolled",
            "nvcf/baggage/checksum-rolls-deployment",
            "default",
        ),
        (
            "baggage-deployment-not-rolled",
            "nvcf/baggage/checksum-rolls-deployment",
            "configured",
        ),
        (
            "baggage-deployment-not-rolled",
            "nvcf/baggage/checksum-rolls-deployment",
            "changed",
        ),
        // Without the annotation there is nothing to compare; with the allowlist not
        // threaded the checksum stays what it was in `configured`.
        (
            "baggage-deployment-not-rolled",
            "nvcf/baggage/checksum-changes-with-allowlist",
            "changed",
        ),
        (
            "baggage-not-threaded",
            "nvcf/baggage/checksum-changes-with-allowlist",
            "changed",
        ),
        // Profiles: a second metrics backend (and one for the disabled profile), the
        // autoscaler for every profile, or missing from `all`.
        (
            "metrics-backend-in-core-state",
            "nvcf/observability/metrics-backend-count",
            "control",
        ),
        (
            "metrics-backend-in-core-state",
            "nvcf/observability/metrics-backend-count",
            "compute",
        ),
        (
            "metrics-backend-in-core-state",
            "nvcf/observability/metrics-backend-count",
            "all",
        ),
        (
            "metrics-backend-in-core-state",
            "nvcf/observability/no-metrics-backend",
            "disabled",
        ),
        (
            "autoscaler-for-every-profile",
            "nvcf/observability/no-autoscaler",
            "compute",
        ),
        (
            "autoscaler-for-every-profile",
            "nvcf/observability/no-autoscaler",
            "disabled",
        ),
        (
            "autoscaler-dropped-from-all",
            "nvcf/observability/autoscaler-count",
            "all",
        ),
        // The autoscaler's values under each backend.
        (
            "autoscaler-auth-disabled",
            "nvcf/observability/autoscaler-values-bundled",
            "bundled",
        ),
        (
            "autoscaler-ignore-env-pinned",
            "nvcf/observability/autoscaler-values-external",
            "external-backend",
        ),
        (
            "autoscaler-mtls-paths-dropped",
            "nvcf/observability/autoscaler-values-mtls",
            "mtls-backend",
        ),
        // The autoscaler's rendered objects.
        (
            "autoscaler-image-unpinned",
            "nvcf/observability/autoscaler-image-pinned",
            "bundled",
        ),
        (
            "autoscaler-observability-config-map",
            "nvcf/observability/autoscaler-config-maps",
            "bundled",
        ),
        (
            "autoscaler-observability-config-map",
            "nvcf/observability/autoscaler-config-map-names",
            "bundled",
        ),
        (
            "autoscaler-vault-template-dropped",
            "nvcf/observability/autoscaler-config-maps",
            "bundled",
        ),
        (
            "autoscaler-env-without-promql",
            "nvcf/observability/autoscaler-env-config-map",
            "bundled",
        ),
        (
            "autoscaler-test-hook-dropped",
            "nvcf/observability/autoscaler-test-hook",
            "bundled",
        ),
        // PDB values threaded from the environment to each release.
        (
            "pdb-release-declared-twice",
            "nvcf/pdb/releases-declared-once",
            "topology",
        ),
        (
            "pdb-cassandra-on-by-default",
            "nvcf/pdb/cassandra-off-by-default",
            "cassandra-off",
        ),
        (
            "pdb-cassandra-min-available-dropped",
            "nvcf/pdb/cassandra-min-available",
            "cassandra-min-available",
        ),
        (
            "pdb-cassandra-max-unavailable-dropped",
            "nvcf/pdb/cassandra-max-unavailable",
            "cassandra-max-unavailable",
        ),
        (
            "pdb-nats-pinned",
            "nvcf/pdb/nats-passthrough",
            "nats-disabled",
        ),
        (
            "pdb-openbao-ha-misplaced",
            "nvcf/pdb/openbao-ha-passthrough",
            "openbao-ha",
        ),
        (
            "pdb-openbao-injector-pinned",
            "nvcf/pdb/openbao-injector-passthrough",
            "openbao-injector",
        ),
        (
            "pdb-ratelimiter-dropped",
            "nvcf/pdb/ratelimiter-passthrough",
            "ratelimiter",
        ),
        ("pdb-ess-wrong-key", "nvcf/pdb/ess-passthrough", "ess"),
    ]);
    assert_eq!(fired, expected, "{text}");

    // Every rule fires somewhere, and every broken target fires.
    for id in RULES {
        assert!(
            fired.iter().any(|(_, rule, _)| *rule == id),
            "{id} never fired\n{text}"
        );
    }
    let targets: BTreeSet<&str> = r.outcomes.iter().map(|o| o.target.as_str()).collect();
    for t in &targets {
        assert!(
            fired.iter().any(|(target, _, _)| target == t),
            "{t} fired nothing\n{text}"
        );
    }
    assert_eq!(targets.len(), 24, "{text}");

    // No finding is a render error passed off as a rule firing: each one is the rule's
    // own verdict, pointing at a line.
    for f in &r.findings {
        assert!(!f.message.contains("cannot evaluate"), "{}", f.message);
        let primary = f.primary().unwrap_or_else(|| panic!("{f:?}"));
        assert!(!primary.file.is_empty() && primary.line > 0, "{f:?}");
    }

    // The release declared twice is named at both states.
    let twice = r
        .findings
        .iter()
        .find(|f| f.rule == "nvcf/pdb/releases-declared-once" && f.message.contains("unique"))
        .unwrap_or_else(|| panic!("no uniqueness finding\n{text}"));
    for state in [
        "helmfile.d/01-dependencies.yaml.gotmpl",
        "helmfile.d/02-core.yaml.gotmpl",
    ] {
        assert!(
            twice
                .locations
                .iter()
                .any(|l| l.file.ends_with(state) && l.line > 0),
            "{twice:?}"
        );
    }
    // The empty allowlist is shown as the value it is.
    let empty = r
        .findings
        .iter()
        .find(|f| f.rule == "nvcf/baggage/default-absent")
        .unwrap_or_else(|| panic!("no default-absent finding\n{text}"));
    assert!(empty.message.contains("\"\""), "{}", empty.message);
}
