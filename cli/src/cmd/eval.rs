//! `templiqx eval PATH… --target … --provider openai|anthropic|fake`: every
//! eval fixture executed `--repeat N` times on a model, `--concurrency C`
//! at a time, its output validated and its `expect` checks evaluated;
//! statistics per fixture and per contract, the history in SQLite, the
//! comparison with a baseline, a gate on the exit status, and JUnit and
//! HTML reports (`docs/eval.md`; `docs/cli.md`, "eval").
//!
//! The run is `templiqx_eval`'s [`Eval`]; this command parses the flags,
//! builds the provider's adapter, opens the history, and prints. SIGINT
//! and SIGTERM interrupt the run through [`Eval::interrupt`] (`docs/eval.md`,
//! "Interrupting a run").

use crate::args::{EvalProviderKind, GateScopeArg, ProviderKind};
use crate::cmd::{eval_out, eval_variants};
use crate::compile::compile_inputs;
use crate::provider::{Adapter, Chain, without_userinfo};
use crate::ui::{Status, Ui};
use std::future::Future;
use std::io;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use templiqx_contracts::{CapabilityProfile, Code, Diagnostic, Diagnostics};
use templiqx_eval::history::History;
use templiqx_eval::{
    Endpoint, Eval, EvalError, FakeAdapter, FixtureFilter, Gate, GateScope, Progress,
};

/// Everything `eval` was asked for.
pub struct Options<'a> {
    /// Package directories or contract files.
    pub paths: &'a [PathBuf],
    /// The target capability profile.
    pub target: CapabilityProfile,
    /// The provider.
    pub provider: &'a crate::args::EvalProviderArgs,
    /// `--filter` globs over `contract::fixture` (none: every fixture).
    pub filters: &'a [String],
    /// `--repeat`.
    pub repeat: u32,
    /// `--concurrency`.
    pub concurrency: usize,
    /// `--db` (`:memory:` keeps nothing).
    pub db: &'a Path,
    /// `--cache`.
    pub cache: bool,
    /// `--baseline`.
    pub baseline: Option<&'a str>,
    /// `--min-pass-rate`.
    pub min_pass_rate: Option<f64>,
    /// `--gate`.
    pub gate_scope: GateScopeArg,
    /// `--fail-on-regression`.
    pub fail_on_regression: bool,
    /// `--report`.
    pub report: Option<&'a Path>,
    /// `--junit`.
    pub junit: Option<&'a Path>,
    /// `--show-failures`: failing executions printed per fixture.
    pub show_failures: usize,
    /// `--variant NAME=PROVIDER:MODEL@URL` (`docs/eval.md`, "Comparing
    /// models").
    pub variants: &'a [String],
    /// `--prices` (`docs/eval.md`, "Cost").
    pub prices: Option<&'a Path>,
    /// `--max-cost`.
    pub max_cost: Option<f64>,
}

/// What answers the fixtures.
enum Provider {
    Real(Box<Adapter>),
    /// A `--chain` of real providers (`docs/adapters.md`, "Fallback
    /// chains").
    Chain(Box<Chain>),
    Fake(FakeAdapter),
}

