//! `templiqx eval PATH… --target … --provider openai|anthropic|fake`: every
//! eval fixture executed `--repeat N` times on a model, `--concurrency C`
//! at a time, its output validated and its `expect` checks evaluated;
//! statistics per fixture and per contract, the history in SQLite, the
//! comparison with a baseline, a gate on the exit status, and JUnit and
//! HTML reports (`docs/eval.md`; `docs/cli.md`, "eval").

use crate::args::{EvalProviderKind, GateScopeArg, ProviderKind};
use crate::cmd::eval_out;
use crate::compile::compile_inputs;
use crate::provider::Adapter;
use crate::ui::{Status, Ui};
use futures_util::StreamExt;
use globset::{Glob, GlobMatcher};
use std::cell::RefCell;
use std::io;
use std::path::{Path, PathBuf};
use std::time::Instant;
use templiqx::{
    AdapterDescriptor, AdapterOutput, AsyncRuntimeAdapter, Check, Execution, ExecutionError,
    Receipt,
};
use templiqx_contracts::{
    AsValue, CapabilityProfile, Code, Diagnostic, Interaction, Json, RenderedInteraction,
    RuntimeFailure,
};
use templiqx_eval::history::{ExecutionKey, History};
use templiqx_eval::{CheckVerdict, ExecutionRecord, RunInfo, Verdict};

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
}

/// One fixture to execute, rendered once for all its repeats.
pub struct Fixture<'a> {
    /// `contract::fixture`.
    pub name: String,
    /// The contract id.
    pub contract: &'a str,
    /// The fixture id.
    pub id: &'a str,
    /// Its inputs and context, for the checks.
    pub inputs: &'a serde_json::Map<String, serde_json::Value>,
    /// Its context.
    pub context: &'a serde_json::Map<String, serde_json::Value>,
    /// Its `fake_output`.
    pub fake_output: Option<Json>,
    /// Its compiled checks.
    pub checks: Vec<Check>,
    /// The rendered request.
    pub rendered: RenderedInteraction<'a>,
    /// The history key of its executions.
    pub key: ExecutionKey,
}

/// What answers the fixtures.
enum Provider {
    Real(Box<Adapter>),
    Fake(AdapterDescriptor),
}

