#!/usr/bin/env bash
# Times the whole NVCF stack `template` (the `default` cell): natively with
# `stackproof helmfile template` (release build, median of N runs) versus the real
# helmfile 0.166 + helm 3.15 as timed by the NVCF regeneration script (which serves
# the packaged charts locally; only its `template` command time is compared).
#
#   scripts/bench-helmfile.sh [runs]     # needs STACKPROOF_SHARED and STACKPROOF_ORACLES
set -euo pipefail
runs=${1:-5}
here=$(cd "$(dirname "$0")/.." && pwd)
shared=${STACKPROOF_SHARED:-$here/../shared}
oracles=${STACKPROOF_ORACLES:-}
nvcf=$shared/nvcf
[ -d "$nvcf" ] || { echo "skip: no NVCF data at $nvcf (set STACKPROOF_SHARED)"; exit 0; }
cargo build --release --quiet --manifest-path "$here/Cargo.toml"
bin=$here/target/release/stackproof
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
times=()
for _ in $(seq "$runs"); do
  s=$(date +%s.%N)
  (cd "$stack" && HELMFILE_ENV=base "$bin" "${args[@]}" >"$tmp/out.yaml" 2>"$tmp/err.txt") || { echo "native run failed:"; head -5 "$tmp/err.txt"; exit 1; }
  e=$(date +%s.%N)
  times+=("$(echo "$e - $s" | bc -l)")
done
native=$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
printf 'native stackproof template (default cell): %.3f s (median of %d)\n' "$native" "$runs"
if [ -z "$oracles" ]; then echo "skip: real helmfile timing needs STACKPROOF_ORACLES"; exit 0; fi
log=$(cd "$nvcf" && NVCF_TOOLS_BIN="$oracles" PATH="$oracles:$PATH" ./regen.sh --cells default --out "$tmp/regen" 2>&1 || true)
real=$(printf '%s\n' "$log" | sed -n 's/.*template \([0-9.]*\)s).*/\1/p' | head -1)
[ -n "$real" ] || { echo "could not time the real helmfile:"; printf '%s\n' "$log" | tail -5; exit 1; }
printf 'real helmfile 0.166 template (default cell): %.3f s\n' "$real"
printf 'ratio: %.1fx\n' "$(echo "$real / $native" | bc -l)"
