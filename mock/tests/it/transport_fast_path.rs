//! `ScriptedRuntime::execute_with_request_fingerprint`, the transport fast
//! path: for every scenario of both corpora it returns exactly what the
//! port's `execute` returns with the receipt made a transport receipt, and
//! the receipts hash to the inventories' `receipt_fingerprint`s.

use crate::common;

use serde_json::{Map, json};
use templiqx::{Execution, ExecutionError, RuntimeAdapter, render};
use templiqx_build::Loader;
use templiqx_contracts::{CapabilityProfile, Code, Interaction, Receipt, RenderedMessage, Role};
use templiqx_mock::{
    Inventory, Scenario, ScenarioManifest, ScriptedRuntime, transport_receipt,
    transport_request_fingerprint,
};

/// `result` with its receipt (success or failure) as the transport
/// reports it.
fn in_transport_mode(
    result: Result<Execution, ExecutionError>,
    contract: &str,
) -> Result<Execution, ExecutionError> {
    match result {
        Ok(mut e) => {
            e.receipt = transport_receipt(&e.receipt, contract);
            Ok(e)
        }
        Err(mut e) => {
            e.receipt = transport_receipt(&e.receipt, contract);
            Err(e)
        }
    }
}

fn receipt(result: &Result<Execution, ExecutionError>) -> &Receipt {
    match result {
        Ok(e) => &e.receipt,
        Err(e) => &e.receipt,
    }
}

/// Runs both paths on fresh copies of the runtime of every scenario of
/// `inventory` whose request renders; the runtime provides `provided`.
/// Returns `(id, fast result)` per executed scenario.
fn compare_corpus(
    inventory: &Inventory,
    provided: &CapabilityProfile,
) -> Vec<(String, Result<Execution, ExecutionError>)> {
    let interactions: Vec<Interaction> = Loader::new(&inventory.corpus_root)
        .compile_package(&inventory.package_dir, &common::target())
        .unwrap()
        .into_iter()
        .map(|c| c.interaction.unwrap())
        .collect();
    let mut executed = Vec::new();
    for listed in &inventory.scenarios {
        let id = &listed.entry.id;
        let scenario = &listed.scenario;
        let contract = scenario.manifest.contract.as_str();
        let interaction = interactions
            .iter()
            .find(|i| &*i.contract_id == contract)
            .unwrap();
        let request = scenario.request.clone().unwrap_or_default();
        let Ok(rendered) = render(interaction, &request.inputs, &request.context) else {
            // Nothing executes (the gateway reports the render failure).
            continue;
        };
        let runtime = ScriptedRuntime::new(scenario, provided).unwrap();
        let (fast_runtime, full_runtime) = (runtime.fresh(), runtime.fresh());
        let fingerprint = transport_request_fingerprint(contract);
        let fast = fast_runtime.execute_with_request_fingerprint(&rendered, &fingerprint);
        let full = in_transport_mode(RuntimeAdapter::execute(&full_runtime, &rendered), contract);
        assert_eq!(fast, full, "{id}");
        assert_eq!(
            fast_runtime.clock().now_ms(),
            full_runtime.clock().now_ms(),
            "{id}: virtual time"
        );
        assert_eq!(
            fast_runtime.invocations(),
            full_runtime.invocations(),
            "{id}: invocations"
        );
        // The in-process path still covers the rendered request.
        if let Ok(e) = RuntimeAdapter::execute(&runtime.fresh(), &rendered) {
            assert_eq!(
                e.receipt,
                Receipt::for_output(
                    &rendered.request_fingerprint(),
                    &templiqx_contracts::canonical::fingerprint(&e.output),
                    true
                ),
                "{id}"
            );
        }
        // A second execution on the same script (the output fingerprint is
        // then the cached one) is the same again.
        assert_eq!(
            runtime
                .fresh()
                .execute_with_request_fingerprint(&rendered, &fingerprint),
            fast,
            "{id}: second execution"
        );
        executed.push((id.clone(), fast));
    }
    executed
}

/// Every executed scenario's fast receipt hashes to the inventory's
/// transport `receipt_fingerprint`; returns how many were compared.
fn assert_inventory_fingerprints(inventory: &Inventory) -> usize {
    let executed = compare_corpus(inventory, &common::target());
    for (id, result) in &executed {
        let entry = &inventory.get(id).unwrap().entry;
        assert_eq!(
            receipt(result).fingerprint(),
            entry.expectation.receipt_fingerprint,
            "{id}"
        );
    }
    executed.len()
}

#[test]
fn the_external_corpus_fast_path_equals_execute_in_transport_mode() {
    let Some(path) = common::external_inventory() else {
        return;
    };
    let inventory = Inventory::load(path).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(inventory.scenarios.len(), 8);
    // All eight render and execute: the eight receipt fingerprints of the
    // external inventory are reproduced.
    assert_eq!(assert_inventory_fingerprints(&inventory), 8);
}

