//! Points chart errors at a file and line when Helm's own text does not.
//!
//! Helm words load and preparation failures without a position (`cannot load
//! Chart.yaml: ... Go struct field Metadata.version`, `missing in charts/ directory:
//! x`, schema violations). The message must stay Helm's, byte for byte, so the
//! position is found afterwards: the file the failure concerns is read again with the
//! span-keeping YAML decoder and the offending node (the syntax error, the field, the
//! dependency entry, the values key) is looked up. Nothing here changes whether or
//! how a chart fails; it only fills [`ChartError::location`].

use std::path::Path;

use super::error::ChartError;
use crate::funcs::codec::yaml::{
    decode_with_spans, DecodeOptions, HelmTarget, Mode, PathSeg, SpanMap,
};
use crate::source::{SourceFile, Span, Vfs};

/// A file as the user names it (the chart path they gave, joined with the member).
fn source(vfs: &Vfs, path: &Path) -> Option<SourceFile> {
    let text = vfs.read_to_string(path).ok()?;
    Some(SourceFile::new(path.display().to_string(), text))
}

/// The file's value spans, or the position of its syntax error.
fn spans(text: &str) -> Result<SpanMap, Span> {
    // Any root type: a values file that is a list must still give positions.
    let opts = DecodeOptions {
        mode: Mode::Helm(HelmTarget::Any),
        strict: false,
    };
    match decode_with_spans(text, &opts) {
        Ok((_, spans)) => Ok(spans),
        Err(e) => Err(e.span.unwrap_or_default()),
    }
}

/// Where a YAML file that must hold a map goes wrong: its syntax error, or its root
/// node when that is not a map.
fn span_of_root(text: &str) -> Span {
    match spans(text) {
        Ok(map) => {
            let root = map.get(&Vec::new()).map(|s| s.value).unwrap_or_default();
            skip_blank_and_comments(text, root)
        }
        Err(at) => at,
    }
}

/// Moves a span's start past blank lines, comments and a `---` marker, so a
/// document's root points at its first node rather than at the comment above it.
fn skip_blank_and_comments(text: &str, span: Span) -> Span {
    let mut pos = span.start as usize;
    while let Some(rest) = text.get(pos..) {
        let line_len = rest.find('\n').map_or(rest.len(), |n| n + 1);
        let trimmed = rest[..line_len].trim();
        if !(trimmed.is_empty() || trimmed.starts_with('#') || trimmed == "---") || line_len == 0 {
            break;
        }
        pos += line_len;
    }
    if pos >= text.len() {
        return span;
    }
    let indent = text[pos..].len() - text[pos..].trim_start_matches([' ', '\t']).len();
    Span::new(pos + indent, (pos + indent).max(span.end as usize))
}

/// The first (in document order) map key called `field`, preferring top-level keys:
/// Go's type errors name the struct field (`Metadata.version`, `Dependency.alias`),
/// not where it sits.
fn span_of_field(text: &str, field: &str) -> Option<Span> {
    let map = match spans(text) {
        Ok(m) => m,
        Err(at) => return Some(at),
    };
    let mut best: Option<(usize, u32, Span)> = None;
    for (path, s) in &map {
        if path.last() != Some(&PathSeg::Key(field.to_string())) {
            continue;
        }
        let at = s.key.unwrap_or(s.value);
        let rank = (path.len(), at.start, at);
        if best.is_none_or(|b| (rank.0, rank.1) < (b.0, b.1)) {
            best = Some(rank);
        }
    }
    best.map(|b| b.2)
}

/// The `name:` of the dependency entry called `name` under `dependencies:`.
fn span_of_dependency(text: &str, name: &str) -> Option<Span> {
    let map = spans(text).ok()?;
    map.iter().find_map(|(path, s)| {
        let is_name = matches!(
            path.as_slice(),
            [PathSeg::Key(d), PathSeg::Index(_), PathSeg::Key(n)] if d == "dependencies" && n == "name"
        );
        let written = text.get(s.value.range())?.trim_matches(['"', '\'']);
        (is_name && written == name).then_some(s.value)
    })
}

