//! The validator, keyword by keyword (JSON Schema 2020-12 semantics for the
//! bounded subset; `format` as an assertion).

use serde_json::json;
use templiqx_contracts::validate::{SchemaViolation, validate, validate_at};
use templiqx_contracts::{
    AsValue, Format, IrValue, JsonType, Number, Ptr, Schema, Seq, Str, TypeSet, ValueRef,
};

fn of(t: JsonType) -> Schema {
    Schema {
        types: TypeSet::of(t),
        ..Schema::ANY
    }
}

fn errors(schema: &Schema, value: ValueRef<'_>) -> Vec<SchemaViolation> {
    validate(schema, value).err().unwrap_or_default()
}

/// `(pointer, keyword, message)` of each violation.
fn triples(schema: &Schema, value: serde_json::Value) -> Vec<(String, &'static str, String)> {
    errors(schema, value.as_value())
        .into_iter()
        .map(|v| (v.pointer, v.keyword, v.message))
        .collect()
}

fn ok(schema: &Schema, value: ValueRef<'_>) -> bool {
    validate(schema, value).is_ok()
}

#[test]
fn type_names_expected_and_found() {
    let string = of(JsonType::String);
    assert!(ok(&string, json!("x").as_value()));
    assert_eq!(
        triples(&string, json!(5)),
        [("".into(), "type", "expected string, found number 5".into())]
    );
    assert_eq!(
        triples(&string, json!(null))[0].2,
        "expected string, found null"
    );
    assert_eq!(
        triples(&of(JsonType::Object), json!([1, 2]))[0].2,
        "expected object, found array of 2 items"
    );
    let nullable = Schema {
        types: TypeSet::of(JsonType::String).with(JsonType::Null),
        ..Schema::ANY
    };
    assert!(ok(&nullable, ValueRef::Null));
    assert_eq!(
        triples(&nullable, json!(true))[0].2,
        "expected string or null, found boolean true"
    );
    for v in [json!(null), json!(1), json!("s"), json!([]), json!({})] {
        assert!(ok(&Schema::ANY, v.as_value()));
    }
}

#[test]
fn integer_means_integer_valued() {
    let integer = of(JsonType::Integer);
    for v in [
        json!(1),
        json!(1.0),
        json!(-0.0),
        json!(u64::MAX),
        json!(1e300),
    ] {
        assert!(ok(&integer, v.as_value()), "{v}");
    }
    assert_eq!(
        triples(&integer, json!(1.5))[0].2,
        "expected integer, found number 1.5"
    );
    assert!(!ok(&integer, json!("1").as_value()));
    // Every integer is a number.
    assert!(ok(&of(JsonType::Number), json!(7).as_value()));
    assert!(ok(&of(JsonType::Number), json!(u64::MAX).as_value()));
}

#[test]
fn non_finite_numbers_are_not_json() {
    for f in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let v = ValueRef::Number(Number::F64(f));
        let e = errors(&Schema::ANY, v);
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].keyword, "type");
        assert!(e[0].message.contains("non-finite"), "{}", e[0].message);
    }
}

#[test]
fn enum_and_const_use_json_equality() {
    let e = Schema {
        enum_values: Some(Seq::Owned(vec![
            IrValue::Number(Number::I64(1)),
            IrValue::String(Str::Borrowed("a")),
            IrValue::from_json(&json!({"k": [1, 2]})),
        ])),
        ..Schema::ANY
    };
    assert!(ok(&e, json!(1.0).as_value()));
    assert!(ok(&e, json!("a").as_value()));
    assert!(ok(&e, json!({"k": [1.0, 2]}).as_value()));
    assert!(!ok(&e, json!(true).as_value()));
    assert!(!ok(&e, json!({"k": [1, 2], "x": 0}).as_value()));
    assert_eq!(
        triples(&e, json!("b")),
        [(
            "".into(),
            "enum",
            r#"expected one of [1, "a", object with 1 property], found string "b""#.into()
        )]
    );

    let c = Schema {
        const_value: Some(IrValue::from_json(&json!({"a": 1, "b": [false]}))),
        ..Schema::ANY
    };
    assert!(ok(&c, json!({"b": [false], "a": 1.0}).as_value()));
    assert!(!ok(&c, json!({"b": [0], "a": 1}).as_value()));
    let two = Schema {
        const_value: Some(IrValue::Number(Number::I64(2))),
        ..Schema::ANY
    };
    assert_eq!(triples(&two, json!(3))[0].2, "expected 2, found number 3");
}

