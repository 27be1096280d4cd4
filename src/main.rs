//! The `stackproof` binary: all behaviour lives in the library's `cli` module.
//!
//! mimalloc is the allocator because a render allocates many small, short-lived
//! values, and glibc's malloc (with its page faults and consolidation) was a fifth of
//! a typical `template` run. Its v2 line (the `v2` feature), because v3 sets up its
//! arena bitmaps at process start: about 0.3 ms of every run, a sixth of the time a
//! small chart takes.

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    use std::io::Write;
    let code = stackproof::cli::main();
    // Everything is written once output is flushed; what `exit` would run after that
    // is the allocator handing every page back to the system one by one (mimalloc's
    // exit-time collection, 2% of a large chart's run), which the kernel does anyway
    // when the process ends.
    let flushed = std::io::stdout().flush().is_ok() & std::io::stderr().flush().is_ok();
    if !flushed {
        std::process::exit(if code == 0 { 1 } else { code });
    }
    // SAFETY: `_exit` ends the process without running exit handlers; nothing is
    // left to write (both streams were flushed above, and every file the commands
    // write is closed before `cli::main` returns).
    unsafe { libc::_exit(code) }
}
