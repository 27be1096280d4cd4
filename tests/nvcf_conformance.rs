//! Conformance against the real helmfile 0.166 + helm 3.15 on NVIDIA's NVCF stack.
//!
//! Every cell in `$STACKPROOF_SHARED/nvcf/expected/` (else `../shared/nvcf/expected`)
//! is rendered natively with the cell's environment variables, state values and
//! overlay files (never written to the tree), for all three commands, and compared
//! byte for byte with what helmfile printed: `list.json`, `values/<release>.yaml`,
//! `template/<ns>__<release>.yaml` (after the same masking of random spans that
//! `tools/normalize.py` applies) and `error.txt`. The test prints `identical /
//! total` per cell and overall, and fails when fewer files than the committed floor
//! are identical. Skips (with the reason) when the shared data is absent.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use stackproof::helmfile::{
    render_stack, ChartSources, Command, RenderEnv, StackInput, StackRender,
};
use stackproof::source::Vfs;

/// Files that must be identical (raise it as conformance improves; never lower it).
const FLOOR: usize = 362;

fn shared_dir() -> Option<PathBuf> {
    if let Ok(p) = std::env::var("STACKPROOF_SHARED") {
        let p = PathBuf::from(p);
        return p.is_dir().then_some(p);
    }
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared");
    p.is_dir().then_some(p)
}

/// The few fields of `cell.yaml` the test needs (a fixed, generated format).
#[derive(Debug, Default)]
struct Cell {
    env: BTreeMap<String, String>,
    files: BTreeMap<String, String>,
    environment: String,
    /// (flag, key, value)
    state_values: Vec<(String, String, String)>,
    /// Each command's exit code (`commands[].rc`), by command name.
    rcs: BTreeMap<String, i64>,
}

fn unquote(s: &str) -> String {
    let s = s.trim();
    if let Some(inner) = s.strip_prefix('\'').and_then(|x| x.strip_suffix('\'')) {
        return inner.replace("''", "'");
    }
    if let Some(inner) = s.strip_prefix('"').and_then(|x| x.strip_suffix('"')) {
        let mut out = String::new();
        let mut chars = inner.chars();
        while let Some(c) = chars.next() {
            if c == '\\' {
                match chars.next() {
                    Some('n') => out.push('\n'),
                    Some('t') => out.push('\t'),
                    Some(o) => out.push(o),
                    None => {}
                }
            } else {
                out.push(c);
            }
        }
        return out;
    }
    s.to_string()
}

fn parse_cell(text: &str) -> Cell {
    let mut cell = Cell::default();
    let mut section = String::new();
    let mut current: Option<(String, String, String)> = None;
    let mut command = String::new();
    for line in text.lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        if !line.starts_with(' ') && !line.starts_with('-') {
            if let Some(sv) = current.take() {
                cell.state_values.push(sv);
            }
            let (k, v) = line.split_once(':').unwrap_or((line, ""));
            section = k.to_string();
            if k == "environment" {
                cell.environment = unquote(v);
            }
            continue;
        }
        match section.as_str() {
            "env" | "files" => {
                if let Some((k, v)) = line.trim().split_once(':') {
                    let target = if section == "env" {
                        &mut cell.env
                    } else {
                        &mut cell.files
                    };
                    target.insert(k.trim().to_string(), unquote(v));
                }
            }
            "state_values" => {
                let t = line.trim_start_matches(['-', ' ']);
                if line.starts_with('-') {
                    if let Some(sv) = current.take() {
                        cell.state_values.push(sv);
                    }
                    current = Some(Default::default());
                }
                if let (Some(cur), Some((k, v))) = (current.as_mut(), t.split_once(':')) {
                    match k.trim() {
                        "flag" => cur.0 = unquote(v),
                        "key" => cur.1 = unquote(v),
                        "value" => cur.2 = unquote(v),
                        _ => {}
                    }
                }
            }
            "commands" => {
                if let Some(name) = line.strip_prefix("- name:") {
                    command = unquote(name);
                } else if let Some(rc) = line.strip_prefix("  rc:") {
                    if let Ok(rc) = rc.trim().parse() {
                        cell.rcs.insert(command.clone(), rc);
                    }
                }
            }
            _ => {}
        }
    }
    if let Some(sv) = current.take() {
        cell.state_values.push(sv);
    }
    cell
}

