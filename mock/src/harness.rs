//! The in-process conformance harness (`docs/mock.md`, "Harness report"): every
//! inventory scenario compiled, rendered, executed on a [`ScriptedRuntime`]
//! (and again streaming), and compared field by field with its expectations.
//!
//! Per scenario, in this order (each a [`Check`] named after the manifest
//! or inventory field it compares):
//!
//! | field | expected | actual |
//! |---|---|---|
//! | `contract` | the contract compiles for the target profile | compiler diagnostics |
//! | `expected_status` | [`ScenarioManifest::status`](crate::ScenarioManifest::status) | `success` or `failure` |
//! | `expected_failure` | the manifest's code | the failure's code (render failures: the first diagnostic's) |
//! | `expected_diagnostics` | the manifest's codes, as a set | the codes of the execution's diagnostics, as a set |
//! | `output_schema_valid` | the terminal step's declared value | real validation against the output schema (`null` when the runtime failed) |
//! | `expected_output_fingerprint` | the manifest's fingerprint | the fingerprint of the accepted output (`null` for a failure) |
//! | `evidence` | the manifest's items | [`check_evidence`] over the request and the runtime's output |
//! | `receipt_payload_policy` | the policy | the receipt is payload-free; `no_successful_receipt` also forbids a success receipt |
//! | `golden_receipt_fingerprint` | the manifest's in-process golden | the receipt's fingerprint (in-process mode) |
//! | `receipt_fingerprint` | the inventory's transport fingerprint | the transport receipt's fingerprint (transport mode) |
//! | `stream` | streaming parity | `execute_streaming`: the replayed deltas, one terminal event carrying `execute`'s receipt or failure, the same virtual time |
//! | `document_expectation` | — | never checked: there is no document adapter (`docs/mock.md`, "Evidence") |
//!
//! The receipt mode picks which receipt fingerprint is compared; the other
//! is reported as not checked. A scenario passes when no check differs.
//!
//! **Receipt modes** (`docs/mock.md`, "Receipts and receipt modes"). In-process
//! receipts cover the fingerprint of the real rendered interaction. Transport
//! receipts are what the HTTP gateway reports: the same outcome, with the
//! request fingerprint of the [transport stub
//! interaction](transport_stub_interaction). Failure receipts cover no request
//! fingerprint, so both modes agree on them. A success golden written by
//! another implementation covers that implementation's encoding of the rendered
//! interaction and cannot match ours; the harness reports such a difference
//! with a note saying so rather than hiding it.

use crate::evidence::{EvidenceCheck, check_evidence};
use crate::inventory::{Inventory, InventoryScenario};
use crate::prepared::{CompiledPackage, ContractUnavailable, render_request};
use crate::runtime::ScriptedRuntime;
use crate::scenario::{ReceiptPayloadPolicy, ScenarioKind, ScenarioStatus, is_fingerprint};
use serde::Serialize;
use serde_json::{Value, json};
use std::fmt;
use templiqx::adapter::OUTPUT_SCHEMA_ID;
use templiqx::{Execution, ExecutionError, RuntimeAdapter, Usage};
use templiqx_contracts::canonical::{fingerprint, sha256_hex};
use templiqx_contracts::{
    CapabilityProfile, Code, Diagnostic, Diagnostics, Interaction, Receipt, RenderedInteraction,
    RuntimePolicy, Schema, Seq, StreamEvent,
};

/// The `compiler` of the transport stub interaction (`docs/mock.md`,
/// "Receipts and receipt modes").
pub const TRANSPORT_COMPILER: &str = "templiqx-mock-gateway";

/// The `contract_version` of the transport stub interaction.
pub const TRANSPORT_CONTRACT_VERSION: &str = "mock";

/// Which receipt fingerprint the harness compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ReceiptMode {
    /// Receipts over the real rendered interaction, compared with each
    /// manifest's `golden_receipt_fingerprint`.
    InProcess,
    /// Receipts over the transport stub interaction, compared with each
    /// inventory entry's `receipt_fingerprint` (what the HTTP gateway must
    /// reproduce).
    Transport,
}

impl ReceiptMode {
    /// `"in_process"` or `"transport"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ReceiptMode::InProcess => "in_process",
            ReceiptMode::Transport => "transport",
        }
    }
}

