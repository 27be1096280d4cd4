//! The built-in objects a chart template sees besides `.Values` and
//! `.Capabilities`: `.Files`, `.Chart` (a Go struct in Helm 3, a map with Go field
//! names in Helm 4), and `.Release`.

use std::sync::Arc;

use super::glob::Glob;
use super::loader::ChartFile;
use super::metadata::{Dependency, Maintainer, Metadata};
use super::yamlio;
use super::HelmVersion;
use crate::template::{Kind, List, Map, MapType, Object, Ty, Value};

/// `.Files`: Helm's `engine.files`, a `map[string][]byte` with helper methods.
///
/// Most of a chart's files are read on their first use (see [`super::loader`]), so
/// the helpers that read content report a file that could not be read as the error
/// Helm's loader would have failed with; the Go views of the whole map (ranging
/// over it, printing it) have no error to give and see such a file as empty.
#[derive(Clone, Debug, Default)]
pub struct Files {
    /// Sorted by name (Go map iteration in templates is sorted too); a later file
    /// of the same name replaces an earlier one, as in Helm's map.
    files: std::collections::BTreeMap<String, ChartFile>,
}

impl Files {
    pub fn new(from: &[ChartFile]) -> Files {
        Files {
            files: from.iter().map(|f| (f.name.clone(), f.clone())).collect(),
        }
    }

    pub fn get_bytes(&self, name: &str) -> Result<Arc<[u8]>, String> {
        match self.files.get(name) {
            Some(f) => f.read().map(crate::source::Bytes::to_arc),
            None => Ok(Arc::from(&b""[..])),
        }
    }

    /// The files whose names match `pattern`; their content is not read.
    pub fn glob(&self, pattern: &str) -> Files {
        let g = Glob::compile(pattern).unwrap_or_else(Glob::match_all);
        Files {
            files: self
                .files
                .iter()
                .filter(|(k, _)| g.is_match(k))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        }
    }

    fn by_base_name(&self, f: impl Fn(&[u8]) -> String) -> Result<Map, String> {
        let m = Map::new();
        for (k, v) in &self.files {
            let base = k.rsplit('/').next().unwrap_or(k);
            m.insert(base, Value::str(f(v.read()?)));
        }
        Ok(m)
    }

    /// `toYAML` of the map, without the trailing newline.
    fn to_yaml(m: Map) -> String {
        let s = yamlio::encode(&Value::Map(m));
        s.strip_suffix('\n').map(str::to_string).unwrap_or(s)
    }

    pub fn as_config(&self) -> Result<String, String> {
        let m = self.by_base_name(|b| String::from_utf8_lossy(b).into_owned())?;
        Ok(Files::to_yaml(m))
    }

    pub fn as_secrets(&self) -> Result<String, String> {
        Ok(Files::to_yaml(self.by_base_name(base64_std)?))
    }

    pub fn lines(&self, name: &str) -> Result<Value, String> {
        let Some(file) = self.files.get(name) else {
            return Ok(Value::List(List::of_strings(Vec::new())));
        };
        let data = file.read()?;
        if data.is_empty() {
            // Helm indexes the last byte of the empty string and panics.
            return Err("runtime error: index out of range [-1]".into());
        }
        let s = crate::template::gostr::from_slice(data);
        let s = s.strip_suffix('\n').unwrap_or(&s);
        Ok(Value::List(List::of_strings(
            s.split('\n').map(Value::str).collect(),
        )))
    }

    fn as_map(&self) -> Map {
        let m = Map::with_type(MapType::Named("engine.files"));
        for (k, v) in &self.files {
            m.insert(k.clone(), Value::Bytes(v.data().to_arc()));
        }
        m
    }
}

/// Standard base64 with padding.
pub fn base64_std(data: &[u8]) -> String {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        out.push(T[(n >> 18) as usize & 63] as char);
        out.push(T[(n >> 12) as usize & 63] as char);
        out.push(if chunk.len() > 1 {
            T[(n >> 6) as usize & 63] as char
        } else {
            '='
        });
        out.push(if chunk.len() > 2 {
            T[n as usize & 63] as char
        } else {
            '='
        });
    }
    out
}

