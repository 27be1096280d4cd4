#!/usr/bin/env python3
"""Differential sweep over Helmfile stacks stackproof has never seen: every state file
under SRC (`helmfile.yaml`, `helmfile.yaml.gotmpl`, a `helmfile.d/` folder, and the
`input.yaml[.gotmpl]` of Helmfile's own snapshot tests) is run through the real
helmfile v0.166.0 (with helm v3.15.3) and through `stackproof helmfile`, for `list
--output json` and `template --skip-deps`, in the state's own folder with default
flags, and the outcomes are compared: stdout byte for byte when both succeed, the
error text when both fail (stackproof may add a source snippet after it).

SRC is copied to WORK first and only the copy is used, because the real helmfile
may write next to a state (chartify, fetched charts). Helm gets an empty home of its
own with one unreachable repository entry, so that `helm repo list` (which helmfile
runs for charts named `repo/chart`) answers instead of failing. Stacks that need the
network, kustomize or a post-renderer fail for the real helmfile or for stackproof
for those reasons; they are counted, and each case that is not `same` gets a file
under OUT with both stderrs and the stdout diff.

With --each-environment, every environment a state names (other than `default`)
is also run with `-e NAME`.

Usage: scripts/sweep-helmfile.py --src SRC [--work WORK] [--out OUT] [--filter TEXT]
           [--each-environment]
Needs STACKPROOF_ORACLES (folder with `helmfile-v0.166.0` and `helm-v3.15.3`) and a
stackproof binary (STACKPROOF_BIN, default target/release/stackproof)."""
import argparse, difflib, glob, os, re, shutil, subprocess, sys, tempfile

from oracles import ORACLES, SP, helm_home
from oracles import helm_env as _helm_env
HELMFILE = os.path.join(ORACLES, "helmfile-v0.166.0")
HELM = os.path.join(ORACLES, "helm-v3.15.3")
STATE_NAMES = ("helmfile.yaml", "helmfile.yaml.gotmpl", "input.yaml", "input.yaml.gotmpl")
# @OUT@ is a folder emptied before each tool's run; what the tool writes there is
# compared as well as its stdout.
COMMANDS = {"list": ["list", "--output", "json"], "template": ["template", "--skip-deps"],
            "write-values": ["write-values", "--skip-deps", "--output-file-template",
                             "@OUT@/{{ .Release.Namespace }}-{{ .Release.Name }}.yaml"]}
# Progress lines both tools print on stderr before an error; not part of the error.
PROGRESS = ("Templating", "Building", "Adding", "Listing", "Skipping", "Pulling")


def helm_env():
    home = helm_home("sweep-helmfile-home-")
    os.makedirs(home + "/c/helm")
    repos = home + "/c/helm/repositories.yaml"
    with open(repos, "w") as f:
        f.write('apiVersion: ""\ngenerated: "0001-01-01T00:00:00Z"\nrepositories:\n'
                "- name: unreachable\n  url: http://127.0.0.1:1/\n")
    return _helm_env(home, HOME=home, HELM_REPOSITORY_CONFIG=repos)


def states(work):
    """State files at the top of a stack: not the sub-helmfiles or bases others load."""
    found = []
    for path in sorted(glob.glob(work + "/**/*", recursive=True)):
        name = os.path.basename(path)
        top = "/helmfiles/" not in path and "/bases/" not in path
        if top and (name in STATE_NAMES or (name == "helmfile.d" and os.path.isdir(path))):
            found.append(path)
    return found


def environments(state):
    """The environment names a state (or a helmfile.d's files) declares, crudely:
    the two-space-indented keys under a top-level `environments:`."""
    paths = [state] if os.path.isfile(state) else sorted(glob.glob(state + "/*"))
    names = set()
    for p in paths:
        try:
            text = open(p, errors="replace").read()
        except OSError:
            continue
        for m in re.finditer(r"^environments:\n((?:[ \t].*\n|\n)+)", text, re.M):
            names |= set(re.findall(r"^  ([A-Za-z0-9_.-]+):", m.group(1), re.M))
    return sorted(names - {"default"})


def error_lines(stderr):
    return [l for l in stderr.splitlines() if l.strip() and not l.startswith(PROGRESS)]


