//! The interaction IR as static tokens: what `include_contract!` embeds as
//! `static INTERACTION` and `static EVALS` (`docs/format.md`, "Generated
//! Rust"). Every value is
//! written as a constant expression over `::templiqx::__private` (the
//! module's `__tqx` import, so these tokens belong inside a generated
//! module), so the
//! static needs no allocation and no initialisation at run time.

use super::private;
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};
use templiqx_contracts::ir::{self, CompareOp, Expr, Filter, Node, Root, Segment};
use templiqx_contracts::{EvalFixture, Interaction, IrValue, JsonType, Number, Schema, TypeSet};

fn s(text: &str) -> TokenStream {
    let p = private();
    let l = Literal::string(text);
    quote! { #p::S(#l) }
}

fn seq<T>(items: &[T], f: impl Fn(&T) -> TokenStream) -> TokenStream {
    let p = private();
    if items.is_empty() {
        return quote! { #p::Seq::EMPTY };
    }
    let items = items.iter().map(f);
    quote! { #p::L(&[#(#items),*]) }
}

fn opt<T>(v: &Option<T>, f: impl Fn(&T) -> TokenStream) -> TokenStream {
    let p = private();
    match v {
        Some(x) => {
            let t = f(x);
            quote! { #p::Some(#t) }
        }
        None => quote! { #p::None },
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
        Number::Big(b) => {
            let l = Literal::string(b.as_str());
            quote! { #p::Number::Big(#p::BigInt::from_parsed_literal(#l)) }
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
    let name = |ty: JsonType| match ty {
        JsonType::Null => "Null",
        JsonType::Boolean => "Boolean",
        JsonType::Integer => "Integer",
        JsonType::Number => "Number",
        JsonType::String => "String",
        JsonType::Array => "Array",
        JsonType::Object => "Object",
    };
    let mut types = t.iter();
    let Some(first) = types.next() else {
        return quote! { #p::TypeSet::ANY };
    };
    // The first type by its constant (`TypeSet::STRING`), the rest added.
    let first = format_ident!("{}", name(first).to_ascii_uppercase());
    let rest = types.map(|ty| format_ident!("{}", name(ty)));
    quote! { #p::TypeSet::#first #(.with(#p::JsonType::#rest))* }
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
        fields.push(quote! { items: #p::Some(#p::P(&#i)) });
    }
    if let Some(e) = &sc.enum_values {
        let e = seq(e, ir_value);
        fields.push(quote! { enum_values: #p::Some(#e) });
    }
    if let Some(c) = &sc.const_value {
        let c = ir_value(c);
        fields.push(quote! { const_value: #p::Some(#c) });
    }
    for (name, v) in [
        ("min_length", sc.min_length),
        ("max_length", sc.max_length),
        ("min_items", sc.min_items),
        ("max_items", sc.max_items),
    ] {
        if let Some(v) = v {
            let (id, l) = (format_ident!("{name}"), Literal::u64_suffixed(v));
            fields.push(quote! { #id: #p::Some(#l) });
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
            fields.push(quote! { #id: #p::Some(#n) });
        }
    }
    if let Some(f) = sc.format {
        let f = match f {
            templiqx_contracts::Format::Date => quote! { #p::Format::Date },
            templiqx_contracts::Format::DateTime => quote! { #p::Format::DateTime },
        };
        fields.push(quote! { format: #p::Some(#f) });
    }
    if let Some(t) = &sc.title {
        let t = s(t);
        fields.push(quote! { title: #p::Some(#t) });
    }
    if let Some(d) = &sc.description {
        let d = s(d);
        fields.push(quote! { description: #p::Some(#d) });
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
                Root::Output => quote! { #p::ir::Root::Output },
                Root::Case => quote! { #p::ir::Root::Case },
                Root::Judge => quote! { #p::ir::Root::Judge },
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
            quote! { #p::ir::Expr::Equals(#p::P(&#a), #p::P(&#b)) }
        }
        Expr::Not(a) => {
            let a = expr(a);
            quote! { #p::ir::Expr::Not(#p::P(&#a)) }
        }
        Expr::And(items) => {
            let items = seq(items, expr);
            quote! { #p::ir::Expr::And(#items) }
        }
        Expr::Or(items) => {
            let items = seq(items, expr);
            quote! { #p::ir::Expr::Or(#items) }
        }
        Expr::Compare(op, a, b) => {
            let op = format_ident!(
                "{}",
                match op {
                    CompareOp::Lt => "Lt",
                    CompareOp::Le => "Le",
                    CompareOp::Gt => "Gt",
                    CompareOp::Ge => "Ge",
                }
            );
            let (a, b) = (expr(a), expr(b));
            quote! { #p::ir::Expr::Compare(#p::ir::CompareOp::#op, #p::P(&#a), #p::P(&#b)) }
        }
        Expr::Contains(a, b) => {
            let (a, b) = (expr(a), expr(b));
            quote! { #p::ir::Expr::Contains(#p::P(&#a), #p::P(&#b)) }
        }
        Expr::Length(a) => {
            let a = expr(a);
            quote! { #p::ir::Expr::Length(#p::P(&#a)) }
        }
    }
}

/// One compiled `expect` check as a constant expression.
fn check(c: &ir::Check) -> TokenStream {
    let p = private();
    let id = s(&c.id);
    let description = opt(&c.description, |d| s(d));
    let e = expr(&c.expr);
    let source = s(&c.source);
    let site = opt(&c.site, site);
    let judge = opt(&c.judge, |j| {
        let contract = s(&j.contract);
        let with = seq(&j.with, |i| {
            let name = s(&i.name);
            let value = expr(&i.value);
            quote! { #p::ir::JudgeInput { name: #name, value: #value } }
        });
        quote! { #p::ir::Judge { contract: #contract, with: #with } }
    });
    quote! { #p::ir::Check { id: #id, description: #description, expr: #e, source: #source, site: #site, judge: #judge } }
}

/// The eval fixtures of a contract as a constant expression (a slice of
/// `EvalFixture`), for its `static EVALS`.
pub(crate) fn emit_evals(fixtures: &[EvalFixture]) -> TokenStream {
    let p = private();
    let items = fixtures.iter().map(|f| {
        let id = s(&f.id);
        let inputs = s(&f.inputs_json);
        let context = s(&f.context_json);
        let fake_output = opt(&f.fake_output_json, |t| s(t));
        let checks = seq(&f.checks, check);
        let dataset = opt(&f.dataset, |d| {
            let (path, sha256) = (s(&d.path), s(&d.sha256));
            quote! { #p::DatasetRef { path: #path, sha256: #sha256 } }
        });
        quote! {
            #p::EvalFixture {
                id: #id,
                inputs_json: #inputs,
                context_json: #context,
                fake_output_json: #fake_output,
                checks: #checks,
                dataset: #dataset,
            }
        }
    });
    quote! { &[#(#items),*] }
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

/// The interaction as a constant expression over `__tqx` (the runtime
/// import of a generated module: place it inside one).
pub(crate) fn emit_interaction(i: &Interaction) -> TokenStream {
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
