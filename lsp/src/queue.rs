//! The messages the server has not served yet, read ahead, and what makes
//! a request stop: a `$/cancelRequest` for it, or a newer version of its
//! document (`docs/decisions.md`, "The language server", "Cancellation").
//!
//! The server serves one message at a time, in order. Before it compiles
//! for a request, and again before it runs the request's handler, it reads
//! every message that has arrived into the [`Queue`]'s lookahead and looks
//! there for the request's cancellation and for a `textDocument/didChange`
//! of its document: either, and the request is answered without its work
//! (`-32800 RequestCancelled`, `-32801 ContentModified`, LSP 3.17, "Cancel
//! Support" and "ErrorCodes"). A handler with long loops checks its
//! [`Token`] between their steps, which reads ahead again. The messages
//! read ahead are served later, in their order, as if they had not been
//! looked at.

use crate::workspace::Workspace;
use crossbeam_channel::Receiver;
use lsp_server::{Message, Notification, Request};
use lsp_types::Url;
use lsp_types::notification::{Cancel, DidChangeTextDocument, Notification as _};
use serde_json::Value;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::path::PathBuf;

/// The client's messages, with those read ahead of the one being served.
pub(crate) struct Queue<'c> {
    receiver: &'c Receiver<Message>,
    /// Messages that arrived after the one being served, in order.
    ahead: RefCell<VecDeque<Message>>,
}

impl<'c> Queue<'c> {
    pub(crate) fn new(receiver: &'c Receiver<Message>) -> Queue<'c> {
        Queue {
            receiver,
            ahead: RefCell::new(VecDeque::new()),
        }
    }

    /// The next message to serve: the first one read ahead, else the next
    /// to arrive; `None` when the client's side of the connection is gone.
    pub(crate) fn next(&self) -> Option<Message> {
        let first = self.ahead.borrow_mut().pop_front();
        first.or_else(|| self.receiver.recv().ok())
    }

    /// Whether no message is waiting.
    pub(crate) fn is_empty(&self) -> bool {
        self.ahead.borrow().is_empty() && self.receiver.is_empty()
    }

    /// Why `request` is not to be answered with its work, from the
    /// messages that arrived after it; `None` while it still is.
    pub(crate) fn dropped(&self, request: &Pending) -> Option<Dropped> {
        let mut ahead = self.ahead.borrow_mut();
        ahead.extend(self.receiver.try_iter());
        ahead.iter().find_map(|message| match message {
            Message::Notification(n) => request.dropped_by(n),
            _ => None,
        })
    }
}

/// Why a request is answered without its work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dropped {
    /// The client cancelled it (`$/cancelRequest`): `-32800`.
    Cancelled,
    /// Its document changed after it (`textDocument/didChange`): `-32801`.
    Modified,
}

/// A request being served: its id and its document, as the messages that
/// may drop it name them.
#[derive(Debug)]
pub(crate) struct Pending {
    /// The id, as JSON (a `$/cancelRequest` names it so).
    id: Value,
    /// The URL of `params.textDocument.uri`, with the real path it names.
    document: Option<(String, Option<PathBuf>)>,
}

impl Pending {
    pub(crate) fn of(request: &Request) -> Pending {
        let uri = request
            .params
            .pointer("/textDocument/uri")
            .and_then(Value::as_str);
        Pending {
            id: serde_json::to_value(&request.id).unwrap_or(Value::Null),
            document: uri.map(|uri| (uri.to_owned(), key(uri))),
        }
    }

    /// Whether the notification `n`, which arrived after the request,
    /// drops it.
    fn dropped_by(&self, n: &Notification) -> Option<Dropped> {
        match n.method.as_str() {
            Cancel::METHOD if n.params.get("id") == Some(&self.id) => Some(Dropped::Cancelled),
            DidChangeTextDocument::METHOD => {
                let (url, path) = self.document.as_ref()?;
                let changed = n.params.pointer("/textDocument/uri")?.as_str()?;
                let same = changed == url || path.is_some() && key(changed) == *path;
                same.then_some(Dropped::Modified)
            }
            _ => None,
        }
    }
}

