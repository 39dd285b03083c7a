//! The JSON Schema (draft 2020-12) of the `templiqx/v1alpha1` contract
//! format, generated from the same DTOs the parser produces ([`crate::dto`]),
//! for editors (yaml-language-server) and other tools.
//!
//! The schema is as strict as the parser where JSON Schema can say it:
//! every object is closed (`additionalProperties: false`), content nodes and
//! expressions are unions tagged by `kind`, components are the typed form or
//! the legacy list form, required fields are exactly those the parser
//! ([`crate::parse_str`]) requires, and `null` is accepted exactly where the parser accepts it
//! (`inputs: null` reads as no inputs). Some of the compiler's later checks
//! are expressed too: the id and version formats, at least one message,
//! namespaced extension keys, the keywords and keyword value types of the
//! bounded JSON Schema subset, and pinned tool-contract references. Rules
//! that need more than one value at a time (references against declared
//! schemas, impossible bounds, eval fixtures against their schemas) remain
//! the compiler's: a document the schema accepts can still fail `check`.
//!
//! ```
//! let schema = templiqx_build::json_schema::contract_schema();
//! assert_eq!(schema["$schema"], "https://json-schema.org/draft/2020-12/schema");
//! assert_eq!(schema["additionalProperties"], false);
//! ```
//!
//! Available with the `json-schema` feature.

use crate::check::CASE;
use crate::dto::{ContentNode, Contract, Expr, ExprKind, NodeKind, OrderedMap};
use schemars::{JsonSchema, Schema, SchemaGenerator, generate::SchemaSettings, json_schema};
use std::borrow::Cow;
use templiqx_contracts::API_VERSION;
use templiqx_contracts::expr::{Kind, Place};

/// The pattern of a contract id (checked by the compiler as `TQX_INVALID_VALUE`).
pub const ID_PATTERN: &str = "^[A-Za-z][A-Za-z0-9._-]*$";

/// An eval id: holds no `#`, which separates a dataset entry's id from a
/// row's in a fixture name (`docs/format.md`, "Eval fixtures").
pub const EVAL_ID_PATTERN: &str = "^[^#]+$";

/// SemVer 2.0.0 (the regular expression suggested by semver.org, without
/// named groups).
pub const SEMVER_PATTERN: &str = r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$";

/// A namespaced extension key: `namespace.name`, neither part empty, the
/// name neither starting nor ending with a dot.
pub const EXTENSION_KEY_PATTERN: &str = r"^[^.]+\.(?:[^.]|[^.].*[^.])$";

/// The JSON Schema of a contract document, as a JSON value.
pub fn contract_schema() -> serde_json::Value {
    let mut generator = SchemaSettings::draft2020_12()
        .for_deserialize()
        .into_generator();
    let generated = generator.root_schema_for::<Contract>().to_value();
    // The identifying keywords first, then the rest in generation order.
    let mut out = serde_json::Map::new();
    out.insert("$schema".to_owned(), generated["$schema"].clone());
    out.insert("title".to_owned(), format!("{API_VERSION} contract").into());
    if let serde_json::Value::Object(rest) = generated {
        for (key, value) in rest {
            if !out.contains_key(&key) {
                out.insert(key, value);
            }
        }
    }
    serde_json::Value::Object(out)
}

/// The operator of a `compare` expression.
pub struct CompareOpName;

impl JsonSchema for CompareOpName {
    fn schema_name() -> Cow<'static, str> {
        "CompareOp".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "string",
            "enum": ["lt", "le", "gt", "ge"]
        })
    }
}

/// An eval entry's `dataset` (`docs/format.md`, "Datasets"): a
/// package-relative path with `/` separators to a `.jsonl` or `.csv` file.
pub struct DatasetPath;

impl JsonSchema for DatasetPath {
    fn schema_name() -> Cow<'static, str> {
        "DatasetPath".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A package-relative path (with `/`, inside the package) to a JSON Lines (.jsonl) or CSV (.csv) file whose rows are the entry's cases.",
            "type": "string",
            "pattern": "\\.(jsonl|csv)$"
        })
    }
}

