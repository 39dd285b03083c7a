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

use crate::diagnostic::{Code, Diagnostic, Position, Span, position};
use crate::value::{AsValue, BigInt, Number, ValueRef};
use serde::de::{self, IntoDeserializer};
use std::cell::Cell;
use std::collections::BTreeMap;
use std::fmt;

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
// serde

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

impl<'de> serde::Deserialize<'de> for Json {
    /// Reads any self-describing format; integers wider than 64 bits keep
    /// their value when the format hands them over (`i128`/`u128`, and any
    /// width from `&Json`). `serde_json` rounds an integer literal beyond
    /// 64 bits to a double before a visitor sees it: read JSON text with
    /// [`parse`] instead. An object that repeats a key is an error.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Json, D::Error> {
        d.deserialize_any(JsonVisitor { literals: None })
    }
}

/// Builds a [`Json`]; with `literals`, the integers beyond 64 bits that
/// [`parse`] blanked in the text, taken back as their numbers are visited.
#[derive(Clone, Copy)]
struct JsonVisitor<'t> {
    literals: Option<&'t BigLiterals<'t>>,
}

impl<'de> de::DeserializeSeed<'de> for JsonVisitor<'_> {
    type Value = Json;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Json, D::Error> {
        d.deserialize_any(self)
    }
}

impl JsonVisitor<'_> {
    /// A number from the source text: `serde_json` has just visited it.
    fn number(self, read: JsonNumber) -> JsonNumber {
        // A literal beyond 64 bits was read as `0` ([`blank_big_integers`]).
        match self.literals.and_then(BigLiterals::visit_number) {
            Some(literal) => JsonNumber(Repr::Big(literal.into())),
            None => read,
        }
    }

    /// An integer a format hands over wider than 64 bits (`i128`, `u128`,
    /// or `&Json`'s newtype of digits).
    fn wide<E: de::Error>(self, digits: String) -> Result<Json, E> {
        let integer = JsonNumber::parse(&digits).filter(|n| !matches!(n.0, Repr::F64(_)));
        let n = integer.ok_or_else(|| E::custom(format_args!("invalid integer `{digits}`")))?;
        Ok(Json::Number(n))
    }
}

