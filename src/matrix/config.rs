//! `stackproof.yaml`: what to render (targets), across which inputs (matrices), and which
//! rules to check on each target.
//!
//! The file types here are the single source of truth for the configuration's shape: serde
//! reads them (through the position-keeping YAML tree, so every mistake is reported at
//! `file:line:col`) and `schemars` derives the published JSON Schema from them.
//!
//! Relative paths in the file are relative to the file's own directory, or to `--root`
//! when given, so a configuration can be kept outside the tree it checks. Rule paths
//! are looked up next to the configuration file first (a rule pack ships its rules
//! beside its configuration) and under `--root` only when nothing matches there.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value as Json;

use super::error::InputError;
use super::expand::{expand, Cell};
use super::yaml::{self, Duplicates, Pos};
use crate::source::Location;

/// The name of the configuration file looked for from the working directory upwards.
pub const CONFIG_FILE_NAME: &str = "stackproof.yaml";

/// A stackproof configuration (`stackproof.yaml`).
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
#[schemars(title = "stackproof configuration")]
pub struct ConfigFile {
    /// What to render and check.
    pub targets: Vec<TargetSpec>,
    /// Named matrices of input values that targets refer to by name.
    #[serde(default)]
    pub matrices: IndexMap<String, MatrixSpec>,
    /// Rule files (paths or globs) checked on every target, before the target's own.
    #[serde(default)]
    pub rules: Vec<String>,
    /// A fixed "now" (RFC 3339, e.g. `2026-01-01T00:00:00Z`) for certificate expiry
    /// checks, so runs are reproducible. Defaults to the current time.
    #[serde(default)]
    pub now: Option<String>,
}

/// One thing to render: a Helmfile stack, a plain chart, or pre-rendered fixtures.
/// Exactly one of `helmfile`, `chart` and `fixture` is given.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct TargetSpec {
    /// The target's name in reports; unique within the file.
    pub name: String,
    #[serde(default)]
    pub helmfile: Option<HelmfileTarget>,
    #[serde(default)]
    pub chart: Option<ChartTarget>,
    #[serde(default)]
    pub fixture: Option<FixtureTarget>,
    /// The name of a matrix under `matrices`; without one the target has a single cell
    /// named `default`.
    #[serde(default)]
    pub matrix: Option<String>,
    /// Rule files for this target: paths or globs (`rules/**/*.yaml`), looked up next
    /// to this file first, then under `--root`.
    #[serde(default)]
    pub rules: Vec<String>,
    /// Values every cell of this target starts from (state values for a stack, `--set`
    /// style values for a chart, the `when` values for fixtures).
    #[serde(default)]
    pub values: Option<Json>,
}

/// A Helmfile stack rendered as `helmfile template` would.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct HelmfileTarget {
    /// The state file or `helmfile.d` directory (`--file`).
    pub file: String,
    /// The Helmfile environment (`--environment`).
    #[serde(default = "default_environment")]
    pub environment: String,
    /// Environment variables the stack reads (`requiredEnv`, `env`).
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// State values files (`--state-values-file`), applied before cell values.
    #[serde(default)]
    pub state_values_files: Vec<String>,
    /// Where charts referenced from repositories live locally: chart reference
    /// (`repo/chart`, `oci://host/path/chart`) to a chart directory.
    #[serde(default)]
    pub chart_sources: BTreeMap<String, String>,
    /// Directories searched for a chart by its name when `chart-sources` has no entry.
    #[serde(default)]
    pub chart_dirs: Vec<String>,
    /// Files the stack expects but the repository does not hold, relative to the state
    /// file's directory, with their content (`secrets/base-secrets.yaml: "{}"`).
    #[serde(default)]
    pub overlays: BTreeMap<String, String>,
    /// Release selectors (`--selector`, e.g. `name=api`): only matching releases are
    /// rendered (every release still appears on the states layer).
    #[serde(default)]
    pub selectors: Vec<String>,
    /// Which Helm to imitate.
    #[serde(default)]
    pub helm_version: HelmVersion,
    /// Let the stack run the programs it names, as helmfile does: templates'
    /// `exec`/`envExec` and releases' `postRenderer` (`--allow-exec`). Off by
    /// default: a stack that names one then fails to render, saying so.
    #[serde(default)]
    pub allow_exec: bool,
}

