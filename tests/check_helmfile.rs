//! The `helmfile` target: a Helmfile stack rendered natively across a matrix. A
//! release whose chart is missing fails only its own manifests (and, as in Helmfile,
//! those of releases templated after it); state and values rules still run.

use std::path::PathBuf;

use stackproof::cli::check::{run_check, Filters};
use stackproof::matrix::config::{load, LoadOptions};
use stackproof::matrix::render::Renderers;
use stackproof::report::Status;

#[test]
fn stack_cells_render_and_check() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let dir = root.join("testdata/rules");
    let cfg = load(
        &dir.join("stack.stackproof.yaml"),
        &LoadOptions {
            root: None,
            display_base: Some(dir.clone()),
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let r = run_check(&cfg, &Renderers::builtin(), &Filters::default())
        .unwrap_or_else(|e| panic!("{e}"));
    let repo = root.display().to_string();
    let lines: Vec<String> = r
        .findings
        .iter()
        .map(|f| {
            let at = f
                .primary()
                .map(|l| format!("{}:{}", l.file, l.line))
                .unwrap_or_default();
            format!(
                "[{}] {} | {} | {}\n    {}",
                f.cell,
                f.rule,
                f.release.clone().unwrap_or_default(),
                at.replace(&repo, "<repo>"),
                f.message.replace(&repo, "<repo>")
            )
        })
        .collect();
    insta::assert_snapshot!(lines.join("\n"));

    let status = |rule: &str, cell: &str| {
        r.outcomes
            .iter()
            .find(|o| o.rule == rule && o.cell == cell)
            .map(|o| o.status.clone())
    };
    for rule in [
        "stack/needs-resolve",
        "stack/services-labelled",
        "stack/tls-mode-known",
    ] {
        for cell in [
            "mode=certManager",
            "mode=existingSecret",
            "with-missing-chart",
        ] {
            assert_eq!(status(rule, cell), Some(Status::Passed), "{rule} in {cell}");
        }
    }
    assert_eq!(
        status("stack/web-certificate", "mode=certManager"),
        Some(Status::Passed)
    );
    assert!(matches!(
        status("stack/web-certificate", "mode=existingSecret"),
        Some(Status::Skipped { .. })
    ));
}

/// A stack whose releases name post-renderers renders only when the target allows
/// programs to run; then the manifests layer holds what the programs printed.
#[test]
fn post_renderers_run_only_when_the_target_allows_it() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/rules");
    let run = |file: &str| {
        let cfg = load(
            &dir.join(file),
            &LoadOptions {
                root: None,
                display_base: Some(dir.clone()),
            },
        )
        .unwrap_or_else(|e| panic!("{e}"));
        run_check(&cfg, &Renderers::builtin(), &Filters::default())
            .unwrap_or_else(|e| panic!("{e}"))
    };
    let status = |r: &stackproof::report::Report| {
        r.outcomes
            .iter()
            .find(|o| o.rule == "postrender/added-document")
            .map(|o| o.status.clone())
    };
    let allowed = run("postrender.stackproof.yaml");
    assert_eq!(
        status(&allowed),
        Some(Status::Passed),
        "{:?}",
        allowed.findings
    );
    assert_eq!(allowed.exit_code(), 0);
    let refused = run("postrender-refused.stackproof.yaml");
    assert_ne!(status(&refused), Some(Status::Passed));
    assert_eq!(refused.exit_code(), 1);
    assert!(
        refused.findings.iter().any(|f| f
            .message
            .contains("stackproof runs programs only with --allow-exec")),
        "{:?}",
        refused.findings
    );
}
