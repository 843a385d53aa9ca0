//! Serving the API over HTTP/1.1 on a TCP port: binding it, accepting connections and
//! handing each to the API router, until stopped.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use tokio::net::{TcpListener, TcpSocket};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::api::state::Shared;
use crate::error::{Error, Result};

/// Binds `addr` with `SO_REUSEADDR` (so a restarted server gets its port back at once) and
/// listens on it.
pub(crate) fn bind(addr: SocketAddr) -> Result<TcpListener> {
    let socket = if addr.is_ipv4() { TcpSocket::new_v4() } else { TcpSocket::new_v6() }
        .map_err(Error::Bind)?;
    socket.set_reuseaddr(true).map_err(Error::Bind)?;
    socket.bind(addr).map_err(Error::Bind)?;
    socket.listen(1024).map_err(Error::Bind)
}

/// A listener being served: its stop token and its tasks.
#[derive(Debug)]
pub(crate) struct Serving {
    stop: CancellationToken,
    tasks: TaskTracker,
}

impl Serving {
    /// Serves the API with `shared` on `listener`, one task per connection.
    pub(crate) fn start(shared: Arc<Shared>, listener: TcpListener) -> Serving {
        let stop = CancellationToken::new();
        let tasks = TaskTracker::new();
        let router = Router::new().fallback(crate::api::router::handle).with_state(shared);
        let accept_stop = stop.clone();
        let conn_tasks = tasks.clone();
        tasks.spawn(async move {
            loop {
                let accepted = tokio::select! {
                    _ = accept_stop.cancelled() => break,
                    accepted = listener.accept() => accepted,
                };
                let Ok((stream, peer)) = accepted else { continue };
                tracing::trace!(%peer, "connection accepted");
                let _ = stream.set_nodelay(true);
                let service = TowerToHyperService::new(router.clone());
                let conn_stop = accept_stop.clone();
                conn_tasks.spawn(async move {
                    let conn = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service);
                    tokio::select! {
                        _ = conn => tracing::trace!(%peer, "connection closed"),
                        _ = conn_stop.cancelled() => tracing::trace!(%peer, "connection dropped"),
                    }
                });
            }
        });
        tasks.close();
        Serving { stop, tasks }
    }

    /// Stops accepting and drops every connection; every task has ended when this returns.
    pub(crate) async fn stop(self) {
        self.stop.cancel();
        self.tasks.wait().await;
    }

    /// Stops accepting and drops every connection without waiting for the tasks.
    pub(crate) fn cancel(&self) {
        self.stop.cancel();
    }
}
