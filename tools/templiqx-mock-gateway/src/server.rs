//! The connection loop: HTTP/1.1 with keep-alive on hyper, a header read
//! timeout, and graceful shutdown.
//!
//! `axum::serve` would do, except that it sets no timer, so a client that
//! trickles its request head would hold a connection (and a graceful
//! shutdown) forever. This loop is the same shape with hyper's
//! `header_read_timeout`; the request timeout of the router bounds
//! everything after the head.

use axum::Router;
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
    drop(listener);
    tracing::info!("shutting down: no new connections; waiting for in-flight requests");
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

/// Completes on SIGINT (Ctrl-C) or, on Unix, SIGTERM.
///
/// If a handler cannot be installed, that signal is logged and ignored
/// (the other still works); the future never completes spuriously.
pub async fn shutdown_signal() {
    let interrupt = async {
        match tokio::signal::ctrl_c().await {
            Ok(()) => tracing::info!("SIGINT received"),
            Err(e) => {
                tracing::error!(error = %e, "cannot listen for SIGINT");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(unix)]
    let terminate = async {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
                tracing::info!("SIGTERM received");
            }
            Err(e) => {
                tracing::error!(error = %e, "cannot listen for SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => {}
        () = terminate => {}
    }
}
