//! Where an expression is written, and what it may use there
//! (`docs/format.md`, "Expressions", "Where each kind is allowed"): the
//! one rule the compiler, the language server's completion and the
//! format's JSON Schema read.
//!
//! The format has two expression sets. Contract content — `when`
//! conditions, interpolations, `for_each` collections, component
//! arguments — is what every implementation of `templiqx/v1alpha1`
//! renders, so it uses only the format's kinds ([`Kind::is_format`]:
//! `ref`, `literal`, `equals`, `not`, `and`, `or`) and the root scopes
//! `inputs` and `context`. Eval checks are read by Templiqx's eval tooling
//! only, and add the operators an eval needs (`compare`, `contains`,
//! `length`) and the root scope `output`. A check may instead be
//! model-graded (`judge`, a whole check, never an operand: see
//! [`Place::allows_operand`]); its `pass` expression ([`Place::Pass`])
//! adds the root scope `judge`, the judge contract's output
//! (`docs/format.md`, "Model-graded checks"). The compiler reports a kind
//! written where its [`Place`] does not allow it as
//! `TQX_EXPR_KIND_NOT_ALLOWED`, with [`not_allowed_help`].
//!
//! Adding a place (another eval-only expression) or a root scope is one
//! change here: a [`Place`] variant, its arm in [`Place::allows`],
//! [`Place::roots`] and [`Place::describe`].
//!
//! ```
//! use templiqx_contracts::expr::{Kind, Place};
//!
//! assert!(Place::Check.allows(Kind::Compare));
//! assert!(!Place::Content.allows(Kind::Compare));
//! let content: Vec<&str> = Place::Content.kinds().map(Kind::as_str).collect();
//! assert_eq!(content, ["ref", "literal", "equals", "not", "and", "or"]);
//! assert_eq!(Place::Check.roots(), ["inputs", "context", "output"]);
//! assert!(Place::Check.allows(Kind::Judge) && !Place::Check.allows_operand(Kind::Judge));
//! assert_eq!(Place::Pass.roots(), ["inputs", "context", "output", "judge"]);
//! assert_eq!(Kind::parse("length"), Some(Kind::Length));
//! ```

use crate::ir::Expr;
use crate::words;

/// An expression kind, as `kind` spells it (`docs/format.md`,
/// "Expressions").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// `ref`: a reference.
    Ref,
    /// `literal`: a JSON value.
    Literal,
    /// `equals`: JSON equality.
    Equals,
    /// `not`: negation.
    Not,
    /// `and`: conjunction.
    And,
    /// `or`: disjunction.
    Or,
    /// `compare`: numeric comparison (eval checks only).
    Compare,
    /// `contains`: containment (eval checks only).
    Contains,
    /// `length`: the length of a string or an array (eval checks only).
    Length,
    /// `judge`: a model-graded check, judged by another contract of the
    /// package (a whole eval check only; `docs/format.md`, "Model-graded
    /// checks").
    Judge,
}

