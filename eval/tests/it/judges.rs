//! Model-graded checks in a run (`docs/eval.md`, "Judges"): each `judge`
//! check renders and executes its judge contract after the execution, the
//! fake provider answers it from the judge's own fixtures, the verdict keeps
//! what the judge answered (stored in the history's `checks.judge`), the
//! judge's executions are priced, a judge adapter of its own can be given,
//! and the judge's contract fingerprint lets a comparison say it changed.

use std::fs;
use templiqx_build::{CompiledContract, Loader};
use templiqx_eval::history::History;
use templiqx_eval::{Baseline, Eval, FakeAdapter, Prices, Verdict, compare};

use crate::common::target;

/// A contract drafting a summary of facts, judged by `summary-judge`: its
/// fixture `faithful` is answered with a summary the judge's first fixture
/// scores 5, `invented` with one whose `with` values match the judge's
/// second fixture, scored 2.
const DRAFTING: &str = r#"api_version: templiqx/v1alpha1
id: drafting
version: 0.1.0
inputs:
  facts: { schema: { type: array, items: { type: string } }, required: true }
capabilities: [structured_output]
messages:
  - role: user
    content:
      - { kind: interpolate, expression: { kind: ref, path: inputs.facts }, filters: [json] }
output_schema:
  type: object
  additionalProperties: false
  required: [summary]
  properties:
    summary: { type: string, minLength: 1 }
evals:
  - id: faithful
    inputs: { facts: ["rent 1200"] }
    fake_output: { summary: "Rent is 1200." }
    expect:
      - id: judged-faithful
        check:
          kind: judge
          contract: summary-judge
          with:
            summary: { kind: ref, path: output.summary }
            facts: { kind: ref, path: inputs.facts }
          pass: { kind: compare, op: ge, left: { kind: ref, path: judge.score }, right: { kind: literal, value: 4 } }
  - id: invented
    inputs: { facts: ["rent 900"] }
    fake_output: { summary: "Rent is 900 and the tenant owns a cat." }
    expect:
      - id: judged-faithful
        check:
          kind: judge
          contract: summary-judge
          with:
            summary: { kind: ref, path: output.summary }
            facts: { kind: ref, path: inputs.facts }
          pass: { kind: compare, op: ge, left: { kind: ref, path: judge.score }, right: { kind: literal, value: 4 } }
"#;

/// The judge: its fixtures are the fake provider's answers to it.
const JUDGE: &str = r#"api_version: templiqx/v1alpha1
id: summary-judge
version: 0.1.0
inputs:
  summary: { schema: { type: string }, required: true }
  facts: { schema: { type: array, items: { type: string } }, required: true }
capabilities: [structured_output]
messages:
  - role: user
    content:
      - { kind: text, value: "Score the summary against the facts. " }
      - { kind: interpolate, expression: { kind: ref, path: inputs.summary } }
      - { kind: interpolate, expression: { kind: ref, path: inputs.facts }, filters: [json] }
output_schema:
  type: object
  additionalProperties: false
  required: [score, reasons]
  properties:
    score: { type: integer, minimum: 1, maximum: 5 }
    reasons: { type: array, items: { type: string } }
evals:
  - id: default-faithful
    inputs: { summary: "Any.", facts: [] }
    fake_output: { score: 5, reasons: ["every statement is in the facts"] }
  - id: invented-cat
    inputs: { summary: "Rent is 900 and the tenant owns a cat.", facts: ["rent 900"] }
    fake_output: { score: 2, reasons: ["the cat is not in the facts", "rent is right"] }
"#;

