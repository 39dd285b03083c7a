//! OpenAI's strict structured output for a contract's output schema
//! (`docs/adapters.md`, "Schema mapping"): [`lower`] rewrites the schema
//! into the subset OpenAI accepts with `"strict": true`, or names the first
//! node that keeps it out; [`NullPlan::restore`] takes back, from the
//! model's reply, the nulls the rewriting made the model write.
//!
//! # The strict subset
//!
//! The rules are those of OpenAI's Structured Outputs guide, section
//! "Supported schemas", restated here (the code follows this list, not the
//! other way round):
//!
//! - the root is an object (`type: object`, no `anyOf` at the root);
//! - every schema node has a `type` (one type name, or a list of one type
//!   name and `"null"`), or is an `anyOf` below the root;
//! - every object has `additionalProperties: false` and lists every one of
//!   its properties in `required`;
//! - every array has `items`;
//! - only these keywords appear: `type`, `properties`, `required`,
//!   `additionalProperties`, `items`, `enum`, `const`, `anyOf`, `minimum`,
//!   `maximum`, `exclusiveMinimum`, `exclusiveMaximum`, `multipleOf`,
//!   `minItems`, `maxItems`, `pattern`, `format`, `title`, `description`
//!   ([`SUPPORTED_KEYWORDS`]); anything else (`minLength`, `maxLength`, …)
//!   is refused by OpenAI;
//! - `format` is one of the formats the guide lists ([`FORMATS`]);
//! - the guide's size limits: at most [`MAX_NESTING`] levels of nesting, at
//!   most [`MAX_PROPERTIES`] object properties in all, at most
//!   [`MAX_ENUM_VALUES`] enum values in all, at most [`MAX_STRING_LENGTH`]
//!   characters of property names, enum values and const values in all,
//!   and at most [`MAX_LARGE_ENUM_STRING_LENGTH`] characters in one enum of
//!   more than [`LARGE_ENUM`] string values.
//!
//! Nesting is counted as the schema nodes on a path from the root (the
//! root is level 1, each `properties` member, `items` and `anyOf` branch
//! one level deeper), in the schema as sent: the guide does not define its
//! "levels", and this reading is the cautious one.
//!
//! # Lowering optional properties
//!
//! A contract may leave a property out of `required`; strict mode cannot
//! (every property is required). As OpenAI's guide and SDKs do ("emulate
//! optional with a union with `null`"), a property that is not required is
//! made required and nullable:
//!
//! - `type: T` becomes `type: [T, "null"]`, and a `type` list gains
//!   `"null"`;
//! - an `enum` gains `null`;
//! - a `const` (which cannot be made nullable in place) is wrapped:
//!   `anyOf: [<the property's schema>, {"type": "null"}]`; an existing
//!   `anyOf` gains the `{"type": "null"}` branch.
//!
//! Each null injected so is recorded in the [`NullPlan`]; the model's
//! `null` there means "absent", and [`NullPlan::restore`] removes it before
//! the port validates the answer against the contract's own schema.
//!
//! **A property that is optional and already admits `null`** (its `type`,
//! `enum` and `const` all allow it) is made required and nothing is
//! injected: a `null` answer there is kept, because `null` is a value the
//! contract admits, and "absent" cannot be expressed in strict mode. Only
//! nulls the lowering injected are ever removed.
//!
//! Lowering adds (`"null"`, `null`, `required` names, the `anyOf` wrapper)
//! but never drops or changes a keyword: descriptions, bounds, formats,
//! enums all reach OpenAI as the contract wrote them. When a node cannot be
//! strict (a `minLength`, an open object, an array without `items`, `{}`,
//! a limit), [`lower`] returns [`Lowering::NotStrict`] with the first such
//! node's RFC 6901 pointer; the adapter then sends the original schema
//! whole with `"strict": false`. The port validates every answer against
//! the whole contract schema either way.

use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use templiqx::contracts::json::Json;

/// The keywords strict mode accepts (OpenAI's Structured Outputs guide,
/// "Supported schemas").
pub const SUPPORTED_KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "anyOf",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
    "pattern",
    "format",
    "title",
    "description",
];

