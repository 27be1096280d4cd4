#!/usr/bin/env bash
# Regenerates expected/<case>/ for every line of cases.txt with the real helmfile
# (0.166.0) and helm (3.15.3) found on PATH. Writes stdout, rc, the error message
# (stderr without progress and warning lines) and, for write-values, the values files.
# With case names as arguments, regenerates only those cases (the others stay as
# committed).
set -u
here=$(cd "$(dirname "$0")" && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export HELM_CONFIG_HOME=$scratch/config HELM_CACHE_HOME=$scratch/cache HELM_DATA_HOME=$scratch/data HELMFILE_CACHE_HOME=$scratch/hfcache
helmfile --version | grep -q 0.166.0 || { echo "need helmfile 0.166.0 on PATH" >&2; exit 2; }
progress='^(hook\[[a-z]*\] logs|Building dependency|Templating release=|Writing values file|Adding repo|Pulling |Saving |Deleting outdated|Hang tight|Update Complete|\.\.\.Successfully)'
warning='^(WARNING: |skipping missing |no matches for path: |warn: )'
[ $# -gt 0 ] || rm -rf "$here/expected"
only=" $* "
grep -v '^#' "$here/cases.txt" | while IFS='|' read -r name dir envs args; do
  [ -n "$name" ] || continue
  [ $# -eq 0 ] || case "$only" in *" $name "*) ;; *) continue ;; esac
  out="$here/expected/$name"; rm -rf "$out"; mkdir -p "$out"
  extra=()
  case " $args " in *" write-values "*) extra=(--output-file-template "$scratch/wv-$name/{{ .Release.Name }}.yaml") ;; esac
  # shellcheck disable=SC2086
  (cd "$here/$dir" && env ${envs//,/ } helmfile $args "${extra[@]}" >"$out/stdout" 2>"$scratch/stderr"; echo $? >"$out/rc")
  grep -Ev "$progress" "$scratch/stderr" | grep -Ev "$warning" >"$out/error" || true
  [ -s "$out/error" ] || rm -f "$out/error"
  if [ -d "$scratch/wv-$name" ]; then mkdir -p "$out/values" && cp "$scratch/wv-$name"/*.yaml "$out/values/"; fi
  echo "$name: rc=$(cat "$out/rc")"
done
# helmfile writes <state>-<hash>/<release>.yaml next to a state file (write-values'
# default --output-file-template, or a values file for a failed release); those are
# not fixtures.
find "$here"/stack-* -mindepth 1 -type d -regextype posix-extended \
  -regex '.*-[0-9a-f]{8}([0-9a-f]{32})?' -prune -exec rm -rf {} +
