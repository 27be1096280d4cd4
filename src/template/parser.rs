//! The template parser: tokens to a spanned [`Tree`].
//!
//! The structure (three-token lookahead, the order in which tokens are consumed, one
//! parsing context per `define`/`block` body) deliberately mirrors Go's parser: Go
//! reports the line of the *last token it read* in parse errors, so matching its
//! messages byte for byte means reading tokens in the same order.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

use super::ast::{ident_slice, kid_slice, pos32, Branch, Idents, Kids, Node, NodeId, Number, Tree};
use super::error::{Error, ErrorKind};
use super::golit;
use super::lexer::{Item, ItemType, Lexer};
use super::options::LanguageLevel;
use crate::source::{FastMap, SourceFile, Span};

/// Go's limit on nested parenthesised expressions.
pub const MAX_PAREN_DEPTH: usize = 10_000;

/// The result of parsing one source text: its node arena and the templates it
/// defines, by name, each with the root list node of its body.
#[derive(Debug)]
pub struct Parsed {
    pub tree: Arc<Tree>,
    /// `(name, root)` in the order Go would add them (defines first, the main body
    /// last).
    pub templates: Vec<(Arc<str>, NodeId)>,
}

/// The parser's look-ahead of up to three tokens (Go's `token [3]item`), kept as
/// two arrays of words rather than an array of two-word tokens. A token goes in as
/// two 8-byte stores; read back as one, a 16-byte load, it could not take its
/// data from those stores and waited for them to reach the cache, on every token
/// (the instruction after that load held 8% of the samples of the parser's
/// hottest function, `perf annotate`).
#[derive(Clone, Copy)]
struct Lookahead<'a> {
    spans: [u64; 3],
    kinds: [u64; 3],
    src: std::marker::PhantomData<&'a str>,
}

impl<'a> Lookahead<'a> {
    fn new() -> Lookahead<'a> {
        let (span, kind) = Item::new(ItemType::Eof, 0, 0, 0).raw();
        Lookahead {
            spans: [span; 3],
            kinds: [kind; 3],
            src: std::marker::PhantomData,
        }
    }

    fn get(&self, i: usize) -> Item<'a> {
        Item::from_raw(self.spans[i], self.kinds[i])
    }

    fn set(&mut self, i: usize, t: Item<'a>) {
        let (span, kind) = t.raw();
        self.spans[i] = span;
        self.kinds[i] = kind;
    }
}

/// Per-template parsing state (Go's `Tree` fields used while parsing).
struct Ctx<'a> {
    token: Lookahead<'a>,
    peek_count: usize,
    vars: Vec<Arc<str>>,
    action_line: usize,
    range_depth: usize,
    stack_depth: usize,
    name: Arc<str>,
}

impl<'a> Ctx<'a> {
    fn new(name: Arc<str>, dollar: Arc<str>) -> Ctx<'a> {
        Ctx {
            token: Lookahead::new(),
            peek_count: 0,
            vars: vec![dollar],
            action_line: 0,
            range_depth: 0,
            stack_depth: 0,
            name,
        }
    }
}

type PResult<T> = Result<T, Box<Error>>;

/// A small multiplicative hasher for the parser's name table: its keys are short
/// identifiers from the template text, where SipHash's setup cost dominates.
#[derive(Default)]
struct NameHasher(u64);

