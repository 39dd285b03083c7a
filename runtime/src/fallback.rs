//! Adapter combinators over the async port (`docs/runtime.md`, "Fallback
//! and round robin"): a [`Fallback`] holds named member adapters and runs
//! each execution on one of them, moving on to the next when a member
//! fails with a failure class its [`FallbackPolicy`] names.
//!
//! - **Order.** [`Strategy::Fallback`] tries the members in the order they
//!   were added, every time; [`Strategy::RoundRobin`] starts each execution
//!   at the next member in turn (spreading requests over equivalent
//!   adapters) and, on a listed failure, goes on around the ring.
//! - **Each member is a whole port.** The combinator calls each member's
//!   own `execute` (or `execute_streaming`): the member's capability gate,
//!   retries (`runtime_policy.max_attempts`, its `before_retry`), output
//!   validation, receipt and redaction are intact; the combinator only
//!   decides whether to call the next one.
//! - **Capability gates per member.** A member lacking a capability the
//!   interaction requires is skipped, not called, with a warning
//!   `TQX_ADAPTER_SKIPPED` in [`Route::diagnostics`]; when every member is
//!   skipped the execution fails with `TQX_CAPABILITY_UNSUPPORTED` (nothing
//!   invoked).
//! - **Never after forwarded output.** A streamed attempt that forwarded a
//!   `Delta` or `ToolCallDelta` to the sink is final: its failure is the
//!   execution's, whatever the policy says (the consumer has seen its
//!   output). The sink receives exactly one terminal event, the
//!   combinator's.
//! - **The route.** [`Execution::route`] and [`ExecutionError::route`] name
//!   the member that answered and every attempt (member name, outcome,
//!   code, invocations, duration); `attempts` counts the invocations of
//!   every member. The payload-free [`Receipt`](templiqx_contracts::Receipt)
//!   and its fingerprint are the answering (or last failing) member's,
//!   unchanged (`docs/runtime.md`, "Receipts", "Routes").
//! - **Traces.** One span `route` per execution, one child span
//!   `route.attempt` per member tried or skipped, and inside each the
//!   member's own `chat` span (`docs/runtime.md`, "Traces").
//!
//! ```
//! use templiqx::{FailureClass, Fallback, FallbackPolicy};
//! # use templiqx::{AdapterDescriptor, AdapterOutput, AsyncRuntimeAdapter, RenderedInteraction, RuntimeFailure};
//! # struct Provider(AdapterDescriptor);
//! # impl AsyncRuntimeAdapter for Provider {
//! #     fn descriptor(&self) -> &AdapterDescriptor { &self.0 }
//! #     async fn invoke(&self, _: &RenderedInteraction<'_>) -> Result<AdapterOutput, RuntimeFailure> {
//! #         unimplemented!()
//! #     }
//! # }
//! # let local = Provider(AdapterDescriptor::new("openai", ["structured_output"]));
//! # let hosted = Provider(AdapterDescriptor::new("openai", ["structured_output"]));
//! let chain = Fallback::chain(FallbackPolicy::default())
//!     .member("local", local)
//!     .member("hosted", hosted);
//! assert_eq!(chain.policy().classes(), [
//!     FailureClass::Timeout,
//!     FailureClass::RateLimited,
//!     FailureClass::Unavailable,
//! ]);
//! ```

// `ExecutionError` is returned by value, as the port defines it.
#![allow(clippy::result_large_err)]

use crate::adapter::{
    AdapterDescriptor, AdapterOutput, AsyncRuntimeAdapter, CAPABILITY_GATE_ID, Execution,
    ExecutionError, missing_capabilities,
};
use crate::trace::TARGET;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;
use templiqx_contracts::{
    Code, Diagnostic, RenderedInteraction, RuntimeFailure, Severity, StreamEvent,
};
use tracing::field::Empty;
use tracing::{Instrument, Span};

