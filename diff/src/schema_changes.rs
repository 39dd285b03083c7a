//! Schema findings as changes: the rule of each finding of the inclusion
//! walk (`crate::schema`) for its readers and direction, its message, and
//! `title`/`description` edits inside a schema. Shared by the `inputs`,
//! `output` and `extensions` rule families.

use crate::change::Change;
use crate::pair::Pair;
use crate::rules::Rule;
use crate::schema::{Aspect, Finding, push};
use crate::text::{edit, json_text, place_child};
use templiqx_contracts::Schema;

/// Which readers a schema has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Readers {
    /// Inputs and context: callers write them.
    Callers,
    /// The output: consumers read it.
    Consumers,
}

/// Changes from the findings of `old ⊆ new` (`narrowed`) and `new ⊆
/// old` (`widened`); of two presence findings about one property, the
/// more severe is kept.
pub(crate) fn changes(
    pair: &Pair<'_>,
    readers: Readers,
    narrowed: Vec<Finding>,
    widened: Vec<Finding>,
) -> Vec<Change> {
    let mut changes: Vec<(Option<String>, Change)> = Vec::new();
    let all = narrowed
        .into_iter()
        .map(|f| (f, true))
        .chain(widened.into_iter().map(|f| (f, false)));
    for (f, is_narrowed) in all {
        let rule = rule_for(readers, f.aspect, is_narrowed, f.field);
        let (old_at, new_at) = if is_narrowed {
            (&f.a_at, &f.b_at)
        } else {
            (&f.b_at, &f.a_at)
        };
        let mut c = pair.change(
            rule,
            describe(rule, &f, is_narrowed),
            Some(old_at),
            Some(new_at),
        );
        c.example = f.witness.clone();
        let key = match f.aspect {
            Aspect::Closed | Aspect::Required { .. } | Aspect::Declared => Some(f.place.clone()),
            _ => None,
        };
        if let Some(k) = &key
            && let Some((_, kept)) = changes.iter_mut().find(|(key, _)| key.as_ref() == Some(k))
        {
            if c.class > kept.class {
                *kept = c;
            }
            continue;
        }
        changes.push((key, c));
    }
    changes.into_iter().map(|(_, c)| c).collect()
}

/// `title` / `description` edits inside a schema, walking the nodes
/// both sides have.
#[allow(clippy::too_many_arguments)]
pub(crate) fn annotations(
    pair: &Pair<'_>,
    readers: Readers,
    old: &Schema,
    new: &Schema,
    old_at: &str,
    new_at: &str,
    place: &str,
    out: &mut Vec<Change>,
) {
    for keyword in ["title", "description"] {
        let (a, b) = match keyword {
            "title" => (old.title.as_deref(), new.title.as_deref()),
            _ => (old.description.as_deref(), new.description.as_deref()),
        };
        if a == b {
            continue;
        }
        let at = |side_at: &str, present: bool| {
            if present {
                push(side_at, keyword)
            } else {
                side_at.to_owned()
            }
        };
        let (rule, what) = match readers {
            Readers::Consumers => (
                Rule::OutputAnnotationChanged,
                "the model receives it with the output schema",
            ),
            Readers::Callers => (
                Rule::DocumentationChanged,
                "documentation of the generated type",
            ),
        };
        let message = format!("`{place}`: `{keyword}` {} ({what})", edit(a, b));
        out.push(pair.change(
            rule,
            message,
            Some(&at(old_at, a.is_some())),
            Some(&at(new_at, b.is_some())),
        ));
    }
    for (name, a) in old.properties.iter() {
        if let Some(b) = new.property(name) {
            let (oa, na) = (
                push(&push(old_at, "properties"), name),
                push(&push(new_at, "properties"), name),
            );
            annotations(
                pair,
                readers,
                a,
                b,
                &oa,
                &na,
                &place_child(place, name),
                out,
            );
        }
    }
    if let (Some(a), Some(b)) = (&old.items, &new.items) {
        let (oa, na) = (push(old_at, "items"), push(new_at, "items"));
        annotations(pair, readers, a, b, &oa, &na, &format!("{place}[]"), out);
    }
}

