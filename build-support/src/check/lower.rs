//! Lowering of content to the IR (`docs/format.md`, "Content nodes",
//! "Expressions", "References and scoping", "Filters", "Components"):
//! component bodies and messages are walked node by node, every reference
//! resolved against the declarations and the locals in scope, and every
//! construct's type checked; each node records its site.

mod judge;
mod refs;

use super::components::{Param, Signature};
use super::types::{
    Ty, assignable, implies, known_types, literal_item_types, literal_type, null_tests,
};
use super::{Cx, Decls, is_reserved, reserved_list};
use crate::dto::{self, ContentNode, Contract, ExprKind, Loc, NodeKind};
use templiqx_contracts::budget::MAX_FOR_EACH_DEPTH;
use templiqx_contracts::expr::{Kind, Place, not_allowed_help};
use templiqx_contracts::ir::{self, Filter};
use templiqx_contracts::validate::validate;
use templiqx_contracts::words;
use templiqx_contracts::{AsValue, Code, IrValue, JsonType, Ptr, Schema, Seq, Str, TypeSet};

/// The component-lowering phase: each body, with its parameters as the
/// locals in scope.
pub(super) fn components(
    cx: &mut Cx<'_>,
    contract: &Contract,
    decls: &Decls<'_>,
    signatures: &[Signature],
) -> Vec<ir::Component> {
    let mut lowered = Vec::with_capacity(signatures.len());
    for ((name, decl), sig) in contract.components.iter().zip(signatures) {
        let frame = Frame {
            locals: sig
                .params
                .iter()
                .map(|p| (p.name.clone(), p.ty()))
                .collect(),
            component: Some(name.to_owned()),
        };
        let mut lw = Lowerer {
            frame,
            ..Lowerer::new(&mut *cx, decls, Place::Content)
        };
        let body = lw.nodes(super::components::component_body(decl));
        lowered.push(ir::Component {
            name: Str::Owned(name.to_owned()),
            parameters: Seq::Owned(
                sig.params
                    .iter()
                    .map(|p| Str::Owned(p.name.clone()))
                    .collect(),
            ),
            body: Seq::Owned(body),
        });
    }
    lowered
}

/// The message phase: each message's content, with no locals in scope.
pub(super) fn messages(
    cx: &mut Cx<'_>,
    contract: &Contract,
    decls: &Decls<'_>,
) -> Vec<ir::Message> {
    let mut messages = Vec::with_capacity(contract.messages.len());
    for (index, message) in contract.messages.iter().enumerate() {
        let site = cx.site(&Loc::new(contract.loc.file, format!("/messages/{index}")));
        let mut lw = Lowerer::new(&mut *cx, decls, Place::Content);
        let content = lw.nodes(&message.content);
        messages.push(ir::Message {
            role: message.role,
            content: Seq::Owned(content),
            site,
        });
    }
    messages
}

/// The checks of one eval fixture's `expect`, lowered with `output` as a
/// root scope of type `output` (the compiled `output_schema`, or `None`
/// when it failed to compile): each must be a boolean
/// (`TQX_TYPE_MISMATCH`), every reference resolves as in content
/// (`TQX_REF_UNKNOWN`, `TQX_REF_IMPOSSIBLE`). `None` for a check with an
/// error.
///
/// `case` is the type of the `case` root scope (the compiled `case_schema`
/// of a dataset entry, `Ty::Error` when it failed to compile), `None` where
/// there is no `case` (`docs/format.md`, "Datasets").
pub(super) fn expectations(
    cx: &mut Cx<'_>,
    decls: &Decls<'_>,
    output: Option<&Schema>,
    case: Option<Option<&Schema>>,
    eval: &dto::EvalDecl,
) -> Vec<Option<ir::Check>> {
    eval.expect
        .iter()
        .map(|decl| {
            if let ExprKind::Judge { .. } = &decl.check.kind {
                // A model-graded check (`docs/format.md`, "Model-graded
                // checks"): its judge, `with` and `pass` are checked there.
                return judge::check(cx, decls, output, case, decl);
            }
            let before = cx.diags.len();
            let mut lw = Lowerer {
                output: Some(output.map_or(Ty::Error, Ty::Schema)),
                case: case.map(|c| c.map_or(Ty::Error, Ty::Schema)),
                ..Lowerer::new(&mut *cx, decls, Place::Check)
            };
            lw.allowed(&decl.check, CHECK);
            let (expr, ty) = lw.expr(&decl.check);
            lw.expect_bool(ty, &decl.check, CHECK);
            (cx.diags.len() == before).then(|| ir::Check {
                id: Str::Owned(decl.id.clone()),
                description: decl.description.clone().map(Str::Owned),
                source: Str::Owned(templiqx_contracts::expect::source_text(&expr)),
                expr,
                site: cx.site_of(&decl.check.loc),
                judge: None,
            })
        })
        .collect()
}

