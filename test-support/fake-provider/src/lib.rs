//! A scripted fake provider for the HTTP adapters' test suites: an axum
//! server on `127.0.0.1:0` that records every request and answers each with
//! the next scripted [`Reply`] — a raw body, a `text/event-stream` body
//! sent whole, in chunks of a chosen size or in parts at a chosen pace
//! (a slow stream, a stall), a reply after a delay, or no answer at all;
//! by default every request at once, or, as a local server with few slots
//! does (llama.cpp with one), a given number at a time, the others queued
//! ([`serve_with_slots`]). Also the contract the suites execute
//! ([`lease_contract`]) and [`render`].
//!
//! Server-sent event bodies are built with [`SseBody`], which writes the
//! events with a chosen line ending (LF, CRLF or CR: WHATWG HTML, 9.2.6
//! "Interpreting an event stream", accepts all three) and can put
//! keep-alives — comment lines and events without data, as proxies and
//! load balancers send them — before, between and after the real events;
//! [`openai_deltas`] writes a whole OpenAI-compatible stream of a text in
//! deltas of a chosen number of characters (one, as a model streaming
//! token by token may).

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::post;
use serde_json::{Value, json};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use templiqx::Interaction;
use templiqx::contracts::CapabilityProfile;

/// One scripted answer.
#[derive(Clone, Debug)]
pub enum Reply {
    /// A status, extra headers and a JSON body.
    Raw(u16, Vec<(&'static str, String)>, String),
    /// HTTP 200, `text/event-stream`, this body, sent in chunks of at most
    /// `chunk` bytes (`None`: in one piece).
    Sse {
        /// The whole event-stream body.
        body: String,
        /// The largest chunk the server writes at once.
        chunk: Option<usize>,
    },
    /// HTTP 200, `text/event-stream`, this body, then the connection
    /// breaks off (the chunked body never gets its last chunk).
    SseCut(String),
    /// HTTP 200, `text/event-stream`, each part written after waiting its
    /// delay (a slow stream; a long delay is a stall); the body ends after
    /// the last part.
    Paced(Vec<(Duration, String)>),
    /// Waits, then gives the reply (a model that takes this long; with
    /// [`serve_with_slots`], the slot is held meanwhile).
    After(Duration, Box<Reply>),
    /// Never answers.
    Hang,
}

impl Reply {
    /// An event stream sent in one piece.
    pub fn sse(body: impl Into<String>) -> Reply {
        Reply::Sse {
            body: body.into(),
            chunk: None,
        }
    }

    /// A JSON body with status 200.
    pub fn ok(body: impl Into<String>) -> Reply {
        Reply::Raw(200, Vec::new(), body.into())
    }
}

/// The fake's state: the replies still to give, and every request seen
/// (headers and JSON body), in order.
#[derive(Default)]
pub struct Fake {
    replies: Mutex<VecDeque<Reply>>,
    /// With [`serve_with_slots`]: the requests served at once; the others
    /// wait, first come first served.
    slots: Option<Arc<tokio::sync::Semaphore>>,
    /// The requests received, in order.
    pub seen: Mutex<Vec<(HeaderMap, Value)>>,
}

impl Fake {
    /// How many requests arrived.
    pub fn requests(&self) -> usize {
        self.seen.lock().unwrap().len()
    }

    /// The JSON body of request number `n` (0-based).
    pub fn body(&self, n: usize) -> Value {
        self.seen.lock().unwrap()[n].1.clone()
    }

    /// The headers of request number `n` (0-based).
    pub fn headers(&self, n: usize) -> HeaderMap {
        self.seen.lock().unwrap()[n].0.clone()
    }
}

async fn handle(State(fake): State<Arc<Fake>>, headers: HeaderMap, body: String) -> Response {
    let body: Value = serde_json::from_str(&body).expect("the adapter sends JSON");
    // A request waits for a slot before the server looks at it; the slot
    // is held until its response starts.
    let _slot = match &fake.slots {
        Some(slots) => Some(
            Arc::clone(slots)
                .acquire_owned()
                .await
                .expect("never closed"),
        ),
        None => None,
    };
    fake.seen.lock().unwrap().push((headers, body));
    let mut reply = fake.replies.lock().unwrap().pop_front().expect("a reply");
    while let Reply::After(delay, then) = reply {
        tokio::time::sleep(delay).await;
        reply = *then;
    }
    match reply {
        Reply::Raw(status, headers, body) => {
            let mut r = Response::builder()
                .status(status)
                .header("content-type", "application/json");
            for (k, v) in headers {
                r = r.header(k, v);
            }
            r.body(Body::from(body)).unwrap()
        }
        Reply::Sse { body, chunk } => {
            let bytes = body.into_bytes();
            let body = match chunk {
                None => Body::from(bytes),
                Some(size) => {
                    let chunks: Vec<Result<Bytes, std::io::Error>> = bytes
                        .chunks(size.max(1))
                        .map(|c| Ok(Bytes::copy_from_slice(c)))
                        .collect();
                    Body::from_stream(futures_util::stream::iter(chunks))
                }
            };
            Response::builder()
                .status(200)
                .header("content-type", "text/event-stream")
                .body(body)
                .unwrap()
        }
        Reply::SseCut(body) => {
            use futures_util::StreamExt;
            // The break comes after the body has been written out, so the
            // client has the response and its data before the cut.
            let body = futures_util::stream::iter([Ok::<_, std::io::Error>(Bytes::from(body))])
                .chain(futures_util::stream::once(async {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    Err(std::io::Error::other("the fake breaks the connection"))
                }));
            Response::builder()
                .status(200)
                .header("content-type", "text/event-stream")
                .body(Body::from_stream(body))
                .unwrap()
        }
        Reply::Paced(parts) => {
            use futures_util::StreamExt;
            let body = futures_util::stream::iter(parts).then(|(delay, part)| async move {
                tokio::time::sleep(delay).await;
                Ok::<_, std::io::Error>(Bytes::from(part))
            });
            Response::builder()
                .status(200)
                .header("content-type", "text/event-stream")
                .body(Body::from_stream(body))
                .unwrap()
        }
        Reply::Hang => {
            tokio::time::sleep(Duration::from_secs(3600)).await;
            unreachable!("the client gives up first")
        }
        Reply::After(..) => unreachable!("waited out above"),
    }
}

/// Starts a fake answering `POST route` on 127.0.0.1:0 with `replies`, in
/// order; returns `http://127.0.0.1:PORT` and the fake. A request beyond
/// the script fails the test (the handler panics, the client sees the
/// connection close).
pub async fn serve(route: &str, replies: Vec<Reply>) -> (String, Arc<Fake>) {
    start(route, replies, None).await
}

/// [`serve`], serving at most `slots` requests at once, as a local model
/// server with that many slots does: the others wait, in the order they
/// came, until a response starts (a reply's [`Reply::After`] delay is spent
/// holding the slot). One slot serves one request at a time.
pub async fn serve_with_slots(
    route: &str,
    replies: Vec<Reply>,
    slots: usize,
) -> (String, Arc<Fake>) {
    let slots = Arc::new(tokio::sync::Semaphore::new(slots.max(1)));
    start(route, replies, Some(slots)).await
}

async fn start(
    route: &str,
    replies: Vec<Reply>,
    slots: Option<Arc<tokio::sync::Semaphore>>,
) -> (String, Arc<Fake>) {
    let fake = Arc::new(Fake {
        replies: Mutex::new(replies.into()),
        slots,
        ..Fake::default()
    });
    let app = Router::new()
        .route(route, post(handle))
        .with_state(fake.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{addr}"), fake)
}

/// A base URL where nothing listens (a port bound, then released).
pub fn refused_base() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    base
}

/// Where keep-alives go in an [`SseBody`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeepAlive {
    /// None.
    None,
    /// Before the first event, between every two events, and after the
    /// last.
    Everywhere,
}

/// The keep-alive blocks an [`SseBody`] uses: a comment, an empty `data:`
/// line, `data: ` with one space, data of white space only, and a named
/// event with empty data (Anthropic's `event: ping` as proxies cut it).
pub const KEEP_ALIVES: &[&[&str]] = &[
    &[": keep-alive"],
    &["data:"],
    &["data: "],
    &["data:  \t "],
    &["event: ping", "data:"],
    &[":"],
    // Fields that set state but dispatch nothing without data.
    &["id: 7", "retry: 3000"],
];

/// An event-stream body being written: events of `field: value` lines,
/// each ended by a blank line, with one line ending throughout.
#[derive(Clone, Debug)]
pub struct SseBody {
    events: Vec<Vec<String>>,
}

impl SseBody {
    /// An empty body.
    pub fn new() -> SseBody {
        SseBody { events: Vec::new() }
    }

