#!/usr/bin/env python3
"""Head-to-head timing of two stackproof builds over the shared corpus.

    scripts/ab-corpus.py RUNS BIN_A BIN_B
    scripts/ab-corpus.py 3 "MIMALLOC_ALLOW_THP=0 ./a" ./b   # VAR=value words set the environment

Every case of corpus/cases.tsv is run RUNS times with each build, the two builds
taking turns and the order alternating, so that both see the same machine; prints
the median over cases of (B's median wall time / A's), the geometric mean, and the
sums of per-case medians. Times include starting the process, as a user's do.
Needs STACKPROOF_SHARED (else ../shared). FILTER=text keeps cases whose
"chart/case" contains it; VERBOSE=1 prints each case.

The benchmark against the real helm is scripts/bench-corpus.sh; this is for
telling two builds apart on a noisy machine, where separate runs of that script
differ by more than a change does.
"""
import math
import os
import shlex
import statistics
import subprocess
import sys
import time


def spec(arg):
    words = arg.split()
    env = dict(os.environ)
    for w in words[:-1]:
        k, v = w.split("=", 1)
        env[k] = v
    return os.path.abspath(words[-1]), env


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    runs = int(sys.argv[1])
    builds = [spec(sys.argv[2]), spec(sys.argv[3])]
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    corpus = os.path.join(os.environ.get("STACKPROOF_SHARED", os.path.join(root, "..", "shared")), "corpus")
    want = os.environ.get("FILTER", "")
    cases = []
    with open(os.path.join(corpus, "cases.tsv")) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            chart, case, *rest = line.split("\t")
            if want and want not in f"{chart}/{case}":
                continue
            args = shlex.split(rest[0]) if rest else []
            cases.append((f"{chart}/{case}", ["template", "rel", f"charts/{chart}", "--namespace", "ns"] + args))

    def once(build, args):
        binary, env = build
        start = time.perf_counter()
        subprocess.run([binary] + args, cwd=corpus, env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return time.perf_counter() - start

    ratios, sums = [], [0.0, 0.0]
    for name, args in cases:
        times = [[], []]
        for i in range(runs):
            for k in ((0, 1) if i % 2 == 0 else (1, 0)):
                times[k].append(once(builds[k], args))
        a, b = statistics.median(times[0]), statistics.median(times[1])
        sums[0] += a
        sums[1] += b
        ratios.append(b / a)
        if os.environ.get("VERBOSE"):
            print(f"{name:60s} {a * 1000:8.2f} {b * 1000:8.2f} {b / a:6.3f}")
    geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    print(f"cases {len(cases)}: median ratio B/A {statistics.median(ratios):.3f}, geometric mean {geo:.3f}; "
          f"sum of medians A {sums[0] * 1000:.0f} ms, B {sums[1] * 1000:.0f} ms; B faster in {sum(r < 1 for r in ratios)}")


if __name__ == "__main__":
    main()
