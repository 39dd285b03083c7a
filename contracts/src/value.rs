//! A borrowed, allocation-free view of JSON-shaped data.
//!
//! Rendering, value validation and canonical JSON all work over [`ValueRef`],
//! so the same code serves `serde_json::Value` (CLI, gateway, tests), the
//! static [`IrValue`] embedded in generated code, and the typed `Inputs` /
//! `Context` structs that `include_contract!` generates (which implement
//! [`ObjectView`] field by field, so the typed render path never builds or
//! parses JSON).

use crate::seq::{Seq, Str};
use std::collections::{BTreeMap, HashMap};
use std::ops::ControlFlow;

/// A JSON number as the data model holds it.
///
/// Integers keep their exact value: `I64`/`U64` inside the 64-bit range,
/// [`BigInt`] beyond it (`docs/decisions.md`, "Canonical JSON: exact big
/// integers"); everything else is `F64`. The lifetime is that of a
/// [`BigInt`]'s digits; numbers without one are `Number<'static>`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Number<'a> {
    /// A signed integer.
    I64(i64),
    /// An unsigned integer above `i64::MAX`.
    U64(u64),
    /// A finite double.
    F64(f64),
    /// An integer outside both the `i64` and the `u64` range, exactly.
    Big(BigInt<'a>),
}

/// An integer outside both the `i64` and the `u64` range, held as its
/// exact decimal digits: a JSON integer literal (RFC 8259 section 6,
/// `-?[1-9][0-9]*`) of any length.
///
/// ```
/// use templiqx_contracts::value::BigInt;
///
/// let n = BigInt::parse("-100000000000000000001").unwrap();
/// assert!(n.is_negative());
/// assert_eq!(n.magnitude(), "100000000000000000001");
/// assert_eq!(BigInt::parse("18446744073709551615"), None); // u64::MAX
/// assert_eq!(BigInt::parse("1e20"), None); // not an integer literal
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BigInt<'a>(&'a str);

impl<'a> BigInt<'a> {
    /// The integer spelled by `literal`, when it is a JSON integer literal
    /// that neither `i64` nor `u64` holds; `None` otherwise (a literal with
    /// a fraction or an exponent, a leading zero or `+`, or one inside the
    /// 64-bit range, which is an [`Number::I64`]/[`Number::U64`]).
    pub fn parse(literal: &'a str) -> Option<BigInt<'a>> {
        let magnitude = literal.strip_prefix('-').unwrap_or(literal);
        let integer = !magnitude.is_empty()
            && magnitude.bytes().all(|b| b.is_ascii_digit())
            && !magnitude.starts_with('0');
        // 20 digits or more, and beyond `u64::MAX` (20 digits) or
        // `i64::MIN` (19): every shorter literal fits.
        let beyond = literal.parse::<i64>().is_err() && literal.parse::<u64>().is_err();
        (integer && beyond).then_some(BigInt(literal))
    }

    /// A literal [`BigInt::parse`] accepted, for generated `static` data
    /// (which cannot call `parse`) and owned values that checked it once;
    /// not public API. Given anything else, comparisons and formatting of
    /// the number are meaningless (never unsafe).
    #[doc(hidden)]
    pub const fn from_parsed_literal(literal: &'a str) -> BigInt<'a> {
        BigInt(literal)
    }

    /// The literal: an optional `-`, then the digits.
    pub fn as_str(self) -> &'a str {
        self.0
    }

    /// Whether the integer is below zero.
    pub fn is_negative(self) -> bool {
        self.0.starts_with('-')
    }

    /// The decimal digits of the absolute value (no sign, no leading zero).
    pub fn magnitude(self) -> &'a str {
        self.0.strip_prefix('-').unwrap_or(self.0)
    }

    /// The nearest double (correctly rounded; `±inf` beyond `f64::MAX`).
    pub fn to_f64(self) -> f64 {
        // A digit string always parses as a double.
        self.0.parse().unwrap_or(f64::NAN)
    }

