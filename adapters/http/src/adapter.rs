//! The adapter every HTTP provider shares: [`HttpAdapter`] implements
//! [`AsyncRuntimeAdapter`] once — one JSON `POST` per attempt within the
//! attempt's timeout, the whole body or its server-sent events, the key
//! redacted from every failure, retries per [`RetryPolicy`], the
//! provider's fields on the execution's trace span — over a
//! [`WireFormat`], which says only what differs between providers: the
//! request body and how to read the answer (`docs/adapters.md`).
//!
//! A provider crate is its `WireFormat` and a type alias:
//!
//! ```ignore
//! pub type OpenAiAdapter = HttpAdapter<OpenAi>;
//! let adapter = OpenAiAdapter::new(OpenAiConfig::new(base_url, model))?;
//! ```

// `RuntimeFailure` is the port's error type, returned by value.
#![allow(clippy::result_large_err)]

use crate::{ConfigError, Endpoint, Event, Refusal, RetryPolicy, invalid_response};
use futures_util::StreamExt;
use serde_json::Value;
use std::fmt;
use std::time::Duration;
use templiqx::contracts::json::{self, Json, JsonMap};
use templiqx::{
    AdapterDescriptor, AdapterOutput, AsyncRuntimeAdapter, Code, OutputRecovery,
    RenderedInteraction, RuntimeFailure, StreamEvent, Usage,
};

/// What a provider's adapter must say: how a rendered interaction becomes a
/// request body, and how the answer — a whole JSON body, or a stream of
/// server-sent events — becomes an output or a failure.
///
/// Per attempt, [`HttpAdapter`] calls [`request`](WireFormat::request) once,
/// then either [`read_body`](WireFormat::read_body) or, when streaming,
/// [`read_event`](WireFormat::read_event) for every event that carries
/// data and [`end_stream`](WireFormat::end_stream) when the stream ends or
/// `read_event` says [`Flow::Done`].
pub trait WireFormat: fmt::Debug + Send + Sync + Sized + 'static {
    /// The provider's name: the adapter descriptor's name, the prefix of
    /// failure ids (`<provider>.<step>`), `gen_ai.provider.name`.
    const PROVIDER: &'static str;

    /// The host's configuration of this provider.
    type Config;

    /// What one attempt remembers between the request and its answer (a
    /// stream's accumulated text, how the output schema was lowered).
    type Attempt: Send;

    /// Checks `config` and builds the wire format and its endpoint.
    ///
    /// # Errors
    ///
    /// A [`ConfigError`] naming the setting, before anything is sent.
    fn configure(config: Self::Config) -> Result<Configured<Self>, ConfigError>;

    /// The `model` every request names (`gen_ai.request.model`).
    fn model(&self) -> &str;

    /// The JSON body of an attempt (with `"stream": true` when `stream`),
    /// and the attempt's state.
    ///
    /// # Errors
    ///
    /// `TQX_RUNTIME_PERMANENT` when the request cannot be expressed for this
    /// provider; nothing is sent.
    fn request(
        &self,
        request: &RenderedInteraction<'_>,
        stream: bool,
    ) -> Result<(Value, Self::Attempt), RuntimeFailure>;

    /// Reads a whole (non-streamed) response body.
    ///
    /// # Errors
    ///
    /// `TQX_RUNTIME_*` per `docs/adapters.md`, "Failures".
    fn read_body(&self, attempt: Self::Attempt, body: &Json) -> Result<Reply, RuntimeFailure>;

    /// Reads one server-sent event. Events whose `data` is empty or white
    /// space only (keep-alives) never reach it, nor do comment lines.
    ///
    /// # Errors
    ///
    /// `TQX_RUNTIME_*`: an error event, data that is not the wire format.
    fn read_event(
        &self,
        attempt: &mut Self::Attempt,
        event: &Event,
    ) -> Result<Flow, RuntimeFailure>;

    /// The reply once the stream has ended (`done`: `read_event` said
    /// [`Flow::Done`]; otherwise the body ended, or broke off, first: a
    /// reply that is complete without the provider's terminator stands,
    /// and for a body that broke off an `Err` here means the transport
    /// failure is reported instead).
    ///
    /// # Errors
    ///
    /// `TQX_RUNTIME_INVALID_RESPONSE` for a stream cut short, or the
    /// reply's own failure (truncation, refusal).
    fn end_stream(&self, attempt: Self::Attempt, done: bool) -> Result<Reply, RuntimeFailure>;

    /// What would avoid a refusal: the help of the failure when the server
    /// answered `refusal.status` to the body `sent` (a server that does
    /// not support a setting this wire format sends, a base URL missing
    /// its version path), recognised from the status and the provider's
    /// message, never from the server's name. `None` (the default): no
    /// advice beyond the code's. A 5xx with advice is reported
    /// `TQX_RUNTIME_PERMANENT` ([`Endpoint::post`]).
    fn advise(&self, sent: &Value, refusal: &Refusal<'_>) -> Option<String> {
        let _ = (sent, refusal);
        None
    }
}

