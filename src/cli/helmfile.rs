//! `stackproof helmfile ...`: Helmfile's command shape (`list`, `write-values`,
//! `template`) rendered natively, printing what helmfile 0.166 prints.
//!
//! Flags mirror helmfile's global flags (`--file/-f`, `--environment/-e`,
//! `--state-values-set`, `--state-values-set-string`, `--state-values-file`,
//! `--selector/-l`, `--namespace/-n`, `--kube-context`,
//! `--allow-no-matching-release`) plus stackproof's offline chart sources
//! (`--chart-source DIR`, repeatable, searched in order; `--chart-map REF=DIR`) and
//! `--allow-exec`. Helmfile flags that only steer logging, helm processes or a
//! cluster connection are accepted and have no effect; those whose effect
//! stackproof cannot reproduce offline (`template --validate`, `--args`,
//! `--post-renderer`) are refused rather than ignored. The process
//! environment is passed to templates (`env`, `requiredEnv`), as helmfile does,
//! `HELMFILE_ENVIRONMENT` is the default environment and `HELMFILE_FILE_PATH` the
//! default state file. `HELMFILE_V1MODE=true` and `HELMFILE_GOCCY_GOYAML=true`
//! (helmfile 1.x's parsing and YAML library, opted into from 0.166) are refused:
//! stackproof implements 0.166's default parsing only, and reading a stack another
//! way than the user asked for would report on a different stack.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use clap::{Args, Subcommand};

use crate::helmfile::{
    render_stack_unjoined, ChartSources, Command, HelmTemplateFlags, RenderEnv, StackInput,
};

