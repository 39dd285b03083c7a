//! `templiqx run`, run as a process against fake provider servers on
//! loopback (axum on 127.0.0.1:0): output, receipt, usage and streaming in
//! both formats; failures with their codes; nothing sent for a request that
//! does not render; configuration errors are usage errors; the key never
//! printed.

use crate::common::*;
use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::post;
use serde_json::{Value, json};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

const CONTRACT: &str = "examples/crm3/contracts/lease-term-extraction.yaml";
const REQUEST: &str = "examples/crm3/evals/extraction-request.json";
const KEY: &str = "sk-cli-test-secret-42";

#[derive(Default)]
struct Fake {
    replies: Mutex<VecDeque<(u16, &'static str, String)>>,
    seen: Mutex<Vec<(HeaderMap, Value)>>,
}

async fn handle(State(fake): State<Arc<Fake>>, headers: HeaderMap, body: String) -> Response {
    fake.seen
        .lock()
        .unwrap()
        .push((headers, serde_json::from_str(&body).unwrap()));
    let (status, kind, body) = fake.replies.lock().unwrap().pop_front().expect("a reply");
    Response::builder()
        .status(status)
        .header("content-type", kind)
        .body(Body::from(body))
        .unwrap()
}

/// A fake server for `path` on its own runtime thread; returns its address.
fn serve(path: &'static str, replies: Vec<(u16, &'static str, String)>) -> (String, Arc<Fake>) {
    let fake = Arc::new(Fake {
        replies: Mutex::new(replies.into()),
        ..Fake::default()
    });
    let app = Router::new()
        .route(path, post(handle))
        .with_state(fake.clone());
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).unwrap();
                axum::serve(listener, app).await.unwrap();
            });
    });
    (format!("http://{addr}"), fake)
}

fn eval_output() -> String {
    let text =
        std::fs::read_to_string(repo().join("examples/crm3/evals/extraction-output.json")).unwrap();
    serde_json::from_str::<Value>(&text).unwrap().to_string()
}

fn openai_completion(content: &str) -> (u16, &'static str, String) {
    (
        200,
        "application/json",
        json!({ "id": "c", "object": "chat.completion", "choices": [{ "index": 0,
                "finish_reason": "stop", "message": { "role": "assistant", "content": content } }],
                "usage": { "prompt_tokens": 321, "completion_tokens": 123, "total_tokens": 444 } })
        .to_string(),
    )
}

fn run_openai(base: &str, extra: &[&str]) -> std::process::Output {
    templiqx()
        .args(["run", CONTRACT, "-r", REQUEST, "-t", "structured_output"])
        .args(["--provider", "openai", "--base-url", &format!("{base}/v1")])
        .args(["--model", "fake-model"])
        .args(extra)
        .env("OPENAI_API_KEY", KEY)
        .output()
        .unwrap()
}

#[test]
fn run_prints_the_output_receipt_and_usage_and_sends_the_key_only_in_its_header() {
    let (base, fake) = serve(
        "/v1/chat/completions",
        vec![
            openai_completion(&eval_output()),
            openai_completion(&eval_output()),
        ],
    );
    let human = run_openai(&base, &[]);
    let text = stdout(&human);
    assert_eq!(human.status.code(), Some(0), "{text}");
    for needle in [
        "[0] system",
        "\"start_date\": \"2026-03-01\"",
        "receipt      success",
        "via openai `fake-model`",
        "tokens       321 in, 123 out",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in\n{text}");
    }
    let json = run_openai(&base, &["--format", "json"]);
    assert_eq!(json.status.code(), Some(0));
    let envs = envelopes(&json);
    assert_eq!(envs.len(), 1);
    let env = &envs[0];
    assert_envelope(env, "execute");
    assert_eq!(env["ok"], true);
    assert_eq!(env["result"]["output"]["notice_days"], 60);
    assert_eq!(env["result"]["receipt"]["outcome"], "success");
    assert_eq!(env["result"]["attempts"], 1);
    assert_eq!(
        env["result"]["usage"],
        json!({ "input_tokens": 321, "output_tokens": 123 })
    );
    for name in ["contract", "interaction", "request", "receipt"] {
        assert!(env["fingerprints"][name].is_string(), "{name}: {env}");
    }
    let seen = fake.seen.lock().unwrap();
    assert_eq!(seen[0].0["authorization"], format!("Bearer {KEY}"));
    for out in [&human, &json] {
        assert!(!stdout(out).contains(KEY));
        assert!(!String::from_utf8_lossy(&out.stderr).contains(KEY));
    }
}

