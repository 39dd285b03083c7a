//! Rust code generation: a compiled contract becomes a module with typed
//! `Inputs`, `Context` and `Output` types, the partial types of the output
//! (`PartialOutput`, module `partial`), the interaction and its eval
//! fixtures as static data, fingerprint constants, typed entry points
//! (`render`, `decode_output`, the `execute` calls, `execute_partial`) and
//! eval tests (`docs/format.md`, "Generated Rust").
//!
//! - `names` decides every identifier the generator writes;
//! - `types` generates the structs and enums of the schemas, and the
//!   partial types of the output's (`docs/format.md`, "Partial types");
//! - `statics` writes the interaction IR as static tokens;
//! - this module drives them and assembles the contract module; [`check`]
//!   and [`check_all`] run the same walk without building tokens.
//!
//! Generated code names runtime items only through `::templiqx::__private`
//! (imported once per module as `__tqx`), so it does not depend on the
//! host's `use` lines; it is deterministic
//! (declaration order, no hashing) and carries doc comments.

mod names;
mod statics;
mod types;

use crate::dto::{Contract, EvalDecl, Loc};
use crate::source::Sources;
use names::{TestNames, TypeNames};
use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::quote;
use std::path::PathBuf;
use templiqx_contracts::ir;
use templiqx_contracts::{DatasetRef, Diagnostic, EvalFixture, Interaction, JsonType, Seq};
use types::{FieldSpec, Gen, is_struct};

pub use crate::builder::format_file;
pub(crate) use names::module_name;
pub(crate) use statics::emit_interaction;

/// What to generate besides the types and the interaction.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Emit each eval fixture as a `#[test]` (under `#[cfg(test)]`).
    pub eval_tests: bool,
    /// Absolute paths of every file read, referenced with `include_bytes!`
    /// so that cargo rebuilds the host when one changes (askama's technique).
    pub tracked_files: Vec<PathBuf>,
}

/// Generates the module for one compiled contract.
///
/// # Errors
/// `TQX_CODEGEN_COLLISION` when two property names map to the same Rust
/// field name (`first-name` and `first_name`), located at the second.
pub fn generate(
    contract: &Contract,
    interaction: &Interaction,
    sources: &Sources,
    options: &Options,
) -> Result<TokenStream, Vec<Diagnostic>> {
    let (items, partials) = type_items(contract, interaction, sources, true)?;
    let checks = crate::check::compile_checks(contract, interaction, sources);
    Ok(module(
        contract,
        interaction,
        options,
        &items,
        &partials,
        &checks,
    ))
}

/// Checks that [`generate`] would generate the module of one compiled
/// contract, without generating it: the same walk over its schemas decides
/// every type and field name, and reports the same diagnostics, but builds
/// no tokens. What an editor needs (`docs/decisions.md`, "The language
/// server"): the diagnostics of code generation, not its code.
///
/// # Errors
/// Exactly those of [`generate`], in the same order.
pub fn check(
    contract: &Contract,
    interaction: &Interaction,
    sources: &Sources,
) -> Result<(), Vec<Diagnostic>> {
    type_items(contract, interaction, sources, false).map(drop)
}

/// The items of a contract module's types: its own, and those of its
/// `partial` module.
type Items = (Vec<TokenStream>, Vec<TokenStream>);

/// Decides the names of `Inputs`, `Context`, `Output` and every type they
/// need, and builds their items, and the partial types of the output's,
/// when `emit` is set (else none).
///
/// # Errors
/// `TQX_CODEGEN_COLLISION`, as [`generate`].
fn type_items(
    contract: &Contract,
    interaction: &Interaction,
    sources: &Sources,
    emit: bool,
) -> Result<Items, Vec<Diagnostic>> {
    let mut g = Gen {
        sources,
        emit,
        items: Vec::new(),
        partial: false,
        partials: Vec::new(),
        names: TypeNames::default(),
        diags: Vec::new(),
    };
    root_types(&mut g, contract, interaction);
    if g.diags.is_empty() {
        Ok((g.items, g.partials))
    } else {
        Err(g.diags)
    }
}

