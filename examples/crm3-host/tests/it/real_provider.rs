//! The main job with `CRM3_PROVIDER=openai`, against a fake Chat Completions
//! server on loopback that answers with the package's eval outputs: the
//! host goes through `templiqx-openai` (plain for the extraction, streamed
//! for the drafting) and prints latency and token counts.

use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::response::Response;
use axum::routing::post;
use serde_json::{Value, json};
use std::process::Command;
use std::sync::{Arc, Mutex};

fn eval(name: &str) -> String {
    let path = format!("{}/../crm3/evals/{name}", env!("CARGO_MANIFEST_DIR"));
    let value: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    value.to_string()
}

async fn handle(State(seen): State<Arc<Mutex<Vec<Value>>>>, body: String) -> Response {
    let body: Value = serde_json::from_str(&body).unwrap();
    let stream = body["stream"] == true;
    let first = {
        let mut seen = seen.lock().unwrap();
        seen.push(body);
        seen.len() == 1
    };
    let usage = json!({ "prompt_tokens": 300, "completion_tokens": 80, "total_tokens": 380 });
    if !stream {
        let content = if first {
            eval("extraction-output.json")
        } else {
            eval("drafting-output.json")
        };
        let reply = json!({ "id": "x", "object": "chat.completion", "choices": [{ "index": 0,
            "finish_reason": "stop", "message": { "role": "assistant", "content": content } }],
            "usage": usage });
        return Response::builder()
            .header("content-type", "application/json")
            .body(Body::from(reply.to_string()))
            .unwrap();
    }
    let content = eval("drafting-output.json");
    let (a, b) = content.split_at(content.len() / 2);
    let mut text = String::new();
    for chunk in [
        json!({ "choices": [{ "index": 0, "delta": { "content": a }, "finish_reason": null }] }),
        json!({ "choices": [{ "index": 0, "delta": { "content": b }, "finish_reason": null }] }),
        json!({ "choices": [{ "index": 0, "delta": {}, "finish_reason": "stop" }] }),
        json!({ "choices": [], "usage": usage }),
    ] {
        text.push_str(&format!("data: {chunk}\n\n"));
    }
    text.push_str("data: [DONE]\n\n");
    Response::builder()
        .header("content-type", "text/event-stream")
        .body(Body::from(text))
        .unwrap()
}

#[test]
fn the_main_job_runs_on_an_openai_compatible_server_when_asked() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let addr = listener.local_addr().unwrap();
    let app = Router::new()
        .route("/v1/chat/completions", post(handle))
        .with_state(seen.clone());
    runtime.spawn(async move { axum::serve(listener, app).await.unwrap() });

    let out = Command::new(env!("CARGO_BIN_EXE_crm3-host"))
        .env("CRM3_PROVIDER", "openai")
        .env("CRM3_BASE_URL", format!("http://{addr}/v1"))
        .env("CRM3_MODEL", "fake-model")
        .env("CRM3_STRUCTURED_OUTPUT", "json-object-schema")
        .env("CRM3_DEVELOPER_AS_SYSTEM", "1")
        .env_remove("OPENAI_API_KEY")
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for needle in [
        "== lease-term-extraction",
        "decoded: 2026-03-01 .. 2027-02-28, EUR 1450.5 per month, 60 days' notice, 4 evidence links",
        "tokens: 300 in, 80 out",
        "streamed 2 deltas, 2 partial outputs; Complete carried the execute receipt: true",
        "decoded: \"Lease summary\"",
    ] {
        assert!(stdout.contains(needle), "missing {needle:?} in\n{stdout}");
    }
    assert!(!stdout.contains("virtual time"), "the mock ran:\n{stdout}");
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[0]["model"], "fake-model");
    assert_eq!(seen[0]["response_format"]["type"], "json_object");
    assert_eq!(seen[1]["stream"], true);
}

/// Runs the host against `base_url` as an OpenAI-compatible provider.
fn run_host_against(base_url: &str) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_crm3-host"))
        .env("CRM3_PROVIDER", "openai")
        .env("CRM3_BASE_URL", base_url)
        .env("CRM3_MODEL", "fake-model")
        .env("CRM3_TIMEOUT_MS", "20000")
        .env_remove("OPENAI_API_KEY")
        .env_remove("CRM3_STRUCTURED_OUTPUT")
        .env_remove("CRM3_DEVELOPER_AS_SYSTEM")
        .env_remove("CRM3_MAX_TOKENS_FIELD")
        .output()
        .unwrap()
}

/// The failure is reported as a diagnostic (`docs/adapters.md`, the CRM3
/// host), never as a Rust `Debug` dump, and the exit code is 1.
fn assert_reported_as_diagnostic(out: &std::process::Output, code: &str) {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(
        stderr.starts_with(&format!("error[{code}]: ")),
        "stderr:\n{stderr}"
    );
    assert!(stderr.contains("\n  = help: "), "stderr:\n{stderr}");
    for debug in ["ExecutionError {", "RuntimeFailure {", "Error: "] {
        assert!(!stderr.contains(debug), "{debug:?} in stderr:\n{stderr}");
    }
    assert!(
        stdout.contains(&format!("receipt: failure {code}")),
        "stdout:\n{stdout}"
    );
}

