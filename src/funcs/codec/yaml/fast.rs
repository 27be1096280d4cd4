//! A direct reader for the common shape of a values file, building go-yaml's result
//! without its token queue, events and node tree.
//!
//! Helm decodes every chart's `values.yaml` (and every `-f` file and `fromYaml`
//! text) through the full libyaml pipeline, which costs about a tenth of a typical
//! render. Most of those texts are block mappings and sequences whose scalars are
//! plain, single-line quoted, `{}`/`[]`, literal or plainly folded block scalars,
//! between comment lines. [`document`] reads exactly that subset a line at a time
//! and gives the same [`GoValue`] the decoder would. Anything else (flow
//! collections with content, other folded or multi-line scalars, anchors, aliases,
//! tags, merge keys, double-quoted escapes other than `\"`, `\\`,
//! `\n`, `\t`, `\r` and `\ `, tabs, carriage returns, document markers, repeated
//! keys, a root that is not a block collection in column 0, any indentation it
//! cannot place) makes it answer `None`, and the caller runs the full decoder,
//! which also owns every error message. So it only ever accepts texts the full
//! decoder reads without error, to the same value; the tests hold
//! it to that on every YAML file of the repository and on mutations of them.

use std::cell::Cell;
use std::collections::BTreeMap;

use super::decode::{GoMap, GoValue};
use super::resolve::{resolve, TIMESTAMP_TAG};
use super::scanner::is_indicator;
use super::skim::{
    after_key_colon, before_comment, holds_mapping_value, is_dash, plain_key, plain_start,
    printable, rest_is_blank, scan_quoted, starts_key, Quoted,
};
use crate::template::{List, Map, Value};

/// How deep this reader follows nesting before leaving the text to the decoder.
const MAX_DEPTH: usize = 128;

/// The value of the first document of `text` when it is in the subset this reader
/// vouches for; `None` when the full decoder must read it. With `string_keys`, as
/// decoded into `map[string]interface{}`: the root must be a mapping, and its keys
/// are their text as written (`on`, `1`), as go-yaml's string target takes them.
pub(super) fn document(text: &str, string_keys: bool) -> Option<GoValue> {
    read(text, GoSink { string_keys })
}

/// The value Helm reads from `text` (go-yaml's, then through JSON: every number a
/// float64, keys strings), built directly rather than as a [`GoValue`] converted
/// afterwards: a chart's values are most of what a render decodes. Refused where
/// [`document`] would answer `None`, and also for a key that is not a string
/// (`1:`, `on:`) or a number JSON cannot hold (`.inf`), whose conversion the
/// caller's full path owns.
pub(super) fn helm_document(text: &str) -> Result<Value, Left> {
    let conversion = Cell::new(false);
    read(
        text,
        HelmSink {
            conversion: &conversion,
        },
    )
    .ok_or(if conversion.get() {
        Left::Conversion
    } else {
        Left::Shape
    })
}

/// Why [`helm_document`] left a text to its caller.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Left {
    /// Outside the reader's subset: [`document`] refuses it too.
    Shape,
    /// A key or number only Helm's conversion refuses: [`document`] may read it.
    Conversion,
}

/// What the reader builds its result with: go-yaml's values, or Helm's.
trait Sink: Copy {
    type Value: Clone;
    type Key;
    type Map: Default;
    /// Whether the root must be a mapping (decoding into `map[string]interface{}`).
    fn root_is_mapping(self) -> bool;
    /// A plain key, of the root mapping when `root` (`None`: the decoder's to read).
    fn plain_key(self, text: &str, root: bool) -> Option<Self::Key>;
    fn quoted_key(self, text: String) -> Self::Key;
    fn contains(map: &Self::Map, key: &Self::Key) -> bool;
    fn insert(map: &mut Self::Map, key: Self::Key, value: Self::Value);
    fn map(map: Self::Map) -> Self::Value;
    fn seq(items: Vec<Self::Value>) -> Self::Value;
    fn nil() -> Self::Value;
    fn text(s: String) -> Self::Value;
    /// A plain scalar (`None`: the decoder's to read).
    fn scalar(self, s: &str) -> Option<Self::Value>;
}

#[derive(Clone, Copy)]
struct GoSink {
    /// As decoded into `map[string]interface{}`: keys are their text as written.
    string_keys: bool,
}

