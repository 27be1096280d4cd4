#!/usr/bin/env bash
# Builds the stackproof binary users should run, and prints its path.
#
# On x86_64 Linux the binary is linked statically: a one-shot render (a pre-commit
# hook renders each chart in its own process) then skips the dynamic loader's work
# at every start: loading libc, libm and libgcc_s, resolving their symbols, and
# libgcc's own CPU detection. That is about 0.5 ms of a 3-5 ms render (measured A/B,
# same code: `stackproof --version` 2.0 -> 1.5 ms median on a 2-core VM).
#
# It is linked against musl rather than glibc when the toolchain has the musl target
# (`rustup target add x86_64-unknown-linux-musl`) and a C compiler for it
# (`musl-gcc`, Debian's and Ubuntu's musl-tools): glibc, even static, detects the
# CPU's caches at every start with dozens of `cpuid` instructions, and on the VMs we
# measure each traps to the hypervisor (6.6 us); a static C program that does
# nothing takes 0.8 ms there with glibc and 0.3 ms with musl. The build replaces
# musl's slow memcpy family (native/mem.c) and its malloc (by mimalloc), which
# otherwise cost more than that. Quick builds, corpus A/B with 5 alternating runs per
# case: median per-case wall ratio musl/glibc 0.837, and 1/1.181 in the other order;
# `template` of a one-template chart 1.45 -> 0.83 ms. STACKPROOF_GLIBC=1 keeps glibc.
#
# Why a script and not .cargo/config.toml: `+crt-static` must not reach proc-macro
# crates, so it needs an explicit `--target`, which moves the output to
# target/<triple>/release and is wrong on every other platform.
#
# There it is also built with profile-guided optimization when the toolchain has
# `llvm-profdata` (`rustup component add llvm-tools`): an instrumented build runs
# over the repository's own fixtures (scripts/pgo-train.sh), and the release build
# then lays out and inlines code by what those runs did most. A/B of the static
# binary, 21 interleaved runs on 13 corpus charts: sum of medians 121.1 -> 113.7 ms,
# 12 of 13 charts faster. The profile is kept in target/pgo/ and made again when the
# sources or the fixtures change (a first build takes a few minutes longer).
#
# When this machine's CPU has the x86-64-v3 instruction set (AVX2, BMI2, FMA, ...:
# Intel since 2013, AMD since 2015) the code is compiled for it. The binary then
# needs such a CPU: build with STACKPROOF_PORTABLE=1 for one to copy to older ones.
# Two reasons, measured together (quick builds, static, corpus A/B with 3 alternating
# runs per case: median per-case wall ratio 0.938, and 1/1.049 in the other order):
# the code itself (the memchr, hashing and YAML loops use the wider instructions
# without a runtime check), and start-up: the first `memchr` asked the CPU which
# features it has, about ten `cpuid` instructions, and on the VMs we measure each
# one traps to the hypervisor (6.6 us each, timed), about 65 us of every run.
#
#   scripts/build-release.sh          # prints e.g. .../target/x86_64-unknown-linux-musl/release/stackproof
#   STACKPROOF_DYNAMIC=1 scripts/build-release.sh   # the ordinary build, for comparison
#   STACKPROOF_PGO=0 scripts/build-release.sh       # static, without the profile
#   STACKPROOF_PORTABLE=1 scripts/build-release.sh  # any x86_64 CPU
#   STACKPROOF_GLIBC=1 scripts/build-release.sh     # static with glibc, even where musl is there
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
host="$(rustc -vV | sed -n 's/^host: //p')"
if [ "$host" = "x86_64-unknown-linux-gnu" ] && [ -z "${STACKPROOF_DYNAMIC:-}" ]; then
  target="$host"
  if [ -z "${STACKPROOF_GLIBC:-}" ] && "$root/scripts/have-musl.sh"; then
    target="x86_64-unknown-linux-musl"
  fi
  # relocation-model=static: a static glibc executable must not be position-independent
  # (with the default, the linker keeps an ELF interpreter and ld.so crashes on it);
  # with musl a position-independent one works, but relocates itself at every start
  # (a fixed address was 1.28x faster over the corpus).
  flags="${RUSTFLAGS:-} -C target-feature=+crt-static -C relocation-model=static"
  if [ -z "${STACKPROOF_PORTABLE:-}" ]; then
    # x86-64-v3 as rustc defines it, by the names /proc/cpuinfo gives its features
    # (abm is lzcnt).
    v3=yes
    cpu_flags=" $(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null | cut -d: -f2) "
    for f in avx avx2 bmi1 bmi2 fma f16c movbe abm popcnt xsave cx16 sse4_1 sse4_2 ssse3; do
      case "$cpu_flags" in *" $f "*) ;; *) v3=no ;; esac
    done
    if [ "$v3" = yes ]; then
      flags="$flags -C target-cpu=x86-64-v3"
    fi
  fi
  profdata="$(rustc --print sysroot)/lib/rustlib/$host/bin/llvm-profdata"
  if [ "${STACKPROOF_PGO:-1}" != 0 ] && [ -x "$profdata" ]; then
    pgo="$root/target/pgo"
    mkdir -p "$pgo"
    # What the profile depends on: the code, the build settings (the instruction
    # set among them) and the fixtures it was gathered on.
    fp="$( { find src native build.rs charts-under-test Cargo.toml Cargo.lock .cargo scripts/pgo-train.sh \
      -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum; echo "$flags $target"; } |
      sha256sum | cut -c1-16)"
    if [ ! -f "$pgo/$fp.profdata" ]; then
      echo "build-release: gathering a profile for profile-guided optimization" >&2
      rm -rf "$pgo/raw"
      # The instrumented build needs no link-time optimization (counters are placed
      # before inlining, so the profile fits the release build all the same), and
      # its `main` writes the counters out (the cfg, see src/main.rs).
      RUSTFLAGS="$flags -Cprofile-generate=$pgo/raw" \
        cargo rustc --profile quick-release --quiet --bin stackproof --target "$target" \
        --target-dir "$pgo/build" -- --cfg stackproof_pgo_train >&2
      "$root/scripts/pgo-train.sh" "$pgo/build/$target/quick-release/stackproof" >&2
      if "$profdata" merge -o "$pgo/$fp.profdata.tmp" "$pgo/raw" >&2; then
        mv "$pgo/$fp.profdata.tmp" "$pgo/$fp.profdata"
      else
        echo "build-release: no usable profile; building without it" >&2
      fi
      rm -rf "$pgo/raw"
    fi
    if [ -f "$pgo/$fp.profdata" ]; then
      # One path for every profile, so that a new profile does not change the flags
      # (which would rebuild every dependency): cargo rebuilds what changed.
      cp "$pgo/$fp.profdata" "$pgo/current.profdata"
      flags="$flags -Cprofile-use=$pgo/current.profdata"
    fi
  fi
  RUSTFLAGS="$flags" cargo build --release --quiet --bin stackproof --target "$target" >&2
  echo "$root/target/$target/release/stackproof"
else
  cargo build --release --quiet --bin stackproof >&2
  echo "$root/target/release/stackproof"
fi
