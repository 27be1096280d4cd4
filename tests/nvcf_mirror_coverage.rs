//! Every rule of the NVCF pack (`rules/nvcf/*.yaml`) is proven on the self-contained
//! mirror (`charts-under-test/nvcf-mirror/`): it passes in at least one cell of a
//! passing configuration (`*stackproof.yaml`), and it fires in at least one broken
//! configuration (`*broken.stackproof.yaml`). The mirror's own tests say which target
//! aims at which rule; this one makes sure no rule of the pack is left out of them, so
//! a rule added to the pack without a mirror scenario fails here. No ../shared needed.

mod mirror_support;

use mirror_support::{check_path as check, root};
use std::collections::BTreeSet;
use std::path::PathBuf;

use stackproof::report::Status;

/// The pack's rule ids, from its rule files.
fn pack_rules() -> BTreeSet<String> {
    let dir = root().join("rules/nvcf");
    let mut ids = BTreeSet::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .filter(|p| p.file_name().is_some_and(|n| n != "stackproof.yaml"))
        .collect();
    files.sort();
    for f in files {
        let rules = stackproof::rules::load::load_file(&f, &f.display().to_string())
            .unwrap_or_else(|e| panic!("{e}"));
        ids.extend(rules.into_iter().map(|r| r.id));
    }
    ids
}

/// The mirror's configurations: (passing, broken).
fn mirror_configs() -> (Vec<PathBuf>, Vec<PathBuf>) {
    let dir = root().join("charts-under-test/nvcf-mirror");
    let mut all: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.ends_with("stackproof.yaml"))
        })
        .collect();
    all.sort();
    all.into_iter().partition(|p| {
        !p.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.ends_with("broken.stackproof.yaml"))
    })
}

#[test]
fn every_pack_rule_both_passes_and_fires_on_the_mirror() {
    let pack = pack_rules();
    assert!(pack.len() > 100, "the pack should be loaded: {pack:?}");
    let (passing, broken) = mirror_configs();
    assert!(!passing.is_empty() && !broken.is_empty());

    let mut passed = BTreeSet::new();
    for c in &passing {
        let r = check(c);
        assert!(
            r.findings.is_empty(),
            "{} should pass, found: {:?}",
            c.display(),
            r.findings.iter().map(|f| &f.rule).collect::<Vec<_>>()
        );
        passed.extend(
            r.outcomes
                .iter()
                .filter(|o| o.status == Status::Passed)
                .map(|o| o.rule.clone()),
        );
    }
    let mut fired = BTreeSet::new();
    for c in &broken {
        let r = check(c);
        assert_eq!(r.exit_code(), 1, "{} should have findings", c.display());
        fired.extend(r.findings.iter().map(|f| f.rule.clone()));
    }

    let never_passed: Vec<&String> = pack.difference(&passed).collect();
    let never_fired: Vec<&String> = pack.difference(&fired).collect();
    assert!(
        never_passed.is_empty() && never_fired.is_empty(),
        "pack rules never passing on a passing mirror config: {never_passed:#?}\n\
         pack rules never firing on a broken mirror config: {never_fired:#?}"
    );
}