/// How to run the harness.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HarnessOptions {
    /// The target capability profile contracts are compiled for; the
    /// scripted runtime provides exactly these capabilities. It enters the
    /// interaction, hence in-process request and success receipt
    /// fingerprints.
    pub target: CapabilityProfile,
    /// Which receipt fingerprint to compare.
    pub receipt_mode: ReceiptMode,
}

impl HarnessOptions {
    /// Options for `target` and `receipt_mode`.
    pub fn new(target: CapabilityProfile, receipt_mode: ReceiptMode) -> HarnessOptions {
        HarnessOptions {
            target,
            receipt_mode,
        }
    }
}

/// The transport stub interaction (`docs/mock.md`, "Receipts and receipt
/// modes"): `compiler`
/// [`TRANSPORT_COMPILER`], the scenario's `contract_id`, `contract_version`
/// [`TRANSPORT_CONTRACT_VERSION`], and everything else empty. Rendered
/// with no messages, it serialises to
/// `{"compiler": "templiqx-mock-gateway", "contract_id": …,
/// "contract_version": "mock", "messages": [], "output_schema": {},
/// "required_capabilities": [], "target_capabilities": [],
/// "runtime_policy": {}, "extensions": {}}`.
pub fn transport_stub_interaction(contract_id: &str) -> Interaction {
    Interaction {
        compiler: TRANSPORT_COMPILER.into(),
        contract_id: contract_id.to_owned().into(),
        contract_version: TRANSPORT_CONTRACT_VERSION.into(),
        inputs: Seq::EMPTY,
        context: Seq::EMPTY,
        messages: Seq::EMPTY,
        components: Seq::EMPTY,
        output_schema: Schema::ANY,
        runtime_policy: RuntimePolicy::default(),
        extensions: Seq::EMPTY,
        required_capabilities: Seq::EMPTY,
        target_capabilities: Seq::EMPTY,
        context_locale: false,
        sites: Seq::EMPTY,
        contract_fingerprint: "".into(),
        interaction_fingerprint: "".into(),
    }
}

/// The request fingerprint the HTTP transport reports for `contract_id`:
/// the fingerprint of the [transport stub
/// interaction](transport_stub_interaction) rendered with no messages.
pub fn transport_request_fingerprint(contract_id: &str) -> String {
    let stub = transport_stub_interaction(contract_id);
    RenderedInteraction::new(&stub, Vec::new()).request_fingerprint()
}

/// `receipt` as the HTTP transport reports it: a success receipt with the
/// transport request fingerprint of `contract_id`; a failure receipt
/// unchanged (it covers no request fingerprint).
pub fn transport_receipt(receipt: &Receipt, contract_id: &str) -> Receipt {
    match receipt {
        Receipt::Success { .. } => {
            transport_receipt_with(receipt, &transport_request_fingerprint(contract_id))
        }
        failure @ Receipt::Failure { .. } => failure.clone(),
    }
}

/// [`transport_receipt`] given the contract's
/// [`transport_request_fingerprint`], computed once: for a server that
/// reports many executions of the same contract.
///
/// ```
/// use templiqx_contracts::Receipt;
/// use templiqx_mock::{transport_receipt, transport_receipt_with, transport_request_fingerprint};
///
/// let receipt = Receipt::for_output(&"a".repeat(64), &"b".repeat(64), true);
/// let request = transport_request_fingerprint("greeting");
/// assert_eq!(
///     transport_receipt_with(&receipt, &request),
///     transport_receipt(&receipt, "greeting"),
/// );
/// ```
pub fn transport_receipt_with(receipt: &Receipt, transport_request_fingerprint: &str) -> Receipt {
    match receipt {
        Receipt::Success {
            output_fingerprint,
            output_schema_valid,
            diagnostics,
            ..
        } => Receipt::Success {
            request_fingerprint: transport_request_fingerprint.to_owned(),
            output_fingerprint: output_fingerprint.clone(),
            output_schema_valid: *output_schema_valid,
            diagnostics: diagnostics.clone(),
        },
        failure @ Receipt::Failure { .. } => failure.clone(),
    }
}

