//! The JUnit XML printer, for CI systems that show test results: one test suite per
//! (target, cell), one test case per rule; broken rules fail with their findings, rules
//! whose `when` was false are skipped.

use std::collections::BTreeMap;

use super::{Outcome, Report, Status};

/// Escapes text for XML attributes and content.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            c if (c as u32) < 0x20 && c != '\t' => {}
            c => out.push(c),
        }
    }
    out
}

/// Renders the report as JUnit XML.
pub fn render(report: &Report) -> String {
    let mut suites: BTreeMap<(&str, &str), Vec<&Outcome>> = BTreeMap::new();
    for o in &report.outcomes {
        suites.entry((&o.target, &o.cell)).or_default().push(o);
    }
    let count =
        |pred: &dyn Fn(&Outcome) -> bool| report.outcomes.iter().filter(|o| pred(o)).count();
    let mut s = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    s.push_str(&format!(
        "<testsuites name=\"stackproof\" tests=\"{}\" failures=\"{}\" skipped=\"{}\" time=\"{:.3}\">\n",
        report.outcomes.len(),
        count(&|o| o.status == Status::Failed),
        count(&|o| matches!(o.status, Status::Skipped { .. })),
        report.summary.elapsed.as_secs_f64()
    ));
    for ((target, cell), outcomes) in suites {
        let failures = outcomes
            .iter()
            .filter(|o| o.status == Status::Failed)
            .count();
        let skipped = outcomes
            .iter()
            .filter(|o| matches!(o.status, Status::Skipped { .. }))
            .count();
        s.push_str(&format!(
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failures}\" skipped=\"{skipped}\">\n",
            escape(&format!("{target}/{cell}")),
            outcomes.len()
        ));
        for o in outcomes {
            let case = format!(
                "    <testcase classname=\"{}\" name=\"{}\"",
                escape(&format!("{target}.{cell}")),
                escape(&o.rule)
            );
            match &o.status {
                Status::Passed => s.push_str(&format!("{case}/>\n")),
                Status::Skipped { reason } => {
                    s.push_str(&format!(
                        "{case}>\n      <skipped message=\"{}\"/>\n    </testcase>\n",
                        escape(reason)
                    ));
                }
                Status::Failed => {
                    let severity = o
                        .findings
                        .iter()
                        .map(|f| f.severity)
                        .min()
                        .map_or("error", |x| x.as_str());
                    let summary = match o.findings.len() {
                        1 => o.findings[0].message.clone(),
                        n => format!("{n} findings"),
                    };
                    let body: Vec<String> = o
                        .findings
                        .iter()
                        .map(|f| {
                            let at = f
                                .primary()
                                .map(|l| format!("{}:{}:{}: ", l.file, l.line, l.column))
                                .unwrap_or_default();
                            format!("{at}{}", f.message)
                        })
                        .collect();
                    s.push_str(&format!(
                        "{case}>\n      <failure message=\"{}\" type=\"{severity}\">{}</failure>\n    </testcase>\n",
                        escape(&summary),
                        escape(&body.join("\n"))
                    ));
                }
            }
        }
        s.push_str("  </testsuite>\n");
    }
    s.push_str("</testsuites>\n");
    s
}
