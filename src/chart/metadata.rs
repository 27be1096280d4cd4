//! `Chart.yaml` (and v1 `requirements.yaml`): the chart's metadata and dependency
//! list, decoded the way Helm decodes them into its Go structs.
//!
//! Helm reads `Chart.yaml` with `sigs.k8s.io/yaml` into `chart.Metadata`, which has two
//! visible consequences reproduced here: numbers and booleans that land in string
//! fields are turned into strings with Go's formatting (`appVersion: 1.10` becomes
//! `"1.1"`, since floats are printed at 32-bit precision), and anything else of the
//! wrong type fails with `encoding/json`'s error text. Field names match
//! case-insensitively, as in `encoding/json`.

use crate::funcs::semver;
use crate::template::Value;

/// A chart maintainer.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Maintainer {
    pub name: String,
    pub email: String,
    pub url: String,
}

/// One entry of `dependencies:`.
#[derive(Debug, Clone, Default)]
pub struct Dependency {
    pub name: String,
    pub version: String,
    pub repository: String,
    pub condition: String,
    pub tags: Vec<String>,
    pub enabled: bool,
    /// Raw entries: strings or `{child, parent}` maps.
    pub import_values: Vec<Value>,
    pub alias: String,
}

/// `chart.Metadata`.
#[derive(Debug, Clone, Default)]
pub struct Metadata {
    pub name: String,
    pub home: String,
    pub sources: Vec<String>,
    pub version: String,
    pub description: String,
    pub keywords: Vec<String>,
    pub maintainers: Vec<Maintainer>,
    pub icon: String,
    pub api_version: String,
    pub condition: String,
    pub tags: String,
    pub app_version: String,
    pub deprecated: bool,
    /// `None` when absent (v4 prints `null`), in key order otherwise.
    pub annotations: Option<Vec<(String, String)>>,
    pub kube_version: String,
    /// `None` when the chart declares no `dependencies:` key at all (Helm then skips
    /// dependency processing entirely).
    pub dependencies: Option<Vec<Dependency>>,
    pub chart_type: String,
}

/// A Go `encoding/json` type error, kept structured so the caller can prefix it.
fn type_error(value: &Value, strukt: &str, field: &str, ty: &str) -> String {
    format!(
        "json: cannot unmarshal {} into Go struct field {strukt}.{field} of type {ty}",
        super::yamlio::json_kind(value)
    )
}

/// Go's `strconv.FormatFloat(f, 'g', -1, 32)`, which `sigs.k8s.io/yaml` uses to turn a
/// YAML float into a string field.
fn format_float32(f: f64) -> String {
    let x = f as f32;
    if x.is_infinite() {
        return if x > 0.0 {
            "+Inf".into()
        } else {
            "-Inf".into()
        };
    }
    if x.is_nan() {
        return "NaN".into();
    }
    if x == 0.0 {
        return if x.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    // Shortest round-trip digits of the f32, then Go's %g layout.
    let s = format!("{x:e}");
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let neg = mant.starts_with('-');
    let digits: String = mant.chars().filter(|c| c.is_ascii_digit()).collect();
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    let nd = digits.len() as i32;
    if !(-4..6).contains(&exp) {
        out.push_str(&digits[..1]);
        if nd > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push('e');
        out.push(if exp < 0 { '-' } else { '+' });
        let e = exp.abs();
        if e < 10 {
            out.push('0');
        }
        out.push_str(&e.to_string());
    } else if exp < 0 {
        out.push_str("0.");
        for _ in 0..(-exp - 1) {
            out.push('0');
        }
        out.push_str(&digits);
    } else if exp + 1 >= nd {
        out.push_str(&digits);
        for _ in 0..(exp + 1 - nd) {
            out.push('0');
        }
    } else {
        let p = (exp + 1) as usize;
        out.push_str(&digits[..p]);
        out.push('.');
        out.push_str(&digits[p..]);
    }
    out
}

/// A scalar coerced into a Go string field the way `sigs.k8s.io/yaml` does.
fn as_string(v: &Value, strukt: &str, field: &str) -> Result<String, String> {
    match v {
        Value::Nil => Ok(String::new()),
        Value::String(s) => Ok(s.to_string()),
        Value::Int(i, _) => Ok(i.to_string()),
        Value::Uint(u, _) => Ok(u.to_string()),
        Value::Float(f) => Ok(format_float32(*f)),
        Value::Bool(b) => Ok(b.to_string()),
        other => Err(type_error(other, strukt, field, "string")),
    }
}

/// A scalar as `sigs.k8s.io/yaml` turns it into any Go string field (used for
/// manifest heads too); non-scalars give the empty string.
pub fn coerce_for_string_field(v: &Value) -> String {
    as_string(v, "", "").unwrap_or_default()
}

fn as_bool(v: &Value, strukt: &str, field: &str) -> Result<bool, String> {
    match v {
        Value::Nil => Ok(false),
        Value::Bool(b) => Ok(*b),
        other => Err(type_error(other, strukt, field, "bool")),
    }
}

fn as_strings(v: &Value, strukt: &str, field: &str) -> Result<Vec<String>, String> {
    match v {
        Value::Nil => Ok(Vec::new()),
        Value::List(l) => l.iter().map(|x| as_string(x, strukt, field)).collect(),
        other => Err(type_error(other, strukt, field, "[]string")),
    }
}

/// Looks a struct field up the way `encoding/json` does: exact name first, then a
/// case-insensitive match.
fn field<'a>(entries: &'a [(String, Value)], name: &str) -> Option<&'a Value> {
    entries
        .iter()
        .find(|(k, _)| k == name)
        .or_else(|| entries.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)))
        .map(|(_, v)| v)
}

