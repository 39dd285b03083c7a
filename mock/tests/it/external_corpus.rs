//! The external CRM3 corpus (read in place through
//! `templiqx-conformance-suites`; skipped with a visible line when absent,
//! required under CI), in both receipt modes (`docs/mock.md`, "Receipts
//! and receipt modes").

use crate::common;

use templiqx_contracts::Receipt;
use templiqx_mock::evidence::QuoteCheck;
use templiqx_mock::{
    CheckField, CheckOutcome, Inventory, ReceiptMode, ScenarioStatus, run_conformance,
};

const SUCCESSES: [&str; 3] = [
    "docx-unresolved-reference",
    "draft-with-citations",
    "intake-document-01",
];

/// The external inventory, loaded; `None` when the corpus is absent.
fn inventory() -> Option<Inventory> {
    let path = common::external_inventory()?;
    Some(Inventory::load(path).unwrap_or_else(|e| panic!("{e}")))
}

#[test]
fn the_inventory_loads() {
    let Some(inventory) = inventory() else {
        return;
    };
    assert_eq!(inventory.package, "crm3");
    assert_eq!(
        inventory.ids().collect::<Vec<_>>(),
        [
            "ambiguous-date",
            "contradictory-evidence",
            "docx-unresolved-reference",
            "draft-with-citations",
            "intake-document-01",
            "invalid-output-schema",
            "missing-notice-date",
            "missing-required-field",
        ]
    );
    assert_eq!(
        inventory.contracts,
        ["bli-61-date-term-extraction", "bli-62-document-drafting"]
    );
    let intake = &inventory.get("intake-document-01").unwrap().scenario;
    assert!(
        intake
            .request
            .as_ref()
            .unwrap()
            .inputs
            .contains_key("document_text")
    );
    assert!(intake.expected_output.is_some());
}

#[test]
fn in_process_everything_matches_except_the_foreign_success_goldens() {
    let Some(inventory) = inventory() else {
        return;
    };
    let report = run_conformance(&inventory, &common::options(ReceiptMode::InProcess));
    assert_eq!(report.scenarios.len(), 8);
    for s in &report.scenarios {
        for field in [
            CheckField::Contract,
            CheckField::ExpectedStatus,
            CheckField::ExpectedFailure,
            CheckField::ExpectedDiagnostics,
            CheckField::OutputSchemaValid,
            CheckField::ExpectedOutputFingerprint,
            CheckField::Evidence,
            CheckField::ReceiptPayloadPolicy,
            CheckField::Stream,
        ] {
            let check = s.check(field).unwrap();
            assert_eq!(check.outcome, CheckOutcome::Match, "{}: {check:#?}", s.id);
        }
        for field in [
            CheckField::ReceiptFingerprint,
            CheckField::DocumentExpectation,
        ] {
            let check = s.check(field).unwrap();
            assert_eq!(
                check.outcome,
                CheckOutcome::NotChecked,
                "{}: {check:#?}",
                s.id
            );
            assert!(check.note.is_some());
        }
        let golden = s.check(CheckField::GoldenReceiptFingerprint).unwrap();
        if SUCCESSES.contains(&s.id.as_str()) {
            // The golden covers another implementation's request encoding:
            // the report says so instead of failing silently.
            assert_eq!(golden.outcome, CheckOutcome::Differs, "{}", s.id);
            let note = golden.note.as_deref().unwrap();
            assert!(note.contains("another implementation"), "{note}");
            assert!(note.contains("request fingerprint"), "{note}");
            assert!(matches!(s.receipt, Some(Receipt::Success { .. })));
        } else {
            assert_eq!(golden.outcome, CheckOutcome::Match, "{}: {golden:#?}", s.id);
            assert_eq!(s.status, Some(ScenarioStatus::Failure));
        }
    }
    let mut failed: Vec<&str> = report.failed().map(|s| s.id.as_str()).collect();
    failed.sort_unstable();
    assert_eq!(failed, SUCCESSES);
    let text = report.to_string();
    assert!(text.contains("FAIL  intake-document-01"), "{text}");
    assert!(
        text.contains("golden_receipt_fingerprint differs"),
        "{text}"
    );
    assert!(
        text.contains("note: a success receipt covers the request fingerprint"),
        "{text}"
    );
    assert!(
        text.contains("not checked: receipt_fingerprint, document_expectation"),
        "{text}"
    );
    assert!(text.ends_with("result: 5 passed, 3 failed"), "{text}");
}

