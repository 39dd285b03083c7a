//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::PathBuf;
use templiqx_build::Compilation;
use templiqx_contracts::CapabilityProfile;

/// The shared conformance material (`../shared` beside the repository;
/// `TEMPLIQX_SHARED` overrides).
pub fn shared() -> PathBuf {
    std::env::var_os("TEMPLIQX_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared"))
}

pub fn read(rel: &str) -> String {
    let path = shared().join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

pub fn json(rel: &str) -> serde_json::Value {
    serde_json::from_str(&read(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

pub fn structured_output() -> CapabilityProfile {
    CapabilityProfile::parse_list("structured_output")
}

/// Compiles a corpus contract file (relative to `shared/corpus`), failing
/// the test with rendered diagnostics when it does not compile.
pub fn compile_corpus(rel: &str) -> Compilation {
    let c = templiqx_build::compile_str(&read(&format!("corpus/{rel}")), rel, &structured_output());
    assert!(
        c.diagnostics.is_empty(),
        "{rel}:\n{}",
        c.render_diagnostics()
    );
    c
}
