//! `templiqx-openai` against a fake Chat Completions server (axum on
//! loopback) that answers in the wire format of OpenAI's API reference
//! ("Create chat completion", "The chat completion chunk object"): every
//! success and failure path of `docs/adapters.md`.

use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;
use templiqx::contracts::canonical::fingerprint;
use templiqx::{AsyncRuntimeAdapter, Code, Interaction, Receipt, StreamEvent};
use templiqx_fake_provider::{
    Fake, KeepAlive, OUTPUT, Reply, SseBody, assert_retry_after, assert_streams, render,
    retry_after_script, stream_variants,
};
use templiqx_openai::{
    ApiKey, DeveloperRole, MaxTokensField, OpenAiAdapter, OpenAiConfig, RetryPolicy,
    StructuredOutput,
};

const KEY: &str = "sk-test-0123456789abcdef";

/// Starts the fake Chat Completions server; returns its base URL (`…/v1`).
async fn serve(replies: Vec<Reply>) -> (String, Arc<Fake>) {
    let (base, fake) = templiqx_fake_provider::serve("/v1/chat/completions", replies).await;
    (format!("{base}/v1"), fake)
}

/// `text/event-stream` with these `data:` payloads, LF-ended, whole.
fn sse(events: Vec<String>) -> Reply {
    Reply::sse(stream_body(&events).render("\n", KeepAlive::None))
}

fn stream_body(events: &[String]) -> SseBody {
    events.iter().fold(SseBody::new(), |body, e| body.data(e))
}

fn contract(policy: &str, extra_schema: &str) -> Interaction {
    templiqx_fake_provider::lease_contract("Answer with JSON only.", policy, extra_schema)
}

fn default_contract() -> Interaction {
    contract(
        "{ temperature: 0, top_p: 0.5, max_output_tokens: 100, max_attempts: 2 }",
        "",
    )
}

fn adapter(base: &str) -> OpenAiAdapter {
    OpenAiAdapter::new(
        OpenAiConfig::new(base, "gpt-test")
            .api_key(ApiKey::new(KEY).unwrap())
            .header("OpenAI-Organization", "org-1")
            .retry(RetryPolicy {
                initial_backoff: Duration::from_millis(10),
                max_backoff: Duration::from_millis(40),
                max_retry_after: Duration::from_secs(2),
                jitter: true,
            }),
    )
    .unwrap()
}

fn completion(content: &str, finish: &str) -> String {
    json!({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-test",
        "choices": [{ "index": 0, "finish_reason": finish,
                      "message": { "role": "assistant", "content": content, "refusal": null } }],
        "usage": { "prompt_tokens": 42, "completion_tokens": 9, "total_tokens": 51 }
    })
    .to_string()
}

fn ok(content: &str) -> Reply {
    Reply::Raw(200, vec![], completion(content, "stop"))
}

#[tokio::test]
async fn success_sends_the_documented_request_and_returns_output_usage_and_receipt() {
    let (base, fake) = serve(vec![ok(OUTPUT)]).await;
    let i = default_contract();
    let request = render(&i);
    let execution = adapter(&base).execute(&request).await.unwrap();
    assert_eq!(execution.output, json!({ "rent": 900, "notice_days": 30 }));
    assert_eq!(execution.attempts, 1);
    let usage = execution.usage.unwrap();
    assert_eq!((usage.input_tokens, usage.output_tokens), (42, 9));
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
    assert_eq!(headers["authorization"], format!("Bearer {KEY}"));
    assert_eq!(headers["openai-organization"], "org-1");
    assert_eq!(body["model"], "gpt-test");
    assert_eq!(body["temperature"], 0.0);
    assert_eq!(body["top_p"], 0.5);
    assert_eq!(body["max_completion_tokens"], 100);
    assert!(body.get("stream").is_none());
    let roles: Vec<&str> = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["system", "developer", "user"]);
    assert_eq!(
        body["messages"][2]["content"],
        "Rent is EUR 900 per month; notice 30 days."
    );
    let format = &body["response_format"];
    assert_eq!(format["type"], "json_schema");
    assert_eq!(format["json_schema"]["name"], "lease-terms");
    assert_eq!(format["json_schema"]["strict"], true);
    assert_eq!(
        format["json_schema"]["schema"],
        serde_json::to_value(&i.output_schema).unwrap()
    );
}

