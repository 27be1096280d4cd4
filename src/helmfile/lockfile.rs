//! Helmfile's lock file: the versions `helmfile deps` pinned for repository charts.
//!
//! Why it matters offline: a release that names `repo/chart` with no version, or a
//! range, gets the locked version from `helmfile.lock` (or `lockFilePath:`) before
//! anything runs (`ResolveDeps` in `PrepareCharts`). That version is what `list`
//! prints and what the chart renders as (`.Chart.Version` of a local source is
//! stamped with it), so ignoring the lock would render another release than the
//! one helmfile deploys.

use std::path::Path;

use super::error::{ErrorKind, HelmfileError, Result};
use super::load::HelmState;
use crate::funcs::codec::yaml::{decode, DecodeOptions};
use crate::funcs::semver::{Constraints, Lib, Version};
use crate::source::Vfs;
use crate::template::Value;

/// Helmfile 0.166 links Masterminds/semver v3.2.1.
const SEMVER: Lib = Lib::V3_2;

/// `resolveRemoteChart`: `(repo, chart)` of a repository reference.
fn remote_chart(chart: &str) -> Option<(&str, &str)> {
    if super::charts::is_local_chart(chart) || chart.contains("://") {
        return None;
    }
    chart.split_once('/')
}

/// The lock file's name (`chartDependencyManager.lockFileName`): `lockFilePath:`,
/// else the state file's base name without `.gotmpl`, `.yaml` and `.yml` (each
/// trimmed once, in that order) plus `.lock`.
fn lock_file_name(st: &HelmState) -> String {
    if !st.spec.lock_file.is_empty() {
        return st.spec.lock_file.clone();
    }
    let base = st.file_path.rsplit('/').next().unwrap_or(&st.file_path);
    let base = base.strip_suffix(".gotmpl").unwrap_or(base);
    let base = base.strip_suffix(".yaml").unwrap_or(base);
    let base = base.strip_suffix(".yml").unwrap_or(base);
    format!("{base}.lock")
}

/// Sets the version of every release whose `repo/chart` names a declared
/// repository to the first locked version of that chart its `version:` (a
/// constraint, `*` when empty) accepts. Does nothing when no release names a
/// declared repository or the lock file does not exist.
pub(crate) fn apply_locked_versions(st: &mut HelmState, vfs: &Vfs) -> Result<()> {
    let declared = |repo: &str| st.spec.repositories.iter().any(|r| r.name == repo);
    let mut charts: Vec<&str> = st
        .spec
        .releases
        .iter()
        .filter_map(|r| remote_chart(&r.chart))
        .filter(|(repo, _)| declared(repo))
        .map(|(_, chart)| chart)
        .collect();
    charts.sort_unstable();
    charts.dedup();
    if charts.is_empty() {
        return Ok(());
    }
    let name = lock_file_name(st);
    let path = st.cwd.join(&name);
    let locked = match read_lock(&path, vfs) {
        Ok(None) => return Ok(()),
        Ok(Some(l)) => l,
        Err(e) => {
            return Err(HelmfileError::new(
                ErrorKind::File,
                format!("unable to resolve {} deps: {e}", charts.len()),
            )
            .with_file(path))
        }
    };
    let mut versions = Vec::new();
    for r in &st.spec.releases {
        let Some((repo, chart)) = remote_chart(&r.chart) else {
            versions.push(None);
            continue;
        };
        if !declared(repo) {
            versions.push(None);
            continue;
        }
        let v = locked_version(&locked, chart, &r.version)
            .map_err(|e| HelmfileError::new(ErrorKind::Chart, e).at_release(r))?;
        versions.push(Some(v));
    }
    for (r, v) in st.spec.releases.iter_mut().zip(versions) {
        if let Some(v) = v {
            r.version = v;
        }
    }
    Ok(())
}

/// One `dependencies:` entry of the lock file.
struct Locked {
    name: String,
    version: String,
}

/// The lock file's entries; `None` when it does not exist.
fn read_lock(path: &Path, vfs: &Vfs) -> std::result::Result<Option<Vec<Locked>>, String> {
    let text = match vfs.read_to_string(path) {
        Ok(t) => t,
        Err(crate::source::VfsError::NotFound { .. }) => return Ok(None),
        Err(e) => return Err(e.to_string()),
    };
    let doc = decode(&text, &DecodeOptions::HELMFILE_MAP).map_err(|e| e.to_string())?;
    let field = |m: &Value, k: &str| -> String {
        match m.get(k) {
            Some(Value::Nil) | None => String::new(),
            // A scalar read into a Go string field keeps its text.
            Some(v) => v
                .as_str()
                .map(str::to_string)
                .unwrap_or_else(|| crate::template::fmt::sprint(std::slice::from_ref(&v))),
        }
    };
    // Helmfile checks that the recorded helmfile version is semver, nothing more.
    let recorded = field(&doc, "version");
    if !recorded.is_empty() {
        Version::parse(&recorded, SEMVER)?;
    }
    let entries = match doc.get("dependencies") {
        Some(Value::List(l)) => l
            .iter()
            .map(|d| Locked {
                name: field(d, "name"),
                version: field(d, "version"),
            })
            .collect(),
        _ => Vec::new(),
    };
    Ok(Some(entries))
}

/// `ResolvedDependencies.Get`.
fn locked_version(
    locked: &[Locked],
    chart: &str,
    constraint: &str,
) -> std::result::Result<String, String> {
    let constraint = if constraint.is_empty() {
        "*"
    } else {
        constraint
    };
    let mut candidates = locked.iter().filter(|d| d.name == chart).peekable();
    // Helmfile parses the constraint only once it has a locked entry to test.
    if candidates.peek().is_some() {
        let c = Constraints::parse(constraint, SEMVER)?;
        for dep in candidates {
            if c.check(&Version::parse(&dep.version, SEMVER)?) {
                return Ok(dep.version.clone());
            }
        }
    }
    Err(format!(
        "no resolved dependency found for {chart:?}, running \"helmfile deps\" may resolve the issue"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn locked(entries: &[(&str, &str)]) -> Vec<Locked> {
        entries
            .iter()
            .map(|(n, v)| Locked {
                name: n.to_string(),
                version: v.to_string(),
            })
            .collect()
    }

    #[test]
    fn the_first_locked_version_the_constraint_accepts() {
        let l = locked(&[("raw", "2.1.0"), ("raw", "1.4.2"), ("other", "1.0.0")]);
        assert_eq!(locked_version(&l, "raw", "").as_deref(), Ok("2.1.0"));
        assert_eq!(locked_version(&l, "raw", "~1.4").as_deref(), Ok("1.4.2"));
        assert_eq!(
            locked_version(&l, "raw", ">3").err().as_deref(),
            Some("no resolved dependency found for \"raw\", running \"helmfile deps\" may resolve the issue")
        );
        assert!(locked_version(&l, "missing", "").is_err());
    }

    #[test]
    fn remote_charts_as_helmfile_tells_them() {
        assert_eq!(remote_chart("myrepo/raw"), Some(("myrepo", "raw")));
        assert_eq!(remote_chart("./charts/raw"), None);
        assert_eq!(remote_chart("raw"), None);
        assert_eq!(remote_chart("oci://host/raw"), None);
        assert_eq!(remote_chart("/abs/chart"), None);
    }
}