#[test]
fn run_streams_deltas_as_they_come() {
    let output = eval_output();
    let (a, b) = output.split_at(40);
    let mut sse = String::new();
    for chunk in [
        json!({ "choices": [{ "index": 0, "delta": { "content": a }, "finish_reason": null }] }),
        json!({ "choices": [{ "index": 0, "delta": { "content": b }, "finish_reason": "stop" }] }),
    ] {
        sse.push_str(&format!("data: {chunk}\n\n"));
    }
    sse.push_str("data: [DONE]\n\n");
    let (base, fake) = serve(
        "/v1/chat/completions",
        vec![
            (200, "text/event-stream", sse.clone()),
            (200, "text/event-stream", sse),
        ],
    );
    let human = run_openai(&base, &["--stream"]);
    let text = stdout(&human);
    assert_eq!(human.status.code(), Some(0), "{text}");
    assert!(
        text.contains(&format!("{output}\n")),
        "the deltas, in order:\n{text}"
    );
    assert!(text.contains("streamed     2 deltas"), "{text}");
    assert!(
        !text.contains('\x1b'),
        "no control characters off a terminal"
    );
    let json = run_openai(&base, &["--stream", "--format", "json"]);
    let lines = envelopes(&json);
    let env = lines.last().unwrap();
    assert_envelope(env, "execute");
    assert_eq!(env["result"]["deltas"], 2);
    assert_eq!(env["ok"], true);
    // Before the envelope, the partial output after each delta.
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert_eq!(lines[1]["output"], env["result"]["output"]);
    assert_eq!(lines[1]["writing"], Value::Null);
    assert_eq!(fake.seen.lock().unwrap()[0].1["stream"], true);
}

/// `next` is what `prev` may become while streaming (`docs/format.md`,
/// "Partial types"): strings grow, arrays and objects keep what they
/// showed, complete scalars stay.
fn follows(prev: &Value, next: &Value, at: &str) {
    match (prev, next) {
        (Value::String(a), Value::String(b)) => assert!(b.starts_with(a.as_str()), "{at}"),
        (Value::Array(a), Value::Array(b)) => {
            assert!(b.len() >= a.len(), "{at}: shrank");
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                follows(x, y, &format!("{at}/{i}"));
            }
        }
        (Value::Object(a), Value::Object(b)) => {
            for (k, x) in a {
                follows(x, &b[k], &format!("{at}/{k}"));
            }
        }
        (a, b) => assert_eq!(a, b, "{at}: a complete value changed"),
    }
}

#[test]
fn run_stream_format_json_prints_each_partial_output_before_the_envelope() {
    let output = eval_output();
    let base = serve_scripted(
        "/v1/chat/completions",
        vec![templiqx_fake_provider::openai_deltas(&output, 1)],
    );
    let json = run_openai(&base, &["--stream", "--format", "json"]);
    assert_eq!(json.status.code(), Some(0), "{}", stdout(&json));
    let mut lines = envelopes(&json);
    let env = lines.pop().unwrap();
    assert_envelope(&env, "execute");
    assert_eq!(env["result"]["deltas"], output.chars().count());
    assert!(lines.len() > 50, "{} partial lines", lines.len());
    let mut prev = json!({});
    for line in &lines {
        assert_eq!(line["event"], "partial", "{line}");
        follows(&prev, &line["output"], "");
        prev = line["output"].clone();
    }
    // Partway, the rent is left out while its digits arrive.
    assert!(lines.iter().any(|l| l["writing"] == "/monthly_rent"
        && l["output"].get("monthly_rent").is_none()
        && l["output"]["end_date"] == "2027-02-28"));
    let last = lines.last().unwrap();
    assert_eq!(last["output"], env["result"]["output"]);
    assert_eq!(last["writing"], Value::Null);
}

