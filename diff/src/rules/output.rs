//! The `output` family: `output_schema`, which consumers (and the
//! generated `Output`) read (`OUTPUT_*` rules, `docs/diff.md`, "Schema
//! rules"), and `title`/`description` edits in it
//! (`OUTPUT_ANNOTATION_CHANGED`).

use crate::change::Change;
use crate::pair::Pair;
use crate::schema::{self, Node};
use crate::schema_changes::{Readers, annotations, changes};

/// The output schema compared both ways, then its annotations.
pub(crate) fn compare(pair: &Pair<'_>, out: &mut Vec<Change>) {
    let (a, b) = (&pair.old_ir.output_schema, &pair.new_ir.output_schema);
    let at = "/output_schema".to_owned();
    let narrowed = schema::findings(
        &Node::root(a, at.clone()),
        &Node::root(b, at.clone()),
        "output",
    );
    let widened = schema::findings(
        &Node::root(b, at.clone()),
        &Node::root(a, at.clone()),
        "output",
    );
    out.extend(changes(pair, Readers::Consumers, narrowed, widened));
    annotations(pair, Readers::Consumers, a, b, &at, &at, "output", out);
}
