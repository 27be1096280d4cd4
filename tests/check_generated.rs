//! Generated files stay in sync with the code they come from: the JSON Schemas under
//! `schemas/` and the rule reference `rules/README.md`. Regenerate with
//! `stackproof schema --write schemas` and `stackproof rules readme > rules/README.md`.

use std::path::PathBuf;

use stackproof::cli::schema::{file_name, schema_text, Which};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn committed_schemas_match_the_types() {
    for w in [Which::Config, Which::Rules] {
        let path = root().join("schemas").join(file_name(w));
        let committed =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(
            committed == schema_text(w),
            "{} is stale: run `stackproof schema --write schemas`",
            path.display()
        );
    }
}

#[test]
fn rule_reference_matches_the_kinds() {
    let path = root().join("rules/README.md");
    let committed =
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(
        committed == stackproof::rules::docs::readme(),
        "rules/README.md is stale: run `stackproof rules readme > rules/README.md`"
    );
}

#[test]
fn schemas_describe_every_kind() {
    let v: serde_json::Value =
        serde_json::from_str(&schema_text(Which::Rules)).unwrap_or_else(|e| panic!("{e}"));
    let text = v.to_string();
    for k in stackproof::rules::assert::KINDS {
        assert!(
            text.contains(&format!("\"{}\"", k.name)),
            "{} missing",
            k.name
        );
    }
}
