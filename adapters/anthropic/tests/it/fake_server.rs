//! `templiqx-anthropic` against a fake Messages API server (axum on
//! loopback) answering in the wire format of Anthropic's API reference
//! ("Messages", "Streaming Messages", "Errors"): every success and failure
//! path of `docs/adapters.md`.

use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;
use templiqx::contracts::canonical::fingerprint;
use templiqx::{AsyncRuntimeAdapter, Code, Interaction, Receipt, StreamEvent};
use templiqx_anthropic::{AnthropicAdapter, AnthropicConfig, ApiKey, RetryPolicy};
use templiqx_fake_provider::{
    Fake, KeepAlive, Reply, SseBody, assert_retry_after, assert_streams, render,
    retry_after_script, stream_variants,
};

const KEY: &str = "sk-ant-test-0123456789abcdef";

/// Starts the fake Messages API server; returns its base URL.
async fn serve(replies: Vec<Reply>) -> (String, Arc<Fake>) {
    templiqx_fake_provider::serve("/v1/messages", replies).await
}

/// `text/event-stream` of these (event name, data) pairs, LF-ended, whole.
fn sse(events: Vec<(String, Value)>) -> Reply {
    Reply::sse(stream_body(&events).render("\n", KeepAlive::None))
}

fn stream_body(events: &[(String, Value)]) -> SseBody {
    events.iter().fold(SseBody::new(), |body, (name, data)| {
        body.named(name, data.to_string())
    })
}

fn contract(policy: &str) -> Interaction {
    templiqx_fake_provider::lease_contract("Answer through the tool.", policy, "")
}

fn default_contract() -> Interaction {
    contract("{ temperature: 0.2, top_p: 0.9, max_output_tokens: 300, max_attempts: 2 }")
}

fn adapter(base: &str) -> AnthropicAdapter {
    AnthropicAdapter::new(
        AnthropicConfig::new(base, "claude-test")
            .api_key(ApiKey::new(KEY).unwrap())
            .header("anthropic-beta", "test-beta")
            .retry(RetryPolicy {
                initial_backoff: Duration::from_millis(10),
                max_backoff: Duration::from_millis(40),
                max_retry_after: Duration::from_secs(2),
                jitter: true,
            }),
    )
    .unwrap()
}

fn message(content: Value, stop: &str) -> String {
    json!({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test",
        "content": content, "stop_reason": stop, "stop_sequence": null,
        "usage": { "input_tokens": 120, "output_tokens": 17 }
    })
    .to_string()
}

fn tool_reply(input: Value) -> Reply {
    Reply::Raw(
        200,
        vec![],
        message(
            json!([{ "type": "tool_use", "id": "toolu_1", "name": "emit_output", "input": input }]),
            "tool_use",
        ),
    )
}

fn ok() -> Reply {
    tool_reply(json!({ "rent": 900, "notice_days": 30 }))
}

fn error_body(kind: &str, message: &str) -> String {
    json!({ "type": "error", "error": { "type": kind, "message": message } }).to_string()
}

#[tokio::test]
async fn success_uses_a_forced_tool_and_a_top_level_system_prompt() {
    let (base, fake) = serve(vec![ok()]).await;
    let i = default_contract();
    let request = render(&i);
    let execution = adapter(&base).execute(&request).await.unwrap();
    assert_eq!(execution.output, json!({ "rent": 900, "notice_days": 30 }));
    let usage = execution.usage.unwrap();
    assert_eq!((usage.input_tokens, usage.output_tokens), (120, 17));
    assert_eq!(
        execution.receipt,
        Receipt::for_output(
            &request.request_fingerprint(),
            &fingerprint(&execution.output),
            true
        )
    );
    let seen = fake.seen.lock().unwrap();
    let (headers, body) = &seen[0];
    assert_eq!(headers["x-api-key"], KEY);
    assert_eq!(headers["anthropic-version"], "2023-06-01");
    assert_eq!(headers["anthropic-beta"], "test-beta");
    assert!(headers.get("authorization").is_none());
    assert_eq!(body["model"], "claude-test");
    assert_eq!(body["max_tokens"], 300);
    assert_eq!(body["temperature"], 0.2);
    assert_eq!(body["top_p"], 0.9);
    assert_eq!(
        body["system"],
        "Extract the lease terms.\n\nAnswer through the tool."
    );
    assert_eq!(
        body["messages"],
        json!([{ "role": "user", "content": "Rent is EUR 900 per month; notice 30 days." }])
    );
    assert_eq!(body["tools"][0]["name"], "emit_output");
    assert_eq!(
        body["tools"][0]["input_schema"],
        serde_json::to_value(&i.output_schema).unwrap()
    );
    assert_eq!(
        body["tool_choice"],
        json!({ "type": "tool", "name": "emit_output" })
    );
}

