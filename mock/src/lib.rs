//! Templiqx mock runtime: `templiqx.mock/v1alpha1` scenarios replayed
//! deterministically, and in-process conformance over a scenario
//! inventory.
//!
//! A scenario scripts what a model does (latency on a virtual clock, a
//! success, a typed failure, a token stream); [`ScriptedRuntime`] replays it
//! behind the runtime's [`RuntimeAdapter`](templiqx::RuntimeAdapter) port,
//! so the port's own `execute` gates capabilities, validates the output and
//! builds the payload-free receipt (`docs/runtime.md`, "Receipts").
//!
//! ```
//! use templiqx::{RuntimeAdapter, render};
//! use templiqx_contracts::{CapabilityProfile, Receipt};
//! use templiqx_mock::{Scenario, ScenarioManifest, ScriptedRuntime, VirtualClock};
//!
//! // A contract, compiled for a target profile.
//! let target = CapabilityProfile::parse_list("structured_output");
//! let contract = r#"
//! api_version: templiqx/v1alpha1
//! id: greeting
//! version: 0.1.0
//! inputs:
//!   name: { schema: { type: string, minLength: 1 }, required: true }
//! capabilities: [structured_output]
//! messages:
//!   - role: user
//!     content:
//!       - { kind: text, value: "Greet " }
//!       - { kind: interpolate, expression: { kind: ref, path: inputs.name } }
//! output_schema:
//!   type: object
//!   required: [greeting]
//!   properties: { greeting: { type: string } }
//! "#;
//! let compiled = templiqx_build::compile_str(contract, "greeting.yaml", &target);
//! let interaction = compiled.interaction.expect("compiles");
//!
//! // A scenario: the model answers after 1,000,000,000 ms of virtual time.
//! let manifest = ScenarioManifest::from_yaml(r#"
//! api_version: templiqx.mock/v1alpha1
//! id: slow-greeting
//! contract: greeting
//! kind: happy_path
//! receipt_payload_policy: fingerprints_only
//! steps:
//!   - { id: received, kind: request_received }
//!   - { id: latency, kind: delay, delay_ms: 1000000000 }
//!   - { id: answered, kind: runtime_success, output: { greeting: "Hello Ada" }, output_schema_valid: true }
//! "#)?;
//! let scenario = Scenario::from_parts(manifest, None, None)?;
//!
//! let clock = VirtualClock::new();
//! let runtime = ScriptedRuntime::new(&scenario, &target)?.with_clock(clock.clone());
//! let inputs = serde_json::json!({ "name": "Ada" });
//! let request = render(&interaction, inputs.as_object().unwrap(), &serde_json::Map::new())?;
//!
//! let execution = RuntimeAdapter::execute(&runtime, &request)?; // returns at once
//! assert_eq!(execution.output["greeting"], "Hello Ada");
//! assert_eq!((clock.now_ms(), execution.attempts), (1_000_000_000, 1));
//! assert!(matches!(execution.receipt, Receipt::Success { .. }));
//!
//! // Streaming replays the output and ends with exactly the same receipt.
//! let mut events = Vec::new();
//! let streamed = RuntimeAdapter::execute_streaming(&runtime, &request, &mut |e| events.push(e))?;
//! assert_eq!(streamed.receipt, execution.receipt);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # What is where
//!
//! - [`scenario`]: the strict DTOs ([`ScenarioManifest`], [`ScenarioStep`],
//!   [`ScenarioStreamEvent`], …) and the lifecycle rules (`docs/mock.md`,
//!   "Format notes");
//! - [`Scenario`]: a manifest with its request and expected output,
//!   read with every path confined to the corpus root;
//! - [`Inventory`]: `inventory.json`, the only way scenarios are
//!   discovered, loaded fail-closed (drift, duplicate ids, escaping paths);
//! - [`ScriptedRuntime`] and [`VirtualClock`]: replay without sleeping;
//!   [`stream::aggregate`] is the synchronous view of a typed stream;
//! - [`scenario_fingerprint`]: the payload-free scenario fingerprint;
//! - [`evidence`]: evidence matching with the quote-hash check;
//! - [`harness`]: [`run_conformance`] compares every scenario in one of two
//!   [`ReceiptMode`]s and returns a [`ConformanceReport`] naming every field
//!   that differs.
//!
//! This is conformance tooling, not a production API: it has no auth,
//! retrieval, provider or MCP concerns, and hosts own those around
//! Templiqx. `docs/mock.md` states the format and explains the decisions.

pub mod clock;
pub mod document;
pub mod error;
pub mod evidence;
pub mod fingerprint;
pub mod harness;
pub mod inventory;
pub mod load;
pub mod located;
pub mod prepared;
pub mod runtime;
pub mod scenario;
pub mod stream;

pub use clock::VirtualClock;
pub use error::MockError;
pub use evidence::{EvidenceCheck, check_evidence};
pub use fingerprint::{scenario_fingerprint, scenario_fingerprint_document};
pub use harness::{
    Check, CheckField, CheckOutcome, ConformanceReport, HarnessOptions, ReceiptMode,
    ScenarioReport, run_conformance, run_conformance_with_progress, run_scenario,
    transport_receipt, transport_receipt_with, transport_request_fingerprint,
    transport_stub_interaction,
};
pub use inventory::{
    Inventory, InventoryEntry, InventoryFile, InventoryScenario, TransportExpectation,
};
pub use load::{Scenario, ScenarioRequest};
pub use located::{check_diagnostic, check_diagnostics, contract_missing};
pub use prepared::{CompiledPackage, ContractUnavailable, render_request};
pub use runtime::ScriptedRuntime;
pub use scenario::{
    API_VERSION, DocumentExpectation, DocumentStatus, EvidenceExpectation, Lifecycle,
    ReceiptPayloadPolicy, ScenarioKind, ScenarioManifest, ScenarioStatus, ScenarioStep,
    ScenarioStreamEvent, StepFailure,
};
pub use stream::StreamAggregate;
