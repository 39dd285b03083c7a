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

use crate::text::{SHOWN_VALUES, json_text, place_child, some_values};
use serde_json::Value;
use std::cmp::Ordering;
use std::collections::HashSet;
use templiqx_contracts::canonical;
use templiqx_contracts::validate::{SchemaViolation, validate};
use templiqx_contracts::value::{IrValue, ValueRef};
use templiqx_contracts::{AsValue, Format, JsonType, Number, Schema, TypeSet};

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

/// What about a schema a finding is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Aspect {
    /// `type` (null included).
    Type,
    /// `enum` / `const`.
    Enum,
    /// `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`.
    Range,
    /// `minLength`, `maxLength`.
    Length,
    /// `format`.
    Format,
    /// `minItems`, `maxItems`.
    ItemCount,
    /// A property `a` declares is refused by `b` (closed, undeclared).
    Closed,
    /// `b` requires a property `a` does not; `declared` when `a` declares it.
    Required { declared: bool },
    /// `a` is open and accepts anything under a name `b` declares with a
    /// constraint.
    Declared,
    /// `a` accepts undeclared properties, `b` does not.
    Additional,
    /// Not decided.
    Undecided,
}

/// One way in which `a` accepts a value `b` refuses (or may).
#[derive(Clone, Debug)]
pub(crate) struct Finding {
    pub(crate) aspect: Aspect,
    /// Where on `a`'s side (a JSON pointer in its file).
    pub(crate) a_at: String,
    /// Where on `b`'s side.
    pub(crate) b_at: String,
    /// The value's place (`inputs.customer.name`, `output.items[]`).
    pub(crate) place: String,
    /// What `a` says about the aspect (`` `maximum: 10` ``).
    pub(crate) a_says: String,
    /// What `b` says about it.
    pub(crate) b_says: String,
    /// A value `a` accepts and `b` refuses.
    pub(crate) witness: Option<Value>,
    /// Why it was not decided (for [`Aspect::Undecided`]).
    pub(crate) undecided: Option<String>,
    /// For [`Aspect::Type`]: the kinds of values `a` accepts and `b`
    /// refuses (`null`, `integers`).
    pub(crate) lost: Option<String>,
    /// Whether the finding is about a field of a root scope (`inputs`,
    /// `context`) itself, not something below one.
    pub(crate) field: bool,
}

impl Finding {
    /// A neutral sentence: `a` accepts, `b` refuses.
    fn sentence(&self) -> String {
        if let Some(why) = &self.undecided {
            return format!("{}: {why}", self.place);
        }
        let mut s = format!("{}: {} → {}", self.place, self.a_says, self.b_says);
        if let Some(w) = &self.witness {
            s.push_str(&format!(" (`{}` is accepted, then refused)", json_text(w)));
        }
        s
    }
}

/// The schema at one place of one side, and where it is written.
#[derive(Clone, Debug)]
pub(crate) struct Node<'s> {
    pub(crate) schema: &'s Schema,
    /// The pointer of the schema, or of its nearest written ancestor when
    /// the schema is implied (`items` left out is `{}`).
    pub(crate) ptr: String,
    /// Whether the schema is written at `ptr`.
    pub(crate) written: bool,
}

/// `{}`, for implied schemas.
static ANY: Schema = Schema::ANY;