/// What [`WireFormat::read_event`] made of an event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Nothing to forward; read on.
    Continue,
    /// A fragment of the output, forwarded as a `StreamEvent::Delta`.
    Delta(String),
    /// The provider's end-of-stream marker: stop reading.
    Done,
}

/// A provider's answer, read: the output the port validates, and what the
/// trace span records of it.
#[derive(Clone, Debug, PartialEq)]
pub struct Reply {
    /// The output, unvalidated (the port validates it).
    pub output: Json,
    /// Token usage, when the provider reports it.
    pub usage: Option<Usage>,
    /// The provider's finish or stop reasons (`gen_ai.response.finish_reasons`).
    pub finish_reasons: Vec<String>,
    /// The model that answered (`gen_ai.response.model`), when it says.
    pub model: Option<String>,
    /// The response id (`gen_ai.response.id`), when there is one.
    pub id: Option<String>,
}

impl Reply {
    /// A reply with only an output and usage.
    pub fn new(output: Json, usage: Option<Usage>) -> Reply {
        Reply {
            output,
            usage,
            finish_reasons: Vec::new(),
            model: None,
            id: None,
        }
    }

    /// `model` and `id` read from the top-level string members `model`
    /// and `id` of `body` (both providers put them there).
    #[must_use]
    pub fn identified_by(mut self, body: &Json) -> Reply {
        self.model = body.get("model").and_then(Json::as_str).map(str::to_owned);
        self.id = body.get("id").and_then(Json::as_str).map(str::to_owned);
        self
    }
}

/// What [`WireFormat::configure`] returns: the wire format and the settings
/// every HTTP adapter has.
#[derive(Debug)]
pub struct Configured<W> {
    /// The provider's wire format.
    pub wire: W,
    /// Where requests go, with their headers and the key (for redaction).
    pub endpoint: Endpoint,
    /// The overall deadline of an attempt when the contract sets no
    /// `runtime_policy.timeout_ms`.
    pub timeout: Duration,
    /// How long a streamed attempt may receive nothing before it fails as
    /// idle; `None`: only the overall deadline bounds it.
    pub idle_timeout: Option<Duration>,
    /// Backoff and `Retry-After` waits between attempts.
    pub retry: RetryPolicy,
    /// Capabilities the adapter provides (its descriptor's).
    pub capabilities: &'static [&'static str],
}

/// An [`AsyncRuntimeAdapter`] over a provider's [`WireFormat`]. Its `Debug`
/// shows no key.
#[derive(Debug)]
pub struct HttpAdapter<W> {
    descriptor: AdapterDescriptor,
    endpoint: Endpoint,
    timeout: Duration,
    idle_timeout: Option<Duration>,
    retry: RetryPolicy,
    wire: W,
    recovery: OutputRecovery,
}

impl<W: WireFormat> HttpAdapter<W> {
    /// Checks the configuration and builds the adapter.
    ///
    /// # Errors
    ///
    /// The provider's [`ConfigError`] ([`WireFormat::configure`]): a bad
    /// base URL, header, model or setting. A zero timeout or idle timeout
    /// is refused here for every provider.
    pub fn new(config: W::Config) -> Result<HttpAdapter<W>, ConfigError> {
        let Configured {
            wire,
            endpoint,
            timeout,
            idle_timeout,
            retry,
            capabilities,
        } = W::configure(config)?;
        if timeout.is_zero() {
            return Err(ConfigError::Setting("the timeout must be positive".into()));
        }
        if idle_timeout.is_some_and(|t| t.is_zero()) {
            return Err(ConfigError::Setting(
                "the idle timeout must be positive".into(),
            ));
        }
        Ok(HttpAdapter {
            descriptor: AdapterDescriptor::new(W::PROVIDER, capabilities.iter().copied()),
            endpoint,
            timeout,
            idle_timeout,
            retry,
            wire,
            recovery: OutputRecovery::Off,
        })
    }

