//! The catalog in-process: the typed data of retried failures, streams with
//! usage, requests that do not render, and a contract that does not
//! compile stopping start-up.

use crate::common;

use serde_json::json;
use std::path::{Path, PathBuf};
use templiqx_contracts::{CapabilityProfile, Code};
use templiqx_mock::ScenarioStatus;
use templiqx_mock_gateway::{Catalog, ErrorCode};

const CONTRACT: &str = r#"api_version: templiqx/v1alpha1
id: greet
version: 0.1.0
inputs:
  name: { schema: { type: string, minLength: 1 }, required: true }
capabilities: [structured_output]
messages:
  - role: user
    content:
      - { kind: text, value: "Greet " }
      - { kind: interpolate, expression: { kind: ref, path: inputs.name } }
output_schema: { type: object, required: [greeting], properties: { greeting: { type: string } } }
runtime_policy: { max_attempts: 3 }
"#;

fn target() -> CapabilityProfile {
    CapabilityProfile::parse_list("structured_output")
}

/// A package `pkg` with the `greet` contract (or `contract`), one
/// scenario per `(id, manifest)` and an inventory whose expectations are
/// `expectations`; returns the scenario root.
fn corpus(
    dir: &Path,
    contract: &str,
    scenarios: &[(&str, serde_json::Value)],
    expectations: &[serde_json::Value],
) -> PathBuf {
    let pkg = dir.join("pkg");
    std::fs::create_dir_all(pkg.join("contracts")).unwrap();
    std::fs::write(
        pkg.join("templiqx.yaml"),
        "api_version: templiqx/v1alpha1\npackage: pkg\nversion: 0.1.0\ncontracts: [greet]\nprovenance: {}\n",
    )
    .unwrap();
    std::fs::write(pkg.join("contracts/greet.yaml"), contract).unwrap();
    std::fs::write(
        pkg.join("request.json"),
        json!({"inputs": {"name": "Ada"}}).to_string(),
    )
    .unwrap();
    let mut entries = Vec::new();
    for ((id, manifest), expectation) in scenarios.iter().zip(expectations) {
        let at = pkg.join("scenarios").join(id);
        std::fs::create_dir_all(&at).unwrap();
        std::fs::write(at.join("manifest.json"), manifest.to_string()).unwrap();
        entries.push(json!({
            "id": id,
            "manifest": format!("pkg/scenarios/{id}/manifest.json"),
            "expectation": expectation,
        }));
    }
    let root = pkg.join("scenarios");
    std::fs::write(
        root.join("inventory.json"),
        json!({"api_version": "templiqx.mock/v1alpha1", "package": "pkg", "scenarios": entries})
            .to_string(),
    )
    .unwrap();
    root
}

fn failure_expectation(code: &str) -> serde_json::Value {
    json!({"status": "failure", "diagnostic_code": code, "output_schema_valid": null,
           "output_fingerprint": null, "receipt_fingerprint": "0".repeat(64)})
}

fn scenarios() -> Vec<(&'static str, serde_json::Value)> {
    vec![
        (
            "flaky",
            json!({
                "api_version": "templiqx.mock/v1alpha1", "id": "flaky", "contract": "greet",
                "kind": "failure", "input": "../../request.json",
                "expected_failure": "TQX_RUNTIME_TIMEOUT",
                "receipt_payload_policy": "no_successful_receipt",
                "steps": [
                    {"id": "received", "kind": "request_received"},
                    {"id": "wait", "kind": "delay", "delay_ms": 10},
                    {"id": "timed-out", "kind": "runtime_failure",
                     "failure": {"code": "TQX_RUNTIME_TIMEOUT", "retry_after_ms": 5}}
                ]
            }),
        ),
        (
            "unrendered",
            json!({
                "api_version": "templiqx.mock/v1alpha1", "id": "unrendered", "contract": "greet",
                "kind": "invalid", "expected_failure": "TQX_VALUE_INVALID",
                "receipt_payload_policy": "fingerprints_only",
                "steps": [
                    {"id": "received", "kind": "request_received"},
                    {"id": "answered", "kind": "runtime_success",
                     "output": {"greeting": "Hello"}, "output_schema_valid": true}
                ]
            }),
        ),
    ]
}

#[test]
fn retried_failures_and_requests_that_do_not_render_are_typed_data() {
    let dir = tempfile::tempdir().unwrap();
    let root = corpus(
        dir.path(),
        CONTRACT,
        &scenarios(),
        &[failure_expectation("TQX_RUNTIME_TIMEOUT"), {
            // The manifest declares what its runtime step would answer.
            let mut x = failure_expectation("TQX_VALUE_INVALID");
            x["output_schema_valid"] = json!(true);
            x
        }],
    );
    let catalog = Catalog::load(&root, &target()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(catalog.ids(), ["flaky", "unrendered"]);

    // Every attempt replays the delay: 3 attempts, 30 ms of virtual time.
    let flaky = catalog.execute("flaky", None).unwrap();
    assert_eq!(flaky.status, ScenarioStatus::Failure);
    assert_eq!((flaky.attempts, flaky.elapsed_ms), (3, 30));
    let failure = flaky.failure.as_ref().unwrap();
    assert_eq!(failure.code, Code::RuntimeTimeout);
    assert_eq!(failure.step_id.as_deref(), Some("timed-out"));
    assert_eq!(failure.retry_after_ms, Some(5));
    assert!(flaky.receipt.is_some());
    // Executions are independent: the same answer every time.
    assert_eq!(catalog.execute("flaky", None).unwrap(), flaky);

    // The request lacks the required input: nothing is invoked.
    let unrendered = catalog.execute("unrendered", None).unwrap();
    assert_eq!(unrendered.status, ScenarioStatus::Failure);
    assert_eq!(unrendered.diagnostic_code, Some(Code::ValueInvalid));
    assert_eq!(unrendered.attempts, 0);
    assert_eq!(unrendered.receipt, None);
    assert_eq!(unrendered.fingerprints.receipt, None);
    assert_eq!(unrendered.failure.unwrap().step_id, None);

    let refused = catalog
        .execute("flaky", Some(json!({}).into()))
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::FixtureOutputNotApplicable);
    let refused = catalog.execute("nope", None).unwrap_err();
    assert_eq!(refused.code, ErrorCode::ScenarioNotFound);
}

#[test]
fn a_typed_stream_reports_its_usage() {
    let catalog = Catalog::load(&common::own_root(), &target()).unwrap();
    let streamed = catalog.execute("lease-summary-streamed", None).unwrap();
    assert_eq!(streamed.status, ScenarioStatus::Success);
    assert!(streamed.success.unwrap().usage.is_some());
}

#[test]
fn a_contract_that_does_not_compile_stops_start_up() {
    let dir = tempfile::tempdir().unwrap();
    let broken = CONTRACT.replace("path: inputs.name", "path: inputs.nobody");
    let root = corpus(
        dir.path(),
        &broken,
        &scenarios()[..1],
        &[failure_expectation("TQX_RUNTIME_TIMEOUT")],
    );
    let error = Catalog::load(&root, &target()).unwrap_err();
    let text = error.to_string();
    assert!(text.contains("scenario `flaky`"), "{text}");
    assert!(text.contains("does not compile"), "{text}");
}
