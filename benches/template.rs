//! `cargo bench --bench template`: parse and execute a large generated template
//! (about 5,000 lines with loops, includes, conditionals and printf) and print the
//! time per parse and per render; then parse a chart-shaped template set (a helpers
//! file of many small `define`s plus manifests dense with `{{- if }}` and
//! `{{ include ... | nindent N }}` actions) with Helm's function table, which is
//! what chart rendering spends its parse time on.

use std::sync::Arc;
use std::time::Instant;

use stackproof::funcs::{control, helm_registry, Flavor};
use stackproof::template::{Host, List, Map, Options, Registry, TemplateSet, Value};

/// A chart-like template: helper defines plus many resource blocks.
fn big_template() -> String {
    let mut t = String::new();
    t.push_str(
        r#"{{- define "labels" -}}
app: {{ .name }}
tier: {{ .tier | printf "%s" }}
{{- end -}}
{{- define "port" -}}
- name: {{ printf "%s-%d" .name (len .name) }}
  port: {{ .port }}
{{- end -}}
"#,
    );
    for i in 0..400 {
        t.push_str(&format!(
            r#"---
# block {i}
kind: ConfigMap
metadata:
  name: {{{{ printf "%s-{i}" $.Values.prefix }}}}
  labels:
{{{{ include "labels" (index $.Values.apps {m}) | printf "%s" }}}}
data:
{{{{- range $k, $v := $.Values.config }}}}
  {{{{ $k }}}}: {{{{ printf "%v" $v }}}}
{{{{- end }}}}
{{{{- with index $.Values.apps {m} }}}}
  owner: {{{{ .name }}}}
{{{{- end }}}}
"#,
            m = i % 8
        ));
    }
    t
}

/// A helpers file in the style common charts use: many short defines built from
/// conditionals, `printf`, `trunc`/`trimSuffix` chains and nested includes.
fn helpers_tpl(n: usize) -> String {
    let mut t = String::new();
    for i in 0..n {
        t.push_str(&format!(
            r#"{{{{/*
Return the name of component {i}. Long names are cut at 63 characters because some
Kubernetes name fields are limited to that (DNS naming spec).
*/}}}}
{{{{- define "app.component{i}.fullname" -}}}}
{{{{- if .Values.component{i}.fullnameOverride -}}}}
{{{{- .Values.component{i}.fullnameOverride | trunc 63 | trimSuffix "-" -}}}}
{{{{- else -}}}}
{{{{- $name := default .Chart.Name .Values.nameOverride -}}}}
{{{{- if contains $name .Release.Name -}}}}
{{{{- printf "%s-c{i}" .Release.Name | trunc 63 | trimSuffix "-" -}}}}
{{{{- else -}}}}
{{{{- printf "%s-%s-c{i}" .Release.Name $name | trunc 63 | trimSuffix "-" -}}}}
{{{{- end -}}}}
{{{{- end -}}}}
{{{{- end -}}}}

{{{{- define "app.component{i}.labels" -}}}}
helm.sh/chart: {{{{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}}}
app.kubernetes.io/name: {{{{ include "app.component{i}.fullname" . }}}}
app.kubernetes.io/instance: {{{{ .Release.Name | quote }}}}
{{{{- if .Chart.AppVersion }}}}
app.kubernetes.io/version: {{{{ .Chart.AppVersion | quote }}}}
{{{{- end }}}}
app.kubernetes.io/managed-by: {{{{ .Release.Service }}}}
{{{{- with .Values.commonLabels }}}}
{{{{ toYaml . }}}}
{{{{- end }}}}
{{{{- end -}}}}

{{{{- define "app.component{i}.image" -}}}}
{{{{- $registry := .Values.image.registry -}}}}
{{{{- $tag := .Values.image.tag | default .Chart.AppVersion | toString -}}}}
{{{{- if and .Values.global .Values.global.imageRegistry -}}}}
{{{{- $registry = .Values.global.imageRegistry -}}}}
{{{{- end -}}}}
{{{{- if $registry -}}}}
{{{{- printf "%s/%s:%s" $registry .Values.image.repository $tag -}}}}
{{{{- else -}}}}
{{{{- printf "%s:%s" .Values.image.repository $tag -}}}}
{{{{- end -}}}}
{{{{- end -}}}}

{{{{- define "app.component{i}.serviceAccountName" -}}}}
{{{{- if .Values.serviceAccount.create -}}}}
    {{{{ default (include "app.component{i}.fullname" .) .Values.serviceAccount.name }}}}
{{{{- else -}}}}
    {{{{ default "default" .Values.serviceAccount.name }}}}
{{{{- end -}}}}
{{{{- end -}}}}
"#
        ));
    }
    t
}