#[test]
fn const_equality_is_exact_beyond_2_pow_53() {
    // 2^53 + 1 has no double; `as f64` would round it to 2^53.
    let c = Schema {
        const_value: Some(IrValue::Number(Number::F64(9_007_199_254_740_992.0))),
        ..Schema::ANY
    };
    assert!(ok(&c, json!(9_007_199_254_740_992u64).as_value()));
    assert!(!ok(&c, json!(9_007_199_254_740_993u64).as_value()));
    let u = Schema {
        const_value: Some(IrValue::Number(Number::U64(u64::MAX))),
        ..Schema::ANY
    };
    assert!(ok(&u, json!(u64::MAX).as_value()));
    // The nearest double to u64::MAX is 2^64, which is not u64::MAX.
    assert!(!ok(&u, json!(18_446_744_073_709_551_615.0).as_value()));
}

#[test]
fn lengths_count_unicode_scalar_values() {
    let s = Schema {
        min_length: Some(2),
        max_length: Some(3),
        ..Schema::ANY
    };
    assert!(ok(&s, json!("é😀").as_value())); // 2 scalars, 6 bytes
    assert!(ok(&s, json!("e\u{301}x").as_value())); // decomposed é: 3 scalars
    assert_eq!(
        triples(&s, json!("😀")),
        [(
            "".into(),
            "minLength",
            "expected at least 2 characters, found 1".into()
        )]
    );
    assert_eq!(
        triples(&s, json!("éééé"))[0].2,
        "expected at most 3 characters, found 4"
    );
    // Length keywords ignore non-strings.
    assert!(ok(&s, json!(12345).as_value()));
}

#[test]
fn length_bounds_agree_with_counting_at_every_width() {
    // Byte length settles most checks without counting; near the bounds
    // (1- to 4-byte characters, mixed) the verdict must still be the count's.
    for unit in ["a", "é", "€", "😀", "a😀"] {
        for repeat in 0..10 {
            let text = unit.repeat(repeat);
            let count = text.chars().count() as u64;
            for min in [None, Some(0), Some(1), Some(3), Some(8), Some(20)] {
                for max in [None, Some(0), Some(2), Some(8), Some(20)] {
                    let s = Schema {
                        min_length: min,
                        max_length: max,
                        ..Schema::ANY
                    };
                    let want = min.is_none_or(|m| count >= m) && max.is_none_or(|m| count <= m);
                    assert_eq!(
                        ok(&s, json!(text).as_value()),
                        want,
                        "{text:?} {min:?} {max:?}"
                    );
                }
            }
        }
    }
}

fn bound(set: impl Fn(&mut Schema)) -> Schema {
    let mut s = Schema::ANY;
    set(&mut s);
    s
}

#[test]
fn numeric_bounds_are_inclusive_or_exclusive() {
    let s = bound(|s| {
        s.minimum = Some(Number::I64(1));
        s.maximum = Some(Number::F64(3.0));
    });
    for v in [json!(1), json!(1.0), json!(2.5), json!(3)] {
        assert!(ok(&s, v.as_value()), "{v}");
    }
    assert_eq!(
        triples(&s, json!(0.5)),
        [(
            "".into(),
            "minimum",
            "expected a number >= 1, found 0.5".into()
        )]
    );
    assert_eq!(
        triples(&s, json!(4))[0],
        (
            "".into(),
            "maximum",
            "expected a number <= 3, found 4".into()
        )
    );
    let x = bound(|s| {
        s.exclusive_minimum = Some(Number::I64(0));
        s.exclusive_maximum = Some(Number::F64(1.5));
    });
    assert!(ok(&x, json!(1).as_value()));
    assert_eq!(
        triples(&x, json!(0))[0],
        (
            "".into(),
            "exclusiveMinimum",
            "expected a number > 0, found 0".into()
        )
    );
    assert!(!ok(&x, json!(-0.0).as_value()));
    assert_eq!(triples(&x, json!(1.5))[0].1, "exclusiveMaximum");
    // Bounds ignore non-numbers.
    assert!(ok(&x, json!("9").as_value()));
}

