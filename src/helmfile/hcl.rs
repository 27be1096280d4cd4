//! HCL environment values files (`environments.<env>.values` entries ending in
//! `.hcl`), evaluated the way helmfile 0.166's `hcllang.HCLLoader` does.
//!
//! Helmfile does not load an `.hcl` file where it stands in the values list: it sets
//! all the HCL files of one load aside, evaluates them together once the YAML files
//! are merged, and merges their result last (so HCL wins over YAML whatever the list
//! order). `values { }` blocks of every file share one namespace, read as `hv.<name>`;
//! `locals { }` (one block per file at most) are private to their file and read as
//! `local.<name>`. Attributes are evaluated in dependency order (a DAG of the
//! `hv.x` / `local.x` references), and the result goes through cty's JSON encoding and
//! Go's `encoding/json`, so every number arrives as a `float64`.
//!
//! Parsing (with spans, for helmfile's `file:line,col-col` ranges) and expression
//! evaluation come from the `hcl-rs` crate; the function set helmfile registers (the
//! go-cty stdlib) is ours, in [`funcs`]. `try` and `can` need their arguments
//! unevaluated, which `hcl-rs` functions never see, so they are evaluated here before
//! the rest of the expression (see [`Evaluator::resolve_try`]), as are `for`
//! expressions that call them, and string templates are written back with their
//! results; inside a `%{for}` template body they are refused with a message saying so.

mod funcs;

use std::collections::{BTreeMap, BTreeSet};

use hcl::edit::structure::{Attribute, Body, Structure};
use hcl::edit::Span;
use hcl::eval::{Context, Evaluate};
use hcl::expr::{Expression, ObjectKey, TraversalOperator};
use hcl::template::{Directive, Element, Template};

use super::error::{ErrorKind, HelmfileError, Result};
use crate::template::{List, Map, Value};

/// One attribute of a `values` or `locals` block.
struct Attr {
    name: String,
    expr: Expression,
    /// Index into the loader's files.
    file: usize,
    /// Byte span of the whole attribute (name to end of expression) and of its value.
    span: std::ops::Range<usize>,
    value_span: std::ops::Range<usize>,
}

/// A file as read: its path as helmfile names it in messages, and its text.
pub struct HclFile {
    pub path: String,
    pub text: String,
}

fn err(msg: impl Into<String>) -> HelmfileError {
    HelmfileError::new(ErrorKind::Other, msg)
}

/// hcl's `Range.String()`: `file:line,col-col` (or `-line,col` across lines),
/// 1-based, end exclusive; columns count characters.
fn range_str(f: &HclFile, span: &std::ops::Range<usize>) -> String {
    let (l1, c1) = pos(&f.text, span.start);
    let (l2, c2) = pos(&f.text, span.end);
    if l1 == l2 {
        format!("{}:{l1},{c1}-{c2}", f.path)
    } else {
        format!("{}:{l1},{c1}-{l2},{c2}", f.path)
    }
}

