//! `templiqx scenarios run`, run as a process: the project's own corpus in
//! both receipt modes, tampered and broken copies of it, and the external
//! corpus (when it is there).

use crate::common::*;
use predicates::prelude::*;
use serde_json::Value;
use std::path::Path;

const EXTERNAL: &str = "crm3/scenarios/inventory.json";
const OWN: &str = "examples/crm3/scenarios/inventory.json";

fn run_in(dir: &Path, inventory: &Path, extra: &[&str]) -> std::process::Output {
    templiqx_in(dir)
        .args(["scenarios", "run"])
        .arg(inventory)
        .args(["--target", "structured_output"])
        .args(extra)
        .output()
        .unwrap()
}

/// Runs the external corpus, or `None` (skipped visibly) when it is absent;
/// with how the CLI, run in the repository root, names the corpus.
fn external(extra: &[&str]) -> Option<(std::process::Output, String)> {
    let corpus = external_corpus()?;
    Some((
        run_in(&repo(), &corpus.join(EXTERNAL), extra),
        shown_from_repo(&corpus),
    ))
}

fn lines(output: &std::process::Output) -> Vec<String> {
    stdout(output).lines().map(str::to_owned).collect()
}

fn has_line(text: &str, line: &str) -> bool {
    text.lines().any(|l| l == line)
}

#[test]
fn the_external_corpus_passes_completely_in_transport_mode() {
    let Some((output, corpus_shown)) = external(&["--receipts", "transport"]) else {
        return;
    };
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert!(output.stderr.is_empty(), "no progress bar off a terminal");
    let text = stdout(&output);
    for line in [
        format!("     Running 8 scenarios of package `crm3` from {}/crm3/scenarios/inventory.json (receipts: transport, target: structured_output)", corpus_shown).as_str(),
        "scenario ambiguous-date ... ok (failure TQX_RUNTIME_INVALID_RESPONSE, 0 ms virtual, 1 attempt)",
        "scenario contradictory-evidence ... ok (failure TQX_RUNTIME_PERMANENT, 0 ms virtual, 1 attempt)",
        "scenario docx-unresolved-reference ... ok (success, 0 ms virtual, 1 attempt)",
        "scenario draft-with-citations ... ok (success, 0 ms virtual, 1 attempt)",
        "scenario intake-document-01 ... ok (success, 25 ms virtual, 1 attempt)",
        "scenario invalid-output-schema ... ok (failure TQX_OUTPUT_SCHEMA, 0 ms virtual, 1 attempt)",
        "scenario missing-notice-date ... ok (failure TQX_RUNTIME_INVALID_RESPONSE, 0 ms virtual, 1 attempt)",
        "scenario missing-required-field ... ok (failure TQX_RUNTIME_PERMANENT, 0 ms virtual, 1 attempt)",
        "  golden_receipt_fingerprint (all 8 scenarios): the manifest's golden is the in-process receipt's; compared in in-process receipt mode",
        "  document_expectation (all 8 scenarios): checking rendered documents belongs to a document adapter, which Templiqx does not have (docs/mock.md, \"Evidence\"); the expectation enters the scenario fingerprint",
    ] {
        assert!(has_line(&text, line), "{line}\n---\n{text}");
    }
    assert_eq!(lines(&output).last().unwrap(), "8 passed, 0 failed");
}

