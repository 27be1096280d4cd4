//! `helm dependency build`, which Helmfile runs on every local chart directory
//! before `template` and `write-values` (unless deps are skipped), done in memory.
//!
//! Helm rebuilds each `file://` dependency from its directory into
//! `charts/<name>-<version>.tgz`, replacing a stale archive of that name, and deletes
//! the other archives in `charts/` that are no dependency it keeps. stackproof never
//! writes into the user's tree, so the same result is computed as a chart whose
//! dependency list is what `charts/` would hold afterwards. Remote dependencies are
//! not downloaded: as everywhere in stackproof, the archives already in `charts/`
//! (or the chart sources) stand in for the repository.
//!
//! Errors are helm's stderr line (`Error: …`); the caller adds Helmfile's wrapping.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::chart::{Chart, Dependency, HelmVersion};
use crate::funcs::semver::{Constraints, Version};
use crate::source::{Memo, Vfs};
use crate::template::Value;

use super::paths;

/// Built charts: every release of a chart builds it (and template rendering asks
/// again after the preparation pass); the result only depends on the key.
static BUILT: Memo<(PathBuf, String, Vfs), Result<Arc<Chart>, String>> = Memo::new(128);

/// Lets go of the charts built in directory `dir`.
pub(crate) fn forget(dir: &Path) {
    BUILT.forget_where(|k| k.0 == dir);
}

/// The chart at `dir` with its dependencies as `helm dependency build` leaves them.
/// `shown` is the chart path as Helmfile hands it to helm (relative to the state's
/// directory), which helm's messages repeat.
pub fn build(dir: &Path, shown: &str, vfs: &Vfs) -> Result<Arc<Chart>, String> {
    let key = (dir.to_path_buf(), shown.to_string(), vfs.clone());
    BUILT.get_or_compute(&key, || build_uncached(dir, shown, vfs))
}

/// One entry of the dependency list helm downloads (the lock's, or the resolved one).
struct Locked {
    name: String,
    version: String,
    repository: String,
}

/// `helm dependency update` of the chart at `dir` for a chart whose `file://`
/// (and `charts/`) dependencies are all local, as `helm template
/// --dependency-update` runs it when a dependency is missing: the requirements are
/// resolved afresh (the lock is not consulted) and packaged. Returns the chart as
/// it reads afterwards and the lines helm prints on stdout meanwhile (`debug`:
/// helm's `--debug` adds one per packaged dependency). A dependency from a chart
/// repository or registry is refused: it needs a download.
pub fn update(
    dir: &Path,
    shown: &str,
    vfs: &Vfs,
    debug: bool,
) -> Result<(Arc<Chart>, Vec<String>), String> {
    let chart = Chart::load(dir, vfs).map_err(|e| format!("Error: {}", e.message))?;
    let reqs = chart.metadata.dependencies.clone().unwrap_or_default();
    if let Some(remote) = reqs
        .iter()
        .find(|d| !d.repository.is_empty() && !d.repository.starts_with("file://"))
    {
        return Err(format!(
            "Error: --dependency-update would download dependency {:?} from {}; stackproof does not fetch charts. Run `helm dependency build {shown}` once, then template without --dependency-update",
            remote.name, remote.repository
        ));
    }
    let locked = resolve(&reqs, dir, shown, vfs)?;
    let mut out = vec![format!("Saving {} charts", locked.len())];
    for d in &locked {
        if d.repository.is_empty() {
            out.push(format!(
                "Dependency {} did not declare a repository. Assuming it exists in the charts directory",
                d.name
            ));
        } else if debug {
            out.push(format!("Archiving {} from repo {}", d.name, d.repository));
        }
    }
    let built = assemble(chart, locked, dir, shown, vfs)?;
    out.push("Deleting outdated charts".into());
    Ok((built, out))
}

fn build_uncached(dir: &Path, shown: &str, vfs: &Vfs) -> Result<Arc<Chart>, String> {
    let chart = Chart::load(dir, vfs).map_err(|e| format!("Error: {}", e.message))?;
    let reqs = chart.metadata.dependencies.clone().unwrap_or_default();
    if reqs.is_empty() {
        // `helm dependency build` has nothing to do and leaves `charts/` alone.
        return Ok(chart);
    }
    let v1 = chart.metadata.api_version == "v1";
    let locked = match &chart.lock {
        Some(lock) => {
            let entries = lock_entries(lock);
            // Helm refuses a lock whose digest is not that of the current
            // requirements. (apiVersion v1 charts may carry Helm 2 digests, which
            // Helm re-hashes another way; those are not checked here.)
            let digest = lock
                .get("digest")
                .and_then(|d| d.as_str().map(str::to_string))
                .unwrap_or_default();
            if !v1 && hash_requirements(&reqs, &entries) != digest {
                return Err("Error: the lock file (Chart.lock) is out of sync with the dependencies file (Chart.yaml). Please update the dependencies".into());
            }
            entries
        }
        None => resolve(&reqs, dir, shown, vfs)?,
    };
    assemble(chart, locked, dir, shown, vfs)
}

