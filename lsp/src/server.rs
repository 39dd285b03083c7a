//! The protocol loop: the initialize handshake, then one message at a time.

use crate::convert::LineIndex;
use crate::navigate::{self, Jump};
use crate::transport::Transport;
use crate::workspace::{Publication, Workspace};
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidChangeWatchedFiles, DidCloseTextDocument, DidOpenTextDocument,
    DidSaveTextDocument, Exit, LogMessage, Notification as _, PublishDiagnostics, ShowMessage,
};
use lsp_types::request::{
    CodeActionRequest, Completion, DocumentSymbolRequest, GotoDefinition, HoverRequest, Initialize,
    PrepareRenameRequest, References, RegisterCapability, Rename, Request as _, Shutdown,
};
use lsp_types::{
    DidChangeTextDocumentParams, DidChangeWatchedFilesParams,
    DidChangeWatchedFilesRegistrationOptions, DidCloseTextDocumentParams,
    DidOpenTextDocumentParams, DidSaveTextDocumentParams, DocumentSymbolParams,
    DocumentSymbolResponse, FileSystemWatcher, GlobPattern, GotoDefinitionParams,
    GotoDefinitionResponse, Hover, HoverContents, HoverParams, HoverProviderCapability, Location,
    LogMessageParams, MarkupContent, MarkupKind, MessageType, OneOf, Position,
    PositionEncodingKind, PublishDiagnosticsParams, Range, Registration, RegistrationParams,
    SaveOptions, ServerCapabilities, ShowMessageParams, TextDocumentPositionParams,
    TextDocumentSyncCapability, TextDocumentSyncKind, TextDocumentSyncOptions,
    TextDocumentSyncSaveOptions, Url,
};
use serde_json::Value;
use std::panic::{AssertUnwindSafe, catch_unwind};
use templiqx_build::MANIFEST;
use templiqx_contracts::CapabilityProfile;

/// What stops the server: a broken connection or a protocol error.
pub type Error = Box<dyn std::error::Error + Send + Sync>;

/// How the server is started (`templiqx lsp`'s command line).
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The target capability profile (`--target`). The client's
    /// `initializationOptions.target` takes precedence; with neither,
    /// capability checks are skipped.
    pub target: Option<CapabilityProfile>,
}

/// The `docs/diagnostics.md` of the source tree the server was built from,
/// when it is still there: the default link of every diagnostic code.
fn default_docs() -> Option<Url> {
    let path = std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../docs/diagnostics.md"
    ));
    let path = path.canonicalize().ok()?;
    Url::from_file_path(path).ok()
}

/// The settings a client sends as `initializationOptions`.
struct Init {
    target: Option<CapabilityProfile>,
    docs: Option<Option<Url>>,
    watch: bool,
    client: Client,
    /// What of `initializationOptions` was ignored, and why: said once to
    /// the user (`window/showMessage`) with what is used instead.
    ignored: Vec<String>,
}

