//! Packages and composition (`docs/format.md`, "Packages", "Includes",
//! "Tool contracts").
//!
//! This is the only part of the compiler that reads files, through a
//! [`FileSystem`] (the disk, or an editor's buffers laid over it), decoded
//! as [`crate::text`] decodes them for every front end. It loads a
//! package manifest (`templiqx.yaml`), reads contracts, expands `include`
//! nodes (recursively, cycle-checked, path-confined to the package root or a
//! dependency's root), inlines pinned tool-contract schemas, and then hands
//! the composed contract to [`crate::check::compile_contract`]. Every file
//! read is recorded, for rebuild tracking and the package fingerprint, and
//! so is every path looked for and not found.
//!
//! Confinement fails closed: a path that is absolute, has a drive letter,
//! a backslash, a NUL, an empty or `..` segment, or that resolves (through
//! symlinks) outside its root is `TQX_INCLUDE_UNRESOLVED`, and nothing of
//! the outside file is read.

mod compose;
mod judges;
mod manifest;
mod paths;

pub use paths::relative_to;

use crate::check::{CompileOptions, compile_contract_with};
use crate::compiler::Target;
use crate::dto::{Contract, FileId, Loc, OrderedMap};
use crate::file_system::{FileSystem, RealFileSystem};
use crate::parse_cache::ParseCache;
use crate::source::Sources;
use crate::text::{self, Syntax};
use crate::yaml::{self, Node};
use paths::real_path_in;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use templiqx_contracts::canonical::{fingerprint, sha256_hex};
use templiqx_contracts::{API_VERSION, CapabilityProfile, Code, Diagnostic, Interaction};

/// The manifest file name of a package.
pub const MANIFEST: &str = "templiqx.yaml";

/// The most nested includes one expansion may follow (a chain longer than
/// this is reported as `TQX_INCLUDE_INVALID`; cycles are caught earlier).
pub const MAX_INCLUDE_DEPTH: usize = 64;

/// A package manifest, `templiqx.yaml`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Manifest {
    /// Must be `templiqx/v1alpha1`.
    pub api_version: String,
    /// The package name.
    pub package: String,
    /// The package version (SemVer).
    pub version: String,
    /// What the package holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Contract ids; each resolves to `contracts/<id>.yaml`.
    pub contracts: Vec<String>,
    /// Dependency name → path of the dependency package, relative to this one.
    #[serde(skip_serializing_if = "OrderedMap::is_empty")]
    pub dependencies: OrderedMap<String>,
    /// Shared content-addressed schemas (additive: absent when empty, so a
    /// manifest without it fingerprints as before).
    #[serde(skip_serializing_if = "OrderedMap::is_empty")]
    pub tool_contracts: OrderedMap<ToolContract>,
    /// Free-form string metadata.
    pub provenance: OrderedMap<String>,
    /// Artifact lists outside the two formats: recorded and path-confined;
    /// the files need not exist. Keys: `components`, `evals`, `migrations`,
    /// `templates`, `translations`.
    #[serde(flatten)]
    pub artifacts: BTreeMap<String, Vec<String>>,
}

/// An entry of `tool_contracts`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ToolContract {
    /// `sha256:<hex>` of the canonical JSON of `schema`.
    pub fingerprint: String,
    /// The schema (bounded subset).
    pub schema: serde_json::Value,
}

/// The artifact lists a manifest may carry.
pub(crate) const ARTIFACT_LISTS: &[&str] = &[
    "components",
    "evals",
    "migrations",
    "templates",
    "translations",
];

/// A loaded package.
#[derive(Clone, Debug)]
pub struct Package {
    /// The directory holding `templiqx.yaml` (canonicalised).
    pub root: PathBuf,
    /// The manifest.
    pub manifest: Manifest,
    /// The manifest's file id in the loader's sources.
    pub manifest_file: FileId,
}

/// One compiled contract of a package.
#[derive(Debug)]
pub struct CompiledContract {
    /// The contract id.
    pub id: String,
    /// The contract file (display name).
    pub file: String,
    /// The composed contract, when it parsed.
    pub contract: Option<Contract>,
    /// The interaction, when it compiled.
    pub interaction: Option<Interaction>,
    /// Its diagnostics.
    pub diagnostics: Vec<Diagnostic>,
}

