//! A release of a repository chart renders as the version `helmfile.lock` pinned
//! for it (`list` against the real helmfile is in `helmfile_stacks.rs`, cases
//! `lock-*`; the real `template` would download the chart, so here the chart comes
//! from a local source and must render stamped with the locked version).

use std::collections::BTreeMap;
use std::path::Path;

use clap::Parser;
use stackproof::cli::helmfile::{input_from_args, HelmfileArgs};
use stackproof::helmfile::render_stack;

#[derive(Parser)]
#[command(name = "helmfile")]
struct Wrapper {
    #[command(flatten)]
    args: HelmfileArgs,
}

fn template(dir: &str, extra: &[&str]) -> stackproof::helmfile::StackRender {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("charts-under-test/helmfile");
    let mut argv = vec!["helmfile", "--chart-map", "stable/echo=../../charts/echo"];
    argv.extend(extra);
    argv.push("template");
    let parsed = Wrapper::try_parse_from(&argv).unwrap_or_else(|e| panic!("{e}"));
    let input = input_from_args(&parsed.args, &root.join(dir), BTreeMap::new())
        .unwrap_or_else(|e| panic!("{e}"));
    render_stack(&input)
}

#[test]
fn locked_versions_are_rendered() {
    let out = template("stack-lock/named", &[]);
    assert_eq!(out.exit_code, 0, "{:?}", out.error);
    assert!(out.stdout.contains("chart: echo-3.1.4\n"), "{}", out.stdout);
    // No lock file for prod: the chart's own version.
    let out = template("stack-lock/named", &["-e", "prod"]);
    assert_eq!(out.exit_code, 0, "{:?}", out.error);
    assert!(out.stdout.contains("chart: echo-0.1.0\n"), "{}", out.stdout);
}
