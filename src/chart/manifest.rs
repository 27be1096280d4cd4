//! From rendered template files to `helm template`'s output: splitting files into
//! YAML documents, reading each document's head (kind, name, hook annotations),
//! separating hooks, ordering by kind, and framing with `# Source:` headers.
//!
//! Every step has version-specific quirks that show in the bytes (Helm 3's splitter
//! regex `(?:^|\s*\n)---\s*` on trimmed text versus Helm 4's `(?m)^---[ \t]*`;
//! Helm 4 keeping trailing whitespace; Helm 4's longer kind list), so the splitters
//! are hand-written equivalents of those regexes rather than a YAML stream parser.

use super::loader::ChartFile;
use super::pool::Ahead;
use super::yamlio;
use super::HelmVersion;
use crate::source::{Memo, Text};
use crate::template::Value;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

/// Kinds in Helm's install order; unknown kinds sort after these.
const INSTALL_ORDER: &[&str] = &[
    "PriorityClass",
    "Namespace",
    "NetworkPolicy",
    "ResourceQuota",
    "LimitRange",
    "PodSecurityPolicy",
    "PodDisruptionBudget",
    "ServiceAccount",
    "Secret",
    "SecretList",
    "ConfigMap",
    "StorageClass",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "CustomResourceDefinition",
    "ClusterRole",
    "ClusterRoleList",
    "ClusterRoleBinding",
    "ClusterRoleBindingList",
    "Role",
    "RoleList",
    "RoleBinding",
    "RoleBindingList",
    "Service",
    "DaemonSet",
    "Pod",
    "ReplicationController",
    "ReplicaSet",
    "Deployment",
    "HorizontalPodAutoscaler",
    "StatefulSet",
    "Job",
    "CronJob",
    "IngressClass",
    "Ingress",
    "APIService",
    // Helm 4 only:
    "MutatingWebhookConfiguration",
    "ValidatingWebhookConfiguration",
];

fn kind_rank(helm: HelmVersion, kind: &str) -> Option<usize> {
    let n = match helm {
        HelmVersion::V3 => INSTALL_ORDER.len() - 2,
        HelmVersion::V4 => INSTALL_ORDER.len(),
    };
    INSTALL_ORDER[..n].iter().position(|k| *k == kind)
}

/// Helm's `lessByKind`.
fn less_by_kind(helm: HelmVersion, a: &str, b: &str) -> bool {
    match (kind_rank(helm, a), kind_rank(helm, b)) {
        (None, None) => a < b,
        (None, Some(_)) => false,
        (Some(_), None) => true,
        (Some(x), Some(y)) => x < y,
    }
}

/// Stable sort by kind, as `sort.SliceStable` with `lessByKind`.
pub fn sort_by_kind<T>(helm: HelmVersion, items: &mut [T], kind: impl Fn(&T) -> &str) {
    items.sort_by(|x, y| {
        let (a, b) = (kind(x), kind(y));
        if less_by_kind(helm, a, b) {
            std::cmp::Ordering::Less
        } else if less_by_kind(helm, b, a) {
            std::cmp::Ordering::Greater
        } else {
            std::cmp::Ordering::Equal
        }
    });
}

/// Go's `strings.TrimSpace` (ASCII whitespace plus Unicode spaces).
pub fn trim_space(s: &str) -> &str {
    s.trim_matches(|c: char| c.is_whitespace())
}

fn trim_left_space(s: &str) -> &str {
    s.trim_start_matches(|c: char| c.is_whitespace())
}

/// Byte ranges of the separators Helm 3's regex `(?:^|\s*\n)---\s*` finds.
/// (`\s` in Go's RE2 is `[\t\n\f\r ]`.) Apart from a `---` at the very start, a
/// match is a `\n---` together with the whitespace run that ends in its newline, so
/// the search jumps from one `\n---` to the next.
fn v3_separators(s: &[u8]) -> Vec<(usize, usize)> {
    let re_space = |b: u8| matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ');
    let skip_space = |mut i: usize| {
        while i < s.len() && re_space(s[i]) {
            i += 1;
        }
        i
    };
    let mut out = Vec::new();
    let mut pos = 0;
    if s.starts_with(b"---") {
        let end = skip_space(3);
        out.push((0, end));
        pos = end;
    }
    for n in memchr::memmem::find_iter(s, b"\n---") {
        if n < pos {
            continue;
        }
        let mut start = n;
        while start > pos && re_space(s[start - 1]) {
            start -= 1;
        }
        let end = skip_space(n + 4);
        out.push((start, end));
        pos = end;
    }
    out
}

/// Byte ranges of the separators Helm 4's regex `(?m)^---[ \t]*` finds: only line
/// starts can match, so the search visits the newlines.
fn v4_separators(s: &[u8]) -> Vec<(usize, usize)> {
    let at = |i: usize| -> Option<usize> {
        if !s[i..].starts_with(b"---") {
            return None;
        }
        let mut j = i + 3;
        while j < s.len() && matches!(s[j], b' ' | b'\t') {
            j += 1;
        }
        Some(j)
    };
    let mut out = Vec::new();
    let starts = std::iter::once(0).chain(memchr::memchr_iter(b'\n', s).map(|n| n + 1));
    for i in starts.filter(|&i| i < s.len()) {
        if let Some(j) = at(i) {
            out.push((i, j));
        }
    }
    out
}

/// Go's `Regexp.Split(s, -1)` given the match ranges.
fn split_at<'a>(s: &'a str, seps: &[(usize, usize)]) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut beg = 0;
    let mut end = 0;
    for &(a, b) in seps {
        end = a;
        if b != 0 {
            out.push(&s[beg..end]);
        }
        beg = b;
    }
    if end != s.len() {
        out.push(&s[beg..]);
    }
    out
}

