//! Per-listener resync periods: sync notifications reach only the listeners that are due.

use std::sync::Arc;
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

use kube_informers_runtime::{Notification, ResourceEventHandlerFuncs, SharedProcessor};

const TIMEOUT: Duration = Duration::from_secs(30);

#[derive(Debug)]
struct Pod {
    name: &'static str,
}

struct Listener {
    name: &'static str,
    rx: Receiver<String>,
}

fn listener(processor: &SharedProcessor<Pod>, name: &'static str, resync: Duration) -> Listener {
    let (tx, rx) = mpsc::channel();
    let (add_tx, update_tx) = (tx.clone(), tx);
    let handler = ResourceEventHandlerFuncs::new()
        .on_add(move |p: &Arc<Pod>, _| {
            let _ = add_tx.send(format!("add {}", p.name));
        })
        .on_update(move |old, new| {
            let _ = update_tx.send(format!("update {} {}", old.name, new.name));
        });
    processor.add_listener(Arc::new(handler), resync).unwrap();
    Listener { name, rx }
}

impl Listener {
    /// What this listener received before the marker that `received_by_all` distributes.
    fn received(&self) -> Vec<String> {
        let mut seen = Vec::new();
        loop {
            let next = self.rx.recv_timeout(TIMEOUT).expect("the marker arrives");
            if next == "add marker" {
                return seen;
            }
            seen.push(next);
        }
    }
}

/// Distributes a non-sync marker behind everything sent so far, so each listener's
/// `received()` is exactly what reached it: delivery is in order per listener.
fn received_by_all<'a>(
    processor: &SharedProcessor<Pod>,
    listeners: &'a [&'a Listener],
) -> Vec<(&'static str, Vec<String>)> {
    let marker = Arc::new(Pod { name: "marker" });
    processor.distribute(Notification::Add { object: marker, is_in_initial_list: false }, false);
    listeners.iter().map(|l| (l.name, l.received())).collect()
}

fn resync_all(processor: &SharedProcessor<Pod>, pods: &[Arc<Pod>]) {
    for pod in pods {
        processor
            .distribute(Notification::Update { old: Arc::clone(pod), new: Arc::clone(pod) }, true);
    }
}

fn got(names: &[&str]) -> Vec<String> {
    names.iter().map(|n| format!("update {n} {n}")).collect()
}

