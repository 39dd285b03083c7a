//! What the server knows: the open documents, laid over the disk, and the
//! compilation units (packages and lone contract files) they belong to,
//! each with its last compilation and the diagnostics last published for
//! its files.
//!
//! A change marks units dirty: the unit of the changed file (the package of
//! the nearest `templiqx.yaml`, else the file itself when it is a contract)
//! and every unit whose last compilation read the file or looked for it.
//! [`Workspace::flush`] recompiles the dirty units, whole, so a contract
//! that includes a changed partial, or whose manifest changed, is
//! recompiled too.

use crate::convert;
use crate::diagnostics;
use crate::tree::Tree;
use lsp_types::Url;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use templiqx_build::yaml::Node;
use templiqx_build::{
    CompileOptions, CompiledContract, Compiler, FileSystem, Loader, MANIFEST, Overlay, ParseCache,
    RealFileSystem, SourceFile, Target, relative_to, required_capabilities,
};
use templiqx_contracts::{CapabilityProfile, Diagnostic};

/// An open document.
#[derive(Debug)]
struct Document {
    /// The URL the client named it by (publications for it use this one).
    url: Url,
    version: i32,
    text: String,
}

/// A compilation unit.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum UnitKey {
    /// The package whose manifest is in this (real) directory.
    Package(PathBuf),
    /// A contract file outside any package.
    File(PathBuf),
}

/// The last compilation of a unit.
pub(crate) struct Compilation {
    /// The directory display names are relative to.
    base: PathBuf,
    /// The loader that compiled it: its sources (texts and trees of every
    /// file read), files read and paths looked for.
    pub(crate) loader: Loader,
    /// Problems of the package itself (its manifest).
    problems: Vec<Diagnostic>,
    /// Every contract compiled.
    contracts: Vec<CompiledContract>,
    /// The real path of every file read, by display name.
    names: BTreeMap<String, PathBuf>,
}

impl Compilation {
    /// The real path of the file with display name `name`.
    pub(crate) fn path_of(&self, name: &str) -> Option<&Path> {
        self.names.get(name).map(PathBuf::as_path)
    }

    /// Every contract compiled, in the order the manifest lists them (then
    /// the open contracts it does not list).
    pub(crate) fn contracts(&self) -> &[CompiledContract] {
        &self.contracts
    }

    /// The display name of the file at the real `path`.
    pub(crate) fn name_of(&self, path: &Path) -> String {
        let shown = relative_to(path, &self.base)
            .to_string_lossy()
            .replace('\\', "/");
        if shown.is_empty() {
            ".".to_owned()
        } else {
            shown
        }
    }

    fn depends_on(&self, path: &Path) -> bool {
        self.loader.files_read.iter().any(|p| p == path)
            || self.loader.looked_for.iter().any(|p| p == path)
    }
}

#[derive(Default)]
struct Unit {
    compilation: Option<Compilation>,
    /// The diagnostics last published for each file (real path), only
    /// non-empty sets.
    published: BTreeMap<PathBuf, Vec<lsp_types::Diagnostic>>,
}

/// A file a compilation read ([`Workspace::files_read`]).
pub(crate) struct Read<'w> {
    /// Its real path.
    pub(crate) path: &'w Path,
    /// Its text and tree, as compiled.
    pub(crate) file: &'w SourceFile,
    /// For a partial: the real path and source of the file at the top of
    /// its include chain (the contract); `None` for a contract or manifest.
    pub(crate) top: Option<(&'w Path, &'w SourceFile)>,
}

/// One `textDocument/publishDiagnostics`.
#[derive(Debug)]
pub(crate) struct Publication {
    pub(crate) url: Url,
    pub(crate) version: Option<i32>,
    pub(crate) diagnostics: Vec<lsp_types::Diagnostic>,
}

/// The open documents and the units they belong to.
pub(crate) struct Workspace {
    /// The target profile; `None` skips capability checks.
    target: Option<CapabilityProfile>,
    /// Without a target: every capability a contract required so far.
    learned: CapabilityProfile,
    /// Where `docs/diagnostics.md` is, for `codeDescription`.
    docs: Option<Url>,
    /// Open documents by real path.
    documents: BTreeMap<PathBuf, Document>,
    /// The open documents over the disk.
    overlay: Overlay,
    units: BTreeMap<UnitKey, Unit>,
    dirty: BTreeSet<UnitKey>,
    /// Files changed since the last flush: their diagnostics are published
    /// even when unchanged, so a client sees an answer to every edit.
    touched: BTreeSet<PathBuf>,
    /// The last tree of each open document that parsed, for completion in
    /// a half-typed document.
    good: BTreeMap<PathBuf, Tree>,
    /// The YAML trees of the texts the last compilations read: an edit
    /// parses the edited file again, not the package.
    parse_cache: Arc<ParseCache>,
    /// Compilations replaced by the last flush, dropped by
    /// [`Workspace::release`] once its diagnostics are published (freeing a
    /// package's trees takes a tenth of an edit).
    retired: Vec<Compilation>,
}