#[test]
fn in_process_the_foreign_success_goldens_differ_with_a_note() {
    let Some((output, corpus_shown)) = external(&[]) else {
        return;
    };
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let text = stdout(&output);
    let notes = [
        (
            "docx-unresolved-reference",
            "9c248a426d3f5279cd399478e952a005047b0efcd430aab32029321e4407c821",
            "4b56841ff9b4c7d492daf830c16352bf5eedf90d73a0a3541bde9a24ce8d249c",
            "8d02a42f27083ed0ff498a7b614572a9ae4e10135807973d42a14c77e4237d7b",
        ),
        (
            "draft-with-citations",
            "9c248a426d3f5279cd399478e952a005047b0efcd430aab32029321e4407c821",
            "4b56841ff9b4c7d492daf830c16352bf5eedf90d73a0a3541bde9a24ce8d249c",
            "8d02a42f27083ed0ff498a7b614572a9ae4e10135807973d42a14c77e4237d7b",
        ),
        (
            "intake-document-01",
            "52a1b04897e944fcbc02f9567bbc0265a5d3a296acf305131c80dd8c216333b4",
            "b73126237c73c329bedcdd40e1fce86ebca9c0b09926c0fa2630da69cc869637",
            "3d96994d9e9f2af62d6b4c4859061b25c1247c91653985f60f83b4f1c96feffb",
        ),
    ];
    for (id, ours, golden, actual) in notes {
        for line in [
            format!("scenario {id} ... FAILED: golden_receipt_fingerprint differs"),
            format!(
                "error[TQX_SCENARIO]: scenario `{id}`: `golden_receipt_fingerprint` differs: expected \"{golden}\", actual \"{actual}\""
            ),
            format!(
                "   = note: a success receipt covers the request fingerprint (ours: {ours}), which depends on the implementation's encoding of the rendered interaction and on the target profile: a golden written by another implementation, or for another target, cannot match it; the outcome, output fingerprint and schema validity the receipt also covers are compared by the checks above"
            ),
        ] {
            assert!(has_line(&text, &line), "{line}\n---\n{text}");
        }
    }
    for line in [
        "---- intake-document-01 (success, 25 ms virtual, 1 attempt) ----",
        format!(
            "  --> {}/crm3/scenarios/intake-document-01/manifest.json:40:33",
            corpus_shown
        )
        .as_str(),
        "scenario ambiguous-date ... ok (failure TQX_RUNTIME_INVALID_RESPONSE, 0 ms virtual, 1 attempt)",
        "scenario invalid-output-schema ... ok (failure TQX_OUTPUT_SCHEMA, 0 ms virtual, 1 attempt)",
        "  receipt_fingerprint (all 8 scenarios): the inventory's receipt fingerprint is the HTTP transport's; compared in transport receipt mode",
        "  document_expectation (all 8 scenarios): checking rendered documents belongs to a document adapter, which Templiqx does not have (docs/mock.md, \"Evidence\"); the expectation enters the scenario fingerprint",
    ] {
        assert!(has_line(&text, line), "{line}\n---\n{text}");
    }
    assert_eq!(lines(&output).last().unwrap(), "5 passed, 3 failed");
}

#[test]
fn json_prints_one_envelope_per_scenario_and_a_summary() {
    let Some((output, corpus_shown)) = external(&["--format", "json"]) else {
        return;
    };
    assert_eq!(output.status.code(), Some(1));
    let envs = envelopes(&output);
    assert_eq!(envs.len(), 9);
    for env in &envs[..8] {
        assert_envelope(env, "scenario");
        let id = env["result"]["id"].as_str().unwrap();
        let success = env["result"]["status"] == "success";
        assert_eq!(env["ok"], !success, "{id}");
        assert_eq!(
            env["fingerprints"]["scenario"],
            env["result"]["scenario_fingerprint"]
        );
        assert_eq!(
            env["fingerprints"]["receipt"],
            env["result"]["receipt_fingerprint"]
        );
        if success {
            let d = &env["diagnostics"][0];
            assert_eq!(d["code"], "TQX_SCENARIO");
            assert_eq!(
                d["file"],
                format!("{}/crm3/scenarios/{id}/manifest.json", corpus_shown)
            );
            assert_eq!(d["json_pointer"], "/golden_receipt_fingerprint");
            assert!(d["span"]["start"]["line"].is_u64());
            assert!(env["result"]["diagnostics"].as_array().unwrap().is_empty());
        } else {
            assert_eq!(env["diagnostics"], serde_json::json!([]));
            // The execution's own diagnostics are in the result.
            assert_eq!(
                env["result"]["diagnostics"][0]["code"],
                env["result"]["receipt"]["code"]
            );
        }
    }
    let summary = &envs[8];
    assert_envelope(summary, "conformance");
    assert_eq!(summary["ok"], false);
    assert_eq!(
        summary["result"],
        serde_json::json!({
            "inventory": format!("{}/crm3/scenarios/inventory.json", corpus_shown),
            "package": "crm3",
            "receipt_mode": "in_process",
            "target": ["structured_output"],
            "passed": 5,
            "failed": 3,
            "failed_scenarios": ["docx-unresolved-reference", "draft-with-citations", "intake-document-01"],
        })
    );
}

