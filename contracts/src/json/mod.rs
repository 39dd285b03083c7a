//! JSON documents as Templiqx reads them: [`Json`], an owned value whose
//! integers keep their exact value at any size, and [`parse`], the one
//! strict reader of JSON text (requests, model outputs, values to
//! fingerprint, scenario documents, gateway bodies).
//!
//! `serde_json::Value` rounds an integer literal beyond the 64-bit range to
//! a double, so `100000000000000000001` and `100000000000000000000` would
//! be one value with one fingerprint. [`Json`] keeps such a literal as a
//! [`BigInt`]: canonical JSON writes its digits, validation compares it
//! exactly and `format_number` prints it digit for digit
//! (`docs/decisions.md`, "Canonical JSON: exact big integers").
//!
//! `mod.rs` holds the value ([`Json`], [`JsonNumber`]) and its
//! `Serialize`; `read.rs` turns JSON text into one ([`parse`], and `Json`'s
//! `Deserialize`), `decode.rs` turns one into a typed value ([`from_json`],
//! [`DeError`]). Each of the two uses only `mod.rs`.
//!
//! ```
//! use templiqx_contracts::{canonical, json};
//!
//! let a = json::parse(r#"{"id": 100000000000000000001}"#).unwrap();
//! let b = json::parse(r#"{"id": 100000000000000000000}"#).unwrap();
//! assert_eq!(canonical::to_canonical_string(&a), r#"{"id":100000000000000000001}"#);
//! assert_ne!(canonical::fingerprint(&a), canonical::fingerprint(&b));
//! // Serialising writes the same digits back.
//! assert_eq!(serde_json::to_string(&a).unwrap(), r#"{"id":100000000000000000001}"#);
//! ```

use crate::value::{AsValue, BigInt, Number, ValueRef};
use std::collections::BTreeMap;
use std::fmt;

mod decode;
mod read;

pub use decode::{DeError, from_json};
pub use read::parse;

/// The members of a JSON object, sorted by key (as `serde_json::Map`
/// without its `preserve_order` feature).
pub type JsonMap = BTreeMap<String, Json>;

/// An owned JSON value: `serde_json::Value`'s shape, with numbers that keep
/// an integer's exact value at any size ([`JsonNumber`]).
///
/// It is what [`parse`] returns and what the runtime's adapter port,
/// the CLI, the mock and the gateway carry. It implements [`AsValue`]
/// (render, validate, fingerprint), `Serialize` (exact digits),
/// `Deserialize`, and `Deserializer` for `&Json` (typed decoding).
/// Equality is structural, as `serde_json::Value`'s: `1` and `1.0` differ
/// (use [`ValueRef::json_eq`] for JSON Schema's numeric equality).
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Json {
    /// `null`
    #[default]
    Null,
    /// `true` / `false`
    Bool(bool),
    /// A number.
    Number(JsonNumber),
    /// A string.
    String(String),
    /// An array.
    Array(Vec<Json>),
    /// An object.
    Object(JsonMap),
}

/// A JSON number held exactly: an `i64`/`u64`, a finite `f64`, or an
/// integer beyond the 64-bit range as its decimal digits ([`BigInt`]).
#[derive(Clone, Debug, PartialEq)]
pub struct JsonNumber(Repr);

#[derive(Clone, Debug, PartialEq)]
enum Repr {
    I64(i64),
    U64(u64),
    F64(f64),
    /// A literal [`BigInt::parse`] accepted.
    Big(Box<str>),
}

impl JsonNumber {
    /// The number spelled by the JSON number literal `literal` (RFC 8259
    /// section 6): an integer literal is held exactly at any size, any
    /// other literal is the nearest double. `None` when `literal` is not a
    /// JSON number or its double overflows (`1e400`).
    ///
    /// ```
    /// use templiqx_contracts::json::JsonNumber;
    /// use templiqx_contracts::Number;
    ///
    /// assert_eq!(JsonNumber::parse("-12").unwrap().as_number(), Number::I64(-12));
    /// assert_eq!(JsonNumber::parse("0.5").unwrap().as_number(), Number::F64(0.5));
    /// let big = JsonNumber::parse("123456789012345678901234567890").unwrap();
    /// assert!(matches!(big.as_number(), Number::Big(b) if b.as_str() == "123456789012345678901234567890"));
    /// assert_eq!(JsonNumber::parse("01"), None);
    /// ```
    pub fn parse(literal: &str) -> Option<JsonNumber> {
        if !is_json_number(literal) {
            return None;
        }
        if let Ok(i) = literal.parse::<i64>() {
            // `-0` is the double -0.0, as `serde_json` reads it.
            return Some(if literal == "-0" {
                JsonNumber(Repr::F64(-0.0))
            } else {
                JsonNumber(Repr::I64(i))
            });
        }
        if let Ok(u) = literal.parse::<u64>() {
            return Some(JsonNumber(Repr::U64(u)));
        }
        if let Some(big) = BigInt::parse(literal) {
            return Some(JsonNumber(Repr::Big(big.as_str().into())));
        }
        let f = literal.parse::<f64>().ok()?;
        f.is_finite().then_some(JsonNumber(Repr::F64(f)))
    }

