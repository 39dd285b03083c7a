//! `textDocument/rename` of an input or context field, a property of an
//! eval entry's `case_schema`, or a property below one (`docs/cli.md`,
//! "lsp"): every place `super::fields` finds that spells
//! it is rewritten, in the contract, the partials it includes (and the
//! fields of other contracts a shared partial ties to it), its eval
//! fixtures, the package's request files, the rows of its JSON Lines
//! datasets and the header cells of its CSV datasets; a name that is not a field
//! name, or is taken, is refused.

use super::fields::{Field, Shared, Sites, Spelling, What, field_at, fields, locate, spellings};
use super::{Failure, RequestHandler, Session};
use crate::convert::LineIndex;
use crate::tree::{Side, Tree};
use crate::workspace::Workspace;
use lsp_server::ErrorCode;
use lsp_types::{
    DocumentChanges, OneOf, OptionalVersionedTextDocumentIdentifier, RenameParams,
    TextDocumentEdit, TextEdit, WorkspaceEdit,
};
use std::collections::{BTreeMap, HashMap};
use templiqx_build::yaml;

/// The `textDocument/rename` handler: edits as versioned
/// `documentChanges` when the client supports them.
pub(crate) struct Rename;

impl RequestHandler for Rename {
    type Request = lsp_types::request::Rename;

    fn run(session: &Session<'_>, params: RenameParams) -> Result<Option<WorkspaceEdit>, Failure> {
        let at = &params.text_document_position;
        let versioned = session.client.document_changes;
        match rename(session.workspace, at, &params.new_name, versioned) {
            Ok(edit) => Ok(Some(edit)),
            Err(Refusal::InvalidName(m)) => Err(Failure::new(ErrorCode::InvalidParams, m)),
            Err(Refusal::Failed(m)) => Err(Failure::new(ErrorCode::RequestFailed, m)),
        }
    }
}

/// Why a rename is refused.
#[derive(Debug, PartialEq, Eq)]
enum Refusal {
    /// The new name is not a field name, or is taken.
    InvalidName(String),
    /// Nothing to rename at the position, or a name that cannot be
    /// rewritten.
    Failed(String),
}

