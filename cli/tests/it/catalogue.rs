//! Walks `docs/diagnostics.md` through the `templiqx` binary
//! (`docs/diagnostics.md`, "Layout (read by a test)"): each compile-time
//! example through `check`, each render-time example through `render`, each
//! scenario example through `scenarios run`. Every run must report the
//! example's code and no other error.
//!
//! (`build-support/tests/catalogue.rs` and `tests/tests/catalogue_render.rs`
//! check the same examples against the libraries, quoted text included.)

#[path = "../../../build-support/tests/support/catalogue_doc.rs"]
mod catalogue_doc;

use crate::common::*;
use catalogue_doc::{Example, Section, catalogue_path, describe, matches};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::process::Output;
use templiqx_contracts::{Code, Diagnostic};

fn sections() -> Vec<Section> {
    let path = catalogue_path();
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    catalogue_doc::parse(&text)
}

fn examples(keep: impl Fn(&Example) -> bool) -> Vec<Example> {
    sections()
        .into_iter()
        .flat_map(|s| s.examples)
        .filter(|e| keep(e))
        .collect()
}

/// The default manifest of a packaged example: it lists the contract.
fn manifest(id: &str) -> String {
    format!("api_version: templiqx/v1alpha1\npackage: example\nversion: 0.1.0\ncontracts: [{id}]\n")
}

fn write(dir: &Path, rel: &str, text: &str) {
    let p = dir.join(rel);
    fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
    fs::write(p, text).expect("write");
}

