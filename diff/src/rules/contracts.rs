//! The `contracts` family: contracts matched by id (`CONTRACT_REMOVED`,
//! `CONTRACT_ADDED`), and two contract files' ids (`CONTRACT_ID_CHANGED`).
//! The package driver (`crate::package`) matches the contracts and gives
//! each its verdict.

use crate::change::Change;
use crate::pair::Pair;
use crate::rules::Rule;
use crate::side::Side;
use templiqx_build::CompiledContract;

/// `CONTRACT_REMOVED` / `CONTRACT_ADDED` (`rule`) for a contract on
/// `sides.0` only; on `sides.1`, the change points at the manifest's
/// contract list when it has one.
pub(crate) fn presence((side, other): (&Side, &Side), c: &CompiledContract, rule: Rule) -> Change {
    let verb = match rule {
        Rule::ContractRemoved => "was removed",
        _ => "was added",
    };
    let version = c
        .contract
        .as_ref()
        .map(|d| format!(" v{}", d.version))
        .unwrap_or_default();
    let mut change = Change::new(
        rule,
        Some(&c.id),
        format!("contract `{}`{version} {verb}", c.id),
    );
    let at = match (side.manifest(), side.manifest_file()) {
        (Some(m), Some(file)) => m
            .contracts
            .iter()
            .position(|x| *x == c.id)
            .map(|i| side.locate(file, &format!("/contracts/{i}"))),
        _ => None,
    }
    .or_else(|| c.contract.as_ref().map(|d| side.locate(d.loc.file, "/id")));
    let list = other
        .manifest_file()
        .map(|file| other.locate(file, "/contracts"));
    if rule == Rule::ContractRemoved {
        (change.old, change.new) = (at, list);
    } else {
        (change.new, change.old) = (at, list);
    }
    change
}

/// `CONTRACT_ID_CHANGED` when the two versions declare different ids (two
/// contract files compared directly): `old_id`, and the pair's.
pub(crate) fn id_changed(pair: &Pair<'_>, old_id: &str) -> Option<Change> {
    (old_id != pair.id).then(|| {
        let message = format!("the contract's id changed: `{old_id}` → `{}`", pair.id);
        pair.change(Rule::ContractIdChanged, message, Some("/id"), Some("/id"))
    })
}
