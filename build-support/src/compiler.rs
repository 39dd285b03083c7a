//! The one compile entry point of the front ends ([`Compiler`]).

use crate::check::CompileOptions;
use crate::codegen;
use crate::dto::Contract;
use crate::file_system::{FileSystem, Overlay, RealFileSystem};
use crate::package::{CompiledContract, Loader, MANIFEST, relative_to};
use crate::parse_cache::ParseCache;
use std::borrow::Cow;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use templiqx_contracts::{CapabilityProfile, Code, Diagnostic};

/// The capability profile contracts compile for (`docs/format.md`,
/// "Capabilities and the target profile").
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// The profile of the runtime that will execute the interactions: a
    /// capability a contract requires and the profile lacks is
    /// `TQX_CAPABILITY_UNSUPPORTED`, an extension's is
    /// `TQX_EXTENSION_UNSUPPORTED`.
    Profile(CapabilityProfile),
    /// No runtime in view (an editor without a configured target, a
    /// comparison of two versions): each contract compiles for exactly the
    /// capabilities it requires (its `capabilities` and its extensions'
    /// `capability`), so the two capability checks never fire and every
    /// other check runs as for any profile. The interaction's
    /// `target_capabilities` are then its required ones.
    Required,
}

impl Target {
    /// The profile `contract` (composed: includes resolved) compiles for.
    pub fn profile_for(&self, contract: &Contract) -> Cow<'_, CapabilityProfile> {
        match self {
            Target::Profile(profile) => Cow::Borrowed(profile),
            Target::Required => Cow::Owned(required_capabilities(contract)),
        }
    }
}

/// Every capability `contract` lists or its extensions need.
pub fn required_capabilities(contract: &Contract) -> CapabilityProfile {
    CapabilityProfile::new(
        contract.capabilities.iter().cloned().chain(
            contract
                .extensions
                .iter()
                .map(|(_, e)| e.capability.clone()),
        ),
    )
}

/// What a compiled path was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputKind {
    /// A package directory (it holds `templiqx.yaml`).
    Package,
    /// A contract file, or a text ([`Compiler::compile_text`]).
    File,
    /// Nothing that compiles is at the path: see
    /// [`CompiledInput::unusable`]. With [`Compiler::allow_absent`],
    /// nothing at all or a directory without `templiqx.yaml`, reported as
    /// an empty input.
    Absent,
}

/// One input compiled by [`Compiler::compile`].
#[derive(Debug)]
pub struct CompiledInput {
    /// The path as diagnostics name it: relative to the compiler's base
    /// directory (`.` for the base itself), `/`-separated.
    pub name: String,
    /// What the path is.
    pub kind: InputKind,
    /// The loader that read it: the sources of every file read (for
    /// snippets), [`Loader::files_read`] and [`Loader::looked_for`] (for
    /// rebuild tracking), the packages loaded and the package fingerprint.
    pub loader: Loader,
    /// The package's index in [`CompiledInput::loader`], for a package
    /// directory whose manifest loaded.
    pub package: Option<usize>,
    /// Why nothing at the path can be compiled (`TQX_IO`): nothing is there,
    /// it is neither a regular file nor a directory (a device, a named
    /// pipe, a socket), a loop of symbolic links, or a directory without
    /// `templiqx.yaml`. A front end reports it as a usage error. `None`
    /// for an absent input that [`Compiler::allow_absent`] accepts.
    pub unusable: Option<Diagnostic>,
    /// Problems of the package itself: a manifest that cannot be read,
    /// does not parse or is invalid (`TQX_IO`, `TQX_PARSE_YAML`, the shape
    /// codes, `TQX_PACKAGE`).
    pub problems: Vec<Diagnostic>,
    /// Every contract compiled: the listed ones in the manifest's order
    /// (each named by the id its file declares, or the listed id when it
    /// does not parse), then the extra files; one for a file.
    pub contracts: Vec<CompiledContract>,
    /// What [`Compiler::finish`] still has to compile.
    pending: Vec<Pending>,
}

/// A contract [`Compiler::open`] planned.
#[derive(Debug)]
enum Pending {
    Listed(String),
    File(PathBuf),
}

impl CompiledInput {
    /// Every diagnostic: why the input is unusable, the package's problems,
    /// then each contract's, in that order.
    pub fn diagnostics(&self) -> impl Iterator<Item = &Diagnostic> {
        self.unusable
            .iter()
            .chain(&self.problems)
            .chain(self.contracts.iter().flat_map(|c| &c.diagnostics))
    }

