//! The provider adapters `run` and `eval` configure from their flags
//! (`docs/adapters.md`).

use crate::args::{ProviderKind, StructuredOutputArg, WireArgs};
use std::time::Duration;
use templiqx::{AsyncRuntimeAdapter, Execution, ExecutionError, StreamEvent};
use templiqx_contracts::RenderedInteraction;

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
                    .map(Adapter::OpenAi)
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
                    .map(Adapter::Anthropic)
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
