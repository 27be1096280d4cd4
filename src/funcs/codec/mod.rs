//! Serialisation formats implemented the way the Go libraries behind Sprig, Helm and
//! Helmfile implement them, so that encoded text and decoding errors match byte for byte.

pub mod json;
