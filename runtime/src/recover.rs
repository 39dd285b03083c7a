//! Output recovery (`docs/runtime.md`, "Output recovery"; the reasons in
//! `docs/decisions.md`, "Output recovery is opt-in and visible"): when a
//! model's text does not parse or does not validate as it was written, read
//! the output the model meant from it, in a fixed order, and say so.
//!
//! Off by default ([`OutputRecovery::Off`]): an adapter opts in
//! ([`RuntimeAdapter::output_recovery`](crate::RuntimeAdapter::output_recovery),
//! [`AsyncRuntimeAdapter::output_recovery`](crate::AsyncRuntimeAdapter::output_recovery);
//! the HTTP adapters' `with_output_recovery`; `templiqx run` and `templiqx
//! eval` with `--recover-output`). Without it a fenced or prose-wrapped
//! answer fails with `TQX_OUTPUT_SCHEMA` exactly as before.
//!
//! What is recovered is the text of an output that is a JSON string (how the
//! adapters hand on a reply that is not JSON) and does not validate against
//! `output_schema`. The candidates, tried in this order:
//!
//! 1. the text inside each Markdown code fence (```` ``` ```` or `~~~`, any
//!    info string), in the order written ([`RecoveryStep::Fence`]);
//! 2. each complete JSON object or array in the surrounding prose, in the
//!    order written ([`RecoveryStep::Prose`]); the runtime's incremental
//!    reader ([`PartialJson`]) finds where each ends. Only a `{` or `[`
//!    opened while no earlier bracket of the prose is still open can start
//!    one, so a value inside an enclosing value, broken or not, is never
//!    taken for the output (the rule, and the [`MAX_STARTS`] cap, in
//!    `docs/runtime.md`, "Output recovery");
//! 3. the same candidates, when one does not parse as written, with
//!    trailing commas removed ([`RecoveryStep::TrailingCommas`]) and
//!    single-quoted or typographically quoted (`“…”`) strings and keys made
//!    double-quoted ([`RecoveryStep::Quotes`]).
//!
//! Every candidate is read by the strict reader's rules (RFC 8259, no key
//! twice, integers exact). The first candidate that validates against
//! `output_schema` is the output; when none does, the first that parsed is,
//! and it fails validation like any other output. Recovery changes only
//! the JSON syntax around and between values, never a value: it never
//! coerces a type the schema does not allow (a `"12"` stays a string where
//! the schema wants an integer, and fails). A recovered output carries a
//! `TQX_OUTPUT_RECOVERED` warning ([`Recovered::diagnostic`]) saying what
//! was done, where any other complete JSON value of the text that was not
//! taken starts, and whether the search stopped at [`MAX_STARTS`]: in its
//! success receipt ([`Receipt::diagnostics`]), or among the diagnostics of
//! its failure.

use crate::adapter::{AdapterOutput, Execution, ExecutionError, conclude_output};
use crate::output::validate_output;
use crate::partial::PartialJson;
use templiqx_contracts::canonical::fingerprint;
use templiqx_contracts::{AsValue, Code, Diagnostic, Interaction, Json, RenderedInteraction};

#[cfg(doc)]
use templiqx_contracts::Receipt;

/// Whether an adapter recovers outputs (`docs/runtime.md`, "Output
/// recovery"). Off by default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum OutputRecovery {
    /// Take the output as the model gave it: a text that does not parse or
    /// validate fails with `TQX_OUTPUT_SCHEMA`.
    #[default]
    Off,
    /// Recover an output whose text does not parse or validate, in the
    /// documented order ([module docs](self)), with a
    /// `TQX_OUTPUT_RECOVERED` warning.
    On,
}

impl OutputRecovery {
    /// `On` when `on` (a command-line flag), else `Off`.
    pub fn from_flag(on: bool) -> OutputRecovery {
        if on {
            OutputRecovery::On
        } else {
            OutputRecovery::Off
        }
    }

    /// Whether recovery is on.
    pub fn is_on(self) -> bool {
        self == OutputRecovery::On
    }
}

