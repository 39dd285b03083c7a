//! Whole packages compared (`docs/diff.md`, "What is compared"): a partial
//! change reported on every contract that includes it, contracts that do
//! not compile, contracts matched by id, and the package's version gate.

use std::path::Path;
use std::sync::Arc;
use templiqx_build::RealFileSystem;
use templiqx_diff::{Kind, Rule, Side, Status, Verdict, Which, diff};

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
    write(&dir.join("templiqx.yaml"), &manifest(version, "a, b"));
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

/// The manifest of package `desk` at `version`, listing `contracts`.
fn manifest(version: &str, contracts: &str) -> String {
    format!(
        "api_version: templiqx/v1alpha1\npackage: desk\nversion: {version}\ncontracts: [{contracts}]\n"
    )
}

/// `old` and `new` packages ([`package`]) at the two versions, alike.
fn two_packages(old_version: &str, new_version: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    package(&dir.path().join("old"), old_version, "Rules.", "Hi");
    package(&dir.path().join("new"), new_version, "Rules.", "Hi");
    dir
}

/// Asserts that `verdict` is about `name`, not compared for `reason`, and
/// has no gate.
fn assert_not_compared(verdict: &Verdict, name: &str, reason: &str) {
    assert_eq!(
        (
            verdict.name.as_str(),
            verdict.status,
            verdict.reason.as_deref()
        ),
        (name, Status::NotCompared, Some(reason)),
        "{verdict:?}"
    );
    assert!(verdict.gate.is_none());
}

/// The report on `old` and `new` below `root`, and its one change.
fn only_change(root: &Path) -> (templiqx_diff::Report, templiqx_diff::Change) {
    let (old, new) = load(root);
    let report = diff(&old, &new);
    let [change] = report.changes.as_slice() else {
        panic!("{:?}", report.changes)
    };
    let change = change.clone();
    (report, change)
}

/// The sides `old` and `new` below `root`, labelled so.
fn load(root: &Path) -> (Side, Side) {
    load_pair(root, "old", "new")
}

/// `old_path` as the old side and `new_path` as the new one (below `root`).
fn load_pair(root: &Path, old_path: &str, new_path: &str) -> (Side, Side) {
    let fs = Arc::new(RealFileSystem);
    (
        Side::load(fs.clone(), root, Path::new(old_path), None, "old", false),
        Side::load(fs, root, Path::new(new_path), None, "new", false),
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
        // Beside each include, the partial's own text on both sides.
        let related: Vec<(Which, &str, &str)> = c
            .related
            .iter()
            .map(|r| {
                (
                    r.side,
                    r.location.file.as_str(),
                    r.location.json_pointer.as_str(),
                )
            })
            .collect();
        assert_eq!(
            related,
            [
                (Which::New, "new/partials/rules.yaml", "/0/value"),
                (Which::Old, "old/partials/rules.yaml", "/0/value"),
            ]
        );
    }
    // A behaviour change: 1.0.0 → 1.0.1 is enough for each.
    assert!(report.sufficient);
}

#[test]
fn a_contract_that_does_not_compile_is_not_compared_and_fails() {
    let dir = two_packages("1.0.0", "1.0.0");
    // The old side's `b` refers to an input it does not declare.
    write(
        &dir.path().join("old/contracts/b.yaml"),
        &contract("b", "1.0.0", "Hi").replace("inputs.name }", "inputs.nmae }"),
    );
    let (old, new) = load(dir.path());
    let report = diff(&old, &new);
    let b = report.contracts.iter().find(|v| v.name == "b").unwrap();
    assert_not_compared(b, "b", "the old version does not compile");
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
    // Nothing is concluded about the package from what was not compared.
    let package = report.package.as_ref().unwrap();
    assert_not_compared(package, "desk", "contract `b` was not compared");
    assert!(!report.sufficient);
}

