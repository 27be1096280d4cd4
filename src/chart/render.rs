//! Rendering a chart the way `helm template` does, end to end: user values, chart
//! checks, dependency processing, values coalescing and schema validation, the
//! template namespace of the whole chart tree, execution in Helm's order, and the
//! sorted, framed output. [`render`] is the library entry point; [`Rendered`] keeps
//! the documents (with their source template) and prints Helm's exact bytes.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};

use super::capabilities::{Capabilities, KubeVersion};
use super::coalesce::{coalesce_chart, Warnings};
use super::error::{ChartError, Phase};
use super::errors;
use super::loader::{Chart, LoadObserver};
use super::locate;
use super::manifest::{self, CrdFile, PrintOptions, Sorted};
use super::objects::{chart_object, release_map, Files};
use super::preparse::PreParse;
use super::provenance::{KeyOrigin, LineCache, TracedOutput};
use super::schema;
use super::tree::{process_dependencies, Node};
use super::values::{ValueOptions, ValuesSource};
use super::yamlio;
use super::{pool, worth_parallel, HelmVersion};
use crate::funcs::semver::is_compatible_range;
use crate::funcs::{helm_registry, Flavor};
use crate::source::{SourceFile, Vfs};
use crate::template::{
    Clock, FuncDef, FuncResult, Host, LanguageLevel, Map, MapType, MissingKey, Options, Registry,
    Seed, TemplateSet, Ty, Value,
};

/// Everything `helm template` takes besides the chart.
#[derive(Clone, Debug)]
pub struct RenderOptions {
    pub release_name: String,
    pub namespace: String,
    pub helm: HelmVersion,
    pub values: ValueOptions,
    /// `--kube-version`.
    pub kube_version: Option<String>,
    /// `--api-versions`.
    pub api_versions: Vec<String>,
    pub is_upgrade: bool,
    pub include_crds: bool,
    pub no_hooks: bool,
    pub skip_tests: bool,
    pub show_only: Vec<String>,
    pub skip_schema_validation: bool,
    /// Where Sprig's random functions draw from.
    pub seed: Seed,
    /// What `now` returns.
    pub now: Clock,
    /// `--enable-dns`: `getHostByName` asks the system resolver instead of
    /// answering `""`.
    pub enable_dns: bool,
    /// The checks `helm install`/`template` makes on the release itself (the
    /// release name's syntax, `--labels` using a name Helm reserves), at the point
    /// of Helm's pipeline where it makes them. Off for library callers that pass
    /// names Helm never sees.
    pub release_checks: bool,
    /// `--labels`: only checked (they label the release record, not the output).
    pub labels: Vec<(String, String)>,
    /// `--post-renderer` (Helm 3), already resolved to its program.
    pub post_renderer: Option<super::postrender::PostRenderer>,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            release_name: "release-name".into(),
            namespace: "default".into(),
            helm: HelmVersion::V3,
            values: ValueOptions::default(),
            kube_version: None,
            api_versions: Vec::new(),
            is_upgrade: false,
            include_crds: false,
            no_hooks: false,
            skip_tests: false,
            show_only: Vec::new(),
            skip_schema_validation: false,
            seed: Seed::default(),
            now: Clock::FIXED,
            enable_dns: false,
            release_checks: false,
            labels: Vec::new(),
            post_renderer: None,
        }
    }
}

impl RenderOptions {
    pub fn print_options(&self) -> PrintOptions {
        PrintOptions {
            include_crds: self.include_crds,
            no_hooks: self.no_hooks,
            skip_tests: self.skip_tests,
            show_only: self.show_only.clone(),
            post_renderer: self.post_renderer.clone(),
        }
    }
}

/// One output document.
#[derive(Debug)]
pub struct Document {
    /// The template that produced it (`chart/templates/x.yaml`).
    pub source: String,
    pub kind: String,
    pub api_version: String,
    pub name: String,
    /// The text Helm prints (after its trimming).
    pub content: String,
    /// Hook events, for hook documents.
    pub hook: Option<Vec<String>>,
    /// Position of the document within its template's output.
    pub index_in_file: usize,
    /// Top-level keys and the 1-based line of this document's template that wrote
    /// each (the `{{template}}` call when a define elsewhere wrote it), from the
    /// execution trace.
    pub key_lines: Vec<(String, usize)>,
    /// Top-level keys and the exact node that wrote each (any file).
    pub key_origins: Vec<KeyOrigin>,
    body: OnceLock<Result<Value, String>>,
}

impl Document {
    /// The document parsed as Helm reads values (numbers are float64).
    pub fn body(&self) -> Result<&Value, &str> {
        self.body
            .get_or_init(|| yamlio::decode_helm(&self.content))
            .as_ref()
            .map_err(String::as_str)
    }

    /// `metadata.namespace`, when set.
    pub fn namespace(&self) -> Option<String> {
        let b = self.body().ok()?;
        b.get_path(&["metadata", "namespace"])
            .and_then(|v| v.as_str().map(str::to_string))
    }
}

