//! Properties of the validator, the exact number comparison and the RFC 3339
//! formats over generated inputs. Schemas here are built directly, so they
//! include ones the compiler would reject (min above max, `NaN` bounds):
//! static data in generated code is trusted, but must never make the
//! validator panic.

use proptest::prelude::*;
use std::cmp::Ordering;
use templiqx_contracts::format::{days_in_month, is_date, is_date_time, parse_date};
use templiqx_contracts::validate::validate;
use templiqx_contracts::{AsValue, Format, IrValue, Number, Ptr, Schema, Seq, Str, TypeSet};

fn number() -> impl Strategy<Value = Number<'static>> {
    prop_oneof![
        any::<i64>().prop_map(Number::I64),
        any::<u64>().prop_map(Number::U64),
        any::<f64>().prop_map(Number::F64),
        prop::sample::select(vec![
            Number::F64(f64::NAN),
            Number::F64(f64::INFINITY),
            Number::F64(-0.0),
            Number::F64(9007199254740992.0),
            Number::I64((1 << 53) + 1),
            Number::F64(18446744073709551616.0),
            Number::U64(u64::MAX),
            Number::I64(i64::MIN),
        ]),
    ]
}

fn value() -> impl Strategy<Value = IrValue> {
    let leaf = prop_oneof![
        Just(IrValue::Null),
        any::<bool>().prop_map(IrValue::Bool),
        number().prop_map(IrValue::Number),
        "[a-cé😀/~]{0,5}".prop_map(|s| IrValue::String(Str::Owned(s))),
        "[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}:[0-9]{2}Z)?"
            .prop_map(|s| IrValue::String(Str::Owned(s))),
    ];
    leaf.prop_recursive(4, 32, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(|v| IrValue::Array(Seq::Owned(v))),
            prop::collection::btree_map("[a-d/~]{1,2}", inner, 0..4).prop_map(|m| {
                IrValue::Object(Seq::Owned(
                    m.into_iter().map(|(k, v)| (Str::Owned(k), v)).collect(),
                ))
            }),
        ]
    })
}

fn schema() -> impl Strategy<Value = Schema> {
    let types = (any::<u8>()).prop_map(|bits| TypeSet(bits & 0x7f));
    let leaf = (
        types,
        prop::option::of(number()),
        prop::option::of(number()),
        prop::option::of(number()),
        prop::option::of(number()),
        prop::option::of(0u64..5),
        prop::option::of(0u64..5),
        prop::option::of(prop::sample::select(vec![Format::Date, Format::DateTime])),
        prop::option::of(prop::collection::vec(value(), 0..3)),
        prop::option::of(value()),
        prop::collection::vec("[a-d]", 0..3),
        any::<bool>(),
    )
        .prop_map(
            |(types, min, max, xmin, xmax, minl, maxl, format, enums, cnst, req, addl)| Schema {
                types,
                minimum: min,
                maximum: max,
                exclusive_minimum: xmin,
                exclusive_maximum: xmax,
                min_length: minl,
                max_length: maxl,
                min_items: minl,
                max_items: maxl,
                format,
                enum_values: enums.map(Seq::Owned),
                const_value: cnst,
                required: Seq::Owned(req.into_iter().map(Str::Owned).collect()),
                additional_properties: addl,
                ..Schema::ANY
            },
        );
    leaf.prop_recursive(3, 16, 3, |inner| {
        (
            inner.clone(),
            prop::collection::vec(("[a-d]", inner.clone()), 0..3),
            prop::option::of(inner),
        )
            .prop_map(|(mut s, props, items)| {
                s.properties =
                    Seq::Owned(props.into_iter().map(|(k, v)| (Str::Owned(k), v)).collect());
                s.items = items.map(Ptr::from);
                s
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn validating_never_panics(s in schema(), v in value()) {
        match validate(&s, v.as_value()) {
            Ok(()) => {}
            Err(violations) => prop_assert!(!violations.is_empty()),
        }
        // The unconstrained schema rejects only what JSON cannot hold.
        let _ = validate(&Schema::ANY, v.as_value());
    }

    #[test]
    fn exact_comparison_is_antisymmetric(a in number(), b in number()) {
        prop_assert_eq!(a.cmp_exact(b), b.cmp_exact(a).map(Ordering::reverse));
        prop_assert_eq!(a.numeric_eq(b), a.cmp_exact(b) == Some(Ordering::Equal));
    }

    #[test]
    fn exact_comparison_agrees_where_doubles_are_exact(
        i in -(1i64 << 53)..=(1i64 << 53),
        f in -1e17f64..1e17,
    ) {
        prop_assert_eq!(Number::I64(i).cmp_exact(Number::F64(f)), (i as f64).partial_cmp(&f));
        prop_assert_eq!(
            Number::I64(i).cmp_exact(Number::F64(i as f64)),
            Some(Ordering::Equal)
        );
    }

    #[test]
    fn integers_compare_exactly(a in any::<i64>(), b in any::<u64>()) {
        prop_assert_eq!(
            Number::I64(a).cmp_exact(Number::U64(b)),
            Some(i128::from(a).cmp(&i128::from(b)))
        );
    }

    #[test]
    fn dates_are_real_calendar_dates(y in 0i32..10000, m in 0u8..14, d in 0u8..33) {
        let text = format!("{y:04}-{m:02}-{d:02}");
        let real = (1..=12).contains(&m) && d >= 1 && d <= days_in_month(y, m);
        prop_assert_eq!(parse_date(&text), real.then_some((y, m, d)));
        prop_assert_eq!(
            is_date_time(&format!("{text}T12:00:00Z")),
            real
        );
    }

    #[test]
    fn formats_never_panic(s in "\\PC{0,40}") {
        let _ = is_date(&s);
        let _ = is_date_time(&s);
    }

    #[test]
    fn leap_seconds_only_at_23_59_utc(
        h in 0u8..24, mi in 0u8..60, sign in prop::bool::ANY, oh in 0u8..24, om in 0u8..60,
    ) {
        let sign_char = if sign { '+' } else { '-' };
        let text = format!("1998-12-31T{h:02}:{mi:02}:60{sign_char}{oh:02}:{om:02}");
        let offset = (i32::from(oh) * 60 + i32::from(om)) * if sign { 1 } else { -1 };
        let utc = (i32::from(h) * 60 + i32::from(mi) - offset).rem_euclid(1440);
        prop_assert_eq!(is_date_time(&text), utc == 23 * 60 + 59, "{}", text);
    }
}
