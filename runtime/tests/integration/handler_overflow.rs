//! A bound on a handler's pending notifications (`HandlerOptions::max_pending`) and its two
//! overflow policies: `Disconnect` drops the handler and says so, `Block` applies
//! back-pressure and loses nothing. client-go has no bound (its listener buffer grows until
//! the process runs out of memory), so no client-go test is mirrored here.

use std::fmt;
use std::num::NonZeroUsize;
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use futures::future::BoxFuture;
use k8s_openapi::api::core::v1::ConfigMap;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ListMeta;
use kube::api::{ListParams, WatchParams};
use kube::core::{ObjectList, TypeMeta, WatchEvent};
use kube_informers_runtime::listwatch::{ListerWatcher, WatchStream};
use kube_informers_runtime::store::Indexers;
use kube_informers_runtime::{
    HandlerOptions, ListenerHandle, Notification, OverflowPolicy, ResourceEventHandler,
    ResourceEventHandlerFuncs, SharedIndexInformer, SharedProcessor,
};
use tokio::sync::mpsc as tokio_mpsc;
use tokio_util::sync::CancellationToken;
use tracing::field::{Field, Visit};
use tracing::{Event, Level, Metadata, Subscriber, span};

/// A failure guard only: every wait below ends as soon as its condition holds.
const TIMEOUT: Duration = Duration::from_secs(30);

pub(crate) fn bound(max: usize, policy: OverflowPolicy) -> HandlerOptions {
    HandlerOptions::new().max_pending(NonZeroUsize::new(max).unwrap()).overflow(policy)
}

/// Polls `condition` until it holds; panics after [`TIMEOUT`].
fn wait_until(what: &str, mut condition: impl FnMut() -> bool) {
    let deadline = Instant::now() + TIMEOUT;
    while !condition() {
        assert!(Instant::now() < deadline, "timed out waiting until {what}");
        thread::sleep(Duration::from_millis(1));
    }
}