/// Runs `eval`.
pub fn run(ui: &mut Ui, options: &Options<'_>) -> io::Result<Status> {
    let usage = |ui: &mut Ui, diagnostic: Diagnostic| -> io::Result<Status> {
        eval_out::refused(ui, vec![diagnostic])?;
        Ok(Status::Error)
    };
    let filters = match globs(options.filters) {
        Ok(f) => f,
        Err(d) => return usage(ui, d),
    };
    let Configured {
        provider,
        name: provider_name,
        model,
        transport,
    } = match configure(options) {
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

    // Every contract and fixture the filters select, rendered once.
    let mut contracts: Vec<(&str, &Interaction)> = Vec::new();
    let mut fixtures: Vec<Fixture<'_>> = Vec::new();
    let mut skipped: Vec<String> = Vec::new();
    // Which --filter globs matched a fixture: each must match one.
    let mut matched = vec![false; filters.len()];
    // Contract ids seen, and where: an id twice is refused (its statistics
    // and history rows would merge).
    let mut seen: Vec<(&str, &str)> = Vec::new();
    for input in &inputs {
        for c in &input.contracts {
            let (Some(contract), Some(interaction)) = (&c.contract, &c.interaction) else {
                continue;
            };
            let checks =
                templiqx_build::compile_checks(contract, interaction, &input.loader.sources);
            let sampling = sampling(interaction);
            if let Some((_, first)) = seen.iter().find(|(id, _)| *id == contract.id) {
                diagnostics.push(
                    Diagnostic::error(
                        Code::Package,
                        format!(
                            "contract `{}` is given twice ({first} and {})",
                            contract.id, c.file
                        ),
                    )
                    .help("eval each contract id once: statistics and the history are keyed by it (a path given twice, or two packages with the same contract id)"),
                );
                continue;
            }
            seen.push((&contract.id, &c.file));
            let mut selected = false;
            for (i, eval) in contract.evals.iter().enumerate() {
                let name = format!("{}::{}", contract.id, eval.id);
                if !filters.is_empty() {
                    let mut any = false;
                    for ((_, glob), hit) in filters.iter().zip(&mut matched) {
                        if glob.is_match(&name) {
                            *hit = true;
                            any = true;
                        }
                    }
                    if !any {
                        continue;
                    }
                }
                let fake_output = eval.fake_output.clone().map(Json::from);
                if matches!(provider, Provider::Fake(_)) && fake_output.is_none() {
                    skipped.push(name);
                    continue;
                }
                let rendered = match templiqx::render(interaction, &eval.inputs, &eval.context) {
                    Ok(r) => r,
                    Err(e) => {
                        diagnostics.extend(e.diagnostics);
                        continue;
                    }
                };
                let key = ExecutionKey {
                    contract_fingerprint: interaction.contract_fingerprint.to_string(),
                    interaction_fingerprint: interaction.interaction_fingerprint.to_string(),
                    request_fingerprint: rendered.request_fingerprint(),
                    provider: provider_name.to_owned(),
                    model: model.clone(),
                    sampling: sampling.clone(),
                    transport: transport.clone(),
                };
                fixtures.push(Fixture {
                    name,
                    contract: &contract.id,
                    id: &eval.id,
                    inputs: &eval.inputs,
                    context: &eval.context,
                    fake_output,
                    checks: checks.get(i).cloned().unwrap_or_default(),
                    rendered,
                    key,
                });
                selected = true;
            }
            if selected {
                contracts.push((&contract.id, interaction));
            }
        }
    }
    if diagnostics.iter().any(Diagnostic::is_error) {
        eval_out::refused(ui, diagnostics)?;
        return Ok(Status::Error);
    }
    let unmatched: Vec<&str> = filters
        .iter()
        .zip(&matched)
        .filter(|(_, hit)| !**hit)
        .map(|((text, _), _)| *text)
        .collect();
    if !unmatched.is_empty() || fixtures.is_empty() {
        let why = if !unmatched.is_empty() {
            format!("no eval fixture matches --filter {}", unmatched.join(", "))
        } else if !skipped.is_empty() {
            format!(
                "every fixture selected lacks a fake_output, which --provider fake answers with ({})",
                skipped.join(", ")
            )
        } else {
            "no eval fixture to run".to_owned()
        };
        let d = Diagnostic::error(Code::Io, why)
            .help("fixtures are named `contract::fixture`; `templiqx test PATH` lists them");
        return usage(ui, d);
    }

    let mut history = match open_history(options.db) {
        Ok(h) => h,
        Err(d) => return usage(ui, d),
    };
    let baseline = match options.baseline {
        None => None,
        Some(reference) => {
            match eval_out::load_baseline(&history, reference, (provider_name, &model)) {
                Ok(b) => b,
                Err(d) => return usage(ui, d),
            }
        }
    };

    let mut run = RunInfo {
        id: None,
        started_at: jiff::Timestamp::now().to_string(),
        provider: provider_name.to_owned(),
        model: model.clone(),
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
        repeat: options.repeat,
    };
    let run_id = history.begin_run(&run).map_err(io::Error::other);
    let run_id = match run_id {
        Ok(id) => id,
        Err(e) => return usage(ui, io_diagnostic(&e.to_string())),
    };
    run.id = Some(run_id);
    let mut accumulator = eval_out::Accumulator::new();
    for (id, interaction) in &contracts {
        if let Err(e) = history.add_contract(
            run_id,
            id,
            &interaction.contract_fingerprint,
            &interaction.interaction_fingerprint,
        ) {
            return usage(ui, io_diagnostic(&e.to_string()));
        }
        accumulator.set_interaction_fingerprint(id, &interaction.interaction_fingerprint);
    }
    if !ui.json() {
        for name in &skipped {
            ui.status("Skipping", &format!("{name} (no fake_output)"))?;
        }
    }

    let total = fixtures.len() * options.repeat as usize;
    if !ui.json() {
        ui.status(
            "Evaluating",
            &format!(
                "{} fixture(s) × {} repeat(s) on {provider_name} `{model}`, {} at a time",
                fixtures.len(),
                options.repeat,
                options.concurrency
            ),
        )?;
    }
    ui.start_progress(total, "Evaluating");
    let history = RefCell::new(history);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let mut done = 0usize;
    let stored = runtime.block_on(async {
        // Repeat-major: a run cut short has covered every fixture alike.
        let jobs = (0..options.repeat)
            .flat_map(|r| fixtures.iter().enumerate().map(move |(i, f)| (i, f, r)));
        let mut executions = futures_util::stream::iter(jobs)
            .map(|(index, fixture, repeat)| {
                let history = &history;
                let provider = &provider;
                let cache = options.cache;
                async move {
                    if cache {
                        // A lookup between polls: no borrow is held across
                        // an await.
                        let hit = history.borrow().cached(&fixture.key, repeat);
                        if let Ok(Some(hit)) = hit {
                            return (index, from_cache(fixture, repeat, hit));
                        }
                    }
                    (index, execute(provider, fixture, repeat).await)
                }
            })
            .buffer_unordered(options.concurrency);
        // Finished executions are committed at least once a second even
        // while the next ones take minutes (a real model), so an
        // interrupted run keeps them.
        let mut tick = tokio::time::interval(templiqx_eval::history::COMMIT_EVERY);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                next = executions.next() => {
                    let Some((index, (record, output))) = next else {
                        break;
                    };
                    let fixture = &fixtures[index];
                    history
                        .borrow_mut()
                        .insert(run_id, &fixture.key, &record, output.as_deref())
                        .map_err(|e| (e, done))?;
                    done += 1;
                    accumulator.push(&record);
                    ui.progress_message(&fixture.name);
                    ui.progress_inc();
                }
                _ = tick.tick() => {
                    history.borrow_mut().flush().map_err(|e| (e, done))?;
                }
            }
        }
        Ok::<(), (templiqx_eval::history::HistoryError, usize)>(())
    });
    ui.finish_progress();
    let mut history = history.into_inner();
    if let Err((e, done)) = stored {
        // Model calls were made: say how far the run got, not that nothing
        // was executed.
        let d = io_diagnostic(&format!("the eval history failed: {e}")).help(format!(
            "run {run_id} stopped after {done} of {total} executions, which the history keeps up to its last commit; another templiqx eval writing the same --db holds it, or the disk refused"
        ));
        eval_out::stopped(ui, d)?;
        return Ok(Status::Error);
    }
    eval_out::finish(
        ui,
        options,
        &mut history,
        eval_out::Ran {
            run: &run,
            accumulator,
            baseline,
            diagnostics,
            skipped: &skipped,
        },
    )
}

