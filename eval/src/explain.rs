//! Why an execution failed, in words: the lines the terminal, the HTML
//! report, the JUnit file and `templiqx eval show` print for the evidence
//! of an [`ExecutionRecord`] (`docs/eval.md`, "Failures"). Every text a
//! model or a server wrote goes through [`excerpt`], so no control
//! character of theirs reaches a terminal or a report.

use crate::record::{CheckVerdict, ExecutionRecord, ObservedValue, Verdict, Violation};

/// The longest output excerpt the terminal shows, in characters.
pub const OUTPUT_EXCERPT: usize = 300;

/// The longest message (a provider's error) shown, in characters.
pub const MESSAGE_EXCERPT: usize = 600;

/// `text` on one line, at most `max` characters (then `…`): a line break
/// is written `\n`, a tab `\t`, any other character no report shows as
/// itself (`templiqx_contracts::words::unprintable`: control characters,
/// noncharacters, bidirectional formatting characters) `\u{…}`.
#[must_use]
pub fn excerpt(text: &str, max: usize) -> String {
    let mut out = String::new();
    for (n, c) in text.chars().enumerate() {
        if n == max {
            out.push('…');
            break;
        }
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if templiqx_contracts::words::unprintable(c).is_some() => {
                out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
            }
            c => out.push(c),
        }
    }
    out
}

/// `record`'s failure on one line, for a JUnit message: the headline, or
/// each failed check with its expression and the values it read
/// (`check reads-sixty: equals(output.notice_days, 60) with
/// output.notice_days = 59`).
#[must_use]
pub fn one_line(record: &ExecutionRecord) -> String {
    if record.code.is_some() {
        return headline(record);
    }
    let checks: Vec<String> = failed_checks(record)
        .map(|c| {
            let values: Vec<String> = c.observed.iter().map(observed_line).collect();
            if values.is_empty() {
                check_line(c)
            } else {
                format!("{} with {}", check_line(c), values.join(", "))
            }
        })
        .collect();
    if checks.is_empty() {
        headline(record)
    } else {
        checks.join("; ")
    }
}

/// The checks of `record` that did not pass although there was an output
/// to check ([`Verdict::Fail`], [`Verdict::Error`]).
pub fn failed_checks(record: &ExecutionRecord) -> impl Iterator<Item = &CheckVerdict> {
    record
        .checks
        .iter()
        .filter(|c| matches!(c.verdict, Verdict::Fail | Verdict::Error))
}

/// One line saying why `record` did not pass: the failure (a cut-off
/// output said as such, a provider failure with its message), or the
/// checks that failed.
#[must_use]
pub fn headline(record: &ExecutionRecord) -> String {
    let evidence = &record.evidence;
    if let Some(code) = &record.code {
        let message = evidence.message.as_deref().map_or_else(String::new, |m| {
            format!(": {}", excerpt(m, MESSAGE_EXCERPT))
        });
        if evidence.cut_off() {
            let reason = evidence.finish_reason.as_deref().unwrap_or("length");
            return format!(
                "cut off at the token limit (finish reason `{reason}`), {code}{message}"
            );
        }
        return format!("{code}{message}");
    }
    let failed: Vec<&str> = failed_checks(record).map(|c| c.id.as_str()).collect();
    match failed.as_slice() {
        [] => "passed".to_owned(),
        [one] => format!("check {} failed", excerpt(one, 200)),
        many => format!(
            "checks {} failed",
            many.iter()
                .map(|id| excerpt(id, 200))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// A check that did not pass: `check ID: EXPRESSION` (with the error of
/// one that could not be decided).
#[must_use]
pub fn check_line(check: &CheckVerdict) -> String {
    let mut line = format!(
        "check {}: {}",
        excerpt(&check.id, 200),
        excerpt(&check.expression, MESSAGE_EXCERPT)
    );
    if let Some(error) = &check.error {
        line.push_str(&format!(
            " (could not be decided: {})",
            excerpt(error, MESSAGE_EXCERPT)
        ));
    }
    line
}

/// A value a failed check read: `output.notice_days = 59`, or
/// `output.x has no value`.
#[must_use]
pub fn observed_line(observed: &ObservedValue) -> String {
    match &observed.value {
        Some(v) => format!(
            "{} = {}",
            excerpt(&observed.expression, 200),
            excerpt(v, OUTPUT_EXCERPT)
        ),
        None => format!("{} has no value", excerpt(&observed.expression, 200)),
    }
}

/// What the judge of a model-graded check answered (`docs/eval.md`,
/// "Judges"): `judge CONTRACT answered OUTPUT` and its `reasons: …`, or
/// `judge CONTRACT failed with CODE` (`; it answered OUTPUT` for an answer
/// that failed the judge's schema); nothing for another check.
#[must_use]
pub fn judge_lines(check: &CheckVerdict) -> Vec<String> {
    let Some(judge) = &check.judge else {
        return Vec::new();
    };
    let mut lines = Vec::new();
    match (&judge.output, &judge.code) {
        (Some(output), Some(code)) => lines.push(format!(
            "judge {} failed with {code}; it answered {}",
            excerpt(&judge.contract, 200),
            excerpt(output, OUTPUT_EXCERPT)
        )),
        (Some(output), None) => lines.push(format!(
            "judge {} answered {}",
            excerpt(&judge.contract, 200),
            excerpt(output, OUTPUT_EXCERPT)
        )),
        (None, Some(code)) => lines.push(format!(
            "judge {} failed with {code}",
            excerpt(&judge.contract, 200)
        )),
        (None, None) => {}
    }
    if let Some(reasons) = &judge.reasons {
        lines.push(format!("reasons: {}", excerpt(reasons, MESSAGE_EXCERPT)));
    }
    lines
}

/// A schema violation: `at /notice_days: expected integer, found string
/// "sixty" (type)`.
#[must_use]
pub fn violation_line(violation: &Violation) -> String {
    let at = if violation.pointer.is_empty() {
        "/"
    } else {
        &violation.pointer
    };
    format!(
        "at {}: {} ({})",
        excerpt(at, 200),
        excerpt(&violation.message, MESSAGE_EXCERPT),
        violation.keyword
    )
}

/// Everything `record` says about its failure, as lines: the headline,
/// then each failed check with the values it read, each schema violation,
/// the help; without the output (shown apart, as the reader needs it).
#[must_use]
pub fn details(record: &ExecutionRecord) -> Vec<String> {
    let mut lines = Vec::new();
    for check in failed_checks(record) {
        lines.push(check_line(check));
        for o in &check.observed {
            lines.push(format!("  {}", observed_line(o)));
        }
        lines.extend(judge_lines(check).into_iter().map(|l| format!("  {l}")));
    }
    for v in &record.evidence.violations {
        lines.push(violation_line(v));
    }
    if let Some(help) = &record.evidence.help {
        lines.push(format!("help: {}", excerpt(help, MESSAGE_EXCERPT)));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_excerpt_is_one_line_without_control_characters_and_cut() {
        assert_eq!(
            excerpt("a\nb\u{1b}[31mc\u{7}", 100),
            "a\\nb\\u{1b}[31mc\\u{7}"
        );
        assert_eq!(excerpt("abcdef", 3), "abc…");
        assert_eq!(excerpt("abc", 3), "abc");
        assert_eq!(excerpt("x\u{fffe}\u{10ffff}", 9), "x\\u{fffe}\\u{10ffff}");
    }
}
