//! The JUnit XML report of a run (`docs/eval.md`, "Output and reports"), for CI
//! systems that show test results.
//!
//! One `<testsuite>` per contract (named by its id) with one `<testcase>`
//! per fixture (named `contract::fixture`, class name the contract), which
//! fails when the fixture fails the [`Gate`](crate::Gate); then a
//! `<testsuite name="templiqx eval: overall">` whose one testcase,
//! `overall`, carries the run's figures and fails on the gate's failures
//! that concern the whole run. Each testcase has the figures as
//! `<properties>` (rates in `[0, 1]`, latencies in ms) and a one-line
//! summary as `<system-out>`; its time is the sum of its executions'
//! latencies. An interrupted run ([`RunInfo::interrupted_at`]) is marked
//! incomplete: every suite has the property `interrupted_at`, and the
//! overall suite a second testcase, `incomplete`, in error (type
//! `interrupted`).

use std::time::Duration;

use quick_junit::{NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestSuite};

use crate::explain;
use crate::gate::{GateFailure, GateVerdict};
use crate::record::{ExecutionRecord, RunInfo};
use crate::stats::{RunStats, Summary, describe_rate};

/// The name of the suite of the whole run's testcase.
pub const OVERALL_SUITE: &str = "templiqx eval: overall";

fn properties(summary: &Summary) -> Vec<Property> {
    let mut properties = vec![
        Property::new("executions", summary.executions.to_string()),
        Property::new("passed", summary.pass_rate.passed.to_string()),
        Property::new("pass_rate", summary.pass_rate.rate.to_string()),
        Property::new("pass_rate_low", summary.pass_rate.low.to_string()),
        Property::new("pass_rate_high", summary.pass_rate.high.to_string()),
        Property::new(
            "schema_valid_rate",
            summary.schema_valid_rate.rate.to_string(),
        ),
        Property::new("pass_all", summary.pass_all.to_string()),
        Property::new("distinct_outputs", summary.distinct_outputs.to_string()),
        Property::new("cached", summary.cached.to_string()),
    ];
    for (name, value) in [
        ("latency_p50_ms", summary.latency.p50_ms),
        ("latency_p95_ms", summary.latency.p95_ms),
        ("output_tokens_per_s", summary.output_tokens_per_s),
    ] {
        if let Some(value) = value {
            properties.push(Property::new(name, value.to_string()));
        }
    }
    for check in &summary.checks {
        properties.push(Property::new(
            format!("check.{}.pass_rate", check.id),
            check.rate.rate.to_string(),
        ));
    }
    properties
}

fn system_out(summary: &Summary) -> String {
    let r = &summary.pass_rate;
    format!(
        "pass rate {} ({}/{}), 95% Wilson interval [{}, {}]; schema-valid {}; pass^N {}",
        crate::stats::fraction_digits(r.rate),
        r.passed,
        r.total,
        crate::stats::fraction_digits(r.low),
        crate::stats::fraction_digits(r.high),
        describe_rate(&summary.schema_valid_rate),
        if summary.pass_all { "yes" } else { "no" },
    )
}

/// Why the failing executions among `samples` failed, one line each
/// (`repeat 0: check reads-sixty: equals(output.notice_days, 60) with
/// output.notice_days = 59`).
fn evidence(samples: &[&ExecutionRecord]) -> Vec<String> {
    samples
        .iter()
        .filter(|r| !r.passed())
        .map(|r| {
            // A dataset row's execution names its row.
            let row = crate::select::dataset_row(&r.fixture)
                .map_or_else(String::new, |(_, row)| format!("row {row}, "));
            match &r.variant {
                Some(v) => format!(
                    "variant {v}, {row}repeat {}: {}",
                    r.repeat,
                    explain::one_line(r)
                ),
                None => format!("{row}repeat {}: {}", r.repeat, explain::one_line(r)),
            }
        })
        .collect()
}