/// What a check compares: the manifest or inventory field it is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CheckField {
    /// The scenario's contract compiles for the target profile.
    Contract,
    /// `expected_status`.
    ExpectedStatus,
    /// `expected_failure`.
    ExpectedFailure,
    /// `expected_diagnostics`.
    ExpectedDiagnostics,
    /// The declared `output_schema_valid` against real validation.
    OutputSchemaValid,
    /// `expected_output_fingerprint`.
    ExpectedOutputFingerprint,
    /// `evidence`.
    Evidence,
    /// `receipt_payload_policy`.
    ReceiptPayloadPolicy,
    /// The manifest's in-process `golden_receipt_fingerprint`.
    GoldenReceiptFingerprint,
    /// The inventory's transport `receipt_fingerprint`.
    ReceiptFingerprint,
    /// Streaming parity with `execute`.
    Stream,
    /// `document_expectation` (never checked).
    DocumentExpectation,
}

impl CheckField {
    /// The field's name in manifests, inventories and reports.
    pub fn as_str(self) -> &'static str {
        match self {
            CheckField::Contract => "contract",
            CheckField::ExpectedStatus => "expected_status",
            CheckField::ExpectedFailure => "expected_failure",
            CheckField::ExpectedDiagnostics => "expected_diagnostics",
            CheckField::OutputSchemaValid => "output_schema_valid",
            CheckField::ExpectedOutputFingerprint => "expected_output_fingerprint",
            CheckField::Evidence => "evidence",
            CheckField::ReceiptPayloadPolicy => "receipt_payload_policy",
            CheckField::GoldenReceiptFingerprint => "golden_receipt_fingerprint",
            CheckField::ReceiptFingerprint => "receipt_fingerprint",
            CheckField::Stream => "stream",
            CheckField::DocumentExpectation => "document_expectation",
        }
    }
}

impl fmt::Display for CheckField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for CheckField {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// How a check came out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckOutcome {
    /// Expected and actual agree.
    Match,
    /// They differ: the scenario fails.
    Differs,
    /// Not compared (the note says why); does not fail the scenario.
    NotChecked,
}

/// One compared field.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Check {
    /// What is compared.
    pub field: CheckField,
    /// How it came out.
    pub outcome: CheckOutcome,
    /// The expectation, as JSON (`null` when there is none).
    pub expected: Value,
    /// What the execution produced, as JSON.
    pub actual: Value,
    /// Why a check was not made, or what a difference means.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl Check {
    fn compare(field: CheckField, expected: Value, actual: Value) -> Check {
        let outcome = if expected == actual {
            CheckOutcome::Match
        } else {
            CheckOutcome::Differs
        };
        Check {
            field,
            outcome,
            expected,
            actual,
            note: None,
        }
    }

    fn not_checked(field: CheckField, expected: Value, note: impl Into<String>) -> Check {
        Check {
            field,
            outcome: CheckOutcome::NotChecked,
            expected,
            actual: Value::Null,
            note: Some(note.into()),
        }
    }

    fn with_note(mut self, note: impl Into<String>) -> Check {
        self.note = Some(note.into());
        self
    }
}

/// The result of one scenario.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ScenarioReport {
    /// The scenario id.
    pub id: String,
    /// The scenario's contract id.
    pub contract: String,
    /// The scenario's kind.
    pub kind: ScenarioKind,
    /// The payload-free scenario fingerprint.
    pub scenario_fingerprint: String,
    /// The actual status (`None` when the scenario could not run).
    pub status: Option<ScenarioStatus>,
    /// The receipt in the report's mode (`None` when nothing executed).
    pub receipt: Option<Receipt>,
    /// Its fingerprint.
    pub receipt_fingerprint: Option<String>,
    /// Virtual time the `execute` call took, in milliseconds.
    pub elapsed_ms: u64,
    /// Invocations the `execute` call made.
    pub attempts: u32,
    /// Token usage of a successful execution, when the stream reported it.
    pub usage: Option<Usage>,
    /// What the execution reported: the port's diagnostics for a failure
    /// (a runtime failure, a schema-invalid output, the capability gate),
    /// the renderer's when the request did not render, the runtime's set-up
    /// problems; empty for a success. Each has a help line; a runtime
    /// failure's note names the failing step.
    pub diagnostics: Vec<Diagnostic>,
    /// Every check, in the order of the module docs.
    pub checks: Vec<Check>,
}

