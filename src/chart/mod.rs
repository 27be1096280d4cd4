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
pub mod pool;
pub mod postrender;
pub mod preparse;
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

thread_local! {
    static ONE_THREAD: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` (a chart render) with the renderer's own parallelism off on this
/// thread: every file parses and every head decodes here, in turn.
///
/// Why: a caller that already renders many charts at once on the pool (a
/// Helmfile stack) keeps every thread busy with whole charts. A chart that split
/// its parsing over the pool waited for the pieces other threads took, and while
/// waiting took whole charts itself, so it finished only after them: NVCF's
/// cert-manager ended 16 ms after every other release, alone on one thread.
pub fn rendering_on_one_thread<R>(f: impl FnOnce() -> R) -> R {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            ONE_THREAD.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(ONE_THREAD.with(|c| c.replace(true)));
    f()
}

/// Whether this thread's render may hand work to other threads (not inside
/// [`rendering_on_one_thread`]).
pub(crate) fn may_spread() -> bool {
    !ONE_THREAD.with(std::cell::Cell::get)
}

/// Whether work over texts of these sizes is worth spreading over threads. Parsing
/// runs at roughly 100 bytes per microsecond, so below this much text the thread
/// hand-off (and, in a one-shot `template` run, starting the pool) costs more than
/// it saves. Never inside [`rendering_on_one_thread`].
pub(crate) fn worth_parallel(sizes: impl Iterator<Item = usize>) -> bool {
    if !may_spread() {
        return false;
    }
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