/// Runs `eval`.
pub fn run(ui: &mut Ui, options: &Options<'_>) -> io::Result<Status> {
    let usage = |ui: &mut Ui, diagnostics: Diagnostics| -> io::Result<Status> {
        eval_out::refused(ui, diagnostics.into_vec())?;
        Ok(Status::Error)
    };
    let filter = match FixtureFilter::new(options.filters) {
        Ok(f) => f,
        Err(d) => return usage(ui, d),
    };
    // `None`: the fake provider, built once the contracts are compiled.
    let (adapter, endpoint) = match configure(options) {
        Ok(p) => p,
        Err(d) => return usage(ui, d),
    };

    let inputs = compile_inputs(ui, options.paths, &options.target, "Compiling");
    let mut diagnostics: Vec<Diagnostic> =
        inputs.iter().flat_map(|i| i.all_diagnostics()).collect();
    if diagnostics.iter().any(Diagnostic::is_error) {
        // A contract or fixture that does not compile is a configuration
        // error: nothing is executed (exit 2).
        let mut sources = crate::ui::SourceTexts::default();
        for i in &inputs {
            sources.extend_from(&i.loader.sources);
        }
        eval_out::refused_with_sources(ui, diagnostics, &sources)?;
        return Ok(Status::Error);
    }
    let contracts = || inputs.iter().flat_map(|i| &i.contracts);
    let provider = match adapter {
        Some(provider) => provider,
        None => Provider::Fake(
            FakeAdapter::new(contracts(), options.target.iter())
                .with_output_recovery(crate::provider::recovery(&options.provider.wire)),
        ),
    };
    // Several models, or a model of the fake provider: the variants, and
    // the price table (`docs/eval.md`, "Comparing models", "Cost").
    let variants = if eval_variants::wanted(options) {
        match eval_variants::configure(options, || contracts().collect(), &options.target) {
            Ok(v) => Some(v),
            Err(d) => return usage(ui, d),
        }
    } else {
        None
    };
    // The judges of model-graded checks, when the flags name their own
    // model (`docs/eval.md`, "Judges").
    let judge = match eval_variants::judge(options, || contracts().collect(), &options.target) {
        Ok(j) => j,
        Err(d) => return usage(ui, d.into()),
    };
    let prices = match options.prices.map(eval_variants::prices).transpose() {
        Ok(p) => p,
        Err(d) => return usage(ui, d),
    };
    let endpoint = variants.as_ref().map_or(endpoint, |v| v[0].0.endpoint());
    let fake_only = match &variants {
        Some(v) => v
            .iter()
            .all(|(_, a)| matches!(a, eval_variants::VariantAdapter::Fake(_))),
        None => matches!(provider, Provider::Fake(_)),
    };
    let mut eval = Eval::new(contracts())
        .filter(filter)
        .fake_outputs_only(fake_only)
        .endpoint(endpoint.clone())
        .repeat(options.repeat)
        .concurrency(options.concurrency)
        .cache(options.cache)
        .samples(options.show_failures.max(templiqx_eval::DEFAULT_SAMPLES))
        .gate(gate(options));
    if let Some(prices) = prices {
        eval = eval.prices(prices);
    }
    if let Some(budget) = options.max_cost {
        eval = eval.max_cost(budget);
    }
    if let Some((adapter, model)) = &judge {
        eval = eval.judge(adapter, model.clone());
    }
    // The fixtures are settled before the history is opened.
    match eval.select() {
        Ok(_) => {}
        Err(EvalError::Refused(errors)) => {
            diagnostics.extend(errors);
            eval_out::refused(ui, diagnostics)?;
            return Ok(Status::Error);
        }
        Err(e) => return refused(ui, e),
    }

    let mut history = match open_history(options.db) {
        Ok(h) => h,
        Err(d) => return usage(ui, d.into()),
    };
    let baseline = match options.baseline {
        None => None,
        Some(reference) => match eval_out::load_baseline(&history, reference, &endpoint) {
            Ok(b) => b,
            Err(d) => return usage(ui, d),
        },
    };

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    // A status line that cannot be written stops the run before it calls
    // the model.
    let mut unwritten = None;
    // SIGINT and SIGTERM from here on end the run cleanly, the signal
    // noted; the progress bar, once drawn, says the run is stopping.
    let caught: Arc<OnceLock<Signal>> = Arc::default();
    let bar: Arc<Mutex<Option<indicatif::ProgressBar>>> = Arc::default();
    let signals = {
        let _entered = runtime.enter();
        signals()
    };
    let mut eval = eval.history(&mut history).baseline(baseline);
    // Without a handler (none could be installed), a signal ends the
    // process as it always did; the history keeps what was committed.
    if let Ok(signals) = signals {
        let (caught, bar) = (Arc::clone(&caught), Arc::clone(&bar));
        eval = eval.interrupt(async move {
            let signal = signals.await;
            let _ = caught.set(signal);
            if let Some(bar) = bar.lock().unwrap_or_else(PoisonError::into_inner).as_ref() {
                bar.set_message(format!(
                    "{}: stopping, waiting at most {} s for the executions in flight",
                    signal.name(),
                    GRACE.as_secs()
                ));
            }
        });
    }
    let eval = eval
        .grace(GRACE)
        .on_progress(|event| progress(ui, options, &endpoint, event, &mut unwritten, &bar));
    let ran = runtime.block_on(async {
        if let Some(variants) = &variants {
            return eval.run_variants(variants).await;
        }
        match &provider {
            Provider::Real(adapter) => match &**adapter {
                Adapter::OpenAi(a) => eval.run(a).await,
                Adapter::Anthropic(a) => eval.run(a).await,
            },
            Provider::Chain(chain) => eval.run(&chain.adapter).await,
            Provider::Fake(f) => eval.run(f).await,
        }
    });
    ui.finish_progress();
    match ran {
        Ok(outcome) if outcome.interrupted.is_some() => {
            let signal = caught.get().copied().unwrap_or(Signal::Interrupt);
            eval_out::interrupted(
                ui,
                options,
                diagnostics,
                outcome,
                signal.name(),
                signal.status(),
            )
        }
        Ok(outcome) => eval_out::finish(ui, options, diagnostics, outcome),
        Err(EvalError::Stopped { diagnostic, .. }) => {
            eval_out::stopped(ui, diagnostic)?;
            Ok(Status::Error)
        }
        Err(EvalError::Cancelled { .. }) => {
            Err(unwritten.unwrap_or_else(|| io::Error::other("the eval run was cancelled")))
        }
        Err(e) => refused(ui, e),
    }
}

