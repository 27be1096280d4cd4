//! The parsed form of a template: a flat arena of spanned nodes.
//!
//! One parse of one source text produces one [`Tree`] holding the nodes of every
//! template defined in that text (the main body and each `define`/`block`). Nodes
//! refer to each other by index, so the tree is cheap to share between template sets
//! (Helm's `tpl` clones the whole namespace per call), and dropping a deeply nested
//! tree cannot overflow the stack.
//!
//! Every node keeps its byte span; `pos` is the byte offset Go uses for
//! `line:col` in error messages (which for some nodes is not where the span starts,
//! e.g. a chain node's position is that of its first field).

use std::sync::Arc;

use crate::source::{SourceFile, Span};

/// Index of a node in its [`Tree`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NodeId(pub u32);

/// A run of child node ids stored in the tree's shared [`Tree::kids`] pool: lists,
/// commands and pipelines keep their children there rather than in a vector each,
/// which saves an allocation per such node when parsing and a free when dropping.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Kids {
    start: u32,
    len: u32,
}

impl Kids {
    pub fn new(start: usize, len: usize) -> Kids {
        Kids {
            start: start as u32,
            len: len as u32,
        }
    }

    pub fn len(self) -> usize {
        self.len as usize
    }

    pub fn is_empty(self) -> bool {
        self.len == 0
    }
}

/// A run of names in the tree's shared [`Tree::names`] pool: the dotted parts of a
/// field, variable or chain, kept together so a `.a.b.c` needs no vector of its own.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Idents {
    start: u32,
    len: u32,
}

impl Idents {
    pub fn new(start: usize, len: usize) -> Idents {
        Idents {
            start: start as u32,
            len: len as u32,
        }
    }

    pub fn start(self) -> usize {
        self.start as usize
    }

    pub fn len(self) -> usize {
        self.len as usize
    }

    pub fn is_empty(self) -> bool {
        self.len == 0
    }
}

/// A number literal with every interpretation Go's parser found valid for it.
#[derive(Clone, Debug, Default)]
pub struct Number {
    pub is_int: bool,
    pub is_uint: bool,
    pub is_float: bool,
    pub is_complex: bool,
    pub int: i64,
    pub uint: u64,
    pub float: f64,
    /// Real and imaginary parts of a complex constant.
    pub complex: (f64, f64),
}

#[derive(Clone, Debug)]
pub enum Node {
    /// A sequence of nodes.
    List {
        pos: u32,
        nodes: Kids,
    },
    /// Plain text, already trimmed: the text is `source[span]`.
    Text {
        span: Span,
    },
    /// `{{pipeline}}`.
    Action {
        span: Span,
        pos: u32,
        pipe: NodeId,
    },
    If(Branch),
    Range(Branch),
    With(Branch),
    Break {
        span: Span,
        pos: u32,
    },
    Continue {
        span: Span,
        pos: u32,
    },
    /// `{{template "name" pipeline}}` (also what `{{block}}` leaves in place).
    Template {
        span: Span,
        pos: u32,
        /// One name in the tree's names pool (see [`Tree::template_name`]).
        name: Idents,
        pipe: Option<NodeId>,
    },
    /// Declarations and commands separated by `|`.
    Pipe {
        span: Span,
        pos: u32,
        is_assign: bool,
        decl: Kids,
        cmds: Kids,
    },
    /// One command of a pipeline: an operand followed by arguments.
    Command {
        span: Span,
        pos: u32,
        args: Kids,
    },
    /// A function name.
    Identifier {
        span: Span,
        name: Arc<str>,
    },
    /// `$x` or `$x.f.g`; `ident[0]` includes the `$`. `pos` is Go's position: for
    /// `$x.f` that of `.f`.
    Variable {
        span: Span,
        pos: u32,
        ident: Idents,
    },
    Dot {
        span: Span,
    },
    Nil {
        span: Span,
    },
    /// `.f.g` (idents without dots). `pos` is Go's position: for `.f.g` that of
    /// `.g`.
    Field {
        span: Span,
        pos: u32,
        ident: Idents,
    },
    /// `(pipeline).f.g` or `term.f.g` where the term is not a field or variable.
    Chain {
        span: Span,
        pos: u32,
        node: NodeId,
        fields: Idents,
    },
    Bool {
        span: Span,
        val: bool,
    },
    /// The original text is `source[span]`.
    Number {
        span: Span,
        num: Box<Number>,
    },
    /// `quoted` is `source[span]`; `text` is the unquoted value.
    String {
        span: Span,
        text: Arc<str>,
    },
}

