//! `templiqx lsp` over the real binary's standard input and output
//! (`docs/cli.md`, "lsp"): the handshake, diagnostics of a CRM3 contract
//! copied to a temporary directory with `inputs.nmae` introduced, hover,
//! and the exit status of a clean and of an abrupt end.

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(30);

struct Server {
    child: Child,
    stdin: ChildStdin,
    messages: Receiver<Value>,
    next_id: i64,
}

impl Server {
    fn start(args: &[&str]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_templiqx"))
            .arg("lsp")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let (sender, messages) = channel();
        std::thread::spawn(move || {
            // `Content-Length: N\r\n\r\n` then N bytes of JSON.
            loop {
                let mut length = None;
                loop {
                    let mut line = String::new();
                    if stdout.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let line = line.trim_end();
                    if line.is_empty() {
                        break;
                    }
                    if let Some(n) = line.strip_prefix("Content-Length: ") {
                        length = n.parse::<usize>().ok();
                    }
                }
                let mut body = vec![0; length.expect("a Content-Length header")];
                stdout.read_exact(&mut body).unwrap();
                let message: Value = serde_json::from_slice(&body).unwrap();
                if sender.send(message).is_err() {
                    return;
                }
            }
        });
        Server {
            child,
            stdin,
            messages,
            next_id: 0,
        }
    }

    fn send(&mut self, message: Value) {
        let body = message.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        self.stdin.flush().unwrap();
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({ "jsonrpc": "2.0", "method": method, "params": params }));
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        loop {
            let message = self.messages.recv_timeout(TIMEOUT).unwrap();
            if message["id"] == id {
                assert!(message.get("error").is_none(), "{message}");
                return message["result"].clone();
            }
        }
    }

    /// The next notification; requests from the server are skipped.
    fn notification(&mut self) -> Value {
        loop {
            let message = self.messages.recv_timeout(TIMEOUT).unwrap();
            if message.get("id").is_none() {
                return message;
            }
        }
    }

    fn initialize(&mut self) -> Value {
        let result = self.request(
            "initialize",
            json!({ "processId": null, "rootUri": null, "capabilities": {} }),
        );
        self.notify("initialized", json!({}));
        result
    }

    fn exit_status(mut self) -> Option<i32> {
        drop(self.stdin);
        for _ in 0..300 {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code();
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = self.child.kill();
        panic!("templiqx lsp did not exit");
    }
}

fn file_url(path: &Path) -> String {
    // Temporary directories hold no characters that need escaping on the
    // platforms CI runs.
    format!("file://{}", path.display())
}

#[test]
fn lsp_reports_diagnostics_and_hovers_over_stdio() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap().join("crm3");
    templiqx_conformance_suites::copy_tree(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/crm3"),
        &root,
    );
    let path = root.join("contracts/lease-term-extraction.yaml");
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("path: inputs.clause_id }", "path: inputs.nmae }");
    let url = file_url(&path);

    let mut server = Server::start(&["--target", "structured_output"]);
    let result = server.initialize();
    assert_eq!(result["serverInfo"]["name"], "templiqx");
    assert_eq!(result["capabilities"]["hoverProvider"], true);

    server.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": url, "languageId": "yaml", "version": 1, "text": text } }),
    );
    // With `--target`, no "capability checks are skipped" message comes
    // first: the diagnostics do.
    let published = server.notification();
    assert_eq!(
        published["method"], "textDocument/publishDiagnostics",
        "{published}"
    );
    assert_eq!(published["params"]["uri"], url);
    assert_eq!(published["params"]["version"], 1);
    let diagnostics = published["params"]["diagnostics"].as_array().unwrap();
    assert_eq!(diagnostics.len(), 1, "{diagnostics:#?}");
    let offset = text.find("inputs.nmae").unwrap();
    let line = text[..offset].matches('\n').count();
    let character = offset - text[..offset].rfind('\n').unwrap() - 1;
    assert_eq!(diagnostics[0]["code"], "TQX_REF_UNKNOWN");
    assert_eq!(
        diagnostics[0]["range"]["start"],
        json!({ "line": line, "character": character })
    );

    let offset = text.find("inputs.clause_text").unwrap() + 8;
    let line = text[..offset].matches('\n').count();
    let character = offset - text[..offset].rfind('\n').unwrap() - 1;
    let hover = server.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": url }, "position": { "line": line, "character": character } }),
    );
    let value = hover["contents"]["value"].as_str().unwrap();
    assert!(
        value.starts_with("`inputs.clause_text`: `string` — input, required"),
        "{value}"
    );

    server.request("shutdown", Value::Null);
    server.notify("exit", Value::Null);
    assert_eq!(server.exit_status(), Some(0));
}

