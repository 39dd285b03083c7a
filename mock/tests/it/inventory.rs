//! Inventory loading fails closed, and tampering is caught: each test edits
//! a temporary copy of the project's own corpus (`examples/crm3`). The
//! external corpus is only loaded, untouched, when it is there.

use crate::common;

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use templiqx_contracts::Code;
use templiqx_mock::{
    CheckField, CheckOutcome, Inventory, MockError, ReceiptMode, run_conformance, run_scenario,
};

/// A temporary copy of a corpus root.
struct Copy {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl Copy {
    fn own() -> Copy {
        Copy::of(&common::own_root(), "crm3")
    }

    fn of(root: &Path, package: &str) -> Copy {
        let dir = tempfile::tempdir().unwrap();
        let copy = dir.path().join("corpus");
        templiqx_conformance_suites::copy_tree(&root.join(package), &copy.join(package));
        Copy {
            _dir: dir,
            root: copy,
        }
    }

    fn inventory_path(&self) -> PathBuf {
        self.root.join("crm3/scenarios/inventory.json")
    }

    fn load(&self) -> Result<Inventory, MockError> {
        Inventory::load(self.inventory_path())
    }

    fn edit(&self, rel: &str, f: impl FnOnce(&mut Value)) {
        let path = self.root.join(rel);
        let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        f(&mut v);
        std::fs::write(&path, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    }

    fn edit_inventory(&self, f: impl FnOnce(&mut Value)) {
        self.edit("crm3/scenarios/inventory.json", f);
    }
}

/// Asserts a `TQX_SCENARIO`-or-`code` diagnostic whose message names the
/// scenario and every needle.
#[track_caller]
fn fails_naming(result: Result<Inventory, MockError>, code: Code, needles: &[&str]) -> MockError {
    let error = result.expect_err("loading must fail closed");
    assert!(
        error.diagnostics.iter().any(|d| d.code == code
            && needles.iter().all(|n| d.message.contains(n)
                || d.json_pointer.as_deref().is_some_and(|p| p.contains(n)))
            && d.help.is_some()),
        "expected {code} naming {needles:?}, got:\n{error}"
    );
    error
}

#[test]
fn an_untouched_copy_loads() {
    Copy::own().load().unwrap();
    if let Some(external) = common::external_root() {
        Copy::of(&external, "crm3").load().unwrap();
    }
}

#[test]
fn a_tampered_expected_output_fingerprint_fails_loading_naming_scenario_and_field() {
    let copy = Copy::own();
    copy.edit("crm3/scenarios/lease-happy-path/manifest.json", |m| {
        m["expected_output_fingerprint"] =
            json!("0000000000000000000000000000000000000000000000000000000000000000");
    });
    let error = fails_naming(
        copy.load(),
        Code::Scenario,
        &["lease-happy-path", "expected_output_fingerprint"],
    );
    let d = &error.diagnostics[0];
    assert_eq!(
        d.file.as_deref(),
        Some("crm3/scenarios/lease-happy-path/manifest.json")
    );
    assert_eq!(
        d.json_pointer.as_deref(),
        Some("/expected_output_fingerprint")
    );
}

#[test]
fn inventory_drift_fails_loading_naming_scenario_and_field() {
    let cases: [(&str, Value, &str); 4] = [
        ("status", json!("success"), "expected_status"),
        (
            "diagnostic_code",
            json!("TQX_RUNTIME_PERMANENT"),
            "expected_failure",
        ),
        ("output_schema_valid", json!(true), "output_schema_valid"),
        (
            "output_fingerprint",
            json!("85433278e03f0bb43c399c4025709b5cb0397e0f8d5f85ee3351e1c8333edf60"),
            "expected_output_fingerprint",
        ),
    ];
    for (field, value, manifest_field) in cases {
        let copy = Copy::own();
        copy.edit_inventory(|inv| inv["scenarios"][0]["expectation"][field] = value.clone());
        let error = fails_naming(
            copy.load(),
            Code::Scenario,
            &["lease-ambiguous-rent", field, manifest_field],
        );
        let d = error
            .diagnostics
            .iter()
            .find(|d| d.message.contains(manifest_field))
            .unwrap();
        assert_eq!(d.file.as_deref(), Some("crm3/scenarios/inventory.json"));
        assert_eq!(
            d.json_pointer.as_deref(),
            Some(format!("/scenarios/0/expectation/{field}").as_str())
        );
    }
}

#[test]
fn duplicate_ids_fail_loading() {
    let copy = Copy::own();
    copy.edit_inventory(|inv| {
        let first = inv["scenarios"][0].clone();
        inv["scenarios"].as_array_mut().unwrap().push(first);
    });
    fails_naming(
        copy.load(),
        Code::Scenario,
        &["lease-ambiguous-rent", "listed twice", "/scenarios/7/id"],
    );
}

#[test]
fn an_id_that_differs_from_the_manifest_fails_loading() {
    let copy = Copy::own();
    copy.edit_inventory(|inv| inv["scenarios"][1]["id"] = json!("renamed"));
    fails_naming(
        copy.load(),
        Code::Scenario,
        &["renamed", "lease-happy-path"],
    );
}

#[test]
fn manifest_paths_leaving_the_corpus_root_fail_loading() {
    for path in [
        "../outside/manifest.json",
        "crm3/../../outside.json",
        "/etc/hostname",
        "crm3\\scenarios\\lease-ambiguous-rent\\manifest.yaml",
    ] {
        let copy = Copy::own();
        copy.edit_inventory(|inv| inv["scenarios"][0]["manifest"] = json!(path));
        fails_naming(
            copy.load(),
            Code::Scenario,
            &["lease-ambiguous-rent", "/scenarios/0/manifest"],
        );
    }
    // A manifest's own paths are confined the same way.
    let copy = Copy::own();
    copy.edit("crm3/scenarios/lease-missing-notice/manifest.json", |m| {
        m["input"] = json!("../../../../outside.json");
    });
    fails_naming(
        copy.load(),
        Code::Scenario,
        &["lease-missing-notice", "`input`", "leaves the corpus root"],
    );
}

#[cfg(unix)]
#[test]
fn a_symlink_out_of_the_corpus_fails_loading() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("request.json"), r#"{"inputs": {}}"#).unwrap();
    let copy = Copy::own();
    std::os::unix::fs::symlink(
        outside.path().join("request.json"),
        copy.root.join("crm3/evals/linked.json"),
    )
    .unwrap();
    copy.edit("crm3/scenarios/lease-missing-notice/manifest.json", |m| {
        m["input"] = json!("../../evals/linked.json");
    });
    fails_naming(
        copy.load(),
        Code::Scenario,
        &["lease-missing-notice", "`input`", "symlink"],
    );
}

#[test]
fn a_contract_the_package_does_not_list_fails_loading() {
    let copy = Copy::own();
    copy.edit("crm3/scenarios/lease-missing-notice/manifest.json", |m| {
        m["contract"] = json!("lease-unknown");
    });
    fails_naming(
        copy.load(),
        Code::Scenario,
        &["lease-missing-notice", "lease-unknown", "templiqx.yaml"],
    );
}

#[test]
fn the_inventory_must_name_its_package_and_be_strict() {
    let copy = Copy::own();
    copy.edit_inventory(|inv| inv["package"] = json!("other"));
    fails_naming(
        copy.load(),
        Code::Scenario,
        &["other", "crm3-example", "/package"],
    );
    let copy = Copy::own();
    copy.edit_inventory(|inv| inv["scenarios"][2]["expectation"]["latency_ms"] = json!(1));
    fails_naming(
        copy.load(),
        Code::UnknownField,
        &["latency_ms", "/scenarios/2/expectation/latency_ms"],
    );
    let copy = Copy::own();
    copy.edit_inventory(|inv| inv["api_version"] = json!("templiqx.mock/v0"));
    fails_naming(copy.load(), Code::ApiVersion, &["templiqx.mock/v0"]);
    let copy = Copy::own();
    copy.edit_inventory(|inv| {
        inv["scenarios"][2]["expectation"]["receipt_fingerprint"] = json!("x")
    });
    fails_naming(
        copy.load(),
        Code::Scenario,
        &["lease-invalid-output", "receipt_fingerprint"],
    );
}

#[test]
fn an_inventory_without_scenarios_fails_loading() {
    // A conformance run over nothing would pass: loading fails closed.
    let copy = Copy::own();
    copy.edit_inventory(|inv| inv["scenarios"] = json!([]));
    let error = fails_naming(copy.load(), Code::Scenario, &["no scenarios", "/scenarios"]);
    assert_eq!(error.diagnostics.len(), 1, "{error}");
    let d = &error.diagnostics[0];
    assert_eq!(d.file.as_deref(), Some("crm3/scenarios/inventory.json"));
}

#[test]
fn a_manifest_that_is_not_utf8_fails_loading_at_the_byte() {
    let copy = Copy::own();
    let rel = "crm3/scenarios/lease-missing-notice/manifest.json";
    let path = copy.root.join(rel);
    let text = std::fs::read_to_string(&path).unwrap();
    // Latin-1 `é` right after the id's opening quote.
    let at = text.find("\"lease-missing-notice\"").unwrap() + 1;
    let bytes = [&text.as_bytes()[..at], b"\xE9", &text.as_bytes()[at..]].concat();
    std::fs::write(&path, bytes).unwrap();
    let error = copy.load().unwrap_err();
    let d = error
        .diagnostics
        .iter()
        .find(|d| d.code == Code::ParseJson)
        .unwrap_or_else(|| panic!("{error}"));
    assert_eq!(d.file.as_deref(), Some(rel));
    let line = text[..at].lines().count();
    let column = text[..at].lines().last().unwrap().chars().count() + 1;
    let start = d.span.unwrap().start;
    assert_eq!((start.line as usize, start.column as usize), (line, column));
    assert!(d.help.as_deref().unwrap().contains("UTF-8"), "{d}");
    assert!(
        error.diagnostics.iter().all(|d| d.code != Code::Io),
        "{error}"
    );
}

#[test]
fn byte_order_marks_in_json_documents_are_skipped() {
    let plain = Copy::own();
    let bom = Copy::own();
    for rel in [
        "crm3/scenarios/inventory.json",
        "crm3/scenarios/lease-missing-notice/manifest.json",
    ] {
        let path = bom.root.join(rel);
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, format!("\u{feff}{text}")).unwrap();
    }
    let (a, b) = (plain.load().unwrap(), bom.load().unwrap());
    let fingerprints = |i: &Inventory| -> Vec<String> {
        i.scenarios
            .iter()
            .map(|s| s.scenario.fingerprint())
            .collect()
    };
    assert_eq!(fingerprints(&a), fingerprints(&b));
}

