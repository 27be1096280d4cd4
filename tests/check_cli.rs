//! The `stackproof` binary: exit codes (0 clean, 1 findings, 2 usage/config errors),
//! formats, and the documentation subcommands.

use std::path::PathBuf;
use std::process::{Command, Output};

fn testdata() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/rules")
}

fn stackproof(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_stackproof"))
        .args(args)
        .current_dir(testdata())
        .env("NO_COLOR", "1")
        .output()
        .unwrap_or_else(|e| panic!("{e}"))
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn clean_cells_exit_zero() {
    let out = stackproof(&["check", "--cell", "mode=certManager", "--rule", "*-quiet*"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    assert!(text(&out.stdout).contains("0 findings"));
}

#[test]
fn findings_exit_one_and_name_rule_cell_and_location() {
    let out = stackproof(&["check", "--cell", "broken", "--rule", "type-is-fires"]);
    assert_eq!(out.status.code(), Some(1));
    let s = text(&out.stdout);
    assert!(s.contains("type-is-fires"), "{s}");
    assert!(s.contains("stacks/broken/values/router.yaml:31:11"), "{s}");
    assert!(s.contains("cell broken of target demo"), "{s}");
    assert!(s.contains("1 finding (1 error)"), "{s}");
}

#[test]
fn the_config_is_discovered_from_the_working_directory() {
    let out = Command::new(env!("CARGO_BIN_EXE_stackproof"))
        .args([
            "check",
            "--cell",
            "mode=certManager",
            "--rule",
            "exists-quiet",
        ])
        .current_dir(testdata().join("stacks/cm"))
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

#[test]
fn json_output_is_machine_readable() {
    let out = stackproof(&[
        "check",
        "--cell",
        "broken",
        "--rule",
        "count-fires",
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(v["findings"][0]["rule"], "count-fires");
    assert_eq!(v["findings"][0]["cell"], "broken");
    assert_eq!(v["summary"]["findings"], 1);
}

#[test]
fn usage_and_config_errors_exit_two() {
    let out = stackproof(&["check", "--cell", "no-such-cell"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--cell no-such-cell: no cell has this name"));

    let out = stackproof(&["check", "--rule", "no-such-rule"]);
    assert_eq!(out.status.code(), Some(2));

    let out = stackproof(&["check", "--config", "missing.yaml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("cannot read missing.yaml"),
        "{}",
        text(&out.stderr)
    );

    let out = stackproof(&["check", "--format", "yaml"]);
    assert_eq!(out.status.code(), Some(2));

    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("check_cli-bad");
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(
        dir.join("stackproof.yaml"),
        "targets:\n  - name: t\n    fixtures: {}\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let out = Command::new(env!("CARGO_BIN_EXE_stackproof"))
        .args(["check"])
        .current_dir(&dir)
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("stackproof.yaml:3:5: unknown field `fixtures`"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn github_annotations() {
    let out = stackproof(&[
        "check",
        "--cell",
        "broken",
        "--rule",
        "type-is-fires",
        "--format",
        "github",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stdout).starts_with(
        "::error file=stacks/broken/values/router.yaml,line=31,col=11,title=type-is-fires (broken)::"
    ));
}

#[test]
fn rules_explain() {
    let out = stackproof(&["rules", "explain", "san-covers"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).starts_with("# san-covers\n"));
    let out = stackproof(&["rules", "explain", "nope"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn schema_prints_json() {
    let out = stackproof(&["schema", "config"]);
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(v["title"], "stackproof configuration");
}
