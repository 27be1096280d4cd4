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

/// A chart-style values file: most lines are `##` documentation comments, values are
/// short plain scalars, small nested maps, empty `{}`/`[]` and a few quoted strings.
fn chart_values_text(sections: usize) -> String {
    const SECTION: &str = r#"## @section Component {i} parameters
## @param component{i}.enabled Whether to deploy component {i}
## @param component{i}.replicaCount Number of replicas to run
##
component{i}:
  enabled: true
  replicaCount: 1
  ## Container image settings
  ## ref: https://hub.example.com/r/team/component-{i}/tags
  ## @param component{i}.image.registry Image registry
  ## @param component{i}.image.repository Image repository
  ##
  image:
    registry: docker.io
    repository: team/component-{i}
    tag: 2.4.{i}-debian-12-r0
    digest: ""
    pullPolicy: IfNotPresent
    ## Optionally specify an array of imagePullSecrets.
    ## e.g:
    ## pullSecrets:
    ##   - myRegistryKeySecretName
    ##
    pullSecrets: []
  # -- Extra labels for all resources of this component
  podLabels: {}
  podAnnotations: {}
  containerPorts:
    http: 8080
    metrics: 9090
  ## Configure extra options for liveness probe
  livenessProbe:
    enabled: true
    initialDelaySeconds: 30
    periodSeconds: 10
    timeoutSeconds: 5
    failureThreshold: 6
    successThreshold: 1
  resources:
    limits: {}
    requests:
      cpu: 100m
      memory: 128Mi
  podSecurityContext:
    enabled: true
    fsGroup: 1001
  extraEnvVars:
    - name: LOG_LEVEL
      value: "info"
    - name: FEATURE_FLAGS
      value: 'a,b,c'
  service:
    type: ClusterIP # or LoadBalancer
    ports:
      http: 80
    annotations: {}
  # nodeSelector:
  #   kubernetes.io/os: linux
  nodeSelector: {}
  tolerations: []

"#;
    let mut s = String::from(
        "## Default values for a web application chart.\n## This is a YAML-formatted file.\n\n",
    );
    for i in 0..sections {
        s.push_str(&SECTION.replace("{i}", &i.to_string()));
    }
    s
}

/// One rendered manifest document, as `helm template` emits it.
fn manifest_text(i: usize) -> String {
    const DOC: &str = r#"# Source: app/templates/deployment.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: rel-app-{i}
  namespace: ns
  labels:
    helm.sh/chart: app-1.2.3
    app.kubernetes.io/name: app
    app.kubernetes.io/instance: rel
    app.kubernetes.io/version: "1.2.3"
    app.kubernetes.io/managed-by: Helm
  annotations:
    checksum/config: 3f5a9c0e1d2b4a6f8e7c9b0a1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e
spec:
  replicas: 2
  revisionHistoryLimit: 10
  selector:
    matchLabels:
      app.kubernetes.io/name: app
      app.kubernetes.io/instance: rel
  template:
    metadata:
      labels:
        app.kubernetes.io/name: app
        app.kubernetes.io/instance: rel
    spec:
      serviceAccountName: rel-app
      securityContext:
        fsGroup: 2000
      containers:
        - name: app
          securityContext:
            capabilities:
              drop:
              - ALL
            readOnlyRootFilesystem: true
            runAsNonRoot: true
            runAsUser: 1000
          image: "registry.example.com/team/app:1.2.3"
          imagePullPolicy: IfNotPresent
          args:
            - --port=8080
            - --log-level=info
          ports:
            - name: http
              containerPort: 8080
              protocol: TCP
          livenessProbe:
            httpGet:
              path: /healthz
              port: http
          readinessProbe:
            httpGet:
              path: /readyz
              port: http
          resources:
            limits:
              cpu: 500m
              memory: 256Mi
            requests:
              cpu: 100m
              memory: 128Mi
          env:
            - name: POD_NAME
              valueFrom:
                fieldRef:
                  fieldPath: metadata.name
          volumeMounts:
            - name: config
              mountPath: /etc/app
              readOnly: true
      volumes:
        - name: config
          configMap:
            name: rel-app-config
"#;
    DOC.replace("{i}", &i.to_string())
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
    // Many small decodes, as a chart render does them: each chart's values.yaml
    // (Helm mode) and every rendered manifest's head (yaml.v2 types, JSON keys).
    let chart_values = chart_values_text(40);
    let manifests: Vec<String> = (0..200).map(manifest_text).collect();
    // Enough repetitions per sample that one sample is a few hundred milliseconds.
    let values_runs = 100;
    let chart = median(
        || {
            for _ in 0..values_runs {
                let _ =
                    yaml::decode_uncached(&chart_values, &DecodeOptions::HELM_MAP).expect("decode");
            }
        },
        runs,
    ) / values_runs;
    let v2json = DecodeOptions {
        mode: yaml::Mode::V2JsonKeys,
        strict: false,
    };
    let manifest_rounds = 10;
    let manifest = median(
        || {
            for _ in 0..manifest_rounds {
                for m in &manifests {
                    let _ = yaml::decode_uncached(m, &v2json).expect("decode");
                }
            }
        },
        runs,
    ) / (manifest_rounds * manifests.len()) as u32;
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
    for (name, d, bytes) in [
        ("chart values.yaml (Helm), each", chart, chart_values.len()),
        (
            "manifest document (v2, JSON keys)",
            manifest,
            manifests[0].len(),
        ),
    ] {
        println!(
            "{name:34} {:>8.1} µs  {:>6.1} MB/s  ({} bytes)",
            d.as_secs_f64() * 1e6,
            bytes as f64 / 1e6 / d.as_secs_f64(),
            bytes
        );
    }
}
