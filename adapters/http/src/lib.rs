//! What the Templiqx HTTP provider adapters share (`docs/adapters.md`).
//!
//! - [`HttpAdapter`]: the `AsyncRuntimeAdapter` of every HTTP provider,
//!   over a [`WireFormat`] that says only what differs (the request body,
//!   reading a body or a stream's events); a provider crate is its wire
//!   format and a type alias.
//! - [`ApiKey`]: a secret that never appears in `Debug`, errors, failure
//!   details, receipts or fingerprints; [`ApiKey::redact`] scrubs it from
//!   any text a provider echoes back.
//! - [`Endpoint`]: one JSON `POST` per attempt, HTTP statuses and
//!   transport errors mapped to the `TQX_RUNTIME_*` codes
//!   ([`status_failure`], the table in `docs/adapters.md`, "Failures"),
//!   the provider's message quoted by its first meaningful line
//!   ([`error_message`], [`headline`]) and kept whole, the wire format's
//!   advice as the failure's help ([`Refusal`]). [`HttpAdapter`] bounds
//!   each attempt by its overall deadline and a stream by its idle
//!   timeout (`docs/adapters.md`, "Timeouts").
//! - [`RetryPolicy`]: capped exponential backoff with jitter, and waiting out
//!   `Retry-After` ([`retry_after`], RFC 9110 section 10.2.3) when it fits
//!   the budget; [`RetryPolicy::before_retry`] is what the adapters'
//!   `AsyncRuntimeAdapter::before_retry` returns.
//! - [`Endpoint::events`]: server-sent events from a streamed response,
//!   parsed by [`sse`] (the WHATWG rules, in time linear in the body).
//! - [`output_value`]: the model's text as the JSON output the port
//!   validates.

// `RuntimeFailure` is the port's error type, returned by value.
#![allow(clippy::result_large_err)]

use futures_util::{Stream, StreamExt};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use std::fmt;
use std::future::Future;
use std::time::{Duration, SystemTime};
use templiqx::contracts::json::{self, Json};
use templiqx::{Code, RuntimeFailure};

mod adapter;
pub mod sse;

pub use adapter::{Configured, Flow, HttpAdapter, Reply, WireFormat, error_member, event_json};

pub use reqwest;
pub use sse::Event;

/// An API key. Its `Debug` form is `ApiKey(<redacted>)`; it has no
/// `Display` and no `Serialize`, so it cannot reach a log line, an error, a
/// receipt or a fingerprint by accident.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps a key.
    ///
    /// # Errors
    ///
    /// [`ConfigError::ApiKey`] when the key is empty or holds anything but
    /// visible ASCII (`!` to `~`: no inner white space, control characters
    /// or non-ASCII), so it always fits an HTTP header.
    ///
    /// White space around the key (a copy-paste or `.env` slip) is removed:
    /// servers trim it, so the key they echo is the trimmed one, and that
    /// is the one redaction must know.
    pub fn new(key: impl Into<String>) -> Result<ApiKey, ConfigError> {
        let key = key.into();
        let key = key.trim().to_owned();
        // Visible ASCII only (`!` to `~`): `HeaderValue` would also take
        // spaces, tabs and bytes above 0x7F, which no provider's key holds.
        if key.is_empty() || !key.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(ConfigError::ApiKey(
                "an API key must be non-empty visible ASCII".into(),
            ));
        }
        Ok(ApiKey(key))
    }

    /// The key in the environment variable `var`, or `None` when it is unset
    /// or empty.
    ///
    /// # Errors
    ///
    /// [`ConfigError::ApiKey`] when it is set but not a valid key (the
    /// message names the variable, never the value).
    pub fn from_env(var: &str) -> Result<Option<ApiKey>, ConfigError> {
        match std::env::var(var) {
            Ok(v) if v.is_empty() => Ok(None),
            Ok(v) => ApiKey::new(v).map(Some).map_err(|_| {
                ConfigError::ApiKey(format!(
                    "the environment variable `{var}` does not hold a valid API key (non-empty visible ASCII)"
                ))
            }),
            Err(std::env::VarError::NotPresent) => Ok(None),
            Err(std::env::VarError::NotUnicode(_)) => Err(ConfigError::ApiKey(format!(
                "the environment variable `{var}` is not valid Unicode"
            ))),
        }
    }

    /// The key itself, for building the one header that carries it.
    pub fn expose_secret(&self) -> &str {
        &self.0
    }

    /// A header value carrying `prefix` and the key, marked sensitive (so
    /// `reqwest`/`http` never print it).
    pub fn header_value(&self, prefix: &str) -> HeaderValue {
        let mut v = HeaderValue::from_str(&format!("{prefix}{}", self.0))
            .unwrap_or_else(|_| HeaderValue::from_static(""));
        v.set_sensitive(true);
        v
    }

    /// `text` with the key, and every run that matches at least
    /// [`MIN_SECRET_FRAGMENT`] consecutive characters of it ignoring ASCII
    /// case (a key cut short, with a character dropped, upper-cased or
    /// masked in the middle), replaced by `<redacted>`.
    pub fn redact(&self, text: &str) -> String {
        redact_fragments(text, &[self.0.as_str()])
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(<redacted>)")
    }
}

/// The shortest run of a secret that redaction hides on its own (a shorter
/// secret is hidden whole): long enough that ordinary text does not match
/// it by chance, short enough that a key cut, masked (`sk-abc…****…wxyz`)
/// or echoed with one character dropped leaves nothing usable.
pub const MIN_SECRET_FRAGMENT: usize = 8;

