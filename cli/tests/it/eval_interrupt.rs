//! `templiqx eval` interrupted by a signal (`docs/eval.md`, "Interrupting
//! a run"), run as a process against a loopback server whose second
//! answer never comes: once the first execution is in the history, SIGINT
//! (or SIGTERM) ends the run within the grace period, the reports of what
//! ran are written marked incomplete, the history marks the run
//! interrupted, one line says so, and the exit status is 130 (143).

use crate::eval::{CONTRACT, answer, server};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};
use templiqx_fake_provider::Reply;

/// `templiqx eval` on a contract that waits a minute for each answer,
/// against `base`, three repeats one at a time, with `extra` flags.
fn spawn(dir: &Path, base: &str, extra: &[&str]) -> Child {
    let slow = CONTRACT.replace("timeout_ms: 500", "timeout_ms: 60000");
    std::fs::write(dir.join("notice.yaml"), slow).unwrap();
    Command::new(env!("CARGO_BIN_EXE_templiqx"))
        .current_dir(dir)
        .args(["eval", "notice.yaml", "-t", "structured_output"])
        .args(["--provider", "openai", "--base-url", &format!("{base}/v1")])
        .args(["--model", "m", "--repeat", "3", "--concurrency", "1"])
        .args([
            "--db",
            "eval.sqlite",
            "--report",
            "eval.html",
            "--junit",
            "eval.xml",
        ])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits until the history holds an execution (the second one is then in
/// flight, unanswered), sends `signal`, and waits for the process to end.
fn interrupt(dir: &Path, mut child: Child, signal: &str) -> Output {
    let executions = || -> i64 {
        rusqlite::Connection::open(dir.join("eval.sqlite"))
            .and_then(|c| c.query_row("SELECT count(*) FROM executions", [], |r| r.get(0)))
            .unwrap_or(0)
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    while executions() == 0 {
        assert!(Instant::now() < deadline, "no execution stored within 60 s");
        assert!(child.try_wait().unwrap().is_none(), "eval ended early");
        std::thread::sleep(Duration::from_millis(50));
    }
    let sent = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    // The grace period is 5 s; a loaded machine gets far more.
    let deadline = Instant::now() + Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("eval did not end within 60 s of {signal}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

/// The run's `(interrupted_at, finished_at)` and its stored executions.
fn stored(dir: &Path) -> (Option<String>, Option<String>, i64) {
    let conn = rusqlite::Connection::open(dir.join("eval.sqlite")).unwrap();
    conn.query_row(
        "SELECT interrupted_at, finished_at, (SELECT count(*) FROM executions) FROM runs",
        [],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )
    .unwrap()
}

#[test]
fn sigint_writes_the_reports_of_what_ran_marks_the_run_interrupted_and_exits_130() {
    let dir = tempfile::tempdir().unwrap();
    let (_rt, base) = server(vec![answer(60), Reply::Hang]);
    let child = spawn(dir.path(), &base, &[]);
    let output = interrupt(dir.path(), child, "-INT");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(
        lines,
        [
            "templiqx eval: interrupted by SIGINT after 1 of 3 executions, 1 in flight cancelled; \
             run 1 is marked interrupted in the history (templiqx eval show 1); reports of what \
             ran: eval.html, eval.xml"
        ],
        "{stderr}"
    );
    // Human output: the Evaluating line, no table.
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(!stdout.contains("overall:"), "{stdout}");

    let (interrupted_at, finished_at, executions) = stored(dir.path());
    assert!(interrupted_at.is_some());
    assert_eq!((finished_at, executions), (None, 1));

    let html = std::fs::read_to_string(dir.path().join("eval.html")).unwrap();
    assert!(html.contains("<title>templiqx eval — run 1 (incomplete)</title>"));
    assert!(
        html.contains("<dd class=\"incomplete\" data-interrupted-at=\""),
        "{html}"
    );
    let xml = std::fs::read_to_string(dir.path().join("eval.xml")).unwrap();
    assert!(xml.contains("<property name=\"interrupted_at\""), "{xml}");
    assert!(xml.contains("<testcase name=\"incomplete\""), "{xml}");
    assert!(xml.contains("type=\"interrupted\""), "{xml}");

    // The stored run reads as interrupted, with what ran.
    let show = crate::common::templiqx_in(dir.path())
        .args(["eval", "show", "--db", "eval.sqlite"])
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&show.stdout);
    assert!(shown.contains(", interrupted at "), "{shown}");
}

#[test]
fn sigterm_prints_the_json_result_marked_incomplete_and_exits_143() {
    let dir = tempfile::tempdir().unwrap();
    let (_rt, base) = server(vec![answer(60), Reply::Hang]);
    let child = spawn(dir.path(), &base, &["--format", "json"]);
    let output = interrupt(dir.path(), child, "-TERM");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(143), "{stderr}");
    assert!(
        stderr.starts_with("templiqx eval: interrupted by SIGTERM after 1 of 3 executions"),
        "{stderr}"
    );
    let result = crate::eval::result(&output);
    assert_eq!(
        result["interrupted"],
        serde_json::json!({ "done": 1, "total": 3, "cancelled": 1 })
    );
    assert!(result["run"]["interrupted_at"].is_string(), "{result}");
    assert_eq!(result["stats"]["overall"]["executions"], 1, "{result}");
    assert!(
        result["notes"][0]
            .as_str()
            .unwrap()
            .starts_with("the run was interrupted after 1 of 3 executions"),
        "{result}"
    );
    let (interrupted_at, finished_at, _) = stored(dir.path());
    assert!(interrupted_at.is_some());
    assert_eq!(finished_at, None);
}
