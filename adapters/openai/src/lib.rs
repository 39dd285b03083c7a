//! A Templiqx [`AsyncRuntimeAdapter`](templiqx::AsyncRuntimeAdapter) for the OpenAI Chat Completions wire
//! format (`POST {base_url}/chat/completions`, OpenAI's API reference,
//! "Create chat completion"), which OpenAI, Azure OpenAI, vLLM, Ollama,
//! llama.cpp's server and LM Studio serve.
//!
//! ```no_run
//! use templiqx::AsyncRuntimeAdapter;
//! use templiqx_openai::{OpenAiAdapter, OpenAiConfig, StructuredOutput};
//!
//! # async fn run(request: &templiqx::RenderedInteraction<'_>) -> Result<(), Box<dyn std::error::Error>> {
//! // A llama.cpp server on loopback: no key, `json_object` + `schema`.
//! let config = OpenAiConfig::new("http://127.0.0.1:8080/v1", "gemma-3-270m")
//!     .structured_output(StructuredOutput::JsonObjectSchema);
//! let adapter = OpenAiAdapter::new(config)?;
//! let execution = adapter.execute(request).await?;
//! println!("{} {:?}", execution.output, execution.usage);
//! # Ok(()) }
//! ```
//!
//! What is sent, the schema mapping, the failure table and the retry rules
//! are in `docs/adapters.md`; in short:
//!
//! - messages keep their order and roles (`developer` becomes `system` with
//!   [`DeveloperRole::System`]);
//! - the output schema goes out as the [`StructuredOutput`] mode says;
//!   `json_schema` is `strict: true` whenever the schema, its optional
//!   properties lowered to required-and-nullable
//!   ([`templiqx_adapter_http::strict::lower`]), is in OpenAI's strict
//!   subset, and the nulls lowering injected are removed from the reply
//!   ([`NullPlan::restore`]) before the port validates it against the
//!   contract's own schema; otherwise `strict: false` with every keyword
//!   kept;
//! - `runtime_policy`: `temperature`, `top_p`, `max_output_tokens` (as
//!   `max_completion_tokens` or `max_tokens`), `timeout_ms` per attempt
//!   (default [`OpenAiConfig::timeout`]), `max_attempts` (the port);
//! - failures: [`templiqx_adapter_http::status_failure`]; `finish_reason`
//!   `length` is `TQX_RUNTIME_INVALID_RESPONSE` (`openai.truncated`),
//!   `content_filter` is `TQX_RUNTIME_PERMANENT` (`openai.content_filter`),
//!   a `refusal` is `TQX_RUNTIME_INVALID_RESPONSE` (`openai.refusal`).

// `RuntimeFailure` is the port's error type, returned by value.
#![allow(clippy::result_large_err)]

use serde_json::{Value, json};
use std::time::Duration;
use templiqx::contracts::Role;
use templiqx::contracts::json::{Json, JsonMap};
use templiqx::{Code, RenderedInteraction, RuntimeFailure, Usage};
use templiqx_adapter_http::strict::{self, Lowering, NullPlan};
use templiqx_adapter_http::{
    Configured, Endpoint, Event, Flow, Refusal, Reply, WireFormat, error_member, event_json,
    failure_id, invalid_response, output_value, token_count,
};

pub use templiqx_adapter_http::{ApiKey, ConfigError, HttpAdapter, RetryPolicy};

/// The adapter's name in descriptors and failure ids.
pub const PROVIDER: &str = "openai";

/// The environment variable [`OpenAiConfig::openai`] reads the key from.
pub const API_KEY_VAR: &str = "OPENAI_API_KEY";

/// How the `developer` role is sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum DeveloperRole {
    /// As `developer` (OpenAI).
    #[default]
    Developer,
    /// As `system`, for servers that do not know `developer` (most
    /// OpenAI-compatible servers).
    System,
}

/// How the output schema reaches the server.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum StructuredOutput {
    /// `response_format: {"type": "json_schema", "json_schema": {"name",
    /// "schema", "strict"}}` (OpenAI, Azure OpenAI, vLLM, Ollama, LM Studio).
    #[default]
    JsonSchema,
    /// `response_format: {"type": "json_object", "schema": …}`: the form
    /// llama-cpp-python's server constrains decoding with (it refuses
    /// `json_schema`).
    JsonObjectSchema,
    /// No `response_format`: a last `system` message carries the schema
    /// ("Reply with one JSON object valid against this JSON Schema: …").
    PromptOnly,
}