/// `text` with every run matching, ignoring ASCII case, at least
/// [`MIN_SECRET_FRAGMENT`] consecutive characters of one of `secrets` (all
/// of a shorter secret) replaced by `<redacted>`. Secrets are ASCII (they
/// are header values), so a matched run is ASCII and cutting it keeps
/// `text` UTF-8.
pub fn redact_fragments(text: &str, secrets: &[&str]) -> String {
    let bytes = text.as_bytes();
    let mut hidden = vec![false; bytes.len()];
    for secret in secrets {
        let secret = secret.as_bytes();
        let min = secret.len().min(MIN_SECRET_FRAGMENT);
        if min == 0 {
            continue;
        }
        for i in 0..bytes.len() {
            for j in 0..secret.len() {
                let run = bytes[i..]
                    .iter()
                    .zip(&secret[j..])
                    .take_while(|(a, b)| a.eq_ignore_ascii_case(b))
                    .count();
                if run >= min {
                    hidden[i..i + run].fill(true);
                }
            }
        }
    }
    if !hidden.contains(&true) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        if hidden[i] {
            out.push_str("<redacted>");
            while i < bytes.len() && hidden[i] {
                i += 1;
            }
        } else {
            let start = i;
            while i < bytes.len() && !hidden[i] {
                i += 1;
            }
            out.push_str(&text[start..i]);
        }
    }
    out
}

/// A host's adapter configuration that cannot work; reported when the
/// adapter is built, before anything is sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConfigError {
    /// The base URL is not an absolute `http`/`https` URL.
    BaseUrl(String),
    /// An extra header has an invalid name or value, or overrides a header
    /// the adapter sets itself.
    Header(String),
    /// The API key is unusable.
    ApiKey(String),
    /// Another setting is out of range.
    Setting(String),
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::BaseUrl(m)
            | ConfigError::Header(m)
            | ConfigError::ApiKey(m)
            | ConfigError::Setting(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for ConfigError {}

/// Checks a base URL: absolute, `http` or `https`, no query or fragment.
/// Returns it without a trailing `/`.
///
/// # Errors
///
/// [`ConfigError::BaseUrl`] naming what is wrong.
pub fn base_url(url: &str) -> Result<String, ConfigError> {
    // Messages name the URL without what may be secret (user info, query,
    // fragment); one that does not parse is not quoted at all.
    let parsed = reqwest::Url::parse(url).map_err(|e| {
        ConfigError::BaseUrl(format!(
            "the base URL is not a URL ({e}); give an absolute http or https URL such as `http://127.0.0.1:8080/v1`"
        ))
    })?;
    let shown = shown_url(&parsed);
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(ConfigError::BaseUrl(format!(
            "the base URL `{shown}` must not carry credentials; pass the API key instead"
        )));
    }
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(ConfigError::BaseUrl(format!(
            "the base URL `{shown}` must use http or https"
        )));
    }
    if parsed.query().is_some() || parsed.fragment().is_some() {
        return Err(ConfigError::BaseUrl(format!(
            "the base URL `{shown}` must not carry a query or a fragment (not shown here)"
        )));
    }
    Ok(url.trim_end_matches('/').to_owned())
}

/// A URL as messages show it: scheme, host, port and path only.
fn shown_url(url: &reqwest::Url) -> String {
    let host = url.host_str().unwrap_or("");
    match url.port() {
        Some(port) => format!("{}://{host}:{port}{}", url.scheme(), url.path()),
        None => format!("{}://{host}{}", url.scheme(), url.path()),
    }
}

/// Builds the header map of `extra` headers, refusing invalid names or
/// values and any header in `reserved` (lowercase names the adapter sets).
///
/// # Errors
///
/// [`ConfigError::Header`] naming the header (never its value).
pub fn extra_headers(
    extra: &[(String, String)],
    reserved: &[&str],
) -> Result<HeaderMap, ConfigError> {
    let mut map = HeaderMap::new();
    for (name, value) in extra {
        let header = HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| ConfigError::Header(format!("`{name}` is not a valid header name")))?;
        if reserved.contains(&header.as_str()) {
            return Err(ConfigError::Header(format!(
                "the header `{name}` is set by the adapter; configure it through its setting instead"
            )));
        }
        let mut value = HeaderValue::from_str(value).map_err(|_| {
            ConfigError::Header(format!("the value of the header `{name}` is not valid"))
        })?;
        // Extra headers often carry credentials of a gateway.
        value.set_sensitive(true);
        map.append(header, value);
    }
    Ok(map)
}

/// How an adapter retries between attempts (`runtime_policy.max_attempts`
/// bounds how many attempts there are; this says how long to wait).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetryPolicy {
    /// The backoff before the second attempt; it doubles per attempt.
    pub initial_backoff: Duration,
    /// The cap on one backoff.
    pub max_backoff: Duration,
    /// The longest `Retry-After` the adapter waits out itself; a longer one
    /// ends the execution with its failure (`TQX_RUNTIME_RATE_LIMITED`,
    /// `TQX_RUNTIME_UNAVAILABLE` or `TQX_RUNTIME_TIMEOUT`) and its
    /// `retry_after_ms`, for the host to decide.
    pub max_retry_after: Duration,
    /// Whether backoffs are jittered (each wait drawn uniformly from the
    /// upper half of the capped backoff).
    pub jitter: bool,
}

