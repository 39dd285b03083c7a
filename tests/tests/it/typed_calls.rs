//! For Rust hosts (`docs/runtime.md`, "Typed calls" and "Eval fixtures
//! as data"): the generated `execute` calls — blocking, async, streaming —
//! return the typed `Output` with its receipt, usage and attempts, and every
//! failure keeps its `TQX_*` code (render, port, decode); the generated
//! `EVALS` holds each fixture once, its typed request decodes, its checks
//! pass against its `fake_output` and catch a wrong output, and a fixture
//! runs through an adapter of the host's own.

use serde_json::json;
use std::future::Future;
use std::pin::pin;
use std::sync::atomic::{AtomicU32, Ordering};
use std::task::{Context, Poll, Waker};
use templiqx::contracts::Diagnostics;
use templiqx::{
    AdapterDescriptor, AdapterOutput, AsyncRuntimeAdapter, Code, ExecuteError, Json, Receipt,
    RenderedInteraction, RuntimeAdapter, RuntimeFailure, StreamEvent, Usage,
};

templiqx::include_contract!(
    "../examples/packages/demo/contracts/greeting.yaml",
    target = ["structured_output"]
);
templiqx::include_contract!(
    package = "../examples/crm3",
    contract = "lease-term-extraction",
    target = ["structured_output"]
);
templiqx::include_contract!("contracts/shapes.yaml", target = ["structured_output"]);

/// An adapter of the host's own: answers every invocation with one canned
/// result, and counts invocations.
struct Canned {
    descriptor: AdapterDescriptor,
    answer: Result<Json, RuntimeFailure>,
    calls: AtomicU32,
}

impl Canned {
    fn new(answer: Result<Json, RuntimeFailure>) -> Canned {
        Canned {
            descriptor: AdapterDescriptor::new("canned", ["structured_output"]),
            answer,
            calls: AtomicU32::new(0),
        }
    }

    fn output(value: serde_json::Value) -> Canned {
        Canned::new(Ok(value.into()))
    }

    fn answer(&self) -> Result<AdapterOutput, RuntimeFailure> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        self.answer.clone().map(|output| AdapterOutput {
            output,
            usage: Some(Usage {
                input_tokens: 21,
                output_tokens: 5,
                cached_input_tokens: 0,
            }),
        })
    }

    fn calls(&self) -> u32 {
        self.calls.load(Ordering::SeqCst)
    }
}

impl RuntimeAdapter for Canned {
    fn descriptor(&self) -> &AdapterDescriptor {
        &self.descriptor
    }

    fn invoke(&self, _request: &RenderedInteraction<'_>) -> Result<AdapterOutput, RuntimeFailure> {
        self.answer()
    }
}

impl AsyncRuntimeAdapter for Canned {
    fn descriptor(&self) -> &AdapterDescriptor {
        &self.descriptor
    }

    async fn invoke(
        &self,
        _request: &RenderedInteraction<'_>,
    ) -> Result<AdapterOutput, RuntimeFailure> {
        Yield(false).await;
        self.answer()
    }
}

/// A future that is pending once, so the executor really polls twice.
struct Yield(bool);

impl Future for Yield {
    type Output = ();
    fn poll(mut self: std::pin::Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            Poll::Ready(())
        } else {
            self.0 = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }
}

/// A minimal executor: polls with a no-op waker until ready.
fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
            return out;
        }
    }
}

fn assert_send<F: Future + Send>(future: F) -> F {
    future
}

fn ada() -> (greeting::Inputs, greeting::Context) {
    (
        greeting::Inputs {
            name: " Ada ".to_owned(),
            vip: true,
        },
        greeting::Context {
            organization: "Analytical Engines".to_owned(),
        },
    )
}

/// The four generated calls on one adapter, in order: blocking, blocking
/// streaming, async, async streaming; the streamed events of each.
type Outcomes = Vec<(
    Result<templiqx::Executed<greeting::Output>, ExecuteError>,
    Vec<StreamEvent>,
)>;

fn all_four(adapter: &Canned, inputs: &greeting::Inputs, context: &greeting::Context) -> Outcomes {
    let mut out = Vec::new();
    out.push((greeting::execute(adapter, inputs, context), Vec::new()));
    let mut events = Vec::new();
    let result = greeting::execute_streaming(adapter, inputs, context, &mut |e| events.push(e));
    out.push((result, events));
    let result = block_on(assert_send(greeting::execute_async(
        adapter, inputs, context,
    )));
    out.push((result, Vec::new()));
    let mut events = Vec::new();
    let result = block_on(assert_send(greeting::execute_streaming_async(
        adapter,
        inputs,
        context,
        &mut |e| events.push(e),
    )));
    out.push((result, events));
    out
}

