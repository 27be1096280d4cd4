//! Helmfile's `environment.Environment` and the data its templates see.
//!
//! An environment is a name, a kube context, environment values and defaults (the
//! state's top-level `values:`); `.Values` is defaults overlaid with values. Helmfile
//! copies environments by marshalling them to YAML and back, so every copy changes
//! types the way a yaml.v2 round trip does: `int64` becomes `int`, an integral
//! `float64` below one million becomes an `int` (`3.0` → `3`, but `1e+06` stays a
//! float), `[]string` becomes `[]interface {}`, `map[string]string` becomes
//! `map[string]interface {}`. Templates can see those types (`kindOf`, `printf "%d"`),
//! so the copy is reproduced exactly.

use std::sync::Arc;

use super::gomerge::merge_override;
use crate::template::{IntType, Kind, List, Map, MapType, Object, UintType, Value};

/// `environment.Environment`.
#[derive(Clone, Default)]
pub struct Environment {
    pub name: String,
    pub kube_context: String,
    pub values: Map,
    pub defaults: Map,
}

impl std::fmt::Debug for Environment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Environment")
            .field("name", &self.name)
            .field("kube_context", &self.kube_context)
            .field("values", &Value::Map(self.values.clone()))
            .field("defaults", &Value::Map(self.defaults.clone()))
            .finish()
    }
}

/// A value after `yaml.Marshal` + `yaml.Unmarshal` (yaml.v2) + `CastKeysToStrings`.
pub fn yaml_roundtrip(v: &Value) -> Value {
    match v {
        Value::Nil | Value::Bool(_) | Value::String(_) => v.clone(),
        Value::Int(i, _) => Value::Int(*i, IntType::Int),
        Value::Uint(u, _) => {
            if *u <= i64::MAX as u64 {
                Value::Int(*u as i64, IntType::Int)
            } else {
                Value::Uint(*u, UintType::Uint64)
            }
        }
        Value::Float(f) => {
            // yaml.v2 writes floats with strconv 'g' (shortest); integral values
            // with an exponent below 6 print without '.' or 'e' and read back as int.
            if f.is_finite() && f.fract() == 0.0 && f.abs() < 1e6 {
                Value::Int(*f as i64, IntType::Int)
            } else {
                Value::Float(*f)
            }
        }
        Value::Bytes(b) => Value::list(b.iter().map(|x| Value::int(*x as i64)).collect()),
        Value::List(l) => Value::List(List::new(l.iter().map(yaml_roundtrip).collect())),
        Value::Map(m) => {
            let out = Map::new();
            m.with_read(|entries| {
                for (k, x) in entries {
                    out.insert(k.clone(), yaml_roundtrip(x));
                }
            });
            Value::Map(out)
        }
        Value::Object(o) => yaml_roundtrip(&o.to_json_value()),
    }
}

fn roundtrip_map(m: &Map) -> Map {
    match yaml_roundtrip(&Value::Map(m.clone())) {
        Value::Map(m) => m,
        _ => Map::new(),
    }
}

impl Environment {
    pub fn new(name: &str) -> Environment {
        Environment {
            name: name.to_string(),
            ..Default::default()
        }
    }

    /// `Environment.DeepCopy` (a YAML round trip of values and defaults).
    pub fn deep_copy(&self) -> Environment {
        Environment {
            name: self.name.clone(),
            kube_context: self.kube_context.clone(),
            values: roundtrip_map(&self.values),
            defaults: roundtrip_map(&self.defaults),
        }
    }

    /// `mergo.Merge(&self, other, mergo.WithOverride)` on the struct: non-empty
    /// strings replace, maps merge key by key.
    pub fn merge_from(&mut self, other: &Environment) {
        if !other.name.is_empty() {
            self.name = other.name.clone();
        }
        if !other.kube_context.is_empty() {
            self.kube_context = other.kube_context.clone();
        }
        merge_override(&self.values, &other.values);
        merge_override(&self.defaults, &other.defaults);
    }

    /// `(*Environment).Merge`: a deep copy of `this` with `other` merged over it; a
    /// missing `this` gives a copy of `other`.
    pub fn merge(this: Option<&Environment>, other: Option<&Environment>) -> Option<Environment> {
        Environment::merge_owned(this.map(Environment::deep_copy), other)
    }

