//! One test per `TQX_SCHEMA_*` rule of the bounded subset (`docs/format.md`,
//! "The bounded JSON Schema subset"), asserting the code and the JSON
//! pointer of each diagnostic.

use serde_json::{Value, json};
use templiqx_build::schema::{KEYWORDS, MAX_SCHEMA_DEPTH, compile_schema};
use templiqx_contracts::{Code, Format, IrValue, JsonType, Number, TypeSet};

const AT: &str = "/inputs/name/schema";

/// `(code, pointer)` of every diagnostic; also checks the shape every
/// diagnostic must have (message, help, no file/span yet).
fn problems(doc: Value) -> Vec<(Code, String)> {
    match compile_schema(&doc, AT) {
        Ok(_) => Vec::new(),
        Err(diags) => {
            assert!(!diags.is_empty());
            diags
                .into_iter()
                .map(|d| {
                    assert!(!d.message.is_empty());
                    assert!(d.help.as_deref().is_some_and(|h| !h.is_empty()), "{d:?}");
                    assert!(d.file.is_none() && d.span.is_none());
                    assert!(d.is_error());
                    (d.code, d.json_pointer.expect("json_pointer"))
                })
                .collect()
        }
    }
}

fn one(doc: Value) -> (Code, String) {
    let p = problems(doc.clone());
    assert_eq!(p.len(), 1, "{doc}: {p:?}");
    p.into_iter().next().unwrap()
}

fn at(suffix: &str) -> String {
    format!("{AT}{suffix}")
}

fn help(doc: Value) -> String {
    compile_schema(&doc, AT).unwrap_err()[0]
        .help
        .clone()
        .unwrap()
}

fn accepted(doc: Value) {
    if let Err(d) = compile_schema(&doc, AT) {
        panic!("{doc} rejected: {d:#?}");
    }
}

// --- accepted schemas -------------------------------------------------------

#[test]
fn every_keyword_compiles_to_its_field() {
    let s = compile_schema(
        &json!({
            "title": "Customer",
            "description": "Who to greet.",
            "type": ["object", "null"],
            "properties": {
                "name": {"type": "string", "minLength": 1, "maxLength": 80.0},
                "born": {"type": "string", "format": "date"},
                "seen": {"type": "string", "format": "date-time"},
                "age": {"type": "integer", "minimum": 0, "exclusiveMaximum": 150},
                "score": {"type": "number", "exclusiveMinimum": -0.5, "maximum": 18446744073709551615u64},
                "tier": {"type": "string", "enum": ["gold", "silver"]},
                "kind": {"const": "person"},
                "tags": {"type": "array", "items": {"type": "string"}, "minItems": 0, "maxItems": 5}
            },
            "required": ["name"],
            "additionalProperties": false
        }),
        AT,
    )
    .unwrap();
    assert_eq!(s.title.as_deref(), Some("Customer"));
    assert_eq!(s.description.as_deref(), Some("Who to greet."));
    assert_eq!(s.types, TypeSet::of(JsonType::Object).with(JsonType::Null));
    assert!(!s.additional_properties);
    assert!(s.is_required("name"));
    let name = s.property("name").unwrap();
    assert_eq!((name.min_length, name.max_length), (Some(1), Some(80)));
    assert_eq!(s.property("born").unwrap().format, Some(Format::Date));
    assert_eq!(s.property("seen").unwrap().format, Some(Format::DateTime));
    let age = s.property("age").unwrap();
    assert_eq!(age.minimum, Some(Number::I64(0)));
    assert_eq!(age.exclusive_maximum, Some(Number::I64(150)));
    let score = s.property("score").unwrap();
    assert_eq!(score.exclusive_minimum, Some(Number::F64(-0.5)));
    assert_eq!(score.maximum, Some(Number::U64(u64::MAX)));
    assert_eq!(
        s.property("tier").unwrap().enum_values.as_deref(),
        Some(
            &[
                IrValue::from_json(&json!("gold")),
                IrValue::from_json(&json!("silver"))
            ][..]
        )
    );
    assert_eq!(
        s.property("kind").unwrap().const_value,
        Some(IrValue::from_json(&json!("person")))
    );
    let tags = s.property("tags").unwrap();
    assert_eq!(
        tags.items.as_deref().unwrap().types,
        TypeSet::of(JsonType::String)
    );
    assert_eq!((tags.min_items, tags.max_items), (Some(0), Some(5)));
}

