in ./helmfile.yaml: 4 errors:
err 0: stat /work/wt-a/charts-under-test/helmfile/stack-flags/nope.yaml: no such file or directory
err 1: stat /work/wt-a/charts-under-test/helmfile/stack-flags/nope2.yaml: no such file or directory
err 2: stat /work/wt-a/charts-under-test/helmfile/stack-flags/nope.yaml: no such file or directory
err 3: stat /work/wt-a/charts-under-test/helmfile/stack-flags/nope2.yaml: no such file or directory