fn test_case(
    name: &str,
    summary: &Summary,
    failures: &[&GateFailure],
    samples: &[&ExecutionRecord],
) -> TestCase {
    let evidence = evidence(samples);
    let status = if failures.is_empty() {
        TestCaseStatus::success()
    } else {
        let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
        // In a run of several variants, a fixture's case fails when the
        // gate failed it on any variant, which its reason names.
        let reasons: Vec<String> = failures
            .iter()
            .map(|f| match &f.variant {
                Some(v) => format!("on variant {v}: {}", f.reason),
                None => f.reason.clone(),
            })
            .collect();
        // The message names the first failure's checks and values; the
        // description has every failing execution kept.
        let mut message = reasons.join("; ");
        if let Some(first) = evidence.first() {
            message.push_str("; ");
            message.push_str(first);
        }
        let mut description = reasons.join("\n");
        for line in &evidence {
            description.push('\n');
            description.push_str(line);
        }
        status
            .set_type("gate")
            .set_message(message)
            .set_description(description);
        status
    };
    let mut case = TestCase::new(name, status);
    case.add_properties(properties(summary))
        .set_system_out(system_out(summary));
    if failures.is_empty() && !evidence.is_empty() {
        case.set_system_err(evidence.join("\n"));
    }
    if let Ok(time) = Duration::try_from_secs_f64(summary.latency.total_ms / 1000.0) {
        case.set_time(time);
    }
    case
}

/// The JUnit XML report of a run: its [`RunStats`], with the testcases
/// failing as `gate` says ([`Gate::evaluate`](crate::Gate::evaluate)).
/// Every suite has the run's [`RunInfo`] as properties (`run_id`,
/// `started_at`, `provider`, `model`, `sampling`, `repeat`), and each
/// contract's suite its `interaction_fingerprint`. A gate failure naming no
/// fixture of `stats` counts against the `overall` testcase.
#[must_use]
pub fn junit(stats: &RunStats, run: &RunInfo, gate: &GateVerdict) -> String {
    junit_with_samples(stats, run, gate, &[])
}

