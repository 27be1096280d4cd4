//! Loading a chart from a directory or a `.tgz` archive into memory, as Helm's
//! `loader` package does.
//!
//! Helm first collects a flat list of `(relative path, bytes)` — a directory walk in
//! name order filtered by `.helmignore`, or the entries of an archive with its top
//! folder removed — and then sorts that list into Chart.yaml, values, schema,
//! templates, plain files and subcharts. Both steps are reproduced because their
//! details are visible: `.Files` holds exactly the files Helm keeps, subcharts in
//! `charts/` may be folders or archives, names starting with `_` or `.` in `charts/`
//! are skipped, and errors name the file the way Helm does. All reads go through the
//! read-only [`Vfs`].
//!
//! Unlike Helm, a directory load does not read every file up front. Most files of a
//! real chart (changelogs, tests, CI values, READMEs) are reachable only through
//! `.Files`, and most renders never ask for them, so reading them is most of the
//! load's system calls. A file whose content the loader or the renderer needs (see
//! [`read_at_load`]) is read at load; any other is read on its first use through
//! the same [`Vfs`] (overlays included), once for every copy of the chart. Helm fails
//! the load when a file cannot be read; so does this loader whenever that can be
//! told without reading ([`Vfs::may_read`]: the file's mode bits against this
//! process's credentials), by reading such a file at load. What remains different:
//! a file that stops being readable (or is removed) between the load and its first
//! use, or whose read is refused for a reason its mode bits do not show (an ACL, a
//! security module), fails when a template reads it (`.Files.Get` and the other
//! methods report the load error Helm would have given) or reads as empty where Go
//! offers no error (ranging over `.Files`, printing it), instead of failing the load.
//! Archives are decompressed whole in memory, so their files are always read.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, OnceLock};

use super::error::ChartError;
use super::ignore::Rules;
use super::metadata::Metadata;
use super::schema::SchemaFile;
use super::yamlio;
use crate::source::{Bytes, Text, Vfs};
use crate::template::{Map, Value};

/// A file inside a chart, named relative to the chart root with `/` separators.
/// Cloning shares the content (and a postponed read).
#[derive(Clone)]
pub struct ChartFile {
    pub name: String,
    content: Content,
}

#[derive(Clone)]
enum Content {
    Loaded(Bytes),
    /// Read on first use; shared by every copy of the file.
    Deferred(Arc<Deferred>),
}

/// A file of a chart directory that the load did not read.
struct Deferred {
    path: PathBuf,
    vfs: Vfs,
    /// The name the load error gives (relative to the loaded chart's root, which
    /// for a subchart's file is not the name it is known by).
    shown: String,
    data: OnceLock<Result<Bytes, String>>,
}

impl Deferred {
    fn get(&self) -> &Result<Bytes, String> {
        self.data.get_or_init(|| {
            self.vfs
                .read(&self.path)
                .map(strip_bom)
                .map_err(|e| format!("error reading {}: {e}", self.shown))
        })
    }
}

impl ChartFile {
    /// A file with the given bytes, as they are (no byte-order mark is dropped).
    pub fn new(name: impl Into<String>, data: impl Into<Bytes>) -> ChartFile {
        ChartFile {
            name: name.into(),
            content: Content::Loaded(data.into()),
        }
    }

    /// The content, or the error Helm's loader would have failed with had it been
    /// read at load (see the module docs).
    pub fn read(&self) -> Result<&Bytes, String> {
        match &self.content {
            Content::Loaded(data) => Ok(data),
            Content::Deferred(d) => d.get().as_ref().map_err(Clone::clone),
        }
    }

    /// The content; empty for a file read on first use that could not be read, for
    /// callers that have no error to give (every file they see was read at load).
    pub fn data(&self) -> &Bytes {
        static EMPTY: LazyLock<Bytes> = LazyLock::new(|| Bytes::from(&b""[..]));
        self.read().unwrap_or(&EMPTY)
    }

    /// The content as text, borrowed when it is valid UTF-8; bytes that are not stay
    /// raw bytes (see `template::gostr`), as in Go's strings, so the YAML reader and
    /// the template output see them as Helm does.
    pub fn str(&self) -> Cow<'_, str> {
        crate::template::gostr::from_slice(self.data())
    }

    pub fn text(&self) -> String {
        self.str().into_owned()
    }

    /// The text as a [`SourceFile`] holds it. For valid UTF-8 (nearly every
    /// template) that is the very buffer the file was read into: a chart's
    /// templates are often megabytes of CRDs, and a copy of them is fresh pages.
    ///
    /// [`SourceFile`]: crate::source::SourceFile
    pub fn shared_text(&self) -> Text {
        match Text::from_utf8(self.data().clone()) {
            Ok(text) => text,
            Err(data) => Text::from(crate::template::gostr::from_slice(&data).as_ref()),
        }
    }
}

