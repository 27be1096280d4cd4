#!/usr/bin/env python3
"""Differential sweep over charts stackproof has never seen: every chart folder under
SRC (for example public chart repositories extracted there) is rendered by the real
helm (v3.15.3 and v4.3.1) and by `stackproof template`, with its default values and
each of its first four `ci/*.yaml` files, and the outputs are compared byte for byte
(errors: the first `Error:` line). Lines that differ between two helm runs (random
values, timestamps) are masked. Dependencies missing from a chart's `charts/` are
vendored by name from other charts under SRC into a working copy under WORK; SRC is
never written. Prints counts per outcome and each differing case; writes a diff per
case under OUT.

Usage: scripts/sweep-charts.py --src SRC [--work WORK] [--out OUT]
           [--filter REGEX] [--versions 3,4] [--jobs N]
Needs STACKPROOF_ORACLES (folder with `helm` and `helm-v4.3.1`) and a stackproof
binary (STACKPROOF_BIN, default target/release/stackproof)."""
import argparse, difflib, json, os, re, shutil, subprocess, tempfile
from concurrent.futures import ThreadPoolExecutor

from oracles import HELM, SP, helm_env, helm_home

SRC = WORK = OUT = ""
ENV = helm_env(helm_home("sweep-helm-"))


def yaml_name(path):
    try:
        for line in open(path, encoding="utf-8", errors="replace"):
            m = re.match(r"^name:\s*['\"]?([^'\"\s#]+)", line)
            if m:
                return m.group(1)
    except OSError:
        pass
    return None


def find_charts():
    charts = []
    for root, dirs, files in os.walk(SRC):
        if "Chart.yaml" in files:
            # skip charts vendored inside another chart's charts/ dir
            parts = os.path.relpath(root, SRC).split(os.sep)
            if "charts" in parts[2:] and any(parts[i] == "charts" and i >= 2 for i in range(len(parts))):
                # allow repos whose top folder is charts/ (e.g. repo/charts/x)
                inner = [i for i, p in enumerate(parts) if p == "charts"]
                if any(os.path.exists(os.path.join(SRC, *parts[:i], "Chart.yaml")) for i in inner):
                    continue
            charts.append(root)
    return sorted(charts)


INDEX = None


def chart_index():
    global INDEX
    if INDEX is None:
        INDEX = {}
        for c in find_charts():
            n = yaml_name(os.path.join(c, "Chart.yaml"))
            if n and n not in INDEX:
                INDEX[n] = c
    return INDEX


def deps_of(chart_dir):
    """(name, repository) of each dependency in Chart.yaml or requirements.yaml (crude)."""
    out = []
    for fn in ("Chart.yaml", "requirements.yaml"):
        p = os.path.join(chart_dir, fn)
        if not os.path.exists(p):
            continue
        in_deps = False
        cur = {}
        for line in open(p, encoding="utf-8", errors="replace"):
            if re.match(r"^dependencies:", line):
                in_deps = True
                continue
            # (A list may start at column 0: `- name: x` still belongs to it.)
            if in_deps and re.match(r"^[^\s-]", line):
                in_deps = False
            if not in_deps:
                continue
            m = re.match(r"^\s*-\s*name:\s*['\"]?([^'\"\s#]+)", line)
            if m:
                if cur:
                    out.append(cur)
                cur = {"name": m.group(1)}
                continue
            m = re.match(r"^\s+(repository|name):\s*['\"]?([^'\"\s#]*)", line)
            if m and cur is not None:
                cur[m.group(1)] = m.group(2)
        if cur:
            out.append(cur)
    return out


def prepare(chart_dir, depth=0):
    """A working copy with dependencies vendored by name; None if one is missing."""
    rel = os.path.relpath(chart_dir, SRC)
    dst = os.path.join(WORK, rel)
    if os.path.exists(dst):
        return dst if not os.path.exists(dst + ".missing") else None
    shutil.copytree(chart_dir, dst, symlinks=True)
    for d in deps_of(chart_dir):
        name = d.get("name")
        charts_dir = os.path.join(dst, "charts")
        if os.path.isdir(charts_dir) and any(
            e == name or e.startswith(name + "-") for e in os.listdir(charts_dir)
        ):
            continue
        repo = d.get("repository", "")
        src = None
        if repo.startswith("file://"):
            src = os.path.normpath(os.path.join(chart_dir, repo[7:]))
            if not os.path.exists(os.path.join(src, "Chart.yaml")):
                src = None
        if src is None:
            src = chart_index().get(name)
        if src is None or depth > 3:
            open(dst + ".missing", "w").write(name)
            return None
        sub = prepare(src, depth + 1) if deps_of(src) else src
        if sub is None:
            open(dst + ".missing", "w").write(name)
            return None
        os.makedirs(charts_dir, exist_ok=True)
        shutil.copytree(sub, os.path.join(charts_dir, name), symlinks=True, dirs_exist_ok=True)
    return dst


