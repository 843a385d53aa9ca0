//! Shared fixtures for the reflector tests: a scripted in-memory `ListerWatcher` that
//! records every call, a recording `ReflectorStore`, and a harness that runs a reflector
//! on the paused tokio clock.
#![allow(dead_code, unreachable_pub)] // each test binary uses a subset

use std::{
    collections::{BTreeMap, VecDeque},
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    task::{Context, Poll},
    time::Duration,
};

use futures::{StreamExt, future::BoxFuture, stream, task::AtomicWaker};
use k8s_openapi::{
    api::core::v1::Pod,
    apimachinery::pkg::apis::meta::v1::{ListMeta, ObjectMeta},
};
use kube::{
    api::{ListParams, WatchParams},
    core::{ObjectList, Status, TypeMeta, WatchEvent, watch::Bookmark, watch::BookmarkMeta},
};
use kube_informers_runtime::listwatch::{
    ListPage, ListerWatcher, SkippedObject, WatchStream, WireError,
};
use kube_informers_runtime::reflector::{
    BackoffConfig, BoxError, LastSyncResourceVersion, Reflector, ReflectorConfig, ReflectorError,
    ReflectorStore, ReplaceSink, Room,
};
use parking_lot::Mutex;
use tokio::{sync::Notify, task::JoinHandle, time::Instant};
use tokio_util::sync::CancellationToken;

/// A pod named `name` in namespace `default` at resource version `rv`.
pub fn pod(name: &str, rv: &str) -> Pod {
    Pod {
        metadata: ObjectMeta {
            name: Some(name.into()),
            namespace: Some("default".into()),
            resource_version: Some(rv.into()),
            ..ObjectMeta::default()
        },
        ..Pod::default()
    }
}

/// One list page.
pub fn page(items: Vec<Pod>, rv: &str, continue_token: Option<&str>) -> ObjectList<Pod> {
    ObjectList {
        types: TypeMeta { api_version: "v1".into(), kind: "PodList".into() },
        metadata: ListMeta {
            resource_version: Some(rv.into()),
            continue_: continue_token.map(Into::into),
            ..ListMeta::default()
        },
        items,
    }
}

/// An error status from the API server.
pub fn api_error(code: u16, reason: &str) -> kube::Error {
    kube::Error::Api(Status::failure("scripted failure", reason).with_code(code).boxed())
}

/// A 429 asking to retry after `secs` seconds.
pub fn too_many_requests(secs: u32) -> kube::Error {
    let mut status = Status::failure("slow down", "TooManyRequests").with_code(429);
    status.details = Some(kube::core::response::StatusDetails {
        name: String::new(),
        group: String::new(),
        kind: String::new(),
        uid: String::new(),
        causes: Vec::new(),
        retry_after_seconds: secs,
    });
    kube::Error::Api(status.boxed())
}

/// An `ERROR` watch event carrying `code`.
pub fn error_event(code: u16, reason: &str) -> WatchEvent<Pod> {
    WatchEvent::Error(Status::failure("scripted failure", reason).with_code(code).boxed())
}

/// A bookmark at `rv`.
pub fn bookmark(rv: &str) -> WatchEvent<Pod> {
    bookmark_with(rv, BTreeMap::new())
}

/// The bookmark that ends a streaming list's initial events.
pub fn initial_events_end(rv: &str) -> WatchEvent<Pod> {
    bookmark_with(rv, BTreeMap::from([("k8s.io/initial-events-end".to_owned(), "true".to_owned())]))
}

fn bookmark_with(rv: &str, annotations: BTreeMap<String, String>) -> WatchEvent<Pod> {
    WatchEvent::Bookmark(Bookmark {
        types: TypeMeta { api_version: "v1".into(), kind: "Pod".into() },
        metadata: BookmarkMeta { resource_version: rv.into(), annotations },
    })
}

/// What is known of pod `name` in `default` at `rv`, skipped as undecodable.
pub fn skipped(name: &str, rv: &str) -> SkippedObject {
    SkippedObject {
        key: format!("default/{name}"),
        resource_version: Some(rv.into()),
        reason: "invalid data at line 1 column 40".into(),
    }
}

