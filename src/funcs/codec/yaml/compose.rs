//! Builds go-yaml's node tree from events: one tree per document, anchors resolved to
//! the node they name at the point the alias appears.
//!
//! go-yaml composes a whole document before decoding any of it, so syntax errors
//! anywhere in a document win over type errors; and an alias may only name an anchor
//! defined earlier in the same document (including an enclosing collection, which is
//! how self-referencing documents are built and later rejected by the decoder).

use std::collections::HashMap;

use super::parser::{EventKind, Parser};
use super::scanner::{Mark, ScalarStyle, SyntaxError};

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
            nodes_hint: input.len() / 16,
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
            EventKind::StreamEnd => Ok(None),
            EventKind::DocumentStart { .. } => {
                let mut b = Builder {
                    nodes: Vec::with_capacity(self.nodes_hint),
                    anchors: HashMap::new(),
                };
                let start = self.take()?;
                let root = b.push(NodeKind::Document, start.start, start.end);
                let child = self.node(&mut b)?;
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
                self.nodes_hint = b.nodes.len();
                Ok(Some(Document {
                    nodes: b.nodes,
                    root,
                }))
            }
            _ => Err(ComposeError::Other(
                "attempted to parse unknown event".to_string(),
                0,
            )),
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

struct Builder {
    nodes: Vec<Node>,
    anchors: HashMap<String, NodeId>,
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
