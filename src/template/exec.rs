//! The executor: walks a parsed template with data and writes the output.
//!
//! It mirrors Go's `text/template/exec.go` closely where behaviour is observable:
//! the node the error message points at (`at <...>`) is tracked exactly where Go
//! tracks it, arguments are checked and converted per declared parameter type before
//! a call, and Go's distinction between *no value* (an invalid `reflect.Value`, what a
//! missing map key yields) and a *nil interface* (a present key holding YAML `null`)
//! is kept, because the two produce different error texts.
//!
//! Output goes into one `String`; text nodes are copied straight from the shared
//! source text. Template recursion runs on a growable stack (`stacker`) so that
//! Go's own depth limits are reached, with Go's errors, instead of a stack overflow.

use crate::source::SourceFile;
use std::fmt::Write as _;
use std::sync::Arc;

use super::ast::{Branch, IdentRun, Node, NodeId, Tree};
use super::builtins::{self, Builtin};
use super::error::{Error, ErrorKind};
use super::options::MissingKey;
use super::registry::{CallCtx, Engine, FuncDef, FuncError, FuncImpl, Host, Ty};
use super::set::TemplateSet;
use super::value::{Kind, ListType, MapType, Value};

/// Go's `maxExecDepth`: nested `{{template}}` calls allowed within one execution.
pub const MAX_EXEC_DEPTH: usize = 100_000;

const RED_ZONE: usize = 128 * 1024;
const STACK_CHUNK: usize = 2 * 1024 * 1024;

/// A value as the executor holds it: Go's `reflect.Value`, reduced to what matters.
/// `iface` marks a value whose static type is `interface {}` (a map element or
/// slice element of `[]interface {}`); `Val { v: Nil, iface: false }` is Go's invalid
/// value ("no value"). `addr` marks a field reached through a pointer to a host
/// struct (`.Capabilities.KubeVersion`): Go can take its address, so printing it
/// calls a `String` method declared on the pointer.
#[derive(Clone, Debug)]
pub(crate) struct Val {
    pub v: Value,
    pub iface: bool,
    pub addr: bool,
}

/// A call's arguments: most calls take four or fewer, which then need no heap.
type Args<T> = smallvec::SmallVec<[T; 4]>;

impl Val {
    pub const MISSING: Val = Val {
        v: Value::Nil,
        iface: false,
        addr: false,
    };

    pub fn plain(v: Value) -> Val {
        Val {
            v,
            iface: false,
            addr: false,
        }
    }

    pub fn iface(v: Value) -> Val {
        Val {
            v,
            iface: true,
            addr: false,
        }
    }

    /// An element of a container whose element type is `interface {}` when `iface`.
    pub fn elem(v: Value, iface: bool) -> Val {
        Val {
            v,
            iface,
            addr: false,
        }
    }

    pub fn is_missing(&self) -> bool {
        !self.iface && self.v.is_nil()
    }

    /// Go's "dig down one level" through an `interface {}`: a nil interface becomes
    /// no value.
    pub fn dig(self) -> Val {
        Val {
            v: self.v,
            iface: false,
            addr: self.addr,
        }
    }

    /// The type Go names in errors before looking inside interfaces.
    pub fn static_type(&self) -> String {
        if self.iface {
            "interface {}".to_string()
        } else {
            self.v.type_name()
        }
    }

    pub fn truth(&self) -> bool {
        self.v.is_true()
    }
}

/// The element type of map values: `interface {}` unless the map is a
/// `map[string]string`.
fn map_elem_iface(t: MapType) -> bool {
    !matches!(t, MapType::String)
}

fn list_elem_iface(t: ListType) -> bool {
    matches!(t, ListType::Interface)
}

/// What a parameter accepts: a declared Go type, a `reflect.Value` (Go's builtins
/// take those and see values unconverted), or no type at all (a chain's receiver).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ArgTy {
    Ty(Ty),
    Reflect,
    NoType,
}

impl ArgTy {
    fn name(self) -> &'static str {
        match self {
            ArgTy::Ty(t) => t.go_name(),
            ArgTy::Reflect => "reflect.Value",
            ArgTy::NoType => "<nil>",
        }
    }

    fn can_be_nil(self) -> bool {
        match self {
            ArgTy::Ty(t) => matches!(t, Ty::Any | Ty::List | Ty::Strings | Ty::Map | Ty::Semver),
            ArgTy::Reflect => true,
            ArgTy::NoType => true,
        }
    }

    fn zero(self) -> Val {
        match self {
            ArgTy::Ty(Ty::List) => {
                Val::plain(Value::List(super::value::List::nil(ListType::Interface)))
            }
            ArgTy::Ty(Ty::Strings) => {
                Val::plain(Value::List(super::value::List::nil(ListType::String)))
            }
            ArgTy::Ty(Ty::Any) => Val::iface(Value::Nil),
            ArgTy::Ty(Ty::Semver) => Val::plain(Value::Nil),
            _ => Val::MISSING,
        }
    }
}

/// Whether a concrete value is assignable to a parameter of type `t`.
fn assignable(v: &Value, t: Ty) -> bool {
    use super::value::{IntType, UintType};
    match t {
        Ty::Any => true,
        Ty::String => matches!(v, Value::String(_)),
        Ty::Bool => matches!(v, Value::Bool(_)),
        Ty::Int => matches!(v, Value::Int(_, IntType::Int)),
        Ty::Int64 => matches!(v, Value::Int(_, IntType::Int64)),
        Ty::Uint32 => matches!(v, Value::Uint(_, UintType::Uint32)),
        Ty::Float64 => matches!(v, Value::Float(_)),
        Ty::List => matches!(v, Value::List(l) if l.ty() == ListType::Interface),
        Ty::Strings => matches!(v, Value::List(l) if l.ty() == ListType::String),
        Ty::Map => matches!(v, Value::Map(m) if m.ty() != MapType::String),
        Ty::Time => matches!(v, Value::Object(o) if o.type_name() == "time.Time"),
        Ty::Semver => matches!(v, Value::Object(o) if o.type_name() == "*semver.Version"),
        Ty::Duration => matches!(v, Value::Object(o) if o.type_name() == "time.Duration"),
    }
}

