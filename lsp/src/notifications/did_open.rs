//! `textDocument/didOpen`: the document is laid over the disk.

use super::NotificationHandler;
use crate::workspace::Workspace;
use lsp_types::DidOpenTextDocumentParams;

/// The `textDocument/didOpen` handler.
pub(crate) struct DidOpen;

impl NotificationHandler for DidOpen {
    type Notification = lsp_types::notification::DidOpenTextDocument;

    fn run(workspace: &mut Workspace, params: DidOpenTextDocumentParams) {
        let d = params.text_document;
        workspace.open(d.uri, d.version, d.text);
    }
}
