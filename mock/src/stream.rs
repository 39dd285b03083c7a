//! The synchronous aggregation of a typed stream: deltas and reasoning
//! concatenated in event order, usage summed, and an explicit `finish`
//! output preferred over the deltas (`docs/mock.md`, "Format notes",
//! "Stream output").

use crate::scenario::ScenarioStreamEvent;
use serde::Serialize;
use templiqx::Usage;
use templiqx_contracts::{Code, Diagnostic};

/// What a typed stream amounts to when it is not streamed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StreamAggregate {
    /// Every `delta` text, concatenated in event order.
    pub text: String,
    /// Every `reasoning` text, concatenated in event order. The adapter
    /// port has no place for reasoning, so an execution does not carry it;
    /// it is available here (and in the scenario fingerprint as a digest).
    pub reasoning: String,
    /// The sum of every `usage` event, field by field; `None` without
    /// `usage` events.
    pub usage: Option<Usage>,
    /// The output: the `finish` event's `output` when given, else `text`
    /// parsed as one JSON document (a structured output streams its JSON
    /// text, as the port's default `invoke_streaming` streams a whole
    /// output as its canonical JSON).
    pub output: templiqx_contracts::Json,
    /// Whether `output` is the `finish` event's explicit output.
    pub explicit_output: bool,
}

/// Aggregates `events` (assumed in lifecycle order; see
/// [`validate_events`](crate::scenario::validate_events)).
///
/// # Errors
///
/// `TQX_SCENARIO` when a usage sum overflows `u64`, or when no `finish`
/// output is given and the concatenated deltas are not one JSON document
/// (a message without the scenario prefix).
pub fn aggregate(events: &[ScenarioStreamEvent]) -> Result<StreamAggregate, Diagnostic> {
    let mut text = String::new();
    let mut reasoning = String::new();
    let mut usage: Option<Usage> = None;
    let mut explicit = None;
    for event in events {
        match event {
            ScenarioStreamEvent::Delta { text: t, .. } => text.push_str(t),
            ScenarioStreamEvent::Reasoning { text: t, .. } => reasoning.push_str(t),
            ScenarioStreamEvent::Usage {
                input_tokens,
                output_tokens,
                ..
            } => {
                let sum = usage.unwrap_or_default();
                usage = Some(
                    sum.input_tokens
                        .checked_add(*input_tokens)
                        .zip(sum.output_tokens.checked_add(*output_tokens))
                        .map(|(input_tokens, output_tokens)| Usage {
                            input_tokens,
                            output_tokens,
                            // A scenario's `usage` event has no cached count.
                            cached_input_tokens: 0,
                        })
                        .ok_or_else(|| {
                            Diagnostic::error(
                                Code::Scenario,
                                "the `usage` events' token sum overflows u64",
                            )
                            .help("report token counts a model could produce")
                        })?,
                );
            }
            ScenarioStreamEvent::Finish {
                output: Some(output),
                ..
            } => explicit = Some(output.clone()),
            ScenarioStreamEvent::Start { .. }
            | ScenarioStreamEvent::End { .. }
            | ScenarioStreamEvent::Finish { output: None, .. } => {}
        }
    }
    let (output, explicit_output) = match explicit {
        Some(output) => (output, true),
        None => {
            let output = templiqx_contracts::json::parse(&text).map_err(|d| {
                // The deltas are no file: the place goes into the message.
                let what = d.message.strip_prefix("invalid JSON: ").unwrap_or(&d.message);
                let place = d
                    .span
                    .map(|s| format!(", at line {}, column {}", s.start.line, s.start.column))
                    .unwrap_or_default();
                Diagnostic::error(
                    Code::Scenario,
                    format!(
                        "`finish` gives no `output` and the concatenated deltas are not one JSON document ({what}{place})"
                    ),
                )
                .help("stream the output's JSON text in the deltas, or give `finish` an explicit `output`")
            })?;
            (output, false)
        }
    };
    Ok(StreamAggregate {
        text,
        reasoning,
        usage,
        output,
        explicit_output,
    })
}
