//! One contract on both sides, compiled: what every contract rule family
//! (`crate::rules`) reads, and how a change is placed on both sides.

use crate::change::Change;
use crate::rules::Rule;
use crate::schema::push;
use crate::side::Side;
use templiqx_build::dto::Contract;
use templiqx_contracts::Interaction;

/// One contract on both sides, compiled.
pub(crate) struct Pair<'a> {
    pub(crate) old: &'a Side,
    pub(crate) new: &'a Side,
    pub(crate) id: &'a str,
    pub(crate) old_dto: &'a Contract,
    pub(crate) new_dto: &'a Contract,
    pub(crate) old_ir: &'a Interaction,
    pub(crate) new_ir: &'a Interaction,
}

impl Pair<'_> {
    /// A change of `rule` about this contract, at the pointers `old` and
    /// `new` in each version's contract file (`None`: on no side).
    pub(crate) fn change(
        &self,
        rule: Rule,
        message: String,
        old: Option<&str>,
        new: Option<&str>,
    ) -> Change {
        let mut c = Change::new(rule, Some(self.id), message);
        c.old = old.map(|p| self.old.locate(self.old_dto.loc.file, p));
        c.new = new.map(|p| self.new.locate(self.new_dto.loc.file, p));
        c
    }

    /// The change `rule` about `key` under `base` (`/provenance`): at the
    /// key on each side that has it (`has`: old, new), else at `base`.
    pub(crate) fn keyed(
        &self,
        rule: Rule,
        message: String,
        base: &str,
        key: &str,
        has: (bool, bool),
    ) -> Change {
        let at = push(base, key);
        let pick = |present: bool| if present { at.clone() } else { base.to_owned() };
        self.change(rule, message, Some(&pick(has.0)), Some(&pick(has.1)))
    }
}
