//! A dataset entry's rows are a stream (`docs/eval.md`, "Datasets"): the
//! runner reads, renders and executes them as it goes, a bounded number
//! ahead of the executions, never all of them up front.

use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use templiqx::{AdapterDescriptor, AdapterOutput, AsyncRuntimeAdapter};
use templiqx_build::{CompiledContract, Loader};
use templiqx_contracts::{CapabilityProfile, Json, RenderedInteraction, RuntimeFailure};
use templiqx_eval::Eval;

use crate::common::block_on;

/// Rows in the dataset; each is about 1 KiB, so that the pipe's and the
/// reader's buffers hold only a few dozen of them.
const ROWS: usize = 1_000;

const CONTRACT: &str = r#"api_version: templiqx/v1alpha1
id: main
version: 0.1.0
inputs:
  text: { schema: { type: string, minLength: 1 }, required: true }
capabilities: [structured_output]
messages:
  - role: user
    content:
      - { kind: interpolate, expression: { kind: ref, path: inputs.text } }
output_schema:
  type: object
  additionalProperties: false
  required: [label]
  properties:
    label: { type: string }
evals:
  - id: rows
    dataset: evals/rows.jsonl
    expect:
      - id: labelled
        check: { kind: equals, left: { kind: ref, path: output.label }, right: { kind: literal, value: positive } }
"#;

fn row(i: usize) -> String {
    format!(
        "{{\"id\": \"r{i}\", \"inputs\": {{\"text\": \"row {i} {}\"}}}}\n",
        "x".repeat(1_000)
    )
}

/// A model answering `positive` that notes, at each call, how far the
/// writer of the data file is ahead of the calls made.
struct Probe {
    descriptor: AdapterDescriptor,
    /// Rows the writer has handed over.
    written: Arc<AtomicUsize>,
    calls: AtomicUsize,
    /// Rows written at the first call.
    first: Mutex<Option<usize>>,
    /// The most rows written by the second pass beyond the calls made.
    ahead: AtomicUsize,
}

impl AsyncRuntimeAdapter for Probe {
    fn descriptor(&self) -> &AdapterDescriptor {
        &self.descriptor
    }

    async fn invoke(
        &self,
        _request: &RenderedInteraction<'_>,
    ) -> Result<AdapterOutput, RuntimeFailure> {
        let calls = self.calls.fetch_add(1, Ordering::SeqCst) + 1;
        let run = self.written.load(Ordering::SeqCst);
        self.first.lock().unwrap().get_or_insert(run);
        self.ahead
            .fetch_max(run.saturating_sub(calls), Ordering::SeqCst);
        Ok(AdapterOutput {
            output: Json::from(serde_json::json!({ "label": "positive" })),
            usage: None,
        })
    }
}

/// Writes every row to the FIFO at `path`, counting them.
fn write_rows(path: &Path, written: &AtomicUsize) {
    // Blocks until a reader opens the FIFO.
    let mut fifo = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    for i in 1..=ROWS {
        fifo.write_all(row(i).as_bytes()).unwrap();
        written.fetch_add(1, Ordering::SeqCst);
    }
}

/// The package in a fresh directory with `rows` as its data file,
/// compiled without errors.
fn package(rows: &str) -> (tempfile::TempDir, Vec<CompiledContract>) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("contracts")).unwrap();
    std::fs::create_dir_all(root.join("evals")).unwrap();
    std::fs::write(
        root.join("templiqx.yaml"),
        "api_version: templiqx/v1alpha1\npackage: scratch\nversion: 0.1.0\ncontracts: [main]\n",
    )
    .unwrap();
    std::fs::write(root.join("contracts/main.yaml"), CONTRACT).unwrap();
    std::fs::write(root.join("evals/rows.jsonl"), rows).unwrap();
    let contracts = Loader::new(root).compile_package(root, &target()).unwrap();
    let errors: Vec<_> = contracts[0]
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    (dir, contracts)
}

fn target() -> CapabilityProfile {
    CapabilityProfile::parse_list("structured_output")
}

