//! The renderer: a compiled [`Interaction`] plus request values → a
//! [`RenderedInteraction`].
//!
//! Rendering walks the IR once. References were resolved at compile time,
//! so the walk does no name lookups beyond [`ObjectView::get`], converts no
//! values, and allocates nothing per node: the only allocations of a
//! successful render are the message strings (pre-sized from their text or,
//! where a `json`, `when`, `for_each` or component call makes the length
//! unguessable, copied at their exact length from a per-thread scratch
//! buffer), the message list and, only beyond eight simultaneously bound
//! `for_each` items and component arguments, one stack of locals. Filter
//! chains of two or more non-`trim` filters additionally use scratch
//! strings for their intermediate results.
//!
//! Content is data: text and values are written verbatim and never parsed
//! again, so `{{x}}`, `{% if %}` or `${x}` in either comes out unchanged
//! (`docs/format.md`, "Content nodes").
//!
//! The walk (`mod.rs`) uses three leaves: `diagnostics.rs`, the
//! diagnostics a render fails with; `bounded.rs`, the writers that keep to
//! the output budget and the bounds on what a filter writes; `locals.rs`,
//! the stack of locals.

mod bounded;
mod diagnostics;
mod locals;

use crate::filters::{self, FilterError, Locale};
use crate::request::validate_request;
use bounded::{Bounded, Capped, Counter, OPTIMISTIC_BYTES, intermediate_cap, upper_bound};
use diagnostics::{
    Fail, TYPE_HELP, argument_invalid, article, budget, filter_failure, filter_input, locate,
    output_budget, pointer, type_mismatch, value_missing,
};
use locals::Locals;
use std::fmt::{self, Write};
use templiqx_contracts::budget::{MAX_FOR_EACH_DEPTH, MAX_FOR_EACH_ITERATIONS, MAX_OUTPUT_BYTES};
use templiqx_contracts::canonical::write_number;
use templiqx_contracts::expr::{self, Failure, Scope, describe};
use templiqx_contracts::ir::{ArgCheck, Expr, Node, Path, Root, SiteId};
use templiqx_contracts::validate::validate;
use templiqx_contracts::{
    Code, Diagnostic, Diagnostics, Filter, Interaction, Number, ObjectView, RenderedInteraction,
    RenderedMessage, ValueRef,
};

/// Why a request could not be rendered.
///
/// Request validation reports every problem it finds (`TQX_VALUE_INVALID`);
/// rendering stops at the first one. Codes a render can produce:
///
/// | code | when |
/// |---|---|
/// | `TQX_VALUE_INVALID` | a request value is missing, undeclared, or violates its schema |
/// | `TQX_VALUE_MISSING` | a rendered reference has no value (an absent optional input, an omitted component argument, a missing nested key, an index out of range) |
/// | `TQX_TYPE_MISMATCH` | a value of the wrong type reached a condition, `for_each` or plain interpolation |
/// | `TQX_COMPONENT_ARGUMENT` | an argument's value does not meet its parameter's full schema (checked at the call when the compiler could not prove it; `docs/format.md`, "Components") |
/// | `TQX_FILTER_INPUT` | a filter got an input it cannot process (`format_date` of `2026-02-30`) |
/// | `TQX_RENDER_BUDGET` | the render would exceed a budget (`docs/format.md`, "Render budgets") |
/// | `TQX_COMPONENT_CYCLE`, `TQX_COMPONENT_UNKNOWN` | (hand-built IR only) components call each other in a cycle, or a call names no component |
#[derive(Clone, Debug, PartialEq)]
pub struct RenderError {
    /// The problems, in the order found; never empty.
    pub diagnostics: Diagnostics,
}

impl RenderError {
    fn one(diagnostic: Diagnostic) -> RenderError {
        RenderError {
            diagnostics: Diagnostics::one(diagnostic),
        }
    }

    /// The code of each diagnostic, in order.
    pub fn codes(&self) -> impl Iterator<Item = Code> + '_ {
        self.diagnostics.codes()
    }
}