/// Reads files for one compilation, through a [`FileSystem`]: sources, the
/// files read, the paths looked for and not found, and the packages loaded
/// so far.
pub struct Loader {
    /// Every file read, for diagnostics with snippets.
    pub sources: Sources,
    /// Absolute paths of every file read, in read order (for
    /// `cargo:rerun-if-changed` and `include_bytes!` tracking).
    pub files_read: Vec<PathBuf>,
    /// Absolute paths the loader looked for and did not find (or could not
    /// read), each once, in the order it looked: the creation of a file at
    /// one of them changes the result, so a build that must never be stale
    /// tracks them beside [`Loader::files_read`] (the two lists are
    /// disjoint). They are
    ///
    /// * each `templiqx.yaml` of the search for a contract file's package
    ///   ([`Loader::compile_file`]) in a directory that has none, from the
    ///   file's directory up to the package root found (or the file-system
    ///   root);
    /// * an include path that does not resolve (joined to its package root);
    /// * a dependency directory that does not exist, or a package directory
    ///   without `templiqx.yaml` (the manifest path);
    /// * a contract file (listed, or passed to [`Loader::compile_file`]) or
    ///   a partial that cannot be read.
    ///
    /// A path is made as real as it can be: its longest existing ancestor
    /// is canonicalised and the rest joined to it
    /// (`/pkg/app/../lib` → `/pkg/lib`). Paths refused before any lookup
    /// (an include path that is absolute or climbs with `..`, an undeclared
    /// dependency) are not listed: no file can ever resolve them.
    ///
    /// Cargo reruns a build script on every build while one of its
    /// `rerun-if-changed` paths does not exist, and so it rebuilds a crate
    /// whose dep-info lists a missing file: tracking these paths with Cargo
    /// means watching an existing ancestor directory, not the path itself.
    pub looked_for: Vec<PathBuf>,
    /// The directory display names are relative to.
    base: PathBuf,
    packages: Vec<Package>,
    /// (absolute path, sha256) of every file read, for the package fingerprint.
    digests: BTreeMap<PathBuf, String>,
    options: CompileOptions,
    fs: Arc<dyn FileSystem>,
    parse_cache: Option<Arc<ParseCache>>,
    /// The contracts whose judges are being resolved, outermost first
    /// (`judges`).
    judging: Vec<String>,
    /// Every cycle of judges found, each from a contract round to itself.
    judge_cycles: Vec<Vec<String>>,
}

impl fmt::Debug for Loader {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Loader")
            .field("sources", &self.sources)
            .field("files_read", &self.files_read)
            .field("looked_for", &self.looked_for)
            .field("base", &self.base)
            .field("packages", &self.packages)
            .field("digests", &self.digests)
            .field("options", &self.options)
            .field("parse_cache", &self.parse_cache)
            .finish_non_exhaustive()
    }
}

/// Why [`Loader::read`] failed.
enum ReadFailure {
    /// The file could not be read: the caller reports it (`TQX_IO`, or
    /// `TQX_INCLUDE_UNRESOLVED` for a partial).
    Io(std::io::Error),
    /// The file is not UTF-8: it is in the sources (its valid beginning),
    /// and this `TQX_PARSE_YAML` names it.
    NotUtf8(FileId, Diagnostic),
}

/// Where include paths resolve: a package root and its display prefix.
#[derive(Clone, Debug)]
struct IncludeRoot {
    package: usize,
}

impl Loader {
    /// A loader whose diagnostics name files relative to `base` (e.g. the
    /// host's `CARGO_MANIFEST_DIR`, or the current directory); a file that
    /// shares only the file-system root with `base` keeps its absolute path.
    /// It reads the disk ([`RealFileSystem`]).
    pub fn new(base: impl Into<PathBuf>) -> Loader {
        Loader::with_file_system(base, Arc::new(RealFileSystem))
    }

