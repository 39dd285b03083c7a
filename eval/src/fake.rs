//! The `fake` provider (`docs/eval.md`, "Which fixtures, how often"): an
//! adapter that answers each eval fixture with its own `fake_output`,
//! offline, through the same port as a real model.

use std::collections::HashMap;
use templiqx::{AdapterDescriptor, AdapterOutput, AsyncRuntimeAdapter, OutputRecovery, Usage};
use templiqx_build::CompiledContract;
use templiqx_contracts::{Code, Json, RenderedInteraction, RuntimeFailure};

/// An [`AsyncRuntimeAdapter`] that answers the request of each eval
/// fixture with the fixture's `fake_output`: a model that always gives
/// that answer. The port's own `execute` still applies the capability
/// gate, validates the output against `output_schema` and builds the
/// receipt (`docs/runtime.md`, "Adapter port"), so a `fake_output` that
/// does not validate is a `TQX_OUTPUT_SCHEMA` failure, as a model's would
/// be.
///
/// Under [`Eval::run`](crate::Eval::run) it answers the fixture being
/// executed, so two fixtures of one contract with the same inputs and
/// context (the same request) each get their own `fake_output`. Called
/// outside a run it knows a request by its fingerprint, and such a
/// request is answered with the `fake_output` of the first of them in the
/// order given. Run it with
/// [`Eval::fake_outputs_only`](crate::Eval::fake_outputs_only), which
/// leaves out the fixtures it has no answer for.
///
/// Its model ([`FakeAdapter::model`]; `--provider fake --model NAME`)
/// decides how it answers, so that a run of several variants has
/// something to compare offline (`docs/eval.md`, "Comparing models"):
/// `fake` (the default) always answers the `fake_output`; `empty` always
/// answers `{}`; `flaky-N` (N from 2 to 1000) answers `{}` on every Nth
/// repeat of each fixture (repeats N−1, 2N−1, …) and the `fake_output`
/// otherwise; `fenced` answers the `fake_output` as a model without
/// structured output may, as text in a Markdown code fence (a JSON
/// string, as the HTTP adapters hand on a reply that is not JSON), and
/// `fenced-N` does so on every Nth repeat: such an answer fails with
/// `TQX_OUTPUT_SCHEMA` unless output recovery is on
/// ([`FakeAdapter::with_output_recovery`]; `docs/eval.md`, "Output
/// recovery"). It reports token usage as a model would, so that a price
/// table can price it: 1 input token per 4 bytes of the request's
/// messages as JSON, 1 output token per 4 bytes of the answer's canonical
/// JSON, rounded up.
///
/// It answers the judge of a model-graded check (`docs/eval.md`,
/// "Judges") from the judge contract's own eval fixtures: with the
/// `fake_output` of the judge's fixture that renders the same request (its
/// `inputs` equal to the check's `with` values), else with the
/// `fake_output` of the judge's first fixture that has one; a judge
/// without one is a `TQX_RUNTIME_PERMANENT` failure.
#[derive(Clone, Debug)]
pub struct FakeAdapter {
    descriptor: AdapterDescriptor,
    /// How it answers.
    model: FakeModel,
    /// Request fingerprint → the `fake_output` that answers it.
    outputs: HashMap<String, Json>,
    /// `contract::fixture` → its `fake_output`, for the inline fixtures
    /// (a dataset row's comes with the row, [`FIXTURE`]).
    by_fixture: HashMap<String, Json>,
    /// Contract id → the `fake_output` of its first fixture that has one:
    /// a judge's answer when none of its fixtures renders the request.
    first_of: HashMap<String, Json>,
    /// Whether the port recovers its answers (`--recover-output`).
    recovery: OutputRecovery,
}

tokio::task_local! {
    /// The fixture (`contract::fixture`) whose execution is being polled,
    /// its repeat index and its `fake_output`, set by the runner around
    /// each call of the adapter: a dataset row's answer comes with the row,
    /// so the adapter keeps no table of every row's.
    pub(crate) static FIXTURE: (String, u32, Option<Json>);
    /// The judge contract whose request is being executed (a model-graded
    /// check, `crate::judge`), and the repeat index of the execution it
    /// judges.
    pub(crate) static JUDGE: (String, u32);
}

/// How the fake model answers ([`FakeAdapter::model`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FakeModel {
    /// Always the `fake_output`.
    Fake,
    /// Always `{}`.
    Empty,
    /// `{}` on every Nth repeat.
    Flaky(u32),
    /// The `fake_output` in a Markdown fence, as text, on every Nth repeat
    /// (1: always).
    Fenced(u32),
}

