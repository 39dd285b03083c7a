//! The DTOs of a scenario manifest (`docs/mock.md`, "Manifest fields"),
//! strict (`deny_unknown_fields`), and what they say without a rule being
//! checked ([`ScenarioManifest::lifecycle`], [`ScenarioManifest::status`]).

use serde::{Deserialize, Serialize};
use std::fmt;
use templiqx_contracts::Code;

/// The only `api_version` this crate reads.
pub const API_VERSION: &str = "templiqx.mock/v1alpha1";

/// One scenario manifest (`docs/mock.md`, "Manifest fields").
///
/// Paths (`input`, `expected_output`) are relative to the manifest file.
/// Optional fields may be absent or `null`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioManifest {
    /// Must be exactly [`API_VERSION`] (`TQX_API_VERSION` otherwise).
    pub api_version: String,
    /// Stable scenario id, unique in its inventory: ASCII letters, digits,
    /// `-`, `_` and `.` (it appears in URLs of the HTTP gateway).
    pub id: String,
    /// The id of the contract the harness executes, resolved through the
    /// package manifest (`templiqx.yaml`) of the scenarios' package.
    pub contract: String,
    /// What the scenario exercises.
    pub kind: ScenarioKind,
    /// The request document (`{"inputs": {…}, "context": {…}}`), relative
    /// to the manifest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<String>,
    /// The expected output document, relative to the manifest; also the
    /// output a `runtime_success` step without an inline `output` returns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_output: Option<String>,
    /// Fingerprint (lowercase hex SHA-256 of the canonical JSON) of the
    /// output a successful execution must produce.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_output_fingerprint: Option<String>,
    /// The stable codes execution must report, as a set.
    #[serde(default)]
    pub expected_diagnostics: Vec<Code>,
    /// The expected logical status; when absent, `failure` if
    /// `expected_failure` is given, else `success`
    /// ([`ScenarioManifest::status`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_status: Option<ScenarioStatus>,
    /// The failure code a failing scenario must end with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_failure: Option<Code>,
    /// What a receipt of this scenario may be.
    pub receipt_payload_policy: ReceiptPayloadPolicy,
    /// The runtime lifecycle, in order; exclusive with `events`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steps: Option<Vec<ScenarioStep>>,
    /// A typed aggregate stream, in order; exclusive with `steps`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub events: Option<Vec<ScenarioStreamEvent>>,
    /// Evidence items that must each match an evidence entry of the
    /// request or the output (`docs/mock.md`, "Evidence").
    #[serde(default)]
    pub evidence: Vec<EvidenceExpectation>,
    /// What a document adapter would have to render; carried into the
    /// scenario fingerprint, reported as not checked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub document_expectation: Option<DocumentExpectation>,
    /// The in-process receipt fingerprint an execution must reproduce.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub golden_receipt_fingerprint: Option<String>,
}

/// What a scenario exercises (`docs/mock.md`, "Manifest fields": `kind`).
/// Informational: it enters the scenario fingerprint, and no rule depends on
/// it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ScenarioKind {
    /// A clean, successful extraction.
    HappyPath,
    /// The source is ambiguous.
    Ambiguous,
    /// Something required is missing.
    Missing,
    /// The model output is invalid.
    Invalid,
    /// A drafting contract.
    Drafting,
    /// A runtime failure.
    Failure,
    /// A rendered document carries a warning.
    DocumentWarning,
}

impl ScenarioKind {
    /// The format's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            ScenarioKind::HappyPath => "happy_path",
            ScenarioKind::Ambiguous => "ambiguous",
            ScenarioKind::Missing => "missing",
            ScenarioKind::Invalid => "invalid",
            ScenarioKind::Drafting => "drafting",
            ScenarioKind::Failure => "failure",
            ScenarioKind::DocumentWarning => "document_warning",
        }
    }
}

/// The logical outcome of an execution.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ScenarioStatus {
    /// A schema-valid output.
    Success,
    /// A failure with a stable code (including a schema-invalid output,
    /// normalised to `TQX_OUTPUT_SCHEMA`).
    Failure,
}

impl ScenarioStatus {
    /// `"success"` or `"failure"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ScenarioStatus::Success => "success",
            ScenarioStatus::Failure => "failure",
        }
    }
}