fn pos(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

/// A located diagnostic in hcl's `Diagnostic.Error()` form: `range: summary; detail`.
fn diag(f: &HclFile, span: &std::ops::Range<usize>, summary: &str, detail: &str) -> HelmfileError {
    let (line, _) = pos(&f.text, span.start);
    err(format!("{}: {summary}; {detail}", range_str(f, span))).at(&f.path, line)
}

fn span_of(s: &impl Span) -> std::ops::Range<usize> {
    s.span().unwrap_or(0..0)
}

fn attr_span(a: &Attribute) -> std::ops::Range<usize> {
    span_of(&a.key).start..span_of(&a.value).end
}

/// hclsyntax strips a `<<-` heredoc's indent from every line-leading literal, also
/// those inside `%{if}` / `%{for}` bodies; hcl-edit strips it only at the top level
/// of the heredoc, so the nested ones are stripped here, by the same amount.
fn flush_heredocs(mut e: hcl::edit::expr::Expression) -> hcl::edit::expr::Expression {
    use hcl::edit::template::{Directive as D, Element as El, HeredocTemplate, Template as T};
    use hcl::edit::visit_mut::{visit_heredoc_template_mut, VisitMut};

    /// The bodies of an `%{if}` (both branches) or `%{for}`.
    fn dedent_directive(d: &mut D, n: usize) {
        match d {
            D::If(d) => {
                dedent_nested(&mut d.if_expr.template, n);
                if let Some(e) = &mut d.else_expr {
                    dedent_nested(&mut e.template, n);
                }
            }
            D::For(d) => dedent_nested(&mut d.for_expr.template, n),
        }
    }

    fn dedent_nested(t: &mut T, n: usize) {
        let mut at_line_start = false;
        for el in t.iter_mut() {
            match el {
                El::Literal(l) => {
                    let mut out = String::new();
                    for (i, line) in l.split_inclusive('\n').enumerate() {
                        if i > 0 || at_line_start {
                            let ws = line.chars().take_while(|c| *c == ' ' || *c == '\t').count();
                            out.extend(line.chars().skip(ws.min(n)));
                        } else {
                            out.push_str(line);
                        }
                    }
                    at_line_start = out.ends_with('\n');
                    **l = out;
                }
                El::Interpolation(_) => at_line_start = false,
                El::Directive(d) => {
                    dedent_directive(d, n);
                    at_line_start = false;
                }
            }
        }
    }

    struct V;
    impl VisitMut for V {
        fn visit_heredoc_template_mut(&mut self, node: &mut HeredocTemplate) {
            if let Some(n) = node.indent() {
                for el in node.template.iter_mut() {
                    if let El::Directive(d) = el {
                        dedent_directive(d, n);
                    }
                }
            }
            visit_heredoc_template_mut(self, node);
        }
    }
    V.visit_expr_mut(&mut e);
    e
}

/// The attributes of every file's blocks: `values` together, `locals` per file.
struct Parsed {
    values: BTreeMap<String, Attr>,
    locals: Vec<BTreeMap<String, Attr>>,
}

fn parse_files(files: &[HclFile]) -> Result<Parsed> {
    let mut values: BTreeMap<String, Attr> = BTreeMap::new();
    let mut locals = Vec::new();
    for (i, f) in files.iter().enumerate() {
        let body = hcl::edit::parser::parse_body(&f.text).map_err(|e| {
            // hcl-rs's parser words its errors differently from hclsyntax (which
            // reports e.g. "Invalid expression; Expected the start of an expression");
            // the location is the same kind, the wording is the crate's.
            let loc = e.location();
            if let Some(d) = redefined(f, loc.line(), loc.column()) {
                return d;
            }
            err(format!(
                "{}:{},{}: syntax error: {}",
                f.path,
                loc.line(),
                loc.column(),
                e.message()
            ))
            .at(&f.path, loc.line())
        })?;
        check_redefined(f, &body)?;
        check_schema(f, &body)?;
        let mut file_locals: Option<BTreeMap<String, Attr>> = None;
        for s in body.iter() {
            // `check_schema` let only unlabelled `values` and `locals` blocks through.
            let Structure::Block(block) = s else { continue };
            let kind = block.ident.as_str();
            let mut attrs = BTreeMap::new();
            for s in block.body.iter() {
                match s {
                    Structure::Block(b) => {
                        return Err(diag(
                            f,
                            &span_of(&b.ident),
                            &format!("Unexpected {:?} block", b.ident.as_str()),
                            "Blocks are not allowed here.",
                        ))
                    }
                    Structure::Attribute(a) => {
                        attrs.insert(
                            a.key.as_str().to_string(),
                            Attr {
                                name: a.key.as_str().to_string(),
                                expr: flush_heredocs(a.value.clone()).into(),
                                file: i,
                                span: attr_span(a),
                                value_span: span_of(&a.value),
                            },
                        );
                    }
                }
            }
            if kind == "locals" {
                file_locals = Some(attrs);
                continue;
            }
            for (k, a) in attrs {
                if let Some(prev) = values.get(&k) {
                    let pf = &files[prev.file];
                    let (pl, _) = pos(&pf.text, prev.span.start);
                    return Err(diag(
                        f,
                        &a.span,
                        "Duplicate helmfile_vars definition",
                        &format!(
                            "The helmfile_var {k:?} was already defined at {}:{pl}",
                            pf.path
                        ),
                    ));
                }
                values.insert(k, a);
            }
        }
        locals.push(file_locals.unwrap_or_default());
    }
    Ok(Parsed { values, locals })
}

/// The file-level checks helmfile makes before reading any block: the schema (only
/// `values` and `locals` blocks, unlabelled), then at most one `locals` block, which
/// hcl reports at the file's first block.
fn check_schema(f: &HclFile, body: &Body) -> Result<()> {
    let mut first = None;
    let mut locals = 0;
    for s in body.iter() {
        let block = match s {
            Structure::Attribute(a) => {
                return Err(diag(
                    f,
                    &span_of(&a.key),
                    "Unsupported argument",
                    &format!(
                        "An argument named {:?} is not expected here.",
                        a.key.as_str()
                    ),
                ))
            }
            Structure::Block(b) => b,
        };
        let kind = block.ident.as_str();
        if kind != "values" && kind != "locals" {
            return Err(diag(
                f,
                &span_of(&block.ident),
                "Unsupported block type",
                &format!("Blocks of type {kind:?} are not expected here."),
            ));
        }
        if let Some(l) = block.labels.first() {
            return Err(diag(
                f,
                &span_of(l),
                &format!("Extraneous label for {kind}"),
                &format!("No labels are expected for {kind} blocks."),
            ));
        }
        first.get_or_insert_with(|| span_of(&block.ident));
        locals += usize::from(kind == "locals");
    }
    if locals > 1 {
        let span = first.unwrap_or(0..0);
        let (line, _) = pos(&f.text, span.start);
        return Err(err(format!(
            "{}: A file can only support exactly 1 `locals` block; ",
            range_str(f, &span)
        ))
        .at(&f.path, line));
    }
    Ok(())
}

/// hcl-edit refuses an attribute set twice while parsing, at the second one; this
/// words it as hclsyntax does, finding the first one on an earlier line.
fn redefined(f: &HclFile, line: usize, col: usize) -> Option<HelmfileError> {
    let lines: Vec<&str> = f.text.split('\n').collect();
    let here = lines.get(line.checked_sub(1)?)?;
    let rest: String = here.chars().skip(col.checked_sub(1)?).collect();
    let name: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '-')
        .collect();
    if name.is_empty() {
        return None;
    }
    let is_def = |l: &str| {
        let t = l.trim_start();
        t.strip_prefix(name.as_str())
            .is_some_and(|r| r.trim_start().starts_with('=') && !r.trim_start().starts_with("=="))
    };
    let prev = (0..line - 1).rev().find(|i| is_def(lines[*i]))?;
    let offset_of = |l: usize, c: usize| -> usize {
        lines[..l].iter().map(|x| x.len() + 1).sum::<usize>()
            + lines[l].char_indices().nth(c).map_or(0, |(b, _)| b)
    };
    let prev_col = lines[prev]
        .chars()
        .take_while(|c| c.is_whitespace())
        .count();
    let p0 = offset_of(prev, prev_col);
    let h0 = offset_of(line - 1, col - 1);
    Some(diag(
        f,
        &(h0..h0 + name.len()),
        "Attribute redefined",
        &format!(
            "The argument {name:?} was already set at {}. Each argument may be set only once.",
            range_str(f, &(p0..p0 + name.len()))
        ),
    ))
}