#[test]
fn every_problem_is_reported_at_once() {
    let copy = Copy::own();
    copy.edit_inventory(|inv| {
        inv["scenarios"][0]["expectation"]["status"] = json!("success");
        inv["scenarios"][6]["manifest"] = json!("../x.json");
    });
    let error = copy.load().unwrap_err();
    assert!(error.diagnostics.len() >= 2, "{error}");
    assert!(error.to_string().contains("= help: "));
}

#[test]
fn only_listed_scenarios_are_addressable() {
    let copy = Copy::own();
    // A manifest directory that merely exists is not a scenario.
    let extra = copy.root.join("crm3/scenarios/unlisted");
    std::fs::create_dir_all(&extra).unwrap();
    std::fs::copy(
        copy.root
            .join("crm3/scenarios/lease-missing-notice/manifest.json"),
        extra.join("manifest.json"),
    )
    .unwrap();
    let inventory = copy.load().unwrap();
    assert_eq!(inventory.scenarios.len(), 7);
    let options = common::options(ReceiptMode::Transport);
    assert!(run_scenario(&inventory, "unlisted", &options).is_none());
    assert!(
        run_scenario(&inventory, "lease-missing-notice", &options)
            .unwrap()
            .passed()
    );
}

#[test]
fn a_declared_schema_validity_the_schema_disagrees_with_fails_the_scenario() {
    // Manifest and inventory agree (so loading passes), but the output
    // schema judges the step's output invalid: the harness checks the
    // declaration against the schema instead of echoing it.
    let copy = Copy::own();
    copy.edit("crm3/scenarios/lease-invalid-output/manifest.json", |m| {
        m["steps"][1]["output_schema_valid"] = json!(true);
    });
    copy.edit_inventory(|inv| {
        for entry in inv["scenarios"].as_array_mut().unwrap() {
            if entry["id"] == "lease-invalid-output" {
                entry["expectation"]["output_schema_valid"] = json!(true);
            }
        }
    });
    let inventory = copy.load().unwrap();
    let report = run_conformance(&inventory, &common::options(ReceiptMode::InProcess));
    let s = report.scenario("lease-invalid-output").unwrap();
    assert!(!s.passed());
    let check = s.check(CheckField::OutputSchemaValid).unwrap();
    assert_eq!(
        (&check.expected, &check.actual),
        (&json!(true), &json!(false))
    );
    assert_eq!(report.failed().count(), 1);
    assert!(
        report
            .to_string()
            .contains("output_schema_valid differs: expected true, actual false"),
        "{report}"
    );
}

