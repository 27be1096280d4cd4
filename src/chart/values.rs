//! The user's values: `-f` files and the `--set` family, merged in Helm's fixed
//! order (`pkg/cli/values`): all files first (later files win, maps merge
//! recursively, everything else replaces), then `--set-json`, `--set`,
//! `--set-string`, `--set-file`, `--set-literal` — regardless of the order on the
//! command line.

use std::path::{Path, PathBuf};

use super::strvals::{self, Mode};
use super::yamlio;
use super::HelmVersion;
use crate::source::Vfs;
use crate::template::{Map, Value};

/// One `-f` source: a file to read, or an already parsed map (for callers such as
/// the Helmfile layer that build values in memory).
#[derive(Clone)]
pub enum ValuesSource {
    File(PathBuf),
    /// A parsed values map with a display name for errors.
    Map {
        name: String,
        values: Map,
    },
    /// YAML text with a display name.
    Text {
        name: String,
        text: String,
    },
}

impl std::fmt::Debug for ValuesSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ValuesSource::File(p) => write!(f, "File({})", p.display()),
            ValuesSource::Map { name, values } => {
                write!(f, "Map({name}: {:?})", Value::Map(values.clone()))
            }
            ValuesSource::Text { name, .. } => write!(f, "Text({name})"),
        }
    }
}

/// The value flags of `helm template`.
#[derive(Clone, Debug, Default)]
pub struct ValueOptions {
    pub files: Vec<ValuesSource>,
    pub set: Vec<String>,
    pub set_string: Vec<String>,
    pub set_file: Vec<String>,
    pub set_json: Vec<String>,
    pub set_literal: Vec<String>,
}

/// Helm's `mergeMaps`: a new top-level map; nested maps merged recursively into new
/// maps; anything else replaced.
pub fn merge_maps(a: &Map, b: &Map) -> Map {
    let out = a.shallow_copy();
    for (k, v) in b.entries() {
        if let Value::Map(bm) = &v {
            if let Some(Value::Map(am)) = out.get(&k) {
                out.insert(k, Value::Map(merge_maps(&am, bm)));
                continue;
            }
        }
        out.insert(k, v);
    }
    out
}

/// A values file as each Helm reads it: Helm 3 the first YAML document, Helm 4
/// every document merged (naming the failing step in its errors).
fn decode_file(helm: HelmVersion, text: &str) -> Result<Map, String> {
    match helm {
        HelmVersion::V3 => yamlio::decode_values_map(text),
        HelmVersion::V4 => yamlio::decode_values_docs(text),
    }
}

/// Helm reads `-` (`-f -`, `--set-file key=-`) from standard input. It is read
/// once and kept, so every render of this process (a matrix renders the same
/// options many times) sees the same text; Helm, reading twice in one run, would
/// find the stream empty the second time.
fn stdin_bytes() -> Result<Vec<u8>, String> {
    static STDIN: std::sync::OnceLock<Result<Vec<u8>, String>> = std::sync::OnceLock::new();
    STDIN
        .get_or_init(|| {
            let mut buf = Vec::new();
            std::io::Read::read_to_end(&mut std::io::stdin(), &mut buf)
                .map(|_| buf)
                .map_err(|e| format!("read /dev/stdin: {e}"))
        })
        .clone()
}

fn read(vfs: &Vfs, path: &Path) -> Result<Vec<u8>, String> {
    if path == Path::new("-") {
        return stdin_bytes();
    }
    vfs.read(path)
        .map(|b| b.to_vec())
        .map_err(|_| format!("open {}: no such file or directory", path.display()))
}

impl ValueOptions {
    /// `Options.MergeValues`. Errors are Helm's texts.
    pub fn merge(&self, vfs: &Vfs, helm: HelmVersion) -> Result<Map, String> {
        let mut base = Map::new();
        for src in &self.files {
            let current = match src {
                ValuesSource::File(p) => {
                    let bytes = read(vfs, p)?;
                    // Bytes that are not UTF-8 reach the YAML reader, which refuses them.
                    let text = crate::template::gostr::from_slice(&bytes);
                    decode_file(helm, &text)
                        .map_err(|e| format!("failed to parse {}: {e}", p.display()))?
                }
                ValuesSource::Text { name, text } => {
                    decode_file(helm, text).map_err(|e| format!("failed to parse {name}: {e}"))?
                }
                ValuesSource::Map { values, .. } => values.deep_copy(),
            };
            base = merge_maps(&base, &current);
        }
        for v in &self.set_json {
            strvals::parse_into(v, &base, Mode::Json)
                .map_err(|_| format!("failed parsing --set-json data {v}"))?;
        }
        for v in &self.set {
            strvals::parse_into(v, &base, Mode::Typed)
                .map_err(|e| format!("failed parsing --set data: {e}"))?;
        }
        for v in &self.set_string {
            strvals::parse_into(v, &base, Mode::String)
                .map_err(|e| format!("failed parsing --set-string data: {e}"))?;
        }
        for v in &self.set_file {
            let reader = |p: &str| -> Result<Value, String> {
                let bytes = read(vfs, Path::new(p))?;
                Ok(Value::str(
                    crate::template::gostr::from_slice(&bytes).as_ref(),
                ))
            };
            strvals::parse_into(v, &base, Mode::File(&reader))
                .map_err(|e| format!("failed parsing --set-file data: {e}"))?;
        }
        for v in &self.set_literal {
            strvals::parse_into(v, &base, Mode::Literal)
                .map_err(|e| format!("failed parsing --set-literal data: {e}"))?;
        }
        Ok(base)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_order_regardless_of_flags() {
        let opts = ValueOptions {
            files: vec![ValuesSource::Text {
                name: "a.yaml".into(),
                text: r#"{"num": 1000000, "m": {"a": 1}}"#.into(),
            }],
            set: vec!["num=1,m.b=2".into()],
            set_string: vec!["s=1".into()],
            ..Default::default()
        };
        let m = opts.merge(&Vfs::real(), HelmVersion::V3).unwrap();
        assert_eq!(
            format!("{:?}", Value::Map(m)),
            r#"{"m": {"a": float64(1.0), "b": int64(2)}, "num": int64(1), "s": "1"}"#
        );
    }

    #[test]
    fn errors() {
        let opts = ValueOptions {
            files: vec![ValuesSource::Text {
                name: "l.yaml".into(),
                text: "[1]".into(),
            }],
            ..Default::default()
        };
        assert_eq!(
            opts.merge(&Vfs::real(), HelmVersion::V3).map(Value::Map).unwrap_err(),
            "failed to parse l.yaml: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type map[string]interface {}"
        );
        let opts = ValueOptions {
            set: vec!["a".into()],
            ..Default::default()
        };
        assert_eq!(
            opts.merge(&Vfs::real(), HelmVersion::V3)
                .map(Value::Map)
                .unwrap_err(),
            r#"failed parsing --set data: key "a" has no value"#
        );
    }
}
