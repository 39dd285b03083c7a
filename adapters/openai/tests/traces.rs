//! The execution span and its attempt events (`docs/runtime.md`, "Traces"),
//! captured from a real execution against the fake server: the
//! OpenTelemetry GenAI fields, our fingerprints, one event per attempt, and
//! neither the key nor any prompt or output text unless the host opts in.
//!
//! One test function: content capture is process-wide, so its two states
//! are tried in sequence.
//!
//! Its own test binary, not a module of `it/`, for the same reason and one
//! more: it captures through a thread-local subscriber (`set_default`), and
//! while it is the only dispatcher, tracing caches a callsite's interest
//! from the thread that first reaches it; a test without a subscriber
//! executing the adapter on another thread would cache "never" and the
//! capture would miss spans (tokio-rs/tracing#3611).

use serde_json::json;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use templiqx::contracts::canonical::fingerprint;
use templiqx::{AsyncRuntimeAdapter, Code};
use templiqx_fake_provider::{OUTPUT, Reply, render};
use templiqx_openai::{ApiKey, OpenAiAdapter, OpenAiConfig, RetryPolicy};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};

const KEY: &str = "sk-trace-0123456789abcdef";

/// A span's or event's fields, every value as text.
type Fields = BTreeMap<String, String>;

#[derive(Default)]
struct Captured {
    spans: Vec<(String, Fields)>,
    events: Vec<Fields>,
}

struct Capture(Arc<Mutex<Captured>>);

struct Collect<'a>(&'a mut Fields);

impl Visit for Collect<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }
}

impl<S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>> Layer<S>
    for Capture
{
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, _: Context<'_, S>) {
        assert_eq!(attrs.metadata().target(), templiqx::trace::TARGET);
        let mut fields = Fields::new();
        attrs.record(&mut Collect(&mut fields));
        let mut c = self.0.lock().unwrap();
        c.spans.push((attrs.metadata().name().to_owned(), fields));
        assert_eq!(c.spans.len() as u64, id.into_u64(), "one span at a time");
    }
    fn on_record(&self, id: &Id, values: &Record<'_>, _: Context<'_, S>) {
        let mut c = self.0.lock().unwrap();
        let index = usize::try_from(id.into_u64()).unwrap() - 1;
        values.record(&mut Collect(&mut c.spans[index].1));
    }
    fn on_event(&self, event: &tracing::Event<'_>, _: Context<'_, S>) {
        // The fake server's own events (axum, hyper) are not ours.
        if event.metadata().target() != templiqx::trace::TARGET {
            return;
        }
        let mut fields = Fields::new();
        event.record(&mut Collect(&mut fields));
        self.0.lock().unwrap().events.push(fields);
    }
}

/// Runs `f` with a subscriber that captures every span and event.
async fn capture<F: Future>(f: F) -> (F::Output, Captured) {
    let store = Arc::new(Mutex::new(Captured::default()));
    let subscriber = tracing_subscriber::registry().with(Capture(store.clone()));
    let guard = tracing::subscriber::set_default(subscriber);
    let out = f.await;
    drop(guard);
    let captured = std::mem::take(&mut *store.lock().unwrap());
    (out, captured)
}

fn adapter(base: &str) -> OpenAiAdapter {
    OpenAiAdapter::new(
        OpenAiConfig::new(format!("{base}/v1"), "gpt-test")
            .api_key(ApiKey::new(KEY).unwrap())
            .retry(RetryPolicy {
                initial_backoff: Duration::from_millis(10),
                max_backoff: Duration::from_millis(10),
                max_retry_after: Duration::from_secs(1),
                jitter: false,
            }),
    )
    .unwrap()
}

fn completion() -> String {
    json!({
        "id": "chatcmpl-7", "object": "chat.completion", "model": "gpt-test-2026",
        "choices": [{ "index": 0, "finish_reason": "stop",
                      "message": { "role": "assistant", "content": OUTPUT } }],
        "usage": { "prompt_tokens": 42, "completion_tokens": 9 }
    })
    .to_string()
}

fn no_secret_or_text(captured: &Captured, texts: &[&str]) {
    let all = captured
        .spans
        .iter()
        .map(|(_, f)| f)
        .chain(&captured.events)
        .flat_map(|f| f.values());
    for value in all {
        assert!(
            !value.contains("0123456789abcdef"),
            "the key leaked: {value}"
        );
        for text in texts {
            assert!(!value.contains(text), "`{text}` is in a trace: {value}");
        }
    }
}

