//! Peak memory of a dataset eval (`docs/benchmarks.md`, "Evals at scale"):
//! `cargo run --release -p templiqx-bench --example eval_scale_memory --
//! compile|eval ROWS` writes the bench package with a dataset of ROWS rows
//! (streamed to disk), then compiles it (`compile`), or compiles it and
//! runs it on the `fake` provider at `--concurrency 64` with its history
//! in a SQLite file (`eval`), and prints the process's peak resident set
//! (`VmHWM` of `/proc/self/status`, Linux) before and after, with the
//! phase's wall time. `NO_HISTORY=1` runs without a history, `SAMPLES=N`
//! keeps N samples per fixture (default 3, as `templiqx eval`), `REPEAT=N`
//! runs each row N times (default 1).

use std::time::Instant;
use templiqx_bench::eval_scale;

/// `VmHWM` in KiB (0 where `/proc` has none).
fn peak_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let phase = args.next().unwrap_or_else(|| "eval".to_owned());
    let rows: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(10_000);
    let dir = tempfile::tempdir().expect("a temporary directory");
    eval_scale::write_package(dir.path(), rows).expect("the package is written");
    let bytes = std::fs::metadata(dir.path().join("evals/labelled.jsonl")).map_or(0, |m| m.len());
    let before = peak_kib();
    let started = Instant::now();
    let contracts = eval_scale::compile(dir.path());
    let compiled = started.elapsed();
    let mut executions = 0;
    if phase == "eval" {
        let db = dir.path().join("history.db");
        let db = std::env::var_os("NO_HISTORY")
            .is_none()
            .then_some(db.as_path());
        let samples = std::env::var("SAMPLES")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(templiqx_eval::DEFAULT_SAMPLES);
        let repeat = std::env::var("REPEAT")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(1);
        let outcome =
            eval_scale::run(&contracts, db, repeat, 64, samples).expect("the run finishes");
        executions = outcome.stats.overall.summary.executions;
        assert_eq!(outcome.stats.overall.summary.pass_rate.passed, executions);
    }
    let whole = started.elapsed();
    println!(
        "{phase} rows={rows} dataset_bytes={bytes} executions={executions} compile_s={:.2} total_s={:.2} peak_before_mib={:.1} peak_after_mib={:.1}",
        compiled.as_secs_f64(),
        whole.as_secs_f64(),
        before as f64 / 1024.0,
        peak_kib() as f64 / 1024.0
    );
}