#[tokio::test]
async fn a_schema_outside_the_strict_subset_is_sent_whole_and_not_strict() {
    let (base, fake) = serve(vec![ok(OUTPUT)]).await;
    // An open object: strict mode would forbid the members it allows.
    let mut i = contract("{}", ", maximum: 100000, description: Monthly rent");
    i.output_schema.additional_properties = true;
    let request = render(&i);
    adapter(&base).execute(&request).await.unwrap();
    let body = fake.body(0);
    let sent = &body["response_format"]["json_schema"];
    assert_eq!(sent["strict"], false);
    assert_eq!(
        sent["schema"],
        serde_json::to_value(&i.output_schema).unwrap()
    );
    assert_eq!(sent["schema"]["properties"]["rent"]["maximum"], 100000);
    assert!(body.get("temperature").is_none(), "no policy, no field");
}

#[tokio::test]
async fn an_optional_property_goes_out_strict_and_nullable_and_its_null_is_removed() {
    let answer = r#"{"rent":900,"notice_days":null}"#;
    let chunks = vec![
        chunk(json!({ "content": answer }), Some("stop")),
        "[DONE]".to_owned(),
    ];
    let (base, fake) = serve(vec![ok(answer), sse(chunks)]).await;
    let mut i = contract("{}", "");
    i.output_schema.required = templiqx::contracts::Seq::Owned(vec!["rent".into()]);
    let request = render(&i);
    let adapter = adapter(&base);
    let execution = adapter.execute(&request).await.unwrap();
    assert_eq!(execution.output, json!({ "rent": 900 }));
    let mut deltas = Vec::new();
    let streamed = adapter
        .execute_streaming(&request, &mut |e| deltas.push(e))
        .await
        .unwrap();
    assert_eq!(streamed.output, json!({ "rent": 900 }));
    assert_eq!(streamed.receipt, execution.receipt);
    let sent = &fake.body(0)["response_format"]["json_schema"];
    assert_eq!(sent["strict"], true);
    assert_eq!(sent["schema"]["required"], json!(["rent", "notice_days"]));
    assert_eq!(
        sent["schema"]["properties"]["notice_days"],
        json!({ "type": ["integer", "null"], "minimum": 0 })
    );
}

