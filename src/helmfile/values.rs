//! A release's values as Helmfile hands them to helm (`generateValuesFiles`,
//! `namespaceAndValuesFlags`) and as `write-values` merges them.
//!
//! Each `values:` entry becomes one `--values` file, in order: a path is resolved
//! relative to the state (missing-file handler applies), rendered with release data
//! when it ends in `.gotmpl` (with the file's own directory as base) and otherwise
//! passed byte for byte; an inline map is written with the yaml.v2 encoder. Then
//! come `secrets:` (only unencrypted files work offline). `set:` entries become
//! `--set name=value` with `{`, `}` and `,` backslash-escaped.

use super::error::{ErrorKind, HelmfileError, Result};
use super::load::{HelmState, Loader};
use super::paths;
use super::release::{release_data, release_label};
use super::seams;
use super::spec::{ReleaseSpec, SetValue};
use crate::funcs::codec::yaml::{go_to_value_plain_keys, GoMap, GoValue};
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

fn value_files(
    ld: &Loader<'_>,
    st: &HelmState,
    r: &ReleaseSpec,
    entries: &[Value],
    kind: &str,
) -> Result<Vec<ValuesFile>> {
    let mut out = Vec::new();
    let data = release_data(st, r);
    for (i, v) in entries.iter().enumerate() {
        match v {
            Value::String(s) => {
                let entry = format!("{}{}", r.values_path_prefix, s);
                // Helmfile joins a values path to the state's base path before
                // anything else (which also cleans it: `./x.yaml` is `x.yaml` in
                // its messages, where a secrets entry shows as written).
                let (entry, shown) = if kind == "values" {
                    let joined = super::load::normalize_storage_path(&st.base_path, &entry);
                    (joined.clone(), joined)
                } else {
                    (entry, s.to_string())
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
                let content = ld
                    .render_values_file(&path, &data, &st.cwd, &release_label(st, r))
                    .map_err(|e| e.wrap(format!("failed to render values files \"{shown}\"")))?;
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
    let mut files = value_files(ld, st, r, &r.values, "values")?;
    files.extend(value_files(ld, st, r, &r.secrets, "secrets")?);
    let mut refs: Vec<&str> = Vec::new();
    for text in files
        .iter()
        .map(|f| f.content.as_str())
        .chain(r.set_values.iter().map(|s| s.value.as_str()))
        .chain(
            r.set_values
                .iter()
                .flat_map(|s| s.values.iter().map(String::as_str)),
        )
    {
        for found in vals_refs(text) {
            if !refs.contains(&found) {
                refs.push(found);
            }
        }
    }
    if !refs.is_empty() {
        // Helmfile hands these to vals, which fetches each secret (Vault, SOPS, cloud
        // secret managers, files, ...). stackproof reads nothing outside the stack,
        // so they stay as written; saying so keeps the difference from being silent.
        ld.warn(format!(
            "WARNING: release {:?} has values with vals references that stackproof leaves as written (helmfile would resolve them): {}",
            r.name,
            refs.join(", ")
        ));
    }
    Ok(files)
}

/// The vals references (`ref+SCHEME://...`, `secretref+...`) in `text`, as vals finds
/// them: up to a space, a newline, a `+` or the end.
fn vals_refs(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = text[from..].find("ref+") {
        let start = from + i;
        from = start + 4;
        let start = if text[..start].ends_with("secret") {
            start - 6
        } else {
            start
        };
        let rest = &text[from..];
        let scheme_len = rest.find(['+', ':']).unwrap_or(rest.len());
        if !rest[scheme_len..].starts_with("://") {
            continue;
        }
        let tail = &rest[scheme_len + 3..];
        let body_len = tail.find(['+', '\n', ' ']).unwrap_or(tail.len());
        if body_len == 0 {
            continue;
        }
        let end = from + scheme_len + 3 + body_len;
        out.push(&text[start..end]);
        from = end;
    }
    out
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
    for sv in &r.set_values {
        out.extend(set_flag(st, sv));
    }
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

fn set_flag(st: &HelmState, sv: &SetValue) -> Option<SetArg> {
    if !sv.value.is_empty() {
        Some(SetArg::Set(format!(
            "{}={}",
            escape_set(&sv.name),
            escape_set(&sv.value)
        )))
    } else if !sv.file.is_empty() {
        Some(SetArg::SetFile(format!(
            "{}={}",
            escape_set(&sv.name),
            paths::resolve(&st.cwd, &st.storage_path(&sv.file)).display()
        )))
    } else if !sv.values.is_empty() {
        let items: Vec<String> = sv.values.iter().map(|v| escape_set(v)).collect();
        Some(SetArg::Set(format!(
            "{}={{{}}}",
            escape_set(&sv.name),
            items.join(",")
        )))
    } else {
        None
    }
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
    fn finds_vals_references_as_vals_does() {
        assert_eq!(
            vals_refs(
                "a: ref+echo://foo/bar\nb: x ref+vault://p/q#k+ tail\nc: secretref+file://s.txt"
            ),
            [
                "ref+echo://foo/bar",
                "ref+vault://p/q#k",
                "secretref+file://s.txt"
            ]
        );
        assert!(vals_refs("href+x: no scheme\nref+echo:// \nref+nope").is_empty());
    }

    #[test]
    fn set_escaping() {
        assert_eq!(escape_set("a,b{c}"), "a\\,b\\{c\\}");
    }
}
