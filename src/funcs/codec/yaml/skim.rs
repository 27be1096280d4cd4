//! A line-level reader for the common shape of a rendered manifest, so that reading
//! its head (`apiVersion`, `kind`, `metadata`) does not run the full scanner over
//! the rest.
//!
//! Helm decodes every rendered document whole to sort it, so a syntax error anywhere
//! must still be found. The token scanner is what that costs (about a sixth of a
//! Helmfile stack's render, most of it on `spec` and `data` bodies nobody reads).
//! Most of those bodies are block mappings and sequences of scalars (plain, quoted,
//! block `|`/`>`, a line or several) and of one-line flow sequences of scalars,
//! whose validity a line at a time can vouch for. [`kept_entries`] checks each
//! top-level entry that will not be read against that narrow grammar and returns
//! only the entries that will, as text for the real decoder. Anything outside it
//! (flow mappings with content, nested flow collections, anchors, aliases, tags,
//! merge keys, tabs outside block scalars, quoted keys at the top, document markers,
//! odd characters, values that do not convert to JSON, any indentation it cannot
//! place) makes it answer `None`, and the caller reads the whole document the slow
//! way. So it never has to reproduce an error: it only ever accepts text that the
//! full parser would read without error and to the same top-level keys.
//! `chart::manifest`'s `head_survives_line_mutations` holds it to that.

use super::compose::plain_is_plain_data;
use super::scanner::is_indicator;

/// The text of the top-level entries of `text` whose plain key `keep` accepts, in
/// order, when every other entry is plain block YAML; `None` when unsure.
///
/// A document with no top-level entry at all is `None` too: reading it in full is
/// cheap, and its value (nil) is not the empty map this would stand for.
pub(crate) fn kept_entries(text: &str, keep: fn(&str) -> bool) -> Option<String> {
    if !printable(text) {
        return None;
    }
    let mut out = String::new();
    let mut entries = 0usize;
    // The entry being read: kept (copied) or checked.
    let mut current: Option<Entry> = None;
    for line in lines(text) {
        let body = line.strip_suffix('\n').unwrap_or(line);
        let body = body.strip_suffix('\r').unwrap_or(body);
        let starts_entry = match body.as_bytes().first() {
            None | Some(b' ' | b'#' | b'-') => false,
            Some(_) => true,
        };
        if !starts_entry {
            match current.as_mut() {
                Some(Entry::Kept) => out.push_str(line),
                Some(Entry::Checked(c)) => c.line(body)?,
                // Before the first entry only blank and comment lines may stand.
                None => {
                    let rest = body.trim_start_matches(' ');
                    if !(rest.is_empty() || rest.starts_with('#')) {
                        return None;
                    }
                }
            }
            continue;
        }
        if let Some(Entry::Checked(c)) = current.take() {
            c.finish()?;
        }
        if body.starts_with("---") || body.starts_with("...") || body.starts_with('%') {
            return None;
        }
        let (key, _) = plain_key(body)?;
        entries += 1;
        if keep(key) {
            out.push_str(line);
            current = Some(Entry::Kept);
        } else {
            let mut c = Checker::new();
            c.line(body)?;
            current = Some(Entry::Checked(c));
        }
    }
    if let Some(Entry::Checked(c)) = current {
        c.finish()?;
    }
    if entries == 0 {
        return None;
    }
    if out.is_empty() {
        out.push_str("{}\n");
    }
    Some(out)
}

enum Entry<'a> {
    Kept,
    Checked(Checker<'a>),
}

/// The lines of `text`, each with its newline (the last one may lack it).
fn lines(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let end = memchr::memchr(b'\n', rest.as_bytes()).map_or(rest.len(), |i| i + 1);
        let (line, tail) = rest.split_at(end);
        rest = tail;
        Some(line)
    })
}

