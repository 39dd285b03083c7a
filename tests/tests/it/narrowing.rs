//! Branching on an optional value: a `when` that tests a nullable reference
//! against `null` rules `null` out in the branch where it cannot be null, so
//! the value interpolates there without `json` (and nowhere else).

use crate::common;

use templiqx_contracts::Code;

fn contract(content: &str) -> String {
    format!(
        "api_version: templiqx/v1alpha1\nid: nick\nversion: 0.1.0\ninputs:\n  nick:\n    schema: {{ type: [string, 'null'] }}\n    required: true\n  tags:\n    schema: {{ type: [array, 'null'], items: {{ type: string }} }}\n    required: true\ncapabilities: [structured_output]\nmessages:\n  - role: user\n    content:\n{content}output_schema: {{ type: object }}\n"
    )
}

fn compile(content: &str) -> templiqx_build::Compilation {
    templiqx_build::compile_str(
        &contract(content),
        "nick.yaml",
        &common::structured_output(),
    )
}

const GUARDED: &str = r#"      - kind: when
        condition: { kind: not, operand: { kind: equals, left: { kind: ref, path: inputs.nick }, right: { kind: literal, value: null } } }
        then:
          - { kind: text, value: "Call me " }
          - { kind: interpolate, expression: { kind: ref, path: inputs.nick }, filters: [trim] }
        else:
          - { kind: text, value: "No nickname" }
      - kind: when
        condition: { kind: equals, left: { kind: literal, value: null }, right: { kind: ref, path: inputs.tags } }
        then: []
        else:
          - kind: for_each
            collection: { kind: ref, path: inputs.tags }
            item: t
            separator: ","
            body: [{ kind: interpolate, expression: { kind: ref, path: t } }]
"#;

#[test]
fn a_null_test_narrows_the_guarded_branch() {
    let c = compile(GUARDED);
    assert!(c.diagnostics.is_empty(), "{}", c.render_diagnostics());
    let i = c.interaction.unwrap();
    let render = |inputs: serde_json::Value| {
        templiqx::render(&i, inputs.as_object().unwrap(), &serde_json::Map::new())
            .unwrap()
            .messages[0]
            .content
            .clone()
    };
    assert_eq!(
        render(serde_json::json!({"nick": " Ada ", "tags": ["a", "b"]})),
        "Call me Adaa,b"
    );
    assert_eq!(
        render(serde_json::json!({"nick": null, "tags": null})),
        "No nickname"
    );
}

#[test]
fn without_the_guard_or_in_the_wrong_branch_null_still_needs_json() {
    let unguarded = "      - { kind: interpolate, expression: { kind: ref, path: inputs.nick } }\n";
    assert_eq!(compile(unguarded).diagnostics[0].code, Code::TypeMismatch);
    let wrong_branch = r#"      - kind: when
        condition: { kind: equals, left: { kind: ref, path: inputs.nick }, right: { kind: literal, value: null } }
        then:
          - { kind: interpolate, expression: { kind: ref, path: inputs.nick } }
"#;
    assert_eq!(
        compile(wrong_branch).diagnostics[0].code,
        Code::TypeMismatch
    );
    let unguarded_loop = "      - { kind: for_each, collection: { kind: ref, path: inputs.tags }, item: t, body: [] }\n";
    assert_eq!(
        compile(unguarded_loop).diagnostics[0].code,
        Code::TypeMismatch
    );
    // An `or` proves nothing in its `then` branch.
    let or = r#"      - kind: when
        condition: { kind: or, operands: [{ kind: not, operand: { kind: equals, left: { kind: ref, path: inputs.nick }, right: { kind: literal, value: null } } }, { kind: literal, value: true }] }
        then:
          - { kind: interpolate, expression: { kind: ref, path: inputs.nick } }
"#;
    assert_eq!(compile(or).diagnostics[0].code, Code::TypeMismatch);
}
