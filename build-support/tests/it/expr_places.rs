//! Where each expression kind is allowed (`docs/format.md`, "Where each
//! kind is allowed"): contract content keeps to the format's kinds, and
//! the eval operators `compare`, `contains` and `length` anywhere in it —
//! a `when` condition, an interpolation, a component argument, a
//! `for_each` collection, nested or in a component body — are
//! `TQX_EXPR_KIND_NOT_ALLOWED` at their `kind`; in `expect` checks every
//! kind compiles.

use templiqx_build::compile_str;
use templiqx_contracts::{CapabilityProfile, Code, Diagnostic};

fn target() -> CapabilityProfile {
    CapabilityProfile::parse_list("structured_output")
}

/// A contract whose one message holds `node` (a flow mapping), with a
/// component `show` (an optional boolean `flag`, an optional integer
/// `count`) and the checks `expect` (flow mappings) of one fixture.
fn contract(node: &str, body: &str, expect: &[&str]) -> String {
    let checks: String = expect
        .iter()
        .enumerate()
        .map(|(i, check)| format!("      - {{ id: c{i}, check: {check} }}\n"))
        .collect();
    format!(
        r#"api_version: templiqx/v1alpha1
id: kinds
version: 0.1.0
inputs:
  name: {{ schema: {{ type: string }}, required: true }}
  tags: {{ schema: {{ type: array, items: {{ type: string }} }}, required: true }}
capabilities: [structured_output]
components:
  show:
    parameters:
      flag: {{ schema: {{ type: boolean }}, required: false }}
      count: {{ schema: {{ type: integer }}, required: false }}
    content:
      - {body}
messages:
  - role: user
    content:
      - {node}
output_schema:
  type: object
  required: [summary]
  properties:
    summary: {{ type: string }}
evals:
  - id: ada
    inputs: {{ name: Ada, tags: [a] }}
    fake_output: {{ summary: Ada }}
    expect:
{checks}      - {{ id: last, check: {{ kind: literal, value: true }} }}
"#
    )
}

const TEXT: &str = "{ kind: text, value: . }";
const COMPARE: &str = "{ kind: compare, op: ge, left: { kind: literal, value: 2 }, right: { kind: literal, value: 1 } }";
const CONTAINS: &str = "{ kind: contains, container: { kind: ref, path: inputs.tags }, item: { kind: literal, value: a } }";
const LENGTH: &str = "{ kind: length, of: { kind: ref, path: inputs.name } }";

fn diagnostics(text: &str) -> Vec<Diagnostic> {
    let c = compile_str(text, "contracts/kinds.yaml", &target());
    assert_eq!(c.interaction.is_some(), c.diagnostics.is_empty(), "{text}");
    c.diagnostics
}

/// The one diagnostic of `text`: `TQX_EXPR_KIND_NOT_ALLOWED` for `kind`
/// at `pointer`, naming `slot`, with the help saying where it is allowed.
fn refused(text: &str, kind: &str, slot: &str, pointer: &str) {
    let diags = diagnostics(text);
    assert_eq!(diags.len(), 1, "{text}\n{diags:#?}");
    let d = &diags[0];
    assert_eq!(d.code, Code::ExprKindNotAllowed, "{d:#?}");
    assert_eq!(d.json_pointer.as_deref(), Some(pointer), "{d:#?}");
    assert_eq!(d.message, format!("`{kind}` is not allowed in {slot}"));
    assert_eq!(
        d.help.as_deref(),
        Some(
            format!(
                "`{kind}` is allowed only in the `expect` checks of eval fixtures; contract \
                 content uses the format's expressions `ref`, `literal`, `equals`, `not`, \
                 `and`, `or`, which every implementation of the format renders alike"
            )
            .as_str()
        )
    );
    assert!(d.span.is_some(), "{d:#?}");
}

fn when(condition: &str) -> String {
    format!("{{ kind: when, condition: {condition}, then: [{TEXT}] }}")
}

fn interpolate(expression: &str) -> String {
    format!("{{ kind: interpolate, expression: {expression} }}")
}

fn call(argument: &str, value: &str) -> String {
    format!("{{ kind: component, name: show, with: {{ {argument}: {value} }} }}")
}

/// `length` is an integer: a condition compares it with `equals`.
fn length_equals() -> String {
    format!("{{ kind: equals, left: {LENGTH}, right: {{ kind: literal, value: 3 }} }}")
}

#[test]
fn each_eval_operator_is_refused_in_a_when_condition() {
    let at = "/messages/0/content/0/condition";
    for (kind, condition, pointer) in [
        ("compare", COMPARE.to_owned(), format!("{at}/kind")),
        ("contains", CONTAINS.to_owned(), format!("{at}/kind")),
        ("length", length_equals(), format!("{at}/left/kind")),
    ] {
        let text = contract(&when(&condition), TEXT, &[]);
        refused(&text, kind, "a `when` condition", &pointer);
    }
}

#[test]
fn each_eval_operator_is_refused_in_an_interpolation() {
    for (kind, expression) in [
        ("compare", COMPARE),
        ("contains", CONTAINS),
        ("length", LENGTH),
    ] {
        let text = contract(&interpolate(expression), TEXT, &[]);
        refused(
            &text,
            kind,
            "an interpolation",
            "/messages/0/content/0/expression/kind",
        );
    }
}

#[test]
fn each_eval_operator_is_refused_in_a_component_argument() {
    for (kind, argument, value) in [
        ("compare", "flag", COMPARE),
        ("contains", "flag", CONTAINS),
        ("length", "count", LENGTH),
    ] {
        let text = contract(&call(argument, value), TEXT, &[]);
        refused(
            &text,
            kind,
            "a component argument",
            &format!("/messages/0/content/0/with/{argument}/kind"),
        );
    }
}

