//! The editor's side of the protocol, shared by the protocol tests: a copy
//! of the CRM3 example package in a temporary directory and a client that
//! drives the server over an in-memory connection.

#![allow(dead_code)]

use lsp_server::{Connection, Message, Notification, Request, RequestId};
use lsp_types::Url;
use serde_json::{Value, json};
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::thread::JoinHandle;
use std::time::Duration;

pub const TIMEOUT: Duration = Duration::from_secs(20);

/// A copy of `examples/crm3` (never the repository's own files).
pub struct Package {
    _dir: tempfile::TempDir,
    pub root: PathBuf,
}

impl Package {
    pub fn crm3() -> Package {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap().join("crm3");
        let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/crm3");
        templiqx_conformance_suites::copy_tree(&source, &root);
        Package { _dir: dir, root }
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    pub fn url(&self, rel: &str) -> Url {
        Url::from_file_path(self.path(rel)).unwrap()
    }

    pub fn text(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path(rel)).unwrap()
    }
}

/// The editor's side of the connection.
pub struct Client {
    connection: Connection,
    server: Option<JoinHandle<Result<(), String>>>,
    next_id: i32,
    /// Notifications received while waiting for something else.
    pub pending: VecDeque<Notification>,
    /// The `initialize` result.
    pub capabilities: Value,
}

impl Client {
    pub fn start(initialization_options: Value) -> Client {
        Client::start_with(json!({}), initialization_options)
    }

    /// A client that announces `capabilities` (`initialize`'s
    /// `capabilities`).
    pub fn start_with(capabilities: Value, initialization_options: Value) -> Client {
        let (server, connection) = Connection::memory();
        let handle = std::thread::spawn(move || {
            templiqx_lsp::run(&server, templiqx_lsp::Options::default()).map_err(|e| e.to_string())
        });
        let mut client = Client {
            connection,
            server: Some(handle),
            next_id: 0,
            pending: VecDeque::new(),
            capabilities: Value::Null,
        };
        let result = client.request(
            "initialize",
            json!({
                "processId": null,
                "rootUri": null,
                "capabilities": capabilities,
                "initializationOptions": initialization_options,
            }),
        );
        client.capabilities = result["capabilities"].clone();
        client.notify("initialized", json!({}));
        client
    }

    pub fn notify(&self, method: &str, params: Value) {
        let n = Notification::new(method.to_owned(), params);
        self.connection.sender.send(n.into()).unwrap();
    }

    pub fn request(&mut self, method: &str, params: Value) -> Value {
        self.try_request(method, params)
            .unwrap_or_else(|e| panic!("{method}: {e:?}"))
    }

    /// A request whose answer may be an error.
    pub fn try_request(
        &mut self,
        method: &str,
        params: Value,
    ) -> Result<Value, lsp_server::ResponseError> {
        self.next_id += 1;
        let id = RequestId::from(self.next_id);
        let r = Request::new(id.clone(), method.to_owned(), params);
        self.connection.sender.send(r.into()).unwrap();
        loop {
            match self.connection.receiver.recv_timeout(TIMEOUT).unwrap() {
                Message::Response(r) if r.id == id => return r.response_result,
                Message::Notification(n) => self.pending.push_back(n),
                other => panic!("unexpected {other:?}"),
            }
        }
    }

    /// The next notification with this method.
    pub fn next(&mut self, method: &str) -> Value {
        if let Some(i) = self.pending.iter().position(|n| n.method == method) {
            return self.pending.remove(i).unwrap().params;
        }
        loop {
            match self.connection.receiver.recv_timeout(TIMEOUT) {
                Ok(Message::Notification(n)) if n.method == method => return n.params,
                Ok(Message::Notification(n)) => self.pending.push_back(n),
                Ok(other) => panic!("unexpected {other:?}"),
                Err(e) => panic!("no {method}: {e}"),
            }
        }
    }