/// A class of failure a [`FallbackPolicy`] may name: each is one failure
/// code of the port.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureClass {
    /// `TQX_RUNTIME_TIMEOUT`.
    Timeout,
    /// `TQX_RUNTIME_RATE_LIMITED`.
    RateLimited,
    /// `TQX_RUNTIME_UNAVAILABLE`.
    Unavailable,
    /// `TQX_RUNTIME_INVALID_RESPONSE`.
    InvalidResponse,
    /// `TQX_RUNTIME_PERMANENT`.
    Permanent,
    /// `TQX_OUTPUT_SCHEMA`: the member's output violated the output schema
    /// (another model may keep to it).
    OutputSchema,
}

impl FailureClass {
    /// Every class, in declaration order.
    pub const ALL: [FailureClass; 6] = [
        FailureClass::Timeout,
        FailureClass::RateLimited,
        FailureClass::Unavailable,
        FailureClass::InvalidResponse,
        FailureClass::Permanent,
        FailureClass::OutputSchema,
    ];

    /// The failure code of the class.
    pub fn code(self) -> Code {
        match self {
            FailureClass::Timeout => Code::RuntimeTimeout,
            FailureClass::RateLimited => Code::RuntimeRateLimited,
            FailureClass::Unavailable => Code::RuntimeUnavailable,
            FailureClass::InvalidResponse => Code::RuntimeInvalidResponse,
            FailureClass::Permanent => Code::RuntimePermanent,
            FailureClass::OutputSchema => Code::OutputSchema,
        }
    }

    /// The class of a failure code, if it has one (the capability gate's
    /// `TQX_CAPABILITY_UNSUPPORTED` has none: a member lacking a capability
    /// is skipped before it is called).
    pub fn of(code: Code) -> Option<FailureClass> {
        FailureClass::ALL.into_iter().find(|c| c.code() == code)
    }

    /// The class's name: `timeout`, `rate_limited`, `unavailable`,
    /// `invalid_response`, `permanent`, `output_schema` (as serialised).
    pub fn name(self) -> &'static str {
        match self {
            FailureClass::Timeout => "timeout",
            FailureClass::RateLimited => "rate_limited",
            FailureClass::Unavailable => "unavailable",
            FailureClass::InvalidResponse => "invalid_response",
            FailureClass::Permanent => "permanent",
            FailureClass::OutputSchema => "output_schema",
        }
    }

    /// The class named `name` ([`FailureClass::name`]; `-` is read as `_`).
    pub fn parse(name: &str) -> Option<FailureClass> {
        let name = name.trim().replace('-', "_");
        FailureClass::ALL.into_iter().find(|c| c.name() == name)
    }
}

impl fmt::Display for FailureClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// On which failures a [`Fallback`] moves on to its next member. The
/// default names `timeout`, `rate_limited` and `unavailable`: the failures
/// another provider may not have. A failure of another class is the
/// execution's failure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FallbackPolicy {
    classes: Vec<FailureClass>,
}

impl FallbackPolicy {
    /// A policy moving on after the failures of `classes` (sorted,
    /// deduplicated; none: never, as for pure round robin).
    pub fn new(classes: impl IntoIterator<Item = FailureClass>) -> FallbackPolicy {
        let mut classes: Vec<FailureClass> = classes.into_iter().collect();
        classes.sort();
        classes.dedup();
        FallbackPolicy { classes }
    }

    /// The classes it names, in declaration order.
    pub fn classes(&self) -> &[FailureClass] {
        &self.classes
    }

    /// Whether a failure with `code` moves on to the next member.
    pub fn falls_back_on(&self, code: Code) -> bool {
        FailureClass::of(code).is_some_and(|c| self.classes.contains(&c))
    }
}

impl Default for FallbackPolicy {
    fn default() -> FallbackPolicy {
        FallbackPolicy::new([
            FailureClass::Timeout,
            FailureClass::RateLimited,
            FailureClass::Unavailable,
        ])
    }
}

/// Which member a [`Fallback`] tries first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Strategy {
    /// The members in the order added, every execution.
    Fallback,
    /// Each execution starts at the next member in turn, then goes on
    /// around the ring.
    RoundRobin,
}

impl Strategy {
    /// `fallback` or `round_robin`, as serialised.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Fallback => "fallback",
            Strategy::RoundRobin => "round_robin",
        }
    }
}

