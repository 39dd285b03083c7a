//! `templiqx fingerprint`, run as a process.

use crate::common::*;
use predicates::prelude::*;

/// The example extraction output's fingerprint, as the example inventory
/// states it for `lease-happy-path`.
const EXTRACTION_OUTPUT: &str = "85433278e03f0bb43c399c4025709b5cb0397e0f8d5f85ee3351e1c8333edf60";
const EXTRACTION_OUTPUT_FILE: &str = "examples/crm3/evals/extraction-output.json";

#[test]
fn prints_the_fingerprint_of_the_example_output() {
    templiqx()
        .args(["fingerprint", EXTRACTION_OUTPUT_FILE])
        .assert()
        .success()
        .stdout(format!("{EXTRACTION_OUTPUT}\n"));
}

#[test]
fn prints_the_fingerprint_the_external_corpus_pins() {
    let Some(corpus) = external_corpus() else {
        return;
    };
    templiqx()
        .arg("fingerprint")
        .arg(corpus.join("crm3/evals/bli-61-output.json"))
        .assert()
        .success()
        .stdout("66d6c3fbb03611b4b22deabbe9ef669e5ad69f59c1e90be4dee92d9c3a5188de\n");
}

#[test]
fn canonical_prints_the_bytes_that_are_fingerprinted() {
    let output = templiqx()
        .args(["fingerprint", "--canonical", EXTRACTION_OUTPUT_FILE])
        .output()
        .unwrap();
    assert!(output.status.success());
    let bytes = &output.stdout;
    assert_eq!(
        templiqx_contracts::canonical::sha256_hex(bytes),
        EXTRACTION_OUTPUT
    );
    let text = std::str::from_utf8(bytes).unwrap();
    assert!(text.starts_with(r#"{"end_date":"2027-02-28","evidence":[{"document_id":"LEASE-0007","end_offset":30,"field":"start_date","#), "{text}");
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
fn integers_of_any_size_fingerprint_with_their_own_digits() {
    // Beyond 64 bits, both signs, and past `f64::MAX`: read exactly, never
    // rounded to a double and never refused.
    let huge = "9".repeat(400);
    for literal in [
        "100000000000000000001".to_owned(),
        "-100000000000000000001".to_owned(),
        huge.clone(),
    ] {
        let canonical = format!(r#"{{"values":[{literal}]}}"#);
        let fingerprint = templiqx_contracts::canonical::sha256_hex(canonical.as_bytes());
        let text = format!(r#"{{"values": [ {literal} ]}}"#);
        templiqx()
            .args(["fingerprint", "--canonical", "-"])
            .write_stdin(text.clone())
            .assert()
            .success()
            .stdout(canonical.clone());
        templiqx()
            .args(["fingerprint", "-"])
            .write_stdin(text)
            .assert()
            .success()
            .stdout(format!("{fingerprint}\n"));
    }
    // The neighbour of 10^20 is not 10^20, which is the double 1e20.
    let fp = |text: &'static str| {
        let out = templiqx()
            .args(["fingerprint", "-"])
            .write_stdin(text)
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    assert_ne!(fp("[100000000000000000001]"), fp("[100000000000000000000]"));
    assert_eq!(fp("[100000000000000000000]"), fp("[1e20]"));
}

#[test]
fn json_envelope_carries_the_fingerprint() {
    let output = templiqx()
        .args(["--format", "json", "fingerprint", EXTRACTION_OUTPUT_FILE])
        .output()
        .unwrap();
    assert!(output.status.success());
    let env = &envelopes(&output)[0];
    assert_envelope(env, "fingerprint");
    assert_eq!(env["ok"], true);
    assert_eq!(env["result"], EXTRACTION_OUTPUT);
    assert_eq!(env["fingerprints"]["value"], EXTRACTION_OUTPUT);
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
      = help: write exactly one well-formed JSON value (RFC 8259)

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
fn text_that_is_not_utf8_is_a_located_parse_error_with_exit_1() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("latin1.json"),
        b"{\n  \"a\": \"caf\xe9\"\n}\n",
    )
    .unwrap();
    let output = templiqx_in(dir.path())
        .args(["fingerprint", "latin1.json"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    insta::assert_snapshot!(stdout(&output), @r#"
    error[TQX_PARSE_JSON]: invalid JSON: the text is not UTF-8: invalid byte 0xE9
     --> latin1.json:2:12
      |
    2 |   "a": "caf
      |            ^
      |
      = help: save the file as UTF-8 (convert it, e.g. with `iconv -f <its encoding> -t UTF-8`): Templiqx reads YAML and JSON as UTF-8 only

    error: could not fingerprint `latin1.json`
    "#);
    // Standard input too, and in JSON.
    let output = templiqx()
        .args(["fingerprint", "-", "--format", "json"])
        .write_stdin(&b"[1,\r\xff]"[..])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let env = &envelopes(&output)[0];
    assert_eq!(codes(env), ["TQX_PARSE_JSON"]);
    assert_eq!(env["diagnostics"][0]["file"], "<stdin>");
    assert_eq!(
        env["diagnostics"][0]["span"]["start"],
        serde_json::json!({"line": 2, "column": 1})
    );
}

#[test]
fn a_byte_order_mark_does_not_change_the_fingerprint() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("plain.json"), "{\"b\": 1, \"a\": \"é\"}").unwrap();
    std::fs::write(
        dir.path().join("bom.json"),
        "\u{feff}{\"b\": 1, \"a\": \"é\"}",
    )
    .unwrap();
    let fingerprint = |args: &[&str], stdin: Option<&str>| {
        let mut cmd = templiqx_in(dir.path());
        cmd.arg("fingerprint").args(args);
        if let Some(text) = stdin {
            cmd.write_stdin(text);
        }
        let output = cmd.output().unwrap();
        assert!(output.status.success(), "{args:?}: {output:?}");
        stdout(&output)
    };
    let plain = fingerprint(&["plain.json"], None);
    assert_eq!(fingerprint(&["bom.json"], None), plain);
    assert_eq!(
        fingerprint(&["-"], Some("\u{feff}{\"a\": \"é\", \"b\": 1}")),
        plain
    );
    // A byte order mark is not a column: errors keep their position.
    std::fs::write(dir.path().join("bad.json"), "\u{feff}{\"a\": 1,}").unwrap();
    templiqx_in(dir.path())
        .args(["fingerprint", "bad.json"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(" --> bad.json:1:9\n"))
        .stdout(predicate::str::contains("1 | {\"a\": 1,}\n  |         ^\n"));
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