/// One thing recovery did to the model's text, by its stable name
/// ([`RecoveryStep::name`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RecoveryStep {
    /// `fence`: took the text inside a Markdown code fence.
    Fence,
    /// `prose`: took a complete JSON value out of the prose around it.
    Prose,
    /// `trailing_commas`: removed commas before `}` or `]`.
    TrailingCommas,
    /// `quotes`: made single-quoted or typographically quoted strings and
    /// keys double-quoted.
    Quotes,
}

impl RecoveryStep {
    /// The step's stable name: `fence`, `prose`, `trailing_commas`,
    /// `quotes`.
    pub fn name(self) -> &'static str {
        match self {
            RecoveryStep::Fence => "fence",
            RecoveryStep::Prose => "prose",
            RecoveryStep::TrailingCommas => "trailing_commas",
            RecoveryStep::Quotes => "quotes",
        }
    }

    /// What the step did, in words.
    pub fn describe(self) -> &'static str {
        match self {
            RecoveryStep::Fence => "took the JSON inside a Markdown code fence",
            RecoveryStep::Prose => "took the JSON value out of the prose around it",
            RecoveryStep::TrailingCommas => "removed trailing commas",
            RecoveryStep::Quotes => "made single or typographic quotes double quotes",
        }
    }
}

/// An output read out of a model's text: the value and what was done to
/// get it.
#[derive(Clone, Debug, PartialEq)]
pub struct Recovered {
    /// The value, as the strict reader reads it (not yet validated when
    /// [`recover`] returns it with an `accept` that refused it).
    pub value: Json,
    /// What was done, in the order done (never empty).
    pub steps: Vec<RecoveryStep>,
    /// Where each other complete JSON value in the text starts, a value
    /// different from the one taken (a fence's body or a candidate of the
    /// prose that parsed as written), in the order written: recovery took
    /// one and says it left these ([`Recovered::diagnostic`]).
    pub ignored: Vec<Place>,
    /// Whether the search stopped at [`MAX_STARTS`] candidate starts
    /// before the end of the text, and where the rest begins.
    pub capped: Option<Place>,
}

/// A place in a model's text: its byte offset (UTF-8) and its line
/// (from 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Place {
    /// Bytes before the place.
    pub offset: usize,
    /// The line it is on, from 1.
    pub line: usize,
}

impl Place {
    /// The place at byte `offset` of `text`.
    pub fn at(text: &str, offset: usize) -> Place {
        let line = 1 + text.as_bytes()[..offset]
            .iter()
            .filter(|b| **b == b'\n')
            .count();
        Place { offset, line }
    }
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "byte {} (line {})", self.offset, self.line)
    }
}

/// The note for a search that stopped at [`MAX_STARTS`] candidate starts.
fn capped_note(rest: Place) -> String {
    format!(
        "recovery stopped after {MAX_STARTS} candidate starts: the text from {rest} on was not searched"
    )
}

impl Recovered {
    /// The `TQX_OUTPUT_RECOVERED` warning: what was done (each step in
    /// words, then its stable name in a note; a note naming where each
    /// other complete JSON value of the text starts, by byte offset and
    /// line, the first five; a note when the search stopped at
    /// [`MAX_STARTS`]), and how to need no recovery. It quotes nothing of
    /// the text.
    pub fn diagnostic(&self) -> Diagnostic {
        let done: Vec<&str> = self.steps.iter().map(|s| s.describe()).collect();
        let names: Vec<&str> = self.steps.iter().map(|s| s.name()).collect();
        let mut d = Diagnostic::error(
            Code::OutputRecovered,
            format!(
                "the model's text was not a valid output as written; output recovery {}",
                done.join(", then ")
            ),
        )
        .note(format!("recovery steps: {}", names.join(", ")));
        if let [one] = self.ignored.as_slice() {
            d = d.note(format!(
                "another complete JSON value in the text was ignored, at {one}"
            ));
        } else if !self.ignored.is_empty() {
            let mut places: Vec<String> =
                self.ignored.iter().take(5).map(|p| p.to_string()).collect();
            if self.ignored.len() > 5 {
                places.push(format!("and {} more", self.ignored.len() - 5));
            }
            d = d.note(format!(
                "{} other complete JSON values in the text were ignored, at {}",
                self.ignored.len(),
                places.join(", ")
            ));
        }
        if let Some(rest) = self.capped {
            d = d.note(capped_note(rest));
        }
        d = d.help(
            "the output was read from the text around it: ask for JSON alone in the prompt, \
             or use the provider's structured output, so that no recovery is needed \
             (docs/runtime.md, \"Output recovery\")",
        );
        d.severity = templiqx_contracts::diagnostic::Severity::Warning;
        d
    }
}

