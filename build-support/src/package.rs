//! Packages and composition (seed 002: `include`, "Tool-contract references";
//! DESIGN section 4, "Include roots").
//!
//! This is the only part of the compiler that reads files (through
//! [`crate::text`], which the front ends share). It loads a
//! package manifest (`templiqx.yaml`), reads contracts, expands `include`
//! nodes (recursively, cycle-checked, path-confined to the package root or a
//! dependency's root), inlines pinned tool-contract schemas, and then hands
//! the composed contract to [`crate::check::compile_contract`]. Every file
//! read is recorded, for rebuild tracking and the package fingerprint.
//!
//! Confinement fails closed: a path that is absolute, has a drive letter,
//! a backslash, a NUL, an empty or `..` segment, or that resolves (through
//! symlinks) outside its root is `TQX_INCLUDE_UNRESOLVED`, and nothing of
//! the outside file is read.

use crate::check::{CompileOptions, compile_contract_with};
use crate::dto::{ComponentDecl, ContentNode, Contract, FileId, Loc, NodeKind, OrderedMap};
use crate::parse::parse_partial;
use crate::source::Sources;
use crate::text::{self, Syntax};
use crate::yaml::{self, Node, NodeValue};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use templiqx_contracts::canonical::{fingerprint, sha256_hex};
use templiqx_contracts::diagnostic::pointer_push;
use templiqx_contracts::{API_VERSION, CapabilityProfile, Code, Diagnostic, Interaction, words};

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
pub const ARTIFACT_LISTS: &[&str] = &[
    "components",
    "evals",
    "migrations",
    "templates",
    "translations",
];

