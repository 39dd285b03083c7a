//! The build.rs API ([`Builder`]), in the style of prost-build's `Config`
//! and tonic-build's `Builder`.

use crate::check::CompileOptions;
use crate::codegen::{self, Options};
use crate::package::{CompiledContract, Loader};
use crate::report;
use proc_macro2::TokenStream;
use std::fmt;
use std::path::{Path, PathBuf};
use templiqx_contracts::{CapabilityProfile, Code, Diagnostic, Diagnostics};

/// The default name of the generated file in `OUT_DIR`.
pub(crate) const DEFAULT_OUT_FILE: &str = "templiqx_contracts.rs";

/// Configures a build-time compilation of contracts (`docs/guide.md`,
/// "Compile a package in `build.rs`"): configure, then [`Builder::compile`]
/// writes one generated file into `OUT_DIR` that the host `include!`s, and
/// prints `cargo:rerun-if-changed` for every file read.
///
/// ```no_run
/// // build.rs (the body of `fn main`)
/// let result = templiqx_build::Builder::new()
///     .target(["structured_output"])
///     .package("contracts")
///     .compile();
/// if let Err(e) = result {
///     eprintln!("{e}");
///     std::process::exit(1);
/// }
/// ```
///
/// ```ignore
/// // src/main.rs
/// include!(concat!(env!("OUT_DIR"), "/templiqx_contracts.rs"));
/// ```
#[derive(Clone, Debug)]
pub struct Builder {
    target: Option<CapabilityProfile>,
    packages: Vec<PathBuf>,
    files: Vec<PathBuf>,
    out_file: Option<PathBuf>,
    eval_tests: bool,
    base: Option<PathBuf>,
}

/// Generated code and what it was generated from.
#[derive(Debug)]
pub struct Generated {
    /// The formatted Rust source.
    pub code: String,
    /// Absolute paths of every file read (manifests, contracts, partials,
    /// dependency files).
    pub files_read: Vec<PathBuf>,
    /// The package fingerprint over every file read.
    pub fingerprint: String,
}

/// A failed build: every diagnostic, and their rendering in rustc's layout.
///
/// Unlike the other Templiqx errors, which display their [`Diagnostics`]
/// one line each, a `BuildError` displays `rendered`: it holds the sources,
/// and a build script's output is read like rustc's.
#[derive(Debug)]
pub struct BuildError {
    /// The diagnostics; never empty.
    pub diagnostics: Diagnostics,
    /// The human rendering (file, line:column, snippet, code, help).
    pub rendered: String,
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.rendered)
    }
}

impl std::error::Error for BuildError {}

impl Default for Builder {
    /// The same as [`Builder::new`].
    fn default() -> Builder {
        Builder::new()
    }
}

impl Builder {
    /// A builder with no target (one must be set: there is no default
    /// capability profile), eval tests on, output `OUT_DIR/templiqx_contracts.rs`.
    pub fn new() -> Builder {
        Builder {
            target: None,
            packages: Vec::new(),
            files: Vec::new(),
            out_file: None,
            eval_tests: true,
            base: None,
        }
    }

