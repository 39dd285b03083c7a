//! What one execution of one eval fixture leaves behind
//! (`docs/eval.md`, "What each execution records").

use serde::{Deserialize, Serialize};

/// One execution of one eval fixture: the unit every statistic counts and
/// the history stores one row of.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExecutionRecord {
    /// The contract id (`id:` of the contract).
    pub contract: String,
    /// The fixture id (`evals[].id`).
    pub fixture: String,
    /// Which repeat of the fixture this is, from 0 (`--repeat N` gives
    /// 0..N).
    pub repeat: u32,
    /// `None` for a schema-valid output; otherwise the failure's stable code
    /// (`TQX_OUTPUT_SCHEMA`, `TQX_RUNTIME_RATE_LIMITED`,
    /// `TQX_RUNTIME_TIMEOUT`, …; `docs/diagnostics.md`).
    pub code: Option<String>,
    /// Whether the model's output validated against `output_schema`
    /// (`code` is `None`).
    pub schema_valid: bool,
    /// The verdict of each `expect` check of the fixture, in the fixture's
    /// order. Present for every check, whatever the outcome: a check
    /// against no valid output is [`Verdict::NotRun`].
    pub checks: Vec<CheckVerdict>,
    /// Wall-clock time of the whole execution (every attempt), in
    /// milliseconds.
    pub latency_ms: f64,
    /// Prompt tokens the provider reported for the successful attempt.
    pub input_tokens: Option<u64>,
    /// Completion tokens the provider reported for the successful attempt.
    pub output_tokens: Option<u64>,
    /// Invocations made (≥ 1 once the adapter was called; 0 when refused
    /// before invoking).
    pub attempts: u32,
    /// The output fingerprint of a schema-valid output: the lowercase hex
    /// SHA-256 of its RFC 8785 canonical JSON (`docs/format.md`,
    /// "Canonical JSON and fingerprints"). `None` without one.
    pub output_fingerprint: Option<String>,
    /// Whether the record was reused from the history (`--cache`) rather
    /// than executed in this run.
    pub cached: bool,
}

impl ExecutionRecord {
    /// Whether the execution passed: a schema-valid output and every check
    /// [`Verdict::Pass`].
    #[must_use]
    pub fn passed(&self) -> bool {
        self.schema_valid && self.checks.iter().all(|c| c.verdict == Verdict::Pass)
    }
}

/// The verdict of one `expect` check in one execution.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckVerdict {
    /// The check's id (`evals[].expect[].id`).
    pub id: String,
    /// Its verdict.
    pub verdict: Verdict,
}

/// The verdict of a check. Rates count [`Verdict::Pass`] over every
/// execution of the fixture: `Fail`, `Error` and `NotRun` all count as not
/// passed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The check evaluated to `true`.
    Pass,
    /// The check evaluated to `false`.
    Fail,
    /// The check could not be decided against this output (a value of
    /// another type than the schema promised cannot happen after
    /// validation, but a runtime evaluation error is reported, not hidden).
    Error,
    /// There was no schema-valid output to check.
    NotRun,
}

impl Verdict {
    /// The stable lower-case name stored in the history and the JSON
    /// output: `pass`, `fail`, `error`, `not_run`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Fail => "fail",
            Verdict::Error => "error",
            Verdict::NotRun => "not_run",
        }
    }
}

/// What identifies a run's setting: the history's key besides the
/// fingerprints of each execution (`docs/eval.md`, "History").
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunInfo {
    /// The history's id of the run (`None` when nothing was stored).
    pub id: Option<i64>,
    /// When the run started, RFC 3339 in UTC.
    pub started_at: String,
    /// `openai`, `anthropic` or `fake`.
    pub provider: String,
    /// The model name sent (`fake` for the fake provider).
    pub model: String,
    /// The sampling parameters sent, per contract: JSON object text mapping
    /// each contract id to the `temperature`, `top_p` and
    /// `max_output_tokens` its runtime policy sets (`{}` for none). Each
    /// execution's own are in its history key.
    pub sampling: String,
    /// Repeats per fixture.
    pub repeat: u32,
}

/// What model a run measures and how it is reached: the provider, the
/// model and the transport, which [`RunInfo`] records and the history keys
/// every execution by (`docs/eval.md`, "History": `--cache` reuses only
/// executions of the same endpoint).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Endpoint {
    /// The provider: `openai`, `anthropic`, `fake`, or a host's own name.
    pub provider: String,
    /// The model name sent (`fake` for the fake provider).
    pub model: String,
    /// How requests reach the model, as JSON object text: the base URL and
    /// the adapter's wire settings (never a secret: header names, not
    /// values); `{}` when there is nothing to say.
    pub transport: String,
}

impl Endpoint {
    /// The endpoint of `model` at `provider`, with the transport `{}`.
    pub fn new(provider: impl Into<String>, model: impl Into<String>) -> Endpoint {
        Endpoint {
            provider: provider.into(),
            model: model.into(),
            transport: "{}".to_owned(),
        }
    }

    /// The same endpoint with `transport` (JSON object text).
    #[must_use]
    pub fn transport(mut self, transport: impl Into<String>) -> Endpoint {
        self.transport = transport.into();
        self
    }
}
