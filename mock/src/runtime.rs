//! [`ScriptedRuntime`]: a [`RuntimeAdapter`] that replays a scenario
//! (`docs/mock.md`, "ScriptedRuntime"; its lifecycle and typed stream
//! rules are under "Format notes").

use crate::clock::VirtualClock;
use crate::error::MockError;
use crate::load::Scenario;
use crate::scenario::{Lifecycle, Problems, ScenarioStep, ScenarioStreamEvent};
use crate::stream::{StreamAggregate, aggregate};
use std::future::Future;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, OnceLock};
use templiqx::adapter::conclude_output;
use templiqx::{
    AdapterDescriptor, AdapterOutput, AsyncRuntimeAdapter, Execution, ExecutionError,
    RenderedInteraction, RuntimeAdapter, RuntimeFailure, StreamEvent, Usage,
};
use templiqx_contracts::CapabilityProfile;
use templiqx_contracts::canonical::{fingerprint, to_canonical_string};

/// The adapter name in a [`ScriptedRuntime`]'s descriptor.
pub const SCRIPTED_ADAPTER_NAME: &str = "templiqx-mock.scripted";

/// A runtime adapter that replays one scenario deterministically.
///
/// Every invocation replays the whole lifecycle:
///
/// - `delay` steps advance the injected [`VirtualClock`] by `delay_ms`;
///   nothing sleeps, so a delay of 1,000,000,000 ms costs nothing;
/// - `runtime_success` returns its inline `output`, else the scenario's
///   `expected_output` document (no usage);
/// - `runtime_failure` fails with a [`RuntimeFailure`] whose `id` is the
///   step id and whose `code`, `detail` and `retry_after_ms` are the
///   step's, so its fingerprint is exactly the one `docs/runtime.md`,
///   "Receipts", defines;
/// - a typed stream returns its [`StreamAggregate`]: the `finish` output
///   (or the parsed deltas) and the summed usage.
///
/// The provided [`RuntimeAdapter::execute`] methods do the rest: the
/// capability gate against the descriptor (the capabilities given to
/// [`ScriptedRuntime::new`]), retries of `TQX_RUNTIME_TIMEOUT` and
/// `TQX_RUNTIME_UNAVAILABLE` up to `runtime_policy.max_attempts` (each
/// attempt replays the delays again, and fails the same way), output
/// validation, and the receipt, so the attempts an execution reports are
/// counted per `execute` call. Streaming,
/// [`invoke_streaming`](RuntimeAdapter::invoke_streaming) replays each
/// fixture `delta` as a
/// `StreamEvent::Delta` (a `steps` success streams its output's canonical
/// JSON as one delta) and the port then emits `Complete` with exactly the
/// receipt `execute` returns, or `Failed` before the error is returned.
///
/// A server that reports transport receipts (the HTTP gateway) calls
/// [`ScriptedRuntime::execute_with_request_fingerprint`] instead: the same
/// execution, with the success receipt built directly over a request
/// fingerprint it supplies.
///
/// `ScriptedRuntime` implements both [`RuntimeAdapter`] and
/// [`AsyncRuntimeAdapter`] (the async future is ready at once), so name the
/// trait in calls: `RuntimeAdapter::execute(&runtime, &request)`.
#[derive(Debug)]
pub struct ScriptedRuntime {
    script: Arc<Script>,
    clock: VirtualClock,
    invocations: AtomicU32,
}

/// What a [`ScriptedRuntime`] replays; immutable, shared by
/// [`ScriptedRuntime::fresh`] copies.
#[derive(Debug)]
struct Script {
    descriptor: AdapterDescriptor,
    delays: Vec<u64>,
    terminal: Terminal,
    aggregate: Option<StreamAggregate>,
    /// The fingerprint of a success's output, computed on the first
    /// [`ScriptedRuntime::execute_with_request_fingerprint`] that needs it
    /// (the output never changes once the script is built).
    output_fingerprint: OnceLock<String>,
}

#[derive(Clone, Debug)]
enum Terminal {
    Success {
        output: templiqx_contracts::Json,
        usage: Option<Usage>,
        /// The delta texts a streaming invocation replays.
        deltas: Vec<String>,
    },
    Failure(RuntimeFailure),
}

