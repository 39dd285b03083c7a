//! One test per rejection rule of the contract format (`docs/format.md`) that
//! concerns a single contract file: each asserts the diagnostic code, the JSON
//! pointer of the offending node, and the line it is reported on.

use templiqx_build::compile_str;
use templiqx_contracts::{CapabilityProfile, Code, Diagnostic};

/// A contract with `structured_output`, one required string input `name`,
/// and the given extra sections spliced in.
struct Doc {
    inputs: &'static str,
    context: &'static str,
    content: &'static str,
    extra: &'static str,
}

impl Default for Doc {
    fn default() -> Self {
        Doc {
            inputs: "  name:\n    schema: { type: string, minLength: 1 }\n    required: true\n",
            context: "",
            content: "      - { kind: text, value: hi }\n",
            extra: "",
        }
    }
}

impl Doc {
    fn text(&self) -> String {
        format!(
            "api_version: templiqx/v1alpha1\nid: sample\nversion: 0.1.0\ninputs:\n{}context:\n{}capabilities: [structured_output]\nmessages:\n  - role: user\n    content:\n{}output_schema:\n  type: object\n{}",
            self.inputs,
            if self.context.is_empty() { "  {}\n" } else { self.context },
            self.content,
            self.extra
        )
        .replace("context:\n  {}\n", "context: {}\n")
    }
}

fn target() -> CapabilityProfile {
    CapabilityProfile::parse_list("structured_output")
}

fn diagnostics(text: &str, target: &CapabilityProfile) -> Vec<Diagnostic> {
    let c = compile_str(text, "contracts/sample.yaml", target);
    assert_eq!(c.interaction.is_some(), c.diagnostics.is_empty(), "{text}");
    c.diagnostics
}

/// 1-based line of the first line containing `needle`.
fn line_of(text: &str, needle: &str) -> u32 {
    let index = text
        .lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("`{needle}` not in\n{text}"));
    u32::try_from(index).unwrap() + 1
}

/// Asserts that compiling `text` yields a diagnostic with `code` at
/// `pointer` on the line holding `needle`.
#[track_caller]
fn expect(text: &str, code: Code, pointer: &str, needle: &str) -> Diagnostic {
    expect_for(text, &target(), code, pointer, needle)
}

#[track_caller]
fn expect_for(
    text: &str,
    target: &CapabilityProfile,
    code: Code,
    pointer: &str,
    needle: &str,
) -> Diagnostic {
    let diags = diagnostics(text, target);
    let line = line_of(text, needle);
    let found = diags
        .iter()
        .find(|d| d.code == code && d.json_pointer.as_deref() == Some(pointer));
    let Some(d) = found else {
        panic!(
            "expected {code} at {pointer}, got:\n{}\n--- in ---\n{text}",
            render(&diags)
        );
    };
    assert_eq!(d.file.as_deref(), Some("contracts/sample.yaml"));
    let span = d
        .span
        .unwrap_or_else(|| panic!("{code} at {pointer} has no span"));
    assert_eq!(
        span.start.line, line,
        "line of {code} at {pointer}: {d}\n{text}"
    );
    assert!(
        d.help.as_deref().is_some_and(|h| !h.is_empty()),
        "{code} has no help"
    );
    d.clone()
}