/// Non-error ways a walk can end early.
pub(crate) enum Flow {
    Break,
    Continue,
    Err(Box<Error>),
}

impl From<Box<Error>> for Flow {
    fn from(e: Box<Error>) -> Flow {
        Flow::Err(e)
    }
}

type EResult<T> = Result<T, Box<Error>>;
type WResult = Result<(), Flow>;

/// State shared by every template execution started from one top-level execution,
/// including executions inside `include` and `tpl`.
#[derive(Default)]
pub(crate) struct Shared {
    pub counters: crate::source::FastMap<String, usize>,
}

/// Where a piece of output came from: the text or action node (or `{{template}}`
/// call) that started writing at output byte `at`. Recorded only for traced runs
/// ([`TemplateSet::execute_traced`]), so callers can map output back to source lines.
#[derive(Clone, Debug)]
pub struct Emit {
    /// Byte offset in the output where the node's output starts.
    pub at: usize,
    /// The file whose node it is (a `define` in another file for `{{template}}`).
    pub source: SourceFile,
    /// The node's span in that file.
    pub span: super::super::source::Span,
    /// A text node: its output is its span's text verbatim, so every output byte
    /// maps to one source byte.
    pub text: bool,
}

pub(crate) struct State<'s> {
    /// Output provenance of the top-level execution, when asked for.
    pub(crate) trace: Option<Vec<Emit>>,
    set: &'s TemplateSet,
    host: &'s Host,
    shared: &'s mut Shared,
    tmpl_name: Arc<str>,
    tree: &'s Tree,
    vars: Vec<(Arc<str>, Val)>,
    depth: usize,
    node: Option<NodeId>,
    /// The name `$`, allocated once per execution rather than per template call.
    dollar: Arc<str>,
}

