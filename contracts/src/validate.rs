//! Validation of values against a compiled [`Schema`] of the bounded subset.
//!
//! The semantics are those of JSON Schema 2020-12 for the subset's keywords
//! (`docs/format.md`, "The bounded JSON Schema subset"), with one
//! deliberate strengthening: `format` is an
//! *assertion* (Templiqx enforces `date` and `date-time` as RFC 3339, see
//! [`crate::format`]), where 2020-12 makes it an annotation by default.
//!
//! | keyword | rule (JSON Schema 2020-12 section) |
//! |---|---|
//! | `type` | Validation 6.1.1; an integer-valued number (`1.0`) is an `integer` |
//! | `enum`, `const` | Validation 6.1.2, 6.1.3; JSON equality ([`ValueRef::json_eq`]: `1 == 1.0`) |
//! | `minLength`, `maxLength` | Validation 6.3.1, 6.3.2; counted in Unicode scalar values |
//! | `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum` | Validation 6.2.2-6.2.5; compared exactly ([`Number::cmp_exact`]) |
//! | `minItems`, `maxItems` | Validation 6.4.1, 6.4.2 |
//! | `required` | Validation 6.5.3 |
//! | `properties`, `additionalProperties` | Core 10.3.2.1, 10.3.2.3 (boolean only) |
//! | `items` | Core 10.3.1.2 (one schema for every element) |
//! | `format` | Validation 7.3.1 (`date`, `date-time`), as an assertion |
//!
//! Keywords are independent: every applicable keyword is checked and every
//! failure is reported. A keyword only applies to instances of its type
//! (`minLength` ignores numbers), as in JSON Schema.
//!
//! Beyond JSON Schema: a non-finite double (`NaN`, `±inf`), which a typed
//! Rust value can hold but JSON cannot, violates every schema (reported
//! under `type`).
//!
//! This runs on the render hot path, so a valid value costs no allocation:
//! the location of the value being checked is kept as a linked list on the
//! stack, and a JSON pointer string is only built when a violation is
//! recorded.
//!
//! ```
//! use templiqx_contracts::{validate::validate, Schema, TypeSet, JsonType, AsValue};
//! use serde_json::json;
//!
//! let schema = Schema { types: TypeSet::of(JsonType::String), min_length: Some(2), ..Schema::ANY };
//! assert!(validate(&schema, json!("né").as_value()).is_ok());
//! let errors = validate(&schema, json!(5).as_value()).unwrap_err();
//! assert_eq!(errors[0].keyword, "type");
//! assert_eq!(errors[0].message, "expected string, found number 5");
//! ```

use crate::budget::MAX_VALUE_DEPTH;
use crate::canonical::{write_number, write_string};
use crate::diagnostic::escape_pointer_token;
use crate::format::{is_date, is_date_time};
use crate::schema::{Format, Schema, TypeSet};
use crate::seq::Seq;
use crate::value::{AsValue, IrValue, JsonType, Number, ValueRef};
use crate::words;
use std::cmp::Ordering;
use std::fmt::{self, Write as _};

/// One way in which a value fails its schema.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SchemaViolation {
    /// RFC 6901 JSON Pointer into the validated value: the value that
    /// violates `keyword`. For `required` this is the object missing the
    /// property; for `additionalProperties: false` it is the undeclared
    /// property itself. `""` is the value itself.
    pub pointer: String,
    /// The JSON Schema keyword that failed (`"type"`, `"minLength"`, ...).
    pub keyword: &'static str,
    /// One sentence naming what was expected and what was found, e.g.
    /// `expected string, found number 5`.
    pub message: String,
}

impl fmt::Display for SchemaViolation {
    /// `<pointer>: <message>` (the root is written `/`, as in diagnostics).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.pointer.is_empty() {
            "/"
        } else {
            &self.pointer
        };
        write!(f, "{at}: {} ({})", self.message, self.keyword)
    }
}

impl std::error::Error for SchemaViolation {}

/// Validates `value` against `schema`, collecting every violation.
///
/// Returns `Ok(())` when the value is valid (without allocating), otherwise
/// all violations in a deterministic order: for each value, `type`, `enum`,
/// `const`, then the keywords of its JSON type, then nested values in
/// `properties` declaration order / array order. Callers turn violations
/// into diagnostics with their own code (`TQX_VALUE_INVALID` for requests,
/// `TQX_OUTPUT_SCHEMA` for model outputs, `TQX_EXTENSION_VALUE`, ...).
pub fn validate(schema: &Schema, value: ValueRef<'_>) -> Result<(), Vec<SchemaViolation>> {
    let mut out = Vec::new();
    let mut pointer = String::new();
    validate_at(schema, value, &mut pointer, &mut out);
    if out.is_empty() { Ok(()) } else { Err(out) }
}

