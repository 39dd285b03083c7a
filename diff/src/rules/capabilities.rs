//! The `capabilities` family: the capabilities a contract requires,
//! directly or through an extension (`CAPABILITY_ADDED`,
//! `CAPABILITY_REMOVED`).

use crate::change::Change;
use crate::pair::Pair;
use crate::rules::Rule;
use crate::schema::push;
use std::collections::BTreeSet;
use templiqx_build::dto::Contract;
use templiqx_contracts::Interaction;

/// The required capabilities added, then those removed.
pub(crate) fn compare(pair: &Pair<'_>, out: &mut Vec<Change>) {
    let set = |ir: &Interaction| {
        ir.required_capabilities
            .iter()
            .map(|c| c.to_string())
            .collect::<BTreeSet<_>>()
    };
    let (old, new) = (set(pair.old_ir), set(pair.new_ir));
    let at = |dto: &Contract, cap: &str| -> String {
        if let Some(i) = dto.capabilities.iter().position(|c| c == cap) {
            return format!("/capabilities/{i}");
        }
        dto.extensions
            .iter()
            .find(|(_, e)| e.capability == cap)
            .map_or_else(
                || "/capabilities".to_owned(),
                |(k, _)| push(&push("/extensions", k), "capability"),
            )
    };
    for cap in new.difference(&old) {
        let message = format!("the contract now requires capability `{cap}`");
        out.push(pair.change(
            Rule::CapabilityAdded,
            message,
            Some("/capabilities"),
            Some(&at(pair.new_dto, cap)),
        ));
    }
    for cap in old.difference(&new) {
        let message = format!("the contract no longer requires capability `{cap}`");
        out.push(pair.change(
            Rule::CapabilityRemoved,
            message,
            Some(&at(pair.old_dto, cap)),
            Some("/capabilities"),
        ));
    }
}
