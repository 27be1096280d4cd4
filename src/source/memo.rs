//! Process-wide tables that remember the results of pure, repeated work.
//!
//! A matrix renders the same stack many times with small differences: most releases
//! receive identical values in every cell, and every release of a Helmfile state is
//! handed the same rendered values files. Decoding those texts and rendering those
//! charts again gives the same result each time, because every input of the work is
//! in the key (the inputs stackproof reads are never written to during a run). A
//! [`Memo`] keeps those results so the second cell pays only for what differs.
//!
//! Tables are bounded: when one holds `max_entries` results it is emptied and starts
//! over, which keeps memory flat on long runs without tracking recency.
//!
//! Some tables only pay when the same inputs come back, which within one render
//! they rarely do: keeping every manifest's text as a key copies a chart's whole
//! output (megabytes for a stack), and fresh memory costs the kernel zeroing it.
//! Those are made with [`Memo::for_repeats`] and stay empty until the process says
//! it will render many times ([`expect_repeats`], called by the matrix).

use std::borrow::Borrow;
use std::collections::HashMap;
use std::hash::Hash;
use std::sync::atomic::{AtomicBool, Ordering};

use foldhash::fast::RandomState;
use parking_lot::Mutex;

/// Keys are often whole texts (a rendered values file, a manifest), so hashing cost
/// matters more than resistance to chosen collisions, which no input here can exploit
/// beyond slowing its own run.
type Table<K, V> = HashMap<K, V, RandomState>;

/// Whether this process renders the same inputs more than once.
static REPEATS: AtomicBool = AtomicBool::new(false);

/// Declares that this process will render many times (a matrix's cells, the two
/// sides of a diff): tables made with [`Memo::for_repeats`] start remembering.
pub fn expect_repeats() {
    REPEATS.store(true, Ordering::Relaxed);
}

/// Whether [`expect_repeats`] was called: a caller that drops results it knows
/// are no longer needed keeps them instead, for the next render.
pub fn repeats_expected() -> bool {
    REPEATS.load(Ordering::Relaxed)
}

/// A bounded, thread-safe map from a work's full input to its result.
pub struct Memo<K, V> {
    table: Mutex<Option<Table<K, V>>>,
    max_entries: usize,
    /// Remembers only once [`expect_repeats`] was called.
    only_repeats: bool,
}

impl<K: Eq + Hash, V: Clone> Memo<K, V> {
    pub const fn new(max_entries: usize) -> Memo<K, V> {
        Memo {
            table: Mutex::new(None),
            max_entries,
            only_repeats: false,
        }
    }

    /// A table that remembers only in a process that renders many times (see the
    /// module docs).
    pub const fn for_repeats(max_entries: usize) -> Memo<K, V> {
        Memo {
            table: Mutex::new(None),
            max_entries,
            only_repeats: true,
        }
    }

    /// Whether this table remembers anything in this process now.
    pub fn active(&self) -> bool {
        self.remembers(REPEATS.load(Ordering::Relaxed))
    }

    /// Whether this table remembers, given whether the process declared repeats.
    fn remembers(&self, repeats: bool) -> bool {
        !self.only_repeats || repeats
    }

    /// The remembered result for `key`, if any.
    pub fn get<Q>(&self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
        Q: Eq + Hash + ?Sized,
    {
        if !self.active() {
            return None;
        }
        self.table.lock().as_ref()?.get(key).cloned()
    }

    /// Remembers `value` as the result for `key`.
    pub fn insert(&self, key: K, value: V) {
        if !self.active() {
            return;
        }
        let mut table = self.table.lock();
        let table = table.get_or_insert_with(Table::default);
        if table.len() >= self.max_entries {
            table.clear();
        }
        table.insert(key, value);
    }

    /// Drops the remembered results whose keys `stale` picks.
    pub fn forget_where(&self, mut stale: impl FnMut(&K) -> bool) {
        if let Some(table) = self.table.lock().as_mut() {
            table.retain(|k, _| !stale(k));
        }
    }

    /// The result for `key`, computing and remembering it on a miss. The work runs
    /// without the lock held, so two threads may both compute a result for one key;
    /// both results are equal, as the work is pure.
    pub fn get_or_compute<Q>(&self, key: &Q, work: impl FnOnce() -> V) -> V
    where
        K: Borrow<Q>,
        Q: Eq + Hash + ToOwned<Owned = K> + ?Sized,
    {
        if !self.active() {
            return work();
        }
        if let Some(v) = self.get(key) {
            return v;
        }
        let v = work();
        self.insert(key.to_owned(), v.clone());
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remembers_and_bounds() {
        let memo: Memo<String, usize> = Memo::new(2);
        let mut calls = 0;
        assert_eq!(
            memo.get_or_compute("a", || {
                calls += 1;
                1
            }),
            1
        );
        assert_eq!(
            memo.get_or_compute("a", || {
                calls += 1;
                2
            }),
            1
        );
        assert_eq!(calls, 1);
        memo.insert("b".into(), 2);
        // Full: the next insert empties the table first.
        memo.insert("c".into(), 3);
        assert_eq!(memo.get("a"), None);
        assert_eq!(memo.get("c"), Some(3));
    }

    #[test]
    fn forgets_what_is_picked() {
        let memo: Memo<String, usize> = Memo::new(8);
        for (k, v) in [("a/x", 1), ("a/y", 2), ("b/x", 3)] {
            memo.insert(k.into(), v);
        }
        memo.forget_where(|k| k.starts_with("a/"));
        assert_eq!(memo.get("a/x"), None);
        assert_eq!(memo.get("a/y"), None);
        assert_eq!(memo.get("b/x"), Some(3));
        // An empty table has nothing to forget.
        let empty: Memo<String, usize> = Memo::new(8);
        empty.forget_where(|_| true);
        assert_eq!(empty.get("a"), None);
    }

    #[test]
    fn tables_for_repeats_wait_for_the_matrix() {
        let always: Memo<String, usize> = Memo::new(4);
        let memo: Memo<String, usize> = Memo::for_repeats(4);
        assert!(always.remembers(false) && always.remembers(true));
        assert!(!memo.remembers(false) && memo.remembers(true));
        // Tests share the process, and another test may already have declared
        // repeats; before that, such a table must compute every time.
        if !REPEATS.load(Ordering::Relaxed) {
            let mut calls = 0;
            for _ in 0..2 {
                memo.get_or_compute("a", || {
                    calls += 1;
                    1
                });
            }
            assert_eq!(calls, 2);
            assert_eq!(memo.get("a"), None);
        }
        expect_repeats();
        let mut calls = 0;
        for _ in 0..2 {
            memo.get_or_compute("a", || {
                calls += 1;
                1
            });
        }
        assert_eq!(calls, 1);
        assert_eq!(memo.get("a"), Some(1));
    }
}
