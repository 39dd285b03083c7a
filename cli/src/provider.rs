//! The provider adapters `run` and `eval` configure from their flags
//! (`docs/adapters.md`), and the chains of them a `--chain` file
//! describes (`docs/adapters.md`, "Fallback chains").

use crate::args::{ProviderKind, StructuredOutputArg, WireArgs};
use std::future::Future;
use std::path::Path;
use std::time::Duration;
use templiqx::{
    AdapterDescriptor, AdapterOutput, AsyncRuntimeAdapter, Execution, ExecutionError, FailureClass,
    Fallback, FallbackPolicy, RuntimeFailure, Strategy, StreamEvent,
};
use templiqx_contracts::json::parse;
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

/// The fields of a chain file (`docs/adapters.md`, "Fallback chains").
const CHAIN_FIELDS: &[&str] = &["api_version", "strategy", "fall_back_on", "members"];

/// The fields of a chain file's member.
const MEMBER_FIELDS: &[&str] = &[
    "name",
    "provider",
    "base_url",
    "model",
    "api_key_env",
    "structured_output",
    "developer_as_system",
    "max_tokens_field_legacy",
    "headers",
    "timeout_ms",
    "idle_timeout_ms",
];

/// One member of a chain file, read: a provider, base URL and model, and
/// any wire setting that differs from the command line's.
struct MemberFile {
    name: Option<String>,
    provider: ProviderKind,
    base_url: String,
    model: String,
    api_key_env: Option<String>,
    structured_output: Option<StructuredOutputArg>,
    developer_as_system: Option<bool>,
    max_tokens_field_legacy: Option<bool>,
    headers: Option<Vec<String>>,
    timeout_ms: Option<u64>,
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
    /// settings defaulting to `defaults` (the command line's), or every
    /// problem found (`docs/adapters.md`, "Fallback chains"): `TQX_IO`,
    /// `TQX_PARSE_JSON` (not UTF-8 JSON, a key twice), `TQX_INVALID_TYPE`
    /// (the file or a member not an object, a field of the wrong JSON type),
    /// `TQX_API_VERSION`, `TQX_UNKNOWN_FIELD`, `TQX_MISSING_FIELD`,
    /// `TQX_INVALID_VALUE` (a strategy, failure class, provider or
    /// structured output mode that does not exist, no member, a name
    /// empty, twice, or holding `/` or a control character, a timeout of
    /// 0, a header without a name), `TQX_RUNTIME_PERMANENT` for an adapter
    /// refusing its configuration; each in the file, at its JSON pointer
    /// and line and column, in the order of the file. Usage errors.
    pub fn load(path: &Path, defaults: &WireArgs) -> Result<Chain, Vec<Diagnostic>> {
        let file = crate::input::display(path);
        let text = std::fs::read_to_string(path).map_err(|e| {
            vec![
                Diagnostic::error(Code::Io, format!("cannot read the chain file: {e}"))
                    .in_file(file.clone())
                    .help("--chain names a JSON file (docs/adapters.md, \"Fallback chains\")"),
            ]
        })?;
        let json = parse(&text).map_err(|d| vec![d.in_file(file.clone())])?;
        let mut reader = Reader::default();
        let chain = reader.chain(&json, defaults);
        if let Some(chain) = chain
            && reader.problems.is_empty()
        {
            return Ok(chain);
        }
        // Each problem at its line and column: an unknown field at its
        // key, anything else at its value (a missing field at the object
        // that lacks it).
        let tree = templiqx_build::yaml::parse_spans(&text).ok();
        let mut problems: Vec<Diagnostic> = reader
            .problems
            .into_iter()
            .map(|mut d| {
                if let (Some(tree), Some(pointer)) = (&tree, d.json_pointer.as_deref()) {
                    d.span = match d.code {
                        Code::UnknownField => tree.key_span(pointer),
                        _ => None,
                    }
                    .or_else(|| tree.span_of(pointer));
                }
                d.in_file(file.clone())
            })
            .collect();
        problems.sort_by_key(|d| d.span.map(|s| (s.start.line, s.start.column)));
        Err(problems)
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

/// Where the chain file's fields are told.
const SEE_FIELDS: &str = "see docs/adapters.md, \"Fallback chains\", for the chain file's fields";

/// What a JSON value is, for messages.
fn kind(value: &Json) -> &'static str {
    match value {
        Json::Null => "null",
        Json::Bool(_) => "a boolean",
        Json::Number(_) => "a number",
        Json::String(_) => "a string",
        Json::Array(_) => "an array",
        Json::Object(_) => "an object",
    }
}

/// `text` as a message may quote it: control characters escaped, so that
/// none reaches a terminal.
fn shown(text: &str) -> String {
    text.escape_debug().to_string()
}

/// `key` as a JSON pointer token (RFC 6901: `~` is `~0`, `/` is `~1`).
fn token(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// `word` with `_` for every `-`: the file's words (`strategy`,
/// `fall_back_on`, `structured_output`) may be written with either.
fn word(text: &str) -> String {
    text.replace('-', "_")
}

/// Why `name` cannot name a member, if it cannot: the names are joined
/// with `/` in the recorded model, and printed to terminals.
fn name_problem(name: &str) -> Option<&'static str> {
    if name.trim().is_empty() {
        Some("is empty")
    } else if name.contains('/') {
        Some("holds `/`, which joins the members' names in the recorded model")
    } else if name.chars().any(char::is_control) {
        Some("holds a control character (a newline, a tab, ESC, …)")
    } else {
        None
    }
}

/// Reads a chain file's JSON, collecting every problem.
#[derive(Default)]
struct Reader {
    problems: Vec<Diagnostic>,
}

impl Reader {
    fn push(&mut self, code: Code, message: String, pointer: &str, help: impl Into<String>) {
        self.problems
            .push(Diagnostic::error(code, message).at(pointer).help(help));
    }

