//! Times rendering the corpus greeting (two messages, a component call, two
//! trimmed interpolations) from typed values, as generated code would call
//! it. Run with `cargo run --release -p templiqx --example render_bench`.

use std::borrow::Cow;
use std::hint::black_box;
use std::time::Instant;
use templiqx::contracts::ir::{Component, Expr, Field, Message, Node, Path, Root, Segment};
use templiqx::contracts::{Filter, Interaction, JsonType, Role, Schema, Seq, TypeSet};
use templiqx::{AsValue, ObjectView, ValueRef};

const fn key(name: &'static str) -> Segment {
    Segment::Key(Cow::Borrowed(name))
}

static SYSTEM: &[Node] = &[Node::Text(Cow::Borrowed("You write concise greetings."))];
static USER: &[Node] = &[
    Node::Call {
        component: 0,
        args: Seq::Static(&[Some(Expr::Ref(Path {
            root: Root::Inputs,
            segments: Seq::Static(&[key("name")]),
            source: Cow::Borrowed("inputs.name"),
        }))]),
    },
    Node::Text(Cow::Borrowed(" for ")),
    Node::Interpolate {
        value: Expr::Ref(Path {
            root: Root::Context,
            segments: Seq::Static(&[key("organization")]),
            source: Cow::Borrowed("context.organization"),
        }),
        filters: Seq::Static(&[Filter::Trim]),
    },
];
static SALUTATION: &[Node] = &[
    Node::Text(Cow::Borrowed("Hello ")),
    Node::Interpolate {
        value: Expr::Ref(Path {
            root: Root::Local(0),
            segments: Seq::EMPTY,
            source: Cow::Borrowed("recipient"),
        }),
        filters: Seq::Static(&[Filter::Trim]),
    },
];
static STRING_MIN_1: Schema = Schema {
    types: TypeSet::of(JsonType::String),
    min_length: Some(1),
    ..Schema::ANY
};
static STRING: Schema = Schema {
    types: TypeSet::of(JsonType::String),
    ..Schema::ANY
};

fn greeting() -> Interaction {
    Interaction {
        compiler: Cow::Borrowed("templiqx"),
        contract_id: Cow::Borrowed("greeting"),
        contract_version: Cow::Borrowed("0.1.0"),
        inputs: Seq::Owned(vec![Field {
            name: Cow::Borrowed("name"),
            schema: STRING_MIN_1.clone(),
            required: true,
        }]),
        context: Seq::Owned(vec![Field {
            name: Cow::Borrowed("organization"),
            schema: STRING.clone(),
            required: true,
        }]),
        messages: Seq::Owned(vec![
            Message {
                role: Role::System,
                content: Seq::Static(SYSTEM),
            },
            Message {
                role: Role::User,
                content: Seq::Static(USER),
            },
        ]),
        components: Seq::Owned(vec![Component {
            name: Cow::Borrowed("salutation"),
            parameters: Seq::Static(&[Cow::Borrowed("recipient")]),
            body: Seq::Static(SALUTATION),
        }]),
        output_schema: Schema::ANY,
        runtime_policy: Default::default(),
        extensions: Seq::EMPTY,
        required_capabilities: Seq::EMPTY,
        target_capabilities: Seq::EMPTY,
        context_locale: false,
        contract_fingerprint: Cow::Borrowed(""),
        interaction_fingerprint: Cow::Borrowed(""),
    }
}

/// What `include_contract!` generates for `inputs`.
struct Inputs {
    name: String,
}

impl ObjectView for Inputs {
    fn get(&self, key: &str) -> Option<ValueRef<'_>> {
        match key {
            "name" => Some(self.name.as_value()),
            _ => None,
        }
    }
    fn len(&self) -> usize {
        1
    }
    fn entries(&self) -> Box<dyn Iterator<Item = (&str, ValueRef<'_>)> + '_> {
        Box::new(std::iter::once(("name", self.name.as_value())))
    }
}

/// What `include_contract!` generates for `context`.
struct Context {
    organization: String,
}

impl ObjectView for Context {
    fn get(&self, key: &str) -> Option<ValueRef<'_>> {
        match key {
            "organization" => Some(self.organization.as_value()),
            _ => None,
        }
    }
    fn len(&self) -> usize {
        1
    }
    fn entries(&self) -> Box<dyn Iterator<Item = (&str, ValueRef<'_>)> + '_> {
        Box::new(std::iter::once((
            "organization",
            self.organization.as_value(),
        )))
    }
}

fn main() {
    let interaction = greeting();
    let inputs = Inputs {
        name: " Ryan ".into(),
    };
    let context = Context {
        organization: "Blinqx".into(),
    };
    let rendered = templiqx::render(&interaction, &inputs, &context).expect("renders");
    assert_eq!(rendered.messages[1].content, "Hello Ryan for Blinqx");

    let iterations = 2_000_000u32;
    for _ in 0..iterations / 10 {
        black_box(templiqx::render(black_box(&interaction), &inputs, &context).ok());
    }
    let start = Instant::now();
    for _ in 0..iterations {
        black_box(templiqx::render(black_box(&interaction), &inputs, &context).ok());
    }
    let per = start.elapsed() / iterations;
    println!("render greeting (typed values): {per:?} per render");
    let start = Instant::now();
    for _ in 0..iterations {
        black_box(templiqx::validate_request(black_box(&interaction), &inputs, &context).ok());
    }
    let per = start.elapsed() / iterations;
    println!("  of which request validation: {per:?}");
}
