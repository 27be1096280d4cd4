//! What `stackproof template` says on stderr when it renders successfully but could
//! not check everything helm would have: a values schema whose `$ref`s point into
//! another document (helm downloads it; stackproof reads nothing over the network).
//! Uses `charts-under-test/remote-schema/`.

use std::path::Path;
use std::process::Command;

fn run(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_stackproof"))
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("charts-under-test"))
        .args(args)
        .output()
        .expect("run stackproof");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn remote_schema_refs_are_reported_once_per_document() {
    for v in ["3", "4"] {
        let (code, out, err) = run(&["template", "rel", "remote-schema", "--helm-version", v]);
        assert_eq!(code, Some(0), "{err}");
        assert!(out.contains("replicas: \"2\""), "{out}");
        let warnings: Vec<&str> = err.lines().filter(|l| l.starts_with("WARNING:")).collect();
        assert_eq!(
            warnings,
            ["WARNING: remote-schema: values.schema.json refers to https://schemas.example.com/k8s/v1.30/_definitions.json, which stackproof does not download: values were not checked against it"],
            "helm {v}"
        );
    }
    // The local part of the schema is still enforced.
    let (code, _, err) = run(&["template", "rel", "remote-schema", "--set", "replicas=0"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("replicas"), "{err}");
    // Skipping validation skips the warning too: nothing was going to be checked.
    let (_, _, err) = run(&[
        "template",
        "rel",
        "remote-schema",
        "--helm-version",
        "4",
        "--skip-schema-validation",
    ]);
    assert!(!err.contains("WARNING"), "{err}");
}
