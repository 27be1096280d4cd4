#!/usr/bin/env python3
"""Regenerates testdata/yaml/expected/*.json from the real Helm and Helmfile binaries.

For every testdata/yaml/cases/NAME.yaml this records, as the real tools compute them:

  helm.fromYaml       dump of `fromYaml` of the file text (Helm v3.15.3)
  helm.toYaml         `toYaml` of that result
  helm.fromYamlArray  dump of `fromYamlArray` of the file text
  helmfile.fromYaml   dump of Helmfile 0.166's `fromYaml`, or `ERROR: <message>`
  helmfile.toYaml     Helmfile's `toYaml` of that result
  helm4.fromYaml      as helm.fromYaml, with Helm v4.3.1
  helm4.toYamlPretty  Helm 4's `toYamlPretty` of its `fromYaml` result
  helm.toToml         Helm 3's `toToml` of the `fromYaml` result
  helm4.toToml        Helm 4's `toToml` of the `fromYaml` result

and for every testdata/yaml/toml/NAME.toml (written to expected/toml-NAME.json):

  helm4.fromToml      dump of Helm 4's `fromToml` of the file text

A dump lists one line per value: `PATH TYPE VALUE` (strings with %q, others %v),
maps and slices as `PATH TYPE len=N` followed by their elements in `range` order.

usage: STACKPROOF_ORACLES=/work/oracles testdata/yaml/oracle.py [CASE...]
"""
import base64
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "cases")
EXPECTED = os.path.join(HERE, "expected")
ORACLES = os.environ.get("STACKPROOF_ORACLES", "/work/oracles")

# Outputs that differ between runs of the real tool: yaml.v2's key comparison is not
# transitive for some key sets (`0x10 < 1 < 0777 < 0x10`), so the order it prints
# depends on Go's random map iteration. Tests compare these as sets of lines.
NONDETERMINISTIC = {
    "keys": ["helmfile.toYaml"],
    "floatkeys": ["helm.toYaml", "helmfile.toYaml"],
}

DUMP = r'''{{- define "dump" -}}
{{- $v := .v -}}{{- $p := .p -}}
{{- if kindIs "map" $v -}}
{{ $p }} {{ typeOf $v }} len={{ len $v }}
{{ range $k, $x := $v }}{{ include "dump" (dict "v" $x "p" (printf "%s[%q]" $p $k)) }}{{ end -}}
{{- else if kindIs "slice" $v -}}
{{ $p }} {{ typeOf $v }} len={{ len $v }}
{{ range $i, $x := $v }}{{ include "dump" (dict "v" $x "p" (printf "%s[%d]" $p $i)) }}{{ end -}}
{{- else if kindIs "string" $v -}}
{{ $p }} {{ typeOf $v }} {{ printf "%q" $v }}
{{ else -}}
{{ $p }} {{ typeOf $v }} {{ printf "%v" $v }}
{{ end -}}
{{- end -}}
'''

HELM_TEMPLATE = r'''{{- range $path, $_ := .Files.Glob "cases/*" }}
{{- $text := $.Files.Get $path }}
{{- $m := fromYaml $text }}
---
# {{ $path }}
fromYaml: {{ include "dump" (dict "v" $m "p" "$") | b64enc | quote }}
toYaml: {{ toYaml $m | b64enc | quote }}
fromYamlArray: {{ include "dump" (dict "v" (fromYamlArray $text) "p" "$") | b64enc | quote }}
toToml: {{ toToml $m | b64enc | quote }}
{{- end }}
'''

HELM4_TEMPLATE = r'''{{- range $path, $_ := .Files.Glob "cases/*" }}
{{- $text := $.Files.Get $path }}
{{- $m := fromYaml $text }}
---
# {{ $path }}
fromYaml: {{ include "dump" (dict "v" $m "p" "$") | b64enc | quote }}
toYamlPretty: {{ toYamlPretty $m | b64enc | quote }}
toToml: {{ toToml $m | b64enc | quote }}
{{- end }}
'''

HELMFILE_STATE = r'''{{- $text := readFile (env "CASE") }}
{{- $m := fromYaml $text }}
releases:
  - name: r
    chart: ./echo
    values:
      - dump: {{ include "dump" (dict "v" $m "p" "$") | b64enc }}
        toYaml: {{ toYaml $m | b64enc }}
'''


def env(tmp):
    e = dict(os.environ)
    e["HELM_CONFIG_HOME"] = os.path.join(tmp, "hc")
    e["HELM_CACHE_HOME"] = os.path.join(tmp, "hca")
    e["HELM_DATA_HOME"] = os.path.join(tmp, "hd")
    e["PATH"] = ORACLES + os.pathsep + e.get("PATH", "")
    return e


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", newline="") as f:
        f.write(text)


