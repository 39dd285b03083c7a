//! Templiqx runtime: render precompiled LLM interaction contracts from typed
//! values, validate model outputs, and run them through a
//! [`RuntimeAdapter`].
//!
//! ```
//! // Compiled while this crate builds; a contract error is a compiler error.
//! templiqx::include_contract!(
//!     "../examples/packages/demo/contracts/greeting.yaml",
//!     target = ["structured_output"]
//! );
//!
//! let request = greeting::render(
//!     &greeting::Inputs { name: "Ada".to_owned(), vip: true },
//!     &greeting::Context { organization: "Analytical Engines".to_owned() },
//! )?;
//! assert_eq!(request.messages[1].content, "Greet Ada (a valued guest) on behalf of Analytical Engines");
//!
//! let output = greeting::decode_output(&serde_json::json!({ "greeting": "Hello Ada!" }))?;
//! assert_eq!(output.greeting, "Hello Ada!");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Without the macro
//!
//! The interaction IR is plain data; `include_contract!` embeds it as
//! statics, and it can be built (or deserialised by tools) by hand:
//!
//! ```
//! use std::borrow::Cow;
//! use templiqx::contracts::ir::{Expr, Field, Message, Node, Path, Root, Segment, SiteId};
//! use templiqx::contracts::{Filter, Interaction, JsonType, Role, Schema, Seq, TypeSet};
//!
//! // What `include_contract!` embeds as static data, written by hand.
//! static USER: &[Node] = &[
//!     Node::Text(Cow::Borrowed("Hello ")),
//!     Node::Interpolate {
//!         value: Expr::Ref(Path {
//!             root: Root::Inputs,
//!             segments: Seq::Static(&[Segment::Key(Cow::Borrowed("name"))]),
//!             source: Cow::Borrowed("inputs.name"),
//!         }),
//!         filters: Seq::Static(&[Filter::Trim]),
//!         // Where the node was written (an index into `sites`); none here.
//!         site: SiteId::NONE,
//!     },
//! ];
//! let interaction = Interaction {
//!     compiler: "templiqx".into(),
//!     contract_id: "greeting".into(),
//!     contract_version: "0.1.0".into(),
//!     inputs: Seq::Owned(vec![Field {
//!         name: "name".into(),
//!         schema: Schema { types: TypeSet::of(JsonType::String), min_length: Some(1), ..Schema::ANY },
//!         required: true,
//!     }]),
//!     context: Seq::EMPTY,
//!     messages: Seq::Owned(vec![Message {
//!         role: Role::User,
//!         content: Seq::Static(USER),
//!         site: SiteId::NONE,
//!     }]),
//!     components: Seq::EMPTY,
//!     output_schema: Schema::ANY,
//!     runtime_policy: Default::default(),
//!     extensions: Seq::EMPTY,
//!     required_capabilities: Seq::EMPTY,
//!     target_capabilities: Seq::EMPTY,
//!     context_locale: false,
//!     sites: Seq::EMPTY,
//!     contract_fingerprint: "".into(),
//!     interaction_fingerprint: "".into(),
//! };
//!
//! // Any `ObjectView` serves as inputs and context: generated structs,
//! // maps, or a `serde_json` object.
//! let inputs = serde_json::json!({ "name": "  Ryan " });
//! let inputs = inputs.as_object().expect("an object");
//! let context = serde_json::Map::new();
//!
//! let rendered = templiqx::render(&interaction, inputs, &context)?;
//! println!("{}", rendered.messages[0].content);
//! assert_eq!(rendered.messages[0].content, "Hello Ryan");
//!
//! // Request values are checked against the declarations first.
//! let empty = serde_json::Map::new();
//! let error = templiqx::render(&interaction, &empty, &context).unwrap_err();
//! assert_eq!(error.diagnostics[0].code.as_str(), "TQX_VALUE_INVALID");
//! assert_eq!(error.diagnostics[0].json_pointer.as_deref(), Some("/inputs/name"));
//! # Ok::<(), templiqx::RenderError>(())
//! ```
//!
//! # What happens where
//!
//! - [`render()`] validates the request ([`validate_request`]) and renders
//!   every message within the render budgets (`docs/format.md`, "Render
//!   budgets"); the [`filters`] module holds the fixed filters and the
//!   locale table (`docs/format.md`, "Filters").
//! - [`validate_output`] checks a model output against the output schema.
//! - [`evaluate_check`] evaluates a compiled `expect` check of an eval
//!   fixture ([`Check`], compiled by `templiqx_build::compile_checks`)
//!   against inputs, context and a model output; [`observed_values`] and
//!   [`describe_failure`] say what a failed check read (`docs/format.md`,
//!   "Eval fixtures"). A generated module's `EVALS` holds its fixtures as
//!   [`EvalFixture`]s, whose
//!   [`evaluate_checks`](EvalFixture::evaluate_checks) runs every check of
//!   a fixture against an output ([`CheckOutcome`]).
//! - [`RuntimeAdapter`] / [`AsyncRuntimeAdapter`] are the port to a model:
//!   an adapter implements `invoke`; the provided `execute` methods gate
//!   capabilities, validate the output and build the payload-free
//!   [`Receipt`] (`docs/runtime.md`, "Receipts").
//! - [`Fallback`] runs an execution on one of several member adapters: a
//!   fallback chain or a round robin, moving on after the failure classes
//!   its [`FallbackPolicy`] names, each member's port intact, the
//!   [`Route`] on the result (the [`fallback`] module, `docs/runtime.md`,
//!   "Fallback and round robin").
//! - [`execute()`] (and [`execute_async`], [`execute_streaming`],
//!   [`execute_streaming_async`]) is one typed call: render, the port's
//!   `execute`, decode into the generated `Output` ([`Executed`]), each
//!   failure with its `TQX_*` codes ([`ExecuteError`]); generated modules
//!   wrap it as `execute(&adapter, &inputs, &context)` (the [`call`]
//!   module, `docs/runtime.md`, "Typed calls"). [`execute_partial`] (and
//!   [`execute_partial_async`]) streams too, and shows the generated
//!   `PartialOutput` as it is written ([`Streamed`], [`PartialStream`],
//!   [`Grow`]; `docs/runtime.md`, "Typed streaming").
//!
//! This crate never depends on the compiler (`templiqx-build`): a host
//! binary links no YAML parser and no JSON Schema compiler.

