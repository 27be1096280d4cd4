//! Schema resources embedded in `values.schema.json` under their own `$id`.
//!
//! Both Helms' libraries index every subschema that carries an `$id` (resolved
//! against the ids above it) and resolve a `$ref` such as `"n.json"` or
//! `"n.json#/properties/x"` to that subschema, inside the same document. The
//! validators here follow JSON pointers within the document only, so
//! [`localize`] first rewrites each reference that names an embedded resource
//! into the pointer it stands for; anything else (remote documents, anchors) is
//! left as written. A schema without embedded ids is used as it is.

use std::borrow::Cow;

use serde_json::Value as J;

use super::v4::walk_subschemas;

/// The base every schema document is read under.
const DOCUMENT: &str = "file:///values.schema.json";

/// `reference` resolved against `base` (RFC 3986, as far as ids use it).
fn resolve(base: &str, reference: &str) -> String {
    let has_scheme = reference.split_once(':').is_some_and(|(s, _)| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    });
    if has_scheme {
        return reference.to_string();
    }
    if reference.is_empty() {
        return base.to_string();
    }
    let (scheme, rest) = base.split_once("://").unwrap_or(("", base));
    let (authority, path) = rest.split_once('/').map_or((rest, ""), |(a, p)| (a, p));
    if let Some(r) = reference.strip_prefix("//") {
        return format!("{scheme}://{r}");
    }
    let joined = if let Some(abs) = reference.strip_prefix('/') {
        abs.to_string()
    } else {
        let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
        if dir.is_empty() {
            reference.to_string()
        } else {
            format!("{dir}/{reference}")
        }
    };
    let mut out: Vec<&str> = Vec::new();
    for seg in joined.split('/') {
        match seg {
            "." => {}
            ".." => {
                out.pop();
            }
            s => out.push(s),
        }
    }
    format!("{scheme}://{authority}/{}", out.join("/"))
}

fn id_of(node: &J, draft: u32) -> Option<&str> {
    let key = if draft == 4 { "id" } else { "$id" };
    let id = node.get(key)?.as_str()?;
    Some(id.split('#').next().unwrap_or_default())
}

/// `schema` with references to embedded resources made JSON pointers (see the
/// module docs).
pub(super) fn localize(schema: &J, draft: u32) -> Cow<'_, J> {
    // Most schemas have no id below the root: they are not walked at all.
    fn nested_id(v: &J, key: &str) -> bool {
        let hit = |x: &J| x.get(key).is_some() || nested_id(x, key);
        match v {
            J::Object(o) => o.values().any(hit),
            J::Array(a) => a.iter().any(hit),
            _ => false,
        }
    }
    if !nested_id(schema, if draft == 4 { "id" } else { "$id" }) {
        return Cow::Borrowed(schema);
    }
    let root =
        id_of(schema, draft).map_or_else(|| DOCUMENT.to_string(), |id| resolve(DOCUMENT, id));
    // Each embedded resource: its absolute id and its pointer.
    let mut resources: Vec<(String, String)> = Vec::new();
    walk_subschemas(
        schema,
        "",
        draft,
        &root,
        &mut |ptr, node, base| match id_of(node, draft).filter(|_| !ptr.is_empty()) {
            Some(id) => {
                let abs = resolve(base, id);
                resources.push((abs.clone(), ptr.to_string()));
                abs
            }
            None => base.clone(),
        },
    );
    if resources.is_empty() {
        return Cow::Borrowed(schema);
    }
    let mut rewrites: Vec<(String, String)> = Vec::new();
    walk_subschemas(schema, "", draft, &root, &mut |ptr, node, base| {
        let here = match id_of(node, draft).filter(|_| !ptr.is_empty()) {
            Some(id) => resolve(base, id),
            None => base.clone(),
        };
        if let Some(r) = node.get("$ref").and_then(J::as_str) {
            let (doc, frag) = r.split_once('#').unwrap_or((r, ""));
            let pointer_like = frag.is_empty() || frag.starts_with('/');
            if !doc.is_empty() && pointer_like {
                let abs = resolve(&here, doc);
                if let Some((_, at)) = resources.iter().find(|(id, _)| *id == abs) {
                    rewrites.push((ptr.to_string(), format!("#{at}{frag}")));
                }
            }
        }
        here
    });
    if rewrites.is_empty() {
        return Cow::Borrowed(schema);
    }
    let mut out = schema.clone();
    for (ptr, target) in rewrites {
        if let Some(J::Object(o)) = out.pointer_mut(&ptr) {
            o.insert("$ref".to_string(), J::String(target));
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_as_ids_use_it() {
        let b = "http://example.com/a/s.json";
        assert_eq!(resolve(b, "n.json"), "http://example.com/a/n.json");
        assert_eq!(resolve(b, "../n.json"), "http://example.com/n.json");
        assert_eq!(resolve(b, "/x/n.json"), "http://example.com/x/n.json");
        assert_eq!(resolve(b, "urn:x"), "urn:x");
        assert_eq!(resolve(DOCUMENT, "n.json"), "file:///n.json");
    }

    #[test]
    fn references_to_embedded_resources_become_pointers() {
        let s: J = serde_json::from_str(
            r##"{"$id": "http://e.com/s.json",
                "$defs": {"n": {"$id": "n.json", "type": "string",
                                "properties": {"x": {"type": "integer"}}}},
                "properties": {"a": {"$ref": "n.json"},
                               "b": {"$ref": "http://e.com/n.json#/properties/x"},
                               "c": {"$ref": "http://other.com/n.json"},
                               "d": {"$ref": "#/$defs/n"}}}"##,
        )
        .unwrap_or_default();
        let l = localize(&s, 2020);
        let r = |p: &str| {
            l.pointer(p)
                .and_then(J::as_str)
                .unwrap_or_default()
                .to_string()
        };
        assert_eq!(r("/properties/a/$ref"), "#/$defs/n");
        assert_eq!(r("/properties/b/$ref"), "#/$defs/n/properties/x");
        assert_eq!(r("/properties/c/$ref"), "http://other.com/n.json");
        assert_eq!(r("/properties/d/$ref"), "#/$defs/n");
        let plain: J = serde_json::from_str(r#"{"properties": {"a": {"$ref": "x.json"}}}"#)
            .unwrap_or_default();
        assert!(matches!(localize(&plain, 2020), Cow::Borrowed(_)));
    }
}
