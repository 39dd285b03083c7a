//! Reading source text: the one way Templiqx turns a file (or standard
//! input, or a request body) into text — contracts, partials and manifests
//! (YAML), and the JSON or YAML documents the CLI and the mock read.
//!
//! * At most [`MAX_SOURCE_BYTES`] are read; a larger input is an I/O error.
//! * A leading UTF-8 byte order mark is skipped, for YAML and JSON alike:
//!   the text starts after it, so line 1, column 1 is the first character
//!   an editor shows, and values (hence contract, interaction and value
//!   fingerprints) are the same with or without it.
//! * Text that is not UTF-8 is a parse error of the document's syntax
//!   (`TQX_PARSE_YAML` or `TQX_PARSE_JSON`), located at the first invalid
//!   byte, not an I/O error: the file was read, its content is wrong.
//!
//! Line and column follow YAML 1.2: `\n`, `\r\n` and a lone `\r` each end a
//! line, and columns count Unicode scalar values ([`position`]).
//!
//! ```
//! use templiqx_build::text::{Syntax, decode};
//!
//! assert_eq!(decode(b"\xEF\xBB\xBFa: 1\n".to_vec(), Syntax::Yaml).unwrap(), "a: 1\n");
//!
//! let bad = decode(b"a: 1\nb: caf\xE9\n".to_vec(), Syntax::Yaml).unwrap_err();
//! assert_eq!(bad.diagnostic.code.as_str(), "TQX_PARSE_YAML");
//! let start = bad.diagnostic.span.unwrap().start;
//! assert_eq!((start.line, start.column), (2, 7));
//! assert_eq!(bad.valid, "a: 1\nb: caf");
//! ```

use std::fmt;
use std::io::Read;
use std::path::Path;
use templiqx_contracts::{Code, Diagnostic, Position, Span};

/// The largest text Templiqx reads (16 MiB): contracts, partials, manifests
/// and scenario documents are small, and a bounded read keeps a stray
/// `/dev/zero` or a huge file from exhausting memory.
pub const MAX_SOURCE_BYTES: u64 = 16 * 1024 * 1024;

/// The UTF-8 encoding of U+FEFF, the byte order mark.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The syntax a text is read as: it decides the code of an encoding error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Syntax {
    /// YAML: contracts, partials, manifests, YAML scenario documents.
    Yaml,
    /// JSON: requests, values to fingerprint, JSON scenario documents.
    Json,
}

impl Syntax {
    /// `TQX_PARSE_YAML` or `TQX_PARSE_JSON`.
    pub fn code(self) -> Code {
        match self {
            Syntax::Yaml => Code::ParseYaml,
            Syntax::Json => Code::ParseJson,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Syntax::Yaml => "YAML",
            Syntax::Json => "JSON",
        }
    }
}

/// Text that is not UTF-8.
#[derive(Clone, Debug, PartialEq)]
pub struct NotUtf8 {
    /// `TQX_PARSE_YAML` or `TQX_PARSE_JSON`, spanned on the first invalid
    /// byte, with a help line; no file (the caller sets it).
    pub diagnostic: Diagnostic,
    /// The text before the first invalid byte (without a byte order mark):
    /// the span is located in it, so it is the source to render the
    /// diagnostic's snippet against.
    pub valid: String,
}

/// Why a text could not be read.
#[derive(Debug)]
pub enum ReadError {
    /// The bytes could not be read (a missing file, no permission, a
    /// directory), or there are more than [`MAX_SOURCE_BYTES`]: the caller
    /// reports `TQX_IO`.
    Io(std::io::Error),
    /// The bytes were read, but are not UTF-8.
    NotUtf8(NotUtf8),
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Io(e) => e.fmt(f),
            ReadError::NotUtf8(e) => f.write_str(&e.diagnostic.message),
        }
    }
}

impl From<std::io::Error> for ReadError {
    fn from(e: std::io::Error) -> ReadError {
        ReadError::Io(e)
    }
}

/// Reads at most [`MAX_SOURCE_BYTES`] bytes from `reader`.
///
/// # Errors
/// The reader's I/O errors; `InvalidData` when there are more bytes.
pub fn read_bytes(reader: impl Read) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    reader.take(MAX_SOURCE_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_SOURCE_BYTES {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("larger than {} MiB", MAX_SOURCE_BYTES / (1024 * 1024)),
        ));
    }
    Ok(bytes)
}

