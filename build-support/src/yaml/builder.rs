//! Tree building from `saphyr-parser`'s event stream: anchors and alias
//! expansion within its budget, duplicate keys, tags, non-scalar keys,
//! nesting depth and the stream checks (`docs/decisions.md`, "YAML
//! library").

use super::scalar::resolve;
use super::source::{Mark, Source, position};
use super::{Key, MAX_ALIAS_EXPANDED_BYTES, MAX_ALIAS_EXPANDED_NODES, MAX_DEPTH, Node, NodeValue};
use saphyr_parser::{Event, Marker, Parser, ScalarStyle, ScanError, Tag};
use std::borrow::Cow;
use std::collections::HashMap;
use std::rc::Rc;
use templiqx_contracts::{Code, Diagnostic, Position, Span};

/// [`super::parse`], with the diagnostic boxed.
pub(super) fn parse(text: &str, spans_only: bool) -> Fallible<Node> {
    let mut builder = Builder::new(text, spans_only);
    if !spans_only {
        builder.check_stream()?;
    }
    let mut parser = Parser::new_from_str(text);
    while let Some(next) = parser.next_event() {
        let (event, span) = next.map_err(|e| builder.scan_error(&e))?;
        builder.event(event, span.start, span.end)?;
    }
    builder.finish()
}

/// A node under construction. Aliases share the anchored node through `Rc`
/// until [`into_node`] expands them, so anchoring never copies anything and
/// copying is bounded by the alias budget.
struct Raw {
    value: RawValue,
    span: Span,
    /// How many nodes this subtree expands to (itself included).
    nodes: usize,
    /// How many string bytes (scalars and keys) it expands to.
    bytes: usize,
    /// 0 for a scalar; 1 + the highest child for a collection.
    height: usize,
}

enum RawValue {
    Scalar(NodeValue),
    Alias(Rc<Raw>),
    Seq(Vec<Rc<Raw>>),
    Map(Vec<(Key, Rc<Raw>)>),
}

/// Converts to the public tree, moving unshared nodes and copying shared
/// (aliased) ones. Recursion depth is bounded by [`MAX_DEPTH`].
fn into_node(raw: Rc<Raw>) -> Node {
    match Rc::try_unwrap(raw) {
        Ok(Raw { value, span, .. }) => {
            let value = match value {
                RawValue::Scalar(v) => v,
                RawValue::Alias(target) => into_node(target).value,
                RawValue::Seq(items) => NodeValue::Seq(items.into_iter().map(into_node).collect()),
                RawValue::Map(entries) => NodeValue::Map(
                    entries
                        .into_iter()
                        .map(|(k, v)| (k, into_node(v)))
                        .collect(),
                ),
            };
            Node { value, span }
        }
        Err(shared) => copy_node(&shared),
    }
}

fn copy_node(raw: &Raw) -> Node {
    let value = match &raw.value {
        RawValue::Scalar(v) => v.clone(),
        RawValue::Alias(target) => copy_node(target).value,
        RawValue::Seq(items) => NodeValue::Seq(items.iter().map(|i| copy_node(i)).collect()),
        RawValue::Map(entries) => NodeValue::Map(
            entries
                .iter()
                .map(|(k, v)| (k.clone(), copy_node(v)))
                .collect(),
        ),
    };
    Node {
        value,
        span: raw.span,
    }
}

/// An open sequence or mapping.
struct Frame {
    start: Mark,
    anchor: usize,
    nodes: usize,
    bytes: usize,
    height: usize,
    /// The span of the last complete child (a block collection ends there).
    last: Option<Span>,
    kind: FrameKind,
}

enum FrameKind {
    Seq(Vec<Rc<Raw>>),
    Map {
        entries: Vec<(Key, Rc<Raw>)>,
        /// The key read, waiting for its value.
        key: Option<Key>,
        /// Key text → line of its first occurrence.
        seen: HashMap<String, u32>,
    },
}

impl FrameKind {
    fn awaits_key(&self) -> bool {
        matches!(self, FrameKind::Map { key: None, .. })
    }
}