fn arg_str(args: &[Value], method: &str) -> Result<String, String> {
    match args {
        [Value::String(s)] => Ok(s.to_string()),
        [other] => Err(format!(
            "wrong type for value; expected string; got {}",
            other.type_name()
        )),
        _ => Err(format!(
            "wrong number of args for {method}: want 1 got {}",
            args.len()
        )),
    }
}

impl Object for Files {
    fn type_name(&self) -> String {
        "engine.files".into()
    }
    fn kind(&self) -> Kind {
        Kind::Map
    }
    fn has_method(&self, name: &str) -> bool {
        self.method_params(name).is_some()
    }
    fn method_params(&self, name: &str) -> Option<&'static [Ty]> {
        match name {
            "Get" | "GetBytes" | "Glob" | "Lines" => Some(&[Ty::String]),
            "AsConfig" | "AsSecrets" => Some(&[]),
            _ => None,
        }
    }
    fn call_method(&self, name: &str, args: &[Value]) -> Result<Value, String> {
        match name {
            "Get" => {
                let n = arg_str(args, name)?;
                // A binary file's bytes stay as they are (see `gostr`).
                Ok(Value::str(
                    crate::template::gostr::from_slice(&self.get_bytes(&n)?).as_ref(),
                ))
            }
            "GetBytes" => Ok(Value::Bytes(self.get_bytes(&arg_str(args, name)?)?)),
            "Glob" => Ok(Value::Object(Arc::new(self.glob(&arg_str(args, name)?)))),
            "AsConfig" => Ok(Value::str(self.as_config()?)),
            "AsSecrets" => Ok(Value::str(self.as_secrets()?)),
            "Lines" => self.lines(&arg_str(args, name)?),
            _ => Err(format!("can't call method/function {name:?}")),
        }
    }
    fn fmt_v(&self, _plus: bool) -> String {
        let parts: Vec<String> = self
            .files
            .iter()
            .map(|(k, v)| {
                let bytes: Vec<String> = v.data().iter().map(|b| b.to_string()).collect();
                format!("{k}:[{}]", bytes.join(" "))
            })
            .collect();
        format!("map[{}]", parts.join(" "))
    }
    fn to_json_value(&self) -> Value {
        let m = Map::new();
        for (k, v) in &self.files {
            m.insert(k.clone(), Value::str(base64_std(v.data())));
        }
        Value::Map(m)
    }
    fn as_collection(&self) -> Option<Value> {
        Some(Value::Map(self.as_map()))
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

fn strings(items: &[String]) -> Value {
    Value::List(List::of_strings(
        items.iter().map(|s| Value::str(s.as_str())).collect(),
    ))
}

fn annotations_map(a: &[(String, String)]) -> Map {
    let m = Map::with_type(MapType::String);
    for (k, v) in a {
        m.insert(k.clone(), Value::str(v.as_str()));
    }
    m
}

/// `.Chart` in Helm 3: `struct { chart.Metadata; IsRoot bool }`.
#[derive(Clone, Debug)]
pub struct ChartV3 {
    pub md: Metadata,
    pub is_root: bool,
    /// The embedded `chart.Metadata` alone (`.Chart.Metadata`): no `IsRoot`, and
    /// printed as that struct.
    pub metadata_only: bool,
}

/// A `*chart.Dependency` as Helm 3 templates see it.
#[derive(Clone, Debug)]
struct DependencyV3(Dependency);

impl Object for DependencyV3 {
    fn json_order(&self) -> Option<&'static [&'static str]> {
        Some(&[
            "name",
            "version",
            "repository",
            "condition",
            "tags",
            "enabled",
            "import-values",
            "alias",
        ])
    }
    fn type_name(&self) -> String {
        "*chart.Dependency".into()
    }
    fn field(&self, name: &str) -> Option<Value> {
        let d = &self.0;
        Some(match name {
            "Name" => Value::str(d.name.as_str()),
            "Version" => Value::str(d.version.as_str()),
            "Repository" => Value::str(d.repository.as_str()),
            "Condition" => Value::str(d.condition.as_str()),
            "Tags" => strings(&d.tags),
            "Enabled" => Value::Bool(d.enabled),
            "ImportValues" => Value::List(List::new(d.import_values.clone())),
            "Alias" => Value::str(d.alias.as_str()),
            _ => return None,
        })
    }
    fn fmt_v(&self, _plus: bool) -> String {
        let d = &self.0;
        format!(
            "&{{{} {} {} {} [{}] {} {} {}}}",
            d.name,
            d.version,
            d.repository,
            d.condition,
            d.tags.join(" "),
            d.enabled,
            crate::template::fmt::sprint(&[Value::List(List::new(d.import_values.clone()))]),
            d.alias
        )
    }
    fn to_json_value(&self) -> Value {
        let d = &self.0;
        let m = Map::new();
        m.insert("name", Value::str(d.name.as_str()));
        if !d.version.is_empty() {
            m.insert("version", Value::str(d.version.as_str()));
        }
        m.insert("repository", Value::str(d.repository.as_str()));
        if !d.condition.is_empty() {
            m.insert("condition", Value::str(d.condition.as_str()));
        }
        if !d.tags.is_empty() {
            m.insert("tags", strings(&d.tags));
        }
        if d.enabled {
            m.insert("enabled", Value::Bool(true));
        }
        if !d.import_values.is_empty() {
            m.insert(
                "import-values",
                Value::List(List::new(d.import_values.clone())),
            );
        }
        if !d.alias.is_empty() {
            m.insert("alias", Value::str(d.alias.as_str()));
        }
        Value::Map(m)
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

#[derive(Clone, Debug)]
struct MaintainerV3(Maintainer);

impl Object for MaintainerV3 {
    fn json_order(&self) -> Option<&'static [&'static str]> {
        Some(&["name", "email", "url"])
    }
    fn type_name(&self) -> String {
        "*chart.Maintainer".into()
    }
    fn field(&self, name: &str) -> Option<Value> {
        Some(match name {
            "Name" => Value::str(self.0.name.as_str()),
            "Email" => Value::str(self.0.email.as_str()),
            "URL" => Value::str(self.0.url.as_str()),
            _ => return None,
        })
    }
    fn fmt_v(&self, _plus: bool) -> String {
        format!("&{{{} {} {}}}", self.0.name, self.0.email, self.0.url)
    }
    fn to_json_value(&self) -> Value {
        let m = Map::new();
        for (k, v) in [
            ("name", &self.0.name),
            ("email", &self.0.email),
            ("url", &self.0.url),
        ] {
            if !v.is_empty() {
                m.insert(k, Value::str(v.as_str()));
            }
        }
        Value::Map(m)
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

impl ChartV3 {
    fn dependencies(&self) -> Value {
        match &self.md.dependencies {
            None => Value::List(List::nil(crate::template::ListType::Interface)),
            Some(d) => Value::List(List::new(
                d.iter()
                    .map(|x| Value::Object(Arc::new(DependencyV3(x.clone()))))
                    .collect(),
            )),
        }
    }
}

impl Object for ChartV3 {
    fn json_order(&self) -> Option<&'static [&'static str]> {
        Some(&[
            "name",
            "home",
            "sources",
            "version",
            "description",
            "keywords",
            "maintainers",
            "icon",
            "apiVersion",
            "condition",
            "tags",
            "appVersion",
            "deprecated",
            "annotations",
            "kubeVersion",
            "dependencies",
            "type",
            "IsRoot",
        ])
    }
    fn type_name(&self) -> String {
        if self.metadata_only {
            "chart.Metadata".into()
        } else {
            "struct { chart.Metadata; IsRoot bool }".into()
        }
    }
    fn kind(&self) -> Kind {
        Kind::Struct
    }
    fn field(&self, name: &str) -> Option<Value> {
        let md = &self.md;
        if self.metadata_only && matches!(name, "IsRoot" | "Metadata") {
            return None;
        }
        Some(match name {
            "Name" => Value::str(md.name.as_str()),
            "Home" => Value::str(md.home.as_str()),
            "Sources" => strings(&md.sources),
            "Version" => Value::str(md.version.as_str()),
            "Description" => Value::str(md.description.as_str()),
            "Keywords" => strings(&md.keywords),
            "Maintainers" => Value::List(List::new(
                md.maintainers
                    .iter()
                    .map(|m| Value::Object(Arc::new(MaintainerV3(m.clone()))))
                    .collect(),
            )),
            "Icon" => Value::str(md.icon.as_str()),
            "APIVersion" => Value::str(md.api_version.as_str()),
            "Condition" => Value::str(md.condition.as_str()),
            "Tags" => Value::str(md.tags.as_str()),
            "AppVersion" => Value::str(md.app_version.as_str()),
            "Deprecated" => Value::Bool(md.deprecated),
            "Annotations" => match &md.annotations {
                Some(a) => Value::Map(annotations_map(a)),
                None => Value::Map(Map::nil(MapType::String)),
            },
            "KubeVersion" => Value::str(md.kube_version.as_str()),
            "Dependencies" => self.dependencies(),
            "Type" => Value::str(md.chart_type.as_str()),
            "IsRoot" => Value::Bool(self.is_root),
            "Metadata" => {
                return Some(Value::Object(Arc::new(ChartV3 {
                    md: md.clone(),
                    is_root: self.is_root,
                    metadata_only: true,
                })))
            }
            _ => return None,
        })
    }
    fn fmt_v(&self, _plus: bool) -> String {
        let md = &self.md;
        // Go prints a map sorted by key.
        let mut annotations: Vec<String> = md
            .annotations
            .iter()
            .flatten()
            .map(|(k, v)| format!("{k}:{v}"))
            .collect();
        annotations.sort();
        let metadata = format!(
            "{{{} {} [{}] {} {} [{}] [] {} {} {} {} {} {} map[{}] {} [] {}}}",
            md.name,
            md.home,
            md.sources.join(" "),
            md.version,
            md.description,
            md.keywords.join(" "),
            md.icon,
            md.api_version,
            md.condition,
            md.tags,
            md.app_version,
            md.deprecated,
            annotations.join(" "),
            md.kube_version,
            md.chart_type,
        );
        if self.metadata_only {
            metadata
        } else {
            format!("{{{metadata} {}}}", self.is_root)
        }
    }
    fn to_json_value(&self) -> Value {
        let md = &self.md;
        let m = Map::new();
        let put_s = |k: &str, v: &str| {
            if !v.is_empty() {
                m.insert(k, Value::str(v));
            }
        };
        put_s("name", &md.name);
        put_s("home", &md.home);
        if !md.sources.is_empty() {
            m.insert("sources", strings(&md.sources));
        }
        put_s("version", &md.version);
        put_s("description", &md.description);
        if !md.keywords.is_empty() {
            m.insert("keywords", strings(&md.keywords));
        }
        if !md.maintainers.is_empty() {
            m.insert(
                "maintainers",
                Value::List(List::new(
                    md.maintainers
                        .iter()
                        .map(|x| Value::Object(Arc::new(MaintainerV3(x.clone()))))
                        .collect(),
                )),
            );
        }
        put_s("icon", &md.icon);
        put_s("apiVersion", &md.api_version);
        put_s("condition", &md.condition);
        put_s("tags", &md.tags);
        put_s("appVersion", &md.app_version);
        if md.deprecated {
            m.insert("deprecated", Value::Bool(true));
        }
        if let Some(a) = &md.annotations {
            if !a.is_empty() {
                m.insert("annotations", Value::Map(annotations_map(a)));
            }
        }
        put_s("kubeVersion", &md.kube_version);
        if let Some(d) = &md.dependencies {
            if !d.is_empty() {
                m.insert(
                    "dependencies",
                    Value::List(List::new(
                        d.iter()
                            .map(|x| Value::Object(Arc::new(DependencyV3(x.clone()))))
                            .collect(),
                    )),
                );
            }
        }
        put_s("type", &md.chart_type);
        if !self.metadata_only {
            m.insert("IsRoot", Value::Bool(self.is_root));
        }
        Value::Map(m)
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

fn any_strings(items: &[String]) -> Value {
    Value::List(List::new(
        items.iter().map(|s| Value::str(s.as_str())).collect(),
    ))
}

/// `.Chart` in Helm 4: the metadata struct converted to a map keyed by Go field
/// names (`structToMap`), plus `IsRoot`.
pub fn chart_v4_map(md: &Metadata, is_root: bool) -> Value {
    let m = Map::new();
    m.insert("Name", Value::str(md.name.as_str()));
    m.insert("Home", Value::str(md.home.as_str()));
    m.insert("Sources", any_strings(&md.sources));
    m.insert("Version", Value::str(md.version.as_str()));
    m.insert("Description", Value::str(md.description.as_str()));
    m.insert("Keywords", any_strings(&md.keywords));
    m.insert(
        "Maintainers",
        Value::List(List::new(
            md.maintainers
                .iter()
                .map(|x| {
                    let mm = Map::new();
                    mm.insert("Name", Value::str(x.name.as_str()));
                    mm.insert("Email", Value::str(x.email.as_str()));
                    mm.insert("URL", Value::str(x.url.as_str()));
                    Value::Map(mm)
                })
                .collect(),
        )),
    );
    m.insert("Icon", Value::str(md.icon.as_str()));
    m.insert("APIVersion", Value::str(md.api_version.as_str()));
    m.insert("Condition", Value::str(md.condition.as_str()));
    m.insert("Tags", Value::str(md.tags.as_str()));
    m.insert("AppVersion", Value::str(md.app_version.as_str()));
    m.insert("Deprecated", Value::Bool(md.deprecated));
    m.insert(
        "Annotations",
        match &md.annotations {
            Some(a) => Value::Map(annotations_map(a)),
            // Go's nil `map[string]string`: empty to templates, `null` in JSON.
            None => Value::Map(Map::nil(MapType::String)),
        },
    );
    m.insert("KubeVersion", Value::str(md.kube_version.as_str()));
    let deps = md.dependencies.as_deref().unwrap_or(&[]);
    m.insert(
        "Dependencies",
        Value::List(List::new(
            deps.iter()
                .map(|d| {
                    let dm = Map::new();
                    dm.insert("Name", Value::str(d.name.as_str()));
                    dm.insert("Version", Value::str(d.version.as_str()));
                    dm.insert("Repository", Value::str(d.repository.as_str()));
                    dm.insert("Condition", Value::str(d.condition.as_str()));
                    dm.insert("Tags", any_strings(&d.tags));
                    dm.insert("Enabled", Value::Bool(d.enabled));
                    dm.insert(
                        "ImportValues",
                        Value::List(List::new(d.import_values.clone())),
                    );
                    dm.insert("Alias", Value::str(d.alias.as_str()));
                    Value::Map(dm)
                })
                .collect(),
        )),
    );
    m.insert("Type", Value::str(md.chart_type.as_str()));
    m.insert("IsRoot", Value::Bool(is_root));
    Value::Map(m)
}

/// `.Chart` for the given Helm version.
pub fn chart_object(helm: HelmVersion, md: &Metadata, is_root: bool) -> Value {
    match helm {
        HelmVersion::V3 => Value::Object(Arc::new(ChartV3 {
            metadata_only: false,
            md: md.clone(),
            is_root,
        })),
        HelmVersion::V4 => chart_v4_map(md, is_root),
    }
}

/// `.Release` (a plain `map[string]interface{}` in both versions).
pub fn release_map(name: &str, namespace: &str, is_upgrade: bool, revision: i64) -> Value {
    let m = Map::new();
    m.insert("Name", Value::str(name));
    m.insert("Namespace", Value::str(namespace));
    m.insert("IsUpgrade", Value::Bool(is_upgrade));
    m.insert("IsInstall", Value::Bool(!is_upgrade));
    m.insert("Revision", Value::int(revision));
    m.insert("Service", Value::str("Helm"));
    Value::Map(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(name: &str, data: &str) -> ChartFile {
        ChartFile::new(name, data.as_bytes())
    }

    #[test]
    fn files_helpers() {
        let fs = Files::new(&[
            f("files/a.txt", "line1\nline2\n"),
            f("files/b.yaml", "b: 2\n"),
            f("files/sub/c.txt", "nested\n"),
        ]);
        let g: Vec<String> = fs.glob("files/*").files.keys().cloned().collect();
        assert_eq!(g, ["files/a.txt", "files/b.yaml"]);
        assert_eq!(fs.glob("files/**").files.len(), 3);
        assert_eq!(
            format!("{:?}", fs.lines("files/a.txt").unwrap()),
            r#"[]string["line1", "line2"]"#
        );
        assert_eq!(base64_std(b"line1\nline2\n"), "bGluZTEKbGluZTIK");
        assert_eq!(base64_std(b"b: 2\n"), "YjogMgo=");
    }
}
