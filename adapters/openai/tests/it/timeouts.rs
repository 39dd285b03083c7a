//! The two timeouts of an attempt (`docs/adapters.md`, "Timeouts"): the
//! overall deadline (`runtime_policy.timeout_ms`) and, for streams, the
//! idle timeout; each failure names which one fired and how much output
//! had arrived. And an output cut off at the token limit, named with the
//! limit and the field that raises it.

use serde_json::{Value, json};
use std::time::Duration;
use templiqx::contracts::json::Json;
use templiqx::{AsyncRuntimeAdapter, Code, StreamEvent};
use templiqx_fake_provider::{Reply, render};
use templiqx_openai::{OpenAiAdapter, OpenAiConfig, RetryPolicy};

fn chunk(delta: Value, finish: Option<&str>) -> String {
    let c = json!({ "id": "c", "object": "chat.completion.chunk", "model": "gpt-test",
        "choices": [{ "index": 0, "delta": delta, "finish_reason": finish }] });
    format!("data: {c}\n\n")
}

fn config(base: &str) -> OpenAiConfig {
    OpenAiConfig::new(base, "gpt-test").retry(RetryPolicy {
        initial_backoff: Duration::from_millis(5),
        max_backoff: Duration::from_millis(10),
        max_retry_after: Duration::from_secs(1),
        jitter: false,
    })
}

async fn serve(replies: Vec<Reply>) -> String {
    let (base, _) = templiqx_fake_provider::serve("/v1/chat/completions", replies).await;
    format!("{base}/v1")
}

fn contract(policy: &str) -> templiqx::Interaction {
    templiqx_fake_provider::lease_contract("Answer with JSON only.", policy, "")
}

/// The streamed deltas' count, characters and bytes.
fn received(events: &[StreamEvent]) -> (usize, usize, usize) {
    let texts: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::Delta { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    (
        texts.len(),
        texts.iter().map(|t| t.chars().count()).sum(),
        texts.iter().map(|t| t.len()).sum(),
    )
}

#[tokio::test]
async fn a_stream_still_delivering_at_the_overall_deadline_says_so_and_how_much_arrived() {
    // A delta every 150 ms, for 1.5 s; the deadline is 600 ms.
    let parts: Vec<(Duration, String)> = (0..10)
        .map(|i| {
            let text = if i == 0 {
                "{\"rent\": ".to_owned()
            } else {
                format!("{i}é")
            };
            (
                Duration::from_millis(150),
                chunk(json!({ "content": text }), None),
            )
        })
        .collect();
    let base = serve(vec![Reply::Paced(parts)]).await;
    let adapter = OpenAiAdapter::new(config(&base)).unwrap();
    let i = contract("{ timeout_ms: 600, max_attempts: 2 }");
    let mut events = Vec::new();
    let error = adapter
        .execute_streaming(&render(&i), &mut |e| events.push(e))
        .await
        .unwrap_err();
    assert_eq!(
        (error.failure.code, error.failure.id.as_str()),
        (Code::RuntimeTimeout, "openai.timeout"),
        "{error}"
    );
    let (deltas, chars, bytes) = received(&events);
    assert!(deltas >= 1, "{events:?}");
    let detail = &error.failure.detail;
    assert!(
        detail.starts_with(
            "the attempt's overall deadline of 600 ms passed while openai was still answering: "
        ),
        "{detail}"
    );
    let said = format!(
        "{deltas} delta{} of output had arrived, {chars} characters ({bytes} bytes)",
        if deltas == 1 { "" } else { "s" }
    );
    assert!(detail.contains(&said), "{detail} does not say {said}");
    assert!(!detail.contains("did not answer"), "{detail}");
    let help = error.diagnostics[0].help.as_deref().unwrap();
    assert!(help.contains("runtime_policy.timeout_ms"), "{help}");
    assert!(help.contains("runtime_policy.max_output_tokens"), "{help}");
    assert_eq!(error.attempts, 1, "output was forwarded: no retry");
}

#[tokio::test]
async fn a_stalled_stream_is_an_idle_timeout_named_as_such() {
    let parts = vec![
        (
            Duration::ZERO,
            chunk(json!({ "content": "{\"rent\":" }), None),
        ),
        (Duration::ZERO, chunk(json!({ "content": " 900" }), None)),
        (
            Duration::from_secs(3600),
            chunk(json!({ "content": "}" }), Some("stop")),
        ),
    ];
    let base = serve(vec![Reply::Paced(parts), Reply::Hang]).await;
    let adapter =
        OpenAiAdapter::new(config(&base).idle_timeout(Duration::from_millis(300))).unwrap();
    let i = contract("{ timeout_ms: 20000 }");
    let started = std::time::Instant::now();
    let mut events = Vec::new();
    let error = adapter
        .execute_streaming(&render(&i), &mut |e| events.push(e))
        .await
        .unwrap_err();
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "the deadline fired, not the idle timeout"
    );
    assert_eq!(
        (error.failure.code, error.failure.id.as_str()),
        (Code::RuntimeTimeout, "openai.idle_timeout"),
        "{error}"
    );
    assert_eq!(received(&events), (2, 12, 12));
    assert_eq!(
        error.failure.detail,
        "openai sent nothing for 300 ms, the idle timeout (the stream stalled): \
         2 deltas of output had arrived, 12 characters (12 bytes)"
    );
    assert!(
        error.diagnostics[0]
            .help
            .as_deref()
            .unwrap()
            .contains("--idle-timeout-ms")
    );
    // A server that never starts its response: idle too, and nothing came.
    let error = adapter
        .execute_streaming(&render(&i), &mut |_| {})
        .await
        .unwrap_err();
    assert_eq!(error.failure.id, "openai.idle_timeout");
    assert_eq!(
        error.failure.detail,
        "openai sent nothing for 300 ms, the idle timeout (the response did not start): nothing had arrived"
    );
}

