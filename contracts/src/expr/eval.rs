//! The walk of an expression over a [`Scope`], and its [`Failure`]s (see
//! [the module](super)).

use super::operators::{compare, contains, length};
use super::text::describe;
use crate::diagnostic::{Code, escape_pointer_token};
use crate::ir::{Expr, Path, Root, Segment};
use crate::value::{AsValue, ValueRef};
use crate::words;
use std::fmt::{self, Write as _};

/// The caller's side of an evaluation: where references start, and what a
/// failure becomes.
///
/// `'a` is the lifetime of the expression and of every value it reads.
pub trait Scope<'a> {
    /// What a failed evaluation returns.
    type Error;

    /// The value at the root of `path` (`inputs`, `context`, a local,
    /// `output`), before any of its segments; or the error for a root this
    /// scope does not have (`output` in a render, a local in a check).
    fn root(&self, path: &'a Path) -> Result<ValueRef<'a>, Self::Error>;

    /// The error for `failure` (its message is complete; the scope adds
    /// what only it knows, such as help and the value's pointer).
    fn fail(&self, failure: Failure<'_>) -> Self::Error;
}

/// Why an expression could not be evaluated, for [`Scope::fail`].
#[derive(Clone, Debug, PartialEq)]
pub enum Failure<'e> {
    /// `TQX_VALUE_MISSING`: a reference to a value that is not there (an
    /// absent key, an index out of range, a step into `null`).
    Missing {
        /// The reference.
        path: &'e Path,
        /// How many of its segments lead to the place that has no value:
        /// the segment that failed, or the one whose value is `null`.
        count: usize,
        /// "`inputs.a.b` has no value: key `b` is absent".
        message: String,
    },
    /// `TQX_TYPE_MISMATCH`: a segment of a reference is applied to a value
    /// it cannot step into (a key to an array, an index to a string).
    Step {
        /// The reference.
        path: &'e Path,
        /// The index of the segment that cannot be applied.
        index: usize,
        /// "`inputs.a.b` cannot be resolved: key `b` is applied to a string".
        message: String,
    },
    /// `TQX_TYPE_MISMATCH`: an operand's value has a type its operator or
    /// its place does not take.
    Operand {
        /// The operand.
        expr: &'e Expr,
        /// "`compare` needs two numbers, but `inputs.s` is a string".
        message: String,
    },
}

impl Failure<'_> {
    /// The code of the failure: `TQX_VALUE_MISSING` or `TQX_TYPE_MISMATCH`.
    pub fn code(&self) -> Code {
        match self {
            Failure::Missing { .. } => Code::ValueMissing,
            Failure::Step { .. } | Failure::Operand { .. } => Code::TypeMismatch,
        }
    }

    /// The message of the failure.
    pub fn message(&self) -> &str {
        match self {
            Failure::Missing { message, .. }
            | Failure::Step { message, .. }
            | Failure::Operand { message, .. } => message,
        }
    }

    /// The message of the failure, taken out of it.
    pub fn into_message(self) -> String {
        match self {
            Failure::Missing { message, .. }
            | Failure::Step { message, .. }
            | Failure::Operand { message, .. } => message,
        }
    }
}

/// The value of `expr` in `scope`. References (the common case) take an
/// inlined path; `and`/`or` stop at the deciding operand, so an operand
/// after it is not evaluated.
///
/// # Errors
/// The first failure, as [`Scope::fail`] makes it (or the error of
/// [`Scope::root`]).
#[inline]
pub fn eval<'a, S: Scope<'a> + ?Sized>(
    scope: &S,
    expr: &'a Expr,
) -> Result<ValueRef<'a>, S::Error> {
    match expr {
        Expr::Ref(path) => resolve(scope, path),
        _ => operator(scope, expr),
    }
}

/// The value of `expr`, which must be a boolean: `role` names its place in
/// the message otherwise ("the condition of `when`").
///
/// # Errors
/// As [`eval`], and [`Failure::Operand`] for a value that is not a
/// boolean.
pub fn boolean<'a, S: Scope<'a> + ?Sized>(
    scope: &S,
    expr: &'a Expr,
    role: &str,
) -> Result<bool, S::Error> {
    match eval(scope, expr)? {
        ValueRef::Bool(b) => Ok(b),
        other => Err(mismatch(
            scope,
            format_args!("{role} must be a boolean"),
            expr,
            other,
        )),
    }
}

