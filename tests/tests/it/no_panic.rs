//! No input panics the compiler or the renderer.

use proptest::prelude::*;
use templiqx_build::compile_str;
use templiqx_contracts::CapabilityProfile;

fn json_value() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::Bool),
        any::<i64>().prop_map(|i| serde_json::json!(i)),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| serde_json::json!(f)),
        ".{0,12}".prop_map(serde_json::Value::String),
        Just(serde_json::json!("2026-02-30")),
        Just(serde_json::json!("2026-07-12")),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(serde_json::Value::Array),
            prop::collection::btree_map(
                prop_oneof![
                    Just("name".to_owned()),
                    Just("organization".to_owned()),
                    Just("locale".to_owned()),
                    "[a-z]{1,6}"
                ],
                inner,
                0..6
            )
            .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
        ]
    })
}

const RICH: &str = r#"
api_version: templiqx/v1alpha1
id: rich
version: 1.0.0
inputs:
  name: { schema: { type: string }, required: true }
  items: { schema: { type: array, items: { type: object, properties: { n: { type: number }, d: { type: string } } } }, required: false }
  flag: { schema: { type: boolean }, required: false }
context:
  locale: { schema: { type: string }, required: false }
capabilities: [structured_output]
components:
  line:
    parameters:
      n: { schema: { type: number }, required: false }
      d: { schema: { type: string }, required: false }
    content:
      - { kind: interpolate, expression: { kind: ref, path: n }, filters: [format_number] }
      - { kind: text, value: " on " }
      - { kind: interpolate, expression: { kind: ref, path: d }, filters: [format_date] }
messages:
  - role: user
    content:
      - { kind: interpolate, expression: { kind: ref, path: inputs.name }, filters: [trim, upper] }
      - kind: when
        condition: { kind: ref, path: inputs.flag }
        then: [{ kind: text, value: "!" }]
      - kind: for_each
        collection: { kind: ref, path: inputs.items }
        item: it
        separator: ", "
        body:
          - { kind: component, name: line, with: { n: { kind: ref, path: it.n }, d: { kind: ref, path: it.d } } }
          - { kind: interpolate, expression: { kind: ref, path: it }, filters: [json] }
output_schema: { type: object }
"#;

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_never_panics_the_compiler(text in ".{0,400}") {
        let c = compile_str(&text, "fuzz.yaml", &CapabilityProfile::parse_list("structured_output"));
        prop_assert_eq!(c.interaction.is_some(), c.diagnostics.is_empty());
        let _ = c.render_diagnostics();
    }

    #[test]
    fn yaml_shaped_text_never_panics_the_compiler(text in "[a-z_:{}\\[\\],&*!|>'\"\\- \n#0-9.]{0,300}") {
        let c = compile_str(&text, "fuzz.yaml", &CapabilityProfile::parse_list("structured_output"));
        let _ = c.render_diagnostics();
    }

    #[test]
    fn arbitrary_request_values_never_panic_the_renderer(inputs in json_value(), context in json_value()) {
        let c = compile_str(RICH, "rich.yaml", &CapabilityProfile::parse_list("structured_output"));
        prop_assert!(c.diagnostics.is_empty(), "{}", c.render_diagnostics());
        let i = c.interaction.unwrap();
        let empty = serde_json::Map::new();
        let inputs = inputs.as_object().unwrap_or(&empty);
        let context = context.as_object().unwrap_or(&empty);
        match templiqx::render(&i, inputs, context) {
            Ok(r) => prop_assert_eq!(r.messages.len(), 1),
            Err(e) => prop_assert!(!e.diagnostics.is_empty()),
        }
    }

    #[test]
    fn arbitrary_json_contracts_never_panic(doc in json_value()) {
        // JSON is YAML: feed arbitrary JSON documents as contracts.
        let text = serde_json::to_string(&doc).unwrap();
        let c = compile_str(&text, "fuzz.yaml", &CapabilityProfile::parse_list("structured_output"));
        prop_assert_eq!(c.interaction.is_some(), c.diagnostics.is_empty());
    }
}
