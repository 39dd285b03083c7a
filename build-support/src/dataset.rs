//! Eval datasets (`docs/format.md`, "Datasets"): the rows of an eval entry
//! that names a data file instead of giving one case inline, read as a
//! stream and checked as the compiler checks an inline fixture.
//!
//! A file is JSON Lines (`.jsonl`: one JSON object a line,
//! `{"id"?, "inputs"?, "context"?, "case"?, "fake_output"?}`; a blank line
//! is no row) or CSV (`.csv`: a header row whose columns are dotted paths
//! — `id`, `inputs.text`, `context.locale`, `case.label`,
//! `fake_output.label`, or a whole part, `case`, whose cells are JSON (an
//! object of the fields for `inputs` and `context`) —
//! then one row a record). A CSV cell is typed by the schema its column
//! names ([`RowTypes`]): text for a string, a number for `integer` and
//! `number`, `true`/`false` for a boolean, JSON for anything else; an
//! empty cell leaves the value out.
//!
//! [`Rows`] reads one row at a time from any [`Read`], so
//! the rows of a file are never all in memory; [`RowTypes::check`] turns
//! a [`RawRow`] into a [`Row`] or the diagnostics (`TQX_EVAL_INVALID`)
//! that name the file, the row, its line and the JSON pointer of the
//! value. The compiler runs both for every row when a contract compiles;
//! an eval runner runs them again to execute the rows
//! ([`read_rows`]).
//!
//! ```
//! use templiqx_build::dataset::{Format, RowField, RowTypes, Rows};
//! use templiqx_contracts::Schema;
//!
//! let text = "id,inputs.text,case.stars\nfirst,great,5\nsecond,poor,one\n";
//! let string = Schema { types: templiqx_contracts::TypeSet::STRING, ..Schema::ANY };
//! let integer = Schema { types: templiqx_contracts::TypeSet::INTEGER, ..Schema::ANY };
//! let case = Schema {
//!     types: templiqx_contracts::TypeSet::OBJECT,
//!     properties: templiqx_contracts::Seq::Owned(vec![("stars".into(), integer)]),
//!     ..Schema::ANY
//! };
//! let types = RowTypes {
//!     inputs: vec![RowField { name: "text", schema: Some(&string), required: true }],
//!     context: Vec::new(),
//!     case: Some(&case),
//!     output: None,
//! };
//! let mut rows = Rows::new(Format::Csv, text.as_bytes(), "evals/reviews.csv");
//! let first = types.check(&rows.next().unwrap().unwrap(), rows.columns()).unwrap();
//! assert_eq!(first.id, "first");
//! assert_eq!(first.case, Some(serde_json::json!({ "stars": 5 })));
//! let second = types.check(&rows.next().unwrap().unwrap(), rows.columns()).unwrap_err();
//! assert_eq!(second[0].code.as_str(), "TQX_EVAL_INVALID");
//! assert_eq!(second[0].json_pointer.as_deref(), Some("/case/stars"));
//! assert!(second[0].message.contains("line 3"), "{}", second[0].message);
//! ```

use crate::file_system::FileSystem;
use serde_json::{Map, Value};
use std::collections::VecDeque;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;
use templiqx_contracts::validate::{SchemaViolation, validate};
use templiqx_contracts::{AsValue, Code, Diagnostic, JsonType, Position, Schema, Span, words};

/// The parts of a row, as JSONL keys and the first segment of CSV columns.
pub const PARTS: &[&str] = &["id", "inputs", "context", "case", "fake_output"];

/// The format of a data file, told by its extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// JSON Lines (`.jsonl`).
    Jsonl,
    /// Comma-separated values with a header row (`.csv`).
    Csv,
}

impl Format {
    /// The format of the file at `path` (`.jsonl` or `.csv`), `None` for
    /// any other extension.
    pub fn of(path: &str) -> Option<Format> {
        if path.ends_with(".jsonl") {
            Some(Format::Jsonl)
        } else if path.ends_with(".csv") {
            Some(Format::Csv)
        } else {
            None
        }
    }
}

/// One row as read, before it is typed and checked ([`RowTypes::check`]).
#[derive(Clone, Debug)]
pub struct RawRow {
    /// The 1-based row number: the line of a JSONL file, the record after
    /// the header of a CSV file. A row without `id` is named by it.
    pub number: u64,
    /// Where the row is in the file: its first line, from column 1 to the
    /// line's end. Lines end at `\n`, `\r\n` or a lone `\r` (a CSV record
    /// may span several); a leading byte order mark is not a column, and
    /// the bytes are offsets in the text without it.
    pub span: Span,
    /// The file's name as diagnostics show it.
    file: std::sync::Arc<str>,
    data: RawData,
}

#[derive(Clone, Debug)]
enum RawData {
    /// A JSON Lines row: its value, and its line as written (to point at a
    /// value within it).
    Json(Value, Box<str>),
    Csv(Vec<String>),
}

/// A CSV column: its header and its path (`case.label` → `case`, `label`).
#[derive(Clone, Debug)]
pub struct Column {
    /// The header as written.
    pub header: String,
    segments: Vec<String>,
}

/// A checked row: what an inline fixture holds, and its id.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// Its `id`, else its 1-based row number.
    pub id: String,
    /// Its 1-based row number ([`RawRow::number`]).
    pub number: u64,
    /// Its line in the file.
    pub line: u32,
    /// Its inputs (`{}` when it has none).
    pub inputs: Map<String, Value>,
    /// Its context (`{}` when it has none).
    pub context: Map<String, Value>,
    /// Its expected data, typed by the entry's `case_schema`.
    pub case: Option<Value>,
    /// Its canned model output, valid against `output_schema`.
    pub fake_output: Option<Value>,
}

/// A declared field a row's `inputs` or `context` is checked against.
#[derive(Clone, Copy, Debug)]
pub struct RowField<'s> {
    /// The field name.
    pub name: &'s str,
    /// Its compiled schema (`None` when it did not compile: not checked).
    pub schema: Option<&'s Schema>,
    /// Whether every row must give it.
    pub required: bool,
}

/// What the rows of one eval entry are typed and checked by: the
/// contract's declarations, the entry's `case_schema` and `output_schema`.
#[derive(Clone, Debug, Default)]
pub struct RowTypes<'s> {
    /// The declared inputs.
    pub inputs: Vec<RowField<'s>>,
    /// The declared context fields.
    pub context: Vec<RowField<'s>>,
    /// The compiled `case_schema`; `None` when the entry has none (a row
    /// with a `case` is then invalid).
    pub case: Option<&'s Schema>,
    /// The compiled `output_schema` a `fake_output` must satisfy (`None`:
    /// not checked).
    pub output: Option<&'s Schema>,
}

