//! Refusals of a Messages API server (`docs/adapters.md`, "Failures"): the
//! provider's message is kept in the failure, and a 404 names the URL
//! that was requested and the base URL to use instead.

use serde_json::json;
use templiqx::{AsyncRuntimeAdapter, Code};
use templiqx_anthropic::{AnthropicAdapter, AnthropicConfig};
use templiqx_fake_provider::{Reply, render};

fn contract() -> templiqx::Interaction {
    templiqx_fake_provider::lease_contract(
        "Answer through the tool.",
        "{ max_output_tokens: 300 }",
        "",
    )
}

#[tokio::test]
async fn a_base_url_ending_in_v1_is_a_404_that_names_the_url_and_the_host_to_use() {
    let (base, fake) = templiqx_fake_provider::serve("/v1/messages", vec![]).await;
    let adapter =
        AnthropicAdapter::new(AnthropicConfig::new(format!("{base}/v1"), "claude-test")).unwrap();
    let i = contract();
    let error = adapter.execute(&render(&i)).await.unwrap_err();
    assert_eq!(
        (error.failure.code, error.failure.id.as_str()),
        (Code::RuntimePermanent, "anthropic.rejected")
    );
    assert_eq!(
        error.failure.detail,
        format!("anthropic answered HTTP 404 Not Found for POST {base}/v1/v1/messages")
    );
    let help = error.diagnostics[0].help.as_deref().unwrap();
    assert!(help.contains(&format!("`--base-url {base}`")), "{help}");
    assert_eq!(fake.requests(), 0);
}

#[tokio::test]
async fn an_error_message_is_kept_whole_and_quoted_by_its_first_line() {
    let message = "Overloaded.\nThe request was queued for too long.";
    let reply = Reply::Raw(
        529,
        vec![],
        json!({ "type": "error", "error": { "type": "overloaded_error", "message": message } })
            .to_string(),
    );
    let (base, _) = templiqx_fake_provider::serve("/v1/messages", vec![reply]).await;
    let adapter = AnthropicAdapter::new(AnthropicConfig::new(base, "claude-test")).unwrap();
    let i = contract();
    let error = adapter.execute(&render(&i)).await.unwrap_err();
    assert_eq!(error.failure.code, Code::RuntimeUnavailable);
    assert!(
        error.failure.detail.ends_with(": Overloaded."),
        "{}",
        error.failure.detail
    );
    assert_eq!(error.failure.provider_message.as_deref(), Some(message));
}