#[tokio::test]
async fn keep_alives_and_slow_bytes_keep_a_stream_alive_past_the_idle_timeout() {
    // Every 100 ms a keep-alive comment or a piece of an event, for 1 s;
    // the idle timeout is 300 ms, the deadline 10 s.
    let whole = chunk(
        json!({ "content": "{\"rent\":900,\"notice_days\":30}" }),
        Some("stop"),
    );
    let (a, b) = whole.split_at(whole.len() / 2);
    let mut parts: Vec<(Duration, String)> = (0..6)
        .map(|_| (Duration::from_millis(100), ": keep-alive\n\n".to_owned()))
        .collect();
    parts.push((Duration::from_millis(100), a.to_owned()));
    parts.push((Duration::from_millis(200), b.to_owned()));
    parts.push((Duration::from_millis(100), "data: [DONE]\n\n".to_owned()));
    let base = serve(vec![Reply::Paced(parts)]).await;
    let adapter =
        OpenAiAdapter::new(config(&base).idle_timeout(Duration::from_millis(300))).unwrap();
    let i = contract("{ timeout_ms: 10000 }");
    let execution = adapter
        .execute_streaming(&render(&i), &mut |_| {})
        .await
        .unwrap();
    assert_eq!(execution.output, json!({ "rent": 900, "notice_days": 30 }));
}

#[tokio::test]
async fn a_request_that_is_not_streamed_names_the_overall_deadline() {
    let base = serve(vec![Reply::Hang]).await;
    // The idle timeout is for streams: a whole body arrives at once.
    let adapter =
        OpenAiAdapter::new(config(&base).idle_timeout(Duration::from_millis(50))).unwrap();
    let i = contract("{ timeout_ms: 300 }");
    let error = adapter.execute(&render(&i)).await.unwrap_err();
    assert_eq!(error.failure.id, "openai.timeout");
    assert_eq!(
        error.failure.detail,
        "openai did not answer within the attempt's overall deadline of 300 ms"
    );
}

fn completion(content: &str, finish: &str, tokens: u64) -> Reply {
    Reply::ok(
        json!({ "id": "c", "object": "chat.completion", "model": "gpt-test",
            "choices": [{ "index": 0, "finish_reason": finish,
                "message": { "role": "assistant", "content": content } }],
            "usage": { "prompt_tokens": 10, "completion_tokens": tokens, "total_tokens": 10 + tokens } })
        .to_string(),
    )
}

#[tokio::test]
async fn an_output_cut_off_at_the_token_limit_names_the_limit_and_what_raises_it() {
    let base = serve(vec![
        completion("{\"rent\": 9", "length", 5),
        completion("{\"rent\": 9", "length", 4096),
    ])
    .await;
    let adapter = OpenAiAdapter::new(config(&base)).unwrap();
    let capped = contract("{ max_output_tokens: 5 }");
    let error = adapter.execute(&render(&capped)).await.unwrap_err();
    assert_eq!(
        (error.failure.code, error.failure.id.as_str()),
        (Code::RuntimeInvalidResponse, "openai.truncated")
    );
    assert_eq!(
        error.failure.detail,
        "the output was cut off at the token limit of 5 tokens (`max_completion_tokens`, from \
         `runtime_policy.max_output_tokens`; finish_reason `length`) after 5 output tokens, 10 characters"
    );
    let help = error.diagnostics[0].help.as_deref().unwrap();
    assert!(
        help.starts_with("raise `runtime_policy.max_output_tokens` in the contract (now 5)"),
        "{help}"
    );
    // What the model wrote is kept, as text: it does not parse.
    assert_eq!(error.output, Some(Json::String("{\"rent\": 9".into())));
    assert_eq!(
        error.failure.output, None,
        "handed on as the error's output"
    );
    let uncapped = contract("{ temperature: 0 }");
    let error = adapter.execute(&render(&uncapped)).await.unwrap_err();
    assert!(
        error
            .failure
            .detail
            .starts_with("the output was cut off at the server's own token limit"),
        "{}",
        error.failure.detail
    );
    let help = error.diagnostics[0].help.as_deref().unwrap();
    assert!(
        help.starts_with("set `runtime_policy.max_output_tokens` in the contract"),
        "{help}"
    );
}
