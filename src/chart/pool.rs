//! The threads a chart render spreads its parsing and decoding over.
//!
//! Inside a pool's worker (a Helmfile stack or a matrix rendering many charts at
//! once) the work goes to that pool. Anywhere else, most of all a one-shot
//! `stackproof template`, it goes to a pool of this module's own, started as soon as
//! the load has read enough template text to be worth parsing on it (`loader`),
//! with a worker for every core.
//!
//! Why a pool of its own rather than rayon's global one:
//! - Sizing the global pool needs `build_global`, which waits until every worker
//!   has started (its thread and first heap pages); a pool built with `build`
//!   does not. On two cores, a lazily started pool took 2 to 5% less wall time per
//!   corpus case (median, two A/B runs) than the global pool.
//! - A parallel iterator run from outside the global pool hands the whole job to
//!   it and sleeps until it is done: with one worker the work ran on one thread,
//!   after a hand-off. [`map_shared`] keeps the calling thread working.
//!
//! A worker for every core, although the render's own thread works too: on the
//! two-vCPU VMs we measure, a worker the render's thread starts or wakes was
//! mostly put on that thread's own CPU (`perf sched timehist`: the two took turns
//! on CPU 0 while CPU 1 idled, for a millisecond or more, until load balancing
//! moved one), and a lone worker did little of the parsing. With two workers one
//! usually lands on the idle CPU: median per-case wall time over the corpus 0.94
//! of one worker's, both pools started early by the load (quick builds, 3
//! alternating runs per case).
//!
//! `RAYON_NUM_THREADS`, when set, decides the size as it decides rayon's.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use rayon::{Scope, ThreadPool};

/// This module's pool, or `None` when the system refused a thread.
static POOL: OnceLock<Option<ThreadPool>> = OnceLock::new();

fn own_pool() -> Option<&'static ThreadPool> {
    POOL.get_or_init(|| {
        let mut builder = rayon::ThreadPoolBuilder::new();
        if std::env::var_os("RAYON_NUM_THREADS").is_none() {
            let cores = std::thread::available_parallelism().map_or(1, usize::from);
            builder = builder.num_threads(cores);
        }
        builder.build().ok()
    })
    .as_ref()
}

/// Starts this module's pool now, so that its workers are up by the time work
/// comes (a thread takes a while to start, most of all on a VM whose other
/// cores are idle). Does nothing inside a pool's worker.
pub(crate) fn warm() {
    if rayon::current_thread_index().is_none() {
        own_pool();
    }
}

/// Runs `job` on a worker: of the pool this thread belongs to, else of this
/// module's own. Returns false (and drops `job`) when there is no pool to run it.
pub(crate) fn spawn(job: impl FnOnce() + Send + 'static) -> bool {
    if rayon::current_thread_index().is_some() {
        rayon::spawn(job);
        return true;
    }
    match own_pool() {
        Some(pool) => {
            pool.spawn(job);
            true
        }
        None => false,
    }
}

/// Runs `op` on this thread with a scope whose spawns go to the pool [`spawn`]
/// would use, and the number of workers there; without a pool, `op` gets `None`.
fn in_scope<'s, R>(op: impl FnOnce(Option<(&Scope<'s>, usize)>) -> R) -> R {
    if rayon::current_thread_index().is_some() {
        let workers = rayon::current_num_threads();
        return rayon::in_place_scope(|s| op(Some((s, workers))));
    }
    match own_pool() {
        Some(pool) => {
            let workers = pool.current_num_threads();
            pool.in_place_scope(|s| op(Some((s, workers))))
        }
        None => op(None),
    }
}

/// Whether work handed to [`spawn`] would start now on threads already running: on
/// a pool's worker, or once this module's pool was started. Work worth a thread
/// only when one is up anyway asks this first, so a small render never starts one.
pub(crate) fn running() -> bool {
    if rayon::current_thread_index().is_some() {
        return true;
    }
    matches!(POOL.get(), Some(Some(_)))
}

/// A job handed to the pool ahead of need, which whoever gets to it first runs:
/// a worker, or the caller of [`Ahead::take`] if no worker has started it (so
/// taking never waits on a queue, only on a job already under way).
pub(crate) struct Ahead<R> {
    job: Mutex<Option<Box<dyn FnOnce() -> R + Send>>>,
    done: AtomicBool,
    result: Mutex<Option<R>>,
}

impl<R: Send + 'static> Ahead<R> {
    /// Queues `job` on the pool [`spawn`] uses; without one it waits for `take`.
    pub(crate) fn start(job: impl FnOnce() -> R + Send + 'static) -> Arc<Ahead<R>> {
        let ahead = Arc::new(Ahead {
            job: Mutex::new(Some(Box::new(job))),
            done: AtomicBool::new(false),
            result: Mutex::new(None),
        });
        let mine = ahead.clone();
        spawn(move || {
            if let Some(job) = mine.claim() {
                // Done even if the job panics, so that `take` stops waiting.
                let _done = Done(&mine.done);
                let r = job();
                if let Ok(mut out) = mine.result.lock() {
                    *out = Some(r);
                }
            }
        });
        ahead
    }

    fn claim(&self) -> Option<Box<dyn FnOnce() -> R + Send>> {
        self.job.lock().ok().and_then(|mut j| j.take())
    }

    /// The job's result: run here when nobody has started it, else awaited.
    /// `None` only if the worker running it panicked.
    pub(crate) fn take(&self) -> Option<R> {
        if let Some(job) = self.claim() {
            return Some(job());
        }
        while !self.done.load(Ordering::Acquire) {
            std::hint::spin_loop();
            std::thread::yield_now();
        }
        self.result.lock().ok().and_then(|mut r| r.take())
    }
}

