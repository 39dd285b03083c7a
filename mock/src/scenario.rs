//! The scenario DTOs of `templiqx.mock/v1alpha1` (`docs/mock.md`) and the
//! lifecycle rules the parser enforces.
//!
//! Every DTO is strict (`deny_unknown_fields`). Deserialising checks the
//! shape; [`ScenarioManifest::validate`] checks the rules of the format
//! (`docs/mock.md`, "Format notes"), and every constructor of this crate
//! ([`ScenarioManifest::from_json`], [`ScenarioManifest::from_yaml`],
//! [`Scenario::load`](crate::Scenario::load), the inventory loader,
//! [`ScriptedRuntime::new`](crate::ScriptedRuntime::new)) runs both, so a
//! manifest that reaches a runtime has passed every rule.

use crate::document::Document;
use crate::error::MockError;
use crate::stream::aggregate;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::fmt;
use templiqx_contracts::{Code, Diagnostic};

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
    /// Parses and validates a JSON manifest.
    ///
    /// # Errors
    ///
    /// See [`MockError`]: parse and shape errors, `TQX_API_VERSION`, and
    /// every rule [`validate`](ScenarioManifest::validate) finds broken.
    pub fn from_json(text: &str) -> Result<ScenarioManifest, MockError> {
        ScenarioManifest::from_document(&Document::parse(text, false)?)
    }

    /// Parses and validates a YAML manifest (the compiler's strict YAML
    /// parser, then the same rules as JSON); diagnostics carry spans.
    ///
    /// # Errors
    ///
    /// As [`from_json`](ScenarioManifest::from_json), with
    /// `TQX_PARSE_YAML` for malformed YAML.
    pub fn from_yaml(text: &str) -> Result<ScenarioManifest, MockError> {
        ScenarioManifest::from_document(&Document::parse(text, true)?)
    }

    /// Decodes and validates a parsed document.
    ///
    /// An `api_version` other than [`API_VERSION`] is reported alone
    /// (`TQX_API_VERSION`): another version may define other fields.
    ///
    /// # Errors
    ///
    /// As [`from_json`](ScenarioManifest::from_json); no diagnostic has a
    /// file (the caller sets it).
    pub fn from_document(document: &Document) -> Result<ScenarioManifest, MockError> {
        check_api_version(&document.value, "scenario manifest").map_err(|d| document.locate(d))?;
        let manifest: ScenarioManifest = document.decode()?;
        manifest.validate().map_err(|diagnostics| MockError {
            diagnostics: diagnostics
                .into_iter()
                .map(|d| document.locate(d))
                .collect(),
        })?;
        Ok(manifest)
    }

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

    /// Checks every rule of the format, collecting all problems.
    ///
    /// Fields: `id` is a non-empty id (ASCII letters, digits, `-_.`);
    /// `contract` is not empty; fingerprints are 64 lowercase hex digits;
    /// `expected_diagnostics` has no repeated code; a `success` status has
    /// no `expected_failure`, a `failure` status has one, and it is among
    /// the `expected_diagnostics` when those are given;
    /// `no_successful_receipt` is not combined with an expected success;
    /// a `not_applicable` document expectation has no unresolved
    /// references.
    ///
    /// Lifecycle (`docs/mock.md`, "Format notes"): exactly one of `steps` and
    /// `events`. Steps: not empty; unique, non-empty ids; `request_received`
    /// first and once; no `delay` before it and none with `delay_ms` 0 (a
    /// missing `delay_ms` is a shape error); no terminal step before it;
    /// exactly one terminal step, and nothing after it; a `runtime_failure` has
    /// a failure object (a shape error otherwise) with a `TQX_RUNTIME_*` code;
    /// a `runtime_success` without an inline `output` needs the manifest's
    /// `expected_output`. Events: see [`validate_events`].
    ///
    /// # Errors
    ///
    /// One `TQX_SCENARIO` diagnostic per broken rule (`TQX_API_VERSION`
    /// for the version), with the JSON Pointer of the offending field,
    /// each message starting `` scenario `<id>`: ``.
    pub fn validate(&self) -> Result<(), Vec<Diagnostic>> {
        let mut p = Problems::new(&self.id);
        if self.api_version != API_VERSION {
            p.diagnostics
                .push(api_version_error(&self.api_version, "scenario manifest"));
        }
        if !is_id(&self.id) {
            p.push(
                "/id",
                format!("`id` {:?} is not a scenario id", self.id),
                "use ASCII letters, digits, `-`, `_` and `.` (at least one character)",
            );
        }
        if self.contract.trim().is_empty() {
            p.push(
                "/contract",
                "`contract` is empty",
                "name the contract id the scenario executes",
            );
        }
        for (field, value) in [
            (
                "expected_output_fingerprint",
                &self.expected_output_fingerprint,
            ),
            (
                "golden_receipt_fingerprint",
                &self.golden_receipt_fingerprint,
            ),
        ] {
            if let Some(fp) = value
                && !is_fingerprint(fp)
            {
                p.push(
                    &format!("/{field}"),
                    format!("`{field}` {fp:?} is not a fingerprint"),
                    "write 64 lowercase hex digits (a SHA-256)",
                );
            }
        }
        let mut seen = BTreeSet::new();
        for (i, code) in self.expected_diagnostics.iter().enumerate() {
            if !seen.insert(*code) {
                p.push(
                    &format!("/expected_diagnostics/{i}"),
                    format!("`expected_diagnostics` lists {code} twice"),
                    "list each code once: diagnostics are compared as a set",
                );
            }
        }
        self.validate_expectations(&mut p);
        for (i, item) in self.evidence.iter().enumerate() {
            if !is_fingerprint(&item.quote_sha256) {
                p.push(
                    &format!("/evidence/{i}/quote_sha256"),
                    format!("`quote_sha256` {:?} is not a SHA-256", item.quote_sha256),
                    "write 64 lowercase hex digits",
                );
            }
        }
        if let Some(doc) = &self.document_expectation
            && doc.status == DocumentStatus::NotApplicable
            && doc.unresolved_references > 0
        {
            p.push(
                "/document_expectation/unresolved_references",
                "a `not_applicable` document cannot have unresolved references",
                "set `status: rendered`, or `unresolved_references: 0`",
            );
        }
        match (&self.steps, &self.events) {
            (Some(_), Some(_)) => p.push(
                "/events",
                "`steps` and `events` are mutually exclusive",
                "describe the lifecycle with runtime `steps` or a typed stream of `events`, not both",
            ),
            (None, None) => p.push(
                "",
                "the scenario has neither `steps` nor `events`",
                "add the runtime lifecycle as `steps` (or a typed stream as `events`)",
            ),
            (Some(steps), None) => self.validate_steps(steps, &mut p),
            (None, Some(events)) => {
                p.diagnostics.extend(validate_events(&self.id, events).err().unwrap_or_default())
            }
        }
        p.finish()
    }

    fn validate_expectations(&self, p: &mut Problems<'_>) {
        match (self.expected_status, self.expected_failure) {
            (Some(ScenarioStatus::Success), Some(code)) => p.push(
                "/expected_failure",
                format!("a `success` scenario cannot expect the failure {code}"),
                "set `expected_failure: null`, or `expected_status: failure`",
            ),
            (Some(ScenarioStatus::Failure), None) => p.push(
                "/expected_failure",
                "a `failure` scenario must name its `expected_failure` code",
                "set `expected_failure` to the stable code the execution ends with",
            ),
            _ => {}
        }
        if let Some(code) = self.expected_failure
            && !self.expected_diagnostics.is_empty()
            && !self.expected_diagnostics.contains(&code)
        {
            p.push(
                "/expected_failure",
                format!("`expected_failure` {code} is not among `expected_diagnostics`"),
                "add the failure code to `expected_diagnostics`",
            );
        }
        if self.receipt_payload_policy == ReceiptPayloadPolicy::NoSuccessfulReceipt
            && self.status() == ScenarioStatus::Success
        {
            p.push(
                "/receipt_payload_policy",
                "`no_successful_receipt` contradicts an expected success",
                "use `fingerprints_only` for a scenario that succeeds",
            );
        }
    }

    fn validate_steps(&self, steps: &[ScenarioStep], p: &mut Problems<'_>) {
        if steps.is_empty() {
            p.push(
                "/steps",
                "`steps` is empty",
                "start with `request_received` and end with `runtime_success` or `runtime_failure`",
            );
            return;
        }
        let mut ids = BTreeSet::new();
        let mut received = false;
        let mut terminal: Option<&str> = None;
        for (i, step) in steps.iter().enumerate() {
            let at = format!("/steps/{i}");
            let id = step.id();
            if id.is_empty() {
                p.push(
                    &format!("{at}/id"),
                    format!("step {i} has an empty id"),
                    "give every step a stable, unique id",
                );
            } else if !ids.insert(id) {
                p.push(
                    &format!("{at}/id"),
                    format!("duplicate step id `{id}`"),
                    "give every step a unique id",
                );
            }
            if let Some(t) = terminal {
                p.push(
                    &at,
                    format!(
                        "step `{id}` ({}) comes after the terminal step `{t}`",
                        step.kind()
                    ),
                    "end the lifecycle with its one `runtime_success` or `runtime_failure` step",
                );
                continue;
            }
            match step {
                ScenarioStep::RequestReceived { .. } => {
                    if received {
                        p.push(
                            &at,
                            format!("`request_received` appears twice (`{id}`)"),
                            "a lifecycle receives its request once",
                        );
                    }
                    received = true;
                }
                ScenarioStep::Delay { delay_ms, .. } => {
                    if !received {
                        p.push(
                            &at,
                            format!("delay `{id}` comes before `request_received`"),
                            "start the lifecycle with `request_received`",
                        );
                    }
                    if *delay_ms == 0 {
                        p.push(
                            &format!("{at}/delay_ms"),
                            format!("delay `{id}` has `delay_ms: 0`"),
                            "give a delay of at least 1 ms, or remove the step",
                        );
                    }
                }
                ScenarioStep::RuntimeSuccess { output, .. } => {
                    if !received {
                        p.push(
                            &at,
                            format!("terminal step `{id}` comes before `request_received`"),
                            "start the lifecycle with `request_received`",
                        );
                    }
                    if output.is_none() && self.expected_output.is_none() {
                        p.push(
                            &at,
                            format!("`runtime_success` step `{id}` has no output"),
                            "give the step an inline `output`, or the manifest an `expected_output` document",
                        );
                    }
                    terminal = Some(id);
                }
                ScenarioStep::RuntimeFailure { failure, .. } => {
                    if !received {
                        p.push(
                            &at,
                            format!("terminal step `{id}` comes before `request_received`"),
                            "start the lifecycle with `request_received`",
                        );
                    }
                    if !RUNTIME_FAILURE_CODES.contains(&failure.code) {
                        p.push(
                            &format!("{at}/failure/code"),
                            format!("`runtime_failure` step `{id}` has the code {}, which no runtime reports", failure.code),
                            "use TQX_RUNTIME_TIMEOUT, TQX_RUNTIME_RATE_LIMITED, TQX_RUNTIME_UNAVAILABLE, TQX_RUNTIME_INVALID_RESPONSE or TQX_RUNTIME_PERMANENT",
                        );
                    }
                    terminal = Some(id);
                }
            }
        }
        if terminal.is_none() {
            p.push(
                "/steps",
                "the lifecycle has no terminal step",
                "end it with `runtime_success` or `runtime_failure`",
            );
        }
    }
}

