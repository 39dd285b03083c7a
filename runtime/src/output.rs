//! Output validation: a model output checked against the interaction's
//! structured output contract, its `output_schema` (`docs/format.md`,
//! "Top-level fields"; `docs/runtime.md`, "Receipts").

use templiqx_contracts::validate::validate;
use templiqx_contracts::{Code, Diagnostic, Interaction, ValueRef};

/// Validates a model output against `interaction.output_schema` (bounded
/// JSON Schema subset, `docs/format.md`, "The bounded JSON Schema subset";
/// `format: date`/`date-time`
/// enforced).
///
/// # Errors
///
/// One `TQX_OUTPUT_SCHEMA` diagnostic per violation, whose JSON pointer is
/// the offending value's place in the output (`/effective_date`; `""` for
/// the output itself), in the validator's deterministic order.
pub fn validate_output(
    interaction: &Interaction,
    output: ValueRef<'_>,
) -> Result<(), Vec<Diagnostic>> {
    validate(&interaction.output_schema, output).map_err(|violations| {
        violations
            .into_iter()
            .map(|v| {
                let at = if v.pointer.is_empty() {
                    "/"
                } else {
                    &v.pointer
                };
                Diagnostic::error(Code::OutputSchema, format!("output at {at}: {}", v.message))
                    .help(format!(
                        "the output violates the `{}` keyword of the contract's `output_schema`",
                        v.keyword
                    ))
                    .at(v.pointer)
            })
            .collect()
    })
}
