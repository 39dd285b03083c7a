//! Strict YAML → spanned node tree (DESIGN section 4, "YAML").
//!
//! Built on `saphyr-parser`'s event stream so that every node keeps its
//! source span, and so that the things the format forbids are caught while
//! parsing: duplicate mapping keys, tags, non-scalar keys, and alias
//! expansion beyond a node budget all fail with `TQX_PARSE_YAML`.
//!
//! Scalars are resolved with the YAML 1.2 core schema: plain `null`/`~`/empty
//! is null, `true`/`false` booleans, decimal/`0o`/`0x` integers, decimal
//! floats; quoted and block scalars are always strings.
//!
//! ```
//! use templiqx_build::yaml::{self, NodeValue};
//!
//! let root = yaml::parse("greeting:\n  text: 'hi'\n  max: 0x10\n").unwrap();
//! let max = root.pointer("/greeting/max").unwrap();
//! assert_eq!(max.to_json(), serde_json::json!(16));
//! assert_eq!((max.span.start.line, max.span.start.column), (3, 8));
//!
//! let err = yaml::parse("a: 1\na: 2\n").unwrap_err();
//! assert_eq!(err.code.as_str(), "TQX_PARSE_YAML");
//! assert_eq!(err.span.unwrap().start.line, 2);
//! # let _ = NodeValue::Null;
//! ```
//!
//! # Spans
//!
//! Every [`Node`] and [`Key`] carries a [`Span`]: 1-based line and column
//! (columns count Unicode scalar values, as the contracts crate specifies)
//! plus byte offsets into the parsed text.
//!
//! * A scalar's span is its own extent: quotes included, anchor excluded.
//!   For a block scalar (`|`, `>`) it runs from the first to the last
//!   non-blank character of the content; the indicator line is excluded.
//! * A flow collection spans from `[`/`{` to the closing `]`/`}`.
//! * A block collection spans from its first entry (the `-` or the first key)
//!   to the end of its last value; trailing comments and blank lines are not
//!   part of it.
//! * A node copied by an alias has the alias's span (`*name`); the nodes
//!   inside it keep the spans of the anchored original.
//! * Input without a document (empty, or only comments) is a
//!   [`NodeValue::Null`] with an empty span at 1:1.

use std::borrow::Cow;
use std::collections::HashMap;
use std::rc::Rc;

use saphyr_parser::{Event, Marker, Parser, ScalarStyle, ScanError, Tag};
use templiqx_contracts::{Code, Diagnostic, JsonType, Number, Position, Span};

/// The most nodes that alias expansion may copy while parsing one document.
///
/// Every alias (`*name`) copies the anchored node and everything below it;
/// the copies are counted across the whole document, and parsing fails with
/// `TQX_PARSE_YAML` as soon as the total exceeds this budget. A "billion
/// laughs" document therefore fails after at most this many copies, in
/// bounded time and memory.
pub const MAX_ALIAS_EXPANDED_NODES: usize = 10_000;

/// The most string bytes (scalars and keys) that alias expansion may copy
/// while parsing one document: 4 MiB, the render output budget.
///
/// The node budget alone would let ten thousand aliases of one large
/// anchored string amplify a small file into gigabytes; this bounds the
/// bytes as [`MAX_ALIAS_EXPANDED_NODES`] bounds the nodes. Exceeding it
/// fails with `TQX_PARSE_YAML`.
pub const MAX_ALIAS_EXPANDED_BYTES: usize = 4 * 1024 * 1024;

/// The deepest nesting of sequences and mappings that [`parse`] accepts.
///
/// The root collection is at depth 1; scalars do not count. Deeper input
/// fails with `TQX_PARSE_YAML` (so no later recursive pass over the tree can
/// overflow the stack). The parser itself also limits flow collections
/// (`[`, `{`) to 255 nested levels.
pub const MAX_DEPTH: usize = 256;

/// A parsed YAML node with its source span.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// The value.
    pub value: NodeValue,
    /// Where it is in the source (for a mapping or sequence: its whole extent).
    pub span: Span,
}

