//! `templiqx eval` with model-graded checks (`docs/eval.md`, "Judges"), run
//! as a process on copies of the CRM3 example: the judge's answer and
//! reasons shown with a failure, a judge model of its own
//! (`--judge-model`), a changed judge named by the baseline comparison,
//! and judge flags that cannot make an adapter.

use crate::common::*;
use std::path::Path;

/// The drafting summary's fake output, with a fact the terms do not
/// hold; the judge's `invented-parking` fixture is made to be the answer
/// to it (the same `with` values: this summary and these terms).
const PARKING: &str = "The lease runs from 1 March 2026 to 28 February 2027 at EUR 1.450,50 per month, with 60 days' notice and two parking spaces.";

/// A copy of the CRM3 example in `dir` whose drafting fixture invents
/// parking spaces, and whose judge answers that summary with a low score.
fn unfaithful_copy(dir: &Path) {
    templiqx_conformance_suites::copy_tree(&repo().join("examples/crm3"), dir);
    let drafting = dir.join("contracts/lease-summary-drafting.yaml");
    let text = std::fs::read_to_string(&drafting).unwrap();
    let edited = text.replace(
        "summary: \"The lease runs from 1 March 2026 to 28 February 2027 at EUR 1.450,50 per month, with 60 days' notice.\"",
        &format!("summary: \"{PARKING}\""),
    );
    assert_ne!(text, edited);
    std::fs::write(&drafting, edited).unwrap();
    let judge = dir.join("contracts/lease-summary-judge.yaml");
    let text = std::fs::read_to_string(&judge).unwrap();
    let edited = text
        .replace(
            "summary: \"The lease runs from 1 March 2026 to 28 February 2027 at EUR 1.450,50 per month and includes two parking spaces.\"",
            &format!("summary: \"{PARKING}\""),
        )
        .replace(
            "lease_terms: { start_date: \"2026-03-01\", end_date: \"2027-02-28\", monthly_rent: 1450.5, notice_days: 60 }",
            "lease_terms: { start_date: \"2026-03-01\", end_date: \"2027-02-28\", monthly_rent: 1450.5, notice_days: 60, evidence: [{ field: start_date, document_id: LEASE-0007, fragment_id: clause-3, start_offset: 20, end_offset: 30, quote_sha256: 7cd45c1acf8a9ce6dbb3bc4eeb4fc16a0fa9cb2408619fd1f8f2c66d9ece4a6b }] }",
        );
    assert_ne!(text, edited);
    std::fs::write(&judge, edited).unwrap();
}

fn eval_in(dir: &Path, extra: &[&str]) -> std::process::Output {
    templiqx_in(dir)
        .args(["eval", ".", "-t", "structured_output", "--provider", "fake"])
        .args(["--filter", "lease-summary-drafting::*"])
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn a_judge_that_finds_an_invented_fact_fails_the_check_with_its_answer_and_reasons() {
    let dir = tempfile::tempdir().unwrap();
    unfaithful_copy(dir.path());
    let out = eval_in(dir.path(), &["--db", ":memory:", "--min-pass-rate", "1"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    for line in [
        "check faithful-to-the-terms: judge(lease-summary-judge, and(compare(ge, judge.score, 4), equals(length(judge.unsupported), 0)))",
        "judge.score = 2",
        "judge lease-summary-judge answered {\"reasons\":[\"the parking spaces are not in the terms\",\"the notice period is not mentioned\"],\"score\":2,\"unsupported\":[\"two parking spaces\"]}",
        "reasons: the parking spaces are not in the terms; the notice period is not mentioned",
    ] {
        assert!(
            text.lines().any(|l| l.trim() == line),
            "missing {line:?} in\n{text}"
        );
    }
    // The other checks of the fixture passed: only the judge refused it.
    assert!(
        text.contains("check mentions-notice         100.0%"),
        "{text}"
    );
}

#[test]
fn a_judge_model_of_its_own_answers_the_judges() {
    let out = templiqx()
        .args([
            "eval",
            "examples/crm3",
            "-t",
            "structured_output",
            "--provider",
            "fake",
        ])
        .args(["--filter", "lease-summary-drafting::*", "--db", ":memory:"])
        .args(["--judge-model", "empty", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let env = &envelopes(&out)[0];
    let failures = env["result"]["samples"].to_string();
    assert!(
        failures.contains("judge `lease-summary-judge` failed: TQX_OUTPUT_SCHEMA"),
        "{failures}"
    );
    let human = templiqx()
        .args([
            "eval",
            "examples/crm3",
            "-t",
            "structured_output",
            "--provider",
            "fake",
        ])
        .args(["--filter", "lease-summary-drafting::*", "--db", ":memory:"])
        .args(["--judge-model", "empty"])
        .output()
        .unwrap();
    let text = stdout(&human);
    assert!(
        text.lines().any(|l| l.trim()
            == "judge lease-summary-judge failed with TQX_OUTPUT_SCHEMA; it answered {}"),
        "{text}"
    );
}

#[test]
fn a_changed_judge_is_named_by_the_baseline_comparison() {
    let dir = tempfile::tempdir().unwrap();
    templiqx_conformance_suites::copy_tree(&repo().join("examples/crm3"), dir.path());
    let db = dir.path().join("eval.sqlite");
    let db = db.to_str().unwrap();
    let first = eval_in(dir.path(), &["--db", db]);
    assert_eq!(first.status.code(), Some(0), "{}", stdout(&first));
    let judge = dir.path().join("contracts/lease-summary-judge.yaml");
    let text = std::fs::read_to_string(&judge).unwrap();
    std::fs::write(
        &judge,
        text.replace("You check lease summaries", "You verify lease summaries"),
    )
    .unwrap();
    let second = eval_in(dir.path(), &["--db", db, "--baseline", "last"]);
    let text = stdout(&second);
    assert_eq!(second.status.code(), Some(0), "{text}");
    assert!(
        text.lines().any(|l| l.trim()
            == "contract lease-summary-drafting (same interaction, judge changed: lease-summary-judge)"),
        "{text}"
    );
}

#[test]
fn judge_flags_that_name_no_adapter_are_usage_errors() {
    let out = templiqx()
        .args([
            "eval",
            "examples/crm3",
            "-t",
            "structured_output",
            "--provider",
            "fake",
        ])
        .args([
            "--db",
            ":memory:",
            "--judge-provider",
            "openai",
            "--judge-model",
            "m",
        ])
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let env = &envelopes(&out)[0];
    assert_eq!(codes(env), ["TQX_INVALID_VALUE"]);
    assert!(
        env.to_string()
            .contains("the judges have no base URL: give --judge-base-url"),
        "{env}"
    );
}
