//! A YAML tree that remembers where every node came from, and a serde deserializer over it.
//!
//! Configuration and rule errors must point at `file:line:col`, and findings must point at
//! the values-file line or rendered-manifest line that a rule looked at. Plain YAML-to-JSON
//! loaders forget positions, so this module builds its own tree from `saphyr-parser` events
//! ([`YNode`]), deserializes typed structs straight from it (errors carry the position of the
//! innermost node that failed, including unknown keys), and converts it to JSON together
//! with an [`Origins`] map from normalized JSONPath (`$['a'][0]`) to position.
//!
//! Scalars follow the YAML 1.2 core schema (the one people expect from a config file):
//! `true`/`false`, `null`/`~`, decimal, octal (`0o`) and hex (`0x`) integers, floats.
//! Quoted scalars are always strings.

use std::collections::BTreeMap;
use std::fmt;

use saphyr_parser::{Event, Parser, ScalarStyle};
use serde::de::{self, DeserializeSeed, IntoDeserializer, MapAccess, SeqAccess, Visitor};

use crate::source::Location;

/// A position in a text: 1-based line and column (in characters), and the byte offset.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pos {
    pub line: u32,
    pub col: u32,
    pub offset: u32,
}

impl Pos {
    pub fn location(&self, file: &str) -> Location {
        Location {
            file: file.to_string(),
            line: self.line as usize,
            column: self.col as usize,
        }
    }
}

/// A YAML node with the position where it starts.
#[derive(Clone, Debug, PartialEq)]
pub struct YNode {
    pub pos: Pos,
    pub kind: YKind,
}

#[derive(Clone, Debug, PartialEq)]
pub enum YKind {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    /// A string; `raw` of other scalars is kept so a string field accepts `version: 1.10`
    /// as the text the user wrote.
    Str(String),
    Seq(Vec<YNode>),
    /// Entries in document order; keys are nodes so their positions survive.
    Map(Vec<(YNode, YNode)>),
}

/// The text a scalar was written as (for keys and for string fields given a number).
fn scalar_text(k: &YKind) -> Option<String> {
    match k {
        YKind::Null => Some("null".into()),
        YKind::Bool(b) => Some(b.to_string()),
        YKind::Int(i) => Some(i.to_string()),
        YKind::Float(f) => Some(format_float(*f)),
        YKind::Str(s) => Some(s.clone()),
        _ => None,
    }
}

fn format_float(f: f64) -> String {
    if f.is_nan() {
        ".nan".into()
    } else if f.is_infinite() {
        if f > 0.0 { ".inf" } else { "-.inf" }.into()
    } else {
        let s = f.to_string();
        if s.contains('.') || s.contains('e') {
            s
        } else {
            format!("{s}.0")
        }
    }
}

impl YNode {
    /// The node's text when it is a scalar (keys are compared this way).
    pub fn as_key(&self) -> Option<String> {
        scalar_text(&self.kind)
    }

    pub fn as_str(&self) -> Option<&str> {
        match &self.kind {
            YKind::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The value of `key` in a mapping node.
    pub fn get(&self, key: &str) -> Option<&YNode> {
        match &self.kind {
            YKind::Map(entries) => entries
                .iter()
                .find(|(k, _)| k.as_key().as_deref() == Some(key))
                .map(|(_, v)| v),
            _ => None,
        }
    }

    /// The position of `key` itself in a mapping node.
    pub fn key_pos(&self, key: &str) -> Option<Pos> {
        match &self.kind {
            YKind::Map(entries) => entries
                .iter()
                .find(|(k, _)| k.as_key().as_deref() == Some(key))
                .map(|(k, _)| k.pos),
            _ => None,
        }
    }

    pub fn index(&self, i: usize) -> Option<&YNode> {
        match &self.kind {
            YKind::Seq(items) => items.get(i),
            _ => None,
        }
    }

    pub fn type_name(&self) -> &'static str {
        match self.kind {
            YKind::Null => "null",
            YKind::Bool(_) => "boolean",
            YKind::Int(_) => "integer",
            YKind::Float(_) => "float",
            YKind::Str(_) => "string",
            YKind::Seq(_) => "sequence",
            YKind::Map(_) => "mapping",
        }
    }

    /// Converts to JSON (maps become sorted JSON objects; NaN and infinities become
    /// their YAML spelling as strings, which JSON cannot hold).
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value as J;
        match &self.kind {
            YKind::Null => J::Null,
            YKind::Bool(b) => J::Bool(*b),
            YKind::Int(i) => J::from(*i),
            YKind::Float(f) => serde_json::Number::from_f64(*f)
                .map(J::Number)
                .unwrap_or_else(|| J::String(format_float(*f))),
            YKind::Str(s) => J::String(s.clone()),
            YKind::Seq(items) => J::Array(items.iter().map(YNode::to_json).collect()),
            YKind::Map(entries) => {
                let mut m = serde_json::Map::new();
                for (k, v) in entries {
                    m.insert(k.as_key().unwrap_or_default(), v.to_json());
                }
                J::Object(m)
            }
        }
    }

