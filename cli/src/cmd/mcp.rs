//! `templiqx mcp [PATH…] [--target CAP,…] [--allow-providers --provider …]`
//! (`docs/mcp.md`).

use crate::args::{McpProviderArgs, ProviderKind};
use crate::input::current_dir;
use crate::provider::Adapter;
use crate::ui::Status;
use std::io::{self, Write};
use std::path::PathBuf;
use templiqx_contracts::CapabilityProfile;
use templiqx_eval::{Endpoint, Eval};
use templiqx_mcp::{EvalProvider, RunFuture};

/// Serves one MCP client on standard input and output (the server of the
/// `templiqx-mcp` crate) until it closes them: exit 0. A served path that
/// does not exist, or a provider configuration the adapter refuses, is a
/// usage error (on standard error, exit 2); a session that fails (the
/// client's `initialize` is not MCP, the transport breaks) exits 1.
/// Standard output carries only the protocol.
pub fn run(paths: &[PathBuf], target: Option<&[String]>, providers: &McpProviderArgs) -> Status {
    let mut options = templiqx_mcp::Options::new(current_dir(), paths.to_vec());
    if let Some(t) = target {
        options = options.with_target(CapabilityProfile::new(t.iter().map(|c| c.trim())));
    }
    match configured(providers) {
        Ok(Some(provider)) => options = options.with_provider(provider),
        Ok(None) => {}
        Err(message) => {
            let _ = writeln!(io::stderr(), "error[TQX_RUNTIME_PERMANENT]: {message}");
            return Status::Error;
        }
    }
    match templiqx_mcp::run_stdio(options) {
        Ok(()) => Status::Success,
        Err(e @ templiqx_mcp::Error::Options(_)) => {
            let _ = writeln!(io::stderr(), "{e}");
            Status::Error
        }
        Err(e) => {
            let _ = writeln!(io::stderr(), "templiqx mcp: {e}");
            Status::Failure
        }
    }
}

/// The provider `--allow-providers` allows, configured as `templiqx eval`
/// configures it (`None` without the flag), or why the adapter refuses
/// its configuration.
fn configured(args: &McpProviderArgs) -> Result<Option<CliProvider>, String> {
    // clap requires --provider, --base-url and --model with the flag.
    let (true, Some(kind), Some(base_url), Some(model)) = (
        args.allow_providers,
        args.provider,
        args.base_url.as_deref(),
        args.model.as_deref(),
    ) else {
        return Ok(None);
    };
    let adapter = Adapter::new(kind, base_url, model, &args.wire)?;
    Ok(Some(CliProvider {
        kind,
        model: model.to_owned(),
        adapter,
    }))
}

/// The configured adapter, as the MCP server's eval tool runs it.
struct CliProvider {
    kind: ProviderKind,
    model: String,
    adapter: Adapter,
}

/// The provider and model only: the adapter holds the API key.
impl std::fmt::Debug for CliProvider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CliProvider")
            .field("provider", &self.kind.name())
            .field("model", &self.model)
            .finish_non_exhaustive()
    }
}

impl EvalProvider for CliProvider {
    fn name(&self) -> &str {
        self.kind.name()
    }

    fn endpoint(&self) -> Endpoint {
        Endpoint::new(self.kind.name(), &self.model)
    }

    fn run<'a>(&'a self, eval: Eval<'a>) -> RunFuture<'a> {
        match &self.adapter {
            Adapter::OpenAi(a) => Box::pin(eval.run(a)),
            Adapter::Anthropic(a) => Box::pin(eval.run(a)),
        }
    }
}
