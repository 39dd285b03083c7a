//! The scenario catalog: the inventory, loaded, validated and prepared once
//! at start-up, and the execution of one scenario per request.
//!
//! [`Catalog::load`] does all the file I/O and compilation the gateway
//! ever does: it loads the inventory fail-closed ([`Inventory::load`]:
//! drift, duplicate ids, missing or escaping manifests), compiles the
//! package for the target profile, renders each scenario's request and
//! builds its [`ScriptedRuntime`] once (to prove it can be built). A
//! request then only looks its scenario up, replays it on a fresh
//! runtime and virtual clock with the semantics of the runtime's
//! [`RuntimeAdapter`](templiqx::RuntimeAdapter) port, and fingerprints
//! the result. The receipt is built directly with the transport request
//! fingerprint computed at start-up
//! ([`ScriptedRuntime::execute_with_request_fingerprint`]): the in-process
//! fingerprint of the rendered interaction, which the transport receipt
//! would replace, is never computed.

use crate::api::{
    ErrorCode, ExecuteResponse, FailureData, Fingerprints, OutputSource, SuccessData,
};
use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use templiqx_contracts::{
    CapabilityProfile, Code, Diagnostic, Diagnostics, Interaction, Receipt, RenderedInteraction,
    RenderedMessage,
};
use templiqx_mock::{
    API_VERSION, CompiledPackage, ContractUnavailable, Inventory, Lifecycle, MockError, Scenario,
    ScenarioManifest, ScenarioStatus, ScenarioStep, ScenarioStreamEvent, ScriptedRuntime,
    render_request, transport_request_fingerprint,
};

/// The inventory's file name inside the scenario root.
pub const INVENTORY_FILE: &str = "inventory.json";

/// Why the catalog could not be loaded: every problem found, each a
/// [`Diagnostic`] with a stable `TQX_*` code whose message names the
/// scenario it is about (`` scenario `intake-document-01`: … ``).
#[derive(Clone, Debug, PartialEq)]
pub struct StartupError {
    /// The problems, in the order found; never empty.
    pub diagnostics: Diagnostics,
}

impl From<MockError> for StartupError {
    fn from(e: MockError) -> StartupError {
        StartupError {
            diagnostics: e.diagnostics,
        }
    }
}

impl From<Diagnostic> for StartupError {
    fn from(d: Diagnostic) -> StartupError {
        StartupError {
            diagnostics: Diagnostics::one(d),
        }
    }
}

impl From<Diagnostics> for StartupError {
    fn from(diagnostics: Diagnostics) -> StartupError {
        StartupError { diagnostics }
    }
}

impl From<Vec<Diagnostic>> for StartupError {
    fn from(diagnostics: Vec<Diagnostic>) -> StartupError {
        StartupError {
            diagnostics: diagnostics.into(),
        }
    }
}

impl fmt::Display for StartupError {
    /// As [`Diagnostics`] displays: one line per diagnostic, with its help.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.diagnostics, f)
    }
}

impl std::error::Error for StartupError {}

/// A request the catalog refuses: the stable code and a message for the
/// JSON error body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The stable error code.
    pub code: ErrorCode,
    /// A human-readable message.
    pub message: String,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for Refusal {}

/// Every inventory scenario, prepared for execution.
#[derive(Debug)]
pub struct Catalog {
    inventory: PathBuf,
    package: String,
    target: CapabilityProfile,
    ids: Vec<String>,
    scenarios: HashMap<String, Prepared>,
}

/// One scenario, ready to replay.
#[derive(Debug)]
struct Prepared {
    scenario: Scenario,
    /// Built once; each execution replays a [`ScriptedRuntime::fresh`] copy.
    runtime: ScriptedRuntime,
    interaction: Arc<Interaction>,
    /// The rendered request's messages, or why it does not render (a
    /// scenario may expect that; it is reported per request, as data).
    messages: Result<Vec<RenderedMessage>, Diagnostics>,
    scenario_fingerprint: String,
    request_fingerprint: String,
    /// `None` when a `fixture_output` may replace the output; else why not.
    fixture_refusal: Option<&'static str>,
}

