//! A decoded YAML node with its line, the input of Helmfile's strict struct decoding.
//!
//! yaml.v2 decodes a state document into Go structs and, in strict mode, reports
//! every key that names no field (`line 4: field unknownField not found in type
//! state.ReleaseSpec`) and every scalar of the wrong kind (`cannot unmarshal !!str
//! `x` into bool`), with the line of the offending node. Doing the same needs the
//! node tree (after anchors, aliases and `<<` merges are resolved) rather than plain
//! values: the source text of scalars (a `version: 1.10` field is the string
//! `"1.10"`, not the float), their resolved tag, and lines.

use crate::funcs::codec::yaml::{PathSeg, SpanMap};
use crate::source::LineIndex;
use crate::template::{List, Map, Value};

/// The text being decoded and its line index: every node asks for its line.
struct Source<'a> {
    text: &'a str,
    lines: LineIndex,
}

impl Source<'_> {
    fn line_of(&self, offset: usize) -> usize {
        self.lines.line_col(offset).0
    }
}

fn build(v: &Value, spans: Option<&SpanMap>, src: &Source, path: &mut Vec<PathSeg>) -> YNode {
    let text = src.text;
    let here = spans.and_then(|s| s.get(path.as_slice())).copied();
    let line = here.map_or(0, |s| src.line_of(s.value.start as usize));
    let kind = match v {
        Value::Nil => YKind::Null,
        Value::List(l) => YKind::Seq(
            l.iter()
                .enumerate()
                .map(|(i, x)| {
                    path.push(PathSeg::Index(i));
                    let n = build(x, spans, src, path);
                    path.pop();
                    n
                })
                .collect(),
        ),
        Value::Map(m) => {
            let mut entries: Vec<(usize, (YKey, YNode))> = m
                .entries()
                .iter()
                .map(|(k, x)| {
                    path.push(PathSeg::Key(k.clone()));
                    let key_span = spans
                        .and_then(|s| s.get(path.as_slice()))
                        .and_then(|s| s.key);
                    let key_at = key_span.map(|k| k.start as usize);
                    let key_line = key_at.map_or(0, |at| src.line_of(at));
                    let n = build(x, spans, src, path);
                    path.pop();
                    let key = YKey {
                        text: key_span
                            .and_then(|sp| text.get(sp.range()))
                            .and_then(|src| typed_key_text(k, src))
                            .unwrap_or_else(|| k.clone()),
                        line: key_line,
                    };
                    (key_at.unwrap_or(usize::MAX), (key, n))
                })
                .collect();
            // Document order, as yaml.v2 visits a mapping: the order its errors
            // (unknown fields, wrong types) are listed in. Keys without a known
            // place keep their relative order, last.
            entries.sort_by_key(|(at, _)| *at);
            YKind::Map(entries.into_iter().map(|(_, e)| e).collect())
        }
        other => {
            let mut node = YNode::from_value(other);
            if let (YKind::Scalar(s), Some(sp)) = (&mut node.kind, here) {
                if !matches!(other, Value::String(_)) {
                    if let Some(src) = text.get(sp.value.range()) {
                        let t = src.trim();
                        if !t.is_empty() && !t.starts_with(['"', '\'', '!', '&', '*']) {
                            s.text = t.to_string();
                        }
                    }
                }
            }
            node.kind
        }
    };
    YNode { line, kind }
}

/// The source text of a map key that was not a string in the YAML (`1.50:`,
/// `0x1F:`, `true:`), which the state's decode turned into Go's `%v` of it: a field
/// Helmfile reads into `map[string]string` keeps the key as written. `None` for
/// keys written as strings (their plain source text is the key) and for quoted,
/// block, tagged, anchored, aliased or explicit (`? `) keys.
fn typed_key_text(key: &str, src: &str) -> Option<String> {
    let t = src.trim();
    if t == key || t.is_empty() || t.starts_with(['"', '\'', '|', '>', '!', '&', '*', '?']) {
        return None;
    }
    Some(t.to_string())
}

/// A resolved YAML node.
#[derive(Clone, Debug)]
pub struct YNode {
    /// 1-based line of the node's first token (0 when unknown).
    pub line: usize,
    pub kind: YKind,
}

#[derive(Clone, Debug)]
pub enum YKind {
    /// `~`, `null`, or an empty value.
    Null,
    Scalar(Scalar),
    Seq(Vec<YNode>),
    /// Entries in document order; keys are given as yaml.v2 turns them into strings.
    Map(Vec<(YKey, YNode)>),
}

/// A scalar: its yaml.v2-resolved value, its source text and resolved tag.
#[derive(Clone, Debug)]
pub struct Scalar {
    pub value: Value,
    pub text: String,
    /// `!!str`, `!!int`, `!!float`, `!!bool`, `!!binary`, `!!timestamp`.
    pub tag: String,
}

#[derive(Clone, Debug)]
pub struct YKey {
    /// The key as a Go string (a scalar key's source text).
    pub text: String,
    pub line: usize,
}