#[test]
fn a_changed_failure_code_fails_the_scenario() {
    let copy = Copy::own();
    copy.edit("crm3/scenarios/lease-missing-notice/manifest.json", |m| {
        m["steps"][2]["failure"]["code"] = json!("TQX_RUNTIME_UNAVAILABLE");
    });
    let inventory = copy.load().unwrap();
    for mode in [ReceiptMode::InProcess, ReceiptMode::Transport] {
        let report = run_conformance(&inventory, &common::options(mode));
        let s = report.scenario("lease-missing-notice").unwrap();
        assert!(!s.passed());
        let differing: Vec<CheckField> = s.differing().map(|c| c.field).collect();
        let receipt = match mode {
            ReceiptMode::InProcess => CheckField::GoldenReceiptFingerprint,
            ReceiptMode::Transport => CheckField::ReceiptFingerprint,
        };
        assert_eq!(
            differing,
            [
                CheckField::ExpectedFailure,
                CheckField::ExpectedDiagnostics,
                receipt
            ]
        );
        let failure = s.check(CheckField::ExpectedFailure).unwrap();
        assert_eq!(
            (&failure.expected, &failure.actual),
            (
                &json!("TQX_RUNTIME_PERMANENT"),
                &json!("TQX_RUNTIME_UNAVAILABLE")
            )
        );
        // The others still pass.
        assert_eq!(report.failed().count(), 1);
        assert!(report.to_string().contains("expected_failure differs: expected \"TQX_RUNTIME_PERMANENT\", actual \"TQX_RUNTIME_UNAVAILABLE\""));
    }
}