#[test]
fn a_for_each_collection_is_held_to_the_format_too() {
    let node = format!("{{ kind: for_each, collection: {LENGTH}, item: it, body: [{TEXT}] }}");
    let diags = diagnostics(&contract(&node, TEXT, &[]));
    let codes: Vec<Code> = diags.iter().map(|d| d.code).collect();
    // An integer is no array either.
    assert_eq!(
        codes,
        [Code::ExprKindNotAllowed, Code::TypeMismatch],
        "{diags:#?}"
    );
    assert_eq!(
        diags[0].json_pointer.as_deref(),
        Some("/messages/0/content/0/collection/kind")
    );
    assert_eq!(
        diags[0].message,
        "`length` is not allowed in a `for_each` collection"
    );
}

#[test]
fn nested_occurrences_are_refused_the_outermost_once() {
    let at = "/messages/0/content/0/condition";
    let not = format!("{{ kind: not, operand: {COMPARE} }}");
    refused(
        &contract(&when(&not), TEXT, &[]),
        "compare",
        "a `when` condition",
        &format!("{at}/operand/kind"),
    );
    let and = format!(
        "{{ kind: and, operands: [{{ kind: literal, value: true }}, {{ kind: or, operands: [{CONTAINS}] }}] }}"
    );
    refused(
        &contract(&when(&and), TEXT, &[]),
        "contains",
        "a `when` condition",
        &format!("{at}/operands/1/operands/0/kind"),
    );
    // `compare` over `length`: one rewrite, one diagnostic.
    let both = format!(
        "{{ kind: compare, op: ge, left: {LENGTH}, right: {{ kind: literal, value: 3 }} }}"
    );
    refused(
        &contract(&when(&both), TEXT, &[]),
        "compare",
        "a `when` condition",
        &format!("{at}/kind"),
    );
    // Two separate uses are two diagnostics.
    let two = format!("{{ kind: or, operands: [{COMPARE}, {CONTAINS}] }}");
    let diags = diagnostics(&contract(&when(&two), TEXT, &[]));
    let pointers: Vec<&str> = diags
        .iter()
        .filter_map(|d| d.json_pointer.as_deref())
        .collect();
    assert_eq!(
        pointers,
        [
            format!("{at}/operands/0/kind"),
            format!("{at}/operands/1/kind")
        ]
    );
}

#[test]
fn a_component_body_is_content() {
    let text = contract(
        &call("flag", "{ kind: literal, value: true }"),
        &interpolate(LENGTH),
        &[],
    );
    refused(
        &text,
        "length",
        "an interpolation",
        "/components/show/content/0/expression/kind",
    );
}

#[test]
fn every_kind_is_accepted_in_expect_checks() {
    let text = contract(
        &interpolate("{ kind: ref, path: inputs.name }"),
        TEXT,
        &[
            COMPARE,
            CONTAINS,
            &length_equals(),
            "{ kind: contains, container: { kind: ref, path: output.summary }, item: { kind: ref, path: inputs.name } }",
            &format!(
                "{{ kind: not, operand: {{ kind: compare, op: lt, left: {LENGTH}, right: {{ kind: literal, value: 0 }} }} }}"
            ),
        ],
    );
    let diags = diagnostics(&text);
    assert!(diags.is_empty(), "{diags:#?}");
}

/// The issue's example: a `when` over `compare` and `length` used to check
/// and render; now it is refused, and the same expression is a check.
#[test]
fn the_same_expression_is_refused_in_content_and_accepted_as_a_check() {
    let expression = "{ kind: compare, op: gt, left: { kind: length, of: { kind: ref, path: inputs.tags } }, right: { kind: literal, value: 0 } }";
    let content = contract(&when(expression), TEXT, &[]);
    let diags = diagnostics(&content);
    assert_eq!(diags.len(), 1, "{diags:#?}");
    assert_eq!(diags[0].code, Code::ExprKindNotAllowed);
    let check = contract(
        &interpolate("{ kind: ref, path: inputs.name }"),
        TEXT,
        &[expression],
    );
    let diags = diagnostics(&check);
    assert!(diags.is_empty(), "{diags:#?}");
}

/// A partial's content is content: the diagnostic points into the partial.
#[test]
fn an_included_partial_is_content() {
    let dir = tempfile::tempdir().unwrap();
    let write = |rel: &str, text: &str| {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "templiqx.yaml",
        "api_version: templiqx/v1alpha1\npackage: scratch\nversion: 0.1.0\ncontracts: [kinds]\n",
    );
    write(
        "contracts/kinds.yaml",
        &contract("{ kind: include, path: partials/count.yaml }", TEXT, &[]),
    );
    write(
        "partials/count.yaml",
        &format!(
            "- {{ kind: text, value: 'Tags: ' }}\n- {}\n",
            interpolate(LENGTH)
        ),
    );
    let mut loader = templiqx_build::Loader::new(dir.path());
    let compiled = loader.compile_package(dir.path(), &target()).unwrap();
    let diags = &compiled[0].diagnostics;
    assert_eq!(diags.len(), 1, "{diags:#?}");
    assert_eq!(diags[0].code, Code::ExprKindNotAllowed);
    assert_eq!(diags[0].file.as_deref(), Some("partials/count.yaml"));
    assert_eq!(diags[0].json_pointer.as_deref(), Some("/1/expression/kind"));
}
