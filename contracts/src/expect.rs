//! Eval checks (`docs/format.md`, "Eval fixtures"): evaluating a compiled
//! [`Check`] of a fixture's `expect` against the fixture's inputs and
//! context and a model output.
//!
//! Evaluation never executes code: it walks the expression with the
//! renderer's evaluator ([`expr`]), over the check's scopes, with the
//! operators the renderer shares ([`compare`], [`contains`], [`length`],
//! defined beside the evaluator and re-exported here, as is
//! [`source_text`]).
//! A check is `Ok(true)` or `Ok(false)`; it is an error only when it
//! cannot be decided: a reference to an absent value (an optional output
//! property the output leaves out, an index out of range) is
//! `TQX_VALUE_MISSING`, as in rendering, and a value of the wrong type
//! (possible only for an output that was not validated first, or a
//! hand-built check) is `TQX_TYPE_MISMATCH`. `and`/`or` stop early, so an
//! operand after the deciding one is not evaluated.
//!
//! ```
//! use templiqx_contracts::expect::evaluate_check;
//! use templiqx_contracts::ir::{Check, CompareOp, Expr, Path, Root, Segment};
//! use templiqx_contracts::{AsValue, IrValue, Number, Ptr, Seq};
//!
//! // `compare(ge, output.score, 0.5)`, as the compiler lowers it.
//! let check = Check {
//!     id: "confident".into(),
//!     description: None,
//!     expr: Expr::Compare(
//!         CompareOp::Ge,
//!         Ptr::from(Expr::Ref(Path {
//!             root: Root::Output,
//!             segments: Seq::Owned(vec![Segment::Key("score".into())]),
//!             source: "output.score".into(),
//!         })),
//!         Ptr::from(Expr::Literal(IrValue::Number(Number::F64(0.5)))),
//!     ),
//!     source: "compare(ge, output.score, 0.5)".into(),
//!     site: None,
//!     judge: None,
//! };
//! let none = serde_json::Map::new();
//! let output = serde_json::json!({ "score": 0.93 });
//! assert_eq!(evaluate_check(&check, &none, &none, output.as_value()), Ok(true));
//!
//! let low = serde_json::json!({ "score": 0.2 });
//! assert_eq!(evaluate_check(&check, &none, &none, low.as_value()), Ok(false));
//!
//! let absent = serde_json::json!({});
//! let error = evaluate_check(&check, &none, &none, absent.as_value()).unwrap_err();
//! assert_eq!(error.code.as_str(), "TQX_VALUE_MISSING");
//! ```

use crate::canonical::write_canonical;
use crate::expr::{self, Failure, Scope};
use crate::ir::{Check, Expr, Path, Root};
use crate::value::{ObjectView, ValueRef};
use crate::{Code, Diagnostic, words};
use std::fmt::Write as _;

pub use crate::expr::{compare, contains, length, source_text};

/// Evaluates `check` against an eval's `inputs` and `context` and a model
/// `output` (validated against the output schema first, as
/// `decode_output` does: the compiler typed the check against it).
///
/// # Errors
/// One diagnostic when the check cannot be decided: `TQX_VALUE_MISSING`
/// for a reference to an absent value, `TQX_TYPE_MISMATCH` for a value of
/// a type the operator does not take. It points at the check in the
/// contract when the check knows its site, with the value's place
/// (`/output/…`, `/inputs/…`) as the first note.
pub fn evaluate_check(
    check: &Check,
    inputs: &dyn ObjectView,
    context: &dyn ObjectView,
    output: ValueRef<'_>,
) -> Result<bool, Diagnostic> {
    evaluate_check_with_case(check, inputs, context, None, output)
}

/// [`evaluate_check`] for a check that may read `case`: the expected data
/// of the dataset row being evaluated (`docs/format.md`, "Datasets"),
/// `None` for an inline fixture (a `case.…` reference is then
/// `TQX_VALUE_MISSING`).
///
/// # Errors
/// As [`evaluate_check`].
pub fn evaluate_check_with_case(
    check: &Check,
    inputs: &dyn ObjectView,
    context: &dyn ObjectView,
    case: Option<ValueRef<'_>>,
    output: ValueRef<'_>,
) -> Result<bool, Diagnostic> {
    let scopes = Scopes {
        inputs,
        context,
        case,
        output,
        judge: None,
    };
    expr::boolean(&scopes, &check.expr, "an `expect` check").map_err(|d| locate(*d, check))
}

