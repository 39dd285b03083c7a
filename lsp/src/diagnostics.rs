//! The compiler's diagnostics as protocol diagnostics.

use crate::convert::LineIndex;
use crate::workspace::{Compilation, Workspace};
use lsp_types::{
    CodeDescription, DiagnosticRelatedInformation, DiagnosticSeverity, Location, NumberOrString,
    Url,
};
use templiqx_contracts::{Diagnostic, Severity};

/// The protocol diagnostic of `d`. `text` is the text of the file it is
/// published on, when `d` is located in it (its span is converted in that
/// text); without it the diagnostic covers the start of the file.
///
/// The code is the `TQX_*` code, with a link to its entry in
/// `docs/diagnostics.md` when `docs` is known; the message is followed by
/// the help and by the notes that do not point anywhere; an "included from
/// FILE:LINE:COLUMN (POINTER)" note becomes related information at the
/// include node. A suggestion of the compiler goes in `data`, for the quick
/// fix ([`crate::actions`]).
pub(crate) fn convert(
    d: &Diagnostic,
    text: Option<&str>,
    compilation: &Compilation,
    workspace: &Workspace,
    docs: Option<&Url>,
) -> lsp_types::Diagnostic {
    let range = match (text, &d.span) {
        (Some(text), Some(span)) => LineIndex::new(text).range(span),
        _ => lsp_types::Range::default(),
    };
    let mut message = d.message.clone();
    if let Some(help) = &d.help {
        message.push_str("\nhelp: ");
        message.push_str(help);
    }
    let mut related = Vec::new();
    for note in &d.notes {
        match included_from(note, compilation, workspace) {
            Some(location) => related.push(DiagnosticRelatedInformation {
                location,
                message: "included from here".to_owned(),
            }),
            None => {
                message.push_str("\nnote: ");
                message.push_str(note);
            }
        }
    }
    let code = d.code.as_str();
    lsp_types::Diagnostic {
        range,
        severity: Some(match d.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
        }),
        code: Some(NumberOrString::String(code.to_owned())),
        code_description: docs.map(|docs| {
            let mut href = docs.clone();
            href.set_fragment(Some(&code.to_ascii_lowercase()));
            CodeDescription { href }
        }),
        source: Some("templiqx".to_owned()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        tags: None,
        // The compiler's fix, for the quick fix (`crate::actions`).
        data: match (text, &d.suggestion) {
            (Some(text), Some(s)) => crate::actions::data(text, s),
            _ => None,
        },
    }
}

/// The location an "included from FILE:LINE:COLUMN (POINTER)" note (see
/// `templiqx_build::Sources::include_chain`) names: the include node at
/// POINTER in FILE, else the position.
fn included_from(note: &str, compilation: &Compilation, workspace: &Workspace) -> Option<Location> {
    let rest = note.strip_prefix("included from ")?;
    let (at, pointer) = match rest.rfind(" (") {
        Some(i) if rest.ends_with(')') => (&rest[..i], Some(&rest[i + 2..rest.len() - 1])),
        _ => (rest, None),
    };
    let mut parts = at.rsplitn(3, ':');
    let (column, line, name) = (parts.next()?, parts.next()?, parts.next());
    let (name, line, column) = match (name, line.parse::<u32>(), column.parse::<u32>()) {
        (Some(name), Ok(line), Ok(column)) => (name, line, column),
        // "included from FILE (POINTER)": no position.
        _ => (at, 1, 1),
    };
    let path = compilation.path_of(name)?;
    let url = workspace.url_of(path)?;
    let (text, root) = Workspace::source_tree(compilation, name)?;
    let index = LineIndex::new(text);
    let range = match pointer.and_then(|p| root?.span_of(p)) {
        Some(span) => index.range(&span),
        None => {
            let at = index.position(index.offset_of(line, column));
            lsp_types::Range::new(at, at)
        }
    };
    Some(Location { uri: url, range })
}
