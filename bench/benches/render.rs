//! (b) Render throughput of the precompiled greeting and drafting
//! interactions from typed inputs (value validation included), against the
//! same prompts in askama, minijinja and handlebars, plus a plain
//! `push_str` + `serde_json` floor. Templates are compiled and contexts
//! built outside the timed loop; the `json` filter serialises inside each
//! render. Every engine's output is asserted byte-identical once first.

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use templiqx_bench::{Facts, drafting, drafting_request, greeting, greeting_request};

const GREETING_SYSTEM: &str = "You write one-line greetings.";
const DRAFTING_SYSTEM: &str =
    "Draft a short business summary of the contract. Use only the validated facts.";

#[derive(askama::Template)]
#[template(source = "You write one-line greetings.", ext = "txt")]
struct AskamaGreetingSystem;

#[derive(askama::Template)]
#[template(path = "greeting_user.txt")]
struct AskamaGreetingUser<'a> {
    name: &'a str,
    organization: &'a str,
}

#[derive(askama::Template)]
#[template(
    source = "Draft a short business summary of the contract. Use only the validated facts.",
    ext = "txt"
)]
struct AskamaDraftingSystem;

#[derive(askama::Template)]
#[template(path = "drafting_user.txt")]
struct AskamaDraftingUser<'a> {
    client_name: &'a str,
    matter_reference: &'a str,
    facts: &'a Facts,
}

fn handlebars_engine() -> handlebars::Handlebars<'static> {
    use handlebars::{Context, Handlebars, Helper, HelperResult, Output, RenderContext};
    fn trim(
        h: &Helper<'_>,
        _: &Handlebars<'_>,
        _: &Context,
        _: &mut RenderContext<'_, '_>,
        out: &mut dyn Output,
    ) -> HelperResult {
        let v = h
            .param(0)
            .and_then(|p| p.value().as_str())
            .unwrap_or_default();
        out.write(v.trim())?;
        Ok(())
    }
    fn json(
        h: &Helper<'_>,
        _: &Handlebars<'_>,
        _: &Context,
        _: &mut RenderContext<'_, '_>,
        out: &mut dyn Output,
    ) -> HelperResult {
        let v = h.param(0).map(|p| p.value()).cloned().unwrap_or_default();
        out.write(&serde_json::to_string(&v).unwrap_or_default())?;
        Ok(())
    }
    let mut hb = Handlebars::new();
    hb.register_escape_fn(handlebars::no_escape);
    hb.register_helper("trim", Box::new(trim));
    hb.register_helper("json", Box::new(json));
    hb.register_template_string("gs", GREETING_SYSTEM).unwrap();
    hb.register_template_string("gu", "Hello {{trim name}} for {{trim organization}}")
        .unwrap();
    hb.register_template_string("ds", DRAFTING_SYSTEM).unwrap();
    hb.register_template_string(
        "du",
        "Client: {{trim client_name}}\nMatter: {{trim matter_reference}}\nValidated facts: {{json facts}}",
    )
    .unwrap();
    hb
}

fn minijinja_env() -> minijinja::Environment<'static> {
    let mut env = minijinja::Environment::new();
    env.add_template("gs", GREETING_SYSTEM).unwrap();
    env.add_template("gu", "Hello {{ name|trim }} for {{ organization|trim }}")
        .unwrap();
    env.add_template("ds", DRAFTING_SYSTEM).unwrap();
    env.add_template(
        "du",
        "Client: {{ client_name|trim }}\nMatter: {{ matter_reference|trim }}\nValidated facts: {{ facts|tojson }}",
    )
    .unwrap();
    env
}

