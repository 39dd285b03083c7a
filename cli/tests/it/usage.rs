//! Usage errors, help and version.

use crate::common::*;
use predicates::prelude::*;

#[test]
fn usage_errors_exit_2() {
    for args in [
        &[][..],
        &["frobnicate"],
        &["check", "."],
        &["test", "examples/crm3"],
        &["render", "c.yaml", "--target", "x"],
        &["render", "c.yaml", "--request", "r.json"],
        &["fingerprint"],
        &["check", ".", "--target", "x", "--format", "yaml"],
        &["check", ".", "--target", "x", "--color", "sometimes"],
        &["schema", "extra"],
        &["scenarios"],
        &["scenarios", "run"],
        &["scenarios", "run", "inventory.json"],
        &[
            "scenarios",
            "run",
            "i.json",
            "-t",
            "x",
            "--receipts",
            "http",
        ],
        &["scenarios", "frobnicate"],
    ] {
        let output = templiqx().args(args).output().unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}: {output:?}");
        assert!(output.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn a_missing_target_says_there_is_no_default() {
    templiqx()
        .args(["check", "examples/crm3"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--target <CAP,...>"));
}

#[test]
fn help_and_version_succeed() {
    templiqx()
        .arg("--help")
        .assert()
        .success()
        .stdout(predicate::str::contains("check"))
        .stdout(predicate::str::contains("Exit status"));
    templiqx()
        .arg("--version")
        .assert()
        .success()
        .stdout(predicate::str::starts_with("templiqx "));
    for command in [
        "check",
        "render",
        "fingerprint",
        "test",
        "schema",
        "scenarios",
    ] {
        templiqx().args([command, "--help"]).assert().success();
    }
    templiqx()
        .args(["scenarios", "run", "--help"])
        .assert()
        .success()
        .stdout(predicate::str::contains("--receipts <MODE>"))
        .stdout(predicate::str::contains("in-process"))
        .stdout(predicate::str::contains("transport"));
}

#[test]
fn color_always_colours_and_never_does_not() {
    let run = |color: &str| {
        templiqx()
            .args(["check", "examples/packages/demo"])
            .args(["--target", "tools", "--color", color])
            .output()
            .unwrap()
    };
    assert!(stdout(&run("always")).contains("\u{1b}["));
    assert!(!stdout(&run("never")).contains("\u{1b}["));
    // Not a terminal: no colour by default.
    assert!(!stdout(&run("auto")).contains("\u{1b}["));
}

#[test]
fn json_output_is_never_coloured() {
    let output = templiqx()
        .args(["check", "examples/packages/demo"])
        .args(["--target", "tools", "--color", "always", "--format", "json"])
        .output()
        .unwrap();
    assert!(!stdout(&output).contains("\u{1b}["));
    assert_envelope(&envelopes(&output)[0], "check");
}