impl fmt::Display for ScenarioStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a receipt may be (`docs/mock.md`, "Receipts and receipt modes").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReceiptPayloadPolicy {
    /// The receipt records fingerprints and the outcome, never payloads.
    FingerprintsOnly,
    /// The scenario must not produce a success receipt; one is a
    /// conformance failure.
    NoSuccessfulReceipt,
}

impl ReceiptPayloadPolicy {
    /// The format's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            ReceiptPayloadPolicy::FingerprintsOnly => "fingerprints_only",
            ReceiptPayloadPolicy::NoSuccessfulReceipt => "no_successful_receipt",
        }
    }
}

/// One step of a runtime lifecycle (`docs/mock.md`, "Format notes"), tagged by
/// `kind`.
///
/// A valid lifecycle is `request_received`, any number of `delay`s, and
/// one terminal step (`runtime_success` or `runtime_failure`), with unique
/// ids.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum ScenarioStep {
    /// The runtime received the request; the first step.
    RequestReceived {
        /// The step id.
        id: String,
    },
    /// Latency: advances the virtual clock; never sleeps.
    Delay {
        /// The step id.
        id: String,
        /// Milliseconds of virtual time, at least 1.
        delay_ms: u64,
    },
    /// The runtime answered with an output (terminal).
    RuntimeSuccess {
        /// The step id.
        id: String,
        /// The output; when absent, the manifest's `expected_output`
        /// document. (`null` counts as absent.)
        #[serde(default, skip_serializing_if = "Option::is_none")]
        output: Option<templiqx_contracts::Json>,
        /// Whether the output validates against the contract's output
        /// schema; the harness checks this against real validation.
        output_schema_valid: bool,
    },
    /// The runtime failed (terminal).
    RuntimeFailure {
        /// The step id; it becomes the failure's `id`, which enters the
        /// failure fingerprint (`docs/runtime.md`, "Receipts").
        id: String,
        /// The failure.
        failure: StepFailure,
    },
}

impl ScenarioStep {
    /// The step id.
    pub fn id(&self) -> &str {
        match self {
            ScenarioStep::RequestReceived { id }
            | ScenarioStep::Delay { id, .. }
            | ScenarioStep::RuntimeSuccess { id, .. }
            | ScenarioStep::RuntimeFailure { id, .. } => id,
        }
    }

    /// The format's `kind`.
    pub fn kind(&self) -> &'static str {
        match self {
            ScenarioStep::RequestReceived { .. } => "request_received",
            ScenarioStep::Delay { .. } => "delay",
            ScenarioStep::RuntimeSuccess { .. } => "runtime_success",
            ScenarioStep::RuntimeFailure { .. } => "runtime_failure",
        }
    }

    /// Whether this step ends the lifecycle.
    pub fn is_terminal(&self) -> bool {
        matches!(
            self,
            ScenarioStep::RuntimeSuccess { .. } | ScenarioStep::RuntimeFailure { .. }
        )
    }
}

/// The failure object of a `runtime_failure` step.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StepFailure {
    /// One of the `TQX_RUNTIME_*` codes.
    pub code: Code,
    /// Free text; enters no fingerprint.
    #[serde(default)]
    pub detail: String,
    /// Suggested wait before retrying, in milliseconds (rate limiting);
    /// enters the failure and receipt fingerprints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_after_ms: Option<u64>,
}

/// The failure codes a `runtime_failure` step may carry: the adapter
/// port's `TQX_RUNTIME_*` codes (the port itself produces
/// `TQX_CAPABILITY_UNSUPPORTED` and `TQX_OUTPUT_SCHEMA`).
pub const RUNTIME_FAILURE_CODES: &[Code] = &[
    Code::RuntimeTimeout,
    Code::RuntimeRateLimited,
    Code::RuntimeUnavailable,
    Code::RuntimeInvalidResponse,
    Code::RuntimePermanent,
];

