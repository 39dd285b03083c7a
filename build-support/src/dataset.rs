//! Eval datasets (`docs/format.md`, "Datasets"): the rows of an eval entry
//! that names a data file instead of giving one case inline, read as a
//! stream and checked as the compiler checks an inline fixture.
//!
//! A file is JSON Lines (`.jsonl`: one JSON object a line,
//! `{"id"?, "inputs"?, "context"?, "case"?, "fake_output"?}`; a blank line
//! is no row) or CSV (`.csv`: a header row whose columns are dotted paths
//! — `id`, `inputs.text`, `context.locale`, `case.label`,
//! `fake_output.label`, or a whole part, `case`, whose cells are JSON —
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
    /// Where the row is in the file (its line).
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
/// not a row (not JSON, not UTF-8, a CSV record of the wrong length, a
/// header that names no part of a row); reading stops after an I/O error.
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
        reader: Box<csv::Reader<R>>,
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
                        .from_reader(reader),
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
        let headers = match reader.headers() {
            Ok(h) => h.clone(),
            Err(e) => {
                *header = Some(csv_error(&self.file, &e));
                return;
            }
        };
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
            // The header is the file's first record.
            let line = 1;
            *header = Some(
                diagnostic(
                    &self.file,
                    line_span(line, 0, 0),
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
                                line_span(number, start, 0),
                                None,
                                format!("line {number} of `{}` {why}", self.file),
                            )
                            .help("write the data file as UTF-8 text, one JSON object a line")));
                        }
                    };
                    *line += 1;
                    *offset += read;
                    let text = buffer.trim_end_matches(['\n', '\r']);
                    if text.trim().is_empty() {
                        continue;
                    }
                    let number = u32::try_from(*line).unwrap_or(u32::MAX);
                    let span = line_span(number, start, text.chars().count());
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
                    Err(d) => Err(diagnostic(
                        &self.file,
                        span,
                        None,
                        format!("line {number} of `{}` is not JSON: {}", self.file, d.message),
                    )
                    .help("write one JSON object a line: {\"id\": …, \"inputs\": {…}, \"case\": {…}}")),
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
                match reader.read_record(record) {
                    Ok(false) => {
                        self.done = true;
                        None
                    }
                    Ok(true) => {
                        *number += 1;
                        let (line, byte) =
                            record.position().map_or((0, 0), |p| (p.line(), p.byte()));
                        let line = u32::try_from(line).unwrap_or(u32::MAX);
                        let start = usize::try_from(byte).unwrap_or(usize::MAX);
                        let chars = record.iter().map(|c| c.chars().count() + 1).sum::<usize>();
                        Some(Ok(RawRow {
                            number: *number,
                            span: line_span(line, start, chars.saturating_sub(1)),
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
                        Some(Err(csv_error(&self.file, &e)))
                    }
                }
            }
        }
    }
}

/// A CSV reader's error as a diagnostic at its line.
fn csv_error(file: &str, e: &csv::Error) -> Diagnostic {
    let line = e
        .position()
        .map_or(1, |p| u32::try_from(p.line()).unwrap_or(u32::MAX));
    let start = e
        .position()
        .map_or(0, |p| usize::try_from(p.byte()).unwrap_or(usize::MAX));
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
        line_span(line, start, 0),
        None,
        format!("line {line} of `{file}` {why}"),
    )
    .help("write the data file as UTF-8 CSV: a header row of dotted paths, then one record a row, as many cells as columns")
}

/// The span of a row: its line, from column 1 over `chars` characters.
fn line_span(line: u32, byte: usize, chars: usize) -> Span {
    let width = u32::try_from(chars).unwrap_or(u32::MAX);
    Span {
        start: Position { line, column: 1 },
        end: Position {
            line,
            column: width.saturating_add(1),
        },
        bytes: (byte, byte.saturating_add(chars)),
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
                let (name, rest) = rest.split_first()?;
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

const ID_HELP: &str = "a row's `id` names it in reports (`contract::entry#id`): a non-empty string of printable characters, or leave it out to name the row by its number";

/// The diagnostics of one row.
struct Problems<'r> {
    raw: &'r RawRow,
    id: Option<String>,
    diags: Vec<Diagnostic>,
}

impl Problems<'_> {
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
    for f in declared
        .iter()
        .filter(|f| f.required && !values.contains_key(f.name))
    {
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
            problems.push(
                Some(format!("{pointer}{inner}")),
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
        json(cell)
            .filter(|v| v.as_i64().is_some() || v.as_u64().is_some())
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
    use super::locate;

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
