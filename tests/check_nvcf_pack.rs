//! The NVCF rule pack (`rules/nvcf/`) on the real stack, rendered natively: the copy in
//! `$STACKPROOF_SHARED/nvcf` (else `../shared/nvcf`) is checked as
//! `stackproof check --config rules/nvcf/stackproof.yaml --root <nvcf>` would.
//!
//! On the snapshot the pack reports exactly the known gap (NVCF PR #850 is not in it:
//! with LLM disabled neither the API nor NVCT enable delegated worker tokens) and
//! nothing else, with every other rule passing somewhere. Then the rules are shown to
//! bite: virtual copies of the stack (overlay files, nothing written to the tree) apply
//! PR #850 (the pack goes quiet) or reintroduce bugs (a second nvcf-pki declaration as
//! before PR #951, a private key in a trust bundle, workers trusting the router's key
//! Secret), and the expected rule fires with a located diagnostic.
//! Skips, saying why, when the shared data is absent.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use stackproof::cli::check::{run_check, Filters};
use stackproof::matrix::config::{load, Config, LoadOptions, TargetKind};
use stackproof::matrix::render::Renderers;
use stackproof::report::{self, Format, Report, Status};

fn nvcf() -> Option<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let dir = match std::env::var_os("STACKPROOF_SHARED") {
        Some(d) => PathBuf::from(d),
        None => root.join("../shared"),
    };
    let nvcf = dir.join("nvcf");
    if nvcf.join("deploy/stacks/self-managed/helmfile.d").is_dir() {
        // Configuration paths are normalized (no `..`); overlay lookups below must
        // use the same spelling.
        Some(nvcf.canonicalize().unwrap_or(nvcf))
    } else {
        eprintln!(
            "skipping: no NVCF checkout at {} (set STACKPROOF_SHARED)",
            nvcf.display()
        );
        None
    }
}