impl From<Diagnostics> for RenderError {
    fn from(diagnostics: Diagnostics) -> RenderError {
        RenderError { diagnostics }
    }
}

impl fmt::Display for RenderError {
    /// As [`Diagnostics`] displays: one line per diagnostic, with its help.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.diagnostics, f)
    }
}

impl std::error::Error for RenderError {}

/// Validates a request, then renders every message of `interaction`.
///
/// `inputs` and `context` are the request's two root scopes (`docs/format.md`,
/// "References and scoping"); generated `Inputs`/`Context` structs,
/// `serde_json::Map`s and `BTreeMap`s all implement [`ObjectView`].
///
/// Semantics, in brief (the crate docs and `docs/format.md` have the rest):
/// references never fall back to an empty string; `when` needs a boolean,
/// `for_each` an array; plain interpolation writes strings verbatim,
/// numbers in canonical JSON form and booleans as `true`/`false`, while
/// `null`, arrays and objects need the `json` filter; filters apply left to
/// right; a component body sees only its own arguments and the root scopes.
///
/// Budgets (`docs/format.md`, "Render budgets") are shared by all messages and
/// checked before anything is written: at most [`MAX_FOR_EACH_ITERATIONS`]
/// iterations, [`MAX_FOR_EACH_DEPTH`] nested `for_each`, and
/// [`MAX_OUTPUT_BYTES`] bytes of message text.
///
/// # Errors
///
/// A [`RenderError`] with every request problem (`TQX_VALUE_INVALID`), or the
/// first render problem; see [`RenderError`] for the codes. A failed render
/// returns no partial output.
pub fn render<'i>(
    interaction: &'i Interaction,
    inputs: &dyn ObjectView,
    context: &dyn ObjectView,
) -> Result<RenderedInteraction<'i>, RenderError> {
    validate_request(interaction, inputs, context)
        .map_err(|d| RenderError::from(Diagnostics::from(d)))?;
    let mut renderer = Renderer::new(interaction, inputs, context);
    let mut messages = Vec::with_capacity(interaction.messages.len());
    for (index, message) in interaction.messages.iter().enumerate() {
        let content = renderer.message(&message.content).map_err(|d| {
            let d = locate(d, interaction.site(message.site));
            RenderError::one(d.note(format!("in message {index}")))
        })?;
        messages.push(RenderedMessage {
            role: message.role,
            content,
        });
    }
    Ok(RenderedInteraction::new(interaction, messages))
}

/// A guess of a message's length from its top-level nodes, to pre-size its
/// string: literal text counts its length and an interpolation without
/// `json` 16 bytes. `None` when a `json` interpolation, `when`, `for_each`
/// or component call may write any amount. (A deeper walk costs more than
/// the regrowth it saves.)
fn estimate(nodes: &[Node]) -> Option<usize> {
    nodes.iter().try_fold(0usize, |sum, node| match node {
        Node::Text(text) => Some(sum.saturating_add(text.len())),
        Node::Interpolate { filters, .. } if !filters.contains(&Filter::Json) => {
            Some(sum.saturating_add(16))
        }
        _ => None,
    })
}

/// The largest scratch buffer a thread keeps between renders (64 KiB); a
/// message longer than this is moved out of the buffer instead of copied.
const SCRATCH_KEEP: usize = 64 * 1024;

thread_local! {
    /// Where messages whose length is unknown in advance are rendered
    /// (see [`Renderer::message`]); empty between renders.
    static SCRATCH: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

/// One render's state. `'a` is the shorter of the interaction's and the
/// request values' lifetimes; every value the walk touches lives that long.
struct Renderer<'a> {
    interaction: &'a Interaction,
    inputs: &'a dyn ObjectView,
    context: &'a dyn ObjectView,
    /// Locals of all active frames; `None` is an omitted optional argument.
    locals: Locals<'a>,
    /// The current frame: `locals[base..base + frame_len]`.
    base: usize,
    frame_len: usize,
    /// Output bytes still allowed, shared by all messages.
    remaining_bytes: usize,
    /// `for_each` iterations so far, shared by all messages.
    iterations: u64,
    /// Active `for_each` nesting, across component calls.
    depth: usize,
    /// Active component calls (a guard against cyclic hand-built IR).
    calls: usize,
    /// `context.locale`, resolved on first use.
    locale: Option<Locale>,
}

