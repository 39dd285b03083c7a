//! Several variants in one run and what a run costs (`docs/eval.md`,
//! "Comparing models", "Cost"): the fake provider's models (`fake` answers
//! the fixture's `fake_output`, `empty` answers `{}`, `flaky-N` answers
//! `{}` every Nth repeat), the Fisher test between variants, the history
//! keyed by variant, prices known and unknown, and the budget.

use crate::common::{compiled, target};
use templiqx_build::CompiledContract;
use templiqx_eval::history::History;
use templiqx_eval::show::stored_run;
use templiqx_eval::{
    Endpoint, Eval, EvalError, FakeAdapter, FixtureFilter, Outcome, Prices, Variant,
};

/// One fixture with a `fake_output` that passes its check.
const GREETING: &str = r#"
api_version: templiqx/v1alpha1
id: greeting
version: 0.1.0
inputs:
  name: { schema: { type: string }, required: true }
capabilities: [structured_output]
messages:
  - role: user
    content:
      - { kind: text, value: "Greet " }
      - { kind: interpolate, expression: { kind: ref, path: inputs.name } }
output_schema:
  type: object
  additionalProperties: false
  required: [greeting]
  properties:
    greeting: { type: string }
evals:
  - id: ada
    inputs: { name: Ada }
    fake_output: { greeting: "Hello Ada" }
    expect:
      - id: names-ada
        check: { kind: contains, container: { kind: ref, path: output.greeting }, item: { kind: ref, path: inputs.name } }
"#;

fn contracts() -> Vec<CompiledContract> {
    compiled(GREETING, "greeting")
}

/// The fake adapter answering as `model`, as the variant `name`.
fn variant(contracts: &[CompiledContract], name: &str, model: &str) -> (Variant, FakeAdapter) {
    let adapter = FakeAdapter::new(contracts, target().iter())
        .model(model)
        .unwrap();
    (Variant::new(name, &Endpoint::new("fake", model)), adapter)
}

fn block_on<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(future)
}

fn run(eval: Eval<'_>, variants: &[(Variant, FakeAdapter)]) -> Result<Outcome, EvalError> {
    block_on(eval.run_variants(variants))
}

#[test]
fn two_variants_differ_significantly_and_the_history_keys_executions_by_variant() {
    let contracts = contracts();
    let variants = [
        variant(&contracts, "good", "fake"),
        variant(&contracts, "bad", "empty"),
    ];
    let mut history = History::in_memory().unwrap();
    let eval = Eval::new(&contracts)
        .fake_outputs_only(true)
        .repeat(5)
        .concurrency(3)
        .history(&mut history);
    let outcome = run(eval, &variants).unwrap();

    assert_eq!(outcome.variants.len(), 2);
    let rates: Vec<(u64, u64)> = outcome
        .variants
        .iter()
        .map(|v| {
            let s = &v.stats.fixture("greeting", "ada").unwrap().summary;
            (s.pass_rate.passed, s.executions)
        })
        .collect();
    assert_eq!(rates, [(5, 5), (0, 5)]);
    // The first is the reference; the second is compared with it by
    // Fisher's exact test: 5 of 5 against 0 of 5, p = 2/252.
    assert!(outcome.variants[0].comparison.is_none());
    let compared = outcome.variants[1].comparison.as_ref().unwrap();
    let ada = compared.fixture("greeting", "ada").unwrap();
    assert!(
        (ada.pass_rate.p_value - 2.0 / 252.0).abs() < 1e-9,
        "{}",
        ada.pass_rate.p_value
    );
    assert!(ada.pass_rate.significant && ada.pass_rate.regression);
    // The run's own figures are the first variant's.
    assert_eq!(
        outcome
            .stats
            .fixture("greeting", "ada")
            .unwrap()
            .summary
            .pass_rate
            .passed,
        5
    );
    assert_eq!(outcome.run.variants.len(), 2);
    assert!(outcome.samples.iter().all(|r| r.variant.is_some()));

    // The history keeps each execution's variant and the run's variants,
    // and `eval show` makes the same comparison again.
    let run_id = outcome.run.id.unwrap().to_string();
    let mut by_variant: Vec<(String, u32, bool)> = Vec::new();
    let mut executions = 0;
    history
        .executions(outcome.run.id.unwrap(), |r| {
            executions += 1;
            let name = r.variant.clone().unwrap();
            match by_variant.iter_mut().find(|(n, ..)| *n == name) {
                Some(entry) => entry.1 += 1,
                None => by_variant.push((name, 1, r.passed())),
            }
        })
        .unwrap();
    assert_eq!(executions, 10);
    by_variant.sort();
    assert_eq!(
        by_variant,
        [("bad".to_owned(), 5, false), ("good".to_owned(), 5, true)]
    );
    let shown = stored_run(&history, &run_id, &FixtureFilter::default(), 3).unwrap();
    assert_eq!(shown.run.variants, outcome.run.variants);
    let again = shown.variants[1].comparison.as_ref().unwrap();
    assert_eq!(
        again.fixture("greeting", "ada").unwrap().pass_rate,
        ada.pass_rate
    );
}

