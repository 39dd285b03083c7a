//! Servers of the Chat Completions wire format that refuse what OpenAI
//! accepts, and error bodies that carry more than a message
//! (`docs/adapters.md`, "Failures"): the provider's message is kept whole
//! in the failure and its first meaningful line in the detail, and the
//! help names the setting that avoids the refusal, recognised from the
//! status and the message.

use serde_json::json;
use std::time::Duration;
use templiqx::{AsyncRuntimeAdapter, Code, ExecutionError, Interaction};
use templiqx_fake_provider::{Reply, render};
use templiqx_openai::{ApiKey, OpenAiAdapter, OpenAiConfig, RetryPolicy, StructuredOutput};

const KEY: &str = "sk-mismatch-0123456789abcdef";

fn config(base: &str) -> OpenAiConfig {
    OpenAiConfig::new(base, "gpt-test")
        .api_key(ApiKey::new(KEY).unwrap())
        .retry(RetryPolicy {
            initial_backoff: Duration::from_millis(5),
            max_backoff: Duration::from_millis(10),
            max_retry_after: Duration::from_secs(1),
            jitter: false,
        })
}

/// The lease contract with a developer message, a token cap (sent as
/// `max_completion_tokens`) and two attempts allowed.
fn contract() -> Interaction {
    templiqx_fake_provider::lease_contract(
        "Answer with JSON only.",
        "{ max_output_tokens: 100, max_attempts: 2 }",
        "",
    )
}

/// One execution against a server answering `replies` at `/v1`.
async fn fail_with(
    config_for: impl Fn(&str) -> OpenAiConfig,
    replies: Vec<Reply>,
) -> ExecutionError {
    let (base, _) = templiqx_fake_provider::serve("/v1/chat/completions", replies).await;
    let adapter = OpenAiAdapter::new(config_for(&format!("{base}/v1"))).unwrap();
    let i = contract();
    adapter.execute(&render(&i)).await.unwrap_err()
}

fn error_body(status: u16, body: serde_json::Value) -> Reply {
    Reply::Raw(status, vec![], body.to_string())
}

fn help(error: &ExecutionError) -> &str {
    error.diagnostics[0].help.as_deref().unwrap_or("")
}

#[tokio::test]
async fn a_server_error_keeps_its_message_and_a_traceback_is_cut_to_its_exception() {
    let traceback = format!(
        "Traceback (most recent call last):\n  File \"/srv/app.py\", line 12, in handle\n    \
         run(key='{KEY}')\n  File \"/srv/model.py\", line 40, in run\n    raise ValueError(msg)\n\
         ValueError: the model is not loaded (key {KEY})"
    );
    let reply = error_body(
        500,
        json!({ "error": { "message": traceback, "type": "server_error" } }),
    );
    let error = fail_with(config, vec![reply.clone(), reply]).await;
    assert_eq!(error.failure.code, Code::RuntimeUnavailable, "{error}");
    assert_eq!(error.attempts, 2, "a plain server error is retried");
    let detail = &error.failure.detail;
    assert!(
        detail.starts_with(
            "openai answered HTTP 500 Internal Server Error: ValueError: the model is not loaded"
        ),
        "{detail}"
    );
    assert!(
        !detail.contains("Traceback") && !detail.contains("app.py"),
        "{detail}"
    );
    let whole = error.failure.provider_message.as_deref().unwrap();
    assert!(
        whole.starts_with("Traceback (most recent call last):"),
        "{whole}"
    );
    assert!(whole.contains("/srv/model.py") && whole.contains("the model is not loaded"));
    for text in [detail.as_str(), whole, &error.diagnostics[0].message] {
        assert!(!text.contains("0123456789abcdef"), "the key leaked: {text}");
        assert!(text.contains("<redacted>") || text == detail, "{text}");
    }
    // No advice for an error that is not about what was sent: the code's.
    assert_eq!(error.failure.help, None);
    assert_eq!(help(&error), "retry later, or use another adapter");
}

#[tokio::test]
async fn an_error_object_in_a_stream_is_quoted_by_its_first_line_and_kept_whole() {
    let message = "Traceback (most recent call last):\n  File \"/srv/gen.py\", line 3, in step\n\
                   MemoryError: the KV cache is full";
    let stream = format!(
        "data: {}\n\n",
        json!({ "error": { "message": message, "type": "server_error" } })
    );
    let (base, _) = templiqx_fake_provider::serve(
        "/v1/chat/completions",
        vec![Reply::sse(stream.clone()), Reply::sse(stream)],
    )
    .await;
    let adapter = OpenAiAdapter::new(config(&format!("{base}/v1"))).unwrap();
    let i = contract();
    let error = adapter
        .execute_streaming(&render(&i), &mut |_| {})
        .await
        .unwrap_err();
    assert_eq!(
        error.failure.detail,
        "openai reported an error: MemoryError: the KV cache is full"
    );
    assert_eq!(error.failure.provider_message.as_deref(), Some(message));
}

