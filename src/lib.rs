//! stackproof: prove Helm charts and Helmfile stacks correct before they ship.
//!
//! Modules are in pipeline order and data flows one way: [`source`] (bytes and
//! spans) → [`template`] (Go text/template) → [`funcs`] (Sprig, Helm, Helmfile
//! functions) → [`chart`] (Helm chart rendering) → [`helmfile`] (stack rendering) →
//! [`matrix`] (cells of inputs) → [`rules`] (invariants) → [`report`] (printers) →
//! [`cli`] (the command line).

pub mod source;

pub mod template;

pub mod funcs;

pub mod chart;

pub mod helmfile;

pub mod matrix;

pub mod rules;

pub mod report;

pub mod cli;