/// `stackproof helmfile` flags.
#[derive(Args, Debug)]
pub struct HelmfileArgs {
    /// The state file or directory (default: $HELMFILE_FILE_PATH if set and non-empty,
    /// else helmfile.yaml, helmfile.yaml.gotmpl or helmfile.d/).
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
    /// Kube context of every release (`.Release.KubeContext`, needs IDs); a state
    /// that sets `kubeContext:` itself is an error, as in helmfile.
    #[arg(long = "kube-context", global = true, default_value = "")]
    pub kube_context: String,
    /// Exit 0 when no release matches the selectors or environment (the message is
    /// still printed).
    #[arg(long = "allow-no-matching-release", global = true)]
    pub allow_no_matching_release: bool,
    /// Accepted for compatibility; no effect (stackproof prints no progress log).
    #[arg(short = 'q', long = "quiet", global = true)]
    pub quiet: bool,
    /// Accepted for compatibility; no effect (stackproof prints no progress log).
    #[arg(long = "debug", global = true)]
    pub debug: bool,
    /// Accepted for compatibility (debug, info, warn, error, dpanic, panic, fatal);
    /// no effect.
    #[arg(long = "log-level", global = true)]
    pub log_level: Option<String>,
    /// Accepted for compatibility; no effect (output is never colored).
    #[arg(long = "color", global = true)]
    pub color: bool,
    /// Accepted for compatibility; no effect (output is never colored).
    #[arg(long = "no-color", global = true)]
    pub no_color: bool,
    /// Accepted for compatibility; no effect (stackproof reads no cluster).
    #[arg(long = "kubeconfig", global = true)]
    pub kubeconfig: Option<String>,
    /// Accepted for compatibility; no effect (charts render natively, without helm).
    #[arg(short = 'b', long = "helm-binary", global = true)]
    pub helm_binary: Option<String>,
    /// Accepted for compatibility; no effect (no helm process runs).
    #[arg(long = "enable-live-output", global = true)]
    pub enable_live_output: bool,
    /// Accepted for compatibility; no effect (no repository is contacted).
    #[arg(long = "disable-force-update", global = true)]
    pub disable_force_update: bool,
    /// Do not build local charts' dependencies (`helm dependency build`) before
    /// write-values and template: `charts/` is used as it is.
    #[arg(long = "skip-deps", global = true)]
    pub skip_deps: bool,
    /// Accepted for compatibility; no effect (nothing is applied to a cluster).
    #[arg(short = 'i', long = "interactive", global = true)]
    pub interactive: bool,
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
    /// Let the stack run programs: templates' `exec`/`envExec` and releases'
    /// `postRenderer`.
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
        /// Accepted for compatibility; no effect (no temporary directory is made).
        #[arg(long = "keep-temp-dir")]
        keep_temp_dir: bool,
    },
    /// Write each release's merged values to a file.
    WriteValues {
        /// Go template for the output path (`{{ .Release.Name }}` etc.).
        #[arg(long = "output-file-template", default_value = "")]
        output_file_template: String,
        /// A values file merged after each release's own (repeatable).
        #[arg(long = "values")]
        values: Vec<String>,
        /// Accepted for compatibility; no effect (helmfile 0.166's write-values does
        /// not apply it either).
        #[arg(long = "set")]
        set: Vec<String>,
        /// Accepted for compatibility; no effect.
        #[arg(long = "concurrency", allow_negative_numbers = true)]
        concurrency: Option<i64>,
    },
    /// Render every release with its chart.
    Template {
        /// Include direct needs of selected releases.
        #[arg(long = "include-needs")]
        include_needs: bool,
        /// Include all needs of selected releases.
        #[arg(long = "include-transitive-needs")]
        include_transitive_needs: bool,
        /// With selectors and without --include-needs, leave out needs the
        /// selectors do not match (default); `--skip-needs=false` makes them an error.
        #[arg(
            long = "skip-needs",
            num_args = 0..=1,
            require_equals = true,
            default_value = "true",
            default_missing_value = "true",
            value_parser = clap::builder::BoolishValueParser::new()
        )]
        skip_needs: bool,
        /// Leave test hooks out of the output.
        #[arg(long = "skip-tests")]
        skip_tests: bool,
        /// Print the charts' CRDs (`crds/`) too.
        #[arg(long = "include-crds")]
        include_crds: bool,
        /// Kubernetes version for `.Capabilities` (wins over `kubeVersion:`).
        #[arg(long = "kube-version")]
        kube_version: Option<String>,
        /// A `--set` for every release, after its own `set:` (repeatable).
        #[arg(long = "set")]
        set: Vec<String>,
        /// A values file for every release, after its own (repeatable).
        #[arg(long = "values")]
        values: Vec<String>,
        /// Print only the output of these templates (repeatable), as `helm template --show-only`.
        #[arg(long = "show-only")]
        show_only: Vec<String>,
        /// Accepted for compatibility; no effect.
        #[arg(long = "concurrency", allow_negative_numbers = true)]
        concurrency: Option<i64>,
        /// Accepted for compatibility; no effect (no temporary files are written).
        #[arg(long = "skip-cleanup")]
        skip_cleanup: bool,
        /// Not supported: validating needs a Kubernetes cluster.
        #[arg(long = "validate")]
        validate: bool,
        /// Not supported: arbitrary helm arguments cannot be honoured natively.
        #[arg(long = "args", allow_hyphen_values = true)]
        args: Option<String>,
        /// Pipe each release's manifests through this program where the release
        /// and `helmDefaults` name none (needs --allow-exec).
        #[arg(long = "post-renderer")]
        post_renderer: Option<String>,
        /// Arguments of --post-renderer (no effect without it, as in helmfile).
        #[arg(long = "post-renderer-args", allow_hyphen_values = true)]
        post_renderer_args: Vec<String>,
        /// Write each release's manifests under DIR (relative to its state file's
        /// directory) instead of printing them, as `helm template --output-dir`.
        #[arg(long = "output-dir")]
        output_dir: Option<String>,
        /// Each release's output directory as a Go template (`.OutputDir`, `.State`,
        /// `.Release`); default `{{ .OutputDir }}/{{ .State.BaseName }}-{{ .State.AbsPathSHA1 }}-{{ .Release.Name}}`.
        #[arg(long = "output-dir-template")]
        output_dir_template: Option<String>,
    },
}

