//! Decoding validated model outputs into generated `Output` types, and the
//! eval-fixture runner behind generated `#[test]`s.

use crate::output::validate_output;
use crate::render::render;
use serde::de::DeserializeOwned;
use std::fmt;
use templiqx_contracts::{
    AsValue, Code, Diagnostic, Diagnostics, EvalFixture, Interaction, Json, JsonType, ObjectView,
    Schema, ValueRef,
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
/// deserialises it into `T` (a generated `Output`). `output` is any viewed
/// JSON value: a [`Json`] (what the adapter port returns, integers exact at
/// any size), a `serde_json::Value`, a generated struct.
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
    output: &(impl AsValue + ?Sized),
) -> Result<T, DecodeError> {
    // Viewed: a value too deep to validate is refused before anything
    // walks (or copies) it recursively.
    let value = check_output(interaction, output.as_value())
        .map_err(|d| DecodeError::from(Diagnostics::from(d)))?;
    serde_path_to_error::deserialize(&value).map_err(|e| {
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

/// Rewrites integer-valued doubles to integers where `schema` says
/// `integer`, in place.
fn normalize_integers(schema: &Schema, value: &mut Json) {
    use templiqx_contracts::Number;
    match value {
        Json::Number(n) if schema.types.without_null().is_only(JsonType::Integer) => {
            if let Number::F64(f) = n.as_number()
                && templiqx_contracts::typed::exact_integral_double(f)
            {
                *value = Json::from(f as i64);
            }
        }
        Json::Array(items) => {
            if let Some(item_schema) = &schema.items {
                for v in items {
                    normalize_integers(item_schema, v);
                }
            }
        }
        Json::Object(map) => {
            for (k, v) in map {
                if let Some(s) = schema.property(k) {
                    normalize_integers(s, v);
                }
            }
        }
        _ => {}
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
/// cannot hold exactly is refused. The result is what the type's `Decode`
/// impl ([`crate::typed::Decode`]) may read without loss.
///
/// # Errors
/// `TQX_VALUE_INVALID` (inputs, context) or `TQX_OUTPUT_SCHEMA` (output)
/// diagnostics, one per problem, each with its JSON pointer.
pub fn check_root(
    interaction: &Interaction,
    scope: Scope,
    value: Json,
) -> Result<Json, Vec<Diagnostic>> {
    let (name, fields) = match scope {
        Scope::Output => return check_output(interaction, value.as_value()),
        Scope::Inputs => ("inputs", &interaction.inputs),
        Scope::Context => ("context", &interaction.context),
    };
    let Json::Object(map) = value else {
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
    let mut out = templiqx_contracts::JsonMap::new();
    for (key, v) in map {
        let field = fields.iter().find(|f| f.name == key.as_str());
        if let Some(f) = field {
            let at = format!(
                "/{name}/{}",
                templiqx_contracts::diagnostic::escape_pointer_token(&key)
            );
            wide.extend(
                templiqx_contracts::typed::unrepresentable(&f.schema, v.as_value())
                    .into_iter()
                    .map(|(pointer, unfit)| (format!("{at}{pointer}"), unfit)),
            );
        }
        let mut v = v;
        if let Some(f) = field {
            normalize_integers(&f.schema, &mut v);
        }
        out.insert(key, v);
    }
    if !wide.is_empty() {
        return Err(wide
            .into_iter()
            .map(|p| too_wide(Code::ValueInvalid, p))
            .collect());
    }
    Ok(Json::Object(out))
}

/// [`check_root`] for the output, on a viewed value: validation first
/// (which bounds the depth of what the later walks see), then the
/// representability check, then an owned copy with its integers
/// normalised.
fn check_output(interaction: &Interaction, value: ValueRef<'_>) -> Result<Json, Vec<Diagnostic>> {
    validate_output(interaction, value)?;
    let schema = &interaction.output_schema;
    let problems = templiqx_contracts::typed::unrepresentable(schema, value);
    if !problems.is_empty() {
        return Err(problems
            .into_iter()
            .map(|p| too_wide(Code::OutputSchema, p))
            .collect());
    }
    let mut owned = Json::from_value(value);
    normalize_integers(schema, &mut owned);
    Ok(owned)
}

/// The deserialisation of a generated root type (`Inputs`, `Context`, a
/// struct `Output`): reads any JSON value, runs [`check_root`] on it, then
/// reads the checked value into `T` ([`crate::typed::Decode`]). Generated
/// code calls it from its `Deserialize` impls (`__private::serde_impls!`).
///
/// # Errors
/// The diagnostics of [`check_root`], as the deserialiser's custom error.
#[doc(hidden)]
pub fn deserialize_root<'de, D, T>(
    deserializer: D,
    interaction: &Interaction,
    scope: Scope,
) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: crate::typed::Decode,
{
    use serde::de::Error as _;
    let value = <Json as serde::Deserialize>::deserialize(deserializer)?;
    let value = check_root(interaction, scope, value)
        .map_err(|d| D::Error::custom(DecodeError::from(Diagnostics::from(d))))?;
    T::decode(value)
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

/// Runs one eval fixture of a generated module's `EVALS`: decodes its
/// inputs and context into the typed `I` and `C`, renders, validates and
/// decodes its `fake_output` into `O`, and, when it has both a
/// `fake_output` and `expect` checks, evaluates every check against that
/// output ([`EvalFixture::evaluate_checks`]) but its model-graded ones,
/// which need a judge's answer. Panics with every diagnostic
/// on failure, naming each check that is `false` or cannot be decided with
/// its expression and the values it read (this is what a generated
/// `#[test]` calls).
#[doc(hidden)]
pub fn run_eval<I, C, O>(interaction: &Interaction, fixture: &EvalFixture)
where
    I: DeserializeOwned + ObjectView,
    C: DeserializeOwned + ObjectView,
    O: DeserializeOwned,
{
    let (id, eval) = (&interaction.contract_id, &fixture.id);
    if fixture.dataset.is_some() {
        // A dataset entry's rows were checked when the contract compiled;
        // they are not embedded (`docs/format.md`, "Datasets").
        return;
    }
    let inputs: I = fixture
        .inputs()
        .unwrap_or_else(|e| panic!("{id}: eval `{eval}`: {e}"));
    let context: C = fixture
        .context()
        .unwrap_or_else(|e| panic!("{id}: eval `{eval}`: {e}"));
    if let Err(e) = render(interaction, &inputs, &context) {
        panic!("{id}: eval `{eval}` does not render:\n{e}");
    }
    let fake = fixture
        .fake_output()
        .unwrap_or_else(|e| panic!("{id}: eval `{eval}`: {e}"));
    let Some(output) = fake else { return };
    if let Err(e) = decode_output::<O>(interaction, &output) {
        panic!("{id}: eval `{eval}`: fake_output is invalid:\n{e}");
    }
    // A model-graded check needs its judge's output, which only an eval
    // run has (`docs/format.md`, "Model-graded checks").
    let failures: Vec<String> = fixture
        .evaluate_checks(&inputs, &context, &output)
        .iter()
        .filter(|outcome| outcome.check.judge.is_none() && !outcome.passed())
        .map(ToString::to_string)
        .collect();
    if !failures.is_empty() {
        panic!(
            "{id}: {} of {} `expect` checks failed against fake_output:\n{}",
            failures.len(),
            fixture.checks.len(),
            failures.join("\n")
        );
    }
}
