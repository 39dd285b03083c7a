//! `ScriptedRuntime` on the adapter port: virtual time, attempts, streaming
//! parity, the synchronous aggregation of typed streams, failures.

use crate::common;

use serde_json::{Value, json};
use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};
use templiqx::{AsyncRuntimeAdapter, RuntimeAdapter, Usage, render};
use templiqx_build::Loader;
use templiqx_contracts::{CapabilityProfile, Code, Interaction, Receipt, StreamEvent};
use templiqx_mock::{
    Inventory, Scenario, ScenarioManifest, ScriptedRuntime, StreamAggregate, VirtualClock,
};

/// Compiles the inventory's package and returns its interactions by id.
fn interactions(inventory: &Inventory) -> Vec<Interaction> {
    Loader::new(&inventory.corpus_root)
        .compile_package(&inventory.package_dir, &common::target())
        .unwrap()
        .into_iter()
        .map(|c| c.interaction.unwrap())
        .collect()
}

fn interaction<'i>(all: &'i [Interaction], id: &str) -> &'i Interaction {
    all.iter().find(|i| &*i.contract_id == id).unwrap()
}

/// A contract whose runtime policy allows three attempts.
const RETRYING: &str = r#"api_version: templiqx/v1alpha1
id: retrying
version: 0.1.0
capabilities: [structured_output]
messages:
  - role: user
    content: [{ kind: text, value: "Answer." }]
output_schema: { type: object }
runtime_policy: { max_attempts: 3 }
"#;

fn retrying_contract() -> Interaction {
    templiqx_build::compile_str(RETRYING, "retrying.yaml", &common::target())
        .interaction
        .unwrap()
}

