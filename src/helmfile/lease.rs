//! How long a run keeps a prepared chart: while a release of the run that names
//! it is still to render.
//!
//! Prepared charts are remembered (`seams`, `depbuild`) so that the releases of
//! one chart load it, build its dependencies and parse its templates once. Kept to
//! the end of the run, though, a stack's charts are all its chart files and
//! parsed templates at once, and every chart that renders later takes fresh memory
//! (which the kernel must zero) rather than reusing what the earlier ones freed.
//! NVCF's default cell, quick builds, `scripts/ab.py nvcf 30` in both orders: 73.0
//! -> 60.6 and 65.9 -> 60.1 ms median wall, huge-page faults 17.9 -> 11.4 per run.
//!
//! So each release takes a lease on its chart's directory once its state has
//! loaded, before any of that state's renders start, and returns it when its
//! render ends; the last lease returned forgets the chart. A later state that
//! names the same chart prepares it again. A matrix renders every chart again in
//! its next cell ([`crate::source::expect_repeats`]): there nothing is forgotten.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

/// The leases a run holds, by chart directory.
#[derive(Default)]
pub(crate) struct Leases {
    held: Mutex<HashMap<PathBuf, usize>>,
}

impl Leases {
    /// A lease on the chart in `dir`, kept until the returned value is dropped.
    pub(crate) fn take(self: &Arc<Self>, dir: PathBuf) -> Lease {
        let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        *held.entry(dir.clone()).or_default() += 1;
        Lease {
            leases: Arc::clone(self),
            dir,
        }
    }
}

/// One release's hold on its chart.
pub(crate) struct Lease {
    leases: Arc<Leases>,
    dir: PathBuf,
}

impl Drop for Lease {
    fn drop(&mut self) {
        let mut held = self
            .leases
            .held
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let Some(count) = held.get_mut(&self.dir) else {
            return;
        };
        *count -= 1;
        if *count > 0 {
            return;
        }
        held.remove(&self.dir);
        // Still under the lock: a lease taken meanwhile must not see its chart
        // forgotten after it was prepared again.
        if !crate::source::repeats_expected() {
            super::seams::forget_chart(&self.dir);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_lease_of_a_directory_ends_it() {
        let leases = Arc::new(Leases::default());
        let a = leases.take(PathBuf::from("/c/a"));
        let a2 = leases.take(PathBuf::from("/c/a"));
        let b = leases.take(PathBuf::from("/c/b"));
        let count = |d: &str| leases.held.lock().unwrap().get(&PathBuf::from(d)).copied();
        assert_eq!(count("/c/a"), Some(2));
        drop(a);
        assert_eq!(count("/c/a"), Some(1));
        drop(a2);
        assert_eq!(count("/c/a"), None);
        assert_eq!(count("/c/b"), Some(1));
        drop(b);
        assert!(leases.held.lock().unwrap().is_empty());
    }
}
