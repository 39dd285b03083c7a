//! The eval runner behind `templiqx eval`, as a library (`docs/eval.md`):
//! the eval fixtures of compiled contracts executed through any
//! [`templiqx::AsyncRuntimeAdapter`], repeatedly, each output validated and
//! its `expect` checks evaluated; statistics with confidence intervals, a
//! comparison with a baseline, a gate, the SQLite history and reports.
//!
//! ```
//! use std::error::Error;
//! use templiqx_build::{CompiledContract, compile_str};
//! use templiqx_contracts::CapabilityProfile;
//! use templiqx_eval::history::History;
//! use templiqx_eval::{Eval, FakeAdapter, Gate};
//!
//! const GREETING: &str = r#"
//! api_version: templiqx/v1alpha1
//! id: greeting
//! version: 0.1.0
//! inputs:
//!   name: { schema: { type: string, minLength: 1 }, required: true }
//! capabilities: [structured_output]
//! messages:
//!   - role: user
//!     content:
//!       - { kind: text, value: "Greet " }
//!       - { kind: interpolate, expression: { kind: ref, path: inputs.name } }
//! output_schema:
//!   type: object
//!   additionalProperties: false
//!   required: [greeting]
//!   properties:
//!     greeting: { type: string, minLength: 1 }
//! evals:
//!   - id: ada
//!     inputs: { name: Ada }
//!     fake_output: { greeting: "Hello Ada!" }
//!     expect:
//!       - id: names-ada
//!         check: { kind: contains, container: { kind: ref, path: output.greeting }, item: { kind: ref, path: inputs.name } }
//! "#;
//!
//! fn main() -> Result<(), Box<dyn Error>> {
//!     // Contracts compiled by any means: a `Loader` over a package, a
//!     // build script, or one text.
//!     let target = CapabilityProfile::new(["structured_output"]);
//!     let compiled = compile_str(GREETING, "greeting.yaml", &target);
//!     let contracts = [CompiledContract {
//!         id: "greeting".into(),
//!         file: "greeting.yaml".into(),
//!         contract: compiled.contract,
//!         interaction: compiled.interaction,
//!         diagnostics: compiled.diagnostics,
//!     }];
//!
//!     // Any AsyncRuntimeAdapter: templiqx-openai's, templiqx-anthropic's,
//!     // your own. This one answers each fixture with its fake_output.
//!     let adapter = FakeAdapter::new(&contracts, target.iter());
//!     let mut history = History::in_memory()?; // or History::open(path)
//!     let eval = Eval::new(&contracts)
//!         .fake_outputs_only(true)
//!         .repeat(3)
//!         .concurrency(2)
//!         .history(&mut history)
//!         .gate(Gate { min_pass_rate: Some(0.9), ..Gate::default() });
//!     let runtime = tokio::runtime::Builder::new_current_thread()
//!         .enable_all()
//!         .build()?;
//!     let outcome = runtime.block_on(eval.run(&adapter))?;
//!
//!     let ada = outcome.stats.fixture("greeting", "ada").unwrap();
//!     assert_eq!(ada.summary.executions, 3);
//!     assert_eq!(ada.summary.pass_rate.passed, 3);
//!     assert_eq!(ada.summary.distinct_outputs, 1);
//!     assert!(outcome.gate.passed);
//!     assert_eq!(outcome.run.id, Some(1));
//!     Ok(())
//! }
//! ```
//!
//! - [`Eval`] ([`run`](mod@run)): the runner, in the builder idiom; its
//!   [`Outcome`] holds the statistics, the comparison and the gate's
//!   verdict. [`select`]: which fixtures ([`FixtureFilter`]); `execution`:
//!   what one execution leaves. [`FakeAdapter`]: the
//!   `fake` provider; [`EvalError`]: why a run did not finish.
//!   [`judge`]: the judges of model-graded checks, executed after each
//!   execution through a [`judge::JudgeAdapter`] ([`Eval::judge`]).
//! - [`record`]: one [`ExecutionRecord`] per execution of an eval fixture;
//!   [`Endpoint`]: the model a run measures.
//! - [`stats`]: the [`RunStats`] of a run, from an [`Accumulator`] of its
//!   records; [`latency`]: the latency histogram and its percentiles.
//! - [`gate`]: the [`Gate`] that passes or fails a run.
//! - [`cost`]: the price table ([`Prices`]) that prices each execution,
//!   and the costs added up ([`CostTotals`]).
//! - [`baseline`]: the [`Baseline`] a run is compared with;
//!   [`compare`](mod@compare): the [`Comparison`].
//! - [`show`]: a stored run read back from the history;
//!   [`explain`]: a failure's evidence in words;
//!   [`history`]: the SQLite history; [`report`]: the self-contained HTML
//!   report; [`junit`]: the JUnit XML report.

pub mod baseline;
pub mod compare;
pub mod cost;
pub mod error;
mod execution;
pub mod explain;
pub mod fake;
pub mod gate;
pub mod history;
pub mod judge;
pub mod junit;
pub mod latency;
mod queue;
pub mod record;
pub mod report;
pub mod run;
mod samples;
pub mod select;
pub mod show;
pub mod stats;

pub use baseline::Baseline;
pub use compare::{Comparison, compare};
pub use cost::{CostTotals, Prices};
pub use error::EvalError;
pub use fake::FakeAdapter;
pub use gate::{Gate, GateScope, GateVerdict};
pub use record::{
    CheckVerdict, Endpoint, Evidence, ExecutionRecord, JudgeVerdict, ObservedValue, RunInfo,
    Variant, Verdict, Violation,
};
pub use run::{
    DEFAULT_GRACE, DEFAULT_SAMPLES, Eval, Interrupted, Outcome, OverBudget, Progress,
    VariantOutcome,
};
pub use select::{FixtureFilter, Selection};
pub use stats::{Accumulator, Rate, RunStats};
