//! Type generation: structs for objects with properties, enums for string
//! enums, and the Rust type of every other schema (`docs/format.md`,
//! "Generated Rust", "Type mapping"). Names come from [`super::names`].

use super::names::{self, TypeNames, VariantNames};
use super::{code, doc_attr, doc_text, private};
use crate::dto::Loc;
use crate::source::Sources;
use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::quote;
use templiqx_contracts::{Code, Diagnostic, IrValue, JsonType, Schema};

/// One property, input or context field to become a struct field.
pub(super) struct FieldSpec {
    pub(super) name: String,
    pub(super) schema: Schema,
    pub(super) required: bool,
    pub(super) description: Option<String>,
    /// Where the property's key is (collision diagnostics point here).
    pub(super) loc: Loc,
    /// Where its schema is (nested properties are below this).
    pub(super) schema_loc: Loc,
}

/// A field with its decided Rust name and type.
struct Member<'f> {
    spec: &'f FieldSpec,
    /// The Rust field name (`r#type` for a keyword).
    rust: String,
    ty: TokenStream,
    /// The field's type in the partial struct (`docs/format.md`, "Partial
    /// types"): always an `Option`.
    partial: TokenStream,
    nullable: bool,
}

impl Member<'_> {
    fn ident(&self) -> TokenStream {
        names::ident(&self.rust)
    }
}

/// The generator's state for one contract module.
pub(super) struct Gen<'a> {
    pub(super) sources: &'a Sources,
    /// Whether to build the items' tokens. Without, the walk still decides
    /// every type and field name and reports every collision, as it does
    /// with ([`super::check`]); `items` stays empty.
    pub(super) emit: bool,
    /// Every item generated so far, in declaration order.
    pub(super) items: Vec<TokenStream>,
    /// Whether the types being generated are the output's, which get a
    /// partial type each (`docs/format.md`, "Partial types").
    pub(super) partial: bool,
    /// The items of the `partial` module, in declaration order: a
    /// partial struct per output struct, the `Grow` impl of each output
    /// enum.
    pub(super) partials: Vec<TokenStream>,
    pub(super) names: TypeNames,
    pub(super) diags: Vec<Diagnostic>,
}

/// Whether the schema is a non-nullable object with properties (a struct).
pub(super) fn is_struct(s: &Schema) -> bool {
    s.types.is_only(JsonType::Object)
        && !s.properties.is_empty()
        && !s.types.contains(JsonType::Null)
}

/// Whether the schema's Rust type is `Json` (no single
/// non-null type).
fn untyped(s: &Schema) -> bool {
    let t = s.types.without_null();
    t.is_any() || t.iter().count() != 1
}

fn nullable(s: &Schema) -> bool {
    s.types.contains(JsonType::Null) && !s.types.is_any()
}

