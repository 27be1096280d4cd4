#!/bin/bash
# Regenerates NAME.golden from NAME.cases here with the real Helm binaries; each line
# keeps both versions' output, since their encoding/json error texts differ (see
# scripts/gen-golden.sh).
# usage: STACKPROOF_ORACLES=/work/oracles testdata/json/gen.sh [NAME...]
here=$(cd "$(dirname "$0")" && pwd)
exec "$here/../../scripts/gen-golden.sh" --both "$here" "$@"
