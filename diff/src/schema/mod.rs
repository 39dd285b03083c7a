//! Semantic inclusion of schemas of the bounded subset (`docs/format.md`,
//! "The bounded JSON Schema subset"; `docs/diff.md`, "How schemas are
//! compared").
//!
//! [`includes`] answers "is every value valid under `a` valid under `b`?"
//! over the compiled [`Schema`]s, so spelling never matters (`type:
//! [string, "null"]` in either order, `minimum: 0` and `exclusiveMinimum: -1`
//! on integers, reordered keys, descriptions). The answer is
//!
//! - [`Answer::Yes`] only when it is proven: every keyword of the subset is
//!   reasoned about exactly (type sets with integers inside numbers, `enum`
//!   and `const` by validating each listed value, numeric bounds as exact
//!   intervals — integer bounds normalised, so exclusive and inclusive forms
//!   agree —, string lengths together with the lengths a `format` allows,
//!   item counts, `items`, `properties`, `required`, `additionalProperties`);
//! - [`Answer::No`] with a reason and, almost always, a witness: a value
//!   that `a` accepts and `b` refuses, checked with the project's own
//!   validator ([`templiqx_contracts::validate`]);
//! - [`Answer::Unknown`] with the reason, where deciding would be too
//!   costly: an `enum` on `b` against an `a` that accepts more values than
//!   can be listed and no refused one is found among the candidates, or
//!   numeric bounds beyond ±2^100 (which are compared only when equal).
//!
//! The subset has no `pattern`, `$ref`, `anyOf`/`oneOf` or unions of
//! several non-null types (`TQX_SCHEMA_UNSUPPORTED`), so none of them can
//! appear here.

// The comparison is split by concern, each module using only those listed
// before it: `interval` (numeric bounds), `values` (what a schema accepts,
// kind by kind), `judge` (validation with a long `enum` as a set), `node`
// (where each schema is written), `finding` (what a finding is about and
// how it reads), `witness` (example values) and `inclusion` (the walk);
// this module answers with them.
mod finding;
mod inclusion;
mod interval;
mod judge;
mod node;
mod values;
mod witness;

pub(crate) use finding::{Aspect, Finding};
pub(crate) use inclusion::{findings, scope_findings};
pub(crate) use node::{Node, Shape, push};

use serde_json::Value;
use templiqx_contracts::Schema;
use witness::witness;

/// The answer to "does every value valid under `a` validate under `b`?".
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    /// Proven.
    Yes,
    /// Disproven.
    No {
        /// What `a` accepts that `b` refuses, as a sentence.
        reason: String,
        /// A value valid under `a` and invalid under `b`, when one was
        /// constructed (checked with the validator).
        witness: Option<Value>,
    },
    /// Not decided.
    Unknown {
        /// Why not.
        reason: String,
    },
}

/// Whether every value valid under `a` is valid under `b` (see the module
/// documentation for what each answer guarantees).
///
/// ```
/// use serde_json::json;
/// use templiqx_build::schema::compile_schema;
/// use templiqx_diff::schema::{includes, Answer};
///
/// let old = compile_schema(&json!({"type": "integer", "minimum": 0}), "").unwrap();
/// let new = compile_schema(&json!({"type": "integer", "exclusiveMinimum": -1}), "").unwrap();
/// assert_eq!(includes(&old, &new), Answer::Yes);
///
/// let narrower = compile_schema(&json!({"type": "integer", "maximum": 9}), "").unwrap();
/// let Answer::No { witness, .. } = includes(&old, &narrower) else { panic!() };
/// assert_eq!(witness, Some(json!(10)));
/// ```
pub fn includes(a: &Schema, b: &Schema) -> Answer {
    let findings = findings(
        &Node::root(a, String::new()),
        &Node::root(b, String::new()),
        "value",
    );
    if let Some(f) = findings.iter().find(|f| f.undecided.is_none()) {
        // The finding's own witness is a value of the node it is about;
        // the answer's is a value of the whole schema.
        return Answer::No {
            reason: f.sentence(),
            witness: witness(a, b, |_| true),
        };
    }
    match findings.first() {
        Some(f) => Answer::Unknown {
            reason: f.sentence(),
        },
        None => Answer::Yes,
    }
}

