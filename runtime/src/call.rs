//! One typed call per contract: render the interaction from typed values,
//! execute it through an adapter, and decode the output into the generated
//! `Output` (`docs/runtime.md`, "Typed calls"). Generated modules wrap
//! these as `execute`, `execute_async`, `execute_streaming` and
//! `execute_streaming_async`; the functions here are generic over the
//! output type, so the generated ones stay one line each.
//!
//! Every failure keeps its `TQX_*` code ([`ExecuteError`]):
//!
//! | variant | codes | receipt |
//! |---|---|---|
//! | [`ExecuteError::Render`] | `TQX_VALUE_INVALID` (a missing, undeclared or invalid request value), `TQX_VALUE_MISSING`, `TQX_FILTER_INPUT`, `TQX_COMPONENT_ARGUMENT`, `TQX_RENDER_BUDGET` ([`RenderError`]) | none: nothing was sent |
//! | [`ExecuteError::Execution`] | `TQX_CAPABILITY_UNSUPPORTED` (nothing invoked), the adapter's `TQX_RUNTIME_TIMEOUT`, `TQX_RUNTIME_UNAVAILABLE`, `TQX_RUNTIME_RATE_LIMITED`, `TQX_RUNTIME_INVALID_RESPONSE`, `TQX_RUNTIME_PERMANENT` (after the port's retries), `TQX_OUTPUT_SCHEMA` (a schema-invalid output) ([`ExecutionError`]) | the failure receipt |
//! | [`ExecuteError::Decode`] | `TQX_OUTPUT_SCHEMA`: a schema-valid output the generated type cannot hold exactly (an integer beyond `i64` where the schema sets no bound) | the execution's success receipt |

use crate::adapter::{AsyncRuntimeAdapter, Execution, ExecutionError, RuntimeAdapter, Usage};
use crate::decode::{DecodeError, decode_output};
use crate::render::{RenderError, render};
use serde::de::DeserializeOwned;
use std::fmt;
use std::future::Future;
use templiqx_contracts::{
    Code, Diagnostic, Diagnostics, Interaction, ObjectView, Receipt, RenderedInteraction,
    StreamEvent,
};

/// A successful typed call: the decoded output with what the execution
/// reported.
#[derive(Clone, Debug, PartialEq)]
pub struct Executed<O> {
    /// The output, validated against `output_schema` and decoded into the
    /// generated `Output`.
    pub output: O,
    /// The rendered request that was sent (its messages, and
    /// `request.request_fingerprint()`, which the receipt covers).
    pub request: RenderedInteraction<'static>,
    /// `Receipt::Success` over the request and output fingerprints
    /// (`docs/runtime.md`, "Receipts").
    pub receipt: Receipt,
    /// Token usage of the successful attempt, when the adapter reports it.
    pub usage: Option<Usage>,
    /// Invocations made, including the successful one (≥ 1).
    pub attempts: u32,
}

/// A failed typed call, by the step that failed (small: the port's error is
/// boxed); each keeps its `TQX_*` codes ([`code`](ExecuteError::code),
/// [`diagnostics`](ExecuteError::diagnostics)). `Display` writes the
/// diagnostics in the project's layout (`error[TQX_…]: message`, then
/// `  = help: …`), as [`Diagnostics`] does.
#[derive(Clone, Debug, PartialEq)]
pub enum ExecuteError {
    /// The request did not render (nothing was sent): `TQX_VALUE_INVALID`
    /// for a missing, undeclared or invalid value (every problem at once,
    /// pointers `/inputs/…`, `/context/…`), or the first render problem:
    /// `TQX_VALUE_MISSING`, `TQX_FILTER_INPUT`, `TQX_COMPONENT_ARGUMENT`,
    /// `TQX_RENDER_BUDGET`.
    Render(RenderError),
    /// The port failed, with its failure receipt and attempts:
    /// `TQX_CAPABILITY_UNSUPPORTED` (the adapter lacks a required
    /// capability; nothing invoked), the adapter's `TQX_RUNTIME_*` failure
    /// (after the retries `runtime_policy.max_attempts` allows), or
    /// `TQX_OUTPUT_SCHEMA` for an output that violates `output_schema`.
    /// Boxed, so that the error stays small (clippy's `result_large_err`
    /// in hosts that call the generated functions).
    Execution(Box<ExecutionError>),
    /// The output is valid against `output_schema` but does not decode into
    /// the generated type (`TQX_OUTPUT_SCHEMA`: a value it cannot hold
    /// exactly, such as an integer beyond `i64` under a schema without
    /// bounds).
    Decode {
        /// The decoding problems, each with its pointer into the output.
        error: DecodeError,
        /// The execution: its output (as JSON), success receipt, usage and
        /// attempts.
        execution: Box<Execution>,
    },
}

