//! The static types of expressions (`docs/format.md`, "Typing rules"):
//! [`Ty`], the JSON types a schema's values can have, whether one schema's
//! values fit another ([`assignable`]) or are provably accepted by it
//! ([`implies`]), and null narrowing in `when` branches ([`null_tests`]).

use crate::dto::{self, ExprKind};
use templiqx_contracts::{AsValue, IrValue, JsonType, Schema, TypeSet, ValueRef, words};

/// The static type of an expression.
#[derive(Clone, Copy)]
pub(super) enum Ty<'s> {
    /// Described by a compiled schema.
    Schema(&'s Schema),
    /// Described by a nullable schema, inside a `when` branch whose
    /// condition rules `null` out (`not(equals(ref, null))`).
    NonNull(&'s Schema),
    /// A literal or computed value of known types.
    Types(TypeSet),
    /// A legacy component argument: a required string.
    Legacy,
    /// Unknown because of an earlier error; checks pass silently.
    Error,
}

impl Ty<'_> {
    pub(super) fn types(self) -> Option<TypeSet> {
        match self {
            Ty::Schema(s) => Some(known_types(s)),
            Ty::NonNull(s) => Some(known_types(s).without_null()),
            Ty::Types(t) => Some(t),
            Ty::Legacy => Some(TypeSet::of(JsonType::String)),
            Ty::Error => None,
        }
    }

    pub(super) fn describe(self) -> String {
        match self.types() {
            None => "unknown".to_owned(),
            Some(t) if t.is_any() => {
                "an unconstrained value (no `type`, `enum` or `const`)".to_owned()
            }
            Some(t) => t.iter().map(words::kind).collect::<Vec<_>>().join(" or "),
        }
    }

    /// Whether the type is exactly `t` (no `null`, not unconstrained).
    pub(super) fn is_exactly(self, t: JsonType) -> bool {
        match self.types() {
            None => true,
            Some(set) => {
                set == TypeSet::of(t)
                    || (t == JsonType::Number && set == TypeSet::of(JsonType::Integer))
            }
        }
    }
}

/// The JSON types a schema's values can have: its `type`; without one, the
/// types of its `const` value or of its `enum` values (every value it
/// accepts is one of those), so `{enum: [a, b]}` is a string and
/// `{const: 5}` a number (`docs/format.md`, "Typing rules"). Otherwise
/// unconstrained ([`TypeSet::ANY`]).
pub(crate) fn known_types(s: &Schema) -> TypeSet {
    if !s.types.is_any() {
        return s.types;
    }
    let values: &[IrValue] = match (&s.const_value, &s.enum_values) {
        (Some(c), _) => std::slice::from_ref(c),
        (None, Some(e)) => e,
        (None, None) => return s.types,
    };
    let set = values.iter().fold(TypeSet::ANY, |set, v| {
        set.with(match v.as_value() {
            ValueRef::Number(n) if n.is_integer() => JsonType::Integer,
            other => other.json_type(),
        })
    });
    number_absorbs_integer(set)
}

/// `integer` folded into `number` when both occur (every integer is a
/// number), so `[1, 2.5]` is a number and `[1, 2]` an integer.
fn number_absorbs_integer(set: TypeSet) -> TypeSet {
    if set.contains(JsonType::Number) {
        TypeSet(set.0 & !TypeSet::bit(JsonType::Integer))
    } else {
        set
    }
}

/// The types of the items of a literal array, when all of them are
/// scalars or `null` (`integer` folded into `number` when both occur);
/// `None` for an empty array or one holding arrays or objects, whose items
/// stay unconstrained.
pub(super) fn literal_item_types(items: &[serde_json::Value]) -> Option<TypeSet> {
    let set = items
        .iter()
        .fold(TypeSet::ANY, |set, v| TypeSet(set.0 | literal_type(v).0));
    if set.is_any() || set.contains(JsonType::Array) || set.contains(JsonType::Object) {
        return None;
    }
    Some(number_absorbs_integer(set))
}

pub(super) fn literal_type(v: &serde_json::Value) -> TypeSet {
    TypeSet::of(match v {
        serde_json::Value::Null => JsonType::Null,
        serde_json::Value::Bool(_) => JsonType::Boolean,
        serde_json::Value::Number(n) if n.is_i64() || n.is_u64() => JsonType::Integer,
        serde_json::Value::Number(_) => JsonType::Number,
        serde_json::Value::String(_) => JsonType::String,
        serde_json::Value::Array(_) => JsonType::Array,
        serde_json::Value::Object(_) => JsonType::Object,
    })
}

