//! Cancellation (`docs/decisions.md`, "The language server",
//! "Cancellation"): a request the client cancels (`$/cancelRequest`) is
//! answered `-32800 RequestCancelled`, and a request its document's newer
//! version supersedes (a `textDocument/didChange` after it) `-32801
//! ContentModified`, both without their work.
//!
//! To be sure the server reads the cancellation before it serves the
//! request, every message of a session is in the server's queue before the
//! server starts: the session then runs to `exit` on the test's thread and
//! its output is read afterwards. A request's work starts with compiling
//! what changed, which publishes the diagnostics of the changed documents
//! before the answer; an answer sent before any diagnostics is one the
//! server gave without compiling, so without running the handler.

use crate::common::*;
use lsp_server::{Connection, Message, Notification, Request, RequestId, Response};
use lsp_types::Url;
use serde_json::{Value, json};

/// A session queued whole: its messages, in order.
struct Session {
    messages: Vec<Message>,
}

impl Session {
    /// `initialize` (id 1, the target `structured_output`) and
    /// `initialized`.
    fn new() -> Session {
        let mut session = Session {
            messages: Vec::new(),
        };
        session.request(
            1,
            "initialize",
            json!({
                "processId": null,
                "rootUri": null,
                "capabilities": {},
                "initializationOptions": { "target": ["structured_output"] },
            }),
        );
        session.notify("initialized", json!({}));
        session
    }

    fn request(&mut self, id: i32, method: &str, params: Value) {
        let r = Request::new(RequestId::from(id), method.to_owned(), params);
        self.messages.push(r.into());
    }

    fn notify(&mut self, method: &str, params: Value) {
        let n = Notification::new(method.to_owned(), params);
        self.messages.push(n.into());
    }

    fn open(&mut self, url: &Url, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({ "textDocument": { "uri": url, "languageId": "yaml", "version": 1, "text": text } }),
        );
    }

    fn replace(&mut self, url: &Url, version: i32, text: &str) {
        self.notify(
            "textDocument/didChange",
            json!({
                "textDocument": { "uri": url, "version": version },
                "contentChanges": [{ "text": text }],
            }),
        );
    }

    fn hover(&mut self, id: i32, url: &Url, at: (u32, u32)) {
        self.request(
            id,
            "textDocument/hover",
            json!({
                "textDocument": { "uri": url },
                "position": { "line": at.0, "character": at.1 },
            }),
        );
    }

    fn cancel(&mut self, id: i32) {
        self.notify("$/cancelRequest", json!({ "id": id }));
    }

    /// Queues the session, then `shutdown` (id 1000) and `exit`, serves it
    /// to the end on this thread, and returns what the server sent.
    fn run(mut self) -> Vec<Message> {
        self.request(1000, "shutdown", Value::Null);
        self.notify("exit", Value::Null);
        let (to_server, from_client) = crossbeam_channel::unbounded();
        let (to_client, from_server) = crossbeam_channel::unbounded();
        for message in self.messages {
            to_server.send(message).unwrap();
        }
        let connection = Connection {
            sender: to_client,
            receiver: from_client,
        };
        templiqx_lsp::run(&connection, templiqx_lsp::Options::default()).unwrap();
        from_server.try_iter().collect()
    }
}

