//! Statistics of a run, per fixture, per contract and over the whole run
//! (`docs/eval.md`, "Statistics").
//!
//! An [`Accumulator`] is fed every [`ExecutionRecord`] of a run, in any
//! order, and [`Accumulator::stats`] gives the [`RunStats`]. Its memory is
//! flat in the number of executions: per fixture it keeps counts, a
//! log-bucketed latency histogram ([`crate::latency`]) and the set of
//! distinct output fingerprints (which grows only with distinct outputs).
//! The rows of a dataset entry are one fixture, the entry
//! ([`RowStats`]; `docs/eval.md`, "Datasets"): a row is kept only while its
//! executions are still coming ([`Accumulator::set_repeat`]), so memory is
//! flat in the rows too.
//!
//! Rates are in `[0, 1]` and come with the 95% Wilson score interval
//! ([`wilson_interval`]; E. B. Wilson, "Probable inference, the law of
//! succession, and statistical inference", JASA 22 (1927) 209–212).
//! Latencies are in milliseconds.
//!
//! Whether a run passes is the [`crate::gate`]'s to say.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::{Deserialize, Serialize};

use crate::cost::CostTotals;
use crate::latency::{Histogram, LatencyStats, sanitize_latency};
use crate::record::ExecutionRecord;

/// The standard normal quantile of 0.975 (to 7 significant digits), the
/// `z` of a two-sided 95% interval.
pub const Z_95: f64 = 1.959964;

/// The Wilson score interval of `passed` successes out of `total` trials
/// at the normal quantile `z` (use [`Z_95`] for 95%), as `(low, high)`,
/// both in `[0, 1]` (Wilson 1927):
///
/// ```text
/// centre = (p + z²/2n) / (1 + z²/n)
/// half   = z / (1 + z²/n) · √(p(1−p)/n + z²/4n²)
/// ```
///
/// with `p = passed / total` and `n = total`. `low` is exactly 0 when
/// nothing passed and `high` exactly 1 when everything did. With
/// `total == 0` there is no information: `(0, 1)`. `passed` above `total`
/// is taken as `total`.
#[must_use]
pub fn wilson_interval(passed: u64, total: u64, z: f64) -> (f64, f64) {
    if total == 0 {
        return (0.0, 1.0);
    }
    let passed = passed.min(total);
    let n = total as f64;
    let p = passed as f64 / n;
    let z2 = z * z;
    let denominator = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denominator;
    let half = z / denominator * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    let low = if passed == 0 {
        0.0
    } else {
        (centre - half).clamp(0.0, 1.0)
    };
    let high = if passed == total {
        1.0
    } else {
        (centre + half).clamp(0.0, 1.0)
    };
    (low, high)
}

/// A rate with its 95% Wilson score interval ([`wilson_interval`] at
/// [`Z_95`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rate {
    /// How many passed.
    pub passed: u64,
    /// Out of how many.
    pub total: u64,
    /// `passed / total`, in `[0, 1]`; 0 when `total` is 0.
    pub rate: f64,
    /// The lower bound of the 95% Wilson interval, in `[0, 1]`.
    pub low: f64,
    /// The upper bound of the 95% Wilson interval, in `[0, 1]`.
    pub high: f64,
}

impl Rate {
    /// The rate of `passed` out of `total` with its 95% Wilson interval
    /// (`passed` above `total` is taken as `total`). With `total == 0`:
    /// rate 0 and the interval `[0, 1]`.
    #[must_use]
    pub fn new(passed: u64, total: u64) -> Rate {
        let passed = passed.min(total);
        let (low, high) = wilson_interval(passed, total, Z_95);
        let rate = if total == 0 {
            0.0
        } else {
            passed as f64 / total as f64
        };
        Rate {
            passed,
            total,
            rate,
            low,
            high,
        }
    }

    /// How many did not pass (`total - passed`).
    #[must_use]
    pub fn failed(&self) -> u64 {
        self.total - self.passed
    }

    /// 0 of 0: what a rate a results file does not hold reads as.
    #[must_use]
    pub fn zero() -> Rate {
        Rate::new(0, 0)
    }
}

/// The pass rate of one `expect` check.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CheckStats {
    /// The check's id (`evals[].expect[].id`).
    pub id: String,
    /// Executions whose verdict for this check was
    /// [`Verdict::Pass`](crate::Verdict::Pass), out of the executions that
    /// reported the check.
    pub rate: Rate,
}

/// Token counts that the provider reported.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenTotals {
    /// The sum of the reported counts.
    pub total: u64,
    /// How many executions reported a count.
    pub reported: u64,
}