/// Like [`wait_until`], for tests on a tokio runtime: lets the informer's tasks run.
pub(crate) async fn wait_until_async(what: &str, mut condition: impl FnMut() -> bool) {
    let deadline = Instant::now() + TIMEOUT;
    while !condition() {
        assert!(Instant::now() < deadline, "timed out waiting until {what}");
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
}

pub(crate) fn drain<T>(rx: &Receiver<T>, count: usize) -> Vec<T> {
    (0..count)
        .map(|_| rx.recv_timeout(TIMEOUT).expect("a notification within the timeout"))
        .collect()
}

/// A gate a handler waits at until the test opens it.
#[derive(Clone, Default)]
pub(crate) struct Gate(Arc<(Mutex<bool>, std::sync::Condvar)>);

impl Gate {
    pub(crate) fn wait(&self) {
        let (open, opened) = &*self.0;
        let mut open = open.lock().unwrap();
        while !*open {
            open = opened.wait(open).unwrap();
        }
    }

    pub(crate) fn open(&self) {
        let (open, opened) = &*self.0;
        *open.lock().unwrap() = true;
        opened.notify_all();
    }
}

// ---------------------------------------------------------------------------------------
// The processor alone, driven from plain threads.

#[derive(Debug)]
struct Obj {
    seq: u64,
}

fn add(seq: u64) -> Notification<Obj> {
    Notification::Add { object: Arc::new(Obj { seq }), is_in_initial_list: false }
}

/// Sends every seq it is handed.
fn recording() -> (ResourceEventHandlerFuncs<Obj>, Receiver<u64>) {
    let (tx, rx) = mpsc::channel();
    let handler = ResourceEventHandlerFuncs::new().on_add(move |o: &Arc<Obj>, _| {
        let _ = tx.send(o.seq);
    });
    (handler, rx)
}

/// Sends every seq as it starts handling it, then waits at `gate`.
fn gated(gate: Gate) -> (ResourceEventHandlerFuncs<Obj>, Receiver<u64>) {
    let (tx, rx) = mpsc::channel();
    let handler = ResourceEventHandlerFuncs::new().on_add(move |o: &Arc<Obj>, _| {
        let _ = tx.send(o.seq);
        gate.wait();
    });
    (handler, rx)
}

fn register(
    processor: &SharedProcessor<Obj>,
    handler: impl ResourceEventHandler<Obj>,
    options: HandlerOptions,
) -> ListenerHandle<Obj> {
    processor.add_listener_with_options(Arc::new(handler), options).expect("listener added")
}

#[test]
fn disconnect_drops_only_the_overflowing_listener_and_says_so() {
    kube_informers_testkit::scoped_subscribers_see_every_callsite();
    let capture = Capture::default();
    let processor = SharedProcessor::new();
    let gate = Gate::default();
    let (stalled, stalled_rx) = gated(gate.clone());
    let stalled = register(&processor, stalled, bound(3, OverflowPolicy::Disconnect));
    let (other, other_rx) = recording();
    let other = register(&processor, other, HandlerOptions::new());
    assert_eq!(stalled.max_pending().map(NonZeroUsize::get), Some(3));
    assert_eq!(stalled.overflow_policy(), Some(OverflowPolicy::Disconnect));
    assert_eq!(other.max_pending(), None, "unbounded unless asked");

    tracing::subscriber::with_default(capture.clone(), || {
        // 1 is being handled (the handler waits at the gate), 2 and 3 are queued: the
        // bound is reached, so 4 disconnects the stalled listener.
        for seq in 1..=3 {
            processor.distribute(add(seq), false);
            assert_eq!(stalled.pending(), seq as usize);
            assert!(!stalled.is_disconnected());
            if seq == 1 {
                assert_eq!(drain(&stalled_rx, 1), [1], "the handler is at the gate with 1");
            }
        }
        processor.distribute(add(4), false);
        assert!(stalled.is_disconnected());
        assert!(stalled.is_removed());
        assert_eq!(stalled.pending(), 1, "queued notifications freed; only the one in hand");
        assert_eq!(processor.listeners_len(), 1, "disconnected listener removed");
        for seq in 5..=10 {
            processor.distribute(add(seq), false);
        }
    });

    assert_eq!(drain(&other_rx, 10), (1..=10).collect::<Vec<_>>(), "other handler saw all");
    assert!(!other.is_disconnected());
    assert!(!stalled.has_synced(true), "a disconnected listener never reports synced");

    gate.open();
    wait_until("the stalled listener's thread ends", || stalled.has_finished());
    assert_eq!(stalled_rx.try_iter().count(), 0, "nothing after disconnection");
    assert_eq!(stalled.pending(), 0);

    let warnings = capture.at(Level::WARN);
    assert_eq!(warnings.len(), 1, "one warning per disconnection: {warnings:?}");
    let fields = &warnings[0];
    assert!(fields.contains(&("listener".into(), stalled.id().to_string())), "{fields:?}");
    assert!(fields.contains(&("max_pending".into(), "3".into())), "{fields:?}");
    assert!(
        !fields.iter().any(|(_, value)| value.contains("Obj") || value.contains("seq")),
        "no object contents in the warning: {fields:?}"
    );
}

#[test]
fn block_holds_the_producer_at_the_bound_and_loses_nothing() {
    const EVENTS: u64 = 50;
    let processor = SharedProcessor::new();
    let gate = Gate::default();
    let (stalled, stalled_rx) = gated(gate.clone());
    let stalled = register(&processor, stalled, bound(3, OverflowPolicy::Block));
    let (other, other_rx) = recording();
    register(&processor, other, HandlerOptions::new());

    let producer = thread::spawn({
        let processor = processor.clone();
        move || {
            for seq in 1..=EVENTS {
                processor.distribute(add(seq), false);
            }
        }
    });
    assert_eq!(drain(&stalled_rx, 1), [1]);
    wait_until("the stalled listener is full", || stalled.pending() == 3);
    // The handler is still at the gate, so the listener cannot take a fourth notification:
    // the producer is necessarily still waiting, and every other listener with it.
    assert!(!producer.is_finished());
    assert_eq!(stalled.pending(), 3);
    assert_eq!(drain(&other_rx, 4), [1, 2, 3, 4], "the blocked distribution reached the rest");

    gate.open();
    let mut max_seen = 0;
    while !producer.is_finished() {
        max_seen = max_seen.max(stalled.pending());
    }
    producer.join().unwrap();
    assert!(max_seen <= 3, "pending reached {max_seen}, above the bound of 3");
    let mut seen = vec![1];
    seen.extend(drain(&stalled_rx, EVENTS as usize - 1));
    assert_eq!(seen, (1..=EVENTS).collect::<Vec<_>>(), "every event, in order");
    assert_eq!(drain(&other_rx, EVENTS as usize - 4), (5..=EVENTS).collect::<Vec<_>>());
    assert!(!stalled.is_disconnected());
}

#[tokio::test]
async fn shutdown_releases_a_producer_blocked_on_a_full_listener() {
    let processor = SharedProcessor::new();
    let gate = Gate::default();
    let (stalled, stalled_rx) = gated(gate.clone());
    let stalled = register(&processor, stalled, bound(1, OverflowPolicy::Block));
    let (done_tx, done_rx) = mpsc::channel();
    let producer = thread::spawn({
        let processor = processor.clone();
        move || {
            for seq in 1..=5 {
                processor.distribute(add(seq), false);
            }
            done_tx.send(()).unwrap();
        }
    });
    assert_eq!(drain(&stalled_rx, 1), [1]);
    wait_until("the stalled listener is full", || stalled.pending() == 1);
    assert!(!producer.is_finished(), "the handler holds the only slot");

    // Stopping happens on the call; the future then waits for the handler's thread.
    let shutdown = processor.shutdown();
    done_rx.recv_timeout(TIMEOUT).expect("shutdown released the producer");
    producer.join().unwrap();
    gate.open();
    tokio::time::timeout(TIMEOUT, shutdown).await.expect("shutdown completes");
    assert!(stalled.has_finished());
    assert_eq!(stalled_rx.try_iter().count(), 0, "nothing delivered after shutdown");
}

#[test]
fn removing_a_full_blocking_listener_releases_the_producer() {
    let processor = SharedProcessor::new();
    let gate = Gate::default();
    let (stalled, stalled_rx) = gated(gate.clone());
    let stalled = register(&processor, stalled, bound(2, OverflowPolicy::Block));
    let (other, other_rx) = recording();
    register(&processor, other, HandlerOptions::new());
    let producer = thread::spawn({
        let processor = processor.clone();
        move || {
            for seq in 1..=20 {
                processor.distribute(add(seq), false);
            }
        }
    });
    assert_eq!(drain(&stalled_rx, 1), [1]);
    wait_until("the stalled listener is full", || stalled.pending() == 2);
    assert!(!producer.is_finished());

    assert!(processor.remove_listener(&stalled));
    assert_eq!(drain(&other_rx, 20), (1..=20).collect::<Vec<_>>(), "the rest carried on");
    producer.join().unwrap();
    assert!(!stalled.is_disconnected(), "removed by the user, not disconnected");
    gate.open();
    wait_until("the stalled listener's thread ends", || stalled.has_finished());
}

// ---------------------------------------------------------------------------------------
// Through a whole informer: reflector, DeltaFIFO, cache, processor.

pub(crate) fn config_map(name: &str, rv: u32) -> ConfigMap {
    let mut cm = ConfigMap::default();
    cm.metadata.name = Some(name.into());
    cm.metadata.namespace = Some("ns".into());
    cm.metadata.resource_version = Some(rv.to_string());
    cm
}

/// Lists `initial`, then serves one watch fed by the test.
pub(crate) struct ScriptedServer {
    initial: Vec<ConfigMap>,
    events: Mutex<Option<tokio_mpsc::UnboundedReceiver<WatchEvent<ConfigMap>>>>,
}

impl ScriptedServer {
    pub(crate) fn new(
        initial: Vec<ConfigMap>,
    ) -> (Arc<Self>, tokio_mpsc::UnboundedSender<WatchEvent<ConfigMap>>) {
        let (tx, rx) = tokio_mpsc::unbounded_channel();
        (Arc::new(Self { initial, events: Mutex::new(Some(rx)) }), tx)
    }
}

impl ListerWatcher<ConfigMap> for ScriptedServer {
    fn list<'a>(
        &'a self,
        _: &'a ListParams,
    ) -> BoxFuture<'a, Result<ObjectList<ConfigMap>, kube::Error>> {
        Box::pin(async {
            Ok(ObjectList {
                types: TypeMeta { api_version: "v1".into(), kind: "ConfigMapList".into() },
                metadata: ListMeta { resource_version: Some("1".into()), ..ListMeta::default() },
                items: self.initial.clone(),
            })
        })
    }

    fn watch<'a>(
        &'a self,
        _: &'a WatchParams,
        _: &'a str,
    ) -> BoxFuture<'a, Result<WatchStream<ConfigMap>, kube::Error>> {
        let events = self.events.lock().unwrap().take();
        Box::pin(async move {
            let stream: WatchStream<ConfigMap> = match events {
                Some(rx) => Box::pin(futures::stream::unfold(rx, |mut rx| async move {
                    rx.recv().await.map(|event| (Ok(event), rx))
                })),
                // A second watch would mean the first failed: stay quiet.
                None => Box::pin(futures::stream::pending()),
            };
            Ok(stream)
        })
    }
}