#[test]
fn edge_cases_that_are_satisfiable() {
    accepted(json!({}));
    accepted(json!({"type": ["string"]}));
    accepted(json!({"type": ["null", "integer"], "minimum": 1}));
    accepted(json!({"type": "null"}));
    accepted(json!({"minimum": 5, "maximum": 5}));
    accepted(json!({"type": "integer", "minimum": 1.5, "maximum": 2}));
    accepted(json!({"type": "integer", "exclusiveMinimum": 1, "exclusiveMaximum": 3}));
    accepted(json!({"type": "number", "exclusiveMinimum": 1, "exclusiveMaximum": 2}));
    // Bounds beyond i64/u64 and 2^53 still enclose integers.
    accepted(
        json!({"type": "integer", "exclusiveMinimum": 1e300, "exclusiveMaximum": 1.0000000000000002e300}),
    );
    accepted(
        json!({"type": "integer", "minimum": 9007199254740993u64, "maximum": 9007199254740993u64}),
    );
    // The looser of two bounds on one side does not matter.
    accepted(json!({"minimum": 0, "exclusiveMinimum": 4, "maximum": 5}));
    accepted(json!({"minLength": 3, "maxLength": 3, "minItems": 0, "maxItems": 0}));
    accepted(json!({"required": ["a"]}));
    accepted(json!({"required": ["a"], "properties": {"a": {}}, "additionalProperties": false}));
    accepted(json!({"type": ["string", "null"], "enum": ["a", null], "const": null}));
    accepted(json!({"type": "integer", "enum": [1, 2.0]}));
    accepted(json!({"enum": [1, "1", [1], {"a": 1}]}));
    accepted(json!({"format": "date", "const": "2024-02-29"}));
    // A keyword with no declared type applies to whatever the value is.
    accepted(json!({"minimum": 1, "minLength": 1, "items": {}, "required": ["x"]}));
}

// --- TQX_SCHEMA_UNSUPPORTED -------------------------------------------------

#[test]
fn keywords_outside_the_subset_are_unsupported() {
    for keyword in [
        "$ref",
        "$schema",
        "$defs",
        "$comment",
        "oneOf",
        "anyOf",
        "allOf",
        "not",
        "if",
        "pattern",
        "patternProperties",
        "prefixItems",
        "uniqueItems",
        "multipleOf",
        "default",
        "examples",
        "minProperties",
    ] {
        assert_eq!(
            one(json!({"type": "string", keyword: 1})),
            (Code::SchemaUnsupported, at(&format!("/{keyword}"))),
            "{keyword}"
        );
    }
    assert!(help(json!({"$schema": "x"})).contains("remove `$schema`"));
    assert_eq!(help(json!({"minLenght": 1})), "did you mean `minLength`?");
    assert_eq!(help(json!({"MAXITEMS": 1})), "did you mean `maxItems`?");
    assert!(help(json!({"zzz": 1})).contains(&templiqx_contracts::words::names(KEYWORDS)));
    // RFC 6901 escaping in the pointer.
    assert_eq!(
        one(json!({"a/b~c": 1})),
        (Code::SchemaUnsupported, at("/a~1b~0c"))
    );
}

#[test]
fn boolean_schemas_are_unsupported() {
    assert_eq!(one(json!(true)), (Code::SchemaUnsupported, at("")));
    assert_eq!(one(json!(false)), (Code::SchemaUnsupported, at("")));
    assert_eq!(
        help(json!(true)),
        "write `{}` for a schema that accepts any value"
    );
    assert_eq!(
        one(json!({"properties": {"x": false}})),
        (Code::SchemaUnsupported, at("/properties/x"))
    );
    assert_eq!(
        one(json!({"items": true})),
        (Code::SchemaUnsupported, at("/items"))
    );
}

