//! Why an eval run did not finish (`docs/eval.md`, "Gating and exit
//! status": each is a configuration error, exit status 2 for
//! `templiqx eval`). Diagnostics are in the project's layout
//! (`docs/diagnostics.md`).

use std::fmt;

use templiqx_contracts::{Diagnostic, Diagnostics};

/// Why a run did not finish.
#[derive(Debug)]
pub enum EvalError {
    /// Nothing was executed: the contracts cannot run as given — a
    /// contract id given twice (`TQX_PACKAGE`), a fixture whose values do
    /// not render (`TQX_VALUE_INVALID`, `TQX_VALUE_MISSING`, …). Every
    /// problem at once.
    Refused(Diagnostics),
    /// Nothing was executed: a filter glob matches no fixture, or no
    /// fixture is selected at all (`TQX_IO`).
    NoFixture(Diagnostic),
    /// Nothing was executed: the history refused to store the run
    /// (`TQX_IO`).
    History(Diagnostic),
    /// The history refused an execution part way (`TQX_IO`): executions
    /// were made, and the history keeps those up to its last commit.
    Stopped {
        /// The one `TQX_IO` error, saying how far the run got.
        diagnostic: Diagnostic,
        /// The run's id in the history.
        run_id: i64,
        /// Executions finished and stored before it stopped.
        done: usize,
        /// Executions of the run.
        total: usize,
    },
    /// The observer stopped the run
    /// ([`ControlFlow::Break`](std::ops::ControlFlow::Break)); the history
    /// keeps the executions stored so far, and the run stays unfinished.
    Cancelled {
        /// The run's id in the history, when it has one.
        run_id: Option<i64>,
        /// Executions finished before it stopped.
        done: usize,
        /// Executions of the run.
        total: usize,
    },
}

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EvalError::Refused(diagnostics) => write!(f, "{diagnostics}"),
            EvalError::NoFixture(diagnostic)
            | EvalError::History(diagnostic)
            | EvalError::Stopped { diagnostic, .. } => write!(f, "{diagnostic}"),
            EvalError::Cancelled { done, total, .. } => write!(
                f,
                "the eval run was cancelled after {done} of {total} executions"
            ),
        }
    }
}

impl std::error::Error for EvalError {}
