//! `stackproof check`: load the configuration, expand matrices, render every selected
//! cell in parallel, evaluate every rule on every cell, print the report.
//!
//! Exit codes: 0 when every rule holds, 1 on findings, 2 on usage, configuration or
//! rule-file errors. [`run_check`] is the same pipeline as a library call, for tests and
//! embedders.

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use rayon::prelude::*;

use crate::matrix::config::{self, display_path, Config, LoadOptions};
use crate::matrix::error::InputError;
use crate::matrix::model::RenderedCell;
use crate::matrix::render::{render_cells, CellRef, Renderers};
use crate::report::{self, Format, Report, Sources};
use crate::rules::eval::{evaluate, EvalOptions};
use crate::rules::load::{self, Rule};
use crate::rules::select::glob_match;
use crate::template::Clock;

/// Arguments of `stackproof check`.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct CheckArgs {
    /// The configuration file (default: `stackproof.yaml` in the working directory or
    /// the nearest directory above it).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Resolve the paths in the configuration relative to DIR (rule files are looked up
    /// next to the configuration first), to check a tree kept elsewhere.
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Only check rules with this id (glob; repeatable).
    #[arg(long = "rule", value_name = "ID")]
    pub rules: Vec<String>,
    /// Only check cells with this name (glob; repeatable).
    #[arg(long = "cell", value_name = "NAME")]
    pub cells: Vec<String>,
    /// Only check targets with this name (glob; repeatable).
    #[arg(long = "target", value_name = "NAME")]
    pub targets: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

/// Which parts of a configuration to check.
#[derive(Clone, Debug, Default)]
pub struct Filters {
    pub rules: Vec<String>,
    pub cells: Vec<String>,
    pub targets: Vec<String>,
}

fn matches_any(patterns: &[String], text: &str) -> bool {
    patterns.is_empty() || patterns.iter().any(|p| glob_match(p, text))
}

/// Compiled rules by rule file.
type RuleFiles = BTreeMap<PathBuf, Vec<Arc<Rule>>>;

/// Loads and compiles every rule file the configuration names, once each.
fn load_rules(config: &Config) -> Result<RuleFiles, InputError> {
    let mut files: Vec<&PathBuf> = config
        .targets
        .iter()
        .flat_map(|t| t.rule_files.iter())
        .collect();
    files.sort();
    files.dedup();
    let loaded: Vec<Result<_, InputError>> = files
        .par_iter()
        .map(|p| {
            let shown = display_path(p, &config.display_base);
            load::load_file(p, &shown)
                .map(|rules| ((*p).clone(), rules.into_iter().map(Arc::new).collect()))
        })
        .collect();
    loaded.into_iter().collect()
}

