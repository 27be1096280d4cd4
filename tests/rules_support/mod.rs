//! Runs `testdata/rules/stackproof.yaml` (the rule kinds' fixture stack) with a
//! filter, for the tests that check rule kinds and the report printers.

use std::path::PathBuf;

use stackproof::cli::check::{run_check, Filters};
use stackproof::matrix::config::{load, LoadOptions};
use stackproof::matrix::render::Renderers;
use stackproof::report::Report;

pub fn testdata() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/rules")
}

/// Filters naming cells and rules (globs as on the command line).
pub fn filters(cells: &[&str], rules: &[&str]) -> Filters {
    Filters {
        rules: rules.iter().map(|s| s.to_string()).collect(),
        cells: cells.iter().map(|s| s.to_string()).collect(),
        targets: Vec::new(),
    }
}

pub fn check(filters: &Filters) -> Report {
    let dir = testdata();
    let cfg = load(
        &dir.join("stackproof.yaml"),
        &LoadOptions {
            root: None,
            display_base: Some(dir.clone()),
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    run_check(&cfg, &Renderers::builtin(), filters).unwrap_or_else(|e| panic!("{e}"))
}
