//! The protocol loop: the initialize handshake, then one message at a time.

use crate::convert::LineIndex;
use crate::navigate::{self, Jump};
use crate::workspace::{Publication, Workspace};
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidChangeWatchedFiles, DidCloseTextDocument, DidOpenTextDocument,
    DidSaveTextDocument, Notification as _, PublishDiagnostics, ShowMessage,
};
use lsp_types::request::{
    CodeActionRequest, Completion, DocumentSymbolRequest, GotoDefinition, HoverRequest,
    PrepareRenameRequest, References, RegisterCapability, Rename, Request as _,
};
use lsp_types::{
    DidChangeTextDocumentParams, DidChangeWatchedFilesParams,
    DidChangeWatchedFilesRegistrationOptions, DidCloseTextDocumentParams,
    DidOpenTextDocumentParams, DidSaveTextDocumentParams, DocumentSymbolParams,
    DocumentSymbolResponse, FileSystemWatcher, GlobPattern, GotoDefinitionParams,
    GotoDefinitionResponse, Hover, HoverContents, HoverParams, HoverProviderCapability, Location,
    MarkupContent, MarkupKind, MessageType, OneOf, Position, PositionEncodingKind,
    PublishDiagnosticsParams, Range, Registration, RegistrationParams, SaveOptions,
    ServerCapabilities, ShowMessageParams, TextDocumentPositionParams, TextDocumentSyncCapability,
    TextDocumentSyncKind, TextDocumentSyncOptions, TextDocumentSyncSaveOptions, Url,
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

impl Init {
    fn parse(params: &Value) -> Init {
        let options = params.get("initializationOptions");
        let target = options.and_then(|o| o.get("target")).and_then(|t| match t {
            Value::Array(items) => Some(CapabilityProfile::new(
                items.iter().filter_map(Value::as_str).map(str::trim),
            )),
            Value::String(list) => Some(CapabilityProfile::parse_list(list)),
            _ => None,
        });
        let docs = options.and_then(|o| o.get("diagnosticsUrl")).map(|d| {
            d.as_str()
                .filter(|s| !s.is_empty())
                .and_then(|s| Url::parse(s).ok())
        });
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
/// # Errors
/// When the connection breaks, the handshake is malformed, or the client
/// exits without asking to shut down first (as the protocol asks, the
/// caller then exits with status 1).
pub fn run(connection: &Connection, options: Options) -> Result<(), Error> {
    let (id, params) = connection.initialize_start()?;
    let init = Init::parse(&params);
    let target = init.target.or(options.target);
    let docs = init.docs.unwrap_or_else(default_docs);
    let result = serde_json::json!({
        "capabilities": capabilities(init.client),
        "serverInfo": { "name": "templiqx", "version": env!("CARGO_PKG_VERSION") },
    });
    connection.initialize_finish(id, result)?;
    let mut server = Server {
        connection,
        workspace: Workspace::new(target.clone(), docs),
        client: init.client,
        next_id: 0,
    };
    if target.is_none() {
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

/// Serves a client on standard input and output (`templiqx lsp`).
///
/// # Errors
/// As [`run`], and when standard input or output fails.
pub fn run_stdio(options: Options) -> Result<(), Error> {
    let (connection, io_threads) = Connection::stdio();
    let result = run(&connection, options);
    drop(connection);
    io_threads.join()?;
    result
}

struct Server<'a> {
    connection: &'a Connection,
    workspace: Workspace,
    client: Client,
    next_id: i32,
}

impl Server<'_> {
    fn serve(&mut self) -> Result<(), Error> {
        loop {
            let Ok(message) = self.connection.receiver.recv() else {
                return Err("the client closed the connection without `exit`".into());
            };
            match message {
                Message::Request(request) => {
                    if self.connection.handle_shutdown(&request)? {
                        return Ok(());
                    }
                    // Answer from what the editor shows now.
                    self.flush()?;
                    let response = self.request(request);
                    self.connection.sender.send(response.into())?;
                }
                Message::Notification(notification) => {
                    if notification.method == lsp_types::notification::Exit::METHOD {
                        return Err("the client sent `exit` without `shutdown`".into());
                    }
                    self.notification(notification);
                }
                Message::Response(_) => {}
            }
            // Coalesce a burst of edits: compile once the queue is empty.
            if self.connection.receiver.is_empty() {
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
        Ok(())
    }

    fn notification(&mut self, n: Notification) {
        match n.method.as_str() {
            DidOpenTextDocument::METHOD => {
                if let Ok(p) = n.extract::<DidOpenTextDocumentParams>(DidOpenTextDocument::METHOD) {
                    let d = p.text_document;
                    self.workspace.open(d.uri, d.version, d.text);
                }
            }
            DidChangeTextDocument::METHOD => {
                if let Ok(p) =
                    n.extract::<DidChangeTextDocumentParams>(DidChangeTextDocument::METHOD)
                {
                    let edits = p.content_changes.into_iter().map(|c| (c.range, c.text));
                    self.workspace
                        .change(&p.text_document.uri, p.text_document.version, edits);
                }
            }
            DidSaveTextDocument::METHOD => {
                if let Ok(p) = n.extract::<DidSaveTextDocumentParams>(DidSaveTextDocument::METHOD) {
                    self.workspace.changed_on_disk(&p.text_document.uri);
                }
            }
            DidCloseTextDocument::METHOD => {
                if let Ok(p) = n.extract::<DidCloseTextDocumentParams>(DidCloseTextDocument::METHOD)
                {
                    self.workspace.close(&p.text_document.uri);
                }
            }
            DidChangeWatchedFiles::METHOD => {
                if let Ok(p) =
                    n.extract::<DidChangeWatchedFilesParams>(DidChangeWatchedFiles::METHOD)
                {
                    for change in p.changes {
                        self.workspace.changed_on_disk(&change.uri);
                    }
                }
            }
            _ => {}
        }
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

fn answer(workspace: &Workspace, client: Client, request: Request) -> Answer {
    let invalid =
        |e: lsp_server::ExtractError<Request>| (ErrorCode::InvalidParams, format!("{e:?}"));
    match request.method.as_str() {
        HoverRequest::METHOD => {
            let p: HoverParams = request.extract(HoverRequest::METHOD).map_err(invalid)?.1;
            to_value(hover(workspace, &p.text_document_position_params))
        }
        Completion::METHOD => {
            let p: lsp_types::CompletionParams =
                request.extract(Completion::METHOD).map_err(invalid)?.1;
            let at = &p.text_document_position;
            // A document the server cannot read gets an empty list.
            let items = Workspace::key(&at.text_document.uri)
                .map(|path| crate::complete::completion(workspace, &path, at.position))
                .unwrap_or_default();
            to_value(lsp_types::CompletionResponse::Array(items))
        }
        GotoDefinition::METHOD => {
            let p: GotoDefinitionParams =
                request.extract(GotoDefinition::METHOD).map_err(invalid)?.1;
            to_value(definition(workspace, &p.text_document_position_params))
        }
        DocumentSymbolRequest::METHOD => {
            let p: DocumentSymbolParams = request
                .extract(DocumentSymbolRequest::METHOD)
                .map_err(invalid)?
                .1;
            let symbols = Workspace::key(&p.text_document.uri)
                .and_then(|path| workspace.trees(&path))
                .map(|(tree, _)| DocumentSymbolResponse::Nested(navigate::symbols(&tree)));
            to_value(symbols)
        }
        References::METHOD => {
            let p: lsp_types::ReferenceParams =
                request.extract(References::METHOD).map_err(invalid)?.1;
            let at = &p.text_document_position;
            let found = crate::rename::references(workspace, at, p.context.include_declaration);
            to_value(found)
        }
        PrepareRenameRequest::METHOD => {
            let p: TextDocumentPositionParams = request
                .extract(PrepareRenameRequest::METHOD)
                .map_err(invalid)?
                .1;
            to_value(crate::rename::prepare(workspace, &p))
        }
        Rename::METHOD => {
            let p: lsp_types::RenameParams = request.extract(Rename::METHOD).map_err(invalid)?.1;
            let at = &p.text_document_position;
            match crate::rename::rename(workspace, at, &p.new_name, client.document_changes) {
                Ok(edit) => to_value(edit),
                Err(crate::rename::Refusal::InvalidName(m)) => Err((ErrorCode::InvalidParams, m)),
                Err(crate::rename::Refusal::Failed(m)) => Err((ErrorCode::RequestFailed, m)),
            }
        }
        CodeActionRequest::METHOD => {
            let p: lsp_types::CodeActionParams = request
                .extract(CodeActionRequest::METHOD)
                .map_err(invalid)?
                .1;
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