fn render(diags: &[Diagnostic]) -> String {
    diags
        .iter()
        .map(|d| format!("  {d}"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn with_content(content: &'static str) -> String {
    Doc {
        content,
        ..Doc::default()
    }
    .text()
}

const PERSON: &str = "  name:\n    schema: { type: string, minLength: 1 }\n    required: true\n  person:\n    schema:\n      type: object\n      properties:\n        first: { type: string }\n        tags: { type: array, items: { type: string } }\n        address:\n          type: object\n          properties:\n            city: { type: string }\n    required: true\n  items:\n    schema:\n      type: array\n      items:\n        type: object\n        properties:\n          label: { type: string }\n          qty: { type: integer }\n    required: true\n  flag:\n    schema: { type: boolean }\n    required: true\n  maybe_flag:\n    schema: { type: [boolean, 'null'] }\n    required: true\n  count:\n    schema: { type: integer }\n    required: true\n  when_date:\n    schema: { type: string, format: date }\n    required: false\n  loose:\n    schema: {}\n    required: false\n";

fn person(content: &'static str) -> String {
    Doc {
        inputs: PERSON,
        content,
        ..Doc::default()
    }
    .text()
}

#[test]
fn the_base_documents_compile() {
    assert!(diagnostics(&Doc::default().text(), &target()).is_empty());
    assert!(diagnostics(&person("      - { kind: text, value: ok }\n"), &target()).is_empty());
}

// ---- Strict parsing -------------------------------------------------------

#[test]
fn unknown_top_level_field() {
    let t = Doc {
        extra: "colour: blue\n",
        ..Doc::default()
    }
    .text();
    expect(&t, Code::UnknownField, "/colour", "colour: blue");
}

#[test]
fn unknown_field_in_a_content_node_suggests_the_right_one() {
    let t = with_content("      - { kind: text, valeu: hi }\n");
    let d = expect(
        &t,
        Code::UnknownField,
        "/messages/0/content/0/valeu",
        "valeu",
    );
    assert!(d.help.unwrap().contains("did you mean `value`"));
    assert_eq!(d.suggestion.unwrap().replacement, "value");
    // When the node already has `value`, the help still says so, but no
    // fix writes it: it would repeat the key.
    let t = with_content("      - { kind: text, value: hi, valeu: ho }\n");
    let d = diagnostics(&t, &target()).remove(0);
    assert_eq!(
        d.json_pointer.as_deref(),
        Some("/messages/0/content/0/valeu")
    );
    assert!(d.help.unwrap().contains("did you mean `value`"));
    assert_eq!(d.suggestion, None);
}

#[test]
fn unknown_role() {
    let t = Doc::default()
        .text()
        .replace("role: user", "role: narrator");
    expect(&t, Code::UnknownVariant, "/messages/0/role", "narrator");
}

#[test]
fn unknown_node_kind() {
    let t = with_content("      - { kind: script, value: rm }\n");
    expect(
        &t,
        Code::UnknownVariant,
        "/messages/0/content/0/kind",
        "script",
    );
}

#[test]
fn unknown_filter() {
    let t = with_content(
        "      - kind: interpolate\n        expression: { kind: ref, path: inputs.name }\n        filters: [trim, shout]\n",
    );
    expect(
        &t,
        Code::UnknownVariant,
        "/messages/0/content/0/filters/1",
        "shout",
    );
}

#[test]
fn unknown_expression_kind() {
    let t = with_content(
        "      - kind: interpolate\n        expression: { kind: eval, path: inputs.name }\n",
    );
    expect(
        &t,
        Code::UnknownVariant,
        "/messages/0/content/0/expression/kind",
        "eval",
    );
}

#[test]
fn missing_required_field() {
    let t = with_content("      - { kind: for_each, item: x, body: [] }\n");
    expect(&t, Code::MissingField, "/messages/0/content/0", "for_each");
}

#[test]
fn wrong_shape() {
    let t = Doc::default()
        .text()
        .replace("version: 0.1.0", "version: 1.5");
    let d = expect(&t, Code::InvalidType, "/version", "version: 1.5");
    assert!(d.help.unwrap().contains("quote"));
}

#[test]
fn provenance_values_are_strings() {
    let with = |provenance: &'static str| -> String {
        Doc {
            extra: Box::leak(format!("provenance:\n{provenance}").into_boxed_str()),
            ..Doc::default()
        }
        .text()
    };
    let ok = with("  owner: templiqx\n  reviewed: '2026'\n");
    assert!(diagnostics(&ok, &target()).is_empty());
    let cases = [
        ("  reviewed: 2026\n", "/provenance/reviewed", "quote"),
        ("  audited: true\n", "/provenance/audited", "quote"),
        ("  approver: ~\n", "/provenance/approver", "quote"),
        ("  tags: [a, b]\n", "/provenance/tags", "a string"),
        ("  team: { name: x }\n", "/provenance/team", "a string"),
        ("  a/b: 1\n", "/provenance/a~1b", "quote"),
    ];
    for (body, pointer, help) in cases {
        let t = with(Box::leak(
            format!("  owner: templiqx\n{body}").into_boxed_str(),
        ));
        let d = expect(&t, Code::InvalidType, pointer, body.trim_end());
        assert!(d.help.unwrap().contains(help), "{pointer}");
    }
    // Every bad value is reported, not just the first.
    let t = with("  a: 1\n  b: 2\n");
    expect(&t, Code::InvalidType, "/provenance/a", "a: 1");
    expect(&t, Code::InvalidType, "/provenance/b", "b: 2");
    // The provenance itself must be a mapping.
    let t = Doc {
        extra: "provenance: [owner]\n",
        ..Doc::default()
    }
    .text();
    expect(&t, Code::InvalidType, "/provenance", "provenance:");
}

#[test]
fn duplicate_keys_tags_and_alias_bombs_are_yaml_errors() {
    let dup = Doc::default()
        .text()
        .replace("id: sample\n", "id: sample\nid: again\n");
    let d = &diagnostics(&dup, &target())[0];
    assert_eq!(
        (d.code, d.span.unwrap().start.line),
        (Code::ParseYaml, line_of(&dup, "id: again"))
    );

    let tag = Doc::default()
        .text()
        .replace("id: sample", "id: !custom sample");
    let d = &diagnostics(&tag, &target())[0];
    assert_eq!(
        (d.code, d.span.unwrap().start.line),
        (Code::ParseYaml, line_of(&tag, "!custom"))
    );

    let mut bomb = String::from("a: &a [x, x, x, x, x, x, x, x, x]\n");
    for (i, name) in ["b", "c", "d", "e", "f", "g", "h", "i"].iter().enumerate() {
        let prev = ["a", "b", "c", "d", "e", "f", "g", "h"][i];
        bomb.push_str(&format!("{name}: &{name} [*{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}]\n"));
    }
    let d = &diagnostics(&bomb, &target())[0];
    assert_eq!(d.code, Code::ParseYaml);
}

#[test]
fn api_version_and_semver() {
    let t = Doc::default()
        .text()
        .replace("templiqx/v1alpha1", "templiqx/v2");
    expect(&t, Code::ApiVersion, "/api_version", "api_version");
    let t = Doc::default()
        .text()
        .replace("version: 0.1.0", "version: '1.0'");
    expect(&t, Code::InvalidValue, "/version", "version: '1.0'");
}

#[test]
fn runtime_policy_is_closed_and_bounded() {
    let cases = [
        (
            "  temprature: 1\n",
            Code::UnknownField,
            "/runtime_policy/temprature",
            "temprature",
        ),
        (
            "  temperature: 2.5\n",
            Code::PolicyRange,
            "/runtime_policy/temperature",
            "temperature",
        ),
        (
            "  temperature: -0.1\n",
            Code::PolicyRange,
            "/runtime_policy/temperature",
            "temperature",
        ),
        (
            "  top_p: 1.01\n",
            Code::PolicyRange,
            "/runtime_policy/top_p",
            "top_p",
        ),
        (
            "  max_output_tokens: 0\n",
            Code::PolicyRange,
            "/runtime_policy/max_output_tokens",
            "max_output_tokens",
        ),
        (
            "  max_output_tokens: 1000001\n",
            Code::PolicyRange,
            "/runtime_policy/max_output_tokens",
            "max_output_tokens",
        ),
        (
            "  timeout_ms: 600001\n",
            Code::PolicyRange,
            "/runtime_policy/timeout_ms",
            "timeout_ms",
        ),
        (
            "  max_attempts: 11\n",
            Code::PolicyRange,
            "/runtime_policy/max_attempts",
            "max_attempts",
        ),
        (
            "  max_attempts: 1.5\n",
            Code::InvalidType,
            "/runtime_policy/max_attempts",
            "max_attempts",
        ),
        (
            "  temperature: hot\n",
            Code::InvalidType,
            "/runtime_policy/temperature",
            "hot",
        ),
    ];
    for (policy, code, pointer, needle) in cases {
        let extra = Box::leak(format!("runtime_policy:\n{policy}").into_boxed_str());
        let t = Doc {
            extra,
            ..Doc::default()
        }
        .text();
        expect(&t, code, pointer, needle);
    }
    let ok = Doc {
        extra: "runtime_policy: { temperature: 2, top_p: 0, max_output_tokens: 1000000, timeout_ms: 600000, max_attempts: 10 }\n",
        ..Doc::default()
    };
    assert!(diagnostics(&ok.text(), &target()).is_empty());
}

// ---- References -----------------------------------------------------------

fn interp(path: &'static str, filters: &'static str) -> &'static str {
    Box::leak(
        format!("      - kind: interpolate\n        expression: {{ kind: ref, path: {path} }}\n        filters: [{filters}]\n")
            .into_boxed_str(),
    )
}

#[test]
fn unknown_root_and_unknown_field() {
    let t = person(interp("input.name", ""));
    expect(
        &t,
        Code::RefUnknown,
        "/messages/0/content/0/expression/path",
        "input.name",
    );
    let t = person(interp("inputs.nmae", ""));
    let d = expect(
        &t,
        Code::RefUnknown,
        "/messages/0/content/0/expression/path",
        "inputs.nmae",
    );
    assert!(d.help.unwrap().contains("inputs.name"));
    let t = person(interp("context.name", ""));
    expect(
        &t,
        Code::RefUnknown,
        "/messages/0/content/0/expression/path",
        "context.name",
    );
}

#[test]
fn bare_scopes_and_empty_segments_are_unknown_references() {
    let cases = [
        ("inputs", "names a scope, not a value"),
        ("context", "names a scope, not a value"),
        ("inputs..name", "has an empty segment"),
        ("inputs.name.", "has an empty segment"),
        (".name", "has an empty segment"),
        ("inputs.person..first", "has an empty segment"),
    ];
    for (path, message) in cases {
        let t = person(interp(path, "json"));
        let d = expect(
            &t,
            Code::RefUnknown,
            "/messages/0/content/0/expression/path",
            "expression:",
        );
        assert!(d.message.contains(message), "{path}: {d}");
        let diags = diagnostics(&t, &target());
        assert_eq!(diags.len(), 1, "{path}: {}", render(&diags));
    }
    // The same inside a `for_each` body, below the item.
    let t = person(
        "      - kind: for_each\n        collection: { kind: ref, path: inputs.items }\n        item: it\n        body:\n          - { kind: interpolate, expression: { kind: ref, path: it..label } }\n",
    );
    expect(
        &t,
        Code::RefUnknown,
        "/messages/0/content/0/body/0/expression/path",
        "it..label",
    );
}

#[test]
fn nested_object_and_array_paths_are_checked() {
    assert!(diagnostics(&person(interp("inputs.person.address.city", "")), &target()).is_empty());
    assert!(diagnostics(&person(interp("inputs.items.0.label", "")), &target()).is_empty());
    for index in ["+1", "01", "-1", "1e2", "99999999999"] {
        let path = format!("inputs.items.{index}.label");
        let t = person(interp(Box::leak(path.into_boxed_str()), ""));
        let d = expect(
            &t,
            Code::RefImpossible,
            "/messages/0/content/0/expression/path",
            "inputs.items.",
        );
        assert!(d.message.contains("is not an index"), "{index}: {d}");
    }
    let t = person(interp("inputs.person.address.zip", ""));
    expect(
        &t,
        Code::RefUnknown,
        "/messages/0/content/0/expression/path",
        "address.zip",
    );
    let t = person(interp("inputs.person.first.length", ""));
    expect(
        &t,
        Code::RefImpossible,
        "/messages/0/content/0/expression/path",
        "first.length",
    );
    let t = person(interp("inputs.items.first.label", ""));
    expect(
        &t,
        Code::RefImpossible,
        "/messages/0/content/0/expression/path",
        "items.first",
    );
    let t = person(interp("inputs.loose.anything", ""));
    expect(
        &t,
        Code::RefUnknown,
        "/messages/0/content/0/expression/path",
        "loose.anything",
    );
}

#[test]
fn paths_below_for_each_items_are_checked() {
    let ok = person(
        "      - kind: for_each\n        collection: { kind: ref, path: inputs.items }\n        item: it\n        body:\n          - { kind: interpolate, expression: { kind: ref, path: it.label } }\n",
    );
    assert!(diagnostics(&ok, &target()).is_empty());
    let t = person(
        "      - kind: for_each\n        collection: { kind: ref, path: inputs.items }\n        item: it\n        body:\n          - { kind: interpolate, expression: { kind: ref, path: it.price } }\n",
    );
    expect(
        &t,
        Code::RefUnknown,
        "/messages/0/content/0/body/0/expression/path",
        "it.price",
    );
    // The item is not visible after the loop.
    let t = person(
        "      - kind: for_each\n        collection: { kind: ref, path: inputs.items }\n        item: it\n        body: []\n      - { kind: interpolate, expression: { kind: ref, path: it.label } }\n",
    );
    expect(
        &t,
        Code::RefUnknown,
        "/messages/0/content/1/expression/path",
        "path: it.label",
    );
}

#[test]
fn reserved_local_names() {
    let t = person(
        "      - kind: for_each\n        collection: { kind: ref, path: inputs.items }\n        item: inputs\n        body: []\n",
    );
    let d = expect(
        &t,
        Code::LocalReserved,
        "/messages/0/content/0/item",
        "item: inputs",
    );
    assert!(d.help.unwrap().contains("`inputs` and `context`"));
    let t = Doc {
        extra: "components:\n  badge:\n    parameters:\n      context: { schema: { type: string }, required: true }\n    content: []\n",
        ..Doc::default()
    }
    .text();
    expect(
        &t,
        Code::LocalReserved,
        "/components/badge/parameters/context",
        "context: { schema",
    );
}

// ---- Types ----------------------------------------------------------------

#[test]
fn conditions_need_booleans() {
    let when = |cond: &'static str| -> String {
        person(Box::leak(
            format!("      - kind: when\n        condition: {cond}\n        then: []\n")
                .into_boxed_str(),
        ))
    };
    assert!(diagnostics(&when("{ kind: ref, path: inputs.flag }"), &target()).is_empty());
    let t = when("{ kind: ref, path: inputs.name }");
    expect(
        &t,
        Code::TypeMismatch,
        "/messages/0/content/0/condition",
        "condition",
    );
    let t = when("{ kind: ref, path: inputs.maybe_flag }");
    expect(
        &t,
        Code::TypeMismatch,
        "/messages/0/content/0/condition",
        "condition",
    );
    let t = when("{ kind: not, operand: { kind: literal, value: 1 } }");
    expect(
        &t,
        Code::TypeMismatch,
        "/messages/0/content/0/condition/operand",
        "condition",
    );
    let t = when(
        "{ kind: and, operands: [{ kind: ref, path: inputs.flag }, { kind: ref, path: inputs.count }] }",
    );
    expect(
        &t,
        Code::TypeMismatch,
        "/messages/0/content/0/condition/operands/1",
        "condition",
    );
    let t = when("{ kind: or, operands: [{ kind: literal, value: 'yes' }] }");
    expect(
        &t,
        Code::TypeMismatch,
        "/messages/0/content/0/condition/operands/0",
        "condition",
    );
    // equals yields a boolean whatever its operands are.
    assert!(diagnostics(&when("{ kind: equals, left: { kind: ref, path: inputs.maybe_flag }, right: { kind: literal, value: null } }"), &target()).is_empty());
}

