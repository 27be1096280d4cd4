#!/usr/bin/env bash
# Times the whole NVCF stack `template` (the `default` cell of
# $STACKPROOF_SHARED/nvcf/README.md) natively with `stackproof helmfile template`
# (scripts/build-release.sh, whole process) against the real helmfile 0.166 + helm 3.15 (whole
# `helmfile template` process), as medians of N runs (natively N before and N after
# the real runs, as the machine may be shared), and prints both times
# and the ratio. STACKPROOF_BIN=path uses that binary and skips the release build.
#
# The real helmfile needs the stack's `nvcf/<chart>` pins served as a chart
# repository and an OCI registry; the NVCF regeneration script (`regen.sh`) sets
# that up offline on loopback. It is run once with a cells file holding N copies of
# the `default` cell, and each copy's `template` time (which regen.py measures
# around the `helmfile template` process alone, excluding setup, packaging, `list`
# and `write-values`) is one sample. regen.py keeps a byte copy of each `helm
# template` stdout through a tiny bash wrapper, so those samples include one extra
# `bash` start per release: a few milliseconds in several seconds.
#
#   scripts/bench-helmfile.sh [runs]   # runs >= 3 (default 5)
#   needs STACKPROOF_SHARED (else ../shared) and STACKPROOF_ORACLES (helm, helmfile)
set -euo pipefail
runs=${1:-5}
[ "$runs" -ge 3 ] || { echo "runs must be >= 3"; exit 2; }
here=$(cd "$(dirname "$0")/.." && pwd)
shared=${STACKPROOF_SHARED:-$here/../shared}
oracles=${STACKPROOF_ORACLES:-}
nvcf=$shared/nvcf
[ -d "$nvcf" ] || { echo "skip: no NVCF data at $nvcf (set STACKPROOF_SHARED)"; exit 0; }

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

if [ -n "${STACKPROOF_BIN:-}" ]; then
  # The runs start in the stack's folder, where a relative path would name nothing.
  bin="$(cd "$(dirname "$STACKPROOF_BIN")" && pwd)/$(basename "$STACKPROOF_BIN")"
  [ -x "$bin" ] || { echo "bench-helmfile: $STACKPROOF_BIN is not an executable"; exit 2; }
else
  bin=$("$here/scripts/build-release.sh")
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
printf '{}\n' > "$tmp/base-secrets.yaml"
stack=$nvcf/deploy/stacks/self-managed
args=(helmfile --file helmfile.d --environment default
  --overlay "secrets/base-secrets.yaml=$tmp/base-secrets.yaml"
  --chart-source "$nvcf/deploy/helm" --chart-source "$nvcf/deploy/stacks"
  --chart-source "$nvcf/src/uis/nvcf-ui/helm" --chart-source "$nvcf/upstream-charts"
  --state-values-set ingress.gatewayApi.controllerNamespace=envoy
  --state-values-set ingress.gatewayApi.gateways.shared.name=shared
  --state-values-set ingress.gatewayApi.gateways.shared.namespace=envoy
  --state-values-set ingress.gatewayApi.gateways.grpc.name=grpc
  --state-values-set ingress.gatewayApi.gateways.grpc.namespace=envoy
  --state-values-set 'global.helm.sources.url=<CHART_REPO_URL>'
  --state-values-set 'global.helm.sources.registry=<OCI_REGISTRY>'
  --state-values-set global.helm.sources.repository=nvcf/charts
  template)
native_run() {
  (cd "$stack" && HELMFILE_ENV=base "$bin" "${args[@]}" >"$tmp/out.yaml" 2>"$tmp/err.txt") \
    || { echo "native run failed:"; head -5 "$tmp/err.txt"; exit 1; }
}
native_run # warm the page cache once, like the real helmfile's setup run does
times=()
# Seconds since the epoch from bash's EPOCHREALTIME: no `date` process is started
# between the two readings, so a sample holds the native run and its subshell only.
native_samples() {
  local s e
  for _ in $(seq "$runs"); do
    s=${EPOCHREALTIME/,/.}
    native_run
    e=${EPOCHREALTIME/,/.}
    times+=("$(echo "$e - $s" | bc -l)")
  done
}
native_samples
docs=$(grep -c '^kind:' "$tmp/out.yaml" || true)
if [ -z "$oracles" ]; then
  native=$(printf '%s\n' "${times[@]}" | median)
  printf 'native stackproof template (default cell): %.3f s (median of %d; %s objects)\n' "$native" "$runs" "$docs"
  echo "skip: real helmfile timing needs STACKPROOF_ORACLES"; exit 0
fi

# N copies of the default cell, in a cells file of our own (the shared one is read-only).
python3 - "$nvcf/tools/cells.yaml" "$tmp/cells.yaml" "$runs" <<'PY'
import sys, yaml
src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
doc = yaml.safe_load(open(src))
cell = next(c for c in doc["cells"] if c["name"] == "default")
doc["cells"] = [dict(cell, name="bench-%d" % i) for i in range(1, n + 1)]
yaml.safe_dump(doc, open(dst, "w"), sort_keys=False)
PY
log=$(cd "$nvcf" && NVCF_TOOLS_BIN="$oracles" PATH="$oracles:$PATH" TMPDIR="$tmp" \
  ./regen.sh --cells-file "$tmp/cells.yaml" --out "$tmp/regen" 2>&1) \
  || { echo "the real helmfile run failed:"; printf '%s\n' "$log" | tail -5; exit 1; }
samples=$(printf '%s\n' "$log" | sed -n 's/.*bench-[0-9]* *OK .*template \([0-9.]*\)s).*/\1/p')
[ "$(printf '%s\n' "$samples" | grep -c .)" -eq "$runs" ] \
  || { echo "could not time the real helmfile:"; printf '%s\n' "$log" | tail -5; exit 1; }
real=$(printf '%s\n' "$samples" | median)
# The machine is shared: sample natively again after the real runs, so both sides
# see the same mix of load, and take the median of all native samples.
native_samples
native=$(printf '%s\n' "${times[@]}" | median)
printf 'native stackproof template (default cell): %.3f s (median of %d before and after the real runs; %s objects; runs: %s)\n' \
  "$native" "${#times[@]}" "$docs" "${times[*]}"
printf 'real helmfile 0.166 + helm 3.15 template (default cell): %.3f s (median of %d; runs: %s)\n' \
  "$real" "$runs" "$(echo $samples)"
printf 'ratio: %.1fx faster\n' "$(echo "$real / $native" | bc -l)"
