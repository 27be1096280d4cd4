//! go-yaml v2's decoder from nodes to Go values, for the two targets Helm and
//! Helmfile use: `interface{}` (maps become `map[interface{}]interface{}` with typed
//! keys) and `map[string]interface{}` at the top (keys taken as their raw text).
//!
//! The details that show up in output are all here: merge keys are applied in place
//! in document order (so an explicit key *before* `<<` is overridden by the merge),
//! strict mode reports duplicate keys, including keys set by a merge, as type errors
//! collected for the whole document, aliases to an enclosing anchor fail, and
//! timestamps decode as plain strings.

use std::collections::HashMap;

use super::compose::{Document, NodeId, NodeKind};
use super::gofmt;
use super::resolve::{self, resolve, BINARY_TAG, MAP_TAG, MERGE_TAG, SEQ_TAG, STR_TAG};
use crate::source::FastSet;

/// A value as go-yaml v2 decodes it into `interface{}`.
#[derive(Clone, Debug)]
pub enum GoValue {
    Nil,
    Bool(bool),
    /// A Go `int` (64-bit).
    Int(i64),
    /// A Go `uint64` (integers above `i64::MAX`).
    Uint(u64),
    Float(f64),
    Str(String),
    /// `[]interface{}`
    Seq(Vec<GoValue>),
    /// `map[interface{}]interface{}` (or `map[string]interface{}` with string keys).
    Map(GoMap),
}

impl GoValue {
    /// Go's `reflect.Kind` number, which go-yaml's key sorter compares.
    pub fn kind_rank(&self) -> u8 {
        match self {
            GoValue::Bool(_) => 1,
            GoValue::Int(_) => 2,
            GoValue::Uint(_) => 11,
            GoValue::Float(_) => 14,
            GoValue::Nil => 20,
            GoValue::Map(_) => 21,
            GoValue::Seq(_) => 23,
            GoValue::Str(_) => 24,
        }
    }

    /// The Go type name (`%T`).
    pub fn type_name(&self) -> &'static str {
        match self {
            GoValue::Nil => "<nil>",
            GoValue::Bool(_) => "bool",
            GoValue::Int(_) => "int",
            GoValue::Uint(_) => "uint64",
            GoValue::Float(_) => "float64",
            GoValue::Str(_) => "string",
            GoValue::Seq(_) => "[]interface {}",
            GoValue::Map(_) => "map[interface {}]interface {}",
        }
    }
}

/// Go's `==` on interface map keys: same dynamic type and value, with `+0 == -0`,
/// NaN never equal to anything, and slices/maps (only reachable as merge-built keys)
/// never found again.
fn key_eq(a: &GoValue, b: &GoValue) -> bool {
    match (a, b) {
        (GoValue::Nil, GoValue::Nil) => true,
        (GoValue::Bool(x), GoValue::Bool(y)) => x == y,
        (GoValue::Int(x), GoValue::Int(y)) => x == y,
        (GoValue::Uint(x), GoValue::Uint(y)) => x == y,
        (GoValue::Float(x), GoValue::Float(y)) => x == y,
        (GoValue::Str(x), GoValue::Str(y)) => x == y,
        _ => false,
    }
}