    /// The number, borrowing a [`BigInt`]'s digits.
    pub fn as_number(&self) -> Number<'_> {
        match &self.0 {
            Repr::I64(i) => Number::I64(*i),
            Repr::U64(u) => Number::U64(*u),
            Repr::F64(f) => Number::F64(*f),
            // Every `Repr::Big` holds a literal `BigInt::parse` accepted.
            Repr::Big(digits) => Number::Big(BigInt::from_parsed_literal(digits)),
        }
    }

    /// A finite double; `None` for `NaN` and the infinities, which JSON
    /// cannot write.
    pub fn from_f64(f: f64) -> Option<JsonNumber> {
        f.is_finite().then_some(JsonNumber(Repr::F64(f)))
    }

    /// An owned copy of `n` (`None` for a non-finite double).
    pub fn from_number(n: Number<'_>) -> Option<JsonNumber> {
        Some(JsonNumber(match n {
            Number::I64(i) => Repr::I64(i),
            // `U64` only above `i64::MAX`, as every reader makes it.
            Number::U64(u) => return Some(JsonNumber::from(u)),
            Number::F64(f) => return JsonNumber::from_f64(f),
            Number::Big(b) => Repr::Big(b.as_str().into()),
        }))
    }
}

impl From<i64> for JsonNumber {
    fn from(i: i64) -> JsonNumber {
        JsonNumber(Repr::I64(i))
    }
}

impl From<i32> for JsonNumber {
    fn from(i: i32) -> JsonNumber {
        JsonNumber(Repr::I64(i.into()))
    }
}

impl From<u32> for JsonNumber {
    fn from(u: u32) -> JsonNumber {
        JsonNumber(Repr::I64(u.into()))
    }
}

impl From<u64> for JsonNumber {
    fn from(u: u64) -> JsonNumber {
        match i64::try_from(u) {
            Ok(i) => JsonNumber(Repr::I64(i)),
            Err(_) => JsonNumber(Repr::U64(u)),
        }
    }
}

impl fmt::Display for JsonNumber {
    /// The number as canonical JSON writes it (RFC 8785; a [`BigInt`]'s
    /// digits).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::canonical::write_number(self.as_number(), f)
    }
}

/// Whether `literal` is a number as RFC 8259 section 6 writes one:
/// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?`.
fn is_json_number(literal: &str) -> bool {
    let b = literal.as_bytes();
    let mut i = usize::from(b.first() == Some(&b'-'));
    let digits = |i: &mut usize| {
        let start = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i - start
    };
    let int = digits(&mut i);
    if int == 0 || (int > 1 && b[i - int] == b'0') {
        return false;
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

impl Json {
    /// The member `key` of an object; `None` for a missing key or a value
    /// that is not an object.
    pub fn get(&self, key: &str) -> Option<&Json> {
        self.as_object()?.get(key)
    }

    /// The value at an RFC 6901 JSON Pointer (`""` is the value itself).
    pub fn pointer(&self, pointer: &str) -> Option<&Json> {
        if pointer.is_empty() {
            return Some(self);
        }
        let mut at = self;
        for token in pointer.strip_prefix('/')?.split('/') {
            let token = token.replace("~1", "/").replace("~0", "~");
            at = match at {
                Json::Object(m) => m.get(&token)?,
                Json::Array(a) => a.get(token.parse::<usize>().ok()?)?,
                _ => return None,
            };
        }
        Some(at)
    }

    /// The members, when the value is an object.
    pub fn as_object(&self) -> Option<&JsonMap> {
        match self {
            Json::Object(m) => Some(m),
            _ => None,
        }
    }

    /// The elements, when the value is an array.
    pub fn as_array(&self) -> Option<&[Json]> {
        match self {
            Json::Array(a) => Some(a),
            _ => None,
        }
    }

    /// Whether the value is `null`.
    pub fn is_null(&self) -> bool {
        matches!(self, Json::Null)
    }

    /// The number, when the value is a number.
    pub fn as_number(&self) -> Option<Number<'_>> {
        match self {
            Json::Number(n) => Some(n.as_number()),
            _ => None,
        }
    }

    /// The boolean, when the value is one.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Json::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The value as an `i64`, when it is an integer in its range.
    pub fn as_i64(&self) -> Option<i64> {
        match self.as_number()? {
            Number::I64(i) => Some(i),
            Number::U64(_) | Number::F64(_) | Number::Big(_) => None,
        }
    }

    /// The number as the nearest double ([`Number::as_f64`]), when the
    /// value is a number.
    pub fn as_f64(&self) -> Option<f64> {
        self.as_number().map(Number::as_f64)
    }

    /// The value as a `u64`, when it is an integer in its range.
    pub fn as_u64(&self) -> Option<u64> {
        match self.as_number()? {
            Number::I64(i) => u64::try_from(i).ok(),
            Number::U64(u) => Some(u),
            Number::F64(_) | Number::Big(_) => None,
        }
    }

    /// The text, when the value is a string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(s) => Some(s),
            _ => None,
        }
    }

    /// An owned copy of any viewed value (a non-finite double, which only
    /// a typed `f64` can hold, becomes `null`, as `serde_json` writes it).
    pub fn from_value(v: ValueRef<'_>) -> Json {
        match v {
            ValueRef::Null => Json::Null,
            ValueRef::Bool(b) => Json::Bool(b),
            ValueRef::Number(n) => JsonNumber::from_number(n).map_or(Json::Null, Json::Number),
            ValueRef::String(s) => Json::String(s.to_owned()),
            ValueRef::Array(a) => Json::Array(
                (0..a.len())
                    .filter_map(|i| a.get(i))
                    .map(Json::from_value)
                    .collect(),
            ),
            ValueRef::Object(o) => Json::Object(
                o.entries()
                    .map(|(k, v)| (k.to_owned(), Json::from_value(v)))
                    .collect(),
            ),
        }
    }
}

