//! Where each rendered document and its top-level keys came from.
//!
//! Templates run traced ([`TemplateSet::execute_traced`]): every text node, action
//! and `{{template}}` call records the output offset where its output starts. A
//! document is found again in its file's output, and each top-level key's output
//! offset is mapped to the node that wrote it: inside a text node the key's own
//! source position (text is copied verbatim), for an action (`include`, `toYaml`,
//! a value) the action's position.
//!
//! [`TemplateSet::execute_traced`]: crate::template::TemplateSet::execute_traced

use std::sync::Arc;

use crate::source::{FastMap, LineIndex, SourceFile, Span};
use crate::template::Emit;

/// The source position of one top-level key of a rendered document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyOrigin {
    pub key: String,
    /// The template file of the node that wrote it (a `define` in another file when
    /// written through `{{template}}`).
    pub file: String,
    /// 1-based line and column in `file`.
    pub line: usize,
    pub column: usize,
    /// Whether the key is literal template text (else an action printed it).
    pub literal: bool,
}

/// One template's output with the trace adjusted for Helm's deletion of every
/// `<no value>` from it. The text is shared with the list of rendered files and the
/// split worked out ahead: a chart of CRDs renders megabytes, and each copy of them
/// is fresh memory the kernel has to zero.
pub struct TracedOutput {
    pub text: Arc<String>,
    pub emits: Vec<Emit>,
}

const NO_VALUE: &str = "<no value>";

/// The first offset at or after `from` where `text` continues with `needle`. Searches
/// for a short prefix and compares the rest, since documents (the needles) can be
/// megabytes long and usually sit right at `from`.
fn find_from(text: &str, from: usize, needle: &str) -> Option<usize> {
    let mut n = needle.len().min(64);
    while !needle.is_char_boundary(n) {
        n -= 1;
    }
    let head = &needle[..n];
    let mut pos = from;
    loop {
        let at = pos + text.get(pos..)?.find(head)?;
        if text[at..].starts_with(needle) {
            return Some(at);
        }
        pos = at + text[at..].chars().next()?.len_utf8();
    }
}

impl TracedOutput {
    /// Helm's `strings.ReplaceAll(out, "<no value>", "")`, moving the offsets.
    pub fn new(raw: String, mut emits: Vec<Emit>) -> TracedOutput {
        if !raw.contains(NO_VALUE) {
            return TracedOutput {
                text: Arc::new(raw),
                emits,
            };
        }
        let cuts: Vec<usize> = raw.match_indices(NO_VALUE).map(|(i, _)| i).collect();
        for e in &mut emits {
            let before = cuts.partition_point(|&c| c < e.at);
            e.at = e.at.saturating_sub(before * NO_VALUE.len());
        }
        TracedOutput {
            text: Arc::new(raw.replace(NO_VALUE, "")),
            emits,
        }
    }

    /// Offsets of `docs` (substrings of the output, in output order) in the output;
    /// `None` for one that cannot be found.
    pub fn find_documents(&self, docs: &[&str]) -> Vec<Option<usize>> {
        let mut cursor = 0;
        docs.iter()
            .map(|d| {
                let at = find_from(&self.text, cursor, d)?;
                cursor = at + d.len();
                Some(at)
            })
            .collect()
    }

    /// The node that wrote output offset `at`, among emits of `file` only when given.
    fn writer(&self, at: usize, file: Option<&str>) -> Option<&Emit> {
        let end = self.emits.partition_point(|e| e.at <= at);
        self.emits[..end]
            .iter()
            .rev()
            .find(|e| file.is_none_or(|f| e.source.name() == f))
    }

    /// Source offset in the writer's file for output offset `at`.
    fn source_offset(e: &Emit, at: usize) -> usize {
        let into = at.saturating_sub(e.at);
        if e.text && into < e.span.len() {
            e.span.start as usize + into
        } else {
            e.span.start as usize
        }
    }

    /// The source position that wrote output offset `at`.
    pub fn source_at(&self, at: usize) -> Option<(SourceFile, Span)> {
        let e = self.writer(at, None)?;
        let off = Self::source_offset(e, at);
        Some((e.source.clone(), Span::empty_at(off)))
    }

    /// The origins of the top-level keys of the document at `doc_at` with text
    /// `content`: exact ones (any file), and the line in the document's own
    /// template `file` (the `{{template}}` call for text written by a define
    /// elsewhere).
    pub fn key_origins(
        &self,
        file: &str,
        content: &str,
        doc_at: usize,
    ) -> (Vec<KeyOrigin>, Vec<(String, usize)>) {
        self.key_origins_with(file, content, doc_at, &mut LineCache::default())
    }