/// Only characters the YAML reader accepts and that are no line break of their own:
/// printable ASCII, tab, newline (alone or after a carriage return), and the
/// printable ranges above (without the byte-order mark, and without NEL, LS and PS,
/// which YAML 1.1 counts as breaks).
pub(super) fn printable(text: &str) -> bool {
    let bytes = text.as_bytes();
    let ascii_ok = |b: u8| (b' '..0x7f).contains(&b) || b == b'\n' || b == b'\t';
    let crlf = |i: usize| bytes.get(i + 1) == Some(&b'\n');
    // The common case a fixed-size block at a time without early exits inside a
    // block, which the compiler turns into vector code (a fold over the whole
    // slice stayed a byte-at-a-time loop: 3% of a mid-sized chart's render);
    // carriage returns and anything else go the long way.
    let mut blocks = bytes.chunks_exact(32);
    let clean = blocks
        .by_ref()
        .all(|block| block.iter().fold(true, |ok, &b| ok & ascii_ok(b)))
        && blocks.remainder().iter().all(|&b| ascii_ok(b));
    if clean {
        return true;
    }
    text.char_indices().all(|(i, c)| match c as u32 {
        0x0d => crlf(i),
        0..=0x7f => ascii_ok(c as u8),
        0x2028 | 0x2029 | 0xfeff => false,
        // A raw byte of a Go string that is not UTF-8 (`gostr`): the reader
        // stops there with Go's UTF-8 error, so the whole text must go to it.
        0x10_ff00..=0x10_ffff => false,
        0xa0..=0xd7ff | 0xe000..=0xfffd | 0x1_0000.. => true,
        _ => false,
    })
}

/// Whether byte `a` is followed by byte `b` somewhere in `s`. `str::contains` with
/// a two-byte pattern sets up a substring searcher per call, which on these short
/// keys and values cost more than the search (a few percent of a render).
fn has_pair(s: &str, a: u8, b: u8) -> bool {
    let bytes = s.as_bytes();
    memchr::memchr_iter(a, bytes).any(|i| bytes.get(i + 1) == Some(&b))
}

/// A plain key at the start of `s` followed by `:` and a space or the line's end:
/// the key and what follows the colon. Only keys that are surely one plain scalar,
/// not a merge key, and that convert to a JSON key.
pub(super) fn plain_key(s: &str) -> Option<(&str, &str)> {
    let bytes = s.as_bytes();
    if !plain_start(s) {
        return None;
    }
    let mut i = 0;
    let colon = loop {
        let at = i + memchr::memchr(b':', bytes.get(i..)?)?;
        match bytes.get(at + 1) {
            None | Some(b' ') => break at,
            Some(_) => i = at + 1,
        }
    };
    let key = &s[..colon];
    // A comment inside would end the scalar before its colon; trailing spaces and
    // long keys (a simple key is at most 1024 characters) are left to the parser.
    if colon > 512 || key.ends_with(' ') || has_pair(key, b' ', b'#') {
        return None;
    }
    if !plain_is_plain_data(key, true) {
        return None;
    }
    Some((key, &s[colon + 1..]))
}

/// Whether a plain scalar may start `s` in block context: not with an indicator,
/// except `-`, `?` and `:` followed by a non-space (`--flag`, `-1`).
pub(super) fn plain_start(s: &str) -> bool {
    let b = s.as_bytes();
    match b.first() {
        None | Some(b' ') => false,
        Some(b'-' | b'?' | b':') => b.get(1).is_some_and(|&c| c != b' '),
        Some(&c) => !is_indicator(c),
    }
}

/// `-` as a block sequence entry: followed by a space or the line's end.
pub(super) fn is_dash(s: &str) -> bool {
    let b = s.as_bytes();
    b.first() == Some(&b'-') && matches!(b.get(1), None | Some(b' '))
}

/// Whether what is left of a line after a node is nothing but spaces and perhaps a
/// comment (which needs a space before its `#`).
pub(super) fn rest_is_blank(rest: &str) -> bool {
    let t = rest.trim_start_matches(' ');
    t.is_empty() || (t.starts_with('#') && t.len() < rest.len())
}

/// An open block collection: the column of its keys or dashes. An indentless
/// sequence (dashes in the column of the key that owns it) ends at the first line
/// in that column that is not a dash.
#[derive(Clone, Copy)]
struct Level {
    col: usize,
    seq: bool,
    indentless: bool,
}

/// What the previous line left open.
enum Pending<'a> {
    Nothing,
    /// `key:` with its value on the lines below (or null), the key in column `col`.
    Key(usize),
    /// `-` with its item on the lines below (or null), the dash in column `col`.
    Item(usize),
    /// A block scalar whose lines must be indented past `min`; `indent` once its
    /// first line has fixed it.
    Block {
        min: usize,
        indent: Option<usize>,
    },
    /// A quoted scalar (with this quote) that has not closed yet. Its lines may
    /// stand in any column; one in the first ends the entry here, and with it
    /// the check.
    Quoted(u8),
    /// A plain scalar that lines indented to `min` or more go on (folded into
    /// `more`, blank lines counted in `blanks` until the next line of text).
    Plain {
        min: usize,
        first: &'a str,
        more: Option<String>,
        blanks: usize,
    },
}

