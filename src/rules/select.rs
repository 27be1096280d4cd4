//! Selecting the objects a rule looks at: the subjects of a layer (releases, release
//! values, rendered documents) filtered by kind/name/namespace/release/labels/`where`,
//! and the nodes a JSONPath picks inside each.
//!
//! Selection also gathers what made parts of the layer unavailable (a failed layer, a
//! failed release, an expression that errored), because the engine must turn every such
//! gap into a finding rather than let a rule pass over it.

use jsonpath_rust::parser::model::JpQuery;
use serde_json::Value as Json;

use super::expr::{self, Expr};
use super::model::{Layer, Patterns, SelectorSpec};
use crate::matrix::model::{
    labels_of, LazyOrigins, Manifest, ReleaseId, RenderError, RenderedCell, ResourceRef,
};

/// `*` (any run) and `?` (one character) glob matching over whole strings.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let (mut pi, mut ti) = (0, 0);
    let (mut star, mut mark) = (None, 0);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    while pi < p.len() && p[pi] == '*' {
        pi += 1;
    }
    pi == p.len()
}

/// A compiled JSONPath.
pub struct JsonPath {
    pub source: String,
    query: JpQuery,
}

impl std::fmt::Debug for JsonPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("JsonPath").field(&self.source).finish()
    }
}

impl JsonPath {
    pub fn compile(source: &str) -> Result<JsonPath, String> {
        let query = jsonpath_rust::parser::parse_json_path(source).map_err(|e| {
            // The parser's message is a multi-line drawing; its last line says what
            // was expected, which is what a one-line error needs.
            let text = e.to_string();
            let why = text
                .lines()
                .rev()
                .map(|l| l.trim().trim_start_matches("= ").trim())
                .find(|l| !l.is_empty() && *l != "|")
                .unwrap_or("syntax error")
                .to_string();
            format!("invalid JSONPath `{source}`: {why}")
        })?;
        Ok(JsonPath {
            source: source.to_string(),
            query,
        })
    }

    /// Matches with their normalized paths (`$['a'][0]`).
    pub fn find<'a>(&self, doc: &'a Json) -> Result<Vec<(String, &'a Json)>, String> {
        jsonpath_rust::query::js_path_process(&self.query, doc)
            .map(|refs| refs.into_iter().map(|r| (r.path, r.val)).collect())
            .map_err(|e| format!("JSONPath `{}` failed: {e}", self.source))
    }
}

/// A compiled selector.
#[derive(Debug, Default)]
pub struct Selector {
    pub kind: Vec<String>,
    pub api_version: Vec<String>,
    pub name: Vec<String>,
    pub namespace: Vec<String>,
    pub release: Vec<String>,
    pub labels: Vec<(String, String)>,
    pub where_: Option<Expr>,
    pub path: Option<JsonPath>,
    pub optional: bool,
}

