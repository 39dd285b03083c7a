//! Writing results: human text (with optional colour) or JSON Lines on
//! standard output, and a progress bar on standard error when it is a
//! terminal.

use crate::args::{ColorChoice, Format};
use anstyle::{AnsiColor, Style};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::Serialize;
use std::collections::HashMap;
use std::io::{self, IsTerminal, Write};
use templiqx_build::report;
use templiqx_contracts::{Code, Diagnostic};

/// How a run ended, in exit-status order (the worst one wins).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Status {
    /// No error diagnostic: exit 0.
    Success,
    /// At least one error diagnostic: exit 1.
    Failure,
    /// A file could not be read (or the command line was wrong): exit 2.
    Error,
    /// SIGINT ended the run early (`eval`): exit 130, as a shell reports
    /// a process SIGINT killed.
    Interrupted,
    /// SIGTERM ended the run early (`eval`): exit 143, as a shell reports
    /// a process SIGTERM killed.
    Terminated,
}

impl Status {
    /// The status a set of diagnostics implies: `TQX_IO` errors are
    /// [`Status::Error`], other errors [`Status::Failure`].
    pub fn of(diagnostics: &[Diagnostic]) -> Status {
        diagnostics
            .iter()
            .filter(|d| d.is_error())
            .map(|d| {
                if d.code == Code::Io {
                    Status::Error
                } else {
                    Status::Failure
                }
            })
            .max()
            .unwrap_or(Status::Success)
    }

    /// The process exit code.
    pub fn code(self) -> u8 {
        match self {
            Status::Success => 0,
            Status::Failure => 1,
            Status::Error => 2,
            Status::Interrupted => 130,
            Status::Terminated => 143,
        }
    }
}

/// Source texts by display name, for diagnostic snippets.
#[derive(Debug, Default)]
pub struct SourceTexts(HashMap<String, String>);

impl SourceTexts {
    /// Adds (or replaces) a file's text.
    pub fn insert(&mut self, name: impl Into<String>, text: impl Into<String>) {
        self.0.insert(name.into(), text.into());
    }

    /// Adds every file a loader read.
    pub fn extend_from(&mut self, sources: &templiqx_build::Sources) {
        for f in sources.files() {
            self.0
                .entry(f.name.clone())
                .or_insert_with(|| f.text.clone());
        }
    }

    /// The text of a file.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.get(name).map(String::as_str)
    }
}

/// `eval`'s progress bar: the count, the time elapsed, an estimate of the
/// time left, and on a second line the item last done.
const TIMED: &str = "{prefix:>12} [{bar:27}] {pos}/{len}, {elapsed} elapsed, about {eta} left\n        last {wide_msg}";

/// [`TIMED`], its verb coloured.
const TIMED_COLORED: &str = "{prefix:>12.cyan.bold} [{bar:27}] {pos}/{len}, {elapsed} elapsed, about {eta} left\n        last {wide_msg}";

/// The output side of a run.
pub struct Ui {
    format: Format,
    color: bool,
    out: io::StdoutLock<'static>,
    progress: ProgressBar,
}

