#!/usr/bin/env bash
# Regenerates charts-under-test/expected/ with the real helm binaries (the oracles).
# Usage: scripts/regen-charts-under-test.sh [ORACLES_DIR]   (default: $STACKPROOF_ORACLES)
# Writes <id>.v3.out / <id>.v4.out (stdout) and <id>.v3.err / <id>.v4.err (stderr),
# plus <id>.v3.rc / <id>.v4.rc (exit code).
set -euo pipefail
here="$(cd "$(dirname "$0")/../charts-under-test" && pwd)"
oracles="${1:-${STACKPROOF_ORACLES:?set STACKPROOF_ORACLES or pass the oracle dir}}"
tmp="$(mktemp -d)"
export HELM_CONFIG_HOME="$tmp/config" HELM_CACHE_HOME="$tmp/cache" HELM_DATA_HOME="$tmp/data"
cd "$here"
rm -rf expected && mkdir expected
while IFS=$'\t' read -r id chart args; do
  [[ "$id" == \#* || -z "$id" ]] && continue
  for v in 3 4; do
    bin="$oracles/helm"; [ "$v" = 4 ] && bin="$oracles/helm-v4.3.1"
    # shellcheck disable=SC2086
    set +e
    "$bin" template rel "$chart" --namespace ns $args >"expected/$id.v$v.out" 2>"expected/$id.v$v.err"
    echo $? >"expected/$id.v$v.rc"
    set -e
  done
done < cases.tsv
rm -rf "$tmp"
