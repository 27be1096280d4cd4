//! Loading one state file the way helmfile 0.166 (v0 mode) does
//! (`pkg/app/desired_state_file_loader.go`, `two_pass_renderer.go`,
//! `pkg/state/create.go`, `envvals_loader.go`, `storage.go`).
//!
//! A state file is split into parts on `\n---\n`. Each part is a Go template rendered
//! twice: a first pass (`missingkey=zero`, side-effecting functions disabled, an
//! empty `.Values`) whose output is parsed leniently only to discover the part's
//! `environments:`, then the final pass with the environment that discovery produced
//! (inherited values from earlier parts, then this part's environment values, then
//! the command line's overrides). The rendered part is decoded strictly and merged
//! over the earlier parts (scalars and maps override, lists — `releases:` included —
//! replace). `bases:` are loaded as separate files and merged under the state
//! (lists appended, existing entries kept). Paths are Go path strings relative to the
//! directory Helmfile would have changed into; see [`super::paths`].

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::env::{Environment, TemplateData};
use super::error::{ErrorKind, HelmfileError, RenderedContext, Result};
use super::gomerge::merge_override;
use super::paths;
use super::seams;
use super::spec::{self, HelmSpec, ReleaseSetSpec, ReleaseSpec, SubHelmfileSpec};
use super::tmpl::{Context, RenderEnv};
use crate::funcs::codec::yaml::TypedKeyValues;
use crate::template::{Map, Value};

/// One rendered part of a state file, kept for reports.
#[derive(Clone, Debug)]
pub struct RenderedPart {
    /// `<file>.part.<n>`.
    pub id: String,
    pub source: String,
    pub rendered: String,
}

/// A loaded state (`state.HelmState`).
#[derive(Clone)]
pub struct HelmState {
    pub spec: ReleaseSetSpec,
    /// Helmfile's `FilePath` (as loaded: usually the file's base name).
    pub file_path: String,
    /// Helmfile's `basePath` (usually `"."`).
    pub base_path: String,
    /// The directory Helmfile's process is in while handling this state.
    pub cwd: PathBuf,
    pub env: Environment,
    /// `.Values` of the state (`RenderedValues`).
    pub rendered_values: Map,
    /// The releases as loaded, before release templating (`OrginReleases`).
    pub orig_releases: Vec<ReleaseSpec>,
    pub selectors: Vec<String>,
    pub parts: Vec<RenderedPart>,
    /// Local chart directories whose dependencies the run has built by the time
    /// this state renders (this state's own builds included), with the chart path
    /// helm was given. Helmfile's build rewrites `charts/` on disk, so a release
    /// that skips deps still renders the rebuilt dependencies when another release
    /// built the same chart first.
    pub built_charts: BTreeMap<PathBuf, String>,
}

impl std::fmt::Debug for HelmState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HelmState")
            .field("file_path", &self.file_path)
            .field("cwd", &self.cwd)
            .field("releases", &self.spec.releases.len())
            .finish()
    }
}

impl HelmState {
    pub(crate) fn empty(file: &str, base_path: &str, cwd: &Path) -> HelmState {
        HelmState {
            spec: ReleaseSetSpec::default(),
            file_path: file.to_string(),
            base_path: base_path.to_string(),
            cwd: cwd.to_path_buf(),
            env: Environment::default(),
            rendered_values: Map::new(),
            orig_releases: Vec::new(),
            selectors: Vec::new(),
            parts: Vec::new(),
            built_charts: BTreeMap::new(),
        }
    }

    /// Resolves a path the way the state's `Storage` does (relative to `basePath`).
    pub fn storage_path(&self, p: &str) -> String {
        normalize_storage_path(&self.base_path, p)
    }
}

/// `Storage.normalizePath`: URLs and absolute paths unchanged, others joined to base.
pub fn normalize_storage_path(base_path: &str, p: &str) -> String {
    if paths::is_abs(p) || has_url_scheme(p) {
        p.to_string()
    } else {
        paths::join(&[base_path, p])
    }
}

fn has_url_scheme(p: &str) -> bool {
    match p.find(':') {
        Some(i) if i > 0 => {
            let scheme = &p[..i];
            scheme
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic())
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        }
        _ => false,
    }
}

/// Options of one `Load` call.
#[derive(Clone, Debug, Default)]
pub struct LoadOpts {
    /// `helmfiles[].values` or the command line's state values (files and maps).
    pub override_values: Vec<Value>,
    /// The file whose directory `override_values` paths are relative to (Go path).
    pub callee_path: String,
    /// The cwd `callee_path` is seen from.
    pub callee_cwd: PathBuf,
    pub selectors: Vec<String>,
}

/// The loader: the chosen environment, the `--namespace` and `--kube-context`
/// overrides and the services.
pub struct Loader<'a> {
    pub renv: &'a RenderEnv,
    pub env_name: String,
    pub namespace: String,
    pub kube_context: String,
    /// Lines Helmfile prints to stderr (warnings).
    pub warnings: &'a RefCell<Vec<String>>,
}

fn missing_handler_id(h: Option<&str>) -> &str {
    h.unwrap_or("Error")
}