impl<'a> Renderer<'a> {
    fn new(
        interaction: &'a Interaction,
        inputs: &'a dyn ObjectView,
        context: &'a dyn ObjectView,
    ) -> Self {
        Renderer {
            interaction,
            inputs,
            context,
            locals: Locals::new(),
            base: 0,
            frame_len: 0,
            remaining_bytes: MAX_OUTPUT_BYTES,
            iterations: 0,
            depth: 0,
            calls: 0,
            locale: None,
        }
    }

    /// Renders one message's content.
    ///
    /// A message whose length [`estimate`] can guess renders into a string
    /// of that capacity. Any other renders into the thread's scratch
    /// buffer, which keeps its capacity across renders, and is then copied
    /// into a string of exactly its length: one allocation however long the
    /// output (the `json` of an object would otherwise regrow the string
    /// several times). A message longer than [`SCRATCH_KEEP`] takes the
    /// buffer itself, so a large output is neither copied nor held twice. A
    /// render nested in another on the same thread (an `ObjectView` that
    /// renders) finds the buffer in use and renders into a string of its
    /// own.
    fn message(&mut self, nodes: &'a [Node]) -> Result<String, Fail> {
        if let Some(estimate) = estimate(nodes) {
            let mut out = String::with_capacity(estimate.min(self.remaining_bytes));
            self.nodes(nodes, &mut out)?;
            return Ok(out);
        }
        SCRATCH.with(|cell| {
            let Ok(mut scratch) = cell.try_borrow_mut() else {
                let mut out = String::new();
                self.nodes(nodes, &mut out)?;
                return Ok(out);
            };
            scratch.clear();
            let rendered = self.nodes(nodes, &mut scratch);
            let out = match rendered {
                Ok(()) if scratch.len() > SCRATCH_KEEP => Ok(std::mem::take(&mut *scratch)),
                Ok(()) => Ok(scratch.as_str().to_owned()),
                Err(d) => Err(d),
            };
            scratch.clear();
            if scratch.capacity() > SCRATCH_KEEP {
                *scratch = String::new();
            }
            out
        })
    }

    fn nodes(&mut self, nodes: &'a [Node], out: &mut String) -> Result<(), Fail> {
        nodes.iter().try_for_each(|node| self.node(node, out))
    }

    fn node(&mut self, node: &'a Node, out: &mut String) -> Result<(), Fail> {
        match node {
            Node::Text(text) => self.write(out, text),
            Node::Interpolate {
                value,
                filters,
                site,
            } => self
                .interpolate(value, filters, out)
                .map_err(|d| self.located(d, *site)),
            Node::When {
                condition,
                then,
                otherwise,
                site,
            } => match expr::boolean(self, condition, "the condition of `when`") {
                Ok(true) => self.nodes(then, out),
                Ok(false) => self.nodes(otherwise, out),
                Err(d) => Err(d),
            }
            .map_err(|d| self.located(d, *site)),
            Node::ForEach {
                collection,
                body,
                separator,
                site,
            } => self
                .for_each(collection, body, separator.as_deref(), out)
                .map_err(|d| self.located(d, *site)),
            Node::Call {
                component,
                args,
                checks,
                site,
            } => self
                .call(*component, args, checks, out)
                .map_err(|d| self.located(d, *site)),
        }
    }

    #[inline]
    fn interpolate(
        &mut self,
        value: &'a Expr,
        filters: &'a [Filter],
        out: &mut String,
    ) -> Result<(), Fail> {
        let v = expr::eval(self, value)?;
        match (filters, v) {
            ([], _) => self.write_scalar(v, value, out),
            // The commonest chains, as `filtered` would write them without
            // its general set-up: a lone `trim` of a string writes the
            // trimmed slice, a lone `json` goes straight to `apply_last`
            // (it takes any value and needs no locale).
            ([Filter::Trim], ValueRef::String(s)) => self.write(out, filters::trim(s)),
            ([Filter::Json], _) => self.apply_last(Filter::Json, v, Locale::Iso, value, out),
            _ => self.filtered(v, value, filters, out),
        }
    }

