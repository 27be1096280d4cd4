//! Printer output for a fixed set of findings, in every format (insta snapshots). The
//! findings come from the fixture stacks, so the snapshots also pin locations, labels
//! and message texts end to end.

use std::time::Duration;

use stackproof::report::{self, Format, Report};

mod rules_support;

fn report(cells: &[&str], rules: &[&str]) -> Report {
    let mut r = rules_support::check(&rules_support::filters(cells, rules));
    r.summary.elapsed = Duration::from_millis(0);
    r
}

fn sample() -> Report {
    report(
        &["broken", "mode=existingSecret"],
        &[
            "type-is-fires",
            "no-private-key-fires",
            "key-not-trusted-fires",
            "unique-quiet",
            "absent-quiet",
        ],
    )
}

#[test]
fn human() {
    insta::assert_snapshot!(report::render(&sample(), Format::Human, false));
}

#[test]
fn json() {
    insta::assert_snapshot!(report::render(&sample(), Format::Json, false));
}

#[test]
fn sarif() {
    let text = report::render(&sample(), Format::Sarif, false);
    let v: serde_json::Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(v["version"], "2.1.0");
    insta::assert_snapshot!(text);
}

#[test]
fn junit() {
    insta::assert_snapshot!(report::render(&sample(), Format::Junit, false));
}

#[test]
fn github() {
    insta::assert_snapshot!(report::render(&sample(), Format::Github, false));
}

#[test]
fn clean_run_prints_only_the_summary() {
    let r = report(&["mode=certManager"], &["*-quiet*"]);
    assert!(r.findings.is_empty());
    assert_eq!(r.exit_code(), 0);
    insta::assert_snapshot!(report::render(&r, Format::Human, false), @"1 target, 1 cell, 27 rules, 0 findings in 0.00s");
}

#[test]
fn output_is_deterministic() {
    let a = report::render(&sample(), Format::Json, false);
    for _ in 0..3 {
        assert_eq!(a, report::render(&sample(), Format::Json, false));
    }
}
