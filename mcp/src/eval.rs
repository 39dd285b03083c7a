//! The `eval` tool: the eval fixtures of served contracts run through the
//! `templiqx-eval` runner (`docs/eval.md`), each answered with its own
//! `fake_output` (`docs/mcp.md`, "Tools").

use crate::Server;
use crate::arguments::{EvalArgs, Provider};
use serde_json::{Map, Value, json};
use std::path::PathBuf;
use templiqx_build::{CompiledInput, Compiler, Target, required_capabilities};
use templiqx_contracts::{Code, Diagnostic};
use templiqx_eval::{Eval, EvalError, FakeAdapter, FixtureFilter};

/// The most repeats one call may ask for.
pub(crate) const MAX_REPEAT: u32 = 100;

/// What the eval run produced: the diagnostics, whether it could not run,
/// and the outcome's members.
pub(crate) struct Ran {
    pub failed: bool,
    pub diagnostics: Vec<Diagnostic>,
    pub fields: Map<String, Value>,
}

impl Ran {
    fn failed(diagnostics: Vec<Diagnostic>) -> Ran {
        Ran {
            failed: true,
            diagnostics,
            fields: Map::new(),
        }
    }
}

/// Runs `eval` on a thread of its own (the runner's futures are driven by
/// a single-threaded runtime there), so a long run does not hold the
/// session's.
pub(crate) async fn run(server: &Server, args: EvalArgs) -> Ran {
    let paths = match &args.path {
        Some(p) => match server.roots().confine(p) {
            Ok(abs) => vec![abs],
            Err(d) => return Ran::failed(vec![d]),
        },
        None => server.roots().served().to_vec(),
    };
    let base = server.roots().base().to_path_buf();
    let target = server.target(args.target.as_deref());
    match tokio::task::spawn_blocking(move || run_blocking(&base, &paths, target, &args)).await {
        Ok(ran) => ran,
        Err(e) => Ran::failed(vec![Diagnostic::error(
            Code::Io,
            format!("the eval run stopped: {e}"),
        )]),
    }
}

fn run_blocking(base: &std::path::Path, paths: &[PathBuf], target: Target, args: &EvalArgs) -> Ran {
    // The only provider: real ones are not served (`docs/mcp.md`, "Safety").
    let Provider::Fake = args.provider.unwrap_or(Provider::Fake);
    let repeat = args.repeat.unwrap_or(1);
    if repeat == 0 || repeat > MAX_REPEAT {
        return Ran::failed(vec![
            Diagnostic::error(
                Code::InvalidValue,
                format!("`repeat` is {repeat}: it must be from 1 to {MAX_REPEAT}"),
            )
            .help("run more repeats with `templiqx eval --repeat N`"),
        ]);
    }
    let filter = match FixtureFilter::new(args.filter.iter().flatten().cloned()) {
        Ok(f) => f,
        Err(d) => return Ran::failed(d.into_vec()),
    };
    // Compiled as `templiqx eval` compiles them: code generation checked.
    let compiler = Compiler::new(base, target.clone());
    let inputs: Vec<CompiledInput> = paths.iter().map(|p| compiler.compile(p)).collect();
    let mut diagnostics: Vec<Diagnostic> = inputs
        .iter()
        .flat_map(CompiledInput::diagnostics)
        .cloned()
        .collect();
    if diagnostics.iter().any(Diagnostic::is_error) {
        return Ran::failed(diagnostics);
    }
    let contracts = || inputs.iter().flat_map(|i| &i.contracts);
    // The fake provider offers the profile the contracts compiled for.
    let capabilities: Vec<String> = match &target {
        Target::Profile(p) => p.iter().map(str::to_owned).collect(),
        Target::Required => contracts()
            .filter_map(|c| c.contract.as_ref())
            .flat_map(|c| {
                required_capabilities(c)
                    .iter()
                    .map(str::to_owned)
                    .collect::<Vec<_>>()
            })
            .collect(),
    };
    let adapter = FakeAdapter::new(contracts(), capabilities);
    let eval = Eval::new(contracts())
        .filter(filter)
        .fake_outputs_only(true)
        .repeat(repeat);
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            return Ran::failed(vec![Diagnostic::error(
                Code::Io,
                format!("cannot start the eval run: {e}"),
            )]);
        }
    };
    match runtime.block_on(eval.run(&adapter)) {
        Ok(outcome) => {
            diagnostics.extend(outcome.diagnostics.iter().cloned());
            let mut fields = match serde_json::to_value(&outcome) {
                Ok(Value::Object(map)) => map,
                _ => Map::new(),
            };
            fields.insert("provider".to_owned(), json!("fake"));
            Ran {
                failed: false,
                diagnostics,
                fields,
            }
        }
        Err(e) => {
            let found = match e {
                EvalError::Refused(d) => d.into_vec(),
                EvalError::NoFixture(d) | EvalError::History(d) => vec![d],
                EvalError::Stopped { diagnostic, .. } => vec![diagnostic],
                other => vec![Diagnostic::error(Code::Io, other.to_string())],
            };
            diagnostics.extend(found);
            Ran::failed(diagnostics)
        }
    }
}
