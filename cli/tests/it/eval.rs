//! `templiqx eval`, run as a process: offline with `--provider fake` over
//! the CRM3 example, and against a scripted OpenAI-compatible fake server
//! on loopback for every outcome (success, schema failure, failed check,
//! rate limit, timeout), the gate's exit statuses, the SQLite history, the
//! cache, and a regression the server introduces between two runs.

use crate::common::*;
use serde_json::{Value, json};
use std::path::Path;
use templiqx_fake_provider::{Reply, serve};

/// A contract whose one fixture has one check, with a short timeout and
/// one attempt, so each scripted reply is one outcome.
pub(crate) const CONTRACT: &str = r#"api_version: templiqx/v1alpha1
id: notice
version: 0.1.0
inputs:
  clause: { schema: { type: string }, required: true }
capabilities: [structured_output]
runtime_policy: { timeout_ms: 500, max_attempts: 1 }
messages:
  - role: user
    content:
      - { kind: text, value: "Read the notice period in days: " }
      - { kind: interpolate, expression: { kind: ref, path: inputs.clause } }
output_schema:
  type: object
  additionalProperties: false
  required: [notice_days]
  properties:
    notice_days: { type: integer, minimum: 0 }
evals:
  - id: sixty-days
    inputs: { clause: "Notice period: 60 days." }
    fake_output: { notice_days: 60 }
    expect:
      - id: reads-sixty
        check: { kind: equals, left: { kind: ref, path: output.notice_days }, right: { kind: literal, value: 60 } }
"#;

pub(crate) fn completion(content: &str) -> Reply {
    Reply::ok(
        json!({ "id": "c", "object": "chat.completion", "choices": [{ "index": 0,
                "finish_reason": "stop", "message": { "role": "assistant", "content": content } }],
                "usage": { "prompt_tokens": 40, "completion_tokens": 8, "total_tokens": 48 } })
        .to_string(),
    )
}

pub(crate) fn answer(days: i64) -> Reply {
    completion(&json!({ "notice_days": days }).to_string())
}

/// A package-less contract file in a fresh directory.
pub(crate) fn contract_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notice.yaml"), CONTRACT).unwrap();
    dir
}

/// A fake server with `replies` on a runtime that lives as long as the
/// returned guard.
pub(crate) fn server(replies: Vec<Reply>) -> (tokio::runtime::Runtime, String) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let (base, _fake) = runtime.block_on(serve("/v1/chat/completions", replies));
    (runtime, base)
}

pub(crate) fn eval_openai(dir: &Path, base: &str, extra: &[&str]) -> std::process::Output {
    templiqx_in(dir)
        .args(["eval", "notice.yaml", "-t", "structured_output"])
        .args(["--provider", "openai", "--base-url", &format!("{base}/v1")])
        .args([
            "--model",
            "fake-model",
            "--concurrency",
            "1",
            "--db",
            "eval.sqlite",
        ])
        .args(extra)
        .output()
        .unwrap()
}

pub(crate) fn result(output: &std::process::Output) -> Value {
    let envs = envelopes(output);
    assert_eq!(envs.len(), 1, "{}", stdout(output));
    assert_envelope(&envs[0], "eval");
    envs[0]["result"].clone()
}

/// The cells of the table row (or check line) that starts with `name`:
/// cells are separated by two spaces or more.
pub(crate) fn row(text: &str, name: &str) -> Vec<String> {
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with(&format!("{name}  ")))
        .unwrap_or_else(|| panic!("no row {name:?} in\n{text}"));
    line.split("  ")
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .map(str::to_owned)
        .collect()
}

fn fixture<'a>(result: &'a Value, name: &str) -> &'a Value {
    result["stats"]["fixtures"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| {
            format!(
                "{}::{}",
                f["contract"].as_str().unwrap(),
                f["fixture"].as_str().unwrap()
            ) == name
        })
        .unwrap_or_else(|| panic!("no fixture {name} in {result}"))
}