    /// The adapter with output recovery `recovery` (default
    /// [`OutputRecovery::Off`]): with `On`, a reply whose text does not
    /// parse or validate as written — the JSON in a Markdown fence or in
    /// prose, trailing commas or single quotes — is recovered by the port
    /// and receipted with a `TQX_OUTPUT_RECOVERED` warning
    /// (`docs/runtime.md`, "Output recovery"; `docs/adapters.md`).
    #[must_use]
    pub fn with_output_recovery(mut self, recovery: OutputRecovery) -> HttpAdapter<W> {
        self.recovery = recovery;
        self
    }

    /// The JSON body sent for `request` (`stream`: a streamed attempt's).
    /// Exactly what goes over the wire.
    ///
    /// # Errors
    ///
    /// As [`WireFormat::request`].
    pub fn request_body(
        &self,
        request: &RenderedInteraction<'_>,
        stream: bool,
    ) -> Result<Value, RuntimeFailure> {
        self.wire.request(request, stream).map(|(body, _)| body)
    }

    /// The provider's wire format (its configuration).
    pub fn wire(&self) -> &W {
        &self.wire
    }

    /// The URL requests go to.
    pub fn url(&self) -> &str {
        self.endpoint.url()
    }

    /// The attempt's overall deadline: `runtime_policy.timeout_ms`, else
    /// the configured timeout.
    fn timeout(&self, request: &RenderedInteraction<'_>) -> Duration {
        request
            .interaction
            .runtime_policy
            .timeout_ms
            .map(|ms| Duration::from_millis(u64::from(ms)))
            .unwrap_or(self.timeout)
    }

    /// One attempt within its overall deadline (and, streamed, its idle
    /// timeout), every failure's texts redacted.
    async fn attempt(
        &self,
        request: &RenderedInteraction<'_>,
        sink: Option<&mut (dyn FnMut(StreamEvent) + Send)>,
    ) -> Result<AdapterOutput, RuntimeFailure> {
        templiqx::trace::record_request_model(self.wire.model());
        let streamed = sink.is_some();
        let idle = self.idle_timeout.filter(|_| streamed);
        let progress = Progress::new();
        let run = async {
            let (body, attempt) = self.wire.request(request, streamed)?;
            let advise = |refusal: &Refusal<'_>| self.wire.advise(&body, refusal);
            let post = self.endpoint.post(&body, &advise);
            let response = match idle {
                None => post.await?,
                Some(idle) => tokio::time::timeout(idle, post)
                    .await
                    .map_err(|_| progress.idle_failure(W::PROVIDER, idle))??,
            };
            progress.touch(0);
            match sink {
                None => {
                    let body = self.endpoint.json(response).await?;
                    self.wire.read_body(attempt, &body)
                }
                Some(sink) if is_event_stream(&response) => {
                    self.stream(response, attempt, sink, &progress, idle).await
                }
                // A server or proxy that ignored `"stream": true` (or
                // answered an error object with status 200) sent a whole
                // body: read it as one, and forward its output as one delta.
                Some(sink) => {
                    let body = self.endpoint.json(response).await?;
                    let reply = self.wire.read_body(attempt, &body)?;
                    sink(StreamEvent::Delta {
                        text: templiqx::contracts::canonical::to_canonical_string(&reply.output),
                    });
                    Ok(reply)
                }
            }
        };
        let deadline = self.timeout(request);
        let reply = match tokio::time::timeout(deadline, run).await {
            Ok(result) => result,
            Err(_) => Err(progress.deadline_failure(W::PROVIDER, deadline, streamed)),
        }
        .map_err(|failure| self.endpoint.redacted(failure))?;
        templiqx::trace::record_response(
            &reply.finish_reasons,
            reply.model.as_deref(),
            reply.id.as_deref(),
        );
        Ok(AdapterOutput {
            output: reply.output,
            usage: reply.usage,
        })
    }