/// What the client supports, of what the answers depend on.
#[derive(Clone, Copy, Debug, Default)]
struct Client {
    /// `textDocument/prepareRename` (`rename.prepareSupport`): only then
    /// may the server announce it.
    prepare_rename: bool,
    /// Workspace edits as versioned `documentChanges`
    /// (`workspaceEdit.documentChanges`).
    document_changes: bool,
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
    fn parse(params: &Value) -> Init {
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

fn capabilities(client: Client) -> ServerCapabilities {
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
                crate::complete::TRIGGERS
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

/// Serves one client on `connection` until it sends `exit`: the
/// initialize handshake, then diagnostics, hover, completion, go to
/// definition, find references, rename, quick fixes and document symbols.
///
/// The lifecycle is LSP 3.17's ("Initialize Request", "Shutdown Request",
/// "Exit Notification"), leniently: before `initialize`, a request is
/// answered `-32002 ServerNotInitialized` and a notification is dropped;
/// notifications are served from the `initialize` answer on, `initialized`
/// or not; a second `initialize` is answered `-32600 InvalidRequest`, and
/// so is every request after `shutdown`, whose notifications are dropped
/// until `exit`.
///
/// # Errors
/// When the connection breaks (the client goes away without `exit`) or
/// the client exits without asking to shut down first (as the protocol
/// asks, the caller then exits with status 1).
pub fn run(connection: &Connection, options: Options) -> Result<(), Error> {
    let Some((id, params)) = initialize(connection)? else {
        return Err(EXIT_WITHOUT_SHUTDOWN.into());
    };
    let init = Init::parse(&params);
    let target = init.target.or(options.target);
    let default_docs = default_docs();
    let docs = init.docs.clone().unwrap_or_else(|| default_docs.clone());
    let result = serde_json::json!({
        "capabilities": capabilities(init.client),
        "serverInfo": { "name": "templiqx", "version": env!("CARGO_PKG_VERSION") },
    });
    connection
        .sender
        .send(Response::new_ok(id, result).into())?;
    let mut server = Server {
        connection,
        workspace: Workspace::new(target.clone(), docs.clone()),
        client: init.client,
        next_id: 0,
        shut_down: false,
    };
    if !init.ignored.is_empty() {
        let target_used = match &target {
            Some(t) => format!(
                "the target is {}",
                t.iter()
                    .map(|c| format!("`{c}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            None => "there is no target: capability checks are skipped".to_owned(),
        };
        let target_used = if target.as_ref().is_some_and(|t| t.iter().next().is_none()) {
            "the target is empty: every capability a contract requires is missing".to_owned()
        } else {
            target_used
        };
        let docs_used = match &docs {
            Some(url) => format!("diagnostic codes link to {url}"),
            None => "diagnostic codes carry no link".to_owned(),
        };
        server.notify::<ShowMessage>(ShowMessageParams {
            typ: MessageType::WARNING,
            message: format!(
                "templiqx: ignored in initializationOptions: {}; {target_used}; {docs_used}",
                init.ignored.join("; ")
            ),
        })?;
    } else if target.is_none() {
        server.notify::<ShowMessage>(ShowMessageParams {
            typ: MessageType::INFO,
            message: "templiqx: no target capability profile (initializationOptions.target or `templiqx lsp --target`): capability checks are skipped".to_owned(),
        })?;
    }
    if init.watch {
        server.watch_files()?;
    }
    server.serve()
}

const EXIT_WITHOUT_SHUTDOWN: &str = "the client sent `exit` without `shutdown`";

/// Waits for `initialize` (LSP 3.17, "Initialize Request"): a request
/// before it is answered `-32002 ServerNotInitialized`, a notification is
/// dropped. `None` when the client exits first.
fn initialize(connection: &Connection) -> Result<Option<(RequestId, Value)>, Error> {
    loop {
        let Ok(message) = connection.receiver.recv() else {
            return Err(Closed.into());
        };
        match message {
            Message::Request(r) if r.method == Initialize::METHOD => {
                return Ok(Some((r.id, r.params)));
            }
            Message::Request(r) => {
                let message = format!("expected the initialize request first, got {}", r.method);
                let response =
                    Response::new_err(r.id, ErrorCode::ServerNotInitialized as i32, message);
                connection.sender.send(response.into())?;
            }
            Message::Notification(n) if n.method == Exit::METHOD => return Ok(None),
            Message::Notification(_) | Message::Response(_) => {}
        }
    }
}

/// Serves a client on standard input and output (`templiqx lsp`), framed
/// as LSP 3.17's "Base Protocol" asks. A malformed message is answered
/// with a JSON-RPC error and skipped; a body over 64 MiB is refused and
/// skipped unread (`docs/cli.md`, "lsp").
///
/// # Errors
/// As [`run`], and when standard input ends inside a message (or while
/// looking for a header after a malformed one), or standard output fails.
pub fn run_stdio(options: Options) -> Result<(), Error> {
    run_io(std::io::stdin(), std::io::stdout(), options)
}

/// Serves a client on any pair of byte streams, as [`run_stdio`] serves
/// standard input and output: messages are read from `input` and written
/// to `output`, framed with `Content-Length` headers.
///
/// # Errors
/// As [`run_stdio`].
pub fn run_io<R, W>(input: R, output: W, options: Options) -> Result<(), Error>
where
    R: std::io::Read + Send + 'static,
    W: std::io::Write + Send + 'static,
{
    let (connection, transport) = Transport::start(input, output);
    let result = run(&connection, options);
    drop(connection);
    let input_error = transport.input_error();
    let written = transport.finish();
    match (result, written) {
        (Ok(()), Ok(())) => Ok(()),
        // The output broke first: that is why the server stopped.
        (_, Err(e)) => Err(format!("cannot write the output: {e}").into()),
        (Err(e), Ok(())) if e.is::<Closed>() => match input_error {
            Some(reason) => Err(reason.into()),
            None => Err(e),
        },
        (Err(e), Ok(())) => Err(e),
    }
}

/// The client went away without `exit`.
#[derive(Debug)]
struct Closed;

impl std::fmt::Display for Closed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the client closed the connection without `exit`")
    }
}

impl std::error::Error for Closed {}

struct Server<'a> {
    connection: &'a Connection,
    workspace: Workspace,
    client: Client,
    next_id: i32,
    /// Whether `shutdown` was answered: only `exit` is served.
    shut_down: bool,
}

impl Server<'_> {
    fn serve(&mut self) -> Result<(), Error> {
        loop {
            let Ok(message) = self.connection.receiver.recv() else {
                return Err(Closed.into());
            };
            match message {
                Message::Request(request) => {
                    let response = if self.shut_down {
                        Response::new_err(
                            request.id,
                            ErrorCode::InvalidRequest as i32,
                            format!(
                                "the server is shut down: only `exit` may follow `shutdown`, got {}",
                                request.method
                            ),
                        )
                    } else if request.method == Shutdown::METHOD {
                        self.shut_down = true;
                        Response::new_ok(request.id, Value::Null)
                    } else if request.method == Initialize::METHOD {
                        Response::new_err(
                            request.id,
                            ErrorCode::InvalidRequest as i32,
                            "the server is already initialized: `initialize` may be sent once"
                                .to_owned(),
                        )
                    } else {
                        // Answer from what the editor shows now.
                        self.flush()?;
                        self.request(request)
                    };
                    self.connection.sender.send(response.into())?;
                }
                Message::Notification(notification) => {
                    if notification.method == Exit::METHOD {
                        return if self.shut_down {
                            Ok(())
                        } else {
                            Err(EXIT_WITHOUT_SHUTDOWN.into())
                        };
                    }
                    if self.shut_down {
                        continue;
                    }
                    if let Err(message) = self.notification(notification) {
                        self.notify::<LogMessage>(LogMessageParams {
                            typ: MessageType::ERROR,
                            message,
                        })?;
                    }
                }
                Message::Response(_) => {}
            }
            // Coalesce a burst of edits: compile once the queue is empty.
            if !self.shut_down && self.connection.receiver.is_empty() {
                self.flush()?;
            }
        }
    }

    fn notify<N: lsp_types::notification::Notification>(
        &self,
        params: N::Params,
    ) -> Result<(), Error> {
        let notification = Notification::new(N::METHOD.to_owned(), params);
        self.connection.sender.send(notification.into())?;
        Ok(())
    }

    /// Asks the client to report changes of YAML files on disk (a `git
    /// checkout`, another editor).
    fn watch_files(&mut self) -> Result<(), Error> {
        let options = DidChangeWatchedFilesRegistrationOptions {
            watchers: vec![FileSystemWatcher {
                glob_pattern: GlobPattern::String("**/*.{yaml,yml}".to_owned()),
                kind: None,
            }],
        };
        let params = RegistrationParams {
            registrations: vec![Registration {
                id: "templiqx-watch-yaml".to_owned(),
                method: DidChangeWatchedFiles::METHOD.to_owned(),
                register_options: serde_json::to_value(options).ok(),
            }],
        };
        self.next_id += 1;
        let request = Request::new(
            RequestId::from(format!("templiqx-{}", self.next_id)),
            RegisterCapability::METHOD.to_owned(),
            params,
        );
        self.connection.sender.send(request.into())?;
        Ok(())
    }

    /// Recompiles what changed and publishes the diagnostics. A panic (a
    /// bug) is reported to the client, never fatal.
    fn flush(&mut self) -> Result<(), Error> {
        if !self.workspace.is_dirty() {
            return Ok(());
        }
        let workspace = &mut self.workspace;
        let publications = match catch_unwind(AssertUnwindSafe(|| workspace.flush())) {
            Ok(p) => p,
            Err(_) => {
                return self.notify::<ShowMessage>(ShowMessageParams {
                    typ: MessageType::ERROR,
                    message:
                        "templiqx: internal error while compiling (please report it with the file)"
                            .to_owned(),
                });
            }
        };
        for Publication {
            url,
            version,
            diagnostics,
        } in publications
        {
            self.notify::<PublishDiagnostics>(PublishDiagnosticsParams {
                uri: url,
                diagnostics,
                version,
            })?;
        }
        self.workspace.release();
        Ok(())
    }

    /// Serves a notification; `Err` says why its params cannot be used.
    /// Unknown notifications are dropped (`$/` ones as LSP 3.17, "$
    /// Notifications and Requests", allows).
    fn notification(&mut self, n: Notification) -> Result<(), String> {
        let method = n.method.as_str();
        match method {
            DidOpenTextDocument::METHOD => {
                let p: DidOpenTextDocumentParams = params(method, n.params)?;
                let d = p.text_document;
                self.workspace.open(d.uri, d.version, d.text);
            }
            DidChangeTextDocument::METHOD => {
                let p: DidChangeTextDocumentParams = params(method, n.params)?;
                let edits = p.content_changes.into_iter().map(|c| (c.range, c.text));
                self.workspace
                    .change(&p.text_document.uri, p.text_document.version, edits);
            }
            DidSaveTextDocument::METHOD => {
                let p: DidSaveTextDocumentParams = params(method, n.params)?;
                self.workspace.changed_on_disk(&p.text_document.uri);
            }
            DidCloseTextDocument::METHOD => {
                let p: DidCloseTextDocumentParams = params(method, n.params)?;
                self.workspace.close(&p.text_document.uri);
            }
            DidChangeWatchedFiles::METHOD => {
                let p: DidChangeWatchedFilesParams = params(method, n.params)?;
                for change in p.changes {
                    self.workspace.changed_on_disk(&change.uri);
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn request(&mut self, request: Request) -> Response {
        let id = request.id.clone();
        let (workspace, client) = (&self.workspace, self.client);
        let answer = catch_unwind(AssertUnwindSafe(|| answer(workspace, client, request)));
        match answer {
            Ok(Ok(value)) => Response::new_ok(id, value),
            Ok(Err((code, message))) => Response::new_err(id, code as i32, message),
            Err(_) => Response::new_err(
                id,
                ErrorCode::InternalError as i32,
                "templiqx: internal error (please report it with the file)".to_owned(),
            ),
        }
    }
}

type Answer = Result<Value, (ErrorCode, String)>;

/// The params of a message of `method`, or a human message saying why
/// they cannot be used.
fn params<P: serde::de::DeserializeOwned>(method: &str, params: Value) -> Result<P, String> {
    serde_json::from_value(params).map_err(|e| format!("invalid params for {method}: {e}"))
}

fn answer(workspace: &Workspace, client: Client, request: Request) -> Answer {
    let method = request.method.as_str();
    let invalid = |e: String| (ErrorCode::InvalidParams, e);
    let raw = request.params;
    match method {
        HoverRequest::METHOD => {
            let p: HoverParams = params(method, raw).map_err(invalid)?;
            to_value(hover(workspace, &p.text_document_position_params))
        }
        Completion::METHOD => {
            let p: lsp_types::CompletionParams = params(method, raw).map_err(invalid)?;
            let at = &p.text_document_position;
            // A document the server cannot read gets an empty list.
            let items = Workspace::key(&at.text_document.uri)
                .map(|path| crate::complete::completion(workspace, &path, at.position))
                .unwrap_or_default();
            to_value(lsp_types::CompletionResponse::Array(items))
        }
        GotoDefinition::METHOD => {
            let p: GotoDefinitionParams = params(method, raw).map_err(invalid)?;
            to_value(definition(workspace, &p.text_document_position_params))
        }
        DocumentSymbolRequest::METHOD => {
            let p: DocumentSymbolParams = params(method, raw).map_err(invalid)?;
            let symbols = Workspace::key(&p.text_document.uri)
                .and_then(|path| workspace.trees(&path))
                .map(|(tree, _)| DocumentSymbolResponse::Nested(navigate::symbols(&tree)));
            to_value(symbols)
        }
        References::METHOD => {
            let p: lsp_types::ReferenceParams = params(method, raw).map_err(invalid)?;
            let at = &p.text_document_position;
            let found = crate::rename::references(workspace, at, p.context.include_declaration);
            to_value(found)
        }
        PrepareRenameRequest::METHOD => {
            let p: TextDocumentPositionParams = params(method, raw).map_err(invalid)?;
            to_value(crate::rename::prepare(workspace, &p))
        }
        Rename::METHOD => {
            let p: lsp_types::RenameParams = params(method, raw).map_err(invalid)?;
            let at = &p.text_document_position;
            match crate::rename::rename(workspace, at, &p.new_name, client.document_changes) {
                Ok(edit) => to_value(edit),
                Err(crate::rename::Refusal::InvalidName(m)) => Err((ErrorCode::InvalidParams, m)),
                Err(crate::rename::Refusal::Failed(m)) => Err((ErrorCode::RequestFailed, m)),
            }
        }
        CodeActionRequest::METHOD => {
            let p: lsp_types::CodeActionParams = params(method, raw).map_err(invalid)?;
            to_value(crate::actions::quick_fixes(workspace, &p))
        }
        method => Err((
            ErrorCode::MethodNotFound,
            format!("templiqx lsp does not implement `{method}`"),
        )),
    }
}

fn to_value(value: impl serde::Serialize) -> Answer {
    serde_json::to_value(value).map_err(|e| (ErrorCode::InternalError, e.to_string()))
}

/// The file and byte offset of a position, with the trees to read.
pub(crate) fn locate(
    workspace: &Workspace,
    at: &TextDocumentPositionParams,
) -> Option<(navigate::Tree, navigate::Tree, usize)> {
    let path = Workspace::key(&at.text_document.uri)?;
    let (here, decl) = workspace.trees(&path)?;
    let offset = LineIndex::new(&here.text).offset(at.position);
    Some((here, decl, offset))
}

fn hover(workspace: &Workspace, at: &TextDocumentPositionParams) -> Option<Hover> {
    let (here, decl, offset) = locate(workspace, at)?;
    let (value, range) = crate::hover::hover(workspace, &here, &decl, offset)?;
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value,
        }),
        range: Some(range),
    })
}

fn definition(
    workspace: &Workspace,
    at: &TextDocumentPositionParams,
) -> Option<GotoDefinitionResponse> {
    let (here, decl, offset) = locate(workspace, at)?;
    let location = match navigate::definition(&here, &decl, offset, |p| workspace.url_of(p))? {
        Jump::To(location) => location,
        Jump::Include {
            path,
            from_dependency,
        } => {
            let target =
                workspace.resolve_include(&here.path, &path, from_dependency.as_deref())?;
            let start = Position::new(0, 0);
            Location {
                uri: workspace.url_of(&target)?,
                range: Range::new(start, start),
            }
        }
        // The name's declaration: its entry in the package manifest.
        Jump::ManifestEntry { table, name } => {
            let path = workspace.include_root(&here.path)?.join(MANIFEST);
            let (manifest, _) = workspace.trees(&path)?;
            Location {
                range: navigate::manifest_entry(&manifest, table, &name)?,
                uri: workspace.url_of(&path)?,
            }
        }
        Jump::Package { path } => {
            let root = workspace.include_root(&here.path)?;
            let target = crate::convert::normalize(&root.join(path).join(MANIFEST));
            workspace.text(&target)?;
            let start = Position::new(0, 0);
            Location {
                uri: workspace.url_of(&target)?,
                range: Range::new(start, start),
            }
        }
    };
    Some(GotoDefinitionResponse::Scalar(location))
}