#[test]
fn for_each_needs_an_array() {
    let t = person(
        "      - kind: for_each\n        collection: { kind: ref, path: inputs.name }\n        item: c\n        body: []\n",
    );
    expect(
        &t,
        Code::TypeMismatch,
        "/messages/0/content/0/collection",
        "collection",
    );
}

#[test]
fn interpolating_non_scalars_needs_json() {
    let t = person(interp("inputs.person", ""));
    expect(
        &t,
        Code::TypeMismatch,
        "/messages/0/content/0/expression",
        "inputs.person",
    );
    let t = person(interp("inputs.items", ""));
    expect(
        &t,
        Code::TypeMismatch,
        "/messages/0/content/0/expression",
        "inputs.items",
    );
    let t = person(interp("inputs.maybe_flag", ""));
    expect(
        &t,
        Code::TypeMismatch,
        "/messages/0/content/0/expression",
        "inputs.maybe_flag",
    );
    let t = person("      - { kind: interpolate, expression: { kind: literal, value: null } }\n");
    expect(
        &t,
        Code::TypeMismatch,
        "/messages/0/content/0/expression",
        "literal",
    );
    for ok in [
        "inputs.person",
        "inputs.items",
        "inputs.maybe_flag",
        "inputs.loose",
    ] {
        let t = person(interp(ok, "json"));
        assert!(diagnostics(&t, &target()).is_empty(), "{ok}");
    }
}