#[test]
fn run_reports_failures_with_their_code_and_receipt() {
    let (base, _) = serve(
        "/v1/chat/completions",
        vec![
            openai_completion("not json at all"),
            (
                400,
                "application/json",
                json!({ "error": { "message": "Unsupported value: 'response_format'" } })
                    .to_string(),
            ),
        ],
    );
    let out = run_openai(&base, &["--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let env = &envelopes(&out)[0];
    assert_eq!(codes(env), ["TQX_OUTPUT_SCHEMA"]);
    assert_eq!(env["result"]["receipt"]["outcome"], "failure");
    assert_eq!(env["result"]["output"], Value::Null);
    let out = run_openai(&base, &[]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(text.contains("error[TQX_RUNTIME_PERMANENT]"), "{text}");
    assert!(text.contains("Unsupported value"), "{text}");
    assert!(
        text.contains("receipt      failure TQX_RUNTIME_PERMANENT"),
        "{text}"
    );
}

#[test]
fn run_shows_the_providers_message_and_the_setting_that_avoids_a_refusal() {
    let traceback = "Traceback (most recent call last):\n  File \"/srv/app.py\", line 9, in chat\n    \
                     raise RuntimeError(\"no slot\")\nRuntimeError: no free slot for the request";
    let (base, fake) = serve(
        "/v1/chat/completions",
        vec![
            // llama.cpp's server before it took `json_schema`.
            (
                500,
                "application/json",
                json!({ "error": { "code": 500, "type": "server_error", "message":
                    "response_format type must be one of \"text\" or \"json_object\", but got: json_schema" } })
                .to_string(),
            ),
            (500, "text/plain", traceback.to_owned()),
            (500, "text/plain", traceback.to_owned()),
        ],
    );
    let out = run_openai(&base, &[]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    for needle in [
        "error[TQX_RUNTIME_PERMANENT]: openai answered HTTP 500 Internal Server Error: response_format type must be one of",
        "= help: the server does not take `response_format: json_schema`",
        "`--structured-output json-object-schema`",
        "`--structured-output prompt-only`",
        "receipt      failure TQX_RUNTIME_PERMANENT",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in\n{text}");
    }
    assert!(!text.contains("retry later"), "{text}");
    // A traceback: its exception line, and the rest with --verbose.
    let out = run_openai(&base, &[]);
    let text = stdout(&out);
    assert!(
        text.contains("error[TQX_RUNTIME_UNAVAILABLE]: openai answered HTTP 500 Internal Server Error: RuntimeError: no free slot for the request"),
        "{text}"
    );
    assert!(
        text.contains(
            "= note: the server's message goes on for 3 more lines (`--verbose` shows it whole)"
        ),
        "{text}"
    );
    assert!(!text.contains("app.py"), "{text}");
    let out = run_openai(&base, &["--verbose", "--format", "json"]);
    let env = &envelopes(&out)[0];
    let notes = env["diagnostics"][0]["notes"].to_string();
    assert!(notes.contains("the server's whole message:"), "{notes}");
    assert!(notes.contains("/srv/app.py"), "{notes}");
    assert_eq!(fake.seen.lock().unwrap().len(), 3);
}

#[test]
fn run_shows_the_url_of_a_404_and_suggests_v1() {
    let (base, _) = serve("/v1/chat/completions", vec![]);
    let out = templiqx()
        .args(["run", CONTRACT, "-r", REQUEST, "-t", "structured_output"])
        .args([
            "--provider",
            "openai",
            "--base-url",
            &base,
            "--model",
            "fake-model",
        ])
        .env_remove("OPENAI_API_KEY")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    for needle in [
        format!(
            "error[TQX_RUNTIME_PERMANENT]: openai answered HTTP 404 Not Found for POST {base}/chat/completions"
        ),
        format!(
            "= help: the server has nothing at `{base}/chat/completions`: the base URL goes up to the API version, usually `/v1` (`--base-url {base}/v1`)"
        ),
    ] {
        assert!(text.contains(&needle), "missing {needle:?} in\n{text}");
    }
}

/// A scripted fake (`templiqx_fake_provider`) for `route` on its own
/// runtime thread; returns its address.
fn serve_scripted(route: &'static str, replies: Vec<templiqx_fake_provider::Reply>) -> String {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(async move {
                let (base, _fake) = templiqx_fake_provider::serve(route, replies).await;
                tx.send(base).unwrap();
                std::future::pending::<()>().await;
            });
    });
    rx.recv().unwrap()
}

