//! Soundness of the schema comparison (`docs/diff.md`, "How schemas are
//! compared"), by property: for generated pairs of schemas of the bounded
//! subset, whenever `includes(a, b)` answers yes, every generated value
//! the project's validator accepts under `a` it accepts under `b`. This is
//! the property `templiqx diff` relies on in both directions: an inputs
//! change is compatible when `includes(old, new)`, an output change when
//! `includes(new, old)`. Whenever it answers no with a witness, the
//! witness is valid under `a` and invalid under `b`.

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::{Map, Value, json};
use std::cell::Cell;
use templiqx_build::schema::compile_schema;
use templiqx_contracts::validate::validate;
use templiqx_contracts::{AsValue, Schema};
use templiqx_diff::schema::{Answer, includes};

/// Cases: pairs of schemas, each checked against `VALUES` values per side.
/// About three seconds in a debug build.
const CASES: u32 = 5000;
const VALUES: usize = 40;

fn pool() -> Vec<Value> {
    vec![
        json!(null),
        json!(true),
        json!(false),
        json!(0),
        json!(1),
        json!(2),
        json!(-1),
        json!(0.5),
        json!(""),
        json!("a"),
        json!("ab"),
        json!("2026-01-31"),
        json!("2026-01-31T10:00:00Z"),
        json!([]),
        json!([1]),
        json!({}),
        json!({"a": 1}),
    ]
}

fn bound() -> impl Strategy<Value = Option<Value>> {
    prop_oneof![
        3 => Just(None),
        1 => prop::sample::select(vec![json!(-2), json!(-1), json!(-0.5), json!(0), json!(0.5), json!(1), json!(2), json!(3)])
            .prop_map(Some),
    ]
}

fn count() -> impl Strategy<Value = Option<Value>> {
    prop_oneof![2 => Just(None), 1 => (0u64..4).prop_map(|n| Some(json!(n)))]
}

/// A schema document of the subset, nesting at most `depth` more levels.
fn schema(depth: u32) -> BoxedStrategy<Value> {
    let types = prop::sample::select(vec![
        "", "null", "boolean", "integer", "number", "string", "array", "object", "object", "array",
    ]);
    let numbers = (bound(), bound(), bound(), bound());
    let strings = (
        count(),
        count(),
        prop_oneof![6 => Just(None), 1 => Just(Some("date")), 1 => Just(Some("date-time"))],
    );
    let listed = (
        prop_oneof![6 => Just(None), 1 => prop::sample::subsequence(pool(), 1..4).prop_map(Some)],
        prop_oneof![10 => Just(None), 1 => prop::sample::select(pool()).prop_map(Some)],
    );
    let nested = if depth == 0 {
        Just(Value::Null).boxed()
    } else {
        schema(depth - 1)
    };
    let arrays = (prop::option::of(nested.clone()), count(), count());
    let objects = (
        prop::collection::vec(prop::option::weighted(0.7, nested), 3),
        prop::sample::subsequence(vec!["a", "b", "c"], 0..3),
        prop::sample::select(vec![None, Some(false), Some(true)]),
    );
    (
        types,
        any::<bool>(),
        numbers,
        strings,
        listed,
        arrays,
        objects,
        0u8..4,
    )
        .prop_map(
            |(
                ty,
                nullable,
                (min, max, xmin, xmax),
                (minl, maxl, format),
                (en, co),
                (items, mini, maxi),
                (props, required, additional),
                flavour,
            )| {
                let mut s = Map::new();
                let untyped = ty.is_empty();
                if !untyped {
                    s.insert(
                        "type".into(),
                        if nullable && ty != "null" {
                            json!([ty, "null"])
                        } else {
                            json!(ty)
                        },
                    );
                }
                let wants = |t: &str, f: u8| ty == t || (untyped && flavour == f);
                if wants("integer", 0) || wants("number", 0) {
                    for (k, v) in [
                        ("minimum", min),
                        ("maximum", max),
                        ("exclusiveMinimum", xmin),
                        ("exclusiveMaximum", xmax),
                    ] {
                        if let Some(v) = v {
                            s.insert(k.into(), v);
                        }
                    }
                }
                if wants("string", 1) {
                    for (k, v) in [("minLength", minl), ("maxLength", maxl)] {
                        if let Some(v) = v {
                            s.insert(k.into(), v);
                        }
                    }
                    if let Some(f) = format {
                        s.insert("format".into(), json!(f));
                    }
                }
                if wants("array", 2) {
                    if let Some(items) = items.filter(|i| !i.is_null()) {
                        s.insert("items".into(), items);
                    }
                    for (k, v) in [("minItems", mini), ("maxItems", maxi)] {
                        if let Some(v) = v {
                            s.insert(k.into(), v);
                        }
                    }
                }
                if wants("object", 3) {
                    let mut properties = Map::new();
                    for (name, p) in ["a", "b", "c"].iter().zip(props) {
                        if let Some(p) = p.filter(|p| !p.is_null()) {
                            properties.insert((*name).into(), p);
                        }
                    }
                    if !properties.is_empty() {
                        s.insert("properties".into(), Value::Object(properties));
                    }
                    if !required.is_empty() {
                        s.insert("required".into(), json!(required));
                    }
                    if let Some(a) = additional {
                        s.insert("additionalProperties".into(), json!(a));
                    }
                }
                if let Some(values) = en {
                    s.insert("enum".into(), Value::Array(values));
                }
                if let Some(c) = co {
                    s.insert("const".into(), c);
                }
                Value::Object(s)
            },
        )
        .boxed()
}