/// The result of a successful render.
pub struct Rendered {
    pub helm: HelmVersion,
    /// Regular manifests in Helm's order, then hooks in Helm's order; see
    /// [`Rendered::documents`].
    documents: OnceLock<Vec<Document>>,
    /// Each rendered file's execution trace, read only when the documents are.
    traces: HashMap<String, TracedOutput>,
    pub crds: Vec<CrdFile>,
    /// The root chart's rendered NOTES.txt.
    pub notes: Option<String>,
    /// The final coalesced values of the root chart (`.Values`).
    pub values: Map,
    /// Lines Helm writes to stderr (deprecation, coalesce warnings, unknown hooks).
    pub warnings: Vec<String>,
    sorted: Sorted,
    print: PrintOptions,
}

impl Rendered {
    /// Regular manifests in Helm's order, then hooks in Helm's order, each with the
    /// template lines that wrote its keys. Worked out on first use: printing what
    /// helm prints (`template`, a Helmfile stack) needs none of it, and a chart of
    /// CRDs would copy megabytes and search its whole output for them.
    pub fn documents(&self) -> &[Document] {
        self.documents
            .get_or_init(|| documents(&self.sorted, &self.traces))
    }

    /// The exact stdout of `helm template` with the options given to [`render`].
    pub fn helm_output(&self) -> Result<String, ChartError> {
        self.helm_output_with(&self.print)
    }

    /// The files `helm template --output-dir` writes, in order (see
    /// [`manifest::output_dir_writes`]).
    pub fn output_dir_writes(&self, dir: &str, release_dir: &str) -> Vec<manifest::OutputWrite> {
        manifest::output_dir_writes(&self.sorted, &self.crds, &self.print, dir, release_dir)
    }

    /// The stdout of `helm template` with other output options.
    pub fn helm_output_with(&self, opts: &PrintOptions) -> Result<String, ChartError> {
        manifest::print(self.helm, &self.sorted, &self.crds, opts).map_err(|e| match e {
            manifest::PrintError::ShowOnly(e) => ChartError::new(Phase::Output, e),
            manifest::PrintError::PostRender(e) => ChartError::new(
                Phase::Render,
                format!("error while running post render on files: {e}"),
            ),
        })
    }
}

/// Helm's `lookup` when no cluster is reachable (`helm template`): always an empty
/// map.
fn lookup_offline(_args: &[Value]) -> FuncResult {
    Ok(Value::Map(Map::new()))
}

static CHART_FUNCS: &[FuncDef] = &[FuncDef::plain(
    "lookup",
    &[Ty::String, Ty::String, Ty::String, Ty::String],
    lookup_offline,
)];

/// The function table for one Helm version, plus the render-mode functions Helm's
/// engine defines itself.
fn build_registry(flavor: Flavor) -> Registry {
    let mut r = helm_registry(flavor);
    if !r.contains("lookup") {
        r.register(CHART_FUNCS);
    }
    r
}

fn registry(helm: HelmVersion) -> Arc<Registry> {
    static V3: OnceLock<Arc<Registry>> = OnceLock::new();
    static V4: OnceLock<Arc<Registry>> = OnceLock::new();
    match helm {
        HelmVersion::V3 => V3
            .get_or_init(|| Arc::new(build_registry(Flavor::Helm3)))
            .clone(),
        HelmVersion::V4 => V4
            .get_or_init(|| Arc::new(build_registry(Flavor::Helm4)))
            .clone(),
    }
}

fn values_type(helm: HelmVersion) -> MapType {
    MapType::Named(crate::funcs::chartvalues::type_name(match helm {
        HelmVersion::V3 => Flavor::Helm3,
        HelmVersion::V4 => Flavor::Helm4,
    }))
}

/// One template file to parse and maybe execute.
struct Renderable {
    name: String,
    source: SourceFile,
    dot: Map,
    base_path: String,
}

/// `recAllTpls`: builds each chart's top-level object and collects its templates.
fn collect(
    helm: HelmVersion,
    node: &Node,
    parent_path: Option<&str>,
    vals: &Map,
    out: &mut Vec<Renderable>,
) -> Map {
    let is_root = parent_path.is_none();
    let full_path = match parent_path {
        None => node.name.clone(),
        Some(p) => format!("{p}/charts/{}", node.name),
    };
    let subcharts = Map::new();
    // Helm's top-level object is of the values type too (`typeOf .`, `.AsMap`).
    let next = Map::with_type(values_type(helm));
    next.insert("Chart", chart_object(helm, &node.metadata, is_root));
    next.insert("Files", Value::object(Files::new(&node.chart.files)));
    next.insert("Release", vals.get("Release").unwrap_or_default());
    next.insert("Capabilities", vals.get("Capabilities").unwrap_or_default());
    next.insert("Values", Value::Map(Map::with_type(values_type(helm))));
    next.insert("Subcharts", Value::Map(subcharts.clone()));
    if is_root {
        next.insert("Values", vals.get("Values").unwrap_or_default());
    } else if let Some(Value::Map(pv)) = vals.get("Values") {
        if let Some(Value::Map(vs)) = pv.get(&node.name) {
            next.insert("Values", Value::Map(vs.retyped(values_type(helm))));
        }
    }
    for child in &node.deps {
        let sub = collect(helm, child, Some(&full_path), &next, out);
        subcharts.insert(child.name.clone(), Value::Map(sub));
    }
    let library = node.chart.is_library();
    for t in &node.chart.templates {
        let base = t.name.rsplit('/').next().unwrap_or(&t.name);
        if library && !base.starts_with('_') {
            continue;
        }
        let name = format!("{full_path}/{}", t.name);
        out.push(Renderable {
            source: SourceFile::new(name.as_str(), t.shared_text()),
            name,
            dot: next.clone(),
            base_path: format!("{full_path}/templates"),
        });
    }
    next
}