/// A selector compile error and the field it concerns.
pub type SelectorError = (String, &'static str);

impl Selector {
    pub fn compile(spec: &SelectorSpec, layer: Layer) -> Result<Selector, SelectorError> {
        let list = |p: &Option<Patterns>| -> Vec<String> {
            p.as_ref()
                .map(|p| p.list().into_iter().map(str::to_string).collect())
                .unwrap_or_default()
        };
        if layer != Layer::Manifests {
            if spec.kind.is_some() {
                return Err((
                    format!(
                        "`kind` selects rendered documents; this rule is on the {} layer",
                        layer.as_str()
                    ),
                    "kind",
                ));
            }
            if spec.api_version.is_some() {
                return Err((
                    format!(
                        "`api-version` selects rendered documents; this rule is on the {} layer",
                        layer.as_str()
                    ),
                    "api-version",
                ));
            }
        }
        let where_ = match &spec.where_ {
            Some(src) => {
                Some(Expr::compile(src).map_err(|e| (format!("invalid `where`: {e}"), "where"))?)
            }
            None => None,
        };
        let path = match &spec.path {
            Some(src) => Some(JsonPath::compile(src).map_err(|e| (e, "path"))?),
            None => None,
        };
        Ok(Selector {
            kind: list(&spec.kind),
            api_version: list(&spec.api_version),
            name: list(&spec.name),
            namespace: list(&spec.namespace),
            release: list(&spec.release),
            labels: spec
                .labels
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            where_,
            path,
            optional: spec.optional,
        })
    }

    fn release_matches(&self, id: &ReleaseId) -> bool {
        self.release.is_empty()
            || self.release.iter().any(|p| {
                glob_match(p, &id.name) || glob_match(p, &format!("{}/{}", id.namespace, id.name))
            })
    }

    fn any(patterns: &[String], text: &str) -> bool {
        patterns.is_empty() || patterns.iter().any(|p| glob_match(p, text))
    }

    fn labels_match(&self, labels: &std::collections::BTreeMap<String, String>) -> bool {
        self.labels
            .iter()
            .all(|(k, pat)| labels.get(k).is_some_and(|v| glob_match(pat, v)))
    }
}

/// One object on a layer.
#[derive(Clone, Debug)]
pub struct Subject<'a> {
    pub release: Option<&'a ReleaseId>,
    pub resource: Option<ResourceRef>,
    /// The effective namespace: the document's, else its release's.
    pub namespace: String,
    pub doc: &'a Json,
    pub origins: Option<&'a LazyOrigins>,
    pub manifest: Option<&'a Manifest>,
}

/// A node a JSONPath matched (or the whole object when the selector has no path).
#[derive(Clone, Debug)]
pub struct Node<'a> {
    pub subject: usize,
    pub path: String,
    pub value: &'a Json,
}

/// Something that kept part of a layer from being looked at.
#[derive(Clone, Debug)]
pub struct Gap {
    pub release: Option<ReleaseId>,
    pub subject: Option<usize>,
    pub message: String,
}

/// What a selector picked in one cell.
#[derive(Clone, Debug, Default)]
pub struct Selection<'a> {
    pub subjects: Vec<Subject<'a>>,
    pub nodes: Vec<Node<'a>>,
    /// Subjects in which the path matched nothing.
    pub missing: Vec<usize>,
    pub has_path: bool,
    /// The selector's JSONPath as written.
    pub path_source: Option<String>,
    /// The layer (release = None) or releases that failed to render.
    pub failures: Vec<(Option<ReleaseId>, RenderError)>,
    /// `where`/JSONPath evaluation errors.
    pub gaps: Vec<Gap>,
}

impl<'a> Selection<'a> {
    pub fn nodes_of(&self, subject: usize) -> impl Iterator<Item = &Node<'a>> {
        self.nodes.iter().filter(move |n| n.subject == subject)
    }
}