/// A small deterministic generator, so that one proptest seed gives the
/// values of a case.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

/// A copy of `v` with one random edit somewhere: a keyword dropped, set
/// from the pools, `null` added to or removed from `type`, a property
/// added or dropped, `required` or `additionalProperties` changed.
fn mutate(v: &Value, rng: &mut Rng) -> Value {
    let mut v = v.clone();
    // Walk down at random, then edit there.
    let mut path = String::new();
    for _ in 0..3 {
        let Some(Value::Object(map)) = v.pointer(&path) else {
            break;
        };
        let mut children: Vec<String> = Vec::new();
        if map.get("items").is_some_and(Value::is_object) {
            children.push("/items".to_owned());
        }
        if let Some(Value::Object(props)) = map.get("properties") {
            children.extend(props.keys().map(|k| format!("/properties/{k}")));
        }
        if children.is_empty() || rng.chance(50) {
            break;
        }
        path.push_str(&children[rng.below(children.len())]);
    }
    let Some(Value::Object(map)) = v.pointer_mut(&path) else {
        return v;
    };
    let nums = [
        json!(-1),
        json!(0),
        json!(0.5),
        json!(1),
        json!(2),
        json!(3),
    ];
    match rng.below(9) {
        0 if !map.is_empty() => {
            let keys: Vec<String> = map.keys().cloned().collect();
            map.remove(&keys[rng.below(keys.len())]);
        }
        1 => {
            let k = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"][rng.below(4)];
            map.insert(k.into(), nums[rng.below(nums.len())].clone());
        }
        2 => {
            let k = ["minLength", "maxLength", "minItems", "maxItems"][rng.below(4)];
            map.insert(k.into(), json!(rng.below(4)));
        }
        3 => match map.get("type").cloned() {
            Some(Value::String(t)) if t != "null" => {
                map.insert("type".into(), json!([t, "null"]));
            }
            Some(Value::Array(ts)) => {
                map.insert("type".into(), ts[0].clone());
            }
            _ => {}
        },
        4 => {
            let props = map.entry("properties").or_insert_with(|| json!({}));
            if let Value::Object(props) = props {
                let name = ["a", "b", "c", "d"][rng.below(4)];
                if props.remove(name).is_none() {
                    let t = ["string", "integer", "boolean"][rng.below(3)];
                    props.insert(name.into(), json!({"type": t}));
                }
            }
        }
        5 => {
            let name = ["a", "b", "c"][rng.below(3)];
            let required = map.entry("required").or_insert_with(|| json!([]));
            if let Value::Array(names) = required {
                if let Some(i) = names.iter().position(|n| n == name) {
                    names.remove(i);
                } else {
                    names.push(json!(name));
                }
            }
        }
        6 => {
            let open = map
                .get("additionalProperties")
                .and_then(Value::as_bool)
                .unwrap_or(true);
            map.insert("additionalProperties".into(), json!(!open));
        }
        7 => {
            let pool = pool();
            let n = 1 + rng.below(3);
            let values: Vec<Value> = (0..n)
                .map(|_| pool[rng.below(pool.len())].clone())
                .collect();
            map.insert("enum".into(), Value::Array(values));
        }
        _ => {
            let f = ["date", "date-time"][rng.below(2)];
            map.insert("format".into(), json!(f));
        }
    }
    v
}

