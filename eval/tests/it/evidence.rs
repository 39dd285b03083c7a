//! Every failure carries its evidence (`docs/eval.md`, "What each
//! execution records", "History"): the output the model gave, the values a
//! failed check read, the schema violations, the provider's message and
//! help, a cut-off output's finish reason; redacted by the adapter, kept
//! in the history (a version-1 file migrated in place) and read back.

use crate::common::{TWINS, block_on, compiled, target};
use rusqlite::Connection;
use serde_json::json;
use templiqx::{AdapterDescriptor, AdapterOutput, AsyncRuntimeAdapter};
use templiqx_contracts::{Code, Json, RenderedInteraction, RuntimeFailure};
use templiqx_eval::history::{History, SCHEMA_V1, SCHEMA_VERSION};
use templiqx_eval::{Eval, ExecutionRecord, Outcome, Verdict};

/// A model that always gives `answer`, and whose secret is `SECRET-KEY`.
struct Scripted {
    descriptor: AdapterDescriptor,
    answer: Result<Json, RuntimeFailure>,
}

impl Scripted {
    fn new(answer: Result<serde_json::Value, RuntimeFailure>) -> Scripted {
        Scripted {
            descriptor: AdapterDescriptor::new("scripted", target().iter()),
            answer: answer.map(Json::from),
        }
    }
}

impl AsyncRuntimeAdapter for Scripted {
    fn descriptor(&self) -> &AdapterDescriptor {
        &self.descriptor
    }

    fn redact(&self, text: &str) -> String {
        text.replace("SECRET-KEY", "[redacted]")
    }

    async fn invoke(
        &self,
        _request: &RenderedInteraction<'_>,
    ) -> Result<AdapterOutput, RuntimeFailure> {
        self.answer.clone().map(|output| AdapterOutput {
            output,
            usage: None,
        })
    }
}

fn run(model: &Scripted, history: &mut History, repeat: u32) -> Outcome {
    let contracts = compiled(TWINS, "twins");
    block_on(
        Eval::new(&contracts)
            .repeat(repeat)
            .samples(2)
            .history(history)
            .run(model),
    )
    .unwrap()
}

/// Every execution of the history's run `id`.
fn stored(history: &History, id: i64) -> Vec<ExecutionRecord> {
    let mut records = Vec::new();
    history.executions(id, |r| records.push(r)).unwrap();
    records
}