fn render_benches(c: &mut Criterion) {
    use askama::Template;

    // ---- greeting ----
    let (g_inputs, g_context) = greeting_request();
    let want = {
        let r = greeting::render(&g_inputs, &g_context).unwrap();
        [r.messages[0].content.clone(), r.messages[1].content.clone()]
    };
    assert_eq!(want[1], "Hello Ada for Analytical Engines");
    let ask_user = AskamaGreetingUser {
        name: &g_inputs.name,
        organization: &g_context.organization,
    };
    let ask = || {
        [
            AskamaGreetingSystem.render().unwrap(),
            ask_user.render().unwrap(),
        ]
    };
    let mj = minijinja_env();
    let mj_ctx =
        minijinja::context! { name => &g_inputs.name, organization => &g_context.organization };
    let (mj_s, mj_u) = (
        mj.get_template("gs").unwrap(),
        mj.get_template("gu").unwrap(),
    );
    let mini = || [mj_s.render(&mj_ctx).unwrap(), mj_u.render(&mj_ctx).unwrap()];
    let hb = handlebars_engine();
    let hb_ctx =
        serde_json::json!({ "name": g_inputs.name, "organization": g_context.organization });
    let hbars = || {
        [
            hb.render("gs", &hb_ctx).unwrap(),
            hb.render("gu", &hb_ctx).unwrap(),
        ]
    };
    let floor = || {
        let mut u = String::with_capacity(64);
        u.push_str("Hello ");
        u.push_str(g_inputs.name.trim());
        u.push_str(" for ");
        u.push_str(g_context.organization.trim());
        [GREETING_SYSTEM.to_owned(), u]
    };
    assert_eq!(ask(), want, "askama");
    assert_eq!(mini(), want, "minijinja");
    assert_eq!(hbars(), want, "handlebars");
    assert_eq!(floor(), want, "floor");

    let mut group = c.benchmark_group("render/greeting");
    group.bench_function("templiqx", |b| {
        b.iter(|| black_box(greeting::render(black_box(&g_inputs), &g_context).unwrap()))
    });
    group.bench_function("askama", |b| b.iter(|| black_box(ask())));
    group.bench_function("minijinja", |b| b.iter(|| black_box(mini())));
    group.bench_function("handlebars", |b| b.iter(|| black_box(hbars())));
    group.bench_function("push_str floor", |b| b.iter(|| black_box(floor())));
    group.finish();

    // ---- drafting ----
    let (d_inputs, d_context) = drafting_request();
    let facts: Facts =
        serde_json::from_value(serde_json::to_value(&d_inputs.facts).unwrap()).unwrap();
    let want = {
        let r = drafting::render(&d_inputs, &d_context).unwrap();
        [r.messages[0].content.clone(), r.messages[1].content.clone()]
    };
    let ask_user = AskamaDraftingUser {
        client_name: &d_context.client_name,
        matter_reference: &d_context.matter_reference,
        facts: &facts,
    };
    let ask = || {
        [
            AskamaDraftingSystem.render().unwrap(),
            ask_user.render().unwrap(),
        ]
    };
    let mj_ctx = minijinja::context! {
        client_name => &d_context.client_name,
        matter_reference => &d_context.matter_reference,
        facts => minijinja::Value::from_serialize(&facts),
    };
    let (mj_s, mj_u) = (
        mj.get_template("ds").unwrap(),
        mj.get_template("du").unwrap(),
    );
    let mini = || [mj_s.render(&mj_ctx).unwrap(), mj_u.render(&mj_ctx).unwrap()];
    let hb_ctx = serde_json::json!({
        "client_name": d_context.client_name,
        "matter_reference": d_context.matter_reference,
        "facts": facts,
    });
    let hbars = || {
        [
            hb.render("ds", &hb_ctx).unwrap(),
            hb.render("du", &hb_ctx).unwrap(),
        ]
    };
    let floor = || {
        let mut u = String::with_capacity(1024);
        u.push_str("Client: ");
        u.push_str(d_context.client_name.trim());
        u.push_str("\nMatter: ");
        u.push_str(d_context.matter_reference.trim());
        u.push_str("\nValidated facts: ");
        u.push_str(&serde_json::to_string(&facts).unwrap());
        [DRAFTING_SYSTEM.to_owned(), u]
    };
    assert_eq!(ask(), want, "askama");
    assert_eq!(mini(), want, "minijinja");
    assert_eq!(hbars(), want, "handlebars");
    assert_eq!(floor(), want, "floor");

    let mut group = c.benchmark_group("render/drafting");
    group.bench_function("templiqx", |b| {
        b.iter(|| black_box(drafting::render(black_box(&d_inputs), &d_context).unwrap()))
    });
    group.bench_function("askama", |b| b.iter(|| black_box(ask())));
    group.bench_function("minijinja", |b| b.iter(|| black_box(mini())));
    group.bench_function("handlebars", |b| b.iter(|| black_box(hbars())));
    group.bench_function("push_str floor", |b| b.iter(|| black_box(floor())));
    group.finish();
}

criterion_group!(benches, render_benches);
criterion_main!(benches);
