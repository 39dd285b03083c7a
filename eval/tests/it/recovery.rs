//! The recovery rate per fixture (`docs/eval.md`, "Output recovery"): a
//! model that wraps one fixture's answer in a Markdown fence fails that
//! fixture without recovery; with it, the fixture passes and its recovery
//! rate says it passes only through recovery, while the other fixture's is
//! 0; the history keeps each execution's flag. Also the fake provider's
//! `fenced` and `fenced-N` models.

use crate::common::{block_on, compiled, target};
use templiqx::{AdapterDescriptor, AdapterOutput, AsyncRuntimeAdapter, OutputRecovery};
use templiqx_contracts::{Json, RenderedInteraction, RuntimeFailure};
use templiqx_eval::history::History;
use templiqx_eval::{Eval, FakeAdapter, Outcome};

/// Two fixtures with their own requests (Ada, Bob), each with a
/// `fake_output` that passes its check.
const PAIR: &str = r#"
api_version: templiqx/v1alpha1
id: pair
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
      - id: names
        check: { kind: contains, container: { kind: ref, path: output.greeting }, item: { kind: ref, path: inputs.name } }
  - id: bob
    inputs: { name: Bob }
    fake_output: { greeting: "Hello Bob" }
    expect:
      - id: names
        check: { kind: contains, container: { kind: ref, path: output.greeting }, item: { kind: ref, path: inputs.name } }
"#;

/// A model that answers Ada's request in a Markdown fence and Bob's as
/// JSON alone; the adapter hands a text that is not JSON on as a string.
struct FencesAda(AdapterDescriptor, OutputRecovery);

impl AsyncRuntimeAdapter for FencesAda {
    fn descriptor(&self) -> &AdapterDescriptor {
        &self.0
    }

    fn output_recovery(&self) -> OutputRecovery {
        self.1
    }

    async fn invoke(
        &self,
        request: &RenderedInteraction<'_>,
    ) -> Result<AdapterOutput, RuntimeFailure> {
        let text = &request.messages[0].content;
        let output = if text.contains("Ada") {
            Json::String("Sure:\n```json\n{\"greeting\": \"Hello Ada\"}\n```".to_owned())
        } else {
            Json::from(serde_json::json!({"greeting": "Hello Bob"}))
        };
        Ok(AdapterOutput {
            output,
            usage: None,
        })
    }
}

fn run(adapter: &impl AsyncRuntimeAdapter, history: &mut History) -> Outcome {
    let contracts = compiled(PAIR, "pair");
    let eval = Eval::new(&contracts).repeat(3).history(history);
    block_on(eval.run(adapter)).unwrap()
}

/// `(passed, recovered)` of a fixture, each out of its executions.
fn figures(outcome: &Outcome, fixture: &str) -> (u64, u64, u64) {
    let s = &outcome.stats.fixture("pair", fixture).unwrap().summary;
    (s.executions, s.pass_rate.passed, s.recovered_rate.passed)
}

#[test]
fn the_recovery_rate_shows_a_fixture_that_passes_only_through_recovery() {
    let descriptor = AdapterDescriptor::new("fences", ["structured_output"]);
    let mut history = History::in_memory().unwrap();
    let off = run(
        &FencesAda(descriptor.clone(), OutputRecovery::Off),
        &mut history,
    );
    assert_eq!(figures(&off, "ada"), (3, 0, 0));
    assert_eq!(figures(&off, "bob"), (3, 3, 0));
    let ada = &off.stats.fixture("pair", "ada").unwrap().summary;
    assert_eq!(ada.failure_codes.get("TQX_OUTPUT_SCHEMA"), Some(&3));

    let on = run(&FencesAda(descriptor, OutputRecovery::On), &mut history);
    assert_eq!(figures(&on, "ada"), (3, 3, 3));
    assert_eq!(figures(&on, "bob"), (3, 3, 0));
    let overall = &on.stats.overall.summary.recovered_rate;
    assert_eq!((overall.passed, overall.total), (3, 6));
    // In the JSON result, per fixture.
    let json = serde_json::to_value(&on.stats).unwrap();
    assert_eq!(json["fixtures"][0]["fixture"], "ada");
    assert_eq!(json["fixtures"][0]["recovered_rate"]["passed"], 3);
    assert_eq!(json["fixtures"][1]["recovered_rate"]["passed"], 0);

    // The history keeps the flag of each execution.
    let mut stored = Vec::new();
    history
        .executions(on.run.id.unwrap(), |r| {
            stored.push((r.fixture, r.recovered))
        })
        .unwrap();
    stored.sort();
    assert_eq!(
        stored,
        [
            ("ada".to_owned(), true),
            ("ada".to_owned(), true),
            ("ada".to_owned(), true),
            ("bob".to_owned(), false),
            ("bob".to_owned(), false),
            ("bob".to_owned(), false),
        ]
    );
}

#[test]
fn the_fake_providers_fenced_models_need_recovery() {
    let contracts = compiled(PAIR, "pair");
    let fake = |model: &str, recovery| {
        FakeAdapter::new(&contracts, target().iter())
            .model(model)
            .unwrap()
            .with_output_recovery(recovery)
    };
    let mut history = History::in_memory().unwrap();
    let outcome = run(&fake("fenced", OutputRecovery::Off), &mut history);
    assert_eq!(figures(&outcome, "ada"), (3, 0, 0));
    let outcome = run(&fake("fenced", OutputRecovery::On), &mut history);
    assert_eq!(figures(&outcome, "ada"), (3, 3, 3));
    // `fenced-3`: the third repeat only.
    let outcome = run(&fake("fenced-3", OutputRecovery::On), &mut history);
    assert_eq!(figures(&outcome, "bob"), (3, 3, 1));
    assert!(
        FakeAdapter::new(&contracts, target().iter())
            .model("fenced-1")
            .is_err()
    );
}
