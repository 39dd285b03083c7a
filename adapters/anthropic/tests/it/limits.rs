//! An output cut off at the token limit (`stop_reason: "max_tokens"`):
//! the failure names the limit that was sent, where it came from, and what
//! raises it (`docs/adapters.md`, "Failures").

use serde_json::json;
use templiqx::{AsyncRuntimeAdapter, Code};
use templiqx_anthropic::{AnthropicAdapter, AnthropicConfig};
use templiqx_fake_provider::{Reply, render};

fn cut_off() -> Reply {
    Reply::ok(
        json!({ "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test",
            "content": [{ "type": "tool_use", "id": "t", "name": "emit_output", "input": {} }],
            "stop_reason": "max_tokens", "usage": { "input_tokens": 10, "output_tokens": 300 } })
        .to_string(),
    )
}

#[tokio::test]
async fn a_cut_off_output_names_the_limit_its_source_and_what_raises_it() {
    let (base, _) = templiqx_fake_provider::serve("/v1/messages", vec![cut_off(), cut_off()]).await;
    let adapter =
        AnthropicAdapter::new(AnthropicConfig::new(base, "claude-test").max_tokens(1000)).unwrap();
    let capped = templiqx_fake_provider::lease_contract(
        "Answer through the tool.",
        "{ max_output_tokens: 300 }",
        "",
    );
    let error = adapter.execute(&render(&capped)).await.unwrap_err();
    assert_eq!(
        (error.failure.code, error.failure.id.as_str()),
        (Code::RuntimeInvalidResponse, "anthropic.truncated")
    );
    assert_eq!(
        error.failure.detail,
        "the output was cut off at the token limit of 300 tokens (`max_tokens`, from \
         `runtime_policy.max_output_tokens`; stop_reason `max_tokens`) after 300 output tokens"
    );
    let help = error.diagnostics[0].help.as_deref().unwrap();
    assert!(
        help.starts_with("raise `runtime_policy.max_output_tokens` in the contract (now 300)"),
        "{help}"
    );
    let uncapped = templiqx_fake_provider::lease_contract(
        "Answer through the tool.",
        "{ temperature: 0 }",
        "",
    );
    let error = adapter.execute(&render(&uncapped)).await.unwrap_err();
    assert!(
        error.failure.detail.starts_with(
            "the output was cut off at the token limit of 1000 tokens (`max_tokens`, the adapter's default"
        ),
        "{}",
        error.failure.detail
    );
    let help = error.diagnostics[0].help.as_deref().unwrap();
    assert!(
        help.contains("above 1000") && help.contains("AnthropicConfig::max_tokens"),
        "{help}"
    );
}