fn operator<'a, S: Scope<'a> + ?Sized>(
    scope: &S,
    expr: &'a Expr,
) -> Result<ValueRef<'a>, S::Error> {
    Ok(match expr {
        Expr::Ref(path) => resolve(scope, path)?,
        Expr::Literal(value) => value.as_value(),
        Expr::Equals(left, right) => {
            let (l, r) = (eval(scope, left)?, eval(scope, right)?);
            ValueRef::Bool(l.json_eq(&r))
        }
        Expr::Not(operand) => ValueRef::Bool(!boolean(scope, operand, "the operand of `not`")?),
        Expr::And(operands) => {
            for operand in operands {
                if !boolean(scope, operand, "an operand of `and`")? {
                    return Ok(ValueRef::Bool(false));
                }
            }
            ValueRef::Bool(true)
        }
        Expr::Or(operands) => {
            for operand in operands {
                if boolean(scope, operand, "an operand of `or`")? {
                    return Ok(ValueRef::Bool(true));
                }
            }
            ValueRef::Bool(false)
        }
        Expr::Compare(op, left, right) => {
            let (l, r) = (eval(scope, left)?, eval(scope, right)?);
            match compare(*op, l, r) {
                Some(b) => ValueRef::Bool(b),
                None => {
                    let (bad, value) = if matches!(l, ValueRef::Number(_)) {
                        (&**right, r)
                    } else {
                        (&**left, l)
                    };
                    return Err(mismatch(
                        scope,
                        format_args!("`compare` needs two numbers"),
                        bad,
                        value,
                    ));
                }
            }
        }
        Expr::Contains(container, item) => {
            let (c, i) = (eval(scope, container)?, eval(scope, item)?);
            match contains(c, i) {
                Some(b) => ValueRef::Bool(b),
                None if matches!(c, ValueRef::String(_)) => {
                    return Err(mismatch(
                        scope,
                        format_args!("`contains` looks for a string in a string"),
                        item,
                        i,
                    ));
                }
                None => {
                    return Err(mismatch(
                        scope,
                        format_args!("`contains` needs a string or an array"),
                        container,
                        c,
                    ));
                }
            }
        }
        Expr::Length(of) => {
            let v = eval(scope, of)?;
            match length(v) {
                Some(n) => ValueRef::Number(n),
                None => {
                    return Err(mismatch(
                        scope,
                        format_args!("`length` needs a string or an array"),
                        of,
                        v,
                    ));
                }
            }
        }
    })
}

/// The value `path` refers to in `scope`: its root, then each segment.
///
/// A step into `null` is a missing value, as an absent key is (a path
/// through a nullable value that is null), except from a local bound to
/// `null`, where the step is applied to a value of the wrong type (as from
/// any other non-container).
///
/// # Errors
/// [`Failure::Missing`] for an absent key, an index out of range or a step
/// into `null`; [`Failure::Step`] for a segment applied to a value it
/// cannot step into; the error of [`Scope::root`].
#[inline]
pub fn resolve<'a, S: Scope<'a> + ?Sized>(
    scope: &S,
    path: &'a Path,
) -> Result<ValueRef<'a>, S::Error> {
    let mut value = scope.root(path)?;
    for (index, segment) in path.segments.iter().enumerate() {
        let next = match (segment, value) {
            (Segment::Key(key), ValueRef::Object(object)) => object.get(key),
            (Segment::Index(i), ValueRef::Array(array)) => array.get(*i as usize),
            _ => None,
        };
        match next {
            Some(v) => value = v,
            None => return Err(unresolved(scope, path, index, value)),
        }
    }
    Ok(value)
}

/// The failure of segment `index` of `path`, applied to `parent`.
#[cold]
#[inline(never)]
fn unresolved<'a, S: Scope<'a> + ?Sized>(
    scope: &S,
    path: &Path,
    index: usize,
    parent: ValueRef<'_>,
) -> S::Error {
    let segment = &path.segments[index];
    let (count, reason) = match (segment, parent) {
        (Segment::Key(key), ValueRef::Object(_)) => (index + 1, format!("key `{key}` is absent")),
        (Segment::Index(i), ValueRef::Array(array)) => (
            index + 1,
            format!("index {i} is out of range (length {})", array.len()),
        ),
        (_, ValueRef::Null) if index > 0 || !matches!(path.root, Root::Local(_)) => {
            let parent = match index.checked_sub(1).map(|i| &path.segments[i]) {
                Some(Segment::Key(key)) => format!("`{key}`"),
                Some(Segment::Index(i)) => format!("index {i}"),
                None => format!("`{}`", root_name(path.root)),
            };
            (index, format!("{parent} is null"))
        }
        _ => {
            let step = match segment {
                Segment::Key(key) => format!("key `{key}`"),
                Segment::Index(i) => format!("index {i}"),
            };
            return scope.fail(Failure::Step {
                path,
                index,
                message: format!(
                    "`{}` cannot be resolved: {step} is applied to {}",
                    path.source,
                    words::kind_of_ref(&parent)
                ),
            });
        }
    };
    scope.fail(Failure::Missing {
        path,
        count,
        message: format!("`{}` has no value: {reason}", path.source),
    })
}

