//! Adapter combinators (`templiqx::fallback`, `docs/runtime.md`, "Fallback
//! and round robin"): fallback on the failure classes the policy names and
//! on no other, each member's own retries, never after a forwarded delta,
//! round robin, the capability gate per member (`TQX_ADAPTER_SKIPPED`), the
//! route with every attempt, and the spans of each attempt.

use crate::common::*;
use serde_json::{Value, json};
use std::collections::VecDeque;
use std::future::Future;
use std::pin::pin;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use templiqx::contracts::{JsonType, Schema, Seq, Str};
use templiqx::fallback::AttemptOutcome;
use templiqx::{
    AdapterDescriptor, AdapterOutput, AsyncRuntimeAdapter, Code, FailureClass, Fallback,
    FallbackPolicy, Interaction, Receipt, RenderedInteraction, RuntimeFailure, Strategy,
    StreamEvent,
};

/// A member: replays scripted results, streaming its events first.
struct Member {
    descriptor: AdapterDescriptor,
    results: Mutex<VecDeque<Result<Value, RuntimeFailure>>>,
    events: Vec<StreamEvent>,
    invocations: AtomicU32,
    secret: &'static str,
}

impl Member {
    fn new(capabilities: &[&str], results: Vec<Result<Value, RuntimeFailure>>) -> Member {
        Member {
            descriptor: AdapterDescriptor::new("scripted", capabilities.iter().copied()),
            results: Mutex::new(results.into()),
            events: Vec::new(),
            invocations: AtomicU32::new(0),
            secret: "no-secret-here",
        }
    }

    fn ok() -> Member {
        Member::new(&["structured_output"], vec![Ok(answer())])
    }

    fn failing(code: Code) -> Member {
        Member::new(&["structured_output"], vec![Err(failure(code))])
    }

    fn streaming(mut self, deltas: &[&str]) -> Member {
        self.events = deltas
            .iter()
            .map(|t| StreamEvent::Delta {
                text: (*t).to_owned(),
            })
            .collect();
        self
    }

    fn invocations(&self) -> u32 {
        self.invocations.load(Ordering::SeqCst)
    }
}

fn answer() -> Value {
    json!({"answer": "yes"})
}

fn failure(code: Code) -> RuntimeFailure {
    RuntimeFailure::new(code, "provider-call", format!("scripted {code}"))
}

impl AsyncRuntimeAdapter for Member {
    fn descriptor(&self) -> &AdapterDescriptor {
        &self.descriptor
    }

    async fn invoke(
        &self,
        _request: &RenderedInteraction<'_>,
    ) -> Result<AdapterOutput, RuntimeFailure> {
        self.invocations.fetch_add(1, Ordering::SeqCst);
        let next = self.results.lock().unwrap().pop_front();
        next.unwrap_or_else(|| Err(failure(Code::RuntimePermanent)))
            .map(|output| AdapterOutput {
                output: output.into(),
                usage: None,
            })
    }

    async fn invoke_streaming(
        &self,
        request: &RenderedInteraction<'_>,
        sink: &mut (dyn FnMut(StreamEvent) + Send),
    ) -> Result<AdapterOutput, RuntimeFailure> {
        for event in &self.events {
            sink(event.clone());
        }
        // A member's own terminal event never reaches the caller.
        sink(StreamEvent::Failed {
            failure: failure(Code::RuntimeInvalidResponse),
        });
        self.invoke(request).await
    }

    fn redact(&self, text: &str) -> String {
        text.replace(self.secret, "[redacted]")
    }
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

/// A contract with output `{answer: string}` requiring `structured_output`.
fn contract(max_attempts: Option<u32>) -> Interaction {
    let mut i = interaction(vec![], vec![], vec![vec![text("Answer.")]], vec![]);
    i.output_schema = Schema {
        properties: Seq::Owned(vec![(Str::Borrowed("answer"), typed(JsonType::String))]),
        required: Seq::Owned(vec![Str::Borrowed("answer")]),
        additional_properties: false,
        ..typed(JsonType::Object)
    };
    i.required_capabilities = Seq::Owned(vec![Str::Borrowed("structured_output")]);
    i.runtime_policy.max_attempts = max_attempts;
    i
}

fn rendered(i: &Interaction) -> RenderedInteraction<'_> {
    templiqx::render(i, &obj(json!({})), &obj(json!({}))).expect("renders")
}

fn chain(members: Vec<(&str, Member)>) -> Fallback<Member> {
    members
        .into_iter()
        .fold(Fallback::chain(FallbackPolicy::default()), |f, (n, m)| {
            f.member(n, m)
        })
}