/// How one member's turn ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AttemptOutcome {
    /// The member's execution succeeded: it answered.
    Success,
    /// The member's execution failed (after its own retries).
    Failure,
    /// The member was not called: it lacks a required capability.
    Skipped,
}

/// One member's turn in a [`Route`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RouteAttempt {
    /// The member's name in the combinator.
    pub adapter: String,
    /// How its turn ended.
    pub outcome: AttemptOutcome,
    /// The failure's code (`TQX_RUNTIME_*`, `TQX_OUTPUT_SCHEMA`), or
    /// `TQX_ADAPTER_SKIPPED` for a skipped member; absent on success.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<Code>,
    /// Invocations the member's own execution made, its retries included
    /// (0 when skipped).
    pub invocations: u32,
    /// Wall time of the member's execution, in milliseconds (0 when
    /// skipped).
    pub duration_ms: u64,
}

/// The route of one execution through a combinator: which member answered
/// and every member's turn, in the order taken (`docs/runtime.md`,
/// "Receipts", "Routes"). Payload-free like the receipt: names, codes,
/// counts and durations.
///
/// JSON: `{"strategy": "fallback", "answered_by": "hosted", "attempts":
/// [{"adapter": "local", "outcome": "failure", "code":
/// "TQX_RUNTIME_UNAVAILABLE", "invocations": 1, "duration_ms": 3},
/// {"adapter": "hosted", "outcome": "success", "invocations": 1,
/// "duration_ms": 812}]}`, with `diagnostics` when a member was skipped.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Route {
    /// The combinator's strategy.
    pub strategy: Strategy,
    /// The member whose execution succeeded; `None` on failure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answered_by: Option<String>,
    /// Every member's turn, in order.
    pub attempts: Vec<RouteAttempt>,
    /// The `TQX_ADAPTER_SKIPPED` warnings of skipped members.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub diagnostics: Vec<Diagnostic>,
}

/// The `id` of the failure of a combinator without members.
pub const EMPTY_ID: &str = "templiqx.route.empty";

/// Named member adapters run as one ([module docs](self)): a fallback
/// chain ([`Fallback::chain`]) or a round robin
/// ([`Fallback::round_robin`]), moving on after the failures its
/// [`FallbackPolicy`] names. Implements [`AsyncRuntimeAdapter`], so it runs
/// wherever one adapter does (typed calls, `templiqx eval`); members of
/// different types are wrapped in an enum of the host's.
pub struct Fallback<A> {
    members: Vec<(String, A)>,
    policy: FallbackPolicy,
    strategy: Strategy,
    descriptor: AdapterDescriptor,
    next: AtomicUsize,
}