    /// Records the position of this node and every node below it, keyed by normalized
    /// JSONPath, into `out`. A mapping or sequence under a key is recorded at its key
    /// (`data:`), which is where a reader looks for it; scalars at their value.
    pub fn collect_positions(&self, path: &mut String, out: &mut BTreeMap<String, Pos>) {
        out.entry(path.clone()).or_insert(self.pos);
        match &self.kind {
            YKind::Seq(items) => {
                for (i, item) in items.iter().enumerate() {
                    let len = path.len();
                    path.push_str(&format!("[{i}]"));
                    item.collect_positions(path, out);
                    path.truncate(len);
                }
            }
            YKind::Map(entries) => {
                for (k, v) in entries {
                    let len = path.len();
                    push_member(path, &k.as_key().unwrap_or_default());
                    if matches!(v.kind, YKind::Map(_) | YKind::Seq(_)) {
                        out.insert(path.clone(), k.pos);
                    }
                    v.collect_positions(path, out);
                    path.truncate(len);
                }
            }
            _ => {}
        }
    }
}

/// Appends a member name to a normalized JSONPath (RFC 9535 §2.7), the form
/// `jsonpath-rust` reports for its matches, so positions can be looked up by match path.
pub fn push_member(path: &mut String, name: &str) {
    path.push_str("['");
    for ch in name.chars() {
        match ch {
            '\u{0008}' => path.push_str("\\b"),
            '\u{000C}' => path.push_str("\\f"),
            '\n' => path.push_str("\\n"),
            '\r' => path.push_str("\\r"),
            '\t' => path.push_str("\\t"),
            '\'' => path.push_str("\\'"),
            '\\' => path.push_str("\\\\"),
            c if c < '\u{0020}' => path.push_str(&format!("\\u{:04x}", c as u32)),
            c => path.push(c),
        }
    }
    path.push_str("']");
}

/// A YAML syntax error or a typed-deserialization error, with the position it refers to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct YamlError {
    pub message: String,
    pub pos: Option<Pos>,
}

impl fmt::Display for YamlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.pos {
            Some(p) => write!(f, "{}:{}: {}", p.line, p.col, self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for YamlError {}

impl de::Error for YamlError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        YamlError {
            message: msg.to_string(),
            pos: None,
        }
    }
}

impl YamlError {
    fn at(mut self, pos: Pos) -> Self {
        if self.pos.is_none() {
            self.pos = Some(pos);
        }
        self
    }
}

/// Maps parser character indices to byte offsets (they differ only for non-ASCII text).
struct Offsets {
    table: Option<Vec<u32>>,
}

impl Offsets {
    fn new(text: &str) -> Offsets {
        if text.is_ascii() {
            return Offsets { table: None };
        }
        let mut t: Vec<u32> = text.char_indices().map(|(b, _)| b as u32).collect();
        t.push(text.len() as u32);
        Offsets { table: Some(t) }
    }

    fn pos(&self, m: &saphyr_parser::Marker) -> Pos {
        let offset = match &self.table {
            None => m.index() as u32,
            Some(t) => t.get(m.index()).copied().unwrap_or(0),
        };
        Pos {
            line: m.line() as u32,
            col: m.col() as u32 + 1,
            offset,
        }
    }
}

/// How to treat a key that appears twice in one mapping.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Duplicates {
    /// An error (configuration and rule files: a repeated key is always a mistake).
    Reject,
    /// The later entry wins (rendered manifests and values files, as Helm reads them).
    LastWins,
}

