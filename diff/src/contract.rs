//! Comparing one contract on both sides (`docs/diff.md`, "Rules").
//!
//! Shapes come from the compiled interaction (schemas normalised); what the
//! interaction does not keep — descriptions, provenance, eval fixtures, and
//! where each node was written — from the composed contract.

use crate::change::{Change, Related, Which};
use crate::rules::Rule;
use crate::schema::{self, Aspect, Finding, Node, Shape, push};
use crate::side::Side;
use crate::text::json_text;
use serde_json::{Value, json};
use std::collections::BTreeSet;
use templiqx_build::Sources;
use templiqx_build::dto::{
    ComponentDecl, ContentNode, Contract, FieldDecl, FileId, Loc, NodeKind, OrderedMap,
};
use templiqx_contracts::canonical::fingerprint;
use templiqx_contracts::ir::Field;
use templiqx_contracts::{Interaction, Schema};

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

/// Which readers a schema has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Readers {
    /// Inputs and context: callers write them.
    Callers,
    /// The output: consumers read it.
    Consumers,
}

impl Pair<'_> {
    fn change(&self, rule: Rule, message: String, old: Option<&str>, new: Option<&str>) -> Change {
        let mut c = Change::new(rule, Some(self.id), message);
        c.old = old.map(|p| self.old.locate(self.old_dto.loc.file, p));
        c.new = new.map(|p| self.new.locate(self.new_dto.loc.file, p));
        c
    }

    /// The change `rule` about `key` under `base` (`/provenance`): at the
    /// key on each side that has it (`has`: old, new), else at `base`.
    fn keyed(
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

    /// Every change between the two versions of the contract.
    pub(crate) fn compare(&self) -> Vec<Change> {
        let mut out = Vec::new();
        self.scopes(&mut out);
        self.output(&mut out);
        self.capabilities(&mut out);
        self.messages_and_components(&mut out);
        self.runtime_policy(&mut out);
        self.extensions(&mut out);
        self.documentation(&mut out);
        self.provenance(&mut out);
        self.evals(&mut out);
        out
    }

    fn scopes(&self, out: &mut Vec<Change>) {
        for scope in ["inputs", "context"] {
            let (old_fields, new_fields) = match scope {
                "inputs" => (&self.old_ir.inputs, &self.new_ir.inputs),
                _ => (&self.old_ir.context, &self.new_ir.context),
            };
            let (a, b) = (
                scope_shape(scope, old_fields),
                scope_shape(scope, new_fields),
            );
            let narrowed = schema::scope_findings(&a, &b, scope);
            let widened = schema::scope_findings(&b, &a, scope);
            out.extend(self.schema_changes(Readers::Callers, narrowed, widened));
            for old in old_fields.iter() {
                if let Some(new) = new_fields.iter().find(|f| f.name == old.name) {
                    let at = push(&push(&format!("/{scope}"), &old.name), "schema");
                    let place = crate::text::place_child(scope, &old.name);
                    self.annotations(
                        Readers::Callers,
                        &old.schema,
                        &new.schema,
                        &at,
                        &at,
                        &place,
                        out,
                    );
                }
            }
        }
    }

    fn output(&self, out: &mut Vec<Change>) {
        let (a, b) = (&self.old_ir.output_schema, &self.new_ir.output_schema);
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
        out.extend(self.schema_changes(Readers::Consumers, narrowed, widened));
        self.annotations(Readers::Consumers, a, b, &at, &at, "output", out);
    }

    /// Changes from the findings of `old ⊆ new` (`narrowed`) and `new ⊆
    /// old` (`widened`); of two presence findings about one property, the
    /// more severe is kept.
    fn schema_changes(
        &self,
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
            let mut c = self.change(
                rule,
                describe(rule, &f, is_narrowed),
                Some(old_at),
                Some(new_at),
            );
            c.example = f.witness.clone();
            let key = match f.aspect {
                Aspect::Closed | Aspect::Required { .. } | Aspect::Declared => {
                    Some(f.place.clone())
                }
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
    fn annotations(
        &self,
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
            out.push(self.change(
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
                self.annotations(
                    readers,
                    a,
                    b,
                    &oa,
                    &na,
                    &crate::text::place_child(place, name),
                    out,
                );
            }
        }
        if let (Some(a), Some(b)) = (&old.items, &new.items) {
            let (oa, na) = (push(old_at, "items"), push(new_at, "items"));
            self.annotations(readers, a, b, &oa, &na, &format!("{place}[]"), out);
        }
    }

    fn capabilities(&self, out: &mut Vec<Change>) {
        let set = |ir: &Interaction| {
            ir.required_capabilities
                .iter()
                .map(|c| c.to_string())
                .collect::<BTreeSet<_>>()
        };
        let (old, new) = (set(self.old_ir), set(self.new_ir));
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
            out.push(self.change(
                Rule::CapabilityAdded,
                message,
                Some("/capabilities"),
                Some(&at(self.new_dto, cap)),
            ));
        }
        for cap in old.difference(&new) {
            let message = format!("the contract no longer requires capability `{cap}`");
            out.push(self.change(
                Rule::CapabilityRemoved,
                message,
                Some(&at(self.old_dto, cap)),
                Some("/capabilities"),
            ));
        }
    }

    fn messages_and_components(&self, out: &mut Vec<Change>) {
        let mut old = Shaper::new(&self.old.loader.sources, self.old_dto.loc.file);
        let mut new = Shaper::new(&self.new.loader.sources, self.new_dto.loc.file);
        let old_msgs: Vec<Value> = (self.old_dto.messages.iter().enumerate())
            .map(|(i, m)| old.message(&m.role, &m.content, i))
            .collect();
        let new_msgs: Vec<Value> = (self.new_dto.messages.iter().enumerate())
            .map(|(i, m)| new.message(&m.role, &m.content, i))
            .collect();
        for i in 0..old_msgs.len().max(new_msgs.len()) {
            let at = format!("/messages/{i}");
            let (message, old_at, new_at) = match (old_msgs.get(i), new_msgs.get(i)) {
                (Some(a), Some(b)) if same(a, b) => continue,
                (Some(a), Some(b)) => {
                    let d = first_difference(a, b, (&at, &at));
                    let what = match &d.member {
                        Some((key, x, y)) if key == "role" && d.old_at == at => {
                            format!("the role changed from `{}` to `{}`", text(x), text(y))
                        }
                        Some((key, Value::String(x), Value::String(y))) if key == "value" => {
                            let (x, y) = crate::text::excerpts(x, y);
                            format!("its text changed: {x} → {y}")
                        }
                        Some((key, x, y)) => format!(
                            "its content changed: `{key}` {} → {}",
                            shown_value(x),
                            shown_value(y)
                        ),
                        None => "its content changed".to_owned(),
                    };
                    let role = text(&b["role"]);
                    let point = |side: &Side, file: FileId, node: &str| {
                        let p = d
                            .member
                            .as_ref()
                            .map_or_else(|| node.to_owned(), |(key, _, _)| push(node, key));
                        side.written(file, &p)
                    };
                    (
                        format!("`{at}` (`{role}`): {what}"),
                        point(self.old, self.old_dto.loc.file, &d.old_at),
                        point(self.new, self.new_dto.loc.file, &d.new_at),
                    )
                }
                (Some(a), None) => (
                    format!("`{at}` (`{}`) was removed", text(&a["role"])),
                    at.clone(),
                    "/messages".to_owned(),
                ),
                (None, Some(b)) => (
                    format!("`{at}` (`{}`) was added", text(&b["role"])),
                    "/messages".to_owned(),
                    at.clone(),
                ),
                (None, None) => continue,
            };
            out.push(self.change(Rule::MessageChanged, message, Some(&old_at), Some(&new_at)));
        }
        self.components(&mut old, &mut new, out);
        self.partials(&old, &new, out);
    }

    fn components(&self, old: &mut Shaper<'_>, new: &mut Shaper<'_>, out: &mut Vec<Change>) {
        let names = union(
            self.old_dto.components.iter().map(|(n, _)| n),
            self.new_dto.components.iter().map(|(n, _)| n),
        );
        for name in names {
            let at = push("/components", &name);
            let (a, b) = (
                self.old_dto.components.get(&name),
                self.new_dto.components.get(&name),
            );
            let message = match (a, b) {
                (Some(a), Some(b)) => {
                    let (pa, pb) = (params(a), params(b));
                    let (sa, sb) = (old.component(a), new.component(b));
                    let params_same = pa.len() == pb.len()
                        && pa.iter().zip(&pb).all(|((na, da), (nb, db))| {
                            na == nb
                                && da.required == db.required
                                && same_shape(&da.schema, &db.schema)
                        });
                    for ((pname, da), (_, db)) in
                        pa.iter().zip(&pb).filter(|((na, _), (nb, _))| na == nb)
                    {
                        if da.description != db.description {
                            let p = push(&push(&push(&at, "parameters"), pname), "description");
                            let message = format!(
                                "component `{name}`, parameter `{pname}`: the description {}",
                                edit(da.description.as_deref(), db.description.as_deref())
                            );
                            out.push(self.change(
                                Rule::DocumentationChanged,
                                message,
                                Some(&p),
                                Some(&p),
                            ));
                        }
                    }
                    match (params_same, same(&sa, &sb)) {
                        (true, true) => continue,
                        (false, true) => format!("component `{name}`: its parameters changed"),
                        (true, false) => format!("component `{name}`: its body changed"),
                        (false, false) => {
                            format!("component `{name}`: its parameters and body changed")
                        }
                    }
                }
                (Some(_), None) => format!("component `{name}` was removed"),
                (None, Some(_)) => format!("component `{name}` was added"),
                (None, None) => continue,
            };
            out.push(self.keyed(
                Rule::ComponentChanged,
                message,
                "/components",
                &name,
                (a.is_some(), b.is_some()),
            ));
        }
    }

    /// A partial is matched by how its include names it and the order of
    /// its includes; a pair whose spliced content differs is a change at
    /// each include, with the first node that differs in the partial as a
    /// related place on each side.
    fn partials(&self, old: &Shaper<'_>, new: &Shaper<'_>, out: &mut Vec<Change>) {
        for (i, a) in old.runs.iter().enumerate() {
            let nth = old.runs[..i]
                .iter()
                .filter(|r| r.partial == a.partial)
                .count();
            let Some(b) = new.runs.iter().filter(|r| r.partial == a.partial).nth(nth) else {
                continue;
            };
            if a.nodes == b.nodes {
                continue;
            }
            let message = format!(
                "partial {} (included at {}) now splices other content into the contract",
                b.shown, b.site.pointer
            );
            let mut c = Change::new(Rule::PartialChanged, Some(self.id), message);
            c.old = Some(self.old.locate(a.site.file, &a.site.pointer));
            c.new = Some(self.new.locate(b.site.file, &b.site.pointer));
            // The first node that differs, and in it the first member.
            let j = (a.nodes.iter().zip(&b.nodes))
                .position(|(x, y)| x != y)
                .unwrap_or(a.nodes.len().min(b.nodes.len()));
            let inner = match (a.nodes.get(j), b.nodes.get(j), a.locs.get(j), b.locs.get(j)) {
                (Some(x), Some(y), Some(la), Some(lb)) => {
                    let d = first_difference(x, y, (&la.pointer, &lb.pointer));
                    let key = |at: String| match &d.member {
                        Some((key, _, _)) => push(&at, key),
                        None => at,
                    };
                    Some((key(d.old_at.clone()), key(d.new_at.clone())))
                }
                _ => None,
            };
            for (which, side, run) in [(Which::New, self.new, b), (Which::Old, self.old, a)] {
                let Some(loc) = run.locs.get(j).or(run.locs.last()) else {
                    continue;
                };
                let pointer = match (&inner, which) {
                    (Some((old_at, _)), Which::Old) => side.written(loc.file, old_at),
                    (Some((_, new_at)), Which::New) => side.written(loc.file, new_at),
                    (None, _) => loc.pointer.clone(),
                };
                c.related.push(Related {
                    side: which,
                    what: "partial".to_owned(),
                    location: side.locate(loc.file, &pointer),
                });
            }
            out.push(c);
        }
    }

    fn runtime_policy(&self, out: &mut Vec<Change>) {
        let (a, b) = (
            to_map(&self.old_dto.runtime_policy),
            to_map(&self.new_dto.runtime_policy),
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
            out.push(self.keyed(
                Rule::RuntimePolicyChanged,
                message,
                "/runtime_policy",
                &key,
                (va.is_some(), vb.is_some()),
            ));
        }
    }

    fn extensions(&self, out: &mut Vec<Change>) {
        let (da, db) = (&self.old_dto.extensions, &self.new_dto.extensions);
        for key in union(da.iter().map(|(k, _)| k), db.iter().map(|(k, _)| k)) {
            let at = push("/extensions", &key);
            let compiled = |ir: &Interaction| {
                ir.extensions
                    .iter()
                    .find(|e| *e.key == *key)
                    .map(|e| e.schema.clone())
            };
            let (message, old_at, new_at) = match (da.get(&key), db.get(&key)) {
                (Some(a), Some(b)) => {
                    let mut what = Vec::new();
                    if a.capability != b.capability {
                        what.push(format!(
                            "its capability `{}` → `{}`",
                            a.capability, b.capability
                        ));
                    }
                    if fingerprint(&a.value) != fingerprint(&b.value) {
                        what.push(format!(
                            "its value `{}` → `{}`",
                            json_text(&a.value),
                            json_text(&b.value)
                        ));
                    }
                    match (compiled(self.old_ir), compiled(self.new_ir)) {
                        (Some(sa), Some(sb)) if !same_values(&sa, &sb) => {
                            what.push("its schema accepts other values".to_owned())
                        }
                        (Some(sa), Some(sb)) => {
                            let p = push(&at, "schema");
                            self.annotations(
                                Readers::Callers,
                                &sa,
                                &sb,
                                &p,
                                &p,
                                &format!("extensions[{}]", Value::String(key.clone())),
                                out,
                            );
                        }
                        _ => {}
                    }
                    if what.is_empty() {
                        continue;
                    }
                    (
                        format!("extension `{key}`: {}", what.join("; ")),
                        at.clone(),
                        at.clone(),
                    )
                }
                (Some(_), None) => (
                    format!("extension `{key}` was removed"),
                    at.clone(),
                    "/extensions".to_owned(),
                ),
                (None, Some(_)) => (
                    format!("extension `{key}` was added"),
                    "/extensions".to_owned(),
                    at.clone(),
                ),
                (None, None) => continue,
            };
            out.push(self.change(
                Rule::ExtensionChanged,
                message,
                Some(&old_at),
                Some(&new_at),
            ));
        }
    }

    fn documentation(&self, out: &mut Vec<Change>) {
        let (a, b) = (
            self.old_dto.description.as_deref(),
            self.new_dto.description.as_deref(),
        );
        if a != b {
            let message = format!("the contract's description {}", edit(a, b));
            let at = |present: bool| if present { "/description" } else { "" };
            out.push(self.change(
                Rule::DocumentationChanged,
                message,
                Some(at(a.is_some())),
                Some(at(b.is_some())),
            ));
        }
        for scope in ["inputs", "context"] {
            let (fa, fb): (&OrderedMap<FieldDecl>, &OrderedMap<FieldDecl>) = match scope {
                "inputs" => (&self.old_dto.inputs, &self.new_dto.inputs),
                _ => (&self.old_dto.context, &self.new_dto.context),
            };
            for (name, da) in fa.iter() {
                let Some(db) = fb.get(name) else { continue };
                if da.description == db.description {
                    continue;
                }
                let field = push(&format!("/{scope}"), name);
                let at = |d: &FieldDecl| {
                    if d.description.is_some() {
                        push(&field, "description")
                    } else {
                        field.clone()
                    }
                };
                let message = format!(
                    "`{}`: the field's description {}",
                    crate::text::place_child(scope, name),
                    edit(da.description.as_deref(), db.description.as_deref())
                );
                out.push(self.change(
                    Rule::DocumentationChanged,
                    message,
                    Some(&at(da)),
                    Some(&at(db)),
                ));
            }
        }
    }

    fn provenance(&self, out: &mut Vec<Change>) {
        let (a, b) = (&self.old_dto.provenance, &self.new_dto.provenance);
        for key in union(a.iter().map(|(k, _)| k), b.iter().map(|(k, _)| k)) {
            let (va, vb) = (a.get(&key), b.get(&key));
            if va == vb {
                continue;
            }
            let message = format!(
                "provenance `{key}` {}",
                edit(va.map(String::as_str), vb.map(String::as_str))
            );
            out.push(self.keyed(
                Rule::ProvenanceChanged,
                message,
                "/provenance",
                &key,
                (va.is_some(), vb.is_some()),
            ));
        }
    }

    fn evals(&self, out: &mut Vec<Change>) {
        let (a, b) = (&self.old_dto.evals, &self.new_dto.evals);
        let ids = union(a.iter().map(|e| &e.id), b.iter().map(|e| &e.id));
        for id in ids {
            let ia = a.iter().position(|e| e.id == id);
            let ib = b.iter().position(|e| e.id == id);
            let value = |e: &templiqx_build::dto::EvalDecl| {
                fingerprint(&serde_json::to_value(e).unwrap_or_default())
            };
            let message = match (ia, ib) {
                (Some(i), Some(j)) if value(&a[i]) == value(&b[j]) => continue,
                (Some(_), Some(_)) => format!("eval fixture `{id}` changed"),
                (Some(_), None) => format!("eval fixture `{id}` was removed"),
                (None, Some(_)) => format!("eval fixture `{id}` was added"),
                (None, None) => continue,
            };
            let at =
                |i: Option<usize>| i.map_or_else(|| "/evals".to_owned(), |i| format!("/evals/{i}"));
            out.push(self.change(Rule::EvalChanged, message, Some(&at(ia)), Some(&at(ib))));
        }
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

/// A root scope as a closed object whose properties are its fields.
fn scope_shape<'s>(scope: &str, fields: &'s [Field]) -> Shape<'s> {
    let base = format!("/{scope}");
    Shape {
        properties: fields
            .iter()
            .map(|f| {
                let field = push(&base, &f.name);
                (
                    f.name.to_string(),
                    Node::root(&f.schema, push(&field, "schema")),
                    field,
                )
            })
            .collect(),
        required: fields
            .iter()
            .filter(|f| f.required)
            .map(|f| (f.name.to_string(), push(&push(&base, &f.name), "required")))
            .collect(),
        additional: false,
        ptr: base.clone(),
        additional_at: base,
    }
}

/// Whether two compiled schemas accept exactly the same values (proven).
fn same_values(a: &Schema, b: &Schema) -> bool {
    schema::includes(a, b) == schema::Answer::Yes && schema::includes(b, a) == schema::Answer::Yes
}

/// Whether two schema documents accept the same values: compared compiled
/// when both compile, else by their canonical JSON.
pub(crate) fn same_shape(a: &Value, b: &Value) -> bool {
    use templiqx_build::schema::compile_schema;
    match (compile_schema(a, ""), compile_schema(b, "")) {
        (Ok(sa), Ok(sb)) => same_values(&sa, &sb),
        _ => fingerprint(a) == fingerprint(b),
    }
}

/// `"a"` → `"b"`, `added`, `removed`, as words.
pub(crate) fn edit(a: Option<&str>, b: Option<&str>) -> String {
    let show = |s: &str| {
        let s = s.trim();
        if s.chars().count() > 40 {
            format!("\"{}…\"", s.chars().take(39).collect::<String>())
        } else {
            format!("{:?}", s)
        }
    };
    match (a, b) {
        (Some(a), Some(b)) => {
            let (a, b) = crate::text::excerpts(a.trim(), b.trim());
            format!("changed: {a} → {b}")
        }
        (None, Some(b)) => format!("was added: {}", show(b)),
        (Some(a), None) => format!("was removed (was {})", show(a)),
        (None, None) => "did not change".to_owned(),
    }
}

/// Names of both lists, the first's order first, each once.
pub(crate) fn union<'a, I, J, S>(a: I, b: J) -> Vec<String>
where
    I: IntoIterator<Item = S>,
    J: IntoIterator<Item = S>,
    S: AsRef<str> + 'a,
{
    let mut out: Vec<String> = Vec::new();
    for s in a.into_iter().chain(b) {
        let s = s.as_ref();
        if !out.iter().any(|o| o == s) {
            out.push(s.to_owned());
        }
    }
    out
}

fn to_map<T: serde::Serialize>(v: &T) -> serde_json::Map<String, Value> {
    match serde_json::to_value(v) {
        Ok(Value::Object(m)) => m,
        _ => serde_json::Map::new(),
    }
}

fn text(v: &Value) -> String {
    v.as_str().map_or_else(|| json_text(v), str::to_owned)
}

/// A component's declared parameters (none for the legacy form).
fn params(c: &ComponentDecl) -> Vec<(&str, &FieldDecl)> {
    match c {
        ComponentDecl::Typed { parameters, .. } => parameters.iter().collect(),
        ComponentDecl::Legacy(_) => Vec::new(),
    }
}

/// Content made comparable: nodes spliced from a partial become one
/// `{kind: include, partial}` placeholder per include, and their content
/// is kept apart (a [`Run`]), so a partial's change is reported at its
/// include, once per contract.
struct Shaper<'a> {
    sources: &'a Sources,
    file: FileId,
    runs: Vec<Run>,
}

