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

use std::borrow::Borrow;
use std::collections::HashMap;
use std::hash::Hash;

use foldhash::fast::RandomState;
use parking_lot::Mutex;

/// Keys are often whole texts (a rendered values file, a manifest), so hashing cost
/// matters more than resistance to chosen collisions, which no input here can exploit
/// beyond slowing its own run.
type Table<K, V> = HashMap<K, V, RandomState>;

/// A bounded, thread-safe map from a work's full input to its result.
pub struct Memo<K, V> {
    table: Mutex<Option<Table<K, V>>>,
    max_entries: usize,
}

impl<K: Eq + Hash, V: Clone> Memo<K, V> {
    pub const fn new(max_entries: usize) -> Memo<K, V> {
        Memo {
            table: Mutex::new(None),
            max_entries,
        }
    }

    /// The remembered result for `key`, if any.
    pub fn get<Q>(&self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
        Q: Eq + Hash + ?Sized,
    {
        self.table.lock().as_ref()?.get(key).cloned()
    }

    /// Remembers `value` as the result for `key`.
    pub fn insert(&self, key: K, value: V) {
        let mut table = self.table.lock();
        let table = table.get_or_insert_with(Table::default);
        if table.len() >= self.max_entries {
            table.clear();
        }
        table.insert(key, value);
    }

    /// The result for `key`, computing and remembering it on a miss. The work runs
    /// without the lock held, so two threads may both compute a result for one key;
    /// both results are equal, as the work is pure.
    pub fn get_or_compute<Q>(&self, key: &Q, work: impl FnOnce() -> V) -> V
    where
        K: Borrow<Q>,
        Q: Eq + Hash + ToOwned<Owned = K> + ?Sized,
    {
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
}
