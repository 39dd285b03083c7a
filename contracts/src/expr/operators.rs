//! What the operators `compare`, `contains` and `length` mean for values
//! (`docs/format.md`, "Expressions"): the one definition, used by the
//! evaluator for rendering and eval checks alike.

use crate::ir::CompareOp;
use crate::value::{Number, ValueRef};

/// `left op right` for two numbers, compared exactly (integers of any size,
/// doubles, and the two mixed). `None` when an operand is not a number.
pub fn compare(op: CompareOp, left: ValueRef<'_>, right: ValueRef<'_>) -> Option<bool> {
    match (left, right) {
        (ValueRef::Number(l), ValueRef::Number(r)) => {
            Some(l.cmp_exact(r).is_some_and(|o| op.holds(o)))
        }
        _ => None,
    }
}

/// Whether `container` holds `item`: a string holds a substring (the empty
/// string is in every string), an array holds an element equal to `item`
/// by JSON equality ([`ValueRef::json_eq`]: `1` equals `1.0`, objects
/// regardless of key order). `None` for any other pair of types.
pub fn contains(container: ValueRef<'_>, item: ValueRef<'_>) -> Option<bool> {
    match (container, item) {
        (ValueRef::String(haystack), ValueRef::String(needle)) => Some(haystack.contains(needle)),
        (ValueRef::String(_), _) => None,
        (ValueRef::Array(items), item) => {
            Some((0..items.len()).any(|i| items.get(i).is_some_and(|x| x.json_eq(&item))))
        }
        _ => None,
    }
}

/// The length of a string in Unicode scalar values (as `minLength` and
/// `maxLength` count), or of an array in elements. `None` for any other
/// type.
pub fn length(value: ValueRef<'_>) -> Option<Number<'static>> {
    let n = match value {
        ValueRef::String(s) => s.chars().count(),
        ValueRef::Array(items) => items.len(),
        _ => return None,
    };
    Some(match i64::try_from(n) {
        Ok(i) => Number::I64(i),
        Err(_) => Number::U64(n as u64),
    })
}
