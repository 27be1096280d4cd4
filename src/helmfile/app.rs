//! Running a Helmfile command over a whole stack (`pkg/app/app.go`): finding the state
//! files, visiting them (nested `helmfiles:` first), templating releases, and the
//! per-state work of `list`, `write-values` and `template`, into a [`StackRender`].

use rayon::prelude::*;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

use super::charts::ChartSources;
use super::dag::{self, release_id, PlanOptions};
use super::error::{ErrorKind, HelmfileError, Result};
use super::lease::{Lease, Leases};
use super::list::{format_json, format_labels, format_table, ListedRelease};
use super::load::{HelmState, LoadOpts, Loader};
use super::model::{ReleaseRender, StackRender, StateRender, WrittenFile};
use super::output::{resolve_chart, template_release, TemplatedRelease};
use super::paths;
use super::release::{apply_overrides, condition_enabled, execute_templates};
use super::selector::{selector_labels, LabelFilter};
use super::setvals::state_values_from_flags;
use super::tmpl::RenderEnv;
use super::values::{generate_values_files, merge_values_files_go, set_flags, ValuesFile};
use crate::funcs::codec::yaml::{go_to_value_plain_keys, GoValue};
use crate::template::Value;

/// Which Helmfile command to run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `list` (`json` true for `--output json`; `skip_charts` for `--skip-charts`,
    /// which changes how a broken `condition:` is reported).
    List { json: bool, skip_charts: bool },
    /// `write-values` (`--output-file-template`).
    WriteValues {
        output_file_template: Option<String>,
    },
    /// `template`; `render_manifests` false stops before running charts (values only).
    Template { render_manifests: bool },
}

/// `helmfile template` flags that Helmfile hands to every `helm template` run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HelmTemplateFlags {
    /// `--skip-tests`: leave out test hooks.
    pub skip_tests: bool,
    /// `--include-crds`: print the charts' `crds/` files first.
    pub include_crds: bool,
    /// `--kube-version`: wins over the release's and the state's `kubeVersion`.
    pub kube_version: Option<String>,
    /// `--set`, after each release's own `set:` entries.
    pub set: Vec<String>,
    /// `--show-only` templates.
    pub show_only: Vec<String>,
    /// `--output-dir`: helm writes each release's manifests under a directory of
    /// its own there instead of printing them.
    pub output_dir: Option<String>,
    /// `--output-dir-template`: that directory, as a Go template.
    pub output_dir_template: Option<String>,
    /// `--post-renderer` (run only with `--allow-exec`): for releases and states
    /// that name none.
    pub post_renderer: Option<String>,
    /// `--post-renderer-args`, for releases and states that give none.
    pub post_renderer_args: Vec<String>,
}

/// Everything a Helmfile run takes.
#[derive(Clone, Debug)]
pub struct StackInput {
    /// The directory the command runs in.
    pub working_dir: PathBuf,
    /// `--file` (a state file or a directory), as given.
    pub file: Option<String>,
    /// `--environment` (default `default`).
    pub environment: String,
    pub state_values_set: Vec<String>,
    pub state_values_set_string: Vec<String>,
    pub state_values_files: Vec<String>,
    pub selectors: Vec<String>,
    /// `--namespace`.
    pub namespace: String,
    pub include_needs: bool,
    pub include_transitive_needs: bool,
    /// `--skip-deps`: no `helm dependency build` on local charts.
    pub skip_deps: bool,
    /// `template --skip-needs` (default true): without `--include-needs`, a selected
    /// release's needs that the selectors leave out are skipped; false makes them an
    /// error.
    pub skip_needs: bool,
    /// `--kube-context`: every release's kube context (Helmfile's state
    /// `kubeContext:` override, which a state may then not set itself).
    pub kube_context: String,
    /// `--allow-no-matching-release`: "no releases found" still prints its message
    /// but exits 0.
    pub allow_no_matching_release: bool,
    /// `--values` of `template` and `write-values`: files added after each
    /// release's own values (paths relative to each state's directory).
    pub additional_values: Vec<String>,
    /// `template`'s flags passed on to `helm template`.
    pub helm_template: HelmTemplateFlags,
    pub render: RenderEnv,
    pub chart_sources: ChartSources,
    pub command: Command,
}

impl Default for StackInput {
    fn default() -> Self {
        StackInput {
            working_dir: PathBuf::from("."),
            file: None,
            environment: "default".to_string(),
            state_values_set: Vec::new(),
            state_values_set_string: Vec::new(),
            state_values_files: Vec::new(),
            selectors: Vec::new(),
            namespace: String::new(),
            include_needs: false,
            include_transitive_needs: false,
            skip_deps: false,
            skip_needs: true,
            kube_context: String::new(),
            allow_no_matching_release: false,
            additional_values: Vec::new(),
            helm_template: HelmTemplateFlags::default(),
            render: RenderEnv::default(),
            chart_sources: ChartSources::default(),
            command: Command::Template {
                render_manifests: true,
            },
        }
    }
}

/// Helmfile's `app.Error` text for several errors (`N errors:` then `err i: ...`).
fn join_errors(mut errs: Vec<HelmfileError>) -> Option<HelmfileError> {
    match errs.len() {
        0 => None,
        1 => errs.pop(),
        n => {
            let mut first = errs[0].clone();
            let lines: Vec<String> = errs
                .iter()
                .enumerate()
                .map(|(i, e)| format!("err {i}: {}", e.message))
                .collect();
            first.message = format!("{n} errors:\n{}", lines.join("\n"));
            Some(first)
        }
    }
}

