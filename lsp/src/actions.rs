//! Quick fixes (`textDocument/codeAction`): the compiler's suggestions
//! ("did you mean `inputs.name`?") applied as edits.
//!
//! The compiler gives a diagnostic whose suggestion it can write exactly a
//! [`Suggestion`]: a replacement and the span of the text it replaces
//! (`docs/diagnostics.md`, "Suggestions"). When the diagnostic is
//! published, the suggestion travels in its `data` ([`data`]), as the
//! protocol preserves it between `textDocument/publishDiagnostics` and
//! `textDocument/codeAction` (LSP 3.16, "Diagnostic"); a client that drops
//! it gets the suggestion of the published diagnostic with the same range,
//! code and message. Each becomes a preferred `quickfix` whose edit
//! replaces the misspelt text. A suggestion whose text is no longer in the
//! document (it changed since) gives no action.

use crate::convert::LineIndex;
use crate::workspace::Workspace;
use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, CodeActionParams, Range, TextEdit,
    WorkspaceEdit,
};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use templiqx_contracts::Suggestion;

/// What a published diagnostic carries in `data`: `{"suggestion":
/// {"range", "replacement", "replaces"}}`.
#[derive(Debug, Serialize, Deserialize)]
struct Data {
    suggestion: Fix,
}

/// A suggestion in protocol terms.
#[derive(Debug, Serialize, Deserialize)]
struct Fix {
    /// What the replacement replaces (UTF-16 positions).
    range: Range,
    /// The text to write.
    replacement: String,
    /// The text it replaces, as published: an action is offered only
    /// while the document still holds it.
    replaces: String,
}

/// The `data` of the protocol diagnostic of a compiler diagnostic with
/// suggestion `s`, in the file `text` it is located in (`index` is the
/// text's line index); `None` when the span is not in the text.
pub(crate) fn data(text: &str, index: &LineIndex, s: &Suggestion) -> Option<serde_json::Value> {
    let start = index.offset_of(s.span.start.line, s.span.start.column);
    let end = index.offset_of(s.span.end.line, s.span.end.column);
    let fix = Fix {
        range: index.byte_range(start, end),
        replacement: s.replacement.clone(),
        replaces: text.get(start..end)?.to_owned(),
    };
    serde_json::to_value(Data { suggestion: fix }).ok()
}

/// The quick fixes of the diagnostics of `params`' context: one preferred
/// `quickfix` per diagnostic with a suggestion, in the order given; none
/// when the client asks only for other kinds.
pub(crate) fn quick_fixes(
    workspace: &Workspace,
    params: &CodeActionParams,
) -> Vec<CodeActionOrCommand> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use templiqx_contracts::{Position, Span};

    #[test]
    fn data_converts_the_span_to_utf16_and_keeps_the_replaced_text() {
        // `𝄞` is one column for the compiler and two UTF-16 units.
        let text = "a: 𝄞 inputs.nmae\n";
        let start = text.find("inputs").unwrap();
        let s = Suggestion {
            replacement: "inputs.name".to_owned(),
            span: Span {
                start: Position { line: 1, column: 6 },
                end: Position {
                    line: 1,
                    column: 17,
                },
                bytes: (start, start + 11),
            },
        };
        let data = data(text, &LineIndex::new(text), &s).unwrap();
        assert_eq!(
            data,
            serde_json::json!({ "suggestion": {
                "range": { "start": { "line": 0, "character": 6 }, "end": { "line": 0, "character": 17 } },
                "replacement": "inputs.name",
                "replaces": "inputs.nmae",
            } })
        );
    }
}
