//! The inclusion walk: every [`Finding`] of "is every value valid under
//! `a` valid under `b`?", keyword by keyword and property by property
//! (`docs/diff.md`, "How schemas are compared").

use super::finding::{Aspect, Finding, aspect_of, keywords, says, says_enum};
use super::interval::Interval;
use super::judge::Judge;
use super::node::{ANY, Node, Shape};
use super::values::{
    KINDS, Kind, LIST_CAP, MAX_DEPTH, accepts_all, admits, finite_values, listed, lists, nonempty,
    part_nonempty, string_lengths,
};
use super::witness::{distinct_witness, witness};
use crate::text::{place_child, some_values};
use serde_json::Value;
use templiqx_contracts::Schema;
use templiqx_contracts::validate::SchemaViolation;

/// Every finding of `a ⊆ b` at `place`: none means proven.
pub(crate) fn findings(a: &Node<'_>, b: &Node<'_>, place: &str) -> Vec<Finding> {
    let mut cx = Cx {
        out: Vec::new(),
        depth: 0,
    };
    cx.include(a, b, place);
    cx.out
}

struct Cx {
    out: Vec<Finding>,
    depth: usize,
}

impl Cx {
    fn push(&mut self, f: Finding) {
        self.out.push(f);
    }

    #[allow(clippy::too_many_arguments)]
    fn finding(
        &mut self,
        aspect: Aspect,
        a_at: String,
        b_at: String,
        place: &str,
        a_says: String,
        b_says: String,
        witness: Option<Value>,
    ) {
        self.push(Finding {
            aspect,
            a_at,
            b_at,
            place: place.to_owned(),
            a_says,
            b_says,
            witness,
            undecided: None,
            lost: None,
            field: false,
        });
    }

    fn undecided(&mut self, a: &Node<'_>, b: &Node<'_>, place: &str, why: String) {
        self.push(Finding {
            aspect: Aspect::Undecided,
            a_at: a.ptr.clone(),
            b_at: b.ptr.clone(),
            place: place.to_owned(),
            a_says: String::new(),
            b_says: String::new(),
            witness: None,
            undecided: Some(why),
            lost: None,
            field: false,
        });
    }

    fn include(&mut self, a: &Node<'_>, b: &Node<'_>, place: &str) {
        if accepts_all(b.schema) {
            return;
        }
        if self.depth > MAX_DEPTH {
            let why = format!("schemas nest deeper than {MAX_DEPTH} levels");
            return self.undecided(a, b, place, why);
        }
        self.depth += 1;
        self.include_node(a, b, place);
        self.depth -= 1;
    }

    fn include_node(&mut self, a: &Node<'_>, b: &Node<'_>, place: &str) {
        let (sa, sb) = (a.schema, b.schema);
        // A listed value set decides by validating every value.
        if let Some(values) = listed(sa) {
            return self.listed_values(a, b, place, &values, "`enum`/`const`");
        }
        if lists(sb) {
            return match finite_values(sa, LIST_CAP) {
                Some(values) => self.listed_values(a, b, place, &values, "its values"),
                None => match witness(sa, sb, |_| true).or_else(|| distinct_witness(sa, sb)) {
                    Some(w) => self.finding(
                        Aspect::Enum,
                        a.at_any(&["enum", "const"]),
                        b.at_any(&["enum", "const"]),
                        place,
                        says_enum(sa),
                        says_enum(sb),
                        Some(w),
                    ),
                    None => self.undecided(
                        a,
                        b,
                        place,
                        format!(
                            "the new side lists its values (`enum`/`const`) and the other accepts more than {LIST_CAP} values, none of the candidates refused; compare them by hand"
                        ),
                    ),
                },
            };
        }
        self.types(a, b, place);
        if (part_nonempty(sa, Kind::Integer) && admits(sb.types, Kind::Integer))
            || (part_nonempty(sa, Kind::Fraction) && admits(sb.types, Kind::Fraction))
        {
            self.numbers(a, b, place);
        }
        if part_nonempty(sa, Kind::String) && admits(sb.types, Kind::String) {
            self.strings(a, b, place);
        }
        if part_nonempty(sa, Kind::Array) && admits(sb.types, Kind::Array) {
            self.arrays(a, b, place);
        }
        if part_nonempty(sa, Kind::Object) && admits(sb.types, Kind::Object) {
            let (shape_a, shape_b) = (Shape::of(a), Shape::of(b));
            self.objects(&shape_a, &shape_b, place, Some((sa, sb)));
        }
    }