#[test]
fn a_valid_output_comes_back_typed_with_its_receipt_usage_and_attempts() {
    let (inputs, context) = ada();
    let adapter = Canned::output(json!({ "greeting": "Hello Ada!", "tone": "warm" }));
    // The three steps a host wrote before, for comparison.
    let request = greeting::render(&inputs, &context).unwrap();
    let by_hand = RuntimeAdapter::execute(&adapter, &request).unwrap();

    let outcomes = all_four(&adapter, &inputs, &context);
    assert_eq!(adapter.calls(), 5);
    for (i, (result, events)) in outcomes.into_iter().enumerate() {
        let executed = result.unwrap_or_else(|e| panic!("call {i}: {e}"));
        assert_eq!(executed.output.greeting, "Hello Ada!");
        assert_eq!(executed.output.tone, Some(greeting::Tone::Warm));
        assert_eq!(executed.request, request);
        assert_eq!(
            executed.request.messages[1].content,
            "Greet Ada (a valued guest) on behalf of Analytical Engines"
        );
        assert_eq!(executed.receipt, by_hand.receipt);
        let Receipt::Success {
            request_fingerprint,
            ..
        } = &executed.receipt
        else {
            panic!("call {i}: {:?}", executed.receipt);
        };
        assert_eq!(*request_fingerprint, request.request_fingerprint());
        assert_eq!(
            executed.usage,
            Some(Usage {
                input_tokens: 21,
                output_tokens: 5,
                cached_input_tokens: 0,
            })
        );
        assert_eq!(executed.attempts, 1);
        if i % 2 == 1 {
            // Streaming: the adapter's one delta, then `Complete` with the
            // receipt that is returned.
            assert_eq!(events.len(), 2, "call {i}: {events:?}");
            assert!(matches!(events[0], StreamEvent::Delta { .. }));
            assert_eq!(
                events[1],
                StreamEvent::Complete {
                    receipt: executed.receipt.clone()
                }
            );
        }
    }
}

#[test]
fn a_schema_invalid_output_is_tqx_output_schema_with_its_failure_receipt() {
    let (inputs, context) = ada();
    let adapter = Canned::output(json!({ "greeting": "" }));
    for (i, (result, events)) in all_four(&adapter, &inputs, &context)
        .into_iter()
        .enumerate()
    {
        let error = result.expect_err("invalid");
        assert_eq!(error.code(), Code::OutputSchema, "call {i}");
        let ExecuteError::Execution(e) = &error else {
            panic!("call {i}: {error:?}");
        };
        assert_eq!(e.failure.id, "templiqx.output_schema");
        assert_eq!(error.diagnostics()[0].code, Code::OutputSchema);
        assert_eq!(
            error.diagnostics()[0].json_pointer.as_deref(),
            Some("/greeting")
        );
        assert!(
            matches!(error.receipt(), Some(Receipt::Failure { code, .. }) if *code == Code::OutputSchema),
            "call {i}: {:?}",
            error.receipt()
        );
        assert!(
            error.to_string().starts_with("error[TQX_OUTPUT_SCHEMA]: "),
            "{error}"
        );
        if i % 2 == 1 {
            assert!(
                matches!(events.last(), Some(StreamEvent::Failed { failure }) if failure.code == Code::OutputSchema),
                "call {i}: {events:?}"
            );
        }
    }
}

#[test]
fn an_adapter_failure_keeps_its_runtime_code_and_receipt() {
    let (inputs, context) = ada();
    let mut failure = RuntimeFailure::new(Code::RuntimeRateLimited, "chat", "rate limited");
    failure.retry_after_ms = Some(1500);
    let adapter = Canned::new(Err(failure.clone()));
    for (i, (result, events)) in all_four(&adapter, &inputs, &context)
        .into_iter()
        .enumerate()
    {
        let error = result.expect_err("rate limited");
        assert_eq!(error.code(), Code::RuntimeRateLimited, "call {i}");
        let ExecuteError::Execution(e) = &error else {
            panic!("call {i}: {error:?}");
        };
        assert_eq!(e.failure, failure);
        assert_eq!(e.attempts, 1);
        assert_eq!(error.receipt(), Some(&failure.receipt()));
        let shown = error.to_string();
        assert!(
            shown.starts_with("error[TQX_RUNTIME_RATE_LIMITED]: rate limited")
                && shown.contains("\n  = help: retry after 1500 ms"),
            "{shown}"
        );
        if i % 2 == 1 {
            assert_eq!(
                events,
                [StreamEvent::Failed {
                    failure: failure.clone()
                }]
            );
        }
    }
    assert_eq!(adapter.calls(), 4);

    // The capability gate refuses before invoking.
    let mut lacking = Canned::output(json!({ "greeting": "Hi" }));
    lacking.descriptor = AdapterDescriptor::new("plain", ["tools"]);
    for (result, _) in all_four(&lacking, &inputs, &context) {
        let error = result.expect_err("gated");
        assert_eq!(error.code(), Code::CapabilityUnsupported);
    }
    assert_eq!(lacking.calls(), 0);
}

