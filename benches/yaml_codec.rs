//! Throughput of the YAML codec on a large synthetic values file (run with
//! `cargo bench --bench yaml_codec`). Prints the median over several runs of the
//! thread's CPU time (from /proc/thread-self/schedstat where available, else wall
//! time), so a busy machine distorts the figures less.

use std::time::{Duration, Instant};

use stackproof::funcs::codec::yaml::{self, DecodeOptions};

fn values_text(services: usize) -> String {
    let mut s = String::new();
    for i in 0..services {
        s.push_str(&format!(
            "service{i}:\n  enabled: yes\n  replicas: {i}\n  image:\n    repository: registry.example.com/team/app-{i}\n    tag: \"1.{i}.0\"\n  resources:\n    limits: {{cpu: 500m, memory: 512Mi}}\n  env:\n    - name: LOG_LEVEL\n      value: info\n    - name: RATIO\n      value: 0.{i}\n  annotations: &a{i}\n    description: >-\n      A long folded description for service {i} that goes on for a while so\n      that the encoder has to fold it again at eighty columns.\n  extra:\n    <<: *a{i}\n    note: 'it''s #{i}'\n"
        ));
    }
    s
}

/// CPU time consumed by this thread so far.
fn cpu_time() -> Option<Duration> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = s.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(ns))
}

fn median(mut f: impl FnMut(), runs: usize) -> Duration {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let (t, c) = (Instant::now(), cpu_time());
            f();
            match (c, cpu_time()) {
                (Some(a), Some(b)) => b - a,
                _ => t.elapsed(),
            }
        })
        .collect();
    times.sort();
    times[runs / 2]
}

fn main() {
    let text = values_text(2000);
    let mb = text.len() as f64 / 1e6;
    let runs = 7;
    let parse = median(
        || {
            let _ = yaml::parse_documents(&text).expect("parse");
        },
        runs,
    );
    let helm = median(
        || {
            let _ = yaml::decode_uncached(&text, &DecodeOptions::HELM_MAP).expect("decode");
        },
        runs,
    );
    let hf = median(
        || {
            let _ = yaml::decode_uncached(&text, &DecodeOptions::HELMFILE_MAP).expect("decode");
        },
        runs,
    );
    let value = yaml::decode(&text, &DecodeOptions::HELM_MAP).expect("decode");
    let to_yaml = median(
        || {
            let _ = yaml::helm_to_yaml(&value).expect("encode");
        },
        runs,
    );
    let v2 = median(
        || {
            let _ = yaml::encode_v2(&value).expect("encode");
        },
        runs,
    );
    println!("input: {mb:.2} MB ({} lines)", text.lines().count());
    for (name, d) in [
        ("parse to node trees", parse),
        ("decode (Helm: sigs.k8s.io/yaml)", helm),
        ("decode (Helmfile: yaml.v2 map)", hf),
        ("encode (Helm toYaml, via JSON)", to_yaml),
        ("encode (yaml.v2 Marshal)", v2),
    ] {
        println!(
            "{name:34} {:>8.1} ms  {:>6.1} MB/s",
            d.as_secs_f64() * 1e3,
            mb / d.as_secs_f64()
        );
    }
}
