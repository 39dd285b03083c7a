//! The payload-free scenario fingerprint (`docs/mock.md`, "Scenario
//! fingerprint"): pinned by goldens, sensitive to every element it includes,
//! blind to request text and payloads. Edits are made to the project's own
//! manifests; the external corpus's goldens are checked when it is there.

use crate::common;

use serde_json::{Value, json};
use templiqx_mock::{
    Scenario, ScenarioManifest, scenario_fingerprint, scenario_fingerprint_document,
};

/// A manifest of the project's own corpus, as JSON.
fn manifest_value(id: &str) -> Value {
    manifest_under(&common::own_root(), id)
}

fn manifest_under(root: &std::path::Path, id: &str) -> Value {
    let path = root.join(format!("crm3/scenarios/{id}/manifest.json"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// `lease-happy-path`'s scenario fingerprint, recomputed outside this crate
/// from the composition `docs/mock.md` documents.
const LEASE_HAPPY_PATH: &str = "300e7f60f621a6db3ae42e4a701958ea704b14c575d77e5077c3b55945a5d08f";

fn fp(v: &Value) -> String {
    scenario_fingerprint(
        &ScenarioManifest::from_json(&v.to_string()).unwrap_or_else(|e| panic!("{e}")),
    )
}

/// A change to a manifest.
type Edit = Box<dyn Fn(&mut Value)>;

#[test]
fn own_manifests_have_golden_fingerprints() {
    assert_eq!(fp(&manifest_value("lease-happy-path")), LEASE_HAPPY_PATH);
}

/// Goldens, recomputed outside this crate from the documented composition.
#[test]
fn external_corpus_manifests_have_golden_fingerprints() {
    let Some(root) = common::external_root() else {
        return;
    };
    assert_eq!(
        fp(&manifest_under(&root, "intake-document-01")),
        "4d9e615d1d58bfa828301745c3d1ed8723b0f8e1f12e33a864cd25163e689c24"
    );
    assert_eq!(
        fp(&manifest_under(&root, "ambiguous-date")),
        "fb6349e13b33851b062f9b22e9a950d5306fdc670a04610a384ec1666583be63"
    );
}

#[test]
fn the_fingerprinted_document_is_payload_free() {
    let m = ScenarioManifest::from_json(&manifest_value("lease-happy-path").to_string()).unwrap();
    assert_eq!(
        scenario_fingerprint_document(&m),
        json!({
            "api_version": "templiqx.mock/v1alpha1",
            "id": "lease-happy-path",
            "contract": "lease-term-extraction",
            "kind": "happy_path",
            "expected_status": "success",
            "expected_failure": null,
            "expected_diagnostics": [],
            "receipt_payload_policy": "fingerprints_only",
            "expected_output_fingerprint": "85433278e03f0bb43c399c4025709b5cb0397e0f8d5f85ee3351e1c8333edf60",
            "lifecycle": {"steps": [
                {"kind": "request_received", "id": "request-received"},
                {"kind": "delay", "id": "model-latency", "delay_ms": 40},
                {"kind": "runtime_success", "id": "model-answers", "output_schema_valid": true,
                 "output_fingerprint": null}
            ]},
            "evidence": [
                {"document_id": "LEASE-0007", "fragment_id": "clause-3",
                 "quote_sha256": "600a4e11044e7b72e4432ddc79d1ac71ea7aa54287a141c518f6a6c7d343bc2e"},
                {"document_id": "LEASE-0007", "fragment_id": "clause-3",
                 "quote_sha256": "7cd45c1acf8a9ce6dbb3bc4eeb4fc16a0fa9cb2408619fd1f8f2c66d9ece4a6b"}
            ],
            "document_expectation": {"status": "not_applicable", "unresolved_references": 0}
        })
    );
}

#[test]
fn changing_any_included_element_changes_it() {
    let base = manifest_value("lease-happy-path");
    let golden = fp(&base);
    let edits: Vec<(&str, Edit)> = vec![
        ("id", Box::new(|m| m["id"] = json!("lease-happy-path-2"))),
        (
            "contract",
            Box::new(|m| m["contract"] = json!("lease-summary-drafting")),
        ),
        ("kind", Box::new(|m| m["kind"] = json!("drafting"))),
        (
            "status",
            Box::new(|m| {
                m["expected_status"] = json!("failure");
                m["expected_failure"] = json!("TQX_OUTPUT_SCHEMA");
            }),
        ),
        (
            "diagnostics",
            Box::new(|m| m["expected_diagnostics"] = json!(["TQX_OUTPUT_SCHEMA"])),
        ),
        (
            "output fingerprint",
            Box::new(|m| {
                m["expected_output_fingerprint"] =
                    json!("54eae956be0ca2f14a0afc83294c656ebe7c1ee6358387094262faa4d46c8084");
            }),
        ),
        (
            "step id",
            Box::new(|m| m["steps"][0]["id"] = json!("received")),
        ),
        ("delay", Box::new(|m| m["steps"][1]["delay_ms"] = json!(41))),
        (
            "step removed",
            Box::new(|m| {
                m["steps"].as_array_mut().unwrap().remove(1);
            }),
        ),
        (
            "schema validity",
            Box::new(|m| m["steps"][2]["output_schema_valid"] = json!(false)),
        ),
        (
            "inline output",
            Box::new(|m| m["steps"][2]["output"] = json!({"x": 1})),
        ),
        (
            "evidence",
            Box::new(|m| m["evidence"][0]["fragment_id"] = json!("clause-4")),
        ),
        ("evidence removed", Box::new(|m| m["evidence"] = json!([]))),
        (
            "document",
            Box::new(|m| {
                m["document_expectation"] =
                    json!({"status": "rendered", "unresolved_references": 0})
            }),
        ),
        (
            "unresolved",
            Box::new(|m| {
                m["document_expectation"] =
                    json!({"status": "rendered", "unresolved_references": 1})
            }),
        ),
    ];
    for (what, edit) in edits {
        let mut m = base.clone();
        edit(&mut m);
        assert_ne!(fp(&m), golden, "{what}");
    }
    // The policy: on a failure scenario, where both policies are allowed.
    let failing = manifest_value("lease-invalid-output");
    let mut other = failing.clone();
    other["receipt_payload_policy"] = json!("no_successful_receipt");
    assert_ne!(fp(&other), fp(&failing));
    // A failure's code and retry hint.
    let failure = manifest_value("lease-missing-notice");
    for edit in [
        json!({"code": "TQX_RUNTIME_PERMANENT", "retry_after_ms": 5}),
        json!({"code": "TQX_RUNTIME_INVALID_RESPONSE"}),
    ] {
        let mut m = failure.clone();
        m["steps"][2]["failure"] = edit;
        m["expected_diagnostics"] = json!([]);
        m["expected_failure"] = m["steps"][2]["failure"]["code"].clone();
        let mut same = failure.clone();
        same["expected_diagnostics"] = json!([]);
        assert_ne!(fp(&m), fp(&same));
    }
}

#[test]
fn payloads_paths_free_text_and_goldens_do_not_enter_it() {
    let base = manifest_value("lease-missing-notice");
    let golden = fp(&base);
    let mut m = base.clone();
    m["steps"][2]["failure"]["detail"] = json!("other words");
    m["input"] = json!("../../evals/elsewhere.json");
    m["golden_receipt_fingerprint"] =
        json!("0000000000000000000000000000000000000000000000000000000000000000");
    assert_eq!(fp(&m), golden);
    // Sets do not depend on their order.
    let base = manifest_value("lease-happy-path");
    let mut m = base.clone();
    m["evidence"].as_array_mut().unwrap().reverse();
    assert_eq!(fp(&m), fp(&base));
}

#[test]
fn changing_the_request_text_of_the_input_file_does_not_change_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("corpus");
    templiqx_conformance_suites::copy_tree(&common::own_root().join("crm3"), &root.join("crm3"));
    let manifest = root.join("crm3/scenarios/lease-happy-path/manifest.json");
    let before = Scenario::load(&manifest, &root).unwrap();
    let request = root.join("crm3/evals/extraction-request.json");
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&request).unwrap()).unwrap();
    v["inputs"]["clause_text"] = json!("An entirely different clause.");
    std::fs::write(&request, v.to_string()).unwrap();
    let after = Scenario::load(&manifest, &root).unwrap();
    assert_ne!(before.request, after.request);
    assert_eq!(before.fingerprint(), after.fingerprint());
    assert_eq!(after.fingerprint(), LEASE_HAPPY_PATH);
}

#[test]
fn stream_texts_enter_only_as_digests() {
    let path = common::own_root().join("crm3/scenarios/lease-summary-streamed/manifest.json");
    let base: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let m = ScenarioManifest::from_json(&base.to_string()).unwrap();
    let doc = scenario_fingerprint_document(&m).to_string();
    assert!(
        !doc.contains("Dutch formatting"),
        "reasoning text leaked: {doc}"
    );
    assert!(
        !doc.contains("Lease summary"),
        "output payload leaked: {doc}"
    );
    let mut changed = base.clone();
    changed["events"][1]["text"] = json!("Other reasoning; ");
    assert_ne!(fp(&changed), fp(&base));
}