/// The rows of a data file, read one at a time from a stream: each item is
/// a [`RawRow`], or a diagnostic (`TQX_EVAL_INVALID`) for a line that is
/// not a row (not JSON, a byte order mark anywhere but at the file's
/// start, not UTF-8, a CSV record of the wrong length, a CSV quoted cell
/// never closed, a header that names no part of a row); reading stops
/// after an I/O error or an unclosed quote. Rows are at their lines as
/// `docs/format.md` ("Datasets") counts them: `\n`, `\r\n` and a lone
/// `\r` each end a CSV line, blank lines included.
pub struct Rows<R: Read> {
    file: std::sync::Arc<str>,
    inner: Inner<R>,
    columns: Vec<Column>,
    done: bool,
}

enum Inner<R: Read> {
    Jsonl {
        reader: BufReader<R>,
        line: u64,
        offset: usize,
        buffer: String,
    },
    Csv {
        reader: Box<csv::Reader<Tracked<R>>>,
        record: csv::StringRecord,
        number: u64,
        header: Option<Diagnostic>,
    },
}

impl<R: Read> Rows<R> {
    /// The rows of `reader`, a file of `format` that diagnostics name
    /// `file`. A CSV header is read at once.
    pub fn new(format: Format, reader: R, file: &str) -> Rows<R> {
        let file: std::sync::Arc<str> = file.into();
        let inner = match format {
            Format::Jsonl => Inner::Jsonl {
                reader: BufReader::new(reader),
                line: 0,
                offset: 0,
                buffer: String::new(),
            },
            Format::Csv => Inner::Csv {
                reader: Box::new(
                    csv::ReaderBuilder::new()
                        .has_headers(true)
                        .from_reader(Tracked::new(reader)),
                ),
                record: csv::StringRecord::new(),
                number: 0,
                header: None,
            },
        };
        let mut rows = Rows {
            file,
            inner,
            columns: Vec::new(),
            done: false,
        };
        rows.read_header();
        rows
    }

    /// The CSV columns (empty for JSON Lines).
    pub fn columns(&self) -> &[Column] {
        &self.columns
    }

    fn read_header(&mut self) {
        let Inner::Csv { reader, header, .. } = &mut self.inner else {
            return;
        };
        let record_at = |reader: &mut csv::Reader<Tracked<R>>, p: Option<&csv::Position>| {
            p.map(|p| {
                let byte = usize::try_from(p.byte()).unwrap_or(usize::MAX);
                reader.get_mut().record_at(byte)
            })
        };
        let headers = match reader.headers() {
            Ok(h) => h.clone(),
            Err(e) => {
                let at = record_at(reader, e.position());
                *header = Some(csv_error(&self.file, &e, at));
                return;
            }
        };
        // The header is the file's first record (after any blank lines).
        let (line, start, end, chars) =
            record_at(reader, headers.position()).unwrap_or((1, 0, 0, 0));
        // A quote the header opens and nothing closes took the whole file.
        if let Some(opened) = reader.get_ref().unclosed.filter(|o| o.0 >= start) {
            *header = Some(unclosed_quote(&self.file, line, opened));
            return;
        }
        let mut problems = Vec::new();
        for (i, text) in headers.iter().enumerate() {
            let segments: Vec<String> = text.split('.').map(str::to_owned).collect();
            let first = segments[0].as_str();
            let problem = if !PARTS.contains(&first) {
                Some(format!(
                    "column {} `{text}` names no part of a row ({})",
                    i + 1,
                    words::did_you_mean(first, PARTS, "a row has ")
                ))
            } else if segments.iter().any(String::is_empty) {
                Some(format!("column {} `{text}` has an empty segment", i + 1))
            } else if first == "id" && segments.len() > 1 {
                Some(format!("column {} `{text}`: `id` has no parts", i + 1))
            } else if self.columns.iter().any(|c| c.header == text) {
                Some(format!("column `{text}` is there twice"))
            } else {
                None
            };
            match problem {
                Some(p) => problems.push(p),
                None => self.columns.push(Column {
                    header: text.to_owned(),
                    segments,
                }),
            }
        }
        if !problems.is_empty() {
            *header = Some(
                diagnostic(
                    &self.file,
                    line_span(line, (start, end), chars),
                    None,
                    format!(
                        "the header of `{}` (line {line}) is invalid: {}",
                        self.file,
                        problems.join("; ")
                    ),
                )
                .help("name each column by a dotted path below `id`, `inputs`, `context`, `case` or `fake_output` (`inputs.text`, `case.label`)"),
            );
        }
    }
}

impl<R: Read> Iterator for Rows<R> {
    type Item = Result<RawRow, Diagnostic>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match &mut self.inner {
            Inner::Jsonl {
                reader,
                line,
                offset,
                buffer,
            } => {
                loop {
                    buffer.clear();
                    let start = *offset;
                    let read = match reader.read_line(buffer) {
                        Ok(0) => {
                            self.done = true;
                            return None;
                        }
                        Ok(n) => n,
                        Err(e) => {
                            self.done = true;
                            *line += 1;
                            let number = u32::try_from(*line).unwrap_or(u32::MAX);
                            let why = if e.kind() == io::ErrorKind::InvalidData {
                                "is not UTF-8".to_owned()
                            } else {
                                format!("cannot be read: {e}")
                            };
                            return Some(Err(diagnostic(
                                &self.file,
                                line_span(number, (start, start), 0),
                                None,
                                format!("line {number} of `{}` {why}", self.file),
                            )
                            .help("write the data file as UTF-8 text, one JSON object a line")));
                        }
                    };
                    // A byte order mark may start the file (it is not a
                    // column, and offsets are in the text without it).
                    let bom = if *line == 0 && buffer.starts_with('\u{feff}') {
                        buffer.drain(..'\u{feff}'.len_utf8());
                        '\u{feff}'.len_utf8()
                    } else {
                        0
                    };
                    *line += 1;
                    *offset += read - bom;
                    let text = buffer.trim_end_matches(['\n', '\r']);
                    if text.trim().is_empty() {
                        continue;
                    }
                    let number = u32::try_from(*line).unwrap_or(u32::MAX);
                    let span = line_span(number, (start, start + text.len()), text.chars().count());
                    let parsed = templiqx_contracts::json::parse(text).and_then(|json| {
                        serde_json::to_value(&json)
                            .map_err(|e| Diagnostic::error(Code::ParseJson, e.to_string()))
                    });
                    return Some(match parsed {
                        Ok(value) => Ok(RawRow {
                            number: *line,
                            span,
                            file: self.file.clone(),
                            data: RawData::Json(value, text.into()),
                        }),
                        Err(d) => Err(not_json(&self.file, number, text, span, &d)),
                    });
                }
            }
            Inner::Csv {
                reader,
                record,
                number,
                header,
            } => {
                if let Some(d) = header.take() {
                    self.done = true;
                    return Some(Err(d));
                }
                let read = reader.read_record(record);
                // Where the record is: its position as the reader gives it,
                // made the record's own line by the breaks read.
                let position = match &read {
                    Ok(_) => record.position(),
                    Err(e) => e.position(),
                };
                let at = position.map(|p| {
                    let byte = usize::try_from(p.byte()).unwrap_or(usize::MAX);
                    reader.get_mut().record_at(byte)
                });
                // A quoted cell left open at the end of the file swallowed
                // the rest of it into one cell: that, not the cells it left.
                if let Some((opened, (line, ..))) = reader.get_ref().unclosed.zip(at)
                    && matches!(read, Ok(true) | Err(_))
                    && opened.0 >= at.map_or(0, |a| a.1)
                {
                    self.done = true;
                    return Some(Err(unclosed_quote(&self.file, line, opened)));
                }
                match read {
                    Ok(false) => {
                        self.done = true;
                        None
                    }
                    Ok(true) => {
                        *number += 1;
                        let (line, start, end, chars) = at.unwrap_or((1, 0, 0, 0));
                        Some(Ok(RawRow {
                            number: *number,
                            span: line_span(line, (start, end), chars),
                            file: self.file.clone(),
                            data: RawData::Csv(record.iter().map(str::to_owned).collect()),
                        }))
                    }
                    Err(e) => {
                        // A record of the wrong length is one bad row; a
                        // stream that fails is the end.
                        let resumable = matches!(e.kind(), csv::ErrorKind::UnequalLengths { .. });
                        if !resumable {
                            self.done = true;
                        } else {
                            *number += 1;
                        }
                        Some(Err(csv_error(&self.file, &e, at)))
                    }
                }
            }
        }
    }
}

