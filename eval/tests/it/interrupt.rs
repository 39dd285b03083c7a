//! A run interrupted through the runner's API ([`Eval::interrupt`],
//! `docs/eval.md`, "Interrupting a run"): no execution is issued after the
//! interruption, the executions in flight finish within the grace period
//! or are cancelled when it ends, and the outcome and the history say the
//! run was interrupted and cover what ran. The adapter here decides when
//! each call answers, so nothing depends on timing.

use crate::common::{TWINS, block_on, compiled, target};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use templiqx::{AdapterDescriptor, AdapterOutput, AsyncRuntimeAdapter};
use templiqx_contracts::{Json, RenderedInteraction, RuntimeFailure};
use templiqx_eval::history::History;
use templiqx_eval::{Eval, Interrupted, Outcome};
use tokio::sync::{Notify, Semaphore};

/// A model whose first `quick` calls answer at once and whose later ones
/// wait for a permit of `held`; the call numbered `signal_at` (from 1)
/// notifies `started`.
struct Gated {
    descriptor: AdapterDescriptor,
    quick: usize,
    signal_at: usize,
    calls: AtomicUsize,
    started: Arc<Notify>,
    held: Arc<Semaphore>,
}

impl Gated {
    fn new(quick: usize, signal_at: usize) -> Gated {
        Gated {
            descriptor: AdapterDescriptor::new("gated", target().iter()),
            quick,
            signal_at,
            calls: AtomicUsize::new(0),
            started: Arc::new(Notify::new()),
            held: Arc::new(Semaphore::new(0)),
        }
    }
}

impl AsyncRuntimeAdapter for Gated {
    fn descriptor(&self) -> &AdapterDescriptor {
        &self.descriptor
    }

    async fn invoke(
        &self,
        _request: &RenderedInteraction<'_>,
    ) -> Result<AdapterOutput, RuntimeFailure> {
        let call = self.calls.fetch_add(1, Ordering::SeqCst) + 1;
        if call == self.signal_at {
            self.started.notify_one();
        }
        if call > self.quick {
            let _permit = self.held.acquire().await;
        }
        Ok(AdapterOutput {
            output: Json::from(serde_json::json!({ "greeting": "Hi Ada" })),
            usage: None,
        })
    }
}

/// Runs `eval` over the two fixtures five times each (ten executions), two
/// in flight, stored in `history`.
fn ten_two_at_a_time<'a>(eval: Eval<'a>, adapter: &Gated, history: &'a mut History) -> Outcome {
    block_on(eval.repeat(5).concurrency(2).history(history).run(adapter)).unwrap()
}

#[test]
fn executions_in_flight_past_the_grace_period_are_cancelled_and_the_run_marked_interrupted() {
    let contracts = compiled(TWINS, "twins");
    // Two in flight: calls 1 to 3 answer, 4 and 5 never do; the
    // interruption comes when call 5 starts.
    let adapter = Gated::new(3, 5);
    let started = Arc::clone(&adapter.started);
    let mut history = History::in_memory().unwrap();
    let eval = Eval::new(&contracts)
        .interrupt(async move { started.notified().await })
        .grace(Duration::from_millis(50));
    let outcome = ten_two_at_a_time(eval, &adapter, &mut history);
    assert_eq!(
        outcome.interrupted,
        Some(Interrupted {
            done: 3,
            total: 10,
            cancelled: 2
        })
    );
    // Nothing was issued after the interruption.
    assert_eq!(adapter.calls.load(Ordering::SeqCst), 5);
    assert_eq!(outcome.stats.overall.summary.executions, 3);
    assert!(outcome.run.interrupted_at.is_some());
    assert!(
        outcome.notes[0].contains("interrupted after 3 of 10 executions, 2 in flight cancelled"),
        "{:?}",
        outcome.notes
    );
    let json = serde_json::to_value(&outcome).unwrap();
    assert_eq!(json["interrupted"]["cancelled"], 2);
    assert!(json["run"]["interrupted_at"].is_string(), "{json}");

    // The history keeps the three and marks the run interrupted, not
    // finished: it is never a baseline.
    let stored = history.run("last").unwrap().unwrap();
    assert_eq!(stored.finished_at, None);
    assert_eq!(stored.run.interrupted_at, outcome.run.interrupted_at);
    let mut executions = 0;
    history.executions(1, |_| executions += 1).unwrap();
    assert_eq!(executions, 3);
    assert_eq!(
        history.baseline("last", None, ("gated", "gated")).unwrap(),
        None
    );
}

#[test]
fn executions_in_flight_finish_within_the_grace_period_and_are_counted() {
    let contracts = compiled(TWINS, "twins");
    let adapter = Gated::new(3, 5);
    let (started, held) = (Arc::clone(&adapter.started), Arc::clone(&adapter.held));
    let mut history = History::in_memory().unwrap();
    // Once interrupted, the two in flight may answer: well within the
    // default 5 s.
    let eval = Eval::new(&contracts).interrupt(async move {
        started.notified().await;
        held.add_permits(100);
    });
    let outcome = ten_two_at_a_time(eval, &adapter, &mut history);
    assert_eq!(
        outcome.interrupted,
        Some(Interrupted {
            done: 5,
            total: 10,
            cancelled: 0
        })
    );
    assert_eq!(adapter.calls.load(Ordering::SeqCst), 5);
    assert_eq!(outcome.stats.overall.summary.executions, 5);
    let mut executions = 0;
    history.executions(1, |_| executions += 1).unwrap();
    assert_eq!(executions, 5);
}

#[test]
fn an_interruption_after_the_last_execution_changes_nothing() {
    let contracts = compiled(TWINS, "twins");
    let adapter = Gated::new(usize::MAX, 0);
    let mut history = History::in_memory().unwrap();
    let outcome = block_on(
        Eval::new(&contracts)
            .repeat(2)
            .history(&mut history)
            .interrupt(std::future::pending())
            .run(&adapter),
    )
    .unwrap();
    assert_eq!(outcome.interrupted, None);
    assert_eq!(outcome.run.interrupted_at, None);
    assert!(history.run("last").unwrap().unwrap().finished_at.is_some());
}

/// An interruption by a timer (as a signal, it needs the runtime's
/// drivers) reaches a run whose executions all finish at once (as the
/// `fake` provider's and answers from `--cache` do): the runner yields to
/// the runtime now and then, so the run stops long before its last
/// execution.
#[test]
fn a_timer_interrupts_a_run_of_instant_executions() {
    let contracts = compiled(TWINS, "twins");
    // Every call answers at once.
    let adapter = Gated::new(usize::MAX, 0);
    // 50,000 executions: seconds of work without the interruption.
    let outcome = block_on(
        Eval::new(&contracts)
            .repeat(25_000)
            .concurrency(64)
            .samples(0)
            .interrupt(async { tokio::time::sleep(Duration::from_millis(5)).await })
            .grace(Duration::from_millis(0))
            .run(&adapter),
    )
    .unwrap();
    let interrupted = outcome.interrupted.expect("the timer interrupted the run");
    assert_eq!(interrupted.total, 50_000);
    assert!(interrupted.done < interrupted.total, "{interrupted:?}");
}