    /// Orders two big integers by value.
    pub fn cmp_value(self, other: BigInt<'_>) -> std::cmp::Ordering {
        signed_digits_cmp(
            (self.is_negative(), self.magnitude()),
            (other.is_negative(), other.magnitude()),
        )
    }
}

impl std::fmt::Display for BigInt<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

/// Orders two integers given as sign and magnitude digits (no leading
/// zeros; zero is never negative).
fn signed_digits_cmp(a: (bool, &str), b: (bool, &str)) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let magnitude = |x: &str, y: &str| x.len().cmp(&y.len()).then_with(|| x.cmp(y));
    match (a.0, b.0) {
        (false, true) => Ordering::Greater,
        (true, false) => Ordering::Less,
        (false, false) => magnitude(a.1, b.1),
        (true, true) => magnitude(b.1, a.1),
    }
}

impl<'a> Number<'a> {
    /// The value as a double (rounds integers beyond 2^53 to the nearest;
    /// a [`BigInt`] beyond `f64::MAX` is `±inf`).
    pub fn as_f64(self) -> f64 {
        match self {
            Number::I64(i) => i as f64,
            Number::U64(u) => u as f64,
            Number::F64(f) => f,
            Number::Big(b) => b.to_f64(),
        }
    }

    /// Whether the number is integer-valued (`1.0` is, per JSON Schema).
    pub fn is_integer(self) -> bool {
        match self {
            Number::I64(_) | Number::U64(_) | Number::Big(_) => true,
            Number::F64(f) => f.is_finite() && f.fract() == 0.0,
        }
    }

    /// Numeric equality across representations (`1 == 1.0`), exact: an
    /// integer beyond 2^53 equals only the double of exactly its value
    /// (`9007199254740993 != 9007199254740992.0`). `NaN` equals nothing.
    pub fn numeric_eq(self, other: Number<'_>) -> bool {
        self.cmp_exact(other) == Some(std::cmp::Ordering::Equal)
    }

    /// Compares two numbers by their exact mathematical values, across
    /// representations and without rounding (an integer against a double
    /// never goes through a lossy cast). `None` only when a `NaN` is
    /// involved; infinities order below/above every finite value.
    ///
    /// ```
    /// use std::cmp::Ordering;
    /// use templiqx_contracts::{Number, value::BigInt};
    /// // 2^53 + 1 is above the double 2^53, although `as f64` would round it down.
    /// let big = Number::I64((1 << 53) + 1);
    /// assert_eq!(big.cmp_exact(Number::F64(9007199254740992.0)), Some(Ordering::Greater));
    /// assert_eq!(Number::U64(u64::MAX).cmp_exact(Number::F64(18446744073709551616.0)), Some(Ordering::Less));
    /// assert_eq!(Number::I64(1).cmp_exact(Number::F64(1.0)), Some(Ordering::Equal));
    /// // 10^20 + 1 is above the double 10^20 it would be read as by a double parser.
    /// let beyond = Number::Big(BigInt::parse("100000000000000000001").unwrap());
    /// assert_eq!(beyond.cmp_exact(Number::F64(1e20)), Some(Ordering::Greater));
    /// // Between -2^64 and -2^63 big integers and doubles interleave.
    /// let low = Number::Big(BigInt::parse("-10000000000000000000").unwrap());
    /// assert_eq!(low.cmp_exact(Number::F64(-1e19)), Some(Ordering::Equal));
    /// assert_eq!(low.cmp_exact(Number::F64(-1.5e19)), Some(Ordering::Greater));
    /// assert_eq!(Number::F64(-9.5e18).cmp_exact(low), Some(Ordering::Greater));
    /// ```
    pub fn cmp_exact(self, other: Number<'_>) -> Option<std::cmp::Ordering> {
        match (self, other) {
            (Number::Big(a), Number::Big(b)) => Some(a.cmp_value(b)),
            (Number::Big(a), n) => big_cmp(a, n),
            (n, Number::Big(b)) => big_cmp(b, n).map(std::cmp::Ordering::reverse),
            _ => match (self.as_exact_int(), other.as_exact_int()) {
                (Some(a), Some(b)) => Some(a.cmp(&b)),
                (Some(a), None) => int_cmp_f64(a, other.as_f64()),
                (None, Some(b)) => int_cmp_f64(b, self.as_f64()).map(std::cmp::Ordering::reverse),
                (None, None) => self.as_f64().partial_cmp(&other.as_f64()),
            },
        }
    }

