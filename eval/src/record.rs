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
    /// The model's time for the execution (every attempt), in
    /// milliseconds: from the moment its request was sent, less the time
    /// it waited for the server ([`ExecutionRecord::queue_ms`]).
    pub latency_ms: f64,
    /// The time the request waited for the server before the model worked
    /// on it, in milliseconds, as the runner can tell from its own
    /// executions (`docs/eval.md`, "Queue time"): when the server serves
    /// one request at a time, the time from sending until the run's
    /// previous execution finished; 0 otherwise, and at `--concurrency 1`.
    #[serde(default)]
    pub queue_ms: f64,
    /// Prompt tokens the provider reported for the successful attempt.
    pub input_tokens: Option<u64>,
    /// Completion tokens the provider reported for the successful attempt.
    pub output_tokens: Option<u64>,
    /// Of [`ExecutionRecord::input_tokens`], those the provider read from
    /// its prompt cache ([`templiqx::Usage::cached_input_tokens`]: OpenAI's
    /// `prompt_tokens_details.cached_tokens`, Anthropic's
    /// `cache_read_input_tokens`), which a price table prices at
    /// `cached_input` (`docs/eval.md`, "Cost"). `Some(0)` when the provider
    /// reported usage without a cache hit; `None` when it reported no usage
    /// (and in the history before version 7).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_input_tokens: Option<u64>,
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
    /// The variant that ran it ([`Variant::name`]) in a run of several
    /// variants (`docs/eval.md`, "Comparing models"); `None` in a run of
    /// one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    /// What the execution cost by the run's price table
    /// ([`Prices`](crate::cost::Prices); `docs/eval.md`, "Cost"), in the
    /// table's currency: its input, cached input and output tokens at the
    /// model's prices ([`Prices::cost_of`](crate::cost::Prices::cost_of)),
    /// 0 for an execution reused from the history. `None` when it
    /// is not known: no price table, no price for the model, or no token
    /// counts reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<f64>,
    /// Whether output recovery read the output out of the model's text
    /// (`--recover-output`; `docs/runtime.md`, "Output recovery"): the
    /// execution carries a `TQX_OUTPUT_RECOVERED` warning, whether the
    /// recovered output then validated or not. `false` when the output was
    /// taken as the model gave it.
    #[serde(default)]
    pub recovered: bool,
    /// What explains the outcome: the output the model gave, the failure's
    /// message and help, the finish reason and the schema violations
    /// (`docs/eval.md`, "What each execution records").
    #[serde(default)]
    pub evidence: Evidence,
}

/// What an execution leaves to explain its outcome. Every text in it has
/// been through the adapter's `redact` (no API key reaches the history or
/// a report).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Evidence {
    /// The output the model gave, as text: its canonical JSON (RFC 8785)
    /// whether it validated or not, or, for a reply that was not JSON, the
    /// reply's text. `None` when the model gave no output (a provider
    /// failure, the capability gate).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    /// The failure's message (`None` for a schema-valid output): for a
    /// provider failure (`TQX_RUNTIME_*`) what the adapter reported,
    /// the provider's own error message included (`openai answered HTTP
    /// 500 Internal Server Error: …`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The provider's own error message, whole (a server's traceback
    /// included), when the adapter kept it and it says more than
    /// [`Evidence::message`], which quotes its first meaningful line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_message: Option<String>,
    /// What to do about the failure, as the adapter port advises
    /// (`None` for a schema-valid output and for `TQX_OUTPUT_SCHEMA`, whose
    /// help is per violation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
    /// The provider's finish reason, when the runner can tell: `length`
    /// (OpenAI) or `max_tokens` (Anthropic) for an output cut off at the
    /// token limit, `content_filter`, `refusal`. `None` otherwise: the
    /// adapter port does not carry a successful answer's (it ended
    /// normally).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<String>,
    /// The schema violations of a `TQX_OUTPUT_SCHEMA` output, in the
    /// validator's order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub violations: Vec<Violation>,
}

impl Evidence {
    /// Whether the output was cut off at the token limit
    /// ([`Evidence::finish_reason`] `length` or `max_tokens`).
    #[must_use]
    pub fn cut_off(&self) -> bool {
        matches!(self.finish_reason.as_deref(), Some("length" | "max_tokens"))
    }
}

/// One way an output violates the contract's `output_schema`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Violation {
    /// Where, as a JSON pointer into the output (`""`: the whole output).
    pub pointer: String,
    /// The JSON Schema keyword violated (`required`, `type`, `minimum`, …).
    pub keyword: String,
    /// What is wrong, in words.
    pub message: String,
}

/// A value a failed check read: one operand of its expression (each
/// reference and each `length`, in the order written).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ObservedValue {
    /// The operand as written (`output.notice_days`,
    /// `length(output.evidence)`).
    pub expression: String,
    /// Its value as canonical JSON (RFC 8785), cut to 2,000 characters;
    /// `None` when it has none (absent, or below a value of the wrong
    /// type).
    pub value: Option<String>,
}

impl ExecutionRecord {
    /// Whether the execution passed: a schema-valid output and every check
    /// [`Verdict::Pass`].
    #[must_use]
    pub fn passed(&self) -> bool {
        self.schema_valid && self.checks.iter().all(|c| c.verdict == Verdict::Pass)
    }

    /// Takes the token counts of `usage` (all `None` without one).
    pub(crate) fn set_usage(&mut self, usage: Option<templiqx::Usage>) {
        self.input_tokens = usage.map(|u| u.input_tokens);
        self.output_tokens = usage.map(|u| u.output_tokens);
        self.cached_input_tokens = usage.map(|u| u.cached_input_tokens);
    }
}

