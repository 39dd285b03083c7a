//! Decoding validated model outputs into generated `Output` types, and the
//! eval-fixture runner behind generated `#[test]`s.

use crate::output::validate_output;
use crate::render::render;
use serde::de::DeserializeOwned;
use std::borrow::Cow;
use std::fmt;
use templiqx_contracts::{
    AsValue, Code, Diagnostic, Diagnostics, Interaction, JsonType, ObjectView, Schema,
};

/// A model output that failed validation or decoding (`TQX_OUTPUT_SCHEMA`).
#[derive(Clone, Debug, PartialEq)]
pub struct DecodeError {
    /// Each problem, with the JSON pointer of the offending value; never
    /// empty.
    pub diagnostics: Diagnostics,
}

impl From<Diagnostics> for DecodeError {
    fn from(diagnostics: Diagnostics) -> DecodeError {
        DecodeError { diagnostics }
    }
}

impl fmt::Display for DecodeError {
    /// As [`Diagnostics`] displays: one line per diagnostic, with its help.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.diagnostics, f)
    }
}

impl std::error::Error for DecodeError {}

/// Validates `output` against the interaction's `output_schema`, then
/// deserialises it into `T` (a generated `Output`).
///
/// Integer-valued numbers where the schema says `integer` (`12.0`) decode
/// into `i64`, as JSON Schema counts them as integers ([`check_root`]).
///
/// # Errors
/// `TQX_OUTPUT_SCHEMA` for every schema violation (with its pointer), for
/// a valid value the generated type cannot hold exactly, or when the value
/// does not deserialise into `T`.
pub fn decode_output<T: DeserializeOwned>(
    interaction: &Interaction,
    output: &serde_json::Value,
) -> Result<T, DecodeError> {
    // Borrowed: a value too deep to validate is refused before anything
    // walks (or clones) it recursively.
    let value =
        check_output(interaction, output).map_err(|d| DecodeError::from(Diagnostics::from(d)))?;
    serde_path_to_error::deserialize(value.as_ref()).map_err(|e| {
        let pointer = pointer_of(e.path());
        DecodeError {
            diagnostics: Diagnostics::from(vec![
                Diagnostic::error(
                    Code::OutputSchema,
                    format!(
                        "the output does not decode into the generated type: {}",
                        e.inner()
                    ),
                )
                .at(pointer)
                .help(
                    "the value is valid JSON Schema but outside the generated Rust type \
                     (e.g. an integer beyond i64); bound the schema to what the host can hold",
                ),
            ]),
        }
    })
}

/// The RFC 6901 pointer of a `serde_path_to_error` path.
fn pointer_of(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut out = String::new();
    for segment in path.iter() {
        out.push('/');
        match segment {
            Segment::Seq { index } => out.push_str(&index.to_string()),
            Segment::Map { key } | Segment::Enum { variant: key } => {
                out.push_str(&templiqx_contracts::diagnostic::escape_pointer_token(key));
            }
            Segment::Unknown => out.push('?'),
        }
    }
    out
}

/// Rewrites integer-valued doubles to integers where `schema` says `integer`.
fn normalize_integers<'v>(
    schema: &Schema,
    value: &'v serde_json::Value,
) -> Cow<'v, serde_json::Value> {
    use serde_json::Value;
    match value {
        Value::Number(n)
            if schema.types.without_null().is_only(JsonType::Integer)
                && !(n.is_i64() || n.is_u64()) =>
        {
            match n.as_f64() {
                Some(f) if templiqx_contracts::typed::exact_integral_double(f) => {
                    Cow::Owned(Value::from(f as i64))
                }
                _ => Cow::Borrowed(value),
            }
        }
        Value::Array(items) => match &schema.items {
            Some(item_schema) => {
                let out: Vec<Cow<'_, Value>> = items
                    .iter()
                    .map(|v| normalize_integers(item_schema, v))
                    .collect();
                if out.iter().all(|c| matches!(c, Cow::Borrowed(_))) {
                    Cow::Borrowed(value)
                } else {
                    Cow::Owned(Value::Array(out.into_iter().map(Cow::into_owned).collect()))
                }
            }
            None => Cow::Borrowed(value),
        },
        Value::Object(map) if !schema.properties.is_empty() => {
            let mut changed = false;
            let out: serde_json::Map<String, Value> = map
                .iter()
                .map(|(k, v)| {
                    let nv = match schema.property(k) {
                        Some(s) => normalize_integers(s, v),
                        None => Cow::Borrowed(v),
                    };
                    changed |= matches!(nv, Cow::Owned(_));
                    (k.clone(), nv.into_owned())
                })
                .collect();
            if changed {
                Cow::Owned(Value::Object(out))
            } else {
                Cow::Borrowed(value)
            }
        }
        _ => Cow::Borrowed(value),
    }
}