impl ScenarioReport {
    /// No check differs.
    pub fn passed(&self) -> bool {
        self.checks
            .iter()
            .all(|c| c.outcome != CheckOutcome::Differs)
    }

    /// The checks that differ.
    pub fn differing(&self) -> impl Iterator<Item = &Check> {
        self.checks
            .iter()
            .filter(|c| c.outcome == CheckOutcome::Differs)
    }

    /// The check of `field`, when made or reported.
    pub fn check(&self, field: CheckField) -> Option<&Check> {
        self.checks.iter().find(|c| c.field == field)
    }
}

/// The result of a harness run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ConformanceReport {
    /// The package name.
    pub package: String,
    /// The receipt mode.
    pub receipt_mode: ReceiptMode,
    /// The target capability profile.
    pub target: Vec<String>,
    /// One report per inventory entry, in inventory order.
    pub scenarios: Vec<ScenarioReport>,
}

impl ConformanceReport {
    /// Every scenario passed.
    pub fn passed(&self) -> bool {
        self.scenarios.iter().all(ScenarioReport::passed)
    }

    /// The report of scenario `id`.
    pub fn scenario(&self, id: &str) -> Option<&ScenarioReport> {
        self.scenarios.iter().find(|s| s.id == id)
    }

    /// The scenarios that failed.
    pub fn failed(&self) -> impl Iterator<Item = &ScenarioReport> {
        self.scenarios.iter().filter(|s| !s.passed())
    }
}

impl fmt::Display for ConformanceReport {
    /// A human report: a header, one line per scenario (`ok` or `FAIL`,
    /// id, status, failure code, virtual time, attempts), then for a
    /// failed scenario every differing field with expected and actual
    /// (and the note, when there is one), then the fields not checked,
    /// then a summary line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "templiqx.mock conformance: package `{}`, receipt mode {}, target [{}]",
            self.package,
            self.receipt_mode.as_str(),
            self.target.join(", ")
        )?;
        for s in &self.scenarios {
            let status = s.status.map_or("not run", ScenarioStatus::as_str);
            let code = match &s.receipt {
                Some(Receipt::Failure { code, .. }) => format!(" {code}"),
                _ => String::new(),
            };
            writeln!(
                f,
                "{:<4}  {}: {status}{code}, {} ms virtual, {} attempt{}",
                if s.passed() { "ok" } else { "FAIL" },
                s.id,
                s.elapsed_ms,
                s.attempts,
                if s.attempts == 1 { "" } else { "s" }
            )?;
            for c in s.differing() {
                writeln!(
                    f,
                    "      {} differs: expected {}, actual {}",
                    c.field, c.expected, c.actual
                )?;
                if let Some(note) = &c.note {
                    writeln!(f, "        note: {note}")?;
                }
            }
            let skipped: Vec<&str> = s
                .checks
                .iter()
                .filter(|c| c.outcome == CheckOutcome::NotChecked)
                .map(|c| c.field.as_str())
                .collect();
            if !skipped.is_empty() {
                writeln!(f, "      not checked: {}", skipped.join(", "))?;
            }
        }
        let failed = self.failed().count();
        write!(
            f,
            "result: {} passed, {failed} failed",
            self.scenarios.len() - failed
        )
    }
}

/// Runs every scenario of `inventory` (see the module docs).
///
/// The package is compiled once for `options.target`; a contract that does
/// not compile fails its scenarios' `contract` check. Never panics and
/// never sleeps: delays advance a fresh [`VirtualClock`](crate::VirtualClock)
/// per execution.
pub fn run_conformance(inventory: &Inventory, options: &HarnessOptions) -> ConformanceReport {
    run_conformance_with_progress(inventory, options, |_, _| {})
}