impl Hasher for NameHasher {
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x517c_c1b7_2722_0a95;
        let mut h = self.0;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            h = (h.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(K);
        }
        // The tail (all of most names: `Values`, `include`) in one step, not a
        // step per byte.
        let rest = chunks.remainder();
        if !rest.is_empty() {
            h = (h.rotate_left(5) ^ tail_word(rest)).wrapping_mul(K);
        }
        self.0 = h;
    }

    fn write_u8(&mut self, b: u8) {
        // `str`'s hash ends with a 0xff byte.
        const K: u64 = 0x517c_c1b7_2722_0a95;
        self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(K);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// One to seven bytes as a word, read in place by two overlapping loads (or three
/// single bytes below four), with the length in the top byte. Copying them into a
/// zeroed buffer first made the word's load wait on the copy's stores.
fn tail_word(b: &[u8]) -> u64 {
    let n = b.len();
    let word = if n >= 4 {
        let (mut lo, mut hi) = ([0u8; 4], [0u8; 4]);
        lo.copy_from_slice(&b[..4]);
        hi.copy_from_slice(&b[n - 4..]);
        u64::from(u32::from_le_bytes(lo)) | (u64::from(u32::from_le_bytes(hi)) << 32)
    } else {
        u64::from(b[0]) | (u64::from(b[n / 2]) << 8) | (u64::from(b[n - 1]) << 16)
    };
    word ^ ((n as u64) << 56)
}

/// Every identifier, field name, variable name and escape-free string literal of
/// one parse, shared: templates repeat the same few names (`Values`, `include`,
/// `nindent`) thousands of times, and one `Arc` per distinct name saves an
/// allocation per use and a free when the tree is dropped. For identifiers the
/// entry also remembers whether the name is a function, once asked.
type Names<'a> = HashMap<&'a str, NameEntry, BuildHasherDefault<NameHasher>>;

struct NameEntry {
    /// Where the name is in [`Parser::name_table`].
    id: u32,
    is_func: Option<bool>,
}

pub struct Parser<'a, 'f> {
    lex: Lexer<'a>,
    src: &'a str,
    ctx: Ctx<'a>,
    nodes: Vec<Node>,
    has_func: &'f dyn Fn(&str) -> bool,
    level: LanguageLevel,
    parse_name: Arc<str>,
    source: SourceFile,
    /// Templates completed so far in this parse (Go's `treeSet`).
    tree_set: FastMap<Arc<str>, NodeId>,
    order: Vec<Arc<str>>,
    names: Names<'a>,
    /// The tree's child-id pool (see [`Kids`]).
    kids: Vec<NodeId>,
    /// The tree's runs of name indexes into `name_table` (see [`Idents`]).
    ident_pool: Vec<u32>,
    /// The names met so far (the tree's `names`).
    name_table: Vec<Arc<str>>,
    /// Children of the lists, commands and pipelines being parsed, innermost
    /// last; each node moves its run into `kids` when it is complete.
    scratch: Vec<NodeId>,
}

/// Parses `source` as the template `name`.
///
/// `has_func` says whether an identifier names a function (Go checks this at parse
/// time: `function "x" not defined`).
pub fn parse(
    name: &str,
    source: SourceFile,
    left_delim: &str,
    right_delim: &str,
    level: LanguageLevel,
    has_func: &dyn Fn(&str) -> bool,
) -> Result<Parsed, Box<Error>> {
    let text = source.shared_text();
    let text_ref: &str = &text;
    let mut lex = Lexer::new(text_ref, left_delim, right_delim);
    lex.break_ok = !has_func("break");
    lex.continue_ok = !has_func("continue");
    let name: Arc<str> = Arc::from(name);
    // The arenas grow by doubling, and each doubling copies every node parsed so far
    // into fresh pages: a chart's helper library is tens of thousands of nodes. One
    // action makes about six nodes, five kids and two names (bitnami's common
    // library), so sizing from the number of actions makes regrowth rare; capacity
    // nobody writes to is address space, not memory.
    let actions = match left_delim.as_bytes() {
        [] => 0,
        // Half the braces: a vectorised count, where finding each `{{` stopped
        // at every match (about 1% of a render). Stray braces only add room.
        b"{{" => memchr::memchr_iter(b'{', text_ref.as_bytes()).count() / 2,
        d => memchr::memmem::find_iter(text_ref.as_bytes(), d).count(),
    };
    let mut p = Parser {
        lex,
        src: text_ref,
        ctx: Ctx::new(name.clone(), Arc::from("$")),
        nodes: Vec::with_capacity(actions * 8 + 8),
        has_func,
        level,
        parse_name: name.clone(),
        source: source.clone(),
        tree_set: FastMap::default(),
        order: Vec::new(),
        names: Names::with_capacity_and_hasher(64, Default::default()),
        kids: Vec::with_capacity(actions * 6 + 8),
        ident_pool: Vec::with_capacity(actions * 2 + 8),
        name_table: Vec::with_capacity(64),
        scratch: Vec::new(),
    };
    let dollar = p.name("$");
    p.ctx.vars = vec![dollar];
    let root = p.parse_top()?;
    p.add(name.clone(), root)?;
    let tree = Arc::new(Tree {
        source,
        parse_name: name,
        nodes: std::mem::take(&mut p.nodes),
        kids: std::mem::take(&mut p.kids),
        names: std::mem::take(&mut p.name_table),
        idents: std::mem::take(&mut p.ident_pool),
        left_delim: Arc::from(left_delim),
        right_delim: Arc::from(right_delim),
    });
    let templates = p
        .order
        .iter()
        .filter_map(|n| p.tree_set.get(n).map(|r| (n.clone(), *r)))
        .collect();
    Ok(Parsed { tree, templates })
}

impl<'a> Parser<'a, '_> {
    // ---- token stream ------------------------------------------------------------

    fn next(&mut self) -> Item<'a> {
        if self.ctx.peek_count > 0 {
            self.ctx.peek_count -= 1;
            return self.ctx.token.get(self.ctx.peek_count);
        }
        let t = self.lex.next_item();
        self.ctx.token.set(0, t);
        t
    }

    fn backup(&mut self) {
        self.ctx.peek_count += 1;
    }

    fn backup2(&mut self, t1: Item<'a>) {
        self.ctx.token.set(1, t1);
        self.ctx.peek_count = 2;
    }

    fn backup3(&mut self, t2: Item<'a>, t1: Item<'a>) {
        self.ctx.token.set(1, t1);
        self.ctx.token.set(2, t2);
        self.ctx.peek_count = 3;
    }

    fn peek(&mut self) -> Item<'a> {
        if self.ctx.peek_count > 0 {
            return self.ctx.token.get(self.ctx.peek_count - 1);
        }
        self.ctx.peek_count = 1;
        let t = self.lex.next_item();
        self.ctx.token.set(0, t);
        t
    }

    fn next_non_space(&mut self) -> Item<'a> {
        loop {
            let t = self.next();
            if t.typ() != ItemType::Space {
                return t;
            }
        }
    }

    fn peek_non_space(&mut self) -> Item<'a> {
        let t = self.next_non_space();
        self.backup();
        t
    }

    // ---- errors ------------------------------------------------------------------

    /// Go's `Tree.errorf`: `template: NAME:LINE: MESSAGE`, with the line of the last
    /// token read.
    fn errorf(&self, msg: impl Into<String>) -> Box<Error> {
        let msg = msg.into();
        let tok = &self.ctx.token.get(0);
        let line = tok.line();
        let start = tok.pos().min(self.src.len());
        let end = if tok.typ() == ItemType::Error {
            start
        } else {
            (start + self.val(tok).len()).min(self.src.len())
        };
        let mut e = Error::new(
            ErrorKind::Parse,
            format!("template: {}:{}: {}", self.parse_name, line, msg),
        );
        e.template = self.parse_name.to_string();
        e.line = Some(line);
        e.detail = msg;
        e.span = Some(Span::new(start, end));
        e.source = Some(self.source.clone());
        Box::new(e)
    }

    fn unexpected(&self, token: &Item<'a>, context: &str) -> Box<Error> {
        if token.typ() == ItemType::Error {
            let mut extra = String::new();
            if self.ctx.action_line != 0 && self.ctx.action_line != token.line() {
                extra = format!(
                    " in action started at {}:{}",
                    self.parse_name, self.ctx.action_line
                );
                if self.lex.error_message().ends_with(" action") {
                    extra = extra[" in action".len()..].to_string();
                }
            }
            let what = token.describe(self.src, self.lex.error_message());
            return self.errorf(format!("{what}{extra}"));
        }
        let what = token.describe(self.src, self.lex.error_message());
        self.errorf(format!("unexpected {what} in {context}"))
    }

    fn expect(&mut self, expected: ItemType, context: &str) -> PResult<Item<'a>> {
        let t = self.next_non_space();
        if t.typ() != expected {
            return Err(self.unexpected(&t, context));
        }
        Ok(t)
    }

    fn expect_one_of(&mut self, a: ItemType, b: ItemType, context: &str) -> PResult<Item<'a>> {
        let t = self.next_non_space();
        if t.typ() != a && t.typ() != b {
            return Err(self.unexpected(&t, context));
        }
        Ok(t)
    }

    // ---- node construction -------------------------------------------------------

    /// The shared `Arc` for a name taken from the source text.
    fn name(&mut self, s: &'a str) -> Arc<str> {
        let id = self.name_id(s);
        self.name_table[id as usize].clone()
    }

    /// Where a name taken from the source text is in the table of names.
    fn name_id(&mut self, s: &'a str) -> u32 {
        self.name_entry(s).id
    }

    fn name_entry(&mut self, s: &'a str) -> &mut NameEntry {
        let table = &mut self.name_table;
        self.names.entry(s).or_insert_with(|| {
            table.push(Arc::from(s));
            NameEntry {
                id: (table.len() - 1) as u32,
                is_func: None,
            }
        })
    }

    /// A function name's shared `Arc`, or `None` when no function has that name.
    fn func_name(&mut self, s: &'a str) -> Option<Arc<str>> {
        let has_func = self.has_func;
        let e = self.name_entry(s);
        let known = *e.is_func.get_or_insert_with(|| has_func(s));
        let id = e.id as usize;
        known.then(|| self.name_table[id].clone())
    }

    /// `name` as a run of one in the names pool, for a `{{template}}` node.
    fn name_slot(&mut self, name: Arc<str>) -> Idents {
        self.name_table.push(name);
        self.ident_pool.push((self.name_table.len() - 1) as u32);
        Idents::new(self.ident_pool.len() - 1, 1)
    }

    /// The dotted parts of a field or variable token (`.a.b` gives `["", "a", "b"]`
    /// for `split`, so callers strip a leading dot first).
    fn idents(&mut self, s: &'a str) -> Idents {
        let start = self.ident_pool.len();
        for part in s.split('.') {
            let id = self.name_id(part);
            self.ident_pool.push(id);
        }
        Idents::new(start, self.ident_pool.len() - start)
    }

    /// A string literal's value: escape-free literals (nearly all of them) are a
    /// slice of the source and shared like names; others go through Go's unquoting.
    fn string_value(&mut self, quoted: &'a str) -> Option<Arc<str>> {
        let b = quoted.as_bytes();
        if b.len() >= 2 && b[0] == b[b.len() - 1] {
            let inner = &quoted[1..quoted.len() - 1];
            let plain = match b[0] {
                b'"' => !inner.bytes().any(|c| matches!(c, b'\\' | b'"' | b'\n')),
                b'`' => !inner.bytes().any(|c| matches!(c, b'`' | b'\r')),
                _ => false,
            };
            if plain {
                return Some(self.name(inner));
            }
        }
        golit::unquote(quoted).map(|s| Arc::from(s.as_str()))
    }

    /// Moves the children collected in `scratch` since `mark` into the pool.
    fn commit_kids(&mut self, mark: usize) -> Kids {
        let start = self.kids.len();
        self.kids.extend_from_slice(&self.scratch[mark..]);
        self.scratch.truncate(mark);
        Kids::new(start, self.kids.len() - start)
    }

    /// `head` followed by `tail`, where `tail` is the run just added to the pool.
    /// A term's names are pushed right before the fields that follow it, so the
    /// two runs are normally adjacent and simply merge.
    fn extend_idents(&mut self, head: Idents, tail: Idents) -> Idents {
        if head.start() + head.len() == tail.start() {
            return Idents::new(head.start(), head.len() + tail.len());
        }
        let start = self.ident_pool.len();
        let parts: Vec<u32> = ident_slice(&self.ident_pool, head)
            .iter()
            .chain(ident_slice(&self.ident_pool, tail))
            .copied()
            .collect();
        self.ident_pool.extend(parts);
        Idents::new(start, self.ident_pool.len() - start)
    }

    fn kids_of(&self, k: Kids) -> &[NodeId] {
        kid_slice(&self.kids, k)
    }

    fn push(&mut self, n: Node) -> NodeId {
        self.nodes.push(n);
        NodeId((self.nodes.len() - 1) as u32)
    }

    /// A token's text.
    fn val(&self, item: &Item<'a>) -> &'a str {
        item.val(self.src)
    }

    fn span_of(&self, item: &Item<'a>) -> Span {
        Span::new(item.pos(), item.pos() + self.val(item).len())
    }

    fn node_span(&self, id: NodeId) -> Span {
        match &self.nodes[id.0 as usize] {
            Node::List { pos, nodes } => {
                match (self.kids_of(*nodes).first(), self.kids_of(*nodes).last()) {
                    (Some(a), Some(b)) => self.node_span(*a).join(self.node_span(*b)),
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

    /// The end of the most recently consumed token.
    fn last_end(&self) -> usize {
        let t = &self.ctx.token.get(self.ctx.peek_count.min(2));
        t.pos() + self.val(t).len()
    }

    fn add(&mut self, name: Arc<str>, root: NodeId) -> PResult<()> {
        match self.tree_set.get(&name) {
            Some(old) if !self.is_empty(*old) => {
                if !self.is_empty(root) {
                    return Err(self.errorf(format!(
                        "template: multiple definition of template {}",
                        super::fmt::quote(&name)
                    )));
                }
            }
            Some(_) => {
                self.tree_set.insert(name.clone(), root);
            }
            None => {
                self.tree_set.insert(name.clone(), root);
                self.order.push(name);
            }
        }
        Ok(())
    }

    fn is_empty(&self, id: NodeId) -> bool {
        match &self.nodes[id.0 as usize] {
            Node::List { nodes, .. } => self.kids_of(*nodes).iter().all(|n| self.is_empty(*n)),
            Node::Text { span } => self.src[span.range()].trim().is_empty(),
            _ => false,
        }
    }

    // ---- grammar -----------------------------------------------------------------

    fn parse_top(&mut self) -> PResult<NodeId> {
        let pos = self.peek().pos();
        let mark = self.scratch.len();
        while self.peek().typ() != ItemType::Eof {
            if self.peek().typ() == ItemType::LeftDelim {
                let delim = self.next();
                if self.next_non_space().typ() == ItemType::Define {
                    self.parse_definition()?;
                    continue;
                }
                self.backup2(delim);
            }
            let n = self.text_or_action()?;
            match n {
                Parsed1::End => {
                    return Err(self.errorf(format!("unexpected {}", self.delim_word("end"))));
                }
                Parsed1::Else(_) => {
                    return Err(self.errorf(format!("unexpected {}", self.delim_word("else"))));
                }
                Parsed1::Node(n) => self.scratch.push(n),
            }
        }
        let nodes = self.commit_kids(mark);
        Ok(self.push(Node::List {
            pos: pos32(pos),
            nodes,
        }))
    }

    fn parse_definition(&mut self) -> PResult<()> {
        let context = "define clause";
        let fresh = Ctx::new(self.name("definition"), self.name("$"));
        let outer = std::mem::replace(&mut self.ctx, fresh);
        let result = (|| -> PResult<()> {
            let name = self.expect_one_of(ItemType::String, ItemType::RawString, context)?;
            let Some(n) = self.string_value(self.val(&name)) else {
                return Err(self.errorf("invalid syntax"));
            };
            self.ctx.name = n;
            self.expect(ItemType::RightDelim, context)?;
            let (root, end) = self.item_list()?;
            if let Parsed1::Else(_) = end {
                let s = self.delim_word("else");
                return Err(self.errorf(format!("unexpected {s} in {context}")));
            }
            let nm = self.ctx.name.clone();
            self.add(nm, root)
        })();
        self.ctx = outer;
        result
    }

    /// Go's `itemList`: nodes up to `{{end}}` or `{{else}}`, which is returned.
    fn item_list(&mut self) -> PResult<(NodeId, Parsed1)> {
        super::stack::maybe_grow(64 * 1024, 1024 * 1024, || {
            let pos = self.peek_non_space().pos();
            let mark = self.scratch.len();
            while self.peek_non_space().typ() != ItemType::Eof {
                match self.text_or_action()? {
                    Parsed1::Node(n) => self.scratch.push(n),
                    other => {
                        let nodes = self.commit_kids(mark);
                        let id = self.push(Node::List {
                            pos: pos32(pos),
                            nodes,
                        });
                        return Ok((id, other));
                    }
                }
            }
            Err(self.errorf("unexpected EOF"))
        })
    }

    fn text_or_action(&mut self) -> PResult<Parsed1> {
        let token = self.next_non_space();
        match token.typ() {
            ItemType::Text => {
                let span = self.span_of(&token);
                Ok(Parsed1::Node(self.push(Node::Text { span })))
            }
            ItemType::LeftDelim => {
                let saved = self.ctx.action_line;
                self.ctx.action_line = token.line();
                let r = self.action(token.pos());
                self.ctx.action_line = 0;
                let _ = saved;
                r
            }
            _ => Err(self.unexpected(&token, "input")),
        }
    }

    fn action(&mut self, delim_pos: usize) -> PResult<Parsed1> {
        let token = self.next_non_space();
        match token.typ() {
            ItemType::Block => return self.block_control(delim_pos).map(Parsed1::Node),
            ItemType::Break => {
                return self
                    .break_control(delim_pos, token.pos(), true)
                    .map(Parsed1::Node)
            }
            ItemType::Continue => {
                return self
                    .break_control(delim_pos, token.pos(), false)
                    .map(Parsed1::Node)
            }
            ItemType::Else => return self.else_control(),
            ItemType::End => return self.end_control(),
            ItemType::If => return self.branch_control("if", delim_pos).map(Parsed1::Node),
            ItemType::Range => return self.branch_control("range", delim_pos).map(Parsed1::Node),
            ItemType::Template => return self.template_control(delim_pos).map(Parsed1::Node),
            ItemType::With => return self.branch_control("with", delim_pos).map(Parsed1::Node),
            _ => {}
        }
        self.backup();
        let token = self.peek();
        let pipe = self.pipeline("command", ItemType::RightDelim)?;
        let span = Span::new(delim_pos, self.last_end());
        Ok(Parsed1::Node(self.push(Node::Action {
            span,
            pos: pos32(token.pos()),
            pipe,
        })))
    }

    fn break_control(&mut self, delim_pos: usize, pos: usize, is_break: bool) -> PResult<NodeId> {
        let word = if is_break { "break" } else { "continue" };
        let token = self.next_non_space();
        if token.typ() != ItemType::RightDelim {
            return Err(self.unexpected(&token, &format!("{{{{{word}}}}}")));
        }
        if self.ctx.range_depth == 0 {
            return Err(self.errorf(format!("{{{{{word}}}}} outside {{{{range}}}}")));
        }
        let span = Span::new(delim_pos, self.last_end());
        Ok(self.push(if is_break {
            Node::Break {
                span,
                pos: pos32(pos),
            }
        } else {
            Node::Continue {
                span,
                pos: pos32(pos),
            }
        }))
    }

    fn pipeline(&mut self, context: &str, end: ItemType) -> PResult<NodeId> {
        let token = self.peek_non_space();
        let pos = token.pos();
        let mut decl: Vec<NodeId> = Vec::new();
        let mut is_assign = false;
        let mark = self.scratch.len();
        'decls: loop {
            let v = self.peek_non_space();
            if v.typ() != ItemType::Variable {
                break;
            }
            self.next();
            let token_after = self.peek();
            let next = self.peek_non_space();
            if next.typ() == ItemType::Assign || next.typ() == ItemType::Declare {
                is_assign = next.typ() == ItemType::Assign;
                self.next_non_space();
                let var = self.new_variable(&v);
                decl.push(var);
                let name = self.name(self.val(&v));
                self.ctx.vars.push(name);
            } else if next.typ() == ItemType::Char && self.val(&next) == "," {
                self.next_non_space();
                let var = self.new_variable(&v);
                decl.push(var);
                let name = self.name(self.val(&v));
                self.ctx.vars.push(name);
                if context == "range" && decl.len() < 2 {
                    match self.peek_non_space().typ() {
                        ItemType::Variable | ItemType::RightDelim | ItemType::RightParen => {
                            continue 'decls;
                        }
                        _ => return Err(self.errorf("range can only initialize variables")),
                    }
                }
                return Err(self.errorf(format!("too many declarations in {context}")));
            } else if token_after.typ() == ItemType::Space {
                self.backup3(v, token_after);
            } else {
                self.backup2(v);
            }
            break;
        }
        loop {
            let token = self.next_non_space();
            if token.typ() == end {
                let cmds = &self.scratch[mark..];
                if cmds.is_empty() {
                    return Err(self.errorf(format!("missing value for {context}")));
                }
                for (i, c) in cmds.iter().enumerate().skip(1) {
                    if let Node::Command { args, .. } = &self.nodes[c.0 as usize] {
                        if let Some(first) = self.kids_of(*args).first() {
                            if matches!(
                                self.nodes[first.0 as usize],
                                Node::Bool { .. }
                                    | Node::Dot { .. }
                                    | Node::Nil { .. }
                                    | Node::Number { .. }
                                    | Node::String { .. }
                            ) {
                                return Err(self.errorf(format!(
                                    "non executable command in pipeline stage {}",
                                    i + 1
                                )));
                            }
                        }
                    }
                }
                let start = decl
                    .first()
                    .or(cmds.first())
                    .map(|n| self.node_span(*n).start as usize)
                    .unwrap_or(pos);
                let stop = cmds
                    .last()
                    .map(|n| self.node_span(*n).end as usize)
                    .unwrap_or(start);
                let cmds = self.commit_kids(mark);
                let decl_start = self.scratch.len();
                self.scratch.extend_from_slice(&decl);
                let decl = self.commit_kids(decl_start);
                return Ok(self.push(Node::Pipe {
                    span: Span::new(start, stop.max(start)),
                    pos: pos32(pos),
                    is_assign,
                    decl,
                    cmds,
                }));
            }
            match token.typ() {
                ItemType::Bool
                | ItemType::CharConstant
                | ItemType::Complex
                | ItemType::Dot
                | ItemType::Field
                | ItemType::Identifier
                | ItemType::Number
                | ItemType::Nil
                | ItemType::RawString
                | ItemType::String
                | ItemType::Variable
                | ItemType::LeftParen => {
                    self.backup();
                    let c = self.command()?;
                    self.scratch.push(c);
                }
                _ => return Err(self.unexpected(&token, context)),
            }
        }
    }

    fn branch_control(&mut self, context: &str, delim_pos: usize) -> PResult<NodeId> {
        let mark = self.ctx.vars.len();
        let r = self.branch_inner(context, delim_pos);
        self.ctx.vars.truncate(mark);
        r
    }

    fn branch_inner(&mut self, context: &str, delim_pos: usize) -> PResult<NodeId> {
        let pipe = self.pipeline(context, ItemType::RightDelim)?;
        if context == "range" {
            self.ctx.range_depth += 1;
        }
        let listed = self.item_list();
        if context == "range" {
            self.ctx.range_depth -= 1;
        }
        let (list, next) = listed?;
        let mut else_list = None;
        match next {
            Parsed1::End => {}
            Parsed1::Else(else_pos) => {
                let chained = if context == "if" && self.peek().typ() == ItemType::If {
                    Some("if")
                } else if context == "with"
                    && self.level.else_with()
                    && self.peek().typ() == ItemType::With
                {
                    Some("with")
                } else {
                    None
                };
                if let Some(kw) = chained {
                    self.next();
                    let inner = self.branch_control(kw, else_pos)?;
                    let mark = self.scratch.len();
                    self.scratch.push(inner);
                    let nodes = self.commit_kids(mark);
                    else_list = Some(self.push(Node::List {
                        pos: pos32(else_pos),
                        nodes,
                    }));
                } else {
                    let (l, next) = self.item_list()?;
                    if let Parsed1::Else(_) = next {
                        let s = self.delim_word("else");
                        return Err(self.errorf(format!("expected end; found {s}")));
                    }
                    else_list = Some(l);
                }
            }
            Parsed1::Node(_) => {}
        }
        let pos = match &self.nodes[pipe.0 as usize] {
            Node::Pipe { pos, .. } => *pos,
            _ => pos32(delim_pos),
        };
        let b = Branch {
            span: Span::new(delim_pos, self.last_end()),
            pos,
            pipe,
            list,
            else_list,
        };
        Ok(self.push(match context {
            "if" => Node::If(b),
            "range" => Node::Range(b),
            _ => Node::With(b),
        }))
    }

    fn end_control(&mut self) -> PResult<Parsed1> {
        self.expect(ItemType::RightDelim, "end")?;
        Ok(Parsed1::End)
    }

    fn else_control(&mut self) -> PResult<Parsed1> {
        let peek = self.peek_non_space();
        if peek.typ() == ItemType::If || (self.level.else_with() && peek.typ() == ItemType::With) {
            return Ok(Parsed1::Else(peek.pos()));
        }
        let t = self.expect(ItemType::RightDelim, "else")?;
        Ok(Parsed1::Else(t.pos()))
    }

    /// `{{end}}` or `{{else}}` in the lexer's delimiters, as error messages name
    /// them; made only for a message (every `end` of a chart made one once).
    fn delim_word(&self, word: &str) -> String {
        format!("{}{}{}", self.lex_left(), word, self.lex_right())
    }

    fn lex_left(&self) -> &str {
        self.lex_delims().0
    }

    fn lex_right(&self) -> &str {
        self.lex_delims().1
    }

    fn lex_delims(&self) -> (&str, &str) {
        self.lex.delims()
    }

    fn block_control(&mut self, delim_pos: usize) -> PResult<NodeId> {
        let context = "block clause";
        let token = self.next_non_space();
        let name = self.parse_template_name(&token, context)?;
        let pipe = self.pipeline(context, ItemType::RightDelim)?;
        let action_end = self.last_end();
        let fresh = Ctx::new(name.clone(), self.name("$"));
        let outer = std::mem::replace(&mut self.ctx, fresh);
        let body = self.item_list();
        let inner = std::mem::replace(&mut self.ctx, outer);
        let (root, end) = body?;
        if let Parsed1::Else(_) = end {
            let s = self.delim_word("else");
            return Err(self.errorf(format!("unexpected {s} in {context}")));
        }
        let saved = std::mem::replace(&mut self.ctx, inner);
        let added = self.add(name.clone(), root);
        self.ctx = saved;
        added?;
        let name = self.name_slot(name);
        Ok(self.push(Node::Template {
            span: Span::new(delim_pos, action_end),
            pos: pos32(token.pos()),
            name,
            pipe: Some(pipe),
        }))
    }

    fn template_control(&mut self, delim_pos: usize) -> PResult<NodeId> {
        let context = "template clause";
        let token = self.next_non_space();
        let name = self.parse_template_name(&token, context)?;
        let mut pipe = None;
        if self.next_non_space().typ() != ItemType::RightDelim {
            self.backup();
            pipe = Some(self.pipeline(context, ItemType::RightDelim)?);
        }
        let name = self.name_slot(name);
        Ok(self.push(Node::Template {
            span: Span::new(delim_pos, self.last_end()),
            pos: pos32(token.pos()),
            name,
            pipe,
        }))
    }

    fn parse_template_name(&mut self, token: &Item<'a>, context: &str) -> PResult<Arc<str>> {
        match token.typ() {
            ItemType::String | ItemType::RawString => match self.string_value(self.val(token)) {
                Some(s) => Ok(s),
                None => Err(self.errorf("invalid syntax")),
            },
            _ => Err(self.unexpected(token, context)),
        }
    }

    fn command(&mut self) -> PResult<NodeId> {
        let pos = self.peek_non_space().pos();
        let mark = self.scratch.len();
        loop {
            self.peek_non_space();
            if let Some(op) = self.operand()? {
                self.scratch.push(op);
            }
            let token = self.next();
            match token.typ() {
                ItemType::Space => continue,
                ItemType::RightDelim | ItemType::RightParen => self.backup(),
                ItemType::Pipe => {}
                _ => return Err(self.unexpected(&token, "operand")),
            }
            break;
        }
        let (first, last) = match &self.scratch[mark..] {
            [] => return Err(self.errorf("empty command")),
            [first, .., last] => (*first, *last),
            [only] => (*only, *only),
        };
        let span = self.node_span(first).join(self.node_span(last));
        let args = self.commit_kids(mark);
        Ok(self.push(Node::Command {
            span,
            pos: pos32(pos),
            args,
        }))
    }

    fn operand(&mut self) -> PResult<Option<NodeId>> {
        let Some(node) = self.term()? else {
            return Ok(None);
        };
        if self.peek().typ() != ItemType::Field {
            return Ok(Some(node));
        }
        let chain_pos = self.peek().pos();
        let fields_start = self.ident_pool.len();
        let mut end = self.node_span(node).end as usize;
        while self.peek().typ() == ItemType::Field {
            let f = self.next();
            end = f.pos() + self.val(&f).len();
            let id = self.name_id(&self.val(&f)[1..]);
            self.ident_pool.push(id);
        }
        let fields = Idents::new(fields_start, self.ident_pool.len() - fields_start);
        let start = self.node_span(node).start as usize;
        let span = Span::new(start, end);
        let replacement = match &self.nodes[node.0 as usize] {
            Node::Field { ident, .. } => {
                let ident = self.extend_idents(*ident, fields);
                Node::Field {
                    span,
                    pos: pos32(chain_pos),
                    ident,
                }
            }
            Node::Variable { ident, .. } => {
                let ident = self.extend_idents(*ident, fields);
                Node::Variable {
                    span,
                    pos: pos32(chain_pos),
                    ident,
                }
            }
            Node::Bool { .. }
            | Node::String { .. }
            | Node::Number { .. }
            | Node::Nil { .. }
            | Node::Dot { .. } => {
                let s = self.node_string_local(node);
                return Err(
                    self.errorf(format!("unexpected . after term {}", super::fmt::quote(&s)))
                );
            }
            _ => Node::Chain {
                span,
                pos: pos32(chain_pos),
                node,
                fields,
            },
        };
        Ok(Some(self.push(replacement)))
    }

    fn node_string_local(&self, id: NodeId) -> String {
        match &self.nodes[id.0 as usize] {
            Node::Bool { val, .. } => val.to_string(),
            Node::Nil { .. } => "nil".to_string(),
            Node::Dot { .. } => ".".to_string(),
            n => {
                let span = match n {
                    Node::String { span, .. } | Node::Number { span, .. } => *span,
                    _ => Span::default(),
                };
                self.src[span.range()].to_string()
            }
        }
    }

    fn term(&mut self) -> PResult<Option<NodeId>> {
        let token = self.next_non_space();
        let span = self.span_of(&token);
        let node = match token.typ() {
            ItemType::Identifier => {
                let Some(name) = self.func_name(self.val(&token)) else {
                    return Err(self.errorf(format!(
                        "function {} not defined",
                        super::fmt::quote(self.val(&token))
                    )));
                };
                Node::Identifier { span, name }
            }
            ItemType::Dot => Node::Dot { span },
            ItemType::Nil => Node::Nil { span },
            ItemType::Variable => {
                let ident = self.idents(self.val(&token));
                // Names are shared within a parse, so the pointer test nearly always
                // decides; the text comparison keeps it correct regardless.
                let first = &self.name_table[self.ident_pool[ident.start()] as usize];
                if !self
                    .ctx
                    .vars
                    .iter()
                    .any(|v| Arc::ptr_eq(v, first) || **v == **first)
                {
                    return Err(
                        self.errorf(format!("undefined variable {}", super::fmt::quote(first)))
                    );
                }
                Node::Variable {
                    span,
                    pos: pos32(token.pos()),
                    ident,
                }
            }
            ItemType::Field => Node::Field {
                span,
                pos: pos32(token.pos()),
                ident: self.idents(&self.val(&token)[1..]),
            },
            ItemType::Bool => Node::Bool {
                span,
                val: self.val(&token) == "true",
            },
            ItemType::CharConstant | ItemType::Complex | ItemType::Number => {
                let num = match new_number(self.val(&token), token.typ()) {
                    Ok(n) => n,
                    Err(msg) => return Err(self.errorf(msg)),
                };
                Node::Number {
                    span,
                    num: Box::new(num),
                }
            }
            ItemType::LeftParen => {
                if self.ctx.stack_depth >= MAX_PAREN_DEPTH {
                    return Err(self.errorf("max expression depth exceeded"));
                }
                self.ctx.stack_depth += 1;
                let r = super::stack::maybe_grow(64 * 1024, 1024 * 1024, || {
                    self.pipeline("parenthesized pipeline", ItemType::RightParen)
                });
                self.ctx.stack_depth -= 1;
                return r.map(Some);
            }
            ItemType::String | ItemType::RawString => match self.string_value(self.val(&token)) {
                Some(text) => Node::String { span, text },
                None => return Err(self.errorf("invalid syntax")),
            },
            _ => {
                self.backup();
                return Ok(None);
            }
        };
        Ok(Some(self.push(node)))
    }

    fn new_variable(&mut self, v: &Item<'a>) -> NodeId {
        let span = self.span_of(v);
        let ident = self.idents(self.val(v));
        self.push(Node::Variable {
            span,
            pos: pos32(v.pos()),
            ident,
        })
    }
}

/// What `textOrAction` produced: a node, or one of the two pseudo-nodes that end a
/// list (for `else`, its position).
enum Parsed1 {
    Node(NodeId),
    End,
    Else(usize),
}

/// Go's `newNumber`: every valid reading of a number literal.
pub fn new_number(text: &str, typ: ItemType) -> Result<Number, String> {
    let mut n = Number::default();
    match typ {
        ItemType::CharConstant => {
            let body = &text[1..];
            let Some((c, byte, tail)) = golit::unquote_char(body, '\'') else {
                return Err("invalid syntax".to_string());
            };
            if tail != "'" {
                return Err(format!("malformed character constant: {text}"));
            }
            let v = match byte {
                Some(b) => b as i64,
                None => c as i64,
            };
            n.is_int = true;
            n.int = v;
            n.is_uint = true;
            n.uint = v as u64;
            n.is_float = true;
            n.float = v as f64;
            return Ok(n);
        }
        ItemType::Complex => {
            // `1+2i`: a real part and an imaginary part.
            let split = text[1..]
                .rfind(['+', '-'])
                .map(|i| i + 1)
                .filter(|&i| !matches!(text.as_bytes()[i - 1], b'e' | b'E' | b'p' | b'P'));
            let parsed = split.and_then(|i| {
                let re = golit::parse_float(&text[..i])?;
                let im = golit::parse_float(text[i..].strip_suffix('i')?)?;
                Some((re, im))
            });
            let Some((re, im)) = parsed else {
                return Err("expected integer".to_string());
            };
            n.is_complex = true;
            n.complex = (re, im);
            simplify_complex(&mut n);
            return Ok(n);
        }
        _ => {}
    }
    if let Some(body) = text.strip_suffix('i') {
        if let Some(f) = golit::parse_float(body) {
            n.is_complex = true;
            n.complex = (0.0, f);
            simplify_complex(&mut n);
            return Ok(n);
        }
    }
    let u = golit::parse_uint(text);
    if let Some(u) = u {
        n.is_uint = true;
        n.uint = u;
    }
    if let Some(i) = golit::parse_int(text) {
        n.is_int = true;
        n.int = i;
        if i == 0 {
            n.is_uint = true;
            n.uint = u.unwrap_or(0);
        }
    }
    if n.is_int {
        n.is_float = true;
        n.float = n.int as f64;
    } else if n.is_uint {
        n.is_float = true;
        n.float = n.uint as f64;
    } else if let Some(f) = golit::parse_float(text) {
        if !text.contains(['.', 'e', 'E', 'p', 'P']) {
            return Err(format!("integer overflow: {}", super::fmt::quote(text)));
        }
        n.is_float = true;
        n.float = f;
        if !n.is_int && (f as i64) as f64 == f {
            n.is_int = true;
            n.int = f as i64;
        }
        if !n.is_uint && (f as u64) as f64 == f {
            n.is_uint = true;
            n.uint = f as u64;
        }
    }
    if !n.is_int && !n.is_uint && !n.is_float {
        return Err(format!(
            "illegal number syntax: {}",
            super::fmt::quote(text)
        ));
    }
    Ok(n)
}

fn simplify_complex(n: &mut Number) {
    if n.complex.1 == 0.0 {
        n.is_float = true;
        n.float = n.complex.0;
        if (n.float as i64) as f64 == n.float {
            n.is_int = true;
            n.int = n.float as i64;
        }
        if (n.float as u64) as f64 == n.float {
            n.is_uint = true;
            n.uint = n.float as u64;
        }
    }
}