impl<'s> Node<'s> {
    pub(crate) fn root(schema: &'s Schema, ptr: String) -> Node<'s> {
        Node {
            schema,
            ptr,
            written: true,
        }
    }

    fn child(&self, schema: Option<&'s Schema>, token: &str) -> Node<'s> {
        match schema {
            Some(schema) if self.written => Node {
                schema,
                ptr: push(&self.ptr, token),
                written: true,
            },
            _ => Node {
                schema: schema.unwrap_or(&ANY),
                ptr: self.ptr.clone(),
                written: false,
            },
        }
    }

    /// The pointer of `keyword` when this side writes it, else of the node.
    fn at(&self, keyword: &str) -> String {
        if self.written && has(self.schema, keyword) {
            push(&self.ptr, keyword)
        } else {
            self.ptr.clone()
        }
    }

    /// The first of `keywords` this side writes, else the node.
    fn at_any(&self, keywords: &[&str]) -> String {
        keywords
            .iter()
            .find(|k| self.written && has(self.schema, k))
            .map_or_else(|| self.ptr.clone(), |k| push(&self.ptr, k))
    }
}

/// `ptr` with one more RFC 6901 token.
pub(crate) fn push(ptr: &str, token: &str) -> String {
    templiqx_contracts::diagnostic::pointer_push(ptr, token)
}

/// Whether `s` writes `keyword`.
fn has(s: &Schema, keyword: &str) -> bool {
    match keyword {
        "type" => !s.types.is_any(),
        "enum" => s.enum_values.is_some(),
        "const" => s.const_value.is_some(),
        "minimum" => s.minimum.is_some(),
        "maximum" => s.maximum.is_some(),
        "exclusiveMinimum" => s.exclusive_minimum.is_some(),
        "exclusiveMaximum" => s.exclusive_maximum.is_some(),
        "minLength" => s.min_length.is_some(),
        "maxLength" => s.max_length.is_some(),
        "format" => s.format.is_some(),
        "minItems" => s.min_items.is_some(),
        "maxItems" => s.max_items.is_some(),
        "items" => s.items.is_some(),
        "properties" => !s.properties.is_empty(),
        "required" => !s.required.is_empty(),
        "additionalProperties" => !s.additional_properties,
        "title" => s.title.is_some(),
        "description" => s.description.is_some(),
        _ => false,
    }
}

/// How deep the comparison follows nested schemas; compiled schemas nest
/// at most 64 levels (`MAX_SCHEMA_DEPTH`), so this is never reached by a
/// schema that compiled.
const MAX_DEPTH: usize = 80;

/// How many values of an `a` without `enum` are listed to compare them with
/// a `b` that has one.
const LIST_CAP: usize = 256;

/// Every finding of `a ⊆ b` at `place`: none means proven.
pub(crate) fn findings(a: &Node<'_>, b: &Node<'_>, place: &str) -> Vec<Finding> {
    let mut cx = Cx {
        out: Vec::new(),
        depth: 0,
    };
    cx.include(a, b, place);
    cx.out
}

/// One property list of an object, or of a root scope (`inputs`,
/// `context`), with where each part is written.
#[derive(Clone, Debug)]
pub(crate) struct Shape<'s> {
    /// `(name, schema node, where the property is declared)`.
    pub(crate) properties: Vec<(String, Node<'s>, String)>,
    /// Required names, each with where it is said.
    pub(crate) required: Vec<(String, String)>,
    /// `additionalProperties` (scopes are closed).
    pub(crate) additional: bool,
    /// The object's own pointer.
    pub(crate) ptr: String,
    /// Where `additionalProperties` is said (or the object).
    pub(crate) additional_at: String,
}

impl<'s> Shape<'s> {
    /// The shape of an object schema.
    fn of(node: &Node<'s>) -> Shape<'s> {
        let s = node.schema;
        let properties = s
            .properties
            .iter()
            .map(|(name, schema)| {
                let child = node.child(Some(schema), "properties");
                let child = Node {
                    ptr: if child.written {
                        push(&child.ptr, name)
                    } else {
                        child.ptr
                    },
                    ..child
                };
                let declared = child.ptr.clone();
                (name.to_string(), child, declared)
            })
            .collect();
        let required = s
            .required
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let at = if node.written {
                    push(&push(&node.ptr, "required"), &i.to_string())
                } else {
                    node.ptr.clone()
                };
                (name.to_string(), at)
            })
            .collect();
        Shape {
            properties,
            required,
            additional: s.additional_properties,
            ptr: node.ptr.clone(),
            additional_at: node.at("additionalProperties"),
        }
    }

    fn property(&self, name: &str) -> Option<&(String, Node<'s>, String)> {
        self.properties.iter().find(|(n, _, _)| n == name)
    }

    fn requires(&self, name: &str) -> bool {
        self.required.iter().any(|(n, _)| n == name)
    }

    fn says_required(&self) -> String {
        let names: Vec<&str> = self.required.iter().map(|(n, _)| n.as_str()).collect();
        if names.is_empty() {
            "nothing required".to_owned()
        } else {
            format!("`required: [{}]`", names.join(", "))
        }
    }

    fn says_additional(&self) -> String {
        format!("`additionalProperties: {}`", self.additional)
    }
}

struct Cx {
    out: Vec<Finding>,
    depth: usize,
}

/// The JSON kinds a value can have, with integers apart from other numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Null,
    Boolean,
    Integer,
    Fraction,
    String,
    Array,
    Object,
}

const KINDS: [Kind; 7] = [
    Kind::Null,
    Kind::Boolean,
    Kind::Integer,
    Kind::Fraction,
    Kind::String,
    Kind::Array,
    Kind::Object,
];

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Null => "null",
            Kind::Boolean => "booleans",
            Kind::Integer => "integers",
            Kind::Fraction => "non-integer numbers",
            Kind::String => "strings",
            Kind::Array => "arrays",
            Kind::Object => "objects",
        }
    }
}

