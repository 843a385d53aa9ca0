//! A lister-watcher split in two, so that two informers see exactly the same server
//! responses: the [`Tee`] forwards every call of its informer's reflector to a real
//! lister-watcher and records each answer, list pages and watch events included, as it
//! arrives; the [`Replica`] answers the other informer's reflector, call by call, with those
//! recordings. Two informers that differ only in their store (typed, compact) then receive
//! the same input, whatever faults and timing the server had, and must produce the same
//! cache and the same notifications.
//!
//! A reflector is deterministic given the answers it gets, except where it times out: a
//! watch it abandons as silent, a watch request that does not answer in time. The Tee
//! records those too (as the `Stalled` error the reflector makes of them), so the replica's
//! reflector takes the same path. A call of the replica that is not the one recorded next
//! (another verb, other parameters) is a divergence of the two reflectors: it is counted in
//! [`Replica::mismatches`], which a test asserts empty.

use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use futures::{FutureExt, StreamExt};
use kube::api::{ListParams, WatchParams};
use kube::core::{ObjectList, WatchEvent};
use kube_informers_runtime::listwatch::{ListPage, ListerWatcher, WatchStream, WireError};
use parking_lot::Mutex;
use tokio::sync::{mpsc, oneshot};

type Events<K> = mpsc::UnboundedReceiver<Result<WatchEvent<K>, kube::Error>>;

/// One recorded call, answered once the Tee's call returns.
enum Call<K: Clone> {
    List { params: String, answer: oneshot::Receiver<Result<ListPage<K>, kube::Error>> },
    Watch { params: String, answer: oneshot::Receiver<Result<Events<K>, kube::Error>> },
}

/// The recording half: wraps the real lister-watcher.
pub struct Tee<K: Clone> {
    inner: Arc<dyn ListerWatcher<K>>,
    calls: mpsc::UnboundedSender<Call<K>>,
    /// The `Stalled` error recorded when the reflector abandons a call or a stream.
    idle: Duration,
}

/// The replaying half.
pub struct Replica<K: Clone> {
    calls: tokio::sync::Mutex<mpsc::UnboundedReceiver<Call<K>>>,
    mismatches: Arc<Mutex<Vec<String>>>,
}

/// A Tee over `inner` and its replica. `idle` is what the recorded `Stalled` errors say
/// (the reflector only logs it).
pub fn tee<K: Clone + Send + Sync + 'static>(
    inner: Arc<dyn ListerWatcher<K>>,
    idle: Duration,
) -> (Tee<K>, Replica<K>) {
    let (tx, rx) = mpsc::unbounded_channel();
    (
        Tee { inner, calls: tx, idle },
        Replica { calls: tokio::sync::Mutex::new(rx), mismatches: Arc::default() },
    )
}

fn stalled(idle: Duration) -> kube::Error {
    kube::Error::ReadEvents(std::io::Error::new(
        std::io::ErrorKind::TimedOut,
        WireError::Stalled { idle },
    ))
}

