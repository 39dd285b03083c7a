//! A Templiqx [`AsyncRuntimeAdapter`](templiqx::AsyncRuntimeAdapter) for the Anthropic Messages API
//! (`POST {base_url}/v1/messages`, Anthropic's API reference, "Messages").
//!
//! ```no_run
//! use templiqx::AsyncRuntimeAdapter;
//! use templiqx_anthropic::{AnthropicAdapter, AnthropicConfig};
//!
//! # async fn run(request: &templiqx::RenderedInteraction<'_>) -> Result<(), Box<dyn std::error::Error>> {
//! // The key from ANTHROPIC_API_KEY.
//! let adapter = AnthropicAdapter::new(AnthropicConfig::anthropic("claude-sonnet-4-5")?)?;
//! let execution = adapter.execute(request).await?;
//! println!("{} {:?}", execution.output, execution.usage);
//! # Ok(()) }
//! ```
//!
//! What is sent (`docs/adapters.md`):
//!
//! - `system` and `developer` messages, in order, joined by a blank line,
//!   become the top-level `system` prompt (the API has no system role in
//!   `messages`); `user` and `assistant` messages keep their order;
//! - the structured output is the input of one forced tool
//!   (`tool_choice: {"type": "tool", "name": …}`) whose `input_schema` is
//!   the contract's output schema, every keyword kept; the port validates
//!   the tool input against the schema;
//! - `runtime_policy`: `temperature`, `top_p`, `max_output_tokens` as
//!   `max_tokens` (required by the API: [`AnthropicConfig::max_tokens`]
//!   when the contract sets none), `timeout_ms` per attempt, `max_attempts`
//!   (the port);
//! - failures: [`templiqx_adapter_http::status_failure`] (529 `overloaded`
//!   is `TQX_RUNTIME_UNAVAILABLE`); `stop_reason` `max_tokens` is
//!   `TQX_RUNTIME_INVALID_RESPONSE` (`anthropic.truncated`), `refusal` is
//!   `TQX_RUNTIME_INVALID_RESPONSE` (`anthropic.refusal`); a reply without
//!   the tool call is `TQX_RUNTIME_INVALID_RESPONSE`
//!   (`anthropic.no_tool_call`).

// `RuntimeFailure` is the port's error type, returned by value.
#![allow(clippy::result_large_err)]

use serde_json::{Value, json};
use std::time::Duration;
use templiqx::contracts::Role;
use templiqx::contracts::json::{Json, JsonMap};
use templiqx::{Code, RenderedInteraction, RuntimeFailure, Usage};
use templiqx_adapter_http::{
    Configured, Endpoint, Event, Flow, Refusal, Reply, WireFormat, event_json, failure_id,
    invalid_response, output_value, token_count,
};

pub use templiqx_adapter_http::{ApiKey, ConfigError, HttpAdapter, RetryPolicy};

/// The adapter's name in descriptors and failure ids.
pub const PROVIDER: &str = "anthropic";

/// The environment variable [`AnthropicConfig::anthropic`] reads the key
/// from.
pub const API_KEY_VAR: &str = "ANTHROPIC_API_KEY";

/// The `anthropic-version` header sent by default.
pub const API_VERSION: &str = "2023-06-01";

/// The host's configuration of an [`AnthropicAdapter`].
#[derive(Clone, Debug)]
pub struct AnthropicConfig {
    /// The API base URL (`https://api.anthropic.com`); `/v1/messages` is
    /// appended.
    pub base_url: String,
    /// The `model` of every request.
    pub model: String,
    /// Sent as `x-api-key` when set.
    pub api_key: Option<ApiKey>,
    /// Extra headers (`anthropic-beta`, a gateway's own); `x-api-key`,
    /// `anthropic-version` and `content-type` are refused.
    pub extra_headers: Vec<(String, String)>,
    /// The `anthropic-version` header.
    pub version: String,
    /// `max_tokens` when the contract sets no
    /// `runtime_policy.max_output_tokens` (the API requires it; default
    /// 4096).
    pub max_tokens: u32,
    /// The forced tool's name (default `emit_output`).
    pub tool_name: String,
    /// The overall deadline of an attempt, from sending the request to the
    /// last byte of the answer, when the contract sets no
    /// `runtime_policy.timeout_ms` (default 120 s).
    pub timeout: Duration,
    /// How long a streamed attempt may receive nothing (no byte of the
    /// response, keep-alives included) before it fails as idle; `None`
    /// (the default): only the overall deadline bounds it.
    pub idle_timeout: Option<Duration>,
    /// Backoff and `Retry-After` waits between attempts.
    pub retry: RetryPolicy,
}

