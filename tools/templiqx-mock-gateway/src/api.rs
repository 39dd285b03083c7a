//! The wire format: response bodies and error codes.
//!
//! Every body is JSON. Successful responses are the structs below; every
//! error is an [`ErrorBody`]: `{"error": {"code": "...", "message": "..."}}`
//! with a stable [`ErrorCode`].

use serde::{Deserialize, Serialize};
use std::fmt;
use templiqx::Usage;
use templiqx_contracts::{Code, Receipt};
use templiqx_mock::ScenarioStatus;

/// `GET /health/live` and `GET /health/ready`: `{"status": "ok"}`, or
/// `{"status": "shutting_down"}` (503) from `/health/ready` once graceful
/// shutdown has begun.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Health {
    /// [`Health::OK`] or [`Health::SHUTTING_DOWN`]. Live is always `ok`:
    /// the process serves. Ready is `ok` once the inventory is loaded (it
    /// is, before the listener opens) and `shutting_down`, with status
    /// 503, after SIGINT/SIGTERM, while in-flight requests finish.
    pub status: String,
}

impl Health {
    /// The status of a live process, and of a ready one.
    pub const OK: &'static str = "ok";
    /// The readiness status once graceful shutdown has begun (sent with
    /// 503 Service Unavailable).
    pub const SHUTTING_DOWN: &'static str = "shutting_down";
}

/// `GET /v1/scenarios`: the inventory's scenario ids, sorted.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioList {
    /// The package the scenarios execute.
    pub package: String,
    /// The scenario ids, sorted by byte order.
    pub scenarios: Vec<String>,
}

/// The optional body of `POST /v1/scenarios/{id}/execute`: empty, or a
/// JSON object with at most this field.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExecuteRequest {
    /// The output the scenario's terminal success returns instead of its
    /// inline output; accepted only when the manifest names no
    /// `expected_output` document and its lifecycle ends in a success.
    #[serde(default)]
    pub fixture_output: Option<templiqx_contracts::Json>,
}

/// Where an execution's output came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutputSource {
    /// The manifest: an inline output, the `expected_output` document or
    /// the stream (also reported for failures, which return none).
    Manifest,
    /// The request's `fixture_output`.
    FixtureOutput,
}

/// The result of `POST /v1/scenarios/{id}/execute`: the outcome and its
/// fingerprints, never the output or request payloads.
///
/// `status`, `diagnostic_code`, `output_schema_valid`,
/// `fingerprints.output` and `fingerprints.receipt` line up with the
/// inventory entry's `expectation` (`status`, `diagnostic_code`,
/// `output_schema_valid`, `output_fingerprint`, `receipt_fingerprint`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExecuteResponse {
    /// `templiqx.mock/v1alpha1`.
    pub api_version: String,
    /// The scenario id.
    pub scenario_id: String,
    /// The contract the scenario executes.
    pub contract: String,
    /// The logical status; a schema-invalid output is already a
    /// `failure` with `TQX_OUTPUT_SCHEMA`.
    pub status: ScenarioStatus,
    /// The failure code; `null` for a success.
    pub diagnostic_code: Option<Code>,
    /// `true` for a success, `false` for a schema-invalid output, `null`
    /// when the runtime produced no output.
    pub output_schema_valid: Option<bool>,
    /// Virtual time the execution took, in milliseconds (the scenario's
    /// delays, once per attempt); nothing sleeps.
    pub elapsed_ms: u64,
    /// Invocations made, retries included (0 when nothing was invoked).
    pub attempts: u32,
    /// Where the output came from.
    pub output_source: OutputSource,
    /// Success data; `null` for a failure.
    pub success: Option<SuccessData>,
    /// Failure data; `null` for a success.
    pub failure: Option<FailureData>,
    /// The fingerprints.
    pub fingerprints: Fingerprints,
    /// The payload-free transport receipt (`docs/mock.md`, "Receipts and
    /// receipt modes"); `null` when
    /// nothing executed (a request that does not render).
    pub receipt: Option<Receipt>,
}

