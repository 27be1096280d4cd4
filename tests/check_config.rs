//! `stackproof.yaml` and rule files: matrix expansion and cell names, path resolution,
//! discovery, and errors reported at `file:line:col`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use stackproof::matrix::config::{self, discover, load, parse, LoadOptions};
use stackproof::matrix::error::InputError;
use stackproof::rules::load::load_text;

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("check_config-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    dir
}

fn write(dir: &Path, rel: &str, text: &str) {
    let p = dir.join(rel);
    if let Some(parent) = p.parent() {
        std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{e}"));
    }
    std::fs::write(p, text).unwrap_or_else(|e| panic!("{e}"));
}

const EMPTY_RULES: &str = "rules: []\n";

fn parse_config(text: &str) -> Result<config::Config, InputError> {
    // Tests run in parallel threads: each parse gets its own directory, or one test
    // would remove the rule file another is about to glob.
    static SEQ: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = scratch(&format!("parse-{n}"));
    write(&dir, "rules/a.yaml", EMPTY_RULES);
    let text: Arc<str> = text.into();
    parse(
        &text,
        "stackproof.yaml",
        &dir.join("stackproof.yaml"),
        &dir,
        &dir,
    )
}

fn err(text: &str) -> String {
    match parse_config(text) {
        Ok(_) => panic!("expected an error for:\n{text}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn matrix_cells_have_stable_readable_names() {
    let cfg = parse_config(
        r#"
targets:
  - name: stack
    fixture: {path: fx}
    matrix: llm
    rules: [rules/a.yaml]
matrices:
  llm:
    axes:
      addons.llm.enabled: [true, false]
      addons.llm.pki.mode: [certManager, existingSecret]
      observability.profile:
        name: obs
        values: [control]
    exclude:
      - {addons.llm.enabled: false, addons.llm.pki.mode: existingSecret}
    include:
      - {addons.llm.enabled: true, openbao.enabled: false, addons.llm.pki.mode: existingSecret}
      - {addons.llm.enabled: true, addons.llm.pki.mode: certManager, observability.profile: control}
    cells:
      - name: err-bad-pki-mode
        set: {addons.llm.enabled: true, addons.llm.pki.mode: bogus}
        env: {HELMFILE_ENV: base}
"#,
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
            "llm=true,mode=certManager,obs=control",
            "llm=true,mode=existingSecret,obs=control",
            "llm=false,mode=certManager,obs=control",
            "llm=true,mode=existingSecret,openbao=false",
            "err-bad-pki-mode",
        ]
    );
    let cell = &cfg.targets[0].cells[0];
    let v = cell.input_values(&serde_json::json!({"base": 1}));
    assert_eq!(
        v,
        serde_json::json!({
            "base": 1,
            "addons": {"llm": {"enabled": true, "pki": {"mode": "certManager"}}},
            "observability": {"profile": "control"}
        })
    );
    assert_eq!(cfg.targets[0].cells[4].env["HELMFILE_ENV"], "base");
}

#[test]
fn no_matrix_means_one_default_cell() {
    let cfg = parse_config("targets:\n  - name: t\n    fixture: {path: fx}\n")
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(cfg.targets[0].cells.len(), 1);
    assert_eq!(cfg.targets[0].cells[0].name, "default");
}

#[test]
fn errors_point_at_file_line_col() {
    let cases: &[(&str, &str)] = &[
        (
            "targets:\n  - name: t\n    fixture: {path: fx}\n    colour: red\n",
            "stackproof.yaml:4:5: unknown field `colour`",
        ),
        (
            "targets:\n  - name: t\n    fixture: {path: fx}\n    rules: 3\n",
            "stackproof.yaml:4:12: invalid type: integer `3`, expected a sequence",
        ),
        (
            "targets:\n  - name: t\n    fixture: {path: fx}\n    matrix: nope\n",
            "stackproof.yaml:4:13: unknown matrix `nope`",
        ),
        (
            "targets:\n  - name: t\n    fixture: {path: fx}\n  - name: t\n    fixture: {path: fy}\n",
            "stackproof.yaml:4:5: duplicate target name `t` (first declared at line 2)",
        ),
        (
            "targets:\n  - name: t\n    fixture: {path: fx}\n    chart: {path: c}\n",
            "stackproof.yaml:2:5: target `t` must have exactly one of `helmfile`, `chart` or `fixture`",
        ),
        (
            "targets:\n  - name: t\n    fixture: {path: fx}\n    rules: [rules/*.yml]\n",
            "stackproof.yaml:4:13: rule path `rules/*.yml` matches no file",
        ),
        (
            "now: tomorrow\ntargets:\n  - name: t\n    fixture: {path: fx}\n",
            "stackproof.yaml:1:6: `now` must be an RFC 3339 time",
        ),
        (
            "targets:\n  - name: t\n    fixture: {path: fx}\n    matrix: m\nmatrices:\n  m:\n    axes: {a: [1]}\n    exclude:\n      - {b: 1}\n",
            "stackproof.yaml:9:10: exclude key `b` is not an axis of this matrix",
        ),
        (
            "targets:\n  - name: t\n    fixture: {path: fx}\n    matrix: m\nmatrices:\n  m:\n    axes: {a: []}\n",
            "stackproof.yaml:7:12: axis `a` has no values",
        ),
        (
            "targets:\n  - name: t\n    fixture: {path: fx}\n    matrix: m\nmatrices:\n  m:\n    axes: {a: [1]}\n    cells:\n      - name: a=1\n",
            "stackproof.yaml:9:15: duplicate cell name `a=1`",
        ),
        (
            "targets:\n  - name: t\n    fixture: {path: fx}\n  name: x\n",
            "stackproof.yaml:4:3",
        ),
        (
            "targets: [\n",
            "stackproof.yaml:2:1",
        ),
    ];
    for (text, want) in cases {
        let got = err(text);
        assert!(
            got.starts_with(want),
            "for:\n{text}\nwant: {want}\ngot:  {got}"
        );
    }
}

#[test]
fn root_makes_paths_relative_to_it() {
    let dir = scratch("root");
    write(
        &dir,
        "conf/stackproof.yaml",
        "targets:\n  - name: t\n    fixture: {path: stacks/x}\n    rules: [rules/*.yaml]\n",
    );
    write(&dir, "repo/rules/a.yaml", EMPTY_RULES);
    let cfg = load(
        &dir.join("conf/stackproof.yaml"),
        &LoadOptions {
            root: Some(dir.join("repo")),
            display_base: Some(dir.clone()),
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(cfg.targets[0].rule_files, [dir.join("repo/rules/a.yaml")]);
    match &cfg.targets[0].kind {
        config::TargetKind::Fixture { path, .. } => assert_eq!(path, &dir.join("repo/stacks/x")),
        other => panic!("{other:?}"),
    }
    // Without --root, the file's own directory.
    let e = load(&dir.join("conf/stackproof.yaml"), &LoadOptions::default()).unwrap_err();
    assert!(
        e.to_string()
            .contains("rule path `rules/*.yaml` matches no file"),
        "{e}"
    );
}

#[test]
fn discovery_walks_up() {
    let dir = scratch("discover");
    write(&dir, "stackproof.yaml", "targets: []\n");
    std::fs::create_dir_all(dir.join("a/b")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        discover(&dir.join("a/b")),
        Some(dir.join("stackproof.yaml"))
    );
}

fn rule_err(text: &str) -> String {
    match load_text(&Arc::from(text), "r.yaml") {
        Ok(_) => panic!("expected an error for:\n{text}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn rule_errors_point_at_file_line_col() {
    let head = "rules:\n  - id: r\n    title: t\n";
    let cases: &[(&str, &str)] = &[
        ("    layer: manifests\n    assert:\n      - equal: 1\n", "r.yaml:6:9: unknown assertion kind `equal` (did you mean `equals`?)"),
        ("    layer: manifests\n    select: {path: '$.['}\n    assert: [{exists: {}}]\n", "r.yaml:5:20: invalid JSONPath `$.[`"),
        ("    layer: manifests\n    assert:\n      - matches: '(['\n", "r.yaml:6:18: `matches`: invalid regular expression"),
        ("    layer: manifests\n    when: values.a ==\n    assert: [{exists: {}}]\n", "r.yaml:5:11: invalid `when`"),
        ("    layer: values\n    select: {kind: Secret}\n    assert: [{exists: {}}]\n", "r.yaml:5:20: `kind` selects rendered documents; this rule is on the values layer"),
        ("    layer: manifests\n    assert:\n      - count: {exactly: 1, min: 2}\n", "r.yaml:6:16: `count`: `exactly` cannot be combined with `min` or `max`"),
        ("    layer: manifests\n    assert:\n      - count: {atleast: 2}\n", "r.yaml:6:17: `count`: unknown field `atleast`"),
        ("    layer: manifests\n    assert:\n      - not-expired-within: soon\n", "r.yaml:6:29: `not-expired-within`: `soon` is not a duration"),
        ("    layer: manifests\n    assert:\n      - fingerprint-is: {sha256: abc}\n", "r.yaml:6:34: `fingerprint-is`: `abc` is not a SHA-256 fingerprint"),
        ("    layer: manifests\n    message: '{{ oops'\n    assert: [{exists: {}}]\n", "r.yaml:5:14: invalid `message` template"),
        ("    layer: everywhere\n    assert: [{exists: {}}]\n", "r.yaml:4:12: unknown variant `everywhere`"),
        ("    layer: manifests\n    assert: []\n", "r.yaml:5:13: a rule needs at least one assertion"),
        ("    layer: manifests\n    assert: [{exists: {}}]\n  - id: r\n    title: u\n    layer: states\n    assert: [{exists: {}}]\n", "r.yaml:6:9: duplicate rule id `r` (first at line 2)"),
    ];
    for (tail, want) in cases {
        let text = format!("{head}{tail}");
        let got = rule_err(&text);
        assert!(
            got.starts_with(want),
            "for:\n{text}\nwant: {want}\ngot:  {got}"
        );
    }
    let missing = rule_err("rules:\n  - id: r\n    layer: states\n    assert: [{exists: {}}]\n");
    assert!(
        missing.starts_with("r.yaml:2:5: missing field `title`"),
        "{missing}"
    );
}

#[test]
fn every_kind_example_loads() {
    for k in stackproof::rules::assert::KINDS {
        let rules = load_text(&Arc::from(k.example), &format!("example:{}", k.name))
            .unwrap_or_else(|e| panic!("example of {} does not load: {e}", k.name));
        assert!(
            rules
                .iter()
                .any(|r| r.assertions.iter().any(|a| a.kind.name == k.name)),
            "example of {} does not use it",
            k.name
        );
    }
}

#[test]
fn input_errors_render_with_the_line() {
    let e = parse_config("targets:\n  - name: t\n    fixture: {path: fx}\n    colour: red\n")
        .unwrap_err();
    let text = stackproof::report::human::render_input_error(&e, false);
    assert!(
        text.contains("stackproof.yaml:4:5: unknown field `colour`"),
        "{text}"
    );
    assert!(text.contains("4 │     colour: red"), "{text}");
}
