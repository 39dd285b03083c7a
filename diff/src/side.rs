//! One side of a diff: a package directory or a contract file, read through
//! a [`FileSystem`] (the disk, or a git revision) and compiled.

use crate::change::Location;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use templiqx_build::dto::FileId;
use templiqx_build::{CompiledContract, FileSystem, Loader, MANIFEST, Manifest, relative_to};
use templiqx_contracts::{CapabilityProfile, Code, Diagnostic, Position};

/// What a side is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A package directory (it holds `templiqx.yaml`).
    Package,
    /// A contract file.
    File,
    /// Nothing is at the path (on this side of a `--base` diff).
    Absent,
}

/// One side of a diff, loaded and compiled.
pub struct Side {
    /// How reports name the side: `old`, `new`, or the revision.
    pub label: String,
    /// The path as displayed (relative to the loader's base).
    pub path: String,
    /// What the path is.
    pub kind: Kind,
    /// The loader that read it: its sources (for snippets and spans) and
    /// packages.
    pub loader: Loader,
    /// The package's index in the loader, for a package directory.
    pub package: Option<usize>,
    /// Every contract compiled, in the manifest's order.
    pub contracts: Vec<CompiledContract>,
    /// Problems with the input itself: unreadable, not a package, a bad
    /// manifest (`TQX_IO`, `TQX_PACKAGE`, ...).
    pub problems: Vec<Diagnostic>,
}

impl std::fmt::Debug for Side {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Side")
            .field("label", &self.label)
            .field("path", &self.path)
            .field("kind", &self.kind)
            .field("contracts", &self.contracts.len())
            .field("problems", &self.problems)
            .finish_non_exhaustive()
    }
}

