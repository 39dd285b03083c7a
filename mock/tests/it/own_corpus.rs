//! The project's own scenario corpus (`examples/crm3/scenarios`): it passes
//! completely in both receipt modes, covers every `kind`, both policies,
//! delays, a rate-limited failure and typed streams (`docs/mock.md`,
//! "Results"), and a few of its goldens are recomputed here from hand-written
//! canonical JSON, so they are not merely what the implementation produced.

use crate::common;

use std::collections::BTreeSet;
use templiqx_contracts::canonical::sha256_hex;
use templiqx_contracts::{Code, Receipt};
use templiqx_mock::{
    CheckField, CheckOutcome, Inventory, ReceiptMode, ReceiptPayloadPolicy, ScenarioKind,
    ScenarioStep, ScenarioStreamEvent, run_conformance,
};

fn inventory() -> Inventory {
    Inventory::load(common::own_inventory()).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn it_passes_completely_in_process() {
    let report = run_conformance(&inventory(), &common::options(ReceiptMode::InProcess));
    assert!(report.passed(), "{report}");
    assert_eq!(report.scenarios.len(), 7);
}

#[test]
fn it_passes_completely_over_the_transport_receipts() {
    let report = run_conformance(&inventory(), &common::options(ReceiptMode::Transport));
    assert!(report.passed(), "{report}");
}

#[test]
fn it_covers_every_kind_policy_and_lifecycle_feature() {
    let inventory = inventory();
    assert_eq!(inventory.package, "crm3-example");
    let manifests: Vec<_> = inventory
        .scenarios
        .iter()
        .map(|s| &s.scenario.manifest)
        .collect();
    let kinds: BTreeSet<&str> = manifests.iter().map(|m| m.kind.as_str()).collect();
    let all = [
        ScenarioKind::HappyPath,
        ScenarioKind::Ambiguous,
        ScenarioKind::Missing,
        ScenarioKind::Invalid,
        ScenarioKind::Drafting,
        ScenarioKind::Failure,
        ScenarioKind::DocumentWarning,
    ];
    assert_eq!(kinds, all.iter().map(|k| k.as_str()).collect());
    let policies: BTreeSet<&str> = manifests
        .iter()
        .map(|m| m.receipt_payload_policy.as_str())
        .collect();
    assert_eq!(
        policies,
        [
            ReceiptPayloadPolicy::FingerprintsOnly.as_str(),
            ReceiptPayloadPolicy::NoSuccessfulReceipt.as_str()
        ]
        .into()
    );
    let steps = manifests.iter().flat_map(|m| m.steps.iter().flatten());
    assert!(
        steps
            .clone()
            .any(|s| matches!(s, ScenarioStep::Delay { .. }))
    );
    assert!(steps.clone().any(|s| matches!(s,
        ScenarioStep::RuntimeFailure { failure, .. }
            if failure.code == Code::RuntimeRateLimited && failure.retry_after_ms.is_some())));
    // Two typed streams: one with reasoning, usage and an explicit finish
    // output, one with none of them.
    let streams: Vec<&Vec<ScenarioStreamEvent>> =
        manifests.iter().filter_map(|m| m.events.as_ref()).collect();
    let has = |events: &[ScenarioStreamEvent], kind: &str| events.iter().any(|e| e.kind() == kind);
    let explicit = |events: &[ScenarioStreamEvent]| {
        events.iter().any(|e| {
            matches!(
                e,
                ScenarioStreamEvent::Finish {
                    output: Some(_),
                    ..
                }
            )
        })
    };
    assert!(
        streams
            .iter()
            .any(|e| has(e, "reasoning") && has(e, "usage") && explicit(e))
    );
    assert!(
        streams
            .iter()
            .any(|e| !has(e, "reasoning") && !has(e, "usage") && !explicit(e))
    );
    // The inventory's receipt fingerprints are the transport's: they differ
    // from the in-process goldens exactly for the successes.
    for s in &inventory.scenarios {
        let golden = s
            .scenario
            .manifest
            .golden_receipt_fingerprint
            .as_deref()
            .unwrap();
        let success = s.entry.expectation.status.as_str() == "success";
        assert_eq!(
            golden != s.entry.expectation.receipt_fingerprint,
            success,
            "{}",
            s.entry.id
        );
    }
}

/// `lease-happy-path`: the request as hand-written canonical JSON (RFC 8785:
/// sorted keys, no white space), the success receipt likewise.
#[test]
fn the_happy_path_golden_is_reproduced_from_hand_written_canonical_json() {
    let request = concat!(
        r#"{"compiler":"templiqx","contract_id":"lease-term-extraction","contract_version":"0.1.0","#,
        r#""extensions":{},"messages":[{"content":"You extract lease terms as JSON. Use only facts "#,
        r#"stated in the source. Cite evidence by byte offsets; never invent values.","role":"system"},"#,
        r#"{"content":"Matter: MAT-2026-0107\nDocument LEASE-0007, clause clause-3:\nThe lease starts "#,
        r#"on 2026-03-01 and ends on 2027-02-28. Rent is EUR 1450.50 per month. Notice period: 60 "#,
        r#"days.\nCheck first: notice_days, start_date","role":"user"}],"output_schema":"#,
        r#"{"additionalProperties":false,"properties":{"end_date":{"description":"Last day of the "#,
        r#"lease.","format":"date","type":"string"},"evidence":{"items":{"additionalProperties":false,"#,
        r#""properties":{"document_id":{"minLength":1,"type":"string"},"end_offset":{"minimum":1,"#,
        r#""type":"integer"},"field":{"enum":["start_date","end_date","monthly_rent","notice_days"],"#,
        r#""type":"string"},"fragment_id":{"minLength":1,"type":"string"},"quote_sha256":"#,
        r#"{"maxLength":64,"minLength":64,"type":"string"},"start_offset":{"minimum":0,"#,
        r#""type":"integer"}},"required":["field","document_id","fragment_id","start_offset","#,
        r#""end_offset","quote_sha256"],"type":"object"},"minItems":1,"type":"array"},"#,
        r#""monthly_rent":{"description":"Rent per month in euros.","minimum":0,"type":"number"},"#,
        r#""notice_days":{"description":"Notice period in days.","minimum":0,"type":"integer"},"#,
        r#""start_date":{"description":"First day of the lease.","format":"date","type":"string"}},"#,
        r#""required":["start_date","end_date","monthly_rent","notice_days","evidence"],"#,
        r#""type":"object"},"required_capabilities":["structured_output"],"runtime_policy":"#,
        r#"{"max_output_tokens":800,"temperature":0},"target_capabilities":["structured_output"]}"#,
    );
    let request_fp = sha256_hex(request.as_bytes());
    let output_fp = "85433278e03f0bb43c399c4025709b5cb0397e0f8d5f85ee3351e1c8333edf60";
    let receipt = format!(
        r#"{{"outcome":"success","output_fingerprint":"{output_fp}","output_schema_valid":true,"request_fingerprint":"{request_fp}"}}"#
    );
    let golden = sha256_hex(receipt.as_bytes());
    assert_eq!(
        golden,
        "5ef06a55ffb5c3beb097960478243c39a970d978462c47cdfbb5d19cac795202"
    );
    let inventory = inventory();
    let s = inventory.get("lease-happy-path").unwrap();
    assert_eq!(
        s.scenario.manifest.golden_receipt_fingerprint.as_deref(),
        Some(golden.as_str())
    );
    assert_eq!(
        s.scenario.manifest.expected_output_fingerprint.as_deref(),
        Some(output_fp)
    );
    let report = run_conformance(&inventory, &common::options(ReceiptMode::InProcess));
    match &report.scenario("lease-happy-path").unwrap().receipt {
        Some(Receipt::Success {
            request_fingerprint,
            ..
        }) => assert_eq!(*request_fingerprint, request_fp),
        other => panic!("{other:?}"),
    }
    // Over the transport, the request fingerprint is the stub interaction's.
    let stub = r#"{"compiler":"templiqx-mock-gateway","contract_id":"lease-term-extraction","contract_version":"mock","extensions":{},"messages":[],"output_schema":{},"required_capabilities":[],"runtime_policy":{},"target_capabilities":[]}"#;
    let receipt = format!(
        r#"{{"outcome":"success","output_fingerprint":"{output_fp}","output_schema_valid":true,"request_fingerprint":"{}"}}"#,
        sha256_hex(stub.as_bytes())
    );
    assert_eq!(
        sha256_hex(receipt.as_bytes()),
        s.entry.expectation.receipt_fingerprint
    );
}

/// `lease-rate-limited` and `lease-invalid-output`: failure receipts by hand.
#[test]
fn failure_goldens_are_reproduced_from_hand_written_canonical_json() {
    let failure =
        r#"{"code":"TQX_RUNTIME_RATE_LIMITED","id":"provider-rate-limit","retry_after_ms":30000}"#;
    let receipt = format!(
        r#"{{"code":"TQX_RUNTIME_RATE_LIMITED","failure_fingerprint":"{}","outcome":"failure","retry_after_ms":30000}}"#,
        sha256_hex(failure.as_bytes())
    );
    let rate_limited = sha256_hex(receipt.as_bytes());
    assert_eq!(
        rate_limited,
        "d24706452ecb16cf2aa0e690aa5e74569fb3725fb7d12407fd7329b4c27eb5c0"
    );
    // A schema-invalid output: normalised to TQX_OUTPUT_SCHEMA, with the
    // output fingerprint as failure fingerprint.
    let output = r#"{"end_date":"2027-02-28","evidence":[],"monthly_rent":-1450.5,"notice_days":60,"start_date":"2026-02-30"}"#;
    let receipt = format!(
        r#"{{"code":"TQX_OUTPUT_SCHEMA","failure_fingerprint":"{}","outcome":"failure","retry_after_ms":null}}"#,
        sha256_hex(output.as_bytes())
    );
    let invalid = sha256_hex(receipt.as_bytes());
    assert_eq!(
        invalid,
        "18affce7a9eab275dea4239e7d89f8b3c7db875de6d16a02a09b03a8cc748679"
    );
    let inventory = inventory();
    for (id, fp) in [
        ("lease-rate-limited", &rate_limited),
        ("lease-invalid-output", &invalid),
    ] {
        let s = inventory.get(id).unwrap();
        assert_eq!(
            s.scenario.manifest.golden_receipt_fingerprint.as_ref(),
            Some(fp)
        );
        assert_eq!(&s.entry.expectation.receipt_fingerprint, fp);
    }
    let report = run_conformance(&inventory, &common::options(ReceiptMode::InProcess));
    let limited = report.scenario("lease-rate-limited").unwrap();
    assert_eq!(limited.elapsed_ms, 120);
    assert!(matches!(
        limited.receipt,
        Some(Receipt::Failure {
            code: Code::RuntimeRateLimited,
            retry_after_ms: Some(30000),
            ..
        })
    ));
    let invalid = report.scenario("lease-invalid-output").unwrap();
    let schema = invalid.check(CheckField::OutputSchemaValid).unwrap();
    assert_eq!(
        (schema.outcome, &schema.actual),
        (CheckOutcome::Match, &serde_json::json!(false))
    );
}
