//! The `stackproof` binary: all behaviour lives in the library's `cli` module.
//!
//! mimalloc is the allocator because a render allocates many small, short-lived
//! values, and glibc's malloc (with its page faults and consolidation) was a fifth of
//! a typical `template` run.

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    std::process::exit(stackproof::cli::main());
}