impl Catalog {
    /// Loads `scenario_root/inventory.json` and prepares every scenario it
    /// lists for `target` (the capability profile the package is compiled
    /// for and the scripted runtime provides).
    ///
    /// # Errors
    ///
    /// Every problem at once: the inventory's own checks
    /// ([`Inventory::load`]: shape, drift, duplicate ids, manifests that
    /// are missing or leave the corpus root), a package that does not
    /// compile, and a scenario whose contract does not compile or whose
    /// runtime cannot be built, each naming the scenario.
    pub fn load(scenario_root: &Path, target: &CapabilityProfile) -> Result<Catalog, StartupError> {
        let inventory_path = scenario_root.join(INVENTORY_FILE);
        if !scenario_root.is_dir() {
            return Err(Diagnostic::error(
                Code::Io,
                format!(
                    "the scenario root {} is not a directory",
                    scenario_root.display()
                ),
            )
            .help(format!(
                "pass the directory holding `{INVENTORY_FILE}` (e.g. `corpus/crm3/scenarios`)"
            ))
            .into());
        }
        let inventory = Inventory::load(&inventory_path)?;
        let compiled = CompiledPackage::compile(&inventory, target).map_err(StartupError::from)?;

        let mut problems = Vec::new();
        let mut scenarios = HashMap::with_capacity(inventory.scenarios.len());
        for listed in &inventory.scenarios {
            let id = &listed.entry.id;
            let scenario = &listed.scenario;
            let contract = &scenario.manifest.contract;
            let interaction = match compiled.interaction(contract) {
                Ok(i) => Arc::clone(i),
                Err(ContractUnavailable::DoesNotCompile(diagnostics)) => {
                    problems.push(
                        Diagnostic::error(
                            Code::Scenario,
                            format!(
                                "scenario `{id}`: its contract `{contract}` does not compile for the target [{}]: {}",
                                target.iter().collect::<Vec<_>>().join(", "),
                                diagnostics
                                    .iter()
                                    .map(ToString::to_string)
                                    .collect::<Vec<_>>()
                                    .join("; ")
                            ),
                        )
                        .help("run `templiqx check` on the package and fix the contract"),
                    );
                    continue;
                }
                Err(ContractUnavailable::NotListed) => {
                    problems.push(
                        Diagnostic::error(
                            Code::Scenario,
                            format!("scenario `{id}`: the package has no contract `{contract}`"),
                        )
                        .help("name a contract the package manifest lists"),
                    );
                    continue;
                }
            };
            let runtime = match ScriptedRuntime::new(scenario, target) {
                Ok(runtime) => runtime,
                Err(e) => {
                    problems.extend(e.diagnostics);
                    continue;
                }
            };
            let messages = render_request(scenario, &interaction)
                .map(|r| r.messages)
                .map_err(|e| e.diagnostics);
            scenarios.insert(
                id.clone(),
                Prepared {
                    scenario_fingerprint: scenario.fingerprint(),
                    request_fingerprint: transport_request_fingerprint(contract),
                    fixture_refusal: fixture_refusal(scenario),
                    scenario: scenario.clone(),
                    runtime,
                    interaction,
                    messages,
                },
            );
        }
        if !problems.is_empty() {
            return Err(StartupError::from(problems));
        }
        let mut ids: Vec<String> = scenarios.keys().cloned().collect();
        ids.sort_unstable();
        Ok(Catalog {
            inventory: inventory.path,
            package: inventory.package,
            target: target.clone(),
            ids,
            scenarios,
        })
    }

    /// The inventory file (canonical path).
    pub fn inventory_path(&self) -> &Path {
        &self.inventory
    }

    /// The package the scenarios execute.
    pub fn package(&self) -> &str {
        &self.package
    }

    /// The target capability profile.
    pub fn target(&self) -> &CapabilityProfile {
        &self.target
    }

    /// The scenario ids, sorted.
    pub fn ids(&self) -> &[String] {
        &self.ids
    }