    /// A loader like [`Loader::new`] that reads every file through `fs`
    /// (e.g. an [`Overlay`](crate::Overlay) of an editor's unsaved buffers
    /// over the disk); `base` is canonicalised through `fs` too. Paths,
    /// display names, diagnostics and the package fingerprint are what
    /// [`Loader::new`] gives for a disk holding what `fs` shows.
    pub fn with_file_system(base: impl Into<PathBuf>, fs: Arc<dyn FileSystem>) -> Loader {
        let base = base.into();
        let base = fs.canonicalize(&base).unwrap_or(base);
        Loader {
            sources: Sources::new(),
            files_read: Vec::new(),
            looked_for: Vec::new(),
            base,
            packages: Vec::new(),
            digests: BTreeMap::new(),
            options: CompileOptions::default(),
            fs,
            parse_cache: None,
            judging: Vec::new(),
            judge_cycles: Vec::new(),
        }
    }

    /// The directory display names are relative to (canonicalised).
    pub(crate) fn base(&self) -> &Path {
        &self.base
    }

    /// Sets the compile options for every contract this loader compiles.
    pub fn with_options(mut self, options: CompileOptions) -> Loader {
        self.options = options;
        self
    }

    /// Parses YAML through `cache`: a text parsed before by any loader that
    /// shares it is not parsed again ([`ParseCache`]). Results are those of
    /// a loader without one.
    pub fn with_parse_cache(mut self, cache: Arc<ParseCache>) -> Loader {
        self.parse_cache = Some(cache);
        self
    }

    fn display(&self, path: &Path) -> String {
        let rel = relative_to(path, &self.base);
        let shown = rel.to_string_lossy().replace('\\', "/");
        if shown.is_empty() {
            ".".to_owned()
        } else {
            shown
        }
    }

    /// Records `path` in [`Loader::looked_for`], made as real as it can be
    /// (its longest existing ancestor canonicalised).
    fn record_missing(&mut self, path: &Path) {
        let real = path
            .ancestors()
            .find_map(|ancestor| {
                let real = self.fs.canonicalize(ancestor).ok()?;
                let rest = path.strip_prefix(ancestor).ok()?;
                Some(if rest.as_os_str().is_empty() {
                    real
                } else {
                    real.join(rest)
                })
            })
            .unwrap_or_else(|| path.to_path_buf());
        if !self.looked_for.contains(&real) {
            self.looked_for.push(real);
        }
    }

    /// Reads a file (see [`crate::text`]), records it, and adds it to the
    /// sources. A file that is not UTF-8 is recorded too (fixing it must
    /// rerun a build) and added with its valid beginning, for the snippet.
    /// A file that cannot be read is recorded in [`Loader::looked_for`].
    fn read(&mut self, path: &Path) -> Result<FileId, ReadFailure> {
        let bytes = match self.fs.read(path).and_then(text::check_size) {
            Ok(bytes) => bytes,
            Err(e) => {
                self.record_missing(path);
                return Err(ReadFailure::Io(e));
            }
        };
        let canonical = self
            .fs
            .canonicalize(path)
            .unwrap_or_else(|_| path.to_path_buf());
        if !self.files_read.contains(&canonical) {
            self.files_read.push(canonical.clone());
        }
        self.digests.insert(canonical.clone(), sha256_hex(&bytes));
        let name = self.display(&canonical);
        match text::decode(bytes, Syntax::Yaml) {
            Ok(text) => Ok(self.sources.add(name, text)),
            Err(e) => {
                let diagnostic = e.diagnostic.in_file(name.clone());
                Err(ReadFailure::NotUtf8(
                    self.sources.add(name, e.valid),
                    diagnostic,
                ))
            }
        }
    }

    fn parse_yaml(&mut self, file: FileId) -> Result<Arc<Node>, Diagnostic> {
        let Some(src) = self.sources.get(file) else {
            return Err(Diagnostic::error(Code::Io, "internal: unknown file"));
        };
        let name = src.name.clone();
        let parsed = match &self.parse_cache {
            Some(cache) => cache.parse(&src.text),
            None => yaml::parse(&src.text).map(Arc::new),
        };
        match parsed {
            Ok(root) => {
                self.sources.set_root(file, Arc::clone(&root));
                Ok(root)
            }
            Err(d) => Err(d.in_file(name)),
        }
    }

