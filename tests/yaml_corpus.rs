//! Live check against the real Helm binary over every YAML file of the shared chart
//! corpus: Helm's `fromYaml` (value types, or the exact error text) and `toYaml` of
//! the result must match ours byte for byte.
//!
//! Needs `STACKPROOF_SHARED` (or `../shared`) and `STACKPROOF_ORACLES` (a directory
//! with `helm`); skipped with a message otherwise. Takes about a minute.

use std::path::{Path, PathBuf};
use std::process::Command;

use stackproof::funcs::codec::yaml::{format_float_g, go_quote};
use stackproof::funcs::yaml as f;
use stackproof::template::Value;

const DUMP: &str = r#"{{- define "dump" -}}
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
"#;

const TEMPLATE: &str = r#"{{- range $path, $_ := .Files.Glob "cases/*" }}
{{- $m := fromYaml ($.Files.Get $path) }}
# {{ $path }} {{ include "dump" (dict "v" $m "p" "$") | b64enc }} {{ toYaml $m | b64enc }}
{{- end }}
"#;

fn dump(v: &Value, path: &str, out: &mut String) {
    match v {
        Value::Map(m) => {
            out.push_str(&format!("{path} {} len={}\n", v.type_name(), m.len()));
            for (k, x) in m.entries() {
                dump(&x, &format!("{path}[{}]", go_quote(&k)), out);
            }
        }
        Value::List(l) => {
            out.push_str(&format!("{path} {} len={}\n", v.type_name(), l.len()));
            for (i, x) in l.iter().enumerate() {
                dump(x, &format!("{path}[{i}]"), out);
            }
        }
        Value::String(s) => out.push_str(&format!("{path} string {}\n", go_quote(s))),
        Value::Nil => out.push_str(&format!("{path} <nil> <nil>\n")),
        Value::Bool(b) => out.push_str(&format!("{path} bool {b}\n")),
        Value::Float(x) => out.push_str(&format!("{path} float64 {}\n", format_float_g(*x))),
        other => out.push_str(&format!("{path} {} ?\n", other.type_name())),
    }
}

fn b64(s: &str) -> Vec<u8> {
    let val = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        _ => 63,
    };
    let mut out = Vec::new();
    for chunk in s.as_bytes().chunks(4) {
        let pad = chunk.iter().filter(|&&c| c == b'=').count();
        let mut n: u32 = 0;
        for &c in chunk {
            n = (n << 6) | if c == b'=' { 0 } else { val(c) as u32 };
        }
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..3 - pad]);
    }
    out
}

fn shared() -> Option<PathBuf> {
    if let Ok(p) = std::env::var("STACKPROOF_SHARED") {
        return Some(PathBuf::from(p));
    }
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared");
    p.exists().then_some(p)
}

fn yaml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            yaml_files(&p, out);
        } else if p
            .extension()
            .is_some_and(|x| x == "yaml" || x == "yml" || x == "tpl")
        {
            out.push(p);
        }
    }
}

#[test]
fn corpus_yaml_matches_helm() {
    let Some(shared) = shared() else {
        eprintln!("skipped: no shared data (set STACKPROOF_SHARED)");
        return;
    };
    let Ok(oracles) = std::env::var("STACKPROOF_ORACLES") else {
        eprintln!("skipped: STACKPROOF_ORACLES not set");
        return;
    };
    let mut files = Vec::new();
    yaml_files(&shared.join("corpus/charts"), &mut files);
    files.sort();
    let tmp = std::env::temp_dir().join(format!("stackproof-yaml-corpus-{}", std::process::id()));
    let mut checked = 0;
    let mut failures = Vec::new();
    for (b, batch) in files.chunks(400).enumerate() {
        let chart = tmp.join(format!("c{b}"));
        std::fs::create_dir_all(chart.join("templates")).expect("mkdir");
        std::fs::create_dir_all(chart.join("cases")).expect("mkdir");
        std::fs::write(
            chart.join("Chart.yaml"),
            "apiVersion: v2\nname: c\nversion: 0.1.0\n",
        )
        .expect("write");
        std::fs::write(chart.join("templates/_d.tpl"), DUMP).expect("write");
        std::fs::write(chart.join("templates/x.yaml"), TEMPLATE).expect("write");
        for (i, f) in batch.iter().enumerate() {
            std::fs::copy(f, chart.join(format!("cases/f{i:05}.yaml"))).expect("copy");
        }
        let out = Command::new(Path::new(&oracles).join("helm"))
            .arg("template")
            .arg(&chart)
            .env("HELM_CONFIG_HOME", tmp.join("hc"))
            .env("HELM_CACHE_HOME", tmp.join("hca"))
            .env("HELM_DATA_HOME", tmp.join("hd"))
            .output()
            .expect("run helm");
        assert!(
            out.status.success(),
            "helm failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            let Some(rest) = line.strip_prefix("# cases/f") else {
                continue;
            };
            let mut parts = rest.split(' ');
            let (Some(name), Some(d), Some(y)) = (parts.next(), parts.next(), parts.next()) else {
                continue;
            };
            let idx: usize = name.trim_end_matches(".yaml").parse().expect("index");
            let file = &batch[idx];
            let text = std::fs::read_to_string(file).expect("read");
            let v = f::helm_from_yaml(&[Value::from(text.as_str())]).expect("fromYaml");
            let mut ours = String::new();
            dump(&v, "$", &mut ours);
            let want = String::from_utf8_lossy(&b64(d)).into_owned();
            checked += 1;
            if ours != want {
                failures.push(format!(
                    "{}: fromYaml differs\nwant: {want:.300}\ngot:  {ours:.300}",
                    file.display()
                ));
                continue;
            }
            let ours_y = match f::helm_to_yaml(&[v]) {
                Ok(Value::String(s)) => s.to_string(),
                other => format!("{other:?}"),
            };
            let want_y = String::from_utf8_lossy(&b64(y)).into_owned();
            if ours_y != want_y {
                failures.push(format!("{}: toYaml differs", file.display()));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    eprintln!("compared {checked} corpus YAML files with helm");
    assert!(checked > 0, "no output parsed from helm");
    assert!(
        failures.is_empty(),
        "{} differences:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
