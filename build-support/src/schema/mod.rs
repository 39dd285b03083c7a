//! Checking and compiling schemas of the bounded JSON Schema subset
//! (`docs/format.md`, "The bounded JSON Schema subset").
//!
//! Every schema in a contract (inputs, context, component parameters,
//! extensions, output) goes through [`compile_schema`], which either returns
//! the compiled [`Schema`] that generated code embeds and the validator in
//! [`templiqx_contracts::validate`] checks values against, or *every*
//! problem found, each with its JSON pointer, a message and a help line:
//!
//! - `TQX_SCHEMA_UNSUPPORTED`: a keyword outside the subset (`$ref`,
//!   `$schema`, `oneOf`, `pattern`, ...), a boolean schema (`true`/`false`),
//!   a form of a subset keyword the subset leaves out (`type` naming two
//!   non-null types, `additionalProperties` or `items` given as anything
//!   but a boolean / one schema, a `format` other than `date`/`date-time`),
//!   or nesting deeper than [`MAX_SCHEMA_DEPTH`].
//! - `TQX_SCHEMA_INVALID`: a subset keyword with a malformed value, i.e. one
//!   that JSON Schema 2020-12 itself rules out (`minLength: -1`,
//!   `type: strnig`, `required: [1]`, duplicate `required` names, a schema
//!   that is not an object), plus duplicate `enum` values (2020-12 says they
//!   SHOULD be unique; the subset makes it a MUST, as a generated Rust enum
//!   cannot have two equal variants).
//! - `TQX_SCHEMA_BOUNDS`: constraints no value can satisfy, or that can
//!   never apply: a minimum above its maximum (lengths, items, numbers,
//!   inclusive and exclusive combined), an empty `enum`, an `enum`/`const`
//!   value the rest of the schema rejects (wrong type, out of bounds, bad
//!   format), a `const` outside the `enum`, no integer inside the bounds of
//!   `type: integer`, a `required` name missing from `properties` under
//!   `additionalProperties: false`, and a keyword that cannot apply to the
//!   declared type (`minimum` on `type: string`). JSON Schema ignores such
//!   a keyword; in a contract it is always a mistake (the author believes a
//!   constraint holds that does not), so it is reported as a bound that can
//!   never take effect.
//!
//! ```
//! use serde_json::json;
//! use templiqx_build::schema::compile_schema;
//!
//! let schema = compile_schema(&json!({"type": "string", "minLength": 1}), "/inputs/name/schema")
//!     .unwrap();
//! assert_eq!(schema.min_length, Some(1));
//!
//! let errors = compile_schema(&json!({"type": "string", "pattern": "^a"}), "/inputs/name/schema")
//!     .unwrap_err();
//! assert_eq!(errors[0].code.as_str(), "TQX_SCHEMA_UNSUPPORTED");
//! assert_eq!(errors[0].json_pointer.as_deref(), Some("/inputs/name/schema/pattern"));
//! ```

mod checks;

use serde_json::{Map, Value};
use templiqx_contracts::diagnostic::pointer_push;
use templiqx_contracts::words;
use templiqx_contracts::{
    Code, Diagnostic, Format, JsonType, Number, Ptr, Schema, Seq, Str, TypeSet,
};

/// The keywords of the bounded subset, in the order `docs/format.md`, "The
/// bounded JSON Schema subset" lists them.
pub const KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minItems",
    "maxItems",
    "format",
    "description",
    "title",
];

/// How deeply schemas may nest (`properties` / `items` levels below the
/// root). Deeper schemas fail with `TQX_SCHEMA_UNSUPPORTED`; the bound keeps
/// compilation, validation and code generation clear of the stack limit.
pub const MAX_SCHEMA_DEPTH: usize = 64;

const TYPE_NAMES: &[&str] = &[
    "null", "boolean", "integer", "number", "string", "array", "object",
];

/// Checks the schema document `doc` against the bounded subset and compiles
/// it.
///
/// `pointer` is the RFC 6901 JSON pointer of `doc` within its file (e.g.
/// `/inputs/name/schema`); each diagnostic's `json_pointer` is the offending
/// keyword or element below it (`/inputs/name/schema/minLength`,
/// `/inputs/name/schema/required/1`). Diagnostics have a message and a help
/// line; `file` and `span` are left `None` for the caller to fill in. All
/// problems are collected (nested schemas included), with the codes listed
/// in the [module documentation](self).
///
/// The compiled schema uses owned storage; `properties` keep the order of
/// `doc`'s map.
pub fn compile_schema(doc: &Value, pointer: &str) -> Result<Schema, Vec<Diagnostic>> {
    let mut compiler = Compiler { diags: Vec::new() };
    let schema = compiler.schema(doc, pointer, 0);
    if compiler.diags.is_empty() {
        Ok(schema)
    } else {
        Err(compiler.diags)
    }
}

