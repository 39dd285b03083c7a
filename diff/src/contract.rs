//! Comparing one contract on both sides (`docs/diff.md`, "Rules"): the
//! driver of the contract rule families (`crate::rules`), in the order
//! their changes are reported.
//!
//! Shapes come from the compiled interaction (schemas normalised); what the
//! interaction does not keep — descriptions, provenance, eval fixtures, and
//! where each node was written — from the composed contract.

use crate::change::Change;
use crate::content::Content;
use crate::pair::Pair;
use crate::rules::{
    Family, capabilities, components, documentation, evals, extensions, inputs, messages, output,
    partials, provenance, runtime_policy,
};

/// Every change between the two versions of the contract, family by
/// family.
pub(crate) fn compare(pair: &Pair<'_>) -> Vec<Change> {
    let content = Content::of(pair);
    type Handler<'h> = &'h dyn Fn(&mut Vec<Change>);
    let families: [(Family, Handler<'_>); 11] = [
        (Family::Inputs, &|out| inputs::compare(pair, out)),
        (Family::Output, &|out| output::compare(pair, out)),
        (Family::Capabilities, &|out| {
            capabilities::compare(pair, out)
        }),
        (Family::Messages, &|out| {
            messages::compare(pair, &content, out)
        }),
        (Family::Components, &|out| {
            components::compare(pair, &content, out)
        }),
        (Family::Partials, &|out| {
            partials::compare(pair, &content, out)
        }),
        (Family::RuntimePolicy, &|out| {
            runtime_policy::compare(pair, out)
        }),
        (Family::Extensions, &|out| extensions::compare(pair, out)),
        (Family::Documentation, &|out| {
            documentation::compare(pair, out)
        }),
        (Family::Provenance, &|out| provenance::compare(pair, out)),
        (Family::Evals, &|out| evals::compare(pair, out)),
    ];
    let mut out = Vec::new();
    for (family, handler) in families {
        let from = out.len();
        handler(&mut out);
        family.check(out[from..].iter().map(|c| c.rule));
    }
    out
}
