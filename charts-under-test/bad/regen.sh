#!/usr/bin/env bash
# Regenerates expected/ with the real helm binaries: what helm v3.15.3 and v4.3.1
# print on stderr (and their exit codes) for each case of cases.tsv.
# Usage: charts-under-test/bad/regen.sh [ORACLES_DIR]   (default: $STACKPROOF_ORACLES)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
oracles="${1:-${STACKPROOF_ORACLES:?set STACKPROOF_ORACLES or pass the oracle dir}}"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
export HELM_CONFIG_HOME="$tmp/config" HELM_CACHE_HOME="$tmp/cache" HELM_DATA_HOME="$tmp/data"
cd "$here"
rm -rf expected && mkdir expected
while IFS=$'\t' read -r id chart _where args; do
  [[ "$id" == \#* || -z "$id" ]] && continue
  for v in 3 4; do
    bin="$oracles/helm"; [ "$v" = 4 ] && bin="$oracles/helm-v4.3.1"
    set +e
    # shellcheck disable=SC2086
    "$bin" template rel "$chart" --namespace ns $args >"$tmp/out" 2>"expected/$id.v$v.err"
    echo $? >"expected/$id.v$v.rc"
    set -e
    [ -s "$tmp/out" ] && echo "regen: $id v$v printed to stdout" >&2
  done
done < cases.tsv