/// The most candidate starts (a `{` or `[` opened outside every other) that
/// recovery tries in a text: a bound on the work for a long reply full of
/// brackets. A `{` or `[` that cannot open a value (what follows it, past
/// white space, can begin no member or item) is no candidate and does not
/// count. A search that stops here says so ([`Recovered::capped`], or a
/// note on the failure when nothing was recovered).
pub const MAX_STARTS: usize = 64;

/// Reads an output out of `text` in the documented order ([module
/// docs](self)): the first candidate that `accept` takes, else the first
/// that parsed (for the caller to report as invalid), else `None` (nothing
/// in the text is JSON, even repaired).
pub fn recover(text: &str, accept: impl FnMut(&Json) -> bool) -> Option<Recovered> {
    search(text, accept).0
}

/// [`recover`], and where the search stopped at [`MAX_STARTS`] (the
/// start of the text not searched), whether or not it found anything.
fn search(text: &str, mut accept: impl FnMut(&Json) -> bool) -> (Option<Recovered>, Option<Place>) {
    let (starts, capped) = candidate_starts(text);
    let capped = capped.map(|offset| Place::at(text, offset));
    // Every complete value of the text as written, with where it starts:
    // what the warning names when recovery takes another.
    let mut chosen: Option<(usize, Recovered)> = None;
    let mut first: Option<(usize, Recovered)> = None;
    let mut consider = |at: usize, candidate: Recovered| -> bool {
        if accept(&candidate.value) {
            chosen = Some((at, candidate));
            return true;
        }
        if first.is_none() {
            first = Some((at, candidate));
        }
        false
    };
    let fences = fences(text);
    let offset_of = |body: &str| {
        let trimmed = body.trim_start();
        trimmed.as_ptr() as usize - text.as_ptr() as usize
    };
    let prose = prose_values(text, &starts);
    let complete: Vec<(usize, Json)> = fences
        .iter()
        .filter_map(|body| {
            let value = templiqx_contracts::json::parse(body.trim()).ok()?;
            Some((offset_of(body), value))
        })
        .chain(
            prose
                .iter()
                .map(|(start, _, value)| (*start, value.clone())),
        )
        .collect();
    'search: {
        // Pass 1: as written.
        for body in &fences {
            if let Ok(value) = templiqx_contracts::json::parse(body.trim())
                && consider(
                    offset_of(body),
                    Recovered::new(value, vec![RecoveryStep::Fence]),
                )
            {
                break 'search;
            }
        }
        for (start, end, value) in &prose {
            if !has_prose(text, *start, *end) {
                // The whole text is this value: nothing to recover.
                continue;
            }
            if consider(
                *start,
                Recovered::new(value.clone(), vec![RecoveryStep::Prose]),
            ) {
                break 'search;
            }
        }
        // Pass 2: repaired.
        for body in &fences {
            let trimmed = body.trim();
            if templiqx_contracts::json::parse(trimmed).is_ok() {
                continue;
            }
            if let Some(found) = repaired_at(trimmed, 0).filter(|r| r.end == trimmed.len()) {
                let mut steps = found.steps;
                steps.insert(0, RecoveryStep::Fence);
                if consider(offset_of(body), Recovered::new(found.value, steps)) {
                    break 'search;
                }
            }
        }
        let mut at = 0;
        for &start in &starts {
            if start < at || prose.iter().any(|(s, _, _)| *s == start) {
                continue;
            }
            if let Some(found) = repaired_at(text, start) {
                at = found.end;
                let mut steps = found.steps;
                if has_prose(text, start, found.end) {
                    steps.insert(0, RecoveryStep::Prose);
                }
                if consider(start, Recovered::new(found.value, steps)) {
                    break 'search;
                }
            }
        }
    }
    let Some((taken_at, mut taken)) = chosen.or(first) else {
        return (None, capped);
    };
    // The others, once each by place: a fence's body is in the prose too.
    let mut seen = std::collections::BTreeSet::new();
    for (at, value) in complete {
        if at != taken_at && value != taken.value && seen.insert(at) {
            taken.ignored.push(Place::at(text, at));
        }
    }
    taken.ignored.sort_by_key(|p| p.offset);
    taken.capped = capped;
    (Some(taken), capped)
}

