//! Differential check of the template fixtures against the real `helm` binaries.
//!
//! Each fixture in `testdata/template/` becomes a one-file chart `c` (data as
//! `values.yaml`, template files under `templates/`) and is rendered with
//! `helm template c --debug` — Helm 3.15.3 for language level 1.22, Helm 4.3.1 for
//! 1.27. Expected successes are compared with the raw rendered file (a trailing
//! invalid YAML line forces `--debug` to print it unprocessed); expected failures
//! are compared with Helm's `Error:` text, after applying to our Go-level error the
//! same re-formatting Helm applies (`cleanupParseError`, `cleanupExecError`, and
//! Helm 4's `reformatExecErrorMsg`), reimplemented below from its documented
//! behaviour.
//!
//! Run with `STACKPROOF_ORACLES=/path/to/dir cargo test --test template_oracle --
//! --ignored --nocapture`; it prints a summary and every disagreement, and fails if
//! any fixture disagrees.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use stackproof::template::{Error, ErrorKind, LanguageLevel};

const MARKER: &str = "@@@ORACLE_END@@@";

fn oracle_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("STACKPROOF_ORACLES").map(PathBuf::from)?;
    dir.join("helm").exists().then_some(dir)
}

/// Helm 4's `TraceableError`.
#[derive(PartialEq, Eq, Clone, Debug)]
struct Traceable {
    location: String,
    message: String,
    executed: String,
}

impl Traceable {
    fn render(&self) -> String {
        let mut s = String::new();
        if !self.location.is_empty() {
            s.push_str(&format!("{}\n  ", self.location));
        }
        if !self.executed.is_empty() {
            s.push_str(&format!("{}\n    ", self.executed));
        }
        if !self.message.is_empty() {
            s.push_str(&format!("{}\n", self.message));
        }
        s
    }
}

fn cut_template(msg: &str) -> &str {
    match msg.find(" template:") {
        Some(i) => &msg[..i],
        None => msg,
    }
}

fn parse_traceable(s: &str) -> Option<Traceable> {
    let rem = s.strip_prefix("template: ")?;
    if rem.starts_with("no template ") {
        return Some(Traceable {
            location: String::new(),
            message: s.to_string(),
            executed: String::new(),
        });
    }
    if let Some((name, after)) = rem.split_once(": executing ") {
        let after = after.strip_prefix('"')?;
        let end = after.find('"')?;
        let func = &after[..end];
        let after_at = after[end + 1..].strip_prefix(" at <")?;
        let (loc, msg) = after_at.split_once(">: ")?;
        return Some(Traceable {
            location: name.to_string(),
            message: cut_template(msg).to_string(),
            executed: format!("executing \"{func}\" at <{loc}>:"),
        });
    }
    let sep = rem.rfind(": ")?;
    Some(Traceable {
        location: rem[..sep].to_string(),
        message: cut_template(&rem[sep + 2..]).to_string(),
        executed: String::new(),
    })
}

/// The texts of Go's `errors.Unwrap` chain for one of our errors.
fn unwrap_chain(e: &Error) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = Some(e);
    while let Some(err) = cur {
        out.push(err.message.clone());
        cur = None;
        if let Some(c) = &err.cause {
            out.push(c.clone());
            if let Some(inner) = &err.inner {
                if &inner.message == c {
                    cur = Some(inner);
                }
            }
        }
    }
    out
}

fn helm_error(e: &Error, v4: bool, file: &str) -> String {
    let msg = e.to_string();
    match e.kind {
        ErrorKind::Parse => {
            let tokens: Vec<&str> = msg.split(": ").collect();
            if tokens.len() == 1 {
                return format!("parse error in ({file}): {msg}");
            }
            format!(
                "parse error at ({}): {}",
                tokens[1],
                tokens[tokens.len() - 1]
            )
        }
        ErrorKind::NoTemplate => msg,
        _ => {
            let tokens: Vec<&str> = msg.splitn(3, ": ").collect();
            if tokens.len() != 3 {
                return format!("execution error in ({file}): {msg}");
            }
            if let Some(inner) = stackproof::funcs::control::unwrap_helm_warning(tokens[2]) {
                return format!("execution error at ({}): {}", tokens[1], inner);
            }
            if !v4 {
                return msg;
            }
            let mut locs: Vec<Traceable> = Vec::new();
            for text in unwrap_chain(e) {
                match parse_traceable(&text) {
                    Some(t) => {
                        if locs.last() != Some(&t) {
                            locs.push(t);
                        }
                    }
                    None => return msg,
                }
            }
            locs.iter()
                .map(Traceable::render)
                .collect::<String>()
                .trim()
                .to_string()
        }
    }
}

