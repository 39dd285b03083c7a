//! Composition (`docs/format.md`, "Includes", "Tool contracts"): `include`
//! nodes expanded (recursively, cycle-checked, path-confined to the package
//! root or a dependency's root) and pinned tool-contract schemas inlined.

use super::paths::{Unconfined, confine};
use super::{IncludeRoot, Loader, MAX_INCLUDE_DEPTH, ReadFailure};
use crate::dto::{ComponentDecl, ContentNode, Contract, FileId, Loc, NodeKind};
use crate::parse::parse_partial;
use std::path::PathBuf;
use templiqx_contracts::canonical::fingerprint;
use templiqx_contracts::diagnostic::pointer_push;
use templiqx_contracts::{Code, Diagnostic, words};

/// Why `from_dependency` did not resolve to a loaded package.
enum DependencyFailure {
    /// The manifest declares no dependency of that name (the message).
    Unknown(String),
    /// It is declared, as `path`, but that package cannot be loaded.
    Unloadable { message: String, path: String },
}

impl Loader {
    /// Expands includes and resolves tool-contract references in place.
    pub(super) fn compose(
        &mut self,
        pkg: usize,
        contract: &mut Contract,
        diags: &mut Vec<Diagnostic>,
    ) {
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
        self.resolve_datasets(pkg, contract, diags);
    }

    /// Resolves each eval entry's `dataset` in the package, confined as an
    /// include path is (`TQX_INCLUDE_UNRESOLVED`), and records the file
    /// as read — its SHA-256 in the entry (so in the contract fingerprint)
    /// and in the package fingerprint, its path for rebuild tracking —
    /// reading it as a stream, never whole (`docs/format.md`, "Datasets").
    fn resolve_datasets(
        &mut self,
        pkg: usize,
        contract: &mut Contract,
        diags: &mut Vec<Diagnostic>,
    ) {
        let base = self.packages[pkg].root.clone();
        for eval in &mut contract.evals {
            let Some(dataset) = &mut eval.dataset else {
                continue;
            };
            let loc = eval.loc.child("dataset");
            let help = "dataset paths are relative to the package root, written with `/`, and stay inside the package";
            let target = match confine(&*self.fs, &base, &dataset.path) {
                Ok(t) => t,
                Err(unconfined) => {
                    if let Unconfined::Missing(missing) = &unconfined {
                        self.record_missing(missing);
                    }
                    diags.push(self.include_error(
                        Code::IncludeUnresolved,
                        format!(
                            "dataset path `{}` {}",
                            dataset.path.escape_debug(),
                            unconfined.reason()
                        ),
                        &loc,
                        help,
                    ));
                    continue;
                }
            };
            // A FIFO or a device would block or never end: only a regular
            // file is read.
            if !self.fs.is_file(&target) {
                diags.push(self.include_error(
                    Code::IncludeUnresolved,
                    format!(
                        "dataset `{}` is not a regular file (a directory, a FIFO or a device)",
                        dataset.path
                    ),
                    &loc,
                    help,
                ));
                continue;
            }
            let digest = self
                .fs
                .open(&target)
                .and_then(templiqx_contracts::canonical::sha256_hex_of);
            let digest = match digest {
                Ok(d) => d,
                Err(e) => {
                    self.record_missing(&target);
                    diags.push(self.include_error(
                        Code::IncludeUnresolved,
                        format!(
                            "cannot read dataset `{}`: {}",
                            dataset.path,
                            crate::compiler::io_reason(&e)
                        ),
                        &loc,
                        help,
                    ));
                    continue;
                }
            };
            if !self.files_read.contains(&target) {
                self.files_read.push(target.clone());
            }
            self.digests.insert(target.clone(), digest.clone());
            dataset.sha256 = digest;
            dataset.display = self.display(&target);
            dataset.file = Some(target);
        }
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
    /// comes with it (see [`crate::source::Sources::error`]).
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

    /// The package whose root an include path resolves in: the including
    /// one, or the dependency `from_dependency` names
    /// (`TQX_INCLUDE_UNRESOLVED` when it is unknown or cannot be loaded).
    fn include_package(
        &mut self,
        root: &IncludeRoot,
        loc: &Loc,
        from_dependency: Option<&str>,
        diags: &mut Vec<Diagnostic>,
    ) -> Option<usize> {
        let Some(dep) = from_dependency else {
            return Some(root.package);
        };
        match self.dependency(root.package, dep) {
            Ok(p) => Some(p),
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
                None
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
                let at = loc.child("from_dependency");
                let mut d = self.include_error(Code::IncludeUnresolved, msg, &at, &help);
                let fix = words::replacement(dep, &names, "");
                d.suggestion = self.sources.fix_whole(&at, false, fix).map(Box::new);
                diags.push(d);
                None
            }
        }
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
        let package = self.include_package(root, loc, from_dependency, diags)?;
        let base = self.packages[package].root.clone();
        let target = match confine(&*self.fs, &base, path) {
            Ok(t) => t,
            Err(unconfined) => {
                if let Unconfined::Missing(missing) = &unconfined {
                    self.record_missing(missing);
                }
                diags.push(self.include_error(
                    Code::IncludeUnresolved,
                    format!(
                        "include path `{}` {}",
                        path.escape_debug(),
                        unconfined.reason()
                    ),
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
                let help = words::suggestion(name, &names, "tool_contract:").unwrap_or_else(|| {
                    "declare it under `tool_contracts` in templiqx.yaml".to_owned()
                });
                let at = loc.child("$ref");
                let mut d = fail(self, format!("unknown tool contract `{name}`"), &help, &at);
                let fix = words::replacement(name, &names, "tool_contract:");
                d.suggestion = self.sources.fix_whole(&at, false, fix).map(Box::new);
                diags.push(d);
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
}
