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
//! # API in brief
//!
//! * [`TemplateSet::new`]`(name, registry, options)` makes an empty namespace; `name`
//!   is Go's root template name (`gotpl` in Helm), used in `no template "x"
//!   associated with template "gotpl"` and as the name `tpl` text is parsed under.
//! * [`TemplateSet::parse`]`(name, text)` / [`TemplateSet::parse_source`] add a
//!   template and everything it `define`s; a later definition replaces an earlier
//!   one unless its body is empty, so the caller controls precedence by parse order.
//! * [`TemplateSet::execute`]`(name, &data, &host)` runs one template with `data` as
//!   `.` and `$`; `execute_into` appends to an existing `String`. Parse once,
//!   execute many times; `TemplateSet` is `Clone` (cheap: trees are shared) and
//!   `Send + Sync`.
//! * [`Options`]: [`MissingKey`] (`Default`/`Zero`/`Error`), [`LanguageLevel`]
//!   (`Go122` for Helm 3 / Helmfile, `Go127` for Helm 4), delimiters.
//! * Functions come from a [`Registry`]; registry functions shadow Go's builtins
//!   (see [`builtins`]). Context functions get a [`CallCtx`] whose [`Engine`] offers
//!   `include` (run a named template of the executing set), `tpl` (parse into a
//!   clone and run), `current_template` and per-execution `counters`.
//! * [`Error`]: `Display` is Go's text; fields give kind, location (`template`,
//!   `line`, Go's `col`), `executing`, node `context`, bare `detail`, `span` and
//!   `source` for miette ([`Error::to_report`]), `cause` (the wrapped function error
//!   text) and `inner` (the template error inside `include`/`tpl`).
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
pub mod gostr;
pub mod lexer;
pub mod options;
pub mod parser;
pub mod registry;
pub mod set;
pub mod stack;
pub mod value;

pub use error::{Error, ErrorKind, ErrorParts};
pub use exec::{Emit, MAX_EXEC_DEPTH};
pub use options::{LanguageLevel, MissingKey, Options};
pub use registry::{
    CallCtx, Clock, Engine, FuncDef, FuncError, FuncImpl, FuncResult, Host, Registry, Seed, Sig, Ty,
};
pub use set::{TemplateDef, TemplateSet};
pub use value::{BasicPtr, IntType, Kind, List, ListType, Map, MapType, Object, UintType, Value};
