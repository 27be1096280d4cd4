//! Differential checks of fixtures against the real programs (the oracles in
//! `STACKPROOF_ORACLES`: `helm` = 3.15.3, `helm-v4.3.1`, `helmfile` = 0.166.0).
//!
//! Helm: a fixture becomes a one-file chart `c` (data as `values.yaml`, template
//! files under `templates/`) rendered with `helm template c --debug` — Helm 3.15.3 for
//! language level 1.22, Helm 4.3.1 for 1.27. Expected successes are compared with the
//! raw rendered file (a trailing invalid YAML line forces `--debug` to print it
//! unprocessed); expected failures with Helm's `Error:` text, after applying to our
//! Go-level error the re-formatting Helm applies (`cleanupParseError`,
//! `cleanupExecError`, Helm 4's `reformatExecErrorMsg`), reimplemented below from its
//! documented behaviour.
//!
//! Helmfile: the fixture's template becomes part 1 of `helmfile.yaml.gotmpl` (data
//! passed with `--state-values-file`, helpers and files beside it) and `helmfile
//! --log-level debug build` is run; the rendered part is read back from the debug log
//! (`second-pass rendering result of ...`, one numbered line per line), a failure from
//! the `error during ... parsing:` message.

use std::path::{Path, PathBuf};
use std::process::Command;

use stackproof::template::{Error, ErrorKind, LanguageLevel};

use super::Fixture;

const MARKER: &str = "@@@ORACLE_END@@@";

/// The oracle directory, if `STACKPROOF_ORACLES` names one holding `helm`.
pub fn oracle_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("STACKPROOF_ORACLES").map(PathBuf::from)?;
    dir.join("helm").exists().then_some(dir)
}

/// The `*.txt` fixtures directly in `dir`, sorted, narrowed by the `FIXTURE` filter.
pub fn fixture_paths(dir: &Path) -> Vec<(String, PathBuf)> {
    let only = std::env::var("FIXTURE").ok();
    let mut v: Vec<(String, PathBuf)> = std::fs::read_dir(dir)
        .expect("read fixtures")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "txt"))
        .filter_map(|p| {
            let name = p.file_name()?.to_str()?.to_string();
            Some((name, p))
        })
        .filter(|(n, _)| only.as_ref().is_none_or(|o| n.contains(o.as_str())))
        .collect();
    v.sort();
    v
}

/// Agreement counts for one group of fixtures.
#[derive(Default)]
pub struct Tally {
    pub agree: usize,
    pub skipped: usize,
    pub disagree: Vec<String>,
}

impl Tally {
    pub fn record(&mut self, name: &str, verdict: Result<(), String>) {
        match verdict {
            Ok(()) => self.agree += 1,
            Err(why) => self.disagree.push(format!("{name}: {why}")),
        }
    }

    pub fn total(&self) -> usize {
        self.agree + self.disagree.len()
    }

