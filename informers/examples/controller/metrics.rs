//! The controller's `/metrics` endpoint: the Prometheus text exposition of its informers
//! and work queue, served with axum. Shared by `examples/controller.rs` and
//! `tests/integration/metrics_endpoint.rs`.

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use kube_informers::metrics::prometheus::prometheus_client::encoding::text::encode;
use kube_informers::metrics::prometheus::prometheus_client::registry::Registry;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// The OpenMetrics text format, which Prometheus scrapes.
pub(crate) const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// `GET /metrics` answers with `registry`'s current values.
pub(crate) fn router(registry: Arc<Registry>) -> Router {
    Router::new().route("/metrics", get(metrics)).with_state(registry)
}

async fn metrics(State(registry): State<Arc<Registry>>) -> Response {
    let mut body = String::new();
    match encode(&mut body, &registry) {
        Ok(()) => ([(header::CONTENT_TYPE, CONTENT_TYPE)], body).into_response(),
        Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}

/// A running `/metrics` server.
pub(crate) struct MetricsServer {
    /// Where it listens (the port the system chose, for port 0).
    pub(crate) addr: SocketAddr,
    stop: oneshot::Sender<()>,
    task: JoinHandle<io::Result<()>>,
}

impl MetricsServer {
    /// Serves `registry` on `addr` from a task of its own.
    pub(crate) async fn start(addr: SocketAddr, registry: Arc<Registry>) -> io::Result<Self> {
        let listener = TcpListener::bind(addr).await?;
        let addr = listener.local_addr()?;
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            axum::serve(listener, router(registry))
                .with_graceful_shutdown(async {
                    let _ = stopped.await;
                })
                .await
        });
        Ok(Self { addr, stop, task })
    }

    /// Stops accepting, finishes the requests in flight and returns once the server ended.
    pub(crate) async fn shutdown(self) -> io::Result<()> {
        let _ = self.stop.send(());
        self.task.await.map_err(io::Error::other)?
    }
}
