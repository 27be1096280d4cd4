//! Turning rendered output text (a `helm template` stream) into [`Manifest`]s that keep
//! their text, their `# Source:` template and the output line of every field.
//!
//! Every renderer ends with a YAML stream, so this is shared: the fixture renderer reads
//! it from files and the native chart renderer produces it in memory. Documents are
//! read with the yaml.v2 codec Helm itself uses, so whatever Helm accepts (and types)
//! reads the same here.

use serde_json::Value as Json;

use std::sync::Arc;

use super::convert::decode_yaml_value;
use super::model::{LazyOrigins, Manifest, RenderError};
use crate::funcs::codec::yaml::YamlError;
use crate::source::{Location, Memo};

/// A document's decoded body. Cells of a matrix render most documents identically,
/// so each distinct text is decoded once per process.
fn decode_document(text: &str) -> Result<Arc<Json>, YamlError> {
    static DOCS: Memo<String, Result<Arc<Json>, YamlError>> = Memo::new(16384);
    DOCS.get_or_compute(text, || decode_yaml_value(text).map(Arc::new))
}

/// Splits a YAML stream on `---` lines and parses each document. `file` names the
/// stream in locations; `first_line` is the line of `text`'s first line in that file.
pub fn parse_stream(text: &str, file: &str) -> Result<Vec<Manifest>, RenderError> {
    let mut out = Vec::new();
    for chunk in split_documents(text) {
        let body_text = chunk.text;
        let decoded = match decode_document(body_text) {
            Ok(d) => d,
            Err(e) => {
                let line = e
                    .line
                    .map_or(chunk.first_line, |l| l + chunk.first_line - 1);
                return Err(RenderError::new(format!(
                    "{file}:{line}: rendered output is not valid YAML: {}",
                    e.message
                ))
                .at(Location {
                    file: file.to_string(),
                    line,
                    column: 1,
                }));
            }
        };
        match &*decoded {
            Json::Null => continue,
            Json::Object(_) => {}
            other => {
                return Err(RenderError::new(format!(
                    "{file}:{}: a rendered document is not a mapping but {}",
                    chunk.first_line,
                    match other {
                        Json::Array(_) => "a list",
                        _ => "a scalar",
                    }
                )))
            }
        }
        let body = decoded;
        let text: std::sync::Arc<str> = body_text.into();
        let s = |p: &str| body.pointer(p).and_then(|v| v.as_str()).map(str::to_string);
        out.push(Manifest {
            kind: s("/kind").unwrap_or_default(),
            api_version: s("/apiVersion").unwrap_or_default(),
            name: s("/metadata/name").unwrap_or_default(),
            namespace: s("/metadata/namespace"),
            template: chunk.source.map(|src| Location {
                file: src,
                line: 0,
                column: 0,
            }),
            origins: LazyOrigins::from_yaml(text.clone(), file, chunk.first_line),
            text,
            body,
        });
    }
    Ok(out)
}

struct Chunk<'a> {
    text: &'a str,
    first_line: usize,
    source: Option<String>,
}

/// Documents between `---` lines, with the `# Source:` comment each one carries.
fn split_documents<'t>(text: &'t str) -> Vec<Chunk<'t>> {
    let mut chunks = Vec::new();
    let mut start = 0usize;
    let mut start_line = 1usize;
    let mut line_no = 1usize;
    let mut pos = 0usize;
    let push = |chunks: &mut Vec<Chunk<'t>>, s: usize, e: usize, l: usize| {
        let t = &text[s..e];
        if t.trim().is_empty() {
            return;
        }
        let source = t
            .lines()
            .find_map(|l| l.strip_prefix("# Source: "))
            .map(|s| s.trim().to_string());
        chunks.push(Chunk {
            text: t,
            first_line: l,
            source,
        });
    };
    while pos < text.len() {
        let end = text[pos..].find('\n').map_or(text.len(), |i| pos + i + 1);
        let line = text[pos..end].trim_end_matches(['\n', '\r']);
        if line == "---" || line.starts_with("--- ") {
            push(&mut chunks, start, pos, start_line);
            start = end;
            start_line = line_no + 1;
        }
        pos = end;
        line_no += 1;
    }
    push(&mut chunks, start, text.len(), start_line);
    chunks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_and_tracks_lines() {
        let text = "---\n# Source: c/templates/a.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\n# Source: c/templates/b.yaml\nkind: Secret\nmetadata:\n  name: b\n  namespace: ns\n";
        let m = parse_stream(text, "out.yaml").unwrap();
        assert_eq!(m.len(), 2);
        assert_eq!(m[0].kind, "ConfigMap");
        assert_eq!(
            m[0].template.as_ref().map(|t| t.file.as_str()),
            Some("c/templates/a.yaml")
        );
        assert_eq!(m[1].namespace.as_deref(), Some("ns"));
        assert_eq!(m[1].origins.get()["$['metadata']['name']"].line, 11);
    }

    #[test]
    fn bad_yaml_is_a_render_error() {
        let e = parse_stream("a: [\n", "x.yaml").unwrap_err();
        assert!(e.message.contains("x.yaml:"), "{}", e.message);
    }
}