#[test]
fn a_flaky_fake_model_fails_every_nth_repeat() {
    let contracts = contracts();
    let variants = [variant(&contracts, "flaky", "flaky-3")];
    let eval = Eval::new(&contracts).fake_outputs_only(true).repeat(6);
    let outcome = run(eval, &variants).unwrap();
    // A run of one variant: no variant named on its records.
    assert!(outcome.variants.is_empty());
    let s = &outcome.stats.fixture("greeting", "ada").unwrap().summary;
    assert_eq!((s.pass_rate.passed, s.executions), (4, 6));
    let failed: Vec<u32> = outcome
        .samples
        .iter()
        .filter(|r| !r.passed())
        .map(|r| r.repeat)
        .collect();
    assert_eq!(failed, [2, 5]);
    assert!(
        FakeAdapter::new(&contracts, target().iter())
            .model("flakey-3")
            .unwrap_err()
            .contains("`flaky-N`")
    );
}

#[test]
fn executions_cost_their_tokens_at_the_models_price_and_unknown_stays_unknown() {
    let contracts = contracts();
    let variants = [
        variant(&contracts, "priced", "fake"),
        // Answers as `fake` for these repeats, but has no price.
        variant(&contracts, "unpriced", "flaky-1000"),
    ];
    let prices = Prices::parse(
        "currency: EUR\nmodels:\n  fake: { input: 1000, output: 4000 }\n",
        "prices.yaml",
    )
    .unwrap();
    let mut history = History::in_memory().unwrap();
    let eval = Eval::new(&contracts)
        .fake_outputs_only(true)
        .repeat(2)
        .prices(prices)
        .history(&mut history);
    let outcome = run(eval, &variants).unwrap();
    assert_eq!(outcome.run.currency.as_deref(), Some("EUR"));

    // The fake reports 1 token per 4 bytes: the answer
    // {"greeting":"Hello Ada"} is 24 bytes, 6 tokens.
    let priced = outcome
        .samples
        .iter()
        .find(|r| r.variant.as_deref() == Some("priced"))
        .unwrap();
    let (input, output) = (priced.input_tokens.unwrap(), priced.output_tokens.unwrap());
    assert_eq!(output, 6);
    let expected = (input as f64 * 1000.0 + output as f64 * 4000.0) / 1e6;
    assert!((priced.cost.unwrap() - expected).abs() < 1e-12);
    let unpriced = outcome
        .samples
        .iter()
        .find(|r| r.variant.as_deref() == Some("unpriced"))
        .unwrap();
    assert!(unpriced.passed() && unpriced.input_tokens.is_some());
    assert_eq!(unpriced.cost, None);

    let cost_of = |i: usize| outcome.variants[i].stats.overall.summary.cost.unwrap();
    assert_eq!((cost_of(0).priced, cost_of(0).unpriced), (2, 0));
    assert!((cost_of(0).amount.unwrap() - 2.0 * expected).abs() < 1e-12);
    assert_eq!(
        cost_of(0).describe("EUR"),
        format!("{} EUR", templiqx_eval::cost::amount(2.0 * expected))
    );
    assert_eq!((cost_of(1).amount, cost_of(1).unpriced), (None, 2));
    assert_eq!(cost_of(1).describe("EUR"), "unknown");
    let total = outcome.cost.unwrap();
    assert_eq!((total.priced, total.unpriced), (2, 2));
    assert!(
        total.describe("EUR").starts_with("≥ "),
        "{}",
        total.describe("EUR")
    );

    // The history keeps each execution's cost, null when unknown.
    let mut costs = Vec::new();
    history
        .executions(outcome.run.id.unwrap(), |r| {
            costs.push((r.variant.unwrap(), r.cost))
        })
        .unwrap();
    assert!(
        costs.iter().all(|(v, c)| (v == "priced") == c.is_some()),
        "{costs:?}"
    );
}

