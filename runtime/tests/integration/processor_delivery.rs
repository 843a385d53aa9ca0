//! How `SharedProcessor` delivers: order, isolation of slow and panicking handlers, counts.

use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use kube_informers_runtime::{
    DeletedObject, ListenerHandle, Notification, ResourceEventHandler, ResourceEventHandlerFuncs,
    SharedProcessor,
};

/// A guard against hanging forever when a test fails; never reached when it passes.
const TIMEOUT: Duration = Duration::from_secs(30);

#[derive(Debug)]
struct Obj {
    name: String,
}

fn obj(name: impl Into<String>) -> Arc<Obj> {
    Arc::new(Obj { name: name.into() })
}

fn add(name: impl Into<String>) -> Notification<Obj> {
    Notification::Add { object: obj(name), is_in_initial_list: false }
}

fn initial_add(name: impl Into<String>) -> Notification<Obj> {
    Notification::Add { object: obj(name), is_in_initial_list: true }
}

/// Every call, as a string, in order.
fn recording() -> (ResourceEventHandlerFuncs<Obj>, Receiver<String>) {
    let (tx, rx) = mpsc::channel::<String>();
    let (add_tx, update_tx, delete_tx) = (tx.clone(), tx.clone(), tx);
    let funcs = ResourceEventHandlerFuncs::new()
        .on_add(move |o: &Arc<Obj>, initial| {
            let _ = add_tx.send(format!("add {} {initial}", o.name));
        })
        .on_update(move |old, new| {
            let _ = update_tx.send(format!("update {} {}", old.name, new.name));
        })
        .on_delete(move |gone: &DeletedObject<Obj>| {
            let _ = delete_tx.send(format!("delete {}", gone.object().name));
        });
    (funcs, rx)
}

/// A handler that reports each add as it enters it, then blocks until released once.
fn blocking() -> (ResourceEventHandlerFuncs<Obj>, Receiver<String>, Sender<()>) {
    let (entered_tx, entered_rx) = mpsc::channel::<String>();
    let (release_tx, release_rx) = mpsc::channel::<()>();
    let release_rx = Mutex::new(release_rx);
    let funcs = ResourceEventHandlerFuncs::new().on_add(move |o: &Arc<Obj>, _| {
        let _ = entered_tx.send(o.name.clone());
        let _ = release_rx.lock().unwrap().recv();
    });
    (funcs, entered_rx, release_tx)
}

fn expect(rx: &Receiver<String>) -> String {
    rx.recv_timeout(TIMEOUT).expect("a notification within the timeout")
}

fn register(
    processor: &SharedProcessor<Obj>,
    handler: impl ResourceEventHandler<Obj>,
) -> ListenerHandle<Obj> {
    processor.add_listener(Arc::new(handler), Duration::ZERO).expect("listener added")
}

#[tokio::test]
async fn each_listener_gets_every_notification_in_order() {
    let processor = SharedProcessor::new();
    let (first, first_rx) = recording();
    let (second, second_rx) = recording();
    register(&processor, first);
    register(&processor, second);

    let a = obj("a");
    processor
        .distribute(Notification::Add { object: Arc::clone(&a), is_in_initial_list: true }, false);
    processor.distribute(Notification::Update { old: Arc::clone(&a), new: obj("a2") }, false);
    processor.distribute(Notification::Delete(DeletedObject::Object(obj("a2"))), false);
    processor.distribute(add("b"), false);

    for rx in [&first_rx, &second_rx] {
        let seen: Vec<String> = (0..4).map(|_| expect(rx)).collect();
        assert_eq!(seen, ["add a true", "update a a2", "delete a2", "add b false"]);
    }
    processor.shutdown().await;
}

#[tokio::test]
async fn every_listener_shares_the_distributed_arc() {
    let processor = SharedProcessor::new();
    let (tx, rx) = mpsc::channel::<Arc<Obj>>();
    for _ in 0..3 {
        let tx = tx.clone();
        register(
            &processor,
            ResourceEventHandlerFuncs::new().on_add(move |o: &Arc<Obj>, _| {
                let _ = tx.send(Arc::clone(o));
            }),
        );
    }
    let object = obj("shared");
    processor.distribute(
        Notification::Add { object: Arc::clone(&object), is_in_initial_list: false },
        false,
    );
    for _ in 0..3 {
        let received = rx.recv_timeout(TIMEOUT).unwrap();
        assert!(Arc::ptr_eq(&received, &object), "no listener got a copy");
    }
    processor.shutdown().await;
}

