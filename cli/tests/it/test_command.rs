//! `templiqx test`, run as a process.

use crate::common::*;
use predicates::prelude::*;
use std::path::Path;

/// Runs `templiqx test` over `packages` and checks that each of `lines`
/// is printed and that all `total` evals pass.
fn packages_pass(packages: &[&Path], lines: &[&str], total: usize) {
    let output = templiqx()
        .arg("test")
        .args(packages)
        .args(["--target", "structured_output"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let text = stdout(&output);
    for line in lines {
        assert!(text.lines().any(|l| l == *line), "{line}\n{text}");
    }
    let last = format!("{total} passed, 0 failed");
    assert_eq!(text.lines().last(), Some(last.as_str()), "{text}");
}

#[test]
fn the_example_packages_pass() {
    packages_pass(
        &[
            Path::new("examples/crm3"),
            Path::new("examples/packages/demo"),
        ],
        &[
            "test lease-term-extraction::fixed-term-lease ... ok",
            // Each row of the extraction's dataset is a case of its own
            // (`docs/format.md`, "Datasets").
            "test lease-term-extraction::labelled-leases#lease-0100 ... ok",
            "test lease-term-extraction::labelled-leases#lease-0123 ... ok",
            "test lease-summary-drafting::dutch-client ... ok",
            // The judge of the drafting summary's model-graded check.
            "test lease-summary-judge::invented-parking ... ok",
            "test greeting::ada ... ok",
        ],
        29,
    );
}

#[test]
fn the_external_corpus_packages_pass() {
    let Some(corpus) = external_corpus() else {
        return;
    };
    packages_pass(
        &[&corpus.join("crm3"), &corpus.join("packages/demo")],
        &[
            "test bli-61-date-term-extraction::synthetic-fixed-term ... ok",
            "test bli-62-document-drafting::synthetic-draft ... ok",
            "test greeting::ryan ... ok",
        ],
        3,
    );
}

/// CRM3 with a `fake_output` of the wrong type in the extraction's one
/// inline fixture; its dataset entry (the contract's last) left out, so
/// the cases are the three fixtures.
fn broken_example(dir: &Path) {
    templiqx_conformance_suites::copy_tree(&repo().join("examples/crm3"), dir);
    let path = dir.join("contracts/lease-term-extraction.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let cut = text
        .find("  # Synthetic clauses")
        .expect("the dataset entry");
    let text = text[..cut].to_owned();
    let broken = text.replace("      notice_days: 60\n", "      notice_days: \"sixty\"\n");
    assert_ne!(text, broken);
    std::fs::write(&path, broken).unwrap();
}

#[test]
fn a_broken_fake_output_fails_its_fixture_only() {
    let dir = tempfile::tempdir().unwrap();
    broken_example(dir.path());
    let output = templiqx_in(dir.path())
        .args(["test", ".", "--target", "structured_output"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    insta::assert_snapshot!(stdout(&output), @r#"
    test lease-term-extraction::fixed-term-lease ... FAILED
    test lease-summary-drafting::dutch-client ... ok
    test lease-summary-judge::faithful-dutch-summary ... ok
    test lease-summary-judge::invented-parking ... ok

    failures:

    ---- lease-term-extraction::fixed-term-lease ----
    error[TQX_EVAL_INVALID]: `fake_output` of eval `fixed-term-lease` is invalid at /notice_days: expected integer, found string "sixty"
       --> contracts/lease-term-extraction.yaml:110:20
        |
    110 |       notice_days: "sixty"
        |                    ^^^^^^^
        |
        = help: fix the value to satisfy `type`
        = note: at /evals/0/fake_output/notice_days

    3 passed, 1 failed
    "#);
}

/// A row of a dataset that does not fit the contract fails its entry's
/// case, with the diagnostic in the data file at the row's line
/// (`docs/format.md`, "Datasets"); the contract's other fixtures still run.
#[test]
fn a_bad_dataset_row_fails_its_entry_with_the_rows_line() {
    let dir = tempfile::tempdir().unwrap();
    templiqx_conformance_suites::copy_tree(&repo().join("examples/crm3"), dir.path());
    let path = dir.path().join("evals/labelled-leases.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let broken = text.replacen(
        "\"notice_days\": 30}, \"fake_output\"",
        "\"notice_days\": -30}, \"fake_output\"",
        1,
    );
    assert_ne!(text, broken);
    std::fs::write(&path, &broken).unwrap();
    let output = templiqx_in(dir.path())
        .args(["test", ".", "--target", "structured_output"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let out = stdout(&output);
    // The diagnostic points at the value in the row's line, and shows it
    // underlined in a snippet of the data file.
    let first = broken.lines().next().unwrap();
    let byte = first.find("-30}, \"fake_output\"").unwrap();
    let at = format!(
        "--> evals/labelled-leases.jsonl:1:{}",
        first[..byte].chars().count() + 1
    );
    for line in [
        "test lease-term-extraction::fixed-term-lease ... ok",
        "test lease-term-extraction::labelled-leases ... FAILED",
        "test lease-summary-drafting::dutch-client ... ok",
        at.as_str(),
        "4 passed, 1 failed",
    ] {
        assert!(out.lines().any(|l| l.trim() == line), "{line}\n{out}");
    }
    assert!(
        out.lines()
            .any(|l| l.starts_with("1 | ") && l.contains("\"notice_days\": -30}")),
        "{out}"
    );
    // `-30`, underlined.
    assert!(
        out.lines().any(|l| {
            let l = l.trim();
            l.starts_with('|') && l.ends_with(" ^^^") && l[1..l.len() - 3].trim().is_empty()
        }),
        "{out}"
    );
    assert!(
        out.contains("error[TQX_EVAL_INVALID]: row `lease-0100` (line 1) of `evals/labelled-leases.jsonl` at /case/notice_days has an invalid `case`"),
        "{out}"
    );
}

/// A fixture id holding an escape sequence (refused by the compiler, so
/// its case fails) is printed with the sequence escaped: the terminal
/// shows the id, it does not act on it.
#[test]
fn a_fixture_id_with_a_control_character_is_shown_escaped() {
    let dir = tempfile::tempdir().unwrap();
    templiqx_conformance_suites::copy_tree(&repo().join("examples/crm3"), dir.path());
    let path = dir.path().join("contracts/lease-term-extraction.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let broken = text.replace(
        "  - id: fixed-term-lease\n",
        "  - id: \"fixed\\e[31m-term-lease\"\n",
    );
    assert_ne!(text, broken);
    std::fs::write(&path, broken).unwrap();
    let output = templiqx_in(dir.path())
        .args(["test", ".", "--target", "structured_output"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let out = stdout(&output);
    assert!(!out.contains('\u{1b}'), "{out}");
    assert!(
        out.contains("test lease-term-extraction::fixed\\u{1b}[31m-term-lease ... FAILED"),
        "{out}"
    );
}

#[test]
fn json_reports_each_case() {
    let dir = tempfile::tempdir().unwrap();
    broken_example(dir.path());
    let output = templiqx_in(dir.path())
        .args([
            "test",
            ".",
            "--target",
            "structured_output",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let env = &envelopes(&output)[0];
    assert_envelope(env, "test");
    assert_eq!(env["ok"], false);
    assert_eq!(env["result"]["passed"], 3);
    assert_eq!(env["result"]["failed"], 1);
    assert_eq!(
        env["result"]["cases"],
        serde_json::json!([
            {"contract": "lease-term-extraction", "fixture": "fixed-term-lease", "ok": false},
            {"contract": "lease-summary-drafting", "fixture": "dutch-client", "ok": true},
            {"contract": "lease-summary-judge", "fixture": "faithful-dutch-summary", "ok": true},
            {"contract": "lease-summary-judge", "fixture": "invented-parking", "ok": true},
        ])
    );
    assert_eq!(codes(env), ["TQX_EVAL_INVALID"]);
}

#[test]
fn a_fixture_that_fails_to_render_points_at_the_node_and_names_the_fixture() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("nick.yaml"),
        "\
api_version: templiqx/v1alpha1
id: nick
version: 0.1.0
inputs:
  nickname: { schema: { type: string }, required: false }
messages:
  - role: user
    content:
      - kind: interpolate
        expression: { kind: ref, path: inputs.nickname }
output_schema: { type: object }
evals:
  - id: with-nickname
    inputs: { nickname: Bo }
    fake_output: {}
  - id: without-nickname
    inputs: {}
",
    )
    .unwrap();
    templiqx_in(dir.path())
        .args(["test", "nick.yaml", "--target", ""])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("test nick::with-nickname ... ok"))
        .stdout(predicate::str::contains(
            "test nick::without-nickname ... FAILED",
        ))
        .stdout(predicate::str::contains("error[TQX_VALUE_MISSING]"))
        // The contract node that failed, and the fixture whose request it was.
        .stdout(predicate::str::contains("--> nick.yaml:9:9"))
        .stdout(predicate::str::contains(
            "= note: the value is at `/inputs/nickname` in the request",
        ))
        .stdout(predicate::str::contains(
            "= note: rendering eval fixture `without-nickname` (/evals/1)",
        ))
        .stdout(predicate::str::contains(
            "= note: at /messages/0/content/0\n",
        ))
        .stdout(predicate::str::ends_with("1 passed, 1 failed\n"));
}

#[test]
fn a_contract_that_does_not_compile_counts_as_one_failure() {
    templiqx()
        .args(["test", "examples/crm3", "--target", "tools"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "test lease-term-extraction ... FAILED",
        ))
        .stdout(predicate::str::contains("TQX_CAPABILITY_UNSUPPORTED"))
        .stdout(predicate::str::ends_with("0 passed, 3 failed\n"));
}

#[test]
fn a_directory_without_a_manifest_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    templiqx_in(dir.path())
        .args(["test", ".", "--target", "structured_output"])
        .assert()
        .code(2)
        .stdout(predicate::str::contains("error[TQX_IO]"))
        .stdout(predicate::str::ends_with("0 passed, 0 failed\n"));
}
