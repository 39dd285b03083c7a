//! What [`PartialJson`](super::PartialJson) reports for a text that is not
//! JSON (RFC 8259): where, what was found there, and what was expected.

use std::fmt;

/// Why a streamed text is not one JSON value (RFC 8259), and where.
///
/// The parser stops at the first byte that no JSON text could continue
/// with, so [`offset`](Self::offset) is the length of the longest prefix of
/// the stream that is still the start of some JSON text. Two kinds are
/// known only when a token ends: a number no double holds
/// ([`PartialErrorKind::NumberOutOfRange`], at the byte after the number,
/// or the end) and a repeated key ([`PartialErrorKind::DuplicateKey`], at
/// the key's closing quote).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartialError {
    pub(super) offset: usize,
    pub(super) found: Option<char>,
    pub(super) kind: PartialErrorKind,
}

impl PartialError {
    /// The byte offset, in UTF-8 bytes from the start of the whole stream
    /// (all deltas fed so far), of the character the parser stopped at; for
    /// an unexpected end, the length of the stream.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The character at [`offset`](Self::offset); `None` when the input
    /// ended there ([`finish`](super::PartialJson::finish) on an
    /// incomplete text).
    pub fn found(&self) -> Option<char> {
        self.found
    }

    /// What is wrong.
    pub fn kind(&self) -> &PartialErrorKind {
        &self.kind
    }

    /// Whether the text was a valid start that ended too soon.
    pub fn is_unexpected_end(&self) -> bool {
        self.found.is_none() && matches!(self.kind, PartialErrorKind::Unexpected(_))
    }
}

/// What is wrong with a streamed text.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PartialErrorKind {
    /// A character (or the end of the input) where only what
    /// [`Expected`] says could follow.
    Unexpected(Expected),
    /// An object key the object already has: the runtime reads JSON as its
    /// strict reader does (`docs/decisions.md`, "Partial JSON while
    /// streaming"), one value per key. Holds the key.
    DuplicateKey(String),
    /// A number whose value overflows a double (`1e400`), which
    /// `serde_json` refuses too.
    NumberOutOfRange,
    /// A `\u` escape of a UTF-16 surrogate that is not half of a pair (a
    /// low surrogate first, or a high one not followed by a `\u` escape of
    /// a low one): no Rust string holds it.
    LoneSurrogate,
    /// An array or object opened inside [`MAX_DEPTH`](super::MAX_DEPTH)
    /// others.
    TooDeep,
    /// The stream grew beyond [`MAX_INPUT_BYTES`](super::MAX_INPUT_BYTES).
    TooLarge,
}

/// What could have followed where a [`PartialError`] stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Expected {
    /// A JSON value.
    Value,
    /// A value or `]` (just after `[`).
    ValueOrArrayEnd,
    /// A string key or `}` (just after `{`).
    KeyOrObjectEnd,
    /// A string key (after `,` in an object).
    Key,
    /// `:` after an object key.
    Colon,
    /// `,` or `]` after an array item.
    CommaOrArrayEnd,
    /// `,` or `}` after an object member.
    CommaOrObjectEnd,
    /// Nothing but white space after the value.
    End,
    /// More of a string: any character but a control character, an escape,
    /// or the closing `"`.
    StringCharacter,
    /// An escape after `\`: one of `"` `\` `/` `b` `f` `n` `r` `t` `u`.
    Escape,
    /// A hexadecimal digit of a `\u` escape.
    HexDigit,
    /// `\u` and a low surrogate (`DC00`–`DFFF`) after a high one.
    LowSurrogate,
    /// A digit (after `-`, `.`, or an exponent's sign).
    Digit,
    /// A digit or a sign after `e`/`E`.
    ExponentDigitOrSign,
    /// `.`, `e`, `E` or the number's end after a leading `0` (no leading
    /// zeros).
    AfterLeadingZero,
    /// The rest of the literal (`true`, `false` or `null`).
    Literal(&'static str),
}

impl fmt::Display for Expected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Expected::Value => "a value",
            Expected::ValueOrArrayEnd => "a value or `]`",
            Expected::KeyOrObjectEnd => "a string key or `}`",
            Expected::Key => "a string key",
            Expected::Colon => "`:` after the key",
            Expected::CommaOrArrayEnd => "`,` or `]`",
            Expected::CommaOrObjectEnd => "`,` or `}`",
            Expected::End => "nothing but white space after the value",
            Expected::StringCharacter => "a string character, an escape or `\"`",
            Expected::Escape => "an escape (`\"` `\\` `/` `b` `f` `n` `r` `t` `u`)",
            Expected::HexDigit => "a hexadecimal digit",
            Expected::LowSurrogate => "the `\\u` escape of a low surrogate",
            Expected::Digit => "a digit",
            Expected::ExponentDigitOrSign => "a digit or a sign of the exponent",
            Expected::AfterLeadingZero => "`.`, an exponent or the number's end after `0`",
            Expected::Literal(word) => return write!(f, "the rest of `{word}`"),
        })
    }
}

impl fmt::Display for PartialError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            PartialErrorKind::Unexpected(expected) => match self.found {
                Some(c) => write!(f, "expected {expected}, found {c:?}")?,
                None => write!(f, "expected {expected}, found the end of the input")?,
            },
            PartialErrorKind::DuplicateKey(key) => write!(f, "duplicate key {key:?} in an object")?,
            PartialErrorKind::NumberOutOfRange => f.write_str("number out of range")?,
            PartialErrorKind::LoneSurrogate => f.write_str("lone surrogate in a `\\u` escape")?,
            PartialErrorKind::TooDeep => write!(
                f,
                "arrays and objects nested deeper than {} levels",
                super::MAX_DEPTH
            )?,
            PartialErrorKind::TooLarge => write!(
                f,
                "the stream is longer than {} bytes",
                super::MAX_INPUT_BYTES
            )?,
        }
        write!(f, " at byte {}", self.offset)
    }
}

impl std::error::Error for PartialError {}