/// What `ApiListerWatcher`'s watch stream yields for an event (`ADDED`, `MODIFIED`,
/// `DELETED`) whose object does not decode.
pub fn undecodable_event(event: &str, name: &str, rv: &str) -> kube::Error {
    let wire = WireError::UndecodableObject { event: event.into(), object: skipped(name, rv) };
    kube::Error::ReadEvents(std::io::Error::other(wire))
}

/// What the watch stream of a real client yields for an undecodable event.
pub fn decode_error() -> kube::Error {
    kube::Error::SerdeError(serde_json::from_str::<Pod>(r#"{"metadata": 5}"#).unwrap_err())
}

/// The scripted answer to one watch call.
pub enum WatchScript {
    /// The watch request fails.
    Fail(kube::Error),
    /// The stream yields these items, then ends.
    Close(Vec<Result<WatchEvent<Pod>, kube::Error>>),
    /// The stream yields these items, then stays open.
    Hang(Vec<Result<WatchEvent<Pod>, kube::Error>>),
    /// The watch request never gets an answer.
    Unanswered,
    /// The stream yields each item after waiting this long (paused clock), then stays open.
    Paced(Duration, Vec<Result<WatchEvent<Pod>, kube::Error>>),
    /// The stream stays silent for this long (paused clock), then ends.
    Quiet(Duration),
    /// The stream yields these items, waits (paused clock), yields the last item, then ends.
    Later(
        Vec<Result<WatchEvent<Pod>, kube::Error>>,
        Duration,
        Box<Result<WatchEvent<Pod>, kube::Error>>,
    ),
}

/// One recorded call, with the paused-clock instant it was made at.
#[derive(Clone, Debug)]
pub enum Call {
    List { params: ListParams, at: Instant },
    Watch { params: WatchParams, resource_version: String, at: Instant },
}

impl Call {
    pub fn at(&self) -> Instant {
        match self {
            Call::List { at, .. } | Call::Watch { at, .. } => *at,
        }
    }
}

/// The scripted answer to one list call: `None` for a list that never completes.
type ListScript = Option<Result<ListPage<Pod>, kube::Error>>;

/// A `ListerWatcher` that answers from queues and records every call. Once a queue is
/// empty, lists never complete and watches stay open without events.
pub struct FakeListerWatcher {
    lists: Mutex<VecDeque<ListScript>>,
    watches: Mutex<VecDeque<WatchScript>>,
    calls: Mutex<Vec<Call>>,
    progress: Arc<Notify>,
}

impl FakeListerWatcher {
    pub fn new() -> Self {
        Self {
            lists: Mutex::default(),
            watches: Mutex::default(),
            calls: Mutex::default(),
            progress: Arc::new(Notify::new()),
        }
    }

    pub fn list(self, reply: Result<ObjectList<Pod>, kube::Error>) -> Self {
        self.lists.lock().push_back(Some(reply.map(|list| ListPage { list, skipped: Vec::new() })));
        self
    }

    /// A list page that left out `skipped` as undecodable.
    pub fn list_skipping(self, list: ObjectList<Pod>, skipped: Vec<SkippedObject>) -> Self {
        self.lists.lock().push_back(Some(Ok(ListPage { list, skipped })));
        self
    }

    /// A list that never completes, before the next scripted ones.
    pub fn unanswered_list(self) -> Self {
        self.lists.lock().push_back(None);
        self
    }

    pub fn watch(self, reply: WatchScript) -> Self {
        self.watches.lock().push_back(reply);
        self
    }

    pub fn calls(&self) -> Vec<Call> {
        self.calls.lock().clone()
    }

    pub fn lists(&self) -> Vec<(ListParams, Instant)> {
        self.calls()
            .into_iter()
            .filter_map(|c| match c {
                Call::List { params, at } => Some((params, at)),
                Call::Watch { .. } => None,
            })
            .collect()
    }

    pub fn watches(&self) -> Vec<(WatchParams, String, Instant)> {
        self.calls()
            .into_iter()
            .filter_map(|c| match c {
                Call::Watch { params, resource_version, at } => {
                    Some((params, resource_version, at))
                }
                Call::List { .. } => None,
            })
            .collect()
    }

    fn record(&self, call: Call) {
        self.calls.lock().push(call);
        self.progress.notify_waiters();
    }
}

impl ListerWatcher<Pod> for FakeListerWatcher {
    fn list<'a>(
        &'a self,
        params: &'a ListParams,
    ) -> BoxFuture<'a, Result<ObjectList<Pod>, kube::Error>> {
        Box::pin(async move { self.list_page(params, None).await.map(|page| page.list) })
    }

    /// Answers from the queue, bounding the whole call by `idle_limit` as the trait's
    /// default does (the fake has no body to read piece by piece).
    fn list_page<'a>(
        &'a self,
        params: &'a ListParams,
        idle_limit: Option<Duration>,
    ) -> BoxFuture<'a, Result<ListPage<Pod>, kube::Error>> {
        self.record(Call::List { params: params.clone(), at: Instant::now() });
        let reply = self.lists.lock().pop_front().flatten();
        Box::pin(async move {
            let answer = async {
                match reply {
                    Some(reply) => reply,
                    None => std::future::pending().await,
                }
            };
            match idle_limit {
                None => answer.await,
                Some(idle) => tokio::time::timeout(idle, answer).await.unwrap_or_else(|_| {
                    let stalled = WireError::Stalled { idle };
                    let io = std::io::Error::new(std::io::ErrorKind::TimedOut, stalled);
                    Err(kube::Error::ReadEvents(io))
                }),
            }
        })
    }

    fn watch<'a>(
        &'a self,
        params: &'a WatchParams,
        resource_version: &'a str,
    ) -> BoxFuture<'a, Result<WatchStream<Pod>, kube::Error>> {
        self.record(Call::Watch {
            params: params.clone(),
            resource_version: resource_version.to_owned(),
            at: Instant::now(),
        });
        let reply = self.watches.lock().pop_front();
        Box::pin(async move {
            match reply {
                Some(WatchScript::Fail(err)) => Err(err),
                Some(WatchScript::Unanswered) => std::future::pending().await,
                Some(WatchScript::Paced(gap, items)) => Ok(stream::iter(items)
                    .then(move |item| async move {
                        tokio::time::sleep(gap).await;
                        item
                    })
                    .chain(stream::pending())
                    .boxed()),
                Some(WatchScript::Close(items)) => Ok(stream::iter(items).boxed()),
                Some(WatchScript::Hang(items)) => {
                    Ok(stream::iter(items).chain(stream::pending()).boxed())
                }
                Some(WatchScript::Later(items, delay, last)) => Ok(stream::iter(items)
                    .chain(stream::once(async move {
                        tokio::time::sleep(delay).await;
                        *last
                    }))
                    .boxed()),
                Some(WatchScript::Quiet(delay)) => Ok(stream::once(tokio::time::sleep(delay))
                    .filter_map(|()| async { None })
                    .boxed()),
                None => Ok(stream::pending().boxed()),
            }
        })
    }
}

