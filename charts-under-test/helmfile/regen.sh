#!/usr/bin/env bash
# Regenerates expected/<case>/ for every line of cases.txt (or only the cases named
# as arguments) with the real helmfile (0.166.0) and helm (3.15.3) found on PATH.
# Writes stdout, rc, the error message (stderr without progress and warning lines)
# and, for write-values, the values files.
#
# The real helmfile writes into the stacks it runs (Chart.lock and charts/*.tgz of
# local charts whose dependencies it builds, write-values' default <state>-<hash>/
# folders), so each case runs in a fresh copy of this folder under a temporary
# directory; nothing here is written but expected/.
set -u
here=$(cd "$(dirname "$0")" && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export HELM_CONFIG_HOME=$scratch/config HELM_CACHE_HOME=$scratch/cache HELM_DATA_HOME=$scratch/data HELMFILE_CACHE_HOME=$scratch/hfcache
helmfile --version | grep -q 0.166.0 || { echo "need helmfile 0.166.0 on PATH" >&2; exit 2; }
progress='^(hook\[[a-z]*\] logs|Building dependency|Templating release=|Writing values file|Adding repo|Pulling |Saving |Deleting outdated|Hang tight|Update Complete|\.\.\.Successfully|wrote )'
warning='^(WARNING: |skipping missing |no matches for path: |warn: )'
only=" $* "
[ $# -gt 0 ] || rm -rf "$here/expected"
grep -v '^#' "$here/cases.txt" | while IFS='|' read -r name dir envs args; do
  [ -n "$name" ] || continue
  case "$only" in "  ") ;; *" $name "*) ;; *) continue ;; esac
  out="$here/expected/$name"; rm -rf "$out"; mkdir -p "$out"
  tree="$scratch/tree"; rm -rf "$tree"; mkdir -p "$tree"
  (cd "$here" && tar --exclude=./expected -cf - .) | (cd "$tree" && tar -xf -)
  extra=()
  case " $args " in *" write-values "*) extra=(--output-file-template "$scratch/wv-$name/{{ .Release.Name }}.yaml") ;; esac
  # `@OUT@` in the arguments is an output directory outside the tree.
  od="$scratch/od-$name"
  run_args="${args//@OUT@/$od}"
  # `--allow-exec` is stackproof's (helmfile always runs the programs a stack names).
  run_args="${run_args//--allow-exec/}"
  find "$tree" | sort >"$scratch/before"
  # shellcheck disable=SC2086
  (cd "$tree/$dir" && env ${envs//,/ } helmfile $run_args "${extra[@]}" >"$out/stdout" 2>"$scratch/stderr"; echo $? >"$out/rc")
  # (Blank lines before the message are what is left of helm's logged output.)
  grep -Ev "$progress" "$scratch/stderr" | grep -Ev "$warning" | sed '/./,$!d' >"$out/error" || true
  grep -q "[^[:space:]]" "$out/error" || rm -f "$out/error"
  if [ -d "$scratch/wv-$name" ]; then mkdir -p "$out/values" && cp "$scratch/wv-$name"/*.yaml "$out/values/"; fi
  # `--output-dir`: what helm wrote, under OUT/ (the @OUT@ directory) or TREE/ (in
  # the stack's folder), with the 8-digit state path hash in folder names (it
  # depends on where the tree is) replaced by HASH; and helm's `wrote` lines.
  case " $args " in *" --output-dir"*)
    mkdir -p "$out/files"
    : >"$out/dirs"
    if [ -d "$od" ]; then
      (cd "$od" && find . -mindepth 1 -type d | sed 's|^\./|OUT/|') >>"$out/dirs"
      (cd "$od" && find . -type f) | while read -r f; do
        dest="$out/files/OUT/${f#./}"; mkdir -p "$(dirname "$dest")"; cp "$od/$f" "$dest"
      done
    fi
    find "$tree" | sort | comm -13 "$scratch/before" - | grep -v -e '/charts/[^/]*\.tgz$' -e '/Chart\.lock$' -e '/charts$' | while read -r p; do
      rel="TREE/${p#"$tree"/}"
      if [ -d "$p" ]; then echo "$rel" >>"$out/dirs"; else dest="$out/files/$rel"; mkdir -p "$(dirname "$dest")"; cp "$p" "$dest"; fi
    done
    grep '^wrote ' "$scratch/stderr" | sed -e "s|$od|OUT|" >"$out/log" || true
    # Folder names carry `-<sha1 of the state path>-`: HASH in paths and listings.
    (cd "$out/files" && find . -depth -type d -name '*-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-*' | while read -r d; do
      mv "$d" "$(dirname "$d")/$(basename "$d" | sed -E 's/-[0-9a-f]{8}-/-HASH-/')"; done)
    sed -E -i 's/-[0-9a-f]{8}-/-HASH-/g' "$out/dirs" "$out/log"
    sort -o "$out/dirs" "$out/dirs"
    ;;
  esac
  echo "$name: rc=$(cat "$out/rc")"
done
