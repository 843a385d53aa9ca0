//! Issue 18 scope 1: the compact store (`Indexer::compact`) against the typed store
//! (`Indexer::new`), both with the namespace index, holding the same realistic Pods.
//!
//! The Pods are testkit's seed, listed once over HTTP (each with its own name, uid and
//! resourceVersion). For each store the bench inserts every Pod as an informer does (decoded
//! from the list item's JSON, managedFields dropped for the typed store too, so both hold the
//! same objects), and reports:
//!
//! - the heap the store holds per object, counted by the global allocator (exact bytes
//!   requested, before malloc's own per-chunk overhead), objects included: a typed store
//!   holds the decoded Pods, a compact one their encoding plus its decoded cache;
//! - the time of each insert (p50, p99, max: the compact store's max is the insert that
//!   trains the dictionary and re-encodes what is stored);
//! - `lister.get` (`Lister::namespaced(ns).get(name)`) on a hot key (100 keys read over and
//!   over, so they stay in the decoded cache) and on a cold one (every key once, in random
//!   order; the cold rows use a store without a decoded cache, so every get decodes);
//! - `lister.list()` of everything, and `lister.list(app=app-3)`, which selects a tenth of
//!   the Pods (none in the "unique values" rows, whose labels are unique too); medians of 5.
//!   A compact store decodes only the Pods a selector selects.
//!
//! `cargo bench -p kube-informers-runtime --features k8s-openapi/latest --bench compact_store`
//! (`BENCH_PODS=N` to change the number of Pods, 10,000 by default).

use std::alloc::System;
use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::Pod;
use kube::core::Selector;
use kube_informers_runtime::lister::Lister;
use kube_informers_runtime::store::{CompactConfig, Indexer, namespace_indexers};
use kube_informers_testkit::TestApiServer;
use rand::{SeedableRng, seq::SliceRandom};
use serde::Deserialize;
use serde_json::{Value, value::RawValue};
use stats_alloc::{INSTRUMENTED_SYSTEM, StatsAlloc};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

const NAMESPACE: &str = "bench";
/// Hot keys read over and over by the hot `get` rows.
const HOT_KEYS: usize = 100;
const HOT_READS: usize = 20_000;
const LIST_RUNS: usize = 5;

/// Live bytes and live allocations of the whole process.
fn heap_now() -> (i128, i128) {
    let stats = GLOBAL.stats();
    let bytes = stats.bytes_allocated as i128 - stats.bytes_deallocated as i128;
    (bytes, stats.allocations as i128 - stats.deallocations as i128)
}

/// The Pods as the informer receives them: each list item's JSON, byte for byte.
fn wire_pods(count: usize) -> Vec<Box<[u8]>> {
    #[derive(Deserialize)]
    struct ListBody<'a> {
        #[serde(borrow)]
        items: Vec<&'a RawValue>,
    }
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build();
    rt.unwrap().block_on(async {
        let server = TestApiServer::start().await.unwrap();
        server.seed().pods(NAMESPACE, count).unwrap();
        let request = http::Request::get("/api/v1/namespaces/bench/pods").body(Vec::new());
        let body = server.client().unwrap().request_text(request.unwrap()).await.unwrap();
        server.shutdown().await;
        let list: ListBody<'_> = serde_json::from_str(&body).unwrap();
        list.items.iter().map(|item| item.get().as_bytes().into()).collect()
    })
}

/// Gives every string value its own suffix, unique to the object and to the value's place
/// in it (keys, numbers and timestamps untouched), as `store_encodings.rs` does: no value
/// repeats between objects, the pessimistic case for a dictionary.
fn make_values_unique(value: &mut Value, object: u64, seen: &mut u64) {
    match value {
        Value::String(text) if !(text.len() == 20 && text.ends_with('Z')) => {
            *seen += 1;
            let hash = (object << 16 | *seen).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 40;
            text.push_str(&format!("-{hash:06x}"));
        }
        Value::Array(items) => items.iter_mut().for_each(|v| make_values_unique(v, object, seen)),
        Value::Object(map) => map.values_mut().for_each(|v| make_values_unique(v, object, seen)),
        _ => {}
    }
}

fn unique_wire(wire: &[Box<[u8]>]) -> Vec<Box<[u8]>> {
    wire.iter()
        .enumerate()
        .map(|(i, bytes)| {
            let mut value: Value = serde_json::from_slice(bytes).unwrap();
            let mut seen = 0;
            for part in ["spec", "status"] {
                make_values_unique(&mut value[part], i as u64, &mut seen);
            }
            for part in ["labels", "annotations", "ownerReferences"] {
                make_values_unique(&mut value["metadata"][part], i as u64, &mut seen);
            }
            serde_json::to_vec(&value).unwrap().into_boxed_slice()
        })
        .collect()
}

fn decode(bytes: &[u8]) -> Pod {
    let mut pod: Pod = serde_json::from_slice(bytes).unwrap();
    pod.metadata.managed_fields = None;
    pod
}

struct Spread {
    p50: Duration,
    p99: Duration,
    max: Duration,
}