/// Generates the module of every contract in `contracts` that compiled
/// (has a contract and an interaction), in order, as one build does:
/// `Builder` writes them into one file, and `templiqx check` runs this so
/// that it fails where a build would. Returns one entry per contract:
/// `None` for a contract that did not compile, else its module or its
/// generation diagnostics.
///
/// # Errors
/// Per entry: those of [`generate`], and `TQX_CODEGEN_COLLISION` (at the
/// later contract's file) for a contract whose module name (its id in
/// snake case, `module_name`) an earlier contract already has.
pub fn generate_all(
    contracts: &[crate::package::CompiledContract],
    sources: &Sources,
    options: &Options,
) -> Vec<Option<Result<TokenStream, Vec<Diagnostic>>>> {
    each_module(contracts, |contract, interaction| {
        generate(contract, interaction, sources, options)
    })
}

/// [`generate_all`] without generating: the same module and type names
/// decided, the same entries (`None` for a contract that did not compile)
/// and the same diagnostics, through [`check`]; no tokens are built. The
/// language server runs this on every edit.
///
/// # Errors
/// Per entry: exactly those of [`generate_all`].
pub fn check_all(
    contracts: &[crate::package::CompiledContract],
    sources: &Sources,
) -> Vec<Option<Result<(), Vec<Diagnostic>>>> {
    each_module(contracts, |contract, interaction| {
        check(contract, interaction, sources)
    })
}

/// Runs `each` on every contract that compiled, in order, after giving it
/// its module name: a contract whose module name an earlier one took gets
/// `TQX_CODEGEN_COLLISION` instead (the one rule of [`generate_all`] and
/// [`check_all`]).
fn each_module<T>(
    contracts: &[crate::package::CompiledContract],
    mut each: impl FnMut(&Contract, &Interaction) -> Result<T, Vec<Diagnostic>>,
) -> Vec<Option<Result<T, Vec<Diagnostic>>>> {
    let mut modules: std::collections::BTreeMap<String, &str> = std::collections::BTreeMap::new();
    contracts
        .iter()
        .map(|c| {
            let (Some(contract), Some(interaction)) = (&c.contract, &c.interaction) else {
                return None;
            };
            let module = module_name(&contract.id);
            if let Some(first) = modules.get(&module) {
                return Some(Err(vec![
                    Diagnostic::error(
                        templiqx_contracts::Code::CodegenCollision,
                        format!(
                            "contracts in {first} and {} both generate module `{module}`",
                            c.file
                        ),
                    )
                    .in_file(c.file.clone())
                    .help("contract ids must differ after conversion to snake case"),
                ]));
            }
            modules.insert(module, &c.file);
            Some(each(contract, interaction))
        })
        .collect()
}

/// The field specs of the declared inputs or context fields.
fn root_fields(contract: &Contract, which: &'static str, decls: &[ir::Field]) -> Vec<FieldSpec> {
    let file = contract.loc.file;
    decls
        .iter()
        .map(|f| {
            let declared = match which {
                "inputs" => contract.inputs.get(&f.name),
                _ => contract.context.get(&f.name),
            };
            let key = templiqx_contracts::diagnostic::escape_pointer_token(&f.name);
            FieldSpec {
                name: f.name.to_string(),
                schema: f.schema.clone(),
                required: f.required,
                description: declared.and_then(|d| d.description.clone()),
                loc: Loc::new(file, format!("/{which}/{key}")),
                schema_loc: Loc::new(file, format!("/{which}/{key}/schema")),
            }
        })
        .collect()
}

