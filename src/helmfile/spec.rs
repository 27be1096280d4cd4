//! The typed Helmfile state (`ReleaseSetSpec`, `ReleaseSpec`, ...) and its strict
//! decoding from a YAML node tree, field names and Go type names as in helmfile
//! 0.166 (`pkg/state/state.go`, `types.go`, `environment.go`).
//!
//! Decoding follows yaml.v2 into Go structs: scalars land in `string` fields as their
//! source text (`version: 1.10` is `"1.10"`), `*bool` fields take YAML 1.1 booleans,
//! unknown keys and wrongly-typed nodes become `line N: ...` errors (all of them, in
//! document order), and an explicit `null` leaves a field at its zero value. Fields
//! typed `any` in Go keep their [`Value`].

use std::collections::BTreeMap;

use super::ynode::{YKind, YNode};
use crate::template::Value;

/// `line N: message` errors collected while decoding one document.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DecodeErrors(pub Vec<(usize, String)>);

impl DecodeErrors {
    fn push(&mut self, line: usize, msg: String) {
        self.0.push((line, msg));
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// yaml.v2's `*yaml.TypeError` text.
    pub fn message(&self) -> String {
        let mut s = "yaml: unmarshal errors:".to_string();
        for (line, m) in &self.0 {
            s.push_str(&format!("\n  line {line}: {m}"));
        }
        s
    }
}

/// `releases[].set` / `setTemplate` entries.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SetValue {
    pub name: String,
    pub value: String,
    pub file: String,
    pub values: Vec<String>,
}

/// `inherit:` entries.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Inherit {
    pub template: String,
    pub except: Vec<String>,
}

/// One release (or release template).
#[derive(Clone, Debug, Default)]
pub struct ReleaseSpec {
    pub chart: String,
    pub chart_path: String,
    pub directory: String,
    pub version: String,
    pub verify: Option<bool>,
    pub keyring: String,
    pub enable_dns: Option<bool>,
    pub devel: Option<bool>,
    pub wait: Option<bool>,
    pub wait_for_jobs: Option<bool>,
    pub timeout: Option<i64>,
    pub recreate_pods: Option<bool>,
    pub force: Option<bool>,
    pub installed: Option<bool>,
    pub atomic: Option<bool>,
    pub cleanup_on_fail: Option<bool>,
    pub history_max: Option<i64>,
    pub condition: String,
    pub create_namespace: Option<bool>,
    pub disable_open_api_validation: Option<bool>,
    pub disable_validation: Option<bool>,
    pub disable_validation_on_install: Option<bool>,
    pub missing_file_handler: Option<String>,
    pub needs: Vec<String>,
    pub hooks: Vec<Value>,
    pub name: String,
    pub namespace: String,
    /// `None` when the field is absent (Go nil map), which matters for merging.
    pub labels: Option<BTreeMap<String, String>>,
    /// Strings are values file paths; maps are inline values.
    pub values: Vec<Value>,
    pub secrets: Vec<Value>,
    pub set_values: Vec<SetValue>,
    pub values_template: Vec<Value>,
    pub set_values_template: Vec<SetValue>,
    pub api_versions: Vec<String>,
    pub kube_version: String,
    pub env_values: Vec<SetValue>,
    pub values_path_prefix: String,
    pub kube_context: String,
    pub insecure_skip_tls_verify: bool,
    pub verify_template: Option<String>,
    pub wait_template: Option<String>,
    pub installed_template: Option<String>,
    pub dependencies: Vec<Value>,
    pub json_patches: Vec<Value>,
    pub strategic_merge_patches: Vec<Value>,
    pub transformers: Vec<Value>,
    pub adopt: Vec<String>,
    pub force_go_getter: bool,
    pub force_namespace: String,
    pub skip_deps: Option<bool>,
    pub post_renderer: Option<String>,
    pub post_renderer_args: Vec<String>,
    pub cascade: Option<String>,
    pub suppress_output_line_regex: Vec<String>,
    pub inherit: Vec<Inherit>,
    pub suppress_diff: Option<bool>,
    pub delete_wait: Option<bool>,
    pub delete_timeout: Option<i64>,
    /// Line of the release in its rendered document (0 when unknown).
    pub line: usize,
    /// The state file the entry is written in and its line there (the template
    /// line for `.gotmpl` states), for located errors.
    pub origin: Option<(std::path::PathBuf, usize)>,
}

