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
    check_size(bytes)
}

/// `bytes`, when there are at most [`MAX_SOURCE_BYTES`].
///
/// # Errors
/// `InvalidData` when there are more.
pub(crate) fn check_size(bytes: Vec<u8>) -> std::io::Result<Vec<u8>> {
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

pub use templiqx_contracts::position;

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
}
