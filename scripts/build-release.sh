#!/usr/bin/env bash
# Builds the stackproof binary users should run, and prints its path.
#
# On x86_64 Linux with glibc the binary is linked statically: a one-shot render (a
# pre-commit hook renders each chart in its own process) then skips the dynamic
# loader's work at every start: loading libc, libm and libgcc_s, resolving their
# symbols, and libgcc's own CPU detection. That is about 0.5 ms of a 3-5 ms render
# (measured A/B, same code: `stackproof --version` 2.0 -> 1.5 ms median on a 2-core
# VM). Elsewhere it is the ordinary `cargo build --release`.
#
# Why a script and not .cargo/config.toml: `+crt-static` must not reach proc-macro
# crates, so it needs an explicit `--target`, which moves the output to
# target/<triple>/release and is wrong on every other platform.
#
#   scripts/build-release.sh          # prints e.g. .../target/x86_64-unknown-linux-gnu/release/stackproof
#   STACKPROOF_DYNAMIC=1 scripts/build-release.sh   # the ordinary build, for comparison
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
host="$(rustc -vV | sed -n 's/^host: //p')"
if [ "$host" = "x86_64-unknown-linux-gnu" ] && [ -z "${STACKPROOF_DYNAMIC:-}" ]; then
  # relocation-model=static: a static glibc executable must not be position-independent
  # (with the default, the linker keeps an ELF interpreter and ld.so crashes on it).
  RUSTFLAGS="${RUSTFLAGS:-} -C target-feature=+crt-static -C relocation-model=static" \
    cargo build --release --quiet --bin stackproof --target "$host" >&2
  echo "$root/target/$host/release/stackproof"
else
  cargo build --release --quiet --bin stackproof >&2
  echo "$root/target/release/stackproof"
fi