    /// Loads the package whose manifest is in `dir` (and, recursively, its
    /// dependencies when includes name them).
    ///
    /// # Errors
    /// `TQX_IO` when the manifest cannot be read; `TQX_PARSE_YAML` and the
    /// strict-DTO codes for a malformed manifest (one that is not UTF-8
    /// included); `TQX_PACKAGE` for paths
    /// that leave the package, contract ids that are not ids, and
    /// tool-contract entries whose declared fingerprint is not the digest of
    /// their schema.
    pub fn load_package(&mut self, dir: &Path) -> Result<usize, Vec<Diagnostic>> {
        let root = self.fs.canonicalize(dir).map_err(|e| {
            self.record_missing(dir);
            vec![
                Diagnostic::error(
                    Code::Io,
                    format!("cannot open package directory {}: {e}", dir.display()),
                )
                .help("pass a directory that holds `templiqx.yaml`"),
            ]
        })?;
        if let Some(i) = self.packages.iter().position(|p| p.root == root) {
            return Ok(i);
        }
        let manifest_path = root.join(MANIFEST);
        let file = match self.read(&manifest_path) {
            Ok(file) => file,
            Err(ReadFailure::NotUtf8(_, d)) => return Err(vec![d]),
            Err(ReadFailure::Io(e)) => {
                return Err(vec![
                    Diagnostic::error(
                        Code::Io,
                        format!("cannot read {}: {e}", self.display(&manifest_path)),
                    )
                    .help("a package directory holds a `templiqx.yaml` manifest"),
                ]);
            }
        };
        let node = self.parse_yaml(file).map_err(|d| vec![d])?;
        let name = self.sources.get(file).map(|f| f.name.clone());
        let manifest =
            crate::parse::parse_manifest(&node, file, name.as_deref().unwrap_or(MANIFEST))?;
        let problems = manifest::check(&manifest, &self.sources, file);
        if !problems.is_empty() {
            return Err(problems);
        }
        self.packages.push(Package {
            root,
            manifest,
            manifest_file: file,
        });
        Ok(self.packages.len() - 1)
    }

    /// The package loaded under `index`.
    pub fn package(&self, index: usize) -> &Package {
        &self.packages[index]
    }

    /// Compiles every contract a package lists, for `target`.
    ///
    /// # Errors
    /// Manifest problems (see [`Loader::load_package`]); per-contract
    /// problems are in each [`CompiledContract`].
    pub fn compile_package(
        &mut self,
        dir: &Path,
        target: &CapabilityProfile,
    ) -> Result<Vec<CompiledContract>, Vec<Diagnostic>> {
        let pkg = self.load_package(dir)?;
        let ids = self.packages[pkg].manifest.contracts.clone();
        Ok(ids
            .iter()
            .map(|id| self.compile_listed(pkg, id, target))
            .collect())
    }

    /// Compiles the one contract `id` that the package in `dir` lists, for
    /// `target`: reads the manifest and then only what that contract needs
    /// (its file, its includes, the dependency packages and tool contracts
    /// it uses), so the cost of one call does not grow with the number of
    /// contracts in the package. This is what `include_contract!(package =
    /// …, contract = …)` compiles; the result equals that contract's entry of
    /// [`Loader::compile_package`], and [`Loader::files_read`] lists exactly
    /// the files it depends on (for rebuild tracking).
    ///
    /// # Errors
    /// Manifest problems (see [`Loader::load_package`]), and `TQX_PACKAGE`
    /// at the manifest's `/contracts` when it does not list `id` (the help
    /// suggests the closest listed id, or lists them all). Problems of the
    /// contract itself are in the returned [`CompiledContract`].
    pub fn compile_package_contract(
        &mut self,
        dir: &Path,
        id: &str,
        target: &CapabilityProfile,
    ) -> Result<CompiledContract, Vec<Diagnostic>> {
        let pkg = self.load_package(dir)?;
        let package = &self.packages[pkg];
        if !package.manifest.contracts.iter().any(|c| c == id) {
            let listed: Vec<&str> = package
                .manifest
                .contracts
                .iter()
                .map(String::as_str)
                .collect();
            let help = templiqx_contracts::words::did_you_mean(id, &listed, "the package lists ");
            let d = self
                .sources
                .error(
                    Code::Package,
                    format!(
                        "package `{}` lists no contract `{id}`",
                        package.manifest.package
                    ),
                    &Loc::new(package.manifest_file, "/contracts"),
                )
                .help(help);
            return Err(vec![d]);
        }
        Ok(self.compile_listed(pkg, id, target))
    }