#[test]
fn the_crm3_example_passes_offline_with_the_fake_provider() {
    // What the README tells users to run, run here with a history of its own.
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    assert!(readme.contains(
        "cargo run --locked -p templiqx-cli -- eval examples/crm3 --target structured_output --provider fake"
    ));
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("eval.sqlite");
    let run = |format: &str| {
        templiqx()
            .args([
                "eval",
                "examples/crm3",
                "-t",
                "structured_output",
                "--provider",
                "fake",
            ])
            .args(["--repeat", "3", "--min-pass-rate", "1", "--format", format])
            .arg("--db")
            .arg(&db)
            .output()
            .unwrap()
    };
    let human = run("human");
    let text = stdout(&human);
    assert_eq!(
        human.status.code(),
        Some(0),
        "{text}{}",
        String::from_utf8_lossy(&human.stderr)
    );
    for needle in [
        "contract lease-term-extraction",
        "contract lease-summary-drafting",
        "contract lease-summary-judge",
        "gate ok",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in\n{text}");
    }
    // The 24 rows of the extraction's dataset (`docs/eval.md`, "Datasets")
    // run, each checked against its own `case`, and count as one fixture,
    // the entry; the judge's two fixtures run as any contract's.
    assert!(
        text.contains("Evaluating 4 fixture(s) and 24 dataset row(s) × 3 repeat(s)"),
        "{text}{}",
        String::from_utf8_lossy(&human.stderr)
    );
    for fixture in ["fixed-term-lease", "dutch-client"] {
        // n, passed, pass rate, schema-valid, pass^n, distinct outputs.
        assert_eq!(
            row(&text, fixture)[1..7],
            [
                "3",
                "3",
                "100.0% [43.9, 100.0]",
                "100.0% [43.9, 100.0]",
                "yes",
                "1"
            ],
            "{text}"
        );
    }
    // 24 rows × 3 repeats; one answer per row.
    assert_eq!(
        row(&text, "labelled-leases")[1..7],
        [
            "72",
            "72",
            "100.0% [94.9, 100.0]",
            "100.0% [94.9, 100.0]",
            "yes",
            "24"
        ],
        "{text}"
    );
    assert!(
        text.contains("    rows: 24, 24 passed every execution 100.0% [86.2, 100.0]\n"),
        "{text}"
    );
    assert_eq!(
        row(&text, "check term-dates")[1],
        "100.0% [43.9, 100.0] (3 of 3)",
        "{text}"
    );
    // The drafting summary's model-graded check, answered offline by the
    // judge's own fixture (`docs/eval.md`, "Judges").
    assert_eq!(
        row(&text, "check faithful-to-the-terms")[1],
        "100.0% [43.9, 100.0] (3 of 3)",
        "{text}"
    );
    let json = run("json");
    assert_eq!(json.status.code(), Some(0));
    let r = result(&json);
    assert_eq!(r["run"]["provider"], "fake");
    assert_eq!(r["run"]["repeat"], 3);
    assert_eq!(r["gate"]["passed"], true);
    for name in [
        "lease-term-extraction::fixed-term-lease",
        "lease-summary-drafting::dutch-client",
    ] {
        let f = fixture(&r, name);
        assert_eq!(f["executions"], 3, "{f}");
        assert_eq!(f["pass_rate"]["passed"], 3);
        assert_eq!(f["schema_valid_rate"]["passed"], 3);
        assert_eq!(f["pass_all"], true);
        // The same answer every time.
        assert_eq!(f["distinct_outputs"], 1);
        assert!(f["interaction_fingerprint"].is_string());
    }
    let entry = fixture(&r, "lease-term-extraction::labelled-leases");
    assert_eq!(entry["executions"], 72, "{entry}");
    assert_eq!(entry["pass_all"], true);
    assert_eq!(entry["distinct_outputs"], 24);
    assert_eq!(entry["rows"]["rows"], 24);
    assert_eq!(entry["rows"]["passed_all"]["passed"], 24);
    assert_eq!(entry["rows"]["failing"], serde_json::json!([]));
    // Two runs of 28 fixtures (4 inline, 24 dataset rows) × 3 repeats are
    // in the history, each judged check with the judge's answer.
    let conn = rusqlite::Connection::open(&db).unwrap();
    let (runs, executions): (i64, i64) = conn
        .query_row(
            "SELECT (SELECT count(*) FROM runs WHERE finished_at IS NOT NULL), (SELECT count(*) FROM executions)",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((runs, executions), (2, 168));
    let judged: Vec<String> = conn
        .prepare("SELECT judge FROM checks WHERE check_id = 'faithful-to-the-terms'")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(judged.len(), 6);
    for j in &judged {
        let j: serde_json::Value = serde_json::from_str(j).unwrap();
        assert_eq!(j["contract"], "lease-summary-judge");
        assert_eq!(
            j["reasons"],
            "term, rent and notice match the terms; the rent is written in the Dutch format"
        );
    }
    let drafting = fixture(&r, "lease-summary-drafting::dutch-client");
    assert!(
        drafting["checks"]
            .to_string()
            .contains("faithful-to-the-terms"),
        "{drafting}"
    );
}

#[test]
fn every_outcome_is_recorded_and_the_gate_sets_the_exit_status() {
    let dir = contract_dir();
    // One reply per outcome, in order (concurrency 1): a passing answer, an
    // answer the schema refuses, a valid answer that fails the check, a
    // rate limit, and no answer within the 500 ms timeout.
    let (_rt, base) = server(vec![
        answer(60),
        answer(-1),
        answer(30),
        Reply::Raw(429, vec![], r#"{"error":{"message":"slow down"}}"#.into()),
        Reply::Hang,
    ]);
    let out = eval_openai(
        dir.path(),
        &base,
        &[
            "--repeat",
            "5",
            "--format",
            "json",
            "--min-pass-rate",
            "0.5",
        ],
    );
    // 1 of 5 passed: below 0.5, the gate fails.
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let r = result(&out);
    // The failed gate is the envelope's error.
    let env = &envelopes(&out)[0];
    assert_eq!(env["ok"], false);
    assert_eq!(codes(env), ["TQX_EVAL_GATE"]);
    // The transport failures are called out.
    let note = r["notes"][0].as_str().unwrap();
    assert!(note.contains("TQX_RUNTIME_RATE_LIMITED × 1"), "{note}");
    let f = fixture(&r, "notice::sixty-days");
    assert_eq!(f["executions"], 5);
    assert_eq!(f["pass_rate"]["passed"], 1);
    assert_eq!(f["schema_valid_rate"]["passed"], 2);
    assert_eq!(f["checks"][0]["id"], "reads-sixty");
    assert_eq!(f["checks"][0]["rate"]["passed"], 1);
    assert_eq!(f["checks"][0]["rate"]["total"], 5);
    assert_eq!(f["distinct_outputs"], 2);
    assert_eq!(
        f["failure_codes"],
        json!({ "TQX_OUTPUT_SCHEMA": 1, "TQX_RUNTIME_RATE_LIMITED": 1, "TQX_RUNTIME_TIMEOUT": 1 })
    );
    // Tokens of the three answers: the two that validated and the one
    // that failed the schema (the provider billed it); none of the
    // failed calls.
    assert_eq!(f["output_tokens"], json!({ "total": 24, "reported": 3 }));
    assert_eq!(f["pass_all"], false);
    assert_eq!(r["gate"]["passed"], false);
    let reason = r["gate"]["failures"][0]["reason"].as_str().unwrap();
    assert!(reason.contains("below the minimum 0.5"), "{reason}");

    // Every execution is a row; every verdict is queryable.
    let conn = rusqlite::Connection::open(dir.path().join("eval.sqlite")).unwrap();
    let mut codes: Vec<Option<String>> = conn
        .prepare("SELECT code FROM executions ORDER BY repeat")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    codes.sort();
    assert_eq!(
        codes,
        [
            None,
            None,
            Some("TQX_OUTPUT_SCHEMA".into()),
            Some("TQX_RUNTIME_RATE_LIMITED".into()),
            Some("TQX_RUNTIME_TIMEOUT".into())
        ]
    );
    let verdicts: Vec<(String, i64)> = conn
        .prepare("SELECT verdict, count(*) FROM checks GROUP BY verdict ORDER BY verdict")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(
        verdicts,
        [
            ("fail".into(), 1),
            ("not_run".into(), 3),
            ("pass".into(), 1)
        ]
    );
}

#[test]
fn a_lower_gate_passes_and_usage_errors_exit_2() {
    let dir = contract_dir();
    let (_rt, base) = server(vec![answer(60), answer(30)]);
    let out = eval_openai(
        dir.path(),
        &base,
        &["--repeat", "2", "--min-pass-rate", "0.5"],
    );
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert_eq!(
        row(&text, "sixty-days")[1..6],
        ["2", "1", "50.0% [9.5, 90.5]", "100.0% [34.2, 100.0]", "no"],
        "{text}"
    );
    assert!(text.contains("gate ok"), "{text}");

    for (args, needle) in [
        (&["--filter", "[unclosed"][..], "is not a glob"),
        (
            &["--filter", "other::*"][..],
            "no eval fixture matches --filter other::*",
        ),
        (&["--baseline", "42"][..], "names no finished run"),
        (
            &["--filter", "*", "--filter", "zzz"][..],
            "no eval fixture matches --filter zzz",
        ),
        (&["notice.yaml"][..], "contract `notice` is given twice"),
        (&["--min-pass-rate", "2"][..], "is not a rate in [0, 1]"),
        (&["--fail-on-regression"][..], "--baseline"),
    ] {
        let out = templiqx_in(dir.path())
            .args([
                "eval",
                "notice.yaml",
                "-t",
                "structured_output",
                "--provider",
                "fake",
            ])
            .args(["--db", "fresh.sqlite"])
            .args(args)
            .output()
            .unwrap();
        let all = format!("{}{}", stdout(&out), String::from_utf8_lossy(&out.stderr));
        assert_eq!(out.status.code(), Some(2), "{args:?}: {all}");
        assert!(
            all.contains(needle),
            "{args:?}: missing {needle:?} in {all}"
        );
    }
    // A first run has no `last` baseline: said, not an error.
    let out = templiqx_in(dir.path())
        .args([
            "eval",
            "notice.yaml",
            "-t",
            "structured_output",
            "--provider",
            "fake",
        ])
        .args([
            "--db",
            "first.sqlite",
            "--baseline",
            "last",
            "--fail-on-regression",
        ])
        .output()
        .unwrap();
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("note: --baseline last: no earlier finished run of fake `fake`"),
        "{text}"
    );
    // The real providers need a base URL and a model.
    let out = templiqx_in(dir.path())
        .args([
            "eval",
            "notice.yaml",
            "-t",
            "structured_output",
            "--provider",
            "openai",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--base-url"));
}

#[test]
fn a_regression_between_two_runs_fails_the_gate_against_the_baseline() {
    let dir = contract_dir();
    // First run: 20 passing answers. Second: the server now answers 30
    // days 15 times out of 20.
    let mut replies: Vec<Reply> = (0..20).map(|_| answer(60)).collect();
    replies.extend((0..20).map(|i| answer(if i % 4 == 0 { 60 } else { 30 })));
    let (_rt, base) = server(replies);
    let first = eval_openai(dir.path(), &base, &["--repeat", "20", "--format", "json"]);
    assert_eq!(first.status.code(), Some(0), "{}", stdout(&first));
    let first_id = result(&first)["run"]["id"].as_i64().unwrap();
    let second = eval_openai(
        dir.path(),
        &base,
        &[
            "--repeat",
            "20",
            "--baseline",
            "last",
            "--fail-on-regression",
            "--format",
            "json",
            "--report",
            "report.html",
            "--junit",
            "junit.xml",
        ],
    );
    assert_eq!(second.status.code(), Some(1), "{}", stdout(&second));
    let r = result(&second);
    assert_eq!(
        r["baseline"].as_str().unwrap().split(' ').nth(1),
        Some(first_id.to_string().as_str())
    );
    let f = &r["comparison"]["fixtures"][0];
    assert_eq!(f["pass_rate"]["baseline"]["passed"], 20);
    assert_eq!(f["pass_rate"]["current"]["passed"], 5);
    assert_eq!(f["pass_rate"]["regression"], true);
    // Fisher's exact test on [[20, 0], [5, 15]]: p = 7.7e-7 (SciPy).
    let p = f["pass_rate"]["p_value"].as_f64().unwrap();
    assert!(p < 1e-5 && p > 1e-7, "{p}");
    assert_eq!(f["checks"][0]["comparison"]["regression"], true);
    // Schema validity did not change.
    assert_eq!(f["schema_valid_rate"]["regression"], false);
    assert_eq!(
        r["comparison"]["contracts"][0]["interaction_changed"],
        false
    );
    assert_eq!(r["gate"]["passed"], false);

    // The same comparison from a results file, and in the human output.
    std::fs::write(dir.path().join("first.json"), stdout(&first)).unwrap();
    let (_rt2, base2) = server((0..20).map(|_| answer(30)).collect());
    let third = eval_openai(
        dir.path(),
        &base2,
        &[
            "--repeat",
            "20",
            "--baseline",
            "first.json",
            "--fail-on-regression",
        ],
    );
    let text = stdout(&third);
    assert_eq!(third.status.code(), Some(1), "{text}");
    assert!(text.contains("compared with first.json"), "{text}");
    assert!(
        text.contains("100.0% → 0.0% (-100.0 points, p = 1.5e-11) regression"),
        "{text}"
    );
    assert!(
        text.contains(
            "error[TQX_EVAL_GATE]: gate failed for `notice::sixty-days`: regression: pass rate fell"
        ),
        "{text}"
    );

    // The reports were written: one self-contained page, one JUnit file
    // with the fixture failing.
    let html = std::fs::read_to_string(dir.path().join("report.html")).unwrap();
    assert!(html.contains("notice::sixty-days") || html.contains("sixty-days"));
    assert!(!html.contains("<script"));
    let junit = std::fs::read_to_string(dir.path().join("junit.xml")).unwrap();
    assert!(
        junit.contains("sixty-days") && junit.contains("<failure"),
        "{junit}"
    );
}

#[test]
fn the_cache_reuses_each_repeat_of_an_earlier_run_and_checks_it_again() {
    let dir = contract_dir();
    // Two different answers for the two repeats.
    let (_rt, base) = server(vec![answer(60), answer(30)]);
    let first = eval_openai(dir.path(), &base, &["--repeat", "2", "--format", "json"]);
    assert_eq!(result(&first)["stats"]["overall"]["distinct_outputs"], 2);
    // The server has nothing left: a second run must come from the cache,
    // and keep the two answers apart.
    let second = eval_openai(
        dir.path(),
        &base,
        &["--repeat", "2", "--cache", "--format", "json"],
    );
    assert_eq!(second.status.code(), Some(0), "{}", stdout(&second));
    let r = result(&second);
    let f = fixture(&r, "notice::sixty-days");
    assert_eq!(f["cached"], 2);
    assert_eq!(f["distinct_outputs"], 2);
    assert_eq!(f["pass_rate"]["passed"], 1);
    // An edited check is evaluated again on the cached outputs: the
    // request (and so the cache key) is unchanged.
    let edited = CONTRACT.replace(
        "{ kind: equals, left: { kind: ref, path: output.notice_days }, right: { kind: literal, value: 60 } }",
        "{ kind: compare, op: ge, left: { kind: ref, path: output.notice_days }, right: { kind: literal, value: 0 } }",
    );
    assert_ne!(edited, CONTRACT);
    std::fs::write(dir.path().join("notice.yaml"), edited).unwrap();
    let third = eval_openai(
        dir.path(),
        &base,
        &["--repeat", "2", "--cache", "--format", "json"],
    );
    let r = result(&third);
    let f = fixture(&r, "notice::sixty-days");
    assert_eq!(f["cached"], 2);
    assert_eq!(f["checks"][0]["rate"]["passed"], 2);
    assert_eq!(f["pass_rate"]["passed"], 2);
}

#[test]
fn the_fake_provider_skips_fixtures_without_fake_output_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "{CONTRACT}  - id: real-model-only\n    inputs: {{ clause: \"Notice: two months.\" }}\n"
    );
    std::fs::write(dir.path().join("notice.yaml"), text).unwrap();
    let run = |format: &str| {
        templiqx_in(dir.path())
            .args([
                "eval",
                "notice.yaml",
                "-t",
                "structured_output",
                "--provider",
                "fake",
            ])
            .args(["--db", ":memory:", "--format", format])
            .output()
            .unwrap()
    };
    let json = run("json");
    assert_eq!(json.status.code(), Some(0), "{}", stdout(&json));
    // One envelope, nothing else on standard output.
    let r = result(&json);
    assert_eq!(r["skipped"], json!(["notice::real-model-only"]));
    assert_eq!(r["stats"]["overall"]["fixtures"], 1);
    let human = stdout(&run("human"));
    assert!(
        human.contains("Skipping notice::real-model-only (no fake_output)"),
        "{human}"
    );
}

#[test]
fn an_interrupted_run_keeps_the_executions_it_finished() {
    let dir = tempfile::tempdir().unwrap();
    // The second answer never comes within the minute the contract allows.
    let slow = CONTRACT.replace("timeout_ms: 500", "timeout_ms: 60000");
    std::fs::write(dir.path().join("notice.yaml"), slow).unwrap();
    let (_rt, base) = server(vec![answer(60), Reply::Hang]);
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_templiqx"))
        .current_dir(dir.path())
        .args([
            "eval",
            "notice.yaml",
            "-t",
            "structured_output",
            "--provider",
            "openai",
        ])
        .args(["--base-url", &format!("{base}/v1"), "--model", "m"])
        .args(["--repeat", "2", "--concurrency", "1", "--db", "eval.sqlite"])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let count = || -> i64 {
        rusqlite::Connection::open(dir.path().join("eval.sqlite"))
            .and_then(|c| c.query_row("SELECT count(*) FROM executions", [], |r| r.get(0)))
            .unwrap_or(0)
    };
    // The first execution is committed within a second or so, while the
    // second one still waits.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while count() == 0 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(count(), 1);
}

/// Four `templiqx eval` processes started together on a history file that
/// does not exist yet: each stores its run and exits 0, none fails on the
/// schema's creation or a locked database.
#[test]
fn processes_creating_one_new_history_together_all_store_their_run() {
    let dir = contract_dir();
    let db = dir.path().join("new/eval.sqlite");
    let children: Vec<_> = (0..4)
        .map(|_| {
            std::process::Command::new(env!("CARGO_BIN_EXE_templiqx"))
                .current_dir(dir.path())
                .args(["eval", "notice.yaml", "--target", "structured_output"])
                .args(["--provider", "fake", "--repeat", "3", "--db"])
                .arg(&db)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let output = child.wait_with_output().unwrap();
        assert_eq!(
            output.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let conn = rusqlite::Connection::open(&db).unwrap();
    let (runs, executions): (i64, i64) = conn
        .query_row(
            "SELECT (SELECT count(*) FROM runs WHERE finished_at IS NOT NULL),
                    (SELECT count(*) FROM executions)",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((runs, executions), (4, 12));
}

/// A dataset entry is one fixture of the table with its rows counted
/// (`docs/eval.md`, "Datasets"): with the fake's `flaky-2` model every row
/// fails its second repeat, so no row passed every execution; the table
/// names the first 20 failing rows by id, the failures name each sample's
/// row, and `eval show` computes the same figures from the history.
#[test]
fn a_dataset_entry_counts_its_rows_and_names_the_failing_ones() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("eval.sqlite");
    let run = |format: &str| {
        templiqx()
            .args(["eval", "examples/crm3", "-t", "structured_output"])
            .args(["--provider", "fake", "--model", "flaky-2", "--repeat", "2"])
            .args(["--filter", "lease-term-extraction::labelled-leases#*"])
            .args(["--show-failures", "1", "--format", format])
            .arg("--db")
            .arg(&db)
            .output()
            .unwrap()
    };
    let human = run("human");
    let text = stdout(&human);
    assert!(
        text.contains("Evaluating 24 dataset row(s) × 2 repeat(s)"),
        "{text}"
    );
    assert_eq!(
        row(&text, "labelled-leases")[1..7],
        [
            "48",
            "24",
            "50.0% [36.4, 63.6]",
            "50.0% [36.4, 63.6]",
            "no",
            "24"
        ],
        "{text}"
    );
    assert!(
        text.contains("    rows: 24, 0 passed every execution 0.0% [0.0, 13.8]\n"),
        "{text}"
    );
    let listed: Vec<String> = (100..120).map(|n| format!("lease-0{n}")).collect();
    assert!(
        text.contains(&format!(
            "    failing rows (the first 20 of 24 by id): {}\n",
            listed.join(", ")
        )),
        "{text}"
    );
    assert!(
        text.contains("  lease-term-extraction::labelled-leases: 24 of 48 executions failed; the first 1\n    row lease-0"),
        "{text}"
    );
    let json = run("json");
    let entry = fixture(&result(&json), "lease-term-extraction::labelled-leases").clone();
    assert_eq!(entry["rows"]["rows"], 24);
    assert_eq!(entry["rows"]["passed_all"]["passed"], 0);
    assert_eq!(entry["rows"]["failing"], serde_json::json!(listed));
    // The stored run read back: the same entry.
    let show = templiqx()
        .args(["eval", "show", "last", "--format", "json"])
        .arg("--db")
        .arg(&db)
        .output()
        .unwrap();
    let shown = envelopes(&show)[0]["result"].clone();
    let stored = fixture(&shown, "lease-term-extraction::labelled-leases");
    assert_eq!(stored["rows"], entry["rows"], "{shown}");
    assert_eq!(stored["pass_rate"], entry["pass_rate"]);
    // The JUnit case of the entry carries its rows.
    let junit = dir.path().join("eval.xml");
    let out = templiqx()
        .args(["eval", "examples/crm3", "-t", "structured_output"])
        .args(["--provider", "fake", "--model", "flaky-2", "--repeat", "2"])
        .args([
            "--filter",
            "lease-term-extraction::labelled-leases",
            "--db",
            ":memory:",
        ])
        .arg("--junit")
        .arg(&junit)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let xml = std::fs::read_to_string(&junit).unwrap();
    for needle in [
        r#"<property name="rows" value="24"/>"#,
        r#"<property name="rows_passed_all" value="0"/>"#,
        "rows: 0 of 24 passed every execution; failing rows (20 of 24): [&quot;lease-0100&quot;,",
    ] {
        assert!(xml.contains(needle), "{needle}\n{xml}");
    }
}