impl std::fmt::Debug for ChartFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut d = f.debug_struct("ChartFile");
        d.field("name", &self.name);
        match &self.content {
            Content::Loaded(data) => d.field("len", &data.len()),
            Content::Deferred(def) => d.field("deferred", &def.path),
        };
        d.finish()
    }
}

/// A loaded chart. Immutable after loading; rendering works on per-render copies of
/// the parts it changes (values, dependency list), so one loaded chart can be
/// rendered many times and from several threads.
pub struct Chart {
    pub metadata: Metadata,
    /// `Chart.lock` / `requirements.lock`, decoded.
    pub lock: Option<Value>,
    pub templates: Vec<ChartFile>,
    /// Every other file Helm keeps (what `.Files` sees), including `crds/`.
    pub files: Vec<ChartFile>,
    /// `values.yaml`, decoded (numbers are float64). Never mutated.
    pub values: Map,
    /// The raw `values.yaml`, when present.
    pub values_file: Option<ChartFile>,
    pub schema: Option<Arc<SchemaFile>>,
    /// Subcharts found in `charts/`, in name order.
    pub dependencies: Vec<Arc<Chart>>,
    /// Where the chart was loaded from (directory, archive, or archive member).
    pub origin: PathBuf,
    /// Cache slot for whatever the renderer derives from the templates once.
    pub(crate) cache: OnceLock<Arc<dyn std::any::Any + Send + Sync>>,
}

impl Chart {
    /// This chart with other metadata and subcharts (a stamped version, dependencies
    /// built as `helm dependency build` would), everything else shared; the copy
    /// starts with an empty render cache.
    pub fn with_parts(&self, metadata: Metadata, dependencies: Vec<Arc<Chart>>) -> Arc<Chart> {
        Arc::new(Chart {
            metadata,
            lock: self.lock.clone(),
            templates: self.templates.clone(),
            files: self.files.clone(),
            values: self.values.clone(),
            values_file: self.values_file.clone(),
            schema: self.schema.clone(),
            dependencies,
            origin: self.origin.clone(),
            cache: OnceLock::new(),
        })
    }
}

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// A file's bytes without a leading UTF-8 byte-order mark (Helm drops it).
fn strip_bom(data: Bytes) -> Bytes {
    if data.starts_with(UTF8_BOM) {
        data.slice_from(UTF8_BOM.len())
    } else {
        data
    }
}

impl std::fmt::Debug for Chart {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Chart")
            .field("name", &self.metadata.name)
            .field("version", &self.metadata.version)
            .field("origin", &self.origin)
            .field("dependencies", &self.dependencies)
            .finish()
    }
}

impl Chart {
    pub fn name(&self) -> &str {
        &self.metadata.name
    }

    pub fn is_library(&self) -> bool {
        self.metadata.chart_type.eq_ignore_ascii_case("library")
    }

    /// Loads a chart directory or archive, like `loader.Load`.
    pub fn load(path: &Path, vfs: &Vfs) -> Result<Arc<Chart>, ChartError> {
        Chart::load_observed(path, vfs, None)
    }

    /// [`Chart::load`], telling `observer` each chart's templates (the root's and
    /// every subchart's) as soon as they are known, before the rest of that chart
    /// (its values above all) is decoded.
    pub fn load_observed(
        path: &Path,
        vfs: &Vfs,
        observer: Option<&dyn LoadObserver>,
    ) -> Result<Arc<Chart>, ChartError> {
        let seen = observer.map(|o| Observed {
            observer: o,
            parent: None,
        });
        if vfs.is_dir(path) {
            load_dir(path, vfs, seen)
        } else if vfs.is_file(path) {
            load_archive_file(path, vfs, seen)
        } else {
            Err(ChartError::load(format!(
                "stat {}: no such file or directory",
                path.display()
            )))
        }
    }

    /// Loads a chart from in-memory files (paths relative to the chart root).
    pub fn from_files(files: Vec<ChartFile>, origin: PathBuf) -> Result<Arc<Chart>, ChartError> {
        load_files(files, origin, None).map_err(ChartError::load)
    }
}

