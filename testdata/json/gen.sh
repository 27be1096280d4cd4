#!/bin/bash
# Regenerates NAME.golden from NAME.cases (default: every *.cases here) by rendering every case with the real
# Helm binaries. Each output line is: CASE <TAB> JSON of v3.15.3 output <TAB> JSON of
# v4.3.1 output (their Go releases differ in encoding/json error texts).
#
# usage: STACKPROOF_ORACLES=/work/oracles testdata/fmt/gen.sh [NAME...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
oracles=${STACKPROOF_ORACLES:?set STACKPROOF_ORACLES to the directory holding helm}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HELM_CONFIG_HOME=$work/c HELM_CACHE_HOME=$work/ca HELM_DATA_HOME=$work/d
mkdir -p "$work/chart/templates"
printf 'apiVersion: v2\nname: x\nversion: 0.1.0\n' > "$work/chart/Chart.yaml"
gen_one() {
name=$1
grep -v '^#' "$here/$name.cases" | grep -v '^$' > "$work/cases"
n=0
while IFS= read -r line; do
  n=$((n+1))
  # base64 keeps the exact bytes through Helm's YAML handling.
  printf 'l%d: {{ (%s) | b64enc }}\n' "$n" "$line"
done < "$work/cases" > "$work/chart/templates/t.yaml"
for h in helm helm-v4.3.1; do
  "$oracles/$h" template x "$work/chart" > "$work/$h.out"
done
python3 - "$work/cases" "$work/helm.out" "$work/helm-v4.3.1.out" > "$here/$name.golden" <<'PY'
import sys, base64, json
cases = [l.rstrip('\n') for l in open(sys.argv[1])]
def load(p):
    out = {}
    for l in open(p):
        if l.startswith('l') and ':' in l:
            k, v = l.split(':', 1)
            v = v.strip()
            out[int(k[1:])] = base64.b64decode(v).decode('utf-8', 'surrogateescape') if v else ''
    return out
v3, v4 = load(sys.argv[2]), load(sys.argv[3])
for i, c in enumerate(cases):
    print(c + '\t' + json.dumps(v3.get(i + 1), ensure_ascii=False) + '\t' + json.dumps(v4.get(i + 1), ensure_ascii=False))
PY
echo "$name: wrote $(wc -l < "$here/$name.golden") cases"
}
if [ $# -eq 0 ]; then set -- $(cd "$here" && ls *.cases | sed 's/\.cases$//'); fi
for n in "$@"; do gen_one "$n"; done