/// `if`, `range` and `with` share this shape.
#[derive(Clone, Debug)]
pub struct Branch {
    pub span: Span,
    pub pos: u32,
    pub pipe: NodeId,
    pub list: NodeId,
    pub else_list: Option<NodeId>,
}

// Go's nodes also keep a line number; the line is computed from `pos` where an
// error needs it, so the arena's nodes stay at 32 bytes (a chart's helper library
// is tens of thousands of them).
const _: () = assert!(std::mem::size_of::<Node>() == 32);

/// A byte offset as nodes keep it. Sources are read whole into memory and are far
/// below 4 GiB; past that, offsets saturate rather than wrap.
pub fn pos32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// All nodes parsed from one source text.
#[derive(Debug)]
pub struct Tree {
    pub source: SourceFile,
    /// The name used in `template: NAME:LINE:COL` positions (Go's `ParseName`):
    /// the name of the template whose text this is.
    pub parse_name: Arc<str>,
    pub nodes: Vec<Node>,
    /// Child ids of list, command and pipeline nodes (see [`Kids`]).
    pub kids: Vec<NodeId>,
    /// The names the parse met: each name taken from the source text once, plus
    /// the callee of each `{{template}}` (see [`Tree::template_name`]).
    pub names: Vec<Arc<str>>,
    /// Dotted names of field, variable and chain nodes, as indexes into `names`
    /// (see [`Idents`]): four bytes per part, and no reference count to bump.
    pub idents: Vec<u32>,
    pub left_delim: Arc<str>,
    pub right_delim: Arc<str>,
}