struct Done<'a>(&'a AtomicBool);

impl Drop for Done<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Release);
    }
}

/// `items.iter().map(f).collect()`, with every worker of the pool and this thread
/// taking items in turn until none is left.
pub(crate) fn map_shared<T, R, F>(items: &[T], f: F) -> Vec<R>
where
    T: Sync,
    R: Send,
    F: Fn(&T) -> R + Sync,
{
    // A lock per item, not a `OnceLock`: what is shared must be `Sync`, and a
    // parse result is only `Send`.
    let results: Vec<Mutex<Option<R>>> = items.iter().map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    let work = || loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        let Some(item) = items.get(i) else { break };
        let r = f(item);
        if let Ok(mut slot) = results[i].lock() {
            *slot = Some(r);
        }
    };
    in_scope(|scope| {
        if let Some((scope, workers)) = scope {
            for _ in 0..workers.min(items.len().saturating_sub(1)) {
                scope.spawn(|_| work());
            }
        }
        work();
    });
    // The scope ends only when every spawned share has, so every slot is set.
    results
        .into_iter()
        .filter_map(|r| r.into_inner().ok().flatten())
        .collect()
}

/// `(a(), b())`, with `a` handed to a worker of the pool [`spawn`] would use while
/// this thread runs `b`; if no worker has started `a` by the time `b` is done, this
/// thread runs it too. Both have finished when this returns.
pub(crate) fn beside<A, B>(a: impl FnOnce() -> A + Send, b: impl FnOnce() -> B) -> (A, B)
where
    A: Send,
{
    let job = Mutex::new(Some(a));
    let out: Mutex<Option<A>> = Mutex::new(None);
    let run = || {
        let Some(a) = job.lock().ok().and_then(|mut j| j.take()) else {
            return;
        };
        let r = a();
        if let Ok(mut o) = out.lock() {
            *o = Some(r);
        }
    };
    let rb = in_scope(|scope| {
        if let Some((scope, _)) = scope {
            scope.spawn(|_| run());
        }
        let rb = b();
        run();
        rb
    });
    // The scope ended, so whoever took `a` has stored its result.
    match out.into_inner().ok().flatten() {
        Some(ra) => (ra, rb),
        // A poisoned lock: the worker panicked inside `a`, which the scope has
        // already passed on; this is not reached.
        None => unreachable!("beside: the job ran without a result"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn map_shared_keeps_order_and_maps_every_item() {
        let items: Vec<u32> = (0..1000).collect();
        let out = map_shared(&items, |n| n * 2);
        assert_eq!(out, items.iter().map(|n| n * 2).collect::<Vec<_>>());
        assert!(map_shared(&[] as &[u32], |n| *n).is_empty());
    }

    #[test]
    fn map_shared_inside_a_pool_uses_that_pool() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .expect("a test pool");
        let items: Vec<usize> = (0..64).collect();
        let out = pool.install(|| map_shared(&items, |n| (n + 1, rayon::current_thread_index())));
        assert_eq!(
            out.iter().map(|p| p.0).collect::<Vec<_>>(),
            (1..65).collect::<Vec<_>>()
        );
        assert!(out.iter().all(|p| p.1.is_some()));
    }

    #[test]
    fn beside_runs_both_and_returns_both_results() {
        let (a, b) = beside(|| (1..=100u64).sum::<u64>(), || "here");
        assert_eq!((a, b), (5050, "here"));
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .expect("a test pool");
        let (a, b) = pool.install(|| beside(rayon::current_thread_index, || 2));
        assert_eq!((a, b), (Some(0), 2));
    }

    #[test]
    fn ahead_jobs_give_their_result_once_whoever_runs_them() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .expect("a test pool");
        let jobs: Vec<_> = pool.install(|| {
            assert!(running());
            (0..64u64)
                .map(|n| Ahead::start(move || (0..=n).sum::<u64>()))
                .collect()
        });
        let sums: Vec<Option<u64>> = jobs.iter().map(|j| j.take()).collect();
        assert_eq!(
            sums,
            (0..64u64)
                .map(|n| Some(n * (n + 1) / 2))
                .collect::<Vec<_>>()
        );
        assert!(jobs.iter().all(|j| j.claim().is_none()));
    }

    #[test]
    fn spawned_jobs_run() {
        let (tx, rx) = std::sync::mpsc::channel();
        assert!(spawn(move || {
            let _ = tx.send(7);
        }));
        assert_eq!(rx.recv().ok(), Some(7));
    }
}
