#!/usr/bin/env python3
"""Head-to-head timing of stackproof builds, their runs interleaved.

    scripts/ab.py corpus RUNS BIN_A BIN_B
    scripts/ab.py nvcf RUNS BIN_A BIN_B [BIN_C ...]
    scripts/ab.py corpus 3 "MIMALLOC_ALLOW_THP=0 ./a" ./b   # VAR=value words set the environment

Each build runs RUNS times per case, the builds taking turns with the order
alternating, so that all see the same machine. Times include starting the process,
as a user's do. Needs STACKPROOF_SHARED (else ../shared).

corpus: every case of corpus/cases.tsv; prints the median over cases of (B's median
wall time / A's), the geometric mean and the sums of per-case medians.
FILTER=text keeps cases whose "chart/case" contains it; VERBOSE=1 prints each case.

nvcf: the NVCF stack's `default` cell, `stackproof helmfile ... template` exactly as
scripts/bench-helmfile.sh runs it; prints each build's median wall time and mean CPU
time (user + system). Its time varies a lot (a chart generates RSA keys, and the
search for a prime takes a random time), so telling builds apart takes many runs.

The benchmarks against the real helm and helmfile are scripts/bench-corpus.sh and
scripts/bench-helmfile.sh; separate runs of those differ on a noisy machine by more
than a change does, which is what this is for.
"""
import math
import os
import resource
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.abspath(os.environ.get("STACKPROOF_SHARED", os.path.join(ROOT, "..", "shared")))


def build(arg):
    """A build as the command line names it: leading VAR=value words, then the binary."""
    words = arg.split()
    env = dict(os.environ)
    for w in words[:-1]:
        k, v = w.split("=", 1)
        env[k] = v
    return arg, os.path.abspath(words[-1]), env


def interleaved(runs, builds, cases):
    """Wall and CPU seconds of each build on each case: [case][build] -> (walls, cpus).
    A case is (folder, arguments, environment, whether a failing run is an error):
    some corpus cases are meant to fail, and are timed all the same."""
    out = []
    for cwd, args, extra_env, check in cases:
        times = [([], []) for _ in builds]
        for i in range(runs):
            order = range(len(builds)) if i % 2 == 0 else reversed(range(len(builds)))
            for k in order:
                _, binary, env = builds[k]
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                start = time.perf_counter()
                subprocess.run([binary] + args, cwd=cwd, env={**env, **extra_env}, check=check,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                times[k][0].append(time.perf_counter() - start)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                times[k][1].append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
        out.append(times)
    return out


def corpus(runs, builds):
    if len(builds) != 2:
        sys.exit("corpus compares two builds")
    root = os.path.join(SHARED, "corpus")
    want = os.environ.get("FILTER", "")
    names, cases = [], []
    with open(os.path.join(root, "cases.tsv")) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            chart, case, *rest = line.split("\t")
            if want and want not in f"{chart}/{case}":
                continue
            args = shlex.split(rest[0]) if rest else []
            names.append(f"{chart}/{case}")
            cases.append((root, ["template", "rel", f"charts/{chart}", "--namespace", "ns"] + args, {}, False))
    ratios, sums = [], [0.0, 0.0]
    for name, times in zip(names, interleaved(runs, builds, cases)):
        a, b = (statistics.median(walls) for walls, _ in times)
        sums[0] += a
        sums[1] += b
        ratios.append(b / a)
        if os.environ.get("VERBOSE"):
            print(f"{name:60s} {a * 1000:8.2f} {b * 1000:8.2f} {b / a:6.3f}")
    geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    print(f"cases {len(cases)}: median ratio B/A {statistics.median(ratios):.3f}, geometric mean {geo:.3f}; "
          f"sum of medians A {sums[0] * 1000:.0f} ms, B {sums[1] * 1000:.0f} ms; B faster in {sum(r < 1 for r in ratios)}")


def nvcf(runs, builds):
    root = os.path.join(SHARED, "nvcf")
    secrets = os.path.join(tempfile.mkdtemp(), "base-secrets.yaml")
    with open(secrets, "w") as f:
        f.write("{}\n")
    args = ["helmfile", "--file", "helmfile.d", "--environment", "default",
            "--overlay", f"secrets/base-secrets.yaml={secrets}",
            "--chart-source", f"{root}/deploy/helm", "--chart-source", f"{root}/deploy/stacks",
            "--chart-source", f"{root}/src/uis/nvcf-ui/helm", "--chart-source", f"{root}/upstream-charts",
            "--state-values-set", "ingress.gatewayApi.controllerNamespace=envoy",
            "--state-values-set", "ingress.gatewayApi.gateways.shared.name=shared",
            "--state-values-set", "ingress.gatewayApi.gateways.shared.namespace=envoy",
            "--state-values-set", "ingress.gatewayApi.gateways.grpc.name=grpc",
            "--state-values-set", "ingress.gatewayApi.gateways.grpc.namespace=envoy",
            "--state-values-set", "global.helm.sources.url=<CHART_REPO_URL>",
            "--state-values-set", "global.helm.sources.registry=<OCI_REGISTRY>",
            "--state-values-set", "global.helm.sources.repository=nvcf/charts",
            "template"]
    cwd = os.path.join(root, "deploy", "stacks", "self-managed")
    [times] = interleaved(runs, builds, [(cwd, args, {"HELMFILE_ENV": "base"}, True)])
    for (name, _, _), (walls, cpus) in zip(builds, times):
        print(f"{statistics.median(walls) * 1000:7.1f} ms wall (median), {statistics.mean(cpus) * 1000:7.1f} ms CPU (mean): {name}")


def main():
    modes = {"corpus": corpus, "nvcf": nvcf}
    if len(sys.argv) < 5 or sys.argv[1] not in modes:
        sys.exit(__doc__)
    modes[sys.argv[1]](int(sys.argv[2]), [build(a) for a in sys.argv[3:]])


if __name__ == "__main__":
    main()