/// The figures of a set of executions: one fixture's, one contract's or
/// the whole run's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Executions counted.
    pub executions: u64,
    /// Executions that passed ([`ExecutionRecord::passed`]: a schema-valid
    /// output and every check passed) out of all executions.
    pub pass_rate: Rate,
    /// Executions whose output was schema-valid out of all executions.
    pub schema_valid_rate: Rate,
    /// Executions whose output output recovery read out of the model's
    /// text ([`ExecutionRecord::recovered`]; `--recover-output`) out of all
    /// executions: a prompt that passes only through recovery shows here.
    /// 0 of n without recovery; absent from older results, read as 0 of 0.
    #[serde(default = "Rate::zero")]
    pub recovered_rate: Rate,
    /// The pass rate of each check. For a fixture: its checks in the
    /// fixture's order. For a contract or the run: pooled by check id over
    /// the fixtures (in the order of [`RunStats::fixtures`], each id where
    /// it is first seen).
    pub checks: Vec<CheckStats>,
    /// pass^N: every execution passed. For a contract, every fixture
    /// passed all its repeats; for the run, every contract did. `false`
    /// without executions.
    pub pass_all: bool,
    /// Distinct output fingerprints among schema-valid outputs. For a
    /// contract or the run: the sum of its fixtures' counts.
    pub distinct_outputs: u64,
    /// The latency distribution.
    pub latency: LatencyStats,
    /// Prompt tokens reported.
    pub input_tokens: TokenTotals,
    /// Completion tokens reported.
    pub output_tokens: TokenTotals,
    /// Output tokens per second: the sum of the output tokens divided by
    /// the sum of the latencies (in seconds) of the executions that
    /// reported output tokens. `None` when none did (or their latencies
    /// sum to 0).
    pub output_tokens_per_s: Option<f64>,
    /// Executions per failure code ([`ExecutionRecord::code`]), by code.
    pub failure_codes: BTreeMap<String, u64>,
    /// Executions reused from the history rather than executed.
    pub cached: u64,
    /// The time the executions waited for the server, summed, in ms
    /// ([`ExecutionRecord::queue_ms`]; not part of `latency`).
    #[serde(default)]
    pub queue_ms: f64,
    /// What the executions cost ([`ExecutionRecord::cost`], added up;
    /// `docs/eval.md`, "Cost"), when the run had a price table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<CostTotals>,
}

/// The statistics of one fixture.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FixtureStats {
    /// The contract id.
    pub contract: String,
    /// The fixture id.
    pub fixture: String,
    /// The interaction fingerprint of the contract in this run, as given
    /// to [`Accumulator::set_interaction_fingerprint`].
    pub interaction_fingerprint: Option<String>,
    /// For a dataset entry (`fixture` is the entry's id and the figures pool
    /// its rows' executions): what its rows did. `None` for an inline
    /// fixture.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rows: Option<RowStats>,
    /// The figures.
    #[serde(flatten)]
    pub summary: Summary,
}

impl FixtureStats {
    /// Whether `record` is an execution of this fixture: of its contract,
    /// and of this inline fixture or of a row of this dataset entry
    /// (`entry#ID`; `docs/eval.md`, "Datasets").
    #[must_use]
    pub fn holds(&self, record: &ExecutionRecord) -> bool {
        record.contract == self.contract
            && crate::select::dataset_row(&record.fixture)
                .map_or(record.fixture.as_str(), |(entry, _)| entry)
                == self.fixture
    }
}

/// How many failing rows [`RowStats::failing`] names at most.
pub const FAILING_ROWS_LISTED: usize = 20;

/// What the rows of a dataset entry did (`docs/eval.md`, "Datasets"): the
/// entry is one fixture of the statistics, its rows are not (the history
/// keeps each row's executions, under `entry#ID`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RowStats {
    /// Rows with at least one execution.
    pub rows: u64,
    /// Rows every execution of which passed (pass^N per row) out of
    /// [`RowStats::rows`], with its Wilson interval.
    pub passed_all: Rate,
    /// Rows with more than one distinct output fingerprint among their
    /// schema-valid outputs (over repeats or variants of the row; 0 at
    /// `--repeat 1`).
    pub varied: u64,
    /// The ids of rows that did not pass every execution (the part of the
    /// fixture name after `#`): at most [`FAILING_ROWS_LISTED`], the least
    /// in byte order, so the list does not depend on the order executions
    /// finished in. `passed_all.failed()` says how many there are.
    pub failing: Vec<String>,
}

/// The statistics of one contract, pooled over its fixtures.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ContractStats {
    /// The contract id.
    pub contract: String,
    /// The interaction fingerprint of the contract in this run, as given
    /// to [`Accumulator::set_interaction_fingerprint`].
    pub interaction_fingerprint: Option<String>,
    /// The contract fingerprint of each judge of its model-graded checks
    /// in this run, by judge contract id, as given to
    /// [`Accumulator::set_judge_fingerprint`] (`docs/eval.md`, "Judges").
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub judges: BTreeMap<String, String>,
    /// Its fixtures that have executions.
    pub fixtures: u64,
    /// The figures.
    #[serde(flatten)]
    pub summary: Summary,
}

/// The statistics of the whole run, pooled over every fixture.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OverallStats {
    /// Contracts that have executions.
    pub contracts: u64,
    /// Fixtures that have executions.
    pub fixtures: u64,
    /// The figures.
    #[serde(flatten)]
    pub summary: Summary,
}

/// The statistics of a run: what `templiqx eval --format json` prints.
///
/// Fixtures are sorted by contract id, then fixture id (byte-wise), and
/// contracts by id, whatever the order the executions were pushed in.
/// Only contracts and fixtures with at least one execution appear.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunStats {
    /// Per fixture.
    pub fixtures: Vec<FixtureStats>,
    /// Per contract.
    pub contracts: Vec<ContractStats>,
    /// Over the run.
    pub overall: OverallStats,
}

impl RunStats {
    /// The statistics of one fixture.
    #[must_use]
    pub fn fixture(&self, contract: &str, fixture: &str) -> Option<&FixtureStats> {
        self.fixtures
            .binary_search_by(|f| {
                (f.contract.as_str(), f.fixture.as_str()).cmp(&(contract, fixture))
            })
            .ok()
            .map(|i| &self.fixtures[i])
    }

    /// The statistics of one contract.
    #[must_use]
    pub fn contract(&self, contract: &str) -> Option<&ContractStats> {
        self.contracts
            .binary_search_by(|c| c.contract.as_str().cmp(contract))
            .ok()
            .map(|i| &self.contracts[i])
    }

    /// The fixtures of one contract, in order.
    pub fn fixtures_of<'a>(
        &'a self,
        contract: &'a str,
    ) -> impl Iterator<Item = &'a FixtureStats> + 'a {
        self.fixtures.iter().filter(move |f| f.contract == contract)
    }
}