fn chunk(content: &str, finish: Option<&str>) -> String {
    let c = json!({ "id": "c", "object": "chat.completion.chunk", "model": "fake-model",
        "choices": [{ "index": 0, "delta": { "content": content }, "finish_reason": finish }] });
    format!("data: {c}\n\n")
}

#[test]
fn run_says_which_timeout_fired_and_how_much_output_arrived() {
    use std::time::Duration;
    use templiqx_fake_provider::Reply;
    // Still answering, a fragment every 200 ms, at the 700 ms deadline.
    let slow: Vec<(Duration, String)> =
        ["{\"start_date\": ", "\"2026", "-03", "-01\"", ", ", "\"x\""]
            .iter()
            .map(|t| (Duration::from_millis(200), chunk(t, None)))
            .collect();
    // Two fragments, then silence.
    let stalled = vec![
        (Duration::ZERO, chunk("{\"start", None)),
        (Duration::ZERO, chunk("_date\"", None)),
        (Duration::from_secs(3600), chunk("}", Some("stop"))),
    ];
    let base = serve_scripted(
        "/v1/chat/completions",
        vec![Reply::Paced(slow), Reply::Paced(stalled)],
    );
    let out = run_openai(&base, &["--stream", "--timeout-ms", "700"]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.contains("error[TQX_RUNTIME_TIMEOUT]: the attempt's overall deadline of 700 ms passed while openai was still answering: "),
        "{text}"
    );
    assert!(text.contains(" of output had arrived, "), "{text}");
    assert!(
        text.contains("= help: the answer was still arriving"),
        "{text}"
    );
    assert!(!text.contains("did not answer"), "{text}");
    let out = run_openai(
        &base,
        &[
            "--stream",
            "--timeout-ms",
            "60000",
            "--idle-timeout-ms",
            "300",
        ],
    );
    let text = stdout(&out);
    assert!(
        text.contains("error[TQX_RUNTIME_TIMEOUT]: openai sent nothing for 300 ms, the idle timeout (the stream stalled): 2 deltas of output had arrived, 13 characters (13 bytes)"),
        "{text}"
    );
    assert!(
        text.contains("failing step: `openai.idle_timeout`"),
        "{text}"
    );
}