    /// Adds an event of one `data:` line.
    #[must_use]
    pub fn data(mut self, data: impl AsRef<str>) -> SseBody {
        self.events.push(vec![format!("data: {}", data.as_ref())]);
        self
    }

    /// Adds an event with an `event:` name and one `data:` line.
    #[must_use]
    pub fn named(mut self, name: &str, data: impl AsRef<str>) -> SseBody {
        self.events.push(vec![
            format!("event: {name}"),
            format!("data: {}", data.as_ref()),
        ]);
        self
    }

    /// The body with `ending` after every line and keep-alives where
    /// `keep_alive` says (each position cycles through [`KEEP_ALIVES`]).
    pub fn render(&self, ending: &str, keep_alive: KeepAlive) -> String {
        let mut blocks: Vec<Vec<String>> = Vec::new();
        let mut k = 0;
        let mut keep = |blocks: &mut Vec<Vec<String>>| {
            if keep_alive == KeepAlive::Everywhere {
                blocks.push(
                    KEEP_ALIVES[k % KEEP_ALIVES.len()]
                        .iter()
                        .map(|l| l.to_string())
                        .collect(),
                );
                k += 1;
            }
        };
        keep(&mut blocks);
        for event in &self.events {
            blocks.push(event.clone());
            keep(&mut blocks);
        }
        let mut out = String::new();
        for block in blocks {
            for line in block {
                out.push_str(&line);
                out.push_str(ending);
            }
            out.push_str(ending);
        }
        out
    }
}

impl Default for SseBody {
    fn default() -> Self {
        SseBody::new()
    }
}

/// An OpenAI-compatible Chat Completions stream (`text/event-stream`)
/// whose content is `text`, one chunk event per `per_delta` characters (1:
/// every character its own delta, a multi-byte character whole), then a
/// chunk with `finish_reason: stop`, one with `usage` and `[DONE]`: what a
/// model that streams token by token sends, for tests of what a consumer
/// makes of the deltas (`docs/runtime.md`, "Typed streaming").
pub fn openai_deltas(text: &str, per_delta: usize) -> Reply {
    let chunk = |delta: Value, finish: Option<&str>| {
        json!({ "id": "c", "object": "chat.completion.chunk", "created": 1, "model": "fake-model",
                "choices": [{ "index": 0, "delta": delta, "finish_reason": finish }] })
        .to_string()
    };
    let chars: Vec<char> = text.chars().collect();
    let mut body = SseBody::new().data(chunk(json!({ "role": "assistant", "content": "" }), None));
    for piece in chars.chunks(per_delta.max(1)) {
        let piece: String = piece.iter().collect();
        body = body.data(chunk(json!({ "content": piece }), None));
    }
    let usage = json!({ "id": "c", "object": "chat.completion.chunk", "choices": [],
        "usage": { "prompt_tokens": 42, "completion_tokens": chars.len(), "total_tokens": 42 + chars.len() } });
    let body = body
        .data(chunk(json!({}), Some("stop")))
        .data(usage.to_string())
        .data("[DONE]");
    Reply::sse(body.render("\n", KeepAlive::None))
}

/// The lease-terms contract the suites execute: a system, a developer
/// (`developer_text`) and a user message (the clause), an object output
/// `{rent: number >= 0, notice_days: integer >= 0}` both required,
/// `extra_schema` appended to `rent`'s schema, and `policy` as its
/// `runtime_policy` (a YAML flow mapping).
pub fn lease_contract(developer_text: &str, policy: &str, extra_schema: &str) -> Interaction {
    let text = format!(
        r#"api_version: templiqx/v1alpha1
id: lease-terms
version: 0.1.0
inputs:
  clause: {{ schema: {{ type: string }}, required: true }}
capabilities: [structured_output]
messages:
  - role: system
    content: [{{ kind: text, value: "Extract the lease terms." }}]
  - role: developer
    content: [{{ kind: text, value: "{developer_text}" }}]
  - role: user
    content:
      - {{ kind: interpolate, expression: {{ kind: ref, path: inputs.clause }} }}
output_schema:
  type: object
  additionalProperties: false
  required: [rent, notice_days]
  properties:
    rent: {{ type: number, minimum: 0{extra_schema} }}
    notice_days: {{ type: integer, minimum: 0 }}
runtime_policy: {policy}
"#
    );
    compile(&text)
}

/// Compiles a contract's YAML for the `structured_output` profile; panics
/// with the rendered diagnostics when it does not compile.
pub fn compile(text: &str) -> Interaction {
    let c = templiqx_build::compile_str(
        text,
        "contract.yaml",
        &CapabilityProfile::parse_list("structured_output"),
    );
    assert!(c.diagnostics.is_empty(), "{}", c.render_diagnostics());
    c.interaction.unwrap()
}

/// The lease-terms output both suites' servers answer.
pub const OUTPUT: &str = r#"{"rent":900,"notice_days":30}"#;

/// Renders a contract with the clause the suites use as `inputs.clause`
/// (contracts without inputs ignore it: pass a contract that declares
/// `clause` or none).
pub fn render(i: &Interaction) -> templiqx::RenderedInteraction<'_> {
    let inputs = if i.inputs.is_empty() {
        json!({})
    } else {
        json!({ "clause": "Rent is EUR 900 per month; notice 30 days." })
    };
    templiqx::render(
        i,
        inputs.as_object().unwrap(),
        json!({}).as_object().unwrap(),
    )
    .unwrap()
}