impl ExecuteError {
    /// The failure's code: the first render diagnostic's, the port's
    /// failure code (`TQX_CAPABILITY_UNSUPPORTED`, `TQX_RUNTIME_*`,
    /// `TQX_OUTPUT_SCHEMA`), or `TQX_OUTPUT_SCHEMA` for a decode failure.
    pub fn code(&self) -> Code {
        match self {
            ExecuteError::Render(e) => e.diagnostics.first().map_or(Code::ValueInvalid, |d| d.code),
            ExecuteError::Execution(e) => e.failure.code,
            ExecuteError::Decode { .. } => Code::OutputSchema,
        }
    }

    /// Every diagnostic of the failure, in order (for `Execution`, the
    /// port's: the failure with its help, or one per schema violation).
    pub fn diagnostics(&self) -> &[Diagnostic] {
        match self {
            ExecuteError::Render(e) => &e.diagnostics,
            ExecuteError::Execution(e) => &e.diagnostics,
            ExecuteError::Decode { error, .. } => &error.diagnostics,
        }
    }

    /// Invocations made: 0 for a render failure (and for the capability
    /// gate's refusal), else the port's count, retries included.
    pub fn attempts(&self) -> u32 {
        match self {
            ExecuteError::Render(_) => 0,
            ExecuteError::Execution(e) => e.attempts,
            ExecuteError::Decode { execution, .. } => execution.attempts,
        }
    }

    /// The receipt of the execution: `None` for a render failure (nothing
    /// was executed), the failure receipt of an `Execution` failure, and
    /// the success receipt of a `Decode` failure (the port accepted the
    /// output).
    pub fn receipt(&self) -> Option<&Receipt> {
        match self {
            ExecuteError::Render(_) => None,
            ExecuteError::Execution(e) => Some(&e.receipt),
            ExecuteError::Decode { execution, .. } => Some(&execution.receipt),
        }
    }
}

impl From<RenderError> for ExecuteError {
    fn from(error: RenderError) -> ExecuteError {
        ExecuteError::Render(error)
    }
}

impl From<ExecutionError> for ExecuteError {
    fn from(error: ExecutionError) -> ExecuteError {
        ExecuteError::Execution(Box::new(error))
    }
}

impl fmt::Display for ExecuteError {
    /// The diagnostics as [`Diagnostics`] displays them; an `Execution`
    /// failure without diagnostics (a hand-made one) as its failure.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut diagnostics = Diagnostics::from(self.diagnostics().to_vec());
        if let (ExecuteError::Execution(e), true) = (self, diagnostics.is_empty()) {
            diagnostics.push(Diagnostic::error(e.failure.code, e.failure.detail.clone()));
        }
        fmt::Display::fmt(&diagnostics, f)
    }
}

/// `Display` carries every diagnostic, so no `source` is reported (it
/// would repeat them).
impl std::error::Error for ExecuteError {}

/// Renders `interaction` from `inputs` and `context`, executes it through
/// `adapter` ([`RuntimeAdapter::execute`]: capability gate, retries,
/// output validation, receipt), and decodes the output into `O` (a
/// generated `Output`). What a generated module's `execute` calls with its
/// `INTERACTION`; hand-built interactions use [`render()`],
/// [`RuntimeAdapter::execute`] and [`decode_output`].
///
/// # Errors
/// [`ExecuteError::Render`] (`TQX_VALUE_INVALID`, `TQX_VALUE_MISSING`,
/// `TQX_FILTER_INPUT`, `TQX_COMPONENT_ARGUMENT`, `TQX_RENDER_BUDGET`),
/// [`ExecuteError::Execution`] (`TQX_CAPABILITY_UNSUPPORTED`,
/// `TQX_RUNTIME_*`, `TQX_OUTPUT_SCHEMA`, with the failure receipt), or
/// [`ExecuteError::Decode`] (`TQX_OUTPUT_SCHEMA`).
pub fn execute<O, A>(
    adapter: &A,
    interaction: &'static Interaction,
    inputs: &dyn ObjectView,
    context: &dyn ObjectView,
) -> Result<Executed<O>, ExecuteError>
where
    O: DeserializeOwned,
    A: RuntimeAdapter + ?Sized,
{
    let request = render(interaction, inputs, context)?;
    let execution = adapter.execute(&request)?;
    decoded(request, execution)
}