#[test]
fn run_says_an_output_was_cut_off_at_the_token_limit_and_what_raises_it() {
    let (base, _) = serve(
        "/v1/chat/completions",
        vec![(
            200,
            "application/json",
            json!({ "id": "c", "object": "chat.completion", "choices": [{ "index": 0,
                    "finish_reason": "length", "message": { "role": "assistant", "content": "{\"start_date\": \"20" } }],
                    "usage": { "prompt_tokens": 321, "completion_tokens": 800, "total_tokens": 1121 } })
            .to_string(),
        )],
    );
    let out = run_openai(&base, &[]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    for needle in [
        "error[TQX_RUNTIME_INVALID_RESPONSE]: the output was cut off at the token limit of 800 tokens (`max_completion_tokens`, from `runtime_policy.max_output_tokens`; finish_reason `length`) after 800 output tokens, 18 characters",
        "= help: raise `runtime_policy.max_output_tokens` in the contract (now 800)",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in\n{text}");
    }
}

#[test]
fn run_works_with_anthropic() {
    let output: Value = serde_json::from_str(&eval_output()).unwrap();
    let reply = json!({ "id": "m", "type": "message", "role": "assistant", "model": "claude-fake",
        "content": [{ "type": "tool_use", "id": "t", "name": "emit_output", "input": output }],
        "stop_reason": "tool_use", "usage": { "input_tokens": 500, "output_tokens": 90 } });
    let (base, fake) = serve(
        "/v1/messages",
        vec![(200, "application/json", reply.to_string())],
    );
    let out = templiqx()
        .args(["run", CONTRACT, "-r", REQUEST, "-t", "structured_output"])
        .args(["--provider", "anthropic", "--base-url", &base])
        .args(["--model", "claude-fake", "--format", "json"])
        .env("ANTHROPIC_API_KEY", KEY)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let env = &envelopes(&out)[0];
    assert_eq!(env["result"]["output"], output);
    assert_eq!(env["result"]["provider"], "anthropic");
    let seen = fake.seen.lock().unwrap();
    assert_eq!(seen[0].0["x-api-key"], KEY);
    assert_eq!(seen[0].1["tool_choice"]["name"], "emit_output");
}

#[test]
fn nothing_is_sent_for_a_request_that_does_not_render_or_a_configuration_the_adapter_refuses() {
    let (base, fake) = serve("/v1/chat/completions", vec![]);
    let dir = tempfile::tempdir().unwrap();
    let request = dir.path().join("request.json");
    std::fs::write(&request, r#"{"inputs": {}, "context": {}}"#).unwrap();
    let out = templiqx()
        .args(["run", CONTRACT, "-r"])
        .arg(&request)
        .args(["-t", "structured_output", "--provider", "openai"])
        .args(["--base-url", &format!("{base}/v1"), "--model", "m"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out).contains("TQX_VALUE_INVALID"),
        "{}",
        stdout(&out)
    );
    assert!(stdout(&out).contains("nothing was sent"));

    let out = run_openai("ftp://nowhere", &[]);
    assert_eq!(out.status.code(), Some(2));
    let shown = stdout(&out);
    assert!(
        shown.starts_with("error[TQX_RUNTIME_PERMANENT]: the openai adapter refuses its configuration: the base URL `ftp://nowhere/v1` must use http or https\n"),
        "{shown}"
    );
    assert!(shown.contains("nothing was sent"), "{shown}");
    // As an envelope with --format json, and never quoting credentials.
    let out = run_openai("ftp://user:sk-SECRET@nowhere", &["--format", "json"]);
    assert_eq!(out.status.code(), Some(2));
    let envelope: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(envelope["ok"], false);
    assert_eq!(envelope["diagnostics"][0]["code"], "TQX_RUNTIME_PERMANENT");
    assert!(!stdout(&out).contains("SECRET"), "{}", stdout(&out));
    // The contract compiled and the request rendered: their fingerprints
    // are given, as `render` gives them.
    for name in ["contract", "interaction", "request"] {
        let fp = envelope["fingerprints"][name].as_str().unwrap_or_default();
        assert_eq!(fp.len(), 64, "{name}: {envelope}");
    }
    let out = templiqx()
        .args(["run", CONTRACT, "-r", REQUEST, "-t", "structured_output"])
        .args([
            "--provider",
            "anthropic",
            "--base-url",
            &base,
            "--model",
            "m",
        ])
        .args(["--structured-output", "prompt-only"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stdout(&out).contains("--provider openai only"),
        "{}",
        stdout(&out)
    );
    assert!(fake.seen.lock().unwrap().is_empty());
}

/// The raw `"output"` member of each JSON line of `out`, as printed: its
/// keys in the order written.
fn raw_outputs(out: &std::process::Output) -> Vec<String> {
    stdout(out)
        .lines()
        .map(|line| {
            let start = line.find("\"output\":").expect("an output") + "\"output\":".len();
            let mut de = serde_json::Deserializer::from_str(&line[start..]);
            let value: &serde_json::value::RawValue =
                serde::Deserialize::deserialize(&mut de).unwrap();
            value.get().to_owned()
        })
        .collect()
}

#[test]
fn run_stream_format_json_prints_members_sorted_by_key_as_the_envelope_does() {
    // The model writes the members in reverse key order: the partial
    // lines, like the envelope, print them sorted by key
    // (`docs/runtime.md`, "Typed streaming", "Member order").
    let value: Value = serde_json::from_str(&eval_output()).unwrap();
    let members = value.as_object().unwrap();
    let mut keys: Vec<&String> = members.keys().collect();
    keys.sort();
    let written: Vec<String> = keys
        .iter()
        .rev()
        .map(|k| format!("{}:{}", json!(k), members[k.as_str()]))
        .collect();
    let output = format!("{{{}}}", written.join(","));
    let (first, last) = (keys[0], keys[keys.len() - 1]);
    assert!(output.starts_with(&format!("{{\"{last}\":")));
    let base = serve_scripted(
        "/v1/chat/completions",
        vec![templiqx_fake_provider::openai_deltas(&output, 7)],
    );
    let json = run_openai(&base, &["--stream", "--format", "json"]);
    assert_eq!(json.status.code(), Some(0), "{}", stdout(&json));
    let raws = raw_outputs(&json);
    let envelope = raws.last().unwrap();
    let partial = &raws[raws.len() - 2];
    assert_eq!(partial, envelope, "the last partial prints as the output");
    assert!(
        envelope.starts_with(&format!("{{\"{first}\":")),
        "{envelope}"
    );
}
