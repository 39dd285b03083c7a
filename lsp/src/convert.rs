//! Positions: the compiler's (1-based lines, columns in Unicode scalar
//! values, byte offsets) and the protocol's (0-based lines, columns in
//! UTF-16 code units, the encoding every client supports), and file paths
//! as `file://` URLs.
//!
//! Lines end at `\n`, `\r\n` or a lone `\r`, for the compiler (YAML 1.2) as
//! for the protocol.

use lsp_types::{Position, Range, Url};
use std::path::{Component, Path, PathBuf};
use templiqx_contracts::Span;

/// The line starts of one text, to convert positions in it.
#[derive(Debug)]
pub(crate) struct LineIndex<'a> {
    text: &'a str,
    /// Byte offset of the start of every line; the first is 0.
    starts: Vec<usize>,
    /// Whether each line is ASCII: there a column, a UTF-16 unit and a
    /// byte are one, and positions convert without reading the line (a
    /// long line's many diagnostics convert in linear time).
    ascii: Vec<bool>,
    /// On the other lines, a checkpoint every [`CHECKPOINT_BYTES`] bytes
    /// or so, by byte offset: a position is counted from the checkpoint
    /// before it, not from its line's start, so converting one costs at
    /// most a checkpoint's span whatever the line's length.
    checkpoints: Vec<Checkpoint>,
}

/// How far apart, in bytes, [`LineIndex`] checkpoints are on a non-ASCII
/// line (at least; each is at a character boundary).
const CHECKPOINT_BYTES: usize = 256;

/// A character boundary on a non-ASCII line, and how far it is from the
/// line's start in UTF-16 units and in Unicode scalar values.
#[derive(Clone, Copy, Debug)]
struct Checkpoint {
    byte: usize,
    units: usize,
    chars: usize,
}

