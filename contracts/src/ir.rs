//! The compiled interaction: what the compiler lowers a validated contract
//! to, what generated code embeds as static data, and what the renderer walks.
//!
//! Every reference is resolved at compile time (roots, local slots, object
//! keys, array indices), every component call points into a table, and every
//! schema is a compiled [`Schema`]: rendering needs no YAML, no JSON Schema
//! and no name lookups beyond object keys.

pub use crate::diagnostic::Span;
use crate::schema::Schema;
use crate::seq::{Ptr, Seq, Str};
use crate::value::IrValue;
use serde::{Deserialize, Serialize};

/// A message role: system, developer, user, assistant (`docs/format.md`,
/// "Messages").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// `system`
    System,
    /// `developer`
    Developer,
    /// `user`
    User,
    /// `assistant`
    Assistant,
}

impl Role {
    /// The format's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::Developer => "developer",
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

/// A fixed interpolation filter: trim, lower, upper, json, format_date,
/// format_number (`docs/format.md`, "Filters").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Filter {
    /// Strip leading and trailing Unicode white space (strings only).
    Trim,
    /// Unicode lower-case (strings only).
    Lower,
    /// Unicode upper-case (strings only).
    Upper,
    /// Canonical JSON (RFC 8785) of the value; any type.
    Json,
    /// Reformat a `YYYY-MM-DD` string per `context.locale`.
    FormatDate,
    /// Group a number with two fraction digits per `context.locale`.
    FormatNumber,
}

impl Filter {
    /// The format's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Filter::Trim => "trim",
            Filter::Lower => "lower",
            Filter::Upper => "upper",
            Filter::Json => "json",
            Filter::FormatDate => "format_date",
            Filter::FormatNumber => "format_number",
        }
    }
}

/// The root of a resolved reference.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Root {
    /// `inputs.…`
    Inputs,
    /// `context.…`
    Context,
    /// A local of the current frame (a `for_each` item or a component
    /// argument), by slot number counted from the frame's base.
    Local(u16),
    /// `output…`: the model output an eval check reads (only in a
    /// [`Check`], never in an interaction's content).
    Output,
    /// `case.…`: the expected data of one dataset row an eval check reads
    /// (only in a [`Check`] of an eval entry with a `dataset`, never in an
    /// interaction's content; `docs/format.md`, "Datasets").
    Case,
    /// `judge…`: the output of the judge contract of a model-graded check,
    /// read by its `pass` expression only (`docs/format.md`, "Model-graded
    /// checks").
    Judge,
}

/// One resolved step of a reference path.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Segment {
    /// An object property.
    Key(Str),
    /// An array element.
    Index(u32),
}

/// A resolved reference.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub struct Path {
    /// Where the path starts.
    pub root: Root,
    /// The steps below the root.
    pub segments: Seq<Segment>,
    /// The path as written (`inputs.customer.name`), for messages.
    pub source: Str,
}

/// The ordering a [`Expr::Compare`] tests (`docs/format.md`,
/// "Expressions").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CompareOp {
    /// `left < right`
    Lt,
    /// `left <= right`
    Le,
    /// `left > right`
    Gt,
    /// `left >= right`
    Ge,
}

impl CompareOp {
    /// The format's spelling (`lt`, `le`, `gt`, `ge`).
    pub fn as_str(self) -> &'static str {
        match self {
            CompareOp::Lt => "lt",
            CompareOp::Le => "le",
            CompareOp::Gt => "gt",
            CompareOp::Ge => "ge",
        }
    }

    /// Whether `ordering` (of `left` against `right`) satisfies the operator.
    pub fn holds(self, ordering: std::cmp::Ordering) -> bool {
        use std::cmp::Ordering::{Greater, Less};
        match self {
            CompareOp::Lt => ordering == Less,
            CompareOp::Le => ordering != Greater,
            CompareOp::Gt => ordering == Greater,
            CompareOp::Ge => ordering != Less,
        }
    }
}

/// A typed expression: references, JSON literals, equality, negation,
/// conjunction, disjunction, numeric comparison, containment and length
/// (`docs/format.md`, "Expressions").
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Expr {
    /// A reference.
    Ref(Path),
    /// A JSON literal.
    Literal(IrValue),
    /// JSON equality of two operands.
    Equals(Ptr<Expr>, Ptr<Expr>),
    /// Boolean negation.
    Not(Ptr<Expr>),
    /// Boolean conjunction (short-circuit).
    And(Seq<Expr>),
    /// Boolean disjunction (short-circuit).
    Or(Seq<Expr>),
    /// Numeric comparison of two non-null numbers (exact, integers of any
    /// size included).
    Compare(CompareOp, Ptr<Expr>, Ptr<Expr>),
    /// Containment: a string holds a substring, or an array holds an
    /// element equal (JSON equality) to the item. `(container, item)`.
    Contains(Ptr<Expr>, Ptr<Expr>),
    /// The length of a string (in Unicode scalar values, as `minLength`
    /// counts) or an array: an integer.
    Length(Ptr<Expr>),
}