    /// `a`'s values are `values`: those `b` refuses make one finding per
    /// aspect, whose witness is the first of them and whose `lost` names
    /// them (the first few and how many more).
    fn listed_values(
        &mut self,
        a: &Node<'_>,
        b: &Node<'_>,
        place: &str,
        values: &[Value],
        what: &str,
    ) {
        let judge = Judge::new(b.schema);
        let b_lists = lists(b.schema);
        // Per aspect, in the order they first appear: the values refused.
        let mut refused: Vec<(Aspect, Vec<&Value>)> = Vec::new();
        for v in values {
            if judge.accepts(v) {
                continue;
            }
            let aspect = if b_lists {
                Aspect::Enum
            } else {
                judge
                    .violations(v)
                    .first()
                    .map_or(Aspect::Enum, |v| aspect_of(v.keyword, &v.pointer))
            };
            match refused.iter_mut().find(|(seen, _)| *seen == aspect) {
                Some((_, list)) => list.push(v),
                None => refused.push((aspect, vec![v])),
            }
        }
        for (aspect, list) in refused {
            let (a_says, b_says, b_at) = match aspect {
                Aspect::Enum => (
                    says_enum(a.schema),
                    says_enum(b.schema),
                    b.at_any(&["enum", "const"]),
                ),
                other => (
                    format!("{} ({what})", says_enum(a.schema)),
                    says(other, b.schema),
                    b.at_any(keywords(other)),
                ),
            };
            self.finding(
                aspect,
                a.at_any(&["enum", "const"]),
                b_at,
                place,
                a_says,
                b_says,
                list.first().map(|v| (*v).clone()),
            );
            if let Some(f) = self.out.last_mut() {
                f.lost = Some(some_values(&list));
            }
        }
    }

    /// A finding of `aspect` at its keywords on both sides, with a witness
    /// refused by one of them.
    fn keyword_finding(&mut self, aspect: Aspect, a: &Node<'_>, b: &Node<'_>, place: &str) {
        let kws = keywords(aspect);
        let w = witness(a.schema, b.schema, |v| {
            kws.iter().any(|k| top_keyword(v, k))
        });
        self.finding(
            aspect,
            a.at_any(kws),
            b.at_any(kws),
            place,
            says(aspect, a.schema),
            says(aspect, b.schema),
            w,
        );
    }

    fn types(&mut self, a: &Node<'_>, b: &Node<'_>, place: &str) {
        let lost: Vec<Kind> = KINDS
            .into_iter()
            .filter(|k| part_nonempty(a.schema, *k) && !admits(b.schema.types, *k))
            .collect();
        if lost.is_empty() {
            return;
        }
        let w = witness(a.schema, b.schema, |v| top_keyword(v, "type"));
        let names: Vec<&str> = lost.iter().map(|k| k.name()).collect();
        self.finding(
            Aspect::Type,
            a.at("type"),
            b.at("type"),
            place,
            says(Aspect::Type, a.schema),
            says(Aspect::Type, b.schema),
            w,
        );
        if let Some(f) = self.out.last_mut() {
            f.lost = Some(names.join(", "));
        }
    }

    fn numbers(&mut self, a: &Node<'_>, b: &Node<'_>, place: &str) {
        let (sa, sb) = (a.schema, b.schema);
        let (ia, ib) = (Interval::of(sa), Interval::of(sb));
        let mut narrower = false;
        if part_nonempty(sa, Kind::Integer) && admits(sb.types, Kind::Integer) {
            match (ia.integers(), ib.integers()) {
                (Ok((alo, ahi)), Ok((blo, bhi))) => narrower |= alo < blo || ahi > bhi,
                _ if ia == ib => {}
                _ => {
                    let why =
                        "numeric bounds beyond ±2^100 are compared only when equal".to_owned();
                    return self.undecided(a, b, place, why);
                }
            }
        }
        if part_nonempty(sa, Kind::Fraction) && admits(sb.types, Kind::Fraction) {
            narrower |= !ia.fractions_within(&ib);
        }
        if narrower {
            self.keyword_finding(Aspect::Range, a, b, place);
        }
    }

