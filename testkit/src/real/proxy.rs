//! A fault-injecting proxy in front of a [`RealApiServer`](super::RealApiServer), for the faults
//! the real server cannot be made to produce on demand: a network partition between one
//! client and the server, a connection that goes half-open in the middle of a list, a proxy
//! that drops the streaming list's end bookmark (k9s #4186), and the ERROR event
//! kube-apiserver answers streaming lists with when its etcd lacks watch progress (our etcd
//! 3.6 has it).
//!
//! Clients speak plain HTTP to the proxy; it forwards each request through the admin's TLS
//! connection, so everything through it acts as the admin.

use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use futures::{Stream, StreamExt};
use http_body_util::BodyExt;
use hyper_util::rt::TokioIo;
use parking_lot::Mutex;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::error::{Error, Result};
use crate::faults::injected::first_half_then_silence;

/// The message kube-apiserver 1.36 sends, in a 500 ERROR event, for every streaming list when
/// its etcd does not support watch progress requests.
pub const WATCH_PROGRESS_DISABLED: &str = "a watch stream was requested by the client but the required storage feature RequestWatchProgress is disabled";

#[derive(Debug, Default, Clone, Copy)]
struct Rules {
    cut: bool,
    drop_initial_events_end: bool,
    refuse_streaming_lists: bool,
    /// Plain watches still to answer with a 410 ERROR event.
    expire_watches: u32,
    /// Plain lists still to answer with a 410 Status.
    expire_lists: u32,
    /// Lists whose answer still to cut off mid-body.
    silent_lists: u32,
}

struct State {
    upstream: kube::Client,
    rules: Mutex<Rules>,
    /// Bumped on every cut: connections opened before it end.
    cuts: watch::Sender<u64>,
    /// Every request forwarded, as `METHOD path?query`, in arrival order.
    requests: Mutex<Vec<String>>,
}

impl std::fmt::Debug for State {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("State").field("rules", &*self.rules.lock()).finish_non_exhaustive()
    }
}

/// A running proxy; stops on drop.
#[derive(Debug)]
pub struct FaultProxy {
    addr: SocketAddr,
    state: Arc<State>,
    stop: CancellationToken,
    tasks: TaskTracker,
}

impl Drop for FaultProxy {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

impl FaultProxy {
    pub(super) async fn start(upstream: kube::Client) -> Result<FaultProxy> {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await.map_err(Error::Bind)?;
        let addr = listener.local_addr().map_err(Error::Bind)?;
        let state = Arc::new(State {
            upstream,
            rules: Mutex::new(Rules::default()),
            cuts: watch::channel(0).0,
            requests: Mutex::new(Vec::new()),
        });
        let (stop, tasks) = (CancellationToken::new(), TaskTracker::new());
        tasks.spawn(accept_loop(listener, Arc::clone(&state), stop.clone(), tasks.clone()));
        Ok(FaultProxy { addr, state, stop, tasks })
    }

    /// A client that goes through the proxy (as the admin).
    pub fn client(&self) -> Result<kube::Client> {
        let uri: http::Uri = format!("http://{}", self.addr)
            .parse()
            .map_err(|e: http::uri::InvalidUri| Error::Client(e.to_string()))?;
        kube::Client::try_from(kube::Config::new(uri)).map_err(|e| Error::Client(e.to_string()))
    }

    /// Partitions the proxy's clients from the server: open connections (watches included)
    /// break, new ones are closed as soon as they are accepted, until [`heal`](Self::heal).
    pub fn cut(&self) {
        self.state.rules.lock().cut = true;
        self.state.cuts.send_modify(|n| *n += 1);
    }

    /// Ends a [`cut`](Self::cut).
    pub fn heal(&self) {
        self.state.rules.lock().cut = false;
    }

    /// Forwards streaming lists but removes their `k8s.io/initial-events-end` bookmark.
    pub fn drop_initial_events_end(&self, on: bool) {
        self.state.rules.lock().drop_initial_events_end = on;
    }

    /// Answers every streaming list (`sendInitialEvents=true`) as kube-apiserver does on an
    /// etcd without watch progress: one 500 ERROR event ([`WATCH_PROGRESS_DISABLED`]), then
    /// the end of the stream. Plain lists and watches pass through.
    pub fn refuse_streaming_lists(&self, on: bool) {
        self.state.rules.lock().refuse_streaming_lists = on;
    }

    /// Answers the next `n` plain watches (not streaming lists) as kube-apiserver answers a
    /// watch from a resourceVersion its watch cache no longer holds: an ERROR event with a
    /// 410 `Expired` Status, then the end of the stream.
    pub fn expire_next_watches(&self, n: u32) {
        self.state.rules.lock().expire_watches = n;
    }