    /// Whether the inventory lists `id` (exactly: nothing is decoded,
    /// normalised or resolved against the file system).
    pub fn contains(&self, id: &str) -> bool {
        self.scenarios.contains_key(id)
    }

    /// Executes scenario `id` once: a fresh [`ScriptedRuntime`] on a fresh
    /// virtual clock replays the lifecycle with the semantics of the port's
    /// [`RuntimeAdapter::execute`](templiqx::RuntimeAdapter::execute)
    /// (capability gate, retries, output validation against the real
    /// contract, receipt), and the result is
    /// reported with the transport receipt (`docs/mock.md`, "Receipts and
    /// receipt modes"), built
    /// directly with the contract's transport request fingerprint
    /// ([`ScriptedRuntime::execute_with_request_fingerprint`]). No payload
    /// is returned.
    ///
    /// `fixture_output`, when given, is the output the scenario's
    /// `runtime_success` step (or its stream's `finish` event) returns in
    /// place of its inline output; it is accepted only when the manifest
    /// has no `expected_output` document and its lifecycle ends in a
    /// success. `Some(null)` counts as absent, as in the request body.
    ///
    /// # Errors
    ///
    /// [`ErrorCode::ScenarioNotFound`] for an id the inventory does not
    /// list, [`ErrorCode::FixtureOutputNotApplicable`] for a
    /// `fixture_output` the scenario cannot use.
    pub fn execute(
        &self,
        id: &str,
        fixture_output: Option<templiqx_contracts::Json>,
    ) -> Result<ExecuteResponse, Refusal> {
        let prepared = self.scenarios.get(id).ok_or_else(|| Refusal {
            code: ErrorCode::ScenarioNotFound,
            message: format!("the inventory lists no scenario {id:?}"),
        })?;
        let manifest = &prepared.scenario.manifest;
        let (runtime, output_source) = match fixture_output.filter(|v| !v.is_null()) {
            None => (Ok(prepared.runtime.fresh()), OutputSource::Manifest),
            Some(output) => {
                if let Some(reason) = prepared.fixture_refusal {
                    return Err(Refusal {
                        code: ErrorCode::FixtureOutputNotApplicable,
                        message: format!(
                            "scenario `{id}` does not accept a `fixture_output`: {reason}"
                        ),
                    });
                }
                let scenario = with_output(&prepared.scenario, output);
                (
                    ScriptedRuntime::new(&scenario, &self.target),
                    OutputSource::FixtureOutput,
                )
            }
        };
        // Replacing an output breaks no rule of the manifest; should a
        // rebuild ever fail, report it as data rather than panic.
        let runtime = match runtime {
            Ok(runtime) => runtime,
            Err(e) => {
                return Ok(self.not_executed(prepared, output_source, &e.diagnostics));
            }
        };
        let messages = match &prepared.messages {
            Ok(messages) => messages.clone(),
            Err(diagnostics) => return Ok(self.not_executed(prepared, output_source, diagnostics)),
        };
        let request = RenderedInteraction::new(&prepared.interaction, messages);
        let start = runtime.clock().now_ms();
        // The receipt is the transport receipt already (`docs/mock.md`,
        // "Receipts and receipt modes").
        let result =
            runtime.execute_with_request_fingerprint(&request, &prepared.request_fingerprint);
        let elapsed_ms = runtime.clock().now_ms().saturating_sub(start);

        let mut response = ExecuteResponse {
            api_version: API_VERSION.to_owned(),
            scenario_id: id.to_owned(),
            contract: manifest.contract.clone(),
            status: ScenarioStatus::Success,
            diagnostic_code: None,
            output_schema_valid: None,
            elapsed_ms,
            attempts: 0,
            output_source,
            success: None,
            failure: None,
            fingerprints: Fingerprints {
                scenario: prepared.scenario_fingerprint.clone(),
                request: prepared.request_fingerprint.clone(),
                output: None,
                failure: None,
                receipt: None,
            },
            receipt: None,
        };
        let receipt = match result {
            Ok(execution) => {
                response.attempts = execution.attempts;
                response.output_schema_valid = Some(true);
                response.success = Some(SuccessData {
                    usage: execution.usage,
                });
                execution.receipt
            }
            Err(error) => {
                response.attempts = error.attempts;
                response.status = ScenarioStatus::Failure;
                response.diagnostic_code = Some(error.failure.code);
                // A schema-invalid output is the port's own failure.
                response.output_schema_valid =
                    (error.failure.id == templiqx::adapter::OUTPUT_SCHEMA_ID).then_some(false);
                response.failure = Some(FailureData {
                    code: error.failure.code,
                    step_id: Some(error.failure.id),
                    detail: error.failure.detail,
                    retry_after_ms: error.failure.retry_after_ms,
                    diagnostic_codes: codes(&error.diagnostics),
                });
                error.receipt
            }
        };
        match &receipt {
            Receipt::Success {
                output_fingerprint, ..
            } => response.fingerprints.output = Some(output_fingerprint.clone()),
            Receipt::Failure {
                failure_fingerprint,
                ..
            } => response.fingerprints.failure = Some(failure_fingerprint.clone()),
        }
        response.fingerprints.receipt = Some(receipt.fingerprint());
        response.receipt = Some(receipt);
        Ok(response)
    }

