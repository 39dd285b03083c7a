//! `templiqx check PATH… --target CAP,…`

use crate::compile::{Compiled, compile_inputs};
use crate::ui::{Status, Ui};
use serde::Serialize;
use std::collections::BTreeMap;
use std::io;
use std::path::PathBuf;
use templiqx_build::CompiledContract;
use templiqx_contracts::{CapabilityProfile, Operation, OperationEnvelope};

/// The `result` of a `check` envelope.
#[derive(Debug, Serialize)]
struct CheckResult<'a> {
    /// The input path, as displayed.
    path: &'a str,
    /// The package, for a package directory.
    #[serde(skip_serializing_if = "Option::is_none")]
    package: Option<PackageInfo<'a>>,
    /// Every contract compiled.
    contracts: Vec<ContractResult<'a>>,
}

#[derive(Debug, Serialize)]
struct PackageInfo<'a> {
    name: &'a str,
    version: &'a str,
}

#[derive(Debug, Serialize)]
struct ContractResult<'a> {
    id: &'a str,
    file: &'a str,
    ok: bool,
    fingerprints: BTreeMap<&'static str, &'a str>,
}

/// Runs `check`.
pub fn run(ui: &mut Ui, paths: &[PathBuf], target: &CapabilityProfile) -> io::Result<Status> {
    let inputs = compile_inputs(ui, paths, target, "Checking");
    let mut status = Status::Success;
    for input in &inputs {
        let diagnostics = input.all_diagnostics();
        status = status.max(Status::of(&diagnostics));
        if ui.json() {
            ui.json_line(&envelope(input, diagnostics))?;
        } else {
            human(ui, input)?;
        }
    }
    Ok(status)
}

fn envelope(
    input: &Compiled,
    diagnostics: Vec<templiqx_contracts::Diagnostic>,
) -> OperationEnvelope<CheckResult<'_>> {
    let result = CheckResult {
        path: &input.name,
        package: input
            .package
            .as_ref()
            .map(|(name, version)| PackageInfo { name, version }),
        contracts: input
            .contracts
            .iter()
            .map(|c| ContractResult {
                id: &c.id,
                file: &c.file,
                ok: c.interaction.is_some(),
                fingerprints: fingerprints(c),
            })
            .collect(),
    };
    let mut env = OperationEnvelope::new(Operation::Check, Some(result), diagnostics);
    if input.package.is_some() && input.diagnostics.is_empty() {
        env = env.with_fingerprint("package", input.loader.fingerprint());
    }
    if let [only] = input.contracts.as_slice()
        && input.package.is_none()
    {
        for (name, value) in fingerprints(only) {
            env = env.with_fingerprint(name, value);
        }
    }
    env
}

fn fingerprints(c: &CompiledContract) -> BTreeMap<&'static str, &str> {
    let mut map = BTreeMap::new();
    if let Some(i) = &c.interaction {
        map.insert("contract", &*i.contract_fingerprint);
        map.insert("interaction", &*i.interaction_fingerprint);
    }
    map
}

fn human(ui: &mut Ui, input: &Compiled) -> io::Result<()> {
    let sources = input.sources();
    ui.diagnostics(&input.diagnostics, &sources)?;
    // A package of partials only (a dependency) is fine, but say so: a
    // check that prints nothing looks like a check that did nothing.
    if let Some((name, version)) = &input.package
        && input.contracts.is_empty()
        && input.diagnostics.is_empty()
    {
        ui.status(
            "Checked",
            &format!("package `{name}` v{version} (no contracts)"),
        )?;
    }
    for c in &input.contracts {
        ui.diagnostics(&c.diagnostics, &sources)?;
        let errors = c.diagnostics.iter().filter(|d| d.is_error()).count();
        let version = c.contract.as_ref().map(|c| c.version.as_str());
        if c.interaction.is_some() {
            let name = match version {
                Some(v) => format!("{} v{v}", c.id),
                None => c.id.clone(),
            };
            ui.status("Checked", &format!("{name} ({})", c.file))?;
        } else {
            let what = if c.id.is_empty() {
                format!("`{}`", c.file)
            } else {
                format!("`{}` ({})", c.id, c.file)
            };
            let plural = if errors == 1 { "" } else { "s" };
            ui.error_line(&format!(
                "could not check {what} due to {errors} previous error{plural}"
            ))?;
        }
    }
    Ok(())
}
