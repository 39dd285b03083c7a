//! The words every diagnostic shares, whichever phase or crate reports it
//! (`docs/diagnostics.md`, "Wording"):
//!
//! - one suggestion rule for a misspelt name ([`closest`]) and one help
//!   stanza built on it ([`did_you_mean`]): "did you mean `x`?" when a
//!   candidate is close enough, otherwise the list of what is accepted;
//! - one vocabulary for the kinds of values, the JSON Schema type names
//!   with an article ([`kind`]): `null`, `a boolean`, `an integer`,
//!   `a number`, `a string`, `an array`, `an object` — YAML sequences and
//!   mappings are arrays and objects too;
//! - one preview policy for values quoted in a message ([`truncate`]): at
//!   most [`PREVIEW_CHARS`] characters, then [`ELLIPSIS`];
//! - one rule for characters no report shows as text ([`unprintable`]) and
//!   one way to show them ([`printable`]: `\u{1b}`).
//!
//! ```
//! use templiqx_contracts::words;
//!
//! let fields = ["name", "email"];
//! assert_eq!(words::closest("nmae", &fields), Some("name"));
//! assert_eq!(
//!     words::did_you_mean("nmae", &fields, "declared: "),
//!     "did you mean `name`?"
//! );
//! assert_eq!(
//!     words::did_you_mean("phone", &fields, "declared: "),
//!     "declared: `name`, `email`"
//! );
//! assert_eq!(words::kind_of(&serde_json::json!([1])), "an array");
//! assert_eq!(words::truncate(&"x".repeat(81)), format!("{}…", "x".repeat(80)));
//! ```

use crate::value::{AsValue, JsonType, ValueRef};
use std::borrow::Cow;

/// Words longer than this (in characters) get no suggestion: they are not
/// typos of a short name, and the edit distance is quadratic.
pub const MAX_SUGGESTED_WORD: usize = 64;

/// The candidate `word` is most likely a misspelling of, if any.
///
/// A candidate equal to `word` but for ASCII case wins outright; otherwise
/// the candidate at the smallest Levenshtein distance (the first one on a
/// tie), when that distance is at most a third of the candidate's length
/// in characters, and never less than 2 (so a transposition in a short
/// name, `nmae` for `name`, is still found). A `word` longer than
/// [`MAX_SUGGESTED_WORD`] characters gets `None`.
pub fn closest<'c>(word: &str, candidates: &[&'c str]) -> Option<&'c str> {
    if word.chars().count() > MAX_SUGGESTED_WORD {
        return None;
    }
    if let Some(c) = candidates.iter().find(|c| c.eq_ignore_ascii_case(word)) {
        return Some(c);
    }
    candidates
        .iter()
        .map(|c| (levenshtein(word, c), *c))
        .filter(|(d, c)| *d <= 2.max(c.chars().count() / 3))
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// The help for `word`, which is none of `candidates`: `did you mean
/// `s`?` for the [`closest`] candidate `s`, otherwise `otherwise` followed
/// by the [`names`] of all candidates.
pub fn did_you_mean(word: &str, candidates: &[&str], otherwise: &str) -> String {
    did_you_mean_qualified(word, candidates, "", otherwise)
}

/// [`did_you_mean`] where the suggestion is written with a `qualifier`
/// in front (`did you mean `inputs.name`?` for the field `name` of
/// `inputs`).
pub fn did_you_mean_qualified(
    word: &str,
    candidates: &[&str],
    qualifier: &str,
    otherwise: &str,
) -> String {
    suggestion(word, candidates, qualifier)
        .unwrap_or_else(|| format!("{otherwise}{}", names(candidates)))
}

/// Only the suggestion half of the stanza, for a help whose other half is
/// not a list: `did you mean `{qualifier}{s}`?` for the [`closest`]
/// candidate `s`, or `None`.
pub fn suggestion(word: &str, candidates: &[&str], qualifier: &str) -> Option<String> {
    replacement(word, candidates, qualifier).map(|r| format!("did you mean `{r}`?"))
}