enum Frame {
    Seq(Pos, Option<usize>, Vec<YNode>),
    /// Position, anchor, explicit entries, entries from `<<` merges, pending key.
    Map(
        Pos,
        Option<usize>,
        Vec<(YNode, YNode)>,
        Vec<(YNode, YNode)>,
        Option<YNode>,
    ),
}

/// Parses every document of a YAML stream. An empty stream gives no documents; a
/// document that is only `---` gives a null node.
pub fn parse_documents(text: &str, dups: Duplicates) -> Result<Vec<YNode>, YamlError> {
    let offsets = Offsets::new(text);
    let mut parser = Parser::new_from_str(text);
    let mut docs = Vec::new();
    let mut stack: Vec<Frame> = Vec::new();
    let mut anchors: BTreeMap<usize, YNode> = BTreeMap::new();
    let mut root: Option<YNode> = None;

    while let Some(ev) = parser.next_event() {
        let (ev, span) = ev.map_err(|e| YamlError {
            message: e.info().to_string(),
            pos: Some(offsets.pos(e.marker())),
        })?;
        let pos = offsets.pos(&span.start);
        let finished: Option<(YNode, Option<usize>)> = match ev {
            Event::StreamStart | Event::StreamEnd | Event::Nothing => None,
            Event::DocumentStart(_) => {
                root = None;
                None
            }
            Event::DocumentEnd => {
                docs.push(root.take().unwrap_or(YNode {
                    pos,
                    kind: YKind::Null,
                }));
                None
            }
            Event::Alias(id) => match anchors.get(&id) {
                Some(n) => Some((n.clone(), None)),
                None => {
                    return Err(YamlError {
                        message: "unknown anchor".into(),
                        pos: Some(pos),
                    })
                }
            },
            Event::Scalar(v, style, anchor, tag) => {
                let tag_suffix = tag.as_ref().map(|t| t.suffix.clone());
                let kind = resolve_scalar(&v, style, tag_suffix.as_deref());
                Some((YNode { pos, kind }, Some(anchor).filter(|a| *a != 0)))
            }
            Event::SequenceStart(anchor, _) => {
                stack.push(Frame::Seq(
                    pos,
                    Some(anchor).filter(|a| *a != 0),
                    Vec::new(),
                ));
                None
            }
            Event::MappingStart(anchor, _) => {
                stack.push(Frame::Map(
                    pos,
                    Some(anchor).filter(|a| *a != 0),
                    Vec::new(),
                    Vec::new(),
                    None,
                ));
                None
            }
            Event::SequenceEnd => match stack.pop() {
                Some(Frame::Seq(p, a, items)) => Some((
                    YNode {
                        pos: p,
                        kind: YKind::Seq(items),
                    },
                    a,
                )),
                _ => {
                    return Err(YamlError {
                        message: "unbalanced sequence".into(),
                        pos: Some(pos),
                    })
                }
            },
            Event::MappingEnd => match stack.pop() {
                Some(Frame::Map(p, a, mut entries, merged, _)) => {
                    for (k, v) in merged {
                        let name = k.as_key();
                        if !entries.iter().any(|(ek, _)| ek.as_key() == name) {
                            entries.push((k, v));
                        }
                    }
                    Some((
                        YNode {
                            pos: p,
                            kind: YKind::Map(entries),
                        },
                        a,
                    ))
                }
                _ => {
                    return Err(YamlError {
                        message: "unbalanced mapping".into(),
                        pos: Some(pos),
                    })
                }
            },
        };
        let Some((node, anchor)) = finished else {
            continue;
        };
        if let Some(a) = anchor {
            anchors.insert(a, node.clone());
        }
        match stack.last_mut() {
            None => root = Some(node),
            Some(Frame::Seq(_, _, items)) => items.push(node),
            Some(Frame::Map(_, _, entries, merged, pending)) => match pending.take() {
                None => {
                    if matches!(node.kind, YKind::Seq(_) | YKind::Map(_)) {
                        return Err(YamlError {
                            message: "a mapping key must be a scalar".into(),
                            pos: Some(node.pos),
                        });
                    }
                    *pending = Some(node);
                }
                Some(key) => {
                    let name = key.as_key().unwrap_or_default();
                    if name == "<<" {
                        merge_into(merged, node)?;
                        continue;
                    }
                    if let Some(i) = entries
                        .iter()
                        .position(|(k, _)| k.as_key().as_deref() == Some(&name))
                    {
                        match dups {
                            Duplicates::Reject => {
                                return Err(YamlError {
                                    message: format!(
                                        "duplicate key `{name}` (first at line {})",
                                        entries[i].0.pos.line
                                    ),
                                    pos: Some(key.pos),
                                })
                            }
                            Duplicates::LastWins => {
                                entries[i] = (key, node);
                                continue;
                            }
                        }
                    }
                    entries.push((key, node));
                }
            },
        }
    }
    Ok(docs)
}