fn spread(mut times: Vec<Duration>) -> Spread {
    times.sort_unstable();
    let at = |q: usize| times[(times.len() * q / 100).min(times.len() - 1)];
    Spread { p50: at(50), p99: at(99), max: *times.last().unwrap() }
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

struct Row {
    label: &'static str,
    heap_bytes: i128,
    allocations: i128,
    insert: Spread,
    hot: Spread,
    cold: Spread,
    list: Duration,
    selective: Duration,
    note: String,
}

/// Fills `indexer` from `wire` and measures it.
fn measure(label: &'static str, indexer: Indexer<Pod>, wire: &[Box<[u8]>], order: &[usize]) -> Row {
    let names: Vec<String> = wire.iter().map(|w| decode(w).metadata.name.unwrap()).collect();
    let app_3: Selector = [("app", "app-3")].into_iter().collect();
    let in_app_3 = wire
        .iter()
        .filter(|w| {
            decode(w).metadata.labels.is_some_and(|l| l.get("app").is_some_and(|a| a == "app-3"))
        })
        .count();
    let lister = Lister::new(indexer.clone());
    let (bytes, allocations) = heap_now();
    let mut insert = Vec::with_capacity(wire.len());
    for bytes in wire {
        let pod = Arc::new(decode(bytes));
        let start = Instant::now();
        indexer.add(pod).unwrap();
        insert.push(start.elapsed());
    }
    let (bytes_after, allocations_after) = heap_now();
    let per = |total: i128| total / wire.len().max(1) as i128;
    let namespaced = lister.namespaced(NAMESPACE);
    // Hot: a few keys read over and over (the first read of each may decode).
    for name in names.iter().take(HOT_KEYS) {
        assert!(namespaced.get(name).is_some());
    }
    let hot = (0..HOT_READS)
        .map(|i| {
            let name = &names[i % HOT_KEYS.min(names.len())];
            let start = Instant::now();
            let pod = black_box(namespaced.get(name));
            let elapsed = start.elapsed();
            drop(pod);
            elapsed
        })
        .collect();
    // Cold: every key once, in random order.
    let cold = order
        .iter()
        .map(|&i| {
            let start = Instant::now();
            let pod = black_box(namespaced.get(&names[i]));
            let elapsed = start.elapsed();
            assert!(pod.is_some());
            drop(pod);
            elapsed
        })
        .collect();
    let list = median_list(&lister, &Selector::default(), wire.len());
    let selective = median_list(&lister, &app_3, in_app_3);
    let note = match indexer.compact_stats() {
        None => String::new(),
        Some(stats) => format!(
            "{} B encoded/object, {} KB dictionary, {} objects ({} KB est.) in the decoded cache",
            stats.encoded_bytes / stats.objects.max(1),
            stats.dictionary_bytes / 1024,
            stats.cached_objects,
            stats.cached_bytes / 1024,
        ),
    };
    Row {
        label,
        heap_bytes: per(bytes_after - bytes),
        allocations: per(allocations_after - allocations),
        insert: spread(insert),
        hot: spread(hot),
        cold: spread(cold),
        list,
        selective,
        note,
    }
}

/// The median time of `LIST_RUNS` `lister.list(selector)`, which must return `expect` Pods.
fn median_list(lister: &Lister<Pod>, selector: &Selector, expect: usize) -> Duration {
    let mut lists: Vec<Duration> = (0..LIST_RUNS)
        .map(|_| {
            let start = Instant::now();
            let listed = black_box(lister.list(selector));
            let elapsed = start.elapsed();
            assert_eq!(listed.len(), expect);
            elapsed
        })
        .collect();
    lists.sort_unstable();
    lists[LIST_RUNS / 2]
}

fn main() {
    let count = std::env::var("BENCH_PODS").ok().and_then(|n| n.parse().ok()).unwrap_or(10_000);
    let wire = wire_pods(count);
    let unique = unique_wire(&wire);
    let mut order: Vec<usize> = (0..count).collect();
    order.shuffle(&mut rand::rngs::StdRng::seed_from_u64(18));
    let json = wire.iter().map(|w| w.len()).sum::<usize>() as f64 / count as f64 / 1024.0;
    println!(
        "{count} Pods, {json:.1} KB of JSON each as received (managedFields dropped by both stores)"
    );

    let cold = CompactConfig { hot_cache_bytes: 0, ..CompactConfig::default() };
    let rows = [
        measure("typed (`Indexer::new`)", Indexer::new(namespace_indexers()), &wire, &order),
        measure(
            "compact, default (16 MiB decoded cache)",
            Indexer::compact(namespace_indexers(), CompactConfig::default()),
            &wire,
            &order,
        ),
        measure(
            "compact, no decoded cache",
            Indexer::compact(namespace_indexers(), cold.clone()),
            &wire,
            &order,
        ),
        measure(
            "compact, default, unique values",
            Indexer::compact(namespace_indexers(), CompactConfig::default()),
            &unique,
            &order,
        ),
        measure(
            "compact, no decoded cache, unique values",
            Indexer::compact(namespace_indexers(), cold),
            &unique,
            &order,
        ),
    ];
    let typed_list = rows[0].list.as_secs_f64().max(1e-9);
    let typed_selective = rows[0].selective.as_secs_f64().max(1e-9);
    println!(
        "\n| store | heap B/object | allocations/object | insert µs p50 / p99 / max | get hot µs p50 / p99 | get cold µs p50 / p99 | list() all ms | list vs typed | list(app=app-3) ms | vs typed |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for row in &rows {
        println!(
            "| {} | {} | {} | {:.1} / {:.1} / {:.0} | {:.2} / {:.2} | {:.2} / {:.2} | {:.2} | {:.0}× | {:.2} | {:.1}× |",
            row.label,
            row.heap_bytes,
            row.allocations,
            micros(row.insert.p50),
            micros(row.insert.p99),
            micros(row.insert.max),
            micros(row.hot.p50),
            micros(row.hot.p99),
            micros(row.cold.p50),
            micros(row.cold.p99),
            row.list.as_secs_f64() * 1e3,
            row.list.as_secs_f64() / typed_list,
            row.selective.as_secs_f64() * 1e3,
            row.selective.as_secs_f64() / typed_selective,
        );
    }
    println!();
    for row in &rows[1..] {
        println!("{}: {}", row.label, row.note);
    }
}
