//! `templiqx fingerprint`, run as a process.

mod common;

use common::*;
use predicates::prelude::*;

const BLI_61_OUTPUT: &str = "66d6c3fbb03611b4b22deabbe9ef669e5ad69f59c1e90be4dee92d9c3a5188de";

#[test]
fn prints_the_fingerprint_of_the_corpus_output() {
    templiqx()
        .arg("fingerprint")
        .arg(corpus().join("crm3/evals/bli-61-output.json"))
        .assert()
        .success()
        .stdout(format!("{BLI_61_OUTPUT}\n"));
}

#[test]
fn canonical_prints_the_bytes_that_are_fingerprinted() {
    let output = templiqx()
        .args(["fingerprint", "--canonical"])
        .arg(corpus().join("crm3/evals/bli-61-output.json"))
        .output()
        .unwrap();
    assert!(output.status.success());
    let bytes = &output.stdout;
    assert_eq!(
        templiqx_contracts::canonical::sha256_hex(bytes),
        BLI_61_OUTPUT
    );
    let text = std::str::from_utf8(bytes).unwrap();
    assert!(text.starts_with(r#"{"effective_date":"2026-09-01","end_date":"2027-08-31","evidence":[{"document_id":"SYN-DOC-0001","end_offset":43,"#), "{text}");
    assert!(!text.ends_with('\n'));
}

#[test]
fn canonical_form_follows_rfc_8785() {
    templiqx()
        .args(["fingerprint", "--canonical", "-"])
        .write_stdin("{\"b\": 1.0, \"a\": [1e21, -0.0, \"\\u00e9\\n\"], \"big\": 9007199254740993}")
        .assert()
        .success()
        .stdout(r#"{"a":[1e+21,0,"é\n"],"b":1,"big":9007199254740993}"#);
}

#[test]
fn json_envelope_carries_the_fingerprint() {
    let output = templiqx()
        .args(["--format", "json", "fingerprint"])
        .arg(corpus().join("crm3/evals/bli-61-output.json"))
        .output()
        .unwrap();
    assert!(output.status.success());
    let env = &envelopes(&output)[0];
    assert_envelope(env, "fingerprint");
    assert_eq!(env["ok"], true);
    assert_eq!(env["result"], BLI_61_OUTPUT);
    assert_eq!(env["fingerprints"]["value"], BLI_61_OUTPUT);
}

#[test]
fn bad_json_is_located_and_fails_with_exit_1() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("bad.json"), "{\n  \"a\": [1, 2,]\n}\n").unwrap();
    let output = templiqx_in(dir.path())
        .args(["fingerprint", "bad.json"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    insta::assert_snapshot!(stdout(&output), @r#"
    error[TQX_PARSE_JSON]: invalid JSON: trailing comma
     --> bad.json:2:14
      |
    2 |   "a": [1, 2,]
      |              ^
      |
      = help: the file must hold exactly one JSON value (RFC 8259)

    error: could not fingerprint `bad.json`
    "#);
}

#[test]
fn duplicate_keys_are_errors_not_silently_dropped() {
    templiqx()
        .args(["fingerprint", "-"])
        .write_stdin("{\"a\": 1, \"a\": 2}")
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "error[TQX_PARSE_JSON]: invalid JSON: duplicate key `a` in an object",
        ))
        .stdout(predicate::str::contains("--> <stdin>:1:"));
}

#[test]
fn missing_files_and_directories_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    for path in ["absent.json", "."] {
        templiqx_in(dir.path())
            .args(["fingerprint", path])
            .assert()
            .code(2)
            .stdout(predicate::str::contains("error[TQX_IO]"));
    }
}
