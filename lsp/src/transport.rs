//! The byte stream under the protocol: `Content-Length` framed JSON-RPC
//! messages (LSP 3.17, "Base Protocol"), read and written by two threads
//! that feed a [`Connection`].
//!
//! The reader never trusts the stream: a header line is read up to
//! [`MAX_HEADER_LINE`] bytes, a body up to [`MAX_MESSAGE`] bytes (a larger
//! one is refused and skipped in bounded chunks, never allocated), and a
//! message that cannot be used is answered with a JSON-RPC error (id
//! `null` when the id cannot be known: LSP 3.17, "Response Message")
//! instead of ending the session:
//!
//! * a header block without a usable `Content-Length`, or a body with no
//!   header in front of it: `-32700 Parse error`, then the reader skips to
//!   the next `Content-Length:` header;
//! * a body that is not JSON (or not UTF-8, or holds a lone surrogate):
//!   `-32700 Parse error`;
//! * JSON that is not a request, a notification or a response (`[1,2,3]`,
//!   `{"foo":1}`, an id that is neither an integer nor a string, `params`
//!   that are neither an object nor an array): `-32600 Invalid Request`;
//! * a body over [`MAX_MESSAGE`] bytes: `-32600 Invalid Request`.
//!
//! Only the end of the input ends the reader, and when the input ends
//! inside a message, or while looking for the next header after a
//! malformed one, the reason is kept for the server's final error
//! ([`Transport::input_error`]).

use crossbeam_channel::{Receiver, Sender};
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use serde_json::{Value, json};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;

/// The largest message body the server reads: 64 MiB, far above any
/// contract an editor sends (`docs/cli.md`, "lsp").
pub const MAX_MESSAGE: u64 = 64 << 20;

/// The longest header line the server reads (8 KiB); the rest of a longer
/// line is skipped and the line counts as malformed.
pub(crate) const MAX_HEADER_LINE: usize = 8 << 10;

/// The size of the chunks a refused body is skipped in.
const SKIP_CHUNK: usize = 64 << 10;

/// The two threads of a connection over a byte stream, and why the input
/// ended when it ended badly.
pub(crate) struct Transport {
    writer: JoinHandle<io::Result<()>>,
    input_error: Arc<Mutex<Option<String>>>,
}

/// The output, shared by the writer thread (the server's messages) and the
/// reader thread (its own error replies); a message is written whole under
/// the lock.
type Output<W> = Arc<Mutex<W>>;

impl Transport {
    /// A connection reading messages from `input` and writing them to
    /// `output`, each on its own thread. The reader stops after forwarding
    /// `exit` or at the end of the input; the writer when the server drops
    /// the connection (or the output fails).
    pub(crate) fn start<R, W>(input: R, output: W) -> (Connection, Transport)
    where
        R: Read + Send + 'static,
        W: Write + Send + 'static,
    {
        let (to_server, from_client) = crossbeam_channel::unbounded::<Message>();
        let (to_client, from_server) = crossbeam_channel::unbounded::<Message>();
        let output: Output<W> = Arc::new(Mutex::new(output));
        let input_error = Arc::new(Mutex::new(None));
        {
            let output = Arc::clone(&output);
            let input_error = Arc::clone(&input_error);
            // Never joined: it may be blocked reading an input that never
            // ends, after the server has finished.
            std::thread::spawn(move || {
                let mut reader = Reader {
                    input: BufReader::new(input),
                    output,
                    to_server,
                };
                if let Err(reason) = reader.run() {
                    *input_error.lock().unwrap_or_else(PoisonError::into_inner) = Some(reason);
                }
            });
        }
        let writer = std::thread::spawn(move || write_all(&from_server, &output));
        let connection = Connection {
            sender: to_client,
            receiver: from_client,
        };
        (
            connection,
            Transport {
                writer,
                input_error,
            },
        )
    }