struct Compiler {
    diags: Vec<Diagnostic>,
}

impl Compiler {
    fn push(&mut self, code: Code, at: &str, message: String, help: impl Into<String>) {
        self.diags
            .push(Diagnostic::error(code, message).at(at).help(help));
    }

    fn schema(&mut self, doc: &Value, at: &str, depth: usize) -> Schema {
        let Some(obj) = self.object(doc, at, depth) else {
            return Schema::ANY;
        };
        let mut s = Schema::ANY;
        let mut enum_values: Option<&[Value]> = None;
        let mut properties_malformed = false;
        let mut const_value: Option<&Value> = None;
        let mut type_given = false;
        for (key, v) in obj {
            let kp = pointer_push(at, key);
            match key.as_str() {
                "type" => {
                    type_given = true;
                    s.types = self.types(v, &kp);
                }
                "properties" => match self.properties(v, &kp, depth) {
                    Some(properties) => s.properties = properties.into(),
                    None => properties_malformed = true,
                },
                "required" => s.required = self.required(v, &kp).into(),
                "additionalProperties" => match v {
                    Value::Bool(b) => s.additional_properties = *b,
                    Value::Object(_) => self.push(
                        Code::SchemaUnsupported,
                        &kp,
                        "`additionalProperties` with a schema is outside the bounded subset".into(),
                        "use `additionalProperties: false` (only declared properties) or `true`",
                    ),
                    other => self.push(
                        Code::SchemaInvalid,
                        &kp,
                        format!(
                            "`additionalProperties` must be a boolean, found {}",
                            words::kind_of(other)
                        ),
                        "use `additionalProperties: false` or `true`",
                    ),
                },
                "items" => match v {
                    Value::Array(_) => self.push(
                        Code::SchemaUnsupported,
                        &kp,
                        "`items` as an array of schemas (tuple validation) is outside the bounded subset"
                            .into(),
                        "give `items` one schema that every element satisfies",
                    ),
                    _ => s.items = Some(Ptr::from(self.schema(v, &kp, depth + 1))),
                },
                "enum" => match v {
                    Value::Array(values) => enum_values = Some(values),
                    other => self.push(
                        Code::SchemaInvalid,
                        &kp,
                        format!("`enum` must be an array, found {}", words::kind_of(other)),
                        "list the allowed values, e.g. `enum: [low, medium, high]`",
                    ),
                },
                "const" => const_value = Some(v),
                "minLength" => s.min_length = self.count(v, &kp, key),
                "maxLength" => s.max_length = self.count(v, &kp, key),
                "minItems" => s.min_items = self.count(v, &kp, key),
                "maxItems" => s.max_items = self.count(v, &kp, key),
                "minimum" => s.minimum = self.number(v, &kp, key),
                "maximum" => s.maximum = self.number(v, &kp, key),
                "exclusiveMinimum" => s.exclusive_minimum = self.number(v, &kp, key),
                "exclusiveMaximum" => s.exclusive_maximum = self.number(v, &kp, key),
                "format" => s.format = self.format(v, &kp),
                "title" => s.title = self.text(v, &kp, key),
                "description" => s.description = self.text(v, &kp, key),
                _ => self.unsupported_keyword(key, &kp),
            }
        }

        if type_given && !s.types.is_any() {
            self.check_applicability(obj, &s, at);
        }
        self.check_lengths(&s, at);
        self.check_numbers(&s, at);
        if !properties_malformed {
            self.check_required(&s, at);
        }

        // `enum` and `const` values must each satisfy the rest of the
        // schema; `s` has neither yet, so it is exactly "the rest".
        let enum_values = enum_values.map(|values| self.enum_values(values, &s, at));
        let const_value = const_value.map(|v| self.const_value(v, enum_values.as_deref(), &s, at));
        s.enum_values = enum_values.map(Seq::from);
        s.const_value = const_value;
        s
    }

