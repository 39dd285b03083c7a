//! The one evaluator of expressions (`docs/format.md`, "Expressions"),
//! shared by the renderer (`templiqx::render`) and eval checks
//! ([`expect::evaluate_check`](crate::expect::evaluate_check)).
//!
//! [`eval`] walks an [`Expr`](crate::ir::Expr) over a [`Scope`]: the caller's side of an
//! evaluation, which says where each reference's root value comes from
//! (`inputs`, `context`, a local, `output`) and turns a [`Failure`] into the
//! caller's error (its help text, its pointer). Everything else is the same
//! for both callers: the operators ([`compare`], [`contains`], [`length`]),
//! `and`/`or` stopping at the deciding operand, the resolution of a path's segments, and the messages
//! of `TQX_VALUE_MISSING` and `TQX_TYPE_MISMATCH`.
//!
//! The functions are generic over the scope, so each caller gets its own
//! copy, references inlined: the renderer's hot path pays no dynamic call.
//!
//! Four files, each using only the ones before it: `place.rs`, which
//! [`Kind`]s and root scopes each [`Place`] allows (contract content keeps
//! to the format's expressions; eval checks add `compare`, `contains`,
//! `length` and `output`); `operators.rs`, what `compare`, `contains` and
//! `length` mean for two values; `text.rs`, how an expression is written
//! (a check's [`source_text`], its name in messages: [`describe`]);
//! `eval.rs`, the walk ([`eval`], [`boolean`], [`resolve`]), the
//! [`Scope`] and the [`Failure`]s. Eval checks ([`expect`](crate::expect))
//! are a caller, as the renderer is. The evaluator walks every kind
//! wherever it is: which kinds a contract may write where is the
//! compiler's check, by [`Place`].
//!
//! ```
//! use templiqx_contracts::expr::{self, Failure, Scope};
//! use templiqx_contracts::ir::{Expr, Path, Root, Segment};
//! use templiqx_contracts::{AsValue, Number, Seq, ValueRef};
//!
//! /// A scope with `inputs` only; a failure is its code and message.
//! struct Inputs<'a>(ValueRef<'a>);
//!
//! impl<'a> Scope<'a> for Inputs<'a> {
//!     type Error = String;
//!     fn root(&self, path: &'a Path) -> Result<ValueRef<'a>, String> {
//!         match path.root {
//!             Root::Inputs => Ok(self.0),
//!             _ => Err(format!("`{}` is out of scope", path.source)),
//!         }
//!     }
//!     fn fail(&self, failure: Failure<'_>) -> String {
//!         format!("{}: {}", failure.code().as_str(), failure.message())
//!     }
//! }
//!
//! let inputs = serde_json::json!({ "items": ["a", "b"] });
//! let scope = Inputs(inputs.as_value());
//! let items = Expr::Ref(Path {
//!     root: Root::Inputs,
//!     segments: Seq::Owned(vec![Segment::Key("items".into())]),
//!     source: "inputs.items".into(),
//! });
//! let length = Expr::Length(items.into());
//! assert!(matches!(expr::eval(&scope, &length), Ok(ValueRef::Number(Number::I64(2)))));
//! assert_eq!(
//!     expr::boolean(&scope, &length, "the condition"),
//!     Err("TQX_TYPE_MISMATCH: the condition must be a boolean, but \
//!          `length(inputs.items)` is a number".to_owned())
//! );
//! ```
mod eval;
mod operators;
mod place;
mod text;

pub use eval::{Failure, Scope, boolean, eval, pointer, resolve};
pub use operators::{compare, contains, length};
pub use place::{Kind, Place, allowed_only_in, not_allowed_help};
pub use text::{describe, source_text};
