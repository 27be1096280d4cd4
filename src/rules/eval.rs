//! The rule engine: evaluates compiled rules on a rendered cell and turns every broken
//! assertion — and every reason a rule could not be evaluated — into findings.
//!
//! Fail-closed bookkeeping lives here, once for all kinds: a failed layer or release, a
//! `when`/`where` that errors, a selector that matches nothing, a path that matches
//! nothing in an object are findings unless the rule (`allow-empty`, `optional`) or the
//! assertion kind (`absent`, `count`, `render-fails`, ...) says what they mean.

use std::sync::Arc;

use serde_json::Value as Json;

use super::assert::{Ctx, Violation};
use super::expr;
use super::load::Rule;
use super::model::Layer;
use super::select::{self, Selection};
use crate::matrix::model::{LazyOrigins, RenderError, RenderedCell};
use crate::report::{Finding, FindingLocation, Outcome, Role, Status};

/// Evaluation settings.
#[derive(Clone, Copy, Debug)]
pub struct EvalOptions {
    /// Unix seconds used as "now" by expiry checks.
    pub now: i64,
}

impl Default for EvalOptions {
    fn default() -> Self {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs() as i64)
            .unwrap_or(0);
        EvalOptions { now }
    }
}

/// Evaluates every rule on a cell. `siblings` are the other cells of the same target
/// rendered in this run, for the kinds that compare cells.
pub fn evaluate(
    rules: &[Arc<Rule>],
    cell: &RenderedCell,
    siblings: &[&RenderedCell],
    opts: EvalOptions,
) -> Vec<Outcome> {
    rules
        .iter()
        .map(|r| evaluate_rule(r, cell, siblings, opts))
        .collect()
}

fn rule_location(rule: &Rule) -> FindingLocation {
    FindingLocation {
        role: Role::Rule,
        file: rule.file.clone(),
        line: rule.line,
        column: rule.column,
        label: Some("rule declared here".into()),
    }
}

/// The variables `when` sees.
fn when_context(cell: &RenderedCell) -> Json {
    serde_json::json!({
        "values": cell.values,
        "expect": cell.expect,
        "cell": cell.cell,
        "target": cell.target,
    })
}

