//! Content nodes and expressions (`docs/format.md`, "Content nodes",
//! "Expressions", "Filters"): mappings tagged by `kind`, each kind with its
//! closed field list (`docs/decisions.md`, "Field spellings of nodes and
//! expressions").

use super::{COMPARE_OPS, Cx, EXPR_KINDS, FILTERS, NODE_KINDS};
use crate::dto::*;
use crate::yaml::{Key, Node, NodeValue};
use templiqx_contracts::diagnostic::pointer_push;
use templiqx_contracts::ir::{CompareOp, Filter};
use templiqx_contracts::{Code, words};

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

    /// Reads the `kind` discriminator of a node or expression mapping.
    fn kind<'n>(
        &mut self,
        node: &'n Node,
        pointer: &str,
        what: &str,
        kinds: &[&str],
    ) -> Option<(&'n str, &'n [(Key, Node)])> {
        let entries = self.mapping(node, pointer, what)?;
        let Some((_, kind_node)) = entries.iter().find(|(k, _)| k.text == "kind") else {
            self.push(
                Code::MissingField,
                format!("missing field `kind` in {what}"),
                node.span,
                pointer,
                Some(format!("add `kind:` with one of {}", words::names(kinds))),
            );
            return None;
        };
        let kp = pointer_push(pointer, "kind");
        let NodeValue::String(kind) = &kind_node.value else {
            self.invalid_type(kind_node, &kp, "a string", "`kind`");
            return None;
        };
        if !kinds.contains(&kind.as_str()) {
            self.unknown_variant(
                kind_node,
                &kp,
                kind,
                &format!(
                    "{} kind",
                    what.trim_start_matches("a ").trim_start_matches("an ")
                ),
                kinds,
            );
            return None;
        }
        Some((kind.as_str(), entries))
    }

    fn content_node(&mut self, node: &Node, pointer: &str) -> Option<ContentNode> {
        let (kind, _) = self.kind(node, pointer, "a content node", NODE_KINDS)?;
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
                let expression = obj.get("expression").and_then(|(n, p)| self.expr(n, &p));
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
                let condition = obj.get("condition").and_then(|(n, p)| self.expr(n, &p));
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
                let collection = obj.get("collection").and_then(|(n, p)| self.expr(n, &p));
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
                    Some((n, p)) => self.expr_map(n, &p),
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

    fn expr_map(&mut self, node: &Node, pointer: &str) -> Option<OrderedMap<Expr>> {
        let entries = self.mapping(node, pointer, "`with`")?;
        let mut out = Vec::with_capacity(entries.len());
        let mut ok = true;
        for (key, value) in entries {
            match self.expr(value, &pointer_push(pointer, &key.text)) {
                Some(e) => out.push((key.text.clone(), e)),
                None => ok = false,
            }
        }
        ok.then_some(OrderedMap(out))
    }

    pub(super) fn expr(&mut self, node: &Node, pointer: &str) -> Option<Expr> {
        let (kind, _) = self.kind(node, pointer, "an expression", EXPR_KINDS)?;
        let what = format!("a `{kind}` expression");
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
                let left = obj.get("left").and_then(|(n, p)| self.expr(n, &p));
                let right = obj.get("right").and_then(|(n, p)| self.expr(n, &p));
                ExprKind::Equals {
                    left: Box::new(left?),
                    right: Box::new(right?),
                }
            }
            "not" => {
                let obj = self.object(node, pointer, &what, &["kind", "operand"], &["operand"])?;
                let operand = obj.get("operand").and_then(|(n, p)| self.expr(n, &p))?;
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
                let left = obj.get("left").and_then(|(n, p)| self.expr(n, &p));
                let right = obj.get("right").and_then(|(n, p)| self.expr(n, &p));
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
                let container = obj.get("container").and_then(|(n, p)| self.expr(n, &p));
                let item = obj.get("item").and_then(|(n, p)| self.expr(n, &p));
                ExprKind::Contains {
                    container: Box::new(container?),
                    item: Box::new(item?),
                }
            }
            "length" => {
                let obj = self.object(node, pointer, &what, &["kind", "of"], &["of"])?;
                let of = obj.get("of").and_then(|(n, p)| self.expr(n, &p))?;
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
                    Some((n, p)) => self.expr_map(n, &p),
                };
                let pass = obj.get("pass").and_then(|(n, p)| self.expr(n, &p));
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
                    match self.expr(item, &pointer_push(&p, &i.to_string())) {
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