    /// [`locate`]s a diagnostic at the contract node `site` (the innermost
    /// node that failed locates it).
    #[cold]
    fn located(&self, d: Fail, site: SiteId) -> Fail {
        locate(d, self.interaction.site(site))
    }

    // Out of line, like `filtered`: keeps the frame of `node`, the hot
    // path, small.
    #[inline(never)]
    fn for_each(
        &mut self,
        collection: &'a Expr,
        body: &'a [Node],
        separator: Option<&'a str>,
        out: &mut String,
    ) -> Result<(), Fail> {
        let items = match expr::eval(self, collection)? {
            ValueRef::Array(items) => items,
            other => {
                return Err(type_mismatch(
                    collection,
                    format!(
                        "`for_each` needs an array, but {} is {}",
                        describe(collection),
                        article(&other)
                    ),
                ));
            }
        };
        if self.depth >= MAX_FOR_EACH_DEPTH {
            return Err(budget(format!(
                "`for_each` nesting would exceed the budget of {MAX_FOR_EACH_DEPTH} levels"
            )));
        }
        self.depth += 1;
        let slot = self.locals.len();
        self.locals.push(None);
        self.frame_len += 1;
        for index in 0..items.len() {
            if self.iterations >= MAX_FOR_EACH_ITERATIONS {
                return Err(budget(format!(
                    "`for_each` iterations would exceed the budget of \
                     {MAX_FOR_EACH_ITERATIONS} per render"
                )));
            }
            self.iterations += 1;
            if let Some(sep) = separator
                && index > 0
            {
                self.write(out, sep)?;
            }
            let item = items.get(index).ok_or_else(|| {
                Box::new(
                    value_missing(format!(
                        "item {index} of {} is absent although its length is {}",
                        describe(collection),
                        items.len()
                    ))
                    .help("the value's `ArrayView` reports more items than it yields"),
                )
            })?;
            self.locals.set(slot, Some(item));
            self.nodes(body, out)?;
        }
        self.locals.truncate(slot);
        self.frame_len -= 1;
        self.depth -= 1;
        Ok(())
    }

    fn call(
        &mut self,
        component: u32,
        args: &'a [Option<Expr>],
        checks: &'a [ArgCheck],
        out: &mut String,
    ) -> Result<(), Fail> {
        let interaction = self.interaction;
        let Some(target) = interaction.components.get(component as usize) else {
            return Err(Box::new(
                Diagnostic::error(
                    Code::ComponentUnknown,
                    format!("component #{component} does not exist (malformed interaction)"),
                )
                .help("regenerate the interaction with the compiler"),
            ));
        };
        // Without cycles no call chain is longer than the component table.
        if self.calls >= interaction.components.len() {
            return Err(Box::new(
                Diagnostic::error(
                    Code::ComponentCycle,
                    format!(
                        "component `{}` is part of a call cycle (malformed interaction)",
                        target.name
                    ),
                )
                .help("regenerate the interaction with the compiler, which rejects cycles"),
            ));
        }
        // Arguments are evaluated in the caller's frame; pushing them above
        // it leaves the caller's slots where they are.
        let new_base = self.locals.len();
        for arg in args {
            let value = match arg {
                Some(arg) => Some(expr::eval(self, arg)?),
                None => None,
            };
            self.locals.push(value);
        }
        // Arguments the compiler could not prove to fit their parameter
        // meet its full schema before the body sees them.
        for check in checks {
            let slot = usize::from(check.slot);
            if let Some(Some(value)) = self.locals.get(new_base + slot)
                && let Err(violations) = validate(&check.schema, value)
            {
                let d = argument_invalid(target, slot, args.get(slot), &violations);
                return Err(locate(d, interaction.site(check.site)));
            }
        }
        let (caller_base, caller_len) = (self.base, self.frame_len);
        self.base = new_base;
        self.frame_len = args.len();
        self.calls += 1;
        self.nodes(&target.body, out)?;
        self.calls -= 1;
        self.base = caller_base;
        self.frame_len = caller_len;
        self.locals.truncate(new_base);
        Ok(())
    }

