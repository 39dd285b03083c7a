//! A differential property test of `templiqx_adapter_http::strict`
//! (`docs/adapters.md`, "Schema mapping").
//!
//! Schemas of the contract's bounded subset (`docs/format.md`, "The bounded
//! JSON Schema subset") are generated, compiled by the project's compiler
//! (`templiqx_build::schema::compile_schema`) and serialised back as the
//! adapters send them; then:
//!
//! - whenever [`lower`] says `Strict`, the lowered schema passes the strict
//!   rules of OpenAI's Structured Outputs guide ("Supported schemas"),
//!   checked by [`strict_violations`] below, written from the guide and not
//!   from the module; and the original schema breaks none of those rules
//!   but the ones lowering exists for (optional properties);
//! - whenever it says `NotStrict`, its pointer names a node of the original
//!   schema, and the original breaks some rule other than those;
//! - lowering keeps every keyword of the contract ([`keeps_keywords`]);
//! - answers generated from the LOWERED schema (what a strict model may
//!   write) validate against it with the project's validator, and once
//!   [`NullPlan::restore`]d validate against the ORIGINAL schema; restoring
//!   removes only nulls the contract does not admit;
//! - the other way round, answers generated from the ORIGINAL schema, with
//!   every absent property written as `null` (what a strict model writes
//!   for "absent"), validate against the lowered schema and restore to
//!   answers of the original.

use proptest::prelude::*;
use proptest::sample::subsequence;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, TestRunner};
use serde_json::{Map, Value, json};
use templiqx::contracts::Schema;
use templiqx::contracts::json::Json;
use templiqx::contracts::validate::validate;
use templiqx::contracts::value::AsValue;
use templiqx_adapter_http::strict::{Lowering, NullPlan, lower};
use templiqx_build::schema::compile_schema;

// ---------------------------------------------------------------------------
// The strict rules, read from OpenAI's Structured Outputs guide,
// "Supported schemas", independently of the module under test.
// ---------------------------------------------------------------------------

/// "Supported properties": the keywords a strict schema may use.
const GUIDE_KEYWORDS: &[&str] = &[
    "anyOf",
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "title",
    "description",
    "pattern",
    "format",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "minItems",
    "maxItems",
];

/// The `format` values the guide lists for strings.
const GUIDE_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// Every rule of the guide that `schema` breaks, as `pointer: rule`. With
/// `optional_allowed`, objects need not list every property in `required`
/// (the one rule lowering exists to satisfy).
fn strict_violations(schema: &Value, optional_allowed: bool) -> Vec<String> {
    let mut c = Checker {
        optional_allowed,
        out: Vec::new(),
        properties: 0,
        enum_values: 0,
        strings: 0,
    };
    c.check(schema, "", 1);
    if c.properties > 5000 {
        c.out.push("more than 5000 properties".into());
    }
    if c.enum_values > 1000 {
        c.out.push("more than 1000 enum values".into());
    }
    if c.strings > 120_000 {
        c.out.push("more than 120,000 characters".into());
    }
    c.out
}

struct Checker {
    optional_allowed: bool,
    out: Vec<String>,
    properties: usize,
    enum_values: usize,
    strings: usize,
}

