//! What the generated Rust types hold exactly (`docs/format.md`, "Typed and
//! untyped agree"): `type: integer` is generated as `i64`, `type: number` as
//! `f64`. A value the schema accepts but its generated type cannot hold with
//! the digits canonical JSON writes is refused by the typed path, never
//! rounded, and `templiqx check` refuses eval fixtures holding one. The
//! runtime's typed decode and the checker both ask this module, so they
//! cannot disagree.

use crate::schema::Schema;
use crate::value::{JsonType, Number, ValueRef};

/// Integers above 2^53 in magnitude: a double holds them inexactly.
pub const EXACT_DOUBLE: u64 = 1 << 53;

/// Whether the double `f` is an integer that an `i64` holds with the digits
/// canonical JSON writes for the double: integral and at most 2^53 in
/// magnitude. Beyond 2^53 canonical JSON writes a double in its shortest
/// round-trip form (`1234567890123456800`), which is not the integer the
/// double holds (`1234567890123456768`), so reading it as `i64` would
/// change the request.
pub fn exact_integral_double(f: f64) -> bool {
    f.fract() == 0.0 && f.abs() <= EXACT_DOUBLE as f64
}

/// Why a value does not fit its generated Rust type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unfit {
    /// An integer outside `i64` under `type: integer`.
    OutsideI64,
    /// An integer-valued double beyond ±2^53 under `type: integer`.
    DoubleBeyondExactIntegers,
    /// An integer beyond ±2^53 under `type: number` (`f64`).
    IntegerBeyondF64,
}

impl Unfit {
    /// The reason as the end of a diagnostic message.
    pub fn reason(self) -> &'static str {
        match self {
            Unfit::OutsideI64 => {
                "an integer outside the 64-bit signed range of the generated `i64`"
            }
            Unfit::DoubleBeyondExactIntegers => {
                "an integer-valued double beyond 2^53, which canonical JSON writes in double \
                 form, not as the generated `i64` would hold it"
            }
            Unfit::IntegerBeyondF64 => {
                "an integer beyond 2^53, which the generated `f64` holds inexactly"
            }
        }
    }
}

/// The JSON Pointers (relative to `value`, `""` for `value` itself) of the
/// values in a schema-valid `value` that the types generated from `schema`
/// cannot hold exactly, in document order. Follows `properties` and `items`,
/// as the generated types do; values under no generated type (unknown
/// members, untyped schemas) are never reported.
pub fn unrepresentable(schema: &Schema, value: ValueRef<'_>) -> Vec<(String, Unfit)> {
    let mut out = Vec::new();
    walk(schema, value, &mut String::new(), &mut out);
    out
}

fn walk(schema: &Schema, value: ValueRef<'_>, at: &mut String, out: &mut Vec<(String, Unfit)>) {
    let only = schema.types.without_null();
    match value {
        ValueRef::Number(n) if only.is_only(JsonType::Integer) => match n {
            Number::I64(_) => {}
            Number::U64(_) | Number::Big(_) => out.push((at.clone(), Unfit::OutsideI64)),
            Number::F64(f) if exact_integral_double(f) => {}
            Number::F64(_) => out.push((at.clone(), Unfit::DoubleBeyondExactIntegers)),
        },
        ValueRef::Number(n) if only.is_only(JsonType::Number) => {
            let beyond = match n {
                Number::I64(i) => i.unsigned_abs() > EXACT_DOUBLE,
                Number::U64(u) => u > EXACT_DOUBLE,
                Number::Big(_) => true,
                Number::F64(_) => false,
            };
            if beyond {
                out.push((at.clone(), Unfit::IntegerBeyondF64));
            }
        }
        ValueRef::Array(items) => {
            if let Some(item) = &schema.items {
                for i in 0..items.len() {
                    let Some(v) = items.get(i) else { continue };
                    let len = at.len();
                    at.push('/');
                    at.push_str(&i.to_string());
                    walk(item, v, at, out);
                    at.truncate(len);
                }
            }
        }
        ValueRef::Object(map) => {
            for (k, v) in map.entries() {
                if let Some(s) = schema.property(k) {
                    let len = at.len();
                    at.push('/');
                    at.push_str(&crate::diagnostic::escape_pointer_token(k));
                    walk(s, v, at, out);
                    at.truncate(len);
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_are_exact_integers_up_to_2_pow_53_only() {
        assert!(exact_integral_double(2.0));
        assert!(exact_integral_double(-(EXACT_DOUBLE as f64)));
        assert!(!exact_integral_double(2.5));
        assert!(!exact_integral_double(1_234_567_890_123_456_789.0));
        assert!(!exact_integral_double(-9_223_372_036_854_775_808.0));
    }
}
