//! The `stackproof` binary: all behaviour lives in the library's `cli` module.
//!
//! mimalloc is the allocator because a render allocates many small, short-lived
//! values, and glibc's malloc (with its page faults and consolidation) was a fifth of
//! a typical `template` run. Its v2 line (the `v2` feature), because v3 sets up its
//! arena bitmaps at process start: about 0.3 ms of every run, a sixth of the time a
//! small chart takes. With transparent huge pages left on (mimalloc asks for them on
//! its arena): a fresh 4 KB page costs a fault of about 1.5 us on the VMs we measure,
//! a chart's heap is several MB touched once, and zeroing one 2 MB page costs about
//! what 100 small faults do. Peak memory grows (argo-cd 26 -> 47 MB) and every run
//! we timed was as fast or faster (13 corpus charts, sum of medians 78 -> 70 ms).
//! Its slices are 8 KiB rather than 64 (`.cargo/config.toml`), so that one page
//! per size class spreads a small heap over fewer of those 2 MB pages. The first
//! 8 MB of the heap are ordinary pages (`arena_with_small_pages_first`).

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Hands mimalloc the memory its heap starts in, before anything is allocated: 1 GiB
/// of address space (nothing is used until touched), its first 8 MB on ordinary 4 KB
/// pages and the rest on transparent huge pages, as mimalloc itself would ask for
/// them. The first 8 MB hold the first segments of the main thread and of the
/// render's worker threads (each thread takes a segment of its own, 1 MiB): a small
/// render touches a few hundred KB of each, and a huge page there meant zeroing all
/// 2 MB first, on every thread's first allocation; a large render still gets huge
/// pages for everything past them.
///
/// With a 2 MB prefix (the main thread's segment only), quick musl builds,
/// interleaved: `stackproof --version` 0.78 -> 0.68 ms, a one-template chart 1.11
/// -> 0.89 ms; corpus median per-case ratio 0.962, and 1/1.036 in the other order;
/// NVCF default cell 79.2 -> 73.4 ms. Profiled later (jaeger's chart, dwarf
/// stacks), a tenth of the run's CPU time was a worker's first allocation zeroing a
/// huge page. 8 MB against 2 MB (quick musl builds, `scripts/ab.py`, both orders):
/// corpus median per-case ratio 0.962, and 1/1.018; NVCF default cell (30 runs)
/// 4 MB against 2 MB 62.5 -> 58.8 and 60.9 -> 59.1 ms, 8 MB against 4 MB 63.5 ->
/// 60.3 and 64.0 -> 58.9 ms. All 32 MB on small pages was as fast for the NVCF cell
/// and the median chart, but the largest charts lost (argo-cd 13.9 -> 15.4 ms).
/// Where this fails, mimalloc reserves its own arena as before.
#[cfg(target_os = "linux")]
fn arena_with_small_pages_first() {
    extern "C" {
        // mimalloc's API (mimalloc.h): set up the allocator now; a no-op when done.
        fn mi_process_init();
        // mimalloc's API (mimalloc.h): memory the program owns, to allocate from.
        fn mi_manage_os_memory(
            start: *mut libc::c_void,
            size: usize,
            is_committed: bool,
            is_large: bool,
            is_zero: bool,
            numa_node: i32,
        ) -> bool;
    }
    const SIZE: usize = 1 << 30;
    const HUGE: usize = 2 << 20;
    const SMALL: usize = 8 << 20;
    // SAFETY: a fresh private anonymous mapping that nothing else refers to; the
    // madvise calls only set how its pages are backed; mimalloc is given exactly the
    // aligned part of it and owns it for the rest of the process (or, refusing it,
    // leaves it to be unmapped here).
    unsafe {
        mi_process_init();
        let p = libc::mmap(
            std::ptr::null_mut(),
            SIZE + HUGE,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        );
        if p == libc::MAP_FAILED {
            return;
        }
        let start = (p as usize).next_multiple_of(HUGE) as *mut libc::c_void;
        libc::madvise(start, SMALL, libc::MADV_NOHUGEPAGE);
        libc::madvise(
            start.cast::<u8>().add(SMALL).cast(),
            SIZE - SMALL,
            libc::MADV_HUGEPAGE,
        );
        if !mi_manage_os_memory(start, SIZE, true, false, true, -1) {
            libc::munmap(p, SIZE + HUGE);
        }
    }
}

/// Runs [`arena_with_small_pages_first`] among the program's initializers, before
/// Rust's runtime starts `main`: with glibc the runtime allocates before `main` (for
/// its stack overflow handler), and mimalloc would reserve an arena of its own then.
#[cfg(target_os = "linux")]
#[used]
#[link_section = ".init_array"]
static ARENA_FIRST: extern "C" fn() = {
    extern "C" fn init() {
        arena_with_small_pages_first();
    }
    init
};

fn main() {
    use std::io::Write;
    stackproof::template::stack::init_main_thread();
    let code = stackproof::cli::main();
    // Everything is written once output is flushed; what `exit` would run after that
    // is the allocator handing every page back to the system one by one (mimalloc's
    // exit-time collection, 2% of a large chart's run), which the kernel does anyway
    // when the process ends.
    let flushed = std::io::stdout().flush().is_ok() & std::io::stderr().flush().is_ok();
    if !flushed {
        std::process::exit(if code == 0 { 1 } else { code });
    }
    // An instrumented build for profile-guided optimization (scripts/pgo-train.sh)
    // writes its profile from an exit handler, which `_exit` would skip.
    #[cfg(stackproof_pgo_train)]
    {
        extern "C" {
            fn __llvm_profile_write_file() -> i32;
        }
        // SAFETY: the profiling runtime linked into instrumented builds defines it;
        // it writes the counters gathered so far to the file named at build time.
        unsafe { __llvm_profile_write_file() };
    }
    // SAFETY: `_exit` ends the process without running exit handlers; nothing is
    // left to write (both streams were flushed above, and every file the commands
    // write is closed before `cli::main` returns).
    unsafe { libc::_exit(code) }
}