/// The fake models, in words, for a diagnostic.
pub const FAKE_MODELS: &str = "`fake` (each fixture's fake_output), `empty` (always `{}`), `flaky-N` (`{}` on every Nth repeat, N from 2 to 1000), `fenced` (the fake_output as text in a Markdown code fence) or `fenced-N` (so on every Nth repeat)";

impl FakeAdapter {
    /// An adapter named `fake` providing `capabilities` (the target
    /// profile the contracts were compiled for, so the capability gate
    /// passes) that knows the `fake_output` of every inline eval fixture
    /// of `contracts` (a dataset row's is handed to it with the row under
    /// [`Eval::run`](crate::Eval::run): its rows are not read here). A contract that did not compile, or a fixture without
    /// a `fake_output` or whose values do not render, adds nothing.
    pub fn new<'c, C, I, S>(contracts: C, capabilities: I) -> FakeAdapter
    where
        C: IntoIterator<Item = &'c CompiledContract>,
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut outputs = HashMap::new();
        let mut by_fixture = HashMap::new();
        let mut first_of = HashMap::new();
        for c in contracts {
            let (Some(contract), Some(interaction)) = (&c.contract, &c.interaction) else {
                continue;
            };
            for eval in &contract.evals {
                // A dataset row's `fake_output` comes with the row as the
                // runner executes it (`docs/eval.md`, "Datasets"): the rows
                // are never all read here.
                let Some(output) = &eval.fake_output else {
                    continue;
                };
                by_fixture.insert(format!("{}::{}", c.id, eval.id), Json::from(output.clone()));
                first_of
                    .entry(c.id.clone())
                    .or_insert_with(|| Json::from(output.clone()));
                if let Ok(rendered) = templiqx::render(interaction, &eval.inputs, &eval.context) {
                    outputs
                        .entry(rendered.request_fingerprint())
                        .or_insert_with(|| Json::from(output.clone()));
                }
            }
        }
        FakeAdapter {
            descriptor: AdapterDescriptor::new("fake", capabilities),
            model: FakeModel::Fake,
            outputs,
            by_fixture,
            first_of,
            recovery: OutputRecovery::Off,
        }
    }

    /// The same adapter with output recovery `recovery` (`--recover-output`;
    /// `docs/runtime.md`, "Output recovery"): the port reads a `fenced`
    /// answer's JSON out of its fence, with a `TQX_OUTPUT_RECOVERED`
    /// warning.
    #[must_use]
    pub fn with_output_recovery(mut self, recovery: OutputRecovery) -> FakeAdapter {
        self.recovery = recovery;
        self
    }

    /// The same adapter answering as the fake model `name`: `fake` (each
    /// fixture's `fake_output`), `empty` (always `{}`) or `flaky-N` (`{}`
    /// on every Nth repeat of each fixture, N from 2 to 1000; see
    /// [`FakeAdapter`]).
    ///
    /// # Errors
    ///
    /// Any other name, with [`FAKE_MODELS`] to say which there are.
    pub fn model(mut self, name: &str) -> Result<FakeAdapter, String> {
        self.model = match name {
            "fake" => FakeModel::Fake,
            "empty" => FakeModel::Empty,
            "fenced" => FakeModel::Fenced(1),
            _ => match name.strip_prefix("flaky-").map(str::parse::<u32>) {
                Some(Ok(n)) if (2..=1000).contains(&n) => FakeModel::Flaky(n),
                _ => match name.strip_prefix("fenced-").map(str::parse::<u32>) {
                    Some(Ok(n)) if (2..=1000).contains(&n) => FakeModel::Fenced(n),
                    _ => {
                        return Err(format!(
                            "the fake provider has no model `{name}`: it has {FAKE_MODELS}"
                        ));
                    }
                },
            },
        };
        Ok(self)
    }
}

impl AsyncRuntimeAdapter for FakeAdapter {
    fn descriptor(&self) -> &AdapterDescriptor {
        &self.descriptor
    }

    fn output_recovery(&self) -> OutputRecovery {
        self.recovery
    }

