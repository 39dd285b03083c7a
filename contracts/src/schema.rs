//! The compiled form of the bounded JSON Schema subset (`docs/format.md`,
//! "The bounded JSON Schema subset").
//! Values are checked against it by [`crate::validate`].
//!
//! The compiler (`templiqx-build`) turns a schema document into a [`Schema`]
//! after checking that it only uses the subset and that its bounds are
//! satisfiable; generated code embeds the result as static data, so nothing
//! re-parses JSON Schema at run time.

use crate::seq::{Ptr, Seq, Str};
use crate::value::{IrValue, JsonType, Number};

/// A set of JSON Schema types (`type: string`, `type: [string, "null"]`).
/// The empty set means "any type".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct TypeSet(pub u8);

impl TypeSet {
    /// No constraint.
    pub const ANY: TypeSet = TypeSet(0);
    /// `null` only.
    pub const NULL: TypeSet = TypeSet::of(JsonType::Null);
    /// `boolean` only.
    pub const BOOLEAN: TypeSet = TypeSet::of(JsonType::Boolean);
    /// `integer` only.
    pub const INTEGER: TypeSet = TypeSet::of(JsonType::Integer);
    /// `number` only (integers included, as JSON Schema counts them).
    pub const NUMBER: TypeSet = TypeSet::of(JsonType::Number);
    /// `string` only.
    pub const STRING: TypeSet = TypeSet::of(JsonType::String);
    /// `array` only.
    pub const ARRAY: TypeSet = TypeSet::of(JsonType::Array);
    /// `object` only.
    pub const OBJECT: TypeSet = TypeSet::of(JsonType::Object);

    /// The bit of one type.
    pub const fn bit(t: JsonType) -> u8 {
        1 << (t as u8)
    }

    /// A set holding one type.
    pub const fn of(t: JsonType) -> TypeSet {
        TypeSet(Self::bit(t))
    }

    /// This set plus `t`.
    pub const fn with(self, t: JsonType) -> TypeSet {
        TypeSet(self.0 | Self::bit(t))
    }

    /// Whether the set is unconstrained.
    pub const fn is_any(self) -> bool {
        self.0 == 0
    }

    /// Whether `t` is in the set (an unconstrained set contains every type).
    pub const fn contains(self, t: JsonType) -> bool {
        self.0 == 0 || self.0 & Self::bit(t) != 0
    }

    /// Whether the set is exactly `{t}` or `{t, null}`.
    pub fn is_only(self, t: JsonType) -> bool {
        self.0 != 0 && self.without_null().0 == Self::bit(t)
    }

    /// The set without `null`.
    pub const fn without_null(self) -> TypeSet {
        TypeSet(self.0 & !Self::bit(JsonType::Null))
    }

    /// Whether `null` is allowed explicitly (an unconstrained set also allows it).
    pub const fn allows_null(self) -> bool {
        self.contains(JsonType::Null)
    }

    /// The members, in `JsonType` order.
    pub fn iter(self) -> impl Iterator<Item = JsonType> {
        [
            JsonType::Null,
            JsonType::Boolean,
            JsonType::Integer,
            JsonType::Number,
            JsonType::String,
            JsonType::Array,
            JsonType::Object,
        ]
        .into_iter()
        .filter(move |t| self.0 & Self::bit(*t) != 0)
    }
}

/// A `format` the subset enforces (RFC 3339 section 5.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// `full-date`: `YYYY-MM-DD`, a real calendar date.
    Date,
    /// `date-time`: RFC 3339 timestamp with offset.
    DateTime,
}

impl Format {
    /// The JSON Schema spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Date => "date",
            Format::DateTime => "date-time",
        }
    }
}

