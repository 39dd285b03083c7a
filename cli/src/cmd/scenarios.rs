//! `templiqx scenarios run INVENTORY.json --target CAP,… [--receipts MODE]`:
//! the conformance harness of `templiqx-mock` over a scenario inventory.
//!
//! Loading fails closed: any problem with the inventory or a manifest is
//! reported (exit 2) and nothing runs. Otherwise every scenario runs, and
//! each check that differs becomes a `TQX_SCENARIO` diagnostic located at
//! the manifest (or inventory) field it compares, with the expected and
//! actual values; a scenario passes when none differs (exit 1 otherwise).

use crate::input::{current_dir, display};
use crate::ui::{SourceTexts, Status, Ui};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use templiqx_build::package::{Loader, MANIFEST};
use templiqx_build::text::{self, ReadError, Syntax};
use templiqx_contracts::diagnostic::pointer_push;
use templiqx_contracts::words;
use templiqx_contracts::{
    CapabilityProfile, Code, Diagnostic, Operation, OperationEnvelope, Receipt,
};
use templiqx_mock::{
    Check, CheckField, CheckOutcome, ConformanceReport, HarnessOptions, Inventory,
    InventoryScenario, ReceiptMode, ScenarioReport, ScenarioStatus, run_conformance_with_progress,
};

use crate::args::Receipts;

/// The `result` of the closing `conformance` envelope.
#[derive(Debug, Serialize)]
struct Summary<'a> {
    /// The inventory, as displayed.
    inventory: &'a str,
    /// The package the inventory sits in (absent when it did not load).
    #[serde(skip_serializing_if = "Option::is_none")]
    package: Option<&'a str>,
    /// `in_process` or `transport`.
    receipt_mode: ReceiptMode,
    /// The target capability profile.
    target: Vec<&'a str>,
    /// Scenarios that passed.
    passed: usize,
    /// Scenarios that failed.
    failed: usize,
    /// The ids of the failed scenarios, in inventory order.
    failed_scenarios: Vec<&'a str>,
}