#[cfg(unix)]
#[test]
fn dataset_rows_are_read_as_the_executions_go_not_all_up_front() {
    let all: String = (1..=ROWS).map(row).collect();
    let (dir, contracts) = package(&all);
    let data = dir.path().join("evals/rows.jsonl");
    let target = target();
    // Selecting reads every row once (to check, name and render it) ...
    let mut eval = Eval::new(&contracts).concurrency(8);
    assert_eq!(eval.select().unwrap().len(), ROWS);

    // ... and the run reads them again, from here a FIFO fed by a writer
    // that counts the rows it has handed over.
    std::fs::remove_file(&data).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(&data)
        .status()
        .unwrap();
    assert!(made.success());
    let written = Arc::new(AtomicUsize::new(0));
    let writer = {
        let (data, written) = (data.clone(), Arc::clone(&written));
        std::thread::spawn(move || write_rows(&data, &written))
    };

    let probe = Probe {
        descriptor: AdapterDescriptor::new("probe", target.iter()),
        written: Arc::clone(&written),
        calls: AtomicUsize::new(0),
        first: Mutex::new(None),
        ahead: AtomicUsize::new(0),
    };
    let outcome = block_on(eval.run(&probe)).unwrap();
    assert_eq!(outcome.stats.overall.summary.executions, ROWS as u64);
    assert_eq!(outcome.stats.overall.summary.pass_rate.passed, ROWS as u64);
    assert_eq!(probe.calls.load(Ordering::SeqCst), ROWS);

    // The run read the rows itself, and made its first call with few of
    // them read.
    let run = probe.first.lock().unwrap().unwrap();
    assert!(
        (1..ROWS / 4).contains(&run),
        "{run} rows read at the first call"
    );
    // Never more rows read than the calls made plus what the executions in
    // flight (8), the pipe (64 KiB) and the reader's buffer hold.
    let ahead = probe.ahead.load(Ordering::SeqCst);
    assert!(ahead < ROWS / 4, "{ahead} rows read ahead of the calls");
    writer.join().unwrap();
}

#[test]
fn a_row_that_no_longer_reads_during_the_run_is_not_run_and_the_run_is_an_error() {
    let rows: String = (1..=3).map(row).collect();
    let (dir, contracts) = package(&rows);
    let mut eval = Eval::new(&contracts);
    assert_eq!(eval.select().unwrap().len(), 3);
    // The file changes between the selection and the run: row 2 loses
    // its required input.
    let changed = format!("{}{{\"id\": \"r2\", \"inputs\": {{}}}}\n{}", row(1), row(3));
    std::fs::write(dir.path().join("evals/rows.jsonl"), changed).unwrap();
    let outcome = block_on(eval.run(&crate::common::Always::new(
        serde_json::json!({ "label": "positive" }),
    )))
    .unwrap();
    assert_eq!(outcome.stats.overall.summary.executions, 2);
    // The run did not measure the compiled rows: the gate fails (no gate
    // was set), and its one diagnostic is the `TQX_IO` error.
    assert!(!outcome.gate.passed);
    assert_eq!(outcome.gate.failures.len(), 1);
    let [d] = &outcome.diagnostics[..] else {
        panic!("{:?}", outcome.diagnostics)
    };
    assert_eq!(d.code.as_str(), "TQX_IO");
    assert!(
        d.message.starts_with(
            "`evals/rows.jsonl` changed during the run: 2 of the 3 dataset row(s) selected were read again and run"
        ),
        "{}",
        d.message
    );
    assert!(
        d.notes[0].starts_with("1 row(s) read again no longer read or fit; the first: "),
        "{:?}",
        d.notes
    );
    assert!(outcome.notes.contains(&d.message));
}