#[test]
fn unsupported_forms_of_subset_keywords() {
    assert_eq!(
        one(json!({"type": ["string", "integer"]})),
        (Code::SchemaUnsupported, at("/type"))
    );
    assert_eq!(
        one(json!({"type": ["string", "integer", "null"]})),
        (Code::SchemaUnsupported, at("/type"))
    );
    assert_eq!(
        one(json!({"additionalProperties": {"type": "string"}})),
        (Code::SchemaUnsupported, at("/additionalProperties"))
    );
    assert_eq!(
        one(json!({"items": [{"type": "string"}]})),
        (Code::SchemaUnsupported, at("/items"))
    );
    for f in ["email", "uri", "time", "Date"] {
        assert_eq!(
            one(json!({"type": "string", "format": f})),
            (Code::SchemaUnsupported, at("/format"))
        );
    }
}

#[test]
fn nesting_is_bounded() {
    let mut doc = json!({"type": "string"});
    for _ in 0..=MAX_SCHEMA_DEPTH {
        doc = json!({"items": doc});
    }
    let items = "/items".repeat(MAX_SCHEMA_DEPTH + 1);
    assert_eq!(one(doc.clone()), (Code::SchemaUnsupported, at(&items)));
    accepted(doc["items"].clone());
}

// --- TQX_SCHEMA_INVALID -----------------------------------------------------

#[test]
fn malformed_counts_are_invalid() {
    for keyword in ["minLength", "maxLength", "minItems", "maxItems"] {
        for bad in [json!(-1), json!(1.5), json!("3"), json!(null), json!(1e20)] {
            assert_eq!(
                one(json!({keyword: bad})),
                (Code::SchemaInvalid, at(&format!("/{keyword}"))),
                "{keyword}: {bad}"
            );
        }
    }
    let d = &compile_schema(&json!({"minLength": -1}), AT).unwrap_err()[0];
    assert_eq!(
        d.message,
        "`minLength` must be a non-negative integer, found -1"
    );
}

#[test]
fn malformed_numbers_texts_and_formats_are_invalid() {
    for keyword in ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"] {
        assert_eq!(
            one(json!({keyword: "5"})),
            (Code::SchemaInvalid, at(&format!("/{keyword}")))
        );
    }
    for keyword in ["title", "description"] {
        assert_eq!(
            one(json!({keyword: 5})),
            (Code::SchemaInvalid, at(&format!("/{keyword}")))
        );
    }
    assert_eq!(
        one(json!({"format": 5})),
        (Code::SchemaInvalid, at("/format"))
    );
    assert_eq!(
        one(json!({"additionalProperties": "no"})),
        (Code::SchemaInvalid, at("/additionalProperties"))
    );
    assert_eq!(
        one(json!({"enum": "a"})),
        (Code::SchemaInvalid, at("/enum"))
    );
    assert_eq!(
        one(json!({"properties": ["a"]})),
        (Code::SchemaInvalid, at("/properties"))
    );
    assert_eq!(
        one(json!({"properties": {"a": 5}})),
        (Code::SchemaInvalid, at("/properties/a"))
    );
    // No cascade into the `required`/`additionalProperties` check.
    assert_eq!(
        one(json!({"properties": 5, "required": ["a"], "additionalProperties": false})),
        (Code::SchemaInvalid, at("/properties"))
    );
    assert_eq!(one(json!("string")), (Code::SchemaInvalid, at("")));
    assert_eq!(
        one(json!({"items": null})),
        (Code::SchemaInvalid, at("/items"))
    );
}

#[test]
fn malformed_types_are_invalid() {
    assert_eq!(
        one(json!({"type": "strnig"})),
        (Code::SchemaInvalid, at("/type"))
    );
    assert_eq!(help(json!({"type": "strnig"})), "did you mean `string`?");
    assert_eq!(
        one(json!({"type": ["null", "strnig"]})),
        (Code::SchemaInvalid, at("/type/1"))
    );
    assert_eq!(one(json!({"type": []})), (Code::SchemaInvalid, at("/type")));
    assert_eq!(
        one(json!({"type": [1]})),
        (Code::SchemaInvalid, at("/type/0"))
    );
    assert_eq!(
        one(json!({"type": ["string", "string"]})),
        (Code::SchemaInvalid, at("/type/1"))
    );
    assert_eq!(one(json!({"type": 5})), (Code::SchemaInvalid, at("/type")));
}

