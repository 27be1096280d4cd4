//! stackproof's own Helmfile stacks (`charts-under-test/helmfile/`) against the
//! outputs the real helmfile 0.166 + helm 3.15 produced for them (`regen.sh`).
//!
//! Each line of `cases.txt` is one helmfile invocation; the native run must give the
//! same exit code, the same stdout, the same error message and the same
//! `write-values` files. Prints `identical / total` and fails below the committed
//! floor. The stacks cover multi-part files, environments (values files, `.gotmpl`
//! values, inline values, missing-file handlers), state values flags, `bases:`,
//! nested `helmfiles:` with values and inherited selectors, `templates:` with
//! `inherit:` and `<<:` merge keys, conditions, `installed: false`, selectors, `needs`
//! ordering, `valuesTemplate`, `set:`, helper defines and the file functions
//! (`stack-basics`, `stack-nested`); a `helmfile.d/` directory with environment
//! `kubeContext`, `kubeContext/ns/name` needs, `--state-values-file`, `--namespace`,
//! `commonLabels`, `helmDefaults`, hooks and `.StateValues`/`.Environment.*`
//! (`stack-dir`); templated `bases:`, globbed sub-helmfiles with their own
//! selectors, several `inherit:` entries with `except:`, `setTemplate`,
//! `installedTemplate`, `!=` selectors and transitive needs (`stack-more`); chart
//! preparation: local charts whose `file://` dependencies Helmfile builds first
//! (aliases, conditions, tags, import-values, a stale `charts/`, a stale lock,
//! `skipDeps` in its three forms), a packaged `.tgz` chart and OCI charts without a
//! semver version (`stack-charts`); command-line flags (`--kube-context`,
//! `--allow-no-matching-release`, template's `--skip-tests`, `--include-crds`,
//! `--kube-version`, `--set`, `--values`, `--show-only`, `--skip-needs`, and the
//! accepted no-ops), `HELMFILE_ENVIRONMENT`, `HELMFILE_FILE_PATH`, and label keys, label values and
//! environment names that are not strings in YAML (`1.50:`, `true: yes`, `~:`)
//! (`stack-flags`, `stack-basics`);
//! `installed: false` needs that `--include-needs` pulls in but does not render
//! (`stack-needs`);
//! `toJson`/`toYaml` of Helmfile's template data structs (`stack-structs`);
//! `--output-dir` and `--output-dir-template` (whose `.Release` is the whole Go
//! `ReleaseSpec`: pointer, list and struct fields) with several documents per template,
//! hooks, CRDs and nested states, compared as the files helm would leave and its
//! `wrote` lines (`stack-outdir`); the command line read as helmfile's cobra reads
//! it: subcommand flags before the subcommand, ignored stray words, shorthand
//! groups, pflag values and cobra's errors (`cli-*`, `err-cli-*` on `stack-flags`);
//! vals references that resolve offline (`ref+echo://`, `ref+file://` in values,
//! values files, `set:`, the values list, `fetchSecretValue`, `expandSecretRefs`,
//! vals' run-wide cache and its errors) (`stack-vals-local`);
//! plus one file per error case (`stack-errors`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use clap::Parser;
use stackproof::cli::helmfile::{helmfile_argv, input_from_args, HelmfileArgs};
use stackproof::helmfile::{render_stack, StackInput, StackRender};

/// Checks that must be identical (raise as conformance improves; never lower it).
const FLOOR: usize = 779;

#[derive(Parser)]
#[command(name = "helmfile")]
struct Wrapper {
    #[command(flatten)]
    args: HelmfileArgs,
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("charts-under-test/helmfile")
}

struct Case {
    name: String,
    dir: String,
    env: BTreeMap<String, String>,
    args: Vec<String>,
}

fn cases() -> Vec<Case> {
    let text = std::fs::read_to_string(root().join("cases.txt")).unwrap_or_default();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| {
            let mut it = l.splitn(4, '|');
            let name = it.next()?.to_string();
            let dir = it.next()?.to_string();
            let env = it
                .next()?
                .split(',')
                .filter_map(|kv| kv.split_once('='))
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            let args = it.next()?.split_whitespace().map(String::from).collect();
            Some(Case {
                name,
                dir,
                env,
                args,
            })
        })
        .collect()
}

#[test]
fn cases_file_is_complete() {
    let cs = cases();
    assert!(cs.len() >= 25, "cases.txt lists {} cases", cs.len());
    for c in &cs {
        assert!(
            root().join(&c.dir).is_dir(),
            "{}: no stack {}",
            c.name,
            c.dir
        );
        assert!(
            root().join("expected").join(&c.name).join("rc").is_file(),
            "{}: no expected output (run regen.sh)",
            c.name
        );
    }
}