    /// Whether any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics().any(Diagnostic::is_error)
    }

    /// How many contracts [`Compiler::finish`] will compile (for a progress
    /// bar over several inputs).
    pub fn pending(&self) -> usize {
        self.pending.len()
    }

    /// The display name of the contract file each pending contract is
    /// read from, in compile order.
    fn pending_name(&self, pending: &Pending) -> String {
        match pending {
            Pending::Listed(id) => id.clone(),
            Pending::File(path) => display(path, self.loader.base()),
        }
    }
}

/// The one compile entry point of the front ends: "compile this package,
/// this contract file or this text, for this profile or the contracts'
/// required capabilities, through this file system".
///
/// `templiqx check`, `render`, `test` and `eval`, the language server and
/// `templiqx diff` all compile through [`Compiler`], so a package directory,
/// a contract file and an unsaved text give the same diagnostics whichever
/// tool shows them. The rules applied are those of the [`Loader`]
/// (`docs/format.md`, "Packages"); this module only decides what to load:
///
/// * a directory holding `templiqx.yaml` is a package: every contract its
///   manifest lists, in the manifest's order, then the extra contract files
///   a front end names ([`Compiler::extra_files`]: an editor's contract the
///   manifest does not list yet);
/// * a regular file is one contract (its package, for includes, is the
///   nearest ancestor holding `templiqx.yaml`, as [`Loader::compile_file`]
///   finds it);
/// * anything else cannot be compiled: [`CompiledInput::unusable`] says why
///   (`TQX_IO`).
///
/// Then, unless [`Compiler::check_codegen`] turned it off, code generation
/// is checked as `include_contract!` and [`Builder`](crate::Builder) run it
/// ([`codegen::check_all`]), so a front end fails where a build would.
///
/// ```
/// use std::path::Path;
/// use templiqx_build::{Compiler, InputKind, Target};
/// use templiqx_contracts::CapabilityProfile;
///
/// let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
/// let target = Target::Profile(CapabilityProfile::parse_list("structured_output"));
/// let compiled = Compiler::new(&root, target).compile(Path::new("examples/crm3"));
/// assert_eq!(compiled.kind, InputKind::Package);
/// assert!(compiled.diagnostics().next().is_none());
/// assert!(compiled.contracts.iter().all(|c| c.interaction.is_some()));
/// ```
///
/// A builder, as `prost_build::Config`: set what differs from the
/// defaults (the disk, [`CompileOptions::default`], code generation
/// checked), then [`Compiler::compile`] each input. Each input gets its
/// own [`Loader`], so each has its own package fingerprint.
#[derive(Clone)]
pub struct Compiler {
    base: PathBuf,
    target: Target,
    fs: Arc<dyn FileSystem>,
    options: CompileOptions,
    parse_cache: Option<Arc<ParseCache>>,
    check_codegen: bool,
    allow_absent: bool,
    extra_files: Vec<PathBuf>,
}

impl std::fmt::Debug for Compiler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Compiler")
            .field("base", &self.base)
            .field("target", &self.target)
            .field("options", &self.options)
            .field("check_codegen", &self.check_codegen)
            .field("allow_absent", &self.allow_absent)
            .field("extra_files", &self.extra_files)
            .finish_non_exhaustive()
    }
}

impl Compiler {
    /// A compiler for `target` whose diagnostics name files relative to
    /// `base` (the current directory of a command, a package root), reading
    /// the disk.
    pub fn new(base: impl Into<PathBuf>, target: Target) -> Compiler {
        Compiler {
            base: base.into(),
            target,
            fs: Arc::new(RealFileSystem),
            options: CompileOptions::default(),
            parse_cache: None,
            check_codegen: true,
            allow_absent: false,
            extra_files: Vec::new(),
        }
    }

    /// Reads every file through `fs` (an [`Overlay`] of an editor's
    /// buffers, a git revision) instead of the disk.
    pub fn file_system(mut self, fs: Arc<dyn FileSystem>) -> Compiler {
        self.fs = fs;
        self
    }

    /// Compile options for every contract ([`Loader::with_options`]).
    pub fn options(mut self, options: CompileOptions) -> Compiler {
        self.options = options;
        self
    }

    /// Parses YAML through `cache` ([`Loader::with_parse_cache`]): results
    /// are those without one.
    pub fn parse_cache(mut self, cache: Arc<ParseCache>) -> Compiler {
        self.parse_cache = Some(cache);
        self
    }

