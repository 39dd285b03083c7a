//! Whole packages compared (`docs/diff.md`, "What is compared"): a partial
//! change reported on every contract that includes it, contracts that do
//! not compile, contracts matched by id, and the package's version gate.

use std::path::Path;
use std::sync::Arc;
use templiqx_build::RealFileSystem;
use templiqx_diff::{Rule, Side, Status, Which, diff};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn contract(id: &str, version: &str, body: &str) -> String {
    format!(
        "api_version: templiqx/v1alpha1
id: {id}
version: {version}
inputs:
  name: {{ schema: {{ type: string }}, required: true }}
messages:
  - role: system
    content:
      - {{ kind: include, path: partials/rules.yaml }}
  - role: user
    content:
      - {{ kind: text, value: \"{body} \" }}
      - {{ kind: interpolate, expression: {{ kind: ref, path: inputs.name }} }}
output_schema: {{ type: object }}
"
    )
}

/// A package `desk` at `version` with contracts `a` and `b`, both
/// including `partials/rules.yaml`.
fn package(dir: &Path, version: &str, rules: &str, b_body: &str) {
    write(
        &dir.join("templiqx.yaml"),
        &format!(
            "api_version: templiqx/v1alpha1\npackage: desk\nversion: {version}\ncontracts: [a, b]\n"
        ),
    );
    write(
        &dir.join("contracts/a.yaml"),
        &contract("a", version, "Hello"),
    );
    write(
        &dir.join("contracts/b.yaml"),
        &contract("b", version, b_body),
    );
    write(
        &dir.join("partials/rules.yaml"),
        &format!("- {{ kind: text, value: \"{rules}\" }}\n"),
    );
}

fn load(root: &Path) -> (Side, Side) {
    let fs = Arc::new(RealFileSystem);
    (
        Side::load(fs.clone(), root, Path::new("old"), None, "old", false),
        Side::load(fs, root, Path::new("new"), None, "new", false),
    )
}

#[test]
fn a_changed_partial_is_reported_on_every_contract_that_includes_it() {
    let dir = tempfile::tempdir().unwrap();
    package(&dir.path().join("old"), "1.0.0", "Be brief.", "Hi");
    package(&dir.path().join("new"), "1.0.1", "Be brief and kind.", "Hi");
    let (old, new) = load(dir.path());
    let report = diff(&old, &new);
    let changes: Vec<(Rule, Option<&str>)> = report
        .changes
        .iter()
        .map(|c| (c.rule, c.contract.as_deref()))
        .collect();
    assert_eq!(
        changes,
        [
            (Rule::PartialChanged, Some("a")),
            (Rule::PartialChanged, Some("b"))
        ]
    );
    for c in &report.changes {
        let (o, n) = (c.old.as_ref().unwrap(), c.new.as_ref().unwrap());
        assert_eq!(n.json_pointer, "/messages/0/content/0");
        assert_eq!(o.json_pointer, n.json_pointer);
        assert!(n.file.ends_with(&format!(
            "contracts/{}.yaml",
            c.contract.as_deref().unwrap()
        )));
    }
    // A behaviour change: 1.0.0 → 1.0.1 is enough for each.
    assert!(report.sufficient);
}

#[test]
fn a_contract_that_does_not_compile_is_not_compared_and_fails() {
    let dir = tempfile::tempdir().unwrap();
    package(&dir.path().join("old"), "1.0.0", "Rules.", "Hi");
    package(&dir.path().join("new"), "1.0.0", "Rules.", "Hi");
    // The old side's `b` refers to an input it does not declare.
    write(
        &dir.path().join("old/contracts/b.yaml"),
        &contract("b", "1.0.0", "Hi").replace("inputs.name }", "inputs.nmae }"),
    );
    let (old, new) = load(dir.path());
    let report = diff(&old, &new);
    let b = report.contracts.iter().find(|v| v.name == "b").unwrap();
    assert_eq!(b.status, Status::NotCompared);
    assert!(b.gate.is_none());
    let [d] = report.diagnostics.as_slice() else {
        panic!("{:?}", report.diagnostics)
    };
    assert_eq!(d.side, Which::Old);
    assert_eq!(d.diagnostic.code.as_str(), "TQX_REF_UNKNOWN");
    assert_eq!(
        d.diagnostic.notes.last().map(String::as_str),
        Some("in the old version (old)")
    );
    assert!(d.diagnostic.is_error());
    let a = report.contracts.iter().find(|v| v.name == "a").unwrap();
    assert_eq!(a.status, Status::Unchanged);
}

#[test]
fn contract_files_are_matched_by_id() {
    let dir = tempfile::tempdir().unwrap();
    package(&dir.path().join("pkg"), "1.0.0", "Rules.", "Hi");
    let fs = Arc::new(RealFileSystem);
    let a = Side::load(
        fs.clone(),
        dir.path(),
        Path::new("pkg/contracts/a.yaml"),
        None,
        "old",
        false,
    );
    let b = Side::load(
        fs,
        dir.path(),
        Path::new("pkg/contracts/b.yaml"),
        None,
        "new",
        false,
    );
    let report = diff(&a, &b);
    let rules: Vec<Rule> = report.changes.iter().map(|c| c.rule).collect();
    assert_eq!(rules, [Rule::ContractRemoved, Rule::ContractAdded]);
    assert!(report.package.is_none(), "two files have no package gate");
    // Removed and added contracts have no version to gate.
    assert!(report.sufficient);
}

#[test]
fn the_package_gate_counts_every_change_and_versions_never_go_back() {
    let dir = tempfile::tempdir().unwrap();
    package(&dir.path().join("old"), "1.2.0", "Rules.", "Hi");
    package(&dir.path().join("new"), "1.2.0", "Rules.", "Hi");
    // `b` is dropped from the new package; `a` goes back a version.
    write(
        &dir.path().join("new/templiqx.yaml"),
        "api_version: templiqx/v1alpha1\npackage: desk\nversion: 1.3.0\ncontracts: [a]\n",
    );
    write(
        &dir.path().join("new/contracts/a.yaml"),
        &contract("a", "1.1.0", "Hello"),
    );
    let (old, new) = load(dir.path());
    let report = diff(&old, &new);
    let rules: Vec<Rule> = report.changes.iter().map(|c| c.rule).collect();
    assert_eq!(rules, [Rule::ContractRemoved]);
    let gate = report
        .package
        .as_ref()
        .and_then(|p| p.gate.as_ref())
        .unwrap();
    assert_eq!((gate.least.as_str(), gate.sufficient), ("2.0.0", false));
    let a = report.contracts[0].gate.as_ref().unwrap();
    assert!(!a.sufficient, "1.2.0 → 1.1.0 without changes");
    assert!(a.reason.as_deref().unwrap().contains("below the old one"));
    let messages: Vec<&str> = report
        .diagnostics
        .iter()
        .map(|d| d.diagnostic.message.as_str())
        .collect();
    assert_eq!(
        messages,
        [
            "contract `a`: the new version 1.1.0 is below the old one 1.2.0; a release never goes back",
            "package `desk`: 1.2.0 → 1.3.0 is not enough: a breaking change needs at least 2.0.0 (a major bump)",
        ]
    );
}