/// A hash consistent with [`key_eq`]; `None` for keys that equal nothing.
fn key_hash(k: &GoValue) -> Option<u64> {
    // FNV-1a: keys are short, and a keyed hash buys nothing for a map that lives
    // only while one document is decoded.
    fn fnv(seed: u64, bytes: &[u8]) -> u64 {
        let mut h = 0xcbf2_9ce4_8422_2325 ^ seed;
        for &b in bytes {
            h ^= b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        h
    }
    Some(match k {
        GoValue::Nil => fnv(1, &[]),
        GoValue::Bool(b) => fnv(2, &[*b as u8]),
        GoValue::Int(i) => fnv(3, &i.to_le_bytes()),
        GoValue::Uint(u) => fnv(4, &u.to_le_bytes()),
        GoValue::Float(f) if f.is_nan() => return None,
        GoValue::Float(f) => {
            let bits = if *f == 0.0 { 0 } else { f.to_bits() };
            fnv(5, &bits.to_le_bytes())
        }
        GoValue::Str(s) => fnv(6, s.as_bytes()),
        GoValue::Seq(_) | GoValue::Map(_) => return None,
    })
}

/// Maps up to this size are searched linearly; larger ones get a hash index.
const LINEAR_MAX: usize = 8;
const NO_ENTRY: usize = usize::MAX;

/// The hash index of a large [`GoMap`]: per hash the newest entry, and per entry the
/// previous entry with the same hash (keys are never removed, so chains only grow).
#[derive(Clone, Debug, Default)]
struct KeyIndex {
    heads: HashMap<u64, usize, std::hash::BuildHasherDefault<IdentityHasher>>,
    prev: Vec<usize>,
}

/// The index's keys are already hashes.
#[derive(Default)]
struct IdentityHasher(u64);

impl std::hash::Hasher for IdentityHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | b as u64;
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

impl KeyIndex {
    fn add(&mut self, k: &GoValue, pos: usize) {
        let prev = match key_hash(k) {
            Some(h) => self.heads.insert(h, pos).unwrap_or(NO_ENTRY),
            None => NO_ENTRY,
        };
        self.prev.push(prev);
    }
}

/// A Go map with interface keys, keeping insertion order for determinism (Go's own
/// iteration order is random, so any fixed order is as faithful as another).
#[derive(Clone, Debug, Default)]
pub struct GoMap {
    entries: Vec<(GoValue, GoValue)>,
    /// Present once the map has more than [`LINEAR_MAX`] entries.
    index: Option<KeyIndex>,
    /// A Go struct's fields rather than a map: yaml.v2 writes them in declaration
    /// (insertion) order instead of sorting the keys.
    is_struct: bool,
}

impl GoMap {
    pub fn new() -> GoMap {
        GoMap::default()
    }

    /// An empty map with room for `n` entries.
    pub fn with_capacity(n: usize) -> GoMap {
        GoMap {
            entries: Vec::with_capacity(n),
            index: None,
            is_struct: false,
        }
    }

    /// A struct's fields, named and ordered as the encoder should write them.
    pub fn go_struct(fields: impl IntoIterator<Item = (String, GoValue)>) -> GoMap {
        let mut m = GoMap::new();
        for (k, v) in fields {
            m.insert(GoValue::Str(k), v);
        }
        m.is_struct = true;
        m
    }

    /// Whether this holds a struct's fields (see [`GoMap::go_struct`]).
    pub fn is_struct(&self) -> bool {
        self.is_struct
    }

    fn position(&self, k: &GoValue) -> Option<usize> {
        match &self.index {
            None => self.entries.iter().position(|(e, _)| key_eq(e, k)),
            Some(ix) => {
                let mut i = *ix.heads.get(&key_hash(k)?)?;
                while i != NO_ENTRY {
                    if key_eq(&self.entries[i].0, k) {
                        return Some(i);
                    }
                    i = ix.prev[i];
                }
                None
            }
        }
    }

    pub fn get(&self, k: &GoValue) -> Option<&GoValue> {
        self.position(k).map(|i| &self.entries[i].1)
    }

    pub fn get_mut(&mut self, k: &GoValue) -> Option<&mut GoValue> {
        self.position(k).map(|i| &mut self.entries[i].1)
    }

    pub fn contains_key(&self, k: &GoValue) -> bool {
        self.position(k).is_some()
    }

    /// Sets `k` to `v`; an existing equal key keeps its original spelling (Go map
    /// assignment does not replace keys).
    pub fn insert(&mut self, k: GoValue, v: GoValue) {
        if let Some(i) = self.position(&k) {
            self.entries[i].1 = v;
            return;
        }
        let pos = self.entries.len();
        match &mut self.index {
            Some(ix) => ix.add(&k, pos),
            None if pos == LINEAR_MAX => {
                let mut ix = KeyIndex::default();
                for (i, (e, _)) in self.entries.iter().enumerate() {
                    ix.add(e, i);
                }
                ix.add(&k, pos);
                self.index = Some(ix);
            }
            None => {}
        }
        self.entries.push((k, v));
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entries with their values writable (keys stay as they are, so the
    /// index stays right).
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (&GoValue, &mut GoValue)> {
        self.entries.iter_mut().map(|(k, v)| (&*k, v))
    }

    pub fn iter(&self) -> impl Iterator<Item = &(GoValue, GoValue)> {
        self.entries.iter()
    }

    pub fn into_entries(self) -> Vec<(GoValue, GoValue)> {
        self.entries
    }
}

/// What the top of the document is decoded into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// `interface{}`.
    Interface,
    /// `map[string]interface{}` (Helmfile's values files and `fromYaml`).
    StringMap,
}

/// One segment of a value path.
#[derive(Clone, Debug)]
pub enum RawSeg {
    Key(GoValue),
    Index(usize),
}

/// Where a value (and its key) was written, recorded while decoding.
#[derive(Clone, Debug)]
pub struct SpanRecord {
    pub path: Vec<RawSeg>,
    pub key: Option<(usize, usize)>,
    pub value: (usize, usize),
}

/// A fatal decode failure (`yaml: ...`, without the prefix) and the byte offset of
/// the node concerned.
#[derive(Clone, Debug)]
pub struct Fatal {
    pub message: String,
    pub offset: usize,
}

type Result<T> = std::result::Result<T, Fatal>;

pub struct Decoder<'d> {
    doc: &'d Document,
    strict: bool,
    aliases: FastSet<NodeId>,
    /// Collected `line N: ...` type errors (go-yaml's `d.terrors`).
    pub terrors: Vec<String>,
    pub terror_offsets: Vec<usize>,
    decode_count: usize,
    alias_count: usize,
    alias_depth: usize,
    path: Vec<RawSeg>,
    pub spans: Option<Vec<SpanRecord>>,
}

fn allowed_alias_ratio(decode_count: usize) -> f64 {
    const LOW: usize = 400_000;
    const HIGH: usize = 4_000_000;
    if decode_count <= LOW {
        0.99
    } else if decode_count >= HIGH {
        0.10
    } else {
        0.99 - 0.89 * ((decode_count - LOW) as f64 / (HIGH - LOW) as f64)
    }
}

/// Go `encoding/base64` StdEncoding `DecodeString` (newlines ignored, padding required).
fn base64_decode(s: &str) -> Option<Vec<u8>> {
    let vals: Vec<u8> = s.bytes().filter(|&b| b != b'\n' && b != b'\r').collect();
    if vals.len() % 4 != 0 {
        return None;
    }
    let dec = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => (c - b'A') as u32,
            b'a'..=b'z' => (c - b'a' + 26) as u32,
            b'0'..=b'9' => (c - b'0' + 52) as u32,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        })
    };
    let mut out = Vec::with_capacity(vals.len() / 4 * 3);
    let chunks = vals.len() / 4;
    for (ci, ch) in vals.chunks(4).enumerate() {
        let last = ci + 1 == chunks;
        let pad = ch.iter().rev().take_while(|&&c| c == b'=').count();
        if pad > 2 || (pad > 0 && !last) {
            return None;
        }
        let mut n: u32 = 0;
        for &c in &ch[..4 - pad] {
            n = (n << 6) | dec(c)?;
        }
        n <<= 6 * pad as u32;
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..3 - pad]);
    }
    Some(out)
}