impl AnthropicConfig {
    /// A configuration for `model` at `base_url` with the defaults: no key,
    /// `anthropic-version: 2023-06-01`, `max_tokens` 4096, tool
    /// `emit_output`, 120 s per attempt, [`RetryPolicy::default`].
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> AnthropicConfig {
        AnthropicConfig {
            base_url: base_url.into(),
            model: model.into(),
            api_key: None,
            extra_headers: Vec::new(),
            version: API_VERSION.into(),
            max_tokens: 4096,
            tool_name: "emit_output".into(),
            timeout: Duration::from_secs(120),
            idle_timeout: None,
            retry: RetryPolicy::default(),
        }
    }

    /// Anthropic itself: `https://api.anthropic.com`, the key from
    /// `ANTHROPIC_API_KEY`.
    ///
    /// # Errors
    ///
    /// [`ConfigError::ApiKey`] when the variable is unset, empty or invalid.
    pub fn anthropic(model: impl Into<String>) -> Result<AnthropicConfig, ConfigError> {
        let key = ApiKey::from_env(API_KEY_VAR)?.ok_or_else(|| {
            ConfigError::ApiKey(format!("set `{API_KEY_VAR}` to an Anthropic API key"))
        })?;
        Ok(AnthropicConfig::new("https://api.anthropic.com", model).api_key(key))
    }

    /// Sets the API key.
    pub fn api_key(mut self, key: ApiKey) -> Self {
        self.api_key = Some(key);
        self
    }

    /// Adds an extra header.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.extra_headers.push((name.into(), value.into()));
        self
    }

    /// Sets the default `max_tokens`.
    pub fn max_tokens(mut self, max_tokens: u32) -> Self {
        self.max_tokens = max_tokens;
        self
    }

    /// Sets the default overall deadline of an attempt.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Sets the idle timeout of streamed attempts.
    pub fn idle_timeout(mut self, idle: Duration) -> Self {
        self.idle_timeout = Some(idle);
        self
    }

    /// Sets the retry policy.
    pub fn retry(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }
}

/// The adapter: [`HttpAdapter`] over the Anthropic Messages wire format.
/// Build it with `AnthropicAdapter::new(config)`; its descriptor provides
/// `structured_output` and `streaming` (other capabilities are stopped by
/// the port's gate). `request_body(&request, stream)` returns exactly the
/// JSON body of an attempt. Its `Debug` shows no key.
///
/// # Errors
///
/// `AnthropicAdapter::new` returns a [`ConfigError`] for a bad base URL,
/// header, version, tool name (`^[a-zA-Z0-9_-]{1,64}$`), empty model, zero
/// `max_tokens` or zero timeout. `request_body` fails with
/// `TQX_RUNTIME_PERMANENT`: `anthropic.output_schema` when the output
/// schema's root is not `type: object`; `anthropic.messages` when no `user`
/// or `assistant` message is left once system and developer messages are
/// moved to `system`.
pub type AnthropicAdapter = HttpAdapter<Anthropic>;

/// The Anthropic Messages wire format (a [`WireFormat`]): what
/// [`AnthropicAdapter`] sends and how it reads the answer.
#[derive(Debug)]
pub struct Anthropic {
    config: AnthropicConfig,
}

/// What one attempt of [`Anthropic`] remembers of a stream: the forced
/// tool's block index and input so far, text blocks, the stop reason,
/// usage and identity.
#[derive(Debug, Default)]
pub struct AnthropicAttempt {
    /// The `max_tokens` sent, and whether it came from the contract's
    /// `runtime_policy.max_output_tokens`.
    cap: (u32, bool),
    tool_index: Option<u64>,
    json_text: String,
    text: String,
    stop: Option<String>,
    input_tokens: Option<u64>,
    output_tokens: Option<u64>,
    /// `cache_creation_input_tokens` and `cache_read_input_tokens`, as
    /// `message_start` and `message_delta` report them.
    cache_creation_tokens: Option<u64>,
    cache_read_tokens: Option<u64>,
    model: Option<String>,
    id: Option<String>,
}

