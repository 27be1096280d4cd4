//! The points where Helmfile rendering meets the other engines of the crate: the Go
//! template engine, the yaml.v2 codec and Helm chart rendering. Everything Helmfile-
//! specific stays on this side; each function here is one narrow call so the
//! engines can change underneath without touching the state logic.

use std::path::{Path, PathBuf};

use std::sync::Arc;

use super::ynode::YNode;
use crate::funcs::codec::yaml;
use crate::source::{Memo, SourceFile};
use crate::template::{Host, Registry, Value};

/// Go's `missingkey` option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MissingKey {
    /// First rendering pass: a missing key is the zero value (`<no value>`).
    Zero,
    /// Final pass: `map has no entry for key "x"`.
    Error,
}

/// One Helmfile template execution: a template set named `name`, the helper files
/// (`_*.tpl` in the base directory) parsed into it first, then `text` parsed as its
/// body and executed with `data`.
pub struct TemplateCall<'a> {
    pub name: &'a str,
    pub helpers: &'a [(String, String)],
    pub text: &'a str,
    pub data: &'a Value,
    pub missing_key: MissingKey,
    pub registry: &'a Arc<Registry>,
    pub host: &'a Host,
}

/// A failed execution: Go's error and, for execution (not parse) errors, the output
/// written before the failure, which Helmfile's first pass keeps using.
#[derive(Debug, Clone)]
pub struct TemplateFailure {
    pub partial: Option<String>,
    pub error: Box<crate::template::Error>,
}

/// Executes a template call with the crate's Go template engine: Go's
/// `template.New(name)`, each helper parsed into it, then the text, then `Execute`.
pub fn execute_template(call: &TemplateCall<'_>) -> Result<String, TemplateFailure> {
    let set = parsed_set(call)?;
    let mut out = String::new();
    match set.execute_into(call.name, call.data, call.host, &mut out) {
        Ok(()) => Ok(out),
        Err(e) => Err(TemplateFailure {
            partial: Some(out),
            error: Box::new(e),
        }),
    }
}

/// What a parsed template set depends on: everything parsing reads.
#[derive(PartialEq, Eq, Hash)]
struct ParseKey {
    name: String,
    registry: usize,
    missing_error: bool,
    helpers: Vec<(String, String)>,
    text: String,
}

/// Parsed template sets, reused across calls: a stack renders the same values
/// template once per release that lists it (NVCF renders a 1,300-line
/// `global.yaml.gotmpl` for most releases), and parsing is pure. Execution only
/// reads a set, so a cached one behaves exactly like a fresh parse. Each entry keeps
/// its registry alive, so an equal registry address in the key is the same registry.
static PARSED: Memo<ParseKey, (Arc<Registry>, crate::template::TemplateSet)> = Memo::new(512);

fn parsed_set(call: &TemplateCall<'_>) -> Result<crate::template::TemplateSet, TemplateFailure> {
    use crate::template::{LanguageLevel, Options, TemplateSet};
    let missing = match call.missing_key {
        MissingKey::Zero => crate::template::MissingKey::Zero,
        MissingKey::Error => crate::template::MissingKey::Error,
    };
    let key = ParseKey {
        name: call.name.to_string(),
        registry: Arc::as_ptr(call.registry) as usize,
        missing_error: matches!(call.missing_key, MissingKey::Error),
        helpers: call.helpers.to_vec(),
        text: call.text.to_string(),
    };
    if let Some((reg, set)) = PARSED.get(&key) {
        if Arc::ptr_eq(&reg, call.registry) {
            return Ok(set);
        }
    }
    let mut set = TemplateSet::new(
        call.name,
        call.registry.clone(),
        Options::new(LanguageLevel::Go122, missing),
    );
    for (file, text) in call.helpers {
        if let Err(e) = set.parse_source(call.name, SourceFile::new(file.as_str(), text.as_str())) {
            let mut wrapped = e.clone();
            wrapped.message = format!("failed to parse helper template {file}: {}", e.message);
            return Err(TemplateFailure {
                partial: None,
                error: Box::new(wrapped),
            });
        }
    }
    if let Err(e) = set.parse_source(call.name, SourceFile::new(call.name, call.text)) {
        return Err(TemplateFailure {
            partial: None,
            error: Box::new(e),
        });
    }
    PARSED.insert(key, (call.registry.clone(), set.clone()));
    Ok(set)
}