impl Sink for GoSink {
    type Value = GoValue;
    type Key = GoValue;
    type Map = GoMap;
    fn root_is_mapping(self) -> bool {
        self.string_keys
    }
    fn plain_key(self, text: &str, root: bool) -> Option<GoValue> {
        match self.string_keys && root {
            // Only the root is a `map[string]interface{}`; maps inside it are
            // `map[interface{}]interface{}` and their keys typed.
            true => Some(GoValue::Str(text.to_string())),
            false => plain_value(text),
        }
    }
    fn quoted_key(self, text: String) -> GoValue {
        GoValue::Str(text)
    }
    fn contains(map: &GoMap, key: &GoValue) -> bool {
        map.contains_key(key)
    }
    fn insert(map: &mut GoMap, key: GoValue, value: GoValue) {
        map.insert(key, value);
    }
    fn map(map: GoMap) -> GoValue {
        GoValue::Map(map)
    }
    fn seq(items: Vec<GoValue>) -> GoValue {
        GoValue::Seq(items)
    }
    fn nil() -> GoValue {
        GoValue::Nil
    }
    fn text(s: String) -> GoValue {
        GoValue::Str(s)
    }
    fn scalar(self, s: &str) -> Option<GoValue> {
        plain_value(s)
    }
}

#[derive(Clone, Copy)]
struct HelmSink<'c> {
    /// Set when a key or scalar was refused here rather than by the reader.
    conversion: &'c Cell<bool>,
}

impl HelmSink<'_> {
    fn refuse<T>(self) -> Option<T> {
        self.conversion.set(true);
        None
    }
}

impl Sink for HelmSink<'_> {
    type Value = Value;
    type Key = String;
    type Map = BTreeMap<String, Value>;
    fn root_is_mapping(self) -> bool {
        false
    }
    fn plain_key(self, text: &str, _root: bool) -> Option<String> {
        match plain_value(text)? {
            GoValue::Str(s) => Some(s),
            _ => self.refuse(),
        }
    }
    fn quoted_key(self, text: String) -> String {
        text
    }
    fn contains(map: &Self::Map, key: &String) -> bool {
        map.contains_key(key)
    }
    fn insert(map: &mut Self::Map, key: String, value: Value) {
        map.insert(key, value);
    }
    fn map(map: Self::Map) -> Value {
        Value::Map(Map::from_btree(map))
    }
    fn seq(items: Vec<Value>) -> Value {
        Value::List(List::new(items))
    }
    fn nil() -> Value {
        Value::Nil
    }
    fn text(s: String) -> Value {
        Value::String(s.into())
    }
    fn scalar(self, s: &str) -> Option<Value> {
        // Converted as the long path converts it; a number JSON cannot hold is that
        // path's to report.
        match super::helm_jsonable(plain_value(s)?) {
            Ok(Value::Float(f)) if !f.is_finite() => self.refuse(),
            Ok(v) => Some(v),
            Err(_) => self.refuse(),
        }
    }
}

fn read<S: Sink>(text: &str, sink: S) -> Option<S::Value> {
    if !printable(text) || memchr::memchr2(b'\t', b'\r', text.as_bytes()).is_some() {
        return None;
    }
    let body = text.strip_suffix('\n');
    let mut r = Reader {
        lines: lines_of(body.unwrap_or(text)),
        i: 0,
        head: None,
        depth: 0,
        ends_in_newline: body.is_some(),
        sink,
        anchors: Vec::new(),
    };
    // A `---` may open the document.
    if let Some(at) = r
        .lines
        .iter()
        .position(|l| !l.trim_start_matches(' ').is_empty() && !l.starts_with('#'))
    {
        if let Some(after) = r.lines[at].strip_prefix("---") {
            if !rest_is_blank(after) {
                return None;
            }
            r.i = at + 1;
        }
    }
    let (indent, rest) = r.peek()?;
    if indent != 0 {
        return None;
    }
    let v = if is_dash(rest) {
        if sink.root_is_mapping() {
            return None;
        }
        r.sequence(0, false)?
    } else {
        r.mapping(0, true)?
    };
    // Only blank and comment lines may follow the root.
    (r.peek().is_none() && !r.refused()).then_some(v)
}

/// An anchor's or alias's name as go-yaml reads one: letters, digits, `-`, `_`.
fn is_anchor_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// `text.split('\n')`, collected: one vectorised pass over the text instead of a
/// search started at each line (values files are mostly short lines).
fn lines_of(text: &str) -> Vec<&str> {
    let mut out = Vec::with_capacity(text.len() / 16 + 1);
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', text.as_bytes()) {
        out.push(&text[start..end]);
        start = end + 1;
    }
    out.push(&text[start..]);
    out
}

