//! Rust code generation: a compiled contract becomes a module with typed
//! `Inputs`, `Context` and `Output` types, the interaction as static data,
//! fingerprint constants, typed entry points and eval tests.
//!
//! Type mapping (DESIGN section 4): string → `String` (a string `enum` → a
//! Rust enum with serde renames), integer → `i64`, number → `f64`, boolean →
//! `bool`, array → `Vec<T>`, object with properties → a struct
//! (`additionalProperties: false` → `deny_unknown_fields`; otherwise extra
//! members are kept in a flattened map so nothing is lost), object without
//! properties → a JSON map, not required or nullable → `Option<T>`,
//! anything unconstrained → `serde_json::Value`.
//!
//! Generated code names runtime items only through `::templiqx::__private`,
//! so it does not depend on the host's `use` lines; it is deterministic
//! (declaration order, no hashing) and carries doc comments.

use crate::dto::{Contract, EvalDecl, Loc};
use crate::source::Sources;
use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::{format_ident, quote};
use std::collections::BTreeSet;
use std::path::PathBuf;
use templiqx_contracts::ir::{self, Expr, Filter, Node, Root, Segment};
use templiqx_contracts::{
    Code, Diagnostic, Interaction, IrValue, JsonType, Number, Schema, TypeSet,
};

/// What to generate besides the types and the interaction.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Emit each eval fixture as a `#[test]` (under `#[cfg(test)]`).
    pub eval_tests: bool,
    /// Absolute paths of every file read, referenced with `include_bytes!`
    /// so that cargo rebuilds the host when one changes (askama's technique).
    pub tracked_files: Vec<PathBuf>,
}