#[tokio::test]
async fn servers_without_json_schema_or_developer_get_their_forms() {
    let (base, fake) = serve(vec![ok(OUTPUT), ok(OUTPUT)]).await;
    let i = default_contract();
    let request = render(&i);
    let llama = OpenAiAdapter::new(
        OpenAiConfig::new(&base, "gemma")
            .structured_output(StructuredOutput::JsonObjectSchema)
            .developer_role(DeveloperRole::System)
            .max_tokens_field(MaxTokensField::MaxTokens),
    )
    .unwrap();
    llama.execute(&request).await.unwrap();
    let prompt = OpenAiAdapter::new(
        OpenAiConfig::new(&base, "gemma").structured_output(StructuredOutput::PromptOnly),
    )
    .unwrap();
    prompt.execute(&request).await.unwrap();
    let seen = fake.seen.lock().unwrap();
    let (headers, body) = &seen[0];
    assert!(headers.get("authorization").is_none(), "no key, no header");
    assert_eq!(body["response_format"]["type"], "json_object");
    assert_eq!(
        body["response_format"]["schema"],
        serde_json::to_value(&i.output_schema).unwrap()
    );
    assert_eq!(body["messages"][1]["role"], "system");
    assert_eq!(body["max_tokens"], 100);
    assert!(body.get("max_completion_tokens").is_none());
    let body = &seen[1].1;
    assert!(body.get("response_format").is_none());
    let last = body["messages"].as_array().unwrap().last().unwrap();
    assert_eq!(last["role"], "system");
    assert!(
        last["content"]
            .as_str()
            .unwrap()
            .contains(r#""required":["rent","notice_days"]"#)
    );
}

fn chunk(delta: Value, finish: Option<&str>) -> String {
    json!({ "id": "c", "object": "chat.completion.chunk", "created": 1, "model": "gpt-test",
            "choices": [{ "index": 0, "delta": delta, "finish_reason": finish }] })
    .to_string()
}

#[tokio::test]
async fn streamed_success_forwards_deltas_and_completes_with_the_execute_receipt() {
    let events = vec![
        chunk(json!({ "role": "assistant", "content": "" }), None),
        chunk(json!({ "content": "{\"rent\":900," }), None),
        chunk(json!({ "content": "\"notice_days\":30}" }), None),
        chunk(json!({}), Some("stop")),
        json!({ "id": "c", "object": "chat.completion.chunk", "choices": [],
                "usage": { "prompt_tokens": 42, "completion_tokens": 11, "total_tokens": 53 } })
        .to_string(),
        "[DONE]".to_owned(),
    ];
    let (base, fake) = serve(vec![sse(events), ok(OUTPUT)]).await;
    let i = default_contract();
    let request = render(&i);
    let adapter = adapter(&base);
    let mut seen_events = Vec::new();
    let streamed = adapter
        .execute_streaming(&request, &mut |e| seen_events.push(e))
        .await
        .unwrap();
    let plain = adapter.execute(&request).await.unwrap();
    assert_eq!(
        seen_events[..2],
        [
            StreamEvent::Delta {
                text: "{\"rent\":900,".into()
            },
            StreamEvent::Delta {
                text: "\"notice_days\":30}".into()
            },
        ]
    );
    assert_eq!(
        seen_events[2],
        StreamEvent::Complete {
            receipt: streamed.receipt.clone()
        }
    );
    assert_eq!(seen_events.len(), 3);
    assert_eq!(streamed.receipt, plain.receipt);
    assert_eq!(streamed.usage.unwrap().output_tokens, 11);
    let body = &fake.seen.lock().unwrap()[0].1;
    assert_eq!(body["stream"], true);
    assert_eq!(body["stream_options"], json!({ "include_usage": true }));
}

#[tokio::test]
async fn rate_limits_are_waited_out_within_the_budget_and_reported_beyond_it() {
    let body = json!({ "error": { "message": "Rate limit reached", "type": "requests" } });
    let (base, _) = serve(retry_after_script(429, &body.to_string(), ok(OUTPUT))).await;
    let i = default_contract();
    let error = assert_retry_after(
        &adapter(&base),
        &render(&i),
        Code::RuntimeRateLimited,
        "openai.rate_limited",
    )
    .await;
    assert!(error.failure.detail.contains("Rate limit reached"));
}

#[tokio::test]
async fn a_server_error_is_retried_with_backoff_then_succeeds() {
    let (base, _) = serve(vec![
        Reply::Raw(500, vec![], "{\"error\":{\"message\":\"boom\"}}".into()),
        ok(OUTPUT),
    ])
    .await;
    let i = default_contract();
    let execution = adapter(&base).execute(&render(&i)).await.unwrap();
    assert_eq!(execution.attempts, 2);
    let (base, _) = serve(vec![
        Reply::Raw(503, vec![], String::new()),
        Reply::Raw(502, vec![], String::new()),
    ])
    .await;
    let error = adapter(&base).execute(&render(&i)).await.unwrap_err();
    assert_eq!(error.failure.code, Code::RuntimeUnavailable);
    assert_eq!(error.attempts, 2, "max_attempts: 2");
}

#[tokio::test]
async fn a_hang_past_the_policy_timeout_is_a_timeout() {
    let (base, _) = serve(vec![Reply::Hang]).await;
    let i = contract("{ timeout_ms: 200 }", "");
    let error = adapter(&base).execute(&render(&i)).await.unwrap_err();
    assert_eq!(error.failure.code, Code::RuntimeTimeout);
    assert_eq!(error.failure.id, "openai.timeout");
    assert!(error.failure.detail.contains("200 ms"));
}

#[tokio::test]
async fn a_body_that_is_not_the_wire_format_is_an_invalid_response() {
    let (base, _) = serve(vec![
        Reply::Raw(200, vec![], "<html>proxy error</html>".into()),
        Reply::Raw(
            200,
            vec![],
            json!({ "object": "list", "data": [] }).to_string(),
        ),
        sse(vec!["{not json".into()]),
    ])
    .await;
    let i = default_contract();
    let request = render(&i);
    let adapter = adapter(&base);
    for _ in 0..2 {
        let error = adapter.execute(&request).await.unwrap_err();
        assert_eq!(error.failure.code, Code::RuntimeInvalidResponse);
        assert_eq!(error.failure.id, "openai.invalid_response");
        assert_eq!(error.attempts, 1, "not retried");
    }
    let mut events = Vec::new();
    let error = adapter
        .execute_streaming(&request, &mut |e| events.push(e))
        .await
        .unwrap_err();
    assert_eq!(error.failure.code, Code::RuntimeInvalidResponse);
    assert_eq!(
        events,
        [StreamEvent::Failed {
            failure: error.failure.clone()
        }]
    );
}

#[tokio::test]
async fn refusal_content_filter_and_truncation_are_failures_with_their_reason() {
    let refusal = json!({
        "choices": [{ "index": 0, "finish_reason": "stop",
            "message": { "role": "assistant", "content": null, "refusal": "I can't help with that." } }]
    })
    .to_string();
    let (base, _) = serve(vec![
        Reply::Raw(200, vec![], refusal),
        Reply::Raw(200, vec![], completion("", "content_filter")),
        Reply::Raw(200, vec![], completion("{\"rent\":9", "length")),
        sse(vec![
            chunk(json!({ "content": "{\"rent\":" }), None),
            chunk(json!({}), Some("length")),
            "[DONE]".into(),
        ]),
    ])
    .await;
    let i = default_contract();
    let request = render(&i);
    let adapter = adapter(&base);
    let error = adapter.execute(&request).await.unwrap_err();
    assert_eq!(
        (error.failure.code, error.failure.id.as_str()),
        (Code::RuntimeInvalidResponse, "openai.refusal")
    );
    assert!(error.failure.detail.contains("I can't help with that."));
    let error = adapter.execute(&request).await.unwrap_err();
    assert_eq!(
        (error.failure.code, error.failure.id.as_str()),
        (Code::RuntimePermanent, "openai.content_filter")
    );
    let error = adapter.execute(&request).await.unwrap_err();
    assert_eq!(
        (error.failure.code, error.failure.id.as_str()),
        (Code::RuntimeInvalidResponse, "openai.truncated")
    );
    let mut events = Vec::new();
    let error = adapter
        .execute_streaming(&request, &mut |e| events.push(e))
        .await
        .unwrap_err();
    assert_eq!(error.failure.id, "openai.truncated");
    assert_eq!(error.attempts, 1);
    assert!(matches!(events.last(), Some(StreamEvent::Failed { .. })));
}

#[tokio::test]
async fn output_that_is_not_json_or_not_schema_valid_is_an_output_schema_failure() {
    let (base, _) = serve(vec![
        ok("Sure! Here are the terms: rent 900"),
        ok(r#"{"rent":-1,"notice_days":30}"#),
    ])
    .await;
    let i = default_contract();
    let request = render(&i);
    let adapter = adapter(&base);
    let error = adapter.execute(&request).await.unwrap_err();
    assert_eq!(error.failure.code, Code::OutputSchema);
    let text = json!("Sure! Here are the terms: rent 900");
    assert_eq!(
        error.receipt,
        Receipt::for_output("", &fingerprint(&text), false)
    );
    let error = adapter.execute(&request).await.unwrap_err();
    assert_eq!(error.failure.code, Code::OutputSchema);
    assert_eq!(error.diagnostics[0].json_pointer.as_deref(), Some("/rent"));
}

#[tokio::test]
async fn the_api_key_never_leaks() {
    let echo = json!({ "error": { "message": format!("Incorrect API key provided: {KEY}."),
                                  "type": "invalid_request_error", "code": "invalid_api_key" } })
    .to_string();
    let (base, _) = serve(vec![Reply::Raw(401, vec![], echo)]).await;
    let i = default_contract();
    let request = render(&i);
    let adapter = adapter(&base);
    assert!(!format!("{adapter:?}").contains(KEY));
    assert!(format!("{adapter:?}").contains("ApiKey(<redacted>)"));
    let error = adapter.execute(&request).await.unwrap_err();
    assert_eq!(error.failure.code, Code::RuntimePermanent);
    assert_eq!(error.attempts, 1);
    for text in [
        format!("{error}"),
        format!("{error:?}"),
        serde_json::to_string(&error.receipt).unwrap(),
        error.receipt.fingerprint(),
        serde_json::to_string(&error.failure).unwrap(),
        format!("{:?}", error.diagnostics),
        serde_json::to_string(&adapter.request_body(&request, true).unwrap()).unwrap(),
        request.request_fingerprint(),
    ] {
        assert!(!text.contains(KEY), "the key leaked into {text}");
        assert!(!text.contains("0123456789abcdef"), "part of the key leaked");
    }
    assert!(error.failure.detail.contains("<redacted>"));
}

#[tokio::test]
async fn the_api_key_never_leaks_from_a_body_that_is_not_the_wire_format_or_cut_short() {
    // A 2xx body that is not JSON is quoted in the detail, and a long
    // error message is cut: the key is redacted in both, before any cut.
    let padded =
        json!({ "error": { "message": format!("{}Bearer {KEY}", "P".repeat(283)) } }).to_string();
    let (base, _) = serve(vec![
        Reply::Raw(200, vec![], format!("not json Bearer {KEY}")),
        Reply::Raw(401, vec![], padded),
        Reply::Raw(200, vec![], format!("{}{KEY}", "x".repeat(190))),
    ])
    .await;
    let i = default_contract();
    let request = render(&i);
    let adapter = adapter(&base);
    let codes = [
        Code::RuntimeInvalidResponse,
        Code::RuntimePermanent,
        Code::RuntimeInvalidResponse,
    ];
    for error in failures(&adapter, &request, &codes).await {
        assert!(error.failure.detail.contains("<redacted>"), "{error}");
    }
}

/// Executes once per code in `codes`, expecting that failure each time,
/// and asserts that no part of the key is in any text of the error.
async fn failures(
    adapter: &OpenAiAdapter,
    request: &templiqx::RenderedInteraction<'_>,
    codes: &[Code],
) -> Vec<templiqx::ExecutionError> {
    templiqx_fake_provider::failures(adapter, request, codes, "test-01").await
}

#[tokio::test]
async fn the_api_key_never_leaks_from_echoed_outputs_altered_echoes_or_redirects() {
    let upper = KEY.to_ascii_uppercase();
    let (base, fake) = serve(vec![
        // The model's output echoes the key: the port's diagnostics quote it.
        ok(&format!("plain {KEY}")),
        ok(&format!(r#"{{"rent": 1, "notice_days": 2, "{KEY}": 3}}"#)),
        // Echoes altered: upper case, cut, one character dropped.
        Reply::Raw(
            401,
            vec![],
            json!({ "error": { "message": format!("{upper} / {} / {}", &KEY[..12], &KEY[1..]) } })
                .to_string(),
        ),
        // A redirect is not followed (it would carry the key's header).
        Reply::Raw(
            307,
            vec![("location", "/elsewhere/v1/chat/completions".into())],
            String::new(),
        ),
    ])
    .await;
    let i = default_contract();
    let request = render(&i);
    // White space around the key is trimmed (the server echoes it trimmed).
    let adapter = OpenAiAdapter::new(
        OpenAiConfig::new(&base, "gpt-test").api_key(ApiKey::new(format!(" {KEY}\t")).unwrap()),
    )
    .unwrap();
    let codes = [
        Code::OutputSchema,
        Code::OutputSchema,
        Code::RuntimePermanent,
        Code::RuntimeInvalidResponse,
    ];
    failures(&adapter, &request, &codes).await;
    let seen = fake.seen.lock().unwrap();
    assert_eq!(seen.len(), 4, "the redirect was followed");
    assert_eq!(seen[0].0["authorization"], format!("Bearer {KEY}"));
}

#[tokio::test]
async fn a_refused_connection_is_unavailable_and_bad_configuration_is_refused() {
    let base = format!("{}/v1", templiqx_fake_provider::refused_base());
    let i = contract("{ max_attempts: 1 }", "");
    let error = adapter(&base).execute(&render(&i)).await.unwrap_err();
    assert_eq!(error.failure.code, Code::RuntimeUnavailable);
    assert_eq!(error.failure.id, "openai.unavailable");

    assert!(OpenAiAdapter::new(OpenAiConfig::new("file:///x", "m")).is_err());
    assert!(OpenAiAdapter::new(OpenAiConfig::new("http://x/v1", " ")).is_err());
    let err =
        OpenAiAdapter::new(OpenAiConfig::new("http://x/v1", "m").header("Authorization", KEY))
            .unwrap_err();
    assert!(!err.to_string().contains(KEY));
}

#[tokio::test]
async fn a_non_object_output_schema_is_refused_before_sending() {
    let text = r#"api_version: templiqx/v1alpha1
id: word
version: 0.1.0
capabilities: [structured_output]
messages:
  - role: user
    content: [{ kind: text, value: "Say a word." }]
output_schema: { type: string }
"#;
    let i = templiqx_fake_provider::compile(text);
    let (base, fake) = serve(vec![]).await;
    let request = render(&i);
    let error = adapter(&base).execute(&request).await.unwrap_err();
    assert_eq!(error.failure.code, Code::RuntimePermanent);
    assert_eq!(error.failure.id, "openai.output_schema");
    assert!(fake.seen.lock().unwrap().is_empty());
}

/// The chunks of a healthy stream: role, two content deltas, the finish,
/// usage, `[DONE]`; every chunk carries `"error": null`, as some servers
/// send it, and every chunk before the last `"usage": null`, as OpenAI
/// does with `include_usage`.
fn healthy_stream() -> Vec<String> {
    let with_null_error = |mut chunk: Value| {
        chunk["error"] = Value::Null;
        if chunk.get("usage").is_none() {
            chunk["usage"] = Value::Null;
        }
        chunk.to_string()
    };
    vec![
        with_null_error(
            json!({ "id": "c", "object": "chat.completion.chunk", "model": "gpt-test",
            "choices": [{ "index": 0, "delta": { "role": "assistant", "content": "" }, "finish_reason": null }] }),
        ),
        with_null_error(
            json!({ "id": "c", "object": "chat.completion.chunk", "model": "gpt-test",
            "choices": [{ "index": 0, "delta": { "content": "{\"rent\":900," }, "finish_reason": null }] }),
        ),
        with_null_error(
            json!({ "id": "c", "object": "chat.completion.chunk", "model": "gpt-test",
            "choices": [{ "index": 0, "delta": { "content": "\"notice_days\":30}" }, "finish_reason": null }] }),
        ),
        with_null_error(
            json!({ "id": "c", "object": "chat.completion.chunk", "model": "gpt-test",
            "choices": [{ "index": 0, "delta": {}, "finish_reason": "stop" }] }),
        ),
        with_null_error(
            json!({ "id": "c", "object": "chat.completion.chunk", "choices": [],
            "usage": { "prompt_tokens": 42, "completion_tokens": 11, "total_tokens": 53 } }),
        ),
        "[DONE]".to_owned(),
    ]
}

#[tokio::test]
async fn keep_alives_line_endings_and_chunking_never_break_a_healthy_stream() {
    let (cases, replies): (Vec<_>, Vec<_>) = stream_variants(&stream_body(&healthy_stream()))
        .into_iter()
        .unzip();
    let (base, _) = serve(replies).await;
    let i = default_contract();
    let output = json!({ "rent": 900, "notice_days": 30 });
    let deltas = ["{\"rent\":900,", "\"notice_days\":30}"];
    assert_streams(&adapter(&base), &render(&i), &cases, &output, &deltas, 11).await;
}

#[tokio::test]
async fn only_an_error_object_is_an_error() {
    let mut failing = healthy_stream();
    failing.insert(
        2,
        json!({ "id": "c", "object": "chat.completion.chunk", "choices": [],
                "error": { "message": "the model crashed", "type": "server_error" } })
        .to_string(),
    );
    let mut with_null = serde_json::from_str::<Value>(&completion(OUTPUT, "stop")).unwrap();
    with_null["error"] = Value::Null;
    let (base, fake) = serve(vec![
        // `"error": null` in every chunk, and in a whole body: no error.
        sse(healthy_stream()),
        Reply::ok(with_null.to_string()),
        // An error object mid-stream, after a delta: not retried.
        sse(failing),
        // An error object in a 200 body (a proxy's): retried, then ok.
        Reply::ok(json!({ "error": { "message": "upstream overloaded" } }).to_string()),
        ok(OUTPUT),
    ])
    .await;
    let i = default_contract();
    let request = render(&i);
    let adapter = adapter(&base);
    let streamed = adapter.execute_streaming(&request, &mut |_| {}).await;
    assert_eq!(streamed.unwrap().attempts, 1);
    assert_eq!(adapter.execute(&request).await.unwrap().attempts, 1);
    let error = adapter
        .execute_streaming(&request, &mut |_| {})
        .await
        .unwrap_err();
    assert_eq!(
        (error.failure.code, error.failure.id.as_str()),
        (Code::RuntimeUnavailable, "openai.unavailable")
    );
    assert!(
        error.failure.detail.contains("the model crashed"),
        "{error}"
    );
    assert_eq!(error.attempts, 1, "a delta was forwarded: no retry");
    let execution = adapter.execute(&request).await.unwrap();
    assert_eq!(execution.attempts, 2);
    assert_eq!(fake.requests(), 5);
}

#[tokio::test]
async fn retry_after_is_honoured_on_503_and_reported_beyond_the_budget() {
    let body = json!({ "error": { "message": "overloaded" } }).to_string();
    let (base, _) = serve(retry_after_script(503, &body, ok(OUTPUT))).await;
    let i = default_contract();
    let unavailable = Code::RuntimeUnavailable;
    assert_retry_after(
        &adapter(&base),
        &render(&i),
        unavailable,
        "openai.unavailable",
    )
    .await;
}

#[tokio::test]
async fn a_whole_body_answering_a_streamed_request_is_read_as_one() {
    let proxy_error = json!({ "error": { "message": "proxy says no", "type": "server_error" } });
    let (base, _) = serve(vec![
        // A proxy's error object with status 200: an error, retried.
        Reply::ok(proxy_error.to_string()),
        // A server that ignored `"stream": true`: its completion, one delta.
        ok(OUTPUT),
    ])
    .await;
    let i = default_contract();
    let request = render(&i);
    let mut deltas = Vec::new();
    let execution = adapter(&base)
        .execute_streaming(&request, &mut |e| deltas.push(e))
        .await
        .unwrap();
    assert_eq!(execution.attempts, 2, "the error object was retried");
    assert_eq!(execution.output, json!({ "rent": 900, "notice_days": 30 }));
    assert_eq!(
        deltas[0],
        StreamEvent::Delta {
            text: r#"{"notice_days":30,"rent":900}"#.into()
        }
    );
}

#[tokio::test]
async fn a_stream_cut_after_its_finish_reason_stands_and_one_cut_before_does_not() {
    let whole = healthy_stream();
    let without_done = &whole[..whole.len() - 1];
    let before_finish = &whole[..3];
    let (base, _) = serve(vec![
        Reply::SseCut(stream_body(without_done).render("\n", KeepAlive::None)),
        Reply::SseCut(stream_body(before_finish).render("\n", KeepAlive::None)),
    ])
    .await;
    let i = default_contract();
    let request = render(&i);
    let adapter = adapter(&base);
    let execution = adapter
        .execute_streaming(&request, &mut |_| {})
        .await
        .unwrap();
    assert_eq!(execution.output, json!({ "rent": 900, "notice_days": 30 }));
    let error = adapter
        .execute_streaming(&request, &mut |_| {})
        .await
        .unwrap_err();
    assert_eq!(
        (error.failure.code, error.failure.id.as_str()),
        (Code::RuntimeUnavailable, "openai.unavailable")
    );
    assert!(error.failure.detail.contains("broke off"), "{error}");
}

/// A completion whose `usage` is `usage`.
fn completion_with_usage(usage: Value) -> Reply {
    let mut body: Value = serde_json::from_str(&completion(OUTPUT, "stop")).unwrap();
    body["usage"] = usage;
    Reply::Raw(200, vec![], body.to_string())
}

#[tokio::test]
async fn cached_prompt_tokens_are_read_from_prompt_tokens_details_in_bodies_and_streams() {
    // OpenAI's `prompt_tokens` includes the cached tokens; the details may
    // be absent or null (servers without a prompt cache).
    let cached = json!({ "prompt_tokens": 2006, "completion_tokens": 300, "total_tokens": 2306,
                         "prompt_tokens_details": { "cached_tokens": 1920, "audio_tokens": 0 } });
    let null_details = json!({ "prompt_tokens": 42, "completion_tokens": 9,
                               "prompt_tokens_details": null });
    let too_many = json!({ "prompt_tokens": 10, "completion_tokens": 9,
                           "prompt_tokens_details": { "cached_tokens": 64 } });
    let events = vec![
        chunk(json!({ "role": "assistant", "content": OUTPUT }), None),
        chunk(json!({}), Some("stop")),
        json!({ "id": "c", "object": "chat.completion.chunk", "choices": [],
                "usage": { "prompt_tokens": 1200, "completion_tokens": 11,
                           "prompt_tokens_details": { "cached_tokens": 1152 } } })
        .to_string(),
        "[DONE]".to_owned(),
    ];
    let (base, _fake) = serve(vec![
        completion_with_usage(cached),
        completion_with_usage(null_details),
        completion_with_usage(too_many),
        sse(events),
    ])
    .await;
    let i = default_contract();
    let request = render(&i);
    let adapter = adapter(&base);
    let mut seen = Vec::new();
    for _ in 0..3 {
        let u = adapter.execute(&request).await.unwrap().usage.unwrap();
        seen.push((u.input_tokens, u.cached_input_tokens, u.output_tokens));
    }
    let u = adapter
        .execute_streaming(&request, &mut |_| {})
        .await
        .unwrap()
        .usage
        .unwrap();
    seen.push((u.input_tokens, u.cached_input_tokens, u.output_tokens));
    assert_eq!(
        seen,
        [(2006, 1920, 300), (42, 0, 9), (10, 10, 9), (1200, 1152, 11)]
    );
}
