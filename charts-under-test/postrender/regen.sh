#!/usr/bin/env bash
# Regenerates expected/ with the real helm v3.15.3 (Helm 4's --post-renderer names a
# plugin, which stackproof refuses): stdout (<id>.out), stderr (<id>.err) and exit
# code (<id>.rc), with this folder's path as @DIR@, of `helm template rel chart --namespace ns ARGS` run in this folder.
# Usage: ./regen.sh [ORACLES_DIR]   (default: $STACKPROOF_ORACLES)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
helm="${1:-${STACKPROOF_ORACLES:?set STACKPROOF_ORACLES or pass the oracle dir}}/helm-v3.15.3"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
export HELM_CONFIG_HOME="$tmp/config" HELM_CACHE_HOME="$tmp/cache" HELM_DATA_HOME="$tmp/data"
cd "$here"
rm -rf expected && mkdir expected
while IFS=$'\t' read -r id args; do
  [[ "$id" == \#* || -z "$id" ]] && continue
  set +e
  # shellcheck disable=SC2086
  "$helm" template rel chart --namespace ns $args >"expected/$id.out" 2>"expected/$id.err"
  echo $? >"expected/$id.rc"
  # Helm names the program by its absolute path: kept as @DIR@/, which the test
  # puts back.
  sed -i "s|$here/|@DIR@/|g" "expected/$id.err"
  set -e
done < cases.tsv