    /// Prints `LABEL: agree/total agree, N skipped` and every disagreement.
    pub fn print(&self, label: &str) {
        eprintln!(
            "{label}: {}/{} agree, {} disagree, {} skipped",
            self.agree,
            self.total(),
            self.disagree.len(),
            self.skipped
        );
        for d in &self.disagree {
            eprintln!("DISAGREE [{label}] {d}");
        }
    }
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

/// Our error as `helm template` would print it after `Error: `.
pub fn helm_error(e: &Error, v4: bool, file: &str) -> String {
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

fn write_chart(dir: &Path, fx: &Fixture) {
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

/// Environment for an oracle process: nothing from ours but what the tools need.
fn oracle_command(program: &Path, oracles: &Path, work: &Path) -> Command {
    let mut cmd = Command::new(program);
    let path = format!("{}:/usr/local/bin:/usr/bin:/bin", oracles.display());
    cmd.env_clear()
        .env("PATH", path)
        .env("HOME", work)
        .env("HELM_CONFIG_HOME", work.join("cfg"))
        .env("HELM_CACHE_HOME", work.join("cache"))
        .env("HELM_DATA_HOME", work.join("data"));
    cmd
}

/// Renders a Helm fixture with the real helm of its level (in `work`) and compares
/// with our result.
/// Our text as the CLI prints it (a Go string's raw bytes as bytes, see
/// `template::gostr`), read back the way the oracle's output is read.
fn as_printed(s: &str) -> String {
    String::from_utf8_lossy(&stackproof::template::gostr::to_bytes(s)).into_owned()
}

pub fn helm_check(
    oracles: &Path,
    work: &Path,
    fx: &Fixture,
    ours: &Result<String, Error>,
) -> Result<(), String> {
    let v4 = fx.level != LanguageLevel::Go122;
    let helm = oracles.join(if v4 { "helm-v4.3.1" } else { "helm" });
    write_chart(work, fx);
    let out = oracle_command(&helm, oracles, work)
        .args(["template", "c", "--debug"])
        .current_dir(work)
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
    match (ours, &helm_render, &helm_err) {
        (Ok(o), Some(h), _) => {
            let o = as_printed(&o.replace("<no value>", ""));
            (o == *h)
                .then_some(())
                .ok_or(format!("output\n  ours: {o:?}\n  helm: {h:?}"))
        }
        (Err(e), None, Some(h)) => {
            let mine = as_printed(&helm_error(e, v4, &super::chart_name(&fx.exec)));
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
    }
}

/// The part the Helmfile oracle renders the fixture as.
const HELMFILE_PART: &str = "helmfile.yaml.gotmpl.part.1";

/// Reads the rendered part back from Helmfile's debug log.
fn helmfile_render(log: &str) -> Option<String> {
    let head = format!("second-pass rendering result of \"{HELMFILE_PART}\":\n");
    let start = log.find(&head)? + head.len();
    let mut lines = Vec::new();
    for line in log[start..].split('\n') {
        // `%2d: ` numbering; the entry ends with an unnumbered empty line.
        let Some((num, text)) = line.split_once(": ") else {
            break;
        };
        if num.trim().parse::<usize>().ok() != Some(lines.len()) {
            break;
        }
        lines.push(text);
    }
    Some(lines.join("\n"))
}

/// Renders a `registry=helmfile` fixture with the real helmfile (in `dir`, prepared
/// with the fixture's files) and compares with our result.
pub fn helmfile_check(
    oracles: &Path,
    dir: &Path,
    fx: &Fixture,
    ours: &Result<String, Error>,
) -> Result<(), String> {
    super::funcs::write_helmfile_dir(fx, dir);
    std::fs::write(
        dir.join("helmfile.yaml.gotmpl"),
        super::funcs::helmfile_state_text(fx),
    )
    .expect("write state");
    let mut cmd = oracle_command(&oracles.join("helmfile"), oracles, dir);
    cmd.current_dir(dir).args(["--log-level", "debug"]);
    if !fx.data.trim().is_empty() {
        cmd.args(["--state-values-file", "values.yaml"]);
    }
    cmd.arg("build");
    for (k, v) in &fx.env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("run helmfile");
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    );
    let rendered = helmfile_render(&log);
    let marker = format!("error during {HELMFILE_PART} parsing: ");
    let failed = log
        .rfind(&marker)
        .map(|i| log[i + marker.len()..].trim_end().to_string());
    match (ours, &rendered, &failed) {
        (Ok(o), Some(h), _) => (o == h)
            .then_some(())
            .ok_or(format!("output\n  ours:     {o:?}\n  helmfile: {h:?}")),
        (Err(e), None, Some(h)) => {
            let mine = e.to_string();
            (mine == *h)
                .then_some(())
                .ok_or(format!("error\n  ours:     {mine}\n  helmfile: {h}"))
        }
        (Ok(o), None, _) => Err(format!("we rendered {o:?}, helmfile: {log}")),
        (Err(e), Some(h), _) => Err(format!("we failed ({e}), helmfile rendered {h:?}")),
        (Err(e), None, None) => Err(format!("we failed ({e}), helmfile: {log}")),
    }
}
