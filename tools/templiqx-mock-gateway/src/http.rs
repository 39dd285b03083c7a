//! The HTTP surface: routes, handlers, JSON errors and the middleware
//! stack (tracing, request timeout, body limit).

use crate::api::{ErrorBody, ErrorCode, ErrorDetail, ExecuteResponse, Health, ScenarioList};
use crate::catalog::{Catalog, Refusal};
use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::extract::{DefaultBodyLimit, Extension, FromRequest, Path, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Serialize;
use std::any::Any;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use templiqx_build::text::{self, Syntax};
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::trace::TraceLayer;

/// The largest accepted request body: 1 MiB. One byte more is a 413.
pub const MAX_BODY_BYTES: usize = 1024 * 1024;

/// The default request timeout.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// How the router is configured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RouterOptions {
    /// A request (body included) that takes longer is answered with 408
    /// `request_timeout`.
    pub request_timeout: Duration,
}

impl Default for RouterOptions {
    fn default() -> RouterOptions {
        RouterOptions {
            request_timeout: DEFAULT_REQUEST_TIMEOUT,
        }
    }
}

/// Whether graceful shutdown has begun: [`serve`](crate::serve) adds one
/// to the router as a request extension and sets it when its shutdown
/// future completes; `/health/ready` reads it. A router served some other
/// way has none and is always ready.
#[derive(Clone, Debug, Default)]
pub(crate) struct ShuttingDown(Arc<AtomicBool>);

