//! The runtime adapter port: how a rendered interaction reaches a model
//! (`docs/runtime.md`, "Adapter port"), in a blocking ([`RuntimeAdapter`]) and
//! an async ([`AsyncRuntimeAdapter`]) flavour with identical semantics.
//!
//! An adapter implements only the provider call (`invoke`, optionally
//! `invoke_streaming`); the port's provided `execute` methods add what every
//! adapter must do the same way:
//!
//! 1. the **capability gate**: an interaction whose
//!    `required_capabilities` are not all in the adapter's descriptor fails
//!    with `TQX_CAPABILITY_UNSUPPORTED` before anything is invoked, so an
//!    adapter cannot bypass the gate (`docs/format.md`, "Capabilities and
//!    the target profile", "Extensions");
//! 2. the invocation, retried immediately on `TQX_RUNTIME_TIMEOUT` and
//!    `TQX_RUNTIME_UNAVAILABLE` up to `runtime_policy.max_attempts`
//!    (default 1: no retry);
//! 3. **output validation** against `output_schema` (`TQX_OUTPUT_SCHEMA`),
//!    after **output recovery** when the adapter opts in
//!    ([`RuntimeAdapter::output_recovery`]; [`crate::recover`]);
//! 4. the payload-free **receipt**, exactly per `docs/runtime.md`, "Receipts".
//!
//! The sync and async traits share steps 1, 3 and 4 and the retry rule;
//! only the awaiting differs.

// `ExecutionError` carries a receipt and diagnostics by value, as the port
// defines it; it is returned once per provider call, never on a hot path.
#![allow(clippy::result_large_err)]

use crate::fallback::Route;
use crate::output::validate_output;
use crate::recover::OutputRecovery;
use crate::trace;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::future::Future;
use std::time::{Duration, Instant};
use templiqx_contracts::canonical::{fingerprint, to_canonical_string};
use templiqx_contracts::{
    AsValue, Code, Diagnostic, Interaction, Json, Receipt, RenderedInteraction, RuntimeFailure,
    StreamEvent,
};
use tracing::Instrument;

/// What an adapter is and what it can do.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AdapterDescriptor {
    /// A stable adapter name (`"openai"`, `"scripted"`), for messages.
    pub name: String,
    /// The capabilities the adapter provides, sorted and unique (as
    /// [`AdapterDescriptor::new`] makes them).
    pub capabilities: Vec<String>,
}

impl AdapterDescriptor {
    /// A descriptor with `capabilities` sorted and deduplicated.
    pub fn new<I, S>(name: impl Into<String>, capabilities: I) -> AdapterDescriptor
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut capabilities: Vec<String> = capabilities.into_iter().map(Into::into).collect();
        capabilities.sort();
        capabilities.dedup();
        AdapterDescriptor {
            name: name.into(),
            capabilities,
        }
    }

    /// Whether the adapter provides `capability`.
    pub fn supports(&self, capability: &str) -> bool {
        self.capabilities.iter().any(|c| c == capability)
    }
}

/// Token usage reported by a provider, in tokens as the provider counts
/// them (`docs/adapters.md`, "Reading the answer").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Prompt tokens: every input token the provider processed, those it
    /// read from its prompt cache included (for Anthropic, whose
    /// `input_tokens` leaves cache reads and writes out, the adapter adds
    /// them back).
    pub input_tokens: u64,
    /// Completion tokens.
    pub output_tokens: u64,
    /// Of [`Usage::input_tokens`], those the provider read from its prompt
    /// cache (priced apart by `templiqx eval --prices`, `docs/eval.md`,
    /// "Cost"): OpenAI's `usage.prompt_tokens_details.cached_tokens`,
    /// Anthropic's `usage.cache_read_input_tokens`. 0 when the provider
    /// reports none (no cache hit, or a server without a prompt cache);
    /// never more than `input_tokens` from the bundled adapters.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cached_input_tokens: u64,
}

