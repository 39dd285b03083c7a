//! `templiqx check PATH… --target CAP,… [--lint LINT]…`

use crate::args::Lint;
use crate::compile::{Compiled, compile_inputs};
use crate::ui::{Status, Ui};
use serde::Serialize;
use std::collections::BTreeMap;
use std::io;
use std::path::PathBuf;
use templiqx_adapter_http::strict::{self, Lowering};
use templiqx_build::CompiledContract;
use templiqx_contracts::{
    CapabilityProfile, Code, Diagnostic, Operation, OperationEnvelope, Severity,
};

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

/// Runs `check`, with the opt-in `lints` (warnings only).
pub fn run(
    ui: &mut Ui,
    paths: &[PathBuf],
    target: &CapabilityProfile,
    lints: &[Lint],
) -> io::Result<Status> {
    let mut inputs = compile_inputs(ui, paths, target, "Checking");
    if lints.contains(&Lint::OpenaiStrict) {
        inputs.iter_mut().for_each(lint_openai_strict);
    }
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

/// `--lint openai-strict`: a `TQX_LINT_OPENAI_NOT_STRICT` warning for each
/// compiled contract whose output schema OpenAI's `json_schema` mode would
/// receive with `strict: false` — the schema as the adapter sends it
/// (`templiqx_adapter_http::output_schema`), lowered by
/// `templiqx_adapter_http::strict::lower` (`docs/adapters.md`, "Schema
/// mapping"). The warning sits at the first node that keeps the schema out
/// of strict mode, under `/output_schema`.
fn lint_openai_strict(input: &mut Compiled) {
    for c in &mut input.contracts {
        let Some(interaction) = &c.interaction else {
            continue;
        };
        let (pointer, message, help) = match templiqx_adapter_http::output_schema("openai", interaction) {
            // The adapter refuses the request before sending it.
            Err(_) => (
                String::new(),
                "the OpenAI adapter cannot send this output schema: its root is not `type: object`".to_owned(),
                "give the output schema `type: object` at its root; provider structured output requires an object".to_owned(),
            ),
            Ok(schema) => match strict::lower(&schema) {
                Lowering::Strict { .. } => continue,
                Lowering::NotStrict { pointer, reason, fix } => (
                    pointer,
                    format!("OpenAI strict mode cannot take this output schema: {reason}"),
                    format!(
                        "OpenAI will receive this schema with strict: false; the answer is still validated against the whole schema. To make it strict: {fix}"
                    ),
                ),
            },
        };
        let pointer = format!("/output_schema{pointer}");
        let span = input
            .loader
            .sources
            .by_name(&c.file)
            .and_then(|f| f.root.as_ref())
            .and_then(|root| root.span_of(&pointer));
        let mut warning = Diagnostic::error(Code::LintOpenAiNotStrict, message)
            .at(pointer)
            .in_file(c.file.clone())
            .help(help);
        warning.severity = Severity::Warning;
        warning.span = span;
        c.diagnostics.push(warning);
    }
}
