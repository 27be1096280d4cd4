//! Serialisation codecs shared by the function families and the chart and Helmfile
//! loaders. Each reproduces a Go library's exact behaviour (texts, numbers, errors), so
//! that encoded text and decoding errors match the real tools byte for byte.

pub mod json;
pub mod yaml;
