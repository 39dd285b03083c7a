//! The eval-at-scale benchmark's package (`docs/benchmarks.md`, "Evals at
//! scale"): a labelling contract whose one eval entry reads a generated
//! JSONL dataset of any number of rows, each with its expected label
//! (`case`) and a `fake_output`, run on the zero-latency `fake` provider
//! with its history in a SQLite file.

use std::io::{self, BufWriter, Write};
use std::path::Path;
use templiqx_build::{CompiledContract, Loader};
use templiqx_contracts::CapabilityProfile;
use templiqx_eval::history::History;
use templiqx_eval::{Eval, EvalError, FakeAdapter, Outcome};

const MANIFEST: &str =
    "api_version: templiqx/v1alpha1\npackage: scale\nversion: 0.1.0\ncontracts: [label]\n";

const CONTRACT: &str = r#"api_version: templiqx/v1alpha1
id: label
version: 0.1.0
inputs:
  text: { schema: { type: string, minLength: 1 }, required: true }
capabilities: [structured_output]
messages:
  - role: system
    content:
      - { kind: text, value: "Label the sentiment of the review: positive, negative or neutral." }
  - role: user
    content:
      - { kind: interpolate, expression: { kind: ref, path: inputs.text } }
output_schema:
  type: object
  additionalProperties: false
  required: [label]
  properties:
    label: { type: string, enum: [positive, negative, neutral] }
evals:
  - id: labelled
    dataset: evals/labelled.jsonl
    case_schema:
      type: object
      additionalProperties: false
      required: [label]
      properties:
        label: { type: string, enum: [positive, negative, neutral] }
    expect:
      - id: right-label
        check: { kind: equals, left: { kind: ref, path: output.label }, right: { kind: ref, path: case.label } }
"#;

/// The target the package compiles for.
#[must_use]
pub fn target() -> CapabilityProfile {
    CapabilityProfile::parse_list("structured_output")
}

/// Writes the package into `dir` with a dataset of `rows` rows (about 150
/// bytes each), streamed to the file (never all in memory).
///
/// # Errors
/// The file system's.
pub fn write_package(dir: &Path, rows: usize) -> io::Result<()> {
    std::fs::create_dir_all(dir.join("contracts"))?;
    std::fs::create_dir_all(dir.join("evals"))?;
    std::fs::write(dir.join("templiqx.yaml"), MANIFEST)?;
    std::fs::write(dir.join("contracts/label.yaml"), CONTRACT)?;
    let mut out = BufWriter::new(std::fs::File::create(dir.join("evals/labelled.jsonl"))?);
    let labels = ["positive", "negative", "neutral"];
    for i in 1..=rows {
        let label = labels[i % 3];
        writeln!(
            out,
            r#"{{"id": "review-{i}", "inputs": {{"text": "Review {i}: the product was {label}, said customer {i}."}}, "case": {{"label": "{label}"}}, "fake_output": {{"label": "{label}"}}}}"#
        )?;
    }
    out.flush()
}

/// The package in `dir` compiled (every row read and checked once).
///
/// # Panics
/// When the package does not compile without errors.
#[must_use]
pub fn compile(dir: &Path) -> Vec<CompiledContract> {
    let contracts = Loader::new(dir)
        .compile_package(dir, &target())
        .expect("the manifest loads");
    for c in &contracts {
        let errors: Vec<_> = c.diagnostics.iter().filter(|d| d.is_error()).collect();
        assert!(errors.is_empty(), "{errors:?}");
    }
    contracts
}

/// `templiqx eval --provider fake --repeat REPEAT --concurrency CONCURRENCY
/// --db DB` over `contracts` (no history without `db`), keeping `samples`
/// failing and passing executions per fixture ([`Eval::samples`]), on a
/// current-thread Tokio runtime.
///
/// # Errors
/// The run's.
///
/// # Panics
/// When the history file cannot be opened or the runtime not built.
pub fn run(
    contracts: &[CompiledContract],
    db: Option<&Path>,
    repeat: u32,
    concurrency: usize,
    samples: usize,
) -> Result<Outcome, EvalError> {
    let adapter = FakeAdapter::new(contracts, target().iter());
    let mut history = db.map(|db| History::open(db).expect("the history opens"));
    let mut eval = Eval::new(contracts)
        .fake_outputs_only(true)
        .repeat(repeat)
        .concurrency(concurrency)
        .samples(samples);
    if let Some(history) = history.as_mut() {
        eval = eval.history(history);
    }
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime")
        .block_on(eval.run(&adapter))
}
