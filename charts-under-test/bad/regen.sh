#!/usr/bin/env bash
# Regenerates expected/ with the real helm binaries: what helm v3.15.3 and v4.3.1 print
# on stderr (and their exit codes) for each case of cases.tsv (whose third column is the
# location the tests expect stackproof to name).
# Usage: charts-under-test/bad/regen.sh [ORACLES_DIR]   (default: $STACKPROOF_ORACLES)
here="$(cd "$(dirname "$0")" && pwd)"
WHERE_COLUMN=1 KEEP_STDOUT=0 exec "$here/../../scripts/regen-helm-cases.sh" "$here" "$@"