/// Helmfile's exit code for "no state had a release to process".
pub const EXIT_NO_MATCH: i32 = 3;

struct Runner<'a> {
    input: &'a StackInput,
    warnings: RefCell<Vec<String>>,
    /// Every local chart directory whose dependencies were built so far (see
    /// [`HelmState::built_charts`]).
    built_charts: RefCell<BTreeMap<PathBuf, String>>,
    out: StackRender,
    /// `template`'s output, one release's manifests at a time, joined once at the
    /// end: growing one string release by release copies megabytes again at each
    /// doubling, into fresh memory the kernel must zero.
    printed: Vec<Arc<String>>,
    listed: Vec<ListedRelease>,
    /// States whose charts are rendering while later states load (see [`Pending`]).
    pending: Vec<Pending>,
    /// Which prepared charts a release still needs (see `lease`).
    leases: Arc<Leases>,
    /// The `in …` contexts an error leaving the current state passes through on its
    /// way out of `visit`, outermost first.
    ctx: Vec<String>,
}

/// One state's `template` step whose charts render in the background.
///
/// Why: Helmfile templates one state after another, so a state holding a slow
/// chart (key generation, CRD bundles) kept the other threads idle while the next
/// states waited. Charts only read the stack, so each state's releases are started
/// as soon as their values are known and the next state loads meanwhile; the
/// results are then applied strictly in order, and a failure undoes what the
/// states after it added, so output and errors are what the one-by-one run gives.
/// Once every state is loaded, the main thread applies each result as soon as it
/// and those before it are in, while later charts still render: gathering the
/// output (megabytes of CRDs for some stacks) is then off the end of the run.
struct Pending {
    index: usize,
    order: Vec<usize>,
    /// Each release's preparation result (helm may run it only when it is ok).
    prepared: Vec<std::result::Result<(), ReleaseErrors>>,
    render: bool,
    /// One slot per release of `order` that helm would reach, filled by the
    /// thread that renders it and emptied by [`Runner::apply`].
    rendered: Slots,
    /// How many states and warnings existed when this state was templated.
    states_len: usize,
    warnings_len: usize,
    /// [`Runner::ctx`] at that time.
    ctx: Vec<String>,
}

/// The errors preparing one release gave, in the order Helmfile collects them.
struct ReleaseErrors {
    first: HelmfileError,
    more: Vec<HelmfileError>,
}

type Slots = Arc<Rendered>;

/// The rendered releases of one state, one slot per release helm would reach.
struct Rendered {
    slots: Mutex<Vec<Slot>>,
    /// Signalled whenever a slot is done.
    done: Condvar,
}

enum Slot {
    Rendering,
    // Boxed: a result is several hundred bytes, a slot waiting for one nothing.
    Done(Option<Box<TemplatedRelease>>),
}