/// Which generated root type a value is deserialised into: the root
/// decides the rules it is checked against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// `Inputs`: the declared `inputs` fields.
    Inputs,
    /// `Context`: the declared `context` fields.
    Context,
    /// `Output`: the `output_schema`.
    Output,
}

/// The checks a generated `Inputs`, `Context` or `Output` runs before its
/// fields are read (`docs/format.md`, "Generated Rust", "Typed and
/// untyped agree"): the value is validated by the same rules as the
/// untyped path ([`crate::validate_request`] for a root scope,
/// [`validate_output`] for the output), integer-valued numbers under
/// `type: integer` become integers, and a value the generated Rust type
/// cannot hold exactly is refused. The result is what `fields` (the
/// serde-derived reading of the struct) may read without loss.
///
/// # Errors
/// `TQX_VALUE_INVALID` (inputs, context) or `TQX_OUTPUT_SCHEMA` (output)
/// diagnostics, one per problem, each with its JSON pointer.
pub fn check_root(
    interaction: &Interaction,
    scope: Scope,
    value: serde_json::Value,
) -> Result<serde_json::Value, Vec<Diagnostic>> {
    use serde_json::Value;
    let (name, fields) = match scope {
        Scope::Output => return check_output(interaction, &value).map(Cow::into_owned),
        Scope::Inputs => ("inputs", &interaction.inputs),
        Scope::Context => ("context", &interaction.context),
    };
    let Value::Object(map) = value else {
        return Err(vec![
            Diagnostic::error(
                Code::ValueInvalid,
                format!(
                    "`{name}` must be an object, not {}",
                    value.as_value().json_type().as_str()
                ),
            )
            .at(format!("/{name}"))
            .help(format!(
                "supply `{name}` as a JSON object of its declared fields"
            )),
        ]);
    };
    let mut problems = Vec::new();
    crate::request::check_scope(name, fields, &map, &mut problems);
    if !problems.is_empty() {
        return Err(problems);
    }
    let mut wide = Vec::new();
    let mut out = serde_json::Map::new();
    for (key, v) in map {
        let field = fields.iter().find(|f| f.name == key.as_str());
        if let Some(f) = field {
            let at = format!(
                "/{name}/{}",
                templiqx_contracts::diagnostic::escape_pointer_token(&key)
            );
            wide.extend(
                templiqx_contracts::typed::unrepresentable(&f.schema, &v)
                    .into_iter()
                    .map(|(pointer, unfit)| (format!("{at}{pointer}"), unfit)),
            );
        }
        let v = match field {
            Some(f) => normalize_integers(&f.schema, &v).into_owned(),
            None => v,
        };
        out.insert(key, v);
    }
    if !wide.is_empty() {
        return Err(wide
            .into_iter()
            .map(|p| too_wide(Code::ValueInvalid, p))
            .collect());
    }
    Ok(Value::Object(out))
}