#[tokio::test(flavor = "current_thread")]
async fn each_execution_is_one_genai_span_with_an_event_per_attempt() {
    let echo = json!({ "error": { "message": format!("Incorrect API key provided: {KEY}") } });
    let (base, _) = templiqx_fake_provider::serve(
        "/v1/chat/completions",
        vec![
            Reply::Raw(500, vec![], "{}".into()),
            Reply::ok(completion()),
            Reply::Raw(401, vec![], echo.to_string()),
            Reply::ok(completion()),
        ],
    )
    .await;
    let i = templiqx_fake_provider::lease_contract(
        "Answer with JSON only.",
        "{ temperature: 0.25, top_p: 0.5, max_output_tokens: 100, max_attempts: 2 }",
        "",
    );
    let request = render(&i);
    let adapter = adapter(&base);

    // A success after one retry.
    let (execution, captured) = capture(adapter.execute(&request)).await;
    let execution = execution.unwrap();
    assert_eq!(captured.spans.len(), 1);
    let (name, span) = &captured.spans[0];
    assert_eq!(name, "chat");
    let expected = [
        ("otel.name", "chat gpt-test".to_owned()),
        ("otel.kind", "client".into()),
        ("otel.status_code", "OK".into()),
        ("gen_ai.operation.name", "chat".into()),
        ("gen_ai.provider.name", "openai".into()),
        ("gen_ai.system", "openai".into()),
        ("gen_ai.request.model", "gpt-test".into()),
        ("gen_ai.request.temperature", "0.25".into()),
        ("gen_ai.request.top_p", "0.5".into()),
        ("gen_ai.request.max_tokens", "100".into()),
        ("gen_ai.response.model", "gpt-test-2026".into()),
        ("gen_ai.response.id", "chatcmpl-7".into()),
        ("gen_ai.response.finish_reasons", r#"["stop"]"#.into()),
        ("gen_ai.usage.input_tokens", "42".into()),
        ("gen_ai.usage.output_tokens", "9".into()),
        ("templiqx.contract.id", "lease-terms".into()),
        ("templiqx.contract.version", "0.1.0".into()),
        (
            "templiqx.fingerprint.contract",
            i.contract_fingerprint.to_string(),
        ),
        (
            "templiqx.fingerprint.interaction",
            i.interaction_fingerprint.to_string(),
        ),
        (
            "templiqx.fingerprint.request",
            request.request_fingerprint(),
        ),
        (
            "templiqx.fingerprint.output",
            fingerprint(&execution.output),
        ),
        ("templiqx.attempts", "2".into()),
        ("templiqx.receipt", execution.receipt.fingerprint()),
    ];
    for (field, value) in expected {
        assert_eq!(span.get(field), Some(&value), "{field}");
    }
    assert!(!span.contains_key("error.type"));
    assert!(
        !span.contains_key("gen_ai.input.messages"),
        "content is opt-in"
    );
    assert!(
        !span.contains_key("gen_ai.output.messages"),
        "content is opt-in"
    );
    let attempts: Vec<(&str, &str, &str)> = captured
        .events
        .iter()
        .map(|e| {
            (
                e["attempt"].as_str(),
                e["outcome"].as_str(),
                e["retried"].as_str(),
            )
        })
        .collect();
    assert_eq!(
        attempts,
        [
            ("1", "TQX_RUNTIME_UNAVAILABLE", "true"),
            ("2", "ok", "false")
        ]
    );
    assert_eq!(captured.events[0]["failure_id"], "openai.unavailable");
    let waited: u64 = captured.events[0]["wait_ms"].parse().unwrap();
    assert!(waited >= 10, "the 10 ms backoff: {waited}");
    no_secret_or_text(
        &captured,
        &["Rent is EUR", "notice_days", "Extract the lease"],
    );

    // A failure whose detail echoed the key.
    let (error, captured) = capture(adapter.execute(&request)).await;
    assert_eq!(error.unwrap_err().failure.code, Code::RuntimePermanent);
    let span = &captured.spans[0].1;
    assert_eq!(span["error.type"], "TQX_RUNTIME_PERMANENT");
    assert_eq!(span["otel.status_code"], "ERROR");
    assert_eq!(span["templiqx.attempts"], "1");
    assert!(!span.contains_key("gen_ai.usage.input_tokens"));
    no_secret_or_text(&captured, &["Rent is EUR", "Extract the lease"]);

    // Content, once the host opts in.
    templiqx::trace::set_capture_content(true);
    let (execution, captured) = capture(adapter.execute(&request)).await;
    templiqx::trace::set_capture_content(false);
    execution.unwrap();
    let span = &captured.spans[0].1;
    let input: serde_json::Value = serde_json::from_str(&span["gen_ai.input.messages"]).unwrap();
    assert_eq!(
        input[0],
        json!({ "role": "system", "content": "Extract the lease terms." })
    );
    assert_eq!(
        input[2]["content"],
        "Rent is EUR 900 per month; notice 30 days."
    );
    let output: serde_json::Value = serde_json::from_str(&span["gen_ai.output.messages"]).unwrap();
    assert_eq!(
        output[0],
        json!({ "role": "assistant", "content": r#"{"notice_days":30,"rent":900}"# })
    );
    no_secret_or_text(&captured, &[]);
}