fn member<'a>(f: &'a Fallback<Member>, name: &str) -> &'a Member {
    f.members().find(|(n, _)| *n == name).unwrap().1
}

/// (adapter, outcome, code, invocations) of every attempt of a route.
fn attempts(route: &templiqx::Route) -> Vec<(&str, AttemptOutcome, Option<Code>, u32)> {
    route
        .attempts
        .iter()
        .map(|a| (a.adapter.as_str(), a.outcome, a.code, a.invocations))
        .collect()
}

#[test]
fn a_listed_failure_moves_on_to_the_next_member_and_the_route_lists_every_attempt() {
    let i = contract(None);
    let request = rendered(&i);
    let f = chain(vec![
        ("local", Member::failing(Code::RuntimeUnavailable)),
        ("hosted", Member::ok()),
    ]);
    let execution = block_on(f.execute(&request)).expect("the second member answers");
    assert_eq!(execution.output, templiqx::Json::from(answer()));
    let route = execution.route.as_ref().expect("a route");
    assert_eq!(route.strategy, Strategy::Fallback);
    assert_eq!(route.answered_by.as_deref(), Some("hosted"));
    assert_eq!(
        attempts(route),
        [
            (
                "local",
                AttemptOutcome::Failure,
                Some(Code::RuntimeUnavailable),
                1
            ),
            ("hosted", AttemptOutcome::Success, None, 1),
        ]
    );
    assert!(route.diagnostics.is_empty());
    assert_eq!(execution.attempts, 2);
    // The receipt is the answering member's, as if it ran alone.
    let alone = block_on(Member::ok().execute(&request)).unwrap();
    assert_eq!(execution.receipt, alone.receipt);
    assert!(alone.route.is_none());
    // The route's JSON shape (`docs/runtime.md`, "Routes").
    let mut json = serde_json::to_value(route).unwrap();
    for a in json["attempts"].as_array_mut().unwrap() {
        assert!(a["duration_ms"].is_u64());
        a["duration_ms"] = json!(0);
    }
    assert_eq!(
        json,
        json!({"strategy": "fallback", "answered_by": "hosted", "attempts": [
            {"adapter": "local", "outcome": "failure", "code": "TQX_RUNTIME_UNAVAILABLE",
             "invocations": 1, "duration_ms": 0},
            {"adapter": "hosted", "outcome": "success", "invocations": 1, "duration_ms": 0}]})
    );
    let back: templiqx::Route =
        serde_json::from_value(serde_json::to_value(route).unwrap()).unwrap();
    assert_eq!(&back, route);
}

#[test]
fn each_member_keeps_its_own_retries() {
    // max_attempts 2: the first member retries its unavailability once,
    // then the chain moves on.
    let i = contract(Some(2));
    let request = rendered(&i);
    let first = Member::new(
        &["structured_output"],
        vec![
            Err(failure(Code::RuntimeUnavailable)),
            Err(failure(Code::RuntimeTimeout)),
        ],
    );
    let f = chain(vec![("first", first), ("second", Member::ok())]);
    let execution = block_on(f.execute(&request)).unwrap();
    assert_eq!(member(&f, "first").invocations(), 2);
    assert_eq!(member(&f, "second").invocations(), 1);
    assert_eq!(
        attempts(execution.route.as_ref().unwrap()),
        [
            (
                "first",
                AttemptOutcome::Failure,
                Some(Code::RuntimeTimeout),
                2
            ),
            ("second", AttemptOutcome::Success, None, 1),
        ]
    );
    assert_eq!(execution.attempts, 3);
}

