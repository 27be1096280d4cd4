//! `stackproof template --post-renderer` (with `--allow-exec`) prints what the real
//! `helm template` v3.15.3 prints for each case of
//! `charts-under-test/postrender/cases.tsv` (`regen.sh` recorded it): the program
//! gets the manifests with CRDs and without hooks, its output replaces them, hooks
//! and `--show-only` apply afterwards, and failures use Helm's words. Without
//! `--allow-exec` nothing is run, and Helm 4 mode (where the flag names a plugin)
//! refuses it.

mod chart_support;

use std::path::{Path, PathBuf};
use std::process::Command;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("charts-under-test/postrender")
}

fn stackproof(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_stackproof"))
        .current_dir(dir())
        .args(["template", "rel", "chart", "--namespace", "ns"])
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("run stackproof: {e}"))
}

#[test]
fn post_rendered_output_matches_helm() {
    let root = dir();
    let cases = std::fs::read_to_string(root.join("cases.tsv"))
        .unwrap_or_else(|e| panic!("cases.tsv: {e}"));
    let mut failures = Vec::new();
    let mut checked = 0;
    for line in cases
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let (id, args) = line.split_once('\t').unwrap_or((line, ""));
        let exp = |ext: &str| {
            std::fs::read_to_string(root.join("expected").join(format!("{id}.{ext}")))
                .unwrap_or_else(|e| panic!("{id}.{ext}: {e}"))
        };
        let mut argv = vec!["--allow-exec"];
        argv.extend(args.split_whitespace());
        let out = stackproof(&argv);
        checked += 1;
        let want_rc: i32 = exp("rc").trim().parse().unwrap_or(-1);
        let rc = out.status.code().unwrap_or(-2);
        if rc != chart_support::expected_exit(want_rc) {
            failures.push(format!("{id}: exit code {rc}, helm {want_rc}"));
        }
        let stdout = String::from_utf8_lossy(&out.stdout);
        if stdout != exp("out") {
            let d = similar::TextDiff::from_lines(exp("out").as_str(), &*stdout)
                .unified_diff()
                .context_radius(1)
                .to_string();
            failures.push(format!("{id}: stdout differs:\n{d}"));
        }
        let stderr = String::from_utf8_lossy(&out.stderr);
        let (helm_part, _) = chart_support::split_location_note(&stderr);
        let want_err = exp("err").replace("@DIR@/", &format!("{}/", root.display()));
        if helm_part != want_err {
            failures.push(format!(
                "{id}: stderr differs:\n  helm: {want_err:?}\n  ours: {stderr:?}"
            ));
        }
    }
    assert!(checked >= 10, "only {checked} cases");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn nothing_runs_without_allow_exec() {
    // label.sh would print its marker line if it ran.
    for helm in ["3", "4"] {
        let out = stackproof(&["--helm-version", helm, "--post-renderer", "./label.sh"]);
        assert_eq!(out.status.code(), Some(2), "helm {helm}");
        assert!(out.stdout.is_empty(), "helm {helm}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.starts_with("Error: --post-renderer runs the "), "{err}");
    }
    let out = stackproof(&[
        "--helm-version",
        "4",
        "--allow-exec",
        "--post-renderer",
        "./label.sh",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("stackproof does not run plugins"), "{err}");
}
