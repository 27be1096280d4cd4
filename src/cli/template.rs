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

use std::collections::HashSet;
use std::sync::Arc;

use crate::chart::error::Phase;
use crate::chart::manifest;
use crate::chart::postrender::PostRenderer;
use crate::chart::render::{render_path_with, RenderOptions, Rendered};
use crate::chart::values::{ValueOptions, ValuesSource};
use crate::chart::{Chart, ChartError, HelmVersion};
use crate::funcs::{sprig_registry, Flavor};
use crate::helmfile::{depbuild, paths};
use crate::source::Vfs;
use crate::template::fmt::quote;
use crate::template::gostr;
use crate::template::{Host, LanguageLevel, MissingKey, Options, TemplateSet, Value};

use super::goflags;

/// Flags of `helm template` in Helm v3.15.3 and v4.3.1 (plus `--helm-version`,
/// `--pretty-errors`, `--seed`, `--now`). Boolean flags take an optional
/// `=VALUE` as Helm's do (`--include-crds=false`); values Helm parses itself
/// (booleans, durations, numbers, `--labels`) are kept as text and checked in
/// [`TemplateArgs::check_flags`] so a bad one fails with Helm's message. Flags
/// only one Helm version has are refused under the other as Helm refuses an
/// unknown flag.
#[derive(Args, Debug, Clone, Default)]
pub struct TemplateArgs {
    /// `[NAME] CHART`.
    #[arg(num_args = 1.., value_name = "[NAME] CHART")]
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
    /// The release namespace (`.Release.Namespace`); as with helm, `HELM_NAMESPACE`
    /// when not given, and `default` when empty (a kubeconfig is never read).
    #[arg(short = 'n', long = "namespace")]
    pub namespace: Option<String>,
    /// The Kubernetes version `.Capabilities.KubeVersion` reports.
    #[arg(long = "kube-version")]
    pub kube_version: Option<String>,
    /// Extra API versions for `.Capabilities.APIVersions` (comma-separated or repeated).
    #[arg(short = 'a', long = "api-versions", value_delimiter = ',')]
    pub api_versions: Vec<String>,
    /// Print the charts' `crds/` files too.
    #[arg(long = "include-crds", num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    pub include_crds: Option<String>,
    /// Print only the output of these template files (`templates/x.yaml`; repeatable).
    #[arg(short = 's', long = "show-only")]
    pub show_only: Vec<String>,
    /// Leave out test hooks (`helm.sh/hook: test`).
    #[arg(long = "skip-tests", num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    pub skip_tests: Option<String>,
    /// Leave out every hook.
    #[arg(long = "no-hooks", num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    pub no_hooks: Option<String>,
    /// Render as an upgrade: `.Release.IsUpgrade` true, `.Release.IsInstall` false.
    #[arg(long = "is-upgrade", num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    pub is_upgrade: Option<String>,
    /// Write each template's documents to DIR/<chart>/templates/... instead of
    /// printing them (printing `wrote PATH` per write, as Helm does).
    #[arg(long = "output-dir", value_name = "DIR")]
    pub output_dir: Option<String>,
    /// With `--output-dir`: put the templates under DIR/NAME.
    #[arg(long = "release-name", num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    pub release_name: Option<String>,
    /// The release name from a Go template (Sprig functions, no NAME argument).
    #[arg(long = "name-template", value_name = "TEMPLATE")]
    pub name_template: Option<String>,
    /// Helm's `template` ignores it when no name is given (the name is `release-name`).
    #[arg(short = 'g', long = "generate-name", num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    pub generate_name: Option<String>,
    /// When a dependency is missing from `charts/`, build the `file://` ones in
    /// memory (the chart is never written to).
    #[arg(long = "dependency-update", num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    pub dependency_update: Option<String>,
    /// Let `getHostByName` ask the system resolver (else it returns "").
    #[arg(long = "enable-dns", num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    pub enable_dns: Option<String>,
    /// Helm 4: do not validate values against `values.schema.json`.
    #[arg(long = "skip-schema-validation", num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    pub skip_schema_validation: Option<String>,
    /// Labels of the release record (checked only: not in the output).
    #[arg(short = 'l', long = "labels", value_name = "KEY=VALUE,...")]
    pub labels: Vec<String>,
    /// `client` (the default); `server` needs a cluster and is refused.
    #[arg(long = "dry-run", num_args = 0..=1, require_equals = true, default_missing_value = BARE, value_name = "MODE")]
    pub dry_run: Option<String>,
    /// Print the rendered files on stdout even when rendering fails.
    #[arg(long = "debug", num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    pub debug: Option<String>,