/// YAML merge keys (`<<: *base`): collects the merged mappings' entries; explicit keys of
/// the mapping win over them, and an earlier merge source wins over a later one.
fn merge_into(entries: &mut Vec<(YNode, YNode)>, merged: YNode) -> Result<(), YamlError> {
    let sources = match merged.kind {
        YKind::Map(_) => vec![merged],
        YKind::Seq(items) => items,
        _ => {
            return Err(YamlError {
                message: "`<<` merges a mapping or a list of mappings".into(),
                pos: Some(merged.pos),
            })
        }
    };
    for src in sources {
        let YKind::Map(src_entries) = src.kind else {
            return Err(YamlError {
                message: "`<<` merges a mapping or a list of mappings".into(),
                pos: Some(src.pos),
            });
        };
        for (k, v) in src_entries {
            let name = k.as_key();
            if !entries.iter().any(|(ek, _)| ek.as_key() == name) {
                entries.push((k, v));
            }
        }
    }
    Ok(())
}

/// Parses a text that must hold exactly one document (an empty text is a null node).
pub fn parse_one(text: &str, dups: Duplicates) -> Result<YNode, YamlError> {
    let mut docs = parse_documents(text, dups)?;
    match docs.len() {
        0 => Ok(YNode {
            pos: Pos {
                line: 1,
                col: 1,
                offset: 0,
            },
            kind: YKind::Null,
        }),
        1 => Ok(docs.remove(0)),
        _ => Err(YamlError {
            message: "expected one YAML document, found several".into(),
            pos: Some(docs[1].pos),
        }),
    }
}

fn resolve_scalar(v: &str, style: ScalarStyle, tag: Option<&str>) -> YKind {
    match tag {
        Some("str") => return YKind::Str(v.to_string()),
        Some("int") | Some("float") | Some("bool") | Some("null") => {
            let k = resolve_plain(v);
            let ok = matches!(
                (tag, &k),
                (Some("int"), YKind::Int(_))
                    | (Some("float"), YKind::Float(_))
                    | (Some("bool"), YKind::Bool(_))
                    | (Some("null"), YKind::Null)
            );
            if ok {
                return k;
            }
            if tag == Some("float") {
                if let YKind::Int(i) = k {
                    return YKind::Float(i as f64);
                }
            }
            return YKind::Str(v.to_string());
        }
        _ => {}
    }
    if style != ScalarStyle::Plain {
        return YKind::Str(v.to_string());
    }
    resolve_plain(v)
}

/// The YAML 1.2 core schema for plain scalars.
fn resolve_plain(v: &str) -> YKind {
    match v {
        "" | "~" | "null" | "Null" | "NULL" => return YKind::Null,
        "true" | "True" | "TRUE" => return YKind::Bool(true),
        "false" | "False" | "FALSE" => return YKind::Bool(false),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
            return YKind::Float(f64::INFINITY)
        }
        "-.inf" | "-.Inf" | "-.INF" => return YKind::Float(f64::NEG_INFINITY),
        ".nan" | ".NaN" | ".NAN" => return YKind::Float(f64::NAN),
        _ => {}
    }
    if let Some(hex) = v.strip_prefix("0x") {
        if let Ok(i) = i64::from_str_radix(hex, 16) {
            return YKind::Int(i);
        }
    }
    if let Some(oct) = v.strip_prefix("0o") {
        if let Ok(i) = i64::from_str_radix(oct, 8) {
            return YKind::Int(i);
        }
    }
    let digits = v.strip_prefix(['-', '+']).unwrap_or(v);
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        if let Ok(i) = v.parse::<i64>() {
            return YKind::Int(i);
        }
        if let Ok(f) = v.parse::<f64>() {
            return YKind::Float(f);
        }
    }
    if looks_like_float(digits) {
        if let Ok(f) = v.parse::<f64>() {
            return YKind::Float(f);
        }
    }
    YKind::Str(v.to_string())
}

