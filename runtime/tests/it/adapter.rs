//! The runtime adapter port: capability gate, output validation, receipts per
//! `docs/runtime.md`, "Receipts" (recomputed here independently), stream
//! events, and the async counterpart.

use crate::common::*;
use serde_json::{Value, json};
use std::collections::VecDeque;
use std::future::Future;
use std::pin::pin;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};
use std::task::{Context, Poll, Waker};
use templiqx::contracts::canonical::sha256_hex;
use templiqx::contracts::{Format, JsonType, Schema, Seq, Str};
use templiqx::{
    AdapterDescriptor, AdapterOutput, AsyncRuntimeAdapter, Code, Interaction, Receipt,
    RenderedInteraction, RuntimeAdapter, RuntimeFailure, StreamEvent, Usage,
};

/// Replays scripted results; optionally streams scripted events first.
struct Scripted {
    descriptor: AdapterDescriptor,
    results: Mutex<VecDeque<Result<AdapterOutput, RuntimeFailure>>>,
    events: Vec<StreamEvent>,
    streams: bool,
    invocations: AtomicU32,
}

impl Scripted {
    fn new(capabilities: &[&str], results: Vec<Result<Value, RuntimeFailure>>) -> Scripted {
        Scripted {
            descriptor: AdapterDescriptor::new("scripted", capabilities.iter().copied()),
            results: Mutex::new(
                results
                    .into_iter()
                    .map(|r| {
                        r.map(|output| AdapterOutput {
                            output: output.into(),
                            usage: Some(Usage {
                                input_tokens: 3,
                                output_tokens: 2,
                                cached_input_tokens: 1,
                            }),
                        })
                    })
                    .collect(),
            ),
            events: Vec::new(),
            streams: false,
            invocations: AtomicU32::new(0),
        }
    }

    fn streaming(mut self, events: Vec<StreamEvent>) -> Scripted {
        self.events = events;
        self.streams = true;
        self
    }

    fn next(&self) -> Result<AdapterOutput, RuntimeFailure> {
        self.invocations.fetch_add(1, Ordering::SeqCst);
        let mut results = self.results.lock().expect("not poisoned");
        results.pop_front().unwrap_or_else(|| {
            Err(RuntimeFailure::new(
                Code::RuntimePermanent,
                "script-exhausted",
                "no more scripted results",
            ))
        })
    }

    fn invocations(&self) -> u32 {
        self.invocations.load(Ordering::SeqCst)
    }
}

impl RuntimeAdapter for Scripted {
    fn descriptor(&self) -> &AdapterDescriptor {
        &self.descriptor
    }

    fn invoke(&self, _request: &RenderedInteraction<'_>) -> Result<AdapterOutput, RuntimeFailure> {
        self.next()
    }

    fn invoke_streaming(
        &self,
        request: &RenderedInteraction<'_>,
        sink: &mut dyn FnMut(StreamEvent),
    ) -> Result<AdapterOutput, RuntimeFailure> {
        if !self.streams {
            return RuntimeAdapter::invoke(self, request);
        }
        for event in &self.events {
            sink(event.clone());
        }
        self.next()
    }
}

/// An adapter that implements only what is required, so every provided
/// method runs its default.
struct Minimal(Scripted);

impl RuntimeAdapter for Minimal {
    fn descriptor(&self) -> &AdapterDescriptor {
        &self.0.descriptor
    }

    fn invoke(&self, _request: &RenderedInteraction<'_>) -> Result<AdapterOutput, RuntimeFailure> {
        self.0.next()
    }
}

impl AsyncRuntimeAdapter for Scripted {
    fn descriptor(&self) -> &AdapterDescriptor {
        &self.descriptor
    }

    async fn invoke(
        &self,
        _request: &RenderedInteraction<'_>,
    ) -> Result<AdapterOutput, RuntimeFailure> {
        Yield(false).await;
        self.next()
    }
}

/// A future that is pending once, so the executor below really polls twice.
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

/// An extraction contract: output `{effective_date: date}`, requiring
/// `structured_output`.
fn extraction(max_attempts: Option<u32>) -> Interaction {
    let mut i = interaction(
        vec![field("text", typed(JsonType::String), true)],
        vec![],
        vec![vec![
            text("Extract the date from: "),
            interp(input(&["text"]), &[]),
        ]],
        vec![],
    );
    i.output_schema = Schema {
        properties: Seq::Owned(vec![(
            Str::Borrowed("effective_date"),
            Schema {
                format: Some(Format::Date),
                ..typed(JsonType::String)
            },
        )]),
        required: Seq::Owned(vec![Str::Borrowed("effective_date")]),
        additional_properties: false,
        ..typed(JsonType::Object)
    };
    i.required_capabilities = Seq::Owned(vec![Str::Borrowed("structured_output")]);
    i.runtime_policy.max_attempts = max_attempts;
    i
}

