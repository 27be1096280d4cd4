in ./missing-values-file.yaml: values file matching "nope.yaml" does not exist in "."