/// `[0-9]*(\.[0-9]*)?([eE][-+]?[0-9]+)?` with at least one digit before the exponent.
fn looks_like_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    let mut mantissa_digits = 0;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
        mantissa_digits += 1;
    }
    if i < b.len() && b[i] == b'.' {
        i += 1;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
            mantissa_digits += 1;
        }
    }
    if mantissa_digits == 0 {
        return false;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == start {
            return false;
        }
    }
    i == b.len()
}

/// Deserializes a typed value from a node; errors carry the innermost failing position.
pub fn from_node<'de, T: serde::Deserialize<'de>>(node: &'de YNode) -> Result<T, YamlError> {
    T::deserialize(node).map_err(|e| e.at(node.pos))
}

impl<'de> de::Deserializer<'de> for &'de YNode {
    type Error = YamlError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, YamlError> {
        let r = match &self.kind {
            YKind::Null => visitor.visit_unit(),
            YKind::Bool(b) => visitor.visit_bool(*b),
            YKind::Int(i) => visitor.visit_i64(*i),
            YKind::Float(f) => visitor.visit_f64(*f),
            YKind::Str(s) => visitor.visit_borrowed_str(s),
            YKind::Seq(items) => visitor.visit_seq(SeqNodes { iter: items.iter() }),
            YKind::Map(entries) => visitor.visit_map(MapNodes {
                iter: entries.iter(),
                value: None,
            }),
        };
        r.map_err(|e| e.at(self.pos))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, YamlError> {
        match self.kind {
            YKind::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
        .map_err(|e| e.at(self.pos))
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, YamlError> {
        let r: Result<V::Value, YamlError> = match &self.kind {
            YKind::Str(s) => visitor.visit_borrowed_str(s),
            YKind::Bool(_) | YKind::Int(_) | YKind::Float(_) => {
                visitor.visit_string(scalar_text(&self.kind).unwrap_or_default())
            }
            _ => return self.deserialize_any(visitor),
        };
        r.map_err(|e| e.at(self.pos))
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, YamlError> {
        self.deserialize_str(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, YamlError> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, YamlError> {
        match &self.kind {
            YKind::Str(s) => visitor.visit_enum(s.as_str().into_deserializer()),
            YKind::Map(entries) if entries.len() == 1 => visitor.visit_enum(EnumNode {
                key: &entries[0].0,
                value: &entries[0].1,
            }),
            _ => Err(YamlError {
                message: format!(
                    "expected a name or a single-key mapping, found a {}",
                    self.type_name()
                ),
                pos: Some(self.pos),
            }),
        }
        .map_err(|e| e.at(self.pos))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char
        bytes byte_buf unit unit_struct seq tuple
        tuple_struct map struct identifier ignored_any
    }
}

struct SeqNodes<'de> {
    iter: std::slice::Iter<'de, YNode>,
}

impl<'de> SeqAccess<'de> for SeqNodes<'de> {
    type Error = YamlError;
    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, YamlError> {
        match self.iter.next() {
            Some(n) => seed.deserialize(n).map(Some).map_err(|e| e.at(n.pos)),
            None => Ok(None),
        }
    }
}

struct MapNodes<'de> {
    iter: std::slice::Iter<'de, (YNode, YNode)>,
    value: Option<&'de YNode>,
}

impl<'de> MapAccess<'de> for MapNodes<'de> {
    type Error = YamlError;
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, YamlError> {
        match self.iter.next() {
            Some((k, v)) => {
                self.value = Some(v);
                seed.deserialize(k).map(Some).map_err(|e| e.at(k.pos))
            }
            None => Ok(None),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, YamlError> {
        match self.value.take() {
            Some(v) => seed.deserialize(v).map_err(|e| e.at(v.pos)),
            None => Err(de::Error::custom("value requested before key")),
        }
    }
}

struct EnumNode<'de> {
    key: &'de YNode,
    value: &'de YNode,
}

impl<'de> de::EnumAccess<'de> for EnumNode<'de> {
    type Error = YamlError;
    type Variant = &'de YNode;
    fn variant_seed<V: DeserializeSeed<'de>>(
        self,
        seed: V,
    ) -> Result<(V::Value, &'de YNode), YamlError> {
        let v = seed.deserialize(self.key).map_err(|e| e.at(self.key.pos))?;
        Ok((v, self.value))
    }
}

