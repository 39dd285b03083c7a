//! Format rules checked end to end, from contract YAML (`compile_str`) to the
//! runtime (`templiqx::render`, the adapter port):
//!
//! - an omitted optional component argument is absent in the component
//!   body, even when the caller has a local of the same name (and slot);
//! - `format: date-time` is enforced on request values at render time;
//! - an extension's capability joins the interaction's required
//!   capabilities, so an adapter without it is stopped by the gate before
//!   anything is invoked.

use crate::common;

use serde_json::{Map, Value, json};
use std::future::Future;
use std::pin::pin;
use std::sync::atomic::{AtomicU32, Ordering};
use std::task::{Context, Poll, Waker};
use templiqx::{
    AdapterDescriptor, AdapterOutput, AsyncRuntimeAdapter, Code, Diagnostic, Interaction,
    RenderedInteraction, RuntimeAdapter, RuntimeFailure, StreamEvent,
};
use templiqx_contracts::CapabilityProfile;

fn compile(text: &str, file: &str, target: &CapabilityProfile) -> Interaction {
    let c = templiqx_build::compile_str(text, file, target);
    assert!(
        c.diagnostics.is_empty(),
        "{file}:\n{}",
        c.render_diagnostics()
    );
    c.interaction.expect("the contract compiles")
}

fn object(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        other => panic!("not an object: {other}"),
    }
}

/// The 1-based line of the only line of `text` containing `needle`.
fn line_of(text: &str, needle: &str) -> u32 {
    let lines: Vec<usize> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains(needle))
        .map(|(i, _)| i + 1)
        .collect();
    assert_eq!(lines.len(), 1, "`{needle}` is on lines {lines:?}");
    u32::try_from(lines[0]).unwrap()
}

// ---- Omitted component arguments ----------------------------------------------

const OMITTED_FILE: &str = "contracts/omitted.yaml";

/// `salutation(recipient, formal?)` renders `formal`. The caller iterates
/// with a `for_each` item named `formal`: inside two loops it sits in the
/// caller's local slot 1, the very slot of the parameter `formal` in the
/// component's frame; inside one loop it shares only the name (the
/// person). With `formal_arg = Some(path)`, the call passes `formal` as
/// that reference.
fn omitted_contract(nested: bool, formal_arg: Option<&str>) -> String {
    let mut call = String::from(
        "- kind: component\n  name: salutation\n  with:\n    recipient: { kind: ref, path: person.name }\n",
    );
    if let Some(path) = formal_arg {
        call.push_str(&format!("    formal: {{ kind: ref, path: {path} }}\n"));
    }
    let (person, formal) = if nested {
        (
            "person",
            "- kind: for_each\n  collection: { kind: ref, path: inputs.titles }\n  item: formal\n  body:\n",
        )
    } else {
        ("formal", "")
    };
    let call = call.replace("person.name", &format!("{person}.name"));
    let indent = |text: &str, by: usize| -> String {
        text.lines()
            .map(|l| format!("{}{l}\n", " ".repeat(by)))
            .collect()
    };
    let body = if nested {
        format!("{}{}", indent(formal, 10), indent(&call, 14))
    } else {
        indent(&call, 10)
    };
    format!(
        r#"api_version: templiqx/v1alpha1
id: omitted
version: 0.1.0
inputs:
  people:
    schema: {{ type: array, items: {{ type: object, required: [name], properties: {{ name: {{ type: string }} }} }} }}
    required: true
  titles: {{ schema: {{ type: array, items: {{ type: string }} }}, required: true }}
capabilities: [structured_output]
components:
  salutation:
    parameters:
      recipient: {{ schema: {{ type: string }}, required: true }}
      formal: {{ schema: {{ type: string }}, required: false }}
    content:
      - {{ kind: interpolate, expression: {{ kind: ref, path: recipient }} }}
      - {{ kind: text, value: " " }}
      - {{ kind: interpolate, expression: {{ kind: ref, path: formal }} }}
messages:
  - role: user
    content:
      - kind: for_each
        collection: {{ kind: ref, path: inputs.people }}
        item: {person}
        body:
{body}output_schema: {{ type: object }}
"#
    )
}

fn omitted_request() -> Map<String, Value> {
    object(json!({ "people": [{ "name": "Ryan" }], "titles": ["Dr"] }))
}

#[test]
fn an_omitted_optional_argument_is_missing_even_with_a_same_named_caller_local() {
    for nested in [true, false] {
        let text = omitted_contract(nested, None);
        let i = compile(&text, OMITTED_FILE, &common::structured_output());
        let e = templiqx::render(&i, &omitted_request(), &Map::new())
            .expect_err("the omitted argument is absent");
        assert_eq!(e.diagnostics.len(), 1, "{:?}", e.diagnostics);
        let d: &Diagnostic = &e.diagnostics[0];
        assert_eq!(d.code, Code::ValueMissing, "{d}");
        assert!(d.message.contains("omitted"), "{d}");
        // The site is the interpolation in the component body.
        assert_eq!(d.file.as_deref(), Some(OMITTED_FILE), "{d}");
        assert_eq!(
            d.json_pointer.as_deref(),
            Some("/components/salutation/content/2"),
            "{d}"
        );
        let span = d.span.expect("a span");
        assert_eq!(span.start.line, line_of(&text, "path: formal }"), "{d}");
        // No value in the request is to blame.
        assert!(!d.notes.iter().any(|n| n.contains("in the request")), "{d}");
    }
}

