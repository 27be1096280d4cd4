//! Shared by the NVCF mirror tests: runs `stackproof check` in-process on one of the
//! configurations in `charts-under-test/nvcf-mirror/`.
// Each test crate that includes this module uses only some of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use stackproof::cli::check::{run_check, Filters};
use stackproof::matrix::config::{load, LoadOptions};
use stackproof::matrix::render::Renderers;
use stackproof::report::Report;

/// The repository root (where reports' paths are shown from).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Checks a configuration given by path.
pub fn check_path(config: &Path) -> Report {
    let cfg = load(
        config,
        &LoadOptions {
            root: None,
            display_base: Some(root()),
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    run_check(&cfg, &Renderers::builtin(), &Filters::default()).unwrap_or_else(|e| panic!("{e}"))
}

/// Checks `charts-under-test/nvcf-mirror/<file>`.
pub fn check(file: &str) -> Report {
    check_path(&root().join("charts-under-test/nvcf-mirror").join(file))
}
