//! Helpers shared by the CLI tests: the binary, the example and external
//! corpora, and parsing JSON Lines output.
#![allow(dead_code)]

use assert_cmd::Command;
use std::path::{Path, PathBuf};

/// The repository root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The project's own examples (`examples/`: the demo and CRM3 packages,
/// evals and scenarios).
pub fn examples() -> PathBuf {
    repo().join("examples")
}

/// The external conformance corpus, or `None` (after a visible skip line)
/// when it is absent outside CI.
pub fn external_corpus() -> Option<PathBuf> {
    templiqx_conformance_suites::locate(templiqx_conformance_suites::Suite::Corpus)
}

/// How the CLI, run in the repository root, names `dir`: the canonical
/// directory relative to the canonical repository (so a directory behind a
/// symbolic link shows where it leads), or absolute when the two share only
/// the file-system root (`templiqx_build::relative_to`).
pub fn shown_from_repo(dir: &Path) -> String {
    let dir = std::fs::canonicalize(dir).expect("the directory exists");
    let repo = std::fs::canonicalize(repo()).unwrap();
    let mut up = PathBuf::new();
    for ancestor in repo.ancestors() {
        // Sharing only the file-system root, the CLI keeps a path absolute.
        if ancestor.parent().is_none() {
            break;
        }
        if let Ok(rest) = dir.strip_prefix(ancestor) {
            return up.join(rest).to_string_lossy().replace('\\', "/");
        }
        up.push("..");
    }
    dir.to_string_lossy().into_owned()
}

/// The `templiqx` binary, run in `dir`, with colour off and no `NO_COLOR`
/// surprises.
pub fn templiqx_in(dir: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_templiqx"));
    cmd.current_dir(dir)
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE");
    cmd
}

/// The `templiqx` binary, run in the repository root.
pub fn templiqx() -> Command {
    templiqx_in(&repo())
}

/// Standard output as text.
pub fn stdout(output: &std::process::Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("UTF-8 output")
}

/// Every line of standard output parsed as JSON.
pub fn envelopes(output: &std::process::Output) -> Vec<serde_json::Value> {
    stdout(output)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

/// Checks the envelope shape every `--format json` line has.
pub fn assert_envelope(env: &serde_json::Value, operation: &str) {
    assert_eq!(env["api_version"], "templiqx/v1alpha1", "{env}");
    assert_eq!(env["operation"], operation, "{env}");
    assert!(env["ok"].is_boolean(), "{env}");
    assert!(env["diagnostics"].is_array(), "{env}");
    assert!(env["fingerprints"].is_object(), "{env}");
}

/// The `code` of every diagnostic of an envelope.
pub fn codes(env: &serde_json::Value) -> Vec<String> {
    env["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| d["code"].as_str().expect("code").to_owned())
        .collect()
}
