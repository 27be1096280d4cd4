#!/usr/bin/env bash
# Times rendering every case of the shared corpus (corpus/cases.tsv) with the real
# `helm template` and with `stackproof template`, whole process per case (start-up,
# chart loading, rendering, printing), RUNS times each, and prints per case the
# median wall time of both and the ratio helm/stackproof, and the mean CPU time (user
# + system, which a busy machine disturbs less than wall time) and its ratio; then
# the smallest, median and geometric-mean ratios and the totals, and last both tools'
# times on a chart of one small template (their start-up floor). Cases where either
# tool fails (exit code != 0) are timed too and marked.
#
# Usage: scripts/bench-corpus.sh [RUNS]          (default 5)
#   HELM_VERSION=4 scripts/bench-corpus.sh     compare with helm v4.3.1 (--helm-version 4)
#   STACKPROOF_BIN=path                          use this binary, skip the release build
#   BENCH_FILTER=regex                           only cases whose "chart/case" matches
# Needs STACKPROOF_ORACLES (folder with `helm`, `helm-v4.3.1`) and the corpus
# (STACKPROOF_SHARED or ../shared). Builds stackproof with scripts/build-release.sh first.
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
  # The cases run from the corpus folder, so a relative path would name nothing there.
  sp="$(cd "$(dirname "$STACKPROOF_BIN")" && pwd)/$(basename "$STACKPROOF_BIN")"
  [ -x "$sp" ] || { echo "bench-corpus: $STACKPROOF_BIN is not an executable" >&2; exit 2; }
else
  sp="$("$root/scripts/build-release.sh")"
fi
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
export HELM_CONFIG_HOME="$tmp/c" HELM_CACHE_HOME="$tmp/k" HELM_DATA_HOME="$tmp/d"

