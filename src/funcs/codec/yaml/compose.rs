//! Builds go-yaml's node tree from events: one tree per document, anchors resolved to
//! the node they name at the point the alias appears.
//!
//! go-yaml composes a whole document before decoding any of it, so syntax errors
//! anywhere in a document win over type errors; and an alias may only name an anchor
//! defined earlier in the same document (including an enclosing collection, which is
//! how self-referencing documents are built and later rejected by the decoder).

use super::decode::GoValue;
use super::parser::{EventKind, Parser};
use super::resolve::{plain_is_string, resolve};
use super::scanner::{Mark, ScalarStyle, SyntaxError};
use crate::source::FastMap;

/// What a node is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    Document,
    Mapping,
    Sequence,
    Scalar,
    Alias,
}

/// One node, as go-yaml's `node` holds it, plus byte offsets for spans.
#[derive(Clone, Debug)]
pub struct Node {
    pub kind: NodeKind,
    /// 0-based line and column of the node's first event (go-yaml prints `line+1`).
    pub line: usize,
    pub column: usize,
    /// Full tag (`tag:yaml.org,2002:int`), empty when none was written.
    pub tag: String,
    /// Scalar text, or the anchor name of an alias.
    pub value: String,
    /// For scalars: written plain without a tag (or with the `!` tag).
    pub implicit: bool,
    pub style: ScalarStyle,
    pub children: Vec<NodeId>,
    /// For aliases: the node the alias names.
    pub alias: Option<NodeId>,
    /// Byte range of the node in the input.
    pub start: usize,
    pub end: usize,
}

pub type NodeId = usize;

/// A parsed document: all nodes in an arena, the root being the document node.
#[derive(Clone, Debug)]
pub struct Document {
    pub nodes: Vec<Node>,
    pub root: NodeId,
}

impl Document {
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id]
    }

    /// The document's content node (its only child).
    pub fn content(&self) -> Option<NodeId> {
        self.nodes[self.root].children.first().copied()
    }
}

/// Failures while composing: a syntax error or an unknown alias.
#[derive(Clone, Debug)]
pub enum ComposeError {
    Syntax(SyntaxError),
    /// `yaml: ...` message and the byte offset it concerns.
    Other(String, usize),
}

impl From<SyntaxError> for ComposeError {
    fn from(e: SyntaxError) -> Self {
        ComposeError::Syntax(e)
    }
}

type Result<T> = std::result::Result<T, ComposeError>;

pub struct Composer {
    parser: Parser,
    /// A guess at the node count of a document, to size its arena up front.
    nodes_hint: usize,
    peeked: Option<super::parser::Event>,
    started: bool,
}

impl Composer {
    pub fn new(input: &str) -> Composer {
        Composer {
            parser: Parser::new(input),
            // Typical YAML has a node every 10 to 20 bytes; later documents of a
            // stream are assumed to be like the one before.
            nodes_hint: (input.len() / 16).min(4096),
            peeked: None,
            started: false,
        }
    }

    fn peek(&mut self) -> Result<&super::parser::Event> {
        if self.peeked.is_none() {
            match self.parser.next_event()? {
                Some(ev) => self.peeked = Some(ev),
                None => {
                    return Err(ComposeError::Other(
                        "attempted to go past the end of stream; corrupted value?".to_string(),
                        0,
                    ))
                }
            }
        }
        match &self.peeked {
            Some(ev) => Ok(ev),
            None => Err(ComposeError::Other("no event".to_string(), 0)),
        }
    }

    fn take(&mut self) -> Result<super::parser::Event> {
        self.peek()?;
        self.peeked
            .take()
            .ok_or_else(|| ComposeError::Other("no event".to_string(), 0))
    }

    fn expect_stream_end_guard(&mut self) -> Result<()> {
        if matches!(self.peek()?.kind, EventKind::StreamEnd) {
            return Err(ComposeError::Other(
                "attempted to go past the end of stream; corrupted value?".to_string(),
                0,
            ));
        }
        Ok(())
    }

    /// The next document of the stream, or `None` at its end.
    pub fn next_document(&mut self) -> Result<Option<Document>> {
        match self.document(None)? {
            Pruned::Done(d) => Ok(d),
            Pruned::Unsure => Err(ComposeError::Other(
                "internal error: a full document cannot be unsure".to_string(),
                0,
            )),
        }
    }

    /// The next document with only the top-level entries whose key `keep` accepts,
    /// for a reader of a few top-level fields (a manifest's head) that would
    /// otherwise build nodes for megabytes it never reads.
    ///
    /// Every other entry is still parsed, so syntax errors are found where the full
    /// document finds them; `Unsure` means some entry holds what could make decoding
    /// the full document end differently (an anchor, alias, tag, merge key, complex
    /// or null key, a float that is not finite), and the caller must compose the
    /// full document instead. Otherwise decoding the result gives the same entries
    /// and the same errors as decoding the full document.
    pub fn next_pruned_document(&mut self, keep: fn(&str) -> bool) -> Result<Pruned> {
        self.document(Some(keep))
    }

