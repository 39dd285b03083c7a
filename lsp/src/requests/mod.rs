//! The requests the server answers, one handler per method and one file
//! per handler, as ruff's `ruff_server` keeps them: each handler takes the
//! typed params of its method (`lsp_types`) and the [`Session`], and
//! returns the typed result or a [`Failure`]. [`answer`] sends a request
//! to its handler, one line per method.
//!
//! Handlers read the [`Workspace`] as the last compilation left it (the
//! server compiles what changed before it calls one, so they answer from
//! what the editor shows) and the tree tools of [`crate::tree`]; none of
//! them writes to the workspace or talks to the client.

pub(crate) mod code_action;
pub(crate) mod completion;
mod definition;
mod document_symbol;
mod fields;
mod hover;
mod prepare_rename;
mod references;
mod rename;

use self::code_action::CodeActions;
use self::completion::Completion;
use self::definition::Definition;
use self::document_symbol::Symbols;
use self::hover::Hover;
use self::prepare_rename::PrepareRename;
use self::references::References;
use self::rename::Rename;
use crate::convert::LineIndex;
use crate::init::Client;
use crate::queue::{Dropped, Token};
use crate::tree::{self, Tree};
use crate::workspace::Workspace;
use lsp_server::{ErrorCode, Request};
use lsp_types::TextDocumentPositionParams;
use lsp_types::request::{self as method, Request as _};
use serde_json::Value;

/// What a handler reads: the workspace, what the client supports, and
/// whether the request is still wanted.
pub(crate) struct Session<'a> {
    /// The open documents and the last compilations.
    pub(crate) workspace: &'a Workspace,
    /// What the client supports, of what answers depend on.
    pub(crate) client: Client,
    /// The request's cancellation: a handler's long loops check it and
    /// stop with its `Err` (`crate::queue`).
    pub(crate) token: &'a Token<'a>,
}

/// Why a request is answered with an error: its JSON-RPC code and message.
#[derive(Debug)]
pub(crate) struct Failure {
    pub(crate) code: ErrorCode,
    pub(crate) message: String,
}

impl Failure {
    pub(crate) fn new(code: ErrorCode, message: impl Into<String>) -> Failure {
        Failure {
            code,
            message: message.into(),
        }
    }
}

impl From<Dropped> for Failure {
    /// The answer to a request dropped before its work is done (LSP 3.17,
    /// "ErrorCodes").
    fn from(dropped: Dropped) -> Failure {
        match dropped {
            Dropped::Cancelled => Failure::new(
                ErrorCode::RequestCanceled,
                "the request was cancelled ($/cancelRequest)",
            ),
            Dropped::Modified => Failure::new(
                ErrorCode::ContentModified,
                "the document changed after the request (textDocument/didChange): ask again",
            ),
        }
    }
}

/// The handler of one request method.
pub(crate) trait RequestHandler {
    /// The method it answers, with its params and result types.
    type Request: method::Request;

    /// Answers the request.
    fn run(
        session: &Session<'_>,
        params: <Self::Request as method::Request>::Params,
    ) -> Result<<Self::Request as method::Request>::Result, Failure>;
}

/// Answers `request` with its method's handler: the result as JSON, or why
/// it fails (`-32601 MethodNotFound` for a method the server does not
/// implement, `-32602 InvalidParams` for params of the wrong shape).
pub(crate) fn answer(session: &Session<'_>, request: Request) -> Result<Value, Failure> {
    let Request { method, params, .. } = request;
    match method.as_str() {
        method::HoverRequest::METHOD => handle::<Hover>(session, params),
        method::Completion::METHOD => handle::<Completion>(session, params),
        method::GotoDefinition::METHOD => handle::<Definition>(session, params),
        method::DocumentSymbolRequest::METHOD => handle::<Symbols>(session, params),
        method::References::METHOD => handle::<References>(session, params),
        method::PrepareRenameRequest::METHOD => handle::<PrepareRename>(session, params),
        method::Rename::METHOD => handle::<Rename>(session, params),
        method::CodeActionRequest::METHOD => handle::<CodeActions>(session, params),
        _ => Err(Failure::new(
            ErrorCode::MethodNotFound,
            format!("templiqx lsp does not implement `{method}`"),
        )),
    }
}

/// Decodes the params, runs the handler `H`, encodes its result.
fn handle<H: RequestHandler>(session: &Session<'_>, params: Value) -> Result<Value, Failure> {
    let method = <H::Request as method::Request>::METHOD;
    let params = serde_json::from_value(params).map_err(|e| {
        Failure::new(
            ErrorCode::InvalidParams,
            format!("invalid params for {method}: {e}"),
        )
    })?;
    let result = H::run(session, params)?;
    serde_json::to_value(result).map_err(|e| Failure::new(ErrorCode::InternalError, e.to_string()))
}

/// The file under a position and the contract its references are declared
/// in ([`Workspace::trees`]), with the position's byte offset.
pub(crate) fn locate(
    workspace: &Workspace,
    at: &TextDocumentPositionParams,
) -> Option<(Tree, Tree, usize)> {
    let path = Workspace::key(&at.text_document.uri)?;
    let (here, decl) = workspace.trees(&path)?;
    let offset = LineIndex::new(&here.text).offset(at.position);
    Some((here, decl, offset))
}

/// The judge contract of the model-graded check at `offset` in `here` (the
/// cursor in its `contract`, `with` or `pass`; `docs/format.md`,
/// "Model-graded checks"), as the package's last compilation read it
/// ([`Workspace::contract_by_id`]); `None` elsewhere, or when the package
/// lists no contract of that id.
pub(crate) fn judge_at(workspace: &Workspace, here: &Tree, offset: usize) -> Option<Tree> {
    let hit = tree::hit(&here.root, offset);
    workspace.contract_by_id(&here.path, tree::judge_id(&hit)?)
}