/// Evaluates one rule on one cell.
pub fn evaluate_rule(
    rule: &Rule,
    cell: &RenderedCell,
    siblings: &[&RenderedCell],
    opts: EvalOptions,
) -> Outcome {
    let mut outcome = Outcome {
        rule: rule.id.clone(),
        target: cell.target.clone(),
        cell: cell.cell.clone(),
        status: Status::Passed,
        findings: Vec::new(),
    };
    let emit = |outcome: &mut Outcome, f: Finding| outcome.findings.push(f);
    let plain = |message: String, extra: Option<FindingLocation>| {
        let mut locations: Vec<FindingLocation> = extra.into_iter().collect();
        locations.push(rule_location(rule));
        Finding {
            rule: rule.id.clone(),
            severity: rule.severity,
            title: rule.title.clone(),
            target: cell.target.clone(),
            cell: cell.cell.clone(),
            release: None,
            resource: None,
            path: None,
            message,
            locations,
        }
    };

    if let Some(w) = &rule.when {
        match w.truth(&expr::value(&when_context(cell))) {
            Ok(true) => {}
            Ok(false) => {
                outcome.status = Status::Skipped {
                    reason: format!("`when: {}` is false", w.source()),
                };
                return outcome;
            }
            Err(e) => {
                let f = plain(format!("cannot evaluate `when: {}`: {e}", w.source()), None);
                emit(&mut outcome, f);
                outcome.status = Status::Failed;
                return outcome;
            }
        }
    }

    let sel = select::select(cell, rule.layer, &rule.selector);

    for g in &sel.gaps {
        let mut f = plain(format!("cannot evaluate: {}", g.message), None);
        f.release = g.release.as_ref().map(ToString::to_string);
        if let Some(i) = g.subject {
            f.resource = sel.subjects[i].resource.clone();
        }
        emit(&mut outcome, f);
    }

    let needs_layer = rule.assertions.iter().any(|a| !a.kind.on_failed_layer);
    if needs_layer {
        for (rel, e) in &sel.failures {
            let f = failure_finding(rule, cell, rel.as_ref().map(ToString::to_string), e, &plain);
            emit(&mut outcome, f);
        }
    }
    // With the whole layer gone, assertions that need it would only restate that
    // (`expected 1 match, found 0`); the failure finding above says it once.
    let layer_failed = sel.failures.iter().any(|(rel, _)| rel.is_none());

    let strict_empty = rule
        .assertions
        .iter()
        .any(|a| !a.kind.empty_ok && !a.kind.on_failed_layer);
    if strict_empty
        && !rule.allow_empty
        && sel.subjects.is_empty()
        && sel.failures.is_empty()
        && sel.gaps.is_empty()
    {
        let f = plain(
            format!(
                "nothing on the {} layer matches the selector, so the rule proves nothing (set `allow-empty: true` if that is expected)",
                rule.layer.as_str()
            ),
            None,
        );
        emit(&mut outcome, f);
    }

    let strict_missing = rule.assertions.iter().any(|a| !a.kind.missing_ok);
    if strict_missing && !rule.selector.optional {
        if let Some(p) = &rule.selector.path {
            let ctx = Ctx {
                cell,
                sel: &sel,
                selector: &rule.selector,
                siblings,
                layer: rule.layer,
                now: opts.now,
                allow_empty: rule.allow_empty,
            };
            for &i in &sel.missing {
                let mut v = Violation::subject(
                    i,
                    format!(
                        "`{}` matches nothing in {} (set `optional: true` in the selector if that is expected)",
                        p.source,
                        ctx.describe(i)
                    ),
                );
                // Point at the deepest part of the path that does exist: the values file
                // or template line where the expected setting would have to go.
                v.path = deepest_existing(sel.subjects[i].doc, &p.source);
                let f = violation_finding(rule, cell, &sel, v);
                emit(&mut outcome, f);
            }
        }
    }

    let ctx = Ctx {
        cell,
        sel: &sel,
        selector: &rule.selector,
        siblings,
        layer: rule.layer,
        now: opts.now,
        allow_empty: rule.allow_empty,
    };
    for built in &rule.assertions {
        if layer_failed && !built.kind.on_failed_layer {
            continue;
        }
        for v in built.assertion.check(&ctx) {
            let f = violation_finding(rule, cell, &sel, v);
            emit(&mut outcome, f);
        }
    }

    if !outcome.findings.is_empty() {
        outcome.status = Status::Failed;
    }
    outcome
}

fn failure_finding(
    rule: &Rule,
    _cell: &RenderedCell,
    release: Option<String>,
    e: &RenderError,
    plain: &dyn Fn(String, Option<FindingLocation>) -> Finding,
) -> Finding {
    let what = match &release {
        Some(r) => format!("release {r} failed to render"),
        None => format!("the {} layer failed to render", rule.layer.as_str()),
    };
    let loc = e.location.as_ref().map(|l| FindingLocation {
        role: Role::Subject,
        file: l.file.clone(),
        line: l.line,
        column: l.column,
        label: Some("render error".into()),
    });
    let mut f = plain(format!("cannot evaluate: {what}: {}", e.message), loc);
    f.release = release;
    f
}

fn subject_label(layer: Layer) -> &'static str {
    match layer {
        Layer::States => "declared here",
        Layer::Values => "value set here",
        Layer::Manifests => "rendered here",
    }
}

/// The normalized path (`$['a'][0]`) of the deepest node of `doc` that the leading
/// plain segments of `path` (`.name`, `['name']`, `[0]`) reach; `None` at the root.
fn deepest_existing(doc: &Json, path: &str) -> Option<String> {
    let mut rest = path.strip_prefix('$')?;
    let mut node = doc;
    let mut out = String::from("$");
    loop {
        let (seg, after): (String, &str) = if let Some(r) = rest.strip_prefix('.') {
            let end = r
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
                .unwrap_or(r.len());
            if end == 0 {
                break;
            }
            (r[..end].to_string(), &r[end..])
        } else if let Some(r) = rest.strip_prefix("['") {
            match r.find("']") {
                Some(end) if !r[..end].contains('\'') => (r[..end].to_string(), &r[end + 2..]),
                _ => break,
            }
        } else if let Some(r) = rest.strip_prefix('[') {
            let end = r.find(']')?;
            match r[..end].parse::<usize>() {
                Ok(i) => match node.get(i) {
                    Some(n) => {
                        node = n;
                        out.push_str(&format!("[{i}]"));
                        rest = &r[end + 1..];
                        continue;
                    }
                    None => break,
                },
                Err(_) => break,
            }
        } else {
            break;
        };
        match node.get(&seg) {
            Some(n) => {
                node = n;
                out.push_str(&format!("['{seg}']"));
                rest = after;
            }
            None => break,
        }
    }
    (out != "$").then_some(out)
}

