#!/usr/bin/env bash
# Times `stackproof check` with the NVCF rule pack, natively (scripts/build-release.sh, median of
# N runs), against the real helmfile 0.166 + helm 3.15 rendering the same 8 documented
# cells (the NVCF regeneration script, which serves the packaged charts locally and runs
# list, write-values and template per cell: the three layers check looks at).
#
#   scripts/bench-check.sh [runs]     # needs STACKPROOF_SHARED; STACKPROOF_ORACLES for the ratio
#
# Prints: the main job (target self-managed: 8 cells, every rule of its rule files),
# the whole pack (every target and cell), the real helmfile's per-cell time summed over
# the same 8 cells (all three commands, and template alone), and the ratios.
set -euo pipefail
runs=${1:-5}
here=$(cd "$(dirname "$0")/.." && pwd)
shared=${STACKPROOF_SHARED:-$here/../shared}
oracles=${STACKPROOF_ORACLES:-}
nvcf=$(cd "$shared/nvcf" 2>/dev/null && pwd) || { echo "skip: no NVCF data at $shared/nvcf (set STACKPROOF_SHARED)"; exit 0; }
bin=$("$here/scripts/build-release.sh")
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# Runs check; prints "wall cpu" seconds (cpu = user + sys, which other jobs on a shared
# machine disturb less than wall time). Exit code 1 (findings) is expected on this
# snapshot: NVCF PR #850 is not in it.
time_check() {
  local rc=0
  /usr/bin/time -f '%e %U %S' -o "$tmp/time.txt" \
    "$bin" check --config "$here/rules/nvcf/stackproof.yaml" --root "$nvcf" --format json "$@" >"$tmp/out.json" 2>"$tmp/err.txt" || rc=$?
  if [ "$rc" -gt 1 ]; then echo "check failed (rc=$rc):" >&2; head -20 "$tmp/err.txt" >&2; exit 1; fi
  tail -1 "$tmp/time.txt" | awk '{printf "%s %.2f\n", $1, $2 + $3}'
}
# Median of column $1 of the lines on stdin.
median() { awk -v c="$1" '{print $c}' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
summary() { python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["summary"]; print("%d cells, %d rules, %d findings" % (s["cells"], s["rules"], s["findings"]))' "$tmp/out.json"; }

for _ in $(seq "$runs"); do time_check --target self-managed; done >"$tmp/main.txt"
main=$(median 1 <"$tmp/main.txt"); main_cpu=$(median 2 <"$tmp/main.txt")
main_what=$(summary)
for _ in $(seq "$runs"); do time_check; done >"$tmp/whole.txt"
whole=$(median 1 <"$tmp/whole.txt"); whole_cpu=$(median 2 <"$tmp/whole.txt")
whole_what=$(summary)
printf 'native check, main job (--target self-managed: %s): %.2f s wall, %.2f s CPU (medians of %d)\n' "$main_what" "$main" "$main_cpu" "$runs"
printf 'native check, whole pack (%s): %.2f s wall, %.2f s CPU (medians of %d)\n' "$whole_what" "$whole" "$whole_cpu" "$runs"

if [ -z "$oracles" ]; then echo "skip: real helmfile timing needs STACKPROOF_ORACLES"; exit 0; fi
s=$(date +%s.%N)
log=$(cd "$nvcf" && NVCF_TOOLS_BIN="$oracles" PATH="$oracles:$PATH" ./regen.sh --check --workdir-parent "$tmp" 2>&1 || true)
e=$(date +%s.%N)
# Per cell: "(<total>s: write-values <w>s, template <t>s)".
cells=$(printf '%s\n' "$log" | grep -c 'write-values [0-9.]*s, template' || true)
[ "$cells" -ge 8 ] || { echo "could not time the real helmfile:"; printf '%s\n' "$log" | tail -5; exit 1; }
real_all=$(printf '%s\n' "$log" | sed -n 's/.*(\([0-9.]*\)s: write-values [0-9.]*s, template [0-9.]*s).*/\1/p' | paste -sd+ | bc -l)
real_tpl=$(printf '%s\n' "$log" | sed -n 's/.*, template \([0-9.]*\)s).*/\1/p' | paste -sd+ | bc -l)
printf 'real helmfile 0.166 + helm 3.15, same %d cells: %.1f s (list + write-values + template), %.1f s (template alone); whole regen run incl. chart packaging %.1f s\n' \
  "$cells" "$real_all" "$real_tpl" "$(echo "$e - $s" | bc -l)"
printf 'ratio (real, 3 commands / native main job): %.0fx\n' "$(echo "$real_all / $main" | bc -l)"
printf 'ratio (real, template alone / native main job): %.0fx\n' "$(echo "$real_tpl / $main" | bc -l)"
printf 'check: %s\n' "$(printf '%s\n' "$log" | grep -o 'check: [A-Z]*' | head -1)"