impl Workspace {
    pub(crate) fn new(target: Option<CapabilityProfile>, docs: Option<Url>) -> Workspace {
        Workspace {
            target,
            learned: CapabilityProfile::default(),
            docs,
            documents: BTreeMap::new(),
            overlay: Overlay::new(Arc::new(RealFileSystem)),
            units: BTreeMap::new(),
            dirty: BTreeSet::new(),
            touched: BTreeSet::new(),
            good: BTreeMap::new(),
            parse_cache: Arc::new(ParseCache::new()),
            retired: Vec::new(),
        }
    }

    /// The target profile; `None` when capability checks are skipped.
    pub(crate) fn target(&self) -> Option<&CapabilityProfile> {
        self.target.as_ref()
    }

    /// Without a target: every capability a contract required so far.
    pub(crate) fn learned(&self) -> &CapabilityProfile {
        &self.learned
    }

    /// Where `docs/diagnostics.md` is (`None`: no links).
    pub(crate) fn docs(&self) -> Option<&Url> {
        self.docs.as_ref()
    }

    /// The last compilation that read the file at real `path`: that of its
    /// own unit, else of any unit that read it (a dependency's partial).
    pub(crate) fn compilation_of(&self, path: &Path) -> Option<&Compilation> {
        let reads = |c: &&Compilation| c.names.values().any(|p| p == path);
        self.unit_of(path)
            .and_then(|key| self.units.get(&key)?.compilation.as_ref())
            .filter(reads)
            .or_else(|| {
                self.units
                    .values()
                    .filter_map(|u| u.compilation.as_ref())
                    .find(reads)
            })
    }

    /// The contract of id `id` in the last compilation that read the file
    /// at real `path` (its package's contracts; a judge of a model-graded
    /// check is one, `docs/format.md`, "Model-graded checks"), as that
    /// compilation read it; `None` when it lists none of that id or it did
    /// not parse.
    pub(crate) fn contract_by_id(&self, path: &Path, id: &str) -> Option<Tree> {
        let compilation = self.compilation_of(path)?;
        let contract = compilation.contracts().iter().find(|c| c.id == id)?;
        let file = compilation.loader.sources.by_name(&contract.file)?;
        Some(Tree {
            path: compilation.path_of(&contract.file)?.to_path_buf(),
            text: file.text.clone(),
            root: file.root.clone()?,
        })
    }

    /// The real path of the file a URL names: the disk's canonical path, or
    /// that of its directory joined with its name (a new file), as
    /// [`Overlay`] keys documents.
    pub(crate) fn key(url: &Url) -> Option<PathBuf> {
        let path = convert::url_to_path(url)?;
        let fs = RealFileSystem;
        if let Ok(real) = fs.canonicalize(&path) {
            return Some(real);
        }
        match (path.parent(), path.file_name()) {
            (Some(parent), Some(name)) => Some(
                fs.canonicalize(parent)
                    .map_or_else(|_| path.clone(), |p| p.join(name)),
            ),
            _ => Some(path),
        }
    }

    /// The URL to publish for the file at real `path`: the client's own for
    /// an open document.
    pub(crate) fn url_of(&self, path: &Path) -> Option<Url> {
        match self.documents.get(path) {
            Some(d) => Some(d.url.clone()),
            None => convert::path_to_url(path),
        }
    }

    pub(crate) fn open(&mut self, url: Url, version: i32, text: String) {
        let Some(key) = Workspace::key(&url) else {
            return;
        };
        self.overlay.insert(&key, text.as_bytes());
        self.documents
            .insert(key.clone(), Document { url, version, text });
        self.changed(&key);
    }

    /// Applies edits (`range` `None`: the whole text) to an open document.
    pub(crate) fn change(
        &mut self,
        url: &Url,
        version: i32,
        edits: impl IntoIterator<Item = (Option<lsp_types::Range>, String)>,
    ) {
        let Some(key) = Workspace::key(url) else {
            return;
        };
        let Some(document) = self.documents.get_mut(&key) else {
            return;
        };
        for (range, text) in edits {
            convert::apply_change(&mut document.text, range, &text);
        }
        document.version = version;
        self.overlay.insert(&key, document.text.as_bytes());
        self.changed(&key);
    }