/// Whether `n` is 0 (serde: a usage without cached tokens serializes as
/// before they were counted).
fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// What one successful invocation returned.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AdapterOutput {
    /// The structured output, not yet validated.
    pub output: Json,
    /// Token usage, when the provider reports it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
}

/// A successful execution: a schema-valid output and its success receipt.
#[derive(Clone, Debug, PartialEq)]
pub struct Execution {
    /// The output; valid against the interaction's `output_schema`.
    pub output: Json,
    /// `Receipt::Success` over the request and output fingerprints.
    pub receipt: Receipt,
    /// Token usage of the successful attempt, when reported.
    pub usage: Option<Usage>,
    /// Invocations made, including the successful one (≥ 1); through a
    /// combinator ([`crate::fallback`]), those of every member it called.
    pub attempts: u32,
    /// Which adapter answered and every attempt of a combinator
    /// ([`crate::fallback::Fallback`]): `None` for an execution on one
    /// adapter (`docs/runtime.md`, "Receipts", "Routes").
    pub route: Option<Route>,
}

/// A failed execution.
#[derive(Clone, Debug, PartialEq)]
pub struct ExecutionError {
    /// The failure: the adapter's (`TQX_RUNTIME_*`), or the port's own
    /// (`TQX_CAPABILITY_UNSUPPORTED`, `TQX_OUTPUT_SCHEMA`).
    pub failure: RuntimeFailure,
    /// The failure receipt (`docs/runtime.md`, "Receipts"):
    /// `failure.receipt()`, except for `TQX_OUTPUT_SCHEMA`, whose receipt is
    /// the normalised one whose `failure_fingerprint` is the output
    /// fingerprint.
    pub receipt: Receipt,
    /// What went wrong, with pointers into the output for
    /// `TQX_OUTPUT_SCHEMA`.
    pub diagnostics: Vec<Diagnostic>,
    /// Invocations made by this `execute` call, including the failed one
    /// (0 when the capability gate refused before invoking).
    pub attempts: u32,
    /// The output the model gave, so a host can show what the model said:
    /// for `TQX_OUTPUT_SCHEMA` the schema-invalid output (a reply that was
    /// not JSON is its text, as a JSON string); for a runtime failure the
    /// text the model wrote before it, when the adapter had it
    /// ([`RuntimeFailure::output`]: an output cut off at the token limit),
    /// as a JSON string. `None` otherwise.
    pub output: Option<Json>,
    /// Every attempt of a combinator ([`crate::fallback::Fallback`]), the
    /// failed one last: `None` for an execution on one adapter
    /// (`docs/runtime.md`, "Receipts", "Routes").
    pub route: Option<Route>,
    /// Token usage of the failed attempt, when the provider reported it:
    /// for `TQX_OUTPUT_SCHEMA`, the answer the model gave (and the
    /// provider billed) though it violates the schema. `None` for a
    /// runtime failure (`TQX_RUNTIME_*`: the adapters read usage only from
    /// an answer) and for the capability gate (nothing was sent).
    pub usage: Option<Usage>,
}

impl ExecutionError {
    /// The error with `redact` applied to every text it carries: the
    /// failure's detail, help and provider message, each diagnostic's
    /// message, pointer, help and notes (what the port quotes from an
    /// output or a failure detail), and every string and member name of
    /// `output`. Receipts hold only
    /// fingerprints and stable ids, and are kept.
    #[must_use]
    pub fn redacted(mut self, redact: &dyn Fn(&str) -> String) -> ExecutionError {
        self.failure.detail = redact(&self.failure.detail);
        self.failure.help = self.failure.help.as_deref().map(redact);
        self.failure.provider_message = self.failure.provider_message.as_deref().map(redact);
        for d in &mut self.diagnostics {
            d.message = redact(&d.message);
            d.json_pointer = d.json_pointer.as_deref().map(redact);
            d.help = d.help.as_deref().map(redact);
            for note in &mut d.notes {
                *note = redact(note);
            }
        }
        self.output = self.output.map(|o| redact_json(o, redact));
        self
    }
}