# Microseconds since the epoch into $now, without forking (bash 5's EPOCHREALTIME), so
# the measuring shell spends nothing between runs that `times` would count.
now_us() { local t="${EPOCHREALTIME/[.,]/}"; now=$((10#$t)); }

# CPU time (user + system, microseconds) used by finished children of a shell, from
# the output of bash's `times` saved in file $1 (millisecond resolution). `times`
# itself must run in the measuring shell, not in a command substitution's fork.
children_cpu_us_from() {
  awk 'END {
    t = 0
    for (i = 1; i <= NF; i++) { split($i, p, "m"); sub("s", "", p[2]); t += p[1] * 60 + p[2] }
    printf "%d", t * 1000000
  }' "$1"
}

# Prints "MEDIAN_WALL_US MEAN_CPU_US EXIT_CODE" for RUNS runs of the command in "$@"
# (runs in a subshell, so `times` sees only these runs).
time_median() {
  local i start rc=0 t0="$tmp/times0.$BASHPID" t1="$tmp/times1.$BASHPID"
  local -a walls=()
  times >"$t0"
  for ((i = 0; i < runs; i++)); do
    now_us; start=$now
    set +e
    "$@" >/dev/null 2>&1
    rc=$?
    set -e
    now_us
    walls+=($((now - start)))
  done
  times >"$t1"
  local cpu0 cpu1
  cpu0=$(children_cpu_us_from "$t0")
  cpu1=$(children_cpu_us_from "$t1")
  printf '%s\n' "${walls[@]}" | sort -n |
    awk -v rc="$rc" -v cpu=$(((cpu1 - cpu0) / runs)) '{a[NR]=$1} END {print a[int((NR+1)/2)], cpu, rc}'
}

ms() { awk -v u="$1" 'BEGIN { printf "%.1f", u / 1000 }'; }

cd "$corpus"
printf '%-58s %9s %9s %7s | %9s %9s %7s\n' "case (helm v$version; wall: median of $runs)" "helm ms" "sp ms" "ratio" "cpu: helm" "sp" "ratio"
ratios="$tmp/ratios"; : >"$ratios"
cpu_ratios="$tmp/cpu_ratios"; : >"$cpu_ratios"
helm_total=0; sp_total=0; helm_cpu=0; sp_cpu=0; n=0
while IFS=$'\t' read -r chart id args; do
  [[ "$chart" == \#* || -z "$chart" ]] && continue
  name="$chart/$id"
  [[ -n "${BENCH_FILTER:-}" && ! "$name" =~ $BENCH_FILTER ]] && continue
  # shellcheck disable=SC2086
  read -r h hc h_rc < <(time_median "$helm" template rel "charts/$chart" --namespace ns $args)
  # shellcheck disable=SC2086
  read -r s sc s_rc < <(time_median "$sp" template rel "charts/$chart" --namespace ns --helm-version "$version" $args)
  note=""
  { [ "$h_rc" != 0 ] || [ "$s_rc" != 0 ]; } && note="  (exit: helm $h_rc, stackproof $s_rc)"
  ratio=$(awk -v h="$h" -v s="$s" 'BEGIN { printf "%.1f", (s > 0 ? h / s : 0) }')
  cratio=$(awk -v h="$hc" -v s="$sc" 'BEGIN { printf "%.1f", (s > 0 ? h / s : 0) }')
  echo "$ratio" >>"$ratios"
  echo "$cratio" >>"$cpu_ratios"
  printf '%-58s %9s %9s %6sx | %9s %9s %6sx%s\n' "$name" "$(ms "$h")" "$(ms "$s")" "$ratio" \
    "$(ms "$hc")" "$(ms "$sc")" "$cratio" "$note"
  helm_total=$((helm_total + h)); sp_total=$((sp_total + s))
  helm_cpu=$((helm_cpu + hc)); sp_cpu=$((sp_cpu + sc)); n=$((n + 1))
done <"$corpus/cases.tsv"

[ "$n" -gt 0 ] || { echo "bench-corpus: no cases" >&2; exit 2; }

# What each tool costs before any chart work: a chart of one ten-line template.
# Helm's start-up is most of its time on a mid-sized chart, so the ratio a chart
# can reach is bounded by the ratio of these two.
floor="$tmp/floor"
mkdir -p "$floor/templates"
printf 'apiVersion: v2\nname: floor\nversion: 0.1.0\n' >"$floor/Chart.yaml"
printf 'a: 1\n' >"$floor/values.yaml"
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n  a: {{ .Values.a | quote }}\n' >"$floor/templates/cm.yaml"
read -r fh fhc _ < <(time_median "$helm" template rel "$floor")
read -r fs fsc _ < <(time_median "$sp" template rel "$floor" --helm-version "$version")
summary() { # $1 = label, $2 = ratio file, $3 = helm total us, $4 = stackproof total us
  sort -n "$2" | awk -v label="$1" -v ht="$3" -v st="$4" '
    { a[NR] = $1; lg += log($1 > 0 ? $1 : 1e-9); if ($1 < 20) below++ }
    END {
      printf "%s ratio helm/stackproof per case: min %.1fx, median %.1fx, geometric mean %.1fx; below 20x: %d of %d\n", label, a[1], a[int((NR + 1) / 2)], exp(lg / NR), below, NR
      printf "%s totals: helm %.0f ms, stackproof %.0f ms (%.1fx)\n", label, ht / 1000, st / 1000, (st > 0 ? ht / st : 0)
    }'
}
echo
echo "cases: $n ($(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg))"
summary "wall" "$ratios" "$helm_total" "$sp_total"
summary "cpu " "$cpu_ratios" "$helm_cpu" "$sp_cpu"
printf 'floor (a one-template chart): wall helm %s ms, stackproof %s ms (%sx); cpu helm %s ms, stackproof %s ms\n' \
  "$(ms "$fh")" "$(ms "$fs")" "$(awk -v h="$fh" -v s="$fs" 'BEGIN { printf "%.1f", (s > 0 ? h / s : 0) }')" \
  "$(ms "$fhc")" "$(ms "$fsc")"
