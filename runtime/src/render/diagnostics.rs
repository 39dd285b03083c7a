//! The diagnostics a render fails with, and where they point: the contract
//! node ([`locate`]) and the value's place in the request ([`pointer`]).

use crate::filters::FilterError;
use templiqx_contracts::budget::MAX_OUTPUT_BYTES;
use templiqx_contracts::canonical::write_number;
use templiqx_contracts::expr::{self, describe};
use templiqx_contracts::ir::{Component, Expr, Path, Root, Site};
use templiqx_contracts::words;
use templiqx_contracts::{Code, Diagnostic, Filter, SchemaViolation, ValueRef};

/// An internal error: boxed so `Result`s on the hot path stay two words.
pub(super) type Fail = Box<Diagnostic>;

/// The diagnostic for a failed filter.
pub(super) fn filter_failure(
    error: FilterError,
    filter: Filter,
    input: ValueRef<'_>,
    expr: &Expr,
) -> Fail {
    match error {
        FilterError::Write => output_budget(),
        FilterError::Input => {
            let what = match filter {
                Filter::FormatDate => "a real calendar date written `YYYY-MM-DD`",
                Filter::FormatNumber => "a finite number",
                _ => "an input of the type it accepts",
            };
            filter_input(
                filter,
                expr,
                format!(
                    "filter `{}` needs {what}, but {} is {}",
                    filter.as_str(),
                    describe(expr),
                    preview(input)
                ),
            )
        }
    }
}

pub(super) const TYPE_HELP: &str = "supply a value of the type the contract declares for it";

/// `TQX_TYPE_MISMATCH` about the value of `expr`, pointing at it in the
/// request when it is a reference into `inputs`/`context`.
pub(super) fn type_mismatch(expr: &Expr, message: String) -> Fail {
    let mut d = Diagnostic::error(Code::TypeMismatch, message).help(TYPE_HELP);
    d.json_pointer = request_pointer(expr);
    Box::new(d)
}

/// The request pointer of the value `expr` refers to, when it is a
/// reference below `inputs`/`context`.
pub(super) fn request_pointer(expr: &Expr) -> Option<String> {
    match expr {
        Expr::Ref(path) => match path.segments.len() {
            0 => None,
            n => pointer(path, n),
        },
        _ => None,
    }
}

/// `TQX_COMPONENT_ARGUMENT` for an argument whose value fails its
/// parameter's schema at render time: the first violation in the message,
/// the others as notes, the value's request pointer (for a reference below
/// `inputs`/`context`) for [`locate`] to turn into a note.
#[cold]
pub(super) fn argument_invalid(
    component: &Component,
    slot: usize,
    arg: Option<&Option<Expr>>,
    violations: &[SchemaViolation],
) -> Fail {
    let parameter = component.parameters.get(slot).map_or("?", |p| &**p);
    let expr = arg.and_then(Option::as_ref);
    let (first, rest) = match violations.split_first() {
        Some(split) => split,
        None => {
            return Box::new(Diagnostic::error(
                Code::ComponentArgument,
                format!(
                    "argument `{parameter}` of component `{}` does not fit the parameter's schema",
                    component.name
                ),
            ));
        }
    };
    let within = if first.pointer.is_empty() {
        String::new()
    } else {
        format!(" at `{}` within it", first.pointer)
    };
    let mut d = Diagnostic::error(
        Code::ComponentArgument,
        format!(
            "argument `{parameter}` of component `{}` does not fit the parameter's schema{within}: {}",
            component.name, first.message
        ),
    );
    let source = match expr {
        Some(Expr::Ref(path)) if matches!(path.root, Root::Inputs | Root::Context) => {
            Some(&path.source)
        }
        _ => None,
    };
    let keyword = if first.pointer.is_empty() {
        format!("`{}`", first.keyword)
    } else {
        format!("`{}` at `{}`", first.keyword, first.pointer)
    };
    d = d.help(match source {
        Some(source) => format!(
            "pass a value that meets the parameter's {keyword}, or declare `{source}` with the same {keyword} so that request validation rejects such values before rendering"
        ),
        None => format!("pass a value that meets the parameter's {keyword}"),
    });
    for v in rest {
        d = d.note(if v.pointer.is_empty() {
            format!("also: {} ({})", v.message, v.keyword)
        } else {
            format!(
                "also at `{}` within it: {} ({})",
                v.pointer, v.message, v.keyword
            )
        });
    }
    d.json_pointer = expr
        .and_then(request_pointer)
        .map(|p| format!("{p}{}", first.pointer));
    Box::new(d)
}

pub(super) fn value_missing(message: String) -> Diagnostic {
    Diagnostic::error(Code::ValueMissing, message)
}

pub(super) fn filter_input(filter: Filter, expr: &Expr, message: String) -> Fail {
    let mut d = Diagnostic::error(Code::FilterInput, message);
    d.json_pointer = request_pointer(expr);
    Box::new(d.help(match filter {
        Filter::FormatDate => "supply a real calendar date such as `2026-07-12`",
        Filter::FormatNumber => "supply a JSON number",
        Filter::Json => "every value has canonical JSON",
        Filter::Trim | Filter::Lower | Filter::Upper => "supply a string",
    }))
}

pub(super) fn budget(message: String) -> Fail {
    Box::new(Diagnostic::error(Code::RenderBudget, message).help(
        "render budgets are fixed by the format (docs/format.md, \"Render budgets\"); reduce the request",
    ))
}

pub(super) fn output_budget() -> Fail {
    budget(format!(
        "rendered output would exceed the budget of {MAX_OUTPUT_BYTES} bytes"
    ))
}

/// Points a diagnostic that has no file yet at the contract node of `site`:
/// file, JSON Pointer and span of the node. A request pointer the
/// diagnostic carried (the value's place in `inputs`/`context`) moves to a
/// note.
pub(super) fn locate(mut d: Fail, site: Option<&Site>) -> Fail {
    let Some(site) = site else { return d };
    if d.file.is_some() {
        return d;
    }
    if let Some(request) = d.json_pointer.take() {
        d.notes
            .insert(0, format!("the value is at `{request}` in the request"));
    }
    d.file = Some(site.file.to_string());
    d.json_pointer = Some(site.pointer.to_string());
    d.span = Some(site.span);
    d
}

/// The request JSON Pointer of the first `count` segments of `path`
/// (`/inputs/customer/name`); `None` for locals, whose origin is not tracked.
pub(super) fn pointer(path: &Path, count: usize) -> Option<String> {
    match path.root {
        Root::Inputs | Root::Context => Some(expr::pointer(path, count)),
        Root::Local(_) | Root::Output | Root::Case | Root::Judge => None,
    }
}

/// "a string", "an array", ... ([`words::kind`]).
pub(super) fn article(value: &ValueRef<'_>) -> &'static str {
    words::kind_of_ref(value)
}

/// A short rendering of a value for messages: strings (cut as
/// [`words::truncate`] says) and numbers quoted, everything else by kind.
pub(super) fn preview(value: ValueRef<'_>) -> String {
    match value {
        ValueRef::String(s) => format!("`{}`", words::truncate(s)),
        ValueRef::Number(n) => {
            let mut p = String::from("`");
            let _ = write_number(n, &mut p);
            p.push('`');
            p
        }
        other => article(&other).to_owned(),
    }
}
