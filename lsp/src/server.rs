//! The protocol loop: the initialize handshake, then one message at a time.

use crate::init::{Client, Init, capabilities, default_docs};
use crate::queue::{Pending, Queue, Token};
use crate::requests::{self, Failure, Session};
use crate::transport::Transport;
use crate::workspace::{Publication, Workspace};
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::{
    DidChangeWatchedFiles, Exit, LogMessage, Notification as _, PublishDiagnostics, ShowMessage,
};
use lsp_types::request::{Initialize, RegisterCapability, Request as _, Shutdown};
use lsp_types::{
    DidChangeWatchedFilesRegistrationOptions, FileSystemWatcher, GlobPattern, LogMessageParams,
    MessageType, PublishDiagnosticsParams, Registration, RegistrationParams, ShowMessageParams,
};
use serde_json::Value;
use std::panic::{AssertUnwindSafe, catch_unwind};
use templiqx_contracts::CapabilityProfile;

/// What stops the server: a broken connection or a protocol error.
pub type Error = Box<dyn std::error::Error + Send + Sync>;

/// How the server is started (`templiqx lsp`'s command line).
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The target capability profile (`--target`). The client's
    /// `initializationOptions.target` takes precedence; with neither,
    /// capability checks are skipped.
    pub target: Option<CapabilityProfile>,
}

