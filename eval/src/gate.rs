//! When a run passes (`docs/eval.md`, "Gating and exit status"): a
//! minimum observed pass rate, per fixture or over the run, and optionally
//! no regression against a baseline ([`crate::compare`](mod@crate::compare)).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use templiqx_contracts::{Code, Diagnostic};

use crate::compare::{Comparison, RateComparison};
use crate::stats::{RunStats, describe_rate};

/// Which pass rate [`Gate::min_pass_rate`] applies to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GateScope {
    /// Every fixture's own pass rate.
    #[default]
    Fixture,
    /// The pass rate pooled over every execution of the run.
    Overall,
}

/// When a run passes (`docs/eval.md`, "Gating and exit status").
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Gate {
    /// The least pass rate `R`, in `[0, 1]`. It is compared with the
    /// observed pass rate (`passed / executions`), not with a bound of its
    /// interval: a subject fails when its rate is below `R`.
    pub min_pass_rate: Option<f64>,
    /// Which pass rate `min_pass_rate` applies to.
    pub per: GateScope,
    /// Fail on every regression of the [`Comparison`] (a fixture's pass
    /// rate, schema-valid rate or check rate significantly lower than the
    /// baseline's; [`RateComparison::regression`]), whatever `per` says.
    /// Without a comparison there is nothing to fail on.
    pub fail_on_regression: bool,
}

/// Why a run failed its gate, for one subject.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GateFailure {
    /// The contract; `None` for the whole run ([`GateScope::Overall`]).
    pub contract: Option<String>,
    /// The fixture; `None` for the whole run.
    pub fixture: Option<String>,
    /// The variant, in a run of several (`docs/eval.md`, "Comparing
    /// models"); `None` in a run of one, and for the budget.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    /// Why, in one line.
    pub reason: String,
}

/// The outcome of a [`Gate`]. The default is a pass with no failure.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GateVerdict {
    /// No failure.
    pub passed: bool,
    /// Every failure: the whole run's first, then by contract and fixture
    /// in the order of [`RunStats::fixtures`], a fixture's pass-rate
    /// failure before its regressions.
    pub failures: Vec<GateFailure>,
}

impl Default for GateVerdict {
    fn default() -> GateVerdict {
        GateVerdict {
            passed: true,
            failures: Vec::new(),
        }
    }
}

impl GateFailure {
    /// The failure as one `TQX_EVAL_GATE` error (`docs/diagnostics.md`):
    /// `gate failed for `contract::fixture`: reason` (the contract alone,
    /// or `the run`, for a wider subject), with the help naming the rule
    /// it broke (`docs/eval.md`, "Comparing with a baseline" or "Gating
    /// and exit status").
    #[must_use]
    pub fn diagnostic(&self) -> Diagnostic {
        let place = match (&self.contract, &self.fixture) {
            (Some(contract), Some(fixture)) => format!("`{contract}::{fixture}`"),
            (Some(contract), None) => format!("`{contract}`"),
            _ => "the run".to_owned(),
        };
        let place = match &self.variant {
            Some(v) => format!("{place} on variant `{v}`"),
            None => place,
        };
        Diagnostic::error(
            Code::EvalGate,
            format!("gate failed for {place}: {}", self.reason),
        )
        .help(if self.reason.starts_with("regression") {
            "--fail-on-regression fails on a significant fall against --baseline (docs/eval.md, \"Comparing with a baseline\")"
        } else if self.reason.starts_with("over budget") {
            "--max-cost stops a run once its executions cost that much (docs/eval.md, \"Cost\"); raise it, or run fewer fixtures or repeats"
        } else {
            "--min-pass-rate sets the least pass rate (docs/eval.md, \"Gating and exit status\")"
        })
    }
}

impl GateVerdict {
    /// The failures of one fixture.
    pub fn failures_of<'a>(
        &'a self,
        contract: &'a str,
        fixture: &'a str,
    ) -> impl Iterator<Item = &'a GateFailure> + 'a {
        self.failures.iter().filter(move |f| {
            f.contract.as_deref() == Some(contract) && f.fixture.as_deref() == Some(fixture)
        })
    }

    /// The failures of the whole run (no contract, no fixture).
    pub fn overall_failures(&self) -> impl Iterator<Item = &GateFailure> + '_ {
        self.failures
            .iter()
            .filter(|f| f.contract.is_none() && f.fixture.is_none())
    }
}