impl std::ops::Index<&str> for Json {
    type Output = Json;

    /// The member `key`, or `null` when it is missing or the value is not
    /// an object (as `serde_json::Value` indexes).
    fn index(&self, key: &str) -> &Json {
        static NULL: Json = Json::Null;
        self.get(key).unwrap_or(&NULL)
    }
}

impl std::ops::Index<usize> for Json {
    type Output = Json;

    /// The element `i`, or `null` when it is missing or the value is not
    /// an array (as `serde_json::Value` indexes).
    fn index(&self, i: usize) -> &Json {
        static NULL: Json = Json::Null;
        self.as_array().and_then(|a| a.get(i)).unwrap_or(&NULL)
    }
}

impl AsValue for Json {
    fn as_value(&self) -> ValueRef<'_> {
        match self {
            Json::Null => ValueRef::Null,
            Json::Bool(b) => ValueRef::Bool(*b),
            Json::Number(n) => ValueRef::Number(n.as_number()),
            Json::String(s) => ValueRef::String(s),
            Json::Array(a) => ValueRef::Array(a),
            Json::Object(o) => ValueRef::Object(o),
        }
    }
}

impl fmt::Display for Json {
    /// Compact JSON text (members in key order, numbers exact).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = serde_json::to_string(self).map_err(|_| fmt::Error)?;
        f.write_str(&text)
    }
}

impl From<serde_json::Value> for Json {
    fn from(v: serde_json::Value) -> Json {
        use serde_json::Value;
        match v {
            Value::Null => Json::Null,
            Value::Bool(b) => Json::Bool(b),
            Value::Number(n) => {
                JsonNumber::from_number(Number::from_json(&n)).map_or(Json::Null, Json::Number)
            }
            Value::String(s) => Json::String(s),
            Value::Array(a) => Json::Array(a.into_iter().map(Json::from).collect()),
            Value::Object(o) => Json::Object(o.into_iter().map(|(k, v)| (k, v.into())).collect()),
        }
    }
}

impl PartialEq<serde_json::Value> for Json {
    /// Structural equality with the same value read as `Json` (a
    /// `serde_json::Value` holds no [`BigInt`]).
    fn eq(&self, other: &serde_json::Value) -> bool {
        use serde_json::Value;
        match (self, other) {
            (Json::Null, Value::Null) => true,
            (Json::Bool(a), Value::Bool(b)) => a == b,
            (Json::Number(a), Value::Number(b)) => {
                JsonNumber::from_number(Number::from_json(b)).as_ref() == Some(a)
            }
            (Json::String(a), Value::String(b)) => a == b,
            (Json::Array(a), Value::Array(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
            }
            (Json::Object(a), Value::Object(b)) => {
                a.len() == b.len() && a.iter().all(|(k, v)| b.get(k).is_some_and(|w| v == w))
            }
            _ => false,
        }
    }
}

impl PartialEq<str> for Json {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == Some(other)
    }
}

