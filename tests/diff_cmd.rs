//! `stackproof diff` on the two versions of a small stack in `charts-under-test/diff/`:
//! the printed diff (snapshot), diff(1)'s exit codes, the git path (`--base REV`, the
//! same change committed in a scratch repository) and its errors.

use std::path::{Path, PathBuf};
use std::process::Command;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("charts-under-test/diff")
}

fn stackproof(cwd: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_stackproof"))
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .args(args)
        .output()
        .expect("run stackproof");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `stackproof diff` of after/ against before/ (or another base directory).
fn diff_against(base: &str, extra: &[&str]) -> (i32, String, String) {
    let mut args = vec![
        "diff",
        "--config",
        "after/stackproof.yaml",
        "--base-dir",
        base,
    ];
    args.extend_from_slice(extra);
    stackproof(&dir(), &args)
}

#[test]
fn base_dir_diff_shows_every_layer() {
    let (code, out, err) = diff_against("before", &[]);
    assert_eq!(code, 1, "differences exit 1; stderr: {err}");
    insta::assert_snapshot!("diff_before_after", out);
}

#[test]
fn no_change_exits_zero() {
    let (code, out, err) = diff_against("after", &[]);
    assert_eq!(code, 0, "stderr: {err}");
    assert_eq!(
        out,
        "2 cells compared: 0 changed, 0 added, 0 removed (0 distinct changes shown)\n"
    );
}

#[test]
fn json_lists_changes() {
    let (code, out, _) = diff_against("before", &["--cell", "tier=large", "--json"]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["cells"], 1);
    let changes = v["changes"].as_array().expect("changes");
    assert!(changes.iter().any(|c| c["layer"] == "manifests"
        && c["kind"] == "changed"
        && c["item"] == "shop/web: Deployment web"
        && c["removed"] == 2
        && c["added"] == 5));
}

fn copy_tree(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).expect("read_dir") {
        let entry = entry.expect("entry");
        let dest = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            std::fs::create_dir_all(&dest).expect("mkdir");
            copy_tree(&entry.path(), &dest);
        } else {
            std::fs::copy(entry.path(), &dest).expect("copy");
        }
    }
}

fn git(repo: &Path, args: &[&str]) -> bool {
    Command::new("git")
        .current_dir(repo)
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

#[test]
fn git_revision_as_base() {
    if Command::new("git").arg("--version").output().is_err() {
        eprintln!("git is not installed: skipping the --base REV test");
        return;
    }
    let repo = std::env::temp_dir().join(format!("stackproof-diff-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&repo);
    let stack = repo.join("stack");
    std::fs::create_dir_all(&stack).expect("mkdir");
    copy_tree(&dir().join("before"), &stack);
    assert!(git(&repo, &["init", "-q"]));
    assert!(git(&repo, &["add", "-A"]));
    assert!(git(&repo, &["commit", "-q", "-m", "before"]));
    // The working tree becomes the new version.
    std::fs::remove_dir_all(&stack).expect("rm");
    std::fs::create_dir_all(&stack).expect("mkdir");
    copy_tree(&dir().join("after"), &stack);

    let (code, out, err) = stackproof(
        &repo,
        &[
            "diff",
            "--config",
            "stack/stackproof.yaml",
            "--base",
            "HEAD",
        ],
    );
    let (_, expected, _) = diff_against("before", &[]);
    assert_eq!(code, 1, "stderr: {err}");
    assert_eq!(out, expected.replace("base/", "HEAD/"));

    let (code, out, err) = stackproof(
        &repo,
        &[
            "diff",
            "--config",
            "stack/stackproof.yaml",
            "--base",
            "no-such-rev",
        ],
    );
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert!(
        err.contains("--base no-such-rev: no such revision"),
        "{err}"
    );
    // The checked tree is untouched: only the files we put there.
    assert!(!stack.join("charts/web/templates/configmap.yaml").exists());
    let _ = std::fs::remove_dir_all(&repo);
}

#[test]
fn missing_base_dir_is_a_usage_error() {
    let (code, out, err) = diff_against("nope", &[]);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert!(err.contains("not a directory"), "{err}");
}