/// Runs the whole check on a loaded configuration.
pub fn run_check(
    config: &Config,
    renderers: &Renderers,
    filters: &Filters,
) -> Result<Report, InputError> {
    let start = Instant::now();
    let rule_files = load_rules(config)?;

    // Rules per target, filtered.
    let mut per_target: Vec<Vec<Arc<Rule>>> = Vec::new();
    let mut all_ids: Vec<String> = Vec::new();
    for t in &config.targets {
        let rules: Vec<Arc<Rule>> = t
            .rule_files
            .iter()
            .flat_map(|f| rule_files.get(f).cloned().unwrap_or_default())
            .collect();
        load::check_unique(&rules)?;
        all_ids.extend(rules.iter().map(|r| r.id.clone()));
        per_target.push(
            rules
                .into_iter()
                .filter(|r| matches_any(&filters.rules, &r.id))
                .collect(),
        );
    }
    for p in &filters.rules {
        if !all_ids.iter().any(|id| glob_match(p, id)) {
            all_ids.sort();
            all_ids.dedup();
            return Err(InputError::new(format!("--rule {p}: no rule has this id"))
                .with_help(format!("rule ids: {}", all_ids.join(", "))));
        }
    }
    for p in &filters.targets {
        if !config.targets.iter().any(|t| glob_match(p, &t.name)) {
            let names: Vec<&str> = config.targets.iter().map(|t| t.name.as_str()).collect();
            return Err(
                InputError::new(format!("--target {p}: no target has this name"))
                    .with_help(format!("targets: {}", names.join(", "))),
            );
        }
    }

    let mut cells = Vec::new();
    for (ti, t) in config.targets.iter().enumerate() {
        if !matches_any(&filters.targets, &t.name) {
            continue;
        }
        for (ci, c) in t.cells.iter().enumerate() {
            if matches_any(&filters.cells, &c.name) {
                cells.push(CellRef {
                    target: ti,
                    cell: ci,
                });
            }
        }
    }
    for p in &filters.cells {
        let known = config
            .targets
            .iter()
            .filter(|t| matches_any(&filters.targets, &t.name))
            .flat_map(|t| t.cells.iter().map(|c| c.name.clone()))
            .collect::<Vec<_>>();
        if !known.iter().any(|n| glob_match(p, n)) {
            return Err(
                InputError::new(format!("--cell {p}: no cell has this name"))
                    .with_help(format!("cells: {}", known.join("; "))),
            );
        }
    }

    // Cells that rules of the selected ones compare with are rendered too, as context:
    // their rules are not evaluated and they do not count in the summary.
    let evaluated = cells.len();
    let mut context = Vec::new();
    for c in &cells {
        let target = &config.targets[c.target];
        let wanted = per_target[c.target]
            .iter()
            .flat_map(|r| r.assertions.iter())
            .filter_map(|a| a.assertion.other_cell());
        for name in wanted {
            if let Some(ci) = target.cells.iter().position(|x| x.name == name) {
                let r = CellRef {
                    target: c.target,
                    cell: ci,
                };
                if !cells.contains(&r) && !context.contains(&r) {
                    context.push(r);
                }
            }
        }
    }
    cells.extend(context);
    let opts = EvalOptions {
        now: config.now.unwrap_or_else(|| EvalOptions::default().now),
    };
    let rendered = render_cells(config, renderers, &cells, Clock::at(opts.now));
    let outcomes: Vec<_> = rendered[..evaluated]
        .par_iter()
        .zip(cells[..evaluated].par_iter())
        .flat_map(|(cell, r)| {
            let siblings: Vec<&RenderedCell> = rendered
                .iter()
                .zip(&cells)
                .filter(|(_, o)| o.target == r.target && o.cell != r.cell)
                .map(|(c, _)| c)
                .collect();
            let only = &config.targets[r.target].cells[r.cell].rules;
            if only.is_empty() {
                evaluate(&per_target[r.target], cell, &siblings, opts)
            } else {
                let rules: Vec<Arc<Rule>> = per_target[r.target]
                    .iter()
                    .filter(|rule| only.iter().any(|p| glob_match(p, &rule.id)))
                    .cloned()
                    .collect();
                evaluate(&rules, cell, &siblings, opts)
            }
        })
        .collect();

    let mut sources = Sources::default();
    sources.disk_base = Some(config.display_base.clone());
    for c in &rendered[..evaluated] {
        for (name, text) in &c.sources.files {
            sources.insert(name.clone(), text.clone());
        }
    }
    let mut rules_info: Vec<_> = per_target
        .iter()
        .enumerate()
        .filter(|(i, _)| cells[..evaluated].iter().any(|c| c.target == *i))
        .flat_map(|(_, rs)| rs.iter().map(|r| r.info()))
        .collect();
    rules_info.sort_by(|a, b| a.id.cmp(&b.id));
    let targets = cells[..evaluated]
        .iter()
        .map(|c| c.target)
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    Ok(Report::new(
        outcomes,
        rules_info,
        targets,
        evaluated,
        start.elapsed(),
        sources,
    ))
}

/// Finds and loads the configuration the arguments name.
pub fn load_config(args: &CheckArgs, cwd: &Path) -> Result<Config, InputError> {
    let file = match &args.config {
        Some(f) => f.clone(),
        None => config::discover(cwd).ok_or_else(|| {
            InputError::new(format!(
                "no {} in {} or any directory above it",
                config::CONFIG_FILE_NAME,
                cwd.display()
            ))
            .with_help("pass --config FILE")
        })?,
    };
    config::load(
        &file,
        &LoadOptions {
            root: args.root.clone(),
            display_base: None,
        },
    )
}

fn color_wanted() -> bool {
    std::env::var_os("NO_COLOR").is_none() && std::io::stdout().is_terminal()
}

/// `stackproof check`.
pub fn run(args: &CheckArgs) -> i32 {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let color = color_wanted();
    let config = match load_config(args, &cwd) {
        Ok(c) => c,
        Err(e) => {
            eprint!("{}", report::human::render_input_error(&e, color));
            return 2;
        }
    };
    let filters = Filters {
        rules: args.rules.clone(),
        cells: args.cells.clone(),
        targets: args.targets.clone(),
    };
    match run_check(&config, &Renderers::builtin(), &filters) {
        Ok(report) => {
            print!("{}", report::render(&report, args.format, color));
            report.exit_code()
        }
        Err(e) => {
            eprint!("{}", report::human::render_input_error(&e, color));
            2
        }
    }
}