    fn locale(&mut self) -> Locale {
        if let Some(locale) = self.locale {
            return locale;
        }
        let locale = if self.interaction.context_locale {
            Locale::from_value(self.context.get("locale"))
        } else {
            Locale::Iso
        };
        self.locale = Some(locale);
        locale
    }

    /// Writes `text`, charging it to the output budget first.
    fn write(&mut self, out: &mut String, text: &str) -> Result<(), Fail> {
        let mut w = Bounded {
            out,
            remaining: &mut self.remaining_bytes,
        };
        w.write_str(text).map_err(|_| output_budget())
    }

    /// Plain interpolation: strings verbatim, numbers in canonical JSON
    /// form, booleans as `true`/`false`.
    fn write_scalar(
        &mut self,
        value: ValueRef<'a>,
        expr: &'a Expr,
        out: &mut String,
    ) -> Result<(), Fail> {
        let mut w = Bounded {
            out,
            remaining: &mut self.remaining_bytes,
        };
        let written = match value {
            ValueRef::String(s) => w.write_str(s),
            ValueRef::Bool(b) => w.write_str(if b { "true" } else { "false" }),
            ValueRef::Number(Number::F64(f)) if !f.is_finite() => {
                return Err(Box::new(
                    Diagnostic::error(
                        Code::ValueInvalid,
                        format!("{} is not a finite number", describe(expr)),
                    )
                    .help("JSON has no NaN or infinity; supply a finite number"),
                ));
            }
            ValueRef::Number(n) => write_number(n, &mut w),
            ValueRef::Null | ValueRef::Array(_) | ValueRef::Object(_) => {
                return Err(type_mismatch(
                    expr,
                    format!(
                        "{} is {}, which interpolates only through the `json` filter",
                        describe(expr),
                        article(&value)
                    ),
                )
                .help("add `json` to the filters to write its canonical JSON")
                .into());
            }
        };
        written.map_err(|_| output_budget())
    }

    /// Interpolation through a non-empty filter chain.
    ///
    /// Every filter but the last streams into a scratch string, the last
    /// straight into the output. Intermediates are capped so that no
    /// intermediate can grow beyond what could still fit the budget:
    /// `lower`/`upper` shrink a string by at most a factor of 3 in bytes
    /// (`K` KELVIN SIGN → `k`), `json` never shrinks, `format_date` needs
    /// exactly 10 bytes. A `trim` never needs an intermediate of its own:
    /// it either applies to the source string (a slice) or is the identity
    /// (see the comment in the body).
    #[inline(never)]
    fn filtered(
        &mut self,
        value: ValueRef<'a>,
        expr: &'a Expr,
        filters: &'a [Filter],
        out: &mut String,
    ) -> Result<(), Fail> {
        // Types first, so no work is done for a chain that cannot succeed:
        // every filter's output is a string.
        let mut input = value;
        for filter in filters {
            if !filters::accepts(*filter, &input) {
                return Err(filter_input(
                    *filter,
                    expr,
                    format!(
                        "filter `{}` cannot take {} ({})",
                        filter.as_str(),
                        article(&input),
                        describe(expr)
                    ),
                ));
            }
            input = ValueRef::String("");
        }
        // `trim` commutes with `lower`/`upper` (case mappings neither make nor
        // take white space), so a `trim` preceded only by those applies to
        // the source string; any other `trim` follows `json`, `format_date`
        // or `format_number`, whose output has no outer white space.
        let mut source = value;
        if let ValueRef::String(s) = value
            && filters
                .iter()
                .take_while(|f| matches!(f, Filter::Trim | Filter::Lower | Filter::Upper))
                .any(|f| *f == Filter::Trim)
        {
            source = ValueRef::String(filters::trim(s));
        }
        let Some(last) = filters.iter().rposition(|f| *f != Filter::Trim) else {
            // Only `trim`s, so the source is a string.
            return match source {
                ValueRef::String(s) => self.write(out, s),
                _ => Ok(()),
            };
        };
        let locale = if filters
            .iter()
            .any(|f| matches!(f, Filter::FormatDate | Filter::FormatNumber))
        {
            self.locale()
        } else {
            Locale::Iso
        };
        let (mut prev, mut next) = (String::new(), String::new());
        let mut first = true;
        for (index, filter) in filters.iter().enumerate() {
            if *filter == Filter::Trim {
                continue;
            }
            let input = if first {
                source
            } else {
                ValueRef::String(&prev)
            };
            if index == last {
                return self.apply_last(*filter, input, locale, expr, out);
            }
            let cap = intermediate_cap(&filters[index + 1..], self.remaining_bytes);
            next.clear();
            let mut w = Capped {
                out: &mut next,
                cap: cap.bytes,
            };
            match filters::apply(*filter, input, locale, &mut w) {
                Ok(()) => {}
                Err(FilterError::Write) if cap.date_input => {
                    // Too long to be a date for the `format_date` downstream.
                    return Err(filter_input(
                        Filter::FormatDate,
                        expr,
                        format!(
                            "filter `format_date` needs a `YYYY-MM-DD` date, but the output \
                             of `{}` on {} is longer than one",
                            filter.as_str(),
                            describe(expr)
                        ),
                    ));
                }
                Err(e) => return Err(filter_failure(e, *filter, input, expr)),
            }
            std::mem::swap(&mut prev, &mut next);
            first = false;
        }
        Ok(())
    }