/// Which request field carries `runtime_policy.max_output_tokens`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum MaxTokensField {
    /// `max_completion_tokens` (OpenAI; `max_tokens` is deprecated there).
    #[default]
    MaxCompletionTokens,
    /// `max_tokens` (llama.cpp, older compatible servers).
    MaxTokens,
}

/// The host's configuration of an [`OpenAiAdapter`].
#[derive(Clone, Debug)]
pub struct OpenAiConfig {
    /// The API base URL, up to and including the version segment
    /// (`https://api.openai.com/v1`); `/chat/completions` is appended.
    pub base_url: String,
    /// The `model` of every request.
    pub model: String,
    /// Sent as `Authorization: Bearer …` when set.
    pub api_key: Option<ApiKey>,
    /// Extra headers of every request (`OpenAI-Organization`, a gateway's
    /// own header); `authorization` and `content-type` are refused.
    pub extra_headers: Vec<(String, String)>,
    /// How `developer` messages are sent.
    pub developer_role: DeveloperRole,
    /// How the output schema is sent.
    pub structured_output: StructuredOutput,
    /// Which field carries the token cap.
    pub max_tokens_field: MaxTokensField,
    /// Whether streamed requests ask for usage
    /// (`stream_options: {"include_usage": true}`).
    pub stream_usage: bool,
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

impl OpenAiConfig {
    /// A configuration for `model` at `base_url`, with the defaults: no key,
    /// `developer` sent as is, [`StructuredOutput::JsonSchema`],
    /// `max_completion_tokens`, usage asked for when streaming, 120 s per
    /// attempt, [`RetryPolicy::default`].
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> OpenAiConfig {
        OpenAiConfig {
            base_url: base_url.into(),
            model: model.into(),
            api_key: None,
            extra_headers: Vec::new(),
            developer_role: DeveloperRole::Developer,
            structured_output: StructuredOutput::JsonSchema,
            max_tokens_field: MaxTokensField::MaxCompletionTokens,
            stream_usage: true,
            timeout: Duration::from_secs(120),
            idle_timeout: None,
            retry: RetryPolicy::default(),
        }
    }

