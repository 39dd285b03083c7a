//! Small text helpers for messages.

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
    fn long_values_are_cut() {
        let long = Value::String("x".repeat(100));
        assert_eq!(json_text(&long).chars().count(), 58);
        assert_eq!(json_text(&serde_json::json!([1, "a"])), "[1,\"a\"]");
    }
}
