#!/usr/bin/env bash
# Regenerates DIR/expected/ with the real helm binaries (the oracles) for each case of
# DIR/cases.tsv: what helm v3.15.3 and v4.3.1 print on stdout (<id>.vN.out) and stderr
# (<id>.vN.err), and their exit codes (<id>.vN.rc).
#
# Usage: scripts/regen-helm-cases.sh DIR [ORACLES_DIR]   (default: $STACKPROOF_ORACLES)
# cases.tsv columns: id, chart, then helm flags. With WHERE_COLUMN=1 a third column (the
# expected error location, read by the tests) comes before the flags; with KEEP_STDOUT=0
# stdout is not kept, and a case printing anything there is reported.
set -euo pipefail
dir="$(cd "${1:?usage: regen-helm-cases.sh DIR [ORACLES_DIR]}" && pwd)"
oracles="${2:-${STACKPROOF_ORACLES:?set STACKPROOF_ORACLES or pass the oracle dir}}"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
export HELM_CONFIG_HOME="$tmp/config" HELM_CACHE_HOME="$tmp/cache" HELM_DATA_HOME="$tmp/data"
cd "$dir"
rm -rf expected && mkdir expected
# Each run works in a fresh copy of DIR: some flags make helm write into the chart
# (--dependency-update saves charts/ and Chart.lock), which must touch neither the
# repository nor the next run.
work="$tmp/work"
while IFS=$'\t' read -r id chart rest; do
  [[ "$id" == \#* || -z "$id" ]] && continue
  args="$rest"
  if [ "${WHERE_COLUMN:-0}" = 1 ]; then
    args="${rest#*$'\t'}"; [ "$args" = "$rest" ] && args=""
  fi
  for v in 3 4; do
    bin="$oracles/helm"; [ "$v" = 4 ] && bin="$oracles/helm-v4.3.1"
    out="expected/$id.v$v.out"; [ "${KEEP_STDOUT:-1}" = 0 ] && out="$tmp/out"
    case "$out" in /*) ;; *) out="$dir/$out" ;; esac
    rm -rf "$work" && mkdir "$work" && cp -R "$dir/." "$work/" && rm -rf "$work/expected"
    set +e
    # shellcheck disable=SC2086
    (cd "$work" && "$bin" template rel "$chart" --namespace ns $args) >"$out" 2>"$dir/expected/$id.v$v.err"
    echo $? >"$dir/expected/$id.v$v.rc"
    set -e
    if [ "${KEEP_STDOUT:-1}" = 0 ] && [ -s "$out" ]; then echo "regen: $id v$v printed to stdout" >&2; fi
  done
done < cases.tsv