impl Loader<'_> {
    pub(super) fn warn(&self, msg: String) {
        self.warnings.borrow_mut().push(msg);
    }

    /// `Storage.resolveFile`: the files a (glob) path names, or the missing-file
    /// handler's verdict. `Ok(None)` means "skipped".
    pub fn resolve_file(
        &self,
        handler: Option<&str>,
        tpe: &str,
        path: &str,
        base_path: &str,
        state_file: &str,
        cwd: &Path,
    ) -> Result<Option<Vec<String>>> {
        if paths::is_remote(path) {
            // Helmfile downloads it (go-getter) and fails when it cannot, whatever
            // the missing-file handler says; stackproof reads nothing over the
            // network, and skipping it would render different values as if whole.
            return Err(HelmfileError::new(
                ErrorKind::File,
                format!(
                    "{path:?} is a remote {tpe} file, which stackproof does not download: use a local copy of it instead"
                ),
            ));
        }
        let pattern = normalize_storage_path(base_path, path);
        let mut files = paths::glob(&self.renv.vfs, cwd, &pattern);
        files.sort();
        if !files.is_empty() {
            return Ok(Some(files));
        }
        let title = format!("{tpe} file");
        match missing_handler_id(handler) {
            // Located later at the entry that names the file, not at the missing path.
            "Error" => Err(HelmfileError::new(
                ErrorKind::File,
                format!("{title} matching \"{path}\" does not exist in \"{base_path}\""),
            )),
            "Warn" | "Info" => {
                self.warn(format!("skipping missing {title} matching \"{path}\""));
                Ok(None)
            }
            "Debug" => Ok(None),
            other => Err(HelmfileError::other(format!(
                "invalid missing file handler \"{other}\" while processing \"{path}\" in \"{state_file}\": it must be one of [Error Warn Info Debug]"
            ))),
        }
    }

    /// `desiredStateLoader.Load`.
    pub fn load(&self, file: &str, cwd: &Path, opts: &LoadOpts) -> Result<HelmState> {
        let overrode = if opts.override_values.is_empty() {
            None
        } else {
            let base = paths::dir(&opts.callee_path);
            let ctx = Environment::new(&self.env_name);
            let values = self.load_values_entries(
                Some("Error"),
                &opts.override_values,
                Some(&ctx),
                &base,
                &opts.callee_path,
                &opts.callee_cwd,
            )?;
            Some(Environment {
                name: self.env_name.clone(),
                values,
                ..Default::default()
            })
        };
        let mut st = self.load_file_with_overrides(
            None,
            overrode.as_ref(),
            &paths::dir(file),
            &paths::base(file),
            true,
            cwd,
        )?;
        if !self.kube_context.is_empty() {
            if !st.spec.override_kube_context.is_empty() {
                return Err(HelmfileError::other(
                    "err: Cannot use option --kube-context and set attribute kubeContext.",
                ));
            }
            st.spec.override_kube_context = self.kube_context.clone();
            // Also the default of releases without their own, so release templates
            // rendered before the override is applied already see it.
            st.spec.helm_defaults.kube_context = self.kube_context.clone();
        }
        if !self.namespace.is_empty() {
            if !st.spec.override_namespace.is_empty() {
                return Err(HelmfileError::other(
                    "err: Cannot use option --namespace and set attribute namespace.",
                ));
            }
            st.spec.override_namespace = self.namespace.clone();
        }
        st.selectors = opts.selectors.clone();
        Ok(st)
    }

    fn load_file_with_overrides(
        &self,
        inherited: Option<&Environment>,
        overrode: Option<&Environment>,
        base_dir: &str,
        file: &str,
        evaluate_bases: bool,
        cwd: &Path,
    ) -> Result<HelmState> {
        let f = if paths::is_abs(file) {
            file.to_string()
        } else {
            paths::join(&[base_dir, file])
        };
        let abs = paths::resolve(cwd, &f);
        // Helmfile reads the path as joined, relative to the state's directory.
        let content = self.renv.vfs.read_to_string(&abs).map_err(|e| {
            HelmfileError::new(ErrorKind::File, e.with_path(&f).to_string()).with_file(abs.clone())
        })?;
        let st = self.load_content(
            inherited,
            overrode,
            base_dir,
            &f,
            &content,
            evaluate_bases,
            cwd,
        )?;
        for (i, h) in st.spec.helmfiles.iter().enumerate() {
            if h.path == f {
                return Err(HelmfileError::other(format!(
                    "{f} contains a recursion into the same sub-helmfile at helmfiles[{i}]"
                )));
            }
            if h.path == "." {
                return Err(HelmfileError::other(format!(
                    "{f} contains a recursion into the the directory containing this helmfile at helmfiles[{i}]"
                )));
            }
        }
        Ok(st)
    }

    #[allow(clippy::too_many_arguments)]
    fn load_content(
        &self,
        inherited: Option<&Environment>,
        overrode: Option<&Environment>,
        base_dir: &str,
        filename: &str,
        content: &str,
        evaluate_bases: bool,
        cwd: &Path,
    ) -> Result<HelmState> {
        let content = content.replace("\r\n", "\n");
        self.policy_check(filename, &content)?;
        let has_env = inherited.is_some() || overrode.is_some();
        let mut env: Option<Environment> = inherited.cloned();
        let mut final_state: Option<HelmState> = None;
        let mut parts = Vec::new();
        let abs = paths::resolve(cwd, filename);
        // Line in the file where the current part starts, minus one.
        let mut offset = 0;
        for (i, part) in content.split("\n---\n").enumerate() {
            let id = format!("{filename}.part.{i}");
            let part_offset = offset;
            offset += part.matches('\n').count() + 2;
            let rendered = if env.is_none() && overrode.is_none() {
                let e = Environment::new(&self.env_name);
                self.two_pass(Some(&e), None, base_dir, &id, part, cwd)
            } else {
                self.two_pass(env.as_ref(), overrode, base_dir, &id, part, cwd)
            }
            .map_err(|e| {
                let line = e
                    .template
                    .as_ref()
                    .filter(|t| e.file.is_none() && t.template == "stringTemplate")
                    .and_then(|t| t.line);
                let e = match line {
                    Some(l) => e.at(abs.clone(), part_offset + l),
                    None => e,
                };
                e.wrap(format!("error during {id} parsing"))
            })?;
            parts.push(RenderedPart {
                id: id.clone(),
                source: part.to_string(),
                rendered: rendered.clone(),
            });
            let current = self
                .raw_load(
                    &rendered,
                    base_dir,
                    filename,
                    evaluate_bases,
                    env.as_ref(),
                    overrode,
                    cwd,
                )
                .map_err(|e| {
                    let at = (abs.as_path(), id.as_str(), part_offset);
                    let e = attach_rendered(e, at, part, &rendered);
                    locate_by_quoted_name(e, &abs, &content)
                })?;
            let mut current = current;
            let mut tracer = LineTracer::new(part, &rendered);
            for r in current
                .spec
                .releases
                .iter_mut()
                .chain(current.spec.templates.values_mut())
            {
                if r.origin.is_none() && r.line > 0 {
                    let l = tracer.trace(r.line).unwrap_or(r.line);
                    r.origin = Some((abs.clone(), part_offset + l));
                }
            }
            let fs = match final_state.as_mut() {
                None => final_state.insert(current),
                Some(fs) => {
                    merge_spec_override(&mut fs.spec, &current.spec);
                    fs.env.merge_from(&current.env);
                    fs.rendered_values = current.rendered_values.clone();
                    fs
                }
            };
            env = Some(fs.env.clone());
            let env_name = fs.env.name.clone();
            if !fs.spec.environments.is_empty()
                && evaluate_bases
                && env_name != "default"
                && !fs.spec.environments.contains_key(&env_name)
            {
                return Err(undefined_env(&fs.file_path, &env_name));
            }
        }
        let mut st = final_state.unwrap_or_else(|| HelmState::empty(filename, base_dir, cwd));
        let env_name = env.map(|e| e.name).unwrap_or_default();
        if st.spec.environments.is_empty() && evaluate_bases && !has_env && env_name != "default" {
            return Err(undefined_env(&st.file_path, &env_name));
        }
        st.orig_releases = st.spec.releases.clone();
        st.parts = parts;
        Ok(st)
    }

    /// `policy.Checker`: warnings in v0 mode, except a file with no top-level keys.
    fn policy_check(&self, filename: &str, content: &str) -> Result<()> {
        let top_key = |line: &str| -> Option<String> {
            let i = line.find(':')?;
            let k = &line[..i];
            (!k.is_empty() && k.chars().all(|c| c.is_ascii_alphabetic())).then(|| k.to_string())
        };
        let is_sep = |line: &str| line.starts_with("---") && line[3..].chars().all(|c| c == ' ');
        let keys: Vec<String> = content.split('\n').filter_map(top_key).collect();
        if keys.is_empty() {
            return Err(HelmfileError::other(format!(
                "no top-level config keys are found in {filename}"
            )));
        }
        let priority = |k: &str| match k {
            "bases" | "environments" => Some(0),
            "releases" => Some(1),
            _ => None,
        };
        let ordered: Vec<&String> = keys.iter().filter(|k| priority(k).is_some()).collect();
        for w in ordered.windows(2) {
            if priority(w[0]) > priority(w[1]) {
                self.warn(format!(
                    "WARNING: top-level config key {} must be defined before {} in {filename}",
                    w[1], w[0]
                ));
                break;
            }
        }
        let mut seq: Vec<String> = Vec::new();
        for line in content.split('\n') {
            let k = if is_sep(line) {
                Some("---".to_string())
            } else {
                top_key(line).filter(|k| k == "environments" || k == "releases")
            };
            if let Some(k) = k {
                if k == "---" || !seq.contains(&k) {
                    seq.push(k);
                }
            }
        }
        if seq.len() >= 2 && seq.windows(2).any(|w| w[0] != "---" && w[1] != "---") {
            self.warn("WARNING: environments and releases cannot be defined within the same YAML part. Use --- to extract the environments into a dedicated part".to_string());
        }
        Ok(())
    }

    /// `twoPassRenderTemplateToYaml` (v0 mode).
    fn two_pass(
        &self,
        inherited: Option<&Environment>,
        overrode: Option<&Environment>,
        base_dir: &str,
        id: &str,
        content: &str,
        cwd: &Path,
    ) -> Result<String> {
        // Helmfile copies `inherited` and then copies that copy, and copies the
        // merged environment again before the overrides. Those second copies are
        // of environments this function made and nobody else sees, so they are
        // skipped: the first copy is used as is, and the overrides are merged
        // into the merged environment in place (`Environment::merge_owned`).
        let first = Environment::merge(inherited, None);
        let rendered_env = self.render_prestate(first, overrode, base_dir, id, content, cwd);
        let merged = Environment::merge(inherited, rendered_env.as_ref());
        let final_env = Environment::merge_owned(merged, overrode)
            .unwrap_or_else(|| Environment::new(&self.env_name));
        let vals = final_env.merged_values();
        let data = TemplateData::for_state(final_env, &self.namespace, vals).into_value();
        Context::new(self.renv, base_dir, cwd, false)
            .labeled(format!("state {id}"))
            .render(content, &data)
            .map_err(|f| template_error(*f.error))
    }

    fn render_prestate(
        &self,
        first: Option<Environment>,
        overrode: Option<&Environment>,
        base_dir: &str,
        id: &str,
        content: &str,
        cwd: &Path,
    ) -> Option<Environment> {
        let init = Environment::merge(first.as_ref(), overrode)?;
        let data = TemplateData::for_state(init, &self.namespace, Map::new()).into_value();
        let out = match Context::new(self.renv, base_dir, cwd, true)
            .labeled(format!("state {id}"))
            .render(content, &data)
        {
            Ok(s) => s,
            Err(f) => match f.partial {
                Some(p) => p,
                None => return first,
            },
        };
        let sanitized = out.replace("<no value>", "");
        match self.parse_and_load(
            &sanitized,
            base_dir,
            id,
            true,
            false,
            first.as_ref(),
            overrode,
            false,
            cwd,
        ) {
            Ok(st) => Some(st.env),
            Err(_) => first,
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn raw_load(
        &self,
        content: &str,
        base_dir: &str,
        file: &str,
        evaluate_bases: bool,
        env: Option<&Environment>,
        overrode: Option<&Environment>,
        cwd: &Path,
    ) -> Result<HelmState> {
        let merged = Environment::merge(env, overrode);
        let mut st = self.parse_and_load(
            content,
            base_dir,
            file,
            false,
            evaluate_bases,
            merged.as_ref(),
            None,
            true,
            cwd,
        )?;
        st.spec.helmfiles = self.expanded_helmfiles(&st)?;
        Ok(st)
    }

    fn expanded_helmfiles(&self, st: &HelmState) -> Result<Vec<SubHelmfileSpec>> {
        let mut out = Vec::new();
        for h in &st.spec.helmfiles {
            spec::check_sub_helmfile(h).map_err(HelmfileError::other)?;
            // A remote state (go-getter) is fetched when visited, not globbed.
            if paths::is_remote(&h.path) {
                out.push(h.clone());
                continue;
            }
            let pattern = st.storage_path(&h.path);
            let mut matches = paths::glob(&self.renv.vfs, &st.cwd, &pattern);
            matches.sort();
            if matches.is_empty() {
                let msg = format!("no matches for path: {}", h.path);
                if st.spec.missing_file_handler == "Error" {
                    return Err(HelmfileError::new(ErrorKind::File, msg));
                }
                self.warn(msg);
                continue;
            }
            for m in matches {
                let mut n = h.clone();
                n.path = m;
                out.push(n);
            }
        }
        Ok(out)
    }

    /// `StateCreator.Parse`: every YAML document of the rendered part, merged.
    fn parse(
        &self,
        content: &str,
        base_dir: &str,
        file: &str,
        strict: bool,
        cwd: &Path,
    ) -> Result<HelmState> {
        let mut st = HelmState::empty(file, base_dir, cwd);
        let docs = seams::parse_state_documents(content, strict).map_err(|(i, e)| {
            HelmfileError::new(
                ErrorKind::Yaml,
                format!("failed to read {file}: reading document at index {i}: {e}"),
            )
        })?;
        for (i, doc) in docs.iter().enumerate() {
            let spec = if strict {
                spec::decode_state(doc).map_err(|e| {
                    HelmfileError::new(
                        ErrorKind::Yaml,
                        format!(
                            "failed to read {file}: reading document at index {}: {}",
                            i + 1,
                            e.message()
                        ),
                    )
                })?
            } else {
                spec::decode_state_lenient(doc)
            };
            merge_spec_append(&mut st.spec, &spec);
        }
        if !st.spec.deprecated_releases.is_empty() {
            if !st.spec.releases.is_empty() {
                return Err(HelmfileError::other(format!(
                    "failed to parse {file}: you can't specify both `charts` and `releases` sections"
                )));
            }
            st.spec.releases = std::mem::take(&mut st.spec.deprecated_releases);
        }
        if !st.spec.deprecated_context.is_empty() && st.spec.helm_defaults.kube_context.is_empty() {
            st.spec.helm_defaults.kube_context = st.spec.deprecated_context.clone();
        }
        Ok(st)
    }

    /// `StateCreator.ParseAndLoad`.
    #[allow(clippy::too_many_arguments)]
    fn parse_and_load(
        &self,
        content: &str,
        base_dir: &str,
        file: &str,
        fail_on_missing_env: bool,
        evaluate_bases: bool,
        env_values: Option<&Environment>,
        overrode: Option<&Environment>,
        strict: bool,
        cwd: &Path,
    ) -> Result<HelmState> {
        let mut st = self.parse(content, base_dir, file, strict, cwd)?;
        if !evaluate_bases {
            if !st.spec.bases.is_empty() {
                return Err(HelmfileError::other(
                    "nested `base` helmfile is unsupported. please submit a feature request if you need this!",
                ));
            }
        } else {
            st = self.load_bases(env_values, overrode, st, base_dir, cwd)?;
        }
        self.load_env_values(&mut st, fail_on_missing_env, env_values, overrode)?;
        st.file_path = file.to_string();
        st.rendered_values = st.env.merged_values();
        Ok(st)
    }

    fn load_bases(
        &self,
        env_values: Option<&Environment>,
        overrode: Option<&Environment>,
        st: HelmState,
        base_dir: &str,
        cwd: &Path,
    ) -> Result<HelmState> {
        if st.spec.bases.is_empty() {
            return Ok(st);
        }
        let new_overrode = overrode.map(Environment::deep_copy);
        let mut layers = Vec::new();
        for b in &st.spec.bases {
            layers.push(self.load_file_with_overrides(
                env_values,
                new_overrode.as_ref(),
                base_dir,
                b,
                false,
                cwd,
            )?);
        }
        let mut iter = layers.into_iter();
        let mut first = match iter.next() {
            Some(f) => f,
            None => return Ok(st),
        };
        for layer in iter.chain(std::iter::once(st)) {
            merge_spec_append(&mut first.spec, &layer.spec);
            first.parts.extend(layer.parts);
        }
        Ok(first)
    }

    /// `StateCreator.LoadEnvValues`.
    fn load_env_values(
        &self,
        st: &mut HelmState,
        fail_on_missing_env: bool,
        ctx_env: Option<&Environment>,
        overrode: Option<&Environment>,
    ) -> Result<()> {
        let e = self
            .env_values_for(st, fail_on_missing_env, ctx_env, overrode)
            .map_err(|e| e.wrap(format!("failed to read {}", st.file_path)))?;
        let defaults = self.load_values_entries(
            None,
            &st.spec.default_values,
            ctx_env,
            &st.base_path,
            &st.file_path,
            &st.cwd,
        )?;
        merge_override(&e.defaults, &defaults);
        st.env = e;
        Ok(())
    }

    fn env_values_for(
        &self,
        st: &HelmState,
        fail_on_missing_env: bool,
        ctx_env: Option<&Environment>,
        overrode: Option<&Environment>,
    ) -> Result<Environment> {
        let name = &self.env_name;
        let spec = st.spec.environments.get(name);
        let mut values = Map::new();
        let mut kube_context = String::new();
        if let Some(spec) = spec {
            kube_context = spec.kube_context.clone();
            let mut entries: Vec<Value> = Vec::new();
            let mut secret_maps = Vec::new();
            // Helmfile finds every secrets file (a missing one fails here) before
            // it decrypts any.
            let mut secret_files = Vec::new();
            for s in &spec.secrets {
                let Some(files) = self.resolve_file(
                    spec.missing_file_handler.as_deref(),
                    "environment values",
                    s,
                    &st.base_path,
                    &st.file_path,
                    &st.cwd,
                )?
                else {
                    continue;
                };
                secret_files.extend(files);
            }
            for f in secret_files {
                if f.ends_with(".hcl") {
                    // Helmfile decrypts an HCL secrets file and evaluates it
                    // with the environment's HCL values files, first of them.
                    self.plain_hcl_secret(&f, &st.cwd)?;
                    let abs = paths::resolve(&st.cwd, &f);
                    entries.push(Value::String(abs.to_string_lossy().as_ref().into()));
                    continue;
                }
                secret_maps.push(self.plain_secret(&f, &st.cwd)?);
            }
            entries.extend(spec.values.iter().cloned());
            values = self.load_values_entries(
                spec.missing_file_handler.as_deref(),
                &entries,
                ctx_env,
                &st.base_path,
                &st.file_path,
                &st.cwd,
            )?;
            for m in secret_maps {
                merge_override(&values, &m);
            }
        } else if ctx_env.is_none()
            && overrode.is_none()
            && name != "default"
            && fail_on_missing_env
        {
            return Err(HelmfileError::new(
                ErrorKind::UndefinedEnvironment,
                format!("environment \"{name}\" is not defined"),
            ));
        }
        let mut new_env = Environment {
            name: name.clone(),
            kube_context,
            values,
            defaults: Map::new(),
        };
        if let Some(ctx) = ctx_env {
            // A struct copy: the maps are shared with `ctx`, as in Go.
            let mut c = ctx.clone();
            c.merge_from(&new_env);
            new_env = c;
        }
        if let Some(o) = overrode {
            let mut c = new_env.clone();
            c.merge_from(o);
            new_env = c;
        }
        Ok(new_env)
    }

    /// An HCL secrets file is usable offline only when sops did not encrypt it.
    fn plain_hcl_secret(&self, f: &str, cwd: &Path) -> Result<()> {
        let abs = paths::resolve(cwd, f);
        let text = self.renv.vfs.read_to_string(&abs).map_err(|e| {
            HelmfileError::new(ErrorKind::File, e.to_string()).with_file(abs.clone())
        })?;
        if text.contains("ENC[") || text.lines().any(|l| l.trim_start().starts_with("sops")) {
            return Err(HelmfileError::new(
                ErrorKind::Other,
                format!("secrets file \"{f}\" is encrypted: decrypting secrets (helm secrets / sops) is not available offline"),
            )
            .with_file(abs));
        }
        Ok(())
    }

    /// Environment secrets need `helm secrets` to decrypt; offline, only files that
    /// are not encrypted (no `sops:` metadata) can be used, as plain values.
    fn plain_secret(&self, f: &str, cwd: &Path) -> Result<Map> {
        let abs = paths::resolve(cwd, f);
        let text = self.renv.vfs.read_to_string(&abs).map_err(|e| {
            HelmfileError::new(ErrorKind::File, e.to_string()).with_file(abs.clone())
        })?;
        let v = seams::decode_values(&text).map_err(|e| {
            HelmfileError::new(
                ErrorKind::Yaml,
                format!("failed to load environment secrets file \"{f}\": {e}"),
            )
        })?;
        let m = v.as_map().cloned().unwrap_or_default();
        if m.contains_key("sops") {
            return Err(HelmfileError::new(
                ErrorKind::Other,
                format!("secrets file \"{f}\" is encrypted: decrypting secrets (helm secrets / sops) is not available offline"),
            ));
        }
        Ok(m)
    }

    /// `EnvironmentValuesLoader.LoadEnvironmentValues`: file entries (rendered when
    /// `.gotmpl`, with an empty `.Values`) and inline maps, merged in order.
    pub fn load_values_entries(
        &self,
        handler: Option<&str>,
        entries: &[Value],
        ctx_env: Option<&Environment>,
        base_path: &str,
        state_file: &str,
        cwd: &Path,
    ) -> Result<Map> {
        let result = Map::new();
        // Helmfile evaluates every `.hcl` file of the list together, after the
        // others, and merges that last (`hcllang`, see `super::hcl`).
        let mut hcl_files = Vec::new();
        for entry in entries {
            match entry {
                Value::String(p) => {
                    let Some(files) = self.resolve_file(
                        handler,
                        "environment values",
                        p,
                        base_path,
                        state_file,
                        cwd,
                    )?
                    else {
                        continue;
                    };
                    for f in files {
                        if f.ends_with(".hcl") {
                            let abs = paths::resolve(cwd, &f);
                            let text = self.renv.vfs.read_to_string(&abs).map_err(|e| {
                                HelmfileError::new(
                                    ErrorKind::File,
                                    format!("{}: {e}; could not read file", f),
                                )
                                .with_file(abs.clone())
                            })?;
                            hcl_files.push(super::hcl::HclFile { path: f, text });
                            continue;
                        }
                        let env = ctx_env
                            .cloned()
                            .unwrap_or_else(|| Environment::new(&self.env_name));
                        let data = TemplateData::for_state(env, "", Map::new()).into_value();
                        let bytes = self.render_values_file(&f, &data, cwd, "environment");
                        let bytes = bytes.map_err(|e| {
                            e.wrap(format!("failed to load environment values file \"{f}\""))
                        })?;
                        let v = seams::decode_values(&bytes).map_err(|e| {
                            HelmfileError::new(
                                ErrorKind::Yaml,
                                format!(
                                    "failed to load environment values file \"{f}\": {e}\n\nOffending YAML:\n{bytes}"
                                ),
                            )
                            .with_file(paths::resolve(cwd, &f))
                        })?;
                        if let Value::Map(m) = v {
                            merge_override(&result, &m);
                        }
                    }
                }
                Value::Map(m) => merge_override(&result, m),
                other => {
                    // An inline map whose keys do not cast: Helmfile casts them only
                    // now, when its environment (or the state's own values) loads.
                    if let Value::Object(o) = other {
                        if let Some(t) = o.as_any().downcast_ref::<TypedKeyValues>() {
                            return Err(HelmfileError::new(ErrorKind::Yaml, t.message.clone()));
                        }
                    }
                    return Err(HelmfileError::other(format!(
                        "unexpected type of value: value={}, type={}",
                        crate::template::fmt::format_value(other),
                        other.type_name()
                    )));
                }
            }
        }
        if !hcl_files.is_empty() {
            let m = super::hcl::render(&hcl_files).map_err(|e| match e.file.clone() {
                Some(f) if f.is_relative() => {
                    let mut e = e;
                    e.file = Some(cwd.join(f));
                    e
                }
                _ => e,
            })?;
            merge_override(&result, &m);
        }
        Ok(result)
    }

    /// `FileRenderer.RenderToBytes`: `.gotmpl` files rendered (base path = the
    /// file's directory), others read as they are.
    /// Renders values file `f` (a `.gotmpl` one as a template) for `label` (what the
    /// values are for: an environment, a release; see [`Context::labeled`]).
    pub fn render_values_file(
        &self,
        f: &str,
        data: &Value,
        cwd: &Path,
        label: &str,
    ) -> Result<String> {
        let abs = paths::resolve(cwd, f);
        if f.rsplit('.').next() == Some("gotmpl") {
            let text = self.renv.vfs.read_to_string(&abs).map_err(|e| {
                HelmfileError::new(
                    ErrorKind::File,
                    format!("failed to render [{f}], because of {e}"),
                )
                .with_file(abs.clone())
            })?;
            let ctx = Context::new(self.renv, &paths::dir(f), cwd, false).labeled(label);
            ctx.render(&text, data).map_err(|fail| {
                let mut e = template_error(*fail.error).with_file(abs.clone());
                e.message = format!("failed to render [{f}], because of {}", e.message);
                e
            })
        } else {
            self.renv.vfs.read_to_string(&abs).map_err(|e| {
                HelmfileError::new(ErrorKind::File, format!("failed to load [{f}]: {e}"))
                    .with_file(abs.clone())
            })
        }
    }
}

fn undefined_env(file: &str, env: &str) -> HelmfileError {
    HelmfileError::new(
        ErrorKind::UndefinedEnvironment,
        format!("failed to read {file}: environment \"{env}\" is not defined"),
    )
}

/// A template failure as a Helmfile error (Go's message, span kept).
pub fn template_error(e: crate::template::Error) -> HelmfileError {
    let mut h = HelmfileError::new(ErrorKind::Template, e.message.clone());
    h.template = Some(Box::new(e));
    h
}

/// For YAML errors in a rendered part: the rendered line and the template line.
fn attach_rendered(
    mut e: HelmfileError,
    (abs, part, part_offset): (&Path, &str, usize),
    source: &str,
    rendered: &str,
) -> HelmfileError {
    if e.kind != ErrorKind::Yaml || e.rendered.is_some() || e.file.is_some() {
        return e;
    }
    let line = e
        .message
        .split("line ")
        .nth(1)
        .and_then(|s| s.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|s| s.parse::<usize>().ok());
    if let Some(line) = line {
        let rendered_text = rendered
            .lines()
            .nth(line.saturating_sub(1))
            .unwrap_or("")
            .to_string();
        let template_line = trace_template_line(source, rendered, line);
        e.rendered = Some(Box::new(RenderedContext {
            file: abs.to_path_buf(),
            part: part.to_string(),
            rendered_line: line,
            rendered_text,
            template_line: template_line.map(|l| part_offset + l),
            template_text: template_line
                .and_then(|l| source.lines().nth(l - 1))
                .map(str::to_string),
        }));
        e = e.at(abs, part_offset + template_line.unwrap_or(line));
    }
    e.with_file(abs)
}

/// Errors that name a missing file (`... matching "x.yaml" does not exist`) point
/// at the first line of the state file that mentions it.
fn locate_by_quoted_name(e: HelmfileError, abs: &Path, content: &str) -> HelmfileError {
    if e.line.is_some() || e.file.is_some() {
        return e;
    }
    let needle = e
        .message
        .split("matching \"")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .filter(|s| !s.is_empty());
    let line = needle.and_then(|n| content.lines().position(|l| l.contains(n)));
    match line {
        Some(l) => e.at(abs, l + 1),
        None => e,
    }
}

/// The template line (1-based) that most likely produced `rendered_line` of
/// `rendered`. Actions become wildcards; among source lines whose literal text
/// matches, the most specific ones win, and among those the nearest to the rendered
/// position (templates mostly keep their line structure).
pub fn trace_template_line(source: &str, rendered: &str, rendered_line: usize) -> Option<usize> {
    LineTracer::new(source, rendered).trace(rendered_line)
}

/// [`trace_template_line`] for many lines of one template and its rendering: the
/// texts are split into lines, and each template line into its literal pieces,
/// once, not once per traced line (a state file places every one of its releases).
struct LineTracer<'s> {
    source: Vec<&'s str>,
    rendered: Vec<&'s str>,
    globs: Vec<Option<Glob<'s>>>,
}

