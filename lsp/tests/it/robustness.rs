//! What a client (or a broken pipe) can throw at the server without
//! ending the session: malformed framing and JSON over the byte-stream
//! transport, messages out of the lifecycle's order (LSP 3.17,
//! "Initialize Request", "Shutdown Request", "Exit Notification"),
//! unusable params and initialization options; and the conversion of
//! many diagnostics (linear in their number, merged when identical).

use crate::common::{Client, TIMEOUT, codes, position};
use lsp_server::{Connection, Message, Notification, Request, RequestId};
use serde_json::{Value, json};
use std::io::{Cursor, Read, Write};
use std::sync::{Arc, Mutex};

/// An output the test can read after the server is done.
#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// `body`, framed.
fn frame(body: &str) -> String {
    format!("Content-Length: {}\r\n\r\n{body}", body.len())
}

fn message(value: &Value) -> String {
    frame(&value.to_string())
}

fn request(id: i32, method: &str, params: Value) -> String {
    message(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }))
}

fn notification(method: &str, params: Value) -> String {
    message(&json!({ "jsonrpc": "2.0", "method": method, "params": params }))
}

fn initialize() -> String {
    request(1, "initialize", json!({ "capabilities": {} }))
        + &notification("initialized", json!({}))
}

fn goodbye(id: i32) -> String {
    request(id, "shutdown", Value::Null) + &notification("exit", Value::Null)
}

/// Serves `input` over [`templiqx_lsp::run_io`]: the result and every
/// message written, parsed (the framing is checked strictly).
fn serve(input: impl Read + Send + 'static) -> (Result<(), String>, Vec<Value>) {
    let output = Shared::default();
    let result = templiqx_lsp::run_io(input, output.clone(), templiqx_lsp::Options::default())
        .map_err(|e| e.to_string());
    let bytes = output.0.lock().unwrap().clone();
    let mut messages = Vec::new();
    let mut rest = &bytes[..];
    while !rest.is_empty() {
        let end = rest.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
        let header = std::str::from_utf8(&rest[..end]).unwrap();
        let length: usize = header
            .strip_prefix("Content-Length: ")
            .unwrap()
            .parse()
            .unwrap();
        let body = &rest[end + 4..end + 4 + length];
        messages.push(serde_json::from_slice(body).unwrap());
        rest = &rest[end + 4 + length..];
    }
    (result, messages)
}