/// The nodes one include spliced in.
struct Run {
    /// How the include names the partial: its dependency (if any) and path.
    partial: (Option<String>, String),
    /// The same for a message: `` `partials/sig.yaml` `` or
    /// `` `partials/sig.yaml` of dependency `common` ``.
    shown: String,
    site: Loc,
    nodes: Vec<Value>,
    /// Where each node is written (in the partial, or one it includes).
    locs: Vec<Loc>,
}

/// The key of a shaped content node that holds where it is written (its
/// JSON pointer in the contract file); ignored by [`same`].
const AT: &str = "@at";

impl<'a> Shaper<'a> {
    fn new(sources: &'a Sources, file: FileId) -> Shaper<'a> {
        Shaper {
            sources,
            file,
            runs: Vec::new(),
        }
    }

    fn message(
        &mut self,
        role: &templiqx_contracts::Role,
        content: &[ContentNode],
        index: usize,
    ) -> Value {
        json!({
            "role": role.as_str(),
            "content": self.nodes(content),
            (AT): format!("/messages/{index}"),
        })
    }

    fn component(&mut self, c: &ComponentDecl) -> Value {
        match c {
            ComponentDecl::Typed { content, .. } => json!({"typed": self.nodes(content)}),
            ComponentDecl::Legacy(content) => json!({"legacy": self.nodes(content)}),
        }
    }

    /// The include node (in the contract file) that brought `file` in, and
    /// the partial it names.
    fn site(&self, file: FileId) -> Option<(FileId, Loc)> {
        let mut current = file;
        for _ in 0..=templiqx_build::MAX_INCLUDE_DEPTH + 1 {
            let from = self.sources.get(current)?.included_from.clone()?;
            if from.file == self.file {
                return Some((current, from));
            }
            current = from.file;
        }
        None
    }

    /// How the include at `site` names its partial: its `from_dependency`
    /// and `path`, the same on both sides wherever they are checked out;
    /// the partial's file name when the include cannot be read back.
    fn partial_name(&self, partial_file: FileId, site: &Loc) -> (Option<String>, String) {
        let include = self
            .sources
            .get(site.file)
            .and_then(|f| f.root.as_ref())
            .and_then(|root| root.pointer(&site.pointer));
        let field = |name: &str| include.and_then(|n| n.get(name)).and_then(|n| n.as_str());
        match field("path") {
            Some(path) => (field("from_dependency").map(str::to_owned), path.to_owned()),
            None => (
                None,
                self.sources
                    .get(partial_file)
                    .map(|f| f.name.clone())
                    .unwrap_or_default(),
            ),
        }
    }

    fn nodes(&mut self, nodes: &[ContentNode]) -> Value {
        let mut out = Vec::new();
        let mut open: Option<usize> = None;
        for node in nodes {
            let spliced = (node.loc.file != self.file)
                .then(|| self.site(node.loc.file))
                .flatten();
            let Some((partial_file, site)) = spliced else {
                open = None;
                let mut shaped = self.node(node);
                if node.loc.file == self.file
                    && let Value::Object(members) = &mut shaped
                {
                    members.insert(AT.to_owned(), Value::from(node.loc.pointer.clone()));
                }
                out.push(shaped);
                continue;
            };
            let whole = serde_json::to_value(node).unwrap_or_default();
            match open {
                Some(i) if self.runs[i].site == site => {
                    self.runs[i].nodes.push(whole);
                    self.runs[i].locs.push(node.loc.clone());
                }
                _ => {
                    let partial = self.partial_name(partial_file, &site);
                    let shown = match &partial {
                        (Some(dep), path) => format!("`{path}` of dependency `{dep}`"),
                        (None, path) => format!("`{path}`"),
                    };
                    // The include as written, so a change to it reads as one.
                    let mut include = json!({
                        "kind": "include",
                        "path": partial.1,
                        (AT): site.pointer,
                    });
                    if let Some(dep) = &partial.0 {
                        include["from_dependency"] = Value::from(dep.as_str());
                    }
                    out.push(include);
                    self.runs.push(Run {
                        partial,
                        shown,
                        site,
                        nodes: vec![whole],
                        locs: vec![node.loc.clone()],
                    });
                    open = Some(self.runs.len() - 1);
                }
            }
        }
        Value::Array(out)
    }

    fn node(&mut self, node: &ContentNode) -> Value {
        match &node.kind {
            NodeKind::When {
                condition,
                then,
                otherwise,
            } => json!({
                "kind": "when",
                "condition": serde_json::to_value(condition).unwrap_or_default(),
                "then": self.nodes(then),
                "else": self.nodes(otherwise),
            }),
            NodeKind::ForEach {
                collection,
                item,
                body,
                separator,
            } => json!({
                "kind": "for_each",
                "collection": serde_json::to_value(collection).unwrap_or_default(),
                "item": item,
                "body": self.nodes(body),
                "separator": separator,
            }),
            _ => serde_json::to_value(node).unwrap_or_default(),
        }
    }
}

/// Whether two shaped values are equal, where each node was written
/// ([`AT`]) aside.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let members =
                |m: &'_ serde_json::Map<String, Value>| m.iter().filter(|(k, _)| *k != AT).count();
            members(x) == members(y)
                && x.iter()
                    .filter(|(k, _)| *k != AT)
                    .all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(v, w)| same(v, w))
        }
        _ => a == b,
    }
}

