//! `.Capabilities` as `helm template` fakes it: the default Kubernetes version and
//! API version list compiled into each Helm release, `--kube-version` and
//! `--api-versions`, and the Helm build information.
//!
//! Templates see Go structs with methods (`.KubeVersion.GitVersion`,
//! `.APIVersions.Has`), and printing them shows Go's struct layout, which differs
//! between Helm 3 and Helm 4 (v4's `KubeVersion` has a hidden normalised field that
//! `%v` prints), so these are [`Object`]s rather than plain maps.

use std::sync::Arc;

use super::HelmVersion;
use crate::funcs::semver;
use crate::template::fmt::quote;
use crate::template::{Kind, List, Map, Object, Ty, Value};

/// The API versions Helm 3.15.3 reports by default (client-go 1.30 scheme order).
const API_VERSIONS_V3: &[&str] = &[
    "v1",
    "admissionregistration.k8s.io/v1",
    "admissionregistration.k8s.io/v1alpha1",
    "admissionregistration.k8s.io/v1beta1",
    "internal.apiserver.k8s.io/v1alpha1",
    "apps/v1",
    "apps/v1beta1",
    "apps/v1beta2",
    "authentication.k8s.io/v1",
    "authentication.k8s.io/v1alpha1",
    "authentication.k8s.io/v1beta1",
    "authorization.k8s.io/v1",
    "authorization.k8s.io/v1beta1",
    "autoscaling/v1",
    "autoscaling/v2",
    "autoscaling/v2beta1",
    "autoscaling/v2beta2",
    "batch/v1",
    "batch/v1beta1",
    "certificates.k8s.io/v1",
    "certificates.k8s.io/v1beta1",
    "certificates.k8s.io/v1alpha1",
    "coordination.k8s.io/v1beta1",
    "coordination.k8s.io/v1",
    "discovery.k8s.io/v1",
    "discovery.k8s.io/v1beta1",
    "events.k8s.io/v1",
    "events.k8s.io/v1beta1",
    "extensions/v1beta1",
    "flowcontrol.apiserver.k8s.io/v1",
    "flowcontrol.apiserver.k8s.io/v1beta1",
    "flowcontrol.apiserver.k8s.io/v1beta2",
    "flowcontrol.apiserver.k8s.io/v1beta3",
    "networking.k8s.io/v1",
    "networking.k8s.io/v1alpha1",
    "networking.k8s.io/v1beta1",
    "node.k8s.io/v1",
    "node.k8s.io/v1alpha1",
    "node.k8s.io/v1beta1",
    "policy/v1",
    "policy/v1beta1",
    "rbac.authorization.k8s.io/v1",
    "rbac.authorization.k8s.io/v1beta1",
    "rbac.authorization.k8s.io/v1alpha1",
    "resource.k8s.io/v1alpha2",
    "scheduling.k8s.io/v1alpha1",
    "scheduling.k8s.io/v1beta1",
    "scheduling.k8s.io/v1",
    "storage.k8s.io/v1beta1",
    "storage.k8s.io/v1",
    "storage.k8s.io/v1alpha1",
    "storagemigration.k8s.io/v1alpha1",
    "apiextensions.k8s.io/v1beta1",
    "apiextensions.k8s.io/v1",
];