/// One store call, objects shown as `name@resourceVersion`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    Replace(Vec<String>, String),
    Add(String),
    Update(String),
    Delete(String),
    Resync,
    Forget(String),
    /// A relist taken object by object (`start_replace`) began.
    StartReplace,
    /// One object of it.
    Pushed(String),
    /// It finished at the list's resource version.
    FinishReplace(String),
    /// It was dropped without finishing.
    AbortReplace,
}

/// A `ReflectorStore` that records every call.
pub struct RecordingStore {
    ops: Mutex<Vec<Op>>,
    progress: Arc<Notify>,
    fail_adds: AtomicBool,
    /// Takes relists object by object.
    streamed: bool,
    /// The room its streamed relists offer (`None`: they never pace the list).
    room: Option<Arc<Gate>>,
}

/// A [`Room`] that is closed until [`open`](Self::open)ed.
#[derive(Default)]
pub struct Gate {
    open: AtomicBool,
    waker: AtomicWaker,
}

impl Gate {
    pub fn open(&self) {
        self.open.store(true, Ordering::SeqCst);
        self.waker.wake();
    }
}

impl Room for Gate {
    fn poll_room(&self, cx: &mut Context<'_>) -> Poll<()> {
        self.waker.register(cx.waker());
        if self.open.load(Ordering::SeqCst) { Poll::Ready(()) } else { Poll::Pending }
    }
}

impl RecordingStore {
    pub fn ops(&self) -> Vec<Op> {
        self.ops.lock().clone()
    }

    /// Makes every later `add` fail.
    pub fn fail_adds(&self) {
        self.fail_adds.store(true, Ordering::SeqCst);
    }

    fn record(&self, op: Op) {
        self.ops.lock().push(op);
        self.progress.notify_waiters();
    }
}