impl Tree {
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.0 as usize]
    }

    /// The names `r` covers.
    pub fn idents(&self, r: Idents) -> IdentRun<'_> {
        IdentRun {
            names: &self.names,
            ids: ident_slice(&self.idents, r),
        }
    }

    /// The name a `{{template}}` node calls (empty if out of range, which a tree
    /// built by the parser never is).
    pub fn template_name(&self, name: Idents) -> &Arc<str> {
        static NONE: std::sync::LazyLock<Arc<str>> = std::sync::LazyLock::new(|| Arc::from(""));
        self.idents(name).first().unwrap_or(&NONE)
    }

    /// The child ids `k` names.
    pub fn kids(&self, k: Kids) -> &[NodeId] {
        kid_slice(&self.kids, k)
    }

    pub fn text(&self) -> &str {
        self.source.text()
    }

    /// The byte offset Go reports positions from.
    pub fn pos(&self, id: NodeId) -> usize {
        match self.node(id) {
            Node::List { pos, .. }
            | Node::Action { pos, .. }
            | Node::Break { pos, .. }
            | Node::Continue { pos, .. }
            | Node::Template { pos, .. }
            | Node::Pipe { pos, .. }
            | Node::Command { pos, .. }
            | Node::Variable { pos, .. }
            | Node::Field { pos, .. }
            | Node::Chain { pos, .. } => *pos as usize,
            Node::If(b) | Node::Range(b) | Node::With(b) => b.pos as usize,
            Node::Text { span }
            | Node::Identifier { span, .. }
            | Node::Dot { span }
            | Node::Nil { span }
            | Node::Bool { span, .. }
            | Node::Number { span, .. }
            | Node::String { span, .. } => span.start as usize,
        }
    }

    /// The source bytes a node covers.
    pub fn span(&self, id: NodeId) -> Span {
        match self.node(id) {
            Node::List { pos, nodes } => {
                match (self.kids(*nodes).first(), self.kids(*nodes).last()) {
                    (Some(a), Some(b)) => self.span(*a).join(self.span(*b)),
                    _ => Span::empty_at(*pos as usize),
                }
            }
            Node::If(b) | Node::Range(b) | Node::With(b) => b.span,
            Node::Text { span }
            | Node::Action { span, .. }
            | Node::Break { span, .. }
            | Node::Continue { span, .. }
            | Node::Template { span, .. }
            | Node::Pipe { span, .. }
            | Node::Command { span, .. }
            | Node::Identifier { span, .. }
            | Node::Variable { span, .. }
            | Node::Dot { span }
            | Node::Nil { span }
            | Node::Field { span, .. }
            | Node::Chain { span, .. }
            | Node::Bool { span, .. }
            | Node::Number { span, .. }
            | Node::String { span, .. } => *span,
        }
    }

    /// Go's `line:col` for a node: 1-based line, and a column that is the byte
    /// offset from the start of the line (0-based) except on the first line, where
    /// Go reports the byte offset itself.
    pub fn line_col(&self, id: NodeId) -> (usize, usize) {
        let pos = self.pos(id).min(self.text().len());
        let before = &self.text().as_bytes()[..pos];
        let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
        let col = match before.iter().rposition(|&b| b == b'\n') {
            Some(nl) => pos - (nl + 1),
            None => pos,
        };
        (line, col)
    }

    /// Go's `Node.String()`: the node printed back as template source.
    pub fn node_string(&self, id: NodeId) -> String {
        let mut s = String::new();
        self.write_node(id, &mut s);
        s
    }

    fn write_node(&self, id: NodeId, sb: &mut String) {
        match self.node(id) {
            Node::List { nodes, .. } => {
                for n in self.kids(*nodes) {
                    self.write_node(*n, sb);
                }
            }
            Node::Text { span } => sb.push_str(&self.text()[span.range()]),
            Node::Action { pipe, .. } => {
                sb.push_str(&self.left_delim);
                self.write_node(*pipe, sb);
                sb.push_str(&self.right_delim);
            }
            Node::If(b) => self.write_branch("if", b, sb),
            Node::Range(b) => self.write_branch("range", b, sb),
            Node::With(b) => self.write_branch("with", b, sb),
            Node::Break { .. } => {
                sb.push_str(&self.left_delim);
                sb.push_str("break");
                sb.push_str(&self.right_delim);
            }
            Node::Continue { .. } => {
                sb.push_str(&self.left_delim);
                sb.push_str("continue");
                sb.push_str(&self.right_delim);
            }
            Node::Template { name, pipe, .. } => {
                sb.push_str(&self.left_delim);
                sb.push_str("template ");
                sb.push_str(&crate::template::fmt::quote(self.template_name(*name)));
                if let Some(p) = pipe {
                    sb.push(' ');
                    self.write_node(*p, sb);
                }
                sb.push_str(&self.right_delim);
            }
            Node::Pipe {
                is_assign,
                decl,
                cmds,
                ..
            } => {
                if !decl.is_empty() {
                    for (i, v) in self.kids(*decl).iter().enumerate() {
                        if i > 0 {
                            sb.push_str(", ");
                        }
                        self.write_node(*v, sb);
                    }
                    sb.push_str(if *is_assign { " = " } else { " := " });
                }
                for (i, c) in self.kids(*cmds).iter().enumerate() {
                    if i > 0 {
                        sb.push_str(" | ");
                    }
                    self.write_node(*c, sb);
                }
            }
            Node::Command { args, .. } => {
                for (i, a) in self.kids(*args).iter().enumerate() {
                    if i > 0 {
                        sb.push(' ');
                    }
                    if matches!(self.node(*a), Node::Pipe { .. }) {
                        sb.push('(');
                        self.write_node(*a, sb);
                        sb.push(')');
                    } else {
                        self.write_node(*a, sb);
                    }
                }
            }
            Node::Identifier { name, .. } => sb.push_str(name),
            Node::Variable { ident, .. } => {
                for (i, id) in self.idents(*ident).iter().enumerate() {
                    if i > 0 {
                        sb.push('.');
                    }
                    sb.push_str(id);
                }
            }
            Node::Dot { .. } => sb.push('.'),
            Node::Nil { .. } => sb.push_str("nil"),
            Node::Field { ident, .. } => {
                for id in self.idents(*ident).iter() {
                    sb.push('.');
                    sb.push_str(id);
                }
            }
            Node::Chain { node, fields, .. } => {
                if matches!(self.node(*node), Node::Pipe { .. }) {
                    sb.push('(');
                    self.write_node(*node, sb);
                    sb.push(')');
                } else {
                    self.write_node(*node, sb);
                }
                for f in self.idents(*fields).iter() {
                    sb.push('.');
                    sb.push_str(f);
                }
            }
            Node::Bool { val, .. } => sb.push_str(if *val { "true" } else { "false" }),
            Node::Number { span, .. } | Node::String { span, .. } => {
                sb.push_str(&self.text()[span.range()])
            }
        }
    }

    fn write_branch(&self, name: &str, b: &Branch, sb: &mut String) {
        sb.push_str(&self.left_delim);
        sb.push_str(name);
        sb.push(' ');
        self.write_node(b.pipe, sb);
        sb.push_str(&self.right_delim);
        self.write_node(b.list, sb);
        if let Some(e) = b.else_list {
            sb.push_str(&self.left_delim);
            sb.push_str("else");
            sb.push_str(&self.right_delim);
            self.write_node(e, sb);
        }
        sb.push_str(&self.left_delim);
        sb.push_str("end");
        sb.push_str(&self.right_delim);
    }

    /// Go's `IsEmptyTree`: only whitespace text and comments.
    pub fn is_empty_tree(&self, id: NodeId) -> bool {
        match self.node(id) {
            Node::List { nodes, .. } => self.kids(*nodes).iter().all(|n| self.is_empty_tree(*n)),
            Node::Text { span } => self.text()[span.range()]
                .trim_matches(is_go_space)
                .is_empty(),
            _ => false,
        }
    }
}

