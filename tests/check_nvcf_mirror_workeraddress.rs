//! The NVCF mirror's worker-address and PKI-issuer scenarios
//! (`charts-under-test/nvcf-mirror/workeraddress/`): a small Helmfile stack of our own in
//! the shape of NVIDIA/nvcf's self-managed stack (the API's remote config, the request
//! router's PKI values, the OpenTelemetry operator's webhooks with a CA generated at
//! render time), checked with the real NVCF rule pack. The passing configuration proves
//! each mirrored rule is evaluated and quiet where it applies; the broken one (one
//! target per bug, through virtual files) proves each fires where it is aimed, and
//! nothing else fires. Nothing here needs the NVCF checkout in ../shared.

mod mirror_support;

use mirror_support::check;
use std::collections::BTreeSet;

use stackproof::report::{self, Format, Report, Status};

/// The rules this mirror exists for.
const RULES: [&str; 11] = [
    "nvcf/worker-address/disabled-has-no-router-config",
    "nvcf/worker-address/disabled-stages-nothing",
    "nvcf/worker-address/expected-address",
    "nvcf/worker-address/in-api-remote-config",
    "nvcf/worker-address/no-legacy-env",
    "nvcf/worker-address/router-grpc-port",
    "nvcf/router/certificate-issuer",
    "nvcf/router/provisioning-hook",
    "nvcf/router/tls-paths",
    "nvcf/trust/crd-conversion-ca-bundles",
    "nvcf/trust/webhook-ca-bundles",
];

const PKI_CELLS: [&str; 5] = [
    "custom-managed",
    "existing-secret",
    "external-issuer",
    "llm-disabled",
    "managed-defaults",
];

fn status<'r>(r: &'r Report, target: &str, rule: &str, cell: &str) -> Option<&'r Status> {
    r.outcomes
        .iter()
        .find(|o| o.target == target && o.rule == rule && o.cell == cell)
        .map(|o| &o.status)
}

