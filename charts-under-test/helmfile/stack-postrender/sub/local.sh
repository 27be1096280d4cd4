#!/bin/sh
# Post-renderer of the nested state: adds a document after the manifests.
cat
printf -- '---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-local-sh\n'