impl AnthropicAttempt {
    /// Takes the counts a stream event's `usage` has (`message_start`'s
    /// `message.usage`, `message_delta`'s `usage`, whose counts are
    /// cumulative), keeping the earlier ones it lacks.
    fn count(&mut self, u: &Json) {
        self.input_tokens = token_count(u, "input_tokens").or(self.input_tokens);
        self.output_tokens = token_count(u, "output_tokens").or(self.output_tokens);
        self.cache_creation_tokens =
            token_count(u, "cache_creation_input_tokens").or(self.cache_creation_tokens);
        self.cache_read_tokens =
            token_count(u, "cache_read_input_tokens").or(self.cache_read_tokens);
    }
}

impl WireFormat for Anthropic {
    const PROVIDER: &'static str = PROVIDER;
    type Config = AnthropicConfig;
    type Attempt = AnthropicAttempt;

    fn configure(config: AnthropicConfig) -> Result<Configured<Anthropic>, ConfigError> {
        let base = templiqx_adapter_http::base_url(&config.base_url)?;
        if config.model.trim().is_empty() {
            return Err(ConfigError::Setting("the model must not be empty".into()));
        }
        if config.max_tokens == 0 {
            return Err(ConfigError::Setting("max_tokens must be positive".into()));
        }
        let name_ok = (1..=64).contains(&config.tool_name.len())
            && config
                .tool_name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if !name_ok {
            return Err(ConfigError::Setting(format!(
                "the tool name `{}` must match ^[a-zA-Z0-9_-]{{1,64}}$",
                config.tool_name
            )));
        }
        let mut headers = templiqx_adapter_http::extra_headers(
            &config.extra_headers,
            &["x-api-key", "anthropic-version", "content-type"],
        )?;
        let version =
            templiqx_adapter_http::reqwest::header::HeaderValue::from_str(&config.version)
                .map_err(|_| {
                    ConfigError::Setting("the anthropic-version is not a header value".into())
                })?;
        headers.insert("anthropic-version", version);
        if let Some(key) = &config.api_key {
            headers.insert("x-api-key", key.header_value(""));
        }
        let endpoint = Endpoint::new(
            PROVIDER,
            format!("{base}/v1/messages"),
            headers,
            config.api_key.clone(),
        )?;
        Ok(Configured {
            endpoint,
            timeout: config.timeout,
            idle_timeout: config.idle_timeout,
            retry: config.retry,
            capabilities: &["streaming", "structured_output"],
            wire: Anthropic { config },
        })
    }

    fn model(&self) -> &str {
        &self.config.model
    }

    fn request(
        &self,
        request: &RenderedInteraction<'_>,
        stream: bool,
    ) -> Result<(Value, AnthropicAttempt), RuntimeFailure> {
        let interaction = request.interaction;
        let schema = templiqx_adapter_http::output_schema(PROVIDER, interaction)?;
        let mut system: Vec<&str> = Vec::new();
        let mut messages = Vec::new();
        for m in &request.messages {
            match m.role {
                Role::System | Role::Developer => system.push(&m.content),
                Role::User | Role::Assistant => {
                    messages.push(json!({ "role": m.role.as_str(), "content": m.content }));
                }
            }
        }
        if messages.is_empty() {
            return Err(RuntimeFailure::new(
                Code::RuntimePermanent,
                failure_id(PROVIDER, "messages"),
                format!(
                    "`{}` renders no user or assistant message; the Messages API needs at least one",
                    interaction.contract_id
                ),
            ));
        }
        let policy = &interaction.runtime_policy;
        let mut body = serde_json::Map::new();
        body.insert("model".into(), json!(self.config.model));
        body.insert(
            "max_tokens".into(),
            json!(policy.max_output_tokens.unwrap_or(self.config.max_tokens)),
        );
        if !system.is_empty() {
            body.insert("system".into(), json!(system.join("\n\n")));
        }
        body.insert("messages".into(), Value::Array(messages));
        body.insert(
            "tools".into(),
            json!([{
                "name": self.config.tool_name,
                "description": format!(
                    "Record the answer: the structured output of `{}`.",
                    interaction.contract_id
                ),
                "input_schema": schema,
            }]),
        );
        body.insert(
            "tool_choice".into(),
            json!({ "type": "tool", "name": self.config.tool_name }),
        );
        if let Some(t) = policy.temperature {
            body.insert("temperature".into(), json!(t));
        }
        if let Some(p) = policy.top_p {
            body.insert("top_p".into(), json!(p));
        }
        if stream {
            body.insert("stream".into(), json!(true));
        }
        let attempt = AnthropicAttempt {
            cap: (
                policy.max_output_tokens.unwrap_or(self.config.max_tokens),
                policy.max_output_tokens.is_some(),
            ),
            ..AnthropicAttempt::default()
        };
        Ok((Value::Object(body), attempt))
    }