impl ScriptedRuntime {
    /// A runtime for `scenario` whose descriptor provides `capabilities`
    /// (give the target profile the contract was compiled for; a contract
    /// needing more fails the port's gate with
    /// `TQX_CAPABILITY_UNSUPPORTED`), on a fresh clock at 0 ms.
    ///
    /// # Errors
    ///
    /// Every rule of
    /// [`ScenarioManifest::validate`](crate::ScenarioManifest::validate) (the fields of [`Scenario`] are
    /// public, so they are checked again), and `TQX_SCENARIO` when a
    /// `runtime_success` step has no inline output and the scenario has no
    /// `expected_output` document.
    pub fn new(
        scenario: &Scenario,
        capabilities: &CapabilityProfile,
    ) -> Result<ScriptedRuntime, MockError> {
        let manifest = &scenario.manifest;
        manifest.validate()?;
        let descriptor = AdapterDescriptor::new(SCRIPTED_ADAPTER_NAME, capabilities.iter());
        let mut delays = Vec::new();
        let mut aggregated = None;
        let terminal = match manifest.lifecycle() {
            Some(Lifecycle::Steps(steps)) => {
                let mut terminal = None;
                for (i, step) in steps.iter().enumerate() {
                    match step {
                        ScenarioStep::RequestReceived { .. } => {}
                        ScenarioStep::Delay { delay_ms, .. } => delays.push(*delay_ms),
                        ScenarioStep::RuntimeSuccess { id, output, .. } => {
                            let output = output.as_ref().or(scenario.expected_output.as_ref());
                            let Some(output) = output else {
                                return Err(no_output(&manifest.id, i, id));
                            };
                            terminal = Some(Terminal::Success {
                                output: output.clone(),
                                usage: None,
                                deltas: vec![to_canonical_string(output)],
                            });
                        }
                        ScenarioStep::RuntimeFailure { id, failure } => {
                            let mut f =
                                RuntimeFailure::new(failure.code, id.clone(), &failure.detail);
                            f.retry_after_ms = failure.retry_after_ms;
                            terminal = Some(Terminal::Failure(f));
                        }
                    }
                }
                terminal
            }
            Some(Lifecycle::Events(events)) => {
                let a = aggregate(events)?;
                let deltas = events
                    .iter()
                    .filter_map(|e| match e {
                        ScenarioStreamEvent::Delta { text, .. } => Some(text.clone()),
                        _ => None,
                    })
                    .collect();
                let terminal = Terminal::Success {
                    output: a.output.clone(),
                    usage: a.usage,
                    deltas,
                };
                aggregated = Some(a);
                Some(terminal)
            }
            None => None,
        };
        // `validate` guarantees a lifecycle with a terminal step.
        let terminal = terminal.ok_or_else(|| {
            let mut p = Problems::new(&manifest.id);
            p.push(
                "",
                "the lifecycle has no terminal step",
                "end it with `runtime_success` or `runtime_failure`",
            );
            MockError::from(p.diagnostics)
        })?;
        Ok(ScriptedRuntime {
            script: Arc::new(Script {
                descriptor,
                delays,
                terminal,
                aggregate: aggregated,
                output_fingerprint: OnceLock::new(),
            }),
            clock: VirtualClock::new(),
            invocations: AtomicU32::new(0),
        })
    }

    /// A runtime replaying the same script from the start: a fresh clock
    /// at 0 ms and no invocations. The script is shared, not rebuilt, so
    /// this is cheap (no validation, no copy of the output): a server
    /// builds one runtime per scenario at start-up and a fresh copy per
    /// execution.
    pub fn fresh(&self) -> ScriptedRuntime {
        ScriptedRuntime {
            script: Arc::clone(&self.script),
            clock: VirtualClock::new(),
            invocations: AtomicU32::new(0),
        }
    }

    /// Uses `clock` (typically a clone of one the host reads) instead of
    /// the runtime's own.
    pub fn with_clock(mut self, clock: VirtualClock) -> ScriptedRuntime {
        self.clock = clock;
        self
    }

    /// The runtime's clock.
    pub fn clock(&self) -> &VirtualClock {
        &self.clock
    }

    /// Invocations so far, over every `execute` call (an execution's own
    /// count is its `attempts`).
    pub fn invocations(&self) -> u32 {
        self.invocations.load(Ordering::SeqCst)
    }

