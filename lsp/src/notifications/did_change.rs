//! `textDocument/didChange`: the edits are applied to the open document
//! (incremental, or whole texts).

use super::NotificationHandler;
use crate::workspace::Workspace;
use lsp_types::DidChangeTextDocumentParams;

/// The `textDocument/didChange` handler.
pub(crate) struct DidChange;

impl NotificationHandler for DidChange {
    type Notification = lsp_types::notification::DidChangeTextDocument;

    fn run(workspace: &mut Workspace, params: DidChangeTextDocumentParams) {
        let edits = params
            .content_changes
            .into_iter()
            .map(|c| (c.range, c.text));
        let document = params.text_document;
        workspace.change(&document.uri, document.version, edits);
    }
}