    /// A whole `message` object (or an `error` object from a proxy that
    /// answered 200).
    fn read_body(&self, attempt: AnthropicAttempt, value: &Json) -> Result<Reply, RuntimeFailure> {
        if value.get("type").and_then(|t| t.as_str()) == Some("error") {
            return Err(error_event(value));
        }
        let content = value
            .get("content")
            .and_then(|c| c.as_array())
            .ok_or_else(|| invalid_response(PROVIDER, "no `content` array"))?;
        let stop = value.get("stop_reason").and_then(|s| s.as_str());
        let usage = value.get("usage").and_then(usage);
        let input = content.iter().find(|b| {
            b.get("type").and_then(|t| t.as_str()) == Some("tool_use")
                && b.get("name").and_then(|n| n.as_str()) == Some(&self.config.tool_name)
        });
        let text: String = content
            .iter()
            .filter(|b| b.get("type").and_then(|t| t.as_str()) == Some("text"))
            .filter_map(|b| b.get("text").and_then(|t| t.as_str()))
            .collect();
        let reply = self.finish(
            input.and_then(|b| b.get("input")).cloned(),
            &text,
            stop,
            usage,
            attempt.cap,
        )?;
        Ok(reply.identified_by(value))
    }

    /// One event of a streamed message; the tool input's JSON fragments
    /// (`input_json_delta`) are the deltas.
    fn read_event(
        &self,
        attempt: &mut AnthropicAttempt,
        event: &Event,
    ) -> Result<Flow, RuntimeFailure> {
        let data = event_json(PROVIDER, event)?;
        let kind = data.get("type").and_then(|t| t.as_str()).unwrap_or("");
        match kind {
            "message_start" => {
                if let Some(message) = data.get("message") {
                    let identity = Reply::new(Json::Null, None).identified_by(message);
                    (attempt.model, attempt.id) = (identity.model, identity.id);
                }
                if let Some(u) = data.pointer("/message/usage") {
                    attempt.count(u);
                }
            }
            "content_block_start" => {
                let block = &data["content_block"];
                if block.get("type").and_then(|t| t.as_str()) == Some("tool_use")
                    && block.get("name").and_then(|n| n.as_str()) == Some(&self.config.tool_name)
                {
                    attempt.tool_index = data.get("index").and_then(|i| i.as_u64());
                }
            }
            "content_block_delta" => {
                let delta = &data["delta"];
                match delta.get("type").and_then(|t| t.as_str()) {
                    Some("input_json_delta")
                        if data.get("index").and_then(|i| i.as_u64()) == attempt.tool_index =>
                    {
                        if let Some(part) = delta.get("partial_json").and_then(|p| p.as_str())
                            && !part.is_empty()
                        {
                            attempt.json_text.push_str(part);
                            return Ok(Flow::Delta(part.to_owned()));
                        }
                    }
                    Some("text_delta") => {
                        if let Some(t) = delta.get("text").and_then(|t| t.as_str()) {
                            attempt.text.push_str(t);
                        }
                    }
                    _ => {}
                }
            }
            "message_delta" => {
                if let Some(s) = data.pointer("/delta/stop_reason").and_then(|s| s.as_str()) {
                    attempt.stop = Some(s.to_owned());
                }
                if let Some(u) = data.get("usage") {
                    attempt.count(u);
                }
            }
            "message_stop" => return Ok(Flow::Done),
            "error" => return Err(error_event(&data)),
            // `ping`, `content_block_stop` and event types added later.
            _ => {}
        }
        Ok(Flow::Continue)
    }