/// Checks one top-level entry, line by line.
struct Checker<'a> {
    levels: Vec<Level>,
    pending: Pending<'a>,
}

/// How deep this reader follows nesting (the scanner stops at 10000).
const MAX_LEVELS: usize = 256;

impl<'a> Checker<'a> {
    fn new() -> Checker<'a> {
        Checker {
            levels: vec![Level {
                col: 0,
                seq: false,
                indentless: false,
            }],
            pending: Pending::Nothing,
        }
    }

    /// Whatever is open when the entry ends is complete: a pending value is null, a
    /// block scalar ends, a plain scalar is what it has gathered.
    fn finish(mut self) -> Option<()> {
        if matches!(self.pending, Pending::Quoted(_)) {
            return None;
        }
        self.end_plain()
    }

    /// Ends a pending plain scalar: its whole (folded) text must decode to data.
    fn end_plain(&mut self) -> Option<()> {
        if let Pending::Plain { first, more, .. } =
            std::mem::replace(&mut self.pending, Pending::Nothing)
        {
            return plain_is_plain_data(more.as_deref().unwrap_or(first), false).then_some(());
        }
        Some(())
    }

    fn line(&mut self, body: &'a str) -> Option<()> {
        let indent = body.len() - body.trim_start_matches(' ').len();
        let rest = &body[indent..];
        if let Pending::Quoted(q) = self.pending {
            if body.contains('\t') {
                return None;
            }
            return match scan_quoted(body.as_bytes(), q, 0) {
                Quoted::Closed(end) => {
                    self.pending = Pending::Nothing;
                    rest_is_blank(&body[end..]).then_some(())
                }
                Quoted::Open => Some(()),
                Quoted::Unsure => None,
            };
        }
        if let Pending::Plain {
            min,
            first,
            more,
            blanks,
        } = &mut self.pending
        {
            if rest.is_empty() {
                *blanks += 1;
                return Some(());
            }
            if indent >= *min && !rest.starts_with('#') {
                // The scalar goes on (indicators mean nothing at the start of
                // its later lines). A line that would end it inside (a comment,
                // a mapping value) is left to the parser, and so are tabs.
                let text = rest.trim_end_matches(' ');
                if before_comment(text).1 || holds_mapping_value(text) || text.contains('\t') {
                    return None;
                }
                let folded = more.get_or_insert_with(|| first.to_string());
                match *blanks {
                    0 => folded.push(' '),
                    n => folded.extend(std::iter::repeat_n('\n', n)),
                }
                folded.push_str(text);
                *blanks = 0;
                return Some(());
            }
            self.end_plain()?;
        }
        if let Pending::Block { min, indent: fixed } = self.pending {
            if rest.is_empty() {
                // Blank lines before the first line of text must not be indented
                // deeper than it (the scanner then takes their depth); refuse any.
                return (fixed.is_some() || indent == 0).then_some(());
            }
            if rest.starts_with('\t') && fixed.is_none_or(|m| indent < m) {
                return None;
            }
            match fixed {
                None if indent >= min => {
                    self.pending = Pending::Block {
                        min,
                        indent: Some(indent),
                    };
                    return Some(());
                }
                Some(m) if indent >= m => return Some(()),
                _ => self.pending = Pending::Nothing,
            }
        }
        if rest.is_empty() || rest.starts_with('#') {
            return Some(());
        }
        if rest.contains('\t') {
            return None;
        }
        match std::mem::replace(&mut self.pending, Pending::Nothing) {
            Pending::Key(col) if indent == col && is_dash(rest) => self.push(Level {
                col,
                seq: true,
                indentless: true,
            })?,
            Pending::Key(col) | Pending::Item(col) if indent > col => {
                let seq = is_dash(rest);
                if !seq && !starts_key(rest)? {
                    // The value alone on its line (`resources:` then `  {}`). A
                    // line below it in a column it cannot align with is refused
                    // below, which covers plain scalars that would go on.
                    if matches!(rest.as_bytes()[0], b'|' | b'>') {
                        return None;
                    }
                    return self.value(col, rest);
                }
                self.push(Level {
                    col: indent,
                    seq,
                    indentless: false,
                })?
            }
            _ => {}
        }
        loop {
            let top = *self.levels.last()?;
            if top.col > indent || (top.col == indent && top.indentless && !is_dash(rest)) {
                self.levels.pop();
                continue;
            }
            if top.col != indent {
                return None;
            }
            return if top.seq {
                is_dash(rest).then_some(())?;
                self.item(indent, rest)
            } else {
                self.entry(indent, rest)
            };
        }
    }

    fn push(&mut self, level: Level) -> Option<()> {
        if self.levels.len() >= MAX_LEVELS {
            return None;
        }
        self.levels.push(level);
        Some(())
    }

    /// A sequence entry: `s` starts with its dash, in column `col`.
    fn item(&mut self, mut col: usize, mut s: &'a str) -> Option<()> {
        loop {
            let after = &s[1..];
            if rest_is_blank(after) {
                self.pending = Pending::Item(col);
                return Some(());
            }
            let gap = after.len() - after.trim_start_matches(' ').len();
            let content = &after[gap..];
            let at = col + 1 + gap;
            if is_dash(content) {
                self.push(Level {
                    col: at,
                    seq: true,
                    indentless: false,
                })?;
                (col, s) = (at, content);
                continue;
            }
            return if starts_key(content)? {
                self.push(Level {
                    col: at,
                    seq: false,
                    indentless: false,
                })?;
                self.entry(at, content)
            } else {
                self.value(col, content)
            };
        }
    }

    /// A mapping entry `key: value` (or `key:`) starting in column `col`.
    fn entry(&mut self, col: usize, s: &'a str) -> Option<()> {
        let after = match s.as_bytes().first()? {
            b'"' | b'\'' => after_key_colon(&s[quoted_end(s)?..])?,
            _ => plain_key(s)?.1,
        };
        if rest_is_blank(after) {
            self.pending = Pending::Key(col);
            return Some(());
        }
        self.value(col, after.trim_start_matches(' '))
    }

    /// A value on the line of its key or dash; `col` is the column of the innermost
    /// open collection (a block scalar's lines must be indented past it).
    fn value(&mut self, col: usize, v: &'a str) -> Option<()> {
        match v.as_bytes().first()? {
            &q @ (b'"' | b'\'') => match scan_quoted(v.as_bytes(), q, 1) {
                Quoted::Closed(end) => rest_is_blank(&v[end..]).then_some(()),
                Quoted::Open => {
                    self.pending = Pending::Quoted(q);
                    Some(())
                }
                Quoted::Unsure => None,
            },
            b'|' | b'>' => {
                let header = v[1..].strip_prefix(['-', '+']).unwrap_or(&v[1..]);
                rest_is_blank(header).then_some(())?;
                self.pending = Pending::Block {
                    min: col + 1,
                    indent: None,
                };
                Some(())
            }
            b'{' => {
                let (pair, rest) = v.split_at_checked(2)?;
                (pair == "{}" && rest_is_blank(rest)).then_some(())
            }
            b'[' => rest_is_blank(&v[flow_seq_end(v)?..]).then_some(()),
            _ if !plain_start(v) => None,
            _ => {
                let (scalar, comment) = before_comment(v);
                let scalar = scalar.trim_end_matches(' ');
                if holds_mapping_value(scalar) {
                    return None;
                }
                if comment {
                    // A comment ends the scalar: a deeper line below is an error,
                    // which the alignment of the next line refuses.
                    return plain_is_plain_data(scalar, false).then_some(());
                }
                self.pending = Pending::Plain {
                    min: col + 1,
                    first: scalar,
                    more: None,
                    blanks: 0,
                };
                Some(())
            }
        }
    }
}

