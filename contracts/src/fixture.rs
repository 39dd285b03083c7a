//! Eval fixtures as data (`docs/format.md`, "Eval fixtures"): what a
//! generated contract module exposes as `EVALS`, so a host can run the
//! contract's fixtures through its own adapter, and the evaluation of a
//! fixture's `expect` checks against an output.
//!
//! ```
//! use std::borrow::Cow;
//! use templiqx_contracts::ir::{Check, CompareOp, Expr, Path, Root, Segment};
//! use templiqx_contracts::{EvalFixture, IrValue, JsonMap, Number, Ptr, Seq};
//!
//! // What a generated module holds as `EVALS`, written by hand.
//! static SCORE: Expr = Expr::Ref(Path {
//!     root: Root::Output,
//!     segments: Seq::Static(&[Segment::Key(Cow::Borrowed("score"))]),
//!     source: Cow::Borrowed("output.score"),
//! });
//! static ZERO: Expr = Expr::Literal(IrValue::Number(Number::I64(0)));
//! static EVALS: &[EvalFixture] = &[EvalFixture {
//!     id: Cow::Borrowed("positive"),
//!     inputs_json: Cow::Borrowed(r#"{"text":"great"}"#),
//!     context_json: Cow::Borrowed("{}"),
//!     fake_output_json: Some(Cow::Borrowed(r#"{"score":3}"#)),
//!     checks: Seq::Static(&[Check {
//!         id: Cow::Borrowed("scored"),
//!         description: None,
//!         expr: Expr::Compare(CompareOp::Gt, Ptr::Static(&SCORE), Ptr::Static(&ZERO)),
//!         source: Cow::Borrowed("compare(gt, output.score, 0)"),
//!         site: None,
//!         judge: None,
//!     }]),
//!     dataset: None,
//! }];
//!
//! let fixture = &EVALS[0];
//! // Typed accessors: any `DeserializeOwned` type (a generated `Inputs`;
//! // here a map of the values as written).
//! let inputs: JsonMap = fixture.inputs()?;
//! let context: JsonMap = fixture.context()?;
//!
//! // An output (here the fake one; a host's comes from its adapter).
//! let output = fixture.fake_output()?.expect("the fixture has one");
//! let outcomes = fixture.evaluate_checks(&inputs, &context, &output);
//! assert!(outcomes.iter().all(|o| o.passed()));
//!
//! let wrong = templiqx_contracts::json::parse(r#"{"score":-1}"#)?;
//! let outcomes = fixture.evaluate_checks(&inputs, &context, &wrong);
//! assert_eq!(outcomes[0].result, Ok(false));
//! assert_eq!(
//!     outcomes[0].to_string(),
//!     "check `scored` failed: compare(gt, output.score, 0)\n  output.score = -1"
//! );
//! # Ok::<(), templiqx_contracts::Diagnostics>(())
//! ```

use crate::expect::{Observed, describe_failure, evaluate_check, observed_values};
use crate::ir::Check;
use crate::json::{self, Json};
use crate::seq::{Seq, Str};
use crate::value::{AsValue, ObjectView};
use crate::{Code, Diagnostic, Diagnostics};
use serde::de::DeserializeOwned;
use std::fmt;

/// One eval fixture of a contract (`evals[]`), as static data: generated
/// modules hold every fixture of their contract in `EVALS: &[EvalFixture]`,
/// in declaration order, and their eval `#[test]`s read it there.
///
/// The fixture's values are kept as JSON text (compact in generated code,
/// parsed only when asked for): [`inputs`](EvalFixture::inputs) and
/// [`context`](EvalFixture::context) parse and decode them into a typed
/// request (a generated `Inputs` and `Context`),
/// [`fake_output`](EvalFixture::fake_output) parses the canned output.
/// Its `expect` checks are compiled ([`Check`]) and evaluated by
/// [`evaluate_checks`](EvalFixture::evaluate_checks) against any
/// schema-valid output: a decoded `Output` or the JSON an execution
/// returned.
#[derive(Clone, Debug, PartialEq)]
pub struct EvalFixture {
    /// The fixture's id, unique within the contract.
    pub id: Str,
    /// The fixture's `inputs` as JSON text: an object (`{}` when the
    /// fixture has none), keys in the order written, numbers as written.
    pub inputs_json: Str,
    /// The fixture's `context` as JSON text, like
    /// [`inputs_json`](EvalFixture::inputs_json).
    pub context_json: Str,
    /// The fixture's `fake_output` as JSON text, when it has one. The
    /// compiler has validated it against `output_schema`.
    pub fake_output_json: Option<Str>,
    /// The fixture's compiled `expect` checks, in the order written (empty
    /// without `expect`).
    pub checks: Seq<Check>,
    /// The data file of an eval entry that names one instead of giving one
    /// case inline (`docs/format.md`, "Datasets"); `None` for an inline
    /// fixture. Its rows are not embedded in generated code: the entry's
    /// `inputs_json` and `context_json` are `{}`, and a host reads the rows
    /// from the package by [`DatasetRef::path`] (with
    /// `templiqx_build::dataset`, which checks them as the compiler did),
    /// knowing them to be the compiled ones when their SHA-256 is
    /// [`DatasetRef::sha256`].
    pub dataset: Option<DatasetRef>,
}

