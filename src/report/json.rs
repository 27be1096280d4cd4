//! The JSON printer: findings and the summary as one JSON document, for scripts.

use super::Report;

/// Renders the report as pretty JSON.
pub fn render(report: &Report) -> String {
    let doc = serde_json::json!({
        "version": 1,
        "findings": report.findings,
        "summary": {
            "targets": report.summary.targets,
            "cells": report.summary.cells,
            "rules": report.summary.rules,
            "findings": report.summary.findings,
            "errors": report.summary.errors,
            "warnings": report.summary.warnings,
            "infos": report.summary.infos,
            "elapsed_seconds": (report.summary.elapsed.as_secs_f64() * 1000.0).round() / 1000.0,
        },
    });
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_else(|_| "{}".into());
    s.push('\n');
    s
}
