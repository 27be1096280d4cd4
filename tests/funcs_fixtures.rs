//! Runs every fixture in `testdata/funcs/` — function-library cases in the template
//! fixture format (`testdata/template/README.md`) — with the full Helm function set of
//! the fixture's language level (1.22: Helm 3, 1.27: Helm 4), and snapshots the
//! output or error.
//!
//! A fixture may use a function whose family has not been written yet (the JSON
//! fixtures need Sprig's `float64` to make a NaN). Such a fixture is reported on
//! stderr as waiting for that function and not snapshotted; once the function is
//! registered, its snapshot must be reviewed like any new one.

mod common;

use std::sync::Arc;

use stackproof::funcs::{helm_registry, Flavor};
use stackproof::template::{
    Host, LanguageLevel, Map, MapType, Options, Registry, TemplateSet, Value,
};

/// Functions a fixture calls that the registry lacks (`{{ name ` or `(name `).
fn missing_functions(fx: &common::Fixture, reg: &Registry) -> Vec<String> {
    let mut missing = Vec::new();
    for (_, text) in &fx.templates {
        let bytes = text.as_bytes();
        for (i, &b) in bytes.iter().enumerate() {
            if b != b'(' && !(b == b' ' && i > 0 && bytes[i - 1] == b'{') {
                continue;
            }
            let rest = &text[i + 1..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            let builtin = matches!(
                name.as_str(),
                "len"
                    | "index"
                    | "print"
                    | "printf"
                    | "println"
                    | "and"
                    | "or"
                    | "not"
                    | "eq"
                    | "ne"
                    | "lt"
                    | "le"
                    | "gt"
                    | "ge"
                    | "slice"
                    | "html"
                    | "js"
                    | "urlquery"
                    | "call"
                    | "if"
                    | "range"
                    | "with"
                    | "end"
                    | "else"
                    | "define"
                    | "template"
                    | "block"
                    | "nil"
                    | "true"
                    | "false"
            );
            let is_func = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic());
            if is_func && !builtin && !reg.contains(&name) && !missing.contains(&name) {
                missing.push(name);
            }
        }
    }
    missing
}

fn run(fx: &common::Fixture, reg: Registry) -> Result<String, (String, String)> {
    let opts = Options::new(fx.level, fx.missing_key);
    let mut set = TemplateSet::new("gotpl", Arc::new(reg), opts);
    let mut exec = || -> Result<String, stackproof::template::Error> {
        for (name, text) in common::helm_order(&fx.templates) {
            set.parse(&common::chart_name(name), text)?;
        }
        let values = match common::yaml_to_value(&fx.data) {
            Value::Map(m) => Value::Map(m.retyped(MapType::Named("chartutil.Values"))),
            other => other,
        };
        let top = Map::with_type(MapType::Named("chartutil.Values"));
        top.insert("Values", values);
        set.execute(
            &common::chart_name(&fx.exec),
            &Value::Map(top),
            &Host::default(),
        )
    };
    exec().map_err(|e| (format!("{:?}", e.kind), e.to_string()))
}

#[test]
fn fixtures() {
    let mut wrong = Vec::new();
    insta::glob!("../testdata/funcs", "*.txt", |path| {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if let Ok(only) = std::env::var("FIXTURE") {
            if !name.contains(&only) {
                return;
            }
        }
        let text = std::fs::read_to_string(path).expect("read fixture");
        let fx = common::parse_fixture(name, &text);
        let flavor = if fx.level == LanguageLevel::Go122 {
            Flavor::Helm3
        } else {
            Flavor::Helm4
        };
        let reg = helm_registry(flavor);
        let missing = missing_functions(&fx, &reg);
        if !missing.is_empty() {
            eprintln!("{name}: waiting for {}", missing.join(", "));
            return;
        }
        let snap = match run(&fx, reg) {
            Ok(out) => {
                if fx.expect_error {
                    wrong.push(format!("{name}: expected an error, got output {out:?}"));
                }
                format!("OUTPUT:\n{out}")
            }
            Err((kind, msg)) => {
                if !fx.expect_error {
                    wrong.push(format!("{name}: unexpected error: {msg}"));
                }
                format!("ERROR {kind}:\n{msg}")
            }
        };
        insta::assert_snapshot!(snap);
    });
    assert!(
        wrong.is_empty(),
        "fixtures with the wrong outcome:\n{}",
        wrong.join("\n")
    );
}