/// Executes `request` once per code in `codes` on `adapter`, expecting
/// that failure each time, and asserts that no run of `secret_part` (any
/// ASCII case) is in any text of the error.
pub async fn failures<A: templiqx::AsyncRuntimeAdapter>(
    adapter: &A,
    request: &templiqx::RenderedInteraction<'_>,
    codes: &[templiqx::Code],
    secret_part: &str,
) -> Vec<templiqx::ExecutionError> {
    let mut errors = Vec::new();
    for &expected in codes {
        let error = adapter.execute(request).await.unwrap_err();
        assert_eq!(error.failure.code, expected, "{error}");
        for text in [
            format!("{error}"),
            format!("{:?}", error.diagnostics),
            serde_json::to_string(&error.failure).unwrap(),
        ] {
            assert!(
                !text
                    .to_ascii_lowercase()
                    .contains(&secret_part.to_ascii_lowercase()),
                "part of the key leaked into {text}"
            );
        }
        errors.push(error);
    }
    errors
}

/// The line endings an event stream may use.
pub const LINE_ENDINGS: &[(&str, &str)] = &[("LF", "\n"), ("CRLF", "\r\n"), ("CR", "\r")];

/// The Retry-After script: `status` with `Retry-After: 1`, then `ok`, then
/// `status` with `Retry-After: 120`, each failure with `body`. For
/// [`assert_retry_after`].
pub fn retry_after_script(status: u16, body: &str, ok: Reply) -> Vec<Reply> {
    let failing = |after: &str| {
        Reply::Raw(
            status,
            vec![("retry-after", after.to_owned())],
            body.to_owned(),
        )
    };
    vec![failing("1"), ok, failing("120")]
}