/// Selects on `layer` of `cell`.
pub fn select<'a>(cell: &'a RenderedCell, layer: Layer, sel: &Selector) -> Selection<'a> {
    let mut out = Selection {
        has_path: sel.path.is_some(),
        path_source: sel.path.as_ref().map(|p| p.source.clone()),
        ..Selection::default()
    };
    let mut candidates: Vec<Subject<'a>> = Vec::new();
    match layer {
        Layer::States => match &cell.states {
            Err(e) => out.failures.push((None, e.clone())),
            Ok(states) => {
                for (i, r) in states.releases.iter().enumerate() {
                    if !sel.release_matches(&r.id)
                        || !Selector::any(&sel.name, &r.id.name)
                        || !Selector::any(&sel.namespace, &r.id.namespace)
                        || !sel.labels_match(&r.labels)
                    {
                        continue;
                    }
                    candidates.push(Subject {
                        release: Some(&r.id),
                        resource: None,
                        namespace: r.id.namespace.clone(),
                        doc: &states.docs[i],
                        origins: states.origins.get(i),
                        manifest: None,
                    });
                }
            }
        },
        Layer::Values => match &cell.values_layer {
            Err(e) => out.failures.push((None, e.clone())),
            Ok(vl) => {
                for (id, r) in &vl.releases {
                    if !sel.release_matches(id)
                        || !Selector::any(&sel.namespace, &id.namespace)
                        || !Selector::any(&sel.name, &id.name)
                        || !sel.labels_match(&cell.release_labels(id))
                    {
                        continue;
                    }
                    match r {
                        Err(e) => out.failures.push((Some(id.clone()), e.clone())),
                        Ok(v) => candidates.push(Subject {
                            release: Some(id),
                            resource: None,
                            namespace: id.namespace.clone(),
                            doc: &v.values,
                            origins: Some(&v.origins),
                            manifest: None,
                        }),
                    }
                }
            }
        },
        Layer::Manifests => match &cell.manifests {
            Err(e) => out.failures.push((None, e.clone())),
            Ok(ml) => {
                for (id, r) in &ml.releases {
                    if !sel.release_matches(id) {
                        continue;
                    }
                    let docs = match r {
                        Err(e) => {
                            out.failures.push((Some(id.clone()), e.clone()));
                            continue;
                        }
                        Ok(d) => d,
                    };
                    for m in docs {
                        let ns = m.namespace.clone().unwrap_or_else(|| id.namespace.clone());
                        if (!sel.kind.is_empty() && !sel.kind.iter().any(|k| k == &m.kind))
                            || !Selector::any(&sel.api_version, &m.api_version)
                            || !Selector::any(&sel.name, &m.name)
                            || !Selector::any(&sel.namespace, &ns)
                            || !sel.labels_match(&labels_of(&m.body))
                        {
                            continue;
                        }
                        candidates.push(Subject {
                            release: Some(id),
                            resource: Some(m.resource()),
                            namespace: ns,
                            doc: &m.body,
                            origins: Some(&m.origins),
                            manifest: Some(m),
                        });
                    }
                }
            }
        },
    }

    let values_ctx = &cell.values;
    for s in candidates {
        if let Some(w) = &sel.where_ {
            let ctx = subject_context(&s, values_ctx, &cell.expect);
            match w.truth(&expr::value(&ctx)) {
                Ok(true) => {}
                Ok(false) => continue,
                Err(e) => {
                    out.gaps.push(Gap {
                        release: s.release.cloned(),
                        subject: None,
                        message: format!("cannot evaluate `where: {}`: {e}", w.source()),
                    });
                    continue;
                }
            }
        }
        let idx = out.subjects.len();
        match &sel.path {
            None => out.nodes.push(Node {
                subject: idx,
                path: "$".into(),
                value: s.doc,
            }),
            Some(p) => match p.find(s.doc) {
                Ok(found) if found.is_empty() => out.missing.push(idx),
                Ok(found) => {
                    for (path, value) in found {
                        out.nodes.push(Node {
                            subject: idx,
                            path,
                            value,
                        });
                    }
                }
                Err(e) => out.gaps.push(Gap {
                    release: s.release.cloned(),
                    subject: Some(idx),
                    message: e,
                }),
            },
        }
        out.subjects.push(s);
    }
    out
}

/// The variables a `where` expression sees for one subject.
pub fn subject_context(s: &Subject<'_>, values: &Json, expect: &Json) -> Json {
    serde_json::json!({
        "doc": s.doc,
        "values": values,
        "expect": expect,
        "release": s.release.map(|r| serde_json::json!({"name": r.name, "namespace": r.namespace})),
        "kind": s.resource.as_ref().map(|r| r.kind.clone()),
        "name": s.resource.as_ref().map(|r| r.name.clone()).or(s.release.map(|r| r.name.clone())),
        "namespace": s.namespace,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob_match("*-ca", "nvcf-ca"));
        assert!(glob_match("a?c", "abc"));
        assert!(glob_match("*", ""));
        assert!(!glob_match("*-ca", "nvcf-cab"));
        assert!(glob_match("a*b*c", "aXbYbZc"));
    }

    #[test]
    fn jsonpath_paths_are_normalized() {
        let p = JsonPath::compile("$.spec.dnsNames[*]").unwrap();
        let doc = serde_json::json!({"spec": {"dnsNames": ["a", "b"]}});
        let found = p.find(&doc).unwrap();
        assert_eq!(found[1].0, "$['spec']['dnsNames'][1]");
    }

    #[test]
    fn bad_jsonpath_is_a_compile_error() {
        assert!(JsonPath::compile("$.[").is_err());
    }
}
