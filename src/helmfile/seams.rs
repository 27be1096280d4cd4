//! The points where Helmfile rendering meets the other engines of the crate: the Go
//! template engine, the yaml.v2 codec and Helm chart rendering. Everything Helmfile-
//! specific stays on this side; each function here is one narrow call so the
//! engines can change underneath without touching the state logic.

use std::path::PathBuf;

use super::ynode::YNode;
use crate::template::{Host, Registry, Value};

/// Go's `missingkey` option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MissingKey {
    /// First rendering pass: a missing key is the zero value (`<no value>`).
    Zero,
    /// Final pass: `map has no entry for key "x"`.
    Error,
}

/// One Helmfile template execution: a template set named `name`, the helper files
/// (`_*.tpl` in the base directory) parsed into it first, then `text` parsed as its
/// body and executed with `data`.
pub struct TemplateCall<'a> {
    pub name: &'a str,
    pub helpers: &'a [(String, String)],
    pub text: &'a str,
    pub data: &'a Value,
    pub missing_key: MissingKey,
    pub registry: &'a Registry,
    pub host: &'a Host,
}

/// A failed execution: Go's error and, for execution (not parse) errors, the output
/// written before the failure, which Helmfile's first pass keeps using.
#[derive(Debug, Clone)]
pub struct TemplateFailure {
    pub partial: Option<String>,
    pub error: Box<crate::template::Error>,
}

/// Executes a template call with the crate's Go template engine.
pub fn execute_template(call: &TemplateCall<'_>) -> Result<String, TemplateFailure> {
    let _ = (
        call.name,
        call.helpers,
        call.text,
        call.data,
        call.missing_key,
        call.registry,
        call.host,
    );
    Err(TemplateFailure {
        partial: None,
        error: Box::new(crate::template::Error::new(
            crate::template::ErrorKind::Exec,
            "the Go template engine is not available in this build yet",
        )),
    })
}

/// A YAML problem, with yaml.v2's message text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlError(pub String);

impl std::fmt::Display for YamlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Splits a rendered state part into YAML documents and decodes each to a node tree
/// (anchors, aliases and `<<` merges resolved). `strict` adds yaml.v2's duplicate-key
/// checks (`key "a" already set in map`, including keys set by a merge).
pub fn parse_state_documents(text: &str, strict: bool) -> Result<Vec<YNode>, YamlError> {
    let _ = (text, strict);
    Err(YamlError(
        "the yaml.v2 codec is not available in this build yet".to_string(),
    ))
}

/// `yaml.Unmarshal(bytes, &map[string]any{})` (yaml.v2) followed by Helmfile's
/// `CastKeysToStrings`.
pub fn decode_values(text: &str) -> Result<Value, YamlError> {
    let _ = text;
    Err(YamlError(
        "the yaml.v2 codec is not available in this build yet".to_string(),
    ))
}

/// `yaml.Marshal(v)` (yaml.v2), including the final newline.
pub fn encode_yaml(v: &Value) -> Result<String, YamlError> {
    let _ = v;
    Err(YamlError(
        "the yaml.v2 codec is not available in this build yet".to_string(),
    ))
}

/// What `helm template` needs for one release.
#[derive(Debug, Clone)]
pub struct ChartCall {
    pub release_name: String,
    pub namespace: String,
    pub chart_dir: PathBuf,
    /// `.Chart.Version` to render instead of the chart's own.
    pub version_override: Option<String>,
    /// `--values` files in order: (name shown in errors, bytes).
    pub values_files: Vec<(String, Vec<u8>)>,
    /// `--set` arguments in order.
    pub set: Vec<String>,
    pub kube_version: Option<String>,
    pub api_versions: Vec<String>,
    pub include_crds: bool,
    pub skip_tests: bool,
}

/// Renders a chart the way `helm template` (v3.15) prints it, returning stdout.
pub fn render_chart(call: &ChartCall) -> Result<String, String> {
    let _ = call;
    Err("Helm chart rendering is not available in this build yet".to_string())
}
