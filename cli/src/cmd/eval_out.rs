//! What `templiqx eval` reports once its executions are done: the
//! statistics (a table, or an `OperationEnvelope`), the comparison with the
//! baseline, the gate and its exit status, the JUnit and HTML files
//! (`docs/eval.md`).

use crate::args::GateScopeArg;
use crate::cmd::eval::{Options, io_diagnostic};
use crate::ui::{SourceTexts, Status, Ui};
use anstyle::{AnsiColor, Style};
use serde::Serialize;
use std::io;
use std::path::Path;
use templiqx_contracts::{Code, Diagnostic, Operation, OperationEnvelope};
use templiqx_eval::compare::{Comparison, RateComparison};
pub use templiqx_eval::stats::Accumulator;
use templiqx_eval::gate::{Gate, GateScope, GateVerdict};
use templiqx_eval::stats::{Rate, RunStats, Summary};
use templiqx_eval::{RunInfo, history::History};

/// The run `--baseline` names, read before this run starts.
pub struct Baseline {
    /// Where it came from: `run 3` or the results file's path.
    pub source: String,
    /// Its statistics.
    pub stats: RunStats,
}

/// The `result` of `templiqx eval --format json`.
#[derive(Serialize)]
struct EvalResult<'a> {
    run: &'a RunInfo,
    stats: &'a RunStats,
    #[serde(skip_serializing_if = "Option::is_none")]
    baseline: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    comparison: Option<&'a Comparison>,
    gate: &'a GateVerdict,
    /// What the reader should know to read the figures right.
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    notes: &'a [String],
    /// Fixtures `--provider fake` skipped (no `fake_output`), by name.
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    skipped: &'a [String],
}

/// Reports a failure that stopped a run part way (the history refused a
/// write): no statistics, exit 2.
pub fn stopped(ui: &mut Ui, diagnostic: Diagnostic) -> io::Result<()> {
    if ui.json() {
        let env =
            OperationEnvelope::<serde_json::Value>::new(Operation::Eval, None, vec![diagnostic]);
        ui.json_line(&env)
    } else {
        ui.diagnostics(&[diagnostic], &SourceTexts::default())?;
        ui.error_line("the run stopped before its end; no statistics")
    }
}

/// Reports diagnostics that stopped the run before anything executed.
pub fn refused(ui: &mut Ui, diagnostics: Vec<Diagnostic>) -> io::Result<()> {
    refused_with_sources(ui, diagnostics, &SourceTexts::default())
}

/// [`refused`], with the sources for snippets.
pub fn refused_with_sources(
    ui: &mut Ui,
    diagnostics: Vec<Diagnostic>,
    sources: &SourceTexts,
) -> io::Result<()> {
    if ui.json() {
        let env = OperationEnvelope::<serde_json::Value>::new(Operation::Eval, None, diagnostics);
        ui.json_line(&env)
    } else {
        ui.diagnostics(&diagnostics, sources)?;
        ui.error_line("nothing was executed")
    }
}