/// A compiled schema of the bounded subset. Every field maps to the JSON
/// Schema keyword of the same name; `None`/empty means the keyword is absent.
#[derive(Clone, Debug, PartialEq)]
pub struct Schema {
    /// `type`
    pub types: TypeSet,
    /// `properties`, in declaration order.
    pub properties: Seq<(Str, Schema)>,
    /// `required`. Under `additionalProperties: false` every name is a key
    /// of `properties`: the compiler refuses anything else
    /// (`TQX_SCHEMA_BOUNDS`, `docs/format.md`, "The bounded JSON Schema
    /// subset"), and [`crate::validate::validate`] relies on it, so a
    /// hand-built schema must keep it too.
    pub required: Seq<Str>,
    /// `additionalProperties` (JSON Schema default: `true`).
    pub additional_properties: bool,
    /// `items` (a single schema for every element).
    pub items: Option<Ptr<Schema>>,
    /// `enum`
    pub enum_values: Option<Seq<IrValue>>,
    /// `const`
    pub const_value: Option<IrValue>,
    /// `minLength` (in Unicode scalar values).
    pub min_length: Option<u64>,
    /// `maxLength` (in Unicode scalar values).
    pub max_length: Option<u64>,
    /// `minimum`
    pub minimum: Option<Number<'static>>,
    /// `maximum`
    pub maximum: Option<Number<'static>>,
    /// `exclusiveMinimum`
    pub exclusive_minimum: Option<Number<'static>>,
    /// `exclusiveMaximum`
    pub exclusive_maximum: Option<Number<'static>>,
    /// `minItems`
    pub min_items: Option<u64>,
    /// `maxItems`
    pub max_items: Option<u64>,
    /// `format`
    pub format: Option<Format>,
    /// `title`
    pub title: Option<Str>,
    /// `description`
    pub description: Option<Str>,
}

impl Schema {
    /// The schema that accepts everything (`{}`); usable in statics.
    pub const ANY: Schema = Schema {
        types: TypeSet::ANY,
        properties: Seq::EMPTY,
        required: Seq::EMPTY,
        additional_properties: true,
        items: None,
        enum_values: None,
        const_value: None,
        min_length: None,
        max_length: None,
        minimum: None,
        maximum: None,
        exclusive_minimum: None,
        exclusive_maximum: None,
        min_items: None,
        max_items: None,
        format: None,
        title: None,
        description: None,
    };

    /// The declared property schema named `name`.
    pub fn property(&self, name: &str) -> Option<&Schema> {
        self.properties
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, s)| s)
    }

    /// Whether `name` is listed in `required`.
    pub fn is_required(&self, name: &str) -> bool {
        self.required.iter().any(|r| r == name)
    }
}

impl Default for Schema {
    fn default() -> Self {
        Schema::ANY
    }
}

impl serde::Serialize for Schema {
    /// Serialises back to a JSON Schema document of the subset (keywords in a
    /// fixed order; absent keywords omitted, so [`Schema::ANY`] is `{}`).
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        struct Props<'a>(&'a [(Str, Schema)]);
        impl serde::Serialize for Props<'_> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let mut m = s.serialize_map(Some(self.0.len()))?;
                for (k, v) in self.0 {
                    m.serialize_entry(&**k, v)?;
                }
                m.end()
            }
        }
        fn num(n: Number) -> serde_json::Value {
            n.to_json()
                .map(serde_json::Value::Number)
                .unwrap_or(serde_json::Value::Null)
        }
        let mut m = s.serialize_map(None)?;
        let types: Vec<&str> = self.types.iter().map(JsonType::as_str).collect();
        match types.as_slice() {
            [] => {}
            [one] => m.serialize_entry("type", one)?,
            many => m.serialize_entry("type", many)?,
        }
        if !self.properties.is_empty() {
            m.serialize_entry("properties", &Props(&self.properties))?;
        }
        if !self.required.is_empty() {
            m.serialize_entry("required", &self.required)?;
        }
        if !self.additional_properties {
            m.serialize_entry("additionalProperties", &false)?;
        }
        if let Some(items) = &self.items {
            m.serialize_entry("items", &**items)?;
        }
        if let Some(e) = &self.enum_values {
            m.serialize_entry("enum", e)?;
        }
        if let Some(c) = &self.const_value {
            m.serialize_entry("const", c)?;
        }
        for (key, v) in [
            ("minLength", self.min_length),
            ("maxLength", self.max_length),
        ] {
            if let Some(v) = v {
                m.serialize_entry(key, &v)?;
            }
        }
        for (key, v) in [
            ("minimum", self.minimum),
            ("maximum", self.maximum),
            ("exclusiveMinimum", self.exclusive_minimum),
            ("exclusiveMaximum", self.exclusive_maximum),
        ] {
            if let Some(v) = v {
                m.serialize_entry(key, &num(v))?;
            }
        }
        for (key, v) in [("minItems", self.min_items), ("maxItems", self.max_items)] {
            if let Some(v) = v {
                m.serialize_entry(key, &v)?;
            }
        }
        if let Some(f) = self.format {
            m.serialize_entry("format", f.as_str())?;
        }
        if let Some(t) = &self.title {
            m.serialize_entry("title", &**t)?;
        }
        if let Some(d) = &self.description {
            m.serialize_entry("description", &**d)?;
        }
        m.end()
    }
}