/// A YAML problem, with yaml.v2's message text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlError(pub String);

impl std::fmt::Display for YamlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Splits a rendered state part into YAML documents and decodes each to a node tree
/// (anchors, aliases and `<<` merges resolved). `strict` adds yaml.v2's duplicate-key
/// checks (`key "a" already set in map`, including keys set by a merge). A failure
/// names the 1-based index of the document it happened in.
pub fn parse_state_documents(text: &str, strict: bool) -> Result<Vec<YNode>, (usize, YamlError)> {
    let opts = yaml::DecodeOptions {
        mode: yaml::Mode::HelmfileState,
        strict,
    };
    let docs = yaml::decode_documents(text, &opts)
        .map_err(|e| (document_index(text, e.line), YamlError(e.message)))?;
    // Lines and scalar source texts come from the first document's spans; later
    // documents of one part are rare and get none.
    let spans = yaml::decode_with_spans(text, &opts).ok().map(|(_, s)| s);
    Ok(docs
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let sp = if i == 0 { spans.as_ref() } else { None };
            YNode::from_decoded(v, sp, text)
        })
        .collect())
}

/// The 1-based index of the document containing `line` (counting `---` markers).
fn document_index(text: &str, line: Option<usize>) -> usize {
    let Some(line) = line else { return 1 };
    let mut idx = 1;
    let mut seen_content = false;
    for (i, l) in text.lines().enumerate() {
        if i + 1 >= line {
            break;
        }
        let is_marker = l == "---" || l.starts_with("--- ");
        if is_marker {
            if seen_content {
                idx += 1;
            }
            seen_content = true;
        } else if !l.trim().is_empty() && !l.trim_start().starts_with('#') {
            seen_content = true;
        }
    }
    idx
}

/// `yaml.Unmarshal(bytes, &map[string]any{})` (yaml.v2) followed by Helmfile's
/// `CastKeysToStrings`.
pub fn decode_values(text: &str) -> Result<Value, YamlError> {
    yaml::decode(text, &yaml::DecodeOptions::HELMFILE_MAP).map_err(|e| YamlError(e.message))
}

/// `yaml.Marshal(v)` (yaml.v2), including the final newline.
pub fn encode_yaml(v: &Value) -> Result<String, YamlError> {
    yaml::encode_v2(v).map_err(|e| YamlError(e.message))
}

/// yaml.v2 `Unmarshal` of a values file into `map[string]interface{}`, with no key
/// casting: nested maps keep typed keys (`404:`), as in Helmfile's `write-values`.
pub fn decode_values_raw(text: &str) -> Result<yaml::GoMap, YamlError> {
    match yaml::decode_raw(text, false, true).map_err(|e| YamlError(e.message))? {
        yaml::GoValue::Map(m) => Ok(m),
        _ => Ok(yaml::GoMap::new()),
    }
}

/// `yaml.Marshal(v)` (yaml.v2) of a decoded Go value, typed keys kept.
pub fn encode_go_yaml(v: &yaml::GoValue) -> Result<String, YamlError> {
    yaml::encode_go(v).map_err(|e| YamlError(e.message))
}

/// What `helm template` needs for one release. Everything a render reads is here or
/// on disk (which stackproof never writes), so equal calls print equal bytes.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ChartCall {
    pub release_name: String,
    pub namespace: String,
    pub chart_dir: PathBuf,
    /// `.Chart.Version` to render instead of the chart's own.
    pub version_override: Option<String>,
    /// `--values` files in order: (name shown in errors, bytes).
    pub values_files: Vec<(String, Vec<u8>)>,
    /// `--set` arguments in order.
    pub set: Vec<String>,
    /// `--set-file` arguments in order.
    pub set_file: Vec<String>,
    pub kube_version: Option<String>,
    pub api_versions: Vec<String>,
    pub include_crds: bool,
    pub skip_tests: bool,
    /// For a local chart directory whose dependencies Helmfile builds first: the
    /// chart path as Helmfile passes it to `helm dependency build` (see
    /// [`super::depbuild`]). `None` when deps are skipped or the chart is not a
    /// local directory.
    pub build_deps: Option<String>,
    /// `--show-only` templates.
    pub show_only: Vec<String>,
    /// Where remote dependencies missing from `charts/` are looked up.
    pub dependency_sources: super::charts::ChartSources,
    pub vfs: crate::source::Vfs,
    /// Where the chart's random functions draw from.
    pub seed: crate::template::Seed,
    /// What the chart's `now` returns.
    pub now: crate::template::Clock,
    /// Run on the manifests (only with `--allow-exec`). Remembered renders assume
    /// the program gives the same output for the same input, as a render does.
    pub post_renderer: Option<crate::chart::postrender::PostRenderer>,
}