/// Whether the type set admits values of `kind`.
fn admits(types: TypeSet, kind: Kind) -> bool {
    match kind {
        Kind::Null => types.contains(JsonType::Null),
        Kind::Boolean => types.contains(JsonType::Boolean),
        Kind::Integer => types.contains(JsonType::Integer) || types.contains(JsonType::Number),
        Kind::Fraction => types.contains(JsonType::Number),
        Kind::String => types.contains(JsonType::String),
        Kind::Array => types.contains(JsonType::Array),
        Kind::Object => types.contains(JsonType::Object),
    }
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
    pub(crate) fn objects(
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

/// The aspect a validator keyword belongs to (for a violation at `pointer`
/// below the value, the nearest structural aspect).
fn aspect_of(keyword: &str, pointer: &str) -> Aspect {
    if !pointer.is_empty() {
        return match keyword {
            "additionalProperties" => Aspect::Closed,
            _ => Aspect::Declared,
        };
    }
    match keyword {
        "type" => Aspect::Type,
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" => Aspect::Range,
        "minLength" | "maxLength" => Aspect::Length,
        "format" => Aspect::Format,
        "minItems" | "maxItems" => Aspect::ItemCount,
        "required" => Aspect::Required { declared: true },
        "additionalProperties" => Aspect::Additional,
        _ => Aspect::Enum,
    }
}

/// The keywords of an aspect, in the order their pointers are preferred.
fn keywords(aspect: Aspect) -> &'static [&'static str] {
    match aspect {
        Aspect::Type => &["type"],
        Aspect::Enum => &["enum", "const"],
        Aspect::Range => &["minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"],
        Aspect::Length => &["minLength", "maxLength"],
        Aspect::Format => &["format"],
        Aspect::ItemCount => &["minItems", "maxItems"],
        Aspect::Required { .. } => &["required"],
        Aspect::Closed | Aspect::Declared => &["properties"],
        Aspect::Additional => &["additionalProperties"],
        Aspect::Undecided => &[],
    }
}

/// What `s` says about an aspect, as a short code span.
pub(crate) fn says(aspect: Aspect, s: &Schema) -> String {
    let kv = |k: &str, v: String| format!("{k}: {v}");
    let num = |n: Number<'_>| {
        n.to_json()
            .map_or_else(|| "?".to_owned(), |n| n.to_string())
    };
    let join = |parts: Vec<String>, none: &str| {
        if parts.is_empty() {
            none.to_owned()
        } else {
            format!("`{}`", parts.join(", "))
        }
    };
    match aspect {
        Aspect::Type => {
            // As contracts write it: the type, then `null`.
            let names: Vec<&str> = s
                .types
                .without_null()
                .iter()
                .chain(s.types.iter().filter(|t| *t == JsonType::Null))
                .map(JsonType::as_str)
                .collect();
            match names.as_slice() {
                [] => "any type".to_owned(),
                [one] => format!("`type: {one}`"),
                many => format!("`type: [{}]`", many.join(", ")),
            }
        }
        Aspect::Enum => says_enum(s),
        Aspect::Range => join(
            [
                ("minimum", s.minimum),
                ("exclusiveMinimum", s.exclusive_minimum),
                ("maximum", s.maximum),
                ("exclusiveMaximum", s.exclusive_maximum),
            ]
            .into_iter()
            .filter_map(|(k, v)| v.map(|v| kv(k, num(v))))
            .collect(),
            "no numeric bounds",
        ),
        Aspect::Length => join(
            [("minLength", s.min_length), ("maxLength", s.max_length)]
                .into_iter()
                .filter_map(|(k, v)| v.map(|v| kv(k, v.to_string())))
                .collect(),
            "no length bounds",
        ),
        Aspect::Format => s.format.map_or_else(
            || "no `format`".to_owned(),
            |f| format!("`format: {}`", f.as_str()),
        ),
        Aspect::ItemCount => join(
            [("minItems", s.min_items), ("maxItems", s.max_items)]
                .into_iter()
                .filter_map(|(k, v)| v.map(|v| kv(k, v.to_string())))
                .collect(),
            "no item counts",
        ),
        Aspect::Required { .. } => {
            let names: Vec<&str> = s.required.iter().map(|r| &**r).collect();
            format!("`required: [{}]`", names.join(", "))
        }
        Aspect::Closed | Aspect::Declared | Aspect::Additional => {
            format!("`additionalProperties: {}`", s.additional_properties)
        }
        Aspect::Undecided => String::new(),
    }
}

/// `enum: [...]` or `const: ...` as written in a message; an `enum` of
/// more than [`SHOWN_VALUES`] values shows the first of them and how many
/// more there are.
fn says_enum(s: &Schema) -> String {
    let text = |v: &IrValue| json_text(&v.to_json());
    match (&s.enum_values, &s.const_value) {
        (_, Some(c)) => format!("`const: {}`", text(c)),
        (Some(values), None) => {
            let mut items: Vec<String> = values.iter().take(SHOWN_VALUES).map(text).collect();
            if values.len() > SHOWN_VALUES {
                items.push(format!("… and {} more", values.len() - SHOWN_VALUES));
            }
            format!("`enum: [{}]`", items.join(", "))
        }
        (None, None) => "no `enum`".to_owned(),
    }
}

/// Whether `s` accepts every value (it constrains nothing: `{}`, or only
/// annotations, or open objects whose properties accept everything).
pub(crate) fn accepts_all(s: &Schema) -> bool {
    s.types.is_any()
        && s.enum_values.is_none()
        && s.const_value.is_none()
        && s.min_length.is_none()
        && s.max_length.is_none()
        && s.minimum.is_none()
        && s.maximum.is_none()
        && s.exclusive_minimum.is_none()
        && s.exclusive_maximum.is_none()
        && s.min_items.is_none()
        && s.max_items.is_none()
        && s.format.is_none()
        && s.required.is_empty()
        && s.additional_properties
        && s.items.as_deref().is_none_or(accepts_all)
        && s.properties.iter().all(|(_, p)| accepts_all(p))
}

/// Whether `s` lists its values (`enum`, `const`).
fn lists(s: &Schema) -> bool {
    s.enum_values.is_some() || s.const_value.is_some()
}

/// The values `s` lists (`enum`, `const`, both), those `s` accepts.
///
/// A listed value is in the list, so whether `s` accepts it is decided by
/// the rest of the schema: validating against `s` without its `enum` keeps
/// this linear in the length of the list.
fn listed(s: &Schema) -> Option<Vec<Value>> {
    let values: Vec<&IrValue> = match (&s.enum_values, &s.const_value) {
        (None, None) => return None,
        (Some(e), _) => e.iter().collect(),
        (None, Some(c)) => vec![c],
    };
    let rest = Schema {
        enum_values: None,
        ..s.clone()
    };
    Some(
        values
            .into_iter()
            .filter(|v| validate(&rest, v.as_value()).is_ok())
            .map(IrValue::to_json)
            .collect(),
    )
}