/// [`run_conformance`], calling `progress(index, id)` before each
/// scenario runs (for a progress bar: the package is compiled before the
/// first call).
pub fn run_conformance_with_progress(
    inventory: &Inventory,
    options: &HarnessOptions,
    mut progress: impl FnMut(usize, &str),
) -> ConformanceReport {
    let compiled = CompiledPackage::compile(inventory, &options.target);
    ConformanceReport {
        package: inventory.package.clone(),
        receipt_mode: options.receipt_mode,
        target: options.target.iter().map(str::to_owned).collect(),
        scenarios: inventory
            .scenarios
            .iter()
            .enumerate()
            .map(|(i, s)| {
                progress(i, &s.entry.id);
                run_one(s, &compiled, options)
            })
            .collect(),
    }
}

/// Runs the scenario `id` of `inventory`; `None` when the inventory does
/// not list it (a manifest that merely exists is not a scenario).
pub fn run_scenario(
    inventory: &Inventory,
    id: &str,
    options: &HarnessOptions,
) -> Option<ScenarioReport> {
    let scenario = inventory.get(id)?;
    Some(run_one(
        scenario,
        &CompiledPackage::compile(inventory, &options.target),
        options,
    ))
}

/// An inventory's package compiled for the run's target, or why it could
/// not be.
type Compiled = Result<CompiledPackage, Diagnostics>;

/// What one execution produced.
struct Run {
    result: Result<Execution, ExecutionError>,
    elapsed_ms: u64,
    events: Vec<StreamEvent>,
}

/// Whether and how a scenario executed.
enum Outcome {
    /// The request did not render, or the runtime could not be set up.
    NotExecuted(Vec<Diagnostic>),
    /// `execute`, and `execute_streaming` on a second, identical runtime.
    Executed(Box<Executed>),
}

struct Executed {
    runtime: ScriptedRuntime,
    run: Run,
    streamed: Run,
}

/// The actual values the checks compare.
struct Actual {
    status: ScenarioStatus,
    failure: Option<Code>,
    codes: Vec<&'static str>,
    output_schema_valid: Option<bool>,
    output_fingerprint: Option<String>,
    receipt: Option<Receipt>,
}

impl Actual {
    fn of(outcome: &Outcome) -> Actual {
        let result = match outcome {
            Outcome::NotExecuted(diagnostics) => {
                return Actual {
                    status: ScenarioStatus::Failure,
                    failure: diagnostics.first().map(|d| d.code),
                    codes: code_set(diagnostics),
                    output_schema_valid: None,
                    output_fingerprint: None,
                    receipt: None,
                };
            }
            Outcome::Executed(executed) => &executed.run.result,
        };
        match result {
            Ok(execution) => Actual {
                status: ScenarioStatus::Success,
                failure: None,
                codes: Vec::new(),
                output_schema_valid: Some(true),
                output_fingerprint: Some(fingerprint(&execution.output)),
                receipt: Some(execution.receipt.clone()),
            },
            Err(error) => Actual {
                status: ScenarioStatus::Failure,
                failure: Some(error.failure.code),
                codes: code_set(&error.diagnostics),
                // The port's own failure for a schema-invalid output.
                output_schema_valid: (error.failure.code == Code::OutputSchema
                    && error.failure.id == OUTPUT_SCHEMA_ID)
                    .then_some(false),
                output_fingerprint: None,
                receipt: Some(error.receipt.clone()),
            },
        }
    }
}