/// `value` with `redact` applied to every string and member name.
fn redact_json(value: Json, redact: &dyn Fn(&str) -> String) -> Json {
    match value {
        Json::String(s) => Json::String(redact(&s)),
        Json::Array(items) => {
            Json::Array(items.into_iter().map(|v| redact_json(v, redact)).collect())
        }
        Json::Object(members) => Json::Object(
            members
                .into_iter()
                .map(|(k, v)| (redact(&k), redact_json(v, redact)))
                .collect(),
        ),
        other => other,
    }
}

impl fmt::Display for ExecutionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "execution failed: {}", self.failure)
    }
}

impl std::error::Error for ExecutionError {}

/// The `id` of the failure the capability gate reports.
pub const CAPABILITY_GATE_ID: &str = "templiqx.capability_gate";

/// The `id` of the failure for a schema-invalid output.
pub const OUTPUT_SCHEMA_ID: &str = "templiqx.output_schema";

/// A blocking runtime adapter.
///
/// Implement [`descriptor`](RuntimeAdapter::descriptor) and
/// [`invoke`](RuntimeAdapter::invoke) (and
/// [`invoke_streaming`](RuntimeAdapter::invoke_streaming) for a real
/// stream); call [`execute`](RuntimeAdapter::execute) or
/// [`execute_streaming`](RuntimeAdapter::execute_streaming), which gate,
/// validate and build receipts (see the [module docs](self)). Do not
/// override the `execute` methods: their semantics are the port's contract.
///
/// An invocation fails with a [`RuntimeFailure`] carrying one of these codes
/// (`docs/diagnostics.md`, the `TQX_RUNTIME_*` sections):
///
/// | code | meaning | retried by `execute` |
/// |---|---|---|
/// | `TQX_RUNTIME_TIMEOUT` | the attempt passed its overall deadline (`runtime_policy.timeout_ms`, when the adapter honours it), or a stream went silent for the adapter's idle timeout; the id and detail say which | yes |
/// | `TQX_RUNTIME_UNAVAILABLE` | the provider could not be reached or is overloaded | yes |
/// | `TQX_RUNTIME_RATE_LIMITED` | the provider refused for rate; `retry_after_ms` says when to come back, so the host decides | no |
/// | `TQX_RUNTIME_INVALID_RESPONSE` | the provider answered with something that is not a usable output (not JSON, truncated, a refusal) | no |
/// | `TQX_RUNTIME_PERMANENT` | the request cannot succeed as sent (rejected, unauthorised, content policy); retrying will not help | no |
///
/// The `id` of a failure names the failing step stably (it enters the
/// failure fingerprint); `detail` is free text and enters no fingerprint.
pub trait RuntimeAdapter: Send + Sync {
    /// The adapter's name and capabilities.
    fn descriptor(&self) -> &AdapterDescriptor;

