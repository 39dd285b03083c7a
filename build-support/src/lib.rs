//! The Templiqx compiler: strict `templiqx/v1alpha1` parsing, validation,
//! lowering to the interaction IR, and diagnostics.
//!
//! This crate holds every rule; the `include_contract!` macro, the build.rs
//! API and the `templiqx` CLI are front ends over it.
//!
//! ```
//! use templiqx_build::compile_str;
//! use templiqx_contracts::CapabilityProfile;
//!
//! let yaml = r#"
//! api_version: templiqx/v1alpha1
//! id: greeting
//! version: 0.1.0
//! inputs:
//!   name: { schema: { type: string, minLength: 1 }, required: true }
//! capabilities: [structured_output]
//! messages:
//!   - role: user
//!     content:
//!       - { kind: text, value: "Hello " }
//!       - kind: interpolate
//!         expression: { kind: ref, path: inputs.nmae }
//! output_schema: { type: object }
//! "#;
//! let target = CapabilityProfile::parse_list("structured_output");
//! let compilation = compile_str(yaml, "greeting.yaml", &target);
//! let d = &compilation.diagnostics[0];
//! assert_eq!(d.code.as_str(), "TQX_REF_UNKNOWN");
//! assert_eq!(d.json_pointer.as_deref(), Some("/messages/0/content/1/expression/path"));
//! assert_eq!(d.span.unwrap().start.line, 13);
//! assert_eq!(d.help.as_deref(), Some("did you mean `inputs.name`?"));
//! ```
//!
//! # The public API
//!
//! Every rule these items apply is stated in `docs/format.md` (the format),
//! `docs/decisions.md` (the choices behind it) and `docs/diagnostics.md`
//! (every `TQX_*` code, with an example).
//!
//! | to | use |
//! |---|---|
//! | compile a package directory, a contract file or an unsaved text as every front end does (`check`, `render`, `test`, `eval`, the language server, `diff`) | [`Compiler`] for a [`Target`] → [`CompiledInput`] |
//! | compile one contract text | [`compile_str`], [`validate_str`], [`parse_str`] → [`Compilation`]; [`parse_file`] over [`Sources`] |
//! | compile a parsed (and composed) contract with options | [`compile_contract`], [`CompileOptions`] |
//! | compile the `expect` checks of its eval fixtures (for `templiqx::evaluate_check`) | [`compile_checks`] |
//! | load and compile packages and contract files (includes, dependencies, tool contracts) | [`Loader`] → [`CompiledContract`]s, reading through [`Sources`] / [`SourceFile`]; a package's [`Manifest`] ([`MANIFEST`], [`manifest_fingerprint`]), [`Package`], [`ToolContract`]; [`MAX_INCLUDE_DEPTH`]; [`relative_to`] names files as diagnostics do |
//! | compile what an editor shows, or track every file a build depends on | [`Loader::with_file_system`] over a [`FileSystem`]: [`RealFileSystem`] (the disk), [`Overlay`] (in-memory documents over another); [`Loader::files_read`], [`Loader::looked_for`] |
//! | generate Rust for compiled contracts | [`codegen::generate`], [`codegen::generate_all`] with [`codegen::Options`]; its diagnostics without the code: [`codegen::check`], [`codegen::check_all`]; [`codegen::format_file`] |
//! | do both from `build.rs` | [`Builder`] → [`Generated`], [`BuildError`] |
//! | show diagnostics with source snippets | [`report`] |
//! | read YAML and JSON as every Templiqx reader does | [`yaml`] (strict YAML, with spans), [`text`] (decoding, strict JSON) |
//! | compile a JSON Schema into the runtime's bounded [`Schema`](templiqx_contracts::Schema) | [`schema::compile_schema`] |
//! | the closed sets of names the format spells (for editors) | [`NODE_KINDS`], [`EXPR_KINDS`], [`FILTERS`] |
//! | the format's data model (the strict DTOs) | [`dto`]; its JSON Schema with the `json-schema` feature (`json_schema`) |
//!
//! Everything else (the checker's phases, the lowering to IR, the parsers of
//! contracts and manifests, the naming of generated identifiers) is private.
#![warn(unreachable_pub)]

mod builder;
mod check;
pub mod codegen;
mod compile;
mod compiler;
pub mod dataset;
pub mod dto;
mod file_system;
#[cfg(feature = "json-schema")]
pub mod json_schema;
mod package;
mod parse;
mod parse_cache;
pub mod report;
pub mod schema;
mod source;
pub mod text;
pub mod yaml;

pub use builder::{BuildError, Builder, Generated};
pub use check::{CompileOptions, compile_checks, compile_contract};
pub use compile::{Compilation, compile_str, parse_file, parse_str, validate_str};
pub use compiler::{CompiledInput, Compiler, InputKind, Target, io_reason, required_capabilities};
pub use file_system::{FileSystem, Overlay, RealFileSystem};
pub use package::{
    CompiledContract, Loader, MANIFEST, MAX_INCLUDE_DEPTH, Manifest, Package, ToolContract,
    manifest_fingerprint, relative_to,
};
pub use parse::{EXPR_KINDS, FILTERS, NODE_KINDS};
pub use parse_cache::ParseCache;
pub use source::{SourceFile, Sources};