    /// The output a successful invocation returns, before validation;
    /// `None` when the lifecycle ends in `runtime_failure`.
    pub fn output(&self) -> Option<&templiqx_contracts::Json> {
        match &self.script.terminal {
            Terminal::Success { output, .. } => Some(output),
            Terminal::Failure(_) => None,
        }
    }

    /// The `StreamEvent::Delta` texts a streaming invocation replays: each
    /// fixture `delta` of a typed stream, or a `steps` success's output as
    /// one canonical-JSON delta; empty for a failure.
    pub fn stream_deltas(&self) -> &[String] {
        match &self.script.terminal {
            Terminal::Success { deltas, .. } => deltas,
            Terminal::Failure(_) => &[],
        }
    }

    /// The aggregation of a typed stream (`None` for `steps`): what the
    /// synchronous path returns, plus the concatenated text and reasoning.
    pub fn aggregate(&self) -> Option<&StreamAggregate> {
        self.script.aggregate.as_ref()
    }

    /// [`RuntimeAdapter::execute`], except that a success receipt covers
    /// `request_fingerprint` instead of the fingerprint of `request`,
    /// which is never computed.
    ///
    /// This builds the receipt a transport reports directly: with the
    /// contract's [`transport_request_fingerprint`], the result is exactly
    /// `RuntimeAdapter::execute(self, request)` with its receipt passed
    /// through [`transport_receipt_with`] — the same output, usage,
    /// attempts, failure and diagnostics, and the same virtual time and
    /// invocation count — without serialising and hashing the rendered
    /// interaction, which is most of an execution's cost when the contract
    /// has a large output schema. The in-process path
    /// ([`RuntimeAdapter::execute`]) is unchanged.
    ///
    /// A lifecycle ending in a success that passes the capability gate (every
    /// required capability in the descriptor) is one invocation (an output is
    /// never retried), concluded by the port's own [`conclude_output`]: output
    /// validation and the receipt (`docs/runtime.md`, "Receipts") — a success
    /// receipt over `request_fingerprint`, or the normalised
    /// `TQX_OUTPUT_SCHEMA` failure. The output's fingerprint is computed once
    /// per script, as the output is fixed when the runtime is built. A
    /// capability the runtime lacks and a runtime failure (with its retries)
    /// are [`RuntimeAdapter::execute`] itself: no output, no request
    /// fingerprint, nothing to save. `mock/tests/it/transport_fast_path.rs` holds
    /// the two paths equal on every scenario of both corpora.
    ///
    /// ```
    /// use templiqx::{RuntimeAdapter, render};
    /// use templiqx_contracts::CapabilityProfile;
    /// use templiqx_mock::{
    ///     Scenario, ScenarioManifest, ScriptedRuntime, transport_receipt_with,
    ///     transport_request_fingerprint,
    /// };
    ///
    /// let target = CapabilityProfile::parse_list("structured_output");
    /// let contract = r#"
    /// api_version: templiqx/v1alpha1
    /// id: greeting
    /// version: 0.1.0
    /// capabilities: [structured_output]
    /// messages: [{ role: user, content: [{ kind: text, value: "Greet Ada" }] }]
    /// output_schema: { type: object, required: [greeting], properties: { greeting: { type: string } } }
    /// "#;
    /// let interaction = templiqx_build::compile_str(contract, "greeting.yaml", &target)
    ///     .interaction
    ///     .expect("compiles");
    /// let manifest = ScenarioManifest::from_yaml(r#"
    /// api_version: templiqx.mock/v1alpha1
    /// id: greet
    /// contract: greeting
    /// kind: happy_path
    /// receipt_payload_policy: fingerprints_only
    /// steps:
    ///   - { id: received, kind: request_received }
    ///   - { id: answered, kind: runtime_success, output: { greeting: "Hello Ada" }, output_schema_valid: true }
    /// "#)?;
    /// let runtime = ScriptedRuntime::new(&Scenario::from_parts(manifest, None, None)?, &target)?;
    /// let request = render(&interaction, &serde_json::Map::new(), &serde_json::Map::new())?;
    ///
    /// let transport = transport_request_fingerprint("greeting");
    /// let fast = runtime.fresh().execute_with_request_fingerprint(&request, &transport)?;
    /// let full = RuntimeAdapter::execute(&runtime.fresh(), &request)?;
    /// assert_eq!(fast.receipt, transport_receipt_with(&full.receipt, &transport));
    /// assert_eq!((fast.output, fast.attempts), (full.output, full.attempts));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// [`transport_request_fingerprint`]: crate::transport_request_fingerprint
    /// [`transport_receipt_with`]: crate::transport_receipt_with
    ///
    /// # Errors
    ///
    /// As [`RuntimeAdapter::execute`].
    pub fn execute_with_request_fingerprint(
        &self,
        request: &RenderedInteraction<'_>,
        request_fingerprint: &str,
    ) -> Result<Execution, ExecutionError> {
        let Terminal::Success { output, usage, .. } = &self.script.terminal else {
            return RuntimeAdapter::execute(self, request);
        };
        let interaction = request.interaction;
        let gate_passes = interaction
            .required_capabilities
            .iter()
            .all(|c| self.script.descriptor.supports(c));
        if !gate_passes {
            return RuntimeAdapter::execute(self, request);
        }
        self.advance();
        let output_fingerprint = self
            .script
            .output_fingerprint
            .get_or_init(|| fingerprint(output));
        conclude_output(
            interaction,
            AdapterOutput {
                output: output.clone(),
                usage: *usage,
            },
            1,
            output_fingerprint,
            || request_fingerprint.to_owned(),
        )
    }

