//! Server-sent events: a `text/event-stream` body read by the rules of the
//! WHATWG HTML Living Standard, section 9.2.6 "Interpreting an event
//! stream".
//!
//! - [`Parser`] takes the body in chunks of any size and yields each
//!   [`Event`] as its blank line arrives;
//! - [`events`] wraps a stream of byte chunks (an HTTP body) into a stream
//!   of events.
//!
//! The work is linear in the size of the body whatever its chunking: every
//! byte is searched for a line end once, a line split across chunks is
//! gathered in one buffer that only grows at its end, and data lines are
//! appended to the event's data without copying what is already there
//! (`docs/decisions.md`, "Server-sent events: our own line splitter").
//!
//! What the standard leaves to the connection (`EventSource`: reconnecting,
//! sending `Last-Event-ID`, waiting `retry` milliseconds) is not done here:
//! [`Event::id`] and [`Event::retry`] carry those values to the caller.

use futures_util::{Stream, StreamExt};
use std::borrow::Cow;

/// One dispatched event (WHATWG HTML, 9.2.6 Interpreting an event stream,
/// "dispatch the event").
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Event {
    /// The event type buffer: the value of the last `event` field of the
    /// event, or `""` when it had none. The standard dispatches an event
    /// without a type as `message` (its default type); this field keeps the
    /// empty string so that a caller can tell the two apart.
    pub event: String,
    /// The data buffer: the values of the event's `data` fields joined by
    /// line feeds (U+000A), without a final one. A lone `data` or `data:`
    /// line gives an event whose data is `""`: the standard dispatches it,
    /// and a caller that has nothing to do with empty data skips it.
    pub data: String,
    /// The last event ID buffer: the value of the last `id` field read so
    /// far in the stream (it carries over to later events, as in the
    /// standard), `None` while the stream has had none. An `id` field whose
    /// value contains U+0000 NULL is ignored; an empty one sets `Some("")`,
    /// which the standard treats as "no last event ID".
    pub id: Option<String>,
    /// The reconnection time in milliseconds from the last valid `retry`
    /// field read since the previous dispatched event, `None` when there
    /// was none. A valid value is one or more ASCII digits, read in base
    /// ten (saturating at `u64::MAX`); any other value is ignored. The
    /// standard applies it to the connection at once; having no
    /// connection, this parser hands it over with the next dispatched
    /// event (so a `retry` in a block without data is not lost).
    pub retry: Option<u64>,
}

/// The byte order mark the UTF-8 decoder removes once at the start of the
/// stream (WHATWG HTML, 9.2.6: the stream is decoded with "UTF-8 decode").
const BOM: &[u8; 3] = b"\xEF\xBB\xBF";

/// An incremental `text/event-stream` parser (WHATWG HTML, 9.2.6
/// Interpreting an event stream).
///
/// Feed the body's bytes in order with [`push`](Parser::push), in chunks of
/// any size (a line end, a CRLF pair, a byte order mark or a multi-byte
/// UTF-8 character may be split between chunks), then call
/// [`finish`](Parser::finish). Lines end at CRLF, LF or CR; each complete
/// line is decoded as UTF-8 with invalid sequences replaced by U+FFFD, as
/// a browser's decoder does. The events are the same however the body is
/// cut into chunks.
#[derive(Debug, Default)]
pub struct Parser {
    /// The bytes of the current line received so far, without its line
    /// end, when the line started in an earlier chunk.
    line: Vec<u8>,
    /// Whether the previous chunk ended with CR, so that an LF at the start
    /// of the next one completes a CRLF pair instead of ending a line.
    after_cr: bool,
    /// Whether the start of the stream has been checked for a byte order
    /// mark.
    bom_checked: bool,
    /// How many bytes of a byte order mark the stream started with so far,
    /// held back until the check is decided.
    bom_matched: usize,
    /// The buffers the fields fill.
    fields: Fields,
}

/// The buffers of WHATWG HTML, 9.2.6, filled by the fields of the lines.
#[derive(Debug, Default)]
struct Fields {
    event: String,
    data: String,
    id: Option<String>,
    retry: Option<u64>,
}