/// Renders a chart the way `helm template` (v3.15) prints it, returning stdout.
///
/// Cells of a matrix often hand a release the same call (those whose values no axis
/// touches), so in a matrix run results are remembered per call: a render is a pure
/// function of it, its random functions included (they draw from `seed`). A one-shot
/// run rarely repeats a call and does not keep them (see `source::memo`).
pub fn render_chart(call: &ChartCall) -> Result<Arc<String>, String> {
    // Shared, not copied: a stack's output is megabytes, and each copy is fresh
    // memory the kernel must zero.
    static RENDERS: Memo<ChartCall, Result<Arc<String>, String>> = Memo::for_repeats(1024);
    // Releases render side by side on the pool; each chart stays on its thread.
    RENDERS.get_or_compute(call, || {
        crate::chart::rendering_on_one_thread(|| render_chart_uncached(call))
    })
}

fn render_chart_uncached(call: &ChartCall) -> Result<Arc<String>, String> {
    render_release(call)?
        .helm_output()
        .map(Arc::new)
        .map_err(|e| format!("Error: {}", e.message))
}

/// `helm template --output-dir DIR` for one release: the files Helm writes (under
/// `dir` as Helm spells it, relative to the state's directory where Helmfile runs
/// helm), then what it prints, `wrote PATH` per file and the now empty manifest, or
/// the error that follows the writes (`--show-only` finds nothing in that empty
/// manifest). Not remembered: a run that writes files renders each release once.
pub fn render_chart_to_dir(call: &ChartCall, dir: &str) -> Result<ChartFiles, String> {
    let rendered = render_release(call)?;
    let writes = rendered.output_dir_writes(dir, dir);
    let mut stdout: String = writes
        .iter()
        .map(|w| format!("wrote {}\n", w.path))
        .collect();
    let error = if call.show_only.is_empty() {
        stdout.push('\n');
        None
    } else {
        crate::chart::manifest::select_shown(rendered.helm, "\n", &call.show_only)
            .err()
            .map(|e| format!("Error: {e}"))
    };
    Ok(ChartFiles {
        writes,
        stdout,
        error,
    })
}

/// What [`render_chart_to_dir`] gives.
pub struct ChartFiles {
    pub writes: Vec<crate::chart::manifest::OutputWrite>,
    /// What helm printed (also when it then failed).
    pub stdout: String,
    /// How helm failed after writing the files.
    pub error: Option<String>,
}

/// What a prepared chart depends on: its directory, the file view, the version
/// it is stamped with, where its dependencies come from and how they are built.
type ChartKey = (
    PathBuf,
    crate::source::Vfs,
    Option<String>,
    super::charts::ChartSources,
    Option<String>,
);

/// Prepared charts, kept so that later renders reuse them and the parsed
/// templates cached on them, until [`forget_chart`].
static CHARTS: Memo<ChartKey, Result<Arc<crate::chart::Chart>, String>> = Memo::new(256);

/// Lets go of every prepared chart of directory `dir` (see `helmfile::lease`).
pub(crate) fn forget_chart(dir: &Path) {
    CHARTS.forget_where(|k| k.0 == dir);
    super::depbuild::forget(dir);
}

