//! Errors of stack rendering: Helmfile's exact message chain plus where it happened.
//!
//! Helmfile reports failures as a chain of Go error wrappers (`in ./helmfile.yaml:
//! error during helmfile.yaml.part.1 parsing: template: stringTemplate:5:35: ...`),
//! and users compare that text with what helmfile prints, so [`HelmfileError`]'s
//! `Display` is that chain exactly. Separately it keeps what a compiler-style report
//! needs: the file, the template error with its span, and for YAML errors in a
//! rendered `.gotmpl` the rendered line next to the template line that produced it.

use std::fmt;
use std::path::PathBuf;

/// What kind of failure, coarsely.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The selected environment is not defined in a state (Helmfile skips that state).
    UndefinedEnvironment,
    /// A template failed (parse, execution, `fail`, `required`).
    Template,
    /// A rendered document is not valid YAML, or not a valid state.
    Yaml,
    /// A file (state, values, environment values) is missing or unreadable.
    File,
    /// `needs` problems (undefined release, cycle).
    Needs,
    /// The chart could not be found offline or failed to render.
    Chart,
    /// Anything else (bad flags, unsupported features).
    Other,
}

/// A rendered text next to the template it came from, for YAML errors.
#[derive(Clone, Debug)]
pub struct RenderedContext {
    pub file: PathBuf,
    /// The rendered text's name in Helmfile's messages (`helmfile.yaml.gotmpl.part.1`).
    pub part: String,
    /// 1-based line in the rendered text.
    pub rendered_line: usize,
    pub rendered_text: String,
    /// 1-based line in the template source file, when it can be traced.
    pub template_line: Option<usize>,
    pub template_text: Option<String>,
}

/// A stack rendering failure.
#[derive(Clone, Debug)]
pub struct HelmfileError {
    pub kind: ErrorKind,
    /// The message exactly as helmfile prints it (without the final newline).
    pub message: String,
    /// The state or values file the failure is in.
    pub file: Option<PathBuf>,
    /// 1-based line in `file` (for `.gotmpl` files, a line of the template source).
    pub line: Option<usize>,
    /// The template error underneath, with its source span.
    pub template: Option<Box<crate::template::Error>>,
    pub rendered: Option<Box<RenderedContext>>,
}

impl HelmfileError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> HelmfileError {
        HelmfileError {
            kind,
            message: message.into(),
            file: None,
            line: None,
            template: None,
            rendered: None,
        }
    }

    pub fn other(message: impl Into<String>) -> HelmfileError {
        HelmfileError::new(ErrorKind::Other, message)
    }

    /// Go's `fmt.Errorf("<prefix>: %v", err)`.
    pub fn wrap(mut self, prefix: impl fmt::Display) -> HelmfileError {
        self.message = format!("{prefix}: {}", self.message);
        self
    }

    pub fn with_file(mut self, file: impl Into<PathBuf>) -> HelmfileError {
        if self.file.is_none() {
            self.file = Some(file.into());
        }
        self
    }

    /// Locates the error at a line of a file, unless it is located already (the
    /// innermost location is the most precise one).
    pub fn at(mut self, file: impl Into<PathBuf>, line: usize) -> HelmfileError {
        if self.file.is_none() && self.line.is_none() {
            self.file = Some(file.into());
            self.line = (line > 0).then_some(line);
        }
        self
    }

    /// Locates the error at the entry of the release it is about.
    pub fn at_release(self, r: &super::spec::ReleaseSpec) -> HelmfileError {
        match &r.origin {
            Some((file, line)) => self.at(file.clone(), *line),
            None => self,
        }
    }

    /// `file:line` (or just the file) for compiler-style reports, relative to `cwd`
    /// when the file is under it.
    pub fn location(&self, cwd: &std::path::Path) -> Option<String> {
        let file = self.file.as_ref()?;
        let shown = file.strip_prefix(cwd).unwrap_or(file).display().to_string();
        Some(match self.line {
            Some(l) => format!("{shown}:{l}"),
            None => shown,
        })
    }

    /// The lines a command prints under helmfile's message: where the error is and,
    /// for YAML errors in a rendered template, the rendered line and the template
    /// line that produced it.
    pub fn detail_lines(&self, cwd: &std::path::Path) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(loc) = self.location(cwd) {
            out.push(format!("  --> {loc}"));
        }
        if let Some(r) = &self.rendered {
            let template = r.template_line.zip(r.template_text.as_ref());
            match template {
                // A plain YAML line (no template actions): show it once.
                Some((_, t)) if *t == r.rendered_text => {
                    out.push(format!("   | {t}"));
                }
                _ => {
                    out.push(format!(
                        "   | rendered {} line {}: {}",
                        r.part, r.rendered_line, r.rendered_text
                    ));
                    if let Some((l, t)) = template {
                        out.push(format!("   | template line {l}: {t}"));
                    }
                }
            }
        }
        out
    }
}

impl fmt::Display for HelmfileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for HelmfileError {}

pub type Result<T> = std::result::Result<T, HelmfileError>;
