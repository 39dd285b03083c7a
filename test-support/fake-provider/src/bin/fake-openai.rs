//! `fake-openai`: a zero-latency OpenAI-compatible server for throughput
//! benchmarks (`bench/eval/throughput.sh`, `docs/benchmarks.md`).
//!
//! ```text
//! fake-openai OUTPUT.json [--port P] [--threads T]
//! ```
//!
//! Listens on `127.0.0.1:P` (default 0: a free port) and answers every
//! `POST /v1/chat/completions` with one fixed `chat.completion` object whose
//! `choices[0].message.content` is the text of `OUTPUT.json`, plus `usage`.
//! The response body is built once at start-up, so an answer costs the HTTP
//! exchange and nothing else; the request body is read but not parsed.
//! `GET /requests` returns how many completions were answered. The first
//! line on stdout is `listening on http://127.0.0.1:PORT`, printed once the
//! socket is bound. `--threads` sets tokio's worker threads (default 1, so
//! that on a small machine the client keeps the other cores).

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::Response;
use axum::routing::{get, post};
use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// The precomputed answer and the request count.
struct Fake {
    body: Bytes,
    answered: AtomicU64,
}

const USAGE: &str = "usage: fake-openai OUTPUT.json [--port P] [--threads T]";

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("fake-openai: {message}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<(), String> {
    let mut output: Option<String> = None;
    let mut port: u16 = 0;
    let mut threads: usize = 1;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--port" => {
                port = args
                    .next()
                    .and_then(|p| p.parse().ok())
                    .ok_or("--port takes a port number")?;
            }
            "--threads" => {
                threads = args
                    .next()
                    .and_then(|t| t.parse().ok())
                    .filter(|t| *t > 0)
                    .ok_or("--threads takes a positive number")?;
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(());
            }
            _ if output.is_none() && !arg.starts_with('-') => output = Some(arg),
            _ => return Err(format!("unexpected argument `{arg}`\n{USAGE}")),
        }
    }
    let path = output.ok_or(USAGE)?;
    let text = std::fs::read_to_string(&path).map_err(|e| format!("reading {path}: {e}"))?;
    let fake = Arc::new(Fake {
        body: completion(&text).into(),
        answered: AtomicU64::new(0),
    });

    let runtime = if threads == 1 {
        tokio::runtime::Builder::new_current_thread()
    } else {
        let mut b = tokio::runtime::Builder::new_multi_thread();
        b.worker_threads(threads);
        b
    }
    .enable_all()
    .build()
    .map_err(|e| format!("starting tokio: {e}"))?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
            .await
            .map_err(|e| format!("binding 127.0.0.1:{port}: {e}"))?;
        let addr = listener
            .local_addr()
            .map_err(|e| format!("reading the bound address: {e}"))?;
        let mut stdout = std::io::stdout().lock();
        writeln!(stdout, "listening on http://{addr}")
            .and_then(|()| stdout.flush())
            .map_err(|e| format!("writing to stdout: {e}"))?;
        drop(stdout);
        let app = Router::new()
            .route("/v1/chat/completions", post(complete))
            .route("/requests", get(requests))
            .with_state(fake);
        axum::serve(listener, app)
            .await
            .map_err(|e| format!("serving: {e}"))
    })
}

/// The `chat.completion` object answering with `content`, as JSON bytes.
fn completion(content: &str) -> Vec<u8> {
    // A rough token count (4 bytes a token), enough for tokens/s figures.
    let completion_tokens = content.len().div_ceil(4) as u64;
    let prompt_tokens = 500_u64;
    let value = serde_json::json!({
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": "fake",
        "choices": [{
            "index": 0,
            "message": { "role": "assistant", "content": content, "refusal": null },
            "finish_reason": "stop"
        }],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens
        }
    });
    serde_json::to_vec(&value).expect("a JSON value serialises")
}

/// `POST /v1/chat/completions`: the request body is read in full (so the
/// connection stays reusable) and ignored.
async fn complete(State(fake): State<Arc<Fake>>, _request: Bytes) -> Response {
    fake.answered.fetch_add(1, Ordering::Relaxed);
    let mut response = Response::new(Body::from(fake.body.clone()));
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

/// `GET /requests`: the number of completions answered so far.
async fn requests(State(fake): State<Arc<Fake>>) -> String {
    fake.answered.load(Ordering::Relaxed).to_string()
}