/// A mapping key: always a scalar, kept as its text.
#[derive(Clone, Debug, PartialEq)]
pub struct Key {
    /// The key as written, unquoted and unescaped. Keys are never typed:
    /// `1:` is the key `"1"` and `null:` the key `"null"`, as in JSON.
    pub text: String,
    /// Where the key is.
    pub span: Span,
}

/// The value of a node.
#[derive(Clone, Debug, PartialEq)]
pub enum NodeValue {
    /// `null`, `~` or an empty plain scalar.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// A finite number.
    Number(Number),
    /// A string.
    String(String),
    /// A sequence.
    Seq(Vec<Node>),
    /// A mapping, in source order, keys unique.
    Map(Vec<(Key, Node)>),
}

impl Node {
    /// The node as JSON: mappings become objects (keys are the key texts),
    /// sequences arrays, integers stay exact (`I64`/`U64`).
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value;
        match &self.value {
            NodeValue::Null => Value::Null,
            NodeValue::Bool(b) => Value::Bool(*b),
            // Parsed numbers are always finite; `Null` is unreachable in practice.
            NodeValue::Number(n) => n.to_json().map_or(Value::Null, Value::Number),
            NodeValue::String(s) => Value::String(s.clone()),
            NodeValue::Seq(items) => Value::Array(items.iter().map(Node::to_json).collect()),
            NodeValue::Map(entries) => Value::Object(
                entries
                    .iter()
                    .map(|(k, v)| (k.text.clone(), v.to_json()))
                    .collect(),
            ),
        }
    }

    /// The node's JSON type: a sequence is an `array`, a mapping an
    /// `object`, and every number a `number`.
    pub fn json_type(&self) -> JsonType {
        match self.value {
            NodeValue::Null => JsonType::Null,
            NodeValue::Bool(_) => JsonType::Boolean,
            NodeValue::Number(_) => JsonType::Number,
            NodeValue::String(_) => JsonType::String,
            NodeValue::Seq(_) => JsonType::Array,
            NodeValue::Map(_) => JsonType::Object,
        }
    }

    /// The node's type as the format's diagnostics name it: the JSON
    /// Schema type name of [`Node::json_type`] (`"null"`, `"boolean"`,
    /// `"number"`, `"string"`, `"array"` or `"object"`).
    pub fn type_name(&self) -> &'static str {
        self.json_type().as_str()
    }

    /// The value under `key` when this node is a mapping; `None` when the
    /// key is absent or the node is not a mapping.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.entry(key).map(|(_, v)| v)
    }

    /// The entries when this node is a mapping.
    pub fn as_map(&self) -> Option<&[(Key, Node)]> {
        match &self.value {
            NodeValue::Map(entries) => Some(entries),
            _ => None,
        }
    }

    /// The items when this node is a sequence.
    pub fn as_seq(&self) -> Option<&[Node]> {
        match &self.value {
            NodeValue::Seq(items) => Some(items),
            _ => None,
        }
    }

    /// The string when this node is a string scalar.
    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            NodeValue::String(s) => Some(s),
            _ => None,
        }
    }

    /// The node at an RFC 6901 JSON Pointer (`""` is this node, `/a/0`
    /// the first item of `a`).
    ///
    /// Reference tokens are unescaped (`~1` → `/`, `~0` → `~`); on a
    /// sequence a token must be a canonical index (`0`, `17`; not `01` or
    /// `-`). `None` when the pointer is malformed or any step is missing.
    pub fn pointer(&self, json_pointer: &str) -> Option<&Node> {
        let mut node = self;
        for token in tokens(json_pointer)? {
            node = node.child(&token?)?;
        }
        Some(node)
    }

    /// The span of the mapping key under which the node at `json_pointer`
    /// sits, e.g. to underline an unknown field's name rather than its value.
    ///
    /// `None` for the root pointer, for a sequence item (it has no key), and
    /// when the pointer is malformed or does not resolve.
    pub fn key_span(&self, json_pointer: &str) -> Option<Span> {
        let (parent, last) = match json_pointer.rfind('/') {
            Some(i) => (&json_pointer[..i], &json_pointer[i + 1..]),
            None => return None,
        };
        let key = unescape(last)?;
        self.pointer(parent)?.entry(&key).map(|(k, _)| k.span)
    }

    /// The span of the deepest node that exists along `json_pointer`: the
    /// node itself when it exists, else the nearest ancestor that does (so
    /// a "missing field" diagnostic lands on the mapping that lacks it).
    ///
    /// `None` only when the pointer is malformed (non-empty without a
    /// leading `/`).
    pub fn span_of(&self, json_pointer: &str) -> Option<Span> {
        let mut node = self;
        for token in tokens(json_pointer)? {
            match token.as_deref().and_then(|t| node.child(t)) {
                Some(child) => node = child,
                None => break,
            }
        }
        Some(node.span)
    }

    fn entry(&self, key: &str) -> Option<&(Key, Node)> {
        self.as_map()?.iter().find(|(k, _)| k.text == key)
    }

    fn child(&self, token: &str) -> Option<&Node> {
        match &self.value {
            NodeValue::Map(_) => self.get(token),
            NodeValue::Seq(items) => items.get(parse_index(token)?),
            _ => None,
        }
    }
}