#[test]
fn two_contract_files_are_one_contract_and_a_new_id_is_breaking() {
    let dir = tempfile::tempdir().unwrap();
    package(&dir.path().join("pkg"), "1.0.0", "Rules.", "Hello");
    let (a, b) = load_pair(dir.path(), "pkg/contracts/a.yaml", "pkg/contracts/b.yaml");
    let report = diff(&a, &b);
    let rules: Vec<Rule> = report.changes.iter().map(|c| c.rule).collect();
    assert_eq!(rules, [Rule::ContractIdChanged]);
    let change = &report.changes[0];
    assert_eq!(change.message, "the contract's id changed: `a` → `b`");
    assert_eq!(change.contract.as_deref(), Some("b"));
    assert_eq!(change.new.as_ref().unwrap().json_pointer, "/id");
    assert_eq!(change.old.as_ref().unwrap().file, "pkg/contracts/a.yaml");
    assert!(report.package.is_none(), "two files have no package gate");
    // The contract's own version is gated: 1.0.0 → 1.0.0 is not enough.
    let [verdict] = report.contracts.as_slice() else {
        panic!("{:?}", report.contracts)
    };
    assert_eq!(
        (verdict.name.as_str(), verdict.status),
        ("b", Status::Changed)
    );
    assert_eq!(verdict.gate.as_ref().unwrap().least, "2.0.0");
    assert!(!report.sufficient);
}

/// Writes `text` over the package file `rel` of the `new` side.
fn edit_new(root: &Path, rel: &str, text: &str) {
    write(&root.join("new").join(rel), text);
}

#[test]
fn a_side_that_does_not_load_is_not_compared_rather_than_emptied() {
    let dir = two_packages("1.0.0", "1.0.0");
    // A contract listed twice: the new manifest does not load.
    edit_new(dir.path(), "templiqx.yaml", &manifest("1.0.0", "a, b, b"));
    let (old, new) = load(dir.path());
    assert!(old.loaded() && !new.loaded());
    let report = diff(&old, &new);
    assert_eq!(report.changes, [], "no contract is reported removed");
    assert!(report.contracts.is_empty());
    assert_not_compared(
        report.package.as_ref().unwrap(),
        "desk",
        "the new version does not load",
    );
    assert!(!report.sufficient);
    let [d] = report.diagnostics.as_slice() else {
        panic!("{:?}", report.diagnostics)
    };
    assert_eq!(d.side, Which::New);
    assert_eq!(d.diagnostic.code.as_str(), "TQX_PACKAGE");
    assert_eq!(d.diagnostic.file.as_deref(), Some("new/templiqx.yaml"));
    assert_eq!(d.diagnostic.span.unwrap().start.line, 4);

    // The other way round: nothing is reported added.
    let (broken, fine) = load_pair(dir.path(), "new", "old");
    let report = diff(&broken, &fine);
    assert_eq!(report.changes, []);
    assert_eq!(
        report.package.as_ref().and_then(|p| p.reason.as_deref()),
        Some("the old version does not load")
    );
    assert!(!report.sufficient);
}

#[test]
fn a_contract_file_that_does_not_parse_is_not_compared() {
    let dir = tempfile::tempdir().unwrap();
    package(&dir.path().join("pkg"), "1.0.0", "Rules.", "Hi");
    let half = &contract("a", "1.0.0", "Hello")[..120];
    write(&dir.path().join("pkg/contracts/half.yaml"), half);
    let (a, half) = load_pair(
        dir.path(),
        "pkg/contracts/a.yaml",
        "pkg/contracts/half.yaml",
    );
    let report = diff(&a, &half);
    assert_eq!(report.changes, [], "not removed, not renamed");
    let [verdict] = report.contracts.as_slice() else {
        panic!("{:?}", report.contracts)
    };
    assert_not_compared(verdict, "a", "the new version does not compile");
    assert!(!report.sufficient);
    let codes: Vec<&str> = report
        .diagnostics
        .iter()
        .map(|d| d.diagnostic.code.as_str())
        .collect();
    assert_eq!(codes, ["TQX_PARSE_YAML"]);
}

#[test]
fn a_contract_file_declaring_another_id_is_not_compared_and_says_why() {
    let dir = two_packages("1.0.0", "1.0.0");
    edit_new(
        dir.path(),
        "contracts/b.yaml",
        &contract("a", "1.0.0", "Hi"),
    );
    let (old, new) = load(dir.path());
    let report = diff(&old, &new);
    assert_eq!(report.changes, [], "`b` is still listed: not removed");
    let b = report.contracts.iter().find(|v| v.name == "b").unwrap();
    assert_not_compared(b, "b", "the new version does not compile");
    let [d] = report.diagnostics.as_slice() else {
        panic!("{:?}", report.diagnostics)
    };
    assert_eq!(d.diagnostic.code.as_str(), "TQX_PACKAGE");
    assert_eq!(
        d.diagnostic.message,
        "contract file for `b` declares id `a`"
    );
    assert_eq!(d.diagnostic.file.as_deref(), Some("new/contracts/b.yaml"));
    assert!(!report.sufficient);
}