struct Reader<'a, S: Sink> {
    lines: Vec<&'a str>,
    /// The line to read next.
    i: usize,
    /// The rest of line `i` after a dash, and its column, when a node starts there.
    head: Option<(usize, &'a str)>,
    depth: usize,
    /// A block scalar on the last line without a newline is chomped differently;
    /// such texts are left to the decoder.
    ends_in_newline: bool,
    sink: S,
    /// The anchored scalars read so far (`&name value`), the latest of a name
    /// last, as an alias (`*name`) finds them.
    anchors: Vec<(&'a str, S::Value)>,
}

impl<'a, S: Sink> Reader<'a, S> {
    /// The next line with content (skipping blank and comment lines): its
    /// indentation and text. Lines that would end the document are refused.
    fn peek(&mut self) -> Option<(usize, &'a str)> {
        if let Some(h) = self.head {
            return Some(h);
        }
        while let Some(&line) = self.lines.get(self.i) {
            let rest = line.trim_start_matches(' ');
            if rest.is_empty() || rest.starts_with('#') {
                self.i += 1;
                continue;
            }
            let indent = line.len() - rest.len();
            if indent == 0 && (rest.starts_with("---") || rest.starts_with("...")) {
                // A document marker (or text the decoder must judge).
                self.i = self.lines.len() + 1;
                return None;
            }
            return Some((indent, rest));
        }
        None
    }

    /// Whether `peek` gave up on a line rather than reaching the end.
    fn refused(&self) -> bool {
        self.i > self.lines.len()
    }

    fn advance(&mut self) {
        self.head = None;
        self.i += 1;
    }

    /// The next line of a collection in column `col`: `Some(Some(text))`, or
    /// `Some(None)` where the collection ends (the text ends, or a line stands left
    /// of it); `None` for what the decoder must judge (a deeper line, a refused one).
    fn line_in(&mut self, col: usize) -> Option<Option<&'a str>> {
        match self.peek() {
            None if self.refused() => None,
            None => Some(None),
            Some((indent, _)) if indent < col => Some(None),
            Some((indent, _)) if indent > col => None,
            Some((_, rest)) => Some(Some(rest)),
        }
    }

    fn enter(&mut self) -> Option<()> {
        self.depth += 1;
        (self.depth <= MAX_DEPTH).then_some(())
    }

    /// A block mapping whose keys stand in column `col`; `root` for the document's
    /// own (see [`Sink::plain_key`]).
    fn mapping(&mut self, col: usize, root: bool) -> Option<S::Value> {
        self.enter()?;
        let mut m = S::Map::default();
        while let Some(rest) = self.line_in(col)? {
            if is_dash(rest) {
                return None;
            }
            let (key, after) = match rest.as_bytes()[0] {
                q @ (b'"' | b'\'') => match scan_quoted(rest.as_bytes(), q, 1) {
                    // A simple key is at most 1024 characters.
                    Quoted::Closed(end) if end <= 512 => (
                        self.sink.quoted_key(unquote(&rest[1..end - 1], q)?),
                        after_key_colon(&rest[end..])?,
                    ),
                    _ => return None,
                },
                _ => {
                    let (key, after) = plain_key(rest)?;
                    (self.sink.plain_key(key, root)?, after)
                }
            };
            if S::contains(&m, &key) {
                return None;
            }
            self.advance();
            let value = if rest_is_blank(after) {
                self.below(col, true)?
            } else {
                self.inline(col, after.trim_start_matches(' '))?
            };
            S::insert(&mut m, key, value);
        }
        self.depth -= 1;
        Some(S::map(m))
    }

    /// A block sequence whose dashes stand in column `col`; an indentless one (the
    /// value of a key in the same column) ends at the first line that is no dash.
    fn sequence(&mut self, col: usize, indentless: bool) -> Option<S::Value> {
        self.enter()?;
        let mut items = Vec::new();
        while let Some(rest) = self.line_in(col)? {
            if !is_dash(rest) {
                if indentless {
                    break;
                }
                return None;
            }
            let after = &rest[1..];
            if rest_is_blank(after) {
                self.advance();
                items.push(self.below(col, false)?);
                continue;
            }
            let content = after.trim_start_matches(' ');
            let at = col + 1 + (after.len() - content.len());
            if is_dash(content) {
                self.head = Some((at, content));
                items.push(self.sequence(at, false)?);
            } else if starts_key(content)? {
                self.head = Some((at, content));
                items.push(self.mapping(at, false)?);
            } else {
                self.advance();
                items.push(self.inline(col, content)?);
            }
        }
        self.depth -= 1;
        Some(S::seq(items))
    }

    /// The value of a key (or dash) in column `col` with nothing after it on its
    /// line: a collection on the lines below, or null.
    fn below(&mut self, col: usize, allow_indentless: bool) -> Option<S::Value> {
        let Some((indent, rest)) = self.peek() else {
            return (!self.refused()).then(S::nil);
        };
        if indent > col {
            if is_dash(rest) {
                self.sequence(indent, false)
            } else if starts_key(rest)? {
                self.mapping(indent, false)
            } else {
                // The value alone on the next line (`resources:` then `  {}`).
                self.advance();
                self.inline(col, rest)
            }
        } else if indent == col && allow_indentless && is_dash(rest) {
            self.sequence(col, true)
        } else {
            Some(S::nil())
        }
    }

    /// A value written on the line of its key or dash; `col` is the column of the
    /// collection holding it. Line `i` is already the one after it.
    fn inline(&mut self, col: usize, v: &'a str) -> Option<S::Value> {
        // Anchors and aliases of single-line scalars (`port: &port 9121`, then
        // `targetPort: *port`); anchored collections, and anything else with them,
        // are the decoder's.
        if let Some(rest) = v.strip_prefix('&') {
            let (name, after) = rest.split_once(' ')?;
            let after = after.trim_start_matches(' ');
            if !is_anchor_name(name)
                || !matches!(after.as_bytes().first(), Some(c) if !b"#|>[{&*!".contains(c))
            {
                return None;
            }
            let value = self.inline(col, after)?;
            self.anchors.push((name, value.clone()));
            return Some(value);
        }
        let value = match v.as_bytes().first()? {
            b'*' => {
                let rest = &v[1..];
                let (name, tail) = rest.split_at(rest.find(' ').unwrap_or(rest.len()));
                if !is_anchor_name(name) || !rest_is_blank(tail) {
                    return None;
                }
                let (_, anchored) = self.anchors.iter().rev().find(|(n, _)| *n == name)?;
                anchored.clone()
            }
            &q @ (b'"' | b'\'') => match scan_quoted(v.as_bytes(), q, 1) {
                Quoted::Closed(end) if rest_is_blank(&v[end..]) => {
                    S::text(unquote(&v[1..end - 1], q)?)
                }
                _ => return None,
            },
            b'|' => return self.literal(col, &v[1..], false),
            b'>' => return self.literal(col, &v[1..], true),
            b'[' if !v[1..].trim_start_matches(' ').starts_with(']') => {
                let (items, end) = flow_sequence(v, self.sink)?;
                if !rest_is_blank(&v[end..]) {
                    return None;
                }
                S::seq(items)
            }
            // Empty, with or without spaces inside (`{}`, `{ }`).
            &open @ (b'{' | b'[') => {
                let inner = v[1..].trim_start_matches(' ');
                let close = if open == b'{' { '}' } else { ']' };
                let rest = inner.strip_prefix(close)?;
                if !rest_is_blank(rest) {
                    return None;
                }
                if open == b'{' {
                    S::map(S::Map::default())
                } else {
                    S::seq(Vec::new())
                }
            }
            _ if !plain_start(v) => return None,
            _ => {
                let scalar = before_comment(v).0.trim_end_matches(' ');
                if holds_mapping_value(scalar) {
                    return None;
                }
                self.sink.scalar(scalar)?
            }
        };
        // Nothing may be indented deeper below a value that ended on its line: a
        // plain scalar would go on there, anything else is an error.
        match self.peek() {
            Some((indent, _)) if indent > col => None,
            None if self.refused() => None,
            _ => Some(value),
        }
    }

    /// A literal block scalar (`|`, `|-`, `|+`) under a collection in column `col`;
    /// `header` is what follows the `|`. With `folded`, a folded one (`>`, `>-`,
    /// `>+`) of the plain kind: its lines all at one indentation and none blank
    /// between them, so that every line break folds into a space (`htpasswd: >-`
    /// over one long line, in several charts' values); more-indented or blank
    /// lines, which fold otherwise, are the decoder's.
    fn literal(&mut self, col: usize, header: &str, folded: bool) -> Option<S::Value> {
        #[derive(PartialEq)]
        enum Chomp {
            Clip,
            Strip,
            Keep,
        }
        let (chomp, rest) = match header.as_bytes().first() {
            Some(b'-') => (Chomp::Strip, &header[1..]),
            Some(b'+') => (Chomp::Keep, &header[1..]),
            _ => (Chomp::Clip, header),
        };
        // An explicit indentation indicator, or anything else, is the decoder's.
        if !rest_is_blank(rest) {
            return None;
        }
        // An empty scalar (`affinity: |`, then empty lines or none, then a line no
        // deeper than the collection): empty text whatever its indicator but `+`,
        // whose kept line breaks are the decoder's, as is a line of spaces.
        let mut j = self.i;
        while self.lines.get(j) == Some(&"") {
            j += 1;
        }
        if let Some(next) = self.lines.get(j) {
            let spaces = next.len() - next.trim_start_matches(' ').len();
            if spaces <= col && spaces < next.len() {
                if chomp == Chomp::Keep {
                    return None;
                }
                self.i = j;
                return Some(S::text(String::new()));
            }
        }
        // The first line fixes the indentation; blank lines before it (whose
        // length then matters) are left to the decoder.
        let first = *self.lines.get(self.i)?;
        let indent = first.len() - first.trim_start_matches(' ').len();
        if indent == first.len() || indent <= col {
            return None;
        }
        let mut out = String::new();
        let mut blanks = 0usize;
        while let Some(&line) = self.lines.get(self.i) {
            let spaces = line.len() - line.trim_start_matches(' ').len();
            if spaces == line.len() && spaces <= indent {
                blanks += 1;
                self.i += 1;
                continue;
            }
            if spaces < indent {
                break;
            }
            if folded {
                if spaces > indent || blanks > 0 {
                    return None;
                }
                if !out.is_empty() {
                    out.push(' ');
                }
            } else {
                if !out.is_empty() || blanks > 0 {
                    out.push('\n');
                }
                out.extend(std::iter::repeat_n('\n', blanks));
            }
            blanks = 0;
            out.push_str(&line[indent..]);
            self.i += 1;
        }
        if self.i >= self.lines.len() && !self.ends_in_newline {
            return None;
        }
        match chomp {
            Chomp::Strip => {}
            Chomp::Clip => out.push('\n'),
            Chomp::Keep => out.extend(std::iter::repeat_n('\n', blanks + 1)),
        }
        Some(S::text(out))
    }
}