/// Where two shaped values first differ.
#[derive(Debug, PartialEq)]
struct Difference {
    /// The pointer of the deepest node holding the difference on the old
    /// side ([`AT`], then the members below it).
    old_at: String,
    /// The same on the new side.
    new_at: String,
    /// When the difference is one member of that node whose values are not
    /// both containers: its key and both values (`null` where absent).
    member: Option<(String, Value, Value)>,
}

/// The first place where `a` and `b` differ ([`same`] being false), found
/// depth first in the order of `a`'s members; `at` are the pointers the
/// values stand at.
fn first_difference(a: &Value, b: &Value, at: (&str, &str)) -> Difference {
    let here = |v: &Value, inherited: &str| {
        v.get(AT)
            .and_then(Value::as_str)
            .unwrap_or(inherited)
            .to_owned()
    };
    let (old_at, new_at) = (here(a, at.0), here(b, at.1));
    // Nodes and expressions are followed; a list of plain values (filters)
    // is one member.
    let container = |v: &Value| match v {
        Value::Object(_) => true,
        Value::Array(items) => items.iter().any(|i| i.is_object() || i.is_array()),
        _ => false,
    };
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys = union(x.keys(), y.keys());
            for key in keys.iter().filter(|k| *k != AT) {
                match (x.get(key), y.get(key)) {
                    (Some(v), Some(w)) if same(v, w) => continue,
                    (Some(v), Some(w))
                        if (v.is_array() && w.is_array() && (container(v) || container(w)))
                            || (v.is_object() && w.is_object()) =>
                    {
                        return first_difference(v, w, (&push(&old_at, key), &push(&new_at, key)));
                    }
                    (v, w) if v.is_some_and(container) || w.is_some_and(container) => {
                        return Difference {
                            old_at: push(&old_at, key),
                            new_at: push(&new_at, key),
                            member: None,
                        };
                    }
                    (v, w) => {
                        let value = |v: Option<&Value>| v.cloned().unwrap_or(Value::Null);
                        return Difference {
                            old_at,
                            new_at,
                            member: Some((key.clone(), value(v), value(w))),
                        };
                    }
                }
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            for (i, (v, w)) in x.iter().zip(y).enumerate() {
                if !same(v, w) {
                    let token = i.to_string();
                    return first_difference(
                        v,
                        w,
                        (&push(&old_at, &token), &push(&new_at, &token)),
                    );
                }
            }
            // One list is longer: at its first extra element, and at the
            // other list itself.
            let i = x.len().min(y.len());
            let extra = |list: &[Value], base: &str| {
                list.get(i)
                    .map_or_else(|| base.to_owned(), |v| here(v, &push(base, &i.to_string())))
            };
            return Difference {
                old_at: extra(x, &old_at),
                new_at: extra(y, &new_at),
                member: None,
            };
        }
        _ => {}
    }
    Difference {
        old_at,
        new_at,
        member: None,
    }
}