/// The baseline `reference` names: a results file written by
/// `templiqx eval --format json` when a file of that name exists, else
/// `last` or a run id in `history`.
///
/// `Ok(None)` for `last` when the history has no earlier finished run of
/// this provider and model: a first run (a fresh CI checkout) has nothing
/// to compare with, and is not an error.
pub fn load_baseline(
    history: &History,
    reference: &str,
    like: (&str, &str),
) -> Result<Option<Baseline>, Diagnostic> {
    let path = Path::new(reference);
    if path.is_file() {
        let text = std::fs::read_to_string(path).map_err(|e| {
            io_diagnostic(&format!(
                "cannot read the baseline `{reference}`: {}",
                crate::compile::io_reason(&e)
            ))
        })?;
        let stats = results_stats(&text).map_err(|why| {
            io_diagnostic(&format!(
                "the baseline `{reference}` is not an eval results file: {why}"
            ))
            .help("write one with `templiqx eval … --format json > results.json`")
        })?;
        return Ok(Some(Baseline {
            source: reference.to_owned(),
            stats,
        }));
    }
    let stored = history
        .baseline(reference, None, like)
        .map_err(|e| io_diagnostic(&e.to_string()))?;
    if stored.is_none() && reference == "last" {
        return Ok(None);
    }
    let Some(stored) = stored else {
        return Err(io_diagnostic(&format!(
            "--baseline `{reference}` names no finished run in the history and no file"
        ))
        .help("a run id (the `run` line of an earlier eval), `last`, or a results file from --format json; --db names the history"));
    };
    let stats = serde_json::from_str(&stored.stats).map_err(|e| {
        io_diagnostic(&format!(
            "run {} in the history has unreadable statistics: {e}",
            stored.id
        ))
    })?;
    Ok(Some(Baseline {
        source: format!("run {} ({})", stored.id, stored.started_at),
        stats,
    }))
}

/// The statistics of a results file: the last line that is an `eval`
/// envelope with a result (a file of JSON Lines), or a bare object with
/// `stats`.
fn results_stats(text: &str) -> Result<RunStats, String> {
    let mut last_error = "it holds no eval result".to_owned();
    for line in text.lines().rev().filter(|l| !l.trim().is_empty()) {
        let value: serde_json::Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => {
                last_error = format!("a line is not JSON: {e}");
                continue;
            }
        };
        let stats = value
            .get("result")
            .and_then(|r| r.get("stats"))
            .or_else(|| value.get("stats"));
        if let Some(stats) = stats {
            return serde_json::from_value(stats.clone()).map_err(|e| e.to_string());
        }
    }
    // A pretty-printed file is one JSON text over many lines.
    if let Ok(value) = serde_json::from_str::<serde_json::Value>(text)
        && let Some(stats) = value
            .get("result")
            .and_then(|r| r.get("stats"))
            .or_else(|| value.get("stats"))
    {
        return serde_json::from_value(stats.clone()).map_err(|e| e.to_string());
    }
    Err(last_error)
}

/// What a run leaves for [`finish`].
pub struct Ran<'a> {
    /// The run.
    pub run: &'a RunInfo,
    /// Its executions' statistics so far.
    pub accumulator: Accumulator,
    /// The baseline it compares with.
    pub baseline: Option<Baseline>,
    /// Problems found on the way (none are errors, or it would not have run).
    pub diagnostics: Vec<Diagnostic>,
    /// Fixtures `--provider fake` skipped.
    pub skipped: &'a [String],
}

