//! A stored run read back from the history alone (`docs/eval.md`, "Showing
//! a stored run"): its statistics computed again from its executions, and
//! the evidence of the first failing and passing ones, as `templiqx eval
//! show` prints them — so a CI run can be explained after the fact from
//! its SQLite file.

use std::collections::BTreeMap;

use serde::Serialize;
use templiqx_contracts::{Code, Diagnostic};

use crate::compare::compare;
use crate::cost::CostTotals;
use crate::history::History;
use crate::record::{ExecutionRecord, RunInfo};
use crate::run::VariantOutcome;
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
    /// selects), computed as the run computed them: in a run of several
    /// variants, the first's.
    pub stats: RunStats,
    /// In a run of several variants: each one's statistics and each later
    /// one's comparison with the first, as the run had them
    /// ([`Outcome::variants`](crate::Outcome::variants)).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub variants: Vec<VariantOutcome>,
    /// What the run cost, when it had a price table
    /// ([`Outcome::cost`](crate::Outcome::cost)).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost: Option<CostTotals>,
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
    accumulator.set_costed(found.run.currency.is_some());
    accumulator.set_repeat(found.run.repeat);
    for (contract, fingerprint) in &found.interactions {
        accumulator.set_interaction_fingerprint(contract, fingerprint);
    }
    // One per variant (one for a run of one), in the run's order.
    let names: Vec<&str> = found.run.variants.iter().map(|v| v.name.as_str()).collect();
    let nv = names.len().max(1);
    let mut accumulators = vec![accumulator; nv];
    let mut cut_off: Vec<BTreeMap<String, usize>> = vec![BTreeMap::new(); nv];
    let variant_of = |record: &ExecutionRecord| {
        record
            .variant
            .as_deref()
            .and_then(|v| names.iter().position(|n| *n == v))
            .unwrap_or(0)
    };
    // The globs that matched a fixture, and the samples kept, as the run
    // kept them (per entry for a dataset's rows).
    let mut matched = vec![false; filter.len()];
    let mut sampler = crate::samples::Sampler::new(samples);
    let mut kept = Vec::new();
    history
        .executions(id, |record| {
            let name = format!("{}::{}", record.contract, record.fixture);
            // A dataset row is selected by its own name or its entry's.
            let entry = crate::select::dataset_row(&record.fixture).is_some_and(|(e, _)| {
                filter.mark(&format!("{}::{e}", record.contract), &mut matched)
            });
            if !(filter.mark(&name, &mut matched) || entry) {
                return;
            }
            let v = variant_of(&record);
            accumulators[v].push(&record);
            if record.evidence.cut_off() {
                *cut_off[v].entry(record.contract.clone()).or_default() += 1;
            }
            if sampler.take(v, &record) {
                kept.push(record);
            }
        })
        .map_err(io)?;
    let unmatched = filter.unmatched_of(&matched);
    if let Some(glob) = unmatched.first() {
        return Err(Diagnostic::error(
            Code::Io,
            format!("--fixture `{glob}` matches no fixture of run {id}"),
        )
        .help("a glob over `contract::fixture`, e.g. `lease-*::*` or `*::dutch-client`"));
    }
    kept.sort_by(|a, b| {
        (&a.contract, &a.fixture, variant_of(a), a.repeat).cmp(&(
            &b.contract,
            &b.fixture,
            variant_of(b),
            b.repeat,
        ))
    });
    let all: Vec<RunStats> = accumulators.iter().map(Accumulator::stats).collect();
    let mut notes = Vec::new();
    for (i, s) in all.iter().enumerate() {
        let prefix = names
            .get(i)
            .map_or_else(String::new, |n| format!("variant {n}: "));
        notes.extend(
            crate::run::notes(s, &cut_off[i], &found.run.sampling)
                .into_iter()
                .map(|n| format!("{prefix}{n}")),
        );
    }
    let cost = found.run.currency.as_ref().map(|_| {
        let mut total = CostTotals::default();
        for s in &all {
            if let Some(c) = &s.overall.summary.cost {
                total.merge(c);
            }
        }
        total
    });
    if let (Some(max), Some(spent)) = (found.run.max_cost, cost.and_then(|c| c.amount))
        && spent >= max
    {
        let currency = found.run.currency.as_deref().unwrap_or_default();
        notes.insert(
            0,
            format!(
                "the run reached its budget (--max-cost {} {currency}) and stopped: it cost {} {currency}; the executions not started were not run",
                crate::cost::amount(max),
                crate::cost::amount(spent)
            ),
        );
    }
    let variants = found
        .run
        .variants
        .iter()
        .zip(&all)
        .enumerate()
        .map(|(i, (variant, s))| VariantOutcome {
            variant: variant.clone(),
            stats: s.clone(),
            comparison: (i > 0).then(|| compare(&all[0], s)),
        })
        .collect();
    Ok(StoredOutcome {
        notes,
        run: found.run,
        finished_at: found.finished_at,
        stats: all[0].clone(),
        variants,
        cost,
        samples: kept,
    })
}
