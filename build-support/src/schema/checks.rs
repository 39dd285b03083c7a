//! The checks across keywords of one schema (`docs/format.md`, "The
//! bounded JSON Schema subset"; `docs/decisions.md`, "Bounded JSON Schema
//! subset"): keywords that cannot apply to the declared type, impossible
//! lengths and numeric bounds, `required` names without a property, and
//! `enum`/`const` values that the rest of the schema rejects.

use super::Compiler;
use serde_json::{Map, Value};
use std::cmp::Ordering;
use templiqx_contracts::diagnostic::pointer_push;
use templiqx_contracts::validate::validate;
use templiqx_contracts::{AsValue, Code, IrValue, JsonType, Number, Schema, words};

/// The lower or upper numeric bound in force, and the keyword it came from.
#[derive(Clone, Copy)]
struct Bound {
    value: Number<'static>,
    exclusive: bool,
    keyword: &'static str,
}

impl Compiler {
    /// Keywords that cannot apply to any declared (non-null) type.
    pub(super) fn check_applicability(&mut self, obj: &Map<String, Value>, s: &Schema, at: &str) {
        const GROUPS: &[(&[&str], &[JsonType], &str)] = &[
            (
                &["minLength", "maxLength", "format"],
                &[JsonType::String],
                "strings",
            ),
            (
                &["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"],
                &[JsonType::Integer, JsonType::Number],
                "numbers",
            ),
            (
                &["items", "minItems", "maxItems"],
                &[JsonType::Array],
                "arrays",
            ),
            (
                &["properties", "required", "additionalProperties"],
                &[JsonType::Object],
                "objects",
            ),
        ];
        let declared: Vec<&str> = s.types.iter().map(JsonType::as_str).collect();
        let declared = declared.join(", ");
        for (keywords, applies_to, noun) in GROUPS {
            if applies_to.iter().any(|t| s.types.contains(*t)) {
                continue;
            }
            for keyword in keywords.iter().filter(|k| obj.contains_key(**k)) {
                self.push(
                    Code::SchemaBounds,
                    &pointer_push(at, keyword),
                    format!("`{keyword}` applies only to {noun}, but the schema's type is {declared}, so it can never take effect"),
                    format!("remove `{keyword}`, or change `type`"),
                );
            }
        }
    }

    pub(super) fn check_lengths(&mut self, s: &Schema, at: &str) {
        for (min_key, min, max_key, max, unit) in [
            (
                "minLength",
                s.min_length,
                "maxLength",
                s.max_length,
                "characters",
            ),
            ("minItems", s.min_items, "maxItems", s.max_items, "items"),
        ] {
            if let (Some(min), Some(max)) = (min, max)
                && min > max
            {
                self.push(
                    Code::SchemaBounds,
                    &pointer_push(at, min_key),
                    format!("`{min_key}` {min} is above `{max_key}` {max}: no value has between {min} and {max} {unit}"),
                    format!("lower `{min_key}` or raise `{max_key}`"),
                );
            }
        }
    }

    pub(super) fn check_numbers(&mut self, s: &Schema, at: &str) {
        let lower = tighter(
            s.minimum.map(|value| Bound {
                value,
                exclusive: false,
                keyword: "minimum",
            }),
            s.exclusive_minimum.map(|value| Bound {
                value,
                exclusive: true,
                keyword: "exclusiveMinimum",
            }),
            Ordering::Greater,
        );
        let upper = tighter(
            s.maximum.map(|value| Bound {
                value,
                exclusive: false,
                keyword: "maximum",
            }),
            s.exclusive_maximum.map(|value| Bound {
                value,
                exclusive: true,
                keyword: "exclusiveMaximum",
            }),
            Ordering::Less,
        );
        let (Some(lo), Some(hi)) = (lower, upper) else {
            return;
        };
        let empty = match lo.value.cmp_exact(hi.value) {
            Some(Ordering::Less) => false,
            Some(Ordering::Equal) => lo.exclusive || hi.exclusive,
            _ => true,
        };
        let (lo_text, hi_text) = (number_text(lo.value), number_text(hi.value));
        if empty {
            self.push(
                Code::SchemaBounds,
                &pointer_push(at, lo.keyword),
                format!(
                    "no number satisfies both `{}` {lo_text} and `{}` {hi_text}",
                    lo.keyword, hi.keyword
                ),
                format!("lower `{}` or raise `{}`", lo.keyword, hi.keyword),
            );
        } else if s.types.is_only(JsonType::Integer) && !integer_between(lo, hi) {
            self.push(
                Code::SchemaBounds,
                &pointer_push(at, lo.keyword),
                format!(
                    "no integer satisfies both `{}` {lo_text} and `{}` {hi_text}",
                    lo.keyword, hi.keyword
                ),
                "widen the bounds to include an integer, or use `type: number`",
            );
        }
    }