// client-go: shared_informer_test.go TestListenerResyncPeriods (listeners never / every 2s /
// every 3s; at 2s only the second resyncs, at 3s only the third), driven through
// should_resync with paused time as the reflector's resync timer would.
#[tokio::test(start_paused = true)]
async fn listener_resync_periods() {
    let processor = SharedProcessor::new();
    let l1 = listener(&processor, "listener1", Duration::ZERO);
    let l2 = listener(&processor, "listener2", Duration::from_secs(2));
    let l3 = listener(&processor, "listener3", Duration::from_secs(3));
    let all = [&l1, &l2, &l3];
    let pods = [Arc::new(Pod { name: "pod1" }), Arc::new(Pod { name: "pod2" })];

    // The initial list reaches everyone.
    for pod in &pods {
        processor.distribute(
            Notification::Add { object: Arc::clone(pod), is_in_initial_list: true },
            false,
        );
    }
    for (name, seen) in received_by_all(&processor, &all) {
        assert_eq!(seen, ["add pod1", "add pod2"], "{name}");
    }

    // t=1s: nobody is due.
    tokio::time::advance(Duration::from_secs(1)).await;
    assert!(!processor.should_resync());

    // t=2s: listener2 is due, and only it gets the resync.
    tokio::time::advance(Duration::from_secs(1)).await;
    assert!(processor.should_resync());
    resync_all(&processor, &pods);
    let seen = received_by_all(&processor, &all);
    assert_eq!(
        seen,
        [("listener1", vec![]), ("listener2", got(&["pod1", "pod2"])), ("listener3", vec![])]
    );

    // t=3s: listener3 is due; listener2 was rescheduled to 4s.
    tokio::time::advance(Duration::from_secs(1)).await;
    assert!(processor.should_resync());
    resync_all(&processor, &pods);
    let seen = received_by_all(&processor, &all);
    assert_eq!(
        seen,
        [("listener1", vec![]), ("listener2", vec![]), ("listener3", got(&["pod1", "pod2"]))]
    );

    // t=4s: listener2 again.
    tokio::time::advance(Duration::from_secs(1)).await;
    assert!(processor.should_resync());
    resync_all(&processor, &pods);
    let seen = received_by_all(&processor, &all);
    assert_eq!(
        seen,
        [("listener1", vec![]), ("listener2", got(&["pod1", "pod2"])), ("listener3", vec![])]
    );

    // t=6s: both are due at once (listener2 at 6s, listener3 at 6s).
    tokio::time::advance(Duration::from_secs(2)).await;
    assert!(processor.should_resync());
    resync_all(&processor, &pods);
    let seen = received_by_all(&processor, &all);
    assert_eq!(
        seen,
        [
            ("listener1", vec![]),
            ("listener2", got(&["pod1", "pod2"])),
            ("listener3", got(&["pod1", "pod2"]))
        ]
    );
    processor.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn non_sync_notifications_reach_listeners_that_are_not_due() {
    let processor = SharedProcessor::new();
    let never = listener(&processor, "never", Duration::ZERO);
    let often = listener(&processor, "often", Duration::from_secs(1));
    tokio::time::advance(Duration::from_secs(1)).await;
    assert!(processor.should_resync());

    let pod = Arc::new(Pod { name: "p" });
    // A real change (different resourceVersion) is not a sync: everyone gets it.
    processor
        .distribute(Notification::Update { old: Arc::clone(&pod), new: Arc::clone(&pod) }, false);
    let seen = received_by_all(&processor, &[&never, &often]);
    assert_eq!(seen, [("never", got(&["p"])), ("often", got(&["p"]))]);
    processor.shutdown().await;
}

// A new listener is outside the syncing set until a check finds it due (client-go starts
// every listener inside it; see ResyncSchedule::new).
#[tokio::test(start_paused = true)]
async fn sync_notifications_before_any_check_reach_nobody() {
    let processor = SharedProcessor::new();
    let never = listener(&processor, "never", Duration::ZERO);
    let often = listener(&processor, "often", Duration::from_secs(1));
    resync_all(&processor, &[Arc::new(Pod { name: "p" })]);
    let seen = received_by_all(&processor, &[&never, &often]);
    assert_eq!(seen, [("never", vec![]), ("often", vec![])]);
    processor.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn a_due_listener_stays_in_the_syncing_set_until_the_next_check() {
    let processor = SharedProcessor::new();
    let often = listener(&processor, "often", Duration::from_secs(5));
    tokio::time::advance(Duration::from_secs(5)).await;
    assert!(processor.should_resync());
    // A relist's unchanged entries arrive as sync notifications while the resync runs.
    resync_all(&processor, &[Arc::new(Pod { name: "a" })]);
    resync_all(&processor, &[Arc::new(Pod { name: "b" })]);
    assert_eq!(received_by_all(&processor, &[&often]), [("often", got(&["a", "b"]))]);

    // The next check, before the listener is due again, takes it out of the set.
    tokio::time::advance(Duration::from_secs(1)).await;
    assert!(!processor.should_resync());
    resync_all(&processor, &[Arc::new(Pod { name: "c" })]);
    assert_eq!(received_by_all(&processor, &[&often]), [("often", vec![])]);
    processor.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn a_listener_added_later_is_scheduled_from_its_own_start() {
    let processor = SharedProcessor::new();
    tokio::time::advance(Duration::from_secs(10)).await;
    let late = listener(&processor, "late", Duration::from_secs(4));
    tokio::time::advance(Duration::from_secs(3)).await;
    assert!(!processor.should_resync(), "due 4s after it was added, not 4s after the processor");
    tokio::time::advance(Duration::from_secs(1)).await;
    assert!(processor.should_resync());
    resync_all(&processor, &[Arc::new(Pod { name: "p" })]);
    assert_eq!(received_by_all(&processor, &[&late]), [("late", got(&["p"]))]);
    processor.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn should_resync_is_false_without_listeners_or_periods() {
    let processor = SharedProcessor::<Pod>::new();
    assert!(!processor.should_resync());
    let _never = listener(&processor, "never", Duration::ZERO);
    tokio::time::advance(Duration::from_secs(3600)).await;
    assert!(!processor.should_resync());
    processor.shutdown().await;
}