fn at(file: SourceFile, span: Span) -> Option<(SourceFile, Span)> {
    Some((file, span))
}

/// The directory of the (sub)chart a load error names: `error unpacking X in Y: ...`
/// (Helm 4: `error unpacking subchart X in Y: ...`) prefixes lead into `charts/X`.
fn chart_dir_of(root: &Path, message: &str) -> (std::path::PathBuf, String) {
    let mut dir = root.to_path_buf();
    let mut rest = message;
    while let Some(tail) = rest
        .strip_prefix("error unpacking subchart ")
        .or_else(|| rest.strip_prefix("error unpacking "))
    {
        let Some((name, after)) = tail.split_once(" in ") else {
            break;
        };
        let Some((_, after)) = after.split_once(": ") else {
            break;
        };
        dir = dir.join("charts").join(name);
        rest = after;
    }
    (dir, rest.to_string())
}

/// The files of the chart a load error concerns: a directory on disk, or the members
/// of a chart archive. Archive members are named `ARCHIVE!/MEMBER` (the notation of
/// jar URLs), since no path on disk holds them.
enum Tree<'a> {
    Dir(&'a Path, &'a Vfs),
    Archive(String, Vec<super::loader::ChartFile>),
}

impl Tree<'_> {
    fn open<'a>(chart: &'a Path, vfs: &'a Vfs) -> Option<Tree<'a>> {
        if vfs.is_dir(chart) {
            return Some(Tree::Dir(chart, vfs));
        }
        let data = vfs.read(chart).ok()?;
        let files = super::loader::archive_files(&data).ok()?;
        Some(Tree::Archive(chart.display().to_string(), files))
    }

    /// The file at `rel` (relative to the chart root).
    fn source(&self, rel: &Path) -> Option<SourceFile> {
        match self {
            Tree::Dir(root, vfs) => source(vfs, &root.join(rel)),
            Tree::Archive(name, files) => {
                let member = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy())
                    .collect::<Vec<_>>()
                    .join("/");
                let f = files.iter().find(|f| f.name == member)?;
                Some(SourceFile::new(format!("{name}!/{member}"), f.text()))
            }
        }
    }
}

/// Fills in where a failure to load the chart at `chart` (a directory or an archive)
/// points.
pub fn load_error(chart: &Path, vfs: &Vfs, err: &mut ChartError) {
    if err.location.is_some() {
        return;
    }
    let Some(tree) = Tree::open(chart, vfs) else {
        return;
    };
    let (dir, message) = chart_dir_of(Path::new(""), &err.message);
    let found = if let Some(detail) = message.strip_prefix("cannot load Chart.yaml: ") {
        tree.source(&dir.join("Chart.yaml")).and_then(|f| {
            let span = go_field(detail)
                .and_then(|field| span_of_field(f.text(), &field))
                .unwrap_or_else(|| span_of_root(f.text()));
            at(f, span)
        })
    } else if message.starts_with("cannot load values.yaml: ") {
        tree.source(&dir.join("values.yaml")).and_then(|f| {
            let span = span_of_root(f.text());
            at(f, span)
        })
    } else if let Some(detail) = message.strip_prefix("cannot load requirements.yaml: ") {
        tree.source(&dir.join("requirements.yaml")).and_then(|f| {
            let span = go_field(detail)
                .and_then(|field| span_of_field(f.text(), &field))
                .unwrap_or_else(|| span_of_root(f.text()));
            at(f, span)
        })
    } else {
        None
    };
    err.location = found;
}

/// The struct field a Go JSON type error names (`Go struct field Metadata.version of
/// type string` → `version`).
fn go_field(detail: &str) -> Option<String> {
    let (_, rest) = detail.split_once("Go struct field ")?;
    let field = rest.split(' ').next()?;
    let name = field.rsplit('.').next()?;
    (!name.is_empty()).then(|| name.to_string())
}