impl Default for RetryPolicy {
    /// 500 ms doubling to at most 8 s, jittered; `Retry-After` waited out up
    /// to 30 s.
    fn default() -> Self {
        RetryPolicy {
            initial_backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(8),
            max_retry_after: Duration::from_secs(30),
            jitter: true,
        }
    }
}

impl RetryPolicy {
    /// The wait after attempt number `attempts_made` (1-based) failed:
    /// `min(max_backoff, initial_backoff × 2^(attempts_made − 1))`, and with
    /// jitter a uniform draw from its upper half.
    pub fn backoff(&self, attempts_made: u32) -> Duration {
        let exponent = attempts_made.saturating_sub(1).min(20);
        let capped = self
            .initial_backoff
            .saturating_mul(1 << exponent)
            .min(self.max_backoff);
        if !self.jitter || capped.is_zero() {
            return capped;
        }
        let half = capped / 2;
        let nanos = u64::try_from(half.as_nanos()).unwrap_or(u64::MAX);
        half + Duration::from_nanos(fastrand::u64(0..=nanos))
    }

    /// The retry decision of the HTTP adapters, waiting before answering
    /// `true`, the same for the three retried codes
    /// (`TQX_RUNTIME_TIMEOUT`, `TQX_RUNTIME_UNAVAILABLE`,
    /// `TQX_RUNTIME_RATE_LIMITED`):
    ///
    /// - with `retry_after_ms` (the server's `Retry-After`) within
    ///   `max_retry_after`: wait that long, retry; beyond it: no retry (the
    ///   host gets the failure and its `retry_after_ms`);
    /// - without: wait [`backoff`](RetryPolicy::backoff), retry;
    /// - any other code: no retry.
    ///
    /// The port calls this only while `runtime_policy.max_attempts` allows
    /// another attempt.
    pub fn before_retry(
        &self,
        failure: &RuntimeFailure,
        attempts_made: u32,
    ) -> impl Future<Output = bool> + Send + 'static {
        let wait = match failure.code {
            Code::RuntimeTimeout | Code::RuntimeUnavailable | Code::RuntimeRateLimited => {
                match failure.retry_after_ms {
                    Some(ms) => {
                        let d = Duration::from_millis(ms);
                        (d <= self.max_retry_after).then_some(d)
                    }
                    None => Some(self.backoff(attempts_made)),
                }
            }
            _ => None,
        };
        async move {
            match wait {
                Some(d) => {
                    tokio::time::sleep(d).await;
                    true
                }
                None => false,
            }
        }
    }
}

/// The wait a response asks for, in milliseconds: `retry-after-ms` (a
/// non-negative number of milliseconds, as OpenAI sends it) when present
/// and valid, else `Retry-After` as delay-seconds or an HTTP-date (RFC 9110
/// section 10.2.3; a date in the past is 0). `None` when neither is usable.
pub fn retry_after(headers: &HeaderMap, now: SystemTime) -> Option<u64> {
    if let Some(ms) = headers
        .get("retry-after-ms")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|ms| ms.is_finite() && *ms >= 0.0)
    {
        return Some(ms.ceil() as u64);
    }
    let value = headers
        .get(reqwest::header::RETRY_AFTER)?
        .to_str()
        .ok()?
        .trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(seconds.saturating_mul(1000));
    }
    let date = httpdate::parse_http_date(value).ok()?;
    Some(
        date.duration_since(now)
            .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
            .unwrap_or(0),
    )
}

/// Failure ids: `<provider>.<step>`, stable (they enter the failure
/// fingerprint).
pub fn failure_id(provider: &str, step: &str) -> String {
    format!("{provider}.{step}")
}

/// Maps a non-success HTTP status to its failure (`docs/adapters.md`,
/// "Failures"):
///
/// | status | code | id |
/// |---|---|---|
/// | 429 | `TQX_RUNTIME_RATE_LIMITED` | `<p>.rate_limited` |
/// | 408 | `TQX_RUNTIME_TIMEOUT` | `<p>.timeout` |
/// | 5xx (529 included) | `TQX_RUNTIME_UNAVAILABLE` | `<p>.unavailable` |
/// | other 4xx (401, 403, 400, 404, 413, 422, …) | `TQX_RUNTIME_PERMANENT` | `<p>.rejected` |
/// | anything else that is not 2xx | `TQX_RUNTIME_INVALID_RESPONSE` | `<p>.invalid_response` |
///
/// The detail names the status (for a 404, also the `url` that was
/// requested) and the first meaningful line of the provider's own error
/// message ([`error_message`], [`headline`]: a server's traceback is cut to
/// its exception line), at most 300 characters; the whole message, at most
/// [`MAX_PROVIDER_MESSAGE`] characters, is the failure's
/// `provider_message`. Both are redacted (`redact`) before they are cut.
/// The three retried statuses (429, 408, 5xx) carry `retry_after_ms` from
/// the headers ([`retry_after`]) when they ask for a wait.
pub fn status_failure(
    provider: &str,
    url: &str,
    status: reqwest::StatusCode,
    headers: &HeaderMap,
    body: &[u8],
    redact: &dyn Fn(&str) -> String,
) -> RuntimeFailure {
    // Redacted before it is cut: a key straddling the cut would otherwise
    // leave its beginning in the detail.
    let message = error_message(body).map(|m| redact(&m));
    let mut detail = format!("{provider} answered HTTP {status}");
    if status == reqwest::StatusCode::NOT_FOUND {
        detail.push_str(&format!(" for POST {url}"));
    }
    if let Some(m) = &message {
        detail.push_str(": ");
        detail.push_str(&truncate(&headline(m), 300));
    }
    let (code, step) = match status.as_u16() {
        429 => (Code::RuntimeRateLimited, "rate_limited"),
        408 => (Code::RuntimeTimeout, "timeout"),
        500..=599 => (Code::RuntimeUnavailable, "unavailable"),
        400..=499 => (Code::RuntimePermanent, "rejected"),
        _ => (Code::RuntimeInvalidResponse, "invalid_response"),
    };
    let mut failure = RuntimeFailure::new(code, failure_id(provider, step), detail);
    failure.provider_message = message.map(|m| truncate(m.trim(), MAX_PROVIDER_MESSAGE));
    // `Retry-After` means the same on 503 (and Anthropic's 529) as on 429
    // (RFC 9110 section 10.2.3): read it on every status that is retried.
    if matches!(
        code,
        Code::RuntimeRateLimited | Code::RuntimeUnavailable | Code::RuntimeTimeout
    ) {
        failure.retry_after_ms = retry_after(headers, SystemTime::now());
    }
    failure
}