/// Helm's `sortTemplates`: more path segments first, then reverse byte order.
/// Each name's depth is counted once, not at each of the sort's comparisons (a
/// sort of n names makes about n·log2(n) of them: 660 for a hundred templates).
fn sort_templates(r: &mut Vec<Renderable>) {
    let mut keyed: Vec<(usize, Renderable)> = r
        .drain(..)
        .map(|t| (memchr::memchr_iter(b'/', t.name.as_bytes()).count(), t))
        .collect();
    keyed.sort_by(|(da, a), (db, b)| {
        db.cmp(da)
            .then_with(|| b.name.as_bytes().cmp(a.name.as_bytes()))
    });
    r.extend(keyed.into_iter().map(|(_, t)| t));
}

/// CRD files of the chart and its enabled subcharts (`CRDObjects`). They are read
/// on first use (see `loader::read_at_load`); when they will be printed (`read`)
/// they are read here, so that one that cannot be read fails the render with the
/// load error Helm gives, instead of printing empty.
fn crd_objects(
    node: &Node,
    path: &str,
    read: bool,
    out: &mut Vec<CrdFile>,
) -> Result<(), ChartError> {
    for f in &node.chart.files {
        let lower = f.name.to_ascii_lowercase();
        if f.name.starts_with("crds/")
            && (lower.ends_with(".yaml") || lower.ends_with(".yml") || lower.ends_with(".json"))
        {
            if read {
                f.read().map_err(ChartError::load)?;
            }
            out.push(CrdFile::new(format!("{path}/{}", f.name), f.clone()));
        }
    }
    for d in &node.deps {
        crd_objects(d, &format!("{path}/charts/{}", d.name), read, out)?;
    }
    Ok(())
}

/// An empty template set as Helm's renderer starts it: its function table, its Go
/// version's language, missing keys printing as zero values.
fn new_set(helm: HelmVersion) -> TemplateSet {
    let level = match helm {
        HelmVersion::V3 => LanguageLevel::Go122,
        HelmVersion::V4 => LanguageLevel::Go127,
    };
    TemplateSet::new(
        "gotpl",
        registry(helm),
        Options::new(level, MissingKey::Zero),
    )
}

type SetCache = Mutex<HashMap<(HelmVersion, String), Arc<TemplateSet>>>;

