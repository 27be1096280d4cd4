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
//! per size class spreads a small heap over fewer of those 2 MB pages.

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