/// A file cut short, or rewritten with other rows of the same length,
/// reads without a problem: the run still says that it did not run the
/// compiled rows, by their count or by the file's SHA-256.
#[test]
fn a_data_file_cut_short_or_rewritten_during_the_run_is_an_error() {
    let rows: String = (1..=3).map(row).collect();
    for changed in [
        format!("{}{}", row(1), row(2)),
        rows.replace("\"r2\"", "\"r9\""),
    ] {
        let (dir, contracts) = package(&rows);
        let mut history = templiqx_eval::history::History::in_memory().unwrap();
        let mut eval = Eval::new(&contracts).history(&mut history);
        assert_eq!(eval.select().unwrap().len(), 3);
        std::fs::write(dir.path().join("evals/rows.jsonl"), &changed).unwrap();
        let outcome = block_on(eval.run(&crate::common::Always::new(
            serde_json::json!({ "label": "positive" }),
        )))
        .unwrap();
        // Incomplete: kept as interrupted, so never `--baseline last`.
        assert!(!outcome.gate.passed);
        assert!(outcome.run.interrupted_at.is_some());
        let stored = history.run("last").unwrap().unwrap();
        assert!(stored.finished_at.is_none(), "{changed}");
        let codes: Vec<&str> = outcome
            .diagnostics
            .iter()
            .map(|d| d.code.as_str())
            .collect();
        assert_eq!(codes, ["TQX_IO"], "{changed}");
        assert!(
            outcome.diagnostics[0]
                .message
                .starts_with("`evals/rows.jsonl` changed during the run"),
            "{}",
            outcome.diagnostics[0].message
        );
    }
    // Unchanged, the run says nothing of the kind.
    let (_dir, contracts) = package(&rows);
    let outcome = block_on(Eval::new(&contracts).run(&crate::common::Always::new(
        serde_json::json!({ "label": "positive" }),
    )))
    .unwrap();
    assert!(outcome.diagnostics.is_empty(), "{:?}", outcome.diagnostics);
}

/// The entry's name selects all its rows, as a row's own name selects it
/// (`docs/eval.md`, "Datasets").
#[test]
fn the_entry_name_selects_its_rows() {
    let rows: String = (1..=3).map(row).collect();
    let (_dir, contracts) = package(&rows);
    for (globs, count) in [
        (&["main::rows"][..], 3),
        (&["main::rows#*"], 3),
        (&["main::rows#r2"], 1),
        // Each glob must match a fixture: a row's beside its entry's does.
        (&["main::rows", "main::rows#r2"], 3),
    ] {
        let glob = globs.join(" ");
        let filter = templiqx_eval::FixtureFilter::new(globs.iter().copied()).unwrap();
        let mut eval = Eval::new(&contracts).filter(filter);
        assert_eq!(eval.select().unwrap().len(), count, "{glob}");
        let outcome = block_on(eval.run(&crate::common::Always::new(
            serde_json::json!({ "label": "positive" }),
        )))
        .unwrap();
        assert_eq!(outcome.stats.overall.summary.executions, count as u64);
    }
}

/// Rows without a `fake_output` under `--provider fake` are skipped as one
/// line per entry, not one per row.
#[test]
fn rows_without_a_fake_output_are_skipped_as_one_entry() {
    let rows: String = (1..=3).map(row).collect();
    let (_dir, contracts) = package(&rows);
    let mut eval = Eval::new(&contracts).fake_outputs_only(true);
    let Err(templiqx_eval::EvalError::NoFixture(d)) = eval.select() else {
        panic!("every row lacks a fake_output")
    };
    assert_eq!(
        d.message,
        "every fixture selected lacks a fake_output, which --provider fake answers with (main::rows#* (3 dataset row(s)))"
    );
    assert!(
        d.help.as_deref().unwrap().contains("`fake_output`"),
        "{d:?}"
    );
}

/// A row that fits the contract's types but does not render (here over the
/// 4 MiB render budget, `docs/format.md`, "Render budgets") stops the run
/// before anything executes, and the diagnostic names the row and its line.
#[test]
fn a_row_that_does_not_render_is_named() {
    let big = format!(
        "{{\"id\": \"huge\", \"inputs\": {{\"text\": \"{}\"}}}}\n",
        "x".repeat(4_200_000)
    );
    let rows = format!("{}{big}", row(1));
    let (_dir, contracts) = package(&rows);
    let mut eval = Eval::new(&contracts);
    let Err(templiqx_eval::EvalError::Refused(ds)) = eval.select() else {
        panic!("the row does not render")
    };
    let d = ds.iter().next().unwrap();
    assert_eq!(d.code.as_str(), "TQX_RENDER_BUDGET");
    assert!(
        d.notes
            .iter()
            .any(|n| n == "rendering row `huge` (line 2) of `evals/rows.jsonl`"),
        "{d:?}"
    );
}