    /// The next diagnostics published for `url`.
    pub fn diagnostics(&mut self, url: &Url) -> Vec<Value> {
        loop {
            let p = self.next("textDocument/publishDiagnostics");
            if p["uri"] == url.as_str() {
                return p["diagnostics"].as_array().unwrap().clone();
            }
        }
    }

    pub fn open(&self, url: &Url, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({ "textDocument": { "uri": url, "languageId": "yaml", "version": 1, "text": text } }),
        );
    }

    /// Replaces the whole text (full sync).
    pub fn replace(&self, url: &Url, version: i32, text: &str) {
        self.notify(
            "textDocument/didChange",
            json!({
                "textDocument": { "uri": url, "version": version },
                "contentChanges": [{ "text": text }],
            }),
        );
    }

    /// Replaces a range (incremental sync).
    pub fn edit(&self, url: &Url, version: i32, range: Value, text: &str) {
        self.notify(
            "textDocument/didChange",
            json!({
                "textDocument": { "uri": url, "version": version },
                "contentChanges": [{ "range": range, "text": text }],
            }),
        );
    }

    pub fn at(&mut self, method: &str, url: &Url, position: (u32, u32)) -> Value {
        self.request(
            method,
            json!({
                "textDocument": { "uri": url },
                "position": { "line": position.0, "character": position.1 },
            }),
        )
    }

    pub fn shutdown(mut self) {
        self.request("shutdown", Value::Null);
        self.notify("exit", Value::Null);
        let result = self.server.take().unwrap().join().unwrap();
        assert_eq!(result, Ok(()));
    }
}

/// The protocol position (line, UTF-16 character) of the `nth` occurrence
/// of `needle` in `text`, plus `delta` characters.
pub fn position(text: &str, needle: &str, nth: usize) -> (u32, u32) {
    let offset = text.match_indices(needle).nth(nth).unwrap().0;
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let line = text[..offset].matches('\n').count();
    let character = text[line_start..offset].encode_utf16().count();
    (line as u32, character as u32)
}

pub fn codes(diagnostics: &[Value]) -> Vec<&str> {
    diagnostics
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect()
}

pub const EXTRACTION: &str = "contracts/lease-term-extraction.yaml";
pub const PARTIAL: &str = "partials/grounding-rules.yaml";

/// A client started with `initialization_options`, with `rel` of a fresh
/// CRM3 copy open and its first diagnostics read: the package, the
/// document's URL and text, and the client.
pub fn crm3_open(rel: &str, initialization_options: Value) -> (Package, Url, String, Client) {
    let pkg = Package::crm3();
    let url = pkg.url(rel);
    let text = pkg.text(rel);
    let mut client = Client::start(initialization_options);
    client.open(&url, &text);
    client.diagnostics(&url);
    (pkg, url, text, client)
}

/// `app` includes `partials/sig.yaml` from its dependency `lib`.
pub fn app_and_lib() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let outer = dir.path().canonicalize().unwrap();
    let (app, lib) = (outer.join("app"), outer.join("lib"));
    let write = |path: PathBuf, text: &str| {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        app.join("templiqx.yaml"),
        "api_version: templiqx/v1alpha1\npackage: app\nversion: 0.1.0\ncontracts: [main]\ndependencies:\n  common: ../lib\n",
    );
    write(
        app.join("contracts/main.yaml"),
        "api_version: templiqx/v1alpha1\nid: main\nversion: 0.1.0\ninputs:\n  name: { schema: { type: string }, required: true }\ncapabilities: [structured_output]\nmessages:\n  - role: user\n    content:\n      - { kind: include, path: partials/sig.yaml, from_dependency: common }\noutput_schema: { type: object }\n",
    );
    write(
        lib.join("templiqx.yaml"),
        "api_version: templiqx/v1alpha1\npackage: common\nversion: 1.0.0\ncontracts: []\n",
    );
    write(
        lib.join("partials/sig.yaml"),
        "- { kind: text, value: signature }\n",
    );
    (dir, app, lib)
}