/// Checks a typed stream (`docs/mock.md`, "Format notes"): one `start` first;
/// then only non-empty `delta` and `reasoning`, and `usage` events reporting at
/// least one token (their sums must fit in `u64`); then `end`, then `finish`
/// last; unique, non-empty event ids; and an output: the `finish` event's, or
/// the concatenated deltas forming one JSON document.
///
/// # Errors
///
/// One `TQX_SCENARIO` diagnostic per broken rule, pointing into
/// `/events`, each message starting `` scenario `<scenario>`: ``.
pub fn validate_events(
    scenario: &str,
    events: &[ScenarioStreamEvent],
) -> Result<(), Vec<Diagnostic>> {
    let mut p = Problems::new(scenario);
    let has_start = events
        .iter()
        .any(|e| matches!(e, ScenarioStreamEvent::Start { .. }));
    let mut ids = BTreeSet::new();
    let mut order = StreamOrder::default();
    for (i, event) in events.iter().enumerate() {
        let at = format!("/events/{i}");
        let (id, kind) = (event.id(), event.kind());
        if id.is_empty() {
            p.push(
                &format!("{at}/id"),
                format!("event {i} has an empty id"),
                "give every event a stable, unique id",
            );
        } else if !ids.insert(id) {
            p.push(
                &format!("{at}/id"),
                format!("duplicate event id `{id}`"),
                "give every event a unique id",
            );
        }
        if order.finished {
            p.push(
                &at,
                format!("`{kind}` event `{id}` comes after `finish`"),
                "`finish` is the last event of a stream",
            );
            continue;
        }
        if !order.started && !matches!(event, ScenarioStreamEvent::Start { .. }) {
            if has_start {
                p.push(
                    &at,
                    format!("`{kind}` event `{id}` comes before `start`"),
                    "open the stream with `start`",
                );
            }
            continue;
        }
        order.accept(&mut p, &at, event);
    }
    order.close(&mut p, has_start);
    if p.diagnostics.is_empty()
        && let Err(d) = aggregate(events)
    {
        p.push("/events", d.message, d.help.unwrap_or_default());
    }
    p.finish()
}