/// One event of a typed aggregate stream, which a scenario may give instead of
/// steps (`docs/mock.md`, "Format notes"), tagged by `kind`. Distinct from the
/// runtime's [`StreamEvent`](templiqx_contracts::StreamEvent): these describe
/// what a model streamed; the runtime replays the deltas as
/// `StreamEvent::Delta`.
///
/// A valid stream is one `start`, any number of non-empty `delta`,
/// `reasoning` and `usage` events, then `end` and `finish`, with unique
/// ids.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum ScenarioStreamEvent {
    /// The stream opened.
    Start {
        /// The event id.
        id: String,
    },
    /// A fragment of reasoning text (not output).
    Reasoning {
        /// The event id.
        id: String,
        /// The fragment; not empty.
        text: String,
    },
    /// A fragment of output text.
    Delta {
        /// The event id.
        id: String,
        /// The fragment; not empty.
        text: String,
    },
    /// Token usage of part of the stream; the synchronous path sums them.
    Usage {
        /// The event id.
        id: String,
        /// Prompt tokens.
        input_tokens: u64,
        /// Completion tokens.
        output_tokens: u64,
    },
    /// The model stopped streaming.
    End {
        /// The event id.
        id: String,
    },
    /// The stream's outcome; the last event.
    Finish {
        /// The event id.
        id: String,
        /// The output; when given it takes precedence over the deltas,
        /// whose concatenation is otherwise parsed as the JSON output.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        output: Option<templiqx_contracts::Json>,
        /// Whether the output validates against the contract's output
        /// schema; the harness checks this against real validation.
        output_schema_valid: bool,
    },
}

impl ScenarioStreamEvent {
    /// The event id.
    pub fn id(&self) -> &str {
        match self {
            ScenarioStreamEvent::Start { id }
            | ScenarioStreamEvent::Reasoning { id, .. }
            | ScenarioStreamEvent::Delta { id, .. }
            | ScenarioStreamEvent::Usage { id, .. }
            | ScenarioStreamEvent::End { id }
            | ScenarioStreamEvent::Finish { id, .. } => id,
        }
    }

    /// The format's `kind`.
    pub fn kind(&self) -> &'static str {
        match self {
            ScenarioStreamEvent::Start { .. } => "start",
            ScenarioStreamEvent::Reasoning { .. } => "reasoning",
            ScenarioStreamEvent::Delta { .. } => "delta",
            ScenarioStreamEvent::Usage { .. } => "usage",
            ScenarioStreamEvent::End { .. } => "end",
            ScenarioStreamEvent::Finish { .. } => "finish",
        }
    }
}

/// An evidence item a scenario expects (`docs/mock.md`, "Evidence").
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvidenceExpectation {
    /// The source document.
    pub document_id: String,
    /// The fragment of that document.
    pub fragment_id: String,
    /// Lowercase hex SHA-256 of the quoted UTF-8 bytes.
    pub quote_sha256: String,
}

/// What a document adapter would render (`docs/mock.md`, "Evidence").
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DocumentExpectation {
    /// Whether a document is rendered.
    pub status: DocumentStatus,
    /// References the rendered document leaves unresolved (0 when
    /// `not_applicable`).
    #[serde(default)]
    pub unresolved_references: u64,
}

/// Whether a scenario renders a document.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DocumentStatus {
    /// No document is involved.
    NotApplicable,
    /// A document is rendered.
    Rendered,
}

/// A borrowed view of a manifest's lifecycle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Lifecycle<'m> {
    /// Runtime steps.
    Steps(&'m [ScenarioStep]),
    /// A typed stream.
    Events(&'m [ScenarioStreamEvent]),
}

impl ScenarioManifest {
    /// The lifecycle, when exactly one of `steps` and `events` is given.
    pub fn lifecycle(&self) -> Option<Lifecycle<'_>> {
        match (&self.steps, &self.events) {
            (Some(steps), None) => Some(Lifecycle::Steps(steps)),
            (None, Some(events)) => Some(Lifecycle::Events(events)),
            _ => None,
        }
    }

    /// The expected logical status: `expected_status`, else `failure` when
    /// `expected_failure` is given, else `success`.
    pub fn status(&self) -> ScenarioStatus {
        self.expected_status.unwrap_or(match self.expected_failure {
            Some(_) => ScenarioStatus::Failure,
            None => ScenarioStatus::Success,
        })
    }

    /// The schema validity the lifecycle declares: the terminal
    /// `runtime_success` step's or the `finish` event's
    /// `output_schema_valid`; `None` when it ends in `runtime_failure`.
    pub fn declared_output_schema_valid(&self) -> Option<bool> {
        match self.lifecycle()? {
            Lifecycle::Steps(steps) => steps.iter().find_map(|s| match s {
                ScenarioStep::RuntimeSuccess {
                    output_schema_valid,
                    ..
                } => Some(*output_schema_valid),
                _ => None,
            }),
            Lifecycle::Events(events) => events.iter().find_map(|e| match e {
                ScenarioStreamEvent::Finish {
                    output_schema_valid,
                    ..
                } => Some(*output_schema_valid),
                _ => None,
            }),
        }
    }
}
