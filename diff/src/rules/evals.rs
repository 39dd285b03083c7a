//! The `evals` family: eval fixtures, matched by id (`EVAL_CHANGED`).

use crate::change::Change;
use crate::pair::Pair;
use crate::rules::Rule;
use crate::text::union;
use templiqx_build::dto::EvalDecl;
use templiqx_contracts::canonical::fingerprint;

/// Each fixture added, removed or changed.
pub(crate) fn compare(pair: &Pair<'_>, out: &mut Vec<Change>) {
    let (a, b) = (&pair.old_dto.evals, &pair.new_dto.evals);
    let ids = union(a.iter().map(|e| &e.id), b.iter().map(|e| &e.id));
    for id in ids {
        let ia = a.iter().position(|e| e.id == id);
        let ib = b.iter().position(|e| e.id == id);
        let value = |e: &EvalDecl| fingerprint(&serde_json::to_value(e).unwrap_or_default());
        let message = match (ia, ib) {
            (Some(i), Some(j)) if value(&a[i]) == value(&b[j]) => continue,
            (Some(_), Some(_)) => format!("eval fixture `{id}` changed"),
            (Some(_), None) => format!("eval fixture `{id}` was removed"),
            (None, Some(_)) => format!("eval fixture `{id}` was added"),
            (None, None) => continue,
        };
        let at =
            |i: Option<usize>| i.map_or_else(|| "/evals".to_owned(), |i| format!("/evals/{i}"));
        out.push(pair.change(Rule::EvalChanged, message, Some(&at(ia)), Some(&at(ib))));
    }
}