/// The string formats strict mode accepts (OpenAI's Structured Outputs
/// guide, "Supported schemas", "Supported properties").
pub const FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// The deepest nesting strict mode accepts, in levels (OpenAI's Structured
/// Outputs guide, "Supported schemas", "Objects have limitations on nesting
/// depth and size").
pub const MAX_NESTING: usize = 10;

/// The most object properties a strict schema may have in all (same
/// section of the guide).
pub const MAX_PROPERTIES: usize = 5000;

/// The most `enum` values a strict schema may have in all (same section
/// of the guide).
pub const MAX_ENUM_VALUES: usize = 1000;

/// The most characters of property names, enum values and const values a
/// strict schema may have in all (same section of the guide, "Limitations
/// on total string size").
pub const MAX_STRING_LENGTH: usize = 120_000;

/// An enum with more string values than this is a large enum (same section
/// of the guide).
pub const LARGE_ENUM: usize = 250;

/// The most characters the string values of one large enum may have in
/// all (same section of the guide).
pub const MAX_LARGE_ENUM_STRING_LENGTH: usize = 15_000;

/// What [`lower`] made of an output schema.
#[derive(Clone, Debug, PartialEq)]
pub enum Lowering {
    /// The schema can be sent with `"strict": true`.
    Strict {
        /// The schema to send: the contract's, with its optional
        /// properties made required and nullable (module docs).
        schema: Value,
        /// The nulls the lowering injected, for [`NullPlan::restore`] to
        /// remove from the reply.
        nulls: NullPlan,
    },
    /// Some node keeps the schema out of strict mode: send the original
    /// schema whole with `"strict": false`.
    NotStrict {
        /// The RFC 6901 pointer, in the original schema, of the first node
        /// (or keyword) that cannot be strict (`""` is the root).
        pointer: String,
        /// Why, in one line (``an array without `items` ``).
        reason: String,
        /// What would make it strict, in one line (for `templiqx check
        /// --lint openai-strict`).
        fix: String,
    },
}

/// The nulls [`lower`] injected into a schema, by the path of object
/// property names (through `properties` and `items`) that leads to them.
///
/// It is empty when every property of the contract was required (or
/// already admitted `null`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NullPlan {
    /// Properties of this object whose `null` was injected.
    injected: BTreeSet<String>,
    /// Plans of the properties of this object that hold injected nulls
    /// further down.
    properties: BTreeMap<String, NullPlan>,
    /// The plan of every element, when this is an array whose `items`
    /// hold injected nulls.
    items: Option<Box<NullPlan>>,
}

impl NullPlan {
    /// Whether no null was injected (the reply needs no restoring).
    pub fn is_empty(&self) -> bool {
        self.injected.is_empty() && self.properties.is_empty() && self.items.is_none()
    }

    /// The pointers, in the original schema, of the properties whose null
    /// was injected (`/properties/a/items/properties/b`), sorted.
    pub fn pointers(&self) -> Vec<String> {
        let mut out = Vec::new();
        self.collect(&mut String::new(), &mut out);
        out.sort();
        out
    }

    fn collect(&self, at: &mut String, out: &mut Vec<String>) {
        for name in &self.injected {
            out.push(format!("{at}/properties/{}", escape(name)));
        }
        for (name, plan) in &self.properties {
            let len = at.len();
            at.push_str("/properties/");
            at.push_str(&escape(name));
            plan.collect(at, out);
            at.truncate(len);
        }
        if let Some(items) = &self.items {
            let len = at.len();
            at.push_str("/items");
            items.collect(at, out);
            at.truncate(len);
        }
    }

    /// The model's reply with every injected property whose value is
    /// `null` removed, so that "absent" is absent again; everything else
    /// is left as it is: a non-null value, a `null` the contract itself
    /// admits, and any value in an unexpected shape (which the port's
    /// validator then reports).
    pub fn restore(&self, mut output: Json) -> Json {
        self.restore_in(&mut output);
        output
    }

    fn restore_in(&self, value: &mut Json) {
        match value {
            Json::Object(members) => {
                for (name, plan) in &self.properties {
                    if let Some(member) = members.get_mut(name) {
                        plan.restore_in(member);
                    }
                }
                for name in &self.injected {
                    if matches!(members.get(name), Some(Json::Null)) {
                        members.remove(name);
                    }
                }
            }
            Json::Array(elements) => {
                if let Some(plan) = &self.items {
                    for element in elements {
                        plan.restore_in(element);
                    }
                }
            }
            _ => {}
        }
    }
}

