//! The small charts under `charts-under-test/`, rendered by the `stackproof template`
//! binary and compared with what the real helm v3.15.3 and v4.3.1 printed for the
//! same command (committed under `charts-under-test/expected/`, regenerated with
//! `scripts/regen-charts-under-test.sh`): stdout bytes, stderr text and exit code.
//! Needs nothing outside the repository. stackproof exits with 2 where Helm exits
//! with 1, and may add one location line under Helm's error text (see
//! `chart_support`); Helm's text itself must match byte for byte.

mod chart_support;

use std::path::Path;
use std::process::Command;

#[test]
fn charts_under_test_match_helm() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("charts-under-test");
    let cases = std::fs::read_to_string(root.join("cases.tsv")).expect("cases.tsv");
    let mut failures = Vec::new();
    let mut checked = 0;
    for line in cases
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let mut parts = line.splitn(3, '\t');
        let (Some(id), Some(chart)) = (parts.next(), parts.next()) else {
            continue;
        };
        let args: Vec<&str> = parts.next().unwrap_or("").split_whitespace().collect();
        for v in ["3", "4"] {
            let exp = |ext: &str| {
                std::fs::read(root.join("expected").join(format!("{id}.v{v}.{ext}")))
                    .unwrap_or_default()
            };
            let out = Command::new(env!("CARGO_BIN_EXE_stackproof"))
                .current_dir(&root)
                .args([
                    "template",
                    "rel",
                    chart,
                    "--namespace",
                    "ns",
                    "--helm-version",
                    v,
                ])
                .args(&args)
                .output()
                .expect("run stackproof");
            checked += 1;
            let want_rc: i32 = String::from_utf8_lossy(&exp("rc"))
                .trim()
                .parse()
                .unwrap_or(-1);
            let rc = out.status.code().unwrap_or(-2);
            let mut problems = Vec::new();
            if rc != chart_support::expected_exit(want_rc) {
                problems.push(format!("exit code {rc}, helm {want_rc}"));
            }
            if out.stdout != exp("out") {
                let d = similar::TextDiff::from_lines(
                    &*String::from_utf8_lossy(&exp("out")),
                    &*String::from_utf8_lossy(&out.stdout),
                )
                .unified_diff()
                .context_radius(1)
                .to_string();
                problems.push(format!(
                    "stdout differs:\n{}",
                    d.lines().take(20).collect::<Vec<_>>().join("\n")
                ));
            }
            let stderr = String::from_utf8_lossy(&out.stderr);
            let (helm_part, _note) = chart_support::split_location_note(&stderr);
            if helm_part.as_bytes() != exp("err").as_slice() {
                problems.push(format!(
                    "stderr differs:\n  helm: {:?}\n  ours: {:?}",
                    String::from_utf8_lossy(&exp("err")),
                    stderr
                ));
            }
            if !problems.is_empty() {
                failures.push(format!("{id} (v{v}): {}", problems.join("; ")));
            }
        }
    }
    for f in &failures {
        eprintln!("MISMATCH {f}");
    }
    eprintln!(
        "charts-under-test: {} / {checked} identical",
        checked - failures.len()
    );
    assert!(checked > 0, "no cases found");
    assert!(
        failures.is_empty(),
        "{} of {checked} renders differ from helm",
        failures.len()
    );
}
