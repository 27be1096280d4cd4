#!/bin/bash
# Regenerates DIR/NAME.golden from DIR/NAME.cases (default: every *.cases in DIR) by
# rendering every case (one template expression per line) with the real Helm binaries,
# v3.15.3 and v4.3.1. Each output line is: CASE <TAB> JSON of the output; with
# --both, CASE <TAB> JSON of v3.15.3 output <TAB> JSON of v4.3.1 output (for cases
# where their Go releases differ); with --agree, the two must agree and a case where
# they differ is reported and left out.
#
# usage: STACKPROOF_ORACLES=DIR scripts/gen-golden.sh --agree|--both DIR [NAME...]
set -euo pipefail
mode=${1:?usage: gen-golden.sh --agree|--both DIR [NAME...]}
here=$(cd "${2:?usage: gen-golden.sh --agree|--both DIR [NAME...]}" && pwd)
shift 2
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
python3 - "$mode" "$work/cases" "$work/helm.out" "$work/helm-v4.3.1.out" > "$here/$name.golden" <<'PY'
import sys, base64, json
mode = sys.argv[1]
cases = [l.rstrip('\n') for l in open(sys.argv[2])]
def load(p):
    out = {}
    for l in open(p):
        if l.startswith('l') and ':' in l:
            k, v = l.split(':', 1)
            v = v.strip()
            out[int(k[1:])] = base64.b64decode(v).decode('utf-8', 'surrogateescape') if v else ''
    return out
v3, v4 = load(sys.argv[3]), load(sys.argv[4])
for i, c in enumerate(cases):
    a, b = v3.get(i + 1), v4.get(i + 1)
    if mode == '--both':
        print(c + '\t' + json.dumps(a, ensure_ascii=False) + '\t' + json.dumps(b, ensure_ascii=False))
        continue
    if a != b:
        print(f'v3/v4 differ, skipped: {c}', file=sys.stderr)
        continue
    print(c + '\t' + json.dumps(a, ensure_ascii=False))
PY
echo "$name: wrote $(wc -l < "$here/$name.golden") cases"
}
if [ $# -eq 0 ]; then set -- $(cd "$here" && ls *.cases | sed 's/\.cases$//'); fi
for n in "$@"; do gen_one "$n"; done
