//! `include_contract!`: compiles a `templiqx/v1alpha1` contract while the
//! host crate builds. A thin shell: every rule lives in `templiqx-build`.
//!
//! Use it through the runtime crate, which re-exports it:
//!
//! ```ignore
//! templiqx::include_contract!("contracts/greeting.yaml", target = ["structured_output"]);
//!
//! let rendered = greeting::render(
//!     &greeting::Inputs { name: "Ryan".into() },
//!     &greeting::Context { organization: "Blinqx".into() },
//! )?;
//! ```
//!
//! Arguments (paths relative to the crate's `CARGO_MANIFEST_DIR`):
//! - `"path/to/contract.yaml", target = [..]`, or
//! - `package = "path/to/package", contract = "id", target = [..]`;
//! - optionally `evals = false` to skip generating eval tests.
//!
//! A contract with errors becomes a `compile_error!` carrying every
//! diagnostic in rustc's layout (file relative to the crate, line:column,
//! snippet, `TQX_*` code, help), spanned on the macro argument. Every file
//! read is referenced with `include_bytes!`, so editing a contract, partial,
//! manifest or dependency file rebuilds the host.
//!
//! Creating a file the compilation looked for and did not find does not
//! (`docs/decisions.md`, "What a build tracks"). In a compilation that
//! succeeds these are the `templiqx.yaml` of the directories the package
//! search of the path form passed: between the contract and its package
//! root, or, for a contract without a package, every directory up to `/`.
//! A `templiqx.yaml` created in one changes the contract's package, and so
//! its includes, but on stable Rust a macro can make rustc track only files
//! that exist (`proc_macro::tracked_path` is unstable), and a missing file
//! named in the crate's dep-info would rebuild the host on every build.
//! Cargo keeps the old expansion until something else rebuilds the crate:
//! touch the contract, or run `cargo clean -p <crate>`. The
//! `package = .., contract = ..` form searches nothing, and
//! `templiqx_build::Builder` in `build.rs` watches the directories it can.

use proc_macro::TokenStream;
use proc_macro2::Span;
use quote::quote;
use std::path::PathBuf;
use syn::parse::{Parse, ParseStream};
use syn::{Ident, LitBool, LitStr, Token, bracketed, punctuated::Punctuated};
use templiqx_build::CompileOptions;
use templiqx_build::Loader;
use templiqx_build::codegen::{self, Options};
use templiqx_build::report;
use templiqx_contracts::{CapabilityProfile, Code};

enum Source {
    File(LitStr),
    Package { dir: LitStr, contract: LitStr },
}

struct Args {
    source: Source,
    target: Option<(CapabilityProfile, Span)>,
    evals: bool,
    span: Span,
}

impl Parse for Args {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let span = input.span();
        let mut file = None;
        let mut package = None;
        let mut contract = None;
        let mut target = None;
        let mut evals = true;
        if input.peek(LitStr) {
            file = Some(input.parse::<LitStr>()?);
            if !input.is_empty() {
                input.parse::<Token![,]>()?;
            }
        }
        while !input.is_empty() {
            let key: Ident = input.parse()?;
            input.parse::<Token![=]>()?;
            match key.to_string().as_str() {
                "package" => package = Some(input.parse::<LitStr>()?),
                "contract" => contract = Some(input.parse::<LitStr>()?),
                "target" => {
                    let content;
                    let bracket = bracketed!(content in input);
                    let caps: Punctuated<LitStr, Token![,]> =
                        Punctuated::parse_terminated(&content)?;
                    target = Some((
                        CapabilityProfile::new(caps.iter().map(LitStr::value)),
                        bracket.span.join(),
                    ));
                }
                "evals" => evals = input.parse::<LitBool>()?.value,
                other => {
                    return Err(syn::Error::new(
                        key.span(),
                        format!(
                            "unknown argument `{other}`; expected `package`, `contract`, `target` or `evals`"
                        ),
                    ));
                }
            }
            if !input.is_empty() {
                input.parse::<Token![,]>()?;
            }
        }
        let source = match (file, package, contract) {
            (Some(f), None, None) => Source::File(f),
            (None, Some(dir), Some(contract)) => Source::Package { dir, contract },
            (None, Some(dir), None) => {
                return Err(syn::Error::new(
                    dir.span(),
                    "`package = ..` needs `contract = \"<id>\"` too",
                ));
            }
            (Some(f), _, _) => {
                return Err(syn::Error::new(
                    f.span(),
                    "give either a contract path or `package` + `contract`, not both",
                ));
            }
            (None, _, _) => {
                return Err(syn::Error::new(
                    span,
                    "expected a contract path: `include_contract!(\"contracts/x.yaml\", target = [\"structured_output\"])`",
                ));
            }
        };
        Ok(Args {
            source,
            target,
            evals,
            span,
        })
    }
}

