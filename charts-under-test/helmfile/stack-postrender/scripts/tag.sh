#!/bin/sh
# Post-renderer: names its arguments, then tags every kind line.
echo "# tag.sh:$(for a in "$@"; do printf ' [%s]' "$a"; done)"
sed 's/^kind: \(.*\)$/kind: \1 # tagged/'
