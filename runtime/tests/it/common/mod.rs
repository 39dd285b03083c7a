//! IR built by hand for the runtime's integration tests.
#![allow(dead_code)]

use serde_json::{Map, Value};
use templiqx::contracts::ir::{Component, Expr, Field, Message, Node, Path, Root, Segment, SiteId};
use templiqx::contracts::{
    Filter, Interaction, IrValue, JsonType, Role, RuntimePolicy, Schema, Seq, Str, TypeSet,
};

fn path(root: Root, prefix: &str, steps: &[&str]) -> Expr {
    let segments = steps
        .iter()
        .map(|s| match s.parse::<u32>() {
            Ok(i) => Segment::Index(i),
            Err(_) => Segment::Key(Str::Owned((*s).to_owned())),
        })
        .collect::<Vec<_>>();
    let mut source = prefix.to_owned();
    for s in steps {
        if !source.is_empty() {
            source.push('.');
        }
        source.push_str(s);
    }
    Expr::Ref(Path {
        root,
        segments: Seq::Owned(segments),
        source: Str::Owned(source),
    })
}

/// `inputs.<steps>`; numeric steps are indices.
pub fn input(steps: &[&str]) -> Expr {
    path(Root::Inputs, "inputs", steps)
}

/// `context.<steps>`.
pub fn ctx(steps: &[&str]) -> Expr {
    path(Root::Context, "context", steps)
}

/// A local (for_each item or component argument) named `name` in slot `slot`.
pub fn local(slot: u16, name: &str, steps: &[&str]) -> Expr {
    path(Root::Local(slot), name, steps)
}

pub fn lit(v: Value) -> Expr {
    Expr::Literal(IrValue::from_json(&v))
}

pub fn text(s: &str) -> Node {
    Node::Text(Str::Owned(s.to_owned()))
}

pub fn interp(value: Expr, filters: &[Filter]) -> Node {
    Node::Interpolate {
        value,
        filters: Seq::Owned(filters.to_vec()),
        site: SiteId::NONE,
    }
}

pub fn when(condition: Expr, then: Vec<Node>, otherwise: Vec<Node>) -> Node {
    Node::When {
        condition,
        then: Seq::Owned(then),
        otherwise: Seq::Owned(otherwise),
        site: SiteId::NONE,
    }
}

pub fn for_each(collection: Expr, body: Vec<Node>, separator: Option<&str>) -> Node {
    Node::ForEach {
        collection,
        body: Seq::Owned(body),
        separator: separator.map(|s| Str::Owned(s.to_owned())),
        site: SiteId::NONE,
    }
}

pub fn call(component: u32, args: Vec<Option<Expr>>) -> Node {
    Node::Call {
        component,
        args: Seq::Owned(args),
        checks: Seq::EMPTY,
        site: SiteId::NONE,
    }
}

pub fn component(name: &str, parameters: &[&str], body: Vec<Node>) -> Component {
    Component {
        name: Str::Owned(name.to_owned()),
        parameters: Seq::Owned(
            parameters
                .iter()
                .map(|p| Str::Owned((*p).to_owned()))
                .collect(),
        ),
        body: Seq::Owned(body),
    }
}

pub fn typed(t: JsonType) -> Schema {
    Schema {
        types: TypeSet::of(t),
        ..Schema::ANY
    }
}

pub fn field(name: &str, schema: Schema, required: bool) -> Field {
    Field {
        name: Str::Owned(name.to_owned()),
        schema,
        required,
    }
}

/// An interaction with one message per entry of `messages` (system, then
/// user for the rest).
pub fn interaction(
    inputs: Vec<Field>,
    context: Vec<Field>,
    messages: Vec<Vec<Node>>,
    components: Vec<Component>,
) -> Interaction {
    let context_locale = context.iter().any(|f| f.name == "locale");
    Interaction {
        compiler: Str::Borrowed("templiqx"),
        contract_id: Str::Borrowed("test"),
        contract_version: Str::Borrowed("0.1.0"),
        inputs: Seq::Owned(inputs),
        context: Seq::Owned(context),
        messages: Seq::Owned(
            messages
                .into_iter()
                .enumerate()
                .map(|(i, content)| Message {
                    role: if i == 0 { Role::System } else { Role::User },
                    content: Seq::Owned(content),
                    site: SiteId::NONE,
                })
                .collect(),
        ),
        components: Seq::Owned(components),
        output_schema: Schema::ANY,
        runtime_policy: RuntimePolicy::default(),
        sites: Seq::EMPTY,
        extensions: Seq::EMPTY,
        required_capabilities: Seq::EMPTY,
        target_capabilities: Seq::EMPTY,
        context_locale,
        contract_fingerprint: Str::Borrowed(""),
        interaction_fingerprint: Str::Borrowed(""),
    }
}

/// The object of a `json!({...})` literal.
pub fn obj(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        other => panic!("not an object: {other}"),
    }
}

/// Renders and returns the message texts, or the diagnostic codes (checking
/// that every diagnostic carries a help line).
pub fn render_texts(
    interaction: &Interaction,
    inputs: Value,
    context: Value,
) -> Result<Vec<String>, Vec<String>> {
    let (inputs, context) = (obj(inputs), obj(context));
    match templiqx::render(interaction, &inputs, &context) {
        Ok(r) => Ok(r.messages.into_iter().map(|m| m.content).collect()),
        Err(e) => {
            for d in &e.diagnostics {
                assert!(d.help.is_some(), "no help line: {d}");
            }
            Err(e.codes().map(|c| c.as_str().to_owned()).collect())
        }
    }
}