/// Reads text from `reader` ([`read_bytes`], then [`decode`]).
///
/// # Errors
/// [`ReadError::Io`] or [`ReadError::NotUtf8`].
pub fn read(reader: impl Read, syntax: Syntax) -> Result<String, ReadError> {
    let bytes = read_bytes(reader)?;
    decode(bytes, syntax).map_err(ReadError::NotUtf8)
}

/// Reads the text of the file at `path`.
///
/// # Errors
/// [`ReadError::Io`] (a directory is one too) or [`ReadError::NotUtf8`].
pub fn read_file(path: &Path, syntax: Syntax) -> Result<String, ReadError> {
    read(std::fs::File::open(path)?, syntax)
}

/// The text of `bytes`, without a leading byte order mark.
///
/// # Errors
/// [`NotUtf8`] when the bytes are not UTF-8.
pub fn decode(mut bytes: Vec<u8>, syntax: Syntax) -> Result<String, NotUtf8> {
    if bytes.starts_with(BOM) {
        bytes.drain(..BOM.len());
    }
    String::from_utf8(bytes).map_err(|e| not_utf8(e.as_bytes(), e.utf8_error(), syntax))
}

/// [`decode`] for borrowed bytes (a request body).
///
/// # Errors
/// [`NotUtf8`] when the bytes are not UTF-8.
pub fn decode_slice(bytes: &[u8], syntax: Syntax) -> Result<&str, NotUtf8> {
    let bytes = bytes.strip_prefix(BOM).unwrap_or(bytes);
    std::str::from_utf8(bytes).map_err(|e| not_utf8(bytes, e, syntax))
}

fn not_utf8(bytes: &[u8], e: std::str::Utf8Error, syntax: Syntax) -> NotUtf8 {
    let at = e.valid_up_to();
    // The prefix is UTF-8 by definition of `valid_up_to`.
    let valid = String::from_utf8_lossy(&bytes[..at]).into_owned();
    let invalid = &bytes[at..at + e.error_len().unwrap_or(bytes.len() - at)];
    let what = if at == 0 && (bytes.starts_with(b"\xFF\xFE") || bytes.starts_with(b"\xFE\xFF")) {
        "the text is UTF-16 (it starts with a UTF-16 byte order mark), not UTF-8".to_owned()
    } else if e.error_len().is_none() {
        "the text is not UTF-8: it ends inside a multi-byte character".to_owned()
    } else {
        let hex: Vec<String> = invalid.iter().map(|b| format!("0x{b:02X}")).collect();
        format!(
            "the text is not UTF-8: invalid byte{} {}",
            if invalid.len() == 1 { "" } else { "s" },
            hex.join(" ")
        )
    };
    let start = position(&valid, at);
    let mut diagnostic = Diagnostic::error(syntax.code(), format!("invalid {}: {what}", syntax.name()))
        .help("save the file as UTF-8 (convert it, e.g. with `iconv -f <its encoding> -t UTF-8`): Templiqx reads YAML and JSON as UTF-8 only");
    diagnostic.span = Some(Span {
        start,
        end: Position {
            line: start.line,
            column: start.column.saturating_add(1),
        },
        bytes: (at, at + invalid.len()),
    });
    NotUtf8 { diagnostic, valid }
}

/// Refuses JSON `text` holding an integer outside the 64-bit range that
/// `serde_json` would round to a double (two documents, one fingerprint;
/// RFC 8785 writes only exact integers): every JSON reader calls this
/// once the text has parsed as JSON, so malformed text gets the parser's
/// message (a run such as `-` is never called an integer). An integer that
/// is exactly the canonical spelling of a double (`100000000000000000000`)
/// is that double and is read
/// ([`templiqx_contracts::canonical::inexact_integer`]), so canonical JSON
/// output always reads back.
///
/// # Errors
/// `TQX_PARSE_JSON` spanning the first such literal (no file: the caller
/// knows it).
pub fn exact_integers(text: &str) -> Result<(), Diagnostic> {
    let Some((offset, literal)) = templiqx_contracts::canonical::inexact_integer(text) else {
        return Ok(());
    };
    let end = offset + literal.len();
    let help = match templiqx_contracts::canonical::canonical_double(literal) {
        Some(double) => format!(
            "write it as a string, or as `{double}` (the double it would be rounded to) if a \
             double is meant"
        ),
        None => "write it as a string".to_owned(),
    };
    let mut d = Diagnostic::error(
        Code::ParseJson,
        format!(
            "integer `{literal}` is outside the 64-bit range that canonical JSON writes exactly"
        ),
    )
    .help(help);
    d.span = Some(Span {
        start: position(text, offset),
        end: position(text, end),
        bytes: (offset, end),
    });
    Err(d)
}

