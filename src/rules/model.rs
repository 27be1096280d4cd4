//! The shape of rule files. These types are read by serde (through the position-keeping
//! YAML tree) and are what the published JSON Schema for rule files is derived from; the
//! schema of each assertion kind's parameters comes from the kind's own module.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;

use crate::report::Severity;

/// A rule file: a list of rules.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
#[schemars(title = "stackproof rule file")]
pub struct RuleFile {
    pub rules: Vec<RuleSpec>,
}

/// Which layer of a rendered cell a rule looks at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Layer {
    /// Releases as the Helmfile states declare them: name, namespace, id, chart,
    /// version, labels, needs, installed, enabled (condition outcome), condition, state
    /// (the declaring state file) and state-releases (the ids that state declares).
    States,
    /// The merged values each release is rendered with.
    Values,
    /// The rendered Kubernetes documents.
    Manifests,
}

impl Layer {
    pub fn as_str(self) -> &'static str {
        match self {
            Layer::States => "states",
            Layer::Values => "values",
            Layer::Manifests => "manifests",
        }
    }
}

/// One invariant.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct RuleSpec {
    /// A unique, stable identifier (`pki-trust-bundle-has-no-key`), used in `--rule`,
    /// reports and SARIF.
    pub id: String,
    #[serde(default)]
    pub severity: Severity,
    /// A one-line summary.
    pub title: String,
    /// What the rule checks, in more words.
    #[serde(default)]
    pub description: Option<String>,
    /// Why it matters: shown as help with every finding.
    #[serde(default)]
    pub why: Option<String>,
    pub layer: Layer,
    /// A minijinja expression over the cell's values (`values.addons.llm.enabled and
    /// values.addons.llm.pki.mode == "existingSecret"`); the rule is skipped in cells
    /// where it is false. Missing keys are undefined (false), never errors. `expect` is
    /// what the cell declares it expects (its `expect:` in the configuration).
    #[serde(default)]
    pub when: Option<String>,
    /// Which objects of the layer the rule looks at.
    #[serde(default)]
    pub select: SelectorSpec,
    /// What must hold: a list of single-key mappings `{kind: parameters}` (or one
    /// mapping with several kinds). See `stackproof rules explain`.
    #[schemars(schema_with = "crate::rules::assert::assertions_schema")]
    pub assert: serde::de::IgnoredAny,
    /// A minijinja template for the finding's message. Variables: `detail` (what the
    /// assertion found), `rule`, `cell`, `target`, `release`, `resource`, `kind`,
    /// `name`, `namespace`, `path`, `value`, `doc`, `values`, `expect`.
    #[serde(default)]
    pub message: Option<String>,
    /// Let the selector match nothing. By default an empty selection is a finding,
    /// because a rule about nothing proves nothing.
    #[serde(default)]
    pub allow_empty: bool,
}

/// Chooses objects on a layer. Every given criterion must hold.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct SelectorSpec {
    /// Manifests only: kinds (exact).
    #[serde(default)]
    pub kind: Option<Patterns>,
    /// Manifests only: apiVersions (globs).
    #[serde(default)]
    pub api_version: Option<Patterns>,
    /// Object names (globs, `*` and `?`); on the states layer, release names.
    #[serde(default)]
    pub name: Option<Patterns>,
    /// Namespaces (globs). Manifests without `metadata.namespace` are in their
    /// release's namespace.
    #[serde(default)]
    pub namespace: Option<Patterns>,
    /// Releases (globs over `name` or `namespace/name`).
    #[serde(default)]
    pub release: Option<Patterns>,
    /// Labels that must be present with a matching value (glob; `*` = any value). On
    /// manifests these are `metadata.labels`, elsewhere the release's labels.
    #[serde(default)]
    pub labels: BTreeMap<String, String>,
    /// A minijinja expression each object must satisfy; `doc` is the object, `values`
    /// and `expect` the cell's.
    #[serde(default, rename = "where")]
    pub where_: Option<String>,
    /// A JSONPath (RFC 9535) into each object; assertions look at what it matches.
    #[serde(default)]
    pub path: Option<String>,
    /// Let `path` match nothing in an object. By default that is a finding.
    #[serde(default)]
    pub optional: bool,
}

/// One pattern or a list of them (any may match).
#[derive(Clone, Debug, PartialEq, Eq, JsonSchema)]
#[schemars(untagged)]
pub enum Patterns {
    One(String),
    Many(Vec<String>),
}

impl Patterns {
    pub fn list(&self) -> Vec<&str> {
        match self {
            Patterns::One(s) => vec![s.as_str()],
            Patterns::Many(v) => v.iter().map(String::as_str).collect(),
        }
    }
}

impl<'de> Deserialize<'de> for Patterns {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Patterns;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string or a list of strings")
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Patterns, E> {
                Ok(Patterns::One(s.to_string()))
            }
            fn visit_bool<E: serde::de::Error>(self, b: bool) -> Result<Patterns, E> {
                Ok(Patterns::One(b.to_string()))
            }
            fn visit_i64<E: serde::de::Error>(self, i: i64) -> Result<Patterns, E> {
                Ok(Patterns::One(i.to_string()))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, a: A) -> Result<Patterns, A::Error> {
                let v: Vec<String> =
                    Deserialize::deserialize(serde::de::value::SeqAccessDeserializer::new(a))?;
                Ok(Patterns::Many(v))
            }
        }
        d.deserialize_any(V)
    }
}
