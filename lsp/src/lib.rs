//! The Templiqx language server: the compiler in the editor
//! (`templiqx lsp`; `docs/cli.md`, "lsp").
//!
//! It speaks the Language Server Protocol (synchronous, on the message
//! types and connections of rust-analyzer's `lsp-server`; `docs/decisions.md`,
//! "The language server") over standard input and output ([`run_stdio`]),
//! any pair of byte streams ([`run_io`]) or an in-memory connection
//! ([`run`]), and serves contracts, partials and `templiqx.yaml` manifests.
//! A malformed message is answered with a JSON-RPC error and skipped, a
//! body over [`MAX_MESSAGE`] bytes is refused unread, and messages out of
//! the lifecycle's order are answered as LSP 3.17 asks: nothing a client
//! sends ends the session but `exit` and the end of the input
//! (`docs/cli.md`, "lsp", "The protocol"). A request the client cancels
//! (`$/cancelRequest`) is answered `-32800 RequestCancelled`, and one that
//! a later `textDocument/didChange` of its document supersedes `-32801
//! ContentModified`, without its work (`docs/decisions.md`, "The language
//! server"). Each request has its handler in its own module, behind a
//! one-line-per-method dispatch.
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
//!   item, a component parameter, `output.x` in an eval check, `judge.x`
//!   in the `pass` of a model-graded check): the declared type, whether it
//!   is required, its description and schema; on a key of a judge's
//!   `with`, the judge's input; on a component invocation's name, its
//!   parameters; on a filter, what
//!   it accepts and writes; on a capability or an extension key, what the
//!   target must provide and which contracts of the package need it; on an
//!   eval fixture's `id`, the prompt preview (its messages rendered by
//!   [`templiqx::render()`] from the last compilation), or the `TQX_*` codes
//!   of why it cannot be rendered.
//! * **Completion** of reference paths (after `inputs.`, `context.`, a
//!   `for_each` item, a component parameter, `output.` in an eval check,
//!   `judge.` in the `pass` of a model-graded check; nested properties,
//!   with types and descriptions), a judge's input names as the keys of its
//!   `with`, filters, content node and expression kinds, component names,
//!   capability names and the keywords of the bounded JSON Schema subset,
//!   each where the format expects it; in a half-typed document too (never
//!   an error).
//! * **Go to definition** from a reference (each segment) to its
//!   declaration, from a component invocation to the component, from an
//!   include path to the partial; from an include's `from_dependency` to
//!   its entry in the package manifest's `dependencies` (and from there to
//!   the dependency's manifest), from an extension schema's
//!   `$ref: tool_contract:NAME` to its entry in `tool_contracts`; in a
//!   model-graded check, from `judge.x` to the judge contract's
//!   `output_schema` property, from `contract` to the judge's `id`, from a
//!   key of `with` to the judge's input.
//! * **Find references** and **rename** of an input or context field, a
//!   property of an eval entry's `case_schema`, or a property below one:
//!   every reference path that resolves to it (in
//!   the contract, its eval checks and the partials it includes), the eval
//!   fixtures' keys that set it, the keys of the package's request files
//!   and of the rows of the contract's JSON Lines datasets that set it, the
//!   segment naming it in the header cells of its CSV datasets, its
//!   declaration key and `required` entry;
//!   a rename is refused for a name that is not a field name
//!   (`docs/format.md`, "Field declarations") or is taken.
//! * **Quick fixes** from the compiler's suggestions ("did you mean
//!   `inputs.name`?"): the diagnostic's [`Suggestion`], carried in its
//!   `data`, as a preferred `quickfix` code action.
//!
//! [`Suggestion`]: templiqx_contracts::Suggestion
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
mod init;
mod notifications;
mod queue;
mod requests;
mod server;
mod transport;
mod tree;
mod workspace;

pub use server::{Error, Options, run, run_io, run_stdio};
pub use transport::MAX_MESSAGE;