/// Parses JSON `text` as every JSON document Templiqx reads is parsed
/// (requests, outputs, scenario documents and inventories, gateway
/// bodies): exactly one value (RFC 8259); no object key twice (canonical
/// JSON, RFC 8785, is over I-JSON, which has none, and keeping one of two
/// values would give two different documents one fingerprint); and no
/// integer that would be rounded ([`exact_integers`], checked once the text
/// is well-formed, so text that is not JSON is never described as an
/// integer). A leading byte order mark is the caller's ([`decode`]).
///
/// ```
/// use templiqx_build::text::parse_json;
///
/// assert_eq!(parse_json("{\"a\": [1, 2.5]}").unwrap()["a"][1], 2.5);
/// let d = parse_json("{\"a\": 1,\n \"a\": 2}").unwrap_err();
/// assert_eq!(d.message, "invalid JSON: duplicate key `a` in an object");
/// let start = d.span.unwrap().start;
/// assert_eq!((start.line, start.column), (2, 4)); // the key's closing quote
/// ```
///
/// # Errors
/// `TQX_PARSE_JSON` with no file (the caller knows it), spanning the
/// position the parser stopped at — its own line and column, counted as
/// Templiqx counts them: characters, and every YAML line break
/// ([`position`]) — and a help for the kind of problem.
pub fn parse_json(text: &str) -> Result<serde_json::Value, Diagnostic> {
    let value = match serde_json::from_str::<StrictJson>(text) {
        Ok(StrictJson(value)) => value,
        Err(e) => return Err(json_error(text, &e)),
    };
    exact_integers(text)?;
    Ok(value)
}

/// The `TQX_PARSE_JSON` diagnostic for a `serde_json` error over `text`.
fn json_error(text: &str, e: &serde_json::Error) -> Diagnostic {
    let full = e.to_string();
    // serde_json's text is the message then, when it knows the place,
    // " at line L column C": the span carries the place instead.
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    let message = full.strip_suffix(&suffix).unwrap_or(&full);
    let help = if e.classify() == serde_json::error::Category::Data {
        // The only data errors are the strict reader's own.
        "remove or rename one of the two members: canonical JSON (RFC 8785) has one value per key"
    } else {
        "write exactly one well-formed JSON value (RFC 8259)"
    };
    let mut d = Diagnostic::error(Code::ParseJson, format!("invalid JSON: {message}")).help(help);
    if e.line() > 0 {
        let offset = json_offset(text, e.line(), e.column());
        let start = position(text, offset);
        d.span = Some(Span {
            start,
            end: Position {
                line: start.line,
                column: start.column.saturating_add(1),
            },
            bytes: (offset, offset),
        });
    }
    d
}

/// A JSON value whose objects hold no key twice.
struct StrictJson(serde_json::Value);

impl<'de> serde::Deserialize<'de> for StrictJson {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<StrictJson, D::Error> {
        d.deserialize_any(StrictVisitor).map(StrictJson)
    }
}

struct StrictVisitor;

impl<'de> serde::de::Visitor<'de> for StrictVisitor {
    type Value = serde_json::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Self::Value, E> {
        Ok(v.into())
    }

    fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
        Ok(v.into())
    }

    fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
        Ok(v.into())
    }

    fn visit_f64<E>(self, v: f64) -> Result<Self::Value, E> {
        // serde_json reads only finite doubles from text (`1e400` is its
        // own "number out of range" error), so this is never `Null`.
        Ok(v.into())
    }

    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(v.into())
    }

    fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
        Ok(v.into())
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(serde_json::Value::Null)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut items = Vec::new();
        while let Some(StrictJson(v)) = seq.next_element()? {
            items.push(v);
        }
        Ok(items.into())
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut object = serde_json::Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if object.contains_key(&key) {
                return Err(serde::de::Error::custom(format_args!(
                    "duplicate key `{key}` in an object"
                )));
            }
            let StrictJson(value) = map.next_value()?;
            object.insert(key, value);
        }
        Ok(object.into())
    }
}

/// The 1-based line and column of byte `offset` in `text` (clamped to the
/// text, and to the start of the character it falls in). `\n`, `\r\n` and a
/// lone `\r` each end a line (YAML 1.2); columns count Unicode scalar
/// values.
pub fn position(text: &str, offset: usize) -> Position {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let bytes = text.as_bytes();
    let (mut line, mut line_start) = (1usize, 0usize);
    for (i, &b) in bytes[..offset].iter().enumerate() {
        let ends_line = b == b'\n' || (b == b'\r' && bytes.get(i + 1) != Some(&b'\n'));
        if ends_line {
            line += 1;
            line_start = i + 1;
        }
    }
    let column = text[line_start..offset].chars().count() + 1;
    Position {
        line: u32::try_from(line).unwrap_or(u32::MAX),
        column: u32::try_from(column).unwrap_or(u32::MAX),
    }
}