/// hclsyntax refuses an attribute set twice in one body while parsing.
fn check_redefined(f: &HclFile, body: &Body) -> Result<()> {
    let mut seen: BTreeMap<&str, std::ops::Range<usize>> = BTreeMap::new();
    for s in body.iter() {
        match s {
            Structure::Attribute(a) => {
                let key = span_of(&a.key);
                if let Some(prev) = seen.get(a.key.as_str()) {
                    return Err(diag(
                        f,
                        &key,
                        "Attribute redefined",
                        &format!(
                            "The argument {:?} was already set at {}. Each argument may be set only once.",
                            a.key.as_str(),
                            range_str(f, prev)
                        ),
                    ));
                }
                seen.insert(a.key.as_str(), key);
            }
            Structure::Block(b) => check_redefined(f, &b.body)?,
        }
    }
    Ok(())
}

/// The references of an expression, as hcl's `Variables()` lists them: traversals
/// rooted at a variable that no enclosing `for` binds.
fn variables(expr: &Expression, scope: &mut Vec<String>, out: &mut Vec<Vec<Option<String>>>) {
    macro_rules! walk {
        ($e:expr, $s:expr) => {
            variables($e, $s, out)
        };
    }
    match expr {
        Expression::Variable(v) if !scope.iter().any(|s| s == v.as_str()) => {
            out.push(vec![Some(v.to_string())]);
        }
        Expression::Traversal(t) => {
            if let Expression::Variable(v) = &t.expr {
                if !scope.iter().any(|s| s == v.as_str()) {
                    let mut path = vec![Some(v.to_string())];
                    path.extend(t.operators.iter().map(|op| match op {
                        TraversalOperator::GetAttr(id) => Some(id.to_string()),
                        _ => None,
                    }));
                    out.push(path);
                }
            } else {
                walk!(&t.expr, scope);
            }
            for op in &t.operators {
                if let TraversalOperator::Index(e) = op {
                    walk!(e, scope);
                }
            }
        }
        Expression::Array(items) => items.iter().for_each(|e| variables(e, scope, out)),
        Expression::Object(obj) => {
            for (k, v) in obj {
                if let ObjectKey::Expression(k) = k {
                    walk!(k, scope);
                }
                walk!(v, scope);
            }
        }
        Expression::TemplateExpr(t) => {
            if let Ok(tpl) = Template::from_expr(t) {
                template_variables(&tpl, scope, out);
            }
        }
        Expression::FuncCall(c) => c.args.iter().for_each(|e| variables(e, scope, out)),
        Expression::Parenthesis(e) => walk!(e, scope),
        Expression::Conditional(c) => {
            walk!(&c.cond_expr, scope);
            walk!(&c.true_expr, scope);
            walk!(&c.false_expr, scope);
        }
        Expression::Operation(op) => match op.as_ref() {
            hcl::expr::Operation::Unary(u) => walk!(&u.expr, scope),
            hcl::expr::Operation::Binary(b) => {
                walk!(&b.lhs_expr, scope);
                walk!(&b.rhs_expr, scope);
            }
        },
        Expression::ForExpr(fe) => {
            walk!(&fe.collection_expr, scope);
            let n = scope.len();
            scope.extend(fe.key_var.iter().map(|k| k.to_string()));
            scope.push(fe.value_var.to_string());
            if let Some(k) = &fe.key_expr {
                walk!(k, scope);
            }
            walk!(&fe.value_expr, scope);
            if let Some(c) = &fe.cond_expr {
                walk!(c, scope);
            }
            scope.truncate(n);
        }
        _ => {}
    }
}

fn template_variables(t: &Template, scope: &mut Vec<String>, out: &mut Vec<Vec<Option<String>>>) {
    for el in t.elements() {
        match el {
            Element::Literal(_) => {}
            Element::Interpolation(i) => variables(&i.expr, scope, out),
            Element::Directive(d) => match d.as_ref() {
                Directive::If(d) => {
                    variables(&d.cond_expr, scope, out);
                    template_variables(&d.true_template, scope, out);
                    if let Some(f) = &d.false_template {
                        template_variables(f, scope, out);
                    }
                }
                Directive::For(d) => {
                    variables(&d.collection_expr, scope, out);
                    let n = scope.len();
                    scope.extend(d.key_var.iter().map(|k| k.to_string()));
                    scope.push(d.value_var.to_string());
                    template_variables(&d.template, scope, out);
                    scope.truncate(n);
                }
            },
        }
    }
}