def run_helm(tmp, names, v4=False):
    chart = os.path.join(tmp, "c4" if v4 else "c")
    write(os.path.join(chart, "Chart.yaml"), "apiVersion: v2\nname: c\nversion: 0.1.0\n")
    write(os.path.join(chart, "templates", "_dump.tpl"), DUMP)
    write(os.path.join(chart, "templates", "out.yaml"), HELM4_TEMPLATE if v4 else HELM_TEMPLATE)
    os.makedirs(os.path.join(chart, "cases"), exist_ok=True)
    for n in names:
        shutil.copy(os.path.join(CASES, n + ".yaml"), os.path.join(chart, "cases", n + ".yaml"))
    binary = os.path.join(ORACLES, "helm-v4.3.1" if v4 else "helm")
    out = subprocess.run([binary, "template", chart],
                         capture_output=True, text=True, env=env(tmp))
    if out.returncode != 0:
        sys.exit("helm failed: " + out.stderr)
    results = {}
    for doc in out.stdout.split("\n---\n"):
        m = re.search(r"^# cases/(.*)\.yaml$", doc, re.M)
        if not m:
            continue
        fields = dict(re.findall(r'^(\w+): "(.*)"$', doc, re.M))
        if v4:
            results[m.group(1)] = {
                "helm4.fromYaml": base64.b64decode(fields["fromYaml"]).decode(),
                "helm4.toYamlPretty": base64.b64decode(fields["toYamlPretty"]).decode(),
                "helm4.toToml": base64.b64decode(fields["toToml"]).decode(),
            }
            continue
        results[m.group(1)] = {
            "helm.fromYaml": base64.b64decode(fields["fromYaml"]).decode(),
            "helm.toYaml": base64.b64decode(fields["toYaml"]).decode(),
            "helm.fromYamlArray": base64.b64decode(fields["fromYamlArray"]).decode(),
            "helm.toToml": base64.b64decode(fields["toToml"]).decode(),
        }
    return results


def run_helmfile(tmp, name):
    d = os.path.join(tmp, "hf")
    if not os.path.isdir(d):
        write(os.path.join(d, "echo", "Chart.yaml"), "apiVersion: v2\nname: echo\nversion: 0.1.0\n")
        write(os.path.join(d, "echo", "templates", "v.yaml"), "# values: {{ toJson .Values }}\n")
        write(os.path.join(d, "_dump.tpl"), DUMP)
        write(os.path.join(d, "helmfile.yaml.gotmpl"), HELMFILE_STATE)
    shutil.copy(os.path.join(CASES, name + ".yaml"), os.path.join(d, "case.yaml"))
    e = env(tmp)
    e["CASE"] = "case.yaml"
    out = subprocess.run([os.path.join(ORACLES, "helmfile"), "template", "--skip-deps"],
                         capture_output=True, text=True, env=e, cwd=d)
    if out.returncode != 0:
        err = out.stderr.strip().splitlines()
        msg = "\n".join(err)
        m = re.search(r"error calling fromYaml: (.*), offending yaml: ", msg, re.S)
        if m:
            return {"helmfile.fromYaml": "ERROR: " + m.group(1)}
        return {"helmfile.fromYaml": "FAILED: " + msg}
    m = re.search(r"^# values: (.*)$", out.stdout, re.M)
    vals = json.loads(m.group(1))
    return {
        "helmfile.fromYaml": base64.b64decode(vals["dump"]).decode(),
        "helmfile.toYaml": base64.b64decode(vals["toYaml"]).decode(),
    }


TOML_TEMPLATE = r'''{{- range $path, $_ := .Files.Glob "toml/*" }}
{{- $m := fromToml ($.Files.Get $path) }}
---
# {{ $path }}
fromToml: {{ include "dump" (dict "v" $m "p" "$") | b64enc | quote }}
{{- end }}
'''


def run_toml(tmp):
    src = os.path.join(HERE, "toml")
    names = sorted(f[:-5] for f in os.listdir(src) if f.endswith(".toml"))
    chart = os.path.join(tmp, "ct")
    write(os.path.join(chart, "Chart.yaml"), "apiVersion: v2\nname: ct\nversion: 0.1.0\n")
    write(os.path.join(chart, "templates", "_dump.tpl"), DUMP)
    write(os.path.join(chart, "templates", "out.yaml"), TOML_TEMPLATE)
    os.makedirs(os.path.join(chart, "toml"), exist_ok=True)
    for n in names:
        shutil.copy(os.path.join(src, n + ".toml"), os.path.join(chart, "toml", n + ".toml"))
    out = subprocess.run([os.path.join(ORACLES, "helm-v4.3.1"), "template", chart],
                         capture_output=True, text=True, env=env(tmp))
    if out.returncode != 0:
        sys.exit("helm failed: " + out.stderr)
    for doc in out.stdout.split("\n---\n"):
        m = re.search(r"^# toml/(.*)\.toml$", doc, re.M)
        if not m:
            continue
        fields = dict(re.findall(r'^(\w+): "(.*)"$', doc, re.M))
        rec = {"input": "toml/" + m.group(1) + ".toml",
               "helm4.fromToml": base64.b64decode(fields["fromToml"]).decode()}
        with open(os.path.join(EXPECTED, "toml-" + m.group(1) + ".json"), "w") as f:
            json.dump(rec, f, indent=1, ensure_ascii=False, sort_keys=True)
            f.write("\n")


def main():
    names = sys.argv[1:] or sorted(f[:-5] for f in os.listdir(CASES) if f.endswith(".yaml"))
    with tempfile.TemporaryDirectory() as tmp:
        if not sys.argv[1:]:
            run_toml(tmp)
        helm = run_helm(tmp, names)
        helm4 = run_helm(tmp, names, v4=True)
        for n in names:
            rec = {"input": n + ".yaml"}
            rec.update(helm.get(n, {"helm.fromYaml": "MISSING"}))
            rec.update(helm4.get(n, {"helm4.fromYaml": "MISSING"}))
            rec.update(run_helmfile(tmp, n))
            if n in NONDETERMINISTIC:
                rec["nondeterministic"] = NONDETERMINISTIC[n]
            os.makedirs(EXPECTED, exist_ok=True)
            with open(os.path.join(EXPECTED, n + ".json"), "w") as f:
                json.dump(rec, f, indent=1, ensure_ascii=False, sort_keys=True)
                f.write("\n")
            print(n, file=sys.stderr)


if __name__ == "__main__":
    main()