    /// Answers the next `n` lists (a `GET` of a collection that is not a watch) with a 410
    /// `Expired` Status, as a server answers a list at a resourceVersion it cannot serve.
    /// The requests are logged in [`requests`](Self::requests) all the same.
    pub fn expire_next_lists(&self, n: u32) {
        self.state.rules.lock().expire_lists = n;
    }

    /// Forwards the next `n` lists (a `GET` of a collection that is not a watch) to the
    /// server, and of each answer the status line, the headers and the first half of the
    /// body's first chunk (so the cut falls among the items), then nothing more: the
    /// connection stays open, silent, until the proxy shuts down. A connection that went
    /// half-open in the middle of a list looks like this to the client. Error answers
    /// pass whole, using up the count all the same.
    pub fn hang_next_lists_mid_body(&self, n: u32) {
        self.state.rules.lock().silent_lists = n;
    }

    /// Every request the proxy forwarded so far, as `METHOD path?query` (no headers, no
    /// bodies), in arrival order: what a test asserts the client asked for.
    pub fn requests(&self) -> Vec<String> {
        self.state.requests.lock().clone()
    }

    /// Stops accepting and ends every connection.
    pub async fn shutdown(self) {
        self.stop.cancel();
        self.tasks.close();
        self.tasks.wait().await;
    }
}

async fn accept_loop(
    listener: TcpListener,
    state: Arc<State>,
    stop: CancellationToken,
    tasks: TaskTracker,
) {
    loop {
        let accepted = tokio::select! {
            _ = stop.cancelled() => return,
            accepted = listener.accept() => accepted,
        };
        let Ok((stream, _)) = accepted else { continue };
        if state.rules.lock().cut {
            drop(stream);
            continue;
        }
        let mut cuts = state.cuts.subscribe();
        let (state, stop) = (Arc::clone(&state), stop.clone());
        tasks.spawn(async move {
            let service =
                hyper::service::service_fn(move |request| forward(Arc::clone(&state), request));
            let conn = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service);
            tokio::select! {
                _ = conn => {}
                _ = cuts.changed() => {}
                _ = stop.cancelled() => {}
            }
        });
    }
}

type ProxyBody = http_body_util::combinators::UnsyncBoxBody<Bytes, std::io::Error>;

async fn forward(
    state: Arc<State>,
    request: http::Request<hyper::body::Incoming>,
) -> std::result::Result<http::Response<ProxyBody>, std::io::Error> {
    let rules = *state.rules.lock();
    let query = request.uri().query().unwrap_or_default().to_owned();
    let streaming_list = query.contains("watch=") && query.contains("sendInitialEvents=true");
    if streaming_list && rules.refuse_streaming_lists {
        return Ok(watch_progress_disabled());
    }
    if query.contains("watch=") && !streaming_list {
        let mut rules = state.rules.lock();
        if rules.expire_watches > 0 {
            rules.expire_watches -= 1;
            return Ok(watch_expired());
        }
    }
    let list = is_list(request.method(), request.uri().path(), &query);
    let silent_mid_body = list && {
        let mut rules = state.rules.lock();
        let hit = rules.silent_lists > 0;
        rules.silent_lists = rules.silent_lists.saturating_sub(1);
        hit
    };
    let (parts, body) = request.into_parts();
    let target = parts.uri.path_and_query().map(|p| p.as_str()).unwrap_or("/");
    state.requests.lock().push(format!("{} {target}", parts.method));
    if list {
        let mut rules = state.rules.lock();
        if rules.expire_lists > 0 {
            rules.expire_lists -= 1;
            return Ok(list_expired());
        }
    }
    let body = body.collect().await.map_err(std::io::Error::other)?.to_bytes();
    let mut upstream = http::Request::builder()
        .method(parts.method)
        .uri(parts.uri.path_and_query().map(|p| p.as_str()).unwrap_or("/"));
    for (name, value) in &parts.headers {
        if name != http::header::HOST && name != http::header::AUTHORIZATION {
            upstream = upstream.header(name, value);
        }
    }
    let upstream = upstream.body(kube::client::Body::from(body)).map_err(std::io::Error::other)?;
    let response = match state.upstream.send(upstream).await {
        Ok(response) => response,
        Err(err) => {
            let status = http::StatusCode::BAD_GATEWAY;
            return http::Response::builder()
                .status(status)
                .body(full(err.to_string()))
                .map_err(std::io::Error::other);
        }
    };
    let (parts, body) = response.into_parts();
    let data = BodyExt::into_data_stream(body).map(|chunk| chunk.map_err(std::io::Error::other));
    let body = if silent_mid_body && parts.status.is_success() {
        tracing::debug!("proxy going silent in the middle of a list");
        stream_body(first_half_then_silence(data))
    } else if streaming_list && rules.drop_initial_events_end {
        stream_body(without_end_bookmark(data))
    } else {
        stream_body(data)
    };
    Ok(http::Response::from_parts(parts, body))
}