/// `api_version`: the one version this compiler implements.
pub struct ApiVersion;

impl JsonSchema for ApiVersion {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        "ApiVersion".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "string", "const": API_VERSION })
    }
}

/// A message role.
pub struct RoleName;

impl JsonSchema for RoleName {
    fn schema_name() -> Cow<'static, str> {
        "Role".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "Who speaks the message.",
            "type": "string",
            "enum": ["system", "developer", "user", "assistant"]
        })
    }
}

/// A fixed interpolation filter.
pub struct FilterName;

impl JsonSchema for FilterName {
    fn schema_name() -> Cow<'static, str> {
        "Filter".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A fixed filter: `trim`, `lower` and `upper` take strings, `json` any value, `format_date` an ISO date and `format_number` a number (both driven by `context.locale`).",
            "type": "string",
            "enum": ["trim", "lower", "upper", "json", "format_date", "format_number"]
        })
    }
}

/// `runtime_policy`: the closed set of bounded runtime hints, with the
/// ranges the parser enforces (`TQX_POLICY_RANGE`).
pub struct RuntimePolicySchema;

impl JsonSchema for RuntimePolicySchema {
    fn schema_name() -> Cow<'static, str> {
        "RuntimePolicy".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "Bounded runtime hints.",
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "temperature": {
                    "description": "Sampling temperature.",
                    "type": "number", "minimum": 0, "maximum": 2
                },
                "top_p": {
                    "description": "Nucleus sampling mass.",
                    "type": "number", "minimum": 0, "maximum": 1
                },
                "max_output_tokens": {
                    "description": "Output token cap.",
                    "type": "integer", "minimum": 1, "maximum": 1_000_000
                },
                "timeout_ms": {
                    "description": "Per-attempt timeout in milliseconds.",
                    "type": "integer", "minimum": 1, "maximum": 600_000
                },
                "max_attempts": {
                    "description": "Attempts including the first.",
                    "type": "integer", "minimum": 1, "maximum": 10
                }
            }
        })
    }
}

/// A schema of the bounded JSON Schema subset (`docs/format.md`, "The
/// bounded JSON Schema subset"): only the
/// subset's keywords, each with the value type JSON Schema gives it.
pub struct BoundedSchema;

impl JsonSchema for BoundedSchema {
    fn schema_name() -> Cow<'static, str> {
        "BoundedSchema".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let json_type = generator.subschema_for::<JsonTypeName>();
        let subschema = generator.subschema_for::<BoundedSchema>();
        let non_negative = json_schema!({ "type": "integer", "minimum": 0 });
        json_schema!({
            "description": "A JSON Schema of the bounded subset: type (one type, or one type plus \"null\"), properties, required, additionalProperties (boolean), items, enum, const, minLength, maxLength, minimum, maximum, exclusiveMinimum, exclusiveMaximum, minItems, maxItems, format (date, date-time), description, title.",
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "type": {
                    "anyOf": [
                        json_type,
                        {
                            "type": "array",
                            "items": json_type,
                            "minItems": 1,
                            "maxItems": 2,
                            "uniqueItems": true
                        }
                    ]
                },
                "properties": {
                    "type": "object",
                    "additionalProperties": subschema
                },
                "required": {
                    "type": "array",
                    "items": { "type": "string" },
                    "uniqueItems": true
                },
                "additionalProperties": { "type": "boolean" },
                "items": subschema,
                "enum": { "type": "array", "minItems": 1 },
                "const": true,
                "minLength": non_negative,
                "maxLength": non_negative,
                "minimum": { "type": "number" },
                "maximum": { "type": "number" },
                "exclusiveMinimum": { "type": "number" },
                "exclusiveMaximum": { "type": "number" },
                "minItems": non_negative,
                "maxItems": non_negative,
                "format": { "type": "string", "enum": ["date", "date-time"] },
                "description": { "type": "string" },
                "title": { "type": "string" }
            }
        })
    }
}

/// A JSON Schema type name.
pub struct JsonTypeName;

