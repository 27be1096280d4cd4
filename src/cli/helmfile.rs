//! `stackproof helmfile ...`: Helmfile's command shape (`list`, `write-values`,
//! `template`) rendered natively, printing what helmfile 0.166 prints.
//!
//! Flags mirror helmfile's global flags (`--file/-f`, `--environment/-e`,
//! `--state-values-set`, `--state-values-set-string`, `--state-values-file`,
//! `--selector/-l`, `--namespace/-n`) plus stackproof's offline chart sources
//! (`--chart-source DIR`, repeatable, searched in order; `--chart-map REF=DIR`) and
//! `--allow-exec`. The process environment is passed to templates (`env`,
//! `requiredEnv`), as helmfile does.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use clap::{Args, Subcommand};

use crate::helmfile::{render_stack, ChartSources, Command, RenderEnv, StackInput};

/// `stackproof helmfile` flags.
#[derive(Args, Debug)]
pub struct HelmfileArgs {
    /// The state file or directory (default: helmfile.yaml, helmfile.yaml.gotmpl or helmfile.d/).
    #[arg(short = 'f', long = "file", global = true)]
    pub file: Option<String>,
    /// Environment name (default: $HELMFILE_ENVIRONMENT if set and non-empty, else `default`).
    #[arg(short = 'e', long = "environment", global = true)]
    pub environment: Option<String>,
    /// State values (`k=v,k2=v2`), typed like helmfile does.
    #[arg(long = "state-values-set", global = true)]
    pub state_values_set: Vec<String>,
    /// State values kept as strings.
    #[arg(long = "state-values-set-string", global = true)]
    pub state_values_set_string: Vec<String>,
    /// State values files.
    #[arg(long = "state-values-file", global = true)]
    pub state_values_file: Vec<String>,
    /// Release label selectors (`k=v,k2!=v2`).
    #[arg(short = 'l', long = "selector", global = true)]
    pub selector: Vec<String>,
    /// Namespace override.
    #[arg(short = 'n', long = "namespace", global = true, default_value = "")]
    pub namespace: String,
    /// A directory searched for charts by their Chart.yaml `name:` (repeatable; first match wins).
    #[arg(long = "chart-source", global = true)]
    pub chart_source: Vec<PathBuf>,
    /// Map a chart reference (`repo/chart`) to a local chart directory: `REF=DIR`.
    #[arg(long = "chart-map", global = true)]
    pub chart_map: Vec<String>,
    /// Overlay a file without writing it: `DEST=SRC` makes the state see SRC's bytes at
    /// DEST (relative to the working directory), e.g. a secrets file the tree lacks.
    #[arg(long = "overlay", global = true)]
    pub overlay: Vec<String>,
    /// Let templates run programs (`exec`, `envExec`).
    #[arg(long = "allow-exec", global = true)]
    pub allow_exec: bool,
    /// Print chart source decisions (version stamping) to stderr.
    #[arg(short = 'v', long = "verbose", global = true)]
    pub verbose: bool,
    #[command(flatten)]
    pub repro: super::repro::ReproArgs,
    #[command(subcommand)]
    pub command: HelmfileCommand,
}

#[derive(Subcommand, Debug)]
pub enum HelmfileCommand {
    /// List releases.
    List {
        /// `json` for one line of JSON.
        #[arg(long = "output", short = 'o', default_value = "")]
        output: String,
        /// Skip chart preparation (charts are never fetched; this only changes how
        /// a broken `condition:` is reported, as in helmfile).
        #[arg(long = "skip-charts")]
        skip_charts: bool,
    },
    /// Write each release's merged values to a file.
    WriteValues {
        /// Go template for the output path (`{{ .Release.Name }}` etc.).
        #[arg(long = "output-file-template", default_value = "")]
        output_file_template: String,
        /// Accepted for compatibility.
        #[arg(long = "skip-deps")]
        skip_deps: bool,
    },
    /// Render every release with its chart.
    Template {
        /// Accepted for compatibility.
        #[arg(long = "skip-deps")]
        skip_deps: bool,
        /// Include direct needs of selected releases.
        #[arg(long = "include-needs")]
        include_needs: bool,
        /// Include all needs of selected releases.
        #[arg(long = "include-transitive-needs")]
        include_transitive_needs: bool,
    },
}