#[test]
fn numeric_bounds_compare_exactly_at_the_edges() {
    const TWO_53: f64 = 9_007_199_254_740_992.0;
    // i64 above 2^53 against a double bound: `as f64` would make them equal.
    let below = bound(|s| s.exclusive_maximum = Some(Number::F64(TWO_53)));
    assert!(!ok(&below, ValueRef::Number(Number::I64((1 << 53) + 1))));
    assert!(ok(&below, ValueRef::Number(Number::I64((1 << 53) - 1))));
    let above = bound(|s| s.exclusive_minimum = Some(Number::F64(TWO_53)));
    assert!(ok(&above, ValueRef::Number(Number::I64((1 << 53) + 1))));
    // u64::MAX is below the double 2^64 (its nearest double).
    let max = bound(|s| s.maximum = Some(Number::U64(u64::MAX)));
    assert!(ok(&max, ValueRef::Number(Number::U64(u64::MAX))));
    assert!(!ok(&max, json!(18_446_744_073_709_551_616.0).as_value()));
    let under = bound(|s| s.exclusive_maximum = Some(Number::F64(18_446_744_073_709_551_616.0)));
    assert!(ok(&under, ValueRef::Number(Number::U64(u64::MAX))));
    // i64::MIN is exactly -2^63.
    let min = bound(|s| s.minimum = Some(Number::F64(-9_223_372_036_854_775_808.0)));
    assert!(ok(&min, ValueRef::Number(Number::I64(i64::MIN))));
    let xmin = bound(|s| s.exclusive_minimum = Some(Number::F64(-9_223_372_036_854_775_808.0)));
    assert!(!ok(&xmin, ValueRef::Number(Number::I64(i64::MIN))));
    assert!(ok(&xmin, ValueRef::Number(Number::I64(i64::MIN + 1))));
    // Fractions next to an integer bound.
    let m = bound(|s| s.minimum = Some(Number::I64(-3)));
    assert!(ok(&m, json!(-2.9999999).as_value()));
    assert!(!ok(&m, json!(-3.0000001).as_value()));
    assert!(ok(&m, ValueRef::Number(Number::U64(u64::MAX))));
}

#[test]
fn items_and_item_counts() {
    let s = Schema {
        types: TypeSet::of(JsonType::Array),
        items: Some(Ptr::from(of(JsonType::Integer))),
        min_items: Some(1),
        max_items: Some(3),
        ..Schema::ANY
    };
    assert!(ok(&s, json!([1, 2.0]).as_value()));
    assert_eq!(
        triples(&s, json!([])),
        [(
            "".into(),
            "minItems",
            "expected at least 1 item, found 0".into()
        )]
    );
    assert_eq!(
        triples(&s, json!([1, "x", 3, 4.5])),
        [
            (
                "".into(),
                "maxItems",
                "expected at most 3 items, found 4".into()
            ),
            (
                "/1".into(),
                "type",
                "expected integer, found string \"x\"".into()
            ),
            (
                "/3".into(),
                "type",
                "expected integer, found number 4.5".into()
            ),
        ]
    );
}

fn object_schema() -> Schema {
    Schema {
        types: TypeSet::of(JsonType::Object),
        properties: Seq::Owned(vec![
            (Str::Borrowed("name"), of(JsonType::String)),
            (Str::Borrowed("a/b~c"), of(JsonType::Boolean)),
            (
                Str::Borrowed("tags"),
                Schema {
                    items: Some(Ptr::from(Schema {
                        min_length: Some(1),
                        ..Schema::ANY
                    })),
                    ..Schema::ANY
                },
            ),
        ]),
        required: Seq::Owned(vec![Str::Borrowed("name"), Str::Borrowed("a/b~c")]),
        additional_properties: false,
        ..Schema::ANY
    }
}

#[test]
fn properties_required_and_additional_properties() {
    let s = object_schema();
    assert!(ok(
        &s,
        json!({"name": "n", "a/b~c": true, "tags": ["x"]}).as_value()
    ));
    assert_eq!(
        triples(&s, json!({"a/b~c": 1, "tags": ["", "y"], "extra": 0})),
        [
            (
                "".into(),
                "required",
                "missing required property \"name\"".into()
            ),
            (
                "/a~1b~0c".into(),
                "type",
                "expected boolean, found number 1".into()
            ),
            (
                "/tags/0".into(),
                "minLength",
                "expected at least 1 character, found 0".into()
            ),
            (
                "/extra".into(),
                "additionalProperties",
                "property \"extra\" is not declared in `properties` (additionalProperties: false)"
                    .into()
            ),
        ]
    );
    // Additional properties are allowed by default.
    let open = Schema {
        additional_properties: true,
        ..object_schema()
    };
    assert!(ok(
        &open,
        json!({"name": "n", "a/b~c": false, "more": [1]}).as_value()
    ));
    // An open schema may require a name it does not declare: with every
    // declared property present it is still looked for, and reported
    // before the properties' own violations.
    let undeclared_required = Schema {
        required: Seq::Owned(vec![Str::Borrowed("name"), Str::Borrowed("id")]),
        ..open.clone()
    };
    assert_eq!(
        triples(
            &undeclared_required,
            json!({"name": "n", "a/b~c": 1, "tags": [""]})
        ),
        [
            (
                "".into(),
                "required",
                "missing required property \"id\"".into()
            ),
            (
                "/a~1b~0c".into(),
                "type",
                "expected boolean, found number 1".into()
            ),
            (
                "/tags/0".into(),
                "minLength",
                "expected at least 1 character, found 0".into()
            ),
        ]
    );
    // Object keywords ignore non-objects.
    let untyped = Schema {
        types: TypeSet::ANY,
        ..object_schema()
    };
    assert!(ok(&untyped, json!([1]).as_value()));
}