struct Builder<'a> {
    src: Source<'a>,
    stack: Vec<Frame>,
    anchors: HashMap<usize, Rc<Raw>>,
    root: Option<Rc<Raw>>,
    documents: usize,
    /// Nodes and string bytes copied by aliases so far.
    expanded: (usize, usize),
    /// Reading a JSON document for its spans only ([`super::parse_spans`]):
    /// characters YAML does not print and numbers JSON holds but a YAML
    /// value cannot (beyond 64 bits) are no errors; such a number's value
    /// is its text.
    spans_only: bool,
}

/// Internal results box the diagnostic: the event loop's happy path then
/// moves a pointer-sized `Result` instead of a 168-byte one.
type Fallible<T> = Result<T, Box<Diagnostic>>;

fn error(span: Span, message: impl Into<String>, help: impl Into<String>) -> Box<Diagnostic> {
    let mut d = Diagnostic::error(Code::ParseYaml, message).help(help);
    d.span = Some(span);
    Box::new(d)
}

impl<'a> Builder<'a> {
    fn new(text: &'a str, spans_only: bool) -> Self {
        Builder {
            src: Source::new(text),
            stack: Vec::new(),
            anchors: HashMap::new(),
            root: None,
            documents: 0,
            expanded: (0, 0),
            spans_only,
        }
    }

    /// [`resolve`], or in [`Builder::spans_only`] mode the text itself
    /// where a value cannot be resolved.
    fn resolve(&self, text: Cow<'_, str>, style: ScalarStyle, span: Span) -> Fallible<NodeValue> {
        let fallback = self.spans_only.then(|| text.clone().into_owned());
        match (resolve(text, style), fallback) {
            (Ok(value), _) => Ok(value),
            (Err(_), Some(text)) => Ok(NodeValue::String(text)),
            (Err((m, h)), None) => Err(error(span, m, h)),
        }
    }

    fn scan_error(&self, e: &ScanError) -> Box<Diagnostic> {
        let span = self.src.char_span(self.src.mark(*e.marker()));
        let info = e.info();
        let help = if info.contains("mapping values are not allowed") {
            "a plain value cannot contain `: `; quote the value, or fix the key's indentation"
        } else if info.contains("tab") {
            "indent YAML with spaces, not tabs"
        } else if info.contains("recursion limit") {
            "flatten the structure: flow collections (`[...]`, `{...}`) nest at most 255 levels"
        } else if info.contains("unknown anchor") {
            "define the anchor (`&name`) before the alias (`*name`) that uses it"
        } else if info.contains("did not find expected") || info.contains("expected ',' or") {
            "close the bracket or quote that is still open, or fix the indentation"
        } else {
            "fix the YAML syntax at this position (indentation, quoting, brackets)"
        };
        error(span, format!("invalid YAML: {info}"), help)
    }

    /// The rules the event stream cannot show: every character is
    /// printable (YAML 1.2 section 5.1) and a `%YAML` directive names
    /// version 1.2 (section 6.8.1).
    fn check_stream(&self) -> Fallible<()> {
        let origin = Mark {
            byte: 0,
            line: 1,
            col: 0,
        };
        if let Some((at, c)) = self
            .src
            .text
            .char_indices()
            .find(|&(_, c)| !is_printable(c))
        {
            let span = self.src.char_span(self.src.advance(origin, at));
            let code = c as u32;
            let name = control_name(c).map_or(String::new(), |n| format!(" ({n})"));
            return Err(error(
                span,
                format!("the file holds the non-printable character U+{code:04X}{name}"),
                format!(
                    "YAML allows only printable characters in a file; remove it, or write it \
                     as an escape in a double-quoted string (`\"\\u{code:04X}\"`)"
                ),
            ));
        }
        if let Some((at, version)) = version_directive(self.src.text) {
            let start = self.src.advance(origin, at);
            let span = self
                .src
                .span(start, self.src.advance(start, at + version.len()));
            return Err(error(
                span,
                format!("the file declares YAML version `{version}`; Templiqx reads YAML 1.2"),
                "remove the `%YAML` directive, or declare `%YAML 1.2` if the file is YAML 1.2",
            ));
        }
        Ok(())
    }

