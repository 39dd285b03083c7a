//! Model-graded checks (`docs/format.md`, "Model-graded checks"): an
//! `expect` check of `kind: judge` names another contract of the package,
//! gives its inputs as expressions over the judged fixture (`with`), and
//! decides with a boolean expression over the judge's output (`pass`).
//!
//! The package resolves the judge before the contract is checked
//! ([`dto::JudgeResolution`], set by the loader): here the resolution is
//! reported when it is not a compiled judge (`TQX_JUDGE_UNRESOLVED`,
//! `TQX_JUDGE_CYCLE`), each `with` expression is lowered as a check operand
//! and fitted to the judge's declared input (`TQX_JUDGE_INPUT`), and `pass`
//! is lowered in [`Place::Pass`], where `judge` is a root scope typed by
//! the judge's `output_schema`.

use super::{CHECK, Lowerer};
use crate::check::types::Ty;
use crate::check::{Cx, Decls};
use crate::dto::{self, ExprKind, JudgeResolution};
use templiqx_contracts::expr::Place;
use templiqx_contracts::{Code, Interaction, Schema, Seq, Str, ir, words};

/// What a `with` expression is called in diagnostics.
const WITH: &str = "a judge's `with`";

/// What a `pass` expression is called in diagnostics.
const PASS: &str = "the `pass` of a model-graded check";

/// Lowers the model-graded check `decl` (its `check` is a `judge`): `None`
/// when it has an error. `output` and `case` are the judged contract's, as
/// for every check ([`super::expectations`]).
pub(super) fn check(
    cx: &mut Cx<'_>,
    decls: &Decls<'_>,
    output: Option<&Schema>,
    case: Option<Option<&Schema>>,
    decl: &dto::ExpectDecl,
) -> Option<ir::Check> {
    let ExprKind::Judge {
        contract,
        with,
        pass,
        resolved,
    } = &decl.check.kind
    else {
        return None;
    };
    let before = cx.diags.len();
    let loc = &decl.check.loc;
    let judge = resolve(cx, decl, contract, resolved.as_ref());
    let output = output.map_or(Ty::Error, Ty::Schema);
    let case = case.map(|c| c.map_or(Ty::Error, Ty::Schema));
    let mut inputs = Vec::with_capacity(with.len());
    for (name, e) in with.iter() {
        let mut lw = Lowerer {
            output: Some(output),
            case,
            ..Lowerer::new(&mut *cx, decls, Place::Check)
        };
        lw.allowed_at(e, WITH, false);
        let (value, ty) = lw.expr(e);
        if let Some(judge) = judge {
            lw.fit_input(contract, judge, name, e, ty);
        }
        inputs.push(ir::JudgeInput {
            name: Str::Owned(name.to_owned()),
            value,
        });
    }
    if let Some(judge) = judge {
        required(cx, decl, contract, judge, with);
    }
    let mut lw = Lowerer {
        output: Some(output),
        case,
        judge: Some(judge.map_or(Ty::Error, |j| Ty::Schema(&j.output_schema))),
        ..Lowerer::new(&mut *cx, decls, Place::Pass)
    };
    lw.allowed(pass, PASS);
    let (expr, ty) = lw.expr(pass);
    lw.expect_bool(ty, pass, CHECK);
    (cx.diags.len() == before).then(|| ir::Check {
        id: Str::Owned(decl.id.clone()),
        description: decl.description.clone().map(Str::Owned),
        source: Str::Owned(format!(
            "judge({contract}, {})",
            templiqx_contracts::expect::source_text(&expr)
        )),
        expr,
        site: cx.site_of(loc),
        judge: Some(ir::Judge {
            contract: Str::Owned(contract.clone()),
            with: Seq::Owned(inputs),
        }),
    })
}

