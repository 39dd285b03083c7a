//! Evals at scale (`docs/benchmarks.md`, "Evals at scale"): a dataset of
//! 10,000 rows × 1 repeat compiled, run on the zero-latency `fake`
//! provider at concurrency 64 and stored in a SQLite history file, end to
//! end. Peak memory is measured per process by the `eval_scale_memory`
//! example (a process's peak cannot be told apart between iterations).

use criterion::{Criterion, criterion_group, criterion_main};
use std::time::Duration;
use templiqx_bench::eval_scale;

const ROWS: usize = 10_000;

fn eval_scale(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    eval_scale::write_package(dir.path(), ROWS).expect("the package is written");
    let mut group = c.benchmark_group("eval_scale");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    group.bench_function("compile_run_history_10k_rows", |b| {
        b.iter(|| {
            // A fresh history file each time: the run writes 10,000
            // executions, not appends to the last iteration's.
            let db = tempfile::NamedTempFile::new_in(dir.path()).expect("a history file");
            let contracts = eval_scale::compile(dir.path());
            let outcome =
                eval_scale::run(&contracts, Some(db.path()), 1, 64, 3).expect("the run finishes");
            assert_eq!(outcome.stats.overall.summary.executions, ROWS as u64);
            outcome.run.id
        });
    });
    group.bench_function("compile_10k_rows", |b| {
        b.iter(|| eval_scale::compile(dir.path()).len());
    });
    group.finish();
}

criterion_group!(benches, eval_scale);
criterion_main!(benches);
