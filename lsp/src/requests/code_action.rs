//! `textDocument/codeAction`: the quick fixes of the compiler's
//! suggestions ("did you mean `inputs.name`?") applied as edits.
//!
//! A published diagnostic carries its suggestion in `data`
//! ([`crate::diagnostics::Data`]); a client that drops it gets the
//! suggestion of the published diagnostic with the same range, code and
//! message. Each becomes a preferred `quickfix` whose edit replaces the
//! misspelt text. A suggestion whose text is no longer in the document (it
//! changed since) gives no action.

use super::{Failure, RequestHandler, Session};
use crate::convert::LineIndex;
use crate::diagnostics::Data;
use crate::workspace::Workspace;
use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, CodeActionParams, CodeActionResponse,
    TextEdit, WorkspaceEdit,
};
use std::collections::HashMap;

/// The `textDocument/codeAction` handler.
pub(crate) struct CodeActions;

impl RequestHandler for CodeActions {
    type Request = lsp_types::request::CodeActionRequest;

    fn run(
        session: &Session<'_>,
        params: CodeActionParams,
    ) -> Result<Option<CodeActionResponse>, Failure> {
        Ok(Some(quick_fixes(session.workspace, &params)))
    }
}

/// The quick fixes of the diagnostics of `params`' context: one preferred
/// `quickfix` per diagnostic with a suggestion, in the order given; none
/// when the client asks only for other kinds.
fn quick_fixes(workspace: &Workspace, params: &CodeActionParams) -> Vec<CodeActionOrCommand> {
    let wanted = params.context.only.as_ref().is_none_or(|only| {
        only.iter().any(|kind| {
            let kind = kind.as_str();
            kind.is_empty() || CodeActionKind::QUICKFIX.as_str() == kind
        })
    });
    let uri = &params.text_document.uri;
    let Some(path) = Workspace::key(uri).filter(|_| wanted) else {
        return Vec::new();
    };
    let Some(text) = workspace.text(&path) else {
        return Vec::new();
    };
    let index = LineIndex::new(&text);
    let mut actions = Vec::new();
    for d in &params.context.diagnostics {
        if d.source.as_deref().is_some_and(|s| s != "templiqx") {
            continue;
        }
        let published = || {
            workspace
                .published(&path)
                .find(|p| p.range == d.range && p.code == d.code && p.message == d.message)
                .and_then(|p| p.data.clone())
        };
        let Some(Data { suggestion: fix }) = d
            .data
            .clone()
            .or_else(published)
            .and_then(|data| serde_json::from_value(data).ok())
        else {
            continue;
        };
        let (start, end) = (index.offset(fix.range.start), index.offset(fix.range.end));
        if text.get(start..end) != Some(fix.replaces.as_str()) {
            continue;
        }
        let title = format!("Change to `{}`", fix.replacement);
        let edit = TextEdit {
            range: fix.range,
            new_text: fix.replacement,
        };
        actions.push(CodeActionOrCommand::CodeAction(CodeAction {
            title,
            kind: Some(CodeActionKind::QUICKFIX),
            diagnostics: Some(vec![d.clone()]),
            edit: Some(WorkspaceEdit {
                changes: Some(HashMap::from([(uri.clone(), vec![edit])])),
                ..WorkspaceEdit::default()
            }),
            command: None,
            is_preferred: Some(true),
            disabled: None,
            data: None,
        }));
    }
    actions
}
