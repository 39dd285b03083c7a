//! Model-graded checks at eval time (`docs/eval.md`, "Judges";
//! `docs/format.md`, "Model-graded checks"): after an execution with a
//! schema-valid output, each `judge` check of its fixture renders its judge
//! contract with the `with` values computed from the execution, executes it
//! through the run's judge adapter ([`JudgeAdapter`]; by default each
//! variant's own), and evaluates `pass` over the judge's output. The
//! verdict keeps what the judge answered ([`JudgeVerdict`]), and the run
//! records each judge's contract fingerprint beside the contracts it
//! judges, so a baseline comparison says when a judge changed.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use templiqx::{AsyncRuntimeAdapter, Execution, ExecutionError};
use templiqx_build::CompiledContract;
use templiqx_build::dto::{ExprKind, JudgeResolution};
use templiqx_contracts::expect::{evaluate_judged, judge_inputs, observed_values_judged};
use templiqx_contracts::{AsValue, Interaction, Json, RenderedInteraction};

use crate::execution::{OBSERVED_CHARS, cut};
use crate::record::{ExecutionRecord, JudgeVerdict, ObservedValue, Verdict};
use crate::select::Fixture;

/// An adapter a run executes its judges through (`--judge-provider`,
/// `--judge-model`, `--judge-base-url`): any [`AsyncRuntimeAdapter`], as
/// a trait object ([`Eval::judge`](crate::Eval::judge)).
pub trait JudgeAdapter: Send + Sync {
    /// Executes a judge's rendered request as
    /// [`AsyncRuntimeAdapter::execute`] does (gate, retries, validation).
    fn execute_judge<'r>(
        &'r self,
        request: &'r RenderedInteraction<'r>,
    ) -> Pin<Box<dyn Future<Output = Result<Execution, ExecutionError>> + Send + 'r>>;

    /// Removes the adapter's secrets from `text`
    /// ([`AsyncRuntimeAdapter::redact`]).
    fn redact_judge(&self, text: &str) -> String;
}

impl<A: AsyncRuntimeAdapter> JudgeAdapter for A {
    fn execute_judge<'r>(
        &'r self,
        request: &'r RenderedInteraction<'r>,
    ) -> Pin<Box<dyn Future<Output = Result<Execution, ExecutionError>> + Send + 'r>> {
        Box::pin(self.execute(request))
    }

    fn redact_judge(&self, text: &str) -> String {
        self.redact(text)
    }
}

/// The judge contracts the checks of `contracts` name, by id, as their
/// package resolved and compiled them ([`JudgeResolution::Compiled`]).
pub(crate) fn judges_of(
    contracts: &[&CompiledContract],
) -> BTreeMap<String, (Arc<Interaction>, Vec<String>)> {
    let mut out: BTreeMap<String, (Arc<Interaction>, Vec<String>)> = BTreeMap::new();
    for c in contracts {
        let Some(contract) = &c.contract else {
            continue;
        };
        for decl in contract.evals.iter().flat_map(|e| &e.expect) {
            if let ExprKind::Judge {
                contract: id,
                resolved: Some(JudgeResolution::Compiled(judge)),
                ..
            } = &decl.check.kind
            {
                let entry = out
                    .entry(id.clone())
                    .or_insert_with(|| (Arc::clone(judge), Vec::new()));
                if !entry.1.contains(&c.id) {
                    entry.1.push(c.id.clone());
                }
            }
        }
    }
    out
}