/// Whether a request is a list: a `GET` of a collection (`/api/v1/pods`,
/// `/api/v1/namespaces/ns/pods`, `/apis/apps/v1/deployments`, ...), not a watch.
fn is_list(method: &http::Method, path: &str, query: &str) -> bool {
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let resource = match segments.as_slice() {
        ["api", _version, rest @ ..] | ["apis", _, _version, rest @ ..] => rest,
        _ => return false,
    };
    let collection = matches!(resource, [_plural] | ["namespaces", _, _plural]);
    method == http::Method::GET && collection && !query.contains("watch=")
}

fn full(text: String) -> ProxyBody {
    BodyExt::boxed_unsync(BodyExt::map_err(http_body_util::Full::new(Bytes::from(text)), |never| {
        match never {}
    }))
}

fn stream_body(data: impl Stream<Item = std::io::Result<Bytes>> + Send + 'static) -> ProxyBody {
    BodyExt::boxed_unsync(http_body_util::StreamBody::new(
        data.map(|chunk| chunk.map(hyper::body::Frame::data)),
    ))
}

fn watch_progress_disabled() -> http::Response<ProxyBody> {
    error_event(WATCH_PROGRESS_DISABLED, "InternalError", 500)
}

fn watch_expired() -> http::Response<ProxyBody> {
    error_event("too old resource version: injected by the fault proxy", "Expired", 410)
}

/// A 410 `Expired` Status answer to a list, as kube-apiserver sends one.
fn list_expired() -> http::Response<ProxyBody> {
    let status = serde_json::json!({
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": "too old resource version: injected by the fault proxy",
        "reason": "Expired", "code": 410,
    });
    http::Response::builder()
        .status(http::StatusCode::GONE)
        .header(http::header::CONTENT_TYPE, "application/json")
        .body(full(status.to_string()))
        .expect("a static response")
}

/// A watch response of one ERROR event carrying a Status, as kube-apiserver's watch cache
/// answers watches it refuses.
fn error_event(message: &str, reason: &str, code: u16) -> http::Response<ProxyBody> {
    let event = serde_json::json!({
        "type": "ERROR",
        "object": {
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": message, "reason": reason, "code": code,
        },
    });
    http::Response::builder()
        .header(http::header::CONTENT_TYPE, "application/json")
        .body(full(format!("{event}\n")))
        .expect("a static response")
}

/// The watch stream, line by line, less the end-of-initial-events bookmark.
fn without_end_bookmark(
    data: impl Stream<Item = std::io::Result<Bytes>> + Send + 'static,
) -> impl Stream<Item = std::io::Result<Bytes>> + Send + 'static {
    let data = Box::pin(data);
    futures::stream::unfold((data, Vec::new(), false), |(mut data, mut pending, done)| async move {
        loop {
            if let Some(end) = pending.iter().position(|b| *b == b'\n') {
                let line: Vec<u8> = pending.drain(..=end).collect();
                let is_end = line.windows(END_MARK.len()).any(|w| w == END_MARK.as_bytes());
                if is_end {
                    tracing::debug!("proxy dropped the initial-events-end bookmark");
                    continue;
                }
                return Some((Ok(Bytes::from(line)), (data, pending, done)));
            }
            if done {
                return None;
            }
            match data.next().await {
                Some(Ok(chunk)) => pending.extend_from_slice(&chunk),
                Some(Err(err)) => return Some((Err(err), (data, pending, true))),
                None if pending.is_empty() => return None,
                None => {
                    let rest = std::mem::take(&mut pending);
                    return Some((Ok(Bytes::from(rest)), (data, pending, true)));
                }
            }
        }
    })
}

const END_MARK: &str = "\"k8s.io/initial-events-end\":\"true\"";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_is_a_get_of_a_collection_that_is_not_a_watch() {
        let get = http::Method::GET;
        assert!(is_list(&get, "/api/v1/namespaces/ns/configmaps", "limit=500"));
        assert!(is_list(&get, "/api/v1/configmaps", ""));
        assert!(is_list(&get, "/api/v1/namespaces", ""));
        assert!(is_list(&get, "/apis/apps/v1/namespaces/ns/deployments", "resourceVersion=0"));
        assert!(!is_list(&get, "/api/v1/namespaces/ns/configmaps", "watch=true"));
        assert!(!is_list(&get, "/api/v1/namespaces/ns/configmaps/one", ""));
        assert!(!is_list(&get, "/api/v1/namespaces/ns", ""));
        assert!(!is_list(&get, "/apis/apps/v1", ""));
        assert!(!is_list(&http::Method::POST, "/api/v1/namespaces/ns/configmaps", ""));
    }
}