/// Whether the node at the start of `s` (after a dash) is a mapping key: `Some(true)`
/// for `key:`, `Some(false)` for a lone scalar, `None` for what this reader leaves
/// to the parser.
pub(super) fn starts_key(s: &str) -> Option<bool> {
    match s.as_bytes().first()? {
        b'"' | b'\'' => {
            let rest = &s[quoted_end(s)?..];
            if rest.starts_with(':') {
                after_key_colon(rest).map(|_| true)
            } else {
                rest_is_blank(rest).then_some(false)
            }
        }
        _ => Some(holds_mapping_value(
            before_comment(s).0.trim_end_matches(' '),
        )),
    }
}

/// What follows the `:` that `rest` starts with, when that colon ends a key (a
/// space or the line's end follows it).
pub(super) fn after_key_colon(rest: &str) -> Option<&str> {
    let after = rest.strip_prefix(':')?;
    (after.is_empty() || after.starts_with(' ')).then_some(after)
}

/// A plain scalar's text before a comment on its line, and whether there was one.
pub(super) fn before_comment(s: &str) -> (&str, bool) {
    match s.find(" #") {
        Some(i) => (&s[..i], true),
        None => (s, false),
    }
}

/// Whether a plain scalar's text (trailing spaces removed) holds a `:` that starts
/// a mapping value: one followed by a space, or one at its end.
pub(super) fn holds_mapping_value(text: &str) -> bool {
    has_pair(text, b':', b' ') || text.ends_with(':')
}