/// A Deployment-style manifest: most lines are guarded by `{{- if }}` or print an
/// `include`/`toYaml` through `nindent`.
fn manifest_yaml(c: usize) -> String {
    format!(
        r#"{{{{- if .Values.component{c}.enabled }}}}
apiVersion: {{{{ include "app.capabilities.deployment.apiVersion" . | default "apps/v1" }}}}
kind: Deployment
metadata:
  name: {{{{ include "app.component{c}.fullname" . }}}}
  namespace: {{{{ .Release.Namespace | quote }}}}
  labels: {{{{- include "app.component{c}.labels" . | nindent 4 }}}}
  {{{{- if .Values.commonAnnotations }}}}
  annotations: {{{{- toYaml .Values.commonAnnotations | nindent 4 }}}}
  {{{{- end }}}}
spec:
  {{{{- if not .Values.component{c}.autoscaling.enabled }}}}
  replicas: {{{{ .Values.component{c}.replicaCount }}}}
  {{{{- end }}}}
  revisionHistoryLimit: {{{{ .Values.revisionHistoryLimit | default 10 }}}}
  selector:
    matchLabels: {{{{- include "app.component{c}.labels" . | nindent 6 }}}}
  {{{{- with .Values.component{c}.updateStrategy }}}}
  strategy: {{{{- toYaml . | nindent 4 }}}}
  {{{{- end }}}}
  template:
    metadata:
      labels: {{{{- include "app.component{c}.labels" . | nindent 8 }}}}
      {{{{- if or .Values.podAnnotations (eq .Values.configChecksum true) }}}}
      annotations:
        checksum/config: {{{{ include (print $.Template.BasePath "/configmap.yaml") . | sha256sum }}}}
        {{{{- range $key, $value := .Values.podAnnotations }}}}
        {{{{ $key }}}}: {{{{ $value | quote }}}}
        {{{{- end }}}}
      {{{{- end }}}}
    spec:
      serviceAccountName: {{{{ include "app.component{c}.serviceAccountName" . }}}}
      {{{{- with .Values.imagePullSecrets }}}}
      imagePullSecrets: {{{{- toYaml . | nindent 8 }}}}
      {{{{- end }}}}
      {{{{- if .Values.component{c}.affinity }}}}
      affinity: {{{{- tpl (toYaml .Values.component{c}.affinity) $ | nindent 8 }}}}
      {{{{- else }}}}
      affinity:
        podAntiAffinity: {{{{- include "app.affinity" (dict "type" .Values.podAntiAffinityPreset "component" "c{c}" "context" $) | nindent 10 }}}}
      {{{{- end }}}}
      {{{{- if .Values.component{c}.nodeSelector }}}}
      nodeSelector: {{{{- toYaml .Values.component{c}.nodeSelector | nindent 8 }}}}
      {{{{- end }}}}
      containers:
        - name: c{c}
          image: {{{{ include "app.component{c}.image" . }}}}
          imagePullPolicy: {{{{ .Values.image.pullPolicy | quote }}}}
          {{{{- if .Values.component{c}.command }}}}
          command: {{{{- toYaml .Values.component{c}.command | nindent 12 }}}}
          {{{{- end }}}}
          env:
            - name: PORT
              value: {{{{ .Values.component{c}.port | toString | quote }}}}
            {{{{- range $i, $e := .Values.component{c}.extraEnv }}}}
            - name: {{{{ $e.name | upper | replace "-" "_" }}}}
              value: {{{{ $e.value | default "" | quote }}}}
            {{{{- end }}}}
          ports:
            - name: http
              containerPort: {{{{ .Values.component{c}.port | default 8080 }}}}
              protocol: TCP
          {{{{- if .Values.component{c}.livenessProbe.enabled }}}}
          livenessProbe: {{{{- omit .Values.component{c}.livenessProbe "enabled" | toYaml | nindent 12 }}}}
          {{{{- end }}}}
          {{{{- if .Values.component{c}.resources }}}}
          resources: {{{{- toYaml .Values.component{c}.resources | nindent 12 }}}}
          {{{{- else if ne .Values.component{c}.resourcesPreset "none" }}}}
          resources: {{{{- include "app.resources.preset" (dict "type" .Values.component{c}.resourcesPreset) | nindent 12 }}}}
          {{{{- end }}}}
{{{{- end }}}}
"#
    )
}