/// What an `expect` check is called in diagnostics.
const CHECK: &str = "an `expect` check";

#[derive(Default)]
struct Frame<'s> {
    /// Locals by slot: name and type.
    locals: Vec<(String, Ty<'s>)>,
    /// The component whose body this is.
    component: Option<String>,
}

struct Lowerer<'c, 'a, 'd> {
    cx: &'c mut Cx<'a>,
    decls: &'d Decls<'d>,
    frame: Frame<'d>,
    depth: usize,
    /// References known not to be `null` here (inside the branch of a
    /// `when` that tests them against `null`, or after such a test in an
    /// `and`/`or`), as written.
    narrowed: Vec<String>,
    /// The type of the `output` root scope: `Some` only in `expect` checks.
    output: Option<Ty<'d>>,
    /// The type of the `case` root scope: `Some` only in the `expect`
    /// checks of a dataset entry with a `case_schema`.
    case: Option<Ty<'d>>,
    /// The type of the `judge` root scope (the judge contract's
    /// `output_schema`): `Some` only in the `pass` expression of a
    /// model-graded check.
    judge: Option<Ty<'d>>,
    /// Where the expressions lowered are written: which kinds they may use
    /// (`TQX_EXPR_KIND_NOT_ALLOWED`).
    place: Place,
}

/// A placeholder for IR that will be discarded because of an error.
fn poison() -> ir::Expr {
    ir::Expr::Literal(IrValue::Null)
}

impl<'c, 'a, 'd> Lowerer<'c, 'a, 'd> {
    /// A lowerer of expressions written at `place`, with no local, no
    /// narrowing and none of the check roots (`output`, `case`, `judge`):
    /// set those a place has with the struct update syntax.
    fn new(cx: &'c mut Cx<'a>, decls: &'d Decls<'d>, place: Place) -> Self {
        Lowerer {
            cx,
            decls,
            frame: Frame::default(),
            depth: 0,
            narrowed: Vec::new(),
            output: None,
            case: None,
            judge: None,
            place,
        }
    }
}

impl<'d> Lowerer<'_, '_, 'd> {
    fn err(&mut self, code: Code, message: impl Into<String>, loc: &Loc, help: impl Into<String>) {
        self.cx.err(code, message, loc, help);
    }

    fn suggest(&mut self, fix: Option<templiqx_contracts::Suggestion>) {
        self.cx.suggest(fix);
    }

    fn nodes(&mut self, nodes: &[ContentNode]) -> Vec<ir::Node> {
        let mut out = Vec::with_capacity(nodes.len());
        for node in nodes {
            if let Some(n) = self.node(node) {
                out.push(n);
            }
        }
        out
    }