/// Judges every model-graded check of `fixture` in `record` (an execution
/// whose schema-valid output is `output`, canonical JSON text) through
/// `adapter`: the check's verdict becomes the `pass` expression's over the
/// judge's output, or [`Verdict::Error`] when the judge cannot be rendered
/// or executed. Checks whose execution has no output stay `not_run`.
pub(crate) async fn judge(
    adapter: &dyn JudgeAdapter,
    judges: &BTreeMap<String, (Arc<Interaction>, Vec<String>)>,
    fixture: &Fixture<'_>,
    repeat: u32,
    record: &mut ExecutionRecord,
    output: Option<&str>,
) {
    // Most fixtures have no judge: their output is not parsed again.
    if !record.schema_valid || !fixture.checks.iter().any(|c| c.judge.is_some()) {
        return;
    }
    let Some(output) = output.and_then(|text| templiqx_contracts::json::parse(text).ok()) else {
        return;
    };
    let case = fixture.case.as_ref().map(AsValue::as_value);
    for (check, verdict) in fixture.checks.iter().zip(record.checks.iter_mut()) {
        let Some(graded) = &check.judge else { continue };
        let contract = graded.contract.to_string();
        verdict.expression = check.source.to_string();
        // The judge's answer as kept: canonical JSON, redacted, cut.
        let answer = |output: &templiqx_contracts::Json| {
            let text = templiqx_contracts::canonical::to_canonical_string(output);
            cut(&adapter.redact_judge(&text), OBSERVED_CHARS)
        };
        let fail =
            |verdict: &mut crate::record::CheckVerdict, why: String, code: Option<String>| {
                verdict.verdict = Verdict::Error;
                verdict.error = Some(adapter.redact_judge(&why));
                verdict.judge = Some(JudgeVerdict {
                    contract: contract.clone(),
                    code,
                    ..JudgeVerdict::default()
                });
            };
        let Some((interaction, _)) = judges.get(&contract) else {
            fail(
                verdict,
                format!(
                    "TQX_JUDGE_UNRESOLVED: judge contract `{contract}` was not compiled with the run's contracts"
                ),
                None,
            );
            continue;
        };
        let inputs = match judge_inputs(
            check,
            &*fixture.inputs,
            &*fixture.context,
            case,
            output.as_value(),
        ) {
            Some(Ok(inputs)) => inputs,
            Some(Err(e)) => {
                fail(verdict, format!("{}: {}", e.code.as_str(), e.message), None);
                continue;
            }
            None => continue,
        };
        let context = serde_json::Map::new();
        let rendered = match templiqx::render(interaction, &inputs, &context) {
            Ok(rendered) => rendered,
            Err(e) => {
                let first = e.diagnostics.iter().next().map_or_else(String::new, |d| {
                    format!("{}: {}", d.code.as_str(), d.message)
                });
                fail(
                    verdict,
                    format!("judge `{contract}` does not render with the check's `with`: {first}"),
                    None,
                );
                continue;
            }
        };
        let executed = crate::fake::JUDGE
            .scope((contract.clone(), repeat), adapter.execute_judge(&rendered))
            .await;
        let execution = match executed {
            Ok(execution) => execution,
            Err(e) => {
                let code = e.failure.code.as_str().to_owned();
                // A schema-invalid answer says where it broke the judge's
                // schema (the first three violations), and is kept with
                // its tokens, as a valid one is (`docs/eval.md`, "Judges").
                let mut why = format!("judge `{contract}` failed: {code}: {}", e.failure.detail);
                let violations: Vec<String> = e
                    .diagnostics
                    .iter()
                    .filter(|_| e.failure.code == templiqx_contracts::Code::OutputSchema)
                    .take(3)
                    .map(|d| d.message.clone())
                    .collect();
                if !violations.is_empty() {
                    why.push_str(": ");
                    why.push_str(&violations.join("; "));
                }
                fail(verdict, why, Some(code));
                if let Some(judged) = verdict.judge.as_mut() {
                    judged.output = e.output.as_ref().map(answer);
                    judged.set_usage(e.usage);
                }
                continue;
            }
        };
        let judged = execution.output.as_value();
        let outcome = evaluate_judged(
            check,
            &*fixture.inputs,
            &*fixture.context,
            case,
            output.as_value(),
            judged,
        );
        let mut answered = JudgeVerdict {
            contract: contract.clone(),
            output: Some(answer(&execution.output)),
            reasons: reasons(&execution.output)
                .map(|r| cut(&adapter.redact_judge(&r), OBSERVED_CHARS)),
            ..JudgeVerdict::default()
        };
        answered.set_usage(execution.usage);
        verdict.judge = Some(answered);
        verdict.verdict = match &outcome {
            Ok(true) => Verdict::Pass,
            Ok(false) => Verdict::Fail,
            Err(_) => Verdict::Error,
        };
        if verdict.verdict == Verdict::Pass {
            verdict.expression.clear();
            continue;
        }
        verdict.error = outcome
            .err()
            .map(|e| adapter.redact_judge(&format!("{}: {}", e.code.as_str(), e.message)));
        verdict.observed = observed_values_judged(
            check,
            &*fixture.inputs,
            &*fixture.context,
            case,
            output.as_value(),
            judged,
        )
        .into_iter()
        .map(|o| ObservedValue {
            expression: o.expression,
            value: o
                .value
                .map(|v| cut(&adapter.redact_judge(&v), OBSERVED_CHARS)),
        })
        .collect();
    }
}

/// The judge's reasons: its output's `reasons` or `reason` property, a
/// string, or an array of strings joined with `; `.
fn reasons(output: &Json) -> Option<String> {
    let Json::Object(fields) = output else {
        return None;
    };
    let value = fields.get("reasons").or_else(|| fields.get("reason"))?;
    match value {
        Json::String(text) => Some(text.clone()),
        Json::Array(items) => {
            let texts: Vec<&str> = items
                .iter()
                .filter_map(|i| match i {
                    Json::String(t) => Some(t.as_str()),
                    _ => None,
                })
                .collect();
            (!texts.is_empty()).then(|| texts.join("; "))
        }
        _ => None,
    }
}

/// What a judged record cost beyond its own execution: each judge's
/// tokens at `model`'s prices, its cached input tokens at `cached_input`
/// ([`Prices::cost_of`](crate::cost::Prices::cost_of)); `None` when a
/// judge's price or token count is unknown, `Some(0.0)` without judges.
pub(crate) fn judge_cost(
    record: &ExecutionRecord,
    prices: &crate::cost::Prices,
    model: &str,
) -> Option<f64> {
    let mut total = 0.0;
    for verdict in &record.checks {
        let Some(judge) = &verdict.judge else {
            continue;
        };
        if judge.code.is_some() && judge.input_tokens.is_none() {
            continue;
        }
        total += prices.tokens_cost(
            model,
            judge.input_tokens,
            Some(judge.cached_input_tokens.unwrap_or(0)),
            judge.output_tokens,
        )?;
    }
    Some(total)
}