#[test]
fn formats_are_asserted_as_rfc_3339() {
    let date = Schema {
        format: Some(Format::Date),
        ..Schema::ANY
    };
    assert!(ok(&date, json!("2024-02-29").as_value()));
    assert_eq!(
        triples(&date, json!("2026-02-30")),
        [(
            "".into(),
            "format",
            "\"2026-02-30\" is not a valid RFC 3339 date".into()
        )]
    );
    assert!(!ok(&date, json!("2026-07-12T00:00:00Z").as_value()));
    // Formats ignore non-strings.
    assert!(ok(&date, json!(20260712).as_value()));

    let dt = Schema {
        format: Some(Format::DateTime),
        ..Schema::ANY
    };
    assert!(ok(&dt, json!("1998-12-31T23:59:60Z").as_value()));
    assert!(ok(&dt, json!("1998-12-31T15:59:60.123-08:00").as_value()));
    assert!(ok(&dt, json!("1999-01-01T00:59:60+01:00").as_value()));
    assert!(!ok(&dt, json!("1998-12-31T23:58:60Z").as_value()));
    assert!(!ok(&dt, json!("1998-12-31T23:59:60+01:00").as_value()));
    assert!(!ok(&dt, json!("1998-12-31T23:59:61Z").as_value()));
    assert_eq!(
        triples(&dt, json!("2026-07-12 10:00:00Z"))[0].2,
        "\"2026-07-12 10:00:00Z\" is not a valid RFC 3339 date-time"
    );
    // Long strings are cut in messages.
    let long = "x".repeat(100);
    let msg = &triples(&dt, json!(long))[0].2;
    let kept = "x".repeat(templiqx_contracts::words::PREVIEW_CHARS);
    assert_eq!(
        msg,
        &format!("\"{kept}\"… is not a valid RFC 3339 date-time")
    );
}

#[test]
fn every_violation_is_collected() {
    let s = Schema {
        types: TypeSet::of(JsonType::String),
        enum_values: Some(Seq::Owned(vec![IrValue::String(Str::Borrowed("aaaa"))])),
        max_length: Some(2),
        format: Some(Format::Date),
        ..Schema::ANY
    };
    let keywords: Vec<&str> = errors(&s, json!("bbb").as_value())
        .iter()
        .map(|v| v.keyword)
        .collect();
    assert_eq!(keywords, ["enum", "maxLength", "format"]);
    let keywords: Vec<&str> = errors(&s, json!(3).as_value())
        .iter()
        .map(|v| v.keyword)
        .collect();
    assert_eq!(keywords, ["type", "enum"]);
}

#[test]
fn validate_at_prefixes_the_base_pointer_and_restores_it() {
    let s = object_schema();
    let value = json!({"name": 1, "a/b~c": true, "x": null});
    let mut pointer = String::from("/inputs/customer");
    let mut out = Vec::new();
    validate_at(&s, value.as_value(), &mut pointer, &mut out);
    assert_eq!(pointer, "/inputs/customer");
    let pointers: Vec<&str> = out.iter().map(|v| v.pointer.as_str()).collect();
    assert_eq!(pointers, ["/inputs/customer/name", "/inputs/customer/x"]);
    assert_eq!(
        out[0].to_string(),
        "/inputs/customer/name: expected string, found number 1 (type)"
    );
    // Nothing recorded for a valid value, and `out` is appended to.
    validate_at(
        &s,
        json!({"name": "n", "a/b~c": true}).as_value(),
        &mut pointer,
        &mut out,
    );
    assert_eq!(out.len(), 2);
}

#[test]
fn typed_values_validate_like_json() {
    // The std types generated code uses, viewed through `AsValue`.
    let s = Schema {
        types: TypeSet::of(JsonType::Array),
        items: Some(Ptr::from(Schema {
            types: TypeSet::of(JsonType::Integer),
            maximum: Some(Number::I64(10)),
            ..Schema::ANY
        })),
        ..Schema::ANY
    };
    assert!(ok(&s, vec![1u64, 10].as_value()));
    let e = errors(&s, vec![1u64, u64::MAX].as_value());
    assert_eq!(e[0].pointer, "/1");
    assert_eq!(
        e[0].message,
        "expected a number <= 10, found 18446744073709551615"
    );
    let m: std::collections::BTreeMap<String, f64> = [("k".to_owned(), 0.5)].into();
    let obj = Schema {
        properties: Seq::Owned(vec![(Str::Borrowed("k"), of(JsonType::Integer))]),
        ..Schema::ANY
    };
    assert_eq!(errors(&obj, m.as_value())[0].pointer, "/k");
}
