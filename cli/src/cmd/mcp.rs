//! `templiqx mcp [PATH…] [--target CAP,…]` (`docs/mcp.md`).

use crate::input::current_dir;
use crate::ui::Status;
use std::io::{self, Write};
use std::path::PathBuf;
use templiqx_contracts::CapabilityProfile;

/// Serves one MCP client on standard input and output (the server of the
/// `templiqx-mcp` crate) until it closes them: exit 0. A served path that
/// does not exist is a usage error (`TQX_IO` on standard error, exit 2);
/// a session that fails (the client's `initialize` is not MCP, the
/// transport breaks) exits 1. Standard output carries only the protocol.
pub fn run(paths: &[PathBuf], target: Option<&[String]>) -> Status {
    let mut options = templiqx_mcp::Options::new(current_dir(), paths.to_vec());
    if let Some(t) = target {
        options = options.with_target(CapabilityProfile::new(t.iter().map(|c| c.trim())));
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