#[test]
fn a_request_that_does_not_render_is_refused_before_the_adapter() {
    let inputs = greeting::Inputs {
        name: String::new(),
        vip: false,
    };
    let (_, context) = ada();
    let adapter = Canned::output(json!({ "greeting": "Hi" }));
    for (i, (result, events)) in all_four(&adapter, &inputs, &context)
        .into_iter()
        .enumerate()
    {
        let error = result.expect_err("invalid request");
        assert_eq!(error.code(), Code::ValueInvalid, "call {i}");
        assert!(matches!(error, ExecuteError::Render(_)), "call {i}");
        assert_eq!(
            error.diagnostics()[0].json_pointer.as_deref(),
            Some("/inputs/name")
        );
        assert_eq!(error.receipt(), None);
        assert!(events.is_empty(), "call {i}: {events:?}");
    }
    assert_eq!(adapter.calls(), 0);
}

#[test]
fn a_valid_output_the_generated_type_cannot_hold_is_a_decode_failure() {
    // `total` is an integer with no upper bound: 2^64 is schema-valid but
    // beyond the generated `i64`.
    let fixture = &shapes::EVALS[0];
    let inputs: shapes::Inputs = fixture.inputs().unwrap();
    let context: shapes::Context = fixture.context().unwrap();
    let huge = templiqx::contracts::json::parse(
        r#"{"total": 18446744073709551616, "label": "low", "reference": null}"#,
    )
    .unwrap();
    let adapter = Canned::new(Ok(huge.clone()));
    let results = [
        shapes::execute(&adapter, &inputs, &context),
        block_on(shapes::execute_async(&adapter, &inputs, &context)),
    ];
    for result in results {
        let error = result.expect_err("does not fit");
        assert_eq!(error.code(), Code::OutputSchema);
        let ExecuteError::Decode {
            error: e,
            execution,
        } = &error
        else {
            panic!("{error:?}");
        };
        assert_eq!(e.diagnostics[0].json_pointer.as_deref(), Some("/total"));
        // The port accepted the output: its success receipt and the output
        // are kept.
        assert!(execution.receipt.is_success());
        assert_eq!(error.receipt(), Some(&execution.receipt));
        assert_eq!(execution.output, huge);
    }
}

#[test]
fn evals_hold_each_fixture_once_as_data() {
    // The demo greeting: one fixture, no checks.
    assert_eq!(greeting::EVALS.len(), 1);
    let ada = &greeting::EVALS[0];
    assert_eq!(ada.id, "ada");
    assert!(ada.checks.is_empty());
    let inputs: greeting::Inputs = ada.inputs().unwrap();
    assert_eq!(inputs.name, " Ada ");
    let fake = ada.fake_output().unwrap().expect("a fake output");
    let output = greeting::decode_output(&fake).unwrap();
    assert_eq!(output.greeting, "Hello Ada, welcome!");
    assert!(
        ada.evaluate_checks(
            &inputs,
            &ada.context::<greeting::Context>().unwrap(),
            &output
        )
        .is_empty()
    );

    // Another contract's types do not fit: TQX_EVAL_INVALID, naming it.
    let error = ada.inputs::<shapes::Inputs>().unwrap_err();
    assert_eq!(error.len(), 1);
    assert_eq!(error[0].code, Code::EvalInvalid);
    assert!(error[0].message.contains("eval fixture `ada`"), "{error}");

    // The CRM3 extraction: one fixture with five checks, and a dataset
    // entry named by path and digest, its rows not embedded
    // (`docs/format.md`, "Datasets").
    let fixtures = lease_term_extraction::EVALS;
    let ids: Vec<&str> = fixtures.iter().map(|f| &*f.id).collect();
    assert_eq!(ids, ["fixed-term-lease", "labelled-leases"]);
    let dataset = fixtures[1].dataset.as_ref().expect("a dataset entry");
    assert_eq!(dataset.path, "evals/labelled-leases.jsonl");
    let bytes = std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../examples/crm3/evals/labelled-leases.jsonl"),
    )
    .unwrap();
    assert_eq!(
        dataset.sha256,
        templiqx_contracts::canonical::sha256_hex(&bytes)
    );
    assert_eq!(
        (&*fixtures[1].inputs_json, fixtures[1].checks.len()),
        ("{}", 4)
    );
    assert!(fixtures[0].dataset.is_none());
    let fixture = &fixtures[0];
    let checks: Vec<(&str, Option<&str>)> = fixture
        .checks
        .iter()
        .map(|c| (&*c.id, c.description.as_deref()))
        .collect();
    assert_eq!(
        checks,
        [
            (
                "term-dates",
                Some("The term is read from the clause as written.")
            ),
            (
                "start-date-in-clause",
                Some("The start date is quoted from the clause, not inferred.")
            ),
            ("rent", None),
            ("notice-within-a-year", None),
            (
                "evidence-for-every-field",
                Some("One evidence entry per extracted field, citing the requested document.")
            ),
        ]
    );
    assert_eq!(
        fixture.checks[1].source,
        "contains(inputs.clause_text, output.start_date)"
    );
}