    /// Sends the rendered interaction to the model once and returns its
    /// output, unvalidated.
    ///
    /// # Errors
    ///
    /// A [`RuntimeFailure`] with a `TQX_RUNTIME_*` code (see the trait docs).
    fn invoke(&self, request: &RenderedInteraction<'_>) -> Result<AdapterOutput, RuntimeFailure>;

    /// Like [`invoke`](RuntimeAdapter::invoke), reporting output fragments to
    /// `sink` as `Delta`/`ToolCallDelta` events as they arrive. Terminal
    /// events sent here are ignored by `execute_streaming`, which emits the
    /// one terminal event itself.
    ///
    /// The default invokes, then sends the output's canonical JSON as one
    /// `Delta`.
    ///
    /// # Errors
    ///
    /// As [`invoke`](RuntimeAdapter::invoke).
    fn invoke_streaming(
        &self,
        request: &RenderedInteraction<'_>,
        sink: &mut dyn FnMut(StreamEvent),
    ) -> Result<AdapterOutput, RuntimeFailure> {
        let output = self.invoke(request)?;
        sink(whole_output_delta(&output));
        Ok(output)
    }

    /// Whether `execute` recovers an output whose text does not parse or
    /// validate as written (the JSON in a Markdown fence or in prose,
    /// trailing commas or quotes fixed), with a `TQX_OUTPUT_RECOVERED`
    /// warning (`docs/runtime.md`, "Output recovery"; [`crate::recover`]).
    /// The default, [`OutputRecovery::Off`], takes the output as the model
    /// gave it.
    fn output_recovery(&self) -> OutputRecovery {
        OutputRecovery::Off
    }

    /// Executes the interaction: capability gate, invocation (with retries
    /// per `runtime_policy.max_attempts`), output validation, receipt.
    ///
    /// # Errors
    ///
    /// `TQX_CAPABILITY_UNSUPPORTED` (nothing invoked), the last
    /// `TQX_RUNTIME_*` failure, or `TQX_OUTPUT_SCHEMA` for a schema-invalid
    /// output; each with its failure receipt.
    fn execute(&self, request: &RenderedInteraction<'_>) -> Result<Execution, ExecutionError> {
        let span = trace::execution_span(self.descriptor(), request);
        let _entered = span.enter();
        let outcome = capability_gate(self.descriptor(), request.interaction).and_then(|()| {
            let mut attempts = Attempts::new(request.interaction);
            let result = loop {
                attempts.begin();
                let result = self.invoke(request);
                if !attempts.retry_traced(&result, false) {
                    break result;
                }
            };
            conclude(request, result, attempts.made, self.output_recovery())
        });
        trace::finish(&span, &outcome);
        outcome
    }

    /// [`execute`](RuntimeAdapter::execute), streaming: forwards the
    /// adapter's `Delta` and `ToolCallDelta` events to `sink` (dropping any
    /// terminal event the adapter emits), then emits exactly one terminal
    /// event: `Complete` with the receipt that is returned, or `Failed`
    /// with the failure, before the error is returned. A failed attempt is
    /// retried only if it forwarded nothing.
    ///
    /// # Errors
    ///
    /// As [`execute`](RuntimeAdapter::execute).
    fn execute_streaming(
        &self,
        request: &RenderedInteraction<'_>,
        sink: &mut dyn FnMut(StreamEvent),
    ) -> Result<Execution, ExecutionError> {
        let span = trace::execution_span(self.descriptor(), request);
        let _entered = span.enter();
        let outcome = capability_gate(self.descriptor(), request.interaction).and_then(|()| {
            let mut attempts = Attempts::new(request.interaction);
            let result = loop {
                attempts.begin();
                let mut forward = Forward::new(&mut *sink);
                let result = self.invoke_streaming(request, &mut |event| forward.event(event));
                if !attempts.retry_traced(&result, forward.forwarded) {
                    break result;
                }
            };
            conclude(request, result, attempts.made, self.output_recovery())
        });
        trace::finish(&span, &outcome);
        terminal(outcome, sink)
    }
}

/// The async counterpart of [`RuntimeAdapter`], with the same provided
/// semantics (gate, retries, validation, receipts, stream events) and the
/// same failure codes; every future is `Send`.
///
/// Uses native `async fn` in traits: implement
/// `async fn invoke(&self, request: &RenderedInteraction<'_>) -> Result<..>`
/// (its future must be `Send`).
pub trait AsyncRuntimeAdapter: Send + Sync {
    /// The adapter's name and capabilities.
    fn descriptor(&self) -> &AdapterDescriptor;

    /// Sends the rendered interaction to the model once and returns its
    /// output, unvalidated.
    ///
    /// # Errors
    ///
    /// A [`RuntimeFailure`] with a `TQX_RUNTIME_*` code (see
    /// [`RuntimeAdapter`]).
    fn invoke(
        &self,
        request: &RenderedInteraction<'_>,
    ) -> impl Future<Output = Result<AdapterOutput, RuntimeFailure>> + Send;