/// Told about templates while a chart loads, so that a renderer can parse them on
/// another core while the loader decodes `values.yaml` (often the larger job).
pub trait LoadObserver: Sync {
    /// The templates of one chart of the tree. `path` is the chart's template-name
    /// prefix as Helm forms it when no alias renames a subchart (`root`,
    /// `root/charts/sub`); a file's template name is `{path}/{file.name}`. Called
    /// from any thread, once per chart, possibly for a chart whose load then fails.
    fn templates(&self, path: &str, templates: &[ChartFile]);

    /// The `values.schema.json` of one chart of the tree, before the rest of that
    /// chart is decoded.
    fn schema(&self, _schema: &Arc<SchemaFile>) {}
}

/// An observer and the template-name prefix of the chart being loaded's parent.
#[derive(Clone, Copy)]
struct Observed<'o> {
    observer: &'o dyn LoadObserver,
    parent: Option<&'o str>,
}

/// Walks a chart directory in name order, honouring `.helmignore`.
fn load_dir(dir: &Path, vfs: &Vfs, seen: Option<Observed<'_>>) -> Result<Arc<Chart>, ChartError> {
    let mut rules = Rules::empty();
    let ignore_file = dir.join(".helmignore");
    let mut ignore_data = None;
    if vfs.is_file(&ignore_file) {
        let data = vfs
            .read(&ignore_file)
            .map_err(|e| ChartError::load(e.to_string()))?;
        rules = Rules::parse(&String::from_utf8_lossy(&data)).map_err(ChartError::load)?;
        ignore_data = Some(data);
    }
    rules.add_defaults();
    let mut files = Vec::new();
    let walk = Walk {
        vfs,
        rules: &rules,
        ignore_data,
        // Only a load whose templates will be parsed early has work for the pool.
        templates_read: seen.is_some().then(|| std::cell::Cell::new(Some(0))),
    };
    walk.dir(dir, "", &mut files)?;
    load_files(files, dir.to_path_buf(), seen).map_err(ChartError::load)
}

/// Whether the loader or the renderer reads the content of the file at `rel` (a
/// path relative to the loaded chart's root): the files [`load_files`] decodes, the
/// templates, and the archives and `.prov` files directly in `charts/`. A subchart
/// folder's files are judged from its own root. Everything else is only reachable
/// through `.Files`, or, for `crds/`, printed with `--include-crds` only: charts
/// of operators keep megabytes of CRDs there (kube-prometheus-stack 4.7 MB), which
/// a render without that flag never looks at.
fn read_at_load(rel: &str) -> bool {
    let mut rest = rel;
    while let Some(inner) = rest.strip_prefix("charts/") {
        match inner.split_once('/') {
            Some((_, sub)) => rest = sub,
            None => return true,
        }
    }
    matches!(
        rest,
        "Chart.yaml"
            | "Chart.lock"
            | "values.yaml"
            | "values.schema.json"
            | "requirements.yaml"
            | "requirements.lock"
    ) || rest.starts_with("templates/")
}

/// One directory load's walk.
struct Walk<'a> {
    vfs: &'a Vfs,
    rules: &'a Rules,
    /// The top `.helmignore`, already read for its rules.
    ignore_data: Option<Bytes>,
    /// The bytes of templates read so far, until the pool is asked to start
    /// (`None` inside: it was; `None` outside: it will not be).
    templates_read: Option<std::cell::Cell<Option<usize>>>,
}

impl Walk<'_> {
    fn dir(&self, dir: &Path, rel: &str, out: &mut Vec<ChartFile>) -> Result<(), ChartError> {
        let entries = self
            .vfs
            .read_dir(dir)
            .map_err(|e| ChartError::load(e.to_string()))?;
        for e in entries {
            let name = if rel.is_empty() {
                e.name.clone()
            } else {
                format!("{rel}/{}", e.name)
            };
            if e.is_dir {
                if self.rules.ignore(&name, true) {
                    continue;
                }
                self.dir(&e.path, &name, out)?;
                continue;
            }
            if self.rules.ignore(&name, false) {
                continue;
            }
            if !e.is_file {
                return Err(irregular(&e.path));
            }
            let content = match &self.ignore_data {
                Some(data) if name == ".helmignore" => Content::Loaded(strip_bom(data.clone())),
                _ if !read_at_load(&name) && self.vfs.may_read(&e.path) => {
                    Content::Deferred(Arc::new(Deferred {
                        path: e.path,
                        vfs: self.vfs.clone(),
                        shown: name.clone(),
                        data: OnceLock::new(),
                    }))
                }
                _ => {
                    let data = self
                        .vfs
                        .read(&e.path)
                        .map_err(|err| ChartError::load(format!("error reading {name}: {err}")))?;
                    if name.contains("templates/") {
                        self.template_read(data.len());
                    }
                    Content::Loaded(strip_bom(data))
                }
            };
            out.push(ChartFile { name, content });
        }
        Ok(())
    }
}

