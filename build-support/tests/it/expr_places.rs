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
    // Refused, its type unknown: no "needs an array" mismatch besides.
    refused(
        &contract(&node, TEXT, &[]),
        "length",
        "a `for_each` collection",
        "/messages/0/content/0/collection/kind",
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

/// The one diagnostic of `text`.
fn only(text: &str) -> Diagnostic {
    let mut diags = diagnostics(text);
    assert_eq!(diags.len(), 1, "{text}\n{diags:#?}");
    diags.remove(0)
}

/// The format's kinds, as a help lists them.
const CONTENT_KINDS: &str = "`ref`, `literal`, `equals`, `not`, `and`, `or`";

/// A misspelt kind is suggested only a kind its place allows: in content,
/// `comparre` is not "did you mean `compare`?" (which would be refused
/// next), and the help says where `compare` is allowed; in a check it is.
#[test]
fn a_misspelt_kind_is_suggested_only_a_kind_allowed_there() {
    let misspelt = "{ kind: comparre, op: ge, left: { kind: literal, value: 2 }, right: { kind: literal, value: 1 } }";
    let d = only(&contract(&when(misspelt), TEXT, &[]));
    assert_eq!(d.code, Code::UnknownVariant, "{d:#?}");
    assert_eq!(d.message, "unknown expression kind `comparre`");
    assert_eq!(
        d.help.as_deref(),
        Some(
            format!(
                "expected one of {CONTENT_KINDS}; `compare` is allowed only in the `expect` checks of eval fixtures"
            )
            .as_str()
        )
    );
    assert!(d.suggestion.is_none(), "no fix to a refused kind: {d:#?}");
    // A kind allowed in content is still suggested, with its fix.
    let d = only(&contract(
        &when("{ kind: nto, operand: { kind: literal, value: true } }"),
        TEXT,
        &[],
    ));
    assert_eq!(d.help.as_deref(), Some("did you mean `not`?"));
    assert_eq!(
        d.suggestion.as_ref().map(|s| s.replacement.as_str()),
        Some("not")
    );
    // In a check, `compare` is the suggestion.
    let d = only(&contract(TEXT, TEXT, &[misspelt]));
    assert_eq!(d.code, Code::UnknownVariant, "{d:#?}");
    assert_eq!(d.help.as_deref(), Some("did you mean `compare`?"));
    assert_eq!(
        d.suggestion.as_ref().map(|s| s.replacement.as_str()),
        Some("compare")
    );
    // As an operand of a check, `judge` is not (a whole check only).
    let d = only(&contract(
        TEXT,
        TEXT,
        &[
            "{ kind: not, operand: { kind: jugde, contract: other, pass: { kind: literal, value: true } } }",
        ],
    ));
    assert!(d.suggestion.is_none(), "{d:#?}");
    assert!(
        d.help
            .as_deref()
            .unwrap()
            .ends_with("`length`; `judge` is a whole `expect` check, never an operand"),
        "{d:#?}"
    );
}

/// The kinds a help lists are those of the place: content's own in
/// content, every kind in a check, all but `judge` in an operand.
#[test]
fn the_kinds_a_help_lists_are_the_place_s() {
    let d = only(&contract(&when("{ op: ge }"), TEXT, &[]));
    assert_eq!(d.code, Code::MissingField, "{d:#?}");
    assert_eq!(
        d.help.as_deref(),
        Some(format!("add `kind:` with one of {CONTENT_KINDS}").as_str())
    );
    let d = only(&contract(&interpolate("{ kind: frobnicate }"), TEXT, &[]));
    assert_eq!(d.code, Code::UnknownVariant, "{d:#?}");
    assert_eq!(
        d.help.as_deref(),
        Some(format!("expected one of {CONTENT_KINDS}").as_str())
    );
    let every = format!("{CONTENT_KINDS}, `compare`, `contains`, `length`");
    let d = only(&contract(TEXT, TEXT, &["{ kind: frobnicate }"]));
    assert_eq!(
        d.help.as_deref(),
        Some(format!("expected one of {every}, `judge`").as_str())
    );
    let d = only(&contract(
        TEXT,
        TEXT,
        &["{ kind: not, operand: { value: 1 } }"],
    ));
    assert_eq!(
        d.help.as_deref(),
        Some(format!("add `kind:` with one of {every}").as_str())
    );
}

/// A kind refused in content is reported as not allowed, whatever its
/// fields: neither a missing `op` nor an unknown field is reported.
#[test]
fn a_malformed_refused_kind_is_reported_as_not_allowed() {
    let at = "/messages/0/content/0/condition";
    for condition in [
        "{ kind: compare, left: { kind: literal, value: 2 }, right: { kind: literal, value: 1 } }",
        "{ kind: contains, container: { kind: ref, path: inputs.tags }, itme: 3 }",
        "{ kind: length }",
        "{ kind: not, operand: { kind: length, of: { kind: nope } } }",
    ] {
        let kind = ["compare", "contains", "length"]
            .into_iter()
            .find(|k| condition.contains(&format!("kind: {k}")))
            .unwrap();
        let pointer = if condition.starts_with("{ kind: not") {
            format!("{at}/operand/kind")
        } else {
            format!("{at}/kind")
        };
        refused(
            &contract(&when(condition), TEXT, &[]),
            kind,
            "a `when` condition",
            &pointer,
        );
    }
}

/// Once a kind is refused, nothing follows from it: not its operands'
/// types, not its own type where it is used.
#[test]
fn a_refused_kind_brings_no_follow_on_errors() {
    // `compare` over a string: no "compare numbers" mismatch.
    let over_string = "{ kind: compare, op: ge, left: { kind: ref, path: inputs.name }, right: { kind: literal, value: 1 } }";
    refused(
        &contract(&when(over_string), TEXT, &[]),
        "compare",
        "a `when` condition",
        "/messages/0/content/0/condition/kind",
    );
    // Under `not`, its type is unknown, not a mismatch.
    let not = format!("{{ kind: not, operand: {LENGTH} }}");
    refused(
        &contract(&when(&not), TEXT, &[]),
        "length",
        "a `when` condition",
        "/messages/0/content/0/condition/operand/kind",
    );
    // Interpolated through a string filter.
    let filtered = format!("{{ kind: interpolate, expression: {LENGTH}, filters: [upper] }}");
    refused(
        &contract(&filtered, TEXT, &[]),
        "length",
        "an interpolation",
        "/messages/0/content/0/expression/kind",
    );
    // As a component argument of another type.
    refused(
        &contract(&call("flag", LENGTH), TEXT, &[]),
        "length",
        "a component argument",
        "/messages/0/content/0/with/flag/kind",
    );
}
