#!/usr/bin/env bash
# Differential check of the template engine against the real helm binaries.
#
# Renders every fixture in testdata/template/ as a one-template chart with helm
# (v3.15.3 for language level 1.22, v4.3.1 for 1.27) and compares output and error
# text with the engine's. Prints "oracle: N agree, M disagree, K skipped" and each
# disagreement. The work is done by the ignored test tests/template_oracle.rs.
#
# Usage: scripts/oracle-template.sh [ORACLE_DIR] [FIXTURE_SUBSTRING]
#   ORACLE_DIR defaults to $STACKPROOF_ORACLES, then /work/oracles; it must hold
#   `helm` and `helm-v4.3.1`.
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${1:-${STACKPROOF_ORACLES:-/work/oracles}}"
if [[ ! -x "$dir/helm" ]]; then
  echo "no helm binary in $dir (set STACKPROOF_ORACLES)" >&2
  exit 2
fi
export STACKPROOF_ORACLES="$dir"
if [[ -n "${2:-}" ]]; then export FIXTURE="$2"; fi
exec cargo test --test template_oracle -- --ignored --nocapture