/// `path` made absolute against `base`, `.` and `..` removed lexically.
fn absolute(base: &Path, path: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

impl Side {
    /// Loads `path` (relative paths against `base`, which also names files
    /// in diagnostics: the current directory, usually) through `fs`, and
    /// compiles every contract.
    ///
    /// A directory is a package (every contract its manifest lists); a file
    /// is one contract (its package, for includes, the nearest ancestor
    /// holding `templiqx.yaml`). Contracts compile for `target`; without
    /// one, for the capabilities the side's contracts require, so
    /// `TQX_CAPABILITY_UNSUPPORTED` never fires and the comparison sees
    /// the required capabilities themselves.
    ///
    /// Problems are recorded, never returned: `TQX_IO` in
    /// [`Side::problems`] when nothing is at `path` (unless
    /// `absent_is_empty`, for the old side of a `--base` diff of a package
    /// new in the working tree, which is then [`Kind::Absent`]) or a
    /// directory has no manifest; each contract's own diagnostics in it.
    pub fn load(
        fs: Arc<dyn FileSystem>,
        base: &Path,
        path: &Path,
        target: Option<&CapabilityProfile>,
        label: impl Into<String>,
        absent_is_empty: bool,
    ) -> Side {
        let abs = absolute(base, path);
        let shown = {
            let rel = relative_to(&abs, base).to_string_lossy().replace('\\', "/");
            if rel.is_empty() { ".".to_owned() } else { rel }
        };
        let kind = if fs.is_dir(&abs) {
            Kind::Package
        } else if fs.is_file(&abs) {
            Kind::File
        } else {
            Kind::Absent
        };
        let mut side = Side {
            label: label.into(),
            path: shown.clone(),
            kind,
            loader: Loader::with_file_system(base, Arc::clone(&fs)),
            package: None,
            contracts: Vec::new(),
            problems: Vec::new(),
        };
        match kind {
            Kind::Absent if absent_is_empty => {}
            Kind::Absent => side.problems.push(
                Diagnostic::error(Code::Io, format!("cannot open `{shown}`: no such file or directory"))
                    .in_file(shown)
                    .help("pass a package directory (holding `templiqx.yaml`) or a contract file"),
            ),
            Kind::Package if !fs.is_file(&abs.join(MANIFEST)) => side.problems.push(
                Diagnostic::error(
                    Code::Io,
                    format!("`{shown}` is not a package: it holds no `{MANIFEST}`"),
                )
                .in_file(shown)
                .help(format!(
                    "a package directory holds a `{MANIFEST}` manifest; to compare one contract, pass its file"
                )),
            ),
            Kind::Package | Kind::File => {
                let empty = CapabilityProfile::default();
                side.compile(&fs, base, &abs, target.unwrap_or(&empty));
                if target.is_none() {
                    let needs = side.required_capabilities();
                    if !needs.0.is_empty() {
                        side.compile(&fs, base, &abs, &needs);
                    }
                }
            }
        }
        side
    }

    /// (Re)compiles the side for `profile` with a fresh loader.
    fn compile(
        &mut self,
        fs: &Arc<dyn FileSystem>,
        base: &Path,
        abs: &Path,
        profile: &CapabilityProfile,
    ) {
        let mut loader = Loader::with_file_system(base, Arc::clone(fs));
        self.contracts.clear();
        self.problems.clear();
        self.package = None;
        match self.kind {
            Kind::Package => match loader.load_package(abs) {
                Ok(index) => {
                    self.package = Some(index);
                    let ids = loader.package(index).manifest.contracts.clone();
                    for id in ids {
                        let c = loader.compile_listed(index, &id, profile);
                        self.contracts.push(c);
                    }
                }
                Err(diagnostics) => self.problems = diagnostics,
            },
            Kind::File => {
                let c = loader.compile_file(abs, profile);
                self.contracts.push(c);
            }
            Kind::Absent => {}
        }
        self.loader = loader;
    }

    /// Every capability the side's contracts list or their extensions need.
    fn required_capabilities(&self) -> CapabilityProfile {
        CapabilityProfile::new(
            self.contracts
                .iter()
                .filter_map(|c| c.contract.as_ref())
                .flat_map(|c| {
                    c.capabilities
                        .iter()
                        .cloned()
                        .chain(c.extensions.iter().map(|(_, e)| e.capability.clone()))
                }),
        )
    }

    /// The package manifest, for a package directory that loaded.
    pub fn manifest(&self) -> Option<&Manifest> {
        self.package.map(|i| &self.loader.package(i).manifest)
    }

    /// The manifest's file in the loader's sources.
    pub(crate) fn manifest_file(&self) -> Option<FileId> {
        self.package.map(|i| self.loader.package(i).manifest_file)
    }

    /// The location of `pointer` in `file`: its name and the span of the
    /// deepest node on the pointer.
    ///
    /// A mapping or list written in block style under a key is shown by
    /// its key; any other node longer than three lines by its first line,
    /// so a snippet stays short.
    pub(crate) fn locate(&self, file: FileId, pointer: &str) -> Location {
        let source = self.loader.sources.get(file);
        let root = source.and_then(|f| f.root.as_ref());
        let block_under_key = root.and_then(|r| {
            let node = r.pointer(pointer)?;
            let key = r.key_span(pointer)?;
            let container = node.as_map().is_some() || node.as_seq().is_some();
            (container && node.span.start.line > key.start.line).then_some(key)
        });
        let span = root.and_then(|r| r.span_of(pointer)).map(|span| {
            if let Some(key) = block_under_key {
                return key;
            }
            if span.end.line <= span.start.line + 2 {
                return span;
            }
            if let Some(key) = root.and_then(|r| r.key_span(pointer)) {
                return key;
            }
            let text = source.map_or("", |f| f.text.as_str());
            let line_end = text
                .get(span.bytes.0..)
                .and_then(|rest| rest.find(['\n', '\r']))
                .map_or(text.len(), |n| span.bytes.0 + n);
            let first = text.get(span.bytes.0..line_end).unwrap_or("");
            let mut short = span;
            short.end = Position {
                line: span.start.line,
                column: span.start.column + u32::try_from(first.chars().count()).unwrap_or(0),
            };
            short.bytes = (span.bytes.0, line_end);
            short
        });
        Location {
            file: source.map(|f| f.name.clone()).unwrap_or_default(),
            json_pointer: pointer.to_owned(),
            span,
        }
    }

    /// The text of the file named `name` on this side.
    pub fn source(&self, name: &str) -> Option<&str> {
        self.loader.sources.by_name(name).map(|f| f.text.as_str())
    }
}