#[test]
fn filters_check_their_input_types() {
    let cases = [
        ("inputs.count", "trim", "/messages/0/content/0/filters/0"),
        ("inputs.items", "lower", "/messages/0/content/0/filters/0"),
        ("inputs.flag", "upper", "/messages/0/content/0/filters/0"),
        (
            "inputs.name",
            "format_number",
            "/messages/0/content/0/filters/0",
        ),
        (
            "inputs.count",
            "format_date",
            "/messages/0/content/0/filters/0",
        ),
        (
            "inputs.name",
            "json, format_number",
            "/messages/0/content/0/filters/1",
        ),
    ];
    for (path, filters, pointer) in cases {
        let t = person(interp(path, filters));
        expect(&t, Code::FilterType, pointer, "filters:");
    }
    for (path, filters) in [
        ("inputs.count", "format_number"),
        ("inputs.when_date", "format_date"),
        ("inputs.name", "trim, upper"),
        ("inputs.person", "json, lower"),
    ] {
        assert!(
            diagnostics(&person(interp(path, filters)), &target()).is_empty(),
            "{path} | {filters}"
        );
    }
}

// ---- Schemas --------------------------------------------------------------

#[test]
fn unsupported_schema_keyword_and_impossible_bounds() {
    let t = Doc {
        inputs: "  name:\n    schema: { type: string, pattern: '^a' }\n    required: true\n",
        ..Doc::default()
    }
    .text();
    expect(
        &t,
        Code::SchemaUnsupported,
        "/inputs/name/schema/pattern",
        "pattern",
    );
    let t = Doc { inputs: "  name:\n    schema:\n      type: string\n      minLength: 5\n      maxLength: 2\n    required: true\n", ..Doc::default() }.text();
    let d = diagnostics(&t, &target());
    assert!(
        d.iter().any(|d| d.code == Code::SchemaBounds
            && d.json_pointer
                .as_deref()
                .is_some_and(|p| p.starts_with("/inputs/name/schema"))),
        "{}",
        render(&d)
    );
    let t = Doc {
        extra: "  properties: { a: { type: integer, exclusiveMinimum: 1, exclusiveMaximum: 2 } }\n",
        ..Doc::default()
    }
    .text();
    let d = diagnostics(&t, &target());
    assert!(
        d.iter().any(|d| d.code == Code::SchemaBounds
            && d.json_pointer
                .as_deref()
                .is_some_and(|p| p.starts_with("/output_schema/properties/a"))),
        "{}",
        render(&d)
    );
}

#[test]
fn component_parameter_schemas_are_in_the_subset_and_bounded() {
    let param = |schema: &'static str| -> String {
        Doc {
            extra: Box::leak(
                format!("components:\n  badge:\n    parameters:\n      label:\n        schema: {schema}\n        required: true\n    content: []\n")
                    .into_boxed_str(),
            ),
            ..Doc::default()
        }
        .text()
    };
    let at = "/components/badge/parameters/label/schema";
    assert!(
        diagnostics(
            &param("{ type: string, minLength: 2, maxLength: 5 }"),
            &target()
        )
        .is_empty()
    );
    let cases = [
        (
            "{ type: string, pattern: '^a' }",
            Code::SchemaUnsupported,
            "/pattern",
        ),
        (
            "{ oneOf: [{ type: string }, { type: integer }] }",
            Code::SchemaUnsupported,
            "/oneOf",
        ),
        (
            "{ type: string, minLength: 5, maxLength: 2 }",
            Code::SchemaBounds,
            "/minLength",
        ),
        (
            "{ type: object, properties: { n: { type: integer, minimum: 3, maximum: 1 } } }",
            Code::SchemaBounds,
            "/properties/n/minimum",
        ),
    ];
    for (schema, code, pointer) in cases {
        let t = param(schema);
        expect(&t, code, &format!("{at}{pointer}"), schema);
    }
}

