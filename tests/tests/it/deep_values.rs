//! Values nested beyond `MAX_VALUE_DEPTH` where no schema bounds them are
//! rejected before any recursive walk (no stack exhaustion).

use crate::common;

use templiqx_contracts::budget::MAX_VALUE_DEPTH;
use templiqx_contracts::{Code, Json};

fn nested(depth: usize) -> serde_json::Value {
    let mut v = serde_json::json!(1);
    for _ in 0..depth {
        v = serde_json::Value::Array(vec![v]);
    }
    v
}

/// [`nested`] as a model output (built in place: converting a deep value
/// would itself recurse).
fn nested_output(depth: usize) -> Json {
    let mut v = Json::from(1i64);
    for _ in 0..depth {
        v = Json::Array(vec![v]);
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
        let output = nested_output(depth);
        let out = templiqx::decode_output::<serde_json::Value>(&i, &output).unwrap_err();
        assert_eq!(out.diagnostics[0].code, Code::OutputSchema);
        // Dropping a 100,000-deep value is itself recursive; leak
        // them rather than let the test's own cleanup overflow the stack.
        std::mem::forget(deep);
        std::mem::forget(output);
    }
}

const OPEN: &str = "api_version: templiqx/v1alpha1\nid: open\nversion: 0.1.0\ninputs:\n  obj: { schema: { type: object, properties: { a: { type: integer } } }, required: true }\ncapabilities: [structured_output]\nmessages:\n  - role: user\n    content:\n      - { kind: interpolate, expression: { kind: ref, path: inputs.obj }, filters: [json] }\noutput_schema: { type: object, properties: { a: { type: integer } } }\n";

#[test]
fn undeclared_members_of_open_objects_are_depth_bounded_too() {
    let c = templiqx_build::compile_str(OPEN, "open.yaml", &common::structured_output());
    let i = c.interaction.unwrap();
    // At the limit: the member sits at depth 2 (`/inputs`-relative `obj/extra`).
    let mut fits = serde_json::Map::new();
    fits.insert("a".to_owned(), 1.into());
    fits.insert("extra".to_owned(), nested(MAX_VALUE_DEPTH - 2));
    let mut inputs = serde_json::Map::new();
    inputs.insert("obj".to_owned(), serde_json::Value::Object(fits));
    assert!(templiqx::render(&i, &inputs, &serde_json::Map::new()).is_ok());
    std::mem::forget(inputs);
    // Built twice: cloning a 100,000-deep value would itself recurse.
    let open = |depth| {
        let mut obj = serde_json::Map::new();
        obj.insert("a".to_owned(), 1.into());
        obj.insert("extra".to_owned(), nested(depth));
        obj
    };
    for depth in [MAX_VALUE_DEPTH, 100_000] {
        let mut inputs = serde_json::Map::new();
        inputs.insert("obj".to_owned(), serde_json::Value::Object(open(depth)));
        let e = templiqx::render(&i, &inputs, &serde_json::Map::new()).unwrap_err();
        assert_eq!(e.diagnostics[0].code, Code::ValueInvalid);
        assert_eq!(
            e.diagnostics[0].json_pointer.as_deref(),
            Some("/inputs/obj/extra")
        );
        assert!(
            e.diagnostics[0].message.contains("nests deeper than 128"),
            "{}",
            e.diagnostics[0].message
        );
        let mut output = templiqx_contracts::JsonMap::new();
        output.insert("a".to_owned(), Json::from(1i64));
        output.insert("extra".to_owned(), nested_output(depth));
        let output = Json::Object(output);
        let out = templiqx::decode_output::<serde_json::Value>(&i, &output).unwrap_err();
        assert_eq!(out.diagnostics[0].code, Code::OutputSchema);
        assert_eq!(out.diagnostics[0].json_pointer.as_deref(), Some("/extra"));
        std::mem::forget(inputs);
        std::mem::forget(output);
    }
}