/// Validation against one schema, with a long `enum` looked up in a set
/// of [`value_key`]s instead of scanned, so judging each of `n` values
/// against an `enum` of `m` costs `O(n + m)`, not `O(n·m)`. Its answers
/// are the validator's.
struct Judge<'s> {
    schema: &'s Schema,
    /// The schema without its `enum`, and the keys of the `enum`'s values.
    listed: Option<(Schema, HashSet<String>)>,
}

/// Below this many values an `enum` is scanned: a set is not worth it.
const SET_FROM: usize = 16;

impl<'s> Judge<'s> {
    fn new(schema: &'s Schema) -> Judge<'s> {
        let listed = schema
            .enum_values
            .as_ref()
            .filter(|values| values.len() >= SET_FROM)
            .map(|values| {
                let rest = Schema {
                    enum_values: None,
                    ..schema.clone()
                };
                let keys = values.iter().map(|v| value_key(v.as_value())).collect();
                (rest, keys)
            });
        Judge { schema, listed }
    }

    /// Whether the schema accepts `v` (`validate(schema, v).is_ok()`).
    fn accepts(&self, v: &Value) -> bool {
        match &self.listed {
            Some((rest, keys)) => {
                keys.contains(&value_key(v.as_value())) && validate(rest, v.as_value()).is_ok()
            }
            None => validate(self.schema, v.as_value()).is_ok(),
        }
    }

    /// Why the schema refuses `v`: the validator's violations (the `enum`
    /// one with a shorter message when the list is a set); empty when it
    /// accepts `v`.
    fn violations(&self, v: &Value) -> Vec<SchemaViolation> {
        match &self.listed {
            Some((rest, keys)) => {
                let mut out = Vec::new();
                if !keys.contains(&value_key(v.as_value())) {
                    out.push(SchemaViolation {
                        pointer: String::new(),
                        keyword: "enum",
                        message: format!("{} is not one of the listed values", json_text(v)),
                    });
                }
                out.extend(validate(rest, v.as_value()).err().unwrap_or_default());
                out
            }
            None => validate(self.schema, v.as_value())
                .err()
                .unwrap_or_default(),
        }
    }
}

/// The identity of a JSON value for set membership: its canonical JSON
/// (`templiqx_contracts::canonical`: members sorted, RFC 8785 strings)
/// with every integral number written with its exact digits, so two
/// values have the same key exactly when they are equal as JSON
/// (`ValueRef::json_eq`, where `1 == 1.0` and the double `2^60` equals the
/// integer `1152921504606846976`). RFC 8785 writes large doubles through
/// their shortest round-trip form, which can name another integer.
fn value_key(v: ValueRef<'_>) -> String {
    fn write(v: ValueRef<'_>, out: &mut String) {
        use std::fmt::Write as _;
        match v {
            ValueRef::Number(Number::F64(f)) if f.is_finite() && f.fract() == 0.0 => {
                // `-0.0` is `0`; `{:.0}` writes a double's exact value.
                let _ = write!(out, "{:.0}", if f == 0.0 { 0.0 } else { f });
            }
            ValueRef::Array(items) => {
                out.push('[');
                for i in 0..items.len() {
                    if i > 0 {
                        out.push(',');
                    }
                    write(items.get(i).unwrap_or(ValueRef::Null), out);
                }
                out.push(']');
            }
            ValueRef::Object(members) => {
                let mut entries: Vec<(&str, ValueRef<'_>)> = members.entries().collect();
                entries.sort_by(|(a, _), (b, _)| canonical::utf16_cmp(a, b));
                out.push('{');
                for (i, (k, v)) in entries.into_iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    let _ = canonical::write_string(k, out);
                    out.push(':');
                    write(v, out);
                }
                out.push('}');
            }
            scalar => {
                let _ = canonical::write_canonical(scalar, out);
            }
        }
    }
    let mut out = String::new();
    write(v, &mut out);
    out
}

/// The numeric bounds of a schema as an interval with exact endpoints.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Interval {
    /// `(bound, inclusive)`.
    lo: Option<(Number<'static>, bool)>,
    hi: Option<(Number<'static>, bool)>,
}

/// Integer bounds beyond ±2^100 are not normalised.
const HUGE: f64 = 1_267_650_600_228_229_401_496_703_205_376.0;

/// An end of an integer range.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum IntEnd {
    NegInf,
    Int(i128),
    PosInf,
}

fn cmp(a: Number<'_>, b: Number<'_>) -> Ordering {
    a.cmp_exact(b).unwrap_or(Ordering::Equal)
}

impl Interval {
    fn of(s: &Schema) -> Interval {
        let tighter = |incl: Option<Number<'static>>,
                       excl: Option<Number<'static>>,
                       higher_is_tighter: bool| {
            match (incl, excl) {
                (None, None) => None,
                (Some(m), None) => Some((m, true)),
                (None, Some(e)) => Some((e, false)),
                (Some(m), Some(e)) => {
                    let o = cmp(e, m);
                    let excl_wins = if higher_is_tighter {
                        o != Ordering::Less
                    } else {
                        o != Ordering::Greater
                    };
                    Some(if excl_wins { (e, false) } else { (m, true) })
                }
            }
        };
        Interval {
            lo: tighter(s.minimum, s.exclusive_minimum, true),
            hi: tighter(s.maximum, s.exclusive_maximum, false),
        }
    }