/// The package of the two contracts, compiled.
fn package(judge: &str) -> (tempfile::TempDir, Vec<CompiledContract>) {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("templiqx.yaml"),
        "api_version: templiqx/v1alpha1\npackage: judged\nversion: 0.1.0\ncontracts: [drafting, summary-judge]\n",
    )
    .unwrap();
    fs::create_dir_all(dir.path().join("contracts")).unwrap();
    fs::write(dir.path().join("contracts/drafting.yaml"), DRAFTING).unwrap();
    fs::write(dir.path().join("contracts/summary-judge.yaml"), judge).unwrap();
    let mut loader = Loader::new(dir.path());
    let all = loader.compile_package(dir.path(), &target()).unwrap();
    for c in &all {
        assert!(c.diagnostics.is_empty(), "{}: {:?}", c.id, c.diagnostics);
    }
    (dir, all)
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn the_fake_provider_answers_judges_from_their_fixtures_and_the_history_keeps_them() {
    let (_dir, all) = package(JUDGE);
    let drafting = [&all[0]];
    let adapter = FakeAdapter::new(&all, target().iter());
    let mut history = History::in_memory().unwrap();
    let prices = Prices::parse(
        "currency: USD\nmodels:\n  fake: { input: 1000000, output: 1000000 }\n",
        "p.yaml",
    )
    .unwrap();
    let eval = Eval::new(drafting)
        .fake_outputs_only(true)
        .prices(prices)
        .history(&mut history);
    let outcome = runtime().block_on(eval.run(&adapter)).unwrap();

    let faithful = outcome.stats.fixture("drafting", "faithful").unwrap();
    assert_eq!(faithful.summary.pass_rate.passed, 1);
    let invented = outcome.stats.fixture("drafting", "invented").unwrap();
    assert_eq!(invented.summary.pass_rate.passed, 0);
    // The judge's contract fingerprint is recorded with the contract.
    let contract = outcome.stats.contract("drafting").unwrap();
    let judge_fp = all[1]
        .interaction
        .as_ref()
        .unwrap()
        .contract_fingerprint
        .to_string();
    assert_eq!(contract.judges.get("summary-judge"), Some(&judge_fp));

    let mut records = Vec::new();
    history
        .executions(outcome.run.id.unwrap(), |r| records.push(r))
        .unwrap();
    let failed = records
        .iter()
        .find(|r| r.fixture == "invented")
        .expect("the invented summary's execution");
    let check = &failed.checks[0];
    assert_eq!(check.verdict, Verdict::Fail);
    assert_eq!(
        check.expression,
        "judge(summary-judge, compare(ge, judge.score, 4))"
    );
    let judge = check.judge.as_ref().expect("the judge's answer is stored");
    assert_eq!(judge.contract, "summary-judge");
    assert_eq!(
        judge.reasons.as_deref(),
        Some("the cat is not in the facts; rent is right")
    );
    assert!(judge.output.as_deref().unwrap().contains("\"score\":2"));
    assert_eq!(check.observed[0].expression, "judge.score");
    assert_eq!(check.observed[0].value.as_deref(), Some("2"));
    // Priced: its own tokens and the judge's, at 1 a token.
    let own = failed.input_tokens.unwrap() + failed.output_tokens.unwrap();
    let judged = judge.input_tokens.unwrap() + judge.output_tokens.unwrap();
    assert!(judged > 0);
    assert!(
        (failed.cost.unwrap() - (own + judged) as f64).abs() < 1e-9,
        "{failed:?}"
    );
    // The HTML report shows the judge's answer and reasons with the
    // failure.
    let report = templiqx_eval::report::html_with_samples(
        &outcome.stats,
        &outcome.run,
        None,
        &outcome.samples,
    );
    assert!(
        report.contains(
            "<li class=\"judge\"><code>reasons: the cat is not in the facts; rent is right</code></li>"
        ),
        "{report}"
    );
    let passed = records.iter().find(|r| r.fixture == "faithful").unwrap();
    assert_eq!(passed.checks[0].verdict, Verdict::Pass);
    assert!(passed.checks[0].judge.as_ref().unwrap().output.is_some());
}

#[test]
fn a_judge_adapter_of_its_own_and_a_changed_judge_are_reported() {
    let (_dir, all) = package(JUDGE);
    let drafting = [&all[0]];
    let adapter = FakeAdapter::new(&all, target().iter());
    // The judge model answers `{}`: the judge fails its schema, so each
    // judged check is an error naming the judge's failure.
    let judge = FakeAdapter::new(&all, target().iter())
        .model("empty")
        .unwrap();
    let eval = Eval::new(drafting)
        .fake_outputs_only(true)
        .judge(&judge, "empty");
    let outcome = runtime().block_on(eval.run(&adapter)).unwrap();
    assert_eq!(outcome.stats.overall.summary.pass_rate.passed, 0);
    let baseline = Baseline {
        source: "before".to_owned(),
        stats: outcome.stats.clone(),
    };

    // The same run with a changed judge: the comparison names it.
    let (_dir2, changed) = package(&JUDGE.replace("Score the summary", "Grade the summary"));
    let adapter = FakeAdapter::new(&changed, target().iter());
    let mut history = History::in_memory().unwrap();
    let eval = Eval::new([&changed[0]])
        .fake_outputs_only(true)
        .history(&mut history);
    let after = runtime().block_on(eval.run(&adapter)).unwrap();
    let comparison = compare(&baseline.stats, &after.stats);
    let contract = comparison.contract("drafting").unwrap();
    assert_eq!(contract.judges_changed, ["summary-judge"]);
    assert!(!contract.interaction_changed);
    let same = compare(&after.stats, &after.stats);
    assert!(same.contract("drafting").unwrap().judges_changed.is_empty());

    let mut records = Vec::new();
    history.executions(1, |r| records.push(r)).unwrap();
    assert!(records.iter().all(|r| r.checks[0].judge.is_some()));
}

