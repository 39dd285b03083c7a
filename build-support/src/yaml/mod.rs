//! Strict YAML → spanned node tree (`docs/decisions.md`, "YAML library").
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

mod builder;
mod scalar;
mod source;

use templiqx_contracts::{Diagnostic, JsonType, Number, Span, Suggestion, position};

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
    Number(Number<'static>),
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
    builder::parse(text, false).map_err(|d| *d)
}

/// The spanned tree of a JSON document (JSON is YAML 1.2 flow syntax), for
/// locating diagnostics by JSON Pointer only: what JSON allows and a YAML
/// value does not — an integer beyond 64 bits, a character YAML does not
/// print (DEL, C1 controls) inside a string — is no error here, and such a
/// number's value is its text. The document's values come from the JSON
/// reader (`templiqx_contracts::json::parse`), never from this tree.
///
/// ```
/// use templiqx_build::yaml;
///
/// let text = "{\"a\": [1, 100000000000000000001, \"\u{7f}\"]}";
/// assert!(yaml::parse(text).is_err());
/// let tree = yaml::parse_spans(text).unwrap();
/// assert_eq!(tree.span_of("/a/1").unwrap().start.column, 11);
/// ```
///
/// # Errors
/// `TQX_PARSE_YAML`, as [`parse`], for text that is not a YAML document.
pub fn parse_spans(text: &str) -> Result<Node, Diagnostic> {
    builder::parse(text, true).map_err(|d| *d)
}

/// Whether `word` reads back as the same string wherever a scalar or a key
/// is written, plain, in block or flow context: it starts with a letter or
/// `_`, continues with letters, digits, `_`, `-`, `.`, and `:` followed by
/// one of those, and is not a YAML 1.2 core-schema null or boolean
/// (`null`, `True`, ...). Replacing a whole scalar or key, whatever its
/// style, by such a word keeps the document's structure.
///
/// ```
/// use templiqx_build::yaml::is_plain_word;
///
/// assert!(is_plain_word("inputs.name"));
/// assert!(is_plain_word("tool_contract:search"));
/// assert!(!is_plain_word("first name"));
/// assert!(!is_plain_word("2fa"));
/// assert!(!is_plain_word("null"));
/// assert!(!is_plain_word("a:"));
/// ```
pub fn is_plain_word(word: &str) -> bool {
    let inner = |c: char| c.is_alphanumeric() || matches!(c, '_' | '-' | '.');
    let mut chars = word.chars().peekable();
    let Some(first) = chars.next() else {
        return false;
    };
    if !(first.is_alphabetic() || first == '_') {
        return false;
    }
    while let Some(c) = chars.next() {
        let ok = inner(c) || (c == ':' && chars.peek().is_some_and(|&n| inner(n)));
        if !ok {
            return false;
        }
    }
    !matches!(
        word,
        "null" | "Null" | "NULL" | "true" | "True" | "TRUE" | "false" | "False" | "FALSE"
    )
}

/// `value` as a YAML double-quoted scalar, which reads back as `value`
/// wherever a scalar or a key is written: `"` and `\` escaped, and every
/// character outside YAML 1.2's printable set (control characters, DEL,
/// the C1 controls, U+FEFF, U+FFFE, U+FFFF) written as a `\u` escape.
///
/// ```
/// use templiqx_build::yaml::{self, double_quoted};
///
/// let name = "first \"name\"\u{7f}";
/// let text = format!("{}: 1\n", double_quoted(name));
/// assert_eq!(text, "\"first \\\"name\\\"\\u007F\": 1\n");
/// let root = yaml::parse(&text).unwrap();
/// assert_eq!(root.as_map().unwrap()[0].0.text, name);
/// ```
pub fn double_quoted(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() || matches!(c, '\u{feff}' | '\u{fffe}' | '\u{ffff}') => {
                out.push_str(&format!("\\u{:04X}", u32::from(c)));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The byte offset in `text` at which the string `value` of the scalar or
/// key spanning `span` is written as is: plain, or quoted without escapes
/// or folded lines (the offset is then past the opening quote). `None`
/// when it is written otherwise, or `span` is not in `text`.
///
/// ```
/// use templiqx_build::yaml::{self, verbatim};
///
/// let text = "a: inputs.x\nb: { c: \"inputs.y\" }\nd: \"inputs.\\x7a\"\n";
/// let root = yaml::parse(text).unwrap();
/// let at = |p: &str| {
///     let node = root.pointer(p).unwrap();
///     verbatim(text, &node.span, node.as_str().unwrap())
/// };
/// assert_eq!(at("/a"), Some(3));
/// assert_eq!(at("/b/c"), Some(21));
/// assert_eq!(at("/d"), None);
/// ```
pub fn verbatim(text: &str, span: &Span, value: &str) -> Option<usize> {
    let (start, end) = span.bytes;
    let raw = text.get(start..end)?;
    if raw == value {
        return Some(start);
    }
    let quoted = raw.len() == value.len() + 2
        && matches!(raw.as_bytes()[0], b'"' | b'\'')
        && raw.as_bytes()[0] == raw.as_bytes()[raw.len() - 1]
        && raw.get(1..raw.len() - 1) == Some(value);
    quoted.then_some(start + 1)
}

/// The fix that writes `replacement` in place of the whole scalar or key
/// at `span`, whatever its style: `None` unless `replacement` is a
/// [plain word](is_plain_word).
pub fn replace_whole(span: Span, replacement: String) -> Option<Suggestion> {
    is_plain_word(&replacement).then_some(Suggestion { replacement, span })
}

/// The fix that writes `replacement` in place of the bytes `range` of the
/// string `value` of the scalar or key spanning `span` in `text` (a
/// misspelt segment of a reference path): `None` unless the value is
/// written [verbatim], `range` is in it, and `replacement` is a
/// [plain word](is_plain_word), so the edit keeps the scalar's style.
///
/// ```
/// use templiqx_build::yaml::{self, replace_part};
///
/// let text = "path: \"inputs.nmae.first\"\n";
/// let node = yaml::parse(text).unwrap().pointer("/path").unwrap().clone();
/// let fix = replace_part(text, &node.span, "inputs.nmae.first", 0..11, "inputs.name".into())
///     .unwrap();
/// assert_eq!(&text[fix.span.bytes.0..fix.span.bytes.1], "inputs.nmae");
/// assert_eq!((fix.span.start.column, fix.span.end.column), (8, 19));
/// ```
pub fn replace_part(
    text: &str,
    span: &Span,
    value: &str,
    range: std::ops::Range<usize>,
    replacement: String,
) -> Option<Suggestion> {
    let at = verbatim(text, span, value)?;
    value.get(range.clone())?;
    if !is_plain_word(&replacement) {
        return None;
    }
    let (start, end) = (at + range.start, at + range.end);
    Some(Suggestion {
        replacement,
        span: Span {
            start: position(text, start),
            end: position(text, end),
            bytes: (start, end),
        },
    })
}