/// The words clap parses for `helmfile ARGS` (without `helmfile`), read the way
/// helmfile's cobra reads them: the subcommand first, each flag normalized, stray
/// words dropped. `Err` is the message helmfile prints before exiting 3.
pub fn helmfile_argv(args: &[String]) -> Result<Vec<String>, String> {
    super::cobra::helmfile_argv(args)
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
    // Dependencies are built for write-values and template only (`list` reads no
    // chart), unless skipped.
    let skip_deps = args.skip_deps;
    check_global_flags(args)?;
    check_runtime_switches(&env)?;
    let mut include_needs = false;
    let mut include_transitive_needs = false;
    let mut skip_needs = true;
    let mut additional_values = Vec::new();
    let mut helm_template = HelmTemplateFlags::default();
    let command = match &args.command {
        HelmfileCommand::List {
            output,
            skip_charts,
            ..
        } => Command::List {
            json: output == "json",
            skip_charts: *skip_charts,
        },
        HelmfileCommand::WriteValues {
            output_file_template,
            values,
            ..
        } => {
            additional_values = values.clone();
            Command::WriteValues {
                output_file_template: Some(output_file_template.clone()).filter(|t| !t.is_empty()),
            }
        }
        HelmfileCommand::Template {
            include_needs: needs,
            include_transitive_needs: transitive,
            skip_needs: skip,
            skip_tests,
            include_crds,
            kube_version,
            set,
            values,
            show_only,
            validate,
            args: helm_args,
            post_renderer,
            post_renderer_args,
            output_dir,
            output_dir_template,
            ..
        } => {
            // Each of these changes what helm prints in a way stackproof cannot
            // reproduce offline: refusing is better than printing something else.
            let unsupported = [
                (*validate, "--validate", "it needs a Kubernetes cluster"),
                (
                    helm_args.is_some(),
                    "--args",
                    "arbitrary helm arguments cannot be honoured natively",
                ),
                (
                    post_renderer.is_some() && !args.allow_exec,
                    "--post-renderer",
                    "stackproof runs programs only with --allow-exec",
                ),
            ];
            if let Some((_, flag, why)) = unsupported.iter().find(|(given, _, _)| *given) {
                return Err(format!(
                    "helmfile template {flag} is not supported by stackproof: {why}"
                ));
            }
            include_needs = *needs;
            include_transitive_needs = *transitive;
            skip_needs = *skip;
            additional_values = values.clone();
            helm_template = HelmTemplateFlags {
                skip_tests: *skip_tests,
                include_crds: *include_crds,
                kube_version: kube_version.clone(),
                set: set.clone(),
                show_only: show_only.clone(),
                // Either flag makes helm write files (`--output-dir` may then be
                // empty, and the template decides alone).
                output_dir: (output_dir.is_some() || output_dir_template.is_some())
                    .then(|| output_dir.clone().unwrap_or_default()),
                output_dir_template: output_dir_template.clone(),
                post_renderer: post_renderer.clone(),
                post_renderer_args: post_renderer_args.clone(),
            };
            Command::Template {
                render_manifests: true,
            }
        }
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
        file: state_file(args.file.as_deref(), &env),
        environment,
        state_values_set: args.state_values_set.clone(),
        state_values_set_string: args.state_values_set_string.clone(),
        state_values_files: args.state_values_file.clone(),
        selectors: args.selector.clone(),
        namespace: args.namespace.clone(),
        include_needs,
        include_transitive_needs,
        skip_deps,
        skip_needs,
        kube_context: args.kube_context.clone(),
        allow_no_matching_release: args.allow_no_matching_release,
        additional_values,
        helm_template,
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

/// Writes what the run prints: `text`, then each release's output followed by a
/// newline, as [`crate::helmfile::render_stack`] would have joined them.
fn write_stdout(text: &str, printed: &[Arc<String>]) -> std::io::Result<()> {
    use std::io::Write;
    let mut w = std::io::stdout().lock();
    w.write_all(text.as_bytes())?;
    for p in printed {
        w.write_all(p.as_bytes())?;
        w.write_all(b"\n")?;
    }
    Ok(())
}

/// Helmfile's own checks of the flags that otherwise have no effect here.
fn check_global_flags(args: &HelmfileArgs) -> Result<(), String> {
    if args.color && args.no_color {
        return Err("--color and --no-color cannot be specified at the same time".into());
    }
    if let Some(level) = &args.log_level {
        // The levels of helmfile's logger (zap), which panics on any other.
        const LEVELS: [&str; 7] = ["debug", "info", "warn", "error", "dpanic", "panic", "fatal"];
        let known = level.is_empty()
            || LEVELS
                .iter()
                .any(|l| level == l || *level == l.to_ascii_uppercase());
        if !known {
            return Err(format!(
                "--log-level: unrecognized level {level:?} (expected one of {})",
                LEVELS.join(", ")
            ));
        }
    }
    Ok(())
}

/// Helmfile 0.166 reads these variables once at start-up to switch to 1.x
/// behaviour (only the exact value `true` switches it on).
fn check_runtime_switches(env: &BTreeMap<String, String>) -> Result<(), String> {
    for (var, what) in [
        ("HELMFILE_V1MODE", "helmfile v1 mode"),
        ("HELMFILE_GOCCY_GOYAML", "the goccy/go-yaml YAML library"),
    ] {
        if env.get(var).is_some_and(|v| v == "true") {
            return Err(format!(
                "{var}=true is not supported by stackproof: it reads stacks as helmfile 0.166 does by default (gopkg.in/yaml.v2, v0 parsing), not with {what}; unset it or set it to false"
            ));
        }
    }
    Ok(())
}

/// The state file or directory: `--file` when given and non-empty, else a
/// non-empty `HELMFILE_FILE_PATH` (as helmfile treats an empty one as unset), else
/// none (the default file names are searched).
fn state_file(flag: Option<&str>, env: &BTreeMap<String, String>) -> Option<String> {
    flag.filter(|f| !f.is_empty())
        .or_else(|| {
            env.get("HELMFILE_FILE_PATH")
                .map(String::as_str)
                .filter(|f| !f.is_empty())
        })
        .map(String::from)
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
    let (out, printed) = render_stack_unjoined(&input);
    for w in &out.warnings {
        eprintln!("{w}");
    }
    if args.verbose {
        for n in &out.notes {
            eprintln!("{n}");
        }
    }
    if let Err(e) = write_stdout(&out.stdout, &printed) {
        eprintln!("error: writing the output: {e}");
        return 1;
    }
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
    for files in &out.manifest_files {
        if let Err(e) = write_release_files(files) {
            eprintln!("error: {e}");
            return 1;
        }
    }
    eprint!("{}", out.log);
    if let Some(e) = &out.error {
        // Helmfile's message as it prints it, then where the error is.
        eprintln!("{}", e.message);
        for l in e.detail_lines(&working_dir) {
            eprintln!("{l}");
        }
    }
    out.exit_code
}

/// What one `helm template --output-dir` run of a release leaves on disk: its
/// directory (Helmfile makes it first), then each document, appended to a file this
/// run already wrote for the same template, or for a hook to any file already
/// there (as Helm decides).
fn write_release_files(files: &crate::helmfile::ReleaseFiles) -> Result<(), String> {
    let at = |p: &str| files.base.join(p);
    std::fs::create_dir_all(at(&files.dir))
        .map_err(|e| format!("mkdir {}: {}", files.dir, crate::source::go_errno_text(&e)))?;
    let mut written = std::collections::HashSet::new();
    for w in &files.writes {
        let path = at(&w.path);
        let append = if w.hook {
            path.exists()
        } else {
            written.contains(&w.source)
        };
        super::template::write_file(&path, &w.path, &w.text(), append)?;
        written.insert(w.source.clone());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Wrapper {
        #[command(flatten)]
        args: HelmfileArgs,
    }

    fn input(argv: &[&str], env: &[(&str, &str)]) -> Result<StackInput, String> {
        let mut all = vec!["helmfile"];
        all.extend(argv);
        let w = Wrapper::try_parse_from(all).map_err(|e| e.to_string())?;
        let env = env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        input_from_args(&w.args, std::path::Path::new("/nonexistent"), env)
    }

    #[test]
    fn flags_stackproof_cannot_honour_are_refused_by_name() {
        for (argv, flag) in [
            (&["template", "--validate"][..], "--validate"),
            (&["template", "--args", "--dry-run=server"], "--args"),
            (
                &["template", "--post-renderer", "./pr.sh"],
                "--post-renderer",
            ),
        ] {
            let err = input(argv, &[]).err().unwrap_or_default();
            assert!(
                err.contains(&format!("{flag} is not supported")),
                "{argv:?}: {err}"
            );
        }
        // helmfile 0.166 has no --skip-refresh at all.
        assert!(input(&["template", "--skip-refresh"], &[]).is_err());
    }

    #[test]
    fn either_output_dir_flag_makes_helm_write_files() {
        let flags = |argv: &[&str]| {
            let i = input(argv, &[]).expect("valid flags");
            (
                i.helm_template.output_dir,
                i.helm_template.output_dir_template,
            )
        };
        assert_eq!(flags(&["template"]), (None, None));
        assert_eq!(
            flags(&["template", "--output-dir", "out"]),
            (Some("out".to_string()), None)
        );
        // A template alone: helm gets whatever it gives, `.OutputDir` being empty.
        assert_eq!(
            flags(&["template", "--output-dir-template", "x/{{ .Release.Name }}"]),
            (
                Some(String::new()),
                Some("x/{{ .Release.Name }}".to_string())
            )
        );
    }

    #[test]
    fn checks_of_no_op_flags() {
        let both = input(&["--color", "--no-color", "list"], &[]);
        assert_eq!(
            both.err().as_deref(),
            Some("--color and --no-color cannot be specified at the same time")
        );
        assert!(input(&["--log-level", "bogus", "list"], &[]).is_err());
        for level in ["debug", "WARN", "error", ""] {
            assert!(
                input(&["--log-level", level, "list"], &[]).is_ok(),
                "{level}"
            );
        }
    }

    #[test]
    fn environment_flag_then_variable_then_default() {
        let env = |argv: &[&str], vars: &[(&str, &str)]| {
            input(argv, vars).map(|i| i.environment).unwrap_or_default()
        };
        let var = [("HELMFILE_ENVIRONMENT", "prod")];
        assert_eq!(env(&["list"], &[]), "default");
        assert_eq!(env(&["list"], &var), "prod");
        assert_eq!(env(&["-e", "dev", "list"], &var), "dev");
        assert_eq!(env(&["--environment=", "list"], &var), "prod");
        assert_eq!(env(&["list"], &[("HELMFILE_ENVIRONMENT", "")]), "default");
    }

    #[test]
    fn file_flag_then_variable() {
        let file = |argv: &[&str], vars: &[(&str, &str)]| input(argv, vars).map(|i| i.file);
        let var = [("HELMFILE_FILE_PATH", "other.yaml")];
        assert_eq!(file(&["list"], &[]), Ok(None));
        assert_eq!(file(&["list"], &var), Ok(Some("other.yaml".into())));
        assert_eq!(
            file(&["-f", "x.yaml", "list"], &var),
            Ok(Some("x.yaml".into()))
        );
        assert_eq!(
            file(&["--file=", "list"], &var),
            Ok(Some("other.yaml".into()))
        );
        assert_eq!(file(&["list"], &[("HELMFILE_FILE_PATH", "")]), Ok(None));
    }

    #[test]
    fn v1_mode_is_refused_not_ignored() {
        for var in ["HELMFILE_V1MODE", "HELMFILE_GOCCY_GOYAML"] {
            let err = input(&["list"], &[(var, "true")]).err().unwrap_or_default();
            assert!(
                err.starts_with(&format!("{var}=true is not supported")),
                "{err}"
            );
            // Only `true` switches helmfile over; anything else keeps 0.x behaviour.
            for v in ["false", "", "1", "TRUE"] {
                assert!(input(&["list"], &[(var, v)]).is_ok(), "{var}={v}");
            }
        }
    }

    #[test]
    fn template_flags_reach_the_input() {
        let i = input(
            &[
                "--kube-context",
                "kc",
                "template",
                "--skip-tests",
                "--include-crds",
                "--kube-version",
                "1.22",
                "--set",
                "a=1",
                "--set",
                "b=2",
                "--values",
                "v.yaml",
                "--show-only",
                "templates/x.yaml",
                "--skip-needs=false",
            ],
            &[],
        )
        .map_err(|e| e.to_string());
        let Ok(i) = i else { panic!("{i:?}") };
        assert_eq!(i.kube_context, "kc");
        assert!(!i.skip_needs);
        assert_eq!(i.additional_values, ["v.yaml"]);
        let t = &i.helm_template;
        assert!(t.skip_tests && t.include_crds);
        assert_eq!(t.kube_version.as_deref(), Some("1.22"));
        assert_eq!(t.set, ["a=1", "b=2"]);
        assert_eq!(t.show_only, ["templates/x.yaml"]);
    }
}