/// The real path a URL names, as the workspace keys documents.
fn key(url: &str) -> Option<PathBuf> {
    Workspace::key(&Url::parse(url).ok()?)
}

/// The cancellation token of the request a handler serves: a long loop
/// checks it between steps and stops with its `Err`.
pub(crate) struct Token<'q> {
    queue: Option<&'q Queue<'q>>,
    request: &'q Pending,
}

impl<'q> Token<'q> {
    pub(crate) fn new(queue: &'q Queue<'q>, request: &'q Pending) -> Token<'q> {
        Token {
            queue: Some(queue),
            request,
        }
    }

    /// A token that never stops its request (for unit tests).
    #[cfg(test)]
    pub(crate) fn never(request: &'q Pending) -> Token<'q> {
        Token {
            queue: None,
            request,
        }
    }

    /// `Err` when the request is cancelled, or its document changed, since
    /// it arrived.
    pub(crate) fn check(&self) -> Result<(), Dropped> {
        match self.queue.and_then(|q| q.dropped(self.request)) {
            Some(dropped) => Err(dropped),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use lsp_server::RequestId;
    use serde_json::json;

    /// A completion request `id` on `uri`.
    pub(crate) fn completion(id: i32, uri: &str) -> Request {
        Request::new(
            RequestId::from(id),
            "textDocument/completion".to_owned(),
            json!({ "textDocument": { "uri": uri }, "position": { "line": 0, "character": 0 } }),
        )
    }

    fn notification(method: &str, params: Value) -> Message {
        Notification::new(method.to_owned(), params).into()
    }

    #[test]
    fn a_later_cancel_or_change_drops_a_request_and_stays_queued() {
        let (sender, receiver) = crossbeam_channel::unbounded();
        let queue = Queue::new(&receiver);
        let request = Pending::of(&completion(7, "file:///p/a.yaml"));
        assert_eq!(queue.dropped(&request), None);
        sender
            .send(notification("$/cancelRequest", json!({ "id": 8 })))
            .unwrap();
        let other = json!({ "textDocument": { "uri": "file:///p/b.yaml", "version": 2 }, "contentChanges": [] });
        sender
            .send(notification("textDocument/didChange", other))
            .unwrap();
        assert_eq!(queue.dropped(&request), None);
        let same = json!({ "textDocument": { "uri": "file:///p/a.yaml", "version": 2 }, "contentChanges": [] });
        sender
            .send(notification("textDocument/didChange", same))
            .unwrap();
        assert_eq!(queue.dropped(&request), Some(Dropped::Modified));
        sender
            .send(notification("$/cancelRequest", json!({ "id": 7 })))
            .unwrap();
        assert_eq!(queue.dropped(&request), Some(Dropped::Modified));
        let cancelled = Pending::of(&completion(7, "file:///p/c.yaml"));
        assert_eq!(queue.dropped(&cancelled), Some(Dropped::Cancelled));
        // Every message read ahead is still served, in order.
        let mut methods = Vec::new();
        while !queue.is_empty() {
            let Some(Message::Notification(n)) = queue.next() else {
                panic!("a notification");
            };
            methods.push(n.method);
        }
        assert_eq!(
            methods,
            [
                "$/cancelRequest",
                "textDocument/didChange",
                "textDocument/didChange",
                "$/cancelRequest"
            ]
        );
    }

    #[test]
    fn string_ids_are_cancelled_too() {
        let (sender, receiver) = crossbeam_channel::unbounded();
        let queue = Queue::new(&receiver);
        let mut request = completion(0, "file:///p/a.yaml");
        request.id = RequestId::from("seven".to_owned());
        let request = Pending::of(&request);
        sender
            .send(notification("$/cancelRequest", json!({ "id": 7 })))
            .unwrap();
        assert_eq!(queue.dropped(&request), None);
        sender
            .send(notification("$/cancelRequest", json!({ "id": "seven" })))
            .unwrap();
        assert_eq!(
            Token::new(&queue, &request).check(),
            Err(Dropped::Cancelled)
        );
        assert_eq!(Token::never(&request).check(), Ok(()));
    }
}
