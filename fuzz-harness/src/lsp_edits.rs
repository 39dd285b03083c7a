//! The language server under edits: `templiqx lsp` fed a session an editor
//! could send, built from bytes.
//!
//! Properties (`docs/cli.md`, "lsp": a half-typed file gets its
//! `TQX_PARSE_YAML`; `docs/decisions.md`, "Fuzzing and differential
//! tests"):
//!
//! - nothing panics: neither outside the server's own guards (the panic
//!   reaches the harness) nor inside them — an `InternalError` response or
//!   a `window/showMessage` of type error saying "internal error" is a
//!   panic the server caught, and counts as a crash;
//! - the server answers every request exactly once and, after `shutdown`
//!   and `exit`, returns `Ok`;
//! - every published diagnostic has a `TQX_*` code, a non-empty message and
//!   a range whose start is not after its end.
//!
//! Requests the server does not implement (yet) may answer
//! `MethodNotFound`; any other error but `InternalError` is a refusal, not
//! a crash.
//!
//! # Input layout
//!
//! `head text NUL ops` (without a NUL, all of the rest is the text and
//! there are no operations):
//!
//! - `head`, one byte: bits 0–2 pick the document (see [`DOCUMENTS`]; a
//!   contract, the partial, the manifest or an eval fixture of a copy of
//!   `examples/crm3`, a new contract in that package, a contract outside
//!   any package); bit 3 set starts the server without a target profile
//!   (else `initializationOptions.target` is `["structured_output"]`).
//! - `text`: the document's text when it is opened (lossy UTF-8); empty
//!   means its text on disk.
//! - `ops`: operations, each a byte `k` (`k % 16` picks it) and its
//!   operands; operands missing at the end of the input read as zero or
//!   empty:
//!
//! | `k % 16` | operation | operands |
//! |---|---|---|
//! | 0 | incremental edit | range, text |
//! | 1 | insertion | position, text |
//! | 2 | deletion | range |
//! | 3 | full replacement | `r`: below `0x80`, the disk text of document `r`; else a 2-byte little-endian length and that many bytes |
//! | 4 | two incremental edits in one change | range, text, range, text |
//! | 5 | hover | position |
//! | 6 | go to definition | position |
//! | 7 | document symbols | |
//! | 8 | completion | position |
//! | 9 | find references | position, a byte (bit 0: include the declaration) |
//! | 10 | prepare rename | position |
//! | 11 | rename | position, text (the new name) |
//! | 12 | code actions | range, a byte (bit 0: with a `TQX_REF_UNKNOWN` diagnostic at the range in the context) |
//! | 13 | open another document (it becomes the edited one) | a document byte |
//! | 14 | save (bit 0 clear) or close the edited document | a byte |
//! | 15 | a file changed on disk (`workspace/didChangeWatchedFiles`) | a document byte |
//!
//! A position is two numbers, line and UTF-16 character, each one byte, or
//! `0xFF` followed by a 4-byte little-endian `u32` (positions far out of
//! range). A range is two positions (its start may come after its end). A
//! text is one byte `t`: below `0x80`, fragment `t` of [`TOKENS`] (YAML
//! punctuation, reference paths, node kinds, non-ASCII and astral
//! characters, line breaks of every kind); else the next `t - 0x80` bytes
//! (lossy UTF-8).
//!
//! The whole session is queued before the server runs, and the server runs
//! on the calling thread, so a run is deterministic: a burst of
//! notifications is compiled once, at the next request (a final
//! `documentSymbol` request makes sure the last edits are compiled).

use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId};
use lsp_types::Url;
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::{Outcome, repo_root};

/// The documents an input can open, relative to the package copy (the
/// last one is relative to the directory that holds the package).
pub const DOCUMENTS: [&str; 7] = [
    "crm3/contracts/lease-term-extraction.yaml",
    "crm3/contracts/lease-summary-drafting.yaml",
    "crm3/partials/grounding-rules.yaml",
    "crm3/templiqx.yaml",
    "crm3/evals/extraction-request.json",
    "crm3/contracts/new-contract.yaml",
    "lone-contract.yaml",
];