/// `createDAGGraph` + `dag.Plan`: the evaluation order, level by level with names
/// sorted in each level, or helmfile's error for an undefined reference or a cycle.
fn plan(files: &[HclFile], attrs: &BTreeMap<String, Attr>, locals: bool) -> Result<Vec<String>> {
    let mut deps: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    for (name, a) in attrs {
        let mut refs = Vec::new();
        variables(&a.expr, &mut Vec::new(), &mut refs);
        let mut mine = BTreeSet::new();
        for r in refs {
            let root = r[0].clone().unwrap_or_default();
            // In `values`, locals are evaluated beforehand and need no ordering.
            if root == "local" && !locals {
                continue;
            }
            match r.get(1) {
                Some(Some(attr)) => {
                    mine.insert(attr.clone());
                }
                Some(None) => {
                    return Err(diag(
                        &files[a.file],
                        &a.value_span,
                        "Invalid reference",
                        &format!("The {root:?} object does not support this operation."),
                    ))
                }
                None => {
                    return Err(diag(
                        &files[a.file],
                        &a.value_span,
                        "Invalid reference",
                        &format!(
                            "The {root:?} object cannot be accessed directly. Instead, access it from one of its root."
                        ),
                    ))
                }
            }
        }
        deps.insert(name, mine);
    }
    let mut undefined: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (name, ds) in &deps {
        for d in ds {
            if !attrs.contains_key(d) {
                undefined.entry(d).or_default().push(name);
            }
        }
    }
    if let Some((node, dependents)) = undefined.into_iter().next() {
        let quoted: Vec<String> = dependents.iter().map(|d| format!("{d:?}")).collect();
        let e = err(format!(
            "variables {} depend(s) on undefined vars {node:?}",
            quoted.join(", ")
        ));
        return Err(locate(
            files,
            dependents.first().and_then(|d| attrs.get(*d)),
            e,
        ));
    }
    let mut done: BTreeSet<&str> = BTreeSet::new();
    let mut order = Vec::new();
    while done.len() < deps.len() {
        let level: Vec<&str> = deps
            .iter()
            .filter(|(n, ds)| !done.contains(*n) && ds.iter().all(|d| done.contains(d.as_str())))
            .map(|(n, _)| *n)
            .collect();
        if level.is_empty() {
            let path = cycle(&deps, &done);
            let first = path.split(" -> ").next().and_then(|n| attrs.get(n));
            let e = err(format!(
                "error while building the DAG variable graph : cycle detected: {path}"
            ));
            return Err(locate(files, first, e));
        }
        done.extend(level.iter().copied());
        order.extend(level.into_iter().map(String::from));
    }
    Ok(order)
}

/// Helmfile's DAG errors name no file; ours point at the attribute involved.
fn locate(files: &[HclFile], a: Option<&Attr>, e: HelmfileError) -> HelmfileError {
    match a {
        Some(a) => {
            let f = &files[a.file];
            e.at(&f.path, pos(&f.text, a.span.start).0)
        }
        None => e,
    }
}

/// The cycle path variantdev/dag reports: from the first (by name) unresolved node,
/// following dependents (edges point from a dependency to what depends on it).
fn cycle(deps: &BTreeMap<&str, BTreeSet<String>>, done: &BTreeSet<&str>) -> String {
    let dependents = |n: &str| -> Vec<&str> {
        deps.iter()
            .filter(|(m, ds)| !done.contains(*m) && ds.contains(n))
            .map(|(m, _)| *m)
            .collect()
    };
    let Some(mut cur) = deps
        .keys()
        .copied()
        .find(|n| !done.contains(n) && !dependents(n).is_empty())
    else {
        return String::new();
    };
    let mut path = vec![cur];
    let mut seen = BTreeSet::new();
    while seen.insert(cur) {
        match dependents(cur).first() {
            Some(next) => cur = next,
            None => break,
        }
        path.push(cur);
    }
    path.join(" -> ")
}

/// Evaluates attributes against one context.
struct Evaluator<'f> {
    files: &'f [HclFile],
}