// The "a blocked handler never delays another", on a current-thread runtime: the
// producer and the healthy handler progress while the other handler is stuck in a callback.
#[tokio::test(flavor = "current_thread")]
async fn blocked_handler_does_not_delay_other_handlers_or_the_producer() {
    const N: usize = 100;
    let processor = SharedProcessor::new();
    let (stuck, stuck_entered, release) = blocking();
    let (healthy, healthy_rx) = recording();
    let stuck = register(&processor, stuck);
    let healthy = register(&processor, healthy);

    for i in 0..N {
        processor.distribute(add(format!("o{i}")), false);
    }
    // The stuck handler is inside its first call...
    assert_eq!(expect(&stuck_entered), "o0");
    // ...while the healthy one receives everything.
    for i in 0..N {
        assert_eq!(expect(&healthy_rx), format!("add o{i} false"));
    }
    // Nothing of the stuck handler's queue has been handled: the first is in progress.
    assert_eq!(stuck.pending(), N);
    assert!(stuck_entered.try_recv().is_err(), "still blocked in the first call");

    for _ in 0..N {
        release.send(()).unwrap();
    }
    for i in 1..N {
        assert_eq!(expect(&stuck_entered), format!("o{i}"));
    }
    processor.shutdown().await;
    assert_eq!(stuck.pending(), 0);
    assert_eq!(healthy.pending(), 0);
}

// client-go: shared_informer_test.go TestEventPanics (the panic is logged and the listener
// carries on; here without client-go's one-second pause after a panic).
#[tokio::test]
async fn panicking_handler_is_contained_and_keeps_receiving() {
    let processor = SharedProcessor::new();
    let (tx, rx) = mpsc::channel::<String>();
    let panicking = ResourceEventHandlerFuncs::new().on_add(move |o: &Arc<Obj>, _| {
        if o.name.starts_with("boom") {
            panic!("handler failure");
        }
        let _ = tx.send(o.name.clone());
    });
    let (bystander, bystander_rx) = recording();
    let panicking = register(&processor, panicking);
    register(&processor, bystander);

    processor.distribute(add("a"), false);
    processor.distribute(initial_add("boom-1"), false);
    processor.distribute(add("b"), false);
    processor.distribute(add("boom-2"), false);
    processor.distribute(add("c"), false);

    assert_eq!([expect(&rx), expect(&rx), expect(&rx)], ["a", "b", "c"]);
    let seen: Vec<String> = (0..5).map(|_| expect(&bystander_rx)).collect();
    assert_eq!(
        seen,
        ["add a false", "add boom-1 true", "add b false", "add boom-2 false", "add c false"]
    );
    // A panicked initial-list add counts as handled, so the handler can still sync
    // (unlike client-go, kubernetes/kubernetes#129024).
    assert_eq!(panicking.initial_list_pending(), 0);
    assert!(panicking.has_synced(true));
    processor.shutdown().await;
}

#[tokio::test]
async fn pending_counts_queued_and_in_progress_notifications() {
    let processor = SharedProcessor::new();
    let (stuck, entered, release) = blocking();
    let stuck = register(&processor, stuck);
    assert_eq!(stuck.pending(), 0);

    processor.distribute(add("a"), false);
    assert_eq!(expect(&entered), "a");
    assert_eq!(stuck.pending(), 1, "the notification in progress still counts");
    for name in ["b", "c", "d"] {
        processor.distribute(add(name), false);
    }
    assert_eq!(stuck.pending(), 4);

    release.send(()).unwrap();
    assert_eq!(expect(&entered), "b");
    assert_eq!(stuck.pending(), 3);
    release.send(()).unwrap();
    assert_eq!(expect(&entered), "c");
    assert_eq!(stuck.pending(), 2);

    release.send(()).unwrap();
    release.send(()).unwrap();
    assert_eq!(expect(&entered), "d");
    processor.shutdown().await;
    assert_eq!(stuck.pending(), 0);
}