/// Executes twice against [`retry_after_script`] on an adapter whose
/// `max_retry_after` is below 120 s and whose backoff is far below 1 s:
/// the first execution waits out the 1 s and succeeds on its second
/// attempt; the second is not retried and reports `code`/`id` with
/// `retry_after_ms` 120000 in its failure and receipt. Returns that error.
pub async fn assert_retry_after<A: templiqx::AsyncRuntimeAdapter>(
    adapter: &A,
    request: &templiqx::RenderedInteraction<'_>,
    code: templiqx::Code,
    id: &str,
) -> templiqx::ExecutionError {
    let started = std::time::Instant::now();
    let execution = adapter.execute(request).await.unwrap();
    assert_eq!(execution.attempts, 2);
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "Retry-After not waited out: {:?}",
        started.elapsed()
    );
    let error = adapter.execute(request).await.unwrap_err();
    assert_eq!((error.failure.code, error.failure.id.as_str()), (code, id));
    assert_eq!(error.failure.retry_after_ms, Some(120_000));
    assert_eq!(error.attempts, 1, "120 s does not fit the budget");
    assert_eq!(error.receipt, error.failure.receipt());
    error
}

/// `body` as every variant a healthy stream may arrive in: each line
/// ending ([`LINE_ENDINGS`]), keep-alives everywhere, sent whole, a byte
/// at a time (a CR split from its LF, the byte order mark split too) and
/// in 7-byte pieces, the CRLF variants behind a UTF-8 byte order mark
/// (which the standard removes); with a name per variant.
pub fn stream_variants(body: &SseBody) -> Vec<(String, Reply)> {
    let mut variants = Vec::new();
    for (name, ending) in LINE_ENDINGS {
        for chunk in [None, Some(1), Some(7)] {
            let bom = if *ending == "\r\n" { "\u{feff}" } else { "" };
            let body = format!("{bom}{}", body.render(ending, KeepAlive::Everywhere));
            variants.push((
                format!("{name}, chunks of {chunk:?}"),
                Reply::Sse { body, chunk },
            ));
        }
    }
    variants
}

/// Executes `request` streamed once per case name (the fake answering with
/// [`stream_variants`] in order) and asserts each gives `output`, exactly
/// `deltas`, `output_tokens` and one attempt.
pub async fn assert_streams<A: templiqx::AsyncRuntimeAdapter>(
    adapter: &A,
    request: &templiqx::RenderedInteraction<'_>,
    cases: &[String],
    output: &Value,
    deltas: &[&str],
    output_tokens: u64,
) {
    for case in cases {
        let mut seen = Vec::new();
        let execution = adapter
            .execute_streaming(request, &mut |e| {
                if let templiqx::StreamEvent::Delta { text } = e {
                    seen.push(text);
                }
            })
            .await
            .unwrap_or_else(|e| panic!("{case}: {e}"));
        assert_eq!(&execution.output, output, "{case}");
        assert_eq!(seen, deltas, "{case}");
        assert_eq!(
            execution.usage.unwrap().output_tokens,
            output_tokens,
            "{case}"
        );
        assert_eq!(execution.attempts, 1, "{case}");
    }
}
