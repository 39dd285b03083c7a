//! Source positions: the parser's character-indexed markers as byte
//! offsets, lines and columns, and the spans the module documentation
//! describes.

use saphyr_parser::{Marker, ScalarStyle};
use templiqx_contracts::{Position, Span};

/// Maps the parser's character-indexed markers to byte offsets and spans.
pub(super) struct Source<'a> {
    pub(super) text: &'a str,
    /// Byte offset of every `STRIDE`-th character (empty for ASCII text,
    /// where character and byte indices coincide).
    pub(super) checkpoints: Vec<usize>,
}

/// A position in the source: byte offset, 1-based line, 0-based column in
/// characters (the parser's convention).
#[derive(Clone, Copy, Debug)]
pub(super) struct Mark {
    pub(super) byte: usize,
    pub(super) line: usize,
    pub(super) col: usize,
}

pub(super) const STRIDE: usize = 64;

impl<'a> Source<'a> {
    pub(super) fn new(text: &'a str) -> Self {
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

    pub(super) fn byte_of(&self, char_index: usize) -> usize {
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

    pub(super) fn mark(&self, m: Marker) -> Mark {
        Mark {
            byte: self.byte_of(m.index()),
            line: m.line().max(1),
            col: m.col(),
        }
    }

    /// Walks forward from `from` to byte `to`, counting line breaks as the
    /// YAML scanner does (`\n`, `\r\n`, lone `\r`).
    pub(super) fn advance(&self, from: Mark, to: usize) -> Mark {
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

    pub(super) fn span(&self, start: Mark, end: Mark) -> Span {
        let end = if end.byte < start.byte { start } else { end };
        Span {
            start: position(start),
            end: position(end),
            bytes: (start.byte, end.byte),
        }
    }

    /// Skips node properties (`&anchor`, `!tag`) with the blanks and
    /// comments after them, never past `end`.
    pub(super) fn skip_properties(&self, from: usize, end: usize) -> usize {
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
    pub(super) fn skip_blanks(&self, from: usize, end: usize) -> usize {
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
    pub(super) fn line_end(&self, from: usize, end: usize) -> usize {
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
    pub(super) fn scalar_span(
        &self,
        start: Marker,
        end: Marker,
        style: ScalarStyle,
        anchored: bool,
    ) -> Span {
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
        // The scanner's end of a quoted scalar may be past its closing
        // quote, over blanks and a comment (`"x"   # c`).
        if matches!(style, ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted) {
            to = from + closing_quote(&self.text.as_bytes()[from..to]).unwrap_or(to - from);
        }
        let first = self.advance(start, from);
        let last = self.advance(first, to);
        self.span(first, last)
    }

    /// The start of a collection event, after its anchor.
    pub(super) fn collection_start(&self, start: Marker, end: Marker, anchored: bool) -> Mark {
        let (start, end) = (self.mark(start), self.mark(end));
        if !anchored {
            return start;
        }
        let from = self.skip_properties(start.byte, end.byte.max(start.byte));
        self.advance(start, from)
    }

    /// The span of the properties token starting with `!` in an event.
    pub(super) fn tag_span(&self, start: Marker, end: Marker) -> Span {
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
    pub(super) fn char_span(&self, m: Mark) -> Span {
        let width = match self.text[m.byte..].chars().next() {
            Some(c) if c != '\n' && c != '\r' => c.len_utf8(),
            _ => 0,
        };
        self.span(m, self.advance(m, m.byte + width))
    }

    pub(super) fn text_of(&self, span: Span) -> &'a str {
        self.text.get(span.bytes.0..span.bytes.1).unwrap_or("")
    }
}

pub(super) fn position(m: Mark) -> Position {
    let sat = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    Position {
        line: sat(m.line),
        column: sat(m.col.saturating_add(1)),
    }
}

/// The length of a quoted scalar written at the start of `raw`, through
/// its closing quote: `"` after no escaping `\`, or `'` not doubled.
fn closing_quote(raw: &[u8]) -> Option<usize> {
    let quote = *raw.first()?;
    let mut i = 1;
    while i < raw.len() {
        match (raw[i], raw.get(i + 1)) {
            (b'\\', _) if quote == b'"' => i += 2,
            (b'\'', Some(b'\'')) if quote == b'\'' => i += 2,
            (c, _) if c == quote => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}