/// A plain scalar's value, typed as go-yaml types it for an `interface{}` target
/// (timestamps stay text).
fn plain_value(s: &str) -> Option<GoValue> {
    let r = resolve("", s).ok()?;
    Some(match r.value {
        GoValue::Nil => GoValue::Nil,
        _ if r.tag == TIMESTAMP_TAG => GoValue::Str(s.to_string()),
        v => v,
    })
}

/// A flow sequence of scalars closing on its line (`["a", b, 1]`), and the byte
/// past its `]`. Plain items are only the unremarkable ones: no indicators at
/// their start, no `:`, `#`, quotes or brackets inside.
fn flow_sequence<S: Sink>(v: &str, sink: S) -> Option<(Vec<S::Value>, usize)> {
    let b = v.as_bytes();
    let skip = |mut i: usize| {
        while b.get(i) == Some(&b' ') {
            i += 1;
        }
        i
    };
    let mut items = Vec::new();
    let mut i = skip(1);
    loop {
        let c = *b.get(i)?;
        let item = match c {
            b'"' | b'\'' => match scan_quoted(b, c, i + 1) {
                Quoted::Closed(end) => {
                    let s = unquote(&v[i + 1..end - 1], c)?;
                    i = end;
                    S::text(s)
                }
                _ => return None,
            },
            _ if is_indicator(c) || c == b' ' => return None,
            _ => {
                let len = b[i..].iter().position(|&x| matches!(x, b',' | b']'))?;
                let text = v[i..i + len].trim_end_matches(' ');
                if text
                    .bytes()
                    .any(|x| matches!(x, b':' | b'#' | b'"' | b'\'' | b'[' | b'{' | b'}'))
                {
                    return None;
                }
                i += len;
                sink.scalar(text)?
            }
        };
        items.push(item);
        i = skip(i);
        match b.get(i)? {
            b']' => return Some((items, i + 1)),
            b',' => {
                i = skip(i + 1);
                // A trailing comma, and anything stranger, is the decoder's.
                if matches!(b.get(i)?, b']' | b',') {
                    return None;
                }
            }
            _ => return None,
        }
    }
}

