//! The text of the report: escaping, numbers for `data-*` attributes,
//! rates, milliseconds and p-values as the page shows them.

use crate::stats::{FixtureStats, Rate, percent_digits};

/// Escapes text for HTML text and quoted attribute values.
pub(super) fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A number in full precision for a `data-*` attribute.
pub(super) fn num(value: f64) -> String {
    format!("{value}")
}

/// An optional number for a `data-*` attribute (empty when absent).
pub(super) fn opt_num(value: Option<f64>) -> String {
    value.map(num).unwrap_or_default()
}

/// A proportion as a percentage, `95.0%`, with more decimals where one
/// would round a value strictly between 0 and 1 to 0% or 100% (`99.998%`;
/// [`percent_digits`]).
pub(super) fn percent(value: f64) -> String {
    format!("{}%", percent_digits(value))
}

pub(super) fn rate_text(rate: &Rate) -> String {
    format!(
        "{} <span class=\"ci\">[{}, {}]</span> <span class=\"n\">{}/{}</span>",
        percent(rate.rate),
        percent(rate.low),
        percent(rate.high),
        rate.passed,
        rate.total
    )
}

pub(super) fn ms_text(value: Option<f64>) -> String {
    match value {
        None => "–".to_owned(),
        Some(v) if v >= 100.0 => format!("{v:.0}"),
        Some(v) if v >= 10.0 => format!("{v:.1}"),
        Some(v) => format!("{v:.2}"),
    }
}

pub(super) fn p_text(p: f64) -> String {
    if p <= 0.0 {
        // Underflowed: a difference over many executions.
        "< 1e-300".to_owned()
    } else if p >= 0.001 {
        format!("{p:.4}")
    } else {
        format!("{p:.2e}")
    }
}

/// At most `max` characters, with an ellipsis when cut.
pub(super) fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_owned()
    } else {
        let mut cut: String = text.chars().take(max - 1).collect();
        cut.push('…');
        cut
    }
}

pub(super) fn fixture_key(f: &FixtureStats) -> String {
    format!("{}::{}", f.contract, f.fixture)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_labels_are_cut_on_characters() {
        assert_eq!(truncate("short", 32), "short");
        let long = "é".repeat(40);
        let cut = truncate(&long, 32);
        assert_eq!(cut.chars().count(), 32);
        assert!(cut.ends_with('…'));
        assert_eq!(
            esc("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
    }

    #[test]
    fn a_rate_below_one_is_not_shown_as_one_hundred_percent() {
        let text = rate_text(&Rate::new(49_999, 50_000));
        assert!(
            text.starts_with("99.998% <span class=\"ci\">[99.9"),
            "{text}"
        );
        assert!(!text.contains("100.0%"), "{text}");
        assert!(
            text.ends_with("<span class=\"n\">49999/50000</span>"),
            "{text}"
        );
        assert_eq!(percent(1.0), "100.0%");
        assert_eq!(percent(0.75), "75.0%");
        assert_eq!(percent(1.0 / 50_000.0), "0.002%");
    }
}