/// The error responses, as (id, code, message).
fn errors(messages: &[Value]) -> Vec<(Value, i64, String)> {
    messages
        .iter()
        .filter(|m| m.get("error").is_some())
        .map(|m| {
            (
                m["id"].clone(),
                m["error"]["code"].as_i64().unwrap(),
                m["error"]["message"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn response(messages: &[Value], id: i32) -> &Value {
    messages
        .iter()
        .find(|m| m["id"] == id && m.get("method").is_none())
        .unwrap_or_else(|| panic!("no response to {id} in {messages:#?}"))
}

const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;

#[test]
fn malformed_bodies_are_answered_and_the_session_goes_on() {
    let input = initialize()
        // A lone surrogate: not a JSON string serde accepts.
        + &frame(r#"{"jsonrpc":"2.0","id":2,"method":"x\ud800"}"#)
        + &frame("{\"jsonrpc\":\"2.0\",\"id\":3,\"meth")
        + &frame("not json")
        + &frame(r#"{"foo":1}"#)
        + &frame("[1,2,3]")
        + &frame(r#"{"jsonrpc":"2.0","id":{"a":1},"method":"textDocument/hover"}"#)
        + &frame(r#"{"jsonrpc":"2.0","id":1.5,"method":"textDocument/hover"}"#)
        + &frame(r#"{"jsonrpc":"2.0","id":4,"method":7}"#)
        + &frame(r#"{"jsonrpc":"2.0","id":5,"method":"shutdown","params":3}"#)
        // Still serving: an answer (null: nothing at that position).
        + &request(
            6,
            "textDocument/hover",
            json!({ "textDocument": { "uri": "file:///nowhere.yaml" }, "position": { "line": 0, "character": 0 } }),
        )
        + &goodbye(7);
    let (result, messages) = serve(Cursor::new(input));
    assert_eq!(result, Ok(()));
    let errors = errors(&messages);
    let codes: Vec<(Value, i64)> = errors.iter().map(|(id, c, _)| (id.clone(), *c)).collect();
    assert_eq!(
        codes,
        [
            (Value::Null, PARSE_ERROR),
            (Value::Null, PARSE_ERROR),
            (Value::Null, PARSE_ERROR),
            (Value::Null, INVALID_REQUEST),
            (Value::Null, INVALID_REQUEST),
            (Value::Null, INVALID_REQUEST),
            (json!(1.5), INVALID_REQUEST),
            (json!(4), INVALID_REQUEST),
            (json!(5), INVALID_REQUEST),
        ],
        "{errors:#?}"
    );
    assert!(
        errors[0].2.starts_with("the message is not JSON: "),
        "{errors:#?}"
    );
    assert!(errors[3].2.contains("expected a request"), "{errors:#?}");
    assert!(errors[4].2.contains("got an array"), "{errors:#?}");
    assert_eq!(response(&messages, 6)["result"], Value::Null);
    assert_eq!(response(&messages, 7)["result"], Value::Null);
}

#[test]
fn broken_framing_is_answered_and_the_reader_finds_the_next_header() {
    let input = initialize()
        // A body with no header.
        + "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"shutdown\"}\r\n"
        + &request(3, "textDocument/documentSymbol", json!({ "textDocument": { "uri": "file:///a.yaml" } }))
        // Not a number.
        + "Content-Length: lots\r\n\r\n{}"
        + &request(4, "textDocument/documentSymbol", json!({ "textDocument": { "uri": "file:///a.yaml" } }))
        // No Content-Length at all; the next header follows the body on
        // the same line.
        + "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}"
        + &request(5, "textDocument/documentSymbol", json!({ "textDocument": { "uri": "file:///a.yaml" } }))
        // A header line far over the limit.
        + &"X".repeat(100_000)
        + "\r\n"
        + &goodbye(6);
    let (result, messages) = serve(Cursor::new(input));
    assert_eq!(result, Ok(()));
    let errors = errors(&messages);
    assert_eq!(errors.len(), 4, "{errors:#?}");
    assert!(
        errors
            .iter()
            .all(|(id, code, _)| id.is_null() && *code == PARSE_ERROR)
    );
    assert!(
        errors[0]
            .2
            .starts_with("expected a `Content-Length: N` header, got `{\"jsonrpc\""),
        "{errors:#?}"
    );
    assert!(
        errors[1]
            .2
            .starts_with("`Content-Length: lots` is not a byte count")
    );
    assert!(
        errors[2]
            .2
            .starts_with("a message header without `Content-Length`")
    );
    assert!(
        errors[3]
            .2
            .starts_with("a header line longer than 8192 bytes")
    );
    // The headerless `shutdown` was not obeyed: the requests after it are
    // answered.
    for id in [3, 4, 5] {
        assert_eq!(response(&messages, id)["result"], Value::Null);
    }
    assert_eq!(response(&messages, 6)["result"], Value::Null);
}

#[test]
fn a_body_over_the_limit_is_refused_and_skipped_unread() {
    let over = templiqx_lsp::MAX_MESSAGE + 1;
    let input = Cursor::new(initialize() + &format!("Content-Length: {over}\r\n\r\n"))
        // 64 MiB of junk, streamed (never held by the test either).
        .chain(std::io::repeat(b'{').take(over))
        .chain(Cursor::new(
            request(
                2,
                "textDocument/documentSymbol",
                json!({ "textDocument": { "uri": "file:///a.yaml" } }),
            ) + &goodbye(3),
        ));
    let (result, messages) = serve(input);
    assert_eq!(result, Ok(()));
    let errors = errors(&messages);
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert_eq!(
        (errors[0].0.clone(), errors[0].1),
        (Value::Null, INVALID_REQUEST)
    );
    assert!(
        errors[0]
            .2
            .starts_with(&format!("a message of {over} bytes is over the limit")),
        "{errors:#?}"
    );
    assert_eq!(response(&messages, 2)["result"], Value::Null);
}

#[test]
fn a_huge_content_length_is_refused_without_allocating_it() {
    // A terabyte: refused at once; the input then ends inside it.
    let input = initialize() + "Content-Length: 1000000000000\r\n\r\n{}";
    let (result, messages) = serve(Cursor::new(input));
    let errors = errors(&messages);
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert!(
        errors[0]
            .2
            .contains("1000000000000 bytes is over the limit")
    );
    assert_eq!(
        result,
        Err(
            "the input ended inside a refused message of 1000000000000 bytes (2 skipped)"
                .to_owned()
        )
    );
}

#[test]
fn an_input_that_ends_inside_a_message_says_so() {
    let (result, _) = serve(Cursor::new(
        initialize() + "Content-Length: 100\r\n\r\n{\"jsonrpc\"",
    ));
    assert_eq!(
        result,
        Err("the input ended inside a message: 10 of its 100 bytes came".to_owned())
    );
    let (result, _) = serve(Cursor::new(initialize() + "junk\r\nmore junk\r\n"));
    assert_eq!(
        result,
        Err(
            "the input ended while looking for the next message header after a malformed one"
                .to_owned()
        )
    );
    // A clean end between messages, without `exit`.
    let (result, _) = serve(Cursor::new(initialize()));
    assert_eq!(
        result,
        Err("the client closed the connection without `exit`".to_owned())
    );
}

/// A bare connection to a server thread, without the handshake.
struct Raw {
    connection: Connection,
    server: std::thread::JoinHandle<Result<(), String>>,
}

impl Raw {
    fn start() -> Raw {
        let (server, connection) = Connection::memory();
        let server = std::thread::spawn(move || {
            templiqx_lsp::run(&server, templiqx_lsp::Options::default()).map_err(|e| e.to_string())
        });
        Raw { connection, server }
    }

    fn notify(&self, method: &str, params: Value) {
        let n = Notification::new(method.to_owned(), params);
        self.connection.sender.send(n.into()).unwrap();
    }

    /// The answer to a request, skipping notifications.
    fn request(&self, id: i32, method: &str, params: Value) -> Result<Value, (i32, String)> {
        let id = RequestId::from(id);
        let r = Request::new(id.clone(), method.to_owned(), params);
        self.connection.sender.send(r.into()).unwrap();
        loop {
            match self.connection.receiver.recv_timeout(TIMEOUT).unwrap() {
                Message::Response(r) if r.id == id => {
                    return r.response_result.map_err(|e| (e.code, e.message));
                }
                Message::Response(r) => panic!("unexpected {r:?}"),
                _ => {}
            }
        }
    }

    fn end(self) -> Result<(), String> {
        drop(self.connection);
        self.server.join().unwrap()
    }
}

const SERVER_NOT_INITIALIZED: i32 = -32002;

#[test]
fn before_initialize_requests_are_refused_and_notifications_dropped() {
    let server = Raw::start();
    let hover = json!({ "textDocument": { "uri": "file:///a.yaml" }, "position": { "line": 0, "character": 0 } });
    assert_eq!(
        server.request(1, "textDocument/hover", hover.clone()),
        Err((
            SERVER_NOT_INITIALIZED,
            "expected the initialize request first, got textDocument/hover".to_owned()
        ))
    );
    server.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": "file:///a.yaml", "languageId": "yaml", "version": 1, "text": "" } }),
    );
    let result = server
        .request(2, "initialize", json!({ "capabilities": {} }))
        .unwrap();
    assert_eq!(result["serverInfo"]["name"], "templiqx");
    // Before `initialized`: served.
    assert_eq!(
        server.request(3, "textDocument/hover", hover),
        Ok(Value::Null)
    );
    server.notify("initialized", json!({}));
    assert_eq!(
        server.request(4, "initialize", json!({ "capabilities": {} })),
        Err((
            -32600,
            "the server is already initialized: `initialize` may be sent once".to_owned()
        ))
    );
    assert_eq!(server.request(5, "shutdown", Value::Null), Ok(Value::Null));
    assert_eq!(
        server.request(6, "shutdown", Value::Null),
        Err((
            -32600,
            "the server is shut down: only `exit` may follow `shutdown`, got shutdown".to_owned()
        ))
    );
    // Dropped: no diagnostics come for it, and the session ends cleanly.
    server.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": "file:///b.yaml", "languageId": "yaml", "version": 1, "text": "x: [" } }),
    );
    server.notify("exit", Value::Null);
    let published: Vec<Message> = server.connection.receiver.try_iter().collect();
    assert!(
        !published
            .iter()
            .any(|m| matches!(m, Message::Notification(n) if n.params["uri"] == "file:///b.yaml")),
        "{published:?}"
    );
    assert_eq!(server.end(), Ok(()));
}

#[test]
fn didopen_before_initialized_is_served() {
    let (dir, path) = one_file("api_version: templiqx/v1alpha1\nid: [\n");
    let url = lsp_types::Url::from_file_path(&path).unwrap();
    let server = Raw::start();
    server
        .request(1, "initialize", json!({ "capabilities": {} }))
        .unwrap();
    server.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": url, "languageId": "yaml", "version": 1, "text": std::fs::read_to_string(&path).unwrap() } }),
    );
    let published = loop {
        match server.connection.receiver.recv_timeout(TIMEOUT).unwrap() {
            Message::Notification(n) if n.method == "textDocument/publishDiagnostics" => break n,
            _ => {}
        }
    };
    assert_eq!(published.params["uri"], url.as_str());
    assert!(
        !published.params["diagnostics"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    server.notify("exit", Value::Null);
    assert_eq!(
        server.end(),
        Err("the client sent `exit` without `shutdown`".to_owned())
    );
    drop(dir);
}

#[test]
fn exit_before_initialize_is_an_exit_without_shutdown() {
    let server = Raw::start();
    server.notify("exit", Value::Null);
    assert_eq!(
        server.end(),
        Err("the client sent `exit` without `shutdown`".to_owned())
    );
}

#[test]
fn invalid_params_are_explained_in_words() {
    let mut client = Client::start(json!({ "target": "structured_output" }));
    let e = client
        .try_request(
            "textDocument/hover",
            json!({ "textDocument": { "uri": "file:///a.yaml" }, "position": { "line": "x", "character": 0 } }),
        )
        .unwrap_err();
    assert_eq!(e.code, -32602);
    assert_eq!(
        e.message,
        "invalid params for textDocument/hover: invalid type: string \"x\", expected u32"
    );
    // A notification's: logged, and the session goes on.
    client.notify("textDocument/didOpen", json!({ "textDocument": 5 }));
    let log = client.next("window/logMessage");
    assert_eq!(log["type"], 1);
    assert!(
        log["message"]
            .as_str()
            .unwrap()
            .starts_with("invalid params for textDocument/didOpen: invalid type: integer `5`"),
        "{log}"
    );
    client.shutdown();
}

#[test]
fn unusable_initialization_options_are_named_with_what_is_used_instead() {
    let mut client = Client::start(json!({ "target": 5, "diagnosticsUrl": "not a url" }));
    let shown = client.next("window/showMessage");
    assert_eq!(shown["type"], 2, "{shown}");
    let message = shown["message"].as_str().unwrap();
    assert!(message.starts_with("templiqx: ignored in initializationOptions: target 5 (expected a list of capability names or a comma-separated string); diagnosticsUrl \"not a url\" (relative URL without a base); there is no target: capability checks are skipped; diagnostic codes link to file://"), "{message}");
    // Said once: no second message about the target.
    assert!(
        !client
            .pending
            .iter()
            .any(|n| n.method == "window/showMessage")
    );
    client.shutdown();

    let mut client = Client::start(json!({ "target": [1, null, " x ", "  "] }));
    let shown = client.next("window/showMessage");
    assert_eq!(shown["type"], 2, "{shown}");
    let message = shown["message"].as_str().unwrap();
    assert!(
        message.starts_with("templiqx: ignored in initializationOptions: target entry 1 (expected a capability name); target entry null (expected a capability name); target entry \"  \" (expected a capability name); the target is `x`;"),
        "{message}"
    );
    client.shutdown();
}

/// A temporary directory holding one contract file.
fn one_file(text: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().canonicalize().unwrap().join("big.yaml");
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

#[test]
fn two_thousand_diagnostics_on_one_line_are_all_converted() {
    const N: usize = 2000;
    let nodes: Vec<String> = (0..N)
        .map(|i| format!("{{kind: interpolate, expression: {{kind: ref, path: inputs.nam{i}}}}}"))
        .collect();
    let text = format!(
        "api_version: templiqx/v1alpha1\nid: big\nversion: 0.1.0\ndescription: d\ninputs:\n  name: {{ schema: {{ type: string }}, required: true }}\ncapabilities: [structured_output]\noutput_schema: {{ type: object }}\nmessages:\n  - {{role: user, content: [{}]}}\n",
        nodes.join(", ")
    );
    let (_dir, path) = one_file(&text);
    let url = lsp_types::Url::from_file_path(&path).unwrap();
    let mut client = Client::start(json!({ "target": ["structured_output"] }));
    let started = std::time::Instant::now();
    client.open(&url, &text);
    let diagnostics = client.diagnostics(&url);
    eprintln!("{N} diagnostics published in {:?}", started.elapsed());
    assert_eq!(diagnostics.len(), N);
    assert!(codes(&diagnostics).iter().all(|&c| c == "TQX_REF_UNKNOWN"));
    for i in [0, N / 2, N - 1] {
        let needle = format!("inputs.nam{i}}}");
        let (line, character) = position(&text, &needle, 0);
        let d = diagnostics
            .iter()
            .find(|d| {
                d["message"]
                    .as_str()
                    .unwrap()
                    .contains(&format!("`nam{i}`"))
            })
            .unwrap();
        assert_eq!(
            d["range"]["start"],
            json!({ "line": line, "character": character })
        );
        let end = character + needle.len() as u32 - 1;
        assert_eq!(d["range"]["end"], json!({ "line": line, "character": end }));
    }
    // The quick fix's data is converted with the same index.
    let d = diagnostics
        .iter()
        .find(|d| d["message"].as_str().unwrap().contains("`nam0`"))
        .unwrap();
    assert_eq!(d["data"]["suggestion"]["replaces"], "inputs.nam0", "{d}");
    assert_eq!(d["data"]["suggestion"]["replacement"], "inputs.name", "{d}");
    client.shutdown();
}

#[test]
fn a_shared_partials_identical_errors_are_merged_with_every_include_chain() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let write = |rel: &str, text: &str| {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "templiqx.yaml",
        "api_version: templiqx/v1alpha1\npackage: twins\nversion: 0.1.0\ncontracts: [one, two]\n",
    );
    for id in ["one", "two"] {
        write(
            &format!("contracts/{id}.yaml"),
            &format!(
                "api_version: templiqx/v1alpha1\nid: {id}\nversion: 0.1.0\ninputs:\n  name: {{ schema: {{ type: string }}, required: true }}\ncapabilities: [structured_output]\nmessages:\n  - role: user\n    content:\n      - {{ kind: include, path: partials/shared.yaml }}\noutput_schema: {{ type: object }}\n"
            ),
        );
    }
    let partial = "- { kind: interpolate, expression: { kind: ref, path: inputs.nmae } }\n";
    write("partials/shared.yaml", partial);
    let url = lsp_types::Url::from_file_path(root.join("partials/shared.yaml")).unwrap();

    let mut client = Client::start(json!({ "target": ["structured_output"] }));
    client.open(&url, partial);
    let diagnostics = client.diagnostics(&url);
    assert_eq!(codes(&diagnostics), ["TQX_REF_UNKNOWN"], "{diagnostics:#?}");
    let related = diagnostics[0]["relatedInformation"].as_array().unwrap();
    let mut includers: Vec<&str> = related
        .iter()
        .map(|r| r["location"]["uri"].as_str().unwrap())
        .collect();
    includers.sort_unstable();
    assert_eq!(includers.len(), 2, "{related:#?}");
    assert!(
        includers[0].ends_with("/contracts/one.yaml"),
        "{includers:?}"
    );
    assert!(
        includers[1].ends_with("/contracts/two.yaml"),
        "{includers:?}"
    );
    // One diagnostic, so one quick fix.
    let actions = client.request(
        "textDocument/codeAction",
        json!({
            "textDocument": { "uri": url },
            "range": diagnostics[0]["range"],
            "context": { "diagnostics": diagnostics },
        }),
    );
    assert_eq!(actions.as_array().unwrap().len(), 1, "{actions:#}");
    client.shutdown();
}
