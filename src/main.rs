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
    std::process::exit(stackproof::cli::main());
}