impl ReleaseSpec {
    /// `installed` unset or true.
    pub fn desired(&self) -> bool {
        self.installed.unwrap_or(true)
    }

    pub fn labels_or_empty(&self) -> BTreeMap<String, String> {
        self.labels.clone().unwrap_or_default()
    }
}

/// `environments.<name>`.
#[derive(Clone, Debug, Default)]
pub struct EnvironmentSpec {
    pub values: Vec<Value>,
    pub secrets: Vec<String>,
    pub kube_context: String,
    pub missing_file_handler: Option<String>,
}

/// `helmfiles:` entries (a path string or a map).
#[derive(Clone, Debug, Default)]
pub struct SubHelmfileSpec {
    pub path: String,
    /// `None` when absent (inherit the parent's selectors in v0 mode).
    pub selectors: Option<Vec<String>>,
    pub selectors_inherited: bool,
    pub values: Vec<Value>,
}

/// `repositories:` entries.
#[derive(Clone, Debug, Default)]
pub struct RepositorySpec {
    pub name: String,
    pub url: String,
    pub oci: bool,
    pub other: BTreeMap<String, Value>,
}

/// `helmDefaults:`.
#[derive(Clone, Debug, Default)]
pub struct HelmSpec {
    pub kube_context: String,
    pub args: Vec<String>,
    pub devel: bool,
    pub create_namespace: Option<bool>,
    pub wait: bool,
    pub wait_for_jobs: bool,
    pub timeout: i64,
    pub skip_deps: bool,
    pub other: BTreeMap<String, Value>,
}

/// One state document (`ReleaseSetSpec`).
#[derive(Clone, Debug, Default)]
pub struct ReleaseSetSpec {
    pub helm_binary: String,
    pub kustomize_binary: String,
    /// Top-level `values:` (defaults for state values).
    pub default_values: Vec<Value>,
    pub environments: BTreeMap<String, EnvironmentSpec>,
    /// Whether `environments:` was present with entries (Go: non-empty map).
    pub bases: Vec<String>,
    pub helm_defaults: HelmSpec,
    pub helmfiles: Vec<SubHelmfileSpec>,
    pub deprecated_context: String,
    pub deprecated_releases: Vec<ReleaseSpec>,
    pub override_kube_context: String,
    pub override_namespace: String,
    pub override_chart: String,
    pub repositories: Vec<RepositorySpec>,
    pub common_labels: BTreeMap<String, String>,
    pub releases: Vec<ReleaseSpec>,
    pub api_versions: Vec<String>,
    pub kube_version: String,
    pub hooks: Vec<Value>,
    pub templates: BTreeMap<String, ReleaseSpec>,
    pub missing_file_handler: String,
    pub lock_file: String,
}

// ---- decoding -----------------------------------------------------------------------

/// The Go type of a field of a struct decoded only for its errors.
#[derive(Clone, Copy)]
enum Field {
    String,
    Strings,
    Bool,
    StringMap,
}

/// `event.Hook`'s YAML fields.
const HOOK_FIELDS: &[(&str, Field)] = &[
    ("name", Field::String),
    ("events", Field::Strings),
    ("command", Field::String),
    ("kubectlApply", Field::StringMap),
    ("args", Field::Strings),
    ("showlogs", Field::Bool),
];

/// `state.Dependency`'s YAML fields.
const DEPENDENCY_FIELDS: &[(&str, Field)] = &[
    ("chart", Field::String),
    ("version", Field::String),
    ("alias", Field::String),
];

struct Dec<'e> {
    errs: &'e mut DecodeErrors,
}

