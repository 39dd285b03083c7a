//! What `templiqx eval` reports once its executions are done: the
//! statistics (a table, or an `OperationEnvelope`), the comparison with the
//! baseline, the gate and its exit status, the JUnit and HTML files
//! (`docs/eval.md`).

use crate::cmd::eval::{Options, io_diagnostic};
use crate::ui::{SourceTexts, Status, Ui};
use anstyle::{AnsiColor, Style};
use std::io;
use std::path::Path;
use templiqx_contracts::{Diagnostic, Diagnostics, Operation, OperationEnvelope};
use templiqx_eval::compare::{Comparison, RateComparison};
use templiqx_eval::explain::{self, excerpt};
use templiqx_eval::history::History;
use templiqx_eval::stats::{Rate, RowStats, RunStats, Summary};
use templiqx_eval::{Baseline, Endpoint, ExecutionRecord, GateVerdict, Outcome, RunInfo};

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
    endpoint: &Endpoint,
) -> Result<Option<Baseline>, Diagnostics> {
    let path = Path::new(reference);
    if path.is_file() {
        let text = std::fs::read_to_string(path).map_err(|e| {
            io_diagnostic(&format!(
                "cannot read the baseline `{reference}`: {}",
                crate::compile::io_reason(&e)
            ))
        })?;
        return Baseline::from_results(reference, &text).map(Some);
    }
    Baseline::from_history(history, reference, endpoint)
}

/// Writes the reports, and prints the statistics, the comparison, the
/// notes, the diagnostics (`warnings` of the compilation first) and the
/// gate; the exit status follows the gate.
pub fn finish(
    ui: &mut Ui,
    options: &Options<'_>,
    warnings: Vec<Diagnostic>,
    mut outcome: Outcome,
) -> io::Result<Status> {
    if options.baseline == Some("last") && outcome.baseline.is_none() {
        outcome.notes.insert(
            0,
            format!(
                "--baseline last: no earlier finished run of {} `{}` in the history; nothing to compare with (this run is the next one's baseline)",
                outcome.run.provider, outcome.run.model
            ),
        );
    }
    let mut diagnostics = warnings;
    diagnostics.append(&mut outcome.diagnostics);
    let Outcome {
        run,
        stats,
        comparison,
        gate: verdict,
        ..
    } = &outcome;
    let mut status = if verdict.passed {
        Status::Success
    } else {
        Status::Failure
    };
    write_reports(options, &outcome, &mut diagnostics);
    status = status.max(Status::of(&diagnostics));
    if ui.json() {
        let env = OperationEnvelope::new(Operation::Eval, Some(&outcome), diagnostics);
        ui.json_line(&env)?;
        return Ok(status);
    }
    // Several variants side by side (`docs/eval.md`, "Comparing models").
    if outcome.variants.is_empty() {
        table_priced(ui, stats, outcome.run.currency.as_deref())?;
    } else {
        crate::cmd::eval_variants::table(ui, &outcome)?;
    }
    failures_of_variants(
        ui,
        stats,
        &outcome.variants,
        &outcome.samples,
        options.show_failures,
    )?;
    if let (Some(source), Some(c)) = (&outcome.baseline, comparison) {
        compared(ui, source, c)?;
    }
    for note in &outcome.notes {
        ui.line(&format!("note: {note}"))?;
    }
    ui.diagnostics(&diagnostics, &SourceTexts::default())?;
    let gated =
        options.min_pass_rate.is_some() || options.fail_on_regression || options.max_cost.is_some();
    gate_lines(ui, run, gated, verdict)?;
    Ok(status)
}

/// Writes `--report` and `--junit` for `outcome`; a file that cannot be
/// written is a `TQX_IO` error in `diagnostics`.
fn write_reports(options: &Options<'_>, outcome: &Outcome, diagnostics: &mut Vec<Diagnostic>) {
    let Outcome {
        run,
        stats,
        comparison,
        gate: verdict,
        samples,
        ..
    } = outcome;
    let mut files = Vec::new();
    if let Some(path) = options.report {
        let html = templiqx_eval::report::html_with_variants(
            stats,
            run,
            comparison.as_ref(),
            samples,
            &outcome.variants,
        );
        files.push((path, html, "report"));
    }
    if let Some(path) = options.junit {
        let xml = templiqx_eval::junit::junit_with_samples(stats, run, verdict, samples);
        files.push((path, xml, "JUnit report"));
    }
    for (path, text, what) in files {
        if let Err(e) = std::fs::write(path, text) {
            diagnostics.push(io_diagnostic(&format!(
                "cannot write the {what} {}: {}",
                path.display(),
                crate::compile::io_reason(&e)
            )));
        }
    }
}

