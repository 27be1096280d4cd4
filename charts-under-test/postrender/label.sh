#!/bin/sh
# Post-renderer: says what it was given, passes the manifests through with every
# "kind:" line tagged, and adds a document of its own.
echo "# post-rendered with: $*"
sed 's/^kind: \(.*\)$/kind: \1 # seen/'
printf -- '---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: added\n\n\n'
