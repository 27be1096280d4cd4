//! A release's values as Helmfile hands them to helm (`generateValuesFiles`,
//! `namespaceAndValuesFlags`) and as `write-values` merges them.
//!
//! Each `values:` entry becomes one `--values` file, in order: a path is resolved
//! relative to the state (missing-file handler applies), rendered with release data
//! when it ends in `.gotmpl` (with the file's own directory as base) and otherwise
//! passed byte for byte; an inline map is written with the yaml.v2 encoder. Then
//! come `secrets:` (only unencrypted files work offline). `set:` entries become
//! `--set name=value` with `{`, `}` and `,` backslash-escaped.
//!
//! vals runs where Helmfile runs it (see [`crate::funcs::vals`]): over the `values:`
//! list (inline maps and the file paths themselves), over each values file whose
//! text mentions `ref+` (decoded, expanded and encoded again, which rewrites the
//! file even when nothing in it resolves), and over `set:` values. References only a
//! secret store could answer stay as written, with a warning.

use super::error::{ErrorKind, HelmfileError, Result};
use super::load::{HelmState, Loader};
use super::paths;
use super::release::{release_data, release_label};
use super::seams;
use super::spec::{ReleaseSpec, SetValue};
use crate::funcs::codec::yaml::{go_to_value_plain_keys, GoMap, GoValue};
use crate::funcs::vals::{Expander, Sources};
use crate::template::{Map, Value};

/// One generated values file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValuesFile {
    /// Where it came from: the values path as written in the state, or
    /// `values[i]` for an inline map.
    pub origin: String,
    /// The resolved file (Go path) for file entries.
    pub path: Option<String>,
    pub content: String,
}

/// Helmfile's escaping of `--set` names and values.
pub fn escape_set(v: &str) -> String {
    v.replace('{', "\\{")
        .replace('}', "\\}")
        .replace(',', "\\,")
}

/// What vals may read for a state: files as seen from the directory Helmfile runs
/// in for it.
fn vals_sources<'a>(ld: &'a Loader<'_>, st: &'a HelmState) -> Sources<'a> {
    Sources {
        vfs: &ld.renv.vfs,
        cwd: &st.cwd,
        confine_to: ld.renv.confine_to.as_deref(),
        env: &ld.renv.env,
        cache: &ld.renv.vals_cache,
    }
}

fn value_files(
    ld: &Loader<'_>,
    st: &HelmState,
    r: &ReleaseSpec,
    entries: &[Value],
    kind: &str,
    vals: &mut Expander<'_>,
) -> Result<Vec<ValuesFile>> {
    let mut out = Vec::new();
    let data = release_data(st, r);
    // Helmfile joins a values path to the state's base path (which also cleans it:
    // `./x.yaml` is `x.yaml` in its messages, where a secrets entry shows as
    // written), then hands the whole list to vals, paths included, before reading
    // any file.
    let entries: Vec<Value> = if kind == "values" {
        entries
            .iter()
            .map(|v| match v {
                Value::String(s) => {
                    vals.expand_value(&Value::str(super::load::normalize_storage_path(
                        &st.base_path,
                        &format!("{}{}", r.values_path_prefix, s),
                    )))
                }
                // vals changes the maps it walks; the release's own stay as written.
                other => vals.expand_value(&other.deep_copy()),
            })
            .collect::<std::result::Result<_, _>>()
            .map_err(HelmfileError::other)?
    } else {
        entries.to_vec()
    };
    for (i, v) in entries.iter().enumerate() {
        match v {
            Value::String(s) => {
                let (entry, shown) = if kind == "values" {
                    (s.to_string(), s.to_string())
                } else {
                    (format!("{}{}", r.values_path_prefix, s), s.to_string())
                };
                let Some(files) = ld.resolve_file(
                    r.missing_file_handler.as_deref(),
                    kind,
                    &entry,
                    &st.base_path,
                    &st.file_path,
                    &st.cwd,
                )?
                else {
                    continue;
                };
                if files.len() > 1 {
                    return Err(HelmfileError::other(
                        "glob patterns in release values and secrets is not supported yet. please submit a feature request if necessary",
                    ));
                }
                let path = files[0].clone();
                if kind == "secrets" {
                    check_plain_secret(ld, st, &path)?;
                }
                let wrap =
                    |e: HelmfileError| e.wrap(format!("failed to render values files \"{shown}\""));
                let mut content = ld
                    .render_values_file(&path, &data, &st.cwd, &release_label(st, r))
                    .map_err(wrap)?;
                if kind == "values" && content.contains("ref+") {
                    content = expand_values_text(&content, vals).map_err(wrap)?;
                }
                out.push(ValuesFile {
                    origin: s.to_string(),
                    path: Some(path),
                    content,
                });
            }
            Value::Map(_) => {
                let content =
                    seams::encode_yaml(v).map_err(|e| HelmfileError::new(ErrorKind::Yaml, e.0))?;
                out.push(ValuesFile {
                    origin: format!("{kind}[{i}]"),
                    path: None,
                    content,
                });
            }
            other => {
                return Err(HelmfileError::other(format!(
                    "unexpected type of value: value={}, type={}",
                    crate::template::fmt::format_value(other),
                    other.type_name()
                )))
            }
        }
    }
    Ok(out)
}

