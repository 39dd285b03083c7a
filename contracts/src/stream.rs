//! Events emitted by `RuntimeAdapter::execute_streaming`.

use crate::receipt::{Receipt, RuntimeFailure};
use serde::{Deserialize, Serialize};

/// One streaming event. A stream is zero or more `Delta`/`ToolCallDelta`
/// events followed by exactly one terminal `Complete` or `Failed`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum StreamEvent {
    /// A fragment of output text.
    Delta {
        /// The fragment.
        text: String,
    },
    /// A fragment of a tool call's arguments.
    ToolCallDelta {
        /// The tool call id.
        id: String,
        /// The tool name (on the first fragment of a call).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
        /// A fragment of the JSON arguments.
        arguments: String,
    },
    /// The execution succeeded; carries exactly the receipt `execute` returns.
    Complete {
        /// The receipt.
        receipt: Receipt,
    },
    /// The execution failed with a stable code; the error is returned after.
    Failed {
        /// The failure.
        failure: RuntimeFailure,
    },
}