/// The most of a provider's error message a failure keeps
/// (`RuntimeFailure::provider_message`), in characters.
pub const MAX_PROVIDER_MESSAGE: usize = 16_000;

/// The provider's error message in an error body, as servers of both wire
/// formats send it: `error.message` (OpenAI's and Anthropic's API
/// references, llama.cpp's servers), `error` as a string, a top-level
/// `message` (vLLM), or a `detail` (FastAPI's request validation: a
/// string, or a list of `{loc, msg, input}` items, each written
/// `loc: msg (got input)`); a body that is not JSON is taken as the
/// message when it is text other than markup (a plain-text traceback).
/// `None` for an empty body or one that says nothing readable.
pub fn error_message(body: &[u8]) -> Option<String> {
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(body) else {
        let text = String::from_utf8_lossy(body);
        let text = text.trim();
        return (!text.is_empty() && !text.starts_with('<')).then(|| text.to_owned());
    };
    let error = value.get("error");
    let found = error
        .and_then(|e| e.get("message"))
        .and_then(|m| m.as_str())
        .or_else(|| error.and_then(|e| e.as_str()))
        .or_else(|| value.get("message").and_then(|m| m.as_str()))
        .map(str::to_owned);
    found.or_else(|| match value.get("detail")? {
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Array(items) => {
            let parts: Vec<String> = items.iter().map(validation_item).collect();
            (!parts.is_empty()).then(|| parts.join("; "))
        }
        _ => None,
    })
}

/// One item of FastAPI's validation `detail`: `loc: msg (got input)`.
fn validation_item(item: &serde_json::Value) -> String {
    let loc = item
        .get("loc")
        .and_then(|l| l.as_array())
        .map(|l| {
            l.iter()
                .map(|p| match p {
                    serde_json::Value::String(s) => s.clone(),
                    other => other.to_string(),
                })
                .collect::<Vec<_>>()
                .join(".")
        })
        .unwrap_or_default();
    let msg = item
        .get("msg")
        .and_then(|m| m.as_str())
        .unwrap_or("invalid");
    let mut text = if loc.is_empty() {
        msg.to_owned()
    } else {
        format!("{loc}: {msg}")
    };
    if let Some(input) = item.get("input").and_then(|i| i.as_str()) {
        text.push_str(&format!(" (got `{input}`)"));
    }
    text
}

/// The first meaningful line of a provider's message: for a Python
/// traceback (`Traceback (most recent call last):` and its indented
/// frames), the line of the exception that was raised last; otherwise the
/// first non-blank line, joined with the next one when it only introduces
/// it (ends with `:`, as `1 validation error:` does). White space around
/// it is trimmed.
pub fn headline(message: &str) -> String {
    let lines: Vec<&str> = message.lines().filter(|l| !l.trim().is_empty()).collect();
    if lines.iter().any(|l| {
        l.trim_start()
            .starts_with("Traceback (most recent call last)")
    }) {
        let raised = lines.iter().rev().find(|l| {
            let is_frame = l.starts_with(char::is_whitespace);
            let is_header = l.starts_with("Traceback (")
                || l.starts_with("During handling of the above exception")
                || l.starts_with("The above exception was the direct cause");
            !is_frame && !is_header
        });
        if let Some(line) = raised {
            return line.trim().to_owned();
        }
    }
    match lines.as_slice() {
        [] => String::new(),
        [first, next, ..] if first.trim_end().ends_with(':') => {
            format!("{} {}", first.trim(), next.trim())
        }
        [first, ..] => first.trim().to_owned(),
    }
}

/// A provider's error `message` as a failure quotes it: its first
/// meaningful line ([`headline`], at most 300 characters) for the detail,
/// and the whole message (at most [`MAX_PROVIDER_MESSAGE`] characters)
/// for `RuntimeFailure::provider_message`. For error objects inside a
/// stream or a 2xx body; [`status_failure`] does the same for error
/// statuses. Neither is redacted here: the attempt's failure is, as it
/// leaves ([`Endpoint::redacted`]).
pub fn quote_message(message: &str) -> (String, String) {
    (
        truncate(&headline(message), 300),
        truncate(message.trim(), MAX_PROVIDER_MESSAGE),
    )
}

