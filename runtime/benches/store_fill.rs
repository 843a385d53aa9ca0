//! Issue 18 scope 4 without a server: the CPU per object of filling each kind of store
//! with N realistic Pods, N = 10,000 and 100,000 by default, every store and size in a
//! process of its own (a fresh heap), so that what grows with N in the store's own work
//! can be told apart from the API server, the network and the other clients of
//! `bench_driver`'s scale rounds.
//!
//! Each Pod is testkit's realistic Pod (its own name and resourceVersion), serialized to
//! JSON before the clock starts; what is timed is decoding it (`serde_json::from_slice`)
//! and adding it to the store, one by one, as an informer's initial list does:
//!
//! - `typed`: `Indexer::new` with the namespace index, the Pods as listed (managedFields
//!   kept, as the default informer keeps them);
//! - `typed-strip`: the same without managedFields (`strip_managed_fields()`);
//! - `compact`: `Indexer::compact` with the default `CompactConfig`, without
//!   managedFields (as the factory's compact store decodes them);
//! - `pages`, the machine's own row: no store and no decoding, only [`PAGES_PER_POD`]
//!   fresh pages per object (the `typed` store's faults per Pod) written once each. On a
//!   VM the cost of a page fault varies from run to run and moves with the host (tests/BENCH.md):
//!   this row shows what it was around the stores' rows, so that a store's growth in
//!   system time can be told from the machine's.
//!
//! Per object: user and system CPU (`/proc/self/stat`, 10 ms ticks), minor page faults and
//! the system time per fault, and each against the first size. A typed store of 100,000
//! Pods takes about 11 GB (`typed`) or 6 GB (`typed-strip`): `BENCH_FILL_PODS=10000,50000`
//! for a smaller machine. Linux only (it reads `/proc`).
//!
//! `cargo bench -p kube-informers-runtime --features k8s-openapi/latest --bench store_fill`

mod common;

use std::sync::Arc;
use std::time::Instant;

use k8s_openapi::api::core::v1::Pod;
use kube_informers_runtime::store::{CompactConfig, Indexer, namespace_indexers};

use self::common::ProcStat;

const STORES: [&str; 5] = ["pages", "typed", "typed-strip", "compact", "pages"];

/// Pages the `pages` row writes per object: the `typed` store's minor faults per Pod.
const PAGES_PER_POD: usize = 26;
const PAGE: usize = 4096;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    match args.iter().position(|a| a == "--child") {
        Some(at) => child(&args[at + 1], args[at + 2].parse().expect("a count")),
        None => parent(),
    }
}

/// What a child reports, per object.
struct Fill {
    user_us: f64,
    sys_us: f64,
    faults: f64,
}

impl Fill {
    fn parse(line: &str) -> Option<Self> {
        let mut numbers = line.split_whitespace().map(str::parse::<f64>);
        let mut next = || numbers.next()?.ok();
        Some(Self { user_us: next()?, sys_us: next()?, faults: next()? })
    }

    fn cell(&self) -> String {
        let per_fault = if self.faults > 0.0 { self.sys_us / self.faults } else { 0.0 };
        format!(
            "{:6.1} µs (user {:5.1}, sys {:5.1}; {:4.1} faults, {:4.1} µs each)",
            self.user_us + self.sys_us,
            self.user_us,
            self.sys_us,
            self.faults,
            per_fault
        )
    }
}

fn parent() {
    if std::fs::read_to_string("/proc/self/stat").is_err() {
        println!("store_fill: skipped, it needs Linux's /proc");
        return;
    }
    let sizes: Vec<usize> = std::env::var("BENCH_FILL_PODS")
        .unwrap_or_else(|_| "10000,100000".to_owned())
        .split(',')
        .map(|n| n.trim().parse().expect("BENCH_FILL_PODS: counts separated by commas"))
        .collect();
    let exe = std::env::current_exe().unwrap();
    println!("filling each store with {sizes:?} Pods, each in its own process; per object:");
    for store in STORES {
        let mut first: Option<Fill> = None;
        let mut row = format!("{store:<12}");
        for &count in &sizes {
            let output = std::process::Command::new(&exe)
                .args(["--child", store, &count.to_string()])
                .output()
                .unwrap();
            let Some(fill) = Fill::parse(&String::from_utf8_lossy(&output.stdout)) else {
                eprintln!("{store} {count}: failed: {}", String::from_utf8_lossy(&output.stderr));
                continue;
            };
            row.push_str(&format!(" | {count}: {}", fill.cell()));
            if let Some(first) = &first {
                let ratio = |a: f64, b: f64| if b > 0.0 { a / b } else { f64::NAN };
                row.push_str(&format!(
                    " CPU {:.2}×, user {:.2}×",
                    ratio(fill.user_us + fill.sys_us, first.user_us + first.sys_us),
                    ratio(fill.user_us, first.user_us)
                ));
            } else {
                first = Some(fill);
            }
        }
        println!("{row}");
    }
}

fn child(store: &str, count: usize) {
    if store == "pages" {
        return pages(count);
    }
    let wire: Vec<Vec<u8>> = (0..count)
        .map(|i| {
            let mut pod = kube_informers_testkit::seed::pod("bench", &format!("pod-{i}"), i as u64);
            pod["metadata"]["resourceVersion"] = (1_000 + i).to_string().into();
            serde_json::to_vec(&pod).unwrap()
        })
        .collect();
    let indexer: Indexer<Pod> = match store {
        "compact" => Indexer::compact(namespace_indexers(), CompactConfig::default()),
        _ => Indexer::new(namespace_indexers()),
    };
    let strip = store != "typed";
    let before = ProcStat::now();
    let started = Instant::now();
    for bytes in &wire {
        let mut pod: Pod = serde_json::from_slice(bytes).unwrap();
        if strip {
            pod.metadata.managed_fields = None;
        }
        indexer.add(Arc::new(pod)).unwrap();
    }
    let elapsed = started.elapsed();
    let after = ProcStat::now();
    assert_eq!(indexer.len(), count);
    eprintln!("{store} {count}: {:.2} s wall", elapsed.as_secs_f64());
    report(count, &before, &after);
}

/// The `pages` row: `count` objects' worth of fresh pages, each written once.
fn pages(count: usize) {
    let before = ProcStat::now();
    // Zeroed and this large, the allocation is a fresh mapping: no page is touched yet.
    let mut block = vec![0u8; count * PAGES_PER_POD * PAGE];
    for at in (0..block.len()).step_by(PAGE) {
        block[at] = 1;
    }
    std::hint::black_box(&block);
    let after = ProcStat::now();
    report(count, &before, &after);
}

/// Prints user µs, system µs and minor faults per object, for the parent to read.
fn report(count: usize, before: &ProcStat, after: &ProcStat) {
    let per = |total: f64| total / count as f64;
    println!(
        "{:.2} {:.2} {:.2}",
        per((after.user_s - before.user_s) * 1e6),
        per((after.sys_s - before.sys_s) * 1e6),
        per(after.minor_faults - before.minor_faults)
    );
}