pub mod adapter;
pub mod call;
pub mod decode;
pub mod fallback;
pub mod filters;
pub mod output;
pub mod partial;
pub mod recover;
pub mod render;
pub mod request;
pub mod trace;
#[doc(hidden)]
pub mod typed;

pub use templiqx_contracts as contracts;

pub use adapter::{
    AdapterDescriptor, AdapterOutput, AsyncRuntimeAdapter, Execution, ExecutionError,
    RuntimeAdapter, Usage,
};
pub use call::{
    ExecuteError, Executed, PartialStream, Snapshot, Streamed, execute, execute_async,
    execute_partial, execute_partial_async, execute_streaming, execute_streaming_async,
};
pub use decode::{DecodeError, Scope, check_root, decode_output};
pub use fallback::{FailureClass, Fallback, FallbackPolicy, Route, RouteAttempt, Strategy};
pub use filters::Locale;
pub use output::validate_output;
pub use partial::PartialJson;
pub use recover::{OutputRecovery, RecoveryStep};
pub use render::{RenderError, render, render_envelope};
pub use request::validate_request;
pub use templiqx_contracts::expect::{
    Observed, describe_failure, evaluate_check, evaluate_check_with_case, observed_values,
    observed_values_with_case,
};
pub use templiqx_contracts::ir::Check;
pub use templiqx_contracts::{
    AsValue, Code, Diagnostic, Interaction, Json, JsonMap, ObjectView, Receipt,
    RenderedInteraction, RenderedMessage, RuntimeFailure, StreamEvent, ValueRef,
};
pub use templiqx_contracts::{CheckOutcome, DatasetRef, EvalFixture};
#[cfg(feature = "macros")]
pub use templiqx_macros::include_contract;
pub use typed::{Follow, FollowState, Grow};

/// What generated code refers to, by absolute path
/// (`::templiqx::__private::…`), so it never depends on the host's `use`
/// lines or dependency names. Not a public API: it may change in any
/// release.
/// The `ObjectView` and `AsValue` impls of a generated struct, over its
/// [`templiqx_contracts::Members`] table (`__private::object_view!(Type)`).
/// Not a public API.
#[doc(hidden)]
#[macro_export]
macro_rules! __object_view {
    ($t:ty) => {
        impl $crate::__private::ObjectView for $t {
            fn get(&self, key: &str) -> ::core::option::Option<$crate::__private::ValueRef<'_>> {
                $crate::__private::members::get(self, key)
            }
            fn len(&self) -> usize {
                $crate::__private::members::len(self)
            }
            fn entries(
                &self,
            ) -> ::std::boxed::Box<
                dyn ::core::iter::Iterator<Item = (&str, $crate::__private::ValueRef<'_>)> + '_,
            > {
                $crate::__private::members::entries(self)
            }
            fn entries_sorted(&self) -> bool {
                $crate::__private::members::entries_sorted(self)
            }
            fn for_each_entry(
                &self,
                f: &mut dyn ::core::ops::FnMut(
                    &str,
                    $crate::__private::ValueRef<'_>,
                ) -> ::core::ops::ControlFlow<()>,
            ) -> ::core::ops::ControlFlow<()> {
                $crate::__private::members::for_each_entry(self, f)
            }
        }
        impl $crate::__private::AsValue for $t {
            fn as_value(&self) -> $crate::__private::ValueRef<'_> {
                $crate::__private::ValueRef::Object(self)
            }
        }
    };
}

