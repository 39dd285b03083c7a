//! The `documentation` family: descriptions that reach no request — the
//! contract's and each field declaration's (`DOCUMENTATION_CHANGED`).

use crate::change::Change;
use crate::pair::Pair;
use crate::rules::Rule;
use crate::schema::push;
use crate::text::{edit, place_child};
use templiqx_build::dto::{FieldDecl, OrderedMap};

/// The contract's description, then the description of each input and
/// context field both versions declare.
pub(crate) fn compare(pair: &Pair<'_>, out: &mut Vec<Change>) {
    let (a, b) = (
        pair.old_dto.description.as_deref(),
        pair.new_dto.description.as_deref(),
    );
    if a != b {
        let message = format!("the contract's description {}", edit(a, b));
        let at = |present: bool| if present { "/description" } else { "" };
        out.push(pair.change(
            Rule::DocumentationChanged,
            message,
            Some(at(a.is_some())),
            Some(at(b.is_some())),
        ));
    }
    for scope in ["inputs", "context"] {
        let (fa, fb): (&OrderedMap<FieldDecl>, &OrderedMap<FieldDecl>) = match scope {
            "inputs" => (&pair.old_dto.inputs, &pair.new_dto.inputs),
            _ => (&pair.old_dto.context, &pair.new_dto.context),
        };
        for (name, da) in fa.iter() {
            let Some(db) = fb.get(name) else { continue };
            if da.description == db.description {
                continue;
            }
            let field = push(&format!("/{scope}"), name);
            let at = |d: &FieldDecl| {
                if d.description.is_some() {
                    push(&field, "description")
                } else {
                    field.clone()
                }
            };
            let message = format!(
                "`{}`: the field's description {}",
                place_child(scope, name),
                edit(da.description.as_deref(), db.description.as_deref())
            );
            out.push(pair.change(
                Rule::DocumentationChanged,
                message,
                Some(&at(da)),
                Some(&at(db)),
            ));
        }
    }
}