#[test]
fn workeraddress_mirror_passes_with_its_rules_applied() {
    let r = check("workeraddress.stackproof.yaml");
    let text = report::render(&r, Format::Human, false);
    assert!(r.findings.is_empty(), "{text}");
    assert_eq!(r.exit_code(), 0);
    let cells = |target: &str| -> BTreeSet<&str> {
        r.outcomes
            .iter()
            .filter(|o| o.target == target)
            .map(|o| o.cell.as_str())
            .collect()
    };
    assert_eq!(
        cells("worker-address"),
        BTreeSet::from([
            "custom-port",
            "disabled-staged-address",
            "empty-defaults-to-local",
            "external",
            "ipv4",
            "ipv6",
            "local",
        ])
    );
    assert_eq!(cells("pki-issuer"), BTreeSet::from(PKI_CELLS));
    for id in RULES {
        assert!(r.rules.iter().any(|i| i.id == id), "rule {id} not loaded");
    }

    // Each rule passes in cells where its `when` holds (not skipped): the scenario
    // really is there. Address rules per address form; the PKI rules per issuer mode.
    let passes = [
        (
            "worker-address",
            "nvcf/worker-address/in-api-remote-config",
            "local",
        ),
        (
            "worker-address",
            "nvcf/worker-address/in-api-remote-config",
            "ipv6",
        ),
        (
            "worker-address",
            "nvcf/worker-address/expected-address",
            "local",
        ),
        (
            "worker-address",
            "nvcf/worker-address/expected-address",
            "custom-port",
        ),
        (
            "worker-address",
            "nvcf/worker-address/expected-address",
            "external",
        ),
        (
            "worker-address",
            "nvcf/worker-address/expected-address",
            "ipv4",
        ),
        (
            "worker-address",
            "nvcf/worker-address/expected-address",
            "ipv6",
        ),
        (
            "worker-address",
            "nvcf/worker-address/expected-address",
            "empty-defaults-to-local",
        ),
        (
            "worker-address",
            "nvcf/worker-address/no-legacy-env",
            "local",
        ),
        (
            "worker-address",
            "nvcf/worker-address/router-grpc-port",
            "custom-port",
        ),
        (
            "worker-address",
            "nvcf/worker-address/disabled-stages-nothing",
            "disabled-staged-address",
        ),
        (
            "worker-address",
            "nvcf/worker-address/disabled-has-no-router-config",
            "disabled-staged-address",
        ),
        (
            "pki-issuer",
            "nvcf/router/certificate-issuer",
            "managed-defaults",
        ),
        (
            "pki-issuer",
            "nvcf/router/certificate-issuer",
            "external-issuer",
        ),
        (
            "pki-issuer",
            "nvcf/router/certificate-issuer",
            "custom-managed",
        ),
        (
            "pki-issuer",
            "nvcf/router/provisioning-hook",
            "managed-defaults",
        ),
        (
            "pki-issuer",
            "nvcf/router/provisioning-hook",
            "custom-managed",
        ),
        ("pki-issuer", "nvcf/router/tls-paths", "managed-defaults"),
        ("pki-issuer", "nvcf/router/tls-paths", "external-issuer"),
        ("pki-issuer", "nvcf/router/tls-paths", "existing-secret"),
    ];
    for (target, rule, cell) in passes {
        assert_eq!(
            status(&r, target, rule, cell),
            Some(&Status::Passed),
            "{rule} on {target}/{cell}\n{text}"
        );
    }
    // The CA-bundle rules have no `when`: they pass in every cell, where the operator's
    // webhooks and the CRD's conversion webhook carry a CA generated by `genCA` (the
    // broken targets show neither selection is empty).
    for cell in PKI_CELLS {
        for rule in [
            "nvcf/trust/webhook-ca-bundles",
            "nvcf/trust/crd-conversion-ca-bundles",
        ] {
            assert_eq!(
                status(&r, "pki-issuer", rule, cell),
                Some(&Status::Passed),
                "{rule} on {cell}\n{text}"
            );
        }
    }
    // And the conditions are real: outside their scenario the rules stand aside.
    for (target, rule, cell) in [
        (
            "worker-address",
            "nvcf/worker-address/router-grpc-port",
            "local",
        ),
        (
            "worker-address",
            "nvcf/worker-address/in-api-remote-config",
            "disabled-staged-address",
        ),
        (
            "worker-address",
            "nvcf/worker-address/no-legacy-env",
            "disabled-staged-address",
        ),
        (
            "pki-issuer",
            "nvcf/router/provisioning-hook",
            "external-issuer",
        ),
        (
            "pki-issuer",
            "nvcf/router/certificate-issuer",
            "existing-secret",
        ),
        ("pki-issuer", "nvcf/router/tls-paths", "llm-disabled"),
    ] {
        assert!(
            matches!(status(&r, target, rule, cell), Some(Status::Skipped { .. })),
            "{rule} on {target}/{cell}\n{text}"
        );
    }
}