impl Walk<'_> {
    /// Starts the thread pool as soon as the templates read are enough text to be
    /// parsed on it (see `preparse`), rather than once the whole tree is read: a
    /// worker takes a while to start (its thread, its first heap pages), and the
    /// rest of the walk hides that. Starting it with every `template` run instead
    /// cost a one-template chart about 1 ms of wall time (two threads started for
    /// nothing), and was slower on the corpus too (median per-case wall ratio 0.92
    /// in favour of starting here, quick builds, 3 alternating runs per case).
    fn template_read(&self, len: usize) {
        let Some(cell) = &self.templates_read else {
            return;
        };
        let Some(read) = cell.get() else { return };
        let read = read + len;
        if super::worth_parallel(std::iter::once(read)) {
            super::pool::warm();
            cell.set(None);
        } else {
            cell.set(Some(read));
        }
    }
}

/// The error for a walked entry that is no regular file (nor a link to one).
fn irregular(path: &Path) -> ChartError {
    // A link that resolves nowhere fails Helm's walk before the file check. Helm
    // walks the chart's absolute path (`filepath.Abs`), so both paths of its
    // message are absolute.
    let abs = std::env::current_dir()
        .map(|d| crate::source::normalize(&d.join(path)))
        .unwrap_or_else(|_| path.to_path_buf());
    if let Some(err) = eval_symlinks_error(&abs) {
        return ChartError::load(format!("error evaluating symlink {}: {err}", abs.display()));
    }
    ChartError::load(format!(
        "cannot load irregular file {} as it has file mode type bits set",
        path.display()
    ))
}

/// Why Go's `filepath.EvalSymlinks` fails on `path`, when `path` is a symbolic link
/// on disk that does not resolve (dangling, a loop): the error text Go gives, such as
/// `lstat /charts/config: no such file or directory` for the first missing component
/// of the resolved path. `None` when `path` is no link or resolves.
fn eval_symlinks_error(path: &Path) -> Option<String> {
    use std::os::unix::ffi::OsStrExt;
    let meta = std::fs::symlink_metadata(path).ok()?;
    if !meta.file_type().is_symlink() {
        return None;
    }
    let mut rest = String::from_utf8_lossy(path.as_os_str().as_bytes()).into_owned();
    // Go's walkSymlinks over components, `dest` being the resolved prefix; `root`
    // is 1 when the path is absolute (the leading slash is kept).
    let mut root = usize::from(rest.starts_with('/'));
    let mut dest = rest[..root].to_string();
    let mut start = root;
    let mut links = 0;
    loop {
        let bytes = rest.as_bytes();
        while start < bytes.len() && bytes[start] == b'/' {
            start += 1;
        }
        let mut end = start;
        while end < bytes.len() && bytes[end] != b'/' {
            end += 1;
        }
        if end == start {
            return None;
        }
        let comp = rest[start..end].to_string();
        start = end;
        if comp == "." {
            continue;
        }
        if comp == ".." {
            match dest[root..].rfind('/').map(|i| i + root) {
                Some(r) if &dest[r + 1..] != ".." => dest.truncate(r),
                None if dest.len() > root && dest[root..] != *".." => dest.truncate(root),
                _ => {
                    if dest.len() > root {
                        dest.push('/');
                    }
                    dest.push_str("..");
                }
            }
            continue;
        }
        if dest.len() > root && !dest.ends_with('/') {
            dest.push('/');
        }
        dest.push_str(&comp);
        let meta = match std::fs::symlink_metadata(&dest) {
            Ok(m) => m,
            Err(e) => {
                return Some(format!(
                    "lstat {dest}: {}",
                    crate::source::go_errno_text(&e)
                ))
            }
        };
        if !meta.file_type().is_symlink() {
            if !meta.is_dir() && end < rest.len() {
                return Some("not a directory".to_string());
            }
            continue;
        }
        links += 1;
        if links > 255 {
            return Some("EvalSymlinks: too many links".to_string());
        }
        let link = match std::fs::read_link(&dest) {
            Ok(l) => String::from_utf8_lossy(l.as_os_str().as_bytes()).into_owned(),
            Err(e) => {
                return Some(format!(
                    "readlink {dest}: {}",
                    crate::source::go_errno_text(&e)
                ))
            }
        };
        rest = format!("{link}{}", &rest[end..]);
        if link.starts_with('/') {
            dest = "/".to_string();
            root = 1;
            start = 1;
        } else {
            match dest[root..].rfind('/').map(|i| i + root) {
                Some(r) => dest.truncate(r),
                None => dest.truncate(root),
            }
            start = 0;
        }
    }
}

