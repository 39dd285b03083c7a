//! What the server and the client tell each other in the initialize
//! handshake: the client's `initializationOptions` and the capabilities
//! the answers depend on ([`Init`]), and the server's capabilities.

use lsp_types::{
    HoverProviderCapability, OneOf, PositionEncodingKind, SaveOptions, ServerCapabilities,
    TextDocumentSyncCapability, TextDocumentSyncKind, TextDocumentSyncOptions,
    TextDocumentSyncSaveOptions, Url,
};
use serde_json::Value;
use templiqx_contracts::CapabilityProfile;

/// The `docs/diagnostics.md` of the source tree the server was built from,
/// when it is still there: the default link of every diagnostic code.
pub(crate) fn default_docs() -> Option<Url> {
    let path = std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../docs/diagnostics.md"
    ));
    let path = path.canonicalize().ok()?;
    Url::from_file_path(path).ok()
}

/// The settings a client sends as `initializationOptions`.
pub(crate) struct Init {
    /// The target profile (`target`), when given.
    pub(crate) target: Option<CapabilityProfile>,
    /// Where diagnostic codes link to (`diagnosticsUrl`; `Some(None)`: no
    /// links), when given.
    pub(crate) docs: Option<Option<Url>>,
    /// Whether the client can watch files for the server
    /// (`workspace.didChangeWatchedFiles.dynamicRegistration`).
    pub(crate) watch: bool,
    /// What the client supports.
    pub(crate) client: Client,
    /// What of `initializationOptions` was ignored, and why: said once to
    /// the user (`window/showMessage`) with what is used instead.
    pub(crate) ignored: Vec<String>,
}

/// What the client supports, of what the answers depend on.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Client {
    /// `textDocument/prepareRename` (`rename.prepareSupport`): only then
    /// may the server announce it.
    pub(crate) prepare_rename: bool,
    /// Workspace edits as versioned `documentChanges`
    /// (`workspaceEdit.documentChanges`).
    pub(crate) document_changes: bool,
}

/// A JSON value, short, for a message.
fn shown(value: &Value) -> String {
    crate::transport::excerpt(&value.to_string())
}

impl Init {
    /// The settings of `initialize`'s params: `initializationOptions`
    /// (`target`: a list of capability names or a comma-separated string;
    /// `diagnosticsUrl`: the URL of `docs/diagnostics.md`, or `""` for no
    /// links) and the client capabilities the answers depend on. What
    /// cannot be used is listed in [`Init::ignored`], never an error.
    pub(crate) fn parse(params: &Value) -> Init {
        let mut ignored = Vec::new();
        let options = match params.get("initializationOptions") {
            None | Some(Value::Null) => None,
            Some(o @ Value::Object(_)) => Some(o),
            Some(other) => {
                ignored.push(format!(
                    "initializationOptions {} (expected an object)",
                    shown(other)
                ));
                None
            }
        };
        let target = match options.and_then(|o| o.get("target")) {
            None | Some(Value::Null) => None,
            Some(Value::Array(items)) => {
                let mut names = Vec::new();
                for item in items {
                    match item.as_str().map(str::trim) {
                        Some(name) if !name.is_empty() => names.push(name),
                        _ => ignored.push(format!(
                            "target entry {} (expected a capability name)",
                            shown(item)
                        )),
                    }
                }
                Some(CapabilityProfile::new(names))
            }
            Some(Value::String(list)) => Some(CapabilityProfile::parse_list(list)),
            Some(other) => {
                ignored.push(format!(
                    "target {} (expected a list of capability names or a comma-separated string)",
                    shown(other)
                ));
                None
            }
        };
        let docs = match options.and_then(|o| o.get("diagnosticsUrl")) {
            None => None,
            Some(Value::String(s)) if s.is_empty() => Some(None),
            Some(Value::Null) => Some(None),
            Some(Value::String(s)) => match Url::parse(s) {
                Ok(url) => Some(Some(url)),
                Err(e) => {
                    ignored.push(format!(
                        "diagnosticsUrl {} ({e})",
                        shown(&Value::from(s.as_str()))
                    ));
                    None
                }
            },
            Some(other) => {
                ignored.push(format!(
                    "diagnosticsUrl {} (expected a URL, or \"\" for no links)",
                    shown(other)
                ));
                None
            }
        };
        let capability = |pointer: &str| {
            params
                .pointer(&format!("/capabilities{pointer}"))
                .and_then(Value::as_bool)
                .unwrap_or(false)
        };
        Init {
            target,
            docs,
            watch: capability("/workspace/didChangeWatchedFiles/dynamicRegistration"),
            client: Client {
                prepare_rename: capability("/textDocument/rename/prepareSupport"),
                document_changes: capability("/workspace/workspaceEdit/documentChanges"),
            },
            ignored,
        }
    }
}

/// The server's capabilities, for a client that supports `client`.
pub(crate) fn capabilities(client: Client) -> ServerCapabilities {
    ServerCapabilities {
        position_encoding: Some(PositionEncodingKind::UTF16),
        text_document_sync: Some(TextDocumentSyncCapability::Options(
            TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::INCREMENTAL),
                will_save: None,
                will_save_wait_until: None,
                save: Some(TextDocumentSyncSaveOptions::SaveOptions(SaveOptions {
                    include_text: Some(false),
                })),
            },
        )),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        completion_provider: Some(lsp_types::CompletionOptions {
            trigger_characters: Some(
                crate::requests::completion::TRIGGERS
                    .iter()
                    .map(|&c| c.to_owned())
                    .collect(),
            ),
            ..lsp_types::CompletionOptions::default()
        }),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        rename_provider: Some(if client.prepare_rename {
            OneOf::Right(lsp_types::RenameOptions {
                prepare_provider: Some(true),
                work_done_progress_options: lsp_types::WorkDoneProgressOptions::default(),
            })
        } else {
            OneOf::Left(true)
        }),
        code_action_provider: Some(lsp_types::CodeActionProviderCapability::Options(
            lsp_types::CodeActionOptions {
                code_action_kinds: Some(vec![lsp_types::CodeActionKind::QUICKFIX]),
                ..lsp_types::CodeActionOptions::default()
            },
        )),
        document_symbol_provider: Some(OneOf::Left(true)),
        ..ServerCapabilities::default()
    }
}