/// `Inputs`, `Context` and `Output`, and every type they need.
fn root_types(g: &mut Gen<'_>, contract: &Contract, interaction: &Interaction) {
    let inputs = root_fields(contract, "inputs", &interaction.inputs);
    let context = root_fields(contract, "context", &interaction.context);
    let (id, version) = (&contract.id, &contract.version);
    let doc = format!("Typed inputs of contract `{id}` (version {version}).");
    g.struct_item("Inputs", &doc, &inputs, true, Some("Inputs"));
    let doc = format!("Host-supplied context of contract `{id}` (version {version}).");
    g.struct_item("Context", &doc, &context, true, Some("Context"));
    let output_doc = format!("The structured output of contract `{id}` (its `output_schema`).");
    let output_loc = Loc::new(contract.loc.file, "/output_schema");
    let schema = &interaction.output_schema;
    // The output's types, and theirs only, get a partial type each.
    g.partial = true;
    if is_struct(schema) {
        let props = g.props(schema, &output_loc);
        g.struct_item(
            "Output",
            &output_doc,
            &props,
            !schema.additional_properties,
            Some("Output"),
        );
    } else {
        let (ty, partial) = g.ty(schema, "OutputValue", "", &output_loc);
        let nullable = schema.types.contains(JsonType::Null) && !schema.types.is_any();
        let enumerated = schema.enum_values.is_some() && schema.types.is_only(JsonType::String);
        let (ty, partial) = if nullable {
            (
                quote! { ::core::option::Option<#ty> },
                quote! { ::core::option::Option<#partial> },
            )
        } else if enumerated {
            // An enum has no default: the snapshot's value before it is
            // complete.
            (ty, quote! { ::core::option::Option<#partial> })
        } else {
            (ty, partial)
        };
        if g.emit {
            let doc = doc_attr(&output_doc);
            g.items.push(quote! { #doc pub type Output = #ty; });
            g.partials.push(quote! {
                /// `super::Output` as far as it was written while streaming
                /// (`docs/format.md`, "Partial types").
                pub type Output = #partial;
            });
        }
    }
    g.partial = false;
}

/// The contract module around the generated types.
fn module(
    contract: &Contract,
    interaction: &Interaction,
    options: &Options,
    items: &[TokenStream],
    partials: &[TokenStream],
    checks: &[Vec<ir::Check>],
) -> TokenStream {
    let p = private();
    let interaction_tokens = emit_interaction(interaction);
    let contract_fp = Literal::string(&interaction.contract_fingerprint);
    let interaction_fp = Literal::string(&interaction.interaction_fingerprint);
    let id = Literal::string(&contract.id);
    let version = Literal::string(&contract.version);
    let module = Ident::new(&module_name(&contract.id), Span::call_site());
    let module_doc = doc_attr(&match &contract.description {
        Some(d) => format!(
            "Contract `{}` {}: {}",
            contract.id,
            contract.version,
            doc_text(d)
        ),
        None => format!("Contract `{}` {}.", contract.id, contract.version),
    });
    let tracked = options.tracked_files.iter().map(|f| {
        let path = Literal::string(&f.to_string_lossy());
        quote! { const _: &[u8] = ::core::include_bytes!(#path); }
    });
    let fixtures = statics::emit_evals(&eval_fixtures(&contract.evals, checks));
    let evals = if options.eval_tests && !contract.evals.is_empty() {
        let tests = eval_tests(&contract.evals, checks);
        quote! {
            #[cfg(test)]
            mod evals {
                use super::#p;
                #(#tests)*
            }
        }
    } else {
        TokenStream::new()
    };
    let partial_tokens = quote! { #(#partials)* };
    // Only a partial module that names a runtime item imports it.
    let partial_use = if partial_tokens.to_string().contains(RUNTIME) {
        quote! { use super::#p; }
    } else {
        TokenStream::new()
    };
    quote! {
        #module_doc
        #[allow(dead_code)]
        pub mod #module {
            use ::templiqx::__private as #p;
            #(#tracked)*

            /// The contract id.
            pub const CONTRACT_ID: &str = #id;
            /// The contract version.
            pub const CONTRACT_VERSION: &str = #version;
            /// SHA-256 of the canonical JSON of the composed contract.
            pub const CONTRACT_FINGERPRINT: &str = #contract_fp;
            /// SHA-256 of the canonical JSON of the compiled interaction
            /// (including its target capability profile).
            pub const INTERACTION_FINGERPRINT: &str = #interaction_fp;

            #(#items)*

            /// The output as far as it was written while streaming
            /// (`partial::Output`; `docs/format.md`, "Partial types"):
            /// what `execute_partial` shows as the model writes.
            pub type PartialOutput = partial::Output;

            /// The partial types of the output: `Output` and each struct in
            /// it under its own name, every field an `Option` that is
            /// `None` until its value shows anything; strings and arrays
            /// grow, numbers, booleans, enum values and `null` show once
            /// complete, objects are partial in turn (`docs/format.md`,
            /// "Partial types").
            pub mod partial {
                #partial_use
                #partial_tokens
            }

            /// The compiled interaction, as static data.
            pub static INTERACTION: #p::Interaction = #interaction_tokens;

            /// The contract's eval fixtures (`evals`), in declaration
            /// order: each fixture's id, its inputs, context and
            /// `fake_output` as JSON text, and its compiled `expect` checks.
            /// To run one through an adapter: decode its request
            /// (`fixture.inputs()`, `fixture.context()`), `execute` it, and
            /// evaluate its checks against the output
            /// (`fixture.evaluate_checks(&inputs, &context, &executed.output)`).
            pub static EVALS: &[#p::EvalFixture] = #fixtures;

            /// Renders the interaction from typed values: validates them
            /// (bounds, formats), then renders every message.
            ///
            /// # Errors
            /// `TQX_VALUE_INVALID`, `TQX_VALUE_MISSING`, `TQX_FILTER_INPUT`,
            /// `TQX_RENDER_BUDGET` (see the runtime crate).
            pub fn render(
                inputs: &Inputs,
                context: &Context,
            ) -> ::core::result::Result<#p::RenderedInteraction<'static>, #p::RenderError> {
                #p::render(&INTERACTION, inputs, context)
            }

            /// Validates a model output against `output_schema` and decodes it.
            ///
            /// # Errors
            /// `TQX_OUTPUT_SCHEMA` with the pointer of each offending value.
            pub fn decode_output<V: #p::AsValue + ?::core::marker::Sized>(
                output: &V,
            ) -> ::core::result::Result<Output, #p::DecodeError> {
                #p::decode_output(&INTERACTION, output)
            }

            /// Renders the interaction, executes it through `adapter` (the
            /// port's `execute`: capability gate, retries, output
            /// validation, receipt) and decodes the output: `render`,
            /// `adapter.execute` and `decode_output` in one call. The
            /// typed output comes back with the request that was sent, its
            /// receipt, usage and attempts.
            ///
            /// # Errors
            /// `ExecuteError::Render` (`TQX_VALUE_INVALID`,
            /// `TQX_VALUE_MISSING`, `TQX_FILTER_INPUT`,
            /// `TQX_COMPONENT_ARGUMENT`, `TQX_RENDER_BUDGET`; nothing sent),
            /// `ExecuteError::Execution` (`TQX_CAPABILITY_UNSUPPORTED`, the
            /// adapter's `TQX_RUNTIME_*`, `TQX_OUTPUT_SCHEMA`; with the
            /// failure receipt), `ExecuteError::Decode` (`TQX_OUTPUT_SCHEMA`
            /// for a valid output the generated type cannot hold).
            pub fn execute<A: #p::RuntimeAdapter + ?::core::marker::Sized>(
                adapter: &A,
                inputs: &Inputs,
                context: &Context,
            ) -> ::core::result::Result<#p::Executed<Output>, #p::ExecuteError> {
                #p::execute(adapter, &INTERACTION, inputs, context)
            }

            /// `execute`, streaming: the adapter's deltas go to `sink`,
            /// then one terminal event (`Complete` with the receipt, or
            /// `Failed`); a request that does not render sends none.
            ///
            /// # Errors
            /// As `execute`.
            pub fn execute_streaming<A: #p::RuntimeAdapter + ?::core::marker::Sized>(
                adapter: &A,
                inputs: &Inputs,
                context: &Context,
                sink: &mut dyn ::core::ops::FnMut(#p::StreamEvent),
            ) -> ::core::result::Result<#p::Executed<Output>, #p::ExecuteError> {
                #p::execute_streaming(adapter, &INTERACTION, inputs, context, sink)
            }

            /// `execute` through an async adapter; the request renders when
            /// the future is first polled, and the future is `Send`.
            ///
            /// # Errors
            /// As `execute`.
            pub fn execute_async<A: #p::AsyncRuntimeAdapter>(
                adapter: &A,
                inputs: &Inputs,
                context: &Context,
            ) -> impl ::core::future::Future<
                Output = ::core::result::Result<#p::Executed<Output>, #p::ExecuteError>,
            > + ::core::marker::Send {
                #p::execute_async(adapter, &INTERACTION, inputs, context)
            }

            /// `execute_streaming` through an async adapter.
            ///
            /// # Errors
            /// As `execute`.
            pub fn execute_streaming_async<A: #p::AsyncRuntimeAdapter>(
                adapter: &A,
                inputs: &Inputs,
                context: &Context,
                sink: &mut (dyn ::core::ops::FnMut(#p::StreamEvent) + ::core::marker::Send),
            ) -> impl ::core::future::Future<
                Output = ::core::result::Result<#p::Executed<Output>, #p::ExecuteError>,
            > + ::core::marker::Send {
                #p::execute_streaming_async(adapter, &INTERACTION, inputs, context, sink)
            }

            /// `execute_streaming` with the output as it is written: `sink`
            /// gets every stream event (`Streamed::Event`) and, after each
            /// delta that changed what the output shows, a snapshot of the
            /// `PartialOutput` (`Streamed::Partial`: the output so far and
            /// the pointer of the value still being written); then the
            /// typed `Output` comes back with its receipt.
            ///
            /// # Errors
            /// As `execute`.
            pub fn execute_partial<A: #p::RuntimeAdapter + ?::core::marker::Sized>(
                adapter: &A,
                inputs: &Inputs,
                context: &Context,
                sink: &mut dyn ::core::ops::FnMut(#p::Streamed<'_, PartialOutput>),
            ) -> ::core::result::Result<#p::Executed<Output>, #p::ExecuteError> {
                #p::execute_partial(adapter, &INTERACTION, inputs, context, sink)
            }

            /// `execute_partial` through an async adapter.
            ///
            /// # Errors
            /// As `execute`.
            pub fn execute_partial_async<A: #p::AsyncRuntimeAdapter>(
                adapter: &A,
                inputs: &Inputs,
                context: &Context,
                sink: &mut (dyn ::core::ops::FnMut(#p::Streamed<'_, PartialOutput>) + ::core::marker::Send),
            ) -> impl ::core::future::Future<
                Output = ::core::result::Result<#p::Executed<Output>, #p::ExecuteError>,
            > + ::core::marker::Send {
                #p::execute_partial_async(adapter, &INTERACTION, inputs, context, sink)
            }


            #evals
        }
    }
}

/// The name generated code calls every runtime item by: a `use` of
/// `::templiqx::__private` at the top of each generated module (and of its
/// `evals` module), so the code never depends on the host's `use` lines or
/// dependency names, and stays short. No generated item can take the name:
/// types are in camel case, constants upper case, functions and modules
/// are fixed words ([`names`]).
pub(crate) const RUNTIME: &str = "__tqx";

/// The path generated code names every runtime item through (the `use`
/// alias [`RUNTIME`]).
fn private() -> TokenStream {
    let alias = Ident::new(RUNTIME, Span::call_site());
    quote! { #alias }
}

/// `#[doc]` attributes, one per line of `text` (Markdown written by the
/// generator: contract text goes through [`doc_text`] and [`code`] first).
fn doc_attr(text: &str) -> TokenStream {
    let lines = text.lines().map(|l| Literal::string(&format!(" {l}")));
    quote! { #(#[doc = #lines])* }
}

/// Contract text (a description) as Markdown that rustdoc shows as the
/// same text (`docs/format.md`, "Generated Rust", "Doc comments"): no
/// doctest, no HTML, no intra-doc link, whatever the text holds. Every
/// character Markdown gives a meaning to (`` ` ``, `*`, `_`, `[`, `]`,
/// `<`, `>`, `#`, `|`, `~`, `&`, `\`) is backslash-escaped, so no fence,
/// emphasis, link, tag or heading starts; leading white space is dropped,
/// so no indented code block starts; a URL becomes an autolink
/// (`<https://…>`), which rustdoc's `bare_urls` lint asks for.
pub fn doc_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for (i, line) in text.lines().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let mut rest = line.trim_start();
        while !rest.is_empty() {
            let url = ["https://", "http://"]
                .iter()
                .filter_map(|scheme| rest.find(scheme))
                .min();
            let plain = url.unwrap_or(rest.len());
            let line_start = rest.len() == line.trim_start().len();
            escape_markdown(&rest[..plain], line_start, &mut out);
            rest = &rest[plain..];
            if url.is_some() {
                let end = rest
                    .find(|c: char| c.is_whitespace() || matches!(c, '<' | '>' | '`' | '"'))
                    .unwrap_or(rest.len());
                // Sentence punctuation after a URL is not part of it.
                let end = rest[..end]
                    .trim_end_matches(['.', ',', ';', ':', ')', '!', '?'])
                    .len();
                out.push('<');
                out.push_str(&rest[..end]);
                out.push('>');
                rest = &rest[end..];
            }
        }
    }
    out
}

/// Backslash-escapes what Markdown or rustdoc would read as structure or
/// typography in `text` (CommonMark lets any ASCII punctuation be escaped):
/// inline markup, HTML, links, headings, tables, strikethrough, list and
/// thematic-break markers (`-`, `+`, `=` of setext headings, `1.`/`1)` at
/// a line start; a `-` beside another `-`), and rustdoc's smart punctuation
/// (`"`, `'`, `--`, `...`). A hyphen inside a word stays unescaped.
fn escape_markdown(text: &str, line_start: bool, out: &mut String) {
    let mut rest = text;
    if line_start {
        // An ordered-list marker: digits, then `.` or `)`.
        let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits > 0 && rest[digits..].starts_with(['.', ')']) {
            out.push_str(&rest[..digits]);
            out.push('\\');
            out.push_str(&rest[digits..=digits]);
            rest = &rest[digits + 1..];
        }
    }
    let mut chars = rest.chars().peekable();
    let mut first = line_start;
    let mut previous = None;
    while let Some(c) = chars.next() {
        let next = chars.peek().copied();
        let escape = match c {
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '#' | '|' | '~' | '&' | '"' | '\'' => {
                true
            }
            // List markers and setext underlines start a line; a hyphen
            // beside another is a rule or a smart dash. A hyphen inside a
            // word (`schema-valid`) stays as it is.
            '-' => first || previous == Some('-') || next == Some('-'),
            '+' | '=' => first,
            '.' => next == Some('.'),
            _ => false,
        };
        if escape {
            out.push('\\');
        }
        out.push(c);
        first = false;
        previous = Some(c);
    }
}

/// A Markdown code span showing `text` verbatim (a property name, an enum
/// value): delimited by one backtick more than the longest run inside,
/// padded when it starts or ends with a backtick; line breaks become
/// spaces.
pub(crate) fn code(text: &str) -> String {
    let text = text.replace(['\n', '\r'], " ");
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') || text.trim().is_empty() {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{text}{pad}{fence}")
}

/// The eval fixtures as data (`EVALS`): each fixture's values as JSON
/// text (keys in the order written) and its compiled checks (`checks`,
/// one list per fixture).
fn eval_fixtures(evals: &[EvalDecl], checks: &[Vec<ir::Check>]) -> Vec<EvalFixture> {
    evals
        .iter()
        .enumerate()
        .map(|(i, e)| EvalFixture {
            id: e.id.clone().into(),
            inputs_json: serde_json::Value::Object(e.inputs.clone())
                .to_string()
                .into(),
            context_json: serde_json::Value::Object(e.context.clone())
                .to_string()
                .into(),
            fake_output_json: e.fake_output.as_ref().map(|v| v.to_string().into()),
            checks: Seq::Owned(checks.get(i).cloned().unwrap_or_default()),
            // Rows stay in their file: by path and digest, never embedded
            // (`docs/format.md`, "Datasets").
            dataset: e.dataset.as_ref().map(|d| DatasetRef {
                path: d.path.clone().into(),
                sha256: d.sha256.clone().into(),
            }),
        })
        .collect()
}

/// One `#[test]` per eval fixture, named by [`TestNames`], running the
/// fixture's entry of `EVALS`. A fixture with a `fake_output` and `expect`
/// checks (`checks`, one list per fixture) also evaluates its checks
/// against the output. A dataset entry has none: its rows were checked
/// when the contract compiled, and are not embedded.
fn eval_tests(evals: &[EvalDecl], checks: &[Vec<ir::Check>]) -> Vec<TokenStream> {
    let p = private();
    let mut used = TestNames::default();
    evals
        .iter()
        .enumerate()
        .filter(|(_, e)| e.dataset.is_none())
        .map(|(i, e)| {
            let test = Ident::new(&used.fresh(&e.id), Span::call_site());
            let checked = e.fake_output.is_some() && checks.get(i).is_some_and(|c| !c.is_empty());
            let doc = Literal::string(&if checked {
                format!(
                    " Eval fixture {}: render it, validate `fake_output`, decode it, and check its `expect`.",
                    code(&e.id)
                )
            } else {
                format!(
                    " Eval fixture {}: render it, validate `fake_output`, decode it.",
                    code(&e.id)
                )
            });
            let index = Literal::usize_unsuffixed(i);
            quote! {
                #[doc = #doc]
                #[test]
                fn #test() {
                    #p::run_eval::<super::Inputs, super::Context, super::Output>(&super::INTERACTION, &super::EVALS[#index]);
                }
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{code, doc_text};

    #[test]
    fn contract_text_is_escaped_markdown_and_names_are_code_spans() {
        assert_eq!(
            doc_text("The city of the sender."),
            "The city of the sender."
        );
        assert_eq!(
            doc_text("```\nlet x = <answer>;\n```"),
            "\\`\\`\\`\nlet x = \\<answer\\>;\n\\`\\`\\`"
        );
        assert_eq!(doc_text("    indented code"), "indented code");
        assert_eq!(
            doc_text("[REDACTED] *a* # b"),
            "\\[REDACTED\\] \\*a\\* \\# b"
        );
        assert_eq!(
            doc_text("see https://example.com/a_b, and http://x.y"),
            "see <https://example.com/a_b>, and <http://x.y>"
        );
        assert_eq!(code("name"), "`name`");
        assert_eq!(code("a`b"), "``a`b``");
        assert_eq!(code("`x`"), "`` `x` ``");
        assert_eq!(code("two\nlines"), "`two lines`");
    }
}
