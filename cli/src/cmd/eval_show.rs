//! `templiqx eval show [RUN]`: a stored run printed again from the history
//! alone — its table and its failures, `--format json`, or an HTML report
//! (`docs/eval.md`, "Showing a stored run"; `docs/cli.md`, "eval show").

use crate::cmd::eval::io_diagnostic;
use crate::cmd::eval_out;
use crate::ui::{SourceTexts, Status, Ui};
use std::io;
use std::path::Path;
use templiqx_contracts::{Diagnostic, Operation, OperationEnvelope};
use templiqx_eval::history::History;
use templiqx_eval::show::{StoredOutcome, stored_run};
use templiqx_eval::{DEFAULT_SAMPLES, FixtureFilter};

/// Everything `eval show` was asked for.
pub struct Options<'a> {
    /// The run: an id or `last`.
    pub run: &'a str,
    /// `--db`.
    pub db: &'a Path,
    /// `--fixture` globs over `contract::fixture` (none: every fixture).
    pub fixtures: &'a [String],
    /// `--report`.
    pub report: Option<&'a Path>,
    /// `--show-failures`.
    pub show_failures: usize,
}

/// Runs `eval show`: exit 0, or 2 when the history, the run or a glob is
/// not there (`TQX_IO`) or the report cannot be written.
pub fn run(ui: &mut Ui, options: &Options<'_>) -> io::Result<Status> {
    let shown = (|| -> Result<StoredOutcome, Diagnostic> {
        let filter = FixtureFilter::new(options.fixtures).map_err(|d| {
            d.into_vec()
                .into_iter()
                .next()
                .unwrap_or_else(|| io_diagnostic("--fixture is not a glob"))
        })?;
        // Opening a file that is not there would create an empty history.
        if options.db == Path::new(":memory:") || !options.db.is_file() {
            return Err(io_diagnostic(&format!(
                "there is no eval history at {}",
                options.db.display()
            ))
            .help(format!(
                "--db (or TEMPLIQX_EVAL_DB) names the history `templiqx eval` wrote (default {})",
                crate::args::DEFAULT_EVAL_DB
            )));
        }
        // Read only: showing a run never changes the file (a CI artefact
        // may be read-only, and an empty file stays empty).
        let history =
            History::open_read_only(options.db).map_err(|e| io_diagnostic(&e.to_string()))?;
        stored_run(
            &history,
            options.run,
            &filter,
            options.show_failures.max(DEFAULT_SAMPLES),
        )
    })();
    let outcome = match shown {
        Ok(o) => o,
        Err(d) => {
            if ui.json() {
                let env =
                    OperationEnvelope::<serde_json::Value>::new(Operation::Eval, None, vec![d]);
                ui.json_line(&env)?;
            } else {
                ui.diagnostics(&[d], &SourceTexts::default())?;
            }
            return Ok(Status::Error);
        }
    };
    let mut diagnostics = Vec::new();
    if let Some(path) = options.report {
        let html = templiqx_eval::report::html_with_variants(
            &outcome.stats,
            &outcome.run,
            None,
            &outcome.samples,
            &outcome.variants,
        );
        if let Err(e) = std::fs::write(path, html) {
            diagnostics.push(io_diagnostic(&format!(
                "cannot write the report {}: {}",
                path.display(),
                crate::compile::io_reason(&e)
            )));
        }
    }
    let status = Status::of(&diagnostics);
    if ui.json() {
        let env = OperationEnvelope::new(Operation::Eval, Some(&outcome), diagnostics);
        ui.json_line(&env)?;
        return Ok(status);
    }
    let run = &outcome.run;
    let when = match (&outcome.finished_at, &run.interrupted_at) {
        (Some(at), _) => format!("finished {at}"),
        (None, Some(at)) => format!("interrupted at {at} (its figures cover what ran)"),
        (None, None) => "not finished (still running, or killed)".to_owned(),
    };
    let on = if run.variants.is_empty() {
        format!("{} `{}`", run.provider, run.model)
    } else {
        let names: Vec<&str> = run.variants.iter().map(|v| v.name.as_str()).collect();
        format!("{} variants ({})", names.len(), names.join(", "))
    };
    ui.line(&format!(
        "run {}: {on}, {} repeat(s), started {}, {when}",
        run.id.unwrap_or_default(),
        run.repeat,
        run.started_at,
    ))?;
    // Several variants side by side (`docs/eval.md`, "Comparing models").
    if outcome.variants.is_empty() {
        eval_out::table_priced(ui, &outcome.stats, run.currency.as_deref())?;
    } else {
        crate::cmd::eval_variants::table_of(
            ui,
            &outcome.variants,
            run.currency.as_deref(),
            outcome.cost.as_ref(),
        )?;
    }
    eval_out::failures_of_variants(
        ui,
        &outcome.stats,
        &outcome.variants,
        &outcome.samples,
        options.show_failures,
    )?;
    for note in &outcome.notes {
        ui.line(&format!("note: {note}"))?;
    }
    ui.diagnostics(&diagnostics, &SourceTexts::default())?;
    Ok(status)
}
