//! `templiqx eval` explains its failures (`docs/eval.md`, "Failures"):
//! against a scripted OpenAI-compatible server on loopback, a model that
//! fails the check with a known value, one that answers outside the
//! schema, one whose output is cut off at the token limit, and a server
//! that answers HTTP 500 with a message; the terminal, the history, the
//! HTML report and the JUnit file show each.

use crate::common::*;
use crate::eval::{answer, completion, contract_dir, eval_openai, result, server};
use serde_json::json;
use templiqx_fake_provider::Reply;

/// `repeat, output, response, message, finish_reason` of an execution.
type Row = (
    i64,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
);

/// One reply per outcome, in repeat order (concurrency 1).
fn replies() -> Vec<Reply> {
    vec![
        // repeat 0: the check reads 59, not 60.
        answer(59),
        // repeat 1: outside the schema.
        completion(r#"{"notice_days":"sixty"}"#),
        // repeat 2: the server refuses, with a message.
        Reply::Raw(
            500,
            vec![],
            r#"{"error":{"message":"CUDA out of memory while loading the model"}}"#.into(),
        ),
        // repeat 3: cut off at the token limit.
        Reply::ok(
            json!({ "id": "c", "object": "chat.completion", "choices": [{ "index": 0,
                "finish_reason": "length", "message": { "role": "assistant", "content": "{\"notice_d" } }] })
            .to_string(),
        ),
        // repeat 4: right.
        answer(60),
    ]
}

#[test]
fn the_terminal_shows_each_failure_with_its_values_and_messages() {
    let dir = contract_dir();
    let (_rt, base) = server(replies());
    let out = eval_openai(dir.path(), &base, &["--repeat", "5"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    let failures = text
        .split_once("failures\n")
        .unwrap_or_else(|| panic!("no failures section in\n{text}"))
        .1;
    // The first three, in repeat order.
    for expected in [
        "  notice::sixty-days: 4 of 5 executions failed; the first 3",
        "    repeat 0: check reads-sixty failed",
        "      check reads-sixty: equals(output.notice_days, 60)",
        "        output.notice_days = 59",
        "      output: {\"notice_days\":59}",
        "    repeat 1: TQX_OUTPUT_SCHEMA: the output violates the output schema (1 violation)",
        "      at /notice_days: expected integer, found string \"sixty\" (type)",
        "      output: {\"notice_days\":\"sixty\"}",
        "    repeat 2: TQX_RUNTIME_UNAVAILABLE: openai answered HTTP 500 Internal Server Error: CUDA out of memory while loading the model",
        "      help: ",
    ] {
        assert!(
            failures.lines().any(|l| l.starts_with(expected)),
            "no line {expected:?} in\n{text}"
        );
    }
    assert!(!failures.contains("repeat 3"), "{text}");
    // The cut-off output is a note of its own, not a provider failure.
    assert!(
        text.contains("note: 1 execution(s) of notice were cut off at the token limit"),
        "{text}"
    );

    // --show-failures 0 hides them; 5 shows the cut-off one too.
    let (_rt, base) = server(replies());
    let out = eval_openai(
        dir.path(),
        &base,
        &["--repeat", "5", "--show-failures", "0"],
    );
    assert!(!stdout(&out).contains("failures\n"), "{}", stdout(&out));
    let (_rt, base) = server(replies());
    let out = eval_openai(
        dir.path(),
        &base,
        &["--repeat", "5", "--show-failures", "5"],
    );
    let text = stdout(&out);
    assert!(
        text.contains("    repeat 3: cut off at the token limit (finish reason `length`), TQX_RUNTIME_INVALID_RESPONSE: "),
        "{text}"
    );
    assert!(text.contains("4 of 5 executions failed\n"), "{text}");
}

#[test]
fn the_history_and_the_json_result_hold_the_evidence() {
    let dir = contract_dir();
    let (_rt, base) = server(replies());
    let out = eval_openai(dir.path(), &base, &["--repeat", "5", "--format", "json"]);
    let r = result(&out);
    let samples = r["samples"].as_array().unwrap();
    // Three failing and one passing execution kept.
    assert_eq!(samples.len(), 4, "{samples:?}");
    assert_eq!(
        samples[0]["checks"][0]["observed"][0],
        json!({ "expression": "output.notice_days", "value": "59" })
    );

    let conn = rusqlite::Connection::open(dir.path().join("eval.sqlite")).unwrap();
    let rows: Vec<Row> = conn
        .prepare("SELECT repeat, output, response, message, finish_reason FROM executions ORDER BY repeat")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(rows[0].1.as_deref(), Some(r#"{"notice_days":59}"#));
    assert_eq!(rows[1].2.as_deref(), Some(r#"{"notice_days":"sixty"}"#));
    assert!(
        rows[2]
            .3
            .as_deref()
            .unwrap()
            .contains("CUDA out of memory while loading the model"),
        "{rows:?}"
    );
    assert_eq!(rows[3].4.as_deref(), Some("length"));
    let observed: String = conn
        .query_row(
            "SELECT c.observed FROM checks c JOIN executions e ON e.id = c.execution_id
             WHERE e.repeat = 0",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(
        observed,
        r#"[{"expression":"output.notice_days","value":"59"}]"#
    );
    let violation: (String, String) = conn
        .query_row("SELECT pointer, keyword FROM violations", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap();
    assert_eq!(violation, ("/notice_days".into(), "type".into()));
}

#[test]
fn the_report_drills_down_and_the_junit_file_names_checks_and_values() {
    let dir = contract_dir();
    let (_rt, base) = server(vec![
        answer(59),
        // Not JSON, with markup and a control character.
        completion("<b>not json</b>\u{7}"),
        Reply::Raw(
            500,
            vec![],
            r#"{"error":{"message":"CUDA out of memory <oom>"}}"#.into(),
        ),
        answer(60),
    ]);
    let out = eval_openai(
        dir.path(),
        &base,
        &[
            "--repeat",
            "4",
            "--min-pass-rate",
            "0.9",
            "--report",
            "eval.html",
            "--junit",
            "eval.xml",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let html = std::fs::read_to_string(dir.path().join("eval.html")).unwrap();
    for expected in [
        "<h3>Executions</h3>",
        "<code>sixty-days</code>: 3 of 4 execution(s) failed</h4>",
        "<article class=\"execution failed\" data-fixture=\"notice::sixty-days\" data-repeat=\"0\" data-passed=\"false\" data-code=\"\">",
        "<tr class=\"failed-check\" data-check=\"reads-sixty\" data-verdict=\"fail\">",
        "<code>equals(output.notice_days, 60)</code>",
        "<li class=\"observed\" data-expression=\"output.notice_days\" data-value=\"59\"><code>output.notice_days = 59</code></li>",
        "<pre class=\"output\">{\n  &quot;notice_days&quot;: 59\n}</pre>",
        // The reply that was not JSON, escaped, its BEL shown.
        "<pre class=\"output\">&lt;b&gt;not json&lt;/b&gt;\\u{7}</pre>",
        "<span class=\"fail\">TQX_RUNTIME_UNAVAILABLE: openai answered HTTP 500 Internal Server Error: CUDA out of memory &lt;oom&gt;</span>",
        "<p class=\"help\">help: ",
        // The passing execution, collapsed.
        "<details class=\"passing\" data-fixture=\"notice::sixty-days\"><summary>1 passing execution(s) of 1 (the first 1)</summary>",
        "<article class=\"execution passed\" data-fixture=\"notice::sixty-days\" data-repeat=\"3\"",
    ] {
        assert!(html.contains(expected), "no {expected:?} in\n{html}");
    }
    assert!(!html.contains("<script"), "{html}");
    assert!(!html.contains('\u{7}'), "a raw BEL in the report");
    assert!(
        !html.contains("<oom>") && !html.contains("<b>not"),
        "{html}"
    );

    let xml = std::fs::read_to_string(dir.path().join("eval.xml")).unwrap();
    assert!(
        xml.contains(
            "; repeat 0: check reads-sixty: equals(output.notice_days, 60) with output.notice_days = 59\""
        ),
        "{xml}"
    );
    assert!(
        xml.contains("repeat 2: TQX_RUNTIME_UNAVAILABLE: openai answered HTTP 500 Internal Server Error: CUDA out of memory &lt;oom&gt;"),
        "{xml}"
    );
    assert!(!xml.contains('\u{7}'), "a raw BEL in the JUnit file");
}

/// The table, the failures and the notes of an output: from the first
/// contract's title to the gate's line (or the end).
fn table_and_failures(text: &str) -> &str {
    let start = text
        .find("\ncontract ")
        .unwrap_or_else(|| panic!("no table in\n{text}"));
    let end = text.find("\nrun 1: gate").unwrap_or(text.len());
    text[start..end].trim()
}

#[test]
fn eval_show_prints_a_stored_run_again_from_the_history_alone() {
    let dir = contract_dir();
    let (_rt, base) = server(replies());
    let out = eval_openai(dir.path(), &base, &["--repeat", "5"]);
    let ran = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{ran}");

    // Another directory, with the history file and nothing else.
    let elsewhere = tempfile::tempdir().unwrap();
    let db = elsewhere.path().join("ci.sqlite");
    std::fs::copy(dir.path().join("eval.sqlite"), &db).unwrap();
    let show = |args: &[&str]| {
        templiqx_in(elsewhere.path())
            .args(["eval", "show"])
            .args(args)
            .args(["--db", "ci.sqlite"])
            .output()
            .unwrap()
    };
    for args in [&[][..], &["last"], &["1"]] {
        let out = show(args);
        let shown = stdout(&out);
        assert_eq!(out.status.code(), Some(0), "{shown}");
        assert!(
            shown.starts_with("run 1: openai `fake-model`, 5 repeat(s), started "),
            "{shown}"
        );
        assert_eq!(table_and_failures(&shown), table_and_failures(&ran));
    }

    // --format json: the run, the statistics and the samples.
    let out = show(&["--format", "json", "--show-failures", "5"]);
    let r = result(&out);
    assert_eq!(r["run"]["id"], 1);
    assert!(r["finished_at"].is_string());
    assert_eq!(r["stats"]["overall"]["executions"], 5);
    let samples = r["samples"].as_array().unwrap();
    assert_eq!(samples.len(), 5, "{samples:?}");
    assert_eq!(samples[3]["evidence"]["finish_reason"], "length");
    assert_eq!(
        samples[0]["checks"][0]["observed"][0]["value"], "59",
        "{samples:?}"
    );

    // --report writes the drill-down from the file alone.
    let out = show(&["--report", "again.html"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let html = std::fs::read_to_string(elsewhere.path().join("again.html")).unwrap();
    assert!(
        html.contains("data-expression=\"output.notice_days\" data-value=\"59\""),
        "{html}"
    );

    // --fixture selects; a glob that matches nothing, a run or a history
    // that is not there are usage errors.
    let out = show(&["--fixture", "notice::*", "--show-failures", "0"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(!stdout(&out).contains("failures\n"));
    for (args, message) in [
        (
            &["--fixture", "other::*"][..],
            "--fixture `other::*` matches no fixture of run 1",
        ),
        (&["7"], "the eval history holds no run `7`"),
    ] {
        let out = show(args);
        assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(message)
                || stdout(&out).contains(message),
            "{message}: {}{}",
            stdout(&out),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let out = templiqx_in(elsewhere.path())
        .args(["eval", "show", "--db", "missing.sqlite"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(!elsewhere.path().join("missing.sqlite").exists());

    // Showing never writes: the history's bytes are those copied, and an
    // empty file stays empty (it holds no history; it is not made one).
    assert_eq!(
        std::fs::read(&db).unwrap(),
        std::fs::read(dir.path().join("eval.sqlite")).unwrap()
    );
    std::fs::write(elsewhere.path().join("empty.sqlite"), b"").unwrap();
    let out = templiqx_in(elsewhere.path())
        .args(["eval", "show", "--db", "empty.sqlite"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let said = format!("{}{}", stdout(&out), String::from_utf8_lossy(&out.stderr));
    assert!(said.contains("holds no eval history"), "{said}");
    assert_eq!(
        std::fs::metadata(elsewhere.path().join("empty.sqlite"))
            .unwrap()
            .len(),
        0
    );
}

#[test]
fn a_server_refusing_json_schema_gets_the_help_that_fits_in_the_failures() {
    let dir = contract_dir();
    // llama.cpp's answer to `response_format: json_schema`.
    let refusal = r#"{"error":{"code":500,"message":"response_format type must be one of \"text\" or \"json_object\", but got: json_schema","type":"server_error"}}"#;
    let (_rt, base) = server(vec![Reply::Raw(500, vec![], refusal.into())]);
    let out = eval_openai(dir.path(), &base, &[]);
    let text = stdout(&out);
    assert!(
        text.contains("    repeat 0: TQX_RUNTIME_PERMANENT: openai answered HTTP 500 Internal Server Error: response_format type must be one of \"text\" or \"json_object\", but got: json_schema\n"),
        "{text}"
    );
    let help = text
        .lines()
        .find(|l| l.starts_with("      help: "))
        .unwrap_or_else(|| panic!("no help in\n{text}"));
    assert!(
        help.contains("--structured-output json-object-schema"),
        "{help}"
    );
}