    /// Writes the last filter of a chain (`filter` of `input`) into `out`
    /// within the remaining budget (see `filtered`).
    #[inline]
    fn apply_last(
        &mut self,
        filter: Filter,
        input: ValueRef<'_>,
        locale: Locale,
        expr: &'a Expr,
        out: &mut String,
    ) -> Result<(), Fail> {
        // Unless the output is known to fit, measure it first (a dry
        // run that stops at the budget), so that an interpolation
        // that cannot fit writes, and allocates, nothing.
        if upper_bound(filter, input).is_none_or(|b| b > self.remaining_bytes) {
            // Optimistically write up to OPTIMISTIC_BYTES directly:
            // most outputs are small, and a larger one is rolled
            // back, so at most that much is allocated in vain.
            let start = out.len();
            let mut room = self.remaining_bytes.min(OPTIMISTIC_BYTES);
            let mut w = Bounded {
                out,
                remaining: &mut room,
            };
            match filters::apply(filter, input, locale, &mut w) {
                Ok(()) => {
                    self.remaining_bytes -= out.len() - start;
                    return Ok(());
                }
                Err(FilterError::Write) if self.remaining_bytes > OPTIMISTIC_BYTES => {
                    out.truncate(start);
                }
                Err(e) => {
                    out.truncate(start);
                    return Err(filter_failure(e, filter, input, expr));
                }
            }
            let mut counter = Counter {
                len: 0,
                limit: self.remaining_bytes,
            };
            filters::apply(filter, input, locale, &mut counter)
                .map_err(|e| filter_failure(e, filter, input, expr))?;
            out.reserve(counter.len);
        }
        let mut w = Bounded {
            out,
            remaining: &mut self.remaining_bytes,
        };
        filters::apply(filter, input, locale, &mut w)
            .map_err(|e| filter_failure(e, filter, input, expr))
    }
}