/// Prints what a run reports as it runs: the skipped fixtures and the
/// `Evaluating` line when it starts, then the progress bar.
fn progress(
    ui: &mut Ui,
    options: &Options<'_>,
    endpoint: &Endpoint,
    event: Progress<'_>,
    unwritten: &mut Option<io::Error>,
    bar: &Mutex<Option<indicatif::ProgressBar>>,
) -> ControlFlow<()> {
    match event {
        Progress::Started {
            run,
            fixtures,
            rows,
            executions,
            skipped,
        } => {
            let mut started = || -> io::Result<()> {
                if !ui.json() {
                    for name in skipped {
                        ui.status("Skipping", &format!("{name} (no fake_output)"))?;
                    }
                    let on = if run.variants.is_empty() {
                        format!("{} `{}`", endpoint.provider, endpoint.model)
                    } else {
                        let names: Vec<&str> =
                            run.variants.iter().map(|v| v.name.as_str()).collect();
                        format!("{} variants ({})", names.len(), names.join(", "))
                    };
                    let what = match (fixtures - rows, rows) {
                        (inline, 0) => format!("{inline} fixture(s)"),
                        (0, rows) => format!("{rows} dataset row(s)"),
                        (inline, rows) => format!("{inline} fixture(s) and {rows} dataset row(s)"),
                    };
                    ui.status(
                        "Evaluating",
                        &format!(
                            "{what} × {} repeat(s) on {on}, {} at a time",
                            options.repeat, options.concurrency
                        ),
                    )?;
                }
                ui.start_timed_progress(executions, "Evaluating");
                *bar.lock().unwrap_or_else(PoisonError::into_inner) = Some(ui.progress_handle());
                Ok(())
            };
            if let Err(e) = started() {
                *unwritten = Some(e);
                return ControlFlow::Break(());
            }
        }
        Progress::Executed { fixture, .. } => {
            ui.progress_message(fixture);
            ui.progress_inc();
        }
    }
    ControlFlow::Continue(())
}

/// How long an interrupted run waits for the executions in flight before
/// it cancels them (`docs/eval.md`, "Interrupting a run").
const GRACE: std::time::Duration = templiqx_eval::DEFAULT_GRACE;

/// The signal that interrupted a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Signal {
    /// SIGINT (Ctrl-C): exit 130.
    Interrupt,
    /// SIGTERM (`kill`, `timeout`, a CI runner cancelling): exit 143.
    Terminate,
}

impl Signal {
    fn name(self) -> &'static str {
        match self {
            Signal::Interrupt => "SIGINT",
            Signal::Terminate => "SIGTERM",
        }
    }

    fn status(self) -> Status {
        match self {
            Signal::Interrupt => Status::Interrupted,
            Signal::Terminate => Status::Terminated,
        }
    }
}

/// A future that resolves with the first SIGINT or SIGTERM, its handlers
/// installed now (inside the runtime): from here on these signals no longer
/// end the process at once.
#[cfg(unix)]
fn signals() -> io::Result<impl Future<Output = Signal> + Send + 'static> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut interrupt = signal(SignalKind::interrupt())?;
    let mut terminate = signal(SignalKind::terminate())?;
    Ok(async move {
        tokio::select! {
            _ = interrupt.recv() => Signal::Interrupt,
            _ = terminate.recv() => Signal::Terminate,
        }
    })
}

/// A future that resolves with the first Ctrl-C.
#[cfg(not(unix))]
fn signals() -> io::Result<impl Future<Output = Signal> + Send + 'static> {
    Ok(async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
        Signal::Interrupt
    })
}

/// Reports an [`EvalError`] that stopped the run before anything executed.
fn refused(ui: &mut Ui, error: EvalError) -> io::Result<Status> {
    let diagnostics = match error {
        EvalError::Refused(diagnostics) => diagnostics.into_vec(),
        EvalError::NoFixture(d)
        | EvalError::History(d)
        | EvalError::Stopped { diagnostic: d, .. } => {
            vec![d]
        }
        EvalError::Cancelled { .. } => Vec::new(),
    };
    eval_out::refused(ui, diagnostics)?;
    Ok(Status::Error)
}