#[test]
fn a_fixture_runs_through_the_hosts_own_adapter_and_its_checks_catch_a_wrong_output() {
    use lease_term_extraction as extraction;
    let fixture = &extraction::EVALS[0];
    let inputs: extraction::Inputs = fixture.inputs().unwrap();
    let context: extraction::Context = fixture.context().unwrap();
    assert_eq!(inputs.document_id, "LEASE-0007");
    assert_eq!(context.matter_reference, "MAT-2026-0107");
    let fake = fixture.fake_output().unwrap().expect("a fake output");

    // The fake output through the adapter: the typed output passes every
    // check, blocking and async.
    let adapter = Canned::new(Ok(fake.clone()));
    let executed = extraction::execute(&adapter, &inputs, &context).unwrap();
    let outcomes = fixture.evaluate_checks(&inputs, &context, &executed.output);
    assert_eq!(outcomes.len(), 5);
    for outcome in &outcomes {
        assert!(outcome.passed(), "{outcome}");
        assert!(outcome.observed.is_empty());
        assert_eq!(
            outcome.to_string(),
            format!("check `{}` passed", outcome.check.id)
        );
    }
    let executed = block_on(extraction::execute_async(&adapter, &inputs, &context)).unwrap();
    assert!(
        fixture
            .evaluate_checks(&inputs, &context, &executed.output)
            .iter()
            .all(|o| o.passed())
    );
    // The untyped output gives the same verdicts.
    assert!(
        fixture
            .evaluate_checks(&inputs, &context, &fake)
            .iter()
            .all(|o| o.passed())
    );

    // A schema-valid but wrong output: a start date the clause does not
    // hold fails exactly the two checks that read it.
    let Json::Object(mut wrong) = fake else {
        panic!("an object")
    };
    wrong.insert("start_date".to_owned(), Json::from("2026-04-01"));
    let adapter = Canned::new(Ok(Json::Object(wrong)));
    let executed = extraction::execute(&adapter, &inputs, &context).unwrap();
    let outcomes = fixture.evaluate_checks(&inputs, &context, &executed.output);
    let verdicts: Vec<(&str, bool)> = outcomes
        .iter()
        .map(|o| (&*o.check.id, o.passed()))
        .collect();
    assert_eq!(
        verdicts,
        [
            ("term-dates", false),
            ("start-date-in-clause", false),
            ("rent", true),
            ("notice-within-a-year", true),
            ("evidence-for-every-field", true),
        ]
    );
    assert_eq!(outcomes[1].result, Ok(false));
    let shown = outcomes[1].to_string();
    assert!(
        shown.starts_with(
            "check `start-date-in-clause` failed: contains(inputs.clause_text, output.start_date)"
        ) && shown.contains("\n  output.start_date = \"2026-04-01\""),
        "{shown}"
    );
}

#[test]
fn execute_errors_convert_into_boxed_errors_and_diagnostics() {
    fn host() -> Result<(), Box<dyn std::error::Error>> {
        let (inputs, context) = ada();
        let adapter = Canned::output(json!({ "greeting": 7 }));
        greeting::execute(&adapter, &inputs, &context)?;
        Ok(())
    }
    let error = host().unwrap_err();
    let error = error
        .downcast_ref::<ExecuteError>()
        .expect("an ExecuteError");
    let diagnostics = Diagnostics::from(error.diagnostics().to_vec());
    assert_eq!(error.to_string(), diagnostics.to_string());
}