fn rendered(i: &Interaction) -> RenderedInteraction<'_> {
    let inputs = obj(json!({"text": "effective 12 July 2026"}));
    templiqx::render(i, &inputs, &obj(json!({}))).expect("renders")
}

/// `docs/runtime.md`, "Receipts", written out independently of the receipt
/// module: SHA-256 of hand-assembled canonical JSON.
fn success_receipt_fingerprint(request: &str, output: &str) -> String {
    sha256_hex(
        format!(
            r#"{{"outcome":"success","output_fingerprint":"{output}","output_schema_valid":true,"request_fingerprint":"{request}"}}"#
        )
        .as_bytes(),
    )
}

fn failure_receipt_fingerprint(code: &str, failure: &str) -> String {
    sha256_hex(
        format!(
            r#"{{"code":"{code}","failure_fingerprint":"{failure}","outcome":"failure","retry_after_ms":null}}"#
        )
        .as_bytes(),
    )
}

#[test]
fn success_receipt_matches_the_documented_shape() {
    let i = extraction(None);
    let request = rendered(&i);
    let adapter = Scripted::new(
        &["tools", "structured_output"],
        vec![Ok(json!({"effective_date": "2026-07-12"}))],
    );
    let execution = RuntimeAdapter::execute(&adapter, &request).expect("valid output");
    let output_fp = sha256_hex(br#"{"effective_date":"2026-07-12"}"#);
    assert_eq!(
        execution.receipt,
        Receipt::Success {
            request_fingerprint: request.request_fingerprint(),
            output_fingerprint: output_fp.clone(),
            output_schema_valid: true,
            diagnostics: Vec::new(),
        }
    );
    assert_eq!(
        execution.receipt.fingerprint(),
        success_receipt_fingerprint(&request.request_fingerprint(), &output_fp)
    );
    assert_eq!(execution.attempts, 1);
    assert_eq!(
        execution.usage,
        Some(Usage {
            input_tokens: 3,
            output_tokens: 2,
            cached_input_tokens: 1,
        })
    );
    assert_eq!(
        adapter.descriptor.capabilities,
        ["structured_output", "tools"]
    );
}

#[test]
fn capability_gate_invokes_nothing() {
    let mut i = extraction(None);
    i.required_capabilities = Seq::Owned(vec![
        Str::Borrowed("structured_output"),
        Str::Borrowed("vision"),
    ]);
    let request = rendered(&i);
    let adapter = Scripted::new(&["structured_output"], vec![Ok(json!({}))]);
    let error = RuntimeAdapter::execute(&adapter, &request).expect_err("gated");
    assert_eq!(error.failure.code, Code::CapabilityUnsupported);
    assert_eq!(error.diagnostics[0].code, Code::CapabilityUnsupported);
    assert!(error.failure.detail.contains("`vision`"));
    assert_eq!(error.receipt, error.failure.receipt());
    assert_eq!(error.attempts, 0);
    assert_eq!(adapter.invocations(), 0);

    let mut events = Vec::new();
    let streamed = RuntimeAdapter::execute_streaming(&adapter, &request, &mut |e| events.push(e))
        .expect_err("gated");
    assert_eq!(streamed, error);
    assert_eq!(
        events,
        [StreamEvent::Failed {
            failure: error.failure.clone()
        }]
    );
    assert_eq!(adapter.invocations(), 0);
}

#[test]
fn schema_invalid_output_is_normalised_to_an_output_schema_failure() {
    let i = extraction(None);
    let request = rendered(&i);
    let adapter = Scripted::new(
        &["structured_output"],
        vec![Ok(json!({"effective_date": "not-a-date"}))],
    );
    let error = RuntimeAdapter::execute(&adapter, &request).expect_err("invalid");
    assert_eq!(error.failure.code, Code::OutputSchema);
    assert_eq!(error.diagnostics.len(), 1);
    assert_eq!(error.diagnostics[0].code, Code::OutputSchema);
    assert_eq!(
        error.diagnostics[0].json_pointer.as_deref(),
        Some("/effective_date")
    );
    // `docs/runtime.md`, "Receipts": the failure fingerprint is the output
    // fingerprint.
    let output_fp = sha256_hex(br#"{"effective_date":"not-a-date"}"#);
    assert_eq!(
        error.receipt,
        Receipt::Failure {
            code: Code::OutputSchema,
            failure_fingerprint: output_fp.clone(),
            retry_after_ms: None,
        }
    );
    assert_eq!(
        error.receipt.fingerprint(),
        failure_receipt_fingerprint("TQX_OUTPUT_SCHEMA", &output_fp)
    );
}

#[test]
fn runtime_failure_receipt_matches_the_documented_shape() {
    let i = extraction(None);
    let request = rendered(&i);
    let mut failure = RuntimeFailure::new(
        Code::RuntimeRateLimited,
        "runtime-rate-limited",
        "slow down",
    );
    failure.retry_after_ms = Some(1500);
    let adapter = Scripted::new(&["structured_output"], vec![Err(failure.clone())]);
    let error = RuntimeAdapter::execute(&adapter, &request).expect_err("fails");
    assert_eq!(error.failure, failure);
    let failure_fp = sha256_hex(
        br#"{"code":"TQX_RUNTIME_RATE_LIMITED","id":"runtime-rate-limited","retry_after_ms":1500}"#,
    );
    let receipt_fp = sha256_hex(
        format!(
            r#"{{"code":"TQX_RUNTIME_RATE_LIMITED","failure_fingerprint":"{failure_fp}","outcome":"failure","retry_after_ms":1500}}"#
        )
        .as_bytes(),
    );
    assert_eq!(error.receipt.fingerprint(), receipt_fp);
    assert_eq!(error.diagnostics[0].code, Code::RuntimeRateLimited);
}

#[test]
fn streaming_forwards_deltas_and_completes_with_the_execute_receipt() {
    let i = extraction(None);
    let request = rendered(&i);
    let output = json!({"effective_date": "2026-07-12"});
    let plain = Scripted::new(&["structured_output"], vec![Ok(output.clone())]);
    let expected = RuntimeAdapter::execute(&plain, &request).expect("valid");

    let deltas = vec![
        StreamEvent::Delta {
            text: "{\"effective_".into(),
        },
        StreamEvent::ToolCallDelta {
            id: "call-1".into(),
            name: Some("lookup".into()),
            arguments: "{}".into(),
        },
        // An adapter's own terminal events are dropped.
        StreamEvent::Complete {
            receipt: Receipt::for_output("bogus", "bogus", true),
        },
        StreamEvent::Delta {
            text: "date\": \"2026-07-12\"}".into(),
        },
    ];
    let streaming =
        Scripted::new(&["structured_output"], vec![Ok(output)]).streaming(deltas.clone());
    let mut events = Vec::new();
    let execution =
        RuntimeAdapter::execute_streaming(&streaming, &request, &mut |e| events.push(e))
            .expect("valid");
    assert_eq!(execution, expected);
    let mut want: Vec<StreamEvent> = deltas
        .into_iter()
        .filter(|e| !matches!(e, StreamEvent::Complete { .. }))
        .collect();
    want.push(StreamEvent::Complete {
        receipt: expected.receipt.clone(),
    });
    assert_eq!(events, want);
}

#[test]
fn default_invoke_streaming_sends_the_canonical_output_as_one_delta() {
    let i = extraction(None);
    let request = rendered(&i);
    let adapter = Minimal(Scripted::new(
        &["structured_output"],
        vec![Ok(json!({"effective_date": "2026-07-12"}))],
    ));
    let mut events = Vec::new();
    let execution = adapter
        .execute_streaming(&request, &mut |e| events.push(e))
        .expect("valid");
    assert_eq!(
        events,
        [
            StreamEvent::Delta {
                text: r#"{"effective_date":"2026-07-12"}"#.into()
            },
            StreamEvent::Complete {
                receipt: execution.receipt
            }
        ]
    );
}

#[test]
fn streaming_failure_emits_failed_before_the_error() {
    let i = extraction(None);
    let request = rendered(&i);
    let failure = RuntimeFailure::new(Code::RuntimePermanent, "runtime-refused", "refused");
    let adapter =
        Scripted::new(&["structured_output"], vec![Err(failure.clone())]).streaming(vec![
            StreamEvent::Delta { text: "par".into() },
            StreamEvent::Failed {
                failure: RuntimeFailure::new(Code::RuntimeTimeout, "own", "dropped"),
            },
        ]);
    let mut events = Vec::new();
    let error = RuntimeAdapter::execute_streaming(&adapter, &request, &mut |e| events.push(e))
        .expect_err("fails");
    assert_eq!(error.failure, failure);
    assert_eq!(error.receipt, failure.receipt());
    assert_eq!(
        events,
        [
            StreamEvent::Delta { text: "par".into() },
            StreamEvent::Failed { failure }
        ]
    );

    // A schema-invalid output fails the stream the same way.
    let invalid = Scripted::new(&["structured_output"], vec![Ok(json!({"x": 1}))]);
    let mut events = Vec::new();
    let error = RuntimeAdapter::execute_streaming(&invalid, &request, &mut |e| events.push(e))
        .expect_err("invalid");
    assert_eq!(error.failure.code, Code::OutputSchema);
    assert_eq!(
        events.last(),
        Some(&StreamEvent::Failed {
            failure: error.failure.clone()
        })
    );
    assert_eq!(
        events
            .iter()
            .filter(|e| matches!(e, StreamEvent::Complete { .. } | StreamEvent::Failed { .. }))
            .count(),
        1
    );
}

#[test]
fn transient_failures_are_retried_within_max_attempts() {
    let i = extraction(Some(3));
    let request = rendered(&i);
    let timeout = || Err(RuntimeFailure::new(Code::RuntimeTimeout, "t", "timed out"));
    let unavailable = || Err(RuntimeFailure::new(Code::RuntimeUnavailable, "u", "down"));
    let ok = || Ok(json!({"effective_date": "2026-07-12"}));

    let adapter = Scripted::new(&["structured_output"], vec![timeout(), unavailable(), ok()]);
    let execution = RuntimeAdapter::execute(&adapter, &request).expect("third try");
    assert_eq!(execution.attempts, 3);

    let adapter = Scripted::new(
        &["structured_output"],
        vec![timeout(), timeout(), timeout(), ok()],
    );
    let error = RuntimeAdapter::execute(&adapter, &request).expect_err("out of attempts");
    assert_eq!(error.failure.code, Code::RuntimeTimeout);
    assert_eq!(
        error.attempts, 3,
        "a failed execution reports its attempts too"
    );
    assert_eq!(adapter.invocations(), 3);

    // Rate limiting and permanent failures are not retried.
    let limited = RuntimeFailure::new(Code::RuntimeRateLimited, "r", "later");
    let adapter = Scripted::new(&["structured_output"], vec![Err(limited), ok()]);
    let error = RuntimeAdapter::execute(&adapter, &request).expect_err("rate limited");
    assert_eq!(error.attempts, 1);
    assert_eq!(adapter.invocations(), 1);

    // Without max_attempts there is one attempt.
    let once = extraction(None);
    let request_once = rendered(&once);
    let adapter = Scripted::new(&["structured_output"], vec![timeout(), ok()]);
    assert!(RuntimeAdapter::execute(&adapter, &request_once).is_err());
    assert_eq!(adapter.invocations(), 1);

    // A streamed attempt that already forwarded output is not retried.
    let adapter = Scripted::new(&["structured_output"], vec![timeout(), ok()])
        .streaming(vec![StreamEvent::Delta { text: "x".into() }]);
    let mut events = Vec::new();
    let error = RuntimeAdapter::execute_streaming(&adapter, &request, &mut |e| events.push(e))
        .expect_err("not retried");
    assert_eq!(error.failure.code, Code::RuntimeTimeout);
    assert_eq!(adapter.invocations(), 1);
}

fn assert_send<T: Send>(t: T) -> T {
    t
}

#[test]
fn async_counterpart_has_the_same_semantics() {
    let i = extraction(None);
    let request = rendered(&i);
    let ok = json!({"effective_date": "2026-07-12"});

    let sync = Scripted::new(&["structured_output"], vec![Ok(ok.clone())]);
    let asynchronous = Scripted::new(&["structured_output"], vec![Ok(ok.clone())]);
    let expected = RuntimeAdapter::execute(&sync, &request).expect("valid");
    let got = block_on(assert_send(AsyncRuntimeAdapter::execute(
        &asynchronous,
        &request,
    )))
    .expect("valid");
    assert_eq!(got, expected);

    let streaming = Scripted::new(&["structured_output"], vec![Ok(ok)]);
    let mut events = Vec::new();
    let mut sink = |e| events.push(e);
    let got = block_on(assert_send(AsyncRuntimeAdapter::execute_streaming(
        &streaming, &request, &mut sink,
    )))
    .expect("valid");
    assert_eq!(got, expected);
    assert_eq!(
        events.last(),
        Some(&StreamEvent::Complete {
            receipt: expected.receipt.clone()
        })
    );
    assert_eq!(events.len(), 2);

    let invalid = Scripted::new(
        &["structured_output"],
        vec![Ok(json!({"effective_date": "not-a-date"}))],
    );
    let error = block_on(AsyncRuntimeAdapter::execute(&invalid, &request)).expect_err("invalid");
    assert_eq!(
        error.receipt.fingerprint(),
        failure_receipt_fingerprint(
            "TQX_OUTPUT_SCHEMA",
            &sha256_hex(br#"{"effective_date":"not-a-date"}"#)
        )
    );

    let gated = Scripted::new(&[], vec![]);
    let mut events = Vec::new();
    let mut sink = |e| events.push(e);
    let error = block_on(AsyncRuntimeAdapter::execute_streaming(
        &gated, &request, &mut sink,
    ))
    .expect_err("gated");
    assert_eq!(error.failure.code, Code::CapabilityUnsupported);
    assert_eq!(gated.invocations(), 0);
    assert_eq!(
        events,
        [StreamEvent::Failed {
            failure: error.failure
        }]
    );

    let i3 = extraction(Some(2));
    let request3 = rendered(&i3);
    let retried = Scripted::new(
        &["structured_output"],
        vec![
            Err(RuntimeFailure::new(Code::RuntimeUnavailable, "u", "down")),
            Ok(json!({"effective_date": "2026-07-12"})),
        ],
    );
    let got = block_on(AsyncRuntimeAdapter::execute(&retried, &request3)).expect("retried");
    assert_eq!(got.attempts, 2);
}

/// An async adapter whose `before_retry` also retries rate limits and
/// records what it was asked.
struct Patient {
    inner: Scripted,
    asked: Mutex<Vec<(Code, u32)>>,
}

impl AsyncRuntimeAdapter for Patient {
    fn descriptor(&self) -> &AdapterDescriptor {
        &self.inner.descriptor
    }

    async fn invoke(
        &self,
        _request: &RenderedInteraction<'_>,
    ) -> Result<AdapterOutput, RuntimeFailure> {
        Yield(false).await;
        self.inner.next()
    }

    async fn before_retry(
        &self,
        _request: &RenderedInteraction<'_>,
        failure: &RuntimeFailure,
        attempts_made: u32,
    ) -> bool {
        Yield(false).await;
        self.asked
            .lock()
            .unwrap()
            .push((failure.code, attempts_made));
        failure.code == Code::RuntimeRateLimited
    }
}

#[test]
fn async_before_retry_decides_retries_within_max_attempts() {
    let i = extraction(Some(3));
    let request = rendered(&i);
    let mut limited = RuntimeFailure::new(Code::RuntimeRateLimited, "p.rate_limited", "slow down");
    limited.retry_after_ms = Some(10);
    let patient = Patient {
        inner: Scripted::new(
            &["structured_output"],
            vec![
                Err(limited.clone()),
                Err(limited.clone()),
                Ok(json!({"effective_date": "2026-07-12"})),
            ],
        ),
        asked: Mutex::new(Vec::new()),
    };
    let got = block_on(AsyncRuntimeAdapter::execute(&patient, &request)).expect("retried");
    assert_eq!(got.attempts, 3);
    assert_eq!(
        *patient.asked.lock().unwrap(),
        [(Code::RuntimeRateLimited, 1), (Code::RuntimeRateLimited, 2)]
    );

    // Its answer `false` ends the execution; the last attempt is never asked
    // about; the port's own failures are never asked about.
    let patient = Patient {
        inner: Scripted::new(
            &["structured_output"],
            vec![
                Err(RuntimeFailure::new(Code::RuntimeUnavailable, "u", "down")),
                Err(limited.clone()),
            ],
        ),
        asked: Mutex::new(Vec::new()),
    };
    let error = block_on(AsyncRuntimeAdapter::execute(&patient, &request)).unwrap_err();
    assert_eq!(error.failure.code, Code::RuntimeUnavailable);
    assert_eq!(error.attempts, 1);
    let patient = Patient {
        inner: Scripted::new(
            &["structured_output"],
            vec![Err(limited.clone()), Err(limited)],
        ),
        asked: Mutex::new(Vec::new()),
    };
    let i1 = extraction(Some(2));
    let error = block_on(AsyncRuntimeAdapter::execute_streaming(
        &patient,
        &rendered(&i1),
        &mut |_| {},
    ))
    .unwrap_err();
    assert_eq!(error.attempts, 2);
    assert_eq!(
        patient.asked.lock().unwrap().len(),
        1,
        "not after the last attempt"
    );
}