/// Counts of a check.
#[derive(Clone, Debug)]
struct CheckCount {
    id: String,
    passed: u64,
    total: u64,
}

/// What is kept of a set of executions.
#[derive(Clone, Debug, Default)]
struct Counts {
    executions: u64,
    passed: u64,
    schema_valid: u64,
    recovered: u64,
    checks: Vec<CheckCount>,
    latency: Histogram,
    input_tokens: TokenTotals,
    output_tokens: TokenTotals,
    /// The latencies of the executions that reported output tokens, in ms.
    output_latency_ms: f64,
    failure_codes: BTreeMap<String, u64>,
    cached: u64,
    queue_ms: f64,
    cost: CostTotals,
}

impl Counts {
    fn push(&mut self, record: &ExecutionRecord) {
        self.executions += 1;
        self.passed += u64::from(record.passed());
        self.schema_valid += u64::from(record.schema_valid);
        self.recovered += u64::from(record.recovered);
        for check in &record.checks {
            let pass = u64::from(check.verdict == crate::Verdict::Pass);
            match self.checks.iter_mut().find(|c| c.id == check.id) {
                Some(count) => {
                    count.passed += pass;
                    count.total += 1;
                }
                None => self.checks.push(CheckCount {
                    id: check.id.clone(),
                    passed: pass,
                    total: 1,
                }),
            }
        }
        self.latency.record(record.latency_ms);
        if let Some(tokens) = record.input_tokens {
            self.input_tokens.total = self.input_tokens.total.saturating_add(tokens);
            self.input_tokens.reported += 1;
        }
        if let Some(tokens) = record.output_tokens {
            self.output_tokens.total = self.output_tokens.total.saturating_add(tokens);
            self.output_tokens.reported += 1;
            self.output_latency_ms += sanitize_latency(record.latency_ms);
        }
        if let Some(code) = &record.code {
            match self.failure_codes.get_mut(code) {
                Some(n) => *n += 1,
                None => {
                    self.failure_codes.insert(code.clone(), 1);
                }
            }
        }
        self.cached += u64::from(record.cached);
        self.queue_ms += sanitize_latency(record.queue_ms);
        self.cost.add(record.cost);
    }

    fn summary(
        &self,
        checks: Vec<CheckStats>,
        pass_all: bool,
        distinct_outputs: u64,
        costed: bool,
    ) -> Summary {
        let output_tokens_per_s = (self.output_tokens.reported > 0 && self.output_latency_ms > 0.0)
            .then(|| self.output_tokens.total as f64 / (self.output_latency_ms / 1000.0));
        Summary {
            executions: self.executions,
            pass_rate: Rate::new(self.passed, self.executions),
            schema_valid_rate: Rate::new(self.schema_valid, self.executions),
            recovered_rate: Rate::new(self.recovered, self.executions),
            checks,
            pass_all,
            distinct_outputs,
            latency: self.latency.stats(),
            input_tokens: self.input_tokens,
            output_tokens: self.output_tokens,
            output_tokens_per_s,
            failure_codes: self.failure_codes.clone(),
            cached: self.cached,
            queue_ms: self.queue_ms,
            cost: costed.then_some(self.cost),
        }
    }
}

/// Pools counts of several fixtures (a contract's or the run's).
#[derive(Default)]
struct Pool {
    counts: Counts,
    check_index: HashMap<String, usize>,
    pass_all: bool,
    distinct_outputs: u64,
    fixtures: u64,
}

impl Pool {
    fn new() -> Pool {
        Pool {
            pass_all: true,
            ..Pool::default()
        }
    }

    fn add(&mut self, fixture: &FixtureAcc) {
        let (into, from) = (&mut self.counts, &fixture.counts);
        into.executions += from.executions;
        into.passed += from.passed;
        into.schema_valid += from.schema_valid;
        into.recovered += from.recovered;
        for check in &from.checks {
            match self.check_index.get(&check.id) {
                Some(&i) => {
                    into.checks[i].passed += check.passed;
                    into.checks[i].total += check.total;
                }
                None => {
                    self.check_index.insert(check.id.clone(), into.checks.len());
                    into.checks.push(check.clone());
                }
            }
        }
        into.latency.merge(&from.latency);
        into.input_tokens.total = into
            .input_tokens
            .total
            .saturating_add(from.input_tokens.total);
        into.input_tokens.reported += from.input_tokens.reported;
        into.output_tokens.total = into
            .output_tokens
            .total
            .saturating_add(from.output_tokens.total);
        into.output_tokens.reported += from.output_tokens.reported;
        into.output_latency_ms += from.output_latency_ms;
        for (code, n) in &from.failure_codes {
            *into.failure_codes.entry(code.clone()).or_insert(0) += n;
        }
        into.cached += from.cached;
        into.queue_ms += from.queue_ms;
        into.cost.merge(&from.cost);
        self.pass_all &= fixture.pass_all();
        self.distinct_outputs += fixture.distinct_outputs();
        self.fixtures += 1;
    }

    fn summary(&self, costed: bool) -> Summary {
        self.counts.summary(
            check_stats(&self.counts.checks),
            self.pass_all && self.counts.executions > 0,
            self.distinct_outputs,
            costed,
        )
    }
}

fn check_stats(checks: &[CheckCount]) -> Vec<CheckStats> {
    checks
        .iter()
        .map(|c| CheckStats {
            id: c.id.clone(),
            rate: Rate::new(c.passed, c.total),
        })
        .collect()
}

