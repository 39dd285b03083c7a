//! `templiqx render CONTRACT --request REQUEST.json --target CAP,…`

use crate::input::{JsonFile, current_dir, read_json};
use crate::ui::{SourceTexts, Status, Ui};
use anstyle::Style;
use std::io;
use std::path::Path;
use templiqx_build::{CompiledContract, Compiler, Target};
use templiqx_contracts::diagnostic::pointer_push;
use templiqx_contracts::{
    CapabilityProfile, Code, Diagnostic, Interaction, Json, Operation, OperationEnvelope,
    RenderedInteraction,
};

type Object = templiqx_contracts::JsonMap;

/// Compiles the contract file `contract` for `target` (paths relative to
/// the working directory), as `render` and `run` do: the compiled contract,
/// its diagnostics (taken out of it, for the caller to add to), and the
/// texts of every file read, for snippets.
pub(crate) fn compile(
    contract: &Path,
    target: &CapabilityProfile,
) -> (CompiledContract, Vec<Diagnostic>, SourceTexts) {
    // Rendering generates no code: code generation is not checked.
    let input = Compiler::new(current_dir(), Target::Profile(target.clone()))
        .check_codegen(false)
        .compile_file(contract);
    let mut sources = SourceTexts::default();
    sources.extend_from(&input.loader.sources);
    match input.contracts.into_iter().next() {
        Some(mut compiled) => {
            let diagnostics = std::mem::take(&mut compiled.diagnostics);
            (compiled, diagnostics, sources)
        }
        // Nothing that can be read is there (no file, a pipe, a device).
        None => {
            let compiled = CompiledContract {
                id: String::new(),
                file: input.name,
                contract: None,
                interaction: None,
                diagnostics: Vec::new(),
            };
            (compiled, input.unusable.into_iter().collect(), sources)
        }
    }
}

/// Reads the request file at `request` (its text joins `sources`) and, when
/// the contract compiled, renders it with `interaction`, as `render` and
/// `run` do. Every problem is pushed onto `diagnostics`: the request's
/// reading and shape, and request validation failures located in the
/// request file (failures while rendering already name the contract node's
/// file, which `locate` keeps), both when the request's shape is wrong too.
/// `None` when anything failed.
pub(crate) fn read_and_render<'i>(
    interaction: Option<&'i Interaction>,
    request: &Path,
    sources: &mut SourceTexts,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<RenderedInteraction<'i>> {
    let file = match read_json(request, sources) {
        Ok(file) => file,
        Err(d) => {
            diagnostics.push(d);
            return None;
        }
    };
    let scopes = match scopes(&file) {
        Ok(scopes) => scopes,
        Err(d) => {
            diagnostics.push(d);
            return None;
        }
    };
    // The values are checked even when the request's shape is wrong, so
    // one run reports both; what a scope of the wrong type (read as empty)
    // would add is left out.
    let shape_ok = scopes.problems.is_empty();
    diagnostics.extend(scopes.problems);
    let broken = |d: &Diagnostic| {
        d.json_pointer.as_deref().is_some_and(|p| {
            scopes.broken.iter().any(|scope| {
                p.strip_prefix('/')
                    .and_then(|p| p.strip_prefix(scope))
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
            })
        })
    };
    match templiqx::render(interaction?, &scopes.inputs, &scopes.context) {
        Ok(r) => shape_ok.then_some(r),
        Err(e) => {
            diagnostics.extend(e.diagnostics.into_iter().filter(|d| !broken(d)).map(|d| {
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

/// `env` with the fingerprints of what compiled (`contract`, `interaction`)
/// and what rendered (`request`), as `render` and `run` report them.
pub(crate) fn with_fingerprints<T>(
    mut env: OperationEnvelope<T>,
    interaction: Option<&Interaction>,
    rendered: Option<&RenderedInteraction<'_>>,
) -> OperationEnvelope<T> {
    if let Some(i) = interaction {
        env = env
            .with_fingerprint("contract", &*i.contract_fingerprint)
            .with_fingerprint("interaction", &*i.interaction_fingerprint);
    }
    if let Some(r) = rendered {
        env = env.with_fingerprint("request", r.request_fingerprint());
    }
    env
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
        let env = with_fingerprints(
            OperationEnvelope::new(Operation::Render, result, diagnostics),
            compiled.interaction.as_ref(),
            rendered.as_ref(),
        );
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

/// A request's `inputs` and `context` (absent means empty), and what is
/// wrong with its shape: unknown top-level members, and a scope that is
/// not an object (read as empty, and named in `broken`).
struct Scopes {
    inputs: Object,
    context: Object,
    problems: Vec<Diagnostic>,
    broken: Vec<&'static str>,
}

/// The request's scopes ([`Scopes`]).
///
/// # Errors
/// `TQX_INVALID_TYPE` when the request is not a JSON object at all.
fn scopes(file: &JsonFile) -> Result<Scopes, Diagnostic> {
    let Json::Object(top) = &file.value else {
        return Err(file.locate(
            Diagnostic::error(
                Code::InvalidType,
                format!(
                    "a request must be a JSON object, found {}",
                    describe(&file.value)
                ),
            )
            .at("")
            .help(r#"write {"inputs": {...}, "context": {...}}"#),
        ));
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
    let mut broken = Vec::new();
    let mut scope = |key: &'static str| match top.get(key) {
        None => Object::new(),
        Some(Json::Object(m)) => m.clone(),
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
            broken.push(key);
            Object::new()
        }
    };
    let inputs = scope("inputs");
    let context = scope("context");
    Ok(Scopes {
        inputs,
        context,
        problems,
        broken,
    })
}

fn describe(v: &Json) -> &'static str {
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