/// Points a values-file failure (`failed to parse FILE: ...`) at the file.
pub fn values_error(vfs: &Vfs, err: &mut ChartError) {
    if err.location.is_some() {
        return;
    }
    let Some(rest) = err.message.strip_prefix("failed to parse ") else {
        return;
    };
    // The file name is followed by the decoder's text; try each `: ` split from the
    // left so names containing `: ` still resolve.
    let mut found = None;
    for (i, _) in rest.match_indices(": ") {
        let p = Path::new(&rest[..i]);
        if vfs.is_file(p) {
            found = source(vfs, p);
            break;
        }
    }
    if let Some(f) = found {
        let span = later_document_error(f.text(), rest).unwrap_or_else(|| span_of_root(f.text()));
        err.location = Some((f, span));
    }
}

/// The syntax error in a multi-document values file (Helm 4 reads every document, and
/// its message counts lines from the start of the failing one): the first document,
/// split at `---` lines, that does not parse, as a span of the whole file. The line
/// the message names (`yaml: line N:`) is preferred to where our parser stopped.
fn later_document_error(text: &str, message: &str) -> Option<Span> {
    let mut starts = vec![0usize];
    let mut pos = 0usize;
    for line in text.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        if bare == "---" || bare.starts_with("--- ") {
            // The document's lines count from the one after its marker.
            if pos == 0 {
                starts[0] = line.len();
            } else {
                starts.push(pos + line.len());
            }
        }
        pos += line.len();
    }
    if starts.len() < 2 {
        return None;
    }
    starts.push(text.len());
    let named_line = message
        .split_once("yaml: line ")
        .and_then(|(_, r)| r.split(':').next())
        .and_then(|n| n.parse::<usize>().ok());
    starts.windows(2).find_map(|w| {
        let doc = text.get(w[0]..w[1])?;
        let at = spans(doc).err()?;
        if let Some(n) = named_line.filter(|n| *n >= 1) {
            let off: usize = doc.split_inclusive('\n').take(n - 1).map(str::len).sum();
            if off < doc.len() {
                let start = u32::try_from(w[0] + off).ok()?;
                return Some(Span { start, end: start });
            }
        }
        let base = u32::try_from(w[0]).ok()?;
        Some(Span {
            start: at.start + base,
            end: at.end + base,
        })
    })
}

/// Points a missing-dependency failure at the dependency's entry in the chart's
/// `Chart.yaml` (or `requirements.yaml` for apiVersion v1 charts).
pub fn missing_dependency(chart: &Path, vfs: &Vfs, name: &str) -> Option<(SourceFile, Span)> {
    for file in ["Chart.yaml", "requirements.yaml"] {
        let Some(f) = source(vfs, &chart.join(file)) else {
            continue;
        };
        if let Some(span) = span_of_dependency(f.text(), name) {
            return Some((f, span));
        }
    }
    None
}

/// Points a schema violation at the values that break it. `path` is the failing
/// value's path from the root chart's values (subchart keys included);
/// `candidates` are the files that may set it, most decisive first, each with the
/// subchart keys its content sits under (empty for user files and the root chart's
/// `values.yaml`). The longest part of the path some file writes wins, so a
/// missing property points at the object that lacks it.
pub fn schema_violation(
    candidates: &[(SourceFile, Vec<String>)],
    path: &[String],
) -> Option<(SourceFile, Span)> {
    let decoded: Vec<Vec<(Vec<String>, Span)>> = candidates
        .iter()
        .map(|(f, _)| {
            spans(f.text())
                .map(|m| {
                    m.iter()
                        .map(|(p, s)| {
                            let p = p.iter().map(|seg| seg.to_string()).collect();
                            (p, s.key.unwrap_or(s.value))
                        })
                        .collect()
                })
                .unwrap_or_default()
        })
        .collect();
    for len in (1..=path.len()).rev() {
        for ((file, under), map) in candidates.iter().zip(&decoded) {
            let Some(rest) = path[..len].strip_prefix(under.as_slice()) else {
                continue;
            };
            if rest.is_empty() {
                continue;
            }
            if let Some((_, span)) = map.iter().find(|(p, _)| p.as_slice() == rest) {
                return Some((file.clone(), *span));
            }
        }
    }
    // Nothing in the values mentions the path (a required property left out at the
    // top): the first candidate's top is where it belongs.
    candidates
        .first()
        .map(|(f, _)| (f.clone(), span_of_root(f.text())))
}