#[tokio::test]
async fn max_tokens_defaults_when_the_contract_sets_none() {
    let (base, fake) = serve(vec![ok()]).await;
    let i = contract("{}");
    let adapter =
        AnthropicAdapter::new(AnthropicConfig::new(&base, "claude-test").max_tokens(1234)).unwrap();
    adapter.execute(&render(&i)).await.unwrap();
    let seen = fake.seen.lock().unwrap();
    let (headers, body) = &seen[0];
    assert_eq!(body["max_tokens"], 1234);
    assert!(body.get("temperature").is_none());
    assert!(headers.get("x-api-key").is_none(), "no key, no header");
}

fn stream_events(parts: &[&str], stop: &str) -> Vec<(String, Value)> {
    let mut events = vec![
        (
            "message_start".to_owned(),
            json!({ "type": "message_start", "message": {
                "id": "msg_1", "type": "message", "role": "assistant", "content": [],
                "model": "claude-test", "stop_reason": null,
                "usage": { "input_tokens": 120, "output_tokens": 1 } } }),
        ),
        (
            "content_block_start".to_owned(),
            json!({ "type": "content_block_start", "index": 0,
                    "content_block": { "type": "tool_use", "id": "toolu_1", "name": "emit_output", "input": {} } }),
        ),
        ("ping".to_owned(), json!({ "type": "ping" })),
    ];
    for p in parts {
        events.push((
            "content_block_delta".to_owned(),
            json!({ "type": "content_block_delta", "index": 0,
                    "delta": { "type": "input_json_delta", "partial_json": p } }),
        ));
    }
    events.push((
        "content_block_stop".to_owned(),
        json!({ "type": "content_block_stop", "index": 0 }),
    ));
    events.push((
        "message_delta".to_owned(),
        json!({ "type": "message_delta", "delta": { "stop_reason": stop, "stop_sequence": null },
                "usage": { "output_tokens": 23 } }),
    ));
    events.push(("message_stop".to_owned(), json!({ "type": "message_stop" })));
    events
}

#[tokio::test]
async fn streamed_success_forwards_the_tool_input_and_completes_with_the_execute_receipt() {
    let (base, fake) = serve(vec![
        sse(stream_events(
            &["", "{\"rent\": 900", ", \"notice_days\": 30}"],
            "tool_use",
        )),
        ok(),
    ])
    .await;
    let i = default_contract();
    let request = render(&i);
    let adapter = adapter(&base);
    let mut events = Vec::new();
    let streamed = adapter
        .execute_streaming(&request, &mut |e| events.push(e))
        .await
        .unwrap();
    let plain = adapter.execute(&request).await.unwrap();
    assert_eq!(
        events,
        [
            StreamEvent::Delta {
                text: "{\"rent\": 900".into()
            },
            StreamEvent::Delta {
                text: ", \"notice_days\": 30}".into()
            },
            StreamEvent::Complete {
                receipt: streamed.receipt.clone()
            },
        ]
    );
    assert_eq!(streamed.receipt, plain.receipt);
    assert_eq!(streamed.output, plain.output);
    let usage = streamed.usage.unwrap();
    assert_eq!((usage.input_tokens, usage.output_tokens), (120, 23));
    assert_eq!(fake.seen.lock().unwrap()[0].1["stream"], true);
}

#[tokio::test]
async fn rate_limits_are_waited_out_within_the_budget_and_reported_beyond_it() {
    let body = error_body(
        "rate_limit_error",
        "Number of request tokens has exceeded your rate limit",
    );
    let (base, _) = serve(retry_after_script(429, &body, ok())).await;
    let i = default_contract();
    let limited = Code::RuntimeRateLimited;
    assert_retry_after(
        &adapter(&base),
        &render(&i),
        limited,
        "anthropic.rate_limited",
    )
    .await;
}

