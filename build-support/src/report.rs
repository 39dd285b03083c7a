//! Diagnostic rendering: rustc-style text (via `annotate-snippets`) and JSON.
//!
//! ```
//! use templiqx_build::{report, yaml};
//!
//! let source = "name: a\nname: b\n";
//! let mut diagnostic = yaml::parse(source).unwrap_err();
//! diagnostic.file = Some("greeting.yaml".into());
//! assert_eq!(
//!     report::render_human(&diagnostic, Some(source)),
//!     "\
//! error[TQX_PARSE_YAML]: duplicate mapping key `name`
//!  --> greeting.yaml:2:1
//!   |
//! 2 | name: b
//!   | ^^^^
//!   |
//!   = help: the first `name` is on line 1; mapping keys must be unique, so remove or rename one of them"
//! );
//! ```

use std::borrow::Cow;
use std::collections::HashMap;
use std::ops::Range;

use annotate_snippets::{AnnotationKind, Group, Level, Origin, Renderer, Snippet};
use templiqx_contracts::{Diagnostic, Severity, Span};

/// Renders one diagnostic in rustc's layout, without ANSI colors.
///
/// ```text
/// error[TQX_REF_UNKNOWN]: message
///   --> file:line:column
///    |
/// 18 | the source line
///    |     ^^^^^ (under the span)
///    |
///    = help: the help line
///    = note: each entry of `notes`
///    = note: at /json/pointer
/// ```
///
/// `source` is the text of `diagnostic.file`. The snippet is located by the
/// span's line and column (not by `Span::bytes`, which does not survive a
/// JSON round-trip). Without `source`, or when the span lies outside it,
/// only the `-->` line is written; without a file, the position becomes a
/// note; without a span, the `-->` line names just the file. The result has
/// no trailing newline.
pub fn render_human(diagnostic: &Diagnostic, source: Option<&str>) -> String {
    render_human_styled(diagnostic, source, false)
}

/// [`render_human`], with ANSI colors when `color` is true (for a terminal).
pub fn render_human_styled(diagnostic: &Diagnostic, source: Option<&str>, color: bool) -> String {
    // Only the lines up to the span's last are indexed.
    let last = diagnostic
        .span
        .map_or(0, |s| to_usize(s.start.line.max(s.end.line)));
    let lines = source.map(|source| Lines::new(source, last));
    render_indexed(diagnostic, lines.as_ref(), color)
}

/// [`render_human_styled`] with the source's lines already indexed.
fn render_indexed(diagnostic: &Diagnostic, source: Option<&Lines<'_>>, color: bool) -> String {
    let level = match diagnostic.severity {
        Severity::Error => Level::ERROR,
        Severity::Warning => Level::WARNING,
    };
    let mut group = Group::with_title(
        level
            .primary_title(diagnostic.message.as_str())
            .id(diagnostic.code.as_str()),
    );
    let file = diagnostic.file.as_deref();
    let mut position_note = None;
    let lines = source
        .zip(diagnostic.span)
        .and_then(|(source, span)| excerpt(source, span));
    match (diagnostic.span, file, lines) {
        (_, _, Some((text, first_line, range))) => {
            let snippet = Snippet::source(text)
                .line_start(first_line)
                .annotation(AnnotationKind::Primary.span(range));
            group = group.element(match file {
                Some(file) => snippet.path(file),
                None => snippet,
            });
        }
        (Some(span), Some(file), None) => {
            group = group.element(
                Origin::path(file)
                    .line(to_usize(span.start.line))
                    .char_column(to_usize(span.start.column)),
            );
        }
        (Some(span), None, None) => {
            position_note = Some(format!(
                "at line {}, column {}",
                span.start.line, span.start.column
            ));
        }
        (None, Some(file), None) => group = group.element(Origin::path(file)),
        (None, None, None) => {}
    }
    if let Some(help) = &diagnostic.help {
        group = group.element(Level::HELP.message(help.as_str()));
    }
    for note in position_note.iter().chain(&diagnostic.notes) {
        group = group.element(Level::NOTE.message(note.as_str()));
    }
    if let Some(pointer) = &diagnostic.json_pointer {
        let pointer = if pointer.is_empty() { "/" } else { pointer };
        group = group.element(Level::NOTE.message(format!("at {pointer}")));
    }
    let renderer = if color {
        Renderer::styled()
    } else {
        Renderer::plain()
    };
    renderer.render(&[group])
}

/// One place a [`render_places`] report shows: a file, its text, a span in
/// it and a label written under the span.
#[derive(Clone, Copy, Debug)]
pub struct Place<'a> {
    /// The file, as diagnostics name it.
    pub file: &'a str,
    /// The file's text, for the snippet.
    pub source: Option<&'a str>,
    /// The span; without one (or without `source`) only the file is named.
    pub span: Option<Span>,
    /// Written under the span (`new`, `old (origin/main)`).
    pub label: &'a str,
}