impl JsonSchema for JsonTypeName {
    fn schema_name() -> Cow<'static, str> {
        "JsonType".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "string",
            "enum": ["null", "boolean", "object", "array", "number", "string", "integer"]
        })
    }
}

/// An extension's schema: a bounded schema, or a pinned reference to a
/// package tool contract (`{$ref: tool_contract:NAME, fingerprint: sha256:HEX}`).
pub struct ExtensionSchema;

impl JsonSchema for ExtensionSchema {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        "ExtensionSchema".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "anyOf": [
                generator.subschema_for::<BoundedSchema>(),
                {
                    "description": "A reference to a tool contract of the package manifest, pinned by its fingerprint.",
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["$ref", "fingerprint"],
                    "properties": {
                        "$ref": { "type": "string", "pattern": "^tool_contract:.+$" },
                        "fingerprint": { "type": "string", "pattern": "^sha256:[0-9a-f]{64}$" }
                    }
                }
            ]
        })
    }
}

/// `extensions`: namespaced keys, each a typed extension.
pub struct Extensions;

impl JsonSchema for Extensions {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        "Extensions".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "object",
            "propertyNames": { "pattern": EXTENSION_KEY_PATTERN },
            "additionalProperties": generator.subschema_for::<crate::dto::ExtensionDecl>()
        })
    }
}

/// `components`: a mapping of component names to declarations; `null` and
/// an empty list also mean "no components", as the parser reads them.
pub struct Components;

impl JsonSchema for Components {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        "Components".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "anyOf": [
                {
                    "type": "object",
                    "additionalProperties": generator.subschema_for::<crate::dto::ComponentDecl>()
                },
                { "type": "null" },
                { "type": "array", "maxItems": 0 }
            ]
        })
    }
}

impl<T: JsonSchema> JsonSchema for OrderedMap<T> {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        format!("Map_of_{}", T::schema_name()).into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "object",
            "additionalProperties": generator.subschema_for::<T>()
        })
    }
}

/// A content node is its kind (the location is not part of the format).
impl JsonSchema for ContentNode {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        NodeKind::schema_name()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        generator.subschema_for::<NodeKind>()
    }
}

/// An expression of contract content: the kinds [`Place::Content`]
/// allows, operands included (the location is not part of the format).
impl JsonSchema for Expr {
    fn schema_name() -> Cow<'static, str> {
        "Expression".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let allowed: Vec<&str> = Place::Content.kinds().map(Kind::as_str).collect();
        let mut starts = roots(&[Place::Content]);
        starts.extend([
            "a `for_each` item".to_owned(),
            "a component parameter".to_owned(),
        ]);
        let path = format!("Dot-separated path starting at {}.", or_list(&starts));
        expression_schema(
            generator,
            |kind| Place::Content.allows(kind),
            "Expression",
            &path,
            format!(
                "An expression of contract content: {} (`compare`, `contains`, `length` and `judge` are for eval checks only).",
                allowed.join(", ")
            ),
        )
    }
}

/// An expression of an eval fixture's `expect` check: every kind
/// [`Place::Check`] allows, its operands [`CheckOperand`]s (a `judge` is a
/// whole check only: [`Place::allows_operand`]).
pub struct CheckExpression;

impl JsonSchema for CheckExpression {
    fn schema_name() -> Cow<'static, str> {
        "CheckExpression".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let allowed: Vec<&str> = Place::Check.kinds().map(Kind::as_str).collect();
        // Defines `CheckOperand`, which the operands refer to.
        generator.subschema_for::<CheckOperand>();
        let path = format!(
            "Dot-separated path starting at a root scope of eval checks: {}.",
            or_list(&roots(&[Place::Check]))
        );
        expression_schema(
            generator,
            |kind| Place::Check.allows(kind),
            "CheckOperand",
            &path,
            format!("An expression of an eval check: {}.", allowed.join(", ")),
        )
    }
}

/// An operand inside an eval check — a `judge`'s `with` values and `pass`
/// included: every kind [`Place::allows_operand`] allows in a check.
pub struct CheckOperand;