/// [`execute`], streaming ([`RuntimeAdapter::execute_streaming`]): the
/// adapter's `Delta` and `ToolCallDelta` events go to `sink`, then the one
/// terminal event (`Complete` with the receipt, or `Failed`). A request
/// that does not render sends no event; an output that does not decode
/// follows its `Complete` event.
///
/// # Errors
/// As [`execute`].
pub fn execute_streaming<O, A>(
    adapter: &A,
    interaction: &'static Interaction,
    inputs: &dyn ObjectView,
    context: &dyn ObjectView,
    sink: &mut dyn FnMut(StreamEvent),
) -> Result<Executed<O>, ExecuteError>
where
    O: DeserializeOwned,
    A: RuntimeAdapter + ?Sized,
{
    let request = render(interaction, inputs, context)?;
    let execution = adapter.execute_streaming(&request, sink)?;
    decoded(request, execution)
}

/// [`execute`] through an [`AsyncRuntimeAdapter`]
/// ([`AsyncRuntimeAdapter::execute`], which may wait between attempts).
/// The request renders when the future is first polled; the future is
/// `Send` (so `inputs` and `context` are `Sync`, as generated types are).
///
/// # Errors
/// As [`execute`] (every text of an `Execution` failure redacted by the
/// adapter).
// The `Send` bound is the API: written out, a change that loses it fails
// here, not in a host.
#[allow(clippy::manual_async_fn)]
pub fn execute_async<O, A, I, C>(
    adapter: &A,
    interaction: &'static Interaction,
    inputs: &I,
    context: &C,
) -> impl Future<Output = Result<Executed<O>, ExecuteError>> + Send
where
    O: DeserializeOwned,
    A: AsyncRuntimeAdapter,
    I: ObjectView + Sync,
    C: ObjectView + Sync,
{
    async move {
        let request = render(interaction, inputs, context)?;
        let execution = adapter.execute(&request).await?;
        decoded(request, execution)
    }
}

/// [`execute_async`], streaming ([`AsyncRuntimeAdapter::execute_streaming`];
/// events as [`execute_streaming`] sends them).
///
/// # Errors
/// As [`execute_async`].
// The `Send` bound is the API: written out, a change that loses it fails
// here, not in a host.
#[allow(clippy::manual_async_fn)]
pub fn execute_streaming_async<O, A, I, C>(
    adapter: &A,
    interaction: &'static Interaction,
    inputs: &I,
    context: &C,
    sink: &mut (dyn FnMut(StreamEvent) + Send),
) -> impl Future<Output = Result<Executed<O>, ExecuteError>> + Send
where
    O: DeserializeOwned,
    A: AsyncRuntimeAdapter,
    I: ObjectView + Sync,
    C: ObjectView + Sync,
{
    async move {
        let request = render(interaction, inputs, context)?;
        let execution = adapter.execute_streaming(&request, sink).await?;
        decoded(request, execution)
    }
}

/// The last step: decode the validated output into `O`.
fn decoded<O: DeserializeOwned>(
    request: RenderedInteraction<'static>,
    execution: Execution,
) -> Result<Executed<O>, ExecuteError> {
    match decode_output::<O>(request.interaction, &execution.output) {
        Ok(output) => Ok(Executed {
            output,
            request,
            receipt: execution.receipt,
            usage: execution.usage,
            attempts: execution.attempts,
        }),
        Err(error) => Err(ExecuteError::Decode {
            error,
            execution: Box::new(execution),
        }),
    }
}

#[cfg(test)]
mod tests {
    /// Small enough for clippy's `result_large_err` (128 bytes) in hosts,
    /// which deny warnings without the workspace's allowance.
    #[test]
    fn the_error_stays_small() {
        assert!(std::mem::size_of::<super::ExecuteError>() <= 64);
    }
}