fn describe(pod: &Pod) -> String {
    format!(
        "{}@{}",
        pod.metadata.name.as_deref().unwrap_or_default(),
        pod.metadata.resource_version.as_deref().unwrap_or_default()
    )
}

impl ReflectorStore<Pod> for RecordingStore {
    fn replace(&self, list: Vec<Arc<Pod>>, resource_version: String) -> Result<(), BoxError> {
        self.record(Op::Replace(list.iter().map(|p| describe(p)).collect(), resource_version));
        Ok(())
    }

    fn add(&self, obj: Arc<Pod>) -> Result<(), BoxError> {
        self.record(Op::Add(describe(&obj)));
        if self.fail_adds.load(Ordering::SeqCst) {
            return Err("store is full".into());
        }
        Ok(())
    }

    fn update(&self, obj: Arc<Pod>) -> Result<(), BoxError> {
        self.record(Op::Update(describe(&obj)));
        Ok(())
    }

    fn delete(&self, obj: Arc<Pod>) -> Result<(), BoxError> {
        self.record(Op::Delete(describe(&obj)));
        Ok(())
    }

    fn resync(&self) -> Result<(), BoxError> {
        self.record(Op::Resync);
        Ok(())
    }

    fn forget(&self, key: &str) -> Result<(), BoxError> {
        self.record(Op::Forget(key.to_owned()));
        Ok(())
    }

    fn start_replace(&self) -> Option<Box<dyn ReplaceSink<Pod> + '_>> {
        if !self.streamed {
            return None;
        }
        self.record(Op::StartReplace);
        Some(Box::new(RecordingReplace { store: self, finished: false }))
    }
}

/// A relist taken object by object by a [`RecordingStore`].
struct RecordingReplace<'a> {
    store: &'a RecordingStore,
    finished: bool,
}

impl ReplaceSink<Pod> for RecordingReplace<'_> {
    fn push(&mut self, obj: Arc<Pod>) -> Result<(), BoxError> {
        self.store.record(Op::Pushed(describe(&obj)));
        Ok(())
    }

    fn finish(mut self: Box<Self>, resource_version: String) -> Result<(), BoxError> {
        self.finished = true;
        self.store.record(Op::FinishReplace(resource_version));
        Ok(())
    }

    fn room(&self) -> Option<Arc<dyn Room>> {
        self.store.room.clone().map(|gate| gate as Arc<dyn Room>)
    }
}

impl Drop for RecordingReplace<'_> {
    fn drop(&mut self) {
        if !self.finished {
            self.store.record(Op::AbortReplace);
        }
    }
}

/// What the watch-error handler received.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reported {
    pub kind: &'static str,
    pub code: Option<u16>,
}

fn kind_of(err: &ReflectorError) -> &'static str {
    match err {
        ReflectorError::List(_) => "list",
        ReflectorError::Watch(_) => "watch",
        ReflectorError::Expired { .. } => "expired",
        ReflectorError::Decode(_) => "decode",
        ReflectorError::Store { .. } => "store",
        ReflectorError::VeryShortWatch { .. } => "very-short-watch",
        ReflectorError::StreamingList(_) => "streaming-list",
        ReflectorError::StreamingListRefused(_) => "streaming-list-refused",
        ReflectorError::StreamingListIncomplete => "streaming-list-incomplete",
        ReflectorError::Undecodable(_) => "undecodable",
        _ => "other",
    }
}

/// Reflector test configuration: client-go's defaults without jitter.
pub fn config() -> ReflectorConfig {
    ReflectorConfig {
        name: "test".into(),
        backoff: BackoffConfig { jitter: 0.0, ..BackoffConfig::default() },
        ..ReflectorConfig::default()
    }
}

/// A reflector running on its own task over a fake lister-watcher and a recording store.
pub struct Harness {
    pub lw: Arc<FakeListerWatcher>,
    pub store: Arc<RecordingStore>,
    /// What the watch-error handler received.
    pub reported: Arc<Mutex<Vec<Reported>>>,
    /// What the error observer received: every error.
    pub observed: Arc<Mutex<Vec<Reported>>>,
    pub version: LastSyncResourceVersion,
    pub cancel: CancellationToken,
    progress: Arc<Notify>,
    task: JoinHandle<()>,
}

impl Harness {
    pub fn start(lw: FakeListerWatcher, config: ReflectorConfig) -> Self {
        Self::start_with(lw, config, |_| {})
    }