impl<'de> de::Visitor<'de> for JsonVisitor<'_> {
    type Value = Json;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Json, E> {
        Ok(Json::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Json, E> {
        Ok(Json::Number(self.number(v.into())))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Json, E> {
        Ok(Json::Number(self.number(v.into())))
    }

    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Json, E> {
        self.wide(v.to_string())
    }

    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Json, E> {
        self.wide(v.to_string())
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Json, E> {
        let n = JsonNumber::from_f64(v)
            .ok_or_else(|| E::custom(format_args!("non-finite number {v}")))?;
        Ok(Json::Number(self.number(n)))
    }

    fn visit_str<E>(self, v: &str) -> Result<Json, E> {
        Ok(Json::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Json, E> {
        Ok(Json::String(v))
    }

    fn visit_unit<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_none<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_some<D: de::Deserializer<'de>>(self, d: D) -> Result<Json, D::Error> {
        d.deserialize_any(self)
    }

    /// A [`BigInt`] from `&Json`'s `Deserializer`: its digits.
    fn visit_newtype_struct<D: de::Deserializer<'de>>(self, d: D) -> Result<Json, D::Error> {
        let digits = <String as serde::Deserialize>::deserialize(d)?;
        self.wide(digits)
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut items = Vec::new();
        while let Some(v) = seq.next_element_seed(self)? {
            items.push(v);
        }
        Ok(Json::Array(items))
    }

    fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut object = JsonMap::new();
        while let Some(key) = map.next_key::<String>()? {
            if object.contains_key(&key) {
                return Err(de::Error::custom(format_args!(
                    "duplicate key `{key}` in an object"
                )));
            }
            let value = map.next_value_seed(self)?;
            object.insert(key, value);
        }
        Ok(Json::Object(object))
    }
}

/// The number tokens of a JSON text, in order, as (byte offset, text): a
/// run of number characters that starts with `-` or a digit outside a
/// string. On JSON text these are exactly the numbers `serde_json` visits,
/// in the order it visits them; on other text the parse fails anyway.
fn number_tokens(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let bytes = text.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        let mut in_string = false;
        while i < bytes.len() {
            let b = bytes[i];
            if in_string {
                match b {
                    b'\\' => i += 1,
                    b'"' => in_string = false,
                    _ => {}
                }
            } else if b == b'"' {
                in_string = true;
            } else if b == b'-' || b.is_ascii_digit() {
                let start = i;
                while i < bytes.len()
                    && matches!(bytes[i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                {
                    i += 1;
                }
                return Some((start, &text[start..i]));
            }
            i += 1;
        }
        None
    })
}

/// The integer literals beyond 64 bits of a text, each with its index among
/// the text's numbers, handed back as `serde_json` visits the numbers.
struct BigLiterals<'t> {
    /// (index among the number tokens, literal), in text order.
    found: Vec<(usize, &'t str)>,
    /// Numbers visited so far.
    visited: Cell<usize>,
    /// Entries of `found` handed back so far.
    taken: Cell<usize>,
}

impl<'t> BigLiterals<'t> {
    /// Counts one visited number; its literal when it is one of `found`.
    fn visit_number(&self) -> Option<&'t str> {
        let index = self.visited.get();
        self.visited.set(index + 1);
        let &(at, literal) = self.found.get(self.taken.get())?;
        (at == index).then(|| {
            self.taken.set(self.taken.get() + 1);
            literal
        })
    }
}

/// `text` with every integer literal beyond 64 bits ([`BigInt::parse`])
/// replaced by `0` and spaces, byte for byte, so `serde_json` neither
/// rounds nor refuses it (borrowed when there is none), and those literals.
fn blank_big_integers(text: &str) -> (std::borrow::Cow<'_, str>, BigLiterals<'_>) {
    let mut out: Option<String> = None;
    let mut found = Vec::new();
    for (index, (start, literal)) in number_tokens(text).enumerate() {
        if BigInt::parse(literal).is_some() {
            let out = out.get_or_insert_with(|| text.to_owned());
            // ASCII for ASCII: the byte length, hence every offset, stays.
            let blank = format!("0{}", " ".repeat(literal.len() - 1));
            out.replace_range(start..start + literal.len(), &blank);
            found.push((index, literal));
        }
    }
    let literals = BigLiterals {
        found,
        visited: Cell::new(0),
        taken: Cell::new(0),
    };
    let read = out.map_or(std::borrow::Cow::Borrowed(text), std::borrow::Cow::Owned);
    (read, literals)
}

/// Parses JSON `text` as every JSON document Templiqx reads is parsed
/// (requests, model outputs, values to fingerprint, scenario documents and
/// inventories, gateway bodies): exactly one value (RFC 8259); no object
/// key twice (canonical JSON, RFC 8785, is over I-JSON, which has none, and
/// keeping one of two values would give two different documents one
/// fingerprint); every integer exact at any size ([`JsonNumber`]). A
/// leading byte order mark is the caller's to strip.
///
/// ```
/// use templiqx_contracts::json::parse;
///
/// let v = parse("{\"a\": [1, 2.5, -18446744073709551616]}").unwrap();
/// assert_eq!(v.pointer("/a/2").unwrap().to_string(), "-18446744073709551616");
/// let d = parse("{\"a\": 1,\n \"a\": 2}").unwrap_err();
/// assert_eq!(d.message, "invalid JSON: duplicate key `a` in an object");
/// let start = d.span.unwrap().start;
/// assert_eq!((start.line, start.column), (2, 4)); // the key's closing quote
/// ```
///
/// # Errors
/// `TQX_PARSE_JSON` with no file (the caller knows it), spanning the place
/// the parser stopped at — counted as Templiqx counts lines and columns:
/// characters, and every YAML line break
/// ([`position`]) — with a help for the kind
/// of problem.
pub fn parse(text: &str) -> Result<Json, Diagnostic> {
    // `serde_json` reads an integer beyond 64 bits as a double, and refuses
    // one beyond `f64::MAX` ("number out of range"): it reads `0` padded
    // with spaces instead, so places in the text stay where they are, and
    // the visitor takes the digits back. Without one, it only builds.
    let (read, literals) = blank_big_integers(text);
    let visitor = JsonVisitor {
        literals: (!literals.found.is_empty()).then_some(&literals),
    };
    let mut reader = serde_json::Deserializer::from_str(&read);
    let value = de::DeserializeSeed::deserialize(visitor, &mut reader)
        .and_then(|v| reader.end().map(|()| v));
    value.map_err(|e| json_error(text, &e))
}

/// The `TQX_PARSE_JSON` diagnostic for a `serde_json` error over `text`.
fn json_error(text: &str, e: &serde_json::Error) -> Diagnostic {
    let full = e.to_string();
    // serde_json's text is the message then, when it knows the place,
    // " at line L column C": the span carries the place instead.
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    let message = full.strip_suffix(&suffix).unwrap_or(&full);
    let help = if e.classify() == serde_json::error::Category::Data {
        // The only data errors are the strict reader's own.
        "remove or rename one of the two members: canonical JSON (RFC 8785) has one value per key"
    } else {
        "write exactly one well-formed JSON value (RFC 8259)"
    };
    let mut d = Diagnostic::error(Code::ParseJson, format!("invalid JSON: {message}")).help(help);
    if e.line() > 0 {
        let offset = json_offset(text, e.line(), e.column());
        let start = position(text, offset);
        d.span = Some(Span {
            start,
            end: Position {
                line: start.line,
                column: start.column.saturating_add(1),
            },
            bytes: (offset, offset),
        });
    }
    d
}

/// The byte offset in `text` of a position as `serde_json` reports it: a
/// 1-based line counting `\n` only, and a column counting bytes (the last
/// byte read; 0 at the start of a line).
fn json_offset(text: &str, line: usize, column: usize) -> usize {
    let line_start = if line <= 1 {
        0
    } else {
        text.match_indices('\n')
            .nth(line - 2)
            .map_or(text.len(), |(i, _)| i + 1)
    };
    line_start
        .saturating_add(column.saturating_sub(1))
        .min(text.len())
}

/// Why a [`Json`] does not decode into a typed value: the error of
/// [`from_json`] and of `Json`'s `Deserializer`s (scenario documents,
/// generated `Inputs`/`Context`/`Output`, `decode_output`).
///
/// serde's own messages (`invalid type: string "x", expected u32`), with
/// JSON's word for JSON's value: `null`, where serde's data model says
/// `unit value` (`invalid type: null, expected u64`), as `serde_json` does.
/// Whatever the nesting (a struct field, an array item, a member of an
/// internally tagged enum, which serde buffers first), a `null` is named
/// `null` in every `invalid type` and `invalid value` message.
///
/// ```
/// use templiqx_contracts::json::{from_json, parse};
///
/// let v = parse(r#"{"delay_ms": null}"#).unwrap();
/// #[derive(Debug, serde::Deserialize)]
/// struct Step { delay_ms: u64 }
/// let e = from_json::<Step>(&v).unwrap_err();
/// assert_eq!(e.to_string(), "invalid type: null, expected u64");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeError(Box<str>);

impl fmt::Display for DeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DeError {}

/// A value as serde's messages name it, in JSON's words: `null` for serde's
/// unit (the one value JSON's `null` deserialises as), serde's own words
/// for everything else.
struct JsonWords<'a>(de::Unexpected<'a>);