impl<A> fmt::Debug for Fallback<A> {
    /// The strategy, policy and member names only: members may hold
    /// secrets.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Fallback")
            .field("strategy", &self.strategy)
            .field("policy", &self.policy.classes)
            .field(
                "members",
                &self.members.iter().map(|(n, _)| n).collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

impl<A: AsyncRuntimeAdapter> Fallback<A> {
    /// A fallback chain without members yet: every execution tries the
    /// members in the order added.
    pub fn chain(policy: FallbackPolicy) -> Fallback<A> {
        Fallback::new(Strategy::Fallback, policy)
    }

    /// A round robin without members yet: each execution starts at the
    /// next member in turn.
    pub fn round_robin(policy: FallbackPolicy) -> Fallback<A> {
        Fallback::new(Strategy::RoundRobin, policy)
    }

    /// A combinator of `strategy` without members yet.
    pub fn new(strategy: Strategy, policy: FallbackPolicy) -> Fallback<A> {
        Fallback {
            members: Vec::new(),
            policy,
            strategy,
            descriptor: AdapterDescriptor::new(strategy.name(), Vec::<String>::new()),
            next: AtomicUsize::new(0),
        }
    }

    /// The combinator with `adapter` added last, under `name` (what the
    /// route calls it; a host keeps names distinct).
    #[must_use]
    pub fn member(mut self, name: impl Into<String>, adapter: A) -> Fallback<A> {
        self.members.push((name.into(), adapter));
        self.descriptor = AdapterDescriptor::new(
            format!(
                "{}({})",
                self.strategy.name(),
                self.names().collect::<Vec<_>>().join(", ")
            ),
            self.members
                .iter()
                .flat_map(|(_, a)| a.descriptor().capabilities.iter().cloned()),
        );
        self
    }

    /// The members' names, in order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.members.iter().map(|(n, _)| n.as_str())
    }

    /// The members, in order.
    pub fn members(&self) -> impl Iterator<Item = (&str, &A)> {
        self.members.iter().map(|(n, a)| (n.as_str(), a))
    }

    /// The policy.
    pub fn policy(&self) -> &FallbackPolicy {
        &self.policy
    }

    /// The strategy.
    pub fn strategy(&self) -> Strategy {
        self.strategy
    }

    /// The member indices of one execution, in the order to try.
    fn order(&self) -> impl Iterator<Item = usize> + Send + use<A> {
        let n = self.members.len();
        let start = match self.strategy {
            Strategy::Fallback => 0,
            Strategy::RoundRobin if n > 0 => self.next.fetch_add(1, Ordering::Relaxed) % n,
            Strategy::RoundRobin => 0,
        };
        (0..n).map(move |i| (start + i) % n)
    }

    /// One execution: each member in turn ([module docs](self)), streaming
    /// to `sink` when given; the terminal event is the caller's to send.
    async fn route(
        &self,
        request: &RenderedInteraction<'_>,
        mut sink: Option<&mut (dyn FnMut(StreamEvent) + Send)>,
    ) -> Result<Execution, ExecutionError> {
        let span = route_span(self.strategy, self.members.len());
        let recorded = span.clone();
        async move {
            let mut route = Route {
                strategy: self.strategy,
                answered_by: None,
                attempts: Vec::new(),
                diagnostics: Vec::new(),
            };
            let mut invocations = 0u32;
            let mut last: Option<ExecutionError> = None;
            for (turn, index) in self.order().enumerate() {
                let (name, member) = &self.members[index];
                let turn = turn + 1;
                let missing = missing_capabilities(member.descriptor(), request.interaction);
                if !missing.is_empty() {
                    let span = attempt_span(name, turn);
                    span.record("templiqx.route.outcome", "skipped");
                    span.record("error.type", Code::AdapterSkipped.as_str());
                    route.diagnostics.push(skipped(name, &missing));
                    route.attempts.push(RouteAttempt {
                        adapter: name.clone(),
                        outcome: AttemptOutcome::Skipped,
                        code: Some(Code::AdapterSkipped),
                        invocations: 0,
                        duration_ms: 0,
                    });
                    continue;
                }
                let span = attempt_span(name, turn);
                let started = Instant::now();
                let mut forwarded = false;
                let result = match sink.as_deref_mut() {
                    None => member.execute(request).instrument(span.clone()).await,
                    Some(sink) => {
                        let mut forward = |event: StreamEvent| match event {
                            StreamEvent::Delta { .. } | StreamEvent::ToolCallDelta { .. } => {
                                forwarded = true;
                                sink(event);
                            }
                            // The combinator sends the one terminal event.
                            StreamEvent::Complete { .. } | StreamEvent::Failed { .. } => {}
                        };
                        member
                            .execute_streaming(request, &mut forward)
                            .instrument(span.clone())
                            .await
                    }
                };
                let duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
                match result {
                    Ok(mut execution) => {
                        invocations += execution.attempts;
                        span.record("templiqx.route.outcome", "success");
                        span.record("templiqx.route.invocations", execution.attempts);
                        route.attempts.push(RouteAttempt {
                            adapter: name.clone(),
                            outcome: AttemptOutcome::Success,
                            code: None,
                            invocations: execution.attempts,
                            duration_ms,
                        });
                        route.answered_by = Some(name.clone());
                        execution.attempts = invocations;
                        execution.route = Some(route);
                        finish(&recorded, Ok(&execution));
                        return Ok(execution);
                    }
                    Err(error) => {
                        invocations += error.attempts;
                        let code = error.failure.code;
                        let moves_on = self.policy.falls_back_on(code) && !forwarded;
                        span.record("templiqx.route.outcome", "failure");
                        span.record("templiqx.route.invocations", error.attempts);
                        span.record("templiqx.route.forwarded", forwarded);
                        span.record("templiqx.route.fell_back", moves_on);
                        span.record("error.type", code.as_str());
                        route.attempts.push(RouteAttempt {
                            adapter: name.clone(),
                            outcome: AttemptOutcome::Failure,
                            code: Some(code),
                            invocations: error.attempts,
                            duration_ms,
                        });
                        last = Some(error);
                        if !moves_on {
                            break;
                        }
                    }
                }
            }
            let mut error = last.unwrap_or_else(|| self.none_called(&route));
            error.attempts = invocations;
            error.diagnostics.extend(route.diagnostics.iter().cloned());
            error.route = Some(route);
            finish(&recorded, Err(&error));
            Err(error)
        }
        .instrument(span)
        .await
    }

    /// The failure when no member was called: every member lacks a
    /// required capability (`TQX_CAPABILITY_UNSUPPORTED`), or there is no
    /// member (`TQX_RUNTIME_PERMANENT`, [`EMPTY_ID`]).
    fn none_called(&self, route: &Route) -> ExecutionError {
        let (failure, help) = if self.members.is_empty() {
            (
                RuntimeFailure::new(
                    Code::RuntimePermanent,
                    EMPTY_ID,
                    format!("the {} has no member adapter", self.strategy.name()),
                ),
                "add at least one member adapter",
            )
        } else {
            (
                RuntimeFailure::new(
                    Code::CapabilityUnsupported,
                    CAPABILITY_GATE_ID,
                    format!(
                        "no member of the {} provides every capability the interaction requires ({} skipped)",
                        self.strategy.name(),
                        route.attempts.len()
                    ),
                ),
                "add a member whose descriptor lists the required capabilities",
            )
        };
        ExecutionError {
            receipt: failure.receipt(),
            diagnostics: vec![Diagnostic::error(failure.code, failure.detail.clone()).help(help)],
            failure,
            attempts: 0,
            output: None,
            route: None,
            usage: None,
        }
    }
}

/// The `TQX_ADAPTER_SKIPPED` warning for member `name`, which lacks
/// `missing`.
fn skipped(name: &str, missing: &[&str]) -> Diagnostic {
    let list = missing
        .iter()
        .map(|c| format!("`{c}`"))
        .collect::<Vec<_>>()
        .join(", ");
    Diagnostic {
        severity: Severity::Warning,
        ..Diagnostic::error(
            Code::AdapterSkipped,
            format!(
                "adapter `{name}` was skipped: it does not provide the required capabilit{} {list}",
                if missing.len() == 1 { "y" } else { "ies" }
            ),
        )
        .help("give it the capability, or leave it out of the chain for this contract")
    }
}

impl<A: AsyncRuntimeAdapter> AsyncRuntimeAdapter for Fallback<A> {
    /// Named after the strategy and the members (`fallback(local,
    /// hosted)`); the capabilities are every member's (the gate applies per
    /// member).
    fn descriptor(&self) -> &AdapterDescriptor {
        &self.descriptor
    }