impl<'s> LineTracer<'s> {
    fn new(source: &'s str, rendered: &'s str) -> LineTracer<'s> {
        let source: Vec<&str> = source.lines().collect();
        LineTracer {
            globs: vec![None; source.len()],
            source,
            rendered: rendered.lines().collect(),
        }
    }

    fn trace(&mut self, rendered_line: usize) -> Option<usize> {
        let target = *self.rendered.get(rendered_line.checked_sub(1)?)?;
        if self.source.get(rendered_line - 1) == Some(&target) {
            return Some(rendered_line);
        }
        let target = target.trim();
        let mut best: Vec<(usize, usize)> = Vec::new(); // (literal length, line)
        for (i, l) in self.source.iter().enumerate() {
            let glob = self.globs[i].get_or_insert_with(|| Glob::new(l));
            if let Some(score) = glob.matches(target) {
                best.push((score, i + 1));
            }
        }
        let top = best.iter().map(|(s, _)| *s).max()?;
        if top == 0 && !target.is_empty() {
            return None;
        }
        best.into_iter()
            .filter(|(s, _)| *s * 2 >= top)
            .min_by_key(|(_, l)| l.abs_diff(rendered_line))
            .map(|(_, l)| l)
    }
}

/// A template line as a pattern: its literal pieces between actions, which
/// [`Glob::matches`] reads as wildcards.
#[derive(Clone)]
struct Glob<'s> {
    pieces: Vec<&'s str>,
    starts_wild: bool,
    ends_wild: bool,
}

