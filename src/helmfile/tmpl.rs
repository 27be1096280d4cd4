//! Helmfile's template context (`pkg/tmpl`): every state part, values `.gotmpl` file,
//! release field and `tpl` call is executed as a fresh Go template named
//! `stringTemplate`, after the directory's `_*.tpl` helper files have been parsed
//! into the same set (so their defines are includable, and text outside defines
//! becomes the base body — Helmfile's helper-file bug). The first rendering pass uses
//! `missingkey=zero` and disables side-effecting functions (`exec`, `readFile`,
//! `readDir`, `readDirEntries` return empty results); the final pass uses
//! `missingkey=error`.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use parking_lot::Mutex;

use super::paths;
use super::seams::{self, MissingKey, TemplateCall, TemplateFailure};
use crate::source::Vfs;
use crate::template::{Clock, Host, Registry, Seed, Value};

/// Services a Helmfile render needs from its caller.
#[derive(Clone, Debug)]
pub struct RenderEnv {
    pub vfs: Vfs,
    /// Environment variables (`env`, `requiredEnv`).
    pub env: Arc<BTreeMap<String, String>>,
    /// Whether `exec` may run programs.
    pub allow_exec: bool,
    /// File functions refuse paths outside this directory (`None`: no limit).
    pub confine_to: Option<PathBuf>,
    /// Where random functions draw from.
    pub seed: Seed,
    /// What `now` returns.
    pub now: Clock,
    /// `_*.tpl` helper files per directory, read once per render.
    pub helper_cache: HelperCache,
    /// vals' memory of the run (Helmfile keeps one vals runtime per process).
    pub vals_cache: Arc<crate::funcs::vals::Cache>,
}

/// Helper files per directory (`(name, text)` pairs).
pub type HelperCache = Arc<Mutex<HashMap<PathBuf, Arc<Vec<(String, String)>>>>>;

impl Default for RenderEnv {
    fn default() -> Self {
        RenderEnv {
            vfs: Vfs::real(),
            env: Arc::new(BTreeMap::new()),
            allow_exec: false,
            confine_to: None,
            seed: Seed::default(),
            now: Clock::FIXED,
            helper_cache: HelperCache::default(),
            vals_cache: Arc::default(),
        }
    }
}

/// One template context: a base directory (Go string and its absolute form) and
/// the pass.
#[derive(Clone, Debug)]
pub struct Context<'a> {
    pub renv: &'a RenderEnv,
    /// The base path as Helmfile names it (`"."`, `"../values"`).
    pub base_path: String,
    /// The directory Helmfile's process would be in.
    pub cwd: PathBuf,
    pub pre_render: bool,
    /// What is rendered, for its random stream ([`Context::labeled`]).
    pub label: String,
}

fn final_registry() -> &'static Arc<Registry> {
    static R: OnceLock<Arc<Registry>> = OnceLock::new();
    R.get_or_init(|| Arc::new(crate::funcs::helmfile_registry()))
}

fn first_pass_registry() -> &'static Arc<Registry> {
    static R: OnceLock<Arc<Registry>> = OnceLock::new();
    R.get_or_init(|| {
        let mut r = crate::funcs::helmfile_registry();
        crate::funcs::helmfile::register_first_pass(&mut r);
        Arc::new(r)
    })
}

impl<'a> Context<'a> {
    pub fn new(renv: &'a RenderEnv, base_path: &str, cwd: &Path, pre_render: bool) -> Context<'a> {
        Context {
            renv,
            base_path: base_path.to_string(),
            cwd: cwd.to_path_buf(),
            pre_render,
            label: String::new(),
        }
    }

    /// Names what this context renders (a state file, a release), so that its random
    /// functions draw a stream of their own (see [`Seed::derive`]).
    pub fn labeled(mut self, label: impl Into<String>) -> Self {
        self.label = label.into();
        self
    }

    /// The absolute directory relative paths in templates resolve against.
    pub fn base_dir(&self) -> PathBuf {
        paths::resolve(&self.cwd, &self.base_path)
    }

    /// The host for rendering `text`: its random stream is this context's and this
    /// text's own.
    pub fn host(&self, text: &str) -> Host {
        let mut h = Host::with_derived(
            self.renv.seed,
            &[
                self.label.as_bytes(),
                self.base_path.as_bytes(),
                text.as_bytes(),
            ],
            self.renv.now,
        );
        h.env = self.renv.env.clone();
        h.vfs = self.renv.vfs.clone();
        h.base_dir = self.base_dir();
        h.base_path = self.base_path.clone();
        h.cwd = self.cwd.clone();
        h.confine_to = self.renv.confine_to.clone();
        h.vals_cache = self.renv.vals_cache.clone();
        h.allow_exec = self.renv.allow_exec && !self.pre_render;
        h
    }

    /// The `_*.tpl` files of the base directory, named as Helmfile names them.
    pub fn helpers(&self) -> Arc<Vec<(String, String)>> {
        let dir = self.base_dir();
        if let Some(h) = self.renv.helper_cache.lock().get(&dir) {
            return h.clone();
        }
        let pattern = paths::join(&[&self.base_path, "_*.tpl"]);
        let found: Vec<(String, String)> = paths::glob(&self.renv.vfs, &self.cwd, &pattern)
            .into_iter()
            .filter_map(|name| {
                let text = self
                    .renv
                    .vfs
                    .read_to_string(&paths::resolve(&self.cwd, &name))
                    .ok()?;
                Some((name, text))
            })
            .collect();
        let found = Arc::new(found);
        self.renv.helper_cache.lock().insert(dir, found.clone());
        found
    }

    /// Renders `text` with `data` (Helmfile's `RenderTemplateToBuffer`).
    pub fn render(&self, text: &str, data: &Value) -> Result<String, TemplateFailure> {
        let helpers = self.helpers();
        // Text without actions renders as itself unless helper files could have
        // given the template a body (Helmfile's helper-file behaviour).
        if helpers.is_empty() && !text.contains("{{") {
            return Ok(text.to_string());
        }
        let host = self.host(text);
        let registry = if self.pre_render {
            first_pass_registry()
        } else {
            final_registry()
        };
        seams::execute_template(&TemplateCall {
            name: "stringTemplate",
            helpers: &helpers,
            text,
            data,
            missing_key: if self.pre_render {
                MissingKey::Zero
            } else {
                MissingKey::Error
            },
            registry,
            host: &host,
        })
    }
}

/// Renders a string the way Helmfile's `tpl` does from inside a template: a new
/// template set in the same base directory and pass.
pub fn render_for_tpl(
    host: &Host,
    pre_render: bool,
    text: &str,
    data: &Value,
) -> Result<String, TemplateFailure> {
    let renv = RenderEnv {
        vfs: host.vfs.clone(),
        env: host.env.clone(),
        allow_exec: host.allow_exec,
        confine_to: host.confine_to.clone(),
        seed: host.child_seed(),
        now: host.clock(),
        helper_cache: HelperCache::default(),
        vals_cache: Arc::downcast(host.vals_cache.clone()).unwrap_or_default(),
    };
    // The base is absolute, so the working directory only matters to what the
    // template reads from it (vals' `ref+file://`).
    let base = host.base_dir.display().to_string();
    let ctx = Context::new(&renv, &base, &host.cwd, pre_render);
    ctx.render(text, data)
}
