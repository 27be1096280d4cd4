#!/bin/bash
# Regenerates NAME.golden from NAME.cases here with the real Helm binaries; v3.15.3 and
# v4.3.1 must agree (see scripts/gen-golden.sh).
# usage: STACKPROOF_ORACLES=/work/oracles testdata/fmt/gen.sh [NAME...]
here=$(cd "$(dirname "$0")" && pwd)
exec "$here/../../scripts/gen-golden.sh" --agree "$here" "$@"
