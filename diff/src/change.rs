//! What a diff reports: [`Change`]s, per-contract and package
//! [`Verdict`]s with their version [`Gate`]s, and the diagnostics of what
//! could not be compared.

use crate::rules::{Class, Rule};
use crate::version::Gate;
use serde::Serialize;
use serde_json::Value;
use templiqx_contracts::{Diagnostic, Span};

/// Where a change is on one side: a file, the JSON pointer of the node in
/// it, and the node's line/column span (1-based, columns in characters).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Location {
    /// The file, as diagnostics name it.
    pub file: String,
    /// RFC 6901 pointer of the node in `file` (`/inputs/name/schema/maxLength`).
    pub json_pointer: String,
    /// The node's span (of its nearest existing ancestor when the node is
    /// not written on this side).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub span: Option<Span>,
}

impl Location {
    /// `file:line:column`, or the file alone without a span.
    pub fn position(&self) -> String {
        match self.span {
            Some(s) => format!("{}:{}:{}", self.file, s.start.line, s.start.column),
            None => self.file.clone(),
        }
    }
}

/// One change between the two sides.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Change {
    /// The rule that found it (serialised as its id).
    pub rule: Rule,
    /// The rule's class.
    pub class: Class,
    /// The contract it is about; `None` for a package-level change.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contract: Option<String>,
    /// One sentence: where, what before, what after.
    pub message: String,
    /// Where it is on the old side; `None` for something that is new.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old: Option<Location>,
    /// Where it is on the new side; `None` for something removed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new: Option<Location>,
    /// Further places the change is about, each on one side: for
    /// `PARTIAL_CHANGED`, the first node of the partial file that differs.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub related: Vec<Related>,
    /// What to do about it (the rule's help).
    pub help: String,
    /// A value one side accepts and the other refuses, checked with the
    /// validator, for a change of a schema.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub example: Option<Value>,
}

impl Change {
    /// A change of `rule` with its class and help.
    pub(crate) fn new(rule: Rule, contract: Option<&str>, message: String) -> Change {
        Change {
            rule,
            class: rule.class(),
            contract: contract.map(str::to_owned),
            message,
            old: None,
            new: None,
            related: Vec::new(),
            help: rule.help().to_owned(),
            example: None,
        }
    }
}

/// A further place of a [`Change`], on one side.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Related {
    /// The side (`old` or `new`).
    pub side: Which,
    /// What is there, for the label under the snippet (`partial`).
    pub what: String,
    /// The place.
    #[serde(flatten)]
    pub location: Location,
}

/// How a contract, or the package, fared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// On both sides, compared, nothing found.
    Unchanged,
    /// On both sides, compared, changes found.
    Changed,
    /// Only on the new side.
    Added,
    /// Only on the old side.
    Removed,
    /// Not compared, so no verdict: a side does not load (its manifest
    /// has errors, or a contract file does not parse), or the contract does
    /// not compile in one of the versions it is in (see the diagnostics and
    /// [`Verdict::reason`]). A package is not compared when one of its
    /// contracts is not. [`Report::sufficient`] is then false.
    NotCompared,
}

/// The verdict on one contract, or on the package.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Verdict {
    /// The contract id, or the package name.
    pub name: String,
    /// What happened to it.
    pub status: Status,
    /// How many changes were found (0 for an added or removed contract,
    /// whose one change is counted at the package; for the package, every
    /// change, those of its contracts included).
    pub changes: usize,
    /// The version gate, when it was compared and both sides have a
    /// version.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gate: Option<Gate>,
    /// Why it was not compared ([`Status::NotCompared`]): `the new
    /// version does not compile`, `the old version does not load`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// The outcome of [`diff`](crate::diff).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Report {
    /// Every change, package-level ones first, then contract by contract.
    pub changes: Vec<Change>,
    /// One verdict per contract, old order first, then new contracts.
    pub contracts: Vec<Verdict>,
    /// The package's verdict, when a side is a package.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub package: Option<Verdict>,
    /// Whether everything was compared and every gate passed: false when a
    /// verdict is [`Status::NotCompared`] or a gate fails.
    pub sufficient: bool,
    /// Problems: what did not load or compile (with a note naming the old
    /// side when it is the old one's), and `TQX_VERSION_BUMP` for each gate
    /// that failed.
    #[serde(skip)]
    pub diagnostics: Vec<Sided>,
}

/// Which side a diagnostic or a place is from (serialised `old`, `new`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Which {
    /// The old side.
    Old,
    /// The new side.
    New,
}

/// A diagnostic and the side whose files it names.
#[derive(Clone, Debug, PartialEq)]
pub struct Sided {
    /// The side.
    pub side: Which,
    /// The diagnostic.
    pub diagnostic: Diagnostic,
}

impl Report {
    /// The diagnostics, for an `OperationEnvelope`.
    pub fn plain_diagnostics(&self) -> Vec<Diagnostic> {
        self.diagnostics
            .iter()
            .map(|d| d.diagnostic.clone())
            .collect()
    }

    /// The most severe class among the changes about `contract` (`None`:
    /// package-level changes).
    pub fn highest(&self, contract: Option<&str>) -> Option<Class> {
        self.changes
            .iter()
            .filter(|c| c.contract.as_deref() == contract)
            .map(|c| c.class)
            .max()
    }
}