impl<'a> LineIndex<'a> {
    pub(crate) fn new(text: &'a str) -> LineIndex<'a> {
        let bytes = text.as_bytes();
        let mut starts = vec![0];
        let mut ascii = Vec::new();
        let mut checkpoints = Vec::new();
        let mut line_ascii = true;
        // Since the line's start, and the byte of its last checkpoint.
        let (mut units, mut chars, mut last) = (0, 0, 0);
        // The checkpoints before the line's.
        let mut line_checkpoints = 0;
        let mut i = 0;
        while i < bytes.len() {
            let start = match bytes[i] {
                b'\n' => Some(i + 1),
                b'\r' if bytes.get(i + 1) == Some(&b'\n') => {
                    i += 1;
                    Some(i + 1)
                }
                b'\r' => Some(i + 1),
                b => {
                    line_ascii &= b.is_ascii();
                    // A byte that is not a UTF-8 continuation byte starts a
                    // character: one unit, two for a 4-byte one.
                    if b & 0xC0 != 0x80 {
                        if i - last >= CHECKPOINT_BYTES {
                            checkpoints.push(Checkpoint {
                                byte: i,
                                units,
                                chars,
                            });
                            last = i;
                        }
                        units += if b >= 0xF0 { 2 } else { 1 };
                        chars += 1;
                    }
                    None
                }
            };
            if let Some(start) = start {
                starts.push(start);
                ascii.push(line_ascii);
                if line_ascii {
                    // An ASCII line converts without them.
                    checkpoints.truncate(line_checkpoints);
                }
                line_ascii = true;
                (units, chars, last) = (0, 0, start);
                line_checkpoints = checkpoints.len();
            }
            i += 1;
        }
        ascii.push(line_ascii);
        if line_ascii {
            checkpoints.truncate(line_checkpoints);
        }
        LineIndex {
            text,
            starts,
            ascii,
            checkpoints,
        }
    }

    /// The text of line `line` (0-based) without its line break; empty past
    /// the end.
    fn line(&self, line: usize) -> (usize, &'a str) {
        let Some(&start) = self.starts.get(line) else {
            return (self.text.len(), "");
        };
        let end = match self.starts.get(line + 1) {
            Some(&next) if self.text[..next].ends_with("\r\n") => next - 2,
            Some(&next) => next - 1,
            None => self.text.len(),
        };
        (start, &self.text[start..end])
    }

    /// The last checkpoint of the line `start..start + len` for which
    /// `before` holds (`before` is monotone along the line), or the line's
    /// start.
    fn checkpoint(
        &self,
        start: usize,
        len: usize,
        before: impl Fn(&Checkpoint) -> bool,
    ) -> Checkpoint {
        let lo = self.checkpoints.partition_point(|c| c.byte < start);
        let hi = self.checkpoints.partition_point(|c| c.byte < start + len);
        let on_line = &self.checkpoints[lo..hi.max(lo)];
        match on_line.partition_point(before).checked_sub(1) {
            Some(k) => on_line[k],
            None => Checkpoint {
                byte: start,
                units: 0,
                chars: 0,
            },
        }
    }

    /// The protocol position of byte `offset` (clamped to the text and to
    /// the start of the character it falls in).
    pub(crate) fn position(&self, offset: usize) -> Position {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let (start, content) = self.line(line);
        // An offset inside a `\r\n` (or at its `\n`) is the end of the line.
        let within = (offset - start).min(content.len());
        let character = if self.ascii[line] {
            within
        } else {
            let target = start + within;
            let from = self.checkpoint(start, content.len(), |c| c.byte <= target);
            from.units + self.text[from.byte..target].encode_utf16().count()
        };
        Position::new(saturate(line), saturate(character))
    }

    /// The byte offset of a protocol position: a character past the end of
    /// its line is the end of the line, a line past the end of the text is
    /// the end of the text (as the protocol asks), and a position inside a
    /// surrogate pair is the start of that character.
    pub(crate) fn offset(&self, position: Position) -> usize {
        let line = position.line as usize;
        if line >= self.starts.len() {
            return self.text.len();
        }
        let (start, content) = self.line(line);
        let wanted = position.character as usize;
        if self.ascii[line] {
            return start + content.len().min(wanted);
        }
        let from = self.checkpoint(start, content.len(), |c| c.units <= wanted);
        let mut units = from.units;
        for (i, c) in self.text[from.byte..start + content.len()].char_indices() {
            let next = units + c.len_utf16();
            if next > wanted {
                return from.byte + i;
            }
            units = next;
        }
        start + content.len()
    }

    /// The byte offset of a compiler position (1-based line and column in
    /// Unicode scalar values), clamped to its line.
    pub(crate) fn offset_of(&self, line: u32, column: u32) -> usize {
        let line = (line.max(1) - 1) as usize;
        if line >= self.starts.len() {
            return self.text.len();
        }
        let (start, content) = self.line(line);
        let skip = (column.max(1) - 1) as usize;
        if self.ascii[line] {
            return start + content.len().min(skip);
        }
        let from = self.checkpoint(start, content.len(), |c| c.chars <= skip);
        self.text[from.byte..start + content.len()]
            .char_indices()
            .nth(skip - from.chars)
            .map_or(start + content.len(), |(i, _)| from.byte + i)
    }

    /// The protocol range of a compiler span, from its lines and columns.
    pub(crate) fn range(&self, span: &Span) -> Range {
        let start = self.offset_of(span.start.line, span.start.column);
        let end = self.offset_of(span.end.line, span.end.column).max(start);
        Range::new(self.position(start), self.position(end))
    }

    /// The protocol range of the byte range `start..end`.
    pub(crate) fn byte_range(&self, start: usize, end: usize) -> Range {
        Range::new(self.position(start), self.position(end.max(start)))
    }
}

fn saturate(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Applies one `didChange` edit to `text`: the whole text when `range` is
/// `None`, else the replacement of `range`.
pub(crate) fn apply_change(text: &mut String, range: Option<Range>, new_text: &str) {
    match range {
        None => new_text.clone_into(text),
        Some(range) => {
            let index = LineIndex::new(text);
            let start = index.offset(range.start);
            let end = index.offset(range.end).max(start);
            text.replace_range(start..end, new_text);
        }
    }
}

/// The path of a `file://` URL.
pub(crate) fn url_to_path(url: &Url) -> Option<PathBuf> {
    if url.scheme() != "file" {
        return None;
    }
    url.to_file_path().ok()
}

/// The `file://` URL of an absolute path.
pub(crate) fn path_to_url(path: &Path) -> Option<Url> {
    Url::from_file_path(path).ok()
}

/// `path` without `.` and `..` segments, lexically (`/a/b/../c` → `/a/c`);
/// for display names of files outside the loader's base (`../lib/x.yaml`).
pub(crate) fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_utf16_units() {
        // `é` is 2 bytes and 1 unit; `𝄞` is 4 bytes and 2 units.
        let text = "a: é𝄞x\r\nb\rc\n";
        let index = LineIndex::new(text);
        let x = text.find('x').unwrap();
        assert_eq!(index.position(x), Position::new(0, 6));
        assert_eq!(index.offset(Position::new(0, 6)), x);
        // Inside the surrogate pair: the start of the character.
        assert_eq!(index.offset(Position::new(0, 5)), text.find('𝄞').unwrap());
        assert_eq!(index.offset_of(1, 6), x);
        assert_eq!(index.position(text.find('b').unwrap()), Position::new(1, 0));
        assert_eq!(index.position(text.find('c').unwrap()), Position::new(2, 0));
        // The `\n` of `\r\n` is the end of line 0.
        assert_eq!(index.position(x + 2), Position::new(0, 7));
        // Past the end of a line, and of the text.
        assert_eq!(
            index.offset(Position::new(1, 99)),
            text.find('b').unwrap() + 1
        );
        assert_eq!(index.offset(Position::new(9, 0)), text.len());
        assert_eq!(index.offset_of(9, 1), text.len());
    }

    /// Every conversion on long lines of mixed widths, against counting
    /// from the line's start (what the checkpoints must not change).
    #[test]
    fn checkpoints_convert_as_counting_from_the_line_start() {
        let long: String = (0..2_000)
            .map(|i| ["a", "é", "𝄞", "語", "b"][i % 5])
            .collect::<Vec<_>>()
            .concat();
        let text = format!("{long}\r\nascii only line\n{long}x\ré{long}");
        let index = LineIndex::new(&text);
        assert!(index.checkpoints.len() > 30, "{}", index.checkpoints.len());
        for (line, content) in text
            .split(['\n', '\r'])
            .filter(|l| !l.is_empty())
            .enumerate()
        {
            let start = index.starts[line];
            assert_eq!(&text[start..start + content.len()], content);
            let mut units = 0;
            for (column, (i, c)) in content.char_indices().enumerate() {
                let expected = Position::new(saturate(line), saturate(units));
                assert_eq!(
                    index.position(start + i),
                    expected,
                    "byte {i} of line {line}"
                );
                assert_eq!(index.offset(expected), start + i);
                assert_eq!(
                    index.offset_of(saturate(line + 1), saturate(column + 1)),
                    start + i
                );
                if c.len_utf16() == 2 {
                    // Inside the surrogate pair: the start of the character.
                    let inside = Position::new(saturate(line), saturate(units + 1));
                    assert_eq!(index.offset(inside), start + i);
                    // Inside its UTF-8 bytes: the start of the character.
                    assert_eq!(index.position(start + i + 2), expected);
                }
                units += c.len_utf16();
            }
            let end = Position::new(saturate(line), saturate(units));
            assert_eq!(index.position(start + content.len()), end);
            assert_eq!(index.offset(end), start + content.len());
            assert_eq!(
                index.offset(Position::new(saturate(line), saturate(units + 9))),
                start + content.len()
            );
        }
    }

    #[test]
    fn incremental_edits_apply_in_utf16() {
        let mut text = "x: é𝄞 name\n".to_owned();
        let range = Range::new(Position::new(0, 7), Position::new(0, 11));
        apply_change(&mut text, Some(range), "nmae");
        assert_eq!(text, "x: é𝄞 nmae\n");
        apply_change(&mut text, None, "y: 1\n");
        assert_eq!(text, "y: 1\n");
    }

    #[test]
    fn paths_normalise_lexically() {
        assert_eq!(
            normalize(Path::new("/pkg/app/../lib/./p.yaml")),
            Path::new("/pkg/lib/p.yaml")
        );
    }
}