    /// Reads a streamed answer: every event with data goes to the wire
    /// format; its deltas go to `sink`.
    /// Every byte of the body counts as the server's sign of life for the
    /// idle timeout `idle` (keep-alives too); `progress` counts the bytes
    /// and the deltas.
    async fn stream(
        &self,
        response: crate::reqwest::Response,
        mut attempt: W::Attempt,
        sink: &mut (dyn FnMut(StreamEvent) + Send),
        progress: &Progress,
        idle: Option<Duration>,
    ) -> Result<Reply, RuntimeFailure> {
        let bytes = response.bytes_stream().inspect(|chunk| {
            if let Ok(chunk) = chunk {
                progress.touch(chunk.len());
            }
        });
        let events = crate::sse::events(bytes)
            .map(|item| item.map_err(|e| crate::transport_failure(W::PROVIDER, e)));
        let mut events = std::pin::pin!(events);
        let mut done = false;
        loop {
            let next = match idle {
                None => events.next().await,
                Some(idle) => loop {
                    // `next` keeps what it read in the stream, so waiting
                    // again after a timeout loses nothing.
                    match tokio::time::timeout_at(progress.last_byte() + idle, events.next()).await
                    {
                        Ok(next) => break next,
                        Err(_) if progress.last_byte() + idle <= tokio::time::Instant::now() => {
                            return Err(progress.idle_failure(W::PROVIDER, idle));
                        }
                        // Bytes came, but no whole event yet: wait on.
                        Err(_) => {}
                    }
                },
            };
            let Some(event) = next else { break };
            let event = match event {
                Ok(event) => event,
                // The body broke off: if the answer was already complete
                // (the provider's stop reason arrived, only the terminator
                // is missing), it stands; otherwise the transport failure.
                Err(failure) => return self.wire.end_stream(attempt, false).or(Err(failure)),
            };
            // Keep-alives: proxies and load balancers send events with no
            // data (`data:`, `data: `), and providers name some (`event:
            // ping`); none carries a part of the answer.
            if event.data.trim().is_empty() {
                continue;
            }
            match self.wire.read_event(&mut attempt, &event)? {
                Flow::Continue => {}
                Flow::Delta(text) => {
                    progress.delta(&text);
                    sink(StreamEvent::Delta { text });
                }
                Flow::Done => {
                    done = true;
                    break;
                }
            }
        }
        self.wire.end_stream(attempt, done)
    }
}

impl<W: WireFormat> AsyncRuntimeAdapter for HttpAdapter<W> {
    fn descriptor(&self) -> &AdapterDescriptor {
        &self.descriptor
    }

    fn redact(&self, text: &str) -> String {
        self.endpoint.redact(text)
    }

    fn output_recovery(&self) -> OutputRecovery {
        self.recovery
    }

    async fn invoke(
        &self,
        request: &RenderedInteraction<'_>,
    ) -> Result<AdapterOutput, RuntimeFailure> {
        self.attempt(request, None).await
    }

    async fn invoke_streaming(
        &self,
        request: &RenderedInteraction<'_>,
        sink: &mut (dyn FnMut(StreamEvent) + Send),
    ) -> Result<AdapterOutput, RuntimeFailure> {
        self.attempt(request, Some(sink)).await
    }

    fn before_retry(
        &self,
        _request: &RenderedInteraction<'_>,
        failure: &RuntimeFailure,
        attempts_made: u32,
    ) -> impl std::future::Future<Output = bool> + Send {
        self.retry.before_retry(failure, attempts_made)
    }
}

/// Whether a response is a server-sent event stream (`Content-Type:
/// text/event-stream`, parameters and case aside).
fn is_event_stream(response: &crate::reqwest::Response) -> bool {
    response
        .headers()
        .get(crate::reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("text/event-stream"))
}

/// The data of an event as JSON, read by the strict reader.
///
/// # Errors
///
/// `TQX_RUNTIME_INVALID_RESPONSE` (`<provider>.invalid_response`) when it
/// is not JSON.
pub fn event_json(provider: &str, event: &Event) -> Result<Json, RuntimeFailure> {
    json::parse(&event.data).map_err(|e| {
        invalid_response(
            provider,
            format!("a stream event is not JSON ({})", e.message),
        )
    })
}

/// The `error` member of a body or stream chunk when it reports an error:
/// only a non-null object counts (`"error": null`, which some servers put
/// in every chunk, is no error).
pub fn error_member(value: &Json) -> Option<&JsonMap> {
    value.get("error").and_then(Json::as_object)
}

