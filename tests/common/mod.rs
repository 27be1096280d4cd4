//! Shared helpers for the template tests: the fixture format (see
//! `testdata/template/README.md`) and a test-only data decoder.
#![allow(dead_code)]

pub mod funcs;
pub mod oracle;

use std::sync::Arc;

use stackproof::funcs::codec::yaml;
use stackproof::funcs::control;
use stackproof::template::{
    Host, LanguageLevel, Map, MapType, MissingKey, Options, Registry, TemplateSet, Value,
};

/// One parsed fixture file.
pub struct Fixture {
    pub missing_key: MissingKey,
    pub level: LanguageLevel,
    /// Template to execute (file name, without the chart prefix).
    pub exec: String,
    /// Data as YAML text (the chart's values).
    pub data: String,
    /// `(file name, text)` in parse order.
    pub templates: Vec<(String, String)>,
    /// Whether the fixture is expected to fail (`err_` prefix).
    pub expect_error: bool,
    /// Skip the Helm differential check for this fixture, with the reason.
    pub oracle_skip: Option<String>,
    /// Which program's function set and template context to use (`registry=helmfile`);
    /// `None`: the runner's default.
    pub registry: Option<String>,
    /// Environment variables the template sees (`env=NAME=VALUE` lines).
    pub env: Vec<(String, String)>,
    /// Extra files beside the templates (`-- file NAME --` sections).
    pub files: Vec<(String, String)>,
}

/// The chart-relative name Helm gives a template file.
pub fn chart_name(file: &str) -> String {
    format!("c/templates/{file}")
}

pub fn parse_fixture(name: &str, text: &str) -> Fixture {
    let mut fx = Fixture {
        missing_key: MissingKey::Zero,
        level: LanguageLevel::Go122,
        exec: String::new(),
        data: String::new(),
        templates: Vec::new(),
        expect_error: name.starts_with("err_"),
        oracle_skip: None,
        registry: None,
        env: Vec::new(),
        files: Vec::new(),
    };
    let mut section: Option<(String, String)> = None;
    let mut body = String::new();
    let flush = |section: &Option<(String, String)>, body: &mut String, fx: &mut Fixture| {
        if let Some((kind, arg)) = section {
            let text = std::mem::take(body);
            match kind.as_str() {
                "options" => {
                    for line in text.lines() {
                        let line = line.trim();
                        if line.is_empty() {
                            continue;
                        }
                        let (k, v) = line.split_once('=').unwrap_or((line, ""));
                        match k {
                            "missingkey" => {
                                fx.missing_key = MissingKey::parse(v).expect("missingkey value")
                            }
                            "level" => fx.level = LanguageLevel::parse(v).expect("level value"),
                            "exec" => fx.exec = v.to_string(),
                            "oracle-skip" => fx.oracle_skip = Some(v.to_string()),
                            "registry" => fx.registry = Some(v.to_string()),
                            "env" => {
                                let (name, value) = v.split_once('=').unwrap_or((v, ""));
                                fx.env.push((name.to_string(), value.to_string()));
                            }
                            other => panic!("unknown option {other}"),
                        }
                    }
                }
                "data" => fx.data = text,
                "file" => fx.files.push((arg.clone(), text)),
                "template" => {
                    let n = if arg.is_empty() {
                        "x.yaml".to_string()
                    } else {
                        arg.clone()
                    };
                    fx.templates.push((n, text));
                }
                other => panic!("unknown section {other}"),
            }
        }
    };
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_end_matches('\n');
        if let Some(rest) = trimmed
            .strip_prefix("-- ")
            .and_then(|r| r.strip_suffix(" --"))
        {
            flush(&section, &mut body, &mut fx);
            let (kind, arg) = rest.split_once(' ').unwrap_or((rest, ""));
            section = Some((kind.to_string(), arg.to_string()));
            continue;
        }
        if section.is_none() {
            continue; // preamble comments
        }
        body.push_str(line);
    }
    flush(&section, &mut body, &mut fx);
    if fx.exec.is_empty() {
        fx.exec = fx
            .templates
            .first()
            .map(|t| t.0.clone())
            .unwrap_or_default();
    }
    fx
}

/// Decodes fixture data the way Helm reads `values.yaml` (YAML 1.1 scalars, every
/// number a float64), with the project's Go-compatible YAML decoder.
pub fn yaml_to_value(text: &str) -> Value {
    if text.trim().is_empty() {
        return Value::Map(Map::new());
    }
    yaml::decode(text, &yaml::DecodeOptions::HELM_MAP).expect("fixture data is YAML")
}

/// Builds the set and data for a fixture and runs it: `Ok(output)` or the error's
/// kind and Display text.
pub fn run_fixture(fx: &Fixture) -> Result<String, (String, String)> {
    run_fixture_full(fx).map_err(|e| (format!("{:?}", e.kind), e.to_string()))
}

/// Like [`run_fixture`], keeping the structured error.
pub fn run_fixture_full(fx: &Fixture) -> Result<String, stackproof::template::Error> {
    let mut reg = Registry::new();
    reg.register(if fx.level == LanguageLevel::Go122 {
        control::HELM3
    } else {
        control::HELM4
    });
    let opts = Options::new(fx.level, fx.missing_key);
    let mut set = TemplateSet::new("gotpl", Arc::new(reg), opts);
    for (name, text) in helm_order(&fx.templates) {
        set.parse(&chart_name(name), text)?;
    }
    let values = match yaml_to_value(&fx.data) {
        Value::Map(m) => Value::Map(m.retyped(MapType::Named("chartutil.Values"))),
        other => other,
    };
    let top = Map::with_type(MapType::Named("chartutil.Values"));
    top.insert("Values", values);
    set.execute(&chart_name(&fx.exec), &Value::Map(top), &Host::default())
}

/// Helm's parse order (`sortTemplates`): by number of `/`, then byte order, all
/// reversed; later definitions win.
pub fn helm_order(templates: &[(String, String)]) -> Vec<(&str, &str)> {
    let mut v: Vec<(String, &str, &str)> = templates
        .iter()
        .map(|(n, t)| (chart_name(n), n.as_str(), t.as_str()))
        .collect();
    v.sort_by(|a, b| {
        let (ca, cb) = (a.0.matches('/').count(), b.0.matches('/').count());
        ca.cmp(&cb).then_with(|| a.0.as_bytes().cmp(b.0.as_bytes()))
    });
    v.reverse();
    v.into_iter().map(|(_, n, t)| (n, t)).collect()
}