    fn node(&mut self, node: &ContentNode) -> Option<ir::Node> {
        let loc = &node.loc;
        Some(match &node.kind {
            NodeKind::Text { value } => ir::Node::Text(Str::Owned(value.clone())),
            NodeKind::Interpolate {
                expression,
                filters,
            } => {
                let (value, ty) = self.content_expr(expression, "an interpolation");
                self.filters(ty, filters, expression, loc);
                ir::Node::Interpolate {
                    value,
                    filters: Seq::Owned(filters.clone()),
                    site: self.cx.site(loc),
                }
            }
            NodeKind::When {
                condition,
                then,
                otherwise,
            } => {
                let (cond, ty) = self.content_expr(condition, "a `when` condition");
                self.expect_bool(ty, condition, "a `when` condition");
                // `not(equals(ref, null))` rules `null` out in `then`;
                // `equals(ref, null)` rules it out in `else`.
                let (then_refs, else_refs) = null_tests(condition);
                let mark = self.narrowed.len();
                self.narrowed.extend(then_refs);
                let then = self.nodes(then);
                self.narrowed.truncate(mark);
                self.narrowed.extend(else_refs);
                let otherwise = self.nodes(otherwise);
                self.narrowed.truncate(mark);
                ir::Node::When {
                    condition: cond,
                    then: Seq::Owned(then),
                    otherwise: Seq::Owned(otherwise),
                    site: self.cx.site(loc),
                }
            }
            NodeKind::ForEach {
                collection,
                item,
                body,
                separator,
            } => self.for_each(loc, collection, item, body, separator),
            NodeKind::Component { name, with } => return self.call(node, name, with),
            NodeKind::Include { path, .. } => {
                self.err(
                    Code::IncludeUnresolved,
                    format!("include of `{path}` was not expanded"),
                    loc,
                    "includes are expanded by package composition; compile the contract through its package",
                );
                return None;
            }
        })
    }

    /// A `for_each` node: the collection must be an array
    /// (`TQX_TYPE_MISMATCH`); the item is a new local for the body, which
    /// nests one level deeper (`TQX_RENDER_BUDGET` past the limit).
    fn for_each(
        &mut self,
        loc: &Loc,
        collection: &dto::Expr,
        item: &str,
        body: &[ContentNode],
        separator: &Option<String>,
    ) -> ir::Node {
        let (coll, ty) = self.content_expr(collection, "a `for_each` collection");
        let item_ty = self.item_type(collection, ty);
        let item_loc = loc.child("item");
        if is_reserved(item) {
            self.err(
                Code::LocalReserved,
                format!("`for_each` item `{item}` collides with the root scope `{item}`"),
                &item_loc,
                format!("rename the item; {} are reserved", reserved_list()),
            );
        } else {
            self.cx.check_name(item, &item_loc, "`for_each` item");
        }
        self.depth += 1;
        if self.depth == MAX_FOR_EACH_DEPTH + 1 {
            self.err(
                Code::RenderBudget,
                format!("`for_each` nesting depth {} exceeds the render budget of {MAX_FOR_EACH_DEPTH}", self.depth),
                loc,
                "flatten the iteration; the depth limit is a format constant (docs/format.md, \"Render budgets\")",
            );
        }
        self.frame.locals.push((item.to_owned(), item_ty));
        let body = self.nodes(body);
        self.frame.locals.pop();
        self.depth -= 1;
        ir::Node::ForEach {
            collection: coll,
            body: Seq::Owned(body),
            separator: separator.clone().map(Str::Owned),
            site: self.cx.site(loc),
        }
    }