/// Computes the statistics, compares, gates, stores, and reports.
pub fn finish(
    ui: &mut Ui,
    options: &Options<'_>,
    history: &mut History,
    ran: Ran<'_>,
) -> io::Result<Status> {
    let Ran {
        run,
        accumulator,
        baseline,
        diagnostics,
        skipped,
    } = ran;
    let stats = accumulator.stats();
    let mut notes = Vec::new();
    if options.baseline == Some("last") && baseline.is_none() {
        notes.push(format!(
            "--baseline last: no earlier finished run of {} `{}` in the history; nothing to compare with (this run is the next one's baseline)",
            run.provider, run.model
        ));
    }
    // Calls that never produced an answer count as failed executions: say
    // so, since a fall they cause is the provider's, not the prompt's.
    let transport: Vec<String> = stats
        .overall
        .summary
        .failure_codes
        .iter()
        .filter(|(code, _)| code.starts_with("TQX_RUNTIME_") || code.starts_with("TQX_CAPABILITY"))
        .map(|(code, n)| format!("{code} × {n}"))
        .collect();
    if !transport.is_empty() {
        notes.push(format!(
            "executions failed before the model answered ({}); they count as not passed, so these rates measure the provider as well as the prompt",
            transport.join(", ")
        ));
    }
    let comparison = baseline
        .as_ref()
        .map(|b| templiqx_eval::compare::compare(&b.stats, &stats));
    let gate = Gate {
        min_pass_rate: options.min_pass_rate,
        per: match options.gate_scope {
            GateScopeArg::Fixture => GateScope::Fixture,
            GateScopeArg::Overall => GateScope::Overall,
        },
        fail_on_regression: options.fail_on_regression,
    };
    let verdict = gate.evaluate(&stats, comparison.as_ref());
    let mut diagnostics = diagnostics;
    diagnostics.extend(verdict.failures.iter().map(|f| {
        let place = match (&f.contract, &f.fixture) {
            (Some(contract), Some(fixture)) => format!("`{contract}::{fixture}`"),
            (Some(contract), None) => format!("`{contract}`"),
            _ => "the run".to_owned(),
        };
        Diagnostic::error(Code::EvalGate, format!("gate failed for {place}: {}", f.reason)).help(
            if f.reason.starts_with("regression") {
                "--fail-on-regression fails on a significant fall against --baseline (docs/eval.md, \"Comparing with a baseline\")"
            } else {
                "--min-pass-rate sets the least pass rate (docs/eval.md, \"Gating and exit status\")"
            },
        )
    }));
    let finished = jiff::Timestamp::now().to_string();
    let stats_json = serde_json::to_string(&stats).map_err(io::Error::other)?;
    if let (Some(id), Err(e)) = (
        run.id,
        history.finish_run(run.id.unwrap_or(0), &finished, &stats_json),
    ) {
        diagnostics.push(io_diagnostic(&format!(
            "run {id} could not be finished: {e}"
        )));
    }
    let mut files = Vec::new();
    if let Some(path) = options.report {
        let html = templiqx_eval::report::html(&stats, run, comparison.as_ref());
        files.push((path, html, "report"));
    }
    if let Some(path) = options.junit {
        let xml = templiqx_eval::junit::junit(&stats, run, &verdict);
        files.push((path, xml, "JUnit report"));
    }
    let mut status = if verdict.passed {
        Status::Success
    } else {
        Status::Failure
    };
    for (path, text, what) in files {
        if let Err(e) = std::fs::write(path, text) {
            diagnostics.push(io_diagnostic(&format!(
                "cannot write the {what} {}: {}",
                path.display(),
                crate::compile::io_reason(&e)
            )));
            status = Status::Error;
        }
    }
    status = status.max(Status::of(&diagnostics));
    if ui.json() {
        let result = EvalResult {
            run,
            stats: &stats,
            baseline: baseline.as_ref().map(|b| b.source.as_str()),
            comparison: comparison.as_ref(),
            gate: &verdict,
            notes: &notes,
            skipped,
        };
        let env = OperationEnvelope::new(Operation::Eval, Some(result), diagnostics);
        ui.json_line(&env)?;
        return Ok(status);
    }
    table(ui, &stats)?;
    if let (Some(b), Some(c)) = (&baseline, &comparison) {
        compared(ui, &b.source, c)?;
    }
    for note in &notes {
        ui.line(&format!("note: {note}"))?;
    }
    ui.diagnostics(&diagnostics, &SourceTexts::default())?;
    gate_lines(ui, run, &gate, &verdict)?;
    Ok(status)
}

/// A rate as `95.0% [76.4, 99.1]`.
fn rate(r: &Rate) -> String {
    format!(
        "{:.1}% [{:.1}, {:.1}]",
        r.rate * 100.0,
        r.low * 100.0,
        r.high * 100.0
    )
}

fn ms(v: Option<f64>) -> String {
    match v {
        None => "-".to_owned(),
        Some(ms) if ms >= 10_000.0 => format!("{:.1} s", ms / 1000.0),
        Some(ms) if ms >= 100.0 => format!("{ms:.0} ms"),
        Some(ms) => format!("{ms:.2} ms"),
    }
}