/// Where the rows of a dataset eval entry are (`docs/format.md`,
/// "Datasets"): the file as the contract names it, and the digest of the
/// bytes the compiler checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DatasetRef {
    /// The package-relative path, with `/` separators, as written in the
    /// contract (`evals/labelled.jsonl`).
    pub path: Str,
    /// The lowercase hex SHA-256 of the file's bytes when it was compiled.
    pub sha256: Str,
}

impl EvalFixture {
    /// The fixture's inputs, parsed (the strict reader, [`json::parse`])
    /// and deserialised into `T`: a generated `Inputs` (whose
    /// deserialisation validates the values), or [`Json`] for the values
    /// as written.
    ///
    /// # Errors
    /// One `TQX_EVAL_INVALID` diagnostic naming the fixture when the text is not JSON or
    /// does not deserialise into `T` (its message quoting the
    /// `TQX_VALUE_INVALID` problems a generated type reports). A compiled
    /// fixture was checked against the contract's declarations, so this
    /// happens only for hand-built fixtures or another contract's types.
    pub fn inputs<T: DeserializeOwned>(&self) -> Result<T, Diagnostics> {
        self.read("inputs", &self.inputs_json)
    }

    /// The fixture's context, as [`inputs`](EvalFixture::inputs) reads the
    /// inputs (into a generated `Context`, or [`Json`]).
    ///
    /// # Errors
    /// As [`inputs`](EvalFixture::inputs).
    pub fn context<T: DeserializeOwned>(&self) -> Result<T, Diagnostics> {
        self.read("context", &self.context_json)
    }

    /// The fixture's `fake_output`, parsed; `None` when it has none. To
    /// get the typed output, pass it to the contract's `decode_output`.
    ///
    /// # Errors
    /// One `TQX_EVAL_INVALID` diagnostic naming the fixture when the text
    /// is not JSON (hand-built fixtures only).
    pub fn fake_output(&self) -> Result<Option<Json>, Diagnostics> {
        self.fake_output_json
            .as_deref()
            .map(|text| self.parse("fake_output", text))
            .transpose()
            .map_err(Diagnostics::one)
    }

    /// Evaluates every check of the fixture ([`evaluate_check`]) against
    /// `inputs` and `context` (the fixture's request: the decoded
    /// [`inputs`](EvalFixture::inputs) and
    /// [`context`](EvalFixture::context)) and a model `output`, in the
    /// fixture's order: one [`CheckOutcome`] per check, whatever its
    /// result. `output` must be valid against the contract's
    /// `output_schema` — a decoded `Output`, or the output of a successful
    /// execution (the port validated it); against another value a check
    /// may fail with `TQX_TYPE_MISMATCH`.
    ///
    /// A fixture without checks gives an empty list: whether the output is
    /// schema-valid is the execution's result, not a check's.
    pub fn evaluate_checks<O: AsValue + ?Sized>(
        &self,
        inputs: &dyn ObjectView,
        context: &dyn ObjectView,
        output: &O,
    ) -> Vec<CheckOutcome<'_>> {
        let output = output.as_value();
        self.checks
            .iter()
            .map(|check| {
                let result = evaluate_check(check, inputs, context, output);
                let observed = if result == Ok(true) {
                    Vec::new()
                } else {
                    observed_values(check, inputs, context, output)
                };
                CheckOutcome {
                    check,
                    result,
                    observed,
                }
            })
            .collect()
    }

    fn parse(&self, what: &str, text: &str) -> Result<Json, Diagnostic> {
        json::parse(text).map_err(|d| {
            Diagnostic::error(
                Code::EvalInvalid,
                format!(
                    "the {what} of eval fixture `{}` is not JSON: {}",
                    self.id, d.message
                ),
            )
        })
    }

    fn read<T: DeserializeOwned>(&self, what: &str, text: &str) -> Result<T, Diagnostics> {
        let value = self.parse(what, text).map_err(Diagnostics::one)?;
        T::deserialize(value).map_err(|e| {
            Diagnostic::error(
                Code::EvalInvalid,
                format!(
                    "the {what} of eval fixture `{}` do not decode: {e}",
                    self.id
                ),
            )
            .help("decode a fixture into the `Inputs` and `Context` of its own contract")
            .into()
        })
    }
}

/// The outcome of one check of an eval fixture against one output
/// ([`EvalFixture::evaluate_checks`]). Its `Display` is one line for a
/// check that passed (``check `id` passed``) and, for one that did not,
/// [`describe_failure`]'s account: id, expression, description, the
/// error if any, and each value the check read.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckOutcome<'f> {
    /// The check.
    pub check: &'f Check,
    /// `Ok(true)` (passed), `Ok(false)` (failed), or the diagnostic of a
    /// check that could not be decided (`TQX_VALUE_MISSING`,
    /// `TQX_TYPE_MISMATCH`; see [`evaluate_check`]), which counts as
    /// failed.
    pub result: Result<bool, Diagnostic>,
    /// What the check read ([`observed_values`]), for a check that did
    /// not pass; empty for one that passed.
    pub observed: Vec<Observed>,
}

impl CheckOutcome<'_> {
    /// Whether the check passed (`result` is `Ok(true)`).
    pub fn passed(&self) -> bool {
        self.result == Ok(true)
    }
}

impl fmt::Display for CheckOutcome<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.passed() {
            write!(f, "check `{}` passed", self.check.id)
        } else {
            f.write_str(&describe_failure(self.check, &self.result, &self.observed))
        }
    }
}
