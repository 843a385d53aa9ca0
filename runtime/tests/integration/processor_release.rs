//! Which thread frees an object a handler was the last to hold (no client-go counterpart:
//! Go's collector frees everything on its own threads).
//!
//! A listener hands each notification it has handled back to the producer, which drops it
//! when it next distributes: with glibc's malloc, an object freed on the listener's thread
//! while the producer allocates the next one takes the producer's arena lock, and both
//! threads wait on it (BENCH.md). An idle listener, a full hand-back and a stopped listener
//! free what they hold themselves, so nothing stays alive for long.

use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, Sender};
use std::thread::{self, ThreadId};
use std::time::Duration;

use kube_informers_runtime::processor::{LISTENER_THREAD_NAME, RELEASE_HELD_MAX, RELEASE_IDLE};
use kube_informers_runtime::{
    ListenerHandle, Notification, ResourceEventHandlerFuncs, SharedProcessor,
};

/// A guard against hanging forever when a test fails; never reached when it passes.
const TIMEOUT: Duration = Duration::from_secs(30);

/// Reports, when dropped, its name and the thread that dropped it.
#[derive(Debug)]
struct Tracked {
    name: String,
    dropped: Sender<(String, ThreadId, Option<String>)>,
}

impl Drop for Tracked {
    fn drop(&mut self) {
        let current = thread::current();
        let _ = self.dropped.send((
            std::mem::take(&mut self.name),
            current.id(),
            current.name().map(str::to_owned),
        ));
    }
}

struct Fixture {
    processor: SharedProcessor<Tracked>,
    listener: ListenerHandle<Tracked>,
    dropped_tx: Sender<(String, ThreadId, Option<String>)>,
    dropped: Receiver<(String, ThreadId, Option<String>)>,
}

/// A processor with one handler that keeps nothing.
fn fixture() -> Fixture {
    let processor = SharedProcessor::new();
    let handler = ResourceEventHandlerFuncs::new().on_add(|_: &Arc<Tracked>, _| {});
    let listener = processor.add_listener(Arc::new(handler), Duration::ZERO).expect("added");
    let (dropped_tx, dropped) = mpsc::channel();
    Fixture { processor, listener, dropped_tx, dropped }
}

impl Fixture {
    /// Distributes an add of a new object that nothing but the notification holds.
    fn distribute(&self, name: &str) {
        let object = Arc::new(Tracked { name: name.to_owned(), dropped: self.dropped_tx.clone() });
        self.processor.distribute(Notification::Add { object, is_in_initial_list: false }, false);
    }

    /// Waits until the handler has finished every notification distributed so far (each
    /// is counted pending before `distribute` returns, until the listener hands it back).
    fn until_handled(&self) {
        let deadline = std::time::Instant::now() + TIMEOUT;
        while self.listener.pending() > 0 {
            assert!(std::time::Instant::now() < deadline, "the handler fell silent");
            thread::sleep(Duration::from_millis(1));
        }
    }

    /// The drops reported so far, without waiting.
    fn dropped_now(&self) -> Vec<(String, ThreadId, Option<String>)> {
        self.dropped.try_iter().collect()
    }
}

#[tokio::test]
async fn a_handled_object_is_freed_by_the_producer_when_it_next_distributes() {
    // The listener may free `a` itself once it has idled for `RELEASE_IDLE`, which starts
    // after `a` was distributed: an attempt that took that long (a stalled machine) proves
    // nothing, and is made again.
    for _ in 0..5 {
        let f = fixture();
        let started = std::time::Instant::now();
        f.distribute("a");
        f.until_handled();
        let early = f.dropped_now();
        f.distribute("b");
        if started.elapsed() >= RELEASE_IDLE {
            f.processor.shutdown().await;
            continue;
        }
        assert!(early.is_empty(), "the listener freed `a` though the producer is busy");
        let (name, thread, _) = f.dropped.recv_timeout(TIMEOUT).expect("`a` freed");
        assert_eq!(name, "a");
        assert_eq!(thread, thread::current().id(), "`a` was not freed by the producer");
        f.processor.shutdown().await;
        return;
    }
    panic!("every attempt took longer than RELEASE_IDLE");
}

#[tokio::test]
async fn an_idle_listener_frees_what_it_handled_itself() {
    let f = fixture();
    f.distribute("a");
    f.until_handled();
    let started = std::time::Instant::now();
    let (name, _, thread_name) = f.dropped.recv_timeout(TIMEOUT).expect("`a` freed");
    assert_eq!(name, "a");
    assert_eq!(thread_name.as_deref(), Some(LISTENER_THREAD_NAME));
    assert!(started.elapsed() < RELEASE_IDLE + TIMEOUT / 2);
    f.processor.shutdown().await;
}

#[tokio::test]
async fn a_listener_holds_at_most_release_held_max_handled_notifications() {
    let f = fixture();
    let n = RELEASE_HELD_MAX + 10;
    // Queued while the listener cannot keep up, then handled with no producer left to free
    // them: all but `RELEASE_HELD_MAX` of them must be freed by the time the last is handled.
    for i in 0..n {
        f.distribute(&format!("o{i}"));
    }
    f.until_handled();
    let freed = f.dropped_now().len();
    assert!(freed >= n - RELEASE_HELD_MAX, "{freed} of {n} freed, more than the bound held");
    f.processor.shutdown().await;
}

#[tokio::test]
async fn a_stopped_listener_holds_nothing_once_shutdown_returns() {
    let f = fixture();
    f.distribute("a");
    f.until_handled();
    f.processor.shutdown().await;
    let names: Vec<String> = f.dropped_now().into_iter().map(|(name, ..)| name).collect();
    assert_eq!(names, ["a"]);
}

#[tokio::test]
async fn a_removed_listener_holds_nothing_once_it_has_finished() {
    let f = fixture();
    f.distribute("a");
    f.until_handled();
    assert!(f.processor.remove_listener(&f.listener));
    tokio::time::timeout(TIMEOUT, f.listener.finished()).await.expect("finished");
    let names: Vec<String> = f.dropped_now().into_iter().map(|(name, ..)| name).collect();
    assert_eq!(names, ["a"]);
}
