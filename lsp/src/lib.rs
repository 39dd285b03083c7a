//! The Templiqx language server: the compiler in the editor
//! (`templiqx lsp`; `docs/cli.md`, "lsp").
//!
//! It speaks the Language Server Protocol (synchronous, over stdio, on
//! rust-analyzer's `lsp-server`; `docs/decisions.md`, "The language
//! server") and serves contracts, partials and `templiqx.yaml` manifests:
//!
//! * **Diagnostics** on open, on every change, on save and on close. The
//!   package of the changed file (the nearest directory holding
//!   `templiqx.yaml`; a contract file outside any package is its own unit)
//!   is compiled whole, as `templiqx check` compiles it, with the open
//!   documents laid over the disk ([`templiqx_build::Overlay`]), and so is
//!   every package whose last compilation read the file (a dependency's
//!   partial); an open contract the manifest does not list is compiled as
//!   `templiqx check FILE` compiles it. Every file of the package gets its
//!   diagnostics, and a file whose diagnostics went away gets an empty
//!   list. Each diagnostic carries its `TQX_*` code, a link to its entry in
//!   `docs/diagnostics.md`, the help after the message, and the include
//!   chain of a partial's error as related information.
//! * **Hover** on a reference path (`inputs.customer.name`, a `for_each`
//!   item, a component parameter, `output.x` in an eval check): the
//!   declared type, whether it is required, its description and schema;
//!   on a component invocation's name, its parameters.
//! * **Go to definition** from a reference (each segment) to its
//!   declaration, from a component invocation to the component, from an
//!   include path to the partial.
//! * **Document symbols**: a contract's inputs, context, messages,
//!   components, output schema and evals; a manifest's contracts and
//!   dependencies; a partial's nodes.
//!
//! Positions are UTF-16 code units, the protocol's default; the compiler's
//! columns (Unicode scalar values) are converted.
//!
//! The target capability profile comes from the client's
//! `initializationOptions` (`{"target": ["structured_output"]}`) or from
//! [`Options::target`] (`templiqx lsp --target`). Without one, the server
//! says so once (`window/showMessage`) and skips the capability checks:
//! each contract is compiled with the capabilities it requires.
//!
//! ```no_run
//! templiqx_lsp::run_stdio(templiqx_lsp::Options::default()).unwrap();
//! ```

mod convert;
mod diagnostics;
mod navigate;
mod server;
mod workspace;

pub use server::{Error, Options, run, run_stdio};
