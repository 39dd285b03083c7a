//! The eval runner (`docs/eval.md`): the selected fixtures executed
//! through an [`AsyncRuntimeAdapter`], repeat-major, a bounded number in
//! flight, each execution recorded in the history as it finishes and
//! counted into the statistics; then the comparison with a baseline and
//! the gate.

use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::ops::ControlFlow;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures_util::StreamExt;
use serde::Serialize;
use templiqx::AsyncRuntimeAdapter;
use templiqx_build::CompiledContract;
use templiqx_contracts::{Code, Diagnostic, Diagnostics, Interaction};

use crate::baseline::Baseline;
use crate::compare::{Comparison, compare};
use crate::cost::{CostTotals, Prices};
use crate::error::EvalError;
use crate::execution::{execute, from_cache};
use crate::gate::{Gate, GateVerdict};
use crate::history::{COMMIT_EVERY, Cached, ExecutionKey, History, HistoryError};
use crate::queue::{Queueing, WAITING};
use crate::record::{Endpoint, ExecutionRecord, RunInfo, Variant};
use crate::select::{Fixture, FixtureFilter, Selection, select};
use crate::stats::{Accumulator, RunStats};

/// What a run reports to its observer ([`Eval::on_progress`]) while it
/// runs.
#[derive(Debug)]
pub enum Progress<'e> {
    /// The run is stored in the history (when it has one) and no execution
    /// has started.
    Started {
        /// The run (its `id` set when it has a history).
        run: &'e RunInfo,
        /// Fixtures selected: inline fixtures and dataset rows.
        fixtures: usize,
        /// Of those, rows of dataset entries (`docs/eval.md`, "Datasets").
        rows: usize,
        /// Executions to come: fixtures × repeats.
        executions: usize,
        /// Fixtures left out for want of a `fake_output`, by name.
        skipped: &'e [String],
    },
    /// One execution finished, was stored and counted.
    Executed {
        /// Its fixture, `contract::fixture`.
        fixture: &'e str,
        /// Its record.
        record: &'e ExecutionRecord,
        /// Executions finished so far, this one included.
        done: usize,
        /// Executions of the run.
        total: usize,
    },
}

/// What a finished run found: what `templiqx eval --format json` prints as
/// its `result` (every field but `diagnostics`).
#[derive(Clone, Debug, Serialize)]
pub struct Outcome {
    /// The run (its `id` when it has a history).
    pub run: RunInfo,
    /// Its statistics: per fixture, per contract and overall. In a run of
    /// several variants, the first variant's (the reference); every
    /// variant's are in [`Outcome::variants`].
    pub stats: RunStats,
    /// In a run of several variants ([`Eval::run_variants`]): each
    /// variant's statistics and, for each after the first, its comparison
    /// with the first (`docs/eval.md`, "Comparing models"). Empty for a run
    /// of one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub variants: Vec<VariantOutcome>,
    /// What the run cost, every variant's executions added up, when it had
    /// a price table ([`Eval::prices`]; `docs/eval.md`, "Cost").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost: Option<CostTotals>,
    /// How the budget stopped the run ([`Eval::max_cost`]), when it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub over_budget: Option<OverBudget>,
    /// Where the baseline came from ([`Baseline::source`]), when there was
    /// one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline: Option<String>,
    /// The comparison with the baseline, when there was one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub comparison: Option<Comparison>,
    /// The gate's verdict (a pass when no gate was set).
    pub gate: GateVerdict,
    /// What the reader should know to read the figures right: an
    /// interruption, outputs cut off at the token limit, executions that
    /// waited for the server most of their time (a lower `--concurrency`
    /// suggested), executions that failed before the model answered
    /// (`TQX_RUNTIME_*`, `TQX_CAPABILITY_*`), which count as not passed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Fixtures left out for want of a `fake_output`, by name.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<String>,
    /// The evidence behind the figures: per fixture, its first failing
    /// executions and its first passing ones, up to [`Eval::samples`] of
    /// each, ordered by contract, fixture and repeat; each with its output,
    /// failure message, failed checks and their values
    /// ([`ExecutionRecord::evidence`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub samples: Vec<ExecutionRecord>,
    /// How the run was interrupted ([`Eval::interrupt`]), when it was: then
    /// every figure covers only the executions that ran, and
    /// [`RunInfo::interrupted_at`] says when.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interrupted: Option<Interrupted>,
    /// One `TQX_EVAL_GATE` error per gate failure, in the verdict's order,
    /// then a `TQX_IO` error when the history could not mark the run
    /// finished, and one when a dataset's file changed during the run
    /// (fewer or other rows read than were selected, or bytes no longer
    /// the compiled ones: `docs/eval.md`, "Datasets").
    #[serde(skip)]
    pub diagnostics: Vec<Diagnostic>,
}

/// One variant of a run of several ([`Outcome::variants`]).
#[derive(Clone, Debug, Serialize)]
pub struct VariantOutcome {
    /// The variant.
    pub variant: Variant,
    /// Its statistics, as [`Outcome::stats`] for a run of one.
    pub stats: RunStats,
    /// Its comparison with the first variant by Fisher's exact test, as a
    /// baseline comparison with the first as the baseline (`docs/eval.md`,
    /// "Comparing models"); `None` for the first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub comparison: Option<Comparison>,
}

/// How the budget stopped a run ([`Outcome::over_budget`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct OverBudget {
    /// The budget ([`Eval::max_cost`]).
    pub max_cost: f64,
    /// What the run's executions cost, those that were in flight when the
    /// budget was reached included.
    pub spent: f64,
    /// Executions finished.
    pub done: usize,
    /// Executions the run would have made: variants × fixtures × repeats;
    /// those not started when the budget was reached were not run.
    pub total: usize,
}

/// How far an interrupted run got ([`Outcome::interrupted`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Interrupted {
    /// Executions finished, stored and counted (those in flight at the
    /// interruption that finished within the grace period included).
    pub done: usize,
    /// Executions the run would have made: fixtures × repeats.
    pub total: usize,
    /// Executions in flight when the grace period ([`Eval::grace`]) ran
    /// out, cancelled: their requests dropped, nothing of them stored or
    /// counted.
    pub cancelled: usize,
}