/// The level of a [`render_places`] report: its colour, and the name
/// written before `[id]` (`breaking[INPUT_FIELD_REMOVED]: …`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tone {
    /// Coloured as an error.
    Error,
    /// Coloured as a warning.
    Warning,
    /// Coloured as a note.
    Note,
}

/// A report about several places, for [`render_places`].
#[derive(Clone, Copy, Debug)]
pub struct PlacesReport<'a> {
    /// Its colour.
    pub tone: Tone,
    /// The name before `[id]` (`breaking`).
    pub name: &'a str,
    /// The id in brackets (`INPUT_FIELD_REMOVED`).
    pub id: &'a str,
    /// One sentence.
    pub message: &'a str,
    /// The places, the primary one first.
    pub places: &'a [Place<'a>],
    /// The help line.
    pub help: Option<&'a str>,
    /// The notes.
    pub notes: &'a [String],
}

/// Renders a report about several places in rustc's layout: `name[id]:
/// message`, the first place as the primary snippet (`-->`), each other as
/// a secondary one (`:::`), each span labelled, then the help line and the
/// notes. Used for changes between two versions of a file (`templiqx
/// diff`), where one place is in each. No trailing newline.
pub fn render_places(report: &PlacesReport<'_>, color: bool) -> String {
    let PlacesReport {
        tone,
        name,
        id,
        message,
        places,
        help,
        notes,
    } = *report;
    let level = match tone {
        Tone::Error => Level::ERROR,
        Tone::Warning => Level::WARNING,
        Tone::Note => Level::NOTE,
    }
    .with_name(name);
    let mut group = Group::with_title(level.primary_title(message).id(id));
    for (i, place) in places.iter().enumerate() {
        let kind = if i == 0 {
            AnnotationKind::Primary
        } else {
            AnnotationKind::Context
        };
        let lines = place.source.zip(place.span).and_then(|(source, span)| {
            let last = to_usize(span.start.line.max(span.end.line));
            excerpt(&Lines::new(source, last), span)
        });
        group = match (lines, place.span) {
            (Some((text, first_line, range)), _) => group.element(
                Snippet::source(text)
                    .line_start(first_line)
                    .path(place.file)
                    .annotation(kind.span(range).label(place.label)),
            ),
            (None, Some(span)) => group.element(
                Origin::path(place.file)
                    .line(to_usize(span.start.line))
                    .char_column(to_usize(span.start.column)),
            ),
            (None, None) => group.element(Origin::path(place.file)),
        };
    }
    if let Some(help) = help {
        group = group.element(Level::HELP.message(help));
    }
    for note in notes {
        group = group.element(Level::NOTE.message(note.as_str()));
    }
    let renderer = if color {
        Renderer::styled()
    } else {
        Renderer::plain()
    };
    renderer.render(&[group])
}

/// Renders diagnostics with [`render_human`], a blank line between them,
/// then a summary line: `error: 3 errors found`, `error: 1 error and 2
/// warnings found`, or `warning: 2 warnings found`. Empty input renders as
/// an empty string.
///
/// `source_for` maps a diagnostic's `file` to its text (`None` when it
/// cannot be read); it is called once per distinct file, whose lines are
/// then indexed once, so the time is linear in the sources plus the
/// output, however many diagnostics a file has.
pub fn render_all(
    diagnostics: &[Diagnostic],
    source_for: &dyn Fn(&str) -> Option<String>,
) -> String {
    render_all_styled(diagnostics, source_for, false)
}

/// [`render_all`], with ANSI colors when `color` is true.
pub fn render_all_styled(
    diagnostics: &[Diagnostic],
    source_for: &dyn Fn(&str) -> Option<String>,
    color: bool,
) -> String {
    if diagnostics.is_empty() {
        return String::new();
    }
    let mut out = render_each_styled(diagnostics, source_for, color);
    let errors = diagnostics.iter().filter(|d| d.is_error()).count();
    let warnings = diagnostics.len() - errors;
    let plural = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
    let (level, summary) = match (errors, warnings) {
        (0, w) => (Level::WARNING, format!("{} found", plural(w, "warning"))),
        (e, 0) => (Level::ERROR, format!("{} found", plural(e, "error"))),
        (e, w) => (
            Level::ERROR,
            format!("{} and {} found", plural(e, "error"), plural(w, "warning")),
        ),
    };
    let renderer = if color {
        Renderer::styled()
    } else {
        Renderer::plain()
    };
    out.push_str(&renderer.render(&[Group::with_title(level.primary_title(summary))]));
    out
}

