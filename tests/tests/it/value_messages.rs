//! Messages about values name the value's full place and show the
//! difference between strings that display alike (docs/diagnostics.md,
//! `TQX_VALUE_INVALID`).

use templiqx_build::compile_str;
use templiqx_contracts::{AsValue, CapabilityProfile, Code, Diagnostic, validate};

fn render_errors(inputs_decl: &str, request: serde_json::Value) -> Vec<Diagnostic> {
    let text = format!(
        "api_version: templiqx/v1alpha1\nid: c\nversion: 0.1.0\ninputs:\n{inputs_decl}capabilities: [structured_output]\nmessages:\n  - role: user\n    content:\n      - {{ kind: text, value: hi }}\noutput_schema: {{ type: object }}\n"
    );
    let c = compile_str(
        &text,
        "c.yaml",
        &CapabilityProfile::parse_list("structured_output"),
    );
    let Some(i) = c.interaction.as_ref() else {
        panic!("{}", c.render_diagnostics())
    };
    let empty = serde_json::Map::new();
    let inputs = request.as_object().expect("an object");
    match templiqx::render(i, inputs, &empty) {
        Ok(_) => panic!("{request} should not render"),
        Err(e) => e.diagnostics.into_vec(),
    }
}

#[test]
fn a_nested_invalid_value_is_named_by_its_full_path() {
    let decl = "  a: { schema: { type: object, properties: { x: { type: integer }, items: { type: array, items: { type: object, properties: { \"b.c\": { type: string }, \"\": { type: string } } } } } }, required: true }\n";
    let d = render_errors(decl, serde_json::json!({ "a": { "x": "s" } }));
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].code, Code::ValueInvalid);
    assert_eq!(d[0].json_pointer.as_deref(), Some("/inputs/a/x"));
    assert_eq!(
        d[0].message,
        "inputs.a.x: expected integer, found string \"s\""
    );

    let d = render_errors(
        decl,
        serde_json::json!({ "a": { "items": [{}, { "b.c": 1, "": 2 }] } }),
    );
    let messages: Vec<&str> = d.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(
        messages,
        [
            "inputs.a.items.1[\"b.c\"]: expected string, found number 1",
            "inputs.a.items.1[\"\"]: expected string, found number 2",
        ]
    );
    assert_eq!(d[0].json_pointer.as_deref(), Some("/inputs/a/items/1/b.c"));
    // A top-level value keeps its short name.
    let d = render_errors(decl, serde_json::json!({ "a": 5 }));
    assert_eq!(d[0].message, "inputs.a: expected object, found number 5");
}

#[test]
fn strings_that_display_alike_show_their_code_points() {
    let nfc = "caf\u{e9}";
    let nfd = "cafe\u{301}";
    let decl = format!(
        "  drink: {{ schema: {{ type: string, enum: [\"{nfc}\", \"tea\"] }}, required: true }}\n"
    );
    let d = render_errors(&decl, serde_json::json!({ "drink": nfd }));
    assert_eq!(d.len(), 1);
    assert_eq!(
        d[0].message,
        format!(
            "inputs.drink: expected one of [\"{nfc}\", \"tea\"], found string \"{nfd}\"; \
             found \"cafe\\u0301\", which looks like \"caf\\u00e9\" but is not equal"
        )
    );
    // A plain mismatch says nothing more.
    let d = render_errors(&decl, serde_json::json!({ "drink": "coffee" }));
    assert_eq!(
        d[0].message,
        format!("inputs.drink: expected one of [\"{nfc}\", \"tea\"], found string \"coffee\"")
    );
}

#[test]
fn const_and_output_messages_show_lookalikes_too() {
    let schema = templiqx_build::schema::compile_schema(
        &serde_json::json!({ "type": "object", "properties": { "k": { "const": "a\u{200b}b" } } }),
        "",
    )
    .unwrap();
    let errors =
        validate::validate(&schema, serde_json::json!({ "k": "ab" }).as_value()).unwrap_err();
    assert_eq!(errors[0].pointer, "/k");
    assert_eq!(
        errors[0].message,
        "expected \"a\u{200b}b\", found string \"ab\"; found \"ab\", which looks like \"a\\u200bb\" but is not equal"
    );
}

#[test]
fn which_strings_look_alike() {
    use templiqx_contracts::validate::looks_alike;
    assert!(looks_alike("caf\u{e9}", "cafe\u{301}"));
    assert!(looks_alike("\u{fb01}le", "file")); // the ligature fi
    assert!(looks_alike("a\u{200d}b", "ab"));
    assert!(looks_alike("\u{212b}", "A\u{30a}")); // the Angstrom sign
    assert!(!looks_alike("cafe", "cafe"));
    assert!(!looks_alike("Cafe", "cafe"));
    assert!(!looks_alike("caf\u{e9}", "caf\u{e8}"));
    assert!(!looks_alike("abc", "ab"));
    assert!(!looks_alike("caf\u{e9}", "cafe"));
}
