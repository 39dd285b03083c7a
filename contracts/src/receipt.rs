//! Payload-free execution receipts and runtime failures (`docs/runtime.md`,
//! "Receipts").
//!
//! A receipt records the outcome and fingerprints only, never request text
//! or output payloads; receipts are what crosses trust boundaries.

use crate::canonical::fingerprint;
use crate::diagnostic::{Code, Diagnostic};
use serde::{Deserialize, Serialize};
use serde_json::json;

/// A typed runtime failure.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RuntimeFailure {
    /// A stable code: one of the `TQX_RUNTIME_*` codes (or
    /// `TQX_CAPABILITY_UNSUPPORTED` / `TQX_OUTPUT_SCHEMA` from the port).
    pub code: Code,
    /// An identifier of the failing step (the terminal step id for scripted
    /// runtimes; an adapter-chosen stable id otherwise).
    pub id: String,
    /// Human-readable detail. Not part of any fingerprint.
    pub detail: String,
    /// Suggested wait before retrying, in milliseconds (rate limiting).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_after_ms: Option<u64>,
    /// What to do about it, when the adapter knows better than the code's
    /// general advice (a server that refuses `json_schema`: the setting
    /// that avoids it). The port uses it as the diagnostic's help. Not
    /// part of any fingerprint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
    /// The provider's own error message, whole (a server's traceback
    /// included) and with secrets redacted, when it sent one; `detail`
    /// quotes only its first meaningful line. Not part of any fingerprint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_message: Option<String>,
    /// The text the model wrote before the failure, when the adapter has
    /// it: an output cut off at the token limit, which does not parse.
    /// The port hands it on as [`ExecutionError::output`] (a JSON string),
    /// redacted, so a host can show what the model said. Not part of any
    /// fingerprint or receipt.
    ///
    /// [`ExecutionError::output`]: https://docs.rs/templiqx/latest/templiqx/struct.ExecutionError.html#structfield.output
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
}

impl RuntimeFailure {
    /// A failure with no retry hint.
    pub fn new(code: Code, id: impl Into<String>, detail: impl Into<String>) -> RuntimeFailure {
        RuntimeFailure {
            code,
            id: id.into(),
            detail: detail.into(),
            retry_after_ms: None,
            help: None,
            provider_message: None,
            output: None,
        }
    }

    /// The failure with `help` ([`RuntimeFailure::help`]).
    #[must_use]
    pub fn with_help(mut self, help: impl Into<String>) -> RuntimeFailure {
        self.help = Some(help.into());
        self
    }

    /// The failure with the text the model wrote before it
    /// ([`RuntimeFailure::output`]).
    #[must_use]
    pub fn with_output(mut self, output: impl Into<String>) -> RuntimeFailure {
        self.output = Some(output.into());
        self
    }

    /// The failure fingerprint: fingerprint of
    /// `{"id", "code", "retry_after_ms": number or null}` (`docs/runtime.md`,
    /// "Receipts").
    pub fn fingerprint(&self) -> String {
        fingerprint(&json!({
            "id": self.id,
            "code": self.code.as_str(),
            "retry_after_ms": self.retry_after_ms,
        }))
    }

    /// The receipt this failure produces.
    pub fn receipt(&self) -> Receipt {
        Receipt::Failure {
            code: self.code,
            failure_fingerprint: self.fingerprint(),
            retry_after_ms: self.retry_after_ms,
        }
    }
}

impl std::fmt::Display for RuntimeFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.detail)
    }
}

impl std::error::Error for RuntimeFailure {}