impl ShuttingDown {
    /// Marks the start of graceful shutdown.
    pub(crate) fn begin(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    /// Whether graceful shutdown has begun.
    pub(crate) fn has_begun(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

/// What every handler shares: the catalog and the bodies that never change.
#[derive(Debug)]
struct AppState {
    catalog: Catalog,
    scenarios_body: Bytes,
}

/// The gateway's routes over `catalog`:
///
/// | method | path | answer |
/// |---|---|---|
/// | `GET` | `/health/live` | [`Health`]: 200 `ok` while the process serves |
/// | `GET` | `/health/ready` | [`Health`]: 200 `ok`; 503 `shutting_down` once [`serve`](crate::serve) has begun a graceful shutdown |
/// | `GET` | `/v1/scenarios` | [`ScenarioList`] |
/// | `POST` | `/v1/scenarios/{id}/execute` | [`ExecuteResponse`] |
///
/// Anything else is a JSON [`ErrorBody`]: an unknown path 404
/// `not_found`, a known path with another method 405
/// `method_not_allowed` (with `Allow`).
///
/// The router must run on a Tokio runtime with timers enabled (the
/// request timeout uses them).
pub fn router(catalog: Catalog, options: RouterOptions) -> Router {
    let list = ScenarioList {
        package: catalog.package().to_owned(),
        scenarios: catalog.ids().to_vec(),
    };
    let state = Arc::new(AppState {
        scenarios_body: json_bytes(&list),
        catalog,
    });
    let timeout = options.request_timeout;
    Router::new()
        .route("/health/live", get(live))
        .route("/health/ready", get(ready))
        .route("/v1/scenarios", get(scenarios))
        .route("/v1/scenarios/{id}/execute", post(execute))
        .method_not_allowed_fallback(method_not_allowed)
        .fallback(not_found)
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(middleware::from_fn(move |req: Request, next: Next| {
            request_timeout(timeout, req, next)
        }))
        .layer(CatchPanicLayer::custom(panic_response))
        .layer(TraceLayer::new_for_http())
        .with_state(state)
}

/// A panic is a bug; the client still gets a JSON 500 and the server
/// keeps serving.
fn panic_response(panic: Box<dyn Any + Send + 'static>) -> Response {
    let what = panic
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| panic.downcast_ref::<&str>().copied())
        .unwrap_or("(no message)");
    tracing::error!(panic = what, "a handler panicked");
    error(
        ErrorCode::Internal,
        "the gateway failed while handling the request".to_owned(),
    )
}

/// `/health/live`: the process serves, shutting down or not.
async fn live() -> Response {
    health(StatusCode::OK, Health::OK)
}

/// `/health/ready`: ready until graceful shutdown begins, then 503 while
/// in-flight requests finish.
async fn ready(shutting_down: Option<Extension<ShuttingDown>>) -> Response {
    match shutting_down {
        Some(Extension(s)) if s.has_begun() => {
            health(StatusCode::SERVICE_UNAVAILABLE, Health::SHUTTING_DOWN)
        }
        _ => health(StatusCode::OK, Health::OK),
    }
}

fn health(status: StatusCode, health: &str) -> Response {
    let health = Health {
        status: health.to_owned(),
    };
    json_response(status, json_bytes(&health))
}

async fn scenarios(State(state): State<Arc<AppState>>) -> Response {
    json_response(StatusCode::OK, state.scenarios_body.clone())
}

/// `POST /v1/scenarios/{id}/execute`. The body is read only after the id
/// is known and the declared `Content-Length` is within
/// [`MAX_BODY_BYTES`]: a larger declaration is answered 413 at once, the
/// body neither read nor invited (no `100 Continue`), and the connection
/// closed.
async fn execute(
    State(state): State<Arc<AppState>>,
    id: Result<Path<String>, PathRejection>,
    request: Request,
) -> Response {
    // An id that does not even decode cannot be in the inventory; the
    // inventory is the only thing consulted (never the file system).
    let id = match id {
        Ok(Path(id)) if state.catalog.contains(&id) => id,
        Ok(Path(id)) => {
            return error(
                ErrorCode::ScenarioNotFound,
                format!("the inventory lists no scenario {id:?}"),
            );
        }
        Err(e) => {
            return error(
                ErrorCode::ScenarioNotFound,
                format!("the inventory lists no such scenario ({e})"),
            );
        }
    };
    if let Some(declared) = declared_length(&request)
        && declared > MAX_BODY_BYTES as u64
    {
        let mut response = error(
            ErrorCode::PayloadTooLarge,
            format!(
                "the body declares {declared} bytes (Content-Length), over the limit of {MAX_BODY_BYTES}; it was not read"
            ),
        );
        response
            .headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
        return response;
    }
    let body: Result<Bytes, BytesRejection> = Bytes::from_request(request, &()).await;
    let body = match body {
        Ok(body) => body,
        Err(e) if e.status() == StatusCode::PAYLOAD_TOO_LARGE => {
            return error(
                ErrorCode::PayloadTooLarge,
                format!("the body exceeds {MAX_BODY_BYTES} bytes"),
            );
        }
        Err(e) => return error(ErrorCode::BadRequest, format!("cannot read the body: {e}")),
    };
    if is_blank(&body) {
        // The common case: a few microseconds of work, done in place.
        return execute_with(&state.catalog, &id, None);
    }
    // Parsing and validating up to 1 MiB of JSON is not: keep it off the
    // async workers.
    let blocking = tokio::task::spawn_blocking(move || match parse_body(&body) {
        Ok(fixture_output) => execute_with(&state.catalog, &id, fixture_output),
        Err((code, message)) => error(code, message),
    });
    match blocking.await {
        Ok(response) => response,
        Err(e) => error(
            ErrorCode::Internal,
            format!("the execution did not complete: {e}"),
        ),
    }
}

/// The request's `Content-Length`, when it has one that is a number
/// (hyper has already refused a malformed or contradictory one with 400).
fn declared_length(request: &Request) -> Option<u64> {
    request
        .headers()
        .get(header::CONTENT_LENGTH)?
        .to_str()
        .ok()?
        .trim()
        .parse()
        .ok()
}

fn execute_with(
    catalog: &Catalog,
    id: &str,
    fixture_output: Option<templiqx_contracts::Json>,
) -> Response {
    match catalog.execute(id, fixture_output) {
        Ok(response) => execute_response(&response),
        Err(Refusal { code, message }) => error(code, message),
    }
}

fn is_blank(body: &[u8]) -> bool {
    body.iter().all(u8::is_ascii_whitespace)
}

fn execute_response(response: &ExecuteResponse) -> Response {
    match serde_json::to_vec(response) {
        Ok(bytes) => json_response(StatusCode::OK, Bytes::from(bytes)),
        Err(e) => error(
            ErrorCode::Internal,
            format!("cannot serialise the response: {e}"),
        ),
    }
}

/// The body: empty (or only white space), or a JSON object whose only
/// member may be `fixture_output`. Repeated keys are refused, as in every
/// Templiqx document (fingerprints cover the value).
fn parse_body(body: &[u8]) -> Result<Option<templiqx_contracts::Json>, (ErrorCode, String)> {
    if is_blank(body) {
        return Ok(None);
    }
    // As every JSON document Templiqx reads: a leading UTF-8 byte order
    // mark is skipped (RFC 8259 allows it), and text that is not UTF-8 is
    // located at its first invalid byte.
    let at = |d: &templiqx_contracts::Diagnostic| {
        d.span
            .map(|s| format!(" (line {}, column {})", s.start.line, s.start.column))
            .unwrap_or_default()
    };
    let text = text::decode_slice(body, Syntax::Json).map_err(|e| {
        let d = e.diagnostic;
        (
            ErrorCode::MalformedJson,
            format!("the body is {}{}", d.message, at(&d)),
        )
    })?;
    let value = templiqx_contracts::json::parse(text).map_err(|d| {
        (
            ErrorCode::MalformedJson,
            format!("the body is not valid JSON: {}{}", d.message, at(&d)),
        )
    })?;
    let templiqx_contracts::Json::Object(mut object) = value else {
        return Err((
            ErrorCode::MalformedJson,
            "the body must be a JSON object (or empty)".to_owned(),
        ));
    };
    let fixture_output = object.remove("fixture_output");
    if !object.is_empty() {
        let unknown: Vec<String> = object.keys().map(|k| format!("{k:?}")).collect();
        return Err((
            ErrorCode::UnknownField,
            format!(
                "unknown body field{} {}; the only accepted field is \"fixture_output\"",
                if unknown.len() == 1 { "" } else { "s" },
                unknown.join(", ")
            ),
        ));
    }
    // `"fixture_output": null` counts as absent, like every optional field.
    Ok(fixture_output.filter(|v| !v.is_null()))
}

async fn method_not_allowed(request: Request) -> Response {
    error(
        ErrorCode::MethodNotAllowed,
        format!(
            "{} is not allowed on {}",
            request.method(),
            request.uri().path()
        ),
    )
}

async fn not_found(request: Request) -> Response {
    error(
        ErrorCode::NotFound,
        format!("no route for {} {}", request.method(), request.uri().path()),
    )
}

/// Answers 408 `request_timeout` when the inner service (reading the body
/// included) takes longer than `timeout`, and closes the connection.
async fn request_timeout(timeout: Duration, request: Request, next: Next) -> Response {
    match tokio::time::timeout(timeout, next.run(request)).await {
        Ok(response) => response,
        Err(_) => {
            let mut response = error(
                ErrorCode::RequestTimeout,
                format!(
                    "the request did not complete within {} ms",
                    timeout.as_millis()
                ),
            );
            response
                .headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
            response
        }
    }
}

/// The JSON error response for `code`.
pub(crate) fn error(code: ErrorCode, message: String) -> Response {
    let status = StatusCode::from_u16(code.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let body = ErrorBody {
        error: ErrorDetail { code, message },
    };
    json_response(status, json_bytes(&body))
}

fn json_response(status: StatusCode, body: Bytes) -> Response {
    let mut response = (status, Body::from(body)).into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

/// Serialises `value`, which holds only strings, integers, booleans and
/// string-keyed maps and so cannot fail; should it, the body is still a
/// JSON error body.
fn json_bytes<T: Serialize>(value: &T) -> Bytes {
    static FALLBACK: &[u8] =
        br#"{"error":{"code":"internal","message":"cannot serialise the response"}}"#;
    serde_json::to_vec(value).map_or(Bytes::from_static(FALLBACK), Bytes::from)
}