    /// The response for a scenario whose request does not render: a
    /// failure with the first diagnostic's code, nothing invoked, no
    /// receipt.
    fn not_executed(
        &self,
        prepared: &Prepared,
        output_source: OutputSource,
        diagnostics: &[Diagnostic],
    ) -> ExecuteResponse {
        let manifest = &prepared.scenario.manifest;
        let code = diagnostics.first().map_or(Code::Scenario, |d| d.code);
        ExecuteResponse {
            api_version: API_VERSION.to_owned(),
            scenario_id: manifest.id.clone(),
            contract: manifest.contract.clone(),
            status: ScenarioStatus::Failure,
            diagnostic_code: Some(code),
            output_schema_valid: None,
            elapsed_ms: 0,
            attempts: 0,
            output_source,
            success: None,
            failure: Some(FailureData {
                code,
                step_id: None,
                detail: "the request did not render; nothing was invoked".to_owned(),
                retry_after_ms: None,
                diagnostic_codes: codes(diagnostics),
            }),
            fingerprints: Fingerprints {
                scenario: prepared.scenario_fingerprint.clone(),
                request: prepared.request_fingerprint.clone(),
                output: None,
                failure: None,
                receipt: None,
            },
            receipt: None,
        }
    }
}

/// Why `scenario` cannot take a `fixture_output`, or `None` when it can.
fn fixture_refusal(scenario: &Scenario) -> Option<&'static str> {
    let m: &ScenarioManifest = &scenario.manifest;
    if m.expected_output.is_some() {
        return Some("its manifest names an `expected_output` document, which is the output");
    }
    match m.lifecycle() {
        Some(Lifecycle::Steps(steps))
            if matches!(steps.last(), Some(ScenarioStep::RuntimeSuccess { .. })) =>
        {
            None
        }
        Some(Lifecycle::Events(_)) => None,
        _ => Some("its lifecycle ends in `runtime_failure`, which returns no output"),
    }
}

/// `scenario` with `output` as the output of its terminal success.
fn with_output(scenario: &Scenario, output: templiqx_contracts::Json) -> Scenario {
    let mut scenario = scenario.clone();
    let m = &mut scenario.manifest;
    if let Some(steps) = &mut m.steps {
        for step in steps.iter_mut() {
            if let ScenarioStep::RuntimeSuccess { output: o, .. } = step {
                *o = Some(output.clone());
            }
        }
    }
    if let Some(events) = &mut m.events {
        for event in events.iter_mut() {
            if let ScenarioStreamEvent::Finish { output: o, .. } = event {
                *o = Some(output.clone());
            }
        }
    }
    scenario
}

/// The codes of `diagnostics`, sorted and unique.
fn codes(diagnostics: &[Diagnostic]) -> Vec<Code> {
    let mut codes: Vec<Code> = diagnostics.iter().map(|d| d.code).collect();
    codes.sort_unstable_by_key(|c| c.as_str());
    codes.dedup();
    codes
}