/// `releaseutil.SplitManifests` (v3) / `util.SplitManifests` (v4): the documents of
/// one rendered file, in order, empty ones dropped.
pub fn split_manifests(helm: HelmVersion, big: &str) -> Vec<String> {
    split_slices(helm, big)
        .into_iter()
        .map(str::to_string)
        .collect()
}

/// [`split_manifests`] as stretches of `big`.
fn split_slices(helm: HelmVersion, big: &str) -> Vec<&str> {
    match helm {
        HelmVersion::V3 => {
            let t = trim_space(big);
            let seps = v3_separators(t.as_bytes());
            split_at(t, &seps)
                .into_iter()
                .filter(|d| !d.is_empty())
                .map(trim_space)
                .collect()
        }
        HelmVersion::V4 => {
            let t = trim_left_space(big);
            let seps = v4_separators(t.as_bytes());
            split_at(t, &seps)
                .into_iter()
                .filter(|d| !trim_space(d).is_empty())
                .map(trim_left_space)
                .collect()
        }
    }
}

/// [`split_manifests`] of a rendered file, each document a [`DocText`] of it.
pub fn split_shared(helm: HelmVersion, file: &Arc<String>) -> Vec<DocText> {
    split_slices(helm, file)
        .into_iter()
        .map(|d| DocText::within(file, d))
        .collect()
}

/// A document's text: the stretch of the rendered file it was split from, shared
/// with that file's output rather than copied. A chart's documents are most of its
/// output (megabytes of CRDs), and each copy is fresh memory the kernel zeroes.
#[derive(Clone)]
pub struct DocText {
    file: Arc<String>,
    start: usize,
    end: usize,
}

impl DocText {
    /// The stretch `part` of `file`; a `part` from elsewhere is kept as a copy.
    fn within(file: &Arc<String>, part: &str) -> DocText {
        let start = (part.as_ptr() as usize).wrapping_sub(file.as_ptr() as usize);
        let end = start.wrapping_add(part.len());
        if file.get(start..end).is_some_and(|s| std::ptr::eq(s, part)) {
            return DocText {
                file: Arc::clone(file),
                start,
                end,
            };
        }
        DocText::from(part.to_string())
    }

    pub fn as_str(&self) -> &str {
        self.file.get(self.start..self.end).unwrap_or_default()
    }
}

impl From<String> for DocText {
    fn from(s: String) -> DocText {
        let end = s.len();
        DocText {
            file: Arc::new(s),
            start: 0,
            end,
        }
    }
}

impl std::ops::Deref for DocText {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl std::fmt::Debug for DocText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

impl std::fmt::Display for DocText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq for DocText {
    fn eq(&self, other: &DocText) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for DocText {}

/// The hook events Helm knows (`helm.sh/hook` values, lower-cased).
const HOOK_EVENTS: &[&str] = &[
    "pre-install",
    "post-install",
    "pre-delete",
    "post-delete",
    "pre-upgrade",
    "post-upgrade",
    "pre-rollback",
    "post-rollback",
    "test",
    "test-success",
];

/// What Helm reads from each document (`SimpleHead`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Head {
    pub api_version: String,
    pub kind: String,
    pub name: String,
    /// `None` when there is no `metadata` (or it is null).
    pub annotations: Option<Vec<(String, String)>>,
}

fn field<'a>(entries: &'a [(String, Value)], name: &str) -> Option<&'a Value> {
    entries
        .iter()
        .find(|(k, _)| k == name)
        .or_else(|| entries.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)))
        .map(|(_, v)| v)
}

/// A scalar as `sigs.k8s.io/yaml` coerces it into a Go string field.
fn coerce_string(v: &Value, path: &str, helm: HelmVersion) -> Result<String, String> {
    match v {
        Value::Nil => Ok(String::new()),
        Value::String(s) => Ok(s.to_string()),
        Value::Bool(b) => Ok(b.to_string()),
        Value::Int(i, _) => Ok(i.to_string()),
        Value::Uint(u, _) => Ok(u.to_string()),
        Value::Float(f) => Ok(format_float32_g(*f)),
        // Go names the struct that holds the field: `SimpleHead` for its own
        // fields, nothing for those of its anonymous `metadata` struct.
        other => Err(format!(
            "json: cannot unmarshal {} into Go struct field {}.{path} of type string",
            yamlio::json_kind(other),
            if path.contains('.') || helm == HelmVersion::V4 {
                ""
            } else {
                simple_head_type(helm)
                    .rsplit('.')
                    .next()
                    .unwrap_or("SimpleHead")
            }
        )),
    }
}

fn format_float32_g(f: f64) -> String {
    // Same conversion as Chart.yaml string fields.
    let v = Value::Float(f);
    super::metadata::coerce_for_string_field(&v)
}

fn simple_head_type(helm: HelmVersion) -> &'static str {
    match helm {
        HelmVersion::V3 => "releaseutil.SimpleHead",
        HelmVersion::V4 => "util.SimpleHead",
    }
}

/// Decodes a document's head like `yaml.Unmarshal(doc, &SimpleHead{})`. Errors are
/// the text after `YAML parse error on FILE: `.
pub fn parse_head(helm: HelmVersion, doc: &str) -> Result<Head, String> {
    // A matrix renders the same documents in many cells; the head is what is worth
    // keeping, not the decoded document (CRD bundles decode to tens of megabytes).
    static HEADS: Memo<(HelmVersion, String), Result<Head, String>> = Memo::for_repeats(8192);
    const MEMO_MIN_LEN: usize = 256;
    if doc.len() < MEMO_MIN_LEN || !HEADS.active() {
        return decode_head(helm, doc);
    }
    let key = (helm, doc.to_string());
    if let Some(hit) = HEADS.get(&key) {
        return hit;
    }
    let out = decode_head(helm, doc);
    HEADS.insert(key, out.clone());
    out
}

