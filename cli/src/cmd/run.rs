//! `templiqx run CONTRACT --request REQUEST.json --target CAP,… --provider P
//! --base-url URL --model M`: render, execute on a real model through
//! `templiqx-openai` or `templiqx-anthropic`, validate, report
//! (`docs/cli.md`, "run"; `docs/adapters.md`).

use crate::args::ProviderArgs;
use crate::cmd::render::{compile, human as print_rendered, read_and_render, with_fingerprints};
use crate::provider::Adapter;
use crate::ui::{SourceTexts, Status, Ui};
use anstyle::Style;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::{self, IsTerminal, Write};
use std::path::Path;
use std::time::{Duration, Instant};
use templiqx::{Execution, ExecutionError, Receipt, StreamEvent};
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
    let spinner = Spinner::start(provider);
    let started = Instant::now();
    let mut deltas = 0usize;
    let mut printed = false;
    let json = ui.json();
    let result = {
        let mut sink = |event: StreamEvent| {
            if let StreamEvent::Delta { text } = &event {
                deltas += 1;
                spinner.stop();
                if !json {
                    let mut out = io::stdout().lock();
                    let _ = out.write_all(text.as_bytes());
                    let _ = out.flush();
                    printed = true;
                }
            }
        };
        runtime.block_on(adapter.execute(rendered, stream.then_some(&mut sink)))
    };
    let latency = started.elapsed();
    spinner.stop();
    if printed {
        ui.line("")?;
    }
    report(
        ui,
        rendered,
        provider,
        result,
        latency,
        stream.then_some(deltas),
        &sources,
    )
}

/// The adapter `provider` asks for, or `None` with a `TQX_RUNTIME_PERMANENT`
/// diagnostic pushed onto `diagnostics` when it refuses its configuration.
fn configure(provider: &ProviderArgs, diagnostics: &mut Vec<Diagnostic>) -> Option<Adapter> {
    match Adapter::new(
        provider.provider,
        &provider.base_url,
        &provider.model,
        &provider.wire,
    ) {
        Ok(a) => Some(a),
        Err(message) => {
            diagnostics.push(
                Diagnostic::error(
                    Code::RuntimePermanent,
                    format!(
                        "the {} adapter refuses its configuration: {message}",
                        provider.provider.name()
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
    fn start(args: &ProviderArgs) -> Spinner {
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

fn report(
    ui: &mut Ui,
    rendered: &RenderedInteraction<'_>,
    provider: &ProviderArgs,
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
            Vec::new(),
        ),
        Err(e) => (
            e.receipt.clone(),
            e.attempts,
            None,
            None,
            with_provider_message(e, provider.verbose),
        ),
    };
    let status = Status::of(&diagnostics);
    if ui.json() {
        let body = Report {
            attempts,
            deltas,
            latency_ms,
            model: &provider.model,
            output: output.as_ref(),
            provider: provider.provider.name(),
            receipt: &receipt,
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
                provider.provider.name(),
                provider.model
            ),
        ),
    ];
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
    usage: Option<templiqx::Usage>,
}