/// A value meant to be valid under the schema document `doc` (often, not
/// always: callers validate).
fn value_for(doc: &Value, rng: &mut Rng, depth: u32) -> Value {
    let pool = pool();
    if depth > 4 || rng.chance(10) {
        return pool[rng.below(pool.len())].clone();
    }
    let Value::Object(s) = doc else {
        return pool[rng.below(pool.len())].clone();
    };
    if let Some(Value::Array(values)) = s.get("enum")
        && rng.chance(80)
    {
        return values[rng.below(values.len())].clone();
    }
    if let Some(c) = s.get("const")
        && rng.chance(80)
    {
        return c.clone();
    }
    let types: Vec<String> = match s.get("type") {
        Some(Value::String(t)) => vec![t.clone()],
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(|t| t.as_str().map(str::to_owned))
            .collect(),
        _ => [
            "null", "boolean", "integer", "number", "string", "array", "object",
        ]
        .map(str::to_owned)
        .to_vec(),
    };
    let ty = types[rng.below(types.len())].as_str();
    let num = |rng: &mut Rng| -> f64 {
        let bounds: Vec<f64> = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]
            .iter()
            .filter_map(|k| s.get(*k).and_then(Value::as_f64))
            .collect();
        match (rng.below(3), bounds.is_empty()) {
            (0, false) => {
                bounds[rng.below(bounds.len())] + [-1.0, -0.5, 0.0, 0.5, 1.0][rng.below(5)]
            }
            _ => [
                -3.0, -2.0, -1.0, -0.5, 0.0, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0,
            ][rng.below(12)],
        }
    };
    match ty {
        "null" => Value::Null,
        "boolean" => json!(rng.chance(50)),
        "integer" => json!(num(rng).round() as i64),
        "number" => {
            let n = num(rng);
            if n.fract() == 0.0 && rng.chance(50) {
                json!(n as i64)
            } else {
                json!(n)
            }
        }
        "string" => match rng.below(6) {
            0 => json!("2026-02-28"),
            1 => json!("2026-02-30"),
            2 => json!("2026-02-28T23:59:59.5+01:00"),
            _ => {
                let len = rng.below(6);
                json!("ab".repeat(3).chars().take(len).collect::<String>())
            }
        },
        "array" => {
            let items = s.get("items").cloned().unwrap_or(json!({}));
            let n = rng.below(4);
            Value::Array((0..n).map(|_| value_for(&items, rng, depth + 1)).collect())
        }
        _ => {
            let mut o = Map::new();
            let props = s
                .get("properties")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            let required: Vec<&str> = s
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            for name in ["a", "b", "c", "d"] {
                let keep = if required.contains(&name) {
                    rng.chance(90)
                } else {
                    rng.chance(45)
                };
                if keep {
                    let sub = props.get(name).cloned().unwrap_or(json!({}));
                    o.insert(name.into(), value_for(&sub, rng, depth + 1));
                }
            }
            Value::Object(o)
        }
    }
}

fn valid(s: &Schema, v: &Value) -> bool {
    validate(s, v.as_value()).is_ok()
}

#[derive(Default)]
struct Tally {
    yes: Cell<usize>,
    no: Cell<usize>,
    unknown: Cell<usize>,
    checked: Cell<usize>,
}

impl Tally {
    fn count(&self, answer: &Answer) {
        let cell = match answer {
            Answer::Yes => &self.yes,
            Answer::No { .. } => &self.no,
            Answer::Unknown { .. } => &self.unknown,
        };
        cell.set(cell.get() + 1);
    }
}

/// Checks `includes(a, b)` against values generated for both.
fn check(
    a: &Schema,
    b: &Schema,
    docs: (&Value, &Value),
    rng: &mut Rng,
    tally: &Tally,
) -> Result<(), TestCaseError> {
    let answer = includes(a, b);
    tally.count(&answer);
    match &answer {
        Answer::Yes => {
            for i in 0..VALUES {
                let doc = if i % 2 == 0 { docs.0 } else { docs.1 };
                let v = value_for(doc, rng, 0);
                if valid(a, &v) {
                    tally.checked.set(tally.checked.get() + 1);
                    prop_assert!(
                        valid(b, &v),
                        "includes({}, {}) said yes, but {v} is valid under the first only",
                        docs.0,
                        docs.1
                    );
                }
            }
        }
        Answer::No {
            witness: Some(w),
            reason,
        } => {
            prop_assert!(
                valid(a, w),
                "{reason}: witness {w} invalid under {}",
                docs.0
            );
            prop_assert!(!valid(b, w), "{reason}: witness {w} valid under {}", docs.1);
        }
        Answer::No { witness: None, .. } | Answer::Unknown { .. } => {}
    }
    Ok(())
}

#[test]
fn a_yes_is_never_contradicted_by_a_value_in_either_direction() {
    let pairs = (schema(2), prop::option::of(schema(2)), any::<u64>());
    let tally = Tally::default();
    let compiled = Cell::new(0usize);
    let mut runner = TestRunner::new(Config {
        cases: CASES,
        failure_persistence: None,
        ..Config::default()
    });
    let result = runner.run(&pairs, |(old, other, seed)| {
        let mut rng = Rng(seed | 1);
        // Half the pairs are one schema and an edit of it, which puts them
        // near each other; the rest are independent.
        let new = other.unwrap_or_else(|| mutate(&old, &mut rng));
        let (Ok(a), Ok(b)) = (compile_schema(&old, ""), compile_schema(&new, "")) else {
            return Ok(());
        };
        compiled.set(compiled.get() + 1);
        // Inputs: old ⊆ new; output: new ⊆ old. Both are `includes`.
        check(&a, &b, (&old, &new), &mut rng, &tally)?;
        check(&b, &a, (&new, &old), &mut rng, &tally)?;
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    eprintln!(
        "{CASES} cases, {} compiled pairs: {} yes ({} values checked), {} no, {} unknown",
        compiled.get(),
        tally.yes.get(),
        tally.checked.get(),
        tally.no.get(),
        tally.unknown.get()
    );
    // The property is only worth something if it ran on many proven pairs.
    assert!(
        tally.yes.get() > 300,
        "only {} yes answers",
        tally.yes.get()
    );
    assert!(
        tally.checked.get() > 3000,
        "only {} values checked",
        tally.checked.get()
    );
}