/// The top-level fields the head is read from, matched as `encoding/json` matches
/// struct fields (an exact name, else any case).
fn head_field(key: &str) -> bool {
    ["apiVersion", "kind", "metadata"]
        .iter()
        .any(|f| key.eq_ignore_ascii_case(f))
}

fn decode_head(helm: HelmVersion, doc: &str) -> Result<Head, String> {
    // Only the head's fields are decoded when the rest of the document cannot
    // change the outcome (a CRD bundle is megabytes of schema around three fields);
    // `head_decodes_like_the_full_document` checks that on fixtures and mutations.
    let v = match yamlio::decode_typed_top(doc, head_field)? {
        Some(v) => v,
        None => yamlio::decode_typed_once(doc)?,
    };
    head_from_value(helm, &v)
}

fn head_from_value(helm: HelmVersion, v: &Value) -> Result<Head, String> {
    let entries = match v {
        Value::Nil => return Ok(Head::default()),
        Value::Map(m) => m.entries(),
        other => {
            return Err(format!(
                "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal {} into Go value of type {}",
                yamlio::json_kind(other),
                simple_head_type(helm)
            ))
        }
    };
    let wrap = |e: String| format!("error unmarshaling JSON: while decoding JSON: {e}");
    let mut head = Head::default();
    if let Some(x) = field(&entries, "apiVersion") {
        head.api_version = coerce_string(x, "apiVersion", helm).map_err(wrap)?;
    }
    if let Some(x) = field(&entries, "kind") {
        head.kind = coerce_string(x, "kind", helm).map_err(wrap)?;
    }
    match field(&entries, "metadata") {
        None | Some(Value::Nil) => {}
        Some(Value::Map(md)) => {
            let md = md.entries();
            if let Some(x) = field(&md, "name") {
                head.name = coerce_string(x, "metadata.name", helm).map_err(wrap)?;
            }
            match field(&md, "annotations") {
                None | Some(Value::Nil) => head.annotations = Some(Vec::new()),
                Some(Value::Map(a)) => {
                    let mut out = Vec::new();
                    for (k, v) in a.entries() {
                        // Helm 4's Go names the map key in the path too.
                        let at = match helm {
                            HelmVersion::V3 => "metadata.annotations".to_string(),
                            HelmVersion::V4 => format!("metadata.annotations.{k}"),
                        };
                        let text = coerce_string(&v, &at, helm).map_err(wrap)?;
                        out.push((k, text));
                    }
                    head.annotations = Some(out);
                }
                Some(other) => {
                    return Err(wrap(format!(
                        "json: cannot unmarshal {} into Go struct field .metadata.annotations of type map[string]string",
                        yamlio::json_kind(other)
                    )))
                }
            }
        }
        Some(other) => {
            return Err(wrap(format!(
                "json: cannot unmarshal {} into Go struct field {}.metadata of type struct {{ Name string \"json:\\\"name\\\"\"; Annotations map[string]string \"json:\\\"annotations\\\"\" }}",
                yamlio::json_kind(other),
                match helm {
                    HelmVersion::V3 => simple_head_type(helm).rsplit('.').next().unwrap_or("SimpleHead"),
                    HelmVersion::V4 => "",
                }
            )))
        }
    }
    Ok(head)
}

