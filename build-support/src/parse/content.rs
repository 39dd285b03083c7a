//! Content nodes and expressions (`docs/format.md`, "Content nodes",
//! "Expressions", "Filters"): mappings tagged by `kind`, each kind with its
//! closed field list (`docs/decisions.md`, "Field spellings of nodes and
//! expressions").

use super::{COMPARE_OPS, Cx, EXPR_KINDS, FILTERS, NODE_KINDS};
use crate::dto::*;
use crate::yaml::{Key, Node, NodeValue};
use templiqx_contracts::diagnostic::pointer_push;
use templiqx_contracts::expr::{Kind, Place, allowed_only_in};
use templiqx_contracts::ir::{CompareOp, Filter};
use templiqx_contracts::{Code, words};

/// Where an expression is read (`docs/format.md`, "Where each kind is
/// allowed"): the [`Place`] of its slot, and whether it is the whole of the
/// slot or an operand, where a `judge` never is ([`Place::allows_operand`]).
#[derive(Clone, Copy)]
pub(super) struct At {
    place: Place,
    whole: bool,
}

impl At {
    /// The whole of a slot in `place`.
    pub(super) const fn whole(place: Place) -> At {
        At { place, whole: true }
    }

    /// An operand of the expression read here.
    const fn operand(self) -> At {
        At {
            place: self.place,
            whole: false,
        }
    }

    fn allows(self, kind: Kind) -> bool {
        if self.whole {
            self.place.allows(kind)
        } else {
            self.place.allows_operand(kind)
        }
    }

    /// The kinds allowed here, in [`Kind::ALL`] order.
    fn kinds(self) -> Vec<&'static str> {
        Kind::ALL
            .iter()
            .filter(|k| self.allows(**k))
            .map(|k| k.as_str())
            .collect()
    }

    /// Why `kind`, which exists, is not allowed here.
    fn elsewhere(self, kind: Kind) -> String {
        if self.place.allows(kind) {
            format!(
                "`{}` is a whole `expect` check, never an operand",
                kind.as_str()
            )
        } else {
            allowed_only_in(kind)
        }
    }
}

