//! Helm charts: loading, values coalescing, rendering and output exactly as
//! `helm template` prints it, in Helm 3 and Helm 4 flavours.

pub mod capabilities;
pub mod coalesce;
pub mod error;
pub mod errors;
pub mod glob;
pub mod ignore;
pub mod loader;
pub mod locate;
pub mod manifest;
pub mod metadata;
pub mod objects;
pub mod provenance;
pub mod render;
pub mod schema;
pub mod strvals;
pub mod tree;
pub mod values;
pub mod yamlio;

pub use error::{ChartError, Phase};
pub use loader::{Chart, ChartFile};
pub use metadata::{Dependency, Maintainer, Metadata};

/// Which Helm release to imitate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum HelmVersion {
    /// Helm 3.15.3.
    #[default]
    V3,
    /// Helm 4.3.1.
    V4,
}

impl HelmVersion {
    /// The Masterminds/semver release this Helm links (v3.2.1 in Helm 3, v3.5.0 in
    /// Helm 4), for dependency versions and `kubeVersion:` checks.
    pub fn semver_lib(self) -> crate::funcs::semver::Lib {
        match self {
            HelmVersion::V3 => crate::funcs::semver::Lib::V3_2,
            HelmVersion::V4 => crate::funcs::semver::Lib::V3_5,
        }
    }
}

/// Whether work over texts of these sizes is worth spreading over threads. Parsing
/// runs at roughly 100 bytes per microsecond, so below this much text the thread
/// hand-off (and, in a one-shot `template` run, starting the pool) costs more than
/// it saves.
pub(crate) fn worth_parallel(sizes: impl Iterator<Item = usize>) -> bool {
    const MIN_BYTES: usize = 32 * 1024;
    let mut total = 0;
    for n in sizes {
        total += n;
        if total >= MIN_BYTES {
            return true;
        }
    }
    false
}