/// A request the server refused (a status that is not 2xx), as
/// [`WireFormat::advise`] sees it to say what
/// would avoid it.
#[derive(Clone, Copy, Debug)]
pub struct Refusal<'a> {
    /// The HTTP status.
    pub status: reqwest::StatusCode,
    /// The URL that was requested (the base URL and the provider's path).
    pub url: &'a str,
    /// The provider's whole error message, redacted ([`error_message`]).
    pub message: Option<&'a str>,
}

/// A transport error: a timeout is `TQX_RUNTIME_TIMEOUT`
/// (`<p>.timeout`); anything else (refused connection, reset, DNS, TLS, a
/// body cut off) `TQX_RUNTIME_UNAVAILABLE` (`<p>.unavailable`). The detail
/// carries no URL (it could hold a gateway's credentials).
pub fn transport_failure(provider: &str, error: reqwest::Error) -> RuntimeFailure {
    let error = error.without_url();
    if error.is_timeout() {
        return RuntimeFailure::new(
            Code::RuntimeTimeout,
            failure_id(provider, "timeout"),
            format!("{provider} did not answer in time"),
        );
    }
    let what = if error.is_connect() {
        "could not connect"
    } else if error.is_body() || error.is_decode() {
        "the response body broke off"
    } else {
        "the request failed"
    };
    let mut detail = format!("{provider}: {what}");
    let mut source = std::error::Error::source(&error);
    while let Some(s) = source {
        detail.push_str(": ");
        detail.push_str(&s.to_string());
        source = s.source();
    }
    RuntimeFailure::new(
        Code::RuntimeUnavailable,
        failure_id(provider, "unavailable"),
        detail,
    )
}

/// A body that is not the provider's wire format:
/// `TQX_RUNTIME_INVALID_RESPONSE` (`<p>.invalid_response`).
pub fn invalid_response(provider: &str, what: impl fmt::Display) -> RuntimeFailure {
    RuntimeFailure::new(
        Code::RuntimeInvalidResponse,
        failure_id(provider, "invalid_response"),
        format!("{provider} answered with something that is not its wire format: {what}"),
    )
}

/// Runs one attempt within `timeout`; past it, `TQX_RUNTIME_TIMEOUT`
/// (`<p>.timeout`) naming the limit in milliseconds.
///
/// # Errors
///
/// The attempt's own failure, or the timeout.
pub async fn within<T>(
    provider: &str,
    timeout: Duration,
    attempt: impl Future<Output = Result<T, RuntimeFailure>>,
) -> Result<T, RuntimeFailure> {
    match tokio::time::timeout(timeout, attempt).await {
        Ok(result) => result,
        Err(_) => Err(RuntimeFailure::new(
            Code::RuntimeTimeout,
            failure_id(provider, "timeout"),
            format!(
                "{provider} did not answer within {} ms",
                timeout.as_millis()
            ),
        )),
    }
}

/// An HTTP endpoint of a provider: the client, the URL and the headers of
/// every request (the key's header marked sensitive).
#[derive(Clone)]
pub struct Endpoint {
    provider: &'static str,
    client: reqwest::Client,
    url: String,
    headers: HeaderMap,
    key: Option<ApiKey>,
}

impl fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Endpoint")
            .field("provider", &self.provider)
            .field("url", &self.url)
            .field(
                "headers",
                &self.headers.keys().map(|k| k.as_str()).collect::<Vec<_>>(),
            )
            .field("key", &self.key)
            .finish()
    }
}