/// [`Failure::Operand`]: `what` ("`length` needs a string or an array"),
/// but `expr` has `value`.
#[cold]
#[inline(never)]
fn mismatch<'a, S: Scope<'a> + ?Sized>(
    scope: &S,
    what: fmt::Arguments<'_>,
    expr: &Expr,
    value: ValueRef<'_>,
) -> S::Error {
    let message = format!(
        "{what}, but {} is {}",
        describe(expr),
        words::kind_of_ref(&value)
    );
    scope.fail(Failure::Operand { expr, message })
}

/// The JSON Pointer of the first `count` segments of `path`, from its root
/// scope (`/inputs/name`, `/output/evidence/0`); a local's has no root part
/// (`/name` below the local).
pub fn pointer(path: &Path, count: usize) -> String {
    let mut p = String::from(match path.root {
        Root::Inputs => "/inputs",
        Root::Context => "/context",
        Root::Output => "/output",
        Root::Case => "/case",
        Root::Judge => "/judge",
        Root::Local(_) => "",
    });
    for segment in path.segments.iter().take(count) {
        p.push('/');
        match segment {
            Segment::Key(key) => p.push_str(&escape_pointer_token(key)),
            Segment::Index(i) => {
                let _ = write!(p, "{i}");
            }
        }
    }
    p
}

