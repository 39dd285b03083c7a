//! Compiling the inputs of `check` and `test`: package directories and
//! contract files, each with its own [`Loader`] (so each input has its own
//! package fingerprint), with progress over every contract, then code
//! generation as a build runs it.

use crate::input::{current_dir, display};
use crate::ui::{SourceTexts, Ui};
use std::path::{Path, PathBuf};
use templiqx_build::codegen;
use templiqx_build::{CompiledContract, Loader, MANIFEST};
use templiqx_contracts::{CapabilityProfile, Code, Diagnostic};

/// One input path, compiled.
pub struct Compiled {
    /// The path as displayed.
    pub name: String,
    /// The loader that read it (its sources, its package fingerprint).
    pub loader: Loader,
    /// `(name, version)` of the package, for a package directory.
    pub package: Option<(String, String)>,
    /// Problems with the input itself: unreadable, no manifest, bad manifest.
    pub diagnostics: Vec<Diagnostic>,
    /// Every contract compiled.
    pub contracts: Vec<CompiledContract>,
}

impl Compiled {
    /// Every diagnostic of the input and its contracts.
    pub fn all_diagnostics(&self) -> Vec<Diagnostic> {
        self.diagnostics
            .iter()
            .chain(self.contracts.iter().flat_map(|c| &c.diagnostics))
            .cloned()
            .collect()
    }

    /// The source texts, for snippets.
    pub fn sources(&self) -> SourceTexts {
        let mut s = SourceTexts::default();
        s.extend_from(&self.loader.sources);
        s
    }
}

enum Plan {
    Package { index: usize, ids: Vec<String> },
    File(PathBuf),
    Broken,
}

/// Compiles every input for `target`, showing progress (`verb`) over all
/// contracts on a terminal.
pub fn compile_inputs(
    ui: &mut Ui,
    paths: &[PathBuf],
    target: &CapabilityProfile,
    verb: &str,
) -> Vec<Compiled> {
    let base = current_dir();
    let mut planned: Vec<(Compiled, Plan)> = paths.iter().map(|path| plan(path, &base)).collect();
    let total = planned
        .iter()
        .map(|(_, p)| match p {
            Plan::Package { ids, .. } => ids.len(),
            Plan::File(_) => 1,
            Plan::Broken => 0,
        })
        .sum();
    ui.start_progress(total, verb);
    for (compiled, plan) in &mut planned {
        match plan {
            Plan::Package { index, ids } => {
                for id in ids.iter() {
                    ui.progress_message(id);
                    let c = compiled.loader.compile_listed(*index, id, target);
                    compiled.contracts.push(c);
                    ui.progress_inc();
                }
            }
            Plan::File(path) => {
                ui.progress_message(&compiled.name);
                let c = compiled.loader.compile_file(path, target);
                compiled.contracts.push(c);
                ui.progress_inc();
            }
            Plan::Broken => {}
        }
    }
    ui.finish_progress();
    planned
        .into_iter()
        .map(|(mut c, _)| {
            generate(&mut c);
            c
        })
        .collect()
}

/// Checks code generation on every contract that compiled, as
/// `include_contract!` and `Builder` generate it, so that `check` fails
/// where a build would: two names that map to one Rust field, or two
/// contracts of one input that map to one module (`TQX_CODEGEN_COLLISION`).
/// [`codegen::check_all`] decides the same names and reports the same
/// diagnostics as [`codegen::generate_all`] without building the code. A
/// contract whose generation would fail keeps its diagnostics and loses its
/// interaction.
fn generate(compiled: &mut Compiled) {
    let generated = codegen::check_all(&compiled.contracts, &compiled.loader.sources);
    for (c, generated) in compiled.contracts.iter_mut().zip(generated) {
        if let Some(Err(diagnostics)) = generated {
            c.diagnostics.extend(diagnostics);
            c.interaction = None;
        }
    }
}

fn plan(path: &Path, base: &Path) -> (Compiled, Plan) {
    let name = display(path);
    let mut compiled = Compiled {
        name: name.clone(),
        loader: Loader::new(base),
        package: None,
        diagnostics: Vec::new(),
        contracts: Vec::new(),
    };
    let plan = match std::fs::metadata(path) {
        Err(e) => {
            compiled.diagnostics.push(
                Diagnostic::error(Code::Io, format!("cannot open `{name}`: {}", io_reason(&e)))
                    .in_file(name)
                    .help("pass a package directory (holding `templiqx.yaml`) or a contract file"),
            );
            Plan::Broken
        }
        Ok(meta) if meta.is_dir() => {
            if !path.join(MANIFEST).is_file() {
                compiled.diagnostics.push(
                    Diagnostic::error(
                        Code::Io,
                        format!("`{name}` is not a package: it holds no `{MANIFEST}`"),
                    )
                    .in_file(name)
                    .help(format!(
                        "a package directory holds a `{MANIFEST}` manifest; to check one contract, pass its file"
                    )),
                );
                Plan::Broken
            } else {
                match compiled.loader.load_package(path) {
                    Ok(index) => {
                        let manifest = &compiled.loader.package(index).manifest;
                        compiled.package =
                            Some((manifest.package.clone(), manifest.version.clone()));
                        Plan::Package {
                            index,
                            ids: manifest.contracts.clone(),
                        }
                    }
                    Err(diagnostics) => {
                        compiled.diagnostics = diagnostics;
                        Plan::Broken
                    }
                }
            }
        }
        Ok(_) => Plan::File(path.to_path_buf()),
    };
    (compiled, plan)
}

/// An I/O error as the end of a sentence (`no such file or directory`).
pub fn io_reason(e: &std::io::Error) -> String {
    let text = match e.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".to_owned(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_owned(),
        _ => e.to_string(),
    };
    // `Os { .. }` messages end with " (os error N)"; keep the words.
    match text.find(" (os error") {
        Some(i) => text[..i].to_owned(),
        None => text,
    }
}
