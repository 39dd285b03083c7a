//! Source files read during one compilation, and turning [`Loc`]s into
//! located [`Diagnostic`]s.

use crate::dto::{FileId, Loc};
use crate::yaml::Node;
use templiqx_contracts::{Code, Diagnostic};

/// One source file: its display name, text, and parsed tree (when it parsed).
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// Display name (relative to the package root or the caller's base directory).
    pub name: String,
    /// The full text.
    pub text: String,
    /// The parsed YAML tree, used to map JSON pointers to spans.
    pub root: Option<Node>,
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
        self.files.push(SourceFile { name: name.into(), text: text.into(), root: None });
        FileId::try_from(self.files.len() - 1).unwrap_or(FileId::MAX)
    }

    /// Records the parsed tree of a file.
    pub fn set_root(&mut self, file: FileId, root: Node) {
        if let Some(f) = self.files.get_mut(file as usize) {
            f.root = Some(root);
        }
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
        d
    }
}

impl Sources {
    /// Places a diagnostic that already has a JSON pointer into `file`,
    /// filling in the file name and the span of that pointer.
    pub fn locate(&self, mut d: Diagnostic, file: FileId) -> Diagnostic {
        if let Some(f) = self.get(file) {
            d.file = Some(f.name.clone());
            if d.span.is_none() {
                if let (Some(root), Some(p)) = (&f.root, &d.json_pointer) {
                    d.span = root.span_of(p);
                }
            }
        }
        d
    }
}