/// Ends a run a signal interrupted (`docs/eval.md`, "Interrupting a
/// run"): the reports of what ran (`--report`, `--junit`, and with
/// `--format json` the envelope on standard output), each marked
/// incomplete, then one line on standard error saying so; the status is
/// `signal`'s (exit 130 for SIGINT, 143 for SIGTERM). Human output prints
/// no table: `templiqx eval show RUN` prints what ran.
pub fn interrupted(
    ui: &mut Ui,
    options: &Options<'_>,
    warnings: Vec<Diagnostic>,
    outcome: Outcome,
    signal: &str,
    status: Status,
) -> io::Result<Status> {
    let mut diagnostics = warnings;
    diagnostics.extend(outcome.diagnostics.iter().cloned());
    write_reports(options, &outcome, &mut diagnostics);
    if ui.json() {
        let env = OperationEnvelope::new(Operation::Eval, Some(&outcome), diagnostics);
        ui.json_line(&env)?;
    } else {
        // Only what went wrong while stopping (a report not written).
        let errors: Vec<Diagnostic> = diagnostics
            .into_iter()
            .filter(Diagnostic::is_error)
            .collect();
        ui.diagnostics(&errors, &SourceTexts::default())?;
    }
    ui.flush()?;
    let how_far = match outcome.interrupted {
        Some(i) => {
            let cancelled = match i.cancelled {
                0 => String::new(),
                n => format!(", {n} in flight cancelled"),
            };
            format!("after {} of {} executions{cancelled}", i.done, i.total)
        }
        None => "after its last execution".to_owned(),
    };
    let run = match outcome.run.id {
        Some(id) => {
            format!("; run {id} is marked interrupted in the history (templiqx eval show {id})")
        }
        None => String::new(),
    };
    let reports = [options.report, options.junit]
        .into_iter()
        .flatten()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>();
    let reports = if reports.is_empty() {
        String::new()
    } else {
        format!("; reports of what ran: {}", reports.join(", "))
    };
    let line = format!("templiqx eval: interrupted by {signal} {how_far}{run}{reports}\n");
    let mut err = io::stderr().lock();
    // Standard error gone: the status still says what happened.
    let _ = io::Write::write_all(&mut err, line.as_bytes());
    Ok(status)
}