    /// [`Environment::merge`] of an environment the caller owns and nothing else
    /// refers to (one that `merge` itself just made): merged in place rather than
    /// copied again, since no one could see the copy differ.
    pub fn merge_owned(
        this: Option<Environment>,
        other: Option<&Environment>,
    ) -> Option<Environment> {
        match this {
            None => other.map(Environment::deep_copy),
            Some(mut e) => {
                if let Some(o) = other {
                    e.merge_from(o);
                }
                Some(e)
            }
        }
    }

    /// `GetMergedValues`: defaults overlaid with values, into a fresh map.
    pub fn merged_values(&self) -> Map {
        let vals = Map::new();
        merge_override(&vals, &self.defaults);
        merge_override(&vals, &self.values);
        vals
    }
}

fn struct_fmt(fields: &[String]) -> String {
    format!("{{{}}}", fields.join(" "))
}

/// `.Environment` as templates see it (`environment.Environment`).
#[derive(Clone, Debug)]
pub struct EnvObject(pub Environment);

impl Object for EnvObject {
    fn type_name(&self) -> String {
        "environment.Environment".to_string()
    }

    fn kind(&self) -> Kind {
        Kind::Struct
    }

    fn field(&self, name: &str) -> Option<Value> {
        match name {
            "Name" => Some(Value::str(self.0.name.as_str())),
            "KubeContext" => Some(Value::str(self.0.kube_context.as_str())),
            "Values" => Some(Value::Map(self.0.values.clone())),
            "Defaults" => Some(Value::Map(self.0.defaults.clone())),
            _ => None,
        }
    }

    fn fmt_v(&self, plus: bool) -> String {
        let f = |n: &str, v: String| if plus { format!("{n}:{v}") } else { v };
        struct_fmt(&[
            f("Name", self.0.name.clone()),
            f("KubeContext", self.0.kube_context.clone()),
            f(
                "Values",
                crate::template::fmt::format_value(&Value::Map(self.0.values.clone())),
            ),
            f(
                "Defaults",
                crate::template::fmt::format_value(&Value::Map(self.0.defaults.clone())),
            ),
        ])
    }

