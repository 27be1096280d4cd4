//! `stackproof template [NAME] CHART`: `helm template` natively, with Helm's flag
//! names, stdout bytes and error texts.
//!
//! Failures exit with 2 (stackproof's code for bad input; Helm uses 1), print
//! nothing on stdout, and print Helm's exact error text followed, when Helm's text
//! does not already name the place, by one `  --> FILE:LINE:COL` line pointing at
//! it (with `--pretty-errors` or a terminal, also the source line).

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use clap::Args;

use crate::chart::render::{render_path, RenderOptions};
use crate::chart::values::{ValueOptions, ValuesSource};
use crate::chart::{ChartError, HelmVersion};
use crate::source::Vfs;

/// Flags of `helm template` (plus `--helm-version`, `--pretty-errors`, `--seed`, `--now`).
#[derive(Args, Debug, Clone)]
pub struct TemplateArgs {
    /// `[NAME] CHART`.
    #[arg(num_args = 1..=2, value_name = "[NAME] CHART")]
    pub args: Vec<String>,
    /// Values files (comma-separated or repeated).
    #[arg(short = 'f', long = "values", value_delimiter = ',')]
    pub values: Vec<String>,
    /// Set values: `a.b=v,c[0]=w` (types inferred as helm does; repeatable).
    #[arg(long = "set")]
    pub set: Vec<String>,
    /// Set values, always as strings (repeatable).
    #[arg(long = "set-string")]
    pub set_string: Vec<String>,
    /// Set a value to the content of a file: `key=path` (repeatable).
    #[arg(long = "set-file")]
    pub set_file: Vec<String>,
    /// Set values from JSON: `key=JSON` (repeatable).
    #[arg(long = "set-json")]
    pub set_json: Vec<String>,
    /// Set one value, taken literally with no parsing of commas or dots (repeatable).
    #[arg(long = "set-literal")]
    pub set_literal: Vec<String>,
    /// The release namespace (`.Release.Namespace`).
    #[arg(short = 'n', long = "namespace", default_value = "default")]
    pub namespace: String,
    /// The Kubernetes version `.Capabilities.KubeVersion` reports.
    #[arg(long = "kube-version")]
    pub kube_version: Option<String>,
    /// Extra API versions for `.Capabilities.APIVersions` (comma-separated or repeated).
    #[arg(short = 'a', long = "api-versions", value_delimiter = ',')]
    pub api_versions: Vec<String>,
    /// Print the charts' `crds/` files too.
    #[arg(long = "include-crds")]
    pub include_crds: bool,
    /// Accepted for compatibility; `helm template` output does not change.
    #[arg(long = "skip-crds")]
    pub skip_crds: bool,
    /// Print only the output of these template files (`templates/x.yaml`; repeatable).
    #[arg(short = 's', long = "show-only")]
    pub show_only: Vec<String>,
    /// Leave out test hooks (`helm.sh/hook: test`).
    #[arg(long = "skip-tests")]
    pub skip_tests: bool,
    /// Leave out every hook.
    #[arg(long = "no-hooks")]
    pub no_hooks: bool,
    /// Render as an upgrade: `.Release.IsUpgrade` true, `.Release.IsInstall` false.
    #[arg(long = "is-upgrade")]
    pub is_upgrade: bool,
    /// Accepted for compatibility (only affects `--output-dir` in Helm).
    #[arg(long = "release-name")]
    pub release_name: bool,
    /// Accepted for compatibility; Helm's `template` ignores it when no name is given.
    #[arg(short = 'g', long = "generate-name")]
    pub generate_name: bool,
    /// Do not validate values against `values.schema.json`.
    #[arg(long = "skip-schema-validation")]
    pub skip_schema_validation: bool,
    /// Which Helm to imitate: 3 (v3.15.3) or 4 (v4.3.1).
    #[arg(long = "helm-version", default_value = "3", value_parser = ["3", "4"])]
    pub helm_version: String,
    /// Show the template line of an error even when stderr is not a terminal.
    #[arg(long = "pretty-errors")]
    pub pretty_errors: bool,
    #[command(flatten)]
    pub repro: super::repro::ReproArgs,
}