/// A quoted cell never closed, at `line` (the record's), its quote at
/// `opened` (byte, line, column).
fn unclosed_quote(
    file: &str,
    line: u32,
    (byte, quote_line, column): (usize, u64, usize),
) -> Diagnostic {
    let quote_line = u32::try_from(quote_line).unwrap_or(u32::MAX);
    let column = u32::try_from(column).unwrap_or(u32::MAX);
    let at = if quote_line == line {
        format!("its quote at column {column}")
    } else {
        format!("its quote at line {quote_line}, column {column},")
    };
    let mut d = diagnostic(
        file,
        Span {
            start: Position {
                line: quote_line,
                column,
            },
            end: Position {
                line: quote_line,
                column: column.saturating_add(1),
            },
            bytes: (byte, byte + 1),
        },
        None,
        format!(
            "line {line} of `{file}` has a quoted cell that is never closed: {at} opens a cell that runs to the end of the file"
        ),
    );
    d.help = Some("close the quoted cell with `\"` (a quote inside one is written twice, `\"\"`), or leave the cell unquoted".into());
    d
}

/// A JSON Lines line `text` (line `number`, at `span`) that is not JSON,
/// as the parser found (`found`): a byte order mark where it stopped is
/// named, since only the file's start may have one.
fn not_json(file: &str, number: u32, text: &str, span: Span, found: &Diagnostic) -> Diagnostic {
    let stopped = found.span.map(|s| s.bytes.0);
    let bom = stopped.and_then(|at| {
        text.char_indices()
            .find(|&(i, c)| i <= at && at < i + c.len_utf8())
            .filter(|&(_, c)| c == '\u{feff}')
            .map(|(i, _)| i)
    });
    if let Some(at) = bom {
        let column = u32::try_from(text[..at].chars().count())
            .unwrap_or(u32::MAX)
            .saturating_add(1);
        let here = span.bytes.0 + at;
        return diagnostic(
            file,
            Span {
                start: Position { line: number, column },
                end: Position { line: number, column: column.saturating_add(1) },
                bytes: (here, here + '\u{feff}'.len_utf8()),
            },
            None,
            format!("line {number} of `{file}` has a byte order mark (U+FEFF) at column {column}, which only the start of the file may have"),
        )
        .help("remove the byte order mark (files joined together carry the second one's into the middle)");
    }
    // Where the parser stopped, in the line (the whole line when it does
    // not say).
    let at = stopped.filter(|&at| at <= text.len()).map_or(span, |at| {
        let column = u32::try_from(text[..at].chars().count())
            .unwrap_or(u32::MAX)
            .saturating_add(1);
        let here = span.bytes.0 + at;
        Span {
            start: Position {
                line: number,
                column,
            },
            end: Position {
                line: number,
                column,
            },
            bytes: (here, here),
        }
    });
    diagnostic(
        file,
        at,
        None,
        format!("line {number} of `{file}` is not JSON: {}", found.message),
    )
    .help("write one JSON object a line: {\"id\": …, \"inputs\": {…}, \"case\": {…}}")
}

/// The UTF-8 encoding of U+FEFF, the byte order mark.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The stream a CSV reader reads, noting where its lines break as the
/// bytes pass (`\n`, `\r\n`, a lone `\r`), so that a record's position
/// (`csv::Position::byte`, the offset after the record before it; its
/// `line` counts `\n` only and stops before the blank lines and the `\n`
/// of a `\r\n` that precede the record) becomes the record's own first
/// line. Only the breaks after the last record asked about are kept: the
/// reader's buffer and the current record's, never the file's. A leading
/// byte order mark is dropped before the CSV reader sees it, so offsets
/// are in the text without it.
///
/// It also follows the quoting of RFC 4180 as the `csv` crate reads it (a
/// `"` opens a quoted cell only at the start of a cell, `""` inside one is
/// a quote), to tell a quoted cell left open at the end of the file, which
/// the `csv` crate silently closes.
struct Tracked<R> {
    inner: R,
    /// The first bytes, held back while telling whether they are a BOM.
    head: Option<Vec<u8>>,
    /// Bytes passed on.
    read: usize,
    /// The breaks not yet behind a record asked about: (first byte, byte
    /// after, characters of the line the break ends).
    breaks: VecDeque<(usize, usize, usize)>,
    /// The breaks behind a record asked about.
    passed: u64,
    /// Every break passed on.
    lines: u64,
    /// Characters of the line being passed on.
    chars: usize,
    /// The last byte passed on was a `\r`.
    cr: bool,
    quote: Quote,
    /// The last quote that opened a cell: (byte, line, column).
    opened: (usize, u64, usize),
    /// A quoted cell was open at the end of the stream, its quote there.
    unclosed: Option<(usize, u64, usize)>,
}

/// Where a CSV reader is in a record, as far as quotes go.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Quote {
    /// At the start of a cell (or of a record, or in blank lines).
    Start,
    /// In a cell without quotes.
    Bare,
    /// In a quoted cell.
    Quoted,
    /// Just after a `"` in a quoted cell: closed, unless a `"` follows.
    Closing,
}

