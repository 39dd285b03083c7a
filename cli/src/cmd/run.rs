//! `templiqx run CONTRACT --request REQUEST.json --target CAP,… --provider P
//! --base-url URL --model M`: render, execute on a real model through
//! `templiqx-openai` or `templiqx-anthropic`, validate, report
//! (`docs/cli.md`, "run"; `docs/adapters.md`).

use crate::args::ProviderArgs;
use crate::cmd::render::{compile, human as print_rendered, read_and_render, with_fingerprints};
use crate::provider::{Adapter, Chain};
use crate::ui::{SourceTexts, Status, Ui};
use anstyle::Style;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::{self, IsTerminal, Write};
use std::path::Path;
use std::time::{Duration, Instant};
use templiqx::{AsyncRuntimeAdapter, Execution, ExecutionError, Receipt, Route, StreamEvent};
use templiqx_contracts::{
    CapabilityProfile, Code, Diagnostic, Operation, OperationEnvelope, RenderedInteraction,
};

/// Runs `run`.
pub fn run(
    ui: &mut Ui,
    contract: &Path,
    request: &Path,
    target: &CapabilityProfile,
    provider: &ProviderArgs,
    stream: bool,
) -> io::Result<Status> {
    let (compiled, mut diagnostics, mut sources) = compile(contract, target);
    let rendered = read_and_render(
        compiled.interaction.as_ref(),
        request,
        &mut sources,
        &mut diagnostics,
    );
    // The adapter is configured before anything is sent; a configuration
    // it refuses is reported with the request's own problems.
    let adapter = configure(provider, &mut diagnostics);
    let configured = adapter.is_some();
    let (Some(rendered), Some(adapter)) = (&rendered, adapter) else {
        // A refused configuration is a usage error (exit 2), like a bad flag.
        let status = if configured {
            Status::of(&diagnostics)
        } else {
            Status::Error
        };
        if ui.json() {
            // The fingerprints of what did compile and render, as `render`
            // gives them.
            let env = with_fingerprints(
                OperationEnvelope::<serde_json::Value>::new(Operation::Execute, None, diagnostics),
                compiled.interaction.as_ref(),
                rendered.as_ref(),
            );
            ui.json_line(&env)?;
        } else {
            ui.diagnostics(&diagnostics, &sources)?;
            ui.error_line(&format!(
                "could not execute `{}`; nothing was sent",
                compiled.file
            ))?;
        }
        return Ok(status);
    };
    if !ui.json() {
        print_rendered(ui, rendered)?;
        ui.line("")?;
        ui.flush()?;
    }

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let spinner = Spinner::start(&adapter.label(provider));
    let started = Instant::now();
    let mut deltas = 0usize;
    let mut printed = false;
    let mut partials = Partials::new(ui.json());
    let result = {
        let mut sink = |event: StreamEvent| {
            if let StreamEvent::Delta { text } = &event {
                deltas += 1;
                spinner.stop();
                printed |= partials.delta(text);
            }
        };
        let sink = stream.then_some(&mut sink as &mut (dyn FnMut(StreamEvent) + Send));
        runtime.block_on(async {
            match (&adapter, sink) {
                (Configured::One(a), sink) => a.execute(rendered, sink).await,
                (Configured::Chain(c), None) => c.adapter.execute(rendered).await,
                (Configured::Chain(c), Some(s)) => c.adapter.execute_streaming(rendered, s).await,
            }
        })
    };
    let latency = started.elapsed();
    spinner.stop();
    partials.finish();
    if printed {
        ui.line("")?;
    }
    report(
        ui,
        rendered,
        &adapter.label(provider),
        provider.verbose,
        result,
        latency,
        stream.then_some(deltas),
        &sources,
    )
}

/// What answers: one adapter, or a chain of them (`--chain`).
enum Configured {
    One(Box<Adapter>),
    Chain(Box<Chain>),
}

/// Who answers, as the report names it: the provider (a chain's strategy)
/// and the model (a chain's member names).
struct Label {
    provider: String,
    model: String,
    base_url: String,
}

