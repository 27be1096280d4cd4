#!/usr/bin/env bash
# Exits 0 when this machine can build stackproof's static musl binary: an x86_64
# Linux (glibc) host whose Rust toolchain has the x86_64-unknown-linux-musl target
# and a C compiler for musl (mimalloc and native/mem.c are C). Used by
# scripts/build-release.sh (which then builds for musl) and .ci/run (which then tests
# that build).
[ "$(rustc -vV | sed -n 's/^host: //p')" = x86_64-unknown-linux-gnu ] &&
  [ -d "$(rustc --print sysroot)/lib/rustlib/x86_64-unknown-linux-musl/lib" ] &&
  { command -v x86_64-linux-musl-gcc || command -v musl-gcc; } >/dev/null 2>&1