/// The compiled judge, or the diagnostic of why there is none.
fn resolve<'r>(
    cx: &mut Cx<'_>,
    decl: &dto::ExpectDecl,
    contract: &str,
    resolved: Option<&'r JudgeResolution>,
) -> Option<&'r Interaction> {
    let at = decl.check.loc.child("contract");
    let id = &decl.id;
    match resolved {
        Some(JudgeResolution::Compiled(judge)) => return Some(judge),
        None => cx.err(
            Code::JudgeUnresolved,
            format!("judge contract `{contract}` of check `{id}` cannot be resolved without the contract's package"),
            &at,
            "compile the contract in its package (`templiqx check DIR`, `Builder::package`): a judge is another contract the package lists",
        ),
        Some(JudgeResolution::Unlisted(listed)) => {
            let names: Vec<&str> = listed.iter().map(String::as_str).collect();
            cx.err(
                Code::JudgeUnresolved,
                format!("check `{id}` is judged by `{contract}`, a contract the package does not list"),
                &at,
                words::did_you_mean(contract, &names, "a judge is a contract of the same package; it lists "),
            );
            let fix = words::replacement(contract, &names, "");
            cx.suggest(cx.sources.fix_whole(&at, false, fix));
        }
        // The judge fails for a reason this contract already reports (a
        // target without a capability both require): no second report.
        Some(JudgeResolution::Failed { first, .. })
            if cx.diags.iter().any(|d| {
                d.is_error() && first.strip_prefix(d.code.as_str()).is_some_and(|r| r.starts_with(':'))
            }) => {}
        Some(JudgeResolution::Failed { file, first }) => cx.err(
            Code::JudgeUnresolved,
            format!("judge contract `{contract}` of check `{id}` does not compile for the target"),
            &at,
            format!("fix the judge first ({file}): {first}"),
        ),
        Some(JudgeResolution::Cycle(chain)) => cx.err(
            Code::JudgeCycle,
            format!(
                "check `{id}` is judged by `{contract}`, and judges form a cycle: {}",
                chain.join(" → ")
            ),
            &at,
            "a contract cannot be judged by itself, directly or through the checks of its judges; judge it with a contract whose checks do not lead back to it",
        ),
    }
    None
}

/// The judge's required inputs that `with` does not give, and the context
/// it requires (a judge check gives inputs only): `TQX_JUDGE_INPUT`.
fn required(
    cx: &mut Cx<'_>,
    decl: &dto::ExpectDecl,
    contract: &str,
    judge: &Interaction,
    with: &dto::OrderedMap<dto::Expr>,
) {
    let at = if with.is_empty() {
        decl.check.loc.clone()
    } else {
        decl.check.loc.child("with")
    };
    for f in judge.inputs.iter().filter(|f| f.required) {
        if !with.iter().any(|(n, _)| n == &*f.name) {
            cx.err(
                Code::JudgeInput,
                format!(
                    "check `{}` gives judge `{contract}` no `{}`, a required input",
                    decl.id, f.name
                ),
                &at,
                format!(
                    "add `{}` to `with`, as an expression over `inputs`, `context` or `output`",
                    f.name
                ),
            );
        }
    }
    for f in judge.context.iter().filter(|f| f.required) {
        cx.err(
            Code::JudgeInput,
            format!(
                "judge `{contract}` of check `{}` requires context `{}`, which a judge check cannot give",
                decl.id, f.name
            ),
            &decl.check.loc.child("contract"),
            format!("a judge reads what it needs through `inputs`: declare `{}` as an input of the judge, or make it optional", f.name),
        );
    }
}

impl Lowerer<'_, '_, '_> {
    /// Fits the `with` expression `e` (of type `ty`) to the judge's input
    /// `name`: an input the judge declares (`TQX_JUDGE_INPUT` with a
    /// suggestion otherwise), whose schema accepts every value of `ty` (a
    /// literal: the value itself).
    fn fit_input(
        &mut self,
        contract: &str,
        judge: &Interaction,
        name: &str,
        e: &dto::Expr,
        ty: Ty<'_>,
    ) {
        let Some(field) = judge.inputs.iter().find(|f| &*f.name == name) else {
            let names: Vec<&str> = judge.inputs.iter().map(|f| &*f.name).collect();
            self.err(
                Code::JudgeInput,
                format!("judge `{contract}` declares no input `{name}`"),
                &e.loc,
                words::did_you_mean(name, &names, "its inputs: "),
            );
            return;
        };
        let (_, ok) = super::fit(e, ty, &field.schema);
        if !ok {
            self.err(
                Code::JudgeInput,
                format!(
                    "input `{name}` of judge `{contract}` is {}, but `{}` is {}",
                    Ty::Schema(&field.schema).describe(),
                    super::expr_text(e),
                    ty.describe()
                ),
                &e.loc,
                "give the judge a value of the type its input declares (the judge's `inputs`), or change the judge's declaration",
            );
        }
    }
}
