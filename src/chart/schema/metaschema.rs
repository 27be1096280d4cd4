//! The JSON Schema metaschemas Helm 4 checks a `values.schema.json` against,
//! each as one document the validator of `v4` can walk.
//!
//! The files under `metaschemas/` are the drafts' published metaschemas (as
//! santhosh-tekuri/jsonschema embeds them), with only the keywords that never
//! fail (`title`, `description`, `$comment`, `default`, `deprecated`) left out.
//! From 2019-09 on a draft's metaschema is split into vocabulary documents that
//! refer to each other by URL and back to the whole metaschema by
//! `$recursiveRef`/`$dynamicRef`. When a schema is checked against its own
//! draft, those dynamic references always land on the draft's root metaschema,
//! so [`bundle`] makes one document of each draft: the vocabularies go under
//! `$defs/__<name>`, references between them become pointers into that, and the
//! dynamic references become `$ref: "#"`. The validator then reports failures
//! through the same chain of `allOf`s and `$ref`s as the library does.

use std::sync::OnceLock;

use serde_json::{Map as JMap, Value as J};

const DRAFT4: &str = include_str!("metaschemas/draft-04.json");
const DRAFT6: &str = include_str!("metaschemas/draft-06.json");
const DRAFT7: &str = include_str!("metaschemas/draft-07.json");
const D2019: &str = include_str!("metaschemas/2019-09.json");
const D2019_VOCABS: [(&str, &str); 6] = [
    ("core", include_str!("metaschemas/2019-09-core.json")),
    (
        "applicator",
        include_str!("metaschemas/2019-09-applicator.json"),
    ),
    (
        "validation",
        include_str!("metaschemas/2019-09-validation.json"),
    ),
    (
        "meta-data",
        include_str!("metaschemas/2019-09-meta-data.json"),
    ),
    ("format", include_str!("metaschemas/2019-09-format.json")),
    ("content", include_str!("metaschemas/2019-09-content.json")),
];
const D2020: &str = include_str!("metaschemas/2020-12.json");
const D2020_VOCABS: [(&str, &str); 7] = [
    ("core", include_str!("metaschemas/2020-12-core.json")),
    (
        "applicator",
        include_str!("metaschemas/2020-12-applicator.json"),
    ),
    (
        "unevaluated",
        include_str!("metaschemas/2020-12-unevaluated.json"),
    ),
    (
        "validation",
        include_str!("metaschemas/2020-12-validation.json"),
    ),
    (
        "meta-data",
        include_str!("metaschemas/2020-12-meta-data.json"),
    ),
    (
        "format-annotation",
        include_str!("metaschemas/2020-12-format-annotation.json"),
    ),
    ("content", include_str!("metaschemas/2020-12-content.json")),
];

/// The URL Helm 4 names the metaschema of `draft` by.
pub(super) fn url(draft: u32) -> &'static str {
    match draft {
        4 => "http://json-schema.org/draft-04/schema#",
        6 => "http://json-schema.org/draft-06/schema#",
        7 => "http://json-schema.org/draft-07/schema#",
        2019 => "https://json-schema.org/draft/2019-09/schema#",
        _ => "https://json-schema.org/draft/2020-12/schema#",
    }
}

/// The metaschema of `draft` as one document (see the module docs).
pub(super) fn bundle(draft: u32) -> &'static J {
    static BUNDLES: OnceLock<[J; 5]> = OnceLock::new();
    let all = BUNDLES.get_or_init(|| {
        [
            parse(DRAFT4),
            parse(DRAFT6),
            parse(DRAFT7),
            bundled(D2019, &D2019_VOCABS),
            bundled(D2020, &D2020_VOCABS),
        ]
    });
    match draft {
        4 => &all[0],
        6 => &all[1],
        7 => &all[2],
        2019 => &all[3],
        _ => &all[4],
    }
}

/// The files are the project's own and checked by a test, so a parse failure is
/// a build defect; an empty schema (which accepts everything) stands in for it.
fn parse(text: &str) -> J {
    serde_json::from_str(text).unwrap_or(J::Bool(true))
}