impl PartialEq<&str> for Json {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == Some(*other)
    }
}

impl PartialEq<String> for Json {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == Some(other.as_str())
    }
}

impl PartialEq<bool> for Json {
    fn eq(&self, other: &bool) -> bool {
        matches!(self, Json::Bool(b) if b == other)
    }
}

/// `json == 1`: a number equal to the integer (`1.0` included, as JSON
/// Schema counts it).
macro_rules! json_eq_number {
    ($($t:ty => $v:ident),* $(,)?) => {$(
        impl PartialEq<$t> for Json {
            fn eq(&self, other: &$t) -> bool {
                self.as_number().is_some_and(|n| n.numeric_eq(Number::$v((*other).into())))
            }
        }
    )*};
}
json_eq_number!(i32 => I64, i64 => I64, u32 => I64, u64 => U64, f64 => F64);

macro_rules! json_from {
    ($($t:ty => $v:ident),* $(,)?) => {$(
        impl From<$t> for Json {
            fn from(x: $t) -> Json {
                Json::$v(x.into())
            }
        }
    )*};
}
json_from!(
    bool => Bool, String => String, &str => String,
    i32 => Number, i64 => Number, u32 => Number, u64 => Number,
);

impl From<Vec<Json>> for Json {
    fn from(a: Vec<Json>) -> Json {
        Json::Array(a)
    }
}

impl From<JsonMap> for Json {
    fn from(o: JsonMap) -> Json {
        Json::Object(o)
    }
}
// ---------------------------------------------------------------------------
// serde: `Serialize` (`Deserialize` is in `read.rs`)

impl serde::Serialize for JsonNumber {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.as_number() {
            Number::I64(i) => s.serialize_i64(i),
            Number::U64(u) => s.serialize_u64(u),
            Number::F64(f) => s.serialize_f64(f),
            Number::Big(b) => {
                if let Ok(i) = b.as_str().parse::<i128>() {
                    s.serialize_i128(i)
                } else if let Ok(u) = b.as_str().parse::<u128>() {
                    s.serialize_u128(u)
                } else {
                    // `serde_json` writes a raw value's text as is; other
                    // formats see a newtype holding the digits.
                    let raw = serde_json::value::RawValue::from_string(b.as_str().to_owned())
                        .map_err(serde::ser::Error::custom)?;
                    raw.serialize(s)
                }
            }
        }
    }
}

impl serde::Serialize for Json {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeMap, SerializeSeq};
        match self {
            Json::Null => s.serialize_unit(),
            Json::Bool(b) => s.serialize_bool(*b),
            Json::Number(n) => n.serialize(s),
            Json::String(v) => s.serialize_str(v),
            Json::Array(a) => {
                let mut seq = s.serialize_seq(Some(a.len()))?;
                for v in a {
                    seq.serialize_element(v)?;
                }
                seq.end()
            }
            Json::Object(o) => {
                let mut map = s.serialize_map(Some(o.len()))?;
                for (k, v) in o {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accessors_read_what_the_value_holds() {
        let v = parse(r#"{"t": true, "i": -3, "u": 18446744073709551615, "f": 0.5, "b": 100000000000000000001, "s": "x", "a": [null]}"#).unwrap();
        assert_eq!(v["t"].as_bool(), Some(true));
        assert_eq!((v["i"].as_i64(), v["i"].as_u64()), (Some(-3), None));
        assert_eq!((v["u"].as_i64(), v["u"].as_u64()), (None, Some(u64::MAX)));
        assert_eq!((v["b"].as_i64(), v["b"].as_u64()), (None, None));
        assert_eq!(v["b"].as_f64(), Some(1e20));
        assert_eq!(v["f"].as_f64(), Some(0.5));
        assert_eq!(v["s"], "x");
        assert!(v["a"][0].is_null() && v["a"][9].is_null() && v["missing"].is_null());
        assert_eq!(v.pointer("/a/0"), Some(&Json::Null));
        assert_eq!(v.pointer("/a/x"), None);
        assert!(v["i"] == -3 && v["f"] == 0.5 && v["b"] != 1e20);
    }

    #[test]
    fn numbers_parse_as_rfc_8259_writes_them() {
        for good in ["0", "-0", "1.5", "-1e-3", "2E+10", "18446744073709551615"] {
            assert!(JsonNumber::parse(good).is_some(), "{good}");
        }
        for bad in [
            "", "-", "+1", "01", "1.", ".5", "1e", "1e+", "0x10", "1e400", "--1",
        ] {
            assert_eq!(JsonNumber::parse(bad), None, "{bad}");
        }
    }
}