/// Whether two compiled schemas accept exactly the same values (proven).
pub(crate) fn same_values(a: &Schema, b: &Schema) -> bool {
    includes(a, b) == Answer::Yes && includes(b, a) == Answer::Yes
}

/// Whether two schema documents accept the same values: compared compiled
/// when both compile, else by their canonical JSON.
pub(crate) fn same_shape(a: &Value, b: &Value) -> bool {
    use templiqx_build::schema::compile_schema;
    use templiqx_contracts::canonical::fingerprint;
    match (compile_schema(a, ""), compile_schema(b, "")) {
        (Ok(sa), Ok(sb)) => same_values(&sa, &sb),
        _ => fingerprint(a) == fingerprint(b),
    }
}

#[cfg(test)]
mod tests {
    use super::witness::{SAMPLE_WEIGHT, samples, weight};
    use super::*;
    use serde_json::json;
    use templiqx_build::schema::compile_schema;
    use templiqx_contracts::AsValue;
    use templiqx_contracts::validate::validate;

    fn s(v: Value) -> Schema {
        compile_schema(&v, "").unwrap_or_else(|d| panic!("{v}: {d:?}"))
    }

    fn yes(a: Value, b: Value) {
        let answer = includes(&s(a.clone()), &s(b.clone()));
        assert_eq!(answer, Answer::Yes, "{a} ⊆ {b}");
    }

    fn no(a: Value, b: Value) -> Option<Value> {
        let (sa, sb) = (s(a.clone()), s(b.clone()));
        match includes(&sa, &sb) {
            Answer::No { witness, .. } => {
                if let Some(w) = &witness {
                    assert!(validate(&sa, w.as_value()).is_ok(), "{w} not in {a}");
                    assert!(validate(&sb, w.as_value()).is_err(), "{w} in {b}");
                }
                witness
            }
            other => panic!("{a} ⊆ {b}: {other:?}"),
        }
    }

    #[test]
    fn equivalent_spellings_are_included_both_ways() {
        let pairs = [
            (
                json!({"type": ["string", "null"]}),
                json!({"type": ["null", "string"]}),
            ),
            (
                json!({"type": "integer", "minimum": 0}),
                json!({"type": "integer", "exclusiveMinimum": -1}),
            ),
            (
                json!({"type": "integer", "maximum": 9.5}),
                json!({"type": "integer", "exclusiveMaximum": 10}),
            ),
            (
                json!({"type": "string", "description": "a"}),
                json!({"type": "string", "title": "b"}),
            ),
            (
                json!({"enum": ["a", "b"]}),
                json!({"type": "string", "enum": ["b", "a"]}),
            ),
            (json!({"const": 1}), json!({"enum": [1.0]})),
            (
                json!({"type": "object", "properties": {"a": {}, "b": {"type": "string"}}}),
                json!({"properties": {"b": {"type": "string"}, "a": {}}, "type": "object"}),
            ),
            (
                json!({"type": "string", "format": "date"}),
                json!({"type": "string", "format": "date", "maxLength": 10}),
            ),
        ];
        for (a, b) in pairs {
            yes(a.clone(), b.clone());
            yes(b, a);
        }
    }

