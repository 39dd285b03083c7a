//! Typed decoding: `&Json` and `Json` as serde `Deserializer`s, and
//! [`from_json`], with serde's messages in JSON's words ([`DeError`]).

use super::Json;
use crate::value::Number;
use serde::de::{self, IntoDeserializer};
use std::fmt;

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
///
/// [`BigInt`]: crate::value::BigInt
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
///
/// [`BigInt`]: crate::value::BigInt
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
    /// A [`BigInt`](crate::value::BigInt) that `i128` (`Ok`) or `u128`
    /// (`Err`) holds.
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
    use crate::json::parse;

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
}