    // Refused: each needs a cluster, a download or another program.
    /// Refused: validates against a live cluster.
    #[arg(long = "validate", num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    pub validate: Option<String>,
    /// Refused: the chart would be downloaded from this repository.
    #[arg(long = "repo", value_name = "URL")]
    pub repo: Option<String>,
    /// Helm 3: pipe the manifests through this program (needs --allow-exec).
    /// Refused in Helm 4 mode, where it names a plugin.
    #[arg(long = "post-renderer", value_name = "PATH")]
    pub post_renderer: Option<String>,
    /// Arguments for `--post-renderer` (no effect without it).
    #[arg(long = "post-renderer-args", value_name = "ARG")]
    pub post_renderer_args: Vec<String>,
    /// Let stackproof run programs the render names (`--post-renderer`); not a
    /// helm flag.
    #[arg(long = "allow-exec")]
    pub allow_exec: bool,
    /// Refused for archives (needs GnuPG keys); Helm refuses it for directories.
    #[arg(long = "verify", num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    pub verify: Option<String>,
    /// Checked like Helm's registry client (the file must hold a PEM certificate).
    #[arg(long = "ca-file", value_name = "FILE")]
    pub ca_file: Option<String>,

    // No effect on `helm template` output (checked against both Helm binaries).
    /// No effect on output (chart download only).
    #[arg(long = "version", value_name = "CONSTRAINT")]
    pub version: Option<String>,
    /// No effect on output (chart download only).
    #[arg(long = "devel", num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    pub devel: Option<String>,
    /// No effect on output (chart download only).
    #[arg(long = "cert-file", value_name = "FILE")]
    pub cert_file: Option<String>,
    /// No effect on output (chart download only).
    #[arg(long = "key-file", value_name = "FILE")]
    pub key_file: Option<String>,
    /// No effect on output (chart download only).
    #[arg(long = "keyring", value_name = "FILE")]
    pub keyring: Option<String>,
    /// No effect on output (chart download only).
    #[arg(long = "username")]
    pub username: Option<String>,
    /// No effect on output (chart download only).
    #[arg(long = "password")]
    pub password: Option<String>,
    /// No effect on output (chart download only).
    #[arg(long = "pass-credentials", num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    pub pass_credentials: Option<String>,
    /// No effect on output (chart download only).
    #[arg(long = "plain-http", num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    pub plain_http: Option<String>,
    /// No effect on output (chart download only).
    #[arg(long = "insecure-skip-tls-verify", num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    pub insecure_skip_tls_verify: Option<String>,
    /// No effect on output (install only).
    #[arg(long = "skip-crds", num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    pub skip_crds: Option<String>,
    /// No effect on output (install only).
    #[arg(long = "create-namespace", num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    pub create_namespace: Option<String>,
    /// No effect on output (install only).
    #[arg(long = "description")]
    pub description: Option<String>,
    /// No effect on output (install only).
    #[arg(long = "disable-openapi-validation", num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    pub disable_openapi_validation: Option<String>,
    /// No effect on output (install only).
    #[arg(long = "replace", num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    pub replace: Option<String>,
    /// No effect on output (install only; a Go duration such as 5m0s).
    #[arg(long = "timeout", value_name = "DURATION")]
    pub timeout: Option<String>,
    /// No effect on output (install only). Helm 4 takes a strategy:
    /// watcher, hookOnly or legacy.
    #[arg(long = "wait", num_args = 0..=1, require_equals = true, default_missing_value = BARE, value_name = "WAIT")]
    pub wait: Option<String>,
    /// No effect on output (install only).
    #[arg(long = "wait-for-jobs", num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    pub wait_for_jobs: Option<String>,
    /// No effect on output (install only; Helm 4 deprecates it).
    #[arg(long = "atomic", num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    pub atomic: Option<String>,
    /// No effect on output (install only; Helm 4 deprecates it).
    #[arg(long = "force", num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    pub force: Option<String>,
    /// No effect on output (template prints no notes; Helm 4 deprecates it).
    #[arg(long = "render-subchart-notes", num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    pub render_subchart_notes: Option<String>,
    /// Helm 4, no effect on output (deprecated there).
    #[arg(long = "hide-notes", num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    pub hide_notes: Option<String>,
    /// Helm 4, no effect on output (install only).
    #[arg(long = "force-conflicts", num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    pub force_conflicts: Option<String>,
    /// Helm 4, no effect on output (install only).
    #[arg(long = "force-replace", num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    pub force_replace: Option<String>,
    /// Helm 4, no effect on output (install only).
    #[arg(long = "rollback-on-failure", num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    pub rollback_on_failure: Option<String>,
    /// Helm 4, no effect on output (install only).
    #[arg(long = "server-side", num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    pub server_side: Option<String>,
    /// Helm 4, no effect on output (install only).
    #[arg(long = "take-ownership", num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    pub take_ownership: Option<String>,
    /// No effect on output (cluster connection).
    #[arg(long = "burst-limit", value_name = "INT")]
    pub burst_limit: Option<String>,
    /// No effect on output (cluster connection).
    #[arg(long = "qps", value_name = "FLOAT")]
    pub qps: Option<String>,
    /// No effect on output (cluster connection).
    #[arg(long = "kube-apiserver")]
    pub kube_apiserver: Option<String>,
    /// No effect on output (cluster connection).
    #[arg(long = "kube-as-group")]
    pub kube_as_group: Vec<String>,
    /// No effect on output (cluster connection).
    #[arg(long = "kube-as-user")]
    pub kube_as_user: Option<String>,
    /// No effect on output (cluster connection).
    #[arg(long = "kube-ca-file")]
    pub kube_ca_file: Option<String>,
    /// No effect on output (cluster connection).
    #[arg(long = "kube-context")]
    pub kube_context: Option<String>,
    /// No effect on output (cluster connection).
    #[arg(long = "kube-insecure-skip-tls-verify", num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    pub kube_insecure_skip_tls_verify: Option<String>,
    /// No effect on output (cluster connection).
    #[arg(long = "kube-tls-server-name")]
    pub kube_tls_server_name: Option<String>,
    /// No effect on output (cluster connection).
    #[arg(long = "kube-token")]
    pub kube_token: Option<String>,
    /// No effect on output (cluster connection).
    #[arg(long = "kubeconfig")]
    pub kubeconfig: Option<String>,
    /// No effect on output (repositories and registries).
    #[arg(long = "registry-config")]
    pub registry_config: Option<String>,
    /// No effect on output (repositories and registries).
    #[arg(long = "repository-cache")]
    pub repository_cache: Option<String>,
    /// No effect on output (repositories and registries).
    #[arg(long = "repository-config")]
    pub repository_config: Option<String>,
    /// Helm 4, no effect on output (downloads).
    #[arg(long = "content-cache")]
    pub content_cache: Option<String>,
    /// Helm 4, no effect on output: never, auto or always.
    #[arg(long = "color", value_name = "WHEN")]
    pub color: Option<String>,
    /// Helm 4, no effect on output: never, auto or always.
    #[arg(long = "colour", value_name = "WHEN")]
    pub colour: Option<String>,

