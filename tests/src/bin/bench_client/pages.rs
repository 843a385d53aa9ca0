//! The machine's row of the scale table: no client and no server, only fresh memory
//! written once per page, as much per object as the typed informers fault in (about 21.5
//! pages per Pod from a real kube-apiserver, tests/BENCH.md). On a VM the cost of a page
//! fault moves from run to run and with the footprint; `bench_driver` runs this beside the
//! clients at every Pod count, so that the part of a client's growth in system time that
//! is the machine's can be read off the same run.

use std::time::Instant;

use serde_json::json;

use crate::proc_stats::ProcStats;

/// Pages written per object: the typed informers' minor faults per Pod, rounded up.
const PAGES_PER_OBJECT: usize = 22;
const PAGE: usize = 4096;

/// Writes one byte in each of `count` × [`PAGES_PER_OBJECT`] fresh pages and returns the
/// sync line of a client that did only that: CPU, system time, faults and wall time of the
/// writing alone (not of the process's start), peak RSS as the process ends it.
pub(crate) fn run_pages(count: usize) -> serde_json::Value {
    let before = ProcStats::read();
    let started = Instant::now();
    // Zeroed and this large, the allocation is a fresh mapping: no page is touched yet.
    let mut block = vec![0u8; count * PAGES_PER_OBJECT * PAGE];
    for at in (0..block.len()).step_by(PAGE) {
        block[at] = 1;
    }
    std::hint::black_box(&block);
    let wall = started.elapsed();
    let after = ProcStats::read();
    json!({
        "phase": "sync",
        "mode": "pages",
        "count": count,
        "cached": count,
        "sync_wall_s": wall.as_secs_f64(),
        "cpu_s": after.cpu_s - before.cpu_s,
        "sys_s": after.sys_s - before.sys_s,
        "minor_faults": after.minor_faults - before.minor_faults,
        "peak_rss_bytes": after.peak_rss,
        "steady_rss_bytes": after.rss,
        "steady_rss_per_object": after.rss as f64 / count.max(1) as f64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_page_of_every_object_is_written_and_resident() {
        let count = 300;
        let line = run_pages(count);
        assert_eq!(line["mode"], "pages");
        assert_eq!(line["cached"], count);
        // Resident however the kernel backs it (4 KiB or huge pages): every page was written.
        let written = (count * PAGES_PER_OBJECT * PAGE) as u64;
        assert!(line["peak_rss_bytes"].as_u64().unwrap() >= written, "{line}");
        assert!(line["minor_faults"].as_u64().unwrap() > 0, "{line}");
    }
}
