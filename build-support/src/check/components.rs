//! Component graph analysis (`docs/format.md`, "Components"): the
//! signatures callers and bodies see (typed parameters, or the inferred
//! required strings of a legacy component), the static `for_each` depth of
//! each body following calls, and call cycles (`TQX_COMPONENT_CYCLE`).

use super::types::Ty;
use super::{Cx, is_reserved, reserved_list};
use crate::dto::{self, ComponentDecl, ContentNode, Contract, ExprKind, Loc, NodeKind};
use templiqx_contracts::diagnostic::pointer_push;
use templiqx_contracts::{Code, Schema};

/// A component's parameters as seen by callers and by its body.
pub(super) struct Signature {
    pub(super) legacy: bool,
    pub(super) params: Vec<Param>,
}

/// A parameter of a [`Signature`].
pub(super) struct Param {
    pub(super) name: String,
    pub(super) schema: Option<Schema>,
    pub(super) required: bool,
    legacy: bool,
}

impl Param {
    /// The parameter's type inside the component body.
    pub(super) fn ty(&self) -> Ty<'_> {
        if self.legacy {
            Ty::Legacy
        } else {
            match &self.schema {
                Some(s) => Ty::Schema(s),
                None => Ty::Error,
            }
        }
    }
}

impl Cx<'_> {
    /// The signature of each component, in declaration order; reports
    /// parameters named like a root scope (`TQX_LOCAL_RESERVED`) or that
    /// cannot be referenced (`TQX_INVALID_VALUE`).
    pub(super) fn component_signatures(&mut self, contract: &Contract) -> Vec<Signature> {
        let file = contract.loc.file;
        contract
            .components
            .iter()
            .map(|(name, decl)| {
                let loc = Loc::new(file, pointer_push("/components", name));
                match decl {
                    ComponentDecl::Typed { parameters, .. } => {
                        let ploc = loc.child("parameters");
                        let params = parameters
                            .iter()
                            .map(|(pname, p)| {
                                let l = ploc.child(pname);
                                if is_reserved(pname) {
                                    self.err(
                                        Code::LocalReserved,
                                        format!("component parameter `{pname}` collides with the root scope `{pname}`"),
                                        &l,
                                        format!("rename the parameter; {} are reserved", reserved_list()),
                                    );
                                } else {
                                    self.check_name(pname, &l, "parameter");
                                }
                                Param {
                                    name: pname.to_owned(),
                                    schema: self.schema(&p.schema, &l.child("schema")),
                                    required: p.required,
                                    legacy: false,
                                }
                            })
                            .collect();
                        Signature { legacy: false, params }
                    }
                    ComponentDecl::Legacy(body) => {
                        let mut names = Vec::new();
                        legacy_params(body, &mut Vec::new(), &mut names);
                        Signature {
                            legacy: true,
                            params: names
                                .into_iter()
                                .map(|name| Param { name, schema: None, required: true, legacy: true })
                                .collect(),
                        }
                    }
                }
            })
            .collect()
    }

    /// Reports each component call that closes a cycle (`TQX_COMPONENT_CYCLE`).
    pub(super) fn component_cycles(&mut self, contract: &Contract) {
        let names: Vec<&str> = contract.components.iter().map(|(n, _)| n).collect();
        let calls: Vec<Vec<(usize, Loc)>> = contract
            .components
            .iter()
            .map(|(_, d)| {
                let mut out = Vec::new();
                collect_calls(component_body(d), &names, &mut out);
                out
            })
            .collect();
        // Colour-marking DFS; a back edge is a cycle.
        #[derive(Clone, Copy, PartialEq)]
        enum Mark {
            New,
            Active,
            Done,
        }
        fn visit(
            i: usize,
            calls: &[Vec<(usize, Loc)>],
            marks: &mut [Mark],
            stack: &mut Vec<usize>,
            found: &mut Vec<(Loc, Vec<usize>)>,
        ) {
            marks[i] = Mark::Active;
            stack.push(i);
            for (j, loc) in &calls[i] {
                match marks[*j] {
                    Mark::New => visit(*j, calls, marks, stack, found),
                    Mark::Active => {
                        let start = stack.iter().position(|s| s == j).unwrap_or(0);
                        let mut chain = stack[start..].to_vec();
                        chain.push(*j);
                        found.push((loc.clone(), chain));
                    }
                    Mark::Done => {}
                }
            }
            stack.pop();
            marks[i] = Mark::Done;
        }
        let mut marks = vec![Mark::New; names.len()];
        let mut found = Vec::new();
        for i in 0..names.len() {
            if marks[i] == Mark::New {
                visit(i, &calls, &mut marks, &mut Vec::new(), &mut found);
            }
        }
        for (loc, chain) in found {
            let chain: Vec<&str> = chain.iter().map(|i| names[*i]).collect();
            self.err(
                Code::ComponentCycle,
                format!(
                    "components call each other in a cycle: {}",
                    chain.join(" → ")
                ),
                &loc,
                "break the cycle; a component cannot (indirectly) invoke itself",
            );
        }
    }
}

pub(super) fn component_body(decl: &ComponentDecl) -> &[ContentNode] {
    match decl {
        ComponentDecl::Typed { content, .. } | ComponentDecl::Legacy(content) => content,
    }
}

