#!/usr/bin/env bash
# Regenerates expected/ with the real helm binaries for each case of cases.tsv.
# Usage: charts-under-test/charts/regen.sh [ORACLES_DIR]   (default: $STACKPROOF_ORACLES)
here="$(cd "$(dirname "$0")" && pwd)"
exec "$here/../../scripts/regen-helm-cases.sh" "$here" "$@"
