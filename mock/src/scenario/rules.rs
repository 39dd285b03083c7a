//! Reading a manifest and checking the rules of the format
//! ([`ScenarioManifest::validate`]; a typed stream's in `events.rs`).

use super::events::validate_events;
use super::manifest::{
    API_VERSION, DocumentStatus, RUNTIME_FAILURE_CODES, ReceiptPayloadPolicy, ScenarioManifest,
    ScenarioStatus, ScenarioStep,
};
use super::problems::{Problems, api_version_error, check_api_version, is_fingerprint, is_id};
use crate::document::Document;
use crate::error::MockError;
use std::collections::BTreeSet;
use templiqx_contracts::Diagnostic;

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
