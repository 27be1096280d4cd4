//! Go `text/template`, reimplemented: lexer, parser, spanned AST and executor.
//!
//! Helm and Helmfile are Go `text/template` underneath, and stackproof must produce
//! their bytes exactly, so this engine follows Go's semantics rather than any Jinja-like
//! idea of templating: Go's truthiness, Go's comparison rules, Go's `fmt` printing and
//! Go's error texts. Behaviour that changed between Go versions is selected with a
//! [`LanguageLevel`] option so one engine can imitate Helm 3 (Go 1.22) and Helm 4
//! (newer Go).
//!
//! The pieces: `value` (what templates compute with), `registry` (the function table
//! and host services), `lexer`/`parser`/`ast` (text to a spanned tree), `exec` and
//! `builtins` (running a tree), `set` (a namespace of named templates, Go's
//! associated templates), `options`, and `error` (the one error type).
//!
//! Typical use:
//!
//! ```
//! use std::sync::Arc;
//! use stackproof::template::{Host, Options, Registry, TemplateSet, Value};
//!
//! let mut set = TemplateSet::new("gotpl", Arc::new(Registry::new()), Options::default());
//! set.parse("x.yaml", "{{ define \"n\" }}[{{ . }}]{{ end }}a: {{ template \"n\" .v }}").unwrap();
//! let data = stackproof::vmap! { "v" => 1.5 };
//! assert_eq!(set.execute("x.yaml", &data, &Host::default()).unwrap(), "a: [1.5]");
//! ```

pub mod ast;
pub mod builtins;
pub mod error;
pub(crate) mod exec;
pub mod fmt;
pub mod golit;
pub mod lexer;
pub mod options;
pub mod parser;
pub mod registry;
pub mod set;
pub mod value;

pub use error::{Error, ErrorKind};
pub use exec::MAX_EXEC_DEPTH;
pub use options::{LanguageLevel, MissingKey, Options};
pub use registry::{
    CallCtx, Engine, FuncDef, FuncError, FuncImpl, FuncResult, Host, Registry, Sig, Ty,
};
pub use set::{TemplateDef, TemplateSet};
pub use value::{IntType, Kind, List, ListType, Map, MapType, Object, UintType, Value};