/// The parsed template set for this tree shape, cached on the root chart so
/// rendering the same chart again (other values) skips parsing.
fn template_set(
    helm: HelmVersion,
    root: &Chart,
    tpls: &[Renderable],
    pre: Option<&PreParse>,
) -> Result<Arc<TemplateSet>, ChartError> {
    let cache = root
        .cache
        .get_or_init(|| Arc::new(SetCache::default()) as Arc<dyn std::any::Any + Send + Sync>)
        .clone();
    let cache = cache.downcast_ref::<SetCache>();
    let key: String = tpls
        .iter()
        .map(|t| t.name.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    if let Some(c) = cache {
        if let Ok(map) = c.lock() {
            if let Some(s) = map.get(&(helm, key.clone())) {
                return Ok(s.clone());
            }
        }
    }
    let mut set = new_set(helm);
    // Files parse independently; only adding them to the set is ordered (a later
    // `define` replaces an earlier one), and the first failing file in order is the
    // error reported, as when parsing one by one.
    let parse = |t: &Renderable| set.parse_detached(&t.name, t.source.clone());
    let items: Vec<(&str, &SourceFile)> =
        tpls.iter().map(|t| (t.name.as_str(), &t.source)).collect();
    let early = pre.and_then(|p| {
        p.parse_all(&items, |name, source| {
            set.parse_detached(name, source.clone())
        })
    });
    let parsed: Vec<_> = if let Some(early) = early {
        early
    } else if worth_parallel(tpls.iter().map(|t| t.source.text().len())) {
        pool::map_shared(tpls, parse)
    } else {
        tpls.iter().map(parse).collect()
    };
    for (t, p) in tpls.iter().zip(parsed) {
        match p {
            Ok(p) => {
                set.add_parsed(&t.name, &p);
            }
            Err(e) => {
                let mut err = ChartError::render(errors::parse_error(&t.name, &e));
                if let (Some(src), Some(span)) = (e.source.clone(), e.span) {
                    err = err.with_location(src, span);
                }
                return Err(err);
            }
        }
    }
    let set = Arc::new(set);
    if let Some(c) = cache {
        if let Ok(mut map) = c.lock() {
            map.insert((helm, key), set.clone());
        }
    }
    Ok(set)
}

type Origins = (Vec<KeyOrigin>, Vec<(String, usize)>);

/// For Helm's `YAML parse error on FILE: ...`: the template position that wrote the
/// spot where the first unparsable document of FILE goes wrong.
fn yaml_error_origin(
    helm: HelmVersion,
    message: &str,
    traces: &HashMap<String, TracedOutput>,
) -> Option<(SourceFile, crate::source::Span)> {
    let rest = message.strip_prefix("YAML parse error on ")?;
    let (file, _) = rest.split_once(": ")?;
    let trace = traces.get(file)?;
    let docs = manifest::split_manifests(helm, &trace.text);
    let texts: Vec<&str> = docs.iter().map(String::as_str).collect();
    for (doc, at) in texts.iter().zip(trace.find_documents(&texts)) {
        if let Err(e) = yamlio::decode_helm_spanned(doc) {
            let off = e.map_or(0, |s| s.start as usize);
            return trace.source_at(at? + off);
        }
    }
    None
}

/// Key origins of every output document (manifests, then hooks), found by locating
/// each document in its file's traced output: the documents of one file appear in
/// it in `index_in_file` order.
fn document_origins(sorted: &Sorted, traces: &HashMap<String, TracedOutput>) -> Vec<Origins> {
    let all: Vec<&manifest::Manifest> =
        sorted.manifests.iter().chain(sorted.hooks.iter()).collect();
    let mut by_file: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, m) in all.iter().enumerate() {
        by_file.entry(m.path.as_str()).or_default().push(i);
    }
    let mut out: Vec<Origins> = vec![(Vec::new(), Vec::new()); all.len()];
    let mut lines = LineCache::default();
    for (file, mut idx) in by_file {
        let Some(trace) = traces.get(file) else {
            continue;
        };
        idx.sort_by_key(|&i| all[i].index_in_file);
        let texts: Vec<&str> = idx.iter().map(|&i| all[i].content.as_str()).collect();
        for (&i, at) in idx.iter().zip(trace.find_documents(&texts)) {
            if let Some(at) = at {
                out[i] = trace.key_origins_with(file, &all[i].content, at, &mut lines);
            }
        }
    }
    out
}

/// The output documents with their origins, manifests then hooks.
fn documents(sorted: &Sorted, traces: &HashMap<String, TracedOutput>) -> Vec<Document> {
    let origins = document_origins(sorted, traces);
    sorted
        .manifests
        .iter()
        .chain(sorted.hooks.iter())
        .zip(origins)
        .map(|(m, (key_origins, key_lines))| Document {
            source: m.path.clone(),
            kind: m.head.kind.clone(),
            api_version: m.head.api_version.clone(),
            name: m.head.name.clone(),
            key_lines,
            key_origins,
            content: m.content.to_string(),
            hook: m.hook_events.clone(),
            index_in_file: m.index_in_file,
            body: OnceLock::new(),
        })
        .collect()
}

/// Renders a loaded chart like `helm template`.
pub fn render(chart: &Arc<Chart>, opts: &RenderOptions, vfs: &Vfs) -> Result<Rendered, ChartError> {
    let user = opts.values.merge(vfs, opts.helm).map_err(|e| {
        let mut err = ChartError::new(Phase::Values, e);
        locate::values_error(vfs, &mut err);
        err
    })?;
    render_with_values(chart, opts, user, vfs)
}

/// Loads the chart at `path` and renders it; errors in Helm's order (values before
/// the chart).
pub fn render_path(path: &Path, opts: &RenderOptions, vfs: &Vfs) -> Result<Rendered, ChartError> {
    render_path_with(path, opts, vfs, Ok)
}

/// [`render_path`] with a step between loading the chart and rendering it, where
/// Helm's `--dependency-update` runs.
pub fn render_path_with(
    path: &Path,
    opts: &RenderOptions,
    vfs: &Vfs,
    prepare: impl FnOnce(Arc<Chart>) -> Result<Arc<Chart>, ChartError>,
) -> Result<Rendered, ChartError> {
    let user = opts.values.merge(vfs, opts.helm).map_err(|e| {
        let mut err = ChartError::new(Phase::Values, e);
        locate::values_error(vfs, &mut err);
        err
    })?;
    // Templates parse on the pool while the load goes on (see `preparse`), and so
    // do the checks of a large schema need no values; the pool starts before the
    // load when the chart's own schema says it will be wanted.
    if !opts.skip_schema_validation
        && vfs
            .file_len(&path.join("values.schema.json"))
            .is_some_and(|n| worth_a_worker(usize::try_from(n).unwrap_or(usize::MAX)))
    {
        pool::warm();
    }
    let mut pre = PreParse::new(new_set(opts.helm));
    if !opts.skip_schema_validation {
        pre = pre.with_schemas(opts.helm);
    }
    let chart = load_for_render(path, opts, vfs, Some(&pre))?;
    let chart = prepare(chart)?;
    render_with(&chart, opts, user, vfs, Some(&pre))
}