    /// Compiles the contract `id` of the package loaded under `package` (see
    /// [`Loader::load_package`]) from `contracts/<id>.yaml`, checking that the
    /// file declares that id. [`Loader::compile_package`] is this for every
    /// contract the manifest lists; a front end that reports progress calls
    /// it one contract at a time.
    ///
    /// # Panics
    /// When `package` is not an index [`Loader::load_package`] returned.
    pub fn compile_listed(
        &mut self,
        package: usize,
        id: &str,
        target: &CapabilityProfile,
    ) -> CompiledContract {
        self.compile_listed_for(package, id, &Target::Profile(target.clone()))
    }

    /// [`Loader::compile_listed`] for a [`Target`]: a profile, or the
    /// capabilities the contract itself requires.
    pub(crate) fn compile_listed_for(
        &mut self,
        package: usize,
        id: &str,
        target: &Target,
    ) -> CompiledContract {
        let root = self.packages[package].root.clone();
        let path = root.join("contracts").join(format!("{id}.yaml"));
        // A listed contract is a package file like a partial: one that
        // resolves outside the package through a symlink is not read.
        if let Some(Err(())) = real_path_in(&*self.fs, &root, &path) {
            let manifest = self.packages[package].manifest_file;
            let index = self.packages[package]
                .manifest
                .contracts
                .iter()
                .position(|c| c == id)
                .unwrap_or_default();
            let d = self
                .sources
                .error(
                    Code::Package,
                    format!(
                        "contract `{id}` (contracts/{id}.yaml) resolves outside the package root through a symlink"
                    ),
                    &Loc::new(manifest, format!("/contracts/{index}")),
                )
                .help("keep contract files inside the package directory; symlinks out of it are refused, as for includes");
            return CompiledContract {
                id: id.to_owned(),
                file: self.display(&path),
                contract: None,
                interaction: None,
                diagnostics: vec![d],
            };
        }
        self.compile_in_package(package, &path, Some(id), target)
    }

    /// Compiles one contract file. Its package is the nearest ancestor
    /// directory holding `templiqx.yaml`; without one, the file's own
    /// directory is the include root and there are no dependencies or tool
    /// contracts (`docs/format.md`, "Packages").
    pub fn compile_file(&mut self, path: &Path, target: &CapabilityProfile) -> CompiledContract {
        self.compile_file_for(path, &Target::Profile(target.clone()))
    }

    /// [`Loader::compile_file`] for a [`Target`]: a profile, or the
    /// capabilities the contract itself requires.
    pub(crate) fn compile_file_for(&mut self, path: &Path, target: &Target) -> CompiledContract {
        // A file that cannot be canonicalised (it does not exist) is still
        // made absolute, so the package search walks real directories and
        // never reaches an empty path (`contracts/nope.yaml` from a package
        // root); reading it then reports the missing file.
        let abs = self
            .fs
            .canonicalize(path)
            .or_else(|_| std::path::absolute(path))
            .unwrap_or_else(|_| path.to_path_buf());
        let dir = abs.parent().map(Path::to_path_buf).unwrap_or_default();
        let mut found = None;
        for ancestor in dir.ancestors() {
            let manifest = ancestor.join(MANIFEST);
            if self.fs.is_file(&manifest) {
                found = Some(ancestor.to_path_buf());
                break;
            }
            self.record_missing(&manifest);
        }
        let pkg = match found {
            Some(root) => match self.load_package(&root) {
                Ok(p) => p,
                Err(diagnostics) => {
                    return CompiledContract {
                        id: String::new(),
                        file: self.display(&abs),
                        contract: None,
                        interaction: None,
                        diagnostics,
                    };
                }
            },
            None => {
                self.packages.push(Package {
                    root: dir.clone(),
                    manifest: Manifest::empty(),
                    manifest_file: FileId::MAX,
                });
                self.packages.len() - 1
            }
        };
        self.compile_in_package(pkg, &abs, None, target)
    }