/// Validates `value` against `schema`, appending violations to `out`.
///
/// `pointer` is the RFC 6901 pointer of `value` within the caller's larger
/// document (e.g. `/inputs/customer`); every recorded violation's pointer
/// starts with it. It doubles as the scratch buffer in which violation
/// pointers are assembled, and on return holds what it held on entry.
/// Nothing is allocated unless a violation is recorded.
pub fn validate_at(
    schema: &Schema,
    value: ValueRef<'_>,
    pointer: &mut String,
    out: &mut Vec<SchemaViolation>,
) {
    let mut walker = Walker { pointer, out };
    walker.check(schema, value, &Path::Root);
}

/// The location of the value being checked, relative to the base pointer,
/// as a linked list of stack frames; rendered only for violations.
#[derive(Clone, Copy)]
enum Path<'a> {
    Root,
    Key(&'a Path<'a>, &'a str),
    Index(&'a Path<'a>, usize),
}

impl Path<'_> {
    /// How many steps below the root this path is.
    fn depth(&self) -> usize {
        match *self {
            Path::Root => 0,
            Path::Key(parent, _) | Path::Index(parent, _) => parent.depth() + 1,
        }
    }

    fn write_to(&self, out: &mut String) {
        match *self {
            Path::Root => {}
            Path::Key(parent, key) => {
                parent.write_to(out);
                out.push('/');
                out.push_str(&escape_pointer_token(key));
            }
            Path::Index(parent, index) => {
                parent.write_to(out);
                // Writing to a String cannot fail.
                let _ = write!(out, "/{index}");
            }
        }
    }
}

/// Whether `value` is an instance of a type in `types`: what
/// `types.iter().any(|t| value.is_instance_of(t))` says, without the walk
/// over the set (an integer-valued number is an `integer`, every number a
/// `number`).
#[inline]
fn instance_of_any(types: TypeSet, value: ValueRef<'_>) -> bool {
    match value {
        ValueRef::Number(n) => {
            types.contains(JsonType::Number)
                || (types.contains(JsonType::Integer) && n.is_integer())
        }
        v => types.contains(v.json_type()),
    }
}

struct Walker<'w> {
    /// The base pointer; extended in place while a violation's pointer is
    /// built, then truncated back.
    pointer: &'w mut String,
    out: &'w mut Vec<SchemaViolation>,
}