#[test]
fn the_own_corpus_fast_path_equals_execute_in_transport_mode() {
    let inventory = Inventory::load(common::own_inventory()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(inventory.scenarios.len(), 7);
    assert_eq!(assert_inventory_fingerprints(&inventory), 7);
}

#[test]
fn the_capability_gate_is_the_ports_in_both_corpora() {
    // A runtime that provides nothing: every contract needs
    // `structured_output`, so the port's gate refuses before invoking.
    for path in [Some(common::own_inventory()), common::external_inventory()]
        .into_iter()
        .flatten()
    {
        let inventory = Inventory::load(path).unwrap_or_else(|e| panic!("{e}"));
        let executed = compare_corpus(&inventory, &CapabilityProfile::parse_list(""));
        assert!(!executed.is_empty());
        for (id, result) in executed {
            let error = result.expect_err(&id);
            assert_eq!(error.failure.code, Code::CapabilityUnsupported, "{id}");
            assert_eq!(error.attempts, 0, "{id}");
        }
    }
}

const RETRYING: &str = r#"api_version: templiqx/v1alpha1
id: retrying
version: 0.1.0
capabilities: [structured_output]
messages:
  - role: user
    content: [{ kind: text, value: "Answer." }]
output_schema: { type: object, required: [ok], properties: { ok: { type: boolean } } }
runtime_policy: { max_attempts: 3 }
"#;

fn scenario(yaml: &str) -> Scenario {
    let manifest = ScenarioManifest::from_yaml(yaml).unwrap_or_else(|e| panic!("{e}"));
    Scenario::from_parts(manifest, None, None).unwrap_or_else(|e| panic!("{e}"))
}

fn scripted(terminal: &str) -> Scenario {
    scenario(&format!(
        r#"
api_version: templiqx.mock/v1alpha1
id: scripted
contract: retrying
kind: happy_path
receipt_payload_policy: fingerprints_only
steps:
  - {{ id: received, kind: request_received }}
  - {{ id: wait, kind: delay, delay_ms: 10 }}
  - {terminal}
"#
    ))
}

#[test]
fn retries_schema_invalid_outputs_and_successes_match_too() {
    let interaction = templiqx_build::compile_str(RETRYING, "retrying.yaml", &common::target())
        .interaction
        .unwrap();
    let rendered = render(&interaction, &Map::new(), &Map::new()).unwrap();
    let fingerprint = transport_request_fingerprint("retrying");
    let cases = [
        (
            r#"{ id: timed-out, kind: runtime_failure, failure: { code: TQX_RUNTIME_TIMEOUT, detail: "no answer" } }"#,
            3,
            30,
        ),
        (
            r#"{ id: answered, kind: runtime_success, output: { ok: "yes" }, output_schema_valid: false }"#,
            1,
            10,
        ),
        (
            r#"{ id: answered, kind: runtime_success, output: { ok: true }, output_schema_valid: true }"#,
            1,
            10,
        ),
    ];
    for (terminal, attempts, elapsed_ms) in cases {
        let runtime = ScriptedRuntime::new(&scripted(terminal), &common::target()).unwrap();
        let fast = runtime.fresh();
        let fast_result = fast.execute_with_request_fingerprint(&rendered, &fingerprint);
        let full = in_transport_mode(
            RuntimeAdapter::execute(&runtime.fresh(), &rendered),
            "retrying",
        );
        assert_eq!(fast_result, full, "{terminal}");
        let made = match &fast_result {
            Ok(e) => e.attempts,
            Err(e) => e.attempts,
        };
        assert_eq!(made, attempts, "{terminal}");
        assert_eq!(fast.clock().now_ms(), elapsed_ms, "{terminal}");
        assert_eq!(fast.invocations(), attempts, "{terminal}");
    }
}

#[test]
fn a_success_receipt_covers_the_supplied_fingerprint_whatever_was_rendered() {
    let interaction = templiqx_build::compile_str(RETRYING, "retrying.yaml", &common::target())
        .interaction
        .unwrap();
    let runtime = ScriptedRuntime::new(
        &scripted(
            r#"{ id: answered, kind: runtime_success, output: { ok: true }, output_schema_valid: true }"#,
        ),
        &common::target(),
    )
    .unwrap();
    let supplied = "f".repeat(64);
    let a = render(&interaction, &Map::new(), &Map::new()).unwrap();
    let mut b = a.clone();
    b.messages = vec![RenderedMessage {
        role: Role::User,
        content: "something else entirely".into(),
    }];
    assert_ne!(a.request_fingerprint(), b.request_fingerprint());
    let fast_a = runtime
        .fresh()
        .execute_with_request_fingerprint(&a, &supplied)
        .unwrap();
    let fast_b = runtime
        .fresh()
        .execute_with_request_fingerprint(&b, &supplied)
        .unwrap();
    assert_eq!(fast_a, fast_b);
    assert_eq!(
        fast_a.receipt,
        Receipt::Success {
            request_fingerprint: supplied,
            output_fingerprint: templiqx_contracts::canonical::fingerprint(&json!({"ok": true})),
            output_schema_valid: true,
            diagnostics: Vec::new(),
        }
    );
}
