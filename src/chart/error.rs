//! The one error type of the chart layer.
//!
//! Its `Display` is exactly the text `helm template` prints after `Error: `, so the CLI
//! and the conformance tests can compare it with Helm byte for byte. The phase tells
//! the CLI whether Helm would add its `Use --debug flag to render out invalid YAML`
//! hint (only failures after the release object exists, i.e. rendering and sorting),
//! and the optional template error keeps the source span for pretty reports.

use std::fmt;

use crate::source::{SourceFile, Span};

/// Where in Helm's pipeline the failure happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Reading `-f`/`--set` values.
    Values,
    /// Locating or loading the chart (Chart.yaml, values.yaml, archives).
    Load,
    /// Checks before rendering (library chart, missing dependencies, schema,
    /// dependency processing).
    Prepare,
    /// Template parsing/execution, kubeVersion check, YAML splitting and sorting.
    Render,
    /// Output selection (`--show-only` with no match).
    Output,
}

#[derive(Clone, Debug)]
pub struct ChartError {
    pub phase: Phase,
    /// Helm's message, without the `Error: ` prefix.
    pub message: String,
    /// The template file and span the error points at, when known.
    pub location: Option<(SourceFile, Span)>,
    /// What `helm template --debug` prints on stdout for this failure: the rendered
    /// files Helm hands back with a YAML parse error (empty for other render
    /// failures). `None` when Helm has no release yet, so prints nothing.
    pub debug_manifest: Option<String>,
    /// A log line Helm writes to stderr before the `Error:` line (Helm 4 logs some
    /// failures as it returns them).
    pub log: Option<String>,
}

impl ChartError {
    pub fn new(phase: Phase, message: impl Into<String>) -> ChartError {
        ChartError {
            phase,
            message: message.into(),
            location: None,
            debug_manifest: None,
            log: None,
        }
    }

    pub fn load(message: impl Into<String>) -> ChartError {
        ChartError::new(Phase::Load, message)
    }

    pub fn render(message: impl Into<String>) -> ChartError {
        ChartError::new(Phase::Render, message)
    }

    pub fn with_location(mut self, file: SourceFile, span: Span) -> ChartError {
        self.location = Some((file, span));
        self
    }

    /// Whether `helm template` appends its `--debug` hint to this error.
    pub fn has_debug_hint(&self) -> bool {
        self.phase == Phase::Render
    }

    /// The full stderr text `helm template` prints for this error.
    pub fn helm_stderr(&self) -> String {
        let log = self
            .log
            .as_ref()
            .map(|l| format!("{l}\n"))
            .unwrap_or_default();
        log + &self.helm_error_line(self.has_debug_hint())
    }

    /// The `Error: ` text, with or without Helm's `--debug` hint.
    pub fn helm_error_line(&self, hint: bool) -> String {
        if hint {
            format!(
                "Error: {}\n\nUse --debug flag to render out invalid YAML\n",
                self.message
            )
        } else {
            format!("Error: {}\n", self.message)
        }
    }
}

impl fmt::Display for ChartError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ChartError {}
