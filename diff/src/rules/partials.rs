//! The `partials` family: what each include splices in from a partial
//! file (`PARTIAL_CHANGED`), reported at the include, with the first node
//! that differs in the partial on each side.

use crate::change::{Change, Related, Which};
use crate::content::{Content, first_difference};
use crate::pair::Pair;
use crate::rules::Rule;
use crate::schema::push;

/// A partial is matched by how its include names it and the order of
/// its includes; a pair whose spliced content differs is a change at
/// each include, with the first node that differs in the partial as a
/// related place on each side.
pub(crate) fn compare(pair: &Pair<'_>, content: &Content<'_>, out: &mut Vec<Change>) {
    let (old, new) = (&content.old, &content.new);
    for (i, a) in old.runs.iter().enumerate() {
        let nth = old.runs[..i]
            .iter()
            .filter(|r| r.partial == a.partial)
            .count();
        let Some(b) = new.runs.iter().filter(|r| r.partial == a.partial).nth(nth) else {
            continue;
        };
        if a.nodes == b.nodes {
            continue;
        }
        let message = format!(
            "partial {} (included at {}) now splices other content into the contract",
            b.shown, b.site.pointer
        );
        let mut c = Change::new(Rule::PartialChanged, Some(pair.id), message);
        c.old = Some(pair.old.locate(a.site.file, &a.site.pointer));
        c.new = Some(pair.new.locate(b.site.file, &b.site.pointer));
        // The first node that differs, and in it the first member.
        let j = (a.nodes.iter().zip(&b.nodes))
            .position(|(x, y)| x != y)
            .unwrap_or(a.nodes.len().min(b.nodes.len()));
        let inner = match (a.nodes.get(j), b.nodes.get(j), a.locs.get(j), b.locs.get(j)) {
            (Some(x), Some(y), Some(la), Some(lb)) => {
                let d = first_difference(x, y, (&la.pointer, &lb.pointer));
                let key = |at: String| match &d.member {
                    Some((key, _, _)) => push(&at, key),
                    None => at,
                };
                Some((key(d.old_at.clone()), key(d.new_at.clone())))
            }
            _ => None,
        };
        for (which, side, run) in [(Which::New, pair.new, b), (Which::Old, pair.old, a)] {
            let Some(loc) = run.locs.get(j).or(run.locs.last()) else {
                continue;
            };
            let pointer = match (&inner, which) {
                (Some((old_at, _)), Which::Old) => side.written(loc.file, old_at),
                (Some((_, new_at)), Which::New) => side.written(loc.file, new_at),
                (None, _) => loc.pointer.clone(),
            };
            c.related.push(Related {
                side: which,
                what: "partial".to_owned(),
                location: side.locate(loc.file, &pointer),
            });
        }
        out.push(c);
    }
}