/// What is kept of one fixture: an inline fixture, or a dataset entry
/// whose rows' executions it pools.
#[derive(Clone, Debug, Default)]
struct FixtureAcc {
    counts: Counts,
    /// An inline fixture's distinct output fingerprints.
    outputs: BTreeSet<String>,
    /// A dataset entry's rows.
    rows: Option<Rows>,
}

impl FixtureAcc {
    /// Every execution passed: for a dataset entry, every row passed each
    /// of its executions.
    fn pass_all(&self) -> bool {
        self.counts.executions > 0 && self.counts.passed == self.counts.executions
    }

    /// Distinct outputs: a dataset entry's are summed over its rows (rows
    /// have different requests), as a contract's are over its fixtures.
    fn distinct_outputs(&self) -> u64 {
        match &self.rows {
            None => self.outputs.len() as u64,
            Some(rows) => {
                rows.done.distinct
                    + rows
                        .open
                        .values()
                        .map(|r| r.outputs.len() as u64)
                        .sum::<u64>()
            }
        }
    }
}

/// The rows of a dataset entry: those complete, tallied; those whose
/// executions are still coming, by row id.
#[derive(Clone, Debug, Default)]
struct Rows {
    done: RowTally,
    open: HashMap<String, OpenRow>,
}

impl Rows {
    /// The rows' statistics, the open rows counted as they stand.
    fn stats(&self) -> RowStats {
        let mut tally = self.done.clone();
        for (id, row) in &self.open {
            tally.close(id, row);
        }
        RowStats {
            rows: tally.rows,
            passed_all: Rate::new(tally.passed_all, tally.rows),
            varied: tally.varied,
            failing: tally.failing.into_iter().collect(),
        }
    }
}

/// What is kept of the complete rows of a dataset entry: counts, and the
/// least [`FAILING_ROWS_LISTED`] failing row ids.
#[derive(Clone, Debug, Default)]
struct RowTally {
    rows: u64,
    passed_all: u64,
    varied: u64,
    distinct: u64,
    failing: BTreeSet<String>,
}

impl RowTally {
    fn close(&mut self, id: &str, row: &OpenRow) {
        self.rows += 1;
        self.distinct += row.outputs.len() as u64;
        self.varied += u64::from(row.outputs.len() > 1);
        if row.passed == row.executions {
            self.passed_all += 1;
            return;
        }
        let full = self.failing.len() >= FAILING_ROWS_LISTED;
        if full && self.failing.last().is_some_and(|last| last.as_str() <= id) {
            return;
        }
        self.failing.insert(id.to_owned());
        if full {
            self.failing.pop_last();
        }
    }
}

/// A dataset row whose executions are still coming.
#[derive(Clone, Debug, Default)]
struct OpenRow {
    executions: u64,
    passed: u64,
    outputs: BTreeSet<String>,
}

/// Accumulates the executions of a run into [`RunStats`], in memory flat in
/// the number of executions (`docs/eval.md`, "Statistics").
///
/// Push each execution once ([`Accumulator::push`]), in any order across
/// contracts and fixtures; register each contract's interaction
/// fingerprint with [`Accumulator::set_interaction_fingerprint`] (at any
/// time before [`Accumulator::stats`]) so that a comparison can tell when
/// the interaction changed.
///
/// The executions of a dataset row (fixture `entry#ID`; an eval id holds no
/// `#`, `docs/format.md`, "Eval fixtures") count towards the entry, one
/// fixture of the statistics with its [`RowStats`]. What is kept of a row
/// while its executions come is two counts and its distinct outputs; with
/// [`Accumulator::set_repeat`] a row is folded into its entry and dropped
/// once it has all its executions, so a run that finishes its rows one
/// after the other (as [`crate::Eval`] does) keeps only the rows in flight.
#[derive(Clone, Debug, Default)]
pub struct Accumulator {
    /// contract → fixture (or dataset entry) → counts.
    fixtures: BTreeMap<String, BTreeMap<String, FixtureAcc>>,
    /// contract → interaction fingerprint.
    interactions: BTreeMap<String, String>,
    /// contract → judge contract → the judge's contract fingerprint.
    judges: BTreeMap<String, BTreeMap<String, String>>,
    executions: u64,
    /// Whether the run had a price table: summaries then carry their cost.
    costed: bool,
    /// Executions of a complete dataset row.
    repeat: Option<u64>,
}

impl Accumulator {
    /// An empty accumulator.
    #[must_use]
    pub fn new() -> Accumulator {
        Accumulator::default()
    }

    /// Makes every summary carry its cost ([`Summary::cost`]): the run has a
    /// price table (`--prices`), so an execution without a cost is one
    /// whose cost is unknown.
    pub fn set_costed(&mut self, yes: bool) {
        self.costed = yes;
    }

    /// Says that a dataset row is complete once `executions` of it were
    /// pushed (the run's `--repeat`, for an accumulator of one variant): it
    /// is then folded into its entry's [`RowStats`] and dropped. The
    /// statistics are the same without it; only the rows are kept until
    /// [`Accumulator::stats`]. 0 is taken as 1.
    pub fn set_repeat(&mut self, executions: u32) {
        self.repeat = Some(u64::from(executions.max(1)));
    }

    /// Records the interaction fingerprint of `contract` in this run
    /// (`sha256:` + 64 hex digits; `docs/format.md`, "Fingerprints"),
    /// reported on the contract's and its fixtures' statistics. A second
    /// call for the same contract replaces the first.
    pub fn set_interaction_fingerprint(&mut self, contract: &str, fingerprint: &str) {
        self.interactions
            .insert(contract.to_owned(), fingerprint.to_owned());
    }