impl Rendered {
    fn new(n: usize) -> Rendered {
        Rendered {
            slots: Mutex::new((0..n).map(|_| Slot::Rendering).collect()),
            done: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Vec<Slot>> {
        self.slots.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Renders release `k` into its slot. A render that panics still marks the
    /// slot done (empty), so that nothing waits for it; the panic itself ends the
    /// run when the scope does.
    fn render(&self, k: usize, work: impl FnOnce() -> TemplatedRelease) {
        struct Finish<'r>(&'r Rendered, usize, Option<TemplatedRelease>);
        impl Drop for Finish<'_> {
            fn drop(&mut self) {
                if let Some(slot) = self.0.lock().get_mut(self.1) {
                    *slot = Slot::Done(self.2.take().map(Box::new));
                }
                self.0.done.notify_all();
            }
        }
        let mut finish = Finish(self, k, None);
        finish.2 = Some(work());
    }

    /// The result in slot `k`, waiting for its render to finish.
    ///
    /// A caller that is itself a pool worker (a matrix renders many stacks side by
    /// side, each stack's runner on a worker) must not simply block: the render it
    /// waits for may still sit in a queue that only a worker can drain, and with
    /// every worker blocked here nothing would ever run it. So a worker runs
    /// queued pool work while it waits, and sleeps only when there is none, i.e.
    /// when the render it needs is running on another thread, briefly, in case
    /// new work is queued that only it can take.
    fn take(&self, k: usize) -> Option<TemplatedRelease> {
        let worker = rayon::current_thread_index().is_some();
        let mut slots = self.lock();
        loop {
            match slots.get_mut(k) {
                None => return None,
                Some(Slot::Done(t)) => return t.take().map(|b| *b),
                Some(Slot::Rendering) => {}
            }
            if !worker {
                slots = self
                    .done
                    .wait(slots)
                    .unwrap_or_else(PoisonError::into_inner);
                continue;
            }
            drop(slots);
            let ran = matches!(rayon::yield_now(), Some(rayon::Yield::Executed));
            slots = self.lock();
            if !ran && matches!(slots.get(k), Some(Slot::Rendering)) {
                slots = self
                    .done
                    .wait_timeout(slots, std::time::Duration::from_millis(1))
                    .unwrap_or_else(PoisonError::into_inner)
                    .0;
            }
        }
    }
}

/// A release's chart as resolved before its render, and the lease that keeps it
/// prepared until the render ends.
type Resolved = (
    std::result::Result<super::charts::ResolvedChart, super::charts::ChartSourceError>,
    Option<Lease>,
);

/// The indexes of the marked releases.
fn marked(marks: &[bool]) -> Vec<usize> {
    marks
        .iter()
        .enumerate()
        .filter(|(_, m)| **m)
        .map(|(i, _)| i)
        .collect()
}

/// `visitStates` failures: an ordinary error or "nothing matched".
enum VisitError {
    NoMatch,
    Failed(HelmfileError),
}

impl From<HelmfileError> for VisitError {
    fn from(e: HelmfileError) -> Self {
        VisitError::Failed(e)
    }
}

/// Renders a stack: runs the input's command over every state and returns what it
/// printed and computed, including partial results when it failed midway.
pub fn render_stack(input: &StackInput) -> StackRender {
    let (mut out, printed) = render_stack_unjoined(input);
    if !printed.is_empty() {
        let mut stdout = String::with_capacity(printed.iter().map(|s| s.len() + 1).sum());
        for s in &printed {
            stdout.push_str(s);
            stdout.push('\n');
        }
        out.stdout = stdout;
    }
    out
}

/// [`render_stack`], except that `template`'s stdout is left as the releases'
/// outputs, each to be followed by a newline, and [`StackRender::stdout`] holds
/// only what `list` prints: a caller that writes them out one by one spares the
/// joined copy (megabytes for a stack, of fresh memory, at the very end of the
/// run).
pub fn render_stack_unjoined(input: &StackInput) -> (StackRender, Vec<Arc<String>>) {
    let mut r = Runner {
        input,
        warnings: RefCell::new(Vec::new()),
        built_charts: RefCell::new(BTreeMap::new()),
        out: StackRender::default(),
        printed: Vec::new(),
        listed: Vec::new(),
        pending: Vec::new(),
        leases: Arc::default(),
        ctx: Vec::new(),
    };
    let result = r.run();
    let mut out = std::mem::take(&mut r.out);
    let mut printed = std::mem::take(&mut r.printed);
    out.warnings = r.warnings.into_inner();
    match result {
        Ok(()) => {
            if let Command::List { json, .. } = &input.command {
                // What `list` prints replaces anything else.
                printed.clear();
                out.listed = r.listed.clone();
                out.stdout = if *json {
                    format_json(&r.listed)
                } else {
                    format_table(&r.listed)
                };
            }
            out.exit_code = 0;
        }
        Err(VisitError::NoMatch) => {
            out.error = Some(HelmfileError::other(format!(
                "err: no releases found that matches specified selector({}) and environment({}), in any helmfile",
                input.selectors.join(", "),
                input.environment
            )));
            // Helmfile still prints the message; the flag only changes the exit code.
            out.exit_code = if input.allow_no_matching_release {
                0
            } else {
                EXIT_NO_MATCH
            };
        }
        Err(VisitError::Failed(e)) => {
            out.error = Some(e);
            out.exit_code = 1;
        }
    }
    (out, printed)
}

impl<'a> Runner<'a> {
    fn loader(&self) -> Loader<'_> {
        Loader {
            renv: &self.input.render,
            env_name: self.input.environment.clone(),
            namespace: self.input.namespace.clone(),
            kube_context: self.input.kube_context.clone(),
            warnings: &self.warnings,
        }
    }

    fn run(&mut self) -> std::result::Result<(), VisitError> {
        let mut overrides: Vec<Value> = self
            .input
            .state_values_files
            .iter()
            .map(|f| Value::str(f.as_str()))
            .collect();
        let set = state_values_from_flags(
            &self.input.state_values_set,
            &self.input.state_values_set_string,
        )
        .map_err(|e| HelmfileError::other(e.to_string()))?;
        if !set.is_empty() {
            overrides.push(Value::Map(set));
        }
        let opts = LoadOpts {
            override_values: overrides,
            callee_path: String::new(),
            callee_cwd: PathBuf::new(),
            selectors: self.input.selectors.clone(),
        };
        let file = self.input.file.clone().unwrap_or_default();
        let cwd = paths::normalize(&self.input.working_dir);
        let input: &'a StackInput = self.input;
        rayon::in_place_scope(|scope| {
            // The first state that names a repository chart needs the index of
            // the chart sources (a walk of their directories); it is built while
            // the states load.
            scope.spawn(move |_| {
                input.chart_sources.charts(&input.render.vfs);
            });
            let visited = self.visit(scope, &file, &cwd, opts, None);
            // A failure among the renders happened before whatever ended the
            // visit, so it is the run's error.
            self.apply_pending()?;
            visited
        })
    }

    /// Applies the pending states in order, each once its renders are done.
    fn apply_pending(&mut self) -> std::result::Result<(), VisitError> {
        for p in std::mem::take(&mut self.pending) {
            let ctx = p.ctx.clone();
            if let Err(e) = self.apply(p) {
                let e = ctx.iter().rev().fold(e, |e, c| e.wrap(c.clone()));
                return Err(VisitError::Failed(e));
            }
        }
        Ok(())
    }