    /// The exact value of an `I64`/`U64` (every one fits an `i128`).
    fn as_exact_int(self) -> Option<i128> {
        match self {
            Number::I64(i) => Some(i128::from(i)),
            Number::U64(u) => Some(i128::from(u)),
            Number::F64(_) | Number::Big(_) => None,
        }
    }

    /// Converts a `serde_json::Number` (which holds no [`BigInt`]).
    /// Non-finite values cannot occur in JSON.
    pub fn from_json(n: &serde_json::Number) -> Number<'static> {
        if let Some(i) = n.as_i64() {
            Number::I64(i)
        } else if let Some(u) = n.as_u64() {
            Number::U64(u)
        } else {
            Number::F64(n.as_f64().unwrap_or(0.0))
        }
    }

    /// Converts to a `serde_json::Number`: `None` for a non-finite double
    /// and for a [`BigInt`], which `serde_json::Number` cannot hold
    /// exactly (use [`crate::json::Json`] to keep it).
    pub fn to_json(self) -> Option<serde_json::Number> {
        match self {
            Number::I64(i) => Some(i.into()),
            Number::U64(u) => Some(u.into()),
            Number::F64(f) => serde_json::Number::from_f64(f),
            Number::Big(_) => None,
        }
    }
}

/// Compares the big integer `a` with a number of another kind exactly.
fn big_cmp(a: BigInt<'_>, n: Number<'_>) -> Option<std::cmp::Ordering> {
    use std::cmp::Ordering;
    // A `BigInt` is above `u64::MAX` (≥ 2^64) or below `i64::MIN`
    // (< -2^63): beyond every `I64`/`U64`, and beyond every double of
    // magnitude below 2^63. A double from 2^63 up is an integer, compared
    // through its exact digits (between -2^64 and -2^63 both kinds occur).
    let by_sign = if a.is_negative() {
        Ordering::Less
    } else {
        Ordering::Greater
    };
    match n {
        Number::Big(b) => Some(a.cmp_value(b)),
        Number::I64(_) | Number::U64(_) => Some(by_sign),
        Number::F64(f) if f.is_nan() => None,
        Number::F64(f) if f.is_infinite() => Some(if f > 0.0 {
            Ordering::Less
        } else {
            Ordering::Greater
        }),
        Number::F64(f) if f.abs() < 9_223_372_036_854_775_808.0 => Some(by_sign),
        Number::F64(f) => {
            // `{:.0}` writes the exact digits of an integral double.
            let digits = format!("{:.0}", f.abs());
            Some(signed_digits_cmp(
                (a.is_negative(), a.magnitude()),
                (f < 0.0, &digits),
            ))
        }
    }
}

/// Compares the integer `a` (|a| < 2^64) with the double `f` exactly.
fn int_cmp_f64(a: i128, f: f64) -> Option<std::cmp::Ordering> {
    use std::cmp::Ordering;
    // 2^64 and -2^64 are exact doubles outside every i64/u64 value.
    const LIMIT: f64 = 18_446_744_073_709_551_616.0;
    if f.is_nan() {
        return None;
    }
    if f >= LIMIT {
        return Some(Ordering::Less);
    }
    if f <= -LIMIT {
        return Some(Ordering::Greater);
    }
    // |f| < 2^64: its integral part is exact in i128.
    let whole = f.trunc();
    match a.cmp(&(whole as i128)) {
        Ordering::Equal => 0.0.partial_cmp(&(f - whole)),
        unequal => Some(unequal),
    }
}