/// The renderer's side of expression evaluation ([`expr`]): the request's
/// `inputs` and `context` and the current frame's locals; no `output`.
impl<'a> Scope<'a> for Renderer<'a> {
    type Error = Fail;

    #[inline]
    fn root(&self, path: &'a Path) -> Result<ValueRef<'a>, Fail> {
        match path.root {
            Root::Inputs => Ok(ValueRef::Object(self.inputs)),
            Root::Context => Ok(ValueRef::Object(self.context)),
            Root::Local(slot) => {
                let slot = usize::from(slot);
                let bound = if slot < self.frame_len {
                    self.locals.get(self.base + slot)
                } else {
                    None
                };
                match bound {
                    Some(Some(value)) => Ok(value),
                    Some(None) => Err(value_missing(format!(
                        "`{}` refers to a component argument that was omitted",
                        path.source
                    ))
                    .help(
                        "pass the optional argument, or guard the reference with a \
                         `when` on a required argument",
                    )
                    .into()),
                    None => Err(value_missing(format!(
                        "`{}` refers to local slot {slot}, which is not bound \
                         (malformed interaction)",
                        path.source
                    ))
                    .help("regenerate the interaction with the compiler")
                    .into()),
                }
            }
            Root::Output | Root::Case | Root::Judge => Err(value_missing(format!(
                "`{}` refers to `{}`, which only eval checks can read \
                 (malformed interaction)",
                path.source,
                match path.root {
                    Root::Case => "case",
                    Root::Judge => "judge",
                    _ => "output",
                }
            ))
            .help("regenerate the interaction with the compiler")
            .into()),
        }
    }

    /// The diagnostic, with the value's request pointer (below `inputs`
    /// or `context`) for [`locate`] to turn into a note: where the value is
    /// missing, the segment that cannot be applied, the operand of the
    /// wrong type.
    #[cold]
    fn fail(&self, failure: Failure<'_>) -> Fail {
        match failure {
            Failure::Missing {
                path,
                count,
                message,
            } => {
                let mut d = value_missing(message).help(
                    "supply the value; to branch on absence, declare the field required and \
                     nullable and test `equals(ref, null)`",
                );
                d.json_pointer = pointer(path, count);
                Box::new(d)
            }
            Failure::Step {
                path,
                index,
                message,
            } => {
                let mut d = Diagnostic::error(Code::TypeMismatch, message).help(TYPE_HELP);
                d.json_pointer = pointer(path, index + 1);
                Box::new(d)
            }
            Failure::Operand { expr, message } => type_mismatch(expr, message),
        }
    }
}

