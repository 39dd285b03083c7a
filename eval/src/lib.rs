//! The library behind `templiqx eval` (`docs/eval.md`).
//!
//! - [`record`]: one [`ExecutionRecord`] per execution of an eval fixture.
//! - [`stats`]: the [`RunStats`] of a run, from an [`Accumulator`] of its
//!   records, and the [`Gate`] that passes or fails it.
//! - [`compare`](mod@compare): a run's [`Comparison`] with a baseline run.
//! - [`report`]: the self-contained HTML report; [`junit`]: the JUnit XML
//!   report.

pub mod compare;
pub mod history;
pub mod junit;
pub mod record;
pub mod report;
pub mod stats;

pub use compare::{Comparison, compare};
pub use record::{CheckVerdict, ExecutionRecord, RunInfo, Verdict};
pub use stats::{Accumulator, Gate, GateScope, GateVerdict, Rate, RunStats};
