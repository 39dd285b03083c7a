//! Traces of executions: one [`tracing`] span per `execute` /
//! `execute_streaming` call, following the OpenTelemetry semantic
//! conventions for generative AI client spans (`docs/runtime.md`,
//! "Traces"), and one event per attempt.
//!
//! The port opens the span ([`FIELDS`] lists every field it declares) and
//! records what it knows — the contract, the fingerprints, the sampling
//! parameters of `runtime_policy`, usage, the outcome. An adapter records
//! what only it knows from inside its invocation, through
//! [`record_request_model`] and [`record_response`], which write to the
//! current span (the port's, since the port enters it around every
//! invocation).
//!
//! Never recorded: API keys (the port never sees them; adapters record
//! only the fields above), and prompt or output text unless the host opts
//! in with [`set_capture_content`].
//!
//! Without a `tracing` subscriber interested in the target `templiqx`, the
//! span is disabled and nothing is computed for it (fingerprints included).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use templiqx_contracts::canonical::{fingerprint, to_canonical_string};
use templiqx_contracts::{RenderedInteraction, RuntimeFailure};
use tracing::Span;
use tracing::field::Empty;

use crate::adapter::{AdapterDescriptor, AdapterOutput, Execution, ExecutionError};

/// The target of the span and of the attempt events (`RUST_LOG=templiqx=info`
/// shows them).
pub const TARGET: &str = "templiqx";

/// The span's name; exporters that honour `otel.name` show
/// `chat {gen_ai.request.model}` instead, as the conventions ask.
pub const SPAN_NAME: &str = "chat";

/// Every field of the execution span, in the order declared. `gen_ai.*`,
/// `server.*`, `error.type` and `otel.*` are the OpenTelemetry names
/// (`otel.*` are `tracing-opentelemetry`'s span name, kind and status);
/// `templiqx.*` are ours.
pub const FIELDS: &[&str] = &[
    "otel.name",
    "otel.kind",
    "otel.status_code",
    "gen_ai.operation.name",
    "gen_ai.provider.name",
    "gen_ai.system",
    "gen_ai.request.model",
    "gen_ai.request.temperature",
    "gen_ai.request.top_p",
    "gen_ai.request.max_tokens",
    "gen_ai.response.model",
    "gen_ai.response.id",
    "gen_ai.response.finish_reasons",
    "gen_ai.usage.input_tokens",
    "gen_ai.usage.output_tokens",
    "gen_ai.input.messages",
    "gen_ai.output.messages",
    "error.type",
    "templiqx.contract.id",
    "templiqx.contract.version",
    "templiqx.fingerprint.contract",
    "templiqx.fingerprint.interaction",
    "templiqx.fingerprint.request",
    "templiqx.fingerprint.output",
    "templiqx.attempts",
    "templiqx.receipt",
];

static CAPTURE_CONTENT: AtomicBool = AtomicBool::new(false);

/// Whether spans carry the rendered messages (`gen_ai.input.messages`) and
/// the output (`gen_ai.output.messages`). Off by default: prompts and
/// outputs often hold personal data. A host turns it on for the whole
/// process, typically when `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`
/// is `true` (the variable OpenTelemetry's GenAI instrumentations read; the
/// runtime reads no environment itself).
pub fn set_capture_content(on: bool) {
    CAPTURE_CONTENT.store(on, Ordering::Relaxed);
}

/// Whether content capture is on ([`set_capture_content`]).
pub fn capture_content() -> bool {
    CAPTURE_CONTENT.load(Ordering::Relaxed)
}

/// Records `gen_ai.request.model` (and `otel.name`, `chat {model}`) on the
/// current execution span; called by an adapter from inside an invocation.
/// A no-op outside one.
pub fn record_request_model(model: &str) {
    let span = Span::current();
    span.record("gen_ai.request.model", model);
    span.record("otel.name", format!("{SPAN_NAME} {model}"));
}

/// What a provider said about its answer, recorded on the current
/// execution span by an adapter: `gen_ai.response.finish_reasons` (as a
/// JSON array of strings, since a `tracing` field holds no list),
/// `gen_ai.response.model`, `gen_ai.response.id`. A no-op outside an
/// invocation.
pub fn record_response(finish_reasons: &[String], model: Option<&str>, id: Option<&str>) {
    let span = Span::current();
    if !finish_reasons.is_empty() {
        span.record(
            "gen_ai.response.finish_reasons",
            serde_json::to_string(finish_reasons).unwrap_or_default(),
        );
    }
    if let Some(model) = model {
        span.record("gen_ai.response.model", model);
    }
    if let Some(id) = id {
        span.record("gen_ai.response.id", id);
    }
}