/// `contract` with an eval fixture that sends `name` only.
fn with_fixture(id: &str, version: &str, extra_input: &str) -> String {
    contract(id, version, "Hello").replace("inputs:\n", &format!("inputs:\n{extra_input}"))
        + "evals:\n  - id: ann\n    inputs: { name: Ann }\n"
}

#[test]
fn invalid_fixtures_do_not_hide_a_breaking_change() {
    let dir = two_packages("1.0.0", "1.0.0");
    write(
        &dir.path().join("old/contracts/a.yaml"),
        &with_fixture("a", "1.0.0", ""),
    );
    // A new required input, and the fixture not updated.
    let tenant = "  tenant: { schema: { type: string }, required: true }\n";
    edit_new(
        dir.path(),
        "contracts/a.yaml",
        &with_fixture("a", "1.0.0", tenant),
    );
    let (old, new) = load(dir.path());
    let report = diff(&old, &new);
    let rules: Vec<Rule> = report.changes.iter().map(|c| c.rule).collect();
    assert_eq!(rules, [Rule::InputFieldAddedRequired]);
    let a = report.contracts.iter().find(|v| v.name == "a").unwrap();
    assert_eq!(a.status, Status::Changed);
    assert!(!a.gate.as_ref().unwrap().sufficient);
    let fixture = report
        .diagnostics
        .iter()
        .find(|d| d.diagnostic.code.as_str() == "TQX_EVAL_INVALID")
        .expect("the fixture's problem is reported");
    assert_eq!(fixture.side, Which::New);
    assert_eq!(
        fixture.diagnostic.json_pointer.as_deref(),
        Some("/evals/0/inputs")
    );
}

#[test]
fn an_added_contract_that_does_not_compile_is_not_compared() {
    let dir = two_packages("1.0.0", "1.1.0");
    edit_new(dir.path(), "templiqx.yaml", &manifest("1.1.0", "a, b, c"));
    edit_new(
        dir.path(),
        "contracts/c.yaml",
        &contract("c", "0.1.0", "Hi").replace("inputs.name }", "inputs.nmae }"),
    );
    let (old, new) = load(dir.path());
    let report = diff(&old, &new);
    let c = report.contracts.iter().find(|v| v.name == "c").unwrap();
    assert_not_compared(c, "c", "the new version does not compile");
    assert!(
        report
            .diagnostics
            .iter()
            .any(|d| d.diagnostic.code.as_str() == "TQX_REF_UNKNOWN")
    );
    assert!(!report.sufficient);
}

#[test]
fn a_path_with_nothing_comparable_is_unusable_and_says_what_it_is() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("empty")).unwrap();
    let fs = Arc::new(RealFileSystem);
    let problem = |path: &str, absent_is_empty: bool| {
        let side = Side::load(
            fs.clone(),
            dir.path(),
            Path::new(path),
            None,
            "new",
            absent_is_empty,
        );
        assert_eq!(side.kind, Kind::Absent, "{path}");
        assert!(side.contracts.is_empty());
        side.unusable.map(|d| (d.code.as_str(), d.message))
    };
    assert_eq!(
        problem("nowhere", false),
        Some((
            "TQX_IO",
            "cannot open `nowhere`: no such file or directory".to_owned()
        ))
    );
    assert_eq!(
        problem("empty", false),
        Some((
            "TQX_IO",
            "`empty` is not a package: it holds no `templiqx.yaml`".to_owned()
        ))
    );
    // Where a side may be absent (`--base`), either is a package that is not there.
    assert_eq!(problem("nowhere", true), None);
    assert_eq!(problem("empty", true), None);
    #[cfg(unix)]
    {
        let loop_a = dir.path().join("loop-a");
        std::os::unix::fs::symlink("loop-b", &loop_a).unwrap();
        std::os::unix::fs::symlink("loop-a", dir.path().join("loop-b")).unwrap();
        let (code, message) = problem("loop-a", true).unwrap();
        assert_eq!(code, "TQX_IO");
        assert!(
            message.starts_with("`loop-a` is a loop of symbolic links"),
            "{message}"
        );
        let (_, message) = problem("/dev/null", false).unwrap();
        assert_eq!(
            message,
            "`/dev/null` is neither a regular file nor a directory (a device, a named pipe or a socket)"
        );
    }
}

