//! The bundled example (`charts-under-test/example/`): a small Helmfile stack of our own
//! with its rules. The main configuration passes with every rule evaluated somewhere;
//! the broken variant (two bugs reintroduced through virtual files) makes exactly the
//! rules aimed at those bugs fire, each pointing at the rendered line and template.

use std::collections::BTreeSet;
use std::path::PathBuf;

use stackproof::cli::check::{run_check, Filters};
use stackproof::matrix::config::{load, LoadOptions};
use stackproof::matrix::render::Renderers;
use stackproof::report::{self, Format, Report, Status};

fn check(file: &str) -> Report {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let cfg = load(
        &root.join("charts-under-test/example").join(file),
        &LoadOptions {
            root: None,
            display_base: Some(root.clone()),
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    run_check(&cfg, &Renderers::builtin(), &Filters::default()).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn example_passes_with_every_rule_exercised() {
    let r = check("stackproof.yaml");
    assert!(
        r.findings.is_empty(),
        "{}",
        report::render(&r, Format::Human, false)
    );
    assert_eq!(r.exit_code(), 0);
    let cells: BTreeSet<&str> = r.outcomes.iter().map(|o| o.cell.as_str()).collect();
    assert_eq!(
        cells,
        BTreeSet::from([
            "bad-mode",
            "mode=certManager,replicas=1",
            "mode=certManager,replicas=3",
            "mode=existingSecret,replicas=1",
            "mode=existingSecret,replicas=3",
        ])
    );
    for info in &r.rules {
        assert!(
            r.outcomes
                .iter()
                .any(|o| o.rule == info.id && o.status == Status::Passed),
            "rule {} never passed in any cell",
            info.id
        );
    }
}

#[test]
fn broken_example_fires_the_rules_aimed_at_its_bugs() {
    let r = check("broken.stackproof.yaml");
    assert_eq!(r.exit_code(), 1);
    let fired: BTreeSet<(&str, &str)> = r
        .findings
        .iter()
        .map(|f| (f.rule.as_str(), f.cell.as_str()))
        .collect();
    assert_eq!(
        fired,
        BTreeSet::from([
            ("shop/trust-bundle", "mode=certManager"),
            ("shop/trust-bundle", "mode=existingSecret"),
            (
                "shop/no-certificate-for-existing-secrets",
                "mode=existingSecret"
            ),
            ("shop/references-resolve", "mode=existingSecret"),
        ]),
        "{}",
        report::render(&r, Format::Human, false)
    );
    let key = r
        .findings
        .iter()
        .find(|f| f.rule == "shop/trust-bundle")
        .unwrap_or_else(|| panic!("no trust-bundle finding"));
    assert!(key.message.contains("PRIVATE KEY"), "{}", key.message);
    let primary = key.primary().unwrap_or_else(|| panic!("{key:?}"));
    assert!(primary.line > 0, "{key:?}");
    assert!(
        key.locations.iter().any(|l| l
            .file
            .ends_with("stack/charts/web/templates/trust-bundle.yaml")),
        "{key:?}"
    );
    let text = report::render(&r, Format::Human, false);
    assert!(text.contains("rendered here"), "{text}");
}

/// A stack's runner waits for its releases' renders. Run on a pool worker with no
/// other worker free (a matrix keeps every worker busy with cells), the waiting
/// must itself run the queued renders: blocking would never end.
#[test]
fn example_renders_on_a_pool_with_one_worker() {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let code = pool.install(|| check("stackproof.yaml").exit_code());
        let _ = tx.send(code);
    });
    let code = rx
        .recv_timeout(std::time::Duration::from_secs(120))
        .unwrap_or_else(|_| panic!("no result after 120 s: the stack's renders deadlocked"));
    assert_eq!(code, 0);
}