    /// Which Helm to imitate: 3 (v3.15.3) or 4 (v4.3.1).
    #[arg(long = "helm-version", default_value = "3", value_parser = ["3", "4"])]
    pub helm_version: String,
    /// Show the template line of an error even when stderr is not a terminal.
    #[arg(long = "pretty-errors")]
    pub pretty_errors: bool,
    #[command(flatten)]
    pub repro: super::repro::ReproArgs,
}

/// What clap stores for `--dry-run` / `--wait` given without a value (Helm gives
/// those a default of its own, different per version).
const BARE: &str = "\u{0}bare";

/// A failure before rendering: Helm's stderr text (log lines and `Error: ...`).
struct Early(String);

impl From<String> for Early {
    fn from(e: String) -> Self {
        Early(format!("Error: {e}\n"))
    }
}

/// The flags after checking, as the render needs them.
struct Checked {
    opts: RenderOptions,
    chart: PathBuf,
    /// Lines Helm writes to stderr while reading the flags (deprecations).
    warnings: Vec<String>,
    debug: bool,
    dependency_update: bool,
    output_dir: Option<String>,
    use_release_name: bool,
}

impl TemplateArgs {
    fn helm(&self) -> HelmVersion {
        if self.helm_version == "4" {
            HelmVersion::V4
        } else {
            HelmVersion::V3
        }
    }

    /// pflag's reading of one boolean flag.
    fn boolean(&self, v: &Option<String>, flag: &str) -> Result<bool, Early> {
        match v {
            None => Ok(false),
            Some(s) => {
                goflags::parse_bool(s).map_err(|e| Early::from(goflags::invalid(s, flag, &e)))
            }
        }
    }