pub(crate) fn name_of(cm: &Arc<ConfigMap>) -> String {
    cm.metadata.name.clone().unwrap_or_default()
}

/// Sends the name of every add and update.
pub(crate) fn recording_cm() -> (ResourceEventHandlerFuncs<ConfigMap>, Receiver<String>) {
    let (tx, rx) = mpsc::channel();
    let update_tx = Mutex::new(tx.clone());
    let handler = ResourceEventHandlerFuncs::new()
        .on_add(move |cm: &Arc<ConfigMap>, _| {
            let _ = tx.send(name_of(cm));
        })
        .on_update(move |_, cm| {
            let _ = update_tx.lock().unwrap().send(name_of(cm));
        });
    (handler, rx)
}

/// Sends the name of every add as it starts handling it, then waits at `gate`.
pub(crate) fn gated_cm(gate: Gate) -> (ResourceEventHandlerFuncs<ConfigMap>, Receiver<String>) {
    let (tx, rx) = mpsc::channel();
    let handler = ResourceEventHandlerFuncs::new().on_add(move |cm: &Arc<ConfigMap>, _| {
        let _ = tx.send(name_of(cm));
        gate.wait();
    });
    (handler, rx)
}

fn names(prefix: &str, range: std::ops::RangeInclusive<u32>) -> Vec<String> {
    range.map(|i| format!("{prefix}{i}")).collect()
}

