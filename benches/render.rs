//! `cargo bench --bench render`: render a chart many times in one process and
//! print the time per render (load, values, parse, execution and output order,
//! everything `stackproof template` does but starting the process and printing).
//!
//! Why: timings of whole processes carry the machine's start-up noise (about a
//! millisecond, varying by a tenth of that), which hides changes of a few percent
//! to the renderer; a loop in one process measures the renderer alone and is what
//! a profiler should be pointed at. The chart is a fixture of the repository
//! unless `RENDER_BENCH_CHART=path/to/chart` names another; `RENDER_BENCH_RUNS` sets the
//! number of renders (default 300).

use std::path::PathBuf;
use std::time::Instant;

use stackproof::chart::render::{render_path, RenderOptions};
use stackproof::source::Vfs;

// The allocator the command uses: a render's time is much of it allocation.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let chart = std::env::var_os("RENDER_BENCH_CHART")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("charts-under-test/charts/multidoc")
        });
    let runs: usize = std::env::var("RENDER_BENCH_RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(300);
    let vfs = Vfs::default();
    let opts = RenderOptions {
        release_name: "rel".into(),
        namespace: "ns".into(),
        ..RenderOptions::default()
    };
    let mut times = Vec::with_capacity(runs);
    let mut bytes = 0;
    for _ in 0..runs {
        let start = Instant::now();
        match render_path(&chart, &opts, &vfs) {
            Ok(r) => match r.helm_output() {
                Ok(out) => bytes = std::hint::black_box(out).len(),
                Err(e) => {
                    eprintln!("render bench: {}: {e}", chart.display());
                    std::process::exit(2);
                }
            },
            Err(e) => {
                eprintln!("render bench: {}: {e}", chart.display());
                std::process::exit(2);
            }
        }
        times.push(start.elapsed());
    }
    times.sort();
    let median = times[times.len() / 2];
    let best = times[0];
    println!(
        "render {}: median {:.3} ms, best {:.3} ms over {runs} renders ({bytes} bytes of output)",
        chart.display(),
        median.as_secs_f64() * 1e3,
        best.as_secs_f64() * 1e3,
    );
}