    fn strings(&mut self, a: &Node<'_>, b: &Node<'_>, place: &str) {
        let (sa, sb) = (a.schema, b.schema);
        if sb.format.is_some() && sa.format != sb.format {
            self.keyword_finding(Aspect::Format, a, b, place);
        }
        if let Some((lo, hi)) = string_lengths(sa) {
            let (blo, bhi) = (sb.min_length.unwrap_or(0), sb.max_length);
            if !within((lo, hi), (blo, bhi)) {
                self.keyword_finding(Aspect::Length, a, b, place);
            }
        }
    }

    fn arrays(&mut self, a: &Node<'_>, b: &Node<'_>, place: &str) {
        let (sa, sb) = (a.schema, b.schema);
        let items_a = sa.items.as_deref().unwrap_or(&ANY);
        let lo = sa.min_items.unwrap_or(0);
        let hi = if nonempty(items_a, 0) {
            sa.max_items
        } else {
            Some(0)
        };
        let (blo, bhi) = (sb.min_items.unwrap_or(0), sb.max_items);
        if !within((lo, hi), (blo, bhi)) {
            self.keyword_finding(Aspect::ItemCount, a, b, place);
        }
        if hi != Some(0) {
            let na = a.child(sa.items.as_deref(), "items");
            let nb = b.child(sb.items.as_deref(), "items");
            self.include(&na, &nb, &format!("{place}[]"));
        }
    }

    /// Objects (and root scopes): property by property. `schemas` are the
    /// two object schemas, for witnesses (root scopes have none).
    fn objects(
        &mut self,
        a: &Shape<'_>,
        b: &Shape<'_>,
        place: &str,
        schemas: Option<(&Schema, &Schema)>,
    ) {
        let scope = schemas.is_none();
        let witness_for = |pred: &dyn Fn(&[SchemaViolation]) -> bool| {
            schemas.and_then(|(sa, sb)| witness(sa, sb, pred))
        };
        for (name, b_at) in &b.required {
            if a.requires(name) {
                continue;
            }
            let declared = a.property(name);
            let a_at = declared.map_or_else(|| a.ptr.clone(), |(_, _, at)| at.clone());
            let w = witness_for(&|v: &[SchemaViolation]| {
                v.iter()
                    .any(|v| v.pointer.is_empty() && v.keyword == "required")
            });
            self.push(Finding {
                aspect: Aspect::Required {
                    declared: declared.is_some(),
                },
                a_at,
                b_at: b_at.clone(),
                place: place_child(place, name),
                a_says: a.says_required(),
                b_says: b.says_required(),
                witness: w,
                undecided: None,
                lost: None,
                field: scope,
            });
        }
        let mut names: Vec<&str> = a.properties.iter().map(|(n, _, _)| n.as_str()).collect();
        for (n, _, _) in &b.properties {
            if !names.contains(&n.as_str()) {
                names.push(n);
            }
        }
        for name in names {
            let child = place_child(place, name);
            match (a.property(name), b.property(name)) {
                (Some((_, na, a_at)), None) if !b.additional => {
                    if !nonempty(na.schema, 0) {
                        continue;
                    }
                    let token = format!("/{}", escape(name));
                    let w = witness_for(&|v: &[SchemaViolation]| {
                        v.iter()
                            .any(|v| v.pointer == token && v.keyword == "additionalProperties")
                    });
                    self.push(Finding {
                        aspect: Aspect::Closed,
                        a_at: a_at.clone(),
                        b_at: b.additional_at.clone(),
                        place: child,
                        a_says: format!("declares `{name}`"),
                        b_says: format!("does not declare it ({})", b.says_additional()),
                        witness: w,
                        undecided: None,
                        lost: None,
                        field: scope,
                    });
                }
                (Some((_, na, _)), Some((_, nb, _))) => self.include(na, nb, &child),
                (None, Some((_, nb, b_at))) if a.additional => {
                    if accepts_all(nb.schema) {
                        continue;
                    }
                    let token = format!("/{}", escape(name));
                    let w = witness_for(&|v: &[SchemaViolation]| {
                        v.iter().any(|v| v.pointer.starts_with(&token))
                    });
                    self.push(Finding {
                        aspect: Aspect::Declared,
                        a_at: a.additional_at.clone(),
                        b_at: b_at.clone(),
                        place: child,
                        a_says: format!(
                            "accepts any value under `{name}` ({})",
                            a.says_additional()
                        ),
                        b_says: format!("declares `{name}` with a schema"),
                        witness: w,
                        undecided: None,
                        lost: None,
                        field: scope,
                    });
                }
                _ => {}
            }
        }
        if a.additional && !b.additional {
            let w = witness_for(&|v: &[SchemaViolation]| {
                v.iter().any(|v| v.keyword == "additionalProperties")
            });
            self.push(Finding {
                aspect: Aspect::Additional,
                a_at: a.additional_at.clone(),
                b_at: b.additional_at.clone(),
                place: place.to_owned(),
                a_says: a.says_additional(),
                b_says: b.says_additional(),
                witness: w,
                undecided: None,
                lost: None,
                field: scope,
            });
        }
    }
}

