//! Values nested beyond `MAX_VALUE_DEPTH` where no schema bounds them are
//! rejected before any recursive walk (no stack exhaustion).

mod common;

use templiqx_contracts::Code;
use templiqx_contracts::budget::MAX_VALUE_DEPTH;

fn nested(depth: usize) -> serde_json::Value {
    let mut v = serde_json::json!(1);
    for _ in 0..depth {
        v = serde_json::Value::Array(vec![v]);
    }
    v
}

const CONTRACT: &str = "api_version: templiqx/v1alpha1\nid: deep\nversion: 0.1.0\ninputs:\n  any: { schema: {}, required: true }\ncapabilities: [structured_output]\nmessages:\n  - role: user\n    content:\n      - { kind: interpolate, expression: { kind: ref, path: inputs.any }, filters: [json] }\noutput_schema: {}\n";

#[test]
fn deep_request_values_and_outputs_are_invalid_not_fatal() {
    let c = templiqx_build::compile_str(CONTRACT, "deep.yaml", &common::structured_output());
    let i = c.interaction.unwrap();
    let ok = serde_json::json!({ "any": nested(MAX_VALUE_DEPTH - 1) });
    assert!(templiqx::render(&i, ok.as_object().unwrap(), &serde_json::Map::new()).is_ok());
    for depth in [MAX_VALUE_DEPTH + 1, 100_000] {
        // Not `json!`, which would serialise the value recursively.
        let mut deep = serde_json::Value::Object(serde_json::Map::new());
        deep.as_object_mut()
            .unwrap()
            .insert("any".to_owned(), nested(depth));
        let e =
            templiqx::render(&i, deep.as_object().unwrap(), &serde_json::Map::new()).unwrap_err();
        assert_eq!(e.diagnostics[0].code, Code::ValueInvalid);
        assert_eq!(
            e.diagnostics[0].json_pointer.as_deref(),
            Some("/inputs/any")
        );
        let output = nested(depth);
        let out = templiqx::decode_output::<serde_json::Value>(&i, &output).unwrap_err();
        assert_eq!(out.diagnostics[0].code, Code::OutputSchema);
        // Dropping a 100,000-deep serde_json::Value is itself recursive; leak
        // them rather than let the test's own cleanup overflow the stack.
        std::mem::forget(deep);
        std::mem::forget(output);
    }
}