/// The text a [`suggestion`] proposes, `{qualifier}{s}` for the
/// [`closest`] candidate `s`, or `None`: what a machine-applicable fix
/// writes in place of the misspelt text
/// ([`Diagnostic::suggest`](crate::Diagnostic::suggest)).
pub fn replacement(word: &str, candidates: &[&str], qualifier: &str) -> Option<String> {
    closest(word, candidates).map(|s| format!("{qualifier}{s}"))
}

/// Names in backticks, separated by commas, in the given order; `none`
/// for an empty list.
pub fn names(candidates: &[&str]) -> String {
    if candidates.is_empty() {
        return "none".to_owned();
    }
    candidates
        .iter()
        .map(|c| format!("`{c}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The kind of a value of JSON type `t`, as messages write it: the JSON
/// Schema type name with an article (`null` has none).
pub fn kind(t: JsonType) -> &'static str {
    match t {
        JsonType::Null => "null",
        JsonType::Boolean => "a boolean",
        JsonType::Integer => "an integer",
        JsonType::Number => "a number",
        JsonType::String => "a string",
        JsonType::Array => "an array",
        JsonType::Object => "an object",
    }
}

/// The [`kind`] of a JSON value (every number is `a number`):
/// a `serde_json::Value`, a [`Json`](crate::json::Json), or any other
/// [`AsValue`].
pub fn kind_of<V: AsValue + ?Sized>(value: &V) -> &'static str {
    kind(value.as_value().json_type())
}

/// The [`kind`] of a borrowed value (every number is `a number`).
pub fn kind_of_ref(value: &ValueRef<'_>) -> &'static str {
    kind(value.json_type())
}

/// The most characters of a value a message quotes: enough for a whole
/// `sha256:` fingerprint, so fingerprints are never cut.
pub const PREVIEW_CHARS: usize = 80;

/// What marks a value cut by [`truncate`].
pub const ELLIPSIS: &str = "…";

/// The first [`PREVIEW_CHARS`] characters of `text` and whether anything
/// was cut after them, for writers that quote or escape the kept part
/// themselves (and then append [`ELLIPSIS`]).
pub fn preview_cut(text: &str) -> (&str, bool) {
    match text.char_indices().nth(PREVIEW_CHARS) {
        Some((at, _)) => (&text[..at], true),
        None => (text, false),
    }
}

/// `text` for a message: unchanged up to [`PREVIEW_CHARS`] characters,
/// otherwise its first [`PREVIEW_CHARS`] characters and [`ELLIPSIS`].
pub fn truncate(text: &str) -> Cow<'_, str> {
    match preview_cut(text) {
        (kept, true) => Cow::Owned(format!("{kept}{ELLIPSIS}")),
        (_, false) => Cow::Borrowed(text),
    }
}

/// A JSON value for a message: its canonical JSON text, [`truncate`]d.
pub fn preview_json(value: &serde_json::Value) -> String {
    truncate(&crate::canonical::to_canonical_string(value)).into_owned()
}

/// The Levenshtein distance between `a` and `b`, in characters.
fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let next = (row[j + 1] + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != *cb));
            diagonal = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

/// Why `c` cannot stand as itself in a report, or `None` when it can: a
/// control character (C0, DEL, C1: XML 1.0 forbids most of them, and a
/// terminal acts on them), a Unicode noncharacter (U+FDD0–U+FDEF and the
/// last two code points of every plane: XML 1.0 forbids U+FFFE and
/// U+FFFF), or a bidirectional formatting character (U+061C, U+200E,
/// U+200F, U+202A–U+202E, U+2066–U+2069: they reorder the text around
/// them on screen, so what is shown is not what is there). The rule of
/// eval and check ids (`docs/format.md`, "Eval fixtures") and of every
/// text a report quotes.
pub fn unprintable(c: char) -> Option<&'static str> {
    let n = u32::from(c);
    if c.is_control() {
        Some("a control character")
    } else if (0xFDD0..=0xFDEF).contains(&n) || n & 0xFFFE == 0xFFFE {
        Some("a Unicode noncharacter")
    } else if matches!(n, 0x061C | 0x200E | 0x200F | 0x202A..=0x202E | 0x2066..=0x2069) {
        Some("a bidirectional formatting character")
    } else {
        None
    }
}