#[test]
fn a_passed_argument_is_evaluated_in_the_callers_scope() {
    // The control: passing the caller's local renders it, so the failure
    // above is the omission, not the contract.
    for (nested, formal, want) in [
        (true, "formal", "Ryan Dr"),
        (false, "formal.name", "Ryan Ryan"),
    ] {
        let text = omitted_contract(nested, Some(formal));
        let i = compile(&text, OMITTED_FILE, &common::structured_output());
        let r = templiqx::render(&i, &omitted_request(), &Map::new()).expect("renders");
        assert_eq!(r.messages[0].content, want, "{text}");
    }
}

// ---- format: date-time in requests ---------------------------------------------

const STAMPED: &str = r#"api_version: templiqx/v1alpha1
id: stamped
version: 0.1.0
inputs:
  at: { schema: { type: string, format: date-time }, required: true }
  events:
    schema:
      type: array
      items: { type: object, properties: { when: { type: string, format: date-time } } }
    required: false
context:
  now: { schema: { type: string, format: date-time }, required: false }
capabilities: [structured_output]
messages:
  - role: user
    content:
      - { kind: text, value: "At " }
      - { kind: interpolate, expression: { kind: ref, path: inputs.at } }
output_schema: { type: object }
"#;

fn stamped() -> Interaction {
    compile(
        STAMPED,
        "contracts/stamped.yaml",
        &common::structured_output(),
    )
}

#[test]
fn valid_date_times_render_verbatim() {
    let i = stamped();
    for at in [
        "2026-07-12T09:30:00Z",
        "2026-07-12T09:30:00.125+02:00",
        "2024-02-29T23:59:59-05:30",
        "1998-12-31T23:59:60Z",
    ] {
        let inputs = object(json!({
            "at": at,
            "events": [{ "when": "2026-01-01T00:00:00Z" }, {}]
        }));
        let context = object(json!({ "now": "2026-07-12T10:00:00+00:00" }));
        let r = templiqx::render(&i, &inputs, &context)
            .unwrap_or_else(|e| panic!("{at}: {:?}", e.diagnostics));
        assert_eq!(r.messages[0].content, format!("At {at}"));
    }
}

#[test]
fn invalid_date_times_are_value_invalid_at_their_request_pointer() {
    let i = stamped();
    let good = "2026-07-12T09:30:00Z";
    for bad in [
        "2026-02-30T10:00:00Z",     // no such day
        "2026-07-12T10:00:00",      // no offset
        "2026-07-12 10:00:00Z",     // no `T`
        "2026-07-12",               // a date, not a date-time
        "2026-07-12T24:00:00Z",     // no such hour
        "2026-07-12T10:00:00+2:00", // malformed offset
        " 2026-07-12T10:00:00Z",    // surrounding white space
        "1998-12-31T23:58:60Z",     // a leap second not at 23:59:60 UTC
    ] {
        let cases = [
            (json!({ "at": bad }), json!({}), "/inputs/at"),
            (
                json!({ "at": good, "events": [{ "when": good }, { "when": bad }] }),
                json!({}),
                "/inputs/events/1/when",
            ),
            (json!({ "at": good }), json!({ "now": bad }), "/context/now"),
        ];
        for (inputs, context, pointer) in cases {
            let e = templiqx::render(&i, &object(inputs), &object(context))
                .expect_err("an invalid date-time");
            assert_eq!(e.diagnostics.len(), 1, "{bad}: {:?}", e.diagnostics);
            let d = &e.diagnostics[0];
            assert_eq!(d.code, Code::ValueInvalid, "{bad}: {d}");
            assert_eq!(d.json_pointer.as_deref(), Some(pointer), "{bad}: {d}");
            // Request validation points into the request, not the contract.
            assert_eq!(d.file, None, "{bad}: {d}");
            assert!(d.message.contains("date-time"), "{bad}: {d}");
        }
    }
}

// ---- Extension capabilities at the adapter port -----------------------------------

const REASONED: &str = r#"api_version: templiqx/v1alpha1
id: reasoned
version: 0.1.0
inputs:
  text: { schema: { type: string }, required: true }
capabilities: [structured_output]
extensions:
  openai.reasoning_effort:
    capability: openai.reasoning
    schema: { type: string, enum: [low, medium, high] }
    value: medium
messages:
  - role: user
    content:
      - { kind: interpolate, expression: { kind: ref, path: inputs.text } }
output_schema:
  type: object
  properties: { ok: { type: boolean } }
"#;