/// The rule of a schema finding, for its readers and direction (`narrowed`:
/// the old side accepts what the new refuses); `field` for the presence of
/// a root scope's field.
fn rule_for(readers: Readers, aspect: Aspect, narrowed: bool, field: bool) -> Rule {
    use Rule::*;
    let callers = readers == Readers::Callers;
    match (aspect, narrowed) {
        (Aspect::Undecided, _) => {
            if callers {
                InputSchemaUndecided
            } else {
                OutputSchemaUndecided
            }
        }
        (Aspect::Closed, true) if field => InputFieldRemoved,
        (Aspect::Closed, false) if field => InputFieldAdded,
        (Aspect::Required { declared: true }, true) if field => InputFieldMadeRequired,
        (Aspect::Required { declared: false }, true) if field => InputFieldAddedRequired,
        (Aspect::Required { .. }, false) if field => InputFieldMadeOptional,
        _ => {
            let (input, output) = match (aspect, narrowed) {
                (Aspect::Type, true) => (InputTypeNarrowed, OutputTypeNarrowed),
                (Aspect::Type, false) => (InputTypeWidened, OutputTypeWidened),
                (Aspect::Enum, true) => (InputEnumNarrowed, OutputEnumNarrowed),
                (Aspect::Enum, false) => (InputEnumWidened, OutputEnumWidened),
                (Aspect::Range, true) => (InputRangeNarrowed, OutputRangeNarrowed),
                (Aspect::Range, false) => (InputRangeWidened, OutputRangeWidened),
                (Aspect::Length, true) => (InputLengthNarrowed, OutputLengthNarrowed),
                (Aspect::Length, false) => (InputLengthWidened, OutputLengthWidened),
                (Aspect::Format, true) => (InputFormatNarrowed, OutputFormatNarrowed),
                (Aspect::Format, false) => (InputFormatWidened, OutputFormatWidened),
                (Aspect::ItemCount, true) => (InputItemCountNarrowed, OutputItemCountNarrowed),
                (Aspect::ItemCount, false) => (InputItemCountWidened, OutputItemCountWidened),
                (Aspect::Closed, true) => (InputPropertyRemoved, OutputPropertyRemoved),
                (Aspect::Closed, false) => (InputPropertyAdded, OutputPropertyAdded),
                (Aspect::Required { declared: true }, true) => {
                    (InputPropertyMadeRequired, OutputPropertyMadeRequired)
                }
                (Aspect::Required { declared: false }, true) => {
                    (InputPropertyAddedRequired, OutputPropertyAddedRequired)
                }
                (Aspect::Required { .. }, false) => {
                    (InputPropertyMadeOptional, OutputPropertyMadeOptional)
                }
                (Aspect::Declared, true) => (InputPropertyDeclared, OutputPropertyDeclared),
                (Aspect::Declared, false) => (InputPropertyUndeclared, OutputPropertyUndeclared),
                (Aspect::Additional, true) => (
                    InputAdditionalPropertiesClosed,
                    OutputAdditionalPropertiesClosed,
                ),
                (Aspect::Additional, false) => (
                    InputAdditionalPropertiesOpened,
                    OutputAdditionalPropertiesOpened,
                ),
                (Aspect::Undecided, _) => (InputSchemaUndecided, OutputSchemaUndecided),
            };
            if callers { input } else { output }
        }
    }
}

/// The message of a schema change.
fn describe(rule: Rule, f: &Finding, narrowed: bool) -> String {
    use Rule::*;
    let place = &f.place;
    let (old_says, new_says) = if narrowed {
        (&f.a_says, &f.b_says)
    } else {
        (&f.b_says, &f.a_says)
    };
    // In the widened direction the finding's `a` is the new side.
    let declared_in_new = matches!(f.aspect, Aspect::Required { declared: true });
    let mut m = match rule {
        InputFieldRemoved => format!("`{place}` is no longer declared"),
        InputFieldAddedRequired | InputPropertyAddedRequired | OutputPropertyAddedRequired => {
            format!("`{place}` is new and required")
        }
        InputFieldMadeRequired | InputPropertyMadeRequired | OutputPropertyMadeRequired => {
            format!("`{place}` is now required")
        }
        InputFieldAdded => format!("`{place}` is new (optional)"),
        InputFieldMadeOptional | InputPropertyMadeOptional | OutputPropertyMadeOptional => {
            if declared_in_new {
                format!("`{place}` is no longer required")
            } else {
                format!("`{place}` was required and is no longer declared")
            }
        }
        InputPropertyRemoved | OutputPropertyRemoved => {
            format!("`{place}` is no longer declared, and the object refuses undeclared properties")
        }
        InputPropertyAdded | OutputPropertyAdded => {
            format!("`{place}` is newly declared on an object that refuses undeclared properties")
        }
        InputPropertyDeclared | OutputPropertyDeclared => {
            format!("`{place}` is now declared on an open object, so its values are constrained")
        }
        InputPropertyUndeclared | OutputPropertyUndeclared => {
            format!(
                "`{place}` is no longer declared on an open object, so any value is accepted under it"
            )
        }
        InputAdditionalPropertiesClosed | OutputAdditionalPropertiesClosed => {
            format!("`{place}` no longer accepts undeclared properties ({old_says} → {new_says})")
        }
        InputAdditionalPropertiesOpened | OutputAdditionalPropertiesOpened => {
            format!("`{place}` now accepts undeclared properties ({old_says} → {new_says})")
        }
        InputSchemaUndecided | OutputSchemaUndecided => {
            let question = if narrowed {
                "the new schema accepts every value the old one did"
            } else {
                "the old schema accepted every value the new one does"
            };
            let why = f.undecided.as_deref().unwrap_or("");
            format!("`{place}`: could not decide whether {question}: {why}")
        }
        _ => {
            let word = match f.aspect {
                Aspect::Type => "the type",
                Aspect::Enum => "the allowed values",
                Aspect::Range => "the numeric bounds",
                Aspect::Length => "the length bounds",
                Aspect::Format => "the format",
                Aspect::ItemCount => "the item counts",
                _ => "the schema",
            };
            let how = if narrowed { "narrowed" } else { "widened" };
            let mut m = format!("`{place}`: {word} {how}: {old_says} → {new_says}");
            if let Some(lost) = &f.lost {
                let now = if narrowed {
                    "no longer accepts"
                } else {
                    "now accepts"
                };
                m.push_str(&format!("; {now} {lost}"));
                return m;
            }
            m
        }
    };
    if let Some(w) = &f.witness
        && f.undecided.is_none()
    {
        if narrowed {
            m.push_str(&format!(
                "; `{}` was accepted and is now refused",
                json_text(w)
            ));
        } else {
            m.push_str(&format!(
                "; `{}` is now accepted and was refused",
                json_text(w)
            ));
        }
    }
    m
}