/// A release whose chart failed: Helmfile reports the helm process it ran (its
/// temporary values paths included), stackproof runs no process and reports helm's
/// own error line after the same state context. Returns that expected form. When
/// Helmfile wrapped the process error in a list (`[building dependencies of local
/// chart: command …]`), the closing bracket after the process output stays.
fn helm_failure(exp: &str) -> Option<String> {
    let (context, rest) = exp.split_once(": command \"")?;
    rest.split_once("\" exited with non-zero status:")?;
    let stderr = rest.split_once("\nSTDERR:\n")?.1;
    let line = stderr.lines().next()?.trim();
    let close = if context.contains(": [") && exp.trim_end().ends_with(']') {
        "]"
    } else {
        ""
    };
    Some(format!("{context}: {line}{close}\n"))
}

/// Where `@OUT@` in a case's arguments points: nothing is written there (the test
/// looks at what would be), and regen.sh's files and listings call it `OUT`.
const OUT: &str = "/nonexistent-stackproof-out";

/// The input of a case's helmfile invocation, with `extra` flags put first, read
/// as the binary reads it (cobra's rules); `Err` is the command-line error helmfile
/// exits 3 with.
fn input_for(c: &Case, extra: &[&str]) -> Result<StackInput, String> {
    let mut words: Vec<String> = extra.iter().map(|s| s.to_string()).collect();
    words.extend(c.args.iter().map(|a| a.replace("@OUT@", OUT)));
    if c.args.iter().any(|a| a == "write-values") {
        words.push("--output-file-template".into());
        words.push("{{ .Release.Name }}.yaml".into());
    }
    let mut argv = vec!["helmfile".to_string()];
    argv.extend(helmfile_argv(&words)?);
    let parsed = match Wrapper::try_parse_from(&argv) {
        Ok(w) => w,
        Err(e) => panic!("{}: bad arguments: {e}", c.name),
    };
    let wd = root().join(&c.dir);
    match input_from_args(&parsed.args, &wd, c.env.clone()) {
        Ok(i) => Ok(i),
        Err(e) => panic!("{}: {e}", c.name),
    }
}

/// With `--allow-exec` the states are templated one after another instead of
/// overlapping (a later state must not run programs after an earlier one failed);
/// the stacks that run no program must print and fail exactly as without it.
#[test]
fn allow_exec_keeps_every_result() {
    for c in cases()
        .into_iter()
        .filter(|c| !c.args.iter().any(|a| a == "--allow-exec"))
    {
        let (Ok(plain), Ok(exec)) = (input_for(&c, &[]), input_for(&c, &["--allow-exec"])) else {
            continue;
        };
        let plain = render_stack(&plain);
        let exec = render_stack(&exec);
        assert_eq!(exec.exit_code, plain.exit_code, "{}", c.name);
        assert_eq!(exec.stdout, plain.stdout, "{}", c.name);
        assert_eq!(
            exec.error.as_ref().map(|e| &e.message),
            plain.error.as_ref().map(|e| &e.message),
            "{}",
            c.name
        );
        let files = |r: &StackRender| -> Vec<(String, String)> {
            r.written
                .iter()
                .map(|f| (f.path.clone(), f.content.clone()))
                .collect()
        };
        assert_eq!(files(&exec), files(&plain), "{}", c.name);
    }
}

/// `-<8 hex digits>-` (the state path's hash in default output folders, which
/// depends on where the tree is) as `-HASH-`.
fn mask_hash(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = String::new();
    let mut i = 0;
    while i < s.len() {
        let hashed = b[i] == b'-'
            && i + 10 <= b.len()
            && b[i + 9] == b'-'
            && b[i + 1..i + 9]
                .iter()
                .all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(c));
        if hashed {
            out.push_str("-HASH-");
            i += 10;
        } else {
            let ch = s[i..].chars().next().unwrap_or('?');
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    out
}

/// A written path as regen.sh names it: `OUT/...` or `TREE/...`, hash masked.
fn output_key(abs: &Path) -> String {
    let abs = stackproof::source::normalize(abs);
    let shown = if let Ok(rest) = abs.strip_prefix(OUT) {
        format!("OUT/{}", rest.display())
    } else if let Ok(rest) = abs.strip_prefix(root()) {
        format!("TREE/{}", rest.display())
    } else {
        abs.display().to_string()
    };
    mask_hash(&shown)
}

/// `template --output-dir`: the files and folders helm would leave (appending as
/// Helm does), and its `wrote` lines as Helmfile logs them.
fn output_tree(out: &StackRender) -> (BTreeMap<String, String>, Vec<String>, String) {
    let mut files: BTreeMap<String, String> = BTreeMap::new();
    let mut dirs = std::collections::BTreeSet::new();
    // Folders helm (or Helmfile) makes: regen.sh lists those new after the run.
    let mut add_dirs = |p: &Path| {
        for a in p.ancestors() {
            let k = output_key(a);
            let new = match (k.strip_prefix("OUT/"), k.strip_prefix("TREE/")) {
                (Some(rest), _) => !rest.is_empty(),
                (_, Some(rest)) => !root().join(rest).exists(),
                _ => false,
            };
            if new {
                dirs.insert(k);
            }
        }
    };
    for f in &out.manifest_files {
        add_dirs(&f.base.join(&f.dir));
        let mut this_run = std::collections::HashSet::new();
        for w in &f.writes {
            let abs = f.base.join(&w.path);
            if let Some(parent) = abs.parent() {
                add_dirs(parent);
            }
            let key = output_key(&abs);
            let append = if w.hook {
                files.contains_key(&key)
            } else {
                this_run.contains(&w.source)
            };
            let entry = files.entry(key).or_default();
            if !append {
                entry.clear();
            }
            entry.push_str(&w.text());
            this_run.insert(w.source.clone());
        }
    }
    let log = mask_hash(&out.log.replace(OUT, "OUT"))
        .lines()
        .filter(|l| l.starts_with("wrote "))
        .map(|l| format!("{l}\n"))
        .collect();
    (files, dirs.into_iter().collect(), log)
}

/// Every file under `dir`, by its path relative to `dir`.
fn files_under(dir: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if let Ok(rel) = p.strip_prefix(dir) {
                out.insert(
                    rel.display().to_string(),
                    std::fs::read_to_string(&p).unwrap_or_default(),
                );
            }
        }
    }
    out
}