#[test]
fn json_of_the_own_corpus_is_one_passing_envelope_per_scenario_and_a_summary() {
    let output = run_in(&repo(), Path::new(OWN), &["--format", "json"]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let envs = envelopes(&output);
    assert_eq!(envs.len(), 8);
    for env in &envs[..7] {
        assert_envelope(env, "scenario");
        assert_eq!(env["ok"], true, "{env}");
        assert_eq!(env["diagnostics"], serde_json::json!([]), "{env}");
        assert_eq!(
            env["fingerprints"]["scenario"],
            env["result"]["scenario_fingerprint"]
        );
        assert_eq!(
            env["fingerprints"]["receipt"],
            env["result"]["receipt_fingerprint"]
        );
    }
    let summary = &envs[7];
    assert_envelope(summary, "conformance");
    assert_eq!(
        summary["result"],
        serde_json::json!({
            "inventory": OWN,
            "package": "crm3-example",
            "receipt_mode": "in_process",
            "target": ["structured_output"],
            "passed": 7,
            "failed": 0,
            "failed_scenarios": [],
        })
    );
}

#[test]
fn the_projects_own_corpus_passes_in_both_modes() {
    for mode in ["in-process", "transport"] {
        let output = run_in(&repo(), Path::new(OWN), &["--receipts", mode]);
        assert_eq!(output.status.code(), Some(0), "{mode}: {output:?}");
        let text = stdout(&output);
        assert!(
            has_line(
                &text,
                "scenario lease-rate-limited ... ok (failure TQX_RUNTIME_RATE_LIMITED, retry after 30000 ms, 120 ms virtual, 1 attempt)"
            ),
            "{text}"
        );
        assert_eq!(lines(&output).last().unwrap(), "7 passed, 0 failed");
    }
    // In process every scenario of the own corpus has a golden: nothing but
    // the transport fingerprint and the document expectation is skipped.
    let output = run_in(&repo(), Path::new(OWN), &[]);
    let text = stdout(&output);
    let skipped: Vec<&str> = text
        .lines()
        .skip_while(|l| *l != "not checked:")
        .skip(1)
        .take_while(|l| !l.is_empty())
        .collect();
    assert_eq!(skipped.len(), 2, "{text}");
    assert!(skipped[0].starts_with("  receipt_fingerprint (all 7 scenarios): "));
    assert!(skipped[1].starts_with("  document_expectation (all 7 scenarios): "));
}

/// A copy of the project's example package in a temp dir.
fn own_copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    templiqx_conformance_suites::copy_tree(&repo().join("examples/crm3"), &dir.path().join("crm3"));
    dir
}

fn edit(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.contains(from), "{}: no {from:?}", path.display());
    std::fs::write(path, text.replacen(from, to, 1)).unwrap();
}