impl Recovered {
    fn new(value: Json, steps: Vec<RecoveryStep>) -> Recovered {
        Recovered {
            value,
            steps,
            ignored: Vec::new(),
            capped: None,
        }
    }
}

/// Where a JSON value of the prose may start (`docs/runtime.md`, "Output
/// recovery"), in order, at most [`MAX_STARTS`], and the offset of the
/// first start left out when there were more. One pass over the text keeps
/// the brackets opened and not yet closed: outside every bracket all is
/// prose; inside one, a double-quoted string (with `\` escapes) is a
/// string, whose brackets do not count, and `}` or `]` closes the innermost
/// open bracket of its kind with those opened after it (a closer with none
/// open of its kind is prose). A candidate is a `{` or `[` opened when no
/// bracket is open, so never a member value or item of an enclosing value,
/// broken or not; and one whose next character past white space can begin
/// its contents (for `{` a quote or `}`, for `[` a value or `]`).
fn candidate_starts(text: &str) -> (Vec<usize>, Option<usize>) {
    let bytes = text.as_bytes();
    let mut starts = Vec::new();
    let mut open: Vec<u8> = Vec::new();
    let mut in_string = false;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            match b {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
        } else {
            match b {
                b'{' | b'[' => {
                    if open.is_empty() && can_open(text, i) {
                        if starts.len() == MAX_STARTS {
                            return (starts, Some(i));
                        }
                        starts.push(i);
                    }
                    open.push(b);
                }
                b'}' | b']' => {
                    let opener = if b == b'}' { b'{' } else { b'[' };
                    if let Some(k) = open.iter().rposition(|o| *o == opener) {
                        open.truncate(k);
                    }
                }
                b'"' if !open.is_empty() => in_string = true,
                _ => {}
            }
        }
        i += 1;
    }
    (starts, None)
}

/// Whether the `{` or `[` at `start` is followed, past white space, by a
/// character that can begin its contents, as written or repaired.
fn can_open(text: &str, start: usize) -> bool {
    let Some(next) = text[start + 1..].trim_start().chars().next() else {
        return false;
    };
    let quote = matches!(next, '"' | '\'' | '\u{201C}');
    if text.as_bytes()[start] == b'{' {
        quote || next == '}'
    } else {
        quote || matches!(next, ']' | '{' | '[' | '-' | '0'..='9' | 't' | 'f' | 'n')
    }
}

/// [`recover`] against `interaction`'s `output_schema`: the first candidate
/// that validates, else the first that parsed.
pub fn recover_output(interaction: &Interaction, text: &str) -> Option<Recovered> {
    search_output(interaction, text).0
}

/// [`recover_output`], and where the search stopped at [`MAX_STARTS`].
fn search_output(interaction: &Interaction, text: &str) -> (Option<Recovered>, Option<Place>) {
    search(text, |value| {
        validate_output(interaction, value.as_value()).is_ok()
    })
}