    /// Refuses what Helm would not parse: flags of the other Helm version (as
    /// unknown), values of the wrong type. Returns the deprecation lines Helm 4
    /// prints for the flags it keeps hidden.
    fn check_flags(&self) -> Result<Vec<String>, Early> {
        let helm = self.helm();
        let v4_only: [(&str, bool); 10] = [
            (
                "--skip-schema-validation",
                self.skip_schema_validation.is_some(),
            ),
            ("--hide-notes", self.hide_notes.is_some()),
            ("--force-conflicts", self.force_conflicts.is_some()),
            ("--force-replace", self.force_replace.is_some()),
            ("--rollback-on-failure", self.rollback_on_failure.is_some()),
            ("--server-side", self.server_side.is_some()),
            ("--take-ownership", self.take_ownership.is_some()),
            ("--content-cache", self.content_cache.is_some()),
            ("--color", self.color.is_some()),
            ("--colour", self.colour.is_some()),
        ];
        if helm == HelmVersion::V3 {
            // Helm names the first unknown flag on the command line.
            let argv: Vec<String> = std::env::args().collect();
            let at = |name: &str| {
                argv.iter()
                    .position(|a| a == name || a.starts_with(&format!("{name}=")))
                    .unwrap_or(usize::MAX)
            };
            if let Some((name, _)) = v4_only
                .iter()
                .filter(|(_, set)| *set)
                .min_by_key(|(name, _)| at(name))
            {
                return Err(Early::from(format!("unknown flag: {name}")));
            }
        }
        let bools: &[(&Option<String>, &str)] = &[
            (&self.include_crds, "--include-crds"),
            (&self.skip_tests, "--skip-tests"),
            (&self.no_hooks, "--no-hooks"),
            (&self.is_upgrade, "--is-upgrade"),
            (&self.release_name, "--release-name"),
            (&self.generate_name, "-g, --generate-name"),
            (&self.dependency_update, "--dependency-update"),
            (&self.enable_dns, "--enable-dns"),
            (&self.skip_schema_validation, "--skip-schema-validation"),
            (&self.debug, "--debug"),
            (&self.validate, "--validate"),
            (&self.verify, "--verify"),
            (&self.devel, "--devel"),
            (&self.pass_credentials, "--pass-credentials"),
            (&self.plain_http, "--plain-http"),
            (&self.insecure_skip_tls_verify, "--insecure-skip-tls-verify"),
            (&self.skip_crds, "--skip-crds"),
            (&self.create_namespace, "--create-namespace"),
            (
                &self.disable_openapi_validation,
                "--disable-openapi-validation",
            ),
            (&self.replace, "--replace"),
            (&self.wait_for_jobs, "--wait-for-jobs"),
            (&self.atomic, "--atomic"),
            (&self.force, "--force"),
            (&self.render_subchart_notes, "--render-subchart-notes"),
            (&self.hide_notes, "--hide-notes"),
            (&self.force_conflicts, "--force-conflicts"),
            (&self.force_replace, "--force-replace"),
            (&self.rollback_on_failure, "--rollback-on-failure"),
            (&self.server_side, "--server-side"),
            (&self.take_ownership, "--take-ownership"),
            (
                &self.kube_insecure_skip_tls_verify,
                "--kube-insecure-skip-tls-verify",
            ),
        ];
        for (v, flag) in bools {
            self.boolean(v, flag)?;
        }
        let bad = |v: &str, flag: &str, e: String| Early::from(goflags::invalid(v, flag, &e));
        if let Some(t) = &self.timeout {
            crate::funcs::dates::parse_duration(t).map_err(|e| bad(t, "--timeout", e))?;
        }
        if let Some(n) = &self.burst_limit {
            goflags::parse_int(n).map_err(|e| bad(n, "--burst-limit", e))?;
        }
        if let Some(q) = &self.qps {
            goflags::parse_float32(q).map_err(|e| bad(q, "--qps", e))?;
        }
        for l in &self.labels {
            goflags::parse_string_to_string(l).map_err(|e| bad(l, "-l, --labels", e))?;
        }
        let mut warnings = Vec::new();
        match helm {
            HelmVersion::V3 => {
                if let Some(w) = &self.wait {
                    if w != BARE {
                        self.boolean(&Some(w.clone()), "--wait")?;
                    }
                }
            }
            HelmVersion::V4 => {
                if let Some(w) = self.wait.as_deref().filter(|w| *w != BARE) {
                    match w {
                        "watcher" | "hookOnly" | "legacy" => {}
                        // Only the literal words of Helm 3's boolean are still taken.
                        _ => match w {
                            "true" | "false" => warnings.push(format!(
                                "level=WARN msg=\"--wait={w} is deprecated (boolean value) and can be replaced with --wait={}\"",
                                if w == "true" { "watcher" } else { "hookOnly" }
                            )),
                            _ => {
                                return Err(bad(
                                    w,
                                    "--wait",
                                    format!("invalid wait input {}. Valid inputs are watcher, hookOnly, and legacy", quote(w)),
                                ))
                            }
                        },
                    }
                }
                // Cobra announces a deprecated flag as it parses it.
                let deprecated: [(bool, &str, &str); 5] = [
                    (
                        self.atomic.is_some(),
                        "atomic",
                        "use --rollback-on-failure instead",
                    ),
                    (self.force.is_some(), "force", "use --force-replace instead"),
                    (
                        self.validate.is_some(),
                        "validate",
                        "use '--dry-run=server' instead",
                    ),
                    (
                        self.render_subchart_notes.is_some(),
                        "render-subchart-notes",
                        "this flag has no effect for 'helm template' and will be removed in Helm 5",
                    ),
                    (
                        self.hide_notes.is_some(),
                        "hide-notes",
                        "this flag has no effect for 'helm template' and will be removed in Helm 5",
                    ),
                ];
                for (set, name, why) in deprecated {
                    if set {
                        warnings.push(format!("Flag --{name} has been deprecated, {why}"));
                    }
                }
                for c in [&self.color, &self.colour].into_iter().flatten() {
                    if !matches!(c.as_str(), "never" | "auto" | "always") {
                        // Helm 4 reports this one as a log line only.
                        let msg = format!(
                            "invalid color mode {}: must be one of: never, auto, always",
                            quote(c)
                        );
                        return Err(Early(format!(
                            "level=WARN msg=\"command failed\" error={}\n",
                            quote(&msg)
                        )));
                    }
                }
            }
        }
        Ok(warnings)
    }