    pub(crate) fn close(&mut self, url: &Url) {
        let Some(key) = Workspace::key(url) else {
            return;
        };
        self.documents.remove(&key);
        self.overlay.remove(&key);
        self.good.remove(&key);
        self.changed(&key);
    }

    /// The last tree of the open document at real `path` that parsed (of
    /// the last compilations), when its text does not parse now.
    pub(crate) fn last_good(&self, path: &Path) -> Option<&Tree> {
        self.good.get(path)
    }

    /// A file changed on disk (saved, or changed by another program).
    pub(crate) fn changed_on_disk(&mut self, url: &Url) {
        if let Some(key) = Workspace::key(url) {
            self.changed(&key);
        }
    }

    fn changed(&mut self, path: &Path) {
        self.touched.insert(path.to_path_buf());
        if let Some(unit) = self.unit_of(path) {
            self.dirty.insert(unit);
        }
        for (key, unit) in &self.units {
            if unit
                .compilation
                .as_ref()
                .is_some_and(|c| c.depends_on(path))
            {
                self.dirty.insert(key.clone());
            }
        }
    }

    /// The unit of the file at real `path`: the package of the nearest
    /// directory holding `templiqx.yaml` (on disk or open), else the file
    /// itself when it is a contract (it declares a `templiqx/` API
    /// version); `None` for other YAML files outside packages.
    fn unit_of(&self, path: &Path) -> Option<UnitKey> {
        for dir in path.parent()?.ancestors() {
            if self.overlay.is_file(&dir.join(MANIFEST)) {
                return Some(UnitKey::Package(dir.to_path_buf()));
            }
        }
        self.is_contract(path)
            .then(|| UnitKey::File(path.to_path_buf()))
    }

    /// Whether the file at real `path` looks like a contract: not a
    /// manifest, and it declares a `templiqx/` API version.
    fn is_contract(&self, path: &Path) -> bool {
        path.file_name().is_some_and(|n| n != MANIFEST)
            && self
                .text(path)
                .is_some_and(|t| t.contains("api_version") && t.contains("templiqx/"))
    }

    /// The text of the file at real `path`: the open document's, else the
    /// disk's (decoded as the compiler decodes it).
    pub(crate) fn text(&self, path: &Path) -> Option<String> {
        if let Some(d) = self.documents.get(path) {
            return Some(d.text.clone());
        }
        let bytes = self.overlay.read(path).ok()?;
        templiqx_build::text::decode(bytes, templiqx_build::text::Syntax::Yaml).ok()
    }

    /// Whether something changed since the last flush (a request must
    /// flush first).
    pub(crate) fn is_dirty(&self) -> bool {
        !self.dirty.is_empty() || !self.touched.is_empty()
    }

    /// Recompiles the dirty units and returns the diagnostics to publish:
    /// every file whose diagnostics changed (an empty list clears a file),
    /// and every changed open document. Units that hold no open document
    /// any more are forgotten, their diagnostics cleared. A file read by
    /// several units (a dependency's partial) gets the diagnostics of all.
    pub(crate) fn flush(&mut self) -> Vec<Publication> {
        // One generation per flush: the trees of files no compilation read
        // this time or the last are dropped.
        self.parse_cache.sweep();
        let dirty = std::mem::take(&mut self.dirty);
        let touched = std::mem::take(&mut self.touched);
        let mut paths: BTreeSet<PathBuf> = touched
            .iter()
            .filter(|p| self.documents.contains_key(*p))
            .cloned()
            .collect();
        for key in dirty {
            if !self.keeps(&key) {
                if let Some(unit) = self.units.remove(&key) {
                    paths.extend(unit.published.into_keys());
                }
                continue;
            }
            let compilation = self.compile(&key);
            for path in touched.iter().filter(|p| self.documents.contains_key(*p)) {
                let source = compilation
                    .loader
                    .sources
                    .by_name(&compilation.name_of(path));
                if let Some(SourceFile {
                    text,
                    root: Some(root),
                    ..
                }) = source
                {
                    let tree = Tree {
                        path: path.clone(),
                        text: text.clone(),
                        root: root.clone(),
                    };
                    self.good.insert(path.clone(), tree);
                }
            }
            let fresh = self.diagnostics(&key, &compilation);
            let unit = self.units.entry(key).or_default();
            let old = std::mem::replace(&mut unit.published, fresh);
            for path in old.keys().chain(unit.published.keys()) {
                if old.get(path) != unit.published.get(path) {
                    paths.insert(path.clone());
                }
            }
            paths.extend(
                touched
                    .iter()
                    .filter(|p| compilation.names.values().any(|n| n == *p))
                    .cloned(),
            );
            self.retired.extend(unit.compilation.replace(compilation));
        }
        paths
            .iter()
            .filter_map(|path| {
                let mut diagnostics: Vec<lsp_types::Diagnostic> = Vec::new();
                for unit in self.units.values() {
                    for d in unit.published.get(path).into_iter().flatten() {
                        if !diagnostics.contains(d) {
                            diagnostics.push(d.clone());
                        }
                    }
                }
                self.publication(path, diagnostics)
            })
            .collect()
    }