/// `text` with every [`unprintable`] character written `\u{…}` (lower-case
/// hexadecimal, as Rust writes it), so it shows as itself on a terminal
/// and in a report; borrowed when there is none.
///
/// ```
/// use templiqx_contracts::words::printable;
///
/// assert_eq!(printable("ada\u{1b}[31m"), "ada\\u{1b}[31m");
/// assert_eq!(printable("a\u{202e}b"), "a\\u{202e}b");
/// assert_eq!(printable("größe ✓"), "größe ✓");
/// ```
pub fn printable(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| unprintable(c).is_some()) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if unprintable(c).is_some() {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_threshold_for_every_caller() {
        // A transposition in a short name (distance 2) is a typo.
        assert_eq!(closest("nmae", &["name", "email"]), Some("name"));
        // Case alone is always a typo, even beyond the distance limit.
        assert_eq!(closest("MAXITEMS", &["maxItems"]), Some("maxItems"));
        // A third of a long candidate: `format_number` tolerates 4 edits.
        assert_eq!(
            closest("formatnum", &["format_number"]),
            Some("format_number")
        );
        assert_eq!(closest("xyz_abcd", &["format_number"]), None);
        // The nearest wins, the first one on a tie.
        assert_eq!(closest("lowr", &["upper", "lower"]), Some("lower"));
        assert_eq!(closest("ab", &["ax", "ay"]), Some("ax"));
        assert_eq!(closest(&"a".repeat(65), &["a"]), None);
        assert_eq!(closest("anything", &[]), None);
    }

    #[test]
    fn stanza_and_names() {
        assert_eq!(
            did_you_mean_qualified("nmae", &["name"], "inputs.", "declared: "),
            "did you mean `inputs.name`?"
        );
        assert_eq!(did_you_mean("zzz", &[], "declared: "), "declared: none");
        assert_eq!(
            suggestion("serch", &["search"], "tool_contract:").as_deref(),
            Some("did you mean `tool_contract:search`?")
        );
        assert_eq!(suggestion("zzz", &["search"], ""), None);
        // The fix writes exactly what the help proposes.
        assert_eq!(
            replacement("nmae", &["name"], "inputs.").as_deref(),
            Some("inputs.name")
        );
        assert_eq!(replacement("zzz", &["search"], ""), None);
        assert_eq!(names(&["a", "b"]), "`a`, `b`");
    }

    #[test]
    fn kinds_are_json_schema_names() {
        use serde_json::json;
        let kinds: Vec<&str> = [
            json!(null),
            json!(true),
            json!(1),
            json!("s"),
            json!([]),
            json!({}),
        ]
        .iter()
        .map(kind_of)
        .collect();
        assert_eq!(
            kinds,
            [
                "null",
                "a boolean",
                "a number",
                "a string",
                "an array",
                "an object"
            ]
        );
        assert_eq!(kind(JsonType::Integer), "an integer");
    }

    #[test]
    fn previews_cut_at_the_limit_by_characters() {
        let exact = "é".repeat(PREVIEW_CHARS);
        assert_eq!(truncate(&exact), exact);
        let long = "é".repeat(PREVIEW_CHARS + 1);
        assert_eq!(truncate(&long), format!("{exact}…"));
        assert_eq!(preview_cut(&long), (exact.as_str(), true));
        let big = serde_json::json!({ "k": "v".repeat(100) });
        let p = preview_json(&big);
        assert!(p.starts_with("{\"k\":\"vvv"), "{p}");
        assert_eq!(p.chars().count(), PREVIEW_CHARS + 1);
    }
}