impl Checker {
    fn check(&mut self, s: &Value, at: &str, level: usize) {
        let Some(m) = s.as_object() else {
            self.out.push(format!("{at}: not a schema object"));
            return;
        };
        // "A schema may have up to 10 levels of nesting"; a level is a
        // schema node on the path from the root (root = 1).
        if level > 10 {
            self.out.push(format!("{at}: level {level}"));
        }
        for k in m.keys() {
            if !GUIDE_KEYWORDS.contains(&k.as_str()) {
                self.out.push(format!("{at}/{k}: unsupported keyword"));
            }
        }
        let types: Vec<&str> = match m.get("type") {
            Some(Value::String(t)) => vec![t],
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
            Some(other) => {
                self.out.push(format!("{at}/type: {other}"));
                Vec::new()
            }
            None => Vec::new(),
        };
        if at.is_empty() {
            if types != ["object"] {
                self.out.push("root: not type object".into());
            }
            if m.contains_key("anyOf") {
                self.out.push("root: anyOf".into());
            }
        }
        if m.get("type").is_none() && !m.contains_key("anyOf") {
            self.out.push(format!("{at}: no type"));
        }
        if types.iter().filter(|t| **t != "null").count() > 1 {
            self.out.push(format!("{at}/type: several types"));
        }
        if let Some(f) = m.get("format")
            && !f.as_str().is_some_and(|f| GUIDE_FORMATS.contains(&f))
        {
            self.out.push(format!("{at}/format: {f}"));
        }
        if let Some(Value::Array(e)) = m.get("enum") {
            self.enum_values += e.len();
            let strs: Vec<&str> = e.iter().filter_map(Value::as_str).collect();
            let len: usize = strs.iter().map(|s| s.chars().count()).sum();
            self.strings += len;
            if strs.len() > 250 && len > 15_000 {
                self.out.push(format!("{at}/enum: a large enum too long"));
            }
        }
        if let Some(Value::String(c)) = m.get("const") {
            self.strings += c.chars().count();
        }
        if types.contains(&"object") {
            if m.get("additionalProperties") != Some(&json!(false)) {
                self.out
                    .push(format!("{at}: additionalProperties is not false"));
            }
            let props = m.get("properties").and_then(Value::as_object);
            let mut names: Vec<&str> = props
                .map(|p| p.keys().map(String::as_str).collect())
                .unwrap_or_default();
            names.sort_unstable();
            let mut required: Vec<&str> = m
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            required.sort_unstable();
            if !self.optional_allowed && names != required {
                self.out
                    .push(format!("{at}: required {required:?} is not {names:?}"));
            }
        }
        if types.contains(&"array") && !m.contains_key("items") {
            self.out.push(format!("{at}: an array without items"));
        }
        if let Some(Value::Object(props)) = m.get("properties") {
            for (name, sub) in props {
                self.properties += 1;
                self.strings += name.chars().count();
                let p = format!(
                    "{at}/properties/{}",
                    name.replace('~', "~0").replace('/', "~1")
                );
                self.check(sub, &p, level + 1);
            }
        }
        if let Some(items) = m.get("items") {
            self.check(items, &format!("{at}/items"), level + 1);
        }
        if let Some(Value::Array(branches)) = m.get("anyOf") {
            for (i, b) in branches.iter().enumerate() {
                self.check(b, &format!("{at}/anyOf/{i}"), level + 1);
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Schemas of the bounded subset.
// ---------------------------------------------------------------------------

fn typed(t: &str, nullable: bool) -> Value {
    if nullable {
        json!([t, "null"])
    } else {
        json!(t)
    }
}

fn string_schema() -> impl Strategy<Value = Value> {
    (
        any::<bool>(),
        0u8..14,
        subsequence(vec!["red", "green", "blue/ish"], 1..=3),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(nullable, kind, values, enum_null, described)| {
            let mut m = Map::new();
            m.insert("type".into(), typed("string", nullable));
            match kind {
                0 | 1 => {
                    m.insert("format".into(), json!("date"));
                }
                2 => {
                    m.insert("format".into(), json!("date-time"));
                }
                3..=5 => {
                    let mut e: Vec<Value> = values.iter().map(|v| json!(v)).collect();
                    if nullable && enum_null {
                        e.push(Value::Null);
                    }
                    m.insert("enum".into(), Value::Array(e));
                }
                6..=8 => {
                    m.insert("const".into(), json!(values[0]));
                }
                // Now and then a keyword strict mode refuses.
                9 => {
                    m.insert("minLength".into(), json!(1));
                }
                _ => {}
            }
            if described {
                m.insert("description".into(), json!("free text"));
            }
            Value::Object(m)
        })
}

fn integer_schema() -> impl Strategy<Value = Value> {
    (
        any::<bool>(),
        0u8..10,
        -5i64..5,
        0i64..8,
        subsequence(vec![-3i64, 0, 4, 7], 1..=3),
        any::<bool>(),
    )
        .prop_map(|(nullable, kind, lo, span, values, enum_null)| {
            let mut m = Map::new();
            m.insert("type".into(), typed("integer", nullable));
            match kind {
                0 => {
                    m.insert("minimum".into(), json!(lo));
                }
                1 => {
                    m.insert("maximum".into(), json!(lo + span));
                }
                2 => {
                    m.insert("minimum".into(), json!(lo));
                    m.insert("maximum".into(), json!(lo + span));
                }
                3 => {
                    m.insert("exclusiveMinimum".into(), json!(lo));
                    m.insert("exclusiveMaximum".into(), json!(lo + span + 2));
                }
                4 | 5 => {
                    let mut e: Vec<Value> = values.iter().map(|v| json!(v)).collect();
                    if nullable && enum_null {
                        e.push(Value::Null);
                    }
                    m.insert("enum".into(), Value::Array(e));
                }
                6 | 7 => {
                    m.insert("const".into(), json!(values[0]));
                }
                _ => {}
            }
            Value::Object(m)
        })
}

fn number_schema() -> impl Strategy<Value = Value> {
    (any::<bool>(), 0u8..6, -5i64..5, 1i64..8).prop_map(|(nullable, kind, lo, span)| {
        let mut m = Map::new();
        m.insert("type".into(), typed("number", nullable));
        match kind {
            0 => {
                m.insert("minimum".into(), json!(lo as f64 + 0.5));
            }
            1 => {
                m.insert("exclusiveMinimum".into(), json!(lo));
                m.insert("maximum".into(), json!(lo + span));
            }
            2 => {
                m.insert("exclusiveMaximum".into(), json!(lo));
            }
            _ => {}
        }
        Value::Object(m)
    })
}

fn boolean_schema() -> impl Strategy<Value = Value> {
    (any::<bool>(), 0u8..5).prop_map(|(nullable, kind)| {
        let mut m = Map::new();
        m.insert("type".into(), typed("boolean", nullable));
        if kind == 0 {
            m.insert("const".into(), json!(true));
        }
        if kind == 1 {
            m.insert("title".into(), json!("Flag"));
        }
        Value::Object(m)
    })
}

/// `{}` or a schema with a description only: any value, never strict.
fn untyped_schema() -> impl Strategy<Value = Value> {
    prop_oneof![Just(json!({})), Just(json!({"description": "anything"}))]
}

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        5 => string_schema(),
        3 => integer_schema(),
        2 => number_schema(),
        2 => boolean_schema(),
        1 => untyped_schema(),
    ]
}

const NAMES: &[&str] = &["a", "b", "due date", "a/b", "t~x", "n"];

fn object_schema(
    inner: impl Strategy<Value = Value>,
    max_props: usize,
    nullable_weight: u8,
) -> impl Strategy<Value = Value> {
    (
        prop::collection::vec((0..NAMES.len(), inner, any::<bool>()), 0..max_props),
        0u8..14,
        0u8..12,
    )
        .prop_map(move |(props, open, nullable)| {
            let mut properties = Map::new();
            let mut required = Vec::new();
            for (name, schema, is_required) in props {
                let name = NAMES[name];
                if properties.contains_key(name) {
                    continue;
                }
                properties.insert(name.to_owned(), schema);
                if is_required {
                    required.push(json!(name));
                }
            }
            let mut m = Map::new();
            m.insert("type".into(), typed("object", nullable < nullable_weight));
            match open {
                // Now and then an object open to more members.
                0 => {}
                1 => {
                    m.insert("additionalProperties".into(), json!(true));
                }
                _ => {
                    m.insert("additionalProperties".into(), json!(false));
                }
            }
            if !properties.is_empty() {
                m.insert("properties".into(), Value::Object(properties));
            }
            if !required.is_empty() {
                m.insert("required".into(), Value::Array(required));
            }
            Value::Object(m)
        })
}

fn array_schema(inner: impl Strategy<Value = Value>) -> impl Strategy<Value = Value> {
    (inner, 0u8..12, 0u64..3, 0u64..3, any::<bool>()).prop_map(
        |(items, kind, min, extra, nullable)| {
            let mut m = Map::new();
            m.insert("type".into(), typed("array", nullable));
            // Now and then an array without `items`.
            if kind != 0 {
                m.insert("items".into(), items);
            }
            if kind % 3 == 1 {
                m.insert("minItems".into(), json!(min));
            }
            if kind % 4 == 2 {
                m.insert("minItems".into(), json!(min));
                m.insert("maxItems".into(), json!(min + extra));
            }
            Value::Object(m)
        },
    )
}

/// An output schema: an object root (never nullable) over nested objects,
/// arrays and scalars.
fn output_schema() -> impl Strategy<Value = Value> {
    let tree = leaf().prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            2 => object_schema(inner.clone(), 4, 2),
            1 => array_schema(inner),
        ]
    });
    object_schema(tree, 6, 0)
}