    /// Drops the compilations the last [`Workspace::flush`] replaced (the
    /// server calls it after publishing that flush's diagnostics).
    pub(crate) fn release(&mut self) {
        self.retired.clear();
    }

    /// Whether the unit `key` is still served: some open document belongs
    /// to it or was read by its last compilation.
    fn keeps(&self, key: &UnitKey) -> bool {
        let compiled = self.units.get(key).and_then(|u| u.compilation.as_ref());
        self.documents.keys().any(|path| {
            self.unit_of(path).as_ref() == Some(key)
                || compiled.is_some_and(|c| c.names.values().any(|n| n == path))
        })
    }

    fn publication(
        &self,
        path: &Path,
        diagnostics: Vec<lsp_types::Diagnostic>,
    ) -> Option<Publication> {
        Some(Publication {
            url: self.url_of(path)?,
            version: self.documents.get(path).map(|d| d.version),
            diagnostics,
        })
    }

    /// Compiles a unit as `templiqx check` does, through the compiler's one
    /// entry point ([`Compiler`]: eval fixtures' outputs checked, code
    /// generation's names decided and checked) over the overlay, with the
    /// diagnostics `check` reports. The interaction fingerprint is left
    /// out, as the server shows none (`docs/decisions.md`, "The language
    /// server"; [`CompileOptions::without_fingerprints`]). Without a
    /// target, each contract compiles for the capabilities it requires
    /// ([`Target::Required`]).
    fn compile(&mut self, key: &UnitKey) -> Compilation {
        let target = self
            .target
            .clone()
            .map_or(Target::Required, Target::Profile);
        let (base, path) = match key {
            UnitKey::Package(root) => (root.clone(), root.clone()),
            UnitKey::File(path) => (
                path.parent().map(Path::to_path_buf).unwrap_or_default(),
                path.clone(),
            ),
        };
        let compiler = Compiler::new(&base, target)
            .file_system(Arc::new(self.overlay.clone()))
            .options(CompileOptions {
                without_fingerprints: true,
                ..CompileOptions::default()
            })
            .parse_cache(Arc::clone(&self.parse_cache));
        let input = match key {
            // An open contract the manifest does not list (yet) is compiled
            // as `templiqx check FILE` compiles it.
            UnitKey::Package(_) => compiler
                .extra_files(
                    self.documents
                        .keys()
                        .filter(|p| self.unit_of(p).as_ref() == Some(key) && self.is_contract(p))
                        .cloned()
                        .collect(),
                )
                .compile(&path),
            UnitKey::File(_) => compiler.compile_file(&path),
        };
        // Without a target, completion offers every capability a contract
        // required so far.
        self.learned.0.extend(
            input
                .contracts
                .iter()
                .filter_map(|c| c.contract.as_ref())
                .flat_map(|c| required_capabilities(c).0),
        );
        let mut compilation = Compilation {
            base,
            problems: input.unusable.into_iter().chain(input.problems).collect(),
            contracts: input.contracts,
            loader: input.loader,
            names: BTreeMap::new(),
        };
        compilation.names = compilation
            .loader
            .files_read
            .iter()
            .map(|p| (compilation.name_of(p), p.clone()))
            .collect();
        compilation
    }

    /// The protocol diagnostics of a compilation, by real path.
    fn diagnostics(
        &self,
        key: &UnitKey,
        compilation: &Compilation,
    ) -> BTreeMap<PathBuf, Vec<lsp_types::Diagnostic>> {
        // Diagnostics without a file we can show (a manifest that cannot be
        // read, a listed contract that is missing) go to the manifest, or to
        // the lone contract.
        let fallback = match key {
            UnitKey::Package(root) => root.join(MANIFEST),
            UnitKey::File(path) => path.clone(),
        };
        let all = compilation
            .problems
            .iter()
            .chain(compilation.contracts.iter().flat_map(|c| &c.diagnostics));
        diagnostics::by_file(all, &fallback, compilation, self, self.docs.as_ref())
    }