/// Runs `scenarios run`.
pub fn run(
    ui: &mut Ui,
    inventory: &Path,
    target: &CapabilityProfile,
    receipts: Receipts,
) -> io::Result<Status> {
    let name = display(inventory);
    let mode = match receipts {
        Receipts::InProcess => ReceiptMode::InProcess,
        Receipts::Transport => ReceiptMode::Transport,
    };
    let summary = |package, passed, failed, failed_scenarios| Summary {
        inventory: &name,
        package,
        receipt_mode: mode,
        target: target.iter().collect(),
        passed,
        failed,
        failed_scenarios,
    };
    let loaded = match open(inventory, &name) {
        Err(d) => Err(vec![d]),
        Ok(()) => Inventory::load(inventory).map_err(|e| e.diagnostics),
    };
    let inventory = match loaded {
        Ok(inventory) => inventory,
        Err(diagnostics) => {
            let mut files = Files::new(corpus_root_of(inventory));
            let diagnostics: Vec<Diagnostic> =
                diagnostics.into_iter().map(|d| files.locate(d)).collect();
            if ui.json() {
                let env = OperationEnvelope::new(
                    Operation::Conformance,
                    Some(summary(None, 0, 0, Vec::new())),
                    diagnostics,
                );
                ui.json_line(&env)?;
            } else {
                ui.diagnostics(&diagnostics, &files.texts)?;
                let n = diagnostics.iter().filter(|d| d.is_error()).count();
                let plural = if n == 1 { "" } else { "s" };
                ui.error_line(&format!(
                    "could not load the scenario inventory `{name}` due to {n} previous error{plural}"
                ))?;
            }
            return Ok(Status::Error);
        }
    };

    let options = HarnessOptions::new(target.clone(), mode);
    ui.start_progress(inventory.scenarios.len(), "Running");
    let report = run_conformance_with_progress(&inventory, &options, |i, id| {
        if i > 0 {
            ui.progress_inc();
        }
        ui.progress_message(id);
    });
    ui.finish_progress();

    let mut files = Files::new(Some(inventory.corpus_root.clone()));
    let located: Vec<Vec<Diagnostic>> = inventory
        .scenarios
        .iter()
        .zip(&report.scenarios)
        .enumerate()
        .map(|(i, (is, s))| {
            s.differing()
                .map(|c| files.locate(problem(is, i, &inventory, s, c)))
                .collect()
        })
        .collect();
    let execution: Vec<Vec<Diagnostic>> = report
        .scenarios
        .iter()
        .map(|s| {
            s.diagnostics
                .iter()
                .cloned()
                .map(|d| files.relocate(d))
                .collect()
        })
        .collect();

    let uncompiled = report.scenarios.iter().any(|s| {
        s.check(CheckField::Contract)
            .is_some_and(|c| c.outcome == CheckOutcome::Differs && !c.actual.is_null())
    });
    let compiled = if uncompiled {
        contract_diagnostics(&inventory, target, &mut files.texts)
    } else {
        Vec::new()
    };

    let failed_ids: Vec<&str> = report.failed().map(|s| s.id.as_str()).collect();
    let failed = failed_ids.len();
    let passed = report.scenarios.len() - failed;
    if ui.json() {
        for ((s, diagnostics), execution) in report.scenarios.iter().zip(located).zip(execution) {
            let mut result = serde_json::to_value(s).map_err(io::Error::other)?;
            // Execution diagnostics, with file names as the CLI shows them.
            result["diagnostics"] = serde_json::to_value(execution).map_err(io::Error::other)?;
            let mut env = OperationEnvelope::new(Operation::Scenario, Some(result), diagnostics)
                .with_fingerprint("scenario", &s.scenario_fingerprint);
            if let Some(fp) = &s.receipt_fingerprint {
                env = env.with_fingerprint("receipt", fp);
            }
            ui.json_line(&env)?;
        }
        let mut env = OperationEnvelope::new(
            Operation::Conformance,
            Some(summary(
                Some(&inventory.package),
                passed,
                failed,
                failed_ids,
            )),
            compiled,
        );
        env.ok = failed == 0;
        ui.json_line(&env)?;
    } else {
        human(ui, &name, &report, &compiled, &located, &files.texts)?;
    }
    Ok(if failed == 0 {
        Status::Success
    } else {
        Status::Failure
    })
}

/// The human report: a header, one line per scenario, the failures with
/// their diagnostics, what was not checked, and `N passed, M failed`.
fn human(
    ui: &mut Ui,
    name: &str,
    report: &ConformanceReport,
    compiled: &[Diagnostic],
    located: &[Vec<Diagnostic>],
    texts: &SourceTexts,
) -> io::Result<()> {
    let n = report.scenarios.len();
    let target = if report.target.is_empty() {
        "empty".to_owned()
    } else {
        report.target.join(",")
    };
    let mode = match report.receipt_mode {
        ReceiptMode::InProcess => "in-process",
        ReceiptMode::Transport => "transport",
    };
    ui.status(
        "Running",
        &format!(
            "{n} scenario{} of package `{}` from {name} (receipts: {mode}, target: {target})",
            if n == 1 { "" } else { "s" },
            report.package
        ),
    )?;
    ui.diagnostics(compiled, texts)?;
    for s in &report.scenarios {
        let verdict = ui.verdict(s.passed());
        let line = if s.passed() {
            format!("scenario {} ... {verdict} ({})", s.id, outcome(s))
        } else {
            let fields: Vec<&str> = s.differing().map(|c| c.field.as_str()).collect();
            let what = match fields.as_slice() {
                ["contract"] if contract_missing(s) => "the contract is not in the package".into(),
                ["contract"] => "the contract does not compile".into(),
                [one] => format!("{one} differs"),
                more => format!("{} differ", more.join(", ")),
            };
            format!("scenario {} ... {verdict}: {what}", s.id)
        };
        ui.line(&line)?;
    }
    let failures: Vec<(&ScenarioReport, &Vec<Diagnostic>)> = report
        .scenarios
        .iter()
        .zip(located)
        .filter(|(s, _)| !s.passed())
        .collect();
    // Diagnostics end with a blank line; a section after them needs none.
    let mut blank = false;
    if !failures.is_empty() {
        ui.line("")?;
        ui.line("failures:")?;
        ui.line("")?;
        for (s, diagnostics) in &failures {
            ui.line(&format!("---- {} ({}) ----", s.id, outcome(s)))?;
            ui.diagnostics(diagnostics, texts)?;
            blank = !diagnostics.is_empty();
            if !blank {
                ui.line("")?;
                blank = true;
            }
        }
    }
    let skipped = not_checked(report);
    if !skipped.is_empty() {
        if !blank {
            ui.line("")?;
        }
        ui.line("not checked:")?;
        for ((field, note), ids) in &skipped {
            let which = if ids.len() == n {
                format!("all {n} scenarios")
            } else {
                ids.join(", ")
            };
            ui.line(&format!("  {field} ({which}): {note}"))?;
        }
        blank = false;
    }
    let failed = failures.len();
    if !blank {
        ui.line("")?;
    }
    ui.line(&format!("{} passed, {failed} failed", n - failed))
}