    /// Whether to check code generation on the contracts that compiled
    /// (default: yes): two names that map to one Rust field, or two
    /// contracts of one input that map to one module, are
    /// `TQX_CODEGEN_COLLISION`, and such a contract loses its interaction.
    /// A front end that never generates code from what it compares
    /// (`templiqx diff`) turns it off.
    pub fn check_codegen(mut self, check: bool) -> Compiler {
        self.check_codegen = check;
        self
    }

    /// Whether nothing at a path, or a directory without `templiqx.yaml`,
    /// is an empty [`InputKind::Absent`] input instead of an unusable one
    /// (default: no). For one side of a comparison with a revision, where a
    /// package may be new or deleted. A device, a pipe or a loop of
    /// symbolic links stays unusable.
    pub fn allow_absent(mut self, allow: bool) -> Compiler {
        self.allow_absent = allow;
        self
    }

    /// Contract files (absolute paths) of the package being compiled, to
    /// compile after the contracts its manifest lists, unless one of those already read them
    /// (as a contract or a partial): an editor's new contract that the
    /// manifest does not list yet. Each compiles as [`Loader::compile_file`]
    /// compiles it. Ignored for an input that is not a package.
    pub fn extra_files(mut self, files: Vec<PathBuf>) -> Compiler {
        self.extra_files = files;
        self
    }

    /// The target contracts compile for.
    pub fn target(&self) -> &Target {
        &self.target
    }

    /// Compiles the package directory or contract file at `path` (relative
    /// to the base directory): [`Compiler::open`], then
    /// [`Compiler::finish`]. Never fails as a call: every problem is a
    /// diagnostic of the result.
    pub fn compile(&self, path: &Path) -> CompiledInput {
        let mut input = self.open(path);
        self.finish(&mut input, &mut |_| {});
        input
    }

    /// Compiles the contract file at `path` (relative to the base
    /// directory): a directory is the contract's `TQX_IO` diagnostic
    /// ([`Loader::compile_file`]), not a package. For a front end that takes one contract (`templiqx render`,
    /// `templiqx run`).
    ///
    /// Something that is there but is neither a regular file nor a
    /// directory (a device, a named pipe, a socket) is
    /// [`CompiledInput::unusable`], with the words [`Compiler::compile`]
    /// uses, and no contract: a pipe is never read. A path where nothing
    /// can be read (nothing there, a loop of symbolic links) is the
    /// contract's `TQX_IO` diagnostic, as for a directory.
    pub fn compile_file(&self, path: &Path) -> CompiledInput {
        let abs = absolute(&self.base, path);
        let fs = &*self.fs;
        if !fs.is_file(&abs) && !fs.is_dir(&abs) && fs.canonicalize(&abs).is_ok() {
            return self.open(path);
        }
        let mut input = self.empty_input(&abs);
        input.kind = InputKind::File;
        input.pending.push(Pending::File(abs));
        self.finish(&mut input, &mut |_| {});
        input
    }

    /// Compiles `text` as the contract file at `path` (relative to the base
    /// directory), whether a file is there or not: its includes and package
    /// are those of a file at `path` ([`Loader::compile_file`]), every
    /// other file is read through the compiler's file system.
    pub fn compile_text(&self, path: &Path, text: &str) -> CompiledInput {
        let abs = absolute(&self.base, path);
        let mut overlay = Overlay::new(Arc::clone(&self.fs));
        overlay.insert(&abs, text);
        let mut input = self.with_fs(Arc::new(overlay)).open(path);
        self.finish(&mut input, &mut |_| {});
        input
    }

    fn with_fs(&self, fs: Arc<dyn FileSystem>) -> Compiler {
        Compiler { fs, ..self.clone() }
    }

    fn loader(&self) -> Loader {
        let loader =
            Loader::with_file_system(&self.base, Arc::clone(&self.fs)).with_options(self.options);
        match &self.parse_cache {
            Some(cache) => loader.with_parse_cache(Arc::clone(cache)),
            None => loader,
        }
    }

    fn empty_input(&self, abs: &Path) -> CompiledInput {
        CompiledInput {
            name: display(abs, &self.base),
            kind: InputKind::Absent,
            loader: self.loader(),
            package: None,
            unusable: None,
            problems: Vec::new(),
            contracts: Vec::new(),
            pending: Vec::new(),
        }
    }