fn default_environment() -> String {
    "default".into()
}

/// A plain chart rendered as `helm template` would.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct ChartTarget {
    /// The chart directory.
    pub path: String,
    /// The release name (`helm template NAME`).
    #[serde(default = "default_release")]
    pub release: String,
    /// The release namespace (`--namespace`).
    #[serde(default = "default_namespace")]
    pub namespace: String,
    /// Values files (`-f`), in order.
    #[serde(default)]
    pub values: Vec<String>,
    /// `--set` values: dotted path to value.
    #[serde(default)]
    pub set: IndexMap<String, Json>,
    /// Which Helm to imitate.
    #[serde(default)]
    pub helm_version: HelmVersion,
    /// Files the chart expects but the repository does not hold, with their content.
    #[serde(default)]
    pub overlays: BTreeMap<String, String>,
}

fn default_release() -> String {
    "release-name".into()
}

fn default_namespace() -> String {
    "default".into()
}

/// Pre-rendered layers read from files (for tests and for checking output produced
/// elsewhere). See `testdata/rules/README.md` for the layout.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct FixtureTarget {
    /// The fixture directory.
    pub path: String,
    /// Per-cell fixture directories (cell name to directory, relative to `path`); a
    /// cell without an entry uses `path` itself.
    #[serde(default)]
    pub cells: BTreeMap<String, String>,
}

/// The Helm release whose behaviour is imitated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, JsonSchema)]
pub enum HelmVersion {
    /// Helm v3.15.3.
    #[default]
    #[serde(rename = "3", alias = "v3", alias = "v3.15.3")]
    V3,
    /// Helm v4.3.1.
    #[serde(rename = "4", alias = "v4", alias = "v4.3.1")]
    V4,
}

/// A matrix: the cartesian product of its axes, minus `exclude`, plus `include`, plus
/// explicitly named `cells`.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct MatrixSpec {
    /// Dotted value path to the values it takes (`addons.llm.enabled: [true, false]`),
    /// or to `{name, values}` to choose the short name used in cell names.
    #[serde(default)]
    pub axes: IndexMap<String, AxisSpec>,
    /// Extra combinations (dotted path to value), added after the product.
    #[serde(default)]
    pub include: Vec<IndexMap<String, Json>>,
    /// Partial combinations to leave out of the product: a cell is dropped when it
    /// matches every entry of one of these.
    #[serde(default)]
    pub exclude: Vec<IndexMap<String, Json>>,
    /// Explicit cells with their own names, added last.
    #[serde(default)]
    pub cells: Vec<CellSpec>,
}

/// One axis of a matrix.
#[derive(Clone, Debug, JsonSchema)]
#[schemars(untagged)]
pub enum AxisSpec {
    /// The values the axis takes.
    Values(Vec<Json>),
    /// The values, with the short name shown in cell names.
    Named {
        /// Short name in cell names (default: the shortest unambiguous tail of the path,
        /// without a trailing `.enabled`).
        name: Option<String>,
        values: Vec<Json>,
    },
}

impl AxisSpec {
    pub fn values(&self) -> &[Json] {
        match self {
            AxisSpec::Values(v) => v,
            AxisSpec::Named { values, .. } => values,
        }
    }

    pub fn name(&self) -> Option<&str> {
        match self {
            AxisSpec::Values(_) => None,
            AxisSpec::Named { name, .. } => name.as_deref(),
        }
    }
}