/// Splits a JSON Pointer into unescaped tokens (`None` items for invalid
/// escapes); `None` when the pointer is neither empty nor starts with `/`.
fn tokens(pointer: &str) -> Option<impl Iterator<Item = Option<String>> + '_> {
    let rest = match pointer.strip_prefix('/') {
        Some(rest) => Some(rest),
        None if pointer.is_empty() => None,
        None => return None,
    };
    Some(rest.into_iter().flat_map(|r| r.split('/')).map(unescape))
}

/// RFC 6901 section 4: `~1` → `/`, then `~0` → `~`; any other `~` is invalid.
fn unescape(token: &str) -> Option<String> {
    if !token.contains('~') {
        return Some(token.to_owned());
    }
    let mut out = String::with_capacity(token.len());
    let mut chars = token.chars();
    while let Some(c) = chars.next() {
        if c == '~' {
            match chars.next() {
                Some('0') => out.push('~'),
                Some('1') => out.push('/'),
                _ => return None,
            }
        } else {
            out.push(c);
        }
    }
    Some(out)
}

/// A canonical array index: `0` or digits without a leading zero.
fn parse_index(token: &str) -> Option<usize> {
    let canonical = token == "0"
        || (!token.starts_with('0')
            && !token.is_empty()
            && token.bytes().all(|b| b.is_ascii_digit()));
    if canonical { token.parse().ok() } else { None }
}

/// Fills in the spans of diagnostics about `file` from their JSON pointers.
///
/// A diagnostic qualifies when its `file` is `Some(file)` or `None`, its
/// `span` is `None` and its `json_pointer` is `Some`: its span becomes
/// [`Node::span_of`] the pointer in `root` (the parsed text of `file`), and
/// a `None` file becomes `file`. Other diagnostics are left untouched.
pub fn locate(diagnostics: &mut [Diagnostic], file: &str, root: &Node) {
    for d in diagnostics {
        let ours = d.file.as_deref().is_none_or(|f| f == file);
        if !ours || d.span.is_some() {
            continue;
        }
        if let Some(pointer) = &d.json_pointer {
            d.span = root.span_of(pointer);
            if d.file.is_none() {
                d.file = Some(file.to_owned());
            }
        }
    }
}