fn scenario(yaml: &str) -> Scenario {
    let manifest = ScenarioManifest::from_yaml(yaml).unwrap_or_else(|e| panic!("{e}"));
    Scenario::from_parts(manifest, None, None).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn a_billion_millisecond_delay_executes_at_once_and_reports_that_time() {
    let s = scenario(
        r#"
api_version: templiqx.mock/v1alpha1
id: very-slow
contract: retrying
kind: happy_path
expected_output_fingerprint: "4062edaf750fb8074e7e83e0c9028c94e32468a8b6f1614774328ef045150f93"
receipt_payload_policy: fingerprints_only
steps:
  - { id: received, kind: request_received }
  - { id: latency, kind: delay, delay_ms: 1000000000 }
  - { id: answered, kind: runtime_success, output: { ok: true }, output_schema_valid: true }
"#,
    );
    let contract = retrying_contract();
    let request = render(&contract, &serde_json::Map::new(), &serde_json::Map::new()).unwrap();
    let clock = VirtualClock::new();
    let runtime = ScriptedRuntime::new(&s, &common::target())
        .unwrap()
        .with_clock(clock.clone());
    let execution = RuntimeAdapter::execute(&runtime, &request).unwrap();
    assert_eq!(clock.now_ms(), 1_000_000_000);
    assert_eq!(execution.attempts, 1);
    // Through the harness (an inventory in a temporary corpus), the report
    // carries the same elapsed virtual time: 11.6 days.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("pkg/contracts")).unwrap();
    std::fs::create_dir_all(root.join("pkg/scenarios/very-slow")).unwrap();
    std::fs::write(
        root.join("pkg/templiqx.yaml"),
        "api_version: templiqx/v1alpha1\npackage: pkg\nversion: 0.1.0\ncontracts: [retrying]\nprovenance: {}\n",
    )
    .unwrap();
    std::fs::write(root.join("pkg/contracts/retrying.yaml"), RETRYING).unwrap();
    std::fs::write(
        root.join("pkg/scenarios/very-slow/manifest.json"),
        serde_json::to_string(&s.manifest).unwrap(),
    )
    .unwrap();
    let transport = templiqx_mock::transport_receipt(&execution.receipt, "retrying").fingerprint();
    std::fs::write(
        root.join("pkg/scenarios/inventory.json"),
        json!({
            "api_version": "templiqx.mock/v1alpha1",
            "package": "pkg",
            "scenarios": [{
                "id": "very-slow",
                "manifest": "pkg/scenarios/very-slow/manifest.json",
                "expectation": {"status": "success", "output_schema_valid": true,
                                "output_fingerprint": s.manifest.expected_output_fingerprint,
                                "receipt_fingerprint": transport}
            }]
        })
        .to_string(),
    )
    .unwrap();
    let inventory = Inventory::load(root.join("pkg/scenarios/inventory.json")).unwrap();
    let report = templiqx_mock::run_scenario(
        &inventory,
        "very-slow",
        &common::options(templiqx_mock::ReceiptMode::Transport),
    )
    .unwrap();
    assert_eq!(report.elapsed_ms, 1_000_000_000);
    assert!(report.passed(), "{report:#?}");
    assert_eq!(report.receipt_fingerprint, Some(transport));
}

#[test]
fn attempts_are_counted_per_execute_call() {
    let s = scenario(
        r#"
api_version: templiqx.mock/v1alpha1
id: flaky
contract: retrying
kind: failure
expected_failure: TQX_RUNTIME_TIMEOUT
receipt_payload_policy: no_successful_receipt
steps:
  - { id: received, kind: request_received }
  - { id: wait, kind: delay, delay_ms: 10 }
  - { id: timed-out, kind: runtime_failure, failure: { code: TQX_RUNTIME_TIMEOUT, detail: "no answer" } }
"#,
    );
    let contract = retrying_contract();
    let request = render(&contract, &serde_json::Map::new(), &serde_json::Map::new()).unwrap();
    let runtime = ScriptedRuntime::new(&s, &common::target()).unwrap();
    for call in 1..=2 {
        let error = RuntimeAdapter::execute(&runtime, &request).unwrap_err();
        assert_eq!(error.failure.code, Code::RuntimeTimeout);
        // Each call retries the transient failure up to max_attempts …
        assert_eq!(error.attempts, 3, "call {call}");
        // … and every attempt replays the delay.
        assert_eq!(runtime.clock().now_ms(), 30 * call);
    }
    assert_eq!(runtime.invocations(), 6);
}

#[test]
fn a_fresh_copy_replays_from_the_start_on_its_own_clock() {
    let s = scenario(
        r#"
api_version: templiqx.mock/v1alpha1
id: flaky
contract: retrying
kind: failure
expected_failure: TQX_RUNTIME_TIMEOUT
receipt_payload_policy: no_successful_receipt
steps:
  - { id: received, kind: request_received }
  - { id: wait, kind: delay, delay_ms: 10 }
  - { id: timed-out, kind: runtime_failure, failure: { code: TQX_RUNTIME_TIMEOUT, detail: "no answer" } }
"#,
    );
    let contract = retrying_contract();
    let request = render(&contract, &serde_json::Map::new(), &serde_json::Map::new()).unwrap();
    let template = ScriptedRuntime::new(&s, &common::target()).unwrap();
    let first = RuntimeAdapter::execute(&template, &request).unwrap_err();
    let fresh = template.fresh();
    assert_eq!((fresh.clock().now_ms(), fresh.invocations()), (0, 0));
    let again = RuntimeAdapter::execute(&fresh, &request).unwrap_err();
    assert_eq!(again, first);
    assert_eq!((fresh.clock().now_ms(), fresh.invocations()), (30, 3));
    // The template's own state is untouched by the copy.
    assert_eq!((template.clock().now_ms(), template.invocations()), (30, 3));
    assert_eq!(
        RuntimeAdapter::descriptor(&fresh),
        RuntimeAdapter::descriptor(&template)
    );
}

#[test]
fn a_failure_carries_the_step_id_and_the_retry_hint() {
    let inventory = Inventory::load(common::own_inventory()).unwrap();
    let all = interactions(&inventory);
    let s = &inventory.get("lease-rate-limited").unwrap().scenario;
    let request = s.request.as_ref().unwrap();
    let rendered = render(
        interaction(&all, "lease-term-extraction"),
        &request.inputs,
        &request.context,
    )
    .unwrap();
    let runtime = ScriptedRuntime::new(s, &common::target()).unwrap();
    let error = RuntimeAdapter::execute(&runtime, &rendered).unwrap_err();
    assert_eq!(error.failure.id, "provider-rate-limit");
    assert_eq!(error.failure.retry_after_ms, Some(30_000));
    assert_eq!(
        error.failure.detail,
        "provider quota exhausted for this minute"
    );
    assert_eq!(error.receipt, error.failure.receipt());
    assert_eq!(error.attempts, 1, "rate limiting is not retried");
    assert_eq!(
        error.diagnostics[0].help.as_deref(),
        Some("retry after 30000 ms")
    );
    assert_eq!(runtime.clock().now_ms(), 120);
}

#[test]
fn the_capability_gate_applies() {
    let inventory = Inventory::load(common::own_inventory()).unwrap();
    let all = interactions(&inventory);
    let s = &inventory.get("lease-happy-path").unwrap().scenario;
    let request = s.request.as_ref().unwrap();
    let rendered = render(
        interaction(&all, "lease-term-extraction"),
        &request.inputs,
        &request.context,
    )
    .unwrap();
    let runtime = ScriptedRuntime::new(s, &CapabilityProfile::default()).unwrap();
    let error = RuntimeAdapter::execute(&runtime, &rendered).unwrap_err();
    assert_eq!(error.failure.code, Code::CapabilityUnsupported);
    assert_eq!((error.attempts, runtime.invocations()), (0, 0));
    assert_eq!(runtime.clock().now_ms(), 0);
}

/// For every scenario of both corpora: `Complete` carries exactly
/// `execute`'s receipt, `Failed` the failure and its code, and the
/// replayed deltas are the fixture's.
#[test]
fn streaming_matches_execute_for_every_scenario() {
    for path in [Some(common::own_inventory()), common::external_inventory()]
        .into_iter()
        .flatten()
    {
        let inventory = Inventory::load(&path).unwrap();
        let all = interactions(&inventory);
        for entry in &inventory.scenarios {
            let s = &entry.scenario;
            let request = s.request.clone().unwrap_or_default();
            let rendered = render(
                interaction(&all, &s.manifest.contract),
                &request.inputs,
                &request.context,
            )
            .unwrap();
            let runtime = ScriptedRuntime::new(s, &common::target()).unwrap();
            let executed = RuntimeAdapter::execute(&runtime, &rendered);
            let streaming = ScriptedRuntime::new(s, &common::target()).unwrap();
            let mut events = Vec::new();
            let streamed =
                RuntimeAdapter::execute_streaming(&streaming, &rendered, &mut |e| events.push(e));
            let (terminal, deltas) = events.split_last().unwrap();
            match (&executed, &streamed, terminal) {
                (Ok(a), Ok(b), StreamEvent::Complete { receipt }) => {
                    assert_eq!(receipt, &a.receipt, "{}", entry.entry.id);
                    assert_eq!(b.receipt, a.receipt);
                    assert!(matches!(receipt, Receipt::Success { .. }));
                }
                (Err(a), Err(b), StreamEvent::Failed { failure }) => {
                    assert_eq!(failure, &a.failure, "{}", entry.entry.id);
                    assert_eq!(failure.code, b.failure.code);
                    assert_eq!(Some(failure.code), s.manifest.expected_failure);
                    assert_eq!(b.receipt, a.receipt);
                }
                other => panic!("{}: {other:?}", entry.entry.id),
            }
            let texts: Vec<&str> = deltas
                .iter()
                .map(|e| match e {
                    StreamEvent::Delta { text } => text.as_str(),
                    other => panic!("{}: {other:?}", entry.entry.id),
                })
                .collect();
            assert_eq!(texts, runtime.stream_deltas(), "{}", entry.entry.id);
            assert_eq!(streaming.clock().now_ms(), runtime.clock().now_ms());
        }
    }
}

fn own_aggregate(id: &str) -> (StreamAggregate, Option<Usage>) {
    let inventory = Inventory::load(common::own_inventory()).unwrap();
    let all = interactions(&inventory);
    let s = &inventory.get(id).unwrap().scenario;
    let request = s.request.as_ref().unwrap();
    let rendered = render(
        interaction(&all, &s.manifest.contract),
        &request.inputs,
        &request.context,
    )
    .unwrap();
    let runtime = ScriptedRuntime::new(s, &common::target()).unwrap();
    let execution = RuntimeAdapter::execute(&runtime, &rendered).unwrap();
    let aggregate = runtime.aggregate().unwrap().clone();
    assert_eq!(execution.output, aggregate.output);
    (aggregate, execution.usage)
}

fn drafting_output() -> Value {
    serde_json::from_str(
        &std::fs::read_to_string(common::own_root().join("crm3/evals/drafting-output.json"))
            .unwrap(),
    )
    .unwrap()
}

const DRAFT_TEXT: &str = concat!(
    r#"{"title": "Lease summary", "summary": "The lease runs from 1 March 2026 to 28 Februa"#,
    r#"ry 2027 at EUR 1.450,50 per month, with 60 days' notice.", "merge_fields": {"client""#,
    r#": "Voorbeeld Vastgoed B.V.", "term": "01-03-2026 – 28-02-2027", "rent": "1.450,50"}}"#,
);

/// Golden: reasoning and deltas concatenated in event order, usage summed,
/// the explicit finish output returned.
#[test]
fn the_streamed_drafting_aggregates_to_its_golden() {
    let (aggregate, usage) = own_aggregate("lease-summary-streamed");
    assert_eq!(
        aggregate.reasoning,
        "The validated facts give the term and the rent; the client locale is nl-NL, so dates and amounts use Dutch formatting."
    );
    assert_eq!(aggregate.text, DRAFT_TEXT);
    let sum = Usage {
        input_tokens: 412,
        output_tokens: 96,
        cached_input_tokens: 0,
    };
    assert_eq!((aggregate.usage, usage), (Some(sum), Some(sum)));
    assert!(aggregate.explicit_output);
    assert_eq!(aggregate.output, drafting_output());
}

/// Golden: without a finish output, the concatenated deltas are the JSON
/// output; without usage events there is no usage.
#[test]
fn the_delta_only_stream_aggregates_to_its_golden() {
    let (aggregate, usage) = own_aggregate("lease-summary-document");
    assert_eq!(aggregate.reasoning, "");
    assert_eq!(aggregate.text, DRAFT_TEXT);
    assert_eq!((aggregate.usage, usage), (None, None));
    assert!(!aggregate.explicit_output);
    assert_eq!(aggregate.output, drafting_output());
}

#[test]
fn an_explicit_finish_output_takes_precedence_over_the_deltas() {
    let manifest = ScenarioManifest::from_json(
        &json!({
            "api_version": "templiqx.mock/v1alpha1", "id": "precedence", "contract": "retrying",
            "kind": "happy_path", "receipt_payload_policy": "fingerprints_only",
            "events": [
                {"kind": "start", "id": "s"},
                {"kind": "delta", "id": "d1", "text": "{\"draft\": "},
                {"kind": "usage", "id": "u1", "input_tokens": 5, "output_tokens": 1},
                {"kind": "reasoning", "id": "r", "text": "b"},
                {"kind": "delta", "id": "d2", "text": "1}"},
                {"kind": "usage", "id": "u2", "input_tokens": 0, "output_tokens": 2},
                {"kind": "end", "id": "e"},
                {"kind": "finish", "id": "f", "output": {"final": 2}, "output_schema_valid": true}
            ]
        })
        .to_string(),
    )
    .unwrap();
    let s = Scenario::from_parts(manifest, None, None).unwrap();
    let runtime = ScriptedRuntime::new(&s, &common::target()).unwrap();
    let aggregate = runtime.aggregate().unwrap();
    assert_eq!(aggregate.text, "{\"draft\": 1}");
    assert_eq!(aggregate.reasoning, "b");
    assert_eq!(aggregate.output, json!({"final": 2}));
    assert_eq!(
        aggregate.usage,
        Some(Usage {
            input_tokens: 5,
            output_tokens: 3,
            cached_input_tokens: 0,
        })
    );
    // Streaming still replays the fixture deltas, in order.
    assert_eq!(runtime.stream_deltas(), ["{\"draft\": ", "1}"]);
}

fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
            return out;
        }
    }
}

