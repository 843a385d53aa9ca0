//! Adding and removing listeners at runtime, and shutting the processor down.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use kube_informers_runtime::{
    ListenerHandle, Notification, ProcessorError, ResourceEventHandler, ResourceEventHandlerFuncs,
    SharedProcessor,
};
use rand::Rng;

const TIMEOUT: Duration = Duration::from_secs(30);

#[derive(Debug)]
struct Obj {
    seq: u64,
}

fn add(seq: u64) -> Notification<Obj> {
    Notification::Add { object: Arc::new(Obj { seq }), is_in_initial_list: false }
}

fn recording() -> (ResourceEventHandlerFuncs<Obj>, Receiver<u64>) {
    let (tx, rx) = mpsc::channel();
    (
        ResourceEventHandlerFuncs::new().on_add(move |o: &Arc<Obj>, _| {
            let _ = tx.send(o.seq);
        }),
        rx,
    )
}

/// Reports each add as it enters it, then blocks until released once. Holds `probe` so that
/// a test can see when the handler has been dropped.
fn blocking(probe: Arc<()>) -> (ResourceEventHandlerFuncs<Obj>, Receiver<u64>, Sender<()>) {
    let (entered_tx, entered_rx) = mpsc::channel();
    let (release_tx, release_rx) = mpsc::channel::<()>();
    let release_rx = Mutex::new(release_rx);
    let funcs = ResourceEventHandlerFuncs::new().on_add(move |o: &Arc<Obj>, _| {
        let _keep = &probe;
        let _ = entered_tx.send(o.seq);
        let _ = release_rx.lock().unwrap().recv();
    });
    (funcs, entered_rx, release_tx)
}

fn register(
    processor: &SharedProcessor<Obj>,
    handler: impl ResourceEventHandler<Obj>,
) -> ListenerHandle<Obj> {
    processor.add_listener(Arc::new(handler), Duration::ZERO).expect("listener added")
}

fn expect(rx: &Receiver<u64>) -> u64 {
    rx.recv_timeout(TIMEOUT).expect("a notification within the timeout")
}

// client-go: shared_informer_test.go TestSharedInformerRemoveHandler and
// TestRemovingRemovedSharedInformer (removing twice is harmless and reports nothing removed).
#[tokio::test]
async fn listeners_are_removed_once() {
    let processor = SharedProcessor::new();
    let first = register(&processor, ResourceEventHandlerFuncs::new());
    let second = register(&processor, ResourceEventHandlerFuncs::new());
    assert_ne!(first.id(), second.id());
    assert_eq!(processor.listeners_len(), 2);

    assert!(processor.remove_listener(&second));
    assert_eq!(processor.listeners_len(), 1);
    assert!(second.is_removed());
    assert!(!first.is_removed());

    assert!(!processor.remove_listener(&second), "already removed");
    assert_eq!(processor.listeners_len(), 1);
    assert!(processor.remove_listener(&first));
    assert_eq!(processor.listeners_len(), 0);
    second.finished().await;
    first.finished().await;
    processor.shutdown().await;
}

// client-go: shared_informer_test.go TestSharedInformerRemoveForeignHandler
#[tokio::test]
async fn a_foreign_handle_removes_nothing() {
    let one = SharedProcessor::new();
    let other = SharedProcessor::new();
    let mine = register(&one, ResourceEventHandlerFuncs::new());
    let foreign = register(&other, ResourceEventHandlerFuncs::new());
    assert!(!one.remove_listener(&foreign));
    assert_eq!(one.listeners_len(), 1);
    assert!(!foreign.is_removed());
    assert!(one.remove_listener(&mine));
    one.shutdown().await;
    other.shutdown().await;
}

#[tokio::test]
async fn listeners_added_at_runtime_get_only_later_notifications() {
    let processor = SharedProcessor::new();
    let (early, early_rx) = recording();
    register(&processor, early);
    processor.distribute(add(1), false);
    assert_eq!(expect(&early_rx), 1);

    let (late, late_rx) = recording();
    register(&processor, late);
    processor.distribute(add(2), false);
    assert_eq!(expect(&early_rx), 2);
    assert_eq!(expect(&late_rx), 2, "the late listener starts with what follows its addition");
    processor.shutdown().await;
}