    /// Removes the adapter's secrets (API keys, credentials) from `text`:
    /// `execute` and `execute_streaming` pass every text of an
    /// [`ExecutionError`] through it ([`ExecutionError::redacted`]), since
    /// its diagnostics quote what the server sent back — an output that
    /// echoes a key included. The default returns `text` unchanged (an
    /// adapter without secrets).
    fn redact(&self, text: &str) -> String {
        text.to_owned()
    }

    /// As [`RuntimeAdapter::output_recovery`]: off by default.
    fn output_recovery(&self) -> OutputRecovery {
        OutputRecovery::Off
    }

    /// Like [`invoke`](AsyncRuntimeAdapter::invoke), reporting fragments to
    /// `sink`; the default invokes, then sends the output's canonical JSON
    /// as one `Delta`.
    ///
    /// # Errors
    ///
    /// As [`invoke`](AsyncRuntimeAdapter::invoke).
    fn invoke_streaming(
        &self,
        request: &RenderedInteraction<'_>,
        sink: &mut (dyn FnMut(StreamEvent) + Send),
    ) -> impl Future<Output = Result<AdapterOutput, RuntimeFailure>> + Send {
        async move {
            let output = self.invoke(request).await?;
            sink(whole_output_delta(&output));
            Ok(output)
        }
    }

    /// Decides, after attempt number `attempts_made` (1-based) failed with
    /// `failure`, whether `execute` invokes again; an async adapter may wait
    /// here (backoff, `Retry-After`) before answering `true`.
    ///
    /// Called only when `runtime_policy.max_attempts` allows another attempt
    /// and, when streaming, the failed attempt forwarded nothing. The
    /// default is the blocking port's rule: retry `TQX_RUNTIME_TIMEOUT` and
    /// `TQX_RUNTIME_UNAVAILABLE` at once, nothing else (see
    /// `docs/runtime.md`, "Adapter port"). It is never asked about a
    /// failure whose code is not one of the five `TQX_RUNTIME_*` codes.
    fn before_retry(
        &self,
        request: &RenderedInteraction<'_>,
        failure: &RuntimeFailure,
        attempts_made: u32,
    ) -> impl Future<Output = bool> + Send {
        let _ = (request, attempts_made);
        std::future::ready(is_transient(failure))
    }

    /// As [`RuntimeAdapter::execute`], except that between attempts it asks
    /// [`before_retry`](AsyncRuntimeAdapter::before_retry), which may wait
    /// and may also retry `TQX_RUNTIME_RATE_LIMITED`.
    ///
    /// # Errors
    ///
    /// As [`RuntimeAdapter::execute`].
    fn execute(
        &self,
        request: &RenderedInteraction<'_>,
    ) -> impl Future<Output = Result<Execution, ExecutionError>> + Send {
        traced(self, request, move |mut attempts| async move {
            let result = loop {
                attempts.begin();
                let result = self.invoke(request).await;
                if !retry_async(self, request, &attempts, &result, false).await {
                    break result;
                }
            };
            (result, attempts.made)
        })
    }