    /// `findDesiredStateFiles`.
    fn state_files(&self, specified: &str, cwd: &Path) -> Result<Vec<String>> {
        let vfs = &self.input.render.vfs;
        let dir = if !specified.is_empty() {
            let p = paths::resolve(cwd, specified);
            if vfs.is_file(&p) {
                return Ok(vec![specified.to_string()]);
            } else if vfs.is_dir(&p) {
                specified.to_string()
            } else {
                return Err(HelmfileError::new(
                    ErrorKind::File,
                    format!("specified state file {specified} is not found"),
                ));
            }
        } else {
            let plain = vfs.is_file(&cwd.join("helmfile.yaml"));
            let tmpl = vfs.is_file(&cwd.join("helmfile.yaml.gotmpl"));
            if plain && tmpl {
                return Err(HelmfileError::other(
                    "both helmfile.yaml and helmfile.yaml.gotmpl exist. Please remove one of them",
                ));
            }
            let default = if plain {
                Some("helmfile.yaml")
            } else if tmpl {
                Some("helmfile.yaml.gotmpl")
            } else if vfs.is_file(&cwd.join("charts.yaml")) {
                self.warnings.borrow_mut().push("warn: charts.yaml is being loaded: charts.yaml is deprecated in favor of helmfile.yaml. See https://github.com/roboll/helmfile/issues/25 for more information".to_string());
                Some("charts.yaml")
            } else {
                None
            };
            if vfs.is_dir(&cwd.join("helmfile.d")) {
                if let Some(d) = default {
                    return Err(HelmfileError::other(format!(
                        "configuration conlict error: you can have either {d} or helmfile.d, but not both"
                    )));
                }
                "helmfile.d".to_string()
            } else if let Some(d) = default {
                return Ok(vec![d.to_string()]);
            } else {
                return Err(HelmfileError::new(ErrorKind::File, "no state file found. It must be named helmfile.d/*.{yaml,yml,yaml.gotmpl,yml.gotmpl}, helmfile.yaml, or helmfile.yaml.gotmpl, otherwise specified with the --file flag or HELMFILE_FILE_PATH environment variable"));
            }
        };
        let mut files = paths::glob(vfs, cwd, &paths::join(&[&dir, "*.y*ml"]));
        files.extend(paths::glob(
            vfs,
            cwd,
            &paths::join(&[&dir, "*.y*ml.gotmpl"]),
        ));
        files.sort();
        Ok(files)
    }