#[test]
fn context_field_schemas_are_in_the_subset_and_bounded() {
    let field = |schema: &'static str| -> String {
        Doc {
            context: Box::leak(
                format!("  org:\n    schema: {schema}\n    required: true\n").into_boxed_str(),
            ),
            ..Doc::default()
        }
        .text()
    };
    assert!(
        diagnostics(
            &field("{ type: string, minLength: 2, maxLength: 5 }"),
            &target()
        )
        .is_empty()
    );
    let cases = [
        (
            "{ type: string, pattern: '^a' }",
            Code::SchemaUnsupported,
            "/pattern",
        ),
        (
            "{ oneOf: [{ type: string }, { type: integer }] }",
            Code::SchemaUnsupported,
            "/oneOf",
        ),
        (
            "{ type: string, minLength: 5, maxLength: 2 }",
            Code::SchemaBounds,
            "/minLength",
        ),
        (
            "{ type: array, items: { type: string }, minItems: 3, maxItems: 1 }",
            Code::SchemaBounds,
            "/minItems",
        ),
    ];
    for (schema, code, pointer) in cases {
        let t = field(schema);
        expect(&t, code, &format!("/context/org/schema{pointer}"), schema);
    }
}

// ---- Components -----------------------------------------------------------

const COMPONENTS: &str = "components:\n  badge:\n    parameters:\n      label: { schema: { type: string }, required: true }\n      size: { schema: { type: integer }, required: false }\n      who:\n        schema: { type: object, properties: { first: { type: string } } }\n        required: false\n    content:\n      - { kind: interpolate, expression: { kind: ref, path: label } }\n  legacy:\n    - { kind: text, value: 'Hello ' }\n    - { kind: interpolate, expression: { kind: ref, path: recipient }, filters: [trim] }\n";

fn comp(content: &'static str) -> String {
    Doc {
        inputs: PERSON,
        content,
        extra: COMPONENTS,
        ..Doc::default()
    }
    .text()
}

#[test]
fn typed_component_arguments_are_checked() {
    let ok = comp(
        "      - { kind: component, name: badge, with: { label: { kind: ref, path: inputs.name }, size: { kind: literal, value: 3 }, who: { kind: ref, path: inputs.person } } }\n",
    );
    assert!(
        diagnostics(&ok, &target()).is_empty(),
        "{}",
        render(&diagnostics(&ok, &target()))
    );
    let t = comp(
        "      - { kind: component, name: badge, with: { size: { kind: literal, value: 3 } } }\n",
    );
    expect(
        &t,
        Code::ComponentArgument,
        "/messages/0/content/0/with",
        "name: badge",
    );
    let t = comp(
        "      - { kind: component, name: badge, with: { label: { kind: ref, path: inputs.name }, colour: { kind: literal, value: red } } }\n",
    );
    expect(
        &t,
        Code::ComponentArgument,
        "/messages/0/content/0/with/colour",
        "colour",
    );
    let t = comp(
        "      - { kind: component, name: badge, with: { label: { kind: ref, path: inputs.count } } }\n",
    );
    expect(
        &t,
        Code::ComponentArgument,
        "/messages/0/content/0/with/label",
        "inputs.count",
    );
    let t = comp(
        "      - { kind: component, name: badge, with: { label: { kind: literal, value: 7 } } }\n",
    );
    expect(
        &t,
        Code::ComponentArgument,
        "/messages/0/content/0/with/label",
        "value: 7",
    );
    let t = comp("      - { kind: component, name: bdage, with: {} }\n");
    let d = expect(
        &t,
        Code::ComponentUnknown,
        "/messages/0/content/0/name",
        "bdage",
    );
    assert!(d.help.unwrap().contains("badge"));
}

#[test]
fn invalid_nested_parameter_paths_fail() {
    let extra = "components:\n  card:\n    parameters:\n      who:\n        schema: { type: object, properties: { first: { type: string } } }\n        required: true\n    content:\n      - { kind: interpolate, expression: { kind: ref, path: who.last } }\n";
    let t = Doc {
        inputs: PERSON,
        content: "      - { kind: text, value: x }\n",
        extra,
        ..Doc::default()
    }
    .text();
    expect(
        &t,
        Code::RefUnknown,
        "/components/card/content/0/expression/path",
        "who.last",
    );
}

#[test]
fn component_bodies_do_not_see_caller_locals() {
    let extra = "components:\n  line:\n    parameters: {}\n    content:\n      - { kind: interpolate, expression: { kind: ref, path: it.label } }\n";
    let content = "      - kind: for_each\n        collection: { kind: ref, path: inputs.items }\n        item: it\n        body:\n          - { kind: component, name: line }\n";
    let t = Doc {
        inputs: PERSON,
        content,
        extra,
        ..Doc::default()
    }
    .text();
    let d = expect(
        &t,
        Code::RefUnknown,
        "/components/line/content/0/expression/path",
        "it.label",
    );
    assert!(d.help.unwrap().contains("never the caller's locals"));
}

#[test]
fn legacy_components_infer_required_strings() {
    let ok = comp(
        "      - { kind: component, name: legacy, with: { recipient: { kind: ref, path: inputs.name } } }\n",
    );
    assert!(diagnostics(&ok, &target()).is_empty());
    // Missing inferred argument.
    let t = comp("      - { kind: component, name: legacy, with: {} }\n");
    expect(
        &t,
        Code::ComponentArgument,
        "/messages/0/content/0/with",
        "name: legacy",
    );
    // A non-string argument.
    let t = comp(
        "      - { kind: component, name: legacy, with: { recipient: { kind: ref, path: inputs.count } } }\n",
    );
    expect(
        &t,
        Code::ComponentArgument,
        "/messages/0/content/0/with/recipient",
        "inputs.count",
    );
    // Body usages the string inference cannot satisfy.
    let bodies = [
        (
            "    - { kind: interpolate, expression: { kind: ref, path: amount }, filters: [format_number] }\n",
            "/components/legacy/0/expression",
            "amount",
        ),
        (
            "    - { kind: when, condition: { kind: ref, path: amount }, then: [] }\n",
            "/components/legacy/0/condition",
            "amount",
        ),
        (
            "    - { kind: for_each, collection: { kind: ref, path: amount }, item: a, body: [] }\n",
            "/components/legacy/0/collection",
            "amount",
        ),
        (
            "    - { kind: interpolate, expression: { kind: ref, path: amount.value } }\n",
            "/components/legacy/0/expression/path",
            "amount",
        ),
    ];
    for (body, pointer, needle) in bodies {
        let extra = Box::leak(format!("components:\n  legacy:\n{body}").into_boxed_str());
        let t = Doc {
            inputs: PERSON,
            content: "      - { kind: text, value: x }\n",
            extra,
            ..Doc::default()
        }
        .text();
        expect(&t, Code::ComponentArgument, pointer, needle);
    }
}