/// The JSON type of a value, as named by JSON Schema's `type` keyword.
///
/// `Integer` is never produced by [`ValueRef::json_type`]; integer-valued
/// numbers report `Number` and are tested with [`Number::is_integer`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum JsonType {
    /// `null`
    Null,
    /// `boolean`
    Boolean,
    /// `integer`
    Integer,
    /// `number`
    Number,
    /// `string`
    String,
    /// `array`
    Array,
    /// `object`
    Object,
}

impl JsonType {
    /// The JSON Schema spelling (`"string"`, `"integer"`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            JsonType::Null => "null",
            JsonType::Boolean => "boolean",
            JsonType::Integer => "integer",
            JsonType::Number => "number",
            JsonType::String => "string",
            JsonType::Array => "array",
            JsonType::Object => "object",
        }
    }

    /// Parses a JSON Schema type name.
    pub fn parse(s: &str) -> Option<JsonType> {
        Some(match s {
            "null" => JsonType::Null,
            "boolean" => JsonType::Boolean,
            "integer" => JsonType::Integer,
            "number" => JsonType::Number,
            "string" => JsonType::String,
            "array" => JsonType::Array,
            "object" => JsonType::Object,
            _ => return None,
        })
    }
}

/// A borrowed JSON-shaped value.
#[derive(Clone, Copy)]
pub enum ValueRef<'a> {
    /// `null` (also what an absent `Option` field reads as when nullable).
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// A number.
    Number(Number<'a>),
    /// A string.
    String(&'a str),
    /// An array.
    Array(&'a dyn ArrayView),
    /// An object.
    Object(&'a dyn ObjectView),
}

impl std::fmt::Debug for ValueRef<'_> {
    /// The value's canonical JSON (exact for every number).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        crate::canonical::write_canonical(*self, f)
    }
}

impl<'a> ValueRef<'a> {
    /// The value's JSON type (`Number` for all numbers).
    pub fn json_type(&self) -> JsonType {
        match self {
            ValueRef::Null => JsonType::Null,
            ValueRef::Bool(_) => JsonType::Boolean,
            ValueRef::Number(_) => JsonType::Number,
            ValueRef::String(_) => JsonType::String,
            ValueRef::Array(_) => JsonType::Array,
            ValueRef::Object(_) => JsonType::Object,
        }
    }

    /// Whether the value is an instance of the JSON Schema type `ty`
    /// (an integer-valued number is an `integer`; every integer is a `number`).
    pub fn is_instance_of(&self, ty: JsonType) -> bool {
        match (self, ty) {
            (ValueRef::Number(n), JsonType::Integer) => n.is_integer(),
            (ValueRef::Number(_), JsonType::Number) => true,
            (v, t) => v.json_type() == t,
        }
    }

    /// Copies the value into a `serde_json::Value` (non-finite doubles
    /// become `null`). A [`BigInt`] becomes its nearest double, since
    /// `serde_json::Value` cannot hold it: use
    /// [`Json::from_value`](crate::json::Json::from_value) for an exact
    /// copy.
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value;
        match *self {
            ValueRef::Null => Value::Null,
            ValueRef::Bool(b) => Value::Bool(b),
            ValueRef::Number(n) => {
                let n = match n {
                    Number::Big(b) => Number::F64(b.to_f64()),
                    n => n,
                };
                n.to_json().map(Value::Number).unwrap_or(Value::Null)
            }
            ValueRef::String(s) => Value::String(s.to_owned()),
            ValueRef::Array(a) => Value::Array(
                (0..a.len())
                    .filter_map(|i| a.get(i))
                    .map(|v| v.to_json())
                    .collect(),
            ),
            ValueRef::Object(o) => Value::Object(
                o.entries()
                    .map(|(k, v)| (k.to_owned(), v.to_json()))
                    .collect(),
            ),
        }
    }

    /// JSON equality: numbers compare numerically (`1 == 1.0`), objects
    /// ignore key order, arrays compare element-wise.
    pub fn json_eq(&self, other: &ValueRef<'_>) -> bool {
        match (*self, *other) {
            (ValueRef::Null, ValueRef::Null) => true,
            (ValueRef::Bool(a), ValueRef::Bool(b)) => a == b,
            (ValueRef::Number(a), ValueRef::Number(b)) => a.numeric_eq(b),
            (ValueRef::String(a), ValueRef::String(b)) => a == b,
            (ValueRef::Array(a), ValueRef::Array(b)) => {
                a.len() == b.len()
                    && (0..a.len()).all(|i| match (a.get(i), b.get(i)) {
                        (Some(x), Some(y)) => x.json_eq(&y),
                        _ => false,
                    })
            }
            (ValueRef::Object(a), ValueRef::Object(b)) => {
                a.len() == b.len()
                    && a.entries()
                        .all(|(k, x)| b.get(k).is_some_and(|y| x.json_eq(&y)))
            }
            _ => false,
        }
    }
}

