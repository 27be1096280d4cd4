//! Provenance of rendered documents: each top-level key of each document is traced
//! to the template node that wrote it (from the execution trace, not a text search),
//! for literal text, `include` output, `{{template}}` calls into a define in another
//! file, `range` bodies and text after a deleted `<no value>`.

use std::path::Path;

use stackproof::chart::render::{render_path, Document, RenderOptions};
use stackproof::source::Vfs;

fn origins(doc: &Document) -> Vec<(String, String, usize, bool)> {
    doc.key_origins
        .iter()
        .map(|o| (o.key.clone(), o.file.clone(), o.line, o.literal))
        .collect()
}

fn o(key: &str, file: &str, line: usize, literal: bool) -> (String, String, usize, bool) {
    (key.into(), format!("prov/templates/{file}"), line, literal)
}

#[test]
fn top_level_keys_come_from_the_node_that_wrote_them() {
    let chart = Path::new(env!("CARGO_MANIFEST_DIR")).join("charts-under-test/charts/prov");
    let opts = RenderOptions {
        release_name: "rel".into(),
        ..RenderOptions::default()
    };
    let rendered = render_path(&chart, &opts, &Vfs::real()).expect("renders");
    let cm = rendered
        .documents()
        .iter()
        .find(|d| d.kind == "ConfigMap")
        .expect("configmap");
    assert_eq!(
        origins(cm),
        vec![
            o("apiVersion", "cm.yaml", 2, true),
            o("kind", "cm.yaml", 3, true),
            o("metadata", "cm.yaml", 4, false),
            o("data", "_helpers.tpl", 9, true),
            o("missing", "cm.yaml", 6, true),
            o("tier", "cm.yaml", 7, false),
        ]
    );
    // In the document's own template, `data` is the `{{template}}` call's line.
    let own: Vec<(&str, usize)> = cm.key_lines.iter().map(|(k, l)| (k.as_str(), *l)).collect();
    assert_eq!(
        own,
        vec![
            ("apiVersion", 2),
            ("kind", 3),
            ("metadata", 4),
            ("data", 5),
            ("missing", 6),
            ("tier", 7)
        ]
    );
    let secrets: Vec<&Document> = rendered
        .documents()
        .iter()
        .filter(|d| d.kind == "Secret")
        .collect();
    assert_eq!(secrets.len(), 2);
    for s in secrets {
        assert_eq!(
            origins(s),
            vec![
                o("apiVersion", "cm.yaml", 10, true),
                o("kind", "cm.yaml", 11, true),
                o("metadata", "cm.yaml", 12, true),
            ],
            "{}",
            s.name
        );
    }
}