/// The byte just past the `]` of the one-line flow sequence of scalars `s` starts
/// with (`[]`, `["", apps]`); `None` for anything else (nested collections,
/// trailing or doubled commas, comments, a sequence that goes on to the next line).
fn flow_seq_end(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    let mut i = 1;
    // Whether an item may come next (just after `[` or `,`), and whether one did.
    let (mut want_item, mut items) = (true, 0usize);
    loop {
        while b.get(i) == Some(&b' ') {
            i += 1;
        }
        match *b.get(i)? {
            b']' if !want_item || items == 0 => return Some(i + 1),
            b',' if !want_item => {
                want_item = true;
                i += 1;
            }
            b'"' | b'\'' if want_item => {
                i += quoted_end(&s[i..])?;
                (want_item, items) = (false, items + 1);
            }
            _ if want_item => {
                let start = i;
                while let Some(&c) = b.get(i) {
                    match c {
                        b',' | b']' => break,
                        // In a flow collection `?` ends a plain scalar and go-yaml
                        // v2 refuses a `:` not followed by a space.
                        b'[' | b'{' | b'}' | b'?' | b':' => return None,
                        b'#' if b[i - 1] == b' ' => return None,
                        _ => i += 1,
                    }
                }
                let scalar = s[start..i].trim_end_matches(' ');
                if !plain_start(scalar) || !plain_is_plain_data(scalar, false) {
                    return None;
                }
                (want_item, items) = (false, items + 1);
            }
            _ => return None,
        }
    }
}

/// How far a quoted scalar's text goes on one line.
pub(super) enum Quoted {
    /// Closed: the byte just past the closing quote.
    Closed(usize),
    /// Still open at the line's end: the scalar goes on to the next line.
    Open,
    /// A double-quoted escape this reader does not check (`\x`, `\u`, `\U`, unknown
    /// ones).
    Unsure,
}

/// Scans the text of a scalar quoted with `quote` from byte `from` of line `b`.
pub(super) fn scan_quoted(b: &[u8], quote: u8, from: usize) -> Quoted {
    let mut i = from;
    while i < b.len() {
        match b[i] {
            c if c == quote => {
                if quote == b'\'' && b.get(i + 1) == Some(&b'\'') {
                    i += 2;
                    continue;
                }
                return Quoted::Closed(i + 1);
            }
            b'\\' if quote == b'"' => {
                let ok = match b.get(i + 1) {
                    // An escaped line break.
                    None => return Quoted::Open,
                    Some(e) => matches!(
                        e,
                        b'0' | b'a'
                            | b'b'
                            | b't'
                            | b'n'
                            | b'v'
                            | b'f'
                            | b'r'
                            | b'e'
                            | b' '
                            | b'"'
                            | b'/'
                            | b'\\'
                            | b'N'
                            | b'_'
                            | b'L'
                            | b'P'
                    ),
                };
                if !ok {
                    return Quoted::Unsure;
                }
                i += 2;
            }
            _ => i += 1,
        }
    }
    Quoted::Open
}