/// Lowers `schema` (JSON Schema, as `output_schema` writes it) into OpenAI's
/// strict subset (module docs), or names the first node that cannot be
/// strict.
pub fn lower(schema: &Value) -> Lowering {
    let mut walk = Walk::default();
    match walk.node(schema, "", 1) {
        Ok(lowered) => Lowering::Strict {
            schema: lowered.schema,
            nulls: lowered.plan,
        },
        Err(b) => Lowering::NotStrict {
            pointer: b.pointer,
            reason: b.reason,
            fix: b.fix,
        },
    }
}

/// An RFC 6901 reference token: `~` as `~0`, `/` as `~1`.
fn escape(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

struct Blocker {
    pointer: String,
    reason: String,
    fix: String,
}

fn blocker(pointer: String, reason: impl Into<String>, fix: impl Into<String>) -> Blocker {
    Blocker {
        pointer,
        reason: reason.into(),
        fix: fix.into(),
    }
}

/// One lowered node.
struct Lowered {
    schema: Value,
    plan: NullPlan,
    /// Whether a property at or below the node was made required.
    changed: bool,
}

/// The running totals the guide limits.
#[derive(Default)]
struct Walk {
    properties: usize,
    enum_values: usize,
    string_length: usize,
}

const TYPE_NAMES: &[&str] = &[
    "string", "number", "integer", "boolean", "object", "array", "null",
];

impl Walk {
    fn add_strings(&mut self, n: usize, at: &str) -> Result<(), Blocker> {
        self.string_length += n;
        if self.string_length > MAX_STRING_LENGTH {
            return Err(blocker(
                at.to_owned(),
                format!(
                    "more than {MAX_STRING_LENGTH} characters of property names, enum values and const values in all"
                ),
                "shrink the schema (fewer or shorter property names and enum values)",
            ));
        }
        Ok(())
    }

    fn add_enum_values(&mut self, n: usize, at: &str) -> Result<(), Blocker> {
        self.enum_values += n;
        if self.enum_values > MAX_ENUM_VALUES {
            return Err(blocker(
                at.to_owned(),
                format!("more than {MAX_ENUM_VALUES} enum values in all"),
                format!("list at most {MAX_ENUM_VALUES} enum values in the whole schema"),
            ));
        }
        Ok(())
    }

    /// Lowers the schema `v` at pointer `at`, nested `depth` levels deep
    /// in the schema as sent.
    fn node(&mut self, v: &Value, at: &str, depth: usize) -> Result<Lowered, Blocker> {
        let Value::Object(m) = v else {
            return Err(blocker(
                at.to_owned(),
                "a schema that is not an object",
                "write this schema as a mapping with a `type`",
            ));
        };
        if depth > MAX_NESTING {
            return Err(blocker(
                at.to_owned(),
                format!("nesting deeper than {MAX_NESTING} levels"),
                format!("flatten the schema to at most {MAX_NESTING} levels"),
            ));
        }
        let mut keys: Vec<&String> = m.keys().collect();
        keys.sort();
        if let Some(k) = keys
            .into_iter()
            .find(|k| !SUPPORTED_KEYWORDS.contains(&k.as_str()))
        {
            return Err(blocker(
                format!("{at}/{}", escape(k)),
                format!("`{k}` is not supported in strict mode"),
                format!("remove `{k}` here (the answers are then no longer checked against it)"),
            ));
        }
        let root = at.is_empty();
        if root && m.contains_key("anyOf") {
            return Err(blocker(
                "/anyOf".into(),
                "`anyOf` at the root",
                "give the root `type: object` and move `anyOf` below it",
            ));
        }
        let types = self.types(m, at)?;
        if root && types != ["object"] {
            return Err(blocker(
                "/type".into(),
                "the root's `type` is not `object`",
                "give the root `type: object`",
            ));
        }
        if let Some(f) = m.get("format")
            && !f.as_str().is_some_and(|f| FORMATS.contains(&f))
        {
            return Err(blocker(
                format!("{at}/format"),
                format!("the format {f} is not one strict mode supports"),
                format!(
                    "use one of the formats {}, or remove `format`",
                    FORMATS.join(", ")
                ),
            ));
        }
        if let Some(e) = m.get("enum") {
            let values = e.as_array().map_or(&[][..], Vec::as_slice);
            let enum_at = format!("{at}/enum");
            self.add_enum_values(values.len(), &enum_at)?;
            let strings: Vec<&str> = values.iter().filter_map(Value::as_str).collect();
            let length: usize = strings.iter().map(|s| s.chars().count()).sum();
            if strings.len() > LARGE_ENUM && length > MAX_LARGE_ENUM_STRING_LENGTH {
                return Err(blocker(
                    enum_at,
                    format!(
                        "an enum of more than {LARGE_ENUM} strings with more than {MAX_LARGE_ENUM_STRING_LENGTH} characters in all"
                    ),
                    "shorten or split the enum",
                ));
            }
            self.add_strings(length, &enum_at)?;
        }
        if let Some(Value::String(c)) = m.get("const") {
            self.add_strings(c.chars().count(), &format!("{at}/const"))?;
        }

        let mut out = m.clone();
        let mut plan = NullPlan::default();
        let mut changed = false;
        let is_object = types.contains(&"object") || m.contains_key("properties");
        if is_object {
            changed |= self.object(m, at, depth, &mut out, &mut plan)?;
        }
        if types.contains(&"array") || m.contains_key("items") {
            let Some(items) = m.get("items") else {
                return Err(blocker(
                    at.to_owned(),
                    "an array without `items`",
                    "give the array an `items` schema",
                ));
            };
            let lowered = self.node(items, &format!("{at}/items"), depth + 1)?;
            out.insert("items".into(), lowered.schema);
            changed |= lowered.changed;
            if !lowered.plan.is_empty() {
                plan.items = Some(Box::new(lowered.plan));
            }
        }
        if let Some(branches) = m.get("anyOf") {
            let Some(branches) = branches.as_array() else {
                return Err(blocker(
                    format!("{at}/anyOf"),
                    "an `anyOf` that is not a list",
                    "make `anyOf` a list of schemas",
                ));
            };
            let mut lowered_branches = Vec::with_capacity(branches.len());
            for (i, branch) in branches.iter().enumerate() {
                let branch_at = format!("{at}/anyOf/{i}");
                let lowered = self.node(branch, &branch_at, depth + 1)?;
                if lowered.changed {
                    // Which branch an answer took is not known when the
                    // reply is read, so nulls could not be told apart.
                    return Err(blocker(
                        branch_at,
                        "optional properties inside `anyOf`",
                        "make every property inside `anyOf` required",
                    ));
                }
                lowered_branches.push(lowered.schema);
            }
            out.insert("anyOf".into(), Value::Array(lowered_branches));
        }
        if changed {
            // The listed values would lack the members strict mode now
            // requires: no answer could match them.
            for keyword in ["enum", "const"] {
                if m.contains_key(keyword) {
                    return Err(blocker(
                        format!("{at}/{keyword}"),
                        format!("an `{keyword}` over an object with optional properties"),
                        format!("make every property below this `{keyword}` required"),
                    ));
                }
            }
        }
        Ok(Lowered {
            schema: Value::Object(out),
            plan,
            changed,
        })
    }

    /// The type names of `m`, checked: one name, or one name and `null`;
    /// empty for an `anyOf` node without `type`.
    fn types<'a>(&self, m: &'a Map<String, Value>, at: &str) -> Result<Vec<&'a str>, Blocker> {
        let names: Vec<&str> = match m.get("type") {
            None if m.contains_key("anyOf") && !at.is_empty() => return Ok(Vec::new()),
            None => {
                return Err(blocker(
                    at.to_owned(),
                    "a schema without `type`",
                    "give this schema a `type`",
                ));
            }
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(ts)) => ts.iter().map(|t| t.as_str().unwrap_or("")).collect(),
            Some(_) => vec![""],
        };
        let known = names.iter().all(|n| TYPE_NAMES.contains(n));
        let non_null = names.iter().filter(|n| **n != "null").count();
        let distinct = names.iter().collect::<BTreeSet<_>>().len() == names.len();
        if !known || !distinct || names.is_empty() || non_null > 1 {
            return Err(blocker(
                format!("{at}/type"),
                "a `type` other than one type name, or one type name and `null`",
                "use one type, or one type and `null`",
            ));
        }
        Ok(names)
    }

    /// Lowers the object keywords of `m` into `out`; returns whether a
    /// property was made required.
    fn object(
        &mut self,
        m: &Map<String, Value>,
        at: &str,
        depth: usize,
        out: &mut Map<String, Value>,
        plan: &mut NullPlan,
    ) -> Result<bool, Blocker> {
        if m.get("additionalProperties") != Some(&Value::Bool(false)) {
            return Err(blocker(
                at.to_owned(),
                "an object whose `additionalProperties` is not `false` (strict mode would forbid members the contract allows)",
                "set `additionalProperties: false` on this object",
            ));
        }
        let empty = Map::new();
        let properties = match m.get("properties") {
            None => &empty,
            Some(Value::Object(p)) => p,
            Some(_) => {
                return Err(blocker(
                    format!("{at}/properties"),
                    "`properties` that is not a mapping",
                    "make `properties` a mapping of names to schemas",
                ));
            }
        };
        let mut required: Vec<Value> = Vec::new();
        match m.get("required") {
            None => {}
            Some(Value::Array(names)) => {
                for (i, name) in names.iter().enumerate() {
                    match name.as_str() {
                        Some(n) if properties.contains_key(n) => required.push(name.clone()),
                        _ => {
                            return Err(blocker(
                                format!("{at}/required/{i}"),
                                format!("the required name {name} is not among `properties`"),
                                "declare it under `properties`, or remove it from `required`",
                            ));
                        }
                    }
                }
            }
            Some(_) => {
                return Err(blocker(
                    format!("{at}/required"),
                    "`required` that is not a list",
                    "make `required` a list of property names",
                ));
            }
        }
        let mut changed = false;
        let mut lowered_properties = Map::new();
        for (name, sub) in properties {
            let sub_at = format!("{at}/properties/{}", escape(name));
            self.properties += 1;
            if self.properties > MAX_PROPERTIES {
                return Err(blocker(
                    sub_at,
                    format!("more than {MAX_PROPERTIES} object properties in all"),
                    format!("declare at most {MAX_PROPERTIES} properties in the whole schema"),
                ));
            }
            self.add_strings(name.chars().count(), &sub_at)?;
            let optional = !required.iter().any(|r| r.as_str() == Some(name));
            let inject = optional && sub.as_object().is_some_and(|s| !accepts_null(s));
            // A `const` is wrapped in `anyOf`, one level deeper.
            let wrap = inject && sub.get("const").is_some();
            let lowered = self.node(sub, &sub_at, depth + 1 + usize::from(wrap))?;
            changed |= lowered.changed || optional;
            let mut schema = lowered.schema;
            if inject {
                schema = self.nullable(schema, &sub_at)?;
                plan.injected.insert(name.clone());
            }
            if !lowered.plan.is_empty() {
                plan.properties.insert(name.clone(), lowered.plan);
            }
            if optional {
                required.push(Value::String(name.clone()));
            }
            lowered_properties.insert(name.clone(), schema);
        }
        if m.contains_key("properties") {
            out.insert("properties".into(), Value::Object(lowered_properties));
        }
        if m.contains_key("required") || !required.is_empty() {
            out.insert("required".into(), Value::Array(required));
        }
        Ok(changed)
    }

    /// `schema` (lowered) made to admit `null` as well.
    fn nullable(&mut self, schema: Value, at: &str) -> Result<Value, Blocker> {
        let Value::Object(mut m) = schema else {
            return Ok(schema);
        };
        if m.contains_key("const") {
            return Ok(serde_json::json!({ "anyOf": [m, { "type": "null" }] }));
        }
        if let Some(Value::Array(branches)) = m.get_mut("anyOf") {
            branches.push(serde_json::json!({ "type": "null" }));
            return Ok(Value::Object(m));
        }
        match m.get_mut("type") {
            Some(Value::String(t)) if t != "null" => {
                let t = std::mem::take(t);
                m.insert("type".into(), serde_json::json!([t, "null"]));
            }
            Some(Value::Array(ts)) if !ts.iter().any(|t| t == "null") => {
                ts.push(Value::String("null".into()));
            }
            _ => {}
        }
        if let Some(Value::Array(values)) = m.get_mut("enum")
            && !values.contains(&Value::Null)
        {
            values.push(Value::Null);
            self.add_enum_values(1, &format!("{at}/enum"))?;
        }
        Ok(Value::Object(m))
    }
}