/// The text fragments a one-byte text below `0x80` picks.
pub const TOKENS: &[&str] = &[
    "",
    "\n",
    " ",
    "  ",
    "      ",
    "- ",
    ": ",
    "{ ",
    " }",
    "[",
    "]",
    ", ",
    "\"",
    "'",
    "#",
    "&a ",
    "*a",
    "!!str ",
    "inputs.",
    "context.",
    "inputs.nmae",
    "inputs.clause_id",
    "inputs.lease_terms.evidence",
    "context.matter_reference",
    "field",
    "output.",
    "kind: ref",
    "kind: interpolate",
    "kind: include",
    "kind: for_each",
    "kind: when",
    "kind: text",
    "kind: component",
    "kind: literal",
    "path: ",
    "partials/grounding-rules.yaml",
    "../",
    "filters: [trim]",
    "filters: [json, upper]",
    "expression: { kind: ref, path: inputs.document_id }",
    "- kind: include\n        path: partials/grounding-rules.yaml\n",
    "      - kind: interpolate\n        expression: { kind: ref, path: inputs.nmae }\n",
    "- { kind: interpolate, expression: { kind: ref, path: inputs.nmae } }\n",
    "components:\n  c:\n    parameters: {}\n    content: []\n",
    "capabilities: [structured_output]",
    "capabilities: [streaming, tools]",
    "extensions:\n  x: { capability: vision }\n",
    "api_version: templiqx/v1alpha1\n",
    "id: lease-term-extraction\n",
    "contracts:\n  - lease-term-extraction\n",
    "contracts:\n  - new-contract\n",
    "dependencies:\n  dep: ../crm3\n",
    "from_dependency: dep",
    "$ref: ",
    "type: object",
    "type: array",
    "required: true",
    "schema: { type: string }",
    "properties:",
    "evals:\n  - id: e\n",
    "null",
    "~",
    "---\n",
    "...\n",
    "99999999999999999999999",
    "|\n  ",
    ">-\n  ",
    "\r\n",
    "\r",
    "\t",
    "é",
    "€",
    "𝄞",
    "😀",
    "\u{FEFF}",
    "\u{0}",
    "\u{2028}",
    "\u{10FFFF}",
];

/// A copy of `examples/crm3` (its package files, without the scenarios)
/// under a temporary directory made once per process; returns the
/// directory that holds `crm3/`. The server never writes to it.
fn workspace() -> &'static Path {
    static DIR: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    let (_, path) = DIR.get_or_init(|| {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let root = dir.path().canonicalize().expect("a real path");
        let source = repo_root().join("examples/crm3");
        for part in ["contracts", "partials", "evals"] {
            templiqx_conformance_suites::copy_tree(
                &source.join(part),
                &root.join("crm3").join(part),
            );
        }
        std::fs::copy(
            source.join("templiqx.yaml"),
            root.join("crm3/templiqx.yaml"),
        )
        .expect("copy the manifest");
        (dir, root)
    });
    path
}

/// Reads operands from the input; past its end, zeros and empty texts.
struct Reader<'a> {
    data: &'a [u8],
}

impl Reader<'_> {
    fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    fn byte(&mut self) -> u8 {
        match self.data.split_first() {
            Some((b, rest)) => {
                self.data = rest;
                *b
            }
            None => 0,
        }
    }

    fn bytes(&mut self, n: usize) -> &[u8] {
        let (taken, rest) = self.data.split_at(n.min(self.data.len()));
        self.data = rest;
        taken
    }

    fn number(&mut self) -> u32 {
        match self.byte() {
            0xFF => {
                let mut le = [0u8; 4];
                for (slot, b) in le.iter_mut().zip(self.bytes(4)) {
                    *slot = *b;
                }
                u32::from_le_bytes(le)
            }
            b => u32::from(b),
        }
    }

    fn position(&mut self) -> Value {
        let line = self.number();
        let character = self.number();
        json!({ "line": line, "character": character })
    }

    fn range(&mut self) -> Value {
        json!({ "start": self.position(), "end": self.position() })
    }

    fn text(&mut self) -> String {
        match self.byte() {
            t @ 0..0x80 => TOKENS[usize::from(t) % TOKENS.len()].to_owned(),
            t => String::from_utf8_lossy(self.bytes(usize::from(t - 0x80))).into_owned(),
        }
    }
}

/// One document of [`DOCUMENTS`]: its path and URL.
fn document(selector: u8) -> (PathBuf, Url) {
    let path = workspace().join(DOCUMENTS[usize::from(selector) % DOCUMENTS.len()]);
    let url = Url::from_file_path(&path).expect("an absolute path");
    (path, url)
}

/// The text of a file on disk; empty when there is none.
fn disk_text(path: &Path) -> String {
    std::fs::read(path)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default()
}