impl Endpoint {
    /// An endpoint posting to `url` with `headers` (already holding the
    /// key's header, from [`ApiKey::header_value`]); `key` is kept only to
    /// redact it from error messages.
    ///
    /// # Errors
    ///
    /// [`ConfigError::Setting`] when the HTTP client cannot be built (no TLS
    /// roots).
    pub fn new(
        provider: &'static str,
        url: String,
        headers: HeaderMap,
        key: Option<ApiKey>,
    ) -> Result<Endpoint, ConfigError> {
        // No redirects: a redirect would carry the key's header (and the
        // extra headers) to wherever it points; a 3xx is an invalid
        // response instead.
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("templiqx/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| ConfigError::Setting(format!("cannot build the HTTP client: {e}")))?;
        Ok(Endpoint {
            provider,
            client,
            url,
            headers,
            key,
        })
    }

    /// The URL requests go to.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Posts `body` as JSON and returns the response when its status is
    /// 2xx; otherwise reads the body and maps the status
    /// ([`status_failure`]), with the failure's help from `advise` (the
    /// wire format's [`WireFormat::advise`]).
    /// A server error (5xx) that `advise` recognises as a refusal of what
    /// was sent (a setting the server does not support) is
    /// `TQX_RUNTIME_PERMANENT` (`<p>.rejected`): sending it again cannot
    /// succeed. A 404 without advice gets a help naming the URL.
    ///
    /// # Errors
    ///
    /// [`status_failure`] or [`transport_failure`].
    pub async fn post(
        &self,
        body: &serde_json::Value,
        advise: &(dyn Fn(&Refusal<'_>) -> Option<String> + Sync),
    ) -> Result<reqwest::Response, RuntimeFailure> {
        let bytes = serde_json::to_vec(body).map_err(|e| {
            RuntimeFailure::new(
                Code::RuntimePermanent,
                failure_id(self.provider, "request"),
                format!("cannot serialise the request: {e}"),
            )
        })?;
        let response = self
            .client
            .post(&self.url)
            .headers(self.headers.clone())
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(bytes)
            .send()
            .await
            .map_err(|e| transport_failure(self.provider, e))?;
        let status = response.status();
        if status.is_success() {
            return Ok(response);
        }
        let headers = response.headers().clone();
        let body = response.bytes().await.unwrap_or_default();
        let mut failure = status_failure(self.provider, &self.url, status, &headers, &body, &|t| {
            self.redact(t)
        });
        let refusal = Refusal {
            status,
            url: &self.url,
            message: failure.provider_message.as_deref(),
        };
        match advise(&refusal) {
            Some(help) => {
                if failure.code == Code::RuntimeUnavailable {
                    failure.code = Code::RuntimePermanent;
                    failure.id = failure_id(self.provider, "rejected");
                    failure.retry_after_ms = None;
                }
                failure.help = Some(help);
            }
            None if status == reqwest::StatusCode::NOT_FOUND => {
                failure.help = Some(format!(
                    "the server has nothing at `{}`: check the base URL",
                    self.url
                ));
            }
            None => {}
        }
        Err(failure)
    }

    /// Reads a whole response body as JSON.
    ///
    /// # Errors
    ///
    /// [`transport_failure`] when the body breaks off;
    /// [`invalid_response`] when it is not JSON.
    pub async fn json(&self, response: reqwest::Response) -> Result<Json, RuntimeFailure> {
        let bytes = response
            .bytes()
            .await
            .map_err(|e| transport_failure(self.provider, e))?;
        let parsed = std::str::from_utf8(&bytes)
            .map_err(|e| e.to_string())
            .and_then(|text| json::parse(text).map_err(|d| d.message));
        parsed.map_err(|e| {
            invalid_response(
                self.provider,
                format!(
                    "the body is not JSON ({e}): {}",
                    preview(&bytes, &|t| self.redact(t))
                ),
            )
        })
    }

    /// The server-sent events of a streamed response, parsed by
    /// [`sse::events`] (WHATWG HTML, 9.2.6 Interpreting an event stream).
    /// Any bytes are a valid event stream, so the only failure is the
    /// transport's ([`transport_failure`]); an event cut off by the end of
    /// the body is discarded, as the standard requires.
    pub fn events(
        &self,
        response: reqwest::Response,
    ) -> impl Stream<Item = Result<Event, RuntimeFailure>> + Send + use<> {
        let provider = self.provider;
        sse::events(response.bytes_stream())
            .map(move |item| item.map_err(|e| transport_failure(provider, e)))
    }

    /// `failure` with the secrets redacted ([`Endpoint::redact`]) from its
    /// detail, help and provider message.
    pub fn redacted(&self, mut failure: RuntimeFailure) -> RuntimeFailure {
        failure.detail = self.redact(&failure.detail);
        failure.help = failure.help.as_deref().map(|t| self.redact(t));
        failure.provider_message = failure.provider_message.as_deref().map(|t| self.redact(t));
        failure
    }

    /// Runs one attempt within `timeout` ([`within`]), and redacts the key
    /// from the detail of any failure: details quote provider text, and
    /// this is the one place every attempt's failure leaves through, so no
    /// detail can carry the key whatever built it.
    ///
    /// # Errors
    ///
    /// The attempt's own failure, or `TQX_RUNTIME_TIMEOUT`.
    pub async fn attempt<T>(
        &self,
        timeout: Duration,
        attempt: impl Future<Output = Result<T, RuntimeFailure>>,
    ) -> Result<T, RuntimeFailure> {
        within(self.provider, timeout, attempt)
            .await
            .map_err(|failure| self.redacted(failure))
    }

    /// Redacts the secrets from `text` ([`redact_fragments`]): the key, and
    /// the value of every header marked sensitive that is at least
    /// [`MIN_SECRET_FRAGMENT`] characters long (the key's own header and
    /// the host's extra headers, which may carry gateway credentials).
    pub fn redact(&self, text: &str) -> String {
        let mut secrets: Vec<&str> = self
            .headers
            .values()
            .filter(|v| v.is_sensitive())
            .filter_map(|v| v.to_str().ok())
            .filter(|v| v.len() >= MIN_SECRET_FRAGMENT)
            .collect();
        if let Some(key) = &self.key {
            secrets.push(key.expose_secret());
        }
        redact_fragments(text, &secrets)
    }
}

/// The first 200 characters of a body, for a failure detail, passed
/// through `redact` first (so no part of a secret survives the cut).
pub fn preview(bytes: &[u8], redact: &dyn Fn(&str) -> String) -> String {
    let text = redact(&String::from_utf8_lossy(bytes));
    let text = truncate(text.trim(), 200);
    if text.is_empty() {
        "(an empty body)".into()
    } else {
        format!("`{text}`")
    }
}

fn truncate(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_owned(),
    }
}

/// The model's output text as the JSON value the port validates: the
/// parsed JSON, or — when the text is not JSON — the text itself as a JSON
/// string, so that the port reports `TQX_OUTPUT_SCHEMA` (an object was
/// expected: the adapters require an object root) with the receipt it
/// defines, whose failure fingerprint is that string's fingerprint.
///
/// The text is read by the strict reader every JSON document goes through
/// ([`json::parse`]): integers keep their exact value at any size, and an
/// object that repeats a key is not JSON here either.
pub fn output_value(text: &str) -> Json {
    json::parse(text).unwrap_or_else(|_| Json::String(text.to_owned()))
}

/// Reads a non-negative integer token count at `field` of `usage`.
pub fn token_count(usage: &Json, field: &str) -> Option<u64> {
    usage.get(field).and_then(Json::as_u64)
}

/// The output schema as JSON Schema, for the wire.
///
/// # Errors
///
/// `TQX_RUNTIME_PERMANENT` (`<p>.output_schema`) when the schema's root is
/// not `type: object` alone: provider structured output (OpenAI's
/// `json_schema`, a forced tool's `input_schema`) requires an object root,
/// and an object root is what lets a reply that is not JSON be reported as
/// `TQX_OUTPUT_SCHEMA` ([`output_value`]). Nothing is sent.
pub fn output_schema(
    provider: &str,
    interaction: &templiqx::Interaction,
) -> Result<serde_json::Value, RuntimeFailure> {
    let schema = &interaction.output_schema;
    if !schema.types.is_only(templiqx::contracts::JsonType::Object) {
        return Err(RuntimeFailure::new(
            Code::RuntimePermanent,
            failure_id(provider, "output_schema"),
            format!(
                "the output schema of `{}` must have `type: object` at its root for {provider} structured output",
                interaction.contract_id
            ),
        ));
    }
    serde_json::to_value(schema).map_err(|e| {
        RuntimeFailure::new(
            Code::RuntimePermanent,
            failure_id(provider, "output_schema"),
            format!("cannot serialise the output schema: {e}"),
        )
    })
}

pub mod strict;

/// Unit tests of the pure parts; the HTTP paths are tested through the
/// adapters' fake servers.
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_key_never_prints() {
        let key = ApiKey::new("sk-live-abc123").unwrap();
        assert_eq!(format!("{key:?}"), "ApiKey(<redacted>)");
        assert_eq!(
            key.redact("bad key sk-live-abc123 given"),
            "bad key <redacted> given"
        );
        let header = key.header_value("Bearer ");
        assert!(header.is_sensitive());
        assert!(!format!("{header:?}").contains("abc123"));
        assert!(ApiKey::new("").is_err());
        assert!(ApiKey::new("a\nb").is_err());
        for not_visible_ascii in ["a b", "a\tb", "caf\u{e9}", "\u{7f}x"] {
            assert!(
                ApiKey::new(not_visible_ascii).is_err(),
                "{not_visible_ascii:?}"
            );
        }
    }

    #[test]
    fn retry_after_reads_seconds_dates_and_milliseconds() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        let mut h = HeaderMap::new();
        assert_eq!(retry_after(&h, now), None);
        h.insert("retry-after", HeaderValue::from_static("7"));
        assert_eq!(retry_after(&h, now), Some(7000));
        let later = httpdate::fmt_http_date(now + Duration::from_secs(90));
        h.insert("retry-after", HeaderValue::from_str(&later).unwrap());
        assert_eq!(retry_after(&h, now), Some(90_000));
        let earlier = httpdate::fmt_http_date(now - Duration::from_secs(90));
        h.insert("retry-after", HeaderValue::from_str(&earlier).unwrap());
        assert_eq!(retry_after(&h, now), Some(0));
        h.insert("retry-after", HeaderValue::from_static("soon"));
        assert_eq!(retry_after(&h, now), None);
        h.insert("retry-after-ms", HeaderValue::from_static("1250.5"));
        assert_eq!(retry_after(&h, now), Some(1251));
    }

