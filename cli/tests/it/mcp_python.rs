//! `templiqx mcp` driven by an independent client: the official MCP Python
//! SDK, through `mcp/tests/python_client.py` (`docs/mcp.md`, "A session").
//!
//! The script runs with the Python named by `TEMPLIQX_MCP_PYTHON` (a
//! virtual environment's, with the `mcp` package installed: `.ci/run`
//! makes one), from the repository root, against this build's `templiqx`.
//! Without the variable the test writes one `skipped in …` line and
//! passes, unless `CI` is set: then it fails.

use crate::common::repo;
use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use templiqx_conformance_suites::skip_unless_ci;

/// The variable naming the Python that has the MCP SDK.
const PYTHON_VAR: &str = "TEMPLIQX_MCP_PYTHON";

/// How to get the SDK, for the skip line and the CI failure.
const HOW: &str = "make a virtual environment with the MCP Python SDK \
    (`python3 -m venv /tmp/mcp-venv && /tmp/mcp-venv/bin/pip install mcp==2.3.0`) \
    and set TEMPLIQX_MCP_PYTHON=/tmp/mcp-venv/bin/python";

/// How long the whole session may take (the script's steps, each server
/// request compiling the CRM3 package).
const RUN_TIMEOUT: Duration = Duration::from_secs(180);

#[test]
fn the_python_sdk_drives_a_session() {
    let python = match std::env::var_os(PYTHON_VAR) {
        Some(p) if !p.is_empty() => p,
        _ => return skip_unless_ci(&format!("{PYTHON_VAR} is not set"), HOW),
    };
    let mut child = Command::new(&python)
        .arg("mcp/tests/python_client.py")
        .arg("--templiqx")
        .arg(env!("CARGO_BIN_EXE_templiqx"))
        .current_dir(repo())
        .env_remove("NO_COLOR")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| {
            panic!(
                "cannot run {PYTHON_VAR}={} ({e}): {HOW}",
                python.to_string_lossy()
            )
        });
    // Both pipes drained on threads of their own, so a full pipe cannot
    // stall the script while the deadline is watched.
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut s = String::new();
            let _ = r.read_to_string(&mut s);
            s
        })
    };
    let out = drain(Box::new(child.stdout.take().unwrap()));
    let err = drain(Box::new(child.stderr.take().unwrap()));
    let started = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break Some(s);
        }
        if started.elapsed() > RUN_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let (out, err) = (out.join().unwrap(), err.join().unwrap());
    let Some(status) = status else {
        panic!("the Python session took over {RUN_TIMEOUT:?}\nstdout:\n{out}\nstderr:\n{err}");
    };
    assert!(
        status.success(),
        "python_client.py failed ({status})\nstdout:\n{out}\nstderr:\n{err}"
    );
    // Every step ran and held: the script ends with its tally.
    for step in [
        "== prompts/get lease-term-extraction",
        "TQX_PARSE_JSON",
        "TQX_REF_UNKNOWN",
        "INPUT_FIELD_MADE_REQUIRED",
        "== tools/call eval",
        "notifications/prompts/list_changed",
        "after: greet(name, title)",
    ] {
        assert!(out.contains(step), "no `{step}` in the session:\n{out}");
    }
    assert!(
        out.trim_end().ends_with("12 passed, 0 failed"),
        "the session did not finish:\n{out}\nstderr:\n{err}"
    );
}