impl fmt::Display for JsonWords<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            de::Unexpected::Unit => f.write_str("null"),
            other => fmt::Display::fmt(&other, f),
        }
    }
}

impl de::Error for DeError {
    fn custom<T: fmt::Display>(message: T) -> DeError {
        DeError(message.to_string().into_boxed_str())
    }

    fn invalid_type(unexpected: de::Unexpected<'_>, expected: &dyn de::Expected) -> DeError {
        DeError::custom(format_args!(
            "invalid type: {}, expected {expected}",
            JsonWords(unexpected)
        ))
    }

    fn invalid_value(unexpected: de::Unexpected<'_>, expected: &dyn de::Expected) -> DeError {
        DeError::custom(format_args!(
            "invalid value: {}, expected {expected}",
            JsonWords(unexpected)
        ))
    }
}

/// Decodes `value` into `T`, as `serde_json::from_value` does for a
/// `serde_json::Value` (through `&Json`'s `Deserializer`, below).
///
/// ```
/// use templiqx_contracts::json::{from_json, parse};
///
/// let v = parse(r#"{"a": [1, 2]}"#).unwrap();
/// let m: std::collections::BTreeMap<String, Vec<u8>> = from_json(&v).unwrap();
/// assert_eq!(m["a"], [1, 2]);
/// ```
///
/// # Errors
/// serde's message when `value` does not have `T`'s shape, a `null` named
/// `null` ([`DeError`]).
pub fn from_json<T: serde::de::DeserializeOwned>(value: &Json) -> Result<T, DeError> {
    T::deserialize(value)
}

