//! Fan-out throughput of the shared processor: distribute N notifications to 10 listeners
//! and wait until every handler has seen all of them.
//!
//! `cargo bench -p kube-informers-runtime --bench fanout`

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use kube_informers_runtime::{Notification, ResourceEventHandlerFuncs, SharedProcessor};

const LISTENERS: usize = 10;
const NOTIFICATIONS: usize = 200_000;
const ROUNDS: usize = 3;

struct Pod {
    _name: String,
}

fn round(objects: &[Arc<Pod>]) -> (Duration, Duration) {
    let processor = SharedProcessor::new();
    let (done_tx, done_rx) = mpsc::channel();
    for _ in 0..LISTENERS {
        let seen = AtomicUsize::new(0);
        let done_tx = done_tx.clone();
        let handler = ResourceEventHandlerFuncs::new().on_add(move |_: &Arc<Pod>, _| {
            if seen.fetch_add(1, Ordering::Relaxed) + 1 == NOTIFICATIONS {
                let _ = done_tx.send(());
            }
        });
        processor.add_listener(Arc::new(handler), Duration::ZERO).expect("listener");
    }

    let start = Instant::now();
    for object in objects {
        let notification =
            Notification::Add { object: Arc::clone(object), is_in_initial_list: false };
        processor.distribute(notification, false);
    }
    let distributed = start.elapsed();
    for _ in 0..LISTENERS {
        done_rx.recv().expect("every listener finishes");
    }
    let delivered = start.elapsed();
    futures::executor::block_on(processor.shutdown());
    (distributed, delivered)
}

fn main() {
    let objects: Vec<Arc<Pod>> =
        (0..NOTIFICATIONS).map(|i| Arc::new(Pod { _name: format!("pod-{i}") })).collect();
    println!(
        "fan-out: {NOTIFICATIONS} notifications to {LISTENERS} listeners, {} cores",
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    for r in 1..=ROUNDS {
        let (distributed, delivered) = round(&objects);
        let per_sec = NOTIFICATIONS as f64 / delivered.as_secs_f64();
        println!(
            "  round {r}: distribute {:>7.1} ms ({:.2} M notifications/s queued), all delivered \
             {:>7.1} ms: {:.2} M notifications/s, {:.2} M handler calls/s",
            distributed.as_secs_f64() * 1e3,
            NOTIFICATIONS as f64 / distributed.as_secs_f64() / 1e6,
            delivered.as_secs_f64() * 1e3,
            per_sec / 1e6,
            per_sec * LISTENERS as f64 / 1e6,
        );
    }
}
