//! One execution of a selected fixture and the [`ExecutionRecord`] it
//! leaves (`docs/eval.md`, "What each execution records"): the output
//! validated by the adapter port, then every `expect` check evaluated on it.

use std::time::Instant;

use templiqx::{AsyncRuntimeAdapter, Execution, ExecutionError, Receipt};
use templiqx_contracts::validate::validate;
use templiqx_contracts::{AsValue, Code, Json};

use crate::history::Cached;
use crate::record::{CheckVerdict, Evidence, ExecutionRecord, ObservedValue, Verdict, Violation};
use crate::select::Fixture;

/// One execution of `fixture` through `adapter`: the record (its
/// evidence redacted by the adapter's `redact`) and, for a schema-valid
/// output, its canonical JSON text (kept in the history for the cache). A
/// failed call is a failed execution, never an error.
pub(crate) async fn execute<A: AsyncRuntimeAdapter>(
    adapter: &A,
    fixture: &Fixture<'_>,
    repeat: u32,
) -> (ExecutionRecord, Option<String>) {
    let started = Instant::now();
    // An adapter that answers per fixture (the `fake` provider) learns
    // which one it is answering; the request is all any other sees.
    let result = crate::fake::FIXTURE
        .scope(
            (fixture.name.clone(), repeat, fixture.fake_output.clone()),
            adapter.execute(&fixture.rendered),
        )
        .await;
    let latency_ms = started.elapsed().as_secs_f64() * 1000.0;
    record(fixture, repeat, result, latency_ms, &|text| {
        adapter.redact(text)
    })
}

/// The record of an execution that ended with `result`; `redact` removes
/// the adapter's secrets from every text the evidence keeps.
fn record(
    fixture: &Fixture<'_>,
    repeat: u32,
    result: Result<Execution, ExecutionError>,
    latency_ms: f64,
    redact: &dyn Fn(&str) -> String,
) -> (ExecutionRecord, Option<String>) {
    let mut record = ExecutionRecord {
        contract: fixture.contract.to_owned(),
        fixture: fixture.id.to_string(),
        repeat,
        code: None,
        schema_valid: false,
        checks: Vec::new(),
        latency_ms,
        queue_ms: 0.0,
        input_tokens: None,
        output_tokens: None,
        cached_input_tokens: None,
        attempts: 0,
        output_fingerprint: None,
        cached: false,
        variant: None,
        cost: None,
        recovered: false,
        evidence: Evidence::default(),
    };
    match result {
        Ok(execution) => {
            record.schema_valid = true;
            record.recovered = recovered(execution.receipt.diagnostics());
            record.attempts = execution.attempts;
            record.set_usage(execution.usage);
            if let Receipt::Success {
                output_fingerprint, ..
            } = &execution.receipt
            {
                record.output_fingerprint = Some(output_fingerprint.clone());
            }
            record.checks = verdicts(fixture, Some(&execution.output), redact);
            let text = templiqx_contracts::canonical::to_canonical_string(&execution.output);
            record.evidence.output = Some(redact(&text));
            (record, Some(text))
        }
        Err(error) => {
            record.code = Some(error.failure.code.as_str().to_owned());
            record.recovered = recovered(&error.diagnostics);
            record.attempts = error.attempts;
            // A schema-invalid answer was billed: its tokens count, and
            // cost, like a valid one's (`docs/eval.md`, "Cost").
            record.set_usage(error.usage);
            record.checks = verdicts(fixture, None, redact);
            record.evidence = failure_evidence(fixture, &error, redact);
            (record, None)
        }
    }
}

/// Whether `diagnostics` hold the `TQX_OUTPUT_RECOVERED` warning: output
/// recovery read the output out of the model's text (`docs/runtime.md`,
/// "Output recovery").
fn recovered(diagnostics: &[templiqx_contracts::Diagnostic]) -> bool {
    diagnostics.iter().any(|d| d.code == Code::OutputRecovered)
}

/// What a failed execution leaves: the output it was about (a
/// schema-invalid one, with its violations; or the text written before a
/// runtime failure, such as an output cut off at the token limit), the
/// failure's message and help, and the finish reason its failure names.
fn failure_evidence(
    fixture: &Fixture<'_>,
    error: &ExecutionError,
    redact: &dyn Fn(&str) -> String,
) -> Evidence {
    let message = redact(&error.failure.detail);
    let provider_message = error
        .failure
        .provider_message
        .as_deref()
        .map(redact)
        .filter(|whole| !message.contains(whole.trim()));
    let mut evidence = Evidence {
        message: Some(message),
        provider_message,
        finish_reason: finish_reason(&error.failure.id, &error.failure.detail),
        ..Evidence::default()
    };
    if let Some(output) = &error.output {
        evidence.output = Some(redact(&output_text(output)));
    }
    if let (Some(output), Code::OutputSchema) = (&error.output, error.failure.code) {
        if let Err(violations) = validate(
            &fixture.rendered.interaction.output_schema,
            output.as_value(),
        ) {
            evidence.violations = violations
                .into_iter()
                .map(|v| Violation {
                    pointer: redact(&v.pointer),
                    keyword: v.keyword.to_owned(),
                    message: redact(&v.message),
                })
                .collect();
        }
    } else {
        // The port's own advice for this failure (the help of its one
        // diagnostic); a schema failure's help is per violation. A failure
        // may carry what the model wrote before it (an output cut off at
        // the token limit), kept above.
        evidence.help = error
            .diagnostics
            .first()
            .and_then(|d| d.help.as_deref())
            .map(redact);
    }
    evidence
}