/// The client's side: the messages it queues for the server.
struct Session {
    client: Connection,
    next_id: i32,
    requests: BTreeSet<RequestId>,
    version: i32,
    url: Url,
}

impl Session {
    fn notify(&self, method: &str, params: Value) {
        let n = Notification::new(method.to_owned(), params);
        self.client.sender.send(n.into()).expect("queue a message");
    }

    fn request(&mut self, method: &str, params: Value) {
        self.next_id += 1;
        let id = RequestId::from(self.next_id);
        self.requests.insert(id.clone());
        let r = Request::new(id, method.to_owned(), params);
        self.client.sender.send(r.into()).expect("queue a message");
    }

    fn open(&mut self, selector: u8, text: Option<String>) {
        let (path, url) = document(selector);
        let text = text.unwrap_or_else(|| disk_text(&path));
        self.version += 1;
        self.notify(
            "textDocument/didOpen",
            json!({ "textDocument": {
                "uri": url, "languageId": "yaml", "version": self.version, "text": text,
            } }),
        );
        self.url = url;
    }

    fn change(&mut self, changes: Vec<Value>) {
        self.version += 1;
        self.notify(
            "textDocument/didChange",
            json!({
                "textDocument": { "uri": self.url, "version": self.version },
                "contentChanges": changes,
            }),
        );
    }

    fn at(&mut self, method: &str, position: Value, extra: Value) {
        let mut params = json!({
            "textDocument": { "uri": self.url },
            "position": position,
        });
        if let (Some(params), Value::Object(extra)) = (params.as_object_mut(), extra) {
            params.extend(extra);
        }
        self.request(method, params);
    }

    /// Queues the operation `k` with its operands.
    fn operation(&mut self, k: u8, r: &mut Reader<'_>) {
        match k % 16 {
            0 => {
                let change = json!({ "range": r.range(), "text": r.text() });
                self.change(vec![change]);
            }
            1 => {
                let at = r.position();
                let change = json!({ "range": { "start": at, "end": at }, "text": r.text() });
                self.change(vec![change]);
            }
            2 => self.change(vec![json!({ "range": r.range(), "text": "" })]),
            3 => {
                let text = match r.byte() {
                    d @ 0..0x80 => disk_text(&document(d).0),
                    _ => {
                        let len = u16::from_le_bytes([r.byte(), r.byte()]);
                        String::from_utf8_lossy(r.bytes(usize::from(len))).into_owned()
                    }
                };
                self.change(vec![json!({ "text": text })]);
            }
            4 => {
                let first = json!({ "range": r.range(), "text": r.text() });
                let second = json!({ "range": r.range(), "text": r.text() });
                self.change(vec![first, second]);
            }
            5 => self.at("textDocument/hover", r.position(), Value::Null),
            6 => self.at("textDocument/definition", r.position(), Value::Null),
            7 => self.request(
                "textDocument/documentSymbol",
                json!({ "textDocument": { "uri": self.url } }),
            ),
            8 => self.at("textDocument/completion", r.position(), Value::Null),
            9 => {
                let at = r.position();
                let context = json!({ "context": { "includeDeclaration": r.byte() & 1 == 1 } });
                self.at("textDocument/references", at, context);
            }
            10 => self.at("textDocument/prepareRename", r.position(), Value::Null),
            11 => {
                let at = r.position();
                let name = json!({ "newName": r.text() });
                self.at("textDocument/rename", at, name);
            }
            12 => {
                let range = r.range();
                let diagnostics = if r.byte() & 1 == 1 {
                    json!([{
                        "range": range,
                        "severity": 1,
                        "code": "TQX_REF_UNKNOWN",
                        "source": "templiqx",
                        "message": "`inputs` declares no field `nmae`\nhelp: did you mean `inputs.name`?",
                    }])
                } else {
                    json!([])
                };
                self.request(
                    "textDocument/codeAction",
                    json!({
                        "textDocument": { "uri": self.url },
                        "range": range,
                        "context": { "diagnostics": diagnostics },
                    }),
                );
            }
            13 => {
                let d = r.byte();
                self.open(d, None);
            }
            14 => {
                let method = if r.byte() & 1 == 0 {
                    "textDocument/didSave"
                } else {
                    "textDocument/didClose"
                };
                self.notify(method, json!({ "textDocument": { "uri": self.url } }));
            }
            _ => {
                let (_, url) = document(r.byte());
                self.notify(
                    "workspace/didChangeWatchedFiles",
                    json!({ "changes": [{ "uri": url, "type": 2 }] }),
                );
            }
        }
    }
}