impl Gate {
    /// Evaluates the gate on a run's statistics and, for
    /// [`Gate::fail_on_regression`], its comparison with a baseline.
    #[must_use]
    pub fn evaluate(&self, stats: &RunStats, comparison: Option<&Comparison>) -> GateVerdict {
        let mut failures = Vec::new();
        if let (Some(min), GateScope::Overall) = (self.min_pass_rate, self.per) {
            let rate = &stats.overall.summary.pass_rate;
            if rate.rate < min {
                failures.push(GateFailure {
                    contract: None,
                    fixture: None,
                    variant: None,
                    reason: format!(
                        "overall pass rate {} is below the minimum {min}",
                        describe_rate(rate)
                    ),
                });
            }
        }
        let compared: HashMap<(&str, &str), &crate::compare::FixtureComparison> = comparison
            .filter(|_| self.fail_on_regression)
            .map(|c| {
                c.fixtures
                    .iter()
                    .map(|f| ((f.contract.as_str(), f.fixture.as_str()), f))
                    .collect()
            })
            .unwrap_or_default();
        for fixture in &stats.fixtures {
            let fail = |reason: String| GateFailure {
                contract: Some(fixture.contract.clone()),
                fixture: Some(fixture.fixture.clone()),
                variant: None,
                reason,
            };
            if let (Some(min), GateScope::Fixture) = (self.min_pass_rate, self.per) {
                let rate = &fixture.summary.pass_rate;
                if rate.rate < min {
                    failures.push(fail(format!(
                        "pass rate {} is below the minimum {min}",
                        describe_rate(rate)
                    )));
                }
            }
            let Some(cmp) = compared.get(&(fixture.contract.as_str(), fixture.fixture.as_str()))
            else {
                continue;
            };
            let regression = |what: &str, r: &RateComparison| {
                fail(format!(
                    "regression: {what} fell from {} to {} (Fisher's exact test p = {:.4e})",
                    describe_rate(&r.baseline),
                    describe_rate(&r.current),
                    r.p_value
                ))
            };
            if cmp.pass_rate.regression {
                failures.push(regression("pass rate", &cmp.pass_rate));
            }
            if cmp.schema_valid_rate.regression {
                failures.push(regression("schema-valid rate", &cmp.schema_valid_rate));
            }
            for check in &cmp.checks {
                if check.comparison.regression {
                    failures.push(regression(
                        &format!("check `{}`", check.id),
                        &check.comparison,
                    ));
                }
            }
        }
        GateVerdict {
            passed: failures.is_empty(),
            failures,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::tests::stats_with;

    #[test]
    fn gate_per_fixture_and_overall() {
        let stats = stats_with(&[("c", "good", 10, 10), ("c", "bad", 7, 10)]);
        let gate = Gate {
            min_pass_rate: Some(0.8),
            ..Gate::default()
        };
        let verdict = gate.evaluate(&stats, None);
        assert!(!verdict.passed);
        assert_eq!(verdict.failures.len(), 1);
        assert_eq!(verdict.failures_of("c", "bad").count(), 1);
        assert_eq!(verdict.failures_of("c", "good").count(), 0);
        assert!(verdict.failures[0].reason.contains("0.7000 (7/10)"));

        // The observed rate is compared, not the interval: 0.85 ≥ 0.85.
        let overall = Gate {
            min_pass_rate: Some(0.85),
            per: GateScope::Overall,
            fail_on_regression: false,
        };
        assert!(overall.evaluate(&stats, None).passed);
        let overall = Gate {
            min_pass_rate: Some(0.86),
            ..overall
        };
        let verdict = overall.evaluate(&stats, None);
        assert!(!verdict.passed);
        assert_eq!(verdict.overall_failures().count(), 1);
        assert!(Gate::default().evaluate(&stats, None).passed);
    }

    #[test]
    fn gate_on_regression() {
        let baseline = stats_with(&[("c", "f", 20, 20), ("c", "g", 10, 10)]);
        let current = stats_with(&[("c", "f", 10, 20), ("c", "g", 9, 10)]);
        let comparison = crate::compare::compare(&baseline, &current);
        let gate = Gate {
            fail_on_regression: true,
            ..Gate::default()
        };
        let verdict = gate.evaluate(&current, Some(&comparison));
        assert!(!verdict.passed);
        // f: the pass rate and check `ok` regressed; g: not significant.
        let reasons: Vec<_> = verdict
            .failures_of("c", "f")
            .map(|f| f.reason.as_str())
            .collect();
        assert_eq!(reasons.len(), 2, "{reasons:?}");
        assert!(
            reasons[0]
                .starts_with("regression: pass rate fell from 1.0000 (20/20) to 0.5000 (10/20)")
        );
        assert!(reasons[1].contains("check `ok`"));
        assert_eq!(verdict.failures_of("c", "g").count(), 0);
        assert!(gate.evaluate(&current, None).passed);
        let ignoring = Gate::default();
        assert!(ignoring.evaluate(&current, Some(&comparison)).passed);
    }
}