/// The `render` operation as an
/// [`OperationEnvelope`](templiqx_contracts::OperationEnvelope)
/// (`docs/diagnostics.md`, "Operation envelopes"): the rendered interaction as
/// the result, and the `contract`, `interaction` and `request` fingerprints.
pub fn render_envelope<'i>(
    interaction: &'i Interaction,
    inputs: &dyn ObjectView,
    context: &dyn ObjectView,
) -> templiqx_contracts::OperationEnvelope<RenderedInteraction<'i>> {
    use templiqx_contracts::{Operation, OperationEnvelope};
    let env = match render(interaction, inputs, context) {
        Ok(r) => {
            let request = r.request_fingerprint();
            OperationEnvelope::new(Operation::Render, Some(r), Vec::new())
                .with_fingerprint("request", request)
        }
        Err(e) => OperationEnvelope::new(Operation::Render, None, e.diagnostics),
    };
    env.with_fingerprint("contract", interaction.contract_fingerprint.to_string())
        .with_fingerprint(
            "interaction",
            interaction.interaction_fingerprint.to_string(),
        )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Map, Value, json};
    use templiqx_contracts::ir::{Field, Message, Segment};
    use templiqx_contracts::{JsonType, Role, RuntimePolicy, Schema, Seq, Str, TypeSet};

    /// One user message of `nodes`; `inputs.v` takes any value.
    fn interaction(nodes: Vec<Node>) -> Interaction {
        Interaction {
            compiler: Str::Borrowed("templiqx"),
            contract_id: Str::Borrowed("test"),
            contract_version: Str::Borrowed("0.1.0"),
            inputs: Seq::Owned(vec![Field {
                name: Str::Borrowed("v"),
                schema: Schema::ANY,
                required: true,
            }]),
            context: Seq::EMPTY,
            messages: Seq::Owned(vec![Message {
                role: Role::User,
                content: Seq::Owned(nodes),
                site: SiteId::NONE,
            }]),
            components: Seq::EMPTY,
            output_schema: Schema::ANY,
            runtime_policy: RuntimePolicy::default(),
            sites: Seq::EMPTY,
            extensions: Seq::EMPTY,
            required_capabilities: Seq::EMPTY,
            target_capabilities: Seq::EMPTY,
            context_locale: false,
            contract_fingerprint: Str::Borrowed(""),
            interaction_fingerprint: Str::Borrowed(""),
        }
    }

    fn text(s: &str) -> Node {
        Node::Text(Str::Owned(s.to_owned()))
    }

    /// `{{ inputs.v | filters }}`.
    fn v(filters: &[Filter]) -> Node {
        Node::Interpolate {
            value: Expr::Ref(Path {
                root: Root::Inputs,
                segments: Seq::Owned(vec![Segment::Key(Str::Borrowed("v"))]),
                source: Str::Borrowed("inputs.v"),
            }),
            filters: Seq::Owned(filters.to_vec()),
            site: SiteId::NONE,
        }
    }

    fn inputs(v: Value) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("v".to_owned(), v);
        m
    }

    fn content(i: &Interaction, inputs: &Map<String, Value>) -> Result<String, RenderError> {
        render(i, inputs, &Map::new()).map(|mut r| r.messages.remove(0).content)
    }

    #[test]
    fn estimate_guesses_only_what_the_top_level_bounds() {
        assert_eq!(estimate(&[text("Hi "), v(&[Filter::Trim])]), Some(19));
        assert_eq!(
            estimate(&[text("Hi "), v(&[Filter::Trim, Filter::Json])]),
            None
        );
    }

    #[test]
    fn scratch_messages_are_exact_and_leave_the_scratch_empty() {
        let i = interaction(vec![text("facts: "), v(&[Filter::Json])]);
        let small = content(&i, &inputs(json!({"b": [1, "x"], "a": null}))).unwrap();
        assert_eq!(small, r#"facts: {"a":null,"b":[1,"x"]}"#);
        assert_eq!(small.capacity(), small.len());
        SCRATCH.with(|s| assert!(s.borrow().is_empty()));

        // Longer than the scratch keeps: the scratch's own string moves out.
        let big = "é".repeat(SCRATCH_KEEP);
        let rendered = content(&i, &inputs(json!(big))).unwrap();
        assert_eq!(rendered, format!("facts: \"{big}\""));
        SCRATCH.with(|s| assert!(s.borrow().capacity() <= SCRATCH_KEEP));
    }

    #[test]
    fn a_failed_scratch_message_leaves_nothing_behind() {
        // The second interpolation fails after the first wrote its text.
        let i = interaction(vec![v(&[Filter::Json]), v(&[Filter::Trim])]);
        let error = content(&i, &inputs(json!([1, 2]))).unwrap_err();
        assert_eq!(error.diagnostics[0].code, Code::FilterInput);
        let ok = interaction(vec![v(&[Filter::Json])]);
        assert_eq!(content(&ok, &inputs(json!(true))).unwrap(), "true");
    }

    /// An object whose every member renders another interaction, on the
    /// thread whose scratch the outer render is using.
    struct Renders<'i>(&'i Interaction);

    impl ObjectView for Renders<'_> {
        fn get(&self, key: &str) -> Option<ValueRef<'_>> {
            let nested = content(self.0, &inputs(json!({"k": key}))).ok()?;
            Some(ValueRef::Bool(nested == format!(r#"{{"k":"{key}"}}"#)))
        }
        fn len(&self) -> usize {
            1
        }
        fn entries(&self) -> Box<dyn Iterator<Item = (&str, ValueRef<'_>)> + '_> {
            Box::new(std::iter::once(("v", ValueRef::Bool(true))))
        }
    }

    #[test]
    fn a_render_nested_in_a_render_gets_its_own_buffer() {
        let inner = interaction(vec![v(&[Filter::Json])]);
        let mut outer = interaction(vec![text("outer "), v(&[Filter::Json])]);
        if let Seq::Owned(fields) = &mut outer.inputs {
            fields[0].schema = Schema {
                types: TypeSet::of(JsonType::Boolean),
                ..Schema::ANY
            };
        }
        let rendered = render(&outer, &Renders(&inner), &Map::new()).unwrap();
        assert_eq!(rendered.messages[0].content, "outer true");
    }
}