impl Kind {
    /// Every kind, in the order `docs/format.md` lists them.
    pub const ALL: &'static [Kind] = &[
        Kind::Ref,
        Kind::Literal,
        Kind::Equals,
        Kind::Not,
        Kind::And,
        Kind::Or,
        Kind::Compare,
        Kind::Contains,
        Kind::Length,
        Kind::Judge,
    ];

    /// The kind as `kind` spells it.
    pub const fn as_str(self) -> &'static str {
        match self {
            Kind::Ref => "ref",
            Kind::Literal => "literal",
            Kind::Equals => "equals",
            Kind::Not => "not",
            Kind::And => "and",
            Kind::Or => "or",
            Kind::Compare => "compare",
            Kind::Contains => "contains",
            Kind::Length => "length",
            Kind::Judge => "judge",
        }
    }

    /// The kind `name` spells, if any.
    pub fn parse(name: &str) -> Option<Kind> {
        Kind::ALL.iter().copied().find(|k| k.as_str() == name)
    }

    /// The kind of a compiled expression (a compiled judge check's `pass`
    /// is an expression of its own kind: the judge is beside it,
    /// [`crate::ir::Check::judge`]).
    pub const fn of(expr: &Expr) -> Kind {
        match expr {
            Expr::Ref(_) => Kind::Ref,
            Expr::Literal(_) => Kind::Literal,
            Expr::Equals(..) => Kind::Equals,
            Expr::Not(_) => Kind::Not,
            Expr::And(_) => Kind::And,
            Expr::Or(_) => Kind::Or,
            Expr::Compare(..) => Kind::Compare,
            Expr::Contains(..) => Kind::Contains,
            Expr::Length(_) => Kind::Length,
        }
    }

    /// Whether the kind is one of the format's own expressions, which
    /// every implementation of the format renders; `false` for the eval
    /// operators `compare`, `contains`, `length` and the check kind `judge`.
    pub const fn is_format(self) -> bool {
        !matches!(
            self,
            Kind::Compare | Kind::Contains | Kind::Length | Kind::Judge
        )
    }
}

/// Where an expression is written: what decides the kinds and root scopes
/// it may use (`docs/format.md`, "Where each kind is allowed").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Place {
    /// Contract content: a `when` condition, an interpolation, a
    /// `for_each` collection, a component argument, and every operand
    /// inside them. The format's kinds only; roots `inputs` and `context`
    /// (and the locals in scope).
    Content,
    /// The `check` of an eval fixture's `expect` entry, and every operand
    /// inside it. Every kind (`judge` as the whole check only); roots
    /// `inputs`, `context` and `output` (and `case` in a dataset entry).
    /// The `with` expressions of a `judge` are written here too.
    Check,
    /// The `pass` expression of a model-graded check (`kind: judge`) and
    /// every operand inside it: every kind but `judge`; roots `inputs`,
    /// `context`, `output` and `judge`, the judge contract's output.
    Pass,
}

impl Place {
    /// Every place, in the order helps list them.
    pub const ALL: &'static [Place] = &[Place::Content, Place::Check, Place::Pass];

    /// Whether an expression of kind `kind` may be written here.
    pub const fn allows(self, kind: Kind) -> bool {
        match self {
            Place::Content => kind.is_format(),
            Place::Check => true,
            Place::Pass => !matches!(kind, Kind::Judge),
        }
    }

    /// Whether an expression of kind `kind` may be an operand (of `not`,
    /// `and`, `compare`, …, or a `judge`'s `with`) here: as
    /// [`Place::allows`], but a `judge` is always a whole check.
    pub const fn allows_operand(self, kind: Kind) -> bool {
        self.allows(kind) && !matches!(kind, Kind::Judge)
    }

    /// The kinds allowed here, in [`Kind::ALL`] order.
    pub fn kinds(self) -> impl Iterator<Item = Kind> {
        Kind::ALL.iter().copied().filter(move |k| self.allows(*k))
    }

    /// The root scopes a reference may start with here, besides the locals
    /// in scope (`docs/format.md`, "References and scoping").
    pub const fn roots(self) -> &'static [&'static str] {
        match self {
            Place::Content => &["inputs", "context"],
            Place::Check => &["inputs", "context", "output"],
            Place::Pass => &["inputs", "context", "output", "judge"],
        }
    }

    /// How the place is named in a help: "contract content", "the
    /// `expect` checks of eval fixtures".
    pub const fn describe(self) -> &'static str {
        match self {
            Place::Content => "contract content",
            Place::Check => "the `expect` checks of eval fixtures",
            Place::Pass => "the `pass` expression of a model-graded check",
        }
    }

    /// The places a kind is allowed in, in [`Place::ALL`] order.
    pub fn allowing(kind: Kind) -> impl Iterator<Item = Place> {
        Place::ALL.iter().copied().filter(move |p| p.allows(kind))
    }

    /// The places a root scope exists in, in [`Place::ALL`] order.
    pub fn having_root(root: &str) -> impl Iterator<Item = Place> + '_ {
        Place::ALL
            .iter()
            .copied()
            .filter(move |p| p.roots().contains(&root))
    }
}