/// The payload-free record of one execution.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Receipt {
    /// The runtime produced an output that validates against `output_schema`.
    Success {
        /// Fingerprint of the rendered interaction sent.
        request_fingerprint: String,
        /// Fingerprint of the output value.
        output_fingerprint: String,
        /// Whether the output validated (always `true` once normalised).
        output_schema_valid: bool,
        /// Warnings about how the output was obtained, in order: a
        /// `TQX_OUTPUT_RECOVERED` warning when output recovery read the
        /// output from the model's text (`docs/runtime.md`, "Output
        /// recovery"). They say what was done and quote nothing of the
        /// request or the output. Empty for an output taken as the model
        /// gave it, and then absent from the JSON and from the
        /// fingerprint, so such a receipt reads, writes and fingerprints
        /// as before.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        diagnostics: Vec<Diagnostic>,
    },
    /// The execution failed.
    Failure {
        /// The stable failure code.
        code: Code,
        /// The runtime failure fingerprint, or the output fingerprint for a
        /// schema-invalid output normalised to `TQX_OUTPUT_SCHEMA`.
        failure_fingerprint: String,
        /// Retry hint in milliseconds.
        retry_after_ms: Option<u64>,
    },
}

impl Receipt {
    /// The receipt for a runtime success, normalised (`docs/runtime.md`,
    /// "Receipts"):
    /// a schema-invalid output becomes a `TQX_OUTPUT_SCHEMA` failure receipt
    /// whose `failure_fingerprint` is the output fingerprint.
    pub fn for_output(
        request_fingerprint: &str,
        output_fingerprint: &str,
        output_schema_valid: bool,
    ) -> Receipt {
        if output_schema_valid {
            Receipt::Success {
                request_fingerprint: request_fingerprint.to_owned(),
                output_fingerprint: output_fingerprint.to_owned(),
                output_schema_valid: true,
                diagnostics: Vec::new(),
            }
        } else {
            Receipt::Failure {
                code: Code::OutputSchema,
                failure_fingerprint: output_fingerprint.to_owned(),
                retry_after_ms: None,
            }
        }
    }

    /// The receipt fingerprint (`docs/runtime.md`, "Receipts"): fingerprint of
    /// `{"outcome": "success", "request_fingerprint", "output_fingerprint",
    /// "output_schema_valid"}` (with `"diagnostics": [<code>, …]`, the
    /// codes of its warnings, when it has any: their text is free and
    /// enters no fingerprint) or `{"outcome": "failure", "code",
    /// "failure_fingerprint", "retry_after_ms": number or null}`.
    pub fn fingerprint(&self) -> String {
        match self {
            Receipt::Success {
                request_fingerprint,
                output_fingerprint,
                output_schema_valid,
                diagnostics,
            } => {
                let mut value = json!({
                    "outcome": "success",
                    "request_fingerprint": request_fingerprint,
                    "output_fingerprint": output_fingerprint,
                    "output_schema_valid": output_schema_valid,
                });
                if !diagnostics.is_empty() {
                    value["diagnostics"] = diagnostics.iter().map(|d| d.code.as_str()).collect();
                }
                fingerprint(&value)
            }
            Receipt::Failure {
                code,
                failure_fingerprint,
                retry_after_ms,
            } => fingerprint(&json!({
                "outcome": "failure",
                "code": code.as_str(),
                "failure_fingerprint": failure_fingerprint,
                "retry_after_ms": retry_after_ms,
            })),
        }
    }

    /// Whether this is a success receipt.
    pub fn is_success(&self) -> bool {
        matches!(self, Receipt::Success { .. })
    }

    /// The warnings of a success receipt (`TQX_OUTPUT_RECOVERED`: output
    /// recovery read the output from the model's text); none for a failure
    /// receipt or an output taken as the model gave it.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        match self {
            Receipt::Success { diagnostics, .. } => diagnostics,
            Receipt::Failure { .. } => &[],
        }
    }

    /// The receipt with `diagnostic` added to a success receipt's
    /// warnings ([`Receipt::diagnostics`]); a failure receipt is returned
    /// as it is.
    #[must_use]
    pub fn with_diagnostic(mut self, diagnostic: Diagnostic) -> Receipt {
        if let Receipt::Success { diagnostics, .. } = &mut self {
            diagnostics.push(diagnostic);
        }
        self
    }
}