impl<'s> State<'s> {
    pub fn new(set: &'s TemplateSet, host: &'s Host, shared: &'s mut Shared) -> State<'s> {
        State {
            trace: None,
            set,
            host,
            shared,
            tmpl_name: Arc::from(""),
            tree: set.empty_tree(),
            vars: Vec::new(),
            depth: 0,
            node: None,
            dollar: Arc::from("$"),
        }
    }

    /// Go's `ExecuteTemplate` for this state's set.
    pub fn run(&mut self, name: &str, data: &Value, out: &mut String) -> EResult<()> {
        let Some(def) = self.set.lookup(name) else {
            return Err(Box::new(self.set.no_template_error(name)));
        };
        let dot = Val::plain(data.clone());
        self.tmpl_name = def.name.clone();
        self.tree = &def.tree;
        self.vars = vec![(self.dollar.clone(), dot.clone())];
        self.node = None;
        match self.walk(&dot, def.root, out) {
            Ok(()) => Ok(()),
            Err(Flow::Err(e)) => Err(e),
            Err(Flow::Break | Flow::Continue) => {
                Err(self.errorf("break or continue outside range"))
            }
        }
    }

    /// Records that node `id` of the current tree writes from output offset `at`.
    fn emit(&mut self, id: NodeId, at: usize) {
        if let Some(trace) = self.trace.as_mut() {
            let tree = self.tree;
            let (span, text) = match tree.node(id) {
                Node::Text { span } => (*span, true),
                _ => (tree.span(id), false),
            };
            trace.push(Emit {
                at,
                source: tree.source.clone(),
                span,
                text,
            });
        }
    }

    // ---- errors -------------------------------------------------------------------

    fn at(&mut self, node: NodeId) {
        self.node = Some(node);
    }

    /// Go's `state.errorf`: prefixes the message with the location and the node.
    fn errorf(&self, msg: impl Into<String>) -> Box<Error> {
        self.error_kind(ErrorKind::Exec, msg.into())
    }

    fn error_kind(&self, kind: ErrorKind, msg: String) -> Box<Error> {
        let name = &self.tmpl_name;
        let mut e = Error::new(kind, String::new());
        e.executing = Some(name.to_string());
        match self.node {
            None => {
                e.message = format!("template: {name}: {msg}");
                e.template = name.to_string();
            }
            Some(id) => {
                let tree = self.tree;
                let (line, col) = tree.line_col(id);
                let context = tree.node_string(id);
                e.message = format!(
                    "template: {}:{}:{}: executing {} at <{}>: {}",
                    tree.parse_name,
                    line,
                    col,
                    super::fmt::quote(name),
                    context,
                    msg
                );
                e.template = tree.parse_name.to_string();
                e.line = Some(line);
                e.col = Some(col);
                e.context = Some(context);
                e.span = Some(tree.span(id));
                e.source = Some(tree.source.clone());
            }
        }
        e.detail = msg;
        Box::new(e)
    }

    // ---- variables ----------------------------------------------------------------

    fn push_var(&mut self, name: Arc<str>, v: Val) {
        self.vars.push((name, v));
    }

    fn set_var(&mut self, name: &str, v: Val) -> EResult<()> {
        for slot in self.vars.iter_mut().rev() {
            if &*slot.0 == name {
                slot.1 = v;
                return Ok(());
            }
        }
        Err(self.errorf(format!("undefined variable: {name}")))
    }

    fn set_top_var(&mut self, n: usize, v: Val) {
        let len = self.vars.len();
        if let Some(slot) = len.checked_sub(n).and_then(|i| self.vars.get_mut(i)) {
            slot.1 = v;
        }
    }

    fn var_value(&self, name: &str) -> EResult<Val> {
        for slot in self.vars.iter().rev() {
            if &*slot.0 == name {
                return Ok(slot.1.clone());
            }
        }
        Err(self.errorf(format!("undefined variable: {name}")))
    }

    // ---- walking ------------------------------------------------------------------

    fn walk(&mut self, dot: &Val, id: NodeId, out: &mut String) -> WResult {
        self.at(id);
        let tree = self.tree;
        match tree.node(id) {
            Node::List { nodes, .. } => {
                for n in tree.kids(*nodes) {
                    self.walk(dot, *n, out)?;
                }
                Ok(())
            }
            Node::Text { span } => {
                self.emit(id, out.len());
                out.push_str(&tree.text()[span.range()]);
                Ok(())
            }
            Node::Action { pipe, .. } => {
                let val = self.eval_pipeline(dot, *pipe)?;
                let has_decl =
                    matches!(tree.node(*pipe), Node::Pipe { decl, .. } if !decl.is_empty());
                if !has_decl {
                    self.at(id);
                    self.emit(id, out.len());
                    print_value(&val, out);
                }
                Ok(())
            }
            Node::If(b) => self.walk_if_or_with(false, dot, b, out),
            Node::With(b) => self.walk_if_or_with(true, dot, b, out),
            Node::Range(b) => {
                super::stack::maybe_grow(RED_ZONE, STACK_CHUNK, || self.walk_range(dot, id, b, out))
            }
            Node::Template { name, pipe, .. } => {
                self.emit(id, out.len());
                let tree = self.tree;
                self.walk_template(dot, id, tree.template_name(*name), *pipe, out)
            }
            Node::Break { .. } => Err(Flow::Break),
            Node::Continue { .. } => Err(Flow::Continue),
            _ => {
                let s = tree.node_string(id);
                Err(self.errorf(format!("unknown node: {s}")).into())
            }
        }
    }

    fn walk_if_or_with(&mut self, with: bool, dot: &Val, b: &Branch, out: &mut String) -> WResult {
        let mark = self.vars.len();
        let r = super::stack::maybe_grow(RED_ZONE, STACK_CHUNK, || -> WResult {
            let val = self.eval_pipeline(dot, b.pipe)?;
            if val.truth() {
                if with {
                    self.walk(&val, b.list, out)
                } else {
                    self.walk(dot, b.list, out)
                }
            } else if let Some(e) = b.else_list {
                self.walk(dot, e, out)
            } else {
                Ok(())
            }
        });
        self.vars.truncate(mark);
        r
    }

    fn walk_range(&mut self, dot: &Val, id: NodeId, b: &Branch, out: &mut String) -> WResult {
        self.at(id);
        let mark0 = self.vars.len();
        let r = self.walk_range_inner(dot, b, out);
        self.vars.truncate(mark0);
        match r {
            Err(Flow::Break) => Ok(()),
            other => other,
        }
    }

    fn walk_range_inner(&mut self, dot: &Val, b: &Branch, out: &mut String) -> WResult {
        let val = self.eval_pipeline(dot, b.pipe)?;
        let tree = self.tree;
        let (ndecl, is_assign, names): (usize, bool, Vec<Arc<str>>) = match tree.node(b.pipe) {
            Node::Pipe {
                decl, is_assign, ..
            } => (
                decl.len(),
                *is_assign,
                tree.kids(*decl)
                    .iter()
                    .filter_map(|d| match tree.node(*d) {
                        Node::Variable { ident, .. } => tree.idents(*ident).first().cloned(),
                        _ => None,
                    })
                    .collect(),
            ),
            _ => (0, false, Vec::new()),
        };
        let mark = self.vars.len();
        let mut ran = false;
        let mut one = |st: &mut State<'s>, index: Val, elem: Val| -> Result<bool, Flow> {
            ran = true;
            if ndecl > 0 {
                if is_assign {
                    let first = if ndecl > 1 {
                        index.clone()
                    } else {
                        elem.clone()
                    };
                    st.set_var(&names[0], first)?;
                } else {
                    st.set_top_var(1, elem.clone());
                }
            }
            if ndecl > 1 {
                if is_assign {
                    st.set_var(&names[1], elem.clone())?;
                } else {
                    st.set_top_var(2, index);
                }
            }
            let r = st.walk(&elem, b.list, out);
            st.vars.truncate(mark);
            match r {
                Ok(()) | Err(Flow::Continue) => Ok(true),
                Err(Flow::Break) => Ok(false),
                Err(e) => Err(e),
            }
        };
        let collection = match &val.v {
            Value::Object(o) => o.as_collection().unwrap_or_else(|| val.v.clone()),
            v => v.clone(),
        };
        match &collection {
            Value::Int(n, t) if self.set.options().level.range_int() => {
                if ndecl > 1 {
                    let s = super::fmt::format_value(&collection);
                    return Err(self
                        .errorf(format!(
                            "can't use {s} to iterate over more than one variable"
                        ))
                        .into());
                }
                let mut i = 0;
                while i < *n {
                    if !one(self, Val::MISSING, Val::plain(Value::Int(i, *t)))? {
                        break;
                    }
                    i += 1;
                }
            }
            Value::Uint(n, t) if self.set.options().level.range_int() => {
                if ndecl > 1 {
                    let s = super::fmt::format_value(&collection);
                    return Err(self
                        .errorf(format!(
                            "can't use {s} to iterate over more than one variable"
                        ))
                        .into());
                }
                let mut i = 0;
                while i < *n {
                    if !one(self, Val::MISSING, Val::plain(Value::Uint(i, *t)))? {
                        break;
                    }
                    i += 1;
                }
            }
            Value::List(l) => {
                let iface = list_elem_iface(l.ty());
                for (i, e) in l.iter().enumerate() {
                    let idx = Val::plain(Value::int(i as i64));
                    if !one(self, idx, Val::elem(e.clone(), iface))? {
                        break;
                    }
                }
            }
            Value::Bytes(bs) => {
                for (i, e) in bs.iter().enumerate() {
                    let idx = Val::plain(Value::int(i as i64));
                    let elem = Val::plain(Value::Uint(*e as u64, super::value::UintType::Uint8));
                    if !one(self, idx, elem)? {
                        break;
                    }
                }
            }
            Value::Map(m) => {
                let iface = map_elem_iface(m.ty());
                for (k, v) in m.entries() {
                    if !one(self, Val::plain(Value::str(k)), Val::elem(v, iface))? {
                        break;
                    }
                }
            }
            Value::Nil => {}
            other => {
                let s = super::fmt::format_value(other);
                return Err(self.errorf(format!("range can't iterate over {s}")).into());
            }
        }
        if !ran {
            if let Some(e) = b.else_list {
                self.walk(dot, e, out)?;
            }
        }
        Ok(())
    }