impl Configured {
    fn label(&self, args: &ProviderArgs) -> Label {
        match self {
            Configured::One(_) => Label {
                provider: args.provider.map_or("", |p| p.name()).to_owned(),
                model: args.model.clone().unwrap_or_default(),
                base_url: args.base_url.clone().unwrap_or_default(),
            },
            Configured::Chain(chain) => {
                let (strategy, members) = chain.label();
                Label {
                    provider: strategy.to_owned(),
                    model: members,
                    base_url: chain
                        .members
                        .first()
                        .map(|m| m.base_url.clone())
                        .unwrap_or_default(),
                }
            }
        }
    }
}

/// The adapter `provider` asks for (or the chain its `--chain` file
/// describes), or `None` with the diagnostics pushed onto `diagnostics`:
/// `TQX_RUNTIME_PERMANENT` when an adapter refuses its configuration, the
/// chain file's problems.
fn configure(provider: &ProviderArgs, diagnostics: &mut Vec<Diagnostic>) -> Option<Configured> {
    if let Some(path) = &provider.chain {
        return match Chain::load(path, &provider.wire) {
            Ok(chain) => Some(Configured::Chain(Box::new(chain))),
            Err(problems) => {
                diagnostics.extend(problems);
                None
            }
        };
    }
    // clap requires the three without --chain.
    let kind = provider.provider?;
    match Adapter::new(
        kind,
        provider.base_url.as_deref().unwrap_or_default(),
        provider.model.as_deref().unwrap_or_default(),
        &provider.wire,
    ) {
        Ok(a) => Some(Configured::One(Box::new(a))),
        Err(message) => {
            diagnostics.push(
                Diagnostic::error(
                    Code::RuntimePermanent,
                    format!(
                        "the {} adapter refuses its configuration: {message}",
                        kind.name()
                    ),
                )
                .help("fix the flag it names (see `templiqx run --help` and docs/adapters.md); nothing was sent"),
            );
            None
        }
    }
}

/// A spinner on standard error while waiting for the model, when it is a
/// terminal.
struct Spinner(ProgressBar);