impl TemplateArgs {
    fn options(&self) -> Result<(RenderOptions, PathBuf), String> {
        let (name, chart) = match self.args.as_slice() {
            [chart] => ("release-name".to_string(), chart.clone()),
            [name, chart] => {
                if self.generate_name {
                    return Err("cannot set --generate-name and also specify a name".into());
                }
                (name.clone(), chart.clone())
            }
            _ => return Err("\"stackproof template\" requires at least 1 argument".into()),
        };
        let helm = if self.helm_version == "4" {
            HelmVersion::V4
        } else {
            HelmVersion::V3
        };
        let (seed, now) = self.repro.resolve()?;
        let values = ValueOptions {
            files: self
                .values
                .iter()
                .map(|f| ValuesSource::File(PathBuf::from(f)))
                .collect(),
            set: self.set.clone(),
            set_string: self.set_string.clone(),
            set_file: self.set_file.clone(),
            set_json: self.set_json.clone(),
            set_literal: self.set_literal.clone(),
        };
        Ok((
            RenderOptions {
                release_name: name,
                namespace: self.namespace.clone(),
                helm,
                values,
                kube_version: self.kube_version.clone(),
                api_versions: self.api_versions.clone(),
                is_upgrade: self.is_upgrade,
                include_crds: self.include_crds,
                no_hooks: self.no_hooks,
                skip_tests: self.skip_tests,
                show_only: self.show_only.clone(),
                skip_schema_validation: self.skip_schema_validation,
                seed,
                now,
            },
            PathBuf::from(chart.trim()),
        ))
    }
}

fn locate(chart: &Path, vfs: &Vfs) -> Result<(), ChartError> {
    if vfs.exists(chart) {
        return Ok(());
    }
    let s = chart.display().to_string();
    if chart.is_absolute() || s.starts_with('.') {
        return Err(ChartError::load(format!("path {s:?} not found")));
    }
    Err(ChartError::load(format!(
        "non-absolute URLs should be in form of repo_name/path_to_chart, got: {s}"
    )))
}

/// The line stackproof adds under Helm's error text: where the failure is, when
/// Helm's own text does not say it.
pub fn location_note(err: &ChartError) -> Option<String> {
    let (src, span) = err.location.as_ref()?;
    let (line, col) = src.line_col(span.start as usize);
    let place = format!("{}:{line}", src.name());
    if err.message.contains(&format!("{place}:")) || err.message.contains(&format!("{place})")) {
        return None;
    }
    Some(format!("  --> {place}:{col}\n"))
}

fn report(err: &ChartError, pretty: bool) {
    let mut stderr = std::io::stderr();
    let _ = stderr.write_all(err.helm_stderr().as_bytes());
    if pretty {
        if let Some((src, span)) = &err.location {
            let (line, col) = src.line_col(span.start as usize);
            let _ = writeln!(
                stderr,
                "\n  --> {}:{line}:{col}\n   |\n{line:>3}| {}\n   | {}^",
                src.name(),
                src.line_text(span.start as usize),
                " ".repeat(col.saturating_sub(1))
            );
        }
    } else if let Some(note) = location_note(err) {
        let _ = stderr.write_all(note.as_bytes());
    }
}

/// Exit code for a failed render.
const FAILED: i32 = 2;

/// Runs the command; returns the exit code.
pub fn run(args: &TemplateArgs) -> i32 {
    let (opts, chart) = match args.options() {
        Ok(x) => x,
        Err(e) => {
            eprintln!("Error: {e}");
            return 2;
        }
    };
    let pretty = args.pretty_errors || std::io::stderr().is_terminal();
    let vfs = Vfs::real();
    let result = locate(&chart, &vfs).and_then(|()| render_path(&chart, &opts, &vfs));
    let rendered = match result {
        Ok(r) => r,
        Err(e) => {
            report(&e, pretty);
            return FAILED;
        }
    };
    for w in &rendered.warnings {
        eprintln!("{w}");
    }
    match rendered.helm_output() {
        Ok(out) => {
            let mut stdout = std::io::stdout().lock();
            if stdout
                .write_all(out.as_bytes())
                .and_then(|()| stdout.flush())
                .is_err()
            {
                return 1;
            }
            0
        }
        Err(e) => {
            report(&e, pretty);
            FAILED
        }
    }
}