impl Evaluator<'_> {
    fn eval(&self, a: &Attr, ctx: &Context) -> Result<hcl::Value> {
        let f = &self.files[a.file];
        let wrap = |e: HelmfileError| {
            e.wrap(format!(
                "error when trying to evaluate variable {} ",
                a.name
            ))
            .at(&f.path, pos(&f.text, a.span.start).0)
        };
        let expr = self.resolve_try(a, &a.expr, ctx, false).map_err(wrap)?;
        let v = expr
            .evaluate(ctx)
            .map_err(|e| wrap(self.eval_error(a, &e, ctx)))?;
        Ok(sort_objects(v))
    }

    /// An evaluation error in hcl's words where we know them (unknown function),
    /// else in hcl-rs's words at the attribute's value.
    fn eval_error(&self, a: &Attr, e: &hcl::eval::Error, ctx: &Context) -> HelmfileError {
        let f = &self.files[a.file];
        if let hcl::eval::ErrorKind::UndefinedFunc(name) = e.kind() {
            let name = name.to_string();
            let span = self.call_span(a, &name, false);
            return diag(
                f,
                &span,
                "Call to unknown function",
                &format!("There is no function named {name:?}."),
            );
        }
        use hcl::eval::ErrorKind as K;
        // hclsyntax's words for the common failures, at the part of the value they
        // are about when the source shows it; the rest keeps hcl-rs's wording.
        let (pattern, summary, detail) = match e.kind() {
            K::NoSuchKey(key) => (
                format!(r"\.\s*{}\b", regex::escape(key)),
                "Unsupported attribute".to_string(),
                format!("This object does not have an attribute named {key:?}."),
            ),
            K::Index(i) => (
                format!(r"\[\s*{i}\s*\]"),
                "Invalid index".to_string(),
                format!(
                    "The given key does not identify an element in this collection value{}.",
                    if self.indexed_len(a, *i, ctx) == Some(*i) {
                        // hcl adds this only when the index is the length exactly.
                        ": the given index is greater than or equal to the length of the collection"
                    } else {
                        ""
                    }
                ),
            ),
            K::UndefinedVar(v) if v.as_str() == "local" => (
                r"\blocal\s*(\.\s*[\w-]+)".to_string(),
                "Attempt to get attribute from null value".to_string(),
                "This value is null, so it does not have any attributes.".to_string(),
            ),
            K::UndefinedVar(v) => (
                format!(r"\b({})\b", regex::escape(v.as_str())),
                "Unknown variable".to_string(),
                format!("There is no variable named {:?}.", v.as_str()),
            ),
            K::Unexpected(_, "an object") => (
                match e.expr() {
                    Some(Expression::Traversal(tr)) => tr
                        .operators
                        .iter()
                        .rev()
                        .find_map(|op| match op {
                            TraversalOperator::GetAttr(id) => {
                                Some(format!(r"\.\s*{}\b", regex::escape(id.as_str())))
                            }
                            _ => None,
                        })
                        .unwrap_or_default(),
                    _ => String::new(),
                },
                "Unsupported attribute".to_string(),
                "This value does not have any attributes.".to_string(),
            ),
            K::Unexpected(_, "a boolean") => (
                String::new(),
                "Incorrect condition type".to_string(),
                "The condition expression must be of type bool.".to_string(),
            ),
            other => {
                return err(format!("{}: {other}", range_str(f, &a.value_span)));
            }
        };
        let span = self.find_span(a, &pattern).unwrap_or(a.value_span.clone());
        diag(f, &span, &summary, &detail)
    }

    /// The length of the collection indexed by `[i]` in the attribute's value, when
    /// it is a plain traversal (`hv.list[i]`) that can be evaluated again.
    fn indexed_len(&self, a: &Attr, i: usize, ctx: &Context) -> Option<usize> {
        let f = &self.files[a.file];
        let src = f.text.get(a.value_span.clone())?;
        let re = regex::Regex::new(&format!(r"([\w][\w.-]*)\s*\[\s*{i}\s*\]")).ok()?;
        let prefix = re.captures(src)?.get(1)?.as_str();
        let expr: Expression = prefix.parse().ok()?;
        match expr.evaluate(ctx).ok()? {
            hcl::Value::Array(l) => Some(l.len()),
            _ => None,
        }
    }

    /// The first match of `pattern` in the attribute's value (its group 1 when it
    /// has one), as a span of the file.
    fn find_span(&self, a: &Attr, pattern: &str) -> Option<std::ops::Range<usize>> {
        if pattern.is_empty() {
            return None;
        }
        let f = &self.files[a.file];
        let src = f.text.get(a.value_span.clone())?;
        let caps = regex::Regex::new(pattern).ok()?.captures(src)?;
        let m = caps.get(1).or_else(|| caps.get(0))?;
        Some(a.value_span.start + m.start()..a.value_span.start + m.end())
    }

    /// Where `name(` is called in the attribute's value (the name, or the name and
    /// the parenthesis as hcl's function call errors show it).
    fn call_span(&self, a: &Attr, name: &str, with_paren: bool) -> std::ops::Range<usize> {
        let f = &self.files[a.file];
        let src = f.text.get(a.value_span.clone()).unwrap_or("");
        let re = regex::Regex::new(&format!(r"(^|[^\w.-]){}(\s*)\(", regex::escape(name)));
        if let Some(c) = re.ok().and_then(|re| re.captures(src)) {
            if let (Some(m0), Some(m1), Some(m2)) = (c.get(0), c.get(1), c.get(2)) {
                let start = a.value_span.start + m0.start() + m1.len();
                let end = if with_paren {
                    a.value_span.start + m2.end() + 1
                } else {
                    start + name.len()
                };
                return start..end;
            }
        }
        a.value_span.clone()
    }

    /// A `for` expression whose body calls `try`/`can`, evaluated here so that those
    /// see the loop variables: cty's iteration (lists by index, objects by key),
    /// `if` filtering, `=>` keys (unique unless grouped with `...`).
    fn eval_for(&self, a: &Attr, fe: &hcl::expr::ForExpr, ctx: &Context) -> Result<Expression> {
        let f = &self.files[a.file];
        let ev = |e: &Expression, c: &Context| -> Result<hcl::Value> {
            self.resolve_try(a, e, c, false)?
                .evaluate(c)
                .map_err(|e| self.eval_error(a, &e, c))
        };
        let items: Vec<(hcl::Value, hcl::Value)> = match ev(&fe.collection_expr, ctx)? {
            hcl::Value::Array(l) => l
                .into_iter()
                .enumerate()
                .map(|(i, v)| (hcl::Value::from(i as u64), v))
                .collect(),
            hcl::Value::Object(m) => {
                let mut entries: Vec<_> = m.into_iter().collect();
                entries.sort_by(|x, y| x.0.cmp(&y.0));
                entries
                    .into_iter()
                    .map(|(k, v)| (hcl::Value::from(k), v))
                    .collect()
            }
            _ => {
                return Err(diag(
                    f,
                    &a.value_span,
                    "Iteration over non-iterable value",
                    "A value of type list, set, tuple, map or object is required.",
                ))
            }
        };
        let mut list = Vec::new();
        let mut object: Vec<(String, Vec<hcl::Value>)> = Vec::new();
        for (k, v) in items {
            let mut c = ctx.clone();
            if let Some(kv) = &fe.key_var {
                c.declare_var(kv.clone(), k);
            }
            c.declare_var(fe.value_var.clone(), v);
            if let Some(cond) = &fe.cond_expr {
                match ev(cond, &c)? {
                    hcl::Value::Bool(true) => {}
                    hcl::Value::Bool(false) => continue,
                    _ => {
                        return Err(diag(
                            f,
                            &a.value_span,
                            "Invalid 'for' condition",
                            "The 'if' clause value is invalid: bool required.",
                        ))
                    }
                }
            }
            let value = ev(&fe.value_expr, &c)?;
            let Some(key_expr) = &fe.key_expr else {
                list.push(value);
                continue;
            };
            let key = match ev(key_expr, &c)? {
                hcl::Value::String(s) => s,
                hcl::Value::Number(n) => n.to_string(),
                hcl::Value::Bool(b) => b.to_string(),
                _ => {
                    return Err(diag(
                        f,
                        &a.value_span,
                        "Invalid object key",
                        "The object key value is invalid: string required.",
                    ))
                }
            };
            match object.iter_mut().find(|(k, _)| *k == key) {
                Some((_, vals)) if fe.grouping => vals.push(value),
                Some(_) => {
                    return Err(diag(
                        f,
                        &a.value_span,
                        "Duplicate object key",
                        &format!("Two different items produced the key {key:?} in this 'for' expression. If duplicates are expected, use the ellipsis (...) after the value expression to enable grouping by key."),
                    ))
                }
                None => object.push((key, vec![value])),
            }
        }
        let v = if fe.key_expr.is_none() {
            hcl::Value::Array(list)
        } else {
            hcl::Value::Object(
                object
                    .into_iter()
                    .map(|(k, mut vals)| {
                        let v = if fe.grouping {
                            hcl::Value::Array(vals)
                        } else {
                            vals.pop().unwrap_or(hcl::Value::Null)
                        };
                        (k, v)
                    })
                    .collect(),
            )
        };
        Ok(v.into())
    }

    /// A string template whose interpolations call `try`/`can`: those are decided
    /// here and the template written back with their results. In a `%{for}` body
    /// the loop variables are not known here, so there they are refused.
    fn template_try(
        &self,
        a: &Attr,
        te: &hcl::expr::TemplateExpr,
        ctx: &Context,
    ) -> Result<Expression> {
        let f = &self.files[a.file];
        let refuse = |name: &str| {
            diag(
                f,
                &self.call_span(a, name, true),
                "Unsupported expression",
                "stackproof does not evaluate try() or can() inside a %{for} template body yet.",
            )
        };
        let mut tpl = Template::from_expr(te)
            .map_err(|e| err(format!("{}: {e}", range_str(f, &a.value_span))))?;
        self.template_elements_try(a, &mut tpl, ctx, &refuse)?;
        let text = tpl.to_string();
        Ok(Expression::TemplateExpr(Box::new(match te {
            hcl::expr::TemplateExpr::QuotedString(_) => hcl::expr::TemplateExpr::QuotedString(text),
            hcl::expr::TemplateExpr::Heredoc(h) => {
                let mut h = h.clone();
                h.template = text;
                hcl::expr::TemplateExpr::Heredoc(h)
            }
        })))
    }

    fn template_elements_try(
        &self,
        a: &Attr,
        tpl: &mut Template,
        ctx: &Context,
        refuse: &dyn Fn(&str) -> HelmfileError,
    ) -> Result<()> {
        for el in tpl.elements_mut() {
            match el {
                Element::Literal(_) => {}
                Element::Interpolation(i) => i.expr = self.resolve_try(a, &i.expr, ctx, false)?,
                Element::Directive(d) => match d.as_mut() {
                    Directive::If(d) => {
                        d.cond_expr = self.resolve_try(a, &d.cond_expr, ctx, false)?;
                        self.template_elements_try(a, &mut d.true_template, ctx, refuse)?;
                        if let Some(f) = &mut d.false_template {
                            self.template_elements_try(a, f, ctx, refuse)?;
                        }
                    }
                    Directive::For(d) => {
                        d.collection_expr = self.resolve_try(a, &d.collection_expr, ctx, false)?;
                        let body = d.template.to_string();
                        if calls_try(&body) {
                            let name = if calls_try_named(&body, "try") {
                                "try"
                            } else {
                                "can"
                            };
                            return Err(refuse(name));
                        }
                    }
                },
            }
        }
        Ok(())
    }

    /// Replaces each `try(...)` / `can(...)` by its result: hcl-rs evaluates function
    /// arguments eagerly, so these two are decided here, with the variables the
    /// attribute sees. Inside a `for` expression the loop variables are not known
    /// yet, so there they are refused (clearly) rather than guessed.
    fn resolve_try(
        &self,
        a: &Attr,
        e: &Expression,
        ctx: &Context,
        in_for: bool,
    ) -> Result<Expression> {
        let r = |x: &Expression| self.resolve_try(a, x, ctx, in_for);
        Ok(match e {
            Expression::FuncCall(c)
                if c.name.namespace.is_empty()
                    && (c.name.name.as_str() == "try" || c.name.name.as_str() == "can") =>
            {
                let fname = c.name.name.as_str();
                let f = &self.files[a.file];
                if in_for {
                    return Err(diag(f, &self.call_span(a, fname, true), "Unsupported expression", &format!("stackproof does not evaluate {fname}() inside a for expression or a string template yet.")));
                }
                if fname == "can" && c.args.len() != 1 {
                    return Err(diag(
                        f,
                        &self.call_span(a, fname, true),
                        "Incorrect number of function arguments",
                        "Function \"can\" expects 1 argument(s). Missing value for \"expression\".",
                    ));
                }
                let mut failures = Vec::new();
                for arg in &c.args {
                    match r(arg).and_then(|x| {
                        x.evaluate(ctx).map_err(|e| {
                            // hcl lists each failure as "Summary (at range)\n  Detail".
                            let d = self.eval_error(a, &e, ctx).message;
                            let (range, rest) = d.split_once(": ").unwrap_or(("", &d));
                            match rest.split_once("; ") {
                                Some((summary, detail)) => {
                                    err(format!("{summary} (at {range})\n  {detail}"))
                                }
                                None => err(rest.to_string()),
                            }
                        })
                    }) {
                        Ok(v) if fname == "try" => return Ok(v.into()),
                        Ok(_) => return Ok(Expression::Bool(true)),
                        Err(e) => failures.push(e.message),
                    }
                }
                if fname == "can" {
                    return Ok(Expression::Bool(false));
                }
                if c.args.is_empty() {
                    return Err(diag(
                        f,
                        &self.call_span(a, fname, true),
                        "Error in function call",
                        "Call to function \"try\" failed: at least one argument is required.",
                    ));
                }
                let list: Vec<String> = failures.iter().map(|m| format!("- {m}")).collect();
                return Err(diag(f, &self.call_span(a, fname, true), "Error in function call", &format!("Call to function \"try\" failed: no expression succeeded:\n{}\n\nAt least one expression must produce a successful result.", list.join("\n"))));
            }
            Expression::FuncCall(c) => {
                let mut c2 = c.as_ref().clone();
                c2.args = c.args.iter().map(r).collect::<Result<_>>()?;
                Expression::FuncCall(Box::new(c2))
            }
            Expression::Array(items) => {
                Expression::Array(items.iter().map(r).collect::<Result<_>>()?)
            }
            Expression::Object(obj) => {
                // cty iterates an object's attributes by name (`for` over an object
                // literal, `keys`); hcl-rs keeps the written order.
                let mut entries: Vec<_> = obj.iter().collect();
                if entries.iter().all(|(k, _)| literal_key(k).is_some()) {
                    entries.sort_by_key(|x| literal_key(x.0));
                }
                let mut out = hcl::expr::Object::new();
                for (k, v) in entries {
                    let k = match k {
                        ObjectKey::Expression(k) => ObjectKey::Expression(r(k)?),
                        other => other.clone(),
                    };
                    out.insert(k, r(v)?);
                }
                Expression::Object(out)
            }
            Expression::Parenthesis(x) => Expression::Parenthesis(Box::new(r(x)?)),
            Expression::Conditional(c) => {
                let mut c2 = c.as_ref().clone();
                c2.cond_expr = r(&c.cond_expr)?;
                c2.true_expr = r(&c.true_expr)?;
                c2.false_expr = r(&c.false_expr)?;
                Expression::Conditional(Box::new(c2))
            }
            Expression::Operation(op) => Expression::Operation(Box::new(match op.as_ref() {
                hcl::expr::Operation::Unary(u) => {
                    let mut u2 = u.clone();
                    u2.expr = r(&u.expr)?;
                    hcl::expr::Operation::Unary(u2)
                }
                hcl::expr::Operation::Binary(b) => {
                    let mut b2 = b.clone();
                    b2.lhs_expr = r(&b.lhs_expr)?;
                    b2.rhs_expr = r(&b.rhs_expr)?;
                    hcl::expr::Operation::Binary(b2)
                }
            })),
            // hcl-rs evaluates a template's calls with their arguments first, so a
            // `try` there would fail on the very error it should catch.
            Expression::TemplateExpr(te) if calls_try(&te.to_string()) => {
                self.template_try(a, te, ctx)?
            }
            Expression::ForExpr(fe) if !in_for && has_try(fe) => self.eval_for(a, fe, ctx)?,
            Expression::ForExpr(fe) => {
                let mut f2 = fe.as_ref().clone();
                f2.collection_expr = r(&fe.collection_expr)?;
                let inner = |x: &Expression| self.resolve_try(a, x, ctx, true);
                f2.value_expr = inner(&fe.value_expr)?;
                f2.key_expr = fe.key_expr.as_ref().map(inner).transpose()?;
                f2.cond_expr = fe.cond_expr.as_ref().map(inner).transpose()?;
                Expression::ForExpr(Box::new(f2))
            }
            Expression::Traversal(t) => {
                let mut t2 = t.as_ref().clone();
                t2.expr = r(&t.expr)?;
                for op in &mut t2.operators {
                    if let TraversalOperator::Index(ix) = op {
                        *ix = r(ix)?;
                    }
                }
                Expression::Traversal(Box::new(t2))
            }
            other => other.clone(),
        })
    }
}