/// At most this many operations are read from one input.
const MAX_OPERATIONS: usize = 256;

/// Runs one session (see the module docs for the layout and properties).
///
/// Returns [`Outcome::Accepted`] when the last diagnostics published for
/// the document edited last are empty (its package compiles as edited),
/// else [`Outcome::Rejected`].
///
/// # Panics
/// When a property fails: the crash the fuzzer reports.
pub fn lsp_edits(data: &[u8]) -> Outcome {
    let Some((&head, rest)) = data.split_first() else {
        return Outcome::Rejected;
    };
    let (text, ops) = match rest.iter().position(|b| *b == 0) {
        Some(at) => (&rest[..at], &rest[at + 1..]),
        None => (rest, &rest[rest.len()..]),
    };
    let (server, client) = Connection::memory();
    let (_, url) = document(head);
    let mut session = Session {
        client,
        next_id: 0,
        requests: BTreeSet::new(),
        version: 0,
        url,
    };
    let target = if head & 0b1000 == 0 {
        json!({ "target": ["structured_output"] })
    } else {
        Value::Null
    };
    session.request(
        "initialize",
        json!({
            "processId": null,
            "rootUri": null,
            "capabilities": {},
            "initializationOptions": target,
        }),
    );
    session.notify("initialized", json!({}));
    let text = (!text.is_empty()).then(|| String::from_utf8_lossy(text).into_owned());
    session.open(head, text);
    let mut reader = Reader { data: ops };
    for _ in 0..MAX_OPERATIONS {
        if reader.is_empty() {
            break;
        }
        let k = reader.byte();
        session.operation(k, &mut reader);
    }
    // Compile what is still pending, then stop.
    session.request(
        "textDocument/documentSymbol",
        json!({ "textDocument": { "uri": session.url } }),
    );
    session.request("shutdown", Value::Null);
    session.notify("exit", Value::Null);

    let result = templiqx_lsp::run(&server, templiqx_lsp::Options::default());
    if let Err(e) = result {
        panic!("the server stopped with an error: {e}");
    }
    drop(server);

    let mut last = None;
    for message in session.client.receiver.try_iter() {
        match message {
            Message::Response(r) => {
                assert!(
                    session.requests.remove(&r.id),
                    "a response to no request, or a second one: {r:?}"
                );
                if let Err(e) = &r.response_result {
                    assert_ne!(
                        e.code,
                        ErrorCode::InternalError as i32,
                        "the server caught a panic: {e:?}"
                    );
                }
            }
            Message::Notification(n) => match n.method.as_str() {
                "window/showMessage" => {
                    let message = n.params["message"].as_str().unwrap_or_default();
                    assert!(
                        !(n.params["type"] == 1 && message.contains("internal error")),
                        "the server caught a panic: {message}"
                    );
                }
                "textDocument/publishDiagnostics" => {
                    let diagnostics = n.params["diagnostics"]
                        .as_array()
                        .unwrap_or_else(|| panic!("no diagnostics array: {}", n.params));
                    diagnostics.iter().for_each(check_diagnostic);
                    if n.params["uri"] == session.url.as_str() {
                        last = Some(diagnostics.is_empty());
                    }
                }
                _ => {}
            },
            Message::Request(_) => {}
        }
    }
    assert!(
        session.requests.is_empty(),
        "requests without a response: {:?}",
        session.requests
    );
    if last == Some(true) {
        Outcome::Accepted
    } else {
        Outcome::Rejected
    }
}

/// Panics unless a published diagnostic has a `TQX_*` code, a non-empty
/// message and a range that does not end before it starts.
fn check_diagnostic(d: &Value) {
    let code = d["code"].as_str().unwrap_or_default();
    assert!(code.starts_with("TQX_"), "a diagnostic without a code: {d}");
    let message = d["message"].as_str().unwrap_or_default();
    assert!(!message.trim().is_empty(), "an empty message: {d}");
    let at = |p: &Value| (p["line"].as_u64(), p["character"].as_u64());
    let (start, end) = (at(&d["range"]["start"]), at(&d["range"]["end"]));
    assert!(
        start.0.is_some() && start.1.is_some() && start <= end,
        "a malformed range: {d}"
    );
}