/// The span of one execution, opened by the port.
pub(crate) fn execution_span(
    descriptor: &AdapterDescriptor,
    request: &RenderedInteraction<'_>,
) -> Span {
    let interaction = request.interaction;
    let policy = &interaction.runtime_policy;
    let span = tracing::info_span!(
        target: TARGET,
        SPAN_NAME,
        "otel.name" = SPAN_NAME,
        "otel.kind" = "client",
        "otel.status_code" = Empty,
        "gen_ai.operation.name" = "chat",
        "gen_ai.provider.name" = descriptor.name.as_str(),
        "gen_ai.system" = descriptor.name.as_str(),
        "gen_ai.request.model" = Empty,
        "gen_ai.request.temperature" = policy.temperature,
        "gen_ai.request.top_p" = policy.top_p,
        "gen_ai.request.max_tokens" = policy.max_output_tokens,
        "gen_ai.response.model" = Empty,
        "gen_ai.response.id" = Empty,
        "gen_ai.response.finish_reasons" = Empty,
        "gen_ai.usage.input_tokens" = Empty,
        "gen_ai.usage.output_tokens" = Empty,
        "gen_ai.input.messages" = Empty,
        "gen_ai.output.messages" = Empty,
        "error.type" = Empty,
        "templiqx.contract.id" = &*interaction.contract_id,
        "templiqx.contract.version" = &*interaction.contract_version,
        "templiqx.fingerprint.contract" = &*interaction.contract_fingerprint,
        "templiqx.fingerprint.interaction" = &*interaction.interaction_fingerprint,
        "templiqx.fingerprint.request" = Empty,
        "templiqx.fingerprint.output" = Empty,
        "templiqx.attempts" = Empty,
        "templiqx.receipt" = Empty,
    );
    if !span.is_disabled() {
        span.record(
            "templiqx.fingerprint.request",
            request.request_fingerprint(),
        );
        if capture_content() {
            let messages: Vec<serde_json::Value> = request
                .messages
                .iter()
                .map(|m| serde_json::json!({ "role": m.role.as_str(), "content": m.content }))
                .collect();
            span.record(
                "gen_ai.input.messages",
                serde_json::Value::Array(messages).to_string(),
            );
        }
    }
    span
}

/// One attempt's event: its number (1-based), its outcome (`ok` or the
/// failure's code), and, when another attempt follows, how long the adapter
/// waited before it.
pub(crate) fn attempt(
    attempt: u32,
    result: &Result<AdapterOutput, RuntimeFailure>,
    retry: Option<Duration>,
) {
    let outcome = match result {
        Ok(_) => "ok",
        Err(failure) => failure.code.as_str(),
    };
    let failure_id = result.as_ref().err().map(|f| f.id.as_str());
    let wait_ms = retry.map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
    tracing::info!(
        target: TARGET,
        attempt,
        outcome,
        failure_id,
        retried = retry.is_some(),
        wait_ms,
        "attempt"
    );
}

/// Records the outcome of the execution on its span.
pub(crate) fn finish(span: &Span, outcome: &Result<Execution, ExecutionError>) {
    if span.is_disabled() {
        return;
    }
    match outcome {
        Ok(execution) => {
            span.record("templiqx.attempts", execution.attempts);
            span.record(
                "templiqx.fingerprint.output",
                fingerprint(&execution.output),
            );
            span.record("templiqx.receipt", execution.receipt.fingerprint());
            if let Some(usage) = execution.usage {
                span.record("gen_ai.usage.input_tokens", usage.input_tokens);
                span.record("gen_ai.usage.output_tokens", usage.output_tokens);
            }
            if capture_content() {
                let output = serde_json::json!([{
                    "role": "assistant",
                    "content": to_canonical_string(&execution.output),
                }]);
                span.record("gen_ai.output.messages", output.to_string());
            }
            span.record("otel.status_code", "OK");
        }
        Err(error) => {
            span.record("templiqx.attempts", error.attempts);
            span.record("templiqx.receipt", error.receipt.fingerprint());
            span.record("error.type", error.failure.code.as_str());
            span.record("otel.status_code", "ERROR");
        }
    }
}
