//! `templiqx mcp`'s `eval` tool on a real provider (`docs/mcp.md`, "Real
//! providers"): refused without `--allow-providers`, run on the provider
//! the command line configures with it, against a loopback fake of the
//! OpenAI wire format, the API key sent to the model and never shown.
//! The server is the `templiqx` process, spoken to as a client does:
//! newline-delimited JSON-RPC on its standard input and output.

use crate::common::templiqx_in;
use crate::eval::{answer, contract_dir};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;
use templiqx_fake_provider::{Reply, serve};

/// The API key the server is given, through [`KEY_VAR`].
const KEY: &str = "sk-mcp-test-9f3c2a7e51d04b68";
const KEY_VAR: &str = "TEMPLIQX_TEST_MCP_API_KEY";

/// How long one answer may take.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(60);

/// A `templiqx mcp` process serving `notice.yaml`, initialized.
struct Session {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    /// Every line the server wrote.
    seen: Vec<String>,
    next_id: u64,
}

impl Session {
    fn start(dir: &Path, extra: &[&str]) -> Session {
        let mut child = Command::new(env!("CARGO_BIN_EXE_templiqx"))
            .current_dir(dir)
            .args(["mcp", "notice.yaml", "--target", "structured_output"])
            .args(extra)
            .env(KEY_VAR, KEY)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let (send, lines) = channel();
        std::thread::spawn(move || {
            for line in stdout.lines().map_while(Result::ok) {
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        let mut session = Session {
            child,
            stdin,
            lines,
            seen: Vec::new(),
            next_id: 1,
        };
        let init = session.request(
            "initialize",
            json!({ "protocolVersion": "2025-11-25", "capabilities": {},
                    "clientInfo": { "name": "mcp-providers-test", "version": "0" } }),
        );
        assert_eq!(init["result"]["protocolVersion"], "2025-11-25", "{init}");
        session.send(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }));
        session
    }

    fn send(&mut self, message: &Value) {
        writeln!(self.stdin, "{message}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Sends a request and returns its response (notifications skipped).
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        loop {
            let line = self
                .lines
                .recv_timeout(ANSWER_TIMEOUT)
                .unwrap_or_else(|e| panic!("no answer to {method} ({e}); seen: {:?}", self.seen));
            self.seen.push(line.clone());
            let message: Value = serde_json::from_str(&line).unwrap();
            if message["id"] == json!(id) {
                return message;
            }
        }
    }

    /// The `eval` tool's result for `arguments`.
    fn eval(&mut self, arguments: Value) -> Value {
        let response = self.request(
            "tools/call",
            json!({ "name": "eval", "arguments": arguments }),
        );
        assert!(response.get("error").is_none(), "{response}");
        response["result"].clone()
    }

    /// Closes the connection; the server exits 0. Returns its standard
    /// error and every line it wrote.
    fn close(mut self) -> (String, String) {
        drop(self.stdin);
        let status = self.child.wait().unwrap();
        let mut stderr = String::new();
        self.child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .unwrap();
        assert_eq!(status.code(), Some(0), "{stderr}");
        self.seen.extend(self.lines.try_iter());
        (stderr, self.seen.join("\n"))
    }
}

/// The first diagnostic of a result.
fn first_diagnostic(result: &Value) -> &Value {
    &result["structuredContent"]["diagnostics"][0]
}

#[test]
fn without_allow_providers_a_real_provider_is_a_tool_error() {
    let dir = contract_dir();
    let mut session = Session::start(dir.path(), &[]);

    let refused = session.eval(json!({ "provider": "openai" }));
    assert_eq!(refused["isError"], true, "{refused}");
    assert_eq!(refused["structuredContent"]["ok"], false, "{refused}");
    let d = first_diagnostic(&refused);
    assert_eq!(d["code"], "TQX_INVALID_VALUE", "{refused}");
    assert_eq!(d["json_pointer"], "/provider", "{refused}");
    let message = d["message"].as_str().unwrap();
    assert!(
        message.contains("not started with --allow-providers"),
        "{message}"
    );
    let help = d["help"].as_str().unwrap();
    assert!(
        help.contains(
            "templiqx mcp --allow-providers --provider openai --base-url URL --model MODEL"
        ),
        "{help}"
    );

    // The fake provider still runs, by default.
    let fake = session.eval(json!({}));
    assert_eq!(fake["isError"], false, "{fake}");
    assert_eq!(fake["structuredContent"]["provider"], "fake", "{fake}");
    assert_eq!(fake["structuredContent"]["ok"], true, "{fake}");
    session.close();
}

#[test]
fn with_allow_providers_eval_runs_on_the_configured_model_and_never_shows_the_key() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    // The second answer is a refusal that echoes the key, as a server
    // quoting a bad request may.
    let echo = json!({ "error": { "message": format!("invalid api key {KEY}") } }).to_string();
    let (base, fake) = runtime.block_on(serve(
        "/v1/chat/completions",
        vec![answer(60), Reply::Raw(401, Vec::new(), echo)],
    ));
    let dir = contract_dir();
    let base_url = format!("{base}/v1");
    let mut session = Session::start(
        dir.path(),
        &[
            "--allow-providers",
            "--provider",
            "openai",
            "--base-url",
            &base_url,
            "--model",
            "fake-model",
            "--api-key-env",
            KEY_VAR,
        ],
    );

    // Without `provider`, still the fake one: no request reaches the model.
    let fake_run = session.eval(json!({}));
    assert_eq!(
        fake_run["structuredContent"]["provider"], "fake",
        "{fake_run}"
    );
    assert_eq!(fake.requests(), 0);

    let ran = session.eval(json!({ "provider": "openai" }));
    assert_eq!(ran["isError"], false, "{ran}");
    let out = &ran["structuredContent"];
    assert_eq!(out["ok"], true, "{ran}");
    assert_eq!(out["provider"], "openai", "{ran}");
    let fixture = &out["stats"]["fixtures"][0];
    assert_eq!(fixture["pass_rate"]["passed"], 1, "{ran}");
    assert_eq!(fixture["pass_rate"]["total"], 1, "{ran}");
    assert_eq!(fake.requests(), 1);
    assert_eq!(fake.body(0)["model"], "fake-model");
    assert_eq!(
        fake.headers(0)["authorization"].to_str().unwrap(),
        format!("Bearer {KEY}")
    );

    // A failure quoting the key is reported without it.
    let failed = session.eval(json!({ "provider": "openai" }));
    assert_eq!(fake.requests(), 2);
    assert_eq!(
        failed["structuredContent"]["stats"]["fixtures"][0]["pass_rate"]["passed"], 0,
        "{failed}"
    );

    // Another provider than the configured one is refused.
    let other = session.eval(json!({ "provider": "anthropic" }));
    assert_eq!(other["isError"], true, "{other}");
    let message = first_diagnostic(&other)["message"].as_str().unwrap();
    assert!(message.contains("`openai` only"), "{message}");
    assert_eq!(fake.requests(), 2);

    let (stderr, stdout) = session.close();
    assert!(!stdout.contains(KEY), "the key is in a result:\n{stdout}");
    assert!(
        !stderr.contains(KEY),
        "the key is on standard error:\n{stderr}"
    );
    assert!(
        stdout.contains("invalid api key"),
        "the refusal is reported:\n{stdout}"
    );
}

#[test]
fn allow_providers_needs_the_provider_base_url_and_model() {
    let dir = contract_dir();
    let output = templiqx_in(dir.path())
        .args([
            "mcp",
            "notice.yaml",
            "--allow-providers",
            "--provider",
            "openai",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--base-url") && stderr.contains("--model"),
        "{stderr}"
    );

    let output = templiqx_in(dir.path())
        .args(["mcp", "notice.yaml", "--provider", "openai"])
        .args(["--base-url", "http://127.0.0.1:9/v1", "--model", "m"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--allow-providers"), "{stderr}");
}
