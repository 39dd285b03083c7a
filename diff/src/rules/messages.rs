//! The `messages` family: each message, by position, as the model
//! receives it (`MESSAGE_CHANGED`); what a partial splices in counts as its
//! include, and is the `partials` family's.

use crate::change::Change;
use crate::content::{Content, first_difference, same};
use crate::pair::Pair;
use crate::rules::Rule;
use crate::schema::push;
use crate::side::Side;
use crate::text::{excerpts, json_text};
use serde_json::Value;
use templiqx_build::dto::FileId;

/// Each message changed, removed or added, at the first place it differs.
pub(crate) fn compare(pair: &Pair<'_>, content: &Content<'_>, out: &mut Vec<Change>) {
    for i in 0..content.old_messages.len().max(content.new_messages.len()) {
        let at = format!("/messages/{i}");
        let (message, old_at, new_at) =
            match (content.old_messages.get(i), content.new_messages.get(i)) {
                (Some(a), Some(b)) if same(a, b) => continue,
                (Some(a), Some(b)) => {
                    let d = first_difference(a, b, (&at, &at));
                    let what = match &d.member {
                        Some((key, x, y)) if key == "role" && d.old_at == at => {
                            format!("the role changed from `{}` to `{}`", text(x), text(y))
                        }
                        Some((key, Value::String(x), Value::String(y))) if key == "value" => {
                            let (x, y) = excerpts(x, y);
                            format!("its text changed: {x} → {y}")
                        }
                        Some((key, x, y)) => format!(
                            "its content changed: `{key}` {} → {}",
                            shown_value(x),
                            shown_value(y)
                        ),
                        None => "its content changed".to_owned(),
                    };
                    let role = text(&b["role"]);
                    let point = |side: &Side, file: FileId, node: &str| {
                        let p = d
                            .member
                            .as_ref()
                            .map_or_else(|| node.to_owned(), |(key, _, _)| push(node, key));
                        side.written(file, &p)
                    };
                    (
                        format!("`{at}` (`{role}`): {what}"),
                        point(pair.old, pair.old_dto.loc.file, &d.old_at),
                        point(pair.new, pair.new_dto.loc.file, &d.new_at),
                    )
                }
                (Some(a), None) => (
                    format!("`{at}` (`{}`) was removed", text(&a["role"])),
                    at.clone(),
                    "/messages".to_owned(),
                ),
                (None, Some(b)) => (
                    format!("`{at}` (`{}`) was added", text(&b["role"])),
                    "/messages".to_owned(),
                    at.clone(),
                ),
                (None, None) => continue,
            };
        out.push(pair.change(Rule::MessageChanged, message, Some(&old_at), Some(&new_at)));
    }
}

/// A value as text: a string as it is, anything else as compact JSON.
fn text(v: &Value) -> String {
    v.as_str().map_or_else(|| json_text(v), str::to_owned)
}

/// A member's value in a message: a string in quotes, anything else as
/// compact JSON, each cut as [`json_text`] cuts it.
fn shown_value(v: &Value) -> String {
    format!("`{}`", json_text(v))
}