fn run_one(
    is: &InventoryScenario,
    compiled: &Compiled,
    options: &HarnessOptions,
) -> ScenarioReport {
    let scenario = &is.scenario;
    let m = &scenario.manifest;
    let mut report = ScenarioReport {
        id: is.entry.id.clone(),
        contract: m.contract.clone(),
        kind: m.kind,
        scenario_fingerprint: scenario.fingerprint(),
        status: None,
        receipt: None,
        receipt_fingerprint: None,
        elapsed_ms: 0,
        attempts: 0,
        usage: None,
        diagnostics: Vec::new(),
        checks: Vec::new(),
    };
    let interaction = match interaction_of(compiled, &m.contract) {
        Ok(interaction) => interaction,
        Err(check) => {
            report.checks.push(check);
            return report;
        }
    };
    report.checks.push(Check::compare(
        CheckField::Contract,
        json!("compiles"),
        json!("compiles"),
    ));

    let outcome = execute_scenario(scenario, interaction, &options.target);
    let actual = Actual::of(&outcome);
    match &outcome {
        Outcome::Executed(executed) => {
            report.elapsed_ms = executed.run.elapsed_ms;
            (report.attempts, report.usage) = match &executed.run.result {
                Ok(e) => (e.attempts, e.usage),
                Err(e) => (e.attempts, None),
            };
            if let Err(e) = &executed.run.result {
                report.diagnostics = e.diagnostics.clone();
            }
        }
        Outcome::NotExecuted(d) => report.diagnostics = d.clone(),
    }
    report.status = Some(actual.status);
    report.receipt = actual.receipt.as_ref().map(|r| match options.receipt_mode {
        ReceiptMode::InProcess => r.clone(),
        ReceiptMode::Transport => transport_receipt(r, &m.contract),
    });
    report.receipt_fingerprint = report.receipt.as_ref().map(Receipt::fingerprint);

    let mut expected_codes: Vec<&str> = m.expected_diagnostics.iter().map(|c| c.as_str()).collect();
    expected_codes.sort_unstable();
    expected_codes.dedup();
    let mut diagnostics = Check::compare(
        CheckField::ExpectedDiagnostics,
        json!(expected_codes),
        json!(actual.codes),
    );
    if let Outcome::NotExecuted(d) = &outcome {
        diagnostics = diagnostics.with_note(format!("the scenario did not execute: {}", joined(d)));
    }
    let runtime = match &outcome {
        Outcome::Executed(executed) => Some(&executed.runtime),
        Outcome::NotExecuted(_) => None,
    };
    let evidence = check_evidence(
        &m.evidence,
        scenario.request.as_ref(),
        runtime.and_then(ScriptedRuntime::output),
    );
    let receipt_checks = receipt_checks(is, options.receipt_mode, &actual, &report);
    let checks = &mut report.checks;
    checks.push(Check::compare(
        CheckField::ExpectedStatus,
        json!(m.status()),
        json!(actual.status),
    ));
    checks.push(Check::compare(
        CheckField::ExpectedFailure,
        json!(m.expected_failure),
        json!(actual.failure),
    ));
    checks.push(diagnostics);
    checks.push(Check::compare(
        CheckField::OutputSchemaValid,
        json!(m.declared_output_schema_valid()),
        json!(actual.output_schema_valid),
    ));
    checks.push(Check::compare(
        CheckField::ExpectedOutputFingerprint,
        json!(m.expected_output_fingerprint),
        json!(actual.output_fingerprint),
    ));
    checks.push(evidence_check(&m.evidence, &evidence));
    checks.push(policy_check(
        m.receipt_payload_policy,
        report.receipt.as_ref(),
    ));
    checks.extend(receipt_checks);
    checks.push(match &outcome {
        Outcome::Executed(e) => stream_check(&e.run, &e.streamed, &e.runtime),
        Outcome::NotExecuted(_) => Check::not_checked(
            CheckField::Stream,
            Value::Null,
            "the scenario did not execute",
        ),
    });
    checks.push(Check::not_checked(
        CheckField::DocumentExpectation,
        json!(m.document_expectation),
        "checking rendered documents belongs to a document adapter, which Templiqx does not have (docs/mock.md, \"Evidence\"); the expectation enters the scenario fingerprint",
    ));
    report
}

/// The compiled interaction of `contract`, or the failed `contract` check.
fn interaction_of<'c>(compiled: &'c Compiled, contract: &str) -> Result<&'c Interaction, Check> {
    let package = compiled.as_ref().map_err(|d| contract_failed(d))?;
    match package.interaction(contract) {
        Ok(interaction) => Ok(interaction),
        Err(ContractUnavailable::DoesNotCompile(d)) => Err(contract_failed(d)),
        Err(ContractUnavailable::NotListed) => {
            Err(
                Check::compare(CheckField::Contract, json!(contract), Value::Null)
                    .with_note("the package manifest lists no such contract"),
            )
        }
    }
}

