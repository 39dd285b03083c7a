//! `templiqx check`, run as a process.

use crate::common::*;
use predicates::prelude::*;

#[test]
fn the_example_packages_pass_with_structured_output() {
    templiqx()
        .args(["check", "examples/packages/demo", "examples/crm3"])
        .args(["--target", "structured_output"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "Checked greeting v0.1.0 (examples/packages/demo/contracts/greeting.yaml)",
        ))
        .stdout(predicate::str::contains(
            "Checked lease-term-extraction v0.1.0",
        ))
        .stdout(predicate::str::contains(
            "Checked lease-summary-drafting v0.1.0 (examples/crm3/contracts/lease-summary-drafting.yaml)",
        ))
        .stdout(predicate::str::contains("error").not());
}

#[test]
fn the_external_corpus_packages_pass_with_structured_output() {
    let Some(corpus) = external_corpus() else {
        return;
    };
    templiqx()
        .arg("check")
        .arg(corpus.join("packages/demo"))
        .arg(corpus.join("crm3"))
        .args(["--target", "structured_output"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Checked greeting v0.1.0"))
        .stdout(predicate::str::contains(
            "Checked bli-61-date-term-extraction v0.1.0",
        ))
        .stdout(predicate::str::contains(
            "Checked bli-62-document-drafting v0.1.0",
        ))
        .stdout(predicate::str::contains("error").not());
}

#[test]
fn without_the_capability_check_fails_with_capability_unsupported() {
    for package in ["packages/demo", "crm3"] {
        let output = templiqx()
            .arg("check")
            .arg(examples().join(package))
            .args(["--target", "tools", "--format", "json"])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1), "{package}");
        let envs = envelopes(&output);
        assert_eq!(envs.len(), 1);
        assert_envelope(&envs[0], "check");
        assert_eq!(envs[0]["ok"], false);
        let codes = codes(&envs[0]);
        assert!(!codes.is_empty());
        assert!(
            codes.iter().all(|c| c == "TQX_CAPABILITY_UNSUPPORTED"),
            "{codes:?}"
        );
    }
}

#[test]
fn human_capability_error_shows_the_requirement_in_context() {
    templiqx_in(&examples().join("packages/demo"))
        .args(["check", ".", "--target", "tools"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "error[TQX_CAPABILITY_UNSUPPORTED]: the target profile lacks capability `structured_output`",
        ))
        .stdout(predicate::str::contains(" --> contracts/greeting.yaml:"))
        .stdout(predicate::str::contains(
            "error: could not check `greeting` (contracts/greeting.yaml) due to 1 previous error",
        ));
}

const BROKEN: &str = "\
api_version: templiqx/v1alpha1
id: greeting
version: 0.1.0
inputs:
  name: { schema: { type: string }, required: true }
capabilities: [structured_output]
messages:
  - role: user
    content:
      - kind: interpolate
        expression: { kind: ref, path: inputs.nmae }
output_schema: { type: object }
";