/// An answer that fails the output schema was still billed: the port
/// hands its usage back with the error, so it has tokens and a cost
/// (`docs/eval.md`, "Cost").
#[test]
fn a_schema_invalid_answer_costs_its_tokens() {
    let contracts = contracts();
    let variants = [variant(&contracts, "bad", "empty")];
    let prices = Prices::parse(
        "models:\n  empty: { input: 1000, output: 4000 }\n",
        "prices.yaml",
    )
    .unwrap();
    let eval = Eval::new(&contracts).fake_outputs_only(true).prices(prices);
    let outcome = run(eval, &variants).unwrap();
    let record = &outcome.samples[0];
    assert_eq!(record.code.as_deref(), Some("TQX_OUTPUT_SCHEMA"));
    assert!(!record.schema_valid);
    // `{}` is 2 bytes: 1 output token.
    assert_eq!(record.output_tokens, Some(1));
    let input = record.input_tokens.unwrap();
    let expected = (input as f64 * 1000.0 + 4000.0) / 1e6;
    assert!(
        (record.cost.unwrap() - expected).abs() < 1e-12,
        "{record:?}"
    );
    let cost = outcome.cost.unwrap();
    assert_eq!((cost.priced, cost.unpriced), (1, 0));
}

#[test]
fn a_budget_stops_the_run_and_fails_the_gate() {
    let contracts = contracts();
    let variants = [variant(&contracts, "fake", "fake")];
    // Each execution costs about 0.01 (a few tokens at 1,000 a million).
    let prices =
        Prices::parse("models:\n  fake: { input: 1000, output: 1000 }\n", "p.yaml").unwrap();
    let one = {
        let eval = Eval::new(&contracts)
            .fake_outputs_only(true)
            .prices(prices.clone());
        run(eval, &variants).unwrap().cost.unwrap().amount.unwrap()
    };
    let mut history = History::in_memory().unwrap();
    let eval = Eval::new(&contracts)
        .fake_outputs_only(true)
        .repeat(20)
        .concurrency(1)
        .prices(prices.clone())
        .max_cost(one * 2.5)
        .history(&mut history);
    let outcome = run(eval, &variants).unwrap();
    let over = outcome.over_budget.unwrap();
    // At one in flight, the third execution reaches the budget: the
    // other 17 never start.
    assert_eq!((over.done, over.total), (3, 20));
    assert_eq!(outcome.stats.overall.summary.executions, 3);
    assert!(!outcome.gate.passed);
    let diagnostic = outcome.diagnostics[0].clone();
    assert_eq!(diagnostic.code.as_str(), "TQX_EVAL_GATE");
    assert!(
        diagnostic.message.contains("over budget"),
        "{}",
        diagnostic.message
    );
    assert!(
        outcome.notes[0].contains("reached its budget"),
        "{}",
        outcome.notes[0]
    );
    let mut stored = 0;
    history
        .executions(outcome.run.id.unwrap(), |_| stored += 1)
        .unwrap();
    assert_eq!(stored, 3);

    // A budget on a model without a price cannot be kept: refused, nothing
    // run.
    let unpriced = [variant(&contracts, "empty", "empty")];
    let eval = Eval::new(&contracts)
        .fake_outputs_only(true)
        .prices(prices)
        .max_cost(1.0);
    let Err(EvalError::Refused(d)) = run(eval, &unpriced) else {
        panic!("a budget without a price ran");
    };
    assert!(d.iter().any(|d| d.code.as_str() == "TQX_INVALID_VALUE"
        && d.message.contains("no price for the model `empty`")));
}

#[test]
fn variant_names_are_checked() {
    let contracts = contracts();
    for (names, wrong) in [
        (["same", "same"], "given twice"),
        (["ok", "has space"], "not a valid variant name"),
    ] {
        let variants = [
            variant(&contracts, names[0], "fake"),
            variant(&contracts, names[1], "empty"),
        ];
        let eval = Eval::new(&contracts).fake_outputs_only(true);
        let Err(EvalError::Refused(d)) = run(eval, &variants) else {
            panic!("{names:?} ran");
        };
        assert!(d.iter().any(|d| d.message.contains(wrong)), "{d:?}");
    }
}

#[test]
fn the_documented_price_table_parses() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/examples/prices.yaml");
    let text = std::fs::read_to_string(path).unwrap();
    let prices = Prices::parse(&text, "docs/examples/prices.yaml").unwrap();
    assert_eq!(prices.currency, "USD");
    let fake = prices.price("fake").unwrap();
    assert_eq!(
        (fake.input, fake.output, fake.cached_input),
        (2.5, 10.0, Some(1.25))
    );
}
