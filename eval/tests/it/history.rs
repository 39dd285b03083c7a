//! The history under concurrent use (`docs/eval.md`, "History"): runs that
//! open a file that does not exist yet, or a version-1 file to migrate, at
//! the same moment, each store their run; a database another run is
//! writing is waited for.

use crate::common::{TWINS, block_on, compiled, target};
use serde_json::json;
use std::sync::{Arc, Barrier};
use templiqx::{AdapterDescriptor, AdapterOutput, AsyncRuntimeAdapter, Usage};
use templiqx_contracts::{Json, RenderedInteraction, RuntimeFailure};
use templiqx_eval::history::{
    History, MIGRATION_V2, MIGRATION_V3, MIGRATION_V4, MIGRATION_V5, MIGRATION_V6, SCHEMA_V1,
    SCHEMA_VERSION,
};
use templiqx_eval::{Eval, RunInfo};

fn run_info() -> RunInfo {
    RunInfo {
        id: None,
        started_at: "2026-12-06T00:00:00Z".into(),
        provider: "fake".into(),
        model: "fake".into(),
        sampling: "{}".into(),
        repeat: 1,
        interrupted_at: None,
        variants: Vec::new(),
        currency: None,
        max_cost: None,
    }
}

#[test]
fn connections_creating_one_new_history_together_all_store_their_run() {
    const OPENERS: usize = 6;
    let dir = tempfile::tempdir().unwrap();
    // Several fresh files: a race that a single try could miss.
    for attempt in 0..8 {
        let db = Arc::new(dir.path().join(format!("new-{attempt}/eval.sqlite")));
        let start = Arc::new(Barrier::new(OPENERS));
        let threads: Vec<_> = (0..OPENERS)
            .map(|_| {
                let (db, start) = (Arc::clone(&db), Arc::clone(&start));
                std::thread::spawn(move || {
                    start.wait();
                    let mut history = History::open(&db).map_err(|e| e.to_string())?;
                    let id = history.begin_run(&run_info()).map_err(|e| e.to_string())?;
                    history
                        .finish_run(id, "2026-12-06T00:00:01Z", "{}")
                        .map_err(|e| e.to_string())?;
                    Ok::<i64, String>(id)
                })
            })
            .collect();
        let mut ids: Vec<i64> = threads
            .into_iter()
            .map(|t| t.join().unwrap().unwrap())
            .collect();
        ids.sort_unstable();
        assert_eq!(
            ids,
            (1..=OPENERS as i64).collect::<Vec<_>>(),
            "attempt {attempt}"
        );
    }
}

