//! One benchmark client, run in its own process by `bench_driver` so that CPU time and RSS
//! belong to it alone.
//!
//! ```text
//! bench_client --mode ours|ours-strip|ours-protobuf|ours-protobuf-strip|ours-compact
//!              |ours-compact-protobuf|metadata
//!              |kube-rt|floor|pages --kind pods|configmaps
//!              --count N --kubeconfig PATH [--events M]
//! ```
//!
//! It prints one JSON line per phase on stdout. With `--events M` it then prints
//! `{"phase":"ready","handlers":H}`, waits for a `go` line on stdin (the driver then applies
//! M updates), and prints `{"phase":"events",...}` once its handlers (or, for `kube-rt`,
//! its store) have seen all M updates. `ours` runs a second round with ten handlers.

use std::io::BufRead;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use futures::StreamExt;
use k8s_openapi::api::core::v1::{ConfigMap, Pod};
use kube::Client;
use kube::api::Api;
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube_informers_runtime::{
    MetadataSharedInformerFactory, ResourceEventHandlerFuncs, SharedIndexInformer,
    TypedInformerFactory,
};
use serde_json::json;

mod floor;
mod list_page;
mod pages;
mod proc_stats;

use proc_stats::ProcStats;

/// Prints one JSON line on stdout and flushes it.
fn json_line(value: &serde_json::Value) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{value}").and_then(|()| out.flush());
}

struct Args {
    mode: String,
    kind: String,
    count: usize,
    kubeconfig: String,
    events: usize,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        mode: String::new(),
        kind: "pods".into(),
        count: 0,
        kubeconfig: String::new(),
        events: 0,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--mode" => args.mode = value()?,
            "--kind" => args.kind = value()?,
            "--count" => args.count = value()?.parse().map_err(|e| format!("--count: {e}"))?,
            "--kubeconfig" => args.kubeconfig = value()?,
            "--events" => args.events = value()?.parse().map_err(|e| format!("--events: {e}"))?,
            other => return Err(format!("unknown flag {other:?}")),
        }
    }
    if args.mode.is_empty() || args.kubeconfig.is_empty() {
        return Err("--mode and --kubeconfig are required".into());
    }
    Ok(args)
}

async fn client(kubeconfig: &str) -> Result<Client, Box<dyn std::error::Error>> {
    let kubeconfig = Kubeconfig::read_from(kubeconfig)?;
    let config =
        kube::Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default()).await?;
    Ok(Client::try_from(config)?)
}

/// Blocks (on a blocking thread) until the driver writes a line on stdin.
async fn wait_for_go() {
    let _ = tokio::task::spawn_blocking(|| {
        let mut line = String::new();
        let _ = std::io::stdin().lock().read_line(&mut line);
    })
    .await;
}

/// Polls `done` until it returns true; returns the elapsed time.
async fn wait_until(start: Instant, done: impl Fn() -> bool) -> Duration {
    while !done() {
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    start.elapsed()
}

fn counting_handler<K: Send + Sync + 'static>(
    counter: Arc<AtomicUsize>,
) -> ResourceEventHandlerFuncs<K> {
    ResourceEventHandlerFuncs::new().on_update(move |_old: &Arc<K>, _new: &Arc<K>| {
        counter.fetch_add(1, Ordering::Relaxed);
    })
}

fn sync_line(mode: &str, kind: &str, count: usize, cached: usize, wall: Duration) {
    let stats = ProcStats::read();
    json_line(&json!({
        "phase": "sync",
        "mode": mode,
        "kind": kind,
        "count": count,
        "cached": cached,
        "sync_wall_s": wall.as_secs_f64(),
        "cpu_s": stats.cpu_s,
        "sys_s": stats.sys_s,
        "minor_faults": stats.minor_faults,
        "peak_rss_bytes": stats.peak_rss,
        "steady_rss_bytes": stats.rss,
        "steady_rss_per_object": stats.rss as f64 / count.max(1) as f64,
    }));
}

