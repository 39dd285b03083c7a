//! `textDocument/didSave`: the file changed on disk.

use super::NotificationHandler;
use crate::workspace::Workspace;
use lsp_types::DidSaveTextDocumentParams;

/// The `textDocument/didSave` handler.
pub(crate) struct DidSave;

impl NotificationHandler for DidSave {
    type Notification = lsp_types::notification::DidSaveTextDocument;

    fn run(workspace: &mut Workspace, params: DidSaveTextDocumentParams) {
        workspace.changed_on_disk(&params.text_document.uri);
    }
}
