//! `templiqx`: the command-line front end of Templiqx.
//!
//! It checks contract packages, renders an interaction from a request file,
//! fingerprints JSON, runs eval fixtures, runs mock scenarios through the
//! conformance harness and prints the JSON Schema of the contract format.
//! Every rule lives in `templiqx-build` (the compiler), `templiqx` (the
//! runtime) and `templiqx-mock` (the scenarios); this binary only reads
//! files, calls them, and reports: human diagnostics in rustc's layout, or
//! one `OperationEnvelope` JSON object per line and input (`--format json`).
//!
//! Exit status: 0 when no error was found, 1 when any diagnostic is an
//! error, 2 for usage errors and unreadable files. `docs/cli.md` has the
//! reference.

mod args;
mod cmd;
mod compile;
mod input;
mod provider;
mod ui;

use args::{Cli, Command, EvalAction, ScenariosCommand};
use clap::Parser;
use std::io::{self, Write};
use std::process::ExitCode;
use ui::{Status, Ui};

/// The exit status when standard output is closed early (128 + SIGPIPE).
const BROKEN_PIPE: u8 = 141;

fn main() -> ExitCode {
    let cli = Cli::parse();
    // The server writes standard output from its own thread: it runs
    // before the Ui takes the lock.
    if let Command::Lsp { target } = &cli.command {
        return ExitCode::from(lsp(target.as_deref()).code());
    }
    if let Command::Mcp {
        paths,
        target,
        providers,
    } = &cli.command
    {
        return ExitCode::from(cmd::mcp::run(paths, target.as_deref(), providers).code());
    }
    let mut ui = Ui::new(cli.output.format, cli.output.color);
    let result = run(&mut ui, &cli.command).and_then(|status| {
        ui.flush()?;
        Ok(status)
    });
    match result {
        Ok(status) => ExitCode::from(status.code()),
        // The reader went away (`templiqx check … | head`): stop quietly, but
        // not with success — the run did not finish, so its status is
        // unknown. 141 is what a shell reports for a process killed by
        // SIGPIPE, so `set -o pipefail` scripts fail safe.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::from(BROKEN_PIPE),
        Err(e) => {
            let _ = writeln!(io::stderr(), "error: cannot write the output: {e}");
            ExitCode::from(Status::Error.code())
        }
    }
}

fn run(ui: &mut Ui, command: &Command) -> io::Result<Status> {
    match command {
        Command::Check {
            paths,
            target,
            lints,
        } => cmd::check::run(ui, paths, &target.profile(), lints),
        Command::Render {
            contract,
            request,
            target,
        } => cmd::render::run(ui, contract, request, &target.profile()),
        Command::Run {
            contract,
            request,
            target,
            provider,
            stream,
        } => cmd::run::run(ui, contract, request, &target.profile(), provider, *stream),
        Command::Fingerprint { file, canonical } => cmd::fingerprint::run(ui, file, *canonical),
        Command::Test { paths, target } => cmd::test::run(ui, paths, &target.profile()),
        Command::Eval {
            action: Some(action),
            ..
        } => {
            let EvalAction::Show {
                run,
                db,
                fixtures,
                report,
                show_failures,
            } = &**action;
            cmd::eval_show::run(
                ui,
                &cmd::eval_show::Options {
                    run,
                    db,
                    fixtures,
                    report: report.as_deref(),
                    show_failures: *show_failures,
                },
            )
        }
        Command::Eval {
            action: None,
            paths,
            target,
            provider,
            filters,
            repeat,
            concurrency,
            db,
            cache,
            baseline,
            min_pass_rate,
            gate_scope,
            fail_on_regression,
            report,
            junit,
            show_failures,
            variants,
            prices,
            max_cost,
        } => cmd::eval::run(
            ui,
            &cmd::eval::Options {
                paths,
                target: target.profile(),
                provider,
                filters,
                repeat: *repeat,
                concurrency: usize::from(*concurrency),
                db,
                cache: *cache,
                baseline: baseline.as_deref(),
                min_pass_rate: *min_pass_rate,
                gate_scope: *gate_scope,
                fail_on_regression: *fail_on_regression,
                report: report.as_deref(),
                junit: junit.as_deref(),
                show_failures: *show_failures,
                variants,
                prices: prices.as_deref(),
                max_cost: *max_cost,
            },
        ),
        Command::Diff {
            old,
            new,
            base,
            target,
        } => cmd::diff::run(ui, old, new.as_deref(), base.as_deref(), target.as_deref()),
        Command::Schema => cmd::schema::run(ui),
        Command::Lsp { .. } => unreachable!("`main` serves `lsp` before the Ui exists"),
        Command::Mcp { .. } => unreachable!("`main` serves `mcp` before the Ui exists"),
        Command::Scenarios(ScenariosCommand::Run {
            inventory,
            target,
            receipts,
        }) => cmd::scenarios::run(ui, inventory, &target.profile(), *receipts),
    }
}

/// `templiqx lsp`: serves one client on standard input and output; exit 1
/// when the session does not end with `shutdown` and `exit`.
fn lsp(target: Option<&[String]>) -> Status {
    let options = templiqx_lsp::Options {
        target: target
            .map(|t| templiqx_contracts::CapabilityProfile::new(t.iter().map(|c| c.trim()))),
    };
    match templiqx_lsp::run_stdio(options) {
        Ok(()) => Status::Success,
        Err(e) => {
            let _ = writeln!(io::stderr(), "templiqx lsp: {e}");
            Status::Failure
        }
    }
}