impl Head {
    fn annotation(&self, key: &str) -> Option<&str> {
        self.annotations
            .as_ref()?
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// One regular manifest or hook, in output order.
#[derive(Clone, Debug)]
pub struct Manifest {
    /// The template path (`chart/templates/x.yaml`).
    pub path: String,
    /// The document text as Helm prints it.
    pub content: DocText,
    pub head: Head,
    /// Hook events, for hooks.
    pub hook_events: Option<Vec<String>>,
    /// Index of the document within its file.
    pub index_in_file: usize,
}

impl Manifest {
    pub fn is_test_hook(&self) -> bool {
        self.hook_events
            .as_ref()
            .is_some_and(|e| e.iter().any(|x| x == "test" || x == "test-success"))
    }
}

/// The result of `SortManifests`.
#[derive(Default, Debug)]
pub struct Sorted {
    pub manifests: Vec<Manifest>,
    pub hooks: Vec<Manifest>,
    /// Info lines Helm logs (unknown hooks).
    pub logs: Vec<String>,
}

/// `SortManifests`: files in path order, split, heads parsed, hooks separated, both
/// lists stably sorted by kind. `files` are `(path, rendered text)`.
/// The documents and heads of rendered files, split and decoded on the pool while
/// the render's thread goes on with the next templates, for [`sort_manifests`] to
/// take instead of doing that work after the last template. Only when threads are
/// already running (a small chart's render stays on one thread), and only for the
/// very text that is sorted in the end.
pub struct HeadsAhead {
    helm: HelmVersion,
    files: HashMap<String, Early>,
}

type SplitHeads = Vec<(DocText, Result<Head, String>)>;

struct Early {
    text: Arc<String>,
    split: Arc<Ahead<SplitHeads>>,
}

impl HeadsAhead {
    pub fn new(helm: HelmVersion) -> HeadsAhead {
        HeadsAhead {
            helm,
            files: HashMap::new(),
        }
    }

    /// Has the file at `path` with this content split and decoded ahead, if it is
    /// one that is sorted and a pool is running.
    pub fn offer(&mut self, path: &str, content: &Arc<String>) {
        let base = path.rsplit('/').next().unwrap_or(path);
        if base.starts_with('_')
            || path.ends_with("NOTES.txt")
            || !super::may_spread()
            || !super::pool::running()
            || trim_space(content).is_empty()
        {
            return;
        }
        let helm = self.helm;
        let mine = Arc::clone(content);
        let split = Ahead::start(move || {
            split_shared(helm, &mine)
                .into_iter()
                .map(|doc| {
                    let head = parse_head(helm, &doc);
                    (doc, head)
                })
                .collect()
        });
        let text = Arc::clone(content);
        self.files.insert(path.to_string(), Early { text, split });
    }

    /// The split and heads of `path`, when worked out ahead for this content.
    fn take(&self, path: &str, content: &Arc<String>) -> Option<SplitHeads> {
        let early = self.files.get(path)?;
        // The render hands over the very text it offered, so the pointer settles it
        // without comparing megabytes; equal text elsewhere counts the same.
        let same = Arc::ptr_eq(&early.text, content) || early.text == *content;
        if !same {
            return None;
        }
        early.split.take()
    }
}

pub fn sort_manifests(
    helm: HelmVersion,
    files: &[(&str, &Arc<String>)],
    ahead: Option<&HeadsAhead>,
) -> Result<Sorted, String> {
    let mut order: Vec<&(&str, &Arc<String>)> = files.iter().collect();
    order.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let mut docs: Vec<(&str, usize, DocText)> = Vec::new();
    let mut heads: Vec<Option<Result<Head, String>>> = Vec::new();
    for &(path, content) in order {
        let base = path.rsplit('/').next().unwrap_or(path);
        if base.starts_with('_') || trim_space(content).is_empty() {
            continue;
        }
        if let Some(split) = ahead.and_then(|a| a.take(path, content)) {
            for (idx, (doc, head)) in split.into_iter().enumerate() {
                docs.push((path, idx, doc));
                heads.push(Some(head));
            }
            continue;
        }
        for (idx, doc) in split_shared(helm, content).into_iter().enumerate() {
            docs.push((path, idx, doc));
            heads.push(None);
        }
    }
    // Heads decode independently (a chart's CRDs make this most of the sorting);
    // the first failing document in order is the error, as when decoding in turn.
    let todo: Vec<usize> = (0..docs.len()).filter(|&i| heads[i].is_none()).collect();
    let head = |&i: &usize| parse_head(helm, &docs[i].2);
    let decoded: Vec<_> = if super::worth_parallel(todo.iter().map(|&i| docs[i].2.len())) {
        super::pool::map_shared(&todo, head)
    } else {
        todo.iter().map(head).collect()
    };
    for (i, h) in todo.into_iter().zip(decoded) {
        heads[i] = Some(h);
    }
    // Every head is known by now; decoding one again is only the type's way out.
    let heads: Vec<Result<Head, String>> = heads
        .into_iter()
        .zip(&docs)
        .map(|(h, d)| h.unwrap_or_else(|| parse_head(helm, &d.2)))
        .collect();
    let mut out = Sorted::default();
    for ((path, idx, doc), head) in docs.into_iter().zip(heads) {
        let head = head.map_err(|e| format!("YAML parse error on {path}: {e}"))?;
        let has_annotations = head.annotations.as_ref().is_some_and(|a| !a.is_empty());
        let hook_types = if has_annotations {
            head.annotation("helm.sh/hook").map(str::to_string)
        } else {
            None
        };
        let Some(hook_types) = hook_types else {
            out.manifests.push(Manifest {
                path: path.to_string(),
                content: doc,
                head,
                hook_events: None,
                index_in_file: idx,
            });
            continue;
        };
        let mut events = Vec::new();
        let mut unknown = false;
        for t in hook_types.split(',') {
            let t = t.trim().to_lowercase();
            if !HOOK_EVENTS.contains(&t.as_str()) {
                unknown = true;
                break;
            }
            events.push(t);
        }
        if unknown {
            out.logs.push(match helm {
                HelmVersion::V3 => format!(
                    "manifest_sorter.go:192: info: skipping unknown hook: {}",
                    crate::template::fmt::quote(&hook_types)
                ),
                HelmVersion::V4 => {
                    format!(
                        "level=INFO msg=\"skipping unknown hooks\" hookTypes={}",
                        super::coalesce::slog_text(&hook_types)
                    )
                }
            });
            continue;
        }
        out.hooks.push(Manifest {
            path: path.to_string(),
            content: doc,
            head,
            hook_events: Some(events),
            index_in_file: idx,
        });
    }
    sort_by_kind(helm, &mut out.hooks, |m| m.head.kind.as_str());
    sort_by_kind(helm, &mut out.manifests, |m| m.head.kind.as_str());
    Ok(out)
}

/// A CRD file printed by `--include-crds`. Its content is read on first use (see
/// `loader::read_at_load`): a render without that flag never needs it, and one
/// with it reads every CRD before it succeeds (`render::crd_objects`), so a file
/// that cannot be read is that render's error rather than an empty document.
#[derive(Clone, Debug)]
pub struct CrdFile {
    pub path: String,
    file: ChartFile,
    text: Arc<OnceLock<Text>>,
}

impl CrdFile {
    pub fn new(path: String, file: ChartFile) -> CrdFile {
        CrdFile {
            path,
            file,
            text: Arc::default(),
        }
    }

    /// The file's text, as the chart's other files read (invalid UTF-8 kept as
    /// Go keeps it).
    pub fn content(&self) -> &str {
        self.text.get_or_init(|| self.file.shared_text())
    }
}

/// Output options that shape the printed bytes.
#[derive(Clone, Debug, Default)]
pub struct PrintOptions {
    pub include_crds: bool,
    pub no_hooks: bool,
    pub skip_tests: bool,
    pub show_only: Vec<String>,
    /// Run on the manifests (CRDs included, hooks not) before they are printed.
    pub post_renderer: Option<super::postrender::PostRenderer>,
}

/// Why [`print`] printed nothing.
#[derive(Debug, PartialEq, Eq)]
pub enum PrintError {
    /// A `--show-only` pattern matched no template.
    ShowOnly(String),
    /// The post-renderer failed (Helm's words after `error while running post
    /// render on files: `).
    PostRender(String),
}

/// `helm template`'s stdout for a sorted render. Fails like Helm when a
/// `--show-only` pattern matches nothing or the post-renderer fails.
pub fn print(
    helm: HelmVersion,
    sorted: &Sorted,
    crds: &[CrdFile],
    opts: &PrintOptions,
) -> Result<String, PrintError> {
    // Charts of CRD bundles print megabytes: size the buffers once and write each
    // document straight into them.
    fn push_doc(out: &mut String, path: &str, content: &str) {
        out.push_str("---\n# Source: ");
        out.push_str(path);
        out.push('\n');
        out.push_str(content);
        out.push('\n');
    }
    let size = |path: &str, content: &str| path.len() + content.len() + 16;
    let crds: &[CrdFile] = if opts.include_crds { crds } else { &[] };
    let hooks: Vec<&Manifest> = if opts.no_hooks {
        Vec::new()
    } else {
        sorted
            .hooks
            .iter()
            .filter(|h| !(opts.skip_tests && h.is_test_hook()))
            .collect()
    };
    let body = crds
        .iter()
        .map(|c| size(&c.path, c.content()))
        .sum::<usize>()
        + sorted
            .manifests
            .iter()
            .map(|m| size(&m.path, &m.content))
            .sum::<usize>();
    let tail = hooks
        .iter()
        .map(|h| size(&h.path, &h.content))
        .sum::<usize>();
    // Without a post-renderer the hooks follow in the same buffer: a second one
    // would copy the whole output once more.
    let mut manifest = String::with_capacity(body + tail + 1);
    for c in crds {
        push_doc(&mut manifest, &c.path, c.content());
    }
    for m in &sorted.manifests {
        push_doc(&mut manifest, &m.path, &m.content);
    }
    let mut all = match &opts.post_renderer {
        // Helm hands the post-renderer the release manifest as assembled, before it
        // trims it, and prints whatever comes back in its place.
        Some(pr) => {
            let back = pr.run(&manifest).map_err(PrintError::PostRender)?;
            let back = trim_space(&back);
            let mut all = String::with_capacity(back.len() + tail + 1);
            all.push_str(back);
            all
        }
        // What was assembled starts with `---` (or is empty), so trimming it only
        // cuts its end.
        None => {
            let keep = trim_space(&manifest).len();
            manifest.truncate(keep);
            manifest
        }
    };
    all.push('\n');
    for h in hooks {
        push_doc(&mut all, &h.path, &h.content);
    }
    if opts.show_only.is_empty() {
        return Ok(all);
    }
    select_shown(helm, &all, &opts.show_only).map_err(PrintError::ShowOnly)
}

/// `--show-only`: the documents of `all` rendered from templates matching each
/// pattern in turn; fails like Helm when a pattern matches nothing.
pub fn select_shown(helm: HelmVersion, all: &str, patterns: &[String]) -> Result<String, String> {
    let docs = split_manifests(helm, all);
    let mut out = String::new();
    for pattern in patterns {
        let mut missing = true;
        for d in &docs {
            let Some(name) = source_path(d) else { continue };
            if !super::glob::path_match(pattern, name).unwrap_or(false) {
                continue;
            }
            out.push_str(&format!("---\n{d}\n"));
            missing = false;
        }
        if missing {
            return Err(format!("could not find template {pattern} in chart"));
        }
    }
    Ok(out)
}

/// One file write of `helm template --output-dir`, in Helm's order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputWrite {
    /// The file, spelled as Helm prints it after `wrote ` (the directory and the
    /// source joined with `/`, not cleaned).
    pub path: String,
    /// The document's `# Source:` path.
    pub source: String,
    pub content: String,
    /// Hooks are appended to a file that already exists, even one left by an
    /// earlier run (Helm asks the file system); other documents only to a file this
    /// run has written (Helm keeps a record by source path).
    pub hook: bool,
}

impl OutputWrite {
    /// The bytes one write adds to its file (the same framing as on stdout).
    pub fn text(&self) -> String {
        format!("---\n# Source: {}\n{}\n", self.source, self.content)
    }
}

/// What `helm template --output-dir DIR` writes instead of printing: CRDs (with
/// `--include-crds`) under `dir`, then regular manifests in install order, then
/// hooks (unless `--no-hooks`; test hooks left out with `--skip-tests`), both under
/// `release_dir` (`DIR/NAME` with `--release-name`, else `dir`). `--show-only`
/// plays no part here: Helm applies it to the (then empty) printed text.
pub fn output_dir_writes(
    sorted: &Sorted,
    crds: &[CrdFile],
    opts: &PrintOptions,
    dir: &str,
    release_dir: &str,
) -> Vec<OutputWrite> {
    let mut out = Vec::new();
    if opts.include_crds {
        for c in crds {
            out.push(OutputWrite {
                path: format!("{dir}/{}", c.path),
                source: c.path.clone(),
                content: c.content().to_string(),
                hook: false,
            });
        }
    }
    for m in &sorted.manifests {
        out.push(OutputWrite {
            path: format!("{release_dir}/{}", m.path),
            source: m.path.clone(),
            content: m.content.to_string(),
            hook: false,
        });
    }
    if !opts.no_hooks {
        for h in sorted
            .hooks
            .iter()
            .filter(|h| !(opts.skip_tests && h.is_test_hook()))
        {
            out.push(OutputWrite {
                path: format!("{release_dir}/{}", h.path),
                source: h.path.clone(),
                content: h.content.to_string(),
                hook: true,
            });
        }
    }
    out
}

/// The path after the chart name in the first `# Source: chart/path` of a document
/// (regex `# Source: [^/]+/(.+)`).
fn source_path(doc: &str) -> Option<&str> {
    let mut from = 0;
    while let Some(i) = doc[from..].find("# Source: ") {
        let start = from + i + "# Source: ".len();
        let rest = &doc[start..];
        let slash = rest.find('/')?;
        if slash == 0 {
            from = start;
            continue;
        }
        let after = &rest[slash + 1..];
        let line = after.split('\n').next().unwrap_or("");
        if line.is_empty() {
            from = start;
            continue;
        }
        return Some(line);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heads_worked_out_ahead_sort_as_heads_decoded_after() {
        fn pairs(files: &[(String, String)]) -> Vec<(&str, Arc<String>)> {
            files
                .iter()
                .map(|(p, c)| (p.as_str(), Arc::new(c.clone())))
                .collect()
        }
        fn refs<'a>(files: &'a [(&'a str, Arc<String>)]) -> Vec<(&'a str, &'a Arc<String>)> {
            files.iter().map(|(p, c)| (*p, c)).collect()
        }
        let files: Vec<(String, String)> = vec![
            ("c/templates/b.yaml".into(), "kind: Service\nmetadata:\n  name: b\n---\nkind: Deployment\nmetadata:\n  name: b2\n".into()),
            ("c/templates/a.yaml".into(), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n    helm.sh/hook: pre-install\n".into()),
            ("c/templates/_h.tpl".into(), "kind: Secret\n".into()),
            ("c/templates/NOTES.txt".into(), "kind: Secret\n".into()),
            ("c/templates/empty.yaml".into(), "  \n".into()),
        ];
        let show = |r: Result<Sorted, String>| match r {
            Ok(s) => s
                .manifests
                .iter()
                .chain(&s.hooks)
                .map(|m| {
                    format!(
                        "{} {} {} {:?}",
                        m.path, m.head.kind, m.content, m.hook_events
                    )
                })
                .collect::<Vec<_>>()
                .join("\n"),
            Err(e) => format!("error: {e}"),
        };
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .expect("a test pool");
        for helm in [HelmVersion::V3, HelmVersion::V4] {
            let after = show(sort_manifests(helm, &refs(&pairs(&files)), None));
            // Offered with the same text, with other text (a stale offer, which
            // must not be used), and not at all.
            let ahead = pool.install(|| {
                let mut ahead = HeadsAhead::new(helm);
                for (i, (path, content)) in files.iter().enumerate() {
                    match i {
                        0 => ahead.offer(path, &Arc::new("kind: Stale\n".to_string())),
                        1 => {}
                        _ => ahead.offer(path, &Arc::new(content.clone())),
                    }
                }
                ahead.offer("c/templates/a.yaml", &Arc::new(files[1].1.clone()));
                ahead
            });
            assert!(ahead.files.contains_key("c/templates/b.yaml"));
            assert!(!ahead.files.contains_key("c/templates/NOTES.txt"));
            assert_eq!(
                show(sort_manifests(helm, &refs(&pairs(&files)), Some(&ahead))),
                after
            );
            // The first bad document in path order is the error either way.
            let mut bad = files.clone();
            bad[0].1 = "kind: [\n".into();
            bad[1].1 = "kind: {\n".into();
            let want = show(sort_manifests(helm, &refs(&pairs(&bad)), None));
            assert!(
                want.starts_with("error: YAML parse error on c/templates/a.yaml"),
                "{want}"
            );
            let ahead = pool.install(|| {
                let mut ahead = HeadsAhead::new(helm);
                for (path, content) in &bad {
                    ahead.offer(path, &Arc::new(content.clone()));
                }
                ahead
            });
            assert_eq!(
                show(sort_manifests(helm, &refs(&pairs(&bad)), Some(&ahead))),
                want
            );
        }
    }

    /// Documents of every YAML file under `dir` (split where a line is `---`).
    fn documents_under(dir: &std::path::Path, out: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut paths: Vec<_> = entries.flatten().map(|e| e.path()).collect();
        paths.sort();
        for p in paths {
            if p.is_dir() {
                documents_under(&p, out);
                continue;
            }
            let yaml = p
                .extension()
                .is_some_and(|x| x == "yaml" || x == "yml" || x == "tpl");
            if let (true, Ok(text)) = (yaml, std::fs::read_to_string(&p)) {
                out.extend(text.split("\n---").map(str::to_string));
            }
        }
    }

    /// The pruned head decode gives what decoding the whole document gives (the
    /// same head or the same error, in both Helm modes) on every document of the
    /// repository's fixtures, each also with lines added at its top and its end
    /// that defeat pruning (anchors, aliases, tags, merge keys, null and complex
    /// keys, non-finite floats), that change the head (other cases of the field
    /// names) or that break the syntax; with ../shared present, also on every
    /// manifest Helm rendered for the corpus.
    #[test]
    fn head_decodes_like_the_full_document() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut docs = Vec::new();
        documents_under(&root.join("charts-under-test"), &mut docs);
        documents_under(&root.join("testdata"), &mut docs);
        let extras = [
            "x: &a 1\ny: *a\n",
            "z: !!str 5\n",
            "w: .nan\n",
            "v: -.Inf\n",
            "~: 1\n",
            ": 1\n",
            "<<: {q: 1}\n",
            "? [a]\n: 1\n",
            "big:\n  18446744073709551615: 1\n",
            "Kind: Other\n",
            "METADATA: {name: m}\n",
            "apiversion: 7\n",
            "metadata:\n  name: [1]\n",
            "s: [1, 2\n",
            "t: \"unterminated\n",
            "u: {a: 1}}\n",
            "  bad: indent\n",
            "\t- tab\n",
        ];
        let mut cases = Vec::new();
        for d in &docs {
            cases.push(d.clone());
            if d.len() <= 16 * 1024 {
                for x in extras {
                    cases.push(format!("{x}{d}"));
                    cases.push(format!("{d}\n{x}"));
                }
            }
        }
        if let Some(shared) = std::env::var_os("STACKPROOF_SHARED") {
            let before = cases.len();
            let mut corpus = Vec::new();
            documents_under(
                &std::path::Path::new(&shared).join("corpus/expected/helm-v3.15.3"),
                &mut corpus,
            );
            cases.extend(corpus);
            eprintln!("head check: {} corpus documents", cases.len() - before);
        } else {
            eprintln!("head check: STACKPROOF_SHARED not set, corpus manifests skipped");
        }
        let (mut pruned, mut full, mut skimmed) = (0, 0, 0);
        for doc in &cases {
            skimmed += usize::from(
                crate::funcs::codec::yaml::skim_kept_entries(doc, head_field).is_some(),
            );
            match yamlio::decode_typed_top(doc, head_field) {
                Ok(Some(_)) => pruned += 1,
                Ok(None) => full += 1,
                Err(_) => {}
            }
            for helm in [HelmVersion::V3, HelmVersion::V4] {
                let want = yamlio::decode_typed_once(doc).and_then(|v| head_from_value(helm, &v));
                assert_eq!(decode_head(helm, doc), want, "{doc}");
            }
        }
        eprintln!(
            "head check: {} documents, {pruned} decoded pruned, {full} in full, {skimmed} skimmed",
            cases.len()
        );
        assert!(docs.len() > 300, "{} fixture documents", docs.len());
        // Both ways are taken often: the check is not vacuous either way. (Counts, not
        // shares: without the corpus, whose manifests mostly prune, the fixtures alone
        // prune about a fifth.)
        assert!(pruned > 3000, "{pruned} pruned of {}", cases.len());
        assert!(full > 1000, "{full} fell back of {}", cases.len());
    }

    /// Documents near the edge of what the line-level head reader vouches for
    /// (`yaml::skim`): every fixture document (and, with ../shared present, every
    /// corpus and NVCF manifest) with one line changed at a time
    /// (indented one space more or less, moved to column 0, cut short, doubled,
    /// joined to the next, or given a character that means something to YAML) still
    /// gives the head or the error the whole document gives, in both Helm modes.
    #[test]
    fn head_survives_line_mutations() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut docs = Vec::new();
        documents_under(&root.join("charts-under-test"), &mut docs);
        documents_under(&root.join("testdata"), &mut docs);
        if let Some(shared) = std::env::var_os("STACKPROOF_SHARED") {
            let shared = std::path::Path::new(&shared);
            documents_under(&shared.join("corpus/expected/helm-v3.15.3"), &mut docs);
            documents_under(&shared.join("nvcf/expected"), &mut docs);
        }
        // More rounds for a longer search: STACKPROOF_HEAD_MUTATIONS=200.
        let rounds: usize = std::env::var("STACKPROOF_HEAD_MUTATIONS")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(6);
        const INSERTS: [&str; 22] = [
            ":", ": ", " #", "#", "\"", "'", "\t", "- ", "-", "{", "[", "}", "&a ", "*a", "!t ",
            "|", ">", "? ", "%", "`", "\\x", "  ",
        ];
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n.max(1) as u64) as usize
        };
        let (mut cases, mut skimmed, mut skimmed_errors) = (0, 0, 0);
        for doc in docs.iter().filter(|d| d.len() <= 8 * 1024) {
            let original: Vec<&str> = doc.split_inclusive('\n').collect();
            if original.is_empty() {
                continue;
            }
            for _ in 0..rounds {
                // One change, or now and then two on different lines.
                let mut lines: Vec<String> = original.iter().map(|l| l.to_string()).collect();
                for _ in 0..1 + usize::from(next(3) == 0) {
                    let i = next(lines.len());
                    let line = lines[i].clone();
                    let body = line.trim_end_matches('\n');
                    let nl = &line[body.len()..];
                    let at = {
                        let cut = next(body.len() + 1);
                        (0..=cut)
                            .rev()
                            .find(|&c| body.is_char_boundary(c))
                            .unwrap_or(0)
                    };
                    lines[i] = match next(8) {
                        0 => format!(" {line}"),
                        1 => line.strip_prefix(' ').unwrap_or(&line).to_string(),
                        2 => line.trim_start_matches(' ').to_string(),
                        3 => format!("{}{nl}", &body[..at]),
                        4 => format!("{line}{line}"),
                        5 => body.to_string(),
                        _ => {
                            let insert = INSERTS[next(INSERTS.len())];
                            format!("{}{insert}{}{nl}", &body[..at], &body[at..])
                        }
                    };
                }
                let text = lines.concat();
                cases += 1;
                let full = yamlio::decode_typed_once(&text);
                if crate::funcs::codec::yaml::skim_kept_entries(&text, head_field).is_some() {
                    skimmed += 1;
                    skimmed_errors += usize::from(full.is_err());
                }
                for helm in [HelmVersion::V3, HelmVersion::V4] {
                    let want = full.clone().and_then(|v| head_from_value(helm, &v));
                    assert_eq!(decode_head(helm, &text), want, "{text}");
                }
            }
        }
        eprintln!("head mutations: {cases} documents, {skimmed} skimmed ({skimmed_errors} of them errors in full)");
        assert!(cases > 3000, "{cases} mutated documents");
        assert!(skimmed > 1000, "{skimmed} of {cases} skimmed");
    }

