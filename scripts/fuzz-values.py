#!/usr/bin/env python3
"""Differential values fuzz: renders charts with random `--set` changes to their own
values (booleans flipped, `enabled`/`create` switches preferred because they open
branches, numbers and strings replaced, maps and lists nulled) through the real helm
(v3.15.3 or v4.3.1, picked at random) and `stackproof template`, and compares stdout
byte for byte, or the first `Error:` line when both fail. A stdout difference is
rechecked against a second helm run and dropped when helm disagrees with itself in
the same lines (random values). Each remaining difference is written to
OUT/<chart>-<hash>.txt with the flags that produced it.

Known noise: helm prints `keys` of a map in Go's random order (bitnami's
`resourcesPreset` error lists them), and a schema whose `$ref` is remote fails in
helm offline while stackproof warns and renders.

Usage: scripts/fuzz-values.py --charts DIR[,DIR...] [--secs 600] [--seed 1] [--out DIR]
  Every folder directly under a DIR holding Chart.yaml and values.yaml is a
  candidate (for example $STACKPROOF_SHARED/corpus/charts).
Needs STACKPROOF_ORACLES (folder with `helm` and `helm-v4.3.1`) and a stackproof
binary (STACKPROOF_BIN, default target/release/stackproof). Nothing under DIR is
written."""
import argparse, difflib, hashlib, os, random, subprocess, sys, tempfile, time

import yaml

from oracles import HELM, SP, helm_env, helm_home

ENV = helm_env(helm_home("fuzz-values-helm-"))
# Characters that `--set` paths give a meaning of their own.
PATH_SPECIAL = set(".,=[]\\ {}")


def leaves(v, path, acc):
    """(path, value) for every scalar, list and empty map of a values tree."""
    if isinstance(v, dict):
        if not v and path:
            acc.append((path, v))
        for k, x in v.items():
            k = str(k)
            if k and not PATH_SPECIAL & set(k):
                leaves(x, path + [k], acc)
    elif isinstance(v, list):
        acc.append((path, v))
        for i, x in enumerate(v[:2]):
            if isinstance(x, dict) and path:
                leaves(x, path[:-1] + [f"{path[-1]}[{i}]"], acc)
    else:
        acc.append((path, v))


def mutation(rnd, v):
    if isinstance(v, bool):
        return "--set", "false" if v else "true"
    if isinstance(v, int):
        return "--set", str(rnd.choice([0, 1, 2, 3, -1, 10, 65536, v + 1]))
    if v is None or v == "":
        return rnd.choice([("--set", "true"), ("--set-string", "x"), ("--set", "1"),
                           ("--set", "enabled")])
    if isinstance(v, str):
        return rnd.choice([("--set-string", v + "x"), ("--set", "true"), ("--set", "null"),
                           ("--set-string", "a-b"), ("--set-string", "")])
    if isinstance(v, (list, dict)) and rnd.random() < 0.3:
        return "--set", "null"
    if isinstance(v, dict):
        return "--set-string", "x"
    if isinstance(v, list):
        return "--set", "{a,b}"
    return "--set", "1"


def run(cmd):
    try:
        r = subprocess.run(cmd, capture_output=True, timeout=60, env=ENV)
    except subprocess.TimeoutExpired:
        return -1, b"", "timeout"
    err = ""
    if r.returncode != 0:
        text = r.stderr.decode("utf-8", "replace")
        lines = [l for l in text.splitlines() if l.startswith("Error:")]
        err = lines[0] if lines else text[-300:]
    return r.returncode, r.stdout, err


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--charts", required=True)
    ap.add_argument("--secs", type=float, default=600)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=os.path.join(tempfile.gettempdir(), "fuzz-values"))
    a = ap.parse_args()
    for v, h in HELM.items():
        if not os.access(h, os.X_OK):
            sys.exit(f"fuzz-values: no helm v{v} at {h} (set STACKPROOF_ORACLES)")
    rnd = random.Random(a.seed)
    charts = []
    for root in a.charts.split(","):
        for d in sorted(os.listdir(root)):
            p = os.path.join(root, d)
            if os.path.exists(os.path.join(p, "Chart.yaml")) and os.path.exists(os.path.join(p, "values.yaml")):
                charts.append(p)
    if not charts:
        sys.exit("fuzz-values: no charts")
    os.makedirs(a.out, exist_ok=True)
    cache = {}
    runs = diffs = 0
    t0 = time.time()
    while time.time() - t0 < a.secs:
        chart = rnd.choice(charts)
        if chart not in cache:
            try:
                vals = yaml.safe_load(open(os.path.join(chart, "values.yaml"))) or {}
            except Exception:
                vals = {}
            acc = []
            leaves(vals, [], acc)
            cache[chart] = [x for x in acc if x[0]]
        acc = cache[chart]
        if not acc:
            continue
        switches = [x for x in acc if x[0][-1] in ("enabled", "create")]
        flags = []
        for _ in range(rnd.randint(1, 5)):
            path, v = rnd.choice(switches if switches and rnd.random() < 0.5 else acc)
            flag, val = mutation(rnd, v)
            flags += [flag, ".".join(path) + "=" + val]
        ver = rnd.choice(["3", "3", "4"])
        base = ["template", "rel", chart, "--namespace", "ns"]
        hrc, hout, herr = run([HELM[ver]] + base + flags)
        src, sout, serr = run([SP] + base + ["--helm-version", ver] + flags)
        runs += 1
        same = (hrc == 0) == (src == 0) and (hout == sout if hrc == 0 else herr == serr)
        if not same and hrc == 0 and src == 0:
            # Lines where two helm runs differ hold random values: compare the rest,
            # position by position.
            _, hout2, _ = run([HELM[ver]] + base + flags)
            h1, h2, s1 = hout.splitlines(), hout2.splitlines(), sout.splitlines()
            if hout2 != hout and len(h1) == len(h2) == len(s1):
                same = all(a == c for a, b, c in zip(h1, h2, s1) if a == b)
        if same:
            continue
        diffs += 1
        key = hashlib.sha1((chart + herr + serr + str(hrc) + str(src)).encode()).hexdigest()[:10]
        with open(os.path.join(a.out, f"{os.path.basename(chart)}-{key}.txt"), "w") as f:
            f.write(f"helm v{ver} template rel {chart} --namespace ns {' '.join(flags)}\n")
            f.write(f"helm rc={hrc} {herr}\nstackproof rc={src} {serr}\n")
            if hrc == 0 and src == 0:
                f.writelines(list(difflib.unified_diff(
                    hout.decode("utf-8", "replace").splitlines(True),
                    sout.decode("utf-8", "replace").splitlines(True), "helm", "stackproof"))[:80])
    print(f"fuzz-values seed {a.seed}: {runs} runs, {diffs} differing -> {a.out}")


if __name__ == "__main__":
    main()