fn bundled(root: &str, vocabs: &[(&str, &str)]) -> J {
    let mut root = parse(root);
    rewrite(&mut root, None);
    let mut defs = JMap::new();
    for (name, text) in vocabs {
        let mut doc = parse(text);
        rewrite(&mut doc, Some(name));
        defs.insert(format!("__{name}"), doc);
    }
    if let J::Object(o) = &mut root {
        o.insert("$defs".to_string(), J::Object(defs));
    }
    root
}

/// Makes the references of one schema (of the root document when `vocab` is
/// `None`) point into the bundle. Only keyword positions are rewritten: the
/// names in `properties` (`$ref`, `$dynamicRef`…) are data.
fn rewrite(node: &mut J, vocab: Option<&str>) {
    let J::Object(o) = node else {
        return;
    };
    let dynamic = o
        .remove("$dynamicRef")
        .or_else(|| o.remove("$recursiveRef"));
    if dynamic.is_some() {
        o.insert("$ref".to_string(), J::String("#".to_string()));
    } else if let Some(J::String(r)) = o.get_mut("$ref") {
        *r = target(r, vocab);
    }
    for (k, v) in o.iter_mut() {
        match (k.as_str(), v) {
            (
                "properties" | "$defs" | "definitions" | "patternProperties" | "dependentSchemas"
                | "dependencies",
                J::Object(m),
            ) => m.values_mut().for_each(|s| rewrite(s, vocab)),
            ("allOf" | "anyOf" | "oneOf" | "prefixItems" | "items", J::Array(a)) => {
                a.iter_mut().for_each(|s| rewrite(s, vocab))
            }
            (
                "items"
                | "additionalItems"
                | "additionalProperties"
                | "contains"
                | "propertyNames"
                | "not"
                | "if"
                | "then"
                | "else"
                | "unevaluatedItems"
                | "unevaluatedProperties"
                | "contentSchema",
                s,
            ) => rewrite(s, vocab),
            _ => {}
        }
    }
}

/// `meta/core#/$defs/x` (from anywhere), or `#/$defs/x` inside vocabulary
/// `core`, as a pointer into the bundle.
fn target(r: &str, vocab: Option<&str>) -> String {
    let (doc, frag) = r.split_once('#').unwrap_or((r, ""));
    let owner = match doc.strip_prefix("meta/") {
        Some(name) => Some(name),
        None if doc.is_empty() => vocab,
        None => return r.to_string(),
    };
    match owner {
        Some(name) => format!("#/$defs/__{name}{frag}"),
        None => format!("#{frag}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_file_parses_and_every_reference_resolves() {
        for text in [DRAFT4, DRAFT6, DRAFT7, D2019, D2020]
            .into_iter()
            .chain(D2019_VOCABS.iter().map(|v| v.1))
            .chain(D2020_VOCABS.iter().map(|v| v.1))
        {
            assert!(serde_json::from_str::<J>(text).is_ok());
        }
        fn refs<'a>(v: &'a J, out: &mut Vec<&'a str>) {
            match v {
                J::Object(o) => {
                    if let Some(J::String(r)) = o.get("$ref") {
                        out.push(r);
                    }
                    o.values().for_each(|x| refs(x, out));
                }
                J::Array(a) => a.iter().for_each(|x| refs(x, out)),
                _ => {}
            }
        }
        for draft in [4, 6, 7, 2019, 2020] {
            let b = bundle(draft);
            let mut found = Vec::new();
            refs(b, &mut found);
            assert!(!found.is_empty());
            fn schemas_only(v: &J) -> bool {
                match v {
                    J::Object(o) => o.iter().all(|(k, x)| match (k.as_str(), x) {
                        ("properties", J::Object(m)) => m
                            .values()
                            .all(|s| (s.is_object() || s.is_boolean()) && schemas_only(s)),
                        _ => schemas_only(x),
                    }),
                    J::Array(a) => a.iter().all(schemas_only),
                    _ => true,
                }
            }
            assert!(schemas_only(b), "{draft}");
            for r in found {
                assert!(r.starts_with('#'), "{draft}: {r}");
                assert!(super::super::resolve(b, r).is_some(), "{draft}: {r}");
            }
        }
    }
}