#[tokio::test]
async fn a_server_refusing_json_schema_like_llama_cpp_gets_the_structured_output_help() {
    // llama.cpp's own server (before it took `json_schema`), and
    // llama-cpp-python's, whose request validation ends in a 500 with the
    // validation error as the message.
    let llama_server = json!({ "error": { "code": 500, "type": "server_error",
        "message": "response_format type must be one of \"text\" or \"json_object\", but got: json_schema" } });
    let llama_cpp_python = json!({ "error": { "type": "internal_server_error", "param": null, "code": null,
        "message": "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), \
                    'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema'}" } });
    for body in [llama_server, llama_cpp_python] {
        let error = fail_with(config, vec![error_body(500, body.clone())]).await;
        assert_eq!(
            (error.failure.code, error.failure.id.as_str()),
            (Code::RuntimePermanent, "openai.rejected"),
            "{error}"
        );
        assert_eq!(
            error.attempts, 1,
            "a refusal of what was sent is not retried"
        );
        assert!(
            error.failure.detail.contains("HTTP 500"),
            "{}",
            error.failure.detail
        );
        assert!(
            error.failure.detail.contains("json_schema"),
            "{}",
            error.failure.detail
        );
        let help = help(&error);
        assert!(
            help.contains("--structured-output json-object-schema"),
            "{help}"
        );
        assert!(help.contains("prompt-only"), "{help}");
        assert_eq!(error.failure.help.as_deref(), Some(help));
        assert!(
            !help.contains("developer") && !help.contains("max_tokens"),
            "{help}"
        );
    }
    // Sent as `json_object` already: the same words are no mismatch of ours.
    let error = fail_with(
        |base| config(base).structured_output(StructuredOutput::JsonObjectSchema),
        vec![
            error_body(
                500,
                json!({ "error": { "message": "json_schema crashed" } }),
            ),
            error_body(
                500,
                json!({ "error": { "message": "json_schema crashed" } }),
            ),
        ],
    )
    .await;
    assert_eq!(error.failure.code, Code::RuntimeUnavailable);
    assert_eq!(error.failure.help, None);
}

#[tokio::test]
async fn a_server_without_the_developer_role_gets_the_developer_as_system_help() {
    let template = json!({ "error": { "message": "chat template rejected the request: Unexpected message role.",
        "type": "invalid_request_error", "param": null, "code": null } });
    // FastAPI's own validation error: a `detail` list.
    let fastapi = json!({ "detail": [{ "type": "enum", "loc": ["body", "messages", 1, "role"],
        "msg": "Input should be 'system', 'user', 'assistant' or 'tool'", "input": "developer" }] });
    for (status, body) in [(400, template), (422, fastapi)] {
        let error = fail_with(config, vec![error_body(status, body)]).await;
        assert_eq!(error.failure.code, Code::RuntimePermanent, "{error}");
        let help = help(&error);
        assert!(help.contains("--developer-as-system"), "{status}: {help}");
        assert!(!help.contains("--structured-output"), "{help}");
    }
    let error = fail_with(
        config,
        vec![error_body(422, json!({ "detail": [{ "loc": ["body", "messages", 1, "role"],
            "msg": "Input should be 'system', 'user', 'assistant' or 'tool'", "input": "developer" }] }))],
    )
    .await;
    assert!(
        error.failure.detail.ends_with(
            "body.messages.1.role: Input should be 'system', 'user', 'assistant' or 'tool' (got `developer`)"
        ),
        "{}",
        error.failure.detail
    );
    // Sent as `system`, a role complaint is not about `developer`.
    let error = fail_with(
        |base| config(base).developer_role(templiqx_openai::DeveloperRole::System),
        vec![error_body(
            400,
            json!({ "error": { "message": "Unexpected message role." } }),
        )],
    )
    .await;
    assert_eq!(error.failure.help, None);
}

#[tokio::test]
async fn a_server_refusing_max_completion_tokens_gets_the_legacy_field_help() {
    // vLLM's error object: `message` at the top level.
    let vllm = json!({ "object": "error", "type": "BadRequestError", "param": null, "code": 400,
        "message": "[{'type': 'extra_forbidden', 'loc': ('body', 'max_completion_tokens'), 'msg': 'Extra inputs are not permitted'}]" });
    let error = fail_with(config, vec![error_body(400, vllm)]).await;
    assert_eq!(error.failure.code, Code::RuntimePermanent);
    assert!(
        error
            .failure
            .detail
            .contains("Extra inputs are not permitted"),
        "{}",
        error.failure.detail
    );
    let help = help(&error);
    assert!(help.contains("--max-tokens-field-legacy"), "{help}");
    assert!(help.contains("`max_tokens`"), "{help}");
}

#[tokio::test]
async fn a_404_names_the_url_requested_and_suggests_v1() {
    let (base, fake) = templiqx_fake_provider::serve("/v1/chat/completions", vec![]).await;
    // The base URL without `/v1`: the fake's router has nothing there.
    let adapter = OpenAiAdapter::new(config(&base)).unwrap();
    let i = contract();
    let error = adapter.execute(&render(&i)).await.unwrap_err();
    assert_eq!(
        (error.failure.code, error.failure.id.as_str()),
        (Code::RuntimePermanent, "openai.rejected")
    );
    assert_eq!(
        error.failure.detail,
        format!("openai answered HTTP 404 Not Found for POST {base}/chat/completions")
    );
    let help = help(&error);
    assert!(help.contains(&format!("--base-url {base}/v1")), "{help}");
    assert_eq!(fake.requests(), 0);
    // At `/v1`, a 404 that names the model is about the model.
    let error = fail_with(
        config,
        vec![error_body(
            404,
            json!({ "error": { "message": "The model `gpt-test` does not exist",
            "type": "invalid_request_error", "code": "model_not_found" } }),
        )],
    )
    .await;
    assert!(help_of(&error).contains("--model"), "{}", help_of(&error));
    assert!(
        error
            .failure
            .detail
            .contains("/v1/chat/completions: The model"),
        "{}",
        error.failure.detail
    );
}

fn help_of(error: &ExecutionError) -> String {
    help(error).to_owned()
}
