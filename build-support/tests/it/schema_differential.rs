//! Differential test: our bounded schema validator (`compile_schema` +
//! `templiqx_contracts::validate`) against the `jsonschema` crate (draft
//! 2020-12, formats asserted, as the subset asserts them) on generated
//! pairs of (schema inside the subset, instance). Every pair must get the
//! same verdict; the deviations docs/decisions.md lists ("Bounded JSON
//! Schema subset") are kept out of the generators, each with the reason.

use proptest::prelude::*;
use serde_json::{Map, Value, json};
use templiqx_build::schema::compile_schema;
use templiqx_contracts::{AsValue, validate::validate};

/// The number of generated pairs (printed in the test output).
const CASES: u32 = 4096;

fn small_string() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-c]{0,4}",
        ".{0,5}",
        Just("2026-02-28".to_owned()),
        Just("2026-02-30".to_owned()),
        Just("2024-02-29".to_owned()),
        Just("2026-07-12T08:30:00Z".to_owned()),
        Just("2026-07-12T08:30:00.5+02:00".to_owned()),
        Just("2026-07-12 08:30:00Z".to_owned()),
        Just("2026-13-01".to_owned()),
    ]
}

fn number() -> impl Strategy<Value = Value> {
    prop_oneof![
        (-5i64..=5).prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        (-50i32..=50).prop_map(|n| Value::from(f64::from(n) / 4.0)),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
    ]
}

fn instance() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        number(),
        small_string().prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-c]", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn bound() -> impl Strategy<Value = Value> {
    prop_oneof![
        (-5i64..=5).prop_map(Value::from),
        (-20i32..=20).prop_map(|n| Value::from(f64::from(n) / 4.0))
    ]
}

/// Keywords of one type, each present or not.
fn keywords(ty: &'static str, inner: BoxedStrategy<Value>) -> BoxedStrategy<Map<String, Value>> {
    let opt = |s: BoxedStrategy<Value>| prop::option::weighted(0.4, s);
    match ty {
        "string" => (
            opt((0u64..4).prop_map(Value::from).boxed()),
            opt((0u64..6).prop_map(Value::from).boxed()),
            opt(prop_oneof![Just(json!("date")), Just(json!("date-time"))].boxed()),
            opt(prop::collection::btree_set("[a-c]{0,2}", 1..4)
                .prop_map(|s| Value::from(s.into_iter().collect::<Vec<_>>()))
                .boxed()),
        )
            .prop_map(|(min, max, format, en)| {
                let mut m = Map::new();
                min.map(|v| m.insert("minLength".into(), v));
                max.map(|v| m.insert("maxLength".into(), v));
                format.map(|v| m.insert("format".into(), v));
                en.map(|v| m.insert("enum".into(), v));
                m
            })
            .boxed(),
        "integer" | "number" => (
            opt(bound().boxed()),
            opt(bound().boxed()),
            opt(bound().boxed()),
            opt(bound().boxed()),
        )
            .prop_map(|(a, b, c, d)| {
                let mut m = Map::new();
                a.map(|v| m.insert("minimum".into(), v));
                b.map(|v| m.insert("maximum".into(), v));
                c.map(|v| m.insert("exclusiveMinimum".into(), v));
                d.map(|v| m.insert("exclusiveMaximum".into(), v));
                m
            })
            .boxed(),
        "array" => (
            opt(inner),
            opt((0u64..3).prop_map(Value::from).boxed()),
            opt((0u64..4).prop_map(Value::from).boxed()),
        )
            .prop_map(|(items, min, max)| {
                let mut m = Map::new();
                items.map(|v| m.insert("items".into(), v));
                min.map(|v| m.insert("minItems".into(), v));
                max.map(|v| m.insert("maxItems".into(), v));
                m
            })
            .boxed(),
        "object" => (
            prop::collection::btree_map("[a-c]", inner, 0..3),
            prop::collection::btree_set("[a-c]", 0..3),
            opt(any::<bool>().prop_map(Value::Bool).boxed()),
        )
            .prop_map(|(props, required, additional)| {
                let mut m = Map::new();
                if !props.is_empty() {
                    m.insert(
                        "properties".into(),
                        Value::Object(props.into_iter().collect()),
                    );
                }
                if !required.is_empty() {
                    m.insert(
                        "required".into(),
                        Value::from(required.into_iter().collect::<Vec<_>>()),
                    );
                }
                additional.map(|v| m.insert("additionalProperties".into(), v));
                m
            })
            .boxed(),
        _ => Just(Map::new()).boxed(),
    }
}

fn schema() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(json!({})),
        Just(json!({"type": "string"})),
        Just(json!({"type": "null"}))
    ];
    leaf.prop_recursive(3, 16, 3, |inner| {
        let inner = inner.boxed();
        prop_oneof![
            Just("string"),
            Just("integer"),
            Just("number"),
            Just("boolean"),
            Just("array"),
            Just("object"),
            Just("null")
        ]
        .prop_flat_map(move |ty| {
            (
                Just(ty),
                any::<bool>(),
                keywords(ty, inner.clone()),
                prop::option::weighted(0.2, instance()),
            )
        })
        .prop_map(|(ty, nullable, mut m, konst)| {
            let types = if nullable && ty != "null" {
                json!([ty, "null"])
            } else {
                json!(ty)
            };
            m.insert("type".into(), types);
            if let Some(c) = konst {
                m.insert("const".into(), c);
            }
            Value::Object(m)
        })
    })
}

