//! The `extensions` family: namespaced extensions, matched by key
//! (`EXTENSION_CHANGED`), and `title`/`description` edits in an extension's
//! schema (`DOCUMENTATION_CHANGED`).

use crate::change::Change;
use crate::pair::Pair;
use crate::rules::Rule;
use crate::schema::{push, same_values};
use crate::schema_changes::{Readers, annotations};
use crate::text::{json_text, union};
use serde_json::Value;
use templiqx_contracts::Interaction;
use templiqx_contracts::canonical::fingerprint;

/// Each extension added, removed, or whose capability, value or schema
/// changed.
pub(crate) fn compare(pair: &Pair<'_>, out: &mut Vec<Change>) {
    let (da, db) = (&pair.old_dto.extensions, &pair.new_dto.extensions);
    for key in union(da.iter().map(|(k, _)| k), db.iter().map(|(k, _)| k)) {
        let at = push("/extensions", &key);
        let compiled = |ir: &Interaction| {
            ir.extensions
                .iter()
                .find(|e| *e.key == *key)
                .map(|e| e.schema.clone())
        };
        let (message, old_at, new_at) = match (da.get(&key), db.get(&key)) {
            (Some(a), Some(b)) => {
                let mut what = Vec::new();
                if a.capability != b.capability {
                    what.push(format!(
                        "its capability `{}` → `{}`",
                        a.capability, b.capability
                    ));
                }
                if fingerprint(&a.value) != fingerprint(&b.value) {
                    what.push(format!(
                        "its value `{}` → `{}`",
                        json_text(&a.value),
                        json_text(&b.value)
                    ));
                }
                match (compiled(pair.old_ir), compiled(pair.new_ir)) {
                    (Some(sa), Some(sb)) if !same_values(&sa, &sb) => {
                        what.push("its schema accepts other values".to_owned())
                    }
                    (Some(sa), Some(sb)) => {
                        let p = push(&at, "schema");
                        annotations(
                            pair,
                            Readers::Callers,
                            &sa,
                            &sb,
                            &p,
                            &p,
                            &format!("extensions[{}]", Value::String(key.clone())),
                            out,
                        );
                    }
                    _ => {}
                }
                if what.is_empty() {
                    continue;
                }
                (
                    format!("extension `{key}`: {}", what.join("; ")),
                    at.clone(),
                    at.clone(),
                )
            }
            (Some(_), None) => (
                format!("extension `{key}` was removed"),
                at.clone(),
                "/extensions".to_owned(),
            ),
            (None, Some(_)) => (
                format!("extension `{key}` was added"),
                "/extensions".to_owned(),
                at.clone(),
            ),
            (None, None) => continue,
        };
        out.push(pair.change(
            Rule::ExtensionChanged,
            message,
            Some(&old_at),
            Some(&new_at),
        ));
    }
}