    /// Records the contract fingerprint of `judge`, a judge of model-graded
    /// checks of `contract`, in this run (`docs/eval.md`, "Judges"):
    /// reported on the contract's statistics, so that a comparison can tell
    /// when a judge changed.
    pub fn set_judge_fingerprint(&mut self, contract: &str, judge: &str, fingerprint: &str) {
        self.judges
            .entry(contract.to_owned())
            .or_default()
            .insert(judge.to_owned(), fingerprint.to_owned());
    }

    /// Counts one execution.
    pub fn push(&mut self, record: &ExecutionRecord) {
        let (fixture_id, row) = match crate::select::dataset_row(&record.fixture) {
            Some((entry, row)) => (entry, Some(row)),
            None => (record.fixture.as_str(), None),
        };
        let fixtures = match self.fixtures.get_mut(&record.contract) {
            Some(fixtures) => fixtures,
            None => self.fixtures.entry(record.contract.clone()).or_default(),
        };
        let fixture = match fixtures.get_mut(fixture_id) {
            Some(fixture) => fixture,
            None => fixtures.entry(fixture_id.to_owned()).or_default(),
        };
        fixture.counts.push(record);
        let output = record
            .output_fingerprint
            .as_ref()
            .filter(|_| record.schema_valid);
        self.executions += 1;
        let Some(row) = row else {
            if let Some(fp) = output
                && !fixture.outputs.contains(fp)
            {
                fixture.outputs.insert(fp.clone());
            }
            return;
        };
        let rows = fixture.rows.get_or_insert_with(Rows::default);
        let open = match rows.open.get_mut(row) {
            Some(open) => open,
            None => rows.open.entry(row.to_owned()).or_default(),
        };
        open.executions += 1;
        open.passed += u64::from(record.passed());
        if let Some(fp) = output
            && !open.outputs.contains(fp)
        {
            open.outputs.insert(fp.clone());
        }
        if self.repeat.is_some_and(|n| open.executions >= n)
            && let Some((id, complete)) = rows.open.remove_entry(row)
        {
            rows.done.close(&id, &complete);
        }
    }

    /// Executions pushed so far.
    #[must_use]
    pub fn executions(&self) -> u64 {
        self.executions
    }

    /// The statistics of what was pushed so far.
    #[must_use]
    pub fn stats(&self) -> RunStats {
        let mut fixtures = Vec::new();
        let mut contracts = Vec::new();
        let mut overall = Pool::new();
        for (contract, contract_fixtures) in &self.fixtures {
            let interaction_fingerprint = self.interactions.get(contract).cloned();
            let mut pool = Pool::new();
            for (fixture, acc) in contract_fixtures {
                pool.add(acc);
                overall.add(acc);
                fixtures.push(FixtureStats {
                    contract: contract.clone(),
                    fixture: fixture.clone(),
                    interaction_fingerprint: interaction_fingerprint.clone(),
                    rows: acc.rows.as_ref().map(Rows::stats),
                    summary: acc.counts.summary(
                        check_stats(&acc.counts.checks),
                        acc.pass_all(),
                        acc.distinct_outputs(),
                        self.costed,
                    ),
                });
            }
            contracts.push(ContractStats {
                contract: contract.clone(),
                interaction_fingerprint,
                judges: self.judges.get(contract).cloned().unwrap_or_default(),
                fixtures: pool.fixtures,
                summary: pool.summary(self.costed),
            });
        }
        RunStats {
            overall: OverallStats {
                contracts: contracts.len() as u64,
                fixtures: overall.fixtures,
                summary: overall.summary(self.costed),
            },
            fixtures,
            contracts,
        }
    }
}

impl<'a> Extend<&'a ExecutionRecord> for Accumulator {
    fn extend<I: IntoIterator<Item = &'a ExecutionRecord>>(&mut self, records: I) {
        for record in records {
            self.push(record);
        }
    }
}

/// A rate as `0.8000 (8/10)` for messages: the fraction as
/// [`fraction_digits`] writes it (`0.99998 (49999/50000)`, never
/// `1.0000`).
pub(crate) fn describe_rate(rate: &Rate) -> String {
    format!(
        "{} ({}/{})",
        fraction_digits(rate.rate),
        rate.passed,
        rate.total
    )
}

/// A proportion in `[0, 1]` (a rate or a bound of its interval) as a
/// percentage without the `%` sign: one decimal (`95.0`, `76.4`), or as
/// many more as it takes for a value that is not exactly 0 or 1 to read as
/// neither `0.0` nor `100.0` (`99.998` for 49,999 of 50,000, `0.002` for 1
/// of 50,000), so that a rate below 1 never shows as 100% next to a pass^N
/// of `no` (docs/eval.md, "Statistics").
#[must_use]
pub fn percent_digits(value: f64) -> String {
    inside_digits(value, 100.0, 1)
}

/// A proportion in `[0, 1]` with four decimals (`0.8000`), or as many more
/// as it takes for a value that is not exactly 0 or 1 to read as neither
/// `0.0000` nor `1.0000` (`0.99998`); as [`percent_digits`], for messages
/// and the JUnit text.
#[must_use]
pub fn fraction_digits(value: f64) -> String {
    inside_digits(value, 1.0, 4)
}