    /// [`TracedOutput::key_origins`] with the line indexes of a pass over many
    /// documents.
    pub fn key_origins_with(
        &self,
        file: &str,
        content: &str,
        doc_at: usize,
        lines: &mut LineCache,
    ) -> (Vec<KeyOrigin>, Vec<(String, usize)>) {
        let mut exact = Vec::new();
        let mut own = Vec::new();
        // Only lines that start with a key matter, and documents can be megabytes
        // of indented schema, so the walk goes from newline to newline.
        let bytes = content.as_bytes();
        let starts = std::iter::once(0)
            .chain(memchr::memchr_iter(b'\n', bytes).map(|nl| nl + 1))
            .filter(|&s| s < bytes.len());
        for start in starts {
            if matches!(bytes[start], b' ' | b'\t' | b'#' | b'-' | b'\n' | b'\r') {
                continue;
            }
            let end = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |i| start + i + 1);
            let line = &content[start..end];
            let at = doc_at + start;
            let Some((key, _)) = line.split_once(':') else {
                continue;
            };
            if exact.iter().any(|o: &KeyOrigin| o.key == key) {
                continue;
            }
            if let Some(e) = self.writer(at, None) {
                let off = Self::source_offset(e, at);
                let (l, c) = lines.line_col(&e.source, off);
                exact.push(KeyOrigin {
                    key: key.to_string(),
                    file: e.source.name().to_string(),
                    line: l,
                    column: c,
                    literal: e.text && at.saturating_sub(e.at) < e.span.len(),
                });
            }
            if let Some(e) = self.writer(at, Some(file)) {
                let off = Self::source_offset(e, at);
                own.push((key.to_string(), lines.line_col(&e.source, off).0));
            }
        }
        (exact, own)
    }
}

/// Line indexes of the template files one pass over a chart's documents looks
/// keys up in, each built on first use. Keyed by the text's address, and each
/// entry holds its text: an address cannot be reused by another file while the
/// cache lives, whatever outlives what.
#[derive(Default)]
pub struct LineCache {
    files: FastMap<usize, (crate::source::Text, LineIndex)>,
}

impl LineCache {
    fn line_col(&mut self, source: &SourceFile, offset: usize) -> (usize, usize) {
        let text = source.text();
        self.files
            .entry(text.as_ptr() as usize)
            .or_insert_with(|| (source.shared_text(), LineIndex::new(text)))
            .1
            .line_col(offset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn emit(src: &SourceFile, at: usize, span: (usize, usize), text: bool) -> Emit {
        Emit {
            at,
            source: src.clone(),
            span: Span::new(span.0, span.1),
            text,
        }
    }

    #[test]
    fn text_keys_map_exactly_and_actions_to_their_line() {
        // template: "a: 1\n{{ include \"x\" . }}\nc: 3\n"
        let t = SourceFile::new("c/templates/t.yaml", "a: 1\n{{ include \"x\" . }}\nc: 3\n");
        let out = "a: 1\nb: 2\nc: 3\n".to_string();
        let emits = vec![
            emit(&t, 0, (0, 5), true),
            emit(&t, 5, (8, 21), false),
            emit(&t, 9, (24, 30), true),
        ];
        let tr = TracedOutput::new(out, emits);
        let (exact, own) = tr.key_origins("c/templates/t.yaml", "a: 1\nb: 2\nc: 3", 0);
        let lines: Vec<(&str, usize, bool)> = exact
            .iter()
            .map(|o| (o.key.as_str(), o.line, o.literal))
            .collect();
        assert_eq!(lines, vec![("a", 1, true), ("b", 2, false), ("c", 3, true)]);
        assert_eq!(own, vec![("a".into(), 1), ("b".into(), 2), ("c".into(), 3)]);
    }

    #[test]
    fn finds_long_documents_after_near_misses() {
        let doc = format!("{}tail", "a".repeat(100));
        let text = format!("{}x\n---\n{doc}", "a".repeat(100));
        assert_eq!(find_from(&text, 0, &doc), Some(106));
        assert_eq!(find_from(&text, 107, &doc), None);
        assert_eq!(find_from("é-é", 2, "é"), Some(3));
    }

    #[test]
    fn no_value_deletion_moves_offsets() {
        let t = SourceFile::new("t", "x: {{ .a }}\ny: 1\n");
        let raw = "x: <no value>\ny: 1\n".to_string();
        let emits = vec![
            emit(&t, 0, (0, 3), true),
            emit(&t, 3, (5, 9), false),
            emit(&t, 13, (11, 17), true),
        ];
        let tr = TracedOutput::new(raw, emits);
        assert_eq!(*tr.text, "x: \ny: 1\n");
        let docs = tr.find_documents(&["x: \ny: 1"]);
        assert_eq!(docs, vec![Some(0)]);
        let (exact, _) = tr.key_origins("t", "x: \ny: 1", 0);
        assert_eq!(exact[1].key, "y");
        assert_eq!((exact[1].line, exact[1].column), (2, 1));
    }
}
