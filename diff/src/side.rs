//! One side of a diff: a package directory or a contract file, read through
//! a [`FileSystem`] (the disk, or a git revision) and compiled.

use crate::change::Location;
use std::path::Path;
use std::sync::Arc;
use templiqx_build::dto::{Contract, FileId};
use templiqx_build::{
    CompiledContract, Compiler, FileSystem, InputKind, Loader, Manifest, Target, compile_contract,
};
use templiqx_contracts::{CapabilityProfile, Diagnostic, Position};

/// What a side is: a package directory, a contract file, or nothing
/// comparable ([`Side::unusable`]; with `absent_is_empty`, nothing at all).
pub type Kind = InputKind;

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
    /// Every contract compiled, in the manifest's order. A listed
    /// contract's [`CompiledContract::id`] is the id the manifest lists
    /// (what a host names it by), whatever its file declares: a file that
    /// declares another id does not compile (`TQX_PACKAGE`).
    ///
    /// A contract whose only errors are in its eval fixtures
    /// (`TQX_EVAL_INVALID`, under `/evals`) has its interaction compiled
    /// without them, since fixtures never reach it; the errors stay in its
    /// diagnostics.
    pub contracts: Vec<CompiledContract>,
    /// Why the path itself cannot be compared, when it cannot (`TQX_IO`):
    /// nothing is there, it is neither a regular file nor a directory (a
    /// device, a named pipe, a socket) or a loop of symbolic links, or it
    /// is a directory without `templiqx.yaml`. A front end reports it as a
    /// usage error. `None` for a side that may be absent
    /// (`absent_is_empty`) and is.
    pub unusable: Option<Diagnostic>,
    /// Problems loading the package: a manifest that cannot be read, does
    /// not parse or is invalid (`TQX_IO`, `TQX_PARSE_YAML`, the shape
    /// codes, `TQX_PACKAGE`). A side with problems is not compared.
    pub problems: Vec<Diagnostic>,
}

impl std::fmt::Debug for Side {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Side")
            .field("label", &self.label)
            .field("path", &self.path)
            .field("kind", &self.kind)
            .field("contracts", &self.contracts.len())
            .field("unusable", &self.unusable)
            .field("problems", &self.problems)
            .finish_non_exhaustive()
    }
}

/// Compiles `c`'s interaction without its eval fixtures when they are all
/// that stop it: every error is under `/evals` of the contract file
/// (`TQX_EVAL_INVALID`, or a check's expression), and the contract without
/// `evals` compiles. Fixtures never reach the interaction (`docs/diff.md`,
/// `EVAL_CHANGED`), so the comparison of shapes need not wait for them;
/// the fixtures' diagnostics stay in `c`.
fn without_fixtures(c: &mut CompiledContract, loader: &Loader, target: &Target) {
    let Some(contract) = &c.contract else { return };
    let in_fixtures = |d: &Diagnostic| {
        !d.is_error()
            || (d.file.as_deref() == Some(c.file.as_str())
                && d.json_pointer.as_deref().is_some_and(|p| {
                    p.strip_prefix("/evals")
                        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
                }))
    };
    if c.interaction.is_some()
        || contract.evals.is_empty()
        || !c.diagnostics.iter().any(Diagnostic::is_error)
        || !c.diagnostics.iter().all(in_fixtures)
    {
        return;
    }
    let bare = Contract {
        evals: Vec::new(),
        ..contract.clone()
    };
    if let Ok(interaction) = compile_contract(&bare, &loader.sources, &target.profile_for(&bare)) {
        c.interaction = Some(interaction);
    }
}

impl Side {
    /// Loads `path` (relative paths against `base`, which also names files
    /// in diagnostics: the current directory, usually) through `fs`, and
    /// compiles every contract.
    ///
    /// A directory is a package (every contract its manifest lists); a file
    /// is one contract (its package, for includes, the nearest ancestor
    /// holding `templiqx.yaml`), compiled through the compiler's one entry
    /// point ([`Compiler`]). Contracts compile for `target`; without one,
    /// each for the capabilities it requires ([`Target::Required`]), so
    /// `TQX_CAPABILITY_UNSUPPORTED` never fires and the comparison sees
    /// the required capabilities themselves.
    ///
    /// Problems are recorded, never returned: [`Side::unusable`] when
    /// nothing comparable is at `path` — unless `absent_is_empty` (a side
    /// of a `--base` diff, where a package may be new or deleted) and
    /// nothing, or a directory without `templiqx.yaml`, is there: the side
    /// is then an empty [`Kind::Absent`]. Manifest problems go to
    /// [`Side::problems`], each contract's to its diagnostics.
    pub fn load(
        fs: Arc<dyn FileSystem>,
        base: &Path,
        path: &Path,
        target: Option<&CapabilityProfile>,
        label: impl Into<String>,
        absent_is_empty: bool,
    ) -> Side {
        let target = target.map_or(Target::Required, |t| Target::Profile(t.clone()));
        // Nothing is generated from a side: code generation is not checked.
        let input = Compiler::new(base, target.clone())
            .file_system(fs)
            .check_codegen(false)
            .allow_absent(absent_is_empty)
            .compile(path);
        let mut side = Side {
            label: label.into(),
            path: input.name,
            kind: input.kind,
            loader: input.loader,
            package: input.package,
            contracts: input.contracts,
            unusable: input.unusable,
            problems: input.problems,
        };
        let listed = side
            .manifest()
            .map(|m| m.contracts.clone())
            .unwrap_or_default();
        for (i, c) in side.contracts.iter_mut().enumerate() {
            // Matched by the listed id, whatever the file says.
            if let Some(id) = listed.get(i) {
                c.id.clone_from(id);
            }
            without_fixtures(c, &side.loader, &target);
        }
        side
    }

    /// Whether the side loaded: something comparable is at its path (or it
    /// may be absent and is), and its manifest has no problems. A contract
    /// file always loads; the contract may still not compile.
    pub fn loaded(&self) -> bool {
        self.unusable.is_none() && self.problems.is_empty()
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

    /// The longest prefix of `pointer` that is written in `file` (a node
    /// a default fills in, such as `filters: []`, is not).
    pub(crate) fn written(&self, file: FileId, pointer: &str) -> String {
        let root = self.loader.sources.get(file).and_then(|f| f.root.as_ref());
        let mut p = pointer;
        while let Some(root) = root
            && root.pointer(p).is_none()
            && let Some(i) = p.rfind('/')
        {
            p = &p[..i];
        }
        p.to_owned()
    }

    /// The text of the file named `name` on this side.
    pub fn source(&self, name: &str) -> Option<&str> {
        self.loader.sources.by_name(name).map(|f| f.text.as_str())
    }
}
