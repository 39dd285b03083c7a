//! The earlier run a run is compared with (`docs/eval.md`, "Comparing with
//! a baseline"): a finished run of the history, or the statistics of a
//! results file that `templiqx eval --format json` wrote.

use templiqx_contracts::{Code, Diagnostic, Diagnostics};

use crate::history::History;
use crate::record::Endpoint;
use crate::stats::RunStats;

/// The statistics of the run a run is compared with, read before the run
/// starts.
#[derive(Clone, Debug, PartialEq)]
pub struct Baseline {
    /// Where it came from, as reports name it: `run 3 (2026-12-03T…Z)` for
    /// a run of the history, the file's name for a results file.
    pub source: String,
    /// Its statistics.
    pub stats: RunStats,
}

impl Baseline {
    /// The baseline in the text of a results file (`source` names it): the
    /// `stats` of the last line that is an `eval` envelope with a result
    /// (a file of JSON Lines, as `--format json` prints), else of the
    /// whole text as one JSON value (pretty-printed), which may also be a
    /// bare object with `stats`.
    ///
    /// # Errors
    ///
    /// One `TQX_IO` diagnostic when the text holds no eval statistics.
    pub fn from_results(source: &str, text: &str) -> Result<Baseline, Diagnostics> {
        let stats = results_stats(text).map_err(|why| {
            Diagnostic::error(
                Code::Io,
                format!("the baseline `{source}` is not an eval results file: {why}"),
            )
            .help("write one with `templiqx eval … --format json > results.json`")
        })?;
        Ok(Baseline {
            source: source.to_owned(),
            stats,
        })
    }

    /// The finished run of `history` that `reference` names: a run id, or
    /// `last`, the latest finished run of `endpoint`'s provider and model.
    ///
    /// `Ok(None)` for `last` when there is no such run: a first run (a
    /// fresh CI checkout) has nothing to compare with, and that is not an
    /// error.
    ///
    /// # Errors
    ///
    /// One `TQX_IO` diagnostic when `reference` names no finished run (and
    /// is not `last`), when the history cannot be read, or when the run's
    /// stored statistics do not read.
    pub fn from_history(
        history: &History,
        reference: &str,
        endpoint: &Endpoint,
    ) -> Result<Option<Baseline>, Diagnostics> {
        let io = |message: String| Diagnostic::error(Code::Io, message);
        let stored = history
            .baseline(
                reference,
                None,
                (endpoint.provider.as_str(), endpoint.model.as_str()),
            )
            .map_err(|e| io(e.to_string()))?;
        if stored.is_none() && reference == "last" {
            return Ok(None);
        }
        let Some(stored) = stored else {
            return Err(io(format!(
                "--baseline `{reference}` names no finished run in the history and no file"
            ))
            .help("a run id (the `run` line of an earlier eval), `last`, or a results file from --format json; --db names the history")
            .into());
        };
        let stats = serde_json::from_str(&stored.stats).map_err(|e| {
            io(format!(
                "run {} in the history has unreadable statistics: {e}",
                stored.id
            ))
        })?;
        Ok(Some(Baseline {
            source: format!("run {} ({})", stored.id, stored.started_at),
            stats,
        }))
    }
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