    /// Like [`start`](Self::start), with a store that takes relists object by object.
    pub fn start_streamed(lw: FakeListerWatcher, config: ReflectorConfig) -> Self {
        Self::start_store(lw, config, true, None, |_| {})
    }

    /// Like [`start_streamed`](Self::start_streamed), with relists that wait for `room`.
    pub fn start_paced(lw: FakeListerWatcher, config: ReflectorConfig, room: Arc<Gate>) -> Self {
        Self::start_store(lw, config, true, Some(room), |_| {})
    }

    /// Starts the reflector after `customize` (setters) ran on it.
    pub fn start_with(
        lw: FakeListerWatcher,
        config: ReflectorConfig,
        customize: impl FnOnce(&mut Reflector<Pod>),
    ) -> Self {
        Self::start_store(lw, config, false, None, customize)
    }

    fn start_store(
        lw: FakeListerWatcher,
        config: ReflectorConfig,
        streamed: bool,
        room: Option<Arc<Gate>>,
        customize: impl FnOnce(&mut Reflector<Pod>),
    ) -> Self {
        let progress = lw.progress.clone();
        let lw = Arc::new(lw);
        let store = Arc::new(RecordingStore {
            ops: Mutex::default(),
            progress: progress.clone(),
            fail_adds: AtomicBool::new(false),
            streamed,
            room,
        });
        let reported = Arc::new(Mutex::new(Vec::new()));
        let mut reflector = Reflector::new(
            lw.clone() as Arc<dyn ListerWatcher<Pod>>,
            store.clone() as Arc<dyn ReflectorStore<Pod>>,
            config,
        );
        reflector.set_watch_error_handler(Arc::new({
            let reported = reported.clone();
            let progress = progress.clone();
            move |err: &ReflectorError| {
                reported.lock().push(Reported { kind: kind_of(err), code: err.status_code() });
                progress.notify_waiters();
            }
        }));
        let observed = Arc::new(Mutex::new(Vec::new()));
        reflector.set_error_observer(Arc::new({
            let observed = observed.clone();
            let progress = progress.clone();
            move |err: &ReflectorError| {
                observed.lock().push(Reported { kind: kind_of(err), code: err.status_code() });
                progress.notify_waiters();
            }
        }));
        customize(&mut reflector);
        let version = reflector.last_sync_resource_version_handle();
        let cancel = CancellationToken::new();
        let task = tokio::spawn({
            let cancel = cancel.clone();
            async move { reflector.run(cancel).await }
        });
        Self { lw, store, reported, observed, version, cancel, progress, task }
    }

    /// Waits until `condition` holds. Fails the test (instead of hanging) when the
    /// reflector goes idle for an hour of paused time without it.
    pub async fn until(&self, what: &str, condition: impl Fn(&Self) -> bool) {
        let wait = async {
            loop {
                let notified = self.progress.notified();
                tokio::pin!(notified);
                notified.as_mut().enable();
                if condition(self) {
                    return;
                }
                notified.await;
            }
        };
        if tokio::time::timeout(Duration::from_secs(3600), wait).await.is_err() {
            panic!(
                "timed out waiting for {what}; calls: {:#?}; ops: {:#?}; observed: {:#?}",
                self.lw.calls(),
                self.store.ops(),
                self.observed.lock()
            );
        }
    }

    /// What the watch-error handler received: the errors that ended a cycle.
    pub fn reported(&self) -> Vec<Reported> {
        self.reported.lock().clone()
    }

    /// Every error, as the error observer received them.
    pub fn observed(&self) -> Vec<Reported> {
        self.observed.lock().clone()
    }

    /// Cancels the reflector and checks that `run` returns without any time passing.
    pub async fn stop(self) {
        let before = Instant::now();
        self.cancel.cancel();
        let joined = tokio::time::timeout(Duration::from_secs(1), self.task).await;
        assert!(joined.is_ok(), "run did not return promptly after cancel");
        joined.unwrap().expect("reflector task panicked");
        assert_eq!(Instant::now(), before, "run needed time to stop");
    }
}

/// Milliseconds between consecutive instants.
pub fn gaps_ms(instants: &[Instant]) -> Vec<u128> {
    instants.windows(2).map(|w| w[1].duration_since(w[0]).as_millis()).collect()
}
