//! Helpers shared by the integration tests.

use std::path::PathBuf;
use templiqx_contracts::CapabilityProfile;
use templiqx_mock::{HarnessOptions, ReceiptMode};

/// The external corpus root (read in place, never written), or `None`
/// after a visible skip line when it is absent outside CI.
pub fn external_root() -> Option<PathBuf> {
    templiqx_conformance_suites::locate(templiqx_conformance_suites::Suite::Corpus)
}

/// The external inventory, when the external corpus is there.
pub fn external_inventory() -> Option<PathBuf> {
    external_root().map(|r| r.join("crm3/scenarios/inventory.json"))
}

/// The project's own corpus root (`examples/`).
pub fn own_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples")
}

/// The project's own inventory.
pub fn own_inventory() -> PathBuf {
    own_root().join("crm3/scenarios/inventory.json")
}

/// The target profile both corpora are compiled for.
pub fn target() -> CapabilityProfile {
    CapabilityProfile::parse_list("structured_output")
}

pub fn options(mode: ReceiptMode) -> HarnessOptions {
    HarnessOptions::new(target(), mode)
}