#[test]
fn lsp_without_a_target_says_so_and_exits_1_without_shutdown() {
    let mut server = Server::start(&[]);
    server.initialize();
    let message = server.notification();
    assert_eq!(message["method"], "window/showMessage", "{message}");
    assert!(
        message["params"]["message"]
            .as_str()
            .unwrap()
            .contains("capability checks are skipped")
    );
    server.notify("exit", Value::Null);
    assert_eq!(server.exit_status(), Some(1));
}

/// Runs `templiqx lsp` on `input` (standard input closed after it): its
/// exit status, the messages it wrote and its standard error.
fn run_on(input: Vec<u8>) -> (Option<i32>, Vec<Value>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_templiqx"))
        .args(["lsp", "--target", "structured_output"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        // The server may stop reading first (it exits): a broken pipe is
        // not the test's failure.
        let _ = stdin.write_all(&input);
    });
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap();
    let mut messages = Vec::new();
    let mut rest = &output.stdout[..];
    while let Some(end) = rest.windows(4).position(|w| w == b"\r\n\r\n") {
        let header = std::str::from_utf8(&rest[..end]).unwrap();
        let length: usize = header["Content-Length: ".len()..].parse().unwrap();
        messages.push(serde_json::from_slice(&rest[end + 4..end + 4 + length]).unwrap());
        rest = &rest[end + 4 + length..];
    }
    let stderr = String::from_utf8(output.stderr).unwrap();
    (output.status.code(), messages, stderr)
}

fn framed(body: &str) -> String {
    format!("Content-Length: {}\r\n\r\n{body}", body.len())
}

fn handshake() -> String {
    framed(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}"#)
        + &framed(r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#)
}

#[test]
fn lsp_answers_malformed_messages_and_still_exits_0() {
    let input = handshake()
        + &framed(r#"{"jsonrpc":"2.0","id":2,"method":"x\ud800"}"#)
        + &framed(r#"{"foo":1}"#)
        + &framed("[1,2,3]")
        + &framed("{\"jsonrpc\":")
        + "Content-Length: many\r\n\r\n{}"
        + &framed(r#"{"jsonrpc":"2.0","id":3,"method":"shutdown"}"#)
        + &framed(r#"{"jsonrpc":"2.0","id":4,"method":"textDocument/hover","params":{}}"#)
        + &framed(r#"{"jsonrpc":"2.0","method":"exit"}"#);
    let (status, messages, stderr) = run_on(input.into_bytes());
    assert_eq!(status, Some(0), "{stderr}");
    let codes: Vec<i64> = messages
        .iter()
        .filter_map(|m| m["error"]["code"].as_i64())
        .collect();
    // Parse error, invalid request twice, parse error twice, then the
    // request after `shutdown`.
    assert_eq!(
        codes,
        [-32700, -32600, -32600, -32700, -32700, -32600],
        "{messages:#?}"
    );
    let shutdown = messages.iter().find(|m| m["id"] == 3).unwrap();
    assert_eq!(shutdown["result"], Value::Null, "{shutdown}");
}

#[test]
fn lsp_refuses_a_huge_content_length_and_exits_1_with_a_reason() {
    let input = handshake() + "Content-Length: 1000000000000\r\n\r\n{}";
    let (status, messages, stderr) = run_on(input.into_bytes());
    // Not a SIGABRT: a refusal, then the end of the input inside the
    // refused body.
    assert_eq!(status, Some(1), "{stderr}");
    let refusal = messages.iter().find(|m| m["error"].is_object()).unwrap();
    assert_eq!(refusal["error"]["code"], -32600);
    assert_eq!(refusal["id"], Value::Null);
    assert_eq!(
        stderr,
        "templiqx lsp: the input ended inside a refused message of 1000000000000 bytes (2 skipped)\n"
    );
}