impl<R: Read> Tracked<R> {
    fn new(inner: R) -> Tracked<R> {
        Tracked {
            inner,
            head: None,
            read: 0,
            breaks: VecDeque::new(),
            passed: 0,
            lines: 0,
            chars: 0,
            cr: false,
            quote: Quote::Start,
            opened: (0, 0, 0),
            unclosed: None,
        }
    }

    /// Notes the bytes `bytes`, passed on after `self.read`.
    fn note(&mut self, bytes: &[u8]) {
        for &b in bytes {
            let at = self.read;
            self.read += 1;
            let lf_of_crlf = b == b'\n' && self.cr;
            self.cr = b == b'\r';
            if lf_of_crlf {
                if let Some(last) = self.breaks.back_mut() {
                    last.1 = self.read;
                }
                continue;
            }
            let is_break = b == b'\n' || b == b'\r';
            if !is_break && b & 0xC0 != 0x80 {
                self.chars += 1;
            }
            self.quote = match (self.quote, b) {
                (Quote::Quoted, b'"') => Quote::Closing,
                (Quote::Quoted, _) | (Quote::Closing, b'"') => Quote::Quoted,
                (Quote::Start, b'"') => {
                    self.opened = (at, self.lines + 1, self.chars);
                    Quote::Quoted
                }
                (_, b',' | b'\n' | b'\r') => Quote::Start,
                _ => Quote::Bare,
            };
            if is_break {
                self.breaks.push_back((at, self.read, self.chars));
                self.lines += 1;
                self.chars = 0;
            }
        }
    }

    /// The record at position `byte`: its first line (1-based), the byte
    /// that starts it, the byte that ends its first line and that line's
    /// characters. Forgets the breaks before it.
    fn record_at(&mut self, mut byte: usize) -> (u32, usize, usize, usize) {
        while let Some(&(start, end, _)) = self.breaks.front() {
            if start > byte {
                break;
            }
            // A break before the record, or one it starts at (a blank line,
            // the `\n` of a `\r\n`): the record starts after it.
            byte = byte.max(end);
            self.breaks.pop_front();
            self.passed += 1;
        }
        let (end, chars) = self
            .breaks
            .front()
            .map_or((self.read, self.chars), |&(start, _, chars)| (start, chars));
        let line = u32::try_from(self.passed + 1).unwrap_or(u32::MAX);
        (line, byte, end.max(byte), chars)
    }
}

impl<R: Read> Read for Tracked<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        let head = match &mut self.head {
            Some(head) => head,
            None => {
                // The first read: hold back the first bytes until they are
                // known to be a BOM or not.
                let mut head = Vec::with_capacity(BOM.len());
                let mut chunk = [0; 3];
                while head.len() < BOM.len() && BOM.starts_with(&head) {
                    let n = self.inner.read(&mut chunk[..BOM.len() - head.len()])?;
                    if n == 0 {
                        break;
                    }
                    head.extend_from_slice(&chunk[..n]);
                }
                if head == BOM {
                    head.clear();
                }
                self.head.insert(head)
            }
        };
        let n = if head.is_empty() {
            self.inner.read(buf)?
        } else {
            let n = head.len().min(buf.len());
            buf[..n].copy_from_slice(&head[..n]);
            head.drain(..n);
            n
        };
        if n == 0 && self.quote == Quote::Quoted {
            self.unclosed = Some(self.opened);
        }
        self.note(&buf[..n]);
        Ok(n)
    }
}

/// A CSV reader's error as a diagnostic at its record's line (`at`, from
/// [`Tracked::record_at`]).
fn csv_error(file: &str, e: &csv::Error, at: Option<(u32, usize, usize, usize)>) -> Diagnostic {
    let (line, start, end, chars) = at.unwrap_or((1, 0, 0, 0));
    let why = match e.kind() {
        csv::ErrorKind::UnequalLengths {
            expected_len, len, ..
        } => format!("has {len} cells, but the header has {expected_len}"),
        csv::ErrorKind::Utf8 { .. } => "is not UTF-8".to_owned(),
        csv::ErrorKind::Io(io) => format!("cannot be read: {io}"),
        _ => e.to_string(),
    };
    diagnostic(
        file,
        line_span(line, (start, end), chars),
        None,
        format!("line {line} of `{file}` {why}"),
    )
    .help("write the data file as UTF-8 CSV: a header row of dotted paths, then one record a row, as many cells as columns")
}

/// The span of a row: its line, from column 1 over `chars` characters,
/// the bytes `bytes`.
fn line_span(line: u32, bytes: (usize, usize), chars: usize) -> Span {
    let width = u32::try_from(chars).unwrap_or(u32::MAX);
    Span {
        start: Position { line, column: 1 },
        end: Position {
            line,
            column: width.saturating_add(1),
        },
        bytes,
    }
}

/// A `TQX_EVAL_INVALID` error in the data file `file`, at `span`, with the
/// value's JSON pointer within the row.
fn diagnostic(file: &str, span: Span, pointer: Option<String>, message: String) -> Diagnostic {
    let mut d = Diagnostic::error(Code::EvalInvalid, message).in_file(file);
    d.span = Some(span);
    d.json_pointer = pointer;
    d
}