    /// Flags whose effect stackproof cannot produce offline: refused by name, so a
    /// script never gets output that differs from what Helm would print.
    fn refused(&self, helm: HelmVersion, chart: &Path) -> Result<Option<String>, Early> {
        if self.boolean(&self.validate, "--validate")? {
            return Ok(Some("--validate checks the manifests against the Kubernetes cluster the kubeconfig points at; stackproof renders offline".into()));
        }
        if let Some(repo) = &self.repo {
            return Ok(Some(format!("--repo {repo} would download the chart from a chart repository; stackproof renders local charts only (download it with `helm pull` first)")));
        }
        if let Some(p) = &self.post_renderer {
            match helm {
                HelmVersion::V3 if self.allow_exec => {
                    if self.output_dir.is_some() {
                        return Ok(Some("--post-renderer with --output-dir is not supported by stackproof (Helm writes the files before it post-renders)".into()));
                    }
                }
                HelmVersion::V3 => {
                    return Ok(Some(format!("--post-renderer runs the program {p} on the output; stackproof runs programs only with --allow-exec")));
                }
                HelmVersion::V4 => {
                    return Ok(Some(format!("--post-renderer runs the post-renderer plugin {p} on the output; stackproof does not run plugins (pipe its output through {p} instead)")));
                }
            }
        }
        if let Some(mode) = self.dry_run.as_deref() {
            match (helm, mode) {
                (HelmVersion::V3, "server" | "none" | "false") => {
                    return Ok(Some(format!("--dry-run={mode} makes Helm 3 answer `lookup` from the cluster the kubeconfig points at; stackproof renders offline (use --dry-run=client)")));
                }
                (HelmVersion::V4, "server") => {
                    return Ok(Some("--dry-run=server needs the Kubernetes cluster the kubeconfig points at; stackproof renders offline (use --dry-run=client)".into()));
                }
                _ => {}
            }
        }
        if self.boolean(&self.verify, "--verify")? && !chart.is_dir() {
            return Ok(Some("--verify checks the archive's provenance file with GnuPG keys; stackproof does not verify signatures".into()));
        }
        Ok(None)
    }

    fn options(&self) -> Result<Checked, Early> {
        let helm = self.helm();
        let mut warnings = self.check_flags()?;
        // Helm reads `--dry-run` before anything else it runs.
        if let Some(mode) = self.dry_run.as_deref() {
            match helm {
                HelmVersion::V3 => {
                    if !matches!(mode, BARE | "" | "false" | "true" | "none" | "client" | "server") {
                        return Err(Early::from("Invalid dry-run flag. Flag must one of the following: false, true, none, client, server".to_string()));
                    }
                }
                HelmVersion::V4 => match mode {
                    BARE => warnings.push("level=WARN msg=\"--dry-run is deprecated and should be replaced with '--dry-run=client'\"".into()),
                    "true" => warnings.push("level=WARN msg=\"boolean '--dry-run=true' flag is deprecated and must be replaced with '--dry-run=client'\"".into()),
                    "client" | "server" => {}
                    "none" | "false" => {
                        return Err(Early::from(format!("invalid dry-run value ({}). Must be \"server\" or \"client\"", quote(mode))));
                    }
                    _ => {
                        return Err(Early::from(format!("invalid dry-run value ({}). Must be \"none\", \"server\", or \"client\"", quote(mode))));
                    }
                },
            }
        }
        let chart_arg = self.args.last().cloned().unwrap_or_default();
        let chart = PathBuf::from(chart_arg.trim());
        if let Some(why) = self.refused(helm, &chart)? {
            return Err(Early(format!("{}Error: {why}\n", lines(&warnings))));
        }
        let with_warnings = |e: Early| Early(format!("{}{}", lines(&warnings), e.0));
        // Helm finds the program while it parses its flags (refused() let only an
        // allowed Helm 3 post-renderer through).
        let post_renderer = match &self.post_renderer {
            None => None,
            Some(p) => {
                let cwd = std::env::current_dir().unwrap_or_default();
                Some(
                    PostRenderer::resolve(p, self.post_renderer_args.clone(), &cwd).map_err(
                        |e| {
                            with_warnings(Early::from(format!(
                                "invalid argument {p:?} for \"--post-renderer\" flag: {e}"
                            )))
                        },
                    )?,
                )
            }
        };
        // Helm locates the chart first, and an unpacked one cannot be verified.
        if self.boolean(&self.verify, "--verify")? && chart.is_dir() {
            return Err(with_warnings(Early::from(
                "unpacked charts cannot be verified".to_string(),
            )));
        }
        let insecure =
            self.boolean(&self.insecure_skip_tls_verify, "--insecure-skip-tls-verify")?;
        check_tls_files(
            helm,
            self.cert_file.as_deref(),
            self.key_file.as_deref(),
            self.ca_file.as_deref(),
            insecure,
        )
        .map_err(|e| with_warnings(Early::from(e)))?;
        let name = self.release(helm).map_err(with_warnings)?;
        let (seed, now) = self
            .repro
            .resolve()
            .map_err(|e| with_warnings(Early::from(e)))?;
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
        let mut labels = Vec::new();
        for l in &self.labels {
            labels.extend(goflags::parse_string_to_string(l).unwrap_or_default());
        }
        let flag = |v: &Option<String>| {
            v.as_deref()
                .is_some_and(|s| goflags::parse_bool(s).unwrap_or(false))
        };
        Ok(Checked {
            opts: RenderOptions {
                release_name: name,
                namespace: release_namespace(self.namespace.as_deref()),
                helm,
                values,
                kube_version: self.kube_version.clone(),
                api_versions: self.api_versions.clone(),
                is_upgrade: flag(&self.is_upgrade),
                include_crds: flag(&self.include_crds),
                no_hooks: flag(&self.no_hooks),
                skip_tests: flag(&self.skip_tests),
                show_only: self.show_only.clone(),
                skip_schema_validation: flag(&self.skip_schema_validation),
                seed,
                now,
                enable_dns: flag(&self.enable_dns),
                release_checks: true,
                labels,
                post_renderer,
            },
            chart,
            warnings,
            debug: flag(&self.debug),
            dependency_update: flag(&self.dependency_update),
            output_dir: self.output_dir.clone(),
            use_release_name: flag(&self.release_name),
        })
    }

