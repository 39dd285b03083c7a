//! `Serialize` and `Deserialize` of generated types without serde's
//! derives (`docs/format.md`, "Generated Rust"): generic code here, over
//! what each generated type already has — its view ([`AsValue`], written
//! over its `Members` table) for writing, and one [`Decode`] impl (one
//! expression per field) for reading. A derive writes a visitor, a field
//! enum and its own visitor per type, which the host's compiler must
//! type-check, borrow-check and lower for every contract; this code is
//! compiled once, here, and instantiated per type only where a host uses
//! it.
//!
//! Reading goes through [`Json`]: a generated type's `Deserialize` reads
//! the value whole, and [`Decode`] takes it apart. A root type (`Inputs`,
//! `Context`, a struct `Output`) runs the runtime's checks on the value
//! first ([`crate::decode::deserialize_root`]); a nested type read on its
//! own does not. Errors are serde's own (`missing field`, `unknown field`,
//! `invalid type`), in the deserialiser's error type.
//!
//! Not a public API: generated code reaches it through
//! `::templiqx::__private`, and it may change in any release.

use serde::de::{Error, Unexpected};
use serde::ser::{SerializeMap, SerializeSeq};
use std::marker::PhantomData;
use templiqx_contracts::{AsValue, Json, JsonMap, JsonNumber, Members, Number, ValueRef};

/// A type read from a [`Json`] value: every generated struct and enum,
/// and the Rust types of their fields. Generated code implements it for
/// each generated type; this module for `String`, `i64`, `f64`, `bool`,
/// [`Json`], [`JsonMap`], `Vec<T>` and `Option<T>` (`null` is `None`).
///
/// Generic over the error type, so that a type's reading is instantiated
/// only where a deserialiser needs it, in that deserialiser's errors.
pub trait Decode: Sized {
    /// Reads `value`.
    ///
    /// # Errors
    /// serde's error when `value` does not have the type's shape.
    fn decode<E: Error>(value: Json) -> Result<Self, E>;
}

/// What serde's error messages say `value` is (`invalid type: string
/// "x", expected i64`).
fn unexpected(value: &Json) -> Unexpected<'_> {
    match value {
        Json::Null => Unexpected::Unit,
        Json::Bool(b) => Unexpected::Bool(*b),
        Json::Number(n) => match n.as_number() {
            Number::I64(i) => Unexpected::Signed(i),
            Number::U64(u) => Unexpected::Unsigned(u),
            Number::F64(f) => Unexpected::Float(f),
            Number::Big(_) => Unexpected::Other("an integer beyond 64 bits"),
        },
        Json::String(s) => Unexpected::Str(s),
        Json::Array(_) => Unexpected::Seq,
        Json::Object(_) => Unexpected::Map,
    }
}

impl Decode for String {
    fn decode<E: Error>(value: Json) -> Result<Self, E> {
        match value {
            Json::String(s) => Ok(s),
            other => Err(E::invalid_type(unexpected(&other), &"a string")),
        }
    }
}

impl Decode for bool {
    fn decode<E: Error>(value: Json) -> Result<Self, E> {
        match value {
            Json::Bool(b) => Ok(b),
            other => Err(E::invalid_type(unexpected(&other), &"a boolean")),
        }
    }
}

impl Decode for i64 {
    /// An integer in range; a double is refused, as serde's `i64` refuses
    /// it (the root checks make an integer-valued double an integer first).
    fn decode<E: Error>(value: Json) -> Result<Self, E> {
        match &value {
            Json::Number(n) => match n.as_number() {
                Number::I64(i) => Ok(i),
                Number::U64(u) => Err(E::invalid_value(Unexpected::Unsigned(u), &"i64")),
                Number::F64(f) => Err(E::invalid_type(Unexpected::Float(f), &"i64")),
                Number::Big(_) => Err(E::invalid_value(unexpected(&value), &"i64")),
            },
            other => Err(E::invalid_type(unexpected(other), &"i64")),
        }
    }
}

impl Decode for f64 {
    /// Any number: an integer becomes the nearest double, as serde's `f64`
    /// reads one; an integer beyond `f64::MAX` has none and is refused.
    fn decode<E: Error>(value: Json) -> Result<Self, E> {
        match &value {
            Json::Number(n) => {
                let f = n.as_number().as_f64();
                if f.is_finite() {
                    Ok(f)
                } else {
                    Err(E::invalid_value(unexpected(&value), &"f64"))
                }
            }
            other => Err(E::invalid_type(unexpected(other), &"f64")),
        }
    }
}

impl Decode for Json {
    fn decode<E: Error>(value: Json) -> Result<Self, E> {
        Ok(value)
    }
}

impl Decode for JsonMap {
    fn decode<E: Error>(value: Json) -> Result<Self, E> {
        match value {
            Json::Object(map) => Ok(map),
            other => Err(E::invalid_type(unexpected(&other), &"an object")),
        }
    }
}