    pub(super) fn check_required(&mut self, s: &Schema, at: &str) {
        if s.additional_properties {
            return;
        }
        for (i, name) in s.required.iter().enumerate() {
            if s.property(name).is_none() {
                self.push(
                    Code::SchemaBounds,
                    &pointer_push(&pointer_push(at, "required"), &i.to_string()),
                    format!("\"{name}\" is required, but `additionalProperties: false` forbids it as it is not declared in `properties`"),
                    format!("declare \"{name}\" under `properties`, or drop it from `required`"),
                );
            }
        }
    }

    pub(super) fn enum_values(
        &mut self,
        values: &[Value],
        rest: &Schema,
        at: &str,
    ) -> Vec<IrValue> {
        let enum_at = pointer_push(at, "enum");
        if values.is_empty() {
            self.push(
                Code::SchemaBounds,
                &enum_at,
                "`enum` is empty, so no value is valid".into(),
                "list at least one allowed value",
            );
        }
        let mut out: Vec<IrValue> = Vec::with_capacity(values.len());
        for (i, v) in values.iter().enumerate() {
            let p = pointer_push(&enum_at, &i.to_string());
            let ir = IrValue::from_json(v);
            if let Some(first) = out
                .iter()
                .position(|o| o.as_value().json_eq(&ir.as_value()))
            {
                self.push(
                    Code::SchemaInvalid,
                    &p,
                    format!(
                        "enum value {} is listed twice (first at index {first})",
                        words::preview_json(v)
                    ),
                    "list each allowed value once",
                );
                continue;
            }
            if let Err(violations) = validate(rest, ir.as_value()) {
                self.push(
                    Code::SchemaBounds,
                    &p,
                    format!(
                        "enum value {} can never be valid: {}",
                        words::preview_json(v),
                        describe(&violations)
                    ),
                    "remove the value, or change the schema's other keywords to admit it",
                );
            }
            out.push(ir);
        }
        out
    }

    pub(super) fn const_value(
        &mut self,
        v: &Value,
        enum_values: Option<&[IrValue]>,
        rest: &Schema,
        at: &str,
    ) -> IrValue {
        let p = pointer_push(at, "const");
        let ir = IrValue::from_json(v);
        if let Err(violations) = validate(rest, ir.as_value()) {
            self.push(
                Code::SchemaBounds,
                &p,
                format!(
                    "const {} can never be valid: {}",
                    words::preview_json(v),
                    describe(&violations)
                ),
                "change the const, or the schema's other keywords to admit it",
            );
        }
        if let Some(values) = enum_values
            && !values.iter().any(|e| e.as_value().json_eq(&ir.as_value()))
        {
            self.push(
                Code::SchemaBounds,
                &p,
                format!(
                    "const {} is not one of the `enum` values",
                    words::preview_json(v)
                ),
                "add the const to `enum`, or remove one of the two keywords",
            );
        }
        ir
    }
}

/// The tighter of an inclusive and an exclusive bound on the same side
/// (`towards` is `Greater` for lower bounds, `Less` for upper ones). On a
/// tie the exclusive bound is tighter.
fn tighter(inclusive: Option<Bound>, exclusive: Option<Bound>, towards: Ordering) -> Option<Bound> {
    match (inclusive, exclusive) {
        (Some(i), Some(e)) => match i.value.cmp_exact(e.value) {
            Some(o) if o == towards => Some(i),
            _ => Some(e),
        },
        (i, e) => i.or(e),
    }
}

/// Whether some integer satisfies both bounds, given that some number does.
///
/// Bounds are moved to the nearest integer inside them, exactly in `i128`.
/// A double of magnitude 2^100 or more needs no such care: every double
/// there is an integer and the next one is more than 2^48 away, while the
/// other bound is either such a double too or an `i64`/`u64` far below, so
/// two bounds that enclose some number always enclose an integer.
fn integer_between(lo: Bound, hi: Bound) -> bool {
    const HUGE: f64 = 1_267_650_600_228_229_401_496_703_205_376.0; // 2^100
    let as_int = |b: Bound, round: fn(f64) -> f64, step: i128| match b.value {
        Number::I64(i) => Some(i128::from(i) + step * i128::from(b.exclusive)),
        Number::U64(u) => Some(i128::from(u) + step * i128::from(b.exclusive)),
        Number::F64(f) if f.abs() >= HUGE => None,
        // Contract literals are inside the 64-bit range (the YAML reader
        // refuses wider ones), so a bound is never a `BigInt`.
        Number::Big(_) => None,
        Number::F64(f) => {
            let r = round(f);
            // |r| < 2^100, so the cast is exact.
            Some(r as i128 + if b.exclusive && r == f { step } else { 0 })
        }
    };
    match (as_int(lo, f64::ceil, 1), as_int(hi, f64::floor, -1)) {
        (Some(least), Some(greatest)) => least <= greatest,
        _ => true,
    }
}

fn number_text(n: Number) -> String {
    let mut s = String::new();
    let _ = templiqx_contracts::canonical::write_number(n, &mut s);
    s
}

/// The violations of an enum/const value, joined for one message.
fn describe(violations: &[templiqx_contracts::SchemaViolation]) -> String {
    violations
        .iter()
        .map(|v| {
            if v.pointer.is_empty() {
                v.message.clone()
            } else {
                format!("{} (at {})", v.message, v.pointer)
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}