/// A rate as `95.0% [76.4, 99.1]`; a value strictly between 0 and 1 gets
/// the decimals it needs not to read as 0 or 100 (`99.9% [99.4, 99.98]`:
/// `templiqx_eval::stats::percent_digits`).
fn rate(r: &Rate) -> String {
    use templiqx_eval::stats::percent_digits;
    format!(
        "{}% [{}, {}]",
        percent_digits(r.rate),
        percent_digits(r.low),
        percent_digits(r.high)
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
/// tokens, the cost (with a price table in `currency`) and what came from
/// the cache.
fn details(s: &Summary, currency: Option<&str>) -> Vec<String> {
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
    if let Some(currency) = currency {
        lines.push(format!(
            "cost: {}",
            crate::cmd::eval_variants::cost_text(s, currency)
        ));
    }
    if s.recovered_rate.passed > 0 {
        lines.push(format!(
            "recovered: {} ({} of {}): outputs read out of the model's text by --recover-output",
            rate(&s.recovered_rate),
            s.recovered_rate.passed,
            s.recovered_rate.total
        ));
    }
    if s.cached > 0 {
        lines.push(format!("cached: {} of {}", s.cached, s.executions));
    }
    lines
}

/// The lines under a dataset entry: its rows, those that passed every
/// execution with the interval, then the failing rows it lists
/// (`docs/eval.md`, "Datasets").
pub(crate) fn rows_lines(rows: &RowStats) -> Vec<String> {
    let failing = rows.passed_all.failed();
    let mut line = format!(
        "rows: {}, {} passed every execution {}",
        rows.rows,
        rows.passed_all.passed,
        rate(&rows.passed_all)
    );
    if rows.varied > 0 {
        line.push_str(&format!(
            "; {} answered differently across executions",
            rows.varied
        ));
    }
    let mut lines = vec![line];
    if !rows.failing.is_empty() {
        let listed: Vec<String> = rows.failing.iter().map(|id| excerpt(id, 80)).collect();
        let which = if failing > rows.failing.len() as u64 {
            format!("the first {} of {failing} by id", rows.failing.len())
        } else {
            failing.to_string()
        };
        lines.push(format!("failing rows ({which}): {}", listed.join(", ")));
    }
    lines
}

/// The human table: per contract, a header, a row per fixture with its
/// checks and failures beneath, and the contract's pooled row when it has
/// more than one fixture; then the run's overall line. With a price table
/// in `currency`, each fixture's cost and the run's under it
/// (`docs/eval.md`, "Cost").
pub(crate) fn table_priced(
    ui: &mut Ui,
    stats: &RunStats,
    currency: Option<&str>,
) -> io::Result<()> {
    let bold = Style::new().bold();
    for c in &stats.contracts {
        let mut rows = vec![header_row()];
        let mut under: Vec<Vec<String>> = vec![Vec::new()];
        for f in stats.fixtures_of(&c.contract) {
            rows.push(row(f.fixture.clone(), &f.summary));
            let mut lines: Vec<String> = f.rows.iter().flat_map(rows_lines).collect();
            lines.extend(details(&f.summary, currency));
            under.push(lines);
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
    if o.summary.recovered_rate.passed > 0 {
        ui.line(&format!(
            "recovered: {} of {} outputs were read out of the model's text by --recover-output ({})",
            o.summary.recovered_rate.passed,
            o.summary.recovered_rate.total,
            rate(&o.summary.recovered_rate),
        ))?;
    }
    if let Some(currency) = currency {
        ui.line(&format!(
            "cost of the run: {}",
            crate::cmd::eval_variants::cost_text(&o.summary, currency)
        ))?;
    }
    ui.line("")
}

/// After the table: per fixture with failing executions, the first
/// `show` of them (`--show-failures`; 0 prints nothing) — the failure or
/// the checks that failed with the values they read, the schema
/// violations, the help, and an excerpt of the output. In a run of several
/// `variants` (none: a run of one), per fixture and variant.
pub(crate) fn failures_of_variants(
    ui: &mut Ui,
    stats: &RunStats,
    variants: &[templiqx_eval::VariantOutcome],
    samples: &[ExecutionRecord],
    show: usize,
) -> io::Result<()> {
    if show == 0 {
        return Ok(());
    }
    let bold = Style::new().bold();
    let red = Style::new().fg_color(Some(AnsiColor::Red.into()));
    let mut any = false;
    let subjects: Vec<(Option<&str>, &templiqx_eval::stats::FixtureStats)> = if variants.is_empty()
    {
        stats.fixtures.iter().map(|f| (None, f)).collect()
    } else {
        // Per fixture, each variant in turn.
        let mut subjects: Vec<(usize, Option<&str>, &templiqx_eval::stats::FixtureStats)> =
            Vec::new();
        for v in variants {
            for f in &v.stats.fixtures {
                let at = subjects
                    .iter()
                    .position(|(_, _, g)| (&g.contract, &g.fixture) > (&f.contract, &f.fixture))
                    .unwrap_or(subjects.len());
                subjects.insert(at, (0, Some(v.variant.name.as_str()), f));
            }
        }
        subjects.into_iter().map(|(_, v, f)| (v, f)).collect()
    };
    for (variant, f) in subjects {
        let failed = f.summary.executions - f.summary.pass_rate.passed;
        let shown: Vec<&ExecutionRecord> = samples
            .iter()
            .filter(|r| f.holds(r) && r.variant.as_deref() == variant && !r.passed())
            .take(show)
            .collect();
        if failed == 0 || shown.is_empty() {
            continue;
        }
        if !any {
            ui.line(&ui.paint(bold, "failures"))?;
            any = true;
        }
        let which = if shown.len() as u64 == failed {
            String::new()
        } else {
            format!("; the first {}", shown.len())
        };
        let on = variant.map_or_else(String::new, |v| format!(" on variant {v}"));
        ui.line(&format!(
            "  {}::{}{on}: {failed} of {} executions failed{which}",
            excerpt(&f.contract, 200),
            excerpt(&f.fixture, 200),
            f.summary.executions
        ))?;
        for record in shown {
            let headline = ui.paint(red, &explain::headline(record));
            let row = templiqx_eval::select::dataset_row(&record.fixture)
                .map_or_else(String::new, |(_, row)| {
                    format!("row {}, ", excerpt(row, 200))
                });
            ui.line(&format!("    {row}repeat {}: {headline}", record.repeat))?;
            for line in explain::details(record) {
                ui.line(&format!("      {line}"))?;
            }
            if let Some(output) = &record.evidence.output {
                ui.line(&format!(
                    "      output: {}",
                    excerpt(output, explain::OUTPUT_EXCERPT)
                ))?;
            }
        }
    }
    if any {
        ui.line("")?;
    }
    Ok(())
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
        let p = templiqx_eval::compare::p_value_text(r.p_value);
        let change = format!(
            "{}% → {}% ({:+.1} points, {p})",
            templiqx_eval::stats::percent_digits(r.baseline.rate),
            templiqx_eval::stats::percent_digits(r.current.rate),
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
        // A judge of its model-graded checks that changed explains a
        // change of their rates too (`docs/eval.md`, "Judges").
        let judges = if contract.judges_changed.is_empty() {
            String::new()
        } else {
            format!(", judge changed: {}", contract.judges_changed.join(", "))
        };
        ui.line(&format!(
            "  contract {} ({changed}{judges})",
            contract.contract
        ))?;
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

fn gate_lines(ui: &mut Ui, run: &RunInfo, gated: bool, verdict: &GateVerdict) -> io::Result<()> {
    let id = run.id.map_or_else(String::new, |id| format!("run {id}: "));
    let verdict_text = match (gated, verdict.passed) {
        (false, _) => "no gate set (--min-pass-rate, --fail-on-regression, --max-cost)".to_owned(),
        (true, true) => ui.verdict(true),
        (true, false) => ui.verdict(false),
    };
    ui.line(&format!("{id}gate {verdict_text}"))
}
