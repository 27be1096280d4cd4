#!/usr/bin/env python3
"""Differential fuzz of template expressions: random calls of Sprig and Helm
functions (nested up to three deep, with literals, `.Values` of every type, lists,
dicts and byte strings as arguments, sometimes with one argument too many or too
few) are rendered one at a time in a one-template chart by the real helm and by
`stackproof template`, and the outputs compared byte for byte (errors: every line,
stackproof's `  --> file:line:col` pointer aside). Each difference is written to
OUT/<hash>.txt.

Known noise: `keys`/`values` of a map with several entries (Go's random order), and
`until`/`untilStep`/`seq` over huge ranges (helm runs out of time or memory where
stackproof stops at ten million elements).

Usage: scripts/fuzz-exprs.py [--secs 600] [--seed 1] [--helm-version 3|4] [--out DIR]
Needs STACKPROOF_ORACLES (folder with `helm` and `helm-v4.3.1`) and a stackproof
binary (STACKPROOF_BIN, default target/release/stackproof)."""
import argparse, hashlib, os, random, shutil, subprocess, sys, tempfile, time

from oracles import HELM, SP, helm_env, helm_home

ENV = helm_env(helm_home("fuzz-exprs-helm-"))
RND = random.Random(1)
VALUES = """s: hello
n: 3
f: 2.5
big: 1e6
neg: -7
z: 0
b: true
nb: false
nul: null
e: ""
l: [1, "two", 3.5, null, true]
el: []
m: {a: 1, b: "x", c: [1, 2], d: {e: f}}
em: {}
ns: "42"
vs: "1.2.3"
csv: "a,b,,c"
sp: "  pad  "
u: "https://user:pw@example.com:8080/p/a?q=1&r=2#frag"
"""
WRAPS = ["{{ %s }}", "{{ %s | toJson }}", "{{ %s | typeOf }}", "v: {{ %s | quote }}"]

STRINGS = ['"a"', '""', '"Hello World"', '"a,b,c"', '"1"', '"true"', '"  x  "', '"ab-cd_ef"',
           '"ÄÖü"', '"3.7"', '"-2"', '"a.b"', '"x\\ny"', '"1.2.3"', '"%d-%s"', '"{{"']
NUMBERS = ["0", "1", "-1", "3", "2.5", "-0.5", "1e3", "0x10", "10000000000", "'a'"]
FIELDS = [".Values." + k for k in ("s n f big neg z b nb nul e l el m em ns vs csv sp u m.d "
                                    "missing").split()] + [".Release.Name", ".Chart.Name",
                                                           "nil", "true", "false"]
COLLECTIONS = ['(list (dict "a" 1) (dict "a" 2))', '(dict "a" (dict "b" (list 1 2)))',
               '(list nil)', '(b64dec "true")', '(printf "%c" 233)', '(list "a" (list "b"))',
               '(list 1 "a" 2.5)', "(list)", '(dict "a" 1 "b" "x")', "(dict)",
               '(list "b" "a" "c")', "(list 3 1 2)", "(tuple 1 2)"]
# Function name -> the argument counts to try. Random and clock functions are left
# out (their output differs run to run).
ARITY = {
    "abbrev": [2], "abbrevboth": [3], "add": [1, 2, 3], "add1": [1], "addf": [1, 2],
    "adler32sum": [1], "all": [1, 2], "and": [2], "any": [1, 2], "append": [2], "atoi": [1],
    "b32dec": [1], "b32enc": [1], "b64dec": [1], "b64enc": [1], "base": [1], "biggest": [2],
    "camelcase": [1], "cat": [1, 2, 3], "ceil": [1], "chunk": [2], "clean": [1],
    "coalesce": [1, 2, 3], "compact": [1], "concat": [1, 2], "contains": [2], "date": [2],
    "dateInZone": [3], "dateModify": [2], "deepCopy": [1], "deepEqual": [2], "default": [2],
    "dict": [0, 2], "dig": [3], "dir": [1], "div": [2], "divf": [2], "duration": [1],
    "durationRound": [1], "empty": [1], "eq": [2], "ext": [1], "first": [1], "float64": [1],
    "floor": [1], "fromJson": [1], "fromJsonArray": [1], "fromYaml": [1], "fromYamlArray": [1],
    "ge": [2], "get": [2], "gt": [2], "has": [2], "hasKey": [2], "hasPrefix": [2],
    "hasSuffix": [2], "html": [1], "include": [2], "indent": [2], "index": [1, 2, 3],
    "initial": [1], "initials": [1], "int": [1], "int64": [1], "isAbs": [1], "join": [2],
    "js": [1], "kebabcase": [1], "keys": [1], "kindIs": [2], "kindOf": [1], "last": [1],
    "le": [2], "len": [1], "list": [0, 1, 2], "lookup": [4], "lower": [1], "lt": [2],
    "max": [1, 2, 3], "maxf": [2], "merge": [2, 3], "mergeOverwrite": [2, 3], "min": [1, 2],
    "minf": [2], "mod": [2], "mul": [1, 2, 3], "mulf": [2], "mustAppend": [2],
    "mustChunk": [2], "mustCompact": [1], "mustDateModify": [2], "mustDeepCopy": [1],
    "mustFirst": [1], "mustHas": [2], "mustInitial": [1], "mustLast": [1], "mustMerge": [2],
    "mustPrepend": [2], "mustPush": [2], "mustRegexFind": [2], "mustRegexFindAll": [3],
    "mustRegexMatch": [2], "mustRegexReplaceAll": [3], "mustRegexSplit": [3],
    "mustRest": [1], "mustReverse": [1], "mustSlice": [2, 3], "mustToDate": [2],
    "mustToJson": [1], "mustToPrettyJson": [1], "mustUniq": [1], "mustWithout": [2],
    "ne": [2], "nindent": [2], "nospace": [1], "not": [1], "omit": [2], "or": [2],
    "pick": [2], "pluck": [2], "plural": [3], "prepend": [2], "print": [1, 2], "printf": [1, 2, 3],
    "println": [1], "push": [2], "quote": [1, 2, 3], "regexFind": [2], "regexFindAll": [3],
    "regexMatch": [2], "regexQuoteMeta": [1], "regexReplaceAll": [3],
    "regexReplaceAllLiteral": [3], "regexSplit": [3], "repeat": [2], "replace": [3],
    "required": [2], "rest": [1], "reverse": [1], "round": [2, 3], "semver": [1],
    "semverCompare": [2], "seq": [1, 2, 3], "set": [3], "sha1sum": [1], "sha256sum": [1],
    "sha512sum": [1], "slice": [1, 2, 3], "snakecase": [1], "sortAlpha": [1], "split": [2],
    "splitList": [2], "splitn": [3], "squote": [1, 2], "sub": [2], "subf": [2], "substr": [3],
    "swapcase": [1], "ternary": [3], "title": [1], "toDate": [2], "toDecimal": [1],
    "toJson": [1], "toPrettyJson": [1], "toRawJson": [1], "toString": [1], "toStrings": [1],
    "toToml": [1], "toYaml": [1], "tpl": [2], "trim": [1], "trimAll": [2], "trimPrefix": [2],
    "trimSuffix": [2], "trimall": [2], "trunc": [2], "tuple": [1, 2], "typeIs": [2],
    "typeOf": [1], "uniq": [1], "unixEpoch": [1], "unset": [2], "until": [1], "untilStep": [3],
    "untitle": [1], "upper": [1], "urlParse": [1], "urlquery": [1], "values": [1],
    "without": [2], "wrap": [2], "wrapWith": [3],
}
NAMES = sorted(ARITY)