/// A named check of an eval fixture's `expect`: a boolean expression over
/// `inputs`, `context` and `output` (`docs/format.md`, "Eval fixtures").
/// Checks are compiled beside an interaction, never inside it: the
/// interaction fingerprint does not change with them. Evaluated by
/// `templiqx::evaluate_check` ([`crate::expect`]).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub struct Check {
    /// The check's id, unique within its fixture.
    pub id: Str,
    /// What the check means, as the contract describes it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<Str>,
    /// The boolean expression.
    pub expr: Expr,
    /// The expression as written, in a compact functional notation
    /// (`compare(ge, output.score, 0)`), for messages.
    pub source: Str,
    /// Where the check was written (not serialised).
    #[serde(skip)]
    pub site: Option<Site>,
    /// For a model-graded check (`kind: judge`), the judge contract and its
    /// inputs; `expr` is then the check's `pass` expression, which reads
    /// the judge's output as the root `judge` (`docs/format.md`,
    /// "Model-graded checks"). `None` for every other check.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub judge: Option<Judge>,
}

/// The judge of a model-graded check (`docs/format.md`, "Model-graded
/// checks"): another contract of the same package, rendered with inputs
/// computed from the judged execution and executed by an eval run.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub struct Judge {
    /// The judge contract's id.
    pub contract: Str,
    /// The judge's inputs, in the order written: each an expression over
    /// the judged fixture's `inputs`, `context`, `case` and `output`.
    pub with: Seq<JudgeInput>,
}

/// One input of a [`Judge`].
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub struct JudgeInput {
    /// The judge contract's input it sets.
    pub name: Str,
    /// Its value.
    pub value: Expr,
}

/// A lowered content node. Includes are already expanded; components are
/// calls into [`Interaction::components`].
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Node {
    /// Literal text.
    Text(Str),
    /// An interpolated value with its filters, applied left to right.
    Interpolate {
        /// The value.
        value: Expr,
        /// The filters.
        filters: Seq<Filter>,
        /// Where the node was written (not serialised).
        #[serde(skip)]
        site: SiteId,
    },
    /// Conditional content.
    When {
        /// A boolean expression.
        condition: Expr,
        /// Rendered when true.
        then: Seq<Node>,
        /// Rendered when false.
        otherwise: Seq<Node>,
        /// Where the node was written (not serialised).
        #[serde(skip)]
        site: SiteId,
    },
    /// Iteration over an array; each item is pushed as the next local slot.
    ForEach {
        /// An array-valued expression.
        collection: Expr,
        /// The body, rendered once per item.
        body: Seq<Node>,
        /// Written between items.
        separator: Option<Str>,
        /// Where the node was written (not serialised).
        #[serde(skip)]
        site: SiteId,
    },
    /// A component call: a new frame whose slots are `args`, in the
    /// component's parameter order; `None` is an omitted optional parameter.
    Call {
        /// Index into [`Interaction::components`].
        component: u32,
        /// Argument expressions, evaluated in the caller's frame.
        args: Seq<Option<Expr>>,
        /// The arguments whose values must be validated against their
        /// parameter's schema when the call renders (those the compiler
        /// could not prove to fit; `docs/format.md`, "Components"). Omitted
        /// from the serialised form when empty.
        #[serde(skip_serializing_if = "no_checks")]
        checks: Seq<ArgCheck>,
        /// Where the call was written (not serialised).
        #[serde(skip)]
        site: SiteId,
    },
}

/// A component argument validated when its call renders: a referenced
/// value the compiler could not prove to meet the parameter's full schema
/// (a `format`, bounds, `enum`, ... the source does not declare). A value
/// that fails is `TQX_COMPONENT_ARGUMENT`, located at the argument.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub struct ArgCheck {
    /// The argument's index in the call's `args` (its parameter's
    /// position in [`Component::parameters`]).
    pub slot: u16,
    /// The parameter's schema.
    pub schema: Schema,
    /// Where the argument was written (not serialised).
    #[serde(skip)]
    pub site: SiteId,
}

fn no_checks(checks: &Seq<ArgCheck>) -> bool {
    checks.is_empty()
}