/// How many executions the runner handles between two yields to the
/// runtime ([`tokio::task::yield_now`], which lets a current-thread
/// runtime turn its I/O, signal and timer drivers).
const YIELD_EVERY: usize = 64;

/// Failing (and passing) executions kept per fixture by default
/// ([`Eval::samples`]).
pub const DEFAULT_SAMPLES: usize = 3;

/// How long an interrupted run waits by default for the executions in
/// flight to finish before it cancels them ([`Eval::grace`]): 5 s.
pub const DEFAULT_GRACE: Duration = Duration::from_secs(5);

/// What interrupts a run ([`Eval::interrupt`]).
type Interrupt<'a> = Pin<Box<dyn Future<Output = ()> + Send + 'a>>;

/// The observer of a run that has none.
type Unobserved = fn(Progress<'_>) -> ControlFlow<()>;

/// An eval run over compiled contracts, configured in the builder idiom
/// and run through any [`AsyncRuntimeAdapter`] (`docs/eval.md`; the crate
/// documentation has an example).
///
/// Defaults: every fixture, 1 repeat, 4 in flight, no history (nothing
/// stored, nothing cached), no baseline, no gate, the endpoint named after
/// the adapter's descriptor (provider and model its name, transport `{}`),
/// no interruption (a [`DEFAULT_GRACE`] of 5 s once one is set).
pub struct Eval<'a, P = Unobserved> {
    contracts: Vec<&'a CompiledContract>,
    filter: FixtureFilter,
    fake_outputs_only: bool,
    endpoint: Option<Endpoint>,
    repeat: u32,
    concurrency: usize,
    cache: bool,
    history: Option<&'a mut History>,
    baseline: Option<Baseline>,
    gate: Gate,
    samples: usize,
    progress: P,
    selection: Option<Selection<'a>>,
    interrupt: Option<Interrupt<'a>>,
    grace: Duration,
    prices: Option<Prices>,
    max_cost: Option<f64>,
    /// The judges' adapter and model (`--judge-*`; `docs/eval.md`,
    /// "Judges"); `None`: each variant's own.
    judge: Option<(&'a dyn crate::judge::JudgeAdapter, String)>,
}

impl<'a> Eval<'a> {
    /// A run over the eval fixtures of `contracts`, compiled by any means
    /// (a `Loader`, `templiqx_build::compile_str`, a build script).
    /// Contracts that did not compile are left out: their diagnostics are
    /// the caller's to report.
    pub fn new(contracts: impl IntoIterator<Item = &'a CompiledContract>) -> Eval<'a> {
        Eval {
            contracts: contracts.into_iter().collect(),
            filter: FixtureFilter::default(),
            fake_outputs_only: false,
            endpoint: None,
            repeat: 1,
            concurrency: 4,
            cache: false,
            history: None,
            baseline: None,
            gate: Gate::default(),
            samples: DEFAULT_SAMPLES,
            progress: |_| ControlFlow::Continue(()),
            selection: None,
            interrupt: None,
            grace: DEFAULT_GRACE,
            prices: None,
            max_cost: None,
            judge: None,
        }
    }
}

impl<'a, P> Eval<'a, P> {
    /// Executes the judges of model-graded checks through `adapter`, the
    /// model `model` (priced as such; `--judge-provider`, `--judge-model`,
    /// `--judge-base-url`; `docs/eval.md`, "Judges"), instead of each
    /// variant's own adapter and model.
    #[must_use]
    pub fn judge(
        mut self,
        adapter: &'a dyn crate::judge::JudgeAdapter,
        model: impl Into<String>,
    ) -> Self {
        self.judge = Some((adapter, model.into()));
        self
    }

    /// Only the fixtures `filter` selects (`--filter`).
    #[must_use]
    pub fn filter(mut self, filter: FixtureFilter) -> Self {
        self.filter = filter;
        self.selection = None;
        self
    }

    /// Leaves out the fixtures without a `fake_output`, listed in
    /// [`Outcome::skipped`]: what a run on the [`FakeAdapter`](crate::FakeAdapter)
    /// wants (`--provider fake`).
    #[must_use]
    pub fn fake_outputs_only(mut self, yes: bool) -> Self {
        self.fake_outputs_only = yes;
        self.selection = None;
        self
    }

    /// The provider, model and transport the run records and the history
    /// keys executions by.
    #[must_use]
    pub fn endpoint(mut self, endpoint: Endpoint) -> Self {
        self.endpoint = Some(endpoint);
        self
    }

    /// `n` executions per fixture (`--repeat`), issued repeat-major: every
    /// fixture once, then every fixture again.
    #[must_use]
    pub fn repeat(mut self, n: u32) -> Self {
        self.repeat = n;
        self
    }

    /// At most `n` executions in flight at once (`--concurrency`; 0 is
    /// taken as 1). Retries and waits of the adapter happen inside an
    /// execution.
    #[must_use]
    pub fn concurrency(mut self, n: usize) -> Self {
        self.concurrency = n.max(1);
        self
    }

    /// Reuses earlier executions of the history (`--cache`; `docs/eval.md`,
    /// "History"): repeat *k* of a fixture stands for the latest earlier
    /// answer to repeat *k* of the same request at the same endpoint, its
    /// checks evaluated again.
    #[must_use]
    pub fn cache(mut self, yes: bool) -> Self {
        self.cache = yes;
        self
    }

    /// Stores the run and every execution in `history`, committed as they
    /// finish (at least once a second), so an interrupted run keeps what it
    /// did; the run is marked finished with its statistics at the end.
    #[must_use]
    pub fn history(mut self, history: &'a mut History) -> Self {
        self.history = Some(history);
        self
    }

    /// Compares the run with `baseline` (`docs/eval.md`, "Comparing with a
    /// baseline").
    #[must_use]
    pub fn baseline(mut self, baseline: Option<Baseline>) -> Self {
        self.baseline = baseline;
        self
    }

    /// Passes or fails the run by `gate` (`docs/eval.md`, "Gating and exit
    /// status").
    #[must_use]
    pub fn gate(mut self, gate: Gate) -> Self {
        self.gate = gate;
        self
    }

    /// Keeps, per fixture, the first `n` failing and the first `n` passing
    /// executions with their evidence in [`Outcome::samples`] (default
    /// [`DEFAULT_SAMPLES`]; 0 keeps none), for the failures `templiqx eval`
    /// prints and the report's drill-down. Memory grows with fixtures × `n`,
    /// not with repeats.
    #[must_use]
    pub fn samples(mut self, n: usize) -> Self {
        self.samples = n;
        self
    }

    /// Calls `observer` when the run starts and after each execution; a
    /// [`ControlFlow::Break`] stops the run ([`EvalError::Cancelled`]).
    #[must_use]
    pub fn on_progress<Q>(self, observer: Q) -> Eval<'a, Q>
    where
        Q: FnMut(Progress<'_>) -> ControlFlow<()>,
    {
        Eval {
            contracts: self.contracts,
            filter: self.filter,
            fake_outputs_only: self.fake_outputs_only,
            endpoint: self.endpoint,
            repeat: self.repeat,
            concurrency: self.concurrency,
            cache: self.cache,
            history: self.history,
            baseline: self.baseline,
            gate: self.gate,
            samples: self.samples,
            progress: observer,
            selection: self.selection,
            interrupt: self.interrupt,
            grace: self.grace,
            prices: self.prices,
            max_cost: self.max_cost,
            judge: self.judge,
        }
    }

    /// Ends the run early, cleanly, when `signal` resolves (SIGINT or
    /// SIGTERM for `templiqx eval`; a host's cancellation token, e.g.
    /// `token.cancelled_owned()`, or a timer): no execution is issued
    /// after it; the executions in flight get [`Eval::grace`] to finish and
    /// are then cancelled (their requests dropped, nothing of them
    /// stored); the run's statistics, notes, comparison and gate cover what
    /// ran, the history marks the run interrupted
    /// (`runs.interrupted_at`, its `finished_at` null, so it is never a
    /// `--baseline last`), and [`Eval::run`] returns the [`Outcome`] with
    /// [`Outcome::interrupted`] and [`RunInfo::interrupted_at`] set. A
    /// `signal` that resolves after the last execution changes nothing.
    /// The run then needs the Tokio timer (for the grace period).
    #[must_use]
    pub fn interrupt(mut self, signal: impl Future<Output = ()> + Send + 'a) -> Self {
        self.interrupt = Some(Box::pin(signal));
        self
    }

    /// Prices every execution by `prices` (`--prices`; `docs/eval.md`,
    /// "Cost"): its input and output tokens at its model's prices
    /// ([`ExecutionRecord::cost`]), added up per fixture, contract, variant
    /// and run. An execution of a model without a price, or without token
    /// counts, has an unknown cost, never 0.
    #[must_use]
    pub fn prices(mut self, prices: Prices) -> Self {
        self.prices = Some(prices);
        self
    }

    /// Stops the run once what its finished executions cost reaches
    /// `budget` (`--max-cost`, in the price table's currency; needs
    /// [`Eval::prices`] with a price for every variant's model): no
    /// execution starts after that, those in flight finish and count, and
    /// the gate fails with a `TQX_EVAL_GATE` error saying so
    /// ([`Outcome::over_budget`]). An execution without token counts (a
    /// failed call) counts as 0.
    #[must_use]
    pub fn max_cost(mut self, budget: f64) -> Self {
        self.max_cost = Some(budget);
        self
    }

    /// How long an interrupted run waits for the executions in flight
    /// before it cancels them (default [`DEFAULT_GRACE`], 5 s; zero
    /// cancels them at once).
    #[must_use]
    pub fn grace(mut self, grace: Duration) -> Self {
        self.grace = grace;
        self
    }

    /// The fixtures the run will execute, each rendered once; [`Eval::run`]
    /// uses this selection rather than making another. Calling it first
    /// settles the fixtures before a history is opened.
    ///
    /// # Errors
    ///
    /// [`EvalError::Refused`]: a contract id given twice (`TQX_PACKAGE`),
    /// fixtures whose values do not render (their `TQX_*` render codes);
    /// [`EvalError::NoFixture`] (`TQX_IO`): a filter glob that matches no
    /// fixture, or no fixture at all.
    pub fn select(&mut self) -> Result<&Selection<'a>, EvalError> {
        if self.selection.is_none() {
            let selection = select(&self.contracts, &self.filter, self.fake_outputs_only)?;
            self.selection = Some(selection);
        }
        self.selection
            .as_ref()
            .ok_or_else(|| EvalError::Refused(Diagnostics::new()))
    }

    /// Runs every selected fixture [`Eval::repeat`] times through
    /// `adapter`, stores and counts each execution as it finishes, then
    /// computes the statistics, compares them with the baseline, evaluates
    /// the gate and marks the run finished in the history. A failed call
    /// is a failed execution (its `TQX_*` code recorded), never an error of
    /// the run. The future must run inside a Tokio runtime with its timer
    /// enabled when the run has a history (it commits at least once a
    /// second).
    ///
    /// # Errors
    ///
    /// As [`Eval::select`], or [`EvalError::History`] when the history
    /// refuses the run, before anything executes;
    /// [`EvalError::Stopped`] when the history refuses an execution;
    /// [`EvalError::Cancelled`] when the observer breaks. An interruption
    /// ([`Eval::interrupt`]) is not an error: its outcome says so.
    pub async fn run<A>(mut self, adapter: &A) -> Result<Outcome, EvalError>
    where
        A: AsyncRuntimeAdapter,
        P: FnMut(Progress<'_>) -> ControlFlow<()>,
    {
        let endpoint = self.endpoint.take().unwrap_or_else(|| {
            let name = &adapter.descriptor().name;
            Endpoint::new(name.clone(), name.clone())
        });
        let variant = Variant::new(endpoint.model.clone(), &endpoint);
        self.run_on(vec![(variant, adapter)], false).await
    }

    /// Runs every selected fixture [`Eval::repeat`] times on each of
    /// `variants` (`docs/eval.md`, "Comparing models"): a name, an endpoint
    /// and the adapter that reaches it. Executions are issued repeat-major,
    /// then fixture by fixture, each fixture on every variant in turn, so a
    /// run cut short has covered every variant alike. Each record names
    /// its variant ([`ExecutionRecord::variant`]); [`Outcome::variants`]
    /// has every variant's statistics and each later variant's comparison
    /// with the first; [`Outcome::stats`], the baseline comparison and the
    /// history's `runs.stats` are the first variant's; the gate applies to
    /// every variant. With one variant this is [`Eval::run`] on it. The
    /// endpoints are the variants' own: [`Eval::endpoint`] is not used.
    ///
    /// # Errors
    ///
    /// As [`Eval::run`]; [`EvalError::Refused`] (`TQX_INVALID_VALUE`) also
    /// for no variant, a variant name that is not valid
    /// ([`Variant::valid_name`]) or given twice, and for a budget
    /// ([`Eval::max_cost`]) without a price for a variant's model.
    pub async fn run_variants<A>(self, variants: &[(Variant, A)]) -> Result<Outcome, EvalError>
    where
        A: AsyncRuntimeAdapter,
        P: FnMut(Progress<'_>) -> ControlFlow<()>,
    {
        let several = variants.len() > 1;
        let variants = variants.iter().map(|(v, a)| (v.clone(), a)).collect();
        self.run_on(variants, several).await
    }

    /// The run on `variants`; `several` names each record's variant.
    async fn run_on<A>(
        mut self,
        variants: Vec<(Variant, &A)>,
        several: bool,
    ) -> Result<Outcome, EvalError>
    where
        A: AsyncRuntimeAdapter,
        P: FnMut(Progress<'_>) -> ControlFlow<()>,
    {
        refuse_variants(&variants, several, self.prices.as_ref(), self.max_cost)?;
        self.select()?;
        let judges = crate::judge::judges_of(&self.contracts);
        // The judges' executions count towards the budget too: their model
        // needs a price (`docs/eval.md`, "Cost").
        if let (Some(_), Some(prices), Some((_, model))) =
            (self.max_cost, self.prices.as_ref(), self.judge.as_ref())
            && self
                .selection
                .as_ref()
                .is_some_and(Selection::has_judged_checks)
            && prices.price(model).is_none()
        {
            return Err(EvalError::Refused(Diagnostics::from(vec![
                Diagnostic::error(
                    Code::InvalidValue,
                    format!(
                        "the price table has no price for the judge model `{model}`, so the budget cannot be kept"
                    ),
                )
                .help("add the model to the price table's `models` (docs/eval.md, \"Cost\")"),
            ])));
        }
        let Eval {
            repeat,
            concurrency,
            cache,
            mut history,
            baseline,
            gate,
            samples: keep,
            mut progress,
            selection,
            mut interrupt,
            grace,
            prices,
            max_cost,
            judge,
            ..
        } = self;
        let Some(mut selection) = selection else {
            return Err(EvalError::Refused(Diagnostics::new()));
        };
        let contracts = selection.contracts.clone();
        let skipped = std::mem::take(&mut selection.skipped);
        // Executions are indexed v × nf + i (variant v, fixture i of a
        // repeat); what is kept per index is a few counters.
        let (nv, nf) = (variants.len(), selection.count);
        let first = &variants[0].0;

        let mut run = RunInfo {
            id: None,
            started_at: jiff::Timestamp::now().to_string(),
            provider: first.provider.clone(),
            model: first.model.clone(),
            // Per contract: each sends its own runtime policy's.
            sampling: {
                let by_contract: serde_json::Map<String, serde_json::Value> = contracts
                    .iter()
                    .map(|(id, interaction)| {
                        let text = sampling(interaction);
                        let value = serde_json::from_str(&text).unwrap_or_default();
                        ((*id).to_owned(), value)
                    })
                    .collect();
                serde_json::Value::Object(by_contract).to_string()
            },
            repeat,
            interrupted_at: None,
            variants: if several {
                variants.iter().map(|(v, _)| v.clone()).collect()
            } else {
                Vec::new()
            },
            currency: prices.as_ref().map(|p| p.currency.clone()),
            max_cost,
        };
        let refused =
            |e: HistoryError| EvalError::History(Diagnostic::error(Code::Io, e.to_string()));
        if let Some(history) = history.as_deref_mut() {
            run.id = Some(history.begin_run(&run).map_err(refused)?);
        }
        let mut accumulator = Accumulator::new();
        accumulator.set_costed(prices.is_some());
        // A dataset row is counted and dropped once its repeats are in.
        accumulator.set_repeat(repeat);
        for (id, interaction) in &contracts {
            if let (Some(history), Some(run_id)) = (history.as_deref_mut(), run.id) {
                history
                    .add_contract(
                        run_id,
                        id,
                        &interaction.contract_fingerprint,
                        &interaction.interaction_fingerprint,
                    )
                    .map_err(refused)?;
            }
            accumulator.set_interaction_fingerprint(id, &interaction.interaction_fingerprint);
        }
        // Each judge's contract fingerprint, beside the contracts it judges
        // (`docs/eval.md`, "Judges").
        for (id, (interaction, judged)) in &judges {
            for contract in judged {
                accumulator.set_judge_fingerprint(contract, id, &interaction.contract_fingerprint);
            }
        }
        // One per variant.
        let mut accumulators = vec![accumulator; nv];

        let total = nf * nv * repeat as usize;
        let started = progress(Progress::Started {
            run: &run,
            fixtures: nf,
            rows: nf - selection.inline().count(),
            executions: total,
            skipped: &skipped,
        });
        if started.is_break() {
            return Err(EvalError::Cancelled {
                run_id: run.id,
                done: 0,
                total,
            });
        }

        let stored = Mutex::new(history);
        let mut done = 0usize;
        // Per variant and fixture: samples kept (failing, passing); per
        // variant and contract: outputs cut off at the token limit.
        let mut sampler = crate::samples::Sampler::new(keep);
        // Per variant: the executions still to come of each dataset row in
        // flight (a row's index is forgotten once they are in).
        let mut row_left: Vec<HashMap<usize, u32>> = vec![HashMap::new(); nv];
        let mut samples: Vec<ExecutionRecord> = Vec::new();
        let mut cut_off: Vec<BTreeMap<String, usize>> = vec![BTreeMap::new(); nv];
        // What the finished executions cost, for the budget.
        let mut spent = 0.0_f64;
        let mut over_budget: Option<OverBudget> = None;
        // Inline fixtures repeat-major, then fixture by fixture on every
        // variant: a run cut short has covered every fixture and variant
        // alike. Then the dataset rows, row-major: each row's repeats on
        // every variant one after the other, so a row is complete, counted
        // and dropped while the next ones run (`docs/eval.md`, "Datasets").
        // Once interrupted or over budget, no job is issued: the stream
        // ends when the executions in flight have.
        //
        // The rows come as a stream: they are read from the file once more
        // and rendered as the run reaches them, at most `concurrency`
        // executions ahead of the last that finished. A row that no longer
        // reads (its file changed since the selection) is not run, and a
        // note says so.
        let (stop, issued) = (AtomicBool::new(false), AtomicUsize::new(0));
        let unread: Mutex<Vec<Diagnostic>> = Mutex::default();
        let (selection, unread_rows) = (&selection, &unread);
        let inline = selection.inline().count();
        let inline_jobs = (0..repeat).flat_map(move |r| {
            selection
                .inline()
                .enumerate()
                .flat_map(move |(i, f)| (0..nv).map(move |v| (v * nf + i, Arc::clone(&f), r)))
        });
        // Rows read again and run, to tell a file that changed since the
        // selection (fewer rows, or others) from the one selected.
        let rows_read = AtomicUsize::new(0);
        let read_rows = &rows_read;
        let row_jobs = selection
            .rows()
            .filter_map(move |f| {
                f.map_err(|ds| {
                    unread_rows
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .extend(ds);
                })
                .ok()
            })
            .inspect(move |_| {
                read_rows.fetch_add(1, Ordering::Relaxed);
            })
            .enumerate()
            .flat_map(move |(k, f)| {
                (0..repeat).flat_map(move |r| {
                    let f = Arc::clone(&f);
                    (0..nv).map(move |v| (v * nf + inline + k, Arc::clone(&f), r))
                })
            });
        let jobs = inline_jobs
            .chain(row_jobs)
            .take_while(|_| !stop.load(Ordering::Relaxed))
            .inspect(|_| {
                issued.fetch_add(1, Ordering::Relaxed);
            });
        let variants = &variants;
        let mut executions = futures_util::stream::iter(jobs)
            .map(|(index, fixture_arc, repeat)| {
                let stored = &stored;
                let (variant, adapter) = &variants[index / nf];
                let adapter = *adapter;
                let key = execution_key(&fixture_arc, variant);
                let judges = &judges;
                let judge_adapter: &dyn crate::judge::JudgeAdapter =
                    judge.as_ref().map_or(adapter, |(j, _)| *j);
                async move {
                    let fixture = &*fixture_arc;
                    // Reused from the history, or executed (when it was
                    // sent and when it finished: its queue time); then
                    // judged either way.
                    let (mut ran, timed) =
                        if cache && let Some(hit) = cached(stored, &key, fixture, repeat) {
                            (
                                from_cache(fixture, repeat, hit, &|t| adapter.redact(t)),
                                None,
                            )
                        } else {
                            let sent = std::time::Instant::now();
                            let executed = execute(adapter, fixture, repeat).await;
                            (executed, Some((sent, std::time::Instant::now())))
                        };
                    let output = ran.1.as_deref();
                    crate::judge::judge(judge_adapter, judges, fixture, repeat, &mut ran.0, output)
                        .await;
                    (index, fixture_arc, key, ran, timed)
                }
            })
            .buffer_unordered(concurrency);
        // Finished executions are committed at least once a second even
        // while the next ones take minutes (a real model), so an
        // interrupted run keeps them.
        let mut tick = run.id.map(|_| {
            let mut tick = tokio::time::interval(COMMIT_EVERY);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            tick
        });
        // Set when the interruption comes: when the grace period ends.
        let mut deadline: Option<tokio::time::Instant> = None;
        // Per variant: each reaches its own server.
        let mut queueing: Vec<Queueing> = (0..nv).map(|_| Queueing::new(concurrency)).collect();
        let mut cancelled = 0usize;
        let failed: Option<HistoryError> = loop {
            // A resolved interruption is polled no more.
            let mut fired = false;
            let next_tick = async {
                match tick.as_mut() {
                    Some(tick) => {
                        tick.tick().await;
                    }
                    None => std::future::pending().await,
                }
            };
            let interrupted = async {
                match interrupt.as_mut() {
                    Some(signal) => signal.await,
                    None => std::future::pending().await,
                }
            };
            let grace_over = async move {
                match deadline {
                    Some(at) => tokio::time::sleep_until(at).await,
                    None => std::future::pending().await,
                }
            };
            // The interruption first: once it has come, no execution is
            // issued, whatever else is ready.
            tokio::select! {
                biased;
                () = interrupted => {
                    fired = true;
                    stop.store(true, Ordering::Relaxed);
                    deadline = Some(tokio::time::Instant::now() + grace);
                }
                () = grace_over => {
                    cancelled = issued.load(Ordering::Relaxed).saturating_sub(done);
                    break None;
                }
                () = next_tick => {
                    if let Some(history) = lock(&stored).as_deref_mut()
                        && let Err(e) = history.flush()
                    {
                        break Some(e);
                    }
                }
                next = executions.next() => {
                    let Some((index, fixture, key, (mut record, output), timed)) = next else {
                        break None;
                    };
                    let (v, i) = (index / nf, index % nf);
                    // Latency is the model's: the time it waited for the
                    // server is queue time.
                    if let Some((sent, finished)) = timed {
                        let queue_ms = queueing[v].observe(i, sent, finished);
                        record.queue_ms = queue_ms;
                        record.latency_ms = (record.latency_ms - queue_ms).max(0.0);
                    }
                    let variant = &variants[v].0;
                    record.variant = several.then(|| variant.name.clone());
                    // A reused answer was not paid for again.
                    record.cost = prices.as_ref().and_then(|prices| {
                        if record.cached {
                            Some(0.0)
                        } else {
                            prices.cost_of(&variant.model, &record)
                        }
                        .and_then(|own| {
                            // Its judges' executions, at the judge model's
                            // prices (`docs/eval.md`, "Judges").
                            let model = judge.as_ref().map_or(variant.model.as_str(), |(_, m)| m.as_str());
                            crate::judge::judge_cost(&record, prices, model).map(|j| own + j)
                        })
                    });
                    if let (Some(history), Some(run_id)) =
                        (lock(&stored).as_deref_mut(), run.id)
                        && let Err(e) = history.insert(run_id, &key, &record, output.as_deref())
                    {
                        break Some(e);
                    }
                    done += 1;
                    accumulators[v].push(&record);
                    if record.evidence.cut_off() {
                        *cut_off[v].entry(record.contract.clone()).or_default() += 1;
                    }
                    spent += record.cost.unwrap_or(0.0);
                    if let Some(max) = max_cost
                        && spent >= max
                    {
                        stop.store(true, Ordering::Relaxed);
                        over_budget.get_or_insert(OverBudget { max_cost: max, spent, done, total });
                    }
                    if let Some(o) = over_budget.as_mut() {
                        (o.spent, o.done) = (spent, done);
                    }
                    if sampler.take(v, &record) {
                        samples.push(record.clone());
                    }
                    if i >= inline {
                        let left = row_left[v].entry(i).or_insert(repeat);
                        *left = left.saturating_sub(1);
                        if *left == 0 {
                            row_left[v].remove(&i);
                            queueing[v].forget(i);
                        }
                    }
                    let event = Progress::Executed { fixture: &fixture.name, record: &record, done, total };
                    if progress(event).is_break() {
                        return Err(EvalError::Cancelled { run_id: run.id, done, total });
                    }
                    // Executions that finish at once (the `fake` provider,
                    // answers from `--cache`) never leave the runtime idle,
                    // and a current-thread runtime turns its drivers only
                    // when idle: yield now and then, so that a signal or a
                    // timer (the interruption, the commit tick) still fires.
                    if done.is_multiple_of(YIELD_EVERY) {
                        tokio::task::yield_now().await;
                    }
                }
            }
            if fired {
                interrupt = None;
            }
        };
        drop(executions);
        let history = stored.into_inner().unwrap_or_else(PoisonError::into_inner);
        if let (Some(e), Some(run_id)) = (failed, run.id) {
            // Model calls were made: say how far the run got, not that
            // nothing was executed.
            let diagnostic = Diagnostic::error(Code::Io, format!("the eval history failed: {e}")).help(format!(
                "run {run_id} stopped after {done} of {total} executions, which the history keeps up to its last commit; another templiqx eval writing the same --db holds it, or the disk refused"
            ));
            return Err(EvalError::Stopped {
                diagnostic,
                run_id,
                done,
                total,
            });
        }
        // By contract, fixture, variant (in the run's order) and repeat.
        let order = |name: &Option<String>| {
            name.as_ref()
                .and_then(|n| variants.iter().position(|(v, _)| v.name == *n))
                .unwrap_or(0)
        };
        samples.sort_by(|a, b| {
            (&a.contract, &a.fixture, order(&a.variant), a.repeat).cmp(&(
                &b.contract,
                &b.fixture,
                order(&b.variant),
                b.repeat,
            ))
        });
        // Interrupted: the signal came before the last execution was issued,
        // or while executions were still in flight.
        let interrupted = (deadline.is_some() && done < total).then_some(Interrupted {
            done,
            total,
            cancelled,
        });
        let measured: Vec<(Variant, Accumulator, BTreeMap<String, usize>)> = variants
            .iter()
            .map(|(v, _)| v.clone())
            .zip(accumulators)
            .zip(cut_off)
            .map(|((v, a), c)| (v, a, c))
            .collect();
        // A data file that changed since the selection: the run did not
        // measure the compiled rows (`docs/eval.md`, "Datasets"). An
        // error (exit 2) whatever the gate, a gate failure (the reports
        // show it), and the run kept as incomplete, never a baseline.
        let unread = unread.into_inner().unwrap_or_else(PoisonError::into_inner);
        let rows = nf - inline;
        let read = rows_read.load(Ordering::Relaxed);
        let finished = interrupted.is_none() && over_budget.is_none();
        let changed = selection.changed_datasets();
        let dataset_changed = (!changed.is_empty() || !unread.is_empty() || (finished && read != rows))
            .then(|| {
                let files = if changed.is_empty() {
                    "a data file".to_owned()
                } else {
                    changed
                        .iter()
                        .map(|f| format!("`{f}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                let mut d = Diagnostic::error(
                    Code::Io,
                    format!(
                        "{files} changed during the run: {read} of the {rows} dataset row(s) selected were read again and run, and they may not be the rows the contract was compiled with"
                    ),
                )
                .help("run again with the data files unchanged: the figures of this run do not measure the compiled dataset, and the history keeps it as incomplete");
                if let Some(first) = unread.iter().find(|d| d.is_error()).or(unread.first()) {
                    d.notes.push(format!(
                        "{} row(s) read again no longer read or fit; the first: {}",
                        unread.iter().filter(|d| d.is_error()).count().max(1),
                        first.message
                    ));
                }
                d
            });
        let mut outcome = finish(
            run,
            measured,
            baseline,
            &gate,
            history,
            skipped,
            Ended {
                interrupted,
                over_budget,
                dataset_changed,
            },
        );
        outcome.samples = samples;
        Ok(outcome)
    }
}

/// How a run ended, besides its executions: interrupted, over budget, or
/// with a data file that changed while it ran (its `TQX_IO` error).
struct Ended {
    interrupted: Option<Interrupted>,
    over_budget: Option<OverBudget>,
    dataset_changed: Option<Diagnostic>,
}

/// The statistics, the notes, the comparison, the gate; the run marked
/// finished in the history, or interrupted (also when a data file changed
/// during it: incomplete, never a baseline).
fn finish(
    mut run: RunInfo,
    measured: Vec<(Variant, Accumulator, BTreeMap<String, usize>)>,
    baseline: Option<Baseline>,
    gate: &Gate,
    history: Option<&mut History>,
    skipped: Vec<String>,
    ended: Ended,
) -> Outcome {
    let Ended {
        interrupted,
        over_budget,
        dataset_changed,
    } = ended;
    // Each accumulator is dropped once its statistics are made: per
    // fixture, only one copy of the figures is kept at a time
    // (`docs/benchmarks.md`, "Evals at scale").
    type CutOff = BTreeMap<String, usize>;
    let (measured, mut all): (Vec<(Variant, CutOff)>, Vec<RunStats>) = measured
        .into_iter()
        .map(|(v, a, c)| ((v, c), a.stats()))
        .unzip();
    let several = measured.len() > 1;
    let mut notes = Vec::new();
    for ((variant, cut_off), s) in measured.iter().zip(&all) {
        let prefix = if several {
            format!("variant {}: ", variant.name)
        } else {
            String::new()
        };
        notes.extend(
            crate::run::notes(s, cut_off, &run.sampling)
                .into_iter()
                .map(|n| format!("{prefix}{n}")),
        );
    }
    if let Some(o) = &over_budget {
        let currency = run.currency.as_deref().unwrap_or_default();
        notes.insert(
            0,
            format!(
                "the run reached its budget (--max-cost {} {currency}) after {} of {} executions and stopped: it cost {} {currency}; {}",
                crate::cost::amount(o.max_cost),
                o.done,
                o.total,
                crate::cost::amount(o.spent),
                match o.total - o.done {
                    // Every execution was in flight when the budget was
                    // reached: they all finished.
                    0 => "every execution had started, so all ran".to_owned(),
                    n => format!(
                        "the {n} executions not started were not run, and these figures cover only what ran"
                    ),
                }
            ),
        );
    }
    if let Some(i) = &interrupted {
        let cancelled = match i.cancelled {
            0 => String::new(),
            n => format!(", {n} in flight cancelled"),
        };
        notes.insert(
            0,
            format!(
                "the run was interrupted after {} of {} executions{cancelled}: these figures cover only what ran",
                i.done, i.total
            ),
        );
    }
    let cost = run.currency.as_ref().map(|_| {
        let mut total = CostTotals::default();
        for s in &all {
            if let Some(c) = &s.overall.summary.cost {
                total.merge(c);
            }
        }
        total
    });
    // A run of one moves its statistics, a run of several keeps every
    // variant's beside the first's.
    let stats = if several {
        all[0].clone()
    } else {
        all.swap_remove(0)
    };
    let comparison = baseline.as_ref().map(|b| compare(&b.stats, &stats));
    let mut verdict = gate.evaluate(&stats, comparison.as_ref());
    let mut variants = Vec::new();
    if several {
        for (i, ((variant, _), s)) in measured.iter().zip(&all).enumerate() {
            if i > 0 {
                // The gate applies to every variant; the baseline's
                // regressions are the first's.
                let more = gate.evaluate(s, None);
                verdict.failures.extend(more.failures);
            }
            let name = &variant.name;
            let start = verdict
                .failures
                .iter()
                .position(|f| f.variant.is_none())
                .unwrap_or(verdict.failures.len());
            for f in &mut verdict.failures[start..] {
                f.variant = Some(name.clone());
            }
            variants.push(VariantOutcome {
                variant: variant.clone(),
                stats: s.clone(),
                comparison: (i > 0).then(|| compare(&all[0], s)),
            });
        }
    }
    if let Some(o) = &over_budget {
        let currency = run.currency.as_deref().unwrap_or_default();
        verdict.failures.insert(
            0,
            crate::gate::GateFailure {
                contract: None,
                fixture: None,
                variant: None,
                reason: format!(
                    "over budget: the executions cost {} {currency}, reaching --max-cost {} {currency}, after {} of {} executions; the rest were not run",
                    crate::cost::amount(o.spent),
                    crate::cost::amount(o.max_cost),
                    o.done,
                    o.total
                ),
            },
        );
    }
    let mut diagnostics: Vec<Diagnostic> =
        verdict.failures.iter().map(|f| f.diagnostic()).collect();
    // A changed data file fails the gate (its `TQX_IO` error says why).
    let changed = dataset_changed.is_some();
    if let Some(d) = dataset_changed {
        verdict.failures.insert(
            0,
            crate::gate::GateFailure {
                contract: None,
                fixture: None,
                variant: None,
                reason: d.message.clone(),
            },
        );
        notes.insert(0, d.message.clone());
        diagnostics.push(d);
    }
    verdict.passed = verdict.failures.is_empty();
    let incomplete = interrupted.is_some() || changed;
    let ended = jiff::Timestamp::now().to_string();
    if incomplete {
        run.interrupted_at = Some(ended.clone());
    }
    if let (Some(history), Some(id)) = (history, run.id) {
        let stats_json = serde_json::to_string(&stats).unwrap_or_default();
        let (stored, what) = if incomplete {
            (
                history.interrupt_run(id, &ended, &stats_json),
                "marked interrupted",
            )
        } else {
            (history.finish_run(id, &ended, &stats_json), "finished")
        };
        if let Err(e) = stored {
            diagnostics.push(Diagnostic::error(
                Code::Io,
                format!("run {id} could not be {what}: {e}"),
            ));
        }
    }
    Outcome {
        run,
        stats,
        variants,
        cost,
        over_budget,
        baseline: baseline.map(|b| b.source),
        comparison,
        gate: verdict,
        notes,
        skipped,
        samples: Vec::new(),
        interrupted,
        diagnostics,
    }
}

/// What the reader should know to read `stats` right
/// ([`Outcome::notes`]): outputs cut off at the token limit (`cut_off`, per
/// contract; the limit each contract sets is in `sampling`, the run's
/// [`RunInfo::sampling`]), executions that spent 40% or more of their time
/// waiting for the server (`docs/eval.md`, "Queue time"), and executions
/// that failed before the model answered.
pub(crate) fn notes(
    stats: &RunStats,
    cut_off: &BTreeMap<String, usize>,
    sampling: &str,
) -> Vec<String> {
    let mut notes = Vec::new();
    let sampling: serde_json::Value = serde_json::from_str(sampling).unwrap_or_default();
    // Calls that never produced an answer count as failed executions: say
    // so, since a fall they cause is the provider's, not the prompt's. An
    // output cut off at the token limit is an answer, and said apart.
    let cut: usize = cut_off.values().sum();
    let transport: Vec<String> = stats
        .overall
        .summary
        .failure_codes
        .iter()
        .filter(|(code, _)| code.starts_with("TQX_RUNTIME_") || code.starts_with("TQX_CAPABILITY"))
        .map(|(code, n)| {
            let n = if code == Code::RuntimeInvalidResponse.as_str() {
                n.saturating_sub(u64::try_from(cut).unwrap_or(u64::MAX))
            } else {
                *n
            };
            (code, n)
        })
        .filter(|(_, n)| *n > 0)
        .map(|(code, n)| format!("{code} × {n}"))
        .collect();
    for (contract, n) in cut_off {
        let max = sampling
            .get(contract)
            .and_then(|s| s.get("max_output_tokens"))
            .and_then(serde_json::Value::as_u64);
        let (limit, advice) = match max {
            Some(max) => (
                format!("its `runtime_policy.max_output_tokens` is {max}"),
                "raise `runtime_policy.max_output_tokens` in the contract if the answers need more, or ask for a shorter output",
            ),
            None => (
                "it sets no `runtime_policy.max_output_tokens`, so the server's own limit applied (its default, or what its context size left)".to_owned(),
                "set `runtime_policy.max_output_tokens` in the contract (a cap above what a right answer needs also stops a runaway output early), and give the server a limit or context size above it",
            ),
        };
        notes.push(format!(
            "{n} execution(s) of {contract} were cut off at the token limit (the model answered, but its output hit the limit; {limit}); they count as not passed: {advice}"
        ));
    }
    let queue = stats.overall.summary.queue_ms;
    let whole = queue + stats.overall.summary.latency.total_ms;
    if queue > 0.0 && queue >= WAITING * whole {
        let executions = stats.overall.summary.executions.max(1) as f64;
        notes.push(format!(
            "executions spent {:.0}% of their time waiting for the server ({} per execution on average): it seems to serve one request at a time, so more in flight only makes each wait; the latency figures are the model's own (queue time excluded); run with --concurrency 1, or the number of requests the server serves at once",
            queue / whole * 100.0,
            duration(queue / executions)
        ));
    }
    if !transport.is_empty() {
        notes.push(format!(
            "executions failed before the model answered ({}); they count as not passed, so these rates measure the provider as well as the prompt",
            transport.join(", ")
        ));
    }
    notes
}

/// `ms` in words: `850 ms`, `4.2 s`.
fn duration(ms: f64) -> String {
    if ms >= 1000.0 {
        format!("{:.1} s", ms / 1000.0)
    } else {
        format!("{ms:.0} ms")
    }
}

/// The history behind `stored`, also after a panic elsewhere.
fn lock<'m, 'h>(
    stored: &'m Mutex<Option<&'h mut History>>,
) -> std::sync::MutexGuard<'m, Option<&'h mut History>> {
    stored.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The earlier execution of `fixture` that stands for repeat `repeat` of
/// `key`, if any. A lookup between polls: no lock is held across an await.
fn cached(
    stored: &Mutex<Option<&mut History>>,
    key: &ExecutionKey,
    fixture: &Fixture<'_>,
    repeat: u32,
) -> Option<Cached> {
    let guard = lock(stored);
    let history = guard.as_deref()?;
    history
        .cached(key, fixture.contract, &fixture.id, repeat)
        .ok()
        .flatten()
}

/// Why `variants` cannot run: none, a name that is not valid or given
/// twice (`several`: a run of one is named after its model, whatever it
/// is), or a budget without a price for a variant's model.
fn refuse_variants<A>(
    variants: &[(Variant, &A)],
    several: bool,
    prices: Option<&Prices>,
    max_cost: Option<f64>,
) -> Result<(), EvalError> {
    let refuse = |message: String, help: &str| {
        Err(EvalError::Refused(Diagnostics::from(vec![
            Diagnostic::error(Code::InvalidValue, message).help(help.to_owned()),
        ])))
    };
    let names = "a variant name is 1 to 64 letters, digits, `.`, `_`, `-`, `:`, `/`, `@` or `+` (docs/eval.md, \"Comparing models\")";
    if variants.is_empty() {
        return refuse("no variant to run".to_owned(), names);
    }
    for (i, (v, _)) in variants.iter().enumerate().filter(|_| several) {
        if !Variant::valid_name(&v.name) {
            return refuse(
                format!("`{}` is not a valid variant name", v.name.escape_debug()),
                names,
            );
        }
        if variants[..i].iter().any(|(w, _)| w.name == v.name) {
            return refuse(
                format!("the variant `{}` is given twice", v.name),
                "name each variant once: `--variant NAME=PROVIDER:MODEL@URL`",
            );
        }
    }
    if let Some(max) = max_cost {
        if !(max.is_finite() && max > 0.0) {
            return refuse(
                format!("the budget {max} is not a positive amount"),
                "--max-cost takes an amount above 0, in the price table's currency",
            );
        }
        let Some(prices) = prices else {
            return refuse(
                "a budget needs a price table".to_owned(),
                "give --prices FILE with --max-cost (docs/eval.md, \"Cost\")",
            );
        };
        if let Some((v, _)) = variants
            .iter()
            .find(|(v, _)| prices.price(&v.model).is_none())
        {
            return refuse(
                format!(
                    "the price table has no price for the model `{}`, so the budget cannot be kept",
                    v.model
                ),
                "add the model to the price table's `models` (docs/eval.md, \"Cost\")",
            );
        }
    }
    Ok(())
}

/// The history key of an execution of `fixture` on `variant`.
fn execution_key(fixture: &Fixture<'_>, variant: &Variant) -> ExecutionKey {
    let interaction = fixture.rendered.interaction;
    ExecutionKey {
        contract_fingerprint: interaction.contract_fingerprint.to_string(),
        interaction_fingerprint: interaction.interaction_fingerprint.to_string(),
        request_fingerprint: fixture.request_fingerprint.clone(),
        provider: variant.provider.clone(),
        model: variant.model.clone(),
        sampling: sampling(interaction),
        transport: variant.transport.clone(),
    }
}

/// The sampling parameters the contract's runtime policy sends, as JSON
/// object text with sorted keys.
fn sampling(interaction: &Interaction) -> String {
    let policy = &interaction.runtime_policy;
    let mut map = serde_json::Map::new();
    if let Some(t) = policy.temperature {
        map.insert("temperature".into(), t.into());
    }
    if let Some(p) = policy.top_p {
        map.insert("top_p".into(), p.into());
    }
    if let Some(m) = policy.max_output_tokens {
        map.insert("max_output_tokens".into(), m.into());
    }
    serde_json::Value::Object(map).to_string()
}