impl Dec<'_> {
    fn type_err(&mut self, n: &YNode, go_type: &str) {
        self.errs.push(
            n.line,
            format!("cannot unmarshal {} into {go_type}", n.describe()),
        );
    }

    fn string(&mut self, n: &YNode) -> String {
        match &n.kind {
            YKind::Null => String::new(),
            YKind::Scalar(s) => s.text.clone(),
            _ => {
                self.type_err(n, "string");
                String::new()
            }
        }
    }

    fn opt_string(&mut self, n: &YNode) -> Option<String> {
        match &n.kind {
            YKind::Null => None,
            _ => Some(self.string(n)),
        }
    }

    fn bool(&mut self, n: &YNode) -> bool {
        match &n.kind {
            YKind::Null => false,
            YKind::Scalar(s) => match s.value {
                Value::Bool(b) => b,
                _ => {
                    self.type_err(n, "bool");
                    false
                }
            },
            _ => {
                self.type_err(n, "bool");
                false
            }
        }
    }

    fn opt_bool(&mut self, n: &YNode) -> Option<bool> {
        match &n.kind {
            YKind::Null => None,
            _ => Some(self.bool(n)),
        }
    }

    fn int(&mut self, n: &YNode) -> i64 {
        match &n.kind {
            YKind::Null => 0,
            YKind::Scalar(s) => match s.value {
                Value::Int(i, _) => i,
                Value::Uint(u, _) if u <= i64::MAX as u64 => u as i64,
                // yaml.v2 takes any float up to MaxInt64 (as a float: 2^63), NaN and
                // +Inf failing that test, and converts it as Go does on amd64:
                // truncated, and MinInt64 for anything out of range (-Inf included).
                Value::Float(f) if f <= i64::MAX as f64 => {
                    if f >= i64::MIN as f64 && f < i64::MAX as f64 {
                        f.trunc() as i64
                    } else {
                        i64::MIN
                    }
                }
                _ => {
                    self.type_err(n, "int");
                    0
                }
            },
            _ => {
                self.type_err(n, "int");
                0
            }
        }
    }

    fn opt_int(&mut self, n: &YNode) -> Option<i64> {
        match &n.kind {
            YKind::Null => None,
            _ => Some(self.int(n)),
        }
    }

    fn strings(&mut self, n: &YNode) -> Vec<String> {
        match &n.kind {
            YKind::Null => Vec::new(),
            YKind::Seq(items) => items.iter().map(|i| self.string(i)).collect(),
            _ => {
                self.type_err(n, "[]string");
                Vec::new()
            }
        }
    }

    fn values(&mut self, n: &YNode) -> Vec<Value> {
        match &n.kind {
            YKind::Null => Vec::new(),
            YKind::Seq(items) => items.iter().map(YNode::to_value).collect(),
            _ => {
                self.type_err(n, "[]interface {}");
                Vec::new()
            }
        }
    }

    fn string_map(&mut self, n: &YNode) -> Option<BTreeMap<String, String>> {
        match &n.kind {
            YKind::Null => None,
            YKind::Map(entries) => Some(
                entries
                    .iter()
                    .map(|(k, v)| (k.text.clone(), self.string(v)))
                    .collect(),
            ),
            _ => {
                self.type_err(n, "map[string]string");
                None
            }
        }
    }

    fn value_map(&mut self, n: &YNode, go_type: &str) -> BTreeMap<String, Value> {
        match &n.kind {
            YKind::Null => BTreeMap::new(),
            YKind::Map(entries) => entries
                .iter()
                .map(|(k, v)| (k.text.clone(), v.to_value()))
                .collect(),
            _ => {
                self.type_err(n, go_type);
                BTreeMap::new()
            }
        }
    }

    fn set_values(&mut self, n: &YNode) -> Vec<SetValue> {
        let YKind::Seq(items) = &n.kind else {
            if !matches!(n.kind, YKind::Null) {
                self.type_err(n, "[]state.SetValue");
            }
            return Vec::new();
        };
        let mut out = Vec::new();
        for item in items {
            let mut sv = SetValue::default();
            match &item.kind {
                YKind::Null => {}
                YKind::Map(entries) => {
                    for (k, v) in entries {
                        match k.text.as_str() {
                            "name" => sv.name = self.string(v),
                            "value" => sv.value = self.string(v),
                            "file" => sv.file = self.string(v),
                            "values" => sv.values = self.strings(v),
                            other => self.unknown(k.line, other, "state.SetValue"),
                        }
                    }
                }
                _ => self.type_err(item, "state.SetValue"),
            }
            out.push(sv);
        }
        out
    }

    /// A list of Go structs that stackproof carries along as plain values
    /// (`[]event.Hook`, `[]state.Dependency`): each item is decoded as yaml.v2
    /// decodes the struct, for its errors (unknown fields, wrong types), and kept as
    /// a map of its known fields as Go holds them (a scalar in a `string` field is its
    /// source text: `1.50` stays `1.50`).
    fn struct_list(&mut self, n: &YNode, go_type: &str, fields: &[(&str, Field)]) -> Vec<Value> {
        let items = match &n.kind {
            YKind::Null => return Vec::new(),
            YKind::Seq(items) => items,
            _ => {
                self.type_err(n, &format!("[]{go_type}"));
                return Vec::new();
            }
        };
        let mut out = Vec::new();
        for item in items {
            let m = crate::template::Map::new();
            match &item.kind {
                YKind::Null => {}
                YKind::Map(entries) => {
                    for (k, v) in entries {
                        let value = match fields.iter().find(|(name, _)| *name == k.text) {
                            Some((_, Field::String)) => Value::str(self.string(v)),
                            Some((_, Field::Strings)) => Value::string_list(self.strings(v)),
                            Some((_, Field::Bool)) => Value::Bool(self.bool(v)),
                            Some((_, Field::StringMap)) => {
                                let sm = crate::template::Map::with_type(
                                    crate::template::MapType::String,
                                );
                                for (mk, mv) in self.string_map(v).unwrap_or_default() {
                                    sm.insert(mk, Value::str(mv));
                                }
                                Value::Map(sm)
                            }
                            None => {
                                self.unknown(k.line, &k.text, go_type);
                                continue;
                            }
                        };
                        m.insert(k.text.clone(), value);
                    }
                }
                _ => self.type_err(item, go_type),
            }
            out.push(Value::Map(m));
        }
        out
    }

    fn unknown(&mut self, line: usize, key: &str, go_type: &str) {
        self.errs
            .push(line, format!("field {key} not found in type {go_type}"));
    }

    fn inherit(&mut self, n: &YNode) -> Vec<Inherit> {
        let one = |d: &mut Dec<'_>, item: &YNode| -> Option<Inherit> {
            let entries = item.as_map()?;
            let mut i = Inherit::default();
            for (k, v) in entries {
                match k.text.as_str() {
                    "template" => i.template = d.string(v),
                    "except" => i.except = d.strings(v),
                    other => d.unknown(k.line, other, "state.Inherit"),
                }
            }
            Some(i)
        };
        match &n.kind {
            YKind::Null => Vec::new(),
            // `Inherits` unmarshals itself: a list first, and when that fails the
            // deprecated single map, whose failure on a list is the one error left.
            YKind::Seq(items) => {
                let mut errs = DecodeErrors::default();
                let mut list = Dec { errs: &mut errs };
                let decoded: Vec<Inherit> = items
                    .iter()
                    .map(|item| match one(&mut list, item) {
                        Some(i) => i,
                        None => {
                            if !matches!(item.kind, YKind::Null) {
                                list.type_err(item, "state.Inherit");
                            }
                            Inherit::default()
                        }
                    })
                    .collect();
                if errs.is_empty() {
                    decoded
                } else {
                    self.type_err(n, "state.Inherit");
                    Vec::new()
                }
            }
            // The deprecated single-map form (helmfile prints a warning to stderr).
            YKind::Map(_) => one(self, n).into_iter().collect(),
            _ => {
                self.type_err(n, "state.Inherit");
                Vec::new()
            }
        }
    }

    fn release(&mut self, n: &YNode, go_type: &str) -> ReleaseSpec {
        let mut r = ReleaseSpec {
            line: n.line,
            ..Default::default()
        };
        let entries = match &n.kind {
            YKind::Map(e) => e,
            YKind::Null => return r,
            _ => {
                self.type_err(n, go_type);
                return r;
            }
        };
        for (k, v) in entries {
            match k.text.as_str() {
                "chart" => r.chart = self.string(v),
                "chartPath" => r.chart_path = self.string(v),
                "directory" => r.directory = self.string(v),
                "version" => r.version = self.string(v),
                "verify" => r.verify = self.opt_bool(v),
                "keyring" => r.keyring = self.string(v),
                "enableDNS" => r.enable_dns = self.opt_bool(v),
                "devel" => r.devel = self.opt_bool(v),
                "wait" => r.wait = self.opt_bool(v),
                "waitForJobs" => r.wait_for_jobs = self.opt_bool(v),
                "timeout" => r.timeout = self.opt_int(v),
                "recreatePods" => r.recreate_pods = self.opt_bool(v),
                "force" => r.force = self.opt_bool(v),
                "installed" => r.installed = self.opt_bool(v),
                "atomic" => r.atomic = self.opt_bool(v),
                "cleanupOnFail" => r.cleanup_on_fail = self.opt_bool(v),
                "historyMax" => r.history_max = self.opt_int(v),
                "condition" => r.condition = self.string(v),
                "createNamespace" => r.create_namespace = self.opt_bool(v),
                "disableOpenAPIValidation" => r.disable_open_api_validation = self.opt_bool(v),
                "disableValidation" => r.disable_validation = self.opt_bool(v),
                "disableValidationOnInstall" => r.disable_validation_on_install = self.opt_bool(v),
                "missingFileHandler" => r.missing_file_handler = self.opt_string(v),
                "needs" => r.needs = self.strings(v),
                "hooks" => r.hooks = self.struct_list(v, "event.Hook", HOOK_FIELDS),
                "name" => r.name = self.string(v),
                "namespace" => r.namespace = self.string(v),
                "labels" => r.labels = self.string_map(v),
                "values" => r.values = self.values(v),
                "secrets" => r.secrets = self.values(v),
                "set" => r.set_values = self.set_values(v),
                "valuesTemplate" => r.values_template = self.values(v),
                "setTemplate" => r.set_values_template = self.set_values(v),
                "apiVersions" => r.api_versions = self.strings(v),
                "kubeVersion" => r.kube_version = self.string(v),
                "env" => r.env_values = self.set_values(v),
                "valuesPathPrefix" => r.values_path_prefix = self.string(v),
                "kubeContext" => r.kube_context = self.string(v),
                "insecureSkipTLSVerify" => r.insecure_skip_tls_verify = self.bool(v),
                "verifyTemplate" => r.verify_template = self.opt_string(v),
                "waitTemplate" => r.wait_template = self.opt_string(v),
                "installedTemplate" => r.installed_template = self.opt_string(v),
                "dependencies" => {
                    r.dependencies = self.struct_list(v, "state.Dependency", DEPENDENCY_FIELDS)
                }
                "jsonPatches" => r.json_patches = self.values(v),
                "strategicMergePatches" => r.strategic_merge_patches = self.values(v),
                "transformers" => r.transformers = self.values(v),
                "adopt" => r.adopt = self.strings(v),
                "forceGoGetter" => r.force_go_getter = self.bool(v),
                "forceNamespace" => r.force_namespace = self.string(v),
                "skipDeps" => r.skip_deps = self.opt_bool(v),
                "postRenderer" => r.post_renderer = self.opt_string(v),
                "postRendererArgs" => r.post_renderer_args = self.strings(v),
                "cascade" => r.cascade = self.opt_string(v),
                "suppressOutputLineRegex" => r.suppress_output_line_regex = self.strings(v),
                "inherit" => r.inherit = self.inherit(v),
                "suppressDiff" => r.suppress_diff = self.opt_bool(v),
                "deleteWait" => r.delete_wait = self.opt_bool(v),
                "deleteTimeout" => r.delete_timeout = self.opt_int(v),
                other => self.unknown(k.line, other, go_type),
            }
        }
        r
    }

    fn releases(&mut self, n: &YNode) -> Vec<ReleaseSpec> {
        match &n.kind {
            YKind::Null => Vec::new(),
            YKind::Seq(items) => items
                .iter()
                .map(|i| self.release(i, "state.ReleaseSpec"))
                .collect(),
            _ => {
                self.type_err(n, "[]state.ReleaseSpec");
                Vec::new()
            }
        }
    }

    fn environment(&mut self, n: &YNode) -> EnvironmentSpec {
        let mut e = EnvironmentSpec::default();
        let entries = match &n.kind {
            YKind::Map(e) => e,
            YKind::Null => return e,
            _ => {
                self.type_err(n, "state.EnvironmentSpec");
                return e;
            }
        };
        for (k, v) in entries {
            match k.text.as_str() {
                "values" => e.values = self.values(v),
                "secrets" => e.secrets = self.strings(v),
                "kubeContext" => e.kube_context = self.string(v),
                "missingFileHandler" => e.missing_file_handler = self.opt_string(v),
                "missingFileHandlerConfig" => {
                    let _ = self.value_map(v, "state.MissingFileHandlerConfig");
                }
                other => self.unknown(k.line, other, "state.EnvironmentSpec"),
            }
        }
        e
    }

    fn helm_defaults(&mut self, n: &YNode) -> HelmSpec {
        let mut h = HelmSpec::default();
        let entries = match &n.kind {
            YKind::Map(e) => e,
            YKind::Null => return h,
            _ => {
                self.type_err(n, "state.HelmSpec");
                return h;
            }
        };
        const OTHER: &[&str] = &[
            "diffArgs",
            "syncArgs",
            "verify",
            "keyring",
            "enableDNS",
            "recreatePods",
            "force",
            "atomic",
            "cleanupOnFail",
            "historyMax",
            "reuseValues",
            "postRenderer",
            "postRendererArgs",
            "cascade",
            "suppressOutputLineRegex",
            "disableValidation",
            "disableOpenAPIValidation",
            "insecureSkipTLSVerify",
            "deleteWait",
            "deleteTimeout",
        ];
        for (k, v) in entries {
            match k.text.as_str() {
                "kubeContext" => h.kube_context = self.string(v),
                "args" => h.args = self.strings(v),
                "devel" => h.devel = self.bool(v),
                "createNamespace" => h.create_namespace = self.opt_bool(v),
                "wait" => h.wait = self.bool(v),
                "waitForJobs" => h.wait_for_jobs = self.bool(v),
                "timeout" => h.timeout = self.int(v),
                "skipDeps" => h.skip_deps = self.bool(v),
                other if OTHER.contains(&other) => {
                    h.other.insert(other.to_string(), v.to_value());
                }
                other => self.unknown(k.line, other, "state.HelmSpec"),
            }
        }
        h
    }

    fn repositories(&mut self, n: &YNode) -> Vec<RepositorySpec> {
        let YKind::Seq(items) = &n.kind else {
            if !matches!(n.kind, YKind::Null) {
                self.type_err(n, "[]state.RepositorySpec");
            }
            return Vec::new();
        };
        const OTHER: &[&str] = &[
            "caFile",
            "certFile",
            "keyFile",
            "username",
            "password",
            "managed",
            "verify",
            "keyring",
            "passCredentials",
            "skipTLSVerify",
        ];
        let mut out = Vec::new();
        for item in items {
            let mut r = RepositorySpec::default();
            if let Some(entries) = item.as_map() {
                for (k, v) in entries {
                    match k.text.as_str() {
                        "name" => r.name = self.string(v),
                        "url" => r.url = self.string(v),
                        "oci" => r.oci = self.bool(v),
                        other if OTHER.contains(&other) => {
                            r.other.insert(other.to_string(), v.to_value());
                        }
                        other => self.unknown(k.line, other, "state.RepositorySpec"),
                    }
                }
            } else if !matches!(item.kind, YKind::Null) {
                self.type_err(item, "state.RepositorySpec");
            }
            out.push(r);
        }
        out
    }

    fn helmfiles(&mut self, n: &YNode) -> Vec<SubHelmfileSpec> {
        let YKind::Seq(items) = &n.kind else {
            if !matches!(n.kind, YKind::Null) {
                self.type_err(n, "[]state.SubHelmfileSpec");
            }
            return Vec::new();
        };
        let mut out = Vec::new();
        for item in items {
            let mut h = SubHelmfileSpec::default();
            match &item.kind {
                YKind::Scalar(s) => h.path = s.text.clone(),
                YKind::Map(entries) => {
                    for (k, v) in entries {
                        match k.text.as_str() {
                            "path" => h.path = self.string(v),
                            "selectors" => {
                                h.selectors = match v.kind {
                                    YKind::Null => None,
                                    _ => Some(self.strings(v)),
                                }
                            }
                            "selectorsInherited" => h.selectors_inherited = self.bool(v),
                            "values" => h.values = self.values(v),
                            other => self.unknown(k.line, other, SUB_HELMFILE_ENTRY),
                        }
                    }
                }
                _ => {}
            }
            out.push(h);
        }
        out
    }
}