/// Parses exactly one YAML document into a spanned [`Node`] tree.
///
/// Empty input, or a document without content, is a `Null` node.
///
/// # Errors
///
/// A single `TQX_PARSE_YAML` diagnostic, with a `span` (no `file`; the
/// caller sets it) and a `help` line, when the text:
///
/// * is not well-formed YAML (the span is the parser's error position);
/// * holds more than one document (the span is the second one's start);
/// * repeats a mapping key (the span is the second key; the help names the
///   line of the first);
/// * uses a tag (`!!str`, `!custom`, `!`), a sequence or mapping as a
///   mapping key, or an alias as a mapping key;
/// * has a plain scalar that looks like a number but cannot be one: `.inf`,
///   `.nan`, an integer outside `i64::MIN..=u64::MAX`, a float that
///   overflows `f64`;
/// * uses an alias inside the node it refers to, or makes aliases copy more
///   than [`MAX_ALIAS_EXPANDED_NODES`] nodes or [`MAX_ALIAS_EXPANDED_BYTES`]
///   bytes of text in total;
/// * nests collections deeper than [`MAX_DEPTH`].
///
/// Never panics; time and memory are linear in the input plus the alias
/// budget.
pub fn parse(text: &str) -> Result<Node, Diagnostic> {
    parse_boxed(text).map_err(|d| *d)
}

fn parse_boxed(text: &str) -> Fallible<Node> {
    let mut builder = Builder::new(text);
    builder.check_stream()?;
    let mut parser = Parser::new_from_str(text);
    while let Some(next) = parser.next_event() {
        let (event, span) = next.map_err(|e| builder.scan_error(&e))?;
        builder.event(event, span.start, span.end)?;
    }
    builder.finish()
}

// ---------------------------------------------------------------------------
// Source positions

/// Maps the parser's character-indexed markers to byte offsets and spans.
struct Source<'a> {
    text: &'a str,
    /// Byte offset of every `STRIDE`-th character (empty for ASCII text,
    /// where character and byte indices coincide).
    checkpoints: Vec<usize>,
}

/// A position in the source: byte offset, 1-based line, 0-based column in
/// characters (the parser's convention).
#[derive(Clone, Copy, Debug)]
struct Mark {
    byte: usize,
    line: usize,
    col: usize,
}

const STRIDE: usize = 64;

impl<'a> Source<'a> {
    fn new(text: &'a str) -> Self {
        let checkpoints = if text.is_ascii() {
            Vec::new()
        } else {
            text.char_indices()
                .step_by(STRIDE)
                .map(|(b, _)| b)
                .collect()
        };
        Source { text, checkpoints }
    }

    fn byte_of(&self, char_index: usize) -> usize {
        if self.checkpoints.is_empty() {
            return char_index.min(self.text.len());
        }
        let Some(&base) = self.checkpoints.get(char_index / STRIDE) else {
            return self.text.len();
        };
        self.text[base..]
            .char_indices()
            .nth(char_index % STRIDE)
            .map_or(self.text.len(), |(b, _)| base + b)
    }

    fn mark(&self, m: Marker) -> Mark {
        Mark {
            byte: self.byte_of(m.index()),
            line: m.line().max(1),
            col: m.col(),
        }
    }

    /// Walks forward from `from` to byte `to`, counting line breaks as the
    /// YAML scanner does (`\n`, `\r\n`, lone `\r`).
    fn advance(&self, from: Mark, to: usize) -> Mark {
        let to = to.clamp(from.byte, self.text.len());
        let mut m = from;
        let mut prev_cr = false;
        for c in self.text[from.byte..to].chars() {
            match c {
                '\n' if prev_cr => {}
                '\n' | '\r' => {
                    m.line += 1;
                    m.col = 0;
                }
                _ => m.col += 1,
            }
            prev_cr = c == '\r';
        }
        m.byte = to;
        m
    }

    fn span(&self, start: Mark, end: Mark) -> Span {
        let end = if end.byte < start.byte { start } else { end };
        Span {
            start: position(start),
            end: position(end),
            bytes: (start.byte, end.byte),
        }
    }

    /// Skips node properties (`&anchor`, `!tag`) with the blanks and
    /// comments after them, never past `end`.
    fn skip_properties(&self, from: usize, end: usize) -> usize {
        let bytes = self.text.as_bytes();
        let end = end.min(bytes.len());
        let mut i = from;
        while i < end && matches!(bytes[i], b'&' | b'!') {
            while i < end && !bytes[i].is_ascii_whitespace() {
                i += 1;
            }
            i = self.skip_blanks(i, end);
        }
        i
    }

