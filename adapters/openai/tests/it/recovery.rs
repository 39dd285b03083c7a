//! Output recovery on the OpenAI adapter (`docs/runtime.md`, "Output
//! recovery"; `docs/adapters.md`): a prompt-only server on loopback whose
//! model wraps its JSON in a Markdown fence or a sentence. Without
//! `with_output_recovery` the reply fails with `TQX_OUTPUT_SCHEMA` as
//! before; with it the output is recovered, and the receipt (and the
//! streamed `Complete` event) carries the `TQX_OUTPUT_RECOVERED` warning.

use serde_json::json;
use std::sync::Arc;
use templiqx::contracts::canonical::fingerprint;
use templiqx::{AsyncRuntimeAdapter, Code, OutputRecovery, Receipt, StreamEvent};
use templiqx_fake_provider::{Fake, KeepAlive, Reply, SseBody, render};
use templiqx_openai::{OpenAiAdapter, OpenAiConfig, StructuredOutput};

async fn serve(replies: Vec<Reply>) -> (String, Arc<Fake>) {
    let (base, fake) = templiqx_fake_provider::serve("/v1/chat/completions", replies).await;
    (format!("{base}/v1"), fake)
}

fn adapter(base: &str, recovery: OutputRecovery) -> OpenAiAdapter {
    OpenAiAdapter::new(
        OpenAiConfig::new(base, "local").structured_output(StructuredOutput::PromptOnly),
    )
    .unwrap()
    .with_output_recovery(recovery)
}

fn ok(content: &str) -> Reply {
    Reply::ok(
        json!({ "id": "c", "object": "chat.completion", "model": "local",
                "choices": [{ "index": 0, "finish_reason": "stop",
                              "message": { "role": "assistant", "content": content } }] })
        .to_string(),
    )
}

const FENCED: &str = "Here you go:\n```json\n{\"rent\": 900, \"notice_days\": 30}\n```";
const PROSE: &str = "The terms are {\"rent\": 900, \"notice_days\": 30} as stated.";

fn contract() -> templiqx::Interaction {
    templiqx_fake_provider::lease_contract("Answer with JSON only.", "{}", "")
}

#[tokio::test]
async fn a_fenced_or_prose_wrapped_reply_fails_by_default_and_is_recovered_on_request() {
    let i = contract();
    let request = render(&i);
    let (base, _fake) = serve(vec![ok(FENCED), ok(PROSE)]).await;
    for text in [FENCED, PROSE] {
        let error = adapter(&base, OutputRecovery::Off)
            .execute(&request)
            .await
            .unwrap_err();
        assert_eq!(error.failure.code, Code::OutputSchema, "{text}");
        assert_eq!(error.output, Some(json!(text).into()));
    }

    let (base, fake) = serve(vec![ok(FENCED), ok(PROSE)]).await;
    let output = json!({ "rent": 900, "notice_days": 30 });
    for step in ["fence", "prose"] {
        let execution = adapter(&base, OutputRecovery::On)
            .execute(&request)
            .await
            .unwrap();
        assert_eq!(execution.output, output);
        let Receipt::Success {
            output_fingerprint,
            diagnostics,
            ..
        } = &execution.receipt
        else {
            panic!("{:?}", execution.receipt)
        };
        assert_eq!(*output_fingerprint, fingerprint(&output));
        assert_eq!(diagnostics[0].code, Code::OutputRecovered);
        assert_eq!(diagnostics[0].notes, [format!("recovery steps: {step}")]);
    }
    // Recovery reads the reply again; it sends nothing more.
    assert_eq!(fake.requests(), 2);
}

#[tokio::test]
async fn a_streamed_fenced_reply_completes_with_the_recovered_receipt() {
    let i = contract();
    let request = render(&i);
    let chunk = |delta: serde_json::Value, finish: Option<&str>| {
        json!({ "id": "c", "object": "chat.completion.chunk", "model": "local",
                "choices": [{ "index": 0, "delta": delta, "finish_reason": finish }] })
        .to_string()
    };
    let mut body = SseBody::new();
    for piece in FENCED.split_inclusive('\n') {
        body = body.data(chunk(json!({ "content": piece }), None));
    }
    body = body.data(chunk(json!({}), Some("stop"))).data("[DONE]");
    let (base, _fake) = serve(vec![Reply::sse(body.render("\n", KeepAlive::None))]).await;
    let mut events = Vec::new();
    let execution = adapter(&base, OutputRecovery::On)
        .execute_streaming(&request, &mut |e| events.push(e))
        .await
        .unwrap();
    // The deltas are the model's text as written.
    let text: String = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::Delta { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(text, FENCED);
    let Some(StreamEvent::Complete { receipt }) = events.last() else {
        panic!("{events:?}")
    };
    assert_eq!(*receipt, execution.receipt);
    assert_eq!(receipt.diagnostics()[0].code, Code::OutputRecovered);
}