/// The Go type a `helmfiles:` entry written as a map is decoded into (an anonymous
/// struct in `SubHelmfileSpec.UnmarshalYAML`), as yaml.v2 names it in errors.
const SUB_HELMFILE_ENTRY: &str = r#"struct { Path string "yaml:\"path\""; Selectors []string "yaml:\"selectors\""; SelectorsInherited bool "yaml:\"selectorsInherited\""; Environment state.SubhelmfileEnvironmentSpec "yaml:\",inline\"" }"#;

/// Problems `helmfiles:` entries have that Helmfile reports as plain errors.
pub fn check_sub_helmfile(h: &SubHelmfileSpec) -> Result<(), String> {
    if h.selectors.is_some() && h.path.is_empty() {
        return Err(format!(
            "found 'selectors' definition without path: {}",
            go_string_slice(h.selectors.as_deref().unwrap_or(&[]))
        ));
    }
    if h.selectors_inherited && h.selectors.as_ref().is_some_and(|s| !s.is_empty()) {
        return Err(format!(
            "you cannot use 'SelectorsInherited: true' along with and explicit selector for path: {}",
            h.path
        ));
    }
    Ok(())
}

fn go_string_slice(xs: &[String]) -> String {
    format!("[{}]", xs.join(" "))
}

/// Decodes one state document the way `HelmState.UnmarshalYAML` does in strict mode
/// (unknown fields reported against `state.helmStateAlias`).
pub fn decode_state(doc: &YNode) -> Result<ReleaseSetSpec, DecodeErrors> {
    let mut errs = DecodeErrors::default();
    let spec = {
        let mut d = Dec { errs: &mut errs };
        decode_state_with(&mut d, doc)
    };
    if errs.is_empty() {
        Ok(spec)
    } else {
        Err(errs)
    }
}