    /// One invocation outside the port: each member's `invoke` in the
    /// strategy's order, skipping members that lack a required capability
    /// and moving on after the failures the policy names. No route is
    /// recorded; [`execute`](AsyncRuntimeAdapter::execute) is the call to
    /// make.
    async fn invoke(
        &self,
        request: &RenderedInteraction<'_>,
    ) -> Result<AdapterOutput, RuntimeFailure> {
        let mut last = None;
        for index in self.order() {
            let (_, member) = &self.members[index];
            if !missing_capabilities(member.descriptor(), request.interaction).is_empty() {
                continue;
            }
            match member.invoke(request).await {
                Ok(output) => return Ok(output),
                Err(failure) => {
                    let moves_on = self.policy.falls_back_on(failure.code);
                    last = Some(failure);
                    if !moves_on {
                        break;
                    }
                }
            }
        }
        Err(last.unwrap_or_else(|| {
            RuntimeFailure::new(
                Code::CapabilityUnsupported,
                CAPABILITY_GATE_ID,
                "no member adapter can take the interaction",
            )
        }))
    }

    /// Every member's redaction, in turn.
    fn redact(&self, text: &str) -> String {
        self.members
            .iter()
            .fold(text.to_owned(), |text, (_, a)| a.redact(&text))
    }