    fn walk_template(
        &mut self,
        dot: &Val,
        id: NodeId,
        name: &Arc<str>,
        pipe: Option<NodeId>,
        out: &mut String,
    ) -> WResult {
        self.at(id);
        let set = self.set;
        let Some(def) = set.lookup(name) else {
            return Err(self
                .errorf(format!("template {} not defined", super::fmt::quote(name)))
                .into());
        };
        if self.depth >= MAX_EXEC_DEPTH {
            return Err(self
                .error_kind(
                    ErrorKind::Recursion,
                    format!("exceeded maximum template depth ({MAX_EXEC_DEPTH})"),
                )
                .into());
        }
        let new_dot = match pipe {
            Some(p) => self.eval_pipeline(dot, p)?,
            None => Val::MISSING,
        };
        let frame = vec![(self.dollar.clone(), new_dot.clone())];
        let saved_vars = std::mem::replace(&mut self.vars, frame);
        let saved_name = std::mem::replace(&mut self.tmpl_name, def.name.clone());
        let saved_tree = std::mem::replace(&mut self.tree, &def.tree);
        self.depth += 1;
        let r =
            super::stack::maybe_grow(RED_ZONE, STACK_CHUNK, || self.walk(&new_dot, def.root, out));
        self.depth -= 1;
        self.tree = saved_tree;
        self.tmpl_name = saved_name;
        self.vars = saved_vars;
        r
    }

    // ---- evaluation ---------------------------------------------------------------

    pub(crate) fn eval_pipeline(&mut self, dot: &Val, pipe: NodeId) -> EResult<Val> {
        self.at(pipe);
        let tree = self.tree;
        let Node::Pipe {
            decl,
            cmds,
            is_assign,
            ..
        } = tree.node(pipe)
        else {
            return Ok(Val::MISSING);
        };
        // Most pipelines are one command: its value goes straight out, not through
        // an `Option` whose copy waited on the stores that filled it.
        let value = match tree.kids(*cmds) {
            [] => Val::MISSING,
            [only] => self.eval_command(dot, *only, None)?.dig(),
            [first, rest @ ..] => {
                let mut value = self.eval_command(dot, *first, None)?.dig();
                for cmd in rest {
                    value = self.eval_command(dot, *cmd, Some(value))?.dig();
                }
                value
            }
        };
        for d in tree.kids(*decl) {
            if let Node::Variable { ident, .. } = tree.node(*d) {
                if let Some(name) = tree.idents(*ident).first() {
                    if *is_assign {
                        self.set_var(name, value.clone())?;
                    } else {
                        self.push_var(name.clone(), value.clone());
                    }
                }
            }
        }
        Ok(value)
    }

    fn not_a_function(&self, first: NodeId, has_args: bool, fin: &Option<Val>) -> EResult<()> {
        if has_args || fin.is_some() {
            let s = self.tree.node_string(first);
            return Err(self.errorf(format!("can't give argument to non-function {s}")));
        }
        Ok(())
    }

    fn eval_command(&mut self, dot: &Val, cmd: NodeId, fin: Option<Val>) -> EResult<Val> {
        let tree = self.tree;
        let Node::Command { args, .. } = tree.node(cmd) else {
            return Ok(Val::MISSING);
        };
        let args = tree.kids(*args);
        let Some(&first) = args.first() else {
            return Ok(Val::MISSING);
        };
        let rest = &args[1..];
        match tree.node(first) {
            Node::Field { ident, .. } => {
                self.at(first);
                let ident = tree.idents(*ident);
                return self.eval_field_chain(dot, dot.clone(), first, ident, rest, fin);
            }
            Node::Chain { .. } => return self.eval_chain_node(dot, first, rest, fin),
            Node::Identifier { name, .. } => {
                return self.eval_function(dot, first, name, cmd, rest, fin)
            }
            Node::Pipe { .. } => {
                self.not_a_function(first, !rest.is_empty(), &fin)?;
                return super::stack::maybe_grow(RED_ZONE, STACK_CHUNK, || {
                    self.eval_pipeline(dot, first)
                });
            }
            Node::Variable { .. } => return self.eval_variable_node(dot, first, rest, fin),
            _ => {}
        }
        self.at(first);
        self.not_a_function(first, !rest.is_empty(), &fin)?;
        match tree.node(first) {
            Node::Bool { val, .. } => Ok(Val::plain(Value::Bool(*val))),
            Node::Dot { .. } => Ok(dot.clone()),
            Node::Nil { .. } => Err(self.errorf("nil is not a command")),
            Node::Number { .. } => self.ideal_constant(first),
            Node::String { text, .. } => Ok(Val::plain(Value::String(text.clone()))),
            _ => {
                let s = super::fmt::quote(&tree.node_string(first));
                Err(self.errorf(format!("can't evaluate command {s}")))
            }
        }
    }