/// Compiles a contract into a module of typed items; see the crate docs.
#[proc_macro]
pub fn include_contract(input: TokenStream) -> TokenStream {
    let args = syn::parse_macro_input!(input as Args);
    expand(args)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

fn expand(args: Args) -> syn::Result<proc_macro2::TokenStream> {
    let Some((target, _)) = args.target else {
        return Err(syn::Error::new(
            args.span,
            "missing `target = [..]`: compiling a contract requires an explicit target capability profile \
             (e.g. `target = [\"structured_output\"]`); there is no default",
        ));
    };
    // `TEMPLIQX_MANIFEST_DIR_OVERRIDE` exists for UI tests (trybuild builds
    // cases in a generated crate elsewhere); hosts never set it.
    let base = std::env::var_os("TEMPLIQX_MANIFEST_DIR_OVERRIDE")
        .or_else(|| std::env::var_os("CARGO_MANIFEST_DIR"))
        .map(PathBuf::from)
        .unwrap_or_default();
    let mut loader = Loader::new(&base).with_options(CompileOptions {
        fake_output_in_tests: args.evals,
        ..CompileOptions::default()
    });
    let (compiled, span) = match &args.source {
        Source::File(path) => {
            let full = base.join(path.value());
            if !full.is_file() {
                return Err(syn::Error::new(
                    path.span(),
                    format!(
                        "contract file `{}` not found (paths are relative to CARGO_MANIFEST_DIR)",
                        path.value()
                    ),
                ));
            }
            (loader.compile_file(&full, &target), path.span())
        }
        Source::Package { dir, contract } => {
            let root = base.join(dir.value());
            // Only this contract and what it needs are read and compiled,
            // so N calls over one package cost N contracts, not N².
            match loader.compile_package_contract(&root, &contract.value(), &target) {
                Ok(c) => (c, contract.span()),
                Err(diags) => {
                    let text = render(&diags, &|n| {
                        loader.sources.by_name(n).map(|f| f.text.clone())
                    });
                    // An id the manifest does not list is the `contract`
                    // argument's fault; anything else is the package's.
                    let unlisted = diags.iter().all(|d| {
                        d.code == Code::Package && d.json_pointer.as_deref() == Some("/contracts")
                    });
                    let span = if unlisted {
                        contract.span()
                    } else {
                        dir.span()
                    };
                    return Err(syn::Error::new(span, text));
                }
            }
        }
    };
    // Only files that exist can be tracked with `include_bytes!`: the paths
    // of `loader.looked_for` are not (see the crate docs).
    let tracked = loader.files_read.clone();
    match (&compiled.contract, &compiled.interaction) {
        (Some(contract), Some(interaction)) if compiled.diagnostics.is_empty() => {
            let options = Options {
                eval_tests: args.evals,
                tracked_files: tracked,
            };
            codegen::generate(contract, interaction, &loader.sources, &options).map_err(|diags| {
                let text = render(&diags, &|n| {
                    loader.sources.by_name(n).map(|f| f.text.clone())
                });
                syn::Error::new(span, text)
            })
        }
        _ => {
            let text = render(&compiled.diagnostics, &|n| {
                loader.sources.by_name(n).map(|f| f.text.clone())
            });
            // Still track the files, so fixing the contract rebuilds.
            let tracked = tracked.iter().map(|f| {
                let p = f.to_string_lossy().into_owned();
                quote! { const _: &[u8] = ::core::include_bytes!(#p); }
            });
            let err = syn::Error::new(span, text).into_compile_error();
            Ok(quote! { #(#tracked)* #err })
        }
    }
}

/// Every diagnostic in rustc's layout, separated by blank lines (rustc
/// prints its own error count, so no summary line).
fn render(
    diagnostics: &[templiqx_contracts::Diagnostic],
    source: &dyn Fn(&str) -> Option<String>,
) -> String {
    diagnostics
        .iter()
        .map(|d| {
            let text = d.file.as_deref().and_then(source);
            report::render_human(d, text.as_deref())
        })
        .collect::<Vec<_>>()
        .join("\n")
}