/// The schema compiled by the project's compiler, and serialised back as
/// `templiqx_adapter_http::output_schema` sends it.
fn compiled(doc: &Value) -> (Schema, Value) {
    let schema = compile_schema(doc, "/output_schema")
        .unwrap_or_else(|d| panic!("the generator made a schema outside the subset: {d:?}\n{doc}"));
    let sent = serde_json::to_value(&schema).unwrap();
    (schema, sent)
}

// ---------------------------------------------------------------------------
// Answers a strict model may write: values of the LOWERED schema.
// ---------------------------------------------------------------------------

/// splitmix64: a small deterministic generator seeded by proptest.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn coin(&mut self) -> bool {
        self.next() & 1 == 0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a, T>(&mut self, from: &'a [T]) -> &'a T {
        &from[self.below(from.len())]
    }
}

fn bound(m: &Map<String, Value>, k: &str) -> Option<f64> {
    m.get(k).and_then(Value::as_f64)
}

/// Whether `x` is inside the numeric bounds of `m`.
fn within(m: &Map<String, Value>, x: f64) -> bool {
    bound(m, "minimum").is_none_or(|b| x >= b)
        && bound(m, "maximum").is_none_or(|b| x <= b)
        && bound(m, "exclusiveMinimum").is_none_or(|b| x > b)
        && bound(m, "exclusiveMaximum").is_none_or(|b| x < b)
}