#[test]
fn a_changed_quote_hash_in_a_manifest_fails_the_scenario() {
    let copy = Copy::own();
    copy.edit("crm3/scenarios/lease-happy-path/manifest.json", |m| {
        m["evidence"][0]["quote_sha256"] =
            json!("f36295a8293cb1e891373f4e64f211deaff2ac9e15211fda895608eddc4cdccb");
    });
    let inventory = copy.load().unwrap();
    let report = run_conformance(&inventory, &common::options(ReceiptMode::Transport));
    let s = report.scenario("lease-happy-path").unwrap();
    assert_eq!(
        s.differing().map(|c| c.field).collect::<Vec<_>>(),
        [CheckField::Evidence]
    );
    assert_eq!(
        s.check(CheckField::Evidence).unwrap().actual["items"][0]["found_at"],
        json!([])
    );
}

/// The output's quote hash and every fingerprint that covers the output are
/// changed consistently: only the byte-range check can notice.
#[test]
fn a_quote_hash_that_is_not_the_source_bytes_fails_the_scenario() {
    let copy = Copy::own();
    let forged = "f36295a8293cb1e891373f4e64f211deaff2ac9e15211fda895608eddc4cdccb";
    let mut output = Value::Null;
    copy.edit("crm3/evals/extraction-output.json", |o| {
        o["evidence"][0]["quote_sha256"] = json!(forged);
        output = o.clone();
    });
    let output_fp = templiqx_contracts::canonical::fingerprint(&output);
    copy.edit("crm3/scenarios/lease-happy-path/manifest.json", |m| {
        m["expected_output_fingerprint"] = json!(output_fp);
    });
    let receipt = templiqx_contracts::Receipt::Success {
        request_fingerprint: templiqx_mock::transport_request_fingerprint("lease-term-extraction"),
        output_fingerprint: output_fp.clone(),
        output_schema_valid: true,
        diagnostics: Vec::new(),
    };
    copy.edit_inventory(|inv| {
        let e = &mut inv["scenarios"][1]["expectation"];
        e["output_fingerprint"] = json!(output_fp);
        e["receipt_fingerprint"] = json!(receipt.fingerprint());
    });
    let inventory = copy.load().unwrap_or_else(|e| panic!("{e}"));
    let report = run_conformance(&inventory, &common::options(ReceiptMode::Transport));
    let s = report.scenario("lease-happy-path").unwrap();
    assert_eq!(
        s.differing().map(|c| c.field).collect::<Vec<_>>(),
        [CheckField::Evidence]
    );
    let evidence = s.check(CheckField::Evidence).unwrap();
    assert_eq!(evidence.outcome, CheckOutcome::Differs);
    let mismatch = &evidence.actual["quote_mismatches"][0];
    assert_eq!(mismatch["pointer"], "/output/evidence/0");
    assert!(
        mismatch["reason"]
            .as_str()
            .unwrap()
            .contains("is not the SHA-256 of bytes 20..30 of /input/inputs/clause_text"),
        "{mismatch}"
    );
    // The drafting scenarios carry the same entry in their request, without
    // source text: unchanged, they still pass.
    assert!(report.scenario("lease-summary-document").unwrap().passed());
}