impl<'de> Deserialize<'de> for AxisSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = AxisSpec;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a list of values or a mapping with `values` (and `name`)")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, a: A) -> Result<AxisSpec, A::Error> {
                let v: Vec<Json> =
                    Deserialize::deserialize(serde::de::value::SeqAccessDeserializer::new(a))?;
                Ok(AxisSpec::Values(v))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, a: A) -> Result<AxisSpec, A::Error> {
                #[derive(Deserialize)]
                #[serde(deny_unknown_fields)]
                struct Named {
                    #[serde(default)]
                    name: Option<String>,
                    values: Vec<Json>,
                }
                let n: Named =
                    Deserialize::deserialize(serde::de::value::MapAccessDeserializer::new(a))?;
                Ok(AxisSpec::Named {
                    name: n.name,
                    values: n.values,
                })
            }
        }
        d.deserialize_any(V)
    }
}

/// An explicitly named cell.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct CellSpec {
    /// The cell's name in reports.
    pub name: String,
    /// Dotted path to value, like an axis assignment.
    #[serde(default)]
    pub set: IndexMap<String, Json>,
    /// Environment variables for this cell.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Extra values files: state values files for a stack, `-f` files for a chart.
    #[serde(default)]
    pub values_files: Vec<String>,
    /// Nested values merged over the target's values.
    #[serde(default)]
    pub values: Option<Json>,
    /// Only these rules (ids or globs) are checked on this cell. For cells that are
    /// meant to fail rendering, where every other rule could only report that it
    /// cannot evaluate.
    #[serde(default)]
    pub rules: Vec<String>,
    /// Helmfile targets: release selectors (`name=api`) added to the target's.
    #[serde(default)]
    pub selectors: Vec<String>,
    /// What the cell is expected to produce, for rules to compare with (`expect` in
    /// `when`, `where` and messages). Not passed to the renderer: a cell states its
    /// expectation once instead of every rule re-deriving it from the inputs.
    #[serde(default)]
    pub expect: Option<Json>,
}

/// A loaded, validated configuration with resolved paths and expanded cells.
#[derive(Clone, Debug)]
pub struct Config {
    /// The configuration file.
    pub file: PathBuf,
    /// The directory relative paths are resolved against.
    pub root: PathBuf,
    /// The directory paths are shown relative to in reports.
    pub display_base: PathBuf,
    pub targets: Vec<Target>,
    /// Unix seconds of the fixed clock, when configured.
    pub now: Option<i64>,
}

/// A target with its cells and rule files.
#[derive(Clone, Debug)]
pub struct Target {
    pub name: String,
    pub kind: TargetKind,
    pub cells: Vec<Cell>,
    /// Rule files in load order (configuration-wide first), deduplicated.
    pub rule_files: Vec<PathBuf>,
    /// Where the target is declared.
    pub declared_at: Location,
    /// The target's starting values.
    pub values: Json,
}

/// What a target renders, with paths resolved.
#[derive(Clone, Debug)]
pub enum TargetKind {
    Helmfile {
        spec: HelmfileTarget,
        file: PathBuf,
        state_values_files: Vec<PathBuf>,
        chart_sources: BTreeMap<String, PathBuf>,
        chart_dirs: Vec<PathBuf>,
        /// Absolute path to content.
        overlays: BTreeMap<PathBuf, String>,
    },
    Chart {
        spec: ChartTarget,
        path: PathBuf,
        values: Vec<PathBuf>,
        overlays: BTreeMap<PathBuf, String>,
    },
    Fixture {
        path: PathBuf,
        cells: BTreeMap<String, PathBuf>,
    },
}

impl TargetKind {
    pub fn label(&self) -> &'static str {
        match self {
            TargetKind::Helmfile { .. } => "helmfile",
            TargetKind::Chart { .. } => "chart",
            TargetKind::Fixture { .. } => "fixture",
        }
    }
}

/// Finds `stackproof.yaml` in `start` or the nearest directory above it.
pub fn discover(start: &Path) -> Option<PathBuf> {
    let mut dir = Some(start);
    while let Some(d) = dir {
        let candidate = d.join(CONFIG_FILE_NAME);
        if candidate.is_file() {
            return Some(candidate);
        }
        dir = d.parent();
    }
    None
}

