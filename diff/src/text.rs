//! Small text helpers for messages, and the names of two lists in order.

use serde_json::Value;

/// A value as compact JSON for a message, cut after 60 characters.
pub(crate) fn json_text(v: &Value) -> String {
    let text = serde_json::to_string(v).unwrap_or_default();
    if text.chars().count() <= 60 {
        text
    } else {
        let mut cut: String = text.chars().take(57).collect();
        cut.push('…');
        cut
    }
}

/// How many values of a list a message shows before "… and N more".
pub(crate) const SHOWN_VALUES: usize = 5;

/// Values for a message: each as compact JSON in backticks, the first
/// [`SHOWN_VALUES`] of them and how many more there are.
pub(crate) fn some_values<V: std::borrow::Borrow<Value>>(values: &[V]) -> String {
    some(values.iter().map(|v| json_text(v.borrow())), values.len())
}

/// Items for a message, each in backticks: the first [`SHOWN_VALUES`] of
/// the `total` and how many more there are.
pub(crate) fn some(items: impl Iterator<Item = String>, total: usize) -> String {
    let shown: Vec<String> = items
        .take(SHOWN_VALUES)
        .map(|item| format!("`{item}`"))
        .collect();
    let mut text = shown.join(", ");
    if total > shown.len() {
        text.push_str(&format!(" … and {} more", total - shown.len()));
    }
    text
}

/// How many characters of a changed text a message shows around the
/// change, on each side of it.
const CONTEXT: usize = 12;

/// How many changed characters a message shows.
const CHANGED: usize = 40;

/// Two versions of a text for a message, quoted, showing where they
/// differ: the first change with a little context (`…` marks text left
/// out), so two long texts that differ late never look the same. Short
/// texts are shown whole.
pub(crate) fn excerpts(a: &str, b: &str) -> (String, String) {
    let (ca, cb): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    if ca.len() <= CHANGED && cb.len() <= CHANGED {
        return (format!("{a:?}"), format!("{b:?}"));
    }
    let prefix = ca.iter().zip(&cb).take_while(|(x, y)| x == y).count();
    let suffix = ca[prefix..]
        .iter()
        .rev()
        .zip(cb[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let cut = |chars: &[char]| {
        let start = prefix.saturating_sub(CONTEXT);
        let changed_end = chars.len() - suffix;
        let end = (changed_end.min(prefix + CHANGED) + CONTEXT).min(chars.len());
        let middle: String = chars[start..end].iter().collect();
        let quoted = format!("{middle:?}");
        let inner = &quoted[1..quoted.len() - 1];
        let head = if start > 0 { "…" } else { "" };
        let tail = if end < chars.len() { "…" } else { "" };
        format!("\"{head}{inner}{tail}\"")
    };
    (cut(&ca), cut(&cb))
}

/// The place of property `name` below `place`: `inputs.customer` and
/// `name` → `inputs.customer.name`; a name that is empty or holds `.`,
/// `[`, `]`, a quote or white space is written as a JSON string in
/// brackets (`inputs["a.b"]`), as request validation names places.
pub(crate) fn place_child(place: &str, name: &str) -> String {
    let plain = !name.is_empty()
        && !name.contains(['.', '[', ']', '"'])
        && !name.contains(char::is_whitespace);
    if plain {
        format!("{place}.{name}")
    } else {
        format!("{place}[{}]", Value::String(name.to_owned()))
    }
}

/// `"a"` → `"b"`, `added`, `removed`, as words.
pub(crate) fn edit(a: Option<&str>, b: Option<&str>) -> String {
    let show = |s: &str| {
        let s = s.trim();
        if s.chars().count() > 40 {
            format!("\"{}…\"", s.chars().take(39).collect::<String>())
        } else {
            format!("{:?}", s)
        }
    };
    match (a, b) {
        (Some(a), Some(b)) => {
            let (a, b) = excerpts(a.trim(), b.trim());
            format!("changed: {a} → {b}")
        }
        (None, Some(b)) => format!("was added: {}", show(b)),
        (Some(a), None) => format!("was removed (was {})", show(a)),
        (None, None) => "did not change".to_owned(),
    }
}

/// Names of both lists, the first's order first, each once.
pub(crate) fn union<'a, I, J, S>(a: I, b: J) -> Vec<String>
where
    I: IntoIterator<Item = S>,
    J: IntoIterator<Item = S>,
    S: AsRef<str> + 'a,
{
    let mut out: Vec<String> = Vec::new();
    for s in a.into_iter().chain(b) {
        let s = s.as_ref();
        if !out.iter().any(|o| o == s) {
            out.push(s.to_owned());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_name_properties_as_requests_do() {
        assert_eq!(place_child("inputs", "name"), "inputs.name");
        assert_eq!(place_child("inputs", "a.b"), "inputs[\"a.b\"]");
        assert_eq!(place_child("output", ""), "output[\"\"]");
    }

    #[test]
    fn long_texts_are_shown_where_they_differ() {
        let a = "You extract lease terms as JSON. Never invent values; leave unknown ones out.";
        let b = "You extract lease terms as JSON. Never invent values; mark unknown ones null.";
        assert_eq!(
            excerpts(a, b),
            (
                "\"…ent values; leave unknown ones out.\"".to_owned(),
                "\"…ent values; mark unknown ones null.\"".to_owned()
            )
        );
        assert_eq!(
            excerpts("Hello ", "Good morning, "),
            ("\"Hello \"".to_owned(), "\"Good morning, \"".to_owned())
        );
        // A long insertion is cut after 40 changed characters, and says so.
        let long = format!("{a} {}", "x".repeat(100));
        let (_, shown) = excerpts(a, &long);
        assert!(
            shown.starts_with("\"…") && shown.ends_with("xxx…\""),
            "{shown}"
        );
    }

    #[test]
    fn long_values_are_cut() {
        let long = Value::String("x".repeat(100));
        assert_eq!(json_text(&long).chars().count(), 58);
        assert_eq!(json_text(&serde_json::json!([1, "a"])), "[1,\"a\"]");
    }
}