/// Read access to an array.
pub trait ArrayView {
    /// Number of elements.
    fn len(&self) -> usize;
    /// The element at `index`, if any.
    fn get(&self, index: usize) -> Option<ValueRef<'_>>;
    /// Whether the array is empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Read access to an object. A key whose value is absent (an unset optional
/// field) is not an entry at all: [`ObjectView::get`] returns `None` for it.
pub trait ObjectView {
    /// The value under `key`; `None` when the key is absent.
    fn get(&self, key: &str) -> Option<ValueRef<'_>>;
    /// Number of present entries.
    fn len(&self) -> usize;
    /// The present entries, in the object's own order (not necessarily sorted).
    fn entries(&self) -> Box<dyn Iterator<Item = (&str, ValueRef<'_>)> + '_>;
    /// Whether the object has no entries.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Whether [`ObjectView::entries`] already yields keys in canonical
    /// order (UTF-16 code units, RFC 8785), so canonical JSON need not sort
    /// them. Generated structs with only declared members say so.
    fn entries_sorted(&self) -> bool {
        false
    }
    /// Calls `f` with each present entry, in [`ObjectView::entries`] order,
    /// until `f` breaks; returns what `f` last returned. The same walk as
    /// `entries()`, without its boxed iterator: generated structs
    /// implement it allocation-free, which the `json` filter and canonical
    /// JSON ([`crate::canonical::write_canonical`]) use on the render path.
    fn for_each_entry(
        &self,
        f: &mut dyn FnMut(&str, ValueRef<'_>) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        for (key, value) in self.entries() {
            f(key, value)?;
        }
        ControlFlow::Continue(())
    }
}

/// Anything that can be viewed as a JSON value.
///
/// Implemented for the std types generated code uses, for
/// `serde_json::Value`, and by generated structs (via [`ObjectView`]).
pub trait AsValue {
    /// The value view.
    fn as_value(&self) -> ValueRef<'_>;
}

impl<T: AsValue + ?Sized> AsValue for &T {
    fn as_value(&self) -> ValueRef<'_> {
        (**self).as_value()
    }
}
impl<T: AsValue + ?Sized> AsValue for Box<T> {
    fn as_value(&self) -> ValueRef<'_> {
        (**self).as_value()
    }
}
impl AsValue for str {
    fn as_value(&self) -> ValueRef<'_> {
        ValueRef::String(self)
    }
}
impl AsValue for String {
    fn as_value(&self) -> ValueRef<'_> {
        ValueRef::String(self)
    }
}
impl AsValue for bool {
    fn as_value(&self) -> ValueRef<'_> {
        ValueRef::Bool(*self)
    }
}
macro_rules! int_as_value {
    ($($t:ty),*) => {$(
        impl AsValue for $t {
            fn as_value(&self) -> ValueRef<'_> {
                ValueRef::Number(Number::I64(i64::from(*self)))
            }
        }
    )*};
}
int_as_value!(i8, i16, i32, i64, u8, u16, u32);
impl AsValue for u64 {
    fn as_value(&self) -> ValueRef<'_> {
        ValueRef::Number(match i64::try_from(*self) {
            Ok(i) => Number::I64(i),
            Err(_) => Number::U64(*self),
        })
    }
}
impl AsValue for f64 {
    fn as_value(&self) -> ValueRef<'_> {
        ValueRef::Number(Number::F64(*self))
    }
}
impl<T: AsValue> AsValue for Option<T> {
    /// `None` views as `null`; generated structs treat an unset optional
    /// field as absent instead, by not yielding it from [`ObjectView`].
    fn as_value(&self) -> ValueRef<'_> {
        match self {
            Some(v) => v.as_value(),
            None => ValueRef::Null,
        }
    }
}
impl<T: AsValue> ArrayView for [T] {
    fn len(&self) -> usize {
        <[T]>::len(self)
    }
    fn get(&self, index: usize) -> Option<ValueRef<'_>> {
        <[T]>::get(self, index).map(AsValue::as_value)
    }
}
impl<T: AsValue> ArrayView for Vec<T> {
    fn len(&self) -> usize {
        Vec::len(self)
    }
    fn get(&self, index: usize) -> Option<ValueRef<'_>> {
        self.as_slice().get(index).map(AsValue::as_value)
    }
}
impl<T: AsValue> AsValue for Vec<T> {
    fn as_value(&self) -> ValueRef<'_> {
        ValueRef::Array(self)
    }
}
impl<T: AsValue> ArrayView for Seq<T> {
    fn len(&self) -> usize {
        self.as_slice().len()
    }
    fn get(&self, index: usize) -> Option<ValueRef<'_>> {
        self.as_slice().get(index).map(AsValue::as_value)
    }
}
impl<T: AsValue> ObjectView for BTreeMap<String, T> {
    fn get(&self, key: &str) -> Option<ValueRef<'_>> {
        BTreeMap::get(self, key).map(AsValue::as_value)
    }
    fn len(&self) -> usize {
        BTreeMap::len(self)
    }
    fn entries(&self) -> Box<dyn Iterator<Item = (&str, ValueRef<'_>)> + '_> {
        Box::new(self.iter().map(|(k, v)| (k.as_str(), v.as_value())))
    }
}
impl<T: AsValue> AsValue for BTreeMap<String, T> {
    fn as_value(&self) -> ValueRef<'_> {
        ValueRef::Object(self)
    }
}
impl<T: AsValue, S: std::hash::BuildHasher> ObjectView for HashMap<String, T, S> {
    fn get(&self, key: &str) -> Option<ValueRef<'_>> {
        HashMap::get(self, key).map(AsValue::as_value)
    }
    fn len(&self) -> usize {
        HashMap::len(self)
    }
    fn entries(&self) -> Box<dyn Iterator<Item = (&str, ValueRef<'_>)> + '_> {
        Box::new(self.iter().map(|(k, v)| (k.as_str(), v.as_value())))
    }
}
impl<T: AsValue, S: std::hash::BuildHasher> AsValue for HashMap<String, T, S> {
    fn as_value(&self) -> ValueRef<'_> {
        ValueRef::Object(self)
    }
}

