//! `--recover-output` on `templiqx run` and `templiqx eval` against a
//! scripted OpenAI-compatible server on loopback whose model wraps its JSON
//! in a Markdown fence (`docs/runtime.md`, "Output recovery"; `docs/eval.md`,
//! "Output recovery"): without the flag the answer fails with
//! `TQX_OUTPUT_SCHEMA`; with it, `run` succeeds and prints the
//! `TQX_OUTPUT_RECOVERED` warning, and `eval` reports the recovery rate of
//! the fixture in its table, its JSON result and its history.

use crate::common::*;
use crate::eval::{answer, completion, contract_dir, eval_openai, result, server};

const FENCED: &str = "Here is the answer:\n```json\n{\"notice_days\": 60}\n```";

fn run_openai(dir: &std::path::Path, base: &str, extra: &[&str]) -> std::process::Output {
    std::fs::write(
        dir.join("request.json"),
        r#"{"inputs": {"clause": "Notice period: 60 days."}}"#,
    )
    .unwrap();
    templiqx_in(dir)
        .args([
            "run",
            "notice.yaml",
            "-r",
            "request.json",
            "-t",
            "structured_output",
        ])
        .args(["--provider", "openai", "--base-url", &format!("{base}/v1")])
        .args(["--model", "fake-model", "--format", "json"])
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn run_recovers_a_fenced_answer_only_when_asked_and_says_so() {
    let dir = contract_dir();
    let (_rt, base) = server(vec![completion(FENCED), completion(FENCED)]);

    let out = run_openai(dir.path(), &base, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let env = &envelopes(&out)[0];
    assert_eq!(env["diagnostics"][0]["code"], "TQX_OUTPUT_SCHEMA");
    assert_eq!(env["result"]["receipt"]["outcome"], "failure");

    let out = run_openai(dir.path(), &base, &["--recover-output"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let env = &envelopes(&out)[0];
    assert_envelope(env, "execute");
    assert_eq!(
        env["result"]["output"],
        serde_json::json!({"notice_days": 60})
    );
    let receipt = &env["result"]["receipt"];
    assert_eq!(receipt["outcome"], "success");
    assert_eq!(receipt["diagnostics"][0]["code"], "TQX_OUTPUT_RECOVERED");
    assert_eq!(receipt["diagnostics"][0]["severity"], "warning");
    // The warning is the envelope's too, and the status stays a success.
    assert_eq!(env["diagnostics"][0]["code"], "TQX_OUTPUT_RECOVERED");
    assert_eq!(env["diagnostics"][0]["severity"], "warning");
}

#[test]
fn every_member_of_a_chain_recovers_with_the_flag() {
    let dir = contract_dir();
    let (_rt, base) = server(vec![completion(FENCED)]);
    let chain = serde_json::json!({
        "api_version": "templiqx.chain/v1alpha1",
        "members": [{ "name": "local", "provider": "openai",
                      "base_url": format!("{base}/v1"), "model": "fake-model" }],
    });
    std::fs::write(dir.path().join("chain.json"), chain.to_string()).unwrap();
    std::fs::write(
        dir.path().join("request.json"),
        r#"{"inputs": {"clause": "Notice period: 60 days."}}"#,
    )
    .unwrap();
    let out = templiqx_in(dir.path())
        .args([
            "run",
            "notice.yaml",
            "-r",
            "request.json",
            "-t",
            "structured_output",
        ])
        .args([
            "--chain",
            "chain.json",
            "--recover-output",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let env = &envelopes(&out)[0];
    assert_eq!(
        env["result"]["receipt"]["diagnostics"][0]["code"],
        "TQX_OUTPUT_RECOVERED"
    );
}

#[test]
fn eval_reports_the_recovery_rate_of_each_fixture() {
    let dir = contract_dir();
    // Repeats 0 and 2 fenced, repeat 1 JSON alone.
    let replies = || vec![completion(FENCED), answer(60), completion(FENCED)];

    let (_rt, base) = server(replies());
    let out = eval_openai(dir.path(), &base, &["--repeat", "3"]);
    let text = stdout(&out);
    assert!(
        text.contains("failures: TQX_OUTPUT_SCHEMA × 2"),
        "without the flag the fenced answers fail:\n{text}"
    );
    assert!(!text.contains("recovered:"), "{text}");

    let (_rt, base) = server(replies());
    let out = eval_openai(
        dir.path(),
        &base,
        &["--repeat", "3", "--recover-output", "--report", "eval.html"],
    );
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    // The HTML report lists the warning beside the failure codes.
    let html = std::fs::read_to_string(dir.path().join("eval.html")).unwrap();
    assert!(html.contains("data-recovered=\"2\""), "{html}");
    assert!(
        html.contains("<code>TQX_OUTPUT_RECOVERED</code> × 2 (recovered)"),
        "{html}"
    );
    assert!(
        text.contains(
            "    recovered: 66.7% [20.8, 93.9] (2 of 3): outputs read out of the model's text by --recover-output"
        ),
        "{text}"
    );
    assert!(
        text.contains("recovered: 2 of 3 outputs were read out of the model's text"),
        "{text}"
    );
    assert!(!text.contains("TQX_OUTPUT_SCHEMA"), "{text}");

    let (_rt, base) = server(replies());
    let out = eval_openai(
        dir.path(),
        &base,
        &["--repeat", "3", "--recover-output", "--format", "json"],
    );
    let r = result(&out);
    let fixture = &r["stats"]["fixtures"][0];
    assert_eq!(fixture["fixture"], "sixty-days");
    assert_eq!(fixture["pass_rate"]["passed"], 3);
    assert_eq!(fixture["recovered_rate"]["passed"], 2);
    assert_eq!(fixture["recovered_rate"]["total"], 3);

    // The history keeps each execution's flag: none in the first run, two
    // in each of the others.
    let conn = rusqlite::Connection::open(dir.path().join("eval.sqlite")).unwrap();
    let per_run: Vec<(i64, i64)> = conn
        .prepare("SELECT run_id, sum(coalesce(recovered, 0)) FROM executions GROUP BY run_id ORDER BY run_id")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(per_run, [(1, 0), (2, 2), (3, 2)]);
}

/// `templiqx eval` on the fake provider offline, as `docs/eval.md`,
/// "Output recovery", shows it.
fn eval_fake(dir: &std::path::Path, extra: &[&str]) -> std::process::Output {
    templiqx_in(dir)
        .args(["eval", "notice.yaml", "-t", "structured_output"])
        .args(["--provider", "fake", "--db", "eval.sqlite"])
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn the_variants_path_recovers_with_the_flag_too() {
    // The documented offline command: the fake provider with a `--model`
    // runs on the variants' path, whose adapter must carry the flag.
    let dir = contract_dir();
    let out = eval_fake(
        dir.path(),
        &["--model", "fenced", "--recover-output", "--format", "json"],
    );
    let r = result(&out);
    let fixture = &r["stats"]["fixtures"][0];
    assert_eq!(fixture["pass_rate"]["passed"], 1, "{fixture}");
    assert_eq!(fixture["recovered_rate"]["passed"], 1, "{fixture}");
    assert_eq!(fixture["recovered_rate"]["total"], 1, "{fixture}");

    // Without the flag the fenced answer fails.
    let out = eval_fake(dir.path(), &["--model", "fenced", "--format", "json"]);
    let r = result(&out);
    let fixture = &r["stats"]["fixtures"][0];
    assert_eq!(fixture["pass_rate"]["passed"], 0, "{fixture}");
    assert_eq!(
        fixture["failure_codes"]["TQX_OUTPUT_SCHEMA"], 1,
        "{fixture}"
    );

    // Several variants, one of them a `--variant`: each fenced one
    // recovers, the plain one has nothing to recover.
    let out = eval_fake(
        dir.path(),
        &[
            "--model",
            "fenced",
            "--model",
            "fake",
            "--variant",
            "wrapped=fake:fenced",
            "--recover-output",
            "--format",
            "json",
        ],
    );
    let r = result(&out);
    let recovered: Vec<(String, u64, u64)> = r["variants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            let rate = &v["stats"]["fixtures"][0]["recovered_rate"];
            let passed = &v["stats"]["fixtures"][0]["pass_rate"]["passed"];
            assert_eq!(passed, 1, "{v}");
            (
                v["variant"]["name"].as_str().unwrap().to_owned(),
                rate["passed"].as_u64().unwrap(),
                rate["total"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        recovered,
        [
            ("fenced".to_owned(), 1, 1),
            ("fake".to_owned(), 0, 1),
            ("wrapped".to_owned(), 1, 1)
        ],
        "{r}"
    );
}