    /// Go's `idealConstant`: a number literal's type from its spelling.
    fn ideal_constant(&mut self, id: NodeId) -> EResult<Val> {
        self.at(id);
        let tree = self.tree;
        let Node::Number { span, num } = tree.node(id) else {
            return Ok(Val::MISSING);
        };
        let text = &tree.text()[span.range()];
        if num.is_complex {
            return Err(self.errorf(format!(
                "complex constant {text} is not supported by stackproof"
            )));
        }
        let is_hex_int = text.len() > 2
            && text.starts_with('0')
            && matches!(text.as_bytes()[1], b'x' | b'X')
            && !text.contains(['p', 'P']);
        let is_rune = text.starts_with('\'');
        if num.is_float && !is_hex_int && !is_rune && text.contains(['.', 'e', 'E', 'p', 'P']) {
            return Ok(Val::plain(Value::Float(num.float)));
        }
        if num.is_int {
            return Ok(Val::plain(Value::int(num.int)));
        }
        if num.is_uint {
            return Err(self.errorf(format!("{text} overflows int")));
        }
        Ok(Val::MISSING)
    }

    fn eval_chain_node(
        &mut self,
        dot: &Val,
        chain: NodeId,
        args: &[NodeId],
        fin: Option<Val>,
    ) -> EResult<Val> {
        self.at(chain);
        let tree = self.tree;
        let Node::Chain { node, fields, .. } = tree.node(chain) else {
            return Ok(Val::MISSING);
        };
        let fields = tree.idents(*fields);
        if fields.is_empty() {
            return Err(self.errorf("internal error: no fields in evalChainNode"));
        }
        if matches!(tree.node(*node), Node::Nil { .. }) {
            let s = tree.node_string(chain);
            return Err(self.errorf(format!("indirection through explicit nil in {s}")));
        }
        let recv = self.eval_arg(dot, ArgTy::NoType, *node)?;
        self.eval_field_chain(dot, recv, chain, fields, args, fin)
    }

    fn eval_variable_node(
        &mut self,
        dot: &Val,
        var: NodeId,
        args: &[NodeId],
        fin: Option<Val>,
    ) -> EResult<Val> {
        self.at(var);
        let tree = self.tree;
        let Node::Variable { ident, .. } = tree.node(var) else {
            return Ok(Val::MISSING);
        };
        let ident = tree.idents(*ident);
        let Some(first) = ident.first() else {
            return Err(self.errorf("internal error: variable without a name"));
        };
        let value = self.var_value(first)?;
        if ident.len() == 1 {
            self.not_a_function(var, !args.is_empty(), &fin)?;
            return Ok(value);
        }
        self.eval_field_chain(dot, value, var, ident.skip(1), args, fin)
    }

    fn eval_field_chain(
        &mut self,
        dot: &Val,
        mut recv: Val,
        node: NodeId,
        ident: IdentRun<'_>,
        args: &[NodeId],
        fin: Option<Val>,
    ) -> EResult<Val> {
        for name in ident.init().iter() {
            recv = self.eval_field(dot, name, node, &[], None, recv)?;
        }
        match ident.last() {
            Some(last) => self.eval_field(dot, last, node, args, fin, recv),
            None => Ok(recv),
        }
    }

    /// Go's `evalField`: `.Name` on a map, an object's method or field.
    fn eval_field(
        &mut self,
        dot: &Val,
        name: &str,
        node: NodeId,
        args: &[NodeId],
        fin: Option<Val>,
        recv: Val,
    ) -> EResult<Val> {
        if recv.is_missing() {
            if self.set.options().missing_key == MissingKey::Error {
                return Err(self.errorf(format!(
                    "nil data; no entry for key {}",
                    super::fmt::quote(name)
                )));
            }
            return Ok(Val::MISSING);
        }
        let typ = recv.static_type();
        if recv.v.is_nil() {
            return Err(self.errorf(format!("nil pointer evaluating {typ}.{name}")));
        }
        let has_args = !args.is_empty() || fin.is_some();
        match &recv.v {
            Value::Object(o) => {
                if o.has_method(name) {
                    let argv: Args<Value> = match o.method_params(name) {
                        // Go checks a method's call as a function's: the count, then
                        // each argument against its parameter type, at that argument.
                        Some(params) => self.call_args(dot, name, params, None, args, fin, None)?,
                        None => {
                            let mut argv = Args::with_capacity(args.len() + 1);
                            for a in args {
                                let v = self.eval_arg(dot, ArgTy::Ty(Ty::Any), *a)?;
                                argv.push(v.v);
                            }
                            if let Some(f) = fin {
                                argv.push(f.v);
                            }
                            argv
                        }
                    };
                    return match o.call_method(name, &argv) {
                        Ok(v) => Ok(result_val(v)),
                        Err(msg) => {
                            self.at(node);
                            let mut err = self.errorf(format!("error calling {name}: {msg}"));
                            err.cause = Some(msg);
                            Err(err)
                        }
                    };
                }
                if let Some(v) = o.field(name) {
                    if has_args {
                        return Err(self.errorf(format!(
                            "{name} has arguments but cannot be invoked as function"
                        )));
                    }
                    let mut field = result_val(v);
                    field.addr = recv.addr || o.kind() == Kind::Ptr;
                    return Ok(field);
                }
                if let Some(Value::Map(m)) = o.as_collection() {
                    return self.map_field(&m, name, has_args);
                }
            }
            Value::Map(m) => {
                if let MapType::Named(ty) = m.ty() {
                    let set = self.set;
                    if let Some(def) = set.registry().method(ty, name) {
                        let recv = Some(recv.v.clone());
                        return self.eval_call(dot, def, node, name, args, fin, recv);
                    }
                }
                return self.map_field(m, name, has_args);
            }
            _ => {}
        }
        Err(self.errorf(format!("can't evaluate field {name} in type {typ}")))
    }

