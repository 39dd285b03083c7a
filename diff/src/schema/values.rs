//! What a schema accepts, kind by kind: the JSON kinds (integers apart
//! from other numbers), whether a schema accepts any value of a kind, all
//! values or a listed or finite set of them.

use super::interval::{IntEnd, Interval, cmp};
use serde_json::Value;
use std::cmp::Ordering;
use templiqx_contracts::validate::validate;
use templiqx_contracts::value::IrValue;
use templiqx_contracts::{AsValue, Format, JsonType, Schema, TypeSet};

/// How deep the comparison follows nested schemas; compiled schemas nest
/// at most 64 levels (`MAX_SCHEMA_DEPTH`), so this is never reached by a
/// schema that compiled.
pub(super) const MAX_DEPTH: usize = 80;

/// How many values of an `a` without `enum` are listed to compare them with
/// a `b` that has one.
pub(super) const LIST_CAP: usize = 256;

/// The JSON kinds a value can have, with integers apart from other numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Null,
    Boolean,
    Integer,
    Fraction,
    String,
    Array,
    Object,
}

pub(super) const KINDS: [Kind; 7] = [
    Kind::Null,
    Kind::Boolean,
    Kind::Integer,
    Kind::Fraction,
    Kind::String,
    Kind::Array,
    Kind::Object,
];

impl Kind {
    pub(super) fn name(self) -> &'static str {
        match self {
            Kind::Null => "null",
            Kind::Boolean => "booleans",
            Kind::Integer => "integers",
            Kind::Fraction => "non-integer numbers",
            Kind::String => "strings",
            Kind::Array => "arrays",
            Kind::Object => "objects",
        }
    }
}

/// Whether the type set admits values of `kind`.
pub(super) fn admits(types: TypeSet, kind: Kind) -> bool {
    match kind {
        Kind::Null => types.contains(JsonType::Null),
        Kind::Boolean => types.contains(JsonType::Boolean),
        Kind::Integer => types.contains(JsonType::Integer) || types.contains(JsonType::Number),
        Kind::Fraction => types.contains(JsonType::Number),
        Kind::String => types.contains(JsonType::String),
        Kind::Array => types.contains(JsonType::Array),
        Kind::Object => types.contains(JsonType::Object),
    }
}

/// Whether `s` accepts every value (it constrains nothing: `{}`, or only
/// annotations, or open objects whose properties accept everything).
pub(super) fn accepts_all(s: &Schema) -> bool {
    s.types.is_any()
        && s.enum_values.is_none()
        && s.const_value.is_none()
        && s.min_length.is_none()
        && s.max_length.is_none()
        && s.minimum.is_none()
        && s.maximum.is_none()
        && s.exclusive_minimum.is_none()
        && s.exclusive_maximum.is_none()
        && s.min_items.is_none()
        && s.max_items.is_none()
        && s.format.is_none()
        && s.required.is_empty()
        && s.additional_properties
        && s.items.as_deref().is_none_or(accepts_all)
        && s.properties.iter().all(|(_, p)| accepts_all(p))
}

/// Whether `s` lists its values (`enum`, `const`).
pub(super) fn lists(s: &Schema) -> bool {
    s.enum_values.is_some() || s.const_value.is_some()
}

/// The values `s` lists (`enum`, `const`, both), those `s` accepts.
///
/// A listed value is in the list, so whether `s` accepts it is decided by
/// the rest of the schema: validating against `s` without its `enum` keeps
/// this linear in the length of the list.
pub(super) fn listed(s: &Schema) -> Option<Vec<Value>> {
    let values: Vec<&IrValue> = match (&s.enum_values, &s.const_value) {
        (None, None) => return None,
        (Some(e), _) => e.iter().collect(),
        (None, Some(c)) => vec![c],
    };
    let rest = Schema {
        enum_values: None,
        ..s.clone()
    };
    Some(
        values
            .into_iter()
            .filter(|v| validate(&rest, v.as_value()).is_ok())
            .map(IrValue::to_json)
            .collect(),
    )
}