#[test]
fn malformed_required_is_invalid() {
    assert_eq!(
        one(json!({"required": [1]})),
        (Code::SchemaInvalid, at("/required/0"))
    );
    assert_eq!(
        one(json!({"required": ["a", "b", "a"]})),
        (Code::SchemaInvalid, at("/required/2"))
    );
    assert_eq!(
        one(json!({"required": "a"})),
        (Code::SchemaInvalid, at("/required"))
    );
}

#[test]
fn duplicate_enum_values_are_invalid() {
    // JSON equality: 1 and 1.0 are the same value.
    assert_eq!(
        one(json!({"enum": [1, "x", 1.0]})),
        (Code::SchemaInvalid, at("/enum/2"))
    );
}

// --- TQX_SCHEMA_BOUNDS ------------------------------------------------------

#[test]
fn minimum_above_maximum() {
    assert_eq!(
        one(json!({"minLength": 5, "maxLength": 3})),
        (Code::SchemaBounds, at("/minLength"))
    );
    assert_eq!(
        one(json!({"minItems": 2, "maxItems": 1.0})),
        (Code::SchemaBounds, at("/minItems"))
    );
    assert_eq!(
        one(json!({"minimum": 5.5, "maximum": 5})),
        (Code::SchemaBounds, at("/minimum"))
    );
    // Exclusive combinations: an empty interval at one point.
    assert_eq!(
        one(json!({"exclusiveMinimum": 5, "maximum": 5})),
        (Code::SchemaBounds, at("/exclusiveMinimum"))
    );
    assert_eq!(
        one(json!({"minimum": 5, "exclusiveMaximum": 5.0})),
        (Code::SchemaBounds, at("/minimum"))
    );
    assert_eq!(
        one(json!({"exclusiveMinimum": 5, "exclusiveMaximum": 5})),
        (Code::SchemaBounds, at("/exclusiveMinimum"))
    );
    // The tighter of two lower bounds is the one reported.
    assert_eq!(
        one(json!({"minimum": 1, "exclusiveMinimum": 9, "maximum": 8})),
        (Code::SchemaBounds, at("/exclusiveMinimum"))
    );
    // Exact across representations: 2^53 + 1 > 2^53 (as doubles they tie).
    assert_eq!(
        one(json!({"minimum": 9007199254740993u64, "maximum": 9007199254740992.0})),
        (Code::SchemaBounds, at("/minimum"))
    );
    let d = &compile_schema(&json!({"exclusiveMinimum": 5, "maximum": 5}), AT).unwrap_err()[0];
    assert_eq!(
        d.message,
        "no number satisfies both `exclusiveMinimum` 5 and `maximum` 5"
    );
}

#[test]
fn no_integer_inside_integer_bounds() {
    assert_eq!(
        one(json!({"type": "integer", "exclusiveMinimum": 1, "exclusiveMaximum": 2})),
        (Code::SchemaBounds, at("/exclusiveMinimum"))
    );
    assert_eq!(
        one(json!({"type": "integer", "minimum": 1.2, "maximum": 1.8})),
        (Code::SchemaBounds, at("/minimum"))
    );
    assert_eq!(
        one(json!({"type": ["integer", "null"], "minimum": 0.5, "exclusiveMaximum": 1})),
        (Code::SchemaBounds, at("/minimum"))
    );
    assert_eq!(
        one(json!({"type": "integer", "exclusiveMinimum": -2.0, "exclusiveMaximum": -1})),
        (Code::SchemaBounds, at("/exclusiveMinimum"))
    );
    // Exact beyond 2^53: nothing strictly between 2^53 and 2^53 + 1.
    assert_eq!(
        one(
            json!({"type": "integer", "exclusiveMinimum": 9007199254740992.0, "exclusiveMaximum": 9007199254740993u64})
        ),
        (Code::SchemaBounds, at("/exclusiveMinimum"))
    );
    assert_eq!(
        one(json!({"type": "integer", "exclusiveMinimum": 1e300, "exclusiveMaximum": 1e300})),
        (Code::SchemaBounds, at("/exclusiveMinimum"))
    );
}