impl RowTypes<'_> {
    /// Types `raw` (CSV cells by the schemas their `columns` name) and
    /// checks it as an inline fixture is checked (`docs/format.md`, "Eval
    /// fixtures"): declared fields only, required ones present, values
    /// valid; `case` against `case_schema` (and present when there is
    /// one); `fake_output` against `output_schema`; an `id` printable.
    ///
    /// # Errors
    /// Every problem of the row, each a `TQX_EVAL_INVALID` naming the
    /// file, the row and its line, with the value's JSON pointer within
    /// the row (`/inputs/text`).
    pub fn check(&self, raw: &RawRow, columns: &[Column]) -> Result<Row, Vec<Diagnostic>> {
        let mut problems = Problems {
            raw,
            id: None,
            diags: Vec::new(),
        };
        let mut parts = match &raw.data {
            RawData::Json(Value::Object(map), _) => map.clone(),
            RawData::Json(other, _) => {
                problems.push(
                    None,
                    format!("is {}, not an object", words::kind_of(other)),
                    "write each row as a JSON object: {\"id\": …, \"inputs\": {…}, \"case\": {…}}",
                );
                return Err(problems.diags);
            }
            RawData::Csv(cells) => self.parts_of_cells(cells, columns, &mut problems),
        };
        if let Some(Value::String(id)) = parts.get("id") {
            problems.id = Some(id.clone());
        }
        for key in parts.keys() {
            if !PARTS.contains(&key.as_str()) {
                problems.push(
                    Some(format!("/{}", escape(key))),
                    format!("has a part `{key}` rows do not have"),
                    &words::did_you_mean(key, PARTS, "a row has "),
                );
            }
        }
        let id = match parts.remove("id") {
            None => raw.number.to_string(),
            Some(Value::String(id)) if id.is_empty() => {
                problems.push(Some("/id".into()), "has an empty `id`".into(), ID_HELP);
                id
            }
            Some(Value::String(id)) => {
                if let Some(c) = id.chars().find(|c| words::unprintable(*c).is_some()) {
                    problems.push(
                        Some("/id".into()),
                        format!(
                            "has an `id` holding U+{:04X}, which no report can show",
                            u32::from(c)
                        ),
                        ID_HELP,
                    );
                }
                id
            }
            Some(other) => {
                problems.push(
                    Some("/id".into()),
                    format!(
                        "has an `id` that is {}, not a string",
                        words::kind_of(&other)
                    ),
                    ID_HELP,
                );
                raw.number.to_string()
            }
        };
        let inputs = object_part(&mut parts, "inputs", &mut problems);
        let context = object_part(&mut parts, "context", &mut problems);
        let case = parts.remove("case");
        let fake_output = parts.remove("fake_output");
        fields(&self.inputs, &inputs, "inputs", "input", &mut problems);
        fields(
            &self.context,
            &context,
            "context",
            "context field",
            &mut problems,
        );
        match (&case, self.case) {
            (Some(_), None) => problems.push(
                Some("/case".into()),
                "has a `case`, but the eval entry declares no `case_schema`".into(),
                "declare the type of each row's expected data as the entry's `case_schema`",
            ),
            // A `case` cell that did not convert is said already.
            (None, Some(_)) if problems.said("/case") => {}
            (None, Some(_)) => problems.push(
                None,
                "has no `case`, which the entry's `case_schema` describes".into(),
                "give every row its expected data (`case`)",
            ),
            (Some(value), Some(schema)) => {
                violations(schema, value, "/case", "`case`", &mut problems)
            }
            (None, None) => {}
        }
        if let (Some(value), Some(schema)) = (&fake_output, self.output) {
            violations(
                schema,
                value,
                "/fake_output",
                "`fake_output`",
                &mut problems,
            );
        }
        if !problems.diags.is_empty() {
            return Err(problems.diags);
        }
        Ok(Row {
            id,
            number: raw.number,
            line: raw.span.start.line,
            inputs,
            context,
            case,
            fake_output,
        })
    }

    /// A CSV record as the parts of a row: each non-empty cell converted
    /// by the schema its column names and set at its path.
    fn parts_of_cells(
        &self,
        cells: &[String],
        columns: &[Column],
        problems: &mut Problems<'_>,
    ) -> Map<String, Value> {
        // The row is named by its id in every problem, as a JSON Lines row
        // is (an `id` cell is text: it always converts).
        if let Some((_, id)) = columns
            .iter()
            .zip(cells)
            .find(|(c, cell)| c.segments == ["id"] && !cell.is_empty())
        {
            problems.id = Some(id.clone());
        }
        let mut parts = Map::new();
        for (column, cell) in columns.iter().zip(cells) {
            if cell.is_empty() {
                continue;
            }
            let pointer: String = column
                .segments
                .iter()
                .map(|s| format!("/{}", escape(s)))
                .collect();
            let value = match convert(cell, self.schema_at(&column.segments)) {
                Ok(v) => v,
                Err(expected) => {
                    problems.push(
                        Some(pointer),
                        format!(
                            "has a cell `{}` (column `{}`) that is not {expected}",
                            words::truncate(cell),
                            column.header
                        ),
                        &format!(
                            "write {expected} in column `{}`, or leave the cell empty to leave the value out",
                            column.header
                        ),
                    );
                    continue;
                }
            };
            if !insert(&mut parts, &column.segments, value) {
                problems.push(
                    Some(pointer),
                    format!(
                        "column `{}` sets a value below one another column set",
                        column.header
                    ),
                    "give each value one column",
                );
            }
        }
        parts
    }

    /// The schema of the value at `segments` (`inputs`, `text`), when
    /// known.
    fn schema_at(&self, segments: &[String]) -> Option<&Schema> {
        let (first, rest) = segments.split_first()?;
        let (mut schema, rest) = match first.as_str() {
            "id" => return Some(&STRING),
            "inputs" | "context" => {
                let fields = if first == "inputs" {
                    &self.inputs
                } else {
                    &self.context
                };
                // A whole part's cell is JSON, an object of its fields
                // (checked field by field as a JSON Lines row's is).
                let Some((name, rest)) = rest.split_first() else {
                    return Some(&OBJECT);
                };
                let field = fields.iter().find(|f| f.name == name)?;
                (field.schema?, rest)
            }
            "case" => (self.case?, rest),
            "fake_output" => (self.output?, rest),
            _ => return None,
        };
        for segment in rest {
            schema = schema.property(segment)?;
        }
        Some(schema)
    }
}

/// The schema of an `id` cell.
static STRING: Schema = Schema {
    types: templiqx_contracts::TypeSet::STRING,
    ..Schema::ANY
};

/// The schema of a whole `inputs` or `context` cell.
static OBJECT: Schema = Schema {
    types: templiqx_contracts::TypeSet::OBJECT,
    ..Schema::ANY
};

const ID_HELP: &str = "a row's `id` names it in reports (`contract::entry#id`): a non-empty string of printable characters, or leave it out to name the row by its number";

/// The diagnostics of one row.
struct Problems<'r> {
    raw: &'r RawRow,
    id: Option<String>,
    diags: Vec<Diagnostic>,
}

impl Problems<'_> {
    /// Whether a problem was said at `pointer` or below it.
    fn said(&self, pointer: &str) -> bool {
        self.diags.iter().any(|d| {
            d.json_pointer.as_deref().is_some_and(|p| {
                p.strip_prefix(pointer)
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
            })
        })
    }

    /// Whether `missing`, a `required` violation of the object at
    /// `pointer`, names a member a problem was said at already.
    fn said_below(&self, pointer: &str, missing: &str) -> bool {
        self.diags.iter().any(|d| {
            let token = d
                .json_pointer
                .as_deref()
                .and_then(|p| p.strip_prefix(pointer)?.strip_prefix('/'))
                .filter(|token| !token.contains('/'));
            token.is_some_and(|token| {
                let name = token.replace("~1", "/").replace("~0", "~");
                serde_json::to_string(&name)
                    .is_ok_and(|quoted| missing == format!("missing required property {quoted}"))
            })
        })
    }

    fn push(&mut self, pointer: Option<String>, what: String, help: &str) {
        let row = match &self.id {
            Some(id) => format!("row `{}`", words::printable(id)),
            None => format!("row {}", self.raw.number),
        };
        let at = pointer
            .as_deref()
            .map_or_else(String::new, |p| format!(" at {p}"));
        let message = format!(
            "{row} (line {}) of `{}`{at} {what}",
            self.raw.span.start.line, self.raw.file
        );
        let span = self.raw.span_of(pointer.as_deref());
        self.diags
            .push(diagnostic(&self.raw.file, span, pointer, message).help(help));
    }
}