    /// The smallest and largest integers inside; `Err` for a bound beyond
    /// ±2^100.
    fn integers(&self) -> Result<(IntEnd, IntEnd), ()> {
        let lo = match self.lo {
            None => IntEnd::NegInf,
            Some((n, incl)) => IntEnd::Int(int_above(n, incl)?),
        };
        let hi = match self.hi {
            None => IntEnd::PosInf,
            Some((n, incl)) => IntEnd::Int(int_below(n, incl)?),
        };
        Ok((lo, hi))
    }

    /// Whether it holds more than one point, or one that is not an integer:
    /// whether it holds non-integer numbers.
    fn has_fractions(&self) -> bool {
        match (self.lo, self.hi) {
            (Some((lo, _)), Some((hi, _))) => match cmp(lo, hi) {
                Ordering::Less => true,
                Ordering::Equal => !lo.is_integer(),
                Ordering::Greater => false,
            },
            _ => true,
        }
    }

    /// Whether every non-integer number inside `self` is inside `b`.
    fn fractions_within(&self, b: &Interval) -> bool {
        if !self.has_fractions() {
            return true;
        }
        if let (Some((lo, _)), Some((hi, _))) = (self.lo, self.hi)
            && cmp(lo, hi) == Ordering::Equal
        {
            return b.contains(lo);
        }
        // A proper interval: its infimum (supremum) is approached by
        // fractions, and is one itself when included and not an integer.
        let lower_ok = match (b.lo, self.lo) {
            (None, _) => true,
            (Some(_), None) => false,
            (Some((bv, bincl)), Some((av, aincl))) => match cmp(av, bv) {
                Ordering::Greater => true,
                Ordering::Less => false,
                Ordering::Equal => bincl || !aincl || av.is_integer(),
            },
        };
        let upper_ok = match (b.hi, self.hi) {
            (None, _) => true,
            (Some(_), None) => false,
            (Some((bv, bincl)), Some((av, aincl))) => match cmp(av, bv) {
                Ordering::Less => true,
                Ordering::Greater => false,
                Ordering::Equal => bincl || !aincl || av.is_integer(),
            },
        };
        lower_ok && upper_ok
    }