    #[test]
    fn narrowing_is_found_with_a_witness() {
        assert_eq!(
            no(
                json!({"type": ["string", "null"]}),
                json!({"type": "string"})
            ),
            Some(json!(null))
        );
        assert_eq!(
            no(json!({"type": "number"}), json!({"type": "integer"})),
            Some(json!(0.5))
        );
        assert_eq!(
            no(
                json!({"type": "integer", "minimum": 0}),
                json!({"type": "integer", "minimum": 1})
            ),
            Some(json!(0))
        );
        assert_eq!(
            no(
                json!({"type": "number", "minimum": 0}),
                json!({"type": "number", "exclusiveMinimum": 0})
            ),
            Some(json!(0))
        );
        assert!(
            no(
                json!({"type": "number", "maximum": 1.5}),
                json!({"type": "number", "maximum": 1})
            )
            .is_some()
        );
        assert_eq!(
            no(json!({"enum": ["a", "b"]}), json!({"enum": ["a"]})),
            Some(json!("b"))
        );
        assert!(
            no(
                json!({"type": "string"}),
                json!({"type": "string", "format": "date"})
            )
            .is_some()
        );
        assert!(
            no(
                json!({"type": "string"}),
                json!({"type": "string", "maxLength": 3})
            )
            .is_some()
        );
        assert!(
            no(
                json!({"type": "array"}),
                json!({"type": "array", "maxItems": 2})
            )
            .is_some()
        );
        assert!(no(json!({"type": "string"}), json!({"enum": ["a"]})).is_some());
        assert!(
            no(
                json!({"type": "object", "properties": {"a": {}}}),
                json!({"type": "object", "properties": {"a": {}}, "required": ["a"]})
            )
            .is_some()
        );
        assert!(
            no(
                json!({"type": "object", "properties": {"a": {}}}),
                json!({"type": "object", "properties": {"a": {}}, "additionalProperties": false})
            )
            .is_some()
        );
        assert!(
            no(
                json!({"type": "object", "properties": {"a": {}}, "additionalProperties": false}),
                json!({"type": "object", "properties": {}, "additionalProperties": false})
            )
            .is_some()
        );
        assert!(
            no(
                json!({"type": "object"}),
                json!({"type": "object", "properties": {"a": {"type": "string"}}})
            )
            .is_some()
        );
        assert!(
            no(
                json!({"type": "array", "items": {"type": "integer"}}),
                json!({"type": "array", "items": {"type": "integer", "maximum": 3}})
            )
            .is_some()
        );
    }

    #[test]
    fn integer_ranges_are_compared_as_integers() {
        yes(
            json!({"type": "integer", "minimum": 0.5}),
            json!({"type": "integer", "minimum": 1}),
        );
        yes(
            json!({"type": "integer", "exclusiveMaximum": 3}),
            json!({"type": "number", "maximum": 2}),
        );
        yes(
            json!({"type": "integer", "minimum": 1, "maximum": 3}),
            json!({"enum": [1, 2, 3]}),
        );
        no(
            json!({"type": "integer", "minimum": 1, "maximum": 4}),
            json!({"enum": [1, 2, 3]}),
        );
    }

    #[test]
    fn formats_fix_string_lengths() {
        yes(
            json!({"type": "string", "format": "date"}),
            json!({"type": "string", "minLength": 10, "maxLength": 10}),
        );
        yes(
            json!({"type": "string", "format": "date-time", "maxLength": 21}),
            json!({"type": "string", "maxLength": 20}),
        );
        no(
            json!({"type": "string", "format": "date"}),
            json!({"type": "string", "format": "date-time"}),
        );
        no(
            json!({"type": "string", "format": "date-time"}),
            json!({"type": "string", "maxLength": 30}),
        );
    }

    #[test]
    fn nested_large_arrays_stay_small_samples() {
        // 300 × 300 × 300 items would not fit in memory as one sample.
        let deep = json!({"type": "array", "minItems": 300, "items":
            {"type": "array", "minItems": 300, "items":
                {"type": "array", "minItems": 300, "items": {"type": "integer"}}}});
        let (a, b) = (
            s(deep.clone()),
            s(json!({"type": "array", "maxItems": 299})),
        );
        for v in samples(&a, Some(&b), 0) {
            assert!(weight(&v, usize::MAX) <= SAMPLE_WEIGHT);
        }
        // The count is still compared without a sample.
        assert!(matches!(includes(&a, &b), Answer::No { .. }));
    }

    #[test]
    fn a_listed_new_side_against_many_old_values_is_decided_or_undecided() {
        // Too many integers to list, and every candidate is refused: No.
        no(json!({"type": "integer"}), json!({"enum": [1, 2]}));
        // Strings of length 5 are infinitely many; no candidate is in the
        // enum, so one is found.
        no(
            json!({"type": "string", "minLength": 5, "maxLength": 5}),
            json!({"enum": ["aaaaa"]}),
        );
    }
}
