#!/usr/bin/env bash
# Regenerates the expected `--output-dir` results (read by tests/template_flags.rs) with
# the real helm binaries: in an empty directory, `helm template rel ../feat --namespace ns
# --output-dir out --release-name --include-crds` runs twice (the second run appends
# hooks to the files the first left). vN/stdout-1 and vN/stdout-2 are what each run
# printed, vN/tree/ the directory written.
# Usage: charts-under-test/output-dir/regen.sh [ORACLES_DIR]   (default: $STACKPROOF_ORACLES)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
oracles="${1:-${STACKPROOF_ORACLES:?set STACKPROOF_ORACLES or pass the oracle dir}}"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
export HELM_CONFIG_HOME="$tmp/config" HELM_CACHE_HOME="$tmp/cache" HELM_DATA_HOME="$tmp/data"
cp -R "$here/../feat" "$tmp/feat"
for v in 3 4; do
  bin="$oracles/helm"; [ "$v" = 4 ] && bin="$oracles/helm-v4.3.1"
  rm -rf "$tmp/run" "$here/v$v" && mkdir -p "$tmp/run" "$here/v$v"
  for i in 1 2; do
    (cd "$tmp/run" && "$bin" template rel ../feat --namespace ns --output-dir out --release-name --include-crds 2>/dev/null) >"$here/v$v/stdout-$i"
  done
  cp -R "$tmp/run/out" "$here/v$v/tree"
done