impl ObjectView for serde_json::Map<String, serde_json::Value> {
    fn get(&self, key: &str) -> Option<ValueRef<'_>> {
        serde_json::Map::get(self, key).map(AsValue::as_value)
    }
    fn len(&self) -> usize {
        serde_json::Map::len(self)
    }
    fn entries(&self) -> Box<dyn Iterator<Item = (&str, ValueRef<'_>)> + '_> {
        Box::new(self.iter().map(|(k, v)| (k.as_str(), v.as_value())))
    }
}
impl AsValue for serde_json::Map<String, serde_json::Value> {
    fn as_value(&self) -> ValueRef<'_> {
        ValueRef::Object(self)
    }
}
impl AsValue for serde_json::Value {
    fn as_value(&self) -> ValueRef<'_> {
        use serde_json::Value;
        match self {
            Value::Null => ValueRef::Null,
            Value::Bool(b) => ValueRef::Bool(*b),
            Value::Number(n) => ValueRef::Number(Number::from_json(n)),
            Value::String(s) => ValueRef::String(s),
            Value::Array(a) => ValueRef::Array(a),
            Value::Object(o) => ValueRef::Object(o),
        }
    }
}

/// A generated struct's declared members as a table: what
/// `include_contract!` implements for each struct it generates, so that the
/// struct's [`ObjectView`] is the generic code of [`members`] (emitted
/// through the runtime's `object_view!` macro) instead of a hand-written
/// match per method (`docs/format.md`, "Generated Rust").
pub trait Members {
    /// The JSON names of the declared members, in canonical key order
    /// (RFC 8785: UTF-16 code units), each once.
    const NAMES: &'static [&'static str];

    /// Whether every declared member is always present (every field is
    /// required; a required nullable field is present as `null`), so the
    /// count of present members is `NAMES.len()` without asking each.
    const ALL_PRESENT: bool = false;

    /// The index in [`Members::NAMES`] of the member named `key` (a
    /// generated `match`, as fast as a hand-written lookup).
    fn index(key: &str) -> Option<usize>;

    /// The value of member `i`, an index into [`Members::NAMES`]: `None`
    /// when the member is absent (an unset optional field; a required
    /// nullable field set to `None` is present and `null`) or `i` is out of
    /// range.
    fn member(&self, i: usize) -> Option<ValueRef<'_>>;

    /// The members beyond the declared ones (`additionalProperties`), when
    /// the struct keeps them; `None` for a closed struct. A key equal to a
    /// declared name is never read from here: the declared member wins.
    fn extra(&self) -> Option<&crate::json::JsonMap> {
        None
    }
}