impl JudgeVerdict {
    /// Takes the token counts of `usage`, the judge's execution's (cached
    /// input tokens only when there are some).
    pub(crate) fn set_usage(&mut self, usage: Option<templiqx::Usage>) {
        self.input_tokens = usage.map(|u| u.input_tokens);
        self.output_tokens = usage.map(|u| u.output_tokens);
        self.cached_input_tokens = usage.map(|u| u.cached_input_tokens).filter(|&n| n > 0);
    }
}

/// The verdict of one `expect` check in one execution.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckVerdict {
    /// The check's id (`evals[].expect[].id`).
    pub id: String,
    /// Its verdict.
    pub verdict: Verdict,
    /// For a check that did not pass ([`Verdict::Fail`], [`Verdict::Error`]):
    /// its expression as written, in the compact notation of the compiler
    /// (`equals(output.notice_days, 60)`); empty otherwise.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub expression: String,
    /// For a check that did not pass: the values its operands evaluated to.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub observed: Vec<ObservedValue>,
    /// For [`Verdict::Error`]: why the check could not be decided
    /// (`TQX_VALUE_MISSING: …`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// For a model-graded check (`kind: judge`) whose judge ran: what the
    /// judge answered (`docs/eval.md`, "Judges").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge: Option<JudgeVerdict>,
}

/// What the judge of a model-graded check answered in one execution
/// (`docs/eval.md`, "Judges"): the history's `checks.judge`, shown with
/// the failures. Every text has been through the judge adapter's `redact`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct JudgeVerdict {
    /// The judge contract's id.
    pub contract: String,
    /// The judge's output, as canonical JSON (RFC 8785) cut to 2,000
    /// characters; `None` when the judge gave none (its execution failed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    /// The judge's reasons: the `reasons` (or `reason`) property of its
    /// output, a string or an array of strings joined with `; `, when its
    /// `output_schema` declares one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasons: Option<String>,
    /// The failure's `TQX_*` code, when the judge's execution failed (the
    /// check is then [`Verdict::Error`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// Prompt tokens the judge's provider reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u64>,
    /// Completion tokens the judge's provider reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u64>,
    /// Of `input_tokens`, those the judge's provider read from its prompt
    /// cache ([`ExecutionRecord::cached_input_tokens`]), priced at
    /// `cached_input` (`docs/eval.md`, "Cost"); `None` without usage or
    /// when none were cached.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_input_tokens: Option<u64>,
}

impl CheckVerdict {
    /// A verdict with no evidence (a passing or unrun check).
    pub fn new(id: impl Into<String>, verdict: Verdict) -> CheckVerdict {
        CheckVerdict {
            id: id.into(),
            verdict,
            expression: String::new(),
            observed: Vec::new(),
            error: None,
            judge: None,
        }
    }
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
    /// When the run was interrupted (RFC 3339 in UTC): it stopped issuing
    /// executions before the end ([`Eval::interrupt`](crate::Eval::interrupt),
    /// SIGINT or SIGTERM for `templiqx eval`), so its figures cover only
    /// what ran; also set for a run whose dataset file changed while it ran
    /// (`docs/eval.md`, "Datasets"): it is incomplete, never a baseline.
    /// `None` for a run that ran to its end (or is running).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interrupted_at: Option<String>,
    /// The variants of a run of several (`docs/eval.md`, "Comparing
    /// models"), in the order given, the first the reference the others
    /// are compared with; `provider` and `model` above are the first's.
    /// Empty for a run of one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub variants: Vec<Variant>,
    /// The currency of the run's price table (`--prices`; `docs/eval.md`,
    /// "Cost"), when it had one: executions then carry their cost.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub currency: Option<String>,
    /// The run's budget (`--max-cost`), in [`RunInfo::currency`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_cost: Option<f64>,
}

/// One model a run measures among several (`docs/eval.md`, "Comparing
/// models"): its name in the table, the history and the reports, and its
/// endpoint. The name is the user's (`--variant NAME=…`) or the model's
/// (`--model`); neither holds a secret (API keys come from the
/// environment, and a base URL's `user:password@` is never kept).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Variant {
    /// Its name: letters, digits, `.`, `_`, `-`, `:`, `/`, `@` and `+`, at
    /// most 64 characters, unique within the run.
    pub name: String,
    /// The provider.
    pub provider: String,
    /// The model name sent.
    pub model: String,
    /// How requests reach the model ([`Endpoint::transport`]).
    pub transport: String,
}

impl Variant {
    /// The variant `name` of `endpoint`.
    pub fn new(name: impl Into<String>, endpoint: &Endpoint) -> Variant {
        Variant {
            name: name.into(),
            provider: endpoint.provider.clone(),
            model: endpoint.model.clone(),
            transport: endpoint.transport.clone(),
        }
    }

    /// Its endpoint.
    #[must_use]
    pub fn endpoint(&self) -> Endpoint {
        Endpoint::new(self.provider.clone(), self.model.clone()).transport(self.transport.clone())
    }

    /// Whether `name` is a valid variant name: 1 to 64 characters, each an
    /// ASCII letter or digit or one of `.`, `_`, `-`, `:`, `/`, `@`, `+`
    /// (a model name such as `claude-sonnet@20250514` is one).
    #[must_use]
    pub fn valid_name(name: &str) -> bool {
        (1..=64).contains(&name.len())
            && name.chars().all(|c| {
                c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | ':' | '/' | '@' | '+')
            })
    }
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