    fn compile_in_package(
        &mut self,
        pkg: usize,
        path: &Path,
        expected_id: Option<&str>,
        target: &Target,
    ) -> CompiledContract {
        let display = self.display(path);
        let mut result = CompiledContract {
            id: expected_id.unwrap_or_default().to_owned(),
            file: display.clone(),
            contract: None,
            interaction: None,
            diagnostics: Vec::new(),
        };
        let file = match self.read(path) {
            Ok(f) => f,
            Err(ReadFailure::NotUtf8(_, d)) => {
                result.diagnostics.push(d);
                return result;
            }
            Err(ReadFailure::Io(_)) if self.fs.is_dir(path) => {
                result.diagnostics.push(
                    Diagnostic::error(
                        Code::Io,
                        format!("cannot read contract {display}: it is a directory"),
                    )
                    .in_file(display)
                    .help("pass a contract file (`contracts/<id>.yaml`); a package directory is compiled by `templiqx check` and `templiqx test`, or by `Builder::package`"),
                );
                return result;
            }
            Err(ReadFailure::Io(e)) => {
                result.diagnostics.push(
                    Diagnostic::error(Code::Io, format!("cannot read contract {display}: {e}"))
                        .in_file(display)
                        .help("check the path; contract ids listed in `templiqx.yaml` resolve to `contracts/<id>.yaml`"),
                );
                return result;
            }
        };
        let root = match self.parse_yaml(file) {
            Ok(r) => r,
            Err(d) => {
                result.diagnostics.push(d);
                return result;
            }
        };
        let mut contract = match crate::parse::parse_contract(&root, file, &display) {
            Ok(c) => c,
            Err(d) => {
                result.diagnostics = d;
                return result;
            }
        };
        result.id = contract.id.clone();
        if let Some(id) = expected_id
            && contract.id != id
        {
            result.diagnostics.push(
                self.sources
                    .error(
                        Code::Package,
                        format!("contract file for `{id}` declares id `{}`", contract.id),
                        &Loc::new(file, "/id"),
                    )
                    .help(format!(
                        "the manifest lists `{id}`, so the file's `id` must be `{id}`"
                    )),
            );
        }
        self.compose(pkg, &mut contract, &mut result.diagnostics);
        if result.diagnostics.is_empty() {
            self.resolve_judges(pkg, &mut contract, target);
            let profile = target.profile_for(&contract);
            let fs = &*self.fs;
            let open = |d: &crate::dto::DatasetDecl| match &d.file {
                Some(path) => crate::dataset::read_rows(fs, path, &d.display),
                None => Err(Diagnostic::error(
                    Code::IncludeUnresolved,
                    format!("dataset `{}` was not resolved in its package", d.path),
                )),
            };
            match compile_contract_with(
                &contract,
                &self.sources,
                &profile,
                &self.options,
                Some(&open),
            ) {
                Ok(i) => result.interaction = Some(i),
                Err(d) => result.diagnostics = d,
            }
        }
        result.contract = Some(contract);
        result
    }

    /// The package fingerprint: SHA-256 over the canonical JSON of
    /// `{path → sha256 of contents}` for every file read (manifest,
    /// contracts, partials, dependency files), paths relative to the first
    /// package's root with `/` separators. Independent of read order, of the
    /// loader's base directory and of the platform's path separator.
    pub fn fingerprint(&self) -> String {
        let root = self
            .packages
            .first()
            .map_or(self.base.as_path(), |p| p.root.as_path());
        let map: BTreeMap<String, &String> = self
            .digests
            .iter()
            .map(|(path, digest)| {
                (
                    relative_to(path, root).to_string_lossy().replace('\\', "/"),
                    digest,
                )
            })
            .collect();
        fingerprint(&serde_json::to_value(&map).unwrap_or_default())
    }
}

impl Manifest {
    fn empty() -> Manifest {
        Manifest {
            api_version: API_VERSION.to_owned(),
            package: String::new(),
            version: String::new(),
            description: None,
            contracts: Vec::new(),
            dependencies: OrderedMap::default(),
            tool_contracts: OrderedMap::default(),
            provenance: OrderedMap::default(),
            artifacts: BTreeMap::new(),
        }
    }
}

/// The fingerprint of a manifest's normalised content (canonical JSON of
/// [`Manifest`]; empty `dependencies`/`tool_contracts` are omitted, so adding
/// the additive fields only changes it when they are used).
pub fn manifest_fingerprint(manifest: &Manifest) -> String {
    fingerprint(&serde_json::to_value(manifest).unwrap_or_default())
}
