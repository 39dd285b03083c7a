//! A stored run read back from the history alone (`docs/eval.md`, "Showing
//! a stored run"): its statistics computed again from its executions, and
//! the evidence of the first failing and passing ones, as `templiqx eval
//! show` prints them — so a CI run can be explained after the fact from
//! its SQLite file.

use std::collections::BTreeMap;

use serde::Serialize;
use templiqx_contracts::{Code, Diagnostic};

use crate::history::History;
use crate::record::{ExecutionRecord, RunInfo};
use crate::select::FixtureFilter;
use crate::stats::{Accumulator, RunStats};

/// A run as the history keeps it: what `templiqx eval show --format json`
/// prints as its `result`.
#[derive(Clone, Debug, Serialize)]
pub struct StoredOutcome {
    /// The run.
    pub run: RunInfo,
    /// When it finished (RFC 3339); `None` for a run interrupted (or still
    /// running).
    pub finished_at: Option<String>,
    /// Its statistics over the executions stored (the fixtures the filter
    /// selects), computed as the run computed them.
    pub stats: RunStats,
    /// The notes the run printed about its figures (outputs cut off at the
    /// token limit, executions that failed before the model answered),
    /// made again from the same executions ([`Outcome::notes`](crate::Outcome::notes)
    /// without the baseline's).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Per fixture, its first `samples` failing and first `samples`
    /// passing executions with their evidence, by contract, fixture and
    /// repeat (as [`Outcome::samples`](crate::Outcome::samples)).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub samples: Vec<ExecutionRecord>,
}

/// The run `reference` names in `history` (`last`, the latest run, or a run
/// id), over the fixtures `filter` selects, keeping `samples` failing and
/// passing executions per fixture.
///
/// # Errors
///
/// A `TQX_IO` diagnostic when there is no such run, when a glob of
/// `filter` matches none of its fixtures, or when the history cannot be
/// read.
pub fn stored_run(
    history: &History,
    reference: &str,
    filter: &FixtureFilter,
    samples: usize,
) -> Result<StoredOutcome, Diagnostic> {
    let io = |e: crate::history::HistoryError| Diagnostic::error(Code::Io, e.to_string());
    let Some(found) = history.run(reference).map_err(io)? else {
        let what = if reference == "last" {
            "the eval history holds no run".to_owned()
        } else {
            format!("the eval history holds no run `{reference}`")
        };
        return Err(Diagnostic::error(Code::Io, what).help(
            "RUN is a run id (`templiqx eval` prints it: `run 3: gate …`) or `last`; --db names the history",
        ));
    };
    let id = found.run.id.unwrap_or_default();
    let mut accumulator = Accumulator::new();
    for (contract, fingerprint) in &found.interactions {
        accumulator.set_interaction_fingerprint(contract, fingerprint);
    }
    // Fixtures seen, with the samples kept of each (failing, passing).
    let mut seen: Vec<(String, usize, usize)> = Vec::new();
    let mut kept = Vec::new();
    let mut cut_off: BTreeMap<String, usize> = BTreeMap::new();
    history
        .executions(id, |record| {
            let name = format!("{}::{}", record.contract, record.fixture);
            let index = match seen.iter().position(|(n, ..)| *n == name) {
                Some(i) => i,
                None => {
                    seen.push((name, 0, 0));
                    seen.len() - 1
                }
            };
            if !filter.selects(&seen[index].0) {
                return;
            }
            accumulator.push(&record);
            if record.evidence.cut_off() {
                *cut_off.entry(record.contract.clone()).or_default() += 1;
            }
            let (_, failing, passing) = &mut seen[index];
            let count = if record.passed() { passing } else { failing };
            if *count < samples {
                *count += 1;
                kept.push(record);
            }
        })
        .map_err(io)?;
    let unmatched = filter.unmatched(seen.iter().map(|(n, ..)| n.as_str()));
    if let Some(glob) = unmatched.first() {
        return Err(Diagnostic::error(
            Code::Io,
            format!("--fixture `{glob}` matches no fixture of run {id}"),
        )
        .help("a glob over `contract::fixture`, e.g. `lease-*::*` or `*::dutch-client`"));
    }
    kept.sort_by(|a, b| {
        (&a.contract, &a.fixture, a.repeat).cmp(&(&b.contract, &b.fixture, b.repeat))
    });
    let stats = accumulator.stats();
    Ok(StoredOutcome {
        notes: crate::run::notes(&stats, &cut_off, &found.run.sampling),
        run: found.run,
        finished_at: found.finished_at,
        stats,
        samples: kept,
    })
}
