//! `textDocument/references` of an input or context field, a property of
//! an eval entry's `case_schema`, or a property below one (`docs/cli.md`,
//! "lsp"): every reference path that resolves to it, the eval fixtures',
//! request files' and datasets' keys and CSV header cells that set it,
//! and, when asked, its declaration key and `required` entry
//! (`super::fields` finds them).

use super::fields::{Sites, What, field_at, locate, spellings};
use super::{Failure, RequestHandler, Session};
use crate::workspace::Workspace;
use lsp_types::{Location, ReferenceParams};
use std::path::PathBuf;

/// The `textDocument/references` handler.
pub(crate) struct References;

impl RequestHandler for References {
    type Request = lsp_types::request::References;

    fn run(
        session: &Session<'_>,
        params: ReferenceParams,
    ) -> Result<Option<Vec<Location>>, Failure> {
        let at = &params.text_document_position;
        Ok(references(
            session.workspace,
            at,
            params.context.include_declaration,
        ))
    }
}

/// `textDocument/references`: every place that spells the field at `at`
/// (its declaration and `required` entry only with `include_declaration`),
/// in file and document order; `None` when `at` is on no field.
fn references(
    workspace: &Workspace,
    at: &lsp_types::TextDocumentPositionParams,
    include_declaration: bool,
) -> Option<Vec<Location>> {
    let (files, here, decl, offset) = locate(workspace, at)?;
    let (here, contract) = (files.tree(&here)?, files.contracts.get(&decl)?);
    let field = field_at(here, contract, offset)?;
    let sites = Sites::new(&files);
    let (found, _) = spellings(&files, &sites, contract, &field);
    let mut out: Vec<(PathBuf, (usize, usize), Location)> = Vec::new();
    for s in found {
        if !include_declaration && matches!(s.what, What::Declaration | What::Required) {
            continue;
        }
        let Some(uri) = workspace.url_of(&s.tree.path) else {
            continue;
        };
        let location = Location {
            uri,
            range: s.range(),
        };
        out.push((s.tree.path.clone(), s.bytes(), location));
    }
    out.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
    out.dedup_by(|a, b| a.0 == b.0 && a.1 == b.1);
    Some(out.into_iter().map(|(_, _, l)| l).collect())
}
