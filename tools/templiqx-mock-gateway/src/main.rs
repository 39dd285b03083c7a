//! `templiqx-mock-gateway`: serve an inventory's scenarios over HTTP for
//! conformance runs. Conformance-only: not a production API, not an MCP
//! transport. See the library docs and `docs/gateway.md`.
//!
//! Exit status: 0 after a graceful shutdown (SIGINT/SIGTERM), 1 when
//! start-up fails (invalid inventory, address in use), 2 for usage errors
//! (including a missing scenario root or `--target`).

use clap::{Parser, ValueEnum};
use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;
use templiqx_contracts::CapabilityProfile;
use templiqx_mock_gateway::{
    Catalog, DEFAULT_LISTEN, RouterOptions, SCENARIO_ROOT_ENV, ServerOptions, router, serve,
    shutdown_signal,
};
use tracing_subscriber::EnvFilter;

/// Conformance-only HTTP gateway for templiqx.mock/v1alpha1 scenarios (not a
/// production API, not an MCP transport).
///
/// Executes the scenarios of one inventory (`<scenario-root>/inventory.json`)
/// on a scripted runtime and returns payload-free fingerprints. It is
/// conformance tooling only: NOT a production Templiqx API and NOT an MCP
/// transport; it has no auth and is meant for loopback use.
///
/// Endpoints: GET /health/live, GET /health/ready, GET /v1/scenarios,
/// POST /v1/scenarios/{id}/execute.
///
/// Once listening, prints `templiqx-mock-gateway listening on http://ADDR`
/// on stdout. Logs go to stderr; set RUST_LOG (e.g. `debug`) for
/// per-request logs. SIGINT/SIGTERM shut down gracefully (exit 0): new
/// connections are refused, in-flight requests finish, and meanwhile
/// GET /health/ready answers 503 {"status":"shutting_down"} (live stays ok).
#[derive(Debug, Parser)]
#[command(name = "templiqx-mock-gateway", version)]
struct Cli {
    /// The address to listen on; port 0 picks a free port.
    #[arg(long, value_name = "ADDR", default_value = DEFAULT_LISTEN)]
    listen: SocketAddr,

    /// The directory holding the scenario `inventory.json` (e.g.
    /// `corpus/crm3/scenarios`).
    #[arg(long, value_name = "DIR", env = SCENARIO_ROOT_ENV)]
    scenario_root: Option<PathBuf>,

    /// The capability profile contracts are compiled for and the scripted
    /// runtime provides (comma-separated, e.g. `structured_output`; `""` is
    /// an explicitly empty profile). Required: the format has no default
    /// profile (docs/format.md, "Capabilities and the target profile").
    #[arg(long, value_name = "LIST")]
    target: Option<String>,

    /// Requests (body included) taking longer are answered with 408.
    #[arg(long, value_name = "MS", default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..))]
    request_timeout_ms: u64,

    /// Clients must send a request head within this time.
    #[arg(long, value_name = "MS", default_value_t = 5_000, value_parser = clap::value_parser!(u64).range(1..))]
    header_timeout_ms: u64,

    /// After SIGINT/SIGTERM, in-flight requests get this long to finish.
    #[arg(long, value_name = "MS", default_value_t = 30_000)]
    shutdown_grace_ms: u64,

    /// The log format on stderr.
    #[arg(long, value_enum, default_value_t = LogFormat::Compact)]
    log_format: LogFormat,
}

/// How logs are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum LogFormat {
    /// One human-readable line per event.
    Compact,
    /// One JSON object per event.
    Json,
}

/// The usage error for a missing `--target` (`docs/gateway.md`, "Gateway
/// flags"): as every command that compiles contracts, the gateway has no
/// default profile (`docs/format.md`, "Capabilities and the target profile").
const NO_TARGET: &str = "no target profile: pass --target LIST, the capabilities the scripted \
     runtime provides (e.g. --target structured_output); there is no default profile";

/// See the `mimalloc` feature in `Cargo.toml`.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging(cli.log_format);
    // Usage errors (exit 2), every one at once.
    if cli.target.is_none() {
        eprintln!("error: {NO_TARGET}");
    }
    if cli.scenario_root.is_none() {
        eprintln!(
            "error: no scenario root: pass --scenario-root DIR or set {SCENARIO_ROOT_ENV} \
             (the directory holding inventory.json)"
        );
    }
    let (Some(root), Some(target)) = (cli.scenario_root.clone(), cli.target.as_deref()) else {
        return ExitCode::from(2);
    };
    let target = CapabilityProfile::parse_list(target);
    let catalog = match Catalog::load(&root, &target) {
        Ok(catalog) => catalog,
        Err(e) => {
            eprintln!(
                "error: the scenario inventory under {} is invalid; not starting\n{e}",
                root.display()
            );
            return ExitCode::from(1);
        }
    };
    tracing::info!(
        inventory = %catalog.inventory_path().display(),
        package = catalog.package(),
        scenarios = catalog.ids().len(),
        "inventory loaded and validated"
    );
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::from(1);
        }
    };
    runtime.block_on(run(cli, catalog))
}

async fn run(cli: Cli, catalog: Catalog) -> ExitCode {
    // Before the address is announced: a signal sent right after it must
    // shut down gracefully, not kill the process.
    let shutdown = match shutdown_signal() {
        Ok(shutdown) => shutdown,
        Err(e) => {
            eprintln!("error: cannot install the signal handlers: {e}");
            return ExitCode::from(1);
        }
    };
    let listener = match tokio::net::TcpListener::bind(cli.listen).await {
        Ok(listener) => listener,
        Err(e) => {
            eprintln!("error: cannot listen on {}: {e}", cli.listen);
            return ExitCode::from(1);
        }
    };
    let addr = match listener.local_addr() {
        Ok(addr) => addr,
        Err(e) => {
            eprintln!("error: cannot read the bound address: {e}");
            return ExitCode::from(1);
        }
    };
    if !addr.ip().is_loopback() {
        tracing::warn!(%addr, "listening beyond loopback: this gateway is conformance tooling with no auth, not a production API");
    }
    let app = router(
        catalog,
        RouterOptions {
            request_timeout: Duration::from_millis(cli.request_timeout_ms),
        },
    );
    // The one line on stdout, for scripts and tests to read the port.
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "templiqx-mock-gateway listening on http://{addr}");
    let _ = stdout.flush();
    drop(stdout);
    tracing::info!(%addr, "listening");
    let options = ServerOptions {
        header_read_timeout: Duration::from_millis(cli.header_timeout_ms),
        shutdown_grace: Duration::from_millis(cli.shutdown_grace_ms),
    };
    match serve(listener, app, shutdown, options).await {
        Ok(()) => {
            tracing::info!("stopped");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: the server failed: {e}");
            ExitCode::from(1)
        }
    }
}

/// Structured logs on stderr; `RUST_LOG` filters them (default `info`).
fn init_logging(format: LogFormat) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false);
    match format {
        LogFormat::Compact => builder.compact().init(),
        LogFormat::Json => builder.json().init(),
    }
}
