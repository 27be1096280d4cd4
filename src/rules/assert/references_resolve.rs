//! `references-resolve`: every Issuer/ClusterIssuer a Certificate names, and every Secret
//! and ConfigMap a workload mounts or reads, is rendered somewhere in the cell or
//! declared as existing outside it.

use std::collections::BTreeSet;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value as Json;

use super::{params, schema_of, Assertion, Ctx, KindDef, Violation};
use crate::matrix::yaml::{YNode, YamlError};

pub(super) static KIND: KindDef = KindDef {
    name: "references-resolve",
    summary: "Certificate issuers and mounted/referenced Secrets and ConfigMaps exist in the render or are declared external.",
    what: "For each selected manifest: a cert-manager Certificate's `spec.issuerRef` must name an \
Issuer in its namespace or a ClusterIssuer rendered anywhere in the cell (issuers of other API \
groups must be declared external); a Pod template (Pod, Deployment, StatefulSet, DaemonSet, \
ReplicaSet, Job, CronJob) may only mount or read Secrets and ConfigMaps (volumes, projected \
sources, `env[].valueFrom`, `envFrom`, `imagePullSecrets`) that are rendered in its namespace, \
produced by a Certificate's `spec.secretName` there, or declared pre-existing. References marked \
`optional: true` are skipped. It looks at whole objects (a `select.path` is not used). Declarations use `Kind/namespace/name` (`Kind/name` for \
cluster-scoped kinds); `*` globs are allowed.",
    why: "A missing Secret or issuer renders fine and fails at runtime: Pods stuck in \
ContainerCreating, Certificates never Ready. Switching a mode (certManager to existingSecret) \
is exactly when a reference loses its target.",
    example: r#"rules:
  - id: references-resolve
    title: Issuers, Secrets and ConfigMaps referenced by the stack exist
    layer: manifests
    assert:
      - references-resolve:
          external:
            - ClusterIssuer/letsencrypt
          pre-existing:
            - Secret/nvcf/operator-quic-tls
"#,
    empty_ok: false,
    missing_ok: false,
    on_failed_layer: false,
    schema: schema_of::<Option<Params>>,
    build,
};

/// Things that exist outside the render.
#[derive(Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
#[schemars(rename = "ReferencesResolveParams")]
struct Params {
    /// Issuers provided outside the stack: `ClusterIssuer/name`, `Issuer/namespace/name`.
    #[serde(default)]
    external: Vec<String>,
    /// Secrets and ConfigMaps created outside the stack: `Secret/namespace/name`.
    #[serde(default)]
    pre_existing: Vec<String>,
}

struct ReferencesResolve {
    declared: Vec<String>,
}

fn build(node: &YNode) -> Result<Box<dyn Assertion>, YamlError> {
    let p: Params = params::<Option<Params>>(node)?.unwrap_or_default();
    let mut declared = Vec::new();
    for d in p.external.iter().chain(&p.pre_existing) {
        if d.split('/').count() < 2 || d.split('/').any(str::is_empty) {
            return Err(YamlError {
                message: format!("`{d}` is not `Kind/namespace/name` or `Kind/name`"),
                pos: Some(node.pos),
            });
        }
        declared.push(d.clone());
    }
    Ok(Box::new(ReferencesResolve { declared }))
}

/// `Kind/namespace/name`, or `Kind/name` when cluster-scoped.
fn key(kind: &str, ns: Option<&str>, name: &str) -> String {
    match ns {
        Some(ns) => format!("{kind}/{ns}/{name}"),
        None => format!("{kind}/{name}"),
    }
}

const CERT_MANAGER_GROUP: &str = "cert-manager.io";

/// The Pod spec inside a workload, and its JSONPath.
fn pod_spec<'a>(kind: &str, doc: &'a Json) -> Option<(&'a Json, &'static str)> {
    match kind {
        "Pod" => doc.get("spec").map(|s| (s, "$['spec']")),
        "Deployment" | "StatefulSet" | "DaemonSet" | "ReplicaSet" | "Job" => doc
            .pointer("/spec/template/spec")
            .map(|s| (s, "$['spec']['template']['spec']")),
        "CronJob" => doc
            .pointer("/spec/jobTemplate/spec/template/spec")
            .map(|s| (s, "$['spec']['jobTemplate']['spec']['template']['spec']")),
        _ => None,
    }
}

struct Ref {
    kind: &'static str,
    name: String,
    path: String,
}

fn is_optional(v: &Json) -> bool {
    v.get("optional").and_then(Json::as_bool) == Some(true)
}

fn str_at<'a>(v: &'a Json, k: &str) -> Option<&'a str> {
    v.get(k).and_then(Json::as_str)
}

