//! Helmfile stacks: state files, environments, releases and their values, rendered
//! the way helmfile 0.166 does, into a typed model the rule engine consumes.

pub mod charts;
pub mod dag;
pub mod env;
pub mod gomerge;
pub mod list;
pub mod paths;
pub mod seams;
pub mod selector;
pub mod setvals;
pub mod spec;
pub mod tmpl;
pub mod ynode;