    fn internal(&self, span: Span) -> Box<Diagnostic> {
        error(
            span,
            "invalid YAML: unexpected parser event",
            "this is a bug in Templiqx; please report it with the input",
        )
    }

    fn event(&mut self, event: Event<'_>, start: Marker, end: Marker) -> Fallible<()> {
        match event {
            Event::Nothing | Event::StreamStart | Event::StreamEnd | Event::DocumentEnd => Ok(()),
            Event::DocumentStart(_) => {
                self.documents += 1;
                if self.documents > 1 {
                    let m = self.src.mark(start);
                    let span = self.src.span(m, self.src.mark(end));
                    let span = if span.bytes.0 == span.bytes.1 {
                        self.src.char_span(m)
                    } else {
                        span
                    };
                    return Err(error(
                        span,
                        "the file holds more than one YAML document",
                        "a contract is exactly one document: remove this `---` and what follows, \
                         or move it to a file of its own",
                    ));
                }
                Ok(())
            }
            Event::Scalar(text, style, anchor, tag) => {
                if let Some(tag) = tag {
                    return Err(self.tag_error(&tag, start, end));
                }
                let span = self.src.scalar_span(start, end, style, anchor != 0);
                if self.stack.last().is_some_and(|f| f.kind.awaits_key()) {
                    return self.key(text.into_owned(), style, anchor, span);
                }
                let value = self.resolve(text, style, span)?;
                self.complete(scalar(value, span), anchor)
            }
            Event::Alias(id) => self.alias(id, start, end),
            Event::SequenceStart(anchor, tag) => self.open(false, anchor, tag, start, end),
            Event::MappingStart(anchor, tag) => self.open(true, anchor, tag, start, end),
            Event::SequenceEnd | Event::MappingEnd => self.close(start, end),
        }
    }

    fn tag_error(&self, tag: &Tag, start: Marker, end: Marker) -> Box<Diagnostic> {
        let span = self.src.tag_span(start, end);
        let written = self.src.text_of(span);
        let written = if written.starts_with('!') {
            written.to_owned()
        } else {
            tag.to_string()
        };
        error(
            span,
            format!("YAML tags are not allowed (`{written}`)"),
            "remove the tag; to make a value a string, quote it instead",
        )
    }

    fn key(&mut self, text: String, style: ScalarStyle, anchor: usize, span: Span) -> Fallible<()> {
        if anchor != 0 {
            // An anchored key may be aliased as a value: register its value.
            let value = self.resolve(Cow::Borrowed(&text), style, span)?;
            self.anchors.insert(anchor, Rc::new(scalar(value, span)));
        }
        let Some(Frame {
            kind: FrameKind::Map { key, seen, .. },
            ..
        }) = self.stack.last_mut()
        else {
            return Err(self.internal(span));
        };
        if text == "<<" && style == ScalarStyle::Plain {
            return Err(error(
                span,
                "merge keys (`<<`) are not supported",
                "write the entries out in this mapping: YAML 1.2 has no merge key, so `<<` \
                 would be an ordinary key here while YAML 1.1 tools merge it; to use `<<` as \
                 a key, quote it (`\"<<\"`)",
            ));
        }
        if let Some(&first) = seen.get(&text) {
            return Err(error(
                span,
                format!("duplicate mapping key `{text}`"),
                format!(
                    "the first `{text}` is on line {first}; mapping keys must be unique, \
                     so remove or rename one of them"
                ),
            ));
        }
        seen.insert(text.clone(), span.start.line);
        *key = Some(Key { text, span });
        Ok(())
    }