fn data() -> Value {
    let apps: Vec<Value> = (0..8)
        .map(|i| {
            let m = Map::new();
            m.insert("name", Value::str(format!("app{i}")));
            m.insert("tier", Value::str(if i % 2 == 0 { "web" } else { "db" }));
            m.insert("port", Value::Float(8000.0 + i as f64));
            Value::Map(m)
        })
        .collect();
    let config = Map::new();
    for i in 0..6 {
        config.insert(format!("key{i}"), Value::str(format!("value-{i}")));
    }
    let values = Map::new();
    values.insert("prefix", Value::str("bench"));
    values.insert("apps", Value::List(List::new(apps)));
    values.insert("config", Value::Map(config));
    let top = Map::new();
    top.insert("Values", Value::Map(values));
    Value::Map(top)
}

/// CPU time of this thread in nanoseconds (Linux `schedstat`), so that timings
/// are not distorted by other processes on a busy machine; `None` elsewhere.
fn cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

fn main() {
    let text = big_template();
    let lines = text.lines().count();
    let mut reg = Registry::new();
    reg.register(control::HELM3);
    let reg = Arc::new(reg);
    let host = Host::default();
    let data = data();

    let parse_iters = 50;
    let cpu0 = cpu_ns();
    let start = Instant::now();
    let mut set = TemplateSet::new("gotpl", reg.clone(), Options::default());
    for _ in 0..parse_iters {
        set = TemplateSet::new("gotpl", reg.clone(), Options::default());
        set.parse("big.yaml", &text).expect("parses");
    }
    let parse = start.elapsed() / parse_iters;
    let parse_cpu = cpu0
        .zip(cpu_ns())
        .map(|(a, b)| (b - a) as f64 / parse_iters as f64 / 1e6);

    let out = set.execute("big.yaml", &data, &host).expect("renders");
    let exec_iters = 100;
    let cpu0 = cpu_ns();
    let start = Instant::now();
    let mut total = 0;
    for _ in 0..exec_iters {
        total += set
            .execute("big.yaml", &data, &host)
            .expect("renders")
            .len();
    }
    let exec = start.elapsed() / exec_iters;
    let exec_cpu = cpu0
        .zip(cpu_ns())
        .map(|(a, b)| (b - a) as f64 / exec_iters as f64 / 1e6);
    assert!(total > 0);
    println!(
        "template: {lines} source lines, {} output lines, {} output bytes",
        out.lines().count(),
        out.len()
    );
    let cpu = |c: Option<f64>| c.map(|c| format!(", {c:.3} ms CPU")).unwrap_or_default();
    println!(
        "parse:   {:>9.3} ms wall{} per parse",
        parse.as_secs_f64() * 1e3,
        cpu(parse_cpu)
    );
    println!(
        "execute: {:>9.3} ms wall{} per render",
        exec.as_secs_f64() * 1e3,
        cpu(exec_cpu)
    );

    // Chart-shaped set: one helpers file plus one manifest per component, parsed
    // into one set with Helm's function table, as chart rendering does.
    let helm = Arc::new(helm_registry(Flavor::Helm3));
    let components = 40;
    let helpers = helpers_tpl(components);
    let manifests: Vec<(String, String)> = (0..components)
        .map(|c| (format!("chart/templates/c{c}.yaml"), manifest_yaml(c)))
        .collect();
    let chart_lines =
        helpers.lines().count() + manifests.iter().map(|m| m.1.lines().count()).sum::<usize>();
    // The thread CPU clock can advance in scheduler ticks (4 ms here), so time
    // rounds of many parses (well over 100 ms each) and report the median round.
    let rounds = 11;
    let per_round = 40;
    let mut samples = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let cpu0 = cpu_ns();
        let start = Instant::now();
        for _ in 0..per_round {
            let mut set = TemplateSet::new("gotpl", helm.clone(), Options::default());
            set.parse("chart/templates/_helpers.tpl", &helpers)
                .expect("helpers parse");
            for (name, text) in &manifests {
                set.parse(name, text).expect("manifest parses");
            }
            assert!(set.contains("app.component0.labels"));
        }
        let wall = start.elapsed().as_secs_f64() * 1e3;
        let cpu = cpu0.zip(cpu_ns()).map(|(a, b)| (b - a) as f64 / 1e6);
        samples.push(cpu.unwrap_or(wall) / per_round as f64);
    }
    samples.sort_by(f64::total_cmp);
    println!(
        "chart set: {chart_lines} source lines in {} files",
        manifests.len() + 1
    );
    println!(
        "parse:   {:>9.3} ms median, {:.3} ms min per set ({} sets, CPU time where available)",
        samples[rounds / 2],
        samples[0],
        rounds * per_round
    );

    if let Some(dir) = std::env::var_os("TEMPLATE_BENCH_CHART") {
        chart_parse_rate(&helm, std::path::Path::new(&dir));
    }
}