    /// Waits until the server's last messages are written (call it once the
    /// [`Connection`] is dropped).
    pub(crate) fn finish(self) -> io::Result<()> {
        self.writer
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("the output thread panicked")))
    }

    /// Why the input ended, when it ended inside a message or while looking
    /// for a header.
    pub(crate) fn input_error(&self) -> Option<String> {
        self.input_error
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

/// Writes the server's messages until the server drops its sender.
fn write_all<W: Write>(messages: &Receiver<Message>, output: &Output<W>) -> io::Result<()> {
    for message in messages {
        let body = serde_json::to_vec(&message).map_err(io::Error::other)?;
        write_frame(output, &body)?;
    }
    Ok(())
}

fn write_frame<W: Write>(output: &Output<W>, body: &[u8]) -> io::Result<()> {
    let mut output = output.lock().unwrap_or_else(PoisonError::into_inner);
    write!(output, "Content-Length: {}\r\n\r\n", body.len())?;
    output.write_all(body)?;
    output.flush()
}

/// One line of the header block, as read.
enum Line {
    /// The bytes before the line break (`\r\n` or `\n`), at most
    /// [`MAX_HEADER_LINE`] of them; `too_long` when more were skipped.
    Text { bytes: Vec<u8>, too_long: bool },
    /// The end of the input.
    End,
}

/// What reading one message gave.
enum Framed {
    Body(Vec<u8>),
    /// A framing error, answered; the reader skips to the next header.
    Lost,
    /// A body over the limit, answered and skipped.
    Skipped,
    End,
}

struct Reader<R, W> {
    input: BufReader<R>,
    output: Output<W>,
    to_server: Sender<Message>,
}

impl<R: Read, W: Write> Reader<R, W> {
    /// Forwards messages until `exit`, the end of the input or the server
    /// going away. `Err` is why the input ended badly.
    fn run(&mut self) -> Result<(), String> {
        // A header line already read while looking for the next message.
        let mut first: Option<Vec<u8>> = None;
        loop {
            let framed = self.frame(first.take())?;
            let body = match framed {
                Framed::Body(body) => body,
                Framed::Skipped => continue,
                Framed::End => return Ok(()),
                Framed::Lost => {
                    first = Some(self.resynchronise()?);
                    continue;
                }
            };
            let message = match parse(&body) {
                Ok(message) => message,
                Err(reply) => {
                    if self.reply(reply).is_err() {
                        return Ok(());
                    }
                    continue;
                }
            };
            let exit = matches!(&message, Message::Notification(n) if n.method == "exit");
            if self.to_server.send(message).is_err() || exit {
                return Ok(());
            }
        }
    }

    /// Reads one header block and its body. `first` is a header line
    /// already read.
    fn frame(&mut self, mut first: Option<Vec<u8>>) -> Result<Framed, String> {
        let mut length: Option<Result<u64, String>> = None;
        let mut seen_any = false;
        loop {
            let line = match first.take() {
                Some(bytes) => Line::Text {
                    bytes,
                    too_long: false,
                },
                None => self
                    .line()
                    .map_err(|e| format!("cannot read standard input: {e}"))?,
            };
            let (bytes, too_long) = match line {
                Line::End if !seen_any => return Ok(Framed::End),
                Line::End => return Err("the input ended inside a message header".to_owned()),
                Line::Text { bytes, too_long } => (bytes, too_long),
            };
            if bytes.is_empty() && !too_long {
                if !seen_any {
                    // Blank lines between messages are tolerated.
                    continue;
                }
                break;
            }
            seen_any = true;
            let text = String::from_utf8_lossy(&bytes);
            if too_long {
                return self.lost(&format!(
                    "a header line longer than {MAX_HEADER_LINE} bytes"
                ));
            }
            let header = text
                .split_once(':')
                .filter(|(name, _)| is_token(name.trim_end()));
            let Some((name, value)) = header else {
                return self.lost(&format!(
                    "expected a `Content-Length: N` header, got `{}`",
                    excerpt(&text)
                ));
            };
            if name.trim().eq_ignore_ascii_case("content-length") {
                let value = value.trim();
                length = Some(value.parse::<u64>().map_err(|_| {
                    format!("`Content-Length: {}` is not a byte count", excerpt(value))
                }));
            }
            // Other headers (`Content-Type`) are accepted and ignored.
        }
        let length = match length {
            Some(Ok(length)) => length,
            Some(Err(message)) => return self.lost(&message),
            None => return self.lost("a message header without `Content-Length`"),
        };
        if length > MAX_MESSAGE {
            let reply = error(
                Value::Null,
                ErrorCode::InvalidRequest,
                &format!(
                    "a message of {length} bytes is over the limit of {MAX_MESSAGE} bytes (64 MiB); it is skipped"
                ),
            );
            if self.reply(reply).is_err() {
                return Ok(Framed::End);
            }
            self.skip(length)?;
            return Ok(Framed::Skipped);
        }
        let mut body = Vec::new();
        let read = (&mut self.input)
            .take(length)
            .read_to_end(&mut body)
            .map_err(|e| format!("cannot read standard input: {e}"))?;
        if (read as u64) < length {
            return Err(format!(
                "the input ended inside a message: {read} of its {length} bytes came"
            ));
        }
        Ok(Framed::Body(body))
    }

    /// Answers a framing error; the caller resynchronises.
    fn lost(&mut self, why: &str) -> Result<Framed, String> {
        let reply = error(
            Value::Null,
            ErrorCode::ParseError,
            &format!("{why}; skipping to the next `Content-Length` header"),
        );
        if self.reply(reply).is_err() {
            return Ok(Framed::End);
        }
        Ok(Framed::Lost)
    }

    /// Skips input up to the next line that holds a `Content-Length:`
    /// header (a header may follow a body without a line break), and
    /// returns that header line.
    fn resynchronise(&mut self) -> Result<Vec<u8>, String> {
        const NEEDLE: &[u8] = b"content-length:";
        loop {
            match self
                .line()
                .map_err(|e| format!("cannot read standard input: {e}"))?
            {
                Line::End => {
                    return Err(
                        "the input ended while looking for the next message header after a malformed one"
                            .to_owned(),
                    );
                }
                Line::Text { bytes, .. } => {
                    let found = bytes
                        .windows(NEEDLE.len())
                        .position(|w| w.eq_ignore_ascii_case(NEEDLE));
                    if let Some(at) = found {
                        return Ok(bytes[at..].to_vec());
                    }
                }
            }
        }
    }

    /// One line, without its line break, bounded by [`MAX_HEADER_LINE`].
    fn line(&mut self) -> io::Result<Line> {
        let mut bytes = Vec::new();
        let mut too_long = false;
        let mut any = false;
        loop {
            let buffer = match self.input.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if buffer.is_empty() {
                return Ok(if any {
                    Line::Text { bytes, too_long }
                } else {
                    Line::End
                });
            }
            any = true;
            let (chunk, done) = match buffer.iter().position(|&b| b == b'\n') {
                Some(i) => (&buffer[..i], Some(i + 1)),
                None => (buffer, None),
            };
            let room = MAX_HEADER_LINE.saturating_sub(bytes.len());
            if chunk.len() > room {
                too_long = true;
            }
            bytes.extend_from_slice(&chunk[..chunk.len().min(room)]);
            let consumed = done.unwrap_or(buffer.len());
            self.input.consume(consumed);
            if done.is_some() {
                if bytes.last() == Some(&b'\r') {
                    bytes.pop();
                }
                return Ok(Line::Text { bytes, too_long });
            }
        }
    }

    /// Discards `length` bytes of input in bounded chunks.
    fn skip(&mut self, length: u64) -> Result<(), String> {
        let mut left = length;
        let mut chunk = vec![0u8; SKIP_CHUNK];
        while left > 0 {
            let want = usize::try_from(left).map_or(SKIP_CHUNK, |l| l.min(SKIP_CHUNK));
            match self.input.read(&mut chunk[..want]) {
                Ok(0) => {
                    return Err(format!(
                        "the input ended inside a refused message of {length} bytes ({} skipped)",
                        length - left
                    ));
                }
                Ok(n) => left -= n as u64,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(format!("cannot read standard input: {e}")),
            }
        }
        Ok(())
    }

    fn reply(&self, reply: Value) -> io::Result<()> {
        let body = serde_json::to_vec(&reply).map_err(io::Error::other)?;
        write_frame(&self.output, &body)
    }
}

/// A JSON-RPC error response.
fn error(id: Value, code: ErrorCode, message: &str) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": { "code": code as i32, "message": message },
    })
}