impl Dependency {
    fn from_value(v: &Value) -> Result<Option<Dependency>, String> {
        let m = match v {
            Value::Nil => return Ok(None),
            Value::Map(m) => m.entries(),
            other => {
                return Err(type_error(
                    other,
                    "Metadata",
                    "dependencies",
                    "chart.Dependency",
                ))
            }
        };
        let s = |n: &str| -> Result<String, String> {
            field(&m, n).map_or(Ok(String::new()), |v| {
                as_string(v, "Dependency", &format!("dependencies.{n}"))
            })
        };
        let import_values = match field(&m, "import-values") {
            None | Some(Value::Nil) => Vec::new(),
            Some(Value::List(l)) => l.to_vec(),
            Some(other) => {
                return Err(type_error(
                    other,
                    "Dependency",
                    "dependencies.import-values",
                    "[]interface {}",
                ))
            }
        };
        Ok(Some(Dependency {
            name: s("name")?,
            version: s("version")?,
            repository: s("repository")?,
            condition: s("condition")?,
            tags: field(&m, "tags").map_or(Ok(Vec::new()), |v| {
                as_strings(v, "Dependency", "dependencies.tags")
            })?,
            enabled: field(&m, "enabled").map_or(Ok(false), |v| {
                as_bool(v, "Dependency", "dependencies.enabled")
            })?,
            import_values,
            alias: s("alias")?,
        }))
    }

    /// The name the dependency is known by in its parent (alias wins).
    pub fn key(&self) -> &str {
        if self.alias.is_empty() {
            &self.name
        } else {
            &self.alias
        }
    }
}

/// Decodes the dependencies list; `null` entries are kept as `None` so validation
/// can reject them with Helm's message.
fn dependencies_from(v: &Value) -> Result<Option<Vec<Option<Dependency>>>, String> {
    match v {
        Value::Nil => Ok(None),
        Value::List(l) => Ok(Some(
            l.iter()
                .map(Dependency::from_value)
                .collect::<Result<_, _>>()?,
        )),
        other => Err(type_error(
            other,
            "Metadata",
            "dependencies",
            "[]*chart.Dependency",
        )),
    }
}

/// The result of decoding `Chart.yaml` before validation.
pub struct RawMetadata {
    pub md: Metadata,
    deps: Option<Vec<Option<Dependency>>>,
}

impl Metadata {
    /// Decodes `Chart.yaml` text. Errors carry Helm's text after `cannot load
    /// Chart.yaml: `.
    pub fn parse(text: &str) -> Result<RawMetadata, String> {
        let v = super::yamlio::decode_typed(text)?;
        let mut raw = RawMetadata {
            md: Metadata::default(),
            deps: None,
        };
        raw.merge_from(&v)
            .map_err(|e| format!("error unmarshaling JSON: while decoding JSON: {e}"))?;
        Ok(raw)
    }
}