// What records a violation is out of line and cold, so that `check`, on
// the render path for every request value, stays a small function that
// only tests.
impl Walker<'_> {
    #[cold]
    #[inline(never)]
    fn report(&mut self, path: &Path<'_>, keyword: &'static str, message: String) {
        let base_len = self.pointer.len();
        path.write_to(self.pointer);
        let pointer = self.pointer.clone();
        self.pointer.truncate(base_len);
        self.out.push(SchemaViolation {
            pointer,
            keyword,
            message,
        });
    }

    fn check(&mut self, schema: &Schema, value: ValueRef<'_>, path: &Path<'_>) {
        if let ValueRef::Number(Number::F64(f)) = value
            && !f.is_finite()
        {
            return self.non_finite(path, f);
        }
        if !schema.types.is_any() && !instance_of_any(schema.types, value) {
            self.wrong_type(path, schema.types, value);
        }
        if let Some(values) = &schema.enum_values
            && !values.iter().any(|v| v.as_value().json_eq(&value))
        {
            self.not_in_enum(path, values, value);
        }
        if let Some(c) = &schema.const_value
            && !c.as_value().json_eq(&value)
        {
            self.not_const(path, c, value);
        }
        // Where no schema structure bounds the value, bound its depth.
        if matches!(value, ValueRef::Array(_) | ValueRef::Object(_))
            && schema.items.is_none()
            && schema.properties.is_empty()
        {
            let limit = MAX_VALUE_DEPTH.saturating_sub(path.depth());
            if deeper_than(value, limit) {
                let message = format!("the value nests deeper than {MAX_VALUE_DEPTH} levels");
                return self.report(path, "depth", message);
            }
        }
        match value {
            ValueRef::String(s) => self.check_string(schema, s, path),
            ValueRef::Number(n) => self.check_number(schema, n, path),
            ValueRef::Array(a) => {
                let len = a.len() as u64;
                if let Some(min) = schema.min_items
                    && len < min
                {
                    let message = format!("expected at least {min} {}, found {len}", items(min));
                    self.report(path, "minItems", message);
                }
                if let Some(max) = schema.max_items
                    && len > max
                {
                    let message = format!("expected at most {max} {}, found {len}", items(max));
                    self.report(path, "maxItems", message);
                }
                if let Some(item_schema) = &schema.items {
                    for i in 0..a.len() {
                        if let Some(item) = a.get(i) {
                            self.check(item_schema, item, &Path::Index(path, i));
                        }
                    }
                }
            }
            ValueRef::Object(o) => {
                let first = self.out.len();
                let mut declared_present = 0usize;
                for (name, property) in &schema.properties {
                    if let Some(v) = o.get(name) {
                        declared_present += 1;
                        self.check(property, v, &Path::Key(path, name));
                    }
                }
                // Under `additionalProperties: false` every `required` name
                // is a declared property (a compiled schema guarantees it:
                // `docs/format.md`, "The bounded JSON Schema subset",
                // `TQX_SCHEMA_BOUNDS`), so when every declared property is
                // present none is missing and the lookups are spared.
                // Otherwise the `required` violations go before those of
                // the properties, as the documented order says.
                if schema.additional_properties || declared_present != schema.properties.len() {
                    let before = self.out.len();
                    for name in &schema.required {
                        if o.get(name).is_none() {
                            let mut message = String::from("missing required property ");
                            let _ = write_string(name, &mut message);
                            self.report(path, "required", message);
                        }
                    }
                    let missing = self.out.len() - before;
                    self.out[first..].rotate_right(missing);
                }
                // Object keys and property names are unique (compiled
                // schemas guarantee the latter), so every present key is
                // declared exactly when the counts agree: only look for the
                // extras otherwise, sparing `entries()` on the valid path.
                // Undeclared members are either refused or, when allowed,
                // unstructured: bound their depth like any other value no
                // schema structure bounds.
                if declared_present != o.len() {
                    for (key, member) in o.entries() {
                        if schema.property(key).is_some() {
                            continue;
                        }
                        let at = Path::Key(path, key);
                        if !schema.additional_properties {
                            let mut message = String::from("property ");
                            let _ = write_string(key, &mut message);
                            message.push_str(
                                " is not declared in `properties` \
                                 (additionalProperties: false)",
                            );
                            self.report(&at, "additionalProperties", message);
                        } else if matches!(member, ValueRef::Array(_) | ValueRef::Object(_))
                            && deeper_than(member, MAX_VALUE_DEPTH.saturating_sub(at.depth()))
                        {
                            let message =
                                format!("the value nests deeper than {MAX_VALUE_DEPTH} levels");
                            self.report(&at, "depth", message);
                        }
                    }
                }
            }
            ValueRef::Null | ValueRef::Bool(_) => {}
        }
    }

    #[cold]
    #[inline(never)]
    fn non_finite(&mut self, path: &Path<'_>, f: f64) {
        let message = format!("expected a JSON value, found non-finite number {f}");
        self.report(path, "type", message);
    }

    #[cold]
    #[inline(never)]
    fn wrong_type(&mut self, path: &Path<'_>, types: TypeSet, value: ValueRef<'_>) {
        let message = format!(
            "expected {}, found {}",
            TypeList(types),
            Preview::typed(value)
        );
        self.report(path, "type", message);
    }

    #[cold]
    #[inline(never)]
    fn not_in_enum(&mut self, path: &Path<'_>, values: &Seq<IrValue>, value: ValueRef<'_>) {
        let mut message = String::from("expected one of ");
        list_values(&mut message, values.iter().map(AsValue::as_value));
        let _ = write!(message, ", found {}", Preview::typed(value));
        lookalike(&mut message, value, values.iter().map(AsValue::as_value));
        self.report(path, "enum", message);
    }

    #[cold]
    #[inline(never)]
    fn not_const(&mut self, path: &Path<'_>, c: &IrValue, value: ValueRef<'_>) {
        let mut message = format!(
            "expected {}, found {}",
            Preview::bare(c.as_value()),
            Preview::typed(value)
        );
        lookalike(&mut message, value, std::iter::once(c.as_value()));
        self.report(path, "const", message);
    }

    #[cold]
    #[inline(never)]
    fn bad_format(&mut self, path: &Path<'_>, format: Format, s: &str) {
        let message = format!(
            "{} is not a valid RFC 3339 {}",
            Preview::bare(ValueRef::String(s)),
            format.as_str()
        );
        self.report(path, "format", message);
    }

    fn check_string(&mut self, schema: &Schema, s: &str, path: &Path<'_>) {
        // A UTF-8 string of `n` bytes has between `ceil(n / 4)` and `n`
        // characters: count them only when those bounds do not settle both
        // keywords.
        let (bytes, fewest) = (s.len() as u64, s.len().div_ceil(4) as u64);
        let settled = schema.min_length.is_none_or(|min| fewest >= min)
            && schema.max_length.is_none_or(|max| bytes <= max);
        if !settled {
            let len = s.chars().count() as u64;
            if let Some(min) = schema.min_length
                && len < min
            {
                let message = format!("expected at least {min} {}, found {len}", chars(min));
                self.report(path, "minLength", message);
            }
            if let Some(max) = schema.max_length
                && len > max
            {
                let message = format!("expected at most {max} {}, found {len}", chars(max));
                self.report(path, "maxLength", message);
            }
        }
        if let Some(format) = schema.format {
            let ok = match format {
                Format::Date => is_date(s),
                Format::DateTime => is_date_time(s),
            };
            if !ok {
                self.bad_format(path, format, s);
            }
        }
    }

    fn check_number(&mut self, schema: &Schema, n: Number, path: &Path<'_>) {
        let bounds = [
            (
                "minimum",
                schema.minimum,
                ">=",
                &[Ordering::Greater, Ordering::Equal][..],
            ),
            (
                "maximum",
                schema.maximum,
                "<=",
                &[Ordering::Less, Ordering::Equal][..],
            ),
            (
                "exclusiveMinimum",
                schema.exclusive_minimum,
                ">",
                &[Ordering::Greater][..],
            ),
            (
                "exclusiveMaximum",
                schema.exclusive_maximum,
                "<",
                &[Ordering::Less][..],
            ),
        ];
        for (keyword, bound, op, accepted) in bounds {
            let Some(bound) = bound else { continue };
            let ok = n.cmp_exact(bound).is_some_and(|o| accepted.contains(&o));
            if !ok {
                let mut message = format!("expected a number {op} ");
                let _ = write_exact(bound, &mut message);
                message.push_str(", found ");
                let _ = write_exact(n, &mut message);
                self.report(path, keyword, message);
            }
        }
    }
}