#[test]
fn a_failure_class_the_policy_does_not_name_is_the_execution_failure() {
    let i = contract(None);
    let request = rendered(&i);
    // Permanent is not in the default policy.
    let f = chain(vec![
        ("first", Member::failing(Code::RuntimePermanent)),
        ("second", Member::ok()),
    ]);
    let error = block_on(f.execute(&request)).unwrap_err();
    assert_eq!(error.failure.code, Code::RuntimePermanent);
    assert_eq!(error.receipt, failure(Code::RuntimePermanent).receipt());
    assert_eq!(member(&f, "second").invocations(), 0);
    let route = error.route.as_ref().unwrap();
    assert_eq!(route.answered_by, None);
    assert_eq!(
        attempts(route),
        [(
            "first",
            AttemptOutcome::Failure,
            Some(Code::RuntimePermanent),
            1
        )]
    );
    // A policy naming only `unavailable` does not move on after a rate
    // limit, and one naming `permanent` does.
    let only = Fallback::chain(FallbackPolicy::new([FailureClass::Unavailable]))
        .member("first", Member::failing(Code::RuntimeRateLimited))
        .member("second", Member::ok());
    let error = block_on(only.execute(&request)).unwrap_err();
    assert_eq!(error.failure.code, Code::RuntimeRateLimited);
    assert_eq!(member(&only, "second").invocations(), 0);
    let permanent = Fallback::chain(FallbackPolicy::new([FailureClass::Permanent]))
        .member("first", Member::failing(Code::RuntimePermanent))
        .member("second", Member::ok());
    assert!(block_on(permanent.execute(&request)).is_ok());
    // Every member failing: the last failure, with the whole route.
    let all = chain(vec![
        ("a", Member::failing(Code::RuntimeUnavailable)),
        ("b", Member::failing(Code::RuntimeRateLimited)),
    ]);
    let error = block_on(all.execute(&request)).unwrap_err();
    assert_eq!(error.failure.code, Code::RuntimeRateLimited);
    assert_eq!(error.attempts, 2);
    assert_eq!(error.route.unwrap().attempts.len(), 2);
}

#[test]
fn a_streamed_member_that_forwarded_a_delta_is_never_fallen_back_from() {
    let i = contract(None);
    let request = rendered(&i);
    let f = chain(vec![
        (
            "first",
            Member::failing(Code::RuntimeUnavailable).streaming(&["{\"ans"]),
        ),
        ("second", Member::ok().streaming(&["{\"answer\":\"yes\"}"])),
    ]);
    let mut events = Vec::new();
    let error = block_on(f.execute_streaming(&request, &mut |e| events.push(e))).unwrap_err();
    assert_eq!(error.failure.code, Code::RuntimeUnavailable);
    assert_eq!(member(&f, "second").invocations(), 0);
    assert_eq!(
        events,
        [
            StreamEvent::Delta {
                text: "{\"ans".into()
            },
            StreamEvent::Failed {
                failure: error.failure.clone()
            },
        ]
    );
    assert_eq!(error.route.unwrap().attempts.len(), 1);

    // A streamed member that failed before forwarding anything is fallen
    // back from: the caller sees the second member's deltas and one
    // terminal event.
    let f = chain(vec![
        ("first", Member::failing(Code::RuntimeUnavailable)),
        (
            "second",
            Member::ok().streaming(&["{\"answer\":", "\"yes\"}"]),
        ),
    ]);
    let mut events = Vec::new();
    let execution = block_on(f.execute_streaming(&request, &mut |e| events.push(e))).unwrap();
    assert_eq!(
        events,
        [
            StreamEvent::Delta {
                text: "{\"answer\":".into()
            },
            StreamEvent::Delta {
                text: "\"yes\"}".into()
            },
            StreamEvent::Complete {
                receipt: execution.receipt.clone()
            },
        ]
    );
    assert_eq!(
        execution.route.unwrap().answered_by.as_deref(),
        Some("second")
    );
}

#[test]
fn round_robin_spreads_executions_over_its_members() {
    let i = contract(None);
    let request = rendered(&i);
    let ok_times = |n| Member::new(&["structured_output"], vec![Ok(answer()); n]);
    let f = Fallback::round_robin(FallbackPolicy::new([]))
        .member("a", ok_times(2))
        .member("b", ok_times(2))
        .member("c", ok_times(2));
    let answered: Vec<String> = (0..6)
        .map(|_| {
            let execution = block_on(f.execute(&request)).unwrap();
            let route = execution.route.unwrap();
            assert_eq!(route.strategy, Strategy::RoundRobin);
            assert_eq!(route.attempts.len(), 1);
            route.answered_by.unwrap()
        })
        .collect();
    assert_eq!(answered, ["a", "b", "c", "a", "b", "c"]);
    for name in ["a", "b", "c"] {
        assert_eq!(member(&f, name).invocations(), 2);
    }
    // With a policy, a round robin goes on around the ring from where it
    // started.
    let f = Fallback::round_robin(FallbackPolicy::default())
        .member("a", Member::ok())
        .member("b", Member::failing(Code::RuntimeUnavailable))
        .member("c", Member::ok());
    let first = block_on(f.execute(&request)).unwrap().route.unwrap();
    assert_eq!(first.answered_by.as_deref(), Some("a"));
    let second = block_on(f.execute(&request)).unwrap().route.unwrap();
    assert_eq!(
        attempts(&second),
        [
            (
                "b",
                AttemptOutcome::Failure,
                Some(Code::RuntimeUnavailable),
                1
            ),
            ("c", AttemptOutcome::Success, None, 1),
        ]
    );
}