fn calls_try_named(text: &str, name: &str) -> bool {
    regex::Regex::new(&format!(r"(^|[^\w.-]){name}\s*\(")).is_ok_and(|re| re.is_match(text))
}

fn calls_try(text: &str) -> bool {
    calls_try_named(text, "try") || calls_try_named(text, "can")
}

/// Whether a `for` body calls `try` or `can` (a mention inside a string literal
/// counts too: that only costs evaluating the `for` here, with the same result).
fn has_try(fe: &hcl::expr::ForExpr) -> bool {
    let body = [
        Some(&fe.value_expr),
        fe.key_expr.as_ref(),
        fe.cond_expr.as_ref(),
    ];
    body.into_iter()
        .flatten()
        .any(|e| calls_try(&hcl::format::to_string(e).unwrap_or_default()))
}

fn literal_key(k: &ObjectKey) -> Option<String> {
    match k {
        ObjectKey::Identifier(id) => Some(id.to_string()),
        ObjectKey::Expression(Expression::String(s)) => Some(s.clone()),
        _ => None,
    }
}

/// Every object of a value with its keys sorted, as cty keeps them.
fn sort_objects(v: hcl::Value) -> hcl::Value {
    match v {
        hcl::Value::Array(items) => {
            hcl::Value::Array(items.into_iter().map(sort_objects).collect())
        }
        hcl::Value::Object(m) => {
            let mut entries: Vec<_> = m.into_iter().collect();
            entries.sort_by(|x, y| x.0.cmp(&y.0));
            hcl::Value::Object(
                entries
                    .into_iter()
                    .map(|(k, x)| (k, sort_objects(x)))
                    .collect(),
            )
        }
        other => other,
    }
}