impl RawMetadata {
    /// Metadata with every field unset (Helm's `new(chart.Metadata)`).
    pub fn empty() -> RawMetadata {
        RawMetadata {
            md: Metadata::default(),
            deps: None,
        }
    }

    /// Decodes a document into the metadata, overwriting only the fields it sets
    /// (Helm decodes `requirements.yaml` into the same struct).
    pub fn merge_from(&mut self, v: &Value) -> Result<(), String> {
        let entries = match v {
            Value::Nil => return Ok(()),
            Value::Map(m) => m.entries(),
            other => {
                return Err(format!(
                    "json: cannot unmarshal {} into Go value of type chart.Metadata",
                    super::yamlio::json_kind(other)
                ))
            }
        };
        let md = &mut self.md;
        let mut first_err: Option<String> = None;
        let mut note = |r: Result<(), String>| {
            if let Err(e) = r {
                first_err.get_or_insert(e);
            }
        };
        macro_rules! string_field {
            ($name:literal, $slot:expr) => {
                if let Some(x) = field(&entries, $name) {
                    note(as_string(x, "Metadata", $name).map(|s| $slot = s));
                }
            };
        }
        string_field!("name", md.name);
        string_field!("home", md.home);
        string_field!("version", md.version);
        string_field!("description", md.description);
        string_field!("icon", md.icon);
        string_field!("apiVersion", md.api_version);
        string_field!("condition", md.condition);
        string_field!("tags", md.tags);
        string_field!("appVersion", md.app_version);
        string_field!("kubeVersion", md.kube_version);
        string_field!("type", md.chart_type);
        if let Some(x) = field(&entries, "sources") {
            note(as_strings(x, "Metadata", "sources").map(|s| md.sources = s));
        }
        if let Some(x) = field(&entries, "keywords") {
            note(as_strings(x, "Metadata", "keywords").map(|s| md.keywords = s));
        }
        if let Some(x) = field(&entries, "deprecated") {
            note(as_bool(x, "Metadata", "deprecated").map(|b| md.deprecated = b));
        }
        if let Some(x) = field(&entries, "annotations") {
            match x {
                Value::Nil => md.annotations = None,
                Value::Map(m) => {
                    let mut out = Vec::new();
                    for (k, v) in m.entries() {
                        match as_string(&v, "Metadata", "annotations") {
                            Ok(s) => out.push((k, s)),
                            Err(e) => note(Err(e)),
                        }
                    }
                    md.annotations = Some(out);
                }
                other => note(Err(type_error(
                    other,
                    "Metadata",
                    "annotations",
                    "map[string]string",
                ))),
            }
        }
        if let Some(x) = field(&entries, "maintainers") {
            match x {
                Value::Nil => md.maintainers.clear(),
                Value::List(l) => {
                    let mut out = Vec::new();
                    for item in l.iter() {
                        match item {
                            Value::Map(m) => {
                                let e = m.entries();
                                let get = |n: &str| {
                                    field(&e, n).map_or(Ok(String::new()), |v| {
                                        as_string(v, "Maintainer", &format!("maintainers.{n}"))
                                    })
                                };
                                match (get("name"), get("email"), get("url")) {
                                    (Ok(name), Ok(email), Ok(url)) => {
                                        out.push(Maintainer { name, email, url })
                                    }
                                    (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => {
                                        note(Err(e))
                                    }
                                }
                            }
                            Value::Nil => out.push(Maintainer::default()),
                            other => note(Err(type_error(
                                other,
                                "Metadata",
                                "maintainers",
                                "chart.Maintainer",
                            ))),
                        }
                    }
                    md.maintainers = out;
                }
                other => note(Err(type_error(
                    other,
                    "Metadata",
                    "maintainers",
                    "[]*chart.Maintainer",
                ))),
            }
        }
        if let Some(x) = field(&entries, "dependencies") {
            match dependencies_from(x) {
                Ok(d) => self.deps = d,
                Err(e) => note(Err(e)),
            }
        }
        match first_err {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Helm's `Metadata.Validate`: sanitises strings and checks required fields.
    /// Error texts are Helm's `validation: ...` messages.
    pub fn validate(mut self) -> Result<Metadata, String> {
        let md = &mut self.md;
        for s in [
            &mut md.name,
            &mut md.description,
            &mut md.home,
            &mut md.icon,
            &mut md.condition,
            &mut md.tags,
            &mut md.app_version,
            &mut md.kube_version,
        ] {
            *s = sanitize(s);
        }
        for s in md.sources.iter_mut().chain(md.keywords.iter_mut()) {
            *s = sanitize(s);
        }
        if md.api_version.is_empty() {
            return Err("validation: chart.metadata.apiVersion is required".into());
        }
        if md.name.is_empty() {
            return Err("validation: chart.metadata.name is required".into());
        }
        if md.name.contains('/') || md.name == "." || md.name == ".." {
            return Err(format!(
                "validation: chart.metadata.name {:?} is invalid",
                md.name
            ));
        }
        if md.version.is_empty() {
            return Err("validation: chart.metadata.version is required".into());
        }
        // Both semver releases Helm links accept the same versions (only their error
        // texts differ), and only acceptance matters here.
        if semver::Version::parse(&md.version, semver::Lib::V3_2).is_err() {
            return Err(format!(
                "validation: chart.metadata.version {:?} is invalid",
                md.version
            ));
        }
        if !matches!(md.chart_type.as_str(), "" | "application" | "library") {
            return Err("validation: chart.metadata.type must be application or library".into());
        }
        for m in md.maintainers.iter_mut() {
            m.name = sanitize(&m.name);
            m.email = sanitize(&m.email);
            m.url = sanitize(&m.url);
        }
        let mut deps = Vec::new();
        if let Some(list) = self.deps.take() {
            let mut seen = std::collections::HashSet::new();
            for d in list {
                let Some(mut d) = d else {
                    return Err(
                        "validation: dependencies must not contain empty or null nodes".into(),
                    );
                };
                d.name = sanitize(&d.name);
                d.version = sanitize(&d.version);
                d.repository = sanitize(&d.repository);
                d.condition = sanitize(&d.condition);
                for t in d.tags.iter_mut() {
                    *t = sanitize(t);
                }
                if !d.alias.is_empty()
                    && !d
                        .alias
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
                {
                    return Err(format!(
                        "validation: dependency {:?} has disallowed characters in the alias",
                        d.name
                    ));
                }
                if !seen.insert(d.key().to_string()) {
                    return Err(format!(
                        "validation: more than one dependency with name or alias {:?}",
                        d.key()
                    ));
                }
                deps.push(d);
            }
            self.md.dependencies = Some(deps);
        } else {
            self.md.dependencies = None;
        }
        Ok(self.md)
    }

    /// The API version as decoded so far (Helm defaults a missing one to `v1`).
    pub fn api_version_mut(&mut self) -> &mut String {
        &mut self.md.api_version
    }
}

/// Helm's `sanitizeString`: whitespace becomes a space, unprintable characters go.
fn sanitize(s: &str) -> String {
    s.chars()
        .filter_map(|c| {
            if c.is_whitespace() {
                Some(' ')
            } else if c.is_control() {
                None
            } else {
                Some(c)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float32_formatting_matches_go() {
        assert_eq!(format_float32(1.10), "1.1");
        assert_eq!(format_float32(1.0), "1");
        assert_eq!(format_float32(0.1), "0.1");
        assert_eq!(format_float32(20240101.0), "2.02401e+07");
        assert_eq!(format_float32(123456.0), "123456");
        assert_eq!(format_float32(0.00001), "1e-05");
    }

    #[test]
    fn decodes_and_validates() {
        let raw = Metadata::parse(
            r#"{"apiVersion":"v2","name":"x","version":"1.0.0","appVersion":20240101,
               "dependencies":[{"name":"sub","version":"1.x","alias":"s2","condition":"s2.enabled"}]}"#,
        )
        .unwrap();
        let md = raw.validate().unwrap();
        assert_eq!(md.app_version, "20240101");
        let deps = md.dependencies.unwrap();
        assert_eq!(deps[0].key(), "s2");
    }

    #[test]
    fn validation_messages() {
        let md = Metadata::parse(r#"{"apiVersion":"v2","name":"x"}"#).unwrap();
        assert_eq!(
            md.validate().unwrap_err(),
            "validation: chart.metadata.version is required"
        );
        let md = Metadata::parse(
            r#"{"apiVersion":"v2","name":"x","version":"1.0.0","deprecated":"yes"}"#,
        );
        assert_eq!(
            md.err().unwrap(),
            "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal string into Go struct field Metadata.deprecated of type bool"
        );
    }
}