/// The API versions Helm 4.3.1 reports by default (client-go 1.37 scheme order).
const API_VERSIONS_V4: &[&str] = &[
    "v1",
    "admissionregistration.k8s.io/v1",
    "admissionregistration.k8s.io/v1alpha1",
    "admissionregistration.k8s.io/v1beta1",
    "internal.apiserver.k8s.io/v1alpha1",
    "apps/v1",
    "apps/v1beta1",
    "apps/v1beta2",
    "authentication.k8s.io/v1",
    "authentication.k8s.io/v1alpha1",
    "authentication.k8s.io/v1beta1",
    "authorization.k8s.io/v1",
    "authorization.k8s.io/v1beta1",
    "autoscaling/v1",
    "autoscaling/v2",
    "batch/v1",
    "batch/v1beta1",
    "certificates.k8s.io/v1",
    "certificates.k8s.io/v1beta1",
    "certificates.k8s.io/v1alpha1",
    "coordination.k8s.io/v1alpha2",
    "coordination.k8s.io/v1beta1",
    "coordination.k8s.io/v1",
    "discovery.k8s.io/v1",
    "discovery.k8s.io/v1beta1",
    "events.k8s.io/v1",
    "events.k8s.io/v1beta1",
    "extensions/v1beta1",
    "flowcontrol.apiserver.k8s.io/v1",
    "flowcontrol.apiserver.k8s.io/v1beta1",
    "flowcontrol.apiserver.k8s.io/v1beta2",
    "flowcontrol.apiserver.k8s.io/v1beta3",
    "lifecycle.k8s.io/v1alpha1",
    "networking.k8s.io/v1",
    "networking.k8s.io/v1beta1",
    "node.k8s.io/v1",
    "node.k8s.io/v1alpha1",
    "node.k8s.io/v1beta1",
    "policy/v1",
    "policy/v1beta1",
    "rbac.authorization.k8s.io/v1",
    "rbac.authorization.k8s.io/v1beta1",
    "rbac.authorization.k8s.io/v1alpha1",
    "resource.k8s.io/v1",
    "resource.k8s.io/v1beta2",
    "resource.k8s.io/v1beta1",
    "resource.k8s.io/v1alpha3",
    "scheduling.k8s.io/v1alpha3",
    "scheduling.k8s.io/v1beta1",
    "scheduling.k8s.io/v1",
    "storage.k8s.io/v1beta1",
    "storage.k8s.io/v1",
    "storage.k8s.io/v1alpha1",
    "storagemigration.k8s.io/v1",
    "storagemigration.k8s.io/v1beta1",
    "apiextensions.k8s.io/v1beta1",
    "apiextensions.k8s.io/v1",
];

/// `.Capabilities.KubeVersion`.
#[derive(Clone, Debug)]
pub struct KubeVersion {
    pub version: String,
    /// v4 keeps the normalised form separately (it shows in `%v`).
    pub normalized: String,
    pub major: String,
    pub minor: String,
    pub helm: HelmVersion,
}

impl KubeVersion {
    pub fn default_for(helm: HelmVersion) -> KubeVersion {
        let minor = match helm {
            HelmVersion::V3 => "30",
            HelmVersion::V4 => "37",
        };
        KubeVersion {
            version: format!("v1.{minor}.0"),
            normalized: format!("v1.{minor}.0"),
            major: "1".into(),
            minor: minor.into(),
            helm,
        }
    }

    /// `--kube-version`; errors are the text after `invalid kube version '...': `.
    pub fn parse(s: &str, helm: HelmVersion) -> Result<KubeVersion, String> {
        match helm {
            HelmVersion::V3 => {
                let v = semver::Version::parse(s, helm.semver_lib())?;
                let version = format!("v{v}");
                Ok(KubeVersion {
                    normalized: version.clone(),
                    version,
                    major: v.major.to_string(),
                    minor: v.minor.to_string(),
                    helm,
                })
            }
            HelmVersion::V4 => {
                let (nums, _extra) = generic_version_parts(s)
                    .ok_or_else(|| format!("could not parse {} as version", quote(s)))?;
                let comps: Vec<&str> = nums.split('.').collect();
                if comps.len() < 2 {
                    return Err(format!("illegal version string {}", quote(s)));
                }
                let mut values = Vec::with_capacity(comps.len());
                for (i, c) in comps.iter().enumerate() {
                    if i == 0 && c.starts_with('0') && *c != "0" {
                        return Err(format!(
                            "illegal zero-prefixed version component {} in {}",
                            quote(c),
                            quote(s)
                        ));
                    }
                    let n = c.parse::<u64>().map_err(|_| {
                        format!(
                            "illegal non-numeric version component {} in {}: strconv.ParseUint: parsing {}: value out of range",
                            quote(c),
                            quote(s),
                            quote(c)
                        )
                    })?;
                    values.push(n.to_string());
                }
                let version = if s.starts_with('v') {
                    s.to_string()
                } else {
                    format!("v{s}")
                };
                Ok(KubeVersion {
                    version,
                    // What Kubernetes' `Version.String` prints: the numbers only.
                    normalized: format!("v{}", values.join(".")),
                    major: values[0].clone(),
                    minor: values[1].clone(),
                    helm,
                })
            }
        }
    }