/// The byte offset in `text` of a position as `serde_json` reports it: a
/// 1-based line counting `\n` only, and a column counting bytes (the last
/// byte read; 0 at the start of a line). Pass it to [`position`] for the
/// line and column Templiqx reports (characters, YAML line breaks).
pub fn json_offset(text: &str, line: usize, column: usize) -> usize {
    let line_start = if line <= 1 {
        0
    } else {
        text.match_indices('\n')
            .nth(line - 2)
            .map_or(text.len(), |(i, _)| i + 1)
    };
    line_start
        .saturating_add(column.saturating_sub(1))
        .min(text.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(p: Position) -> (u32, u32) {
        (p.line, p.column)
    }

    #[test]
    fn positions_count_every_yaml_line_break_and_characters() {
        let text = "a\nb\r\nc\rdé\u{1F600}x";
        assert_eq!(at(position(text, 0)), (1, 1));
        assert_eq!(at(position(text, 2)), (2, 1));
        // The `\n` of a `\r\n` is on the line the `\r` ends.
        assert_eq!(at(position(text, 4)), (2, 3));
        assert_eq!(at(position(text, 5)), (3, 1));
        assert_eq!(at(position(text, 7)), (4, 1));
        let x = text.find('x').unwrap();
        assert_eq!(at(position(text, x)), (4, 4));
        // Inside a character: its start; past the end: the end.
        assert_eq!(at(position(text, x - 1)), (4, 3));
        assert_eq!(at(position(text, 999)), (4, 5));
        assert_eq!(at(position("", 3)), (1, 1));
    }

    #[test]
    fn json_offsets_map_byte_columns_to_characters() {
        let text = "{\n\"é\": 1,}";
        // serde_json reports the trailing comma at the `}`: line 2, byte
        // column 9; it is character 8.
        let offset = json_offset(text, 2, 9);
        assert_eq!(&text[offset..=offset], "}");
        assert_eq!(at(position(text, offset)), (2, 8));
        assert_eq!(json_offset(text, 2, 0), 2);
        assert_eq!(json_offset(text, 9, 9), text.len());
    }

    #[test]
    fn a_byte_order_mark_is_skipped_once() {
        assert_eq!(
            decode(b"\xEF\xBB\xBF{}".to_vec(), Syntax::Json).unwrap(),
            "{}"
        );
        assert_eq!(decode_slice(b"\xEF\xBB\xBF{}", Syntax::Json).unwrap(), "{}");
        assert_eq!(
            decode(b"\xEF\xBB\xBF\xEF\xBB\xBF".to_vec(), Syntax::Yaml).unwrap(),
            "\u{feff}"
        );
        assert_eq!(decode(Vec::new(), Syntax::Yaml).unwrap(), "");
    }

    #[test]
    fn invalid_bytes_are_located_parse_errors() {
        let e = decode(b"\xEF\xBB\xBFkind: \xFF\xFE\n".to_vec(), Syntax::Yaml).unwrap_err();
        assert_eq!(e.diagnostic.code, Code::ParseYaml);
        assert_eq!(
            e.diagnostic.message,
            "invalid YAML: the text is not UTF-8: invalid byte 0xFF"
        );
        assert!(e.diagnostic.help.as_deref().unwrap().contains("UTF-8"));
        let span = e.diagnostic.span.unwrap();
        assert_eq!((at(span.start), at(span.end)), ((1, 7), (1, 8)));
        assert_eq!(span.bytes, (6, 7));
        assert_eq!(e.valid, "kind: ");
        assert!(e.diagnostic.file.is_none());

        let e = decode_slice(b"{\r\"a\": \"\xC3", Syntax::Json).unwrap_err();
        assert_eq!(e.diagnostic.code, Code::ParseJson);
        assert_eq!(
            e.diagnostic.message,
            "invalid JSON: the text is not UTF-8: it ends inside a multi-byte character"
        );
        assert_eq!(at(e.diagnostic.span.unwrap().start), (2, 7));

        let e = decode(b"\xFF\xFEa\x00".to_vec(), Syntax::Yaml).unwrap_err();
        assert!(
            e.diagnostic.message.contains("UTF-16"),
            "{}",
            e.diagnostic.message
        );
        assert_eq!(at(e.diagnostic.span.unwrap().start), (1, 1));
        assert_eq!(e.valid, "");
    }

    #[test]
    fn too_much_input_is_an_io_error() {
        let huge = std::io::repeat(b'a').take(MAX_SOURCE_BYTES + 1);
        match read(huge, Syntax::Yaml) {
            Err(ReadError::Io(e)) => assert_eq!(e.kind(), std::io::ErrorKind::InvalidData),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn bad_json_is_located_and_the_place_leaves_the_message() {
        let d = parse_json("{\n  \"a\": 1,\n}").unwrap_err();
        assert_eq!(d.code, Code::ParseJson);
        assert_eq!(d.message, "invalid JSON: trailing comma");
        assert_eq!(d.span.unwrap().start.line, 3);
        assert_eq!(d.file, None);
        let d = parse_json("").unwrap_err();
        assert_eq!(d.message, "invalid JSON: EOF while parsing a value");
        assert_eq!(
            d.help.as_deref(),
            Some("write exactly one well-formed JSON value (RFC 8259)")
        );
    }

    #[test]
    fn json_columns_count_characters_and_lines_end_at_any_break() {
        // serde_json reports the trailing comma at the `}`, byte column 12;
        // it is character 10.
        let d = parse_json("{\"éé\": 1,}").unwrap_err();
        let start = d.span.unwrap().start;
        assert_eq!((start.line, start.column), (1, 10));
        // A lone `\r` ends a line, as in YAML and in the snippet.
        let d = parse_json("{\r\"a\": 1 x\r}").unwrap_err();
        let start = d.span.unwrap().start;
        assert_eq!((start.line, start.column), (2, 8));
        let d = parse_json("[\r\r99999999999999999999]").unwrap_err();
        let span = d.span.unwrap();
        assert_eq!((span.start.line, span.start.column), (3, 1));
        assert_eq!(span.end.column, 21);
    }

    #[test]
    fn duplicate_keys_are_rejected_at_any_depth() {
        for text in [r#"{"a": 1, "a": 1}"#, r#"[{"b": {"c": 1, "c": 2}}]"#] {
            let d = parse_json(text).unwrap_err();
            assert_eq!(d.code, Code::ParseJson);
            assert!(d.message.contains("duplicate key"), "{}", d.message);
            assert_eq!(
                d.help.as_deref(),
                Some(
                    "remove or rename one of the two members: canonical JSON (RFC 8785) has one value per key"
                )
            );
        }
        let ok = parse_json(r#"{"a": {"a": [1.5, -2, 18446744073709551615]}}"#);
        assert_eq!(
            ok.unwrap(),
            serde_json::json!({"a": {"a": [1.5, -2, 18446744073709551615u64]}})
        );
    }
}