fn load_for_render(
    path: &Path,
    opts: &RenderOptions,
    vfs: &Vfs,
    observer: Option<&dyn LoadObserver>,
) -> Result<Arc<Chart>, ChartError> {
    Chart::load_observed(path, vfs, observer).map_err(|e| {
        let mut err = version_load_error(opts.helm, e);
        locate::load_error(path, vfs, &mut err);
        err
    })
}

/// Helm 4 decodes `Chart.yaml` through a path that loses the struct name in Go's
/// type errors (`Go struct field .version`), names the document step of
/// `values.yaml` errors and says `error unpacking subchart`; the loader words them
/// like Helm 3.
fn version_load_error(helm: HelmVersion, mut e: ChartError) -> ChartError {
    if helm == HelmVersion::V4 {
        // Helm 4 reads values.yaml document by document and names that step.
        const VALUES: &str = "cannot load values.yaml: ";
        const STEP: &str = "cannot unmarshal yaml document: ";
        if let Some(i) = e.message.find(VALUES) {
            let at = i + VALUES.len();
            let rest = &e.message[at..];
            if !rest.starts_with(STEP) && !rest.starts_with("error reading yaml document: ") {
                e.message.insert_str(at, STEP);
            }
        }
        // Helm 4 says which kind of thing it was unpacking.
        e.message = e
            .message
            .replace("error unpacking ", "error unpacking subchart ");
        for s in ["Metadata.", "Dependency.", "Maintainer."] {
            e.message = e.message.replace(
                &format!("into Go struct field {s}"),
                "into Go struct field .",
            );
        }
    }
    e
}

/// The files that may have set a value, most decisive first: user values files
/// (the last one wins), then each chart's `values.yaml` from the root down, with the
/// subchart keys its content sits under.
fn values_candidates(
    opts: &RenderOptions,
    root: &Node,
    vfs: &Vfs,
) -> Vec<(SourceFile, Vec<String>)> {
    let mut out = Vec::new();
    for src in opts.values.files.iter().rev() {
        let file = match src {
            ValuesSource::File(p) => locate::values_source(vfs, p),
            ValuesSource::Text { name, text } => {
                Some(SourceFile::new(name.as_str(), text.as_str()))
            }
            ValuesSource::Map { .. } => None,
        };
        out.extend(file.map(|f| (f, Vec::new())));
    }
    fn charts(node: &Node, under: Vec<String>, out: &mut Vec<(SourceFile, Vec<String>)>) {
        if let Some(f) = &node.chart.values_file {
            let name = node.chart.origin.join(&f.name).display().to_string();
            out.push((SourceFile::new(name, f.shared_text()), under.clone()));
        }
        for d in &node.deps {
            let mut u = under.clone();
            u.push(d.name.clone());
            charts(d, u, out);
        }
    }
    charts(root, Vec::new(), &mut out);
    out
}

/// Helm 4 reads every document of a chart's `values.yaml` (Helm 3 the first only,
/// which is what the loader keeps): re-read the charts whose file has more than one.
/// Errors are worded like the loader's (Helm 3's), for [`version_load_error`].
fn helm4_values(node: &mut Node) -> Result<(), String> {
    if let Some(f) = &node.chart.values_file {
        let text = f.text();
        if yamlio::has_document_separator(&text) {
            node.values = yamlio::decode_values_docs(&text)
                .map_err(|e| format!("cannot load values.yaml: {e}"))?;
        }
    }
    let parent = node.chart.metadata.name.clone();
    for d in &mut node.deps {
        helm4_values(d).map_err(|e| {
            let dir = d
                .chart
                .origin
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| d.chart.metadata.name.clone());
            format!("error unpacking {dir} in {parent}: {e}")
        })?;
    }
    Ok(())
}

/// The labels Helm's storage driver sets on a release itself.
const SYSTEM_LABELS: [&str; 6] = [
    "name",
    "owner",
    "status",
    "version",
    "createdAt",
    "modifiedAt",
];

/// Helm's `ValidateReleaseName`: a DNS-1123 subdomain of at most 53 characters.
fn check_release_name(helm: HelmVersion, name: &str) -> Result<(), ChartError> {
    let label_ok = |l: &str| {
        let b = l.as_bytes();
        !b.is_empty()
            && b.iter()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
            && b[0] != b'-'
            && b[b.len() - 1] != b'-'
    };
    if !name.is_empty() && name.len() <= 53 && name.split('.').all(label_ok) {
        return Ok(());
    }
    // Helm keeps a separate message for the empty name.
    let why = if name.is_empty() {
        "no name provided"
    } else {
        "invalid release name, must match regex ^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$ and the length must not be longer than 53"
    };
    let inner = format!("release name {}: {why}", crate::template::fmt::quote(name));
    Err(match helm {
        HelmVersion::V3 => ChartError::new(Phase::Prepare, inner),
        HelmVersion::V4 => {
            // Helm 4 logs the failure, then returns it wrapped.
            let mut e = ChartError::new(
                Phase::Prepare,
                format!("release name check failed: {inner}"),
            );
            e.log = Some(format!(
                "level=ERROR msg=\"release name check failed\" error={}",
                crate::template::fmt::quote(&inner)
            ));
            e
        }
    })
}

