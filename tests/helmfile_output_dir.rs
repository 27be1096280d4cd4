//! `stackproof helmfile template --output-dir`, run as a process: the files it
//! writes must be the ones the real helmfile 0.166 + helm 3.15 wrote for the same
//! case (`charts-under-test/helmfile/expected/outdir-abs/files`, made by its
//! `regen.sh`, with the state path's hash in folder names shown as `HASH`), stdout
//! stays empty as Helmfile's does, helm's `wrote` lines go to stderr, and a second
//! run into the same folder appends the hooks again, as helm does (checked with the
//! real helmfile: hooks.yaml and tests/check.yaml doubled, the rest replaced).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("charts-under-test/helmfile")
}

fn run(out_dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_stackproof"))
        .current_dir(root().join("stack-outdir"))
        .args(["helmfile", "template", "--output-dir"])
        .arg(out_dir)
        .output()
        .expect("run stackproof")
}

/// A fresh, empty directory under the system's temp dir (removed on drop).
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let p = std::env::temp_dir().join(format!(
            "stackproof-helmfile-outdir-{tag}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).expect("create temp dir");
        TempDir(p)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Every file under `dir` by relative path, with folder names' `-<8 hex>-` as
/// `-HASH-`.
fn tree(dir: &Path) -> BTreeMap<String, String> {
    fn mask(name: &str) -> String {
        let b = name.as_bytes();
        match (0..b.len().saturating_sub(9)).find(|&i| {
            b[i] == b'-' && b[i + 9] == b'-' && b[i + 1..i + 9].iter().all(u8::is_ascii_hexdigit)
        }) {
            Some(i) => format!("{}-HASH-{}", &name[..i], &name[i + 10..]),
            None => name.to_string(),
        }
    }
    fn walk(dir: &Path, shown: &str, out: &mut BTreeMap<String, String>) {
        for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let p = e.path();
            if p.is_dir() {
                walk(&p, &format!("{shown}{}/", mask(&name)), out);
            } else {
                let text = std::fs::read_to_string(&p).unwrap_or_default();
                out.insert(format!("{shown}{name}"), text);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, "", &mut out);
    out
}

#[test]
fn writes_what_helmfile_writes() {
    let tmp = TempDir::new("abs");
    let out = run(&tmp.0);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(out.stdout.is_empty(), "stdout: {:?}", out.stdout);
    let want = tree(&root().join("expected/outdir-abs/files/OUT"));
    assert_eq!(want.len(), 9, "the expected tree is incomplete");
    assert_eq!(tree(&tmp.0), want);
    // helm's `wrote` lines, as Helmfile logs them.
    let wrote: Vec<&str> = stderr.lines().filter(|l| l.starts_with("wrote ")).collect();
    assert_eq!(wrote.len(), 13, "{stderr}");
    assert!(wrote[0].starts_with(&format!("wrote {}/helmfile-", tmp.0.display())));
    assert!(
        wrote[0].ends_with("-third/echo/templates/cm.yaml"),
        "{}",
        wrote[0]
    );
}

#[test]
fn a_second_run_appends_hooks_and_replaces_the_rest() {
    let tmp = TempDir::new("again");
    assert_eq!(run(&tmp.0).status.code(), Some(0));
    let first = tree(&tmp.0);
    assert_eq!(run(&tmp.0).status.code(), Some(0));
    let second = tree(&tmp.0);
    assert_eq!(
        first.keys().collect::<Vec<_>>(),
        second.keys().collect::<Vec<_>>()
    );
    for (name, text) in &second {
        // Test hooks are hooks too.
        if name.ends_with("templates/hooks.yaml") || name.ends_with("tests/check.yaml") {
            assert_eq!(*text, format!("{}{}", first[name], first[name]), "{name}");
        } else {
            assert_eq!(*text, first[name], "{name}");
        }
    }
}