impl<'d> Decoder<'d> {
    pub fn new(doc: &'d Document, strict: bool) -> Decoder<'d> {
        Decoder {
            doc,
            strict,
            aliases: FastSet::default(),
            terrors: Vec::new(),
            terror_offsets: Vec::new(),
            decode_count: 0,
            alias_count: 0,
            alias_depth: 0,
            path: Vec::new(),
            spans: None,
        }
    }

    pub fn with_spans(mut self) -> Self {
        self.spans = Some(Vec::new());
        self
    }

    fn fail(&self, id: NodeId, message: String) -> Fatal {
        let n = self.doc.node(id);
        Fatal {
            message,
            offset: n.start,
        }
    }

    fn count(&mut self, id: NodeId) -> Result<()> {
        self.decode_count += 1;
        if self.alias_depth > 0 {
            self.alias_count += 1;
        }
        if self.alias_count > 100
            && self.decode_count > 1000
            && (self.alias_count as f64 / self.decode_count as f64)
                > allowed_alias_ratio(self.decode_count)
        {
            return Err(self.fail(id, "document contains excessive aliasing".to_string()));
        }
        Ok(())
    }

    fn terror(&mut self, id: NodeId, tag: &str, into: &str) {
        let n = self.doc.node(id);
        let tag = if n.tag.is_empty() {
            tag
        } else {
            n.tag.as_str()
        };
        let mut value = String::new();
        if tag != SEQ_TAG && tag != MAP_TAG {
            if n.value.len() > 10 {
                let cut = String::from_utf8_lossy(&n.value.as_bytes()[..7]).into_owned();
                value = format!(" `{cut}...`");
            } else {
                value = format!(" `{}`", n.value);
            }
        }
        self.terrors.push(format!(
            "line {}: cannot unmarshal {}{} into {}",
            n.line + 1,
            resolve::short_tag(tag),
            value,
            into
        ));
        self.terror_offsets.push(n.start);
    }

    fn record(&mut self, key: Option<NodeId>, value: NodeId) {
        if let Some(spans) = &mut self.spans {
            let kspan = key.map(|k| {
                let n = self.doc.node(k);
                (n.start, n.end)
            });
            let v = self.doc.node(value);
            spans.push(SpanRecord {
                path: self.path.clone(),
                key: kspan,
                value: (v.start, v.end),
            });
        }
    }

    /// Decodes the document into `target`.
    pub fn decode_document(&mut self, target: Target) -> Result<GoValue> {
        let root = self.doc.root;
        self.count(root)?;
        let Some(content) = self.doc.content() else {
            return Ok(GoValue::Nil);
        };
        let v = match target {
            Target::Interface => self.iface(content)?,
            Target::StringMap => self.string_map_top(content)?,
        };
        self.record(None, content);
        Ok(v)
    }

    fn enter_alias(&mut self, id: NodeId) -> Result<NodeId> {
        if self.aliases.contains(&id) {
            let name = self.doc.node(id).value.clone();
            return Err(self.fail(id, format!("anchor '{name}' value contains itself")));
        }
        self.aliases.insert(id);
        self.alias_depth += 1;
        match self.doc.node(id).alias {
            Some(t) => Ok(t),
            None => Err(self.fail(id, "unknown anchor referenced".to_string())),
        }
    }

    fn leave_alias(&mut self, id: NodeId) {
        self.alias_depth -= 1;
        self.aliases.remove(&id);
    }

    /// Decodes a node into an `interface{}`.
    pub fn iface(&mut self, id: NodeId) -> Result<GoValue> {
        self.count(id)?;
        let kind = self.doc.node(id).kind;
        match kind {
            NodeKind::Document => match self.doc.node(id).children.first().copied() {
                Some(c) if self.doc.node(id).children.len() == 1 => self.iface(c),
                _ => Ok(GoValue::Nil),
            },
            NodeKind::Alias => {
                let t = self.enter_alias(id)?;
                let r = self.iface(t);
                self.leave_alias(id);
                r
            }
            NodeKind::Scalar => self.scalar_iface(id),
            NodeKind::Sequence => {
                let doc = self.doc;
                let children = &doc.node(id).children;
                let mut out = Vec::with_capacity(children.len());
                let tracking = self.spans.is_some();
                for (i, &c) in children.iter().enumerate() {
                    if tracking {
                        self.path.push(RawSeg::Index(i));
                    }
                    let v = self.iface(c);
                    if tracking {
                        if v.is_ok() {
                            self.record(None, c);
                        }
                        self.path.pop();
                    }
                    out.push(v?);
                }
                Ok(GoValue::Seq(out))
            }
            NodeKind::Mapping => {
                // One entry per key/value pair unless merges or duplicates change it.
                let mut m = GoMap::with_capacity(self.doc.node(id).children.len() / 2);
                self.fill_map(id, &mut m, Target::Interface)?;
                Ok(GoValue::Map(m))
            }
        }
    }

    fn resolve_scalar(&mut self, id: NodeId) -> Result<(&'d str, GoValue)> {
        let n = self.doc.node(id);
        if n.tag.is_empty() && !n.implicit {
            return Ok((STR_TAG, GoValue::Str(n.value.clone())));
        }
        let r = match resolve(&n.tag, &n.value) {
            Ok(r) => r,
            Err(msg) => return Err(self.fail(id, msg)),
        };
        if r.tag == BINARY_TAG {
            let text = match &r.value {
                GoValue::Str(s) => s.clone(),
                _ => String::new(),
            };
            return match base64_decode(&text) {
                Some(bytes) => Ok((
                    r.tag,
                    GoValue::Str(String::from_utf8_lossy(&bytes).into_owned()),
                )),
                None => Err(self.fail(
                    id,
                    "!!binary value contains invalid base64 data".to_string(),
                )),
            };
        }
        Ok((r.tag, r.value))
    }

    fn scalar_iface(&mut self, id: NodeId) -> Result<GoValue> {
        let (tag, v) = self.resolve_scalar(id)?;
        if matches!(v, GoValue::Nil) {
            return Ok(GoValue::Nil);
        }
        if tag == resolve::TIMESTAMP_TAG {
            return Ok(GoValue::Str(self.doc.node(id).value.clone()));
        }
        Ok(v)
    }

    /// Decodes a node into a Go `string` (a key of `map[string]interface{}`); `None`
    /// when go-yaml records a type error instead.
    fn string_target(&mut self, id: NodeId) -> Result<Option<String>> {
        self.count(id)?;
        let kind = self.doc.node(id).kind;
        match kind {
            NodeKind::Alias => {
                let t = self.enter_alias(id)?;
                let r = self.string_target(t);
                self.leave_alias(id);
                r
            }
            NodeKind::Scalar => {
                let (tag, v) = self.resolve_scalar(id)?;
                if matches!(v, GoValue::Nil) {
                    return Ok(Some(String::new()));
                }
                if tag == BINARY_TAG {
                    if let GoValue::Str(s) = v {
                        return Ok(Some(s));
                    }
                }
                Ok(Some(self.doc.node(id).value.clone()))
            }
            NodeKind::Mapping => {
                self.terror(id, MAP_TAG, "string");
                Ok(None)
            }
            NodeKind::Sequence => {
                self.terror(id, SEQ_TAG, "string");
                Ok(None)
            }
            NodeKind::Document => Ok(None),
        }
    }

    fn string_map_top(&mut self, id: NodeId) -> Result<GoValue> {
        self.count(id)?;
        let kind = self.doc.node(id).kind;
        const INTO: &str = "map[string]interface {}";
        match kind {
            NodeKind::Alias => {
                let t = self.enter_alias(id)?;
                let r = self.string_map_top(t);
                self.leave_alias(id);
                r
            }
            NodeKind::Mapping => {
                let mut m = GoMap::with_capacity(self.doc.node(id).children.len() / 2);
                self.fill_map(id, &mut m, Target::StringMap)?;
                Ok(GoValue::Map(m))
            }
            NodeKind::Sequence => {
                self.terror(id, SEQ_TAG, INTO);
                Ok(GoValue::Map(GoMap::new()))
            }
            NodeKind::Scalar => {
                let (tag, v) = self.resolve_scalar(id)?;
                if matches!(v, GoValue::Nil) {
                    return Ok(GoValue::Map(GoMap::new()));
                }
                self.terror(id, tag, INTO);
                Ok(GoValue::Map(GoMap::new()))
            }
            NodeKind::Document => Ok(GoValue::Map(GoMap::new())),
        }
    }

    fn is_merge(&self, id: NodeId) -> bool {
        let n = self.doc.node(id);
        n.kind == NodeKind::Scalar && n.value == "<<" && (n.implicit || n.tag == MERGE_TAG)
    }

    fn fill_map(&mut self, id: NodeId, out: &mut GoMap, mode: Target) -> Result<()> {
        let doc = self.doc;
        let children = &doc.node(id).children;
        let mut i = 0;
        while i + 1 < children.len() {
            let (k, v) = (children[i], children[i + 1]);
            i += 2;
            if self.is_merge(k) {
                self.merge(v, out, mode)?;
                continue;
            }
            let key = match mode {
                Target::Interface => {
                    let key = self.iface(k)?;
                    if matches!(key, GoValue::Map(_) | GoValue::Seq(_)) {
                        return Err(self.fail(
                            k,
                            format!("invalid map key: {}", gofmt::sharp_v(&key, true)),
                        ));
                    }
                    key
                }
                Target::StringMap => match self.string_target(k)? {
                    Some(s) => GoValue::Str(s),
                    None => continue,
                },
            };
            let tracking = self.spans.is_some();
            if tracking {
                self.path.push(RawSeg::Key(key.clone()));
            }
            let value = self.iface(v);
            let value = match value {
                Ok(x) => x,
                Err(e) => {
                    if tracking {
                        self.path.pop();
                    }
                    return Err(e);
                }
            };
            if self.strict && out.contains_key(&key) {
                let line = self.doc.node(v).line + 1;
                self.terrors.push(format!(
                    "line {line}: key {} already set in map",
                    gofmt::sharp_v(&key, true)
                ));
                self.terror_offsets.push(self.doc.node(k).start);
            } else {
                self.record(Some(k), v);
                out.insert(key, value);
            }
            if tracking {
                self.path.pop();
            }
        }
        Ok(())
    }

    fn want_map(&self, id: NodeId) -> Fatal {
        self.fail(
            id,
            "map merge requires map or sequence of maps as the value".to_string(),
        )
    }

    fn alias_target_kind(&self, id: NodeId) -> Option<NodeKind> {
        self.doc.node(id).alias.map(|t| self.doc.node(t).kind)
    }

    /// The nodes a `<<` value merges, in the order they are applied: a map or an
    /// alias of one, or each map of a sequence (earlier maps take precedence, so they
    /// are applied last). Anything else is yaml.v2's "map merge requires..." error.
    fn merge_sources(&self, id: NodeId) -> Result<Vec<NodeId>> {
        let is_map = |n: NodeId| match self.doc.node(n).kind {
            NodeKind::Mapping => true,
            // An alias whose target is unknown is left to the merge to report.
            NodeKind::Alias => self
                .alias_target_kind(n)
                .is_none_or(|k| k == NodeKind::Mapping),
            _ => false,
        };
        if self.doc.node(id).kind == NodeKind::Sequence {
            let children = &self.doc.node(id).children;
            let mut out = Vec::with_capacity(children.len());
            for &c in children.iter().rev() {
                if !is_map(c) {
                    return Err(self.want_map(c));
                }
                out.push(c);
            }
            return Ok(out);
        }
        if is_map(id) {
            Ok(vec![id])
        } else {
            Err(self.want_map(id))
        }
    }

    fn merge(&mut self, id: NodeId, out: &mut GoMap, mode: Target) -> Result<()> {
        for c in self.merge_sources(id)? {
            self.merge_into(c, out, mode)?;
        }
        Ok(())
    }

    /// Decodes a mapping (possibly behind aliases) into an existing map.
    fn merge_into(&mut self, id: NodeId, out: &mut GoMap, mode: Target) -> Result<()> {
        self.count(id)?;
        match self.doc.node(id).kind {
            NodeKind::Alias => {
                let t = self.enter_alias(id)?;
                let r = self.merge_into(t, out, mode);
                self.leave_alias(id);
                r
            }
            NodeKind::Mapping => self.fill_map(id, out, mode),
            _ => Err(self.want_map(id)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_like_go() {
        assert_eq!(base64_decode("aGVsbG8=").as_deref(), Some(&b"hello"[..]));
        assert_eq!(base64_decode("aGVs\nbG8=").as_deref(), Some(&b"hello"[..]));
        assert!(base64_decode("aGVsbG8").is_none());
        assert!(base64_decode("a===").is_none());
    }

    #[test]
    fn go_map_key_identity() {
        let mut m = GoMap::new();
        m.insert(GoValue::Int(1), GoValue::Str("a".into()));
        m.insert(GoValue::Float(1.0), GoValue::Str("b".into()));
        m.insert(GoValue::Str("1".into()), GoValue::Str("c".into()));
        m.insert(GoValue::Float(0.0), GoValue::Nil);
        m.insert(GoValue::Float(-0.0), GoValue::Bool(true));
        m.insert(GoValue::Float(f64::NAN), GoValue::Nil);
        m.insert(GoValue::Float(f64::NAN), GoValue::Nil);
        assert_eq!(m.len(), 6);
    }
}

// ---- resolved node trees -------------------------------------------------------------

/// A node after aliases and merge keys have been applied, keeping the source text,
/// resolved tag and position of every scalar: what a yaml.v2 struct decoder sees.
#[derive(Clone, Debug)]
pub struct RNode {
    /// 1-based line of the node.
    pub line: usize,
    /// Byte range of the node in the input (for an alias: of the anchored node).
    pub span: (usize, usize),
    pub kind: RKind,
}

#[derive(Clone, Debug)]
pub enum RKind {
    /// A scalar that resolves to null (`~`, `null`, empty).
    Null,
    /// A scalar: yaml.v2's `interface{}` value, its text and short tag (`!!str`).
    Scalar {
        value: GoValue,
        text: String,
        tag: String,
    },
    Seq(Vec<RNode>),
    /// Entries in first-insertion order; a key set again (without strict mode)
    /// keeps its place and takes the new value, as a Go map would hold it.
    Map(Vec<REntry>),
}

#[derive(Clone, Debug)]
pub struct REntry {
    /// The key as yaml.v2 decodes it into `interface{}`.
    pub key: GoValue,
    /// The key's scalar text (what a `string` target receives).
    pub key_text: String,
    pub key_line: usize,
    pub key_span: (usize, usize),
    pub value: RNode,
}

impl<'d> Decoder<'d> {
    fn span_of(&self, id: NodeId) -> (usize, usize) {
        let n = self.doc.node(id);
        (n.start, n.end)
    }

    /// The document's content as a resolved tree.
    pub fn resolve_document(&mut self) -> Result<Option<RNode>> {
        let root = self.doc.root;
        self.count(root)?;
        match self.doc.content() {
            Some(c) => self.rnode(c).map(Some),
            None => Ok(None),
        }
    }

    fn rnode(&mut self, id: NodeId) -> Result<RNode> {
        self.count(id)?;
        let doc = self.doc;
        let n = doc.node(id);
        let line = n.line + 1;
        let span = self.span_of(id);
        match n.kind {
            NodeKind::Document => match n.children.first().copied() {
                Some(c) => self.rnode(c),
                None => Ok(RNode {
                    line,
                    span,
                    kind: RKind::Null,
                }),
            },
            NodeKind::Alias => {
                let t = self.enter_alias(id)?;
                let r = self.rnode(t);
                self.leave_alias(id);
                r
            }
            NodeKind::Scalar => {
                let (tag, value) = self.resolve_scalar(id)?;
                let text = self.doc.node(id).value.clone();
                let kind = if matches!(value, GoValue::Nil) {
                    RKind::Null
                } else if tag == resolve::TIMESTAMP_TAG {
                    RKind::Scalar {
                        value: GoValue::Str(text.clone()),
                        text,
                        tag: resolve::short_tag(tag),
                    }
                } else {
                    RKind::Scalar {
                        value,
                        text,
                        tag: resolve::short_tag(tag),
                    }
                };
                Ok(RNode { line, span, kind })
            }
            NodeKind::Sequence => {
                let children = &n.children;
                let mut items = Vec::with_capacity(children.len());
                for &c in children {
                    items.push(self.rnode(c)?);
                }
                Ok(RNode {
                    line,
                    span,
                    kind: RKind::Seq(items),
                })
            }
            NodeKind::Mapping => {
                let mut entries = Vec::new();
                let mut index = GoMap::new();
                self.rfill(id, &mut entries, &mut index)?;
                Ok(RNode {
                    line,
                    span,
                    kind: RKind::Map(entries),
                })
            }
        }
    }

    fn rfill(&mut self, id: NodeId, out: &mut Vec<REntry>, index: &mut GoMap) -> Result<()> {
        let doc = self.doc;
        let children = &doc.node(id).children;
        let mut i = 0;
        while i + 1 < children.len() {
            let (k, v) = (children[i], children[i + 1]);
            i += 2;
            if self.is_merge(k) {
                self.rmerge(v, out, index)?;
                continue;
            }
            let key = self.iface(k)?;
            if matches!(key, GoValue::Map(_) | GoValue::Seq(_)) {
                return Err(self.fail(
                    k,
                    format!("invalid map key: {}", gofmt::sharp_v(&key, true)),
                ));
            }
            let value = self.rnode(v)?;
            let mut key_node = k;
            while let Some(t) = self.doc.node(key_node).alias {
                key_node = t;
            }
            let key_text = self.doc.node(key_node).value.clone();
            if let Some(GoValue::Int(pos)) = index.get(&key).cloned() {
                if self.strict {
                    let line = self.doc.node(v).line + 1;
                    self.terrors.push(format!(
                        "line {line}: key {} already set in map",
                        gofmt::sharp_v(&key, true)
                    ));
                    self.terror_offsets.push(self.doc.node(k).start);
                } else if let Some(e) = out.get_mut(pos as usize) {
                    e.value = value;
                }
                continue;
            }
            index.insert(key.clone(), GoValue::Int(out.len() as i64));
            out.push(REntry {
                key,
                key_text,
                key_line: self.doc.node(k).line + 1,
                key_span: self.span_of(k),
                value,
            });
        }
        Ok(())
    }

    fn rmerge(&mut self, id: NodeId, out: &mut Vec<REntry>, index: &mut GoMap) -> Result<()> {
        for c in self.merge_sources(id)? {
            self.rmerge_into(c, out, index)?;
        }
        Ok(())
    }

    fn rmerge_into(&mut self, id: NodeId, out: &mut Vec<REntry>, index: &mut GoMap) -> Result<()> {
        self.count(id)?;
        match self.doc.node(id).kind {
            NodeKind::Alias => {
                let t = self.enter_alias(id)?;
                let r = self.rmerge_into(t, out, index);
                self.leave_alias(id);
                r
            }
            NodeKind::Mapping => self.rfill(id, out, index),
            _ => Err(self.want_map(id)),
        }
    }
}
