//! What the inclusion walk finds: one [`Finding`] per way in which `a`
//! accepts a value `b` refuses, about one [`Aspect`] of the schema, and
//! how each side's keywords read in a message.

use crate::text::{SHOWN_VALUES, json_text};
use serde_json::Value;
use templiqx_contracts::value::IrValue;
use templiqx_contracts::{JsonType, Number, Schema};

/// What about a schema a finding is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Aspect {
    /// `type` (null included).
    Type,
    /// `enum` / `const`.
    Enum,
    /// `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`.
    Range,
    /// `minLength`, `maxLength`.
    Length,
    /// `format`.
    Format,
    /// `minItems`, `maxItems`.
    ItemCount,
    /// A property `a` declares is refused by `b` (closed, undeclared).
    Closed,
    /// `b` requires a property `a` does not; `declared` when `a` declares it.
    Required { declared: bool },
    /// `a` is open and accepts anything under a name `b` declares with a
    /// constraint.
    Declared,
    /// `a` accepts undeclared properties, `b` does not.
    Additional,
    /// Not decided.
    Undecided,
}

/// One way in which `a` accepts a value `b` refuses (or may).
#[derive(Clone, Debug)]
pub(crate) struct Finding {
    pub(crate) aspect: Aspect,
    /// Where on `a`'s side (a JSON pointer in its file).
    pub(crate) a_at: String,
    /// Where on `b`'s side.
    pub(crate) b_at: String,
    /// The value's place (`inputs.customer.name`, `output.items[]`).
    pub(crate) place: String,
    /// What `a` says about the aspect (`` `maximum: 10` ``).
    pub(crate) a_says: String,
    /// What `b` says about it.
    pub(crate) b_says: String,
    /// A value `a` accepts and `b` refuses.
    pub(crate) witness: Option<Value>,
    /// Why it was not decided (for [`Aspect::Undecided`]).
    pub(crate) undecided: Option<String>,
    /// For [`Aspect::Type`]: the kinds of values `a` accepts and `b`
    /// refuses (`null`, `integers`).
    pub(crate) lost: Option<String>,
    /// Whether the finding is about a field of a root scope (`inputs`,
    /// `context`) itself, not something below one.
    pub(crate) field: bool,
}

impl Finding {
    /// A neutral sentence: `a` accepts, `b` refuses.
    pub(super) fn sentence(&self) -> String {
        if let Some(why) = &self.undecided {
            return format!("{}: {why}", self.place);
        }
        let mut s = format!("{}: {} → {}", self.place, self.a_says, self.b_says);
        if let Some(w) = &self.witness {
            s.push_str(&format!(" (`{}` is accepted, then refused)", json_text(w)));
        }
        s
    }
}

/// The aspect a validator keyword belongs to (for a violation at `pointer`
/// below the value, the nearest structural aspect).
pub(super) fn aspect_of(keyword: &str, pointer: &str) -> Aspect {
    if !pointer.is_empty() {
        return match keyword {
            "additionalProperties" => Aspect::Closed,
            _ => Aspect::Declared,
        };
    }
    match keyword {
        "type" => Aspect::Type,
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" => Aspect::Range,
        "minLength" | "maxLength" => Aspect::Length,
        "format" => Aspect::Format,
        "minItems" | "maxItems" => Aspect::ItemCount,
        "required" => Aspect::Required { declared: true },
        "additionalProperties" => Aspect::Additional,
        _ => Aspect::Enum,
    }
}

/// The keywords of an aspect, in the order their pointers are preferred.
pub(super) fn keywords(aspect: Aspect) -> &'static [&'static str] {
    match aspect {
        Aspect::Type => &["type"],
        Aspect::Enum => &["enum", "const"],
        Aspect::Range => &["minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"],
        Aspect::Length => &["minLength", "maxLength"],
        Aspect::Format => &["format"],
        Aspect::ItemCount => &["minItems", "maxItems"],
        Aspect::Required { .. } => &["required"],
        Aspect::Closed | Aspect::Declared => &["properties"],
        Aspect::Additional => &["additionalProperties"],
        Aspect::Undecided => &[],
    }
}

/// What `s` says about an aspect, as a short code span.
pub(super) fn says(aspect: Aspect, s: &Schema) -> String {
    let kv = |k: &str, v: String| format!("{k}: {v}");
    let num = |n: Number<'_>| {
        n.to_json()
            .map_or_else(|| "?".to_owned(), |n| n.to_string())
    };
    let join = |parts: Vec<String>, none: &str| {
        if parts.is_empty() {
            none.to_owned()
        } else {
            format!("`{}`", parts.join(", "))
        }
    };
    match aspect {
        Aspect::Type => {
            // As contracts write it: the type, then `null`.
            let names: Vec<&str> = s
                .types
                .without_null()
                .iter()
                .chain(s.types.iter().filter(|t| *t == JsonType::Null))
                .map(JsonType::as_str)
                .collect();
            match names.as_slice() {
                [] => "any type".to_owned(),
                [one] => format!("`type: {one}`"),
                many => format!("`type: [{}]`", many.join(", ")),
            }
        }
        Aspect::Enum => says_enum(s),
        Aspect::Range => join(
            [
                ("minimum", s.minimum),
                ("exclusiveMinimum", s.exclusive_minimum),
                ("maximum", s.maximum),
                ("exclusiveMaximum", s.exclusive_maximum),
            ]
            .into_iter()
            .filter_map(|(k, v)| v.map(|v| kv(k, num(v))))
            .collect(),
            "no numeric bounds",
        ),
        Aspect::Length => join(
            [("minLength", s.min_length), ("maxLength", s.max_length)]
                .into_iter()
                .filter_map(|(k, v)| v.map(|v| kv(k, v.to_string())))
                .collect(),
            "no length bounds",
        ),
        Aspect::Format => s.format.map_or_else(
            || "no `format`".to_owned(),
            |f| format!("`format: {}`", f.as_str()),
        ),
        Aspect::ItemCount => join(
            [("minItems", s.min_items), ("maxItems", s.max_items)]
                .into_iter()
                .filter_map(|(k, v)| v.map(|v| kv(k, v.to_string())))
                .collect(),
            "no item counts",
        ),
        Aspect::Required { .. } => {
            let names: Vec<&str> = s.required.iter().map(|r| &**r).collect();
            format!("`required: [{}]`", names.join(", "))
        }
        Aspect::Closed | Aspect::Declared | Aspect::Additional => {
            format!("`additionalProperties: {}`", s.additional_properties)
        }
        Aspect::Undecided => String::new(),
    }
}

/// `enum: [...]` or `const: ...` as written in a message; an `enum` of
/// more than [`SHOWN_VALUES`] values shows the first of them and how many
/// more there are.
pub(super) fn says_enum(s: &Schema) -> String {
    let text = |v: &IrValue| json_text(&v.to_json());
    match (&s.enum_values, &s.const_value) {
        (_, Some(c)) => format!("`const: {}`", text(c)),
        (Some(values), None) => {
            let mut items: Vec<String> = values.iter().take(SHOWN_VALUES).map(text).collect();
            if values.len() > SHOWN_VALUES {
                items.push(format!("… and {} more", values.len() - SHOWN_VALUES));
            }
            format!("`enum: [{}]`", items.join(", "))
        }
        (None, None) => "no `enum`".to_owned(),
    }
}