fn violation_finding(
    rule: &Rule,
    cell: &RenderedCell,
    sel: &Selection<'_>,
    v: Violation,
) -> Finding {
    let subject = v.subject.map(|i| &sel.subjects[i]);
    let mut locations = Vec::new();
    if let Some(s) = subject {
        if let Some(o) = s.origins.map(LazyOrigins::get) {
            let l = v
                .path
                .as_deref()
                .and_then(|p| nearest_origin(o, p))
                .or_else(|| o.get("$"));
            if let Some(l) = l {
                locations.push(FindingLocation {
                    role: Role::Subject,
                    file: l.file.clone(),
                    line: l.line,
                    column: l.column,
                    label: Some(subject_label(rule.layer).into()),
                });
            }
        }
        if let Some(t) = s.manifest.and_then(|m| m.template.as_ref()) {
            locations.push(FindingLocation {
                role: Role::Template,
                file: t.file.clone(),
                line: t.line,
                column: t.column,
                label: Some("from this template".into()),
            });
        }
    }
    locations.extend(v.related.iter().cloned());
    locations.push(rule_location(rule));

    let message = match &rule.message {
        None => v.message.clone(),
        Some(tpl) => {
            let ctx = serde_json::json!({
                "detail": v.message,
                "rule": {"id": rule.id, "title": rule.title, "severity": rule.severity.as_str()},
                "cell": cell.cell,
                "target": cell.target,
                "release": subject.and_then(|s| s.release).map(|r| r.to_string()),
                "resource": subject.and_then(|s| s.resource.as_ref()).map(|r| r.to_string()),
                "kind": subject.and_then(|s| s.resource.as_ref()).map(|r| r.kind.clone()),
                "name": subject.and_then(|s| s.resource.as_ref().map(|r| r.name.clone()).or(s.release.map(|r| r.name.clone()))),
                "namespace": subject.map(|s| s.namespace.clone()),
                "path": v.path,
                "value": v.value,
                "doc": subject.map(|s| s.doc),
                "values": cell.values,
                "expect": cell.expect,
            });
            match expr::render_template(tpl, &expr::value(&ctx)) {
                Ok(m) if !m.is_empty() => m,
                Ok(_) => v.message.clone(),
                Err(e) => format!("{} (the rule's message template failed: {e})", v.message),
            }
        }
    };

    Finding {
        rule: rule.id.clone(),
        severity: rule.severity,
        title: rule.title.clone(),
        target: cell.target.clone(),
        cell: cell.cell.clone(),
        release: subject.and_then(|s| s.release).map(|r| r.to_string()),
        resource: subject.and_then(|s| s.resource.clone()),
        path: v.path.clone().filter(|p| p != "$"),
        message,
        locations,
    }
}

/// The origin of `path`, or of its nearest ancestor that has one.
fn nearest_origin<'o>(
    o: &'o crate::matrix::model::Origins,
    path: &str,
) -> Option<&'o crate::source::Location> {
    let mut p = path;
    loop {
        if let Some(l) = o.get(p) {
            return Some(l);
        }
        // Strip the last `[...]` segment.
        let cut = p.rfind('[')?;
        p = &p[..cut];
        if p.is_empty() {
            return None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::deepest_existing;
    use serde_json::json;

    #[test]
    fn deepest_existing_prefix() {
        let doc = json!({"api": {"remoteConfig": {"x": [1, {"y": 2}]}}, "a-b": 1});
        assert_eq!(
            deepest_existing(&doc, "$.api.remoteConfig.configData.nvcf['w']").as_deref(),
            Some("$['api']['remoteConfig']")
        );
        assert_eq!(
            deepest_existing(&doc, "$.api.remoteConfig.x[1].z").as_deref(),
            Some("$['api']['remoteConfig']['x'][1]")
        );
        assert_eq!(
            deepest_existing(&doc, "$['a-b'].c").as_deref(),
            Some("$['a-b']")
        );
        assert_eq!(deepest_existing(&doc, "$.nope"), None);
        assert_eq!(deepest_existing(&doc, "$..x"), None);
    }
}