/// `textDocument/rename`: the edits that rename the field at `at` (and
/// the fields a shared partial ties it to) to `new_name`; with
/// `versioned`, as `documentChanges` carrying each open document's
/// version.
///
/// # Errors
/// [`Refusal::InvalidName`] for a name that is empty or holds a `.`
/// (`docs/format.md`, "Field declarations"), or that a field beside it
/// already has; [`Refusal::Failed`] when `at` is on no field, or a name to
/// rewrite is written as a block or multi-line scalar.
fn rename(
    workspace: &Workspace,
    at: &lsp_types::TextDocumentPositionParams,
    new_name: &str,
    versioned: bool,
) -> Result<WorkspaceEdit, Refusal> {
    let not_here = || {
        Refusal::Failed(
            "templiqx renames an input or context field, or a property of an eval entry's `case_schema` (or a property below one): put the cursor on its declaration, a reference to it, or an eval fixture key that sets it".to_owned(),
        )
    };
    let (files, here, decl, offset) = locate(workspace, at).ok_or_else(not_here)?;
    let here = files.tree(&here).ok_or_else(not_here)?;
    let contract = files.contracts.get(&decl).ok_or_else(not_here)?;
    let field = field_at(here, contract, offset).ok_or_else(not_here)?;
    if new_name.is_empty() || new_name.contains('.') {
        return Err(Refusal::InvalidName(format!(
            "`{new_name}` is not a field name: names are non-empty and contain no `.` (references use `.` between segments; docs/format.md, \"Field declarations\")"
        )));
    }
    if new_name == field.name() {
        return Ok(WorkspaceEdit::default());
    }
    let sites = Sites::new(&files);
    // The field, and the fields of other contracts that a shared partial
    // names with it.
    let mut group: Vec<(&Tree, Field<'_>)> = vec![(contract, field)];
    let mut found = Vec::new();
    let mut next = 0;
    while let Some((contract, field)) = group.get(next) {
        next += 1;
        let (spelt, shared) = spellings(&files, &sites, contract, field);
        found.extend(spelt);
        let mut linked = Vec::new();
        for Shared {
            partial,
            site,
            segments,
        } in shared
        {
            let includers = files.partials.get(&partial.path).map(|(_, c)| c);
            for other in includers.into_iter().flatten() {
                let Some(other) = files.contracts.get(other) else {
                    continue;
                };
                let Some((Side::Decl, span)) = sites.of(partial)[site].declaration(other, segments)
                else {
                    continue;
                };
                let known =
                    |(c, f): &(&Tree, Field<'_>)| c.path == other.path && f.key.span == span;
                if group.iter().chain(&linked).any(known) {
                    continue;
                }
                if let Some(f) = fields(other).into_iter().find(|f| f.key.span == span) {
                    linked.push((other, f));
                }
            }
        }
        group.extend(linked);
    }
    for (contract, field) in &group {
        if field.siblings.contains(&new_name) {
            let parent = field.display();
            let parent = parent.rsplit_once('.').map_or(field.scope, |(p, _)| p);
            return Err(Refusal::InvalidName(format!(
                "`{parent}` already declares `{new_name}` in {}",
                file_name(contract)
            )));
        }
    }
    edits(workspace, &found, new_name, versioned)
}

/// The edit of a CSV dataset's header cell that writes `new_name` at the
/// segments `names` (one cell's; `docs/format.md`, "Datasets": RFC 4180
/// quoting): in place when the cell is written as its value (unquoted, or
/// quoted without `""`) and the name needs no quoting there (a `,`, a
/// line break or a `"` in an unquoted cell, a `"` in a quoted one); else
/// the whole cell, quoted when it was or must be, its `"` doubled.
fn column_edit(text: &str, index: &LineIndex, names: &[&Spelling<'_>], new_name: &str) -> TextEdit {
    let first = names[0];
    let (start, end) = first.span.bytes;
    let quoted = text[start..end].starts_with('"');
    let needs_quotes = |s: &str| s.contains(['"', ',', '\r', '\n']);
    let fits = if quoted {
        !new_name.contains('"')
    } else {
        !needs_quotes(new_name)
    };
    if let Some(at) =
        yaml::verbatim(text, &first.span, first.value).filter(|_| fits && names.len() == 1)
    {
        let s = names[0];
        return TextEdit {
            range: index.byte_range(at + s.name.start, at + s.name.end),
            new_text: new_name.to_owned(),
        };
    }
    let mut value = String::new();
    let mut done = 0;
    for s in names {
        value.push_str(&first.value[done..s.name.start]);
        value.push_str(new_name);
        done = s.name.end;
    }
    value.push_str(&first.value[done..]);
    let new_text = if quoted || needs_quotes(&value) {
        format!("\"{}\"", value.replace('"', "\"\""))
    } else {
        value
    };
    TextEdit {
        range: index.byte_range(start, end),
        new_text,
    }
}

/// The file name of a tree, for messages.
fn file_name(tree: &Tree) -> String {
    tree.path.file_name().map_or_else(
        || tree.path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// The workspace edit that writes `new_name` at every spelling: in place
/// when the value is written verbatim and the name is a plain word,
/// otherwise the whole key or scalar, double-quoted. A request file's key
/// (JSON) is written as a JSON string: in place between its quotes when
/// written without escapes, otherwise the whole token.
fn edits(
    workspace: &Workspace,
    found: &[Spelling<'_>],
    new_name: &str,
    versioned: bool,
) -> Result<WorkspaceEdit, Refusal> {
    // Names in one key or scalar, by file and span.
    let mut by_scalar: BTreeMap<(&std::path::Path, (usize, usize)), Vec<&Spelling<'_>>> =
        BTreeMap::new();
    for s in found {
        let names = by_scalar.entry((&s.tree.path, s.span.bytes)).or_default();
        if !names.iter().any(|n| n.name == s.name) {
            names.push(s);
        }
    }
    let mut by_file: BTreeMap<&std::path::Path, Vec<TextEdit>> = BTreeMap::new();
    for ((path, _), mut names) in by_scalar {
        names.sort_by_key(|s| s.name.start);
        let first = names[0];
        let text = &first.tree.text;
        let index = LineIndex::new(text);
        let edits = by_file.entry(path).or_default();
        let at = yaml::verbatim(text, &first.span, first.value);
        if first.what == What::Request {
            // A JSON key is the whole string: in place between its quotes
            // when written without escapes, else the whole token.
            let token = serde_json::Value::from(new_name).to_string();
            edits.push(match at {
                Some(at) => TextEdit {
                    range: index.byte_range(at, at + first.value.len()),
                    new_text: token[1..token.len() - 1].to_owned(),
                },
                None => TextEdit {
                    range: index.byte_range(first.span.bytes.0, first.span.bytes.1),
                    new_text: token,
                },
            });
            continue;
        }
        if first.what == What::Column {
            edits.push(column_edit(text, &index, &names, new_name));
            continue;
        }
        if let Some(at) = at.filter(|_| yaml::is_plain_word(new_name)) {
            for s in names {
                edits.push(TextEdit {
                    range: index.byte_range(at + s.name.start, at + s.name.end),
                    new_text: new_name.to_owned(),
                });
            }
            continue;
        }
        let (start, end) = first.span.bytes;
        let quoted = text
            .get(start..end)
            .is_some_and(|raw| raw.starts_with(['"', '\'']));
        if at.is_none() && !quoted {
            let line = index.range(&first.span).start.line + 1;
            return Err(Refusal::Failed(format!(
                "`{}` at {}:{line} is a block or multi-line scalar: write it on one line to rename it",
                first.value,
                file_name(first.tree)
            )));
        }
        let mut value = String::new();
        let mut done = 0;
        for s in &names {
            value.push_str(&first.value[done..s.name.start]);
            value.push_str(new_name);
            done = s.name.end;
        }
        value.push_str(&first.value[done..]);
        edits.push(TextEdit {
            range: index.byte_range(start, end),
            new_text: yaml::double_quoted(&value),
        });
    }
    let mut out = WorkspaceEdit::default();
    let mut changes = HashMap::new();
    let mut documents = Vec::new();
    for (path, mut edits) in by_file {
        let Some(uri) = workspace.url_of(path) else {
            continue;
        };
        edits.sort_by_key(|e| (e.range.start.line, e.range.start.character));
        if versioned {
            documents.push(TextDocumentEdit {
                text_document: OptionalVersionedTextDocumentIdentifier {
                    uri,
                    version: workspace.version(path),
                },
                edits: edits.into_iter().map(OneOf::Left).collect(),
            });
        } else {
            changes.insert(uri, edits);
        }
    }
    if versioned {
        out.document_changes = Some(DocumentChanges::Edits(documents));
    } else {
        out.changes = Some(changes);
    }
    Ok(out)
}