/// Writes `n` for a comparison message: its canonical JSON, except that an
/// integral double beyond 2^53 shows the integer it is exactly
/// (`18446744073709551616`, not RFC 8785's `18446744073709552000`), so a
/// bound never looks as if it admitted the value it refuses.
fn write_exact(n: Number<'_>, out: &mut String) -> std::fmt::Result {
    match n {
        Number::F64(f)
            if f.is_finite() && f.fract() == 0.0 && !crate::typed::exact_integral_double(f) =>
        {
            use std::fmt::Write as _;
            write!(out, "{f:.0}")
        }
        n => write_number(n, out),
    }
}

/// Whether `value` has arrays or objects nested more than `limit` deep
/// (recursion bounded by `limit`).
fn deeper_than(value: ValueRef<'_>, limit: usize) -> bool {
    match value {
        ValueRef::Array(a) => {
            limit == 0 || (0..a.len()).any(|i| a.get(i).is_some_and(|v| deeper_than(v, limit - 1)))
        }
        ValueRef::Object(o) => limit == 0 || o.entries().any(|(_, v)| deeper_than(v, limit - 1)),
        _ => false,
    }
}

fn items(n: u64) -> &'static str {
    if n == 1 { "item" } else { "items" }
}

fn chars(n: u64) -> &'static str {
    if n == 1 { "character" } else { "characters" }
}

/// When `found` is a string that displays like one of `expected` without
/// being equal to it ([`looks_alike`]: Unicode normalisation forms,
/// compatibility characters, invisible format characters), appends both with their non-ASCII code
/// points escaped, so the message shows the difference its previews hide:
/// `; found "cafe\u0301", which looks like "caf\u00e9" but is not equal`.
fn lookalike<'v>(
    message: &mut String,
    found: ValueRef<'_>,
    expected: impl Iterator<Item = ValueRef<'v>>,
) {
    let ValueRef::String(found) = found else {
        return;
    };
    for candidate in expected {
        if let ValueRef::String(e) = candidate
            && looks_alike(found, e)
        {
            message.push_str("; found ");
            escaped(message, found);
            message.push_str(", which looks like ");
            escaped(message, e);
            message.push_str(" but is not equal");
            return;
        }
    }
}