    /// Helm's `NameAndChart` for `template` (whose release name defaults to
    /// `release-name`, so `--generate-name` alone changes nothing).
    fn release(&self, helm: HelmVersion) -> Result<String, Early> {
        let generate = self.boolean(&self.generate_name, "-g, --generate-name")?;
        match self.args.as_slice() {
            [_] => match self.name_template.as_deref().filter(|t| !t.is_empty()) {
                Some(t) => name_template(helm, t, &self.repro).map_err(Early::from),
                None => Ok("release-name".to_string()),
            },
            [name, _] => {
                if generate {
                    return Err(Early::from(
                        "cannot set --generate-name and also specify a name".to_string(),
                    ));
                }
                if self.name_template.as_deref().is_some_and(|t| !t.is_empty()) {
                    return Err(Early::from(
                        "cannot set --name-template and also specify a name".to_string(),
                    ));
                }
                Ok(name.clone())
            }
            [] => Err(Early::from(
                "\"stackproof template\" requires at least 1 argument".to_string(),
            )),
            [_, _, extra @ ..] => Err(Early::from(format!(
                "expected at most two arguments, unexpected arguments: {}",
                extra.join(", ")
            ))),
        }
    }
}

/// Stderr lines, each ended.
fn lines(l: &[String]) -> String {
    l.iter().map(|w| format!("{w}\n")).collect()
}

/// Helm's `TemplateName`: the template run with Sprig's functions (not Helm's own,
/// so no `include` or `toYaml`) and no data; its errors are Go's own text.
fn name_template(
    helm: HelmVersion,
    text: &str,
    repro: &super::repro::ReproArgs,
) -> Result<String, String> {
    let flavor = match helm {
        HelmVersion::V3 => Flavor::Helm3,
        HelmVersion::V4 => Flavor::Helm4,
    };
    let level = match helm {
        HelmVersion::V3 => LanguageLevel::Go122,
        HelmVersion::V4 => LanguageLevel::Go127,
    };
    let mut set = TemplateSet::new(
        "name-template",
        Arc::new(sprig_registry(flavor)),
        Options::new(level, MissingKey::Default),
    );
    set.parse("name-template", text)
        .map_err(|e| e.to_string())?;
    let (seed, now) = repro.resolve()?;
    let mut host = Host::with(seed, now);
    // Sprig's own `getHostByName` resolves names; Helm does not wrap it here.
    host.allow_dns = true;
    set.execute("name-template", &Value::Nil, &host)
        .map_err(|e| e.to_string())
}