/// Instances shaped by `schema` (its type, lengths, bounds, properties), so
/// that valid and nearly valid instances are frequent.
fn shaped(schema: &Value) -> BoxedStrategy<Value> {
    if let Some(c) = schema.get("const") {
        return Just(c.clone()).boxed();
    }
    if let Some(Value::Array(values)) = schema.get("enum") {
        return prop::sample::select(values.clone()).boxed();
    }
    let ty = match schema.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(ts)) => ts[0].as_str().unwrap_or("null"),
        _ => return instance().boxed(),
    };
    let n = |k: &str, d: u64| schema.get(k).and_then(Value::as_u64).unwrap_or(d);
    match ty {
        "string" if schema.get("format").is_some() => {
            small_string().prop_map(Value::String).boxed()
        }
        "string" => {
            let (min, max) = (n("minLength", 0), n("maxLength", 5).max(n("minLength", 0)));
            proptest::string::string_regex(&format!("[a-c\u{e9}\u{1f600}]{{{min},{max}}}"))
                .expect("a regex")
                .prop_map(Value::String)
                .boxed()
        }
        "integer" => (-6i64..=6).prop_map(Value::from).boxed(),
        "number" => (-24i32..=24)
            .prop_map(|n| Value::from(f64::from(n) / 4.0))
            .boxed(),
        "boolean" => any::<bool>().prop_map(Value::Bool).boxed(),
        "array" => {
            let items = schema
                .get("items")
                .map_or_else(|| instance().boxed(), shaped);
            let (min, max) = (n("minItems", 0), n("maxItems", 3).max(n("minItems", 0)));
            prop::collection::vec(items, (min as usize)..=(max as usize))
                .prop_map(Value::Array)
                .boxed()
        }
        "object" => {
            let props: Vec<(String, BoxedStrategy<Option<Value>>)> = schema
                .get("properties")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
                .map(|(k, v)| (k.clone(), prop::option::weighted(0.8, shaped(v)).boxed()))
                .collect();
            let extra = prop::option::weighted(0.2, ("[a-d]", instance()));
            (
                props
                    .into_iter()
                    .map(|(k, s)| s.prop_map(move |v| v.map(|v| (k.clone(), v))))
                    .collect::<Vec<_>>(),
                extra,
            )
                .prop_map(|(members, extra)| {
                    let mut m: Map<String, Value> = members.into_iter().flatten().collect();
                    if let Some((k, v)) = extra {
                        m.entry(k).or_insert(v);
                    }
                    Value::Object(m)
                })
                .boxed()
        }
        _ => Just(Value::Null).boxed(),
    }
}

#[test]
fn same_verdict_as_jsonschema_draft_2020_12() {
    use proptest::test_runner::{Config, TestCaseError, TestRunner};
    use std::cell::Cell;
    // `cases` counts compared pairs only: a schema the subset refuses
    // (impossible bounds, a keyword for another type, enum values of the
    // wrong type) is a rejection, not a comparison; refusing it is the
    // documented deviation.
    let mut runner = TestRunner::new(Config {
        cases: CASES,
        max_global_rejects: 64 * CASES,
        ..Config::default()
    });
    let (compared, valid) = (Cell::new(0u32), Cell::new(0u32));
    runner
        .run(
            &schema().prop_flat_map(|schema| {
                let instance = prop_oneof![1 => instance(), 3 => shaped(&schema)];
                (Just(schema), instance)
            }),
            |(schema, instance)| {
                let Ok(ours) = compile_schema(&schema, "") else {
                    return Err(TestCaseError::reject("outside the subset"));
                };
                let reference = jsonschema::draft202012::options()
                    .should_validate_formats(true)
                    .build(&schema)
                    .expect("a schema of the subset is a valid 2020-12 schema");
                let our_verdict = validate(&ours, instance.as_value());
                let their_verdict = reference.is_valid(&instance);
                prop_assert_eq!(
                    our_verdict.is_ok(),
                    their_verdict,
                    "schema {} instance {}: ours {:?}",
                    schema,
                    instance,
                    our_verdict.err()
                );
                compared.set(compared.get() + 1);
                valid.set(valid.get() + u32::from(their_verdict));
                Ok(())
            },
        )
        .unwrap();
    let (compared, valid) = (compared.get(), valid.get());
    println!(
        "schema validator differential: {compared} pairs compared, {valid} valid, {} invalid",
        compared - valid
    );
    assert_eq!(compared, CASES);
    // Both verdicts are well represented, so agreement means something.
    assert!(
        valid >= CASES / 10 && compared - valid >= CASES / 10,
        "{valid} of {compared} valid"
    );
}