impl<T: Decode> Decode for Vec<T> {
    fn decode<E: Error>(value: Json) -> Result<Self, E> {
        match value {
            Json::Array(items) => items.into_iter().map(T::decode).collect(),
            other => Err(E::invalid_type(unexpected(&other), &"an array")),
        }
    }
}

impl<T: Decode> Decode for Option<T> {
    /// `null` is `None`: the type of a nullable value.
    fn decode<E: Error>(value: Json) -> Result<Self, E> {
        match value {
            Json::Null => Ok(None),
            other => T::decode(other).map(Some),
        }
    }
}

/// The members of an object being read into a generated struct: each
/// field takes its member out ([`Fields::required`], [`Fields::optional`]);
/// what is left over is the struct's extra members ([`Fields::rest`]).
/// `E` is the error type every read gives.
pub struct Fields<E>(JsonMap, PhantomData<fn() -> E>);

impl<E: Error> Fields<E> {
    /// The members of `value`, an object. With `closed`
    /// (`additionalProperties: false`, and always for `Inputs` and
    /// `Context`), a member that `T` does not declare is an error, as
    /// under serde's `deny_unknown_fields`.
    ///
    /// # Errors
    /// `invalid type` for a value that is not an object; `unknown field`
    /// for an undeclared member of a closed struct.
    pub fn of<T: Members>(value: Json, closed: bool) -> Result<Fields<E>, E> {
        let map = JsonMap::decode(value)?;
        if closed && let Some(key) = map.keys().find(|k| T::index(k).is_none()) {
            return Err(E::unknown_field(key, T::NAMES));
        }
        Ok(Fields(map, PhantomData))
    }

    /// A required field: its member, read as `T`.
    ///
    /// # Errors
    /// `missing field` when the member is absent; `T`'s errors.
    pub fn required<T: Decode>(&mut self, name: &'static str) -> Result<T, E> {
        match self.0.remove(name) {
            Some(value) => T::decode(value),
            None => Err(E::missing_field(name)),
        }
    }

    /// An optional field: `None` when its member is absent, else the
    /// member read as `T` (for a nullable field `T` is an `Option`, so a
    /// present `null` is `Some(None)`; for an untyped one [`Json`], so it is
    /// `Some(Json::Null)`).
    ///
    /// # Errors
    /// `T`'s errors.
    pub fn optional<T: Decode>(&mut self, name: &'static str) -> Result<Option<T>, E> {
        self.0.remove(name).map(T::decode).transpose()
    }

    /// The members no field took: an open struct's extra members.
    pub fn rest(self) -> JsonMap {
        self.0
    }
}

/// A generated enum's value: the variant whose JSON value (the string in
/// the schema's `enum`) is `value`.
///
/// # Errors
/// `invalid type` for a value that is not a string; `unknown variant` for
/// a string not in `variants`.
pub fn variant<T: Copy, E: Error>(
    value: Json,
    names: &'static [&'static str],
    variants: &[T],
) -> Result<T, E> {
    let Json::String(s) = value else {
        return Err(E::invalid_type(unexpected(&value), &"a string"));
    };
    names
        .iter()
        .position(|n| *n == s)
        .and_then(|i| variants.get(i).copied())
        .ok_or_else(|| E::unknown_variant(&s, names))
}

/// The `Deserialize` of a generated type that is not a root: reads any
/// JSON value, then [`Decode`]s it.
///
/// # Errors
/// The deserialiser's errors, then those of `T`'s [`Decode`].
pub fn deserialize<'de, T: Decode, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<T, D::Error> {
    let value = <Json as serde::Deserialize>::deserialize(deserializer)?;
    T::decode(value)
}

/// The `Serialize` of a generated type: its view, written as JSON's data
/// model (a struct as a map in its view's order — the declared members in
/// canonical key order, then the extra ones; an absent optional field
/// left out; an enum as its string).
///
/// # Errors
/// The serialiser's errors, and a custom error for a non-finite double
/// (`NaN`, `±inf`) anywhere in the value: JSON cannot hold one, and
/// writing it as `null` (serde_json's choice) would read back as another
/// value or not at all.
pub fn serialize<T: AsValue + ?Sized, S: serde::Serializer>(
    value: &T,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serde::Serialize::serialize(&View(value.as_value()), serializer)
}

/// A viewed value as serde's data model.
struct View<'a>(ValueRef<'a>);