    /// The schema object at `at`, or `None` after reporting a boolean
    /// schema (`TQX_SCHEMA_UNSUPPORTED`), another non-object
    /// (`TQX_SCHEMA_INVALID`) or nesting beyond [`MAX_SCHEMA_DEPTH`].
    fn object<'v>(
        &mut self,
        doc: &'v Value,
        at: &str,
        depth: usize,
    ) -> Option<&'v Map<String, Value>> {
        let obj = match doc {
            Value::Object(obj) => obj,
            Value::Bool(b) => {
                let help = if *b {
                    "write `{}` for a schema that accepts any value"
                } else {
                    "a `false` schema accepts no value; remove the property or item it describes"
                };
                self.push(
                    Code::SchemaUnsupported,
                    at,
                    format!("the boolean schema `{b}` is outside the bounded JSON Schema subset"),
                    help,
                );
                return None;
            }
            other => {
                self.push(
                    Code::SchemaInvalid,
                    at,
                    format!(
                        "a schema must be an object, found {}",
                        words::kind_of(other)
                    ),
                    "write a schema object, e.g. `{ type: string }`",
                );
                return None;
            }
        };
        if depth > MAX_SCHEMA_DEPTH {
            self.push(
                Code::SchemaUnsupported,
                at,
                format!("schemas nested more than {MAX_SCHEMA_DEPTH} levels deep are outside the bounded subset"),
                "flatten the structure",
            );
            return None;
        }
        Some(obj)
    }

    fn unsupported_keyword(&mut self, key: &str, at: &str) {
        let help = match key {
            "$schema" => "remove `$schema`: contract schemas are always the bounded subset of JSON Schema 2020-12".to_owned(),
            "$ref" => "inline the referenced schema (only an extension's `schema` may be a pinned `tool_contract:` reference, resolved before this check)".to_owned(),
            "$defs" | "definitions" | "$id" | "$anchor" | "$dynamicRef" | "$dynamicAnchor" => {
                "schemas are self-contained in a contract: inline the definitions".to_owned()
            }
            "allOf" | "anyOf" | "oneOf" | "not" | "if" | "then" | "else" => {
                "combinators are outside the subset: use one schema, with `enum` for alternatives and `type: [T, \"null\"]` for an optional value".to_owned()
            }
            "pattern" => {
                "patterns are outside the subset: constrain with `enum`, `minLength`/`maxLength` or `format`".to_owned()
            }
            "patternProperties" | "propertyNames" | "dependentSchemas" | "dependentRequired"
            | "unevaluatedProperties" | "minProperties" | "maxProperties" => {
                "declare each property under `properties`, and use `additionalProperties: false` to forbid others".to_owned()
            }
            "prefixItems" | "additionalItems" | "unevaluatedItems" | "contains" | "minContains"
            | "maxContains" | "uniqueItems" => {
                "arrays are described by one `items` schema plus `minItems`/`maxItems`".to_owned()
            }
            "multipleOf" => "constrain numbers with `minimum`/`maximum` or `enum`".to_owned(),
            "default" | "examples" | "deprecated" | "readOnly" | "writeOnly" | "$comment" => {
                "annotations other than `title` and `description` are outside the subset: move the text into `description`".to_owned()
            }
            _ => words::did_you_mean(key, KEYWORDS, "the subset's keywords are: "),
        };
        self.push(
            Code::SchemaUnsupported,
            at,
            format!("`{key}` is not a keyword of the bounded JSON Schema subset"),
            help,
        );
    }

    /// `type`: one name, or a list of one name plus optionally `"null"`.
    fn types(&mut self, v: &Value, at: &str) -> TypeSet {
        let names: Vec<(String, &Value)> = match v {
            Value::String(_) => vec![(at.to_owned(), v)],
            Value::Array(list) if list.is_empty() => {
                self.push(
                    Code::SchemaInvalid,
                    at,
                    "`type` must name at least one type".into(),
                    "write one type, e.g. `type: string`",
                );
                return TypeSet::ANY;
            }
            Value::Array(list) => list
                .iter()
                .enumerate()
                .map(|(i, t)| (pointer_push(at, &i.to_string()), t))
                .collect(),
            other => {
                self.push(
                    Code::SchemaInvalid,
                    at,
                    format!(
                        "`type` must be a type name or an array of them, found {}",
                        words::kind_of(other)
                    ),
                    format!("use one of {}", words::names(TYPE_NAMES)),
                );
                return TypeSet::ANY;
            }
        };
        let mut set = TypeSet::ANY;
        let mut ok = true;
        for (p, t) in names {
            let Value::String(name) = t else {
                self.push(
                    Code::SchemaInvalid,
                    &p,
                    format!("a type must be a string, found {}", words::kind_of(t)),
                    format!("use one of {}", words::names(TYPE_NAMES)),
                );
                ok = false;
                continue;
            };
            match JsonType::parse(name) {
                None => {
                    let help = words::did_you_mean(name, TYPE_NAMES, "use one of ");
                    self.push(
                        Code::SchemaInvalid,
                        &p,
                        format!("unknown type \"{name}\""),
                        help,
                    );
                    ok = false;
                }
                Some(t) if !set.is_any() && set.0 & TypeSet::bit(t) != 0 => {
                    self.push(
                        Code::SchemaInvalid,
                        &p,
                        format!("type \"{name}\" is listed twice"),
                        "list each type once",
                    );
                    ok = false;
                }
                Some(t) => set = set.with(t),
            }
        }
        if ok && set.without_null().iter().count() > 1 {
            let names: Vec<&str> = set.iter().map(JsonType::as_str).collect();
            self.push(
                Code::SchemaUnsupported,
                at,
                format!(
                    "a union of several types ({}) is outside the bounded subset",
                    names.join(", ")
                ),
                "use one type, optionally with \"null\" (e.g. `type: [string, \"null\"]`)",
            );
            return TypeSet::ANY;
        }
        if ok { set } else { TypeSet::ANY }
    }

    /// `None` when `properties` is not a map (reported).
    fn properties(&mut self, v: &Value, at: &str, depth: usize) -> Option<Vec<(Str, Schema)>> {
        let Value::Object(props) = v else {
            self.push(
                Code::SchemaInvalid,
                at,
                format!(
                    "`properties` must be an object from names to schemas, found {}",
                    words::kind_of(v)
                ),
                "write `properties: { name: { type: string } }`",
            );
            return None;
        };
        let compiled = props
            .iter()
            .map(|(name, sub)| {
                let schema = self.schema(sub, &pointer_push(at, name), depth + 1);
                (Str::Owned(name.clone()), schema)
            })
            .collect();
        Some(compiled)
    }

    fn required(&mut self, v: &Value, at: &str) -> Vec<Str> {
        let Value::Array(list) = v else {
            self.push(
                Code::SchemaInvalid,
                at,
                format!(
                    "`required` must be an array of property names, found {}",
                    words::kind_of(v)
                ),
                "write `required: [name, ...]`",
            );
            return Vec::new();
        };
        let mut names: Vec<Str> = Vec::with_capacity(list.len());
        for (i, item) in list.iter().enumerate() {
            let p = pointer_push(at, &i.to_string());
            match item {
                Value::String(name) => {
                    if let Some(first) = names.iter().position(|n| n == name) {
                        self.push(
                            Code::SchemaInvalid,
                            &p,
                            format!(
                                "\"{name}\" is listed twice in `required` (first at index {first})"
                            ),
                            "list each required property once",
                        );
                    } else {
                        names.push(Str::Owned(name.clone()));
                    }
                }
                other => self.push(
                    Code::SchemaInvalid,
                    &p,
                    format!(
                        "`required` entries must be property names, found {}",
                        words::kind_of(other)
                    ),
                    "write property names as strings",
                ),
            }
        }
        names
    }

    /// A non-negative integer keyword (`minLength`, `maxItems`, ...).
    /// Integer-valued decimals (`2.0`) are accepted, as in JSON Schema.
    fn count(&mut self, v: &Value, at: &str, keyword: &str) -> Option<u64> {
        let n = v.as_number().map(Number::from_json);
        let found = match n {
            Some(Number::I64(i)) if i >= 0 => return Some(i as u64),
            Some(Number::U64(u)) => return Some(u),
            Some(Number::F64(f))
                if f >= 0.0 && f.fract() == 0.0 && f < 18_446_744_073_709_551_616.0 =>
            {
                return Some(f as u64);
            }
            Some(n) => n
                .to_json()
                .map_or_else(|| "a number".to_owned(), |n| n.to_string()),
            None => words::kind_of(v).to_owned(),
        };
        self.push(
            Code::SchemaInvalid,
            at,
            format!("`{keyword}` must be a non-negative integer, found {found}"),
            format!("write a whole number of 0 or more, e.g. `{keyword}: 1`"),
        );
        None
    }

    fn number(&mut self, v: &Value, at: &str, keyword: &str) -> Option<Number<'static>> {
        match v {
            Value::Number(n) => Some(Number::from_json(n)),
            other => {
                self.push(
                    Code::SchemaInvalid,
                    at,
                    format!(
                        "`{keyword}` must be a number, found {}",
                        words::kind_of(other)
                    ),
                    format!("write a number, e.g. `{keyword}: 0`"),
                );
                None
            }
        }
    }

    fn format(&mut self, v: &Value, at: &str) -> Option<Format> {
        match v {
            Value::String(f) if f == "date" => Some(Format::Date),
            Value::String(f) if f == "date-time" => Some(Format::DateTime),
            Value::String(f) => {
                self.push(
                    Code::SchemaUnsupported,
                    at,
                    format!("format \"{f}\" is outside the bounded subset"),
                    "the subset enforces `format: date` and `format: date-time` (RFC 3339) only",
                );
                None
            }
            other => {
                self.push(
                    Code::SchemaInvalid,
                    at,
                    format!("`format` must be a string, found {}", words::kind_of(other)),
                    "write `format: date` or `format: date-time`",
                );
                None
            }
        }
    }

    fn text(&mut self, v: &Value, at: &str, keyword: &str) -> Option<Str> {
        match v {
            Value::String(t) => Some(Str::Owned(t.clone())),
            other => {
                self.push(
                    Code::SchemaInvalid,
                    at,
                    format!(
                        "`{keyword}` must be a string, found {}",
                        words::kind_of(other)
                    ),
                    format!("write `{keyword}` as text"),
                );
                None
            }
        }
    }
}