    fn contains(&self, n: Number<'_>) -> bool {
        let lo = self.lo.is_none_or(|(b, incl)| match cmp(n, b) {
            Ordering::Greater => true,
            Ordering::Equal => incl,
            Ordering::Less => false,
        });
        let hi = self.hi.is_none_or(|(b, incl)| match cmp(n, b) {
            Ordering::Less => true,
            Ordering::Equal => incl,
            Ordering::Greater => false,
        });
        lo && hi
    }
}

/// The smallest integer ≥ `n` (`> n` when not `incl`).
fn int_above(n: Number<'_>, incl: bool) -> Result<i128, ()> {
    let step = i128::from(!incl);
    match n {
        Number::I64(i) => Ok(i128::from(i) + step),
        Number::U64(u) => Ok(i128::from(u) + step),
        Number::F64(f) if f.is_finite() && f.abs() < HUGE => {
            let c = f.ceil();
            // Exact: |c| < 2^100 fits an i128.
            let c = c as i128;
            Ok(if f.fract() == 0.0 { c + step } else { c })
        }
        _ => Err(()),
    }
}

/// The largest integer ≤ `n` (`< n` when not `incl`).
fn int_below(n: Number<'_>, incl: bool) -> Result<i128, ()> {
    let step = i128::from(!incl);
    match n {
        Number::I64(i) => Ok(i128::from(i) - step),
        Number::U64(u) => Ok(i128::from(u) - step),
        Number::F64(f) if f.is_finite() && f.abs() < HUGE => {
            let c = f.floor() as i128;
            Ok(if f.fract() == 0.0 { c - step } else { c })
        }
        _ => Err(()),
    }
}

/// The least and greatest length of the strings `s` accepts (`None`:
/// unbounded), counting what its `format` allows: a `date` has 10
/// characters, a `date-time` 20 or at least 22. `None` when there are none.
fn string_lengths(s: &Schema) -> Option<(u64, Option<u64>)> {
    let lo = s.min_length.unwrap_or(0);
    let hi = s.max_length;
    let within = |n: u64| n >= lo && hi.is_none_or(|h| n <= h);
    match s.format {
        None => (hi.is_none_or(|h| lo <= h)).then_some((lo, hi)),
        Some(Format::Date) => within(10).then_some((10, Some(10))),
        Some(Format::DateTime) => {
            let short = within(20);
            let long_lo = lo.max(22);
            let long = hi.is_none_or(|h| long_lo <= h);
            match (short, long) {
                (true, true) => Some((20, hi)),
                (true, false) => Some((20, Some(20))),
                (false, true) => Some((long_lo, hi)),
                (false, false) => None,
            }
        }
    }
}

/// Whether `s` accepts some value of `kind` (its other keywords allowing).
fn part_nonempty(s: &Schema, kind: Kind) -> bool {
    if !admits(s.types, kind) {
        return false;
    }
    match kind {
        Kind::Null | Kind::Boolean => true,
        Kind::Integer => match Interval::of(s).integers() {
            Ok((lo, hi)) => lo <= hi,
            Err(()) => true,
        },
        Kind::Fraction => Interval::of(s).has_fractions(),
        Kind::String => string_lengths(s).is_some(),
        Kind::Array => {
            let lo = s.min_items.unwrap_or(0);
            s.max_items.is_none_or(|h| lo <= h)
                && (lo == 0 || s.items.as_deref().is_none_or(|i| nonempty(i, 1)))
        }
        Kind::Object => s.required.iter().all(|r| match s.property(r) {
            Some(p) => nonempty(p, 1),
            None => s.additional_properties,
        }),
    }
}

/// Whether `s` accepts any value at all.
fn nonempty(s: &Schema, depth: usize) -> bool {
    if depth > MAX_DEPTH {
        return true;
    }
    if let Some(values) = listed(s) {
        return !values.is_empty();
    }
    KINDS.into_iter().any(|k| match k {
        Kind::Array => {
            admits(s.types, k) && {
                let lo = s.min_items.unwrap_or(0);
                s.max_items.is_none_or(|h| lo <= h)
                    && (lo == 0 || s.items.as_deref().is_none_or(|i| nonempty(i, depth + 1)))
            }
        }
        Kind::Object => {
            admits(s.types, k)
                && s.required.iter().all(|r| match s.property(r) {
                    Some(p) => nonempty(p, depth + 1),
                    None => s.additional_properties,
                })
        }
        other => part_nonempty(s, other),
    })
}

/// Every value `s` accepts, when they are at most `cap` (and `s` has no
/// `enum`); `None` when there are more, or they cannot be listed cheaply.
fn finite_values(s: &Schema, cap: usize) -> Option<Vec<Value>> {
    let mut out = Vec::new();
    for kind in KINDS {
        if !part_nonempty(s, kind) {
            continue;
        }
        match kind {
            Kind::Null => out.push(Value::Null),
            Kind::Boolean => out.extend([Value::Bool(false), Value::Bool(true)]),
            Kind::Integer => {
                let (IntEnd::Int(lo), IntEnd::Int(hi)) = Interval::of(s).integers().ok()? else {
                    return None;
                };
                let count = usize::try_from(hi - lo + 1).ok()?;
                if count > cap {
                    return None;
                }
                for i in lo..=hi {
                    out.push(Value::from(i64::try_from(i).ok()?));
                }
            }
            Kind::Fraction => {
                let i = Interval::of(s);
                match (i.lo, i.hi) {
                    (Some((lo, _)), Some((hi, _))) if cmp(lo, hi) == Ordering::Equal => {
                        out.push(Value::Number(lo.to_json()?));
                    }
                    _ => return None,
                }
            }
            Kind::String if s.max_length == Some(0) => out.push(Value::String(String::new())),
            Kind::Array if s.max_items == Some(0) => out.push(Value::Array(Vec::new())),
            Kind::Object if !s.additional_properties && s.properties.is_empty() => {
                out.push(Value::Object(serde_json::Map::new()));
            }
            _ => return None,
        }
        if out.len() > cap {
            return None;
        }
    }
    Some(
        out.into_iter()
            .filter(|v| validate(s, v.as_value()).is_ok())
            .collect(),
    )
}

/// A value `a` accepts and `b` refuses whose violations satisfy `pred`
/// (falling back to any refused value), among the candidates
/// [`samples`] builds from both schemas' bounds.
pub(crate) fn witness(
    a: &Schema,
    b: &Schema,
    pred: impl Fn(&[SchemaViolation]) -> bool,
) -> Option<Value> {
    let (ja, jb) = (Judge::new(a), Judge::new(b));
    let mut fallback = None;
    for v in samples(a, Some(b), 0) {
        if !ja.accepts(&v) || jb.accepts(&v) {
            continue;
        }
        if pred(&jb.violations(&v)) {
            return Some(v);
        }
        fallback.get_or_insert(v);
    }
    fallback
}

/// A value `a` accepts that `b`'s list (`enum`/`const`) leaves out, found
/// by varying `a`'s candidates: more distinct values than `b` lists, when
/// `a` has that many.
fn distinct_witness(a: &Schema, b: &Schema) -> Option<Value> {
    let (ja, jb) = (Judge::new(a), Judge::new(b));
    samples(a, Some(b), 0)
        .into_iter()
        .filter(|v| ja.accepts(v))
        .flat_map(|v| variants(&v))
        .find(|v| ja.accepts(v) && !jb.accepts(v))
}

/// Values like `v` but distinct from it and from each other: a string with
/// its first character replaced, an integer and its successors.
fn variants(v: &Value) -> Vec<Value> {
    match v {
        Value::String(s) if !s.is_empty() => {
            let rest: String = s.chars().skip(1).collect();
            ('a'..='z')
                .chain('A'..='Z')
                .chain('0'..='9')
                .map(|c| Value::String(format!("{c}{rest}")))
                .collect()
        }
        Value::Number(n) => match n.as_i64() {
            Some(i) => (0..=LIST_CAP as i64)
                .filter_map(|k| i.checked_add(k))
                .flat_map(|i| [Value::from(i), Value::from(-i)])
                .collect(),
            None => n
                .as_f64()
                .map(|f| {
                    (1..=LIST_CAP)
                        .filter_map(|k| serde_json::Number::from_f64(f + k as f64 / 1024.0))
                        .map(Value::Number)
                        .collect()
                })
                .unwrap_or_default(),
        },
        _ => Vec::new(),
    }
}

/// How many candidates one schema node contributes.
const SAMPLE_CAP: usize = 96;

/// Candidate values for `s`: values of each kind it admits, at and around
/// its own bounds and those of `hint` (the schema a witness must fail), so
/// that when `s` accepts something `hint` refuses, one of them shows it.
/// Not all are valid under `s`; callers validate.
pub(crate) fn samples(s: &Schema, hint: Option<&Schema>, depth: usize) -> Vec<Value> {
    if let Some(values) = listed(s) {
        return values;
    }
    let hint = hint.unwrap_or(&ANY);
    let mut out = Vec::new();
    for kind in KINDS {
        if !admits(s.types, kind) {
            continue;
        }
        match kind {
            Kind::Null => out.push(Value::Null),
            Kind::Boolean => out.extend([Value::Bool(true), Value::Bool(false)]),
            Kind::Integer => out.extend(number_samples(s, hint, true)),
            Kind::Fraction => out.extend(number_samples(s, hint, false)),
            Kind::String => out.extend(string_samples(s, hint)),
            Kind::Array => out.extend(array_samples(s, hint, depth)),
            Kind::Object => out.extend(object_samples(s, hint, depth)),
        }
    }
    out.truncate(SAMPLE_CAP * 2);
    out
}

fn number_samples(s: &Schema, hint: &Schema, integers: bool) -> Vec<Value> {
    let mut points: Vec<f64> = vec![0.0, 1.0, -1.0, 0.5, -0.5];
    let mut exact: Vec<i128> = Vec::new();
    for schema in [s, hint] {
        for n in [
            schema.minimum,
            schema.maximum,
            schema.exclusive_minimum,
            schema.exclusive_maximum,
        ]
        .into_iter()
        .flatten()
        {
            match n {
                Number::I64(i) => {
                    exact.extend([i128::from(i) - 1, i128::from(i), i128::from(i) + 1])
                }
                Number::U64(u) => {
                    exact.extend([i128::from(u) - 1, i128::from(u), i128::from(u) + 1])
                }
                _ => {}
            }
            let f = n.as_f64();
            if f.is_finite() {
                points.extend([
                    f,
                    f - 1.0,
                    f + 1.0,
                    f - 0.5,
                    f + 0.5,
                    f.floor(),
                    f.ceil(),
                    f.next_up(),
                    f.next_down(),
                ]);
            }
        }
    }
    let mut sorted = points.clone();
    sorted.sort_by(f64::total_cmp);
    sorted.dedup();
    for pair in sorted.windows(2) {
        points.push(pair[0] / 2.0 + pair[1] / 2.0);
    }
    let mut out: Vec<Value> = Vec::new();
    for i in exact {
        if let Ok(i) = i64::try_from(i) {
            out.push(Value::from(i));
        } else if let Ok(u) = u64::try_from(i) {
            out.push(Value::from(u));
        }
    }
    for f in points {
        if !f.is_finite() {
            continue;
        }
        let integral = f.fract() == 0.0;
        if integral != integers {
            continue;
        }
        if integral && f.abs() < 9_007_199_254_740_992.0 {
            out.push(Value::from(f as i64));
        } else if let Some(n) = serde_json::Number::from_f64(f) {
            out.push(Value::Number(n));
        }
    }
    out.dedup();
    out.truncate(SAMPLE_CAP);
    out
}

fn string_samples(s: &Schema, hint: &Schema) -> Vec<Value> {
    let mut lengths: Vec<u64> = vec![0, 1, 10, 20, 22, 25];
    for schema in [s, hint] {
        for n in [schema.min_length, schema.max_length].into_iter().flatten() {
            lengths.extend([n.saturating_sub(1), n, n.saturating_add(1)]);
        }
    }
    lengths.sort_unstable();
    lengths.dedup();
    let mut out = Vec::new();
    for len in lengths {
        // Strings longer than this are never needed to tell bounds apart
        // that fit in memory as samples.
        let Ok(n) = usize::try_from(len) else {
            continue;
        };
        if n > 4096 {
            continue;
        }
        out.push(Value::String("a".repeat(n)));
        match n {
            10 => out.push(Value::String("2026-01-31".to_owned())),
            20 => out.push(Value::String("2026-01-31T10:00:00Z".to_owned())),
            n if n >= 22 => out.push(Value::String(format!(
                "2026-01-31T10:00:00.{}Z",
                "0".repeat(n - 21)
            ))),
            _ => {}
        }
    }
    out
}

fn array_samples(s: &Schema, hint: &Schema, depth: usize) -> Vec<Value> {
    if depth > 8 {
        return vec![Value::Array(Vec::new())];
    }
    let items = s.items.as_deref().unwrap_or(&ANY);
    let item_hint = hint.items.as_deref();
    let item_values: Vec<Value> = samples(items, item_hint, depth + 1)
        .into_iter()
        .filter(|v| validate(items, v.as_value()).is_ok())
        .take(24)
        .collect();
    let mut counts: Vec<u64> = vec![0, 1];
    for schema in [s, hint] {
        for n in [schema.min_items, schema.max_items].into_iter().flatten() {
            counts.extend([n.saturating_sub(1), n, n.saturating_add(1)]);
        }
    }
    counts.sort_unstable();
    counts.dedup();
    let least = usize::try_from(s.min_items.unwrap_or(0).max(1)).unwrap_or(1);
    let mut out = Vec::new();
    // An array of `c` copies of `v` is built only when it stays small, so
    // nested arrays with large `minItems` cannot multiply into a huge value.
    let fits = |c: usize, v: &Value| c.saturating_mul(weight(v, SAMPLE_WEIGHT)) <= SAMPLE_WEIGHT;
    if let Some(first) = item_values.first() {
        for c in counts {
            let Ok(c) = usize::try_from(c) else { continue };
            if fits(c, first) {
                out.push(Value::Array(vec![first.clone(); c]));
            }
        }
        for v in item_values.iter().skip(1) {
            if fits(least, v) {
                out.push(Value::Array(vec![v.clone(); least]));
            }
        }
    } else {
        out.push(Value::Array(Vec::new()));
    }
    out
}

/// The most JSON nodes one array sample may hold.
const SAMPLE_WEIGHT: usize = 4096;

/// How many JSON nodes `v` holds, counting at most to `cap`.
fn weight(v: &Value, cap: usize) -> usize {
    let mut total = 0;
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        total += 1;
        if total >= cap {
            return cap;
        }
        match v {
            Value::Array(items) => stack.extend(items),
            Value::Object(members) => stack.extend(members.values()),
            _ => {}
        }
    }
    total
}

