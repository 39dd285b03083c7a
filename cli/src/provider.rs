//! The provider adapters `run` and `eval` configure from their flags
//! (`docs/adapters.md`), and the chains of them a `--chain` file
//! describes (`docs/adapters.md`, "Fallback chains").

use crate::args::{ProviderKind, StructuredOutputArg, WireArgs};
use serde::Deserialize;
use std::future::Future;
use std::path::Path;
use std::time::Duration;
use templiqx::{
    AdapterDescriptor, AdapterOutput, AsyncRuntimeAdapter, Execution, ExecutionError, FailureClass,
    Fallback, FallbackPolicy, RuntimeFailure, Strategy, StreamEvent,
};
use templiqx_contracts::json::{from_json, parse};
use templiqx_contracts::{Code, Diagnostic, Json, RenderedInteraction};

/// The configured adapter.
pub enum Adapter {
    /// `templiqx-openai`.
    OpenAi(templiqx_openai::OpenAiAdapter),
    /// `templiqx-anthropic`.
    Anthropic(templiqx_anthropic::AnthropicAdapter),
}

impl Adapter {
    /// The adapter of `kind` for `base_url` and `model`, or why it refuses
    /// its configuration (a usage error).
    pub fn new(
        kind: ProviderKind,
        base_url: &str,
        model: &str,
        args: &WireArgs,
    ) -> Result<Adapter, String> {
        let timeout = Duration::from_millis(args.timeout_ms);
        match kind {
            ProviderKind::Openai => {
                let var = args
                    .api_key_env
                    .as_deref()
                    .unwrap_or(templiqx_openai::API_KEY_VAR);
                let key = templiqx_openai::ApiKey::from_env(var).map_err(|e| e.to_string())?;
                let mut config = templiqx_openai::OpenAiConfig::new(base_url, model)
                    .timeout(timeout)
                    .structured_output(match args.structured_output {
                        StructuredOutputArg::JsonSchema => {
                            templiqx_openai::StructuredOutput::JsonSchema
                        }
                        StructuredOutputArg::JsonObjectSchema => {
                            templiqx_openai::StructuredOutput::JsonObjectSchema
                        }
                        StructuredOutputArg::PromptOnly => {
                            templiqx_openai::StructuredOutput::PromptOnly
                        }
                    });
                config.api_key = key;
                if let Some(ms) = args.idle_timeout_ms {
                    config = config.idle_timeout(Duration::from_millis(ms));
                }
                if args.developer_as_system {
                    config = config.developer_role(templiqx_openai::DeveloperRole::System);
                }
                if args.max_tokens_field_legacy {
                    config = config.max_tokens_field(templiqx_openai::MaxTokensField::MaxTokens);
                }
                for (name, value) in parse_headers(&args.headers)? {
                    config = config.header(name, value);
                }
                templiqx_openai::OpenAiAdapter::new(config)
                    .map(|a| Adapter::OpenAi(a.with_output_recovery(recovery(args))))
                    .map_err(|e| e.to_string())
            }
            ProviderKind::Anthropic => {
                if args.structured_output != StructuredOutputArg::JsonSchema
                    || args.developer_as_system
                    || args.max_tokens_field_legacy
                {
                    return Err("--structured-output, --developer-as-system and --max-tokens-field-legacy apply to --provider openai only (anthropic uses a forced tool and a top-level system prompt)".into());
                }
                let var = args
                    .api_key_env
                    .as_deref()
                    .unwrap_or(templiqx_anthropic::API_KEY_VAR);
                let key = templiqx_anthropic::ApiKey::from_env(var).map_err(|e| e.to_string())?;
                let mut config =
                    templiqx_anthropic::AnthropicConfig::new(base_url, model).timeout(timeout);
                config.api_key = key;
                if let Some(ms) = args.idle_timeout_ms {
                    config = config.idle_timeout(Duration::from_millis(ms));
                }
                for (name, value) in parse_headers(&args.headers)? {
                    config = config.header(name, value);
                }
                templiqx_anthropic::AnthropicAdapter::new(config)
                    .map(|a| Adapter::Anthropic(a.with_output_recovery(recovery(args))))
                    .map_err(|e| e.to_string())
            }
        }
    }