/// Serves one client on `connection` until it sends `exit`: the
/// initialize handshake, then diagnostics, hover, completion, go to
/// definition, find references, rename, quick fixes and document symbols.
///
/// The lifecycle is LSP 3.17's ("Initialize Request", "Shutdown Request",
/// "Exit Notification"), leniently: before `initialize`, a request is
/// answered `-32002 ServerNotInitialized` and a notification is dropped;
/// notifications are served from the `initialize` answer on, `initialized`
/// or not; a second `initialize` is answered `-32600 InvalidRequest`, and
/// so is every request after `shutdown`, whose notifications are dropped
/// until `exit`.
///
/// # Errors
/// When the connection breaks (the client goes away without `exit`) or
/// the client exits without asking to shut down first (as the protocol
/// asks, the caller then exits with status 1).
pub fn run(connection: &Connection, options: Options) -> Result<(), Error> {
    let Some((id, params)) = initialize(connection)? else {
        return Err(EXIT_WITHOUT_SHUTDOWN.into());
    };
    let init = Init::parse(&params);
    let target = init.target.or(options.target);
    let default_docs = default_docs();
    let docs = init.docs.clone().unwrap_or_else(|| default_docs.clone());
    let result = serde_json::json!({
        "capabilities": capabilities(init.client),
        "serverInfo": { "name": "templiqx", "version": env!("CARGO_PKG_VERSION") },
    });
    connection
        .sender
        .send(Response::new_ok(id, result).into())?;
    let mut server = Server {
        connection,
        queue: Queue::new(&connection.receiver),
        workspace: Workspace::new(target.clone(), docs.clone()),
        client: init.client,
        next_id: 0,
        shut_down: false,
    };
    if !init.ignored.is_empty() {
        let target_used = match &target {
            Some(t) => format!(
                "the target is {}",
                t.iter()
                    .map(|c| format!("`{c}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            None => "there is no target: capability checks are skipped".to_owned(),
        };
        let target_used = if target.as_ref().is_some_and(|t| t.iter().next().is_none()) {
            "the target is empty: every capability a contract requires is missing".to_owned()
        } else {
            target_used
        };
        let docs_used = match &docs {
            Some(url) => format!("diagnostic codes link to {url}"),
            None => "diagnostic codes carry no link".to_owned(),
        };
        server.notify::<ShowMessage>(ShowMessageParams {
            typ: MessageType::WARNING,
            message: format!(
                "templiqx: ignored in initializationOptions: {}; {target_used}; {docs_used}",
                init.ignored.join("; ")
            ),
        })?;
    } else if target.is_none() {
        server.notify::<ShowMessage>(ShowMessageParams {
            typ: MessageType::INFO,
            message: "templiqx: no target capability profile (initializationOptions.target or `templiqx lsp --target`): capability checks are skipped".to_owned(),
        })?;
    }
    if init.watch {
        server.watch_files()?;
    }
    server.serve()
}

const EXIT_WITHOUT_SHUTDOWN: &str = "the client sent `exit` without `shutdown`";

/// Waits for `initialize` (LSP 3.17, "Initialize Request"): a request
/// before it is answered `-32002 ServerNotInitialized`, a notification is
/// dropped. `None` when the client exits first.
fn initialize(connection: &Connection) -> Result<Option<(RequestId, Value)>, Error> {
    loop {
        let Ok(message) = connection.receiver.recv() else {
            return Err(Closed.into());
        };
        match message {
            Message::Request(r) if r.method == Initialize::METHOD => {
                return Ok(Some((r.id, r.params)));
            }
            Message::Request(r) => {
                let message = format!("expected the initialize request first, got {}", r.method);
                let response =
                    Response::new_err(r.id, ErrorCode::ServerNotInitialized as i32, message);
                connection.sender.send(response.into())?;
            }
            Message::Notification(n) if n.method == Exit::METHOD => return Ok(None),
            Message::Notification(_) | Message::Response(_) => {}
        }
    }
}

/// Serves a client on standard input and output (`templiqx lsp`), framed
/// as LSP 3.17's "Base Protocol" asks. A malformed message is answered
/// with a JSON-RPC error and skipped; a body over 64 MiB is refused and
/// skipped unread (`docs/cli.md`, "lsp").
///
/// # Errors
/// As [`run`], and when standard input ends inside a message (or while
/// looking for a header after a malformed one), or standard output fails.
pub fn run_stdio(options: Options) -> Result<(), Error> {
    run_io(std::io::stdin(), std::io::stdout(), options)
}

/// Serves a client on any pair of byte streams, as [`run_stdio`] serves
/// standard input and output: messages are read from `input` and written
/// to `output`, framed with `Content-Length` headers.
///
/// # Errors
/// As [`run_stdio`].
pub fn run_io<R, W>(input: R, output: W, options: Options) -> Result<(), Error>
where
    R: std::io::Read + Send + 'static,
    W: std::io::Write + Send + 'static,
{
    let (connection, transport) = Transport::start(input, output);
    let result = run(&connection, options);
    drop(connection);
    let input_error = transport.input_error();
    let written = transport.finish();
    match (result, written) {
        (Ok(()), Ok(())) => Ok(()),
        // The output broke first: that is why the server stopped.
        (_, Err(e)) => Err(format!("cannot write the output: {e}").into()),
        (Err(e), Ok(())) if e.is::<Closed>() => match input_error {
            Some(reason) => Err(reason.into()),
            None => Err(e),
        },
        (Err(e), Ok(())) => Err(e),
    }
}

/// The client went away without `exit`.
#[derive(Debug)]
struct Closed;

impl std::fmt::Display for Closed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the client closed the connection without `exit`")
    }
}

impl std::error::Error for Closed {}

struct Server<'a> {
    connection: &'a Connection,
    /// The client's messages, read ahead when a request may be dropped.
    queue: Queue<'a>,
    workspace: Workspace,
    client: Client,
    next_id: i32,
    /// Whether `shutdown` was answered: only `exit` is served.
    shut_down: bool,
}

