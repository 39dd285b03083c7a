//! The connection loop: HTTP/1.1 with keep-alive on hyper, a header read
//! timeout, and graceful shutdown.
//!
//! `axum::serve` would do, except that it sets no timer, so a client that
//! trickles its request head would hold a connection (and a graceful
//! shutdown) forever. This loop is the same shape with hyper's
//! `header_read_timeout`; the request timeout of the router bounds
//! everything after the head.

use crate::http::ShuttingDown;
use axum::{Extension, Router};
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use std::future::Future;
use std::io;
use std::time::Duration;
use tokio::net::TcpListener;

/// How connections are served.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ServerOptions {
    /// A client must send its whole request head within this time.
    pub header_read_timeout: Duration,
    /// After the shutdown signal, in-flight requests get this long to
    /// finish; connections still open then are dropped.
    pub shutdown_grace: Duration,
}

impl Default for ServerOptions {
    fn default() -> ServerOptions {
        ServerOptions {
            header_read_timeout: Duration::from_secs(5),
            shutdown_grace: Duration::from_secs(30),
        }
    }
}

/// Serves `router` on `listener` until `shutdown` completes, then stops
/// accepting, lets in-flight requests finish (closing idle keep-alive
/// connections at once), and returns once every connection is closed or
/// [`ServerOptions::shutdown_grace`] has passed.
///
/// From the moment `shutdown` completes, `GET /health/ready` answers 503
/// `{"status": "shutting_down"}` (`/health/live` stays 200 `ok`). The
/// listener is closed at the same time, so a new connection is refused;
/// the 503 is what a request gets on a connection accepted before, whose
/// request had not been received yet (hyper serves that request, then
/// closes the connection).
///
/// # Errors
///
/// None today: accept errors are logged and the loop goes on (a client
/// that resets during the handshake is not the server's failure; running
/// out of file descriptors backs off briefly). The `io::Result` leaves
/// room for fatal listener errors.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    shutdown: impl Future<Output = ()>,
    options: ServerOptions,
) -> io::Result<()> {
    let graceful = GracefulShutdown::new();
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(options.header_read_timeout)
        .keep_alive(true);
    let shutting_down = ShuttingDown::default();
    let router = router.layer(Extension(shutting_down.clone()));
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) if is_connection_error(&e) => continue,
                Err(e) => {
                    tracing::error!(error = %e, "accept failed; backing off");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        // Small JSON responses on keep-alive connections: do not let
        // Nagle's algorithm hold them back.
        if let Err(e) = stream.set_nodelay(true) {
            tracing::debug!(%peer, error = %e, "cannot set TCP_NODELAY");
        }
        let service = TowerToHyperService::new(router.clone());
        let connection = graceful.watch(builder.serve_connection(TokioIo::new(stream), service));
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!(%peer, error = %e, "connection ended with an error");
            }
        });
    }
    shutting_down.begin();
    drop(listener);
    tracing::info!("shutting down: not ready, no new connections; waiting for in-flight requests");
    tokio::select! {
        () = graceful.shutdown() => tracing::info!("every connection closed"),
        () = tokio::time::sleep(options.shutdown_grace) => tracing::warn!(
            grace_ms = options.shutdown_grace.as_millis() as u64,
            "shutdown grace period over; dropping the connections still open"
        ),
    }
    Ok(())
}

/// Errors that concern one connection, not the listener.
fn is_connection_error(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
    )
}

/// Starts listening for SIGINT and SIGTERM and returns a future that
/// completes on the first of them.
///
/// The handlers are installed when this returns, not when the future is
/// first polled, so a signal sent as soon as the gateway reports its
/// address is not lost (nor does it kill the process). Call it inside a
/// Tokio runtime.
///
/// # Errors
///
/// A handler cannot be installed.
#[cfg(unix)]
pub fn shutdown_signal() -> io::Result<impl Future<Output = ()> + Send + 'static> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut interrupt = signal(SignalKind::interrupt())?;
    let mut terminate = signal(SignalKind::terminate())?;
    Ok(async move {
        tokio::select! {
            _ = interrupt.recv() => tracing::info!("SIGINT received"),
            _ = terminate.recv() => tracing::info!("SIGTERM received"),
        }
    })
}

/// Returns a future that completes on Ctrl-C (the only signal outside
/// Unix).
///
/// # Errors
///
/// None here; the signature matches the Unix one.
#[cfg(not(unix))]
pub fn shutdown_signal() -> io::Result<impl Future<Output = ()> + Send + 'static> {
    Ok(async {
        match tokio::signal::ctrl_c().await {
            Ok(()) => tracing::info!("Ctrl-C received"),
            Err(e) => {
                tracing::error!(error = %e, "cannot listen for Ctrl-C");
                std::future::pending::<()>().await;
            }
        }
    })
}