    /// Executes `request`, streaming to `sink` when given.
    pub async fn execute(
        &self,
        request: &RenderedInteraction<'_>,
        sink: Option<&mut (dyn FnMut(StreamEvent) + Send)>,
    ) -> Result<Execution, ExecutionError> {
        match (self, sink) {
            (Adapter::OpenAi(a), None) => a.execute(request).await,
            (Adapter::OpenAi(a), Some(s)) => a.execute_streaming(request, s).await,
            (Adapter::Anthropic(a), None) => a.execute(request).await,
            (Adapter::Anthropic(a), Some(s)) => a.execute_streaming(request, s).await,
        }
    }
}

/// Every call goes to the configured adapter's own, so that one adapter
/// serves as a member of a [`Fallback`] chain as it runs alone.
impl AsyncRuntimeAdapter for Adapter {
    fn descriptor(&self) -> &AdapterDescriptor {
        match self {
            Adapter::OpenAi(a) => a.descriptor(),
            Adapter::Anthropic(a) => a.descriptor(),
        }
    }

    /// The adapter's own (`--recover-output`), so a chain's member
    /// recovers as it does alone (`docs/runtime.md`, "Output recovery").
    fn output_recovery(&self) -> templiqx::OutputRecovery {
        match self {
            Adapter::OpenAi(a) => a.output_recovery(),
            Adapter::Anthropic(a) => a.output_recovery(),
        }
    }

    async fn invoke(
        &self,
        request: &RenderedInteraction<'_>,
    ) -> Result<AdapterOutput, RuntimeFailure> {
        match self {
            Adapter::OpenAi(a) => a.invoke(request).await,
            Adapter::Anthropic(a) => a.invoke(request).await,
        }
    }

    fn redact(&self, text: &str) -> String {
        match self {
            Adapter::OpenAi(a) => a.redact(text),
            Adapter::Anthropic(a) => a.redact(text),
        }
    }

    async fn invoke_streaming(
        &self,
        request: &RenderedInteraction<'_>,
        sink: &mut (dyn FnMut(StreamEvent) + Send),
    ) -> Result<AdapterOutput, RuntimeFailure> {
        match self {
            Adapter::OpenAi(a) => a.invoke_streaming(request, sink).await,
            Adapter::Anthropic(a) => a.invoke_streaming(request, sink).await,
        }
    }

    async fn before_retry(
        &self,
        request: &RenderedInteraction<'_>,
        failure: &RuntimeFailure,
        attempts_made: u32,
    ) -> bool {
        match self {
            Adapter::OpenAi(a) => a.before_retry(request, failure, attempts_made).await,
            Adapter::Anthropic(a) => a.before_retry(request, failure, attempts_made).await,
        }
    }

    fn execute(
        &self,
        request: &RenderedInteraction<'_>,
    ) -> impl Future<Output = Result<Execution, ExecutionError>> + Send {
        Adapter::execute(self, request, None)
    }

    fn execute_streaming(
        &self,
        request: &RenderedInteraction<'_>,
        sink: &mut (dyn FnMut(StreamEvent) + Send),
    ) -> impl Future<Output = Result<Execution, ExecutionError>> + Send {
        Adapter::execute(self, request, Some(sink))
    }
}

/// The `api_version` of a chain file.
pub const CHAIN_API_VERSION: &str = "templiqx.chain/v1alpha1";

/// A chain file (`docs/adapters.md`, "Fallback chains"): the members and
/// when to move on from one to the next.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ChainFile {
    api_version: String,
    #[serde(default)]
    strategy: Option<Strategy>,
    #[serde(default)]
    fall_back_on: Option<Vec<String>>,
    members: Vec<Json>,
}

/// One member of a chain file: a provider, base URL and model, and any
/// wire setting that differs from the command line's.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MemberFile {
    #[serde(default)]
    name: Option<String>,
    provider: String,
    base_url: String,
    model: String,
    #[serde(default)]
    api_key_env: Option<String>,
    #[serde(default)]
    structured_output: Option<String>,
    #[serde(default)]
    developer_as_system: Option<bool>,
    #[serde(default)]
    max_tokens_field_legacy: Option<bool>,
    #[serde(default)]
    headers: Option<Vec<String>>,
    #[serde(default)]
    timeout_ms: Option<u64>,
    #[serde(default)]
    idle_timeout_ms: Option<u64>,
}

/// What a chain's member is, for reports and the eval history (never a
/// secret: header names only, the base URL without user information).
#[derive(Clone, Debug)]
pub struct ChainMember {
    /// Its name in the chain and in the route.
    pub name: String,
    /// Its base URL, without user information.
    pub base_url: String,
    /// Its provider, model and wire settings, as JSON (`structured_output`,
    /// header names…).
    pub transport: serde_json::Value,
}