#[tokio::test]
async fn overloaded_and_server_errors_are_retried_then_succeed() {
    let (base, _) = serve(vec![
        Reply::Raw(529, vec![], error_body("overloaded_error", "Overloaded")),
        ok(),
    ])
    .await;
    let i = default_contract();
    let execution = adapter(&base).execute(&render(&i)).await.unwrap();
    assert_eq!(execution.attempts, 2);
    let (base, _) = serve(vec![
        Reply::Raw(500, vec![], error_body("api_error", "Internal")),
        Reply::Raw(500, vec![], error_body("api_error", "Internal")),
    ])
    .await;
    let error = adapter(&base).execute(&render(&i)).await.unwrap_err();
    assert_eq!(error.failure.code, Code::RuntimeUnavailable);
    assert_eq!(error.attempts, 2);
}

#[tokio::test]
async fn a_hang_past_the_policy_timeout_is_a_timeout() {
    let (base, _) = serve(vec![Reply::Hang]).await;
    let i = contract("{ timeout_ms: 200 }");
    let error = adapter(&base).execute(&render(&i)).await.unwrap_err();
    assert_eq!(error.failure.code, Code::RuntimeTimeout);
    assert_eq!(error.failure.id, "anthropic.timeout");
    assert!(error.failure.detail.contains("200 ms"));
}

#[tokio::test]
async fn a_body_that_is_not_the_wire_format_is_an_invalid_response() {
    let mut cut = stream_events(&["{\"rent\": 900"], "tool_use");
    cut.truncate(4);
    let (base, _) = serve(vec![
        Reply::Raw(200, vec![], "upstream connect error".into()),
        Reply::Raw(200, vec![], json!({ "type": "message" }).to_string()),
        sse(cut),
    ])
    .await;
    let i = default_contract();
    let request = render(&i);
    let adapter = adapter(&base);
    for _ in 0..2 {
        let error = adapter.execute(&request).await.unwrap_err();
        assert_eq!(error.failure.code, Code::RuntimeInvalidResponse);
        assert_eq!(error.failure.id, "anthropic.invalid_response");
        assert_eq!(error.attempts, 1);
    }
    let mut events = Vec::new();
    let error = adapter
        .execute_streaming(&request, &mut |e| events.push(e))
        .await
        .unwrap_err();
    assert_eq!(error.failure.code, Code::RuntimeInvalidResponse);
    assert!(error.failure.detail.contains("message_stop"));
    assert_eq!(error.attempts, 1, "it had forwarded a delta: not retried");
    assert!(matches!(events.last(), Some(StreamEvent::Failed { .. })));
}

#[tokio::test]
async fn refusal_truncation_and_a_missing_tool_call_are_failures_with_their_reason() {
    let (base, _) = serve(vec![
        Reply::Raw(
            200,
            vec![],
            message(json!([{ "type": "text", "text": "I can't help." }]), "refusal"),
        ),
        Reply::Raw(
            200,
            vec![],
            message(
                json!([{ "type": "tool_use", "id": "t", "name": "emit_output", "input": { "rent": 9 } }]),
                "max_tokens",
            ),
        ),
        Reply::Raw(
            200,
            vec![],
            message(json!([{ "type": "text", "text": "The rent is 900." }]), "end_turn"),
        ),
        sse(stream_events(&["{\"rent\": "], "max_tokens")),
    ])
    .await;
    let i = default_contract();
    let request = render(&i);
    let adapter = adapter(&base);
    let ids: Vec<(Code, String)> = {
        let mut ids = Vec::new();
        for _ in 0..3 {
            let e = adapter.execute(&request).await.unwrap_err();
            ids.push((e.failure.code, e.failure.id));
        }
        ids
    };
    assert_eq!(
        ids,
        [
            (Code::RuntimeInvalidResponse, "anthropic.refusal".to_owned()),
            (
                Code::RuntimeInvalidResponse,
                "anthropic.truncated".to_owned()
            ),
            (
                Code::RuntimeInvalidResponse,
                "anthropic.no_tool_call".to_owned()
            ),
        ]
    );
    let error = adapter
        .execute_streaming(&request, &mut |_| {})
        .await
        .unwrap_err();
    assert_eq!(error.failure.id, "anthropic.truncated");
}

#[tokio::test]
async fn tool_input_that_is_not_schema_valid_or_not_json_is_an_output_schema_failure() {
    let (base, _) = serve(vec![
        tool_reply(json!({ "rent": "nine hundred", "notice_days": 30 })),
        sse(stream_events(
            &["{\"rent\": 900, \"notice_days\""],
            "tool_use",
        )),
    ])
    .await;
    let i = default_contract();
    let request = render(&i);
    let adapter = adapter(&base);
    let error = adapter.execute(&request).await.unwrap_err();
    assert_eq!(error.failure.code, Code::OutputSchema);
    assert_eq!(error.diagnostics[0].json_pointer.as_deref(), Some("/rent"));
    let error = adapter
        .execute_streaming(&request, &mut |_| {})
        .await
        .unwrap_err();
    assert_eq!(error.failure.code, Code::OutputSchema);
    let text = json!("{\"rent\": 900, \"notice_days\"");
    assert_eq!(
        error.receipt,
        Receipt::for_output("", &fingerprint(&text), false)
    );
}

