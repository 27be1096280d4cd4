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

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use super::error::ChartError;
use super::ignore::Rules;
use super::metadata::Metadata;
use super::yamlio;
use crate::source::Vfs;
use crate::template::{Map, Value};

/// A file inside a chart, named relative to the chart root with `/` separators.
#[derive(Clone, Debug)]
pub struct ChartFile {
    pub name: String,
    pub data: Arc<[u8]>,
}

impl ChartFile {
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.data).into_owned()
    }

    /// The text as a [`SourceFile`] holds it: one check and one copy, where
    /// `text().into()` copied a chart's (often megabytes of CRD) templates twice.
    pub fn shared_text(&self) -> Arc<str> {
        match std::str::from_utf8(&self.data) {
            Ok(s) => Arc::from(s),
            Err(_) => Arc::from(String::from_utf8_lossy(&self.data)),
        }
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
    pub schema: Option<Arc<[u8]>>,
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

/// A file's bytes without a leading UTF-8 byte-order mark (Helm drops it); copied
/// only when there is one.
fn strip_bom(data: Arc<[u8]>) -> Arc<[u8]> {
    match data.strip_prefix(UTF8_BOM) {
        Some(rest) => Arc::from(rest),
        None => data,
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
        if vfs.is_dir(path) {
            load_dir(path, vfs)
        } else if vfs.is_file(path) {
            load_archive_file(path, vfs)
        } else {
            Err(ChartError::load(format!(
                "stat {}: no such file or directory",
                path.display()
            )))
        }
    }

    /// Loads a chart from in-memory files (paths relative to the chart root).
    pub fn from_files(files: Vec<ChartFile>, origin: PathBuf) -> Result<Arc<Chart>, ChartError> {
        load_files(files, origin).map_err(ChartError::load)
    }
}

/// Walks a chart directory in name order, honouring `.helmignore`.
fn load_dir(dir: &Path, vfs: &Vfs) -> Result<Arc<Chart>, ChartError> {
    let mut rules = Rules::empty();
    let ignore_file = dir.join(".helmignore");
    if vfs.is_file(&ignore_file) {
        let text = vfs
            .read_to_string(&ignore_file)
            .map_err(|e| ChartError::load(e.to_string()))?;
        rules = Rules::parse(&text).map_err(ChartError::load)?;
    }
    rules.add_defaults();
    let mut files = Vec::new();
    walk(dir, "", vfs, &rules, &mut files)?;
    load_files(files, dir.to_path_buf()).map_err(ChartError::load)
}

fn walk(
    dir: &Path,
    rel: &str,
    vfs: &Vfs,
    rules: &Rules,
    out: &mut Vec<ChartFile>,
) -> Result<(), ChartError> {
    let entries = vfs
        .read_dir(dir)
        .map_err(|e| ChartError::load(e.to_string()))?;
    for e in entries {
        let name = if rel.is_empty() {
            e.name.clone()
        } else {
            format!("{rel}/{}", e.name)
        };
        if e.is_dir {
            if rules.ignore(&name, true) {
                continue;
            }
            walk(&e.path, &name, vfs, rules, out)?;
            continue;
        }
        if rules.ignore(&name, false) {
            continue;
        }
        if !e.is_file {
            // A link that resolves nowhere fails Helm's walk before the file check.
            // Helm walks the chart's absolute path (`filepath.Abs`), so both paths of
            // its message are absolute.
            let abs = std::env::current_dir()
                .map(|d| crate::source::normalize(&d.join(&e.path)))
                .unwrap_or_else(|_| e.path.clone());
            if let Some(err) = eval_symlinks_error(&abs) {
                return Err(ChartError::load(format!(
                    "error evaluating symlink {}: {err}",
                    abs.display()
                )));
            }
            return Err(ChartError::load(format!(
                "cannot load irregular file {} as it has file mode type bits set",
                e.path.display()
            )));
        }
        let data = vfs
            .read(&e.path)
            .map_err(|err| ChartError::load(format!("error reading {name}: {err}")))?;
        out.push(ChartFile {
            name,
            data: strip_bom(data),
        });
    }
    Ok(())
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

fn load_archive_file(path: &Path, vfs: &Vfs) -> Result<Arc<Chart>, ChartError> {
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
    load_files(files, path.to_path_buf()).map_err(ChartError::load)
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
        let mut buf = Vec::new();
        entry.read_to_end(&mut buf).map_err(|e| e.to_string())?;
        files.push(ChartFile {
            name: n,
            data: strip_bom(Arc::from(buf)),
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
fn load_files(files: Vec<ChartFile>, origin: PathBuf) -> Result<Arc<Chart>, String> {
    let mut raw_md = None;
    for f in &files {
        if f.name == "Chart.yaml" {
            let mut md =
                Metadata::parse(&f.text()).map_err(|e| format!("cannot load Chart.yaml: {e}"))?;
            if md.api_version_mut().is_empty() {
                *md.api_version_mut() = "v1".to_string();
            }
            raw_md = Some(md);
        }
    }
    let mut lock = None;
    let mut values = Map::new();
    let mut values_file = None;
    let mut schema = None;
    let mut templates = Vec::new();
    let mut plain = Vec::new();
    let mut sub: std::collections::BTreeMap<String, Vec<ChartFile>> = Default::default();
    for f in files {
        match f.name.as_str() {
            "Chart.yaml" => {}
            "Chart.lock" => {
                lock = Some(
                    yamlio::decode_helm(&f.text())
                        .map_err(|e| format!("cannot load Chart.lock: {e}"))?,
                );
            }
            "values.yaml" => {
                values = yamlio::decode_values_map(&f.text())
                    .map_err(|e| format!("cannot load values.yaml: {e}"))?;
                values_file = Some(f);
            }
            "values.schema.json" => schema = Some(f.data.clone()),
            "requirements.yaml" => {
                let md = raw_md.get_or_insert_with(super::metadata::RawMetadata::empty);
                let v = yamlio::decode_typed(&f.text())
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
                    yamlio::decode_helm(&f.text())
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
                    data: f.data,
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
            archive_files(&first.data).and_then(|fs| load_files(fs, child_origin))
        } else {
            let inner: Vec<ChartFile> = files
                .into_iter()
                .filter_map(|f| {
                    let (_, rest) = f.name.split_once('/')?;
                    Some(ChartFile {
                        name: rest.to_string(),
                        data: f.data,
                    })
                })
                .collect();
            load_files(inner, child_origin)
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
mod tests {
    use super::*;

    fn file(name: &str, text: &str) -> ChartFile {
        ChartFile {
            name: name.into(),
            data: Arc::from(text.as_bytes()),
        }
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

    #[test]
    fn clean_paths() {
        assert_eq!(clean_path("a/./b/../c"), "a/c");
        assert_eq!(clean_path(""), ".");
        assert_eq!(clean_path("../x"), "../x");
    }
}
