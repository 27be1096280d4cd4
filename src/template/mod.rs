//! Go `text/template`, reimplemented: lexer, parser, spanned AST and executor.
//!
//! Helm and Helmfile are Go `text/template` underneath, and stackproof must produce
//! their bytes exactly, so this engine follows Go's semantics rather than any Jinja-like
//! idea of templating: Go's truthiness, Go's comparison rules, Go's `fmt` printing and
//! Go's error texts. Behaviour that changed between Go versions is selected with a
//! [`LanguageLevel`](crate::template) option so one engine can imitate Helm 3 (Go 1.22)
//! and Helm 4 (newer Go).
//!
//! The pieces: `value` (what templates compute with), `registry` (the function table
//! and host services), `error` (the one error type).

pub mod error;
pub mod fmt;
pub mod registry;
pub mod value;

pub use error::{Error, ErrorKind};
pub use registry::{
    CallCtx, Engine, FuncDef, FuncError, FuncImpl, FuncResult, Host, Registry, Sig, Ty,
};
pub use value::{IntType, Kind, List, ListType, Map, MapType, Object, UintType, Value};
