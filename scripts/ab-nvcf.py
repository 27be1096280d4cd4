#!/usr/bin/env python3
"""Head-to-head timing of stackproof builds on the NVCF stack's `default` cell.

    scripts/ab-nvcf.py RUNS BIN_A BIN_B [BIN_C ...]   # VAR=value words set the environment

Runs `stackproof helmfile ... template` on the stack exactly as
scripts/bench-helmfile.sh does, RUNS times per build, the builds taking turns with
the order alternating, and prints each build's median wall time and mean CPU time
(user + system). The run's own time varies a lot (a chart generates RSA keys, and
the search for a prime takes a random time), so comparing two builds needs many
interleaved runs; the benchmark against the real helmfile is bench-helmfile.sh.
Needs STACKPROOF_SHARED (else ../shared).
"""
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time


def spec(arg):
    words = arg.split()
    env = dict(os.environ)
    for w in words[:-1]:
        k, v = w.split("=", 1)
        env[k] = v
    env["HELMFILE_ENV"] = "base"
    return arg, os.path.abspath(words[-1]), env


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    runs = int(sys.argv[1])
    builds = [spec(a) for a in sys.argv[2:]]
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    nvcf = os.path.abspath(os.path.join(os.environ.get("STACKPROOF_SHARED", os.path.join(root, "..", "shared")), "nvcf"))
    tmp = tempfile.mkdtemp()
    secrets = os.path.join(tmp, "base-secrets.yaml")
    with open(secrets, "w") as f:
        f.write("{}\n")
    args = ["helmfile", "--file", "helmfile.d", "--environment", "default",
            "--overlay", f"secrets/base-secrets.yaml={secrets}",
            "--chart-source", f"{nvcf}/deploy/helm", "--chart-source", f"{nvcf}/deploy/stacks",
            "--chart-source", f"{nvcf}/src/uis/nvcf-ui/helm", "--chart-source", f"{nvcf}/upstream-charts",
            "--state-values-set", "ingress.gatewayApi.controllerNamespace=envoy",
            "--state-values-set", "ingress.gatewayApi.gateways.shared.name=shared",
            "--state-values-set", "ingress.gatewayApi.gateways.shared.namespace=envoy",
            "--state-values-set", "ingress.gatewayApi.gateways.grpc.name=grpc",
            "--state-values-set", "ingress.gatewayApi.gateways.grpc.namespace=envoy",
            "--state-values-set", "global.helm.sources.url=<CHART_REPO_URL>",
            "--state-values-set", "global.helm.sources.registry=<OCI_REGISTRY>",
            "--state-values-set", "global.helm.sources.repository=nvcf/charts",
            "template"]
    cwd = os.path.join(nvcf, "deploy", "stacks", "self-managed")
    walls = [[] for _ in builds]
    cpus = [[] for _ in builds]
    for i in range(runs):
        order = range(len(builds)) if i % 2 == 0 else reversed(range(len(builds)))
        for k in order:
            _, binary, env = builds[k]
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            subprocess.run([binary] + args, cwd=cwd, env=env, check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            walls[k].append(time.perf_counter() - start)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus[k].append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    for (name, _, _), w, c in zip(builds, walls, cpus):
        print(f"{statistics.median(w) * 1000:7.1f} ms wall (median), {statistics.mean(c) * 1000:7.1f} ms CPU (mean): {name}")


if __name__ == "__main__":
    main()