    /// Finds what is at `path` and loads a package's manifest, without
    /// compiling a contract: [`CompiledInput::pending`] tells how many
    /// [`Compiler::finish`] will compile (a front end that shows progress
    /// over several inputs opens them all first).
    pub fn open(&self, path: &Path) -> CompiledInput {
        let abs = absolute(&self.base, path);
        let mut input = self.empty_input(&abs);
        let shown = input.name.clone();
        let fs = &*self.fs;
        if fs.is_dir(&abs) {
            if !fs.is_file(&abs.join(MANIFEST)) {
                let d = Diagnostic::error(
                    Code::Io,
                    format!("`{shown}` is not a package: it holds no `{MANIFEST}`"),
                )
                .in_file(shown.clone())
                .help(format!(
                    "a package directory holds a `{MANIFEST}` manifest; for one contract, pass its file"
                ));
                input.unusable = (!self.allow_absent).then_some(d);
                return input;
            }
            input.kind = InputKind::Package;
            match input.loader.load_package(&abs) {
                Ok(index) => {
                    input.package = Some(index);
                    let manifest = &input.loader.package(index).manifest;
                    input
                        .pending
                        .extend(manifest.contracts.iter().cloned().map(Pending::Listed));
                    input
                        .pending
                        .extend(self.extra_files.iter().cloned().map(Pending::File));
                }
                Err(diagnostics) => input.problems = diagnostics,
            }
        } else if fs.is_file(&abs) {
            input.kind = InputKind::File;
            input.pending.push(Pending::File(abs));
        } else {
            let (what, exists) = match fs.canonicalize(&abs) {
                // Something is there, but neither a file nor a directory.
                Ok(_) => (
                    format!(
                        "`{shown}` is neither a regular file nor a directory (a device, a named pipe or a socket)"
                    ),
                    true,
                ),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => (
                    format!("cannot open `{shown}`: no such file or directory"),
                    false,
                ),
                Err(e) => {
                    let reason = io_reason(&e);
                    let what = if reason.contains("symbolic link") {
                        format!("`{shown}` is a loop of symbolic links ({reason})")
                    } else {
                        format!("cannot open `{shown}`: {reason}")
                    };
                    (what, true)
                }
            };
            let d = Diagnostic::error(Code::Io, what)
                .in_file(shown)
                .help("pass a package directory (holding `templiqx.yaml`) or a contract file");
            input.unusable = (exists || !self.allow_absent).then_some(d);
        }
        input
    }

    /// Compiles what [`Compiler::open`] planned, calling `progress` with
    /// each contract's id (or file name) before compiling it, then checks
    /// code generation ([`Compiler::check_codegen`]).
    pub fn finish(&self, input: &mut CompiledInput, progress: &mut dyn FnMut(&str)) {
        for pending in std::mem::take(&mut input.pending) {
            progress(&input.pending_name(&pending));
            let compiled = match (&pending, input.package) {
                (Pending::Listed(id), Some(index)) => {
                    input.loader.compile_listed_for(index, id, &self.target)
                }
                (Pending::File(path), _) => {
                    // An extra file a listed contract read already (it is
                    // one of them, or one of their partials) is compiled.
                    if input.kind == InputKind::Package
                        && input.loader.files_read.iter().any(|p| p == path)
                    {
                        continue;
                    }
                    input.loader.compile_file_for(path, &self.target)
                }
                (Pending::Listed(_), None) => continue,
            };
            input.contracts.push(compiled);
        }
        if self.check_codegen {
            let checked = codegen::check_all(&input.contracts, &input.loader.sources);
            for (c, checked) in input.contracts.iter_mut().zip(checked) {
                if let Some(Err(diagnostics)) = checked {
                    c.diagnostics.extend(diagnostics);
                    c.interaction = None;
                }
            }
        }
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

/// `abs` as diagnostics name it: relative to `base`, `/`-separated, `.`
/// for `base` itself.
fn display(abs: &Path, base: &Path) -> String {
    let rel = relative_to(abs, base).to_string_lossy().replace('\\', "/");
    if rel.is_empty() { ".".to_owned() } else { rel }
}

/// An I/O error as the end of a sentence: `no such file or directory`,
/// `permission denied`, else the operating system's message without its
/// ` (os error N)` tail, starting in lower case.
pub fn io_reason(e: &std::io::Error) -> String {
    let text = match e.kind() {
        std::io::ErrorKind::NotFound => return "no such file or directory".to_owned(),
        std::io::ErrorKind::PermissionDenied => return "permission denied".to_owned(),
        _ => e.to_string(),
    };
    let text = text
        .find(" (os error")
        .map_or(text.as_str(), |i| &text[..i]);
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_lowercase().chain(chars).collect()
    })
}