impl Server<'_> {
    fn serve(&mut self) -> Result<(), Error> {
        loop {
            let Some(message) = self.queue.next() else {
                return Err(Closed.into());
            };
            match message {
                Message::Request(request) => {
                    let response = if self.shut_down {
                        Response::new_err(
                            request.id,
                            ErrorCode::InvalidRequest as i32,
                            format!(
                                "the server is shut down: only `exit` may follow `shutdown`, got {}",
                                request.method
                            ),
                        )
                    } else if request.method == Shutdown::METHOD {
                        self.shut_down = true;
                        Response::new_ok(request.id, Value::Null)
                    } else if request.method == Initialize::METHOD {
                        Response::new_err(
                            request.id,
                            ErrorCode::InvalidRequest as i32,
                            "the server is already initialized: `initialize` may be sent once"
                                .to_owned(),
                        )
                    } else {
                        self.request(request)?
                    };
                    self.connection.sender.send(response.into())?;
                }
                Message::Notification(notification) => {
                    if notification.method == Exit::METHOD {
                        return if self.shut_down {
                            Ok(())
                        } else {
                            Err(EXIT_WITHOUT_SHUTDOWN.into())
                        };
                    }
                    if self.shut_down {
                        continue;
                    }
                    if let Err(message) =
                        crate::notifications::serve(&mut self.workspace, notification)
                    {
                        self.notify::<LogMessage>(LogMessageParams {
                            typ: MessageType::ERROR,
                            message,
                        })?;
                    }
                }
                Message::Response(_) => {}
            }
            // Coalesce a burst of edits: compile once the queue is empty.
            if !self.shut_down && self.queue.is_empty() {
                self.flush()?;
            }
        }
    }

    fn notify<N: lsp_types::notification::Notification>(
        &self,
        params: N::Params,
    ) -> Result<(), Error> {
        let notification = Notification::new(N::METHOD.to_owned(), params);
        self.connection.sender.send(notification.into())?;
        Ok(())
    }

    /// Asks the client to report changes of YAML files on disk (a `git
    /// checkout`, another editor).
    fn watch_files(&mut self) -> Result<(), Error> {
        let options = DidChangeWatchedFilesRegistrationOptions {
            watchers: vec![FileSystemWatcher {
                glob_pattern: GlobPattern::String("**/*.{yaml,yml}".to_owned()),
                kind: None,
            }],
        };
        let params = RegistrationParams {
            registrations: vec![Registration {
                id: "templiqx-watch-yaml".to_owned(),
                method: DidChangeWatchedFiles::METHOD.to_owned(),
                register_options: serde_json::to_value(options).ok(),
            }],
        };
        self.next_id += 1;
        let request = Request::new(
            RequestId::from(format!("templiqx-{}", self.next_id)),
            RegisterCapability::METHOD.to_owned(),
            params,
        );
        self.connection.sender.send(request.into())?;
        Ok(())
    }

    /// Recompiles what changed and publishes the diagnostics. A panic (a
    /// bug) is reported to the client, never fatal.
    fn flush(&mut self) -> Result<(), Error> {
        if !self.workspace.is_dirty() {
            return Ok(());
        }
        let workspace = &mut self.workspace;
        let publications = match catch_unwind(AssertUnwindSafe(|| workspace.flush())) {
            Ok(p) => p,
            Err(_) => {
                return self.notify::<ShowMessage>(ShowMessageParams {
                    typ: MessageType::ERROR,
                    message:
                        "templiqx: internal error while compiling (please report it with the file)"
                            .to_owned(),
                });
            }
        };
        for Publication {
            url,
            version,
            diagnostics,
        } in publications
        {
            self.notify::<PublishDiagnostics>(PublishDiagnosticsParams {
                uri: url,
                diagnostics,
                version,
            })?;
        }
        self.workspace.release();
        Ok(())
    }

    /// Answers a request with its handler, from what the editor shows now
    /// (what changed is compiled first), unless a message that arrived
    /// after it drops it (`crate::queue`): it is then answered `-32800` or
    /// `-32801` without its work, checked before the compilation, before
    /// the handler, and by the handler's long loops. A panic (a bug) is
    /// answered `-32603 InternalError`, never fatal.
    fn request(&mut self, request: Request) -> Result<Response, Error> {
        let id = request.id.clone();
        let pending = Pending::of(&request);
        if let Some(dropped) = self.queue.dropped(&pending) {
            return Ok(refused(id, Failure::from(dropped)));
        }
        self.flush()?;
        if let Some(dropped) = self.queue.dropped(&pending) {
            return Ok(refused(id, Failure::from(dropped)));
        }
        let token = Token::new(&self.queue, &pending);
        let session = Session {
            workspace: &self.workspace,
            client: self.client,
            token: &token,
        };
        let answer = catch_unwind(AssertUnwindSafe(|| requests::answer(&session, request)));
        Ok(match answer {
            Ok(Ok(value)) => Response::new_ok(id, value),
            Ok(Err(failure)) => refused(id, failure),
            Err(_) => Response::new_err(
                id,
                ErrorCode::InternalError as i32,
                "templiqx: internal error (please report it with the file)".to_owned(),
            ),
        })
    }
}

/// The error answer of a request.
fn refused(id: RequestId, failure: Failure) -> Response {
    Response::new_err(id, failure.code as i32, failure.message)
}