/// The least and greatest length of the strings `s` accepts (`None`:
/// unbounded), counting what its `format` allows: a `date` has 10
/// characters, a `date-time` 20 or at least 22. `None` when there are none.
pub(super) fn string_lengths(s: &Schema) -> Option<(u64, Option<u64>)> {
    let lo = s.min_length.unwrap_or(0);
    let hi = s.max_length;
    let within = |n: u64| n >= lo && hi.is_none_or(|h| n <= h);
    match s.format {
        None => (hi.is_none_or(|h| lo <= h)).then_some((lo, hi)),
        Some(Format::Date) => within(10).then_some((10, Some(10))),
        Some(Format::DateTime) => {
            let short = within(20);
            let long_lo = lo.max(22);
            let long = hi.is_none_or(|h| long_lo <= h);
            match (short, long) {
                (true, true) => Some((20, hi)),
                (true, false) => Some((20, Some(20))),
                (false, true) => Some((long_lo, hi)),
                (false, false) => None,
            }
        }
    }
}

/// Whether `s` accepts some value of `kind` (its other keywords allowing).
pub(super) fn part_nonempty(s: &Schema, kind: Kind) -> bool {
    if !admits(s.types, kind) {
        return false;
    }
    match kind {
        Kind::Null | Kind::Boolean => true,
        Kind::Integer => match Interval::of(s).integers() {
            Ok((lo, hi)) => lo <= hi,
            Err(()) => true,
        },
        Kind::Fraction => Interval::of(s).has_fractions(),
        Kind::String => string_lengths(s).is_some(),
        Kind::Array => {
            let lo = s.min_items.unwrap_or(0);
            s.max_items.is_none_or(|h| lo <= h)
                && (lo == 0 || s.items.as_deref().is_none_or(|i| nonempty(i, 1)))
        }
        Kind::Object => s.required.iter().all(|r| match s.property(r) {
            Some(p) => nonempty(p, 1),
            None => s.additional_properties,
        }),
    }
}

/// Whether `s` accepts any value at all.
pub(super) fn nonempty(s: &Schema, depth: usize) -> bool {
    if depth > MAX_DEPTH {
        return true;
    }
    if let Some(values) = listed(s) {
        return !values.is_empty();
    }
    KINDS.into_iter().any(|k| match k {
        Kind::Array => {
            admits(s.types, k) && {
                let lo = s.min_items.unwrap_or(0);
                s.max_items.is_none_or(|h| lo <= h)
                    && (lo == 0 || s.items.as_deref().is_none_or(|i| nonempty(i, depth + 1)))
            }
        }
        Kind::Object => {
            admits(s.types, k)
                && s.required.iter().all(|r| match s.property(r) {
                    Some(p) => nonempty(p, depth + 1),
                    None => s.additional_properties,
                })
        }
        other => part_nonempty(s, other),
    })
}

/// Every value `s` accepts, when they are at most `cap` (and `s` has no
/// `enum`); `None` when there are more, or they cannot be listed cheaply.
pub(super) fn finite_values(s: &Schema, cap: usize) -> Option<Vec<Value>> {
    let mut out = Vec::new();
    for kind in KINDS {
        if !part_nonempty(s, kind) {
            continue;
        }
        match kind {
            Kind::Null => out.push(Value::Null),
            Kind::Boolean => out.extend([Value::Bool(false), Value::Bool(true)]),
            Kind::Integer => {
                let (IntEnd::Int(lo), IntEnd::Int(hi)) = Interval::of(s).integers().ok()? else {
                    return None;
                };
                let count = usize::try_from(hi - lo + 1).ok()?;
                if count > cap {
                    return None;
                }
                for i in lo..=hi {
                    out.push(Value::from(i64::try_from(i).ok()?));
                }
            }
            Kind::Fraction => {
                let i = Interval::of(s);
                match (i.lo, i.hi) {
                    (Some((lo, _)), Some((hi, _))) if cmp(lo, hi) == Ordering::Equal => {
                        out.push(Value::Number(lo.to_json()?));
                    }
                    _ => return None,
                }
            }
            Kind::String if s.max_length == Some(0) => out.push(Value::String(String::new())),
            Kind::Array if s.max_items == Some(0) => out.push(Value::Array(Vec::new())),
            Kind::Object if !s.additional_properties && s.properties.is_empty() => {
                out.push(Value::Object(serde_json::Map::new()));
            }
            _ => return None,
        }
        if out.len() > cap {
            return None;
        }
    }
    Some(
        out.into_iter()
            .filter(|v| validate(s, v.as_value()).is_ok())
            .collect(),
    )
}