#[test]
fn legacy_components_reject_unknown_arguments() {
    // `legacy` infers exactly one parameter, `recipient`: any other argument
    // is one the body does not use, so it is not a parameter.
    let t = comp(
        "      - kind: component\n        name: legacy\n        with:\n          recipient: { kind: ref, path: inputs.name }\n          colour: { kind: literal, value: red }\n",
    );
    let d = expect(
        &t,
        Code::ComponentArgument,
        "/messages/0/content/0/with/colour",
        "colour:",
    );
    assert!(d.message.contains("no parameter `colour`"), "{d}");
    assert!(d.help.as_deref().unwrap().contains("`recipient`"), "{d}");
    let diags = diagnostics(&t, &target());
    assert_eq!(diags.len(), 1, "{}", render(&diags));
    // A name the body binds itself (a `for_each` item) is not inferred, so
    // passing it is an unknown argument too; so is any argument to a legacy
    // body that references nothing outside itself.
    let extra = "components:\n  rows:\n    - kind: for_each\n      collection: { kind: ref, path: inputs.items }\n      item: it\n      body:\n        - { kind: interpolate, expression: { kind: ref, path: it.label } }\n  plain:\n    - { kind: text, value: x }\n";
    let t = Doc {
        inputs: PERSON,
        content: "      - { kind: component, name: rows, with: { it: { kind: ref, path: inputs.name } } }\n      - { kind: component, name: plain, with: { label: { kind: ref, path: inputs.name } } }\n",
        extra,
        ..Doc::default()
    }
    .text();
    expect(
        &t,
        Code::ComponentArgument,
        "/messages/0/content/0/with/it",
        "name: rows",
    );
    expect(
        &t,
        Code::ComponentArgument,
        "/messages/0/content/1/with/label",
        "name: plain",
    );
}

#[test]
fn component_cycles_are_rejected() {
    let extra = "components:\n  a:\n    - { kind: component, name: b }\n  b:\n    - { kind: text, value: x }\n    - { kind: component, name: a }\n";
    let t = Doc {
        extra,
        ..Doc::default()
    }
    .text();
    let d = expect(&t, Code::ComponentCycle, "/components/b/1", "name: a }");
    assert!(d.message.contains("a → b → a"), "{}", d.message);
    let extra = "components:\n  me:\n    - { kind: component, name: me }\n";
    let t = Doc {
        extra,
        ..Doc::default()
    }
    .text();
    expect(&t, Code::ComponentCycle, "/components/me/0", "name: me }");
}

// ---- Capabilities and extensions -------------------------------------------

#[test]
fn contract_capabilities_need_the_target() {
    let t = Doc::default().text();
    let d = expect_for(
        &t,
        &CapabilityProfile::default(),
        Code::CapabilityUnsupported,
        "/capabilities/0",
        "capabilities:",
    );
    assert!(d.help.unwrap().contains("structured_output"));
    expect_for(
        &t,
        &CapabilityProfile::parse_list("tools"),
        Code::CapabilityUnsupported,
        "/capabilities/0",
        "capabilities:",
    );
}

fn ext(body: &'static str) -> String {
    Doc {
        extra: Box::leak(format!("extensions:\n{body}").into_boxed_str()),
        ..Doc::default()
    }
    .text()
}

#[test]
fn extensions_are_namespaced_typed_and_gated() {
    let good = "  openai.reasoning_effort:\n    capability: openai.reasoning\n    schema: { type: string, enum: [low, medium, high] }\n    value: medium\n";
    let reasoning = CapabilityProfile::parse_list("structured_output,openai.reasoning");
    assert!(diagnostics(&ext(good), &reasoning).is_empty());
    expect_for(
        &ext(good),
        &target(),
        Code::ExtensionUnsupported,
        "/extensions/openai.reasoning_effort/capability",
        "capability: openai",
    );
    let bare = "  reasoning_effort:\n    capability: openai.reasoning\n    schema: { type: string }\n    value: medium\n";
    expect_for(
        &ext(bare),
        &reasoning,
        Code::ExtensionKey,
        "/extensions/reasoning_effort",
        "reasoning_effort:",
    );
    let bad_schema = "  openai.effort:\n    capability: openai.reasoning\n    schema: { type: string, pattern: x }\n    value: medium\n";
    expect_for(
        &ext(bad_schema),
        &reasoning,
        Code::SchemaUnsupported,
        "/extensions/openai.effort/schema/pattern",
        "pattern",
    );
    let bad_value = "  openai.effort:\n    capability: openai.reasoning\n    schema: { type: string, enum: [low, high] }\n    value: extreme\n";
    expect_for(
        &ext(bad_value),
        &reasoning,
        Code::ExtensionValue,
        "/extensions/openai.effort/value",
        "extreme",
    );
}

#[test]
fn extension_capabilities_join_the_required_capabilities() {
    let good = "  openai.reasoning_effort:\n    capability: openai.reasoning\n    schema: { type: string, enum: [low, medium, high] }\n    value: medium\n";
    let reasoning = CapabilityProfile::parse_list("structured_output,openai.reasoning,tools");
    let c = compile_str(&ext(good), "contracts/sample.yaml", &reasoning);
    let i = c.interaction.unwrap();
    let req: Vec<&str> = i.required_capabilities.iter().map(|s| s.as_ref()).collect();
    assert_eq!(req, ["openai.reasoning", "structured_output"]);
    let tgt: Vec<&str> = i.target_capabilities.iter().map(|s| s.as_ref()).collect();
    assert_eq!(tgt, ["openai.reasoning", "structured_output", "tools"]);
    assert_eq!(i.extensions[0].value.to_json(), serde_json::json!("medium"));
}

// ---- Budgets ----------------------------------------------------------------