/// The name of a root scope in messages.
fn root_name(root: Root) -> &'static str {
    match root {
        Root::Inputs => "inputs",
        Root::Context => "context",
        Root::Output => "output",
        Root::Case => "case",
        Root::Judge => "judge",
        Root::Local(_) => "a local",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expect::evaluate_check;
    use crate::ir::{Check, CompareOp};
    use crate::seq::{Ptr, Seq};
    use crate::value::IrValue;
    use serde_json::json;
    use std::cell::Cell;

    /// A minimal scope: `inputs`, `output` and one local from JSON values,
    /// no `context`; it counts the roots it is asked for, and a failure is
    /// its code, its message and the pointer count it carries.
    struct Test<'a> {
        inputs: ValueRef<'a>,
        output: ValueRef<'a>,
        local: ValueRef<'a>,
        roots: Cell<usize>,
    }

    impl<'a> Test<'a> {
        fn new(inputs: &'a serde_json::Value, output: &'a serde_json::Value) -> Self {
            Test {
                inputs: inputs.as_value(),
                output: output.as_value(),
                local: ValueRef::Null,
                roots: Cell::new(0),
            }
        }
    }

    #[derive(Debug, PartialEq)]
    enum Error {
        NoRoot(String),
        Failed(Code, String, usize),
    }

    impl<'a> Scope<'a> for Test<'a> {
        type Error = Error;

        fn root(&self, path: &'a Path) -> Result<ValueRef<'a>, Error> {
            self.roots.set(self.roots.get() + 1);
            match path.root {
                Root::Inputs => Ok(self.inputs),
                Root::Output => Ok(self.output),
                Root::Local(_) => Ok(self.local),
                Root::Context | Root::Case | Root::Judge => {
                    Err(Error::NoRoot(path.source.to_string()))
                }
            }
        }

        fn fail(&self, failure: Failure<'_>) -> Error {
            let at = match &failure {
                Failure::Missing { count, .. } => *count,
                Failure::Step { index, .. } => *index,
                Failure::Operand { .. } => usize::MAX,
            };
            Error::Failed(failure.code(), failure.into_message(), at)
        }
    }

    fn path(root: Root, name: &str, steps: &[&str]) -> Expr {
        Expr::Ref(Path {
            root,
            segments: Seq::Owned(
                steps
                    .iter()
                    .map(|s| match s.parse::<u32>() {
                        Ok(i) => Segment::Index(i),
                        Err(_) => Segment::Key((*s).to_owned().into()),
                    })
                    .collect(),
            ),
            source: std::iter::once(name)
                .chain(steps.iter().copied())
                .collect::<Vec<_>>()
                .join(".")
                .into(),
        })
    }

    fn lit(v: serde_json::Value) -> Expr {
        Expr::Literal(IrValue::from_json(&v))
    }

    #[test]
    fn and_or_stop_at_the_deciding_operand_without_touching_the_rest() {
        let (inputs, output) = (json!({"yes": true}), json!(null));
        let scope = Test::new(&inputs, &output);
        // `context` is no root of this scope: reading it fails.
        let unreadable = || path(Root::Context, "context", &["x"]);
        let yes = || path(Root::Inputs, "inputs", &["yes"]);

        let and = Expr::And(Seq::Owned(vec![lit(json!(false)), unreadable()]));
        assert!(matches!(eval(&scope, &and), Ok(ValueRef::Bool(false))));
        let or = Expr::Or(Seq::Owned(vec![yes(), unreadable()]));
        assert!(matches!(eval(&scope, &or), Ok(ValueRef::Bool(true))));
        // Only `inputs.yes` was resolved: the operands after were not.
        assert_eq!(scope.roots.get(), 1);

        // Undecided, the next operand is evaluated, and its failure stands.
        let and = Expr::And(Seq::Owned(vec![yes(), unreadable()]));
        assert_eq!(
            boolean(&scope, &and, "the condition").unwrap_err(),
            Error::NoRoot("context.x".into())
        );
        let or = Expr::Or(Seq::Owned(vec![lit(json!(false)), unreadable()]));
        assert!(eval(&scope, &or).is_err());
        assert_eq!(scope.roots.get(), 4);
    }

    #[test]
    fn a_failure_reads_the_same_in_any_scope() {
        let inputs = json!({"s": "x", "a": null, "list": [1]});
        let output = json!(null);
        let scope = Test::new(&inputs, &output);
        let cases = [
            // An operand of the wrong type.
            Expr::Compare(
                CompareOp::Gt,
                Ptr::from(path(Root::Inputs, "inputs", &["s"])),
                Ptr::from(lit(json!(1))),
            ),
            // A step into null, an index out of range, a key applied to a
            // string.
            Expr::Equals(
                Ptr::from(path(Root::Inputs, "inputs", &["a", "b"])),
                Ptr::from(lit(json!(1))),
            ),
            Expr::Equals(
                Ptr::from(path(Root::Inputs, "inputs", &["list", "3"])),
                Ptr::from(lit(json!(1))),
            ),
            Expr::Equals(
                Ptr::from(path(Root::Inputs, "inputs", &["s", "k"])),
                Ptr::from(lit(json!(1))),
            ),
        ];
        let expected = [
            (
                Code::TypeMismatch,
                "`compare` needs two numbers, but `inputs.s` is a string",
                usize::MAX,
            ),
            (
                Code::ValueMissing,
                "`inputs.a.b` has no value: `a` is null",
                1,
            ),
            (
                Code::ValueMissing,
                "`inputs.list.3` has no value: index 3 is out of range (length 1)",
                2,
            ),
            (
                Code::TypeMismatch,
                "`inputs.s.k` cannot be resolved: key `k` is applied to a string",
                1,
            ),
        ];
        let none = serde_json::Map::new();
        let fixture_inputs = inputs.as_object().cloned().unwrap_or_default();
        for (expr, (code, message, at)) in cases.into_iter().zip(expected) {
            assert_eq!(
                boolean(&scope, &expr, "a check").unwrap_err(),
                Error::Failed(code, message.to_owned(), at)
            );
            // The eval checks' scope reports it with the same code and
            // message.
            let check = Check {
                id: "c".into(),
                description: None,
                expr,
                source: "c".into(),
                site: None,
                judge: None,
            };
            let d = evaluate_check(&check, &fixture_inputs, &none, output.as_value()).unwrap_err();
            assert_eq!((d.code, d.message.as_str()), (code, message));
        }
    }

    #[test]
    fn a_null_root_scope_has_no_value_but_a_null_local_is_the_wrong_type() {
        let (inputs, output) = (json!({}), json!(null));
        let scope = Test::new(&inputs, &output);
        assert_eq!(
            eval(&scope, &path(Root::Output, "output", &["score"])).unwrap_err(),
            Error::Failed(
                Code::ValueMissing,
                "`output.score` has no value: `output` is null".into(),
                0
            )
        );
        let item = path(Root::Local(0), "item", &["score"]);
        assert_eq!(
            eval(&scope, &item).unwrap_err(),
            Error::Failed(
                Code::TypeMismatch,
                "`item.score` cannot be resolved: key `score` is applied to null".into(),
                0
            )
        );
    }
}
