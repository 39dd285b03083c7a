//! Source files read during one compilation, and turning [`Loc`]s into
//! located [`Diagnostic`]s.

use crate::dto::{FileId, Loc};
use crate::yaml::{self, Node};
use std::ops::Range;
use std::sync::Arc;
use templiqx_contracts::{Code, Diagnostic, Suggestion};

/// One source file: its display name, text, and parsed tree (when it parsed).
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// Display name (relative to the package root or the caller's base directory).
    pub name: String,
    /// The full text.
    pub text: String,
    /// The parsed YAML tree, used to map JSON pointers to spans (shared:
    /// a [`ParseCache`](crate::ParseCache) hands the same tree to every
    /// compilation that reads the same text).
    pub root: Option<Arc<Node>>,
    /// For a partial: the include node that spliced it in.
    pub included_from: Option<Loc>,
}

/// Every file of one compilation, indexed by [`FileId`].
#[derive(Clone, Debug, Default)]
pub struct Sources {
    files: Vec<SourceFile>,
}

impl Sources {
    /// An empty table.
    pub fn new() -> Sources {
        Sources::default()
    }

    /// Adds a file and returns its id.
    pub fn add(&mut self, name: impl Into<String>, text: impl Into<String>) -> FileId {
        self.files.push(SourceFile {
            name: name.into(),
            text: text.into(),
            root: None,
            included_from: None,
        });
        FileId::try_from(self.files.len() - 1).unwrap_or(FileId::MAX)
    }

    /// Records the parsed tree of a file.
    pub fn set_root(&mut self, file: FileId, root: Arc<Node>) {
        if let Some(f) = self.files.get_mut(file as usize) {
            f.root = Some(root);
        }
    }

    /// Records that `file` is a partial spliced in by the include node at `from`.
    pub fn set_included_from(&mut self, file: FileId, from: Loc) {
        if let Some(f) = self.files.get_mut(file as usize) {
            f.included_from = Some(from);
        }
    }

    /// The include chain of `file`, innermost first, as notes
    /// (`included from contracts/a.yaml:12:9 (/messages/0/content/1)`).
    pub fn include_chain(&self, file: FileId) -> Vec<String> {
        let mut notes = Vec::new();
        let mut current = self.get(file).and_then(|f| f.included_from.clone());
        while let Some(loc) = current {
            if notes.len() > 64 {
                break;
            }
            let Some(f) = self.get(loc.file) else { break };
            let span = f.root.as_ref().and_then(|r| r.span_of(&loc.pointer));
            notes.push(match span {
                Some(s) => format!(
                    "included from {}:{}:{} ({})",
                    f.name, s.start.line, s.start.column, loc.pointer
                ),
                None => format!("included from {} ({})", f.name, loc.pointer),
            });
            current = f.included_from.clone();
        }
        notes
    }

    /// The file with this id.
    pub fn get(&self, file: FileId) -> Option<&SourceFile> {
        self.files.get(file as usize)
    }

    /// The file with this display name.
    pub fn by_name(&self, name: &str) -> Option<&SourceFile> {
        self.files.iter().find(|f| f.name == name)
    }

    /// All files, in the order they were read.
    pub fn files(&self) -> &[SourceFile] {
        &self.files
    }

    /// An error located at `loc`: file name, JSON pointer, and the span of
    /// the deepest node on that pointer.
    pub fn error(&self, code: Code, message: impl Into<String>, loc: &Loc) -> Diagnostic {
        let mut d = Diagnostic::error(code, message).at(loc.pointer.clone());
        if let Some(f) = self.get(loc.file) {
            d.file = Some(f.name.clone());
            d.span = f.root.as_ref().and_then(|r| r.span_of(&loc.pointer));
        }
        d.notes = self.include_chain(loc.file);
        d
    }
}

impl Sources {
    /// Like [`Sources::error`], but spanned on the mapping key under which
    /// the node at `loc` sits (for diagnostics about a key itself).
    pub fn error_at_key(&self, code: Code, message: impl Into<String>, loc: &Loc) -> Diagnostic {
        let mut d = self.error(code, message, loc);
        if let Some(span) = self
            .get(loc.file)
            .and_then(|f| f.root.as_ref())
            .and_then(|r| r.key_span(&loc.pointer))
        {
            d.span = Some(span);
        }
        d
    }

    /// The fix that writes `replacement` in place of the whole scalar at
    /// `loc` (with `key`, of the mapping key under which it sits), when
    /// there is a replacement, the node exists, and the replacement is a
    /// plain word ([`yaml::replace_whole`]).
    pub(crate) fn fix_whole(
        &self,
        loc: &Loc,
        key: bool,
        replacement: Option<String>,
    ) -> Option<Suggestion> {
        let root = self.get(loc.file)?.root.as_ref()?;
        let span = if key {
            root.key_span(&loc.pointer)?
        } else {
            root.pointer(&loc.pointer)?.span
        };
        yaml::replace_whole(span, replacement?)
    }

    /// The fix that writes `replacement` in place of the bytes `range` of
    /// the string scalar at `loc` (a segment of a reference path), when
    /// that scalar is written verbatim ([`yaml::replace_part`]).
    pub(crate) fn fix_part(
        &self,
        loc: &Loc,
        range: Range<usize>,
        replacement: Option<String>,
    ) -> Option<Suggestion> {
        let file = self.get(loc.file)?;
        let node = file.root.as_ref()?.pointer(&loc.pointer)?;
        yaml::replace_part(&file.text, &node.span, node.as_str()?, range, replacement?)
    }

    /// Places a diagnostic that already has a JSON pointer into `file`,
    /// filling in the file name and the span of that pointer.
    pub fn locate(&self, mut d: Diagnostic, file: FileId) -> Diagnostic {
        if let Some(f) = self.get(file) {
            d.file = Some(f.name.clone());
            if d.span.is_none()
                && let (Some(root), Some(p)) = (&f.root, &d.json_pointer)
            {
                d.span = root.span_of(p);
            }
        }
        d
    }
}