#[test]
fn a_failing_judge_is_an_error_verdict_with_its_code() {
    let (_dir, all) = package(JUDGE);
    let adapter = FakeAdapter::new(&all, target().iter());
    let judge = FakeAdapter::new(&all, target().iter())
        .model("empty")
        .unwrap();
    let mut history = History::in_memory().unwrap();
    let eval = Eval::new([&all[0]])
        .fake_outputs_only(true)
        .judge(&judge, "empty")
        .history(&mut history);
    runtime().block_on(eval.run(&adapter)).unwrap();
    let mut records = Vec::new();
    history.executions(1, |r| records.push(r)).unwrap();
    let check = &records[0].checks[0];
    assert_eq!(check.verdict, Verdict::Error);
    let error = check.error.as_deref().unwrap();
    assert!(
        error.starts_with("judge `summary-judge` failed: TQX_OUTPUT_SCHEMA:"),
        "{error}"
    );
    // Where the answer broke the judge's schema, and the answer itself
    // with its tokens: a failing judge explains itself.
    assert!(
        error.ends_with(
            "(2 violations): output at /: missing required property \"score\"; output at /: missing required property \"reasons\""
        ),
        "{error}"
    );
    let judged = check.judge.as_ref().unwrap();
    assert_eq!(judged.code.as_deref(), Some("TQX_OUTPUT_SCHEMA"));
    assert_eq!(judged.output.as_deref(), Some("{}"));
    assert_eq!(judged.output_tokens, Some(1));
    assert_eq!(
        templiqx_eval::explain::judge_lines(check),
        ["judge summary-judge failed with TQX_OUTPUT_SCHEMA; it answered {}"]
    );
}

/// A budget counts the judges' executions: a judge model without a price
/// is refused before anything runs (`docs/eval.md`, "Cost").
#[test]
fn a_budget_needs_a_price_for_the_judge_model() {
    let (_dir, all) = package(JUDGE);
    let adapter = FakeAdapter::new(&all, target().iter());
    let judge = FakeAdapter::new(&all, target().iter())
        .model("flaky-1000")
        .unwrap();
    let prices =
        templiqx_eval::Prices::parse("models:\n  fake: { input: 1, output: 1 }\n", "prices.yaml")
            .unwrap();
    let eval = Eval::new([&all[0]])
        .fake_outputs_only(true)
        .prices(prices)
        .max_cost(1.0)
        .judge(&judge, "flaky-1000");
    let Err(templiqx_eval::EvalError::Refused(ds)) = runtime().block_on(eval.run(&adapter)) else {
        panic!("refused")
    };
    let d = ds.iter().next().unwrap();
    assert_eq!(d.code.as_str(), "TQX_INVALID_VALUE");
    assert_eq!(
        d.message,
        "the price table has no price for the judge model `flaky-1000`, so the budget cannot be kept"
    );
    // A selection without a model-graded check runs no judge: no price
    // needed for its model.
    let judge_contract = all.iter().find(|c| c.id == "summary-judge").unwrap();
    let prices =
        templiqx_eval::Prices::parse("models:\n  fake: { input: 1, output: 1 }\n", "prices.yaml")
            .unwrap();
    let eval = Eval::new([judge_contract])
        .fake_outputs_only(true)
        .prices(prices)
        .max_cost(1.0)
        .judge(&judge, "flaky-1000");
    assert!(runtime().block_on(eval.run(&adapter)).is_ok());
}

/// A judge contract without a fixture to answer from: the fake provider
/// says so, not that "the fixture" lacks one (`docs/eval.md`, "Judges").
#[test]
fn the_fake_names_a_judge_without_fixtures() {
    let bare = &JUDGE[..JUDGE.find("evals:").unwrap()];
    let (_dir, all) = package(bare);
    let adapter = FakeAdapter::new(&all, target().iter());
    let mut history = History::in_memory().unwrap();
    let eval = Eval::new([&all[0]])
        .fake_outputs_only(true)
        .history(&mut history);
    runtime().block_on(eval.run(&adapter)).unwrap();
    let mut records = Vec::new();
    history.executions(1, |r| records.push(r)).unwrap();
    let error = records[0].checks[0].error.as_deref().unwrap();
    assert!(
        error.ends_with(
            "TQX_RUNTIME_PERMANENT: the judge contract has no eval fixture with a fake_output, which the fake provider answers a judge with"
        ),
        "{error}"
    );
}