/// Whether the schema `s` admits `null`: its `type`, `anyOf`, `enum` and
/// `const` all allow it.
fn accepts_null(s: &Map<String, Value>) -> bool {
    let type_ok = match s.get("type") {
        None => true,
        Some(Value::String(t)) => t == "null",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "null"),
        Some(_) => false,
    };
    let any_ok = match s.get("anyOf") {
        None => true,
        Some(Value::Array(bs)) => bs.iter().any(|b| b.as_object().is_some_and(accepts_null)),
        Some(_) => false,
    };
    let enum_ok = s
        .get("enum")
        .is_none_or(|e| e.as_array().is_some_and(|e| e.contains(&Value::Null)));
    let const_ok = s.get("const").is_none_or(Value::is_null);
    type_ok && any_ok && enum_ok && const_ok
}

/// Unit tests of the lowering rules; `tests/it/strict_lowering.rs` checks
/// them against an independent reading of the guide and the project's
/// validator.
#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use templiqx::contracts::json;

    fn strict(schema: &Value) -> (Value, NullPlan) {
        match lower(schema) {
            Lowering::Strict { schema, nulls } => (schema, nulls),
            other => panic!("not strict: {other:?}"),
        }
    }

    fn not_strict(schema: &Value) -> (String, String) {
        match lower(schema) {
            Lowering::NotStrict {
                pointer, reason, ..
            } => (pointer, reason),
            other => panic!("strict: {other:?}"),
        }
    }

    fn object(properties: Value, required: &[&str]) -> Value {
        json!({
            "type": "object", "additionalProperties": false,
            "required": required, "properties": properties
        })
    }

    fn parse(text: &str) -> Json {
        json::parse(text).unwrap()
    }

    #[test]
    fn the_schemas_of_the_bug_report_are_not_strict_at_the_right_node() {
        let tags = object(
            json!({"name": {"type": "string"}, "tags": {"type": "array"}}),
            &["name", "tags"],
        );
        assert_eq!(
            not_strict(&tags),
            ("/properties/tags".into(), "an array without `items`".into())
        );
        let extra = object(
            json!({"extra": {"description": "anything else"}}),
            &["extra"],
        );
        assert_eq!(
            not_strict(&extra),
            ("/properties/extra".into(), "a schema without `type`".into())
        );
    }

    #[test]
    fn an_optional_string_becomes_required_and_nullable() {
        let schema = object(
            json!({
                "id": {"type": "string"},
                "note": {"type": "string", "description": "a remark", "format": "date"}
            }),
            &["id"],
        );
        let (lowered, nulls) = strict(&schema);
        assert_eq!(
            lowered,
            object(
                json!({
                    "id": {"type": "string"},
                    "note": {"type": ["string", "null"], "description": "a remark", "format": "date"}
                }),
                &["id", "note"],
            )
        );
        assert_eq!(nulls.pointers(), ["/properties/note"]);
        assert_eq!(
            nulls.restore(parse(r#"{"id": "a", "note": null}"#)),
            parse(r#"{"id": "a"}"#)
        );
        assert_eq!(
            nulls.restore(parse(r#"{"id": "a", "note": "2024-01-02"}"#)),
            parse(r#"{"id": "a", "note": "2024-01-02"}"#)
        );
    }

    #[test]
    fn an_optional_enum_gains_null_in_its_enum() {
        let schema = object(
            json!({"mood": {"type": "string", "enum": ["calm", "angry"]}}),
            &[],
        );
        let (lowered, nulls) = strict(&schema);
        assert_eq!(
            lowered["properties"]["mood"],
            json!({"type": ["string", "null"], "enum": ["calm", "angry", null]})
        );
        assert_eq!(lowered["required"], json!(["mood"]));
        assert_eq!(nulls.pointers(), ["/properties/mood"]);
        // A nullable type whose enum leaves null out does not admit null:
        // null is injected into the enum alone.
        let schema = object(
            json!({"mood": {"type": ["null", "string"], "enum": ["calm"]}}),
            &[],
        );
        let (lowered, nulls) = strict(&schema);
        assert_eq!(
            lowered["properties"]["mood"],
            json!({"type": ["null", "string"], "enum": ["calm", null]})
        );
        assert!(!nulls.is_empty());
    }

    #[test]
    fn an_optional_const_is_wrapped_in_any_of_with_null() {
        let schema = object(
            json!({"kind": {"type": "string", "const": "lease", "title": "Kind"}}),
            &[],
        );
        let (lowered, nulls) = strict(&schema);
        assert_eq!(
            lowered["properties"]["kind"],
            json!({"anyOf": [
                {"type": "string", "const": "lease", "title": "Kind"},
                {"type": "null"}
            ]})
        );
        assert_eq!(nulls.pointers(), ["/properties/kind"]);
        assert_eq!(nulls.restore(parse(r#"{"kind": null}"#)), parse("{}"));
    }

    #[test]
    fn an_optional_nullable_property_is_made_required_and_its_null_is_kept() {
        let schema = object(
            json!({"end": {"type": ["null", "string"], "format": "date"}}),
            &[],
        );
        let (lowered, nulls) = strict(&schema);
        assert_eq!(lowered["properties"]["end"], schema["properties"]["end"]);
        assert_eq!(lowered["required"], json!(["end"]));
        assert!(nulls.is_empty(), "{nulls:?}");
        let reply = parse(r#"{"end": null}"#);
        assert_eq!(nulls.restore(reply.clone()), reply);
    }

    #[test]
    fn nested_objects_inside_arrays_are_lowered_and_restored() {
        let item = object(
            json!({"n": {"type": "integer", "minimum": 0}, "label": {"type": "string"}}),
            &["n"],
        );
        let schema = object(
            json!({"rows": {"type": "array", "minItems": 1, "items": item}}),
            &["rows"],
        );
        let (lowered, nulls) = strict(&schema);
        assert_eq!(
            lowered["properties"]["rows"]["items"]["properties"]["label"],
            json!({"type": ["string", "null"]})
        );
        assert_eq!(
            lowered["properties"]["rows"]["items"]["required"],
            json!(["n", "label"])
        );
        assert_eq!(
            nulls.pointers(),
            ["/properties/rows/items/properties/label"]
        );
        assert_eq!(
            nulls.restore(parse(
                r#"{"rows": [{"n": 1, "label": null}, {"n": 2, "label": "x"}, 7]}"#
            )),
            parse(r#"{"rows": [{"n": 1}, {"n": 2, "label": "x"}, 7]}"#)
        );
        // A reply in the wrong shape is left for the validator.
        let odd = parse(r#"{"rows": {"label": null}}"#);
        assert_eq!(nulls.restore(odd.clone()), odd);
    }

    #[test]
    fn keywords_outside_the_strict_subset_are_not_strict() {
        let schema = object(
            json!({"name": {"type": "string", "minLength": 1, "maxLength": 9}}),
            &["name"],
        );
        assert_eq!(
            not_strict(&schema),
            (
                "/properties/name/maxLength".into(),
                "`maxLength` is not supported in strict mode".into()
            )
        );
        let schema = object(
            json!({"name": {"type": "string", "minLength": 1}}),
            &["name"],
        );
        assert_eq!(not_strict(&schema).0, "/properties/name/minLength");
        let schema = object(json!({"at": {"type": "string", "format": "uri"}}), &["at"]);
        assert_eq!(not_strict(&schema).0, "/properties/at/format");
    }

    #[test]
    fn an_open_object_is_not_strict() {
        let schema = json!({
            "type": "object", "additionalProperties": false, "required": ["meta"],
            "properties": {"meta": {"type": "object", "properties": {"a": {"type": "string"}}}}
        });
        let (pointer, reason) = not_strict(&schema);
        assert_eq!(pointer, "/properties/meta");
        assert!(
            reason.contains("`additionalProperties` is not `false`"),
            "{reason}"
        );
        let mut open = schema;
        open["properties"]["meta"]["additionalProperties"] = true.into();
        assert_eq!(not_strict(&open).0, "/properties/meta");
        assert_eq!(not_strict(&json!({"type": "object"})).0, "");
        assert_eq!(not_strict(&json!({})).0, "");
        assert_eq!(
            not_strict(&json!({"type": "array", "items": {"type": "string"}})).0,
            "/type"
        );
    }

    #[test]
    fn property_names_are_escaped_in_pointers() {
        let schema = object(
            json!({"a/b~c": {"type": "array"}, "ok": {"type": "string"}}),
            &["a/b~c"],
        );
        assert_eq!(not_strict(&schema).0, "/properties/a~1b~0c");
        let schema = object(json!({"x/y": {"type": "string"}}), &[]);
        assert_eq!(strict(&schema).1.pointers(), ["/properties/x~1y"]);
    }

    #[test]
    fn nesting_beyond_ten_levels_is_not_strict() {
        // `levels` nested objects, the innermost holding one string.
        fn nested(levels: usize) -> Value {
            let mut schema = json!({"type": "string"});
            for _ in 0..levels {
                schema = object(json!({"a": schema}), &["a"]);
            }
            schema
        }
        // 9 objects and the string: 10 levels.
        strict(&nested(9));
        let (pointer, reason) = not_strict(&nested(10));
        assert_eq!(pointer, format!("{}", "/properties/a".repeat(10)));
        assert_eq!(reason, "nesting deeper than 10 levels");
        // The `anyOf` wrapper of an optional `const` counts as a level.
        let mut deep = json!({"type": "string", "const": "x"});
        deep = object(json!({"a": deep}), &[]);
        for _ in 0..8 {
            deep = object(json!({"a": deep}), &["a"]);
        }
        assert_eq!(not_strict(&deep).0, "/properties/a".repeat(9));
    }

    #[test]
    fn the_guides_size_limits_are_enforced() {
        let many: Map<String, Value> = (0..=MAX_PROPERTIES)
            .map(|i| (format!("p{i:04}"), json!({"type": "boolean"})))
            .collect();
        let names: Vec<&str> = many.keys().map(String::as_str).collect();
        let schema = object(Value::Object(many.clone()), &names);
        let (pointer, reason) = not_strict(&schema);
        assert_eq!(pointer, "/properties/p5000");
        assert!(reason.contains("5000 object properties"), "{reason}");
        let values: Vec<Value> = (0..MAX_ENUM_VALUES).map(|i| json!(i)).collect();
        let schema = object(json!({"n": {"type": "integer", "enum": values}}), &["n"]);
        strict(&schema);
        // The injected null is the 1001st value.
        let schema = object(json!({"n": {"type": "integer", "enum": values}}), &[]);
        assert_eq!(not_strict(&schema).0, "/properties/n/enum");
        let long = "x".repeat(MAX_STRING_LENGTH);
        let schema = object(json!({"k": {"type": "string", "const": long}}), &["k"]);
        assert_eq!(not_strict(&schema).0, "/properties/k/const");
    }

    #[test]
    fn an_enum_over_an_object_with_optional_properties_is_not_strict() {
        let schema = object(
            json!({"o": {
                "type": "object", "additionalProperties": false,
                "properties": {"a": {"type": "integer"}},
                "enum": [{}, {"a": 1}]
            }}),
            &["o"],
        );
        assert_eq!(not_strict(&schema).0, "/properties/o/enum");
    }

    #[test]
    fn lowering_keeps_every_keyword() {
        let schema = object(
            json!({"n": {
                "type": "number", "title": "N", "description": "d",
                "minimum": 0, "exclusiveMaximum": 10
            }}),
            &[],
        );
        let (lowered, _) = strict(&schema);
        let mut expected = schema["properties"]["n"].clone();
        expected["type"] = json!(["number", "null"]);
        assert_eq!(lowered["properties"]["n"], expected);
        assert_eq!(lowered["additionalProperties"], json!(false));
    }
}