/// The inputs of the judge of a model-graded check (`kind: judge`;
/// `docs/format.md`, "Model-graded checks"): each `with` expression
/// evaluated over the judged execution's `inputs`, `context`, `case` and
/// `output`, as a JSON object to render the judge contract with. `None`
/// for a check that is not model-graded.
///
/// # Errors
/// As [`evaluate_check`], for a `with` expression that cannot be
/// evaluated (`TQX_VALUE_MISSING` for an absent value).
pub fn judge_inputs(
    check: &Check,
    inputs: &dyn ObjectView,
    context: &dyn ObjectView,
    case: Option<ValueRef<'_>>,
    output: ValueRef<'_>,
) -> Option<Result<serde_json::Map<String, serde_json::Value>, Diagnostic>> {
    let judge = check.judge.as_ref()?;
    let scopes = Scopes {
        inputs,
        context,
        case,
        output,
        judge: None,
    };
    let mut out = serde_json::Map::new();
    for input in judge.with.iter() {
        match expr::eval(&scopes, &input.value) {
            Ok(v) => {
                out.insert(input.name.to_string(), v.to_json());
            }
            Err(d) => {
                let d = (*d).note(format!("in the judge's input `{}`", input.name));
                return Some(Err(locate(d, check)));
            }
        }
    }
    Some(Ok(out))
}

/// Evaluates the `pass` expression of a model-graded check against the
/// judged execution and `judge`, the judge contract's output (validated
/// against its `output_schema` first; `docs/format.md`, "Model-graded
/// checks"). For a check that is not model-graded, `judge` is not read
/// and this is [`evaluate_check_with_case`].
///
/// # Errors
/// As [`evaluate_check`].
pub fn evaluate_judged(
    check: &Check,
    inputs: &dyn ObjectView,
    context: &dyn ObjectView,
    case: Option<ValueRef<'_>>,
    output: ValueRef<'_>,
    judge: ValueRef<'_>,
) -> Result<bool, Diagnostic> {
    let scopes = Scopes {
        inputs,
        context,
        case,
        output,
        judge: Some(judge),
    };
    expr::boolean(&scopes, &check.expr, "an `expect` check").map_err(|d| locate(*d, check))
}

/// [`observed_values_with_case`] for the `pass` expression of a
/// model-graded check, with the judge's output (see [`evaluate_judged`]).
pub fn observed_values_judged(
    check: &Check,
    inputs: &dyn ObjectView,
    context: &dyn ObjectView,
    case: Option<ValueRef<'_>>,
    output: ValueRef<'_>,
    judge: ValueRef<'_>,
) -> Vec<Observed> {
    let scopes = Scopes {
        inputs,
        context,
        case,
        output,
        judge: Some(judge),
    };
    let mut out = Vec::new();
    scopes.observe(&check.expr, &mut out);
    out
}

/// A value a check reads, for failure reports: each reference and each
/// `length` of the check, in the order written, once each.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Observed {
    /// The expression as written (`output.score`, `length(output.items)`).
    pub expression: String,
    /// Its value as canonical JSON; `None` when it has none (absent, or
    /// below a value of the wrong type).
    pub value: Option<String>,
}

/// The values `check` reads from `inputs`, `context` and `output`
/// ([`Observed`]), so a failed check can say what it compared.
pub fn observed_values(
    check: &Check,
    inputs: &dyn ObjectView,
    context: &dyn ObjectView,
    output: ValueRef<'_>,
) -> Vec<Observed> {
    observed_values_with_case(check, inputs, context, None, output)
}

