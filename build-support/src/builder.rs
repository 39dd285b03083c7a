//! The build.rs API ([`Builder`]), in the style of prost-build's `Config`
//! and tonic-build's `Builder`.

use crate::check::CompileOptions;
use crate::codegen::{self, Options};
use crate::package::{CompiledContract, Loader};
use crate::report;
use proc_macro2::TokenStream;
use rerun::Bounds;
use std::fmt;
use std::path::{Path, PathBuf};
use templiqx_contracts::{CapabilityProfile, Code, Diagnostic, Diagnostics};

mod rerun;

/// The default name of the generated file in `OUT_DIR`.
pub(crate) const DEFAULT_OUT_FILE: &str = "templiqx_contracts.rs";

/// Configures a build-time compilation of contracts (`docs/guide.md`,
/// "Compile a package in `build.rs`"): configure, then [`Builder::compile`]
/// writes one generated file into `OUT_DIR` that the host `include!`s, and
/// tells Cargo what to watch: every file read, and, where that is bounded,
/// the paths looked for and not found ([`Builder::compile`] says which).
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
    /// Absolute paths looked for and not found, whose creation would change
    /// the code ([`Loader::looked_for`]).
    pub looked_for: Vec<PathBuf>,
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
        self.generate_tracked().0
    }

    /// [`Builder::generate`], and the files read and the paths looked for,
    /// also when it fails.
    fn generate_tracked(&self) -> (Result<Generated, BuildError>, Tracked) {
        let base = self.base();
        let mut loader = Loader::new(&base).with_options(CompileOptions {
            fake_output_in_tests: self.eval_tests,
            ..CompileOptions::default()
        });
        let Some(target) = &self.target else {
            let d = Diagnostic::error(Code::CapabilityUnsupported, "no target capability profile was given")
                .help("call `.target([\"structured_output\", ...])`: compilation requires an explicit target profile");
            return (Err(fail(vec![d], &loader)), Tracked::default());
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
        let tracked = Tracked {
            files_read: loader.files_read.clone(),
            looked_for: loader.looked_for.clone(),
        };
        if !diagnostics.is_empty() {
            return (Err(fail(diagnostics, &loader)), tracked);
        }
        let code = format_file(quote::quote! { #(#modules)* });
        let generated = Generated {
            code,
            files_read: tracked.files_read.clone(),
            looked_for: tracked.looked_for.clone(),
            fingerprint: loader.fingerprint(),
        };
        (Ok(generated), tracked)
    }

    /// Generates, writes the file, and prints `cargo:rerun-if-changed`
    /// lines (also on failure, so fixing a contract reruns the build
    /// script). Returns the path written.
    ///
    /// What the lines track (`docs/decisions.md`, "What a build tracks"):
    ///
    /// * every file read: manifests, contracts, partials, dependency files
    ///   (and, on failure, the configured package directories and contract
    ///   files);
    /// * for each path looked for and not found ([`Generated::looked_for`]),
    ///   its nearest existing ancestor directory (the path itself, when it
    ///   exists but could not be read). Cargo compares a directory by the
    ///   newest modification time in its whole tree, and creating a file (or
    ///   the missing directories above it) updates that directory's: the
    ///   creation reruns the build script. So does any other change under
    ///   the directory; one that lies under another watched directory is
    ///   not printed again.
    ///
    /// A looked-for path is not tracked, because watching its nearest
    /// existing directory would rerun the build script on every build or
    /// scan an unbounded tree, when that directory
    ///
    /// * holds `OUT_DIR` or the generated file: the target directory, which
    ///   Cargo writes after the script runs. In a crate outside a workspace
    ///   (its `target/` inside it) that is the crate root and every
    ///   directory above it; in a workspace, the workspace root and above;
    /// * lies strictly above the crate root (`CARGO_MANIFEST_DIR`): it holds
    ///   other crates, the home directory, up to `/`;
    /// * is a file-system root.
    ///
    /// In a compilation that succeeds, the only paths looked for are the
    /// `templiqx.yaml` of each directory the package search of a contract
    /// file ([`Builder::contract`]) passed; the other kinds (an include,
    /// dependency, contract or manifest that is missing) fail the build,
    /// and Cargo reruns a build script that failed on every build. Without
    /// a package, the search goes up to `/`, so a contract file without a
    /// package always has untracked ancestors: a `templiqx.yaml` created in
    /// one of them is not noticed until something else reruns the script
    /// (`touch` the contract, or `cargo clean -p <crate>`). A package stops
    /// the search at its root. Each untracked path is named, with the
    /// reason, on a `#` line of the build script's output
    /// (`target/<profile>/build/<crate>-<hash>/output`), which Cargo
    /// ignores. A symlink under a watched directory that points into the
    /// target directory is not detected (Cargo follows it, and then reruns
    /// the script on every build).
    ///
    /// # Errors
    /// As [`Builder::generate`]; `TQX_IO` when `OUT_DIR` is unset or the
    /// file cannot be written.
    pub fn compile(&self) -> Result<PathBuf, BuildError> {
        let (result, tracked) = self.generate_tracked();
        let out = self.out_file.clone().or_else(|| {
            std::env::var_os("OUT_DIR").map(|dir| PathBuf::from(dir).join(DEFAULT_OUT_FILE))
        });
        let mut files = tracked.files_read;
        if result.is_err() {
            for input in self.inputs_for_rerun() {
                if !files.contains(&input) {
                    files.push(input);
                }
            }
        }
        let watch = rerun::plan(&tracked.looked_for, &self.bounds(out.as_deref()), &|p| {
            p.exists()
        });
        for line in rerun::lines(&files, &watch) {
            println!("{line}");
        }
        let generated = result?;
        let Some(out) = out else {
            let d = Diagnostic::error(Code::Io, "OUT_DIR is not set")
                .help("call `compile()` from a build script, or set `out_file(...)`");
            return Err(BuildError {
                rendered: report::render_human(&d, None),
                diagnostics: Diagnostics::one(d),
            });
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

    /// What a watched directory must not hold: `OUT_DIR` and the directory
    /// of the generated file `out`, and the crate root
    /// (`CARGO_MANIFEST_DIR`, else the base directory), as real paths.
    fn bounds(&self, out: Option<&Path>) -> Bounds {
        let real = |p: &Path| {
            let p = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
            std::fs::canonicalize(&p).unwrap_or(p)
        };
        let out_dir = std::env::var_os("OUT_DIR").map(PathBuf::from);
        let out_file_dir = out.and_then(Path::parent).map(Path::to_path_buf);
        let crate_root = std::env::var_os("CARGO_MANIFEST_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| self.base());
        Bounds {
            outputs: out_dir
                .into_iter()
                .chain(out_file_dir)
                .map(|p| real(&p))
                .collect(),
            crate_root: Some(real(&crate_root)),
        }
    }

    /// On failure, besides what the loader read and looked for, rerun on
    /// the configured inputs and every file under them.
    fn inputs_for_rerun(&self) -> Vec<PathBuf> {
        let base = self.base();
        self.packages
            .iter()
            .chain(self.files.iter())
            .map(|p| base.join(p))
            .collect()
    }
}

/// What a compilation depended on: the files it read and the paths it
/// looked for and did not find.
#[derive(Debug, Default)]
struct Tracked {
    files_read: Vec<PathBuf>,
    looked_for: Vec<PathBuf>,
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