/// Every Secret/ConfigMap a Pod spec refers to.
fn pod_refs(spec: &Json, base: &str) -> Vec<Ref> {
    let mut out = Vec::new();
    let arr = |v: &Json, k: &str| -> Vec<Json> {
        v.get(k).and_then(Json::as_array).cloned().unwrap_or_default()
    };
    for (i, vol) in arr(spec, "volumes").iter().enumerate() {
        let vp = format!("{base}['volumes'][{i}]");
        if let Some(s) = vol.get("secret") {
            if let (Some(n), false) = (str_at(s, "secretName"), is_optional(s)) {
                out.push(Ref { kind: "Secret", name: n.into(), path: format!("{vp}['secret']['secretName']") });
            }
        }
        if let Some(c) = vol.get("configMap") {
            if let (Some(n), false) = (str_at(c, "name"), is_optional(c)) {
                out.push(Ref { kind: "ConfigMap", name: n.into(), path: format!("{vp}['configMap']['name']") });
            }
        }
        if let Some(sources) = vol.pointer("/projected/sources").and_then(Json::as_array) {
            for (j, src) in sources.iter().enumerate() {
                let sp = format!("{vp}['projected']['sources'][{j}]");
                for (field, kind) in [("secret", "Secret"), ("configMap", "ConfigMap")] {
                    if let Some(s) = src.get(field) {
                        if let (Some(n), false) = (str_at(s, "name"), is_optional(s)) {
                            out.push(Ref { kind, name: n.into(), path: format!("{sp}['{field}']['name']") });
                        }
                    }
                }
            }
        }
    }
    for (i, s) in arr(spec, "imagePullSecrets").iter().enumerate() {
        if let Some(n) = str_at(s, "name") {
            out.push(Ref { kind: "Secret", name: n.into(), path: format!("{base}['imagePullSecrets'][{i}]['name']") });
        }
    }
    for group in ["initContainers", "containers", "ephemeralContainers"] {
        for (ci, c) in arr(spec, group).iter().enumerate() {
            let cp = format!("{base}['{group}'][{ci}]");
            for (ei, e) in arr(c, "env").iter().enumerate() {
                for (field, kind) in [("secretKeyRef", "Secret"), ("configMapKeyRef", "ConfigMap")] {
                    if let Some(r) = e.get("valueFrom").and_then(|v| v.get(field)) {
                        if let (Some(n), false) = (str_at(r, "name"), is_optional(r)) {
                            out.push(Ref { kind, name: n.into(), path: format!("{cp}['env'][{ei}]['valueFrom']['{field}']['name']") });
                        }
                    }
                }
            }
            for (ei, e) in arr(c, "envFrom").iter().enumerate() {
                for (field, kind) in [("secretRef", "Secret"), ("configMapRef", "ConfigMap")] {
                    if let Some(r) = e.get(field) {
                        if let (Some(n), false) = (str_at(r, "name"), is_optional(r)) {
                            out.push(Ref { kind, name: n.into(), path: format!("{cp}['envFrom'][{ei}]['{field}']['name']") });
                        }
                    }
                }
            }
        }
    }
    out
}

impl ReferencesResolve {
    fn declared(&self, k: &str) -> bool {
        self.declared.iter().any(|d| crate::rules::select::glob_match(d, k))
    }
}

impl Assertion for ReferencesResolve {
    fn check(&self, cx: &Ctx<'_, '_>) -> Vec<Violation> {
        // What the whole cell renders, not just the selection.
        let mut rendered: BTreeSet<String> = BTreeSet::new();
        if let Ok(ml) = &cx.cell.manifests {
            for (id, m) in ml.documents() {
                let ns = m.namespace.clone().unwrap_or_else(|| id.namespace.clone());
                match m.kind.as_str() {
                    "ClusterIssuer" => {
                        rendered.insert(key("ClusterIssuer", None, &m.name));
                    }
                    "Certificate" => {
                        rendered.insert(key("Certificate", Some(&ns), &m.name));
                        if let Some(s) = m.body.pointer("/spec/secretName").and_then(Json::as_str) {
                            rendered.insert(key("Secret", Some(&ns), s));
                        }
                    }
                    kind => {
                        rendered.insert(key(kind, Some(&ns), &m.name));
                    }
                }
            }
        }
        let mut out = Vec::new();
        for (i, s) in cx.sel.subjects.iter().enumerate() {
            let Some(res) = &s.resource else { continue };
            let doc = s.doc;
            let ns = s.namespace.as_str();
            if res.kind == "Certificate" && res.api_version.starts_with(CERT_MANAGER_GROUP) {
                let Some(issuer) = doc.pointer("/spec/issuerRef") else {
                    out.push(Violation::subject(i, format!("{res} has no spec.issuerRef")));
                    continue;
                };
                let name = str_at(issuer, "name").unwrap_or_default();
                let kind = str_at(issuer, "kind").unwrap_or("Issuer");
                let group = str_at(issuer, "group").unwrap_or(CERT_MANAGER_GROUP);
                let k = if kind == "ClusterIssuer" {
                    key(kind, None, name)
                } else {
                    key(kind, Some(ns), name)
                };
                let in_render = group == CERT_MANAGER_GROUP && rendered.contains(&k);
                if !in_render && !self.declared(&k) {
                    out.push(Violation {
                        subject: Some(i),
                        path: Some("$['spec']['issuerRef']['name']".into()),
                        value: Some(Json::String(name.into())),
                        message: format!(
                            "{res} is issued by {k}, which is neither rendered in this cell nor declared external"
                        ),
                        related: Vec::new(),
                    });
                }
                continue;
            }
            let Some((spec, base)) = pod_spec(&res.kind, doc) else {
                continue;
            };
            for r in pod_refs(spec, base) {
                let k = key(r.kind, Some(ns), &r.name);
                if !rendered.contains(&k) && !self.declared(&k) {
                    out.push(Violation {
                        subject: Some(i),
                        path: Some(r.path),
                        value: Some(Json::String(r.name.clone())),
                        message: format!(
                            "{res} references {k}, which is neither rendered in this cell nor declared pre-existing"
                        ),
                        related: Vec::new(),
                    });
                }
            }
        }
        out
    }
}