/// The codes of the error diagnostics of every envelope of a JSON run.
fn error_codes(output: &Output) -> Vec<String> {
    envelopes(output)
        .iter()
        .flat_map(|env| env["diagnostics"].as_array().cloned().unwrap_or_default())
        .filter(|d| d["severity"] == "error")
        .map(|d| d["code"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// Checks that a run exited with `exit` and reported `code` and no other
/// error code, in JSON (`json`) and human output (`human`).
fn verdict(example: &Example, exit: i32, json: &Output, human: &Output) -> Option<String> {
    let codes = error_codes(json);
    let problem = if json.status.code() != Some(exit) {
        format!("exit {:?}, expected {exit}", json.status.code())
    } else if codes.is_empty() {
        "no error diagnostic".to_owned()
    } else if let Some(other) = codes.iter().find(|c| **c != example.code) {
        format!("also {other}")
    } else if human.status.code() != Some(exit)
        || !stdout(human).contains(&format!("error[{}]", example.code))
    {
        "the human output does not show the code".to_owned()
    } else {
        return None;
    };
    Some(format!(
        "{}: {problem}\n{}{}",
        example.origin(),
        stdout(json),
        stdout(human)
    ))
}

#[test]
fn every_compile_time_example_fails_check_with_its_code() {
    let examples = examples(Example::compile_time);
    assert!(examples.len() > 30, "{} examples", examples.len());
    let mut problems = Vec::new();
    for example in &examples {
        let dir = tempfile::tempdir().unwrap();
        let path = example.contract_path();
        write(dir.path(), &path, &example.contract.body);
        let arg = if example.packaged() {
            if !example.files.iter().any(|(p, _)| p == "templiqx.yaml") {
                write(dir.path(), "templiqx.yaml", &manifest(&example.id()));
            }
            for (rel, text) in &example.files {
                write(dir.path(), rel, text);
            }
            ".".to_owned()
        } else {
            path
        };
        let run = |format: &str| {
            templiqx_in(dir.path())
                .args([
                    "check",
                    &arg,
                    "--target",
                    &example.target(),
                    "--format",
                    format,
                ])
                .output()
                .unwrap()
        };
        // A file that cannot be read is a usage-level failure (exit 2).
        let exit = if example.code == "TQX_IO" { 2 } else { 1 };
        problems.extend(verdict(example, exit, &run("json"), &run("human")));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

#[test]
fn every_render_time_example_fails_render_with_its_code() {
    let examples = examples(|e| e.render);
    assert!(examples.len() >= 5, "{} examples", examples.len());
    let mut problems = Vec::new();
    for example in &examples {
        let dir = tempfile::tempdir().unwrap();
        let path = example.contract_path();
        write(dir.path(), &path, &example.contract.body);
        write(
            dir.path(),
            "request.json",
            example.request.as_deref().unwrap_or("{}"),
        );
        let run = |format: &str| {
            templiqx_in(dir.path())
                .args(["render", &path, "--request", "request.json"])
                .args(["--target", &example.target(), "--format", format])
                .output()
                .unwrap()
        };
        problems.extend(verdict(example, 1, &run("json"), &run("human")));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

/// `templiqx scenarios run INVENTORY --target structured_output`, from the
/// repository root.
fn scenarios_run(inventory: &str, extra: &[&str]) -> Output {
    templiqx()
        .args([
            "scenarios",
            "run",
            inventory,
            "--target",
            "structured_output",
        ])
        .args(extra)
        .output()
        .unwrap()
}

fn parse_diagnostics(value: &Value) -> Vec<Diagnostic> {
    serde_json::from_value(value.clone()).unwrap_or_else(|e| panic!("{e}: {value}"))
}

#[test]
fn every_scenario_example_runs_through_scenarios_run_with_its_code() {
    let examples = examples(|e| e.scenario);
    let mut by_inventory: BTreeMap<String, Vec<&Example>> = BTreeMap::new();
    let mut problems = Vec::new();
    for example in &examples {
        let path = example.scenario_path().unwrap_or_default();
        match fs::read_to_string(repo().join(path)) {
            Ok(text) if text == example.contract.body => {}
            Ok(_) => problems.push(format!(
                "{}: the block differs from {path}",
                example.origin()
            )),
            Err(e) => problems.push(format!("{}: {path}: {e}", example.origin())),
        }
        let dir = Path::new(path).parent().unwrap_or(Path::new(""));
        let inventory = dir.join("inventory.json").to_string_lossy().into_owned();
        by_inventory.entry(inventory).or_default().push(example);
    }
    for (inventory, examples) in &by_inventory {
        let json = scenarios_run(inventory, &["--format", "json"]);
        let human = stdout(&scenarios_run(inventory, &[]));
        let envs = envelopes(&json);
        let Some(summary) = envs.last() else {
            problems.push(format!("{inventory}: no output"));
            continue;
        };
        let loaded = summary["diagnostics"]
            .as_array()
            .is_some_and(|d| d.is_empty());
        if loaded {
            // Runtime codes: every scenario passes, in both receipt modes.
            let transport = scenarios_run(inventory, &["--receipts", "transport"]);
            if json.status.code() != Some(0) || transport.status.code() != Some(0) {
                problems.push(format!(
                    "{inventory}: the scenarios do not all pass:\n{human}{}",
                    stdout(&transport)
                ));
            }
        } else if json.status.code() != Some(2) {
            problems.push(format!(
                "{inventory}: did not load, but exit {:?}",
                json.status.code()
            ));
        }
        for example in examples {
            let path = example.scenario_path().unwrap_or_default();
            let diagnostics = if loaded {
                let manifest = templiqx_build::yaml::parse(&example.contract.body)
                    .map(|n| n.to_json())
                    .unwrap_or(Value::Null);
                let id = manifest["id"].as_str().unwrap_or_default();
                let Some(env) = envs.iter().find(|e| e["result"]["id"] == id) else {
                    problems.push(format!("{}: no scenario `{id}` ran", example.origin()));
                    continue;
                };
                let line = format!("scenario {id} ... ok (failure {}", example.code);
                if !human.lines().any(|l| l.starts_with(&line)) {
                    problems.push(format!("{}: no line `{line}…`:\n{human}", example.origin()));
                }
                parse_diagnostics(&env["result"]["diagnostics"])
            } else {
                parse_diagnostics(&summary["diagnostics"])
                    .into_iter()
                    .filter(|d| d.file.as_deref() == Some(path))
                    .collect()
            };
            let actual = describe(&diagnostics);
            if diagnostics.is_empty() {
                problems.push(format!("{}: no diagnostics", example.origin()));
            } else if let Some(other) = diagnostics.iter().find(|d| d.code.as_str() != example.code)
            {
                problems.push(format!(
                    "{}: also {}:\n{actual}",
                    example.origin(),
                    other.code
                ));
            } else if !loaded && !human.contains(&format!("error[{}]", example.code)) {
                problems.push(format!(
                    "{}: the human output lacks the code:\n{human}",
                    example.origin()
                ));
            } else if let Some(expected) = &example.expected
                && !matches(expected, &actual)
            {
                problems.push(format!(
                    "{}: the quoted diagnostics differ.\n--- quoted ---\n{expected}--- actual ---\n{actual}",
                    example.origin()
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

/// Every runtime code that a scenario can script has a scenario example;
/// the others say why not and name tests instead.
#[test]
fn runtime_codes_are_shown_through_scenarios() {
    let sections = sections();
    let scripted = [
        Code::RuntimeTimeout,
        Code::RuntimeRateLimited,
        Code::RuntimeUnavailable,
        Code::RuntimeInvalidResponse,
        Code::RuntimePermanent,
        Code::OutputSchema,
        Code::Scenario,
        Code::ParseJson,
    ];
    for code in scripted {
        let section = sections
            .iter()
            .find(|s| s.code == code.as_str())
            .unwrap_or_else(|| panic!("no section for {code}"));
        assert!(
            section.examples.iter().any(|e| e.scenario),
            "{code}: no tqx-scenario example"
        );
    }
    // The execute-time capability gate cannot fire under the harness: it
    // is shown by a named test.
    let capability = sections
        .iter()
        .find(|s| s.code == Code::CapabilityUnsupported.as_str())
        .unwrap();
    assert!(!capability.exercised_by.is_empty());
}
