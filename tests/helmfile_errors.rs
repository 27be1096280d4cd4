//! Bad Helmfile input gives a located error, never a panic: every error case of
//! `charts-under-test/helmfile/stack-errors/` (whose messages `helmfile_stacks.rs`
//! compares with the real helmfile) plus the offline-only ones (a chart no source
//! maps) must say where the problem is, `file:line`, and for YAML errors in a
//! rendered `.gotmpl` show the rendered line next to the template line.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use clap::Parser;
use stackproof::cli::helmfile::{input_from_args, HelmfileArgs};
use stackproof::helmfile::render_stack;

#[derive(Parser)]
#[command(name = "helmfile")]
struct Wrapper {
    #[command(flatten)]
    args: HelmfileArgs,
}

fn stack_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("charts-under-test/helmfile/stack-errors")
}

/// Runs `helmfile <args>` in the error stack; returns the exit code and what the
/// command prints on failure (helmfile's message, then our location lines).
fn run(args: &str) -> (i32, String) {
    run_in(&stack_dir(), args)
}

fn run_in(dir: &Path, args: &str) -> (i32, String) {
    let mut argv = vec!["helmfile".to_string()];
    argv.extend(args.split_whitespace().map(String::from));
    let parsed = Wrapper::try_parse_from(&argv).unwrap_or_else(|e| panic!("{args}: {e}"));
    let input = input_from_args(&parsed.args, dir, BTreeMap::new())
        .unwrap_or_else(|e| panic!("{args}: {e}"));
    let out = render_stack(&input);
    let text = match &out.error {
        Some(e) => {
            let mut lines = vec![e.message.clone()];
            lines.extend(e.detail_lines(dir));
            lines.join("\n")
        }
        None => String::new(),
    };
    (out.exit_code, text)
}

/// Each bad input of the issue, with the location we must report.
const CASES: &[(&str, &str, &str)] = &[
    (
        "missing environment values file",
        "-f missing-env-file.yaml template",
        "  --> missing-env-file.yaml:4",
    ),
    (
        "missing release values file",
        "-f missing-values-file.yaml template",
        "  --> missing-values-file.yaml:2",
    ),
    (
        "failing fail in a state",
        "-f fail.yaml.gotmpl template",
        "  --> fail.yaml.gotmpl:7",
    ),
    (
        "failing required in a state",
        "-f required.yaml.gotmpl template",
        "  --> required.yaml.gotmpl:10",
    ),
    (
        "missing key in a state template",
        "-f missing-key.yaml.gotmpl template",
        "  --> missing-key.yaml.gotmpl:5",
    ),
    (
        "release pointing at an unmapped chart",
        "-f unmapped-chart.yaml template",
        "  --> unmapped-chart.yaml:5",
    ),
    (
        "needs edge to a missing release",
        "-f needs-missing.yaml template",
        "  --> needs-missing.yaml:2",
    ),
    (
        "cycle in needs",
        "-f needs-cycle.yaml template",
        "  --> needs-cycle.yaml:2",
    ),
    (
        "bad condition",
        "-f bad-condition.yaml template",
        "  --> bad-condition.yaml:2",
    ),
    (
        "YAML error in a rendered .gotmpl",
        "-f yaml-error.yaml.gotmpl template",
        "  --> yaml-error.yaml.gotmpl:5",
    ),
    (
        "YAML error in a later part of a .gotmpl",
        "-f yaml-error-part.yaml.gotmpl template",
        "  --> yaml-error-part.yaml.gotmpl:14",
    ),
    (
        "unknown field",
        "-f unknown-field.yaml template",
        "  --> unknown-field.yaml:4",
    ),
    (
        "encrypted secrets file (no sops offline)",
        "-f secrets-encrypted.yaml template",
        "  --> secrets-encrypted.yaml:2",
    ),
    (
        "duplicate key",
        "-f dup-key.yaml template",
        "  --> dup-key.yaml:6",
    ),
];