#[test]
fn the_async_port_gives_the_same_results() {
    let inventory = Inventory::load(common::own_inventory()).unwrap();
    let all = interactions(&inventory);
    for id in ["lease-summary-streamed", "lease-missing-notice"] {
        let s = &inventory.get(id).unwrap().scenario;
        let request = s.request.as_ref().unwrap();
        let rendered = render(
            interaction(&all, &s.manifest.contract),
            &request.inputs,
            &request.context,
        )
        .unwrap();
        let sync_runtime = ScriptedRuntime::new(s, &common::target()).unwrap();
        let sync = RuntimeAdapter::execute(&sync_runtime, &rendered);
        let async_runtime = ScriptedRuntime::new(s, &common::target()).unwrap();
        let mut events = Vec::new();
        let streamed = block_on(AsyncRuntimeAdapter::execute_streaming(
            &async_runtime,
            &rendered,
            &mut |e| events.push(e),
        ));
        match (sync, streamed) {
            (Ok(a), Ok(b)) => assert_eq!(a.receipt, b.receipt),
            (Err(a), Err(b)) => assert_eq!(a.receipt, b.receipt),
            other => panic!("{id}: {other:?}"),
        }
        assert_eq!(
            events.len() - 1,
            sync_runtime.stream_deltas().len(),
            "{id}: deltas, then one terminal event"
        );
        assert_eq!(
            async_runtime.clock().now_ms(),
            sync_runtime.clock().now_ms()
        );
    }
}