/// Renders the scenario's request and executes it twice, plain and
/// streaming, each on its own runtime and clock.
fn execute_scenario(
    scenario: &crate::Scenario,
    interaction: &Interaction,
    target: &CapabilityProfile,
) -> Outcome {
    let rendered = match render_request(scenario, interaction) {
        Ok(rendered) => rendered,
        Err(e) => return Outcome::NotExecuted(e.diagnostics.into_vec()),
    };
    let runtimes = ScriptedRuntime::new(scenario, target)
        .and_then(|runtime| Ok((runtime, ScriptedRuntime::new(scenario, target)?)));
    match runtimes {
        Err(e) => Outcome::NotExecuted(e.diagnostics.into_vec()),
        Ok((runtime, streaming)) => {
            let run = execute(&runtime, &rendered, false);
            let streamed = execute(&streaming, &rendered, true);
            Outcome::Executed(Box::new(Executed {
                runtime,
                run,
                streamed,
            }))
        }
    }
}

/// The golden (in-process) and transport receipt checks; the mode decides
/// which one is compared.
fn receipt_checks(
    is: &InventoryScenario,
    mode: ReceiptMode,
    actual: &Actual,
    report: &ScenarioReport,
) -> [Check; 2] {
    let m = &is.scenario.manifest;
    let actual_fp = json!(report.receipt_fingerprint);
    let golden = json!(m.golden_receipt_fingerprint);
    let transport = json!(is.entry.expectation.receipt_fingerprint);
    match mode {
        ReceiptMode::InProcess => {
            let check = if m.golden_receipt_fingerprint.is_none() {
                Check::not_checked(
                    CheckField::GoldenReceiptFingerprint,
                    Value::Null,
                    "the manifest declares no golden_receipt_fingerprint",
                )
            } else {
                let check = Check::compare(CheckField::GoldenReceiptFingerprint, golden, actual_fp);
                match (&check.outcome, &actual.receipt) {
                    (
                        CheckOutcome::Differs,
                        Some(Receipt::Success {
                            request_fingerprint,
                            ..
                        }),
                    ) => check.with_note(format!(
                        "a success receipt covers the request fingerprint (ours: {request_fingerprint}), which depends on the implementation's encoding of the rendered interaction and on the target profile: a golden written by another implementation, or for another target, cannot match it; the outcome, output fingerprint and schema validity the receipt also covers are compared by the checks above"
                    )),
                    _ => check,
                }
            };
            [
                check,
                Check::not_checked(
                    CheckField::ReceiptFingerprint,
                    transport,
                    "the inventory's receipt fingerprint is the HTTP transport's; compared in transport receipt mode",
                ),
            ]
        }
        ReceiptMode::Transport => [
            Check::not_checked(
                CheckField::GoldenReceiptFingerprint,
                golden,
                "the manifest's golden is the in-process receipt's; compared in in-process receipt mode",
            ),
            Check::compare(CheckField::ReceiptFingerprint, transport, actual_fp),
        ],
    }
}

fn joined(diagnostics: &[Diagnostic]) -> String {
    diagnostics
        .iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join("; ")
}

fn execute(runtime: &ScriptedRuntime, rendered: &RenderedInteraction<'_>, streaming: bool) -> Run {
    let start = runtime.clock().now_ms();
    let mut events = Vec::new();
    let result = if streaming {
        RuntimeAdapter::execute_streaming(runtime, rendered, &mut |e| events.push(e))
    } else {
        RuntimeAdapter::execute(runtime, rendered)
    };
    Run {
        result,
        elapsed_ms: runtime.clock().now_ms().saturating_sub(start),
        events,
    }
}

fn code_set(diagnostics: &[Diagnostic]) -> Vec<&'static str> {
    let mut codes: Vec<&'static str> = diagnostics.iter().map(|d| d.code.as_str()).collect();
    codes.sort_unstable();
    codes.dedup();
    codes
}

fn contract_failed(diagnostics: &[Diagnostic]) -> Check {
    Check::compare(
        CheckField::Contract,
        json!("compiles"),
        json!(code_set(diagnostics)),
    )
    .with_note(joined(diagnostics))
}

fn evidence_check(expected: &[crate::EvidenceExpectation], check: &EvidenceCheck) -> Check {
    Check {
        field: CheckField::Evidence,
        outcome: if check.passed() {
            CheckOutcome::Match
        } else {
            CheckOutcome::Differs
        },
        expected: json!(expected),
        actual: serde_json::to_value(check).unwrap_or(Value::Null),
        note: None,
    }
}