/// The port's recovery step (`docs/runtime.md`, "Adapter port"): with
/// `recovery` on and an output that is a JSON string not valid against
/// the schema, the recovered value validated and receipted like any other
/// output ([`conclude_output`]), with the `TQX_OUTPUT_RECOVERED` warning in
/// its success receipt or after the diagnostics of its failure. `Err(output)`
/// hands the output back when there is nothing to recover, unless the
/// search stopped at [`MAX_STARTS`]: then the output fails here as given,
/// its first diagnostic noting where the search stopped.
pub(crate) fn conclude_recovered(
    request: &RenderedInteraction<'_>,
    output: AdapterOutput,
    attempts: u32,
    recovery: OutputRecovery,
) -> Result<Result<Execution, ExecutionError>, AdapterOutput> {
    let interaction = request.interaction;
    let (recovered, capped) = match (&output.output, recovery) {
        (Json::String(text), OutputRecovery::On)
            if validate_output(interaction, output.output.as_value()).is_err() =>
        {
            search_output(interaction, text)
        }
        _ => (None, None),
    };
    let Some(recovered) = recovered else {
        let Some(rest) = capped else {
            return Err(output);
        };
        let output_fingerprint = fingerprint(&output.output);
        let mut outcome =
            conclude_output(interaction, output, attempts, &output_fingerprint, || {
                request.request_fingerprint()
            });
        if let Err(error) = &mut outcome
            && let Some(first) = error.diagnostics.first_mut()
        {
            first.notes.push(capped_note(rest));
        }
        return Ok(outcome);
    };
    let warning = recovered.diagnostic();
    let value_fingerprint = fingerprint(&recovered.value);
    let outcome = conclude_output(
        interaction,
        AdapterOutput {
            output: recovered.value,
            usage: output.usage,
        },
        attempts,
        &value_fingerprint,
        || request.request_fingerprint(),
    );
    Ok(match outcome {
        Ok(mut execution) => {
            execution.receipt = execution.receipt.with_diagnostic(warning);
            Ok(execution)
        }
        Err(mut error) => {
            error.diagnostics.push(warning);
            Err(error)
        }
    })
}

/// Whether `text` holds anything but white space outside `start..end`.
fn has_prose(text: &str, start: usize, end: usize) -> bool {
    !text[..start].trim().is_empty() || !text[end..].trim().is_empty()
}

/// The bodies of the Markdown code fences of `text` (CommonMark, "Fenced
/// code blocks"): a line of three or more backticks or tildes, indented at
/// most three spaces, with any info string (none holding a backtick after
/// backticks), up to a line of at least as many of the same character and
/// nothing else, or to the end of the text.
fn fences(text: &str) -> Vec<&str> {
    let mut bodies = Vec::new();
    let mut lines = line_spans(text).into_iter();
    while let Some((start, end)) = lines.next() {
        let Some((fence_char, n)) = opening(&text[start..end]) else {
            continue;
        };
        let body_start = end_of_line(text, end);
        let mut body_end = text.len();
        for (s, e) in lines.by_ref() {
            if closing(&text[s..e], fence_char, n) {
                body_end = s;
                break;
            }
        }
        bodies.push(&text[body_start.min(body_end)..body_end]);
    }
    bodies
}

/// `(start, end)` of each line of `text`, without its line ending.
fn line_spans(text: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut start = 0;
    for (i, c) in text.char_indices() {
        if c == '\n' {
            let end = if text[..i].ends_with('\r') { i - 1 } else { i };
            spans.push((start, end));
            start = i + 1;
        }
    }
    if start < text.len() {
        spans.push((start, text.len()));
    }
    spans
}

/// The offset after the line ending at `end` (past `\r\n` or `\n`).
fn end_of_line(text: &str, end: usize) -> usize {
    let rest = &text[end..];
    if rest.starts_with("\r\n") {
        end + 2
    } else if rest.starts_with('\n') {
        end + 1
    } else {
        end
    }
}