#[tokio::test]
async fn a_removed_listener_drops_its_queue_and_receives_nothing_more() {
    let processor = SharedProcessor::new();
    let probe = Arc::new(());
    let (stuck, entered, release) = blocking(Arc::clone(&probe));
    let stuck = register(&processor, stuck);
    let (other, other_rx) = recording();
    register(&processor, other);

    for seq in 1..=5 {
        processor.distribute(add(seq), false);
    }
    assert_eq!(expect(&entered), 1);
    assert_eq!(stuck.pending(), 5);

    assert!(processor.remove_listener(&stuck));
    assert_eq!(stuck.pending(), 1, "the four queued notifications are dropped at once");
    assert!(!stuck.has_finished(), "still inside its current call");
    processor.distribute(add(6), false);

    release.send(()).unwrap();
    stuck.finished().await;
    assert!(stuck.has_finished());
    assert_eq!(stuck.pending(), 0);
    assert_eq!(Arc::strong_count(&probe), 1, "the handler was dropped with its thread");
    assert!(entered.try_recv().is_err(), "nothing after removal reached the handler");
    let seen: Vec<u64> = (0..6).map(|_| expect(&other_rx)).collect();
    assert_eq!(seen, [1, 2, 3, 4, 5, 6]);
    processor.shutdown().await;
}

#[tokio::test]
async fn a_removed_listener_that_missed_initial_adds_never_syncs() {
    let processor = SharedProcessor::new();
    let (stuck, entered, release) = blocking(Arc::new(()));
    let stuck = register(&processor, stuck);
    for seq in 1..=3 {
        processor.distribute(
            Notification::Add { object: Arc::new(Obj { seq }), is_in_initial_list: true },
            false,
        );
    }
    assert_eq!(expect(&entered), 1);
    processor.remove_listener(&stuck);
    release.send(()).unwrap();
    stuck.finished().await;
    assert_eq!(stuck.pending(), 0);
    assert_eq!(stuck.initial_list_pending(), 2, "the dropped initial adds were never handled");
    assert!(!stuck.has_synced(true));
    processor.shutdown().await;
}

// client-go: shared_informer_test.go TestShutdown (every listener goroutine ends), made
// observable: the handlers are dropped and the threads signal their end.
#[tokio::test]
async fn shutdown_ends_every_listener_thread_and_drops_the_handlers() {
    let processor = SharedProcessor::new();
    let probe = Arc::new(());
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let probe = Arc::clone(&probe);
            register(
                &processor,
                ResourceEventHandlerFuncs::new().on_add(move |_: &Arc<Obj>, _| {
                    let _keep = &probe;
                }),
            )
        })
        .collect();
    for seq in 0..100 {
        processor.distribute(add(seq), false);
    }
    assert_eq!(Arc::strong_count(&probe), 5);

    processor.shutdown().await;
    assert_eq!(Arc::strong_count(&probe), 1);
    assert_eq!(processor.listeners_len(), 0);
    assert!(processor.is_shut_down());
    for handle in &handles {
        assert!(handle.is_removed());
        assert!(handle.has_finished());
        assert_eq!(handle.pending(), 0);
    }
}

#[tokio::test]
async fn shutdown_waits_for_a_blocked_handler_including_a_removed_one() {
    let processor = SharedProcessor::new();
    let probe = Arc::new(());
    let (stuck, entered, release) = blocking(Arc::clone(&probe));
    let stuck = register(&processor, stuck);
    processor.distribute(add(1), false);
    processor.distribute(add(2), false);
    assert_eq!(expect(&entered), 1);
    // Removed, but its thread is still inside the handler.
    assert!(processor.remove_listener(&stuck));

    let mut shutdown = Box::pin(processor.shutdown());
    assert!(futures::poll!(&mut shutdown).is_pending(), "a handler is still running");
    assert!(!stuck.has_finished());

    release.send(()).unwrap();
    shutdown.await;
    assert!(stuck.has_finished());
    assert_eq!(Arc::strong_count(&probe), 1);
    assert!(entered.try_recv().is_err(), "the queued notification was dropped");
}

// client-go: shared_informer_test.go TestAddOnStoppedSharedInformer, at the processor level.
#[tokio::test]
async fn no_listener_can_be_added_after_shutdown() {
    let processor = SharedProcessor::<Obj>::new();
    let shutdown = processor.shutdown();
    // Stopping happened on the call; the future only waits.
    let refused =
        processor.add_listener(Arc::new(ResourceEventHandlerFuncs::new()), Duration::ZERO);
    assert!(matches!(refused, Err(ProcessorError::ShutDown)));
    shutdown.await;
    // Later calls are harmless.
    processor.shutdown().await;
    processor.distribute(add(1), false);
    assert_eq!(processor.listeners_len(), 0);
}

