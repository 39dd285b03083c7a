//! The notifications the server serves, one handler per method and one
//! file per handler: each takes the typed params of its method
//! (`lsp_types`) and the [`Workspace`] it changes. [`serve`] sends a
//! notification to its handler, one line per method; other notifications
//! are dropped (`$/` ones as LSP 3.17, "$ Notifications and Requests",
//! allows). Diagnostics are not published here: the server loop compiles
//! what changed once no other message is waiting.

mod did_change;
mod did_change_watched_files;
mod did_close;
mod did_open;
mod did_save;

use self::did_change::DidChange;
use self::did_change_watched_files::WatchedFiles;
use self::did_close::DidClose;
use self::did_open::DidOpen;
use self::did_save::DidSave;
use crate::workspace::Workspace;
use lsp_server::Notification;
use lsp_types::notification::{self as method, Notification as _};
use serde_json::Value;

/// The handler of one notification method.
pub(crate) trait NotificationHandler {
    /// The method it serves, with its params type.
    type Notification: method::Notification;

    /// Serves the notification.
    fn run(workspace: &mut Workspace, params: <Self::Notification as method::Notification>::Params);
}

/// Serves `notification` with its method's handler; `Err` says why its
/// params cannot be used.
pub(crate) fn serve(workspace: &mut Workspace, notification: Notification) -> Result<(), String> {
    let Notification { method, params } = notification;
    match method.as_str() {
        method::DidOpenTextDocument::METHOD => handle::<DidOpen>(workspace, params),
        method::DidChangeTextDocument::METHOD => handle::<DidChange>(workspace, params),
        method::DidSaveTextDocument::METHOD => handle::<DidSave>(workspace, params),
        method::DidCloseTextDocument::METHOD => handle::<DidClose>(workspace, params),
        method::DidChangeWatchedFiles::METHOD => handle::<WatchedFiles>(workspace, params),
        _ => Ok(()),
    }
}

/// Decodes the params and runs the handler `H`.
fn handle<H: NotificationHandler>(workspace: &mut Workspace, params: Value) -> Result<(), String> {
    let method = <H::Notification as method::Notification>::METHOD;
    let params =
        serde_json::from_value(params).map_err(|e| format!("invalid params for {method}: {e}"))?;
    H::run(workspace, params);
    Ok(())
}