    /// A 404: the base URL is the host, without `/v1`
    /// (`docs/adapters.md`, "Failures").
    fn advise(&self, _sent: &Value, refusal: &Refusal<'_>) -> Option<String> {
        if refusal.status.as_u16() != 404 {
            return None;
        }
        let url = refusal.url;
        let base = url.strip_suffix("/v1/messages").unwrap_or(url);
        let text = refusal.message.unwrap_or("").to_ascii_lowercase();
        Some(if let Some(host) = base.strip_suffix("/v1") {
            format!(
                "the server has nothing at `{url}`: the base URL is the host, without `/v1` \
                 (`/v1/messages` is appended): `--base-url {host}`"
            )
        } else if text.contains("model") {
            format!(
                "the server at `{base}` has no such model, it says: check the model name (`--model`)"
            )
        } else {
            format!(
                "the server has nothing at `{url}`: check the base URL (the host, as \
                 `https://api.anthropic.com`)"
            )
        })
    }

    fn end_stream(&self, attempt: AnthropicAttempt, done: bool) -> Result<Reply, RuntimeFailure> {
        // `message_delta` carries the stop reason after the last content
        // block: with it the answer is whole, even if `message_stop` was
        // lost with the end of the body.
        if !done && attempt.stop.is_none() {
            return Err(invalid_response(
                PROVIDER,
                "the event stream ended without `message_stop` or a `stop_reason`",
            ));
        }
        let usage = match (attempt.input_tokens, attempt.output_tokens) {
            (Some(input_tokens), Some(output_tokens)) => Some(usage_of(
                input_tokens,
                output_tokens,
                attempt.cache_creation_tokens.unwrap_or(0),
                attempt.cache_read_tokens.unwrap_or(0),
            )),
            _ => None,
        };
        let input = attempt.tool_index.map(|_| {
            if attempt.json_text.trim().is_empty() {
                Json::Object(JsonMap::new())
            } else {
                output_value(&attempt.json_text)
            }
        });
        let mut reply = self.finish(
            input,
            &attempt.text,
            attempt.stop.as_deref(),
            usage,
            attempt.cap,
        )?;
        (reply.model, reply.id) = (attempt.model, attempt.id);
        Ok(reply)
    }
}

impl Anthropic {
    /// The configuration this wire format was built from.
    pub fn config(&self) -> &AnthropicConfig {
        &self.config
    }