#[test]
fn a_tampered_failure_code_fails_naming_the_scenario_and_the_fields() {
    let dir = own_copy();
    edit(
        &dir.path()
            .join("crm3/scenarios/lease-rate-limited/manifest.json"),
        "\"code\": \"TQX_RUNTIME_RATE_LIMITED\"",
        "\"code\": \"TQX_RUNTIME_PERMANENT\"",
    );
    let inventory = Path::new("crm3/scenarios/inventory.json");
    let output = run_in(dir.path(), inventory, &[]);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let text = stdout(&output);
    for line in [
        "scenario lease-rate-limited ... FAILED: expected_failure, expected_diagnostics, golden_receipt_fingerprint differ",
        "scenario lease-happy-path ... ok (success, 40 ms virtual, 1 attempt)",
        "---- lease-rate-limited (failure TQX_RUNTIME_PERMANENT, retry after 30000 ms, 120 ms virtual, 1 attempt) ----",
        "error[TQX_SCENARIO]: scenario `lease-rate-limited`: `expected_failure` differs: expected \"TQX_RUNTIME_RATE_LIMITED\", actual \"TQX_RUNTIME_PERMANENT\"",
        "  --> crm3/scenarios/lease-rate-limited/manifest.json:11:23",
        "11 |   \"expected_failure\": \"TQX_RUNTIME_RATE_LIMITED\",",
        "error[TQX_SCENARIO]: scenario `lease-rate-limited`: `expected_diagnostics` differs: expected [\"TQX_RUNTIME_RATE_LIMITED\"], actual [\"TQX_RUNTIME_PERMANENT\"]",
    ] {
        assert!(has_line(&text, line), "{line}\n---\n{text}");
    }
    assert_eq!(lines(&output).last().unwrap(), "6 passed, 1 failed");

    let output = run_in(dir.path(), inventory, &["--format", "json"]);
    assert_eq!(output.status.code(), Some(1));
    let envs = envelopes(&output);
    let env = envs
        .iter()
        .find(|e| e["result"]["id"] == "lease-rate-limited")
        .unwrap();
    assert_eq!(env["ok"], false);
    let pointers: Vec<&Value> = env["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| &d["json_pointer"])
        .collect();
    assert_eq!(
        pointers,
        [
            "/expected_failure",
            "/expected_diagnostics",
            "/golden_receipt_fingerprint"
        ]
    );
    assert_eq!(
        envs.last().unwrap()["result"]["failed_scenarios"],
        serde_json::json!(["lease-rate-limited"])
    );
}

#[test]
fn a_tampered_transport_fingerprint_points_into_the_inventory() {
    let dir = own_copy();
    edit(
        &dir.path().join("crm3/scenarios/inventory.json"),
        "58598855bd12af6995120388cee7e75b930efa71ed7161e0283e4c92c3e6663d",
        "58598855bd12af6995120388cee7e75b930efa71ed7161e0283e4c92c3e66630",
    );
    let output = run_in(
        dir.path(),
        Path::new("crm3/scenarios/inventory.json"),
        &["--receipts", "transport"],
    );
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let text = stdout(&output);
    for line in [
        "scenario lease-happy-path ... FAILED: receipt_fingerprint differs",
        "  --> crm3/scenarios/inventory.json:24:32",
        "   = note: at /scenarios/1/expectation/receipt_fingerprint",
    ] {
        assert!(has_line(&text, line), "{line}\n---\n{text}");
    }
}

#[test]
fn drift_makes_the_inventory_invalid_exit_2() {
    let dir = own_copy();
    let manifest = dir
        .path()
        .join("crm3/scenarios/lease-rate-limited/manifest.json");
    edit(
        &manifest,
        "\"expected_failure\": \"TQX_RUNTIME_RATE_LIMITED\"",
        "\"expected_failure\": \"TQX_RUNTIME_PERMANENT\"",
    );
    edit(
        &manifest,
        "\"TQX_RUNTIME_RATE_LIMITED\"\n  ]",
        "\"TQX_RUNTIME_PERMANENT\"\n  ]",
    );
    let output = run_in(dir.path(), Path::new("crm3/scenarios/inventory.json"), &[]);
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    insta::assert_snapshot!(stdout(&output), @r#"
    error[TQX_SCENARIO]: scenario `lease-rate-limited`: the inventory's `diagnostic_code` (TQX_RUNTIME_RATE_LIMITED) disagrees with the manifest's `expected_failure` (TQX_RUNTIME_PERMANENT)
      --> crm3/scenarios/inventory.json:54:28
       |
    54 |         "diagnostic_code": "TQX_RUNTIME_RATE_LIMITED",
       |                            ^^^^^^^^^^^^^^^^^^^^^^^^^^
       |
       = help: make the inventory and the manifest agree; the manifest is what executes
       = note: at /scenarios/4/expectation/diagnostic_code

    error: could not load the scenario inventory `crm3/scenarios/inventory.json` due to 1 previous error
    "#);
    let output = run_in(
        dir.path(),
        Path::new("crm3/scenarios/inventory.json"),
        &["--format", "json"],
    );
    assert_eq!(output.status.code(), Some(2));
    let envs = envelopes(&output);
    assert_eq!(envs.len(), 1);
    assert_envelope(&envs[0], "conformance");
    assert_eq!(envs[0]["ok"], false);
    assert_eq!(codes(&envs[0]), ["TQX_SCENARIO"]);
    assert_eq!(envs[0]["result"]["passed"], 0);
}

#[test]
fn unusable_inventories_exit_2_with_a_diagnostic_and_never_panic() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::create_dir_all(p.join("pkg/scenarios")).unwrap();
    std::fs::write(
        p.join("pkg/templiqx.yaml"),
        "api_version: templiqx/v1alpha1\npackage: pkg\nversion: 0.1.0\ncontracts: []\n",
    )
    .unwrap();
    std::fs::write(p.join("loose.json"), "{}").unwrap();
    let cases: [(&str, &[u8], &str); 11] = [
        ("pkg/scenarios/empty.json", b"", "TQX_PARSE_JSON"),
        ("pkg/scenarios/trailing.json", b"{\"a\": 1,}", "TQX_PARSE_JSON"),
        ("pkg/scenarios/array.json", b"[]", "TQX_INVALID_TYPE"),
        ("pkg/scenarios/object.json", b"{}", "TQX_MISSING_FIELD"),
        ("pkg/scenarios/binary.json", b"\xff\xfe\x00garbage", "TQX_PARSE_JSON"),
        (
            "pkg/scenarios/other.json",
            b"{\"api_version\": \"templiqx.mock/v1alpha1\", \"package\": \"other\", \"scenarios\": []}",
            "TQX_SCENARIO",
        ),
        (
            "pkg/scenarios/escape.json",
            b"{\"api_version\": \"templiqx.mock/v1alpha1\", \"package\": \"pkg\", \"scenarios\": [{\"id\": \"x\", \"manifest\": \"../../etc/passwd\", \"expectation\": {\"status\": \"success\", \"receipt_fingerprint\": \"0000000000000000000000000000000000000000000000000000000000000000\"}}]}",
            "TQX_SCENARIO",
        ),
        ("pkg/scenarios/yaml.yaml", b"api_version: [", "TQX_PARSE_YAML"),
        ("pkg/scenarios/latin1.yaml", b"package: caf\xe9\n", "TQX_PARSE_YAML"),
        (
            "pkg/scenarios/none.json",
            b"{\"api_version\": \"templiqx.mock/v1alpha1\", \"package\": \"pkg\", \"scenarios\": []}",
            "TQX_SCENARIO",
        ),
        ("loose.json", b"{}", "TQX_SCENARIO"),
    ];
    for (file, bytes, code) in cases {
        std::fs::write(p.join(file), bytes).unwrap();
        let output = run_in(p, Path::new(file), &["--format", "json"]);
        assert_eq!(output.status.code(), Some(2), "{file}: {output:?}");
        let envs = envelopes(&output);
        assert!(
            codes(&envs[0]).contains(&code.to_owned()),
            "{file}: {:?}",
            envs[0]
        );
        let output = run_in(p, Path::new(file), &[]);
        assert_eq!(output.status.code(), Some(2), "{file}");
        assert!(
            stdout(&output).contains(&format!("error[{code}]")),
            "{file}"
        );
        assert!(
            output.stderr.is_empty(),
            "{file}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

#[test]
fn an_inventory_without_scenarios_does_not_pass_vacuously() {
    let dir = own_copy();
    let inventory = dir.path().join("crm3/scenarios/inventory.json");
    std::fs::write(
        &inventory,
        "{\n  \"api_version\": \"templiqx.mock/v1alpha1\",\n  \"package\": \"crm3-example\",\n  \"scenarios\": []\n}\n",
    )
    .unwrap();
    let output = run_in(dir.path(), Path::new("crm3/scenarios/inventory.json"), &[]);
    assert_eq!(output.status.code(), Some(2));
    insta::assert_snapshot!(stdout(&output), @r#"
    error[TQX_SCENARIO]: the inventory lists no scenarios, so a conformance run would check nothing
     --> crm3/scenarios/inventory.json:4:16
      |
    4 |   "scenarios": []
      |                ^^
      |
      = help: list at least one scenario under `scenarios`; a package without scenarios needs no inventory
      = note: at /scenarios

    error: could not load the scenario inventory `crm3/scenarios/inventory.json` due to 1 previous error
    "#);
    let output = run_in(
        dir.path(),
        Path::new("crm3/scenarios/inventory.json"),
        &["--format", "json"],
    );
    assert_eq!(output.status.code(), Some(2));
    let envs = envelopes(&output);
    assert_eq!(envs.len(), 1);
    assert_eq!(envs[0]["ok"], false);
    assert_eq!(codes(&envs[0]), ["TQX_SCENARIO"]);
}

#[test]
fn documents_that_are_not_utf8_are_located_with_the_text_before_the_byte() {
    let dir = own_copy();
    // A Latin-1 `é` before the value of `kind` (line 5).
    for (rel, before, code, at) in [
        (
            "crm3/scenarios/lease-rate-limited/manifest.json",
            "\"kind\": \"",
            "TQX_PARSE_JSON",
            "5:12",
        ),
        (
            "crm3/scenarios/lease-ambiguous-rent/manifest.yaml",
            "kind: ",
            "TQX_PARSE_YAML",
            "5:7",
        ),
    ] {
        let path = dir.path().join(rel);
        let text = std::fs::read_to_string(&path).unwrap();
        let i = text.find(before).unwrap() + before.len();
        let bytes = [&text.as_bytes()[..i], b"\xE9", &text.as_bytes()[i..]].concat();
        std::fs::write(&path, bytes).unwrap();
        let output = run_in(dir.path(), Path::new("crm3/scenarios/inventory.json"), &[]);
        std::fs::write(&path, &text).unwrap();
        assert_eq!(output.status.code(), Some(2), "{rel}");
        let out = stdout(&output);
        let kind = if code == "TQX_PARSE_JSON" {
            "JSON"
        } else {
            "YAML"
        };
        let line = &text[text[..i].rfind('\n').unwrap() + 1..i];
        for expected in [
            format!("error[{code}]: invalid {kind}: the text is not UTF-8: invalid byte 0xE9"),
            format!(" --> {rel}:{at}"),
            format!("5 | {line}"),
            "  = help: save the file as UTF-8".to_owned(),
        ] {
            assert!(out.contains(&expected), "{rel}: {expected}\n---\n{out}");
        }
        assert!(!out.contains("TQX_IO"), "{out}");
    }
}

#[test]
fn a_missing_inventory_or_a_directory_is_an_io_error() {
    templiqx()
        .args([
            "scenarios",
            "run",
            "nope.json",
            "--target",
            "structured_output",
        ])
        .assert()
        .code(2)
        .stdout(predicate::str::contains(
            "error[TQX_IO]: cannot open `nope.json`: no such file or directory",
        ));
    templiqx()
        .args([
            "scenarios",
            "run",
            "examples/crm3/scenarios",
            "-t",
            "structured_output",
        ])
        .assert()
        .code(2)
        .stdout(predicate::str::contains(
            "error[TQX_IO]: `examples/crm3/scenarios` is a directory",
        ))
        .stdout(predicate::str::contains(
            "= help: pass the inventory file: `examples/crm3/scenarios/inventory.json`",
        ));
}

#[test]
fn a_target_the_contracts_do_not_fit_reports_their_diagnostics_once() {
    let output = templiqx()
        .args(["scenarios", "run", OWN, "--target", "tools"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output);
    assert_eq!(
        text.matches("error[TQX_CAPABILITY_UNSUPPORTED]").count(),
        3,
        "one per contract:\n{text}"
    );
    assert!(has_line(
        &text,
        "scenario lease-happy-path ... FAILED: the contract does not compile"
    ));
    assert!(text.contains("--> examples/crm3/contracts/lease-term-extraction.yaml:29:16"));
    assert_eq!(lines(&output).last().unwrap(), "0 passed, 7 failed");
}

#[test]
fn json_syntax_errors_in_scenario_documents_are_located_by_the_mock() {
    // The mock's reader gives the span (the parser's own line and column,
    // counted in characters); the CLI only shows it.
    let dir = own_copy();
    let path = dir
        .path()
        .join("crm3/scenarios/lease-rate-limited/manifest.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let broken = text.replacen("\"kind\": ", "\"kind\": ,", 1);
    assert_ne!(broken, text);
    std::fs::write(&path, broken).unwrap();
    let output = run_in(dir.path(), Path::new("crm3/scenarios/inventory.json"), &[]);
    assert_eq!(output.status.code(), Some(2));
    let out = stdout(&output);
    assert!(
        out.starts_with("error[TQX_PARSE_JSON]: invalid JSON: expected value\n --> crm3/scenarios/lease-rate-limited/manifest.json:5:11\n"),
        "{out}"
    );
    assert!(!out.contains(" at line "), "{out}");
}