/// One execution of `fixture`: the record and, for a schema-valid output,
/// its JSON text (kept in the history for `--cache`).
async fn execute(
    provider: &Provider,
    fixture: &Fixture<'_>,
    repeat: u32,
) -> (ExecutionRecord, Option<String>) {
    let started = Instant::now();
    let result = match provider {
        Provider::Real(adapter) => adapter.execute(&fixture.rendered, None).await,
        Provider::Fake(descriptor) => {
            FakeAdapter {
                descriptor,
                output: fixture.fake_output.as_ref(),
            }
            .execute(&fixture.rendered)
            .await
        }
    };
    let latency_ms = started.elapsed().as_secs_f64() * 1000.0;
    record(fixture, repeat, result, latency_ms)
}

/// The record of an execution that ended with `result`.
fn record(
    fixture: &Fixture<'_>,
    repeat: u32,
    result: Result<Execution, ExecutionError>,
    latency_ms: f64,
) -> (ExecutionRecord, Option<String>) {
    let mut record = ExecutionRecord {
        contract: fixture.contract.to_owned(),
        fixture: fixture.id.to_owned(),
        repeat,
        code: None,
        schema_valid: false,
        checks: Vec::new(),
        latency_ms,
        input_tokens: None,
        output_tokens: None,
        attempts: 0,
        output_fingerprint: None,
        cached: false,
    };
    match result {
        Ok(execution) => {
            record.schema_valid = true;
            record.attempts = execution.attempts;
            record.input_tokens = execution.usage.map(|u| u.input_tokens);
            record.output_tokens = execution.usage.map(|u| u.output_tokens);
            if let Receipt::Success {
                output_fingerprint, ..
            } = &execution.receipt
            {
                record.output_fingerprint = Some(output_fingerprint.clone());
            }
            record.checks = verdicts(fixture, Some(&execution.output));
            let text = templiqx_contracts::canonical::to_canonical_string(&execution.output);
            (record, Some(text))
        }
        Err(error) => {
            record.code = Some(error.failure.code.as_str().to_owned());
            record.attempts = error.attempts;
            record.checks = verdicts(fixture, None);
            (record, None)
        }
    }
}

/// A record reused from the history; its checks are evaluated again
/// against the stored output, since `expect` may have changed without
/// changing the request.
fn from_cache(
    fixture: &Fixture<'_>,
    repeat: u32,
    hit: templiqx_eval::history::Cached,
) -> (ExecutionRecord, Option<String>) {
    let mut record = hit.record;
    record.repeat = repeat;
    let output = hit
        .output
        .as_deref()
        .and_then(|text| templiqx_contracts::json::parse(text).ok());
    record.checks = verdicts(fixture, output.as_ref().filter(|_| record.schema_valid));
    (record, hit.output)
}