/// Where [`validate_events`] is in a stream: which of `start`, `end` and
/// `finish` it has seen, and whether a missing `end` was already reported
/// (at a `finish` that came before it).
#[derive(Default)]
struct StreamOrder {
    started: bool,
    ended: bool,
    finished: bool,
    end_missing_reported: bool,
}

impl StreamOrder {
    /// Checks one event (at `at`) from the first `start` up to `finish`: one
    /// `start` and one `end`, nothing but `finish` after `end`, no empty
    /// text, no usage without tokens.
    fn accept(&mut self, p: &mut Problems<'_>, at: &str, event: &ScenarioStreamEvent) {
        let (id, kind) = (event.id(), event.kind());
        let after_end = |p: &mut Problems<'_>| {
            p.push(
                at,
                format!("`{kind}` event `{id}` comes after `end`"),
                "`end` is followed only by `finish`",
            );
        };
        match event {
            ScenarioStreamEvent::Start { .. } => {
                if self.started {
                    p.push(
                        at,
                        format!("a second `start` event (`{id}`)"),
                        "a stream has exactly one `start`",
                    );
                }
                self.started = true;
            }
            ScenarioStreamEvent::Delta { text, .. }
            | ScenarioStreamEvent::Reasoning { text, .. } => {
                if self.ended {
                    after_end(p);
                }
                if text.is_empty() {
                    p.push(
                        &format!("{at}/text"),
                        format!("`{kind}` event `{id}` is empty"),
                        "remove the event, or give it text",
                    );
                }
            }
            ScenarioStreamEvent::Usage {
                input_tokens,
                output_tokens,
                ..
            } => {
                if self.ended {
                    after_end(p);
                }
                if *input_tokens == 0 && *output_tokens == 0 {
                    p.push(
                        at,
                        format!("`usage` event `{id}` reports no tokens"),
                        "remove the event, or report its token counts",
                    );
                }
            }
            ScenarioStreamEvent::End { .. } => {
                if self.ended {
                    p.push(
                        at,
                        format!("a second `end` event (`{id}`)"),
                        "a stream has exactly one `end`",
                    );
                }
                self.ended = true;
            }
            ScenarioStreamEvent::Finish { .. } => {
                if !self.ended {
                    p.push(
                        at,
                        format!("`finish` event `{id}` comes before `end`"),
                        "close the stream with `end`, then `finish`",
                    );
                    self.end_missing_reported = true;
                }
                self.finished = true;
            }
        }
    }

    /// Reports what the whole stream lacks: `start`, `end` (unless already
    /// reported at `finish`), `finish`.
    fn close(self, p: &mut Problems<'_>, has_start: bool) {
        if !has_start {
            p.push(
                "/events",
                "the stream has no `start` event",
                "open the stream with `start`",
            );
        }
        if has_start && !self.ended && !self.end_missing_reported {
            p.push(
                "/events",
                "the stream has no `end` event",
                "close the stream with `end`, then `finish`",
            );
        }
        if has_start && !self.finished {
            p.push(
                "/events",
                "the stream has no `finish` event",
                "close the stream with `end`, then `finish`",
            );
        }
    }
}

