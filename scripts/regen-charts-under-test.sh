#!/usr/bin/env bash
# Regenerates charts-under-test/expected/ with the real helm binaries (the oracles).
# Usage: scripts/regen-charts-under-test.sh [ORACLES_DIR]   (default: $STACKPROOF_ORACLES)
here="$(cd "$(dirname "$0")" && pwd)"
exec "$here/regen-helm-cases.sh" "$here/../charts-under-test" "$@"