/// Helm builds its registry client's TLS settings before anything else, when a
/// certificate and key are both given, or a CA file, or `--insecure-skip-tls-verify`:
/// the files must be readable PEM. (Whether a key matches its certificate is not
/// checked here.)
fn check_tls_files(
    helm: HelmVersion,
    cert: Option<&str>,
    key: Option<&str>,
    ca: Option<&str>,
    insecure: bool,
) -> Result<(), String> {
    let lead = "missing registry client: can't create TLS config for client: ";
    let cert = cert.filter(|c| !c.is_empty());
    let key = key.filter(|k| !k.is_empty());
    let ca = ca.filter(|c| !c.is_empty());
    if !((cert.is_some() && key.is_some()) || ca.is_some() || insecure) {
        return Ok(());
    }
    let pem_has = |data: &[u8], block: &str| {
        let text = String::from_utf8_lossy(data);
        text.contains("-----BEGIN ") && text.contains(block)
    };
    match helm {
        HelmVersion::V3 => {
            if let (Some(cert), Some(key)) = (cert, key) {
                let pair = |e: String| {
                    format!("{lead}can't load key pair from cert {cert} and key {key}: {e}")
                };
                let c = std::fs::read(cert).map_err(|e| {
                    pair(format!("open {cert}: {}", crate::source::go_errno_text(&e)))
                })?;
                let k = std::fs::read(key).map_err(|e| {
                    pair(format!("open {key}: {}", crate::source::go_errno_text(&e)))
                })?;
                if !pem_has(&c, "CERTIFICATE") {
                    return Err(pair(
                        "tls: failed to find any PEM data in certificate input".into(),
                    ));
                }
                if !pem_has(&k, "PRIVATE KEY") {
                    return Err(pair("tls: failed to find any PEM data in key input".into()));
                }
            }
            if let Some(ca) = ca {
                let data =
                    std::fs::read(ca).map_err(|_| format!("{lead}can't read CA file: {ca}"))?;
                if !pem_has(&data, "CERTIFICATE") {
                    return Err(format!(
                        "{lead}failed to append certificates from file: {ca}"
                    ));
                }
            }
            Ok(())
        }
        HelmVersion::V4 => {
            // Helm 4 reads every file first and reports all read failures together.
            let mut errs = Vec::new();
            let mut pair = None;
            if cert.is_some() || key.is_some() {
                let (c, k) = (cert.unwrap_or(""), key.unwrap_or(""));
                match std::fs::read(c) {
                    Err(e) => errs.push(format!(
                        "unable to read cert file: {}: open {c}: {}",
                        quote(c),
                        crate::source::go_errno_text(&e)
                    )),
                    Ok(cd) => match std::fs::read(k) {
                        Err(e) => errs.push(format!(
                            "unable to read key file: {}: open {k}: {}",
                            quote(k),
                            crate::source::go_errno_text(&e)
                        )),
                        Ok(kd) => pair = Some((cd, kd)),
                    },
                }
            }
            let mut ca_data = None;
            if let Some(ca) = ca {
                match std::fs::read(ca) {
                    Err(e) => errs.push(format!(
                        "can't read CA file: {}: open {ca}: {}",
                        quote(ca),
                        crate::source::go_errno_text(&e)
                    )),
                    Ok(d) => ca_data = Some(d),
                }
            }
            if !errs.is_empty() {
                return Err(format!("{lead}{}", errs.join("\n")));
            }
            if let Some((c, k)) = pair.filter(|(c, k)| !c.is_empty() && !k.is_empty()) {
                let input = if !pem_has(&c, "CERTIFICATE") {
                    Some("certificate")
                } else if !pem_has(&k, "PRIVATE KEY") {
                    Some("key")
                } else {
                    None
                };
                if let Some(input) = input {
                    return Err(format!("{lead}unable to load cert from key pair: tls: failed to find any PEM data in {input} input"));
                }
            }
            if let Some(d) = ca_data.filter(|d| !d.is_empty()) {
                if !pem_has(&d, "CERTIFICATE") {
                    return Err(format!(
                        "{lead}failed to append certificates from pem block"
                    ));
                }
            }
            Ok(())
        }
    }
}