pub(crate) fn run(
    informer: &SharedIndexInformer<ConfigMap>,
) -> (CancellationToken, tokio::task::JoinHandle<()>) {
    let cancel = CancellationToken::new();
    let running = tokio::spawn({
        let (informer, cancel) = (informer.clone(), cancel.clone());
        async move { informer.run(cancel).await }
    });
    (cancel, running)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn informer_disconnects_a_stalled_handler_and_a_new_one_catches_up() {
    let (server, events) = ScriptedServer::new(vec![config_map("a", 1), config_map("b", 1)]);
    let informer = SharedIndexInformer::new(server, Duration::ZERO, Indexers::default());
    let (other, other_rx) = recording_cm();
    let other = informer.add_event_handler(other).unwrap();
    let gate = Gate::default();
    let (stalled, stalled_rx) = gated_cm(gate.clone());
    let stalled = informer
        .add_event_handler_with_options(stalled, bound(3, OverflowPolicy::Disconnect))
        .unwrap();
    let (cancel, running) = run(&informer);
    assert!(informer.wait_for_sync().await);
    assert_eq!(drain(&stalled_rx, 1), ["a"], "the stalled handler is at the gate with a");

    let mut expected = vec!["a".to_owned(), "b".to_owned()];
    for i in 1..=5 {
        events.send(WatchEvent::Added(config_map(&format!("w{i}"), 1 + i))).unwrap();
        expected.push(format!("w{i}"));
    }
    let mut seen = drain(&other_rx, 2);
    seen.sort(); // the initial list comes in key order, but say nothing about it here
    seen.extend(drain(&other_rx, 5));
    assert_eq!(seen, expected, "the other handler received every event, in order");

    // The stalled handler holds "a"; "b", "w1" filled it to 3; "w2" disconnected it.
    assert!(stalled.is_disconnected());
    assert!(stalled.pending() <= 1, "its queue was freed");
    assert!(!stalled.has_synced(), "disconnected: never synced");
    wait_until_async("the other handler synced", || other.has_synced()).await;
    assert!(!other.is_disconnected());
    assert_eq!(informer.handler_count(), 1);
    assert_eq!(informer.get_indexer().list().len(), 7, "the cache is unaffected");

    // Registering again hands over the cache as it is now.
    let (again, again_rx) = recording_cm();
    let again = informer
        .add_event_handler_with_options(again, bound(100, OverflowPolicy::Disconnect))
        .unwrap();
    let mut caught_up = drain(&again_rx, 7);
    caught_up.sort();
    let mut current = expected.clone();
    current.sort();
    assert_eq!(caught_up, current);
    wait_until_async("the new handler synced", || again.has_synced()).await;
    events.send(WatchEvent::Added(config_map("w6", 7))).unwrap();
    assert_eq!(drain(&again_rx, 1), ["w6"], "and every event after");

    gate.open();
    cancel.cancel();
    tokio::time::timeout(TIMEOUT, running).await.expect("informer stops").unwrap();
    assert_eq!(stalled_rx.try_iter().count(), 0, "nothing after disconnection");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn informer_block_applies_back_pressure_and_loses_nothing() {
    const EVENTS: u32 = 30;
    let (server, events) = ScriptedServer::new(vec![config_map("a", 1)]);
    let informer = SharedIndexInformer::new(server, Duration::ZERO, Indexers::default());
    let gate = Gate::default();
    let (stalled, stalled_rx) = gated_cm(gate.clone());
    let stalled =
        informer.add_event_handler_with_options(stalled, bound(2, OverflowPolicy::Block)).unwrap();
    let (other, other_rx) = recording_cm();
    informer.add_event_handler(other).unwrap();
    let (cancel, running) = run(&informer);
    assert!(informer.wait_for_sync().await);
    assert_eq!(drain(&stalled_rx, 1), ["a"]);
    assert!(!stalled.has_synced(), "its initial add is still in hand");

    for i in 1..=EVENTS {
        events.send(WatchEvent::Added(config_map(&format!("w{i}"), 1 + i))).unwrap();
    }
    wait_until_async("the stalled handler is full", || stalled.pending() == 2).await;
    // With the handler at the gate, the informer cannot hand it more: it waits, and the
    // events behind stay undelivered (to this handler: the cache may run one batch ahead).
    assert_eq!(stalled.pending(), 2);
    assert!(!stalled.is_disconnected());

    gate.open();
    let mut max_seen = 0;
    let mut seen = vec!["a".to_owned()];
    let deadline = Instant::now() + TIMEOUT;
    while seen.len() < 1 + EVENTS as usize {
        assert!(Instant::now() < deadline, "timed out; received {seen:?}");
        max_seen = max_seen.max(stalled.pending());
        if let Ok(name) = stalled_rx.try_recv() {
            seen.push(name);
        }
        tokio::task::yield_now().await;
    }
    assert!(max_seen <= 2, "pending reached {max_seen}, above the bound of 2");
    let mut expected = vec!["a".to_owned()];
    expected.extend(names("w", 1..=EVENTS));
    assert_eq!(seen, expected, "every event, in order");
    assert_eq!(drain(&other_rx, 1 + EVENTS as usize), expected);
    wait_until_async("the stalled handler synced", || stalled.has_synced()).await;

    cancel.cancel();
    tokio::time::timeout(TIMEOUT, running).await.expect("informer stops").unwrap();
}

#[tokio::test]
async fn stopping_an_informer_releases_back_pressure() {
    let (server, events) = ScriptedServer::new(Vec::new());
    let informer = SharedIndexInformer::new(server, Duration::ZERO, Indexers::default());
    let gate = Gate::default();
    let (stalled, stalled_rx) = gated_cm(gate.clone());
    let stalled =
        informer.add_event_handler_with_options(stalled, bound(1, OverflowPolicy::Block)).unwrap();
    let (other, other_rx) = recording_cm();
    informer.add_event_handler(other).unwrap();
    let (cancel, running) = run(&informer);
    assert!(informer.wait_for_sync().await);
    for i in 1..=5 {
        events.send(WatchEvent::Added(config_map(&format!("w{i}"), 1 + i))).unwrap();
    }
    // "w2" reached the other handler, so it was distributed while the stalled handler held
    // "w1", its only slot: it is held back, and the informer waits before its next batch.
    let mut delivered = Vec::new();
    wait_until_async("the other handler saw w2", || {
        delivered.extend(other_rx.try_iter());
        delivered.len() >= 2
    })
    .await;
    assert_eq!(&delivered[..2], ["w1", "w2"]);
    assert_eq!(drain(&stalled_rx, 1), ["w1"]);
    assert_eq!(stalled.pending(), 1);

    // On a single-threaded runtime: waiting must not hold the thread the cancel needs.
    cancel.cancel();
    wait_until_async("the informer's loops end", || informer.is_stopped()).await;
    assert!(!stalled.listener().has_finished(), "the handler is still at the gate");
    gate.open();
    tokio::time::timeout(TIMEOUT, running).await.expect("informer stops").unwrap();
    assert_eq!(stalled_rx.try_iter().count(), 0, "nothing delivered after the stop");
}

#[tokio::test]
async fn unbounded_by_default() {
    let (server, events) = ScriptedServer::new(Vec::new());
    let informer = SharedIndexInformer::new(server, Duration::ZERO, Indexers::default());
    let gate = Gate::default();
    let (stalled, stalled_rx) = gated_cm(gate.clone());
    let stalled = informer.add_event_handler(stalled).unwrap();
    assert_eq!(stalled.listener().max_pending(), None);
    let (cancel, running) = run(&informer);
    assert!(informer.wait_for_sync().await);
    for i in 1..=100 {
        events.send(WatchEvent::Added(config_map(&format!("w{i}"), 1 + i))).unwrap();
    }
    wait_until_async("every event is queued", || stalled.pending() == 100).await;
    assert!(!stalled.is_disconnected());
    gate.open();
    assert_eq!(drain(&stalled_rx, 100), names("w", 1..=100));
    cancel.cancel();
    tokio::time::timeout(TIMEOUT, running).await.expect("informer stops").unwrap();
}

// ---------------------------------------------------------------------------------------
// A minimal subscriber that keeps every event's fields, for the warning test.

#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Vec<(Level, EventFields)>>>);

/// An event's fields, as `(name, value)`.
type EventFields = Vec<(String, String)>;

impl Capture {
    fn at(&self, level: Level) -> Vec<EventFields> {
        let events = self.0.lock().unwrap();
        events.iter().filter(|(l, _)| *l == level).map(|(_, fields)| fields.clone()).collect()
    }
}

struct Fields(Vec<(String, String)>);

impl Visit for Fields {
    fn record_u64(&mut self, field: &Field, value: u64) {
        self.0.push((field.name().to_owned(), value.to_string()));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.push((field.name().to_owned(), value.to_owned()));
    }
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.0.push((field.name().to_owned(), format!("{value:?}")));
    }
}

impl Subscriber for Capture {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &span::Attributes<'_>) -> span::Id {
        span::Id::from_u64(1)
    }
    fn record(&self, _: &span::Id, _: &span::Record<'_>) {}
    fn record_follows_from(&self, _: &span::Id, _: &span::Id) {}
    fn event(&self, event: &Event<'_>) {
        let mut fields = Fields(Vec::new());
        event.record(&mut fields);
        self.0.lock().unwrap().push((*event.metadata().level(), fields.0));
    }
    fn enter(&self, _: &span::Id) {}
    fn exit(&self, _: &span::Id) {}
}