/// [`ObjectView`] over a [`Members`] table: the bodies of the methods of a
/// generated struct's `ObjectView`.
pub mod members {
    use super::{AsValue, Members, ValueRef};
    use std::ops::ControlFlow;

    /// A required member's value ([`Members::member`] of a field that is
    /// always present).
    pub fn required<T: AsValue + ?Sized>(field: &T) -> Option<ValueRef<'_>> {
        Some(field.as_value())
    }

    /// An optional member's value: absent when the field is `None`.
    pub fn optional<T: AsValue>(field: &Option<T>) -> Option<ValueRef<'_>> {
        field.as_ref().map(AsValue::as_value)
    }

    /// [`super::ObjectView::get`]: the declared member named `key`, else
    /// the extra member.
    pub fn get<'a, T: Members>(t: &'a T, key: &str) -> Option<ValueRef<'a>> {
        match T::index(key) {
            Some(i) => t.member(i),
            None => t.extra().and_then(|m| m.get(key)).map(AsValue::as_value),
        }
    }

    /// [`super::ObjectView::len`]: present declared members plus extra
    /// members not named like a declared one.
    pub fn len<T: Members>(t: &T) -> usize {
        let declared = if T::ALL_PRESENT {
            T::NAMES.len()
        } else {
            (0..T::NAMES.len())
                .filter(|&i| t.member(i).is_some())
                .count()
        };
        let extra = t.extra().map_or(0, |m| {
            m.keys().filter(|k| !T::NAMES.contains(&k.as_str())).count()
        });
        declared + extra
    }

    /// [`super::ObjectView::entries`]: the present declared members in
    /// canonical order, then the extra ones in the map's order.
    pub fn entries<'a, T: Members>(
        t: &'a T,
    ) -> Box<dyn Iterator<Item = (&'a str, ValueRef<'a>)> + 'a> {
        let declared = T::NAMES
            .iter()
            .enumerate()
            .filter_map(move |(i, &name)| t.member(i).map(|v| (name, v)));
        match t.extra() {
            None => Box::new(declared),
            Some(extra) => Box::new(
                declared.chain(
                    extra
                        .iter()
                        .filter(|(k, _)| !T::NAMES.contains(&k.as_str()))
                        .map(|(k, v)| (k.as_str(), v.as_value())),
                ),
            ),
        }
    }

    /// [`super::ObjectView::for_each_entry`]: [`entries`]'s walk, without
    /// a boxed iterator.
    pub fn for_each_entry<T: Members>(
        t: &T,
        f: &mut dyn FnMut(&str, ValueRef<'_>) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        for (i, &name) in T::NAMES.iter().enumerate() {
            if let Some(v) = t.member(i) {
                f(name, v)?;
            }
        }
        if let Some(extra) = t.extra() {
            for (k, v) in extra {
                if !T::NAMES.contains(&k.as_str()) {
                    f(k, v.as_value())?;
                }
            }
        }
        ControlFlow::Continue(())
    }

    /// [`super::ObjectView::entries_sorted`]: a closed struct yields its
    /// keys in canonical order.
    pub fn entries_sorted<T: Members>(t: &T) -> bool {
        t.extra().is_none()
    }
}