/// The columns of the table, after the fixture's name.
const HEADER: [&str; 9] = [
    "n",
    "passed",
    "pass rate [95% CI]",
    "schema-valid [95% CI]",
    "pass^n",
    "outputs",
    "p50",
    "p95",
    "out tok/s",
];

/// One row of the table: a fixture's (or a contract's pooled) figures.
fn row(name: String, s: &Summary) -> Vec<String> {
    vec![
        name,
        s.executions.to_string(),
        s.pass_rate.passed.to_string(),
        rate(&s.pass_rate),
        rate(&s.schema_valid_rate),
        if s.pass_all { "yes" } else { "no" }.to_owned(),
        s.distinct_outputs.to_string(),
        ms(s.latency.p50_ms),
        ms(s.latency.p95_ms),
        s.output_tokens_per_s
            .map_or_else(|| "-".to_owned(), |t| format!("{t:.1}")),
    ]
}

/// The lines under a row: each check's pass rate, the failure codes, the
/// tokens and what came from the cache.
fn details(s: &Summary) -> Vec<String> {
    let width = s.checks.iter().map(|c| c.id.len()).max().unwrap_or(0);
    let mut lines: Vec<String> = s
        .checks
        .iter()
        .map(|c| {
            format!(
                "check {:<width$}  {} ({} of {})",
                c.id,
                rate(&c.rate),
                c.rate.passed,
                c.rate.total
            )
        })
        .collect();
    if !s.failure_codes.is_empty() {
        let codes: Vec<String> = s
            .failure_codes
            .iter()
            .map(|(code, n)| format!("{code} × {n}"))
            .collect();
        lines.push(format!("failures: {}", codes.join(", ")));
    }
    if s.input_tokens.reported > 0 || s.output_tokens.reported > 0 {
        lines.push(format!(
            "tokens: {} in, {} out",
            s.input_tokens.total, s.output_tokens.total
        ));
    }
    if s.cached > 0 {
        lines.push(format!("cached: {} of {}", s.cached, s.executions));
    }
    lines
}

/// The human table: per contract, a header, a row per fixture with its
/// checks and failures beneath, and the contract's pooled row when it has
/// more than one fixture; then the run's overall line.
fn table(ui: &mut Ui, stats: &RunStats) -> io::Result<()> {
    let bold = Style::new().bold();
    for c in &stats.contracts {
        let mut rows = vec![header_row()];
        let mut under: Vec<Vec<String>> = vec![Vec::new()];
        for f in stats.fixtures_of(&c.contract) {
            rows.push(row(f.fixture.clone(), &f.summary));
            under.push(details(&f.summary));
        }
        if c.fixtures > 1 {
            rows.push(row("(all fixtures)".to_owned(), &c.summary));
            under.push(Vec::new());
        }
        let widths: Vec<usize> = (0..rows[0].len())
            .map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0))
            .collect();
        ui.line("")?;
        let fp = c
            .interaction_fingerprint
            .as_deref()
            .map_or_else(String::new, |f| format!(" (interaction {})", short(f)));
        let title = ui.paint(bold, &format!("contract {}", c.contract));
        ui.line(&format!("{title}{fp}"))?;
        for (i, (cells, lines)) in rows.iter().zip(&under).enumerate() {
            let text: Vec<String> = cells
                .iter()
                .zip(&widths)
                .enumerate()
                .map(|(k, (cell, w))| {
                    let pad = w - cell.chars().count();
                    // Names left, figures right.
                    if k == 0 {
                        format!("{cell}{}", " ".repeat(pad))
                    } else {
                        format!("{}{cell}", " ".repeat(pad))
                    }
                })
                .collect();
            let text = format!("  {}", text.join("  "));
            if i == 0 {
                let header = ui.paint(bold, text.trim_end());
                ui.line(&header)?;
            } else {
                ui.line(text.trim_end())?;
            }
            for line in lines {
                ui.line(&format!("    {line}"))?;
            }
        }
    }
    let o = &stats.overall;
    ui.line("")?;
    ui.line(&format!(
        "overall: {} executions of {} fixture(s) in {} contract(s); pass rate {} ({} of {}), schema-valid {}, pass^n {}",
        o.summary.executions,
        o.fixtures,
        o.contracts,
        rate(&o.summary.pass_rate),
        o.summary.pass_rate.passed,
        o.summary.pass_rate.total,
        rate(&o.summary.schema_valid_rate),
        if o.summary.pass_all { "yes" } else { "no" },
    ))?;
    ui.line("")
}