#[test]
fn a_provider_answering_503_is_reported_as_a_diagnostic_with_exit_code_1() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let calls = Arc::new(Mutex::new(0_u32));
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let addr = listener.local_addr().unwrap();
    let app = Router::new()
        .route(
            "/v1/chat/completions",
            post(|State(calls): State<Arc<Mutex<u32>>>| async move {
                *calls.lock().unwrap() += 1;
                Response::builder()
                    .status(503)
                    .header("content-type", "application/json")
                    .body(Body::from(r#"{"error":{"message":"overloaded"}}"#))
                    .unwrap()
            }),
        )
        .with_state(calls.clone());
    runtime.spawn(async move { axum::serve(listener, app).await.unwrap() });

    let out = run_host_against(&format!("http://{addr}/v1"));
    assert_reported_as_diagnostic(&out, "TQX_RUNTIME_UNAVAILABLE");
    assert!(*calls.lock().unwrap() >= 1);
}

#[test]
fn a_refused_connection_is_reported_as_a_diagnostic_with_exit_code_1() {
    // A port that was just free: bound, then closed.
    let addr = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let out = run_host_against(&format!("http://{addr}/v1"));
    assert_reported_as_diagnostic(&out, "TQX_RUNTIME_UNAVAILABLE");
}

#[test]
fn a_bad_setting_is_reported_as_an_error_line_with_exit_code_1() {
    let out = Command::new(env!("CARGO_BIN_EXE_crm3-host"))
        .env("CRM3_PROVIDER", "nonesuch")
        .env("CRM3_BASE_URL", "http://127.0.0.1:9/v1")
        .env("CRM3_MODEL", "fake-model")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(
        stderr,
        "error: CRM3_PROVIDER: expected openai or anthropic, found `nonesuch`\n"
    );
}

/// The drafting output with a summary of `chars` characters, as the text a
/// model writes.
fn drafting_with_summary(chars: usize) -> String {
    let mut output: Value = serde_json::from_str(&eval("drafting-output.json")).unwrap();
    output["summary"] = Value::String("The lease runs on. ".chars().cycle().take(chars).collect());
    output.to_string()
}

/// A server that answers the extraction with its eval output and streams
/// `content` for the drafting in deltas of 10 characters; the host's
/// output, off a terminal, and the number of deltas.
fn run_host_streaming(content: String) -> (std::process::Output, usize) {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let addr = listener.local_addr().unwrap();
    let chars: Vec<char> = content.chars().collect();
    let deltas: Vec<String> = chars.chunks(10).map(|c| c.iter().collect()).collect();
    let count = deltas.len();
    let app = Router::new().route(
        "/v1/chat/completions",
        post(move |body: String| {
            let deltas = deltas.clone();
            async move {
                let body: Value = serde_json::from_str(&body).unwrap();
                if body["stream"] != true {
                    let reply = json!({ "id": "x", "object": "chat.completion",
                        "choices": [{ "index": 0, "finish_reason": "stop",
                            "message": { "role": "assistant", "content": eval("extraction-output.json") } }] });
                    return Response::builder()
                        .header("content-type", "application/json")
                        .body(Body::from(reply.to_string()))
                        .unwrap();
                }
                let mut text = String::new();
                for d in &deltas {
                    let chunk = json!({ "choices": [{ "index": 0, "delta": { "content": d }, "finish_reason": null }] });
                    text.push_str(&format!("data: {chunk}\n\n"));
                }
                let end = json!({ "choices": [{ "index": 0, "delta": {}, "finish_reason": "stop" }] });
                text.push_str(&format!("data: {end}\n\ndata: [DONE]\n\n"));
                Response::builder()
                    .header("content-type", "text/event-stream")
                    .body(Body::from(text))
                    .unwrap()
            }
        }),
    );
    runtime.spawn(async move { axum::serve(listener, app).await.unwrap() });
    (run_host_against(&format!("http://{addr}/v1")), count)
}

#[test]
fn off_a_terminal_a_long_string_prints_a_line_every_200_characters() {
    let (out, deltas) = run_host_streaming(drafting_with_summary(450));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // One line as the summary starts, then one at 200 and 400 more.
    let summary_lines: Vec<&str> = stdout
        .lines()
        .filter(|l| l.contains("summary writing"))
        .collect();
    assert_eq!(summary_lines.len(), 3, "{stdout}");
    assert!(summary_lines[2].contains("(40"), "{}", summary_lines[2]);
    assert!(
        stdout.contains(&format!("streamed {deltas} deltas, ")),
        "{stdout}"
    );
}

#[test]
fn a_failed_stream_still_says_what_streamed() {
    // 700 characters: over the summary's maxLength (600).
    let (out, deltas) = run_host_streaming(drafting_with_summary(700));
    assert_reported_as_diagnostic(&out, "TQX_OUTPUT_SCHEMA");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout
        .lines()
        .find(|l| l.contains("streamed "))
        .unwrap_or_else(|| panic!("no `streamed` line in\n{stdout}"));
    assert!(
        line.starts_with(&format!("   streamed {deltas} deltas, "))
            && line.ends_with(" partial outputs; the execution failed, no typed output"),
        "{line}"
    );
}