#[test]
fn connections_opening_one_version_1_history_together_migrate_it_once() {
    const OPENERS: usize = 6;
    let dir = tempfile::tempdir().unwrap();
    for attempt in 0..4 {
        let db = Arc::new(dir.path().join(format!("v1-{attempt}.sqlite")));
        rusqlite::Connection::open(&*db)
            .unwrap()
            .execute_batch(&format!("{SCHEMA_V1} PRAGMA user_version = 1;"))
            .unwrap();
        let start = Arc::new(Barrier::new(OPENERS));
        let threads: Vec<_> = (0..OPENERS)
            .map(|_| {
                let (db, start) = (Arc::clone(&db), Arc::clone(&start));
                std::thread::spawn(move || {
                    start.wait();
                    let mut history = History::open(&db).map_err(|e| e.to_string())?;
                    history.begin_run(&run_info()).map_err(|e| e.to_string())
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap().unwrap();
        }
        let conn = rusqlite::Connection::open(&*db).unwrap();
        let version: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        let runs: i64 = conn
            .query_row("SELECT count(*) FROM runs", [], |r| r.get(0))
            .unwrap();
        assert_eq!(
            (version, runs),
            (SCHEMA_VERSION, OPENERS as i64),
            "attempt {attempt}"
        );
    }
}

/// A file of version 6 (templiqx before cached input tokens), of version 5
/// (before model-graded checks), of version 4
/// (before output recovery), of version 3 (before variants and cost), of
/// version 2 (before `runs.interrupted_at` and `executions.queue_ms`) and
/// of version 1 are migrated to version 7 in place: their runs keep what
/// they had (one variant, no cost, nothing recovered, no judge, no cached
/// tokens counted), and a run can be marked interrupted in them.
#[test]
fn histories_of_versions_1_to_6_are_migrated_to_7_and_keep_their_runs() {
    let dir = tempfile::tempdir().unwrap();
    for (version, schema) in [
        (1, SCHEMA_V1.to_owned()),
        (2, format!("{SCHEMA_V1} {MIGRATION_V2}")),
        (3, format!("{SCHEMA_V1} {MIGRATION_V2} {MIGRATION_V3}")),
        (
            4,
            format!("{SCHEMA_V1} {MIGRATION_V2} {MIGRATION_V3} {MIGRATION_V4}"),
        ),
        (
            5,
            format!("{SCHEMA_V1} {MIGRATION_V2} {MIGRATION_V3} {MIGRATION_V4} {MIGRATION_V5}"),
        ),
        (
            6,
            format!(
                "{SCHEMA_V1} {MIGRATION_V2} {MIGRATION_V3} {MIGRATION_V4} {MIGRATION_V5} {MIGRATION_V6}"
            ),
        ),
    ] {
        let db = dir.path().join(format!("v{version}.sqlite"));
        rusqlite::Connection::open(&db)
            .unwrap()
            .execute_batch(&format!(
                "{schema} PRAGMA user_version = {version};
                 INSERT INTO runs (started_at, finished_at, provider, model, sampling, repeat,
                   templiqx_version, stats)
                 VALUES ('2026-12-01T00:00:00Z', '2026-12-01T00:01:00Z', 'fake', 'fake', '{{}}', 1,
                   '0.1.0', '{{}}');"
            ))
            .unwrap();
        let mut history = History::open(&db).unwrap();
        let columns: Vec<String> = rusqlite::Connection::open(&db)
            .unwrap()
            .prepare("SELECT name FROM pragma_table_info('executions')")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert!(columns.iter().any(|c| c == "queue_ms"), "{columns:?}");
        for column in ["variant", "cost", "recovered", "cached_input_tokens"] {
            assert!(columns.iter().any(|c| c == column), "{columns:?}");
        }
        let check_columns: Vec<String> = rusqlite::Connection::open(&db)
            .unwrap()
            .prepare("SELECT name FROM pragma_table_info('checks')")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert!(
            check_columns.iter().any(|c| c == "judge"),
            "{check_columns:?}"
        );
        let old = history.run("1").unwrap().unwrap();
        assert!(old.run.variants.is_empty(), "version {version}");
        assert_eq!((old.run.currency, old.run.max_cost), (None, None));
        assert_eq!(old.finished_at.as_deref(), Some("2026-12-01T00:01:00Z"));
        assert_eq!(old.run.interrupted_at, None);
        assert_eq!(
            history
                .baseline("last", None, ("fake", "fake"))
                .unwrap()
                .map(|b| b.id),
            Some(1),
            "version {version}"
        );
        let id = history.begin_run(&run_info()).unwrap();
        history
            .interrupt_run(id, "2026-12-06T00:00:09Z", "{}")
            .unwrap();
        drop(history);
        let conn = rusqlite::Connection::open(&db).unwrap();
        let (now, interrupted, finished): (i64, Option<String>, Option<String>) = conn
            .query_row(
                "SELECT (SELECT user_version FROM pragma_user_version), interrupted_at, finished_at
                 FROM runs WHERE id = ?1",
                [id],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .unwrap();
        assert_eq!(
            (now, interrupted.as_deref(), finished),
            (SCHEMA_VERSION, Some("2026-12-06T00:00:09Z"), None),
            "version {version}"
        );
    }
    assert_eq!(SCHEMA_VERSION, 7);
}

#[test]
fn a_history_another_connection_is_writing_is_waited_for() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("eval.sqlite");
    let mut first = History::open(&db).unwrap();
    // Another writer holds the write lock for a while.
    let writer = rusqlite::Connection::open(&db).unwrap();
    writer.execute_batch("BEGIN IMMEDIATE").unwrap();
    let release = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(300));
        writer.execute_batch("COMMIT").unwrap();
    });
    let id = first.begin_run(&run_info()).unwrap();
    assert_eq!(id, 1);
    release.join().unwrap();
}

/// A model that always answers `{"greeting": "Dear Ada"}` with `usage`.
struct Counted {
    descriptor: AdapterDescriptor,
    usage: Option<Usage>,
}

impl AsyncRuntimeAdapter for Counted {
    fn descriptor(&self) -> &AdapterDescriptor {
        &self.descriptor
    }

    async fn invoke(
        &self,
        _request: &RenderedInteraction<'_>,
    ) -> Result<AdapterOutput, RuntimeFailure> {
        Ok(AdapterOutput {
            output: Json::from(json!({ "greeting": "Dear Ada" })),
            usage: self.usage,
        })
    }
}

/// An execution's cached input tokens (`docs/eval.md`, "Cost") reach the
/// history's `executions.cached_input_tokens` and are read back: the
/// provider's count, 0 when it reported usage without a cache hit, null
/// when it reported no usage.
#[test]
fn cached_input_tokens_are_stored_and_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("eval.sqlite");
    let contracts = compiled(TWINS, "twins");
    let usage = |cached| Usage {
        input_tokens: 2048,
        output_tokens: 9,
        cached_input_tokens: cached,
    };
    for (usage, expected) in [
        (Some(usage(1536)), Some(1536)),
        (Some(usage(0)), Some(0)),
        (None, None),
    ] {
        let model = Counted {
            descriptor: AdapterDescriptor::new("counted", target().iter()),
            usage,
        };
        let id = {
            let mut history = History::open(&db).unwrap();
            let outcome =
                block_on(Eval::new(&contracts).history(&mut history).run(&model)).unwrap();
            outcome.run.id.unwrap()
        };
        let history = History::open(&db).unwrap();
        let mut records = Vec::new();
        history.executions(id, |r| records.push(r)).unwrap();
        assert_eq!(records.len(), 2);
        for r in &records {
            assert_eq!(r.cached_input_tokens, expected, "{usage:?}");
            assert_eq!(r.input_tokens, usage.map(|u| u.input_tokens));
        }
        let column: Vec<Option<i64>> = rusqlite::Connection::open(&db)
            .unwrap()
            .prepare("SELECT cached_input_tokens FROM executions WHERE run_id = ?1")
            .unwrap()
            .query_map([id], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(column, [expected.map(|n| n as i64); 2]);
    }
}