/// The library input for parsed flags, run in `working_dir` with environment `env`.
pub fn input_from_args(
    args: &HelmfileArgs,
    working_dir: &std::path::Path,
    env: BTreeMap<String, String>,
) -> Result<StackInput, String> {
    let mut map = BTreeMap::new();
    for m in &args.chart_map {
        match m.split_once('=') {
            Some((k, v)) => {
                map.insert(k.to_string(), working_dir.join(v));
            }
            None => return Err(format!("--chart-map expects REF=DIR, got {m:?}")),
        }
    }
    let sources = ChartSources::new(
        map,
        args.chart_source
            .iter()
            .map(|d| working_dir.join(d))
            .collect(),
    );
    let (command, include_needs, include_transitive_needs) = match &args.command {
        HelmfileCommand::List {
            output,
            skip_charts,
        } => (
            Command::List {
                json: output == "json",
                skip_charts: *skip_charts,
            },
            false,
            false,
        ),
        HelmfileCommand::WriteValues {
            output_file_template,
            ..
        } => (
            Command::WriteValues {
                output_file_template: Some(output_file_template.clone()).filter(|t| !t.is_empty()),
            },
            false,
            false,
        ),
        HelmfileCommand::Template {
            include_needs,
            include_transitive_needs,
            ..
        } => (
            Command::Template {
                render_manifests: true,
            },
            *include_needs,
            *include_transitive_needs,
        ),
    };
    let mut overlays = Vec::new();
    for o in &args.overlay {
        let Some((dest, src)) = o.split_once('=') else {
            return Err(format!("--overlay expects DEST=SRC, got {o:?}"));
        };
        let bytes = std::fs::read(working_dir.join(src))
            .map_err(|e| format!("--overlay {o}: reading {src}: {e}"))?;
        overlays.push((working_dir.join(dest), bytes));
    }
    let (seed, now) = args.repro.resolve()?;
    let environment = environment_name(args.environment.as_deref(), &env);
    Ok(StackInput {
        working_dir: working_dir.to_path_buf(),
        file: args.file.clone(),
        environment,
        state_values_set: args.state_values_set.clone(),
        state_values_set_string: args.state_values_set_string.clone(),
        state_values_files: args.state_values_file.clone(),
        selectors: args.selector.clone(),
        namespace: args.namespace.clone(),
        include_needs,
        include_transitive_needs,
        render: RenderEnv {
            vfs: crate::source::Vfs::with_overlays(overlays),
            env: Arc::new(env),
            allow_exec: args.allow_exec,
            seed,
            now,
            ..RenderEnv::default()
        },
        chart_sources: sources,
        command,
    })
}

/// The environment to use: `--environment` when given and non-empty, else a
/// non-empty `HELMFILE_ENVIRONMENT` from `env`, else `default` (helmfile treats an
/// empty flag or variable as unset).
fn environment_name(flag: Option<&str>, env: &BTreeMap<String, String>) -> String {
    flag.filter(|e| !e.is_empty())
        .or_else(|| {
            env.get("HELMFILE_ENVIRONMENT")
                .map(String::as_str)
                .filter(|e| !e.is_empty())
        })
        .unwrap_or("default")
        .to_string()
}

/// Runs `stackproof helmfile`; returns the exit code.
pub fn run(args: HelmfileArgs) -> i32 {
    let working_dir = match std::env::current_dir() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("error: cannot determine the working directory: {e}");
            return 2;
        }
    };
    let input = match input_from_args(&args, &working_dir, std::env::vars().collect()) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let out = render_stack(&input);
    for w in &out.warnings {
        eprintln!("{w}");
    }
    if args.verbose {
        for n in &out.notes {
            eprintln!("{n}");
        }
    }
    print!("{}", out.stdout);
    for f in &out.written {
        if let Some(parent) = f.abs.parent() {
            if let Err(e) = std::fs::create_dir_all(parent) {
                eprintln!("error: creating {}: {e}", parent.display());
                return 1;
            }
        }
        if let Err(e) = std::fs::write(&f.abs, &f.content) {
            eprintln!("error: writing values file {}: {e}", f.path);
            return 1;
        }
    }
    if let Some(e) = &out.error {
        // Helmfile's message as it prints it, then where the error is.
        eprintln!("{}", e.message);
        for l in e.detail_lines(&working_dir) {
            eprintln!("{l}");
        }
    }
    out.exit_code
}