impl RawRow {
    /// Where the value at `pointer` (a JSON Pointer into the row,
    /// `/fake_output`) is written in a JSON Lines row: the value, or, for a
    /// value that is not there (a missing required field), its nearest
    /// written parent. The row's whole line for a CSV row or without a
    /// pointer.
    #[must_use]
    pub fn span_of(&self, pointer: Option<&str>) -> Span {
        let (Some(pointer), RawData::Json(_, text)) = (pointer, &self.data) else {
            return self.span;
        };
        let mut at = pointer;
        let (start, end) = loop {
            if let Some(found) = locate(text, at) {
                break found;
            }
            match at.rfind('/') {
                Some(i) => at = &at[..i],
                None => return self.span,
            }
        };
        let column = |byte: usize| {
            u32::try_from(text[..byte].chars().count())
                .unwrap_or(u32::MAX)
                .saturating_add(1)
        };
        let line = self.span.start.line;
        Span {
            start: Position {
                line,
                column: column(start),
            },
            end: Position {
                line,
                column: column(end),
            },
            bytes: (self.span.bytes.0 + start, self.span.bytes.0 + end),
        }
    }
}

/// The byte range of the value at JSON Pointer `pointer` (RFC 6901) in
/// `text`, one JSON value (already known to parse); `None` when there is
/// no such value. `""` is the whole value.
fn locate(text: &str, pointer: &str) -> Option<(usize, usize)> {
    let b = text.as_bytes();
    let mut i = skip_ws(b, 0);
    if !pointer.is_empty() {
        for token in pointer.strip_prefix('/')?.split('/') {
            let token = token.replace("~1", "/").replace("~0", "~");
            match b.get(i)? {
                b'{' => {
                    i = skip_ws(b, i + 1);
                    loop {
                        if b.get(i)? != &b'"' {
                            return None;
                        }
                        let end = skip_value(b, i)?;
                        let key: String = serde_json::from_str(&text[i..end]).ok()?;
                        i = skip_ws(b, end);
                        i = skip_ws(b, i + usize::from(b.get(i)? == &b':'));
                        if key == token {
                            break;
                        }
                        i = skip_ws(b, skip_value(b, i)?);
                        match b.get(i)? {
                            b',' => i = skip_ws(b, i + 1),
                            _ => return None,
                        }
                    }
                }
                b'[' => {
                    let index: usize = token.parse().ok()?;
                    i = skip_ws(b, i + 1);
                    for _ in 0..index {
                        i = skip_ws(b, skip_value(b, i)?);
                        match b.get(i)? {
                            b',' => i = skip_ws(b, i + 1),
                            _ => return None,
                        }
                    }
                    if b.get(i)? == &b']' {
                        return None;
                    }
                }
                _ => return None,
            }
        }
    }
    Some((i, skip_value(b, i)?))
}

