//! The rule engine on real Helmfile output: the NVCF stack's expected cells
//! (`$STACKPROOF_SHARED/nvcf/expected`, read in place through the fixture renderer's
//! Helmfile-output layout) checked against `testdata/rules/nvcf/*.yaml`.
//! Skips, saying why, when the shared data is absent.

use std::path::{Path, PathBuf};

use stackproof::cli::check::{run_check, Filters};
use stackproof::matrix::config::{load, LoadOptions};
use stackproof::matrix::render::Renderers;
use stackproof::report::{self, Format, Report, Status};

fn shared() -> Option<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let dir = match std::env::var_os("STACKPROOF_SHARED") {
        Some(d) => PathBuf::from(d),
        None => root.join("../shared"),
    };
    let expected = dir.join("nvcf/expected");
    if expected.is_dir() {
        Some(expected)
    } else {
        eprintln!(
            "skipping: no NVCF expected output at {} (set STACKPROOF_SHARED)",
            expected.display()
        );
        None
    }
}

/// The cells and the state values each one sets, as the expected output's README
/// describes them.
const CELLS: &str = r#"
      - name: default
      - name: llm
        set: {addons.llm.enabled: true}
      - name: llm-pki-certmanager
        set: {addons.llm.enabled: true, addons.llm.pki.enabled: true}
      - name: llm-pki-existingsecret
        set: {addons.llm.enabled: true, addons.llm.pki.enabled: true, addons.llm.pki.mode: existingSecret}
      - name: llm-pki-existingsecret-openbao-off
        set: {addons.llm.enabled: true, addons.llm.pki.enabled: true, addons.llm.pki.mode: existingSecret, openbao.enabled: false}
      - name: observability-compute
        set: {observability.profile: compute}
      - name: nvcf-ui
        set: {addons.nvcfUi.enabled: true}
      - name: err-bad-pki-mode
        set: {addons.llm.enabled: true, addons.llm.pki.enabled: true, addons.llm.pki.mode: bogus}
        rules: [nvcf/bad-pki-mode-refused]
"#;

fn report(expected: &Path) -> Report {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("check_nvcf");
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let names = [
        "default",
        "llm",
        "llm-pki-certmanager",
        "llm-pki-existingsecret",
        "llm-pki-existingsecret-openbao-off",
        "observability-compute",
        "nvcf-ui",
        "err-bad-pki-mode",
    ];
    let cell_dirs: String = names
        .iter()
        .map(|n| format!("        {n}: {n}\n"))
        .collect();
    let config = format!(
        "targets:\n  - name: nvcf\n    fixture:\n      path: {}\n      cells:\n{cell_dirs}    matrix: nvcf\n    rules: [{}]\nmatrices:\n  nvcf:\n    cells:{CELLS}",
        expected.display(),
        root.join("testdata/rules/nvcf/*.yaml").display()
    );
    std::fs::write(dir.join("stackproof.yaml"), config).unwrap_or_else(|e| panic!("{e}"));
    let cfg = load(
        &dir.join("stackproof.yaml"),
        &LoadOptions {
            root: None,
            display_base: Some(expected.to_path_buf()),
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    run_check(&cfg, &Renderers::builtin(), &Filters::default()).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn nvcf_cells_keep_the_pki_contract() {
    let Some(expected) = shared() else { return };
    let r = report(&expected);
    assert!(
        r.findings.is_empty(),
        "{}",
        report::render(&r, Format::Human, false)
    );
    // Every rule was evaluated somewhere, and the mode-specific ones where expected.
    let evaluated = |rule: &str, cell: &str| {
        r.outcomes
            .iter()
            .any(|o| o.rule == rule && o.cell == cell && o.status == Status::Passed)
    };
    assert!(evaluated("nvcf/bad-pki-mode-refused", "err-bad-pki-mode"));
    assert!(evaluated(
        "nvcf/existing-secret-is-mounted",
        "llm-pki-existingsecret"
    ));
    assert!(evaluated(
        "nvcf/existing-secret-is-mounted",
        "llm-pki-existingsecret-openbao-off"
    ));
    assert!(evaluated(
        "nvcf/router-certificate-covers-its-service",
        "llm-pki-certmanager"
    ));
    assert!(evaluated(
        "nvcf/cert-manager-mode-installs-pki",
        "llm-pki-certmanager"
    ));
    assert!(evaluated(
        "nvcf/router-key-is-not-trust",
        "llm-pki-certmanager"
    ));
}
