//! `templiqx diff --base REV`: a package read as it was at a git revision,
//! through git, in a repository each test creates (`docs/diff.md`, "In
//! CI"). Git runs with the test repository's own identity and without the
//! user's or the system's configuration.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use templiqx_build::{FileSystem, RealFileSystem};
use templiqx_conformance_suites::git;
use templiqx_diff::git::{GitError, GitFileSystem};
use templiqx_diff::{Kind, Rule, Side, Status, diff};

/// A new repository in a temporary directory (canonical path).
fn repository() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    git(&root, &["init", "-q", "-b", "main"]);
    git(&root, &["config", "user.name", "Templiqx Test"]);
    git(&root, &["config", "user.email", "test@templiqx.invalid"]);
    git(&root, &["config", "commit.gpgsign", "false"]);
    (dir, root)
}

fn commit(root: &Path, message: &str) {
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", message]);
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

const MANIFEST: &str =
    "api_version: templiqx/v1alpha1\npackage: letters\nversion: 0.3.0\ncontracts: [letter]\n";

fn contract(version: &str, extra_input: &str) -> String {
    format!(
        "api_version: templiqx/v1alpha1
id: letter
version: {version}
inputs:
  name: {{ schema: {{ type: string }}, required: true }}
{extra_input}messages:
  - role: system
    content:
      - {{ kind: include, path: partials/tone.yaml }}
  - role: user
    content:
      - {{ kind: interpolate, expression: {{ kind: ref, path: inputs.name }} }}
output_schema: {{ type: object }}
"
    )
}

fn package(root: &Path, version: &str, extra_input: &str, tone: &str) {
    let pkg = root.join("pkgs/letters");
    write(
        &pkg.join("templiqx.yaml"),
        &MANIFEST.replace("0.3.0", version),
    );
    write(
        &pkg.join("contracts/letter.yaml"),
        &contract(version, extra_input),
    );
    write(
        &pkg.join("partials/tone.yaml"),
        &format!("- {{ kind: text, value: \"{tone}\" }}\n"),
    );
}

fn sides(root: &Path, rev: &str) -> (Side, Side) {
    let pkg = root.join("pkgs/letters");
    let fs = Arc::new(GitFileSystem::open(&pkg, rev).expect("the revision opens"));
    let old = Side::load(fs, root, Path::new("pkgs/letters"), None, rev, true);
    let new = Side::load(
        Arc::new(RealFileSystem),
        root,
        Path::new("pkgs/letters"),
        None,
        "working tree",
        false,
    );
    (old, new)
}

#[test]
fn a_package_is_compared_with_itself_at_a_revision() {
    let (_dir, root) = repository();
    package(&root, "0.3.0", "", "Be brief.");
    commit(&root, "letters 0.3.0");
    // The working tree: a new required input, another tone, same version.
    package(
        &root,
        "0.3.0",
        "  tenant: { schema: { type: string }, required: true }\n",
        "Be brief and formal.",
    );
    let (old, new) = sides(&root, "HEAD");
    assert_eq!((old.kind, new.kind), (Kind::Package, Kind::Package));
    let report = diff(&old, &new);
    let rules: Vec<Rule> = report.changes.iter().map(|c| c.rule).collect();
    assert_eq!(rules, [Rule::InputFieldAddedRequired, Rule::PartialChanged]);
    // Both sides name the same file; each side's span is in its own text.
    let added = &report.changes[0];
    let (o, n) = (added.old.as_ref().unwrap(), added.new.as_ref().unwrap());
    assert_eq!(o.file, "pkgs/letters/contracts/letter.yaml");
    assert_eq!(n.file, o.file);
    assert_eq!(
        (o.json_pointer.as_str(), n.json_pointer.as_str()),
        ("/inputs", "/inputs/tenant/required")
    );
    assert_eq!(n.span.unwrap().start.line, 6);
    let line = o.span.unwrap().start.line as usize;
    assert_eq!(
        old.source(&o.file).unwrap().lines().nth(line - 1),
        Some("inputs:"),
        "the old span is in the committed text"
    );
    assert!(!old.source(&o.file).unwrap().contains("tenant"));
    // 0.3.0 → 0.3.0 with a breaking change: 0.4.0 is needed.
    assert!(!report.sufficient);
    let gate = report.contracts[0].gate.as_ref().unwrap();
    assert_eq!((gate.least.as_str(), gate.sufficient), ("0.4.0", false));
    let codes: Vec<&str> = report
        .diagnostics
        .iter()
        .map(|d| d.diagnostic.code.as_str())
        .collect();
    assert_eq!(codes, ["TQX_VERSION_BUMP", "TQX_VERSION_BUMP"]);

    // Bumped to 0.4.0 (contract and package), the gate passes.
    package(
        &root,
        "0.4.0",
        "  tenant: { schema: { type: string }, required: true }\n",
        "Be brief and formal.",
    );
    let (old, new) = sides(&root, "HEAD");
    let report = diff(&old, &new);
    assert!(report.sufficient, "{:?}", report.diagnostics);
    assert!(report.diagnostics.is_empty());
}

#[test]
fn a_package_missing_at_the_revision_is_new() {
    let (_dir, root) = repository();
    write(&root.join("README.md"), "nothing yet\n");
    commit(&root, "empty");
    package(&root, "0.1.0", "", "Hi.");
    let (old, new) = sides(&root, "main");
    assert_eq!(old.kind, Kind::Absent);
    assert!(old.problems.is_empty());
    let report = diff(&old, &new);
    let rules: Vec<Rule> = report.changes.iter().map(|c| c.rule).collect();
    assert_eq!(rules, [Rule::ContractAdded]);
    assert_eq!(report.contracts[0].status, Status::Added);
    assert!(report.sufficient);
}

#[test]
fn files_are_read_from_the_revision_with_its_links_and_directories() {
    let (_dir, root) = repository();
    write(&root.join("a/b.txt"), "committed\n");
    #[cfg(unix)]
    std::os::unix::fs::symlink("a/b.txt", root.join("link.txt")).unwrap();
    commit(&root, "files");
    write(&root.join("a/b.txt"), "edited\n");
    write(&root.join("a/new.txt"), "untracked\n");
    let fs = GitFileSystem::open(&root, "HEAD").unwrap();
    assert_eq!(fs.read(&root.join("a/b.txt")).unwrap(), b"committed\n");
    assert_eq!(fs.read(&root.join("a/../a/b.txt")).unwrap(), b"committed\n");
    assert!(fs.is_dir(&root.join("a")) && fs.is_dir(&root));
    assert!(fs.is_file(&root.join("a/b.txt")) && !fs.is_file(&root.join("a")));
    let missing = fs.read(&root.join("a/new.txt")).unwrap_err();
    assert_eq!(missing.kind(), std::io::ErrorKind::NotFound);
    assert!(fs.read(&root.join("a")).is_err());
    assert!(!fs.exists(&root.join("../elsewhere")));
    #[cfg(unix)]
    {
        assert_eq!(fs.read(&root.join("link.txt")).unwrap(), b"committed\n");
        assert_eq!(
            fs.canonicalize(&root.join("link.txt")).unwrap(),
            root.join("a/b.txt")
        );
    }
    assert_eq!(fs.commit().len(), 40);
    assert_eq!(fs.revision(), "HEAD");
}

#[test]
fn a_dataset_is_streamed_from_the_revision_and_its_change_is_an_eval_change() {
    let (_dir, root) = repository();
    package(&root, "0.3.0", "", "Be brief.");
    let pkg = root.join("pkgs/letters");
    let path = pkg.join("contracts/letter.yaml");
    let with_dataset = format!(
        "{}evals:\n  - id: names\n    dataset: evals/names.jsonl\n",
        std::fs::read_to_string(&path).unwrap()
    );
    write(&path, &with_dataset);
    write(
        &pkg.join("evals/names.jsonl"),
        "{\"inputs\": {\"name\": \"Ada\"}}\n",
    );
    commit(&root, "a dataset");
    write(
        &pkg.join("evals/names.jsonl"),
        "{\"inputs\": {\"name\": \"Grace\"}}\n",
    );

    // The revision's bytes, as a stream (`docs/format.md`, "Datasets").
    let fs = GitFileSystem::open(&root, "HEAD").unwrap();
    let mut committed = String::new();
    std::io::Read::read_to_string(
        &mut fs.open(&pkg.join("evals/names.jsonl")).unwrap(),
        &mut committed,
    )
    .unwrap();
    assert_eq!(committed, "{\"inputs\": {\"name\": \"Ada\"}}\n");
    assert!(fs.open(&pkg.join("evals")).is_err());

    // The edited row is an eval change of the contract, no more.
    let (old, new) = sides(&root, "HEAD");
    let report = diff(&old, &new);
    let rules: Vec<Rule> = report.changes.iter().map(|c| c.rule).collect();
    assert_eq!(rules, [Rule::EvalChanged], "{report:?}");
    assert!(report.sufficient);
}

#[test]
fn an_unknown_revision_or_a_directory_outside_a_repository_is_refused() {
    let (_dir, root) = repository();
    write(&root.join("x.txt"), "x\n");
    commit(&root, "x");
    assert!(matches!(
        GitFileSystem::open(&root, "no-such-branch"),
        Err(GitError::UnknownRevision(r)) if r == "no-such-branch"
    ));
    let outside = tempfile::tempdir().unwrap();
    assert!(matches!(
        GitFileSystem::open(outside.path(), "HEAD"),
        Err(GitError::NotARepository(_))
    ));
}

/// The CRM3 example's own history, revision against revision: the commit
/// that gave its eval fixtures typed `expect` checks changed fixtures only,
/// which needs no version bump. Skipped (with a line saying so) in a clone
/// without those commits.
#[test]
fn the_crm3_history_changed_only_eval_fixtures() {
    const BEFORE: &str = "090a117";
    const AFTER: &str = "32d6260";
    let repo = std::fs::canonicalize(Path::new(env!("CARGO_MANIFEST_DIR")).join("..")).unwrap();
    let crm3 = repo.join("examples/crm3");
    let (Ok(before), Ok(after)) = (
        GitFileSystem::open(&crm3, BEFORE),
        GitFileSystem::open(&crm3, AFTER),
    ) else {
        eprintln!("skipped: commits {BEFORE} and {AFTER} are not in this clone");
        return;
    };
    let rel = Path::new("examples/crm3");
    let old = Side::load(Arc::new(before), &repo, rel, None, BEFORE, false);
    let new = Side::load(Arc::new(after), &repo, rel, None, AFTER, false);
    assert_eq!((old.contracts.len(), new.contracts.len()), (2, 2));
    let report = diff(&old, &new);
    let changes: Vec<(Rule, Option<&str>)> = report
        .changes
        .iter()
        .map(|c| (c.rule, c.contract.as_deref()))
        .collect();
    assert_eq!(
        changes,
        [
            (Rule::EvalChanged, Some("lease-term-extraction")),
            (Rule::EvalChanged, Some("lease-summary-drafting")),
        ]
    );
    assert!(report.sufficient);
    assert!(report.diagnostics.is_empty(), "{:?}", report.diagnostics);
}