#[test]
fn stacks_match_helmfile() {
    let mut identical = 0;
    let mut total = 0;
    let mut report = Vec::new();
    for c in cases() {
        let exp_dir = root().join("expected").join(&c.name);
        let read = |f: &str| std::fs::read_to_string(exp_dir.join(f)).ok();
        let is_wv = c.args.iter().any(|a| a == "write-values");
        let mut check = |what: &str, ok: bool, detail: String| {
            total += 1;
            if ok {
                identical += 1;
            } else {
                report.push(format!("{}: {what} differs{detail}", c.name));
            }
        };
        let rc: i32 = read("rc").and_then(|s| s.trim().parse().ok()).unwrap_or(-1);
        let out = match input_for(&c, &[]) {
            Ok(input) => render_stack(&input),
            Err(message) => {
                // A command-line error: helmfile prints the message alone, exit 3.
                check("exit code", rc == 3, format!(" (want {rc}, got 3)"));
                let exp = read("error").unwrap_or_default();
                let got = format!("{message}\n");
                let detail = format!(
                    "\n    want: {}\n    got:  {}",
                    exp.trim_end(),
                    got.trim_end()
                );
                check("error", got == exp, detail);
                check(
                    "stdout",
                    read("stdout").unwrap_or_default().is_empty(),
                    String::new(),
                );
                continue;
            }
        };
        check(
            "exit code",
            out.exit_code == rc,
            format!(" (want {rc}, got {})", out.exit_code),
        );
        // On failure too: what the states before the failing one printed.
        let exp = read("stdout").unwrap_or_default();
        check("stdout", out.stdout == exp, String::new());
        if let Some(exp) = read("error") {
            let exp = helm_failure(&exp).unwrap_or(exp);
            let got = out
                .error
                .as_ref()
                .map(|e| format!("{}\n", e.message))
                .unwrap_or_default();
            let detail = format!(
                "\n    want: {}\n    got:  {}",
                exp.trim_end(),
                got.trim_end()
            );
            check("error", got == exp, detail);
        }
        if c.args.iter().any(|a| a.starts_with("--output-dir")) {
            let (files, dirs, log) = output_tree(&out);
            let want = files_under(&exp_dir.join("files"));
            for (name, exp) in &want {
                check(
                    &format!("files/{name}"),
                    files.get(name) == Some(exp),
                    String::new(),
                );
            }
            let extra: Vec<&String> = files.keys().filter(|k| !want.contains_key(*k)).collect();
            check(
                "set of written files",
                extra.is_empty(),
                format!(" (not written by helm: {extra:?})"),
            );
            let want_dirs: Vec<String> = read("dirs")
                .unwrap_or_default()
                .lines()
                .map(String::from)
                .collect();
            check(
                "folders",
                dirs == want_dirs,
                format!("\n    want: {want_dirs:?}\n    got:  {dirs:?}"),
            );
            let want_log = read("log").unwrap_or_default();
            check(
                "wrote lines",
                log == want_log,
                format!("\n    want: {want_log}\n    got:  {log}"),
            );
        }
        if is_wv {
            if let Ok(rd) = std::fs::read_dir(exp_dir.join("values")) {
                let written: BTreeMap<String, &str> = out
                    .written
                    .iter()
                    .map(|f| (f.path.clone(), f.content.as_str()))
                    .collect();
                let mut files: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
                files.sort();
                for f in files {
                    let name = f
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    let exp = std::fs::read_to_string(&f).unwrap_or_default();
                    let ok = written.get(&name).is_some_and(|g| *g == exp);
                    check(&format!("values/{name}"), ok, String::new());
                }
            }
        }
    }
    for r in &report {
        eprintln!("{r}");
    }
    eprintln!("Helmfile stacks: {identical} / {total} identical");
    assert!(total > 0);
    assert!(
        identical >= FLOOR,
        "{identical} / {total} identical, floor {FLOOR}"
    );
}