fn events_line(handlers: usize, wall: Duration, events: usize, cpu_before: f64) {
    let cpu = ProcStats::read().cpu_s - cpu_before;
    json_line(&json!({
        "cpu_s": cpu,
        "cpu_us_per_event": cpu * 1e6 / events.max(1) as f64,
        "phase": "events",
        "handlers": handlers,
        "events": events,
        "wall_s": wall.as_secs_f64(),
        "events_per_s": events as f64 / wall.as_secs_f64(),
    }));
}

/// The event phase of an informer of ours: one handler, then ten.
async fn our_events<K>(informer: &SharedIndexInformer<K>, first: Arc<AtomicUsize>, events: usize)
where
    K: kube::Resource + Clone + std::fmt::Debug + Send + Sync + 'static,
{
    if events == 0 {
        return;
    }
    json_line(&json!({"phase": "ready", "handlers": 1}));
    wait_for_go().await;
    let cpu_before = ProcStats::read().cpu_s;
    let start = Instant::now();
    first.store(0, Ordering::Relaxed);
    let wall = wait_until(start, || first.load(Ordering::Relaxed) >= events).await;
    events_line(1, wall, events, cpu_before);

    let mut counters = vec![first];
    for _ in 1..10 {
        let counter = Arc::new(AtomicUsize::new(0));
        if let Err(error) = informer.add_event_handler(counting_handler::<K>(counter.clone())) {
            eprintln!("add_event_handler: {error}");
            std::process::exit(1);
        }
        counters.push(counter);
    }
    json_line(&json!({"phase": "ready", "handlers": 10}));
    wait_for_go().await;
    let cpu_before = ProcStats::read().cpu_s;
    let start = Instant::now();
    for counter in &counters {
        counter.store(0, Ordering::Relaxed);
    }
    let wall =
        wait_until(start, || counters.iter().all(|c| c.load(Ordering::Relaxed) >= events)).await;
    events_line(10, wall, events, cpu_before);
}

/// The modes [`run_ours`] runs.
const OURS: [&str; 6] = [
    "ours",
    "ours-strip",
    "ours-protobuf",
    "ours-protobuf-strip",
    "ours-compact",
    "ours-compact-protobuf",
];

/// `ours`: the typed store; `ours-strip`: with `.strip_managed_fields()`; `ours-protobuf`:
/// with `.protobuf()`; `ours-protobuf-strip`: both; `ours-compact`: with
/// `.compact_store()` (issue 18); `ours-compact-protobuf`: with both `.compact_store()` and
/// `.protobuf()`.
async fn run_ours<K>(args: &Args, client: Client)
where
    K: kube::Resource<DynamicType = ()>
        + serde::Serialize
        + serde::de::DeserializeOwned
        + Clone
        + std::fmt::Debug
        + Send
        + Sync
        + 'static,
    K::Scope: kube_informers_runtime::InformerScope,
{
    let start = Instant::now();
    let mut builder = TypedInformerFactory::builder(client);
    match args.mode.as_str() {
        "ours-strip" => builder = builder.strip_managed_fields(),
        "ours-protobuf" => builder = builder.protobuf(),
        "ours-protobuf-strip" => builder = builder.protobuf().strip_managed_fields(),
        "ours-compact" => builder = builder.compact_store(),
        "ours-compact-protobuf" => builder = builder.compact_store().protobuf(),
        _ => {}
    }
    let factory: TypedInformerFactory = builder.build();
    let informer = factory.informer_for::<K>();
    let counter = Arc::new(AtomicUsize::new(0));
    let _registration = informer.add_event_handler(counting_handler::<K>(counter.clone()));
    factory.start();
    factory.wait_for_cache_sync().await;
    let indexer = informer.get_indexer();
    let wall = wait_until(start, || indexer.list_keys().len() >= args.count).await;
    sync_line(&args.mode, &args.kind, args.count, indexer.list_keys().len(), wall);
    our_events(&informer, counter, args.events).await;
    factory.shutdown().await;
}