/// The ids `k` names in a kids pool (an empty slice if out of range, which a
/// tree built by the parser never is).
pub fn kid_slice(pool: &[NodeId], k: Kids) -> &[NodeId] {
    let start = k.start as usize;
    pool.get(start..start + k.len as usize).unwrap_or(&[])
}

/// The name indexes `r` covers in a pool (empty if out of range, which a tree
/// built by the parser never is).
pub fn ident_slice(pool: &[u32], r: Idents) -> &[u32] {
    let start = r.start as usize;
    pool.get(start..start + r.len as usize).unwrap_or(&[])
}

/// The names of one [`Idents`] run, looked up in their tree's table of names.
#[derive(Clone, Copy)]
pub struct IdentRun<'t> {
    names: &'t [Arc<str>],
    ids: &'t [u32],
}

impl<'t> IdentRun<'t> {
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The `i`-th name (`None` past the end, or for an index no name has, which
    /// a tree built by the parser never holds).
    pub fn get(&self, i: usize) -> Option<&'t Arc<str>> {
        self.names.get(*self.ids.get(i)? as usize)
    }

    pub fn first(&self) -> Option<&'t Arc<str>> {
        self.get(0)
    }

    pub fn last(&self) -> Option<&'t Arc<str>> {
        self.get(self.ids.len().checked_sub(1)?)
    }

    /// The names from the `n`-th on.
    pub fn skip(&self, n: usize) -> IdentRun<'t> {
        IdentRun {
            names: self.names,
            ids: self.ids.get(n..).unwrap_or(&[]),
        }
    }

    /// All names but the last.
    pub fn init(&self) -> IdentRun<'t> {
        IdentRun {
            names: self.names,
            ids: &self.ids[..self.ids.len().saturating_sub(1)],
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = &'t Arc<str>> + 't {
        let names = self.names;
        self.ids.iter().filter_map(move |i| names.get(*i as usize))
    }
}

/// `bytes.TrimSpace`'s notion of space for ASCII plus Unicode white space.
fn is_go_space(c: char) -> bool {
    c.is_whitespace()
}