#[test]
fn in_transport_mode_all_eight_pass_completely() {
    let Some(inventory) = inventory() else {
        return;
    };
    let report = run_conformance(&inventory, &common::options(ReceiptMode::Transport));
    assert!(report.passed(), "{report}");
    for s in &report.scenarios {
        assert_eq!(
            s.check(CheckField::ReceiptFingerprint).unwrap().outcome,
            CheckOutcome::Match
        );
    }
    assert!(report.to_string().ends_with("result: 8 passed, 0 failed"));
}

#[test]
fn evidence_is_matched_and_quotes_are_verified_against_the_source_bytes() {
    let Some(inventory) = inventory() else {
        return;
    };
    let report = run_conformance(&inventory, &common::options(ReceiptMode::Transport));
    // intake-document-01: the quote is in the output; the request carries
    // document_text, so every output entry's hash is checked.
    let check = report
        .scenario("intake-document-01")
        .unwrap()
        .check(CheckField::Evidence)
        .unwrap();
    assert_eq!(check.actual["entries_found"], 4);
    assert_eq!(check.actual["quotes_verified"], 4);
    assert_eq!(
        check.actual["items"][0]["found_at"][0],
        "/output/evidence/3"
    );
    assert_eq!(check.actual["items"][0]["quote"]["quote"], "verified");
    // draft-with-citations: the entries are in the request's extracted
    // facts, which carry no source text.
    let check = report
        .scenario("draft-with-citations")
        .unwrap()
        .check(CheckField::Evidence)
        .unwrap();
    assert_eq!(check.outcome, CheckOutcome::Match);
    assert_eq!(check.actual["quotes_verified"], 0);
    assert_eq!(
        check.actual["items"][0]["found_at"][0],
        "/input/inputs/extracted_facts/evidence/0"
    );
    let quote: QuoteCheck = QuoteCheck::Unverifiable {
        reason: "the request carries no source text for SYN-DOC-0001#clause-2".into(),
    };
    assert_eq!(
        check.actual["items"][0]["quote"],
        serde_json::to_value(quote).unwrap()
    );
}

#[test]
fn elapsed_virtual_time_and_attempts_are_reported() {
    let Some(inventory) = inventory() else {
        return;
    };
    let report = run_conformance(&inventory, &common::options(ReceiptMode::InProcess));
    let intake = report.scenario("intake-document-01").unwrap();
    assert_eq!((intake.elapsed_ms, intake.attempts), (25, 1));
    let ambiguous = report.scenario("ambiguous-date").unwrap();
    assert_eq!((ambiguous.elapsed_ms, ambiguous.attempts), (0, 1));
}

#[test]
fn the_report_serialises_for_machines() {
    let Some(inventory) = inventory() else {
        return;
    };
    let report = run_conformance(&inventory, &common::options(ReceiptMode::InProcess));
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["receipt_mode"], "in_process");
    assert_eq!(json["scenarios"][4]["id"], "intake-document-01");
    let checks = json["scenarios"][4]["checks"].as_array().unwrap();
    let golden = checks
        .iter()
        .find(|c| c["field"] == "golden_receipt_fingerprint")
        .unwrap();
    assert_eq!(golden["outcome"], "differs");
    assert_eq!(
        golden["expected"],
        "b73126237c73c329bedcdd40e1fce86ebca9c0b09926c0fa2630da69cc869637"
    );
}