/// A copy of `err` that the reflector classifies the same way (kube's error is not
/// `Clone`): the same variant and status for API errors, the same `WireError` for
/// transport errors of the wire, the same `io::ErrorKind` otherwise.
pub fn copy_error(err: &kube::Error) -> kube::Error {
    use std::error::Error as _;
    match err {
        kube::Error::Api(status) => kube::Error::Api(status.clone()),
        kube::Error::SerdeError(e) => {
            kube::Error::SerdeError(<serde_json::Error as serde::de::Error>::custom(e))
        }
        kube::Error::FromUtf8(_) => {
            kube::Error::FromUtf8(String::from_utf8(vec![0xff]).unwrap_err())
        }
        kube::Error::LinesCodecMaxLineLengthExceeded => {
            kube::Error::LinesCodecMaxLineLengthExceeded
        }
        kube::Error::ReadEvents(io) => {
            let wire = match WireError::find_in(err) {
                Some(WireError::Stalled { idle }) => Some(WireError::Stalled { idle: *idle }),
                Some(WireError::TruncatedEvent { bytes }) => {
                    Some(WireError::TruncatedEvent { bytes: *bytes })
                }
                Some(WireError::UndecodableObject { event, object }) => {
                    Some(WireError::UndecodableObject {
                        event: event.clone(),
                        object: object.clone(),
                    })
                }
                _ => None,
            };
            kube::Error::ReadEvents(match wire {
                Some(wire) => std::io::Error::new(io.kind(), wire),
                None => std::io::Error::new(io.kind(), io.to_string()),
            })
        }
        other => {
            // Transport errors: keep the innermost io::Error's kind (connection refused).
            let mut kind = std::io::ErrorKind::Other;
            let mut cause: Option<&(dyn std::error::Error + 'static)> = other.source();
            while let Some(c) = cause {
                if let Some(io) = c.downcast_ref::<std::io::Error>() {
                    kind = io.kind();
                }
                cause = c.source();
            }
            kube::Error::Service(Box::new(std::io::Error::new(kind, other.to_string())))
        }
    }
}

fn copy_result<T, U>(
    result: &Result<T, kube::Error>,
    copy: impl FnOnce(&T) -> U,
) -> Result<U, kube::Error> {
    match result {
        Ok(value) => Ok(copy(value)),
        Err(err) => Err(copy_error(err)),
    }
}

fn copy_page<K: Clone>(page: &ListPage<K>) -> ListPage<K> {
    ListPage { list: page.list.clone(), skipped: page.skipped.clone() }
}

fn list_params(params: &ListParams) -> String {
    format!("{params:?}")
}

/// A watch's parameters but its server-side timeout, which the reflector draws at random
/// between its bounds (client-go's `minWatchTimeout`..2×): the replica's stream ends when
/// the recorded one did.
fn watch_params(params: &WatchParams, resource_version: &str) -> String {
    let params = WatchParams { timeout: None, ..params.clone() };
    format!("{params:?} from {resource_version:?}")
}

/// Sends `idle`'s `Stalled` error if dropped before `answer` was sent: the reflector
/// abandoned the call.
struct Answer<T> {
    tx: Option<oneshot::Sender<Result<T, kube::Error>>>,
    idle: Duration,
}

impl<T> Answer<T> {
    fn send(mut self, value: Result<T, kube::Error>) {
        if let Some(tx) = self.tx.take() {
            let _ = tx.send(value);
        }
    }
}

impl<T> Drop for Answer<T> {
    fn drop(&mut self) {
        if let Some(tx) = self.tx.take() {
            let _ = tx.send(Err(stalled(self.idle)));
        }
    }
}

/// The Tee's side of one watch stream: forwards each event as the reflector reads it,
/// and a `Stalled` error if the reflector drops the stream before it ended.
struct Forward<K> {
    events: mpsc::UnboundedSender<Result<WatchEvent<K>, kube::Error>>,
    ended: bool,
    idle: Duration,
}

impl<K> Drop for Forward<K> {
    fn drop(&mut self) {
        if !self.ended {
            let _ = self.events.send(Err(stalled(self.idle)));
        }
    }
}

impl<K: Clone + Send + Sync + 'static> ListerWatcher<K> for Tee<K> {
    fn list<'a>(
        &'a self,
        params: &'a ListParams,
    ) -> BoxFuture<'a, Result<ObjectList<K>, kube::Error>> {
        self.list_page(params, None).map(|page| page.map(|page| page.list)).boxed()
    }

    fn list_page<'a>(
        &'a self,
        params: &'a ListParams,
        idle_limit: Option<Duration>,
    ) -> BoxFuture<'a, Result<ListPage<K>, kube::Error>> {
        let (tx, rx) = oneshot::channel();
        let _ = self.calls.send(Call::List { params: list_params(params), answer: rx });
        let answer = Answer { tx: Some(tx), idle: idle_limit.unwrap_or(self.idle) };
        async move {
            let result = self.inner.list_page(params, idle_limit).await;
            answer.send(copy_result(&result, copy_page));
            result
        }
        .boxed()
    }

    fn watch<'a>(
        &'a self,
        params: &'a WatchParams,
        resource_version: &'a str,
    ) -> BoxFuture<'a, Result<WatchStream<K>, kube::Error>> {
        let (tx, rx) = oneshot::channel();
        let params_text = watch_params(params, resource_version);
        let _ = self.calls.send(Call::Watch { params: params_text, answer: rx });
        let answer = Answer { tx: Some(tx), idle: self.idle };
        let idle = self.idle;
        async move {
            let stream = match self.inner.watch(params, resource_version).await {
                Ok(stream) => stream,
                Err(err) => {
                    answer.send(Err(copy_error(&err)));
                    return Err(err);
                }
            };
            let (events_tx, events_rx) = mpsc::unbounded_channel();
            answer.send(Ok(events_rx));
            let forward = Forward { events: events_tx, ended: false, idle };
            let forwarded = futures::stream::unfold(
                (stream, forward),
                |(mut stream, mut forward)| async move {
                    match stream.next().await {
                        Some(item) => {
                            let _ = forward.events.send(copy_result(&item, WatchEvent::clone));
                            Some((item, (stream, forward)))
                        }
                        None => {
                            forward.ended = true;
                            drop(forward);
                            None
                        }
                    }
                },
            );
            Ok(forwarded.boxed())
        }
        .boxed()
    }
}