def atom(depth):
    """One argument: a nested call (while depth lasts), a field, a literal or a
    collection."""
    r = RND.random()
    if depth > 0 and r < 0.35:
        return "(" + expr(depth - 1) + ")"
    if r < 0.55:
        return RND.choice(FIELDS)
    if r < 0.75:
        return RND.choice(STRINGS)
    if r < 0.9:
        return RND.choice(NUMBERS)
    return RND.choice(COLLECTIONS)


def expr(depth):
    """A call of a random function, sometimes with a wrong argument count, sometimes
    fed its last argument through a pipe."""
    name = RND.choice(NAMES)
    n = RND.choice(ARITY[name])
    if RND.random() < 0.1:
        n = max(0, n + RND.choice([-1, 1, 2]))
    args = " ".join(atom(depth) for _ in range(n))
    e = name + (" " + args if args else "")
    if RND.random() < 0.2:
        e = atom(0) + " | " + e
    return e


def run(cmd):
    try:
        r = subprocess.run(cmd, capture_output=True, timeout=30, env=ENV)
    except subprocess.TimeoutExpired:
        return -1, b"timeout"
    return r.returncode, (r.stdout if r.returncode == 0 else r.stderr)


def error_lines(out):
    text = out.decode("utf-8", "replace")
    return [l for l in text.splitlines() if l.strip() and not l.startswith("  --> ")]


def main():
    global RND
    ap = argparse.ArgumentParser()
    ap.add_argument("--secs", type=float, default=600)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--helm-version", choices=["3", "4"], default="3")
    ap.add_argument("--out", default=os.path.join(tempfile.gettempdir(), "fuzz-exprs"))
    a = ap.parse_args()
    helm = HELM[a.helm_version]
    if not os.access(helm, os.X_OK):
        sys.exit(f"fuzz-exprs: no helm at {helm} (set STACKPROOF_ORACLES)")
    RND = random.Random(a.seed)
    chart = tempfile.mkdtemp(prefix="fuzz-exprs-chart-")
    os.makedirs(os.path.join(chart, "templates"))
    open(os.path.join(chart, "Chart.yaml"), "w").write("apiVersion: v2\nname: c\nversion: 0.1.0\n")
    open(os.path.join(chart, "values.yaml"), "w").write(VALUES)
    os.makedirs(a.out, exist_ok=True)
    runs = diffs = 0
    t0 = time.time()
    try:
        while time.time() - t0 < a.secs:
            e = expr(RND.choice([0, 1, 1, 2]))
            wrap = RND.choice(WRAPS)
            open(os.path.join(chart, "templates", "t.yaml"), "w").write("# x\n" + (wrap % e) + "\n")
            base = ["template", "rel", chart, "--namespace", "ns"]
            hrc, hout = run([helm] + base)
            src, sout = run([SP] + base + ["--helm-version", a.helm_version])
            runs += 1
            if hrc == 2 and b"out of memory" in hout:
                continue
            if (hrc == 0) == (src == 0) and hout == sout:
                continue
            if hrc not in (0, -1) and src != 0 and error_lines(hout) == error_lines(sout):
                continue
            diffs += 1
            key = hashlib.sha1(e.encode()).hexdigest()[:8]
            with open(os.path.join(a.out, key + ".txt"), "w") as f:
                f.write(f"helm v{a.helm_version}: {wrap % e}\n")
                f.write(f"--- helm rc={hrc}\n{hout.decode('utf-8', 'replace')[:1500]}\n")
                f.write(f"--- stackproof rc={src}\n{sout.decode('utf-8', 'replace')[:1500]}\n")
    finally:
        shutil.rmtree(chart, ignore_errors=True)
    print(f"fuzz-exprs seed {a.seed} (helm v{a.helm_version}): {runs} runs, {diffs} differing -> {a.out}")


if __name__ == "__main__":
    main()
