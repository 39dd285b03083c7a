//! `templiqx render CONTRACT --request REQUEST.json --target CAP,…`

use crate::input::{JsonFile, current_dir, read_json};
use crate::ui::{SourceTexts, Status, Ui};
use anstyle::Style;
use std::io;
use std::path::Path;
use templiqx_build::{CompiledContract, Loader};
use templiqx_contracts::diagnostic::pointer_push;
use templiqx_contracts::{
    CapabilityProfile, Code, Diagnostic, Interaction, Operation, OperationEnvelope,
    RenderedInteraction,
};

type Object = serde_json::Map<String, serde_json::Value>;

/// Compiles the contract file `contract` for `target` (paths relative to
/// the working directory), as `render` and `run` do: the compiled contract,
/// its diagnostics (taken out of it, for the caller to add to), and the
/// texts of every file read, for snippets.
pub(crate) fn compile(
    contract: &Path,
    target: &CapabilityProfile,
) -> (CompiledContract, Vec<Diagnostic>, SourceTexts) {
    let mut loader = Loader::new(current_dir());
    let mut compiled = loader.compile_file(contract, target);
    let diagnostics = std::mem::take(&mut compiled.diagnostics);
    let mut sources = SourceTexts::default();
    sources.extend_from(&loader.sources);
    (compiled, diagnostics, sources)
}

/// Reads the request file at `request` (its text joins `sources`) and, when
/// the contract compiled, renders it with `interaction`, as `render` and
/// `run` do. Every problem is pushed onto `diagnostics`: the request's
/// reading and shape, and request validation failures located in the
/// request file (failures while rendering already name the contract node's
/// file, which `locate` keeps). `None` when anything failed.
pub(crate) fn read_and_render<'i>(
    interaction: Option<&'i Interaction>,
    request: &Path,
    sources: &mut SourceTexts,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<RenderedInteraction<'i>> {
    let (file, (inputs, context)) = match read_json(request, sources) {
        Ok(file) => match scopes(&file) {
            Ok(scopes) => (file, scopes),
            Err(d) => {
                diagnostics.extend(d);
                return None;
            }
        },
        Err(d) => {
            diagnostics.push(d);
            return None;
        }
    };
    match templiqx::render(interaction?, &inputs, &context) {
        Ok(r) => Some(r),
        Err(e) => {
            diagnostics.extend(e.diagnostics.into_iter().map(|d| {
                if d.json_pointer.is_some() {
                    file.locate(d)
                } else {
                    d
                }
            }));
            None
        }
    }
}

/// Runs `render`.
pub fn run(
    ui: &mut Ui,
    contract: &Path,
    request: &Path,
    target: &CapabilityProfile,
) -> io::Result<Status> {
    let (compiled, mut diagnostics, mut sources) = compile(contract, target);
    let rendered = read_and_render(
        compiled.interaction.as_ref(),
        request,
        &mut sources,
        &mut diagnostics,
    );

    let status = Status::of(&diagnostics);
    if ui.json() {
        let result = rendered.as_ref().and_then(|r| serde_json::to_value(r).ok());
        let mut env = OperationEnvelope::new(Operation::Render, result, diagnostics);
        if let Some(i) = &compiled.interaction {
            env = env
                .with_fingerprint("contract", &*i.contract_fingerprint)
                .with_fingerprint("interaction", &*i.interaction_fingerprint);
        }
        if let Some(r) = &rendered {
            env = env.with_fingerprint("request", r.request_fingerprint());
        }
        ui.json_line(&env)?;
    } else {
        ui.diagnostics(&diagnostics, &sources)?;
        match &rendered {
            Some(r) => human(ui, r)?,
            None => {
                let n = diagnostics.iter().filter(|d| d.is_error()).count();
                let plural = if n == 1 { "" } else { "s" };
                ui.error_line(&format!(
                    "could not render `{}` due to {n} previous error{plural}",
                    compiled.file
                ))?;
            }
        }
    }
    Ok(status)
}

/// The request's `inputs` and `context` objects (absent means empty).
fn scopes(file: &JsonFile) -> Result<(Object, Object), Vec<Diagnostic>> {
    let serde_json::Value::Object(top) = &file.value else {
        return Err(vec![
            file.locate(
                Diagnostic::error(
                    Code::InvalidType,
                    format!(
                        "a request must be a JSON object, found {}",
                        describe(&file.value)
                    ),
                )
                .at("")
                .help(r#"write {"inputs": {...}, "context": {...}}"#),
            ),
        ]);
    };
    let mut problems = Vec::new();
    for key in top.keys() {
        if key != "inputs" && key != "context" {
            problems.push(
                file.locate(
                    Diagnostic::error(
                        Code::UnknownField,
                        format!("unknown field `{key}` in the request"),
                    )
                    .at(pointer_push("", key))
                    .help("a request holds `inputs` and `context` only"),
                ),
            );
        }
    }
    let mut scope = |key: &str| match top.get(key) {
        None => Object::new(),
        Some(serde_json::Value::Object(m)) => m.clone(),
        Some(other) => {
            problems.push(
                file.locate(
                    Diagnostic::error(
                        Code::InvalidType,
                        format!("`{key}` must be a JSON object, found {}", describe(other)),
                    )
                    .at(pointer_push("", key))
                    .help(format!(
                        "write `\"{key}\": {{...}}` with one member per declared field"
                    )),
                ),
            );
            Object::new()
        }
    };
    let inputs = scope("inputs");
    let context = scope("context");
    if problems.is_empty() {
        Ok((inputs, context))
    } else {
        Err(problems)
    }
}

fn describe(v: &serde_json::Value) -> &'static str {
    templiqx_contracts::words::kind_of(v)
}

/// The messages, each under a `[N] role` header, then the fingerprints.
pub fn human(ui: &mut Ui, r: &RenderedInteraction<'_>) -> io::Result<()> {
    let header = Style::new().bold();
    for (i, m) in r.messages.iter().enumerate() {
        if i > 0 {
            ui.line("")?;
        }
        let title = ui.paint(header, &format!("[{i}] {}", m.role.as_str()));
        ui.line(&title)?;
        ui.line(&m.content)?;
    }
    ui.line("")?;
    let i = r.interaction;
    for (name, value) in [
        ("contract", i.contract_fingerprint.to_string()),
        ("interaction", i.interaction_fingerprint.to_string()),
        ("request", r.request_fingerprint()),
    ] {
        ui.field(name, &value)?;
    }
    Ok(())
}