/// `RenderReleaseValuesFileToBytes` for a file that mentions `ref+`: decoded
/// (yaml.v2, into `map[string]interface{}`), expanded and encoded again.
fn expand_values_text(text: &str, vals: &mut Expander<'_>) -> Result<String> {
    let decoded =
        seams::decode_values_raw(text).map_err(|e| HelmfileError::new(ErrorKind::Yaml, e.0))?;
    let expanded = vals
        .expand_go(GoValue::Map(decoded))
        .map_err(HelmfileError::other)?;
    seams::encode_go_yaml(&expanded).map_err(|e| HelmfileError::new(ErrorKind::Yaml, e.0))
}

fn check_plain_secret(ld: &Loader<'_>, st: &HelmState, path: &str) -> Result<()> {
    let abs = paths::resolve(&st.cwd, path);
    let text = ld.renv.vfs.read_to_string(&abs).unwrap_or_default();
    let encrypted = text
        .lines()
        .any(|l| l.starts_with("sops:") || l.starts_with("\"sops\":"));
    if encrypted {
        return Err(HelmfileError::new(
            ErrorKind::Other,
            format!("secrets file \"{path}\" is encrypted: decrypting secrets (helm secrets / sops) is not available offline"),
        ));
    }
    Ok(())
}

/// The `--values` files of a release, in order (values, then secrets).
pub fn generate_values_files(
    ld: &Loader<'_>,
    st: &HelmState,
    r: &ReleaseSpec,
) -> Result<Vec<ValuesFile>> {
    let mut vals = Expander::new(vals_sources(ld, st));
    let mut files = value_files(ld, st, r, &r.values, "values", &mut vals)?;
    let secrets = value_files(ld, st, r, &r.secrets, "secrets", &mut vals)?;
    let mut kept = vals.kept;
    // vals does not see secrets files (helm-secrets decrypts them); a reference in
    // one is passed on as written too.
    for f in &secrets {
        for found in crate::funcs::vals::references(&f.content) {
            if !kept.contains(&found) {
                kept.push(found);
            }
        }
    }
    files.extend(secrets);
    warn_kept(ld, r, "values", &kept);
    Ok(files)
}

/// Says which references stay as written. Helmfile hands them to vals, which
/// fetches each secret (Vault, SOPS, cloud secret managers, ...); stackproof reads
/// nothing over the network, and saying so keeps the difference from being silent.
fn warn_kept(ld: &Loader<'_>, r: &ReleaseSpec, what: &str, kept: &[String]) {
    if !kept.is_empty() {
        ld.warn(format!(
            "WARNING: release {:?} has {what} with vals references that stackproof leaves as written (helmfile would resolve them): {}",
            r.name,
            kept.join(", ")
        ));
    }
}

/// One `--set` or `--set-file` argument.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SetArg {
    Set(String),
    SetFile(String),
}