#[test]
fn empty_and_contradicted_enums() {
    assert_eq!(one(json!({"enum": []})), (Code::SchemaBounds, at("/enum")));
    assert_eq!(
        one(json!({"type": "string", "enum": ["a", 1]})),
        (Code::SchemaBounds, at("/enum/1"))
    );
    assert_eq!(
        one(json!({"type": "integer", "enum": [1, 1.5]})),
        (Code::SchemaBounds, at("/enum/1"))
    );
    assert_eq!(
        one(json!({"type": "string", "maxLength": 3, "enum": ["abc", "abcd"]})),
        (Code::SchemaBounds, at("/enum/1"))
    );
    assert_eq!(
        one(json!({"format": "date", "enum": ["2026-02-30"]})),
        (Code::SchemaBounds, at("/enum/0"))
    );
    let d = &compile_schema(&json!({"type": "string", "enum": ["a", 1]}), AT).unwrap_err()[0];
    assert_eq!(
        d.message,
        "enum value 1 can never be valid: expected string, found number 1"
    );
}

#[test]
fn contradicted_consts() {
    assert_eq!(
        one(json!({"enum": ["a", "b"], "const": "c"})),
        (Code::SchemaBounds, at("/const"))
    );
    assert_eq!(
        one(json!({"type": "boolean", "const": 0})),
        (Code::SchemaBounds, at("/const"))
    );
    assert_eq!(
        one(json!({"minimum": 3, "const": 2})),
        (Code::SchemaBounds, at("/const"))
    );
    assert_eq!(
        one(json!({"type": "object", "properties": {"a": {"type": "string"}}, "const": {"a": 1}})),
        (Code::SchemaBounds, at("/const"))
    );
}

#[test]
fn required_but_forbidden_property() {
    assert_eq!(
        one(json!({
            "properties": {"a": {}},
            "required": ["a", "b"],
            "additionalProperties": false
        })),
        (Code::SchemaBounds, at("/required/1"))
    );
}

#[test]
fn keywords_that_cannot_apply_to_the_type() {
    for (doc, keyword) in [
        (json!({"type": "string", "minimum": 1}), "minimum"),
        (json!({"type": "integer", "maxLength": 1}), "maxLength"),
        (json!({"type": "number", "format": "date"}), "format"),
        (json!({"type": "object", "items": {}}), "items"),
        (json!({"type": "array", "required": ["a"]}), "required"),
        (
            json!({"type": "boolean", "additionalProperties": false}),
            "additionalProperties",
        ),
        (
            json!({"type": ["string", "null"], "maxItems": 2}),
            "maxItems",
        ),
        (json!({"type": "null", "minLength": 0}), "minLength"),
    ] {
        assert_eq!(
            one(doc.clone()),
            (Code::SchemaBounds, at(&format!("/{keyword}"))),
            "{doc}"
        );
    }
}

// --- collecting everything --------------------------------------------------

#[test]
fn all_problems_are_collected_with_their_pointers() {
    let mut got = problems(json!({
        "type": "object",
        "$id": "x",
        "properties": {
            "name": {"type": "string", "minLength": -1, "pattern": "x"},
            "tags": {"type": "array", "items": {"type": "strnig"}, "minItems": 3, "maxItems": 1},
            "when": {"type": "string", "format": "email"}
        },
        "required": ["name", "name"],
        "enum": []
    }));
    got.sort();
    let mut want = vec![
        (Code::SchemaUnsupported, at("/$id")),
        (Code::SchemaInvalid, at("/properties/name/minLength")),
        (Code::SchemaUnsupported, at("/properties/name/pattern")),
        (Code::SchemaInvalid, at("/properties/tags/items/type")),
        (Code::SchemaBounds, at("/properties/tags/minItems")),
        (Code::SchemaUnsupported, at("/properties/when/format")),
        (Code::SchemaInvalid, at("/required/1")),
        (Code::SchemaBounds, at("/enum")),
    ];
    want.sort();
    assert_eq!(got, want);
}

#[test]
fn the_root_pointer_may_be_empty() {
    let d = compile_schema(&json!({"properties": {"": {"x": 1}}}), "").unwrap_err();
    assert_eq!(d[0].json_pointer.as_deref(), Some("/properties//x"));
}