/// [`check_root`] for the output, on a borrowed value: validation first
/// (which bounds the depth of what the later walks see), then the
/// representability check, then integer normalisation (a copy only when a
/// number changes).
fn check_output<'v>(
    interaction: &Interaction,
    value: &'v serde_json::Value,
) -> Result<Cow<'v, serde_json::Value>, Vec<Diagnostic>> {
    validate_output(interaction, value.as_value())?;
    let schema = &interaction.output_schema;
    let problems = templiqx_contracts::typed::unrepresentable(schema, value);
    if !problems.is_empty() {
        return Err(problems
            .into_iter()
            .map(|p| too_wide(Code::OutputSchema, p))
            .collect());
    }
    Ok(normalize_integers(schema, value))
}

/// The deserialisation of a generated root type (`Inputs`, `Context`, a
/// struct `Output`): reads any JSON value, runs [`check_root`] on it, then
/// `fields` (the derived reading). Generated code calls it from its
/// `Deserialize` impls.
///
/// # Errors
/// The diagnostics of [`check_root`], as the deserialiser's custom error.
#[doc(hidden)]
pub fn deserialize_root<'de, D, T>(
    deserializer: D,
    interaction: &Interaction,
    scope: Scope,
    fields: fn(serde_json::Value) -> Result<T, serde_json::Error>,
) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
{
    use serde::de::Error as _;
    let value = <serde_json::Value as serde::Deserialize>::deserialize(deserializer)?;
    let value = check_root(interaction, scope, value)
        .map_err(|d| D::Error::custom(DecodeError::from(Diagnostics::from(d))))?;
    fields(value).map_err(D::Error::custom)
}

fn too_wide(
    code: Code,
    (pointer, unfit): (String, templiqx_contracts::typed::Unfit),
) -> Diagnostic {
    let what = unfit.reason();
    let shown = if pointer.is_empty() { "/" } else { &pointer };
    Diagnostic::error(
        code,
        format!("the value at {shown} is valid but does not fit the generated type: {what}"),
    )
    .at(pointer)
    .help(
        "bound the schema with `minimum`/`maximum` to what the host can hold \
         (`docs/format.md`, \"Generated Rust\")",
    )
}

/// Runs one eval fixture: deserialises the typed inputs and context,
/// renders, validates `fake_output` and decodes it into `O`. Panics with
/// every diagnostic on failure (this is what a generated `#[test]` calls).
#[doc(hidden)]
pub fn run_eval<I, C, O>(
    interaction: &Interaction,
    inputs: &str,
    context: &str,
    fake_output: Option<&str>,
) where
    I: DeserializeOwned + ObjectView,
    C: DeserializeOwned + ObjectView,
    O: DeserializeOwned,
{
    let id = &interaction.contract_id;
    let inputs: I = serde_json::from_str(inputs)
        .unwrap_or_else(|e| panic!("{id}: eval inputs do not decode: {e}"));
    let context: C = serde_json::from_str(context)
        .unwrap_or_else(|e| panic!("{id}: eval context does not decode: {e}"));
    if let Err(e) = render(interaction, &inputs, &context) {
        panic!("{id}: the eval does not render:\n{e}");
    }
    if let Some(fake) = fake_output {
        let value: serde_json::Value = serde_json::from_str(fake)
            .unwrap_or_else(|e| panic!("{id}: fake_output is not JSON: {e}"));
        if let Err(e) = decode_output::<O>(interaction, &value) {
            panic!("{id}: fake_output is invalid:\n{e}");
        }
    }
}

/// Deserialises a present field of an optional, nullable property: `null`
/// becomes `Some(None)` (a missing field is `None` through `#[serde(default)]`).
///
/// # Errors
/// The inner type's deserialisation errors.
#[doc(hidden)]
pub fn double_option<'de, D, T>(deserializer: D) -> Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::Deserialize<'de>,
{
    <Option<T> as serde::Deserialize>::deserialize(deserializer).map(Some)
}

/// Deserialises a present field of an optional property whose Rust type
/// is `serde_json::Value` (no `type`): a `null` is kept as
/// `Some(Value::Null)`, so a present `null` and an absent member stay
/// apart (`docs/format.md`, "Typed and untyped agree").
///
/// # Errors
/// The inner type's deserialisation errors.
#[doc(hidden)]
pub fn present<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::Deserialize<'de>,
{
    T::deserialize(deserializer).map(Some)
}