/// Shows `p` relative to `base` when it lies below it.
pub fn display_path(p: &Path, base: &Path) -> String {
    match p.strip_prefix(base) {
        Ok(rel) if !rel.as_os_str().is_empty() => rel.display().to_string(),
        _ => p.display().to_string(),
    }
}

/// Lexically normalizes `p` (drops `.`, folds `..`), without touching the disk.
pub fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Options for loading a configuration.
#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    /// Resolve relative paths against this directory instead of the file's own.
    pub root: Option<PathBuf>,
    /// Show paths relative to this directory (default: the working directory).
    pub display_base: Option<PathBuf>,
}

/// Reads, validates and expands a configuration file.
pub fn load(file: &Path, opts: &LoadOptions) -> Result<Config, InputError> {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let file = normalize(&cwd.join(file));
    let display_base = opts
        .display_base
        .as_ref()
        .map(|b| normalize(&cwd.join(b)))
        .unwrap_or_else(|| cwd.clone());
    let shown = display_path(&file, &display_base);
    let text: Arc<str> = match std::fs::read_to_string(&file) {
        Ok(t) => t.into(),
        Err(e) => return Err(InputError::new(format!("cannot read {shown}: {e}"))),
    };
    let root = match &opts.root {
        Some(r) => normalize(&cwd.join(r)),
        None => file.parent().map(Path::to_path_buf).unwrap_or(cwd.clone()),
    };
    parse(&text, &shown, &file, &root, &display_base)
}