    /// One invocation's bookkeeping: counts it and advances the clock by
    /// the scenario's delays.
    fn advance(&self) {
        self.invocations.fetch_add(1, Ordering::SeqCst);
        for delay in &self.script.delays {
            self.clock.advance(*delay);
        }
    }

    /// Replays one invocation; `sink` receives the deltas of a success.
    fn play(
        &self,
        sink: Option<&mut dyn FnMut(StreamEvent)>,
    ) -> Result<AdapterOutput, RuntimeFailure> {
        self.advance();
        match &self.script.terminal {
            Terminal::Success {
                output,
                usage,
                deltas,
            } => {
                if let Some(sink) = sink {
                    for text in deltas {
                        sink(StreamEvent::Delta { text: text.clone() });
                    }
                }
                Ok(AdapterOutput {
                    output: output.clone(),
                    usage: *usage,
                })
            }
            Terminal::Failure(failure) => Err(failure.clone()),
        }
    }
}

fn no_output(scenario: &str, index: usize, id: &str) -> MockError {
    let mut p = Problems::new(scenario);
    p.push(
        &format!("/steps/{index}"),
        format!(
            "`runtime_success` step `{id}` has no inline output and the scenario carries no `expected_output` document"
        ),
        "load the scenario with `Scenario::load`, or pass the expected output to `Scenario::from_parts`",
    );
    MockError::from(p.diagnostics)
}

impl RuntimeAdapter for ScriptedRuntime {
    fn descriptor(&self) -> &AdapterDescriptor {
        &self.script.descriptor
    }

    fn invoke(&self, _request: &RenderedInteraction<'_>) -> Result<AdapterOutput, RuntimeFailure> {
        self.play(None)
    }

    fn invoke_streaming(
        &self,
        _request: &RenderedInteraction<'_>,
        sink: &mut dyn FnMut(StreamEvent),
    ) -> Result<AdapterOutput, RuntimeFailure> {
        self.play(Some(sink))
    }
}

impl AsyncRuntimeAdapter for ScriptedRuntime {
    fn descriptor(&self) -> &AdapterDescriptor {
        &self.script.descriptor
    }

    fn invoke(
        &self,
        _request: &RenderedInteraction<'_>,
    ) -> impl Future<Output = Result<AdapterOutput, RuntimeFailure>> + Send {
        std::future::ready(self.play(None))
    }

    fn invoke_streaming(
        &self,
        _request: &RenderedInteraction<'_>,
        sink: &mut (dyn FnMut(StreamEvent) + Send),
    ) -> impl Future<Output = Result<AdapterOutput, RuntimeFailure>> + Send {
        let mut forward = |event: StreamEvent| sink(event);
        std::future::ready(self.play(Some(&mut forward)))
    }
}