/// The chart of `call` prepared as Helmfile prepares it, then rendered.
fn render_release(call: &ChartCall) -> Result<crate::chart::render::Rendered, String> {
    use crate::chart::render::{render, RenderOptions};
    use crate::chart::values::{ValueOptions, ValuesSource};
    use crate::chart::Chart;
    let key = (
        call.chart_dir.clone(),
        call.vfs.clone(),
        call.version_override.clone(),
        call.dependency_sources.clone(),
        call.build_deps.clone(),
    );
    let chart = CHARTS.get_or_compute(&key, || {
        let loaded = match &call.build_deps {
            Some(shown) => super::depbuild::build(&call.chart_dir, shown, &call.vfs)
                .map_err(|e| format!("[building dependencies of local chart: {e}]"))?,
            None => Chart::load(&call.chart_dir, &call.vfs).map_err(|e| e.message)?,
        };
        complete_chart(&loaded, call)
    })?;
    let opts = RenderOptions {
        release_name: call.release_name.clone(),
        namespace: if call.namespace.is_empty() {
            "default".to_string()
        } else {
            call.namespace.clone()
        },
        values: ValueOptions {
            files: call
                .values_files
                .iter()
                .map(|(name, bytes)| ValuesSource::Text {
                    name: name.clone(),
                    text: String::from_utf8_lossy(bytes).into_owned(),
                })
                .collect(),
            set: call.set.clone(),
            set_file: call.set_file.clone(),
            ..ValueOptions::default()
        },
        kube_version: call.kube_version.clone(),
        api_versions: call.api_versions.clone(),
        include_crds: call.include_crds,
        skip_tests: call.skip_tests,
        show_only: call.show_only.clone(),
        seed: call.seed,
        now: call.now,
        post_renderer: call.post_renderer.clone(),
        // helm template validates the release name Helmfile passes it.
        release_checks: true,
        ..RenderOptions::default()
    };
    if call.release_name.starts_with('-') {
        // Helmfile passes the name as helm's first argument, so helm parses it as
        // flags; what that does (an error naming the flag, a missing argument, or
        // a render under a generated name) depends on helm's flag set, which
        // stackproof does not model: refuse rather than render it.
        return Err(format!(
            "release name {}: helm template would read a name starting with '-' as flags; stackproof does not reproduce what helm then does",
            crate::template::fmt::quote(&call.release_name)
        ));
    }
    render(&chart, &opts, &call.vfs).map_err(|e| format!("Error: {}", e.message))
}

/// The chart as `helm template` would see it after Helmfile's preparation: the
/// pinned version stamped in, and remote dependencies that `charts/` lacks taken
/// from the chart sources (the version its `Chart.lock` pins, else the exact
/// version it asks for).
fn complete_chart(
    chart: &Arc<crate::chart::Chart>,
    call: &ChartCall,
) -> Result<Arc<crate::chart::Chart>, String> {
    let mut deps = chart.dependencies.clone();
    let mut changed = false;
    if let Some(reqs) = &chart.metadata.dependencies {
        for r in reqs {
            if deps.iter().any(|d| d.name() == r.name) || r.repository.starts_with("file://") {
                continue;
            }
            let locked = chart
                .lock
                .as_ref()
                .and_then(|l| l.get("dependencies"))
                .and_then(|d| {
                    d.as_list().and_then(|items| {
                        items.iter().find_map(|it| {
                            (it.get("name").and_then(|n| n.as_str().map(str::to_string))
                                == Some(r.name.clone()))
                            .then(|| {
                                it.get("version")
                                    .and_then(|v| v.as_str().map(str::to_string))
                            })
                            .flatten()
                        })
                    })
                })
                .unwrap_or_else(|| r.version.clone());
            let Some(found) = call.dependency_sources.find(&call.vfs, &r.name, &locked) else {
                continue;
            };
            let sub = crate::chart::Chart::load(&found.dir, &call.vfs).map_err(|e| e.message)?;
            deps.push(sub);
            changed = true;
        }
    }
    if !changed && call.version_override.is_none() {
        return Ok(chart.clone());
    }
    deps.sort_by(|a, b| a.name().cmp(b.name()));
    let mut metadata = chart.metadata.clone();
    if let Some(v) = &call.version_override {
        metadata.version = v.clone();
    }
    Ok(chart.with_parts(metadata, deps))
}