/// What a scenario did: `success` or `failure CODE`, a `retry_after_ms`,
/// the virtual time and the attempts.
fn outcome(s: &ScenarioReport) -> String {
    let what = match (&s.status, &s.receipt) {
        (
            _,
            Some(Receipt::Failure {
                code,
                retry_after_ms: Some(ms),
                ..
            }),
        ) => {
            format!("failure {code}, retry after {ms} ms")
        }
        (_, Some(Receipt::Failure { code, .. })) => format!("failure {code}"),
        (_, Some(Receipt::Success { .. })) => "success".to_owned(),
        (Some(ScenarioStatus::Failure), None) => match s.diagnostics.first() {
            Some(d) => format!("not executed: {}", d.code),
            None => "not executed".to_owned(),
        },
        _ => "not run".to_owned(),
    };
    if s.receipt.is_none() {
        return what;
    }
    let attempts = if s.attempts == 1 { "" } else { "s" };
    format!(
        "{what}, {} ms virtual, {} attempt{attempts}",
        s.elapsed_ms, s.attempts
    )
}

/// The checks not made, grouped by field and note, with the scenarios
/// they concern.
fn not_checked(report: &ConformanceReport) -> BTreeMap<(CheckField, &str), Vec<&str>> {
    let mut groups: BTreeMap<(CheckField, &str), Vec<&str>> = BTreeMap::new();
    for s in &report.scenarios {
        for c in s
            .checks
            .iter()
            .filter(|c| c.outcome == CheckOutcome::NotChecked)
        {
            groups
                .entry((c.field, c.note.as_deref().unwrap_or("not compared")))
                .or_default()
                .push(&s.id);
        }
    }
    groups
}

