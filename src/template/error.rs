//! The one error type of the template engine.
//!
//! Users compare stackproof's errors with what helm and helmfile print, and chart code
//! sometimes matches on them, so [`Error`]'s `Display` is Go's text exactly
//! (`template: NAME:LINE:COL: executing "NAME" at <NODE>: MESSAGE`). Separately, every
//! error keeps the byte span and source text it refers to, so reporters can show the
//! line with a caret via miette.

use std::fmt;

use crate::source::{SourceFile, Span};

/// What went wrong, coarsely; the message has the details.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The template text could not be lexed or parsed.
    Parse,
    /// Execution failed (type errors, nil pointers, missing keys, function errors).
    Exec,
    /// A deliberate failure raised by the template (`fail`, `required`).
    Fail,
    /// A named template does not exist.
    NoTemplate,
    /// Recursion limits were hit.
    Recursion,
}

/// A template error with Go's message text plus source position and span.
#[derive(Clone, Debug)]
pub struct Error {
    pub kind: ErrorKind,
    /// The message exactly as Go prints it (what `Display` shows).
    pub message: String,
    /// The name of the template the error refers to.
    pub template: String,
    /// 1-based line and column in that template, when known.
    pub line: Option<usize>,
    pub col: Option<usize>,
    /// The node text (`<.Values.a.b>`) for execution errors.
    pub context: Option<String>,
    /// Where in `source` the error points.
    pub span: Option<Span>,
    pub source: Option<SourceFile>,
    /// The error this one wraps (an error inside `include` or `tpl`).
    pub inner: Option<Box<Error>>,
}

impl Error {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error {
            kind,
            message: message.into(),
            template: String::new(),
            line: None,
            col: None,
            context: None,
            span: None,
            source: None,
            inner: None,
        }
    }

    pub fn with_source(mut self, source: SourceFile, span: Span) -> Error {
        self.source = Some(source);
        self.span = Some(span);
        self
    }

    /// The innermost error of an `include`/`tpl` chain.
    pub fn innermost(&self) -> &Error {
        let mut e = self;
        while let Some(i) = &e.inner {
            e = i;
        }
        e
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}
