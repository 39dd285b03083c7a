//! One execution of a selected fixture and the [`ExecutionRecord`] it
//! leaves (`docs/eval.md`, "What each execution records"): the output
//! validated by the adapter port, then every `expect` check evaluated on it.

use std::time::Instant;

use templiqx::{AsyncRuntimeAdapter, Execution, ExecutionError, Receipt};
use templiqx_contracts::{AsValue, Json};

use crate::history::Cached;
use crate::record::{CheckVerdict, ExecutionRecord, Verdict};
use crate::select::Fixture;

/// One execution of `fixture` through `adapter`: the record and, for a
/// schema-valid output, its canonical JSON text (kept in the history for
/// the cache). A failed call is a failed execution, never an error.
pub(crate) async fn execute<A: AsyncRuntimeAdapter>(
    adapter: &A,
    fixture: &Fixture<'_>,
    repeat: u32,
) -> (ExecutionRecord, Option<String>) {
    let started = Instant::now();
    // An adapter that answers per fixture (the `fake` provider) learns
    // which one it is answering; the request is all any other sees.
    let result = crate::fake::FIXTURE
        .scope(fixture.name.clone(), adapter.execute(&fixture.rendered))
        .await;
    let latency_ms = started.elapsed().as_secs_f64() * 1000.0;
    record(fixture, repeat, result, latency_ms)
}

/// The record of an execution that ended with `result`.
fn record(
    fixture: &Fixture<'_>,
    repeat: u32,
    result: Result<Execution, ExecutionError>,
    latency_ms: f64,
) -> (ExecutionRecord, Option<String>) {
    let mut record = ExecutionRecord {
        contract: fixture.contract.to_owned(),
        fixture: fixture.id.to_owned(),
        repeat,
        code: None,
        schema_valid: false,
        checks: Vec::new(),
        latency_ms,
        input_tokens: None,
        output_tokens: None,
        attempts: 0,
        output_fingerprint: None,
        cached: false,
    };
    match result {
        Ok(execution) => {
            record.schema_valid = true;
            record.attempts = execution.attempts;
            record.input_tokens = execution.usage.map(|u| u.input_tokens);
            record.output_tokens = execution.usage.map(|u| u.output_tokens);
            if let Receipt::Success {
                output_fingerprint, ..
            } = &execution.receipt
            {
                record.output_fingerprint = Some(output_fingerprint.clone());
            }
            record.checks = verdicts(fixture, Some(&execution.output));
            let text = templiqx_contracts::canonical::to_canonical_string(&execution.output);
            (record, Some(text))
        }
        Err(error) => {
            record.code = Some(error.failure.code.as_str().to_owned());
            record.attempts = error.attempts;
            record.checks = verdicts(fixture, None);
            (record, None)
        }
    }
}

/// A record reused from the history; its checks are evaluated again
/// against the stored output, since `expect` may have changed without
/// changing the request.
pub(crate) fn from_cache(
    fixture: &Fixture<'_>,
    repeat: u32,
    hit: Cached,
) -> (ExecutionRecord, Option<String>) {
    let mut record = hit.record;
    record.repeat = repeat;
    let output = hit
        .output
        .as_deref()
        .and_then(|text| templiqx_contracts::json::parse(text).ok());
    record.checks = verdicts(fixture, output.as_ref().filter(|_| record.schema_valid));
    (record, hit.output)
}

/// The verdict of every check of `fixture` against `output` (none: no
/// schema-valid output, every check `not_run`).
fn verdicts(fixture: &Fixture<'_>, output: Option<&Json>) -> Vec<CheckVerdict> {
    fixture
        .checks
        .iter()
        .map(|check| CheckVerdict {
            id: check.id.to_string(),
            verdict: match output {
                None => Verdict::NotRun,
                Some(output) => {
                    match templiqx::evaluate_check(
                        check,
                        fixture.inputs,
                        fixture.context,
                        output.as_value(),
                    ) {
                        Ok(true) => Verdict::Pass,
                        Ok(false) => Verdict::Fail,
                        Err(_) => Verdict::Error,
                    }
                }
            },
        })
        .collect()
}
