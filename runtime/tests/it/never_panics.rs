//! Property: no request value makes the renderer panic; every outcome is a
//! rendered interaction or diagnostics.

use crate::common::*;
use proptest::prelude::*;
use serde_json::{Map, Value, json};
use templiqx::contracts::ir::Expr;
use templiqx::contracts::{Filter, Format, JsonType, Schema};

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        "\\PC{0,12}".prop_map(Value::String),
        prop_oneof![
            Just("2026-07-12"),
            Just("2026-02-30"),
            Just("  ΟΔΟΣ  "),
            Just("{{x}}"),
            Just("nl_NL"),
            Just("EN-us")
        ]
        .prop_map(|s| Value::String(s.to_owned())),
    ];
    leaf.prop_recursive(4, 32, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::btree_map(
                prop_oneof![Just("a".to_owned()), Just("b".to_owned()), "[a-c]{1,2}"],
                inner,
                0..4
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn filter() -> impl Strategy<Value = Filter> {
    prop_oneof![
        Just(Filter::Trim),
        Just(Filter::Lower),
        Just(Filter::Upper),
        Just(Filter::Json),
        Just(Filter::FormatDate),
        Just(Filter::FormatNumber),
    ]
}

/// Every node kind, over fields whose values are random.
fn kitchen_sink(filters: &[Filter]) -> templiqx::Interaction {
    let date = Schema {
        format: Some(Format::Date),
        ..typed(JsonType::String)
    };
    interaction(
        vec![
            field("a", Schema::ANY, true),
            field("b", Schema::ANY, false),
            field("d", date, false),
            field("n", typed(JsonType::Number), false),
        ],
        vec![field("locale", Schema::ANY, false)],
        vec![
            vec![text("{{a}} "), interp(input(&["a"]), filters)],
            vec![
                when(
                    Expr::Equals(input(&["a"]).into(), input(&["b"]).into()),
                    vec![text("same")],
                    vec![when(input(&["b"]), vec![text("b")], vec![])],
                ),
                for_each(
                    input(&["a"]),
                    vec![
                        interp(local(0, "item", &[]), filters),
                        call(0, vec![Some(local(0, "item", &[])), Some(lit(json!(true)))]),
                    ],
                    Some(", "),
                ),
                interp(input(&["d"]), &[Filter::FormatDate]),
                interp(input(&["n"]), &[Filter::FormatNumber]),
            ],
        ],
        vec![component(
            "show",
            &["value", "extra"],
            vec![
                interp(local(0, "value", &[]), &[Filter::Json, Filter::Upper]),
                when(
                    Expr::Or(vec![local(1, "extra", &[]), local(0, "value", &[])].into()),
                    vec![text("!")],
                    vec![],
                ),
            ],
        )],
    )
}

/// Deep paths into random values.
fn paths() -> Vec<templiqx::Interaction> {
    [
        &["a", "a"][..],
        &["a", "0", "b"],
        &["a", "1"],
        &["b", "a", "a"],
    ]
    .into_iter()
    .map(|steps| {
        interaction(
            vec![
                field("a", Schema::ANY, true),
                field("b", Schema::ANY, false),
            ],
            vec![],
            vec![vec![interp(input(steps), &[Filter::Json])]],
            vec![],
        )
    })
    .collect()
}

fn render_any(
    i: &templiqx::Interaction,
    inputs: &Map<String, Value>,
    locale: Value,
) -> Result<(), TestCaseError> {
    let context = obj(json!({ "locale": locale }));
    match templiqx::render(i, inputs, &context) {
        Ok(rendered) => prop_assert_eq!(rendered.messages.len(), i.messages.len()),
        Err(error) => prop_assert!(!error.diagnostics.is_empty()),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Arbitrary maps: mostly invalid requests (missing, undeclared,
    /// wrong-typed values).
    #[test]
    fn arbitrary_requests_never_panic(
        values in prop::collection::btree_map(
            prop_oneof![Just("a"), Just("b"), Just("d"), Just("n"), Just("zz")],
            json_value(),
            0..5,
        ),
        locale in json_value(),
        filters in prop::collection::vec(filter(), 0..4),
    ) {
        let inputs: Map<String, Value> =
            values.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
        render_any(&kitchen_sink(&filters), &inputs, locale)?;
    }

    /// Requests that pass validation, so rendering itself is exercised.
    #[test]
    fn valid_requests_never_panic(
        a in prop::collection::vec(json_value(), 0..6),
        b in proptest::option::of(any::<bool>()),
        d in prop_oneof![Just("2026-07-12"), Just("2024-02-29"), Just("0001-01-01")],
        n in prop_oneof![
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            (-1e12f64..1e12).prop_map(Value::from),
        ],
        locale in prop_oneof![Just(json!("nl_NL")), Just(json!("EN-us")), Just(json!("de")), Just(json!(null)), Just(json!(7))],
        string_filters in prop::collection::vec(
            prop_oneof![Just(Filter::Trim), Just(Filter::Lower), Just(Filter::Upper), Just(Filter::Json)],
            0..3,
        ),
        path in 0usize..4,
    ) {
        // `json` first accepts anything; the rest then take strings.
        let mut filters = vec![Filter::Json];
        filters.extend(string_filters);
        let mut inputs = Map::new();
        inputs.insert("a".into(), Value::Array(a));
        if let Some(b) = b { inputs.insert("b".into(), Value::Bool(b)); }
        inputs.insert("d".into(), Value::from(d));
        inputs.insert("n".into(), n);
        render_any(&kitchen_sink(&filters), &inputs, locale.clone())?;
        render_any(&paths()[path], &inputs, locale)?;
    }
}