async fn run_metadata(args: &Args, client: Client) {
    let start = Instant::now();
    let factory = MetadataSharedInformerFactory::new(client, Duration::ZERO);
    let gvr = kube::core::GroupVersionResource::gvr("", "v1", &args.kind);
    let informer = factory.for_resource(&gvr).informer();
    let counter = Arc::new(AtomicUsize::new(0));
    let _registration = informer.add_event_handler(counting_handler(counter.clone()));
    factory.start();
    factory.wait_for_cache_sync().await;
    let indexer = informer.get_indexer();
    let wall = wait_until(start, || indexer.list_keys().len() >= args.count).await;
    sync_line(&args.mode, &args.kind, args.count, indexer.list_keys().len(), wall);
    our_events(&informer, counter, args.events).await;
    factory.shutdown().await;
}

async fn run_kube_runtime<K>(args: &Args, client: Client)
where
    K: kube::Resource<DynamicType = ()>
        + serde::de::DeserializeOwned
        + Clone
        + std::fmt::Debug
        + Send
        + Sync
        + 'static,
{
    use kube::runtime::{reflector, watcher};
    let start = Instant::now();
    let api: Api<K> = Api::all(client);
    let (reader, writer) = reflector::store::<K>();
    let applied = Arc::new(AtomicUsize::new(0));
    let synced = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let stream = reflector::reflector(writer, watcher(api, watcher::Config::default()));
    let (applied2, synced2) = (applied.clone(), synced.clone());
    let driver = tokio::spawn(async move {
        let mut stream = std::pin::pin!(stream);
        while let Some(event) = stream.next().await {
            match event {
                // The reflector has applied the event to the store before yielding it.
                Ok(watcher::Event::Apply(_)) if synced2.load(Ordering::Relaxed) => {
                    applied2.fetch_add(1, Ordering::Relaxed);
                }
                Ok(watcher::Event::InitDone) => synced2.store(true, Ordering::Relaxed),
                Ok(_) => {}
                Err(error) => eprintln!("watcher error: {error}"),
            }
        }
    });
    if reader.wait_until_ready().await.is_err() {
        eprintln!("kube-runtime store never became ready");
        std::process::exit(1);
    }
    let wall = wait_until(start, || reader.state().len() >= args.count).await;
    sync_line(&args.mode, &args.kind, args.count, reader.state().len(), wall);
    if args.events > 0 {
        json_line(&json!({"phase": "ready", "handlers": 1}));
        wait_for_go().await;
        let cpu_before = ProcStats::read().cpu_s;
        let start = Instant::now();
        applied.store(0, Ordering::Relaxed);
        let wall = wait_until(start, || applied.load(Ordering::Relaxed) >= args.events).await;
        events_line(1, wall, args.events, cpu_before);
    }
    driver.abort();
}

fn main() -> std::process::ExitCode {
    let args = match parse_args() {
        Ok(args) => args,
        Err(error) => {
            eprintln!("bench_client: {error}");
            return std::process::ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("bench_client: runtime: {error}");
            return std::process::ExitCode::FAILURE;
        }
    };
    runtime.block_on(async {
        let client = match client(&args.kubeconfig).await {
            Ok(client) => client,
            Err(error) => {
                eprintln!("bench_client: client: {error}");
                return std::process::ExitCode::FAILURE;
            }
        };
        match (args.mode.as_str(), args.kind.as_str()) {
            (mode, "pods") if OURS.contains(&mode) => run_ours::<Pod>(&args, client).await,
            (mode, "configmaps") if OURS.contains(&mode) => {
                run_ours::<ConfigMap>(&args, client).await
            }
            ("metadata", _) => run_metadata(&args, client).await,
            ("kube-rt", "pods") => run_kube_runtime::<Pod>(&args, client).await,
            ("kube-rt", "configmaps") => run_kube_runtime::<ConfigMap>(&args, client).await,
            ("floor", "pods") => json_line(&floor::run_floor::<Pod>(&args.kind, client).await),
            ("floor", "configmaps") => {
                json_line(&floor::run_floor::<ConfigMap>(&args.kind, client).await)
            }
            ("pages", kind) => json_line(&pages::run_pages(kind, args.count, client).await),
            (mode, kind) => {
                eprintln!("bench_client: unknown mode/kind {mode}/{kind}");
                return std::process::ExitCode::from(2);
            }
        }
        std::process::ExitCode::SUCCESS
    })
}
