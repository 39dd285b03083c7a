//! `templiqx test PACKAGE… --target CAP,…`: every eval fixture of every
//! contract, rendered and its `fake_output` validated.
//!
//! The compiler already checks fixtures against their schemas
//! (`TQX_EVAL_INVALID`, located in the contract). A contract whose only
//! errors are about fixtures still compiles without them, so every fixture
//! gets its own verdict: its compile-time problems, or else the problems of
//! rendering it and of validating its `fake_output`, located in the fixture.

use crate::compile::compile_inputs;
use crate::ui::{SourceTexts, Status, Ui};
use serde::Serialize;
use std::io;
use std::path::PathBuf;
use templiqx_build::CompiledContract;
use templiqx_build::Sources;
use templiqx_build::compile_contract;
use templiqx_contracts::{AsValue, CapabilityProfile, Diagnostic, Operation, OperationEnvelope};

/// One line of the report: a fixture, or a contract that does not compile.
#[derive(Debug, Serialize)]
struct Case {
    /// The contract id.
    contract: String,
    /// The fixture id; absent for a contract that does not compile.
    #[serde(skip_serializing_if = "Option::is_none")]
    fixture: Option<String>,
    /// Whether it passed.
    ok: bool,
    /// Its problems.
    #[serde(skip)]
    diagnostics: Vec<Diagnostic>,
}

impl Case {
    /// `contract::fixture`, written as a terminal shows it (an unprintable
    /// character as `\u{…}`: a fixture id of a contract that failed to
    /// compile may hold one).
    fn name(&self) -> String {
        let name = match &self.fixture {
            Some(f) => format!("{}::{f}", self.contract),
            None => self.contract.clone(),
        };
        templiqx_contracts::words::printable(&name).into_owned()
    }
}

/// The `result` of a `test` envelope.
#[derive(Debug, Serialize)]
struct TestResult<'a> {
    path: &'a str,
    passed: usize,
    failed: usize,
    cases: &'a [Case],
}

/// Runs `test`.
pub fn run(ui: &mut Ui, paths: &[PathBuf], target: &CapabilityProfile) -> io::Result<Status> {
    let inputs = compile_inputs(ui, paths, target, "Testing");
    let mut status = Status::Success;
    let mut all = Vec::new();
    for input in &inputs {
        let mut cases = Vec::new();
        for c in &input.contracts {
            cases.extend(run_contract(c, &input.loader.sources, target));
        }
        let mut diagnostics = input.diagnostics.clone();
        diagnostics.extend(cases.iter().flat_map(|c| c.diagnostics.iter().cloned()));
        status = status.max(Status::of(&diagnostics));
        if cases.iter().any(|c| !c.ok) {
            status = status.max(Status::Failure);
        }
        if ui.json() {
            let passed = cases.iter().filter(|c| c.ok).count();
            let result = TestResult {
                path: &input.name,
                passed,
                failed: cases.len() - passed,
                cases: &cases,
            };
            let mut env = OperationEnvelope::new(Operation::Test, Some(result), diagnostics);
            if input.package.is_some() && input.diagnostics.is_empty() {
                env = env.with_fingerprint("package", input.loader.fingerprint());
            }
            ui.json_line(&env)?;
        } else {
            let sources = input.sources();
            ui.diagnostics(&input.diagnostics, &sources)?;
            for case in &cases {
                let verdict = ui.verdict(case.ok);
                ui.line(&format!("test {} ... {verdict}", case.name()))?;
            }
            all.push((cases, sources));
        }
    }
    if !ui.json() {
        summary(ui, &all)?;
    }
    Ok(status)
}

/// The failures section and the closing `N passed, M failed` line.
fn summary(ui: &mut Ui, all: &[(Vec<Case>, SourceTexts)]) -> io::Result<()> {
    let failures: Vec<_> = all
        .iter()
        .flat_map(|(cases, sources)| cases.iter().filter(|c| !c.ok).map(move |c| (c, sources)))
        .collect();
    if !failures.is_empty() {
        ui.line("")?;
        ui.line("failures:")?;
        for (case, sources) in &failures {
            ui.line("")?;
            ui.line(&format!("---- {} ----", case.name()))?;
            ui.diagnostics(&case.diagnostics, sources)?;
        }
    }
    let total: usize = all.iter().map(|(cases, _)| cases.len()).sum();
    let failed = failures.len();
    if failures.is_empty() {
        ui.line("")?;
    }
    ui.line(&format!("{} passed, {failed} failed", total - failed))
}