fn config(nvcf: &Path) -> Config {
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("rules/nvcf/stackproof.yaml");
    load(
        &file,
        &LoadOptions {
            root: Some(nvcf.to_path_buf()),
            display_base: Some(nvcf.to_path_buf()),
        },
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

fn run(cfg: &Config, targets: &[&str], cells: &[&str], rules: &[&str]) -> Report {
    let own = |v: &[&str]| v.iter().map(|s| s.to_string()).collect();
    let filters = Filters {
        targets: own(targets),
        cells: own(cells),
        rules: own(rules),
    };
    run_check(cfg, &Renderers::builtin(), &filters).unwrap_or_else(|e| panic!("{e}"))
}

/// Adds (or replaces) a virtual file, given relative to the NVCF root, in a target.
fn overlay(cfg: &mut Config, target: &str, nvcf: &Path, rel: &str, content: String) {
    let t = cfg
        .targets
        .iter_mut()
        .find(|t| t.name == target)
        .unwrap_or_else(|| panic!("no target {target}"));
    match &mut t.kind {
        TargetKind::Helmfile { overlays, .. } => {
            overlays.insert(nvcf.join(rel), content);
        }
        other => panic!("{target} is not a helmfile target: {other:?}"),
    }
}

/// A file of the checkout with `from` replaced by `to` (which must be there).
fn patched(nvcf: &Path, rel: &str, from: &str, to: &str) -> String {
    let text = std::fs::read_to_string(nvcf.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
    assert!(
        text.contains(from),
        "{rel} no longer contains the patch anchor:\n{from}"
    );
    text.replacen(from, to, 1)
}

fn human(r: &Report) -> String {
    report::render(r, Format::Human, false)
}

/// The rule ids that reported findings, by cell.
fn fired(r: &Report) -> BTreeSet<(String, String)> {
    r.findings
        .iter()
        .map(|f| (f.rule.clone(), f.cell.clone()))
        .collect()
}

const DELEGATED: [&str; 2] = [
    "nvcf/delegated-token/api-enabled",
    "nvcf/delegated-token/nvct-enabled",
];

#[test]
fn pack_on_the_snapshot_reports_only_the_missing_pr_850() {
    let Some(nvcf) = nvcf() else { return };
    let cfg = config(&nvcf);
    let r = run(&cfg, &[], &[], &[]);

    // The only findings: PR #850's two settings, in every self-managed cell with LLM
    // disabled, each pointing at the values the api/nvct-api release was rendered with.
    let unexpected: Vec<_> = r
        .findings
        .iter()
        .filter(|f| !(DELEGATED.contains(&f.rule.as_str()) && f.target == "self-managed"))
        .collect();
    assert!(unexpected.is_empty(), "{}", human(&r));
    let cells: BTreeSet<&str> = r.findings.iter().map(|f| f.cell.as_str()).collect();
    assert_eq!(
        cells,
        BTreeSet::from(["default", "nvcf-ui", "observability-compute"]),
        "{}",
        human(&r)
    );
    for f in &r.findings {
        assert!(
            f.release.as_deref() == Some("nvcf/api")
                || f.release.as_deref() == Some("nvcf/nvct-api"),
            "{f:?}"
        );
        assert!(
            f.locations
                .iter()
                .any(|l| l.file.ends_with("delegated-token.yaml") && l.line > 0),
            "{f:?}"
        );
        // ... and at the line of the rendered global.yaml.gotmpl where the setting
        // belongs (the deepest part of the path that exists: `api:` / `nvctApi.env:`).
        assert!(
            f.locations
                .iter()
                .any(|l| l.file.contains("global.yaml.gotmpl (rendered in ") && l.line > 0),
            "no values location: {f:?}"
        );
    }
    assert_eq!(r.findings.len(), 6, "{}", human(&r));

    // Every other rule held somewhere: none of them passes only by never applying.
    let mut passed: BTreeMap<&str, usize> = BTreeMap::new();
    for o in &r.outcomes {
        if o.status == Status::Passed {
            *passed.entry(o.rule.as_str()).or_default() += 1;
        }
    }
    for info in &r.rules {
        if DELEGATED.contains(&info.id.as_str()) {
            continue;
        }
        assert!(
            passed.contains_key(info.id.as_str()),
            "rule {} never evaluated to a pass in any cell",
            info.id
        );
    }
    // All 8 documented cells and the bash tests' cases were rendered.
    assert!(r.summary.cells >= 90, "only {} cells", r.summary.cells);
}

/// NVCF PR #850, applied to a virtual copy of `global.yaml.gotmpl`.
fn apply_pr_850(nvcf: &Path) -> String {
    let rel = "deploy/stacks/self-managed/global.yaml.gotmpl";
    let text = patched(
        nvcf,
        rel,
        "  {{- if $llmEnabled }}\n  remoteConfig:\n    configData:\n      nvcf:\n        llm-request-router:\n          worker-address: {{ $llmRequestRouterWorkerAddress | quote }}\n  {{- end }}\n",
        "  remoteConfig:\n    configData:\n      nvcf:\n        {{- if $llmEnabled }}\n        llm-request-router:\n          worker-address: {{ $llmRequestRouterWorkerAddress | quote }}\n        {{- else }}\n        worker:\n          delegated-token-enabled: true\n        {{- end }}\n",
    );
    let anchor = "    NVCT_SIDECARS_REPOSITORY: {{ .Values.global.image.repository }}\n";
    assert!(text.contains(anchor));
    text.replacen(
        anchor,
        &format!("{anchor}    {{{{- if not $llmEnabled }}}}\n    NVCT_WORKER_DELEGATED_TOKEN_ENABLED: \"true\"\n    {{{{- end }}}}\n"),
        1,
    )
}

#[test]
fn delegated_token_rules_pass_once_pr_850_is_applied() {
    let Some(nvcf) = nvcf() else { return };
    let mut cfg = config(&nvcf);
    let before = run(
        &cfg,
        &["self-managed"],
        &["default", "llm"],
        &["nvcf/delegated-token/*"],
    );
    assert_eq!(
        fired(&before),
        DELEGATED
            .iter()
            .map(|r| (r.to_string(), "default".to_string()))
            .collect(),
        "{}",
        human(&before)
    );
    let fixed = apply_pr_850(&nvcf);
    overlay(
        &mut cfg,
        "self-managed",
        &nvcf,
        "deploy/stacks/self-managed/global.yaml.gotmpl",
        fixed,
    );
    let after = run(
        &cfg,
        &["self-managed"],
        &["default", "llm"],
        &["nvcf/delegated-token/*"],
    );
    assert!(after.findings.is_empty(), "{}", human(&after));
    let passed = after
        .outcomes
        .iter()
        .filter(|o| o.cell == "default" && o.status == Status::Passed)
        .count();
    assert_eq!(passed, 3, "{after:?}");
}

#[test]
fn a_second_nvcf_pki_declaration_is_caught() {
    let Some(nvcf) = nvcf() else { return };
    let mut cfg = config(&nvcf);
    // Before PR #951: the core state also declared nvcf-pki, under a weaker gate.
    let rel = "deploy/stacks/self-managed/helmfile.d/02-core.yaml.gotmpl";
    let text = std::fs::read_to_string(nvcf.join(rel)).unwrap_or_else(|e| panic!("{e}"));
    let bad = format!(
        "{text}\n{{{{- if and (dig \"addons\" \"llm\" \"enabled\" false .Values) (dig \"addons\" \"llm\" \"pki\" \"enabled\" false .Values) }}}}\n  - name: nvcf-pki\n    chart: nvcf/helm-nvcf-pki\n    version: 0.1.0\n    namespace: cert-manager\n    values:\n      - clusterIssuer: {{enabled: true, name: nvcf-openbao-pki}}\n{{{{- end }}}}\n"
    );
    overlay(&mut cfg, "pki-issuer", &nvcf, rel, bad);
    let r = run(
        &cfg,
        &["pki-issuer"],
        &["managed-defaults", "existing-secret"],
        &["nvcf/pki/*", "nvcf/stack/*"],
    );
    let got = fired(&r);
    for want in [
        ("nvcf/pki/issuer-release-declared-once", "managed-defaults"),
        ("nvcf/pki/issuer-release-not-declared", "existing-secret"),
        ("nvcf/stack/objects-unique", "managed-defaults"),
    ] {
        assert!(
            got.contains(&(want.0.to_string(), want.1.to_string())),
            "{want:?} did not fire:\n{}",
            human(&r)
        );
    }
    // The finding points at the declarations in the state files.
    let f = r
        .findings
        .iter()
        .find(|f| f.rule == "nvcf/pki/issuer-release-not-declared")
        .unwrap_or_else(|| panic!("{}", human(&r)));
    assert!(
        f.locations
            .iter()
            .any(|l| l.file.ends_with("02-core.yaml.gotmpl") && l.line > 0),
        "{f:?}"
    );
}

#[test]
fn a_private_key_in_a_trust_bundle_is_caught() {
    let Some(nvcf) = nvcf() else { return };
    let mut cfg = config(&nvcf);
    let certs = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/rules/certs");
    let read = |f: &str| std::fs::read_to_string(certs.join(f)).unwrap_or_else(|e| panic!("{e}"));
    let indent = |s: String| s.lines().map(|l| format!("    {l}\n")).collect::<String>();
    let rel = "deploy/helm/nvcf-pki/templates/clusterissuer.yaml";
    let text = std::fs::read_to_string(nvcf.join(rel)).unwrap_or_else(|e| panic!("{e}"));
    // A CA bundle published next to the issuer, with the CA's key pasted in.
    let bad = format!(
        "{text}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: nvcf-ca-bundle\n  namespace: {{{{ .Release.Namespace }}}}\ndata:\n  ca.crt: |\n{}{}",
        indent(read("ca.crt")),
        indent(read("ca.key"))
    );
    overlay(&mut cfg, "self-managed", &nvcf, rel, bad);
    let r = run(
        &cfg,
        &["self-managed"],
        &["llm-pki-certmanager"],
        &["nvcf/trust/*"],
    );
    let f = r
        .findings
        .iter()
        .find(|f| f.rule == "nvcf/trust/ca-entries")
        .unwrap_or_else(|| panic!("no trust finding:\n{}", human(&r)));
    assert_eq!(f.release.as_deref(), Some("cert-manager/nvcf-pki"));
    assert!(f.message.contains("PRIVATE KEY"), "{}", f.message);
    assert!(
        f.locations
            .iter()
            .any(|l| l.file.ends_with("clusterissuer.yaml")),
        "{f:?}"
    );
}

#[test]
fn workers_trusting_the_router_key_is_caught() {
    let Some(nvcf) = nvcf() else { return };
    let mut cfg = config(&nvcf);
    // The registration hands workers the router's own TLS Secret as their trust bundle.
    let rel =
        "deploy/stacks/nvcf-compute-plane/stackproof-registration/stackproof-register-values.yaml";
    let mut reg = String::new();
    if let Some(t) = cfg.targets.iter().find(|t| t.name == "worker-trust") {
        if let TargetKind::Helmfile { overlays, .. } = &t.kind {
            reg = overlays.get(&nvcf.join(rel)).cloned().unwrap_or_default();
        }
    }
    assert!(
        reg.contains("nvcf-worker-trust"),
        "registration overlay moved"
    );
    overlay(
        &mut cfg,
        "worker-trust",
        &nvcf,
        rel,
        reg.replace("nvcf-worker-trust", "stargate-quic-tls"),
    );
    let r = run(
        &cfg,
        &["worker-trust"],
        &["cert-manager"],
        &["nvcf/trust/*"],
    );
    let f = r
        .findings
        .iter()
        .find(|f| f.rule == "nvcf/trust/server-key-not-trusted")
        .unwrap_or_else(|| panic!("no finding:\n{}", human(&r)));
    assert!(f.message.contains("stargate-quic-tls"), "{}", f.message);
    assert!(f.locations.iter().any(|l| l.line > 0), "{f:?}");
}
