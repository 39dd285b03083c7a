//! Component arguments bound to references meet the parameter's full
//! schema when the call renders (unless the compiler proves they do), and
//! schemas whose values are all scalars — `enum`/`const` without `type`,
//! the items of a literal `for_each` array — interpolate as scalars
//! (`docs/format.md`, "Components" and "Typing rules"). The same checks
//! reach generated code.

use crate::common;

use serde_json::{Value, json};
use templiqx_contracts::ir::Node;
use templiqx_contracts::{Code, Diagnostic, Interaction};

const FILE: &str = "contracts/component_arguments.yaml";
const TEXT: &str = include_str!("../../contracts/component_arguments.yaml");

templiqx::include_contract!(
    "contracts/component_arguments.yaml",
    target = ["structured_output"]
);

fn compiled() -> Interaction {
    let c = templiqx_build::compile_str(TEXT, FILE, &common::structured_output());
    assert!(c.diagnostics.is_empty(), "{}", c.render_diagnostics());
    c.interaction.expect("the contract compiles")
}

fn request(due: &str, who: &str, team: &[&str]) -> Value {
    json!({ "due": due, "who": who, "signed": "2026-01-31", "team": team, "e": "b", "five": 5 })
}

/// Renders `inputs` through the compiled interaction and the generated
/// code; both must agree.
fn render(inputs: &Value) -> Result<String, Vec<Diagnostic>> {
    let i = compiled();
    let map = inputs.as_object().unwrap();
    let dynamic = templiqx::render(&i, map, &serde_json::Map::new())
        .map(|r| r.messages[0].content.clone())
        .map_err(|e| e.diagnostics);
    let typed: component_arguments::Inputs = serde_json::from_value(inputs.clone()).unwrap();
    let generated = component_arguments::render(&typed, &component_arguments::Context {})
        .map(|r| r.messages[0].content.clone())
        .map_err(|e| e.diagnostics);
    assert_eq!(generated, dynamic, "generated code agrees");
    dynamic.map_err(Into::into)
}

fn the_failure(inputs: &Value) -> Diagnostic {
    let mut diagnostics = render(inputs).expect_err("the render fails");
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    diagnostics.remove(0)
}

fn line_of(needle: &str) -> u32 {
    let at = TEXT.find(needle).expect("needle in the contract");
    u32::try_from(TEXT[..at].matches('\n').count() + 1).unwrap()
}

#[test]
fn only_arguments_the_compiler_cannot_prove_are_checked_when_rendered() {
    let i = compiled();
    let checked: Vec<Vec<u16>> = i.messages[0]
        .content
        .iter()
        .filter_map(|n| match n {
            Node::Call { checks, .. } => Some(checks.iter().map(|c| c.slot).collect()),
            Node::ForEach { body, .. } => match &body[0] {
                Node::Call { checks, .. } => Some(checks.iter().map(|c| c.slot).collect()),
                _ => None,
            },
            _ => None,
        })
        .collect();
    // `inputs.due` (a plain string) for `format: date`: checked;
    // `inputs.who` for `minLength` + `enum`: checked; `inputs.signed`,
    // declared `format: date` itself: proven; `inputs.e` (`enum: [a, b]`)
    // for a plain string: proven; a `for_each` item (a plain string) for
    // `greet`: checked.
    assert_eq!(checked, [vec![0], vec![0], vec![], vec![], vec![0]]);
}

#[test]
fn valid_arguments_and_value_typed_scalars_render() {
    let out = render(&request("2026-07-12", "Ann", &["Bob", "Ann"])).unwrap();
    assert_eq!(
        out,
        "due=2026-07-12 name=Anndue=2026-01-31 pick=b name=Bob name=Ann e=B five=5 it=x it=y"
    );
}

#[test]
fn a_referenced_argument_that_is_not_a_date_fails_at_the_argument() {
    let d = the_failure(&request("not a date", "Ann", &[]));
    assert_eq!(d.code, Code::ComponentArgument);
    assert_eq!(
        d.message,
        "argument `due` of component `deadline` does not fit the parameter's schema: \"not a date\" is not a valid RFC 3339 date"
    );
    assert_eq!(d.file.as_deref(), Some(FILE));
    assert_eq!(
        d.json_pointer.as_deref(),
        Some("/messages/0/content/0/with/due")
    );
    assert_eq!(
        d.span.map(|s| s.start.line),
        Some(line_of("due: { kind: ref, path: inputs.due }"))
    );
    assert_eq!(
        d.help.as_deref(),
        Some(
            "pass a value that meets the parameter's `format`, or declare `inputs.due` with the same `format` so that request validation rejects such values before rendering"
        )
    );
    assert_eq!(d.notes[0], "the value is at `/inputs/due` in the request");
    // Nothing of the component rendered: a failed render returns nothing.
}

#[test]
fn a_referenced_argument_outside_enum_and_min_length_fails_with_every_violation() {
    let d = the_failure(&request("2026-07-12", "", &[]));
    assert_eq!(d.code, Code::ComponentArgument);
    assert_eq!(
        d.json_pointer.as_deref(),
        Some("/messages/0/content/1/with/name")
    );
    assert_eq!(
        d.message,
        "argument `name` of component `greet` does not fit the parameter's schema: expected one of [\"Ann\", \"Bob\"], found string \"\""
    );
    assert_eq!(d.notes[0], "the value is at `/inputs/who` in the request");
    assert_eq!(
        d.notes[1],
        "also: expected at least 1 character, found 0 (minLength)"
    );
}

