//! Helmfile stacks: state files, environments, releases and their values, rendered
//! the way helmfile 0.166 does, into a typed model the rule engine consumes.
