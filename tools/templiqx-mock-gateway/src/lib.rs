//! `templiqx-mock-gateway`: the conformance HTTP gateway over
//! `templiqx.mock/v1alpha1` scenarios (`docs/mock.md`, `docs/gateway.md`).
//!
//! **Conformance-only.** This is the HTTP transport for the scenario
//! fixtures, so that hosts in other languages and CI jobs can run the
//! same corpus over HTTP. It is not a production Templiqx API, not an MCP
//! transport, and has no auth, retrieval or model provider: it replays
//! scripted scenarios and returns payload-free fingerprints.
//!
//! ```
//! use axum::body::{Body, to_bytes};
//! use axum::http::Request;
//! use templiqx_contracts::CapabilityProfile;
//! use templiqx_mock_gateway::{Catalog, ExecuteResponse, RouterOptions, router};
//! use tower::ServiceExt;
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build()?.block_on(async {
//! // Load, validate and prepare every scenario of an inventory, once.
//! let target = CapabilityProfile::parse_list("structured_output");
//! let catalog = Catalog::load("../../examples/crm3/scenarios".as_ref(), &target)?;
//! let app = router(catalog, RouterOptions::default());
//!
//! // What a host does over HTTP (here in-process, without a socket).
//! let request = Request::post("/v1/scenarios/lease-happy-path/execute").body(Body::empty())?;
//! let response = app.oneshot(request).await?;
//! assert_eq!(response.status(), 200);
//! let body = to_bytes(response.into_body(), 1 << 20).await?;
//! let result: ExecuteResponse = serde_json::from_slice(&body)?;
//! assert_eq!(result.status.as_str(), "success");
//! assert_eq!(
//!     result.fingerprints.receipt.as_deref(),
//!     Some("58598855bd12af6995120388cee7e75b930efa71ed7161e0283e4c92c3e6663d"),
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # })?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The binary wraps the same pieces: [`Catalog::load`] at start-up (an
//! invalid inventory stops it, naming the scenario), [`router`] for the
//! routes and middleware, [`serve`] for connections and graceful
//! shutdown. `docs/gateway.md` describes the endpoints, the JSON shapes,
//! the error codes and the load figures.
//!
//! # What is where
//!
//! - [`catalog`]: start-up loading and per-request execution on a fresh
//!   [`ScriptedRuntime`](templiqx_mock::ScriptedRuntime), with the
//!   transport receipt (`docs/mock.md`, "Receipts and receipt modes");
//! - [`api`]: the JSON bodies and stable [`ErrorCode`]s;
//! - [`http`]: routes, handlers, the body limit and request timeout;
//! - [`server`]: the hyper connection loop and signal handling.

pub mod api;
pub mod catalog;
pub mod http;
pub mod server;

pub use api::{
    ErrorBody, ErrorCode, ErrorDetail, ExecuteRequest, ExecuteResponse, FailureData, Fingerprints,
    Health, OutputSource, ScenarioList, SuccessData,
};
pub use catalog::{Catalog, INVENTORY_FILE, Refusal, StartupError};
pub use http::{DEFAULT_REQUEST_TIMEOUT, MAX_BODY_BYTES, RouterOptions, router};
pub use server::{ServerOptions, serve, shutdown_signal};

/// The environment variable that supplies the scenario root when
/// `--scenario-root` is not given.
pub const SCENARIO_ROOT_ENV: &str = "TEMPLIQX_MOCK_SCENARIO_ROOT";

/// The default listen address: loopback only.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:8787";