/// A labelling contract whose dataset rows are judged with their own
/// expected label: `with` reads `case` (`docs/format.md`, "Model-graded
/// checks").
const LABELLING: &str = r#"api_version: templiqx/v1alpha1
id: labelling
version: 0.1.0
inputs:
  text: { schema: { type: string }, required: true }
capabilities: [structured_output]
messages:
  - role: user
    content:
      - { kind: interpolate, expression: { kind: ref, path: inputs.text } }
output_schema:
  type: object
  additionalProperties: false
  required: [label]
  properties:
    label: { type: string }
evals:
  - id: rows
    dataset: evals/rows.jsonl
    case_schema:
      type: object
      required: [label]
      properties:
        label: { type: string }
    expect:
      - id: agrees
        check:
          kind: judge
          contract: label-judge
          with:
            given: { kind: ref, path: output.label }
            expected: { kind: ref, path: case.label }
          pass: { kind: ref, path: judge.agree }
"#;

const LABEL_JUDGE: &str = r#"api_version: templiqx/v1alpha1
id: label-judge
version: 0.1.0
inputs:
  given: { schema: { type: string }, required: true }
  expected: { schema: { type: string }, required: true }
capabilities: [structured_output]
messages:
  - role: user
    content:
      - { kind: interpolate, expression: { kind: ref, path: inputs.given } }
      - { kind: interpolate, expression: { kind: ref, path: inputs.expected } }
output_schema:
  type: object
  additionalProperties: false
  required: [agree]
  properties:
    agree: { type: boolean }
evals:
  - id: same
    inputs: { given: positive, expected: positive }
    fake_output: { agree: true }
  - id: different
    inputs: { given: negative, expected: positive }
    fake_output: { agree: false }
"#;

#[test]
fn a_dataset_row_is_judged_with_its_own_case() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("templiqx.yaml"),
        "api_version: templiqx/v1alpha1\npackage: rows\nversion: 0.1.0\ncontracts: [labelling, label-judge]\n",
    )
    .unwrap();
    fs::create_dir_all(dir.path().join("contracts")).unwrap();
    fs::create_dir_all(dir.path().join("evals")).unwrap();
    fs::write(dir.path().join("contracts/labelling.yaml"), LABELLING).unwrap();
    fs::write(dir.path().join("contracts/label-judge.yaml"), LABEL_JUDGE).unwrap();
    fs::write(
        dir.path().join("evals/rows.jsonl"),
        concat!(
            r#"{"id": "right", "inputs": {"text": "great"}, "case": {"label": "positive"}, "fake_output": {"label": "positive"}}"#,
            "\n",
            r#"{"id": "wrong", "inputs": {"text": "fine"}, "case": {"label": "positive"}, "fake_output": {"label": "negative"}}"#,
            "\n"
        ),
    )
    .unwrap();
    let mut loader = Loader::new(dir.path());
    let all = loader.compile_package(dir.path(), &target()).unwrap();
    for c in &all {
        assert!(c.diagnostics.is_empty(), "{}: {:?}", c.id, c.diagnostics);
    }
    let adapter = FakeAdapter::new(&all, target().iter());
    let eval = Eval::new([&all[0]]).fake_outputs_only(true);
    let outcome = runtime().block_on(eval.run(&adapter)).unwrap();
    // The entry is one fixture of the statistics; its rows are counted.
    let entry = outcome.stats.fixture("labelling", "rows").unwrap();
    let rows = entry.rows.as_ref().unwrap();
    // Each row's judge request carries its own `case.label`: the fake
    // answers `wrong` with the judge's `different` fixture.
    assert_eq!((rows.rows, rows.passed_all.passed), (2, 1));
    assert_eq!(rows.failing, ["wrong"]);
    assert_eq!(entry.summary.pass_rate.passed, 1);
    let failing: Vec<&str> = outcome
        .samples
        .iter()
        .filter(|r| !r.passed())
        .map(|r| r.fixture.as_str())
        .collect();
    assert_eq!(failing, ["rows#wrong"]);
}
