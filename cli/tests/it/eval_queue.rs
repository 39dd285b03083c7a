//! Queue time (`docs/eval.md`, "Queue time"): `templiqx eval` against a
//! loopback server that serves one request at a time, as llama.cpp with
//! one slot does. At `--concurrency 4` the executions wait for each other:
//! the history and the JSON result record the wait apart from the
//! latency, and a note says so and suggests `--concurrency 1`; at
//! `--concurrency 1` nothing waits and no note is printed.

use crate::common::{stdout, templiqx_in};
use crate::eval::{CONTRACT, answer, result};
use std::path::Path;
use std::time::Duration;
use templiqx_fake_provider::{Reply, serve_with_slots};

/// Executions per run.
const EXECUTIONS: usize = 6;

/// A one-slot server taking 0.8 s per answer (a first request slowed by a
/// loaded machine still leaves the later ones comparable), on a runtime that
/// lives as long as the returned guard.
fn one_slot() -> (tokio::runtime::Runtime, String) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let replies = (0..EXECUTIONS)
        .map(|_| Reply::After(Duration::from_millis(800), Box::new(answer(60))))
        .collect();
    let (base, _fake) = runtime.block_on(serve_with_slots("/v1/chat/completions", replies, 1));
    (runtime, base)
}

fn eval(dir: &Path, base: &str, concurrency: &str, format: &str) -> std::process::Output {
    // Waiting in the server's queue takes longer than the usual 500 ms.
    let patient = CONTRACT.replace("timeout_ms: 500", "timeout_ms: 60000");
    std::fs::write(dir.join("notice.yaml"), patient).unwrap();
    templiqx_in(dir)
        .args(["eval", "notice.yaml", "-t", "structured_output"])
        .args(["--provider", "openai", "--base-url", &format!("{base}/v1")])
        .args(["--model", "m", "--repeat", &EXECUTIONS.to_string()])
        .args(["--concurrency", concurrency, "--db", "eval.sqlite"])
        .args(["--format", format])
        .output()
        .unwrap()
}

/// Per stored execution, `(queue_ms, latency_ms)`.
fn stored(dir: &Path) -> Vec<(f64, f64)> {
    let conn = rusqlite::Connection::open(dir.join("eval.sqlite")).unwrap();
    let mut select = conn
        .prepare("SELECT queue_ms, latency_ms FROM executions ORDER BY id")
        .unwrap();
    select
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

#[test]
fn executions_waiting_for_a_one_slot_server_are_told_apart_and_noted() {
    let dir = tempfile::tempdir().unwrap();
    let (_rt, base) = one_slot();
    let output = eval(dir.path(), &base, "4", "human");
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(0), "{text}");
    let note = text
        .lines()
        .find(|l| l.starts_with("note: executions spent"))
        .unwrap_or_else(|| panic!("no queue note in\n{text}"));
    assert!(
        note.contains("waiting for the server") && note.contains("--concurrency 1"),
        "{note}"
    );
    let executions = stored(dir.path());
    assert_eq!(executions.len(), EXECUTIONS);
    // The first answered without waiting; most of the others waited for
    // one or more answers before theirs (2.4 s behind three).
    assert_eq!(executions[0].0, 0.0, "{executions:?}");
    let waited = executions.iter().filter(|(q, _)| *q >= 250.0).count();
    assert!(waited >= EXECUTIONS / 2, "{executions:?}");
    let queue: f64 = executions.iter().map(|(q, _)| q).sum();
    let latency: f64 = executions.iter().map(|(_, l)| l).sum();
    assert!(queue > latency, "{executions:?}");
    // The latency left is the model's: about its 0.8 s, not the 3.2 s
    // from sending.
    for (_, latency) in &executions {
        assert!(*latency >= 600.0, "{executions:?}");
    }
}

#[test]
fn one_at_a_time_nothing_waits_and_no_note_is_printed() {
    let dir = tempfile::tempdir().unwrap();
    let (_rt, base) = one_slot();
    let output = eval(dir.path(), &base, "1", "json");
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    let result = result(&output);
    let notes = result["notes"].as_array().cloned().unwrap_or_default();
    assert!(
        notes
            .iter()
            .all(|n| !n.as_str().unwrap().contains("waiting for the server")),
        "{notes:?}"
    );
    assert_eq!(result["stats"]["overall"]["queue_ms"], 0.0, "{result}");
    assert_eq!(result["samples"][0]["queue_ms"], 0.0, "{result}");
    assert!(stored(dir.path()).iter().all(|(q, _)| *q == 0.0));
}