#[test]
fn shutdown_works_without_a_tokio_runtime() {
    let processor = SharedProcessor::new();
    let (handler, rx) = recording();
    let handle = register(&processor, handler);
    processor.distribute(add(7), false);
    assert_eq!(expect(&rx), 7);
    futures::executor::block_on(processor.shutdown());
    assert!(handle.has_finished());
}

#[test]
fn listener_threads_are_named() {
    let processor = SharedProcessor::new();
    let (tx, rx) = mpsc::channel();
    register(
        &processor,
        ResourceEventHandlerFuncs::new().on_add(move |_: &Arc<Obj>, _| {
            let _ = tx.send(std::thread::current().name().map(str::to_owned));
        }),
    );
    processor.distribute(add(1), false);
    let name = rx.recv_timeout(TIMEOUT).unwrap();
    assert_eq!(name.as_deref(), Some(kube_informers_runtime::processor::LISTENER_THREAD_NAME));
    futures::executor::block_on(processor.shutdown());
}

// client-go: shared_informer_test.go TestSharedInformerHandlerAbuse: many threads add and
// remove handlers while notifications flow; nothing deadlocks, each listener sees its
// notifications in order and without gaps, and shutdown ends every thread.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn handler_abuse() {
    const WORKERS: usize = 8;
    const OPS_PER_WORKER: usize = 100;
    const NOTIFICATIONS: u64 = 3_000;

    let processor = SharedProcessor::new();
    let out_of_order = Arc::new(AtomicBool::new(false));
    let delivered = Arc::new(AtomicU64::new(0));

    let handler = {
        let out_of_order = Arc::clone(&out_of_order);
        let delivered = Arc::clone(&delivered);
        move || {
            let last = Mutex::new(None::<u64>);
            let out_of_order = Arc::clone(&out_of_order);
            let delivered = Arc::clone(&delivered);
            ResourceEventHandlerFuncs::new().on_add(move |o: &Arc<Obj>, _| {
                let mut last = last.lock().unwrap();
                if last.is_some_and(|prev| o.seq != prev + 1) {
                    out_of_order.store(true, Ordering::Relaxed);
                }
                *last = Some(o.seq);
                delivered.fetch_add(1, Ordering::Relaxed);
            })
        }
    };

    // One listener stays for the whole run and must see every notification.
    let (stable, stable_rx) = recording();
    let stable = register(&processor, stable);

    let workers: Vec<_> = (0..WORKERS)
        .map(|_| {
            let processor = processor.clone();
            let handler = handler.clone();
            std::thread::spawn(move || {
                let mut rng = rand::rng();
                let mut handles = Vec::new();
                let mut added = Vec::new();
                for _ in 0..OPS_PER_WORKER {
                    if handles.is_empty() || rng.random_bool(0.5) {
                        match processor.add_listener(Arc::new(handler()), Duration::from_secs(1)) {
                            Ok(handle) => {
                                added.push(handle.clone());
                                handles.push(handle);
                            }
                            Err(ProcessorError::ShutDown) => break,
                            Err(e) => panic!("unexpected error: {e}"),
                        }
                    } else {
                        let handle = handles.swap_remove(rng.random_range(0..handles.len()));
                        assert!(processor.remove_listener(&handle));
                    }
                }
                added
            })
        })
        .collect();

    for seq in 0..NOTIFICATIONS {
        processor.distribute(add(seq), false);
    }
    let added: Vec<ListenerHandle<Obj>> =
        workers.into_iter().flat_map(|w| w.join().expect("worker")).collect();
    assert!(processor.listeners_len() <= added.len());

    let stable_seen: Vec<u64> = (0..NOTIFICATIONS).map(|_| expect(&stable_rx)).collect();
    assert!(stable_seen.iter().copied().eq(0..NOTIFICATIONS));

    processor.shutdown().await;
    assert_eq!(processor.listeners_len(), 0);
    assert!(!out_of_order.load(Ordering::Relaxed), "a listener saw a gap or a reordering");
    assert!(stable.has_finished());
    assert!(added.iter().all(|h| h.has_finished() && h.pending() == 0));
    // Every delivery was counted once: no listener received a notification twice.
    assert!(delivered.load(Ordering::Relaxed) <= NOTIFICATIONS * added.len() as u64);
}