impl Spinner {
    fn start(args: &Label) -> Spinner {
        if !io::stderr().is_terminal() {
            return Spinner(ProgressBar::hidden());
        }
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template("{spinner} {msg} {elapsed}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        bar.set_message(format!("waiting for {} ({})", args.model, args.base_url));
        bar.enable_steady_tick(Duration::from_millis(100));
        Spinner(bar)
    }

    fn stop(&self) {
        if !self.0.is_finished() {
            self.0.finish_and_clear();
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn report(
    ui: &mut Ui,
    rendered: &RenderedInteraction<'_>,
    provider: &Label,
    verbose: bool,
    result: Result<Execution, ExecutionError>,
    latency: Duration,
    deltas: Option<usize>,
    sources: &SourceTexts,
) -> io::Result<Status> {
    let latency_ms = u64::try_from(latency.as_millis()).unwrap_or(u64::MAX);
    let (receipt, attempts, usage, output, diagnostics) = match &result {
        Ok(e) => (
            e.receipt.clone(),
            e.attempts,
            e.usage,
            Some(e.output.clone()),
            // A chain's skipped members (`TQX_ADAPTER_SKIPPED` warnings).
            e.route
                .as_ref()
                .map_or_else(Vec::new, |r| r.diagnostics.clone()),
        ),
        Err(e) => (
            e.receipt.clone(),
            e.attempts,
            None,
            None,
            with_provider_message(e, verbose),
        ),
    };
    let route = match &result {
        Ok(e) => e.route.as_ref(),
        Err(e) => e.route.as_ref(),
    };
    // The receipt's warnings: `TQX_OUTPUT_RECOVERED` when output recovery
    // read the output out of the model's text (`--recover-output`).
    let mut diagnostics = diagnostics;
    diagnostics.extend(receipt.diagnostics().iter().cloned());
    let status = Status::of(&diagnostics);
    if ui.json() {
        let body = Report {
            attempts,
            deltas,
            latency_ms,
            model: &provider.model,
            output: output.as_ref(),
            provider: &provider.provider,
            receipt: &receipt,
            route,
            usage,
        };
        let env = with_fingerprints(
            OperationEnvelope::new(Operation::Execute, Some(body), diagnostics),
            Some(rendered.interaction),
            Some(rendered),
        )
        .with_fingerprint("receipt", receipt.fingerprint());
        ui.json_line(&env)?;
        return Ok(status);
    }
    ui.diagnostics(&diagnostics, sources)?;
    if let Some(output) = &output {
        let title = ui.paint(Style::new().bold(), "output");
        ui.line(&title)?;
        ui.line(&serde_json::to_string_pretty(output).map_err(io::Error::other)?)?;
        ui.line("")?;
    }
    let verdict = match &receipt {
        Receipt::Success { .. } => "success".to_owned(),
        Receipt::Failure { code, .. } => format!("failure {code}"),
    };
    let mut lines = vec![
        ("receipt", verdict),
        ("receipt fp", receipt.fingerprint()),
        (
            "attempts",
            format!(
                "{attempts}, {latency_ms} ms via {} `{}`",
                provider.provider, provider.model
            ),
        ),
    ];
    if let Some(route) = route {
        lines.extend(route_lines(route));
    }
    if let Some(u) = usage {
        let seconds = latency.as_secs_f64();
        let rate = if seconds > 0.0 {
            format!(", {:.1} output tokens/s", u.output_tokens as f64 / seconds)
        } else {
            String::new()
        };
        lines.push((
            "tokens",
            format!("{} in, {} out{rate}", u.input_tokens, u.output_tokens),
        ));
    }
    if let Some(n) = deltas {
        lines.push(("streamed", format!("{n} deltas")));
    }
    for (name, value) in lines {
        ui.field(name, &value)?;
    }
    if result.is_err() {
        ui.error_line("the execution failed")?;
    }
    Ok(status)
}

/// The diagnostics of a failed execution, the first with a note on the
/// provider's own message when its diagnostic quotes only the first line
/// of it: the whole message with `--verbose`, else how much was left out.
fn with_provider_message(error: &ExecutionError, verbose: bool) -> Vec<Diagnostic> {
    let mut diagnostics = error.diagnostics.clone();
    let lines: Vec<&str> = error
        .failure
        .provider_message
        .as_deref()
        .unwrap_or("")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .collect();
    if let (Some(first), true) = (diagnostics.first_mut(), lines.len() > 1) {
        let note = if verbose {
            format!("the server's whole message:\n{}", lines.join("\n"))
        } else {
            format!(
                "the server's message goes on for {} more line{} (`--verbose` shows it whole)",
                lines.len() - 1,
                if lines.len() == 2 { "" } else { "s" }
            )
        };
        first.notes.push(note);
    }
    diagnostics
}

/// The `result` of `templiqx run --format json` (`docs/cli.md`): a struct,
/// not a `serde_json::Value`, so the output's integers keep their digits at
/// any size. Members in key order, as the envelope's other objects.
#[derive(serde::Serialize)]
struct Report<'a> {
    attempts: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    deltas: Option<usize>,
    latency_ms: u64,
    model: &'a str,
    output: Option<&'a templiqx_contracts::Json>,
    provider: &'a str,
    receipt: &'a templiqx_contracts::Receipt,
    /// A chain's route (`docs/runtime.md`, "Routes"); absent for one
    /// adapter.
    #[serde(skip_serializing_if = "Option::is_none")]
    route: Option<&'a Route>,
    usage: Option<templiqx::Usage>,
}

/// The report's lines for a chain's route: who answered, then one line per
/// member's turn (`local: failure TQX_RUNTIME_UNAVAILABLE, 1 attempt, 3 ms`).
fn route_lines(route: &Route) -> Vec<(&'static str, String)> {
    let mut lines = vec![(
        "answered by",
        route
            .answered_by
            .clone()
            .unwrap_or_else(|| "none".to_owned()),
    )];
    for (i, a) in route.attempts.iter().enumerate() {
        let outcome = match (a.outcome, a.code) {
            (templiqx::fallback::AttemptOutcome::Success, _) => "success".to_owned(),
            (templiqx::fallback::AttemptOutcome::Skipped, _) => "skipped".to_owned(),
            (templiqx::fallback::AttemptOutcome::Failure, Some(code)) => format!("failure {code}"),
            (templiqx::fallback::AttemptOutcome::Failure, None) => "failure".to_owned(),
        };
        lines.push((
            if i == 0 { "route" } else { "" },
            format!(
                "{}: {outcome}, {} attempt{}, {} ms",
                a.adapter,
                a.invocations,
                if a.invocations == 1 { "" } else { "s" },
                a.duration_ms
            ),
        ));
    }
    lines
}

/// What `run --stream` shows of the output while it arrives
/// (`docs/cli.md`, "run"): the partial output read from the deltas
/// (`templiqx::PartialStream`, `docs/runtime.md`, "Typed streaming") — with
/// `--format json` one line `{"event":"partial","output":…,"writing":…}`
/// each time what it shows changes, before the envelope; on a terminal,
/// drawn in place as it grows — else the text as it comes.
struct Partials {
    json: bool,
    stream: templiqx::PartialStream<templiqx_contracts::Json>,
    /// On a terminal (human format): the partial output drawn in place;
    /// hidden otherwise.
    view: ProgressBar,
    /// The text so far, while it is drawn as a partial output (shown as
    /// text if it stops being JSON).
    text: String,
    /// When the partial output was last drawn: drawing writes the whole
    /// output, so it happens at most every [`REDRAW`].
    drawn: Option<Instant>,
}

/// The shortest time between two drawings of the partial output on a
/// terminal.
const REDRAW: Duration = Duration::from_millis(50);

/// The most lines of the partial output drawn on a terminal: a taller one
/// shows its last lines, where it grows.
const DRAWN_LINES: usize = 20;

/// One `--format json` line of `run --stream`: the output so far and the
/// JSON Pointer of the value being written (`null` once complete).
#[derive(serde::Serialize)]
struct PartialLine<'a> {
    event: &'static str,
    output: &'a templiqx_contracts::Json,
    writing: Option<&'a str>,
}

impl Partials {
    fn new(json: bool) -> Partials {
        let view = if !json && io::stdout().is_terminal() {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stdout());
            bar.set_style(
                ProgressStyle::with_template("{msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            bar
        } else {
            ProgressBar::hidden()
        };
        Partials {
            json,
            stream: templiqx::PartialStream::new(),
            view,
            text: String::new(),
            drawn: None,
        }
    }

    /// Shows one delta; returns whether it printed text (a line must end
    /// it).
    fn delta(&mut self, text: &str) -> bool {
        let drawing = !self.view.is_hidden();
        if !self.json && !drawing {
            let mut out = io::stdout().lock();
            let _ = out.write_all(text.as_bytes());
            let _ = out.flush();
            return true;
        }
        if drawing {
            self.text.push_str(text);
        }
        if let Some(snapshot) = self.stream.feed(text) {
            if self.json {
                let line = PartialLine {
                    event: "partial",
                    output: snapshot.output,
                    writing: snapshot.writing,
                };
                if let Ok(line) = serde_json::to_string(&line) {
                    let mut out = io::stdout().lock();
                    let _ = writeln!(out, "{line}");
                    let _ = out.flush();
                }
            } else if self.drawn.is_none_or(|at| at.elapsed() >= REDRAW)
                && let Ok(pretty) = serde_json::to_string_pretty(snapshot.output)
            {
                self.drawn = Some(Instant::now());
                let lines: Vec<&str> = pretty.lines().collect();
                let message = if lines.len() > DRAWN_LINES {
                    let above = lines.len() - (DRAWN_LINES - 1);
                    format!("… {above} lines above\n{}", lines[above..].join("\n"))
                } else {
                    pretty
                };
                self.view.set_message(message);
            }
        } else if drawing && self.stream.error().is_some() {
            // Not JSON (prose, a fence): the text as it comes instead.
            self.view.finish_and_clear();
            self.view = ProgressBar::hidden();
            let mut out = io::stdout().lock();
            let _ = out.write_all(std::mem::take(&mut self.text).as_bytes());
            let _ = out.flush();
            return true;
        }
        false
    }

    /// Clears the drawing: the report shows the whole output.
    fn finish(&self) {
        self.view.finish_and_clear();
    }
}
