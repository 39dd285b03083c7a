//! The `provenance` family: the contract's `provenance`
//! (`PROVENANCE_CHANGED`).

use crate::change::Change;
use crate::pair::Pair;
use crate::rules::Rule;
use crate::text::{edit, union};

/// Each `provenance` key whose value changed, was added or removed.
pub(crate) fn compare(pair: &Pair<'_>, out: &mut Vec<Change>) {
    let (a, b) = (&pair.old_dto.provenance, &pair.new_dto.provenance);
    for key in union(a.iter().map(|(k, _)| k), b.iter().map(|(k, _)| k)) {
        let (va, vb) = (a.get(&key), b.get(&key));
        if va == vb {
            continue;
        }
        let message = format!(
            "provenance `{key}` {}",
            edit(va.map(String::as_str), vb.map(String::as_str))
        );
        out.push(pair.keyed(
            Rule::ProvenanceChanged,
            message,
            "/provenance",
            &key,
            (va.is_some(), vb.is_some()),
        ));
    }
}
