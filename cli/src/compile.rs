//! Compiling the inputs of `check`, `test` and `eval`: package directories
//! and contract files, through the compiler's [`Compiler`] (each input with
//! its own [`Loader`], so its own package fingerprint; code generation
//! checked as a build runs it), with progress over every contract.

use crate::input::current_dir;
use crate::ui::{SourceTexts, Ui};
use std::path::PathBuf;
use templiqx_build::{CompiledContract, CompiledInput, Compiler, Loader, Target};
use templiqx_contracts::{CapabilityProfile, Diagnostic};

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

/// Compiles every input for `target` through the compiler's one entry
/// point ([`Compiler`]), showing progress (`verb`) over all contracts on a
/// terminal.
pub fn compile_inputs(
    ui: &mut Ui,
    paths: &[PathBuf],
    target: &CapabilityProfile,
    verb: &str,
) -> Vec<Compiled> {
    let compiler = Compiler::new(current_dir(), Target::Profile(target.clone()));
    let mut opened: Vec<_> = paths.iter().map(|path| compiler.open(path)).collect();
    ui.start_progress(opened.iter().map(CompiledInput::pending).sum(), verb);
    for input in &mut opened {
        compiler.finish(input, &mut |name| {
            ui.progress_message(name);
            ui.progress_inc();
        });
    }
    ui.finish_progress();
    opened.into_iter().map(Compiled::from).collect()
}

impl From<CompiledInput> for Compiled {
    fn from(input: CompiledInput) -> Compiled {
        let package = input.package.map(|index| {
            let manifest = &input.loader.package(index).manifest;
            (manifest.package.clone(), manifest.version.clone())
        });
        Compiled {
            name: input.name,
            package,
            diagnostics: input.unusable.into_iter().chain(input.problems).collect(),
            contracts: input.contracts,
            loader: input.loader,
        }
    }
}

pub use templiqx_build::io_reason;