#[test]
fn a_broken_contract_prints_a_snippet_with_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("broken.yaml"), BROKEN).unwrap();
    let output = templiqx_in(dir.path())
        .args(["check", "broken.yaml", "--target", "structured_output"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    insta::assert_snapshot!(stdout(&output), @r"
    error[TQX_REF_UNKNOWN]: `inputs` declares no field `nmae`
      --> broken.yaml:11:40
       |
    11 |         expression: { kind: ref, path: inputs.nmae }
       |                                        ^^^^^^^^^^^
       |
       = help: did you mean `inputs.name`?
       = note: at /messages/0/content/0/expression/path

    error: could not check `greeting` (broken.yaml) due to 1 previous error
    ");
}

#[test]
fn every_problem_of_a_contract_is_reported_in_json_with_its_location() {
    let dir = tempfile::tempdir().unwrap();
    let text = BROKEN.replace("role: user", "role: usr");
    std::fs::write(dir.path().join("broken.yaml"), text).unwrap();
    let output = templiqx_in(dir.path())
        .args([
            "check",
            "broken.yaml",
            "-t",
            "structured_output",
            "--format=json",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let env = &envelopes(&output)[0];
    assert_envelope(env, "check");
    let d = &env["diagnostics"][0];
    assert_eq!(d["code"], "TQX_UNKNOWN_VARIANT");
    assert_eq!(d["file"], "broken.yaml");
    assert_eq!(d["json_pointer"], "/messages/0/role");
    assert_eq!(
        d["span"]["start"],
        serde_json::json!({"line": 8, "column": 11})
    );
    assert_eq!(env["result"]["contracts"][0]["ok"], false);
}

#[test]
fn json_envelopes_carry_fingerprints_per_input() {
    let output = templiqx()
        .args([
            "check",
            "examples/crm3",
            "examples/packages/demo/contracts/greeting.yaml",
        ])
        .args(["--target", "structured_output", "--format", "json"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let envs = envelopes(&output);
    assert_eq!(envs.len(), 2, "one envelope per input");
    for env in &envs {
        assert_envelope(env, "check");
        assert_eq!(env["ok"], true);
    }
    let package = &envs[0];
    assert_eq!(package["result"]["package"]["name"], "crm3-example");
    assert_eq!(
        package["fingerprints"]["package"].as_str().unwrap().len(),
        64
    );
    let contracts = package["result"]["contracts"].as_array().unwrap();
    assert_eq!(contracts.len(), 3);
    for c in contracts {
        assert_eq!(c["ok"], true);
        assert_eq!(c["fingerprints"]["contract"].as_str().unwrap().len(), 64);
        assert_eq!(c["fingerprints"]["interaction"].as_str().unwrap().len(), 64);
    }
    let file = &envs[1];
    assert_eq!(file["result"]["contracts"][0]["id"], "greeting");
    assert_eq!(file["fingerprints"]["contract"].as_str().unwrap().len(), 64);
    assert_eq!(
        file["fingerprints"]["interaction"].as_str().unwrap().len(),
        64
    );
}

#[test]
fn paths_in_diagnostics_are_relative_to_the_current_directory() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    std::fs::write(dir.path().join("sub/broken.yaml"), BROKEN).unwrap();
    let absolute = dir.path().join("sub/broken.yaml");
    templiqx_in(dir.path())
        .arg("check")
        .arg(&absolute)
        .args(["--target", "structured_output"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("--> sub/broken.yaml:11:40"));
}

#[test]
fn unreadable_inputs_are_io_errors_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    // A directory without a manifest.
    templiqx_in(dir.path())
        .args(["check", ".", "--target", "structured_output"])
        .assert()
        .code(2)
        .stdout(predicate::str::contains(
            "error[TQX_IO]: `.` is not a package: it holds no `templiqx.yaml`",
        ));
    // A path that does not exist.
    let output = templiqx_in(dir.path())
        .args([
            "check",
            "missing.yaml",
            "--target",
            "structured_output",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let env = &envelopes(&output)[0];
    assert_envelope(env, "check");
    assert_eq!(codes(env), ["TQX_IO"]);
    assert_eq!(env["diagnostics"][0]["file"], "missing.yaml");
}

#[test]
fn a_manifest_listing_a_missing_contract_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("templiqx.yaml"),
        "api_version: templiqx/v1alpha1\npackage: p\nversion: 0.1.0\ncontracts: [absent]\nprovenance: {}\n",
    )
    .unwrap();
    templiqx_in(dir.path())
        .args(["check", ".", "--target", "structured_output"])
        .assert()
        .code(2)
        .stdout(predicate::str::contains(
            "error[TQX_IO]: cannot read contract contracts/absent.yaml",
        ));
}

#[test]
fn yaml_that_is_not_yaml_fails_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("c.yaml"), "a: [1, 2\n\u{0}").unwrap();
    std::fs::write(dir.path().join("bin.yaml"), [0xff, 0xfe, 0x00]).unwrap();
    let output = templiqx_in(dir.path())
        .args([
            "check", "c.yaml", "bin.yaml", "--target", "x", "--format", "json",
        ])
        .output()
        .unwrap();
    let envs = envelopes(&output);
    assert_eq!(codes(&envs[0]), ["TQX_PARSE_YAML"]);
    // A file that is not UTF-8 was read: its content is wrong, not its path.
    assert_eq!(codes(&envs[1]), ["TQX_PARSE_YAML"]);
    assert_eq!(output.status.code(), Some(1));
}

#[test]
fn a_contract_that_is_not_utf8_is_a_located_parse_error_not_an_io_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("bad.yaml"), b"kind: \xff\xfe\n").unwrap();
    let output = templiqx_in(dir.path())
        .args(["check", "-t", "structured_output", "bad.yaml"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    insta::assert_snapshot!(stdout(&output), @r"
    error[TQX_PARSE_YAML]: invalid YAML: the text is not UTF-8: invalid byte 0xFF
     --> bad.yaml:1:7
      |
    1 | kind: 
      |       ^
      |
      = help: save the file as UTF-8 (convert it, e.g. with `iconv -f <its encoding> -t UTF-8`): Templiqx reads YAML and JSON as UTF-8 only

    error: could not check `bad.yaml` due to 1 previous error
    ");

    // In a package: the manifest, and a listed contract, in JSON.
    let pkg = dir.path().join("pkg");
    std::fs::create_dir_all(pkg.join("contracts")).unwrap();
    std::fs::write(
        pkg.join("templiqx.yaml"),
        "api_version: templiqx/v1alpha1\npackage: p\nversion: 0.1.0\ncontracts: [c]\n",
    )
    .unwrap();
    let mut latin1 = BROKEN.replace("greeting", "c").into_bytes();
    let at = latin1.len() - 3;
    latin1.insert(at, 0xE9);
    std::fs::write(pkg.join("contracts/c.yaml"), &latin1).unwrap();
    let output = templiqx_in(dir.path())
        .args([
            "check",
            "pkg",
            "-t",
            "structured_output",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let env = &envelopes(&output)[0];
    assert_eq!(codes(env), ["TQX_PARSE_YAML"]);
    let d = &env["diagnostics"][0];
    assert_eq!(d["file"], "pkg/contracts/c.yaml");
    assert_eq!(
        d["span"]["start"],
        serde_json::json!({"line": 12, "column": 30})
    );
    std::fs::write(
        pkg.join("templiqx.yaml"),
        b"api_version: templiqx/v1alpha1\npackage: \xe9\n",
    )
    .unwrap();
    let output = templiqx_in(dir.path())
        .args([
            "check",
            "pkg",
            "-t",
            "structured_output",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let env = &envelopes(&output)[0];
    assert_eq!(codes(env), ["TQX_PARSE_YAML"]);
    assert_eq!(env["diagnostics"][0]["file"], "pkg/templiqx.yaml");
    assert_eq!(
        env["diagnostics"][0]["span"]["start"],
        serde_json::json!({"line": 2, "column": 10})
    );
}

#[test]
fn a_byte_order_mark_changes_neither_fingerprints_nor_columns() {
    let dir = tempfile::tempdir().unwrap();
    let fixed = BROKEN.replace("inputs.nmae", "inputs.name");
    std::fs::write(dir.path().join("plain.yaml"), &fixed).unwrap();
    std::fs::write(dir.path().join("bom.yaml"), format!("\u{feff}{fixed}")).unwrap();
    let output = templiqx_in(dir.path())
        .args([
            "check",
            "plain.yaml",
            "bom.yaml",
            "-t",
            "structured_output",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let envs = envelopes(&output);
    assert_eq!(envs[0]["fingerprints"], envs[1]["fingerprints"]);
    assert_eq!(envs[0]["fingerprints"].as_object().unwrap().len(), 2);

    std::fs::write(dir.path().join("bom.yaml"), format!("\u{feff}{BROKEN}")).unwrap();
    templiqx_in(dir.path())
        .args(["check", "bom.yaml", "-t", "structured_output"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(" --> bom.yaml:11:40\n"));
}

#[test]
fn carriage_returns_alone_end_lines() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("cr.yaml"), BROKEN.replace('\n', "\r")).unwrap();
    let output = templiqx_in(dir.path())
        .args(["check", "cr.yaml", "-t", "structured_output"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output);
    assert!(text.contains(" --> cr.yaml:11:40\n"), "{text}");
    assert!(
        text.contains("11 |         expression: { kind: ref, path: inputs.nmae }\n"),
        "{text}"
    );
    assert!(!text.contains('\r'), "{text:?}");
}

#[test]
fn a_package_without_contracts_says_so() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("templiqx.yaml"),
        "api_version: templiqx/v1alpha1\npackage: p\nversion: 0.1.0\ncontracts: []\n",
    )
    .unwrap();
    let output = templiqx_in(dir.path())
        .args(["check", ".", "-t", "structured_output"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        stdout(&output),
        "     Checked package `p` v0.1.0 (no contracts)\n"
    );
    let output = templiqx_in(dir.path())
        .args(["check", ".", "-t", "structured_output", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let envs = envelopes(&output);
    assert_eq!(envs.len(), 1);
    assert_envelope(&envs[0], "check");
    assert_eq!(envs[0]["ok"], true);
    assert_eq!(
        envs[0]["result"],
        serde_json::json!({"path": ".", "package": {"name": "p", "version": "0.1.0"}, "contracts": []})
    );
    assert_eq!(
        envs[0]["fingerprints"]["package"].as_str().unwrap().len(),
        64
    );
}
