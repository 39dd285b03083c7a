//! How an expression is written: [`source_text`], the compact functional
//! form a check's source takes, and [`describe`], its name in messages.

use super::Kind;
use crate::canonical::write_canonical;
use crate::ir::Expr;
use crate::value::AsValue;
use std::fmt::Write as _;

/// How an expression is named in messages: a reference by its path
/// (`` `inputs.name` ``), `length` by its source (`` `length(output.items)` ``),
/// any other expression by its kind ("a literal", "an `and` expression").
pub fn describe(expr: &Expr) -> String {
    match expr {
        Expr::Ref(path) => format!("`{}`", path.source),
        Expr::Literal(_) => "a literal".to_owned(),
        Expr::Equals(..) => "an `equals` expression".to_owned(),
        Expr::Not(_) => "a `not` expression".to_owned(),
        Expr::And(_) => "an `and` expression".to_owned(),
        Expr::Or(_) => "an `or` expression".to_owned(),
        Expr::Compare(..) => "a `compare` expression".to_owned(),
        Expr::Contains(..) => "a `contains` expression".to_owned(),
        Expr::Length(of) => format!("`length({})`", source_text(of)),
    }
}

fn kind(expr: &Expr) -> &'static str {
    Kind::of(expr).as_str()
}

/// A compact functional rendering of an expression: references by path,
/// literals as canonical JSON, operators as `kind(operands…)`
/// (`compare(ge, length(output.items), 1)`). The compiler writes a
/// check's [`Check::source`](crate::ir::Check::source) this way.
pub fn source_text(expr: &Expr) -> String {
    let mut out = String::new();
    write_source(expr, &mut out);
    out
}

fn write_source(expr: &Expr, out: &mut String) {
    let list = |out: &mut String, items: &mut dyn Iterator<Item = &Expr>| {
        for (i, e) in items.enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            write_source(e, out);
        }
        out.push(')');
    };
    match expr {
        Expr::Ref(path) => out.push_str(&path.source),
        Expr::Literal(v) => {
            let _ = write_canonical(v.as_value(), out);
        }
        Expr::Compare(op, l, r) => {
            let _ = write!(out, "compare({}, ", op.as_str());
            list(out, &mut [&**l, &**r].into_iter());
        }
        Expr::Equals(l, r) | Expr::Contains(l, r) => {
            let _ = write!(out, "{}(", kind(expr));
            list(out, &mut [&**l, &**r].into_iter());
        }
        Expr::Not(o) | Expr::Length(o) => {
            let _ = write!(out, "{}(", kind(expr));
            list(out, &mut std::iter::once(&**o));
        }
        Expr::And(items) | Expr::Or(items) => {
            let _ = write!(out, "{}(", kind(expr));
            list(out, &mut items.iter());
        }
    }
}