    /// The separator searches as first written (a byte-by-byte regex walk), kept to
    /// check the jumping versions against.
    fn v3_reference(s: &[u8]) -> Vec<(usize, usize)> {
        let re_space = |b: u8| matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ');
        let skip_space = |mut i: usize| {
            while i < s.len() && re_space(s[i]) {
                i += 1;
            }
            i
        };
        let mut out = Vec::new();
        let mut pos = 0;
        while pos <= s.len() {
            let mut found = None;
            let mut i = pos;
            while i < s.len() {
                if i == 0 && s.starts_with(b"---") {
                    found = Some((0, skip_space(3)));
                    break;
                }
                if re_space(s[i]) {
                    let j = skip_space(i);
                    if j > i && s[j - 1] == b'\n' && s[j..].starts_with(b"---") {
                        found = Some((i, skip_space(j + 3)));
                        break;
                    }
                    i = j;
                    continue;
                }
                i += 1;
            }
            match found {
                Some((a, b)) => {
                    out.push((a, b));
                    pos = b.max(a + 1);
                }
                None => break,
            }
        }
        out
    }

    fn v4_reference(s: &[u8]) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < s.len() {
            let at_line_start = i == 0 || s[i - 1] == b'\n';
            if at_line_start && s[i..].starts_with(b"---") {
                let mut j = i + 3;
                while j < s.len() && matches!(s[j], b' ' | b'\t') {
                    j += 1;
                }
                out.push((i, j));
                i = j.max(i + 1);
                continue;
            }
            i += 1;
        }
        out
    }

    #[test]
    fn separator_searches_agree_with_the_regex_walk() {
        // Every string of up to 5 symbols over an alphabet rich in separator parts,
        // plus a few longer documents.
        let alphabet: &[&str] = &["-", "---", "\n", " ", "\t", "\r", "a", "\x0c"];
        let mut cases: Vec<String> = vec![String::new()];
        let mut frontier = cases.clone();
        for _ in 0..5 {
            let mut next = Vec::new();
            for c in &frontier {
                for a in alphabet {
                    next.push(format!("{c}{a}"));
                }
            }
            cases.extend(next.iter().cloned());
            frontier = next;
        }
        cases.push("---\na: 1\n---\n\n  ---  \nb: 2\n \n---\n---\nc: 3\n---".to_string());
        cases.push("# x\n \t\n---a\n--- \t\r\n---".to_string());
        for c in &cases {
            assert_eq!(
                v3_separators(c.as_bytes()),
                v3_reference(c.as_bytes()),
                "v3 {c:?}"
            );
            assert_eq!(
                v4_separators(c.as_bytes()),
                v4_reference(c.as_bytes()),
                "v4 {c:?}"
            );
        }
    }

    #[test]
    fn v3_split_quirks() {
        let v3 = |s: &str| split_manifests(HelmVersion::V3, s);
        assert_eq!(v3("a: 1\n---\nb: 2\n"), ["a: 1", "b: 2"]);
        assert_eq!(v3("---\na: 1\n--- # c\nb: 2"), ["a: 1", "# c\nb: 2"]);
        assert_eq!(v3("---\n   \n---\nkind: Secret"), ["---\nkind: Secret"]);
        assert_eq!(v3("a: |\n    ---\n  x"), ["a: |\n    ---\n  x"]);
        assert_eq!(v3("a: 1\n---apiVersion: v1"), ["a: 1", "apiVersion: v1"]);
        assert!(v3("  \n").is_empty());
    }

    #[test]
    fn v4_split_keeps_trailing_space() {
        let v4 = |s: &str| split_manifests(HelmVersion::V4, s);
        assert_eq!(v4("a: 1\n\n---\nb: 2\n"), ["a: 1\n\n", "b: 2\n"]);
        assert_eq!(v4("---\n   \n---\nkind: Secret"), ["kind: Secret"]);
        assert_eq!(v4("x: 1\r\n---\r\ny: 2"), ["x: 1\r\n", "y: 2"]);
    }

    #[test]
    fn kind_order() {
        let mut v = vec![
            "Zebra",
            "Deployment",
            "",
            "Namespace",
            "MutatingWebhookConfiguration",
            "Apple",
        ];
        sort_by_kind(HelmVersion::V3, &mut v, |s| s);
        assert_eq!(
            v,
            [
                "Namespace",
                "Deployment",
                "",
                "Apple",
                "MutatingWebhookConfiguration",
                "Zebra"
            ]
        );
        sort_by_kind(HelmVersion::V4, &mut v, |s| s);
        assert_eq!(
            v,
            [
                "Namespace",
                "Deployment",
                "MutatingWebhookConfiguration",
                "",
                "Apple",
                "Zebra"
            ]
        );
    }

    #[test]
    fn source_regex() {
        assert_eq!(
            source_path("# Source: c/templates/x.yaml\na: 1"),
            Some("templates/x.yaml")
        );
        assert_eq!(source_path("a: 1"), None);
    }

    #[test]
    fn shared_documents_are_the_split_documents_without_copies() {
        let file = Arc::new("\n---\na: 1\n---\n\n---\nb: 2\n  \n--- # x\nc: 3\n".to_string());
        for helm in [HelmVersion::V3, HelmVersion::V4] {
            let shared = split_shared(helm, &file);
            let copied = split_manifests(helm, &file);
            assert_eq!(
                shared.iter().map(|d| d.as_str()).collect::<Vec<_>>(),
                copied.iter().map(String::as_str).collect::<Vec<_>>()
            );
            for d in &shared {
                assert!(Arc::ptr_eq(&d.file, &file), "{d:?} was copied");
            }
        }
        // A stretch of some other text is kept as a copy.
        let elsewhere = DocText::within(&file, "a: 1");
        assert!(!Arc::ptr_eq(&elsewhere.file, &file));
        assert_eq!(elsewhere.as_str(), "a: 1");
    }
}