/// Validates and expands configuration text (`shown` is the name used in errors).
pub fn parse(
    text: &Arc<str>,
    shown: &str,
    file: &Path,
    root: &Path,
    display_base: &Path,
) -> Result<Config, InputError> {
    let err_at = |msg: String, pos: Pos| InputError::at(msg, shown, text, pos);
    let node = yaml::parse_one(text, Duplicates::Reject)
        .map_err(|e| InputError::from_yaml(e, shown, text))?;
    let spec: ConfigFile =
        yaml::from_node(&node).map_err(|e| InputError::from_yaml(e, shown, text))?;

    let now = match &spec.now {
        None => None,
        Some(s) => {
            match parse_rfc3339(s) {
                Some(t) => Some(t),
                None => {
                    let pos = node.get("now").map(|n| n.pos).unwrap_or_default();
                    return Err(err_at(
                    format!("`now` must be an RFC 3339 time such as 2026-01-01T00:00:00Z, got {s:?}"),
                    pos,
                ));
                }
            }
        }
    };

    let resolve = |p: &str| normalize(&root.join(p));
    let targets_node = node.get("targets");
    let mut targets: Vec<Target> = Vec::new();
    for (i, t) in spec.targets.iter().enumerate() {
        let tnode = targets_node.and_then(|n| n.index(i));
        let tpos = tnode.map(|n| n.pos).unwrap_or_default();
        let field_pos = |k: &str| tnode.and_then(|n| n.key_pos(k)).unwrap_or(tpos);
        if t.name.is_empty() || t.name.contains(['\n', '\r']) {
            return Err(err_at(
                "a target name must be a non-empty single line".into(),
                field_pos("name"),
            ));
        }
        if let Some(prev) = targets.iter().find(|p| p.name == t.name) {
            return Err(err_at(
                format!(
                    "duplicate target name `{}` (first declared at line {})",
                    t.name, prev.declared_at.line
                ),
                field_pos("name"),
            ));
        }
        let kind = match (&t.helmfile, &t.chart, &t.fixture) {
            (Some(h), None, None) => {
                let file = resolve(&h.file);
                // Overlay paths are relative to the directory holding the state file or
                // the `helmfile.d` directory, where Helmfile runs.
                let stack_dir = file
                    .parent()
                    .map(Path::to_path_buf)
                    .unwrap_or(root.to_path_buf());
                TargetKind::Helmfile {
                    spec: h.clone(),
                    state_values_files: h.state_values_files.iter().map(|p| resolve(p)).collect(),
                    chart_sources: h
                        .chart_sources
                        .iter()
                        .map(|(k, v)| (k.clone(), resolve(v)))
                        .collect(),
                    chart_dirs: h.chart_dirs.iter().map(|p| resolve(p)).collect(),
                    overlays: h
                        .overlays
                        .iter()
                        .map(|(k, v)| (normalize(&stack_dir.join(k)), v.clone()))
                        .collect(),
                    file,
                }
            }
            (None, Some(c), None) => {
                let path = resolve(&c.path);
                TargetKind::Chart {
                    spec: c.clone(),
                    values: c.values.iter().map(|p| resolve(p)).collect(),
                    overlays: c
                        .overlays
                        .iter()
                        .map(|(k, v)| (normalize(&path.join(k)), v.clone()))
                        .collect(),
                    path,
                }
            }
            (None, None, Some(f)) => {
                let path = resolve(&f.path);
                TargetKind::Fixture {
                    cells: f
                        .cells
                        .iter()
                        .map(|(k, v)| (k.clone(), normalize(&path.join(v))))
                        .collect(),
                    path,
                }
            }
            _ => {
                return Err(err_at(
                    format!(
                        "target `{}` must have exactly one of `helmfile`, `chart` or `fixture`",
                        t.name
                    ),
                    tpos,
                ))
            }
        };

        let cells = match &t.matrix {
            None => vec![Cell::default_cell()],
            Some(name) => match spec.matrices.get(name) {
                Some(m) => {
                    let mnode = node.get("matrices").and_then(|n| n.get(name));
                    expand(m, mnode, root).map_err(|(msg, pos)| {
                        err_at(msg, pos.or(mnode.map(|n| n.pos)).unwrap_or(tpos))
                    })?
                }
                None => {
                    let known: Vec<&str> = spec.matrices.keys().map(String::as_str).collect();
                    return Err(err_at(
                        format!("unknown matrix `{name}`"),
                        tnode.and_then(|n| n.get("matrix")).map_or(tpos, |n| n.pos),
                    )
                    .with_help(if known.is_empty() {
                        "define it under `matrices:`".to_string()
                    } else {
                        format!("defined matrices: {}", known.join(", "))
                    }));
                }
            },
        };

        let mut rule_files = Vec::new();
        let patterns = spec.rules.iter().map(|p| (p, node.get("rules"))).chain(
            t.rules
                .iter()
                .map(|p| (p, tnode.and_then(|n| n.get("rules")))),
        );
        for (pattern, pnode) in patterns {
            let pos = pnode
                .and_then(|n| match &n.kind {
                    yaml::YKind::Seq(items) => items
                        .iter()
                        .find(|i| i.as_str() == Some(pattern.as_str()))
                        .map(|i| i.pos),
                    _ => None,
                })
                .unwrap_or(tpos);
            let mut found = match file.parent() {
                Some(dir) if dir != root => {
                    expand_rule_pattern(dir, pattern).map_err(|m| err_at(m, pos))?
                }
                _ => Vec::new(),
            };
            if found.is_empty() {
                found = expand_rule_pattern(root, pattern).map_err(|m| err_at(m, pos))?;
            }
            if found.is_empty() {
                return Err(err_at(
                    format!("rule path `{pattern}` matches no file"),
                    pos,
                ));
            }
            for f in found {
                if !rule_files.contains(&f) {
                    rule_files.push(f);
                }
            }
        }

        targets.push(Target {
            name: t.name.clone(),
            kind,
            cells,
            rule_files,
            declared_at: tpos.location(shown),
            values: t.values.clone().unwrap_or(Json::Object(Default::default())),
        });
    }
    if targets.is_empty() {
        return Err(err_at(
            "the configuration declares no targets".into(),
            node.pos,
        ));
    }
    for (name, _) in &spec.matrices {
        if !spec
            .targets
            .iter()
            .any(|t| t.matrix.as_deref() == Some(name))
        {
            // Unused matrices are allowed (shared files), but must still be valid.
            let mnode = node.get("matrices").and_then(|n| n.get(name));
            if let Some(m) = spec.matrices.get(name) {
                expand(m, mnode, root).map_err(|(msg, pos)| {
                    err_at(msg, pos.or(mnode.map(|n| n.pos)).unwrap_or(node.pos))
                })?;
            }
        }
    }
    Ok(Config {
        file: file.to_path_buf(),
        root: root.to_path_buf(),
        display_base: display_base.to_path_buf(),
        targets,
        now,
    })
}