impl JsonSchema for CheckOperand {
    fn schema_name() -> Cow<'static, str> {
        "CheckOperand".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let allowed: Vec<&str> = Place::Check
            .kinds()
            .filter(|k| Place::Check.allows_operand(*k))
            .map(Kind::as_str)
            .collect();
        // The `pass` of a `judge` is an operand too, with its own root.
        let path = format!(
            "Dot-separated path starting at a root scope of eval checks: {}.",
            or_list(&roots(&[Place::Check, Place::Pass]))
        );
        expression_schema(
            generator,
            |kind| Place::Check.allows_operand(kind),
            "CheckOperand",
            &path,
            format!(
                "An operand of an eval check, or a `with` value or the `pass` of a `judge`: {} (a `judge` is a whole check only).",
                allowed.join(", ")
            ),
        )
    }
}

/// The root scopes of an expression written in `places` (`docs/format.md`,
/// "References and scoping"), from [`Place::roots`]: those of the first
/// place, then `case` (in the checks of a dataset entry, when the first
/// place is a check's), then each root of a later place with where it is
/// one ("`judge` (in the `pass` expression of a model-graded check)").
fn roots(places: &[Place]) -> Vec<String> {
    let Some((first, later)) = places.split_first() else {
        return Vec::new();
    };
    let mut out: Vec<String> = first.roots().iter().map(|r| format!("`{r}`")).collect();
    if *first == Place::Check && !first.roots().contains(&CASE) {
        out.push(format!("`{CASE}` (in the checks of a dataset entry)"));
    }
    for place in later {
        for root in place.roots() {
            if !first.roots().contains(root) {
                out.push(format!("`{root}` (in {})", place.describe()));
            }
        }
    }
    out
}

/// Alternatives joined with commas and a final "or".
fn or_list(items: &[String]) -> String {
    match items.split_last() {
        Some((last, init)) if !init.is_empty() => format!("{} or {last}", init.join(", ")),
        _ => items.concat(),
    }
}

/// The schema of an expression: the variants of [`ExprKind`] whose kind
/// `allows` (`docs/format.md`, "Where each kind is allowed"), their
/// operands referring to `operands`, so a nested kind is held to the rule
/// of operands; `path` describes a reference's path there (its root
/// scopes).
fn expression_schema(
    generator: &mut SchemaGenerator,
    allows: impl Fn(Kind) -> bool,
    operands: &str,
    path: &str,
    description: String,
) -> Schema {
    let mut value = ExprKind::json_schema(generator).to_value();
    let allowed = |variant: &serde_json::Value| {
        variant
            .pointer("/properties/kind/const")
            .and_then(serde_json::Value::as_str)
            .and_then(Kind::parse)
            .is_some_and(&allows)
    };
    if let Some(variants) = value
        .get_mut("oneOf")
        .and_then(serde_json::Value::as_array_mut)
    {
        variants.retain(allowed);
        let reference = variants
            .iter_mut()
            .find(|v| v.pointer("/properties/kind/const") == Some(&Kind::Ref.as_str().into()))
            .and_then(|v| v.pointer_mut("/properties/path"));
        if let Some(serde_json::Value::Object(field)) = reference {
            field.insert("description".to_owned(), path.into());
        }
    }
    let own = format!("#/$defs/{operands}");
    let content = format!("#/$defs/{}", Expr::schema_name());
    retarget(&mut value, &content, &own);
    if let serde_json::Value::Object(map) = &mut value {
        map.insert("description".to_owned(), description.into());
    }
    Schema::try_from(value).unwrap_or_default()
}

/// Rewrites every `$ref` to `from` in `value` to `to`.
fn retarget(value: &mut serde_json::Value, from: &str, to: &str) {
    match value {
        serde_json::Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                if key == "$ref" && v.as_str() == Some(from) {
                    *v = to.into();
                } else {
                    retarget(v, from, to);
                }
            }
        }
        serde_json::Value::Array(items) => {
            for v in items {
                retarget(v, from, to);
            }
        }
        _ => {}
    }
}
