//! The GitHub Actions printer: one workflow command per finding
//! (`::error file=...,line=...,col=...,title=...::message`), which the runner turns into
//! annotations on the pull request, then the summary line.

use super::{summary_line, Report, Role, Severity};

/// Escapes a command's message.
fn data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a command property value.
fn prop(s: &str) -> String {
    data(s).replace(':', "%3A").replace(',', "%2C")
}

/// Renders the report as workflow commands.
pub fn render(report: &Report) -> String {
    let mut out = String::new();
    for f in &report.findings {
        let cmd = match f.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "notice",
        };
        // Annotate a file in the repository: prefer the subject, else the rule.
        let loc = f
            .locations
            .iter()
            .find(|l| l.line > 0 && l.role != Role::Rule)
            .or_else(|| f.locations.iter().find(|l| l.line > 0));
        let mut props = Vec::new();
        if let Some(l) = loc {
            props.push(format!("file={}", prop(&l.file)));
            props.push(format!("line={}", l.line));
            props.push(format!("col={}", l.column.max(1)));
        }
        props.push(format!(
            "title={}",
            prop(&format!("{} ({})", f.rule, f.cell))
        ));
        let mut msg = f.message.clone();
        let mut ctx = vec![format!("target {}", f.target), format!("cell {}", f.cell)];
        if let Some(r) = &f.release {
            ctx.push(format!("release {r}"));
        }
        if let Some(r) = &f.resource {
            ctx.push(r.to_string());
        }
        msg.push_str(&format!("\n{}", ctx.join(", ")));
        out.push_str(&format!("::{cmd} {}::{}\n", props.join(","), data(&msg)));
    }
    out.push_str(&summary_line(&report.summary));
    out.push('\n');
    out
}
