//! The real model providers the `eval` tool may run on, when the server
//! allows one (`templiqx mcp --allow-providers`, `docs/mcp.md`, "Real
//! providers").
//!
//! The server knows no provider crate: whoever starts it hands it an
//! [`EvalProvider`], an adapter already configured (`templiqx mcp`
//! configures it from its command line as `templiqx eval` does).

use std::future::Future;
use std::pin::Pin;
use templiqx_eval::{Endpoint, Eval, EvalError, Outcome};

/// The future of [`EvalProvider::run`]: the run's outcome.
pub type RunFuture<'a> = Pin<Box<dyn Future<Output = Result<Outcome, EvalError>> + 'a>>;

/// A configured model provider an `eval` call may run on instead of the
/// fake one ([`Options::with_provider`](crate::Options::with_provider)).
/// A call runs on it only when it asks for it by [`name`](Self::name);
/// without one, asking for any provider but `fake` is a tool error.
///
/// Its secrets stay its own: neither [`endpoint`](Self::endpoint) nor its
/// `Debug` may show an API key, and its adapter redacts them from the
/// failures it reports (`AsyncRuntimeAdapter::redact`).
pub trait EvalProvider: Send + Sync + std::fmt::Debug {
    /// The name a call's `provider` argument gives: `openai` or
    /// `anthropic`.
    fn name(&self) -> &str;

    /// What the run records as its endpoint: the provider and model (no
    /// credentials).
    fn endpoint(&self) -> Endpoint;

    /// Runs `eval` with the provider's adapter (`eval.run(&adapter)`). It
    /// is driven on a current-thread Tokio runtime of the server's.
    fn run<'a>(&'a self, eval: Eval<'a>) -> RunFuture<'a>;
}