#[test]
fn the_own_corpus_is_tamper_evident_too() {
    let copy = Copy::own();
    copy.edit("crm3/scenarios/lease-rate-limited/manifest.json", |m| {
        m["steps"][2]["failure"]["retry_after_ms"] = json!(60000);
    });
    let inventory = copy.load().unwrap();
    let report = run_conformance(&inventory, &common::options(ReceiptMode::InProcess));
    let s = report.scenario("lease-rate-limited").unwrap();
    assert_eq!(
        s.differing().map(|c| c.field).collect::<Vec<_>>(),
        [CheckField::GoldenReceiptFingerprint]
    );
}

#[test]
fn a_request_that_does_not_render_fails_with_its_diagnostics() {
    let copy = Copy::own();
    copy.edit("crm3/evals/extraction-request.json", |r| {
        r["inputs"].as_object_mut().unwrap().remove("clause_text");
    });
    let inventory = copy.load().unwrap();
    let report = run_conformance(&inventory, &common::options(ReceiptMode::Transport));
    let s = report.scenario("lease-happy-path").unwrap();
    assert!(!s.passed());
    assert_eq!(s.receipt, None);
    let failure = s.check(CheckField::ExpectedFailure).unwrap();
    assert_eq!(failure.actual, json!("TQX_VALUE_INVALID"));
    let note = s
        .check(CheckField::ExpectedDiagnostics)
        .unwrap()
        .note
        .as_deref()
        .unwrap();
    assert!(note.contains("/inputs/clause_text"), "{note}");
    assert_eq!(
        s.check(CheckField::Stream).unwrap().outcome,
        CheckOutcome::NotChecked
    );
}

#[test]
fn a_contract_that_does_not_compile_fails_its_scenarios() {
    let copy = Copy::own();
    let path = copy.root.join("crm3/contracts/lease-summary-drafting.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        text.replace("path: context.client_name", "path: context.client_nmae"),
    )
    .unwrap();
    let inventory = copy.load().unwrap();
    let report = run_conformance(&inventory, &common::options(ReceiptMode::Transport));
    for id in ["lease-summary-document", "lease-summary-streamed"] {
        let s = report.scenario(id).unwrap();
        let check = s.check(CheckField::Contract).unwrap();
        assert_eq!(check.outcome, CheckOutcome::Differs);
        assert_eq!(check.actual, json!(["TQX_REF_UNKNOWN"]));
        assert_eq!(s.status, None);
    }
    assert_eq!(report.failed().count(), 2);
}