    #[test]
    fn backoff_doubles_up_to_its_cap_and_jitters_within_the_upper_half() {
        let p = RetryPolicy {
            initial_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_millis(700),
            max_retry_after: Duration::from_secs(1),
            jitter: false,
        };
        let plain: Vec<u128> = (1..=5).map(|n| p.backoff(n).as_millis()).collect();
        assert_eq!(plain, [100, 200, 400, 700, 700]);
        let jittered = RetryPolicy { jitter: true, ..p };
        let draws: Vec<Duration> = (0..200).map(|_| jittered.backoff(3)).collect();
        assert!(
            draws
                .iter()
                .all(|d| *d >= Duration::from_millis(200) && *d <= Duration::from_millis(400))
        );
        assert!(draws.iter().any(|d| *d != draws[0]), "no jitter");
    }

    #[test]
    fn statuses_map_to_runtime_codes() {
        let key = ApiKey::new("sk-secret-1").unwrap();
        let mut h = HeaderMap::new();
        h.insert("retry-after", HeaderValue::from_static("2"));
        let body = br#"{"error":{"message":"Incorrect API key provided: sk-secret-1"}}"#;
        let f = |s: u16| {
            status_failure(
                "p",
                "http://h/v1/x",
                reqwest::StatusCode::from_u16(s).unwrap(),
                &h,
                body,
                &|t| key.redact(t),
            )
        };
        assert_eq!(f(429).code, Code::RuntimeRateLimited);
        assert_eq!(f(429).retry_after_ms, Some(2000));
        // Retry-After is read on every retried status (RFC 9110 10.2.3),
        // and on no other.
        assert_eq!(f(503).retry_after_ms, Some(2000));
        assert_eq!(f(529).retry_after_ms, Some(2000));
        assert_eq!(f(408).retry_after_ms, Some(2000));
        assert_eq!(f(401).retry_after_ms, None);
        assert_eq!(f(400).retry_after_ms, None);
        assert_eq!(f(408).code, Code::RuntimeTimeout);
        assert_eq!(f(500).code, Code::RuntimeUnavailable);
        assert_eq!(f(529).code, Code::RuntimeUnavailable);
        assert_eq!(f(401).code, Code::RuntimePermanent);
        assert_eq!(f(400).id, "p.rejected");
        assert_eq!(f(302).code, Code::RuntimeInvalidResponse);
        assert!(!f(401).detail.contains("sk-secret-1"), "{}", f(401).detail);
        assert!(f(401).detail.contains("HTTP 401"));
    }

