//! The human printer: each finding as a miette diagnostic quoting the offending line
//! (rendered output, values file or state file), with the cell, target, release,
//! template and rule location as notes and the rule's `why` as help; then the summary.

use std::fmt;

use miette::{
    Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteError,
    MietteSpanContents, Severity as MSeverity, SourceCode, SourceSpan, SpanContents,
};

use super::{summary_line, Finding, Report, Role, Severity, Sources};
use crate::matrix::error::InputError;

/// Width the report is wrapped at (fixed, so output does not depend on the terminal).
const WIDTH: usize = 100;

fn handler(color: bool) -> GraphicalReportHandler {
    let theme = if color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    GraphicalReportHandler::new_themed(theme)
        .with_width(WIDTH)
        .with_links(false)
        .with_context_lines(1)
}

struct Diag {
    message: String,
    code: String,
    severity: MSeverity,
    help: Option<String>,
    source: Option<Excerpt>,
    label: Option<LabeledSpan>,
}

/// The few lines around a location, each cut at [`MAX_LINE`] characters, standing in for
/// the whole file: rendered output can be megabytes with base64 lines thousands of
/// characters long, and a report only ever shows one line of context around a label.
struct Excerpt {
    name: String,
    text: String,
    /// The 0-based line number of `text`'s first line in the file.
    first_line: usize,
}

const MAX_LINE: usize = 120;

impl SourceCode for Excerpt {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        before: usize,
        after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let inner = self.text.read_span(span, before, after)?;
        Ok(Box::new(MietteSpanContents::new_named(
            self.name.clone(),
            inner.data(),
            *inner.span(),
            inner.line() + self.first_line,
            inner.column(),
            inner.line_count(),
        )))
    }
}

/// An excerpt of `text` around 1-based `line`, and the label's span in it.
fn excerpt(name: &str, text: &str, line: usize, col: usize) -> Option<(Excerpt, usize, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let idx = line.checked_sub(1).filter(|i| *i < lines.len())?;
    let first = idx.saturating_sub(1);
    let last = (idx + 1).min(lines.len() - 1);
    let mut out = String::new();
    let mut start = 0;
    let mut len = 1;
    for (i, l) in lines.iter().enumerate().take(last + 1).skip(first) {
        let cut: String = if l.chars().count() > MAX_LINE {
            let head: String = l.chars().take(MAX_LINE).collect();
            format!("{head}…")
        } else {
            (*l).to_string()
        };
        if i == idx {
            let col_byte = cut
                .char_indices()
                .nth(col.saturating_sub(1))
                .map_or(cut.len(), |(b, _)| b);
            start = out.len() + col_byte;
            len = cut[col_byte..].trim_end().len().max(1);
        }
        out.push_str(&cut);
        out.push('\n');
    }
    Some((
        Excerpt {
            name: name.to_string(),
            text: out,
            first_line: first,
        },
        start,
        len,
    ))
}

impl fmt::Debug for Diag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl fmt::Display for Diag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Diag {}

impl Diagnostic for Diag {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(&self.code))
    }
    fn severity(&self) -> Option<MSeverity> {
        Some(self.severity)
    }
    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }
    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        self.source.as_ref().map(|s| s as &dyn miette::SourceCode)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        self.label
            .clone()
            .map(|l| Box::new(std::iter::once(l)) as Box<dyn Iterator<Item = LabeledSpan>>)
    }
}

fn finding_diag(f: &Finding, why: Option<&str>, sources: &Sources) -> Diag {
    let mut notes = vec![f.title.clone()];
    if let Some(w) = why {
        notes.push(format!("why: {w}"));
    }
    let mut context = format!("cell {} of target {}", f.cell, f.target);
    if let Some(r) = &f.release {
        context.push_str(&format!(", release {r}"));
    }
    if let Some(r) = &f.resource {
        context.push_str(&format!(", {r}"));
    }
    notes.push(context);
    if let Some(p) = &f.path {
        notes.push(format!("at {p}"));
    }
    let primary = f
        .locations
        .iter()
        .position(|l| l.line > 0 && l.role != Role::Rule);
    let mut source = None;
    let mut label = None;
    if let Some(i) = primary {
        let l = &f.locations[i];
        if let Some(text) = sources.get(&l.file) {
            if let Some((ex, start, len)) = excerpt(&l.file, &text, l.line, l.column) {
                label = Some(LabeledSpan::new(l.label.clone(), start, len));
                source = Some(ex);
            }
        }
    }
    for (i, l) in f.locations.iter().enumerate() {
        if Some(i) == primary && source.is_some() {
            continue;
        }
        let place = if l.line > 0 {
            format!("{}:{}:{}", l.file, l.line, l.column)
        } else {
            l.file.clone()
        };
        let what = l
            .label
            .clone()
            .unwrap_or_else(|| l.role.as_str().to_string());
        notes.push(format!("{what}: {place}"));
    }
    let help = Some(notes.join("\n"));
    Diag {
        message: f.message.clone(),
        code: f.rule.clone(),
        severity: match f.severity {
            Severity::Error => MSeverity::Error,
            Severity::Warning => MSeverity::Warning,
            Severity::Info => MSeverity::Advice,
        },
        help,
        source,
        label,
    }
}

/// Renders findings and the summary line.
pub fn render(report: &Report, color: bool) -> String {
    let h = handler(color);
    let mut out = String::new();
    for f in &report.findings {
        let why = report
            .rules
            .iter()
            .find(|r| r.id == f.rule)
            .and_then(|r| r.why.as_deref());
        let d = finding_diag(f, why, &report.sources);
        let mut s = String::new();
        if h.render_report(&mut s, &d).is_err() {
            s = format!("{}[{}]: {}\n", f.severity, f.rule, f.message);
        }
        out.push_str(&s);
        if !s.ends_with('\n') {
            out.push('\n');
        }
        out.push('\n');
    }
    out.push_str(&summary_line(&report.summary));
    out.push('\n');
    out
}

/// Renders an input (configuration or rule file) error.
pub fn render_input_error(e: &InputError, color: bool) -> String {
    let mut source = None;
    let mut label = None;
    if let (Some(file), Some(text), Some(pos)) = (&e.file, &e.text, e.pos) {
        if let Some((ex, start, len)) = excerpt(file, text, pos.line as usize, pos.col as usize) {
            label = Some(LabeledSpan::new(Some("here".into()), start, len));
            source = Some(ex);
        }
    }
    let message = match (&e.file, e.pos, &source) {
        (Some(file), Some(p), _) => format!("{file}:{}:{}: {}", p.line, p.col, e.message),
        (Some(file), None, _) => format!("{file}: {}", e.message),
        _ => e.message.clone(),
    };
    let d = Diag {
        message,
        code: "stackproof::input".into(),
        severity: MSeverity::Error,
        help: e.help.clone(),
        source,
        label,
    };
    let mut s = String::new();
    if handler(color).render_report(&mut s, &d).is_err() {
        s = format!("error: {e}\n");
    }
    s
}