    /// Skips spaces, tabs, line breaks and comments, never past `end`.
    fn skip_blanks(&self, from: usize, end: usize) -> usize {
        let bytes = self.text.as_bytes();
        let end = end.min(bytes.len());
        let mut i = from;
        while i < end {
            match bytes[i] {
                b' ' | b'\t' | b'\r' | b'\n' => i += 1,
                b'#' => {
                    while i < end && !matches!(bytes[i], b'\r' | b'\n') {
                        i += 1;
                    }
                }
                _ => break,
            }
        }
        i
    }

    /// The line break ending the line that holds `from` (or `end`).
    fn line_end(&self, from: usize, end: usize) -> usize {
        let bytes = self.text.as_bytes();
        let end = end.min(bytes.len());
        let mut i = from;
        while i < end && !matches!(bytes[i], b'\r' | b'\n') {
            i += 1;
        }
        i
    }

    /// The extent of a scalar event, without its anchor; for a block
    /// scalar, the non-blank content only.
    fn scalar_span(&self, start: Marker, end: Marker, style: ScalarStyle, anchored: bool) -> Span {
        let (start, end) = (self.mark(start), self.mark(end));
        let block = matches!(style, ScalarStyle::Literal | ScalarStyle::Folded);
        let mut from = start.byte;
        let mut to = end.byte.max(from);
        // Only an anchored event's span includes the anchor (and only then
        // does a block scalar's span include its indicator line).
        if anchored {
            from = self.skip_properties(from, to);
            if block && self.text[from..to].starts_with(['|', '>']) {
                from = self.line_end(from, to);
            }
        }
        if block {
            from += self.text[from..to].len() - self.text[from..to].trim_start().len();
            to = from + self.text[from..to].trim_end().len();
        }
        let first = self.advance(start, from);
        let last = self.advance(first, to);
        self.span(first, last)
    }

    /// The start of a collection event, after its anchor.
    fn collection_start(&self, start: Marker, end: Marker, anchored: bool) -> Mark {
        let (start, end) = (self.mark(start), self.mark(end));
        if !anchored {
            return start;
        }
        let from = self.skip_properties(start.byte, end.byte.max(start.byte));
        self.advance(start, from)
    }

    /// The span of the properties token starting with `!` in an event.
    fn tag_span(&self, start: Marker, end: Marker) -> Span {
        let (start, end) = (self.mark(start), self.mark(end));
        let bytes = self.text.as_bytes();
        let mut i = start.byte;
        let limit = end.byte.max(i);
        // Skip an anchor written before the tag (`&a !t x`).
        if i < limit && bytes[i] == b'&' {
            while i < limit && !bytes[i].is_ascii_whitespace() {
                i += 1;
            }
            i = self.skip_blanks(i, limit);
        }
        let mut j = i;
        while j < limit && !bytes[j].is_ascii_whitespace() {
            j += 1;
        }
        let first = self.advance(start, i);
        let last = self.advance(first, j);
        self.span(first, last)
    }

    /// A span covering the character at `m` (empty at a line break or EOF).
    fn char_span(&self, m: Mark) -> Span {
        let width = match self.text[m.byte..].chars().next() {
            Some(c) if c != '\n' && c != '\r' => c.len_utf8(),
            _ => 0,
        };
        self.span(m, self.advance(m, m.byte + width))
    }

    fn text_of(&self, span: Span) -> &'a str {
        self.text.get(span.bytes.0..span.bytes.1).unwrap_or("")
    }
}

fn position(m: Mark) -> Position {
    let sat = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    Position {
        line: sat(m.line),
        column: sat(m.col.saturating_add(1)),
    }
}