/// A value the schema `s` accepts, drawn with `rng`: null or a value for a
/// nullable type, every required property of an object and some of the
/// others, `minItems`..`maxItems` elements, enum and const values, numbers
/// within bounds, real dates.
fn answer(s: &Value, rng: &mut Rng) -> Value {
    let m = s.as_object().expect("a schema object");
    if let Some(Value::Array(branches)) = m.get("anyOf") {
        return answer(rng.pick(branches), rng);
    }
    if let Some(c) = m.get("const") {
        return c.clone();
    }
    if let Some(Value::Array(values)) = m.get("enum") {
        return rng.pick(values).clone();
    }
    let types: Vec<&str> = match m.get("type") {
        Some(Value::String(t)) => vec![t],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => panic!("an answer for a schema without type: {s}"),
    };
    match *rng.pick(&types) {
        "null" => Value::Null,
        "boolean" => json!(rng.coin()),
        "integer" => {
            let options: Vec<i64> = (-40..=40).filter(|i| within(m, *i as f64)).collect();
            json!(*rng.pick(&options))
        }
        "number" => {
            let options: Vec<f64> = (-80..=80)
                .map(|i| i as f64 / 4.0)
                .filter(|x| within(m, *x))
                .collect();
            let x = *rng.pick(&options);
            if x.fract() == 0.0 {
                json!(x as i64)
            } else {
                json!(x)
            }
        }
        "string" => match m.get("format").and_then(Value::as_str) {
            Some("date") => json!(format!(
                "{:04}-{:02}-{:02}",
                1900 + rng.below(200),
                1 + rng.below(12),
                1 + rng.below(28)
            )),
            Some("date-time") => json!(format!(
                "20{:02}-0{}-1{}T{:02}:{:02}:00Z",
                rng.below(100),
                1 + rng.below(9),
                rng.below(9),
                rng.below(24),
                rng.below(60)
            )),
            _ => json!(*rng.pick(&["", "a", "Ab c", "é ü", "null"])),
        },
        "array" => {
            let min = m.get("minItems").and_then(Value::as_u64).unwrap_or(0) as usize;
            let max = m
                .get("maxItems")
                .and_then(Value::as_u64)
                .map_or(min + 3, |x| x as usize);
            let n = min + rng.below(max - min + 1);
            let items = &m["items"];
            Value::Array((0..n).map(|_| answer(items, rng)).collect())
        }
        "object" => {
            let mut out = Map::new();
            let required = m.get("required").and_then(Value::as_array);
            if let Some(Value::Object(props)) = m.get("properties") {
                for (name, sub) in props {
                    let needed = required.is_some_and(|r| r.contains(&json!(name)));
                    if needed || rng.coin() {
                        out.insert(name.clone(), answer(sub, rng));
                    }
                }
            }
            Value::Object(out)
        }
        other => panic!("unknown type {other}"),
    }
}