/// `value × scale` with at least `min` decimals and, when `value` is
/// strictly between 0 and 1, enough more that the text reads as strictly
/// between 0 and `scale` (at most 20 decimals, then scientific notation).
fn inside_digits(value: f64, scale: f64, min: usize) -> String {
    let inside = value > 0.0 && value < 1.0;
    let mut shown = value * scale;
    if inside && shown >= scale {
        // `value × scale` rounded up to `scale`: the float just below it.
        shown = f64::from_bits(scale.to_bits() - 1);
    }
    if !inside {
        return format!("{shown:.min$}");
    }
    for decimals in min..=20 {
        let text = format!("{shown:.decimals$}");
        let back: f64 = text.parse().unwrap_or(shown);
        if back > 0.0 && back < scale {
            return text;
        }
    }
    format!("{shown:e}")
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::record::{CheckVerdict, Verdict};

    /// A record for tests.
    pub(crate) fn record(
        contract: &str,
        fixture: &str,
        repeat: u32,
        schema_valid: bool,
        checks: &[(&str, Verdict)],
        latency_ms: f64,
    ) -> ExecutionRecord {
        ExecutionRecord {
            contract: contract.into(),
            fixture: fixture.into(),
            repeat,
            code: (!schema_valid).then(|| "TQX_OUTPUT_SCHEMA".to_owned()),
            schema_valid,
            checks: checks
                .iter()
                .map(|(id, verdict)| {
                    CheckVerdict::new(
                        *id,
                        if schema_valid {
                            *verdict
                        } else {
                            Verdict::NotRun
                        },
                    )
                })
                .collect(),
            latency_ms,
            queue_ms: 0.0,
            input_tokens: schema_valid.then_some(100),
            output_tokens: schema_valid.then_some(20),
            cached_input_tokens: schema_valid.then_some(0),
            attempts: 1,
            output_fingerprint: schema_valid.then(|| format!("sha256:{:064x}", repeat % 2)),
            cached: false,
            variant: None,
            cost: None,
            recovered: false,
            evidence: crate::record::Evidence::default(),
        }
    }

    fn close(a: f64, b: f64, tolerance: f64) -> bool {
        (a - b).abs() <= tolerance
    }

    #[test]
    fn wilson_matches_known_values() {
        // (passed, total, low, high) to 4 decimals: 0/10, 10/10 and 5/10
        // the usual textbook values; the others the worked examples of
        // R. G. Newcombe, "Two-sided confidence intervals for the single
        // proportion", Statist. Med. 17 (1998) 857–872, score method
        // without continuity correction.
        let cases = [
            (0, 10, 0.0, 0.2775),
            (10, 10, 0.7225, 1.0),
            (5, 10, 0.2366, 0.7634),
            (81, 263, 0.2553, 0.3662),
            (15, 148, 0.0624, 0.1605),
            (0, 20, 0.0, 0.1611),
            (1, 29, 0.0061, 0.1718),
        ];
        for (passed, total, low, high) in cases {
            let (l, h) = wilson_interval(passed, total, Z_95);
            assert!(
                close(l, low, 5e-5) && close(h, high, 5e-5),
                "{passed}/{total}: [{l}, {h}], expected [{low}, {high}]"
            );
        }
        // Full precision against SciPy 1.18 `binomtest(k, n)
        // .proportion_ci(method="wilson")` (z = 1.959963984540054; the
        // difference of z moves the bounds by less than 1e-8).
        let (l, h) = wilson_interval(999, 1000, Z_95);
        assert!(close(l, 0.994_357_441_402_042_1, 1e-8), "{l}");
        assert!(close(h, 0.999_823_453_629_373_9, 1e-8), "{h}");
        assert_eq!(wilson_interval(0, 0, Z_95), (0.0, 1.0));
        assert_eq!(wilson_interval(0, 10, Z_95).0, 0.0);
        assert_eq!(wilson_interval(10, 10, Z_95).1, 1.0);
    }

    #[test]
    fn rate_is_passed_over_total() {
        let r = Rate::new(3, 4);
        assert_eq!((r.passed, r.total, r.rate, r.failed()), (3, 4, 0.75, 1));
        assert!(r.low < 0.75 && 0.75 < r.high);
        let empty = Rate::new(0, 0);
        assert_eq!((empty.rate, empty.low, empty.high), (0.0, 0.0, 1.0));
    }

    #[test]
    fn a_rate_below_one_never_reads_as_one_hundred() {
        // One decimal where it tells the value apart.
        assert_eq!(percent_digits(0.95), "95.0");
        assert_eq!(percent_digits(0.764), "76.4");
        assert_eq!(percent_digits(1.0), "100.0");
        assert_eq!(percent_digits(0.0), "0.0");
        // More where one decimal would round to 100 or 0.
        assert_eq!(percent_digits(49_999.0 / 50_000.0), "99.998");
        assert_eq!(percent_digits(1.0 / 50_000.0), "0.002");
        assert_eq!(percent_digits(0.9995), "99.95");
        assert_eq!(percent_digits(0.0004), "0.04");
        // The float just below 1, whose product with 100 rounds to 100.
        let below = f64::from_bits(1f64.to_bits() - 1);
        assert!(percent_digits(below).starts_with("99.99"));
        // Bounds of an interval: 49,999 of 50,000 has a high bound below 1.
        let r = Rate::new(49_999, 50_000);
        for (value, text) in [
            (r.rate, percent_digits(r.rate)),
            (r.low, percent_digits(r.low)),
            (r.high, percent_digits(r.high)),
        ] {
            assert!(value < 1.0);
            assert!(!text.starts_with("100"), "{value} reads as {text}");
        }
        // The same for fractions, with four decimals.
        assert_eq!(fraction_digits(0.8), "0.8000");
        assert_eq!(fraction_digits(1.0), "1.0000");
        assert_eq!(fraction_digits(0.0), "0.0000");
        assert_eq!(fraction_digits(0.99998), "0.99998");
        assert_eq!(fraction_digits(0.000_002), "0.000002");
        assert_eq!(describe_rate(&r), "0.99998 (49999/50000)");
        assert_eq!(describe_rate(&Rate::new(8, 10)), "0.8000 (8/10)");
    }

    fn sample() -> Vec<ExecutionRecord> {
        let mut records = Vec::new();
        // c1::a: 10 repeats, 8 pass; repeat 3 fails schema, repeat 7 fails
        // check "b".
        for repeat in 0..10 {
            let valid = repeat != 3;
            let b = if repeat == 7 {
                Verdict::Fail
            } else {
                Verdict::Pass
            };
            records.push(record(
                "c1",
                "a",
                repeat,
                valid,
                &[("x", Verdict::Pass), ("b", b)],
                100.0 * f64::from(repeat + 1),
            ));
        }
        // c1::z: 2 repeats, all pass.
        for repeat in 0..2 {
            records.push(record(
                "c1",
                "z",
                repeat,
                true,
                &[("x", Verdict::Pass)],
                50.0,
            ));
        }
        // c0::m: 3 repeats, all pass.
        for repeat in 0..3 {
            records.push(record("c0", "m", repeat, true, &[], 10.0));
        }
        records
    }

    #[test]
    fn accumulates_per_fixture_contract_and_run() {
        let mut acc = Accumulator::new();
        acc.set_interaction_fingerprint("c1", "sha256:11");
        acc.extend(&sample());
        let stats = acc.stats();
        let ids: Vec<_> = stats
            .fixtures
            .iter()
            .map(|f| format!("{}::{}", f.contract, f.fixture))
            .collect();
        assert_eq!(ids, ["c0::m", "c1::a", "c1::z"]);

        let a = stats.fixture("c1", "a").unwrap();
        assert_eq!(a.interaction_fingerprint.as_deref(), Some("sha256:11"));
        let s = &a.summary;
        assert_eq!(s.executions, 10);
        assert_eq!(s.pass_rate, Rate::new(8, 10));
        assert_eq!(s.schema_valid_rate, Rate::new(9, 10));
        assert_eq!(s.checks.len(), 2);
        assert_eq!(
            (s.checks[0].id.as_str(), s.checks[0].rate),
            ("x", Rate::new(9, 10))
        );
        assert_eq!(
            (s.checks[1].id.as_str(), s.checks[1].rate),
            ("b", Rate::new(8, 10))
        );
        assert!(!s.pass_all);
        assert_eq!(s.distinct_outputs, 2);
        assert_eq!(
            s.failure_codes,
            BTreeMap::from([("TQX_OUTPUT_SCHEMA".into(), 1)])
        );
        assert_eq!(
            s.input_tokens,
            TokenTotals {
                total: 900,
                reported: 9
            }
        );
        assert_eq!(
            s.output_tokens,
            TokenTotals {
                total: 180,
                reported: 9
            }
        );
        // Latencies 100..=1000 ms; the invalid repeat (400 ms) reported no
        // tokens: 180 tokens over 5.1 s.
        let tps = s.output_tokens_per_s.unwrap();
        assert!(close(tps, 180.0 / 5.1, 1e-9), "{tps}");
        // Nearest rank: p50 is the 5th (500 ms), p95 the 10th (1000 ms).
        assert!(close(s.latency.p50_ms.unwrap(), 500.0, 500.0 * 0.012));
        assert_eq!(s.latency.p95_ms, Some(1000.0));
        assert_eq!(s.latency.min_ms, Some(100.0));
        assert_eq!(s.latency.max_ms, Some(1000.0));
        assert_eq!(s.latency.mean_ms, Some(550.0));
        assert_eq!(s.latency.histogram.iter().map(|b| b.count).sum::<u64>(), 10);

        let c1 = stats.contract("c1").unwrap();
        assert_eq!(c1.fixtures, 2);
        assert_eq!(c1.interaction_fingerprint.as_deref(), Some("sha256:11"));
        assert_eq!(c1.summary.executions, 12);
        assert_eq!(c1.summary.pass_rate, Rate::new(10, 12));
        assert!(!c1.summary.pass_all);
        assert_eq!(c1.summary.checks[0].rate, Rate::new(11, 12));
        assert_eq!(c1.summary.checks[1].rate, Rate::new(8, 10));
        // The sum over fixtures (a: 2, z: 2), not the union.
        assert_eq!(c1.summary.distinct_outputs, 4);
        let c0 = stats.contract("c0").unwrap();
        assert!(c0.summary.pass_all);
        assert_eq!(c0.interaction_fingerprint, None);
        assert!(stats.fixture("c0", "m").unwrap().summary.pass_all);
        assert_eq!(stats.fixture("c0", "m").unwrap().summary.checks, []);

        assert_eq!(stats.overall.contracts, 2);
        assert_eq!(stats.overall.fixtures, 3);
        assert_eq!(stats.overall.summary.executions, 15);
        assert_eq!(stats.overall.summary.pass_rate, Rate::new(13, 15));
        assert!(!stats.overall.summary.pass_all);
        assert_eq!(stats.fixtures_of("c1").count(), 2);
    }

    #[test]
    fn order_of_pushes_does_not_matter() {
        let records = sample();
        let mut forward = Accumulator::new();
        forward.extend(&records);
        let mut backward = Accumulator::new();
        backward.extend(records.iter().rev());
        assert_eq!(forward.stats(), backward.stats());
        assert_eq!(forward.executions(), 15);
    }

    /// Row `id` of entry `labels` of contract `c`, repeat `repeat`:
    /// passing or not, with output fingerprint `output`.
    fn row(id: &str, repeat: u32, pass: bool, output: u32) -> ExecutionRecord {
        let verdict = if pass { Verdict::Pass } else { Verdict::Fail };
        let mut r = record(
            "c",
            &format!("labels#{id}"),
            repeat,
            true,
            &[("right", verdict)],
            5.0,
        );
        r.output_fingerprint = Some(format!("sha256:{output:064x}"));
        r
    }

    /// 30 rows × 2 repeats, row by row: rows 3, 6, … fail their second
    /// repeat; rows 5, 10, … answer differently the second time.
    fn rows() -> Vec<ExecutionRecord> {
        let mut records = Vec::new();
        for i in 0..30 {
            let id = format!("r{i:02}");
            records.push(row(&id, 0, true, i));
            let varied = if i % 5 == 0 { 1000 + i } else { i };
            records.push(row(&id, 1, i % 3 != 0, varied));
        }
        records
    }

    #[test]
    fn a_dataset_entry_is_one_fixture_with_its_rows_counted() {
        let mut acc = Accumulator::new();
        acc.set_repeat(2);
        acc.extend(&rows());
        acc.push(&record("c", "inline", 0, true, &[], 5.0));
        let stats = acc.stats();
        let ids: Vec<&str> = stats.fixtures.iter().map(|f| f.fixture.as_str()).collect();
        assert_eq!(ids, ["inline", "labels"]);
        let labels = stats.fixture("c", "labels").unwrap();
        assert_eq!(labels.summary.executions, 60);
        assert_eq!(labels.summary.pass_rate.passed, 50);
        assert_eq!(labels.summary.checks[0].rate.total, 60);
        assert!(!labels.summary.pass_all);
        // Distinct outputs summed over the rows: 30, and 6 rows twice.
        assert_eq!(labels.summary.distinct_outputs, 36);
        let rows = labels.rows.as_ref().unwrap();
        assert_eq!(
            (rows.rows, rows.passed_all.passed, rows.passed_all.total),
            (30, 20, 30)
        );
        assert_eq!(rows.varied, 6);
        // The 10 failing rows, in byte order.
        assert_eq!(
            rows.failing,
            [
                "r00", "r03", "r06", "r09", "r12", "r15", "r18", "r21", "r24", "r27"
            ]
        );
        assert_eq!(stats.fixture("c", "inline").unwrap().rows, None);
        // The contract pools the entry and the inline fixture.
        let c = stats.contract("c").unwrap();
        assert_eq!(
            (c.fixtures, c.summary.executions, c.summary.distinct_outputs),
            (2, 61, 37)
        );
        // Every row was complete when its second execution came: none is
        // kept.
        let entry = &acc.fixtures["c"]["labels"];
        assert!(entry.rows.as_ref().unwrap().open.is_empty());
    }

    #[test]
    fn rows_give_the_same_figures_in_any_order_and_without_the_repeat() {
        let records = rows();
        let mut folded = Accumulator::new();
        folded.set_repeat(2);
        folded.extend(&records);
        let mut kept = Accumulator::new();
        kept.extend(records.iter().rev());
        assert_eq!(folded.stats(), kept.stats());
        // Without the repeat every row is kept until the end.
        assert_eq!(
            kept.fixtures["c"]["labels"]
                .rows
                .as_ref()
                .unwrap()
                .open
                .len(),
            30
        );
    }

    #[test]
    fn failing_rows_listed_are_the_least_whatever_the_order() {
        let ids: Vec<String> = (0..50).map(|i| format!("row-{i:03}")).collect();
        let mut forward = Accumulator::new();
        forward.set_repeat(1);
        let mut backward = forward.clone();
        for id in &ids {
            forward.push(&row(id, 0, false, 1));
        }
        for id in ids.iter().rev() {
            backward.push(&row(id, 0, false, 1));
        }
        let listed = |acc: &Accumulator| acc.stats().fixtures[0].rows.clone().unwrap();
        let (f, b) = (listed(&forward), listed(&backward));
        assert_eq!(f, b);
        assert_eq!(f.failing.len(), FAILING_ROWS_LISTED);
        assert_eq!(f.failing, ids[..FAILING_ROWS_LISTED]);
        assert_eq!(f.passed_all.failed(), 50);
    }

    #[test]
    fn a_row_id_may_hold_a_hash() {
        let mut acc = Accumulator::new();
        acc.push(&record("c", "labels#a#1", 0, true, &[], 1.0));
        let stats = acc.stats();
        assert_eq!(stats.fixtures[0].fixture, "labels");
        assert_eq!(stats.fixtures[0].rows.as_ref().unwrap().rows, 1);
    }

    #[test]
    fn empty_run() {
        let stats = Accumulator::new().stats();
        assert!(stats.fixtures.is_empty() && stats.contracts.is_empty());
        let s = &stats.overall.summary;
        assert_eq!(s.executions, 0);
        assert!(!s.pass_all);
        assert_eq!(s.latency.p50_ms, None);
        assert!(s.latency.histogram.is_empty());
        assert_eq!(s.output_tokens_per_s, None);
    }

    #[test]
    fn serializes_flat() {
        let mut acc = Accumulator::new();
        acc.extend(&sample());
        let stats = acc.stats();
        let json = serde_json::to_value(&stats).unwrap();
        let fixture = &json["fixtures"][1];
        assert_eq!(fixture["contract"], "c1");
        assert_eq!(fixture["pass_rate"]["passed"], 8);
        assert_eq!(json["overall"]["executions"], 15);
        let back: RunStats = serde_json::from_value(json).unwrap();
        assert_eq!(back, stats);
    }

    pub(crate) fn stats_with(fixtures: &[(&str, &str, u32, u32)]) -> RunStats {
        let mut acc = Accumulator::new();
        for &(contract, fixture, passed, total) in fixtures {
            for repeat in 0..total {
                let verdict = if repeat < passed {
                    Verdict::Pass
                } else {
                    Verdict::Fail
                };
                acc.push(&record(
                    contract,
                    fixture,
                    repeat,
                    true,
                    &[("ok", verdict)],
                    1.0,
                ));
            }
        }
        acc.stats()
    }
}