/// An object with no entries (the context of a contract without context fields).
pub struct EmptyObject;

impl ObjectView for EmptyObject {
    fn get(&self, _key: &str) -> Option<ValueRef<'_>> {
        None
    }
    fn len(&self) -> usize {
        0
    }
    fn entries(&self) -> Box<dyn Iterator<Item = (&str, ValueRef<'_>)> + '_> {
        Box::new(std::iter::empty())
    }
}

/// A JSON value that can live in `static` data: literals, `enum`/`const`
/// values and extension values of the compiled interaction.
#[derive(Clone, Debug, PartialEq)]
pub enum IrValue {
    /// `null`
    Null,
    /// A boolean.
    Bool(bool),
    /// A number (never a [`BigInt`] in compiled contracts, whose
    /// literals are inside the 64-bit range).
    Number(Number<'static>),
    /// A string.
    String(Str),
    /// An array.
    Array(Seq<IrValue>),
    /// An object; entries keep the source order, keys are unique.
    Object(Seq<(Str, IrValue)>),
}

impl IrValue {
    /// Converts a `serde_json::Value` (owned storage).
    pub fn from_json(v: &serde_json::Value) -> IrValue {
        use serde_json::Value;
        match v {
            Value::Null => IrValue::Null,
            Value::Bool(b) => IrValue::Bool(*b),
            Value::Number(n) => IrValue::Number(Number::from_json(n)),
            Value::String(s) => IrValue::String(Str::Owned(s.clone())),
            Value::Array(a) => {
                IrValue::Array(Seq::Owned(a.iter().map(IrValue::from_json).collect()))
            }
            Value::Object(o) => IrValue::Object(Seq::Owned(
                o.iter()
                    .map(|(k, v)| (Str::Owned(k.clone()), IrValue::from_json(v)))
                    .collect(),
            )),
        }
    }

    /// Copies the value into a `serde_json::Value`.
    pub fn to_json(&self) -> serde_json::Value {
        self.as_value().to_json()
    }
}

impl AsValue for IrValue {
    fn as_value(&self) -> ValueRef<'_> {
        match self {
            IrValue::Null => ValueRef::Null,
            IrValue::Bool(b) => ValueRef::Bool(*b),
            IrValue::Number(n) => ValueRef::Number(*n),
            IrValue::String(s) => ValueRef::String(s),
            IrValue::Array(a) => ValueRef::Array(a),
            IrValue::Object(_) => ValueRef::Object(self),
        }
    }
}

impl ObjectView for IrValue {
    fn get(&self, key: &str) -> Option<ValueRef<'_>> {
        match self {
            IrValue::Object(entries) => entries
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.as_value()),
            _ => None,
        }
    }
    fn len(&self) -> usize {
        match self {
            IrValue::Object(entries) => entries.len(),
            _ => 0,
        }
    }
    fn entries(&self) -> Box<dyn Iterator<Item = (&str, ValueRef<'_>)> + '_> {
        match self {
            IrValue::Object(entries) => {
                Box::new(entries.iter().map(|(k, v)| (k.as_ref(), v.as_value())))
            }
            _ => Box::new(std::iter::empty()),
        }
    }
}

impl serde::Serialize for IrValue {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(s)
    }
}
