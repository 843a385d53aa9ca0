//! What one OS thread per handler costs (issue 17 item 5): add 1,000 handlers (100
//! processors, as 100 informers, with 10 handlers each), send 1,000 notifications through
//! every processor, and shut down; reports threads, resident memory and time for each step.
//!
//! `cargo bench -p kube-informers-runtime --bench listeners` (`BENCH_INFORMERS=N` and
//! `BENCH_HANDLERS=N`, handlers per informer, change the shape).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use kube_informers_runtime::{Notification, ResourceEventHandlerFuncs, SharedProcessor};

const NOTIFICATIONS: usize = 1_000;

struct Pod {
    _name: String,
}

fn env(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// A field of `/proc/self/status` (`Threads`, `VmRSS` in KiB).
fn status(field: &str) -> usize {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|value| value.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

fn main() {
    let informers = env("BENCH_INFORMERS", 100);
    let per_informer = env("BENCH_HANDLERS", 10);
    let handlers = informers * per_informer;
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).build().unwrap();
    let _entered = runtime.enter();
    let objects: Vec<Arc<Pod>> =
        (0..NOTIFICATIONS).map(|i| Arc::new(Pod { _name: format!("pod-{i}") })).collect();
    println!(
        "{handlers} handlers ({informers} processors x {per_informer}), {NOTIFICATIONS} \
         notifications each, {} cores",
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    let (threads0, rss0) = (status("Threads"), status("VmRSS"));

    let (done_tx, done_rx) = mpsc::channel();
    let start = Instant::now();
    let processors: Vec<SharedProcessor<Pod>> = (0..informers)
        .map(|_| {
            let processor = SharedProcessor::new();
            for _ in 0..per_informer {
                let seen = AtomicUsize::new(0);
                let done_tx = done_tx.clone();
                let handler = ResourceEventHandlerFuncs::new().on_add(move |_: &Arc<Pod>, _| {
                    if seen.fetch_add(1, Ordering::Relaxed) + 1 == NOTIFICATIONS {
                        let _ = done_tx.send(());
                    }
                });
                processor.add_listener(Arc::new(handler), Duration::ZERO).expect("listener");
            }
            processor
        })
        .collect();
    let added = start.elapsed();
    let (threads1, rss1) = (status("Threads"), status("VmRSS"));

    let start = Instant::now();
    for object in &objects {
        for processor in &processors {
            let notification =
                Notification::Add { object: Arc::clone(object), is_in_initial_list: false };
            processor.distribute(notification, false);
        }
    }
    for _ in 0..handlers {
        done_rx.recv().expect("every handler finishes");
    }
    let delivered = start.elapsed();
    let rss2 = status("VmRSS");

    let start = Instant::now();
    runtime.block_on(futures::future::join_all(processors.iter().map(SharedProcessor::shutdown)));
    let shut = start.elapsed();
    let threads3 = status("Threads");

    let calls = handlers * NOTIFICATIONS;
    println!(
        "  add:      {:>8.1} ms ({:.1} us per handler), threads {threads0} -> {threads1}, \
         RSS {:.1} -> {:.1} MiB ({:.1} KiB per handler)",
        added.as_secs_f64() * 1e3,
        added.as_secs_f64() * 1e6 / handlers as f64,
        rss0 as f64 / 1024.0,
        rss1 as f64 / 1024.0,
        rss1.saturating_sub(rss0) as f64 / handlers as f64,
    );
    println!(
        "  deliver:  {:>8.1} ms for {calls} handler calls ({:.2} M calls/s), RSS {:.1} MiB",
        delivered.as_secs_f64() * 1e3,
        calls as f64 / delivered.as_secs_f64() / 1e6,
        rss2 as f64 / 1024.0,
    );
    println!(
        "  shutdown: {:>8.1} ms, threads left {threads3} (before adding: {threads0})",
        shut.as_secs_f64() * 1e3
    );
}