impl Ui {
    /// A UI for `format`, colouring as `color` says.
    pub fn new(format: Format, color: ColorChoice) -> Ui {
        let stdout = io::stdout();
        let color = match color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                stdout.is_terminal()
                    && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                    && std::env::var_os("TERM").is_none_or(|t| t != "dumb")
            }
        };
        Ui {
            format,
            color: color && format == Format::Human,
            out: stdout.lock(),
            progress: ProgressBar::hidden(),
        }
    }

    /// Whether output is JSON.
    pub fn json(&self) -> bool {
        self.format == Format::Json
    }

    /// Whether human output is coloured (for text rendered elsewhere).
    pub fn colored(&self) -> bool {
        self.color
    }

    /// Starts a progress bar over `total` items, drawn on standard error
    /// only when it is a terminal and there is more than one item.
    pub fn start_progress(&mut self, total: usize, verb: &str) {
        let template = if self.color {
            "{prefix:>12.cyan.bold} [{bar:27}] {pos}/{len}: {wide_msg}"
        } else {
            "{prefix:>12} [{bar:27}] {pos}/{len}: {wide_msg}"
        };
        self.draw_progress(total, verb, template);
    }

    /// Starts a progress bar over `total` executions for `eval`, drawn as
    /// [`Ui::start_progress`] draws one: the count, the time elapsed and an
    /// estimate of the time left from the pace so far, then, on a line of
    /// its own so that it is not cut short, the item last done in full.
    pub fn start_timed_progress(&mut self, total: usize, verb: &str) {
        let template = if self.color { TIMED_COLORED } else { TIMED };
        if self.draw_progress(total, verb, template) {
            // The elapsed time moves while a slow model answers.
            self.progress
                .enable_steady_tick(std::time::Duration::from_secs(1));
        }
    }

    /// Draws a progress bar in `template` when standard error is a
    /// terminal and `total` is more than one; whether it did.
    fn draw_progress(&mut self, total: usize, verb: &str, template: &str) -> bool {
        if total < 2 || !io::stderr().is_terminal() {
            return false;
        }
        let style = ProgressStyle::with_template(template)
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> ");
        self.progress =
            ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr())
                .with_style(style)
                .with_prefix(verb.to_owned());
        true
    }

    /// The progress bar drawn now (a hidden one when none is), to update
    /// from elsewhere (a signal handler).
    pub fn progress_handle(&self) -> ProgressBar {
        self.progress.clone()
    }

    /// Names the item being worked on.
    pub fn progress_message(&self, message: &str) {
        self.progress.set_message(message.to_owned());
    }

    /// Counts one item done.
    pub fn progress_inc(&self) {
        self.progress.inc(1);
    }

    /// Removes the progress bar.
    pub fn finish_progress(&mut self) {
        self.progress.finish_and_clear();
        self.progress = ProgressBar::hidden();
    }

    /// Writes `text` as is.
    pub fn write(&mut self, text: &str) -> io::Result<()> {
        let Ui { out, progress, .. } = self;
        progress.suspend(|| out.write_all(text.as_bytes()))
    }

    /// Writes one line.
    pub fn line(&mut self, text: &str) -> io::Result<()> {
        let Ui { out, progress, .. } = self;
        progress.suspend(|| {
            out.write_all(text.as_bytes())?;
            out.write_all(b"\n")
        })
    }

    /// Writes a value as one line of compact JSON.
    pub fn json_line<T: Serialize>(&mut self, value: &T) -> io::Result<()> {
        let text = serde_json::to_string(value).map_err(io::Error::other)?;
        self.line(&text)
    }

    /// Writes diagnostics in rustc's layout, each followed by a blank line.
    pub fn diagnostics(
        &mut self,
        diagnostics: &[Diagnostic],
        sources: &SourceTexts,
    ) -> io::Result<()> {
        // Each source's lines are indexed once, not once per diagnostic.
        let source_for = |f: &str| sources.get(f).map(str::to_owned).or_else(|| unkept(f));
        self.write(&report::render_each_styled(
            diagnostics,
            &source_for,
            self.color,
        ))
    }

    /// A cargo-style status line: a right-aligned verb, then the message.
    pub fn status(&mut self, verb: &str, message: &str) -> io::Result<()> {
        let style = Style::new().bold().fg_color(Some(AnsiColor::Green.into()));
        let verb = self.paint(style, &format!("{verb:>12}"));
        self.line(&format!("{verb} {message}"))
    }

    /// `error: message`, in rustc's colours.
    pub fn error_line(&mut self, message: &str) -> io::Result<()> {
        let style = Style::new()
            .bold()
            .fg_color(Some(AnsiColor::BrightRed.into()));
        let bold = Style::new().bold();
        let line = format!(
            "{}{}",
            self.paint(style, "error"),
            self.paint(bold, &format!(": {message}"))
        );
        self.line(&line)
    }

    /// One `name value` line of a report (fingerprints, receipt, attempts):
    /// the name dimmed and padded to 13 columns, so the values line up.
    pub fn field(&mut self, name: &str, value: &str) -> io::Result<()> {
        let name = self.paint(Style::new().dimmed(), &format!("{name:<13}"));
        self.line(&format!("{name}{value}"))
    }

    /// `text` in `style` when colouring.
    pub fn paint(&self, style: Style, text: &str) -> String {
        if self.color {
            format!("{style}{text}{style:#}")
        } else {
            text.to_owned()
        }
    }

    /// `ok` in green or `FAILED` in red.
    pub fn verdict(&self, ok: bool) -> String {
        if ok {
            self.paint(Style::new().fg_color(Some(AnsiColor::Green.into())), "ok")
        } else {
            self.paint(Style::new().fg_color(Some(AnsiColor::Red.into())), "FAILED")
        }
    }

    /// Flushes standard output.
    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// The text of `file`, a file a diagnostic names whose text the compiler
/// did not keep (a dataset's data file, read a row at a time; a chain
/// file), read again for the diagnostic's snippet: only a regular file of
/// at most 16 MiB of UTF-8, else none (the diagnostic is shown without).
fn unkept(file: &str) -> Option<String> {
    let meta = std::fs::metadata(file).ok()?;
    if !meta.is_file() || meta.len() > 16 << 20 {
        return None;
    }
    std::fs::read_to_string(file).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn io_errors_outrank_other_errors() {
        let io = Diagnostic::error(Code::Io, "gone");
        let bad = Diagnostic::error(Code::ParseYaml, "bad");
        assert_eq!(Status::of(&[]), Status::Success);
        assert_eq!(Status::of(std::slice::from_ref(&bad)), Status::Failure);
        assert_eq!(Status::of(&[bad, io]), Status::Error);
        assert_eq!(Status::Error.code(), 2);
        assert_eq!(Status::Interrupted.code(), 130);
        assert_eq!(Status::Terminated.code(), 143);
    }

    #[test]
    fn the_eval_progress_templates_parse_and_show_the_time_left_and_the_name() {
        for template in [TIMED, TIMED_COLORED] {
            // A template that does not parse would fall back to a bare bar.
            assert!(ProgressStyle::with_template(template).is_ok(), "{template}");
            for field in ["{elapsed}", "{eta}", "\n"] {
                assert!(template.contains(field), "{template}");
            }
        }
        let bar = ProgressBar::hidden().with_style(ProgressStyle::with_template(TIMED).unwrap());
        bar.set_length(4);
        bar.set_message("lease-summary-drafting::dutch-client");
        assert_eq!(bar.message(), "lease-summary-drafting::dutch-client");
    }
}