const MANIFEST_FIELDS: &[&str] = &[
    "api_version",
    "package",
    "version",
    "description",
    "contracts",
    "dependencies",
    "tool_contracts",
    "provenance",
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

/// Reads files for one compilation: sources, the list of files read, and
/// the packages loaded so far.
#[derive(Debug)]
pub struct Loader {
    /// Every file read, for diagnostics with snippets.
    pub sources: Sources,
    /// Absolute paths of every file read, in read order (for
    /// `cargo:rerun-if-changed` and `include_bytes!` tracking).
    pub files_read: Vec<PathBuf>,
    /// The directory display names are relative to.
    base: PathBuf,
    packages: Vec<Package>,
    /// (absolute path, sha256) of every file read, for the package fingerprint.
    digests: BTreeMap<PathBuf, String>,
    options: CompileOptions,
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
    pub fn new(base: impl Into<PathBuf>) -> Loader {
        let base = base.into();
        let base = std::fs::canonicalize(&base).unwrap_or(base);
        Loader {
            sources: Sources::new(),
            files_read: Vec::new(),
            base,
            packages: Vec::new(),
            digests: BTreeMap::new(),
            options: CompileOptions::default(),
        }
    }

    /// Sets the compile options for every contract this loader compiles.
    pub fn with_options(mut self, options: CompileOptions) -> Loader {
        self.options = options;
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

    /// Reads a file (see [`crate::text`]), records it, and adds it to the
    /// sources. A file that is not UTF-8 is recorded too (fixing it must
    /// rerun a build) and added with its valid beginning, for the snippet.
    fn read(&mut self, path: &Path) -> Result<FileId, ReadFailure> {
        let bytes = std::fs::File::open(path)
            .and_then(text::read_bytes)
            .map_err(ReadFailure::Io)?;
        let canonical = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
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

    fn parse_yaml(&mut self, file: FileId) -> Result<Node, Diagnostic> {
        let Some(src) = self.sources.get(file) else {
            return Err(Diagnostic::error(Code::Io, "internal: unknown file"));
        };
        let name = src.name.clone();
        match yaml::parse(&src.text) {
            Ok(root) => {
                self.sources.set_root(file, root.clone());
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
        let root = std::fs::canonicalize(dir).map_err(|e| {
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
        let manifest = parse_manifest(&node, &self.sources, file)?;
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
        let root = self.packages[package].root.clone();
        let path = root.join("contracts").join(format!("{id}.yaml"));
        // A listed contract is a package file like a partial: one that
        // resolves outside the package through a symlink is not read.
        if let Some(Err(())) = real_path_in(&root, &path) {
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
    /// contracts (DESIGN section 4, "Include roots").
    pub fn compile_file(&mut self, path: &Path, target: &CapabilityProfile) -> CompiledContract {
        let abs = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        let dir = abs.parent().map(Path::to_path_buf).unwrap_or_default();
        let found = dir
            .ancestors()
            .find(|a| a.join(MANIFEST).is_file())
            .map(Path::to_path_buf);
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
        target: &CapabilityProfile,
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
            Err(ReadFailure::Io(_)) if path.is_dir() => {
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
            match compile_contract_with(&contract, &self.sources, target, &self.options) {
                Ok(i) => result.interaction = Some(i),
                Err(d) => result.diagnostics = d,
            }
        }
        result.contract = Some(contract);
        result
    }

    /// Expands includes and resolves tool-contract references in place.
    fn compose(&mut self, pkg: usize, contract: &mut Contract, diags: &mut Vec<Diagnostic>) {
        let root = IncludeRoot { package: pkg };
        let mut chain = Vec::new();
        for m in &mut contract.messages {
            let nodes = std::mem::take(&mut m.content);
            m.content = self.expand(&root, nodes, &mut chain, diags);
        }
        for (_, c) in &mut contract.components.0 {
            let body = match c {
                ComponentDecl::Typed { content, .. } => content,
                ComponentDecl::Legacy(content) => content,
            };
            let nodes = std::mem::take(body);
            *body = self.expand(&root, nodes, &mut chain, diags);
        }
        self.resolve_tool_contracts(pkg, contract, diags);
    }

    fn expand(
        &mut self,
        root: &IncludeRoot,
        nodes: Vec<ContentNode>,
        chain: &mut Vec<(PathBuf, Loc)>,
        diags: &mut Vec<Diagnostic>,
    ) -> Vec<ContentNode> {
        let mut out = Vec::with_capacity(nodes.len());
        for mut node in nodes {
            match node.kind {
                NodeKind::Include {
                    ref path,
                    ref from_dependency,
                } => {
                    let (path, dep) = (path.clone(), from_dependency.clone());
                    if let Some(spliced) =
                        self.include(root, &node.loc, &path, dep.as_deref(), chain, diags)
                    {
                        out.extend(spliced);
                    }
                }
                NodeKind::When {
                    ref mut then,
                    ref mut otherwise,
                    ..
                } => {
                    *then = self.expand(root, std::mem::take(then), chain, diags);
                    *otherwise = self.expand(root, std::mem::take(otherwise), chain, diags);
                    out.push(node);
                }
                NodeKind::ForEach { ref mut body, .. } => {
                    *body = self.expand(root, std::mem::take(body), chain, diags);
                    out.push(node);
                }
                _ => out.push(node),
            }
        }
        out
    }

    /// An error at an include node; the include chain of the node's file
    /// comes with it (see [`Sources::error`]).
    fn include_error(&self, code: Code, message: String, loc: &Loc, help: &str) -> Diagnostic {
        self.sources.error(code, message, loc).help(help)
    }

    /// A partial's own diagnostic, recast as `TQX_INCLUDE_INVALID` (its
    /// original code stays in the message) with the partial's include chain.
    fn invalid_partial(&self, mut d: Diagnostic, file: FileId) -> Diagnostic {
        d.message = format!("malformed partial: {} ({})", d.message, d.code);
        d.code = Code::IncludeInvalid;
        d.notes = self.sources.include_chain(file);
        d
    }

    fn include(
        &mut self,
        root: &IncludeRoot,
        loc: &Loc,
        path: &str,
        from_dependency: Option<&str>,
        chain: &mut Vec<(PathBuf, Loc)>,
        diags: &mut Vec<Diagnostic>,
    ) -> Option<Vec<ContentNode>> {
        // Which package root does the path resolve in?
        let package = match from_dependency {
            None => root.package,
            Some(dep) => match self.dependency(root.package, dep) {
                Ok(p) => p,
                Err(DependencyFailure::Unloadable { message, path }) => {
                    // The name is declared: suggesting a name would be
                    // wrong; the package it points at is the problem.
                    diags.push(self.include_error(
                        Code::IncludeUnresolved,
                        message,
                        &loc.child("from_dependency"),
                        &format!(
                            "`{dep}` is declared as `{path}`: make that directory a package (a readable, valid templiqx.yaml), or correct its path under `dependencies` in templiqx.yaml"
                        ),
                    ));
                    return None;
                }
                Err(DependencyFailure::Unknown(msg)) => {
                    let names: Vec<&str> = self.packages[root.package]
                        .manifest
                        .dependencies
                        .iter()
                        .map(|(n, _)| n)
                        .collect();
                    let help = if names.is_empty() {
                        "declare the dependency under `dependencies` in templiqx.yaml".to_owned()
                    } else {
                        words::did_you_mean(dep, &names, "declared dependencies: ")
                    };
                    diags.push(self.include_error(
                        Code::IncludeUnresolved,
                        msg,
                        &loc.child("from_dependency"),
                        &help,
                    ));
                    return None;
                }
            },
        };
        let base = self.packages[package].root.clone();
        let target = match confine(&base, path) {
            Ok(t) => t,
            Err(reason) => {
                diags.push(self.include_error(
                    Code::IncludeUnresolved,
                    format!("include path `{}` {reason}", path.escape_debug()),
                    &loc.child("path"),
                    "include paths are relative to the package root, written with `/`, and stay inside the package",
                ));
                return None;
            }
        };
        if let Some(pos) = chain.iter().position(|(p, _)| *p == target) {
            let mut names: Vec<String> =
                chain[pos..].iter().map(|(p, _)| self.display(p)).collect();
            names.push(self.display(&target));
            diags.push(self.include_error(
                Code::IncludeCycle,
                format!("include cycle: {}", names.join(" → ")),
                &loc.child("path"),
                "a partial cannot (indirectly) include itself",
            ));
            return None;
        }
        if chain.len() >= MAX_INCLUDE_DEPTH {
            diags.push(self.include_error(
                Code::IncludeInvalid,
                format!("includes nest deeper than {MAX_INCLUDE_DEPTH}"),
                loc,
                "flatten the partials",
            ));
            return None;
        }
        let file = match self.read(&target) {
            Ok(f) => f,
            // Like any malformed partial: `TQX_INCLUDE_INVALID`, located
            // in the partial, with the include chain.
            Err(ReadFailure::NotUtf8(file, d)) => {
                self.sources.set_included_from(file, loc.clone());
                diags.push(self.invalid_partial(d, file));
                return None;
            }
            Err(ReadFailure::Io(e)) => {
                diags.push(self.include_error(
                    Code::IncludeUnresolved,
                    format!("cannot read partial `{path}`: {e}"),
                    &loc.child("path"),
                    "include paths are relative to the package root (the directory holding templiqx.yaml)",
                ));
                return None;
            }
        };
        self.sources.set_included_from(file, loc.clone());
        let node = match self.parse_yaml(file) {
            Ok(n) => n,
            Err(d) => {
                diags.push(self.invalid_partial(d, file));
                return None;
            }
        };
        let name = self
            .sources
            .get(file)
            .map(|f| f.name.clone())
            .unwrap_or_default();
        let nodes = match parse_partial(&node, file, &name) {
            Ok(n) => n,
            Err(ds) => {
                diags.extend(ds.into_iter().map(|d| self.invalid_partial(d, file)));
                return None;
            }
        };
        chain.push((target, loc.clone()));
        let sub = IncludeRoot { package };
        let expanded = self.expand(&sub, nodes, chain, diags);
        chain.pop();
        Some(expanded)
    }

    fn dependency(&mut self, package: usize, name: &str) -> Result<usize, DependencyFailure> {
        let Some(rel) = self.packages[package]
            .manifest
            .dependencies
            .get(name)
            .cloned()
        else {
            return Err(DependencyFailure::Unknown(format!(
                "unknown dependency `{name}`"
            )));
        };
        let dir = self.packages[package].root.join(rel.replace('\\', "/"));
        self.load_package(&dir)
            .map_err(|d| DependencyFailure::Unloadable {
                message: format!(
                    "dependency `{name}` ({rel}) cannot be loaded: {}",
                    d.first().map(|d| d.message.clone()).unwrap_or_default()
                ),
                path: rel,
            })
    }

    fn resolve_tool_contracts(
        &mut self,
        pkg: usize,
        contract: &mut Contract,
        diags: &mut Vec<Diagnostic>,
    ) {
        let file = contract.loc.file;
        for (key, ext) in &mut contract.extensions.0 {
            let Some(obj) = ext.schema.as_object() else {
                continue;
            };
            let Some(reference) = obj.get("$ref") else {
                continue;
            };
            let loc = Loc::new(
                file,
                pointer_push(&pointer_push("/extensions", key), "schema"),
            );
            let Some(name) = reference
                .as_str()
                .and_then(|r| r.strip_prefix("tool_contract:"))
            else {
                continue;
            };
            let fail = |this: &Self, msg: String, help: &str, at: &Loc| {
                this.sources
                    .error(Code::ToolContractRefUnresolved, msg, at)
                    .help(help)
            };
            if let Some(extra) = obj.keys().find(|k| *k != "$ref" && *k != "fingerprint") {
                diags.push(fail(
                    self,
                    format!("a tool-contract reference has only `$ref` and `fingerprint`, found `{extra}`"),
                    "remove the extra key; the schema comes from the package's `tool_contracts`",
                    &loc.child(extra),
                ));
                continue;
            }
            let manifest = &self.packages[pkg].manifest;
            let Some(entry) = manifest.tool_contracts.get(name) else {
                let names: Vec<&str> = manifest.tool_contracts.iter().map(|(n, _)| n).collect();
                let help = match words::closest(name, &names) {
                    Some(s) => format!("did you mean `tool_contract:{s}`?"),
                    None => "declare it under `tool_contracts` in templiqx.yaml".to_owned(),
                };
                diags.push(fail(
                    self,
                    format!("unknown tool contract `{name}`"),
                    &help,
                    &loc.child("$ref"),
                ));
                continue;
            };
            let real = format!("sha256:{}", fingerprint(&entry.schema));
            let Some(pin) = obj.get("fingerprint").and_then(|p| p.as_str()) else {
                diags.push(fail(
                    self,
                    format!("reference to tool contract `{name}` has no fingerprint pin"),
                    &format!("pin it: `fingerprint: {real}`"),
                    &loc,
                ));
                continue;
            };
            if entry.fingerprint != real {
                diags.push(fail(
                    self,
                    format!("tool contract `{name}` declares a fingerprint that is not the digest of its schema"),
                    "fix the manifest entry first (see the TQX_PACKAGE diagnostic)",
                    &loc.child("$ref"),
                ));
                continue;
            }
            if pin != real {
                diags.push(fail(
                    self,
                    format!("pinned fingerprint does not match tool contract `{name}` ({real})"),
                    "the shared schema changed or the pin is wrong; review the new schema, then update the pin",
                    &loc.child("fingerprint"),
                ));
                continue;
            }
            ext.schema = entry.schema.clone();
        }
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

/// Resolves a package-relative path inside `root`, failing closed.
///
/// # Errors
/// A reason, when the path is absolute, has a drive letter, a backslash,
/// a NUL, an empty, `.` or `..` segment, or resolves outside `root`.
pub fn confine(root: &Path, path: &str) -> Result<PathBuf, String> {
    if let Some(reason) = lexical_confinement(path) {
        return Err(reason.to_owned());
    }
    match real_path_in(root, &root.join(path)) {
        Some(Ok(real)) => Ok(real),
        Some(Err(())) => Err("resolves outside the package root (through a symlink)".to_owned()),
        None => Err("does not exist in the package".to_owned()),
    }
}

/// The real path of an existing `path` when it stays inside the real
/// `root` (`Ok`), or `Err(())` when it leaves it through a symlink; `None`
/// when it does not exist.
fn real_path_in(root: &Path, path: &Path) -> Option<Result<PathBuf, ()>> {
    let real = std::fs::canonicalize(path).ok()?;
    let real_root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    Some(if real.starts_with(&real_root) {
        Ok(real)
    } else {
        Err(())
    })
}

fn relative_to(path: &Path, base: &Path) -> PathBuf {
    if let Ok(p) = path.strip_prefix(base) {
        return p.to_path_buf();
    }
    // Walk up from base until a common ancestor. A path that shares only
    // the file-system root with base stays absolute (`/tmp/c.yaml`, not
    // `../../tmp/c.yaml`).
    let mut up = PathBuf::new();
    for ancestor in base.ancestors() {
        if ancestor.parent().is_none() {
            break;
        }
        if let Ok(rest) = path.strip_prefix(ancestor) {
            return up.join(rest);
        }
        up.push("..");
    }
    path.to_path_buf()
}

fn parse_manifest(
    root: &Node,
    sources: &Sources,
    file: FileId,
) -> Result<Manifest, Vec<Diagnostic>> {
    let mut diags = Vec::new();
    let loc = |p: &str| Loc::new(file, p);
    let err = |diags: &mut Vec<Diagnostic>, code: Code, msg: String, p: &str, help: &str| {
        diags.push(sources.error(code, msg, &loc(p)).help(help));
    };
    let NodeValue::Map(entries) = &root.value else {
        err(
            &mut diags,
            Code::InvalidType,
            "a package manifest must be a mapping".to_owned(),
            "",
            "see docs/format.md",
        );
        return Err(diags);
    };
    for (k, _) in entries {
        if !MANIFEST_FIELDS.contains(&k.text.as_str()) {
            let help = words::did_you_mean(&k.text, MANIFEST_FIELDS, "a manifest accepts ");
            let mut d = sources
                .error(
                    Code::UnknownField,
                    format!("unknown field `{}` in the package manifest", k.text),
                    &loc(&pointer_push("", &k.text)),
                )
                .help(help);
            d.span = Some(k.span);
            diags.push(d);
        }
    }
    let get = |k: &str| root.get(k);
    let string = |diags: &mut Vec<Diagnostic>, k: &str, required: bool| -> Option<String> {
        match get(k) {
            Some(Node {
                value: NodeValue::String(s),
                ..
            }) => Some(s.clone()),
            Some(_) => {
                err(
                    diags,
                    Code::InvalidType,
                    format!("`{k}` must be a string"),
                    &format!("/{k}"),
                    "quote the value",
                );
                None
            }
            None if required => {
                err(
                    diags,
                    Code::MissingField,
                    format!("missing field `{k}` in the package manifest"),
                    "",
                    &format!("add `{k}:`"),
                );
                None
            }
            None => None,
        }
    };
    let api_version = string(&mut diags, "api_version", true);
    if let Some(v) = &api_version
        && v != API_VERSION
    {
        err(
            &mut diags,
            Code::ApiVersion,
            format!("unsupported api_version `{v}`"),
            "/api_version",
            &format!("this compiler implements `{API_VERSION}`"),
        );
    }
    let package = string(&mut diags, "package", true);
    let version = string(&mut diags, "version", true);
    let description = string(&mut diags, "description", false);
    let list = |diags: &mut Vec<Diagnostic>, k: &str| -> Vec<String> {
        match get(k) {
            None
            | Some(Node {
                value: NodeValue::Null,
                ..
            }) => Vec::new(),
            Some(Node {
                value: NodeValue::Seq(items),
                ..
            }) => items
                .iter()
                .enumerate()
                .filter_map(|(i, n)| match &n.value {
                    NodeValue::String(s) => Some(s.clone()),
                    _ => {
                        err(
                            diags,
                            Code::InvalidType,
                            format!("entries of `{k}` must be strings"),
                            &format!("/{k}/{i}"),
                            "quote the entry",
                        );
                        None
                    }
                })
                .collect(),
            Some(_) => {
                err(
                    diags,
                    Code::InvalidType,
                    format!("`{k}` must be a list"),
                    &format!("/{k}"),
                    "write a YAML list",
                );
                Vec::new()
            }
        }
    };
    let map = |diags: &mut Vec<Diagnostic>, k: &str| -> Vec<(String, Node)> {
        match get(k) {
            None
            | Some(Node {
                value: NodeValue::Null,
                ..
            }) => Vec::new(),
            Some(Node {
                value: NodeValue::Map(e),
                ..
            }) => e.iter().map(|(k, v)| (k.text.clone(), v.clone())).collect(),
            Some(_) => {
                err(
                    diags,
                    Code::InvalidType,
                    format!("`{k}` must be a mapping"),
                    &format!("/{k}"),
                    "write a YAML mapping",
                );
                Vec::new()
            }
        }
    };
    let contracts = list(&mut diags, "contracts");
    for (i, id) in contracts.iter().enumerate() {
        if let Some(first) = contracts[..i].iter().position(|c| c == id) {
            err(
                &mut diags,
                Code::Package,
                format!("contract `{id}` is listed twice (also at /contracts/{first})"),
                &format!("/contracts/{i}"),
                "list each contract once",
            );
        }
        if !crate::check::is_valid_id(id) {
            err(
                &mut diags,
                Code::Package,
                format!("contract id `{id}` is not an id"),
                &format!("/contracts/{i}"),
                "contract ids resolve to `contracts/<id>.yaml`: start with an ASCII letter, then letters, digits, `-`, `_`, `.`",
            );
        }
    }
    // A mapping whose values are strings (`dependencies`, `provenance`).
    let string_map =
        |diags: &mut Vec<Diagnostic>, k: &str, what: &str, help: &str| -> Vec<(String, String)> {
            let mut out = Vec::new();
            for (name, node) in map(diags, k) {
                match &node.value {
                    NodeValue::String(s) => out.push((name, s.clone())),
                    _ => err(
                        diags,
                        Code::InvalidType,
                        format!("{what} `{name}` must be a string"),
                        &pointer_push(&format!("/{k}"), &name),
                        help,
                    ),
                }
            }
            out
        };
    let dependencies = string_map(
        &mut diags,
        "dependencies",
        "dependency",
        "write the dependency's directory, relative to this package",
    );
    for (name, path) in &dependencies {
        if let Some(reason) = dependency_path_problem(path) {
            err(
                &mut diags,
                Code::Package,
                format!(
                    "dependency `{name}` path `{}` {reason}",
                    path.escape_debug()
                ),
                &pointer_push("/dependencies", name),
                "write the dependency's directory relative to this package (`../common`), so the package builds wherever it is checked out",
            );
        }
    }
    let mut tool_contracts = Vec::new();
    for (name, node) in map(&mut diags, "tool_contracts") {
        let p = pointer_push("/tool_contracts", &name);
        let (Some(fp), Some(schema)) = (node.get("fingerprint"), node.get("schema")) else {
            err(
                &mut diags,
                Code::MissingField,
                format!("tool contract `{name}` needs `fingerprint` and `schema`"),
                &p,
                "add both",
            );
            continue;
        };
        if let Some(extra) = node.as_map().and_then(|m| {
            m.iter()
                .find(|(k, _)| k.text != "fingerprint" && k.text != "schema")
        }) {
            err(
                &mut diags,
                Code::UnknownField,
                format!("unknown field `{}` in tool contract `{name}`", extra.0.text),
                &pointer_push(&p, &extra.0.text),
                "a tool contract has `fingerprint` and `schema`",
            );
        }
        let Some(fp) = fp.as_str() else {
            err(
                &mut diags,
                Code::InvalidType,
                "`fingerprint` must be a string".to_owned(),
                &pointer_push(&p, "fingerprint"),
                "write `sha256:<hex>`",
            );
            continue;
        };
        let schema = schema.to_json();
        let real = format!("sha256:{}", fingerprint(&schema));
        if fp != real {
            err(
                &mut diags,
                Code::Package,
                format!(
                    "tool contract `{name}` declares fingerprint `{fp}`, but its schema's digest is `{real}`"
                ),
                &pointer_push(&p, "fingerprint"),
                "tool contracts are content-addressed: the fingerprint is the SHA-256 of the schema's canonical JSON; review the schema, then update the fingerprint and every pin",
            );
        }
        tool_contracts.push((
            name,
            ToolContract {
                fingerprint: fp.to_owned(),
                schema,
            },
        ));
    }
    let provenance = string_map(
        &mut diags,
        "provenance",
        "provenance value",
        "quote the value",
    );
    let mut artifacts = BTreeMap::new();
    for key in ARTIFACT_LISTS {
        if get(key).is_none() {
            continue;
        }
        let entries = list(&mut diags, key);
        for (i, path) in entries.iter().enumerate() {
            if let Some(reason) = lexical_confinement(path) {
                err(
                    &mut diags,
                    Code::Package,
                    format!("artifact path `{}` {reason}", path.escape_debug()),
                    &format!("/{key}/{i}"),
                    "artifact paths are relative to the package root, written with `/`, and stay inside the package",
                );
            }
        }
        artifacts.insert((*key).to_owned(), entries);
    }
    if !diags.is_empty() {
        return Err(diags);
    }
    Ok(Manifest {
        api_version: api_version.unwrap_or_default(),
        package: package.unwrap_or_default(),
        version: version.unwrap_or_default(),
        description,
        contracts,
        dependencies: OrderedMap(dependencies),
        tool_contracts: OrderedMap(tool_contracts),
        provenance: OrderedMap(provenance),
        artifacts,
    })
}

/// Why `from_dependency` did not resolve to a loaded package.
enum DependencyFailure {
    /// The manifest declares no dependency of that name (the message).
    Unknown(String),
    /// It is declared, as `path`, but that package cannot be loaded.
    Unloadable { message: String, path: String },
}

/// Why a manifest's dependency path is refused, or `None`: it must be
/// relative to the package (`docs/format.md`, "Packages"), so it may not be
/// empty, hold a NUL, be absolute (`/…`, or `\…` once backslashes are read
/// as `/`) or start with a drive letter (`C:`). Unlike include paths it may
/// climb (`../common`): a dependency is another package.
fn dependency_path_problem(path: &str) -> Option<&'static str> {
    if path.is_empty() {
        return Some("is empty");
    }
    if path.contains('\0') {
        return Some("contains a NUL character");
    }
    if path.starts_with(['/', '\\']) {
        return Some("is absolute");
    }
    let b = path.as_bytes();
    if b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':' {
        return Some("starts with a drive letter");
    }
    None
}

/// The lexical part of [`confine`] (for artifact lists, whose files need not
/// exist): `None` when the path stays inside its root.
fn lexical_confinement(path: &str) -> Option<&'static str> {
    if path.is_empty() {
        return Some("is empty");
    }
    if path.contains('\0') {
        return Some("contains a NUL character");
    }
    if path.contains('\\') {
        return Some("contains a backslash (write `/` separators)");
    }
    if path.starts_with('/') {
        return Some("is absolute");
    }
    let b = path.as_bytes();
    if b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':' {
        return Some("starts with a drive letter");
    }
    path.split('/').find_map(|segment| match segment {
        "" => Some("has an empty segment"),
        "." => Some("has a `.` segment"),
        ".." => Some("leaves the package root (`..`)"),
        _ => None,
    })
}