/// `tools/normalize.py`'s two rules, by release name.
fn normalize(text: &str, release: &str) -> String {
    match release {
        "nats" => text
            .split_inclusive('\n')
            .map(|line| {
                let body = line.strip_suffix('\n').unwrap_or(line);
                let indent = body.len() - body.trim_start().len();
                let rest = &body[indent..];
                for key in [
                    "user_pub",
                    "nkey_seed",
                    "account_pub",
                    "nkey_signature",
                    "user.key",
                    "user.pub",
                ] {
                    if let Some(after) = rest.strip_prefix(key).and_then(|r| r.strip_prefix(':')) {
                        let spaces = after.len() - after.trim_start_matches(' ').len();
                        let val = &after[spaces..];
                        let ok = val.len() >= 3 && val.starts_with('"') && val.ends_with('"') && {
                            let inner = &val[1..val.len() - 1];
                            let stripped = inner.trim_end_matches('=');
                            !stripped.is_empty()
                                && stripped
                                    .chars()
                                    .all(|c| c.is_ascii_alphanumeric() || c == '+' || c == '/')
                        };
                        if ok {
                            let nl = if line.ends_with('\n') { "\n" } else { "" };
                            return format!(
                                "{}{}:{}\"<RANDOM:nats-nkey>\"{nl}",
                                &body[..indent],
                                key,
                                &after[..spaces]
                            );
                        }
                    }
                }
                line.to_string()
            })
            .collect(),
        "opentelemetry-operator" => {
            const PAT: &str = "LS0tLS1CRUdJTi";
            let b = text.as_bytes();
            let is_b64 = |c: u8| c.is_ascii_alphanumeric() || c == b'+' || c == b'/';
            let mut out = String::with_capacity(text.len());
            let mut i = 0;
            while i < b.len() {
                if text[i..].starts_with(PAT) && (i == 0 || !is_b64(b[i - 1])) {
                    let mut j = i + PAT.len();
                    while j < b.len() && is_b64(b[j]) {
                        j += 1;
                    }
                    while j < b.len() && b[j] == b'=' {
                        j += 1;
                    }
                    out.push_str("<RANDOM:otel-webhook-cert>");
                    i = j;
                } else {
                    let c = text[i..].chars().next().unwrap_or('\0');
                    out.push(c);
                    i += c.len_utf8().max(1);
                }
            }
            out
        }
        _ => text.to_string(),
    }
}

fn input_for(nvcf: &Path, cell: &Cell, command: Command) -> StackInput {
    let stack = nvcf.join("deploy/stacks/self-managed");
    let overlays: Vec<(PathBuf, Vec<u8>)> = cell
        .files
        .iter()
        .map(|(k, v)| (stack.join(k), v.clone().into_bytes()))
        .collect();
    let mut set = Vec::new();
    let mut set_string = Vec::new();
    for (flag, k, v) in &cell.state_values {
        let item = format!("{k}={v}");
        if flag == "--state-values-set-string" {
            set_string.push(item);
        } else {
            set.push(item);
        }
    }
    StackInput {
        working_dir: stack,
        file: Some("helmfile.d".to_string()),
        environment: cell.environment.clone(),
        state_values_set: set,
        state_values_set_string: set_string,
        render: RenderEnv {
            vfs: Vfs::with_overlays(overlays),
            env: Arc::new(cell.env.clone()),
            confine_to: Some(nvcf.to_path_buf()),
            ..RenderEnv::default()
        },
        chart_sources: ChartSources::new(
            BTreeMap::new(),
            vec![
                nvcf.join("deploy/helm"),
                nvcf.join("deploy/stacks"),
                nvcf.join("src/uis/nvcf-ui/helm"),
                nvcf.join("upstream-charts"),
            ],
        ),
        command,
        ..StackInput::default()
    }
}

#[derive(Default)]
struct Tally {
    identical: usize,
    total: usize,
    diffs: Vec<String>,
}

impl Tally {
    fn check(&mut self, what: String, expected: &str, actual: Option<&str>) {
        self.total += 1;
        match actual {
            Some(a) if a == expected => self.identical += 1,
            Some(a) => {
                let line = expected
                    .lines()
                    .zip(a.lines())
                    .position(|(x, y)| x != y)
                    .map_or_else(|| "length".to_string(), |l| format!("line {}", l + 1));
                self.diffs.push(format!("{what}: differs at {line}"));
            }
            None => self.diffs.push(format!("{what}: not produced")),
        }
    }
}

fn err_text(out: &StackRender) -> Option<String> {
    out.error.as_ref().map(|e| format!("{}\n", e.message))
}