impl Parser {
    /// A parser at the start of a stream.
    pub fn new() -> Parser {
        Parser::default()
    }

    /// Reads the next `chunk` of the stream and appends to `out` every
    /// event it completes (WHATWG HTML, 9.2.6 Interpreting an event
    /// stream), in order.
    ///
    /// Only the bytes of `chunk` are searched for line ends; a line still
    /// open at its end is kept for the next call.
    pub fn push(&mut self, chunk: &[u8], out: &mut Vec<Event>) {
        let mut rest = self.skip_bom(chunk);
        if self.after_cr && !rest.is_empty() {
            self.after_cr = false;
            if rest[0] == b'\n' {
                rest = &rest[1..];
            }
        }
        while let Some(at) = memchr::memchr2(b'\n', b'\r', rest) {
            if self.line.is_empty() {
                self.fields.line(&rest[..at], out);
            } else {
                self.line.extend_from_slice(&rest[..at]);
                self.fields.line(&self.line, out);
                self.line.clear();
                // A long line's buffer is not kept for the short ones that
                // usually follow.
                if self.line.capacity() > 64 * 1024 {
                    self.line = Vec::new();
                }
            }
            let cr = rest[at] == b'\r';
            rest = &rest[at + 1..];
            if cr {
                match rest.first() {
                    Some(b'\n') => rest = &rest[1..],
                    Some(_) => {}
                    None => self.after_cr = true,
                }
            }
        }
        self.line.extend_from_slice(rest);
    }

    /// Ends the stream. The standard discards what is pending at the end
    /// (WHATWG HTML, 9.2.6: "Once the end of the file is reached, any
    /// pending data must be discarded"): an event whose blank line never
    /// came is not dispatched, and neither is a last line without a line
    /// end.
    ///
    /// Returns whether something was discarded: a line without its line
    /// end, or `data` or `event` fields read since the last blank line.
    /// A caller may take that as a stream cut short; a browser ignores it.
    pub fn finish(self) -> bool {
        !self.line.is_empty()
            || (!self.bom_checked && self.bom_matched > 0)
            || !self.fields.data.is_empty()
            || !self.fields.event.is_empty()
    }

    /// Removes one byte order mark at the start of the stream, even when it
    /// is split between chunks (WHATWG HTML, 9.2.6: the stream is decoded
    /// with "UTF-8 decode", which strips one leading BOM). Bytes that begin
    /// like a BOM but turn out not to be one go back to the first line.
    fn skip_bom<'c>(&mut self, mut chunk: &'c [u8]) -> &'c [u8] {
        while !self.bom_checked {
            let Some((&byte, tail)) = chunk.split_first() else {
                break;
            };
            if byte == BOM[self.bom_matched] {
                self.bom_matched += 1;
                chunk = tail;
                self.bom_checked = self.bom_matched == BOM.len();
            } else {
                // The held-back bytes (0xEF, 0xBB) hold no line end.
                self.line.extend_from_slice(&BOM[..self.bom_matched]);
                self.bom_checked = true;
            }
        }
        chunk
    }
}

impl Fields {
    /// Processes one line, without its line end (WHATWG HTML, 9.2.6: a
    /// blank line dispatches, a line starting with `:` is a comment, a line
    /// with a colon is `field:value` with one leading space removed from
    /// the value, a line without one is a field name with an empty value).
    fn line(&mut self, line: &[u8], out: &mut Vec<Event>) {
        if line.is_empty() {
            self.dispatch(out);
            return;
        }
        let (name, value) = match memchr::memchr(b':', line) {
            Some(0) => return,
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &[][..]),
        };
        // Field names are compared after decoding in the standard; the
        // four names are ASCII, and a name with an invalid sequence decodes
        // to one holding U+FFFD, which matches none of them, so comparing
        // the bytes is the same.
        match name {
            b"event" => self.event = decode(value).into_owned(),
            b"data" => {
                self.data.push_str(&decode(value));
                self.data.push('\n');
            }
            // U+0000 is encoded as the byte 0 alone, and an invalid
            // sequence never decodes to it.
            b"id" if !value.contains(&0) => self.id = Some(decode(value).into_owned()),
            b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                let ms = value.iter().fold(0u64, |ms, digit| {
                    ms.saturating_mul(10)
                        .saturating_add(u64::from(digit - b'0'))
                });
                self.retry = Some(ms);
            }
            _ => {}
        }
    }

    /// A blank line (WHATWG HTML, 9.2.6, "dispatch the event"): with an
    /// empty data buffer nothing is dispatched and the event type buffer is
    /// reset; otherwise the data's final line feed is removed and the event
    /// is dispatched. The last event ID carries over.
    fn dispatch(&mut self, out: &mut Vec<Event>) {
        if self.data.is_empty() {
            self.event.clear();
            return;
        }
        self.data.pop();
        out.push(Event {
            event: std::mem::take(&mut self.event),
            data: std::mem::take(&mut self.data),
            id: self.id.clone(),
            retry: self.retry.take(),
        });
    }
}

