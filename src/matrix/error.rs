//! Errors in what the user wrote (configuration, rule files, command-line selections),
//! reported compiler-style at `file:line:col` with the offending line quoted. These end
//! a run with exit code 2, unlike findings, which are results.

use std::fmt;
use std::sync::Arc;

use super::yaml::{Pos, YamlError};

/// A mistake in an input file or argument.
#[derive(Clone, Debug)]
pub struct InputError {
    pub message: String,
    /// The file as users see it (relative to where they ran the command when possible).
    pub file: Option<String>,
    pub pos: Option<Pos>,
    /// The file's text, so printers can quote the line.
    pub text: Option<Arc<str>>,
    pub help: Option<String>,
}

impl InputError {
    pub fn new(message: impl Into<String>) -> InputError {
        InputError {
            message: message.into(),
            file: None,
            pos: None,
            text: None,
            help: None,
        }
    }

    /// An error at a position of a file whose text is known.
    pub fn at(message: impl Into<String>, file: &str, text: &Arc<str>, pos: Pos) -> InputError {
        InputError {
            message: message.into(),
            file: Some(file.to_string()),
            pos: Some(pos),
            text: Some(text.clone()),
            help: None,
        }
    }

    /// Wraps a YAML syntax or shape error of `file`.
    pub fn from_yaml(e: YamlError, file: &str, text: &Arc<str>) -> InputError {
        InputError {
            message: e.message,
            file: Some(file.to_string()),
            pos: e.pos,
            text: Some(text.clone()),
            help: None,
        }
    }

    pub fn with_help(mut self, help: impl Into<String>) -> InputError {
        self.help = Some(help.into());
        self
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.file, self.pos) {
            (Some(file), Some(p)) => write!(f, "{file}:{}:{}: {}", p.line, p.col, self.message),
            (Some(file), None) => write!(f, "{file}: {}", self.message),
            _ => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for InputError {}

/// Renders an input error for people: `file:line:col: message`, the line, a caret.
pub fn render_input_error(e: &InputError) -> String {
    let mut out = format!("error: {e}\n");
    if let (Some(text), Some(pos)) = (&e.text, e.pos) {
        let line_text = text
            .lines()
            .nth((pos.line as usize).saturating_sub(1))
            .unwrap_or("");
        let gutter = pos.line.to_string();
        out.push_str(&format!("{} |\n", " ".repeat(gutter.len())));
        out.push_str(&format!("{gutter} | {line_text}\n"));
        let caret_pad: String = line_text
            .chars()
            .take((pos.col as usize).saturating_sub(1))
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect();
        out.push_str(&format!("{} | {caret_pad}^\n", " ".repeat(gutter.len())));
    }
    if let Some(h) = &e.help {
        out.push_str(&format!("help: {h}\n"));
    }
    out
}