/// The keys a receipt may have, and whether each holds a fingerprint.
const RECEIPT_KEYS: &[(&str, bool)] = &[
    ("outcome", false),
    ("code", false),
    ("retry_after_ms", false),
    ("output_schema_valid", false),
    ("request_fingerprint", true),
    ("output_fingerprint", true),
    ("failure_fingerprint", true),
];

fn policy_check(policy: ReceiptPayloadPolicy, receipt: Option<&Receipt>) -> Check {
    let Some(receipt) = receipt else {
        return Check::compare(
            CheckField::ReceiptPayloadPolicy,
            json!(policy),
            json!(policy),
        )
        .with_note("no receipt was produced");
    };
    let mut problems = Vec::new();
    match serde_json::to_value(receipt) {
        Ok(Value::Object(fields)) => {
            for (k, v) in &fields {
                match RECEIPT_KEYS.iter().find(|(name, _)| name == k) {
                    None => problems.push(format!("the receipt carries `{k}`")),
                    Some((_, true)) if !v.as_str().is_some_and(is_fingerprint) => {
                        problems.push(format!("`{k}` is not a fingerprint"))
                    }
                    Some(_) => {}
                }
            }
        }
        _ => problems.push("the receipt does not serialise to an object".into()),
    }
    if policy == ReceiptPayloadPolicy::NoSuccessfulReceipt && receipt.is_success() {
        problems.push("a success receipt was produced".into());
    }
    if problems.is_empty() {
        Check::compare(
            CheckField::ReceiptPayloadPolicy,
            json!(policy),
            json!(policy),
        )
    } else {
        Check::compare(
            CheckField::ReceiptPayloadPolicy,
            json!(policy),
            json!(problems),
        )
    }
}

/// A payload-free summary of a streaming run: the terminal event, the
/// outcome it carries, the SHA-256 of each delta (in order), the elapsed
/// virtual time.
fn stream_summary(terminal: &str, outcome: Value, deltas: &[&str], elapsed_ms: u64) -> Value {
    let deltas: Vec<String> = deltas.iter().map(|d| sha256_hex(d.as_bytes())).collect();
    json!({
        "terminal": terminal,
        "outcome": outcome,
        "delta_sha256": deltas,
        "elapsed_ms": elapsed_ms,
    })
}

fn outcome_json(result: &Result<Execution, ExecutionError>) -> Value {
    match result {
        Ok(e) => json!(e.receipt),
        Err(e) => json!(e.failure),
    }
}

fn stream_check(run: &Run, streamed: &Run, runtime: &ScriptedRuntime) -> Check {
    let invoked = match &run.result {
        Ok(e) => e.attempts > 0,
        Err(e) => e.attempts > 0,
    };
    let expected_deltas: Vec<&str> = if invoked {
        runtime.stream_deltas().iter().map(String::as_str).collect()
    } else {
        Vec::new()
    };
    let expected = stream_summary(
        if run.result.is_ok() {
            "complete"
        } else {
            "failed"
        },
        outcome_json(&run.result),
        &expected_deltas,
        run.elapsed_ms,
    );
    let deltas: Vec<&str> = streamed
        .events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::Delta { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    let terminals: Vec<&StreamEvent> = streamed
        .events
        .iter()
        .filter(|e| matches!(e, StreamEvent::Complete { .. } | StreamEvent::Failed { .. }))
        .collect();
    let last_is_terminal = matches!(
        streamed.events.last(),
        Some(StreamEvent::Complete { .. } | StreamEvent::Failed { .. })
    );
    let (terminal, carried) = match (terminals.as_slice(), last_is_terminal) {
        ([StreamEvent::Complete { receipt }], true) => ("complete", json!(receipt)),
        ([StreamEvent::Failed { failure }], true) => ("failed", json!(failure)),
        _ => ("malformed", json!(terminals.len())),
    };
    // The terminal event must carry what the streaming call returned, too.
    let returned = outcome_json(&streamed.result);
    let carried = if carried == returned {
        carried
    } else {
        json!({"event": carried, "returned": returned})
    };
    let actual = stream_summary(terminal, carried, &deltas, streamed.elapsed_ms);
    Check::compare(CheckField::Stream, expected, actual)
}
