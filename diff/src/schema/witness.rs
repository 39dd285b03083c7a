//! Witnesses: values one schema accepts and the other refuses, found among
//! candidates built at and around both schemas' bounds, each checked with
//! the validator.

use super::judge::Judge;
use super::node::ANY;
use super::values::{KINDS, Kind, LIST_CAP, admits, listed};
use serde_json::Value;
use templiqx_contracts::validate::{SchemaViolation, validate};
use templiqx_contracts::{AsValue, Number, Schema};

/// A value `a` accepts and `b` refuses whose violations satisfy `pred`
/// (falling back to any refused value), among the candidates
/// [`samples`] builds from both schemas' bounds.
pub(super) fn witness(
    a: &Schema,
    b: &Schema,
    pred: impl Fn(&[SchemaViolation]) -> bool,
) -> Option<Value> {
    let (ja, jb) = (Judge::new(a), Judge::new(b));
    let mut fallback = None;
    for v in samples(a, Some(b), 0) {
        if !ja.accepts(&v) || jb.accepts(&v) {
            continue;
        }
        if pred(&jb.violations(&v)) {
            return Some(v);
        }
        fallback.get_or_insert(v);
    }
    fallback
}

/// A value `a` accepts that `b`'s list (`enum`/`const`) leaves out, found
/// by varying `a`'s candidates: more distinct values than `b` lists, when
/// `a` has that many.
pub(super) fn distinct_witness(a: &Schema, b: &Schema) -> Option<Value> {
    let (ja, jb) = (Judge::new(a), Judge::new(b));
    samples(a, Some(b), 0)
        .into_iter()
        .filter(|v| ja.accepts(v))
        .flat_map(|v| variants(&v))
        .find(|v| ja.accepts(v) && !jb.accepts(v))
}

/// Values like `v` but distinct from it and from each other: a string with
/// its first character replaced, an integer and its successors.
fn variants(v: &Value) -> Vec<Value> {
    match v {
        Value::String(s) if !s.is_empty() => {
            let rest: String = s.chars().skip(1).collect();
            ('a'..='z')
                .chain('A'..='Z')
                .chain('0'..='9')
                .map(|c| Value::String(format!("{c}{rest}")))
                .collect()
        }
        Value::Number(n) => match n.as_i64() {
            Some(i) => (0..=LIST_CAP as i64)
                .filter_map(|k| i.checked_add(k))
                .flat_map(|i| [Value::from(i), Value::from(-i)])
                .collect(),
            None => n
                .as_f64()
                .map(|f| {
                    (1..=LIST_CAP)
                        .filter_map(|k| serde_json::Number::from_f64(f + k as f64 / 1024.0))
                        .map(Value::Number)
                        .collect()
                })
                .unwrap_or_default(),
        },
        _ => Vec::new(),
    }
}

/// How many candidates one schema node contributes.
const SAMPLE_CAP: usize = 96;

/// Candidate values for `s`: values of each kind it admits, at and around
/// its own bounds and those of `hint` (the schema a witness must fail), so
/// that when `s` accepts something `hint` refuses, one of them shows it.
/// Not all are valid under `s`; callers validate.
pub(super) fn samples(s: &Schema, hint: Option<&Schema>, depth: usize) -> Vec<Value> {
    if let Some(values) = listed(s) {
        return values;
    }
    let hint = hint.unwrap_or(&ANY);
    let mut out = Vec::new();
    for kind in KINDS {
        if !admits(s.types, kind) {
            continue;
        }
        match kind {
            Kind::Null => out.push(Value::Null),
            Kind::Boolean => out.extend([Value::Bool(true), Value::Bool(false)]),
            Kind::Integer => out.extend(number_samples(s, hint, true)),
            Kind::Fraction => out.extend(number_samples(s, hint, false)),
            Kind::String => out.extend(string_samples(s, hint)),
            Kind::Array => out.extend(array_samples(s, hint, depth)),
            Kind::Object => out.extend(object_samples(s, hint, depth)),
        }
    }
    out.truncate(SAMPLE_CAP * 2);
    out
}

fn number_samples(s: &Schema, hint: &Schema, integers: bool) -> Vec<Value> {
    let mut points: Vec<f64> = vec![0.0, 1.0, -1.0, 0.5, -0.5];
    let mut exact: Vec<i128> = Vec::new();
    for schema in [s, hint] {
        for n in [
            schema.minimum,
            schema.maximum,
            schema.exclusive_minimum,
            schema.exclusive_maximum,
        ]
        .into_iter()
        .flatten()
        {
            match n {
                Number::I64(i) => {
                    exact.extend([i128::from(i) - 1, i128::from(i), i128::from(i) + 1])
                }
                Number::U64(u) => {
                    exact.extend([i128::from(u) - 1, i128::from(u), i128::from(u) + 1])
                }
                _ => {}
            }
            let f = n.as_f64();
            if f.is_finite() {
                points.extend([
                    f,
                    f - 1.0,
                    f + 1.0,
                    f - 0.5,
                    f + 0.5,
                    f.floor(),
                    f.ceil(),
                    f.next_up(),
                    f.next_down(),
                ]);
            }
        }
    }
    let mut sorted = points.clone();
    sorted.sort_by(f64::total_cmp);
    sorted.dedup();
    for pair in sorted.windows(2) {
        points.push(pair[0] / 2.0 + pair[1] / 2.0);
    }
    let mut out: Vec<Value> = Vec::new();
    for i in exact {
        if let Ok(i) = i64::try_from(i) {
            out.push(Value::from(i));
        } else if let Ok(u) = u64::try_from(i) {
            out.push(Value::from(u));
        }
    }
    for f in points {
        if !f.is_finite() {
            continue;
        }
        let integral = f.fract() == 0.0;
        if integral != integers {
            continue;
        }
        if integral && f.abs() < 9_007_199_254_740_992.0 {
            out.push(Value::from(f as i64));
        } else if let Some(n) = serde_json::Number::from_f64(f) {
            out.push(Value::Number(n));
        }
    }
    out.dedup();
    out.truncate(SAMPLE_CAP);
    out
}

