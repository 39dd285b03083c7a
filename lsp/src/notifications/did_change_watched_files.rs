//! `workspace/didChangeWatchedFiles`: YAML files changed on disk (a `git
//! checkout`, another editor), as the server asked the client to report.

use super::NotificationHandler;
use crate::workspace::Workspace;
use lsp_types::DidChangeWatchedFilesParams;

/// The `workspace/didChangeWatchedFiles` handler.
pub(crate) struct WatchedFiles;

impl NotificationHandler for WatchedFiles {
    type Notification = lsp_types::notification::DidChangeWatchedFiles;

    fn run(workspace: &mut Workspace, params: DidChangeWatchedFilesParams) {
        for change in params.changes {
            workspace.changed_on_disk(&change.uri);
        }
    }
}