/// Whether `name` is a header field name (a `token`, RFC 9110, "Tokens").
fn is_token(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// The first 40 characters of `text`, for a message.
pub(crate) fn excerpt(text: &str) -> String {
    const MAX: usize = 40;
    match text.char_indices().nth(MAX) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

/// The message of a body, or the error to answer it with (LSP 3.17,
/// "Request Message", "Notification Message", "Response Message").
fn parse(body: &[u8]) -> Result<Message, Value> {
    let value: Value = serde_json::from_slice(body).map_err(|e| {
        error(
            Value::Null,
            ErrorCode::ParseError,
            &format!("the message is not JSON: {e}"),
        )
    })?;
    let Value::Object(mut object) = value else {
        let what = match value {
            Value::Array(_) => "an array (batches are not part of the protocol)",
            Value::String(_) => "a string",
            Value::Number(_) => "a number",
            Value::Bool(_) => "a boolean",
            _ => "null",
        };
        return Err(error(
            Value::Null,
            ErrorCode::InvalidRequest,
            &format!("a message must be a JSON object, got {what}"),
        ));
    };
    let raw_id = object.remove("id");
    // The id to answer with: the client's, when it is a valid one.
    let reply_id = match &raw_id {
        Some(id @ (Value::Number(_) | Value::String(_))) => id.clone(),
        _ => Value::Null,
    };
    let invalid = |message: String| error(reply_id.clone(), ErrorCode::InvalidRequest, &message);
    let id = match raw_id {
        None => None,
        Some(Value::Number(n)) => match n.as_i64().and_then(|n| i32::try_from(n).ok()) {
            Some(n) => Some(RequestId::from(n)),
            None => {
                return Err(invalid(format!(
                    "the id {n} is not an integer between -2^31 and 2^31 - 1"
                )));
            }
        },
        Some(Value::String(s)) => Some(RequestId::from(s)),
        Some(other) => {
            return Err(invalid(format!(
                "the id must be an integer or a string, got `{}`",
                excerpt(&other.to_string())
            )));
        }
    };
    let params = object.remove("params").unwrap_or(Value::Null);
    match object.remove("method") {
        Some(Value::String(method)) => {
            if !matches!(params, Value::Object(_) | Value::Array(_) | Value::Null) {
                return Err(invalid(format!(
                    "the params of `{method}` must be an object or an array"
                )));
            }
            Ok(match id {
                Some(id) => Request { id, method, params }.into(),
                None => Notification { method, params }.into(),
            })
        }
        Some(_) => Err(invalid("the method must be a string".to_owned())),
        None => {
            // A response to one of the server's requests.
            let result = object.remove("result");
            let failure = object.remove("error");
            match (id, result, failure) {
                (Some(id), Some(result), None) => Ok(Response {
                    id,
                    response_result: Ok(result),
                }
                .into()),
                (Some(id), None, Some(failure)) => match serde_json::from_value(failure) {
                    Ok(e) => Ok(Response {
                        id,
                        response_result: Err(e),
                    }
                    .into()),
                    Err(e) => Err(invalid(format!("a malformed error response: {e}"))),
                },
                _ => Err(invalid(
                    "expected a request (`id`, `method`), a notification (`method`) or a response (`id` and `result` or `error`)"
                        .to_owned(),
                )),
            }
        }
    }
}
