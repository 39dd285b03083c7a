//! Shared vocabulary of Templiqx.
//!
//! This crate depends on no other Templiqx crate. It defines what the
//! compiler (`templiqx-build`), the runtime (`templiqx`), the mock runtime
//! and the tools exchange: [`Diagnostic`]s with stable [`Code`]s and the
//! [`OperationEnvelope`], the render budget constants, [`Json`] (a JSON
//! document as the one strict reader [`json::parse`] reads it, integers
//! exact at any size), canonical JSON and fingerprints, the compiled [`Interaction`] IR, compiled [`Schema`]s and
//! their validator, expressions and their one evaluator ([`expr`]), eval checks ([`expect`]), eval fixtures as data ([`EvalFixture`]), [`Receipt`]s and [`StreamEvent`]s, and the [`words`]
//! every diagnostic shares (suggestions, value kinds, value previews).
//!
//! ```
//! use templiqx_contracts::{canonical, Receipt};
//! use serde_json::json;
//!
//! // Canonical JSON (RFC 8785): sorted keys, no insignificant whitespace.
//! let value = json!({"b": 1.0, "a": [true, null, "x"]});
//! assert_eq!(canonical::to_canonical_string(&value), r#"{"a":[true,null,"x"],"b":1}"#);
//!
//! // A fingerprint is the lowercase hex SHA-256 of those bytes.
//! let fp = canonical::fingerprint(&value);
//! assert_eq!(fp.len(), 64);
//!
//! // Receipts are payload-free: outcome and fingerprints only.
//! let receipt = Receipt::for_output("req-fp", &fp, true);
//! assert!(receipt.is_success());
//! ```

pub mod budget;
pub mod canonical;
pub mod diagnostic;
pub mod envelope;
pub mod expect;
pub mod expr;
pub mod fixture;
pub mod format;
pub mod ir;
pub mod json;
pub mod profile;
pub mod receipt;
pub mod rendered;
pub mod schema;
pub mod seq;
pub mod stream;
pub mod typed;
pub mod validate;
pub mod value;
pub mod words;

pub use diagnostic::{
    Code, Diagnostic, Diagnostics, Position, Severity, Span, Suggestion, position,
};
pub use envelope::{API_VERSION, Operation, OperationEnvelope};
pub use fixture::{CheckOutcome, DatasetRef, EvalFixture};
pub use ir::{Filter, Interaction, Role, RuntimePolicy};
pub use json::{Json, JsonMap, JsonNumber};
pub use profile::CapabilityProfile;
pub use receipt::{Receipt, RuntimeFailure};
pub use rendered::{RenderedInteraction, RenderedMessage};
pub use schema::{Format, Schema, TypeSet};
pub use seq::{Ptr, Seq, Str};
pub use stream::StreamEvent;
pub use validate::SchemaViolation;
pub use value::{
    ArrayView, AsValue, BigInt, IrValue, JsonType, Members, Number, ObjectView, ValueRef,
};