/// The table's header cells.
fn header_row() -> Vec<String> {
    std::iter::once("fixture")
        .chain(HEADER)
        .map(str::to_owned)
        .collect()
}

fn short(fingerprint: &str) -> &str {
    fingerprint.get(..12).unwrap_or(fingerprint)
}

/// The comparison with the baseline: per contract whether its interaction
/// changed, per fixture its pass rate, schema-valid rate and each check
/// before and after with the p-value.
fn compared(ui: &mut Ui, source: &str, c: &Comparison) -> io::Result<()> {
    let red = Style::new().fg_color(Some(AnsiColor::Red.into()));
    let green = Style::new().fg_color(Some(AnsiColor::Green.into()));
    ui.line(&format!(
        "compared with {source} (Fisher's exact test, two-sided, α = {})",
        c.alpha
    ))?;
    let width = c
        .fixtures
        .iter()
        .flat_map(|f| f.checks.iter().map(|k| k.id.len() + 6))
        .chain([12])
        .max()
        .unwrap_or(12);
    let line = |ui: &mut Ui, name: &str, r: &RateComparison| -> io::Result<()> {
        let p = if r.p_value < 0.001 {
            format!("{:.1e}", r.p_value)
        } else {
            format!("{:.3}", r.p_value)
        };
        let change = format!(
            "{:.1}% → {:.1}% ({:+.1} points, p = {p})",
            r.baseline.rate * 100.0,
            r.current.rate * 100.0,
            r.difference * 100.0,
        );
        let mark = if r.regression {
            ui.paint(red, "regression")
        } else if r.improvement {
            ui.paint(green, "improvement")
        } else {
            "not significant".to_owned()
        };
        ui.line(&format!("    {name:<width$}  {change} {mark}"))
    };
    for contract in &c.contracts {
        let changed = if contract.interaction_changed {
            "interaction changed"
        } else {
            "same interaction"
        };
        ui.line(&format!("  contract {} ({changed})", contract.contract))?;
        for f in c
            .fixtures
            .iter()
            .filter(|f| f.contract == contract.contract)
        {
            ui.line(&format!("  fixture {}", f.fixture))?;
            line(ui, "pass rate", &f.pass_rate)?;
            line(ui, "schema-valid", &f.schema_valid_rate)?;
            // A check whose rate did not move says nothing new.
            for check in f
                .checks
                .iter()
                .filter(|c| c.comparison.difference != 0.0 || c.comparison.significant)
            {
                line(ui, &format!("check {}", check.id), &check.comparison)?;
            }
        }
    }
    for (what, keys) in [("new", &c.added_fixtures), ("gone", &c.removed_fixtures)] {
        for k in keys {
            ui.line(&format!("  {what} fixture {}::{}", k.contract, k.fixture))?;
        }
    }
    ui.line("")
}

fn gate_lines(ui: &mut Ui, run: &RunInfo, gate: &Gate, verdict: &GateVerdict) -> io::Result<()> {
    let id = run.id.map_or_else(String::new, |id| format!("run {id}: "));
    let gated = gate.min_pass_rate.is_some() || gate.fail_on_regression;
    let verdict_text = match (gated, verdict.passed) {
        (false, _) => "no gate set (--min-pass-rate, --fail-on-regression)".to_owned(),
        (true, true) => ui.verdict(true),
        (true, false) => ui.verdict(false),
    };
    ui.line(&format!("{id}gate {verdict_text}"))
}