/// Renders with already merged user values.
pub fn render_with_values(
    chart: &Arc<Chart>,
    opts: &RenderOptions,
    user: Map,
    vfs: &Vfs,
) -> Result<Rendered, ChartError> {
    render_with(chart, opts, user, vfs, None)
}

/// [`render_with_values`], taking template parses from `pre` where it has them.
fn render_with(
    chart: &Arc<Chart>,
    opts: &RenderOptions,
    user: Map,
    vfs: &Vfs,
    pre: Option<&PreParse>,
) -> Result<Rendered, ChartError> {
    let mut warnings = Vec::new();
    render_logging(chart, opts, user, vfs, pre, &mut warnings).map_err(|mut err| {
        // Helm has logged these by the time it fails (the deprecation notice, the
        // coalescing warnings), so they come before its error too.
        if !warnings.is_empty() {
            let mut lines = warnings.join("\n");
            if let Some(later) = err.log.take() {
                lines.push('\n');
                lines.push_str(&later);
            }
            err.log = Some(lines);
        }
        err
    })
}

/// What rendering starts from once the values are known: the values as the
/// templates see them, the templates in rendering order with their top-level
/// objects, and their parsed set.
struct Prepared {
    values: Map,
    tpls: Vec<Renderable>,
    set: Arc<TemplateSet>,
}

/// Helm's checks between the values and rendering (`--labels`, the chart's
/// `kubeVersion`), then the templates' objects and parse. Reads the values without
/// changing them, so it can run while the schemas are checked.
fn prepare_templates(
    helm: HelmVersion,
    chart: &Chart,
    opts: &RenderOptions,
    caps: &Capabilities,
    root: &Node,
    values: &Map,
    pre: Option<&PreParse>,
) -> Result<Prepared, ChartError> {
    let md = &chart.metadata;
    let values = values.retyped(values_type(helm));
    // Helm checks `--labels` when it builds the release, after the values (and
    // before rendering): a reserved name fails even though template prints no
    // release record.
    if opts.release_checks
        && opts
            .labels
            .iter()
            .any(|(k, _)| SYSTEM_LABELS.contains(&k.as_str()))
    {
        let supplied = match helm {
            HelmVersion::V3 => "suplied",
            HelmVersion::V4 => "supplied",
        };
        return Err(ChartError::new(
            Phase::Prepare,
            format!(
                "user {supplied} labels contains system reserved label name. System labels: [{}]",
                SYSTEM_LABELS.join(" ")
            ),
        ));
    }

    if !md.kube_version.is_empty()
        && !is_compatible_range(
            &md.kube_version,
            caps.kube_version.for_constraints(),
            helm.semver_lib(),
        )
    {
        return Err(ChartError::render(format!(
            "chart requires kubeVersion: {} which is incompatible with Kubernetes {}",
            md.kube_version, caps.kube_version.version
        )));
    }

    let top = Map::new();
    top.insert("Capabilities", caps.to_value());
    top.insert(
        "Release",
        release_map(&opts.release_name, &opts.namespace, opts.is_upgrade, 1),
    );
    top.insert("Values", Value::Map(values.clone()));
    let mut tpls = Vec::new();
    collect(helm, root, None, &top, &mut tpls);
    sort_templates(&mut tpls);
    let set = template_set(helm, chart, &tpls, pre)?;
    Ok(Prepared { values, tpls, set })
}

/// The size of every `values.schema.json` in the render tree.
fn schema_bytes(node: &Node) -> usize {
    node.chart.schema.as_ref().map_or(0, |s| s.bytes().len())
        + node.deps.iter().map(schema_bytes).sum::<usize>()
}

/// Whether schemas of this size are worth a worker's time beside the template
/// parse: a small one is checked before the pool could start.
pub(super) fn worth_a_worker(schema_bytes: usize) -> bool {
    const MIN_BYTES: usize = 16 * 1024;
    schema_bytes >= MIN_BYTES && super::may_spread()
}

