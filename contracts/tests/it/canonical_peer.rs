//! RFC 8785 reference vectors and corpus output fingerprints: the external
//! suites read in place through `templiqx-conformance-suites` (skipped with
//! a visible line when absent, required under CI), and the project's own
//! example outputs against its own inventory.

use std::path::Path;
use templiqx_conformance_suites::{Suite, locate};
use templiqx_contracts::canonical::{fingerprint, to_canonical_string};

#[test]
fn rfc8785_vectors_reproduce_byte_for_byte() {
    let Some(dir) = locate(Suite::Rfc8785Vectors) else {
        return;
    };
    let mut names: Vec<_> = std::fs::read_dir(dir.join("input"))
        .expect("jcs-testdata/input")
        .map(|e| e.unwrap().file_name())
        .collect();
    names.sort();
    assert!(
        names.len() >= 6,
        "expected the six RFC 8785 vectors, found {names:?}"
    );
    for name in names {
        let input = std::fs::read_to_string(dir.join("input").join(&name)).unwrap();
        let want = std::fs::read(dir.join("output").join(&name)).unwrap();
        let value: serde_json::Value = serde_json::from_str(&input).unwrap();
        let got = to_canonical_string(&value);
        assert_eq!(got.as_bytes(), want.as_slice(), "{name:?}: got {got}");
    }
}

/// Asserts that each `evals/<file>` below `package` fingerprints to the
/// `output_fingerprint` its inventory states for `scenario`.
fn assert_outputs_match_inventory(package: &Path, pairs: &[(&str, &str)]) {
    let inventory: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(package.join("scenarios/inventory.json")).unwrap(),
    )
    .unwrap();
    let expected = |id: &str| -> String {
        inventory["scenarios"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["id"] == id)
            .unwrap_or_else(|| panic!("no scenario {id}"))["expectation"]["output_fingerprint"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    for (file, scenario) in pairs {
        let text = std::fs::read_to_string(package.join("evals").join(file)).unwrap();
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(fingerprint(&value), expected(scenario), "{file}");
    }
}

#[test]
fn example_output_fingerprints_match_the_examples_inventory() {
    let package = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/crm3");
    assert_outputs_match_inventory(
        &package,
        &[
            ("extraction-output.json", "lease-happy-path"),
            ("drafting-output.json", "lease-summary-document"),
        ],
    );
}

#[test]
fn corpus_output_fingerprints_match_inventory() {
    let Some(corpus) = locate(Suite::Corpus) else {
        return;
    };
    let dir = corpus.join("crm3");
    assert_outputs_match_inventory(
        &dir,
        &[
            ("bli-61-output.json", "intake-document-01"),
            ("bli-62-output.json", "draft-with-citations"),
        ],
    );
    // The output fingerprint of `intake-document-01` (also pinned by
    // `cli/tests/it/fingerprint.rs`), stated independently of the inventory.
    let bli61: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("evals/bli-61-output.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        fingerprint(&bli61),
        "66d6c3fbb03611b4b22deabbe9ef669e5ad69f59c1e90be4dee92d9c3a5188de"
    );
}