#[test]
fn a_message_change_points_at_the_changed_value() {
    let dir = tempfile::tempdir().unwrap();
    package(&dir.path().join("old"), "1.0.0", "Rules.", "Hi");
    package(&dir.path().join("new"), "1.0.1", "Rules.", "Good morning,");
    let (report, change) = only_change(dir.path());
    assert_eq!(change.rule, Rule::MessageChanged);
    assert_eq!(
        change.message,
        "`/messages/1` (`user`): its text changed: \"Hi \" → \"Good morning, \""
    );
    let at = change.new.as_ref().unwrap();
    assert_eq!(at.json_pointer, "/messages/1/content/0/value");
    // `      - { kind: text, value: "Good morning, " }`, line 12.
    let span = at.span.unwrap();
    assert_eq!((span.start.line, span.start.column), (12, 30));
    assert!(report.sufficient, "a behaviour change, 1.0.0 → 1.0.1");
}

#[test]
fn a_partial_of_a_dependency_is_named_with_its_dependency() {
    let dir = tempfile::tempdir().unwrap();
    for (side, text) in [("old", "Regards"), ("new", "Kind regards")] {
        let root = dir.path().join(side);
        package(&root.join("app"), "1.0.0", "Rules.", "Hi");
        write(
            &root.join("app/templiqx.yaml"),
            &format!(
                "{}dependencies:\n  common: ../common\n",
                manifest("1.0.0", "a, b")
            ),
        );
        // `a` includes the dependency's partial itself, `b` through its own.
        let from_common = "{ kind: include, path: partials/sig.yaml, from_dependency: common }";
        write(
            &root.join("app/partials/rules.yaml"),
            &format!("- {from_common}\n"),
        );
        write(
            &root.join("app/contracts/a.yaml"),
            &contract("a", "1.0.0", "Hi")
                .replace("{ kind: include, path: partials/rules.yaml }", from_common),
        );
        write(
            &root.join("common/templiqx.yaml"),
            "api_version: templiqx/v1alpha1\npackage: common\nversion: 1.0.0\ncontracts: []\n",
        );
        write(
            &root.join("common/partials/sig.yaml"),
            &format!("- {{ kind: text, value: \"{text}\" }}\n"),
        );
    }
    let (old, new) = load_pair(dir.path(), "old/app", "new/app");
    let report = diff(&old, &new);
    assert!(
        report
            .diagnostics
            .iter()
            .all(|d| d.diagnostic.code.as_str() == "TQX_VERSION_BUMP"),
        "{:?}",
        report.diagnostics
    );
    let messages: Vec<(Option<&str>, &str)> = report
        .changes
        .iter()
        .map(|c| (c.contract.as_deref(), c.message.as_str()))
        .collect();
    assert_eq!(
        messages,
        [
            (
                Some("a"),
                "partial `partials/sig.yaml` of dependency `common` (included at /messages/0/content/0) now splices other content into the contract"
            ),
            (
                Some("b"),
                "partial `partials/rules.yaml` (included at /messages/0/content/0) now splices other content into the contract"
            ),
        ]
    );
    // For both, the dependency's partial is where the text is.
    for change in &report.changes {
        let related = &change.related[0];
        assert_eq!(related.side, Which::New);
        assert_eq!(related.location.file, "new/common/partials/sig.yaml");
        assert_eq!(related.location.json_pointer, "/0/value");
    }
}

#[test]
fn artifact_lists_name_what_was_added_and_removed() {
    let dir = two_packages("1.0.0", "1.0.0");
    let with_evals = |evals: &[String]| {
        let list: String = evals.iter().map(|e| format!("  - {e}\n")).collect();
        format!("{}evals:\n{list}", manifest("1.0.0", "a, b"))
    };
    let names = |n: std::ops::Range<usize>| -> Vec<String> {
        n.map(|i| format!("evals/a-long-shared-prefix-{i:02}.json"))
            .collect()
    };
    write(
        &dir.path().join("old/templiqx.yaml"),
        &with_evals(&names(0..10)),
    );
    write(
        &dir.path().join("new/templiqx.yaml"),
        &with_evals(&names(3..20)),
    );
    let (_, change) = only_change(dir.path());
    assert_eq!(change.rule, Rule::ArtifactsChanged);
    assert_eq!(
        change.message,
        "artifact list `evals`: added `evals/a-long-shared-prefix-10.json`, `evals/a-long-shared-prefix-11.json`, `evals/a-long-shared-prefix-12.json`, `evals/a-long-shared-prefix-13.json`, `evals/a-long-shared-prefix-14.json` … and 5 more; removed `evals/a-long-shared-prefix-00.json`, `evals/a-long-shared-prefix-01.json`, `evals/a-long-shared-prefix-02.json`"
    );
    assert_eq!(change.old.as_ref().unwrap().json_pointer, "/evals/0");
    assert_eq!(change.new.as_ref().unwrap().json_pointer, "/evals/7");
}

