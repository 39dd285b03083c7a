//! The `components` family: local components, matched by name
//! (`COMPONENT_CHANGED`), and their parameters' descriptions
//! (`DOCUMENTATION_CHANGED`).

use crate::change::Change;
use crate::content::{Content, same};
use crate::pair::Pair;
use crate::rules::Rule;
use crate::schema::{push, same_shape};
use crate::text::{edit, union};
use templiqx_build::dto::{ComponentDecl, FieldDecl};

/// Each component added, removed, or whose parameters or body changed;
/// before a changed one, its parameters' description edits.
pub(crate) fn compare(pair: &Pair<'_>, content: &Content<'_>, out: &mut Vec<Change>) {
    let names = union(
        pair.old_dto.components.iter().map(|(n, _)| n),
        pair.new_dto.components.iter().map(|(n, _)| n),
    );
    for name in names {
        let at = push("/components", &name);
        let (a, b) = (
            pair.old_dto.components.get(&name),
            pair.new_dto.components.get(&name),
        );
        let message = match (a, b) {
            (Some(a), Some(b)) => {
                let (pa, pb) = (params(a), params(b));
                let Some((sa, sb)) = content.component(&name) else {
                    unreachable!("`Content` shapes every component both versions declare")
                };
                let params_same = pa.len() == pb.len()
                    && pa.iter().zip(&pb).all(|((na, da), (nb, db))| {
                        na == nb && da.required == db.required && same_shape(&da.schema, &db.schema)
                    });
                for ((pname, da), (_, db)) in
                    pa.iter().zip(&pb).filter(|((na, _), (nb, _))| na == nb)
                {
                    if da.description != db.description {
                        let p = push(&push(&push(&at, "parameters"), pname), "description");
                        let message = format!(
                            "component `{name}`, parameter `{pname}`: the description {}",
                            edit(da.description.as_deref(), db.description.as_deref())
                        );
                        out.push(pair.change(
                            Rule::DocumentationChanged,
                            message,
                            Some(&p),
                            Some(&p),
                        ));
                    }
                }
                match (params_same, same(sa, sb)) {
                    (true, true) => continue,
                    (false, true) => format!("component `{name}`: its parameters changed"),
                    (true, false) => format!("component `{name}`: its body changed"),
                    (false, false) => {
                        format!("component `{name}`: its parameters and body changed")
                    }
                }
            }
            (Some(_), None) => format!("component `{name}` was removed"),
            (None, Some(_)) => format!("component `{name}` was added"),
            (None, None) => continue,
        };
        out.push(pair.keyed(
            Rule::ComponentChanged,
            message,
            "/components",
            &name,
            (a.is_some(), b.is_some()),
        ));
    }
}

/// A component's declared parameters (none for the legacy form).
fn params(c: &ComponentDecl) -> Vec<(&str, &FieldDecl)> {
    match c {
        ComponentDecl::Typed { parameters, .. } => parameters.iter().collect(),
        ComponentDecl::Legacy(_) => Vec::new(),
    }
}
