//! `--cache` (`docs/eval.md`, "Cache"): a cached run reports exactly what
//! an uncached one would, fixture by fixture, even when two fixtures send
//! the same request.

use crate::common::{Always, TWINS, block_on, compiled};
use serde_json::json;
use templiqx_eval::history::History;
use templiqx_eval::{Eval, Gate, Outcome};

/// (executions, passed, cached executions) of each fixture, by name.
fn per_fixture(outcome: &Outcome) -> Vec<(String, u64, u64)> {
    outcome
        .stats
        .fixtures
        .iter()
        .map(|f| {
            (
                format!("{}::{}", f.contract, f.fixture),
                f.summary.executions,
                f.summary.pass_rate.passed,
            )
        })
        .collect()
}

#[test]
fn fixtures_sending_one_request_are_cached_each_as_itself() {
    let contracts = compiled(TWINS, "twins");
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("eval.sqlite");
    let model = Always::new(json!({ "greeting": "Dear Ada" }));
    let gate = Gate {
        min_pass_rate: Some(0.5),
        ..Gate::default()
    };
    let run = |model: &Always| {
        let mut history = History::open(&db).unwrap();
        block_on(
            Eval::new(&contracts)
                .repeat(2)
                .cache(true)
                .history(&mut history)
                .gate(gate)
                .run(model),
        )
        .unwrap()
    };
    let expected = vec![
        ("twins::casual".to_owned(), 2, 0),
        ("twins::formal".to_owned(), 2, 2),
    ];

    let first = run(&model);
    assert_eq!(model.calls(), 4);
    assert_eq!(per_fixture(&first), expected);
    assert!(!first.gate.passed);

    let second = run(&model);
    assert_eq!(model.calls(), 4, "the cached run sends no request");
    assert_eq!(per_fixture(&second), expected);
    assert!(!second.gate.passed, "{:?}", second.gate);

    // Every stored row names its own fixture.
    let conn = rusqlite_rows(&db);
    assert_eq!(
        conn,
        vec![
            ("casual".to_owned(), 0, 2),
            ("casual".to_owned(), 1, 2),
            ("formal".to_owned(), 0, 2),
            ("formal".to_owned(), 1, 2),
        ]
    );
}

/// `(fixture, cached, count)` over the history's executions.
fn rusqlite_rows(db: &std::path::Path) -> Vec<(String, i64, i64)> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut select = conn
        .prepare(
            "SELECT fixture, cached, count(*) FROM executions
             GROUP BY fixture, cached ORDER BY fixture, cached",
        )
        .unwrap();
    select
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}