    /// The `fake_output` of the fixture that renders `request`, or a
    /// `TQX_RUNTIME_PERMANENT` failure (id `fake`) for a request no fixture
    /// with a `fake_output` renders.
    async fn invoke(
        &self,
        request: &RenderedInteraction<'_>,
    ) -> Result<AdapterOutput, RuntimeFailure> {
        let judge = JUDGE.try_with(|(contract, repeat)| {
            let answer = self
                .outputs
                .get(&request.request_fingerprint())
                .or_else(|| self.first_of.get(contract))
                .cloned();
            (answer, *repeat)
        });
        let judging = judge.is_ok();
        let (answer, repeat) = match judge {
            Ok(found) => found,
            Err(_) => match FIXTURE.try_with(|(name, repeat, own)| {
                let answer = own.clone().or_else(|| self.by_fixture.get(name).cloned());
                (answer, *repeat)
            }) {
                Ok(found) => found,
                Err(_) => (self.outputs.get(&request.request_fingerprint()).cloned(), 0),
            },
        };
        let (empty, fenced) = match self.model {
            FakeModel::Fake => (false, false),
            FakeModel::Empty => (true, false),
            FakeModel::Flaky(n) => (repeat % n == n - 1, false),
            FakeModel::Fenced(n) => (false, repeat % n == n - 1),
        };
        let answer = answer.map(|output| {
            if empty {
                Json::Object(Default::default())
            } else if fenced {
                let text = templiqx_contracts::canonical::to_canonical_string(&output);
                Json::String(format!("Here is the JSON:\n\n```json\n{text}\n```\n"))
            } else {
                output
            }
        });
        match answer {
            Some(output) => {
                // About 4 bytes a token, rounded up: a stand-in a price
                // table can price.
                let tokens = |bytes: usize| (bytes as u64).div_ceil(4);
                let prompt = serde_json::to_string(&request.messages).map_or(0, |t| t.len());
                let answer = templiqx_contracts::canonical::to_canonical_string(&output).len();
                Ok(AdapterOutput {
                    output,
                    usage: Some(Usage {
                        input_tokens: tokens(prompt),
                        output_tokens: tokens(answer),
                        // The fake has no prompt cache (`docs/eval.md`, "Cost").
                        cached_input_tokens: 0,
                    }),
                })
            }
            // A judge is answered from its own contract's fixtures
            // (`docs/eval.md`, "Judges").
            None if judging => Err(RuntimeFailure::new(
                Code::RuntimePermanent,
                "fake",
                "the judge contract has no eval fixture with a fake_output, which the fake provider answers a judge with",
            )
            .with_help("give the judge contract an eval fixture with a `fake_output`, or judge on a model (`--judge-provider`, `--judge-model`)")),
            None => Err(RuntimeFailure::new(
                Code::RuntimePermanent,
                "fake",
                "the fixture has no fake_output",
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::history::History;
    use crate::{Eval, FakeAdapter};
    use templiqx_build::{CompiledContract, compile_str};
    use templiqx_contracts::CapabilityProfile;

    /// Two fixtures that send the same request, each with a check only its
    /// own `fake_output` passes.
    const TWINS: &str = r#"
api_version: templiqx/v1alpha1
id: twins
version: 0.1.0
inputs:
  name: { schema: { type: string }, required: true }
capabilities: [structured_output]
messages:
  - role: user
    content:
      - { kind: interpolate, expression: { kind: ref, path: inputs.name } }
output_schema:
  type: object
  additionalProperties: false
  required: [greeting]
  properties:
    greeting: { type: string }
evals:
  - id: formal
    inputs: { name: Ada }
    fake_output: { greeting: "Dear Ada" }
    expect:
      - id: formal
        check: { kind: contains, container: { kind: ref, path: output.greeting }, item: { kind: literal, value: "Dear" } }
  - id: casual
    inputs: { name: Ada }
    fake_output: { greeting: "Hi Ada" }
    expect:
      - id: casual
        check: { kind: contains, container: { kind: ref, path: output.greeting }, item: { kind: literal, value: "Hi" } }
"#;

    #[test]
    fn fixtures_sending_one_request_each_get_their_own_fake_output() {
        let target = CapabilityProfile::new(["structured_output"]);
        let compiled = compile_str(TWINS, "twins.yaml", &target);
        assert!(
            compiled.diagnostics.is_empty(),
            "{:?}",
            compiled.diagnostics
        );
        let contracts = [CompiledContract {
            id: "twins".into(),
            file: "twins.yaml".into(),
            contract: compiled.contract,
            interaction: compiled.interaction,
            diagnostics: Vec::new(),
        }];
        let adapter = FakeAdapter::new(&contracts, target.iter());
        let mut history = History::in_memory().unwrap();
        let eval = Eval::new(&contracts)
            .fake_outputs_only(true)
            .repeat(2)
            .concurrency(2)
            .history(&mut history);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let outcome = runtime.block_on(eval.run(&adapter)).unwrap();
        let passed = |id: &str| {
            let s = &outcome.stats.fixture("twins", id).unwrap().summary;
            (s.executions, s.pass_rate.passed)
        };
        assert_eq!(passed("formal"), (2, 2));
        // Answered by request alone, `casual` would get `formal`'s answer.
        assert_eq!(passed("casual"), (2, 2));
    }
}