#[tokio::test]
async fn the_api_key_never_leaks() {
    let (base, _) = serve(vec![
        Reply::Raw(
            401,
            vec![],
            error_body("authentication_error", &format!("invalid x-api-key {KEY}")),
        ),
        sse(vec![(
            "error".to_owned(),
            json!({ "type": "error", "error": { "type": "overloaded_error",
                                                "message": format!("key {KEY} overloaded") } }),
        )]),
    ])
    .await;
    let i = contract("{ max_attempts: 1 }");
    let request = render(&i);
    let adapter = adapter(&base);
    assert!(!format!("{adapter:?}").contains(KEY));
    let first = adapter.execute(&request).await.unwrap_err();
    assert_eq!(first.failure.code, Code::RuntimePermanent);
    let second = adapter
        .execute_streaming(&request, &mut |_| {})
        .await
        .unwrap_err();
    assert_eq!(second.failure.code, Code::RuntimeUnavailable);
    for error in [first, second] {
        for text in [
            format!("{error}"),
            format!("{error:?}"),
            serde_json::to_string(&error.receipt).unwrap(),
            error.receipt.fingerprint(),
            serde_json::to_string(&error.failure).unwrap(),
            serde_json::to_string(&adapter.request_body(&request, false).unwrap()).unwrap(),
        ] {
            assert!(
                !text.contains("0123456789abcdef"),
                "the key leaked into {text}"
            );
        }
        assert!(error.failure.detail.contains("<redacted>"));
    }
}

#[tokio::test]
async fn a_refused_connection_is_unavailable_and_bad_configuration_is_refused() {
    let base = templiqx_fake_provider::refused_base();
    let i = contract("{}");
    let error = adapter(&base).execute(&render(&i)).await.unwrap_err();
    assert_eq!(error.failure.code, Code::RuntimeUnavailable);
    assert_eq!(error.failure.id, "anthropic.unavailable");
    let config = AnthropicConfig::new("http://x", "m");
    assert!(
        AnthropicAdapter::new(AnthropicConfig {
            tool_name: "a b".into(),
            ..config.clone()
        })
        .is_err()
    );
    assert!(AnthropicAdapter::new(config.clone().max_tokens(0)).is_err());
    assert!(AnthropicAdapter::new(config.header("x-api-key", "k")).is_err());
}

#[tokio::test]
async fn a_contract_without_user_messages_is_refused_before_sending() {
    let text = r#"api_version: templiqx/v1alpha1
id: only-system
version: 0.1.0
capabilities: [structured_output]
messages:
  - role: system
    content: [{ kind: text, value: "Say hi." }]
output_schema: { type: object }
"#;
    let i = templiqx_fake_provider::compile(text);
    let (base, fake) = serve(vec![]).await;
    let request = render(&i);
    let error = adapter(&base).execute(&request).await.unwrap_err();
    assert_eq!(error.failure.code, Code::RuntimePermanent);
    assert_eq!(error.failure.id, "anthropic.messages");
    assert!(fake.seen.lock().unwrap().is_empty());
}

#[tokio::test]
async fn keep_alives_line_endings_and_chunking_never_break_a_healthy_stream() {
    let deltas = ["{\"rent\": 900", ", \"notice_days\": 30}"];
    let events = stream_events(&deltas, "tool_use");
    let (cases, replies): (Vec<_>, Vec<_>) =
        stream_variants(&stream_body(&events)).into_iter().unzip();
    let (base, _) = serve(replies).await;
    let i = default_contract();
    let output = json!({ "rent": 900, "notice_days": 30 });
    assert_streams(&adapter(&base), &render(&i), &cases, &output, &deltas, 23).await;
}

#[tokio::test]
async fn retry_after_is_honoured_on_529_and_reported_beyond_the_budget() {
    let body = error_body("overloaded_error", "Overloaded");
    let (base, _) = serve(retry_after_script(529, &body, ok())).await;
    let i = default_contract();
    let unavailable = Code::RuntimeUnavailable;
    assert_retry_after(
        &adapter(&base),
        &render(&i),
        unavailable,
        "anthropic.unavailable",
    )
    .await;
}