    fn json_order(&self) -> Option<&'static [&'static str]> {
        Some(&["Name", "KubeContext", "Values", "Defaults"])
    }

    fn yaml_v2_untagged_struct(&self) -> bool {
        true
    }

    fn to_json_value(&self) -> Value {
        let m = Map::new();
        m.insert("Name", Value::str(self.0.name.as_str()));
        m.insert("KubeContext", Value::str(self.0.kube_context.as_str()));
        m.insert("Values", Value::Map(self.0.values.clone()));
        m.insert("Defaults", Value::Map(self.0.defaults.clone()));
        Value::Map(m)
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// `.Release` in release templates (`state.releaseTemplateDataRelease`).
#[derive(Clone, Debug, Default)]
pub struct ReleaseInfo {
    pub name: String,
    pub namespace: String,
    pub labels: std::collections::BTreeMap<String, String>,
    pub chart: String,
    pub kube_context: String,
}

impl ReleaseInfo {
    fn labels_value(&self) -> Value {
        let m = Map::with_type(MapType::String);
        for (k, v) in &self.labels {
            m.insert(k.clone(), Value::str(v.as_str()));
        }
        Value::Map(m)
    }
}

impl Object for ReleaseInfo {
    fn type_name(&self) -> String {
        "state.releaseTemplateDataRelease".to_string()
    }

    fn kind(&self) -> Kind {
        Kind::Struct
    }

    fn field(&self, name: &str) -> Option<Value> {
        match name {
            "Name" => Some(Value::str(self.name.as_str())),
            "Namespace" => Some(Value::str(self.namespace.as_str())),
            "Labels" => Some(self.labels_value()),
            "Chart" => Some(Value::str(self.chart.as_str())),
            "KubeContext" => Some(Value::str(self.kube_context.as_str())),
            _ => None,
        }
    }

    fn fmt_v(&self, plus: bool) -> String {
        let f = |n: &str, v: String| if plus { format!("{n}:{v}") } else { v };
        struct_fmt(&[
            f("Name", self.name.clone()),
            f("Namespace", self.namespace.clone()),
            f(
                "Labels",
                crate::template::fmt::format_value(&self.labels_value()),
            ),
            f("Chart", self.chart.clone()),
            f("KubeContext", self.kube_context.clone()),
        ])
    }

    fn json_order(&self) -> Option<&'static [&'static str]> {
        Some(&["Name", "Namespace", "Labels", "Chart", "KubeContext"])
    }

    fn yaml_v2_untagged_struct(&self) -> bool {
        true
    }

    fn to_json_value(&self) -> Value {
        let m = Map::new();
        m.insert("Name", Value::str(self.name.as_str()));
        m.insert("Namespace", Value::str(self.namespace.as_str()));
        m.insert("Labels", self.labels_value());
        m.insert("Chart", Value::str(self.chart.as_str()));
        m.insert("KubeContext", Value::str(self.kube_context.as_str()));
        Value::Map(m)
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// The root data of state and values templates: `state.EnvironmentTemplateData`, or
/// `state.releaseTemplateData` when a release is in scope.
#[derive(Clone)]
pub struct TemplateData {
    pub environment: Environment,
    pub namespace: String,
    pub values: Map,
    /// `Some` for release templates (which also have `KubeContext` and `Chart`).
    pub release: Option<ReleaseInfo>,
    pub kube_context: String,
    pub chart: String,
}

impl std::fmt::Debug for TemplateData {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TemplateData")
            .field("environment", &self.environment)
            .field("namespace", &self.namespace)
            .field("values", &Value::Map(self.values.clone()))
            .field("release", &self.release)
            .finish()
    }
}

impl TemplateData {
    pub fn for_state(environment: Environment, namespace: &str, values: Map) -> TemplateData {
        TemplateData {
            environment,
            namespace: namespace.to_string(),
            values,
            release: None,
            kube_context: String::new(),
            chart: String::new(),
        }
    }

    pub fn into_value(self) -> Value {
        Value::Object(Arc::new(self))
    }
}

impl Object for TemplateData {
    fn type_name(&self) -> String {
        if self.release.is_some() {
            "state.releaseTemplateData".to_string()
        } else {
            "*state.EnvironmentTemplateData".to_string()
        }
    }

    fn kind(&self) -> Kind {
        if self.release.is_some() {
            Kind::Struct
        } else {
            Kind::Ptr
        }
    }

    fn field(&self, name: &str) -> Option<Value> {
        match name {
            "Environment" => Some(Value::object(EnvObject(self.environment.clone()))),
            "Namespace" => Some(Value::str(self.namespace.as_str())),
            "Values" | "StateValues" => Some(Value::Map(self.values.clone())),
            "Release" => self.release.clone().map(Value::object),
            "KubeContext" if self.release.is_some() => Some(Value::str(self.kube_context.as_str())),
            "Chart" if self.release.is_some() => Some(Value::str(self.chart.as_str())),
            _ => None,
        }
    }

    fn fmt_v(&self, _plus: bool) -> String {
        format!("{:p}", self as *const _)
    }

    fn json_order(&self) -> Option<&'static [&'static str]> {
        Some(if self.release.is_some() {
            &[
                "Environment",
                "Release",
                "Values",
                "StateValues",
                "KubeContext",
                "Namespace",
                "Chart",
            ]
        } else {
            &["Environment", "Namespace", "Values", "StateValues"]
        })
    }

    fn yaml_v2_untagged_struct(&self) -> bool {
        true
    }

    fn to_json_value(&self) -> Value {
        let m = Map::new();
        for f in self.json_order().unwrap_or_default() {
            if let Some(v) = self.field(f) {
                m.insert(*f, v);
            }
        }
        Value::Map(m)
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vmap;

    #[test]
    fn roundtrip_types() {
        let v = vmap! {"i" => Value::int64(5), "f" => 3.0, "big" => 1e6, "frac" => 1.5,
        "l" => Value::string_list(["a"]), "u" => Value::Uint(12345678901234567890, UintType::Uint64)};
        let r = yaml_roundtrip(&v);
        let t = |k: &str| r.get(k).map(|x| x.type_name()).unwrap_or_default();
        assert_eq!(t("i"), "int");
        assert_eq!(t("f"), "int");
        assert_eq!(t("big"), "float64");
        assert_eq!(t("frac"), "float64");
        assert_eq!(t("l"), "[]interface {}");
        assert_eq!(t("u"), "uint64");
    }

    #[test]
    fn merged_values_overlay() {
        let mut e = Environment::new("default");
        e.defaults = match vmap! {"a" => 1.0, "b" => 1.0} {
            Value::Map(m) => m,
            _ => Map::new(),
        };
        e.values = match vmap! {"b" => 2.0} {
            Value::Map(m) => m,
            _ => Map::new(),
        };
        let m = e.merged_values();
        assert!(m.get("b").is_some_and(|v| v.deep_equal(&Value::Float(2.0))));
        assert!(m.contains_key("a"));
    }
}
