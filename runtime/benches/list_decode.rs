//! One list of realistic Pods (testkit's seed, ~12 KB of JSON each) fetched and decoded
//! by each path, every run in its own process so that its CPU and peak RSS are its own:
//!
//! - `kube`: `kube::Api::list` (the body as `Bytes`, copied into a `String`, `from_str`);
//!   what `ApiListerWatcher::list` did before it read bodies itself;
//! - `kube+strip`: the same, then `managedFields` dropped from every item (the old
//!   `strip_managed_fields()`, a transform after decoding);
//! - `ours`: `ApiListerWatcher::list` (one buffer pre-sized from `Content-Length`,
//!   `from_slice`, item by item);
//! - `ours+skip`: the same with `skip_managed_fields()`.
//!
//! `cargo bench -p kube-informers-runtime --bench list_decode` (`BENCH_PODS=N` to change
//! the number of Pods, 10,000 by default).

mod common;

use std::time::Instant;

use k8s_openapi::api::core::v1::Pod;
use kube::{Api, api::ListParams, core::ObjectList};
use kube_informers_runtime::listwatch::{ApiListerWatcher, ListerWatcher};
use kube_informers_testkit::TestApiServer;

use self::common::ProcStat;

const MODES: [&str; 4] = ["kube", "kube+strip", "ours", "ours+skip"];
const ROUNDS: usize = 2;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(at) = args.iter().position(|a| a == "--child") {
        child(&args[at + 1]);
    } else {
        parent();
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap()
}

fn parent() {
    let pods: usize =
        std::env::var("BENCH_PODS").ok().and_then(|n| n.parse().ok()).unwrap_or(10_000);
    let rt = runtime();
    let server = rt.block_on(async {
        let server = TestApiServer::start().await.unwrap();
        server.seed().pods("default", pods).unwrap();
        server
    });
    let exe = std::env::current_exe().unwrap();
    println!("list of {pods} Pods, each path in its own process, {ROUNDS} rounds");
    println!(
        "{:<11} {:>9} {:>8} {:>10} {:>10} {:>11} {:>10}",
        "path", "wall", "CPU", "peak RSS", "list RSS", "body", "items"
    );
    for _ in 0..ROUNDS {
        for mode in MODES {
            let output = std::process::Command::new(&exe)
                .args(["--child", mode])
                .env("BENCH_URL", server.url())
                .env("BENCH_TOKEN", server.token().unwrap_or_default())
                .output()
                .unwrap();
            let line = String::from_utf8_lossy(&output.stdout);
            if !output.status.success() {
                eprintln!("{mode}: failed: {}", String::from_utf8_lossy(&output.stderr));
                continue;
            }
            println!("{}", line.trim_end());
        }
    }
    rt.block_on(server.shutdown());
}

/// `VmHWM`/`VmRSS` of this process in MB.
fn status_mb(field: &str) -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix(field))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

fn child(mode: &str) {
    let rt = runtime();
    let url: http::Uri = std::env::var("BENCH_URL").unwrap().parse().unwrap();
    let mut config = kube::Config::new(url);
    let token = std::env::var("BENCH_TOKEN").unwrap_or_default();
    if !token.is_empty() {
        let value = http::HeaderValue::from_str(&format!("Bearer {token}")).unwrap();
        config.headers.push((http::header::AUTHORIZATION, value));
    }
    let client = rt.block_on(async { kube::Client::try_from(config).unwrap() });
    let api = Api::<Pod>::all(client);
    let rss_before = status_mb("VmRSS:");
    let (cpu0, wall0) = (ProcStat::now().cpu_s(), Instant::now());
    let list: ObjectList<Pod> = rt.block_on(async {
        let first_page = ListParams::default().match_any().limit(500);
        match mode {
            "kube" => api.list(&ListParams::default().match_any()).await,
            "kube+strip" => api.list(&ListParams::default().match_any()).await.map(|mut list| {
                for pod in &mut list.items {
                    pod.metadata.managed_fields = None;
                }
                list
            }),
            "ours" => ApiListerWatcher::new(api).list(&first_page).await,
            "ours+skip" => ApiListerWatcher::new(api).skip_managed_fields().list(&first_page).await,
            other => panic!("unknown mode {other}"),
        }
        .unwrap()
    });
    let (wall, cpu) = (wall0.elapsed().as_secs_f64(), ProcStat::now().cpu_s() - cpu0);
    let peak = status_mb("VmHWM:") - rss_before;
    let steady = status_mb("VmRSS:") - rss_before;
    let managed = list.items.iter().filter(|p| p.metadata.managed_fields.is_some()).count();
    println!(
        "{mode:<11} {wall:>7.3} s {cpu:>6.2} s {peak:>7.0} MB {steady:>7.0} MB {:>11} {:>10}",
        format!("{} mf", managed),
        list.items.len()
    );
}