impl<'de> de::VariantAccess<'de> for &'de YNode {
    type Error = YamlError;
    fn unit_variant(self) -> Result<(), YamlError> {
        match self.kind {
            YKind::Null => Ok(()),
            _ => Err(YamlError {
                message: "this variant takes no value".into(),
                pos: Some(self.pos),
            }),
        }
    }
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, YamlError> {
        seed.deserialize(self)
    }
    fn tuple_variant<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, YamlError> {
        de::Deserializer::deserialize_any(self, visitor)
    }
    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, YamlError> {
        de::Deserializer::deserialize_any(self, visitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize, Debug)]
    #[serde(deny_unknown_fields)]
    struct T {
        #[allow(dead_code)]
        name: String,
        #[allow(dead_code)]
        count: Option<u32>,
    }

    #[test]
    fn positions_are_one_based() {
        let n = parse_one("a:\n  b: [1, 2]\n", Duplicates::Reject).unwrap();
        let b = n.get("a").unwrap().get("b").unwrap();
        assert_eq!((b.pos.line, b.pos.col), (2, 6));
        let mut out = BTreeMap::new();
        n.collect_positions(&mut "$".to_string(), &mut out);
        let p = out["$['a']['b'][1]"];
        assert_eq!((p.line, p.col), (2, 10));
        let b = out["$['a']['b']"];
        assert_eq!((b.line, b.col), (2, 3));
    }

    #[test]
    fn unknown_field_points_at_the_key() {
        let n = parse_one("name: x\ncolor: red\n", Duplicates::Reject).unwrap();
        let e = from_node::<T>(&n).unwrap_err();
        assert!(e.message.contains("unknown field `color`"), "{e}");
        assert_eq!(e.pos.map(|p| (p.line, p.col)), Some((2, 1)));
    }

    #[test]
    fn wrong_type_points_at_the_value() {
        let n = parse_one("name: x\ncount: many\n", Duplicates::Reject).unwrap();
        let e = from_node::<T>(&n).unwrap_err();
        assert_eq!(e.pos.map(|p| (p.line, p.col)), Some((2, 8)));
    }

    #[test]
    fn duplicates_are_rejected_or_replaced() {
        let e = parse_one("a: 1\na: 2\n", Duplicates::Reject).unwrap_err();
        assert_eq!(e.pos.map(|p| p.line), Some(2));
        let n = parse_one("a: 1\na: 2\n", Duplicates::LastWins).unwrap();
        assert_eq!(n.to_json(), serde_json::json!({"a": 2}));
    }

    #[test]
    fn scalars_follow_the_core_schema() {
        let n = parse_one(
            "a: true\nb: '1'\nc: 0x1F\nd: 1.5e3\ne: ~\nf: yes\ng: 007\nh: !!str 3\n",
            Duplicates::Reject,
        )
        .unwrap();
        assert_eq!(
            n.to_json(),
            serde_json::json!({"a": true, "b": "1", "c": 31, "d": 1500.0, "e": null, "f": "yes", "g": 7, "h": "3"})
        );
    }

    #[test]
    fn anchors_and_merge_keys() {
        let n = parse_one(
            "base: &b {x: 1, y: 2}\nother:\n  <<: *b\n  y: 3\n",
            Duplicates::Reject,
        )
        .unwrap();
        assert_eq!(
            n.get("other").unwrap().to_json(),
            serde_json::json!({"x": 1, "y": 3})
        );
    }

    #[test]
    fn syntax_errors_have_positions() {
        let e = parse_one("a: [1, 2\nb: 3\n", Duplicates::Reject).unwrap_err();
        assert!(e.pos.is_some());
    }

    #[test]
    fn multi_document_streams() {
        let docs = parse_documents("a: 1\n---\nb: 2\n---\n", Duplicates::Reject).unwrap();
        assert_eq!(docs.len(), 3);
        assert_eq!(docs[1].pos.line, 3);
        assert_eq!(docs[2].kind, YKind::Null);
    }

    #[test]
    fn non_ascii_offsets_are_bytes() {
        let text = "é: x\nb: y\n";
        let n = parse_one(text, Duplicates::Reject).unwrap();
        let b = n.get("b").unwrap();
        assert_eq!(&text[b.pos.offset as usize..b.pos.offset as usize + 1], "y");
    }
}
