//! The compiler's diagnostics as protocol diagnostics.
//!
//! A diagnostic whose suggestion the compiler can write exactly (a
//! [`Suggestion`]: a replacement and the span of the text it replaces,
//! `docs/diagnostics.md`, "Suggestions") carries it in its `data`
//! ([`Data`]), as the protocol preserves it between
//! `textDocument/publishDiagnostics` and `textDocument/codeAction` (LSP
//! 3.16, "Diagnostic"): the quick fix (`crate::requests::code_action`)
//! reads it back.

use crate::convert::LineIndex;
use crate::workspace::{Compilation, Workspace};
use lsp_types::{
    CodeDescription, DiagnosticRelatedInformation, DiagnosticSeverity, Location, NumberOrString,
    Url,
};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use templiqx_contracts::{Diagnostic, Severity, Suggestion};

/// The protocol diagnostics of one compilation, by the real path of the
/// file each is published on.
///
/// A diagnostic goes to its file, or to `fallback` (the package manifest,
/// or the lone contract) when it has none the compilation read. The text
/// of every file is indexed once ([`LineIndex`]), however many diagnostics
/// it has: conversion is linear in their number.
///
/// Diagnostics identical but for their related information are merged into
/// one whose related information is the union: a shared partial's error,
/// reported once per contract that includes it, is shown once, with the
/// include chain of every contract (and one quick fix).
pub(crate) fn by_file<'c>(
    diagnostics: impl IntoIterator<Item = &'c Diagnostic>,
    fallback: &Path,
    compilation: &'c Compilation,
    workspace: &Workspace,
    docs: Option<&Url>,
) -> BTreeMap<PathBuf, Vec<lsp_types::Diagnostic>> {
    let mut converter = Converter {
        compilation,
        workspace,
        docs,
        indexes: HashMap::new(),
    };
    let mut out: BTreeMap<PathBuf, Vec<lsp_types::Diagnostic>> = BTreeMap::new();
    // Per file, the index in its list of each diagnostic, by what must be
    // equal for two to merge (all but the related information).
    let mut seen: HashMap<PathBuf, HashMap<String, usize>> = HashMap::new();
    for d in diagnostics {
        let (path, name) = match d
            .file
            .as_deref()
            .and_then(|f| Some((compilation.path_of(f)?, f)))
        {
            Some((path, name)) => (path.to_path_buf(), Some(name)),
            None => (fallback.to_path_buf(), None),
        };
        let converted = converter.convert(d, name);
        let list = out.entry(path.clone()).or_default();
        let mut key = converted.clone();
        let related = key.related_information.take().unwrap_or_default();
        let key = serde_json::to_string(&key).unwrap_or_default();
        match seen.entry(path).or_default().entry(key) {
            std::collections::hash_map::Entry::Occupied(at) => {
                let existing = &mut list[*at.get()];
                let all = existing.related_information.get_or_insert_with(Vec::new);
                for r in related {
                    if !all.contains(&r) {
                        all.push(r);
                    }
                }
            }
            std::collections::hash_map::Entry::Vacant(at) => {
                at.insert(list.len());
                list.push(converted);
            }
        }
    }
    out
}

/// Converts the diagnostics of one compilation, with the line index of
/// every file built once.
struct Converter<'c, 'w> {
    compilation: &'c Compilation,
    workspace: &'w Workspace,
    docs: Option<&'w Url>,
    /// The text, tree and line index of each file, by display name; `None`
    /// for a name the compilation did not read.
    indexes: HashMap<String, Option<Indexed<'c>>>,
}

struct Indexed<'c> {
    text: &'c str,
    root: Option<&'c templiqx_build::yaml::Node>,
    index: LineIndex<'c>,
}