/// Joins descriptions with commas and a final "and".
fn and_list(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => (*one).to_owned(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// The help of an expression of kind `kind` written in `place`, which does
/// not allow it: where the kind is allowed, and which kinds are allowed
/// here.
///
/// ```
/// use templiqx_contracts::expr::{Kind, Place, not_allowed_help};
///
/// assert_eq!(
///     not_allowed_help(Kind::Compare, Place::Content),
///     "`compare` is allowed only in the `expect` checks of eval fixtures; contract \
///      content uses the format's expressions `ref`, `literal`, `equals`, `not`, `and`, `or`, which every \
///      implementation of the format renders alike"
/// );
/// ```
pub fn not_allowed_help(kind: Kind, place: Place) -> String {
    let here: Vec<&str> = place.kinds().map(Kind::as_str).collect();
    let why = if place == Place::Content {
        ", which every implementation of the format renders alike"
    } else {
        ""
    };
    format!(
        "{}; {} uses the format's expressions {}{why}",
        allowed_only_in(kind),
        place.describe(),
        words::names(&here)
    )
}

/// Where a kind is allowed, as a help says it to one who wrote it (or a
/// misspelling of it) somewhere else: "`compare` is allowed only in the
/// `expect` checks of eval fixtures".
///
/// ```
/// use templiqx_contracts::expr::{Kind, allowed_only_in};
///
/// assert_eq!(
///     allowed_only_in(Kind::Length),
///     "`length` is allowed only in the `expect` checks of eval fixtures"
/// );
/// ```
pub fn allowed_only_in(kind: Kind) -> String {
    // A check's `pass` is part of the check: named only when the check
    // itself does not allow the kind.
    let places: Vec<&str> = Place::allowing(kind)
        .filter(|p| *p != Place::Pass || !Place::Check.allows(kind))
        .map(Place::describe)
        .collect();
    format!(
        "`{}` is allowed only in {}",
        kind.as_str(),
        and_list(&places)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_is_allowed_somewhere_and_checks_allow_every_kind() {
        for kind in Kind::ALL {
            assert!(Place::allowing(*kind).next().is_some(), "{kind:?}");
            assert!(Place::Check.allows(*kind));
            assert_eq!(Kind::parse(kind.as_str()), Some(*kind));
            assert_eq!(Place::Content.allows(*kind), kind.is_format());
        }
        assert_eq!(Kind::parse("lenght"), None);
    }

    #[test]
    fn content_keeps_to_the_format_and_its_roots() {
        let refused: Vec<&str> = Kind::ALL
            .iter()
            .filter(|k| !Place::Content.allows(**k))
            .map(|k| k.as_str())
            .collect();
        assert_eq!(refused, ["compare", "contains", "length", "judge"]);
        assert_eq!(Place::Content.roots(), ["inputs", "context"]);
        let output: Vec<Place> = Place::having_root("output").collect();
        assert_eq!(output, [Place::Check, Place::Pass]);
        let judge: Vec<Place> = Place::having_root("judge").collect();
        assert_eq!(judge, [Place::Pass]);
        let pass: Vec<&str> = Place::Pass.kinds().map(Kind::as_str).collect();
        assert!(!pass.contains(&"judge") && pass.contains(&"compare"));
        for place in Place::ALL {
            assert!(!place.allows_operand(Kind::Judge), "{place:?}");
        }
    }

    #[test]
    fn the_help_names_where_the_kind_is_allowed() {
        let help = not_allowed_help(Kind::Length, Place::Content);
        assert!(
            help.starts_with("`length` is allowed only in the `expect` checks of eval fixtures;"),
            "{help}"
        );
        assert!(!help.contains("`compare`"), "{help}");
    }
}
