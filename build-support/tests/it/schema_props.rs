//! Properties of `compile_schema` + `validate` over generated documents:
//! nothing panics, compiled `enum`/`const` values satisfy their own schema,
//! every violation points at a node of the value, and a compiled schema
//! serialises back to a document that compiles to the same schema.

use proptest::prelude::*;
use serde_json::{Value, json};
use templiqx_build::schema::compile_schema;
use templiqx_contracts::AsValue;
use templiqx_contracts::validate::validate;

fn number() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_filter_map("finite", |f| serde_json::Number::from_f64(f)
            .map(Value::Number)),
        prop::sample::select(vec![
            json!(-2),
            json!(-1.5),
            json!(0),
            json!(0.5),
            json!(1),
            json!(1.0),
            json!(2),
            json!(3),
            json!(9007199254740992.0),
            json!(9007199254740993u64),
            json!(u64::MAX),
            json!(i64::MIN),
        ]),
    ]
}

fn string() -> impl Strategy<Value = Value> {
    prop_oneof![
        "[a-cé😀\\-~/]{0,5}".prop_map(Value::String),
        "[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-2][0-9]:[0-5][0-9]:[0-6][0-9](\\.[0-9]{1,3})?(Z|[+-][0-2][0-9]:[0-5][0-9]))?"
            .prop_map(Value::String),
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        number(),
        string(),
    ];
    leaf.prop_recursive(4, 32, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-d]", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn small_count() -> impl Strategy<Value = Value> {
    prop_oneof![
        4 => (0u64..6).prop_map(Value::from),
        1 => Just(json!(2.0)),
        1 => Just(json!(-1)),
    ]
}

/// One keyword with a plausible (sometimes wrong) value.
fn keyword() -> impl Strategy<Value = (String, Value)> {
    let type_name = prop::sample::select(vec![
        json!("string"),
        json!("integer"),
        json!("number"),
        json!("boolean"),
        json!("array"),
        json!("object"),
        json!("null"),
        json!(["integer", "null"]),
        json!(["string", "null"]),
        json!(["string", "integer"]),
        json!("strnig"),
    ]);
    let simple = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        number(),
        string(),
    ];
    prop_oneof![
        4 => type_name.prop_map(|v| ("type".to_owned(), v)),
        1 => small_count().prop_map(|v| ("minLength".to_owned(), v)),
        1 => small_count().prop_map(|v| ("maxLength".to_owned(), v)),
        1 => small_count().prop_map(|v| ("minItems".to_owned(), v)),
        1 => small_count().prop_map(|v| ("maxItems".to_owned(), v)),
        1 => number().prop_map(|v| ("minimum".to_owned(), v)),
        1 => number().prop_map(|v| ("maximum".to_owned(), v)),
        1 => number().prop_map(|v| ("exclusiveMinimum".to_owned(), v)),
        1 => number().prop_map(|v| ("exclusiveMaximum".to_owned(), v)),
        2 => prop::collection::vec(simple, 0..4)
            .prop_map(|v| ("enum".to_owned(), Value::Array(v))),
        1 => json_value().prop_map(|v| ("const".to_owned(), v)),
        1 => prop::sample::select(vec!["date", "date-time", "email"])
            .prop_map(|f| ("format".to_owned(), json!(f))),
        1 => prop::collection::vec("[a-d]", 0..3)
            .prop_map(|v| ("required".to_owned(), json!(v))),
        1 => any::<bool>().prop_map(|b| ("additionalProperties".to_owned(), json!(b))),
        1 => Just(("pattern".to_owned(), json!("^a"))),
        1 => Just(("title".to_owned(), json!("t"))),
    ]
}

fn schema_doc() -> impl Strategy<Value = Value> {
    let leaf = prop::collection::vec(keyword(), 0..5)
        .prop_map(|kws| Value::Object(kws.into_iter().collect()));
    leaf.prop_recursive(3, 24, 4, |inner| {
        (
            prop::collection::vec(keyword(), 0..4),
            prop::collection::btree_map("[a-d]", inner.clone(), 0..4),
            prop::option::of(inner),
        )
            .prop_map(|(kws, props, items)| {
                let mut m: serde_json::Map<String, Value> = kws.into_iter().collect();
                if !props.is_empty() {
                    m.insert(
                        "properties".into(),
                        Value::Object(props.into_iter().collect()),
                    );
                }
                if let Some(items) = items {
                    m.insert("items".into(), items);
                }
                Value::Object(m)
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn compiling_any_json_never_panics(doc in json_value()) {
        let _ = compile_schema(&doc, "/x");
    }

    #[test]
    fn compiled_schemas_validate_any_value_without_panicking(
        doc in schema_doc(),
        values in prop::collection::vec(json_value(), 1..6),
    ) {
        let Ok(schema) = compile_schema(&doc, "") else { return Ok(()) };
        for value in &values {
            if let Err(violations) = validate(&schema, value.as_value()) {
                prop_assert!(!violations.is_empty());
                for v in &violations {
                    prop_assert!(
                        value.pointer(&v.pointer).is_some(),
                        "{} does not point into {}", v.pointer, value
                    );
                    prop_assert!(!v.message.is_empty());
                }
            }
        }
    }

    #[test]
    fn enum_and_const_values_satisfy_their_schema(doc in schema_doc()) {
        let Ok(schema) = compile_schema(&doc, "") else { return Ok(()) };
        for value in schema.enum_values.iter().flat_map(|e| e.iter()) {
            prop_assert!(validate(&schema, value.as_value()).is_ok(), "{:?}", value);
        }
        if let Some(c) = &schema.const_value {
            prop_assert!(validate(&schema, c.as_value()).is_ok(), "{:?}", c);
        }
    }

    #[test]
    fn compiled_schemas_round_trip_through_serialisation(doc in schema_doc()) {
        let Ok(schema) = compile_schema(&doc, "") else { return Ok(()) };
        let written = serde_json::to_value(&schema).expect("serialise");
        let again = compile_schema(&written, "");
        prop_assert_eq!(again.as_ref(), Ok(&schema), "{}", written);
    }
}
