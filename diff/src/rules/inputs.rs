//! The `inputs` family: the schemas of `inputs` and `context`, which
//! callers write (`INPUT_*` rules, `docs/diff.md`, "Schema rules"), and
//! `title`/`description` edits in them (`DOCUMENTATION_CHANGED`).

use crate::change::Change;
use crate::pair::Pair;
use crate::schema::{self, Node, Shape, push};
use crate::schema_changes::{Readers, annotations, changes};
use crate::text::place_child;
use templiqx_contracts::ir::Field;

/// Each root scope compared as a closed object whose properties are its
/// fields, then the annotations of each field both versions declare.
pub(crate) fn compare(pair: &Pair<'_>, out: &mut Vec<Change>) {
    for scope in ["inputs", "context"] {
        let (old_fields, new_fields) = match scope {
            "inputs" => (&pair.old_ir.inputs, &pair.new_ir.inputs),
            _ => (&pair.old_ir.context, &pair.new_ir.context),
        };
        let (a, b) = (
            scope_shape(scope, old_fields),
            scope_shape(scope, new_fields),
        );
        let narrowed = schema::scope_findings(&a, &b, scope);
        let widened = schema::scope_findings(&b, &a, scope);
        out.extend(changes(pair, Readers::Callers, narrowed, widened));
        for old in old_fields.iter() {
            if let Some(new) = new_fields.iter().find(|f| f.name == old.name) {
                let at = push(&push(&format!("/{scope}"), &old.name), "schema");
                let place = place_child(scope, &old.name);
                annotations(
                    pair,
                    Readers::Callers,
                    &old.schema,
                    &new.schema,
                    &at,
                    &at,
                    &place,
                    out,
                );
            }
        }
    }
}

/// A root scope as a closed object whose properties are its fields.
fn scope_shape<'s>(scope: &str, fields: &'s [Field]) -> Shape<'s> {
    let base = format!("/{scope}");
    Shape {
        properties: fields
            .iter()
            .map(|f| {
                let field = push(&base, &f.name);
                (
                    f.name.to_string(),
                    Node::root(&f.schema, push(&field, "schema")),
                    field,
                )
            })
            .collect(),
        required: fields
            .iter()
            .filter(|f| f.required)
            .map(|f| (f.name.to_string(), push(&push(&base, &f.name), "required")))
            .collect(),
        additional: false,
        ptr: base.clone(),
        additional_at: base,
    }
}