// client-go 1.27+: a registration's HasSynced (synctrack.SingleFileTracker) is true once the
// informer has synced and the handler has handled every initial-list add.
#[tokio::test]
async fn has_synced_waits_for_the_initial_list_to_be_handled() {
    let processor = SharedProcessor::new();
    let (stuck, entered, release) = blocking();
    let stuck = register(&processor, stuck);

    processor.distribute(initial_add("a"), false);
    processor.distribute(initial_add("b"), false);
    assert_eq!(expect(&entered), "a");
    assert_eq!(stuck.initial_list_pending(), 2);
    assert!(!stuck.has_synced(true), "initial adds not handled yet");

    // A later, non-initial add does not count towards sync; once it is being handled,
    // both initial adds before it are done.
    processor.distribute(add("live"), false);
    assert_eq!(stuck.initial_list_pending(), 2);
    release.send(()).unwrap();
    assert_eq!(expect(&entered), "b");
    release.send(()).unwrap();
    assert_eq!(expect(&entered), "live");
    assert_eq!(stuck.initial_list_pending(), 0);
    assert!(!stuck.has_synced(false), "the upstream has not synced");
    assert!(stuck.has_synced(true));
    // Once synced, a registration stays synced, as client-go's tracker latches.
    processor.distribute(initial_add("late"), false);
    assert!(stuck.has_synced(false));

    release.send(()).unwrap();
    release.send(()).unwrap();
    processor.shutdown().await;
}

// client-go: shared_informer.go AddEventHandlerWithOptions queues the cache's content for a
// handler that joins a running informer before returning its registration.
#[tokio::test]
async fn notifications_added_through_a_handle_reach_only_that_listener() {
    let processor = SharedProcessor::new();
    let (existing, existing_rx) = recording();
    register(&processor, existing);
    let (stuck, entered, release) = blocking();
    let late = register(&processor, stuck);

    for name in ["x", "y"] {
        assert!(late.add(initial_add(name)));
    }
    assert_eq!(late.initial_list_pending(), 2, "counted before the handle is returned to callers");
    assert!(!late.has_synced(true));
    processor.distribute(add("live"), false);
    assert_eq!(expect(&existing_rx), "add live false");

    for _ in 0..3 {
        release.send(()).unwrap();
    }
    assert_eq!([expect(&entered), expect(&entered), expect(&entered)], ["x", "y", "live"]);
    processor.shutdown().await;
    assert!(existing_rx.try_recv().is_err(), "the existing handler got no initial adds");
    assert!(!late.add(add("after")), "a stopped listener refuses notifications");
}

/// A handler that needs a current runtime: it asks for `Handle::current()` and
/// `tokio::spawn`s a task, which reports each add on the channel.
fn spawning() -> (ResourceEventHandlerFuncs<Obj>, Receiver<String>) {
    let (tx, rx) = mpsc::channel::<String>();
    let funcs = ResourceEventHandlerFuncs::new().on_add(move |o: &Arc<Obj>, _| {
        let _ = tokio::runtime::Handle::current();
        let (tx, name) = (tx.clone(), o.name.clone());
        tokio::spawn(async move {
            let _ = tx.send(format!("spawned for {name}"));
        });
    });
    (funcs, rx)
}

/// Handlers run where the runtime the listener was added in is current: `tokio::spawn`
/// and `Handle::current()` work in a handler (they panicked on a bare listener thread,
/// and the panic skipped the notification).
#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn a_handler_may_spawn_tasks_on_the_runtime_it_was_added_in() {
    let processor = SharedProcessor::new();
    let (handler, rx) = spawning();
    register(&processor, handler);
    processor.distribute(add("a"), false);
    assert_eq!(expect(&rx), "spawned for a");
    processor.shutdown().await;
}

/// A listener added outside any runtime runs its handler in the runtime the processor is
/// given later: the informer's, which hands it over when it starts.
#[test]
fn a_listener_added_outside_a_runtime_uses_the_runtime_set_later() {
    let runtime =
        tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    let processor = SharedProcessor::new();
    let (handler, rx) = spawning();
    register(&processor, handler);
    processor.set_runtime(runtime.handle().clone());
    processor.distribute(add("a"), false);
    assert_eq!(expect(&rx), "spawned for a");
    runtime.block_on(processor.shutdown());
}