#[test]
fn the_package_gate_counts_every_change_and_versions_never_go_back() {
    let dir = two_packages("1.2.0", "1.2.0");
    // `b` is dropped from the new package; `a` goes back a version.
    write(
        &dir.path().join("new/templiqx.yaml"),
        &manifest("1.3.0", "a"),
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

/// An eval operator in content does not compile (`TQX_EXPR_KIND_NOT_ALLOWED`,
/// `docs/format.md`, "Where each kind is allowed"), so that version is not
/// compared; in a check it is an eval change like any other.
#[test]
fn an_eval_operator_is_compared_in_a_check_and_refused_in_content() {
    let dir = two_packages("1.0.0", "1.0.0");
    let length = "{ kind: length, of: { kind: ref, path: inputs.name } }";
    // `a` gains a check using `compare` and `length`.
    write(
        &dir.path().join("old/contracts/a.yaml"),
        &with_fixture("a", "1.0.0", ""),
    );
    edit_new(
        dir.path(),
        "contracts/a.yaml",
        &(with_fixture("a", "1.0.0", "")
            + &format!(
                "    expect:\n      - {{ id: named, check: {{ kind: compare, op: ge, left: {length}, right: {{ kind: literal, value: 1 }} }} }}\n"
            )),
    );
    // `b` interpolates a `length` in its content.
    edit_new(
        dir.path(),
        "contracts/b.yaml",
        &contract("b", "1.0.0", "Hi").replace(
            "{ kind: interpolate, expression: { kind: ref, path: inputs.name } }",
            &format!("{{ kind: interpolate, expression: {length} }}"),
        ),
    );
    let (old, new) = load(dir.path());
    let report = diff(&old, &new);
    let changes: Vec<(Rule, Option<&str>)> = report
        .changes
        .iter()
        .map(|c| (c.rule, c.contract.as_deref()))
        .collect();
    assert_eq!(changes, [(Rule::EvalChanged, Some("a"))]);
    let a = report.contracts.iter().find(|v| v.name == "a").unwrap();
    assert_eq!(a.status, Status::Changed);
    let b = report.contracts.iter().find(|v| v.name == "b").unwrap();
    assert_not_compared(b, "b", "the new version does not compile");
    let [d] = report.diagnostics.as_slice() else {
        panic!("{:?}", report.diagnostics)
    };
    assert_eq!(d.side, Which::New);
    assert_eq!(d.diagnostic.code.as_str(), "TQX_EXPR_KIND_NOT_ALLOWED");
    assert_eq!(
        d.diagnostic.json_pointer.as_deref(),
        Some("/messages/1/content/1/expression/kind")
    );
    assert!(!report.sufficient);
}

#[test]
fn a_changed_dataset_is_an_eval_change_that_needs_no_new_version() {
    // `docs/format.md`, "Datasets": the file's SHA-256 is in the contract,
    // so a row edited is a change of the eval entry, not of the interaction.
    let contract = "api_version: templiqx/v1alpha1
id: a
version: 1.0.0
inputs:
  name: { schema: { type: string }, required: true }
messages:
  - role: user
    content:
      - { kind: interpolate, expression: { kind: ref, path: inputs.name } }
output_schema: { type: object, properties: { greeting: { type: string } } }
evals:
  - id: names
    dataset: evals/names.jsonl
    case_schema: { type: object, properties: { greeting: { type: string } } }
    expect:
      - id: greets
        check: { kind: equals, left: { kind: ref, path: output.greeting }, right: { kind: ref, path: case.greeting } }
";
    let dir = tempfile::tempdir().unwrap();
    for (side, name) in [("old", "Ada"), ("new", "Grace")] {
        let root = dir.path().join(side);
        write(&root.join("templiqx.yaml"), &manifest("1.0.0", "a"));
        write(&root.join("contracts/a.yaml"), contract);
        write(
            &root.join("evals/names.jsonl"),
            &format!(
                "{{\"inputs\": {{\"name\": \"{name}\"}}, \"case\": {{\"greeting\": \"Hi {name}\"}}}}\n"
            ),
        );
    }
    let (report, change) = only_change(dir.path());
    assert_eq!(change.rule, Rule::EvalChanged, "{change:?}");
    assert_eq!(change.message, "eval fixture `names` changed");
    assert_eq!(change.class, templiqx_diff::Class::NoCompiledChange);
    // The same version on both sides is enough.
    assert!(report.sufficient, "{report:?}");
}