/// `deserialize_i8` … `deserialize_u64` of `&Json`: a [`BigInt`] is out of
/// their range, said in serde's words (`invalid value: integer
/// `100000000000000000001`, expected i64`).
macro_rules! narrow_integers {
    ($($method:ident)*) => {$(
        fn $method<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
            match self.as_number() {
                Some(Number::Big(b)) => Err(de::Error::invalid_value(
                    de::Unexpected::Other(&format!("integer `{b}`")),
                    &visitor,
                )),
                _ => self.deserialize_any(visitor),
            }
        }
    )*};
}

/// `&Json` as a serde `Deserializer`, for decoding a value into a typed
/// structure (generated `Output` types, scenario documents). Errors are
/// serde's own messages (`invalid type: string "x", expected u32`), with
/// `null` for JSON's `null` ([`DeError`]).
/// Strings are handed over as copies (`visit_str`), so the value need not
/// outlive the deserialiser's `'de`.
///
/// A [`BigInt`] decodes into `i128`/`u128` when it fits, into `f64` as the
/// nearest double (what a typed `f64` holds; an error beyond `f64::MAX`),
/// and into [`Json`] exactly at any size.
impl<'de> de::Deserializer<'de> for &Json {
    type Error = DeError;

    fn deserialize_any<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self {
            Json::Null => visitor.visit_unit(),
            Json::Bool(b) => visitor.visit_bool(*b),
            Json::Number(n) => match n.as_number() {
                Number::I64(i) => visitor.visit_i64(i),
                Number::U64(u) => visitor.visit_u64(u),
                Number::F64(f) => visitor.visit_f64(f),
                // A newtype holding the digits: serde's data model has no
                // integer wider than 128 bits, and its buffering of untagged
                // and internally tagged enums none wider than 64. No text
                // format hands a newtype to `deserialize_any`, so no
                // document can forge one (a map with a marker key could);
                // any other type refuses it.
                Number::Big(b) => visitor.visit_newtype_struct(
                    de::IntoDeserializer::<DeError>::into_deserializer(b.as_str()),
                ),
            },
            Json::String(s) => visitor.visit_str(s),
            Json::Array(a) => visitor.visit_seq(de::value::SeqDeserializer::new(a.iter())),
            Json::Object(o) => visitor.visit_map(de::value::MapDeserializer::new(
                o.iter().map(|(k, v)| (k.as_str(), v)),
            )),
        }
    }

    fn deserialize_f64<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self.as_number() {
            // A `BigInt` beyond `f64::MAX` has no nearest double.
            Some(Number::Big(b)) if !b.to_f64().is_finite() => Err(de::Error::invalid_value(
                de::Unexpected::Other(&format!("integer `{b}`")),
                &visitor,
            )),
            Some(n) => visitor.visit_f64(n.as_f64()),
            None => self.deserialize_any(visitor),
        }
    }

    fn deserialize_f32<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        self.deserialize_f64(visitor)
    }

    narrow_integers!(
        deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64
    );

    fn deserialize_i128<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self.wide_integer() {
            Some(Ok(i)) => visitor.visit_i128(i),
            Some(Err(u)) => visitor.visit_u128(u),
            None => self.deserialize_any(visitor),
        }
    }

    fn deserialize_u128<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        self.deserialize_i128(visitor)
    }

    fn deserialize_option<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self {
            Json::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: de::Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: de::Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        match self {
            Json::String(s) => visitor.visit_enum(s.as_str().into_deserializer()),
            Json::Object(o) if o.len() == 1 => {
                visitor.visit_enum(de::value::MapAccessDeserializer::new(
                    de::value::MapDeserializer::new(o.iter().map(|(k, v)| (k.as_str(), v))),
                ))
            }
            _ => self.deserialize_any(visitor),
        }
    }

    fn deserialize_ignored_any<V: de::Visitor<'de>>(
        self,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        visitor.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        bool char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map struct identifier
    }
}