impl Gen<'_> {
    /// The field specs of an object schema's properties.
    pub(super) fn props(&mut self, schema: &Schema, loc: &Loc) -> Vec<FieldSpec> {
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

    /// Decides each field's name and type; two fields with one Rust name
    /// are `TQX_CODEGEN_COLLISION` at the second (which is then left out).
    fn members<'f>(&mut self, parent: &str, fields: &'f [FieldSpec]) -> Vec<Member<'f>> {
        let mut members: Vec<Member<'f>> = Vec::new();
        for f in fields {
            let rust = names::field_ident(&f.name);
            if let Some(first) = members.iter().find(|m| m.rust == rust) {
                let d = self
                    .sources
                    .error_at_key(
                        Code::CodegenCollision,
                        format!(
                            "properties `{}` and `{}` both become the Rust field `{rust}`",
                            first.spec.name, f.name
                        ),
                        &f.loc,
                    )
                    .help("rename one of the properties; generated field names must be unique");
                self.diags.push(d);
                continue;
            }
            let nullable = nullable(&f.schema);
            let (inner, partial) = self.ty(&f.schema, &f.name, parent, &f.schema_loc);
            // Not there yet is `None`; a complete `null` is `Some(None)`.
            let partial = if nullable {
                quote! { ::core::option::Option<::core::option::Option<#partial>> }
            } else {
                quote! { ::core::option::Option<#partial> }
            };
            // Optional and nullable: `None` is absent, `Some(None)` is null.
            let ty = match (f.required, nullable) {
                (true, false) => inner,
                (true, true) | (false, false) => quote! { ::core::option::Option<#inner> },
                (false, true) => {
                    quote! { ::core::option::Option<::core::option::Option<#inner>> }
                }
            };
            members.push(Member {
                spec: f,
                rust,
                ty,
                partial,
                nullable,
            });
        }
        members
    }

    /// Emits a struct, its `Members` table and views, and its serde impls,
    /// which the runtime writes over them (`docs/format.md`, "Generated
    /// Rust"): `Serialize` over the view, `Deserialize` through a
    /// generated `Decode` impl, one expression per field. A root type
    /// (`Inputs`, `Context`, `Output`: `root` names its `Scope`) reads
    /// through the runtime's checks first (`docs/format.md`, "Typed and
    /// untyped agree"). Without [`Gen::emit`], only decides its members
    /// (and the types they need).
    pub(super) fn struct_item(
        &mut self,
        name: &str,
        doc: &str,
        fields: &[FieldSpec],
        closed: bool,
        root: Option<&str>,
    ) {
        let members = self.members(name, fields);
        if !self.emit {
            return;
        }
        let p = private();
        let ident = Ident::new(name, Span::call_site());
        let docs = members
            .iter()
            .map(|m| doc_attr(&field_doc(m.spec, m.nullable)));
        let defs = members.iter().map(|m| {
            let (fid, ty) = (m.ident(), &m.ty);
            quote! { pub #fid: #ty, }
        });
        let defs = docs.zip(defs).map(|(d, def)| quote! { #d #def });
        let taken: Vec<String> = members.iter().map(|m| m.rust.clone()).collect();
        let eid = Ident::new(&names::extra_field(&taken), Span::call_site());
        let extra = if closed {
            TokenStream::new()
        } else {
            quote! {
                /// Members not declared in `properties` (the schema allows
                /// them), kept so that nothing is lost.
                pub #eid: #p::JsonMap,
            }
        };
        let derive_default = if fields.iter().all(|f| !f.required) {
            quote! { Default, }
        } else {
            TokenStream::new()
        };
        if self.partial {
            let item = partial_struct(&ident, &members, closed, &eid);
            self.partials.push(item);
        }
        let sdoc = doc_attr(doc);
        let view = object_view(&ident, &members, closed, &eid);
        let decode = decode_struct(&ident, &members, closed, &eid);
        let serde = match root {
            None => quote! { #p::serde_impls!(#ident); },
            Some(scope) => {
                let scope = Ident::new(scope, Span::call_site());
                quote! { #p::serde_impls!(#ident, INTERACTION, #scope); }
            }
        };
        self.items.push(quote! {
            #sdoc
            #[derive(Debug, Clone, PartialEq, #derive_default)]
            pub struct #ident {
                #(#defs)*
                #extra
            }

            #view
            #decode
            #serde
        });
    }

    /// The Rust type of a schema (without the `Option` for nullability),
    /// and its type in the `partial` module (`docs/format.md`, "Partial
    /// types"; the same but for enums, named from the module inside it,
    /// and the partial structs, which take the same names there); `name` is
    /// the property's name, `parent` the enclosing type's.
    pub(super) fn ty(
        &mut self,
        s: &Schema,
        name: &str,
        parent: &str,
        loc: &Loc,
    ) -> (TokenStream, TokenStream) {
        let p = private();
        let t = s.types.without_null();
        let same = |t: TokenStream| (t.clone(), t);
        if untyped(s) {
            return same(quote! { #p::Json });
        }
        match t.iter().next() {
            Some(JsonType::String) => match &s.enum_values {
                Some(values) if values.iter().all(|v| matches!(v, IrValue::String(_))) => {
                    let ty = self.names.fresh(name, parent);
                    self.enum_item(&ty, s, values);
                    let id = Ident::new(&ty, Span::call_site());
                    (quote! { #id }, quote! { super::#id })
                }
                _ => same(quote! { ::std::string::String }),
            },
            Some(JsonType::Integer) => same(quote! { i64 }),
            Some(JsonType::Number) => same(quote! { f64 }),
            Some(JsonType::Boolean) => same(quote! { bool }),
            Some(JsonType::Array) => {
                let (item, partial) = match &s.items {
                    // A nullable element is `Option<T>`: `null` is `None`.
                    Some(items) if nullable(items) => {
                        let item_name = format!("{} Item", names::pascal(name));
                        let (t, pt) = self.ty(items, &item_name, parent, &loc.child("items"));
                        (
                            quote! { ::core::option::Option<#t> },
                            quote! { ::core::option::Option<#pt> },
                        )
                    }
                    Some(items) => {
                        let item_name = format!("{} Item", names::pascal(name));
                        self.ty(items, &item_name, parent, &loc.child("items"))
                    }
                    None => same(quote! { #p::Json }),
                };
                (
                    quote! { ::std::vec::Vec<#item> },
                    quote! { ::std::vec::Vec<#partial> },
                )
            }
            Some(JsonType::Object) if !s.properties.is_empty() => {
                let ty = self.names.fresh(name, parent);
                let props = self.props(s, loc);
                let doc = s
                    .description
                    .as_ref()
                    .map(|d| doc_text(d))
                    .unwrap_or_else(|| format!("The object at {}.", code(&loc.pointer)));
                self.struct_item(&ty, &doc, &props, !s.additional_properties, None);
                let id = Ident::new(&ty, Span::call_site());
                same(quote! { #id })
            }
            Some(JsonType::Object) => same(quote! { #p::JsonMap }),
            _ => same(quote! { #p::Json }),
        }
    }

    fn enum_item(&mut self, name: &str, s: &Schema, values: &[IrValue]) {
        if !self.emit {
            return;
        }
        let p = private();
        let ident = Ident::new(name, Span::call_site());
        if self.partial {
            // An enum value shows once complete: read whole, as `Decode`
            // reads it.
            self.partials.push(quote! {
                impl #p::Grow for super::#ident {
                    fn start<'r>(
                        node: #p::PartialNode<'r>,
                        _: &mut #p::Follow<'r>,
                    ) -> ::core::option::Option<Self> {
                        #p::typed::complete(node)
                    }
                    fn grow<'r>(&mut self, _: #p::PartialNode<'r>, _: &mut #p::Follow<'r>) {}
                }
            });
        }
        let mut used = VariantNames::default();
        let mut variants = Vec::new();
        let mut arms = Vec::new();
        let mut texts = Vec::new();
        let mut paths = Vec::new();
        for v in values {
            let IrValue::String(text) = v else { continue };
            let vid = Ident::new(&used.fresh(text), Span::call_site());
            let lit = Literal::string(text);
            let vdoc = Literal::string(&if text.is_empty() {
                " The empty string.".to_owned()
            } else {
                format!(" {}", code(text))
            });
            variants.push(quote! { #[doc = #vdoc] #vid, });
            arms.push(quote! { #ident::#vid => #lit, });
            texts.push(lit);
            paths.push(quote! { Self::#vid });
        }
        let doc = doc_attr(
            &s.description
                .as_ref()
                .map(|d| doc_text(d))
                .unwrap_or_else(|| format!("The values of `{name}`.")),
        );
        self.items.push(quote! {
            #doc
            #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
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

            impl #p::Decode for #ident {
                fn decode<E: #p::serde::de::Error>(
                    value: #p::Json,
                ) -> ::core::result::Result<Self, E> {
                    #p::variant(value, &[#(#texts),*], &[#(#paths),*])
                }
            }
            #p::serde_impls!(#ident);
        });
    }
}

/// The `Decode` impl of a generated struct: its object's members, each
/// taken out by its field (`required` or `optional`, read as the field's
/// type), and for an open struct the rest as its extra members; a closed
/// struct refuses a member it does not declare.
fn decode_struct(ident: &Ident, members: &[Member<'_>], closed: bool, eid: &Ident) -> TokenStream {
    let p = private();
    let reads = members.iter().map(|m| {
        let (fid, json) = (m.ident(), Literal::string(&m.spec.name));
        if m.spec.required {
            quote! { #fid: fields.required(#json)?, }
        } else {
            quote! { #fid: fields.optional(#json)?, }
        }
    });
    let rest = if closed {
        TokenStream::new()
    } else {
        quote! { #eid: fields.rest(), }
    };
    let binding = if members.is_empty() && closed {
        quote! { _fields }
    } else if members.is_empty() {
        quote! { fields }
    } else {
        quote! { mut fields }
    };
    quote! {
        impl #p::Decode for #ident {
            fn decode<E: #p::serde::de::Error>(
                value: #p::Json,
            ) -> ::core::result::Result<Self, E> {
                let #binding = #p::Fields::<E>::of::<Self>(value, #closed)?;
                ::core::result::Result::Ok(Self {
                    #(#reads)*
                    #rest
                })
            }
        }
    }
}

/// The `Members` table of a generated struct (its declared members in
/// canonical (RFC 8785) key order, so canonical JSON of a closed struct
/// needs no sort) and its `ObjectView`/`AsValue` impls, which the runtime's
/// `object_view!` writes over that table (`templiqx_contracts::members`).
fn object_view(ident: &Ident, members: &[Member<'_>], closed: bool, eid: &Ident) -> TokenStream {
    let p = private();
    let mut sorted: Vec<&Member<'_>> = members.iter().collect();
    sorted.sort_by(|a, b| templiqx_contracts::canonical::utf16_cmp(&a.spec.name, &b.spec.name));
    let names = sorted.iter().map(|m| Literal::string(&m.spec.name));
    let index_arms = sorted.iter().enumerate().map(|(i, m)| {
        let (name, i) = (Literal::string(&m.spec.name), Literal::usize_unsuffixed(i));
        quote! { #name => ::core::option::Option::Some(#i), }
    });
    let index_body = if members.is_empty() {
        quote! {
            let _ = key;
            ::core::option::Option::None
        }
    } else {
        quote! {
            match key {
                #(#index_arms)*
                _ => ::core::option::Option::None,
            }
        }
    };
    let all_present = if !members.is_empty() && members.iter().all(|m| m.spec.required) {
        quote! { const ALL_PRESENT: bool = true; }
    } else {
        quote! {}
    };
    let arms = sorted.iter().enumerate().map(|(i, m)| {
        let (fid, i) = (m.ident(), Literal::usize_unsuffixed(i));
        // An unset optional field is absent; a null of a required nullable
        // field is present and null.
        if m.spec.required {
            quote! { #i => #p::members::required(&self.#fid), }
        } else {
            quote! { #i => #p::members::optional(&self.#fid), }
        }
    });
    let member_body = if members.is_empty() {
        quote! {
            let _ = i;
            ::core::option::Option::None
        }
    } else {
        quote! {
            match i {
                #(#arms)*
                _ => ::core::option::Option::None,
            }
        }
    };
    let extra = if closed {
        quote! {}
    } else {
        quote! {
            fn extra(&self) -> ::core::option::Option<&#p::JsonMap> {
                ::core::option::Option::Some(&self.#eid)
            }
        }
    };
    quote! {
        impl #p::Members for #ident {
            const NAMES: &'static [&'static str] = &[#(#names),*];
            #all_present
            fn index(key: &str) -> ::core::option::Option<usize> {
                #index_body
            }
            fn member(&self, i: usize) -> ::core::option::Option<#p::ValueRef<'_>> {
                #member_body
            }
            #extra
        }
        #p::object_view!(#ident);
    }
}

/// The partial struct of a generated output struct, in the `partial`
/// module under the same name (`docs/format.md`, "Partial types"): every
/// field an `Option` of its partial type (`None` until its value shows
/// anything), an open struct's extra members as partial JSON, `Default`
/// (nothing shown), and its `Grow` impl, which brings each member that
/// changed up to date through the runtime's generic code (one match arm
/// per field).
fn partial_struct(ident: &Ident, members: &[Member<'_>], closed: bool, eid: &Ident) -> TokenStream {
    let p = private();
    let defs = members.iter().map(|m| {
        let (fid, ty) = (m.ident(), &m.partial);
        let doc = doc_attr(&partial_field_doc(m));
        quote! { #doc pub #fid: #ty, }
    });
    let extra = if closed {
        TokenStream::new()
    } else {
        quote! {
            /// Members not declared in `properties`, as far as each was
            /// written (partial JSON by the same rules).
            pub #eid: #p::JsonMap,
        }
    };
    let arms = members.iter().map(|m| {
        let (fid, json) = (m.ident(), Literal::string(&m.spec.name));
        quote! { #json => #p::typed::field(&mut self.#fid, member, follow), }
    });
    let other = if closed {
        quote! { _ => {} }
    } else {
        quote! { _ => #p::typed::extra(&mut self.#eid, key, member, follow), }
    };
    // One arm and nothing else to do is an `if` (clippy's `single_match`).
    let body = match (members, closed) {
        ([], true) => quote! { let _ = (key, member, follow); },
        ([m], true) => {
            let (fid, json) = (m.ident(), Literal::string(&m.spec.name));
            quote! {
                if key == #json {
                    #p::typed::field(&mut self.#fid, member, follow);
                }
            }
        }
        _ => quote! {
            match key {
                #(#arms)*
                #other
            }
        },
    };
    let doc = Literal::string(&format!(
        " `{ident}` as far as it was written while streaming: each field `None` until its value shows anything (`docs/format.md`, \"Partial types\")."
    ));
    quote! {
        #[doc = #doc]
        #[derive(Debug, Clone, PartialEq, Default)]
        pub struct #ident {
            #(#defs)*
            #extra
        }

        impl #p::Grow for #ident {
            fn start<'r>(
                node: #p::PartialNode<'r>,
                follow: &mut #p::Follow<'r>,
            ) -> ::core::option::Option<Self> {
                #p::typed::start_struct(node, follow)
            }
            fn grow<'r>(&mut self, node: #p::PartialNode<'r>, follow: &mut #p::Follow<'r>) {
                follow.members(node, &mut |key, member, follow| {
                    #body
                });
            }
        }
    }
}

/// A partial field's doc comment: its description (or its JSON name), and
/// when it shows what.
fn partial_field_doc(m: &Member<'_>) -> String {
    let f = m.spec;
    let mut doc = f
        .description
        .as_deref()
        .map(doc_text)
        .unwrap_or_else(|| code(&f.name));
    let t = f.schema.types.without_null();
    let rule = if untyped(&f.schema) {
        "`None` until the value starts; then as far as it was written (strings and containers grow, numbers, booleans and `null` show once complete)."
    } else {
        match t.iter().next() {
            Some(JsonType::String) if f.schema.enum_values.is_some() => {
                "`None` until the value is complete."
            }
            Some(JsonType::String) => {
                "`None` until the string starts; then its text so far, growing."
            }
            Some(JsonType::Array) => {
                "`None` until the array starts; then its items so far, growing (an item shows once it shows anything; a number, boolean or enum value once complete)."
            }
            Some(JsonType::Object) => "`None` until the object starts; then its members so far.",
            _ => "`None` until the value is complete.",
        }
    };
    doc.push_str("\n\n");
    doc.push_str(rule);
    if m.nullable {
        doc.push_str(" A complete `null` is `Some(None)`.");
    }
    doc
}

/// A field's doc comment: its description (or its JSON name), and what
/// `None` means for it.
fn field_doc(f: &FieldSpec, nullable: bool) -> String {
    let mut doc = f
        .description
        .as_deref()
        .map(doc_text)
        .unwrap_or_else(|| code(&f.name));
    doc.push_str(match (f.required, nullable) {
        (true, false) => "",
        (true, true) => "\n\nRequired and nullable: `None` is `null`.",
        (false, false) => "\n\nOptional: `None` means absent.",
        (false, true) => "\n\nOptional and nullable: `None` is absent, `Some(None)` is `null`.",
    });
    doc
}