/// A lowered component.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub struct Component {
    /// The component's name.
    pub name: Str,
    /// Parameter names, in slot order.
    pub parameters: Seq<Str>,
    /// The body.
    pub body: Seq<Node>,
}

/// A declared input or context field.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub struct Field {
    /// The field name.
    pub name: Str,
    /// Its schema.
    pub schema: Schema,
    /// Whether a request must supply it.
    pub required: bool,
}

/// A message of the interaction.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub struct Message {
    /// The role.
    pub role: Role,
    /// The content nodes.
    pub content: Seq<Node>,
    /// Where the message was written (not serialised).
    #[serde(skip)]
    pub site: SiteId,
}

/// Bounded runtime hints, a closed set (`docs/format.md`, "`runtime_policy`").
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuntimePolicy {
    /// Sampling temperature, 0–2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Nucleus sampling mass, 0–1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f64>,
    /// Output token cap, 1–1,000,000.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_output_tokens: Option<u32>,
    /// Per-attempt timeout in milliseconds, 1–600,000.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u32>,
    /// Attempts including the first, 1–10.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_attempts: Option<u32>,
}

/// A validated extension (`docs/format.md`, "Extensions").
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub struct Extension {
    /// The namespaced key (`openai.reasoning_effort`).
    pub key: Str,
    /// The capability it requires.
    pub capability: Str,
    /// Its schema (tool-contract references already inlined).
    pub schema: Schema,
    /// The value, carried unchanged.
    pub value: IrValue,
}

/// A compiled, validated interaction.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Interaction {
    /// Which compiler produced it (`"templiqx"`); part of the request shape.
    pub compiler: Str,
    /// The contract id.
    pub contract_id: Str,
    /// The contract's semver version.
    pub contract_version: Str,
    /// Declared inputs.
    pub inputs: Seq<Field>,
    /// Declared context.
    pub context: Seq<Field>,
    /// The messages, in order.
    pub messages: Seq<Message>,
    /// Components referenced by [`Node::Call`].
    pub components: Seq<Component>,
    /// The structured output contract.
    pub output_schema: Schema,
    /// Runtime hints.
    pub runtime_policy: RuntimePolicy,
    /// Extensions, sorted by key.
    pub extensions: Seq<Extension>,
    /// Contract capabilities plus extension capabilities, sorted, unique.
    pub required_capabilities: Seq<Str>,
    /// The target profile it was compiled for, sorted, unique.
    pub target_capabilities: Seq<Str>,
    /// Whether `context.locale` is declared (locale-driven filters read it).
    pub context_locale: bool,
    /// Where the nodes and messages were written, indexed by [`SiteId`]:
    /// render-time diagnostics point into the contract with these. Not
    /// part of the interaction fingerprint (a contract's spelling changes
    /// its sites, not its meaning).
    #[serde(skip)]
    pub sites: Seq<Site>,
    /// Fingerprint of the contract (canonical JSON of the composed contract).
    /// Not part of the interaction fingerprint.
    #[serde(skip)]
    pub contract_fingerprint: Str,
    /// Fingerprint of this interaction (its canonical serialisation, which
    /// includes the target profile, without the two fingerprint fields).
    #[serde(skip)]
    pub interaction_fingerprint: Str,
}

/// Where a node or message of an interaction was written in its contract
/// sources: render-time diagnostics (`TQX_VALUE_MISSING`,
/// `TQX_FILTER_INPUT`, `TQX_TYPE_MISMATCH`, `TQX_RENDER_BUDGET`) carry this
/// file, JSON Pointer (RFC 6901) and span.
#[derive(Clone, Debug, PartialEq)]
pub struct Site {
    /// The source file, as the compiler names it (`contracts/greeting.yaml`,
    /// `partials/intro.yaml`).
    pub file: Str,
    /// The node's JSON Pointer in that file (`/messages/1/content/0`).
    pub pointer: Str,
    /// The node's 1-based line/column span in that file.
    pub span: Span,
}

/// An index into [`Interaction::sites`]. [`SiteId::NONE`] (and any index
/// past the table, as in hand-built IR) means the site is unknown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SiteId(pub u32);

impl SiteId {
    /// No known site.
    pub const NONE: SiteId = SiteId(u32::MAX);
}

impl Default for SiteId {
    fn default() -> Self {
        SiteId::NONE
    }
}

impl Interaction {
    /// The site `id` names, when known.
    pub fn site(&self, id: SiteId) -> Option<&Site> {
        self.sites.get(id.0 as usize)
    }
}
