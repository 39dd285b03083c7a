//! The library behind `templiqx eval` (`docs/eval.md`).
//!
//! - [`record`]: one [`ExecutionRecord`] per execution of an eval fixture.
//! - [`stats`]: the [`RunStats`] of a run, from an [`Accumulator`] of its
//!   records; [`latency`]: the latency histogram and its percentiles.
//! - [`gate`]: the [`Gate`] that passes or fails a run.
//! - [`compare`](mod@compare): a run's [`Comparison`] with a baseline run.
//! - [`report`]: the self-contained HTML report; [`junit`]: the JUnit XML
//!   report.

pub mod compare;
pub mod gate;
pub mod history;
pub mod junit;
pub mod latency;
pub mod record;
pub mod report;
pub mod stats;

pub use compare::{Comparison, compare};
pub use gate::{Gate, GateScope, GateVerdict};
pub use record::{CheckVerdict, ExecutionRecord, RunInfo, Verdict};
pub use stats::{Accumulator, Rate, RunStats};