    /// The file at real `path` and the contract whose declarations its
    /// references name: itself for a contract; for a partial, the first
    /// contract (of the last compilations) that includes it, through any
    /// chain of partials.
    pub(crate) fn trees(&self, path: &Path) -> Option<(Tree, Tree)> {
        let text = self.text(path)?;
        // The text the last compilation read: its tree is in the cache.
        let root = self.parse_cache.parse(&text).ok()?;
        let file = Tree {
            path: path.to_path_buf(),
            text,
            root,
        };
        let decl = match file.root.as_map() {
            Some(_) => file.clone(),
            None => self
                .including_contract(path)
                .unwrap_or_else(|| file.clone()),
        };
        Some((file, decl))
    }

    /// The contract that includes the partial at real `path` (of the last
    /// compilations), through any chain of partials.
    pub(crate) fn including_contract(&self, path: &Path) -> Option<Tree> {
        self.files_read().into_iter().find_map(|read| {
            let (top, file) = read.top.filter(|_| read.path == path)?;
            Some(Tree {
                path: top.to_path_buf(),
                text: file.text.clone(),
                root: file.root.clone()?,
            })
        })
    }

    /// Every file the last compilations read (a file once per read: a
    /// partial once per include), unit by unit in the order read, with the
    /// file at the top of a partial's include chain (the contract).
    pub(crate) fn files_read(&self) -> Vec<Read<'_>> {
        let mut out = Vec::new();
        for c in self.units.values().filter_map(|u| u.compilation.as_ref()) {
            let sources = &c.loader.sources;
            for file in sources.files() {
                let Some(path) = c.path_of(&file.name) else {
                    continue;
                };
                let mut top = None;
                let mut from = file.included_from.as_ref();
                for _ in 0..=templiqx_build::MAX_INCLUDE_DEPTH {
                    let Some(f) = from.and_then(|l| sources.get(l.file)) else {
                        break;
                    };
                    match &f.included_from {
                        Some(next) => from = Some(next),
                        None => {
                            top = c.path_of(&f.name).map(|p| (p, f));
                            break;
                        }
                    }
                }
                out.push(Read { path, file, top });
            }
        }
        out
    }

    /// The version of the open document at real `path`.
    pub(crate) fn version(&self, path: &Path) -> Option<i32> {
        self.documents.get(path).map(|d| d.version)
    }

    /// The diagnostics last published for the file at real `path`.
    pub(crate) fn published(&self, path: &Path) -> impl Iterator<Item = &lsp_types::Diagnostic> {
        self.units
            .values()
            .flat_map(move |u| u.published.get(path).into_iter().flatten())
    }

    /// The root of the package the file at real `path` is in (the nearest
    /// directory holding `templiqx.yaml`), else its directory.
    pub(crate) fn include_root(&self, path: &Path) -> Option<PathBuf> {
        let dir = path.parent()?;
        Some(
            dir.ancestors()
                .find(|d| self.overlay.is_file(&d.join(MANIFEST)))
                .unwrap_or(dir)
                .to_path_buf(),
        )
    }

    /// The file an include in the file at real `path` names: `partial`
    /// under its package root, or under the root of the dependency
    /// `from_dependency` its manifest declares.
    pub(crate) fn resolve_include(
        &self,
        path: &Path,
        partial: &str,
        from_dependency: Option<&str>,
    ) -> Option<PathBuf> {
        let mut root = self.include_root(path)?;
        if let Some(dependency) = from_dependency {
            let fs: Arc<dyn FileSystem> = Arc::new(self.overlay.clone());
            let mut loader = Loader::with_file_system(&root, fs);
            let package = loader.load_package(&root).ok()?;
            let relative = loader
                .package(package)
                .manifest
                .dependencies
                .get(dependency)?
                .clone();
            root = convert::normalize(&root.join(relative));
        }
        let target = convert::normalize(&root.join(partial));
        self.overlay.is_file(&target).then_some(target)
    }

    /// The tree of the file with display name `name` in a compilation, for
    /// related information.
    pub(crate) fn source_tree<'c>(
        compilation: &'c Compilation,
        name: &str,
    ) -> Option<(&'c str, Option<&'c Node>)> {
        compilation
            .loader
            .sources
            .by_name(name)
            .map(|f| (f.text.as_str(), f.root.as_deref()))
    }
}