/// What one attempt received so far, for the failures of its timeouts:
/// when the last byte came, how many bytes of the body, and the deltas of
/// output (count, characters, UTF-8 bytes). Shared between the attempt
/// and its deadline, which drops the attempt when it fires.
struct Progress {
    state: std::sync::Mutex<ProgressState>,
}

#[derive(Clone, Copy)]
struct ProgressState {
    started: tokio::time::Instant,
    last_byte: tokio::time::Instant,
    answered: bool,
    body_bytes: usize,
    deltas: usize,
    chars: usize,
    bytes: usize,
}

impl Progress {
    fn new() -> Progress {
        let now = tokio::time::Instant::now();
        Progress {
            state: std::sync::Mutex::new(ProgressState {
                started: now,
                last_byte: now,
                answered: false,
                body_bytes: 0,
                deltas: 0,
                chars: 0,
                bytes: 0,
            }),
        }
    }

    fn get(&self) -> ProgressState {
        *self
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn update(&self, f: impl FnOnce(&mut ProgressState)) {
        f(&mut self
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner));
    }

    /// The response started, or `n` more bytes of its body arrived.
    fn touch(&self, n: usize) {
        self.update(|s| {
            s.last_byte = tokio::time::Instant::now();
            s.answered = true;
            s.body_bytes += n;
        });
    }

    /// A delta of output was forwarded.
    fn delta(&self, text: &str) {
        self.update(|s| {
            s.deltas += 1;
            s.chars += text.chars().count();
            s.bytes += text.len();
        });
    }

    fn last_byte(&self) -> tokio::time::Instant {
        self.get().last_byte
    }

    /// How much output had arrived, in words.
    fn received(&self) -> String {
        let s = self.get();
        if s.deltas > 0 {
            format!(
                "{} delta{} of output had arrived, {} character{} ({} bytes)",
                s.deltas,
                plural(s.deltas),
                s.chars,
                plural(s.chars),
                s.bytes
            )
        } else if s.body_bytes > 0 {
            format!(
                "no output had arrived ({} bytes of events without any)",
                s.body_bytes
            )
        } else if s.answered {
            "no output had arrived (the response had started)".into()
        } else {
            "nothing had arrived".into()
        }
    }

    /// The overall deadline passed: `TQX_RUNTIME_TIMEOUT`
    /// (`<p>.timeout`), saying whether the answer was still arriving and
    /// how much of it had.
    fn deadline_failure(
        &self,
        provider: &str,
        deadline: Duration,
        streamed: bool,
    ) -> RuntimeFailure {
        let s = self.get();
        let ms = deadline.as_millis();
        let id = crate::failure_id(provider, "timeout");
        if !streamed || s.deltas == 0 {
            let detail = if streamed {
                format!(
                    "{provider} did not answer within the attempt's overall deadline of {ms} ms: {}",
                    self.received()
                )
            } else {
                format!(
                    "{provider} did not answer within the attempt's overall deadline of {ms} ms"
                )
            };
            return RuntimeFailure::new(Code::RuntimeTimeout, id, detail);
        }
        let last_at = s.last_byte.saturating_duration_since(s.started);
        let quiet_for = deadline.saturating_sub(last_at).as_millis();
        RuntimeFailure::new(
            Code::RuntimeTimeout,
            id,
            format!(
                "the attempt's overall deadline of {ms} ms passed while {provider} was still \
                 answering: {} (the last byte {quiet_for} ms before the deadline)",
                self.received()
            ),
        )
        .with_help(
            "the answer was still arriving: allow more time (`runtime_policy.timeout_ms`, or \
             `--timeout-ms` when the contract sets none) or cap the output \
             (`runtime_policy.max_output_tokens`)",
        )
    }

    /// Nothing arrived for `idle`: `TQX_RUNTIME_TIMEOUT`
    /// (`<p>.idle_timeout`), saying how much had arrived before.
    fn idle_failure(&self, provider: &str, idle: Duration) -> RuntimeFailure {
        let s = self.get();
        let when = if s.answered {
            "the stream stalled"
        } else {
            "the response did not start"
        };
        RuntimeFailure::new(
            Code::RuntimeTimeout,
            crate::failure_id(provider, "idle_timeout"),
            format!(
                "{provider} sent nothing for {} ms, the idle timeout ({when}): {}",
                idle.as_millis(),
                self.received()
            ),
        )
        .with_help(
            "the server stopped sending: retry, or allow it longer silences \
             (`--idle-timeout-ms`; the adapter's `idle_timeout`)",
        )
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