    /// Never: each member retries within its own execution.
    fn before_retry(
        &self,
        _request: &RenderedInteraction<'_>,
        _failure: &RuntimeFailure,
        _attempts_made: u32,
    ) -> impl Future<Output = bool> + Send {
        std::future::ready(false)
    }

    /// Each member's own `execute` in turn ([module docs](self)); the
    /// execution's `route` says which answered.
    ///
    /// # Errors
    /// The failure of the last member called (with its receipt; `attempts`
    /// counts every member's invocations), `TQX_CAPABILITY_UNSUPPORTED`
    /// when every member was skipped, or `TQX_RUNTIME_PERMANENT` without
    /// members; each with the route.
    fn execute(
        &self,
        request: &RenderedInteraction<'_>,
    ) -> impl Future<Output = Result<Execution, ExecutionError>> + Send {
        self.route(request, None)
    }

    /// Each member's own `execute_streaming` in turn, their deltas
    /// forwarded to `sink`, never moving on after a member forwarded one;
    /// then exactly one terminal event, the combinator's.
    ///
    /// # Errors
    /// As [`execute`](AsyncRuntimeAdapter::execute).
    // The `Send` bound is the port's: written out, a change that loses it
    // fails here.
    #[allow(clippy::manual_async_fn)]
    fn execute_streaming(
        &self,
        request: &RenderedInteraction<'_>,
        sink: &mut (dyn FnMut(StreamEvent) + Send),
    ) -> impl Future<Output = Result<Execution, ExecutionError>> + Send {
        async move {
            let outcome = self.route(request, Some(&mut *sink)).await;
            sink(match &outcome {
                Ok(execution) => StreamEvent::Complete {
                    receipt: execution.receipt.clone(),
                },
                Err(error) => StreamEvent::Failed {
                    failure: error.failure.clone(),
                },
            });
            outcome
        }
    }
}

/// The span of one execution through a combinator.
fn route_span(strategy: Strategy, members: usize) -> Span {
    tracing::info_span!(
        target: TARGET,
        "route",
        "otel.name" = format!("route {}", strategy.name()),
        "otel.kind" = "internal",
        "otel.status_code" = Empty,
        "error.type" = Empty,
        "templiqx.route.strategy" = strategy.name(),
        "templiqx.route.members" = members,
        "templiqx.route.answered_by" = Empty,
        "templiqx.route.attempts" = Empty,
    )
}

/// The span of one member's turn (its `chat` span, if called, inside).
fn attempt_span(name: &str, turn: usize) -> Span {
    tracing::info_span!(
        target: TARGET,
        "route.attempt",
        "otel.name" = format!("route.attempt {name}"),
        "otel.kind" = "internal",
        "error.type" = Empty,
        "templiqx.route.adapter" = name,
        "templiqx.route.attempt" = turn,
        "templiqx.route.outcome" = Empty,
        "templiqx.route.invocations" = Empty,
        "templiqx.route.forwarded" = Empty,
        "templiqx.route.fell_back" = Empty,
    )
}

/// Records the outcome of an execution on its route span.
fn finish(span: &Span, outcome: Result<&Execution, &ExecutionError>) {
    if span.is_disabled() {
        return;
    }
    let route = match outcome {
        Ok(e) => e.route.as_ref(),
        Err(e) => e.route.as_ref(),
    };
    span.record(
        "templiqx.route.attempts",
        route.map_or(0, |r| r.attempts.len()),
    );
    match outcome {
        Ok(_) => {
            if let Some(name) = route.and_then(|r| r.answered_by.as_deref()) {
                span.record("templiqx.route.answered_by", name);
            }
            span.record("otel.status_code", "OK");
        }
        Err(error) => {
            span.record("error.type", error.failure.code.as_str());
            span.record("otel.status_code", "ERROR");
        }
    }
}
