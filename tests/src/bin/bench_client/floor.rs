//! The floor a benchmark's clients are compared with: the CPU serde_json alone takes to
//! decode every object of the list.

use std::time::{Duration, Instant};

use kube::Client;
use serde_json::json;

use super::list_page::{PAGE_ITEMS, list_page};
use super::proc_stats::ProcStats;

/// The floor: list every object in pages of [`PAGE_ITEMS`] and time only serde_json decoding
/// them, keeping the decoded items (as a cache would) and dropping each page's body.
///
/// One unpaginated body would hold every object's JSON at once (930 MB at 100,000 Pods) and
/// make the server build it in one piece; with pages the floor stays what it measures:
/// decoding, at the memory of the decoded objects.
///
/// Returns the floor's JSON line; a failed request or decode ends the process.
pub(crate) async fn run_floor<K>(kind: &str, client: Client) -> serde_json::Value
where
    K: serde::de::DeserializeOwned + k8s_openapi::ListableResource,
{
    let fail = |what: &str, error: &dyn std::fmt::Display| -> ! {
        eprintln!("{what}: {error}");
        std::process::exit(1);
    };
    let mut items: Vec<K> = Vec::new();
    let (mut body_bytes, mut decode_wall, mut decode_cpu) = (0, Duration::ZERO, 0.0);
    let mut token = String::new();
    let rss_before = ProcStats::read().rss;
    loop {
        let body = list_page(&client, kind, &token).await.unwrap_or_else(|e| fail("floor", &e));
        body_bytes += body.len();
        let before = ProcStats::read();
        let start = Instant::now();
        let page: k8s_openapi::List<K> =
            serde_json::from_str(&body).unwrap_or_else(|e| fail("decode", &e));
        decode_wall += start.elapsed();
        decode_cpu += ProcStats::read().cpu_s - before.cpu_s;
        drop(body);
        items.extend(page.items);
        token = page.metadata.continue_.unwrap_or_default();
        if token.is_empty() {
            break;
        }
    }
    // Only the last page's body was alive beside the decoded items, so the RSS the pages
    // added is about the heap the decoded objects hold (plus allocator slack).
    let decoded_heap = ProcStats::read().rss.saturating_sub(rss_before);
    let count = items.len();
    drop(items);
    json!({
        "phase": "floor",
        "kind": kind,
        "count": count,
        "body_bytes": body_bytes,
        "page_size": PAGE_ITEMS,
        "decode_wall_s": decode_wall.as_secs_f64(),
        "decode_cpu_s": decode_cpu,
        "decoded_heap_bytes": decoded_heap,
        "decoded_heap_per_object": decoded_heap as f64 / count.max(1) as f64,
    })
}
