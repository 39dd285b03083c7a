//! Reference resolution (`docs/format.md`, "References and scoping"): a
//! dotted path is resolved against the root scopes and the locals in
//! scope, then walked segment by segment through the declared schemas.

use super::Lowerer;
use crate::check::types::{Ty, known_types};
use crate::check::{CASE, JUDGE, OUTPUT, ROOT_SCOPES};
use crate::dto::Loc;
use templiqx_contracts::expr::Place;
use templiqx_contracts::ir::{self, Root, Segment};
use templiqx_contracts::words;
use templiqx_contracts::{Code, JsonType, Schema, Seq, Str};

/// The outcome of one [`Lowerer::step`] of a reference path.
enum Step<'d> {
    /// The segment names this part of the value, of this type.
    Into(Segment, Ty<'d>),
    /// Below an earlier error: the rest of the path is not checked.
    Unchecked,
}

impl<'d> Lowerer<'_, '_, 'd> {
    /// Resolves a dotted path: root scopes first, then locals (innermost
    /// first), then each further segment against the type reached so far
    /// (`docs/format.md`, "References and scoping"). A reference the
    /// enclosing `when` proved non-null is narrowed.
    pub(super) fn resolve(&mut self, path: &str, loc: &Loc) -> Option<(ir::Path, Ty<'d>)> {
        let loc = loc.child("path");
        let segments: Vec<&str> = path.split('.').collect();
        if segments.iter().any(|s| s.is_empty()) {
            self.err(
                Code::RefUnknown,
                format!("reference `{path}` has an empty segment"),
                &loc,
                "write segments separated by single dots, e.g. `inputs.customer.name`",
            );
            return None;
        }
        let (root, mut ty, rest) = self.resolve_head(path, &segments, &loc)?;
        let mut out = Vec::with_capacity(rest.len() + 1);
        if matches!(root, Root::Inputs | Root::Context) {
            // Root scopes are objects: the field name is the first step.
            out.push(Segment::Key(Str::Owned(segments[1].to_owned())));
        }
        let mut walked = path.len() - rest.iter().map(|s| s.len() + 1).sum::<usize>();
        for seg in rest {
            let here = &path[..walked];
            walked += seg.len() + 1;
            match self.step(ty, here, seg, path, &loc)? {
                Step::Into(segment, next) => {
                    out.push(segment);
                    ty = next;
                }
                Step::Unchecked => return Some((self.path(root, out, path), Ty::Error)),
            }
        }
        if let Ty::Schema(s) = ty
            && self.narrowed.iter().any(|n| n == path)
        {
            ty = Ty::NonNull(s);
        }
        Some((self.path(root, out, path), ty))
    }