/// Whether two different strings display alike: equal once both are in
/// compatibility decomposition (Unicode NFKD, UAX #15: `é` and `e` + U+0301,
/// the ligature `ﬁ` and `fi`) with the invisible default-ignorable format
/// characters removed (zero-width space, non-joiner and joiner, direction
/// marks, word joiner, soft hyphen, combining grapheme joiner, byte order
/// mark). Different accents (`é`, `è`) never look alike.
pub fn looks_alike(a: &str, b: &str) -> bool {
    use unicode_normalization::UnicodeNormalization;
    fn visible(c: &char) -> bool {
        !matches!(c, '\u{AD}' | '\u{34F}' | '\u{200B}'..='\u{200F}' | '\u{2060}'..='\u{2064}' | '\u{FEFF}')
    }
    if a == b || (a.is_ascii() && b.is_ascii()) {
        return false;
    }
    a.nfkd().filter(visible).eq(b.nfkd().filter(visible))
}

/// Writes `s` as a JSON string literal with every non-ASCII code point as a
/// `\uXXXX` escape (UTF-16, as JSON writes them), cut as
/// [`words::preview_cut`] says.
fn escaped(out: &mut String, s: &str) {
    let (kept, cut) = words::preview_cut(s);
    let mut json = String::new();
    let _ = write_string(kept, &mut json);
    for c in json.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                let _ = write!(out, "\\u{u:04x}");
            }
        }
    }
    if cut {
        out.push_str(words::ELLIPSIS);
    }
}

/// Writes `[a, b, ...]` of JSON previews (at most 10 values).
fn list_values<'v>(out: &mut String, values: impl Iterator<Item = ValueRef<'v>>) {
    const SHOWN: usize = 10;
    let mut first = true;
    let mut rest = 0usize;
    out.push('[');
    for (i, v) in values.enumerate() {
        if i >= SHOWN {
            rest += 1;
            continue;
        }
        if !first {
            out.push_str(", ");
        }
        first = false;
        let _ = write!(out, "{}", Preview::bare(v));
    }
    if rest > 0 {
        let _ = write!(out, ", ... {rest} more");
    }
    out.push(']');
}

/// `string`, `string or null`, `integer, string or null` (`null` last).
struct TypeList(TypeSet);

impl fmt::Display for TypeList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let null = self.0.iter().filter(|t| *t == JsonType::Null);
        let names = self.0.without_null().iter().chain(null);
        let count = self.0.iter().count();
        for (i, t) in names.enumerate() {
            if i > 0 {
                f.write_str(if i + 1 == count { " or " } else { ", " })?;
            }
            f.write_str(t.as_str())?;
        }
        Ok(())
    }
}

/// A short description of a value for messages: its type and, for scalars,
/// its JSON text (strings cut as [`words::preview_cut`] says). Bounded in size
/// whatever the value.
#[derive(Clone, Copy)]
struct Preview<'a> {
    value: ValueRef<'a>,
    with_type: bool,
}

impl<'a> Preview<'a> {
    /// With the type word: `string "abc"`, `number 5`, `null`.
    fn typed(value: ValueRef<'a>) -> Self {
        Preview {
            value,
            with_type: true,
        }
    }

    /// Without the type word: `"abc"`, `5`, `array of 2 items`.
    fn bare(value: ValueRef<'a>) -> Self {
        Preview {
            value,
            with_type: false,
        }
    }
}

impl fmt::Display for Preview<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let type_word = |f: &mut fmt::Formatter<'_>, t: JsonType| {
            if self.with_type {
                write!(f, "{} ", t.as_str())
            } else {
                Ok(())
            }
        };
        match self.value {
            ValueRef::Null => f.write_str("null"),
            ValueRef::Bool(b) => {
                type_word(f, JsonType::Boolean)?;
                write!(f, "{b}")
            }
            ValueRef::Number(n) => {
                type_word(f, JsonType::Number)?;
                write_number(n, f)
            }
            ValueRef::String(s) => {
                type_word(f, JsonType::String)?;
                match words::preview_cut(s) {
                    (kept, false) => write_string(kept, f),
                    (kept, true) => {
                        write_string(kept, f)?;
                        f.write_str(words::ELLIPSIS)
                    }
                }
            }
            ValueRef::Array(a) => {
                let n = a.len();
                write!(f, "array of {n} {}", items(n as u64))
            }
            ValueRef::Object(o) => {
                let n = o.len();
                let word = if n == 1 { "property" } else { "properties" };
                write!(f, "object with {n} {word}")
            }
        }
    }
}