/// The `TQX_SCENARIO` diagnostic of a check that differs: located at the
/// field it compares, naming the expected and the actual value.
fn problem(
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
        return d
            .in_file(rel(&inventory.path, &inventory.corpus_root))
            .at(format!(
                "/scenarios/{index}/expectation/receipt_fingerprint"
            ));
    }
    let Some(path) = &is.scenario.path else {
        return d;
    };
    let d = d.in_file(rel(path, &inventory.corpus_root));
    match manifest_pointer(path, c.field) {
        Some(pointer) => d.at(pointer),
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
fn contract_missing(s: &ScenarioReport) -> bool {
    s.check(CheckField::Contract)
        .is_some_and(|c| c.actual.is_null())
}

/// The diagnostics of the package's contracts, compiled as `check` does
/// (paths relative to the current directory), with their sources.
fn contract_diagnostics(
    inventory: &Inventory,
    target: &CapabilityProfile,
    texts: &mut SourceTexts,
) -> Vec<Diagnostic> {
    let mut loader = Loader::new(current_dir());
    let diagnostics = match loader.compile_package(&inventory.package_dir, target) {
        Ok(contracts) => contracts.into_iter().flat_map(|c| c.diagnostics).collect(),
        Err(diagnostics) => diagnostics,
    };
    texts.extend_from(&loader.sources);
    diagnostics
}

/// The JSON Pointer, in the manifest at `path`, of the field a check
/// compares (when the manifest has it).
fn manifest_pointer(path: &Path, field: CheckField) -> Option<String> {
    let text = text::read_file(path, syntax_of(path)).ok()?;
    let value = templiqx_build::yaml::parse(&text).ok()?.to_json();
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
            let items = value.get(*list)?.as_array()?;
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

/// `path` relative to `root`, `/`-separated (as the mock names files).
fn rel(path: &Path, root: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

/// A `TQX_IO` diagnostic when `path` is not a readable file.
fn open(path: &Path, name: &str) -> Result<(), Diagnostic> {
    let help =
        "pass the scenario inventory, a JSON file inside a package (`scenarios/inventory.json`)";
    match std::fs::metadata(path) {
        Err(e) => Err(Diagnostic::error(
            Code::Io,
            format!("cannot open `{name}`: {}", crate::compile::io_reason(&e)),
        )
        .in_file(name)
        .help(help)),
        Ok(meta) if meta.is_dir() => {
            let inside = path.join("inventory.json");
            let help = if inside.is_file() {
                format!("pass the inventory file: `{}`", display(&inside))
            } else {
                help.to_owned()
            };
            Err(
                Diagnostic::error(Code::Io, format!("`{name}` is a directory"))
                    .in_file(name)
                    .help(help),
            )
        }
        Ok(_) => Ok(()),
    }
}

/// The corpus root of the inventory at `path`: the directory holding the
/// nearest ancestor directory with a `templiqx.yaml` (as the mock finds it).
fn corpus_root_of(path: &Path) -> Option<PathBuf> {
    let real = std::fs::canonicalize(path).ok()?;
    let package = real
        .parent()?
        .ancestors()
        .find(|a| a.join(MANIFEST).is_file())?;
    Some(package.parent().unwrap_or(package).to_path_buf())
}

/// The files diagnostics name: the mock names them relative to the corpus
/// root; the CLI shows them relative to the current directory, with their
/// text for snippets.
struct Files {
    root: Option<PathBuf>,
    base: PathBuf,
    texts: SourceTexts,
    /// Parsed trees by display name, for spans (`None`: unreadable).
    trees: BTreeMap<String, Option<templiqx_build::yaml::Node>>,
}

impl Files {
    fn new(root: Option<PathBuf>) -> Files {
        Files {
            root,
            base: current_dir(),
            texts: SourceTexts::default(),
            trees: BTreeMap::new(),
        }
    }

    /// Renames the diagnostic's file as the CLI shows it.
    fn relocate(&self, mut d: Diagnostic) -> Diagnostic {
        if let (Some(root), Some(file)) = (&self.root, &d.file) {
            let path = root.join(file);
            if path.exists() {
                let shown = display(&absolute(&path, &self.base));
                d.file = Some(shown);
            }
        }
        d
    }

    /// Renames the diagnostic's file, reads the file for snippets, and adds
    /// the span of its JSON Pointer when the mock gave none (JSON
    /// documents).
    fn locate(&mut self, d: Diagnostic) -> Diagnostic {
        let mut d = self.relocate(d);
        let Some(file) = d.file.clone() else {
            return d;
        };
        let tree = self.trees.entry(file.clone()).or_insert_with(|| {
            let path = absolute(Path::new(&file), &self.base);
            // As the mock read it; a file that is not UTF-8 shows its valid
            // beginning, where the diagnostic points.
            let text = match text::read_file(&path, syntax_of(&path)) {
                Ok(text) => text,
                Err(ReadError::NotUtf8(e)) => e.valid,
                Err(ReadError::Io(_)) => return None,
            };
            let tree = templiqx_build::yaml::parse(&text).ok();
            self.texts.insert(file.clone(), text);
            tree
        });
        if d.span.is_none()
            && let (Some(tree), Some(pointer)) = (tree.as_ref(), d.json_pointer.as_deref())
        {
            d.span = tree.span_of(pointer);
        }
        d
    }
}

/// The syntax the mock reads `path` as.
fn syntax_of(path: &Path) -> Syntax {
    if templiqx_mock::document::is_yaml(path) {
        Syntax::Yaml
    } else {
        Syntax::Json
    }
}

fn absolute(path: &Path, base: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    }
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