    /// Turns the reply into an output or its explicit failure.
    fn finish(
        &self,
        input: Option<Json>,
        text: &str,
        stop: Option<&str>,
        usage: Option<Usage>,
        (cap, from_policy): (u32, bool),
    ) -> Result<Reply, RuntimeFailure> {
        match stop {
            Some("max_tokens") => {
                let written = usage.map_or(String::new(), |u| {
                    format!(" after {} output tokens", u.output_tokens)
                });
                let (source, help) = if from_policy {
                    (
                        "from `runtime_policy.max_output_tokens`".to_owned(),
                        format!(
                            "raise `runtime_policy.max_output_tokens` in the contract (now {cap}) \
                             to let the model finish, or ask for a shorter output"
                        ),
                    )
                } else {
                    (
                        "the adapter's default, as the contract sets no \
                         `runtime_policy.max_output_tokens`"
                            .to_owned(),
                        format!(
                            "set `runtime_policy.max_output_tokens` in the contract above {cap} \
                             (or raise `AnthropicConfig::max_tokens`)"
                        ),
                    )
                };
                let failure = RuntimeFailure::new(
                    Code::RuntimeInvalidResponse,
                    failure_id(PROVIDER, "truncated"),
                    format!(
                        "the output was cut off at the token limit of {cap} tokens (`max_tokens`, \
                         {source}; stop_reason `max_tokens`){written}"
                    ),
                )
                .with_help(help);
                // What the model wrote, for a host to show: the text, else
                // the tool input it had begun.
                let written = if text.is_empty() {
                    input
                        .as_ref()
                        .map(templiqx::contracts::canonical::to_canonical_string)
                } else {
                    Some(text.to_owned())
                };
                return Err(match written {
                    Some(output) => failure.with_output(output),
                    None => failure,
                });
            }
            Some("refusal") => {
                return Err(RuntimeFailure::new(
                    Code::RuntimeInvalidResponse,
                    failure_id(PROVIDER, "refusal"),
                    "the model refused (stop_reason `refusal`)",
                ));
            }
            _ => {}
        }
        match input {
            Some(output) => {
                let mut reply = Reply::new(output, usage);
                reply.finish_reasons = stop.map(str::to_owned).into_iter().collect();
                Ok(reply)
            }
            None => Err(RuntimeFailure::new(
                Code::RuntimeInvalidResponse,
                failure_id(PROVIDER, "no_tool_call"),
                format!(
                    "the reply holds no `{}` tool call (stop_reason {}){}",
                    self.config.tool_name,
                    stop.map_or("absent".to_owned(), |s| format!("`{s}`")),
                    if text.is_empty() {
                        String::new()
                    } else {
                        // The endpoint redacts the whole detail as the
                        // attempt's failure leaves; `preview` only cuts.
                        format!(
                            "; it said: {}",
                            templiqx_adapter_http::preview(text.as_bytes(), &str::to_owned)
                        )
                    }
                ),
            )),
        }
    }
}

/// An `error` event (in a stream, or as a 200 body from a proxy); the
/// endpoint redacts the detail as the attempt's failure leaves.
fn error_event(data: &Json) -> RuntimeFailure {
    let kind = data
        .pointer("/error/type")
        .and_then(|t| t.as_str())
        .unwrap_or("error");
    let message = data
        .pointer("/error/message")
        .and_then(|m| m.as_str())
        .unwrap_or("no message");
    let (code, step) = match kind {
        "overloaded_error" | "api_error" => (Code::RuntimeUnavailable, "unavailable"),
        "rate_limit_error" => (Code::RuntimeRateLimited, "rate_limited"),
        _ => (Code::RuntimePermanent, "rejected"),
    };
    let (line, whole) = templiqx_adapter_http::quote_message(message);
    let mut failure = RuntimeFailure::new(
        code,
        failure_id(PROVIDER, step),
        format!("{PROVIDER} reported `{kind}`: {line}"),
    );
    failure.provider_message = Some(whole);
    failure
}

/// The usage of a message's `usage` object ([`usage_of`]); `None` without
/// `input_tokens` and `output_tokens`.
fn usage(u: &Json) -> Option<Usage> {
    Some(usage_of(
        token_count(u, "input_tokens")?,
        token_count(u, "output_tokens")?,
        token_count(u, "cache_creation_input_tokens").unwrap_or(0),
        token_count(u, "cache_read_input_tokens").unwrap_or(0),
    ))
}

/// A message's [`Usage`] from the counts of its `usage` object.
///
/// Per Anthropic's API reference, the Messages response's `usage`
/// (<https://docs.anthropic.com/en/api/messages>) and its prompt caching
/// guide (<https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching>,
/// "Tracking cache performance"), `input_tokens` counts only the input
/// tokens after the last cache breakpoint: the tokens written to the cache
/// (`cache_creation_input_tokens`) and read from it
/// (`cache_read_input_tokens`) are counted apart. So
/// [`Usage::input_tokens`] is their sum, every input token the model read,
/// and [`Usage::cached_input_tokens`] the cache reads; a cache write is
/// counted as input (`docs/adapters.md`, "Reading the answer";
/// `docs/eval.md`, "Cost"). A missing cache count is 0 (older servers and
/// compatible ones without a cache send none).
fn usage_of(input: u64, output: u64, cache_creation: u64, cache_read: u64) -> Usage {
    Usage {
        input_tokens: input
            .saturating_add(cache_creation)
            .saturating_add(cache_read),
        output_tokens: output,
        cached_input_tokens: cache_read,
    }
}
