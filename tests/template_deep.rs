//! Deep templates rendered by the `stackproof` binary itself, so on the process's
//! main thread, whose stack limit `template::stack` works out at start-up (unit tests
//! run on other threads): nesting far deeper than a first stack segment holds must
//! render, under a small, the usual and an unlimited `ulimit -s`, never overflow.
#![cfg(target_os = "linux")]

use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::Command;

/// A chart with one template nesting `if` blocks deeply, and an `include` recursing
/// 900 times (helm stops at 1000).
fn deep_chart(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("stackproof-deep-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("templates")).expect("create chart");
    std::fs::write(
        dir.join("Chart.yaml"),
        "apiVersion: v2\nname: deep\nversion: 0.1.0\n",
    )
    .expect("write Chart.yaml");
    let n = 20_000;
    let text = format!(
        "{{{{- define \"down\" }}}}{{{{ if gt . 0 }}}}{{{{ include \"down\" (sub . 1) }}}}{{{{ else }}}}bottom{{{{ end }}}}{{{{ end -}}}}\n\
         apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deep\ndata:\n  nested: {}x{}\n  included: {{{{ include \"down\" 900 }}}}\n",
        "{{ if 1 }}".repeat(n),
        "{{ end }}".repeat(n)
    );
    std::fs::write(dir.join("templates/cm.yaml"), text).expect("write template");
    dir
}

fn render_with_stack_limit(limit: libc::rlim_t, tag: &str) -> Option<String> {
    let chart = deep_chart(tag);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_stackproof"));
    cmd.arg("template").arg("rel").arg(&chart);
    // SAFETY: only setrlimit runs between fork and exec, which is async-signal-safe.
    unsafe {
        cmd.pre_exec(move || {
            let rl = libc::rlimit {
                rlim_cur: limit,
                rlim_max: limit,
            };
            if libc::setrlimit(libc::RLIMIT_STACK, &rl) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let out = cmd.output();
    let _ = std::fs::remove_dir_all(&chart);
    let out = match out {
        Ok(out) => out,
        Err(e) => {
            // Raising the hard limit (to unlimited) needs privileges this run may lack.
            println!("skipping stack limit {limit}: {e}");
            return None;
        }
    };
    assert!(
        out.status.success(),
        "stack limit {limit}: {:?}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    Some(String::from_utf8(out.stdout).expect("utf-8"))
}

#[test]
fn deep_nesting_renders_on_the_main_thread_whatever_the_stack_limit() {
    let want = "---\n# Source: deep/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\n\
                metadata:\n  name: deep\ndata:\n  nested: x\n  included: bottom\n";
    for (limit, tag) in [
        (1 << 20, "1m"),
        (8 << 20, "8m"),
        (libc::RLIM_INFINITY, "inf"),
    ] {
        if let Some(out) = render_with_stack_limit(limit, tag) {
            assert_eq!(out, want, "stack limit {tag}");
        }
    }
}