/// The fence character and length of an opening fence line.
fn opening(line: &str) -> Option<(char, usize)> {
    let unindented = line.trim_start_matches(' ');
    if line.len() - unindented.len() > 3 {
        return None;
    }
    let c = unindented
        .chars()
        .next()
        .filter(|c| *c == '`' || *c == '~')?;
    let n = unindented.chars().take_while(|x| *x == c).count();
    if n < 3 || (c == '`' && unindented[n..].contains('`')) {
        return None;
    }
    Some((c, n))
}

/// Whether `line` closes a fence of `n` `c`s.
fn closing(line: &str, c: char, n: usize) -> bool {
    let unindented = line.trim_start_matches(' ');
    if line.len() - unindented.len() > 3 {
        return false;
    }
    let run = unindented.chars().take_while(|x| *x == c).count();
    run >= n && unindented[run * c.len_utf8()..].trim().is_empty()
}

/// Each complete JSON object or array in `text` as written, with where it
/// starts and ends: from each candidate start ([`candidate_starts`]) not
/// inside an earlier value, the incremental reader reads on until the value
/// is complete or the text stops being JSON.
fn prose_values(text: &str, starts: &[usize]) -> Vec<(usize, usize, Json)> {
    let mut values = Vec::new();
    let mut at = 0;
    for &start in starts {
        if start < at {
            continue;
        }
        let mut reader = PartialJson::new();
        let read = match reader.feed(&text[start..]) {
            Ok(()) => reader.finish().ok().map(|v| (text.len(), v)),
            // The value ended, and prose (or anything) follows it.
            Err(e) => reader
                .root()
                .and_then(|root| root.to_json())
                .map(|v| (start + e.offset(), v)),
        };
        if let Some((end, value)) = read {
            values.push((start, end, value));
            at = end;
        }
    }
    values
}

/// A value read from a repaired candidate.
struct Repaired {
    value: Json,
    /// The offset in the original text after the value's closing bracket.
    end: usize,
    /// The repairs made (none: the value parsed as written).
    steps: Vec<RecoveryStep>,
}

/// The object or array starting at `start` (a `{` or `[`), with trailing
/// commas removed and single or typographic quotes made double, read by
/// the strict reader; `None` when the brackets do not balance, nothing
/// needed repair, or the repaired text still is not JSON.
fn repaired_at(text: &str, start: usize) -> Option<Repaired> {
    #[derive(Clone, Copy, PartialEq)]
    enum Quote {
        Double,
        Single,
        Typographic,
    }
    let mut out = String::new();
    let mut closers: Vec<char> = Vec::new();
    let mut string: Option<Quote> = None;
    let (mut commas, mut quotes) = (false, false);
    let mut chars = text[start..].char_indices().peekable();
    let mut end = None;
    while let Some((i, c)) = chars.next() {
        match string {
            Some(quote) => match c {
                '\\' => {
                    let next = chars.next().map(|(_, n)| n);
                    match (quote, next) {
                        // `\'` is no JSON escape: the quote itself.
                        (Quote::Single, Some('\'')) => out.push('\''),
                        (_, Some(n)) => {
                            out.push('\\');
                            out.push(n);
                        }
                        (_, None) => return None,
                    }
                }
                '"' if quote == Quote::Double => {
                    out.push('"');
                    string = None;
                }
                '"' => out.push_str("\\\""),
                '\'' if quote == Quote::Single => {
                    out.push('"');
                    string = None;
                }
                '\u{201D}' if quote == Quote::Typographic => {
                    out.push('"');
                    string = None;
                }
                c => out.push(c),
            },
            None => match c {
                '"' => {
                    out.push('"');
                    string = Some(Quote::Double);
                }
                '\'' => {
                    out.push('"');
                    string = Some(Quote::Single);
                    quotes = true;
                }
                '\u{201C}' => {
                    out.push('"');
                    string = Some(Quote::Typographic);
                    quotes = true;
                }
                '{' => {
                    out.push('{');
                    closers.push('}');
                }
                '[' => {
                    out.push('[');
                    closers.push(']');
                }
                '}' | ']' => {
                    if closers.pop() != Some(c) {
                        return None;
                    }
                    let kept = out.trim_end().len();
                    if out[..kept].ends_with(',') {
                        out.remove(kept - 1);
                        commas = true;
                    }
                    out.push(c);
                    if closers.is_empty() {
                        end = Some(start + i + c.len_utf8());
                        break;
                    }
                }
                c => out.push(c),
            },
        }
    }
    let end = end?;
    let mut steps = Vec::new();
    if commas {
        steps.push(RecoveryStep::TrailingCommas);
    }
    if quotes {
        steps.push(RecoveryStep::Quotes);
    }
    if steps.is_empty() {
        return None;
    }
    let value = templiqx_contracts::json::parse(&out).ok()?;
    Some(Repaired { value, end, steps })
}

