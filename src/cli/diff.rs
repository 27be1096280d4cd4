//! `stackproof diff`: what a change does to rendered output. Renders the cells of a
//! configuration twice, from the working tree and from a base version (a git revision
//! or another directory), and prints the differences per release list, per release's
//! values and per manifest, as unified diffs a reviewer can read.
//!
//! The base tree for `--base REV` comes from `git archive` into a temporary directory
//! that is removed afterwards: the checked tree is never written to. Paths inside the
//! repository (or inside `--base-dir`'s counterpart) are swapped to the base version;
//! paths outside it (say, a rule pack kept next to the stack) stay as they are.
//!
//! Exit codes follow diff(1): 0 no differences, 1 differences, 2 errors.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::matrix::config::{self, normalize, Config, LoadOptions};
use crate::matrix::error::InputError;
use crate::matrix::render::{render_cells, CellRef, Renderers};
use crate::report::diff::{diff_cells, render};
use crate::rules::eval::EvalOptions;
use crate::rules::select::glob_match;
use crate::template::Clock;

/// Arguments of `stackproof diff`.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct DiffArgs {
    /// The configuration file (default: `stackproof.yaml` in the working directory or
    /// the nearest directory above it).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Resolve every path in the configuration relative to DIR.
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// The git revision to compare against (`main`, `HEAD~1`, a commit).
    #[arg(
        long,
        value_name = "REV",
        conflicts_with = "base_dir",
        required_unless_present = "base_dir"
    )]
    pub base: Option<String>,
    /// A directory holding the old version of the tree: of `--root` when given, else
    /// of the configuration file's directory.
    #[arg(long, value_name = "DIR")]
    pub base_dir: Option<PathBuf>,
    /// Only compare cells with this name (glob; repeatable).
    #[arg(long = "cell", value_name = "NAME")]
    pub cells: Vec<String>,
    /// Only compare targets with this name (glob; repeatable).
    #[arg(long = "target", value_name = "NAME")]
    pub targets: Vec<String>,
    /// Print the changes as JSON (one object per changed item, without the texts).
    #[arg(long)]
    pub json: bool,
}

/// A temporary directory removed when dropped.
struct TempTree(PathBuf);

