//! Serialisation codecs shared by the function families and the chart and Helmfile
//! loaders: each reproduces a Go library's exact behaviour (texts, numbers, errors).

pub mod yaml;
