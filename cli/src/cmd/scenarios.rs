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
use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use templiqx_build::text::{self, ReadError, Syntax};
use templiqx_build::{Compiler, Target};
use templiqx_contracts::{
    CapabilityProfile, Code, Diagnostic, Operation, OperationEnvelope, Receipt,
};
use templiqx_mock::{
    CheckField, CheckOutcome, ConformanceReport, HarnessOptions, Inventory, ReceiptMode,
    ScenarioReport, ScenarioStatus, check_diagnostics, contract_missing,
    run_conformance_with_progress,
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
        Ok(()) => Inventory::load(inventory).map_err(|e| e.diagnostics.into_vec()),
    };
    let inventory = match loaded {
        Ok(inventory) => inventory,
        Err(diagnostics) => {
            let empty = summary(None, 0, 0, Vec::new());
            return load_failure(ui, inventory, &name, diagnostics, empty);
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
    let located: Vec<Vec<Diagnostic>> = check_diagnostics(&inventory, &report)
        .into_iter()
        .map(|ds| ds.into_iter().map(|d| files.locate(d)).collect())
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

/// Reports an inventory that did not load: its diagnostics, with files
/// relative to the corpus root, as text or as one `conformance` envelope
/// holding the empty `summary`.
fn load_failure(
    ui: &mut Ui,
    inventory: &Path,
    name: &str,
    diagnostics: Vec<Diagnostic>,
    summary: Summary<'_>,
) -> io::Result<Status> {
    let mut files = Files::new(templiqx_mock::inventory::corpus_root_of(inventory));
    let diagnostics: Vec<Diagnostic> = diagnostics.into_iter().map(|d| files.locate(d)).collect();
    if ui.json() {
        let env = OperationEnvelope::new(Operation::Conformance, Some(summary), diagnostics);
        ui.json_line(&env)?;
    } else {
        ui.diagnostics(&diagnostics, &files.texts)?;
        let n = diagnostics.iter().filter(|d| d.is_error()).count();
        let plural = if n == 1 { "" } else { "s" };
        ui.error_line(&format!(
            "could not load the scenario inventory `{name}` due to {n} previous error{plural}"
        ))?;
    }
    Ok(Status::Error)
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

/// The diagnostics of the package's contracts, compiled as `check` does
/// (paths relative to the current directory), with their sources.
fn contract_diagnostics(
    inventory: &Inventory,
    target: &CapabilityProfile,
    texts: &mut SourceTexts,
) -> Vec<Diagnostic> {
    let input = Compiler::new(current_dir(), Target::Profile(target.clone()))
        .check_codegen(false)
        .compile(&inventory.package_dir);
    texts.extend_from(&input.loader.sources);
    input.diagnostics().cloned().collect()
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

/// The files diagnostics name: the mock names them relative to the corpus
/// root; the CLI shows them relative to the current directory, with their
/// text for snippets.
struct Files {
    root: Option<PathBuf>,
    base: PathBuf,
    texts: SourceTexts,
}

impl Files {
    fn new(root: Option<PathBuf>) -> Files {
        Files {
            root,
            base: current_dir(),
            texts: SourceTexts::default(),
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

    /// Renames the diagnostic's file and reads the file for snippets (the
    /// mock located it: file, pointer and span).
    fn locate(&mut self, d: Diagnostic) -> Diagnostic {
        let d = self.relocate(d);
        if let Some(file) = d.file.clone()
            && self.texts.get(&file).is_none()
        {
            let path = absolute(Path::new(&file), &self.base);
            // As the mock read it; a file that is not UTF-8 shows its valid
            // beginning, where the diagnostic points.
            let text = match text::read_file(&path, syntax_of(&path)) {
                Ok(text) => Some(text),
                Err(ReadError::NotUtf8(e)) => Some(e.valid),
                Err(ReadError::Io(_)) => None,
            };
            if let Some(text) = text {
                self.texts.insert(file, text);
            }
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
