//! The SARIF 2.1.0 printer, for code-scanning dashboards: one run, the rules that were
//! checked as the driver's rule table, one result per finding with its physical
//! locations and the cell/target/release/resource as properties.

use serde_json::{json, Value as Json};

use super::{Finding, FindingLocation, Report, Role, Severity};

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

fn physical(l: &FindingLocation) -> Json {
    let mut p = json!({ "artifactLocation": { "uri": l.file.replace('\\', "/") } });
    if l.line > 0 {
        p["region"] = json!({ "startLine": l.line, "startColumn": l.column.max(1) });
    }
    p
}

/// A stable 64-bit FNV-1a hash, hex, so results can be tracked across runs.
fn fingerprint(f: &Finding) -> String {
    let key = format!(
        "{}\u{1}{}\u{1}{}\u{1}{}\u{1}{}\u{1}{}",
        f.rule,
        f.target,
        f.cell,
        f.release.as_deref().unwrap_or(""),
        f.resource
            .as_ref()
            .map(ToString::to_string)
            .unwrap_or_default(),
        f.path.as_deref().unwrap_or("")
    );
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in key.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// Renders the report as a SARIF 2.1.0 log.
pub fn render(report: &Report) -> String {
    let rules: Vec<Json> = report
        .rules
        .iter()
        .map(|r| {
            let mut j = json!({
                "id": r.id,
                "name": r.id,
                "shortDescription": { "text": r.title },
                "fullDescription": { "text": r.description.clone().unwrap_or_else(|| r.title.clone()) },
                "defaultConfiguration": { "level": level(r.severity) },
            });
            if let Some(why) = &r.why {
                j["help"] = json!({ "text": why });
            }
            j
        })
        .collect();
    let results: Vec<Json> = report
        .findings
        .iter()
        .map(|f| {
            let mut locations = Vec::new();
            let mut related = Vec::new();
            let primary = f.locations.iter().position(|l| l.line > 0 && l.role != Role::Rule)
                .or_else(|| f.locations.iter().position(|l| l.line > 0));
            for (i, l) in f.locations.iter().enumerate() {
                if Some(i) == primary {
                    locations.push(json!({ "physicalLocation": physical(l) }));
                } else {
                    related.push(json!({
                        "id": related.len(),
                        "physicalLocation": physical(l),
                        "message": { "text": l.label.clone().unwrap_or_else(|| l.role.as_str().into()) },
                    }));
                }
            }
            let mut props = json!({ "target": f.target, "cell": f.cell });
            if let Some(r) = &f.release {
                props["release"] = json!(r);
            }
            if let Some(r) = &f.resource {
                props["resource"] = json!(r.to_string());
            }
            if let Some(p) = &f.path {
                props["path"] = json!(p);
            }
            let mut r = json!({
                "ruleId": f.rule,
                "level": level(f.severity),
                "message": { "text": format!("{} [cell {}, target {}]", f.message, f.cell, f.target) },
                "locations": locations,
                "partialFingerprints": { "stackproof/v1": fingerprint(f) },
                "properties": props,
            });
            if let Some(i) = report.rules.iter().position(|x| x.id == f.rule) {
                r["ruleIndex"] = json!(i);
            }
            if !related.is_empty() {
                r["relatedLocations"] = json!(related);
            }
            r
        })
        .collect();
    let doc = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "stackproof",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "results": results,
        }],
    });
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_else(|_| "{}".into());
    s.push('\n');
    s
}