/// A member's value in a message: a string in quotes, anything else as
/// compact JSON, each cut as [`json_text`] cuts it.
fn shown_value(v: &Value) -> String {
    format!("`{}`", json_text(v))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_difference_is_the_deepest_node_and_its_member() {
        let a = json!({"role": "user", AT: "/messages/1", "content": [
            {"kind": "text", "value": "Hi", AT: "/messages/1/content/0"},
            {"kind": "interpolate", "expression": {"kind": "ref", "path": "inputs.name"},
             AT: "/messages/1/content/1"},
        ]});
        let mut b = a.clone();
        b["content"][1]["expression"]["path"] = json!("inputs.nick");
        // Where each node is written does not count.
        b["content"][0][AT] = json!("/messages/1/content/7");
        assert!(!same(&a, &b));
        let d = first_difference(&a, &b, ("/messages/1", "/messages/1"));
        assert_eq!(d.old_at, "/messages/1/content/1/expression");
        assert_eq!(
            d.member,
            Some((
                "path".to_owned(),
                json!("inputs.name"),
                json!("inputs.nick")
            ))
        );
        // A node added at the end: at the new node, and at the old list.
        let mut c = a.clone();
        c["content"]
            .as_array_mut()
            .unwrap()
            .push(json!({"kind": "text", "value": "!", AT: "/messages/1/content/2"}));
        let d = first_difference(&a, &c, ("/messages/1", "/messages/1"));
        assert_eq!(
            (d.old_at.as_str(), d.new_at.as_str()),
            ("/messages/1/content", "/messages/1/content/2")
        );
        assert_eq!(d.member, None);
        b["content"][1]["expression"]["path"] = json!("inputs.name");
        assert!(same(&a, &b));
    }
}