impl Cx<'_> {
    /// A list of content nodes.
    pub(super) fn nodes(
        &mut self,
        node: &Node,
        pointer: &str,
        what: &str,
    ) -> Option<Vec<ContentNode>> {
        let items = self.list(node, pointer, what)?;
        let mut out = Vec::with_capacity(items.len());
        let mut ok = true;
        for (i, item) in items.iter().enumerate() {
            match self.content_node(item, &pointer_push(pointer, &i.to_string())) {
                Some(n) => out.push(n),
                None => ok = false,
            }
        }
        ok.then_some(out)
    }

    /// Reads the `kind` discriminator of a node or expression mapping: one
    /// of `kinds`. An expression's helps offer only the kinds allowed
    /// where it is (`at`): a misspelling is suggested only one of those,
    /// and one closest to a kind allowed elsewhere is told where that is.
    fn kind<'n>(
        &mut self,
        node: &'n Node,
        pointer: &str,
        what: &str,
        kinds: &[&str],
        at: Option<At>,
    ) -> Option<(&'n str, &'n [(Key, Node)])> {
        let entries = self.mapping(node, pointer, what)?;
        let offered: Vec<&str> = match at {
            Some(at) => at.kinds(),
            None => kinds.to_vec(),
        };
        let Some((_, kind_node)) = entries.iter().find(|(k, _)| k.text == "kind") else {
            self.push(
                Code::MissingField,
                format!("missing field `kind` in {what}"),
                node.span,
                pointer,
                Some(format!(
                    "add `kind:` with one of {}",
                    words::names(&offered)
                )),
            );
            return None;
        };
        let kp = pointer_push(pointer, "kind");
        let NodeValue::String(kind) = &kind_node.value else {
            self.invalid_type(kind_node, &kp, "a string", "`kind`");
            return None;
        };
        if !kinds.contains(&kind.as_str()) {
            let what = format!(
                "{} kind",
                what.trim_start_matches("a ").trim_start_matches("an ")
            );
            // Closest to a kind not allowed here (and to none that is):
            // where that kind is allowed, and no fix.
            let elsewhere = at.and_then(|at| {
                let closest = words::closest(kind, kinds).and_then(Kind::parse)?;
                let none_here = words::closest(kind, &offered).is_none();
                (none_here && !at.allows(closest)).then(|| at.elsewhere(closest))
            });
            match elsewhere {
                None => self.unknown_variant(kind_node, &kp, kind, &what, &offered),
                Some(note) => self.push(
                    Code::UnknownVariant,
                    format!("unknown {what} `{kind}`"),
                    kind_node.span,
                    &kp,
                    Some(format!(
                        "expected one of {}; {note}",
                        words::names(&offered)
                    )),
                ),
            }
            return None;
        }
        Some((kind.as_str(), entries))
    }

    fn content_node(&mut self, node: &Node, pointer: &str) -> Option<ContentNode> {
        let (kind, _) = self.kind(node, pointer, "a content node", NODE_KINDS, None)?;
        let what = format!("a `{kind}` node");
        let kind = match kind {
            "text" => {
                let obj = self.object(node, pointer, &what, &["kind", "value"], &["value"])?;
                NodeKind::Text {
                    value: self.req_string(&obj, "value", "`value`")?,
                }
            }
            "interpolate" => {
                let obj = self.object(
                    node,
                    pointer,
                    &what,
                    &["kind", "expression", "filters"],
                    &["expression"],
                )?;
                let expression = obj
                    .get("expression")
                    .and_then(|(n, p)| self.expr(n, &p, At::whole(Place::Content)));
                let filters = match obj.get("filters") {
                    None => Some(Vec::new()),
                    Some((n, p)) => self.filters(n, &p),
                };
                NodeKind::Interpolate {
                    expression: expression?,
                    filters: filters?,
                }
            }
            "when" => {
                let obj = self.object(
                    node,
                    pointer,
                    &what,
                    &["kind", "condition", "then", "else"],
                    &["condition", "then"],
                )?;
                let condition = obj
                    .get("condition")
                    .and_then(|(n, p)| self.expr(n, &p, At::whole(Place::Content)));
                let then = obj
                    .get("then")
                    .and_then(|(n, p)| self.nodes(n, &p, "`then`"));
                let otherwise = match obj.get("else") {
                    None => Some(Vec::new()),
                    Some((n, p)) => self.nodes(n, &p, "`else`"),
                };
                NodeKind::When {
                    condition: condition?,
                    then: then?,
                    otherwise: otherwise?,
                }
            }
            "for_each" => {
                let obj = self.object(
                    node,
                    pointer,
                    &what,
                    &["kind", "collection", "item", "body", "separator"],
                    &["collection", "item", "body"],
                )?;
                let collection = obj
                    .get("collection")
                    .and_then(|(n, p)| self.expr(n, &p, At::whole(Place::Content)));
                let item = self.req_string(&obj, "item", "`item`");
                let body = obj
                    .get("body")
                    .and_then(|(n, p)| self.nodes(n, &p, "`body`"));
                let separator = self.opt_string(&obj, "separator", "`separator`");
                NodeKind::ForEach {
                    collection: collection?,
                    item: item?,
                    body: body?,
                    separator: separator?,
                }
            }
            "component" => {
                let obj =
                    self.object(node, pointer, &what, &["kind", "name", "with"], &["name"])?;
                let name = self.req_string(&obj, "name", "`name`");
                let with = match obj.get("with") {
                    None => Some(OrderedMap::default()),
                    Some((n, p)) => self.expr_map(n, &p, At::whole(Place::Content)),
                };
                NodeKind::Component {
                    name: name?,
                    with: with?,
                }
            }
            _ => {
                let obj = self.object(
                    node,
                    pointer,
                    &what,
                    &["kind", "path", "from_dependency"],
                    &["path"],
                )?;
                let path = self.req_string(&obj, "path", "`path`");
                let from_dependency = self.opt_string(&obj, "from_dependency", "`from_dependency`");
                NodeKind::Include {
                    path: path?,
                    from_dependency: from_dependency?,
                }
            }
        };
        Some(ContentNode {
            kind,
            loc: self.loc(pointer),
        })
    }

    fn filters(&mut self, node: &Node, pointer: &str) -> Option<Vec<Filter>> {
        let items = self.list(node, pointer, "`filters`")?;
        let mut out = Vec::with_capacity(items.len());
        let mut ok = true;
        for (i, item) in items.iter().enumerate() {
            let p = pointer_push(pointer, &i.to_string());
            let Some(name) = self.string(item, &p, "a filter") else {
                ok = false;
                continue;
            };
            let f = match name.as_str() {
                "trim" => Filter::Trim,
                "lower" => Filter::Lower,
                "upper" => Filter::Upper,
                "json" => Filter::Json,
                "format_date" => Filter::FormatDate,
                "format_number" => Filter::FormatNumber,
                _ => {
                    self.unknown_variant(item, &p, &name, "filter", FILTERS);
                    ok = false;
                    continue;
                }
            };
            out.push(f);
        }
        ok.then_some(out)
    }

    fn compare_op(&mut self, node: &Node, pointer: &str) -> Option<CompareOp> {
        let name = self.string(node, pointer, "`op`")?;
        Some(match name.as_str() {
            "lt" => CompareOp::Lt,
            "le" => CompareOp::Le,
            "gt" => CompareOp::Gt,
            "ge" => CompareOp::Ge,
            "eq" | "ne" | "=" | "==" | "!=" => {
                self.push(
                    Code::UnknownVariant,
                    format!("unknown `compare` operator `{name}`"),
                    node.span,
                    pointer,
                    Some(format!(
                        "`compare` orders numbers with {}; test equality with an `equals` expression (inside `not` for inequality)",
                        words::names(COMPARE_OPS)
                    )),
                );
                return None;
            }
            _ => {
                self.unknown_variant(node, pointer, &name, "`compare` operator", COMPARE_OPS);
                return None;
            }
        })
    }

    /// A `with` mapping of expressions, each read `at`.
    fn expr_map(&mut self, node: &Node, pointer: &str, at: At) -> Option<OrderedMap<Expr>> {
        let entries = self.mapping(node, pointer, "`with`")?;
        let mut out = Vec::with_capacity(entries.len());
        let mut ok = true;
        for (key, value) in entries {
            match self.expr(value, &pointer_push(pointer, &key.text), at) {
                Some(e) => out.push((key.text.clone(), e)),
                None => ok = false,
            }
        }
        ok.then_some(OrderedMap(out))
    }

    /// An expression read `at`; one of a kind not allowed there is
    /// [`ExprKind::Refused`], its fields and operands unread.
    pub(super) fn expr(&mut self, node: &Node, pointer: &str, at: At) -> Option<Expr> {
        let (kind, _) = self.kind(node, pointer, "an expression", EXPR_KINDS, Some(at))?;
        if let Some(refused) = Kind::parse(kind).filter(|k| !at.allows(*k)) {
            return Some(Expr {
                kind: ExprKind::Refused { refused },
                loc: self.loc(pointer),
            });
        }
        let what = format!("a `{kind}` expression");
        let inner = at.operand();
        let kind = match kind {
            "ref" => {
                let obj = self.object(node, pointer, &what, &["kind", "path"], &["path"])?;
                ExprKind::Ref {
                    path: self.req_string(&obj, "path", "`path`")?,
                }
            }
            "literal" => {
                let obj = self.object(node, pointer, &what, &["kind", "value"], &["value"])?;
                ExprKind::Literal {
                    value: obj.get("value")?.0.to_json(),
                }
            }
            "equals" => {
                let obj = self.object(
                    node,
                    pointer,
                    &what,
                    &["kind", "left", "right"],
                    &["left", "right"],
                )?;
                let left = obj.get("left").and_then(|(n, p)| self.expr(n, &p, inner));
                let right = obj.get("right").and_then(|(n, p)| self.expr(n, &p, inner));
                ExprKind::Equals {
                    left: Box::new(left?),
                    right: Box::new(right?),
                }
            }
            "not" => {
                let obj = self.object(node, pointer, &what, &["kind", "operand"], &["operand"])?;
                let operand = obj
                    .get("operand")
                    .and_then(|(n, p)| self.expr(n, &p, inner))?;
                ExprKind::Not {
                    operand: Box::new(operand),
                }
            }
            "compare" => {
                let obj = self.object(
                    node,
                    pointer,
                    &what,
                    &["kind", "op", "left", "right"],
                    &["op", "left", "right"],
                )?;
                let op = obj.get("op").and_then(|(n, p)| self.compare_op(n, &p));
                let left = obj.get("left").and_then(|(n, p)| self.expr(n, &p, inner));
                let right = obj.get("right").and_then(|(n, p)| self.expr(n, &p, inner));
                ExprKind::Compare {
                    op: op?,
                    left: Box::new(left?),
                    right: Box::new(right?),
                }
            }
            "contains" => {
                let obj = self.object(
                    node,
                    pointer,
                    &what,
                    &["kind", "container", "item"],
                    &["container", "item"],
                )?;
                let container = obj
                    .get("container")
                    .and_then(|(n, p)| self.expr(n, &p, inner));
                let item = obj.get("item").and_then(|(n, p)| self.expr(n, &p, inner));
                ExprKind::Contains {
                    container: Box::new(container?),
                    item: Box::new(item?),
                }
            }
            "length" => {
                let obj = self.object(node, pointer, &what, &["kind", "of"], &["of"])?;
                let of = obj.get("of").and_then(|(n, p)| self.expr(n, &p, inner))?;
                ExprKind::Length { of: Box::new(of) }
            }
            "judge" => {
                let obj = self.object(
                    node,
                    pointer,
                    &what,
                    &["kind", "contract", "with", "pass"],
                    &["contract", "pass"],
                )?;
                let contract = self.req_string(&obj, "contract", "`contract`");
                let with = match obj.get("with") {
                    None => Some(OrderedMap::default()),
                    Some((n, p)) => self.expr_map(n, &p, inner),
                };
                // `pass` is a place of its own, where `judge` is a root
                // scope (`docs/format.md`, "Model-graded checks").
                let pass = obj
                    .get("pass")
                    .and_then(|(n, p)| self.expr(n, &p, At::whole(Place::Pass)));
                ExprKind::Judge {
                    contract: contract?,
                    with: with?,
                    pass: Box::new(pass?),
                    resolved: None,
                }
            }
            _ => {
                let obj =
                    self.object(node, pointer, &what, &["kind", "operands"], &["operands"])?;
                let (n, p) = obj.get("operands")?;
                let items = self.list(n, &p, "`operands`")?;
                if items.is_empty() {
                    self.push(
                        Code::InvalidValue,
                        format!("{what} needs at least one operand"),
                        n.span,
                        &p,
                        Some("list one or more boolean expressions under `operands`".to_owned()),
                    );
                    return None;
                }
                let mut operands = Vec::with_capacity(items.len());
                let mut ok = true;
                for (i, item) in items.iter().enumerate() {
                    match self.expr(item, &pointer_push(&p, &i.to_string()), inner) {
                        Some(e) => operands.push(e),
                        None => ok = false,
                    }
                }
                if !ok {
                    return None;
                }
                if kind == "and" {
                    ExprKind::And { operands }
                } else {
                    ExprKind::Or { operands }
                }
            }
        };
        Some(Expr {
            kind,
            loc: self.loc(pointer),
        })
    }
}