/// Renders each diagnostic with [`render_human_styled`] (ANSI colors when
/// `color` is true), each followed by a blank line (`\n\n`); no summary
/// (that is [`render_all_styled`]'s). `source_for` is called once per
/// distinct file, and each file's lines are indexed once: the time is
/// linear in the sources plus the output, where rendering the diagnostics
/// one by one scans a source up to each one's span again.
pub fn render_each_styled(
    diagnostics: &[Diagnostic],
    source_for: &dyn Fn(&str) -> Option<String>,
    color: bool,
) -> String {
    let mut texts: HashMap<&str, Option<String>> = HashMap::new();
    for file in diagnostics.iter().filter_map(|d| d.file.as_deref()) {
        texts.entry(file).or_insert_with(|| source_for(file));
    }
    let lines: HashMap<&str, Lines<'_>> = texts
        .iter()
        .filter_map(|(file, text)| Some((*file, Lines::new(text.as_deref()?, usize::MAX))))
        .collect();
    let mut out = String::new();
    for d in diagnostics {
        let source = d.file.as_deref().and_then(|f| lines.get(f));
        out.push_str(&render_indexed(d, source, color));
        out.push_str("\n\n");
    }
    out
}

/// The diagnostics as a compact JSON array, in the `Diagnostic` serde shape
/// (`code` as its `TQX_*` string, absent fields omitted, spans without
/// byte offsets).
pub fn render_json(diagnostics: &[Diagnostic]) -> String {
    // Serialising plain structs of strings and integers cannot fail.
    serde_json::to_string(diagnostics).unwrap_or_else(|e| unreachable!("{e}"))
}

/// A source's text, without a leading byte order mark (not a column: the
/// compiler's spans do not count it), and the byte offset at which each of
/// its lines starts, computed in one pass.
///
/// Lines end as YAML 1.2 ends them (`\n`, `\r\n`, a lone `\r`).
struct Lines<'s> {
    text: &'s str,
    /// `starts[i]` is where 1-based line `i + 1` starts; a text of `n`
    /// line breaks has `n + 1` lines (the last one empty after a final
    /// break).
    starts: Vec<usize>,
}

impl<'s> Lines<'s> {
    /// Indexes `source`'s lines up to 1-based line `last` (at least the
    /// first; `usize::MAX` for all).
    fn new(source: &'s str, last: usize) -> Lines<'s> {
        let text = source.strip_prefix('\u{feff}').unwrap_or(source);
        let bytes = text.as_bytes();
        let mut starts = vec![0];
        let mut i = 0;
        while starts.len() < last {
            let Some(at) = bytes[i..].iter().position(|&b| b == b'\n' || b == b'\r') else {
                break;
            };
            i += at;
            i += if bytes[i..].starts_with(b"\r\n") {
                2
            } else {
                1
            };
            starts.push(i);
        }
        Lines { text, starts }
    }

    /// The byte offset of the start of 1-based `line` (line 0 is read as
    /// line 1); `None` beyond the text (or the lines indexed).
    fn start(&self, line: usize) -> Option<usize> {
        self.starts.get(line.max(1) - 1).copied()
    }
}

/// The lines of `source` that `span` covers, the first one's number, and
/// the span's byte range within them. `None` when the span starts beyond
/// the source (or the lines indexed).
///
/// `annotate-snippets` breaks lines at `\n` only, so a lone `\r` in the
/// excerpt becomes `\n` (one byte for one, so the range stays valid).
fn excerpt<'s>(lines: &Lines<'s>, span: Span) -> Option<(Cow<'s, str>, usize, Range<usize>)> {
    let source = lines.text;
    let first_line = to_usize(span.start.line).max(1);
    let begin = lines.start(first_line)?;
    let start = begin + column_offset(&source[begin..], span.start.column);
    let end = if span.end < span.start {
        start
    } else {
        match lines.start(to_usize(span.end.line)) {
            Some(line) => line + column_offset(&source[line..], span.end.column),
            None => source.len(),
        }
    }
    .max(start);
    let stop = end + line_len(&source[end..]);
    let text = &source[begin..stop];
    let bytes = text.as_bytes();
    let lone_cr = |i: usize| bytes[i] == b'\r' && bytes.get(i + 1) != Some(&b'\n');
    let text = if (0..bytes.len()).any(lone_cr) {
        let fixed: String = text
            .char_indices()
            .map(|(i, c)| if c == '\r' && lone_cr(i) { '\n' } else { c })
            .collect();
        Cow::Owned(fixed)
    } else {
        Cow::Borrowed(text)
    };
    Some((text, first_line, start - begin..end - begin))
}

/// The length in bytes of the line that starts `rest`, without its break.
fn line_len(rest: &str) -> usize {
    rest.find(['\n', '\r']).unwrap_or(rest.len())
}

/// The byte offset of 1-based character `column` in the line that starts
/// `rest`, clamped to the end of that line.
fn column_offset(rest: &str, column: u32) -> usize {
    let line = &rest[..line_len(rest)];
    let skip = to_usize(column).saturating_sub(1);
    line.char_indices().nth(skip).map_or(line.len(), |(i, _)| i)
}

fn to_usize(n: u32) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}