/// Findings of a root scope (`inputs`, `context`): a closed object whose
/// properties are the declared fields.
pub(crate) fn scope_findings(a: &Shape<'_>, b: &Shape<'_>, place: &str) -> Vec<Finding> {
    let mut cx = Cx {
        out: Vec::new(),
        depth: 0,
    };
    cx.objects(a, b, place, None);
    cx.out
}

fn escape(token: &str) -> String {
    templiqx_contracts::diagnostic::escape_pointer_token(token).into_owned()
}

/// Whether the counts `[lo, hi]` (`None`: unbounded) lie within `[blo, bhi]`.
fn within((lo, hi): (u64, Option<u64>), (blo, bhi): (u64, Option<u64>)) -> bool {
    lo >= blo
        && match (hi, bhi) {
            (_, None) => true,
            (None, Some(_)) => false,
            (Some(h), Some(bh)) => h <= bh,
        }
}

/// Whether a violation list has `keyword` at the value itself.
fn top_keyword(violations: &[SchemaViolation], keyword: &str) -> bool {
    violations
        .iter()
        .any(|v| v.pointer.is_empty() && v.keyword == keyword)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::judge::listing;
    use serde_json::json;

    #[test]
    fn long_enums_are_compared_in_linear_time_and_shown_in_part() {
        const N: usize = 20_000;
        let names = |n: usize| (0..n).map(|i| Value::from(format!("v{i}")));
        let (old, new) = (listing(names(N)), listing(names(N).chain([json!("extra")])));
        let started = std::time::Instant::now();
        let widened = findings(
            &Node::root(&new, String::new()),
            &Node::root(&old, String::new()),
            "inputs.name",
        );
        let same = findings(
            &Node::root(&old, String::new()),
            &Node::root(&old, String::new()),
            "inputs.name",
        );
        // Comparing each value with each other one (4·10^8 comparisons)
        // takes tens of seconds in a debug build; a set, milliseconds.
        let took = started.elapsed();
        assert!(took.as_secs() < 5, "{took:?}");
        assert!(same.is_empty());
        let [f] = widened.as_slice() else {
            panic!("{widened:?}")
        };
        assert_eq!(f.aspect, Aspect::Enum);
        assert_eq!(f.witness, Some(json!("extra")));
        assert_eq!(f.lost.as_deref(), Some("`\"extra\"`"));
        assert_eq!(
            f.b_says,
            "`enum: [\"v0\", \"v1\", \"v2\", \"v3\", \"v4\", … and 19995 more]`"
        );
        // Many values left out: the first few, and how many more.
        let fewer = listing(names(N - 100));
        let narrowed = findings(
            &Node::root(&old, String::new()),
            &Node::root(&fewer, String::new()),
            "inputs.name",
        );
        assert_eq!(
            narrowed[0].lost.as_deref(),
            Some(
                "`\"v19900\"`, `\"v19901\"`, `\"v19902\"`, `\"v19903\"`, `\"v19904\"` … and 95 more"
            )
        );
    }
}