/// Whether every value of `from` is acceptable where `to` is declared
/// (types, nested properties and items; bounds are not compared).
pub(super) fn assignable(from: &Schema, to: &Schema) -> bool {
    if to.types.is_any() && to.properties.is_empty() && to.items.is_none() {
        return true;
    }
    if !to.types.is_any() {
        let from_types = known_types(from);
        if from_types.is_any() {
            return false;
        }
        let ok = from_types.iter().all(|t| {
            to.types.contains(t) || (t == JsonType::Integer && to.types.contains(JsonType::Number))
        });
        if !ok {
            return false;
        }
    }
    for (name, tp) in to.properties.iter() {
        match from.property(name) {
            Some(fp) if !assignable(fp, tp) => return false,
            Some(_) => {}
            None if to.is_required(name) => return false,
            None => {}
        }
    }
    if to.required.iter().any(|name| !from.is_required(name)) {
        return false;
    }
    if !to.additional_properties
        && (from.additional_properties
            || from
                .properties
                .iter()
                .any(|(n, _)| to.property(n).is_none()))
    {
        return false;
    }
    if let Some(ti) = &to.items {
        match &from.items {
            Some(fi) => {
                if !assignable(fi, ti) {
                    return false;
                }
            }
            None => return false,
        }
    }
    true
}

/// Whether every value `from` accepts is provably accepted by `to`, so that
/// a component argument described by `from` needs no check when its call
/// renders (`docs/format.md`, "Components"). Conservative: beyond types,
/// a value keyword of `to` (`enum`, `const`, bounds, lengths, item counts,
/// `format`) is implied only when `from` has the same keyword with the same
/// value; object and array structure is compared recursively.
pub(super) fn implies(from: &Schema, to: &Schema) -> bool {
    if !to.types.is_any() {
        let from_types = known_types(from);
        if from_types.is_any()
            || !from_types.iter().all(|t| {
                to.types.contains(t)
                    || (t == JsonType::Integer && to.types.contains(JsonType::Number))
            })
        {
            return false;
        }
    }
    fn same<T: PartialEq>(to: &Option<T>, from: &Option<T>) -> bool {
        to.is_none() || to == from
    }
    let keywords = same(&to.enum_values, &from.enum_values)
        && same(&to.const_value, &from.const_value)
        && same(&to.min_length, &from.min_length)
        && same(&to.max_length, &from.max_length)
        && same(&to.minimum, &from.minimum)
        && same(&to.maximum, &from.maximum)
        && same(&to.exclusive_minimum, &from.exclusive_minimum)
        && same(&to.exclusive_maximum, &from.exclusive_maximum)
        && same(&to.min_items, &from.min_items)
        && same(&to.max_items, &from.max_items)
        && same(&to.format, &from.format);
    if !keywords {
        return false;
    }
    for (name, tp) in to.properties.iter() {
        let ok = match from.property(name) {
            Some(fp) => implies(fp, tp),
            // Without a declaration in `from`, the property may hold
            // anything (unless `from` is closed): only `{}` is implied.
            None => !from.additional_properties || implies(&Schema::ANY, tp),
        };
        if !ok {
            return false;
        }
    }
    if to.required.iter().any(|name| !from.is_required(name)) {
        return false;
    }
    if !to.additional_properties
        && (from.additional_properties
            || from
                .properties
                .iter()
                .any(|(n, _)| to.property(n).is_none()))
    {
        return false;
    }
    match (&to.items, &from.items) {
        (None, _) => true,
        (Some(ti), Some(fi)) => implies(fi, ti),
        (Some(ti), None) => implies(&Schema::ANY, ti),
    }
}

/// The references a condition proves non-null in its `then` and `else`
/// branches: `equals(ref, null)` (either order) proves it in `else`,
/// `not(...)` swaps the branches, and an `and` proves in `then` what each
/// operand proves there (an `or`, dually, in `else`).
pub(super) fn null_tests(condition: &dto::Expr) -> (Vec<String>, Vec<String>) {
    match &condition.kind {
        ExprKind::Equals { left, right } => match (&left.kind, &right.kind) {
            (
                ExprKind::Ref { path },
                ExprKind::Literal {
                    value: serde_json::Value::Null,
                },
            )
            | (
                ExprKind::Literal {
                    value: serde_json::Value::Null,
                },
                ExprKind::Ref { path },
            ) => (Vec::new(), vec![path.clone()]),
            _ => (Vec::new(), Vec::new()),
        },
        ExprKind::Not { operand } => {
            let (then, otherwise) = null_tests(operand);
            (otherwise, then)
        }
        ExprKind::And { operands } => (
            operands.iter().flat_map(|o| null_tests(o).0).collect(),
            Vec::new(),
        ),
        ExprKind::Or { operands } => (
            Vec::new(),
            operands.iter().flat_map(|o| null_tests(o).1).collect(),
        ),
        _ => (Vec::new(), Vec::new()),
    }
}
