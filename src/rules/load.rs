//! Loading rule files into compiled [`Rule`]s: every expression, JSONPath, regular
//! expression, template and assertion parameter is checked at load time, so a typo is a
//! `file:line:col` error before anything renders, never a rule that silently passes.

use std::path::Path;
use std::sync::Arc;

use super::assert::{self, Built};
use super::expr::{self, Expr};
use super::model::{Layer, RuleFile};
use super::select::Selector;
use crate::matrix::error::InputError;
use crate::matrix::yaml::{self, Duplicates, YKind, YNode};
use crate::report::{RuleInfo, Severity};

/// A compiled rule.
#[derive(Debug)]
pub struct Rule {
    pub id: String,
    pub severity: Severity,
    pub title: String,
    pub description: Option<String>,
    pub why: Option<String>,
    pub layer: Layer,
    pub when: Option<Expr>,
    pub selector: Selector,
    pub assertions: Vec<Built>,
    pub message: Option<String>,
    pub allow_empty: bool,
    /// The rule file as shown in reports.
    pub file: String,
    /// Where the rule's entry starts.
    pub line: usize,
    pub column: usize,
}

impl Rule {
    pub fn info(&self) -> RuleInfo {
        RuleInfo {
            id: self.id.clone(),
            severity: self.severity,
            title: self.title.clone(),
            description: self.description.clone(),
            why: self.why.clone(),
            file: self.file.clone(),
            line: self.line,
        }
    }
}

fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'))
}

/// Reads and compiles a rule file; `shown` is its name in messages.
pub fn load_file(path: &Path, shown: &str) -> Result<Vec<Rule>, InputError> {
    let text: Arc<str> = std::fs::read_to_string(path)
        .map_err(|e| InputError::new(format!("cannot read rule file {shown}: {e}")))?
        .into();
    load_text(&text, shown)
}

/// Compiles rule-file text.
pub fn load_text(text: &Arc<str>, shown: &str) -> Result<Vec<Rule>, InputError> {
    let yerr = |e: yaml::YamlError| InputError::from_yaml(e, shown, text);
    let node = yaml::parse_one(text, Duplicates::Reject).map_err(yerr)?;
    let file: RuleFile = yaml::from_node(&node).map_err(yerr)?;
    let rule_nodes: Vec<&YNode> = match node.get("rules").map(|n| &n.kind) {
        Some(YKind::Seq(items)) => items.iter().collect(),
        _ => Vec::new(),
    };
    let mut out: Vec<Rule> = Vec::new();
    for (i, spec) in file.rules.into_iter().enumerate() {
        let Some(rnode) = rule_nodes.get(i).copied() else {
            continue;
        };
        let at = |key: &str| rnode.get(key).map_or(rnode.pos, |n| n.pos);
        let err = |msg: String, pos: yaml::Pos| InputError::at(msg, shown, text, pos);
        if !valid_id(&spec.id) {
            return Err(err(
                format!(
                    "rule id `{}` must be non-empty and use only letters, digits, `-`, `_`, `.` and `/`",
                    spec.id
                ),
                at("id"),
            ));
        }
        if let Some(prev) = out.iter().find(|r| r.id == spec.id) {
            return Err(err(
                format!(
                    "duplicate rule id `{}` (first at line {})",
                    spec.id, prev.line
                ),
                at("id"),
            ));
        }
        let when = match &spec.when {
            Some(src) => Some(
                Expr::compile(src).map_err(|e| err(format!("invalid `when`: {e}"), at("when")))?,
            ),
            None => None,
        };
        let selector = Selector::compile(&spec.select, spec.layer).map_err(|(m, field)| {
            let pos = rnode
                .get("select")
                .and_then(|s| s.get(field))
                .map_or(at("select"), |n| n.pos);
            err(m, pos)
        })?;
        if let Some(m) = &spec.message {
            expr::check_template(m)
                .map_err(|e| err(format!("invalid `message` template: {e}"), at("message")))?;
        }
        let assert_node = rnode.get("assert").unwrap_or(rnode);
        let assertions = assert::build_all(assert_node).map_err(yerr)?;
        out.push(Rule {
            id: spec.id,
            severity: spec.severity,
            title: spec.title,
            description: spec.description,
            why: spec.why,
            layer: spec.layer,
            when,
            selector,
            assertions,
            message: spec.message,
            allow_empty: spec.allow_empty,
            file: shown.to_string(),
            line: rnode.pos.line as usize,
            column: rnode.pos.col as usize,
        });
    }
    Ok(out)
}

/// Checks that rule ids are unique across a set of files.
pub fn check_unique(rules: &[Arc<Rule>]) -> Result<(), InputError> {
    for (i, r) in rules.iter().enumerate() {
        if let Some(prev) = rules[..i].iter().find(|p| p.id == r.id) {
            return Err(InputError {
                message: format!(
                    "duplicate rule id `{}` (first at {}:{})",
                    r.id, prev.file, prev.line
                ),
                file: Some(r.file.clone()),
                pos: Some(yaml::Pos {
                    line: r.line as u32,
                    col: r.column as u32,
                    offset: 0,
                }),
                text: None,
                help: None,
            });
        }
    }
    Ok(())
}