#[test]
fn a_failed_check_keeps_its_expression_and_the_values_it_read() {
    let mut history = History::in_memory().unwrap();
    let model = Scripted::new(Ok(json!({ "greeting": "Hello Ada, SECRET-KEY" })));
    let outcome = run(&model, &mut history, 3);
    // Two failing samples per fixture, not three: `samples(2)`.
    assert_eq!(outcome.samples.len(), 4);
    let casual = &outcome.samples[0];
    assert_eq!((casual.fixture.as_str(), casual.repeat), ("casual", 0));
    assert_eq!(
        casual.evidence.output.as_deref(),
        Some(r#"{"greeting":"Hello Ada, [redacted]"}"#)
    );
    let check = &casual.checks[0];
    assert_eq!(check.verdict, Verdict::Fail);
    assert_eq!(
        check.expression, r#"contains(output.greeting, "Hi")"#,
        "{check:?}"
    );
    let observed: Vec<(&str, Option<&str>)> = check
        .observed
        .iter()
        .map(|o| (o.expression.as_str(), o.value.as_deref()))
        .collect();
    assert_eq!(
        observed,
        [("output.greeting", Some(r#""Hello Ada, [redacted]""#))]
    );

    // The history holds the same, and gives it back.
    let records = stored(&history, outcome.run.id.unwrap());
    assert_eq!(records.len(), 6);
    let first = records
        .iter()
        .find(|r| r.fixture == "casual" && r.repeat == 0)
        .unwrap();
    assert_eq!(first.checks, casual.checks);
    assert_eq!(first.evidence, casual.evidence);
}

#[test]
fn a_schema_failure_keeps_the_output_and_its_violations() {
    let mut history = History::in_memory().unwrap();
    let model = Scripted::new(Ok(json!({ "greeting": 5, "note": "SECRET-KEY" })));
    let outcome = run(&model, &mut history, 1);
    let sample = &outcome.samples[0];
    assert_eq!(sample.code.as_deref(), Some("TQX_OUTPUT_SCHEMA"));
    assert_eq!(
        sample.evidence.output.as_deref(),
        Some(r#"{"greeting":5,"note":"[redacted]"}"#)
    );
    let violations: Vec<(&str, &str)> = sample
        .evidence
        .violations
        .iter()
        .map(|v| (v.pointer.as_str(), v.keyword.as_str()))
        .collect();
    assert_eq!(
        violations,
        [("/greeting", "type"), ("/note", "additionalProperties")]
    );
    assert!(sample.checks.iter().all(|c| c.verdict == Verdict::NotRun));
    let records = stored(&history, outcome.run.id.unwrap());
    assert_eq!(records[0].evidence, sample.evidence);

    // A reply that was not JSON is kept as the text the model wrote.
    let model = Scripted::new(Ok(json!("Sure! Here is SECRET-KEY")));
    let outcome = run(&model, &mut history, 1);
    assert_eq!(
        outcome.samples[0].evidence.output.as_deref(),
        Some("Sure! Here is [redacted]")
    );
}

#[test]
fn a_provider_failure_keeps_its_message_and_help_redacted() {
    let mut history = History::in_memory().unwrap();
    let mut failure = RuntimeFailure::new(
        Code::RuntimeUnavailable,
        "openai.unavailable",
        "openai answered HTTP 500 Internal Server Error: json_schema is not supported (key SECRET-KEY)",
    );
    failure.provider_message = Some(
        "Traceback (most recent call last):\n  File \"server.py\"\nValueError: json_schema is not supported (key SECRET-KEY)".into(),
    );
    let outcome = run(&Scripted::new(Err(failure)), &mut history, 1);
    let sample = &outcome.samples[0];
    assert_eq!(
        sample.evidence.message.as_deref(),
        Some(
            "openai answered HTTP 500 Internal Server Error: json_schema is not supported (key [redacted])"
        )
    );
    assert!(sample.evidence.help.is_some());
    // The whole message, traceback included, redacted too.
    assert_eq!(
        sample.evidence.provider_message.as_deref(),
        Some(
            "Traceback (most recent call last):\n  File \"server.py\"\nValueError: json_schema is not supported (key [redacted])"
        )
    );
    assert_eq!(sample.evidence.output, None);
    assert_eq!(sample.evidence.finish_reason, None);
    let id = outcome.run.id.unwrap();
    assert_eq!(stored(&history, id)[0].evidence, sample.evidence);
    assert!(
        outcome.notes[0].contains("failed before the model answered"),
        "{:?}",
        outcome.notes
    );
}

#[test]
fn an_output_cut_off_at_the_token_limit_says_so() {
    let mut history = History::in_memory().unwrap();
    let failure = RuntimeFailure::new(
        Code::RuntimeInvalidResponse,
        "openai.truncated",
        "the output was cut off at the token limit (finish_reason `length`) after 12 characters",
    )
    .with_output("{\"greeting\": \"Dear Ad");
    let outcome = run(&Scripted::new(Err(failure)), &mut history, 1);
    let evidence = &outcome.samples[0].evidence;
    assert_eq!(evidence.finish_reason.as_deref(), Some("length"));
    // What the model wrote before the limit, kept as text, with the
    // failure's help and no schema violations (it is not an output).
    assert_eq!(evidence.output.as_deref(), Some("{\"greeting\": \"Dear Ad"));
    assert!(evidence.violations.is_empty(), "{:?}", evidence.violations);
    assert!(evidence.help.is_some());
    assert_eq!(outcome.notes.len(), 1, "{:?}", outcome.notes);
    assert!(
        outcome.notes[0].starts_with("2 execution(s) of twins were cut off at the token limit")
            && outcome.notes[0].contains("sets no `runtime_policy.max_output_tokens`"),
        "{:?}",
        outcome.notes
    );
}

#[test]
fn a_version_1_history_is_migrated_in_place_and_keeps_its_runs() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("eval.sqlite");
    {
        // A file as the version-1 code wrote it, with one run.
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch(SCHEMA_V1).unwrap();
        conn.execute_batch(
            "PRAGMA user_version = 1;
             INSERT INTO runs VALUES (1, '2026-12-01T00:00:00Z', '2026-12-01T00:00:01Z',
               'fake', 'fake', '{}', 1, '0.1.0', '{}');
             INSERT INTO run_contracts VALUES (1, 'twins', 'c', 'i');
             INSERT INTO executions (run_id, contract, fixture, repeat, contract_fingerprint,
               interaction_fingerprint, request_fingerprint, provider, model, sampling,
               transport, code, schema_valid, latency_ms, attempts, output, cached)
             VALUES (1, 'twins', 'formal', 0, 'c', 'i', 'r', 'fake', 'fake', '{}', '{}',
               NULL, 1, 5.0, 1, '{\"greeting\":\"Dear Ada\"}', 0);
             INSERT INTO checks VALUES (1, 0, 'formal', 'pass');",
        )
        .unwrap();
    }
    let mut history = History::open(&path).unwrap();
    let version: i64 = Connection::open(&path)
        .unwrap()
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!((version, SCHEMA_VERSION), (7, 7));
    // The old run reads as it was, with the evidence it had: its output.
    let old = stored(&history, 1);
    assert_eq!(old.len(), 1);
    assert_eq!(
        old[0].evidence.output.as_deref(),
        Some(r#"{"greeting":"Dear Ada"}"#)
    );
    assert_eq!(old[0].checks[0].verdict, Verdict::Pass);
    let found = history.run("1").unwrap().unwrap();
    assert_eq!(found.interactions, [("twins".into(), "i".into())]);

    // A new run stores its evidence in the migrated file.
    let model = Scripted::new(Ok(json!({ "greeting": "Yo" })));
    let outcome = run(&model, &mut history, 1);
    assert_eq!(outcome.run.id, Some(2));
    drop(history);
    let history = History::open(&path).unwrap();
    assert_eq!(history.run("last").unwrap().unwrap().run.id, Some(2));
    let new = stored(&history, 2);
    let new: Vec<_> = new.iter().filter(|r| r.fixture == "casual").collect();
    assert_eq!(
        new[0].checks[0].expression,
        r#"contains(output.greeting, "Hi")"#
    );
    assert_eq!(
        new[0].checks[0].observed[0].value.as_deref(),
        Some(r#""Yo""#)
    );
}