fn load_archive_file(
    path: &Path,
    vfs: &Vfs,
    seen: Option<Observed<'_>>,
) -> Result<Arc<Chart>, ChartError> {
    let data = vfs
        .read(path)
        .map_err(|e| ChartError::load(e.to_string()))?;
    let name = path.display().to_string();
    if !data.starts_with(b"\x1f\x8b\x08") {
        if name.ends_with(".yml") || name.ends_with(".yaml") {
            return Err(ChartError::load(format!(
                "file '{name}' seems to be a YAML file, but expected a gzipped archive"
            )));
        }
        return Err(ChartError::load(format!(
            "file '{name}' does not appear to be a gzipped archive; got '{}'",
            sniff_content_type(&data)
        )));
    }
    let files = archive_files(&data).map_err(ChartError::load)?;
    load_files(files, path.to_path_buf(), seen).map_err(ChartError::load)
}

/// A rough `http.DetectContentType` for the error message of a non-archive.
fn sniff_content_type(data: &[u8]) -> &'static str {
    if data.is_empty() {
        return "text/plain; charset=utf-8";
    }
    if std::str::from_utf8(&data[..data.len().min(512)]).is_ok() {
        "text/plain; charset=utf-8"
    } else {
        "application/octet-stream"
    }
}

/// What helm says of a chart reference that names nothing on disk (its
/// `LocateChart`): a path (absolute or starting with `.`) is not found; a chart
/// URL or an OCI reference would be downloaded, which stackproof does not do;
/// anything else is `repo/chart`, of which stackproof knows no repository.
pub fn lookup_error(reference: &str) -> String {
    let s = reference;
    if s.starts_with('/') || s.starts_with('.') {
        return format!("path {s:?} not found");
    }
    let remote = s.starts_with("oci://")
        || s.split_once("://").is_some_and(|(scheme, rest)| {
            !scheme.is_empty() && rest.find('/').is_some_and(|slash| slash > 0)
        });
    if remote {
        return format!(
            "{s} is a remote chart; stackproof renders local charts only (download it with `helm pull` first)"
        );
    }
    match s.split_once('/') {
        Some((repo, _)) if !s.contains("://") => format!("repo {repo} not found"),
        _ => format!("non-absolute URLs should be in form of repo_name/path_to_chart, got: {s}"),
    }
}

/// Reads the members of a gzipped tar archive, dropping the top-level folder, with
/// Helm's path safety checks.
pub fn archive_files(data: &[u8]) -> Result<Vec<ChartFile>, String> {
    let gz = flate2::read::GzDecoder::new(data);
    let mut ar = tar::Archive::new(gz);
    let mut files = Vec::new();
    let entries = ar.entries().map_err(|e| e.to_string())?;
    for entry in entries {
        let mut entry = entry.map_err(|e| e.to_string())?;
        let kind = entry.header().entry_type();
        if kind.is_dir() || kind.is_pax_global_extensions() || kind.is_pax_local_extensions() {
            continue;
        }
        if kind.is_gnu_longname() || kind.is_gnu_longlink() {
            continue;
        }
        let raw_name = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
        let delim = if raw_name.contains('\\') { '\\' } else { '/' };
        let parts: Vec<&str> = raw_name.split(delim).collect();
        let n = parts[1..].join("/");
        if n.starts_with('/') {
            return Err("chart illegally contains absolute paths".into());
        }
        let n = clean_path(&n);
        if n == "." {
            return Err(format!(
                "chart illegally contains content outside the base directory: {raw_name:?}"
            ));
        }
        if n.starts_with("..") {
            return Err("chart illegally references parent directory".into());
        }
        if parts[0] == "Chart.yaml" {
            return Err("chart yaml not in base directory".into());
        }
        let size = entry.size();
        let data = crate::source::read_to_shared(&mut entry, size).map_err(|e| e.to_string())?;
        files.push(ChartFile {
            name: n,
            content: Content::Loaded(strip_bom(Bytes::from(data))),
        });
    }
    if files.is_empty() {
        return Err("no files in chart archive".into());
    }
    Ok(files)
}