fn children(node: &ContentNode) -> impl Iterator<Item = &ContentNode> {
    let (a, b): (&[ContentNode], &[ContentNode]) = match &node.kind {
        NodeKind::When {
            then, otherwise, ..
        } => (then, otherwise),
        NodeKind::ForEach { body, .. } => (body, &[]),
        _ => (&[], &[]),
    };
    a.iter().chain(b.iter())
}

fn collect_calls(nodes: &[ContentNode], names: &[&str], out: &mut Vec<(usize, Loc)>) {
    for node in nodes {
        if let NodeKind::Component { name, .. } = &node.kind
            && let Some(i) = names.iter().position(|n| n == name)
        {
            out.push((i, node.loc.clone()));
        }
        collect_calls_children(node, names, out);
    }
}

fn collect_calls_children(node: &ContentNode, names: &[&str], out: &mut Vec<(usize, Loc)>) {
    for child in children(node) {
        collect_calls(std::slice::from_ref(child), names, out);
    }
}

/// The static `for_each` nesting depth of each component body, following
/// calls (cycles are cut; they are reported separately).
pub(super) fn component_depths(contract: &Contract) -> Vec<usize> {
    let names: Vec<&str> = contract.components.iter().map(|(n, _)| n).collect();
    let bodies: Vec<&[ContentNode]> = contract
        .components
        .iter()
        .map(|(_, d)| component_body(d))
        .collect();
    fn depth(
        nodes: &[ContentNode],
        names: &[&str],
        bodies: &[&[ContentNode]],
        memo: &mut [Option<usize>],
        active: &mut Vec<usize>,
    ) -> usize {
        let mut max = 0;
        for node in nodes {
            let d = match &node.kind {
                NodeKind::ForEach { body, .. } => 1 + depth(body, names, bodies, memo, active),
                NodeKind::When {
                    then, otherwise, ..
                } => depth(then, names, bodies, memo, active)
                    .max(depth(otherwise, names, bodies, memo, active)),
                NodeKind::Component { name, .. } => match names.iter().position(|n| n == name) {
                    Some(i) => comp(i, names, bodies, memo, active),
                    None => 0,
                },
                _ => 0,
            };
            max = max.max(d);
        }
        max
    }
    fn comp(
        i: usize,
        names: &[&str],
        bodies: &[&[ContentNode]],
        memo: &mut [Option<usize>],
        active: &mut Vec<usize>,
    ) -> usize {
        if let Some(d) = memo[i] {
            return d;
        }
        if active.contains(&i) {
            return 0;
        }
        active.push(i);
        let d = depth(bodies[i], names, bodies, memo, active);
        active.pop();
        memo[i] = Some(d);
        d
    }
    let mut memo = vec![None; names.len()];
    (0..names.len())
        .map(|i| comp(i, &names, &bodies, &mut memo, &mut Vec::new()))
        .collect()
}

/// Infers a legacy component's parameters: the first segment of every
/// reference that is neither a root scope nor a `for_each` item bound inside
/// the body, in order of first use, each a required string
/// (`docs/format.md`, "Components", legacy form).
fn legacy_params(nodes: &[ContentNode], bound: &mut Vec<String>, out: &mut Vec<String>) {
    fn expr(e: &dto::Expr, bound: &[String], out: &mut Vec<String>) {
        match &e.kind {
            ExprKind::Ref { path } => {
                let first = path.split('.').next().unwrap_or_default();
                if !first.is_empty()
                    && !is_reserved(first)
                    && !bound.iter().any(|b| b == first)
                    && !out.iter().any(|o| o == first)
                {
                    out.push(first.to_owned());
                }
            }
            ExprKind::Literal { .. } => {}
            ExprKind::Equals { left, right }
            | ExprKind::Compare { left, right, .. }
            | ExprKind::Contains {
                container: left,
                item: right,
            } => {
                expr(left, bound, out);
                expr(right, bound, out);
            }
            ExprKind::Not { operand } | ExprKind::Length { of: operand } => {
                expr(operand, bound, out)
            }
            // Refused in content (`TQX_EXPR_KIND_NOT_ALLOWED`): a legacy
            // body infers no parameter from it.
            ExprKind::Judge { .. } | ExprKind::Refused { .. } => {}
            ExprKind::And { operands } | ExprKind::Or { operands } => {
                operands.iter().for_each(|o| expr(o, bound, out))
            }
        }
    }
    for node in nodes {
        match &node.kind {
            NodeKind::Interpolate { expression, .. } => expr(expression, bound, out),
            NodeKind::When {
                condition,
                then,
                otherwise,
            } => {
                expr(condition, bound, out);
                legacy_params(then, bound, out);
                legacy_params(otherwise, bound, out);
            }
            NodeKind::ForEach {
                collection,
                item,
                body,
                ..
            } => {
                expr(collection, bound, out);
                bound.push(item.clone());
                legacy_params(body, bound, out);
                bound.pop();
            }
            NodeKind::Component { with, .. } => with.iter().for_each(|(_, e)| expr(e, bound, out)),
            NodeKind::Text { .. } | NodeKind::Include { .. } => {}
        }
    }
}