/// The cases of one contract: one per fixture, or one for the contract
/// when it does not compile for reasons other than its fixtures.
fn run_contract(c: &CompiledContract, sources: &Sources, target: &CapabilityProfile) -> Vec<Case> {
    let broken = |diagnostics: Vec<Diagnostic>| {
        let id = if c.id.is_empty() {
            c.file.clone()
        } else {
            c.id.clone()
        };
        vec![Case {
            contract: id,
            fixture: None,
            ok: false,
            diagnostics,
        }]
    };
    let Some(contract) = &c.contract else {
        return broken(c.diagnostics.clone());
    };
    let file = contract.loc.file;
    let in_fixture = |d: &Diagnostic, i: usize| {
        let prefix = format!("/evals/{i}");
        // A dataset row's diagnostic is in the data file
        // (`docs/format.md`, "Datasets").
        let in_rows = contract.evals[i]
            .dataset
            .as_ref()
            .is_some_and(|ds| !ds.display.is_empty() && d.file.as_deref() == Some(&ds.display));
        in_rows
            || d.file.as_deref() == Some(c.file.as_str())
                && d.json_pointer.as_deref().is_some_and(|p| {
                    p.strip_prefix(&prefix)
                        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
                })
    };
    let outside_fixtures = c
        .diagnostics
        .iter()
        .any(|d| d.is_error() && !(0..contract.evals.len()).any(|i| in_fixture(d, i)));
    if outside_fixtures {
        return broken(c.diagnostics.clone());
    }
    let stripped;
    let interaction = match &c.interaction {
        Some(i) => i,
        None => {
            let mut without = contract.clone();
            without.evals.clear();
            match compile_contract(&without, sources, target) {
                Ok(i) => {
                    stripped = i;
                    &stripped
                }
                Err(d) => return broken(d),
            }
        }
    };
    contract
        .evals
        .iter()
        .enumerate()
        .flat_map(|(i, eval)| {
            let mut diagnostics: Vec<Diagnostic> = c
                .diagnostics
                .iter()
                .filter(|d| in_fixture(d, i))
                .cloned()
                .collect();
            if diagnostics.is_empty() && eval.dataset.is_some() {
                return dataset_cases(&contract.id, interaction, eval);
            }
            if diagnostics.is_empty() {
                let at = format!("/evals/{i}");
                let relocate = |mut d: Diagnostic, under: &str| {
                    d.json_pointer = Some(match d.json_pointer.take() {
                        Some(p) => format!("{at}{under}{p}"),
                        None => at.clone(),
                    });
                    d.span = None;
                    sources.locate(d, file)
                };
                match templiqx::render(interaction, &eval.inputs, &eval.context) {
                    // A render-time failure already points at the contract
                    // node that failed; say which fixture's request it was.
                    // Request validation failures point into the fixture.
                    Err(e) => diagnostics.extend(e.diagnostics.into_iter().map(|d| {
                        if d.file.is_some() {
                            d.note(format!("rendering eval fixture `{}` ({at})", eval.id))
                        } else {
                            relocate(d, "")
                        }
                    })),
                    Ok(_) => {
                        if let Some(out) = &eval.fake_output
                            && let Err(ds) = templiqx::validate_output(interaction, out.as_value())
                        {
                            diagnostics.extend(ds.into_iter().map(|d| relocate(d, "/fake_output")));
                        }
                    }
                }
            }
            vec![Case {
                contract: contract.id.clone(),
                fixture: Some(eval.id.clone()),
                ok: !diagnostics.iter().any(Diagnostic::is_error),
                diagnostics,
            }]
        })
        .collect()
}

/// The cases of a dataset entry that compiled: one per row
/// (`entry#ID`, `docs/format.md`, "Datasets"), each rendered and its
/// `fake_output` validated; the file read again, one row at a time. A
/// file that cannot be read again is one failing case for the entry.
fn dataset_cases(
    contract: &str,
    interaction: &templiqx_contracts::Interaction,
    eval: &templiqx_build::dto::EvalDecl,
) -> Vec<Case> {
    let case = |fixture: String, diagnostics: Vec<Diagnostic>| Case {
        contract: contract.to_owned(),
        fixture: Some(fixture),
        ok: !diagnostics.iter().any(Diagnostic::is_error),
        diagnostics,
    };
    let rows = match templiqx_build::dataset::EntryRows::open(interaction, eval) {
        Ok(rows) => rows,
        Err(d) => return vec![case(eval.id.clone(), vec![d])],
    };
    rows.map(|row| {
        let row = match row {
            Ok(row) => row,
            Err(ds) => return case(eval.id.clone(), ds),
        };
        let mut diagnostics = Vec::new();
        match templiqx::render(interaction, &row.inputs, &row.context) {
            Err(e) => diagnostics.extend(e.diagnostics),
            Ok(_) => {
                if let Some(out) = &row.fake_output
                    && let Err(ds) = templiqx::validate_output(interaction, out.as_value())
                {
                    diagnostics.extend(ds);
                }
            }
        }
        case(format!("{}#{}", eval.id, row.id), diagnostics)
    })
    .collect()
}