impl serde::Serialize for View<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            ValueRef::Null => s.serialize_unit(),
            ValueRef::Bool(b) => s.serialize_bool(b),
            ValueRef::Number(Number::I64(i)) => s.serialize_i64(i),
            ValueRef::Number(Number::U64(u)) => s.serialize_u64(u),
            ValueRef::Number(Number::F64(f)) if !f.is_finite() => Err(serde::ser::Error::custom(
                format_args!("a non-finite number ({f}), which JSON cannot hold"),
            )),
            ValueRef::Number(Number::F64(f)) => s.serialize_f64(f),
            ValueRef::Number(n @ Number::Big(_)) => match JsonNumber::from_number(n) {
                Some(exact) => exact.serialize(s),
                None => Err(serde::ser::Error::custom("a number JSON cannot hold")),
            },
            ValueRef::String(text) => s.serialize_str(text),
            ValueRef::Array(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for i in 0..items.len() {
                    if let Some(item) = items.get(i) {
                        seq.serialize_element(&View(item))?;
                    }
                }
                seq.end()
            }
            ValueRef::Object(object) => {
                let mut map = s.serialize_map(Some(object.len()))?;
                for (key, member) in object.entries() {
                    map.serialize_entry(key, &View(member))?;
                }
                map.end()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Decode, Fields, variant};
    use serde::de::value::Error;
    use serde_json::json;
    use templiqx_contracts::value::members;
    use templiqx_contracts::{Json, JsonMap, Members, ValueRef};

    fn json(v: serde_json::Value) -> Json {
        Json::from(v)
    }

    fn decode<T: Decode>(v: serde_json::Value) -> Result<T, String> {
        T::decode::<Error>(json(v)).map_err(|e| e.to_string())
    }

    /// A hand-written generated struct: `{ "b": integer, "a": [string,
    /// null] (optional), "c": any (optional) }`, open or closed.
    #[derive(Debug, PartialEq)]
    struct Shape {
        b: i64,
        a: Option<Option<String>>,
        c: Option<Json>,
        extra: JsonMap,
    }

    impl Members for Shape {
        const NAMES: &'static [&'static str] = &["a", "b", "c"];
        fn index(key: &str) -> Option<usize> {
            Self::NAMES.iter().position(|n| *n == key)
        }
        fn member(&self, i: usize) -> Option<ValueRef<'_>> {
            match i {
                0 => members::optional(&self.a),
                1 => members::required(&self.b),
                2 => members::optional(&self.c),
                _ => None,
            }
        }
        fn extra(&self) -> Option<&JsonMap> {
            Some(&self.extra)
        }
    }
    crate::__object_view!(Shape);

    impl Decode for Shape {
        fn decode<E: serde::de::Error>(value: Json) -> Result<Self, E> {
            let mut fields = Fields::<E>::of::<Self>(value, false)?;
            Ok(Self {
                b: fields.required("b")?,
                a: fields.optional("a")?,
                c: fields.optional("c")?,
                extra: fields.rest(),
            })
        }
    }
    crate::__serde_impls!(Shape);

    #[derive(Clone, Copy, Debug, PartialEq)]
    enum Tone {
        Warm,
        Cold,
    }

    #[test]
    fn serialize_refuses_a_non_finite_double_anywhere() {
        let write = |v: &Vec<f64>| {
            super::serialize(v, serde_json::value::Serializer)
                .map(|j| j.to_string())
                .map_err(|e| e.to_string())
        };
        assert_eq!(write(&vec![1.5, -0.0]), Ok("[1.5,-0.0]".to_owned()));
        for f in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assert_eq!(
                write(&vec![1.5, f]),
                Err(format!("a non-finite number ({f}), which JSON cannot hold"))
            );
        }
    }

    #[test]
    fn for_each_entry_walks_what_entries_yields_and_stops_on_break() {
        use std::ops::ControlFlow;
        use templiqx_contracts::ObjectView;
        let mut extra = JsonMap::new();
        extra.insert("z".to_owned(), json(json!(1)));
        // A key named like a declared member is never read from the extras.
        extra.insert("a".to_owned(), json(json!("shadowed")));
        let shape = Shape {
            b: 2,
            a: None,
            c: Some(json(json!([true]))),
            extra,
        };
        let collect = |limit: usize| {
            let mut seen = Vec::new();
            let flow = shape.for_each_entry(&mut |k, v| {
                seen.push((k.to_owned(), v.to_json()));
                if seen.len() == limit {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            });
            (seen, flow)
        };
        let entries: Vec<_> = shape
            .entries()
            .map(|(k, v)| (k.to_owned(), v.to_json()))
            .collect();
        assert_eq!(
            entries,
            [
                ("b".to_owned(), json!(2)),
                ("c".to_owned(), json!([true])),
                ("z".to_owned(), json!(1))
            ]
        );
        assert_eq!(
            collect(usize::MAX),
            (entries.clone(), ControlFlow::Continue(()))
        );
        assert_eq!(collect(2), (entries[..2].to_vec(), ControlFlow::Break(())));
        // The trait's default walks `entries()` the same way.
        let map: std::collections::BTreeMap<String, i64> =
            [("x".to_owned(), 1), ("y".to_owned(), 2)].into();
        let mut seen = Vec::new();
        let flow = ObjectView::for_each_entry(&map, &mut |k, _| {
            seen.push(k.to_owned());
            ControlFlow::Break(())
        });
        assert_eq!((seen, flow), (vec!["x".to_owned()], ControlFlow::Break(())));
    }

    #[test]
    fn leaves_read_as_serde_reads_them() {
        assert_eq!(decode::<String>(json!("x")), Ok("x".to_owned()));
        assert_eq!(
            decode::<String>(json!(1)),
            Err("invalid type: integer `1`, expected a string".to_owned())
        );
        assert_eq!(decode::<i64>(json!(-3)), Ok(-3));
        assert_eq!(
            decode::<i64>(json!(2.5)),
            Err("invalid type: floating point `2.5`, expected i64".to_owned())
        );
        assert_eq!(
            decode::<i64>(json!(u64::MAX)),
            Err(format!(
                "invalid value: integer `{}`, expected i64",
                u64::MAX
            ))
        );
        assert_eq!(decode::<f64>(json!(3)), Ok(3.0));
        assert_eq!(decode::<bool>(json!(true)), Ok(true));
        assert_eq!(decode::<Option<bool>>(json!(null)), Ok(None));
        assert_eq!(decode::<Vec<i64>>(json!([1, 2])), Ok(vec![1, 2]));
        assert_eq!(
            decode::<Vec<i64>>(json!({})),
            Err("invalid type: map, expected an array".to_owned())
        );
        assert_eq!(decode::<Json>(json!(null)), Ok(Json::Null));
        let big = templiqx_contracts::json::parse("123456789012345678901234567890").unwrap();
        assert!(i64::decode::<Error>(big.clone()).is_err());
        assert_eq!(
            Json::decode::<Error>(big.clone()).map(|j| j.to_string()),
            Ok("123456789012345678901234567890".to_owned())
        );
    }

    #[test]
    fn fields_take_members_and_keep_or_refuse_the_rest() {
        let shape: Shape = decode(json!({"b": 1, "a": null, "c": null, "z": [1]})).unwrap();
        assert_eq!(shape.b, 1);
        assert_eq!(shape.a, Some(None), "a present null of a nullable field");
        assert_eq!(
            shape.c,
            Some(Json::Null),
            "a present null of an untyped field"
        );
        assert_eq!(shape.extra.len(), 1);
        let shape: Shape = decode(json!({"b": 1})).unwrap();
        assert_eq!((shape.a, shape.c), (None, None), "absent members");
        assert_eq!(
            decode::<Shape>(json!({"a": "x"})),
            Err("missing field `b`".to_owned())
        );
        assert_eq!(
            decode::<Shape>(json!([])),
            Err("invalid type: sequence, expected an object".to_owned())
        );
        let closed = Fields::<Error>::of::<Shape>(json(json!({"b": 1, "zip": 2})), true);
        assert_eq!(
            closed.err().map(|e| e.to_string()),
            Some("unknown field `zip`, expected one of `a`, `b`, `c`".to_owned())
        );
    }

    #[test]
    fn variants_read_their_values() {
        let read =
            |v| variant::<Tone, Error>(json(v), &["warm", "cold"], &[Tone::Warm, Tone::Cold]);
        assert_eq!(read(json!("cold")), Ok(Tone::Cold));
        assert_eq!(
            read(json!("hot")).map_err(|e| e.to_string()),
            Err("unknown variant `hot`, expected `warm` or `cold`".to_owned())
        );
        assert_eq!(
            read(json!(1)).map_err(|e| e.to_string()),
            Err("invalid type: integer `1`, expected a string".to_owned())
        );
    }

    #[test]
    fn serde_goes_through_the_view_and_decode() {
        let shape: Shape =
            serde_json::from_value(json!({"z": true, "b": 2, "a": "x", "c": {"k": 1}})).unwrap();
        // Declared members in canonical order, then the extra ones; an
        // absent optional member stays absent.
        assert_eq!(
            serde_json::to_string(&shape).unwrap(),
            r#"{"a":"x","b":2,"c":{"k":1},"z":true}"#
        );
        let absent = Shape {
            a: None,
            c: None,
            extra: JsonMap::new(),
            ..shape
        };
        assert_eq!(serde_json::to_string(&absent).unwrap(), r#"{"b":2}"#);
        let null = Shape {
            a: Some(None),
            ..absent
        };
        assert_eq!(serde_json::to_string(&null).unwrap(), r#"{"a":null,"b":2}"#);
        let wrong = serde_json::from_value::<Shape>(json!({"b": "2"})).unwrap_err();
        assert_eq!(
            wrong.to_string(),
            "invalid type: string \"2\", expected i64"
        );
    }
}