/// The `--set` arguments of a release (`set:` entries, then legacy `env:` entries).
pub fn set_flags(ld: &Loader<'_>, st: &HelmState, r: &ReleaseSpec) -> Result<Vec<SetArg>> {
    let mut out = Vec::new();
    let mut vals = Expander::new(vals_sources(ld, st));
    for sv in &r.set_values {
        let flag = set_flag(st, sv, &mut vals).map_err(|e| {
            HelmfileError::other(format!(
                "Failed to render set value entry in {} for release {}: {e}",
                st.file_path, r.name
            ))
        })?;
        out.extend(flag);
    }
    warn_kept(ld, r, "set values", &vals.kept);
    if !r.env_values.is_empty() {
        let mut vals = Vec::new();
        let mut missing = Vec::new();
        for sv in &r.env_values {
            match ld.renv.env.get(&sv.value) {
                Some(v) => vals.push(format!("{}={}", escape_set(&sv.name), escape_set(v))),
                None => missing.push(format!("\t{}", sv.value)),
            }
        }
        if !missing.is_empty() {
            return Err(HelmfileError::other(format!(
                "Environment Variables not found. Please make sure they are set and try again:\n{}",
                missing.join("\n")
            )));
        }
        out.push(SetArg::Set(vals.join(",")));
    }
    Ok(out)
}

/// One `set:` entry's argument, its value or values put through vals.
fn set_flag(
    st: &HelmState,
    sv: &SetValue,
    vals: &mut Expander<'_>,
) -> std::result::Result<Option<SetArg>, String> {
    Ok(if !sv.value.is_empty() {
        Some(SetArg::Set(format!(
            "{}={}",
            escape_set(&sv.name),
            escape_set(&vals.expand_str(&sv.value)?)
        )))
    } else if !sv.file.is_empty() {
        Some(SetArg::SetFile(format!(
            "{}={}",
            escape_set(&sv.name),
            paths::resolve(&st.cwd, &st.storage_path(&sv.file)).display()
        )))
    } else if !sv.values.is_empty() {
        let items: Vec<String> = sv
            .values
            .iter()
            .map(|v| vals.expand_str(v).map(|x| escape_set(&x)))
            .collect::<std::result::Result<_, _>>()?;
        Some(SetArg::Set(format!(
            "{}={{{}}}",
            escape_set(&sv.name),
            items.join(",")
        )))
    } else {
        None
    })
}

/// `write-values`: every generated file decoded (yaml.v2 into
/// `map[string]interface{}`, nested maps keeping typed keys such as `404:`) and merged
/// with mergo's override semantics, in order: what Helmfile writes.
pub fn merge_values_files_go(files: &[ValuesFile]) -> Result<GoMap> {
    let mut merged = GoMap::new();
    for f in files {
        let m = seams::decode_values_raw(&f.content).map_err(|e| {
            HelmfileError::new(
                ErrorKind::Yaml,
                format!(
                    "unmarshalling yaml {}: {e}",
                    f.path.as_deref().unwrap_or(&f.origin)
                ),
            )
        })?;
        merge_override_go(&mut merged, m);
    }
    Ok(merged)
}

/// [`merge_values_files_go`] as template values, typed keys spelled as strings
/// (`"404"`), for rules to read.
pub fn merge_values_files(files: &[ValuesFile]) -> Result<Map> {
    match go_to_value_plain_keys(GoValue::Map(merge_values_files_go(files)?)) {
        Value::Map(m) => Ok(m),
        _ => Ok(Map::new()),
    }
}

/// `gomerge::merge_override` for decoded Go maps: nested maps merge in place,
/// anything else overrides. (mergo's rule that an empty destination map is replaced
/// changes nothing here: it stays empty only when the source map was empty too.)
fn merge_override_go(dst: &mut GoMap, src: GoMap) {
    for (key, sv) in src.into_entries() {
        match (sv, dst.get_mut(&key)) {
            (GoValue::Map(sm), Some(GoValue::Map(dm))) => merge_override_go(dm, sm),
            (sv, _) => dst.insert(key, sv),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_escaping() {
        assert_eq!(escape_set("a,b{c}"), "a\\,b\\{c\\}");
    }
}