    fn map_field(&mut self, m: &super::value::Map, name: &str, has_args: bool) -> EResult<Val> {
        if has_args {
            return Err(self.errorf(format!("{name} is not a method but has arguments")));
        }
        let iface = map_elem_iface(m.ty());
        match m.get(name) {
            Some(v) => Ok(Val::elem(v, iface)),
            None => match self.set.options().missing_key {
                MissingKey::Default => Ok(Val::MISSING),
                MissingKey::Zero => Ok(if iface {
                    Val::iface(Value::Nil)
                } else {
                    Val::plain(Value::str(""))
                }),
                MissingKey::Error => Err(self.errorf(format!(
                    "map has no entry for key {}",
                    super::fmt::quote(name)
                ))),
            },
        }
    }

    fn eval_function(
        &mut self,
        dot: &Val,
        ident: NodeId,
        name: &Arc<str>,
        node: NodeId,
        args: &[NodeId],
        fin: Option<Val>,
    ) -> EResult<Val> {
        self.at(ident);
        let set = self.set;
        if let Some(def) = set.registry().get(name) {
            return self.eval_call(dot, def, node, name, args, fin, None);
        }
        if let Some(b) = builtins::lookup(name) {
            return self.eval_builtin(dot, b, node, name, args, fin);
        }
        Err(self.errorf(format!(
            "{} is not a defined function",
            super::fmt::quote(name)
        )))
    }

    /// Go's argument-count check, shared by registry functions and builtins.
    fn check_arity(
        &self,
        name: &str,
        fixed: usize,
        variadic: bool,
        nargs: usize,
        has_final: bool,
    ) -> EResult<()> {
        let num_in = nargs + usize::from(has_final);
        if variadic {
            if num_in < fixed {
                return Err(self.errorf(format!(
                    "wrong number of args for {name}: want at least {fixed} got {nargs}"
                )));
            }
        } else if num_in != fixed {
            return Err(self.errorf(format!(
                "wrong number of args for {name}: want {fixed} got {num_in}"
            )));
        }
        Ok(())
    }

    /// Evaluates arguments for a call with `nparams` fixed parameters (typed by
    /// `param`) and an optional variadic type, appending the pipeline's final value.
    fn eval_args(
        &mut self,
        dot: &Val,
        nparams: usize,
        param: &dyn Fn(usize) -> ArgTy,
        variadic: Option<ArgTy>,
        args: &[NodeId],
        fin: Option<Val>,
    ) -> EResult<Args<Val>> {
        let num_in = args.len() + usize::from(fin.is_some());
        let num_fixed = if variadic.is_some() {
            nparams
        } else {
            args.len()
        };
        let mut argv = Args::with_capacity(num_in);
        let mut i = 0;
        while i < num_fixed && i < args.len() {
            let t = if i < nparams {
                param(i)
            } else {
                ArgTy::Ty(Ty::Any)
            };
            argv.push(self.eval_arg(dot, t, args[i])?);
            i += 1;
        }
        if let Some(rest) = variadic {
            while i < args.len() {
                argv.push(self.eval_arg(dot, rest, args[i])?);
                i += 1;
            }
        }
        if let Some(f) = fin {
            let t = match variadic {
                Some(rest) => {
                    if num_in - 1 < num_fixed && num_in - 1 < nparams {
                        param(num_in - 1)
                    } else {
                        rest
                    }
                }
                None if nparams > 0 => param(nparams - 1),
                None => ArgTy::Ty(Ty::Any),
            };
            argv.push(self.validate(f, t)?);
        }
        Ok(argv)
    }

    /// The arguments of a call to a function or method with these parameters, as
    /// Go checks them: their count first, then each against its parameter type.
    /// A method's receiver, if any, comes first.
    #[allow(clippy::too_many_arguments)]
    fn call_args(
        &mut self,
        dot: &Val,
        name: &str,
        params: &[Ty],
        variadic: Option<Ty>,
        args: &[NodeId],
        fin: Option<Val>,
        recv: Option<Value>,
    ) -> EResult<Args<Value>> {
        self.check_arity(
            name,
            params.len(),
            variadic.is_some(),
            args.len(),
            fin.is_some(),
        )?;
        let param = |i: usize| ArgTy::Ty(params[i]);
        let argv = self.eval_args(
            dot,
            params.len(),
            &param,
            variadic.map(ArgTy::Ty),
            args,
            fin,
        )?;
        let mut out = Args::with_capacity(argv.len() + usize::from(recv.is_some()));
        out.extend(recv);
        out.extend(argv.into_iter().map(|v| v.v));
        Ok(out)
    }