    fn alias(&mut self, id: usize, start: Marker, end: Marker) -> Fallible<()> {
        let span = self.src.span(self.src.mark(start), self.src.mark(end));
        let name = self.src.text_of(span).to_owned();
        if self.stack.last().is_some_and(|f| f.kind.awaits_key()) {
            return Err(error(
                span,
                format!("an alias (`{name}`) cannot be a mapping key"),
                "write the key out",
            ));
        }
        let Some(target) = self.anchors.get(&id).cloned() else {
            return Err(error(
                span,
                format!("alias `{name}` refers to a node that contains it"),
                "a node cannot include itself; copy the content you need instead",
            ));
        };
        if self.stack.len() + target.height > MAX_DEPTH {
            return Err(depth_error(span));
        }
        let (nodes, bytes) = &mut self.expanded;
        *nodes = nodes.saturating_add(target.nodes);
        *bytes = bytes.saturating_add(target.bytes);
        let exceeded = if *nodes > MAX_ALIAS_EXPANDED_NODES {
            Some((MAX_ALIAS_EXPANDED_NODES, "nodes"))
        } else if *bytes > MAX_ALIAS_EXPANDED_BYTES {
            Some((MAX_ALIAS_EXPANDED_BYTES, "bytes of text"))
        } else {
            None
        };
        if let Some((budget, what)) = exceeded {
            return Err(error(
                span,
                format!("alias expansion exceeds the budget of {budget} copied {what}"),
                format!(
                    "aliases may copy at most {budget} {what} in total; write the repeated \
                     content out, or alias smaller pieces"
                ),
            ));
        }
        let raw = Raw {
            nodes: target.nodes,
            bytes: target.bytes,
            height: target.height,
            value: RawValue::Alias(target),
            span,
        };
        self.complete(raw, 0)
    }

    fn open(
        &mut self,
        map: bool,
        anchor: usize,
        tag: Option<Cow<'_, Tag>>,
        start: Marker,
        end: Marker,
    ) -> Fallible<()> {
        if let Some(tag) = tag {
            return Err(self.tag_error(&tag, start, end));
        }
        let first = self.src.collection_start(start, end, anchor != 0);
        if self.stack.last().is_some_and(|f| f.kind.awaits_key()) {
            let kind = if map { "mapping" } else { "sequence" };
            return Err(error(
                self.src.char_span(first),
                format!("a mapping key must be a scalar, not a {kind}"),
                "use a plain or quoted string as the key",
            ));
        }
        if self.stack.len() >= MAX_DEPTH {
            return Err(depth_error(self.src.char_span(first)));
        }
        let kind = if map {
            FrameKind::Map {
                entries: Vec::new(),
                key: None,
                seen: HashMap::new(),
            }
        } else {
            FrameKind::Seq(Vec::new())
        };
        self.stack.push(Frame {
            start: first,
            anchor,
            nodes: 1,
            bytes: 0,
            height: 0,
            last: None,
            kind,
        });
        Ok(())
    }

    fn close(&mut self, start: Marker, end: Marker) -> Fallible<()> {
        let end = self.src.mark(end);
        let Some(frame) = self.stack.pop() else {
            return Err(self.internal(self.src.char_span(end)));
        };
        // A flow collection's end event covers its `]`/`}`; a block
        // collection's is empty, and the collection ends with its last value.
        let span = match frame.last {
            Some(last) if end.byte <= self.src.mark(start).byte => Span {
                start: position(frame.start),
                end: last.end,
                bytes: (frame.start.byte, last.bytes.1.max(frame.start.byte)),
            },
            _ => self.src.span(frame.start, end),
        };
        let value = match frame.kind {
            FrameKind::Seq(items) => RawValue::Seq(items),
            FrameKind::Map {
                entries, key: None, ..
            } => RawValue::Map(entries),
            FrameKind::Map { key: Some(_), .. } => return Err(self.internal(span)),
        };
        let raw = Raw {
            value,
            span,
            nodes: frame.nodes,
            bytes: frame.bytes,
            height: frame.height + 1,
        };
        self.complete(raw, frame.anchor)
    }