def run(cmd, cwd):
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, env=ENV, timeout=120)
        return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        return -9, "", "timeout"


def mask(a, b, c):
    """Lines where the two oracle runs a, b differ are masked in all three."""
    la, lb, lc = a.splitlines(), b.splitlines(), c.splitlines()
    if len(la) != len(lb):
        return a, c, True
    bad = {i for i, (x, y) in enumerate(zip(la, lb)) if x != y}
    if not bad:
        return a, c, False
    ma = "\n".join("<MASK>" if i in bad else l for i, l in enumerate(la))
    mc = "\n".join("<MASK>" if i in bad and i < len(lc) else l for i, l in enumerate(lc))
    return ma, mc, False


def first_error_line(s):
    for l in s.splitlines():
        if l.startswith("Error:") or l.startswith("error:"):
            return l.strip()
    return s.strip().splitlines()[0] if s.strip() else ""


def case(job):
    chart, cid, vfile, ver = job
    cwd = os.path.dirname(chart)
    base = ["template", "rel", chart, "--namespace", "ns"]
    if vfile:
        base += ["-f", vfile]
    h1 = run([HELM[ver]] + base, cwd)
    s = run([SP] + base + ["--helm-version", ver], cwd)
    if h1[0] == 0 and s[0] == 0 and h1[1] == s[1]:
        return job, "same", ""
    if h1[0] != 0 and s[0] != 0:
        he, se = first_error_line(h1[2]), first_error_line(s[2])
        if he == se:
            return job, "same-error", ""
        return job, "error-differs", f"helm: {he}\nsp:   {se}"
    if h1[0] != 0:
        return job, "helm-fails-only", first_error_line(h1[2])
    if s[0] != 0:
        return job, "sp-fails-only", first_error_line(s[2]) + "\n" + s[2][-2000:]
    h2 = run([HELM[ver]] + base, cwd)
    a, c, lens = mask(h1[1], h2[1], s[1])
    if h1[1] != h2[1] and not lens and a == c:
        return job, "same-masked", ""
    diff = "".join(list(difflib.unified_diff(a.splitlines(True), c.splitlines(True), "helm", "sp", n=2))[:80])
    return job, "differs" + ("-random" if h1[1] != h2[1] else ""), diff


def main():
    global SRC, WORK, OUT
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", required=True)
    ap.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "sweep-work"))
    ap.add_argument("--out", default=os.path.join(tempfile.gettempdir(), "sweep-out"))
    ap.add_argument("--filter", default="")
    ap.add_argument("--versions", default="3,4")
    ap.add_argument("--jobs", type=int, default=3)
    a = ap.parse_args()
    SRC, WORK, OUT = (os.path.abspath(p) for p in (a.src, a.work, a.out))
    for v in a.versions.split(","):
        if not os.access(HELM[v], os.X_OK):
            raise SystemExit(f"sweep: no helm at {HELM[v]} (set STACKPROOF_ORACLES)")
    os.makedirs(WORK, exist_ok=True)
    os.makedirs(OUT, exist_ok=True)
    jobs = []
    skipped = []
    for c in find_charts():
        rel = os.path.relpath(c, SRC)
        if a.filter and not re.search(a.filter, rel):
            continue
        if "library" in open(os.path.join(c, "Chart.yaml"), errors="replace").read().split("type:")[-1][:20]:
            continue
        w = prepare(c)
        if w is None:
            skipped.append(rel)
            continue
        vfiles = [None]
        ci = os.path.join(w, "ci")
        if os.path.isdir(ci):
            vfiles += sorted(os.path.join(ci, f) for f in os.listdir(ci) if f.endswith((".yaml", ".yml")))[:4]
        for v in vfiles:
            for ver in a.versions.split(","):
                jobs.append((w, rel + ("" if v is None else "::" + os.path.basename(v)), v, ver))
    results = {}
    with ThreadPoolExecutor(a.jobs) as ex:
        for job, status, detail in ex.map(case, jobs):
            results.setdefault(status, []).append((job, detail))
            if status not in ("same", "same-error", "same-masked", "helm-fails-only"):
                fn = os.path.join(OUT, re.sub(r"[^A-Za-z0-9_.-]", "_", job[1]) + f".v{job[3]}.txt")
                open(fn, "w").write(f"{status}\n{detail}\n")
    for k, v in sorted(results.items()):
        print(f"{k}: {len(v)}")
    for k in ("differs", "differs-random", "sp-fails-only", "error-differs"):
        for job, detail in results.get(k, []):
            print(f"--- {k} v{job[3]} {job[1]}")
    print(f"skipped (missing deps): {len(skipped)}")
    json.dump({k: [(j[1], j[3]) for j, _ in v] for k, v in results.items()}, open(os.path.join(OUT, "summary.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