/// Go's `path.Clean` for slash paths.
fn clean_path(p: &str) -> String {
    let rooted = p.starts_with('/');
    let mut out: Vec<&str> = Vec::new();
    for part in p.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if out.last().is_some_and(|l| *l != "..") {
                    out.pop();
                } else if !rooted {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    let joined = out.join("/");
    match (rooted, joined.is_empty()) {
        (true, _) => format!("/{joined}"),
        (false, true) => ".".to_string(),
        (false, false) => joined,
    }
}

/// Sorts a flat file list into a chart, like `loader.LoadFiles`. Error texts are
/// Helm's.
fn load_files(
    files: Vec<ChartFile>,
    origin: PathBuf,
    seen: Option<Observed<'_>>,
) -> Result<Arc<Chart>, String> {
    let mut raw_md = None;
    for f in &files {
        if f.name == "Chart.yaml" {
            let mut md =
                Metadata::parse(&f.str()).map_err(|e| format!("cannot load Chart.yaml: {e}"))?;
            if md.api_version_mut().is_empty() {
                *md.api_version_mut() = "v1".to_string();
            }
            raw_md = Some(md);
        }
    }
    // The last of the name wins, as when sorting the files below.
    let schema = files
        .iter()
        .rev()
        .find(|f| f.name == "values.schema.json")
        .map(|f| Arc::new(SchemaFile::new(f.data().clone())));
    if let (Some(o), Some(schema)) = (&seen, &schema) {
        o.observer.schema(schema);
    }
    let path = match (&seen, &raw_md) {
        (Some(o), Some(md)) => {
            let path = match o.parent {
                None => md.md.name.clone(),
                Some(p) => format!("{p}/charts/{}", md.md.name),
            };
            let templates: Vec<ChartFile> = files
                .iter()
                .filter(|f| f.name.starts_with("templates/"))
                .cloned()
                .collect();
            o.observer.templates(&path, &templates);
            Some(path)
        }
        _ => None,
    };
    let mut lock = None;
    let mut values = Map::new();
    let mut values_file = None;
    let mut templates = Vec::new();
    let mut plain = Vec::new();
    let mut sub: std::collections::BTreeMap<String, Vec<ChartFile>> = Default::default();
    for f in files {
        match f.name.as_str() {
            "Chart.yaml" => {}
            "Chart.lock" => {
                lock = Some(
                    yamlio::decode_helm(&f.str())
                        .map_err(|e| format!("cannot load Chart.lock: {e}"))?,
                );
            }
            "values.yaml" => {
                values = yamlio::decode_values_map(&f.str())
                    .map_err(|e| format!("cannot load values.yaml: {e}"))?;
                values_file = Some(f);
            }
            "values.schema.json" => {}
            "requirements.yaml" => {
                let md = raw_md.get_or_insert_with(super::metadata::RawMetadata::empty);
                let v = yamlio::decode_typed(&f.str())
                    .map_err(|e| format!("cannot load requirements.yaml: {e}"))?;
                md.merge_from(&v).map_err(|e| {
                    format!("cannot load requirements.yaml: error unmarshaling JSON: while decoding JSON: {e}")
                })?;
                if md.md.api_version == "v1" {
                    plain.push(f);
                }
            }
            "requirements.lock" => {
                lock = Some(
                    yamlio::decode_helm(&f.str())
                        .map_err(|e| format!("cannot load requirements.lock: {e}"))?,
                );
                if raw_md.as_ref().is_some_and(|m| m.md.api_version == "v1") {
                    plain.push(f);
                }
            }
            n if n.starts_with("templates/") => templates.push(f),
            n if n.starts_with("charts/") => {
                if n.ends_with(".prov") {
                    plain.push(f);
                    continue;
                }
                let rest = &n["charts/".len()..];
                let cname = rest.split('/').next().unwrap_or_default().to_string();
                let inner = ChartFile {
                    name: rest.to_string(),
                    content: f.content,
                };
                sub.entry(cname).or_default().push(inner);
            }
            _ => plain.push(f),
        }
    }
    let Some(raw_md) = raw_md else {
        return Err("Chart.yaml file is missing".into());
    };
    let metadata = raw_md.validate()?;
    let child_seen = seen.map(|o| Observed {
        observer: o.observer,
        parent: path.as_deref(),
    });
    let mut dependencies = Vec::new();
    for (n, files) in sub {
        if n.starts_with('_') || n.starts_with('.') {
            continue;
        }
        let child_origin = origin.join("charts").join(&n);
        let loaded = if n.ends_with(".tgz") {
            let Some(first) = files.first() else { continue };
            if first.name != n {
                return Err(format!(
                    "error unpacking tar in {}: expected {n}, got {}",
                    metadata.name, first.name
                ));
            }
            archive_files(first.data()).and_then(|fs| load_files(fs, child_origin, child_seen))
        } else {
            let inner: Vec<ChartFile> = files
                .into_iter()
                .filter_map(|f| {
                    let (_, rest) = f.name.split_once('/')?;
                    Some(ChartFile {
                        name: rest.to_string(),
                        content: f.content,
                    })
                })
                .collect();
            load_files(inner, child_origin, child_seen)
        };
        match loaded {
            Ok(c) => dependencies.push(c),
            Err(e) => {
                return Err(format!("error unpacking {n} in {}: {e}", metadata.name));
            }
        }
    }
    Ok(Arc::new(Chart {
        metadata,
        lock,
        templates,
        files: plain,
        values,
        values_file,
        schema,
        dependencies,
        origin,
        cache: OnceLock::new(),
    }))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    fn file(name: &str, text: &str) -> ChartFile {
        ChartFile::new(name, text.as_bytes())
    }

    #[test]
    fn sorts_files_like_helm() {
        let c = Chart::from_files(
            vec![
                file(
                    "Chart.yaml",
                    r#"{"apiVersion":"v2","name":"p","version":"0.1.0"}"#,
                ),
                file("values.yaml", r#"{"a":1}"#),
                file("templates/x.yaml", "x"),
                file("README.md", "r"),
                file("crds/c.yaml", "c"),
                file(
                    "charts/sub/Chart.yaml",
                    r#"{"name":"sub","version":"1.0.0"}"#,
                ),
                file("charts/sub/templates/y.yaml", "y"),
                file("charts/_skip/Chart.yaml", "{}"),
            ],
            PathBuf::from("p"),
        )
        .unwrap();
        assert_eq!(c.templates.len(), 1);
        assert_eq!(
            c.files.iter().map(|f| f.name.as_str()).collect::<Vec<_>>(),
            ["README.md", "crds/c.yaml"]
        );
        assert_eq!(c.dependencies.len(), 1);
        assert_eq!(c.dependencies[0].metadata.api_version, "v1");
        assert_eq!(c.dependencies[0].templates[0].name, "templates/y.yaml");
    }

    #[test]
    fn missing_chart_yaml() {
        let err =
            Chart::from_files(vec![file("values.yaml", "{}")], PathBuf::from("p")).unwrap_err();
        assert_eq!(err.message, "Chart.yaml file is missing");
        let err = Chart::from_files(
            vec![
                file(
                    "Chart.yaml",
                    r#"{"apiVersion":"v2","name":"p","version":"0.1.0"}"#,
                ),
                file("charts/sub/values.yaml", "{}"),
            ],
            PathBuf::from("p"),
        )
        .unwrap_err();
        assert_eq!(
            err.message,
            "error unpacking sub in p: Chart.yaml file is missing"
        );
    }

    /// A chart directory under the temporary folder, removed on drop.
    pub(crate) struct TempChart(pub(crate) PathBuf);

    impl TempChart {
        pub(crate) fn new<D: AsRef<[u8]>>(tag: &str, files: &[(&str, D)]) -> TempChart {
            let dir = std::env::temp_dir()
                .join(format!("stackproof-loader-{tag}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            for (name, data) in files {
                let p = dir.join(name);
                std::fs::create_dir_all(p.parent().unwrap()).unwrap();
                std::fs::write(p, data).unwrap();
            }
            TempChart(dir)
        }
    }

    impl Drop for TempChart {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    const CHART_YAML: &[u8] = b"apiVersion: v2\nname: lazy\nversion: 0.1.0\n";

    fn deferred(f: &ChartFile) -> bool {
        matches!(f.content, Content::Deferred(_))
    }

    fn file_named<'a>(c: &'a Chart, name: &str) -> &'a ChartFile {
        c.files.iter().find(|f| f.name == name).unwrap()
    }

    #[test]
    fn only_files_rendering_reads_are_read_at_load() {
        for (rel, eager) in [
            ("Chart.yaml", true),
            ("values.yaml", true),
            ("values.schema.json", true),
            ("Chart.lock", true),
            ("requirements.yaml", true),
            ("requirements.lock", true),
            ("templates/x.yaml", true),
            ("templates/sub/_h.tpl", true),
            ("crds/c.yaml", false),
            ("charts/x-1.0.0.tgz", true),
            ("charts/x-1.0.0.tgz.prov", true),
            ("charts/sub/Chart.yaml", true),
            ("charts/sub/templates/x.yaml", true),
            ("charts/sub/charts/inner.tgz", true),
            ("charts/sub/charts/inner/values.yaml", true),
            ("README.md", false),
            ("files/a.txt", false),
            ("ci/values.yaml", false),
            ("templatesX/a", false),
            ("sub/values.yaml", false),
            ("charts/sub/README.md", false),
            ("charts/sub/files/values.yaml", false),
            ("charts/_skipped/Chart.yaml", true),
            ("charts/_skipped/data.txt", false),
        ] {
            assert_eq!(read_at_load(rel), eager, "{rel}");
        }
    }

    /// Files read on first use come through the same view as the load, overlays
    /// included, once for every copy of the chart, without their byte-order mark.
    #[test]
    fn deferred_files_read_through_the_vfs_on_first_use() {
        let chart = TempChart::new(
            "deferred",
            &[
                ("Chart.yaml", CHART_YAML),
                ("templates/cm.yaml", b"kind: ConfigMap\n"),
                ("README.md", b"on disk\n"),
                ("docs/bom.txt", b"\xEF\xBB\xBFmarked\n"),
                ("docs/later.txt", b"at load\n"),
                ("charts/sub/Chart.yaml", b"name: sub\nversion: 1.0.0\n"),
                ("charts/sub/notes.txt", b"sub notes\n"),
            ],
        );
        let vfs = Vfs::with_overlays([
            (chart.0.join("README.md"), b"overlay\n".to_vec()),
            (
                chart.0.join("docs/virtual.txt"),
                b"only in the overlay\n".to_vec(),
            ),
        ]);
        let c = Chart::load(&chart.0, &vfs).unwrap();
        assert!(!deferred(&c.templates[0]));
        assert_eq!(
            c.files.iter().map(|f| f.name.as_str()).collect::<Vec<_>>(),
            [
                "README.md",
                "docs/bom.txt",
                "docs/later.txt",
                "docs/virtual.txt"
            ]
        );
        assert!(c.files.iter().all(deferred));
        // Nothing was read yet: a change on disk before the first use is seen.
        std::fs::write(chart.0.join("docs/later.txt"), b"after load\n").unwrap();
        let later = file_named(&c, "docs/later.txt");
        assert_eq!(&**later.read().unwrap(), b"after load\n");
        // Every copy shares the first read.
        let copy = c.with_parts(c.metadata.clone(), c.dependencies.clone());
        std::fs::write(chart.0.join("docs/later.txt"), b"changed again\n").unwrap();
        assert_eq!(
            &**file_named(&copy, "docs/later.txt").data(),
            b"after load\n"
        );
        assert_eq!(&**file_named(&c, "README.md").data(), b"overlay\n");
        assert_eq!(
            &*file_named(&c, "docs/virtual.txt").shared_text(),
            "only in the overlay\n"
        );
        assert_eq!(file_named(&c, "docs/bom.txt").text(), "marked\n");
        let sub = &c.dependencies[0];
        assert!(deferred(&sub.files[0]));
        assert_eq!(sub.files[0].name, "notes.txt");
        assert_eq!(&**sub.files[0].data(), b"sub notes\n");
        // `.Files` reads them the same way.
        let files = super::super::objects::Files::new(&c.files);
        use crate::template::Object;
        let got = files
            .call_method("Get", &[Value::str("docs/virtual.txt")])
            .unwrap();
        assert!(matches!(got, Value::String(s) if &*s == "only in the overlay\n"));
    }

    /// Helm fails the load on a file it cannot read; a file this process cannot
    /// read is read at load, so the load fails as before.
    #[test]
    fn unreadable_files_fail_the_load() {
        use std::os::unix::fs::PermissionsExt;
        let chart = TempChart::new(
            "unreadable",
            &[("Chart.yaml", CHART_YAML), ("docs/secret.txt", b"s\n")],
        );
        let secret = chart.0.join("docs/secret.txt");
        std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o000)).unwrap();
        // Root (with its usual capabilities) reads it all the same.
        let readable = std::fs::read(&secret).is_ok();
        let vfs = Vfs::real();
        match Chart::load(&chart.0, &vfs) {
            Ok(c) => {
                assert!(readable);
                assert_eq!(&**file_named(&c, "docs/secret.txt").read().unwrap(), b"s\n");
            }
            Err(e) => {
                assert!(!readable);
                assert!(
                    e.message.starts_with(&format!(
                        "error reading docs/secret.txt: read {}: ",
                        secret.display()
                    )),
                    "{}",
                    e.message
                );
            }
        }
        assert_eq!(vfs.may_read(&secret), readable);
    }

    #[test]
    fn clean_paths() {
        assert_eq!(clean_path("a/./b/../c"), "a/c");
        assert_eq!(clean_path(""), ".");
        assert_eq!(clean_path("../x"), "../x");
    }
}