// ---------------------------------------------------------------------------
// Tree building

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
    fn new(text: &'a str) -> Self {
        Builder {
            src: Source::new(text),
            stack: Vec::new(),
            anchors: HashMap::new(),
            root: None,
            documents: 0,
            expanded: (0, 0),
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
                let value = resolve(text, style).map_err(|(m, h)| error(span, m, h))?;
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
            let value = resolve(Cow::Borrowed(&text), style).map_err(|(m, h)| error(span, m, h))?;
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

// ---------------------------------------------------------------------------
// Core-schema scalar resolution

/// Resolves a scalar with the YAML 1.2 core schema. `Err((message, help))`
/// for plain scalars that name a number JSON cannot hold.
fn resolve(text: Cow<'_, str>, style: ScalarStyle) -> Result<NodeValue, (String, String)> {
    if style != ScalarStyle::Plain {
        return Ok(NodeValue::String(text.into_owned()));
    }
    let text = &*text;
    let quote_help = |what: &str| format!("{what}; quote it (`\"{text}\"`) to keep it as a string");
    Ok(match text {
        "" | "~" | "null" | "Null" | "NULL" => NodeValue::Null,
        "true" | "True" | "TRUE" => NodeValue::Bool(true),
        "false" | "False" | "FALSE" => NodeValue::Bool(false),
        _ if is_inf_or_nan(text) => {
            return Err((
                format!("`{text}` is not a finite number"),
                quote_help("JSON cannot hold infinity or NaN"),
            ));
        }
        _ => match resolve_number(text) {
            Some(Some(n)) => NodeValue::Number(n),
            Some(None) => {
                return Err((
                    format!("the number `{text}` is out of range"),
                    quote_help("integers must lie in -2^63..=2^64-1 and floats within f64's range"),
                ));
            }
            None => NodeValue::String(text.to_owned()),
        },
    })
}

fn is_inf_or_nan(text: &str) -> bool {
    let unsigned = text.strip_prefix(['+', '-']).unwrap_or(text);
    matches!(unsigned, ".inf" | ".Inf" | ".INF") || matches!(text, ".nan" | ".NaN" | ".NAN")
}

/// `None`: not a core-schema number (so a string). `Some(None)`: a number
/// that does not fit. `Some(Some(n))`: the number.
fn resolve_number(text: &str) -> Option<Option<Number>> {
    let digits = |s: &str, radix: u32| !s.is_empty() && s.chars().all(|c| c.is_digit(radix));
    if let Some(oct) = text.strip_prefix("0o") {
        return digits(oct, 8).then(|| u64::from_str_radix(oct, 8).ok().map(unsigned));
    }
    if let Some(hex) = text.strip_prefix("0x") {
        return digits(hex, 16).then(|| u64::from_str_radix(hex, 16).ok().map(unsigned));
    }
    let (negative, magnitude) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    if digits(magnitude, 10) {
        let n = magnitude.parse::<u64>().ok();
        return Some(match (negative, n) {
            (false, Some(n)) => Some(unsigned(n)),
            (true, Some(n)) if n <= i64::MIN.unsigned_abs() => {
                Some(Number::I64(0i64.wrapping_sub_unsigned(n)))
            }
            _ => None,
        });
    }
    if !is_core_float(magnitude) {
        return None;
    }
    Some(
        text.parse::<f64>()
            .ok()
            .filter(|f| f.is_finite())
            .map(Number::F64),
    )
}

fn unsigned(n: u64) -> Number {
    i64::try_from(n).map_or(Number::U64(n), Number::I64)
}

/// `( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )?`, unsigned.
fn is_core_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    let int_digits = count_digits(&b[i..]);
    i += int_digits;
    let mut frac_digits = 0;
    if b.get(i) == Some(&b'.') {
        i += 1;
        frac_digits = count_digits(&b[i..]);
        i += frac_digits;
    }
    if int_digits == 0 && frac_digits == 0 {
        return false;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let exp_digits = count_digits(&b[i..]);
        if exp_digits == 0 {
            return false;
        }
        i += exp_digits;
    }
    i == b.len()
}

fn count_digits(b: &[u8]) -> usize {
    b.iter().take_while(|c| c.is_ascii_digit()).count()
}
