//! The one error type of the template engine.
//!
//! Users compare stackproof's errors with what helm and helmfile print, and chart code
//! sometimes matches on them, so [`Error`]'s `Display` is Go's text exactly
//! (`template: NAME:LINE:COL: executing "NAME" at <NODE>: MESSAGE`, or for parse
//! errors `template: NAME:LINE: MESSAGE`). Separately, every error keeps its parts
//! (template name, line, column, node text, bare message, byte span, source, and the
//! error it wraps for `include`/`tpl` chains), so that hosts can re-assemble Helm 4's
//! multi-line format and reporters can show the line with a caret via miette.

use std::fmt;

use crate::source::{SourceFile, Span};

/// What went wrong, coarsely; the message has the details.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The template text could not be lexed or parsed.
    Parse,
    /// Execution failed (type errors, nil pointers, missing keys, function errors).
    Exec,
    /// A deliberate failure raised by the template (`fail`, `required`): a function
    /// returned [`FuncError::Fail`](crate::template::FuncError::Fail).
    Fail,
    /// A named template does not exist (`no template "x" associated with template "y"`).
    NoTemplate,
    /// Recursion limits were hit.
    Recursion,
}

/// A template error with Go's message text plus its structured parts.
///
/// The parts live behind one box so that `Result<_, Error>` stays small on the hot
/// success path; fields read and write through `Deref` as if they were inline.
#[derive(Clone, Debug)]
pub struct Error(Box<ErrorParts>);

/// The parts of an [`Error`].
#[derive(Clone, Debug)]
pub struct ErrorParts {
    pub kind: ErrorKind,
    /// The message exactly as Go prints it (what `Display` shows).
    pub message: String,
    /// The name in the error's location: for execution errors the template whose
    /// *source text* holds the failing node (Go's `ParseName`, e.g. the file a
    /// `define` lives in); for parse errors the template being parsed.
    pub template: String,
    /// For execution errors, the template being executed (`executing "NAME"`),
    /// which for a `define` differs from [`Error::template`].
    pub executing: Option<String>,
    /// 1-based line of the location, when known.
    pub line: Option<usize>,
    /// Go's column: the byte offset within the line, counted from 0 (from the start
    /// of the text on the first line). Parse errors have none.
    pub col: Option<usize>,
    /// The node text (`.Values.a.b`, without the angle brackets) for execution errors.
    pub context: Option<String>,
    /// The message without any location prefix (`nil pointer evaluating interface {}.b`,
    /// `unclosed action`), which is Helm 4's last line.
    pub detail: String,
    /// Where in `source` the error points.
    pub span: Option<Span>,
    pub source: Option<SourceFile>,
    /// For `error calling NAME: ...` errors, the text of the function's own error
    /// (what Go wraps with `%w`). Helm 4 walks that chain when formatting.
    pub cause: Option<String>,
    /// The template error inside the function's error (an error inside `include`
    /// or `tpl`).
    pub inner: Option<Box<Error>>,
}

impl Error {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        let message = message.into();
        Error(Box::new(ErrorParts {
            kind,
            detail: message.clone(),
            message,
            template: String::new(),
            executing: None,
            line: None,
            col: None,
            context: None,
            span: None,
            source: None,
            cause: None,
            inner: None,
        }))
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

    /// `NAME:LINE:COL` (or `NAME:LINE` for parse errors), as Go prints locations.
    pub fn location(&self) -> Option<String> {
        let line = self.line?;
        Some(match self.col {
            Some(c) => format!("{}:{}:{}", self.template, line, c),
            None => format!("{}:{}", self.template, line),
        })
    }

    /// 1-based line and 1-based (byte) column of the span start in the source, for
    /// reporters; unlike [`Error::col`] this is the conventional editor column.
    pub fn editor_position(&self) -> Option<(usize, usize)> {
        let (src, span) = (self.source.as_ref()?, self.span?);
        Some(src.line_col(span.start as usize))
    }

    /// A miette report showing the source line with a caret under the span.
    pub fn to_report(&self) -> miette::Report {
        let diag = Diagnostic {
            message: self.message.clone(),
            src: self.source.as_ref().map(|s| s.to_named_source()),
            span: self.span.map(Into::into),
        };
        miette::Report::new(diag)
    }
}

impl std::ops::Deref for Error {
    type Target = ErrorParts;
    fn deref(&self) -> &ErrorParts {
        &self.0
    }
}

impl std::ops::DerefMut for Error {
    fn deref_mut(&mut self) -> &mut ErrorParts {
        &mut self.0
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

#[derive(Debug)]
struct Diagnostic {
    message: String,
    src: Option<miette::NamedSource<String>>,
    span: Option<miette::SourceSpan>,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Diagnostic {}

impl miette::Diagnostic for Diagnostic {
    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        self.src.as_ref().map(|s| s as &dyn miette::SourceCode)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        let span = self.span?;
        self.src.as_ref()?;
        Some(Box::new(std::iter::once(
            miette::LabeledSpan::new_with_span(Some("here".to_string()), span),
        )))
    }
}