    #[test]
    fn redaction_hides_the_key_cut_altered_or_masked_and_keeps_other_text() {
        let key = ApiKey::new("  sk-live-0123456789abcdef\n").unwrap();
        assert_eq!(key.expose_secret(), "sk-live-0123456789abcdef");
        assert_eq!(key.redact("a sk-live-0123456789abcdef b"), "a <redacted> b");
        for echoed in [
            "SK-LIVE-0123456789ABCDEF",
            "sk-live-0123456789abcde",
            "k-live-0123456789abcdef",
            "sk-live-01234",
            "sk-live-****89abcdef",
        ] {
            let shown = key.redact(&format!("key {echoed}."));
            assert!(
                !shown.contains("live-01") && !shown.contains("89abcdef"),
                "{echoed}: {shown}"
            );
            assert!(shown.starts_with("key ") && shown.ends_with('.'), "{shown}");
        }
        // Text sharing fewer than 8 characters with the key stays, and
        // non-ASCII text around a match stays whole.
        assert_eq!(key.redact("sk-live is a prefix"), "sk-live is a prefix");
        assert_eq!(key.redact("é0123456789abcdefé"), "é<redacted>é");
        assert_eq!(redact_fragments("abc", &["ab"]), "<redacted>c");
        assert_eq!(redact_fragments("abc", &[""]), "abc");
    }

    #[test]
    fn base_urls_and_headers_are_checked() {
        assert_eq!(
            base_url("http://127.0.0.1:8/v1/").unwrap(),
            "http://127.0.0.1:8/v1"
        );
        assert!(base_url("ftp://x").is_err());
        assert!(base_url("not a url").is_err());
        assert!(base_url("https://u:p@x/").is_err());
        // What may be secret in a URL is never quoted back, whichever
        // check fails first.
        for (url, says) in [
            ("ftp://user:sk-SECRET@host/v1", "must not carry credentials"),
            (
                "https://user:sk-SECRET@host/v1",
                "must not carry credentials",
            ),
            ("http://user:sk-SECRET@[bad/v1", "is not a URL"),
            (
                "https://host:8443/v1?api-key=sk-SECRET",
                "must not carry a query",
            ),
            (
                "https://host/v1#sk-SECRET",
                "must not carry a query or a fragment",
            ),
            ("ftp://host/v1", "`ftp://host/v1` must use http or https"),
        ] {
            let ConfigError::BaseUrl(message) = base_url(url).unwrap_err() else {
                panic!("{url}")
            };
            assert!(message.contains(says), "{url}: {message}");
            assert!(!message.contains("SECRET"), "{url}: {message}");
        }
        let ok = extra_headers(&[("X-Org".into(), "a".into())], &["authorization"]).unwrap();
        assert!(ok.get("x-org").unwrap().is_sensitive());
        assert!(
            extra_headers(&[("Authorization".into(), "a".into())], &["authorization"]).is_err()
        );
        assert!(extra_headers(&[("bad name".into(), "a".into())], &[]).is_err());
    }

    #[test]
    fn non_json_text_is_handed_on_as_a_string() {
        assert_eq!(output_value("{\"a\":1}"), serde_json::json!({"a": 1}));
        assert_eq!(output_value("Sure! {"), serde_json::json!("Sure! {"));
    }

    #[tokio::test(flavor = "current_thread", start_paused = true)]
    async fn before_retry_waits_backoff_or_retry_after_within_budget() {
        let p = RetryPolicy {
            initial_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_secs(1),
            max_retry_after: Duration::from_secs(5),
            jitter: false,
        };
        let start = tokio::time::Instant::now();
        let unavailable = RuntimeFailure::new(Code::RuntimeUnavailable, "p.unavailable", "x");
        assert!(p.before_retry(&unavailable, 2).await);
        assert_eq!(start.elapsed(), Duration::from_millis(200));
        let mut limited = RuntimeFailure::new(Code::RuntimeRateLimited, "p.rate_limited", "x");
        limited.retry_after_ms = Some(3000);
        let start = tokio::time::Instant::now();
        assert!(p.before_retry(&limited, 1).await);
        assert_eq!(start.elapsed(), Duration::from_secs(3));
        limited.retry_after_ms = Some(6000);
        let start = tokio::time::Instant::now();
        assert!(!p.before_retry(&limited, 1).await);
        assert_eq!(start.elapsed(), Duration::ZERO);
        // A 503's Retry-After is waited out like a 429's, and too long a
        // one is the host's to decide.
        let mut overloaded = RuntimeFailure::new(Code::RuntimeUnavailable, "p.unavailable", "x");
        overloaded.retry_after_ms = Some(3000);
        let start = tokio::time::Instant::now();
        assert!(p.before_retry(&overloaded, 1).await);
        assert_eq!(start.elapsed(), Duration::from_secs(3));
        overloaded.retry_after_ms = Some(6000);
        assert!(!p.before_retry(&overloaded, 1).await);
        let permanent = RuntimeFailure::new(Code::RuntimePermanent, "p.rejected", "x");
        assert!(!p.before_retry(&permanent, 1).await);
        let invalid = RuntimeFailure::new(Code::RuntimeInvalidResponse, "p.refusal", "x");
        assert!(!p.before_retry(&invalid, 1).await);
    }
}