/// The text of a one-line quoted scalar. Of double-quoted escapes, the common
/// ones (`\"`, `\\`, `\n`, `\t`, `\r`, `\ `) are read here, as go-yaml
/// reads them; any other (`\x41`, `\u00e9`, `\N`, and `\/`, which go-yaml
/// refuses) gives `None`. Values files quote templates for `tpl` this way
/// (`"{{ template \"x\" . }}"`), and one such line sent the whole file down
/// the full decoder.
fn unquote(inner: &str, quote: u8) -> Option<String> {
    if quote == b'\'' {
        return Some(inner.replace("''", "'"));
    }
    if !inner.contains('\\') {
        return Some(inner.to_string());
    }
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        out.push(match chars.next()? {
            '"' => '"',
            '\\' => '\\',
            'n' => '\n',
            't' => '\t',
            'r' => '\r',
            ' ' => ' ',
            _ => return None,
        });
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::super::decode::{Decoder, Target};
    use super::super::parse_first;
    use super::*;

    #[test]
    fn lines_are_split_as_by_split() {
        for text in ["", "\n", "a", "a\n", "a\nb", "\n\na\n\n", "é\nü\n\nx"] {
            let want: Vec<&str> = text.split('\n').collect();
            assert_eq!(lines_of(text), want, "{text:?}");
        }
    }

    /// What the full decoder makes of `text` (`None` on any error, and where
    /// go-yaml would record a type error).
    fn full(text: &str, target: Target) -> Option<GoValue> {
        let doc = parse_first(text).ok()??;
        let v = Decoder::new(&doc, false).decode_document(target).ok()?;
        // A root of another kind is a type error for the string-keyed target.
        let root_is_map = doc
            .content()
            .is_some_and(|c| doc.node(c).kind == super::super::compose::NodeKind::Mapping);
        (target == Target::Interface || root_is_map).then_some(v)
    }

    fn same(a: &GoValue, b: &GoValue) -> bool {
        match (a, b) {
            (GoValue::Nil, GoValue::Nil) => true,
            (GoValue::Bool(x), GoValue::Bool(y)) => x == y,
            (GoValue::Int(x), GoValue::Int(y)) => x == y,
            (GoValue::Uint(x), GoValue::Uint(y)) => x == y,
            (GoValue::Float(x), GoValue::Float(y)) => x.to_bits() == y.to_bits(),
            (GoValue::Str(x), GoValue::Str(y)) => x == y,
            (GoValue::Seq(x), GoValue::Seq(y)) => {
                x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q))
            }
            (GoValue::Map(x), GoValue::Map(y)) => {
                x.len() == y.len()
                    && x.iter()
                        .zip(y.iter())
                        .all(|((k1, v1), (k2, v2))| same(k1, k2) && same(v1, v2))
            }
            _ => false,
        }
    }

    /// Holds [`helm_document`] to the decoder's Helm path (the full decoder, then
    /// the conversion through JSON) on `text`.
    fn helm_agrees(text: &str) {
        let Ok(fast) = helm_document(text) else {
            return;
        };
        let opts = super::super::DecodeOptions {
            mode: super::super::Mode::Helm(super::super::HelmTarget::Any),
            strict: false,
        };
        let doc = parse_first(text).expect("parses");
        match super::super::decode_doc(doc.as_ref(), text, &opts, false) {
            Ok((slow, _)) => assert!(
                fast.deep_equal(&slow) && fast.type_name() == slow.type_name(),
                "Helm values differ for:\n{text}\nfast: {fast:?}\nfull: {slow:?}"
            ),
            Err(e) => panic!("read a text Helm rejects:\n{text}\n{}", e.message),
        }
    }

    /// Holds the reader to its promise on `text`, for both targets and as Helm
    /// reads it; whether it read it (into `interface{}`).
    fn agrees(text: &str) -> bool {
        helm_agrees(text);
        if matches!(helm_document(text), Err(Left::Shape)) {
            assert!(
                document(text, false).is_none(),
                "refused as outside the subset, yet read:\n{text}"
            );
        }
        let mut read = false;
        for (string_keys, target) in [(false, Target::Interface), (true, Target::StringMap)] {
            let Some(fast) = document(text, string_keys) else {
                continue;
            };
            read |= !string_keys;
            match full(text, target) {
                Some(slow) => assert!(
                    same(&fast, &slow),
                    "values differ for:\n{text}\nfast: {fast:?}\nfull: {slow:?}"
                ),
                None => panic!("read a text the decoder rejects:\n{text}\nfast: {fast:?}"),
            }
        }
        read
    }

    #[test]
    fn builds_helm_values_directly_where_it_can() {
        let v = helm_document("a: 1\nb: [x, 2]\nc:\n  d: ~\n").expect("read");
        let want = "map[a:1 b:[x 2] c:map[d:<nil>]]";
        assert_eq!(crate::template::fmt::sprint(std::slice::from_ref(&v)), want);
        assert!(matches!(v, Value::Map(ref m) if matches!(m.get("a"), Some(Value::Float(_)))));
        // Keys that are not strings, and numbers JSON cannot hold, go the long way.
        for text in ["1: x\n", "on: x\n", "a: .inf\n", "a:\n  ~: 1\n"] {
            assert!(helm_document(text).is_err(), "{text}");
            agrees(text);
        }
        // Those the reader itself could read are left as conversions, which the
        // caller then reads as go-yaml's.
        for text in ["1: x\n", "on: x\n", "a: .inf\n"] {
            assert_eq!(helm_document(text).err(), Some(Left::Conversion), "{text}");
            assert!(document(text, false).is_some(), "{text}");
        }
    }

    #[test]
    fn reads_the_common_shapes() {
        let texts = [
            "a: 1\nb: on\nc: ~\nd:\ne: 2024-01-02\nf: 0777\ng: 1e3\nh: 'it''s'\ni: \"x # y\"\n",
            "# head\n\nimage:\n  repository: nginx # c\n  tag: \"1.2\"\n  pullSecrets: []\n  extra: {}\n",
            "list:\n- a\n- b: 1\n  c: 2\n-\n- - x\n  - y\nafter: 1\n",
            "list:\n  - name: a\n    value: '1'\n  - name: b\n    items:\n    - 1\n    - 2\n    more: x\n",
            "script: |\n  line one\n\n    indented\n  last\nnext: 1\n",
            "strip: |-\n  a\n  b\n\n\nkeep: |+\n  a\n\n\nclip: |\n  a\n\n",
            "s:\n  - |\n    in a list\n  - k: |\n      in a map\n",
            "1: int key\n1.5: float\ntrue: bool\nkey with spaces: v\nurl: http://x:80/y\n",
            "- top\n- level: seq\n",
            "a: 1\nb: |\n  x\nc: no newline",
            "a:\n  # deeper comment\n  b: 1\n    # deeper still\nc: 2\n",
            "a: b\n  # a comment below a scalar\nc: 2\n",
            "k: |\n  has # hash\n  and: colon\n",
            "k: |\n    spaces kept\n      \n    after\n",
            "a: [1, \"two\", 'three', four five, 0.5]\nb: [x]\n",
            "\"helm.sh/hook\": pre-install\n'q''s': 1\n",
            "---\na: 1\n",
            "--- # c\na:\n  plain alone\nb:\n  {}\nc:\n  - x\n",
            "a: { }\nb: [  ]\nc:\n- {  } # c\n",
            "a: &x 1\nb: *x\nc: &y \"q\" # c\nd:\n- *y\n- &z plain words\ne: *z # c\nf: &x two\ng: *x\n",
            "a: |\n\n# c\nb: |-\nc:\n  d: >\n\n\n  # c\n  e: 1\nf:\n- |\n- x\n",
            "a: >-\n  one line\nb: >\n  two\n  lines  \n\nc: >+\n  kept\n\n\nd:\n- >\n    x\n    y\ne: 1\n",
            "a: \"esc\\n\"\nb: \"{{ template \\\"x\\\" . }}\"\nc: \"\\\\ \\t \\r \\ \"\n",
            "\"k\\\"q\": 1\nl:\n- \"a\\\\b\" # c\n",
        ];
        for t in texts {
            assert!(agrees(t), "not read:\n{t}");
        }
    }

    #[test]
    fn leaves_the_rest_to_the_decoder() {
        let texts = [
            "",
            "# only a comment\n",
            "a: |\n  x",
            "<<: {a: 1}\n",
            "a: {b: 1}\n",
            "a: >\n  more\n    indented\n",
            "a: |+\n\nb: 1\n",
            "a: *x\n",
            "a: &x\n  b: 1\nc: *x\n",
            "a: &x {b: 1}\nc: *x\n",
            "a: &x |\n  t\nc: *x\n",
            "&k a: 1\n",
            "a: &x 1\nb: *x.y\n",
            "a: &x 1\nb: *x\n  c: 2\n",
            "a: |\n  \nb: 1\n",
            "a: >\n  blank\n\n  between\n",
            "a: >2\n   x\n",
            "a: |2\n   x\n",
            "a: |\n\n  x\n",
            "a: multi\n  line\n",
            "a: 'multi\n  line'\n",
            "a: \"esc\\x41\"\n",
            "a: \"\\u00e9\"\n",
            "a: \"\\N\"\n",
            "a: \"\\/\"\n",
            "a: 1\na: 2\n",
            "a:\tb\n",
            "a: 1\r\n",
            "a: 1\n---\nb: 2\n",
            "  a: 1\n",
            "a:\n  b: 1\n c: 2\n",
            "a: !!str 1\n",
            "a: b: c\n",
            "list:\n  - a\n  b: 1\n",
            "a: 1\n  b: 2\n",
            "? a\n: b\n",
            "a: [1, ]\n",
            "a: [a: b]\n",
            "a: [[1]]\n",
            "a: [1, 2\n",
            "a: [1] x\n",
            "a:\n  plain\n  more\n",
            "a:\n  plain\n    more\n",
        ];
        for t in texts {
            assert!(document(t, false).is_none(), "read:\n{t}");
            assert_eq!(helm_document(t).err(), Some(Left::Shape), "{t}");
        }
    }

    /// Every YAML file under `dir` (recursively), smaller than 256 KB.
    fn yaml_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                yaml_files(&p, out);
            } else if p
                .extension()
                .is_some_and(|x| x == "yaml" || x == "yml" || x == "gotmpl")
                && e.metadata().is_ok_and(|m| m.len() < 256 * 1024)
            {
                out.push(p);
            }
        }
    }

    /// Small edits of one line each: the kinds of change that turn a readable text
    /// into one the decoder reads differently or rejects.
    fn mutations(text: &str, budget: usize) -> Vec<String> {
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        let step = (lines.len() / budget.max(1)).max(1);
        let mut out = Vec::new();
        for i in (0..lines.len()).step_by(step) {
            let l = lines[i];
            let body = l.trim_end_matches('\n');
            let edits = [
                String::new(),
                format!(" {l}"),
                l.strip_prefix(' ').unwrap_or(l).to_string(),
                format!("{body}:\n"),
                format!("{body} x: y\n"),
                body.replacen(": ", ":", 1) + "\n",
                format!("- {l}"),
                format!("{l}{l}"),
                format!("{body}\n  more\n"),
                body.replacen(": ", ": |\n", 1) + "\n",
                format!("{body} #\n"),
                format!("{l}\n"),
            ];
            for e in edits {
                let mut t = String::with_capacity(text.len() + 16);
                lines[..i].iter().for_each(|x| t.push_str(x));
                t.push_str(&e);
                lines[i + 1..].iter().for_each(|x| t.push_str(x));
                out.push(t);
            }
        }
        out
    }

    fn sweep(
        root: &std::path::Path,
        budget: usize,
        only: fn(&std::path::Path) -> bool,
    ) -> (usize, usize, usize) {
        let mut files = Vec::new();
        yaml_files(root, &mut files);
        files.retain(|f| only(f));
        files.sort();
        let (mut read, mut total, mut mutants) = (0, 0, 0);
        for f in &files {
            let Ok(text) = std::fs::read_to_string(f) else {
                continue;
            };
            total += 1;
            if agrees(&text) {
                read += 1;
            }
            agrees(text.trim_end_matches('\n'));
            for m in mutations(&text, budget) {
                mutants += usize::from(agrees(&m));
            }
        }
        (read, total, mutants)
    }

    /// The repository's own YAML files and line edits of them: wherever the reader
    /// answers, the full decoder reads the text to the same value.
    #[test]
    fn agrees_with_the_decoder_on_the_repository() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut read = 0;
        for dir in ["charts-under-test", "testdata", "rules"] {
            let (r, t, m) = sweep(&root.join(dir), 12, |_| true);
            eprintln!("{dir}: read {r} of {t} files, {m} mutants");
            read += r;
        }
        assert!(read > 100, "the reader read only {read} files");
    }

    /// The same over the values files of the shared corpus and NVCF stack, when
    /// present.
    #[test]
    fn agrees_with_the_decoder_on_shared_data() {
        let Some(shared) = std::env::var_os("STACKPROOF_SHARED") else {
            eprintln!("skip: STACKPROOF_SHARED is not set");
            return;
        };
        let shared = std::path::Path::new(&shared);
        for dir in ["corpus/charts", "nvcf"] {
            let (r, t, m) = sweep(&shared.join(dir), 12, |f| {
                f.file_name()
                    .is_some_and(|n| n.to_string_lossy().contains("values"))
            });
            eprintln!("{dir}: read {r} of {t} files, {m} mutants");
        }
    }
}