/// A complete line's bytes as text, each invalid UTF-8 sequence replaced by
/// U+FFFD (the "UTF-8 decode" of WHATWG HTML, 9.2.6; the standard library
/// replaces the same maximal subparts as the WHATWG Encoding Standard).
fn decode(bytes: &[u8]) -> Cow<'_, str> {
    String::from_utf8_lossy(bytes)
}

/// The events of a `text/event-stream` body given as a stream of byte
/// chunks, such as `reqwest::Response::bytes_stream` (WHATWG HTML, 9.2.6
/// Interpreting an event stream, through [`Parser`]).
///
/// An error of `bytes` is passed through as an `Err` item where it occurs,
/// and reading goes on with the next chunk if the caller keeps polling.
/// When `bytes` ends, an event without its closing blank line is
/// discarded, as the standard requires ([`Parser::finish`]), and the stream
/// ends.
pub fn events<S, B, E>(bytes: S) -> impl Stream<Item = Result<Event, E>>
where
    S: Stream<Item = Result<B, E>>,
    B: AsRef<[u8]>,
{
    struct State<S> {
        bytes: std::pin::Pin<Box<S>>,
        parser: Parser,
        ready: std::vec::IntoIter<Event>,
        ended: bool,
    }
    let state = State {
        bytes: Box::pin(bytes),
        parser: Parser::new(),
        ready: Vec::new().into_iter(),
        ended: false,
    };
    futures_util::stream::unfold(state, |mut state| async move {
        loop {
            if let Some(event) = state.ready.next() {
                return Some((Ok(event), state));
            }
            if state.ended {
                return None;
            }
            match state.bytes.next().await {
                Some(Ok(chunk)) => {
                    let mut out = Vec::new();
                    state.parser.push(chunk.as_ref(), &mut out);
                    state.ready = out.into_iter();
                }
                Some(Err(error)) => return Some((Err(error), state)),
                None => {
                    state.ended = true;
                    std::mem::take(&mut state.parser).finish();
                }
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The events of `chunks` fed in order, and what `finish` said.
    fn parse_chunks<'a>(chunks: impl IntoIterator<Item = &'a [u8]>) -> (Vec<Event>, bool) {
        let mut parser = Parser::new();
        let mut out = Vec::new();
        for chunk in chunks {
            parser.push(chunk, &mut out);
        }
        (out, parser.finish())
    }

    /// The events of `stream` given as one chunk.
    fn parse(stream: &[u8]) -> Vec<Event> {
        parse_chunks([stream]).0
    }

    /// The events of `stream` given one byte at a time.
    fn parse_bytewise(stream: &[u8]) -> Vec<Event> {
        parse_chunks(stream.chunks(1)).0
    }

    fn data(data: &str) -> Event {
        Event {
            data: data.into(),
            ..Event::default()
        }
    }

    /// Both chunkings give `expected`.
    fn assert_events(stream: &[u8], expected: &[Event]) {
        assert_eq!(parse(stream), expected, "one chunk: {stream:?}");
        assert_eq!(
            parse_bytewise(stream),
            expected,
            "1-byte chunks: {stream:?}"
        );
    }

    #[test]
    fn lines_end_at_lf_crlf_or_cr() {
        for end in ["\n", "\r\n", "\r"] {
            let stream = format!("data: a{end}data: b{end}{end}data: c{end}{end}");
            assert_events(stream.as_bytes(), &[data("a\nb"), data("c")]);
        }
        // Mixed in one stream; CR CR is two line ends (a blank line).
        assert_events(
            b"data: a\r\ndata: b\rdata: c\n\r\r\ndata: d\r\r",
            &[data("a\nb\nc"), data("d")],
        );
        // LF CR is two line ends too.
        assert_events(b"data: a\n\rdata: b\n\n", &[data("a"), data("b")]);
    }

    #[test]
    fn a_cr_ending_one_chunk_and_an_lf_starting_the_next_are_one_line_end() {
        let (events, _) = parse_chunks([&b"data: a\r"[..], b"\ndata: b\r", b"\n\r", b"\n"]);
        assert_eq!(events, [data("a\nb")]);
        // An empty chunk between them changes nothing.
        let (events, _) = parse_chunks([&b"data: a\r"[..], b"", b"\n\r", b"", b"\n"]);
        assert_eq!(events, [data("a")]);
        // A CR at the end of a chunk followed by anything else ends the
        // line by itself.
        let (events, _) = parse_chunks([&b"data: a\r"[..], b"\r", b"data: b\r", b"\r"]);
        assert_eq!(events, [data("a"), data("b")]);
    }

    #[test]
    fn one_leading_byte_order_mark_is_removed() {
        assert_events(b"\xEF\xBB\xBFdata: a\n\n", &[data("a")]);
        // Without it, the first line is `event` and not a BOM-prefixed name.
        assert_events(
            b"\xEF\xBB\xBFevent: e\ndata: a\n\n",
            &[Event {
                event: "e".into(),
                data: "a".into(),
                ..Event::default()
            }],
        );
        // Only one: a second BOM is part of the first field's name, which
        // then names no field.
        assert_events(b"\xEF\xBB\xBF\xEF\xBB\xBFdata: a\n\n", &[]);
        // A BOM later in the stream is text.
        assert_events(b"data: \xEF\xBB\xBFa\n\n", &[data("\u{FEFF}a")]);
        // Bytes that start like a BOM and are not one stay in the line.
        assert_events(b"\xEF\xBBdata: a\n\ndata: b\n\n", &[data("b")]);
        assert_events(b"\xEF\n\xBB\ndata: b\n\n", &[data("b")]);
        assert_events(b"\xEF\xBB:x\ndata:\xEF\xBB\n\n", &[data("\u{FFFD}")]);
    }

    #[test]
    fn comment_lines_are_ignored_anywhere() {
        assert_events(
            b": ping\ndata: a\n: ping\ndata: b\n:\n\n: ping\n\n:x\r\n",
            &[data("a\nb")],
        );
        // A comment is not a blank line: it dispatches nothing.
        assert_events(b"data: a\n: ping\n", &[]);
        assert_events(b": only comments\n\n", &[]);
    }

    #[test]
    fn one_space_after_the_colon_is_removed() {
        assert_events(b"data:a\n\n", &[data("a")]);
        assert_events(b"data: a\n\n", &[data("a")]);
        assert_events(b"data:  a\n\n", &[data(" a")]);
        assert_events(b"data:\ta\n\n", &[data("\ta")]);
        assert_events(b"data: a: b \n\n", &[data("a: b ")]);
    }

    #[test]
    fn data_lines_are_joined_with_line_feeds() {
        assert_events(
            b"data: {\"a\":\ndata:  1}\ndata\ndata:\n\n",
            &[data("{\"a\":\n 1}\n\n")],
        );
    }

    #[test]
    fn event_field_sets_the_type_of_one_event() {
        assert_events(
            b"event: ping\ndata: 1\n\ndata: 2\n\nevent: a\nevent: b\ndata: 3\n\n",
            &[
                Event {
                    event: "ping".into(),
                    data: "1".into(),
                    ..Event::default()
                },
                data("2"),
                Event {
                    event: "b".into(),
                    data: "3".into(),
                    ..Event::default()
                },
            ],
        );
        // A blank line with no data resets the type buffer too.
        assert_events(b"event: lost\n\ndata: x\n\n", &[data("x")]);
        // Field names are case-sensitive.
        assert_events(b"Event: x\nDATA: y\ndata: z\n\n", &[data("z")]);
    }

    #[test]
    fn id_carries_over_and_one_with_nul_is_ignored() {
        let with_id = |d: &str, id: &str| Event {
            data: d.into(),
            id: Some(id.into()),
            ..Event::default()
        };
        assert_events(
            b"id: 1\ndata: a\n\ndata: b\n\nid: 2\x00x\ndata: c\n\nid\ndata: d\n\n",
            &[
                with_id("a", "1"),
                with_id("b", "1"),
                with_id("c", "1"),
                with_id("d", ""),
            ],
        );
        // An id without data still sets the buffer for later events.
        assert_events(b"id: 7\n\ndata: a\n\n", &[with_id("a", "7")]);
        assert_events(b"data: a\n\n", &[data("a")]);
    }

    #[test]
    fn retry_takes_ascii_digits_only() {
        let with_retry = |d: &str, ms: u64| Event {
            data: d.into(),
            retry: Some(ms),
            ..Event::default()
        };
        assert_events(
            b"retry: 1500\ndata: a\n\ndata: b\n\n",
            &[with_retry("a", 1500), data("b")],
        );
        for ignored in [
            &b"retry: 15s\n"[..],
            b"retry: -1\n",
            b"retry: 1.5\n",
            b"retry:  15\n",
            b"retry: \n",
            b"retry\n",
            b"retry: \xD9\xA1\n",
        ] {
            let stream = [ignored, b"data: a\n\n"].concat();
            assert_events(&stream, &[data("a")]);
        }
        // An invalid value leaves an earlier valid one in place.
        assert_events(b"retry: 10\nretry: x\ndata: a\n\n", &[with_retry("a", 10)]);
        // A retry without data is handed over with the next event.
        assert_events(b"retry: 5\n\ndata: a\n\n", &[with_retry("a", 5)]);
        assert_events(
            b"retry: 99999999999999999999999\ndata: a\n\n",
            &[with_retry("a", u64::MAX)],
        );
    }

    #[test]
    fn an_empty_data_line_dispatches_an_event_with_empty_data() {
        assert_events(b"data:\n\n", &[data("")]);
        assert_events(b"data\n\n", &[data("")]);
        assert_events(b"data: \n\n", &[data("")]);
        // No data field at all: nothing is dispatched.
        assert_events(b"event: x\nid: 1\n\n\n", &[]);
    }

    #[test]
    fn a_field_without_colon_has_an_empty_value_and_unknown_fields_are_ignored() {
        assert_events(b"data\ndata\n\n", &[data("\n")]);
        assert_events(b"foo: bar\ndata: a\nbar\n\n", &[data("a")]);
    }

    #[test]
    fn an_event_without_its_blank_line_at_the_end_is_discarded() {
        let (events, discarded) = parse_chunks([&b"data: a\n\ndata: b\n"[..]]);
        assert_eq!(events, [data("a")]);
        assert!(discarded);
        let (events, discarded) = parse_chunks([&b"data: a\n\ndata: b"[..]]);
        assert_eq!(events, [data("a")]);
        assert!(discarded);
        let (events, discarded) = parse_chunks([&b"data: a\n\n: bye\n"[..]]);
        assert_eq!(events, [data("a")]);
        assert!(!discarded);
        let (events, discarded) = parse_chunks([&b"data: a\r\n\r"[..]]);
        assert_eq!(events, [data("a")]);
        assert!(!discarded);
        assert!(!parse_chunks([]).1);
        assert!(parse_chunks([&b"\xEF\xBB"[..]]).1);
    }

    #[test]
    fn utf8_is_decoded_per_line_even_when_a_character_is_split() {
        let text = "data: é😀€\n\n".as_bytes();
        for cut in 0..text.len() {
            let (events, _) = parse_chunks([&text[..cut], &text[cut..]]);
            assert_eq!(events, [data("é😀€")], "cut at {cut}");
        }
        assert_events(text, &[data("é😀€")]);
        // Invalid sequences become U+FFFD, one per maximal subpart; a
        // truncated sequence before a line end does not swallow it.
        assert_events(
            b"data: a\xFFb\xE2\x82\ndata: \xF0\x9F\x98c\n\n",
            &[data("a\u{FFFD}b\u{FFFD}\n\u{FFFD}c")],
        );
        assert_events(
            b"event: \xC3\ndata: x\n\n",
            &[Event {
                event: "\u{FFFD}".into(),
                data: "x".into(),
                ..Event::default()
            }],
        );
        // A field name with an invalid byte names no field.
        assert_events(b"\xA9data: x\n\n", &[]);
    }

    #[test]
    fn a_long_line_split_in_many_chunks_is_read_whole() {
        let payload = "x".repeat(100_000);
        let stream = format!("data: {payload}\n\n");
        let (events, _) = parse_chunks(stream.as_bytes().chunks(7));
        assert_eq!(events, [data(&payload)]);
        // The parser can be reused after a long line.
        let stream = format!("data: {payload}\n\ndata: short\n\n");
        let (events, _) = parse_chunks(stream.as_bytes().chunks(1000));
        assert_eq!(events, [data(&payload), data("short")]);
    }

    #[tokio::test(flavor = "current_thread")]
    async fn the_stream_adapter_passes_errors_through_and_drops_an_unfinished_event() {
        let chunks: Vec<Result<&[u8], &str>> = vec![
            Ok(&b"data: a\r"[..]),
            Ok(&b"\ndata: b\n"[..]),
            Err("cut"),
            Ok(&b"\ndata: c\n\nda"[..]),
            Ok(&b"ta: d\n"[..]),
        ];
        let items: Vec<Result<Event, &str>> =
            events(futures_util::stream::iter(chunks)).collect().await;
        assert_eq!(
            items,
            [Err("cut"), Ok(data("a\nb")), Ok(data("c"))],
            "events come out when their blank line arrives"
        );
        let none: Vec<Result<Event, ()>> =
            events(futures_util::stream::iter(Vec::<Result<Vec<u8>, ()>>::new()))
                .collect()
                .await;
        assert!(none.is_empty());
    }

    /// Serves one HTTP/1.1 response on loopback: the head, then `chunks`
    /// in chunked transfer coding, then (when `finish`) the last chunk; a
    /// connection closed without it is a body that broke off.
    async fn serve_once(chunks: Vec<&'static [u8]>, finish: bool) -> String {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/v1", listener.local_addr().unwrap());
        tokio::spawn(async move {
            let (mut socket, _) = listener.accept().await.unwrap();
            // The request: its head, then `content-length` bytes of body.
            let mut request = Vec::new();
            let mut buf = [0u8; 4096];
            let body_start = loop {
                let n = socket.read(&mut buf).await.unwrap();
                request.extend_from_slice(&buf[..n]);
                if let Some(at) = request.windows(4).position(|w| w == b"\r\n\r\n") {
                    break at + 4;
                }
            };
            let head = String::from_utf8_lossy(&request[..body_start]).to_lowercase();
            let length: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .map_or(0, |v| v.trim().parse().unwrap());
            while request.len() < body_start + length {
                let n = socket.read(&mut buf).await.unwrap();
                request.extend_from_slice(&buf[..n]);
            }
            let mut response = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\
                transfer-encoding: chunked\r\n\r\n"
                .to_vec();
            for chunk in chunks {
                response.extend_from_slice(format!("{:x}\r\n", chunk.len()).as_bytes());
                response.extend_from_slice(chunk);
                response.extend_from_slice(b"\r\n");
            }
            if finish {
                response.extend_from_slice(b"0\r\n\r\n");
            }
            socket.write_all(&response).await.unwrap();
            socket.shutdown().await.unwrap();
        });
        url
    }

    async fn endpoint_events(
        chunks: Vec<&'static [u8]>,
        finish: bool,
    ) -> Vec<Result<Event, templiqx::RuntimeFailure>> {
        let url = serve_once(chunks, finish).await;
        let endpoint =
            crate::Endpoint::new("p", url, reqwest::header::HeaderMap::new(), None).unwrap();
        let response = endpoint
            .post(&serde_json::json!({}), &|_| None)
            .await
            .unwrap();
        endpoint.events(response).collect().await
    }

    #[tokio::test(flavor = "current_thread")]
    async fn endpoint_events_read_a_streamed_body_and_map_a_cut_to_unavailable() {
        let items = endpoint_events(
            vec![
                b"\xEF\xBB",
                b"\xBFdata: {\"a\":\r",
                b"\ndata: 1}\r",
                b"\n\r\n: ok\n",
            ],
            true,
        )
        .await;
        let events: Vec<Event> = items.into_iter().map(Result::unwrap).collect();
        assert_eq!(events, [data("{\"a\":\n1}")]);

        let items = endpoint_events(vec![b"data: a\n\ndata: b\n"], false).await;
        assert_eq!(items.len(), 2, "{items:?}");
        assert_eq!(items[0].as_ref().unwrap(), &data("a"));
        let failure = items[1].as_ref().unwrap_err();
        assert_eq!(failure.code, templiqx::Code::RuntimeUnavailable);
        assert_eq!(failure.id, "p.unavailable");
        assert!(failure.detail.contains("broke off"), "{}", failure.detail);
    }

    /// One generated line of a stream.
    #[derive(Clone, Debug)]
    enum Line {
        Field(&'static str, String),
        Bare(&'static str),
        Comment(String),
        Blank,
        Raw(Vec<u8>),
    }

    fn line() -> impl Strategy<Value = Line> {
        let name = prop::sample::select(vec![
            "data", "data", "data", "event", "id", "retry", "other", "",
        ]);
        let value = prop::sample::select(vec![
            "",
            " ",
            "a",
            " a",
            "  a",
            "1500",
            "x:y",
            "é",
            "😀 ok",
            "\u{0}",
            "{\"k\":[1,2]}",
        ]);
        prop_oneof![
            4 => (name.clone(), value.clone()).prop_map(|(n, v)| Line::Field(n, v.to_owned())),
            1 => name.prop_map(Line::Bare),
            1 => value.prop_map(|v| Line::Comment(v.to_owned())),
            3 => Just(Line::Blank),
            1 => prop::collection::vec(
                prop::sample::select(vec![0x80u8, 0xC3, 0xE2, 0xEF, 0xBB, 0xBF, 0xF0, b'a', b':']),
                0..6,
            )
            .prop_map(Line::Raw),
        ]
    }

    fn stream() -> impl Strategy<Value = Vec<u8>> {
        let end = prop::sample::select(vec!["\n", "\r\n", "\r"]);
        (
            any::<bool>(),
            prop::collection::vec((line(), end), 0..40),
            prop::collection::vec(any::<u8>(), 0..4),
        )
            .prop_map(|(bom, lines, tail)| {
                let mut bytes = Vec::new();
                if bom {
                    bytes.extend_from_slice(BOM);
                }
                for (line, end) in lines {
                    match line {
                        Line::Field(name, value) => {
                            bytes.extend_from_slice(format!("{name}:{value}").as_bytes())
                        }
                        Line::Bare(name) => bytes.extend_from_slice(name.as_bytes()),
                        Line::Comment(text) => {
                            bytes.extend_from_slice(format!(":{text}").as_bytes())
                        }
                        Line::Blank => {}
                        Line::Raw(raw) => bytes.extend_from_slice(&raw),
                    }
                    bytes.extend_from_slice(end.as_bytes());
                }
                bytes.extend_from_slice(&tail);
                bytes
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn events_do_not_depend_on_chunking(
            stream in stream(),
            sizes in prop::collection::vec(1usize..=9, 1..32),
        ) {
            let whole = parse_chunks([&stream[..]]);
            prop_assert_eq!(&parse_chunks(stream.chunks(1)), &whole);
            let mut chunks = Vec::new();
            let mut rest = &stream[..];
            for size in sizes.iter().cycle() {
                if rest.is_empty() {
                    break;
                }
                let (chunk, tail) = rest.split_at((*size).min(rest.len()));
                chunks.push(chunk);
                // Empty chunks are allowed too.
                if *size == 9 {
                    chunks.push(&[][..]);
                }
                rest = tail;
            }
            prop_assert_eq!(&parse_chunks(chunks), &whole);
        }
    }
}
