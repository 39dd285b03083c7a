//! Judging values against one schema: the validator's answers, with a
//! long `enum` looked up in a set.

use crate::text::json_text;
use serde_json::Value;
use std::collections::HashSet;
use templiqx_contracts::canonical;
use templiqx_contracts::validate::{SchemaViolation, validate};
use templiqx_contracts::value::ValueRef;
use templiqx_contracts::{AsValue, Number, Schema};

/// Validation against one schema, with a long `enum` looked up in a set
/// of [`value_key`]s instead of scanned, so judging each of `n` values
/// against an `enum` of `m` costs `O(n + m)`, not `O(n·m)`. Its answers
/// are the validator's.
pub(super) struct Judge<'s> {
    schema: &'s Schema,
    /// The schema without its `enum`, and the keys of the `enum`'s values.
    listed: Option<(Schema, HashSet<String>)>,
}

/// Below this many values an `enum` is scanned: a set is not worth it.
const SET_FROM: usize = 16;

impl<'s> Judge<'s> {
    pub(super) fn new(schema: &'s Schema) -> Judge<'s> {
        let listed = schema
            .enum_values
            .as_ref()
            .filter(|values| values.len() >= SET_FROM)
            .map(|values| {
                let rest = Schema {
                    enum_values: None,
                    ..schema.clone()
                };
                let keys = values.iter().map(|v| value_key(v.as_value())).collect();
                (rest, keys)
            });
        Judge { schema, listed }
    }

    /// Whether the schema accepts `v` (`validate(schema, v).is_ok()`).
    pub(super) fn accepts(&self, v: &Value) -> bool {
        match &self.listed {
            Some((rest, keys)) => {
                keys.contains(&value_key(v.as_value())) && validate(rest, v.as_value()).is_ok()
            }
            None => validate(self.schema, v.as_value()).is_ok(),
        }
    }

    /// Why the schema refuses `v`: the validator's violations (the `enum`
    /// one with a shorter message when the list is a set); empty when it
    /// accepts `v`.
    pub(super) fn violations(&self, v: &Value) -> Vec<SchemaViolation> {
        match &self.listed {
            Some((rest, keys)) => {
                let mut out = Vec::new();
                if !keys.contains(&value_key(v.as_value())) {
                    out.push(SchemaViolation {
                        pointer: String::new(),
                        keyword: "enum",
                        message: format!("{} is not one of the listed values", json_text(v)),
                    });
                }
                out.extend(validate(rest, v.as_value()).err().unwrap_or_default());
                out
            }
            None => validate(self.schema, v.as_value())
                .err()
                .unwrap_or_default(),
        }
    }
}

/// The identity of a JSON value for set membership: its canonical JSON
/// (`templiqx_contracts::canonical`: members sorted, RFC 8785 strings)
/// with every integral number written with its exact digits, so two
/// values have the same key exactly when they are equal as JSON
/// (`ValueRef::json_eq`, where `1 == 1.0` and the double `2^60` equals the
/// integer `1152921504606846976`). RFC 8785 writes large doubles through
/// their shortest round-trip form, which can name another integer.
fn value_key(v: ValueRef<'_>) -> String {
    fn write(v: ValueRef<'_>, out: &mut String) {
        use std::fmt::Write as _;
        match v {
            ValueRef::Number(Number::F64(f)) if f.is_finite() && f.fract() == 0.0 => {
                // `-0.0` is `0`; `{:.0}` writes a double's exact value.
                let _ = write!(out, "{:.0}", if f == 0.0 { 0.0 } else { f });
            }
            ValueRef::Array(items) => {
                out.push('[');
                for i in 0..items.len() {
                    if i > 0 {
                        out.push(',');
                    }
                    write(items.get(i).unwrap_or(ValueRef::Null), out);
                }
                out.push(']');
            }
            ValueRef::Object(members) => {
                let mut entries: Vec<(&str, ValueRef<'_>)> = members.entries().collect();
                entries.sort_by(|(a, _), (b, _)| canonical::utf16_cmp(a, b));
                out.push('{');
                for (i, (k, v)) in entries.into_iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    let _ = canonical::write_string(k, out);
                    out.push(':');
                    write(v, out);
                }
                out.push('}');
            }
            scalar => {
                let _ = canonical::write_canonical(scalar, out);
            }
        }
    }
    let mut out = String::new();
    write(v, &mut out);
    out
}

/// An `enum` of `values`, built without the compiler (whose checks of
/// a long list are not what these tests time).
#[cfg(test)]
pub(super) fn listing(values: impl IntoIterator<Item = Value>) -> Schema {
    use templiqx_contracts::value::IrValue;
    let values: Vec<IrValue> = values.into_iter().map(|v| IrValue::from_json(&v)).collect();
    Schema {
        enum_values: Some(values.into()),
        ..Schema::ANY
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use templiqx_contracts::validate::validate;

    #[test]
    fn value_keys_are_equal_exactly_when_values_are() {
        let values = [
            json!(1),
            json!(1.0),
            json!(-0.0),
            json!(0),
            json!(1.5),
            json!(1152921504606846976_u64),
            json!(1152921504606847000_u64),
            json!(2.0_f64.powi(60)),
            json!(1e300),
            json!(u64::MAX),
            json!("1"),
            json!([1, {"b": 2, "a": [1.0]}]),
            json!([1.0, {"a": [1], "b": 2.0}]),
            json!({"a": null}),
            json!(null),
            json!(true),
        ];
        for a in &values {
            for b in &values {
                assert_eq!(
                    value_key(a.as_value()) == value_key(b.as_value()),
                    a.as_value().json_eq(&b.as_value()),
                    "{a} and {b}"
                );
            }
        }
        // A judge with a set answers as the validator does.
        let schema = listing(
            values
                .iter()
                .step_by(2)
                .cloned()
                .chain((0..20).map(Value::from)),
        );
        let judge = Judge::new(&schema);
        assert!(judge.listed.is_some());
        for v in values.iter().chain(&[json!(19), json!(20), json!(19.0)]) {
            assert_eq!(
                judge.accepts(v),
                validate(&schema, v.as_value()).is_ok(),
                "{v}"
            );
        }
    }
}