/// [`observed_values`] for a check that may read a dataset row's `case`
/// (see [`evaluate_check_with_case`]).
pub fn observed_values_with_case(
    check: &Check,
    inputs: &dyn ObjectView,
    context: &dyn ObjectView,
    case: Option<ValueRef<'_>>,
    output: ValueRef<'_>,
) -> Vec<Observed> {
    let scopes = Scopes {
        inputs,
        context,
        case,
        output,
        judge: None,
    };
    let mut out = Vec::new();
    scopes.observe(&check.expr, &mut out);
    out
}

/// A one-line account of a check that did not pass: its id, its source,
/// what it read, and why it failed (`outcome`: `Ok(false)` or the error).
pub fn describe_failure(
    check: &Check,
    outcome: &Result<bool, Diagnostic>,
    observed: &[Observed],
) -> String {
    let mut text = format!("check `{}` failed: {}", check.id, check.source);
    if let Some(d) = &check.description {
        let _ = write!(text, " ({d})");
    }
    if let Err(e) = outcome {
        let _ = write!(text, "\n  error[{}]: {}", e.code.as_str(), e.message);
    }
    for o in observed {
        match &o.value {
            Some(v) => {
                let _ = write!(text, "\n  {} = {}", o.expression, words::truncate(v));
            }
            None => {
                let _ = write!(text, "\n  {} has no value", o.expression);
            }
        }
    }
    text
}

type Fail = Box<Diagnostic>;

/// A check's scope: the fixture's `inputs` and `context`, a dataset
/// row's `case` (when it has one), the model `output`; no locals.
struct Scopes<'a> {
    inputs: &'a dyn ObjectView,
    context: &'a dyn ObjectView,
    case: Option<ValueRef<'a>>,
    output: ValueRef<'a>,
    /// The judge contract's output, in the `pass` expression of a
    /// model-graded check evaluated by an eval run.
    judge: Option<ValueRef<'a>>,
}

impl<'a> Scope<'a> for Scopes<'a> {
    type Error = Fail;

    fn root(&self, path: &'a Path) -> Result<ValueRef<'a>, Fail> {
        match path.root {
            Root::Inputs => Ok(ValueRef::Object(self.inputs)),
            Root::Context => Ok(ValueRef::Object(self.context)),
            Root::Output => Ok(self.output),
            Root::Case => self.case.ok_or_else(|| {
                Box::new(
                    Diagnostic::error(
                        Code::ValueMissing,
                        format!(
                            "`{}` reads `case`, but the fixture is not a dataset row",
                            path.source
                        ),
                    )
                    .help("`case` holds a dataset row's expected data; evaluate the check with the row's `case`"),
                )
            }),
            Root::Judge => self.judge.ok_or_else(|| {
                Box::new(
                    Diagnostic::error(
                        Code::ValueMissing,
                        format!(
                            "`{}` reads `judge`, the output of the check's judge contract, \
                             which only an eval run that executes the judge has",
                            path.source
                        ),
                    )
                    .help("model-graded checks are evaluated by `templiqx eval`, which renders and executes the judge contract"),
                )
            }),
            Root::Local(slot) => Err(Box::new(
                Diagnostic::error(
                    Code::ValueMissing,
                    format!(
                        "`{}` refers to local slot {slot}, but a check has no locals \
                         (malformed check)",
                        path.source
                    ),
                )
                .help("regenerate the check with the compiler"),
            )),
        }
    }

    /// The diagnostic, with the value's place (`/output/…`) as its pointer:
    /// where the value is missing, the value a segment cannot step into,
    /// the operand of the wrong type.
    fn fail(&self, failure: Failure<'_>) -> Fail {
        let (pointer, help) = match &failure {
            Failure::Missing { path, count, .. } => {
                (Some(expr::pointer(path, *count)), MISSING_HELP)
            }
            Failure::Step { path, index, .. } => (Some(expr::pointer(path, *index)), TYPE_HELP),
            Failure::Operand { expr, .. } => (
                match expr {
                    Expr::Ref(path) => Some(expr::pointer(path, path.segments.len())),
                    _ => None,
                },
                TYPE_HELP,
            ),
        };
        let mut d = Diagnostic::error(failure.code(), failure.into_message()).help(help);
        d.json_pointer = pointer;
        Box::new(d)
    }
}

