//! The `runtime_policy` family: the hints adapters read
//! (`RUNTIME_POLICY_CHANGED`).

use crate::change::Change;
use crate::pair::Pair;
use crate::rules::Rule;
use crate::text::{json_text, union};
use serde_json::Value;

/// Each `runtime_policy` key whose value changed, was set or unset.
pub(crate) fn compare(pair: &Pair<'_>, out: &mut Vec<Change>) {
    let (a, b) = (
        to_map(&pair.old_dto.runtime_policy),
        to_map(&pair.new_dto.runtime_policy),
    );
    for key in union(a.keys(), b.keys()) {
        let (va, vb) = (a.get(&key), b.get(&key));
        if va == vb {
            continue;
        }
        let show = |v: Option<&Value>| {
            v.map_or_else(|| "unset".to_owned(), |v| format!("`{}`", json_text(v)))
        };
        let message = format!("`runtime_policy.{key}`: {} → {}", show(va), show(vb));
        out.push(pair.keyed(
            Rule::RuntimePolicyChanged,
            message,
            "/runtime_policy",
            &key,
            (va.is_some(), vb.is_some()),
        ));
    }
}

/// The members of `v` as JSON (none unless it is an object).
fn to_map<T: serde::Serialize>(v: &T) -> serde_json::Map<String, Value> {
    match serde_json::to_value(v) {
        Ok(Value::Object(m)) => m,
        _ => serde_json::Map::new(),
    }
}
