//! Stack depth for the recursive parser and executor: where a deep template switches
//! to a fresh stack segment instead of overflowing.
//!
//! The work is done by the `stacker` crate. What this adds is knowing the limit of the
//! process's main thread without asking libc, which `main` arranges with
//! [`init_main_thread`] before anything else runs:
//! - musl cannot say how far the main thread's stack may grow: it reports what is
//!   mapped so far (learning even that takes a system call per page), so `stacker`
//!   would switch to a fresh segment after about 100 KB, again and again (prometheus's
//!   render took 645 page faults against 183). stackproof used to run everything on a
//!   second thread with a stated stack size instead, which every start paid for.
//! - glibc answers by reading and parsing `/proc/self/maps`, once per run.
//!
//! The main thread's stack grows down from the top the kernel placed it at, up to the
//! `RLIMIT_STACK` size; the top is just above the program's file name, which the
//! kernel copies there first (`AT_EXECFN`). Other threads, and code running on a
//! segment `stacker` made, use `stacker`'s own accounting.

use std::cell::Cell;

thread_local! {
    /// The lowest address this thread's stack may reach, when known here; `None`
    /// leaves the question to `stacker`.
    static LIMIT: Cell<Option<usize>> = const { Cell::new(None) };
}

/// Room left below this that the main thread never uses, for signal frames and for
/// the estimate of the stack's top being a little off.
const MARGIN: usize = 256 * 1024;

/// Where the limit is not bounded (`ulimit -s unlimited`), this much is assumed.
const UNBOUNDED: usize = 64 << 20;

/// Records how far the calling thread, the process's main thread, may grow its stack.
/// Call it first thing in `main`. Called on another thread it records nothing: that
/// thread's stack is not where the main thread's may grow.
pub fn init_main_thread() {
    if let Some(limit) = main_thread_limit() {
        LIMIT.with(|l| l.set(Some(limit)));
    }
}

#[cfg(target_os = "linux")]
fn main_thread_limit() -> Option<usize> {
    // SAFETY: getauxval only reads the auxiliary vector the kernel passed; it returns
    // 0 when the entry is absent.
    let execfn = unsafe { libc::getauxval(libc::AT_EXECFN) } as usize;
    if execfn == 0 {
        return None;
    }
    let mut rl = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes into the struct it is given.
    if unsafe { libc::getrlimit(libc::RLIMIT_STACK, &mut rl) } != 0 {
        return None;
    }
    let size = if rl.rlim_cur == libc::RLIM_INFINITY {
        UNBOUNDED
    } else {
        usize::try_from(rl.rlim_cur).unwrap_or(UNBOUNDED)
    };
    // The file name is a short string at the very top (a page covers its end).
    let top = execfn.checked_add(4096)?;
    let limit = top.checked_sub(size)?.checked_add(MARGIN)?;
    // A stack pointer outside that range is another thread's, or the layout is not
    // what the kernel usually makes; then `stacker` decides as before.
    (limit..top).contains(&approximate_sp()).then_some(limit)
}

#[cfg(not(target_os = "linux"))]
fn main_thread_limit() -> Option<usize> {
    None
}

#[inline(always)]
fn approximate_sp() -> usize {
    let here = 0u8;
    std::ptr::addr_of!(here) as usize
}

/// Runs `f` on the current stack when at least `red_zone` bytes remain, and otherwise
/// on a fresh segment of `stack_size` bytes (`stacker::maybe_grow`'s contract).
#[inline(always)]
pub fn maybe_grow<R, F: FnOnce() -> R>(red_zone: usize, stack_size: usize, f: F) -> R {
    match LIMIT.with(|l| l.get()) {
        None => stacker::maybe_grow(red_zone, stack_size, f),
        Some(limit) => {
            if approximate_sp().saturating_sub(limit) >= red_zone {
                f()
            } else {
                grow(limit, stack_size, f)
            }
        }
    }
}

#[cold]
fn grow<R, F: FnOnce() -> R>(limit: usize, stack_size: usize, f: F) -> R {
    /// Puts the main stack's limit back when `f` returns or unwinds.
    struct Restore(usize);
    impl Drop for Restore {
        fn drop(&mut self) {
            LIMIT.with(|l| l.set(Some(self.0)));
        }
    }
    // On the new segment `stacker` knows the bounds; nested calls must ask it.
    LIMIT.with(|l| l.set(None));
    let _restore = Restore(limit);
    stacker::grow(stack_size, f)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Recursion far deeper than a test thread's 2 MB stack holds: it only finishes
    /// if segments are switched, with the limit known here or by `stacker`.
    fn depth(n: usize) -> usize {
        maybe_grow(32 * 1024, 256 * 1024, || {
            // Stack space each level really uses.
            let pad = [n as u8; 512];
            std::hint::black_box(&pad);
            if n == 0 {
                0
            } else {
                depth(n - 1) + 1
            }
        })
    }

    #[test]
    fn deep_recursion_switches_segments() {
        assert_eq!(depth(20_000), 20_000);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn another_thread_is_not_taken_for_the_main_thread() {
        // Test threads have stacks of their own, mapped away from the main thread's.
        let t = std::thread::spawn(|| {
            init_main_thread();
            LIMIT.with(|l| l.get())
        });
        assert_eq!(t.join().expect("join"), None);
    }

    #[test]
    fn with_a_known_limit_the_segment_switch_restores_it() {
        // A limit 200 KB below here, on a thread whose stack is larger than that.
        let t = std::thread::Builder::new()
            .stack_size(1 << 20)
            .spawn(|| {
                let limit = approximate_sp() - 200 * 1024;
                LIMIT.with(|l| l.set(Some(limit)));
                let n = depth(5_000);
                (n, LIMIT.with(|l| l.get()) == Some(limit))
            })
            .expect("spawn");
        assert_eq!(t.join().expect("join"), (5_000, true));
    }
}