/// The lowered schema said in the bounded subset, for the project's
/// validator (which does not read `anyOf`): `anyOf: [X, {"type":
/// "null"}]` — X or null — is X with `"null"` added to its type and its
/// `const` turned into `enum: [const, null]`.
fn in_subset(s: &Value) -> Value {
    let mut m = s.as_object().expect("a schema object").clone();
    if let Some(Value::Array(branches)) = m.get("anyOf") {
        assert_eq!(m.len(), 1, "anyOf beside other keywords: {s}");
        assert_eq!(branches.len(), 2, "{s}");
        assert_eq!(branches[1], json!({"type": "null"}), "{s}");
        let Value::Object(mut x) = in_subset(&branches[0]) else {
            unreachable!()
        };
        match x.get_mut("type") {
            Some(Value::String(t)) if t != "null" => {
                let t = t.clone();
                x.insert("type".into(), json!([t, "null"]));
            }
            Some(Value::Array(ts)) if !ts.contains(&json!("null")) => ts.push(json!("null")),
            _ => {}
        }
        if let Some(c) = x.remove("const") {
            x.insert("enum".into(), json!([c, null]));
        }
        return Value::Object(x);
    }
    if let Some(Value::Object(props)) = m.get_mut("properties") {
        for sub in props.values_mut() {
            *sub = in_subset(sub);
        }
    }
    if let Some(items) = m.get_mut("items") {
        *items = in_subset(items);
    }
    Value::Object(m)
}

/// An answer of the ORIGINAL schema `s` as a strict model must write it:
/// every absent property present as `null`.
fn with_nulls_for_absent(s: &Value, v: &Value) -> Value {
    match v {
        Value::Object(members) => {
            let mut out = members.clone();
            if let Some(Value::Object(props)) = s.get("properties") {
                for (name, sub) in props {
                    match out.get_mut(name) {
                        Some(member) => *member = with_nulls_for_absent(sub, member),
                        None => {
                            out.insert(name.clone(), Value::Null);
                        }
                    }
                }
            }
            Value::Object(out)
        }
        Value::Array(elements) => {
            let items = s.get("items").unwrap_or(&Value::Null);
            Value::Array(
                elements
                    .iter()
                    .map(|e| with_nulls_for_absent(items, e))
                    .collect(),
            )
        }
        other => other.clone(),
    }
}

// ---------------------------------------------------------------------------
// What lowering and restoring must keep.
// ---------------------------------------------------------------------------

/// Every keyword of `original` is in `lowered` (through an `anyOf` wrapper),
/// unchanged but for `type` and `enum` gaining null and `required` gaining
/// names; nothing else is added.
fn keeps_keywords(original: &Value, lowered: &Value, at: &str) -> Result<(), String> {
    let o = original.as_object().unwrap();
    let mut l = lowered.as_object().unwrap();
    if l.contains_key("anyOf") && !o.contains_key("anyOf") {
        let branches = l["anyOf"].as_array().unwrap();
        if l.len() != 1 || branches.len() != 2 || branches[1] != json!({"type": "null"}) {
            return Err(format!(
                "{at}: a wrapper other than anyOf [X, null]: {lowered}"
            ));
        }
        l = branches[0].as_object().unwrap();
    }
    for k in l.keys() {
        if !o.contains_key(k) && k != "required" {
            return Err(format!("{at}: `{k}` added"));
        }
    }
    for (k, ov) in o {
        let Some(lv) = l.get(k) else {
            return Err(format!("{at}: `{k}` dropped"));
        };
        let same = match k.as_str() {
            "properties" => {
                let (op, lp) = (ov.as_object().unwrap(), lv.as_object().unwrap());
                if op.keys().ne(lp.keys()) {
                    return Err(format!("{at}/properties: other names"));
                }
                for (name, sub) in op {
                    keeps_keywords(sub, &lp[name], &format!("{at}/properties/{name}"))?;
                }
                true
            }
            "items" => {
                keeps_keywords(ov, lv, &format!("{at}/items"))?;
                true
            }
            "required" => ov
                .as_array()
                .unwrap()
                .iter()
                .all(|n| lv.as_array().unwrap().contains(n)),
            "type" => {
                *lv == *ov
                    || *lv == json!([ov, "null"])
                    || ov.as_array().is_some_and(|types| {
                        let mut with_null = types.clone();
                        with_null.push(json!("null"));
                        *lv == Value::Array(with_null)
                    })
            }
            "enum" => {
                *lv == *ov || {
                    let mut with_null = ov.as_array().unwrap().clone();
                    with_null.push(Value::Null);
                    *lv == Value::Array(with_null)
                }
            }
            _ => lv == ov,
        };
        if !same {
            return Err(format!("{at}/{k}: {ov} became {lv}"));
        }
    }
    Ok(())
}

