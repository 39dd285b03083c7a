//! `textDocument/didClose`: the disk shows through again.

use super::NotificationHandler;
use crate::workspace::Workspace;
use lsp_types::DidCloseTextDocumentParams;

/// The `textDocument/didClose` handler.
pub(crate) struct DidClose;

impl NotificationHandler for DidClose {
    type Notification = lsp_types::notification::DidCloseTextDocument;

    fn run(workspace: &mut Workspace, params: DidCloseTextDocumentParams) {
        workspace.close(&params.text_document.uri);
    }
}