#[test]
fn broken_workeraddress_mirror_fires_exactly_the_rules_aimed_at_each_bug() {
    let r = check("workeraddress.broken.stackproof.yaml");
    let text = report::render(&r, Format::Human, false);
    assert_eq!(r.exit_code(), 1, "{text}");
    let fired: BTreeSet<(&str, &str, &str)> = r
        .findings
        .iter()
        .map(|f| (f.target.as_str(), f.rule.as_str(), f.cell.as_str()))
        .collect();

    let mut expected: BTreeSet<(&str, &str, &str)> = BTreeSet::new();
    let llm_cells = [
        "custom-port",
        "empty-defaults-to-local",
        "external",
        "ipv4",
        "ipv6",
        "local",
    ];
    // (1) The address outside the api block: the API has no worker address.
    for cell in llm_cells {
        for rule in [
            "nvcf/worker-address/in-api-remote-config",
            "nvcf/worker-address/expected-address",
        ] {
            expected.insert(("worker-address-outside-api", rule, cell));
        }
    }
    // (2) The configured address ignored: only the cells that configure one notice.
    for cell in ["external", "ipv4", "ipv6"] {
        expected.insert((
            "worker-address-ignores-override",
            "nvcf/worker-address/expected-address",
            cell,
        ));
    }
    // (3) A custom gRPC port that never reaches the router chart.
    expected.insert((
        "router-grpc-port-dropped",
        "nvcf/worker-address/router-grpc-port",
        "custom-port",
    ));
    // (4) The legacy env variable, wherever the add-on is on.
    for cell in llm_cells {
        expected.insert((
            "legacy-worker-env",
            "nvcf/worker-address/no-legacy-env",
            cell,
        ));
    }
    // (5) With the add-on off, the staged address still configured.
    for rule in [
        "nvcf/worker-address/disabled-has-no-router-config",
        "nvcf/worker-address/disabled-stages-nothing",
    ] {
        expected.insert(("disabled-stages-address", rule, "disabled-staged-address"));
    }
    // (6) issuerKind ignored: only the namespaced external Issuer's cell notices.
    expected.insert((
        "certificate-issuer-kind-ignored",
        "nvcf/router/certificate-issuer",
        "external-issuer",
    ));
    // (7) The hook lost where management is the default, not where it is explicit.
    expected.insert((
        "provisioning-hook-dropped",
        "nvcf/router/provisioning-hook",
        "managed-defaults",
    ));
    // (8) No key path in certManager mode; existingSecret keeps its own.
    for cell in ["custom-managed", "external-issuer", "managed-defaults"] {
        expected.insert(("router-tls-key-path-dropped", "nvcf/router/tls-paths", cell));
    }
    // (9) The CA's key in the admission webhooks' bundle, in every cell.
    for cell in PKI_CELLS {
        expected.insert((
            "webhook-ca-bundle-with-key",
            "nvcf/trust/webhook-ca-bundles",
            cell,
        ));
        expected.insert((
            "crd-conversion-bundle-is-leaf",
            "nvcf/trust/crd-conversion-ca-bundles",
            cell,
        ));
    }
    assert_eq!(fired, expected, "{text}");

    // (10) A leaf certificate as the CRD conversion webhook's CA bundle, in every cell.
    // Every broken target fires, and every rule does.
    let targets: BTreeSet<&str> = fired.iter().map(|(t, _, _)| *t).collect();
    assert_eq!(targets.len(), 10, "{targets:?}");
    for id in RULES {
        assert!(
            fired.iter().any(|(_, rule, _)| *rule == id),
            "{id} never fired\n{text}"
        );
    }

    // Every finding points at a line; those about a value or object that is there (or
    // that should be there, for a path the values lack) also point at the stack.
    let no_subject = [
        "nvcf/worker-address/expected-address",
        "nvcf/worker-address/router-grpc-port",
        "nvcf/router/certificate-issuer",
        "nvcf/router/provisioning-hook",
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

    // The key is reported on each webhook configuration, traced to the chart template.
    let keys: Vec<_> = r
        .findings
        .iter()
        .filter(|f| f.rule == "nvcf/trust/webhook-ca-bundles" && f.cell == "managed-defaults")
        .collect();
    assert_eq!(keys.len(), 2, "{text}");
    for f in keys {
        assert!(f.message.contains("PRIVATE KEY"), "{}", f.message);
        assert!(
            f.locations.iter().any(|l| l
                .file
                .ends_with("opentelemetry-operator/templates/webhooks.yaml")),
            "{f:?}"
        );
    }
    // The legacy variable is shown with the address it leaks.
    let legacy = r
        .findings
        .iter()
        .find(|f| f.rule == "nvcf/worker-address/no-legacy-env" && f.cell == "external")
        .unwrap_or_else(|| panic!("no legacy-env finding\n{text}"));
    assert!(
        legacy
            .message
            .contains("NVCF_LLM_REQUEST_ROUTER_WORKER_ADDRESS")
            && legacy.message.contains("router.example.com:443"),
        "{}",
        legacy.message
    );
}