/// The verdict of every check of `fixture` against `output` (none: no
/// schema-valid output, every check `not_run`).
fn verdicts(fixture: &Fixture<'_>, output: Option<&Json>) -> Vec<CheckVerdict> {
    fixture
        .checks
        .iter()
        .map(|check| CheckVerdict {
            id: check.id.to_string(),
            verdict: match output {
                None => Verdict::NotRun,
                Some(output) => {
                    match templiqx::evaluate_check(
                        check,
                        fixture.inputs,
                        fixture.context,
                        output.as_value(),
                    ) {
                        Ok(true) => Verdict::Pass,
                        Ok(false) => Verdict::Fail,
                        Err(_) => Verdict::Error,
                    }
                }
            },
        })
        .collect()
}

/// `--provider fake`: answers with the fixture's `fake_output`, through the
/// port's own `execute` (capability gate, validation, receipts), so it
/// behaves as a model that always gives that answer.
struct FakeAdapter<'a> {
    descriptor: &'a AdapterDescriptor,
    output: Option<&'a Json>,
}

impl AsyncRuntimeAdapter for FakeAdapter<'_> {
    fn descriptor(&self) -> &AdapterDescriptor {
        self.descriptor
    }

    async fn invoke(
        &self,
        _request: &RenderedInteraction<'_>,
    ) -> Result<AdapterOutput, RuntimeFailure> {
        match self.output {
            Some(output) => Ok(AdapterOutput {
                output: output.clone(),
                usage: None,
            }),
            // Fixtures without fake_output are skipped before a run.
            None => Err(RuntimeFailure::new(
                Code::RuntimePermanent,
                "fake",
                "the fixture has no fake_output",
            )),
        }
    }
}

/// What the provider is: the adapter, its name, the model name and the
/// transport part of the history key.
struct Configured {
    provider: Provider,
    name: &'static str,
    model: String,
    transport: String,
}

/// The provider, or a usage diagnostic.
fn configure(options: &Options<'_>) -> Result<Configured, Diagnostic> {
    let args = options.provider;
    let kind = match args.provider {
        EvalProviderKind::Fake => {
            let descriptor = AdapterDescriptor::new("fake", options.target.iter());
            return Ok(Configured {
                provider: Provider::Fake(descriptor),
                name: "fake",
                model: "fake".to_owned(),
                transport: "{}".to_owned(),
            });
        }
        EvalProviderKind::Openai => ProviderKind::Openai,
        EvalProviderKind::Anthropic => ProviderKind::Anthropic,
    };
    // clap requires both for these providers.
    let base_url = args.base_url.as_deref().unwrap_or_default();
    let model = args.model.clone().unwrap_or_default();
    match Adapter::new(kind, base_url, &model, &args.wire) {
        Ok(a) => {
            let wire = &args.wire;
            // Header values may be secrets: names only.
            let headers: Vec<&str> = wire
                .headers
                .iter()
                .map(|h| h.split_once(':').map_or(h.as_str(), |(n, _)| n.trim()))
                .collect();
            let transport = serde_json::json!({
                "base_url": without_userinfo(base_url),
                "structured_output": format!("{:?}", wire.structured_output),
                "developer_as_system": wire.developer_as_system,
                "max_tokens_field_legacy": wire.max_tokens_field_legacy,
                "headers": headers,
            })
            .to_string();
            Ok(Configured {
                provider: Provider::Real(Box::new(a)),
                name: kind.name(),
                model,
                transport,
            })
        }
        Err(message) => Err(Diagnostic::error(
            Code::RuntimePermanent,
            format!("the {} adapter refuses its configuration: {message}", kind.name()),
        )
        .help("fix the flag it names (see `templiqx eval --help` and docs/adapters.md); nothing was sent")),
    }
}

/// `url` without the `user:password@` a URL may carry: what the history
/// keeps is never a secret.
fn without_userinfo(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) => format!("{scheme}://{}", &rest[at + 1..]),
        None => url.to_owned(),
    }
}

/// The compiled `--filter` globs, each with its text.
fn globs(filters: &[String]) -> Result<Vec<(&str, GlobMatcher)>, Diagnostic> {
    filters
        .iter()
        .map(|f| {
            Glob::new(f)
                .map(|g| (f.as_str(), g.compile_matcher()))
                .map_err(|e| {
                    Diagnostic::error(Code::Io, format!("--filter `{f}` is not a glob: {e}")).help(
                        "a glob over `contract::fixture`, e.g. `lease-*::*` or `*::dutch-client`",
                    )
                })
        })
        .collect()
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