#[tokio::test]
async fn a_stream_without_message_stop_stands_once_its_stop_reason_came() {
    let deltas = ["{\"rent\": 900", ", \"notice_days\": 30}"];
    let mut events = stream_events(&deltas, "tool_use");
    events.pop(); // message_stop
    let body = stream_body(&events).render("\r\n", KeepAlive::None);
    let mut cut_short = events.clone();
    cut_short.truncate(4); // before any message_delta
    let (base, _) = serve(vec![
        // Ended (the body closes) and broken off, without `message_stop`.
        Reply::sse(body.clone()),
        Reply::SseCut(body),
        Reply::SseCut(stream_body(&cut_short).render("\n", KeepAlive::None)),
    ])
    .await;
    let i = default_contract();
    let request = render(&i);
    let adapter = adapter(&base);
    for _ in 0..2 {
        let execution = adapter
            .execute_streaming(&request, &mut |_| {})
            .await
            .unwrap();
        assert_eq!(execution.output, json!({ "rent": 900, "notice_days": 30 }));
    }
    let error = adapter
        .execute_streaming(&request, &mut |_| {})
        .await
        .unwrap_err();
    assert_eq!(error.failure.code, Code::RuntimeUnavailable, "{error}");
}

#[tokio::test]
async fn a_whole_body_answering_a_streamed_request_is_read_as_one() {
    let (base, _) = serve(vec![
        Reply::ok(error_body("overloaded_error", "proxy says no")),
        ok(),
    ])
    .await;
    let i = default_contract();
    let request = render(&i);
    let execution = adapter(&base)
        .execute_streaming(&request, &mut |_| {})
        .await
        .unwrap();
    assert_eq!(execution.attempts, 2, "the error object was retried");
    assert_eq!(execution.output, json!({ "rent": 900, "notice_days": 30 }));
}

#[tokio::test]
async fn cache_reads_and_writes_count_as_input_and_cache_reads_as_cached_in_bodies_and_streams() {
    // Anthropic's `input_tokens` leaves the cache's tokens out: the
    // adapter adds the writes and reads back, and the reads are cached.
    let cached = |usage: Value| {
        let mut body: Value = serde_json::from_str(&message(
            json!([{ "type": "tool_use", "id": "toolu_1", "name": "emit_output",
                     "input": { "rent": 900, "notice_days": 30 } }]),
            "tool_use",
        ))
        .unwrap();
        body["usage"] = usage;
        Reply::Raw(200, vec![], body.to_string())
    };
    let mut started = stream_events(&["{\"rent\": 900, \"notice_days\": 30}"], "tool_use");
    started[0].1["message"]["usage"] = json!({ "input_tokens": 5, "output_tokens": 1,
        "cache_creation_input_tokens": 0, "cache_read_input_tokens": 2048 });
    // A `message_delta` that repeats the cumulative input counts, as newer
    // servers do, overrides `message_start`'s.
    let mut repeated = started.clone();
    let delta = repeated.len() - 2;
    repeated[delta].1["usage"] = json!({ "output_tokens": 23, "input_tokens": 7,
        "cache_creation_input_tokens": 100, "cache_read_input_tokens": 2048 });
    let (base, _fake) = serve(vec![
        cached(json!({ "input_tokens": 20, "output_tokens": 17,
                       "cache_creation_input_tokens": 1000, "cache_read_input_tokens": 3000 })),
        cached(json!({ "input_tokens": 20, "output_tokens": 17,
                       "cache_creation_input_tokens": null })),
        sse(started),
        sse(repeated),
    ])
    .await;
    let i = default_contract();
    let request = render(&i);
    let adapter = adapter(&base);
    let mut seen = Vec::new();
    for _ in 0..2 {
        let u = adapter.execute(&request).await.unwrap().usage.unwrap();
        seen.push((u.input_tokens, u.cached_input_tokens, u.output_tokens));
    }
    for _ in 0..2 {
        let u = adapter
            .execute_streaming(&request, &mut |_| {})
            .await
            .unwrap()
            .usage
            .unwrap();
        seen.push((u.input_tokens, u.cached_input_tokens, u.output_tokens));
    }
    assert_eq!(
        seen,
        [
            (4020, 3000, 17),
            (20, 0, 17),
            (2053, 2048, 23),
            (2155, 2048, 23)
        ]
    );
}