/// Past the JSON whitespace at `i`.
fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while matches!(b.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

/// Past the JSON value that starts at `i` (a string, number, literal,
/// object or array); `None` when none starts there.
fn skip_value(b: &[u8], i: usize) -> Option<usize> {
    match b.get(i)? {
        b'"' => {
            let mut j = i + 1;
            loop {
                match b.get(j)? {
                    b'\\' => j += 2,
                    b'"' => return Some(j + 1),
                    _ => j += 1,
                }
            }
        }
        b'{' | b'[' => {
            // Brackets nest; strings may hold any of them.
            let mut depth = 0usize;
            let mut j = i;
            loop {
                match b.get(j)? {
                    b'"' => {
                        j = skip_value(b, j)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(j + 1);
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
        }
        _ => {
            let mut j = i;
            while b
                .get(j)
                .is_some_and(|c| !matches!(c, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'))
            {
                j += 1;
            }
            (j > i).then_some(j)
        }
    }
}

/// `inputs` or `context` of a row: an object (`{}` when absent).
fn object_part(
    parts: &mut Map<String, Value>,
    key: &str,
    problems: &mut Problems<'_>,
) -> Map<String, Value> {
    match parts.remove(key) {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(map)) => map,
        Some(other) => {
            problems.push(
                Some(format!("/{key}")),
                format!(
                    "has `{key}` that is {}, not an object",
                    words::kind_of(&other)
                ),
                &format!("write `{key}` as an object of its fields"),
            );
            Map::new()
        }
    }
}

/// Checks a row's `inputs` or `context` against the declared fields.
fn fields(
    declared: &[RowField<'_>],
    values: &Map<String, Value>,
    part: &str,
    what: &str,
    problems: &mut Problems<'_>,
) {
    for (key, value) in values {
        let pointer = format!("/{part}/{}", escape(key));
        match declared.iter().find(|f| f.name == key) {
            None => {
                let names: Vec<&str> = declared.iter().map(|f| f.name).collect();
                problems.push(
                    Some(pointer),
                    format!("names undeclared {what} `{key}`"),
                    &words::did_you_mean(key, &names, "declared: "),
                );
            }
            Some(RowField {
                schema: Some(schema),
                ..
            }) => violations(
                schema,
                value,
                &pointer,
                &format!("{what} `{key}`"),
                problems,
            ),
            Some(_) => {}
        }
    }
    // A value whose cell did not convert (or that is not an object's
    // member) is said already: not also missing; nor is any, when the
    // whole part was (a whole `inputs` cell that is not JSON, a part that
    // is not an object).
    let whole = format!("/{part}");
    let part_said = problems
        .diags
        .iter()
        .any(|d| d.json_pointer.as_deref() == Some(whole.as_str()));
    let missing: Vec<&RowField<'_>> = declared
        .iter()
        .filter(|f| {
            f.required
                && !part_said
                && !values.contains_key(f.name)
                && !problems.said(&format!("/{part}/{}", escape(f.name)))
        })
        .collect();
    for f in missing {
        problems.push(
            Some(format!("/{part}")),
            format!("lacks required {what} `{}`", f.name),
            &format!("give every row `{part}.{}`", f.name),
        );
    }
}

/// Reports every violation of `value` against `schema`.
fn violations(
    schema: &Schema,
    value: &Value,
    pointer: &str,
    what: &str,
    problems: &mut Problems<'_>,
) {
    if let Err(found) = validate(schema, value.as_value()) {
        for SchemaViolation {
            pointer: inner,
            message,
            keyword,
        } in found
        {
            let at = format!("{pointer}{inner}");
            // A required property whose cell did not convert is said
            // already.
            if keyword == "required" && problems.said_below(&at, &message) {
                continue;
            }
            problems.push(
                Some(at),
                format!("has an invalid {what}: {message}"),
                &format!("fix the value to satisfy `{keyword}`"),
            );
        }
    }
}

/// A CSV cell as the value the schema `schema` describes, or what it
/// should have been.
fn convert(cell: &str, schema: Option<&Schema>) -> Result<Value, &'static str> {
    let types = schema.map_or(templiqx_contracts::TypeSet::ANY, |s| {
        crate::check::known_types(s)
    });
    let json = |cell: &str| {
        templiqx_contracts::json::parse(cell)
            .ok()
            .and_then(|j| serde_json::to_value(&j).ok())
    };
    if schema.is_none() {
        return Ok(Value::String(cell.to_owned()));
    }
    let non_null = types.without_null();
    if types.allows_null() && cell == "null" && !non_null.is_only(JsonType::String) {
        return Ok(Value::Null);
    }
    if non_null.is_only(JsonType::String) {
        Ok(Value::String(cell.to_owned()))
    } else if non_null.is_only(JsonType::Integer) {
        // An integer is a number without a fraction, `1.0` too, as in a
        // JSON Lines row (JSON Schema, "integer").
        json(cell)
            .filter(|v| {
                v.as_i64().is_some()
                    || v.as_u64().is_some()
                    || v.as_f64()
                        .is_some_and(|f| f.is_finite() && f.fract() == 0.0)
            })
            .ok_or("an integer")
    } else if non_null.is_only(JsonType::Number) {
        json(cell).filter(Value::is_number).ok_or("a number")
    } else if non_null.is_only(JsonType::Boolean) {
        match cell {
            "true" => Ok(Value::Bool(true)),
            "false" => Ok(Value::Bool(false)),
            _ => Err("`true` or `false`"),
        }
    } else {
        json(cell).ok_or("JSON")
    }
}

/// Sets `value` at `segments` in `parts`, making the objects on the way;
/// false when a value is already there or a step is not an object.
fn insert(parts: &mut Map<String, Value>, segments: &[String], value: Value) -> bool {
    let Some((last, path)) = segments.split_last() else {
        return false;
    };
    let mut here = parts;
    for segment in path {
        let next = here
            .entry(segment.clone())
            .or_insert_with(|| Value::Object(Map::new()));
        let Value::Object(map) = next else {
            return false;
        };
        here = map;
    }
    if here.contains_key(last) {
        return false;
    }
    here.insert(last.clone(), value);
    true
}

fn escape(token: &str) -> std::borrow::Cow<'_, str> {
    templiqx_contracts::diagnostic::escape_pointer_token(token)
}

/// Opens the data file at `path` through `fs` and reads its rows (for an
/// eval runner: the rows a compiled entry's
/// [`DatasetDecl`](crate::dto::DatasetDecl) names, checked by its
/// [`RowTypes`]).
///
/// # Errors
/// `TQX_IO` when the file cannot be opened, or its extension is neither
/// `.jsonl` nor `.csv`.
pub fn read_rows(
    fs: &dyn FileSystem,
    path: &Path,
    file: &str,
) -> Result<Rows<Box<dyn Read + Send>>, Diagnostic> {
    let format = Format::of(file).ok_or_else(|| {
        Diagnostic::error(
            Code::Io,
            format!("`{file}` is neither a `.jsonl` nor a `.csv` file"),
        )
    })?;
    let reader = fs.open(path).map_err(|e| {
        Diagnostic::error(
            Code::Io,
            format!(
                "cannot read dataset `{file}`: {}",
                crate::compiler::io_reason(&e)
            ),
        )
    })?;
    Ok(Rows::new(format, reader, file))
}

/// The rows of a compiled dataset entry, read again from its file (the
/// disk) and checked against the compiled contract: what an eval runner
/// executes (`docs/eval.md`, "Datasets"). One row at a time: the rows are
/// never all in memory.
pub struct EntryRows {
    rows: Rows<Box<dyn Read + Send>>,
    inputs: Vec<(String, Schema, bool)>,
    context: Vec<(String, Schema, bool)>,
    case: Option<Schema>,
    output: Schema,
}

impl EntryRows {
    /// The rows of `eval`, an entry with a `dataset` of a contract that
    /// compiled to `interaction` (its `dataset` resolved by the package:
    /// [`crate::Compiler`], [`crate::Loader`]).
    ///
    /// # Errors
    /// `TQX_IO` when the entry has no resolved dataset or the file cannot
    /// be opened.
    pub fn open(
        interaction: &templiqx_contracts::Interaction,
        eval: &crate::dto::EvalDecl,
    ) -> Result<EntryRows, Diagnostic> {
        let dataset = eval
            .dataset
            .as_ref()
            .and_then(|d| Some((d, d.file.as_ref()?)));
        let Some((dataset, path)) = dataset else {
            return Err(Diagnostic::error(
                Code::Io,
                format!("eval `{}` has no dataset resolved in its package", eval.id),
            ));
        };
        let rows = read_rows(&crate::RealFileSystem, path, &dataset.display)?;
        let owned = |fields: &[templiqx_contracts::ir::Field]| {
            fields
                .iter()
                .map(|f| (f.name.to_string(), f.schema.clone(), f.required))
                .collect()
        };
        Ok(EntryRows {
            rows,
            inputs: owned(&interaction.inputs),
            context: owned(&interaction.context),
            case: crate::check::case_schema(eval),
            output: interaction.output_schema.clone(),
        })
    }
}

impl Iterator for EntryRows {
    type Item = Result<Row, Vec<Diagnostic>>;

    fn next(&mut self) -> Option<Self::Item> {
        let raw = match self.rows.next()? {
            Ok(raw) => raw,
            Err(d) => return Some(Err(vec![d])),
        };
        let types = RowTypes {
            inputs: self.inputs.iter().map(owned_field).collect(),
            context: self.context.iter().map(owned_field).collect(),
            case: self.case.as_ref(),
            output: Some(&self.output),
        };
        Some(types.check(&raw, self.rows.columns()))
    }
}

fn owned_field((name, schema, required): &(String, Schema, bool)) -> RowField<'_> {
    RowField {
        name: name.as_str(),
        schema: Some(schema),
        required: *required,
    }
}

#[cfg(test)]
mod tests {
    use super::{Format, RawRow, RowField, RowTypes, Rows, locate};
    use templiqx_contracts::{Diagnostic, Schema, TypeSet};

    /// A reader giving `text` one byte a read, so every break, quote and
    /// byte order mark falls across reads.
    struct Trickle<'t>(&'t [u8]);

    impl std::io::Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let Some((&first, rest)) = self.0.split_first() else {
                return Ok(0);
            };
            buf[0] = first;
            self.0 = rest;
            Ok(1)
        }
    }

    /// The (line, bytes, end column) of each row or problem of a CSV text.
    fn csv_rows(text: &str) -> Vec<(u32, (usize, usize), u32, bool)> {
        Rows::new(Format::Csv, Trickle(text.as_bytes()), "d.csv")
            .map(|row| {
                let (span, ok) = match row {
                    Ok(RawRow { span, .. }) => (span, true),
                    Err(Diagnostic { span, .. }) => (span.unwrap(), false),
                };
                (span.start.line, span.bytes, span.end.column, ok)
            })
            .collect()
    }

    #[test]
    fn csv_rows_are_at_their_lines_when_every_byte_is_a_read() {
        for eol in ["\n", "\r\n", "\r"] {
            let text = [
                "\u{feff}id,inputs.text",
                "",
                "a,\"two",
                "lines\"",
                "",
                "b,é",
                "c",
            ]
            .join(eol);
            let body = text.strip_prefix('\u{feff}').unwrap();
            let at = |row: &str| {
                let start = body.find(row).unwrap();
                (start, start + row.len())
            };
            assert_eq!(
                csv_rows(&text),
                [
                    (3, at("a,\"two"), 7, true),
                    (6, at("b,é"), 4, true),
                    (7, at("c"), 2, false),
                ],
                "{eol:?}"
            );
        }
    }

    #[test]
    fn a_quote_in_a_bare_cell_or_written_twice_opens_nothing() {
        // `"` inside a bare cell is text, `""` in a quoted cell is a quote:
        // neither is a cell left open.
        let text = "id,inputs.text\na,say \"hi\nb,\"say \"\"hi\"\"\"\n";
        assert_eq!(
            csv_rows(text).iter().map(|r| r.3).collect::<Vec<_>>(),
            [true, true]
        );
        let rows: Vec<_> = Rows::new(Format::Csv, text.as_bytes(), "d.csv")
            .map(Result::unwrap)
            .collect();
        assert!(
            format!("{:?}", rows[1]).contains(r#"say \"hi\""#),
            "{rows:?}"
        );
    }

    #[test]
    fn a_quote_the_header_leaves_open_is_named() {
        let mut rows = Rows::new(Format::Csv, "id,\"inputs.text\na,b\n".as_bytes(), "d.csv");
        let d = rows.next().unwrap().unwrap_err();
        assert_eq!(
            d.message,
            "line 1 of `d.csv` has a quoted cell that is never closed: its quote at column 4 opens a cell that runs to the end of the file"
        );
        assert!(rows.next().is_none());
    }

    #[test]
    fn csv_breaks_are_forgotten_behind_each_row() {
        // 20,000 rows of two lines each: the breaks kept stay a buffer's.
        let text: String = (0..20_000)
            .map(|i| format!("r{i},\"line\r\nbreak\"\r\n"))
            .collect();
        let text = format!("id,inputs.text\n{text}");
        let mut rows = Rows::new(Format::Csv, text.as_bytes(), "d.csv");
        let mut most = 0;
        let mut last = 0;
        while let Some(row) = rows.next() {
            last = row.unwrap().span.start.line;
            if let super::Inner::Csv { reader, .. } = &rows.inner {
                most = most.max(reader.get_ref().breaks.len());
            }
        }
        assert_eq!(last, 2 + 2 * 19_999);
        assert!(most < 2_000, "{most} breaks kept");
    }

    #[test]
    fn a_value_whose_cell_does_not_convert_is_not_also_missing() {
        let string = Schema {
            types: TypeSet::STRING,
            ..Schema::ANY
        };
        let integer = Schema {
            types: TypeSet::INTEGER,
            ..Schema::ANY
        };
        let case = Schema {
            types: TypeSet::OBJECT,
            properties: templiqx_contracts::Seq::Owned(vec![
                ("m".into(), string),
                ("n".into(), integer.clone()),
            ]),
            required: templiqx_contracts::Seq::Owned(vec!["n".into()]),
            ..Schema::ANY
        };
        let types = RowTypes {
            inputs: vec![RowField {
                name: "stars",
                schema: Some(&integer),
                required: true,
            }],
            context: Vec::new(),
            case: Some(&case),
            output: None,
        };
        let text = "id,inputs.stars,case.m,case.n\nfirst,five,m,six\nsecond,,,\n";
        let mut rows = Rows::new(Format::Csv, text.as_bytes(), "d.csv");
        let mut messages = Vec::new();
        while let Some(row) = rows.next() {
            let diags = types.check(&row.unwrap(), rows.columns()).unwrap_err();
            messages.extend(diags.into_iter().map(|d| d.message));
        }
        assert_eq!(
            messages,
            [
                "row `first` (line 2) of `d.csv` at /inputs/stars has a cell `five` (column `inputs.stars`) that is not an integer",
                "row `first` (line 2) of `d.csv` at /case/n has a cell `six` (column `case.n`) that is not an integer",
                "row `second` (line 3) of `d.csv` at /inputs lacks required input `stars`",
                "row `second` (line 3) of `d.csv` has no `case`, which the entry's `case_schema` describes",
            ]
        );
    }

    /// The text `locate` finds for `pointer` in `text`.
    fn at<'t>(text: &'t str, pointer: &str) -> Option<&'t str> {
        locate(text, pointer).map(|(start, end)| &text[start..end])
    }

    #[test]
    fn a_pointer_finds_the_value_as_written() {
        let row = r#"{"id": "r1", "inputs": {"text": "a \"b\" {c}", "n": [1, {"x": -2.5e3}, true]}, "case": {"a/b": null, "m~n": "é"}}"#;
        assert_eq!(at(row, "/id"), Some(r#""r1""#));
        assert_eq!(at(row, "/inputs/text"), Some(r#""a \"b\" {c}""#));
        assert_eq!(at(row, "/inputs/n/1/x"), Some("-2.5e3"));
        assert_eq!(at(row, "/inputs/n/2"), Some("true"));
        assert_eq!(at(row, "/inputs/n"), Some(r#"[1, {"x": -2.5e3}, true]"#));
        assert_eq!(at(row, "/case/a~1b"), Some("null"));
        assert_eq!(at(row, "/case/m~0n"), Some(r#""é""#));
        assert_eq!(at(row, ""), Some(row));
    }

    #[test]
    fn what_is_not_there_is_not_found() {
        let row = r#"{"inputs": {"text": "x"}, "list": [1, 2], "e": {}, "f": []}"#;
        for pointer in [
            "/inputs/missing",
            "/list/2",
            "/list/x",
            "/inputs/text/0",
            "/e/a",
            "/f/0",
            "inputs",
        ] {
            assert_eq!(at(row, pointer), None, "{pointer}");
        }
        // A key written with an escape is the key it means.
        assert_eq!(at(r#"{"\u0061": 1}"#, "/a"), Some("1"));
    }
}