    /// As [`RuntimeAdapter::execute_streaming`].
    ///
    /// # Errors
    ///
    /// As [`RuntimeAdapter::execute`].
    fn execute_streaming(
        &self,
        request: &RenderedInteraction<'_>,
        sink: &mut (dyn FnMut(StreamEvent) + Send),
    ) -> impl Future<Output = Result<Execution, ExecutionError>> + Send {
        async move {
            // Reborrowed for the attempts, so the terminal event can follow.
            let attempt_sink = &mut *sink;
            let outcome = traced(self, request, |mut attempts| async move {
                let result = loop {
                    attempts.begin();
                    let mut forward = Forward::new(&mut *attempt_sink);
                    let result = self
                        .invoke_streaming(request, &mut |event| forward.event(event))
                        .await;
                    let forwarded = forward.forwarded;
                    if !retry_async(self, request, &attempts, &result, forwarded).await {
                        break result;
                    }
                };
                (result, attempts.made)
            })
            .await;
            terminal(outcome, sink)
        }
    }
}

/// An async execution around its attempt loop: the trace span (opened when
/// the execution starts, its first poll, not when the future is made), the
/// capability gate, then `attempts` (which returns the last attempt's
/// result and the attempts made), validation and the receipt, every text of
/// an error redacted by the adapter.
async fn traced<A, F, Fut>(
    adapter: &A,
    request: &RenderedInteraction<'_>,
    attempts: F,
) -> Result<Execution, ExecutionError>
where
    A: AsyncRuntimeAdapter + ?Sized,
    F: FnOnce(Attempts) -> Fut,
    Fut: Future<Output = (Result<AdapterOutput, RuntimeFailure>, u32)>,
{
    let span = trace::execution_span(adapter.descriptor(), request);
    let recorded = span.clone();
    async move {
        let outcome = match capability_gate(adapter.descriptor(), request.interaction) {
            Err(error) => Err(error),
            Ok(()) => {
                let (result, made) = attempts(Attempts::new(request.interaction)).await;
                conclude(request, result, made, adapter.output_recovery())
                    .map_err(|e| e.redacted(&|t| adapter.redact(t)))
            }
        };
        trace::finish(&recorded, &outcome);
        outcome
    }
    .instrument(span)
    .await
}

/// Step 2 of the async port, after an attempt: whether to invoke again
/// (`max_attempts` allows it, nothing was forwarded, and the adapter's
/// [`before_retry`](AsyncRuntimeAdapter::before_retry) says yes, having
/// waited as it chose). Emits the attempt's trace event with that wait.
async fn retry_async<A: AsyncRuntimeAdapter + ?Sized>(
    adapter: &A,
    request: &RenderedInteraction<'_>,
    attempts: &Attempts,
    result: &Result<AdapterOutput, RuntimeFailure>,
    forwarded: bool,
) -> bool {
    let wait = match result {
        Err(failure) if attempts.remain(forwarded, failure) => {
            let started = Instant::now();
            let retry = adapter.before_retry(request, failure, attempts.made).await;
            retry.then(|| started.elapsed())
        }
        _ => None,
    };
    trace::attempt(attempts.made, result, wait);
    wait.is_some()
}

/// The default streaming of a whole output: its canonical JSON as one delta.
fn whole_output_delta(output: &AdapterOutput) -> StreamEvent {
    StreamEvent::Delta {
        text: to_canonical_string(&output.output),
    }
}

/// The capabilities of `interaction` that `descriptor` does not provide, in
/// the interaction's order (the capability gate's test).
pub(crate) fn missing_capabilities<'i>(
    descriptor: &AdapterDescriptor,
    interaction: &'i Interaction,
) -> Vec<&'i str> {
    interaction
        .required_capabilities
        .iter()
        .map(|c| &**c)
        .filter(|c| !descriptor.supports(c))
        .collect()
}