/// The chart with `charts/` as it is after downloading `locked`.
fn assemble(
    chart: Arc<Chart>,
    locked: Vec<Locked>,
    dir: &Path,
    shown: &str,
    vfs: &Vfs,
) -> Result<Arc<Chart>, String> {
    let lib = HelmVersion::V3.semver_lib();
    // `downloadAll`: validate the repository-less ones in `charts/`, package the
    // `file://` ones.
    let mut built: Vec<(String, Arc<Chart>)> = Vec::new();
    for dep in &locked {
        if dep.repository.is_empty() {
            let shown_dir = paths::join(&[shown, "charts", &dep.name]);
            let sub = Chart::load(&dir.join("charts").join(&dep.name), vfs)
                .map_err(|e| format!("Error: unable to load chart '{shown_dir}': {}", e.message))?;
            let constraint = Constraints::parse(&dep.version, lib).map_err(|e| {
                format!(
                    "Error: dependency {} has an invalid version/constraint format: {e}",
                    dep.name
                )
            })?;
            let ok = Version::parse(&sub.metadata.version, lib)
                .map_err(|e| format!("Error: {e}"))
                .map(|v| constraint.check(&v))?;
            if !ok {
                return Err(format!(
                    "Error: dependency {} at version {} does not satisfy the constraint {}",
                    dep.name, sub.metadata.version, dep.version
                ));
            }
            continue;
        }
        let Some(rel) = dep.repository.strip_prefix("file://") else {
            continue;
        };
        let (dep_dir, _) = local_path(rel, dir, shown, vfs)?;
        let sub = Chart::load(&dep_dir, vfs).map_err(|e| format!("Error: {}", e.message))?;
        let constraint = Constraints::parse(&dep.version, lib).map_err(|e| {
            format!(
                "Error: dependency {} has an invalid version/constraint format: {e}",
                dep.name
            )
        })?;
        let version =
            Version::parse(&sub.metadata.version, lib).map_err(|e| format!("Error: {e}"))?;
        if !constraint.check(&version) {
            return Err(format!(
                "Error: can't get a valid version for dependency {}",
                dep.name
            ));
        }
        // `chartutil.Save` names the archive after the packaged chart itself.
        let file = format!("{}-{}.tgz", sub.metadata.name, sub.metadata.version);
        built.retain(|(f, _)| *f != file);
        built.push((file, sub));
    }
    // `safeMoveDeps`: fresh archives replace those of the same file name; any other
    // archive goes unless a repository-less dependency has its name. Directories
    // stay. Archives of remote dependencies are kept: offline they are the download.
    let keep_names: Vec<&str> = locked
        .iter()
        .filter(|d| d.repository.is_empty() || !d.repository.starts_with("file://"))
        .map(|d| d.name.as_str())
        .collect();
    let mut deps: Vec<Arc<Chart>> = chart
        .dependencies
        .iter()
        .filter(|d| {
            let file = d
                .origin
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_default();
            !file.ends_with(".tgz")
                || (!built.iter().any(|(f, _)| *f == file) && keep_names.contains(&d.name()))
        })
        .cloned()
        .collect();
    deps.extend(built.into_iter().map(|(_, c)| c));
    deps.sort_by(|a, b| a.name().cmp(b.name()));
    Ok(chart.with_parts(chart.metadata.clone(), deps))
}

/// Helm's `GetLocalPath`: a `file://` path relative to the chart (or absolute),
/// which must exist. Returns the directory and its name as helm shows it.
fn local_path(rel: &str, dir: &Path, shown: &str, vfs: &Vfs) -> Result<(PathBuf, String), String> {
    let (real, show) = if rel.starts_with('/') {
        (PathBuf::from(paths::clean(rel)), paths::clean(rel))
    } else {
        (paths::normalize(&dir.join(rel)), paths::join(&[shown, rel]))
    };
    if !vfs.exists(&real) {
        return Err(format!("Error: directory {show} not found"));
    }
    Ok((real, show))
}