/// The answer to request `id` and its place in `output`.
fn answer(output: &[Message], id: i32) -> (usize, &Response) {
    let id = RequestId::from(id);
    output
        .iter()
        .enumerate()
        .find_map(|(i, m)| match m {
            Message::Response(r) if r.id == id => Some((i, r)),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no answer to {id}"))
}

/// The error code of an answer, `None` for a result.
fn code(response: &Response) -> Option<i32> {
    response.response_result.as_ref().err().map(|e| e.code)
}

/// The place in `output` of the first diagnostics published for `url`, at
/// `version`.
fn published(output: &[Message], url: &Url, version: i32) -> usize {
    output
        .iter()
        .position(|m| {
            matches!(m, Message::Notification(n) if n.method == "textDocument/publishDiagnostics"
                && n.params["uri"] == url.as_str()
                && n.params["version"] == version)
        })
        .unwrap_or_else(|| panic!("no diagnostics of {url} at version {version}"))
}

/// The extraction contract with its first `inputs.clause_id` misspelt, and
/// the position of `clause_id` there.
fn misspelt(text: &str) -> (String, (u32, u32)) {
    let (line, character) = position(text, "inputs.clause_id", 0);
    let broken = text.replacen("inputs.clause_id", "inputs.nmae", 1);
    (broken, (line, character + "inputs.".len() as u32 + 1))
}

#[test]
fn a_cancelled_request_is_answered_32800_without_its_work() {
    let pkg = Package::crm3();
    let url = pkg.url(EXTRACTION);
    let text = pkg.text(EXTRACTION);
    let (broken, at) = misspelt(&text);
    let mut session = Session::new();
    session.open(&url, &text);
    session.replace(&url, 2, &broken);
    session.hover(2, &url, at);
    session.cancel(2);
    // The same request again, not cancelled: answered after compiling.
    session.hover(3, &url, at);
    let output = session.run();
    let (cancelled, response) = answer(&output, 2);
    assert_eq!(code(response), Some(-32800), "{response:?}");
    let compiled = published(&output, &url, 2);
    assert!(
        cancelled < compiled,
        "answered before the compilation of what changed: {output:#?}"
    );
    let (served, response) = answer(&output, 3);
    assert_eq!(code(response), None, "{response:?}");
    assert!(compiled < served);
    // The cancellation of a request already answered changes nothing.
    let mut client = Client::start(json!({ "target": ["structured_output"] }));
    client.open(&url, &text);
    client.diagnostics(&url);
    let (line, character) = position(&text, "inputs.clause_id", 0);
    let hover = client.at("textDocument/hover", &url, (line, character + 8));
    client.notify("$/cancelRequest", json!({ "id": 2 }));
    assert_eq!(
        client.at("textDocument/hover", &url, (line, character + 8)),
        hover
    );
    client.shutdown();
}

#[test]
fn a_request_superseded_by_a_newer_version_is_answered_32801_without_its_work() {
    let pkg = Package::crm3();
    let url = pkg.url(EXTRACTION);
    let text = pkg.text(EXTRACTION);
    let (broken, at) = misspelt(&text);
    let mut session = Session::new();
    session.open(&url, &text);
    session.hover(2, &url, at);
    session.replace(&url, 2, &broken);
    session.hover(3, &url, at);
    let output = session.run();
    let (superseded, response) = answer(&output, 2);
    assert_eq!(code(response), Some(-32801), "{response:?}");
    // Not even version 1 was compiled for it.
    assert!(superseded < published(&output, &url, 2), "{output:#?}");
    assert!(
        !output.iter().any(|m| matches!(m, Message::Notification(n)
            if n.method == "textDocument/publishDiagnostics" && n.params["version"] == 1)),
        "version 1 is never compiled: {output:#?}"
    );
    let (_, response) = answer(&output, 3);
    let hover = response.response_result.as_ref().unwrap();
    assert_eq!(hover, &Value::Null, "`inputs.nmae` declares nothing");
}

#[test]
fn other_requests_cancellations_and_documents_drop_nothing() {
    let pkg = Package::crm3();
    let url = pkg.url(EXTRACTION);
    let partial = pkg.url(PARTIAL);
    let text = pkg.text(EXTRACTION);
    let (line, character) = position(&text, "inputs.clause_id", 0);
    let mut session = Session::new();
    session.open(&url, &text);
    session.open(&partial, &pkg.text(PARTIAL));
    session.hover(2, &url, (line, character + 8));
    session.cancel(3);
    session.replace(&partial, 2, &pkg.text(PARTIAL));
    session.request(
        3,
        "textDocument/documentSymbol",
        json!({ "textDocument": { "uri": url } }),
    );
    session.replace(&partial, 3, &pkg.text(PARTIAL));
    let output = session.run();
    let (_, response) = answer(&output, 2);
    let hover = response.response_result.as_ref().unwrap();
    assert!(
        hover["contents"]["value"]
            .as_str()
            .unwrap()
            .starts_with("`inputs.clause_id`"),
        "{hover}"
    );
    // The cancellation came before request 3: it names no pending request.
    let (_, response) = answer(&output, 3);
    assert_eq!(code(response), None, "{response:?}");
}
