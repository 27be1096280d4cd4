//! Where a release's chart comes from when rendering offline.
//!
//! Helmfile hands `helm template` either a local path (`../charts/x`, used in place)
//! or a repository reference (`nvcf/helm-nvcf-api` with `--version 1.25.1`, or an
//! `oci://` URL) that helm would download. stackproof never downloads: repository
//! charts are looked up in a [`ChartSources`]:
//!
//! 1. an explicit map from the chart reference as written (`repo/chart`, or just the
//!    chart name) to a local chart directory, then
//! 2. discovery: every `Chart.yaml` under each source directory, directories in the
//!    order given, paths within one directory in byte order; among the charts whose
//!    `name:` equals the referenced chart name, one whose `version:` equals the pin
//!    wins, else the first one found.
//!
//! A chart found with a different version than the release pins is rendered with the
//! pin as its `.Chart.Version` (as if packaged with `helm package --version <pin>`),
//! and the substitution is reported. The same search resolves remote dependencies of
//! local charts (a `Chart.lock` or exact `version:` names the wanted version).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use crate::source::{Memo, Vfs};

/// A chart found by discovery.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexedChart {
    pub name: String,
    pub version: String,
    pub dir: PathBuf,
}

/// Offline chart sources: an explicit map and ordered discovery directories.
#[derive(Debug, Default)]
pub struct ChartSources {
    /// `repo/chart` (or `chart`) → chart directory.
    pub map: BTreeMap<String, PathBuf>,
    /// Directories searched for `Chart.yaml`, first match wins.
    pub search_dirs: Vec<PathBuf>,
    index: OnceLock<Arc<Vec<IndexedChart>>>,
}

/// Two source sets are equal when they name the same map and directories (the index
/// is derived from those).
impl PartialEq for ChartSources {
    fn eq(&self, other: &Self) -> bool {
        self.map == other.map && self.search_dirs == other.search_dirs
    }
}

impl Eq for ChartSources {}

impl std::hash::Hash for ChartSources {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.map.hash(state);
        self.search_dirs.hash(state);
    }
}

impl Clone for ChartSources {
    fn clone(&self) -> Self {
        ChartSources {
            map: self.map.clone(),
            search_dirs: self.search_dirs.clone(),
            index: OnceLock::new(),
        }
    }
}

/// How a release's chart reference was resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChartOrigin {
    /// A path chart (`./x`, `../x`, absolute, or a bare name), used in place.
    LocalPath,
    /// A repository-form reference (`charts/app`) naming a chart in the state's
    /// folder, which helm finds there and uses in place. Helmfile still treats it
    /// as a repository chart: it builds no dependencies for it.
    HelmPath,
    /// From the explicit map.
    Mapped,
    /// Found by `Chart.yaml` discovery.
    Discovered,
}

/// A chart ready to render.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResolvedChart {
    pub dir: PathBuf,
    pub origin: ChartOrigin,
    /// The chart's own `name:`.
    pub name: String,
    /// The chart's own `version:`.
    pub tree_version: String,
    /// The version to render as `.Chart.Version` when it differs from the tree's.
    pub stamped_version: Option<String>,
}

/// Why a chart could not be resolved.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ChartSourceError {
    #[error("chart {chart:?} (release {release:?}) is not available offline: no chart source maps it and no Chart.yaml named {name:?} was found under the chart source directories{}", dirs_note(.searched))]
    NotFound {
        release: String,
        chart: String,
        name: String,
        searched: Vec<PathBuf>,
    },
    #[error("chart {chart:?} (release {release:?}) maps to {dir}, whose Chart.yaml is named {found:?}, not {name:?}")]
    WrongName {
        release: String,
        chart: String,
        name: String,
        found: String,
        dir: String,
    },
    #[error("chart {chart:?} (release {release:?}): Error: {message}")]
    BadArchive {
        release: String,
        chart: String,
        message: String,
    },
    /// A path chart that does not exist: Helmfile hands it to helm as written,
    /// and helm fails looking it up ([`crate::chart::loader::lookup_error`]).
    #[error("Error: {message}")]
    Missing { message: String },
    #[error("chart {chart:?} (release {release:?}): {dir} has no readable Chart.yaml")]
    NoChartYaml {
        release: String,
        chart: String,
        dir: String,
    },
}

