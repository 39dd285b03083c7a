//! Helpers shared by the integration tests.

pub mod host;

use std::path::{Path, PathBuf};
use templiqx_build::Compilation;
use templiqx_contracts::CapabilityProfile;

/// The external conformance corpus, or `None` after a visible skip line
/// when it is absent outside CI.
pub fn corpus() -> Option<PathBuf> {
    templiqx_conformance_suites::locate(templiqx_conformance_suites::Suite::Corpus)
}

/// The project's own examples (`examples/`).
pub fn examples() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples")
}

/// The text of `rel` below `root`.
pub fn read(root: &Path, rel: &str) -> String {
    let path = root.join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The JSON document `rel` below `root`.
pub fn json(root: &Path, rel: &str) -> serde_json::Value {
    serde_json::from_str(&read(root, rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

pub fn structured_output() -> CapabilityProfile {
    CapabilityProfile::parse_list("structured_output")
}

/// Compiles the contract file `rel` below `root`, failing the test with
/// rendered diagnostics when it does not compile.
pub fn compile_under(root: &Path, rel: &str) -> Compilation {
    let c = templiqx_build::compile_str(&read(root, rel), rel, &structured_output());
    assert!(
        c.diagnostics.is_empty(),
        "{rel}:\n{}",
        c.render_diagnostics()
    );
    c
}
