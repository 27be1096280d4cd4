//! Differential check of the template fixtures (`testdata/template/`) against the real
//! `helm` binaries; the comparison itself (chart layout, Helm's error re-formatting)
//! is `common::oracle`.
//!
//! Runs in `cargo test` when the oracles are present (CI installs them), and
//! skips with a printed reason otherwise. By hand: `STACKPROOF_ORACLES=DIR cargo
//! test --test template_oracle -- --nocapture`; it prints a summary and every
//! disagreement, and fails if any fixture disagrees.

mod common;

use std::path::Path;

use common::oracle;

#[test]
fn fixtures_agree_with_helm() {
    let Some(oracles) = oracle::oracle_dir() else {
        eprintln!("STACKPROOF_ORACLES not set or has no helm: skipping the oracle check");
        return;
    };
    let work = std::env::temp_dir().join(format!("stackproof-oracle-{}", std::process::id()));
    std::fs::create_dir_all(&work).expect("mkdir");
    let fixture_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/template");
    let mut tally = oracle::Tally::default();
    for (name, path) in oracle::fixture_paths(&fixture_dir) {
        let fx = common::parse_fixture(&name, &std::fs::read_to_string(&path).expect("read"));
        if let Some(reason) = &fx.oracle_skip {
            eprintln!("skip {name}: {reason}");
            tally.skipped += 1;
            continue;
        }
        let ours = common::run_fixture_full(&fx);
        tally.record(&name, oracle::helm_check(&oracles, &work, &fx, &ours));
    }
    let _ = std::fs::remove_dir_all(&work);
    tally.print("template fixtures vs helm");
    assert!(
        tally.disagree.is_empty(),
        "{} fixtures disagree with helm",
        tally.disagree.len()
    );
}