fn string_samples(s: &Schema, hint: &Schema) -> Vec<Value> {
    let mut lengths: Vec<u64> = vec![0, 1, 10, 20, 22, 25];
    for schema in [s, hint] {
        for n in [schema.min_length, schema.max_length].into_iter().flatten() {
            lengths.extend([n.saturating_sub(1), n, n.saturating_add(1)]);
        }
    }
    lengths.sort_unstable();
    lengths.dedup();
    let mut out = Vec::new();
    for len in lengths {
        // Strings longer than this are never needed to tell bounds apart
        // that fit in memory as samples.
        let Ok(n) = usize::try_from(len) else {
            continue;
        };
        if n > 4096 {
            continue;
        }
        out.push(Value::String("a".repeat(n)));
        match n {
            10 => out.push(Value::String("2026-01-31".to_owned())),
            20 => out.push(Value::String("2026-01-31T10:00:00Z".to_owned())),
            n if n >= 22 => out.push(Value::String(format!(
                "2026-01-31T10:00:00.{}Z",
                "0".repeat(n - 21)
            ))),
            _ => {}
        }
    }
    out
}

fn array_samples(s: &Schema, hint: &Schema, depth: usize) -> Vec<Value> {
    if depth > 8 {
        return vec![Value::Array(Vec::new())];
    }
    let items = s.items.as_deref().unwrap_or(&ANY);
    let item_hint = hint.items.as_deref();
    let item_values: Vec<Value> = samples(items, item_hint, depth + 1)
        .into_iter()
        .filter(|v| validate(items, v.as_value()).is_ok())
        .take(24)
        .collect();
    let mut counts: Vec<u64> = vec![0, 1];
    for schema in [s, hint] {
        for n in [schema.min_items, schema.max_items].into_iter().flatten() {
            counts.extend([n.saturating_sub(1), n, n.saturating_add(1)]);
        }
    }
    counts.sort_unstable();
    counts.dedup();
    let least = usize::try_from(s.min_items.unwrap_or(0).max(1)).unwrap_or(1);
    let mut out = Vec::new();
    // An array of `c` copies of `v` is built only when it stays small, so
    // nested arrays with large `minItems` cannot multiply into a huge value.
    let fits = |c: usize, v: &Value| c.saturating_mul(weight(v, SAMPLE_WEIGHT)) <= SAMPLE_WEIGHT;
    if let Some(first) = item_values.first() {
        for c in counts {
            let Ok(c) = usize::try_from(c) else { continue };
            if fits(c, first) {
                out.push(Value::Array(vec![first.clone(); c]));
            }
        }
        for v in item_values.iter().skip(1) {
            if fits(least, v) {
                out.push(Value::Array(vec![v.clone(); least]));
            }
        }
    } else {
        out.push(Value::Array(Vec::new()));
    }
    out
}

/// The most JSON nodes one array sample may hold.
pub(super) const SAMPLE_WEIGHT: usize = 4096;

/// How many JSON nodes `v` holds, counting at most to `cap`.
pub(super) fn weight(v: &Value, cap: usize) -> usize {
    let mut total = 0;
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        total += 1;
        if total >= cap {
            return cap;
        }
        match v {
            Value::Array(items) => stack.extend(items),
            Value::Object(members) => stack.extend(members.values()),
            _ => {}
        }
    }
    total
}

fn object_samples(s: &Schema, hint: &Schema, depth: usize) -> Vec<Value> {
    if depth > 8 {
        return vec![Value::Object(serde_json::Map::new())];
    }
    let valid_of = |schema: &Schema, hint: Option<&Schema>| -> Vec<Value> {
        samples(schema, hint, depth + 1)
            .into_iter()
            .filter(|v| validate(schema, v.as_value()).is_ok())
            .take(16)
            .collect()
    };
    let mut base = serde_json::Map::new();
    for name in s.required.iter() {
        let schema = s.property(name).unwrap_or(&ANY);
        let values = valid_of(schema, hint.property(name));
        let Some(first) = values.into_iter().next() else {
            return Vec::new();
        };
        base.insert(name.to_string(), first);
    }
    let mut out = vec![Value::Object(base.clone())];
    let with = |name: &str, v: Value| {
        let mut o = base.clone();
        o.insert(name.to_owned(), v);
        Value::Object(o)
    };
    for (name, schema) in s.properties.iter() {
        for v in valid_of(schema, hint.property(name)) {
            out.push(with(name, v));
        }
    }
    if s.additional_properties {
        for (name, schema) in hint.properties.iter() {
            if s.property(name).is_some() {
                continue;
            }
            for v in samples(&ANY, Some(schema), depth + 1).into_iter().take(24) {
                out.push(with(name, v));
            }
        }
        let mut extra = "additional".to_owned();
        while s.property(&extra).is_some() || hint.property(&extra).is_some() {
            extra.push('_');
        }
        out.push(with(&extra, Value::Null));
    }
    out.truncate(SAMPLE_CAP);
    out
}