impl Drop for TempTree {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn git(dir: &Path, args: &[&str]) -> Result<String, InputError> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .map_err(|e| InputError::new(format!("cannot run git: {e}")))?;
    if !out.status.success() {
        return Err(InputError::new(format!(
            "git {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Extracts `rev` of the repository at `top` into a fresh temporary directory.
fn extract_revision(top: &Path, rev: &str) -> Result<TempTree, InputError> {
    git(
        top,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{rev}^{{tree}}"),
        ],
    )
    .map_err(|_| InputError::new(format!("--base {rev}: no such revision")))?;
    let dir = std::env::temp_dir().join(format!(
        "stackproof-diff-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0)
    ));
    std::fs::create_dir_all(&dir)
        .map_err(|e| InputError::new(format!("cannot create {}: {e}", dir.display())))?;
    let tree = TempTree(dir);
    let mut archive = Command::new("git")
        .arg("-C")
        .arg(top)
        .args(["archive", "--format=tar", rev])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| InputError::new(format!("cannot run git archive: {e}")))?;
    let stdout = archive
        .stdout
        .take()
        .ok_or_else(|| InputError::new("git archive: no output"))?;
    tar::Archive::new(stdout)
        .unpack(&tree.0)
        .map_err(|e| InputError::new(format!("cannot unpack {rev}: {e}")))?;
    let status = archive
        .wait()
        .map_err(|e| InputError::new(format!("git archive: {e}")))?;
    if !status.success() {
        return Err(InputError::new(format!("git archive {rev} failed")));
    }
    Ok(tree)
}

/// Maps a path under `from` to the same place under `to`; other paths stay.
fn swap(path: &Path, from: &Path, to: &Path) -> PathBuf {
    match path.strip_prefix(from) {
        Ok(rel) => to.join(rel),
        Err(_) => path.to_path_buf(),
    }
}

fn matches_any(patterns: &[String], text: &str) -> bool {
    patterns.is_empty() || patterns.iter().any(|p| glob_match(p, text))
}

fn selected(config: &Config, args: &DiffArgs) -> Vec<CellRef> {
    let mut cells = Vec::new();
    for (ti, t) in config.targets.iter().enumerate() {
        if !matches_any(&args.targets, &t.name) {
            continue;
        }
        for (ci, c) in t.cells.iter().enumerate() {
            if matches_any(&args.cells, &c.name) {
                cells.push(CellRef {
                    target: ti,
                    cell: ci,
                });
            }
        }
    }
    cells
}

/// The diff as printed text and exit code, or an input error.
pub fn run_diff(args: &DiffArgs, cwd: &Path, color: bool) -> Result<(String, i32), InputError> {
    let config_file = match &args.config {
        Some(f) => normalize(&cwd.join(f)),
        None => config::discover(cwd).ok_or_else(|| {
            InputError::new(format!(
                "no {} in {} or any directory above it",
                config::CONFIG_FILE_NAME,
                cwd.display()
            ))
            .with_help("pass --config FILE")
        })?,
    };
    let root = args.root.as_ref().map(|r| normalize(&cwd.join(r)));
    let anchor = root.clone().unwrap_or_else(|| {
        config_file
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| cwd.to_path_buf())
    });

    let (_tmp, from, to, base_label) = match (&args.base, &args.base_dir) {
        (Some(rev), _) => {
            let top = PathBuf::from(git(&anchor, &["rev-parse", "--show-toplevel"])?);
            let top = normalize(&top);
            let tree = extract_revision(&top, rev)?;
            let to = tree.0.clone();
            (Some(tree), top, to, rev.clone())
        }
        (None, Some(dir)) => {
            let dir = normalize(&cwd.join(dir));
            if !dir.is_dir() {
                return Err(InputError::new(format!(
                    "--base-dir {}: not a directory",
                    dir.display()
                )));
            }
            (None, anchor.clone(), dir, "base".to_string())
        }
        (None, None) => return Err(InputError::new("pass --base REV or --base-dir DIR")),
    };

    let head = config::load(
        &config_file,
        &LoadOptions {
            root: root.clone(),
            display_base: None,
        },
    )?;
    let base_config_file = swap(&config_file, &from, &to);
    let base = config::load(
        &base_config_file,
        &LoadOptions {
            root: root.as_ref().map(|r| swap(r, &from, &to)),
            // Locations read the same on both sides.
            display_base: Some(swap(cwd, &from, &to)),
        },
    )?;

    let renderers = Renderers::builtin();
    // Both sides render at one instant, so `now` in a template is no change.
    let clock = Clock::at(head.now.unwrap_or_else(|| EvalOptions::default().now));
    let head_cells = render_cells(&head, &renderers, &selected(&head, args), clock);
    let base_cells = render_cells(&base, &renderers, &selected(&base, args), clock);
    let report = diff_cells(&base_cells, &head_cells);
    let text = if args.json {
        serde_json::to_string_pretty(&report)
            .map(|mut s| {
                s.push('\n');
                s
            })
            .map_err(|e| InputError::new(format!("cannot encode the diff: {e}")))?
    } else {
        render(&report, &base_label, "head", color)
    };
    Ok((text, report.exit_code()))
}

/// `stackproof diff`.
pub fn run(args: &DiffArgs) -> i32 {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let color = std::env::var_os("NO_COLOR").is_none() && std::io::stdout().is_terminal();
    match run_diff(args, &cwd, color) {
        Ok((text, code)) => {
            print!("{text}");
            code
        }
        Err(e) => {
            eprint!("{}", crate::report::human::render_input_error(&e, color));
            2
        }
    }
}