/// Step 1: every required capability must be provided.
fn capability_gate(
    descriptor: &AdapterDescriptor,
    interaction: &Interaction,
) -> Result<(), ExecutionError> {
    let missing = missing_capabilities(descriptor, interaction);
    if missing.is_empty() {
        return Ok(());
    }
    let detail = format!(
        "adapter `{}` does not provide the required capabilities {}",
        descriptor.name,
        missing
            .iter()
            .map(|c| format!("`{c}`"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let failure = RuntimeFailure::new(Code::CapabilityUnsupported, CAPABILITY_GATE_ID, &detail);
    Err(ExecutionError {
        receipt: failure.receipt(),
        diagnostics: vec![
            Diagnostic::error(Code::CapabilityUnsupported, detail).help(
                "run the interaction on an adapter whose descriptor lists these capabilities",
            ),
        ],
        failure,
        attempts: 0,
        output: None,
        route: None,
        usage: None,
    })
}

/// Steps 3 and 4: validate the output (recovering it first when
/// `recovery` is on and it does not validate as given: [`crate::recover`])
/// and build the receipt (`docs/runtime.md`, "Receipts"); a runtime
/// failure becomes its own receipt.
fn conclude(
    request: &RenderedInteraction<'_>,
    result: Result<AdapterOutput, RuntimeFailure>,
    attempts: u32,
    recovery: OutputRecovery,
) -> Result<Execution, ExecutionError> {
    let AdapterOutput { output, usage } = match result {
        Ok(output) => output,
        Err(mut failure) => {
            let diagnostic = Diagnostic::error(failure.code, failure.detail.clone())
                .note(format!("failing step: `{}`", failure.id))
                .help(failure_help(&failure));
            // What the model wrote before the failure travels as the
            // error's output, where `redacted` reaches it.
            let output = failure.output.take().map(Json::String);
            return Err(ExecutionError {
                receipt: failure.receipt(),
                diagnostics: vec![diagnostic],
                failure,
                attempts,
                output,
                route: None,
                usage: None,
            });
        }
    };
    let AdapterOutput { output, usage } = match crate::recover::conclude_recovered(
        request,
        AdapterOutput { output, usage },
        attempts,
        recovery,
    ) {
        Ok(recovered) => return recovered,
        Err(output) => output,
    };
    let output_fingerprint = fingerprint(&output);
    conclude_output(
        request.interaction,
        AdapterOutput { output, usage },
        attempts,
        &output_fingerprint,
        || request.request_fingerprint(),
    )
}

/// Steps 3 and 4 for an output in hand: validates `output` against the
/// interaction's `output_schema` and builds the receipt (`docs/runtime.md`,
/// "Receipts").
///
/// For adapters that already know the fingerprints: `output_fingerprint` is
/// the fingerprint of `output.output` (RFC 8785 + SHA-256), and
/// `request_fingerprint` is called only for a valid output, whose success
/// receipt covers it (a schema-invalid output's failure receipt does not).
/// A conformance server that reports a transport request fingerprint passes
/// it here instead of the rendered interaction's.
///
/// # Errors
/// `TQX_OUTPUT_SCHEMA` (failure id [`OUTPUT_SCHEMA_ID`]) with one diagnostic
/// per violation when the output violates the schema; its receipt is the
/// normalised failure receipt whose failure fingerprint is the output's.
pub fn conclude_output(
    interaction: &Interaction,
    output: AdapterOutput,
    attempts: u32,
    output_fingerprint: &str,
    request_fingerprint: impl FnOnce() -> String,
) -> Result<Execution, ExecutionError> {
    let AdapterOutput { output, usage } = output;
    match validate_output(interaction, output.as_value()) {
        Ok(()) => Ok(Execution {
            receipt: Receipt::for_output(&request_fingerprint(), output_fingerprint, true),
            output,
            usage,
            attempts,
            route: None,
        }),
        Err(diagnostics) => {
            let failure = RuntimeFailure::new(
                Code::OutputSchema,
                OUTPUT_SCHEMA_ID,
                format!(
                    "the output violates the output schema ({} violation{})",
                    diagnostics.len(),
                    if diagnostics.len() == 1 { "" } else { "s" }
                ),
            );
            Err(ExecutionError {
                failure,
                receipt: Receipt::for_output("", output_fingerprint, false),
                diagnostics,
                attempts,
                output: Some(output),
                route: None,
                usage,
            })
        }
    }
}

/// What a host can do about a runtime failure: the adapter's own
/// [`RuntimeFailure::help`] when it gave one (it knows what was sent and
/// what the server said), else the advice for the code.
fn failure_help(failure: &RuntimeFailure) -> String {
    if let Some(help) = &failure.help {
        return help.clone();
    }
    if let Some(ms) = failure.retry_after_ms
        && matches!(
            failure.code,
            Code::RuntimeTimeout | Code::RuntimeUnavailable | Code::RuntimeRateLimited
        )
    {
        return format!("retry after {ms} ms");
    }
    match failure.code {
        Code::RuntimeTimeout => {
            "retry, or allow more time (`runtime_policy.timeout_ms`, `max_attempts`)".into()
        }
        Code::RuntimeRateLimited => "retry later, with backoff".into(),
        Code::RuntimeUnavailable => "retry later, or use another adapter".into(),
        Code::RuntimeInvalidResponse => {
            "the model's answer was unusable; retry, or tighten the prompt".into()
        }
        Code::RuntimePermanent => "the request cannot succeed as sent; do not retry it".into(),
        _ => "see the adapter's documentation for this failure".into(),
    }
}

/// Emits the one terminal stream event for `outcome` and passes it on.
fn terminal<S: FnMut(StreamEvent) + ?Sized>(
    outcome: Result<Execution, ExecutionError>,
    sink: &mut S,
) -> Result<Execution, ExecutionError> {
    sink(match &outcome {
        Ok(execution) => StreamEvent::Complete {
            receipt: execution.receipt.clone(),
        },
        Err(error) => StreamEvent::Failed {
            failure: error.failure.clone(),
        },
    });
    outcome
}

/// Counts invocations and decides on retries (step 2).
struct Attempts {
    made: u32,
    max: u32,
}

impl Attempts {
    fn new(interaction: &Interaction) -> Attempts {
        Attempts {
            made: 0,
            max: interaction.runtime_policy.max_attempts.unwrap_or(1).max(1),
        }
    }

    fn begin(&mut self) {
        self.made += 1;
    }

    /// Whether to invoke again after an attempt's `result` (the blocking
    /// port): only after a transient failure, only within `max_attempts`,
    /// and never after output was streamed (a consumer would see it twice).
    /// Emits the attempt's trace event.
    fn retry_traced(
        &self,
        result: &Result<AdapterOutput, RuntimeFailure>,
        forwarded: bool,
    ) -> bool {
        let retry = matches!(result, Err(failure)
            if self.remain(forwarded, failure) && is_transient(failure));
        trace::attempt(self.made, result, retry.then_some(Duration::ZERO));
        retry
    }

    /// Whether another attempt may be asked for: `max_attempts` allows one,
    /// the failed attempt forwarded nothing, and the failure is one of the
    /// adapter's `TQX_RUNTIME_*` codes (never the port's own).
    fn remain(&self, forwarded: bool, failure: &RuntimeFailure) -> bool {
        self.made < self.max
            && !forwarded
            && matches!(
                failure.code,
                Code::RuntimeTimeout
                    | Code::RuntimeUnavailable
                    | Code::RuntimeRateLimited
                    | Code::RuntimeInvalidResponse
                    | Code::RuntimePermanent
            )
    }
}

/// The failures the port retries by default: `TQX_RUNTIME_TIMEOUT` and
/// `TQX_RUNTIME_UNAVAILABLE`.
fn is_transient(failure: &RuntimeFailure) -> bool {
    matches!(
        failure.code,
        Code::RuntimeTimeout | Code::RuntimeUnavailable
    )
}

/// Forwards an adapter's non-terminal events.
struct Forward<'s, S: FnMut(StreamEvent) + ?Sized> {
    sink: &'s mut S,
    forwarded: bool,
}

impl<'s, S: FnMut(StreamEvent) + ?Sized> Forward<'s, S> {
    fn new(sink: &'s mut S) -> Self {
        Forward {
            sink,
            forwarded: false,
        }
    }

    fn event(&mut self, event: StreamEvent) {
        match event {
            StreamEvent::Delta { .. } | StreamEvent::ToolCallDelta { .. } => {
                self.forwarded = true;
                (self.sink)(event);
            }
            StreamEvent::Complete { .. } | StreamEvent::Failed { .. } => {}
        }
    }
}
