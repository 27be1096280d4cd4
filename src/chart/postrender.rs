//! Helm 3's `--post-renderer`: a program that receives the rendered manifests on
//! stdin and whose stdout replaces them (hooks excepted), as `helm template` runs
//! it.
//!
//! Why it is here at all: stackproof renders natively, but a stack whose releases
//! name a post-renderer (often kustomize) prints what that program makes of the
//! manifests, and checking the plain render would check something that is never
//! deployed. Running programs is opt-in (`--allow-exec`), as for Helmfile's `exec`;
//! without it the post-renderer is refused by name. The program is found and run
//! the way Helm's `postrender.NewExec` does, and fails with Helm's words.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A post-renderer resolved to the program Helm would run.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PostRenderer {
    /// Absolute path of the program.
    pub program: PathBuf,
    pub args: Vec<String>,
}

impl PostRenderer {
    /// Finds the program as Helm does (`exec.LookPath`, then made absolute): a
    /// name without a slash is searched on `PATH`, anything else is taken relative
    /// to `cwd` (the directory Helm would run in). The error is Helm's text after
    /// `invalid argument "P" for "--post-renderer" flag: `.
    pub fn resolve(path: &str, args: Vec<String>, cwd: &Path) -> Result<PostRenderer, String> {
        let found = if path.contains('/') {
            let p = cwd.join(path);
            match std::fs::metadata(&p) {
                Err(e) => Err(format!("exec: {path:?}: stat {path}: {}", io_text(&e))),
                Ok(m) if m.is_dir() || !crate::source::is_executable(&m) => {
                    Err(format!("exec: {path:?}: permission denied"))
                }
                Ok(_) => Ok(p),
            }
        } else {
            crate::source::search_path(path)
                .ok_or_else(|| format!("exec: {path:?}: executable file not found in $PATH"))
        };
        match found {
            Ok(program) => Ok(PostRenderer {
                program: clean(&program),
                args,
            }),
            Err(e) => Err(format!("unable to find binary at {path}: {e}")),
        }
    }

    /// Pipes `manifests` through the program and returns its stdout. The error is
    /// Helm's text after `error while running post render on files: `.
    pub fn run(&self, manifests: &str) -> Result<String, String> {
        let shown = self.program.display();
        let failed = |stderr: &str, why: String| {
            format!("error while running command {shown}. error output:\n{stderr}: {why}")
        };
        let child = Command::new(&self.program)
            .args(&self.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn();
        let mut child = match child {
            Ok(c) => c,
            Err(e) => return Err(failed("", io_text(&e))),
        };
        // Written from a thread, as Helm does from a goroutine: a program that
        // prints before it has read everything would otherwise fill its stdout
        // pipe while we still wait to write its stdin.
        let stdin = child.stdin.take();
        let input = manifests.to_string();
        let writer = std::thread::spawn(move || {
            if let Some(mut s) = stdin {
                // A program that exits without reading is not an error in Helm.
                let _ = s.write_all(input.as_bytes());
            }
        });
        let out = child.wait_with_output();
        let _ = writer.join();
        let out = out.map_err(|e| failed("", io_text(&e)))?;
        if !out.status.success() {
            return Err(failed(
                &String::from_utf8_lossy(&out.stderr),
                exit_text(&out.status),
            ));
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }
}

/// `filepath.Abs` of an already absolute or `cwd`-joined path: lexically cleaned
/// (`.` dropped, `..` taking back a component), links left alone.
fn clean(p: &Path) -> PathBuf {
    use std::path::Component;
    let p = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// Go's `*exec.ExitError` text.
fn exit_text(status: &std::process::ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            return format!("signal: {}", signal_name(sig));
        }
    }
    match status.code() {
        Some(c) => format!("exit status {c}"),
        None => "exit status -1".to_string(),
    }
}

#[cfg(unix)]
fn signal_name(sig: i32) -> String {
    match sig {
        6 => "aborted".into(),
        9 => "killed".into(),
        11 => "segmentation fault".into(),
        13 => "broken pipe".into(),
        15 => "terminated".into(),
        n => format!("signal {n}"),
    }
}

/// Go's text for the common I/O errors (`no such file or directory`), without
/// Rust's ` (os error N)` suffix.
fn io_text(e: &std::io::Error) -> String {
    let s = e.to_string();
    let s = match s.find(" (os error") {
        Some(i) => s[..i].to_string(),
        None => s,
    };
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_lowercase().collect::<String>() + c.as_str(),
        None => s,
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!(
            "stackproof-postrender-{}-{name}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap_or_else(|e| panic!("{e}"));
        d
    }

    fn script(dir: &Path, name: &str, body: &str) {
        let p = dir.join(name);
        std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap_or_else(|e| panic!("{e}"));
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755))
            .unwrap_or_else(|e| panic!("{e}"));
    }

    #[test]
    fn pipes_manifests_through_the_program_with_its_args() {
        let d = scratch("pipes");
        script(&d, "pr.sh", "echo \"# args: $*\"; cat");
        let pr = PostRenderer::resolve("./pr.sh", vec!["a".into(), "b c".into()], &d)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(pr.program.is_absolute());
        assert_eq!(
            pr.run("---\nkind: X\n").as_deref(),
            Ok("# args: a b c\n---\nkind: X\n")
        );
    }

    #[test]
    fn failures_use_helms_words() {
        let d = scratch("failures");
        script(&d, "bad.sh", "echo oops >&2; exit 3");
        let pr = PostRenderer::resolve("./bad.sh", vec![], &d).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            pr.run("x").err(),
            Some(format!(
                "error while running command {}. error output:\noops\n: exit status 3",
                &d.join("bad.sh").display()
            ))
        );
        assert_eq!(
            PostRenderer::resolve("./nope.sh", vec![], &d).err(),
            Some("unable to find binary at ./nope.sh: exec: \"./nope.sh\": stat ./nope.sh: no such file or directory".into())
        );
        assert_eq!(
            PostRenderer::resolve("surely-no-such-program-here", vec![], &d).err(),
            Some("unable to find binary at surely-no-such-program-here: exec: \"surely-no-such-program-here\": executable file not found in $PATH".into())
        );
    }
}
