#!/usr/bin/env bash
# Times rendering every case of the shared corpus (corpus/cases.tsv) with the real
# `helm template` and with `stackproof template`, whole process per case (start-up,
# chart loading, rendering, printing), RUNS times each, and prints per case the
# median wall time of both and the ratio helm/stackproof; then the smallest, median
# and geometric-mean ratio and the summed medians. Cases where either tool fails
# (exit code != 0) are timed too and marked.
#
# Usage: scripts/bench-corpus.sh [RUNS]          (default 5)
#   HELM_VERSION=4 scripts/bench-corpus.sh     compare with helm v4.3.1 (--helm-version 4)
#   STACKPROOF_BIN=path                          use this binary, skip the release build
#   BENCH_FILTER=regex                           only cases whose "chart/case" matches
# Needs STACKPROOF_ORACLES (folder with `helm`, `helm-v4.3.1`) and the corpus
# (STACKPROOF_SHARED or ../shared). Builds stackproof in release mode first.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
runs="${1:-5}"
shared="${STACKPROOF_SHARED:-$root/../shared}"
oracles="${STACKPROOF_ORACLES:?set STACKPROOF_ORACLES to the folder holding helm}"
version="${HELM_VERSION:-3}"
corpus="$shared/corpus"
[ -f "$corpus/cases.tsv" ] || { echo "bench-corpus: no corpus at $corpus" >&2; exit 2; }
case "$version" in
  3) helm="$oracles/helm" ;;
  4) helm="$oracles/helm-v4.3.1" ;;
  *) echo "bench-corpus: HELM_VERSION must be 3 or 4" >&2; exit 2 ;;
esac
[ -x "$helm" ] || { echo "bench-corpus: no $helm" >&2; exit 2; }
if [ -n "${STACKPROOF_BIN:-}" ]; then
  sp="$STACKPROOF_BIN"
else
  (cd "$root" && cargo build --release --quiet --bin stackproof)
  sp="$root/target/release/stackproof"
fi
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
export HELM_CONFIG_HOME="$tmp/c" HELM_CACHE_HOME="$tmp/k" HELM_DATA_HOME="$tmp/d"

# Microseconds since the epoch, without forking (bash 5's EPOCHREALTIME).
now_us() { local t="${EPOCHREALTIME/[.,]/}"; echo "$((10#$t))"; }

# Median (microseconds) of RUNS runs of the command in "$@"; sets $rc_last.
time_median() {
  local i start end
  local -a times=()
  for ((i = 0; i < runs; i++)); do
    start=$(now_us)
    set +e
    "$@" >/dev/null 2>&1
    rc_last=$?
    set -e
    end=$(now_us)
    times+=($((end - start)))
  done
  printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}

ms() { awk -v u="$1" 'BEGIN { printf "%.1f", u / 1000 }'; }

cd "$corpus"
printf '%-62s %10s %10s %8s\n' "case (helm v$version, median of $runs)" "helm ms" "sp ms" "ratio"
ratios="$tmp/ratios"; : >"$ratios"
helm_total=0; sp_total=0; n=0
while IFS=$'\t' read -r chart id args; do
  [[ "$chart" == \#* || -z "$chart" ]] && continue
  name="$chart/$id"
  [[ -n "${BENCH_FILTER:-}" && ! "$name" =~ $BENCH_FILTER ]] && continue
  # shellcheck disable=SC2086
  h=$(time_median "$helm" template rel "charts/$chart" --namespace ns $args)
  h_rc=$rc_last
  # shellcheck disable=SC2086
  s=$(time_median "$sp" template rel "charts/$chart" --namespace ns --helm-version "$version" $args)
  s_rc=$rc_last
  note=""
  { [ "$h_rc" != 0 ] || [ "$s_rc" != 0 ]; } && note="  (exit: helm $h_rc, stackproof $s_rc)"
  ratio=$(awk -v h="$h" -v s="$s" 'BEGIN { printf "%.1f", (s > 0 ? h / s : 0) }')
  echo "$ratio" >>"$ratios"
  printf '%-62s %10s %10s %7sx%s\n' "$name" "$(ms "$h")" "$(ms "$s")" "$ratio" "$note"
  helm_total=$((helm_total + h)); sp_total=$((sp_total + s)); n=$((n + 1))
done <"$corpus/cases.tsv"

[ "$n" -gt 0 ] || { echo "bench-corpus: no cases" >&2; exit 2; }
sort -n "$ratios" | awk -v n="$n" -v ht="$helm_total" -v st="$sp_total" '
  { a[NR] = $1; lg += log($1 > 0 ? $1 : 1e-9) }
  END {
    printf "\ncases: %d\n", n
    printf "ratio helm/stackproof per case: min %.1fx, median %.1fx, geometric mean %.1fx\n", a[1], a[int((NR + 1) / 2)], exp(lg / NR)
    printf "sum of medians: helm %.0f ms, stackproof %.0f ms (%.1fx)\n", ht / 1000, st / 1000, (st > 0 ? ht / st : 0)
    below = 0; for (i = 1; i <= NR; i++) if (a[i] < 20) below++
    printf "cases below 20x: %d\n", below
  }'
