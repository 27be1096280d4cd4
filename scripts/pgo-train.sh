#!/usr/bin/env bash
# Runs an instrumented stackproof (built with -Cprofile-generate) over the
# repository's own fixtures, so that scripts/build-release.sh can optimize the
# binary for what it does most: load charts, parse and run templates, decode and
# print YAML, render Helmfile stacks and check rules.
#
# Only data of this repository is used (charts-under-test/), never ../shared, so a
# build from a plain clone is the same build. Nothing is written into the fixtures
# (cases that write files are skipped) and output is discarded; exit codes are
# ignored (the fixtures include charts and stacks that must fail, and their error
# paths are worth profiling too).
#
#   scripts/pgo-train.sh BIN
set -uo pipefail
bin="${1:?usage: pgo-train.sh BIN}"
root="$(cd "$(dirname "$0")/.." && pwd)"
cut="$root/charts-under-test"

# Several rounds: one-shot runs are short, and the profile should weigh the
# steady work (parsing, executing, printing) over the process's start.
for _round in 1 2 3; do
  # Charts, as `helm template` cases (charts-under-test/cases.tsv).
  grep -v '^#' "$cut/cases.tsv" | while IFS=$'\t' read -r _id chart args; do
    [ -n "$chart" ] || continue
    # shellcheck disable=SC2086
    (cd "$cut" && "$bin" template rel "$chart" --namespace ns $args) >/dev/null 2>&1
    (cd "$cut" && "$bin" template rel "$chart" --namespace ns --helm-version 4 $args) >/dev/null 2>&1
  done
  # Helmfile stacks (charts-under-test/helmfile/cases.txt), except the cases that
  # write files: each runs in the fixture's own folder, which must stay untouched.
  grep -v '^#' "$cut/helmfile/cases.txt" | while IFS='|' read -r name dir envs args; do
    [ -n "$name" ] || continue
    case " $args " in *write-values*|*--output-dir*|*@OUT@*) continue ;; esac
    # shellcheck disable=SC2086
    (cd "$cut/helmfile/$dir" && env ${envs//,/ } "$bin" helmfile $args) >/dev/null 2>&1
  done
  # The rule checker on the bundled examples (passing and failing configurations).
  for cfg in "$cut"/example/*stackproof.yaml "$cut"/nvcf-mirror/*stackproof.yaml; do
    (cd "$root" && "$bin" check --config "$cfg" --format json) >/dev/null 2>&1
  done
done