/// The module name for a contract id: ASCII snake case, never a keyword
/// (`bli-61-date-term-extraction` → `bli_61_date_term_extraction`).
pub fn module_name(id: &str) -> String {
    let mut s = snake(id);
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    if is_keyword(&s) {
        s.push('_');
    }
    s
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
    let mut g = Gen {
        sources,
        items: Vec::new(),
        names: BTreeSet::new(),
        diags: Vec::new(),
    };
    for reserved in ["Inputs", "Context", "Output", "INTERACTION"] {
        g.names.insert(reserved.to_owned());
    }
    let file = contract.loc.file;
    let fields = |which: &'static str, decls: &[ir::Field]| -> Vec<FieldSpec> {
        decls
            .iter()
            .map(|f| FieldSpec {
                name: f.name.to_string(),
                schema: f.schema.clone(),
                required: f.required,
                description: contract
                    .inputs
                    .get(&f.name)
                    .filter(|_| which == "inputs")
                    .or_else(|| contract.context.get(&f.name).filter(|_| which == "context"))
                    .and_then(|d| d.description.clone()),
                loc: Loc::new(
                    file,
                    format!(
                        "/{which}/{}",
                        templiqx_contracts::diagnostic::escape_pointer_token(&f.name)
                    ),
                ),
                schema_loc: Loc::new(
                    file,
                    format!(
                        "/{which}/{}/schema",
                        templiqx_contracts::diagnostic::escape_pointer_token(&f.name)
                    ),
                ),
            })
            .collect()
    };
    let inputs = fields("inputs", &interaction.inputs);
    let context = fields("context", &interaction.context);
    g.struct_item(
        "Inputs",
        &format!(
            "Typed inputs of contract `{}` (version {}).",
            contract.id, contract.version
        ),
        &inputs,
        true,
    );
    g.struct_item(
        "Context",
        &format!(
            "Host-supplied context of contract `{}` (version {}).",
            contract.id, contract.version
        ),
        &context,
        true,
    );
    let output_doc = format!(
        "The structured output of contract `{}` (its `output_schema`).",
        contract.id
    );
    let output_loc = Loc::new(file, "/output_schema");
    if is_struct(&interaction.output_schema) {
        let props = g.props(&interaction.output_schema, &output_loc);
        g.struct_item(
            "Output",
            &output_doc,
            &props,
            !interaction.output_schema.additional_properties,
        );
    } else {
        let ty = g.ty(&interaction.output_schema, "OutputValue", "", &output_loc);
        let schema = &interaction.output_schema;
        let ty = if schema.types.contains(JsonType::Null) && !schema.types.is_any() {
            quote! { ::core::option::Option<#ty> }
        } else {
            ty
        };
        let doc = doc_attr(&output_doc);
        g.items.push(quote! { #doc pub type Output = #ty; });
    }
    if !g.diags.is_empty() {
        return Err(g.diags);
    }

    let p = private();
    let interaction_tokens = emit_interaction(interaction);
    let contract_fp = Literal::string(&interaction.contract_fingerprint);
    let interaction_fp = Literal::string(&interaction.interaction_fingerprint);
    let id = Literal::string(&contract.id);
    let version = Literal::string(&contract.version);
    let module = Ident::new(&module_name(&contract.id), Span::call_site());
    let module_doc = doc_attr(&match &contract.description {
        Some(d) => format!("Contract `{}` {}: {d}", contract.id, contract.version),
        None => format!("Contract `{}` {}.", contract.id, contract.version),
    });
    let tracked = options.tracked_files.iter().map(|f| {
        let path = Literal::string(&f.to_string_lossy());
        quote! { const _: &[u8] = ::core::include_bytes!(#path); }
    });
    let evals = if options.eval_tests && !contract.evals.is_empty() {
        let tests = eval_tests(&contract.evals);
        quote! {
            #[cfg(test)]
            mod evals {
                #(#tests)*
            }
        }
    } else {
        TokenStream::new()
    };
    let items = &g.items;
    Ok(quote! {
        #module_doc
        #[allow(dead_code)]
        pub mod #module {
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

            /// The compiled interaction, as static data.
            pub static INTERACTION: #p::Interaction = #interaction_tokens;

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
            pub fn decode_output(
                output: &#p::serde_json::Value,
            ) -> ::core::result::Result<Output, #p::DecodeError> {
                #p::decode_output(&INTERACTION, output)
            }

            #evals
        }
    })
}

fn private() -> TokenStream {
    quote! { ::templiqx::__private }
}

fn doc_attr(text: &str) -> TokenStream {
    let lines = text.lines().map(|l| Literal::string(&format!(" {l}")));
    quote! { #(#[doc = #lines])* }
}

fn is_struct(s: &Schema) -> bool {
    s.types.is_only(JsonType::Object)
        && !s.properties.is_empty()
        && !s.types.contains(JsonType::Null)
}

struct FieldSpec {
    name: String,
    schema: Schema,
    required: bool,
    description: Option<String>,
    /// Where the property's key is (collision diagnostics point here).
    loc: Loc,
    /// Where its schema is (nested properties are below this).
    schema_loc: Loc,
}

struct Gen<'a> {
    sources: &'a Sources,
    items: Vec<TokenStream>,
    names: BTreeSet<String>,
    diags: Vec<Diagnostic>,
}

impl Gen<'_> {
    /// A fresh type name: the preferred one, else prefixed with the parent
    /// type's name, else that with a numeric suffix. Deterministic.
    fn type_name(&mut self, preferred: &str, parent: &str) -> String {
        let mut base = if preferred.is_empty() {
            "Value".to_owned()
        } else {
            preferred.to_owned()
        };
        if base.starts_with(|c: char| c.is_ascii_digit()) {
            base.insert(0, 'T');
        }
        if self.names.insert(base.clone()) {
            return base;
        }
        let prefixed = format!("{parent}{base}");
        if self.names.insert(prefixed.clone()) {
            return prefixed;
        }
        (2..)
            .map(|n| format!("{prefixed}{n}"))
            .find(|c| self.names.insert(c.clone()))
            .unwrap_or(prefixed)
    }

    fn props(&mut self, schema: &Schema, loc: &Loc) -> Vec<FieldSpec> {
        schema
            .properties
            .iter()
            .map(|(name, s)| FieldSpec {
                name: name.to_string(),
                schema: s.clone(),
                required: schema.is_required(name),
                description: s.description.as_ref().map(|d| d.to_string()),
                loc: loc.child("properties").child(name),
                schema_loc: loc.child("properties").child(name),
            })
            .collect()
    }

    /// Emits a struct with serde derives and an `ObjectView` impl.
    fn struct_item(&mut self, name: &str, doc: &str, fields: &[FieldSpec], closed: bool) {
        let p = private();
        let ident = Ident::new(name, Span::call_site());
        let parent = name.to_owned();
        let mut seen: Vec<(String, &FieldSpec)> = Vec::new();
        let mut defs = Vec::new();
        let mut gets = Vec::new();
        let mut entries = Vec::new();
        // `len` without walking `entries` (which boxes an iterator): the
        // required members, plus each optional member that is set.
        let mut required_members = 0usize;
        let mut optional_members = Vec::new();
        for f in fields {
            let rust = field_ident(&f.name);
            if let Some((_, first)) = seen.iter().find(|(r, _)| *r == rust) {
                let d = self
                    .sources
                    .error_at_key(
                        Code::CodegenCollision,
                        format!(
                            "properties `{}` and `{}` both become the Rust field `{rust}`",
                            first.name, f.name
                        ),
                        &f.loc,
                    )
                    .help("rename one of the properties; generated field names must be unique");
                self.diags.push(d);
                continue;
            }
            seen.push((rust.clone(), f));
            let fid = ident_tokens(&rust);
            let nullable = f.schema.types.contains(JsonType::Null) && !f.schema.types.is_any();
            let inner = self.ty(&f.schema, &pascal(&f.name), &parent, &f.schema_loc);
            // Optional and nullable: `None` is absent, `Some(None)` is null.
            let ty = match (f.required, nullable) {
                (true, false) => inner,
                (true, true) | (false, false) => quote! { ::core::option::Option<#inner> },
                (false, true) => {
                    quote! { ::core::option::Option<::core::option::Option<#inner>> }
                }
            };
            let mut attrs = Vec::new();
            if rust != f.name {
                let n = Literal::string(&f.name);
                attrs.push(quote! { rename = #n });
            }
            if !f.required {
                attrs.push(
                    quote! { default, skip_serializing_if = "::core::option::Option::is_none" },
                );
            }
            if !f.required && nullable {
                attrs.push(quote! { deserialize_with = "::templiqx::__private::double_option" });
            }
            let serde_attr = if attrs.is_empty() {
                quote! {}
            } else {
                quote! { #[serde(#(#attrs),*)] }
            };
            let fdoc = doc_attr(&field_doc(f));
            defs.push(quote! { #fdoc #serde_attr pub #fid: #ty, });
            let key = Literal::string(&f.name);
            // An unset optional field is absent; a null of a required
            // nullable field is present and null.
            let view = if !f.required {
                quote! { self.#fid.as_ref().map(#p::AsValue::as_value) }
            } else {
                quote! { ::core::option::Option::Some(#p::AsValue::as_value(&self.#fid)) }
            };
            gets.push(quote! { #key => #view, });
            entries.push((f.name.clone(), quote! { (#key, #view) }));
            if f.required {
                required_members += 1;
            } else {
                optional_members.push(quote! { usize::from(self.#fid.is_some()) });
            }
        }
        let extra_name = if seen.iter().any(|(r, _)| r == "additional_properties") {
            "additional_properties_"
        } else {
            "additional_properties"
        };
        let eid = Ident::new(extra_name, Span::call_site());
        // Members in canonical (RFC 8785) key order, so canonical JSON of a
        // closed struct needs no sort.
        entries.sort_by(|(a, _), (b, _)| templiqx_contracts::canonical::utf16_cmp(a, b));
        let entries: Vec<&TokenStream> = entries.iter().map(|(_, t)| t).collect();
        let count = entries.len();
        let declared_names: Vec<Literal> =
            seen.iter().map(|(_, f)| Literal::string(&f.name)).collect();
        let declared = quote! {
            let entries: [(&'static str, ::core::option::Option<#p::ValueRef<'_>>); #count] = [#(#entries),*];
            let declared = entries.into_iter().filter_map(|(k, v)| v.map(|v| (k, v)));
        };
        let (extra, fallback, entries_impl) = if closed {
            (
                TokenStream::new(),
                quote! { _ => ::core::option::Option::None, },
                quote! { #declared ::std::boxed::Box::new(declared) },
            )
        } else {
            (
                quote! {
                    /// Members not declared in `properties` (the schema allows
                    /// them), kept so that nothing is lost.
                    #[serde(flatten)]
                    pub #eid: #p::serde_json::Map<::std::string::String, #p::serde_json::Value>,
                },
                quote! { other => self.#eid.get(other).map(#p::AsValue::as_value), },
                quote! {
                    // A member named like a declared property is the
                    // declared one; the extra map never shadows it.
                    const DECLARED: &[&str] = &[#(#declared_names),*];
                    #declared
                    ::std::boxed::Box::new(
                        declared.chain(
                            self.#eid
                                .iter()
                                .filter(|(k, _)| !DECLARED.contains(&k.as_str()))
                                .map(|(k, v)| (k.as_str(), #p::AsValue::as_value(v))),
                        ),
                    )
                },
            )
        };
        let derive_default = if fields.iter().all(|f| !f.required) {
            quote! { Default, }
        } else {
            TokenStream::new()
        };
        let deny = if closed {
            quote! { #[serde(deny_unknown_fields)] }
        } else {
            quote! {}
        };
        let sdoc = doc_attr(doc);
        let mut terms = Vec::new();
        if required_members > 0 {
            terms.push(quote! { #required_members });
        }
        terms.extend(optional_members);
        if !closed {
            let declared_names: Vec<Literal> =
                seen.iter().map(|(_, f)| Literal::string(&f.name)).collect();
            terms.push(quote! {
                self.#eid.keys().filter(|k| ![#(#declared_names),*].contains(&k.as_str())).count()
            });
        }
        let len_impl = if terms.is_empty() {
            quote! { 0 }
        } else {
            quote! { #(#terms)+* }
        };
        let get_body = if gets.is_empty() && closed {
            // No members at all: nothing to match on.
            quote! {
                let _ = key;
                ::core::option::Option::None
            }
        } else {
            quote! {
                match key {
                    #(#gets)*
                    #fallback
                }
            }
        };
        self.items.push(quote! {
            #sdoc
            #[derive(Debug, Clone, PartialEq, #derive_default #p::serde::Serialize, #p::serde::Deserialize)]
            #[serde(crate = "::templiqx::__private::serde")]
            #deny
            pub struct #ident {
                #(#defs)*
                #extra
            }

            impl #p::ObjectView for #ident {
                fn get(&self, key: &str) -> ::core::option::Option<#p::ValueRef<'_>> {
                    #get_body
                }
                fn len(&self) -> usize {
                    #len_impl
                }
                fn entries(&self) -> ::std::boxed::Box<dyn ::core::iter::Iterator<Item = (&str, #p::ValueRef<'_>)> + '_> {
                    #entries_impl
                }
                fn entries_sorted(&self) -> bool {
                    #closed
                }
            }

            impl #p::AsValue for #ident {
                fn as_value(&self) -> #p::ValueRef<'_> {
                    #p::ValueRef::Object(self)
                }
            }
        });
    }

    /// The Rust type of a schema (without the `Option` for nullability).
    fn ty(&mut self, s: &Schema, preferred: &str, parent: &str, loc: &Loc) -> TokenStream {
        let p = private();
        let t = s.types.without_null();
        if t.is_any() || t.iter().count() != 1 {
            return quote! { #p::serde_json::Value };
        }
        match t.iter().next() {
            Some(JsonType::String) => match &s.enum_values {
                Some(values) if values.iter().all(|v| matches!(v, IrValue::String(_))) => {
                    let name = self.type_name(preferred, parent);
                    self.enum_item(&name, s, values);
                    let id = Ident::new(&name, Span::call_site());
                    quote! { #id }
                }
                _ => quote! { ::std::string::String },
            },
            Some(JsonType::Integer) => quote! { i64 },
            Some(JsonType::Number) => quote! { f64 },
            Some(JsonType::Boolean) => quote! { bool },
            Some(JsonType::Array) => {
                let item = match &s.items {
                    Some(items) => self.ty(
                        items,
                        &format!("{preferred}Item"),
                        parent,
                        &loc.child("items"),
                    ),
                    None => quote! { #p::serde_json::Value },
                };
                quote! { ::std::vec::Vec<#item> }
            }
            Some(JsonType::Object) if !s.properties.is_empty() => {
                let name = self.type_name(preferred, parent);
                let props = self.props(s, loc);
                let doc = s
                    .description
                    .as_ref()
                    .map(|d| d.to_string())
                    .unwrap_or_else(|| format!("The object at `{}`.", loc.pointer));
                self.struct_item(&name, &doc, &props, !s.additional_properties);
                let id = Ident::new(&name, Span::call_site());
                quote! { #id }
            }
            Some(JsonType::Object) => {
                quote! { #p::serde_json::Map<::std::string::String, #p::serde_json::Value> }
            }
            _ => quote! { #p::serde_json::Value },
        }
    }

    fn enum_item(&mut self, name: &str, s: &Schema, values: &[IrValue]) {
        let p = private();
        let ident = Ident::new(name, Span::call_site());
        let mut used = BTreeSet::new();
        let mut variants = Vec::new();
        let mut arms = Vec::new();
        for v in values {
            let IrValue::String(text) = v else { continue };
            let mut base = pascal(text);
            if base.is_empty() || base.starts_with(|c: char| c.is_ascii_digit()) {
                base.insert(0, 'V');
            }
            if base == "Self" {
                base.push_str("Value");
            }
            let mut variant = base.clone();
            let mut n = 2;
            while !used.insert(variant.clone()) {
                variant = format!("{base}{n}");
                n += 1;
            }
            let vid = Ident::new(&variant, Span::call_site());
            let lit = Literal::string(text);
            let vdoc = Literal::string(&if text.is_empty() {
                " The empty string.".to_owned()
            } else {
                format!(" `{text}`")
            });
            variants.push(quote! { #[doc = #vdoc] #[serde(rename = #lit)] #vid, });
            arms.push(quote! { #ident::#vid => #lit, });
        }
        let doc = doc_attr(
            &s.description
                .as_ref()
                .map(|d| d.to_string())
                .unwrap_or_else(|| format!("The values of `{name}`.")),
        );
        self.items.push(quote! {
            #doc
            #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, #p::serde::Serialize, #p::serde::Deserialize)]
            #[serde(crate = "::templiqx::__private::serde")]
            pub enum #ident {
                #(#variants)*
            }

            impl #ident {
                /// The value as written in the schema.
                #[must_use]
                pub const fn as_str(self) -> &'static str {
                    match self {
                        #(#arms)*
                    }
                }
            }

            impl #p::AsValue for #ident {
                fn as_value(&self) -> #p::ValueRef<'_> {
                    #p::ValueRef::String(self.as_str())
                }
            }
        });
    }
}

fn field_doc(f: &FieldSpec) -> String {
    let mut doc = f
        .description
        .clone()
        .unwrap_or_else(|| format!("`{}`", f.name));
    let nullable = f.schema.types.contains(JsonType::Null) && !f.schema.types.is_any();
    doc.push_str(match (f.required, nullable) {
        (true, false) => "",
        (true, true) => "\n\nRequired and nullable: `None` is `null`.",
        (false, false) => "\n\nOptional: `None` means absent.",
        (false, true) => "\n\nOptional and nullable: `None` is absent, `Some(None)` is `null`.",
    });
    doc
}

fn eval_tests(evals: &[EvalDecl]) -> Vec<TokenStream> {
    let p = private();
    let mut used = BTreeSet::new();
    evals
        .iter()
        .map(|e| {
            let mut name = snake(&e.id);
            if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
                name.insert_str(0, "eval_");
            }
            if is_keyword(&name) {
                name.push('_');
            }
            let base = name.trim_end_matches('_').to_owned();
            let mut n = 2;
            while !used.insert(name.clone()) {
                name = format!("{base}_{n}");
                n += 1;
            }
            let test = Ident::new(&name, Span::call_site());
            let inputs = Literal::string(&serde_json::Value::Object(e.inputs.clone()).to_string());
            let context = Literal::string(&serde_json::Value::Object(e.context.clone()).to_string());
            let fake = match &e.fake_output {
                Some(v) => {
                    let l = Literal::string(&v.to_string());
                    quote! { ::core::option::Option::Some(#l) }
                }
                None => quote! { ::core::option::Option::None },
            };
            let doc = Literal::string(&format!(" Eval fixture `{}`: render it, validate `fake_output`, decode it.", e.id));
            quote! {
                #[doc = #doc]
                #[test]
                fn #test() {
                    #p::run_eval::<super::Inputs, super::Context, super::Output>(&super::INTERACTION, #inputs, #context, #fake);
                }
            }
        })
        .collect()
}

// ---- Names ----------------------------------------------------------------

/// `s` with non-ASCII characters transliterated to ASCII (`naïve` →
/// `naive`, `größe` → `grosse`, `名前` → `Ming Qian`); characters without a
/// transliteration become a space, which the case conversions treat as a
/// word break. ASCII text is returned unchanged, without copying.
fn ascii(s: &str) -> std::borrow::Cow<'_, str> {
    if s.is_ascii() {
        std::borrow::Cow::Borrowed(s)
    } else {
        std::borrow::Cow::Owned(deunicode::deunicode_with_tofu(s, " "))
    }
}

/// ASCII snake case of [`ascii`]`(s)`: letters lower-cased, every run of
/// other characters one `_`.
fn snake(s: &str) -> String {
    let s = ascii(s);
    let mut out = String::with_capacity(s.len());
    let mut prev_lower = false;
    for c in s.chars() {
        if c.is_ascii_alphanumeric() {
            if c.is_ascii_uppercase() && prev_lower && !out.ends_with('_') {
                out.push('_');
            }
            prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
            out.push(c.to_ascii_lowercase());
        } else {
            if !out.ends_with('_') && !out.is_empty() {
                out.push('_');
            }
            prev_lower = false;
        }
    }
    while out.ends_with('_') {
        out.pop();
    }
    out
}

/// ASCII Pascal case of the alphanumeric runs of [`ascii`]`(s)`
/// (`merge_data` → `MergeData`, `größe` → `Grosse`).
fn pascal(s: &str) -> String {
    ascii(s)
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut cs = w.chars();
            match cs.next() {
                Some(f) => f.to_ascii_uppercase().to_string() + cs.as_str(),
                None => String::new(),
            }
        })
        .collect()
}

fn is_keyword(s: &str) -> bool {
    matches!(
        s,
        "as" | "break"
            | "const"
            | "continue"
            | "crate"
            | "else"
            | "enum"
            | "extern"
            | "false"
            | "fn"
            | "for"
            | "if"
            | "impl"
            | "in"
            | "let"
            | "loop"
            | "match"
            | "mod"
            | "move"
            | "mut"
            | "pub"
            | "ref"
            | "return"
            | "self"
            | "Self"
            | "static"
            | "struct"
            | "super"
            | "trait"
            | "true"
            | "type"
            | "unsafe"
            | "use"
            | "where"
            | "while"
            | "async"
            | "await"
            | "dyn"
            | "abstract"
            | "become"
            | "box"
            | "do"
            | "final"
            | "macro"
            | "override"
            | "priv"
            | "typeof"
            | "unsized"
            | "virtual"
            | "yield"
            | "try"
            | "gen"
    )
}

/// The Rust field name of a property, in snake case (`firstName` and
/// `first-name` → `first_name`, `type` → `r#type`, `self` → `self_`,
/// `2fa` → `_2fa`; non-ASCII letters are transliterated: `naïve` → `naive`,
/// `名前` → `ming_qian`).
pub fn field_ident(name: &str) -> String {
    let mut s = snake(name);
    if name.starts_with('_') {
        s.insert(0, '_');
    }
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    match s.as_str() {
        "self" | "Self" | "crate" | "super" | "_" => format!("{s}_"),
        k if is_keyword(k) => format!("r#{k}"),
        _ => s,
    }
}

fn ident_tokens(name: &str) -> TokenStream {
    match name.strip_prefix("r#") {
        Some(raw) => {
            let id = Ident::new_raw(raw, Span::call_site());
            quote! { #id }
        }
        None => {
            let id = Ident::new(name, Span::call_site());
            quote! { #id }
        }
    }
}

// ---- Static IR ----------------------------------------------------------------

fn s(text: &str) -> TokenStream {
    let p = private();
    let l = Literal::string(text);
    quote! { #p::Str::Borrowed(#l) }
}

fn seq<T>(items: &[T], f: impl Fn(&T) -> TokenStream) -> TokenStream {
    let p = private();
    if items.is_empty() {
        return quote! { #p::Seq::EMPTY };
    }
    let items = items.iter().map(f);
    quote! { #p::Seq::Static(&[#(#items),*]) }
}

fn opt<T>(v: &Option<T>, f: impl Fn(&T) -> TokenStream) -> TokenStream {
    match v {
        Some(x) => {
            let t = f(x);
            quote! { ::core::option::Option::Some(#t) }
        }
        None => quote! { ::core::option::Option::None },
    }
}

fn number(n: &Number) -> TokenStream {
    let p = private();
    match *n {
        Number::I64(i) => {
            let l = Literal::i64_suffixed(i);
            quote! { #p::Number::I64(#l) }
        }
        Number::U64(u) => {
            let l = Literal::u64_suffixed(u);
            quote! { #p::Number::U64(#l) }
        }
        Number::F64(f) => {
            let l = Literal::f64_suffixed(if f.is_finite() { f } else { 0.0 });
            quote! { #p::Number::F64(#l) }
        }
    }
}

fn ir_value(v: &IrValue) -> TokenStream {
    let p = private();
    match v {
        IrValue::Null => quote! { #p::IrValue::Null },
        IrValue::Bool(b) => quote! { #p::IrValue::Bool(#b) },
        IrValue::Number(n) => {
            let n = number(n);
            quote! { #p::IrValue::Number(#n) }
        }
        IrValue::String(t) => {
            let t = s(t);
            quote! { #p::IrValue::String(#t) }
        }
        IrValue::Array(items) => {
            let items = seq(items, ir_value);
            quote! { #p::IrValue::Array(#items) }
        }
        IrValue::Object(entries) => {
            let entries = seq(entries, |(k, v)| {
                let k = s(k);
                let v = ir_value(v);
                quote! { (#k, #v) }
            });
            quote! { #p::IrValue::Object(#entries) }
        }
    }
}

fn type_set(t: TypeSet) -> TokenStream {
    let p = private();
    let mut members = t.iter().map(|ty| {
        let v = format_ident!(
            "{}",
            match ty {
                JsonType::Null => "Null",
                JsonType::Boolean => "Boolean",
                JsonType::Integer => "Integer",
                JsonType::Number => "Number",
                JsonType::String => "String",
                JsonType::Array => "Array",
                JsonType::Object => "Object",
            }
        );
        quote! { #p::JsonType::#v }
    });
    match members.next() {
        None => quote! { #p::TypeSet::ANY },
        Some(first) => quote! { #p::TypeSet::of(#first) #(.with(#members))* },
    }
}

/// A schema literal naming only the keywords it uses; the rest come from
/// `Schema::ANY`.
fn schema(sc: &Schema) -> TokenStream {
    let p = private();
    let mut fields: Vec<TokenStream> = Vec::new();
    if !sc.types.is_any() {
        let t = type_set(sc.types);
        fields.push(quote! { types: #t });
    }
    if !sc.properties.is_empty() {
        let properties = seq(&sc.properties, |(k, v)| {
            let k = s(k);
            let v = schema(v);
            quote! { (#k, #v) }
        });
        fields.push(quote! { properties: #properties });
    }
    if !sc.required.is_empty() {
        let required = seq(&sc.required, |r| s(r));
        fields.push(quote! { required: #required });
    }
    if !sc.additional_properties {
        fields.push(quote! { additional_properties: false });
    }
    if let Some(items) = &sc.items {
        let i = schema(items);
        fields.push(quote! { items: ::core::option::Option::Some(#p::Ptr::Static(&#i)) });
    }
    if let Some(e) = &sc.enum_values {
        let e = seq(e, ir_value);
        fields.push(quote! { enum_values: ::core::option::Option::Some(#e) });
    }
    if let Some(c) = &sc.const_value {
        let c = ir_value(c);
        fields.push(quote! { const_value: ::core::option::Option::Some(#c) });
    }
    for (name, v) in [
        ("min_length", sc.min_length),
        ("max_length", sc.max_length),
        ("min_items", sc.min_items),
        ("max_items", sc.max_items),
    ] {
        if let Some(v) = v {
            let (id, l) = (format_ident!("{name}"), Literal::u64_suffixed(v));
            fields.push(quote! { #id: ::core::option::Option::Some(#l) });
        }
    }
    for (name, v) in [
        ("minimum", sc.minimum),
        ("maximum", sc.maximum),
        ("exclusive_minimum", sc.exclusive_minimum),
        ("exclusive_maximum", sc.exclusive_maximum),
    ] {
        if let Some(v) = v {
            let (id, n) = (format_ident!("{name}"), number(&v));
            fields.push(quote! { #id: ::core::option::Option::Some(#n) });
        }
    }
    if let Some(f) = sc.format {
        let f = match f {
            templiqx_contracts::Format::Date => quote! { #p::Format::Date },
            templiqx_contracts::Format::DateTime => quote! { #p::Format::DateTime },
        };
        fields.push(quote! { format: ::core::option::Option::Some(#f) });
    }
    if let Some(t) = &sc.title {
        let t = s(t);
        fields.push(quote! { title: ::core::option::Option::Some(#t) });
    }
    if let Some(d) = &sc.description {
        let d = s(d);
        fields.push(quote! { description: ::core::option::Option::Some(#d) });
    }
    quote! { #p::Schema { #(#fields,)* ..#p::Schema::ANY } }
}

fn expr(e: &Expr) -> TokenStream {
    let p = private();
    match e {
        Expr::Ref(path) => {
            let root = match path.root {
                Root::Inputs => quote! { #p::ir::Root::Inputs },
                Root::Context => quote! { #p::ir::Root::Context },
                Root::Local(slot) => quote! { #p::ir::Root::Local(#slot) },
            };
            let segments = seq(&path.segments, |seg| match seg {
                Segment::Key(k) => {
                    let k = s(k);
                    quote! { #p::ir::Segment::Key(#k) }
                }
                Segment::Index(i) => quote! { #p::ir::Segment::Index(#i) },
            });
            let source = s(&path.source);
            quote! { #p::ir::Expr::Ref(#p::ir::Path { root: #root, segments: #segments, source: #source }) }
        }
        Expr::Literal(v) => {
            let v = ir_value(v);
            quote! { #p::ir::Expr::Literal(#v) }
        }
        Expr::Equals(a, b) => {
            let (a, b) = (expr(a), expr(b));
            quote! { #p::ir::Expr::Equals(#p::Ptr::Static(&#a), #p::Ptr::Static(&#b)) }
        }
        Expr::Not(a) => {
            let a = expr(a);
            quote! { #p::ir::Expr::Not(#p::Ptr::Static(&#a)) }
        }
        Expr::And(items) => {
            let items = seq(items, expr);
            quote! { #p::ir::Expr::And(#items) }
        }
        Expr::Or(items) => {
            let items = seq(items, expr);
            quote! { #p::ir::Expr::Or(#items) }
        }
    }
}

fn filter(f: &Filter) -> TokenStream {
    let p = private();
    let v = format_ident!(
        "{}",
        match f {
            Filter::Trim => "Trim",
            Filter::Lower => "Lower",
            Filter::Upper => "Upper",
            Filter::Json => "Json",
            Filter::FormatDate => "FormatDate",
            Filter::FormatNumber => "FormatNumber",
        }
    );
    quote! { #p::ir::Filter::#v }
}

fn node(n: &Node) -> TokenStream {
    let p = private();
    match n {
        Node::Text(t) => {
            let t = s(t);
            quote! { #p::ir::Node::Text(#t) }
        }
        Node::Interpolate {
            value,
            filters,
            site,
        } => {
            let value = expr(value);
            let filters = seq(filters, filter);
            let site = site_id(*site);
            quote! { #p::ir::Node::Interpolate { value: #value, filters: #filters, site: #site } }
        }
        Node::When {
            condition,
            then,
            otherwise,
            site,
        } => {
            let condition = expr(condition);
            let then = seq(then, node);
            let otherwise = seq(otherwise, node);
            let site = site_id(*site);
            quote! { #p::ir::Node::When { condition: #condition, then: #then, otherwise: #otherwise, site: #site } }
        }
        Node::ForEach {
            collection,
            body,
            separator,
            site,
        } => {
            let collection = expr(collection);
            let body = seq(body, node);
            let separator = opt(separator, |t| s(t));
            let site = site_id(*site);
            quote! { #p::ir::Node::ForEach { collection: #collection, body: #body, separator: #separator, site: #site } }
        }
        Node::Call {
            component,
            args,
            checks,
            site,
        } => {
            let args = seq(args, |a| opt(a, expr));
            let checks = seq(checks, |c| {
                let slot = c.slot;
                let sc = schema(&c.schema);
                let site = site_id(c.site);
                quote! { #p::ir::ArgCheck { slot: #slot, schema: #sc, site: #site } }
            });
            let site = site_id(*site);
            quote! { #p::ir::Node::Call { component: #component, args: #args, checks: #checks, site: #site } }
        }
    }
}

fn site_id(id: ir::SiteId) -> TokenStream {
    let p = private();
    let n = id.0;
    quote! { #p::ir::SiteId(#n) }
}

fn site(site: &ir::Site) -> TokenStream {
    let p = private();
    let file = s(&site.file);
    let pointer = s(&site.pointer);
    let ir::Span { start, end, bytes } = site.span;
    let (sl, sc, el, ec) = (start.line, start.column, end.line, end.column);
    let (b0, b1) = bytes;
    quote! {
        #p::ir::Site {
            file: #file,
            pointer: #pointer,
            span: #p::Span {
                start: #p::Position { line: #sl, column: #sc },
                end: #p::Position { line: #el, column: #ec },
                bytes: (#b0, #b1),
            },
        }
    }
}

fn role(r: &ir::Role) -> TokenStream {
    let p = private();
    let v = format_ident!(
        "{}",
        match r {
            ir::Role::System => "System",
            ir::Role::Developer => "Developer",
            ir::Role::User => "User",
            ir::Role::Assistant => "Assistant",
        }
    );
    quote! { #p::Role::#v }
}

fn field(f: &ir::Field) -> TokenStream {
    let p = private();
    let name = s(&f.name);
    let sc = schema(&f.schema);
    let required = f.required;
    quote! { #p::ir::Field { name: #name, schema: #sc, required: #required } }
}

/// The interaction as a constant expression.
pub fn emit_interaction(i: &Interaction) -> TokenStream {
    let p = private();
    let compiler = s(&i.compiler);
    let contract_id = s(&i.contract_id);
    let contract_version = s(&i.contract_version);
    let inputs = seq(&i.inputs, field);
    let context = seq(&i.context, field);
    let messages = seq(&i.messages, |m| {
        let r = role(&m.role);
        let content = seq(&m.content, node);
        let site = site_id(m.site);
        quote! { #p::ir::Message { role: #r, content: #content, site: #site } }
    });
    let components = seq(&i.components, |c| {
        let name = s(&c.name);
        let parameters = seq(&c.parameters, |x| s(x));
        let body = seq(&c.body, node);
        quote! { #p::ir::Component { name: #name, parameters: #parameters, body: #body } }
    });
    let output_schema = schema(&i.output_schema);
    let rp = &i.runtime_policy;
    let f = |v: &Option<f64>| {
        opt(v, |x| {
            let l = Literal::f64_suffixed(*x);
            quote! { #l }
        })
    };
    let u = |v: &Option<u32>| {
        opt(v, |x| {
            let l = Literal::u32_suffixed(*x);
            quote! { #l }
        })
    };
    let (temperature, top_p) = (f(&rp.temperature), f(&rp.top_p));
    let (max_output_tokens, timeout_ms, max_attempts) = (
        u(&rp.max_output_tokens),
        u(&rp.timeout_ms),
        u(&rp.max_attempts),
    );
    let extensions = seq(&i.extensions, |e| {
        let key = s(&e.key);
        let capability = s(&e.capability);
        let sc = schema(&e.schema);
        let value = ir_value(&e.value);
        quote! { #p::ir::Extension { key: #key, capability: #capability, schema: #sc, value: #value } }
    });
    let required = seq(&i.required_capabilities, |x| s(x));
    let target = seq(&i.target_capabilities, |x| s(x));
    let locale = i.context_locale;
    let sites = seq(&i.sites, site);
    let cfp = s(&i.contract_fingerprint);
    let ifp = s(&i.interaction_fingerprint);
    quote! {
        #p::Interaction {
            compiler: #compiler,
            contract_id: #contract_id,
            contract_version: #contract_version,
            inputs: #inputs,
            context: #context,
            messages: #messages,
            components: #components,
            output_schema: #output_schema,
            runtime_policy: #p::RuntimePolicy {
                temperature: #temperature,
                top_p: #top_p,
                max_output_tokens: #max_output_tokens,
                timeout_ms: #timeout_ms,
                max_attempts: #max_attempts,
            },
            extensions: #extensions,
            required_capabilities: #required,
            target_capabilities: #target,
            context_locale: #locale,
            sites: #sites,
            contract_fingerprint: #cfp,
            interaction_fingerprint: #ifp,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn awkward_property_names_become_valid_fields() {
        assert_eq!(field_ident("type"), "r#type");
        assert_eq!(field_ident("self"), "self_");
        assert_eq!(field_ident("first-name"), "first_name");
        assert_eq!(field_ident("naïve"), "naive");
        assert_eq!(field_ident("größe"), "grosse");
        assert_eq!(field_ident("名前"), "ming_qian");
        assert_eq!(field_ident("Ürün-Adı"), "urun_adi");
        // Nothing to transliterate: still a valid, if uninformative, name.
        assert_eq!(field_ident("\u{E000}"), "__");
        assert_eq!(field_ident("2fa"), "_2fa");
        assert_eq!(field_ident("Camel"), "camel");
        assert_eq!(field_ident("firstName"), "first_name");
        assert_eq!(field_ident("HTTPStatus"), "httpstatus");
        assert_eq!(field_ident("_private"), "_private");
        assert_eq!(
            module_name("bli-61-date-term-extraction"),
            "bli_61_date_term_extraction"
        );
        assert_eq!(module_name("type"), "type_");
        assert_eq!(pascal("merge_data"), "MergeData");
    }
}