#[cfg(test)]
mod tests {
    use super::{RecoveryStep as S, recover};
    use serde_json::json;
    use templiqx_contracts::Json;

    fn any(text: &str) -> Option<(serde_json::Value, Vec<S>)> {
        recover(text, |_| true).map(|r| (serde_json::to_value(&r.value).unwrap(), r.steps))
    }

    #[test]
    fn fences_prose_and_repairs_in_order() {
        assert_eq!(
            any("Here:\n```json\n{\"a\": 1}\n```\nDone."),
            Some((json!({"a": 1}), vec![S::Fence]))
        );
        assert_eq!(
            any("~~~\n[1, 2]\n~~~"),
            Some((json!([1, 2]), vec![S::Fence]))
        );
        // An unclosed fence runs to the end.
        assert_eq!(
            any("```\n{\"a\": true}\n"),
            Some((json!({"a": true}), vec![S::Fence]))
        );
        assert_eq!(
            any("Sure! {\"a\": {\"b\": [1]}} Hope this helps."),
            Some((json!({"a": {"b": [1]}}), vec![S::Prose]))
        );
        assert_eq!(
            any("{\"a\": [1, 2,], }"),
            Some((json!({"a": [1, 2]}), vec![S::TrailingCommas]))
        );
        assert_eq!(
            any("Answer: {'a': 'it\\'s \"x\"', “b”: “c”}."),
            Some((
                json!({"a": "it's \"x\"", "b": "c"}),
                vec![S::Prose, S::Quotes]
            ))
        );
        assert_eq!(
            any("```json\n{\"a\": 1,}\n```"),
            Some((json!({"a": 1}), vec![S::Fence, S::TrailingCommas]))
        );
        // Nothing to recover.
        assert_eq!(any("no JSON here {at all"), None);
        assert_eq!(any("{\"a\": 1}"), None, "a valid text is not recovered");
    }

    #[test]
    fn the_first_accepted_candidate_wins_else_the_first_parsed() {
        let text = "Like [1] says: {\"x\": 1} or rather {\"a\": 2}";
        let wants_a = |v: &Json| v.get("a").is_some();
        let found = recover(text, wants_a).unwrap();
        assert_eq!(serde_json::to_value(&found.value).unwrap(), json!({"a": 2}));
        let found = recover(text, |_| false).unwrap();
        assert_eq!(serde_json::to_value(&found.value).unwrap(), json!([1]));
        // A fenced answer wins over prose, as written over repaired.
        let text = "{'a': 1} then\n```\n{\"a\": 2}\n```";
        let found = recover(text, |_| true).unwrap();
        assert_eq!(serde_json::to_value(&found.value).unwrap(), json!({"a": 2}));
    }

    #[test]
    fn values_are_never_changed() {
        // Digits in quotes stay a string; a number is not quoted.
        let (value, _) = any("```\n{\"n\": \"12\", \"m\": 3}\n```").unwrap();
        assert_eq!(value, json!({"n": "12", "m": 3}));
        // A comma inside a string is kept.
        let (value, _) = any("x {\"s\": \"a,}\",} y").unwrap();
        assert_eq!(value, json!({"s": "a,}"}));
    }
}
