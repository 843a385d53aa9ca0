//! The machine's row of the scale table: no informer, only fresh memory written once per
//! page, as much per object as the typed informers fault in (about 21.5 pages per Pod from
//! a real kube-apiserver, tests/BENCH.md), while the server sends the same list.
//!
//! On a VM the cost of a page fault moves from run to run, with the footprint, and with
//! what the server does meanwhile: written in one burst on an idle server, 9 GB cost 2.2 µs
//! a fault where the typed informers paid 6.6 (2026-12-07). So this row lists every object
//! from the server in pages of 500, as the informers' reflectors do, decodes nothing, and
//! writes each page's share of fresh memory as it arrives, on a thread of its own; the row's
//! CPU, system time and faults are that thread's alone. `bench_driver` runs it beside the
//! clients at every Pod count, so that the part of a client's growth in system time that
//! is the machine's can be read off the same run.

use std::sync::mpsc;
use std::time::Instant;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ListMeta;
use kube::Client;
use serde::de::IgnoredAny;
use serde_json::json;

use crate::list_page::list_page;
use crate::proc_stats::ProcStats;

/// Pages written per object: the typed informers' minor faults per Pod, rounded up.
const PAGES_PER_OBJECT: usize = 22;
const PAGE: usize = 4096;

/// A list page, read for its continue token and its number of items only.
#[derive(serde::Deserialize)]
struct ListPage {
    metadata: ListMeta,
    /// `IgnoredAny` has no size: the items are skipped, not kept.
    items: Vec<IgnoredAny>,
}

/// The thread that writes fresh pages as objects arrive.
struct Writer {
    objects: mpsc::Sender<usize>,
    thread: std::thread::JoinHandle<WriterCost>,
}

/// What the writing thread spent, from `/proc/thread-self/stat`.
struct WriterCost {
    cpu_s: f64,
    sys_s: f64,
    minor_faults: u64,
    /// Objects whose pages were written (at most the `capacity` the writer was made with).
    written: usize,
}

impl Writer {
    /// A thread with room for `capacity` objects' pages, allocated but not touched: zeroed
    /// and this large, the allocation is a fresh mapping.
    fn spawn(capacity: usize) -> Self {
        let (objects, arrivals) = mpsc::channel::<usize>();
        let thread = std::thread::spawn(move || {
            let before = ProcStats::read_thread();
            let mut block = vec![0u8; capacity * PAGES_PER_OBJECT * PAGE];
            let (mut at, mut written) = (0, 0);
            for arrived in arrivals {
                let arrived = arrived.min(capacity - written);
                let end = at + arrived * PAGES_PER_OBJECT * PAGE;
                while at < end {
                    block[at] = 1;
                    at += PAGE;
                }
                written += arrived;
            }
            std::hint::black_box(&block);
            let after = ProcStats::read_thread();
            WriterCost {
                cpu_s: after.cpu_s - before.cpu_s,
                sys_s: after.sys_s - before.sys_s,
                minor_faults: after.minor_faults - before.minor_faults,
                written,
            }
        });
        Writer { objects, thread }
    }

    /// Hands the writer `count` more objects' worth of pages to write.
    fn arrived(&self, count: usize) {
        // The writer only stops once `objects` is dropped.
        let _ = self.objects.send(count);
    }

    /// Waits until every page handed over is written, then returns the thread's cost.
    fn finish(self) -> WriterCost {
        drop(self.objects);
        self.thread.join().expect("the page writer panicked")
    }
}

/// Lists every `kind` object in pages of [`PAGE_ITEMS`](crate::list_page::PAGE_ITEMS) and
/// writes [`PAGES_PER_OBJECT`] fresh pages per object received; returns the sync line of a
/// client that did only that. CPU, system time and faults are the writing thread's; wall
/// time runs from the first request to the last page written; peak RSS is the process's.
/// A failed request or an unreadable page ends the process.
pub(crate) async fn run_pages(kind: &str, count: usize, client: Client) -> serde_json::Value {
    let fail = |what: &str, error: &dyn std::fmt::Display| -> ! {
        eprintln!("pages: {what}: {error}");
        std::process::exit(1);
    };
    let started = Instant::now();
    let writer = Writer::spawn(count);
    let mut token = String::new();
    loop {
        let body = list_page(&client, kind, &token).await.unwrap_or_else(|e| fail("list", &e));
        let page: ListPage = serde_json::from_str(&body).unwrap_or_else(|e| fail("page", &e));
        writer.arrived(page.items.len());
        token = page.metadata.continue_.unwrap_or_default();
        if token.is_empty() {
            break;
        }
    }
    let cost = writer.finish();
    let wall = started.elapsed();
    let process = ProcStats::read();
    json!({
        "phase": "sync",
        "mode": "pages",
        "count": count,
        "cached": cost.written,
        "sync_wall_s": wall.as_secs_f64(),
        "cpu_s": cost.cpu_s,
        "sys_s": cost.sys_s,
        "minor_faults": cost.minor_faults,
        "peak_rss_bytes": process.peak_rss,
        "steady_rss_bytes": process.rss,
        "steady_rss_per_object": process.rss as f64 / count.max(1) as f64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_page_of_every_arrived_object_is_written_by_the_writer_thread() {
        let count = 300;
        let writer = Writer::spawn(count);
        for _ in 0..3 {
            writer.arrived(100);
        }
        let cost = writer.finish();
        assert_eq!(cost.written, count);
        // The faults are counted on the writer thread. With 4 KiB pages there is one per
        // page written; huge pages would fault less, so only require some.
        assert!(cost.minor_faults > 0);
        assert!(ProcStats::read().peak_rss >= (count * PAGES_PER_OBJECT * PAGE) as u64);
    }

    #[test]
    fn objects_past_the_capacity_are_not_written() {
        let writer = Writer::spawn(10);
        writer.arrived(8);
        writer.arrived(8);
        assert_eq!(writer.finish().written, 10);
    }

    #[test]
    fn a_list_page_is_read_for_its_token_and_item_count() {
        let body = r#"{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"7","continue":"abc"},"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"},"spec":{"containers":[]}}]}"#;
        let page: ListPage = serde_json::from_str(body).unwrap();
        assert_eq!(page.items.len(), 2);
        assert_eq!(page.metadata.continue_.as_deref(), Some("abc"));
    }
}