/// The `Serialize` and `Deserialize` impls of a generated struct or enum,
/// as generic code of the runtime ([`typed`]) over its view and its
/// `Decode` impl: `serde_impls!(Type)`, or for a root type
/// `serde_impls!(Type, INTERACTION, Scope)`, whose `Deserialize` runs
/// the runtime's checks first ([`decode::deserialize_root`]). Not a
/// public API.
#[doc(hidden)]
#[macro_export]
macro_rules! __serde_impls {
    ($t:ident) => {
        $crate::__serde_impls!(@serialize $t);
        impl<'de> $crate::__private::serde::Deserialize<'de> for $t {
            fn deserialize<D: $crate::__private::serde::Deserializer<'de>>(
                deserializer: D,
            ) -> ::core::result::Result<Self, D::Error> {
                $crate::__private::typed::deserialize(deserializer)
            }
        }
    };
    ($t:ident, $interaction:ident, $scope:ident) => {
        $crate::__serde_impls!(@serialize $t);
        impl<'de> $crate::__private::serde::Deserialize<'de> for $t {
            fn deserialize<D: $crate::__private::serde::Deserializer<'de>>(
                deserializer: D,
            ) -> ::core::result::Result<Self, D::Error> {
                $crate::__private::deserialize_root(
                    deserializer,
                    &$interaction,
                    $crate::__private::Scope::$scope,
                )
            }
        }
    };
    (@serialize $t:ident) => {
        impl $crate::__private::serde::Serialize for $t {
            fn serialize<S: $crate::__private::serde::Serializer>(
                &self,
                serializer: S,
            ) -> ::core::result::Result<S::Ok, S::Error> {
                $crate::__private::typed::serialize(self, serializer)
            }
        }
    };
}

#[doc(hidden)]
pub mod __private {
    pub use crate::__object_view as object_view;
    pub use crate::__serde_impls as serde_impls;
    pub use crate::adapter::{AsyncRuntimeAdapter, RuntimeAdapter};
    pub use crate::call::{
        ExecuteError, Executed, Streamed, execute, execute_async, execute_partial,
        execute_partial_async, execute_streaming, execute_streaming_async,
    };
    pub use crate::decode::{DecodeError, Scope, decode_output, deserialize_root, run_eval};
    pub use crate::partial::PartialNode;
    pub use crate::render::{RenderError, render};
    pub use crate::typed::{self, Decode, Fields, Follow, Grow, variant};
    /// Short names for what generated statics repeat most, each the item
    /// it names: `S` is `Str::Borrowed` (`Cow::Borrowed`), `L` is
    /// `Seq::Static`, `P` is `Ptr::Static`, `Some`/`None` are `Option`'s.
    pub use ::core::option::Option::{None, Some};
    pub use ::serde;
    pub use ::serde_json;
    pub use ::std::borrow::Cow;
    pub use ::std::borrow::Cow::Borrowed as S;
    pub use ::std::boxed::Box;
    pub use ::std::option::Option;
    pub use templiqx_contracts;
    pub use templiqx_contracts::ir::{
        Component, Expr, Extension, Field, Filter, Interaction, Message, Node, Path, Role, Root,
        RuntimePolicy, Segment,
    };
    pub use templiqx_contracts::schema::{Format, Schema, TypeSet};
    pub use templiqx_contracts::seq::Ptr::Static as P;
    pub use templiqx_contracts::seq::Seq::Static as L;
    pub use templiqx_contracts::seq::{Ptr, Seq, Str};
    pub use templiqx_contracts::value::{
        ArrayView, AsValue, BigInt, EmptyObject, IrValue, JsonType, Members, Number, ObjectView,
        ValueRef, members,
    };
    pub use templiqx_contracts::{
        Code, DatasetRef, Diagnostic, EvalFixture, Json, JsonMap, Position, RenderedInteraction,
        Span, StreamEvent, budget, canonical, ir,
    };
}
