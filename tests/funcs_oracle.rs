//! Differential check of the function fixtures (`testdata/funcs/`) against the real
//! programs: Helm fixtures with `helm template` (3.15.3 for level 1.22, 4.3.1 for
//! 1.27), `testdata/funcs/helmfile/` fixtures with `helmfile` 0.166.0 (see
//! `common::oracle` for how each is rendered and compared). Our side runs with the
//! full function set of the program and version.
//!
//! Helm 4 also gets every Helm 3 fixture that has no Helm 4 twin (`NAME_v4.txt`) and
//! is not Helm 3-only (`NAME_v3.txt`), re-run at level 1.27: where the two versions
//! agree, one fixture covers both; where they differ, the twin records the Helm 4
//! behaviour.
//!
//! Runs in `cargo test` when the oracles are present (CI installs them), and
//! skips with a printed reason otherwise. By hand: `STACKPROOF_ORACLES=DIR cargo
//! test --test funcs_oracle -- --nocapture` (`FIXTURE=name` narrows it); it prints
//! the agreement per program and every disagreement, and fails if any fixture
//! disagrees.

mod common;

use std::path::{Path, PathBuf};

use common::{funcs, oracle};
use stackproof::template::LanguageLevel;

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/funcs")
}

fn work_dir(tag: &str) -> PathBuf {
    let work = std::env::temp_dir().join(format!("stackproof-funcs-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&work).expect("mkdir");
    work
}

#[test]
fn funcs_agree_with_helm() {
    let Some(oracles) = oracle::oracle_dir() else {
        eprintln!("STACKPROOF_ORACLES not set or has no helm: skipping the oracle check");
        return;
    };
    let work = work_dir("helm");
    let (mut v3, mut v4, mut v4_rerun) = (
        oracle::Tally::default(),
        oracle::Tally::default(),
        oracle::Tally::default(),
    );
    for (name, path) in oracle::fixture_paths(&fixtures_dir()) {
        let fx = common::parse_fixture(&name, &std::fs::read_to_string(&path).expect("read"));
        assert!(
            !funcs::is_helmfile(&fx),
            "{name}: Helmfile fixtures belong in testdata/funcs/helmfile/"
        );
        let tally = if fx.level == LanguageLevel::Go122 {
            &mut v3
        } else {
            &mut v4
        };
        if let Some(reason) = &fx.oracle_skip {
            eprintln!("skip {name}: {reason}");
            tally.skipped += 1;
            continue;
        }
        let ours = funcs::run_helm(&fx, funcs::helm_funcs(&fx));
        tally.record(&name, oracle::helm_check(&oracles, &work, &fx, &ours));
        let stem = name.trim_end_matches(".txt");
        let has_twin = fixtures_dir().join(format!("{stem}_v4.txt")).exists();
        if fx.level == LanguageLevel::Go122 && !has_twin && !stem.ends_with("_v3") {
            let mut fx4 = fx;
            fx4.level = LanguageLevel::Go127;
            let ours = funcs::run_helm(&fx4, funcs::helm_funcs(&fx4));
            v4_rerun.record(&name, oracle::helm_check(&oracles, &work, &fx4, &ours));
        }
    }
    let _ = std::fs::remove_dir_all(&work);
    v3.print("helm v3.15.3");
    v4.print("helm v4.3.1");
    v4_rerun.print("helm v4.3.1, Helm 3 fixtures re-run");
    let bad = v3.disagree.len() + v4.disagree.len() + v4_rerun.disagree.len();
    assert!(bad == 0, "{bad} function fixtures disagree with helm");
}

#[test]
fn helmfile_funcs_agree_with_helmfile() {
    let Some(oracles) = oracle::oracle_dir().filter(|d| d.join("helmfile").exists()) else {
        eprintln!("STACKPROOF_ORACLES not set or has no helmfile: skipping the oracle check");
        return;
    };
    let work = work_dir("helmfile");
    let mut tally = oracle::Tally::default();
    for (name, path) in oracle::fixture_paths(&fixtures_dir().join("helmfile")) {
        let fx = common::parse_fixture(&name, &std::fs::read_to_string(&path).expect("read"));
        assert!(
            funcs::is_helmfile(&fx),
            "{name}: fixtures in testdata/funcs/helmfile/ need `registry=helmfile`"
        );
        if let Some(reason) = &fx.oracle_skip {
            eprintln!("skip {name}: {reason}");
            tally.skipped += 1;
            continue;
        }
        let dir = work.join("stack");
        let ours = funcs::run_helmfile(&fx, &dir);
        tally.record(&name, oracle::helmfile_check(&oracles, &dir, &fx, &ours));
    }
    let _ = std::fs::remove_dir_all(&work);
    tally.print("helmfile v0.166.0");
    assert!(
        tally.disagree.is_empty(),
        "{} function fixtures disagree with helmfile",
        tally.disagree.len()
    );
}