impl<'a> Scopes<'a> {
    fn observe(&self, expr: &'a Expr, out: &mut Vec<Observed>) {
        let mut record = |expression: String, value: Option<ValueRef<'_>>| {
            if !out.iter().any(|o| o.expression == expression) {
                let value = value.map(|v| {
                    let mut s = String::new();
                    let _ = write_canonical(v, &mut s);
                    s
                });
                out.push(Observed { expression, value });
            }
        };
        match expr {
            Expr::Ref(path) => record(path.source.to_string(), expr::resolve(self, path).ok()),
            Expr::Literal(_) => {}
            Expr::Length(of) => {
                record(
                    format!("length({})", source_text(of)),
                    expr::eval(self, expr).ok(),
                );
                self.observe(of, out);
            }
            Expr::Not(operand) => self.observe(operand, out),
            Expr::Equals(l, r) | Expr::Compare(_, l, r) | Expr::Contains(l, r) => {
                self.observe(l, out);
                self.observe(r, out);
            }
            Expr::And(operands) | Expr::Or(operands) => {
                operands.iter().for_each(|o| self.observe(o, out));
            }
        }
    }
}

const TYPE_HELP: &str = "check the value against `output_schema` (or the declarations) first; \
                         the compiler typed the check against them";

const MISSING_HELP: &str = "a check reads only values that are there: make the property required in \
                            `output_schema` (nullable if it may be empty, tested with \
                            `equals(ref, null)`), or check it in a fixture whose output has it";