    /// `visitStates`.
    fn visit<'s>(
        &mut self,
        scope: &rayon::Scope<'s>,
        file_or_dir: &str,
        cwd: &Path,
        opts: LoadOpts,
        parent: Option<usize>,
    ) -> std::result::Result<(), VisitError>
    where
        'a: 's,
    {
        let files = self.state_files(file_or_dir, cwd)?;
        let mut no_match = true;
        for rel in files {
            let abs = paths::resolve(cwd, &rel);
            let (file, dir) = if self.input.render.vfs.is_dir(&abs) {
                (rel.clone(), rel.clone())
            } else {
                (paths::base(&rel), paths::dir(&rel))
            };
            let state_dir = paths::resolve(cwd, &dir);
            let context = format!("in {dir}/{file}");
            self.ctx.push(context.clone());
            let matched = self.visit_one(scope, &file, &state_dir, &abs, &opts, parent);
            self.ctx.pop();
            let matched = matched.map_err(|e| e.wrap(context))?;
            no_match = no_match && !matched;
        }
        if no_match {
            return Err(VisitError::NoMatch);
        }
        Ok(())
    }

    /// One state file; returns whether it (or a nested state) processed releases.
    fn visit_one<'s>(
        &mut self,
        scope: &rayon::Scope<'s>,
        file: &str,
        state_dir: &Path,
        abs: &Path,
        opts: &LoadOpts,
        parent: Option<usize>,
    ) -> Result<bool>
    where
        'a: 's,
    {
        let mut opts = opts.clone();
        if opts.callee_path.is_empty() {
            opts.callee_path = file.to_string();
            opts.callee_cwd = state_dir.to_path_buf();
        }
        let st = match self.loader().load(file, state_dir, &opts) {
            Ok(st) => st,
            Err(e) if e.kind == ErrorKind::UndefinedEnvironment => return Ok(false),
            Err(e) => return Err(e.with_file(abs.to_path_buf())),
        };
        let index = self.out.states.len();
        self.out.states.push(StateRender {
            file: file.to_string(),
            path: abs.to_path_buf(),
            parent,
            environment: self.input.environment.clone(),
            values: Value::Map(st.rendered_values.clone()),
            parts: st.parts.clone(),
            releases: Vec::new(),
        });

        let mut no_match_in_subs = true;
        for (i, m) in st.spec.helmfiles.iter().enumerate() {
            let selectors = if m.selectors.is_none() || m.selectors_inherited {
                opts.selectors.clone()
            } else {
                m.selectors.clone().unwrap_or_default()
            };
            let nested = LoadOpts {
                override_values: m.values.clone(),
                callee_path: paths::join(&[&state_dir.display().to_string(), file]),
                callee_cwd: state_dir.to_path_buf(),
                selectors,
            };
            let context = format!("in .helmfiles[{i}]");
            if paths::is_remote(&m.path) {
                // Helmfile downloads these; stackproof reads nothing over the network,
                // and skipping one would render a different stack as if complete.
                return Err(HelmfileError::new(
                    ErrorKind::File,
                    format!(
                        "{:?} is a remote helmfile, which stackproof does not download: render a local copy of it instead",
                        m.path
                    ),
                )
                .wrap(context));
            }
            self.ctx.push(context.clone());
            let visited = self.visit(scope, &m.path, state_dir, nested, Some(index));
            self.ctx.pop();
            match visited {
                Ok(()) => no_match_in_subs = false,
                Err(VisitError::NoMatch) => {}
                Err(VisitError::Failed(e)) => return Err(e.wrap(context)),
            }
        }
        let subs_matched = !st.spec.helmfiles.is_empty() && !no_match_in_subs;

        let mut st = st;
        execute_templates(&self.input.render, &mut st).map_err(|e| {
            e.wrap(format!("failed executing release templates in \"{file}\""))
                .with_file(abs.to_path_buf())
        })?;
        let warnings = apply_overrides(&mut st);
        self.warnings.borrow_mut().extend(warnings);
        let processed = self.converge(scope, st, index)?;
        Ok(processed || subs_matched)
    }

    /// Selector and condition marking (`markExcludedReleases`); also applies
    /// Helmfile's label side effect (releases gain `name`, `namespace` and `chart`
    /// labels while selectors are active).
    fn mark(&self, st: &mut HelmState) -> Result<Vec<bool>> {
        let filters = st
            .selectors
            .iter()
            .map(|s| LabelFilter::parse(s).map_err(|e| HelmfileError::other(e.to_string())))
            .collect::<Result<Vec<_>>>()?;
        let mut selected = Vec::new();
        for r in &mut st.spec.releases {
            if !filters.is_empty() {
                r.labels = Some(selector_labels(
                    &r.labels_or_empty(),
                    &r.name,
                    &r.namespace,
                    &r.chart,
                    &st.spec.common_labels,
                ));
            }
            let labels = r.labels_or_empty();
            let matched = filters.iter().any(|f| f.matches(&labels));
            let cond = condition_enabled(r, &st.rendered_values).map_err(|e| {
                HelmfileError::other(format!(
                    "failed to parse condition in release {}: {e}",
                    r.name
                ))
                .at_release(r)
            })?;
            selected.push((filters.is_empty() || matched) && cond);
        }
        Ok(selected)
    }

    fn converge<'s>(
        &mut self,
        scope: &rayon::Scope<'s>,
        mut st: HelmState,
        index: usize,
    ) -> Result<bool>
    where
        'a: 's,
    {
        let releases: Vec<ReleaseRender> = st
            .spec
            .releases
            .iter()
            .map(|r| ReleaseRender::from_spec(r, index))
            .collect();
        self.out.states[index].releases = releases;
        let prepares_charts = !matches!(
            self.input.command,
            Command::List {
                skip_charts: true,
                ..
            }
        );
        if prepares_charts && !st.selectors.is_empty() {
            // With selectors, the releases are selected before the charts are
            // prepared, so a malformed selector or a broken condition is reported
            // by the selection: bare for `list` and `write-values` (which filter
            // the state first), as a Go slice for `template`.
            let marked = self.mark(&mut st);
            match self.input.command {
                Command::Template { .. } => marked.map_err(|e| HelmfileError {
                    message: format!("[{}]", e.message),
                    ..e
                })?,
                _ => marked?,
            };
        }
        if prepares_charts {
            // Chart preparation evaluates every condition first and reports its
            // errors as a Go slice (`[...]`).
            for r in &st.spec.releases {
                condition_enabled(r, &st.rendered_values).map_err(|e| {
                    HelmfileError::other(format!(
                        "[failed to parse condition in release {}: {e}]",
                        r.name
                    ))
                    .at_release(r)
                })?;
            }
            self.prepare_charts(&mut st)?;
            // The versions the lock file pinned are the releases' versions from
            // here on, in the model too.
            for (rr, r) in self.out.states[index]
                .releases
                .iter_mut()
                .zip(&st.spec.releases)
            {
                rr.version = r.version.clone();
            }
        }
        match self.input.command.clone() {
            Command::List { .. } => self.converge_list(&mut st, index),
            Command::WriteValues {
                output_file_template,
            } => self.converge_write_values(&mut st, index, output_file_template.as_deref()),
            Command::Template { render_manifests } => {
                self.converge_template(scope, st, index, render_manifests)
            }
        }
    }

    /// The checks of Helmfile's chart preparation (`PrepareCharts`) that decide
    /// success, over the selected releases that are installed: an OCI chart needs a
    /// semver `version:` (every command that prepares charts, `list` included), and
    /// `template` and `write-values` build each local chart's dependencies first
    /// (`helm dependency build`, done in memory), so a broken `file://` dependency
    /// fails them before any release renders.
    fn prepare_charts(&self, st: &mut HelmState) -> Result<()> {
        // `ResolveDeps` comes first: repository charts take their locked versions.
        super::lockfile::apply_locked_versions(st, &self.input.render.vfs).map_err(|e| {
            HelmfileError {
                message: format!("[{}]", e.message),
                ..e
            }
        })?;
        // Builds of earlier states are on disk when this state renders.
        st.built_charts = self.built_charts.borrow().clone();
        // `template` reports a bad selector as an error list, as its own selection
        // does ([`Self::template_selection`]); the other commands report it bare.
        let marks = self.mark(st).map_err(|e| match self.input.command {
            Command::Template { .. } => HelmfileError {
                message: format!("[{}]", e.message),
                ..e
            },
            _ => e,
        })?;
        let chosen: Vec<usize> = marks
            .iter()
            .enumerate()
            .filter(|(i, m)| **m && st.spec.releases[*i].desired())
            .map(|(i, _)| i)
            .collect();
        for &i in &chosen {
            let r = &st.spec.releases[i];
            if super::charts::is_oci_chart(&r.chart, &st.spec.repositories)
                && (r.version.is_empty() || r.version == "latest")
            {
                return Err(HelmfileError::new(
                    ErrorKind::Chart,
                    format!(
                        "[release {:?}: the version for OCI charts should be semver compliant, the latest tag is not supported anymore for helm >= 3.8.0]",
                        r.name
                    ),
                )
                .at_release(r));
            }
        }
        if matches!(self.input.command, Command::List { .. }) {
            return Ok(());
        }
        let mut built = Vec::new();
        for &i in &chosen {
            let r = &st.spec.releases[i];
            if self.input.skip_deps || r.skip_deps.unwrap_or(st.spec.helm_defaults.skip_deps) {
                continue;
            }
            let Ok(resolved) = self.input.chart_sources.resolve(
                &self.input.render.vfs,
                &r.name,
                &r.chart,
                &st.cwd,
                &r.version,
            ) else {
                // An unresolvable chart is reported when the release renders.
                continue;
            };
            let Some(shown) = super::output::dependency_build(self.input, st, r, &resolved) else {
                continue;
            };
            super::depbuild::build(&resolved.dir, &shown, &self.input.render.vfs).map_err(|e| {
                HelmfileError::new(
                    ErrorKind::Chart,
                    format!("[building dependencies of local chart: {e}]"),
                )
                .with_file(resolved.dir.clone())
            })?;
            built.push((resolved.dir, shown));
        }
        for (dir, shown) in built {
            self.built_charts
                .borrow_mut()
                .insert(dir.clone(), shown.clone());
            st.built_charts.insert(dir, shown);
        }
        Ok(())
    }

    fn filter_by_selectors(&self, st: &mut HelmState) -> Result<Vec<usize>> {
        if st.selectors.is_empty() {
            return Ok((0..st.spec.releases.len()).collect());
        }
        let marks = self.mark(st)?;
        Ok(marks
            .iter()
            .enumerate()
            .filter(|(_, m)| **m)
            .map(|(i, _)| i)
            .collect())
    }

    fn check_duplicates(st: &HelmState, idx: &[usize]) -> Result<()> {
        let mut counts: BTreeMap<(String, String, String), usize> = BTreeMap::new();
        for &i in idx {
            let r = &st.spec.releases[i];
            *counts
                .entry((r.namespace.clone(), r.name.clone(), r.kube_context.clone()))
                .or_default() += 1;
        }
        for ((ns, name, ctx), c) in counts {
            if c > 1 {
                let mut msg = String::new();
                if !ns.is_empty() {
                    msg.push_str(&format!(" in namespace {ns:?}"));
                }
                if !ctx.is_empty() {
                    msg.push_str(&format!(" in kubecontext {ctx:?}"));
                }
                return Err(HelmfileError::other(format!(
                    "duplicate release {name:?} found{msg}: there were {c} releases named \"{name}\" matching specified selector"
                )));
            }
        }
        Ok(())
    }

    fn converge_list(&mut self, st: &mut HelmState, index: usize) -> Result<bool> {
        let idx = self.filter_by_selectors(st)?;
        Self::check_duplicates(st, &idx)?;
        for &i in &idx {
            let r = &st.spec.releases[i];
            let mut labels = r.labels_or_empty();
            for (k, v) in &st.spec.common_labels {
                labels.insert(k.clone(), v.clone());
            }
            // `list` evaluates the condition itself and returns its error bare.
            let enabled =
                condition_enabled(r, &st.rendered_values).map_err(HelmfileError::other)?;
            self.listed.push(ListedRelease {
                name: r.name.clone(),
                namespace: r.namespace.clone(),
                enabled,
                installed: r.desired(),
                labels: format_labels(&labels),
                chart: r.chart.clone(),
                version: r.version.clone(),
            });
            let rr = &mut self.out.states[index].releases[i];
            rr.selected = true;
            rr.enabled = enabled;
            rr.labels = labels;
        }
        Ok(!idx.is_empty())
    }

    fn selected_releases(&self, st: &mut HelmState) -> Result<Vec<usize>> {
        let idx = marked(&self.mark(st)?);
        Self::check_duplicates(st, &idx)?;
        Ok(idx)
    }

    /// `template`'s selection (`getSelectedReleases`): a bad selector is reported
    /// as Helmfile's error list (`[...]`), and a duplicate by release ID, at the
    /// second release with that ID.
    fn template_selection(&self, st: &mut HelmState) -> Result<Vec<usize>> {
        let marks = self.mark(st).map_err(|e| HelmfileError {
            message: format!("[{}]", e.message),
            ..e
        })?;
        let idx = marked(&marks);
        let mut seen = std::collections::BTreeSet::new();
        for &i in &idx {
            let r = &st.spec.releases[i];
            let id = release_id(&r.kube_context, &r.namespace, &r.name);
            if !seen.insert(id.clone()) {
                return Err(HelmfileError::other(format!(
                    "found 2 duplicate releases with ID {id:?}"
                )));
            }
        }
        Ok(idx)
    }

    /// A release's values files and, with `with_set`, its `--set` arguments, then
    /// the `--values` files of the command line. Returns every error Helmfile
    /// collects for the release: its own values, then each missing `--values` file.
    /// (`write-values` makes no `--set` arguments, so their errors, such as an
    /// `env:` entry naming an unset variable, are `template`'s only.)
    fn record_values(
        &mut self,
        st: &HelmState,
        index: usize,
        i: usize,
        with_set: bool,
    ) -> std::result::Result<(), ReleaseErrors> {
        let ld = self.loader();
        let r = &st.spec.releases[i];
        let own = generate_values_files(&ld, st, r)
            .and_then(|files| {
                let set = if with_set {
                    set_flags(&ld, st, r)?
                } else {
                    Vec::new()
                };
                Ok((files, set))
            })
            .map_err(|e| e.at_release(r));
        let mut errs = Vec::new();
        let mut extra = Vec::new();
        for v in &self.input.additional_values {
            // Helmfile makes the path absolute against the directory it is in for
            // this state and checks it exists; helm reads it later.
            let abs = paths::resolve(&st.cwd, v);
            let shown = abs.display().to_string();
            match self.input.render.vfs.read_to_string(&abs) {
                Ok(content) => extra.push(ValuesFile {
                    origin: v.clone(),
                    path: Some(shown),
                    content,
                }),
                Err(_) if !self.input.render.vfs.exists(&abs) => errs.push(HelmfileError::new(
                    ErrorKind::File,
                    format!("stat {shown}: no such file or directory"),
                )),
                Err(e) => errs.push(HelmfileError::new(
                    ErrorKind::File,
                    format!("reading {shown}: {e}"),
                )),
            }
        }
        let (files, set) = match own {
            Ok(ok) => ok,
            Err(e) => {
                return Err(ReleaseErrors {
                    first: e,
                    more: errs,
                })
            }
        };
        if !errs.is_empty() {
            let first = errs.remove(0);
            return Err(ReleaseErrors { first, more: errs });
        }
        let rr = &mut self.out.states[index].releases[i];
        rr.values_files = files;
        rr.values_files.extend(extra);
        rr.set = set;
        Ok(())
    }

    fn converge_write_values(
        &mut self,
        st: &mut HelmState,
        index: usize,
        template: Option<&str>,
    ) -> Result<bool> {
        // `processFilteredReleases`: with selectors the state is filtered first;
        // either way the state counts as processed when releases remain.
        let pre = self.filter_by_selectors(st)?;
        Self::check_duplicates(st, &pre)?;
        let idx = self.selected_releases(st)?;
        if idx.is_empty() {
            return Ok(!pre.is_empty());
        }
        for &i in &idx {
            self.out.states[index].releases[i].selected = true;
            if !st.spec.releases[i].desired() {
                continue;
            }
            // `write-values` stops at a release's first error.
            self.record_values(st, index, i, false)
                .map_err(|e| e.first)?;
            let merged = merge_values_files_go(&self.out.states[index].releases[i].values_files)?;
            let merged = GoValue::Map(merged);
            let content = super::seams::encode_go_yaml(&merged)
                .map_err(|e| HelmfileError::new(ErrorKind::Yaml, e.0))?;
            let path = super::output::output_file_path(
                &self.input.render.vfs,
                st,
                &st.spec.releases[i],
                template,
            )?;
            let abs = paths::resolve(&st.cwd, &path);
            // Helmfile writes the file at the path as given: one ending in `/` (an
            // empty last template part) or naming a directory fails the release.
            if path.ends_with('/') || self.input.render.vfs.is_dir(&abs) {
                return Err(HelmfileError::new(
                    ErrorKind::File,
                    format!("writing values file {path}: open {path}: is a directory"),
                ));
            }
            let rr = &mut self.out.states[index].releases[i];
            rr.merged_values = Some(go_to_value_plain_keys(merged));
            self.out.written.push(WrittenFile {
                abs,
                path,
                content,
                release: (index, i),
            });
        }
        Ok(!pre.is_empty())
    }

    fn plan_nodes(st: &HelmState) -> Vec<dag::Node> {
        st.spec
            .releases
            .iter()
            .map(|r| dag::Node {
                id: release_id(&r.kube_context, &r.namespace, &r.name),
                needs: r.needs.clone(),
            })
            .collect()
    }

    fn converge_template<'s>(
        &mut self,
        scope: &rayon::Scope<'s>,
        mut st: HelmState,
        index: usize,
        render: bool,
    ) -> Result<bool>
    where
        'a: 's,
    {
        let idx = self.template_selection(&mut st)?;
        if idx.is_empty() {
            return Ok(false);
        }
        let include_needs = self.input.include_needs || self.input.include_transitive_needs;
        let opts = PlanOptions {
            include_needs,
            skip_needs: !include_needs && self.input.skip_needs,
        };
        let nodes = Self::plan_nodes(&st);
        let ids =
            |ix: &[usize]| -> Vec<String> { ix.iter().map(|&i| nodes[i].id.clone()).collect() };
        let needs_err = |e: dag::PlanError| {
            let about = e.release().to_string();
            let err = HelmfileError::new(ErrorKind::Needs, e.to_string());
            match nodes.iter().position(|n| n.id == about) {
                Some(i) => err.at_release(&st.spec.releases[i]),
                None => err,
            }
        };
        let first = dag::plan(&nodes, &ids(&idx), opts).map_err(needs_err)?;
        let to_render: Vec<usize> = first
            .iter()
            .flatten()
            .copied()
            .filter(|&i| st.spec.releases[i].desired())
            .collect();
        for &i in &idx {
            self.out.states[index].releases[i].selected = true;
        }
        if to_render.is_empty() {
            return Ok(true);
        }
        let second = dag::plan(&nodes, &ids(&to_render), opts).map_err(needs_err)?;
        // A need pulled in by --include-needs is still skipped when `installed:
        // false` (Helmfile's `TemplateReleases` renders desired releases only).
        let order: Vec<usize> = second
            .into_iter()
            .flatten()
            .filter(|&i| st.spec.releases[i].desired())
            .collect();
        if render {
            for &i in &order {
                let r = &st.spec.releases[i];
                if let Some((field, why)) =
                    super::output::unapplied_feature(&st, r, self.input.render.allow_exec)
                {
                    return Err(HelmfileError::new(
                        ErrorKind::Other,
                        format!(
                            "release {:?}: {field} is set, which stackproof cannot apply natively ({why}); refusing to print manifests that would differ",
                            r.name
                        ),
                    )
                    .at_release(r));
                }
            }
        }
        // `TemplateReleases`: every release's flags are prepared, errors collected;
        // helm runs only while no error has happened yet. Flags are prepared in
        // order first; the charts of releases helm could reach then render on the
        // thread pool (rendering only reads the stack), and the results are taken
        // in order with the same stop-at-first-error rule.
        let prepared: Vec<std::result::Result<(), ReleaseErrors>> = order
            .iter()
            .map(|&i| {
                let values = self.record_values(&st, index, i, true);
                let dir = render
                    .then(|| {
                        super::output::output_dir(
                            &self.input.render.vfs,
                            &st,
                            &st.spec.releases[i],
                            &self.input.helm_template,
                        )
                    })
                    .flatten();
                // The output directory's errors come after the values' (a failed
                // template stops helm from running like any other).
                match (values, dir) {
                    (values, None | Some(Ok(_))) => values,
                    (Ok(()), Some(Err(mut errs))) => {
                        let first = errs.remove(0);
                        Err(ReleaseErrors { first, more: errs })
                    }
                    (Err(mut e), Some(Err(errs))) => {
                        e.more.extend(errs);
                        Err(e)
                    }
                }
            })
            .collect();
        let reachable = if render {
            prepared.iter().take_while(|p| p.is_ok()).count()
        } else {
            0
        };
        let rendered: Slots = Arc::new(Rendered::new(reachable));
        let pending = Pending {
            index,
            order,
            prepared,
            render,
            rendered: Arc::clone(&rendered),
            states_len: self.out.states.len(),
            warnings_len: self.warnings.borrow().len(),
            ctx: self.ctx.clone(),
        };
        let input: &'a StackInput = self.input;
        let st = Arc::new(st);
        let releases = Arc::new(self.out.states[index].releases.clone());
        // Every release of the state holds its chart before the first one renders.
        let charts: Vec<Resolved> = pending.order[..reachable]
            .iter()
            .map(|&i| self.resolve_and_lease(&st, i))
            .collect();
        let work = pending.order[..reachable]
            .iter()
            .copied()
            .zip(charts)
            .enumerate();
        if self.input.render.allow_exec {
            // A later state may run programs, which must not happen when an earlier
            // state fails: this state is finished before the next one loads.
            let (st, releases) = (&*st, &*releases);
            work.par_bridge().for_each(|(k, (i, (chart, lease)))| {
                rendered.render(k, || template_release(input, st, i, &releases[i], chart));
                drop(lease);
            });
            self.apply(pending)?;
        } else {
            // The pool takes spawned work first in, first out, so a state's
            // releases start in order and before any later state's.
            for (k, (i, (chart, lease))) in work {
                let (st, releases, rendered) = (
                    Arc::clone(&st),
                    Arc::clone(&releases),
                    Arc::clone(&rendered),
                );
                scope.spawn(move |_| {
                    rendered.render(k, || template_release(input, &st, i, &releases[i], chart));
                    drop(lease);
                });
            }
            self.pending.push(pending);
        }
        Ok(true)
    }

    /// The chart release `i` of `st` renders, resolved once here (it reads the
    /// chart's `Chart.yaml`), and a lease on it when it resolves.
    fn resolve_and_lease(&self, st: &HelmState, i: usize) -> Resolved {
        let chart = resolve_chart(self.input, st, i);
        let lease = chart.as_ref().ok().map(|c| self.leases.take(c.dir.clone()));
        (chart, lease)
    }

    /// Adds one state's `template` results to the output, in release order, and
    /// returns its error the way the one-by-one run would have: a failure also
    /// drops the states and warnings added after it.
    fn apply(&mut self, p: Pending) -> Result<()> {
        let Pending {
            index,
            order,
            prepared,
            render,
            rendered,
            states_len,
            warnings_len,
            ctx: _,
        } = p;
        let mut errs: Vec<HelmfileError> = Vec::new();
        for (k, (&i, prep)) in order.iter().zip(prepared).enumerate() {
            if let Err(e) = prep {
                errs.push(e.first);
                errs.extend(e.more);
                continue;
            }
            let pos = self.out.order.len();
            self.out.order.push((index, i));
            self.out.states[index].releases[i].order = Some(pos);
            if render && errs.is_empty() {
                let Some(t) = rendered.take(k) else {
                    continue;
                };
                let out = &mut self.out;
                if let Some(n) = t.note {
                    out.notes.push(n);
                }
                out.states[index].releases[i].chart_source = t.chart_source;
                if let Some(files) = t.files {
                    // Helmfile logs what helm printed instead of printing it.
                    if !files.log.is_empty() {
                        out.log.push_str(&files.log);
                        out.log.push('\n');
                    }
                    out.manifest_files.push(files);
                }
                match t.stdout {
                    Ok(stdout) => {
                        if !stdout.is_empty() {
                            self.printed.push(stdout.clone());
                        }
                        out.states[index].releases[i].manifests = Some(stdout);
                    }
                    Err(e) => errs.push(e),
                }
                errs.extend(t.more_errors);
            }
        }
        match join_errors(errs) {
            Some(e) => {
                self.out.states.truncate(states_len);
                self.warnings.borrow_mut().truncate(warnings_len);
                Err(e)
            }
            None => Ok(()),
        }
    }
}