fn object_samples(s: &Schema, hint: &Schema, depth: usize) -> Vec<Value> {
    if depth > 8 {
        return vec![Value::Object(serde_json::Map::new())];
    }
    let valid_of = |schema: &Schema, hint: Option<&Schema>| -> Vec<Value> {
        samples(schema, hint, depth + 1)
            .into_iter()
            .filter(|v| validate(schema, v.as_value()).is_ok())
            .take(16)
            .collect()
    };
    let mut base = serde_json::Map::new();
    for name in s.required.iter() {
        let schema = s.property(name).unwrap_or(&ANY);
        let values = valid_of(schema, hint.property(name));
        let Some(first) = values.into_iter().next() else {
            return Vec::new();
        };
        base.insert(name.to_string(), first);
    }
    let mut out = vec![Value::Object(base.clone())];
    let with = |name: &str, v: Value| {
        let mut o = base.clone();
        o.insert(name.to_owned(), v);
        Value::Object(o)
    };
    for (name, schema) in s.properties.iter() {
        for v in valid_of(schema, hint.property(name)) {
            out.push(with(name, v));
        }
    }
    if s.additional_properties {
        for (name, schema) in hint.properties.iter() {
            if s.property(name).is_some() {
                continue;
            }
            for v in samples(&ANY, Some(schema), depth + 1).into_iter().take(24) {
                out.push(with(name, v));
            }
        }
        let mut extra = "additional".to_owned();
        while s.property(&extra).is_some() || hint.property(&extra).is_some() {
            extra.push('_');
        }
        out.push(with(&extra, Value::Null));
    }
    out.truncate(SAMPLE_CAP);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use templiqx_build::schema::compile_schema;

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

    /// An `enum` of `values`, built without the compiler (whose checks of
    /// a long list are not what these tests time).
    fn listing(values: impl IntoIterator<Item = Value>) -> Schema {
        let values: Vec<IrValue> = values.into_iter().map(|v| IrValue::from_json(&v)).collect();
        Schema {
            enum_values: Some(values.into()),
            ..Schema::ANY
        }
    }

    #[test]
    fn value_keys_are_equal_exactly_when_values_are() {
        let values = [
            json!(1),
            json!(1.0),
            json!(-0.0),
            json!(0),
            json!(1.5),
            json!(1152921504606846976_u64),
            json!(1152921504606847000_u64),
            json!(2.0_f64.powi(60)),
            json!(1e300),
            json!(u64::MAX),
            json!("1"),
            json!([1, {"b": 2, "a": [1.0]}]),
            json!([1.0, {"a": [1], "b": 2.0}]),
            json!({"a": null}),
            json!(null),
            json!(true),
        ];
        for a in &values {
            for b in &values {
                assert_eq!(
                    value_key(a.as_value()) == value_key(b.as_value()),
                    a.as_value().json_eq(&b.as_value()),
                    "{a} and {b}"
                );
            }
        }
        // A judge with a set answers as the validator does.
        let schema = listing(
            values
                .iter()
                .step_by(2)
                .cloned()
                .chain((0..20).map(Value::from)),
        );
        let judge = Judge::new(&schema);
        assert!(judge.listed.is_some());
        for v in values.iter().chain(&[json!(19), json!(20), json!(19.0)]) {
            assert_eq!(
                judge.accepts(v),
                validate(&schema, v.as_value()).is_ok(),
                "{v}"
            );
        }
    }

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
