//! The diagnostics of a conformance run, located where a reader fixes
//! them: each check that differs becomes a `TQX_SCENARIO` diagnostic with
//! the file, JSON Pointer and source span of the manifest (or inventory)
//! field it compares, so front ends (the CLI, the gateway's clients) only
//! present them (`docs/mock.md`, "Harness report").

use crate::document::Document;
use crate::harness::{Check, CheckField, ConformanceReport, ScenarioReport};
use crate::inventory::{Inventory, InventoryScenario};
use crate::load::display_rel as rel;
use serde_json::Value;
use templiqx_contracts::Json;
use templiqx_contracts::diagnostic::pointer_push;
use templiqx_contracts::words;
use templiqx_contracts::{Code, Diagnostic};

/// For each scenario of `report` (in inventory order), the located
/// diagnostics of its checks that differ ([`check_diagnostic`]).
pub fn check_diagnostics(
    inventory: &Inventory,
    report: &ConformanceReport,
) -> Vec<Vec<Diagnostic>> {
    inventory
        .scenarios
        .iter()
        .zip(&report.scenarios)
        .enumerate()
        .map(|(i, (is, s))| {
            s.differing()
                .map(|c| check_diagnostic(is, i, inventory, s, c))
                .collect()
        })
        .collect()
}

/// The `TQX_SCENARIO` diagnostic of a check `c` that differs, for the
/// scenario `is` (entry `index` of `inventory`) whose report is `s`:
/// located at the manifest field it compares (the inventory's
/// `receipt_fingerprint` for a transport receipt), with file (relative to
/// the corpus root, `/`-separated), JSON Pointer and source span, naming
/// the expected and the actual value, with a help for the field.
pub fn check_diagnostic(
    is: &InventoryScenario,
    index: usize,
    inventory: &Inventory,
    s: &ScenarioReport,
    c: &Check,
) -> Diagnostic {
    let message = match c.field {
        CheckField::Contract if c.actual.is_null() => format!(
            "scenario `{}`: the package lists no contract `{}`",
            s.id, s.contract
        ),
        CheckField::Contract => format!(
            "scenario `{}`: contract `{}` does not compile for the target profile",
            s.id, s.contract
        ),
        field => format!(
            "scenario `{}`: `{field}` differs: expected {}, actual {}",
            s.id,
            short(&c.expected),
            short(&c.actual)
        ),
    };
    let mut d = Diagnostic::error(Code::Scenario, message).help(help(c.field, s));
    // A contract's own diagnostics are reported once, not per scenario.
    if let Some(note) = c.note.as_ref().filter(|_| c.field != CheckField::Contract) {
        d = d.note(note.clone());
    }
    if c.field == CheckField::ReceiptFingerprint {
        let name = rel(&inventory.path, &inventory.corpus_root);
        let d = d.in_file(name.clone()).at(format!(
            "/scenarios/{index}/expectation/receipt_fingerprint"
        ));
        return match Document::read(&inventory.path, &name) {
            Ok(document) => document.locate(d),
            Err(_) => d,
        };
    }
    let Some(path) = &is.scenario.path else {
        return d;
    };
    let name = rel(path, &inventory.corpus_root);
    let d = d.in_file(name.clone());
    // The manifest loaded when the inventory did; read again for its
    // spans (a file changed since is located as it is now).
    let Ok(document) = Document::read(path, &name) else {
        return d;
    };
    match manifest_pointer(&document.value, c.field) {
        Some(pointer) => document.locate(d.at(pointer)),
        None => d,
    }
}

/// What to do about a differing field.
fn help(field: CheckField, s: &ScenarioReport) -> String {
    match field {
        CheckField::Contract if s.status.is_none() && contract_missing(s) => {
            "name a contract that the package's `templiqx.yaml` lists".into()
        }
        CheckField::Contract => {
            "fix the contract (its diagnostics are reported first), or run with the target it was written for".into()
        }
        CheckField::ExpectedStatus => {
            "the terminal step decides the status: make `expected_status` agree with the steps".into()
        }
        CheckField::ExpectedFailure => {
            "make `expected_failure` the code the execution fails with (the terminal step's, or the port's)".into()
        }
        CheckField::ExpectedDiagnostics => {
            "list exactly the codes the execution reports (`--format json` shows its diagnostics)".into()
        }
        CheckField::OutputSchemaValid => {
            "declare `output_schema_valid` as the contract's output schema judges the output".into()
        }
        CheckField::ExpectedOutputFingerprint => {
            "the accepted output is not the expected one: compare it with `expected_output` (`templiqx fingerprint`)".into()
        }
        CheckField::Evidence => {
            "each evidence item must match an entry of the request or the output, and each quote hash its source bytes".into()
        }
        CheckField::ReceiptPayloadPolicy => {
            "a receipt carries fingerprints and the outcome only; `no_successful_receipt` also forbids a success".into()
        }
        CheckField::GoldenReceiptFingerprint => {
            "compare the receipt (`--format json`) with the golden; update the golden only once the difference is understood".into()
        }
        CheckField::ReceiptFingerprint => {
            "the transport receipt differs from the inventory's: compare the receipt (`--format json`) with the expectation".into()
        }
        CheckField::Stream => {
            "streaming must replay the same output and end with the receipt or failure of a plain execution".into()
        }
        CheckField::DocumentExpectation => "document expectations are not checked".into(),
    }
}

/// Whether the scenario's contract is not in the package at all.
pub fn contract_missing(s: &ScenarioReport) -> bool {
    s.check(CheckField::Contract)
        .is_some_and(|c| c.actual.is_null())
}

/// The JSON Pointer, in the manifest whose value is `value`, of the field a check
/// compares (when the manifest has it).
fn manifest_pointer(value: &Json, field: CheckField) -> Option<String> {
    let direct = |key: &str| value.get(key).map(|_| pointer_push("", key));
    match field {
        CheckField::Contract => direct("contract"),
        CheckField::ExpectedStatus => {
            direct("expected_status").or_else(|| direct("expected_failure"))
        }
        CheckField::ExpectedFailure => {
            direct("expected_failure").or_else(|| direct("expected_status"))
        }
        CheckField::ExpectedDiagnostics => direct("expected_diagnostics"),
        CheckField::ExpectedOutputFingerprint => direct("expected_output_fingerprint"),
        CheckField::Evidence => direct("evidence"),
        CheckField::ReceiptPayloadPolicy => direct("receipt_payload_policy"),
        CheckField::GoldenReceiptFingerprint => direct("golden_receipt_fingerprint"),
        CheckField::DocumentExpectation => direct("document_expectation"),
        CheckField::Stream => direct("events").or_else(|| direct("steps")),
        CheckField::OutputSchemaValid => ["steps", "events"].iter().find_map(|list| {
            let items = value.get(list)?.as_array()?;
            let i = items
                .iter()
                .rposition(|item| item.get("output_schema_valid").is_some())?;
            Some(format!("/{list}/{i}/output_schema_valid"))
        }),
        CheckField::ReceiptFingerprint => None,
    }
}

/// A value for a one-sentence message: compact JSON, cut as
/// [`words::truncate`] says (`--format json` has every value in full).
fn short(value: &Value) -> String {
    words::truncate(&value.to_string()).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_values_are_cut() {
        assert_eq!(short(&serde_json::json!("ab")), "\"ab\"");
        let long = short(&serde_json::json!("é".repeat(500)));
        assert_eq!(long.chars().count(), words::PREVIEW_CHARS + 1);
        assert!(long.ends_with('…'));
    }
}
