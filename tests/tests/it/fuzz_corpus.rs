//! Replays the committed fuzz corpora (`fuzz/corpus/<target>/`) through the
//! same harness functions the cargo-fuzz targets call
//! (`templiqx-fuzz-harness`), on the stable toolchain: every input that
//! once crashed, hung or found a new path stays a regression test here.
//! Fuzzing itself needs nightly: see `fuzz/README.md`.

use std::path::PathBuf;
use templiqx_fuzz_harness::{Outcome, structured::structured};

fn corpus(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = templiqx_fuzz_harness::repo_root()
        .join("fuzz/corpus")
        .join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "{} is empty", dir.display());
    files
        .into_iter()
        .map(|p| {
            let bytes = std::fs::read(&p).expect("a corpus file");
            (p, bytes)
        })
        .collect()
}

/// Runs every input of `target`; returns (inputs, accepted).
fn replay(target: &str, harness: fn(&[u8]) -> Outcome) -> (usize, usize) {
    let inputs = corpus(target);
    let mut accepted = 0;
    for (path, bytes) in &inputs {
        let outcome = std::panic::catch_unwind(|| harness(bytes))
            .unwrap_or_else(|_| panic!("{} fails its harness", path.display()));
        accepted += usize::from(outcome == Outcome::Accepted);
    }
    (inputs.len(), accepted)
}

#[test]
fn contract_yaml_corpus() {
    let (n, ok) = replay("contract_yaml", templiqx_fuzz_harness::contract_yaml);
    assert!(
        ok > 0 && ok < n,
        "{ok} of {n} compiled: the corpus must reach both paths"
    );
}

#[test]
fn package_corpus() {
    let (n, ok) = replay("package", templiqx_fuzz_harness::package);
    assert!(ok > 0 && ok < n, "{ok} of {n} compiled");
}

#[test]
fn request_corpus() {
    let (n, ok) = replay("request", templiqx_fuzz_harness::request);
    assert!(ok > 0 && ok < n, "{ok} of {n} rendered");
}

#[test]
fn canonical_corpus() {
    let (n, ok) = replay("canonical", templiqx_fuzz_harness::canonical);
    assert!(ok > 0 && ok < n, "{ok} of {n} parsed");
}

#[test]
fn scenario_corpus() {
    let (n, ok) = replay("scenario", templiqx_fuzz_harness::scenario);
    assert!(ok > 0 && ok < n, "{ok} of {n} loaded");
}

#[test]
fn gateway_corpus() {
    let (n, ok) = replay("gateway", templiqx_fuzz_harness::gateway);
    assert!(ok > 0 && ok < n, "{ok} of {n} answered 200");
}

#[test]
fn structured_corpus() {
    let (n, ok) = replay("structured", structured);
    assert!(ok > 0, "none of {n} rendered");
}

#[test]
fn lsp_edits_corpus() {
    let (n, ok) = replay("lsp_edits", templiqx_fuzz_harness::lsp_edits::lsp_edits);
    assert!(
        ok > 0 && ok < n,
        "{ok} of {n} left the edited document clean: the corpus must reach both paths"
    );
}
