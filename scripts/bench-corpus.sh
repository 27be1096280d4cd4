#!/usr/bin/env bash
# Times rendering the whole shared corpus (every case of corpus/cases.tsv, Helm 3
# mode) with the real helm and with stackproof, whole process per case, and prints
# the median over RUNS repetitions of each total plus the ratio helm/stackproof.
#
# Usage: scripts/bench-corpus.sh [RUNS]     (default 3)
# Needs STACKPROOF_ORACLES (folder with `helm`) and the corpus (STACKPROOF_SHARED or
# ../shared). Builds stackproof in release mode first.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
runs="${1:-3}"
shared="${STACKPROOF_SHARED:-$root/../shared}"
oracles="${STACKPROOF_ORACLES:?set STACKPROOF_ORACLES to the folder holding helm}"
corpus="$shared/corpus"
[ -f "$corpus/cases.tsv" ] || { echo "bench-corpus: no corpus at $corpus" >&2; exit 2; }
(cd "$root" && cargo build --release --quiet)
sp="$root/target/release/stackproof"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
export HELM_CONFIG_HOME="$tmp/c" HELM_CACHE_HOME="$tmp/k" HELM_DATA_HOME="$tmp/d"

run_all() { # $1 = command prefix
  local start end
  start=$(date +%s%N)
  while IFS=$'\t' read -r chart id args; do
    [[ "$chart" == \#* || -z "$chart" ]] && continue
    # shellcheck disable=SC2086
    $1 template rel "charts/$chart" --namespace ns $args >/dev/null 2>&1 || true
  done < "$corpus/cases.tsv"
  end=$(date +%s%N)
  echo $(( (end - start) / 1000000 ))
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

cd "$corpus"
helm_ms=$(for _ in $(seq "$runs"); do run_all "$oracles/helm"; done | median)
sp_ms=$(for _ in $(seq "$runs"); do run_all "$sp"; done | median)
cases=$(grep -vc '^#' "$corpus/cases.tsv")
echo "cases: $cases, runs: $runs (median of totals)"
echo "helm v3.15.3: ${helm_ms} ms total, $(( helm_ms / cases )) ms/case"
echo "stackproof:   ${sp_ms} ms total, $(( sp_ms / cases )) ms/case"
awk -v h="$helm_ms" -v s="$sp_ms" 'BEGIN { if (s > 0) printf "ratio helm/stackproof: %.1fx\n", h / s }'