/// The render proper; `warnings` collects what Helm logs on the way, in order.
fn render_logging(
    chart: &Arc<Chart>,
    opts: &RenderOptions,
    user: Map,
    vfs: &Vfs,
    pre: Option<&PreParse>,
    warnings: &mut Vec<String>,
) -> Result<Rendered, ChartError> {
    let helm = opts.helm;
    // Helm 4's loader picks a chart format by the root's `apiVersion` first:
    // `v3` is a format it knows but does not load here, anything else but `v1`
    // and `v2` none it knows.
    if helm == HelmVersion::V4 {
        match chart.metadata.api_version.as_str() {
            "" | "v1" | "v2" => {}
            "v3" => return Err(ChartError::load("invalid chart apiVersion".to_string())),
            _ => return Err(ChartError::load("unsupported chart version".to_string())),
        }
    }
    // Helm 4 fails on later values.yaml documents while loading, before any check.
    let mut root = Node::new(chart);
    if helm == HelmVersion::V4 {
        helm4_values(&mut root).map_err(|e| {
            let mut err = version_load_error(helm, ChartError::load(e));
            locate::load_error(&chart.origin, vfs, &mut err);
            err
        })?;
    }
    let md = &chart.metadata;
    if !matches!(md.chart_type.as_str(), "" | "application") {
        return Err(ChartError::new(
            Phase::Prepare,
            format!("{} charts are not installable", md.chart_type),
        ));
    }
    if md.deprecated {
        warnings.push(match helm {
            HelmVersion::V3 => "WARNING: This chart is deprecated".to_string(),
            HelmVersion::V4 => "level=WARN msg=\"this chart is deprecated\"".to_string(),
        });
    }
    if let Some(reqs) = &md.dependencies {
        let missing: Vec<&str> = reqs
            .iter()
            .filter(|r| !chart.dependencies.iter().any(|d| d.name() == r.name))
            .map(|r| r.name.as_str())
            .collect();
        if !missing.is_empty() {
            let lead = match helm {
                HelmVersion::V3 => "An error occurred while checking for chart dependencies. You may need to run `helm dependency build` to fetch missing dependencies",
                HelmVersion::V4 => "an error occurred while checking for chart dependencies. You may need to run 'helm dependency build' to fetch missing dependencies",
            };
            let mut err = ChartError::new(
                Phase::Prepare,
                format!(
                    "{lead}: found in Chart.yaml, but missing in charts/ directory: {}",
                    missing.join(", ")
                ),
            );
            err.location = locate::missing_dependency(&chart.origin, vfs, missing[0]);
            return Err(err);
        }
    }
    if opts.release_checks {
        check_release_name(helm, &opts.release_name)?;
    }
    let mut w = Warnings::default();
    process_dependencies(helm, &mut root, &user, &mut w)
        .map_err(|e| ChartError::new(Phase::Prepare, e))?;

    let kube_version = match opts.kube_version.as_ref().filter(|k| !k.is_empty()) {
        Some(k) => Some(KubeVersion::parse(k, helm).map_err(|e| {
            ChartError::new(Phase::Prepare, format!("invalid kube version '{k}': {e}"))
        })?),
        None => None,
    };
    let caps = Capabilities::new(helm, kube_version, &opts.api_versions);
    let values = coalesce_chart(helm, &root, &user, false, &mut w)
        .map_err(|e| ChartError::new(Phase::Prepare, e))?;
    // Helm checks the values against the charts' schemas before anything below,
    // so a schema failure is the error whatever else would fail. The check only
    // reads the values, as does everything up to the templates' parse, so when the
    // schemas are large enough to be worth it a worker validates while this thread
    // goes on, and the schemas' verdict is looked at first.
    let check_schema = !opts.skip_schema_validation;
    let validate = || {
        if !check_schema {
            return Ok(Vec::new());
        }
        schema::validate_tree_at(helm, &root, &values)?;
        // Helm downloads a schema's remote `$ref`s; stackproof reads nothing over
        // the network, so the values pass unchecked against them.
        Ok(schema::remote_refs_tree(&root))
    };
    let prepare = || prepare_templates(helm, chart, opts, &caps, &root, &values, pre);
    let (checked, prepared) = if check_schema && worth_a_worker(schema_bytes(&root)) {
        let (checked, prepared) = pool::beside(validate, prepare);
        (checked, Some(prepared))
    } else {
        (validate(), None)
    };
    match checked {
        Err((e, path)) => {
            let mut err = ChartError::new(
                Phase::Prepare,
                format!(
                    "values don't meet the specifications of the schema(s) in the following chart(s):\n{e}"
                ),
            );
            // A schema Helm refuses outright has no value to point at.
            err.location = path.and_then(|path| {
                locate::schema_violation(&values_candidates(opts, &root, vfs), &path)
            });
            return Err(err);
        }
        // Saying so keeps a passing render from claiming more than was checked.
        Ok(remote) => warnings.extend(remote.into_iter().map(|(chart, r)| {
            format!(
                "WARNING: {chart}: values.schema.json refers to {r}, which stackproof does not download: values were not checked against it"
            )
        })),
    }
    warnings.extend(w.lines(helm));
    let Prepared { values, tpls, set } = match prepared {
        Some(prepared) => prepared?,
        None => prepare()?,
    };

    let mut host = Host::with(opts.seed, opts.now);
    host.vfs = vfs.clone();
    host.allow_dns = opts.enable_dns;
    let mut traces: HashMap<String, TracedOutput> = HashMap::new();
    let mut ahead = manifest::HeadsAhead::new(helm);
    for t in &tpls {
        let base = t.name.rsplit('/').next().unwrap_or(&t.name);
        if base.starts_with('_') {
            continue;
        }
        let tmpl = Map::with_type(values_type(helm));
        tmpl.insert("Name", Value::str(t.name.as_str()));
        tmpl.insert("BasePath", Value::str(t.base_path.as_str()));
        t.dot.insert("Template", Value::Map(tmpl));
        match set.execute_traced(&t.name, &Value::Map(t.dot.clone()), &host) {
            Ok((out, emits)) => {
                let traced = TracedOutput::new(out, emits);
                ahead.offer(&t.name, &traced.text);
                traces.insert(t.name.clone(), traced);
            }
            Err(e) => {
                let mut err = ChartError::render(errors::exec_error(helm, &t.name, &e));
                let inner = e.innermost();
                if let (Some(src), Some(span)) = (inner.source.clone(), inner.span) {
                    err = err.with_location(src, span);
                }
                return Err(err);
            }
        }
    }

    let root_notes = format!("{}/templates/NOTES.txt", root.name);
    let notes = traces.get(&root_notes).map(|t| String::clone(&t.text));
    // Sorting puts the files in path order, whatever order they come in.
    let files: Vec<(&str, &Arc<String>)> = traces
        .iter()
        .filter(|(k, _)| !k.ends_with("NOTES.txt"))
        .map(|(k, t)| (k.as_str(), &t.text))
        .collect();
    let sorted = manifest::sort_manifests(helm, &files, Some(&ahead)).map_err(|e| {
        let mut err = ChartError::render(e);
        err.location = yaml_error_origin(helm, &err.message, &traces);
        // Helm hands the rendered files back for `--debug` to print. It walks a Go
        // map, so its order varies between runs; path order is one of them.
        let mut files: Vec<&(&str, &Arc<String>)> = files.iter().collect();
        files.sort_by(|a, b| a.0.cmp(b.0));
        let mut blob = String::new();
        for (name, content) in files {
            if !manifest::trim_space(content).is_empty() {
                blob.push_str(&format!("---\n# Source: {name}\n{content}\n"));
            }
        }
        err.debug_manifest = Some(blob);
        err
    })?;
    warnings.extend(sorted.logs.iter().cloned());
    let mut crds = Vec::new();
    crd_objects(&root, &root.name, opts.include_crds, &mut crds)?;

    Ok(Rendered {
        helm,
        documents: OnceLock::new(),
        traces,
        crds,
        notes,
        values,
        warnings: std::mem::take(warnings),
        sorted,
        print: opts.print_options(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crds_are_read_when_printed_and_a_lost_one_fails_the_render() {
        let dir = std::env::temp_dir().join(format!("stackproof-crds-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("templates")).expect("dir");
        std::fs::create_dir_all(dir.join("crds")).expect("dir");
        let write = |rel: &str, text: &str| std::fs::write(dir.join(rel), text).expect("write");
        write("Chart.yaml", "apiVersion: v2\nname: c\nversion: 1.0.0\n");
        write("templates/cm.yaml", "kind: ConfigMap\n");
        write("crds/c.yaml", "kind: CustomResourceDefinition\n");
        let vfs = Vfs::real();
        let chart = Chart::load(&dir, &vfs).expect("loads");
        let with_crds = RenderOptions {
            include_crds: true,
            ..RenderOptions::default()
        };
        let out = render(&chart, &with_crds, &vfs)
            .and_then(|r| r.helm_output())
            .expect("renders");
        assert!(
            out.contains("# Source: c/crds/c.yaml\nkind: CustomResourceDefinition"),
            "{out}"
        );

        // Removed after the load: printing it fails as Helm's load would have;
        // a render that does not print CRDs never reads it.
        let chart = Chart::load(&dir, &vfs).expect("loads");
        std::fs::remove_file(dir.join("crds/c.yaml")).expect("remove");
        let err = render(&chart, &with_crds, &vfs).err().expect("fails");
        assert!(
            err.message.starts_with("error reading crds/c.yaml"),
            "{}",
            err.message
        );
        assert!(render(&chart, &RenderOptions::default(), &vfs).is_ok());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn release_name_checks_as_helm() {
        let msg = |name: &str| {
            check_release_name(HelmVersion::V3, name)
                .err()
                .map(|e| e.message)
        };
        assert_eq!(msg("a.b-1"), None);
        assert_eq!(msg(&"a".repeat(53)), None);
        assert_eq!(
            msg("").as_deref(),
            Some("release name \"\": no name provided")
        );
        for bad in ["Upper", "a_b", "-a", "a-", "a..b", &"a".repeat(54)] {
            assert!(
                msg(bad).is_some_and(|m| m.contains("invalid release name, must match regex")),
                "{bad}"
            );
        }
        let v4 = check_release_name(HelmVersion::V4, "")
            .err()
            .map(|e| e.message);
        assert_eq!(
            v4.as_deref(),
            Some("release name check failed: release name \"\": no name provided")
        );
    }
}