    fn document(&mut self, keep: Option<fn(&str) -> bool>) -> Result<Pruned> {
        if !self.started {
            let ev = self.take()?;
            if !matches!(ev.kind, EventKind::StreamStart) {
                return Err(ComposeError::Other(
                    "expected STREAM-START event".to_string(),
                    ev.start.offset,
                ));
            }
            self.started = true;
        }
        match self.peek()?.kind {
            EventKind::StreamEnd => Ok(Pruned::Done(None)),
            EventKind::DocumentStart { .. } => {
                let mut b = Builder {
                    nodes: Vec::with_capacity(if keep.is_some() { 64 } else { self.nodes_hint }),
                    anchors: FastMap::default(),
                };
                let start = self.take()?;
                let root = b.push(NodeKind::Document, start.start, start.end);
                let child = match keep {
                    None => self.node(&mut b)?,
                    Some(keep) => match self.pruned_root(&mut b, keep)? {
                        Some(id) => id,
                        None => return Ok(Pruned::Unsure),
                    },
                };
                b.nodes[root].children.push(child);
                self.expect_stream_end_guard()?;
                let end = self.take()?;
                if !matches!(end.kind, EventKind::DocumentEnd { .. }) {
                    return Err(ComposeError::Other(
                        "expected DOCUMENT-END event".to_string(),
                        end.start.offset,
                    ));
                }
                b.nodes[root].end = b.nodes[child].end;
                if keep.is_none() {
                    self.nodes_hint = b.nodes.len();
                }
                Ok(Pruned::Done(Some(Document {
                    nodes: b.nodes,
                    root,
                })))
            }
            _ => Err(ComposeError::Other(
                "attempted to parse unknown event".to_string(),
                0,
            )),
        }
    }

    /// The root mapping with only the kept entries; `None` when unsure.
    fn pruned_root(&mut self, b: &mut Builder, keep: fn(&str) -> bool) -> Result<Option<NodeId>> {
        self.expect_stream_end_guard()?;
        let flow = match &self.peek()?.kind {
            EventKind::MappingStart {
                anchor: None,
                tag: None,
                flow,
                ..
            } => *flow,
            _ => return Ok(None),
        };
        let ev = self.take()?;
        let id = b.push(NodeKind::Mapping, ev.start, ev.end);
        loop {
            if matches!(self.peek()?.kind, EventKind::MappingEnd) {
                break;
            }
            self.expect_stream_end_guard()?;
            let kept = match &self.peek()?.kind {
                EventKind::Scalar {
                    anchor: None,
                    tag: None,
                    value,
                    ..
                } => keep(value),
                _ => false,
            };
            if kept {
                let k = self.node(b)?;
                let v = self.node(b)?;
                b.nodes[id].children.push(k);
                b.nodes[id].children.push(v);
            } else if !self.skip_node(true)? || !self.skip_node(false)? {
                return Ok(None);
            }
        }
        let end = self.take()?;
        b.close(id, end.end, flow);
        Ok(Some(id))
    }

    /// Consumes one node without building it; `false` (the rest of the node left
    /// unread) when it holds something [`Composer::next_pruned_document`] cannot
    /// vouch for. `key` says the node is a mapping key.
    fn skip_node(&mut self, key: bool) -> Result<bool> {
        // The collections open inside the node, innermost last: `None` for a
        // sequence, `Some(expects_key)` for a mapping.
        let mut open: Vec<Option<bool>> = Vec::new();
        loop {
            let at_key = match open.last() {
                None => key,
                Some(Some(k)) => *k,
                Some(None) => false,
            };
            self.expect_stream_end_guard()?;
            let ev = self.take()?;
            let opens_mapping = matches!(ev.kind, EventKind::MappingStart { .. });
            match ev.kind {
                EventKind::Scalar {
                    anchor,
                    tag,
                    value,
                    plain_implicit,
                    ..
                } => {
                    if anchor.is_some() || tag.is_some() {
                        return Ok(false);
                    }
                    if plain_implicit && !plain_is_plain_data(&value, at_key) {
                        return Ok(false);
                    }
                }
                EventKind::SequenceStart { anchor, tag, .. }
                | EventKind::MappingStart { anchor, tag, .. } => {
                    if anchor.is_some() || tag.is_some() || at_key {
                        return Ok(false);
                    }
                    open.push(opens_mapping.then_some(true));
                    continue;
                }
                EventKind::SequenceEnd | EventKind::MappingEnd => {
                    open.pop();
                }
                EventKind::Alias { .. } => return Ok(false),
                _ => {
                    return Err(ComposeError::Other(
                        "attempted to parse unknown event".to_string(),
                        ev.start.offset,
                    ))
                }
            }
            // A node has ended: the enclosing mapping now expects the other half.
            match open.last_mut() {
                None => return Ok(true),
                Some(Some(k)) => *k = !*k,
                Some(None) => {}
            }
        }
    }

