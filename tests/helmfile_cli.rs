//! `stackproof helmfile` as a process, where helmfile's behaviour is about the
//! process rather than a stack: run without a command (flags or not), helmfile
//! prints its help on stdout and exits 0.

use std::process::Command;

fn run(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_stackproof"))
        .arg("helmfile")
        .args(args)
        .current_dir(std::env::temp_dir())
        .output()
        .expect("the stackproof binary runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn without_a_command_prints_help_on_stdout_and_succeeds() {
    for args in [
        &[][..],
        &["--file", "nothing.yaml"],
        &["-e", "prod", "--debug"],
    ] {
        let (code, stdout, stderr) = run(args);
        assert_eq!(code, Some(0), "{args:?}: {stderr}");
        assert!(
            stdout.contains("Usage: stackproof helmfile"),
            "{args:?}: {stdout}"
        );
        for command in ["list", "write-values", "template"] {
            assert!(
                stdout.contains(command),
                "{args:?} help names {command}: {stdout}"
            );
        }
        assert_eq!(stderr, "", "{args:?}");
    }
}

#[test]
fn an_unknown_command_still_fails() {
    let (code, _, stderr) = run(&["no-such-command"]);
    assert_ne!(code, Some(0));
    assert!(stderr.contains("no-such-command"), "{stderr}");
}

/// An `--output-file-template` that does not parse fails as Helmfile words it
/// (helmfile 0.166.0 prints exactly this line), and writes nothing.
#[test]
fn an_output_file_template_that_does_not_parse_names_the_template() {
    let stack = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("charts-under-test/helmfile/stack-charts/repo-form-path.yaml");
    let out = std::env::temp_dir().join(format!("sp-ofile-{}", std::process::id()));
    let template = format!("{}/{{{{ .Release.Name", out.display());
    let (code, _, stderr) = run(&[
        "--file",
        &stack.display().to_string(),
        "write-values",
        "--skip-deps",
        "--output-file-template",
        &template,
    ]);
    assert_eq!(code, Some(1), "{stderr}");
    let want = format!(
        "parsing output-file template \"{template}\": template: output-file:1: unclosed action"
    );
    assert!(stderr.contains(&want), "{stderr}");
    assert!(!out.exists(), "nothing is written");
}