#[test]
fn a_for_each_item_is_checked_at_each_call() {
    let d = the_failure(&request("2026-07-12", "Bob", &["Ann", "Eve"]));
    assert_eq!(d.code, Code::ComponentArgument);
    assert_eq!(
        d.json_pointer.as_deref(),
        Some("/messages/0/content/4/body/0/with/name")
    );
    assert_eq!(
        d.help.as_deref(),
        Some("pass a value that meets the parameter's `enum`")
    );
    // A local's place in the request is not tracked.
    assert!(!d.notes.iter().any(|n| n.contains("in the request")), "{d}");
}

#[test]
fn a_schema_without_type_values_is_still_unconstrained() {
    let text = TEXT.replace(
        "e: { schema: { enum: [a, b] }",
        "e: { schema: { description: any }",
    );
    let c = templiqx_build::compile_str(&text, FILE, &common::structured_output());
    let messages: Vec<&str> = c.diagnostics.iter().map(|d| d.message.as_str()).collect();
    assert!(
        messages.contains(
            &"`upper` needs a string, but its input is an unconstrained value (no `type`, `enum` or `const`)"
        ),
        "{messages:?}"
    );
}

#[test]
fn literal_items_holding_objects_stay_unconstrained() {
    let text = TEXT.replace("value: [x, y] }", "value: [x, {y: 1}] }");
    let c = templiqx_build::compile_str(&text, FILE, &common::structured_output());
    let d = c
        .diagnostics
        .iter()
        .find(|d| d.code == Code::TypeMismatch)
        .unwrap_or_else(|| panic!("{}", c.render_diagnostics()));
    assert_eq!(
        d.message,
        "cannot interpolate `it` directly: it is an unconstrained value (no `type`, `enum` or `const`)"
    );
    assert_eq!(
        d.help.as_deref(),
        Some(
            "arrays, objects and null need the `json` filter; a scalar needs a declared `type` (or an `enum` or `const` of scalars)"
        )
    );
    // Mixed scalars and null: a nullable value, which needs `json`.
    let text = TEXT.replace("value: [x, y] }", "value: [x, null, 2] }");
    let c = templiqx_build::compile_str(&text, FILE, &common::structured_output());
    let d = c
        .diagnostics
        .iter()
        .find(|d| d.code == Code::TypeMismatch)
        .unwrap_or_else(|| panic!("{}", c.render_diagnostics()));
    assert_eq!(
        d.message,
        "cannot interpolate `it` directly: it is null or an integer or a string"
    );
}

#[test]
fn paths_below_value_typed_scalars_are_impossible_not_silent() {
    for (from, to, message) in [
        (
            "{ kind: interpolate, expression: { kind: ref, path: it } }",
            "{ kind: interpolate, expression: { kind: ref, path: it.size } }",
            "`it` is a string; it has no `size`",
        ),
        (
            "expression: { kind: ref, path: inputs.e }, filters: [upper]",
            "expression: { kind: ref, path: inputs.e.size }, filters: [upper]",
            "`inputs.e` is a string; it has no `size`",
        ),
    ] {
        let text = TEXT.replace(from, to);
        assert_ne!(text, TEXT);
        let c = templiqx_build::compile_str(&text, FILE, &common::structured_output());
        let codes: Vec<Code> = c.diagnostics.iter().map(|d| d.code).collect();
        assert_eq!(codes, [Code::RefImpossible], "{}", c.render_diagnostics());
        assert_eq!(c.diagnostics[0].message, message);
        assert_eq!(
            c.diagnostics[0].help.as_deref(),
            Some("only objects and arrays have nested paths")
        );
    }
}

#[test]
fn a_violation_inside_an_object_argument_names_its_place() {
    let text = r#"api_version: templiqx/v1alpha1
id: card
version: 0.1.0
inputs:
  person:
    schema: { type: object, properties: { born: { type: string } }, required: [born] }
    required: true
capabilities: [structured_output]
components:
  card:
    parameters:
      p:
        schema: { type: object, properties: { born: { type: string, format: date } }, required: [born] }
        required: true
    content:
      - { kind: interpolate, expression: { kind: ref, path: p.born }, filters: [format_date] }
messages:
  - role: user
    content:
      - kind: component
        name: card
        with:
          p: { kind: ref, path: inputs.person }
output_schema: { type: object }
"#;
    let c = templiqx_build::compile_str(text, "contracts/card.yaml", &common::structured_output());
    let i = c
        .interaction
        .unwrap_or_else(|| panic!("{:?}", c.diagnostics));
    let inputs = json!({ "person": { "born": "1815-12-10" } });
    let ok = templiqx::render(&i, inputs.as_object().unwrap(), &serde_json::Map::new()).unwrap();
    assert_eq!(ok.messages[0].content, "1815-12-10");
    let inputs = json!({ "person": { "born": "yesterday" } });
    let e = templiqx::render(&i, inputs.as_object().unwrap(), &serde_json::Map::new()).unwrap_err();
    let d = &e.diagnostics[0];
    assert_eq!(d.code, Code::ComponentArgument);
    assert_eq!(
        d.message,
        "argument `p` of component `card` does not fit the parameter's schema at `/born` within it: \"yesterday\" is not a valid RFC 3339 date"
    );
    assert_eq!(
        d.json_pointer.as_deref(),
        Some("/messages/0/content/0/with/p")
    );
    assert_eq!(
        d.notes[0],
        "the value is at `/inputs/person/born` in the request"
    );
    assert_eq!(
        d.help.as_deref(),
        Some(
            "pass a value that meets the parameter's `format` at `/born`, or declare `inputs.person` with the same `format` at `/born` so that request validation rejects such values before rendering"
        )
    );
}