/// A contract whose input `tree` is an array nested `depth` levels deep,
/// iterated by `depth` nested `for_each` nodes.
fn nested_for_each(depth: usize) -> String {
    let mut content = String::new();
    let mut path = String::from("inputs.tree");
    for level in 0..depth {
        let indent = "  ".repeat(3 + level * 2);
        content.push_str(&format!(
            "{indent}- kind: for_each\n{indent}  collection: {{ kind: ref, path: {path} }}\n{indent}  item: l{level}\n{indent}  body:\n"
        ));
        path = format!("l{level}");
    }
    let indent = "  ".repeat(3 + depth * 2);
    content.push_str(&format!("{indent}- {{ kind: text, value: leaf }}\n"));
    let schema = "{ type: array, items: ".repeat(depth) + "{ type: string }" + &" }".repeat(depth);
    let inputs = format!("  tree:\n    schema: {schema}\n    required: true\n");
    Doc {
        inputs: Box::leak(inputs.into_boxed_str()),
        content: Box::leak(content.into_boxed_str()),
        ..Doc::default()
    }
    .text()
}

#[test]
fn static_for_each_nesting_is_bounded() {
    let ok = nested_for_each(32);
    assert!(
        diagnostics(&ok, &target()).is_empty(),
        "{}",
        render(&diagnostics(&ok, &target()))
    );
    let t = nested_for_each(33);
    let pointer = format!("/messages/0/content/0{}", "/body/0".repeat(32));
    let d = diagnostics(&t, &target());
    let d = d
        .iter()
        .find(|d| d.code == Code::RenderBudget)
        .expect("TQX_RENDER_BUDGET");
    assert_eq!(d.json_pointer.as_deref(), Some(pointer.as_str()));
    // The 33rd `for_each` node starts on the line before its collection.
    assert_eq!(d.span.unwrap().start.line, line_of(&t, "path: l31 }") - 1);
}

// ---- Eval fixtures ------------------------------------------------------------

#[test]
fn eval_integers_must_fit_the_generated_i64() {
    let evals = |body: &'static str| -> String {
        Doc {
            extra: Box::leak(format!("  required: [n]\n  properties: {{ n: {{ type: integer }}, xs: {{ type: array, items: {{ type: [integer, 'null'] }} }} }}\nevals:\n{body}").into_boxed_str()),
            ..Doc::default()
        }
        .text()
    };
    let ok = evals(
        "  - id: one\n    inputs: { name: Ryan }\n    fake_output: { n: 9223372036854775807, xs: [-9223372036854775808, 12.0, null] }\n",
    );
    assert!(
        diagnostics(&ok, &target()).is_empty(),
        "{:?}",
        diagnostics(&ok, &target())
    );
    let t = evals(
        "  - id: one\n    inputs: { name: Ryan }\n    fake_output: { n: 18446744073709551615 }\n",
    );
    let d = expect(&t, Code::EvalInvalid, "/evals/0/fake_output/n", "n: 1844");
    assert!(d.message.contains("does not fit `i64`"), "{d}");
    let t = evals(
        "  - id: one\n    inputs: { name: Ryan }\n    fake_output: { n: 1, xs: [1, 1e19] }\n",
    );
    expect(
        &t,
        Code::EvalInvalid,
        "/evals/0/fake_output/xs/1",
        "xs: [1, 1e19]",
    );
}

#[test]
fn eval_numbers_must_be_held_exactly_by_the_generated_types() {
    let evals = |body: &'static str| -> String {
        Doc {
            extra: Box::leak(format!("  required: [n]\n  properties: {{ n: {{ type: integer }}, f: {{ type: number }} }}\nevals:\n{body}").into_boxed_str()),
            ..Doc::default()
        }
        .text()
    };
    let ok = evals(
        "  - id: one\n    inputs: { name: Ryan }\n    fake_output: { n: 9007199254740992.0, f: 9007199254740992 }\n",
    );
    assert!(
        diagnostics(&ok, &target()).is_empty(),
        "{:?}",
        diagnostics(&ok, &target())
    );
    // An integer-valued double beyond 2^53 under `type: integer`: canonical
    // JSON writes it as a double, which is not the `i64` it would read into.
    let t = evals(
        "  - id: one\n    inputs: { name: Ryan }\n    fake_output: { n: 1234567890123456789.0 }\n",
    );
    let d = expect(&t, Code::EvalInvalid, "/evals/0/fake_output/n", "n: 1234");
    assert!(d.message.contains("beyond 2^53"), "{d}");
    assert!(d.message.contains("`i64`"), "{d}");
    // An integer beyond 2^53 under `type: number`: the generated `f64`
    // would round it.
    let t = evals(
        "  - id: one\n    inputs: { name: Ryan }\n    fake_output: { n: 1, f: 9007199254740993 }\n",
    );
    let d = expect(&t, Code::EvalInvalid, "/evals/0/fake_output/f", "f: 9007");
    assert!(d.message.contains("`f64`"), "{d}");
}

#[test]
fn eval_fixtures_are_validated() {
    let evals = |body: &'static str| -> String {
        Doc {
            extra: Box::leak(format!("  required: [greeting]\n  properties: {{ greeting: {{ type: string }} }}\nevals:\n{body}").into_boxed_str()),
            ..Doc::default()
        }
        .text()
    };
    let ok = evals("  - id: one\n    inputs: { name: Ryan }\n    fake_output: { greeting: hi }\n");
    assert!(diagnostics(&ok, &target()).is_empty());
    let t = evals("  - id: one\n    inputs: { name: '' }\n");
    expect(&t, Code::EvalInvalid, "/evals/0/inputs/name", "name: ''");
    let t = evals("  - id: one\n    inputs: { name: Ryan, nickname: R }\n");
    expect(
        &t,
        Code::EvalInvalid,
        "/evals/0/inputs/nickname",
        "nickname",
    );
    let t = evals("  - id: one\n    inputs: {}\n");
    expect(&t, Code::EvalInvalid, "/evals/0/inputs", "inputs: {}");
    let t = evals("  - id: one\n    inputs: { name: Ryan }\n    context: { org: x }\n");
    expect(&t, Code::EvalInvalid, "/evals/0/context/org", "org: x");
    let t = evals("  - id: one\n    inputs: { name: Ryan }\n    fake_output: { greeting: 5 }\n");
    expect(
        &t,
        Code::EvalInvalid,
        "/evals/0/fake_output/greeting",
        "greeting: 5",
    );
    let t = evals("  - id: one\n    inputs: { name: Ryan }\n    fake_output: {}\n");
    expect(
        &t,
        Code::EvalInvalid,
        "/evals/0/fake_output",
        "fake_output: {}",
    );
    let t =
        evals("  - id: one\n    inputs: { name: Ryan }\n  - id: one\n    inputs: { name: Ryan }\n");
    let diags = diagnostics(&t, &target());
    let d = diags
        .iter()
        .find(|d| d.json_pointer.as_deref() == Some("/evals/1/id"))
        .expect("duplicate id");
    assert_eq!(d.code, Code::EvalInvalid);
}

