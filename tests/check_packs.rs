//! The rule packs under `rules/packs/` load, hold on the good fixture stacks and catch
//! the defects of the broken one.

use std::path::PathBuf;
use std::time::Duration;

use stackproof::cli::check::{run_check, Filters};
use stackproof::matrix::config::{load, LoadOptions};
use stackproof::matrix::render::Renderers;
use stackproof::report::{self, Format, Report};

fn report(cells: &[&str]) -> Report {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/rules");
    let cfg = load(
        &dir.join("packs.stackproof.yaml"),
        &LoadOptions {
            root: None,
            display_base: Some(dir.clone()),
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let filters = Filters {
        cells: cells.iter().map(|s| s.to_string()).collect(),
        ..Filters::default()
    };
    let mut r = run_check(&cfg, &Renderers::builtin(), &filters).unwrap_or_else(|e| panic!("{e}"));
    r.summary.elapsed = Duration::ZERO;
    r
}

#[test]
fn packs_hold_on_the_good_stack() {
    let r = report(&["mode=certManager"]);
    assert!(
        r.findings.is_empty(),
        "{}",
        report::render(&r, Format::Human, false)
    );
}

#[test]
fn existing_secret_mode_needs_its_secret_declared() {
    // The operator-owned Secret lives outside the stack, and the generic pack cannot
    // know that: exactly that reference is reported, nothing else.
    let r = report(&["mode=existingSecret"]);
    let got: Vec<(&str, &str)> = r
        .findings
        .iter()
        .map(|f| (f.rule.as_str(), f.message.as_str()))
        .collect();
    assert_eq!(
        got,
        [(
            "stack/references-resolve",
            "Deployment apps/router references Secret/apps/operator-tls, which is neither rendered in this cell nor declared pre-existing"
        )]
    );
}

#[test]
fn packs_catch_the_broken_stack() {
    let r = report(&["broken"]);
    let lines: Vec<String> = r
        .findings
        .iter()
        .map(|f| format!("{} | {}", f.rule, f.message))
        .collect();
    insta::assert_snapshot!(lines.join("\n"));
}