    /// The target capability profile (required).
    pub fn target<I, S>(mut self, capabilities: I) -> Builder
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.target = Some(CapabilityProfile::new(capabilities));
        self
    }

    /// Compiles every contract of the package in `dir` (holding `templiqx.yaml`).
    /// Relative paths are relative to the crate (`CARGO_MANIFEST_DIR`).
    pub fn package(mut self, dir: impl AsRef<Path>) -> Builder {
        self.packages.push(dir.as_ref().to_path_buf());
        self
    }

    /// Compiles one contract file (its package is the nearest ancestor with
    /// `templiqx.yaml`, if any).
    pub fn contract(mut self, file: impl AsRef<Path>) -> Builder {
        self.files.push(file.as_ref().to_path_buf());
        self
    }

    /// Whether eval fixtures become `#[test]`s (default: yes).
    pub fn eval_tests(mut self, on: bool) -> Builder {
        self.eval_tests = on;
        self
    }

    /// Where to write the generated file (default: `$OUT_DIR/templiqx_contracts.rs`).
    pub fn out_file(mut self, path: impl AsRef<Path>) -> Builder {
        self.out_file = Some(path.as_ref().to_path_buf());
        self
    }

    /// The directory relative paths and diagnostic file names are relative
    /// to (default: `CARGO_MANIFEST_DIR`, else the current directory).
    pub fn base_dir(mut self, dir: impl AsRef<Path>) -> Builder {
        self.base = Some(dir.as_ref().to_path_buf());
        self
    }

    fn base(&self) -> PathBuf {
        self.base
            .clone()
            .or_else(|| std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from))
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_default()
    }

    /// Compiles and generates the code, without touching the file system
    /// beyond reading the inputs.
    ///
    /// # Errors
    /// Every diagnostic of every contract (`TQX_CAPABILITY_UNSUPPORTED` when
    /// no target was set), rendered.
    pub fn generate(&self) -> Result<Generated, BuildError> {
        let base = self.base();
        let mut loader = Loader::new(&base).with_options(CompileOptions {
            fake_output_in_tests: self.eval_tests,
            ..CompileOptions::default()
        });
        let Some(target) = &self.target else {
            let d = Diagnostic::error(Code::CapabilityUnsupported, "no target capability profile was given")
                .help("call `.target([\"structured_output\", ...])`: compilation requires an explicit target profile");
            return Err(fail(vec![d], &loader));
        };
        let mut compiled: Vec<CompiledContract> = Vec::new();
        let mut diagnostics = Vec::new();
        for dir in &self.packages {
            match loader.compile_package(&base.join(dir), target) {
                Ok(c) => compiled.extend(c),
                Err(d) => diagnostics.extend(d),
            }
        }
        for file in &self.files {
            compiled.push(loader.compile_file(&base.join(file), target));
        }
        let options = Options {
            eval_tests: self.eval_tests,
            tracked_files: Vec::new(),
        };
        let mut modules = Vec::new();
        for c in &compiled {
            diagnostics.extend(c.diagnostics.iter().cloned());
        }
        for generated in codegen::generate_all(&compiled, &loader.sources, &options) {
            match generated {
                Some(Ok(tokens)) => modules.push(tokens),
                Some(Err(d)) => diagnostics.extend(d),
                None => {}
            }
        }
        if !diagnostics.is_empty() {
            return Err(fail(diagnostics, &loader));
        }
        let code = format_file(quote::quote! { #(#modules)* });
        Ok(Generated {
            code,
            files_read: loader.files_read.clone(),
            fingerprint: loader.fingerprint(),
        })
    }

    /// Generates, writes the file, and prints `cargo:rerun-if-changed` for
    /// every file read (also on failure, so fixing a contract reruns the
    /// build script). Returns the path written.
    ///
    /// # Errors
    /// As [`Builder::generate`]; `TQX_IO` when `OUT_DIR` is unset or the
    /// file cannot be written.
    pub fn compile(&self) -> Result<PathBuf, BuildError> {
        let result = self.generate();
        let files = match &result {
            Ok(g) => g.files_read.clone(),
            Err(_) => self.inputs_for_rerun(),
        };
        for f in &files {
            println!("cargo:rerun-if-changed={}", f.display());
        }
        let generated = result?;
        let out = match &self.out_file {
            Some(p) => p.clone(),
            None => match std::env::var_os("OUT_DIR") {
                Some(dir) => PathBuf::from(dir).join(DEFAULT_OUT_FILE),
                None => {
                    let d = Diagnostic::error(Code::Io, "OUT_DIR is not set")
                        .help("call `compile()` from a build script, or set `out_file(...)`");
                    return Err(BuildError {
                        rendered: report::render_human(&d, None),
                        diagnostics: Diagnostics::one(d),
                    });
                }
            },
        };
        if std::fs::read_to_string(&out).ok().as_deref() != Some(generated.code.as_str()) {
            std::fs::write(&out, &generated.code).map_err(|e| {
                let d = Diagnostic::error(Code::Io, format!("cannot write {}: {e}", out.display()))
                    .help("check that the output directory exists and is writable");
                BuildError {
                    rendered: report::render_human(&d, None),
                    diagnostics: Diagnostics::one(d),
                }
            })?;
        }
        Ok(out)
    }

    /// On failure the loader's list is gone; rerun on the configured inputs
    /// and every file under them.
    fn inputs_for_rerun(&self) -> Vec<PathBuf> {
        let base = self.base();
        self.packages
            .iter()
            .chain(self.files.iter())
            .map(|p| base.join(p))
            .collect()
    }
}

fn fail(diagnostics: Vec<Diagnostic>, loader: &Loader) -> BuildError {
    let rendered = report::render_all(&diagnostics, &|name| {
        loader.sources.by_name(name).map(|f| f.text.clone())
    });
    BuildError {
        diagnostics: diagnostics.into(),
        rendered,
    }
}

/// Formats generated tokens as [`Builder`] writes them: an `@generated`
/// header, then the tokens pretty-printed by `prettyplease` (as they are
/// when they do not parse as a file, which generated code always does).
pub fn format_file(tokens: TokenStream) -> String {
    let header = "// @generated by templiqx-build. Do not edit: change the contracts instead.\n\n";
    match syn::parse2::<syn::File>(tokens.clone()) {
        Ok(file) => format!("{header}{}", prettyplease::unparse(&file)),
        Err(_) => format!("{header}{tokens}\n"),
    }
}
