//! Rules as data: loading rule files, selecting objects on each layer (states,
//! values, manifests) and evaluating assertions into findings.