/// A chain read from a `--chain` file, its adapters configured.
pub struct Chain {
    /// The combinator.
    pub adapter: Fallback<Adapter>,
    /// Its members, in order.
    pub members: Vec<ChainMember>,
}

impl Chain {
    /// The chain described by the file at `path`, each member's wire
    /// settings defaulting to `defaults` (the command line's), or the
    /// problems found (`TQX_IO`, `TQX_PARSE_JSON`, `TQX_API_VERSION`,
    /// `TQX_UNKNOWN_FIELD`, `TQX_MISSING_FIELD`, `TQX_INVALID_VALUE`,
    /// `TQX_RUNTIME_PERMANENT` for an adapter refusing its configuration),
    /// each in the file and at its pointer. Usage errors.
    pub fn load(path: &Path, defaults: &WireArgs) -> Result<Chain, Vec<Diagnostic>> {
        let file = path.display().to_string();
        let at = |d: Diagnostic| d.in_file(file.clone());
        let text = std::fs::read_to_string(path).map_err(|e| {
            vec![at(Diagnostic::error(
                Code::Io,
                format!("cannot read the chain file: {e}"),
            )
            .help(
                "--chain names a JSON file (docs/adapters.md, \"Fallback chains\")",
            ))]
        })?;
        let json = parse(&text).map_err(|d| vec![at(d)])?;
        let chain: ChainFile =
            from_json(&json).map_err(|e| vec![at(shape_error(&e.to_string(), ""))])?;
        let mut problems = Vec::new();
        if chain.api_version != CHAIN_API_VERSION {
            problems.push(at(Diagnostic::error(
                Code::ApiVersion,
                format!(
                    "`{}` is not a chain file version this templiqx reads",
                    chain.api_version
                ),
            )
            .at("/api_version")
            .help(format!("write `\"api_version\": \"{CHAIN_API_VERSION}\"`"))));
        }
        let classes = match &chain.fall_back_on {
            None => FallbackPolicy::default().classes().to_vec(),
            Some(names) => names
                .iter()
                .enumerate()
                .filter_map(|(i, name)| match FailureClass::parse(name) {
                    Some(c) => Some(c),
                    None => {
                        problems.push(at(Diagnostic::error(
                            Code::InvalidValue,
                            format!("`{name}` is not a failure class"),
                        )
                        .at(format!("/fall_back_on/{i}"))
                        .help(format!(
                            "expected one of {}",
                            FailureClass::ALL
                                .iter()
                                .map(|c| format!("`{c}`"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ))));
                        None
                    }
                })
                .collect(),
        };
        if chain.members.is_empty() {
            problems.push(at(Diagnostic::error(
                Code::InvalidValue,
                "a chain needs at least one member",
            )
            .at("/members")
            .help("list the providers to try, in order")));
        }
        let strategy = chain.strategy.unwrap_or(Strategy::Fallback);
        let mut adapter = Fallback::new(strategy, FallbackPolicy::new(classes));
        let mut members: Vec<ChainMember> = Vec::new();
        for (i, value) in chain.members.iter().enumerate() {
            let pointer = format!("/members/{i}");
            let member: MemberFile = match from_json(value) {
                Ok(m) => m,
                Err(e) => {
                    problems.push(at(shape_error(&e.to_string(), &pointer)));
                    continue;
                }
            };
            match configure_member(member, defaults, &members) {
                Ok((info, configured)) => {
                    adapter = adapter.member(info.name.clone(), configured);
                    members.push(info);
                }
                Err(d) => problems.push(at(d.at(pointer))),
            }
        }
        if problems.is_empty() {
            Ok(Chain { adapter, members })
        } else {
            Err(problems)
        }
    }

    /// The strategy's name and the members' names, for reports
    /// (`fallback`, `local/hosted`).
    pub fn label(&self) -> (&'static str, String) {
        (
            self.adapter.strategy().name(),
            self.members
                .iter()
                .map(|m| m.name.as_str())
                .collect::<Vec<_>>()
                .join("/"),
        )
    }
}

/// A diagnostic for a chain file or member whose shape is wrong, from
/// serde's message, at `pointer`.
fn shape_error(message: &str, pointer: &str) -> Diagnostic {
    let code = if message.starts_with("unknown field") {
        Code::UnknownField
    } else if message.starts_with("missing field") {
        Code::MissingField
    } else {
        Code::InvalidValue
    };
    let d = Diagnostic::error(code, message.to_owned())
        .help("see docs/adapters.md, \"Fallback chains\", for the chain file's fields");
    if pointer.is_empty() { d } else { d.at(pointer) }
}

/// One member's adapter and description, its wire settings over
/// `defaults`; named `provider:model` unless it names itself (`#2`, `#3`
/// after a name already taken).
fn configure_member(
    member: MemberFile,
    defaults: &WireArgs,
    earlier: &[ChainMember],
) -> Result<(ChainMember, Adapter), Diagnostic> {
    let kind = match member.provider.as_str() {
        "openai" => ProviderKind::Openai,
        "anthropic" => ProviderKind::Anthropic,
        other => {
            return Err(Diagnostic::error(
                Code::InvalidValue,
                format!("`{other}` is not a provider"),
            )
            .help("expected `openai` or `anthropic`"));
        }
    };
    let structured_output = match member.structured_output.as_deref() {
        None => defaults.structured_output,
        Some("json-schema") => StructuredOutputArg::JsonSchema,
        Some("json-object-schema") => StructuredOutputArg::JsonObjectSchema,
        Some("prompt-only") => StructuredOutputArg::PromptOnly,
        Some(other) => {
            return Err(Diagnostic::error(
                Code::InvalidValue,
                format!("`{other}` is not a structured output mode"),
            )
            .help("expected `json-schema`, `json-object-schema` or `prompt-only`"));
        }
    };
    // The command line's settings, each a member sets replaced.
    let mut wire = defaults.clone();
    wire.structured_output = structured_output;
    if let Some(var) = member.api_key_env {
        wire.api_key_env = Some(var);
    }
    if let Some(on) = member.developer_as_system {
        wire.developer_as_system = on;
    }
    if let Some(on) = member.max_tokens_field_legacy {
        wire.max_tokens_field_legacy = on;
    }
    if let Some(headers) = member.headers {
        wire.headers = headers;
    }
    if let Some(ms) = member.timeout_ms {
        wire.timeout_ms = ms;
    }
    if let Some(ms) = member.idle_timeout_ms {
        wire.idle_timeout_ms = Some(ms);
    }
    if wire.timeout_ms == 0 || wire.idle_timeout_ms == Some(0) {
        return Err(Diagnostic::error(
            Code::InvalidValue,
            "`timeout_ms` and `idle_timeout_ms` must be at least 1",
        ));
    }
    let adapter =
        Adapter::new(kind, &member.base_url, &member.model, &wire).map_err(|message| {
            Diagnostic::error(
                Code::RuntimePermanent,
                format!(
                    "the {} adapter refuses its configuration: {message}",
                    kind.name()
                ),
            )
            .help("fix the member's setting it names (docs/adapters.md); nothing was sent")
        })?;
    let mut name = member
        .name
        .unwrap_or_else(|| format!("{}:{}", kind.name(), member.model));
    let base = name.clone();
    let mut n = 1;
    while earlier.iter().any(|m| m.name == name) {
        n += 1;
        name = format!("{base}#{n}");
    }
    // Header values may be secrets: names only.
    let headers: Vec<&str> = wire
        .headers
        .iter()
        .map(|h| h.split_once(':').map_or(h.as_str(), |(n, _)| n.trim()))
        .collect();
    let base_url = without_userinfo(&member.base_url);
    let transport = serde_json::json!({
        "name": name,
        "provider": kind.name(),
        "model": member.model,
        "base_url": base_url,
        "structured_output": format!("{:?}", wire.structured_output),
        "developer_as_system": wire.developer_as_system,
        "max_tokens_field_legacy": wire.max_tokens_field_legacy,
        "headers": headers,
    });
    Ok((
        ChainMember {
            name,
            base_url,
            transport,
        },
        adapter,
    ))
}

/// `url` without the `user:password@` a URL may carry: what reports and
/// the history keep is never a secret.
pub fn without_userinfo(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) => format!("{scheme}://{}", &rest[at + 1..]),
        None => url.to_owned(),
    }
}

/// `--recover-output` as the adapters' policy (`docs/runtime.md`, "Output
/// recovery").
pub fn recovery(args: &WireArgs) -> templiqx::OutputRecovery {
    templiqx::OutputRecovery::from_flag(args.recover_output)
}

/// `NAME:VALUE` headers.
fn parse_headers(headers: &[String]) -> Result<Vec<(String, String)>, String> {
    headers
        .iter()
        .map(|h| match h.split_once(':') {
            Some((name, value)) if !name.trim().is_empty() => {
                Ok((name.trim().to_owned(), value.trim().to_owned()))
            }
            _ => Err("--header takes NAME:VALUE (the name is missing)".to_owned()),
        })
        .collect()
}