impl Json {
    /// A [`BigInt`] that `i128` (`Ok`) or `u128` (`Err`) holds.
    fn wide_integer(&self) -> Option<Result<i128, u128>> {
        let Json::Number(n) = self else { return None };
        let Number::Big(b) = n.as_number() else {
            return None;
        };
        match b.as_str().parse::<i128>() {
            Ok(i) => Some(Ok(i)),
            Err(_) => b.as_str().parse::<u128>().ok().map(Err),
        }
    }
}

impl<'de> IntoDeserializer<'de, DeError> for &Json {
    type Deserializer = Self;

    fn into_deserializer(self) -> Self {
        self
    }
}

/// The methods of `Json`'s `Deserializer` that take only a visitor: each
/// is `&Json`'s.
macro_rules! by_reference {
    ($($method:ident)*) => {$(
        fn $method<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
            (&self).$method(visitor)
        }
    )*};
}

/// An owned [`Json`] as a serde `Deserializer`: every method is `&Json`'s.
impl<'de> de::Deserializer<'de> for Json {
    type Error = DeError;

    by_reference! {
        deserialize_any deserialize_bool deserialize_char deserialize_str deserialize_string
        deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_i128
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_u128
        deserialize_f32 deserialize_f64 deserialize_bytes deserialize_byte_buf
        deserialize_option deserialize_unit deserialize_seq deserialize_map
        deserialize_identifier deserialize_ignored_any
    }