#[test]
fn includes_need_a_package() {
    let t = with_content("      - { kind: include, path: partials/intro.yaml }\n");
    expect(
        &t,
        Code::IncludeUnresolved,
        "/messages/0/content/0",
        "include",
    );
}

#[test]
fn every_problem_is_reported_at_once() {
    let t = person(
        "      - { kind: interpolate, expression: { kind: ref, path: inputs.nope } }\n      - { kind: interpolate, expression: { kind: ref, path: inputs.count }, filters: [trim] }\n      - kind: for_each\n        collection: { kind: ref, path: inputs.name }\n        item: context\n        body: []\n",
    );
    let codes: Vec<Code> = diagnostics(&t, &CapabilityProfile::default())
        .iter()
        .map(|d| d.code)
        .collect();
    for want in [
        Code::CapabilityUnsupported,
        Code::RefUnknown,
        Code::FilterType,
        Code::TypeMismatch,
        Code::LocalReserved,
    ] {
        assert!(codes.contains(&want), "{want} missing from {codes:?}");
    }
}

// ---- Machine-applicable suggestions ---------------------------------------

/// The text of `d`'s suggestion's span in `text`, and `text` with the
/// suggestion applied.
#[track_caller]
fn apply(text: &str, d: &Diagnostic) -> (String, String) {
    let fix = d
        .suggestion
        .as_ref()
        .unwrap_or_else(|| panic!("{d} has no suggestion"));
    let (start, end) = fix.span.bytes;
    // The line and columns agree with the byte offsets.
    assert_eq!(fix.span.start, templiqx_contracts::position(text, start));
    assert_eq!(fix.span.end, templiqx_contracts::position(text, end));
    let mut fixed = text.to_owned();
    fixed.replace_range(start..end, &fix.replacement);
    (text[start..end].to_owned(), fixed)
}

#[test]
fn a_misspelt_reference_carries_the_fix_its_help_proposes() {
    let pointer = "/messages/0/content/0/expression/path";
    // (path as written, the text replaced, the replacement)
    let cases = [
        ("inputs.nmae", "inputs.nmae", "inputs.name"),
        ("\"inputs.nmae\"", "inputs.nmae", "inputs.name"),
        (
            "'inputs.person.adress.city'",
            "inputs.person.adress",
            "inputs.person.address",
        ),
        ("inptus.name", "inptus", "inputs"),
        (
            "inputs.person.frist",
            "inputs.person.frist",
            "inputs.person.first",
        ),
    ];
    for (written, replaced, replacement) in cases {
        let t = person(interp(written, ""));
        let d = expect(&t, Code::RefUnknown, pointer, written);
        assert_eq!(
            d.help.as_deref(),
            Some(format!("did you mean `{replacement}`?").as_str())
        );
        let (old, fixed) = apply(&t, &d);
        assert_eq!(d.suggestion.unwrap().replacement, replacement);
        assert_eq!(old, replaced, "{written}");
        assert_eq!(diagnostics(&fixed, &target()), [], "{fixed}");
    }
}

#[test]
fn a_reference_not_written_verbatim_or_without_a_close_name_has_no_fix() {
    let pointer = "/messages/0/content/0/expression/path";
    // An escape: the misspelt text is not in the file as the value reads.
    let t = person(interp("\"inputs.nm\\x61e\"", ""));
    let d = expect(&t, Code::RefUnknown, pointer, "inputs.nm");
    assert!(d.help.unwrap().contains("did you mean `inputs.name`"));
    assert_eq!(d.suggestion, None);
    // Nothing close: the help lists the declared names, and there is no fix.
    let t = person(interp("inputs.zzzzzz", ""));
    let d = expect(&t, Code::RefUnknown, pointer, "zzzzzz");
    assert!(d.help.unwrap().starts_with("declared in `inputs`: "));
    assert_eq!(d.suggestion, None);
}

#[test]
fn misspelt_names_of_the_format_and_of_the_contract_carry_fixes() {
    let kind = with_content("      - { kind: txet, value: hi }\n");
    let field = with_content("      - { kind: text, \"valeu\": hi }\n");
    let filter = person(interp("inputs.name", "trmi"));
    let component = comp("      - { kind: component, name: bdage, with: {} }\n");
    let eval = Doc {
        extra: "evals:\n  - id: one\n    inputs: { nmae: Ada }\n",
        ..Doc::default()
    }
    .text();
    let cases = [
        (
            &kind,
            Code::UnknownVariant,
            "/messages/0/content/0/kind",
            "txet",
            "text",
        ),
        (
            &field,
            Code::UnknownField,
            "/messages/0/content/0/valeu",
            "\"valeu\"",
            "value",
        ),
        (
            &filter,
            Code::UnknownVariant,
            "/messages/0/content/0/filters/0",
            "trmi",
            "trim",
        ),
        (
            &component,
            Code::ComponentUnknown,
            "/messages/0/content/0/name",
            "bdage",
            "badge",
        ),
        (
            &eval,
            Code::EvalInvalid,
            "/evals/0/inputs/nmae",
            "nmae",
            "name",
        ),
    ];
    for (t, code, pointer, replaced, replacement) in cases {
        let d = expect(t, code, pointer, replaced);
        let (old, fixed) = apply(t, &d);
        assert_eq!(d.suggestion.unwrap().replacement, replacement);
        assert_eq!(old, replaced, "{pointer}");
        assert!(
            !diagnostics(&fixed, &target())
                .iter()
                .any(|d| d.code == code),
            "{fixed}"
        );
    }
    // A fixture that sets `name` already: no fix renames `nmae` to it.
    let eval = Doc {
        extra: "evals:\n  - id: one\n    inputs: { name: Ada, nmae: Ada }\n",
        ..Doc::default()
    }
    .text();
    let d = expect(&eval, Code::EvalInvalid, "/evals/0/inputs/nmae", "nmae");
    assert_eq!(d.suggestion, None);
}