/// The gate the flags set.
fn gate(options: &Options<'_>) -> Gate {
    Gate {
        min_pass_rate: options.min_pass_rate,
        per: match options.gate_scope {
            GateScopeArg::Fixture => GateScope::Fixture,
            GateScopeArg::Overall => GateScope::Overall,
        },
        fail_on_regression: options.fail_on_regression,
    }
}

/// The provider's adapter or the `--chain` (`None` for `fake`) and its
/// endpoint, or the usage diagnostics.
fn configure(options: &Options<'_>) -> Result<(Option<Provider>, Endpoint), Diagnostics> {
    let args = options.provider;
    if let Some(path) = &args.chain {
        let chain = Chain::load(path, &args.wire)?;
        // The history keys executions by endpoint: the strategy, the
        // members' models, and every member's transport.
        let (strategy, names) = chain.label();
        let transport = serde_json::json!({
            "fall_back_on": chain
                .adapter
                .policy()
                .classes()
                .iter()
                .map(|c| c.name())
                .collect::<Vec<_>>(),
            "members": chain.members.iter().map(|m| &m.transport).collect::<Vec<_>>(),
        })
        .to_string();
        // The model stands for the run's one variant (`docs/eval.md`,
        // "Comparing models"), whose name is at most 64 letters, digits,
        // `.`, `_`, `-`, `:` or `/`.
        let model = if (1..=64).contains(&names.len())
            && names
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | ':' | '/'))
        {
            names
        } else {
            "chain".to_owned()
        };
        let endpoint = Endpoint::new(strategy, model).transport(transport);
        return Ok((Some(Provider::Chain(Box::new(chain))), endpoint));
    }
    // clap requires `--provider` (or `--chain`) unless a subcommand
    // (`show`) is given.
    let Some(provider) = args.provider else {
        return Err(io_diagnostic("`templiqx eval PATH…` needs --provider or --chain")
            .help("--provider openai|anthropic|fake, or --chain CHAIN.json (see `templiqx eval --help`)")
            .into());
    };
    let kind = match provider {
        EvalProviderKind::Fake => return Ok((None, Endpoint::new("fake", "fake"))),
        EvalProviderKind::Openai => ProviderKind::Openai,
        EvalProviderKind::Anthropic => ProviderKind::Anthropic,
    };
    // clap requires both for these providers.
    let base_url = args.base_url.as_deref().unwrap_or_default();
    let model = args.model.first().cloned().unwrap_or_default();
    match Adapter::new(kind, base_url, &model, &args.wire) {
        Ok(a) => {
            let wire = &args.wire;
            // Header values may be secrets: names only.
            let headers: Vec<&str> = wire
                .headers
                .iter()
                .map(|h| h.split_once(':').map_or(h.as_str(), |(n, _)| n.trim()))
                .collect();
            let mut transport = serde_json::json!({
                "base_url": without_userinfo(base_url),
                "structured_output": format!("{:?}", wire.structured_output),
                "developer_as_system": wire.developer_as_system,
                "max_tokens_field_legacy": wire.max_tokens_field_legacy,
                "headers": headers,
            });
            // Recovery changes outcomes: `--cache` reuses only executions
            // run with the same setting (absent when off, so earlier
            // runs' executions are reused as before).
            if wire.recover_output {
                transport["recover_output"] = true.into();
            }
            let transport = transport.to_string();
            Ok((
                Some(Provider::Real(Box::new(a))),
                Endpoint::new(kind.name(), model).transport(transport),
            ))
        }
        Err(message) => Err(Diagnostic::error(
            Code::RuntimePermanent,
            format!("the {} adapter refuses its configuration: {message}", kind.name()),
        )
        .help("fix the flag it names (see `templiqx eval --help` and docs/adapters.md); nothing was sent").into()),
    }
}

/// The history at `path` (`:memory:`: one that keeps nothing).
fn open_history(path: &Path) -> Result<History, Diagnostic> {
    let opened = if path == Path::new(":memory:") {
        History::in_memory()
    } else {
        History::open(path)
    };
    opened.map_err(|e| {
        io_diagnostic(&e.to_string()).help(format!(
            "--db names the eval history (default {}); pass another path or `:memory:`",
            crate::args::DEFAULT_EVAL_DB
        ))
    })
}

/// A `TQX_IO` error (exit 2).
pub fn io_diagnostic(message: &str) -> Diagnostic {
    Diagnostic::error(Code::Io, message.to_owned())
}