/// `dependency update`'s resolution when there is no lock: `file://` versions come
/// from the directories, repository-less ones must exist under `charts/`.
fn resolve(reqs: &[Dependency], dir: &Path, shown: &str, vfs: &Vfs) -> Result<Vec<Locked>, String> {
    let lib = HelmVersion::V3.semver_lib();
    let mut out = Vec::new();
    let mut missing = Vec::new();
    for d in reqs {
        let constraint = Constraints::parse(&d.version, lib).map_err(|e| {
            format!(
                "Error: dependency {:?} has an invalid version/constraint format: {e}",
                d.name
            )
        })?;
        if d.repository.is_empty() {
            local_path(&format!("charts/{}", d.name), dir, shown, vfs)?;
            out.push(Locked {
                name: d.name.clone(),
                version: d.version.clone(),
                repository: String::new(),
            });
            continue;
        }
        if let Some(rel) = d.repository.strip_prefix("file://") {
            let (dep_dir, _) = local_path(rel, dir, shown, vfs)?;
            let sub = Chart::load(&dep_dir, vfs).map_err(|e| format!("Error: {}", e.message))?;
            let Ok(v) = Version::parse(&sub.metadata.version, lib) else {
                // Helm skips a chart whose version is no semver.
                continue;
            };
            if !constraint.check(&v) {
                missing.push(d.name.clone());
                continue;
            }
            out.push(Locked {
                name: d.name.clone(),
                version: sub.metadata.version.clone(),
                repository: d.repository.clone(),
            });
            continue;
        }
        out.push(Locked {
            name: d.name.clone(),
            version: d.version.clone(),
            repository: d.repository.clone(),
        });
    }
    if !missing.is_empty() {
        return Err(format!(
            "Error: can't get a valid version for repositories {}. Try changing the version constraint in Chart.yaml",
            missing.join(", ")
        ));
    }
    Ok(out)
}

/// The `dependencies:` of a decoded lock file.
fn lock_entries(lock: &Value) -> Vec<Locked> {
    let field = |it: &Value, k: &str| {
        it.get(k)
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default()
    };
    lock.get("dependencies")
        .and_then(|d| {
            d.as_list()
                .map(|items| items.iter().cloned().collect::<Vec<_>>())
        })
        .unwrap_or_default()
        .iter()
        .map(|it| Locked {
            name: field(it, "name"),
            version: field(it, "version"),
            repository: field(it, "repository"),
        })
        .collect()
}

/// Helm's `resolver.HashReq`: `sha256:` and the hex SHA-256 of the Go JSON of
/// `[requirements, lock entries]` (struct fields in declaration order, empty
/// optional ones left out, `<>&` escaped as Go does).
fn hash_requirements(reqs: &[Dependency], locked: &[Locked]) -> String {
    use sha2::{Digest, Sha256};
    let s = |t: &str| crate::helmfile::list::go_json_string(t);
    let mut out = String::from("[[");
    for (i, d) in reqs.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&format!("{{\"name\":{}", s(&d.name)));
        if !d.version.is_empty() {
            out.push_str(&format!(",\"version\":{}", s(&d.version)));
        }
        out.push_str(&format!(",\"repository\":{}", s(&d.repository)));
        if !d.condition.is_empty() {
            out.push_str(&format!(",\"condition\":{}", s(&d.condition)));
        }
        if !d.tags.is_empty() {
            let tags: Vec<String> = d.tags.iter().map(|t| s(t)).collect();
            out.push_str(&format!(",\"tags\":[{}]", tags.join(",")));
        }
        if d.enabled {
            out.push_str(",\"enabled\":true");
        }
        if !d.import_values.is_empty() {
            let iv = crate::funcs::codec::yaml::go_json(&Value::list(d.import_values.clone()))
                .unwrap_or_default();
            out.push_str(&format!(",\"import-values\":{iv}"));
        }
        if !d.alias.is_empty() {
            out.push_str(&format!(",\"alias\":{}", s(&d.alias)));
        }
        out.push('}');
    }
    out.push_str("],[");
    for (i, d) in locked.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&format!("{{\"name\":{}", s(&d.name)));
        if !d.version.is_empty() {
            out.push_str(&format!(",\"version\":{}", s(&d.version)));
        }
        out.push_str(&format!(",\"repository\":{}}}", s(&d.repository)));
    }
    out.push_str("]]");
    let sum = Sha256::digest(out.as_bytes());
    let hex: String = sum.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dep(name: &str, version: &str, repo: &str) -> Dependency {
        Dependency {
            name: name.into(),
            version: version.into(),
            repository: repo.into(),
            ..Dependency::default()
        }
    }

    /// The digest helm 3.15 wrote into the Chart.lock of an umbrella chart with two
    /// aliased file:// dependencies (one a `>=` range, escaped as Go does) and one
    /// with import-values.
    #[test]
    fn lock_digest_matches_helm() {
        let mut first = dep("libdep", ">=0.1.0", "file://../libdep");
        first.alias = "first".into();
        let mut second = dep("libdep", "0.1.0", "file://../libdep");
        second.alias = "second".into();
        second.condition = "second.enabled".into();
        second.tags = vec!["extra".into()];
        let mut echo = dep("echo", "0.1.0", "file://../echo");
        let iv = crate::template::Map::new();
        iv.insert("child", Value::from("image"));
        iv.insert("parent", Value::from("importedImage"));
        echo.import_values = vec![Value::Map(iv)];
        let locked = |name: &str| Locked {
            name: name.into(),
            version: "0.1.0".into(),
            repository: format!("file://../{name}"),
        };
        assert_eq!(
            hash_requirements(
                &[first, second, echo],
                &[locked("libdep"), locked("libdep"), locked("echo")]
            ),
            "sha256:0167c5a1d01c289ba7d9130cc9fbd96020ee36663ea644b8fb12f0c59774b0a3"
        );
    }
}