impl<K: Clone> Replica<K> {
    /// Calls the replica's reflector made that were not the Tee's next call.
    pub fn mismatches(&self) -> Arc<Mutex<Vec<String>>> {
        Arc::clone(&self.mismatches)
    }

    fn mismatch(&self, what: String) -> kube::Error {
        self.mismatches.lock().push(what.clone());
        kube::Error::Service(what.into())
    }
}

impl<K: Clone + Send + Sync + 'static> ListerWatcher<K> for Replica<K> {
    fn list<'a>(
        &'a self,
        params: &'a ListParams,
    ) -> BoxFuture<'a, Result<ObjectList<K>, kube::Error>> {
        self.list_page(params, None).map(|page| page.map(|page| page.list)).boxed()
    }

    fn list_page<'a>(
        &'a self,
        params: &'a ListParams,
        _idle_limit: Option<Duration>,
    ) -> BoxFuture<'a, Result<ListPage<K>, kube::Error>> {
        async move {
            let call = self.calls.lock().await.recv().await;
            let wanted = list_params(params);
            match call {
                Some(Call::List { params, answer }) if params == wanted => answer
                    .await
                    .unwrap_or_else(|_| Err(self.mismatch("the Tee dropped a list".into()))),
                Some(Call::List { params, .. }) => {
                    Err(self.mismatch(format!("list {wanted}, recorded list {params}")))
                }
                Some(Call::Watch { params, .. }) => {
                    Err(self.mismatch(format!("list {wanted}, recorded watch {params}")))
                }
                None => std::future::pending().await,
            }
        }
        .boxed()
    }

    fn watch<'a>(
        &'a self,
        params: &'a WatchParams,
        resource_version: &'a str,
    ) -> BoxFuture<'a, Result<WatchStream<K>, kube::Error>> {
        async move {
            let call = self.calls.lock().await.recv().await;
            let wanted = watch_params(params, resource_version);
            match call {
                Some(Call::Watch { params, answer }) if params == wanted => {
                    let events = answer
                        .await
                        .unwrap_or_else(|_| Err(self.mismatch("the Tee dropped a watch".into())))?;
                    let stream = futures::stream::unfold(events, |mut events| async move {
                        events.recv().await.map(|item| (item, events))
                    });
                    Ok(stream.boxed())
                }
                Some(Call::Watch { params, .. }) => {
                    Err(self.mismatch(format!("watch {wanted}, recorded watch {params}")))
                }
                Some(Call::List { params, .. }) => {
                    Err(self.mismatch(format!("watch {wanted}, recorded list {params}")))
                }
                None => std::future::pending().await,
            }
        }
        .boxed()
    }
}