    /// The first segment (and, for a root scope, the field after it): the
    /// root, its type, and the segments left to walk.
    fn resolve_head<'s>(
        &mut self,
        path: &str,
        segments: &'s [&'s str],
        loc: &Loc,
    ) -> Option<(Root, Ty<'d>, &'s [&'s str])> {
        let first = segments[0];
        if let Some((_, root)) = ROOT_SCOPES.iter().find(|(n, _)| *n == first) {
            let ty = self.scope_field(*root, path, segments, loc)?;
            return Some((*root, ty, &segments[2..]));
        }
        // `output` is a root scope where the place says (`expect` checks,
        // which have no locals to shadow it); the whole output is a value.
        if first == OUTPUT && self.place.roots().contains(&OUTPUT) {
            let ty = self.output.unwrap_or(Ty::Error);
            return Some((Root::Output, ty, &segments[1..]));
        }
        // `case` is a root scope in the checks of a dataset entry with a
        // `case_schema` only (`docs/format.md`, "Datasets"); a value, as
        // `output` is.
        if first == CASE
            && let Some(ty) = self.case
        {
            return Some((Root::Case, ty, &segments[1..]));
        }
        // `judge` is a root scope in the `pass` expression of a
        // model-graded check only (`docs/format.md`, "Model-graded
        // checks"): the judge contract's output, a value.
        if first == JUDGE
            && let Some(ty) = self.judge
        {
            return Some((Root::Judge, ty, &segments[1..]));
        }
        if let Some(slot) = self.frame.locals.iter().rposition(|(n, _)| n == first) {
            let ty = self.frame.locals[slot].1;
            let root = Root::Local(u16::try_from(slot).unwrap_or(u16::MAX));
            return Some((root, ty, &segments[1..]));
        }
        self.unknown_name(first, path, loc);
        None
    }

    /// The declared field `segments[1]` of the root scope `root`
    /// (`TQX_REF_UNKNOWN` when there is none).
    fn scope_field(
        &mut self,
        root: Root,
        path: &str,
        segments: &[&str],
        loc: &Loc,
    ) -> Option<Ty<'d>> {
        let first = segments[0];
        let fields = if root == Root::Inputs {
            self.decls.inputs
        } else {
            self.decls.context
        };
        let Some(field_name) = segments.get(1) else {
            self.err(
                Code::RefUnknown,
                format!("reference `{path}` names a scope, not a value"),
                loc,
                format!("reference a declared field, e.g. `{first}.<field>`"),
            );
            return None;
        };
        let Some(field) = fields.iter().find(|f| f.name == *field_name) else {
            let names: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
            let help = words::did_you_mean_qualified(
                field_name,
                &names,
                &format!("{first}."),
                &format!("declared in `{first}`: "),
            );
            self.err(
                Code::RefUnknown,
                format!("`{first}` declares no field `{field_name}`"),
                loc,
                help,
            );
            // The fix rewrites `inputs.nmae`, the rest of the path stays.
            let fix = words::replacement(field_name, &names, &format!("{first}."));
            let misspelt = 0..first.len() + 1 + field_name.len();
            self.suggest(self.cx.sources.fix_part(loc, misspelt, fix));
            return None;
        };
        Some(match &field.schema {
            Some(s) => Ty::Schema(s),
            None => Ty::Error,
        })
    }

    /// Reports a first segment that is neither a root scope nor a local.
    fn unknown_name(&mut self, first: &str, path: &str, loc: &Loc) {
        let mut names: Vec<&str> = self.frame.locals.iter().map(|(n, _)| n.as_str()).collect();
        names.extend(self.place.roots());
        if self.case.is_some() {
            names.push(CASE);
        }
        // A root scope of another place (`output` outside `expect` checks).
        let elsewhere: Vec<&str> = Place::having_root(first).map(Place::describe).collect();
        let help = match (&self.frame.component, words::suggestion(first, &names, "")) {
            _ if first == CASE => "`case` (a dataset row's expected data) is a root scope only \
                 in the `expect` checks of an eval entry with a `dataset` and a `case_schema`"
                .to_owned(),
            _ if !elsewhere.is_empty() => format!(
                "`{first}` is a root scope only in {}",
                elsewhere.join(" and ")
            ),
            (_, Some(s)) => s,
            (Some(c), None) => format!(
                "the body of component `{c}` sees only its parameters and `inputs`/`context`, never the caller's locals; pass the value as an argument"
            ),
            (None, None) => format!(
                "a reference starts with `inputs.`, `context.`, a `for_each` item or a component parameter; in scope: {}",
                words::names(&names)
            ),
        };
        let fix =
            words::replacement(first, &names, "").filter(|_| elsewhere.is_empty() && first != CASE);
        self.err(
            Code::RefUnknown,
            format!("unknown name `{first}` in reference `{path}`"),
            loc,
            help,
        );
        self.suggest(self.cx.sources.fix_part(loc, 0..first.len(), fix));
    }

    /// One segment `seg` below `here`, whose type is `ty`.
    fn step(
        &mut self,
        ty: Ty<'d>,
        here: &str,
        seg: &str,
        path: &str,
        loc: &Loc,
    ) -> Option<Step<'d>> {
        match ty {
            Ty::Error => Some(Step::Unchecked),
            Ty::Legacy => {
                self.err(
                    Code::ComponentArgument,
                    format!(
                        "legacy component argument `{here}` is a string; `{path}` is a nested path"
                    ),
                    loc,
                    "legacy components infer required string arguments; migrate to the typed form to pass objects",
                );
                None
            }
            Ty::Types(_) => {
                // A local of known scalar types (an item of a literal array
                // of scalars): nothing below it.
                self.err(
                    Code::RefImpossible,
                    format!("`{here}` is {}; it has no `{seg}`", ty.describe()),
                    loc,
                    "only objects and arrays have nested paths",
                );
                None
            }
            Ty::Schema(s) | Ty::NonNull(s) => self.step_schema(s, here, seg, loc),
        }
    }

    /// One segment below a value described by the schema `s`: an array
    /// index, a declared property, or an error (`TQX_REF_IMPOSSIBLE`, or
    /// `TQX_REF_UNKNOWN` when the schema does not say).
    fn step_schema(&mut self, s: &'d Schema, here: &str, seg: &str, loc: &Loc) -> Option<Step<'d>> {
        if s.types.is_only(JsonType::Array) {
            let Some(index) = array_index(seg) else {
                self.err(
                    Code::RefImpossible,
                    format!("`{here}` is an array; `{seg}` is not an index"),
                    loc,
                    "index arrays with a decimal number without sign or leading zeros (`items.0`, `items.12`), or iterate with `for_each`",
                );
                return None;
            };
            let items = Ty::Schema(s.items.as_deref().unwrap_or(&Schema::ANY));
            return Some(Step::Into(Segment::Index(index), items));
        }
        if s.types.contains(JsonType::Object)
            && (s.types.is_only(JsonType::Object) || !s.properties.is_empty())
        {
            return self.step_property(s, here, seg, loc);
        }
        let known = known_types(s);
        if s.types.is_any()
            && (known.is_any()
                || known.contains(JsonType::Object)
                || known.contains(JsonType::Array))
        {
            self.err(
                Code::RefUnknown,
                format!("`{here}` has no declared type, so `{seg}` cannot be checked"),
                loc,
                "declare `type: object` with `properties` (or `type: array` with `items`)",
            );
        } else {
            self.err(
                Code::RefImpossible,
                format!(
                    "`{here}` is {}; it has no `{seg}`",
                    Ty::Schema(s).describe()
                ),
                loc,
                "only objects and arrays have nested paths",
            );
        }
        None
    }

    /// The declared property `seg` of the object schema `s`
    /// (`TQX_REF_UNKNOWN` when there is none).
    fn step_property(
        &mut self,
        s: &'d Schema,
        here: &str,
        seg: &str,
        loc: &Loc,
    ) -> Option<Step<'d>> {
        if let Some(p) = s.property(seg) {
            return Some(Step::Into(
                Segment::Key(Str::Owned(seg.to_owned())),
                Ty::Schema(p),
            ));
        }
        let names: Vec<&str> = s.properties.iter().map(|(n, _)| n.as_ref()).collect();
        let help = words::did_you_mean_qualified(
            seg,
            &names,
            &format!("{here}."),
            &format!("`{here}` declares: "),
        );
        self.err(
            Code::RefUnknown,
            format!("`{here}` declares no property `{seg}`"),
            loc,
            help,
        );
        let fix = words::replacement(seg, &names, &format!("{here}."));
        let misspelt = 0..here.len() + 1 + seg.len();
        self.suggest(self.cx.sources.fix_part(loc, misspelt, fix));
        None
    }

    fn path(&self, root: Root, segments: Vec<Segment>, source: &str) -> ir::Path {
        ir::Path {
            root,
            segments: Seq::Owned(segments),
            source: Str::Owned(source.to_owned()),
        }
    }
}

/// An array index in a reference path: `0`, or decimal digits without a
/// leading zero (as in RFC 6901 section 4), within `u32`. `+1`, `01`, `-1`
/// and `1e2` are not indexes.
fn array_index(segment: &str) -> Option<u32> {
    let digits = !segment.is_empty() && segment.bytes().all(|b| b.is_ascii_digit());
    if digits && (segment == "0" || !segment.starts_with('0')) {
        segment.parse().ok()
    } else {
        None
    }
}
