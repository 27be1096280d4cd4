//! `cargo bench --bench template`: parse and execute a large generated template
//! (about 5,000 lines with loops, includes, conditionals and printf) and print the
//! time per parse and per render.

use std::sync::Arc;
use std::time::Instant;

use stackproof::funcs::control;
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
}
