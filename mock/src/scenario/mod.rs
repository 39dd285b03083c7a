//! The scenario DTOs of `templiqx.mock/v1alpha1` (`docs/mock.md`) and the
//! lifecycle rules the parser enforces.
//!
//! Every DTO is strict (`deny_unknown_fields`). Deserialising checks the
//! shape; [`ScenarioManifest::validate`] checks the rules of the format
//! (`docs/mock.md`, "Format notes"), and every constructor of this crate
//! ([`ScenarioManifest::from_json`], [`ScenarioManifest::from_yaml`],
//! [`Scenario::load`](crate::Scenario::load), the inventory loader,
//! [`ScriptedRuntime::new`](crate::ScriptedRuntime::new)) runs both, so a
//! manifest that reaches a runtime has passed every rule.
//!
//! `manifest.rs` holds the DTOs; `problems.rs` what the rules share (and
//! the crate's other loaders with them); `events.rs` the rules of a typed
//! stream; `rules.rs` the constructors and the rules of a manifest. Each
//! uses only the ones named before it.

mod events;
mod manifest;
mod problems;
mod rules;

pub use events::validate_events;
pub use manifest::{
    API_VERSION, DocumentExpectation, DocumentStatus, EvidenceExpectation, Lifecycle,
    RUNTIME_FAILURE_CODES, ReceiptPayloadPolicy, ScenarioKind, ScenarioManifest, ScenarioStatus,
    ScenarioStep, ScenarioStreamEvent, StepFailure,
};
pub use problems::is_fingerprint;
pub(crate) use problems::{Problems, check_api_version, is_id};
