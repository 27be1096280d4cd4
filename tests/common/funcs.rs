//! Runners for the function-library fixtures (`testdata/funcs/`): Helm fixtures run
//! like the template fixtures but with the full Helm function set of their language
//! level; `registry=helmfile` fixtures run the way Helmfile renders a state file
//! part (template `stringTemplate`, `missingkey=error`, Helmfile's functions, the
//! directory's `_*.tpl` helpers, state values decoded by yaml.v2).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use stackproof::funcs::{helm_registry, Flavor};
use stackproof::helmfile::env::{yaml_roundtrip, Environment, TemplateData};
use stackproof::helmfile::tmpl::{Context, RenderEnv};
use stackproof::template::{
    Error, Host, LanguageLevel, Map, MapType, Options, Registry, TemplateSet, Value,
};

use super::Fixture;

/// Whether the fixture runs in Helmfile's template context.
pub fn is_helmfile(fx: &Fixture) -> bool {
    fx.registry.as_deref() == Some("helmfile")
}

/// The Helm function set of the fixture's language level.
pub fn helm_funcs(fx: &Fixture) -> Registry {
    helm_registry(if fx.level == LanguageLevel::Go122 {
        Flavor::Helm3
    } else {
        Flavor::Helm4
    })
}

/// Runs a Helm fixture with `reg`, as Helm would render the chart `c`.
pub fn run_helm(fx: &Fixture, reg: Registry) -> Result<String, Error> {
    let opts = Options::new(fx.level, fx.missing_key);
    let mut set = TemplateSet::new("gotpl", Arc::new(reg), opts);
    for (name, text) in super::helm_order(&fx.templates) {
        set.parse(&super::chart_name(name), text)?;
    }
    // Helm 4 moved the values type to `pkg/chart/common`, which `typeOf` and
    // interface-conversion errors show.
    let values_type = if fx.level == LanguageLevel::Go122 {
        MapType::Named("chartutil.Values")
    } else {
        MapType::Named("common.Values")
    };
    let values = match super::yaml_to_value(&fx.data) {
        Value::Map(m) => Value::Map(m.retyped(values_type)),
        other => other,
    };
    let top = Map::with_type(values_type);
    top.insert("Values", values);
    set.execute(
        &super::chart_name(&fx.exec),
        &Value::Map(top),
        &Host::default(),
    )
}

/// The state file text the Helmfile oracle renders: a first part with a top-level key
/// (Helmfile refuses a file without one), then the fixture's template as part 1.
pub fn helmfile_state_text(fx: &Fixture) -> String {
    format!("bases: []\n---\n{}", main_template(fx))
}

fn main_template(fx: &Fixture) -> &str {
    fx.templates
        .iter()
        .find(|(n, _)| *n == fx.exec)
        .map(|(_, t)| t.as_str())
        .unwrap_or("")
}

/// Writes the fixture's helper templates (every template section but the executed
/// one, e.g. `_helpers.tpl`), extra files and state values (`values.yaml`) into an
/// emptied `dir`.
pub fn write_helmfile_dir(fx: &Fixture, dir: &Path) {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).expect("mkdir");
    for (name, text) in fx.templates.iter().filter(|(n, _)| *n != fx.exec) {
        std::fs::write(dir.join(name), text).expect("write helper");
    }
    for (name, text) in &fx.files {
        let path = dir.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(path, text).expect("write file");
    }
    if !fx.data.trim().is_empty() {
        std::fs::write(dir.join("values.yaml"), &fx.data).expect("write values");
    }
}

/// The state values as Helmfile's second pass sees them: yaml.v2 decoding, then the
/// environment copy's YAML round trip.
fn helmfile_values(fx: &Fixture) -> Map {
    if fx.data.trim().is_empty() {
        return Map::new();
    }
    let decoded = stackproof::funcs::yaml::helmfile_from_yaml(&[Value::str(fx.data.as_str())])
        .expect("fixture data is YAML");
    match yaml_roundtrip(&decoded) {
        Value::Map(m) => m,
        _ => panic!("fixture data must be a mapping"),
    }
}

/// Runs a `registry=helmfile` fixture in `dir` (prepared by [`write_helmfile_dir`]):
/// its template is rendered like part 1 of a state file in that directory, in
/// Helmfile's final pass, with the fixture's environment variables.
pub fn run_helmfile(fx: &Fixture, dir: &Path) -> Result<String, Error> {
    write_helmfile_dir(fx, dir);
    let env: BTreeMap<String, String> = fx.env.iter().cloned().collect();
    let renv = RenderEnv {
        env: Arc::new(env),
        allow_exec: true,
        ..RenderEnv::default()
    };
    let values = helmfile_values(fx);
    let mut environment = Environment::new("default");
    // Helmfile's `.Environment.Values` is a separate copy of the same values.
    environment.values = helmfile_values(fx);
    let data = TemplateData::for_state(environment, "", values).into_value();
    let ctx = Context::new(&renv, ".", dir, false);
    ctx.render(main_template(fx), &data).map_err(|f| *f.error)
}

/// Runs any function fixture: Helmfile ones in `dir`, Helm ones with their level's
/// function set.
pub fn run(fx: &Fixture, dir: &Path) -> Result<String, Error> {
    if is_helmfile(fx) {
        run_helmfile(fx, dir)
    } else {
        run_helm(fx, helm_funcs(fx))
    }
}

/// Identifiers a template's actions use in function position or as bare words: every
/// word inside `{{ ... }}` that is not a field (`.x`), a variable (`$x`), a keyword or
/// part of a string, raw string or character literal. Coverage checks use it to see
/// which functions a fixture calls.
pub fn action_words(text: &str) -> Vec<String> {
    const KEYWORDS: &[&str] = &[
        "if", "else", "end", "range", "with", "define", "template", "block", "break", "continue",
        "nil", "true", "false",
    ];
    let mut words = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find("{{") {
        let body = &rest[open + 2..];
        let bytes = body.as_bytes();
        let mut i = 0;
        let mut prev = b' ';
        while i < bytes.len() {
            let b = bytes[i];
            if b == b'}' && bytes.get(i + 1) == Some(&b'}') {
                i += 2;
                break;
            }
            match b {
                b'"' | b'\'' => {
                    i += 1;
                    while i < bytes.len() && bytes[i] != b {
                        i += if bytes[i] == b'\\' { 2 } else { 1 };
                    }
                    i += 1;
                    prev = b;
                }
                b'`' => {
                    i += 1;
                    while i < bytes.len() && bytes[i] != b'`' {
                        i += 1;
                    }
                    i += 1;
                    prev = b;
                }
                b'/' if bytes.get(i + 1) == Some(&b'*') => {
                    i += body[i..].find("*/").map_or(bytes.len(), |j| j + 2);
                }
                _ if b.is_ascii_alphabetic() || b == b'_' => {
                    let start = i;
                    while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_')
                    {
                        i += 1;
                    }
                    let word = &body[start..i];
                    let field_or_var = matches!(prev, b'.' | b'$' | b'0');
                    if !field_or_var && !KEYWORDS.contains(&word) {
                        words.push(word.to_string());
                    }
                    prev = b'a';
                }
                _ => {
                    prev = if b.is_ascii_digit() { b'0' } else { b };
                    i += 1;
                }
            }
        }
        rest = &body[i.min(body.len())..];
    }
    words
}