    /// Calls a function or a method: a method's receiver goes to its
    /// implementation ahead of the arguments, and is not counted as one.
    #[allow(clippy::too_many_arguments)]
    fn eval_call(
        &mut self,
        dot: &Val,
        def: &FuncDef,
        node: NodeId,
        name: &str,
        args: &[NodeId],
        fin: Option<Val>,
        recv: Option<Value>,
    ) -> EResult<Val> {
        let argv = self.call_args(dot, name, def.sig.params, def.sig.variadic, args, fin, recv)?;
        let result = match def.imp {
            FuncImpl::Plain(f) => f(&argv),
            FuncImpl::Ctx(f) => {
                let host = self.host;
                let mut ctx = CallCtx { engine: self, host };
                f(&mut ctx, &argv)
            }
        };
        match result {
            Ok(v) => Ok(result_val(v)),
            Err(e) => {
                self.at(node);
                let (kind, msg, inner) = match e {
                    FuncError::Call(m) => (ErrorKind::Exec, m, None),
                    FuncError::Fail(m) => (ErrorKind::Fail, m, None),
                    FuncError::Nested { message, inner } => (ErrorKind::Exec, message, Some(inner)),
                };
                let mut err = self.error_kind(kind, format!("error calling {name}: {msg}"));
                err.cause = Some(msg);
                err.inner = inner;
                Err(err)
            }
        }
    }

    fn eval_builtin(
        &mut self,
        dot: &Val,
        b: Builtin,
        node: NodeId,
        name: &str,
        args: &[NodeId],
        fin: Option<Val>,
    ) -> EResult<Val> {
        let (params, variadic) = b.sig();
        self.check_arity(
            name,
            params.len(),
            variadic.is_some(),
            args.len(),
            fin.is_some(),
        )?;
        if matches!(b, Builtin::And | Builtin::Or) {
            let want = b == Builtin::Or;
            let mut v = Val::MISSING;
            for a in args {
                v = self.eval_arg(dot, ArgTy::Reflect, *a)?;
                if v.truth() == want {
                    return Ok(v);
                }
            }
            if let Some(f) = fin {
                v = self.validate(f, ArgTy::Reflect)?;
            }
            return Ok(v);
        }
        let callee = if b == Builtin::Call {
            Some(match args.first() {
                Some(a) => self.tree.node_string(*a),
                None => fin
                    .as_ref()
                    .map(|f| format!("<{} Value>", f.static_type()))
                    .unwrap_or_default(),
            })
        } else {
            None
        };
        let param = |i: usize| params[i];
        let argv = self.eval_args(dot, params.len(), &param, variadic, args, fin)?;
        let level = self.set.options().level;
        match builtins::call(b, &argv, level, callee.as_deref()) {
            Ok(v) => Ok(v),
            Err(msg) => {
                self.at(node);
                let mut err = self.errorf(format!("error calling {name}: {msg}"));
                err.cause = Some(msg);
                Err(err)
            }
        }
    }

    fn eval_arg(&mut self, dot: &Val, ty: ArgTy, n: NodeId) -> EResult<Val> {
        self.at(n);
        let tree = self.tree;
        match tree.node(n) {
            Node::Dot { .. } => return self.validate(dot.clone(), ty),
            Node::Nil { .. } => {
                if ty.can_be_nil() {
                    return Ok(ty.zero());
                }
                return Err(self.errorf(format!("cannot assign nil to {}", ty.name())));
            }
            Node::Field { ident, .. } => {
                let ident = tree.idents(*ident);
                let v = self.eval_field_chain(dot, dot.clone(), n, ident, &[], None)?;
                return self.validate(v, ty);
            }
            Node::Variable { .. } => {
                let v = self.eval_variable_node(dot, n, &[], None)?;
                return self.validate(v, ty);
            }
            Node::Pipe { .. } => {
                let v =
                    super::stack::maybe_grow(RED_ZONE, STACK_CHUNK, || self.eval_pipeline(dot, n))?;
                return self.validate(v, ty);
            }
            Node::Identifier { name, .. } => {
                let v = self.eval_function(dot, n, name, n, &[], None)?;
                return self.validate(v, ty);
            }
            Node::Chain { .. } => {
                let v = self.eval_chain_node(dot, n, &[], None)?;
                return self.validate(v, ty);
            }
            _ => {}
        }
        let found = || tree.node_string(n);
        match ty {
            ArgTy::Ty(Ty::Bool) => match tree.node(n) {
                Node::Bool { val, .. } => Ok(Val::plain(Value::Bool(*val))),
                _ => Err(self.errorf(format!("expected bool; found {}", found()))),
            },
            ArgTy::Ty(Ty::Float64) => match tree.node(n) {
                Node::Number { num, .. } if num.is_float => Ok(Val::plain(Value::Float(num.float))),
                _ => Err(self.errorf(format!("expected float; found {}", found()))),
            },
            ArgTy::Ty(t @ (Ty::Int | Ty::Int64 | Ty::Duration)) => match tree.node(n) {
                Node::Number { num, .. } if num.is_int => Ok(Val::plain(if t == Ty::Int {
                    Value::int(num.int)
                } else {
                    Value::int64(num.int)
                })),
                _ => Err(self.errorf(format!("expected integer; found {}", found()))),
            },
            ArgTy::Ty(Ty::Uint32) => match tree.node(n) {
                Node::Number { num, .. } if num.is_uint => Ok(Val::plain(Value::Uint(
                    num.uint as u32 as u64,
                    super::value::UintType::Uint32,
                ))),
                _ => Err(self.errorf(format!("expected unsigned integer; found {}", found()))),
            },
            ArgTy::Ty(Ty::String) => match tree.node(n) {
                Node::String { text, .. } => Ok(Val::plain(Value::String(text.clone()))),
                _ => Err(self.errorf(format!("expected string; found {}", found()))),
            },
            ArgTy::Ty(Ty::Any) | ArgTy::Reflect => self.eval_empty_interface(n),
            _ => Err(self.errorf(format!(
                "can't handle {} for arg of type {}",
                found(),
                ty.name()
            ))),
        }
    }