/// Checks a document's `api_version` before its shape, so another version's
/// fields are not reported as unknown.
///
/// # Errors
///
/// `TQX_INVALID_TYPE` when the document is not an object (serde would
/// otherwise read a list as a struct's fields in order); `TQX_API_VERSION`
/// when `api_version` is present and not [`API_VERSION`].
pub(crate) fn check_api_version(
    value: &templiqx_contracts::Json,
    what: &str,
) -> Result<(), Diagnostic> {
    use templiqx_contracts::Json;
    if value.as_object().is_none() {
        let found = templiqx_contracts::words::kind_of(value);
        return Err(Diagnostic::error(
            Code::InvalidType,
            format!("a {what} must be an object, found {found}"),
        )
        .at("")
        .help(format!(
            "write an object that starts with `api_version: {API_VERSION}`"
        )));
    }
    match value.get("api_version") {
        Some(Json::String(v)) if v == API_VERSION => Ok(()),
        Some(Json::String(v)) => Err(api_version_error(v, what)),
        Some(other) => Err(api_version_error(&other.to_string(), what)),
        None => Ok(()),
    }
}

fn api_version_error(found: &str, what: &str) -> Diagnostic {
    Diagnostic::error(
        Code::ApiVersion,
        format!("unsupported {what} `api_version` {found:?}; this crate reads {API_VERSION:?}"),
    )
    .at("/api_version")
    .help(format!("set `api_version: {API_VERSION}`"))
}

/// Whether `s` is a scenario id: ASCII letters, digits, `-`, `_`, `.`.
pub(crate) fn is_id(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

/// Whether `s` is a fingerprint: 64 lowercase hex digits.
pub fn is_fingerprint(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// Collects `TQX_SCENARIO` diagnostics about one scenario.
pub(crate) struct Problems<'a> {
    scenario: &'a str,
    pub(crate) diagnostics: Vec<Diagnostic>,
}

impl<'a> Problems<'a> {
    pub(crate) fn new(scenario: &'a str) -> Problems<'a> {
        Problems {
            scenario,
            diagnostics: Vec::new(),
        }
    }

    pub(crate) fn push(
        &mut self,
        pointer: &str,
        message: impl fmt::Display,
        help: impl Into<String>,
    ) {
        self.diagnostics.push(
            Diagnostic::error(
                Code::Scenario,
                format!("scenario `{}`: {message}", self.scenario),
            )
            .at(pointer)
            .help(help),
        );
    }

    pub(crate) fn finish(self) -> Result<(), Vec<Diagnostic>> {
        if self.diagnostics.is_empty() {
            Ok(())
        } else {
            Err(self.diagnostics)
        }
    }
}
