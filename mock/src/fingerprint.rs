//! The payload-free scenario fingerprint (`docs/mock.md`, "Scenario
//! fingerprint").
//!
//! The fingerprint is the canonical-JSON SHA-256 of this document:
//!
//! ```json
//! {
//!   "api_version": "templiqx.mock/v1alpha1",
//!   "id": "…", "contract": "…", "kind": "happy_path",
//!   "expected_status": "success",            // the effective status
//!   "expected_failure": "TQX_…" | null,
//!   "expected_diagnostics": ["TQX_…"],       // sorted, a set
//!   "receipt_payload_policy": "fingerprints_only",
//!   "expected_output_fingerprint": "…" | null,
//!   "lifecycle": {"steps": [ … ]} | {"events": [ … ]},
//!   "evidence": [{"document_id", "fragment_id", "quote_sha256"}],  // sorted
//!   "document_expectation": {"status", "unresolved_references"} | null
//! }
//! ```
//!
//! Lifecycle entries keep their `kind`, `id` and order, with payloads
//! replaced by digests:
//!
//! | entry | fields |
//! |---|---|
//! | `request_received`, `start`, `end` | `kind`, `id` |
//! | `delay` | `kind`, `id`, `delay_ms` |
//! | `runtime_success`, `finish` | `kind`, `id`, `output_schema_valid`, `output_fingerprint` (of an inline output, else `null`) |
//! | `runtime_failure` | `kind`, `id`, `code`, `retry_after_ms` (`detail` is free text and is left out) |
//! | `delta`, `reasoning` | `kind`, `id`, `text_sha256` (SHA-256 of the UTF-8 text) |
//! | `usage` | `kind`, `id`, `input_tokens`, `output_tokens` |
//!
//! Left out: request text and output payloads (the `input` and
//! `expected_output` documents and their paths; inline outputs and stream
//! texts enter only as digests), and `golden_receipt_fingerprint`, which
//! is an expectation about one implementation's receipts (a success
//! receipt covers that implementation's request encoding), not part of
//! what the scenario is.

use crate::scenario::{ScenarioManifest, ScenarioStep, ScenarioStreamEvent};
use serde_json::{Value, json};
use templiqx_contracts::canonical::{fingerprint, sha256_hex};

/// The document [`scenario_fingerprint`] hashes (see the module docs).
pub fn scenario_fingerprint_document(manifest: &ScenarioManifest) -> Value {
    let mut diagnostics: Vec<&str> = manifest
        .expected_diagnostics
        .iter()
        .map(|c| c.as_str())
        .collect();
    diagnostics.sort_unstable();
    diagnostics.dedup();
    let mut evidence: Vec<Value> = manifest
        .evidence
        .iter()
        .map(|e| {
            json!({
                "document_id": e.document_id,
                "fragment_id": e.fragment_id,
                "quote_sha256": e.quote_sha256,
            })
        })
        .collect();
    evidence.sort_by_key(|v| v.to_string());
    let lifecycle = match (&manifest.steps, &manifest.events) {
        (Some(steps), _) => json!({ "steps": steps.iter().map(step).collect::<Vec<_>>() }),
        (None, Some(events)) => {
            json!({ "events": events.iter().map(event).collect::<Vec<_>>() })
        }
        (None, None) => Value::Null,
    };
    json!({
        "api_version": manifest.api_version,
        "id": manifest.id,
        "contract": manifest.contract,
        "kind": manifest.kind.as_str(),
        "expected_status": manifest.status().as_str(),
        "expected_failure": manifest.expected_failure.map(|c| c.as_str()),
        "expected_diagnostics": diagnostics,
        "receipt_payload_policy": manifest.receipt_payload_policy.as_str(),
        "expected_output_fingerprint": manifest.expected_output_fingerprint,
        "lifecycle": lifecycle,
        "evidence": evidence,
        "document_expectation": manifest.document_expectation.as_ref().map(|d| json!({
            "status": d.status,
            "unresolved_references": d.unresolved_references,
        })),
    })
}

/// The payload-free scenario fingerprint: lowercase hex SHA-256 of the
/// canonical JSON of [`scenario_fingerprint_document`].
pub fn scenario_fingerprint(manifest: &ScenarioManifest) -> String {
    fingerprint(&scenario_fingerprint_document(manifest))
}

fn step(step: &ScenarioStep) -> Value {
    match step {
        ScenarioStep::RequestReceived { id } => json!({"kind": step.kind(), "id": id}),
        ScenarioStep::Delay { id, delay_ms } => {
            json!({"kind": step.kind(), "id": id, "delay_ms": delay_ms})
        }
        ScenarioStep::RuntimeSuccess {
            id,
            output,
            output_schema_valid,
        } => json!({
            "kind": step.kind(),
            "id": id,
            "output_schema_valid": output_schema_valid,
            "output_fingerprint": output.as_ref().map(fingerprint),
        }),
        ScenarioStep::RuntimeFailure { id, failure } => json!({
            "kind": step.kind(),
            "id": id,
            "code": failure.code.as_str(),
            "retry_after_ms": failure.retry_after_ms,
        }),
    }
}

fn event(event: &ScenarioStreamEvent) -> Value {
    let kind = event.kind();
    match event {
        ScenarioStreamEvent::Start { id } | ScenarioStreamEvent::End { id } => {
            json!({"kind": kind, "id": id})
        }
        ScenarioStreamEvent::Reasoning { id, text } | ScenarioStreamEvent::Delta { id, text } => {
            json!({"kind": kind, "id": id, "text_sha256": sha256_hex(text.as_bytes())})
        }
        ScenarioStreamEvent::Usage {
            id,
            input_tokens,
            output_tokens,
        } => json!({
            "kind": kind,
            "id": id,
            "input_tokens": input_tokens,
            "output_tokens": output_tokens,
        }),
        ScenarioStreamEvent::Finish {
            id,
            output,
            output_schema_valid,
        } => json!({
            "kind": kind,
            "id": id,
            "output_schema_valid": output_schema_valid,
            "output_fingerprint": output.as_ref().map(fingerprint),
        }),
    }
}