#[test]
fn a_member_lacking_a_required_capability_is_skipped_with_a_warning() {
    let i = contract(None);
    let request = rendered(&i);
    let f = chain(vec![
        ("text-only", Member::new(&["streaming"], vec![Ok(answer())])),
        ("structured", Member::ok()),
    ]);
    let execution = block_on(f.execute(&request)).unwrap();
    assert_eq!(member(&f, "text-only").invocations(), 0, "not called");
    let route = execution.route.unwrap();
    assert_eq!(
        attempts(&route),
        [
            (
                "text-only",
                AttemptOutcome::Skipped,
                Some(Code::AdapterSkipped),
                0
            ),
            ("structured", AttemptOutcome::Success, None, 1),
        ]
    );
    assert_eq!(route.diagnostics.len(), 1);
    let d = &route.diagnostics[0];
    assert_eq!(d.code.as_str(), "TQX_ADAPTER_SKIPPED");
    assert_eq!(d.severity, templiqx::contracts::Severity::Warning);
    assert_eq!(
        d.message,
        "adapter `text-only` was skipped: it does not provide the required capability `structured_output`"
    );
    assert!(d.help.is_some());
    // The union of the members' capabilities is the combinator's.
    assert_eq!(
        f.descriptor().capabilities,
        ["streaming", "structured_output"]
    );
    assert_eq!(f.descriptor().name, "fallback(text-only, structured)");

    // Every member skipped: the capability gate's failure, nothing
    // invoked, the warnings after it.
    let f = chain(vec![
        ("a", Member::new(&[], vec![Ok(answer())])),
        ("b", Member::new(&["streaming"], vec![Ok(answer())])),
    ]);
    let error = block_on(f.execute(&request)).unwrap_err();
    assert_eq!(error.failure.code, Code::CapabilityUnsupported);
    assert_eq!(error.attempts, 0);
    assert_eq!(
        error
            .diagnostics
            .iter()
            .map(|d| d.code.as_str())
            .collect::<Vec<_>>(),
        [
            "TQX_CAPABILITY_UNSUPPORTED",
            "TQX_ADAPTER_SKIPPED",
            "TQX_ADAPTER_SKIPPED"
        ]
    );
    assert_eq!(
        member(&f, "a").invocations() + member(&f, "b").invocations(),
        0
    );
    // No member at all is a permanent failure, not a panic.
    let empty: Fallback<Member> = Fallback::chain(FallbackPolicy::default());
    let error = block_on(empty.execute(&request)).unwrap_err();
    assert_eq!(error.failure.code, Code::RuntimePermanent);
    assert_eq!(error.failure.id, templiqx::fallback::EMPTY_ID);
}

#[test]
fn failure_classes_parse_and_the_default_policy_names_the_transient_ones() {
    for class in FailureClass::ALL {
        assert_eq!(FailureClass::parse(class.name()), Some(class));
        assert_eq!(FailureClass::of(class.code()), Some(class));
    }
    assert_eq!(
        FailureClass::parse("rate-limited"),
        Some(FailureClass::RateLimited)
    );
    assert_eq!(FailureClass::parse("capability_unsupported"), None);
    let policy = FallbackPolicy::default();
    for (code, moves_on) in [
        (Code::RuntimeTimeout, true),
        (Code::RuntimeRateLimited, true),
        (Code::RuntimeUnavailable, true),
        (Code::RuntimeInvalidResponse, false),
        (Code::RuntimePermanent, false),
        (Code::OutputSchema, false),
        (Code::CapabilityUnsupported, false),
    ] {
        assert_eq!(policy.falls_back_on(code), moves_on, "{code}");
    }
}

#[test]
fn the_combinator_redacts_with_every_member_and_debug_shows_names_only() {
    let mut a = Member::ok();
    a.secret = "sk-first";
    let mut b = Member::ok();
    b.secret = "sk-second";
    let f = chain(vec![("a", a), ("b", b)]);
    assert_eq!(
        f.redact("sk-first and sk-second"),
        "[redacted] and [redacted]"
    );
    let debug = format!("{f:?}");
    assert!(debug.contains("\"a\"") && !debug.contains("sk-"), "{debug}");
}

/// A span opened: its name, its parent's id, and its fields as recorded.
type SpanRecord = (String, Option<u64>, Vec<(String, String)>);