/// [`junit`], with the evidence of `samples` ([`Outcome::samples`](crate::Outcome::samples)):
/// a failing testcase's message adds why its first failing execution
/// failed — the checks with their expressions and the values they read, or
/// the failure and its message — and its description one such line per
/// failing execution kept; a passing testcase with failing executions
/// has those lines as `<system-err>`. Texts a model or server wrote are
/// [`excerpt`](crate::explain::excerpt)s: one line, no character XML
/// forbids.
#[must_use]
pub fn junit_with_samples(
    stats: &RunStats,
    run: &RunInfo,
    gate: &GateVerdict,
    samples: &[ExecutionRecord],
) -> String {
    let mut report = Report::new("templiqx eval");
    let run_properties = [
        Property::new(
            "run_id",
            run.id.map(|id| id.to_string()).unwrap_or_default(),
        ),
        Property::new("started_at", &run.started_at),
        Property::new("provider", &run.provider),
        Property::new("model", &run.model),
        Property::new("sampling", &run.sampling),
        Property::new("repeat", run.repeat.to_string()),
    ];
    let run_properties: Vec<Property> = run_properties
        .into_iter()
        .chain(
            run.interrupted_at
                .as_deref()
                .map(|at| Property::new("interrupted_at", at)),
        )
        .collect();
    for contract in &stats.contracts {
        let mut suite = TestSuite::new(contract.contract.as_str());
        suite.add_properties(run_properties.clone());
        if let Some(fp) = &contract.interaction_fingerprint {
            suite.add_property(Property::new("interaction_fingerprint", fp));
        }
        for fixture in stats.fixtures_of(&contract.contract) {
            let failures: Vec<&GateFailure> = gate
                .failures_of(&fixture.contract, &fixture.fixture)
                .collect();
            let of: Vec<&ExecutionRecord> = samples.iter().filter(|r| fixture.holds(r)).collect();
            let mut case = test_case(
                &format!("{}::{}", fixture.contract, fixture.fixture),
                &fixture.summary,
                &failures,
                &of,
            );
            case.set_classname(contract.contract.as_str());
            // A dataset entry's rows (`docs/eval.md`, "Datasets").
            if let Some(rows) = &fixture.rows {
                case.add_properties([
                    Property::new("rows", rows.rows.to_string()),
                    Property::new("rows_passed_all", rows.passed_all.passed.to_string()),
                    Property::new("rows_varied", rows.varied.to_string()),
                    // A JSON array: ids may hold any printable character.
                    Property::new(
                        "failing_rows",
                        serde_json::to_string(&rows.failing).unwrap_or_default(),
                    ),
                ]);
                case.set_system_out(format!(
                    "{}; rows: {} of {} passed every execution{}",
                    system_out(&fixture.summary),
                    rows.passed_all.passed,
                    rows.rows,
                    if rows.failing.is_empty() {
                        String::new()
                    } else {
                        format!(
                            "; failing rows ({} of {}): {}",
                            rows.failing.len(),
                            rows.passed_all.failed(),
                            serde_json::to_string(&rows.failing).unwrap_or_default()
                        )
                    }
                ));
            }
            suite.add_test_case(case);
        }
        report.add_test_suite(suite);
    }
    let unattached: Vec<&GateFailure> = gate
        .failures
        .iter()
        .filter(|f| match (&f.contract, &f.fixture) {
            (Some(c), Some(x)) => stats.fixture(c, x).is_none(),
            _ => true,
        })
        .collect();
    let mut suite = TestSuite::new(OVERALL_SUITE);
    suite.add_properties(run_properties);
    let mut case = test_case("overall", &stats.overall.summary, &unattached, &[]);
    case.set_classname(OVERALL_SUITE);
    suite.add_test_case(case);
    if let Some(at) = &run.interrupted_at {
        // CI shows an incomplete run as an error, not as a pass.
        let mut status = TestCaseStatus::non_success(NonSuccessKind::Error);
        status.set_type("interrupted").set_message(format!(
            "the run was interrupted at {at} after {} executions; the figures cover only what ran",
            stats.overall.summary.executions
        ));
        let mut case = TestCase::new("incomplete", status);
        case.set_classname(OVERALL_SUITE);
        suite.add_test_case(case);
    }
    report.add_test_suite(suite);
    report
        .to_string()
        .expect("serializing to a String cannot fail")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::{Gate, GateScope};
    use crate::record::Verdict;
    use crate::stats::Accumulator;
    use crate::stats::tests::record;

    const HOSTILE: &str = "<c&\"'>]]>";

    fn stats() -> RunStats {
        let mut acc = Accumulator::new();
        acc.set_interaction_fingerprint("c", "sha256:aa");
        for repeat in 0..10 {
            let v = if repeat < 6 {
                Verdict::Pass
            } else {
                Verdict::Fail
            };
            acc.push(&record("c", "weak", repeat, true, &[("ok", v)], 100.0));
            acc.push(&record(
                "c",
                "strong",
                repeat,
                true,
                &[("ok", Verdict::Pass)],
                100.0,
            ));
            acc.push(&record(HOSTILE, HOSTILE, repeat, true, &[], 1.0));
        }
        acc.stats()
    }

    fn run() -> RunInfo {
        RunInfo {
            id: Some(7),
            started_at: "2026-01-02T03:04:05Z".into(),
            provider: "fake".into(),
            model: "fake".into(),
            sampling: "{}".into(),
            repeat: 10,
            interrupted_at: None,
            variants: Vec::new(),
            currency: None,
            max_cost: None,
        }
    }

    fn property<'a>(properties: &'a [Property], name: &str) -> &'a str {
        properties
            .iter()
            .find(|p| p.name.as_str() == name)
            .unwrap_or_else(|| panic!("no property {name}"))
            .value
            .as_str()
    }

    #[test]
    fn one_suite_per_contract_one_case_per_fixture() {
        let stats = stats();
        let gate = Gate {
            min_pass_rate: Some(0.9),
            per: GateScope::Fixture,
            fail_on_regression: false,
        };
        let verdict = gate.evaluate(&stats, None);
        let xml = junit(&stats, &run(), &verdict);
        let report = Report::deserialize_from_str(&xml).unwrap();
        assert_eq!(report.name.as_ref().unwrap().as_str(), "templiqx eval");
        let names: Vec<_> = report.test_suites.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, [HOSTILE, "c", OVERALL_SUITE]);
        assert_eq!(report.tests, 4);
        assert_eq!(report.failures, 1);

        let suite = &report.test_suites[1];
        assert_eq!(property(&suite.properties, "run_id"), "7");
        assert_eq!(
            property(&suite.properties, "interaction_fingerprint"),
            "sha256:aa"
        );
        let cases: Vec<_> = suite.test_cases.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(cases, ["c::strong", "c::weak"]);

        let strong = &suite.test_cases[0];
        assert!(matches!(strong.status, TestCaseStatus::Success { .. }));
        let weak = &suite.test_cases[1];
        let TestCaseStatus::NonSuccess {
            kind: NonSuccessKind::Failure,
            message,
            ty,
            ..
        } = &weak.status
        else {
            panic!("{:?}", weak.status)
        };
        assert_eq!(ty.as_ref().unwrap().as_str(), "gate");
        assert!(message.as_ref().unwrap().as_str().contains("0.6000 (6/10)"));
        assert_eq!(weak.classname.as_ref().unwrap().as_str(), "c");
        assert_eq!(weak.time, Some(Duration::from_secs(1)));

        let figures = &stats.fixture("c", "weak").unwrap().summary;
        let p = &weak.properties;
        assert_eq!(property(p, "executions"), "10");
        assert_eq!(property(p, "passed"), "6");
        assert_eq!(
            property(p, "pass_rate").parse::<f64>().unwrap(),
            figures.pass_rate.rate
        );
        assert_eq!(
            property(p, "pass_rate_low").parse::<f64>().unwrap(),
            figures.pass_rate.low
        );
        assert_eq!(
            property(p, "pass_rate_high").parse::<f64>().unwrap(),
            figures.pass_rate.high
        );
        assert_eq!(property(p, "check.ok.pass_rate"), "0.6");
        let out = weak.system_out.as_ref().unwrap().as_str();
        assert!(
            out.starts_with("pass rate 0.6000 (6/10), 95% Wilson interval [0.3127, 0.8318]"),
            "{out}"
        );

        let hostile = &report.test_suites[0].test_cases[0];
        assert_eq!(hostile.name.as_str(), format!("{HOSTILE}::{HOSTILE}"));
        let overall = &report.test_suites[2].test_cases[0];
        assert!(matches!(overall.status, TestCaseStatus::Success { .. }));
        assert_eq!(property(&overall.properties, "executions"), "30");
    }

    #[test]
    fn overall_gate_fails_the_overall_case() {
        let stats = stats();
        let gate = Gate {
            min_pass_rate: Some(0.95),
            per: GateScope::Overall,
            fail_on_regression: false,
        };
        let xml = junit(&stats, &run(), &gate.evaluate(&stats, None));
        let report = Report::deserialize_from_str(&xml).unwrap();
        assert_eq!(report.failures, 1);
        let overall = &report.test_suites[2].test_cases[0];
        assert!(matches!(
            overall.status,
            TestCaseStatus::NonSuccess {
                kind: NonSuccessKind::Failure,
                ..
            }
        ));
        let passing = junit(&stats, &run(), &GateVerdict::default());
        assert_eq!(Report::deserialize_from_str(&passing).unwrap().failures, 0);
    }
}