impl<'s> Glob<'s> {
    fn new(template_line: &'s str) -> Glob<'s> {
        let mut pieces: Vec<&str> = Vec::new();
        let mut rest = template_line;
        let mut starts_wild = false;
        let mut ends_wild = false;
        loop {
            match rest.find("{{") {
                Some(p) => {
                    if p == 0 && pieces.is_empty() {
                        starts_wild = true;
                    }
                    pieces.push(&rest[..p]);
                    match rest[p..].find("}}") {
                        Some(q) => {
                            rest = &rest[p + q + 2..];
                            if rest.trim().is_empty() {
                                ends_wild = true;
                                break;
                            }
                        }
                        None => {
                            ends_wild = true;
                            break;
                        }
                    }
                }
                None => {
                    pieces.push(rest);
                    break;
                }
            }
        }
        Glob {
            pieces: pieces
                .iter()
                .map(|p| p.trim())
                .filter(|p| !p.is_empty())
                .collect(),
            starts_wild,
            ends_wild,
        }
    }

    /// Whether the line can produce `text` (both compared without surrounding
    /// blanks); the number of literal bytes matched.
    fn matches(&self, text: &str) -> Option<usize> {
        let pieces = &self.pieces;
        if pieces.is_empty() {
            return (self.starts_wild || self.ends_wild || text.is_empty()).then_some(0);
        }
        let mut pos = 0;
        for (k, p) in pieces.iter().enumerate() {
            let found = if k == 0 && !self.starts_wild {
                text.starts_with(p).then_some(0)
            } else {
                text[pos..].find(p).map(|f| f + pos)
            }?;
            pos = found + p.len();
        }
        if !self.ends_wild && pos != text.len() {
            let last = pieces[pieces.len() - 1];
            if !text.ends_with(last) || text.len() - last.len() < pos - last.len() {
                return None;
            }
        }
        Some(pieces.iter().map(|p| p.len()).sum())
    }
}

// ---- struct merges --------------------------------------------------------------------

fn over_str(dst: &mut String, src: &str) {
    if !src.is_empty() {
        *dst = src.to_string();
    }
}

fn fill_str(dst: &mut String, src: &str) {
    if dst.is_empty() && !src.is_empty() {
        *dst = src.to_string();
    }
}

fn over_vec<T: Clone>(dst: &mut Vec<T>, src: &[T]) {
    if !src.is_empty() {
        *dst = src.to_vec();
    }
}

/// mergo on `*bool` fields: a nil destination takes the source; otherwise only a
/// true source changes it.
fn merge_opt_bool(dst: &mut Option<bool>, src: Option<bool>) {
    match (dst.as_ref(), src) {
        (None, s) if s.is_some() => *dst = s,
        (Some(_), Some(true)) => *dst = Some(true),
        _ => {}
    }
}

fn merge_helm_spec(dst: &mut HelmSpec, src: &HelmSpec, override_: bool) {
    if override_ {
        over_str(&mut dst.kube_context, &src.kube_context);
        over_vec(&mut dst.args, &src.args);
        if src.timeout != 0 {
            dst.timeout = src.timeout;
        }
    } else {
        fill_str(&mut dst.kube_context, &src.kube_context);
        dst.args.extend(src.args.iter().cloned());
        if dst.timeout == 0 {
            dst.timeout = src.timeout;
        }
    }
    dst.devel |= src.devel;
    dst.wait |= src.wait;
    dst.wait_for_jobs |= src.wait_for_jobs;
    dst.skip_deps |= src.skip_deps;
    merge_opt_bool(&mut dst.create_namespace, src.create_namespace);
    for (k, v) in &src.other {
        if override_ || !dst.other.contains_key(k) {
            dst.other.insert(k.clone(), v.clone());
        }
    }
}

/// `mergo.Merge(&dst, &src, mergo.WithOverride)` on `ReleaseSetSpec` (later parts).
pub fn merge_spec_override(dst: &mut ReleaseSetSpec, src: &ReleaseSetSpec) {
    over_str(&mut dst.helm_binary, &src.helm_binary);
    over_str(&mut dst.kustomize_binary, &src.kustomize_binary);
    over_vec(&mut dst.default_values, &src.default_values);
    for (k, v) in &src.environments {
        dst.environments.insert(k.clone(), v.clone());
    }
    over_vec(&mut dst.bases, &src.bases);
    merge_helm_spec(&mut dst.helm_defaults, &src.helm_defaults, true);
    over_vec(&mut dst.helmfiles, &src.helmfiles);
    over_str(&mut dst.deprecated_context, &src.deprecated_context);
    over_vec(&mut dst.deprecated_releases, &src.deprecated_releases);
    over_str(&mut dst.override_kube_context, &src.override_kube_context);
    over_str(&mut dst.override_namespace, &src.override_namespace);
    over_str(&mut dst.override_chart, &src.override_chart);
    over_vec(&mut dst.repositories, &src.repositories);
    for (k, v) in &src.common_labels {
        dst.common_labels.insert(k.clone(), v.clone());
    }
    over_vec(&mut dst.releases, &src.releases);
    over_vec(&mut dst.api_versions, &src.api_versions);
    over_str(&mut dst.kube_version, &src.kube_version);
    over_vec(&mut dst.hooks, &src.hooks);
    for (k, v) in &src.templates {
        dst.templates.insert(k.clone(), v.clone());
    }
    over_str(&mut dst.missing_file_handler, &src.missing_file_handler);
    over_str(&mut dst.lock_file, &src.lock_file);
}

/// `mergo.Merge(&dst, &src, mergo.WithAppendSlice)` on `ReleaseSetSpec` (documents of
/// one part, and `bases:` layers): existing values kept, lists appended.
pub fn merge_spec_append(dst: &mut ReleaseSetSpec, src: &ReleaseSetSpec) {
    fill_str(&mut dst.helm_binary, &src.helm_binary);
    fill_str(&mut dst.kustomize_binary, &src.kustomize_binary);
    dst.default_values
        .extend(src.default_values.iter().cloned());
    for (k, v) in &src.environments {
        dst.environments
            .entry(k.clone())
            .or_insert_with(|| v.clone());
    }
    dst.bases.extend(src.bases.iter().cloned());
    merge_helm_spec(&mut dst.helm_defaults, &src.helm_defaults, false);
    dst.helmfiles.extend(src.helmfiles.iter().cloned());
    fill_str(&mut dst.deprecated_context, &src.deprecated_context);
    dst.deprecated_releases
        .extend(src.deprecated_releases.iter().cloned());
    fill_str(&mut dst.override_kube_context, &src.override_kube_context);
    fill_str(&mut dst.override_namespace, &src.override_namespace);
    fill_str(&mut dst.override_chart, &src.override_chart);
    dst.repositories.extend(src.repositories.iter().cloned());
    for (k, v) in &src.common_labels {
        let e = dst.common_labels.entry(k.clone()).or_default();
        if e.is_empty() {
            *e = v.clone();
        }
    }
    dst.releases.extend(src.releases.iter().cloned());
    dst.api_versions.extend(src.api_versions.iter().cloned());
    fill_str(&mut dst.kube_version, &src.kube_version);
    dst.hooks.extend(src.hooks.iter().cloned());
    for (k, v) in &src.templates {
        dst.templates.entry(k.clone()).or_insert_with(|| v.clone());
    }
    fill_str(&mut dst.missing_file_handler, &src.missing_file_handler);
    fill_str(&mut dst.lock_file, &src.lock_file);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_lines_are_traced_through_actions() {
        let source = "releases:\n{{- range .Values.xs }}\n  - name: {{ . }}\n    chart: c\n{{- end }}\n  - name: last\n    labels:\n      note: {{ .Values.note }}\n";
        let rendered = "releases:\n  - name: a\n    chart: c\n  - name: b\n    chart: c\n  - name: last\n    labels:\n      note: x: y\n";
        // The note line: literal `note:` then an action.
        assert_eq!(trace_template_line(source, rendered, 8), Some(8));
        // A line a `range` produced twice maps back to the one template line.
        assert_eq!(trace_template_line(source, rendered, 4), Some(3));
        // Identical text at the same position.
        assert_eq!(trace_template_line(source, rendered, 1), Some(1));
        assert_eq!(trace_template_line(source, rendered, 99), None);
    }

    #[test]
    fn glob_lines() {
        assert_eq!(Glob::new("  a: {{ .x }}").matches("a: 1"), Some(2));
        assert_eq!(Glob::new("  a: {{ .x }} b").matches("a: 1 b"), Some(3));
        assert_eq!(Glob::new("  a: {{ .x }} b").matches("a: 1 c"), None);
        assert_eq!(Glob::new("{{ .x }}").matches("anything"), Some(0));
        assert_eq!(Glob::new("plain").matches("other"), None);
        assert_eq!(Glob::new("{{ if .x").matches("y"), Some(0));
    }

    #[test]
    fn storage_paths() {
        assert_eq!(
            normalize_storage_path(".", "../global.yaml.gotmpl"),
            "../global.yaml.gotmpl"
        );
        assert_eq!(normalize_storage_path(".", "/abs/x"), "/abs/x");
        assert_eq!(normalize_storage_path("base", "x.yaml"), "base/x.yaml");
        assert_eq!(
            normalize_storage_path(".", "git::https://x"),
            "git::https://x"
        );
    }

    #[test]
    fn parts_override_but_documents_append() {
        let mut a = ReleaseSetSpec::default();
        a.releases.push(ReleaseSpec {
            name: "r1".into(),
            ..Default::default()
        });
        let mut b = ReleaseSetSpec::default();
        b.releases.push(ReleaseSpec {
            name: "r2".into(),
            ..Default::default()
        });
        let mut o = a.clone();
        merge_spec_override(&mut o, &b);
        assert_eq!(
            o.releases
                .iter()
                .map(|r| r.name.as_str())
                .collect::<Vec<_>>(),
            vec!["r2"]
        );
        let mut p = a.clone();
        merge_spec_append(&mut p, &b);
        assert_eq!(
            p.releases
                .iter()
                .map(|r| r.name.as_str())
                .collect::<Vec<_>>(),
            vec!["r1", "r2"]
        );
    }

    #[test]
    fn opt_bool_merge_is_mergo() {
        let mut d = Some(true);
        merge_opt_bool(&mut d, Some(false));
        assert_eq!(d, Some(true));
        let mut d = None;
        merge_opt_bool(&mut d, Some(false));
        assert_eq!(d, Some(false));
        let mut d = Some(false);
        merge_opt_bool(&mut d, Some(true));
        assert_eq!(d, Some(true));
    }
}
