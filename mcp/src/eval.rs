//! The `eval` tool: the eval fixtures of served contracts run through the
//! `templiqx-eval` runner (`docs/eval.md`), each answered with its own
//! `fake_output`, or by the real provider the server allows
//! (`docs/mcp.md`, "Tools", "Real providers").

use crate::arguments::{EvalArgs, Provider};
use crate::{EvalProvider, Server};
use serde_json::{Map, Value, json};
use std::path::PathBuf;
use std::sync::Arc;
use templiqx_build::{CompiledContract, CompiledInput, Compiler, Target, required_capabilities};
use templiqx_contracts::{Code, Diagnostic};
use templiqx_eval::{Eval, EvalError, FakeAdapter, FixtureFilter, Outcome};

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
    let provider = match chosen(server, args.provider.unwrap_or(Provider::Fake)) {
        Ok(p) => p,
        Err(d) => return Ran::failed(vec![d]),
    };
    let base = server.roots().base().to_path_buf();
    let target = server.target(args.target.as_deref());
    match tokio::task::spawn_blocking(move || {
        run_blocking(&base, &paths, target, &args, provider.as_deref())
    })
    .await
    {
        Ok(ran) => ran,
        Err(e) => Ran::failed(vec![Diagnostic::error(
            Code::Io,
            format!("the eval run stopped: {e}"),
        )]),
    }
}

/// The real provider a call asked for (`None`: the fake one), or why it
/// cannot have it: the server allows none (it was started without
/// `--allow-providers`), or another one.
fn chosen(server: &Server, asked: Provider) -> Result<Option<Arc<dyn EvalProvider>>, Diagnostic> {
    let name = asked.name();
    if let Provider::Fake = asked {
        return Ok(None);
    }
    match server.provider() {
        Some(p) if p.name() == name => Ok(Some(Arc::clone(p))),
        Some(p) => Err(Diagnostic::error(
            Code::InvalidValue,
            format!(
                "`provider` is `{name}`, but the server runs eval on `{}` only (its --provider)",
                p.name()
            ),
        )
        .at("/provider")
        .help(format!(
            "ask for `provider: {}`, or `fake` (each fixture answered with its own fake_output)",
            p.name()
        ))),
        None => Err(Diagnostic::error(
            Code::InvalidValue,
            format!(
                "`provider` is `{name}`: this server runs eval on the fake provider only, since \
                 it was not started with --allow-providers (a real provider calls the model, \
                 which may cost money)"
            ),
        )
        .at("/provider")
        .help(format!(
            "ask for `provider: fake` (each fixture answered with its own fake_output), or have \
             the server started with `templiqx mcp --allow-providers --provider {name} \
             --base-url URL --model MODEL [PATH…]` (docs/mcp.md, \"Real providers\")"
        ))),
    }
}

fn run_blocking(
    base: &std::path::Path,
    paths: &[PathBuf],
    target: Target,
    args: &EvalArgs,
    provider: Option<&dyn EvalProvider>,
) -> Ran {
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
    let eval = Eval::new(contracts()).filter(filter).repeat(repeat);
    let (ran, name) = match provider {
        Some(p) => (
            runtime.block_on(p.run(eval.endpoint(p.endpoint()))),
            p.name().to_owned(),
        ),
        None => (
            runtime.block_on(run_fake(eval, &target, contracts())),
            "fake".to_owned(),
        ),
    };
    match ran {
        Ok(outcome) => {
            diagnostics.extend(outcome.diagnostics.iter().cloned());
            let mut fields = match serde_json::to_value(&outcome) {
                Ok(Value::Object(map)) => map,
                _ => Map::new(),
            };
            fields.insert("provider".to_owned(), json!(name));
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

/// Runs `eval` on the fake provider: each fixture of `contracts` answered
/// with its own `fake_output`, the others left out.
async fn run_fake<'a>(
    eval: Eval<'a>,
    target: &Target,
    contracts: impl Iterator<Item = &'a CompiledContract> + Clone,
) -> Result<Outcome, EvalError> {
    // The fake provider offers the profile the contracts compiled for.
    let capabilities: Vec<String> = match target {
        Target::Profile(p) => p.iter().map(str::to_owned).collect(),
        Target::Required => contracts
            .clone()
            .filter_map(|c| c.contract.as_ref())
            .flat_map(|c| {
                required_capabilities(c)
                    .iter()
                    .map(str::to_owned)
                    .collect::<Vec<_>>()
            })
            .collect(),
    };
    let adapter = FakeAdapter::new(contracts, capabilities);
    eval.fake_outputs_only(true).run(&adapter).await
}