    /// What the `String` method returns: the version as given in Helm 3; in
    /// Helm 4, the numbers alone (`v1.29` for `1.29.x`).
    fn string(&self) -> &str {
        match self.helm {
            HelmVersion::V3 => &self.version,
            HelmVersion::V4 if self.normalized.is_empty() => &self.version,
            HelmVersion::V4 => &self.normalized,
        }
    }

    /// The version used for `kubeVersion:` constraint checks.
    pub fn for_constraints(&self) -> &str {
        &self.normalized
    }
}

impl Object for KubeVersion {
    fn json_order(&self) -> Option<&'static [&'static str]> {
        Some(&["Version", "Major", "Minor"])
    }
    fn type_name(&self) -> String {
        match self.helm {
            HelmVersion::V3 => "chartutil.KubeVersion",
            HelmVersion::V4 => "common.KubeVersion",
        }
        .into()
    }
    fn kind(&self) -> Kind {
        Kind::Struct
    }
    fn field(&self, name: &str) -> Option<Value> {
        match name {
            "Version" => Some(Value::str(self.version.as_str())),
            "Major" => Some(Value::str(self.major.as_str())),
            "Minor" => Some(Value::str(self.minor.as_str())),
            _ => None,
        }
    }
    fn has_method(&self, name: &str) -> bool {
        matches!(name, "String" | "GitVersion")
    }
    fn method_params(&self, name: &str) -> Option<&'static [Ty]> {
        self.has_method(name).then_some(&[])
    }
    fn call_method(&self, name: &str, _args: &[Value]) -> Result<Value, String> {
        match name {
            "String" => Ok(Value::str(self.string())),
            "GitVersion" => Ok(Value::str(self.version.as_str())),
            _ => Err(format!("can't call method/function {name:?}")),
        }
    }
    fn addr_string(&self) -> Option<String> {
        Some(self.string().to_string())
    }
    fn comparable_key(&self) -> Option<String> {
        Some(self.fmt_v(true))
    }
    fn fmt_v(&self, plus: bool) -> String {
        match (self.helm, plus) {
            (HelmVersion::V3, false) => {
                format!("{{{} {} {}}}", self.version, self.major, self.minor)
            }
            (HelmVersion::V3, true) => format!(
                "{{Version:{} Major:{} Minor:{}}}",
                self.version, self.major, self.minor
            ),
            (HelmVersion::V4, false) => format!(
                "{{{} {} {} {}}}",
                self.version, self.normalized, self.major, self.minor
            ),
            (HelmVersion::V4, true) => format!(
                "{{Version:{} normalizedVersion:{} Major:{} Minor:{}}}",
                self.version, self.normalized, self.major, self.minor
            ),
        }
    }
    fn to_json_value(&self) -> Value {
        let m = Map::new();
        m.insert("Version", Value::str(self.version.as_str()));
        m.insert("Major", Value::str(self.major.as_str()));
        m.insert("Minor", Value::str(self.minor.as_str()));
        Value::Map(m)
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// `.Capabilities.APIVersions`: a `[]string` with a `Has` method.
#[derive(Clone, Debug)]
pub struct VersionSet {
    pub versions: Vec<String>,
    pub helm: HelmVersion,
}

impl VersionSet {
    pub fn default_for(helm: HelmVersion) -> VersionSet {
        let list = match helm {
            HelmVersion::V3 => API_VERSIONS_V3,
            HelmVersion::V4 => API_VERSIONS_V4,
        };
        VersionSet {
            versions: list.iter().map(|s| s.to_string()).collect(),
            helm,
        }
    }

    pub fn has(&self, v: &str) -> bool {
        self.versions.iter().any(|x| x == v)
    }

    fn list(&self) -> Value {
        Value::string_list(self.versions.iter().map(|s| s.as_str()))
    }
}

impl Object for VersionSet {
    fn type_name(&self) -> String {
        match self.helm {
            HelmVersion::V3 => "chartutil.VersionSet",
            HelmVersion::V4 => "common.VersionSet",
        }
        .into()
    }
    fn kind(&self) -> Kind {
        Kind::Slice
    }
    fn has_method(&self, name: &str) -> bool {
        name == "Has"
    }
    fn method_params(&self, name: &str) -> Option<&'static [Ty]> {
        (name == "Has").then_some(&[Ty::String])
    }
    fn call_method(&self, name: &str, args: &[Value]) -> Result<Value, String> {
        match (name, args) {
            ("Has", [Value::String(s)]) => Ok(Value::Bool(self.has(s))),
            ("Has", [_]) => Ok(Value::Bool(false)),
            ("Has", _) => Err(format!(
                "wrong number of args for Has: want 1 got {}",
                args.len()
            )),
            _ => Err(format!("can't call method/function {name:?}")),
        }
    }
    fn fmt_v(&self, _plus: bool) -> String {
        format!("[{}]", self.versions.join(" "))
    }
    fn to_json_value(&self) -> Value {
        self.list()
    }
    fn as_collection(&self) -> Option<Value> {
        Some(self.list())
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// `.Capabilities.HelmVersion` (`version.BuildInfo`).
#[derive(Clone, Debug)]
pub struct BuildInfo {
    pub helm: HelmVersion,
}

impl BuildInfo {
    fn parts(&self) -> Vec<(&'static str, &'static str, &'static str)> {
        // (Go field, JSON name, value)
        let mut v = match self.helm {
            HelmVersion::V3 => vec![
                ("Version", "version", "v3.15.3"),
                (
                    "GitCommit",
                    "git_commit",
                    "3bb50bbbdd9c946ba9989fbe4fb4104766302a64",
                ),
                ("GitTreeState", "git_tree_state", "clean"),
                ("GoVersion", "go_version", "go1.22.5"),
            ],
            HelmVersion::V4 => vec![
                ("Version", "version", "v4.3.1"),
                (
                    "GitCommit",
                    "git_commit",
                    "c0d08d0d6d9424d4a14febb5e8a3e51b0dd00dff",
                ),
                ("GitTreeState", "git_tree_state", "clean"),
                ("GoVersion", "go_version", "go1.27.2"),
            ],
        };
        if self.helm == HelmVersion::V4 {
            v.push(("KubeClientVersion", "kube_client_version", "v1.37"));
        }
        v
    }
}

impl Object for BuildInfo {
    fn json_order(&self) -> Option<&'static [&'static str]> {
        Some(&["version", "git_commit", "git_tree_state", "go_version"])
    }
    fn type_name(&self) -> String {
        "version.BuildInfo".into()
    }
    fn kind(&self) -> Kind {
        Kind::Struct
    }
    fn field(&self, name: &str) -> Option<Value> {
        self.parts()
            .into_iter()
            .find(|(f, _, _)| *f == name)
            .map(|(_, _, v)| Value::str(v))
    }
    fn fmt_v(&self, plus: bool) -> String {
        let parts: Vec<String> = self
            .parts()
            .into_iter()
            .map(|(f, _, v)| {
                if plus {
                    format!("{f}:{v}")
                } else {
                    v.to_string()
                }
            })
            .collect();
        format!("{{{}}}", parts.join(" "))
    }
    fn comparable_key(&self) -> Option<String> {
        Some(self.fmt_v(true))
    }
    fn to_json_value(&self) -> Value {
        let m = Map::new();
        for (_, j, v) in self.parts() {
            m.insert(j, Value::str(v));
        }
        Value::Map(m)
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// `.Capabilities`.
#[derive(Clone, Debug)]
pub struct Capabilities {
    pub kube_version: KubeVersion,
    pub api_versions: VersionSet,
    pub helm: HelmVersion,
}

impl Capabilities {
    /// Helm's defaults plus `--kube-version` and `--api-versions`.
    pub fn new(
        helm: HelmVersion,
        kube_version: Option<KubeVersion>,
        extra_apis: &[String],
    ) -> Capabilities {
        let mut api_versions = VersionSet::default_for(helm);
        api_versions.versions.extend(extra_apis.iter().cloned());
        Capabilities {
            kube_version: kube_version.unwrap_or_else(|| KubeVersion::default_for(helm)),
            api_versions,
            helm,
        }
    }

    pub fn to_value(&self) -> Value {
        Value::Object(Arc::new(self.clone()))
    }
}

impl Object for Capabilities {
    fn json_order(&self) -> Option<&'static [&'static str]> {
        Some(&["KubeVersion", "APIVersions", "HelmVersion"])
    }
    fn type_name(&self) -> String {
        match self.helm {
            HelmVersion::V3 => "*chartutil.Capabilities",
            HelmVersion::V4 => "*common.Capabilities",
        }
        .into()
    }
    /// `Copy`, the one method Helm's `*Capabilities` has: a new pointer to a copy.
    fn has_method(&self, name: &str) -> bool {
        name == "Copy"
    }
    fn method_params(&self, name: &str) -> Option<&'static [Ty]> {
        self.has_method(name).then_some(&[])
    }
    fn call_method(&self, name: &str, _args: &[Value]) -> Result<Value, String> {
        match name {
            "Copy" => Ok(self.to_value()),
            _ => Err(format!("can't call method/function {name:?}")),
        }
    }
    fn field(&self, name: &str) -> Option<Value> {
        match name {
            "KubeVersion" => Some(Value::Object(Arc::new(self.kube_version.clone()))),
            "APIVersions" => Some(Value::Object(Arc::new(self.api_versions.clone()))),
            "HelmVersion" => Some(Value::Object(Arc::new(BuildInfo { helm: self.helm }))),
            _ => None,
        }
    }
    fn fmt_v(&self, plus: bool) -> String {
        let kv = self.kube_version.fmt_v(plus);
        let av = self.api_versions.fmt_v(plus);
        let hv = BuildInfo { helm: self.helm }.fmt_v(plus);
        if plus {
            format!("&{{KubeVersion:{kv} APIVersions:{av} HelmVersion:{hv}}}")
        } else {
            format!("&{{{kv} {av} {hv}}}")
        }
    }
    fn to_json_value(&self) -> Value {
        // The fields stay objects, so the encoder writes each in its field order.
        let m = Map::new();
        m.insert(
            "KubeVersion",
            Value::Object(Arc::new(self.kube_version.clone())),
        );
        m.insert("APIVersions", self.api_versions.to_json_value());
        m.insert(
            "HelmVersion",
            Value::Object(Arc::new(BuildInfo { helm: self.helm })),
        );
        Value::Map(m)
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// A `[]string` value for code that wants the plain list.
pub fn string_list(items: &[String]) -> Value {
    Value::List(List::of_strings(
        items.iter().map(|s| Value::str(s.as_str())).collect(),
    ))
}

/// Kubernetes' `ParseGeneric` pattern `^\s*v?([0-9]+(?:\.[0-9]+)*)(.*)*$`: the
/// dotted numbers and whatever follows them, or `None` when no number leads.
fn generic_version_parts(s: &str) -> Option<(&str, &str)> {
    let t = s.trim_start_matches([' ', '\t', '\n', '\r', '\x0c']);
    let t = t.strip_prefix('v').unwrap_or(t);
    let bytes = t.as_bytes();
    let mut end = 0;
    loop {
        let digits = bytes[end..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        if digits == 0 {
            break;
        }
        end += digits;
        // A dot belongs to the numbers only when digits follow it.
        if bytes.get(end) == Some(&b'.') && bytes.get(end + 1).is_some_and(u8::is_ascii_digit) {
            end += 1;
        } else {
            break;
        }
    }
    (end > 0).then(|| (&t[..end], &t[end..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_per_version() {
        assert_eq!(VersionSet::default_for(HelmVersion::V3).versions.len(), 54);
        assert_eq!(VersionSet::default_for(HelmVersion::V4).versions.len(), 57);
        let k = KubeVersion::default_for(HelmVersion::V4);
        assert_eq!(k.fmt_v(false), "{v1.37.0 v1.37.0 1 37}");
        let k = KubeVersion::parse("1.25.3", HelmVersion::V3).unwrap();
        assert_eq!((k.version.as_str(), k.minor.as_str()), ("v1.25.3", "25"));
    }
}