fn write_chart(dir: &Path, fx: &common::Fixture) {
    let c = dir.join("c");
    let _ = std::fs::remove_dir_all(&c);
    std::fs::create_dir_all(c.join("templates")).expect("mkdir");
    std::fs::write(
        c.join("Chart.yaml"),
        "apiVersion: v2\nname: c\nversion: 0.1.0\n",
    )
    .expect("write");
    std::fs::write(c.join("values.yaml"), &fx.data).expect("write");
    for (name, text) in &fx.templates {
        let mut body = text.clone();
        if name == &fx.exec && !fx.expect_error {
            body.push('\n');
            body.push_str(MARKER);
            body.push_str(": [\n");
        }
        std::fs::write(c.join("templates").join(name), body).expect("write");
    }
}

#[test]
#[ignore = "needs the helm oracles (STACKPROOF_ORACLES)"]
fn fixtures_agree_with_helm() {
    let Some(oracles) = oracle_dir() else {
        eprintln!("STACKPROOF_ORACLES not set or has no helm: skipping the oracle check");
        return;
    };
    let work = std::env::temp_dir().join(format!("stackproof-oracle-{}", std::process::id()));
    std::fs::create_dir_all(&work).expect("mkdir");
    let fixture_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/template");
    let mut names: Vec<PathBuf> = std::fs::read_dir(&fixture_dir)
        .expect("read fixtures")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    names.sort();
    let (mut agree, mut skipped) = (0, 0);
    let mut disagree = Vec::new();
    for path in names {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("")
            .to_string();
        if let Ok(only) = std::env::var("FIXTURE") {
            if !name.contains(&only) {
                continue;
            }
        }
        let fx = common::parse_fixture(&name, &std::fs::read_to_string(&path).expect("read"));
        if let Some(reason) = &fx.oracle_skip {
            eprintln!("skip {name}: {reason}");
            skipped += 1;
            continue;
        }
        let v4 = fx.level != LanguageLevel::Go122;
        let helm = oracles.join(if v4 { "helm-v4.3.1" } else { "helm" });
        write_chart(&work, &fx);
        let out = Command::new(&helm)
            .args(["template", "c", "--debug"])
            .current_dir(&work)
            .env("HELM_CONFIG_HOME", work.join("cfg"))
            .env("HELM_CACHE_HOME", work.join("cache"))
            .env("HELM_DATA_HOME", work.join("data"))
            .output()
            .expect("run helm");
        let stdout = String::from_utf8_lossy(&out.stdout).to_string();
        let stderr = String::from_utf8_lossy(&out.stderr).to_string();
        let source = format!("# Source: c/templates/{}\n", fx.exec);
        let helm_render = stdout.find(&source).and_then(|i| {
            let rest = &stdout[i + source.len()..];
            rest.find(&format!("\n{MARKER}"))
                .map(|j| rest[..j].to_string())
        });
        let helm_err = stderr.find("Error: ").map(|i| {
            let rest = &stderr[i + "Error: ".len()..];
            let rest = rest.split("\nhelm.go:").next().unwrap_or(rest);
            rest.trim_end().to_string()
        });
        let ours = common::run_fixture_full(&fx);
        let verdict = match (&ours, &helm_render, &helm_err) {
            (Ok(o), Some(h), _) => {
                let o = o.replace("<no value>", "");
                (o == *h)
                    .then_some(())
                    .ok_or(format!("output\n  ours: {o:?}\n  helm: {h:?}"))
            }
            (Err(e), None, Some(h)) => {
                let mine = helm_error(e, v4, &common::chart_name(&fx.exec));
                (mine == *h)
                    .then_some(())
                    .ok_or(format!("error\n  ours: {mine}\n  helm: {h}"))
            }
            (Ok(o), None, h) => Err(format!(
                "we rendered {o:?}, helm failed: {}",
                h.clone().unwrap_or_default()
            )),
            (Err(e), Some(h), _) => Err(format!("we failed ({e}), helm rendered {h:?}")),
            (Err(e), None, None) => Err(format!("we failed ({e}), helm printed nothing usable")),
        };
        match verdict {
            Ok(()) => agree += 1,
            Err(why) => disagree.push(format!("{name}: {why}")),
        }
    }
    let _ = std::fs::remove_dir_all(&work);
    eprintln!(
        "oracle: {agree} agree, {} disagree, {skipped} skipped",
        disagree.len()
    );
    for d in &disagree {
        eprintln!("DISAGREE {d}");
    }
    assert!(
        disagree.is_empty(),
        "{} fixtures disagree with helm",
        disagree.len()
    );
}
