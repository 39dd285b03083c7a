//! Queue time told from the client side (`docs/eval.md`, "Queue time"):
//! how long each execution waited for the server before the model worked
//! on it, read from the run's own executions.
//!
//! A server that serves one request at a time (llama.cpp with one slot)
//! begins on a request when the one before it finishes: an execution in
//! flight while another of the run finished waited, under that reading,
//! from its sending until the last such finish, and the model's own time
//! is what remains. A server that serves requests side by side finishes
//! them independently: what remains after the last finish is then much
//! shorter than the model's time. The model's time is known from the
//! executions during whose flight no other finished (the run's first
//! always is one): they waited for nothing of the run under any server.
//! So an execution counts as having waited only when what remains is at
//! least half the fastest such time of its fixture (the same request), or,
//! for a fixture without one, when the run's executions so judged have
//! spent at least [`WAITING`] of their time waiting. At `--concurrency 1`
//! nothing waits.

use std::collections::HashMap;
use std::time::Instant;

/// The share of their time from sending that executions spent waiting
/// above which the run is said to wait for its server (a note suggests a
/// lower `--concurrency`): 0.4, since at `--concurrency 2` on a server that
/// serves one at a time each execution waits half its time.
pub(crate) const WAITING: f64 = 0.4;

/// What remains of an execution after its wait must be at least this share
/// of the fastest time of its fixture that did not wait.
const CONSISTENT: f64 = 0.5;

/// The run's executions as they finish, one queue time each.
#[derive(Debug)]
pub(crate) struct Queueing {
    concurrency: usize,
    /// When the latest execution of the run finished.
    last_done: Option<Instant>,
    /// Per fixture (by index): the fastest time from sending of its
    /// executions during whose flight no other finished, in ms. A dataset
    /// row's is forgotten once its executions are in ([`Queueing::forget`]).
    solo: HashMap<usize, f64>,
    /// Over the executions judged against their fixture's fastest time:
    /// the time they waited, and their time from sending, in ms.
    waited_ms: f64,
    judged_ms: f64,
}

impl Queueing {
    /// For a run with `concurrency` executions in flight.
    pub(crate) fn new(concurrency: usize) -> Queueing {
        Queueing {
            concurrency,
            last_done: None,
            solo: HashMap::new(),
            waited_ms: 0.0,
            judged_ms: 0.0,
        }
    }

    /// The queue time, in ms, of an execution of fixture `fixture` sent at
    /// `sent` and finished at `done`; executions are given as they finish.
    pub(crate) fn observe(&mut self, fixture: usize, sent: Instant, done: Instant) -> f64 {
        let whole = ms(done.saturating_duration_since(sent));
        // The latest finish of another execution while this one was in
        // flight.
        let previous = self.last_done.filter(|t| *t > sent && *t < done);
        self.last_done = self.last_done.max(Some(done));
        if self.concurrency <= 1 {
            return 0.0;
        }
        let Some(previous) = previous else {
            let solo = self.solo.entry(fixture).or_insert(whole);
            *solo = solo.min(whole);
            return 0.0;
        };
        let waited = ms(previous.saturating_duration_since(sent));
        let remains = whole - waited;
        match self.solo.get(&fixture).copied() {
            Some(solo) => {
                let queue = if remains >= CONSISTENT * solo {
                    waited
                } else {
                    0.0
                };
                self.waited_ms += queue;
                self.judged_ms += whole;
                queue
            }
            // No time of this request without a wait: the run's judgement.
            None if self.judged_ms > 0.0 && self.waited_ms >= WAITING * self.judged_ms => waited,
            None => 0.0,
        }
    }

    /// Forgets fixture `fixture`: a dataset row whose executions are all in.
    pub(crate) fn forget(&mut self, fixture: usize) {
        self.solo.remove(&fixture);
    }
}

fn ms(d: std::time::Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

#[cfg(test)]
mod tests {
    use super::Queueing;
    use std::time::{Duration, Instant};

    /// `(fixture, sent, done)` in ms from `t0`, in the order they finish.
    fn queues(concurrency: usize, executions: &[(usize, u64, u64)]) -> Vec<f64> {
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        let mut q = Queueing::new(concurrency);
        executions
            .iter()
            .map(|&(f, sent, done)| q.observe(f, at(sent), at(done)).round())
            .collect()
    }

    #[test]
    fn a_server_serving_one_at_a_time_makes_executions_wait_for_each_other() {
        // Four sent together, 100 ms each, one after another; then each
        // sent as one finishes.
        let waited = queues(
            4,
            &[
                (0, 0, 100),
                (0, 0, 200),
                (0, 0, 300),
                (0, 0, 400),
                (0, 100, 500),
                (0, 200, 600),
            ],
        );
        assert_eq!(waited, [0.0, 100.0, 200.0, 300.0, 300.0, 300.0]);
    }

    #[test]
    fn a_server_serving_side_by_side_makes_next_to_nothing_wait() {
        // Four together, about 400 ms each, finishing close together; the
        // next ones sent as they finish. Only the one sent just before
        // another finished is read as having waited, those few ms.
        let waited = queues(
            4,
            &[
                (0, 0, 400),
                (0, 0, 405),
                (0, 0, 410),
                (0, 0, 415),
                (0, 400, 800),
                (0, 405, 806),
            ],
        );
        assert_eq!(waited, [0.0, 0.0, 0.0, 0.0, 15.0, 0.0]);
    }

    #[test]
    fn a_fixture_never_seen_alone_follows_the_run() {
        // One slot, two fixtures alternating: fixture 1 is never alone.
        let serial = queues(2, &[(0, 0, 100), (1, 0, 200), (0, 100, 300), (1, 200, 400)]);
        assert_eq!(serial, [0.0, 0.0, 100.0, 100.0]);
        // Nothing waits at concurrency 1.
        assert_eq!(queues(1, &[(0, 0, 100), (1, 100, 200)]), [0.0, 0.0]);
    }
}