fn dirs_note(dirs: &[PathBuf]) -> String {
    if dirs.is_empty() {
        " (none given: pass --chart-source DIR)".to_string()
    } else {
        format!(
            " ({})",
            dirs.iter()
                .map(|d| d.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
}

/// Helmfile's `isLocalChart`: `./x` and `../x` are paths; URLs are not; otherwise a
/// reference with exactly one or two `/` is a repository chart and anything else
/// (a bare name, an absolute path, deeper paths) is a path.
pub fn is_local_chart(chart: &str) -> bool {
    if chart.starts_with("./") || chart.starts_with("../") {
        return true;
    }
    if chart.contains("://") {
        return false;
    }
    let parts = chart.split('/').count();
    chart.is_empty() || chart.starts_with('/') || !chart.contains('/') || (parts != 2 && parts != 3)
}

/// Helmfile's `IsOCIChart`: an `oci://` URL, or `repo/chart` whose repository is
/// declared with `oci: true`.
pub fn is_oci_chart(chart: &str, repositories: &[super::spec::RepositorySpec]) -> bool {
    if chart.starts_with("oci://") {
        return true;
    }
    let Some((repo, _)) = chart.split_once('/') else {
        return false;
    };
    repositories.iter().any(|r| r.name == repo && r.oci)
}

/// The chart name a repository reference names (`repo/name` → `name`,
/// `oci://host/path/name` → `name`).
pub fn chart_name_of(reference: &str) -> &str {
    let r = reference.trim_end_matches('/');
    r.rsplit('/').next().unwrap_or(r)
}

/// Reads a top-level scalar such as `name:` from a `Chart.yaml` text (plain, single-
/// or double-quoted, with an optional trailing comment).
pub fn chart_yaml_field(text: &str, key: &str) -> Option<String> {
    for line in text.lines() {
        let Some(rest) = line.strip_prefix(key) else {
            continue;
        };
        let Some(rest) = rest.strip_prefix(':') else {
            continue;
        };
        let v = rest.trim();
        let v = if let Some(q) = v.strip_prefix('"') {
            q.split('"').next().unwrap_or("").to_string()
        } else if let Some(q) = v.strip_prefix('\'') {
            q.split('\'').next().unwrap_or("").to_string()
        } else {
            v.split(" #").next().unwrap_or("").trim().to_string()
        };
        return Some(v);
    }
    None
}

/// True when `pin` is one exact version rather than a range.
fn is_exact_version(pin: &str) -> bool {
    let p = pin.trim().trim_start_matches('v');
    !p.is_empty()
        && p.chars().next().is_some_and(|c| c.is_ascii_digit())
        && !p.contains(|c: char| {
            matches!(c, '<' | '>' | '=' | '~' | '^' | '*' | ',' | '|' | ' ') || c == 'x' || c == 'X'
        })
}

/// A chart used in place from `dir`, a chart folder or a packaged chart.
fn local_chart(
    vfs: &Vfs,
    release: &str,
    chart: &str,
    dir: PathBuf,
    origin: ChartOrigin,
) -> Result<ResolvedChart, ChartSourceError> {
    if vfs.is_file(&dir) {
        // A packaged chart (`helm package` output): helm template loads the
        // archive itself; its name and version come from its Chart.yaml.
        let c = crate::chart::Chart::load(&dir, vfs).map_err(|e| ChartSourceError::BadArchive {
            release: release.into(),
            chart: chart.into(),
            message: e.message,
        })?;
        return Ok(ResolvedChart {
            name: c.metadata.name.clone(),
            tree_version: c.metadata.version.clone(),
            dir,
            origin,
            stamped_version: None,
        });
    }
    if !vfs.exists(&dir) {
        return Err(ChartSourceError::Missing {
            message: crate::chart::loader::lookup_error(chart),
        });
    }
    let text =
        vfs.read_to_string(&dir.join("Chart.yaml"))
            .map_err(|_| ChartSourceError::NoChartYaml {
                release: release.into(),
                chart: chart.into(),
                dir: dir.display().to_string(),
            })?;
    Ok(ResolvedChart {
        name: chart_yaml_field(&text, "name").unwrap_or_default(),
        tree_version: chart_yaml_field(&text, "version").unwrap_or_default(),
        dir,
        origin,
        stamped_version: None,
    })
}

impl ChartSources {
    pub fn new(map: BTreeMap<String, PathBuf>, search_dirs: Vec<PathBuf>) -> ChartSources {
        ChartSources {
            map,
            search_dirs,
            index: OnceLock::new(),
        }
    }

    /// Every chart under the search directories, in search order.
    pub fn charts(&self, vfs: &Vfs) -> &[IndexedChart] {
        // Every cell of a matrix builds its own sources over the same directories;
        // the walk is done once per process for each (directories, view).
        static INDEXES: Memo<(Vec<PathBuf>, Vfs), Arc<Vec<IndexedChart>>> = Memo::new(64);
        self.index.get_or_init(|| {
            let key = (self.search_dirs.clone(), vfs.clone());
            INDEXES.get_or_compute(&key, || Arc::new(self.walk(vfs)))
        })
    }

    /// Every `Chart.yaml` under the search directories, read for its name and version.
    fn walk(&self, vfs: &Vfs) -> Vec<IndexedChart> {
        let mut out = Vec::new();
        for d in &self.search_dirs {
            let mut found = Vec::new();
            collect_chart_yamls(vfs, d, &mut found, 0);
            found.sort();
            for f in found {
                let Ok(text) = vfs.read_to_string(&f) else {
                    continue;
                };
                let Some(name) = chart_yaml_field(&text, "name") else {
                    continue;
                };
                let version = chart_yaml_field(&text, "version").unwrap_or_default();
                let dir = f.parent().map(Path::to_path_buf).unwrap_or_default();
                out.push(IndexedChart { name, version, dir });
            }
        }
        out
    }

    /// Finds a chart by name, preferring the exact `version`.
    pub fn find(&self, vfs: &Vfs, name: &str, version: &str) -> Option<&IndexedChart> {
        let idx = self.charts(vfs);
        idx.iter()
            .find(|c| c.name == name && !version.is_empty() && c.version == version)
            .or_else(|| idx.iter().find(|c| c.name == name))
    }

    /// Resolves a release's chart reference. `base_dir` is the state file's directory
    /// (path charts are relative to it); `pin` is the release's `version:`.
    pub fn resolve(
        &self,
        vfs: &Vfs,
        release: &str,
        chart: &str,
        base_dir: &Path,
        pin: &str,
    ) -> Result<ResolvedChart, ChartSourceError> {
        if is_local_chart(chart) {
            let dir = super::paths::normalize(&base_dir.join(chart));
            return local_chart(vfs, release, chart, dir, ChartOrigin::LocalPath);
        }
        // Helm looks any reference up as a path first, from the state's folder
        // (where Helmfile runs it), so `charts/app` naming something there is that
        // chart, though Helmfile takes it for a repository chart.
        let as_path = super::paths::normalize(&base_dir.join(chart));
        if !chart.contains("://") && vfs.exists(&as_path) {
            return local_chart(vfs, release, chart, as_path, ChartOrigin::HelmPath);
        }
        let name = chart_name_of(chart);
        let stamp = |tree: &str| {
            (is_exact_version(pin) && pin.trim_start_matches('v') != tree.trim_start_matches('v'))
                .then(|| pin.to_string())
        };
        if let Some(dir) = self.map.get(chart).or_else(|| self.map.get(name)) {
            let text = vfs.read_to_string(&dir.join("Chart.yaml")).map_err(|_| {
                ChartSourceError::NoChartYaml {
                    release: release.into(),
                    chart: chart.into(),
                    dir: dir.display().to_string(),
                }
            })?;
            let found = chart_yaml_field(&text, "name").unwrap_or_default();
            if found != name {
                return Err(ChartSourceError::WrongName {
                    release: release.into(),
                    chart: chart.into(),
                    name: name.into(),
                    found,
                    dir: dir.display().to_string(),
                });
            }
            let tree_version = chart_yaml_field(&text, "version").unwrap_or_default();
            return Ok(ResolvedChart {
                stamped_version: stamp(&tree_version),
                dir: dir.clone(),
                origin: ChartOrigin::Mapped,
                name: found,
                tree_version,
            });
        }
        match self.find(vfs, name, pin) {
            Some(c) => Ok(ResolvedChart {
                stamped_version: stamp(&c.version),
                dir: c.dir.clone(),
                origin: ChartOrigin::Discovered,
                name: c.name.clone(),
                tree_version: c.version.clone(),
            }),
            None => Err(ChartSourceError::NotFound {
                release: release.into(),
                chart: chart.into(),
                name: name.into(),
                searched: self.search_dirs.clone(),
            }),
        }
    }
}

fn collect_chart_yamls(vfs: &Vfs, dir: &Path, out: &mut Vec<PathBuf>, depth: usize) {
    // Charts nest (`charts/` of charts) but not without bound; a cycle of symlinks
    // must not hang discovery.
    if depth > 24 {
        return;
    }
    let Ok(entries) = vfs.read_dir(dir) else {
        return;
    };
    for e in entries {
        if e.is_dir {
            if e.name.starts_with('.') {
                continue;
            }
            collect_chart_yamls(vfs, &e.path, out, depth + 1);
        } else if e.name == "Chart.yaml" {
            out.push(e.path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_vs_repo() {
        assert!(is_local_chart("../charts/x"));
        assert!(is_local_chart("./x"));
        assert!(is_local_chart("x"));
        assert!(is_local_chart("/abs/x"));
        assert!(is_local_chart("a/b/c/d"));
        assert!(!is_local_chart("nvcf/helm-nvcf-api"));
        assert!(!is_local_chart("oci://r/x"));
    }

    #[test]
    fn chart_yaml_fields() {
        let t = "# c\napiVersion: v2\nname: \"helm-x\"\nversion: 0.7.0 # pinned\nappVersion: '1'\n";
        assert_eq!(chart_yaml_field(t, "name").as_deref(), Some("helm-x"));
        assert_eq!(chart_yaml_field(t, "version").as_deref(), Some("0.7.0"));
        assert_eq!(chart_yaml_field(t, "appVersion").as_deref(), Some("1"));
        assert_eq!(chart_yaml_field(t, "kubeVersion"), None);
    }

    #[test]
    fn exact_versions() {
        assert!(is_exact_version("1.25.1"));
        assert!(is_exact_version("v0.1.0-rc.1"));
        assert!(!is_exact_version("~1.2"));
        assert!(!is_exact_version(">=1.0.0"));
        assert!(!is_exact_version("0.3.x"));
        assert!(!is_exact_version(""));
    }

    #[test]
    fn discovery_prefers_exact_version_then_order() {
        let vfs = Vfs::with_overlays([
            (
                "/cs/a/one/Chart.yaml",
                b"name: c\nversion: 1.0.0\n".to_vec(),
            ),
            (
                "/cs/a/two/Chart.yaml",
                b"name: c\nversion: 2.0.0\n".to_vec(),
            ),
            ("/cs/b/Chart.yaml", b"name: d\nversion: 0.1.0\n".to_vec()),
        ]);
        let s = ChartSources::new(BTreeMap::new(), vec!["/cs/a".into(), "/cs/b".into()]);
        let r = s
            .resolve(&vfs, "r", "repo/c", Path::new("/st"), "2.0.0")
            .unwrap();
        assert_eq!(r.dir, PathBuf::from("/cs/a/two"));
        assert_eq!(r.stamped_version, None);
        let r = s
            .resolve(&vfs, "r", "repo/c", Path::new("/st"), "3.1.4")
            .unwrap();
        assert_eq!(r.dir, PathBuf::from("/cs/a/one"));
        assert_eq!(r.stamped_version.as_deref(), Some("3.1.4"));
        let e = s
            .resolve(&vfs, "r", "repo/zz", Path::new("/st"), "")
            .unwrap_err();
        assert!(matches!(e, ChartSourceError::NotFound { .. }));
    }

    #[test]
    fn mapped_chart_must_carry_the_name() {
        let vfs =
            Vfs::with_overlays([("/m/Chart.yaml", b"name: other\nversion: 1.0.0\n".to_vec())]);
        let s = ChartSources::new([("repo/c".to_string(), PathBuf::from("/m"))].into(), vec![]);
        let e = s
            .resolve(&vfs, "r", "repo/c", Path::new("/st"), "1.0.0")
            .unwrap_err();
        assert!(matches!(e, ChartSourceError::WrongName { .. }), "{e}");
    }
}
