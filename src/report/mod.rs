//! Findings as data, and the printers that render them.
//!
//! The rule engine produces [`Finding`]s and per-rule [`Outcome`]s and knows nothing about
//! output formats; each printer is its own module taking a finished [`Report`]: `human`
//! (miette, for people), `json`, `sarif` (2.1.0), `junit` and `github` (workflow
//! annotations). Everything in a report is sorted before printing, so output is
//! byte-for-byte the same for the same inputs, however cells were scheduled.

pub mod diff;
pub mod github;
pub mod human;
pub mod json;
pub mod junit;
pub mod sarif;

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::matrix::model::ResourceRef;

/// How serious a broken rule is.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    #[default]
    Error,
    Warning,
    Info,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a location in a finding points at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    /// The node the rule looked at (rendered output, values file or state file).
    Subject,
    /// The chart template that rendered the document.
    Template,
    /// Another place involved (the first of two duplicates, a referencing object).
    Related,
    /// The rule's declaration.
    Rule,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Subject => "subject",
            Role::Template => "template",
            Role::Related => "related",
            Role::Rule => "rule",
        }
    }
}

/// A place a finding refers to. `line` 0 means the line is unknown (a template known
/// only by path).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct FindingLocation {
    pub role: Role,
    pub file: String,
    #[serde(skip_serializing_if = "is_zero")]
    pub line: usize,
    #[serde(skip_serializing_if = "is_zero")]
    pub column: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// One broken invariant in one cell.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub rule: String,
    pub severity: Severity,
    pub title: String,
    pub target: String,
    pub cell: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub release: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource: Option<ResourceRef>,
    /// The JSONPath (normalized) of the offending node, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    pub message: String,
    /// Most specific first; the rule's own location last.
    pub locations: Vec<FindingLocation>,
}

impl Finding {
    /// The location printers lead with: the first one with a known line.
    pub fn primary(&self) -> Option<&FindingLocation> {
        self.locations.iter().find(|l| l.line > 0)
    }

    fn sort_key(&self) -> impl Ord + '_ {
        (
            &self.target,
            &self.cell,
            &self.rule,
            &self.release,
            &self.resource,
            &self.path,
            &self.message,
        )
    }
}

/// What happened to one rule in one cell.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "lowercase")]
pub enum Status {
    Passed,
    /// `when` was false.
    Skipped {
        reason: String,
    },
    Failed,
}

/// One rule evaluated on one cell.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Outcome {
    pub rule: String,
    pub target: String,
    pub cell: String,
    #[serde(flatten)]
    pub status: Status,
    pub findings: Vec<Finding>,
}

/// What a rule is, for printers that describe rules (SARIF's rule table).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RuleInfo {
    pub id: String,
    pub severity: Severity,
    pub title: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    pub file: String,
    pub line: usize,
}

/// Texts printers may quote: files read from disk on demand, plus render output that
/// exists only in memory.
#[derive(Debug, Default)]
pub struct Sources {
    files: BTreeMap<String, Arc<str>>,
    /// Read files from disk (relative names against this directory) when not registered.
    pub disk_base: Option<std::path::PathBuf>,
    /// Files read from disk so far (`None`: unreadable), so each is read once.
    read: parking_lot::Mutex<BTreeMap<String, Option<Arc<str>>>>,
}

impl Clone for Sources {
    fn clone(&self) -> Self {
        Sources {
            files: self.files.clone(),
            disk_base: self.disk_base.clone(),
            read: parking_lot::Mutex::new(self.read.lock().clone()),
        }
    }
}

impl Sources {
    pub fn insert(&mut self, name: impl Into<String>, text: Arc<str>) {
        self.files.insert(name.into(), text);
    }

    pub fn get(&self, name: &str) -> Option<Arc<str>> {
        if let Some(t) = self.files.get(name) {
            return Some(t.clone());
        }
        let base = self.disk_base.as_ref()?;
        let mut read = self.read.lock();
        read.entry(name.to_string())
            .or_insert_with(|| std::fs::read_to_string(base.join(name)).ok().map(Arc::from))
            .clone()
    }
}

/// Totals for the summary line.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    pub targets: usize,
    pub cells: usize,
    pub rules: usize,
    pub findings: usize,
    pub errors: usize,
    pub warnings: usize,
    pub infos: usize,
    #[serde(skip)]
    pub elapsed: Duration,
}

/// A finished check: everything printers need.
#[derive(Clone, Debug, Default)]
pub struct Report {
    pub findings: Vec<Finding>,
    pub outcomes: Vec<Outcome>,
    pub rules: Vec<RuleInfo>,
    pub summary: Summary,
    pub sources: Sources,
}

impl Report {
    /// Builds a report, sorting everything into its deterministic order and counting.
    pub fn new(
        mut outcomes: Vec<Outcome>,
        mut rules: Vec<RuleInfo>,
        targets: usize,
        cells: usize,
        elapsed: Duration,
        sources: Sources,
    ) -> Report {
        for o in &mut outcomes {
            o.findings.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
            o.findings.dedup();
        }
        outcomes.sort_by(|a, b| (&a.target, &a.cell, &a.rule).cmp(&(&b.target, &b.cell, &b.rule)));
        rules.sort_by(|a, b| a.id.cmp(&b.id));
        rules.dedup_by(|a, b| a.id == b.id);
        let findings: Vec<Finding> = outcomes
            .iter()
            .flat_map(|o| o.findings.iter().cloned())
            .collect();
        let count = |s: Severity| findings.iter().filter(|f| f.severity == s).count();
        let summary = Summary {
            targets,
            cells,
            rules: rules.len(),
            findings: findings.len(),
            errors: count(Severity::Error),
            warnings: count(Severity::Warning),
            infos: count(Severity::Info),
            elapsed,
        };
        Report {
            findings,
            outcomes,
            rules,
            summary,
            sources,
        }
    }

    /// The process exit code: 0 when every rule held, 1 on findings.
    pub fn exit_code(&self) -> i32 {
        if self.findings.is_empty() {
            0
        } else {
            1
        }
    }
}

/// Output formats of `stackproof check`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    #[default]
    Human,
    Json,
    Sarif,
    Junit,
    Github,
}

/// Prints a report in a format.
pub fn render(report: &Report, format: Format, color: bool) -> String {
    match format {
        Format::Human => human::render(report, color),
        Format::Json => json::render(report),
        Format::Sarif => sarif::render(report),
        Format::Junit => junit::render(report),
        Format::Github => github::render(report),
    }
}

/// `3 cells, 12 rules, 2 findings (1 error, 1 warning) in 0.41s`.
pub fn summary_line(s: &Summary) -> String {
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let mut parts = Vec::new();
    if s.errors > 0 {
        parts.push(plural(s.errors, "error", "errors"));
    }
    if s.warnings > 0 {
        parts.push(plural(s.warnings, "warning", "warnings"));
    }
    if s.infos > 0 {
        parts.push(plural(s.infos, "info", "infos"));
    }
    let detail = if parts.is_empty() {
        String::new()
    } else {
        format!(" ({})", parts.join(", "))
    };
    format!(
        "{}, {}, {}, {}{} in {:.2}s",
        plural(s.targets, "target", "targets"),
        plural(s.cells, "cell", "cells"),
        plural(s.rules, "rule", "rules"),
        plural(s.findings, "finding", "findings"),
        detail,
        s.elapsed.as_secs_f64()
    )
}