    fn node(&mut self, b: &mut Builder) -> Result<NodeId> {
        self.expect_stream_end_guard()?;
        let ev = self.take()?;
        match ev.kind {
            EventKind::Scalar {
                anchor,
                tag,
                value,
                plain_implicit,
                style,
                ..
            } => {
                let id = b.push(NodeKind::Scalar, ev.start, ev.end);
                let n = &mut b.nodes[id];
                n.value = value;
                n.tag = tag.unwrap_or_default();
                n.implicit = plain_implicit;
                n.style = style;
                if let Some(a) = anchor {
                    b.anchors.insert(a, id);
                }
                Ok(id)
            }
            EventKind::Alias { anchor } => {
                let id = b.push(NodeKind::Alias, ev.start, ev.end);
                let target = b.anchors.get(&anchor).copied();
                match target {
                    Some(t) => {
                        b.nodes[id].alias = Some(t);
                        b.nodes[id].value = anchor;
                        Ok(id)
                    }
                    None => Err(ComposeError::Other(
                        format!("unknown anchor '{anchor}' referenced"),
                        ev.start.offset,
                    )),
                }
            }
            EventKind::SequenceStart {
                anchor, tag, flow, ..
            } => {
                let id = b.push(NodeKind::Sequence, ev.start, ev.end);
                b.nodes[id].tag = tag.unwrap_or_default();
                if let Some(a) = anchor {
                    b.anchors.insert(a, id);
                }
                loop {
                    if matches!(self.peek()?.kind, EventKind::SequenceEnd) {
                        break;
                    }
                    let c = self.node(b)?;
                    b.nodes[id].children.push(c);
                }
                let end = self.take()?;
                b.close(id, end.end, flow);
                Ok(id)
            }
            EventKind::MappingStart {
                anchor, tag, flow, ..
            } => {
                let id = b.push(NodeKind::Mapping, ev.start, ev.end);
                b.nodes[id].tag = tag.unwrap_or_default();
                if let Some(a) = anchor {
                    b.anchors.insert(a, id);
                }
                loop {
                    if matches!(self.peek()?.kind, EventKind::MappingEnd) {
                        break;
                    }
                    let k = self.node(b)?;
                    let v = self.node(b)?;
                    b.nodes[id].children.push(k);
                    b.nodes[id].children.push(v);
                }
                let end = self.take()?;
                b.close(id, end.end, flow);
                Ok(id)
            }
            _ => Err(ComposeError::Other(
                "attempted to parse unknown event".to_string(),
                ev.start.offset,
            )),
        }
    }
}

/// What [`Composer::next_pruned_document`] made of the next document.
pub enum Pruned {
    /// The document (with only the kept top-level entries), or `None` at the end of
    /// the stream.
    Done(Option<Document>),
    /// The full document must be composed instead.
    Unsure,
}

/// Whether an untagged plain scalar decodes to data that converts to JSON the same
/// way wherever it is: not a merge key, as a key a string, number or bool (a null
/// or huge unsigned key is an error), as a value not an infinite or NaN float.
pub(super) fn plain_is_plain_data(value: &str, key: bool) -> bool {
    if value == "<<" {
        return false;
    }
    if plain_is_string(value) {
        return true;
    }
    match resolve("", value) {
        Ok(r) => match r.value {
            GoValue::Float(f) => f.is_finite(),
            GoValue::Str(_) | GoValue::Int(_) | GoValue::Bool(_) => true,
            GoValue::Nil | GoValue::Uint(_) => !key,
            GoValue::Seq(_) | GoValue::Map(_) => false,
        },
        Err(_) => false,
    }
}

struct Builder {
    nodes: Vec<Node>,
    anchors: FastMap<String, NodeId>,
}

impl Builder {
    fn push(&mut self, kind: NodeKind, start: Mark, end: Mark) -> NodeId {
        self.nodes.push(Node {
            kind,
            line: start.line,
            column: start.column,
            tag: String::new(),
            value: String::new(),
            implicit: false,
            style: ScalarStyle::Plain,
            children: Vec::new(),
            alias: None,
            start: start.offset,
            end: end.offset.max(start.offset),
        });
        self.nodes.len() - 1
    }

    /// Flow collections end at their closing bracket; block collections where their
    /// last child ends (libyaml's block end marks point past trailing comments and
    /// blank lines).
    fn close(&mut self, id: NodeId, end: Mark, flow: bool) {
        let last_child_end = self.nodes[id].children.last().map(|&c| self.nodes[c].end);
        let n = &mut self.nodes[id];
        n.end = if flow {
            end.offset.max(n.start)
        } else {
            last_child_end.unwrap_or(n.end).max(n.start)
        };
    }
}
