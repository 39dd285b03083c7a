//! `OperationEnvelope`s of parse, validate, compile and render
//! (`docs/diagnostics.md`, "Operation envelopes").

use crate::common;

use templiqx_contracts::{Code, Operation};

#[test]
fn every_operation_returns_an_envelope() {
    let text = common::read(&common::examples(), "packages/demo/contracts/greeting.yaml");
    let target = common::structured_output();

    let parsed = templiqx_build::parse_str(&text, "greeting.yaml");
    assert_eq!((parsed.operation, parsed.ok), (Operation::Parse, true));
    assert_eq!(parsed.result.as_ref().unwrap().id, "greeting");

    let validated = templiqx_build::validate_str(&text, "greeting.yaml", &target);
    assert_eq!(
        (
            validated.operation,
            validated.ok,
            validated.result.as_deref()
        ),
        (Operation::Validate, true, Some("greeting"))
    );

    let compiled = templiqx_build::compile_str(&text, "greeting.yaml", &target);
    let env = compiled.envelope();
    assert_eq!((env.operation, env.ok), (Operation::Compile, true));
    assert_eq!(
        env.fingerprints["contract"],
        validated.fingerprints["contract"]
    );
    assert!(env.fingerprints.contains_key("interaction"));

    let i = compiled.interaction.unwrap();
    let inputs = serde_json::json!({"name": "Ryan", "vip": false});
    let context = serde_json::json!({"organization": "Blinqx"});
    let rendered = templiqx::render_envelope(
        &i,
        inputs.as_object().unwrap(),
        context.as_object().unwrap(),
    );
    assert_eq!((rendered.operation, rendered.ok), (Operation::Render, true));
    let json = serde_json::to_value(&rendered).unwrap();
    assert_eq!(json["api_version"], "templiqx/v1alpha1");
    assert_eq!(json["operation"], "render");
    assert_eq!(
        json["result"]["messages"][1],
        serde_json::json!({"role": "user", "content": "Greet Ryan on behalf of Blinqx"})
    );
    assert_eq!(
        json["fingerprints"]["request"],
        rendered.result.as_ref().unwrap().request_fingerprint()
    );
    assert_eq!(
        json["fingerprints"]["interaction"],
        i.interaction_fingerprint.as_ref()
    );

    // Failures: ok false, no result, diagnostics with codes.
    let bad = templiqx_build::parse_str("api_version: 1\n", "bad.yaml");
    assert!(!bad.ok && bad.result.is_none() && !bad.diagnostics.is_empty());
    let invalid = templiqx_build::validate_str(&text, "greeting.yaml", &Default::default());
    assert_eq!(invalid.diagnostics[0].code, Code::CapabilityUnsupported);
    assert!(!invalid.ok && invalid.fingerprints.is_empty());
    let missing =
        templiqx::render_envelope(&i, &serde_json::Map::new(), context.as_object().unwrap());
    assert!(!missing.ok);
    assert_eq!(missing.diagnostics[0].code, Code::ValueInvalid);
    assert!(!missing.fingerprints.contains_key("request"));
}

/// The rendered interaction serialises the request a provider adapter
/// builds from: extension values unchanged, the extension's capability among
/// the required ones; the render envelope adds the fingerprints.
#[test]
fn the_rendered_interaction_carries_extension_values_and_fingerprints() {
    let text = "api_version: templiqx/v1alpha1\nid: ext\nversion: 1.2.3\ncapabilities: [structured_output]\nmessages:\n  - role: user\n    content:\n      - { kind: text, value: hi }\noutput_schema: { type: object }\nruntime_policy: { temperature: 0.5 }\nextensions:\n  openai.reasoning_effort:\n    capability: openai.reasoning\n    schema: { type: string, enum: [low, medium, high] }\n    value: medium\n";
    let target =
        templiqx_contracts::CapabilityProfile::parse_list("structured_output,openai.reasoning");
    let i = templiqx_build::compile_str(text, "ext.yaml", &target)
        .interaction
        .expect("compiles");
    let none = serde_json::Map::new();
    let env = templiqx::render_envelope(&i, &none, &none);
    assert!(env.ok);
    let rendered = env.result.as_ref().unwrap();
    assert_eq!(
        serde_json::to_value(rendered).unwrap(),
        serde_json::json!({
            "compiler": "templiqx",
            "contract_id": "ext",
            "contract_version": "1.2.3",
            "messages": [{ "role": "user", "content": "hi" }],
            "output_schema": { "type": "object" },
            "required_capabilities": ["openai.reasoning", "structured_output"],
            "target_capabilities": ["openai.reasoning", "structured_output"],
            "runtime_policy": { "temperature": 0.5 },
            "extensions": { "openai.reasoning_effort": "medium" }
        })
    );
    assert_eq!(
        env.fingerprints.get("request").map(String::as_str),
        Some(rendered.request_fingerprint().as_str())
    );
    assert_eq!(
        env.fingerprints.get("contract").map(String::as_str),
        Some(&*i.contract_fingerprint)
    );
    assert_eq!(
        env.fingerprints.get("interaction").map(String::as_str),
        Some(&*i.interaction_fingerprint)
    );
}
