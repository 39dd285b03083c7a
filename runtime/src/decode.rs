//! Decoding validated model outputs into generated `Output` types, and the
//! eval-fixture runner behind generated `#[test]`s.

use crate::output::validate_output;
use crate::render::render;
use serde::de::DeserializeOwned;
use std::borrow::Cow;
use std::fmt;
use templiqx_contracts::{AsValue, Code, Diagnostic, Interaction, JsonType, ObjectView, Schema};

/// A model output that failed validation or decoding (`TQX_OUTPUT_SCHEMA`).
#[derive(Clone, Debug, PartialEq)]
pub struct DecodeError {
    /// Each problem, with the JSON pointer of the offending value.
    pub diagnostics: Vec<Diagnostic>,
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.diagnostics.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for DecodeError {}

/// Validates `output` against the interaction's `output_schema`, then
/// deserialises it into `T` (a generated `Output`).
///
/// Integer-valued numbers where the schema says `integer` (`12.0`) decode
/// into `i64`, as JSON Schema counts them as integers.
///
/// # Errors
/// `TQX_OUTPUT_SCHEMA` for every schema violation (with its pointer), or
/// when the value does not deserialise into `T`.
pub fn decode_output<T: DeserializeOwned>(
    interaction: &Interaction,
    output: &serde_json::Value,
) -> Result<T, DecodeError> {
    validate_output(interaction, output.as_value())
        .map_err(|diagnostics| DecodeError { diagnostics })?;
    let value = normalize_integers(&interaction.output_schema, output);
    serde_path_to_error::deserialize(value.as_ref()).map_err(|e| {
        let pointer = pointer_of(e.path());
        DecodeError {
            diagnostics: vec![
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
            ],
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
            if schema.types.is_only(JsonType::Integer) && !(n.is_i64() || n.is_u64()) =>
        {
            match n.as_f64() {
                Some(f) if f.fract() == 0.0 && f >= -(2f64.powi(63)) && f < 2f64.powi(63) => {
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