impl YNode {
    pub fn null(line: usize) -> YNode {
        YNode {
            line,
            kind: YKind::Null,
        }
    }

    /// The node as a Helmfile value (`map[string]any` maps, `[]any` lists).
    pub fn to_value(&self) -> Value {
        match &self.kind {
            YKind::Null => Value::Nil,
            YKind::Scalar(s) => s.value.clone(),
            YKind::Seq(items) => {
                Value::List(List::new(items.iter().map(YNode::to_value).collect()))
            }
            YKind::Map(entries) => {
                let m = Map::new();
                for (k, v) in entries {
                    m.insert(k.text.clone(), v.to_value());
                }
                Value::Map(m)
            }
        }
    }

    /// yaml.v2's short description of a node in type errors: `!!map`, `!!seq`, or
    /// ``!!str `text` `` for scalars.
    pub fn describe(&self) -> String {
        match &self.kind {
            YKind::Null => "!!null".to_string(),
            YKind::Seq(_) => "!!seq".to_string(),
            YKind::Map(_) => "!!map".to_string(),
            YKind::Scalar(s) => {
                let mut t = s.text.clone();
                if t.chars().count() > 10 {
                    t = format!("{}...", t.chars().take(7).collect::<String>());
                }
                format!("{} `{}`", s.tag, t)
            }
        }
    }

    pub fn as_map(&self) -> Option<&[(YKey, YNode)]> {
        match &self.kind {
            YKind::Map(m) => Some(m),
            _ => None,
        }
    }

    /// Builds a node tree from a decoded document and, when known, the spans of its
    /// values (for lines and the source text of scalars).
    pub fn from_decoded(v: &Value, spans: Option<&SpanMap>, text: &str) -> YNode {
        let mut path = Vec::new();
        // Lines come from spans only; without them the index would go unread.
        let lines = LineIndex::new(if spans.is_some() { text } else { "" });
        build(v, spans, &Source { text, lines }, &mut path)
    }

    /// Builds a node tree from a plain value (no lines), for hosts and tests.
    pub fn from_value(v: &Value) -> YNode {
        let kind = match v {
            Value::Nil => YKind::Null,
            Value::List(l) => YKind::Seq(l.iter().map(YNode::from_value).collect()),
            Value::Map(m) => YKind::Map(
                m.entries()
                    .iter()
                    .map(|(k, v)| {
                        (
                            YKey {
                                text: k.clone(),
                                line: 0,
                            },
                            YNode::from_value(v),
                        )
                    })
                    .collect(),
            ),
            other => {
                let (tag, text) = match other {
                    Value::Bool(b) => ("!!bool", b.to_string()),
                    Value::Int(i, _) => ("!!int", i.to_string()),
                    Value::Uint(u, _) => ("!!int", u.to_string()),
                    Value::Float(f) => {
                        ("!!float", crate::template::fmt::format_float(*f, b'g', -1))
                    }
                    Value::String(s) => ("!!str", s.to_string()),
                    _ => ("!!str", crate::template::fmt::format_value(other)),
                };
                YKind::Scalar(Scalar {
                    value: other.clone(),
                    text,
                    tag: tag.to_string(),
                })
            }
        };
        YNode { line: 0, kind }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::helmfile::seams::parse_state_documents;

    fn keys(n: &YNode) -> Vec<&str> {
        match &n.kind {
            YKind::Map(entries) => entries.iter().map(|(k, _)| k.text.as_str()).collect(),
            _ => Vec::new(),
        }
    }

    fn entry<'n>(n: &'n YNode, key: &str) -> &'n YNode {
        match &n.kind {
            YKind::Map(entries) => entries
                .iter()
                .find(|(k, _)| k.text == key)
                .map(|(_, v)| v)
                .expect("key present"),
            _ => panic!("not a map"),
        }
    }

    #[test]
    fn label_keys_keep_the_text_they_were_written_with() {
        let text = "commonLabels:\n  1.50: x\n  0x1F: hex\n  true: yes\n  ~: nul\n  \"q\": 3.10\n  plain: p\n";
        let docs = parse_state_documents(text, true).expect("decodes");
        let labels = entry(&docs[0], "commonLabels");
        let mut got = keys(labels);
        got.sort_unstable();
        assert_eq!(got, ["", "0x1F", "1.50", "plain", "q", "true"]);
        // Values keep their source text too, as a string field does.
        let YKind::Scalar(s) = &entry(labels, "true").kind else {
            panic!("scalar")
        };
        assert_eq!(s.text, "yes");
    }

    #[test]
    fn only_unquoted_plain_keys_take_their_source_text() {
        assert_eq!(typed_key_text("1.5", "1.50"), Some("1.50".to_string()));
        assert_eq!(typed_key_text("a", "a"), None);
        assert_eq!(typed_key_text("a b", "\"a b\""), None);
        assert_eq!(typed_key_text("x", "!!str x"), None);
        assert_eq!(typed_key_text("x", "|\n  x"), None);
    }
}