/// A path or a glob relative to `root`, to sorted existing files.
fn expand_rule_pattern(root: &Path, pattern: &str) -> Result<Vec<PathBuf>, String> {
    let full = root.join(pattern);
    let is_glob = pattern.contains(['*', '?', '[']);
    if !is_glob {
        if full.is_dir() {
            let mut out: Vec<PathBuf> = std::fs::read_dir(&full)
                .map_err(|e| format!("cannot read rule directory `{pattern}`: {e}"))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    p.is_file()
                        && matches!(
                            p.extension().and_then(|e| e.to_str()),
                            Some("yaml") | Some("yml")
                        )
                })
                .map(|p| normalize(&p))
                .collect();
            out.sort();
            return Ok(out);
        }
        return Ok(if full.is_file() {
            vec![normalize(&full)]
        } else {
            Vec::new()
        });
    }
    let text = full.to_string_lossy().to_string();
    let paths = glob::glob(&text).map_err(|e| format!("invalid glob `{pattern}`: {e}"))?;
    let mut out: Vec<PathBuf> = paths
        .filter_map(Result::ok)
        .filter(|p| p.is_file())
        .map(|p| normalize(&p))
        .collect();
    out.sort();
    Ok(out)
}

/// Parses `YYYY-MM-DDTHH:MM:SS(.frac)?(Z|±HH:MM)` to Unix seconds.
pub fn parse_rfc3339(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || !(b[10] == b'T' || b[10] == b't') {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let t = s.get(r)?;
        if t.bytes().all(|c| c.is_ascii_digit()) {
            t.parse().ok()
        } else {
            None
        }
    };
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    if b[13] != b':' || b[16] != b':' {
        return None;
    }
    let (h, mi, sec) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || sec > 60 {
        return None;
    }
    let mut rest = &s[19..];
    if let Some(frac) = rest.strip_prefix('.') {
        let n = frac.bytes().take_while(u8::is_ascii_digit).count();
        if n == 0 {
            return None;
        }
        rest = &frac[n..];
    }
    let offset = match rest {
        "Z" | "z" => 0,
        _ => {
            let rb = rest.as_bytes();
            if rb.len() != 6 || rb[3] != b':' || !(rb[0] == b'+' || rb[0] == b'-') {
                return None;
            }
            let oh: i64 = rest[1..3].parse().ok()?;
            let om: i64 = rest[4..6].parse().ok()?;
            let o = oh * 3600 + om * 60;
            if rb[0] == b'-' {
                -o
            } else {
                o
            }
        }
    };
    Some(days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec - offset)
}

/// Days since 1970-01-01 of a proleptic Gregorian date.
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146097 + doe - 719468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339() {
        assert_eq!(parse_rfc3339("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(parse_rfc3339("2026-01-01T00:00:00Z"), Some(1767225600));
        assert_eq!(parse_rfc3339("2026-01-01T01:00:00+01:00"), Some(1767225600));
        assert_eq!(parse_rfc3339("2026-01-01T00:00:00.5Z"), Some(1767225600));
        assert_eq!(parse_rfc3339("2026-13-01T00:00:00Z"), None);
        assert_eq!(parse_rfc3339("yesterday"), None);
    }
}