#[test]
fn nvcf_cells() {
    let Some(shared) = shared_dir() else {
        eprintln!(
            "skipping: shared test data not found (set STACKPROOF_SHARED or place it at ../shared)"
        );
        return;
    };
    let nvcf = shared.join("nvcf");
    let expected = nvcf.join("expected");
    let Ok(entries) = std::fs::read_dir(&expected) else {
        eprintln!("skipping: {} not found", expected.display());
        return;
    };
    let mut cells: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    cells.sort();
    let mut all = Tally::default();
    for dir in cells {
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let Ok(text) = std::fs::read_to_string(dir.join("cell.yaml")) else {
            continue;
        };
        let cell = parse_cell(&text);
        let mut t = Tally::default();

        let list = render_stack(&input_for(
            &nvcf,
            &cell,
            Command::List {
                json: true,
                skip_charts: true,
            },
        ));
        let wv = render_stack(&input_for(
            &nvcf,
            &cell,
            Command::WriteValues {
                output_file_template: Some("{{ .Release.Name }}.yaml".to_string()),
            },
        ));
        let tpl = render_stack(&input_for(
            &nvcf,
            &cell,
            Command::Template {
                render_manifests: true,
            },
        ));

        // `error.txt` holds the failing template command's error (else the first
        // failing command's); a command failing with another text has its own
        // `error-<command>.txt`. With exit codes recorded, a command that
        // succeeded is checked by its outputs alone.
        if let Ok(first) = std::fs::read_to_string(dir.join("error.txt")) {
            for (cmd, out) in [("list", &list), ("write-values", &wv), ("template", &tpl)] {
                if cell.rcs.get(cmd) == Some(&0) {
                    continue;
                }
                let own = format!("error-{cmd}.txt");
                let (file, exp) = match std::fs::read_to_string(dir.join(&own)) {
                    Ok(text) => (own, text),
                    Err(_) => ("error.txt".to_string(), first.clone()),
                };
                t.check(
                    format!("{name}/{file} ({cmd})"),
                    &exp,
                    err_text(out).as_deref(),
                );
            }
        }
        if let Ok(exp) = std::fs::read_to_string(dir.join("list.json")) {
            let got = list.error.is_none().then_some(list.stdout.as_str());
            t.check(format!("{name}/list.json"), &exp, got);
        }
        let written: BTreeMap<String, &str> = wv
            .written
            .iter()
            .map(|f| (f.path.clone(), f.content.as_str()))
            .collect();
        if let Ok(rd) = std::fs::read_dir(dir.join("values")) {
            let mut files: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
            files.sort();
            for f in files {
                let fname = f
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let exp = std::fs::read_to_string(&f).unwrap_or_default();
                t.check(
                    format!("{name}/values/{fname}"),
                    &exp,
                    written.get(&fname).copied(),
                );
            }
        }
        let rendered: BTreeMap<String, String> = tpl
            .rendered()
            .filter_map(|(_, r)| {
                r.manifests.as_ref().map(|m| {
                    (
                        format!("{}__{}.yaml", r.namespace, r.name),
                        normalize(&format!("{m}\n"), &r.name),
                    )
                })
            })
            .collect();
        if let Ok(rd) = std::fs::read_dir(dir.join("template")) {
            let mut files: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
            files.sort();
            for f in files {
                let fname = f
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let exp = std::fs::read_to_string(&f).unwrap_or_default();
                t.check(
                    format!("{name}/template/{fname}"),
                    &exp,
                    rendered.get(&fname).map(String::as_str),
                );
            }
        }
        eprintln!("{name}: {} / {} identical", t.identical, t.total);
        for d in t.diffs.iter().take(8) {
            eprintln!("  {d}");
        }
        if let Some(e) = &tpl.error {
            eprintln!(
                "  template error: {}",
                e.message.lines().next().unwrap_or("")
            );
        }
        all.identical += t.identical;
        all.total += t.total;
    }
    eprintln!(
        "NVCF conformance: {} / {} identical",
        all.identical, all.total
    );
    assert!(
        all.total > 0,
        "no expected files found under {}",
        expected.display()
    );
    assert!(
        all.identical >= FLOOR,
        "conformance fell below the floor: {} / {} identical, floor {FLOOR}",
        all.identical,
        all.total
    );
}

#[test]
fn normalisation_masks_random_spans() {
    let nats = "  user_pub: \"UABC+/=\"\n  other: \"x\"\n    nkey_seed:  \"SU12==\"\n";
    assert_eq!(
        normalize(nats, "nats"),
        "  user_pub: \"<RANDOM:nats-nkey>\"\n  other: \"x\"\n    nkey_seed:  \"<RANDOM:nats-nkey>\"\n"
    );
    let otel = "caBundle: LS0tLS1CRUdJTiBDRVJU+/ab==\nx: aLS0tLS1CRUdJTi\n";
    assert_eq!(
        normalize(otel, "opentelemetry-operator"),
        "caBundle: <RANDOM:otel-webhook-cert>\nx: aLS0tLS1CRUdJTi\n"
    );
    assert_eq!(normalize(otel, "other"), otel);
}

#[test]
fn cell_yaml_reader() {
    let text = "cell: x\nenv:\n  HELMFILE_ENV: base\nfiles:\n  secrets/base-secrets.yaml: \"{}\\n\"\nenvironment: default\nstate_values:\n- flag: --state-values-set\n  key: a.b\n  value: 'true'\n- flag: --state-values-set-string\n  key: c\n  value: '*.x'\nplaceholders:\n  a: b\ncommands:\n- name: list\n  argv:\n  - helmfile\n  rc: 0\n- name: template\n  rc: 1\n";
    let c = parse_cell(text);
    assert_eq!(c.env.get("HELMFILE_ENV").map(String::as_str), Some("base"));
    assert_eq!(
        c.files.get("secrets/base-secrets.yaml").map(String::as_str),
        Some("{}\n")
    );
    assert_eq!(c.environment, "default");
    assert_eq!(
        c.state_values,
        vec![
            (
                "--state-values-set".to_string(),
                "a.b".to_string(),
                "true".to_string()
            ),
            (
                "--state-values-set-string".to_string(),
                "c".to_string(),
                "*.x".to_string()
            )
        ]
    );
    assert_eq!(
        c.rcs,
        BTreeMap::from([("list".to_string(), 0), ("template".to_string(), 1)])
    );
}
