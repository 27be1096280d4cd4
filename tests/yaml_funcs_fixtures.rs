//! Differential check of the YAML and TOML function fixtures of `testdata/funcs/`
//! (`yaml_*`, `toml_*` and their `err_` variants; snapshotted by `funcs_fixtures.rs`)
//! against the real Helm: each is rendered by the engine with Helm's full function
//! set and values decoded by this crate's YAML codec, and by Helm 3.15.3 (or 4.3.1
//! for `level=1.27`); the rendered file must agree byte for byte, and for `err_`
//! fixtures Helm's error must contain the function's error text. Needs
//! `STACKPROOF_ORACLES`; without it only the expected outcomes are checked.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use stackproof::funcs::codec::yaml::{self as codec, DecodeOptions};
use stackproof::funcs::{helm_registry, Flavor};
use stackproof::template::{Host, LanguageLevel, Map, MapType, Options, TemplateSet, Value};

const MARKER: &str = "@@@ORACLE_END@@@";

fn fixture_paths() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/funcs");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("read testdata/funcs")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let n = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            let n = n.strip_prefix("err_").unwrap_or(n);
            (n.starts_with("yaml_") || n.starts_with("toml_")) && n.ends_with(".txt")
        })
        .collect();
    v.sort();
    v
}

/// Renders a fixture with the engine: Helm's data decoding (this crate's YAML codec)
/// and Helm's function set for the fixture's language level.
fn render(fx: &common::Fixture) -> Result<String, String> {
    let flavor = if fx.level == LanguageLevel::Go122 {
        Flavor::Helm3
    } else {
        Flavor::Helm4
    };
    let opts = Options::new(fx.level, fx.missing_key);
    let mut set = TemplateSet::new("gotpl", Arc::new(helm_registry(flavor)), opts);
    for (name, text) in common::helm_order(&fx.templates) {
        set.parse(&common::chart_name(name), text)
            .map_err(|e| e.to_string())?;
    }
    let values = codec::decode(&fx.data, &DecodeOptions::HELM_MAP).map_err(|e| e.to_string())?;
    let values = codec::retype_top(values, MapType::Named("chartutil.Values"));
    let top = Map::with_type(MapType::Named("chartutil.Values"));
    top.insert("Values", values);
    set.execute(
        &common::chart_name(&fx.exec),
        &Value::Map(top),
        &Host::default(),
    )
    .map(|out| out.replace("<no value>", ""))
    .map_err(|e| e.to_string())
}

#[test]
fn yaml_and_toml_function_fixtures_have_their_outcome() {
    let paths = fixture_paths();
    assert!(!paths.is_empty(), "no yaml_/toml_ fixtures found");
    let mut wrong = Vec::new();
    for path in &paths {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let fx = common::parse_fixture(name, &std::fs::read_to_string(path).expect("read"));
        match render(&fx) {
            Ok(out) if fx.expect_error => {
                wrong.push(format!("{name}: expected an error, got {out:?}"))
            }
            Err(msg) if !fx.expect_error => wrong.push(format!("{name}: unexpected error: {msg}")),
            _ => {}
        }
    }
    assert!(wrong.is_empty(), "wrong outcomes:\n{}", wrong.join("\n"));
}

#[test]
fn yaml_and_toml_function_fixtures_agree_with_helm() {
    let Some(oracles) = std::env::var_os("STACKPROOF_ORACLES").map(PathBuf::from) else {
        eprintln!("skipped: STACKPROOF_ORACLES not set");
        return;
    };
    let work = std::env::temp_dir().join(format!("stackproof-yamlfx-{}", std::process::id()));
    let mut disagree = Vec::new();
    let mut agree = 0;
    for path in fixture_paths() {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let fx = common::parse_fixture(name, &std::fs::read_to_string(&path).expect("read"));
        let c = work.join("c");
        let _ = std::fs::remove_dir_all(&c);
        std::fs::create_dir_all(c.join("templates")).expect("mkdir");
        std::fs::write(
            c.join("Chart.yaml"),
            "apiVersion: v2\nname: c\nversion: 0.1.0\n",
        )
        .expect("write");
        std::fs::write(c.join("values.yaml"), &fx.data).expect("write");
        for (file, text) in &fx.templates {
            let mut body = text.clone();
            if file == &fx.exec && !fx.expect_error {
                body.push('\n');
                body.push_str(MARKER);
                body.push_str(": [\n");
            }
            std::fs::write(c.join("templates").join(file), body).expect("write");
        }
        let helm = oracles.join(if fx.level == LanguageLevel::Go122 {
            "helm"
        } else {
            "helm-v4.3.1"
        });
        let out = Command::new(helm)
            .args(["template", "c", "--debug"])
            .current_dir(&work)
            .env("HELM_CONFIG_HOME", work.join("cfg"))
            .env("HELM_CACHE_HOME", work.join("cache"))
            .env("HELM_DATA_HOME", work.join("data"))
            .output()
            .expect("run helm");
        let stdout = String::from_utf8_lossy(&out.stdout).to_string();
        let stderr = String::from_utf8_lossy(&out.stderr).to_string();
        let ours = render(&fx);
        let source = format!("# Source: c/templates/{}\n", fx.exec);
        let helm_out = stdout.find(&source).and_then(|i| {
            let rest = &stdout[i + source.len()..];
            rest.find(&format!("\n{MARKER}"))
                .map(|j| rest[..j].to_string())
        });
        let verdict = match (&ours, helm_out) {
            (Ok(o), Some(h)) if *o == h => Ok(()),
            (Ok(o), Some(h)) => Err(format!("output\n  ours: {o:?}\n  helm: {h:?}")),
            (Err(e), None) => {
                // The function's own text, as Helm embeds it in its error line.
                let inner = e.split("error calling ").last().unwrap_or(e);
                if stderr.contains(inner) {
                    Ok(())
                } else {
                    Err(format!("error\n  ours: {inner}\n  helm: {}", stderr.trim()))
                }
            }
            (Ok(o), None) => Err(format!("we rendered {o:?}; helm: {}", stderr.trim())),
            (Err(e), Some(h)) => Err(format!("we failed ({e}); helm rendered {h:?}")),
        };
        match verdict {
            Ok(()) => agree += 1,
            Err(why) => disagree.push(format!("{name}: {why}")),
        }
    }
    let _ = std::fs::remove_dir_all(&work);
    eprintln!("{agree} fixtures agree with helm");
    assert!(disagree.is_empty(), "{}", disagree.join("\n"));
}