/// The text of an output the model gave: a reply that was not JSON is
/// kept by the adapters as a JSON string (the schema's object root refuses
/// it), and is its own text here; anything else its canonical JSON.
fn output_text(output: &Json) -> String {
    match output {
        Json::String(text) => text.clone(),
        other => templiqx_contracts::canonical::to_canonical_string(other),
    }
}

/// The provider's finish reason a failure names, when it names one: the
/// HTTP adapters fail an output cut off at the token limit with a failure
/// id ending in `.truncated` and quote the provider's reason in backquotes
/// after `finish_reason` or `stop_reason` (`length`, `max_tokens`); a
/// content filter (`.content_filter`) and a refusal (`.refusal`) likewise.
fn finish_reason(id: &str, detail: &str) -> Option<String> {
    let step = id.rsplit('.').next().unwrap_or(id);
    let quoted = ["finish_reason `", "stop_reason `"]
        .iter()
        .find_map(|marker| {
            let start = detail.find(marker)? + marker.len();
            let end = detail[start..].find('`')?;
            Some(detail[start..start + end].to_owned())
        });
    match step {
        "truncated" => Some(quoted.unwrap_or_else(|| "length".to_owned())),
        "content_filter" => Some(quoted.unwrap_or_else(|| "content_filter".to_owned())),
        "refusal" => Some(quoted.unwrap_or_else(|| "refusal".to_owned())),
        _ => None,
    }
}

/// A record reused from the history; its checks are evaluated again
/// against the stored output, since `expect` may have changed without
/// changing the request.
pub(crate) fn from_cache(
    fixture: &Fixture<'_>,
    repeat: u32,
    hit: Cached,
    redact: &dyn Fn(&str) -> String,
) -> (ExecutionRecord, Option<String>) {
    let mut record = hit.record;
    record.repeat = repeat;
    let output = hit
        .output
        .as_deref()
        .and_then(|text| templiqx_contracts::json::parse(text).ok());
    record.checks = verdicts(
        fixture,
        output.as_ref().filter(|_| record.schema_valid),
        redact,
    );
    if record.schema_valid && record.evidence.output.is_none() {
        record.evidence.output = hit.output.as_deref().map(redact);
    }
    (record, hit.output)
}

/// The verdict of every check of `fixture` against `output` (none: no
/// schema-valid output, every check `not_run`); a check that did not pass
/// keeps its expression and the values it read, redacted.
fn verdicts(
    fixture: &Fixture<'_>,
    output: Option<&Json>,
    redact: &dyn Fn(&str) -> String,
) -> Vec<CheckVerdict> {
    fixture
        .checks
        .iter()
        .map(|check| {
            let Some(output) = output else {
                return CheckVerdict::new(check.id.to_string(), Verdict::NotRun);
            };
            if check.judge.is_some() {
                // Judged after the execution (`crate::judge`), through the
                // run's judge adapter.
                return CheckVerdict::new(check.id.to_string(), Verdict::NotRun);
            }
            let case = fixture.case.as_ref().map(AsValue::as_value);
            let outcome = templiqx::evaluate_check_with_case(
                check,
                &*fixture.inputs,
                &*fixture.context,
                case,
                output.as_value(),
            );
            let verdict = match &outcome {
                Ok(true) => return CheckVerdict::new(check.id.to_string(), Verdict::Pass),
                Ok(false) => Verdict::Fail,
                Err(_) => Verdict::Error,
            };
            let observed = templiqx::observed_values_with_case(
                check,
                &*fixture.inputs,
                &*fixture.context,
                case,
                output.as_value(),
            )
            .into_iter()
            .map(|o| ObservedValue {
                expression: o.expression,
                value: o.value.map(|v| cut(&redact(&v), OBSERVED_CHARS)),
            })
            .collect();
            CheckVerdict {
                id: check.id.to_string(),
                verdict,
                expression: check.source.to_string(),
                observed,
                error: outcome
                    .err()
                    .map(|e| redact(&format!("{}: {}", e.code.as_str(), e.message))),
                judge: None,
            }
        })
        .collect()
}

/// The longest observed value kept, in characters.
pub(crate) const OBSERVED_CHARS: usize = 2000;

/// `text` cut to `max` characters, `…` marking a cut.
pub(crate) fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::finish_reason;

    #[test]
    fn the_finish_reason_is_read_from_the_failure_the_adapters_report() {
        let openai =
            "the output was cut off at the token limit (finish_reason `length`) after 9 characters";
        let anthropic = "the output was cut off at the token limit (stop_reason `max_tokens`)";
        assert_eq!(
            finish_reason("openai.truncated", openai).as_deref(),
            Some("length")
        );
        assert_eq!(
            finish_reason("anthropic.truncated", anthropic).as_deref(),
            Some("max_tokens")
        );
        // A truncation that quotes no reason is still a cut-off output.
        assert_eq!(
            finish_reason("mine.truncated", "cut").as_deref(),
            Some("length")
        );
        assert_eq!(
            finish_reason("openai.content_filter", "withheld").as_deref(),
            Some("content_filter")
        );
        assert_eq!(finish_reason("openai.unavailable", openai), None);
    }
}