def run(argv, cwd, env, out_dir):
    """Runs a tool; returns its completed process, with the files it wrote under
    out_dir appended to its stdout (name, then content), so that one comparison
    covers both."""
    shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(out_dir)
    argv = [a.replace("@OUT@", out_dir) for a in argv]
    p = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
    written = sorted(os.path.relpath(os.path.join(d, f), out_dir)
                     for d, _, files in os.walk(out_dir) for f in files)
    for name in written:
        with open(os.path.join(out_dir, name), errors="replace") as f:
            p.stdout += f"\n=== wrote {name}\n" + f.read()
    return p


def compare(real, ours):
    if real.returncode != 0 and ours.returncode != 0:
        want, got = error_lines(real.stderr), error_lines(ours.stderr)
        return "both-fail-same" if want and want == got[:len(want)] else "both-fail"
    if real.returncode != 0:
        return "helmfile-fails-only"
    if ours.returncode != 0:
        return "stackproof-fails-only"
    return "same" if real.stdout == ours.stdout else "differs"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", required=True)
    ap.add_argument("--work", default=tempfile.mkdtemp(prefix="sweep-helmfile-work-"))
    ap.add_argument("--out", default=tempfile.mkdtemp(prefix="sweep-helmfile-out-"))
    ap.add_argument("--filter", default="")
    ap.add_argument("--each-environment", action="store_true")
    a = ap.parse_args()
    for tool in (HELMFILE, HELM, SP):
        if not os.access(tool, os.X_OK):
            sys.exit(f"sweep-helmfile: {tool} is not an executable (set STACKPROOF_ORACLES / STACKPROOF_BIN)")
    shutil.rmtree(a.work, ignore_errors=True)
    shutil.copytree(a.src, a.work, symlinks=True)
    os.makedirs(a.out, exist_ok=True)
    env = helm_env()
    out_dir = tempfile.mkdtemp(prefix="sweep-helmfile-written-")
    outcomes = {}
    for state in states(a.work):
        rel = os.path.relpath(state, a.work)
        if a.filter not in rel:
            continue
        cwd, name = os.path.dirname(state), os.path.basename(state)
        envs = [None] + (environments(state) if a.each_environment else [])
        for env_name, (cmd, args) in [(e, c) for e in envs for c in COMMANDS.items()]:
            flags = ["-e", env_name] if env_name else []
            label = cmd if env_name is None else f"{cmd} -e {env_name}"
            try:
                real = run([HELMFILE, "--helm-binary", HELM] + flags + ["-f", name] + args, cwd, env, out_dir)
            except subprocess.TimeoutExpired:
                outcomes.setdefault("helmfile-timeout", []).append((rel, label))
                continue
            # Helmfile runs the programs a stack names (exec, postRenderer); so do we here.
            ours = run([SP, "helmfile", "--allow-exec"] + flags + ["-f", name] + args, cwd, env, out_dir)
            kind = compare(real, ours)
            outcomes.setdefault(kind, []).append((rel, label))
            if kind != "same":
                tag = label.replace(" ", "_")
                with open(os.path.join(a.out, rel.replace("/", "_") + "." + tag + ".txt"), "w") as f:
                    f.write(f"{kind}\n== helmfile exit {real.returncode}\n{real.stderr}\n"
                            f"== stackproof exit {ours.returncode}\n{ours.stderr}\n")
                    f.writelines(difflib.unified_diff(real.stdout.splitlines(True),
                                                      ours.stdout.splitlines(True),
                                                      "helmfile", "stackproof"))
    for kind in sorted(outcomes):
        per = {c: sum(1 for _, k in outcomes[kind] if k.split()[0] == c) for c in COMMANDS}
        print(f"{kind}: {len(outcomes[kind])} (" + ", ".join(f"{c} {n}" for c, n in per.items()) + ")")
    for kind in sorted(outcomes):
        if kind not in ("same", "both-fail-same"):
            for rel, cmd in outcomes[kind]:
                print(f"--- {kind} {cmd} {rel}")
    print(f"details: {a.out}")


if __name__ == "__main__":
    main()
