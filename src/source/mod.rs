//! Source text and the file system stackproof reads from.
//!
//! Everything stackproof reports points back at bytes in some file: a template, a values
//! file, a state file, a rule. This module owns those bytes ([`SourceFile`]), the byte
//! ranges into them ([`Span`]), and the read-only view of the tree being checked
//! ([`Vfs`]), including *overlay* files that a configuration supplies for paths a
//! repository does not hold (for example an environment's secrets file). Nothing in
//! stackproof writes through a `Vfs`: inputs are read-only by construction.

mod bytes;
mod memo;
mod programs;
mod vfs;

pub use bytes::{Bytes, Text};
pub use memo::{expect_repeats, repeats_expected, Memo};
pub use programs::{is_executable, search_path};

/// A hash map for lookups on the render path (function names, template names,
/// anchors): foldhash instead of the default SipHash, whose cost showed in every
/// `include` and every function call. Nothing iterates these maps in an order that
/// reaches output (SipHash's order was random per process already).
pub type FastMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;
/// The set form of [`FastMap`].
pub type FastSet<T> = std::collections::HashSet<T, foldhash::fast::RandomState>;
pub use vfs::{go_errno_text, normalize, read_to_shared, Vfs, VfsError};

use std::fmt;
use std::sync::Arc;

/// A half-open byte range `[start, end)` into one source text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub const fn new(start: usize, end: usize) -> Span {
        Span {
            start: start as u32,
            end: end as u32,
        }
    }

    pub const fn empty_at(pos: usize) -> Span {
        Span::new(pos, pos)
    }

    pub fn len(&self) -> usize {
        (self.end - self.start) as usize
    }

    pub fn is_empty(&self) -> bool {
        self.end == self.start
    }

    /// The smallest span covering both.
    pub fn join(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    pub fn range(&self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
}

impl From<Span> for miette::SourceSpan {
    fn from(s: Span) -> Self {
        miette::SourceSpan::new((s.start as usize).into(), s.len())
    }
}

/// One named text: the name is what users see in messages (a path relative to where
/// they ran the command, or a template name such as `mychart/templates/x.yaml`).
#[derive(Clone)]
pub struct SourceFile(Arc<Source>);

/// One pointer's worth in every span-carrying error and tree.
struct Source {
    name: Arc<str>,
    text: Text,
}

impl SourceFile {
    pub fn new(name: impl Into<Arc<str>>, text: impl Into<Text>) -> SourceFile {
        SourceFile(Arc::new(Source {
            name: name.into(),
            text: text.into(),
        }))
    }

    pub fn name(&self) -> &str {
        &self.0.name
    }

    pub fn text(&self) -> &str {
        &self.0.text
    }

    pub fn shared_text(&self) -> Text {
        self.0.text.clone()
    }

    /// 1-based line and 1-based column (in bytes) of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        line_col(self.text(), offset)
    }

    /// The full line containing `offset`, without its newline.
    pub fn line_text(&self, offset: usize) -> &str {
        let text = self.text();
        let offset = offset.min(text.len());
        let start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
        let end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
        &text[start..end]
    }

    /// A miette source that carries this file's name.
    pub fn to_named_source(&self) -> miette::NamedSource<String> {
        miette::NamedSource::new(self.name(), self.text().to_string())
    }
}

impl fmt::Debug for SourceFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SourceFile")
            .field("name", &self.name())
            .field("len", &self.text().len())
            .finish()
    }
}

/// 1-based line and 1-based byte column of `offset` in `text`.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text.as_bytes()[..offset];
    let line = 1 + memchr::memchr_iter(b'\n', before).count();
    let col = match memchr::memrchr(b'\n', before) {
        Some(nl) => offset - nl,
        None => offset + 1,
    };
    (line, col)
}

/// The line starts of one text, for many position lookups in it: each lookup is a
/// binary search instead of a count from the top of the text, which showed where
/// every top-level key of every rendered document, or every node of a state file,
/// is placed (a tenth of cert-manager's render time).
#[derive(Clone, Debug)]
pub struct LineIndex {
    /// Byte offsets where lines 2, 3, ... start.
    starts: Vec<usize>,
    len: usize,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        LineIndex {
            starts: memchr::memchr_iter(b'\n', text.as_bytes())
                .map(|nl| nl + 1)
                .collect(),
            len: text.len(),
        }
    }

    /// 1-based line of a byte offset, and the byte offset where that line starts.
    fn line_start(&self, offset: usize) -> (usize, usize) {
        let before = self.starts.partition_point(|&s| s <= offset);
        let start = before.checked_sub(1).map_or(0, |i| self.starts[i]);
        (1 + before, start)
    }

    /// What [`line_col`] answers for the indexed text: 1-based line and 1-based
    /// column in bytes.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.len);
        let (line, start) = self.line_start(offset);
        (line, offset - start + 1)
    }

    /// 1-based line and 1-based column in characters; `text` is the indexed text.
    pub fn line_char_col(&self, text: &str, offset: usize) -> (usize, usize) {
        let offset = offset.min(text.len());
        let (line, start) = self.line_start(offset);
        let col = text
            .get(start..offset)
            .map_or(offset - start, |s| s.chars().count());
        (line, col + 1)
    }
}

/// A place in a named file, for reports that outlive the source text.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub struct Location {
    pub file: String,
    pub line: usize,
    pub column: usize,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_from_one() {
        let t = "ab\ncd\n\nef";
        assert_eq!(line_col(t, 0), (1, 1));
        assert_eq!(line_col(t, 1), (1, 2));
        assert_eq!(line_col(t, 3), (2, 1));
        assert_eq!(line_col(t, 6), (3, 1));
        assert_eq!(line_col(t, 7), (4, 1));
        assert_eq!(line_col(t, 99), (4, 3));
    }

    #[test]
    fn line_index_answers_like_line_col() {
        for t in ["", "\n", "ab\ncd\n\nef", "\n\nx\n", "a\u{e9}b\nc\r\nd\n"] {
            let index = LineIndex::new(t);
            for offset in 0..=t.len() + 2 {
                assert_eq!(
                    index.line_col(offset),
                    line_col(t, offset),
                    "{t:?} at {offset}"
                );
            }
        }
    }

    #[test]
    fn line_index_counts_characters_for_char_columns() {
        let text = "ab\ncd\n\n\u{e9}f\n";
        let index = LineIndex::new(text);
        assert_eq!(index.line_char_col(text, 9), (4, 2));
        assert_eq!(index.line_col(9), (4, 3));
        assert_eq!(index.line_char_col(text, 0), (1, 1));
        assert_eq!(index.line_char_col(text, 99), (5, 1));
    }

    #[test]
    fn line_text_finds_the_line() {
        let f = SourceFile::new("x", "one\ntwo\nthree");
        assert_eq!(f.line_text(5), "two");
        assert_eq!(f.line_text(0), "one");
        assert_eq!(f.line_text(13), "three");
    }
}