/// An adapter that answers `{"ok": true}` and counts its invocations.
struct Counting {
    descriptor: AdapterDescriptor,
    invocations: AtomicU32,
}

impl Counting {
    fn new(capabilities: &[&str]) -> Counting {
        Counting {
            descriptor: AdapterDescriptor::new("counting", capabilities.iter().copied()),
            invocations: AtomicU32::new(0),
        }
    }

    fn answer(&self) -> Result<AdapterOutput, RuntimeFailure> {
        self.invocations.fetch_add(1, Ordering::SeqCst);
        Ok(AdapterOutput {
            output: json!({ "ok": true }).into(),
            usage: None,
        })
    }

    fn invocations(&self) -> u32 {
        self.invocations.load(Ordering::SeqCst)
    }
}

impl RuntimeAdapter for Counting {
    fn descriptor(&self) -> &AdapterDescriptor {
        &self.descriptor
    }

    fn invoke(&self, _request: &RenderedInteraction<'_>) -> Result<AdapterOutput, RuntimeFailure> {
        self.answer()
    }
}

impl AsyncRuntimeAdapter for Counting {
    fn descriptor(&self) -> &AdapterDescriptor {
        &self.descriptor
    }

    async fn invoke(
        &self,
        _request: &RenderedInteraction<'_>,
    ) -> Result<AdapterOutput, RuntimeFailure> {
        self.answer()
    }
}

/// Polls with a no-op waker until ready (the futures here never wait).
fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
            return out;
        }
    }
}

fn reasoning_target() -> CapabilityProfile {
    CapabilityProfile::parse_list("structured_output,openai.reasoning")
}

#[test]
fn an_adapter_without_an_extensions_capability_is_gated_before_invoking() {
    let i = compile(REASONED, "contracts/reasoned.yaml", &reasoning_target());
    let inputs = object(json!({ "text": "Think." }));
    let request = templiqx::render(&i, &inputs, &Map::new()).expect("renders");
    let adapter = Counting::new(&["structured_output"]);

    let error = RuntimeAdapter::execute(&adapter, &request).expect_err("gated");
    assert_eq!(error.failure.code, Code::CapabilityUnsupported);
    assert_eq!(error.diagnostics.len(), 1, "{:?}", error.diagnostics);
    assert_eq!(error.diagnostics[0].code, Code::CapabilityUnsupported);
    assert!(
        error.failure.detail.contains("`openai.reasoning`"),
        "{}",
        error.failure.detail
    );
    assert!(
        !error.failure.detail.contains("`structured_output`"),
        "{}",
        error.failure.detail
    );
    assert_eq!(error.receipt, error.failure.receipt());
    assert_eq!(error.attempts, 0);
    assert_eq!(adapter.invocations(), 0);

    let mut events = Vec::new();
    let streamed = RuntimeAdapter::execute_streaming(&adapter, &request, &mut |e| events.push(e))
        .expect_err("gated");
    assert_eq!(streamed, error);
    assert_eq!(
        events,
        [StreamEvent::Failed {
            failure: error.failure.clone()
        }]
    );

    let asynchronous =
        block_on(AsyncRuntimeAdapter::execute(&adapter, &request)).expect_err("gated");
    assert_eq!(asynchronous, error);
    let mut events = Vec::new();
    let streamed = block_on(AsyncRuntimeAdapter::execute_streaming(
        &adapter,
        &request,
        &mut |e| events.push(e),
    ))
    .expect_err("gated");
    assert_eq!(streamed, error);
    assert_eq!(events.len(), 1);
    assert_eq!(adapter.invocations(), 0, "nothing was invoked");
}

#[test]
fn the_extension_is_what_gates() {
    // The same adapter runs the contract without the extension, and an
    // adapter with the capability runs it with the extension.
    let plain = REASONED.replace(
        "extensions:\n  openai.reasoning_effort:\n    capability: openai.reasoning\n    schema: { type: string, enum: [low, medium, high] }\n    value: medium\n",
        "",
    );
    assert!(!plain.contains("extensions"));
    let inputs = object(json!({ "text": "Think." }));

    let i = compile(&plain, "contracts/reasoned.yaml", &reasoning_target());
    let request = templiqx::render(&i, &inputs, &Map::new()).expect("renders");
    let lacking = Counting::new(&["structured_output"]);
    let done = RuntimeAdapter::execute(&lacking, &request).expect("runs");
    assert_eq!(done.output, json!({ "ok": true }));
    assert_eq!(done.attempts, 1);
    assert_eq!(lacking.invocations(), 1);

    let i = compile(REASONED, "contracts/reasoned.yaml", &reasoning_target());
    let request = templiqx::render(&i, &inputs, &Map::new()).expect("renders");
    let able = Counting::new(&["structured_output", "openai.reasoning"]);
    RuntimeAdapter::execute(&able, &request).expect("runs");
    block_on(AsyncRuntimeAdapter::execute(&able, &request)).expect("runs");
    assert_eq!(able.invocations(), 2);
}
