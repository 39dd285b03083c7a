//! `OperationEnvelope<T>`: what every operation returns (`docs/diagnostics.md`,
//! "Operation envelopes").

use crate::diagnostic::Diagnostic;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The contract format version this crate implements.
pub const API_VERSION: &str = "templiqx/v1alpha1";

/// The operation an envelope reports on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Operation {
    /// YAML → DTO.
    Parse,
    /// DTO → diagnostics.
    Validate,
    /// Contract → interaction.
    Compile,
    /// Interaction + values → rendered interaction.
    Render,
    /// Execution on a runtime adapter.
    Execute,
    /// Fingerprint of a JSON value.
    Fingerprint,
    /// Eval fixtures of a package.
    Test,
    /// Package check (composition + compile of every contract).
    Check,
    /// The JSON Schema of the contract format.
    Schema,
    /// One mock scenario run by the conformance harness
    /// (`templiqx scenarios run`).
    Scenario,
    /// The summary of a conformance run over a scenario inventory.
    Conformance,
    /// A run of eval fixtures on a model (`templiqx eval`, `docs/eval.md`).
    Eval,
    /// A comparison of two versions of contracts or packages (`templiqx
    /// diff`, `docs/diff.md`).
    Diff,
}

/// The result of one operation, with its diagnostics and named fingerprints.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OperationEnvelope<T> {
    /// Always [`API_VERSION`].
    pub api_version: String,
    /// Which operation.
    pub operation: Operation,
    /// `true` when no diagnostic is an error.
    pub ok: bool,
    /// The result, when the operation produced one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<T>,
    /// Every diagnostic, in the order found.
    pub diagnostics: Vec<Diagnostic>,
    /// Named fingerprints (`contract`, `interaction`, `request`, ...), sorted.
    pub fingerprints: BTreeMap<String, String>,
}

impl<T> OperationEnvelope<T> {
    /// An envelope; `ok` is derived from the diagnostics (a `Vec` or
    /// [`Diagnostics`](crate::Diagnostics)).
    pub fn new(
        operation: Operation,
        result: Option<T>,
        diagnostics: impl Into<Vec<Diagnostic>>,
    ) -> Self {
        let diagnostics = diagnostics.into();
        let ok = !diagnostics.iter().any(Diagnostic::is_error);
        OperationEnvelope {
            api_version: API_VERSION.to_owned(),
            operation,
            ok,
            result,
            diagnostics,
            fingerprints: BTreeMap::new(),
        }
    }

    /// Adds a named fingerprint.
    pub fn with_fingerprint(mut self, name: &str, value: impl Into<String>) -> Self {
        self.fingerprints.insert(name.to_owned(), value.into());
        self
    }

    /// Maps the result.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> OperationEnvelope<U> {
        OperationEnvelope {
            api_version: self.api_version,
            operation: self.operation,
            ok: self.ok,
            result: self.result.map(f),
            diagnostics: self.diagnostics,
            fingerprints: self.fingerprints,
        }
    }
}