    /// OpenAI itself: `https://api.openai.com/v1`, the key from
    /// `OPENAI_API_KEY`.
    ///
    /// # Errors
    ///
    /// [`ConfigError::ApiKey`] when the variable is unset, empty or invalid.
    pub fn openai(model: impl Into<String>) -> Result<OpenAiConfig, ConfigError> {
        let key = ApiKey::from_env(API_KEY_VAR)?.ok_or_else(|| {
            ConfigError::ApiKey(format!("set `{API_KEY_VAR}` to an OpenAI API key"))
        })?;
        Ok(OpenAiConfig::new("https://api.openai.com/v1", model).api_key(key))
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

    /// Sets how `developer` messages are sent.
    pub fn developer_role(mut self, role: DeveloperRole) -> Self {
        self.developer_role = role;
        self
    }

    /// Sets the structured-output mode.
    pub fn structured_output(mut self, mode: StructuredOutput) -> Self {
        self.structured_output = mode;
        self
    }

    /// Sets the token-cap field.
    pub fn max_tokens_field(mut self, field: MaxTokensField) -> Self {
        self.max_tokens_field = field;
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

/// The adapter: [`HttpAdapter`] over the OpenAI wire format. Build it with
/// `OpenAiAdapter::new(config)`; its descriptor provides
/// `structured_output` and `streaming` (a contract requiring another
/// capability, an extension's, is stopped by the port's capability gate,
/// never sent with the extension dropped). `request_body(&request,
/// stream)` returns exactly the JSON body of an attempt. Its `Debug` shows
/// no key.
///
/// # Errors
///
/// `OpenAiAdapter::new` returns a [`ConfigError`] for a bad base URL, extra
/// header, empty model or zero timeout; `request_body` fails with
/// `TQX_RUNTIME_PERMANENT` (`openai.output_schema`) when the output
/// schema's root is not `type: object`.
pub type OpenAiAdapter = HttpAdapter<OpenAi>;

/// The OpenAI Chat Completions wire format (a [`WireFormat`]): what
/// [`OpenAiAdapter`] sends and how it reads the answer.
#[derive(Debug)]
pub struct OpenAi {
    config: OpenAiConfig,
}

/// What one attempt of [`OpenAi`] remembers: a stream's accumulated
/// content, refusal, finish reason, usage and identity.
#[derive(Debug, Default)]
pub struct OpenAiAttempt {
    /// The nulls strict lowering injected, removed from the output.
    nulls: NullPlan,
    /// The token cap sent and its field, for the note of a cut-off output.
    cap: Option<(u32, &'static str)>,
    content: String,
    refusal: String,
    finish: Option<String>,
    usage: Option<Usage>,
    model: Option<String>,
    id: Option<String>,
}

impl OpenAi {
    /// The configuration this wire format was built from.
    pub fn config(&self) -> &OpenAiConfig {
        &self.config
    }

    /// Reads a whole `chat.completion` object.
    fn completion(
        &self,
        value: &Json,
        cap: Option<(u32, &'static str)>,
    ) -> Result<Reply, RuntimeFailure> {
        if let Some(error) = error_member(value) {
            return Err(reported_error(error));
        }
        let choice = value
            .get("choices")
            .and_then(|c| c.as_array())
            .and_then(|c| c.first())
            .ok_or_else(|| invalid_response(PROVIDER, "no `choices[0]`"))?;
        let message = choice
            .get("message")
            .and_then(|m| m.as_object())
            .ok_or_else(|| invalid_response(PROVIDER, "no `choices[0].message`"))?;
        let content = match message.get("content") {
            Some(Json::String(s)) => s.as_str(),
            None | Some(Json::Null) => "",
            Some(_) => {
                return Err(invalid_response(
                    PROVIDER,
                    "`choices[0].message.content` is not a string",
                ));
            }
        };
        let refusal = message.get("refusal").and_then(|r| r.as_str());
        let finish = choice.get("finish_reason").and_then(|f| f.as_str());
        let usage = value.get("usage").and_then(usage);
        Ok(finish_reply(content, refusal, finish, usage, cap)?.identified_by(value))
    }
}

impl WireFormat for OpenAi {
    const PROVIDER: &'static str = PROVIDER;
    type Config = OpenAiConfig;
    type Attempt = OpenAiAttempt;

    fn configure(config: OpenAiConfig) -> Result<Configured<OpenAi>, ConfigError> {
        let base = templiqx_adapter_http::base_url(&config.base_url)?;
        if config.model.trim().is_empty() {
            return Err(ConfigError::Setting("the model must not be empty".into()));
        }
        let mut headers = templiqx_adapter_http::extra_headers(
            &config.extra_headers,
            &["authorization", "content-type"],
        )?;
        if let Some(key) = &config.api_key {
            headers.insert(
                templiqx_adapter_http::reqwest::header::AUTHORIZATION,
                key.header_value("Bearer "),
            );
        }
        let endpoint = Endpoint::new(
            PROVIDER,
            format!("{base}/chat/completions"),
            headers,
            config.api_key.clone(),
        )?;
        Ok(Configured {
            endpoint,
            timeout: config.timeout,
            idle_timeout: config.idle_timeout,
            retry: config.retry,
            capabilities: &["streaming", "structured_output"],
            wire: OpenAi { config },
        })
    }

    fn model(&self) -> &str {
        &self.config.model
    }

    fn request(
        &self,
        request: &RenderedInteraction<'_>,
        stream: bool,
    ) -> Result<(Value, OpenAiAttempt), RuntimeFailure> {
        let interaction = request.interaction;
        let schema = templiqx_adapter_http::output_schema(PROVIDER, interaction)?;
        let mut messages: Vec<Value> = request
            .messages
            .iter()
            .map(|m| {
                let role = match (m.role, self.config.developer_role) {
                    (Role::Developer, DeveloperRole::System) => "system",
                    (role, _) => role.as_str(),
                };
                json!({ "role": role, "content": m.content })
            })
            .collect();
        let mut body = serde_json::Map::new();
        body.insert("model".into(), json!(self.config.model));
        let name = schema_name(&interaction.contract_id);
        let mut nulls = NullPlan::default();
        match self.config.structured_output {
            StructuredOutput::JsonSchema => {
                let (schema, strict) = match strict::lower(&schema) {
                    Lowering::Strict {
                        schema,
                        nulls: plan,
                    } => {
                        nulls = plan;
                        (schema, true)
                    }
                    Lowering::NotStrict { .. } => (schema, false),
                };
                body.insert(
                    "response_format".into(),
                    json!({
                        "type": "json_schema",
                        "json_schema": { "name": name, "schema": schema, "strict": strict }
                    }),
                );
            }
            StructuredOutput::JsonObjectSchema => {
                body.insert(
                    "response_format".into(),
                    json!({ "type": "json_object", "schema": schema }),
                );
            }
            StructuredOutput::PromptOnly => {
                messages.push(json!({
                    "role": "system",
                    "content": format!(
                        "Reply with one JSON object valid against this JSON Schema, and nothing else:\n{}",
                        templiqx::contracts::canonical::to_canonical_string(&schema)
                    ),
                }));
            }
        }
        body.insert("messages".into(), Value::Array(messages));
        let policy = &interaction.runtime_policy;
        if let Some(t) = policy.temperature {
            body.insert("temperature".into(), json!(t));
        }
        if let Some(p) = policy.top_p {
            body.insert("top_p".into(), json!(p));
        }
        let mut cap = None;
        if let Some(n) = policy.max_output_tokens {
            let field = match self.config.max_tokens_field {
                MaxTokensField::MaxCompletionTokens => "max_completion_tokens",
                MaxTokensField::MaxTokens => "max_tokens",
            };
            body.insert(field.into(), json!(n));
            cap = Some((n, field));
        }
        if stream {
            body.insert("stream".into(), json!(true));
            if self.config.stream_usage {
                body.insert("stream_options".into(), json!({ "include_usage": true }));
            }
        }
        let attempt = OpenAiAttempt {
            nulls,
            cap,
            ..OpenAiAttempt::default()
        };
        Ok((Value::Object(body), attempt))
    }

    fn read_body(&self, attempt: OpenAiAttempt, body: &Json) -> Result<Reply, RuntimeFailure> {
        let mut reply = self.completion(body, attempt.cap)?;
        reply.output = attempt.nulls.restore(reply.output);
        Ok(reply)
    }

    /// A `chat.completion.chunk`, or `[DONE]`.
    fn read_event(
        &self,
        attempt: &mut OpenAiAttempt,
        event: &Event,
    ) -> Result<Flow, RuntimeFailure> {
        if event.data.trim() == "[DONE]" {
            return Ok(Flow::Done);
        }
        let chunk = event_json(PROVIDER, event)?;
        if let Some(error) = error_member(&chunk) {
            return Err(reported_error(error));
        }
        if let Some(u) = chunk.get("usage").and_then(usage) {
            attempt.usage = Some(u);
        }
        if attempt.id.is_none() {
            let identity = Reply::new(Json::Null, None).identified_by(&chunk);
            (attempt.model, attempt.id) = (identity.model, identity.id);
        }
        let Some(choice) = chunk
            .get("choices")
            .and_then(|c| c.as_array())
            .and_then(|c| c.first())
        else {
            return Ok(Flow::Continue);
        };
        if let Some(f) = choice.get("finish_reason").and_then(|f| f.as_str()) {
            attempt.finish = Some(f.to_owned());
        }
        let Some(delta) = choice.get("delta") else {
            return Ok(Flow::Continue);
        };
        if let Some(text) = delta.get("refusal").and_then(|c| c.as_str()) {
            attempt.refusal.push_str(text);
        }
        match delta.get("content").and_then(|c| c.as_str()) {
            Some(text) if !text.is_empty() => {
                attempt.content.push_str(text);
                Ok(Flow::Delta(text.to_owned()))
            }
            _ => Ok(Flow::Continue),
        }
    }

    /// Servers of this wire format that lack a setting OpenAI has: a
    /// refusal whose message names what was sent gets the setting that
    /// avoids it; a 404 gets the base URL to try (`docs/adapters.md`,
    /// "Failures").
    fn advise(&self, sent: &Value, refusal: &Refusal<'_>) -> Option<String> {
        let status = refusal.status.as_u16();
        let text = refusal.message.unwrap_or("").to_ascii_lowercase();
        if status == 404 {
            return Some(not_found_help(refusal.url, &text));
        }
        if !(400..=599).contains(&status) || matches!(status, 408 | 429) {
            return None;
        }
        // A client error may name the field alone; a server error (a
        // crash on what it did not expect) must name what was sent.
        let client_error = status < 500;
        let mut advice = Vec::new();
        if sent.pointer("/response_format/type") == Some(&json!("json_schema"))
            && (text.contains("json_schema") || client_error && text.contains("response_format"))
        {
            advice.push(
                "the server does not take `response_format: json_schema`: send the schema as \
                 `json_object` with a `schema` (`--structured-output json-object-schema`; \
                 `StructuredOutput::JsonObjectSchema`), as llama.cpp's servers want, or in the \
                 prompt (`--structured-output prompt-only`; `StructuredOutput::PromptOnly`)",
            );
        }
        let sent_developer = sent
            .get("messages")
            .and_then(Value::as_array)
            .is_some_and(|m| m.iter().any(|m| m["role"] == "developer"));
        if sent_developer && (text.contains("developer") || client_error && text.contains("role")) {
            advice.push(
                "the server does not know the `developer` role: send developer messages as \
                 `system` (`--developer-as-system`; `DeveloperRole::System`)",
            );
        }
        if sent.get("max_completion_tokens").is_some() && text.contains("max_completion_tokens") {
            advice.push(
                "the server does not take `max_completion_tokens`: send the token cap as \
                 `max_tokens` (`--max-tokens-field-legacy`; `MaxTokensField::MaxTokens`)",
            );
        }
        (!advice.is_empty()).then(|| advice.join("; "))
    }

    fn end_stream(&self, attempt: OpenAiAttempt, done: bool) -> Result<Reply, RuntimeFailure> {
        if !done && attempt.finish.is_none() {
            return Err(invalid_response(
                PROVIDER,
                "the event stream ended without a `finish_reason` or `[DONE]`",
            ));
        }
        let refusal = (!attempt.refusal.is_empty()).then_some(attempt.refusal.as_str());
        let mut reply = finish_reply(
            &attempt.content,
            refusal,
            attempt.finish.as_deref(),
            attempt.usage,
            attempt.cap,
        )?;
        (reply.model, reply.id) = (attempt.model, attempt.id);
        reply.output = attempt.nulls.restore(reply.output);
        Ok(reply)
    }
}

/// Turns the reply into an output or its explicit failure.
fn finish_reply(
    content: &str,
    refusal: Option<&str>,
    finish: Option<&str>,
    usage: Option<Usage>,
    cap: Option<(u32, &'static str)>,
) -> Result<Reply, RuntimeFailure> {
    if let Some(r) = refusal.filter(|r| !r.is_empty()) {
        return Err(RuntimeFailure::new(
            Code::RuntimeInvalidResponse,
            failure_id(PROVIDER, "refusal"),
            format!("the model refused: {r}"),
        ));
    }
    match finish {
        Some("length") => return Err(truncated(content, usage, cap)),
        Some("content_filter") => {
            return Err(RuntimeFailure::new(
                Code::RuntimePermanent,
                failure_id(PROVIDER, "content_filter"),
                "the provider's content filter withheld the output (finish_reason `content_filter`)",
            ));
        }
        _ => {}
    }
    let mut reply = Reply::new(output_value(content), usage);
    reply.finish_reasons = finish.map(str::to_owned).into_iter().collect();
    Ok(reply)
}

/// `finish_reason: "length"`: the output was cut off at the token limit
/// (`openai.truncated`); the detail names the limit sent and its field,
/// or says that none was, the help how to raise it, and the failure keeps
/// the text written ([`RuntimeFailure::output`]).
fn truncated(
    content: &str,
    usage: Option<Usage>,
    cap: Option<(u32, &'static str)>,
) -> RuntimeFailure {
    let written = match usage {
        Some(u) => format!(
            "{} output tokens, {} characters",
            u.output_tokens,
            content.chars().count()
        ),
        None => format!("{} characters", content.chars().count()),
    };
    let (detail, help) = match cap {
        Some((n, field)) => (
            format!(
                "the output was cut off at the token limit of {n} tokens (`{field}`, from \
                 `runtime_policy.max_output_tokens`; finish_reason `length`) after {written}"
            ),
            format!(
                "raise `runtime_policy.max_output_tokens` in the contract (now {n}) to let the \
                 model finish, or ask for a shorter output"
            ),
        ),
        None => (
            format!(
                "the output was cut off at the server's own token limit (finish_reason `length`; \
                 none was sent, the contract sets no `runtime_policy.max_output_tokens`) after \
                 {written}"
            ),
            "set `runtime_policy.max_output_tokens` in the contract above what the output needs \
             (the server applied its default or its context size)"
                .to_owned(),
        ),
    };
    let failure = RuntimeFailure::new(
        Code::RuntimeInvalidResponse,
        failure_id(PROVIDER, "truncated"),
        detail,
    )
    .with_help(help);
    // What the model wrote, for a host to show (it does not parse).
    if content.is_empty() {
        failure
    } else {
        failure.with_output(content)
    }
}

/// `usage.prompt_tokens` and `usage.completion_tokens`, with
/// `usage.prompt_tokens_details.cached_tokens` as the cached input tokens
/// (0 when absent or null, as from servers without a prompt cache).
///
/// Per OpenAI's API reference, the chat completion object
/// (<https://platform.openai.com/docs/api-reference/chat/object>, `usage`;
/// the same `usage` ends a stream asked for with `include_usage`),
/// `prompt_tokens` counts every prompt token and `cached_tokens` those of
/// them read from the prompt cache, so `prompt_tokens` is the
/// [`Usage::input_tokens`] as it is. A cached count above `prompt_tokens`
/// (a server's slip) is capped at it (`docs/adapters.md`, "Reading the
/// answer").
fn usage(u: &Json) -> Option<Usage> {
    let input_tokens = token_count(u, "prompt_tokens")?;
    let cached = u
        .get("prompt_tokens_details")
        .and_then(|d| token_count(d, "cached_tokens"))
        .unwrap_or(0);
    Some(Usage {
        input_tokens,
        output_tokens: token_count(u, "completion_tokens")?,
        cached_input_tokens: cached.min(input_tokens),
    })
}

/// An `error` object in a stream chunk or a 2xx body: the provider gave up
/// (mid-answer, or behind a proxy that answered 200). The endpoint redacts
/// the detail as the attempt's failure leaves.
fn reported_error(error: &JsonMap) -> RuntimeFailure {
    let message = error
        .get("message")
        .and_then(|m| m.as_str())
        .unwrap_or("no message");
    let (line, whole) = templiqx_adapter_http::quote_message(message);
    let mut failure = RuntimeFailure::new(
        Code::RuntimeUnavailable,
        failure_id(PROVIDER, "unavailable"),
        format!("{PROVIDER} reported an error: {line}"),
    );
    failure.provider_message = Some(whole);
    failure
}

/// The help for a 404 at `url` (`{base_url}/chat/completions`) whose
/// message, lowercased, is `text`: the model when the server says it has
/// no such model, else the base URL, which names the API version (`/v1`).
fn not_found_help(url: &str, text: &str) -> String {
    let base = url.strip_suffix("/chat/completions").unwrap_or(url);
    if text.contains("model") {
        return format!(
            "the server at `{base}` has no such model, it says: check the model name (`--model`)"
        );
    }
    if base.ends_with("/v1") {
        format!(
            "the server has nothing at `{url}`: check that the base URL is where it serves the \
             OpenAI API (up to and including `/v1`)"
        )
    } else {
        format!(
            "the server has nothing at `{url}`: the base URL goes up to the API version, \
             usually `/v1` (`--base-url {base}/v1`)"
        )
    }
}

/// `response_format.json_schema.name`: `^[a-zA-Z0-9_-]{1,64}$` (OpenAI's API
/// reference); the contract id with other characters replaced by `_`.
pub fn schema_name(contract_id: &str) -> String {
    let name: String = contract_id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect();
    if name.is_empty() {
        "output".into()
    } else {
        name
    }
}