/// Every span opened, in order (ids are 1-based positions).
#[derive(Default)]
struct Spans {
    next: AtomicU64,
    spans: Mutex<Vec<SpanRecord>>,
    stack: Mutex<Vec<u64>>,
}

struct Fields<'a>(&'a mut Vec<(String, String)>);

impl tracing::field::Visit for Fields<'_> {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        self.0.push((field.name().to_owned(), format!("{value:?}")));
    }
    fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
        self.0.push((field.name().to_owned(), value.to_owned()));
    }
}

/// The subscriber over shared [`Spans`].
struct Capture(Arc<Spans>);

impl tracing::Subscriber for Capture {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, attrs: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        let id = self.0.next.fetch_add(1, Ordering::SeqCst) + 1;
        let parent = attrs
            .parent()
            .map(|p| p.into_u64())
            .or_else(|| self.0.stack.lock().unwrap().last().copied());
        let mut fields = Vec::new();
        attrs.record(&mut Fields(&mut fields));
        self.0
            .spans
            .lock()
            .unwrap()
            .push((attrs.metadata().name().to_owned(), parent, fields));
        tracing::span::Id::from_u64(id)
    }
    fn record(&self, span: &tracing::span::Id, values: &tracing::span::Record<'_>) {
        let mut spans = self.0.spans.lock().unwrap();
        let index = usize::try_from(span.into_u64() - 1).unwrap();
        values.record(&mut Fields(&mut spans[index].2));
    }
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, _: &tracing::Event<'_>) {}
    fn enter(&self, span: &tracing::span::Id) {
        self.0.stack.lock().unwrap().push(span.into_u64());
    }
    fn exit(&self, _: &tracing::span::Id) {
        self.0.stack.lock().unwrap().pop();
    }
}

#[test]
fn the_spans_show_the_route_and_each_attempt_with_the_members_chat_span_inside() {
    let i = contract(None);
    let request = rendered(&i);
    let f = chain(vec![
        ("skipped", Member::new(&[], vec![])),
        ("local", Member::failing(Code::RuntimeUnavailable)),
        ("hosted", Member::ok()),
    ]);
    let spans = Arc::new(Spans::default());
    tracing::subscriber::with_default(Capture(Arc::clone(&spans)), || {
        block_on(f.execute(&request)).unwrap();
    });
    let spans = spans.spans.lock().unwrap();
    let field = |index: usize, name: &str| -> Option<String> {
        spans[index]
            .2
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    };
    let names: Vec<&str> = spans.iter().map(|s| s.0.as_str()).collect();
    assert_eq!(
        names,
        [
            "route",
            "route.attempt",
            "route.attempt",
            "chat",
            "route.attempt",
            "chat"
        ]
    );
    // Ids are 1-based positions: the attempts are children of the route,
    // each chat span a child of its attempt.
    let parents: Vec<Option<u64>> = spans.iter().map(|s| s.1).collect();
    assert_eq!(parents, [None, Some(1), Some(1), Some(3), Some(1), Some(5)]);
    assert_eq!(
        field(0, "templiqx.route.answered_by").as_deref(),
        Some("hosted")
    );
    assert_eq!(field(0, "templiqx.route.attempts").as_deref(), Some("3"));
    assert_eq!(field(0, "otel.status_code").as_deref(), Some("OK"));
    let attempt = |index: usize| {
        (
            field(index, "templiqx.route.adapter").unwrap(),
            field(index, "templiqx.route.outcome").unwrap(),
            field(index, "error.type"),
        )
    };
    assert_eq!(
        [attempt(1), attempt(2), attempt(4)],
        [
            (
                "skipped".into(),
                "skipped".into(),
                Some("TQX_ADAPTER_SKIPPED".into())
            ),
            (
                "local".into(),
                "failure".into(),
                Some("TQX_RUNTIME_UNAVAILABLE".into())
            ),
            ("hosted".into(), "success".into(), None),
        ]
    );
    assert_eq!(
        field(2, "templiqx.route.fell_back").as_deref(),
        Some("true")
    );
    assert_eq!(
        field(3, "error.type").as_deref(),
        Some("TQX_RUNTIME_UNAVAILABLE")
    );
}

#[test]
fn a_typed_call_error_carries_the_route() {
    let i = contract(None);
    let request = rendered(&i);
    let f = chain(vec![("only", Member::failing(Code::RuntimePermanent))]);
    let error: templiqx::ExecuteError = block_on(f.execute(&request)).unwrap_err().into();
    let route = error.route().expect("the route");
    assert_eq!(route.attempts[0].adapter, "only");
    assert!(matches!(error.receipt(), Some(Receipt::Failure { .. })));
}
