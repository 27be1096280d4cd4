//! The `chart` target: a plain chart rendered natively across a matrix, with values
//! traced to the values file line that set them and documents to their template.

use std::path::PathBuf;

use stackproof::cli::check::{run_check, Filters};
use stackproof::matrix::config::{load, LoadOptions};
use stackproof::matrix::render::Renderers;
use stackproof::report::Status;

#[test]
fn chart_cells_render_and_check() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/rules");
    let cfg = load(
        &dir.join("chart.stackproof.yaml"),
        &LoadOptions {
            root: None,
            display_base: Some(dir.clone()),
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let names: Vec<&str> = cfg.targets[0]
        .cells
        .iter()
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(
        names,
        [
            "tls=true,mode=certManager",
            "tls=true,mode=existingSecret",
            "tls=false,mode=certManager",
            "bad-mode"
        ]
    );
    let r = run_check(&cfg, &Renderers::builtin(), &Filters::default())
        .unwrap_or_else(|e| panic!("{e}"));
    let lines: Vec<String> = r
        .findings
        .iter()
        .map(|f| {
            let at: Vec<String> = f
                .locations
                .iter()
                .map(|l| format!("{} {}:{}", l.role.as_str(), l.file, l.line))
                .collect();
            format!(
                "[{}] {}: {}\n    {}",
                f.cell,
                f.rule,
                f.message,
                at.join("\n    ")
            )
        })
        .collect();
    insta::assert_snapshot!(lines.join("\n"));

    let passed = |rule: &str, cell: &str| {
        r.outcomes
            .iter()
            .any(|o| o.rule == rule && o.cell == cell && o.status == Status::Passed)
    };
    // The guard refuses the bogus mode, and that cell checks nothing else.
    assert!(passed("web/bad-mode-refused", "bad-mode"));
    assert_eq!(
        r.outcomes.iter().filter(|o| o.cell == "bad-mode").count(),
        1
    );
    // cert-manager mode: the Certificate covers the host the values configure, and the
    // Secret it produces satisfies the Deployment's mount.
    assert!(passed(
        "web/certificate-covers-host",
        "tls=true,mode=certManager"
    ));
    assert!(passed(
        "web/tls-references-resolve",
        "tls=true,mode=certManager"
    ));
    // Helm reads numbers as float64; an integral one is still an integer.
    assert!(passed("web/replicas-integer", "tls=false,mode=certManager"));
}