fn compile(schema: &Value) -> Schema {
    compile_schema(schema, "").unwrap_or_else(|d| panic!("does not compile: {d:?}\n{schema}"))
}

/// Every member restoring removed from `before` (giving `after`) was `null`,
/// a property the ORIGINAL schema `schema` leaves optional, and one whose
/// schema rejects `null` (the contract's own nulls are kept).
fn removed_only_injected_nulls(
    schema: &Value,
    before: &Json,
    after: &Json,
    at: &str,
) -> Result<(), String> {
    match (before, after) {
        (Json::Object(b), Json::Object(a)) => {
            let props = schema.get("properties").and_then(Value::as_object);
            let required = schema.get("required").and_then(Value::as_array);
            for k in a.keys() {
                if !b.contains_key(k) {
                    return Err(format!("{at}/{k}: added"));
                }
            }
            for (k, bv) in b {
                let sub = props.and_then(|p| p.get(k));
                match a.get(k) {
                    None => {
                        let sub = sub.ok_or_else(|| format!("{at}/{k}: not a property"))?;
                        if !bv.is_null() {
                            return Err(format!("{at}/{k}: a non-null value removed"));
                        }
                        if required.is_some_and(|r| r.contains(&json!(k))) {
                            return Err(format!("{at}/{k}: a required property removed"));
                        }
                        if validate(&compile(sub), Json::Null.as_value()).is_ok() {
                            return Err(format!("{at}/{k}: a null the contract admits removed"));
                        }
                    }
                    Some(av) => match sub {
                        Some(sub) => {
                            removed_only_injected_nulls(sub, bv, av, &format!("{at}/{k}"))?
                        }
                        None if bv != av => return Err(format!("{at}/{k}: changed")),
                        None => {}
                    },
                }
            }
            Ok(())
        }
        (Json::Array(b), Json::Array(a)) if b.len() == a.len() => {
            let items = schema.get("items").unwrap_or(&Value::Null);
            for (i, (bv, av)) in b.iter().zip(a).enumerate() {
                removed_only_injected_nulls(items, bv, av, &format!("{at}/{i}"))?;
            }
            Ok(())
        }
        _ if before == after => Ok(()),
        _ => Err(format!("{at}: changed")),
    }
}