    fn eval_empty_interface(&mut self, n: NodeId) -> EResult<Val> {
        self.at(n);
        let tree = self.tree;
        match tree.node(n) {
            Node::Bool { val, .. } => Ok(Val::plain(Value::Bool(*val))),
            Node::Number { .. } => self.ideal_constant(n),
            Node::String { text, .. } => Ok(Val::plain(Value::String(text.clone()))),
            _ => {
                let s = tree.node_string(n);
                Err(self.errorf(format!(
                    "can't handle assignment of {s} to empty interface argument"
                )))
            }
        }
    }

    /// Go's `validateType`: checks (and for nil, converts) a value for a parameter.
    fn validate(&self, value: Val, ty: ArgTy) -> EResult<Val> {
        let t = match ty {
            ArgTy::NoType | ArgTy::Reflect | ArgTy::Ty(Ty::Any) => return Ok(value),
            ArgTy::Ty(t) => t,
        };
        if value.is_missing() {
            if ty.can_be_nil() {
                return Ok(ty.zero());
            }
            return Err(self.errorf(format!("invalid value; expected {}", t.go_name())));
        }
        if value.iface && value.v.is_nil() {
            return Err(self.errorf(format!(
                "wrong type for value; expected {}; got interface {{}}",
                t.go_name()
            )));
        }
        if assignable(&value.v, t) {
            return Ok(Val::plain(value.v));
        }
        Err(self.errorf(format!(
            "wrong type for value; expected {}; got {}",
            t.go_name(),
            value.v.type_name()
        )))
    }
}

/// A function result: Go functions returning `interface {}` hand back a nil
/// interface for nil.
fn result_val(v: Value) -> Val {
    if v.is_nil() {
        Val::iface(v)
    } else {
        Val::plain(v)
    }
}

/// Writes a value the way `{{ x }}` prints it: `<no value>` for no value, else `%v`.
fn print_value(val: &Val, out: &mut String) {
    match &val.v {
        Value::Object(o) => {
            // Go's `printableValue`: a pointer is printed as what it points to, and
            // an addressable struct whose pointer has `String` is printed by it.
            if let Some(target) = o.pointee() {
                print_value(&Val::plain(target), out);
                return;
            }
            if let Some(s) = o.addr_string().filter(|_| val.addr) {
                out.push_str(&s);
                return;
            }
            let text = o.fmt_v(false);
            match text.strip_prefix('&') {
                Some(rest) if o.kind() == Kind::Ptr => out.push_str(rest),
                _ => out.push_str(&text),
            }
        }
        Value::Nil => out.push_str("<no value>"),
        Value::String(s) => out.push_str(s),
        Value::Int(i, _) => {
            let _ = write!(out, "{i}");
        }
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        v => out.push_str(&super::fmt::format_value(v)),
    }
}

impl<'s> Engine for State<'s> {
    fn include(&mut self, name: &str, data: &Value) -> Result<String, FuncError> {
        let set = self.set;
        let Some(def) = set.lookup(name) else {
            let e = set.no_template_error(name);
            return Err(FuncError::Nested {
                message: e.message.clone(),
                inner: Box::new(e),
            });
        };
        let dot = Val::plain(data.clone());
        let saved_vars =
            std::mem::replace(&mut self.vars, vec![(self.dollar.clone(), dot.clone())]);
        let saved_name = std::mem::replace(&mut self.tmpl_name, def.name.clone());
        let saved_tree = std::mem::replace(&mut self.tree, &def.tree);
        let saved_depth = std::mem::replace(&mut self.depth, 0);
        let saved_node = self.node.take();
        // The included text lands in its own buffer and is printed by the calling
        // action, which is what the trace attributes it to.
        let saved_trace = self.trace.take();
        // Sized by the define's own text (see `TemplateSet::output_guess`).
        let mut out = String::with_capacity(def.tree.span(def.root).len());
        let r = super::stack::maybe_grow(RED_ZONE, STACK_CHUNK, || {
            self.walk(&dot, def.root, &mut out)
        });
        self.trace = saved_trace;
        self.node = saved_node;
        self.depth = saved_depth;
        self.tree = saved_tree;
        self.tmpl_name = saved_name;
        self.vars = saved_vars;
        match r {
            Ok(()) => Ok(out),
            Err(Flow::Err(e)) => Err(FuncError::Nested {
                message: e.message.clone(),
                inner: e,
            }),
            Err(_) => Ok(out),
        }
    }

    fn tpl(&mut self, text: &Arc<str>, data: &Value) -> Result<String, FuncError> {
        let parsed = match self.set.parse_tpl(text) {
            Ok(p) => p,
            Err(e) => {
                return Err(FuncError::Nested {
                    message: e.message.clone(),
                    inner: Box::new(e),
                })
            }
        };
        // The set outlives this state, so its name is borrowed, not copied.
        let set: &'s TemplateSet = self.set;
        let root = set.name();
        let mut clone = set.clone();
        // An empty body executes as nothing, even though the set keeps the older,
        // non-empty template of that name.
        if clone.add_parsed(root, &parsed) {
            return Ok(String::new());
        }
        // The text is most of what it prints (see `TemplateSet::output_guess`).
        let mut out = String::with_capacity(text.len());
        let r = {
            let mut st = State::new(&clone, self.host, &mut *self.shared);
            super::stack::maybe_grow(RED_ZONE, STACK_CHUNK, || st.run(root, data, &mut out))
        };
        match r {
            Ok(()) => Ok(out),
            Err(e) => Err(FuncError::Nested {
                message: e.message.clone(),
                inner: e,
            }),
        }
    }

    fn current_template(&self) -> String {
        self.tmpl_name.to_string()
    }

    fn counters(&mut self) -> Option<&mut crate::source::FastMap<String, usize>> {
        Some(&mut self.shared.counters)
    }
}