#[test]
fn every_bad_input_is_a_located_error() {
    let mut failures = Vec::new();
    for (what, args, location) in CASES {
        let (code, text) = run(args);
        if code == 0 {
            failures.push(format!("{what}: exit code 0"));
        } else if !text.lines().any(|l| l == *location) {
            failures.push(format!("{what}: want {location:?} in\n{text}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn yaml_error_shows_rendered_and_template_line() {
    let (code, text) = run("-f yaml-error-part.yaml.gotmpl template");
    assert_eq!(code, 1);
    insta::assert_snapshot!(text, @r###"
    in ./yaml-error-part.yaml.gotmpl: failed to read yaml-error-part.yaml.gotmpl: reading document at index 1: yaml: line 9: mapping values are not allowed in this context
      --> yaml-error-part.yaml.gotmpl:14
       | rendered yaml-error-part.yaml.gotmpl.part.1 line 9:       note: x: y
       | template line 14:       note: {{ "x: y" }}
    "###);
}

#[test]
fn unmapped_chart_names_the_release_and_the_remedy() {
    let (code, text) = run("-f unmapped-chart.yaml template");
    assert_eq!(code, 1);
    insta::assert_snapshot!(text, @r###"
    in ./unmapped-chart.yaml: chart "nosuch/foo" (release "remote") is not available offline: no chart source maps it and no Chart.yaml named "foo" was found under the chart source directories (none given: pass --chart-source DIR)
      --> unmapped-chart.yaml:5
    "###);
}

/// helm reads such a name as flags, with an outcome that depends on the letters;
/// stackproof refuses it (helmfile fails too, for `-a`) instead of rendering it.
#[test]
fn release_name_starting_with_dash_is_refused() {
    let (code, text) = run("-f release-dash-name.yaml template");
    assert_eq!(code, 1);
    assert!(
        text.starts_with("in ./release-dash-name.yaml: release name \"-a\": helm template would read a name starting with '-' as flags"),
        "{text}"
    );
    // list does not run helm, and neither tool checks the name there.
    assert_eq!(run("-f release-dash-name.yaml list"), (0, String::new()));
}

#[test]
fn undefined_environment_is_reported() {
    let (code, text) = run("-f undefined-env.yaml -e prod template");
    assert_eq!(code, 3);
    assert_eq!(
        text,
        "err: no releases found that matches specified selector() and environment(prod), in any helmfile"
    );
}

#[test]
fn plain_secrets_file_is_used_as_values() {
    let (code, text) = run("-f secrets-plain.yaml template");
    assert_eq!((code, text.as_str()), (0, ""));
    let mut argv = vec!["helmfile".to_string()];
    argv.extend(["-f", "secrets-plain.yaml", "write-values"].map(String::from));
    let parsed = Wrapper::try_parse_from(&argv).unwrap_or_else(|e| panic!("{e}"));
    let input = input_from_args(&parsed.args, &stack_dir(), BTreeMap::new())
        .unwrap_or_else(|e| panic!("{e}"));
    let out = render_stack(&input);
    let values: Vec<&str> = out.written.iter().map(|f| f.content.as_str()).collect();
    assert_eq!(values, ["password: plain\n"]);
}

/// vals references to secret stores (`ref+vault://...`) are secrets helmfile
/// fetches; stackproof reads nothing over the network, so it renders them as written
/// and must say so, never silently. The offline providers (`echo`, `file`) resolve
/// (the `stack-vals-local` cases compare them with helmfile), also next to a kept
/// reference in one string, and are not in the warning.
#[test]
fn vals_references_are_reported() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("charts-under-test/helmfile/stack-vals");
    let parsed = Wrapper::try_parse_from(["helmfile", "template"]).expect("flags");
    let input = input_from_args(&parsed.args, &dir, BTreeMap::new()).expect("input");
    let out = render_stack(&input);
    assert_eq!(out.exit_code, 0, "{:?}", out.error.map(|e| e.message));
    let warnings: Vec<&String> = out
        .warnings
        .iter()
        .filter(|w| w.contains("vals references"))
        .collect();
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    let values = warnings[0];
    let set = warnings[1];
    for r in [
        "ref+vault://secret/data/app#password",
        "ref+vault://secret/data/app#other",
    ] {
        assert!(values.contains(r), "{r} missing from {values}");
    }
    assert!(set.contains("ref+awssecrets://app/token"), "{set}");
    for w in &warnings {
        assert!(w.contains("release \"vals\""), "{w}");
        for resolved in ["echo://", "file://", "href+x"] {
            assert!(!w.contains(resolved), "{resolved} in {w}");
        }
    }
    // The chart prints the values as JSON inside a quoted YAML string.
    let expected = [
        r#"\"echoed\":\"plain\""#,
        r#"\"fromFile\":\"s3cr3t\""#,
        r#"\"local\":\"s3cr3t\""#,
        r#"\"mixed\":\"a/b then ref+vault://secret/data/app#other\""#,
        r#"\"password\":\"ref+vault://secret/data/app#password\""#,
        r#"\"token\":\"ref+awssecrets://app/token\""#,
    ];
    for e in expected {
        assert!(out.stdout.contains(e), "{e} missing from {}", out.stdout);
    }
}

/// Release features whose effect on `template` output stackproof does not
/// reproduce (a post-renderer program; chartify's patches, transformers, adhoc
/// dependencies and forced namespace; helm arguments in `helmDefaults.args`) fail `template` with the release, the field
/// and the state file's line, instead of printing the unmodified chart with success.
/// `list` and `write-values`, whose output they do not change, still succeed.
#[test]
fn unapplied_release_features_fail_template() {
    let cases = [
        ("post-renderer.yaml", "pr", "postRenderer", 3),
        (
            "post-renderer-defaults.yaml",
            "prd",
            "helmDefaults.postRenderer",
            5,
        ),
        ("json-patches.yaml", "jp", "jsonPatches", 2),
        (
            "strategic-merge-patches.yaml",
            "smp",
            "strategicMergePatches",
            2,
        ),
        ("transformers.yaml", "tr", "transformers", 2),
        ("adhoc-dependencies.yaml", "dep", "dependencies", 2),
        ("force-namespace.yaml", "fns", "forceNamespace", 2),
        ("helm-defaults-args.yaml", "hda", "helmDefaults.args", 4),
    ];
    for (file, release, field, line) in cases {
        let (code, text) = run(&format!("-f unapplied/{file} template"));
        assert_eq!(code, 1, "{file}: {text}");
        let first = text.lines().next().unwrap_or_default();
        let want = format!(
            "in unapplied/{file}: release {release:?}: {field} is set, which stackproof cannot apply natively ("
        );
        assert!(
            first.starts_with(&want),
            "{file}: want {want:?}, got {first:?}"
        );
        assert!(
            first.ends_with("); refusing to print manifests that would differ"),
            "{file}: {first}"
        );
        assert!(
            text.lines()
                .any(|l| l == format!("  --> unapplied/{file}:{line}")),
            "{file}: no location line in\n{text}"
        );
        for cmd in ["list", "write-values"] {
            let (code, text) = run(&format!("-f unapplied/{file} {cmd}"));
            assert_eq!((code, text.as_str()), (0, ""), "{file} {cmd}");
        }
    }
}

/// A remote sub-helmfile (`git::https://...`) is downloaded by helmfile; stackproof
/// reads nothing over the network, so it refuses with the entry's context instead of
/// skipping it and rendering the rest as if the stack were complete.
#[test]
fn remote_sub_helmfiles_are_refused() {
    let (code, text) = run("-f remote-helmfile.yaml template");
    assert_eq!(code, 1, "{text}");
    assert!(
        text.starts_with("in ./remote-helmfile.yaml: in .helmfiles[0]: \"git::https://github.com/example/helmfiles.git@releases/remote.yaml?ref=v1.0.0\" is a remote helmfile, which stackproof does not download"),
        "{text}"
    );
}

/// A remote values file (`git::https://...`) is downloaded by helmfile, which fails
/// when it cannot even under `missingFileHandler: Debug`; stackproof must not skip it
/// and render the release without those values as if they were all there.
#[test]
fn remote_values_files_are_refused() {
    for cmd in ["template", "write-values", "list"] {
        let (code, text) = run(&format!("-f remote-values.yaml {cmd}"));
        if cmd == "list" {
            // `list` never reads release values, in helmfile either.
            assert_eq!((code, text.as_str()), (0, ""), "{cmd}");
            continue;
        }
        assert_eq!(code, 1, "{cmd}: {text}");
        assert!(
            text.starts_with("in ./remote-values.yaml: \"git::https://github.com/example/config.git@values/r.yaml?ref=v1\" is a remote values file, which stackproof does not download"),
            "{cmd}: {text}"
        );
    }
}

/// HCL environment values errors point at the `.hcl` file and line, also those whose
/// helmfile message names no file (DAG errors) and those stackproof words itself
/// (syntax errors, evaluation errors of hcl-rs, what it does not evaluate yet).
#[test]
fn hcl_errors_are_located() {
    let dir =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("charts-under-test/helmfile/stack-hcl/errors");
    let cases = [
        ("syntax", "syntax.hcl:2", "syntax.hcl:2,10: syntax error: "),
        (
            "duplicate",
            "duplicate.hcl:7",
            "Duplicate helmfile_vars definition",
        ),
        ("cycle", "cycle.hcl:2", "cycle detected: a -> c -> b -> a"),
        (
            "unknown-ref",
            "unknown-ref.hcl:3",
            "depend(s) on undefined vars \"nope\"",
        ),
        (
            "unknown-func",
            "unknown-func.hcl:3",
            "There is no function named \"frobnicate\".",
        ),
        ("redefined", "redefined.hcl:3", "Attribute redefined"),
        ("toplevel", "toplevel.hcl:1", "Unsupported argument"),
        (
            "try-in-template",
            "try-in-template.hcl:3",
            "stackproof does not evaluate try() or can() inside a %{for} template body yet.",
        ),
        (
            "bad-arg",
            "bad-arg.hcl:3",
            "error when trying to evaluate variable b : bad-arg.hcl:3,7-20: error calling function `upper`: argument 1: a string is required, got [1]",
        ),
        (
            "type-error",
            "type-error.hcl:4",
            "error when trying to evaluate variable b : type-error.hcl:4,7-17: ",
        ),
    ];
    let mut failures = Vec::new();
    for (name, location, message) in cases {
        let (code, text) = run_in(&dir, &format!("-f {name}.yaml.gotmpl template"));
        let want = format!("  --> {location}");
        if code == 0 || !text.lines().any(|l| l == want) || !text.contains(message) {
            failures.push(format!("{name}: want {want:?} and {message:?} in\n{text}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// `write-values` whose output path is a directory (here the template's last part
/// is empty) fails the release as helmfile 0.166 does (`in ./env-unset.yaml: writing
/// values file out/a/: open out/a/: is a directory`, exit 1) instead of writing
/// `out/a`.
#[test]
fn write_values_path_naming_a_directory() {
    let dir = stack_dir();
    let mut argv = vec!["helmfile", "-f", "env-unset.yaml", "write-values"];
    argv.extend(["--output-file-template", "out/{{ .Release.Name }}/"]);
    let parsed = Wrapper::try_parse_from(&argv).expect("flags");
    let input = input_from_args(&parsed.args, &dir, BTreeMap::new()).expect("input");
    let out = render_stack(&input);
    assert_eq!(out.exit_code, 1);
    assert_eq!(
        out.error.map(|e| e.message).as_deref(),
        Some("in ./env-unset.yaml: writing values file out/a/: open out/a/: is a directory")
    );
    assert!(out.written.is_empty());
}