/// Typed success data.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SuccessData {
    /// Token usage, when the scenario's stream reports it.
    pub usage: Option<Usage>,
}

/// Typed failure data.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FailureData {
    /// The stable failure code.
    pub code: Code,
    /// The failing step: the manifest's terminal step id,
    /// `templiqx.output_schema` or `templiqx.capability_gate` for the
    /// port's own failures; `null` when nothing was invoked.
    pub step_id: Option<String>,
    /// Free text (the manifest's `detail`, or the port's summary); it
    /// never quotes the output.
    pub detail: String,
    /// The retry hint, in milliseconds.
    pub retry_after_ms: Option<u64>,
    /// The codes of every diagnostic the execution produced, sorted.
    pub diagnostic_codes: Vec<Code>,
}

/// The fingerprints of an execution (64 lowercase hex digits each).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fingerprints {
    /// The payload-free scenario fingerprint.
    pub scenario: String,
    /// The transport request fingerprint: the fingerprint of the
    /// transport stub interaction of the scenario's contract.
    pub request: String,
    /// The accepted output's fingerprint; `null` for a failure.
    pub output: Option<String>,
    /// The failure receipt's `failure_fingerprint` (for a schema-invalid
    /// output, the output's fingerprint); `null` for a success.
    pub failure: Option<String>,
    /// The receipt's fingerprint; `null` when nothing executed.
    pub receipt: Option<String>,
}

/// The stable error codes of the gateway.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// 404: the id is not in the inventory (whatever exists on disk).
    ScenarioNotFound,
    /// 404: no such route.
    NotFound,
    /// 405: the route exists, the method does not.
    MethodNotAllowed,
    /// 400: the body is not a JSON object (or not JSON at all).
    MalformedJson,
    /// 400: the body has a field other than `fixture_output`.
    UnknownField,
    /// 413: the body exceeds 1 MiB.
    PayloadTooLarge,
    /// 422: the scenario cannot use a `fixture_output`.
    FixtureOutputNotApplicable,
    /// 408: the request did not complete within the request timeout.
    RequestTimeout,
    /// 400: the request body could not be read.
    BadRequest,
    /// 500: a bug; the message says what failed.
    Internal,
}

impl ErrorCode {
    /// The code as it appears in error bodies.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::ScenarioNotFound => "scenario_not_found",
            ErrorCode::NotFound => "not_found",
            ErrorCode::MethodNotAllowed => "method_not_allowed",
            ErrorCode::MalformedJson => "malformed_json",
            ErrorCode::UnknownField => "unknown_field",
            ErrorCode::PayloadTooLarge => "payload_too_large",
            ErrorCode::FixtureOutputNotApplicable => "fixture_output_not_applicable",
            ErrorCode::RequestTimeout => "request_timeout",
            ErrorCode::BadRequest => "bad_request",
            ErrorCode::Internal => "internal",
        }
    }

    /// The HTTP status this code is sent with.
    pub fn status(self) -> u16 {
        match self {
            ErrorCode::ScenarioNotFound | ErrorCode::NotFound => 404,
            ErrorCode::MethodNotAllowed => 405,
            ErrorCode::MalformedJson | ErrorCode::UnknownField | ErrorCode::BadRequest => 400,
            ErrorCode::PayloadTooLarge => 413,
            ErrorCode::FixtureOutputNotApplicable => 422,
            ErrorCode::RequestTimeout => 408,
            ErrorCode::Internal => 500,
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Every error response: `{"error": {"code", "message"}}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ErrorBody {
    /// The error.
    pub error: ErrorDetail,
}

/// The content of an [`ErrorBody`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ErrorDetail {
    /// The stable code.
    pub code: ErrorCode,
    /// A human-readable message; not stable.
    pub message: String,
}