    /// The type of the items of a `for_each` collection of type `ty`.
    fn item_type(&mut self, collection: &dto::Expr, ty: Ty<'d>) -> Ty<'d> {
        match ty {
            Ty::Legacy => {
                self.legacy_misuse(collection, "as a `for_each` collection");
                Ty::Error
            }
            Ty::Error => Ty::Error,
            _ if !ty.is_exactly(JsonType::Array) => {
                self.err(
                    Code::TypeMismatch,
                    format!(
                        "`for_each` needs an array, but `{}` is {}",
                        expr_text(collection),
                        ty.describe()
                    ),
                    &collection.loc,
                    "iterate over an array-typed value (`type: array`, not nullable)",
                );
                Ty::Error
            }
            Ty::Schema(s) | Ty::NonNull(s) => match &s.items {
                Some(items) => Ty::Schema(items),
                None => Ty::Schema(&Schema::ANY),
            },
            _ => match &collection.kind {
                ExprKind::Literal {
                    value: serde_json::Value::Array(items),
                } => literal_item_types(items).map_or(Ty::Schema(&Schema::ANY), Ty::Types),
                _ => Ty::Schema(&Schema::ANY),
            },
        }
    }

    fn call(
        &mut self,
        node: &ContentNode,
        name: &str,
        with: &dto::OrderedMap<dto::Expr>,
    ) -> Option<ir::Node> {
        let decls = self.decls;
        let names = &decls.names;
        let Some(index) = names.iter().position(|n| *n == name) else {
            let help = words::did_you_mean(name, names, "declared components: ");
            let at = node.loc.child("name");
            self.err(
                Code::ComponentUnknown,
                format!("unknown component `{name}`"),
                &at,
                help,
            );
            let fix = words::replacement(name, names, "");
            self.suggest(self.cx.sources.fix_whole(&at, false, fix));
            return None;
        };
        let sig = &decls.components[index];
        let callee_depth = decls.depths.get(index).copied().unwrap_or(0);
        if self.depth <= MAX_FOR_EACH_DEPTH && self.depth + callee_depth > MAX_FOR_EACH_DEPTH {
            self.err(
                Code::RenderBudget,
                format!(
                    "calling `{name}` here nests `for_each` {} deep, over the render budget of {MAX_FOR_EACH_DEPTH}",
                    self.depth + callee_depth
                ),
                &node.loc,
                "flatten the iteration; the depth limit is a format constant (docs/format.md, \"Render budgets\")",
            );
        }
        let with_loc = node.loc.child("with");
        for (arg, e) in with.iter() {
            if !sig.params.iter().any(|p| p.name == arg) {
                let pnames: Vec<&str> = sig.params.iter().map(|p| p.name.as_str()).collect();
                let help = words::did_you_mean(arg, &pnames, &format!("`{name}` declares: "));
                self.err(
                    Code::ComponentArgument,
                    format!("component `{name}` has no parameter `{arg}`"),
                    &e.loc,
                    help,
                );
                let fix = words::replacement(arg, &pnames, "").filter(|r| with.get(r).is_none());
                self.suggest(self.cx.sources.fix_whole(&e.loc, true, fix));
            }
        }
        let mut args = Vec::with_capacity(sig.params.len());
        let mut checks = Vec::new();
        for p in &sig.params {
            match with.get(&p.name) {
                None => {
                    if p.required {
                        let form = if sig.legacy {
                            " (inferred from the legacy component's body)"
                        } else {
                            ""
                        };
                        self.err(
                            Code::ComponentArgument,
                            format!(
                                "missing required argument `{}` for component `{name}`{form}",
                                p.name
                            ),
                            &with_loc,
                            format!("pass `{}` under `with`", p.name),
                        );
                    }
                    args.push(None);
                }
                Some(e) => {
                    let (value, ty) = self.content_expr(e, "a component argument");
                    if self.check_argument(name, sig.legacy, p, e, ty)
                        && let Some(schema) = &p.schema
                    {
                        checks.push(ir::ArgCheck {
                            slot: u16::try_from(args.len()).unwrap_or(u16::MAX),
                            schema: schema.clone(),
                            site: self.cx.site(&e.loc),
                        });
                    }
                    args.push(Some(value));
                }
            }
        }
        Some(ir::Node::Call {
            component: u32::try_from(index).unwrap_or(u32::MAX),
            args: Seq::Owned(args),
            checks: Seq::Owned(checks),
            site: self.cx.site(&node.loc),
        })
    }

    /// Checks an argument's type against its parameter; returns whether its
    /// value must also be validated against the parameter's full schema
    /// when the call renders (a fitting argument that is not a literal and
    /// whose schema does not [imply](implies) the parameter's).
    fn check_argument(
        &mut self,
        component: &str,
        legacy: bool,
        p: &Param,
        e: &dto::Expr,
        ty: Ty<'_>,
    ) -> bool {
        if legacy {
            if !ty.is_exactly(JsonType::String) {
                self.err(
                    Code::ComponentArgument,
                    format!(
                        "argument `{}` of legacy component `{component}` must be a string, but `{}` is {}",
                        p.name,
                        expr_text(e),
                        ty.describe()
                    ),
                    &e.loc,
                    "legacy components take required strings; migrate the component to the typed form (`parameters` + `content`) for other types",
                );
            }
            return false;
        }
        let Some(param) = &p.schema else { return false };
        let (from, ok) = fit(e, ty, param);
        if !ok {
            self.err(
                Code::ComponentArgument,
                format!(
                    "argument `{}` of component `{component}` is {}, which does not fit the parameter's schema",
                    p.name,
                    ty.describe()
                ),
                &e.loc,
                "pass a value whose schema matches the parameter's declared type",
            );
            return false;
        }
        from.is_some_and(|from| !implies(&from, param))
    }

    fn legacy_misuse(&mut self, e: &dto::Expr, usage: &str) {
        self.err(
            Code::ComponentArgument,
            format!("legacy component argument `{}` is a string and cannot be used {usage}", expr_text(e)),
            &e.loc,
            "legacy components infer required string arguments; migrate the component to the typed form (`parameters` + `content`) to use other types",
        );
    }

    fn expect_bool(&mut self, ty: Ty<'_>, e: &dto::Expr, what: &str) {
        match ty {
            Ty::Legacy => self.legacy_misuse(e, &format!("as {what}")),
            _ if ty.is_exactly(JsonType::Boolean) => {}
            _ => self.err(
                Code::TypeMismatch,
                format!(
                    "{what} must be a boolean, but `{}` is {}",
                    expr_text(e),
                    ty.describe()
                ),
                &e.loc,
                if what == CHECK {
                    "a check is a boolean expression: compare with `equals` or `compare`, test with `contains`, combine with `and`/`or`/`not`"
                } else {
                    "use a boolean value (`type: boolean`, not nullable) or compare with `equals`"
                },
            ),
        }
    }

    fn filters(&mut self, ty: Ty<'_>, filters: &[Filter], e: &dto::Expr, loc: &Loc) {
        let mut cur = ty;
        for (i, f) in filters.iter().enumerate() {
            let floc = loc.child("filters").child(&i.to_string());
            let (needs, out) = match f {
                Filter::Trim | Filter::Lower | Filter::Upper | Filter::FormatDate => {
                    (Some(JsonType::String), JsonType::String)
                }
                Filter::FormatNumber => (Some(JsonType::Number), JsonType::String),
                Filter::Json => (None, JsonType::String),
            };
            if let Some(needed) = needs {
                if matches!(cur, Ty::Legacy) && needed != JsonType::String {
                    self.legacy_misuse(e, &format!("with `{}`", f.as_str()));
                } else if !cur.is_exactly(needed) {
                    let want = words::kind(needed);
                    self.err(
                        Code::FilterType,
                        format!(
                            "`{}` needs {want}, but its input is {}",
                            f.as_str(),
                            cur.describe()
                        ),
                        &floc,
                        format!("apply `{}` only to {want} value (not nullable)", f.as_str()),
                    );
                }
            }
            cur = Ty::Types(TypeSet::of(out));
        }
        let scalar = match cur.types() {
            None => true,
            Some(t) => {
                !t.is_any()
                    && t.iter().all(|t| {
                        matches!(
                            t,
                            JsonType::Boolean
                                | JsonType::Integer
                                | JsonType::Number
                                | JsonType::String
                        )
                    })
            }
        };
        if !scalar {
            self.err(
                Code::TypeMismatch,
                format!(
                    "cannot interpolate `{}` directly: it is {}",
                    expr_text(e),
                    cur.describe()
                ),
                &e.loc,
                "arrays, objects and null need the `json` filter; a scalar needs a declared `type` (or an `enum` or `const` of scalars)",
            );
        }
    }

    /// Lowers the expression `e`, written in content as `slot` (``a `when`
    /// condition``): [`Lowerer::allowed`], then [`Lowerer::expr`].
    fn content_expr(&mut self, e: &dto::Expr, slot: &str) -> (ir::Expr, Ty<'d>) {
        self.allowed(e, slot);
        self.expr(e)
    }

    /// Reports each expression in `e` whose kind the place of this lowering
    /// does not allow ([`Place::allows`]): `TQX_EXPR_KIND_NOT_ALLOWED` at
    /// its `kind`, naming `slot` (where `e` is written), with a help saying
    /// where the kind is allowed. The operands of a refused expression are
    /// not looked into: the whole of it is to be rewritten.
    fn allowed(&mut self, e: &dto::Expr, slot: &str) {
        self.allowed_at(e, slot, true);
    }

    /// [`Lowerer::allowed`] for `e` written as the whole of `slot`
    /// (`whole`) or as an operand, where a `judge` is never allowed
    /// ([`Place::allows_operand`]).
    fn allowed_at(&mut self, e: &dto::Expr, slot: &str, whole: bool) {
        let kind = kind_of(&e.kind);
        let ok = if whole {
            self.place.allows(kind)
        } else {
            self.place.allows_operand(kind)
        };
        if !ok {
            let (message, help) = if self.place.allows(kind) {
                (
                    format!("`{}` is not allowed as an operand in {slot}", kind.as_str()),
                    format!(
                        "`{}` is a whole `expect` check, never an operand; write it as a check of its own",
                        kind.as_str()
                    ),
                )
            } else {
                (
                    format!("`{}` is not allowed in {slot}", kind.as_str()),
                    not_allowed_help(kind, self.place),
                )
            };
            self.err(
                Code::ExprKindNotAllowed,
                message,
                &e.loc.child("kind"),
                help,
            );
            return;
        }
        match &e.kind {
            ExprKind::Ref { .. } | ExprKind::Literal { .. } => {}
            // Its `with` and `pass` are checked where the judge is lowered.
            ExprKind::Judge { .. } => {}
            // The parser reads a kind not allowed where it is no further
            // (reported above), so there is nothing in it to look into.
            ExprKind::Refused { .. } => {}
            ExprKind::Not { operand: o } | ExprKind::Length { of: o } => {
                self.allowed_at(o, slot, false);
            }
            ExprKind::Equals { left, right } | ExprKind::Compare { left, right, .. } => {
                self.allowed_at(left, slot, false);
                self.allowed_at(right, slot, false);
            }
            ExprKind::Contains { container, item } => {
                self.allowed_at(container, slot, false);
                self.allowed_at(item, slot, false);
            }
            ExprKind::And { operands } | ExprKind::Or { operands } => {
                for o in operands {
                    self.allowed_at(o, slot, false);
                }
            }
        }
    }

    /// Lowers `e` to the IR, with its type. An expression of a kind not
    /// allowed here (reported by [`Lowerer::allowed`]) is not looked into:
    /// no error of its own or of its operands follows, and its type is
    /// unknown ([`Ty::Error`]), so the expression around it does not
    /// complain either.
    fn expr(&mut self, e: &dto::Expr) -> (ir::Expr, Ty<'d>) {
        if !self.place.allows(kind_of(&e.kind)) {
            return (poison(), Ty::Error);
        }
        match &e.kind {
            ExprKind::Ref { path } => match self.resolve(path, &e.loc) {
                Some((p, ty)) => (ir::Expr::Ref(p), ty),
                None => (poison(), Ty::Error),
            },
            ExprKind::Literal { value } => (
                ir::Expr::Literal(IrValue::from_json(value)),
                Ty::Types(literal_type(value)),
            ),
            ExprKind::Equals { left, right } => {
                let (l, _) = self.expr(left);
                let (r, _) = self.expr(right);
                (
                    ir::Expr::Equals(Ptr::from(l), Ptr::from(r)),
                    Ty::Types(TypeSet::of(JsonType::Boolean)),
                )
            }
            ExprKind::Not { operand } => {
                let (o, ty) = self.expr(operand);
                self.expect_bool(ty, operand, "the operand of `not`");
                (
                    ir::Expr::Not(Ptr::from(o)),
                    Ty::Types(TypeSet::of(JsonType::Boolean)),
                )
            }
            ExprKind::And { operands } | ExprKind::Or { operands } => {
                let kind = if matches!(e.kind, ExprKind::And { .. }) {
                    "and"
                } else {
                    "or"
                };
                let mut out = Vec::with_capacity(operands.len());
                // An operand is evaluated only when every earlier one was
                // `true` (`and`) or `false` (`or`), so what those prove
                // non-null is non-null in it, as in a `when` branch.
                let mark = self.narrowed.len();
                for o in operands {
                    let (x, ty) = self.expr(o);
                    self.expect_bool(ty, o, &format!("an operand of `{kind}`"));
                    out.push(x);
                    let (then, otherwise) = null_tests(o);
                    self.narrowed
                        .extend(if kind == "and" { then } else { otherwise });
                }
                self.narrowed.truncate(mark);
                let ir = if kind == "and" {
                    ir::Expr::And(Seq::Owned(out))
                } else {
                    ir::Expr::Or(Seq::Owned(out))
                };
                (ir, Ty::Types(TypeSet::of(JsonType::Boolean)))
            }
            ExprKind::Compare { op, left, right } => {
                let (l, lty) = self.expr(left);
                let (r, rty) = self.expr(right);
                for (ty, operand) in [(lty, left), (rty, right)] {
                    self.expect_type(
                        ty,
                        operand,
                        &[JsonType::Number],
                        "an operand of `compare`",
                        "a number",
                        "compare numbers (`type: number` or `integer`, not nullable); compare other values with `equals`",
                    );
                }
                (
                    ir::Expr::Compare(*op, Ptr::from(l), Ptr::from(r)),
                    Ty::Types(TypeSet::of(JsonType::Boolean)),
                )
            }
            ExprKind::Contains { container, item } => {
                let (c, cty) = self.expr(container);
                let (i, ity) = self.expr(item);
                let ok = self.expect_type(
                    cty,
                    container,
                    &[JsonType::String, JsonType::Array],
                    "the container of `contains`",
                    "a string or an array",
                    "look into a string (for a substring) or an array (for an element), not nullable",
                );
                if ok && cty.is_exactly(JsonType::String) && !matches!(cty, Ty::Error) {
                    self.expect_type(
                        ity,
                        item,
                        &[JsonType::String],
                        "the item of `contains` in a string",
                        "a string",
                        "a string contains strings; to find an element, use an array container",
                    );
                }
                (
                    ir::Expr::Contains(Ptr::from(c), Ptr::from(i)),
                    Ty::Types(TypeSet::of(JsonType::Boolean)),
                )
            }
            ExprKind::Length { of } => {
                let (o, ty) = self.expr(of);
                self.expect_type(
                    ty,
                    of,
                    &[JsonType::String, JsonType::Array],
                    "the operand of `length`",
                    "a string or an array",
                    "take the length of a string or an array (not nullable)",
                );
                (
                    ir::Expr::Length(Ptr::from(o)),
                    Ty::Types(TypeSet::of(JsonType::Integer)),
                )
            }
            // Refused before lowering wherever it is not a whole check
            // (`Lowerer::allowed`); a whole check is lowered by
            // `judge::check`.
            ExprKind::Judge { .. } | ExprKind::Refused { .. } => (poison(), Ty::Error),
        }
    }

    /// Checks that `ty` is exactly one of `allowed` (non-nullable; an
    /// integer is a number): `TQX_TYPE_MISMATCH` otherwise. Returns
    /// whether it is.
    fn expect_type(
        &mut self,
        ty: Ty<'_>,
        e: &dto::Expr,
        allowed: &[JsonType],
        what: &str,
        want: &str,
        help: &str,
    ) -> bool {
        if allowed.iter().any(|t| ty.is_exactly(*t)) {
            return true;
        }
        if matches!(ty, Ty::Legacy) {
            self.legacy_misuse(e, &format!("as {what}"));
        } else {
            self.err(
                Code::TypeMismatch,
                format!(
                    "{what} must be {want}, but `{}` is {}",
                    expr_text(e),
                    ty.describe()
                ),
                &e.loc,
                help,
            );
        }
        false
    }
}

/// The kind of a parsed expression.
/// Whether the values of `e` (of type `ty`) fit `target`: a literal's
/// value validates against it; any other expression's values, as the
/// compiler knows them, are [`assignable`] to it. Also returns what the
/// compiler knows of those values as a schema (`None` for a literal, whose
/// value is known, and for an erroneous type), for a caller that compares
/// further (a component argument: whether it [implies](implies) the
/// parameter). Used for component arguments and a judge's `with` inputs.
fn fit(e: &dto::Expr, ty: Ty<'_>, target: &Schema) -> (Option<Schema>, bool) {
    let from = match (&e.kind, ty) {
        (ExprKind::Literal { .. }, _) | (_, Ty::Error) => None,
        (_, Ty::Schema(s)) => Some(s.clone()),
        (_, Ty::NonNull(s)) => Some(Schema {
            types: known_types(s).without_null(),
            ..s.clone()
        }),
        (_, Ty::Legacy) => Some(Schema {
            types: TypeSet::of(JsonType::String),
            ..Schema::ANY
        }),
        (_, Ty::Types(t)) => Some(Schema {
            types: t,
            ..Schema::ANY
        }),
    };
    let ok = match (&e.kind, &from) {
        (ExprKind::Literal { value }, _) => validate(target, value.as_value()).is_ok(),
        (_, None) => true,
        (_, Some(from)) => assignable(from, target),
    };
    (from, ok)
}

fn kind_of(kind: &ExprKind) -> Kind {
    match kind {
        ExprKind::Ref { .. } => Kind::Ref,
        ExprKind::Literal { .. } => Kind::Literal,
        ExprKind::Equals { .. } => Kind::Equals,
        ExprKind::Not { .. } => Kind::Not,
        ExprKind::And { .. } => Kind::And,
        ExprKind::Or { .. } => Kind::Or,
        ExprKind::Compare { .. } => Kind::Compare,
        ExprKind::Contains { .. } => Kind::Contains,
        ExprKind::Length { .. } => Kind::Length,
        ExprKind::Judge { .. } => Kind::Judge,
        ExprKind::Refused { refused } => *refused,
    }
}

fn expr_text(e: &dto::Expr) -> String {
    match &e.kind {
        ExprKind::Ref { path } => path.clone(),
        ExprKind::Literal { value } => value.to_string(),
        ExprKind::Equals { .. } => "equals(…)".to_owned(),
        ExprKind::Not { .. } => "not(…)".to_owned(),
        ExprKind::And { .. } => "and(…)".to_owned(),
        ExprKind::Or { .. } => "or(…)".to_owned(),
        ExprKind::Compare { op, .. } => format!("compare({}, …)", op.as_str()),
        ExprKind::Contains { .. } => "contains(…)".to_owned(),
        ExprKind::Length { of } => format!("length({})", expr_text(of)),
        ExprKind::Judge { contract, .. } => format!("judge({contract}, …)"),
        ExprKind::Refused { refused } => format!("{}(…)", refused.as_str()),
    }
}