/// Every template file under `dir` (a chart folder, subcharts included), parsed
/// into one set per round as chart rendering does, with the throughput in MB/s:
/// what a real chart's parse costs, next to the generated set above.
/// `TEMPLATE_BENCH_CHART=path/to/chart cargo bench --bench template`.
fn chart_parse_rate(helm: &Arc<Registry>, dir: &std::path::Path) {
    fn walk(dir: &std::path::Path, under_templates: bool, out: &mut Vec<(String, String)>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut entries: Vec<_> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                let templates = p.file_name().is_some_and(|n| n == "templates");
                walk(&p, under_templates || templates, out);
            } else if under_templates {
                if let Ok(text) = std::fs::read_to_string(&p) {
                    out.push((p.display().to_string(), text));
                }
            }
        }
    }
    let mut files = Vec::new();
    walk(dir, false, &mut files);
    let bytes: usize = files.iter().map(|f| f.1.len()).sum();
    // Rounds of about 100 ms, for the same reason as the chart-shaped set above:
    // the thread CPU clock advances in scheduler ticks.
    let rounds = 21;
    let mut samples = Vec::with_capacity(rounds);
    // The fastest round's wall time per set: finer than the CPU clock's ticks, for
    // comparing two builds on an idle machine.
    let mut fastest = f64::INFINITY;
    for _ in 0..rounds {
        let cpu0 = cpu_ns();
        let start = Instant::now();
        let per_round = 100;
        for _ in 0..per_round {
            let mut set = TemplateSet::new("gotpl", helm.clone(), Options::default());
            for (name, text) in &files {
                // A file Go would refuse is still timed: the error is the result.
                let _ = set.parse(name, text);
            }
        }
        let wall = start.elapsed().as_secs_f64() * 1e3;
        let cpu = cpu0.zip(cpu_ns()).map(|(a, b)| (b - a) as f64 / 1e6);
        samples.push(cpu.unwrap_or(wall) / per_round as f64);
        fastest = fastest.min(wall / per_round as f64);
    }
    samples.sort_by(f64::total_cmp);
    let median = samples[rounds / 2];
    println!(
        "{}: {} template files, {} bytes: parse {:.3} ms median per set, {:.0} MB/s; fastest round {:.4} ms wall per set",
        dir.display(),
        files.len(),
        bytes,
        median,
        bytes as f64 / median / 1e3,
        fastest
    );
}