    fn deserialize_unit_struct<V: de::Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        (&self).deserialize_unit_struct(name, visitor)
    }

    fn deserialize_newtype_struct<V: de::Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        (&self).deserialize_newtype_struct(name, visitor)
    }

    fn deserialize_tuple<V: de::Visitor<'de>>(
        self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        (&self).deserialize_tuple(len, visitor)
    }

    fn deserialize_tuple_struct<V: de::Visitor<'de>>(
        self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        (&self).deserialize_tuple_struct(name, len, visitor)
    }

    fn deserialize_struct<V: de::Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        (&self).deserialize_struct(name, fields, visitor)
    }

    fn deserialize_enum<V: de::Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        (&self).deserialize_enum(name, variants, visitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::canonical::{fingerprint, to_canonical_string};

    #[test]
    fn integer_literals_of_any_size_are_exact() {
        for literal in [
            "100000000000000000001",
            "-100000000000000000001",
            "18446744073709551616",
            "-9223372036854775809",
            "340282366920938463463374607431768211457",
            "123456789012345678901234567890123456789012345678901234567890",
        ] {
            let text = format!("[{literal}, 1]");
            let v = parse(&text).unwrap();
            assert_eq!(to_canonical_string(&v), format!("[{literal},1]"));
            assert_eq!(serde_json::to_string(&v).unwrap(), format!("[{literal},1]"));
            // Through `&Json`'s Deserializer and back.
            let again: Json = serde::Deserialize::deserialize(&v).unwrap();
            assert_eq!(again, v, "{literal}");
        }
    }

    #[test]
    fn no_document_can_forge_a_big_integer() {
        // Whatever a marker looked like, a document's object stays an
        // object, and the numbers after it stay in place.
        for key in ["$templiqx::json::BigInt", "$serde_json::private::Number"] {
            let text = format!(r#"[{{"{key}": "5"}}, 100000000000000000001, 7]"#);
            let v = parse(&text).unwrap();
            assert_eq!(
                to_canonical_string(&v),
                format!(r#"[{{"{key}":"5"}},100000000000000000001,7]"#)
            );
            let through_serde: Json = serde_json::from_str(&text).unwrap();
            assert!(through_serde[0].as_object().is_some(), "{key}");
        }
        // A newtype is how `&Json` hands over a `BigInt`; digits only.
        let bad = de::value::StrDeserializer::<de::value::Error>::new("1.5");
        let e = de::Visitor::visit_newtype_struct(JsonVisitor { literals: None }, bad);
        assert_eq!(e.unwrap_err().to_string(), "invalid integer `1.5`");
    }

    #[test]
    fn neighbours_beyond_64_bits_have_different_fingerprints() {
        let a = parse("[100000000000000000001]").unwrap();
        let b = parse("[100000000000000000000]").unwrap();
        let c = parse("[1e20]").unwrap();
        assert_ne!(fingerprint(&a), fingerprint(&b));
        // `1e20` is the double whose canonical spelling is b's digits.
        assert_eq!(fingerprint(&b), fingerprint(&c));
        assert!(a.as_value().json_eq(&a.as_value()));
        assert!(!a.as_value().json_eq(&b.as_value()));
        assert!(b.as_value().json_eq(&c.as_value()));
    }

    #[test]
    fn literals_inside_strings_and_keys_do_not_shift_the_numbers() {
        let text =
            r#"{"1": "-2 \" 3", "k": [99999999999999999999999, "4e5", 0.5, -0, 7], "z": 1e400}"#;
        assert_eq!(parse(text).unwrap_err().code, Code::ParseJson);
        let text = r#"{"1": "-2 \" 3", "k": [99999999999999999999999, "4e5", 0.5, -0, 7]}"#;
        assert_eq!(
            to_canonical_string(&parse(text).unwrap()),
            r#"{"1":"-2 \" 3","k":[99999999999999999999999,"4e5",0.5,0,7]}"#
        );
    }

    #[test]
    fn malformed_text_and_duplicate_keys_are_refused() {
        for text in ["", "[1,]", "{\"a\": 1} 2", "01", "[-]", "{\"a\":1,\"a\":1}"] {
            let d = parse(text).unwrap_err();
            assert_eq!(d.code, Code::ParseJson, "{text}");
            assert!(d.message.starts_with("invalid JSON: "), "{text}: {d}");
        }
    }

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

    #[test]
    fn typed_decoding_reads_big_integers_where_a_type_can_hold_them() {
        let v = parse(r#"{"a": 170141183460469231731687303715884105727, "b": 100000000000000000001, "c": 123456789012345678901234567890123456789012}"#).unwrap();
        #[derive(serde::Deserialize)]
        struct T {
            a: i128,
            b: f64,
            c: Json,
        }
        let t = T::deserialize(&v).unwrap();
        assert_eq!(t.a, i128::MAX);
        assert_eq!(t.b, 1e20);
        assert_eq!(
            t.c.to_string(),
            "123456789012345678901234567890123456789012"
        );
        // A type that cannot hold the value says so.
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct Narrow {
            b: i64,
        }
        let e = Narrow::deserialize(&v).unwrap_err().to_string();
        assert_eq!(
            e,
            "invalid value: integer `100000000000000000001`, expected i64"
        );
        // An owned value reads as a borrowed one does.
        let e = Narrow::deserialize(v.clone()).unwrap_err().to_string();
        assert_eq!(
            e,
            "invalid value: integer `100000000000000000001`, expected i64"
        );
        let t = T::deserialize(v.clone()).unwrap();
        assert_eq!((t.a, t.c.to_string().len()), (i128::MAX, 42));
        // Beyond `f64::MAX` there is no nearest double: refused, not `inf`.
        let huge = parse(&format!(r#"{{"a": 1, "b": {}, "c": 1}}"#, "9".repeat(400))).unwrap();
        let e = T::deserialize(&huge).err().unwrap().to_string();
        assert!(
            e.starts_with("invalid value: integer `999") && e.ends_with("expected f64"),
            "{e}"
        );
    }

    use serde::Deserialize as _;

    #[test]
    fn a_null_is_named_null_at_any_nesting() {
        // serde's data model calls it "unit value"; JSON calls it null.
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct Step {
            delay_ms: u64,
        }
        #[derive(Debug, serde::Deserialize)]
        #[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
        #[allow(dead_code)]
        enum Tagged {
            Delay { id: String, delay_ms: u64 },
        }
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct Doc {
            steps: Vec<Tagged>,
            items: Vec<String>,
            nested: Option<Step>,
        }
        let null = "invalid type: null, expected u64";
        let v = parse(r#"{"delay_ms": null}"#).unwrap();
        assert_eq!(from_json::<Step>(&v).unwrap_err().to_string(), null);
        assert_eq!(Step::deserialize(v).unwrap_err().to_string(), null);
        assert_eq!(from_json::<u64>(&Json::Null).unwrap_err().to_string(), null);
        // Inside an internally tagged enum (buffered by serde first).
        let v = parse(r#"{"steps": [{"kind": "delay", "id": "d", "delay_ms": null}], "items": [], "nested": null}"#).unwrap();
        assert_eq!(from_json::<Doc>(&v).unwrap_err().to_string(), null);
        // An array item, a nested struct.
        let v = parse(r#"{"steps": [], "items": ["a", null], "nested": null}"#).unwrap();
        assert_eq!(
            from_json::<Doc>(&v).unwrap_err().to_string(),
            "invalid type: null, expected a string"
        );
        let v = parse(r#"{"steps": [], "items": [], "nested": {"delay_ms": null}}"#).unwrap();
        assert_eq!(from_json::<Doc>(&v).unwrap_err().to_string(), null);
        let v = parse(r#"{"steps": null, "items": [], "nested": null}"#).unwrap();
        assert_eq!(
            from_json::<Doc>(&v).unwrap_err().to_string(),
            "invalid type: null, expected a sequence"
        );
        // `invalid value` names it the same way; other values keep serde's words.
        let e: DeError = de::Error::invalid_value(de::Unexpected::Unit, &"a step");
        assert_eq!(e.to_string(), "invalid value: null, expected a step");
        let v = parse(r#"{"delay_ms": "5"}"#).unwrap();
        assert_eq!(
            from_json::<Step>(&v).unwrap_err().to_string(),
            "invalid type: string \"5\", expected u64"
        );
    }

    #[test]
    fn json_offsets_map_byte_columns_to_characters() {
        let text = "{\n\"é\": 1,}";
        // serde_json reports the trailing comma at the `}`: line 2, byte
        // column 9; it is character 8.
        let offset = json_offset(text, 2, 9);
        assert_eq!(&text[offset..=offset], "}");
        assert_eq!(
            {
                let p = position(text, offset);
                (p.line, p.column)
            },
            (2, 8)
        );
        assert_eq!(json_offset(text, 2, 0), 2);
        assert_eq!(json_offset(text, 9, 9), text.len());
    }

    #[test]
    fn bad_json_is_located_and_the_place_leaves_the_message() {
        let d = parse("{\n  \"a\": 1,\n}").unwrap_err();
        assert_eq!(d.code, Code::ParseJson);
        assert_eq!(d.message, "invalid JSON: trailing comma");
        assert_eq!(d.span.unwrap().start.line, 3);
        assert_eq!(d.file, None);
        let d = parse("").unwrap_err();
        assert_eq!(d.message, "invalid JSON: EOF while parsing a value");
        assert_eq!(
            d.help.as_deref(),
            Some("write exactly one well-formed JSON value (RFC 8259)")
        );
    }

    #[test]
    fn json_columns_count_characters_and_lines_end_at_any_break() {
        // serde_json reports the trailing comma at the `}`, byte column 12;
        // it is character 10.
        let d = parse("{\"éé\": 1,}").unwrap_err();
        let start = d.span.unwrap().start;
        assert_eq!((start.line, start.column), (1, 10));
        // A lone `\r` ends a line, as in YAML and in the snippet.
        let d = parse("{\r\"a\": 1 x\r}").unwrap_err();
        let start = d.span.unwrap().start;
        assert_eq!((start.line, start.column), (2, 8));
        let d = parse("[\r\r1e400]").unwrap_err();
        let span = d.span.unwrap();
        assert_eq!(span.start.line, 3);
    }

    #[test]
    fn duplicate_keys_are_rejected_at_any_depth() {
        for text in [r#"{"a": 1, "a": 1}"#, r#"[{"b": {"c": 1, "c": 2}}]"#] {
            let d = parse(text).unwrap_err();
            assert_eq!(d.code, Code::ParseJson);
            assert!(d.message.contains("duplicate key"), "{}", d.message);
            assert_eq!(
                d.help.as_deref(),
                Some(
                    "remove or rename one of the two members: canonical JSON (RFC 8785) has one value per key"
                )
            );
        }
        let ok = parse(r#"{"a": {"a": [1.5, -2, 18446744073709551615]}}"#);
        assert_eq!(
            ok.unwrap(),
            serde_json::json!({"a": {"a": [1.5, -2, 18446744073709551615u64]}})
        );
    }
}