    /// Attaches a finished node to its parent (or makes it the root).
    fn complete(&mut self, raw: Raw, anchor: usize) -> Fallible<()> {
        let span = raw.span;
        let raw = Rc::new(raw);
        if anchor != 0 {
            self.anchors.insert(anchor, Rc::clone(&raw));
        }
        let Some(frame) = self.stack.last_mut() else {
            if self.root.is_some() {
                return Err(self.internal(span));
            }
            self.root = Some(raw);
            return Ok(());
        };
        frame.nodes = frame.nodes.saturating_add(raw.nodes);
        frame.bytes = frame.bytes.saturating_add(raw.bytes);
        frame.height = frame.height.max(raw.height);
        frame.last = Some(span);
        match &mut frame.kind {
            FrameKind::Seq(items) => items.push(raw),
            FrameKind::Map { entries, key, .. } => match key.take() {
                Some(k) => {
                    frame.bytes = frame.bytes.saturating_add(k.text.len());
                    entries.push((k, raw));
                }
                None => return Err(self.internal(span)),
            },
        }
        Ok(())
    }

    fn finish(mut self) -> Fallible<Node> {
        if !self.stack.is_empty() {
            let origin = Mark {
                byte: 0,
                line: 1,
                col: 0,
            };
            let eof = self.src.advance(origin, self.src.text.len());
            return Err(self.internal(self.src.char_span(eof)));
        }
        // Drop the anchor table first so unshared nodes move instead of copying.
        self.anchors.clear();
        Ok(match self.root.take() {
            Some(raw) => into_node(raw),
            None => Node {
                value: NodeValue::Null,
                span: Span {
                    start: Position { line: 1, column: 1 },
                    end: Position { line: 1, column: 1 },
                    bytes: (0, 0),
                },
            },
        })
    }
}

/// YAML 1.2's printable set (`c-printable`, section 5.1): tab, line feed,
/// carriage return, the printable ASCII range, NEL, and the non-control
/// rest of Unicode but U+FFFE and U+FFFF.
fn is_printable(c: char) -> bool {
    matches!(c,
        '\t' | '\n' | '\r' | ' '..='~' | '\u{85}' | '\u{A0}'..='\u{D7FF}'
        | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

/// The common name of a C0 control character or DEL, for messages.
fn control_name(c: char) -> Option<&'static str> {
    const C0: [&str; 32] = [
        "NUL", "SOH", "STX", "ETX", "EOT", "ENQ", "ACK", "BEL", "BS", "TAB", "LF", "VT", "FF",
        "CR", "SO", "SI", "DLE", "DC1", "DC2", "DC3", "DC4", "NAK", "SYN", "ETB", "CAN", "EM",
        "SUB", "ESC", "FS", "GS", "RS", "US",
    ];
    match c as u32 {
        n @ 0..=31 => C0.get(n as usize).copied(),
        0x7F => Some("DEL"),
        _ => None,
    }
}

/// The version of a `%YAML` directive other than `1.2`, with its byte
/// offset: directives stand at the start of a line before the document,
/// among blank lines and comments (YAML 1.2 section 6.8).
fn version_directive(text: &str) -> Option<(usize, &str)> {
    let mut offset = 0;
    for line in text.split_inclusive(['\n', '\r']) {
        let start = offset;
        offset += line.len();
        let content = line.trim_end_matches(['\n', '\r']);
        let trimmed = content.trim_start_matches([' ', '\t']);
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let Some(rest) = content.strip_prefix("%YAML") else {
            if content.starts_with('%') {
                continue;
            }
            return None;
        };
        if !rest.starts_with([' ', '\t']) {
            return None;
        }
        let version = rest.trim_start_matches([' ', '\t']);
        let version = version.split([' ', '\t']).next().unwrap_or_default();
        if version == "1.2" {
            return None;
        }
        let at = start
            + (content.len() - rest.len())
            + (rest.len() - rest.trim_start_matches([' ', '\t']).len());
        return Some((at, version));
    }
    None
}

fn scalar(value: NodeValue, span: Span) -> Raw {
    Raw {
        bytes: match &value {
            NodeValue::String(s) => s.len(),
            _ => 0,
        },
        value: RawValue::Scalar(value),
        span,
        nodes: 1,
        height: 0,
    }
}

fn depth_error(span: Span) -> Box<Diagnostic> {
    error(
        span,
        format!("the document nests deeper than {MAX_DEPTH} levels"),
        "flatten the structure; no contract needs this much nesting",
    )
}