/// Checks one generated schema; `Ok(true)` when it lowered strict.
fn check_schema(doc: &Value, seeds: &[u64]) -> Result<bool, TestCaseError> {
    let (original, sent) = compiled(doc);
    match lower(&sent) {
        Lowering::NotStrict {
            pointer, reason, ..
        } => {
            prop_assert!(
                sent.pointer(&pointer).is_some(),
                "{pointer} ({reason}) is not in {sent}"
            );
            let broken = strict_violations(&sent, true);
            prop_assert!(
                !broken.is_empty(),
                "not strict ({pointer}: {reason}) although only optional properties keep it out: {sent}"
            );
            Ok(false)
        }
        Lowering::Strict { schema, nulls } => {
            let broken = strict_violations(&schema, false);
            prop_assert!(
                broken.is_empty(),
                "{broken:?}\nlowered: {schema}\nfrom: {sent}"
            );
            let broken = strict_violations(&sent, true);
            prop_assert!(broken.is_empty(), "{broken:?} yet strict: {sent}");
            if let Err(e) = keeps_keywords(&sent, &schema, "") {
                prop_assert!(false, "{e}\nlowered: {schema}\nfrom: {sent}");
            }
            let lowered = compile(&in_subset(&schema));
            for seed in seeds {
                let value = Json::from(answer(&schema, &mut Rng(*seed)));
                let accepted = validate(&lowered, value.as_value());
                prop_assert!(accepted.is_ok(), "{accepted:?}\n{value}\nlowered: {schema}");
                let restored = nulls.restore(value.clone());
                let valid = validate(&original, restored.as_value());
                prop_assert!(
                    valid.is_ok(),
                    "{valid:?}\nanswer: {value}\nrestored: {restored}\nlowered: {schema}\noriginal: {sent}\nplan: {:?}",
                    nulls.pointers()
                );
                if let Err(e) = removed_only_injected_nulls(&sent, &value, &restored, "") {
                    prop_assert!(
                        false,
                        "{e}\nanswer: {value}\nrestored: {restored}\noriginal: {sent}"
                    );
                }
                // The other way round: every answer of the contract, with
                // its absent properties written as null, is one a strict
                // model may give, and restores to an answer of the contract.
                let own = answer(&sent, &mut Rng(seed.rotate_left(17)));
                let filled = Json::from(with_nulls_for_absent(&sent, &own));
                let accepted = validate(&lowered, filled.as_value());
                prop_assert!(
                    accepted.is_ok(),
                    "{accepted:?}\n{filled}\nlowered: {schema}\nfrom: {sent}"
                );
                let restored = nulls.restore(filled);
                let valid = validate(&original, restored.as_value());
                prop_assert!(
                    valid.is_ok(),
                    "{valid:?}\nrestored: {restored}\noriginal: {sent}"
                );
            }
            Ok(true)
        }
    }
}

proptest! {
    #![proptest_config(Config { cases: 1024, ..Config::default() })]

    #[test]
    fn lowered_schemas_are_strict_and_restored_answers_satisfy_the_contract(
        doc in output_schema(),
        seeds in prop::collection::vec(any::<u64>(), 6),
    ) {
        check_schema(&doc, &seeds)?;
    }
}

/// The generator is worth its cases: it reaches both outcomes, injected
/// nulls and `anyOf` wrappers, and the contract's own nullable optionals.
#[test]
fn the_generator_reaches_every_kind_of_case() {
    let mut runner = TestRunner::deterministic();
    let strategy = output_schema();
    let (mut strict, mut not_strict, mut injected, mut wrapped) = (0, 0, 0, 0);
    for _ in 0..512 {
        let doc = strategy.new_tree(&mut runner).unwrap().current();
        let (_, sent) = compiled(&doc);
        match lower(&sent) {
            Lowering::Strict { schema, nulls } => {
                strict += 1;
                injected += usize::from(!nulls.is_empty());
                wrapped += usize::from(schema.to_string().contains("anyOf"));
            }
            Lowering::NotStrict { .. } => not_strict += 1,
        }
    }
    for (what, n, least) in [
        ("strict", strict, 150),
        ("not strict", not_strict, 150),
        ("with injected nulls", injected, 75),
        ("with anyOf wrappers", wrapped, 15),
    ] {
        assert!(n >= least, "only {n} of 512 schemas {what}");
    }
}

/// `NullPlan` is reached only through `lower`; an all-required schema
/// gives an empty one, and restoring with it changes nothing.
#[test]
fn an_all_required_schema_needs_no_restoring() {
    let schema = json!({
        "type": "object", "additionalProperties": false, "required": ["a"],
        "properties": {"a": {"type": ["string", "null"]}}
    });
    let Lowering::Strict { nulls, .. } = lower(&schema) else {
        panic!("not strict")
    };
    assert_eq!(nulls, NullPlan::default());
    let reply = Json::from(json!({"a": null}));
    assert_eq!(nulls.restore(reply.clone()), reply);
}