impl<'c> Converter<'c, '_> {
    fn file(&mut self, name: &str) -> Option<&Indexed<'c>> {
        let compilation = self.compilation;
        self.indexes
            .entry(name.to_owned())
            .or_insert_with(|| {
                let (text, root) = Workspace::source_tree(compilation, name)?;
                Some(Indexed {
                    text,
                    root,
                    index: LineIndex::new(text),
                })
            })
            .as_ref()
    }

    /// The protocol diagnostic of `d`. `name` is the display name of the
    /// file it is published on, when `d` is located in it (its span is
    /// converted in that file's text); without it the diagnostic covers
    /// the start of the file.
    ///
    /// The code is the `TQX_*` code, with a link to its entry in
    /// `docs/diagnostics.md` when the docs are known; the message is
    /// followed by the help and by the notes that do not point anywhere; an
    /// "included from FILE:LINE:COLUMN (POINTER)" note becomes related
    /// information at the include node. A suggestion of the compiler goes
    /// in `data` ([`Data`]), for the quick fix.
    fn convert(&mut self, d: &Diagnostic, name: Option<&str>) -> lsp_types::Diagnostic {
        let here = name.and_then(|name| self.file(name));
        let range = match (here, &d.span) {
            (Some(file), Some(span)) => file.index.range(span),
            // A file read but not kept as a source: a dataset, read as a
            // stream (`docs/format.md`, "Datasets"), whose row diagnostics
            // span one line from its first column.
            (None, Some(span)) if name.is_some() => line_range(span),
            _ => lsp_types::Range::default(),
        };
        // The compiler's fix, for the quick fix.
        let data = match (here, &d.suggestion) {
            (Some(file), Some(s)) => data(file.text, &file.index, s),
            _ => None,
        };
        let mut message = d.message.clone();
        if let Some(help) = &d.help {
            message.push_str("\nhelp: ");
            message.push_str(help);
        }
        let mut related = Vec::new();
        for note in &d.notes {
            match self.included_from(note) {
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
            code_description: self.docs.map(|docs| {
                let mut href = docs.clone();
                href.set_fragment(Some(&code.to_ascii_lowercase()));
                CodeDescription { href }
            }),
            source: Some("templiqx".to_owned()),
            message,
            related_information: (!related.is_empty()).then_some(related),
            tags: None,
            data,
        }
    }

    /// The location an "included from FILE:LINE:COLUMN (POINTER)" note
    /// (see `templiqx_build::Sources::include_chain`) names: the include
    /// node at POINTER in FILE, else the position.
    fn included_from(&mut self, note: &str) -> Option<Location> {
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
        let path = self.compilation.path_of(name)?;
        let uri = self.workspace.url_of(path)?;
        let file = self.file(name)?;
        let range = match pointer.and_then(|p| file.root?.span_of(p)) {
            Some(span) => file.index.range(&span),
            None => {
                let at = file.index.position(file.index.offset_of(line, column));
                lsp_types::Range::new(at, at)
            }
        };
        Some(Location { uri, range })
    }
}

/// What a published diagnostic carries in `data`: `{"suggestion":
/// {"range", "replacement", "replaces"}}`.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Data {
    pub(crate) suggestion: Fix,
}

/// A suggestion in protocol terms.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Fix {
    /// What the replacement replaces (UTF-16 positions).
    pub(crate) range: lsp_types::Range,
    /// The text to write.
    pub(crate) replacement: String,
    /// The text it replaces, as published: an action is offered only
    /// while the document still holds it.
    pub(crate) replaces: String,
}

/// The `data` of the protocol diagnostic of a compiler diagnostic with
/// The protocol range of `span` in a file whose text the server does not
/// hold: its 1-based lines and columns made 0-based (a row of a dataset is
/// one line from its first column, so UTF-16 and characters agree at its
/// start).
fn line_range(span: &templiqx_contracts::Span) -> lsp_types::Range {
    let at = |p: templiqx_contracts::Position| {
        lsp_types::Position::new(p.line.saturating_sub(1), p.column.saturating_sub(1))
    };
    lsp_types::Range::new(at(span.start), at(span.end))
}

/// suggestion `s`, in the file `text` it is located in (`index` is the
/// text's line index); `None` when the span is not in the text.
fn data(text: &str, index: &LineIndex, s: &Suggestion) -> Option<serde_json::Value> {
    let start = index.offset_of(s.span.start.line, s.span.start.column);
    let end = index.offset_of(s.span.end.line, s.span.end.column);
    let fix = Fix {
        range: index.byte_range(start, end),
        replacement: s.replacement.clone(),
        replaces: text.get(start..end)?.to_owned(),
    };
    serde_json::to_value(Data { suggestion: fix }).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use templiqx_contracts::{Position, Span, Suggestion};

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