/// Decodes ignoring unknown fields and type errors (the first rendering pass).
pub fn decode_state_lenient(doc: &YNode) -> ReleaseSetSpec {
    let mut errs = DecodeErrors::default();
    let mut d = Dec { errs: &mut errs };
    decode_state_with(&mut d, doc)
}

fn decode_state_with(d: &mut Dec<'_>, doc: &YNode) -> ReleaseSetSpec {
    let mut s = ReleaseSetSpec::default();
    let entries = match &doc.kind {
        YKind::Map(e) => e,
        YKind::Null => return s,
        _ => {
            d.type_err(doc, "state.helmStateAlias");
            return s;
        }
    };
    for (k, v) in entries {
        match k.text.as_str() {
            "helmBinary" => s.helm_binary = d.string(v),
            "kustomizeBinary" => s.kustomize_binary = d.string(v),
            "values" => s.default_values = d.values(v),
            "environments" => {
                if let YKind::Map(envs) = &v.kind {
                    for (ek, ev) in envs {
                        let e = d.environment(ev);
                        s.environments.insert(ek.text.clone(), e);
                    }
                } else if !matches!(v.kind, YKind::Null) {
                    d.type_err(v, "map[string]state.EnvironmentSpec");
                }
            }
            "bases" => s.bases = d.strings(v),
            "helmDefaults" => s.helm_defaults = d.helm_defaults(v),
            "helmfiles" => s.helmfiles = d.helmfiles(v),
            "context" => s.deprecated_context = d.string(v),
            "charts" => s.deprecated_releases = d.releases(v),
            "kubeContext" => s.override_kube_context = d.string(v),
            "namespace" => s.override_namespace = d.string(v),
            "chart" => s.override_chart = d.string(v),
            "repositories" => s.repositories = d.repositories(v),
            "commonLabels" => s.common_labels = d.string_map(v).unwrap_or_default(),
            "releases" => s.releases = d.releases(v),
            "apiVersions" => s.api_versions = d.strings(v),
            "kubeVersion" => s.kube_version = d.string(v),
            "hooks" => s.hooks = d.struct_list(v, "event.Hook", HOOK_FIELDS),
            "templates" => {
                if let YKind::Map(ts) = &v.kind {
                    for (tk, tv) in ts {
                        let t = d.release(tv, "state.TemplateSpec");
                        s.templates.insert(tk.text.clone(), t);
                    }
                } else if !matches!(v.kind, YKind::Null) {
                    d.type_err(v, "map[string]state.TemplateSpec");
                }
            }
            "missingFileHandler" => s.missing_file_handler = d.string(v),
            "missingFileHandlerConfig" => {
                let _ = d.value_map(v, "state.MissingFileHandlerConfig");
            }
            "lockFilePath" => s.lock_file = d.string(v),
            // Exported HelmState fields without yaml tags decode under their
            // lower-cased names; they are accepted and ignored.
            "filepath" | "renderedvalues" => {}
            other => d.unknown(k.line, other, "state.helmStateAlias"),
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vmap;

    #[test]
    fn decodes_releases_and_reports_unknown_fields() {
        let doc = YNode::from_value(&vmap! {
            "releases" => vec![vmap!{"name" => "a", "chart" => "../c", "version" => 1.5, "installed" => false, "unknownField" => 1.0}],
        });
        let e = decode_state(&doc).unwrap_err();
        assert_eq!(
            e.message(),
            "yaml: unmarshal errors:\n  line 0: field unknownField not found in type state.ReleaseSpec"
        );
        let s = decode_state_lenient(&doc);
        assert_eq!(s.releases[0].version, "1.5");
        assert_eq!(s.releases[0].installed, Some(false));
    }

    #[test]
    fn top_level_unknown_key() {
        let doc = YNode::from_value(&vmap! {"common" => vmap!{"a" => 1.0}});
        let e = decode_state(&doc).unwrap_err();
        assert_eq!(
            e.0[0].1,
            "field common not found in type state.helmStateAlias"
        );
    }

    #[test]
    fn bool_type_errors() {
        let doc = YNode::from_value(
            &vmap! {"releases" => vec![vmap!{"name" => "a", "wait" => "sometimes-yes"}]},
        );
        let e = decode_state(&doc).unwrap_err();
        assert_eq!(e.0[0].1, "cannot unmarshal !!str `sometim...` into bool");
    }

    #[test]
    fn floats_into_int_fields_as_yaml_v2() {
        let history = |f: f64| {
            let doc = YNode::from_value(
                &vmap! {"releases" => vec![vmap!{"name" => "a", "historyMax" => f}]},
            );
            decode_state(&doc).map(|s| s.releases[0].history_max)
        };
        assert_eq!(history(1.5), Ok(Some(1)));
        assert_eq!(history(-1.5), Ok(Some(-1)));
        assert_eq!(history(-1e30), Ok(Some(i64::MIN)));
        assert_eq!(history(f64::NEG_INFINITY), Ok(Some(i64::MIN)));
        for bad in [1e30, f64::INFINITY, f64::NAN] {
            assert!(history(bad).is_err(), "{bad}");
        }
    }
}
