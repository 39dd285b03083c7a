//! Contract, interaction and request fingerprints (`docs/format.md`,
//! "Canonical JSON and fingerprints").

use crate::common::{examples, read, structured_output};
use templiqx_build::compile_str;
use templiqx_contracts::CapabilityProfile;

const BLOCK: &str = r#"# A greeting contract, block style.
api_version: templiqx/v1alpha1
id: greeting
version: 0.1.0
description: Produce a typed greeting.
inputs:
  name:
    schema:
      type: string
      minLength: 1
    required: true
capabilities:
  - structured_output
messages:
  - role: user
    content:
      - kind: text
        value: "Hello "
      - kind: interpolate
        expression:
          kind: ref
          path: inputs.name
        filters: [trim]
output_schema:
  type: object
  required: [greeting]
  properties:
    greeting:
      type: string
"#;

/// The same contract: flow style, other key order, other quoting, comments.
const FLOW: &str = r#"
id: 'greeting'   # quoted differently
api_version: "templiqx/v1alpha1"
description: "Produce a typed greeting."
version: "0.1.0"
messages: [{ content: [{ value: 'Hello ', kind: text }, { filters: [trim], expression: { path: inputs.name, kind: ref }, kind: interpolate }], role: user }]
capabilities: [structured_output]
output_schema: { properties: { greeting: { type: string } }, type: object, required: [greeting] }
inputs: { name: { required: true, schema: { minLength: 1, type: string } } }
"#;

fn fingerprints(text: &str, target: &CapabilityProfile) -> (String, String) {
    let c = compile_str(text, "greeting.yaml", target);
    assert!(c.diagnostics.is_empty(), "{}", c.render_diagnostics());
    let i = c.interaction.unwrap();
    (
        i.contract_fingerprint.to_string(),
        i.interaction_fingerprint.to_string(),
    )
}

#[test]
fn spelling_does_not_change_fingerprints() {
    let a = fingerprints(BLOCK, &structured_output());
    let b = fingerprints(FLOW, &structured_output());
    assert_eq!(a, b);
    assert_eq!(a.0.len(), 64);
    assert!(
        a.0.bytes()
            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
    );
}

#[test]
fn one_character_of_message_text_changes_them() {
    let a = fingerprints(BLOCK, &structured_output());
    let b = fingerprints(
        &BLOCK.replace("\"Hello \"", "\"Hallo \""),
        &structured_output(),
    );
    assert_ne!(a.0, b.0);
    assert_ne!(a.1, b.1);
}

#[test]
fn descriptions_change_the_contract_but_not_the_interaction() {
    let a = fingerprints(BLOCK, &structured_output());
    let b = fingerprints(
        &BLOCK.replace("Produce a typed greeting.", "Greets."),
        &structured_output(),
    );
    assert_ne!(a.0, b.0);
    assert_eq!(a.1, b.1);
}

#[test]
fn the_target_profile_is_part_of_the_interaction_fingerprint() {
    let a = fingerprints(BLOCK, &structured_output());
    let b = fingerprints(
        BLOCK,
        &CapabilityProfile::parse_list("structured_output,tools"),
    );
    assert_eq!(a.0, b.0);
    assert_ne!(a.1, b.1);
}

#[test]
fn request_fingerprints_follow_the_rendered_text() {
    let c = compile_str(
        &read(&examples(), "packages/demo/contracts/greeting.yaml"),
        "greeting.yaml",
        &structured_output(),
    );
    let i = c.interaction.unwrap();
    let ctx = serde_json::json!({"organization": "Blinqx"});
    let ctx = ctx.as_object().unwrap();
    let ryan = serde_json::json!({"name": "Ryan", "vip": false});
    let ryan2 = serde_json::json!({"name": " Ryan ", "vip": false});
    let ann = serde_json::json!({"name": "Ann", "vip": false});
    let fp = |v: &serde_json::Value| {
        templiqx::render(&i, v.as_object().unwrap(), ctx)
            .unwrap()
            .request_fingerprint()
    };
    assert_eq!(
        fp(&ryan),
        fp(&ryan2),
        "trimmed input renders the same request"
    );
    assert_ne!(fp(&ryan), fp(&ann));
}
