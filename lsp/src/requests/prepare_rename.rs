//! `textDocument/prepareRename` (`docs/cli.md`, "lsp"): the range and name
//! of the field under the cursor, when it is one a rename can rename
//! (`super::fields` finds it).

use super::fields::{Sites, Spelling, field_at, locate, spellings};
use super::{Failure, RequestHandler, Session};
use crate::workspace::Workspace;
use lsp_types::{PrepareRenameResponse, TextDocumentPositionParams};

/// The `textDocument/prepareRename` handler.
pub(crate) struct PrepareRename;

impl RequestHandler for PrepareRename {
    type Request = lsp_types::request::PrepareRenameRequest;

    fn run(
        session: &Session<'_>,
        params: TextDocumentPositionParams,
    ) -> Result<Option<PrepareRenameResponse>, Failure> {
        Ok(prepare(session.workspace, &params))
    }
}

/// `textDocument/prepareRename`: the range of the name at `at` and the
/// name, when it is a field's.
fn prepare(
    workspace: &Workspace,
    at: &lsp_types::TextDocumentPositionParams,
) -> Option<PrepareRenameResponse> {
    let (files, here, decl, offset) = locate(workspace, at)?;
    let (here, contract) = (files.tree(&here)?, files.contracts.get(&decl)?);
    let field = field_at(here, contract, offset)?;
    let sites = Sites::new(&files);
    let (found, _) = spellings(&files, &sites, contract, &field);
    let in_here = |s: &&Spelling<'_>| s.tree.path == here.path;
    // The name under the cursor, else (on `inputs` of `inputs.name`) the
    // name in the same scalar.
    let spelling = found
        .iter()
        .filter(in_here)
        .find(|s| s.contains(offset))
        .or_else(|| {
            found
                .iter()
                .filter(in_here)
                .find(|s| s.span.bytes.0 <= offset && offset <= s.span.bytes.1)
        })?;
    Some(PrepareRenameResponse::RangeWithPlaceholder {
        range: spelling.range(),
        placeholder: field.name().to_owned(),
    })
}