/// cty computes with 512-bit floats and helmfile reads the decimal text back into a
/// float64, so `0.1 + 0.2` arrives as `0.3`, where f64 arithmetic leaves
/// `0.30000000000000004`. A result within a few ulps of a 15-digit decimal is
/// snapped to it; a float written with more digits is farther than that and kept.
fn go_float(f: f64) -> f64 {
    if !f.is_finite() || f == 0.0 {
        return f;
    }
    match format!("{f:.14e}").parse::<f64>() {
        Ok(r) if (r - f).abs() <= 4.0 * f64::EPSILON * f.abs() => r,
        _ => f,
    }
}

fn object(m: &BTreeMap<String, hcl::Value>) -> hcl::Value {
    hcl::Value::Object(m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
}

/// `HCLLoader.HCLRender`: the merged `hv` object of all the files, as Go values.
pub fn render(files: &[HclFile]) -> Result<Map> {
    let parsed = parse_files(files)?;
    let ev = Evaluator { files };
    let mut locals_vals: Vec<Option<hcl::Value>> = Vec::new();
    for attrs in &parsed.locals {
        let order = plan(files, attrs, true)?;
        let mut vals = BTreeMap::new();
        for name in order {
            let Some(a) = attrs.get(&name) else { continue };
            let mut ctx = funcs::context();
            if !vals.is_empty() {
                ctx.declare_var("local", object(&vals));
            }
            let v = ev.eval(a, &ctx)?;
            vals.insert(name, v);
        }
        locals_vals.push((!vals.is_empty()).then(|| object(&vals)));
    }
    let order = plan(files, &parsed.values, false)?;
    let mut vals = BTreeMap::new();
    for name in order {
        let Some(a) = parsed.values.get(&name) else {
            continue;
        };
        let mut ctx = funcs::context();
        ctx.declare_var("hv", object(&vals));
        if let Some(Some(l)) = locals_vals.get(a.file) {
            ctx.declare_var("local", l.clone());
        }
        let v = ev.eval(a, &ctx)?;
        vals.insert(name, v);
    }
    if vals.is_empty() {
        // helmfile 0.166 crashes here ("panic: unknown type implementation": it
        // marshals a `hv` that was never set); a stack that crashes helmfile fails.
        let f = &files[0];
        return Err(err(format!(
            "{}: no `values` attribute is defined in the HCL files of this environment, which helmfile 0.166 crashes on (panic: unknown type implementation)",
            f.path
        ))
        .at(&f.path, 1));
    }
    let out = Map::new();
    for (k, v) in &vals {
        out.insert(k.clone(), to_go(v));
    }
    Ok(out)
}

/// cty → JSON → Go: numbers become `float64`, object keys come sorted.
pub fn to_go(v: &hcl::Value) -> Value {
    match v {
        hcl::Value::Null => Value::Nil,
        hcl::Value::Bool(b) => Value::Bool(*b),
        hcl::Value::Number(n) => Value::Float(go_float(n.as_f64().unwrap_or(0.0))),
        hcl::Value::String(s) => Value::String(s.as_str().into()),
        hcl::Value::Array(items) => Value::List(List::new(items.iter().map(to_go).collect())),
        hcl::Value::Object(m) => {
            let out = Map::new();
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            for k in keys {
                if let Some(x) = m.get(k) {
                    out.insert(k.clone(), to_go(x));
                }
            }
            Value::Map(out)
        }
    }
}

#[cfg(test)]
mod tests;