/// The byte just past the closing quote of the quoted scalar `s` starts with, when
/// it closes on this line (a key must; so must an item of a flow sequence here).
fn quoted_end(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    match scan_quoted(b, *b.first()?, 1) {
        Quoted::Closed(end) => Some(end),
        Quoted::Open | Quoted::Unsure => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head(key: &str) -> bool {
        ["apiVersion", "kind", "metadata"]
            .iter()
            .any(|f| key.eq_ignore_ascii_case(f))
    }

    #[test]
    fn printable_finds_an_odd_byte_in_any_block() {
        for len in [0usize, 1, 31, 32, 33, 64, 95, 100] {
            let clean = "a: b\n\t".repeat(len / 6 + 1)[..len].to_string();
            assert!(printable(&clean), "{len}");
            for at in 0..len {
                for odd in ['\u{7f}', '\u{1}', '\r', '\u{2028}'] {
                    let mut t: Vec<char> = clean.chars().collect();
                    if odd == '\r' && t.get(at + 1) == Some(&'\n') {
                        continue; // a CRLF line break
                    }
                    t[at] = odd;
                    let t: String = t.into_iter().collect();
                    assert!(!printable(&t), "{len} {at} {odd:?}");
                }
                let mut t: Vec<char> = clean.chars().collect();
                t[at] = 'é';
                let crlf: String = t.iter().collect::<String>().replace('\n', "\r\n");
                assert!(printable(&crlf), "{len} {at}");
            }
        }
    }

    #[test]
    fn has_pair_looks_at_every_occurrence() {
        assert!(has_pair("a:b: c", b':', b' '));
        assert!(!has_pair("a:b:c:", b':', b' '));
        assert!(has_pair("key #x", b' ', b'#'));
        assert!(!has_pair("key# x", b' ', b'#'));
        assert!(!has_pair("", b' ', b'#'));
    }

    #[test]
    fn keeps_the_head_and_checks_the_rest() {
        let doc = "# lead\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  labels:\n    a: \"b\"\ndata:\n  k: v # c\n  list:\n  - a\n  - 'b''c'\n  - {}\n  - k: v\n    j:\n      - - x\n        - y\n  text: |-\n    free: form: text\n\n      \"deeper\n  more: 1\nspec: {}\nrules:\n- apiGroups: [\"\", apps] # core\n  verbs:   [ get, 'list' ]\n  none: []\n  res:\n    {}\n  alone:\n    \"text\"\nwin: dows\r\nprose: one\n  two\n\n  three\nlone:\n  a\n  b\nquoted: 'one\n\n   # two\n three'' ''\n  four'\ndouble: \"a\\\n  b\n c\" # end\nmore: x\n  `y` [z]\n";
        assert_eq!(
            kept_entries(doc, head).as_deref(),
            Some(
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  labels:\n    a: \"b\"\n"
            )
        );
        assert_eq!(
            kept_entries("data:\n  a: 1\n", head).as_deref(),
            Some("{}\n")
        );
    }

    #[test]
    fn leaves_anything_unusual_to_the_parser() {
        let unsure = [
            "data: &a 1\n",
            "data: *a\n",
            "data: !!str 1\n",
            "data: {a: 1}\n",
            "data: a: b\n",
            "data: a:\n",
            "data: -\n",
            "data:\n  a: 1\n   b: 2\n",
            "data:\n  a: 1\n b: 2\n",
            "data:\n  - a\n  b: 1\n",
            "data:\n\t- a\n",
            "data: \"a\n\tb\"\n",
            "data: 'a\nb'\nx: 1\n",
            "data: \"a\n  \\x41\"\n",
            "data: 'a\n  b' c\n",
            "data: 'open\n",
            "data: \"\\x41\"\n",
            "data: \"a\" b\n",
            "data: |\n  \n    deeper blank first\n",
            "data: .inf\n",
            "data: [a,]\n",
            "data: [a,,b]\n",
            "data: [,]\n",
            "data: [a, [b]]\n",
            "data: [a: b]\n",
            "data: [a:b]\n",
            "data: [a? b]\n",
            "data: [a #c]\n",
            "data: [.nan]\n",
            "data: [a\n",
            "data: [a] b\n",
            "data:\n  |\n  text\n",
            "data:\n  a: b\n    c: d\n",
            "data:\n  a: b #c\n    d\n",
            "data: a\rb\n",
            "data:\n  ~: 1\n",
            "data:\n  <<: {}\n",
            "\"quoted\": 1\n",
            "---\ndata: 1\n",
            "data: 1\n...\n",
            "  indented: 1\n",
            "- top\n",
            "data: \u{85}\n",
            // A raw byte of a Go string (`trunc` cut a character in two).
            "data: h\u{10ffc3}\n",
            "# only a comment\n",
            "",
        ];
        for doc in unsure {
            assert_eq!(kept_entries(doc, head), None, "{doc:?}");
        }
    }
}