/// Points a diagnostic at the check's site (when known), its value's
/// pointer moving to the first note, and names the check.
fn locate(mut d: Diagnostic, check: &Check) -> Diagnostic {
    if let Some(site) = &check.site {
        if let Some(value) = d.json_pointer.take() {
            d.notes.insert(0, format!("the value is at `{value}`"));
        }
        d.file = Some(site.file.to_string());
        d.json_pointer = Some(site.pointer.to_string());
        d.span = Some(site.span);
    }
    d.note(format!("in check `{}`: {}", check.id, check.source))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Check, CompareOp, Segment};
    use crate::seq::{Ptr, Seq};
    use crate::value::{AsValue, IrValue};
    use serde_json::json;

    fn out(path: &[&str]) -> Expr {
        Expr::Ref(Path {
            root: Root::Output,
            segments: Seq::Owned(
                path.iter()
                    .map(|s| match s.parse::<u32>() {
                        Ok(i) => Segment::Index(i),
                        Err(_) => Segment::Key((*s).to_owned().into()),
                    })
                    .collect(),
            ),
            source: format!("output.{}", path.join(".")).into(),
        })
    }

    fn lit(v: serde_json::Value) -> Expr {
        Expr::Literal(IrValue::from_json(&v))
    }

    fn check(expr: Expr) -> Check {
        let source = source_text(&expr);
        Check {
            id: "c".into(),
            description: None,
            expr,
            source: source.into(),
            site: None,
            judge: None,
        }
    }

    fn run(expr: Expr, output: serde_json::Value) -> Result<bool, Diagnostic> {
        let none = serde_json::Map::new();
        evaluate_check(&check(expr), &none, &none, output.as_value())
    }

    #[test]
    fn operators_follow_their_documented_semantics() {
        let o = json!({"n": 3, "s": "naïve text", "a": [1, {"k": 2}], "e": []});
        let ge = |l, r| Expr::Compare(CompareOp::Ge, Ptr::from(l), Ptr::from(r));
        assert_eq!(run(ge(out(&["n"]), lit(json!(3.0))), o.clone()), Ok(true));
        assert_eq!(
            run(
                Expr::Compare(
                    CompareOp::Lt,
                    Ptr::from(out(&["n"])),
                    Ptr::from(lit(json!(3)))
                ),
                o.clone()
            ),
            Ok(false)
        );
        let contains = |c, i| Expr::Contains(Ptr::from(c), Ptr::from(i));
        assert_eq!(
            run(contains(out(&["s"]), lit(json!("ïve"))), o.clone()),
            Ok(true)
        );
        assert_eq!(
            run(contains(out(&["s"]), lit(json!(""))), o.clone()),
            Ok(true)
        );
        assert_eq!(
            run(contains(out(&["a"]), lit(json!(1.0))), o.clone()),
            Ok(true)
        );
        assert_eq!(
            run(contains(out(&["a"]), lit(json!({"k": 2}))), o.clone()),
            Ok(true)
        );
        assert_eq!(
            run(contains(out(&["a"]), lit(json!("1"))), o.clone()),
            Ok(false)
        );
        let len = |e| Expr::Length(Ptr::from(e));
        // "naïve text" is 10 scalar values (11 bytes).
        assert_eq!(
            run(
                Expr::Equals(Ptr::from(len(out(&["s"]))), Ptr::from(lit(json!(10)))),
                o.clone()
            ),
            Ok(true)
        );
        assert_eq!(
            run(
                Expr::Equals(Ptr::from(len(out(&["e"]))), Ptr::from(lit(json!(0)))),
                o.clone()
            ),
            Ok(true)
        );
        assert_eq!(
            run(ge(len(out(&["a"])), lit(json!(2))), o.clone()),
            Ok(true)
        );
        assert_eq!(
            run(ge(out(&["a", "1", "k"]), lit(json!(2))), o.clone()),
            Ok(true)
        );
    }

    #[test]
    fn an_absent_value_is_value_missing_and_and_stops_early() {
        let o = json!({"n": 1});
        let missing = Expr::Equals(Ptr::from(out(&["gone"])), Ptr::from(lit(json!(1))));
        let d = run(missing.clone(), o.clone()).unwrap_err();
        assert_eq!(d.code, Code::ValueMissing);
        assert_eq!(d.json_pointer.as_deref(), Some("/output/gone"));
        assert!(d.message.contains("key `gone` is absent"), "{}", d.message);
        // `and` stops at the first false: the absent value is not read.
        let guarded = Expr::And(Seq::Owned(vec![lit(json!(false)), missing]));
        assert_eq!(run(guarded, o), Ok(false));
    }

    #[test]
    fn wrong_types_are_type_mismatches_not_panics() {
        let o = json!({"s": "x", "n": 1});
        let d = run(out(&["s"]), o.clone()).unwrap_err();
        assert_eq!(d.code, Code::TypeMismatch);
        let d = run(
            Expr::Compare(
                CompareOp::Gt,
                Ptr::from(out(&["s"])),
                Ptr::from(lit(json!(1))),
            ),
            o.clone(),
        )
        .unwrap_err();
        assert_eq!(d.code, Code::TypeMismatch);
        assert!(
            d.message.contains("`output.s` is a string"),
            "{}",
            d.message
        );
        let d = run(
            Expr::Contains(Ptr::from(out(&["n"])), Ptr::from(lit(json!(1)))),
            o.clone(),
        )
        .unwrap_err();
        assert_eq!(d.code, Code::TypeMismatch);
        let d = run(Expr::Length(Ptr::from(out(&["n"]))), o).unwrap_err();
        assert_eq!(d.code, Code::TypeMismatch);
    }

    #[test]
    fn a_failure_names_the_check_its_source_and_the_values_it_read() {
        let expr = Expr::Compare(
            CompareOp::Ge,
            Ptr::from(Expr::Length(Ptr::from(out(&["items"])))),
            Ptr::from(lit(json!(3))),
        );
        let c = check(expr);
        assert_eq!(&*c.source, "compare(ge, length(output.items), 3)");
        let none = serde_json::Map::new();
        let o = json!({"items": ["a"]});
        let outcome = evaluate_check(&c, &none, &none, o.as_value());
        assert_eq!(outcome, Ok(false));
        let observed = observed_values(&c, &none, &none, o.as_value());
        let text = describe_failure(&c, &outcome, &observed);
        assert_eq!(
            text,
            "check `c` failed: compare(ge, length(output.items), 3)\n  length(output.items) = 1\n  output.items = [\"a\"]"
        );
    }
}
