//! `templiqx-http-conformance`: run an inventory's scenarios against a
//! conformance HTTP gateway. See the library docs and `docs/gateway.md`.
//!
//! Exit status: 0 when every selected scenario passed, 1 when any failed
//! (an unknown id, an unreachable gateway, a differing field), 2 for usage
//! errors and an inventory that does not load (drift included).

use clap::Parser;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;
use templiqx_http_conformance::{Options, SCENARIO_ROOT_ENV, Selection, load_inventory, run};

/// Run templiqx.mock/v1alpha1 scenarios over HTTP against
/// templiqx-mock-gateway and compare every declared expectation.
///
/// Loads `<scenario-root>/inventory.json` (failing closed on drift between
/// the inventory and its manifests), executes each selected scenario with
/// `POST {base-url}/v1/scenarios/{id}/execute`, and compares HTTP status,
/// logical status, diagnostic code, schema validity (a schema-invalid
/// success is normalised to TQX_OUTPUT_SCHEMA first), output fingerprint
/// and receipt fingerprint. Prints one JSON line per scenario, then
/// `N passed, M failed`; exits 0 only when all passed.
///
/// Conformance tooling only: not a production client, not an MCP client.
#[derive(Debug, Parser)]
#[command(name = "templiqx-http-conformance", version)]
struct Cli {
    /// The gateway's base URL, e.g. http://127.0.0.1:8787.
    #[arg(long, value_name = "URL")]
    base_url: String,

    /// Run this scenario (repeatable).
    #[arg(
        long = "scenario",
        value_name = "ID",
        required_unless_present = "all",
        conflicts_with = "all"
    )]
    scenarios: Vec<String>,

    /// Run every scenario of the inventory, in inventory order.
    #[arg(long)]
    all: bool,

    /// The directory holding the scenario `inventory.json`.
    #[arg(long, value_name = "DIR", env = SCENARIO_ROOT_ENV)]
    scenario_root: Option<PathBuf>,

    /// The time one request may take, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 30_000, value_parser = clap::value_parser!(u64).range(1..))]
    timeout_ms: u64,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let Some(root) = cli.scenario_root else {
        eprintln!(
            "error: no scenario root: pass --scenario-root DIR or set {SCENARIO_ROOT_ENV} \
             (the directory holding inventory.json)"
        );
        return ExitCode::from(2);
    };
    if !(cli.base_url.starts_with("http://") || cli.base_url.starts_with("https://")) {
        eprintln!(
            "error: --base-url must be an http:// URL, got {:?}",
            cli.base_url
        );
        return ExitCode::from(2);
    }
    let inventory = match load_inventory(&root) {
        Ok(inventory) => inventory,
        Err(e) => {
            eprintln!(
                "error: the scenario inventory under {} does not load; nothing was run\n{e}",
                root.display()
            );
            return ExitCode::from(2);
        }
    };
    let options = Options {
        base_url: cli.base_url,
        selection: if cli.all {
            Selection::All
        } else {
            Selection::Ids(cli.scenarios)
        },
        timeout: Duration::from_millis(cli.timeout_ms),
    };
    let mut stdout = std::io::stdout().lock();
    let summary = run(&inventory, &options, &mut stdout).and_then(|s| {
        stdout.flush()?;
        Ok(s)
    });
    match summary {
        Ok(summary) if summary.all_passed() => ExitCode::SUCCESS,
        Ok(_) => ExitCode::from(1),
        Err(e) => {
            eprintln!("error: cannot write the report: {e}");
            ExitCode::from(1)
        }
    }
}
