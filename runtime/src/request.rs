//! Request validation: the values a render is asked to use, checked against
//! the interaction's declared inputs and context before anything renders.

use templiqx_contracts::diagnostic::escape_pointer_token;
use templiqx_contracts::ir::Field;
use templiqx_contracts::validate::validate;
use templiqx_contracts::{Code, Diagnostic, Interaction, ObjectView, SchemaViolation};

/// Checks a request against the interaction's declarations.
///
/// For both root scopes (`inputs`, then `context`), in declaration order:
/// every required field is present, every present value validates against
/// its field's schema (`docs/format.md`, "The bounded JSON Schema subset",
/// with `format: date`/`date-time` enforced), and every present key is
/// declared. All problems are collected, each a `TQX_VALUE_INVALID`
/// diagnostic whose JSON pointer is the offending value's place in the
/// request (`/inputs/name`, `/context/locale`, `/inputs/customer/emails/0`).
///
/// Absent optional fields are fine here; rendering a reference to one fails
/// with `TQX_VALUE_MISSING` (`docs/format.md`, "References and scoping").
///
/// Nothing is allocated or copied for a valid request; in particular a
/// large string is only measured, never copied.
///
/// # Errors
///
/// Every problem found, in the order above.
pub fn validate_request(
    interaction: &Interaction,
    inputs: &dyn ObjectView,
    context: &dyn ObjectView,
) -> Result<(), Vec<Diagnostic>> {
    let mut problems = Vec::new();
    check_scope("inputs", &interaction.inputs, inputs, &mut problems);
    check_scope("context", &interaction.context, context, &mut problems);
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems)
    }
}

pub(crate) fn check_scope(
    scope: &str,
    fields: &[Field],
    values: &dyn ObjectView,
    problems: &mut Vec<Diagnostic>,
) {
    let mut present = 0;
    for field in fields {
        match values.get(&field.name) {
            Some(value) => {
                present += 1;
                if let Err(violations) = validate(&field.schema, value) {
                    invalid(scope, field, violations, problems);
                }
            }
            None if field.required => missing(scope, field, problems),
            None => {}
        }
    }
    // Keys are unique, so every present key is declared exactly when all
    // present keys were found above: the walk over entries (which may
    // allocate an iterator) happens only for a request that has extras.
    if values.len() != present {
        undeclared(scope, fields, values, problems);
    }
}

// The diagnostics are built out of line: `check_scope` runs on every
// render, and only a bad request needs them.

#[cold]
#[inline(never)]
fn invalid(
    scope: &str,
    field: &Field,
    violations: Vec<SchemaViolation>,
    problems: &mut Vec<Diagnostic>,
) {
    for v in violations {
        problems.push(
            Diagnostic::error(
                Code::ValueInvalid,
                format!("{}: {}", place(scope, &field.name, &v.pointer), v.message),
            )
            .at(format!("{}{}", pointer(scope, &field.name), v.pointer))
            .help(format!(
                "supply a value that satisfies the `{}` keyword of the \
                 declared schema",
                v.keyword
            )),
        );
    }
}

#[cold]
#[inline(never)]
fn missing(scope: &str, field: &Field, problems: &mut Vec<Diagnostic>) {
    problems.push(
        Diagnostic::error(
            Code::ValueInvalid,
            format!("required {scope} field `{}` is missing", field.name),
        )
        .at(pointer(scope, &field.name))
        .help(format!("supply `{scope}.{}`", field.name)),
    );
}

#[cold]
#[inline(never)]
fn undeclared(
    scope: &str,
    fields: &[Field],
    values: &dyn ObjectView,
    problems: &mut Vec<Diagnostic>,
) {
    for (key, _) in values.entries() {
        if !fields.iter().any(|f| f.name == key) {
            problems.push(
                Diagnostic::error(
                    Code::ValueInvalid,
                    format!("`{scope}.{key}` is not declared by the contract"),
                )
                .at(pointer(scope, key))
                .help(format!(
                    "remove it, or declare it under `{scope}` in the contract"
                )),
            );
        }
    }
}

/// The value's place as messages name it: `inputs.customer.emails.0`, the
/// field followed by every step of the violation's pointer (RFC 6901
/// tokens unescaped; a step that is empty or holds `.`, `[`, `]` or white
/// space is written as a JSON string in brackets: `inputs.a["b.c"]`).
fn place(scope: &str, field: &str, pointer: &str) -> String {
    use std::fmt::Write as _;
    let mut out = format!("{scope}.{field}");
    for token in pointer.split('/').skip(1) {
        let token = token.replace("~1", "/").replace("~0", "~");
        if token.is_empty()
            || token.contains(['.', '[', ']'])
            || token.contains(char::is_whitespace)
        {
            let _ = write!(out, "[{}]", serde_json::Value::String(token));
        } else {
            let _ = write!(out, ".{token}");
        }
    }
    out
}

fn pointer(scope: &str, key: &str) -> String {
    format!("/{scope}/{}", escape_pointer_token(key))
}