fn locate(chart: &Path, vfs: &Vfs) -> Result<(), ChartError> {
    if vfs.exists(chart) {
        return Ok(());
    }
    let reference = chart.display().to_string();
    Err(ChartError::load(crate::chart::loader::lookup_error(
        &reference,
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
    // A Go string that is not UTF-8 (see `template::gostr`) goes out as its bytes.
    let _ = stderr.write_all(&gostr::to_bytes(&err.helm_stderr()));
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

/// Prints a failed render as Helm does. With `--debug`, Helm prints what it
/// rendered (through `--show-only`'s filter) before the error and leaves out its
/// hint to use `--debug`.
fn fail(err: &ChartError, c: &Checked, pretty: bool) -> i32 {
    if c.debug && err.has_debug_hint() {
        let blob = err.debug_manifest.clone().unwrap_or_default();
        let text = format!("{}\n", manifest::trim_space(&blob));
        let shown = if c.opts.show_only.is_empty() {
            Ok(text)
        } else {
            manifest::select_shown(c.opts.helm, &text, &c.opts.show_only)
        };
        match shown {
            Ok(out) => {
                let _ = std::io::stdout().lock().write_all(&gostr::to_bytes(&out));
            }
            // Helm 3 reports the missing template; Helm 4 the render failure.
            Err(e) if c.opts.helm == HelmVersion::V3 => {
                let _ = std::io::stderr().write_all(format!("Error: {e}\n").as_bytes());
                return FAILED;
            }
            Err(_) => {}
        }
        let mut plain = err.clone();
        plain.phase = Phase::Prepare;
        report(&plain, pretty);
        return FAILED;
    }
    report(err, pretty);
    FAILED
}

/// Runs the command; returns the exit code.
pub fn run(args: &TemplateArgs) -> i32 {
    let c = match args.options() {
        Ok(x) => x,
        Err(Early(text)) => {
            let _ = std::io::stderr().write_all(text.as_bytes());
            return 2;
        }
    };
    for w in &c.warnings {
        eprintln!("{w}");
    }
    let pretty = args.pretty_errors || std::io::stderr().is_terminal();
    let vfs = Vfs::real();
    let chart = &c.chart;
    // `--dependency-update`: what `helm dependency update` prints while it runs.
    let mut update_log: Vec<String> = Vec::new();
    // The loaded chart, kept to be leaked at the end (see below).
    let mut keep: Option<Arc<Chart>> = None;
    let result = locate(chart, &vfs).and_then(|()| {
        render_path_with(chart, &c.opts, &vfs, |loaded| {
            keep = Some(loaded.clone());
            if !c.dependency_update || !needs_update(&loaded) || !chart.is_dir() {
                return Ok(loaded);
            }
            let shown = chart.display().to_string();
            let (built, log) = depbuild::update(chart, &shown, &vfs, c.debug).map_err(|e| {
                ChartError::new(
                    Phase::Prepare,
                    e.strip_prefix("Error: ").unwrap_or(&e).to_string(),
                )
            })?;
            update_log = log;
            Ok(built)
        })
    });
    {
        let mut stdout = std::io::stdout().lock();
        for l in &update_log {
            let _ = writeln!(stdout, "{l}");
        }
    }
    let rendered = match result {
        Ok(r) => r,
        Err(e) => return fail(&e, &c, pretty),
    };
    for w in &rendered.warnings {
        eprintln!("{w}");
    }
    let printed = match &c.output_dir {
        Some(dir) => write_output_dir(&rendered, &c, dir),
        None => rendered.helm_output(),
    };
    // The process ends right after printing, and the system takes its memory back
    // whole. Freeing the chart (its parsed templates) and the render piece by piece
    // was 2% of a mid-sized chart's run (perf, four corpus charts).
    std::mem::forget(keep);
    std::mem::forget(rendered);
    match printed {
        Ok(out) => {
            let mut stdout = std::io::stdout().lock();
            if stdout
                .write_all(&gostr::to_bytes(&out))
                .and_then(|()| stdout.flush())
                .is_err()
            {
                return 1;
            }
            0
        }
        Err(e) => fail(&e, &c, pretty),
    }
}

/// Helm's `CheckDependencies` failing: a dependency of `Chart.yaml` is not in
/// `charts/`, which is when `--dependency-update` runs an update.
fn needs_update(chart: &Chart) -> bool {
    chart.metadata.dependencies.as_ref().is_some_and(|reqs| {
        reqs.iter()
            .any(|r| !chart.dependencies.iter().any(|d| d.name() == r.name))
    })
}

/// `--output-dir`: writes each document as Helm does (printing `wrote PATH` as it
/// goes) and returns what Helm prints after: the now empty manifest, i.e. one
/// newline, or `--show-only`'s failure to find anything in it.
fn write_output_dir(rendered: &Rendered, c: &Checked, dir: &str) -> Result<String, ChartError> {
    let release_dir = if c.use_release_name {
        paths::join(&[dir, &c.opts.release_name])
    } else {
        dir.to_string()
    };
    let mut written: HashSet<String> = HashSet::new();
    let mut stdout = std::io::stdout().lock();
    for w in rendered.output_dir_writes(dir, &release_dir) {
        let append = if w.hook {
            Path::new(&paths::join(&[&release_dir, &w.source])).exists()
        } else {
            written.contains(&w.source)
        };
        write_file(Path::new(&w.path), &w.path, &w.text(), append).map_err(|e| {
            // A failed write of a regular manifest happens inside Helm's render
            // (so it gets the `--debug` hint); a hook's, in the command after it.
            let mut err = ChartError::new(if w.hook { Phase::Output } else { Phase::Render }, e);
            err.debug_manifest = Some(String::new());
            err
        })?;
        written.insert(w.source.clone());
        let _ = writeln!(stdout, "wrote {}", w.path);
    }
    if c.opts.show_only.is_empty() {
        return Ok("\n".to_string());
    }
    manifest::select_shown(c.opts.helm, "\n", &c.opts.show_only)
        .map_err(|e| ChartError::new(Phase::Output, e))
}

/// Creates (or appends to) one output file, making its directory first; errors
/// read like Go's (`open SHOWN: permission denied`, SHOWN being the path as the
/// program names it). Also writes `helmfile template --output-dir`'s files.
pub(crate) fn write_file(p: &Path, shown: &str, text: &str, append: bool) -> Result<(), String> {
    if let Some(parent) = p.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| {
            format!(
                "mkdir {}: {}",
                parent.display(),
                crate::source::go_errno_text(&e)
            )
        })?;
    }
    let file = if append {
        std::fs::OpenOptions::new().append(true).open(p)
    } else {
        std::fs::File::create(p)
    };
    file.and_then(|mut f| f.write_all(text.as_bytes()))
        .map_err(|e| format!("open {shown}: {}", crate::source::go_errno_text(&e)))
}

/// Helm's namespace choice without a cluster: the flag, else `HELM_NAMESPACE`
/// (which the flag overrides even when empty), else `default`. Helm would next ask
/// the kubeconfig's current context; a render that depends on the machine's
/// kubeconfig is not reproducible, so that step is left out.
fn release_namespace(flag: Option<&str>) -> String {
    let chosen = match flag {
        Some(ns) => ns.to_string(),
        None => std::env::var("HELM_NAMESPACE").unwrap_or_default(),
    };
    if chosen.is_empty() {
        "default".to_string()
    } else {
        chosen
    }
}