/// Reads a file for [`schema_violation`].
pub fn values_source(vfs: &Vfs, path: &Path) -> Option<SourceFile> {
    source(vfs, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(f: &SourceFile, s: Span) -> usize {
        f.line_col(s.start as usize).0
    }

    #[test]
    fn multi_document_values_errors_point_into_the_failing_document() {
        // Helm 4 counts the message's line from the failing document's first line.
        let text = "a: 1\nb: 2\n---\nc: [\nd: 4\n";
        let f = SourceFile::new("v.yaml", text);
        let msg = "cannot unmarshal yaml document: error converting YAML to JSON: yaml: line 2: did not find expected ',' or ']'";
        assert_eq!(line(&f, later_document_error(text, msg).unwrap()), 5);
        // Without a line in the message: where the parser stopped, in that document.
        assert!(line(&f, later_document_error(text, "x").unwrap()) >= 4);
        // A leading marker starts the first document after it.
        let lead = "---\na: [\n---\nb: 1\n";
        let f = SourceFile::new("v.yaml", lead);
        let msg = "yaml: line 1: did not find expected node content";
        assert_eq!(line(&f, later_document_error(lead, msg).unwrap()), 2);
        // One document, or none failing: not this function's case.
        assert_eq!(later_document_error("a: [\n", msg), None);
        assert_eq!(later_document_error("a: 1\n---\nb: 2\n", msg), None);
    }

    #[test]
    fn finds_fields_dependencies_and_syntax_errors() {
        let text =
            "apiVersion: v2\nname: x\nversion:\n  - 1\ndependencies:\n  - name: a\n  - name: b\n";
        let f = SourceFile::new("Chart.yaml", text);
        assert_eq!(line(&f, span_of_field(text, "version").unwrap()), 3);
        assert_eq!(line(&f, span_of_dependency(text, "b").unwrap()), 7);
        let bad = "a: 1\nb: 2\n  c: 3\n";
        let f = SourceFile::new("bad.yaml", bad);
        assert_eq!(line(&f, span_of_root(bad)), 3);
        let list = "# c\n- 1\n";
        let f = SourceFile::new("l.yaml", list);
        assert_eq!(line(&f, span_of_root(list)), 2);
    }

    #[test]
    fn schema_paths_prefer_later_files_and_fall_back_to_parents() {
        let user = SourceFile::new("u.yaml", "image:\n  tag: 1\n");
        let chart = SourceFile::new("values.yaml", "replicas: x\nimage:\n  tag: a\n  pull: b\n");
        let c = vec![(user.clone(), vec![]), (chart.clone(), vec![])];
        let key = |s: &str| s.to_string();
        let (f, s) = schema_violation(&c, &[key("image"), key("tag")]).unwrap();
        assert_eq!((f.name(), line(&f, s)), ("u.yaml", 2));
        let (f, s) = schema_violation(&c, &[key("replicas")]).unwrap();
        assert_eq!((f.name(), line(&f, s)), ("values.yaml", 1));
        let (f, s) = schema_violation(&c, &[key("image"), key("missing")]).unwrap();
        assert_eq!((f.name(), line(&f, s)), ("u.yaml", 1));
        let sub = SourceFile::new("sub/values.yaml", "x:\n  z: 1\n");
        let c = vec![(user.clone(), vec![]), (sub, vec![key("sub")])];
        let (f, s) = schema_violation(&c, &[key("sub"), key("x"), key("z")]).unwrap();
        assert_eq!((f.name(), line(&f, s)), ("sub/values.yaml", 2));
    }

    #[test]
    fn subchart_prefixes() {
        let (dir, rest) = chart_dir_of(
            Path::new("c"),
            "error unpacking subchart a in c: error unpacking subchart b in a: cannot load Chart.yaml: x",
        );
        assert_eq!(dir, Path::new("c/charts/a/charts/b"));
        assert_eq!(rest, "cannot load Chart.yaml: x");
        assert_eq!(
            go_field(
                "json: cannot unmarshal array into Go struct field Metadata.version of type string"
            ),
            Some("version".into())
        );
    }
}