    /// `value` as an object of `fields` (`what`: "the chain file", "a
    /// chain member"), its unknown fields reported.
    fn object<'j>(
        &mut self,
        value: &'j Json,
        pointer: &str,
        what: &str,
        fields: &[&str],
    ) -> Option<&'j templiqx_contracts::json::JsonMap> {
        let Json::Object(map) = value else {
            self.push(
                Code::InvalidType,
                format!("{what} must be a JSON object, not {}", kind(value)),
                pointer,
                SEE_FIELDS,
            );
            return None;
        };
        for key in map.keys().filter(|k| !fields.contains(&k.as_str())) {
            self.push(
                Code::UnknownField,
                format!("unknown field `{}` in {what}", shown(key)),
                &format!("{pointer}/{}", token(key)),
                format!(
                    "{what}'s fields are {} (docs/adapters.md, \"Fallback chains\")",
                    fields
                        .iter()
                        .map(|f| format!("`{f}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            );
        }
        Some(map)
    }

    /// The field `key` of `map` (at `pointer`), or a `TQX_MISSING_FIELD`.
    fn required<'j>(
        &mut self,
        map: &'j templiqx_contracts::json::JsonMap,
        pointer: &str,
        key: &str,
        what: &str,
    ) -> Option<&'j Json> {
        let found = map.get(key);
        if found.is_none() {
            self.push(
                Code::MissingField,
                format!("missing field `{key}` in {what}"),
                pointer,
                SEE_FIELDS,
            );
        }
        found
    }

    fn wrong_type(&mut self, value: &Json, pointer: &str, expected: &str) {
        self.push(
            Code::InvalidType,
            format!("expected {expected}, found {}", kind(value)),
            pointer,
            SEE_FIELDS,
        );
    }

    fn string(&mut self, value: &Json, pointer: &str) -> Option<String> {
        match value {
            Json::String(s) => Some(s.clone()),
            other => {
                self.wrong_type(other, pointer, "a string");
                None
            }
        }
    }

    fn boolean(&mut self, value: &Json, pointer: &str) -> Option<bool> {
        match value {
            Json::Bool(b) => Some(*b),
            other => {
                self.wrong_type(other, pointer, "`true` or `false`");
                None
            }
        }
    }

    /// A whole number of milliseconds, at least 1.
    fn millis(&mut self, value: &Json, pointer: &str) -> Option<u64> {
        match value.as_u64() {
            Some(ms) if ms >= 1 => Some(ms),
            Some(_) => {
                self.push(
                    Code::InvalidValue,
                    "a timeout must be at least 1 ms".to_owned(),
                    pointer,
                    "write a whole number of milliseconds, 1 or more",
                );
                None
            }
            None => {
                self.wrong_type(value, pointer, "a whole number of milliseconds");
                None
            }
        }
    }

    /// The chain the file's JSON describes, its members configured; `None`
    /// when a problem leaves nothing to configure.
    fn chain(&mut self, json: &Json, defaults: &WireArgs) -> Option<Chain> {
        let map = self.object(json, "", "the chain file", CHAIN_FIELDS)?;
        if let Some(v) = self.required(map, "", "api_version", "the chain file")
            && let Some(version) = self.string(v, "/api_version")
            && version != CHAIN_API_VERSION
        {
            self.push(
                Code::ApiVersion,
                format!(
                    "`{}` is not a chain file version this templiqx reads",
                    shown(&version)
                ),
                "/api_version",
                format!("write `\"api_version\": \"{CHAIN_API_VERSION}\"`"),
            );
        }
        let strategy = match map.get("strategy") {
            None => Strategy::Fallback,
            Some(v) => match self.string(v, "/strategy").map(|s| (word(&s), s)) {
                Some((w, _)) if w == "fallback" => Strategy::Fallback,
                Some((w, _)) if w == "round_robin" => Strategy::RoundRobin,
                Some((_, s)) => {
                    self.push(
                        Code::InvalidValue,
                        format!("`{}` is not a strategy", shown(&s)),
                        "/strategy",
                        "expected `fallback` or `round_robin` (`-` may stand for `_`)",
                    );
                    Strategy::Fallback
                }
                None => Strategy::Fallback,
            },
        };
        let classes = match map.get("fall_back_on") {
            None => FallbackPolicy::default().classes().to_vec(),
            Some(Json::Array(names)) => {
                let mut classes = Vec::new();
                for (i, name) in names.iter().enumerate() {
                    let pointer = format!("/fall_back_on/{i}");
                    let Some(name) = self.string(name, &pointer) else {
                        continue;
                    };
                    let w = word(&name);
                    match FailureClass::ALL.into_iter().find(|c| c.name() == w) {
                        Some(c) => classes.push(c),
                        None => self.push(
                            Code::InvalidValue,
                            format!("`{}` is not a failure class", shown(&name)),
                            &pointer,
                            format!(
                                "expected one of {} (`-` may stand for `_`)",
                                FailureClass::ALL
                                    .iter()
                                    .map(|c| format!("`{c}`"))
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            ),
                        ),
                    }
                }
                classes
            }
            Some(other) => {
                self.wrong_type(other, "/fall_back_on", "an array of failure classes");
                Vec::new()
            }
        };
        let items = match self.required(map, "", "members", "the chain file")? {
            Json::Array(items) => items,
            other => {
                self.wrong_type(other, "/members", "an array of members");
                return None;
            }
        };
        if items.is_empty() {
            self.push(
                Code::InvalidValue,
                "a chain needs at least one member".to_owned(),
                "/members",
                "list the providers to try, in order",
            );
        }
        let read: Vec<Option<MemberFile>> = items
            .iter()
            .enumerate()
            .map(|(i, item)| self.member(item, &format!("/members/{i}")))
            .collect();
        let names = self.names(items, &read);
        let mut adapter = Fallback::new(strategy, FallbackPolicy::new(classes));
        let mut members: Vec<ChainMember> = Vec::new();
        for (i, (member, name)) in read.into_iter().zip(names).enumerate() {
            let Some(member) = member else { continue };
            match configure_member(member, name, defaults) {
                Ok((info, configured)) => {
                    adapter = adapter.member(info.name.clone(), configured);
                    members.push(info);
                }
                Err(d) => self.problems.push(d.at(format!("/members/{i}"))),
            }
        }
        Some(Chain { adapter, members })
    }

    /// One member, or `None` when it has a problem (reported).
    fn member(&mut self, item: &Json, pointer: &str) -> Option<MemberFile> {
        const WHAT: &str = "a chain member";
        let map = self.object(item, pointer, WHAT, MEMBER_FIELDS)?;
        let before = self.problems.len();
        let at = |key: &str| format!("{pointer}/{key}");
        let provider = self.required(map, pointer, "provider", WHAT).and_then(|v| {
            let name = self.string(v, &at("provider"))?;
            match name.as_str() {
                "openai" => Some(ProviderKind::Openai),
                "anthropic" => Some(ProviderKind::Anthropic),
                other => {
                    self.push(
                        Code::InvalidValue,
                        format!("`{}` is not a provider", shown(other)),
                        &at("provider"),
                        "expected `openai` or `anthropic`",
                    );
                    None
                }
            }
        });
        let base_url = self
            .required(map, pointer, "base_url", WHAT)
            .and_then(|v| self.string(v, &at("base_url")));
        let model = self
            .required(map, pointer, "model", WHAT)
            .and_then(|v| self.string(v, &at("model")));
        let name = map.get("name").and_then(|v| self.string(v, &at("name")));
        if let Some(name) = &name
            && let Some(why) = name_problem(name)
        {
            self.push(
                Code::InvalidValue,
                format!("the member's name \"{}\" {why}", shown(name)),
                &at("name"),
                "name a member with letters, digits and punctuation other than `/` (or leave `name` out for `provider:model`)",
            );
        }
        let api_key_env = map
            .get("api_key_env")
            .and_then(|v| self.string(v, &at("api_key_env")));
        let structured_output = map.get("structured_output").and_then(|v| {
            let mode = self.string(v, &at("structured_output"))?;
            match word(&mode).as_str() {
                "json_schema" => Some(StructuredOutputArg::JsonSchema),
                "json_object_schema" => Some(StructuredOutputArg::JsonObjectSchema),
                "prompt_only" => Some(StructuredOutputArg::PromptOnly),
                _ => {
                    self.push(
                        Code::InvalidValue,
                        format!("`{}` is not a structured output mode", shown(&mode)),
                        &at("structured_output"),
                        "expected `json-schema`, `json-object-schema` or `prompt-only` (`_` may stand for `-`)",
                    );
                    None
                }
            }
        });
        let developer_as_system = map
            .get("developer_as_system")
            .and_then(|v| self.boolean(v, &at("developer_as_system")));
        let max_tokens_field_legacy = map
            .get("max_tokens_field_legacy")
            .and_then(|v| self.boolean(v, &at("max_tokens_field_legacy")));
        let headers = match map.get("headers") {
            None => None,
            Some(Json::Array(items)) => {
                let mut headers = Vec::new();
                for (j, h) in items.iter().enumerate() {
                    let pointer = format!("{}/{j}", at("headers"));
                    let Some(h) = self.string(h, &pointer) else {
                        continue;
                    };
                    // The value may be a secret: never quoted.
                    if h.split_once(':').is_none_or(|(n, _)| n.trim().is_empty()) {
                        self.push(
                            Code::InvalidValue,
                            "a header has no name".to_owned(),
                            &pointer,
                            "write each header as \"NAME: VALUE\"",
                        );
                    }
                    headers.push(h);
                }
                Some(headers)
            }
            Some(other) => {
                self.wrong_type(other, &at("headers"), "an array of \"NAME: VALUE\" strings");
                None
            }
        };
        let timeout_ms = map
            .get("timeout_ms")
            .and_then(|v| self.millis(v, &at("timeout_ms")));
        let idle_timeout_ms = map
            .get("idle_timeout_ms")
            .and_then(|v| self.millis(v, &at("idle_timeout_ms")));
        if self.problems.len() > before {
            return None;
        }
        Some(MemberFile {
            name,
            provider: provider?,
            base_url: base_url?,
            model: model?,
            api_key_env,
            structured_output,
            developer_as_system,
            max_tokens_field_legacy,
            headers,
            timeout_ms,
            idle_timeout_ms,
        })
    }

    /// Every member's name: its own (a name twice is an error), or
    /// `provider:model` (`/` and control characters as `_`) with `#2`,
    /// `#3`… when that is taken by any member's own name or an earlier
    /// generated one. A member not read gets an empty name. Names given
    /// are compared in `items` (the members' JSON), so a name given twice
    /// is reported even when one of the two members has other problems.
    fn names(&mut self, items: &[Json], members: &[Option<MemberFile>]) -> Vec<String> {
        fn given(item: &Json) -> Option<&str> {
            item.get("name")
                .and_then(Json::as_str)
                .filter(|n| name_problem(n).is_none())
        }
        let mut taken: Vec<&str> = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let Some(name) = given(item) else {
                continue;
            };
            if let Some(first) = items.iter().position(|m| given(m) == Some(name))
                && first < i
            {
                self.push(
                    Code::InvalidValue,
                    format!("member {i}'s name `{}` is member {first}'s", shown(name)),
                    &format!("/members/{i}/name"),
                    "give each member its own name",
                );
            }
            taken.push(name);
        }
        let mut generated: Vec<String> = Vec::new();
        members
            .iter()
            .map(|member| match member {
                None => String::new(),
                Some(m) => match &m.name {
                    Some(name) => name.clone(),
                    None => {
                        let base: String = format!("{}:{}", m.provider.name(), m.model)
                            .chars()
                            .map(|c| if c == '/' || c.is_control() { '_' } else { c })
                            .collect();
                        let mut name = base.clone();
                        let mut n = 1;
                        while taken.contains(&name.as_str()) || generated.contains(&name) {
                            n += 1;
                            name = format!("{base}#{n}");
                        }
                        generated.push(name.clone());
                        name
                    }
                },
            })
            .collect()
    }
}

/// One member's adapter and description, named `name`, its wire settings
/// over `defaults`.
fn configure_member(
    member: MemberFile,
    name: String,
    defaults: &WireArgs,
) -> Result<(ChainMember, Adapter), Diagnostic> {
    let kind = member.provider;
    // The command line's settings, each a member sets replaced.
    let mut wire = defaults.clone();
    if let Some(mode) = member.structured_output {
        wire.structured_output = mode;
    }
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
