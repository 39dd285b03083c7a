//! The arguments of each tool: their JSON Schemas (the tools' input
//! schemas) and how a call's arguments are read.

use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::sync::Arc;
use templiqx_contracts::{Code, Diagnostic};

/// Arguments of `check`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct CheckArgs {
    /// A package directory (holding `templiqx.yaml`) or a contract file,
    /// relative to the server's working directory and inside a served root.
    /// With `text`: the contract file the text is compiled as (its package
    /// and includes are that file's), whether a file is there or not.
    /// Without `path` and `text`: every served root.
    pub path: Option<String>,
    /// Unsaved contract text (YAML), compiled as the file at `path`
    /// (default: `untitled.yaml` in the first served root). At most 16 MiB.
    pub text: Option<String>,
    /// The target capability profile (capability names). Default: the
    /// server's `--target`, else each contract's required capabilities.
    pub target: Option<Vec<String>>,
}

/// Arguments of `render`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RenderArgs {
    /// A served prompt's name (the contract id), or the path of a contract
    /// file inside a served root.
    pub contract: String,
    /// The contract's inputs, one member per declared field.
    pub inputs: Option<serde_json::Map<String, Value>>,
    /// The contract's context, one member per declared field.
    pub context: Option<serde_json::Map<String, Value>>,
    /// The target capability profile (capability names). Default: the
    /// server's `--target`, else the contract's required capabilities.
    pub target: Option<Vec<String>>,
}

/// Arguments of `fingerprint`: one of `value` and `text`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct FingerprintArgs {
    /// The JSON value to fingerprint.
    pub value: Option<Value>,
    /// JSON text to fingerprint, read exactly as `templiqx fingerprint`
    /// reads a file (integers of any size kept exact, a duplicate key
    /// refused). At most 16 MiB.
    pub text: Option<String>,
    /// Also return the canonical JSON text (RFC 8785) the fingerprint is
    /// the SHA-256 of.
    #[serde(default)]
    pub canonical: bool,
}

/// Arguments of `schema`: none.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SchemaArgs {}

/// Arguments of `diff`: `old_text` and `new_text` (two versions of a
/// contract), or `path` and `base` (a package or contract file against a
/// git revision).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct DiffArgs {
    /// The old version of a contract (YAML). At most 16 MiB.
    pub old_text: Option<String>,
    /// The new version of the contract (YAML). At most 16 MiB.
    pub new_text: Option<String>,
    /// With `base`: the package directory or contract file compared with
    /// itself at that revision. With the texts: the contract file both are
    /// compiled as (default: `untitled.yaml` in the first served root).
    /// Inside a served root.
    pub path: Option<String>,
    /// A git revision (`HEAD`, `origin/main`, a tag, a commit): compare
    /// `path` as it is there with the working tree.
    pub base: Option<String>,
    /// The target capability profile (capability names). Default: the
    /// server's `--target`, else each contract's required capabilities.
    pub target: Option<Vec<String>>,
}

/// Arguments of `eval`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct EvalArgs {
    /// A package directory or contract file inside a served root (default:
    /// every served root).
    pub path: Option<String>,
    /// Globs over `contract::fixture` (`lease-*::*`); every fixture when
    /// absent. Each must match a fixture.
    pub filter: Option<Vec<String>>,
    /// How many times each fixture runs, from 1 to 100 (default 1).
    pub repeat: Option<u32>,
    /// Who answers: `fake` (default: each fixture's own `fake_output`;
    /// fixtures without one are left out), or `openai` or `anthropic`, the
    /// model the server was configured with, only when it was started with
    /// `--allow-providers` (the calls may cost money).
    pub provider: Option<Provider>,
    /// The target capability profile (capability names). Default: the
    /// server's `--target`, else each contract's required capabilities.
    pub target: Option<Vec<String>>,
}

/// The providers `eval` may run on.
#[derive(Clone, Copy, Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Provider {
    /// Each fixture answered with its `fake_output`: no model, no network.
    Fake,
    /// The OpenAI Chat Completions wire format, on the server's
    /// configuration (`--allow-providers --provider openai`).
    Openai,
    /// The Anthropic Messages API, on the server's configuration
    /// (`--allow-providers --provider anthropic`).
    Anthropic,
}

impl Provider {
    /// Its name, as a call gives it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Provider::Fake => "fake",
            Provider::Openai => "openai",
            Provider::Anthropic => "anthropic",
        }
    }
}

/// The input schema of `T`, as a tool declares it.
pub(crate) fn input_schema<T: JsonSchema>() -> Arc<serde_json::Map<String, Value>> {
    let schema = schemars::schema_for!(T);
    match serde_json::to_value(schema) {
        Ok(Value::Object(map)) => Arc::new(map),
        _ => Arc::new(serde_json::Map::new()),
    }
}

/// Reads a call's arguments as `T`.
///
/// # Errors
/// `TQX_UNKNOWN_FIELD`, `TQX_MISSING_FIELD`, `TQX_UNKNOWN_VARIANT` or
/// `TQX_INVALID_TYPE`, with serde's message.
pub(crate) fn read<T: DeserializeOwned>(
    tool: &str,
    args: serde_json::Map<String, Value>,
) -> Result<T, Diagnostic> {
    serde_json::from_value(Value::Object(args)).map_err(|e| {
        let message = e.to_string();
        let code = if message.starts_with("unknown field") {
            Code::UnknownField
        } else if message.starts_with("missing field") {
            Code::MissingField
        } else if message.starts_with("unknown variant") {
            Code::UnknownVariant
        } else {
            Code::InvalidType
        };
        Diagnostic::error(code, format!("invalid arguments of `{tool}`: {message}"))
            .help(format!("see the input schema of `{tool}` in tools/list"))
    })
}

/// `text`, when it is at most 16 MiB (what Templiqx reads of any file).
///
/// # Errors
/// `TQX_IO` naming the argument when it is larger.
pub(crate) fn bounded<'t>(name: &str, text: &'t str) -> Result<&'t str, Diagnostic> {
    use templiqx_build::text::MAX_SOURCE_BYTES;
    if text.len() as u64 > MAX_SOURCE_BYTES {
        return Err(Diagnostic::error(
            Code::Io,
            format!(
                "the argument `{name}` is larger than {} MiB",
                MAX_SOURCE_BYTES / (1024 * 1024)
            ),
        )
        .help("Templiqx reads at most 16 MiB of any text, as of any file"));
    }
    Ok(text)
}
